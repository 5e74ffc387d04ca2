//! Runs the `records` target's checks (`kwire_fuzz::records::records`) without libFuzzer, on
//! stable: every seed of `kwire_fuzz::records::seeds`, and the files of a directory if one is
//! given (a crash artifact, a corpus), each whole, cut at every length, with every byte flipped
//! (three masks), and with `MUTATIONS` seeded random multi-byte mutations. A panic is a finding,
//! as under the fuzzer.
//!
//! `cargo run --release --bin mutate_records [DIR] [MUTATIONS]` (DIR "" for the seeds alone)

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let mut inputs = kwire_fuzz::records::seeds();
    if let Some(dir) = args.next().filter(|d| !d.is_empty()).map(PathBuf::from) {
        for entry in std::fs::read_dir(&dir).expect("reading the directory") {
            let path = entry.expect("a directory entry").path();
            let bytes = std::fs::read(&path).expect("reading an input");
            inputs.push((path.display().to_string(), bytes));
        }
    }
    let mutations: usize = args
        .next()
        .and_then(|s| s.to_str()?.parse().ok())
        .unwrap_or(2000);
    let mut runs = 0usize;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut rand = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (name, input) in &inputs {
        kwire_fuzz::records::records(input);
        runs += 1;
        for cut in 0..input.len() {
            kwire_fuzz::records::records(&input[..cut]);
            runs += 1;
        }
        for i in 0..input.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut m = input.clone();
                m[i] ^= mask;
                kwire_fuzz::records::records(&m);
                runs += 1;
            }
        }
        for _ in 0..mutations {
            let mut m = input.clone();
            for _ in 0..1 + rand() % 4 {
                if m.is_empty() {
                    break;
                }
                let i = (rand() % m.len() as u64) as usize;
                m[i] = rand() as u8;
            }
            kwire_fuzz::records::records(&m);
            runs += 1;
        }
        eprintln!("{name}: done ({runs} runs so far)");
    }
    println!("{runs} inputs, no panic");
}

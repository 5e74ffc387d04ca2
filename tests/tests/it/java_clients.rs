//! Kafka's Java producer (kafka-clients 4.4.0) with its default settings writes through
//! kwire-server to topics that do not exist yet, and Kafka's Java consumer reads back exactly what
//! it sent.
//!
//! The Java side is `dev.kwire.oracle.ProducerRoundTrip` in `tests/java-oracle/` (built once per
//! run with the oracles, [`crate::java::classpath`]). Its producer sets nothing but
//! the serializers, a client id and, for four of the five runs, `compression.type`: idempotence
//! is on (the default since Kafka 3.0, so it needs InitProducerId), acks=all. For each codec it
//! sends 240 messages with null keys, null values, both null, empty keys and values, duplicate
//! header keys, null and empty header values and producer timestamps out of order to
//! `java-default-<codec>`, checks that each partition's offsets run 0..n-1 in the order sent, and
//! reads every partition back with a consumer without a group (`assign`, since kwire-server's
//! groups are KIP-848 only), comparing key, value, headers and timestamp of each record with what
//! was sent at that offset (its class doc has the details and its output lines).
//!
//! This side starts one kwire-server in process with no topic (so every topic is created by the
//! clients' Metadata requests, as Kafka's `auto.create.topics.enable=true` does, with three
//! partitions from the server's `default_partitions`), runs the
//! program, and then reads the stored batches of every partition the program reports with raw
//! Fetch requests: each batch must carry the producer id and epoch InitProducerId gave (the same
//! for the whole topic), a base sequence equal to its base offset (the producer's sequences from
//! 0, nothing stored twice), the codec asked for, and no transactional or control flag.
//!
//! Gated as the oracle test is: without `java` or `mvn` on `PATH` when tests/build.rs ran, the
//! test is compiled as ignored, with the reason; under `CI=true` their absence is a failure.

use crate::java::{classpath, java_ready};
use kwire_protocol::generated::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `compression.type` values of the runs (`none`: left unset, Kafka's default).
const CODECS: [&str; 5] = ["none", "gzip", "snappy", "lz4", "zstd"];

/// Partitions of the auto-created topics (the server's `default_partitions`).
const PARTITIONS: i32 = 3;

/// How long the whole Java program may take before it is killed (its own waits are 30 s each).
const JAVA_DEADLINE: Duration = Duration::from_secs(240);

/// The header of a stored record batch (magic 2), as `DefaultRecordBatch` lays it out.
#[derive(Debug, Clone, Copy)]
struct BatchHeader {
    base_offset: i64,
    magic: i8,
    attributes: i16,
    last_offset_delta: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    record_count: i32,
}

impl BatchHeader {
    /// The codec of the attributes' low three bits, named as `compression.type` names it.
    fn compression(&self) -> &'static str {
        ["none", "gzip", "snappy", "lz4", "zstd", "5?", "6?", "7?"][(self.attributes & 7) as usize]
    }
}

fn be<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N].try_into().expect("in bounds")
}

/// The headers of the whole batches in a Fetch response's records (a partial batch at the end
/// is left out, as consumers do).
fn batch_headers(records: &[u8]) -> Vec<BatchHeader> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 61 <= records.len() {
        let length = i32::from_be_bytes(be(records, pos + 8));
        let Ok(length) = usize::try_from(length) else {
            panic!("negative batch length {length} at byte {pos}")
        };
        if pos + 12 + length > records.len() {
            break;
        }
        out.push(BatchHeader {
            base_offset: i64::from_be_bytes(be(records, pos)),
            magic: records[pos + 16] as i8,
            attributes: i16::from_be_bytes(be(records, pos + 21)),
            last_offset_delta: i32::from_be_bytes(be(records, pos + 23)),
            producer_id: i64::from_be_bytes(be(records, pos + 43)),
            producer_epoch: i16::from_be_bytes(be(records, pos + 51)),
            base_sequence: i32::from_be_bytes(be(records, pos + 53)),
            record_count: i32::from_be_bytes(be(records, pos + 57)),
        });
        pos += 12 + length;
    }
    out
}

/// Every batch of `topic`[`partition`], with Fetch v11 (by name, no session) from offset 0 up to
/// the high watermark; returns (high watermark, batch headers). Each batch must start where the
/// one before it ended.
async fn stored_batches(addr: SocketAddr, topic: &str, partition: i32) -> (i64, Vec<BatchHeader>) {
    let mut c = Client::connect(addr)
        .await
        .expect("connect to kwire-server");
    let mut batches: Vec<BatchHeader> = Vec::new();
    let mut offset = 0i64;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let req = FetchRequest {
            max_bytes: 64 << 20,
            topics: vec![FetchTopic {
                topic: topic.to_string().into(),
                partitions: vec![FetchPartition {
                    partition,
                    fetch_offset: offset,
                    partition_max_bytes: 32 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let f = c.request(&req, 11).await.expect("Fetch");
        assert_eq!(f.error_code, 0, "Fetch error");
        let p = &f.responses[0].partitions[0];
        assert_eq!(
            p.error_code, 0,
            "{topic}[{partition}]@{offset}: Fetch error"
        );
        for b in batch_headers(p.records.as_deref().unwrap_or_default()) {
            assert_eq!(
                b.base_offset, offset,
                "{topic}[{partition}]: batch out of place: {b:?}"
            );
            offset = b.base_offset + i64::from(b.last_offset_delta) + 1;
            batches.push(b);
        }
        if offset >= p.high_watermark {
            return (p.high_watermark, batches);
        }
        assert!(
            Instant::now() < deadline,
            "{topic}[{partition}]: read up to {offset} of {} in 30 s",
            p.high_watermark
        );
    }
}

/// Runs `ProducerRoundTrip` to the end, or kills it at [`JAVA_DEADLINE`]; returns (success,
/// stdout, stderr).
fn run_java(classpath: &str, bootstrap: &str) -> (bool, String, String) {
    let mut child = Command::new("java")
        .args([
            "-Xshare:auto",
            "-XX:+UseSerialGC",
            "-cp",
            classpath,
            "dev.kwire.oracle.ProducerRoundTrip",
            bootstrap,
        ])
        .args(CODECS)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting java");
    let pid = child.id();
    let (done, watched) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watched.recv_timeout(JAVA_DEADLINE)
        {
            // Only this test's own child, by its pid.
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            return true;
        }
        false
    });
    let mut stderr = child.stderr.take().expect("piped stderr");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    for line in BufReader::new(child.stdout.take().expect("piped stdout")).lines() {
        let line = line.expect("reading the program's stdout");
        println!("java: {line}");
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let status = child.wait().expect("waiting for java");
    let _ = done.send(());
    let killed = watchdog.join().expect("watchdog");
    let stderr = err_reader.join().expect("stderr reader");
    assert!(
        !killed,
        "ProducerRoundTrip ran past {JAVA_DEADLINE:?} and was killed\n{stderr}"
    );
    (status.success(), stdout, stderr)
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_producer_defaults_write_to_new_topics_and_a_java_consumer_reads_back_exactly() {
    if !java_ready("java clients") {
        return;
    }
    let classpath = classpath();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    // No topic: the clients' Metadata requests create them, with three partitions each (so that
    // producer state is kept per partition and the partitioner spreads the messages).
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
    assert!(
        config.auto_create_topics,
        "auto-creation is on by default, as in Kafka"
    );
    config.default_partitions = PARTITIONS;
    let server = rt
        .block_on(Server::bind(config))
        .expect("kwire-server binds");
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server.run(async {
        let _ = stopped.await;
    }));

    let started = Instant::now();
    let (ok, stdout, stderr) = run_java(&classpath, &addr.to_string());
    let java_s = started.elapsed().as_secs_f64();
    let fails: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(
        ok && fails.is_empty(),
        "ProducerRoundTrip failed:\n{}\n--- its stderr ---\n{stderr}",
        fails.join("\n")
    );

    // Every codec reported OK, with the partitions it wrote.
    let mut partitions: BTreeMap<String, Vec<(i32, i64)>> = BTreeMap::new();
    let mut oks = Vec::new();
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["PARTITION", topic, p, n] => partitions
                .entry(topic.to_string())
                .or_default()
                .push((p.parse().unwrap(), n.parse().unwrap())),
            ["OK", codec, topic, n, ms] => {
                oks.push((codec.to_string(), topic.to_string(), *n, *ms))
            }
            _ => {}
        }
    }
    assert_eq!(
        oks.iter().map(|o| o.0.as_str()).collect::<Vec<_>>(),
        CODECS,
        "an OK line for every codec"
    );

    // The stored batches: idempotent, in sequence, compressed as asked.
    for (codec, topic, n, ms) in &oks {
        let parts = &partitions[topic];
        assert!(
            parts.iter().all(|&(p, _)| (0..PARTITIONS).contains(&p)),
            "{topic}: partitions {parts:?}"
        );
        let mut pids = std::collections::BTreeSet::new();
        let mut n_batches = 0;
        for &(p, count) in parts {
            let (hw, batches) = rt.block_on(stored_batches(addr, topic, p));
            assert_eq!(
                hw, count,
                "{topic}[{p}]: high watermark {hw}, {count} records sent"
            );
            for b in &batches {
                assert_eq!(b.magic, 2, "{topic}[{p}]: {b:?}");
                assert!(
                    b.producer_id >= 0 && b.producer_epoch >= 0,
                    "{topic}[{p}]: not an idempotent batch: {b:?}"
                );
                assert_eq!(
                    i64::from(b.base_sequence),
                    b.base_offset,
                    "{topic}[{p}]: sequence and offset disagree: {b:?}"
                );
                assert_eq!(
                    b.record_count,
                    b.last_offset_delta + 1,
                    "{topic}[{p}]: {b:?}"
                );
                // The Java producer compresses every batch when compression.type is set.
                assert_eq!(b.compression(), codec, "{topic}[{p}]: {b:?}");
                assert_eq!(
                    b.attributes & 0x30,
                    0,
                    "{topic}[{p}]: transactional or control: {b:?}"
                );
                pids.insert((b.producer_id, b.producer_epoch));
            }
            n_batches += batches.len();
        }
        assert_eq!(
            pids.len(),
            1,
            "{topic}: one producer id and epoch, found {pids:?}"
        );
        println!(
            "java clients, {codec}: {n} records in {n_batches} batches over {} partitions (producer \
             id/epoch {:?}), read back exactly in {ms} ms",
            parts.len(),
            pids.first().unwrap()
        );
    }
    println!("java clients: the whole program took {java_s:.1} s");

    let _ = stop.send(());
    rt.block_on(serving)
        .expect("the server task")
        .expect("kwire-server stops cleanly");
}

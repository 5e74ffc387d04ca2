//! `kwire`: the command-line front of kwire-codegen.
//!
//! * `kwire check PATH... [--format human|json]`: diagnostics for spec files and folders (a folder
//!   is walked, and each folder under it that holds specs is one unit of the folder-wide rules, as
//!   in Kafka); exit 0 without errors, 1 with errors, 2 on a usage error.
//! * `kwire generate DIR -o FILE [--samples] [--json]`: one Rust file for the specs in `DIR`.
//! * `kwire decode --api KEY --version V [--response] HEX|@FILE`: a frame of an API in
//!   `schemas/` (header + body, no size prefix) as Kafka's JSON form on stdout; exit 1 when it
//!   does not decode (field path and byte offset on stderr), 2 on a usage error.
//! * `kwire encode --api KEY --version V [--response] [--out FILE] JSON|@FILE`: that JSON back
//!   into the frame, as hex on stdout or raw into `--out`. See `cli_wire.rs` for the details.
//!
//! `decode` and `encode` need the default feature `wire` (they link the protocol crate).

use clap::{Parser, Subcommand, ValueEnum};
use kwire_codegen::{render, source, Builder};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[cfg(feature = "wire")]
mod cli_wire;

#[derive(Parser)]
#[command(name = "kwire", version, about = "Kafka message-spec compiler")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check spec files and folders and print diagnostics.
    Check {
        /// Spec files or folders (a folder's *.json files are checked together).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Generate Rust code for a folder of specs.
    Generate {
        /// The folder.
        dir: PathBuf,
        /// Output file.
        #[arg(short, long)]
        out: PathBuf,
        /// Also emit Sample impls.
        #[arg(long)]
        samples: bool,
        /// Also emit Kafka's JSON form (needs kwire-protocol's `json` feature).
        #[arg(long)]
        json: bool,
    },
    /// Decode a request or response frame (header + body, no size prefix) of an API in schemas/
    /// and print it as Kafka's JSON form.
    Decode {
        /// API key number or name (e.g. 68 or ConsumerGroupHeartbeat).
        #[arg(long)]
        api: String,
        /// API version (for a request, the header must say the same).
        #[arg(long)]
        version: i16,
        /// The frame is a response to a request of that API and version.
        #[arg(long)]
        response: bool,
        /// The frame as hex (whitespace allowed), or @FILE (hex text or raw bytes; @- for stdin).
        input: String,
    },
    /// Encode a frame from its JSON form (as `kwire decode` prints it).
    Encode {
        /// API key number or name (e.g. 68 or ConsumerGroupHeartbeat).
        #[arg(long)]
        api: String,
        /// API version (for a request, the header must say the same).
        #[arg(long)]
        version: i16,
        /// The JSON is a response to a request of that API and version.
        #[arg(long)]
        response: bool,
        /// Write the raw frame to FILE instead of printing hex.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The JSON text, or @FILE (@- for stdin).
        input: String,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.cmd {
        Cmd::Check { paths, format } => check(paths, format),
        #[cfg(feature = "wire")]
        Cmd::Decode { api, version, response, input } => cli_wire::run_decode(&api, version, response, &input),
        #[cfg(feature = "wire")]
        Cmd::Encode { api, version, response, out, input } => {
            cli_wire::run_encode(&api, version, response, &input, out.as_deref())
        }
        #[cfg(not(feature = "wire"))]
        Cmd::Decode { .. } | Cmd::Encode { .. } => {
            eprintln!("error: this kwire was built without the `wire` feature (decode/encode)");
            ExitCode::from(2)
        }
        Cmd::Generate { dir, out, samples, json } => {
            let files = match source::read_dir(&dir) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {}: {e}", dir.display());
                    return ExitCode::from(2);
                }
            };
            match Builder::new().samples(samples).json(json).generate(files) {
                Ok(code) => match std::fs::write(&out, code) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: {}: {e}", out.display());
                        ExitCode::from(2)
                    }
                },
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn check(paths: Vec<PathBuf>, format: Format) -> ExitCode {
    let mut units = Vec::new();
    for p in &paths {
        // A folder is walked: every folder under it that holds specs is one unit.
        let result = if p.is_dir() {
            source::spec_folders(p).and_then(|folders| {
                folders.iter().map(|d| source::read_dir(d).map(kwire_codegen::check_files)).collect::<Result<Vec<_>, _>>()
            })
        } else {
            source::read_file(p.clone()).map(|f| vec![kwire_codegen::check_files_alone(vec![f])])
        };
        match result {
            Ok(u) => units.extend(u),
            Err(e) => {
                eprintln!("error: {}: {e}", p.display());
                return ExitCode::from(2);
            }
        }
    }
    let (mut errors, mut warnings, mut nfiles) = (0, 0, 0);
    let mut json = Vec::new();
    let color = std::io::stderr().is_terminal();
    for u in &units {
        errors += u.error_count();
        warnings += u.warning_count();
        nfiles += u.files.len();
        match format {
            Format::Human => eprint!("{}", render::render_all(u, color)),
            Format::Json => {
                if let serde_json::Value::Array(items) = render::json_all(u) {
                    json.extend(items);
                }
            }
        }
    }
    match format {
        Format::Json => println!("{}", serde_json::Value::Array(json)),
        Format::Human => eprintln!(
            "kwire check: {nfiles} file{}, {errors} error{}, {warnings} warning{}",
            if nfiles == 1 { "" } else { "s" },
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        ),
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

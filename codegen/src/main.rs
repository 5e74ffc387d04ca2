//! `kwire`: the command-line front of kwire-codegen.
//!
//! * `kwire check PATH... [--format human|json] [--max-diagnostics N]`: diagnostics for spec
//!   files and folders (a folder is walked, and each folder under it that holds specs is one unit
//!   of the folder-wide rules, as in Kafka); a file that is not UTF-8 is reported and the others
//!   still checked; each unit's diagnostics are written as it is checked, the first 50 (or N; 0
//!   for all) in the human form, every one in JSON; exit 0 without errors, 1 with errors, 2 on a
//!   usage error (an unreadable path, a folder without specs).
//! * `kwire diff OLD NEW [--format human|json]`: what changed between two spec files or two
//!   folders (matched by message name), breaking or compatible ([`kwire_codegen::diff`]); exit 0
//!   nothing breaking, 1 something breaking or check errors on either side (printed as `check`
//!   prints them), 2 on a usage error.
//! * `kwire generate DIR (-o FILE | --out-dir DIR [--file-name NAME]) [--samples] [--json]
//!   [--views]`: one Rust file for the specs in `DIR`, with the options of
//!   [`kwire_codegen::Builder`]; exit 1 when the specs have errors (diagnostics on stderr).
//! * `kwire decode --api KEY --version V [--response] [--size-prefixed] [--records] HEX|@FILE`: a frame of an
//!   API in `schemas/` (header + body; its 4-byte size prefix only with `--size-prefixed`) as
//!   Kafka's JSON form on stdout; exit 1 when it does not decode (field path and byte offset on
//!   stderr, and a hint when the input looks size-prefixed), 2 on a usage error.
//! * `kwire encode --api KEY --version V [--response] [--size-prefixed] [--out FILE] JSON|@FILE`:
//!   that JSON back into the frame, as hex on stdout or raw into `--out`. See `cli_wire.rs` for
//!   the details.
//!
//! `decode` and `encode` need the default feature `wire` (they link the protocol crate).
//!
//! All output goes through [`out`]: when the reader of standard output or standard error goes
//! away (`kwire decode … | head -1`), the rest of that stream's output is dropped and the command
//! ends with the exit status it would have had, without a panic.

use clap::{Parser, Subcommand, ValueEnum};
use kwire_codegen::source::NotUtf8;
use kwire_codegen::{render, source, Builder, Checked};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
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
    ///
    /// A folder is walked: each folder at or under it that holds *.json files is checked as one
    /// unit (the folder-wide rules apply within it, as in Kafka); a file named on the command line
    /// is checked alone. A file that is not UTF-8 is reported as an error (without a code, with
    /// the byte offset of its first invalid byte) and the other files are still checked.
    /// Diagnostics go to standard error as each unit is checked (--format json: a JSON array on
    /// standard output, every diagnostic, written as it is made). A source line longer than 160
    /// bytes is shown as a window around the span, with `…` where it is cut; after
    /// --max-diagnostics diagnostics the rest are only counted ("... and 19950 more errors").
    ///
    /// Exit status: 0 no errors (warnings allowed), 1 errors, 2 a usage error: a path that cannot
    /// be read, or a folder with no *.json file at any depth ("no spec files (*.json) under
    /// DIR").
    Check {
        /// Spec files or folders (a folder's *.json files are checked together).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Print at most N diagnostics (0: all); the summary line still counts them all. The
        /// JSON form always has every diagnostic.
        #[arg(long, value_name = "N", default_value_t = render::DEFAULT_MAX_DIAGNOSTICS)]
        max_diagnostics: usize,
    },
    /// Compare two spec files or two folders of specs: what changed, and whether the bytes of a
    /// version both sides have can differ (codes K5001-K5016 breaking, K5101-K5110 compatible).
    ///
    /// Specs are matched by message name (two files given are compared with each other). The
    /// *.json files directly in a folder are loaded as `kwire check` loads a folder. Findings go
    /// to standard output, a breaking one as `error[K50xx]`, a compatible one as `note[K51xx]`
    /// (--format json: a JSON array of {code, severity, level, kind, message, versions, path,
    /// text, old, new}, severity `breaking` or `compatible`, level `error` or `note`). When either side does not pass `kwire check`, its
    /// diagnostics are printed as `check` prints them (standard error) and nothing is compared.
    ///
    /// Exit status: 0 nothing breaking; 1 something breaking, or check errors on either side;
    /// 2 a usage error (an unreadable path, a file against a folder, a folder without *.json).
    Diff {
        /// The old spec file or folder.
        old: PathBuf,
        /// The new spec file or folder.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Generate one Rust source file for a folder of specs, as kwire_codegen::Builder does in a
    /// build script (the same options).
    ///
    /// The *.json files directly in DIR are one unit (the folder-wide rules apply, as in Kafka).
    /// The output needs the runtime crate kwire-protocol (with its `sample` feature for --samples
    /// and its `json` feature for --json); include it with `include!`. The file is written only
    /// when its text changes.
    ///
    /// Exit status: 0 written; 1 the specs have errors (diagnostics on standard error, nothing
    /// written); 2 a usage error (DIR unreadable, the output not writable).
    #[command(group(clap::ArgGroup::new("output").required(true).args(["out", "out_dir"])))]
    Generate {
        /// The folder of specs.
        dir: PathBuf,
        /// Output file (its folder is created if missing).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Output folder (Builder::out_dir); the file in it is named by --file-name.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Output file name in --out-dir (Builder::file_name).
        #[arg(long, default_value = "kwire.rs", conflicts_with = "out")]
        file_name: String,
        /// Also emit `Sample` impls (Builder::samples; needs kwire-protocol's `sample` feature).
        #[arg(long)]
        samples: bool,
        /// Also emit Kafka's JSON form (Builder::json; needs kwire-protocol's `json` feature).
        #[arg(long)]
        json: bool,
        /// Also emit borrowed views, `…Ref<'a>` (Builder::views): allocation-free readers over
        /// encoded bytes.
        #[arg(long)]
        views: bool,
    },
    /// Decode a request or response frame (header + body, no size prefix) of an API in schemas/
    /// and print it as Kafka's JSON form.
    ///
    /// A request frame's header must name --api and --version (checked before the body is
    /// read); a response frame's header has no API key, so --response and the request's --api and
    /// --version say how to read it. A frame as it travels on the wire, behind its 4-byte size
    /// prefix, needs --size-prefixed (or the prefix dropped); without it, an input whose first 4
    /// bytes give the length of the rest is named in a hint when it does not decode.
    ///
    /// Exit status: 0 done; 1 the frame does not decode or does not match --api/--version (field
    /// path and byte offset on standard error); 2 a usage error (unknown API or version, bad hex,
    /// an unreadable file).
    Decode {
        /// API key number or name (e.g. 68 or ConsumerGroupHeartbeat).
        #[arg(long)]
        api: String,
        /// API version (for a request, the header must say the same).
        #[arg(long, allow_negative_numbers = true)]
        version: i16,
        /// The frame is a response to a request of that API and version.
        #[arg(long)]
        response: bool,
        /// The input starts with the frame's 4-byte size prefix (a big-endian int32 giving the
        /// number of bytes after it), which must match.
        #[arg(long)]
        size_prefixed: bool,
        /// Expand every `records` field (Produce, Fetch, ShareFetch, FetchSnapshot) into its
        /// record batches: `{"batches": [{baseOffset, …, compression, records: [{offsetDelta,
        /// timestampDelta, timestamp, key, value, headers}]}]}`, keys and values in base64 (null
        /// for null), compressed batches decompressed (up to 64 MiB each). Without it, records
        /// are the base64 of their bytes. `kwire encode` reads both forms.
        #[arg(long)]
        records: bool,
        /// The frame as hex (whitespace allowed), or @FILE (@- for standard input).
        ///
        /// A file whose bytes are all printable ASCII or whitespace is hex text, and a character
        /// that is not a hex digit is an error ("bad hex in FILE: … at character N"); a file with
        /// any other byte (a control byte, such as the 0x00 that starts every request, or a
        /// non-ASCII byte) is the raw frame. A raw response frame whose bytes are all printable
        /// would be read as hex: give such a frame as hex.
        input: String,
    },
    /// Encode a frame from its JSON form (as `kwire decode` prints it).
    ///
    /// A request's JSON header must name --api and --version (requestApiKey, requestApiVersion).
    /// The JSON is read as leniently as Kafka's JSON converters read it (the JSON-form contract of
    /// kwire_protocol::wire::json): unknown keys are ignored; a field the version lacks is read,
    /// and refused when encoding only if it holds a non-default value and is not ignorable; a
    /// field the version has (outside the tagged fields) must be present.
    ///
    /// Exit status: 0 done; 1 the JSON does not match --api/--version, does not fit the message
    /// or cannot be encoded (with its path); 2 a usage error (unknown API or version, text that
    /// is not JSON, an unreadable or unwritable file).
    Encode {
        /// API key number or name (e.g. 68 or ConsumerGroupHeartbeat).
        #[arg(long)]
        api: String,
        /// API version (for a request, the header must say the same).
        #[arg(long, allow_negative_numbers = true)]
        version: i16,
        /// The JSON is a response to a request of that API and version.
        #[arg(long)]
        response: bool,
        /// Put the frame's 4-byte size prefix in front, as on the wire.
        #[arg(long)]
        size_prefixed: bool,
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
            // An error here is a closed pipe (`kwire --help | head -1`): nothing to do.
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    ExitCode::from(out::status(run(cli.cmd)))
}

/// Runs a command: its exit status.
fn run(cmd: Cmd) -> u8 {
    match cmd {
        Cmd::Check {
            paths,
            format,
            max_diagnostics,
        } => check(&paths, format, max_diagnostics),
        Cmd::Diff { old, new, format } => diff(&old, &new, format),
        #[cfg(feature = "wire")]
        Cmd::Decode {
            api,
            version,
            response,
            size_prefixed,
            records,
            input,
        } => cli_wire::run_decode(
            &cli_wire::FrameArgs {
                api: &api,
                version,
                response,
                size_prefixed,
            },
            records,
            &input,
        ),
        #[cfg(feature = "wire")]
        Cmd::Encode {
            api,
            version,
            response,
            size_prefixed,
            out,
            input,
        } => cli_wire::run_encode(
            &cli_wire::FrameArgs {
                api: &api,
                version,
                response,
                size_prefixed,
            },
            &input,
            out.as_deref(),
        ),
        #[cfg(not(feature = "wire"))]
        Cmd::Decode { .. } | Cmd::Encode { .. } => {
            out::eprint("error: this kwire was built without the `wire` feature (decode/encode)\n");
            2
        }
        Cmd::Generate {
            dir,
            out,
            out_dir,
            file_name,
            samples,
            json,
            views,
        } => {
            // -o FILE is --out-dir (its folder) with --file-name (its name).
            let (folder, name) = match (out, out_dir) {
                (Some(file), _) => match file.file_name() {
                    Some(n) => (
                        file.parent().map(Path::to_path_buf).unwrap_or_default(),
                        n.to_string_lossy().into_owned(),
                    ),
                    None => {
                        out::eprint(&format!("error: {}: not a file name\n", file.display()));
                        return 2;
                    }
                },
                (None, Some(d)) => (d, file_name),
                (None, None) => unreachable!("clap requires -o or --out-dir"),
            };
            let path = folder.join(&name);
            generate(
                &dir,
                &path,
                Builder::new()
                    .out_dir(folder)
                    .file_name(name)
                    .samples(samples)
                    .json(json)
                    .views(views),
            )
        }
    }
}

/// `kwire generate`: compiles `dir` with `builder` and writes the file (at `path`); the exit
/// status.
fn generate(dir: &Path, path: &Path, builder: Builder) -> u8 {
    let files = match source::read_dir(dir) {
        Ok(f) => f,
        Err(e) => {
            out::eprint(&format!("error: {}: {e}\n", dir.display()));
            return 2;
        }
    };
    match builder.compile_files(files) {
        Ok(compiled) => {
            for w in &compiled.warnings {
                out::eprint(&format!("{w}\n"));
            }
            0
        }
        Err(e @ kwire_codegen::Error::Specs(_)) => {
            out::eprint(&format!("{e}\n"));
            1
        }
        Err(e) => {
            out::eprint(&format!("error: {}: {e}\n", path.display()));
            2
        }
    }
}

/// Standard output and standard error through handles whose write errors are handled.
///
/// A reader that has gone away (EPIPE: `kwire … | head -1`) is not an error: the rest of that
/// stream's output is dropped, and the command goes on to end with the status it would have had.
/// (Rust ignores SIGPIPE, so the write fails with EPIPE instead of killing the process; `print!`
/// would panic there.) Any other error writing standard output (a full disk) is reported on
/// standard error and makes the exit status 2.
pub mod out {
    use std::io::{ErrorKind, Write};
    use std::sync::atomic::{AtomicBool, Ordering};

    static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
    static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);
    static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

    /// Writes `text` to standard output and flushes it.
    pub fn print(text: &str) {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            return;
        }
        let mut o = std::io::stdout().lock();
        if let Err(e) = o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            if e.kind() != ErrorKind::BrokenPipe {
                STDOUT_FAILED.store(true, Ordering::Relaxed);
                eprint(&format!("error: writing standard output: {e}\n"));
            }
        }
    }

    /// Writes `text` to standard error (a write error there has nowhere to be reported: the
    /// rest of standard error is dropped).
    pub fn eprint(text: &str) {
        if STDERR_CLOSED.load(Ordering::Relaxed) {
            return;
        }
        let mut e = std::io::stderr().lock();
        if e.write_all(text.as_bytes())
            .and_then(|()| e.flush())
            .is_err()
        {
            STDERR_CLOSED.store(true, Ordering::Relaxed);
        }
    }

    /// The exit status of a command whose own status is `code`: 2 when standard output could
    /// not be written for a reason other than a closed pipe.
    pub fn status(code: u8) -> u8 {
        if STDOUT_FAILED.load(Ordering::Relaxed) {
            2
        } else {
            code
        }
    }
}

/// One unit of `kwire check`: the files checked together, and those of its files that are not
/// UTF-8 (reported, not checked).
struct Unit {
    checked: Checked,
    not_utf8: Vec<NotUtf8>,
}

/// One unit of `kwire check`, read but not checked yet: its files, those not UTF-8, and whether
/// the folder-wide rules apply (a folder) or not (a file named alone).
struct Pending {
    files: Vec<kwire_codegen::SourceFile>,
    not_utf8: Vec<NotUtf8>,
    folder: bool,
}

impl Pending {
    fn check(self) -> Unit {
        let checked = if self.folder {
            kwire_codegen::check_files(self.files)
        } else {
            kwire_codegen::check_files_alone(self.files)
        };
        Unit {
            checked,
            not_utf8: self.not_utf8,
        }
    }
}

/// The units of one `check` argument, read, or the message of a usage error.
fn check_units(p: &Path) -> Result<Vec<Pending>, String> {
    if p.is_dir() {
        // A folder is walked: every folder under it that holds specs is one unit.
        let folders = source::spec_folders(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if folders.is_empty() {
            return Err(format!("no spec files (*.json) under {}", p.display()));
        }
        folders
            .iter()
            .map(|d| {
                let (files, not_utf8) =
                    source::read_dir_lenient(d).map_err(|e| format!("{}: {e}", d.display()))?;
                Ok(Pending {
                    files,
                    not_utf8,
                    folder: true,
                })
            })
            .collect()
    } else {
        let (files, not_utf8) = match source::read_file_lenient(p.to_path_buf()) {
            Ok(Ok(f)) => (vec![f], Vec::new()),
            Ok(Err(n)) => (Vec::new(), vec![n]),
            Err(e) => return Err(format!("{}: {e}", p.display())),
        };
        Ok(vec![Pending {
            files,
            not_utf8,
            folder: false,
        }])
    }
}

/// `kwire check`: every path is read first (an unreadable one is a usage error before any
/// output), then each unit is checked and its diagnostics written, and dropped, before the next.
fn check(paths: &[PathBuf], format: Format, max_diagnostics: usize) -> u8 {
    let mut units = Vec::new();
    for p in paths {
        match check_units(p) {
            Ok(u) => units.extend(u),
            Err(message) => {
                out::eprint(&format!("error: {message}\n"));
                return 2;
            }
        }
    }
    let (mut errors, mut warnings, mut nfiles) = (0, 0, 0);
    let mut human = render::Human::new(std::io::stderr().is_terminal(), max_diagnostics);
    let mut json_items = 0usize;
    if let Format::Json = format {
        out::print("[");
    }
    for pending in units {
        let u = pending.check();
        let c = &u.checked;
        errors += c.error_count() + u.not_utf8.len();
        warnings += c.warning_count();
        nfiles += c.files.len() + u.not_utf8.len();
        // Per file, in path order (the files of a unit are sorted, those not UTF-8 among them).
        let mut found: Vec<(&Path, Result<usize, &NotUtf8>)> = c
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.as_path(), Ok(i)))
            .collect();
        found.extend(u.not_utf8.iter().map(|n| (n.path.as_path(), Err(n))));
        found.sort_by(|a, b| a.0.cmp(b.0));
        for (_, item) in found {
            match (format, item) {
                (Format::Human, Ok(i)) => {
                    let f = &c.files[i];
                    human.file(
                        &f.path.display().to_string(),
                        &f.text,
                        &c.diagnostics[i],
                        &mut |d| out::eprint(d),
                    );
                }
                (Format::Human, Err(n)) => human.not_utf8(n, &mut |d| out::eprint(d)),
                (Format::Json, item) => {
                    let mut emit = |v: serde_json::Value| {
                        out::print(&format!("{}{v}", if json_items == 0 { "" } else { "," }));
                        json_items += 1;
                    };
                    match item {
                        Ok(i) => render::json_file(
                            &c.files[i].path.display().to_string(),
                            &c.files[i].text,
                            &c.diagnostics[i],
                            &mut emit,
                        ),
                        Err(n) => emit(render::not_utf8_json(n)),
                    }
                }
            }
        }
    }
    match format {
        Format::Json => out::print("]\n"),
        Format::Human => {
            if let Some(more) = human.more() {
                out::eprint(&format!(
                    "{more} not shown (--max-diagnostics 0 shows them all)\n"
                ));
            }
            out::eprint(&format!(
                "kwire check: {nfiles} file{}, {errors} error{}, {warnings} warning{}\n",
                if nfiles == 1 { "" } else { "s" },
                if errors == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" }
            ))
        }
    }
    u8::from(errors > 0)
}

/// One side of `kwire diff`: its files checked as one unit (a folder, as `kwire check` loads it,
/// with the folder-wide rules; a file alone), or the message of a usage error.
fn diff_side(p: &Path) -> Result<Unit, String> {
    if p.is_dir() {
        let (files, not_utf8) =
            source::read_dir_lenient(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if files.is_empty() && not_utf8.is_empty() {
            return Err(format!("no spec files (*.json) in {}", p.display()));
        }
        Ok(Unit {
            checked: kwire_codegen::check_files(files),
            not_utf8,
        })
    } else {
        match source::read_file_lenient(p.to_path_buf()) {
            Ok(Ok(f)) => Ok(Unit {
                checked: kwire_codegen::check_files_alone(vec![f]),
                not_utf8: Vec::new(),
            }),
            Ok(Err(n)) => Ok(Unit {
                checked: kwire_codegen::check_files_alone(Vec::new()),
                not_utf8: vec![n],
            }),
            Err(e) => Err(format!("{}: {e}", p.display())),
        }
    }
}

/// `kwire diff`: the exit status.
fn diff(old: &Path, new: &Path, format: Format) -> u8 {
    if old.is_dir() != new.is_dir() {
        out::eprint(&format!(
            "error: compare a file with a file or a folder with a folder ({} is a {}, {} a {})\n",
            old.display(),
            if old.is_dir() { "folder" } else { "file" },
            new.display(),
            if new.is_dir() { "folder" } else { "file" }
        ));
        return 2;
    }
    let (a, b) = match (diff_side(old), diff_side(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(m), _) | (_, Err(m)) => {
            out::eprint(&format!("error: {m}\n"));
            return 2;
        }
    };
    let color_err = std::io::stderr().is_terminal();
    let mut errors = 0;
    for u in [&a, &b] {
        let e = u.checked.error_count() + u.not_utf8.len();
        errors += e;
        if e > 0 {
            // As `kwire check` prints them.
            out::eprint(&render::render_all(&u.checked, color_err));
            for n in &u.not_utf8 {
                out::eprint(&render::render_not_utf8(n, color_err));
            }
        }
    }
    if errors > 0 {
        out::eprint(&format!(
            "kwire diff: {errors} error{} in the specs; nothing compared\n",
            if errors == 1 { "" } else { "s" }
        ));
        return 1;
    }
    let found = kwire_codegen::diff::diff(&a.checked, &b.checked);
    let breaking = found
        .iter()
        .filter(|f| f.impact == kwire_codegen::diff::Impact::Breaking)
        .count();
    match format {
        Format::Json => {
            out::print(&format!(
                "{}\n",
                kwire_codegen::diff::to_json(&found, &a.checked, &b.checked)
            ));
        }
        Format::Human => {
            let color = std::io::stdout().is_terminal();
            out::print(&kwire_codegen::diff::render_human(
                &found, &a.checked, &b.checked, color,
            ));
            out::print(&format!(
                "kwire diff: {} finding{}, {breaking} breaking, {} compatible\n",
                found.len(),
                if found.len() == 1 { "" } else { "s" },
                found.len() - breaking
            ));
        }
    }
    u8::from(breaking > 0)
}

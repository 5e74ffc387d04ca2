//! The Java harness shared by the tests that use Kafka's own Java code as an oracle
//! (java_oracle.rs: the generated message classes; records_java.rs: the record batch classes).
//!
//! `tests/java-oracle/` is a small Maven project against `org.apache.kafka:kafka-clients:4.4.0`
//! (fetched by Maven into `~/.m2`). [`classpath`] builds it once per test process under Cargo's
//! target directory (reusing a fresh earlier build), and [`Jvm`] runs one of its main classes
//! with length-prefixed frames over stdin and stdout. [`module_classpath`] builds any Maven module
//! under `tests/` the same way (kafka_oracle.rs: `tests/kafka-broker/`, the Kafka 4.4.0 broker).
//!
//! Without `java` or `mvn` on `PATH` when tests/build.rs ran, the tests are compiled as ignored
//! (`cfg(kwire_java)` off); [`java_ready`] covers the run-time side: under `CI=true` their absence
//! is a failure, otherwise the test says SKIPPED and returns.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

/// Whether `tool` is a file in one of the `PATH` directories.
pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// Whether the run is under `CI=true` (where a missing tool is a failure, not a skip).
pub fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Whether `java` and `mvn` are on `PATH`. When not: panics under `CI=true`, else prints
/// `SKIPPED: <what>: …` and returns false (the caller returns).
pub fn java_ready(what: &str) -> bool {
    let missing: Vec<&str> = ["java", "mvn"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let msg = format!("{what}: {} not on PATH", missing.join(" and "));
    if ci() {
        panic!("{msg}; CI=true makes this a failure");
    }
    eprintln!("SKIPPED: {msg}");
    false
}

/// The newest modification time of the files under `dir` (recursively).
fn newest(dir: &Path) -> std::time::SystemTime {
    let mut t = std::time::SystemTime::UNIX_EPOCH;
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let m = if p.is_dir() {
            newest(&p)
        } else {
            p.metadata().and_then(|m| m.modified()).unwrap()
        };
        t = t.max(m);
    }
    t
}

/// The run-time classpath of a previous build in `out`, when it is newer than every source file
/// (`pom.xml`, `src/` when the module has one), has the class file of every name in `classes`
/// (paths under `classes/`, e.g. `dev/kwire/oracle/Oracle.class`), and every jar it names is
/// still there.
fn previous_build(source: &Path, out: &Path, cp_file: &Path, classes: &[&str]) -> Option<String> {
    let built = cp_file.metadata().and_then(|m| m.modified()).ok()?;
    let class_dir = out.join("classes");
    let mut sources = source.join("pom.xml").metadata().ok()?.modified().ok()?;
    if source.join("src").is_dir() {
        sources = sources.max(newest(&source.join("src")));
    }
    if sources > built || !classes.iter().all(|c| class_dir.join(c).is_file()) {
        return None;
    }
    let deps = std::fs::read_to_string(cp_file).ok()?;
    let sep = if cfg!(windows) { ';' } else { ':' };
    if !deps.trim().split(sep).all(|jar| Path::new(jar).is_file()) {
        return None;
    }
    Some(if class_dir.is_dir() {
        format!("{}{sep}{}", class_dir.display(), deps.trim())
    } else {
        deps.trim().to_string()
    })
}

/// Builds the Maven module `source` into `out` and returns the run-time classpath (its classes,
/// if any, then its dependencies). Reuses a fresh previous build (see [`previous_build`] for
/// `classes`); else tries Maven offline first (everything already in `~/.m2`), then online.
fn build_module(source: &Path, out: &Path, classes: &[&str]) -> Result<String, String> {
    let cp_file = out.join("classpath.txt");
    if let Some(cp) = previous_build(source, out, &cp_file, classes) {
        return Ok(cp);
    }
    // The dependency plugin leaves an unchanged file alone (and its time with it).
    let _ = std::fs::remove_file(&cp_file);
    let mut last = String::new();
    for offline in [true, false] {
        let mut cmd = Command::new("mvn");
        cmd.arg("-q").arg("-B");
        if offline {
            cmd.arg("-o");
        }
        cmd.arg("-f")
            .arg(source.join("pom.xml"))
            .arg(format!("-Dkwire.build.dir={}", out.display()))
            .arg(format!("-Dmdep.outputFile={}", cp_file.display()))
            .args(["compile", "dependency:build-classpath"]);
        let o = cmd.output().map_err(|e| format!("running mvn: {e}"))?;
        if o.status.success() {
            return previous_build(source, out, &cp_file, classes).ok_or_else(|| {
                format!(
                    "mvn succeeded but left no usable build in {}",
                    out.display()
                )
            });
        }
        last = format!(
            "mvn{} failed ({}):\n{}{}",
            if offline { " -o" } else { "" },
            o.status,
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Err(last)
}

/// The run-time classpath of the Maven module `tests/<module>`, built into
/// `$CARGO_TARGET_TMPDIR/<module>`; `classes` are the class files a usable build must hold (see
/// [`previous_build`]). Call it once per module and process (through a `OnceLock`, as
/// [`classpath`] does): two concurrent Maven runs into one directory would collide.
///
/// # Errors
/// The Maven failure (e.g. Maven Central out of reach with an empty `~/.m2`).
pub fn module_classpath(module: &str, classes: &[&str]) -> Result<String, String> {
    let source = kwire_tests::workspace_root().join("tests").join(module);
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(module);
    build_module(&source, &out, classes)
}

/// The run-time classpath of tests/java-oracle, built once per test process (the tests of this
/// binary run in parallel; one Maven run serves them all).
///
/// # Panics
/// When the Maven build fails (e.g. Maven Central out of reach with an empty `~/.m2`).
pub fn classpath() -> String {
    static CLASSPATH: OnceLock<Result<String, String>> = OnceLock::new();
    CLASSPATH
        .get_or_init(|| {
            module_classpath(
                "java-oracle",
                &[
                    "dev/kwire/oracle/Oracle.class",
                    "dev/kwire/oracle/RecordsOracle.class",
                    "dev/kwire/oracle/ProducerRoundTrip.class",
                ],
            )
        })
        .clone()
        .unwrap_or_else(|e| {
            panic!("java oracle: building tests/java-oracle with Maven failed: {e}")
        })
}

/// One JVM running a main class of tests/java-oracle, with its stdin and stdout as a frame
/// channel (big-endian; a blob is an int32 length and its bytes, a string a blob of UTF-8).
/// Java's stderr goes to the test's.
pub struct Jvm {
    child: Child,
    to: BufWriter<ChildStdin>,
    from: BufReader<ChildStdout>,
}

impl Jvm {
    /// Starts `java -cp <classpath> <main>`.
    pub fn start(classpath: &str, main: &str) -> Jvm {
        let mut child = Command::new("java")
            .args(["-Xshare:auto", "-XX:+UseSerialGC", "-cp", classpath, main])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting java");
        let to = BufWriter::new(child.stdin.take().unwrap());
        let from = BufReader::new(child.stdout.take().unwrap());
        Jvm { child, to, from }
    }

    /// Writes raw bytes (buffered until [`Jvm::flush`]).
    pub fn put(&mut self, b: &[u8]) {
        self.to
            .write_all(b)
            .expect("writing to the Java oracle (did it crash? see stderr)");
    }

    /// Writes a blob: int32 length, bytes.
    pub fn put_blob(&mut self, b: &[u8]) {
        self.put(&(b.len() as i32).to_be_bytes());
        self.put(b);
    }

    /// Writes a string as a blob of UTF-8.
    pub fn put_str(&mut self, s: &str) {
        self.put_blob(s.as_bytes());
    }

    /// Sends what was written.
    pub fn flush(&mut self) {
        self.to
            .flush()
            .expect("writing to the Java oracle (did it crash? see stderr)");
    }

    /// Reads exactly `N` bytes.
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0; N];
        self.from
            .read_exact(&mut b)
            .expect("reading from the Java oracle (did it crash? see stderr)");
        b
    }

    /// Reads a byte.
    pub fn u8(&mut self) -> u8 {
        self.array::<1>()[0]
    }

    /// Reads an int16.
    pub fn i16(&mut self) -> i16 {
        i16::from_be_bytes(self.array())
    }

    /// Reads a blob.
    pub fn blob(&mut self) -> Vec<u8> {
        let n = i32::from_be_bytes(self.array());
        let mut b = vec![0; usize::try_from(n).expect("a blob length from Java")];
        self.from
            .read_exact(&mut b)
            .expect("reading from the Java oracle (did it crash? see stderr)");
        b
    }

    /// Reads a string.
    pub fn string(&mut self) -> String {
        String::from_utf8(self.blob()).expect("UTF-8 from Java")
    }

    /// Closes Java's stdin (which ends the program) and waits for it.
    ///
    /// # Panics
    /// When Java exits unsuccessfully.
    pub fn finish(self) {
        let Jvm {
            mut child,
            to,
            from,
        } = self;
        drop(to.into_inner().expect("flushing to the Java oracle"));
        drop(from);
        let status = child.wait().expect("waiting for the Java oracle");
        assert!(status.success(), "the Java oracle exited with {status}");
    }
}

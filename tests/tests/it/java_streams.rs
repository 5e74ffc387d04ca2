//! Kafka Streams 4.4.0 itself (`group.protocol=streams`, KIP-1071) against kwire-server, and the same
//! application against a real Kafka 4.4.0 broker (the oracle broker of [`crate::kafka_oracle`], started
//! once per test binary), with the same output.
//!
//! The application is `dev.kwire.streams.WordCountInstance` in `tests/streams-app/` (built once per run
//! with [`crate::java::module_classpath`]): a stateful word count, input sentences → words → `groupBy`
//! (the repartition topic `<app>-words-repartition`) → `count` (the store `counts`, changelog
//! `<app>-counts-changelog`) → output, one stream thread, `application.server` set, at-least-once with a
//! 100 ms commit interval. One JVM per instance (three at most at once), each driven over stdin and
//! reporting on stdout (its class doc has the line protocol); its log (slf4j-simple, WARN and up) goes to
//! a file under `$CARGO_TARGET_TMPDIR/java-streams/`.
//!
//! The script, on each server: instance `a` creates the input and output topics (4 partitions) and
//! starts alone; then `b` and `c` join (scale 1 → 3); `c` closes (3 → 2); `b`'s process is destroyed and
//! `a` takes its tasks over once the session timeout (3 s) expires `b`. A batch of sentences is produced
//! between the steps, and every step waits for the output to reach the counts so far. Checked:
//! - the last count of every word in the output equals the count of the words produced (exact:
//!   the kill happens only once the group's committed offsets reached the end of the input and
//!   repartition topics, so at-least-once reprocesses nothing);
//! - after every step, the instances' own reports (`metadataForLocalThreads`) and the coordinator's
//!   StreamsGroupDescribe (v0, raw from the Rust side) agree: every task active on exactly one live
//!   instance, the tasks spread evenly, every stateful task (subtopology 1) with its one standby on
//!   another instance than its active (the group's `num.standby.replicas` = 1: kwire-server's
//!   `streams_num_standby_replicas`, the broker's `group.streams.num.standby.replicas`); with one
//!   instance no standby;
//! - tasks move: `a` gives tasks away when `b` and `c` join, takes `c`'s and then `b`'s;
//! - no task active twice: the instances' task reports replayed in time order (`System.nanoTime()`,
//!   one monotonic clock for all JVMs) never show a task active on two instances at once;
//! - interactive-query metadata: every instance's `metadataForAllStreamsClients()` lists every live
//!   instance's endpoint with the partitions of its active tasks (input for subtopology 0, repartition
//!   for 1) and of its standby tasks;
//! - the internal topics exist with 4 partitions, created by the coordinator (on kwire-server, its log
//!   says "as an internal topic of streams group"; the Streams clients send no CreateTopics);
//! - both servers give the same final counts.
//!
//! kwire-server's log (INFO, captured from its runtime's threads) is scanned for the requests it
//! refused and the error codes it answered; they are printed (`kwire-server refused: …`), as are the
//! WARN/ERROR lines of the Streams clients, so a run shows what Kafka Streams sent that kwire-server did
//! not expect.
//!
//! # What Kafka Streams sent that kwire-server did not expect (Stage 12)
//!
//! Run against kwire-server as it was on main before Stage 12 (3d62944):
//! - ApiVersions v5 (KIP-1242: ClusterId and NodeId) first on every connection of every client:
//!   kwire served 0-4 and answered UNSUPPORTED_VERSION, the clients retried at v4 (KIP-511). v5 is
//!   served since (ClusterId/NodeId checked as Kafka 4.4 does), so no refusal is excused any more.
//! - StreamsGroupHeartbeat only at v0 (kwire advertised v0): the 4.4 client goes to v1 and sends
//!   StreamsGroupTopologyDescriptionUpdate (API 93) v0 once the v1 surface is served (`sproto`).
//! - DeleteRecords (21) was not advertised, so Streams' purge of the repartition topic (its Admin's
//!   deleteRecords up to the committed offsets, every `repartition.purge.interval.ms`) failed in the
//!   client without a request or a WARN line; served at v2 since `admin`.
//! - Kafka's Admin (the test's own) uses DescribeCluster v2 and DescribeTopicPartitions v0 where
//!   advertised, Metadata otherwise.
//!
//! Nothing else was refused, and no request was answered with an error code other than the first
//! heartbeat's status 3 (MISSING_INTERNAL_TOPICS, as Kafka answers while it creates them).
//!
//! `KWIRE_STREAMS_ONLY=kafka` (or `kwire`) runs the script against that server only (for debugging).
//!
//! Gated as the other Java tests: without `java` or `mvn` on `PATH` when tests/build.rs ran, compiled
//! as ignored with the reason; under `CI=true` their absence is a failure.

use crate::java::{java_ready, module_classpath};
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_protocol::generated::{ApiRequest, StreamsGroupDescribeRequest};
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Partitions of the input and output topics (and so of the repartition and changelog topics):
/// tasks 0_0..0_3 (stateless) and 1_0..1_3 (stateful).
const PARTITIONS: i32 = 4;
/// How long any one condition may take to hold (a session timeout of 3 s, JVMs starting on 2 cores).
const WAIT: Duration = Duration::from_secs(60);
/// The streams-group session timeout (ms) of both servers: the oracle broker's
/// `group.streams.session.timeout.ms` (kafka_oracle/broker.rs), mirrored in kwire-server here.
const SESSION_TIMEOUT_MS: i32 = crate::kafka_oracle::GROUP_STREAMS_SESSION_TIMEOUT_MS;
/// The streams-group heartbeat interval (ms) of both servers, likewise.
const HEARTBEAT_INTERVAL_MS: i32 = crate::kafka_oracle::GROUP_STREAMS_HEARTBEAT_INTERVAL_MS;

/// A task id as Streams writes it: `<subtopology>_<partition>`.
type Task = String;

fn all_tasks() -> BTreeSet<Task> {
    (0..2)
        .flat_map(|s| (0..PARTITIONS).map(move |p| format!("{s}_{p}")))
        .collect()
}

fn parse_set(s: &str) -> BTreeSet<String> {
    if s == "-" {
        BTreeSet::new()
    } else {
        s.split(',').map(str::to_string).collect()
    }
}

/// What the instances printed, folded.
#[derive(Debug, Default)]
struct Seen {
    state: BTreeMap<String, String>,
    /// The last (active, standby) tasks of each instance.
    tasks: BTreeMap<String, (BTreeSet<Task>, BTreeSet<Task>)>,
    /// (nanos, instance, active tasks) of every report, and of the end of an instance
    /// (PENDING_SHUTDOWN, or the `now` after its process was destroyed: an empty set).
    ledger: Vec<(i64, String, BTreeSet<Task>)>,
    /// The last count of every word in the output.
    out: BTreeMap<String, i64>,
    produced: u64,
    lag: Option<i64>,
    now: Option<i64>,
    meta: BTreeMap<String, String>,
    created: bool,
    closed: BTreeSet<String>,
    errors: Vec<String>,
}

impl Seen {
    fn apply(&mut self, line: &str) {
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "STATE" if w.len() >= 4 => {
                self.state.insert(w[1].into(), w[3].into());
                if w[3] == "PENDING_SHUTDOWN" {
                    self.ledger
                        .push((w[2].parse().unwrap_or(0), w[1].into(), BTreeSet::new()));
                }
            }
            "TASKS" if w.len() >= 5 => {
                let (active, standby) = (parse_set(w[3]), parse_set(w[4]));
                self.ledger
                    .push((w[2].parse().unwrap_or(0), w[1].into(), active.clone()));
                self.tasks.insert(w[1].into(), (active, standby));
            }
            "OUT" if w.len() >= 3 => {
                self.out.insert(w[1].into(), w[2].parse().unwrap_or(-1));
            }
            "PRODUCED" => self.produced = w[1].parse().unwrap_or(0),
            "LAG" => self.lag = w[1].parse().ok(),
            "NOW" => self.now = w[1].parse().ok(),
            "META" if w.len() >= 3 => {
                self.meta.insert(w[1].into(), w[2].into());
            }
            "CREATED" => self.created = true,
            "CLOSED" => {
                self.closed.insert(w[1].into());
            }
            "ERROR" => self.errors.push(line.to_string()),
            _ => {}
        }
    }

    /// Replays the ledger in time order: every moment a task is reported active on an instance while
    /// another instance's last report still has it active.
    fn overlaps(&self) -> Vec<String> {
        let mut events = self.ledger.clone();
        events.sort_by_key(|e| e.0);
        let mut owned: BTreeMap<&str, &BTreeSet<Task>> = BTreeMap::new();
        let mut out = Vec::new();
        for (nanos, who, active) in &events {
            for t in active.iter() {
                for (other, theirs) in &owned {
                    if *other != who.as_str() && theirs.contains(t) {
                        out.push(format!(
                            "task {t} active on {who} at {nanos} while {other} has it"
                        ));
                    }
                }
            }
            owned.insert(who.as_str(), active);
        }
        out
    }
}

/// One JVM running one instance.
struct Instance {
    name: String,
    port: u16,
    child: Child,
    to: ChildStdin,
    log: PathBuf,
}

impl Instance {
    fn send(&mut self, cmd: &str) {
        writeln!(self.to, "{cmd}")
            .and_then(|()| self.to.flush())
            .unwrap_or_else(|e| {
                panic!(
                    "writing to instance {} ({e}); its log: {}",
                    self.name,
                    self.log.display()
                )
            });
    }
}

/// The instances of one run and their folded output.
struct Run {
    classpath: String,
    bootstrap: SocketAddr,
    app: String,
    dir: PathBuf,
    instances: BTreeMap<String, Instance>,
    tx: Sender<String>,
    lines: Receiver<String>,
    seen: Seen,
    /// Every sentence produced, for the expected counts.
    expected: BTreeMap<String, i64>,
}

/// A free TCP port for an `application.server` endpoint (nobody listens there: the endpoint is only
/// metadata).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding 127.0.0.1:0")
        .port()
}

impl Run {
    fn new(classpath: &str, bootstrap: SocketAddr, app: &str) -> Run {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("java-streams")
            .join(app);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("creating the run's directory");
        let (tx, lines) = std::sync::mpsc::channel();
        Run {
            classpath: classpath.to_string(),
            bootstrap,
            app: app.to_string(),
            dir,
            instances: BTreeMap::new(),
            tx,
            lines,
            seen: Seen::default(),
            expected: BTreeMap::new(),
        }
    }

    fn input(&self) -> String {
        format!("{}-in", self.app)
    }

    fn output(&self) -> String {
        format!("{}-out", self.app)
    }

    /// Starts the JVM of instance `name` (not yet its KafkaStreams: `start`), with an
    /// `application.server` endpoint.
    fn spawn(&mut self, name: &str) {
        self.spawn_on(name, free_port());
    }

    /// [`Run::spawn`] with the endpoint port `port` (0: no `application.server`).
    fn spawn_on(&mut self, name: &str, port: u16) {
        let log = self.dir.join(format!("{name}.log"));
        let state_dir = self.dir.join(format!("state-{name}"));
        let mut child = Command::new("java")
            .args([
                "-Xshare:auto",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp",
                &self.classpath,
                "dev.kwire.streams.WordCountInstance",
            ])
            .arg(self.bootstrap.to_string())
            .arg(name)
            .arg(port.to_string())
            .arg(&state_dir)
            .arg(&self.app)
            .arg(self.input())
            .arg(self.output())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("creating the instance's log"))
            .spawn()
            .expect("starting java");
        let to = child.stdin.take().expect("piped stdin");
        let out = child.stdout.take().expect("piped stdout");
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        self.instances.insert(
            name.to_string(),
            Instance {
                name: name.to_string(),
                port,
                child,
                to,
                log,
            },
        );
    }

    fn send(&mut self, name: &str, cmd: &str) {
        self.instances
            .get_mut(name)
            .unwrap_or_else(|| panic!("no instance {name}"))
            .send(cmd);
    }

    /// Folds output lines until `pred` holds; panics after [`WAIT`] or on an ERROR line. `again` is
    /// called after each line that did not make `pred` hold (to ask again).
    fn wait_with(
        &mut self,
        what: &str,
        mut pred: impl FnMut(&Seen) -> bool,
        mut again: impl FnMut(&mut Run, &str),
    ) {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                self.seen.errors.is_empty(),
                "{}: instance errors: {:?}",
                self.app,
                self.seen.errors
            );
            if pred(&self.seen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: waited {WAIT:?} for {what}: states {:?}, tasks {:?}, meta {:?}, out {:?}, lag {:?} (logs in {})",
                self.app,
                self.seen.state,
                self.seen.tasks,
                self.seen.meta,
                self.seen.out,
                self.seen.lag,
                self.dir.display()
            );
            match self.lines.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    self.seen.apply(&line);
                    again(self, &line);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => unreachable!("the run holds a sender"),
            }
        }
    }

    fn wait(&mut self, what: &str, pred: impl FnMut(&Seen) -> bool) {
        self.wait_with(what, pred, |_, _| {});
    }

    /// Produces `n` sentences of batch `batch` through instance `a`, and waits for the output to
    /// reach the counts of everything produced so far.
    fn produce(&mut self, batch: usize, n: usize) {
        const WORDS: [&str; 12] = [
            "kafka", "streams", "kwire", "wire", "protocol", "group", "task", "standby", "topic",
            "store", "count", "word",
        ];
        let mut sent = 0;
        for i in 0..n {
            let k = batch * 1000 + i;
            let sentence: Vec<&str> = (0..1 + k % 5)
                .map(|j| WORDS[(k * 7 + j * 5 + batch) % WORDS.len()])
                .collect();
            for w in &sentence {
                *self.expected.entry((*w).to_string()).or_default() += 1;
            }
            self.send("a", &format!("produce {}", sentence.join(" ")));
            sent += 1;
        }
        self.send("a", "flush");
        let want = self.seen.produced + sent;
        self.wait(&format!("batch {batch} produced"), |s| s.produced == want);
        let expected = self.expected.clone();
        self.wait(&format!("the output of batch {batch}"), |s| {
            s.out == expected
        });
    }

    /// Waits until the group's committed offsets reach the end of the input and repartition topics.
    fn committed(&mut self) {
        self.seen.lag = None;
        self.send("a", "committed");
        self.wait_with(
            "the committed offsets at the end of the input and repartition topics",
            |s| s.lag == Some(0),
            |run, line| {
                if line.starts_with("LAG ") && run.seen.lag != Some(0) {
                    run.seen.lag = None;
                    run.send("a", "committed");
                }
            },
        );
    }

    /// Waits until exactly `live` report RUNNING with every task active once, spread evenly, and every
    /// stateful task's standby on another instance (none with one instance). Returns the active tasks
    /// of each.
    fn settled(&mut self, live: &[&str]) -> BTreeMap<String, BTreeSet<Task>> {
        let live: BTreeSet<String> = live.iter().map(|s| s.to_string()).collect();
        let ok = |s: &Seen| -> bool {
            if !live
                .iter()
                .all(|n| s.state.get(n).map(String::as_str) == Some("RUNNING"))
            {
                return false;
            }
            let mut active = BTreeMap::new();
            let mut standby: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
            for n in &live {
                let Some((a, sb)) = s.tasks.get(n) else {
                    return false;
                };
                for t in a {
                    if active.insert(t, n).is_some() {
                        return false;
                    }
                }
                for t in sb {
                    standby.entry(t).or_default().push(n);
                }
            }
            let sizes: Vec<usize> = live.iter().map(|n| s.tasks[n].0.len()).collect();
            let balanced = sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1;
            let total = all_tasks();
            let all_once = active.len() == total.len() && active.keys().all(|t| total.contains(*t));
            if !all_once {
                return false;
            }
            let standbys_ok = if live.len() == 1 {
                standby.is_empty()
            } else {
                total.iter().filter(|t| t.starts_with("1_")).all(|t| {
                    standby
                        .get(t)
                        .is_some_and(|holders| holders.len() == 1 && holders[0] != active[t])
                }) && standby.keys().all(|t| t.starts_with("1_"))
            };
            balanced && standbys_ok
        };
        self.wait(
            &format!("{live:?} running with every task active once and the standbys placed"),
            ok,
        );
        live.iter()
            .map(|n| (n.clone(), self.seen.tasks[n].0.clone()))
            .collect()
    }

    /// Every live instance's `metadataForAllStreamsClients()`: each lists every live endpoint with the
    /// partitions of its active and standby tasks.
    fn metadata(&mut self, live: &[&str]) {
        let part = |t: &str, app: &str, input: &str| -> String {
            let (s, p) = t.split_once('_').expect("a task id");
            if s == "0" {
                format!("{input}:{p}")
            } else {
                format!("{app}-words-repartition:{p}")
            }
        };
        let mut want = Vec::new();
        for n in live {
            let (a, sb) = &self.seen.tasks[*n];
            let fmt = |ts: &BTreeSet<Task>| -> String {
                let mut ps: Vec<String> = ts
                    .iter()
                    .map(|t| part(t, &self.app, &self.input()))
                    .collect();
                ps.sort();
                if ps.is_empty() {
                    "-".into()
                } else {
                    ps.join(",")
                }
            };
            want.push(format!(
                "127.0.0.1:{}|{}|{}",
                self.instances[*n].port,
                fmt(a),
                fmt(sb)
            ));
        }
        want.sort();
        let want = want.join(";");
        self.seen.meta.clear();
        for n in live {
            self.send(n, "metadata");
        }
        let live_names: Vec<String> = live.iter().map(|s| s.to_string()).collect();
        let w = want.clone();
        self.wait_with(
            &format!("every instance's metadataForAllStreamsClients() = {want}"),
            |s| live_names.iter().all(|n| s.meta.get(n) == Some(&w)),
            |run, line| {
                if let Some(rest) = line.strip_prefix("META ") {
                    let (n, got) = rest.split_once(' ').unwrap_or((rest, ""));
                    if got != want {
                        let n = n.to_string();
                        run.send(&n, "metadata");
                    }
                }
            },
        );
    }

    fn close(&mut self, name: &str) {
        self.send(name, "close");
        let n = name.to_string();
        self.wait(&format!("{name} closed"), |s| s.closed.contains(&n));
        let mut inst = self.instances.remove(name).expect("the instance");
        let status = inst.child.wait().expect("waiting for java");
        assert!(
            status.success(),
            "instance {name} exited with {status} (log {})",
            inst.log.display()
        );
    }

    /// Destroys the process of `name` (SIGKILL) and ends its tasks in the ledger at `a`'s clock
    /// right after.
    fn kill(&mut self, name: &str) {
        let mut inst = self.instances.remove(name).expect("the instance");
        inst.child.kill().expect("killing java");
        let _ = inst.child.wait();
        self.seen.now = None;
        self.send("a", "now");
        self.wait("a's clock", |s| s.now.is_some());
        let now = self.seen.now.unwrap();
        self.seen
            .ledger
            .push((now, name.to_string(), BTreeSet::new()));
        self.seen.tasks.remove(name);
        self.seen.state.insert(name.to_string(), "KILLED".into());
    }

    /// Reads the instances' logs: their WARN and ERROR lines (without the stack traces).
    fn client_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "log") {
                let name = p.file_stem().unwrap().to_string_lossy().to_string();
                for l in std::fs::read_to_string(&p).unwrap_or_default().lines() {
                    if l.contains(" WARN ") || l.contains(" ERROR ") {
                        out.push(format!("{name}: {l}"));
                    }
                }
            }
        }
        out
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        for inst in self.instances.values_mut() {
            let _ = inst.child.kill();
            let _ = inst.child.wait();
        }
    }
}

/// A Tokio runtime for the in-process kwire-server whose threads log into `sink` (INFO, and DEBUG for
/// `kwire_server::requests`: one line per request, with its API and version).
fn logging_runtime(sink: Arc<Mutex<Vec<u8>>>) -> tokio::runtime::Runtime {
    #[derive(Clone)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let dispatch = tracing::Dispatch::new(
        tracing_subscriber::fmt()
            .with_ansi(false)
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "info,kwire_server::requests=debug",
            ))
            .with_writer(move || Sink(sink.clone()))
            .finish(),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_start(move || {
            // The guard is kept for the thread's life: every line of this runtime's threads goes to the sink.
            std::mem::forget(tracing::dispatcher::set_default(&dispatch));
        })
        .build()
        .expect("tokio runtime");
    // Other tests of this binary run kwire-servers at the same time, on threads with no
    // dispatcher. tracing-core computes a callsite's interest once, when it is first reached,
    // from the registered dispatchers, except when exactly one is registered: then it asks the
    // reaching thread's default. A kwire-server callsite first reached by another test's server
    // would be cached as "never" and this sink would miss its lines (the full run found it
    // empty). A second registered dispatcher makes tracing ask every registered one; the
    // rebuild covers the callsites reached before this point.
    static SECOND: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    SECOND.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
    tracing::callsite::rebuild_interest_cache();
    rt
}

/// A request to `addr` on a fresh connection, and its typed answer.
fn call<R: ApiRequest>(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    req: &R,
    v: i16,
) -> R::Response {
    rt.block_on(async {
        let mut c = Client::connect(addr).await.expect("connecting");
        c.request(req, v).await.expect("an answer")
    })
}

/// StreamsGroupDescribe v0 of `group`: for each member, its (process id, endpoint port, active tasks,
/// standby tasks).
fn describe(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    group: &str,
) -> Vec<(String, u16, BTreeSet<Task>, BTreeSet<Task>)> {
    let req = StreamsGroupDescribeRequest {
        group_ids: vec![group.to_string().into()],
        ..Default::default()
    };
    let r = call(rt, addr, &req, 0);
    let g = &r.groups[0];
    assert_eq!(
        g.error_code, 0,
        "StreamsGroupDescribe {group}: {:?}",
        g.error_message
    );
    let tasks = |ids: &[kwire_protocol::generated::streams_group_describe_response::TaskIds]| -> BTreeSet<Task> {
        ids.iter().flat_map(|t| t.partitions.iter().map(move |p| format!("{}_{p}", &*t.subtopology_id))).collect()
    };
    g.members
        .iter()
        .map(|m| {
            (
                m.process_id.to_string(),
                m.user_endpoint.as_ref().map_or(0, |e| e.port),
                tasks(&m.assignment.active_tasks),
                tasks(&m.assignment.standby_tasks),
            )
        })
        .collect()
}

/// Checks the coordinator's view against the instances' after a step: one member per live instance
/// (by endpoint port), each with the tasks its instance reports. Between two asks it folds the
/// instances' output for up to a heartbeat interval (the coordinator's answer lags the reports by a
/// heartbeat at most).
fn check_describe(rt: &tokio::runtime::Runtime, run: &mut Run, live: &[&str]) {
    let deadline = Instant::now() + WAIT;
    loop {
        let want: BTreeSet<(u16, BTreeSet<Task>, BTreeSet<Task>)> = live
            .iter()
            .map(|n| {
                (
                    run.instances[*n].port,
                    run.seen.tasks[*n].0.clone(),
                    run.seen.tasks[*n].1.clone(),
                )
            })
            .collect();
        let got: BTreeSet<(u16, BTreeSet<Task>, BTreeSet<Task>)> =
            describe(rt, run.bootstrap, &run.app)
                .into_iter()
                .map(|(_, port, a, s)| (port, a, s))
                .collect();
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{}: StreamsGroupDescribe {got:?}, the instances report {want:?}",
            run.app
        );
        if let Ok(line) = run
            .lines
            .recv_timeout(Duration::from_millis(HEARTBEAT_INTERVAL_MS as u64))
        {
            run.seen.apply(&line);
        }
    }
}

/// The partition count of each of `topics` (Metadata v12), absent ones left out.
fn partitions(
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    topics: &[String],
) -> BTreeMap<String, usize> {
    let req = MetadataRequest {
        topics: Some(
            topics
                .iter()
                .map(|t| MetadataRequestTopic {
                    name: Some(t.clone().into()),
                    ..Default::default()
                })
                .collect(),
        ),
        allow_auto_topic_creation: false,
        ..Default::default()
    };
    let m = call(rt, addr, &req, 12);
    m.topics
        .iter()
        .filter(|t| t.error_code == 0)
        .map(|t| {
            (
                t.name.as_deref().unwrap_or("").to_string(),
                t.partitions.len(),
            )
        })
        .collect()
}

/// The whole script against the server at `addr`; returns the final counts.
///
/// `boot_without_endpoint`: before `a`, an instance without `application.server` joins the new group
/// (the coordinator creates the internal topics for it) and closes. Kafka 4.4.0 needs it: the first
/// heartbeat of a member with a user endpoint in a group whose topology is not configured yet (its
/// internal topics missing) fails with UNKNOWN_SERVER_ERROR (`EndpointToPartitionsManager.endpointToPartitions`
/// calls `Optional.get()` on the configured topology's absent subtopologies: NoSuchElementException in
/// the broker's log), which kills the stream thread. kwire-server needs no such step.
fn script(
    classpath: &str,
    rt: &tokio::runtime::Runtime,
    addr: SocketAddr,
    app: &str,
    boot_without_endpoint: bool,
) -> BTreeMap<String, i64> {
    let started = Instant::now();
    let mut run = Run::new(classpath, addr, app);
    run.spawn("a");
    run.send("a", &format!("create {PARTITIONS}"));
    run.wait("the input and output topics created", |s| s.created);
    if boot_without_endpoint {
        run.spawn_on("boot", 0);
        run.send("boot", "start");
        run.settled(&["boot"]);
        run.close("boot");
        println!(
            "{app}: the internal topics created for an instance without endpoint after {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    run.send("a", "start");
    run.send("a", "consume");
    let one = run.settled(&["a"]);
    assert_eq!(one["a"], all_tasks());
    check_describe(rt, &mut run, &["a"]);
    run.produce(1, 60);
    println!(
        "{app}: 1 instance running, batch 1 counted after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // 1 → 3.
    run.spawn("b");
    run.spawn("c");
    run.send("b", "start");
    run.send("c", "start");
    let three = run.settled(&["a", "b", "c"]);
    assert!(
        three["a"].len() < one["a"].len(),
        "a gave tasks away: {three:?}"
    );
    check_describe(rt, &mut run, &["a", "b", "c"]);
    run.metadata(&["a", "b", "c"]);
    run.produce(2, 60);
    println!(
        "{app}: 3 instances {three:?}, batch 2 counted after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // 3 → 2: c leaves.
    run.close("c");
    let two = run.settled(&["a", "b"]);
    assert!(three["c"]
        .iter()
        .all(|t| two["a"].contains(t) || two["b"].contains(t)));
    check_describe(rt, &mut run, &["a", "b"]);
    run.metadata(&["a", "b"]);
    run.produce(3, 60);
    run.committed();
    println!(
        "{app}: c closed, 2 instances {two:?}, batch 3 counted after {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // b's process destroyed: a takes its tasks once the session timeout expires b.
    let killed = Instant::now();
    run.kill("b");
    let last = run.settled(&["a"]);
    assert_eq!(last["a"], all_tasks());
    println!(
        "{app}: b killed, its tasks on a {:.1} s later (session timeout {SESSION_TIMEOUT_MS} ms)",
        killed.elapsed().as_secs_f64()
    );
    check_describe(rt, &mut run, &["a"]);
    run.metadata(&["a"]);
    run.produce(4, 60);

    let overlaps = run.seen.overlaps();
    assert!(
        overlaps.is_empty(),
        "{app}: a task active twice: {overlaps:?}"
    );
    let internal = [
        format!("{app}-words-repartition"),
        format!("{app}-counts-changelog"),
    ];
    let got = partitions(rt, addr, &internal);
    assert_eq!(
        got,
        internal
            .iter()
            .map(|t| (t.clone(), PARTITIONS as usize))
            .collect::<BTreeMap<_, _>>(),
        "{app}: the internal topics"
    );
    let counts = run.seen.out.clone();
    assert_eq!(counts, run.expected, "{app}: the final counts");
    for w in run.client_warnings() {
        println!("{app}: client log: {w}");
    }
    run.close("a");
    println!("{app}: done in {:.1} s", started.elapsed().as_secs_f64());
    counts
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "java or mvn not on PATH when tests/build.rs ran"
)]
fn kafka_streams_word_count_on_kwire_and_kafka() {
    if !java_ready("Kafka Streams") {
        return;
    }
    // The broker starts (a JVM, ~20 s) while the kwire-server run goes on.
    let broker = std::thread::spawn(|| crate::kafka_oracle::broker::broker().map(|b| b.addr));
    let classpath = module_classpath(
        "streams-app",
        &["dev/kwire/streams/WordCountInstance.class"],
    )
    .unwrap_or_else(|e| panic!("building tests/streams-app with Maven failed: {e}"));

    let log = Arc::new(Mutex::new(Vec::new()));
    let rt = logging_runtime(log.clone());
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
    config.heartbeat_interval_ms = Some(HEARTBEAT_INTERVAL_MS);
    config.session_timeout_ms = Some(SESSION_TIMEOUT_MS);
    config.streams_initial_rebalance_delay_ms =
        Some(crate::kafka_oracle::GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS);
    config.streams_num_standby_replicas =
        Some(crate::kafka_oracle::GROUP_STREAMS_NUM_STANDBY_REPLICAS);
    config.group_initial_rebalance_delay_ms = 0;
    let server = rt
        .block_on(Server::bind(config))
        .expect("kwire-server binds");
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    rt.spawn(server.run(async {
        let _ = stopped.await;
    }));

    let only = std::env::var("KWIRE_STREAMS_ONLY").unwrap_or_default();
    let app = "wc-kwire";
    if only == "kafka" {
        let kafka = broker
            .join()
            .expect("the broker thread")
            .unwrap_or_else(|e| panic!("the Kafka 4.4.0 broker: {e}"));
        script(
            &classpath,
            &rt,
            kafka,
            &format!("wc-kafka-{}", std::process::id()),
            true,
        );
        return;
    }
    let on_kwire = script(&classpath, &rt, addr, app, false);
    let _ = stop.send(());
    let text = String::from_utf8_lossy(&log.lock().unwrap()).to_string();
    // The APIs and versions the Java clients used, by client kind (the client id without the app and
    // instance: StreamThread-1-consumer, admin, …).
    let field = |l: &str, name: &str| -> Option<String> {
        let at = l.find(&format!(" {name}="))? + name.len() + 2;
        let rest = &l[at..];
        let v = if let Some(q) = rest.strip_prefix('"') {
            q.split('"').next()?
        } else {
            rest.split(' ').next()?
        };
        Some(v.to_string())
    };
    let mut used: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for l in text
        .lines()
        .filter(|l| l.contains(" DEBUG ") && l.contains(" request"))
    {
        let (Some(api), Some(v), Some(client)) =
            (field(l, "api"), field(l, "version"), field(l, "client_id"))
        else {
            continue;
        };
        let kind = client.split('-').skip(3).collect::<Vec<_>>().join("-");
        let kind = if kind.is_empty() {
            client.clone()
        } else {
            kind
        };
        used.entry((api, v)).or_default().insert(kind);
    }
    for ((api, v), clients) in &used {
        println!("kwire-server served: {api} v{v} to {clients:?}");
    }
    let unexpected: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("refused ") || l.contains(" WARN ") || l.contains(" ERROR "))
        .collect();
    for l in &unexpected {
        println!("kwire-server refused: {l}");
    }
    let internal: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("as an internal topic of streams group"))
        .collect();
    for t in [
        format!("{app}-words-repartition"),
        format!("{app}-counts-changelog"),
    ] {
        assert!(
            internal
                .iter()
                .any(|l| l.contains(&format!("created topic {t} "))),
            "{t} not created by the coordinator: {internal:?}"
        );
    }
    let create_topics: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("for CreateTopics"))
        .collect();
    assert!(
        create_topics
            .iter()
            .all(|l| l.contains(&format!("{app}-in ")) || l.contains(&format!("{app}-out "))),
        "topics created by CreateTopics other than the input and output: {create_topics:?}"
    );

    assert!(
        unexpected.is_empty() || only == "kwire",
        "kwire-server refused requests of Kafka Streams"
    );
    if only == "kwire" {
        return;
    }
    let kafka = broker
        .join()
        .expect("the broker thread")
        .unwrap_or_else(|e| panic!("the Kafka 4.4.0 broker: {e}"));
    let on_kafka = script(
        &classpath,
        &rt,
        kafka,
        &format!("wc-kafka-{}", std::process::id()),
        true,
    );
    assert_eq!(
        on_kwire, on_kafka,
        "the same counts on kwire-server and Kafka 4.4.0"
    );
}

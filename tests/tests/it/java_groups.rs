//! Kafka's Java `KafkaConsumer` (kafka-clients 4.4.0) in groups against kwire-server: with
//! `group.protocol=classic` (JoinGroup/SyncGroup/Heartbeat/LeaveGroup, the eager `range` assignor and
//! KIP-429's `cooperative-sticky`), with `group.protocol=consumer` (KIP-848), and both together in one
//! group (KIP-848's online migration: upgrade when the first KIP-848 member joins a classic group,
//! downgrade when the last one leaves).
//!
//! The Java side is `dev.kwire.oracle.GroupConsumers` in `tests/java-oracle/` (built once per run with
//! the oracles, [`crate::java::classpath`]): consumers in threads, started and closed on command,
//! printing their rebalance callbacks, assignments, records and commits (its class doc has the line
//! protocol). Each test starts one kwire-server in process (topic `t6` with 6 partitions, classic
//! minimum session timeout 500 ms, no initial rebalance delay, KIP-848 heartbeat interval 250 ms) and
//! one JVM, and checks what a Kafka 4.4 broker gives:
//! - balance: every partition owned by exactly one member, with the sizes a balanced assignor gives
//!   (3/3, 2/2/2, …), after every join and every leave;
//! - no partition owned twice: the rebalance listeners' ledger (assign, revoke, lost, stop, with
//!   `System.nanoTime()` in one JVM) replayed in time order never gives a partition to a second member
//!   while the first still holds it (a member's revoke callback runs before it rejoins or acknowledges,
//!   the new owner's assign callback after the coordinator saw that);
//! - eager `range` revokes everything on a join; `cooperative-sticky` and KIP-848 never revoke a
//!   partition that stays with its owner;
//! - commits: every partition's offset ends committed at its end; a consumer started later in the same
//!   group reads exactly the messages produced after that, each partition from its committed offset;
//! - the group's type and state through raw ListGroups v5 / DescribeGroups v5 / ConsumerGroupDescribe v1.
//!
//! Every wait polls the Java output for its condition, with a deadline. Gated as the oracle test is:
//! without `java` or `mvn` on `PATH` when tests/build.rs ran, the tests are compiled as ignored, with the
//! reason; under `CI=true` their absence is a failure.

use crate::java::{classpath, java_ready};
use kwire_protocol::generated::{
    ApiRequest, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, DescribeGroupsRequest,
    DescribeGroupsResponse, ListGroupsRequest,
};
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The partition count of every topic here (each test has its own topic, `<group>-t6`, created by the
/// producer's Metadata request: the server's `default_partitions`, Kafka's `num.partitions`).
const PARTITIONS: i32 = 6;
/// Set to a Kafka broker's `host:port`, the tests run against it instead of kwire-server (to check the
/// tests themselves against Kafka 4.4: a broker with `num.partitions=6`, `auto.create.topics.enable=true`,
/// `group.min.session.timeout.ms=500`, `group.initial.rebalance.delay.ms=0`); group and topic names then
/// carry the process id, so that runs do not meet.
const EXTERNAL: &str = "KWIRE_JAVA_GROUPS_KAFKA";
/// How long any one condition may take to hold.
const WAIT: Duration = Duration::from_secs(30);

/// A partition, as `topic:partition`.
type Tp = (String, i32);

/// One line of the rebalance ledger.
#[derive(Debug, Clone)]
struct LedgerEvent {
    nanos: i64,
    member: String,
    kind: String,
    parts: BTreeSet<Tp>,
}

/// Everything the Java program has printed so far, folded.
#[derive(Debug, Default)]
struct Seen {
    started: BTreeSet<String>,
    closed: BTreeSet<String>,
    /// The last `OWNED` of every member not closed.
    owned: BTreeMap<String, BTreeSet<Tp>>,
    ledger: Vec<LedgerEvent>,
    /// (member, partition, offset, value) of every record read.
    records: Vec<(String, i32, i64, String)>,
    /// The last acknowledged commit of each partition, by any member.
    committed: BTreeMap<i32, i64>,
    commit_failures: usize,
    produced: usize,
    errors: Vec<String>,
}

fn parse_parts(s: &str) -> BTreeSet<Tp> {
    if s == "-" {
        return BTreeSet::new();
    }
    s.split(',')
        .map(|tp| {
            let (t, p) = tp.rsplit_once(':').expect("topic:partition");
            (t.to_string(), p.parse().expect("a partition number"))
        })
        .collect()
}

impl Seen {
    fn apply(&mut self, line: &str) {
        let w: Vec<&str> = line.split(' ').collect();
        match w[0] {
            "STARTED" => {
                self.started.insert(w[1].to_string());
            }
            "CLOSED" => {
                self.closed.insert(w[1].to_string());
                self.owned.remove(w[1]);
            }
            "OWNED" => {
                self.owned.insert(w[1].to_string(), parse_parts(w[2]));
            }
            "ASSIGNED" | "REVOKED" | "LOST" | "STOPPING" => self.ledger.push(LedgerEvent {
                nanos: w[2].parse().expect("nanos"),
                member: w[1].to_string(),
                kind: w[0].to_string(),
                parts: w.get(3).map_or_else(BTreeSet::new, |s| parse_parts(s)),
            }),
            "RECORD" => self.records.push((
                w[1].to_string(),
                w[3].parse().expect("partition"),
                w[4].parse().expect("offset"),
                w[5].to_string(),
            )),
            "COMMITTED" => {
                self.committed.insert(
                    w[3].parse().expect("partition"),
                    w[4].parse().expect("offset"),
                );
            }
            "COMMIT_FAILED" => self.commit_failures += 1,
            "PRODUCED" => self.produced += w[1].parse::<usize>().expect("count"),
            "ERROR" => self.errors.push(line.to_string()),
            _ => {}
        }
    }

    /// The owned sets of the live members, by name.
    fn live_owned(&self) -> BTreeMap<&str, &BTreeSet<Tp>> {
        self.owned
            .iter()
            .filter(|(m, _)| !self.closed.contains(*m))
            .map(|(m, s)| (m.as_str(), s))
            .collect()
    }

    /// Whether `members` (exactly these, all live) own all partitions between them, each once, with the
    /// given sizes in that order.
    fn balanced(&self, members: &[&str], sizes: &[usize]) -> bool {
        let live = self.live_owned();
        if live.len() != members.len() || !members.iter().all(|m| live.contains_key(m)) {
            return false;
        }
        let mut union = BTreeSet::new();
        let mut total = 0;
        for s in live.values() {
            union.extend(s.iter().cloned());
            total += s.len();
        }
        let mut got: Vec<usize> = live.values().map(|s| s.len()).collect();
        let mut want = sizes.to_vec();
        got.sort_unstable();
        want.sort_unstable();
        total == PARTITIONS as usize && union.len() == PARTITIONS as usize && got == want
    }

    /// Replays the ledger in time order; every moment a partition is given to a member while another
    /// holds it.
    fn overlaps(&self) -> Vec<String> {
        let mut events = self.ledger.clone();
        events.sort_by_key(|e| e.nanos);
        let mut owned: BTreeMap<&str, BTreeSet<Tp>> = BTreeMap::new();
        let mut out = Vec::new();
        for e in &events {
            if e.kind == "ASSIGNED" {
                for tp in &e.parts {
                    for (other, theirs) in &owned {
                        if *other != e.member.as_str() && theirs.contains(tp) {
                            out.push(format!(
                                "{tp:?} assigned to {} while {other} owns it",
                                e.member
                            ));
                        }
                    }
                }
                owned
                    .entry(e.member.as_str())
                    .or_default()
                    .extend(e.parts.iter().cloned());
            } else if e.kind == "STOPPING" {
                owned.remove(e.member.as_str());
            } else if let Some(mine) = owned.get_mut(e.member.as_str()) {
                mine.retain(|tp| !e.parts.contains(tp));
            }
        }
        out
    }

    fn distinct_values(&self, member: Option<&str>) -> BTreeSet<&str> {
        self.records
            .iter()
            .filter(|r| member.is_none_or(|m| r.0 == m))
            .map(|r| r.3.as_str())
            .collect()
    }

    fn summary(&self) -> String {
        let owned: Vec<String> = self
            .live_owned()
            .iter()
            .map(|(m, s)| format!("{m}: {:?}", s.iter().map(|(_, p)| *p).collect::<Vec<_>>()))
            .collect();
        format!(
            "owned {{{}}}; {} records; committed {:?}; {} commits refused; closed {:?}; errors {:?}",
            owned.join(", "),
            self.records.len(),
            self.committed,
            self.commit_failures,
            self.closed,
            self.errors
        )
    }
}

/// A group (or topic) name: `base`, with the process id against an external broker.
fn unique(base: &str) -> String {
    match std::env::var_os(EXTERNAL) {
        Some(_) => format!("{base}-{}", std::process::id()),
        None => base.to_string(),
    }
}

/// A kwire-server in process, with the group settings of these tests (or the broker of [`EXTERNAL`]).
struct TestServer {
    rt: tokio::runtime::Runtime,
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TestServer {
    fn start() -> TestServer {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        if let Ok(kafka) = std::env::var(EXTERNAL) {
            let addr = kafka
                .parse()
                .unwrap_or_else(|e| panic!("{EXTERNAL}={kafka}: {e}"));
            return TestServer {
                rt,
                addr,
                stop: None,
            };
        }
        let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
        assert!(
            config.auto_create_topics,
            "auto-creation is on by default, as in Kafka"
        );
        config.default_partitions = PARTITIONS;
        config.heartbeat_interval_ms = Some(250);
        // Kafka's defaults (6 s, 3 s) would make every join wait seconds.
        config.group_min_session_timeout_ms = 500;
        config.group_initial_rebalance_delay_ms = 0;
        let server = rt
            .block_on(Server::bind(config))
            .expect("kwire-server binds");
        let addr = server.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        rt.spawn(server.run(async {
            let _ = stopped.await;
        }));
        TestServer {
            rt,
            addr,
            stop: Some(stop),
        }
    }

    /// Sends `req` at `version` on a connection of its own; panics on a connection, encode or
    /// decode failure.
    fn request<R: ApiRequest>(&self, req: &R, version: i16) -> R::Response {
        self.rt.block_on(async {
            let mut c = Client::connect(self.addr)
                .await
                .expect("connect to kwire-server");
            c.request(req, version).await.expect("a response")
        })
    }

    /// ListGroups v5: (protocol type, state, group type) of `group`, if listed.
    fn listed(&self, group: &str) -> Option<(String, String, String)> {
        let r = self.request(&ListGroupsRequest::default(), 5);
        assert_eq!(r.error_code, 0, "ListGroups error");
        r.groups.iter().find(|g| &*g.group_id == group).map(|g| {
            (
                g.protocol_type.to_string(),
                g.group_state.to_string(),
                g.group_type.to_string(),
            )
        })
    }

    fn group_type(&self, group: &str) -> Option<String> {
        self.listed(group).map(|g| g.2)
    }

    /// DescribeGroups v5 of one group.
    fn describe(
        &self,
        group: &str,
    ) -> kwire_protocol::generated::describe_groups_response::DescribedGroup {
        let req = DescribeGroupsRequest {
            groups: vec![group.to_string().into()],
            ..Default::default()
        };
        let DescribeGroupsResponse { mut groups, .. } = self.request(&req, 5);
        assert_eq!(groups.len(), 1);
        groups.remove(0)
    }

    /// ConsumerGroupDescribe v1 of one group.
    fn consumer_describe(
        &self,
        group: &str,
    ) -> kwire_protocol::generated::consumer_group_describe_response::DescribedGroup {
        let req = ConsumerGroupDescribeRequest {
            group_ids: vec![group.to_string().into()],
            ..Default::default()
        };
        let ConsumerGroupDescribeResponse { mut groups, .. } = self.request(&req, 1);
        assert_eq!(groups.len(), 1);
        groups.remove(0)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// The Java program, its commands and its folded output.
struct Java {
    child: Child,
    to: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Seen,
    /// The topic of this test.
    topic: String,
}

impl Java {
    fn start(classpath: &str, addr: SocketAddr, topic: &str) -> Java {
        let mut child = Command::new("java")
            .args([
                "-Xshare:auto",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
            ])
            .arg("dev.kwire.oracle.GroupConsumers")
            .arg(addr.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting java");
        let to = child.stdin.take();
        let out = child.stdout.take().expect("piped stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Java {
            child,
            to,
            lines,
            seen: Seen::default(),
            topic: topic.to_string(),
        }
    }

    fn send(&mut self, cmd: &str) {
        let to = self.to.as_mut().expect("stdin open");
        writeln!(to, "{cmd}")
            .and_then(|()| to.flush())
            .expect("writing to GroupConsumers (did it die?)");
    }

    fn start_member(&mut self, name: &str, group: &str, protocol: &str, assignor: &str) {
        self.send(&format!(
            "start {name} {group} {protocol} {assignor} {}",
            self.topic
        ));
    }

    /// Folds the output until `pred` holds; panics after [`WAIT`] or on an ERROR line.
    fn wait(&mut self, what: &str, mut pred: impl FnMut(&Seen) -> bool) {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                self.seen.errors.is_empty(),
                "GroupConsumers: {:?}",
                self.seen.errors
            );
            if pred(&self.seen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited {WAIT:?} for {what}: {}",
                self.seen.summary()
            );
            match self.lines.recv_timeout(Duration::from_millis(20)) {
                Ok(line) => {
                    self.seen.apply(&line);
                    while let Ok(more) = self.lines.try_recv() {
                        self.seen.apply(&more);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("GroupConsumers exited: {}", self.seen.summary())
                }
            }
        }
    }

    fn produce(&mut self, n: usize, prefix: &str) {
        let want = self.seen.produced + n;
        self.send(&format!("produce {} {n} {prefix}", self.topic));
        self.wait(&format!("{n} records produced"), |s| s.produced == want);
    }

    fn close(&mut self, name: &str) {
        self.send(&format!("close {name}"));
        self.wait(&format!("{name} closed"), |s| s.closed.contains(name));
    }

    fn balanced(&mut self, members: &[&str], sizes: &[usize]) -> Instant {
        self.wait(&format!("{members:?} balanced as {sizes:?}"), |s| {
            s.balanced(members, sizes)
        });
        Instant::now()
    }

    /// Closes stdin (every consumer closes) and waits for the JVM: its remaining output lines
    /// are read until its stdout closes (the reader thread hangs up), then its exit status.
    fn finish(mut self) {
        drop(self.to.take());
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.apply(&line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("GroupConsumers did not exit within {WAIT:?}")
                }
            }
        }
        let status = self.child.wait().expect("waiting for java");
        assert!(
            self.seen.errors.is_empty(),
            "GroupConsumers: {:?}",
            self.seen.errors
        );
        assert!(status.success(), "GroupConsumers exited with {status}");
    }
}

impl Drop for Java {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn values(prefix: &str, n: usize) -> BTreeSet<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// Whether `member` revoked any partition it still owns at the end of the ledger slice.
fn revoked_a_kept_partition(events: &[LedgerEvent], member: &str, kept: &BTreeSet<Tp>) -> bool {
    events.iter().any(|e| {
        e.member == member && e.kind == "REVOKED" && e.parts.iter().any(|tp| kept.contains(tp))
    })
}

/// The life of one group with one protocol: two members, a third joins, the first leaves, everything
/// consumed and committed, all close, a fresh member resumes at the committed offsets.
fn group_lifecycle(protocol: &str, assignor: &str, base: &str) {
    if !java_ready("java group consumers") {
        return;
    }
    let classpath = classpath();
    let server = TestServer::start();
    let group = &unique(base);
    let mut java = Java::start(&classpath, server.addr, &format!("{group}-t6"));
    let started = Instant::now();
    java.produce(300, "a");
    let (c0, c1, c2) = (
        format!("{group}-c0"),
        format!("{group}-c1"),
        format!("{group}-c2"),
    );
    java.start_member(&c0, group, protocol, assignor);
    java.start_member(&c1, group, protocol, assignor);
    let t_two = java.balanced(&[&c0, &c1], &[3, 3]);
    let want_type = if protocol == "classic" {
        "classic"
    } else {
        "consumer"
    };
    let listed = server.listed(group).expect("the group is listed");
    assert_eq!(listed.2, want_type, "ListGroups v5 of {group}: {listed:?}");
    assert_eq!(listed.0, "consumer", "protocol type: {listed:?}");
    if protocol == "classic" {
        let d = server.describe(group);
        assert_eq!(
            (d.error_code, &*d.protocol_type, &*d.group_state),
            (0, "consumer", "Stable"),
            "{d:?}"
        );
        assert_eq!(
            &*d.protocol_data, assignor,
            "the classic group runs its members' assignor: {d:?}"
        );
    } else {
        let d = server.consumer_describe(group);
        assert_eq!((d.error_code, &*d.group_state), (0, "Stable"), "{d:?}");
        assert!(
            d.members.iter().all(|m| m.member_type == 1),
            "KIP-848 members have type 1: {d:?}"
        );
    }

    // A third member joins.
    let before: BTreeMap<String, BTreeSet<Tp>> = [&c0, &c1]
        .iter()
        .map(|m| (m.to_string(), java.seen.owned[m.as_str()].clone()))
        .collect();
    let mark = java.seen.ledger.len();
    java.start_member(&c2, group, protocol, assignor);
    let t_join = Instant::now();
    let t_three = java.balanced(&[&c0, &c1, &c2], &[2, 2, 2]);
    let during = java.seen.ledger[mark..].to_vec();
    for (m, had) in &before {
        let kept: BTreeSet<Tp> = had
            .intersection(&java.seen.owned[m.as_str()])
            .cloned()
            .collect();
        if assignor == "range" && protocol == "classic" {
            assert!(
                during
                    .iter()
                    .any(|e| e.member == *m && e.kind == "REVOKED" && e.parts == *had),
                "eager range: {m} should revoke all of {had:?} on the join: {during:?}"
            );
        } else {
            assert!(
                !revoked_a_kept_partition(&during, m, &kept),
                "{m} revoked a partition it kept: {during:?}"
            );
        }
    }

    java.wait("all 300 records read", |s| {
        s.distinct_values(None) == values("a", 300).iter().map(String::as_str).collect()
    });

    // The first member leaves.
    let t_leave = Instant::now();
    java.close(&c0);
    let t_two_again = java.balanced(&[&c1, &c2], &[3, 3]);

    // Every partition committed at its end.
    let mut ends: BTreeMap<i32, i64> = BTreeMap::new();
    for (_, p, off, _) in &java.seen.records {
        let e = ends.entry(*p).or_insert(0);
        *e = (*e).max(off + 1);
    }
    assert_eq!(
        ends.values().sum::<i64>(),
        300,
        "the partitions' ends: {ends:?}"
    );
    java.wait("commits up to every partition's end", |s| {
        s.committed == ends
    });
    java.close(&c1);
    java.close(&c2);
    let listed = server.listed(group).expect("the group is listed");
    assert_eq!(
        listed.1, "Empty",
        "ListGroups v5 of {group} after all closed: {listed:?}"
    );
    assert_eq!(
        listed.2, want_type,
        "ListGroups v5 of {group} after all closed: {listed:?}"
    );

    // A fresh member reads exactly what was produced after the commits.
    java.produce(120, "b");
    let fresh = format!("{group}-fresh");
    java.start_member(&fresh, group, protocol, assignor);
    let b = values("b", 120);
    java.wait("the fresh member to read the 120 new records", |s| {
        s.distinct_values(Some(&fresh)).len() >= 120
    });
    let mut fresh_ends = ends.clone();
    let mut firsts: BTreeMap<i32, i64> = BTreeMap::new();
    let mut count = 0;
    for (m, p, off, _) in &java.seen.records {
        if *m == fresh {
            count += 1;
            let f = firsts.entry(*p).or_insert(*off);
            *f = (*f).min(*off);
            let e = fresh_ends.entry(*p).or_insert(0);
            *e = (*e).max(off + 1);
        }
    }
    java.wait("the fresh member's commits", |s| s.committed == fresh_ends);
    assert_eq!(
        java.seen.distinct_values(Some(&fresh)),
        b.iter().map(String::as_str).collect(),
        "the fresh member re-read or missed records"
    );
    assert_eq!(count, 120, "the fresh member read records twice");
    for (p, first) in &firsts {
        assert_eq!(
            *first, ends[p],
            "partition {p}: the fresh member started at {first}, committed {}",
            ends[p]
        );
    }
    let overlaps = java.seen.overlaps();
    assert!(
        overlaps.is_empty(),
        "a partition had two owners at once: {overlaps:?}"
    );
    let refused = java.seen.commit_failures;
    java.finish();
    println!(
        "java {protocol} {assignor}: 2 members balanced {:.2} s after start, third join -> 2/2/2 {:.2} s, leave -> 3/3 \
         {:.2} s, {refused} commits refused during rebalances, whole test {:.1} s",
        (t_two - started).as_secs_f64(),
        (t_three - t_join).as_secs_f64(),
        (t_two_again - t_leave).as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_classic_range_group_balances_rebalances_commits_and_resumes() {
    group_lifecycle("classic", "range", "jc-range");
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_classic_cooperative_sticky_group_balances_rebalances_commits_and_resumes() {
    group_lifecycle("classic", "cooperative-sticky", "jc-coop");
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_consumer_protocol_group_balances_rebalances_commits_and_resumes() {
    group_lifecycle("consumer", "-", "jn");
}

/// Classic (range, eager) and KIP-848 Java members in one group.
#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_mixed_group_upgrades_stays_balanced_and_downgrades() {
    mixed_group("range", "jmix");
}

/// Classic (cooperative-sticky: its owned partitions travel in the subscription, not as assignment user
/// data, so the upgrade is allowed) and KIP-848 Java members in one group.
#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn java_mixed_cooperative_group_upgrades_stays_balanced_and_downgrades() {
    mixed_group("cooperative-sticky", "jmix-coop");
}

/// Classic and KIP-848 Java members in one group: upgrade on the first KIP-848 member, balance and no
/// double ownership across protocols, downgrade when the last KIP-848 member leaves, and a new classic
/// member joins the downgraded group.
fn mixed_group(assignor: &str, base: &str) {
    if !java_ready("java group consumers") {
        return;
    }
    let classpath = classpath();
    let server = TestServer::start();
    let group = &unique(base);
    let mut java = Java::start(&classpath, server.addr, &format!("{group}-t6"));
    let started = Instant::now();
    java.produce(120, "a");
    java.start_member("classic0", group, "classic", assignor);
    java.start_member("classic1", group, "classic", assignor);
    java.balanced(&["classic0", "classic1"], &[3, 3]);
    assert_eq!(server.group_type(group).as_deref(), Some("classic"));
    let d = server.consumer_describe(group);
    assert_eq!(
        d.error_code, 69,
        "ConsumerGroupDescribe of a classic group: GROUP_ID_NOT_FOUND: {d:?}"
    );

    // Upgrade.
    let t_up = Instant::now();
    java.start_member("new0", group, "consumer", "-");
    java.wait("the group to become a consumer group", |_| {
        server.group_type(group).as_deref() == Some("consumer")
    });
    let t_upgraded = Instant::now();
    java.balanced(&["classic0", "classic1", "new0"], &[2, 2, 2]);
    java.wait("the members to reach their targets", |_| {
        let d = server.consumer_describe(group);
        d.error_code == 0
            && d.members
                .iter()
                .all(|m| m.assignment == m.target_assignment)
    });
    let d = server.consumer_describe(group);
    let types: BTreeMap<String, i8> = d
        .members
        .iter()
        .map(|m| (m.client_id.to_string(), m.member_type))
        .collect();
    assert_eq!(
        types,
        [("classic0", 0), ("classic1", 0), ("new0", 1)]
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect(),
        "ConsumerGroupDescribe v1 member types (0 classic, 1 consumer): {d:?}"
    );
    // The server's view of who owns what agrees with every client's.
    let server_view: BTreeMap<String, BTreeSet<i32>> = d
        .members
        .iter()
        .map(|m| {
            let parts = m
                .assignment
                .topic_partitions
                .iter()
                .flat_map(|t| t.partitions.iter())
                .collect();
            (m.client_id.to_string(), parts)
        })
        .collect();
    let client_view: BTreeMap<String, BTreeSet<i32>> = java
        .seen
        .live_owned()
        .iter()
        .map(|(m, s)| (m.to_string(), s.iter().map(|(_, p)| *p).collect()))
        .collect();
    assert_eq!(
        server_view, client_view,
        "ConsumerGroupDescribe vs the consumers"
    );

    java.start_member("new1", group, "consumer", "-");
    java.balanced(&["classic0", "classic1", "new0", "new1"], &[2, 2, 1, 1]);
    java.wait("all 120 records read", |s| {
        s.distinct_values(None).len() == 120
    });
    let mut ends: BTreeMap<i32, i64> = BTreeMap::new();
    for (_, p, off, _) in &java.seen.records {
        let e = ends.entry(*p).or_insert(0);
        *e = (*e).max(off + 1);
    }
    java.wait("commits up to every partition's end", |s| {
        s.committed == ends
    });

    // A classic member leaves the mixed group: it stays a consumer group.
    java.close("classic0");
    java.balanced(&["classic1", "new0", "new1"], &[2, 2, 2]);
    assert_eq!(server.group_type(group).as_deref(), Some("consumer"));
    java.close("new0");
    java.balanced(&["classic1", "new1"], &[3, 3]);
    assert_eq!(server.group_type(group).as_deref(), Some("consumer"));

    // Downgrade: the last KIP-848 member leaves.
    let t_down = Instant::now();
    java.close("new1");
    java.wait("the group to become classic again", |_| {
        server.group_type(group).as_deref() == Some("classic")
    });
    java.balanced(&["classic1"], &[6]);
    let t_downgraded = Instant::now();
    let d = server.describe(group);
    assert_eq!((d.error_code, &*d.protocol_type), (0, "consumer"), "{d:?}");
    let members: Vec<&str> = d.members.iter().map(|m| &*m.client_id).collect();
    assert_eq!(
        members,
        ["classic1"],
        "DescribeGroups after the downgrade: {d:?}"
    );
    // Still usable: a new classic member joins the downgraded group.
    java.start_member("classic2", group, "classic", assignor);
    java.balanced(&["classic1", "classic2"], &[3, 3]);
    assert_eq!(server.group_type(group).as_deref(), Some("classic"));
    assert_eq!(
        java.seen.committed, ends,
        "commits changed across the conversions"
    );
    let overlaps = java.seen.overlaps();
    assert!(
        overlaps.is_empty(),
        "a partition had two owners at once: {overlaps:?}"
    );
    java.finish();
    println!(
        "java mixed group ({assignor}): upgraded {:.2} s after the first KIP-848 member started, downgraded and rebalanced {:.2} s \
         after the last one closed; whole test {:.1} s",
        (t_upgraded - t_up).as_secs_f64(),
        (t_downgraded - t_down).as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

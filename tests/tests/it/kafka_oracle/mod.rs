//! The differential suite of kwire's group coordinator: a real Apache Kafka 4.4.0 broker is the
//! behavioural oracle for classic groups (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
//! DescribeGroups, ListGroups, DeleteGroups, OffsetCommit's generation checks), KIP-848's
//! online migration (upgrade, classic members inside consumer groups, downgrade) and streams
//! groups (KIP-1071, below).
//!
//! - [`broker`] starts one broker per test process (single-node KRaft from the jars of
//!   `tests/kafka-broker/`, formatted in a temporary directory, on free ports) and stops it when
//!   the process ends; its start-up time is printed.
//! - The test starts one kwire-server in process with the same group settings (the constants
//!   below: session timeout bounds, the initial rebalance delay, the consumer-group session
//!   timeout and heartbeat interval, migration policy `bidirectional`; the broker also gets
//!   `group.consumer.assignment.interval.ms=0`, accepted difference A10) and creates the same
//!   topics on both with CreateTopics.
//! - [`scenarios`] holds the scripts: each drives a few simulated members (one connection each,
//!   [`harness::Member`]) through raw requests (`kwire_server::Client`, kwire's
//!   generated types) and records every answer. Every scenario runs against both servers, all
//!   scenarios at once (distinct group ids), and the two transcripts must be equal after
//!   [`normalise`]: generated member ids and topic ids mapped to symbolic names, timing fields
//!   (`throttleTimeMs`) and free text (`errorMessage`) dropped, arrays sorted.
//!
//! `KWIRE_ORACLE_ONLY=<name>[,<name>…]` runs only those scenarios; `KWIRE_ORACLE_KEEP=1` keeps the
//! broker's directory (its `broker.log`); the transcripts of a failed comparison are written
//! under `$CARGO_TARGET_TMPDIR/kafka-oracle/`.
//!
//! Gated as the other Java tests are: without `java` or `mvn` on `PATH` when tests/build.rs ran,
//! the test is compiled as ignored with the reason; under `CI=true` their absence fails it.
//!
//! # Accepted differences
//!
//! Where kwire's answers differ from Kafka 4.4.0's on purpose (the same table is in
//! protocol/docs/coordinator.md, §Differential testing against Kafka 4.4):
//!
//! | # | Field / behaviour | Kafka 4.4.0 | kwire | Why accepted, how compared |
//! |---|---|---|---|---|
//! | A1 | generated member ids | `<client id>-<UUID>`, `<instance id>-<UUID>` | kwire's own | opaque to clients; each id mapped to the script's name for its member |
//! | A2 | topic ids | random per cluster | random per server | mapped to the topic names |
//! | A3 | `ThrottleTimeMs` | quota-dependent | 0 | no quotas in kwire; dropped |
//! | A4 | `ErrorMessage` | Kafka's exception text | kwire's text | free text; dropped, the error code is compared |
//! | A5 | `ClientHost` | `/127.0.0.1` (Java's `InetAddress`) | the peer address | the same fact written differently; dropped |
//! | A6 | order of members, groups, partitions | hash-map order | kwire's order | no meaning in these answers; arrays compared sorted |
//! | A7 | which partitions the server-side assignor gives (migration scenarios) | `uniform` tie-breaks | kwire's `uniform` tie-breaks | both balanced and sticky; compared as partitions per topic (counts), on a 6-partition topic so that groups of 1–3 members have no tie; assignment bytes compared decoded |
//! | A8 | the first epoch of a new consumer group | 2: Kafka 4.4's `ModernGroup` constructor starts a new group at group epoch 1 (`groupEpoch.set(1)`; the assignment epoch stays 0), and the first member's join bumps it once, to 2 (its log: "Bumped group epoch to 2", then "Computed a new target assignment for epoch 2") | 1 (a new group starts at 0, as Kafka 4.2) | epochs compared relative to the group's first epoch in the scenarios that create a consumer group, while it is one; matching it means starting kwire's consumer groups at epoch 1, which shifts every epoch the consumer-group tests assert |
//! | A10 | when a consumer group's target assignment is computed | at most once per `group.consumer.assignment.interval.ms` (default 1000 ms; `GroupMetadataManager.maybeUpdateTargetAssignment`): a member joining within the interval is reconciled against the last target assignment and answered with its epoch, the new target comes with a later heartbeat | at every group epoch bump (as Kafka 4.2; Kafka 4.4 with the interval 0) | the broker runs with `group.consumer.assignment.interval.ms=0`; compared strictly |
//!
//! # Streams groups (KIP-1071)
//!
//! A second test, `kafka_oracle_streams_groups`, runs [`streams_scenarios`] the same way (its own
//! kwire-server, the same broker): simulated Kafka Streams members (StreamsGroupHeartbeat v0 and
//! v1, StreamsGroupDescribe v0 and v1, StreamsGroupTopologyDescriptionUpdate) over source topics
//! `oracle-s1`, `oracle-s2` (4 partitions) and `oracle-s3` (2): joins, revocations, shared
//! processes, leaves, session and rebalance timeouts, shutdown requests, missing source topics,
//! changelog and repartition topics created by the coordinator's side, copartitioning, standbys
//! (`group.streams.num.standby.replicas=1`), endpoints, fencing, invalid requests, task offsets,
//! static members, warm-ups. Both servers get the same streams settings (the `GROUP_STREAMS_*`
//! constants: session timeout 3 s, heartbeat interval 200 ms, initial rebalance delay 0, one
//! standby; the broker also gets `group.streams.assignment.interval.ms=0` and
//! `group.streams.assignor.offload.enable=false`, kwire-server no topology descriptions, as the
//! broker without a description plugin). Its summary line starts `kafka oracle (streams):`.
//!
//! Accepted differences of the streams scenarios, besides A1–A6 (the same table is in
//! protocol/docs/coordinator.md):
//!
//! | # | Field / behaviour | Kafka 4.4.0 | kwire | Why accepted, how compared |
//! |---|---|---|---|---|
//! | S1 | `StatusDetail` of a heartbeat status | Kafka's text | kwire's text | free text; dropped, the status code is compared |
//! | S2 | which member of a process gets a task when two processes are equally loaded (`s-shared-process`) | `PriorityQueue` order (`StickyTaskAssignor` compares only the load) | process id, then member id | both balanced and sticky; that scenario compares task lists by size |
//! | S3 | warm-up tasks (`s-warm-up`) | none: 4.4.0's `AssignmentRefiner.refine` returns the target unchanged | placed for a task whose new owner is not caught up (coordinator.md §2.12) | what warm-ups are for; checked on its own: Kafka shows no warm-up, kwire at least one, no errors |
//! | S4 | which standby moves to a joining member (`s-endpoints`) | keeps a previous standby only while its process is under its task quota (tasks in descending (partition, subtopology) order), the rest to the least-loaded process | keeps every previous standby, then moves standbys from the most to the least loaded member | the counts per member agree, the partition chosen differs; reported as a known difference (the endpoint-information epoch itself now moves as Kafka's) |
//! | D1 | a join with another topology (`s-d1-topology-update`) | INVALID_REQUEST "Topology updates are not supported yet." | kwire's topology-epoch updates (coordinator.md, D1) | excluded from the comparison: Kafka's two INVALID_REQUESTs are asserted (so a Kafka that changes is noticed), and kwire's 131, 0 and STALE_TOPOLOGY |
//!
//! Fixes the streams comparison led to: v0 heartbeat answers carry `AcceptableRecoveryLagLegacy`
//! 0 (Kafka sets only the int64 field); the assignor gets each member's current assignment, not
//! its last target (4.4's `TargetAssignmentBuilder`); the last member's leave or fence writes
//! the assignment epoch G+1 too; the join that creates a group does not keep its move of the
//! endpoint-information epoch.
//!
//! Kafka 4.4 answers a classic member's Heartbeat and SyncGroup in a consumer group with
//! REBALANCE_IN_PROGRESS when its epoch is behind the group's *assignment* epoch
//! (`classicGroupHeartbeatToConsumerGroup`, `throwIfRebalanceInProgress`); kwire does the same
//! (equal to the group epoch while no assignment is deferred).
//!
//! Not compared: migration policies other than `bidirectional` (broker-wide; a second broker
//! would double the start-up time) and `group.max.size`.

pub(crate) mod broker;
mod harness;
mod normalise;
mod scenario;
mod scenarios;
mod settings;
mod streams_scenarios;

use harness::{Ctx, Fail, Side};
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::wire::json::Value;
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use normalise::{Migration, Names};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

pub use scenario::Scenario;
pub use settings::*;

/// The kwire-server configuration matching the broker's group settings.
fn kwire_config() -> ServerConfig {
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
    config.auto_create_topics = false;
    config.heartbeat_interval_ms = Some(GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);
    config.session_timeout_ms = Some(GROUP_CONSUMER_SESSION_TIMEOUT_MS);
    config.group_min_session_timeout_ms = GROUP_MIN_SESSION_TIMEOUT_MS;
    config.group_max_session_timeout_ms = 1_800_000;
    config.group_initial_rebalance_delay_ms = GROUP_INITIAL_REBALANCE_DELAY_MS;
    config.streams_initial_rebalance_delay_ms = Some(GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS);
    config.streams_num_standby_replicas = Some(GROUP_STREAMS_NUM_STANDBY_REPLICAS);
    // The broker has no `group.streams.topology.description.plugin` (its default).
    config.streams_topology_descriptions = false;
    config
}

/// Creates [`scenarios::TOPIC`] ([`scenarios::TOPIC_PARTITIONS`]) and [`scenarios::TOPIC2`] (2) with CreateTopics
/// v7; returns (topic id as its JSON string, topic name) for the normaliser.
async fn create_topics(addr: SocketAddr) -> Result<Vec<(String, String)>, Fail> {
    // CreateTopics, then Metadata until every partition has a leader (Kafka answers CreateTopics
    // once the controller has the topics; its brokers see them a moment later).
    let out = streams_scenarios::create(
        addr,
        &[
            (scenarios::TOPIC, scenarios::TOPIC_PARTITIONS),
            (scenarios::TOPIC2, 2),
        ],
    )
    .await?;
    let mut c = Client::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    // …and the group coordinator a moment after that: a ConsumerGroupHeartbeat member of a
    // throwaway group heartbeats until it is assigned partitions, then leaves.
    let member_id = broker::random_id();
    let mut epoch = 0;
    loop {
        let req = ConsumerGroupHeartbeatRequest {
            group_id: "oracle-warm-up".into(),
            member_id: member_id.clone().into(),
            member_epoch: epoch,
            rebalance_timeout_ms: if epoch == 0 { 5000 } else { -1 },
            subscribed_topic_names: (epoch == 0)
                .then(|| vec![scenarios::TOPIC.into(), scenarios::TOPIC2.into()]),
            topic_partitions: (epoch == 0).then(Vec::new),
            ..Default::default()
        };
        let h = c
            .request(&req, 1)
            .await
            .map_err(|e| format!("warm-up heartbeat on {addr} failed: {e}"))?;
        if h.error_code != 0 {
            return Err(format!(
                "warm-up heartbeat on {addr}: error {}",
                h.error_code
            ));
        }
        epoch = h.member_epoch;
        if h.assignment.is_some_and(|a| !a.topic_partitions.is_empty()) {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("warm-up member on {addr} got no partitions"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let leave = ConsumerGroupHeartbeatRequest {
        group_id: "oracle-warm-up".into(),
        member_id: member_id.into(),
        member_epoch: -1,
        ..Default::default()
    };
    let _ = c.call(leave, 1).await;
    Ok(out)
}

/// Runs `s` against `addr`; returns its transcript and how it ended.
async fn run_one(
    s: &Scenario,
    side: Side,
    addr: SocketAddr,
    topics: &[(String, String)],
) -> (Vec<(String, Value)>, Result<(), Fail>) {
    let mut names = Names::default();
    for (id, name) in topics {
        names.bind(id, name);
    }
    let mut ctx = Ctx {
        addr,
        side,
        scenario: s.name,
        names,
        transcript: Vec::new(),
        fresh_consumer_group: s.fresh_consumer_group,
        epoch_base: None,
        epoch_base_end: usize::MAX,
    };
    let result = tokio::time::timeout(Duration::from_secs(90), (s.run)(&mut ctx))
        .await
        .unwrap_or_else(|_| Err("the scenario ran past 90 s".into()));
    let names = ctx.names;
    let to = ctx.epoch_base_end;
    let (from, base) = match ctx.epoch_base {
        Some((from, base)) => (from, Some(base)),
        None => (usize::MAX, None),
    };
    let transcript = ctx
        .transcript
        .into_iter()
        .enumerate()
        .map(|(i, (l, v))| {
            let rules = Migration {
                counts: s.migration,
                epoch_base: if (from..to).contains(&i) { base } else { None },
            };
            (l, names.normalise_with(v, &rules))
        })
        .collect();
    (transcript, result)
}

/// Where two transcripts first differ, as a report; `None` when equal.
fn compare(kafka: &[(String, Value)], kwire: &[(String, Value)]) -> Option<String> {
    for (i, (k, w)) in kafka.iter().zip(kwire).enumerate() {
        if k != w {
            return Some(format!(
                "step {i}: {}\n  kafka: {}\n  kwire: {}{}",
                k.0,
                k.1,
                if k.0 == w.0 {
                    String::new()
                } else {
                    format!("(kwire step: {}) ", w.0)
                },
                w.1
            ));
        }
    }
    (kafka.len() != kwire.len()).then(|| {
        format!(
            "kafka recorded {} steps, kwire {}; first extra: {:?}",
            kafka.len(),
            kwire.len(),
            kafka
                .get(kwire.len())
                .or_else(|| kwire.get(kafka.len()))
                .map(|s| &s.0)
        )
    })
}

/// Writes the two transcripts of `name` under `$CARGO_TARGET_TMPDIR/kafka-oracle/`.
fn dump(name: &str, kafka: &[(String, Value)], kwire: &[(String, Value)]) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kafka-oracle");
    let _ = std::fs::create_dir_all(&dir);
    for (side, t) in [("kafka", kafka), ("kwire", kwire)] {
        let text: String = t.iter().map(|(l, v)| format!("{l}\n  {v}\n")).collect();
        let _ = std::fs::write(dir.join(format!("{name}.{side}.txt")), text);
    }
    dir
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn kafka_oracle_classic_groups_and_migration() {
    run_suite("kafka oracle", scenarios::all(), |addr| {
        Box::pin(create_topics(addr))
    });
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn kafka_oracle_streams_groups() {
    run_suite("kafka oracle (streams)", streams_scenarios::all(), |addr| {
        Box::pin(streams_scenarios::create_topics(addr))
    });
}

/// What a suite creates on each server before its scenarios run: (topic id as its JSON string,
/// `topic:<name>`) of each topic, for the normaliser.
type Setup = fn(
    SocketAddr,
) -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Vec<(String, String)>, Fail>> + Send>,
>;

/// Runs `scenarios` (all of them, or those `KWIRE_ORACLE_ONLY` names) against the broker and an
/// in-process kwire-server after `setup` on each, prints one line per scenario and a summary
/// line starting with `title`, and fails when a scenario not marked as a known difference
/// differs.
fn run_suite(title: &str, scenarios: Vec<Scenario>, setup: Setup) {
    if !crate::java::java_ready(title) {
        return;
    }
    let broker = broker::broker().unwrap_or_else(|e| panic!("{title}: {e}"));
    let started = Instant::now();
    let only: Option<Vec<String>> = std::env::var("KWIRE_ORACLE_ONLY")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let all: Vec<Scenario> = scenarios
        .into_iter()
        .filter(|s| only.as_ref().is_none_or(|o| o.iter().any(|n| n == s.name)))
        .collect();
    if all.is_empty() {
        println!("{title}: no scenario selected by KWIRE_ORACLE_ONLY");
        return;
    }
    assert!(only.is_some() || all.len() >= 20, "at least 20 scenarios");

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let server = rt
        .block_on(Server::bind(kwire_config()))
        .expect("kwire-server binds");
    let kwire_addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server.run(async {
        let _ = stopped.await;
    }));

    let outcomes = rt.block_on(async {
        let kafka_topics = setup(broker.addr)
            .await
            .unwrap_or_else(|e| panic!("{title}: {e}"));
        let kwire_topics = setup(kwire_addr)
            .await
            .unwrap_or_else(|e| panic!("{title}: {e}"));
        let runs = all.iter().map(|s| {
            let (kt, wt) = (kafka_topics.clone(), kwire_topics.clone());
            async move {
                let t0 = Instant::now();
                let (kafka, kwire) = tokio::join!(
                    run_one(s, Side::Kafka, broker.addr, &kt),
                    run_one(s, Side::Kwire, kwire_addr, &wt)
                );
                (s, kafka, kwire, t0.elapsed())
            }
        });
        let mut set = Vec::new();
        for r in runs {
            set.push(r);
        }
        futures_join_all(set).await
    });

    let mut failures = Vec::new();
    let mut known = Vec::new();
    for (s, (kafka, kafka_end), (kwire, kwire_end), took) in &outcomes {
        let diff = match s.own_check {
            Some(check) => check(kafka, kwire).err(),
            None => compare(kafka, kwire),
        };
        let verdict = match (kafka_end, diff) {
            (Err(e), _) => Some(format!("the script failed against Kafka itself: {e}")),
            (Ok(()), Some(diff)) => Some(diff),
            (Ok(()), None) => kwire_end.as_ref().err().map(|e| format!("kwire: {e}")),
        };
        let script_ok = kafka_end.is_ok();
        match verdict {
            None => println!(
                "{title}: {:<28} {}  {:>3} steps  {:.1} s{}",
                s.name,
                if s.own_check.is_some() {
                    "PASS (checked on its own, not compared)"
                } else {
                    "PASS"
                },
                kafka.len(),
                took.as_secs_f64(),
                if s.known_difference.is_some() {
                    "  (marked as a known difference: remove the mark)"
                } else {
                    ""
                }
            ),
            Some(why) if script_ok && s.known_difference.is_some() => {
                let dir = dump(s.name, kafka, kwire);
                println!(
                    "{title}: {:<28} KNOWN DIFFERENCE ({})\n  {why}\n  (transcripts in {})",
                    s.name,
                    s.known_difference.unwrap_or_default(),
                    dir.display()
                );
                known.push(s.name);
            }
            Some(why) => {
                let dir = dump(s.name, kafka, kwire);
                println!(
                    "{title}: {:<28} FAIL  {why}\n  (transcripts in {})",
                    s.name,
                    dir.display()
                );
                failures.push(s.name);
            }
        }
    }
    let own = outcomes.iter().filter(|o| o.0.own_check.is_some()).count();
    println!(
        "{title}: {} scenarios, {} passed, {} known differences {known:?}, {own} checked on their own (not compared), broker start-up {:.1} s, scenarios {:.1} s",
        outcomes.len(),
        outcomes.len() - failures.len() - known.len(),
        known.len(),
        broker.startup.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let _ = stop.send(());
    rt.block_on(serving)
        .expect("the server task")
        .expect("kwire-server stops cleanly");
    assert!(
        failures.is_empty(),
        "scenarios differing from Kafka 4.4.0: {failures:?} (the broker's log: {}/broker.log with KWIRE_ORACLE_KEEP=1)",
        broker.dir.display()
    );
}

/// Runs the futures concurrently on the current task and returns their outputs in order (a
/// small stand-in for `futures::future::join_all`).
async fn futures_join_all<F: std::future::Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut set: Vec<std::pin::Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}

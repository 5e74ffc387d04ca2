//! Randomised simulation of KIP-1071 streams groups (proptest), plus deterministic rollout tests.
//!
//! Simulated Streams clients (1-8 members spread over 1-4 processes) join, heartbeat, leave,
//! crash, ask for an application shutdown and roll out topology updates member by member
//! (kwire's departure D1), while source topics appear late, internal topics are created when the
//! coordinator asks for them, the standby count changes and time advances (session and rebalance
//! timeouts, initial rebalance delay). Every client behaves as the protocol expects: it
//! heartbeats with exactly the task lists of the last response that carried any (so it revokes
//! at once), and rejoins when it is told it is unknown.
//!
//! After every step [`Sim::check`] asserts:
//! 1. no task is active in two members (assigned ∪ pending revocation) of the group;
//! 2. no process holds one task twice, in any role combination over its members;
//! 3. the coordinator's state equals the replay of every streams record it emitted (applied
//!    incrementally after each step, in full at the end of each case), and the derived task
//!    ownership map equals one rebuilt from the members;
//! 4. member epochs and the assignment epoch never exceed the group epoch;
//!
//! and a few client-side facts: each live member's view of its tasks equals the server's
//! assigned set, its epoch equals the server's, its topology epoch is the one it joined with.
//! [`Sim::check_response`] checks each response against the committed state and the model
//! (epochs, task lists present iff changed, statuses and their order and wording, the internal
//! topics to create with their partition counts, which errors may happen at all).
//!
//! Once faults stop (every topic present, the client set fixed, crashed members expired), at most
//! [`CONVERGE_ROUNDS`] round-robin heartbeat rounds bring the group to `Stable` with every task of
//! the group's topology active on exactly one member and `min(standbys, processes - 1)` standby
//! copies of every stateful task.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::harness::groups::{
    answered_tasks as resp_tasks, streams_coordinator, task_ids as req_task_ids,
};
use super::harness::Harness;
use crate::coordinator::streams::tasks::{TaskRole, TaskSet, TasksTuple};
use crate::coordinator::streams::{
    status_codes, StreamsGroup, StreamsGroupConfig, StreamsGroupOverrides, StreamsGroupState,
    StreamsMemberState, StreamsRecord, TaskOwners, NUM_STANDBY_REPLICAS,
};
use crate::coordinator::{replay, Record, RequestContext, StreamsHeartbeatOutput, TopicMetadata};
use crate::error::ErrorCode;
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response as ds;
use crate::generated::streams_group_heartbeat_request as rq;
use crate::wire::{KStr, Uuid};

/// The group every client joins.
const G: &str = "g";
/// External source topic of subtopology "0".
const SRC_A: &str = "src-a";
/// External source topic of subtopology "2".
const SRC_B: &str = "src-b";
/// Changelog of subtopology "0" (when stateful).
const CL_0: &str = "app-0-changelog";
/// Changelog of subtopology "2".
const CL_2: &str = "app-2-changelog";
/// Repartition topic written by subtopology "0" and read by subtopology "1".
const REP: &str = "app-rep";
/// Every topic the topologies use, in topic-id order.
const ALL_TOPICS: [&str; 5] = [SRC_A, SRC_B, CL_0, CL_2, REP];
/// The newest app version (topology epoch) a rollout can reach.
const MAX_VERSION: i32 = 3;
/// Rebalance timeout every client sends.
const REBALANCE_TIMEOUT_MS: i32 = 30_000;
/// `group.streams.session.timeout.ms` (the default).
const SESSION_TIMEOUT_MS: i64 = 45_000;
/// Round-robin heartbeat rounds allowed for convergence once faults stop.
const CONVERGE_ROUNDS: usize = 10;
/// Time between two convergence rounds.
const ROUND_MS: i64 = 1_500;
/// Most client slots in a case (member `i` runs in process `i % processes`).
const MAX_MEMBERS: usize = 8;

fn k(s: &str) -> KStr {
    s.to_string().into()
}

/// The subtopologies of app version `v` as (id, stateful, writes the repartition topic).
///
/// - v0: "0" (src-a, changelog, writes app-rep), "1" (reads app-rep, stateless);
/// - v1: "0" (src-a, changelog), "2" (src-b, changelog): "1" removed, "2" added;
/// - v2: all three, as in v0 plus "2";
/// - v3: "0" turned stateless, "2": "1" removed again and "0" loses its standbys.
fn subs(v: i32) -> Vec<(&'static str, bool, bool)> {
    match v {
        0 => vec![("0", true, true), ("1", false, false)],
        1 => vec![("0", true, false), ("2", true, false)],
        2 => vec![("0", true, true), ("1", false, false), ("2", true, false)],
        _ => vec![("0", false, false), ("2", true, false)],
    }
}

/// The topology app version `v` sends when joining (topology epoch `v`).
fn topology(v: i32) -> rq::Topology {
    let info = |name: &str| rq::TopicInfo {
        name: k(name),
        ..Default::default()
    };
    let subtopologies = subs(v)
        .into_iter()
        .map(|(id, stateful, sink)| match id {
            "0" => rq::Subtopology {
                subtopology_id: k(id),
                source_topics: vec![k(SRC_A)],
                state_changelog_topics: if stateful { vec![info(CL_0)] } else { vec![] },
                repartition_sink_topics: if sink { vec![k(REP)] } else { vec![] },
                ..Default::default()
            },
            "1" => rq::Subtopology {
                subtopology_id: k(id),
                repartition_source_topics: vec![info(REP)],
                ..Default::default()
            },
            _ => rq::Subtopology {
                subtopology_id: k(id),
                source_topics: vec![k(SRC_B)],
                state_changelog_topics: vec![info(CL_2)],
                ..Default::default()
            },
        })
        .collect();
    rq::Topology {
        epoch: v,
        subtopologies,
        ..Default::default()
    }
}

/// The external source topics of version `v`.
fn sources(v: i32) -> BTreeSet<&'static str> {
    subs(v)
        .into_iter()
        .filter_map(|(id, _, _)| match id {
            "0" => Some(SRC_A),
            "2" => Some(SRC_B),
            _ => None,
        })
        .collect()
}

/// The internal topics of version `v` with the partition counts the coordinator must choose
/// (changelogs: their subtopology's task count; app-rep: derived from src-a).
fn internals(v: i32, a: i32, b: i32) -> BTreeMap<&'static str, i32> {
    let mut out = BTreeMap::new();
    for (id, stateful, sink) in subs(v) {
        match id {
            "0" => {
                if stateful {
                    out.insert(CL_0, a);
                }
                if sink {
                    out.insert(REP, a);
                }
            }
            "2" => {
                out.insert(CL_2, b);
            }
            _ => {}
        }
    }
    out
}

/// The tasks of version `v`: subtopology → (task count, stateful).
fn expected_tasks(v: i32, a: i32, b: i32) -> BTreeMap<&'static str, (i32, bool)> {
    subs(v)
        .into_iter()
        .map(|(id, stateful, _)| (id, (if id == "2" { b } else { a }, stateful)))
        .collect()
}

/// Kafka's `summarizeTopics` (at most three names, then ` and K additional topics`).
fn summarize<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let mut s = names.iter().take(3).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(" and {} additional topics", names.len() - 3));
    }
    s
}

/// A response status as (code, detail).
type Status = (i8, String);

/// Parameters of one simulated case.
#[derive(Debug, Clone)]
struct Params {
    /// Client slots (member ids m0..m{n-1}).
    members: usize,
    /// Processes; member `i` runs in process `p{i % processes}`.
    processes: usize,
    /// Clients that join before the first operation.
    initial: usize,
    /// Partitions of src-a (tasks of subtopologies "0" and "1").
    parts_a: i32,
    /// Partitions of src-b (tasks of subtopology "2").
    parts_b: i32,
    /// Which of [`ALL_TOPICS`] exist at the start (bit i = topic i).
    topics_at_start: u8,
    /// Initial `num.standby.replicas`.
    standby: i32,
    /// Whether the standby count is a group override (else the broker default).
    standby_override: bool,
    /// `group.streams.initial.rebalance.delay.ms`.
    delay_ms: i32,
    /// Whether a restarted client comes back under a new member id (else its old one).
    fresh_ids: bool,
    /// Whether clients heartbeat with StreamsGroupHeartbeat v1 (only v1 members get warm-ups).
    v1: bool,
    /// `group.streams.num.warmup.replicas`.
    warmups: i32,
}

impl Params {
    /// Two processes, no standbys, no delay, every source topic present, no internal topic.
    fn basic(members: usize) -> Params {
        Params {
            members,
            processes: members.min(2),
            initial: 0,
            parts_a: 4,
            parts_b: 2,
            topics_at_start: 0b11,
            standby: 0,
            standby_override: false,
            delay_ms: 0,
            fresh_ids: false,
            v1: false,
            warmups: 0,
        }
    }
}

/// One simulated Streams client (a member of one process).
#[derive(Debug, Clone)]
struct Client {
    /// Slot name, e.g. `m3`; the member id adds the incarnation after a fresh restart.
    slot: String,
    /// Current member id.
    id: String,
    incarnation: u32,
    process: String,
    /// Running (heartbeating); a crashed or departed client is not.
    alive: bool,
    /// App version: the topology epoch it joins with.
    version: i32,
    /// The topology epoch of its last successful join (what the group stores for it).
    joined_version: i32,
    /// Member epoch; `None` = must (re)join with epoch 0.
    epoch: Option<i32>,
    /// The tasks it runs: the lists of the last response that carried task lists.
    owned: TasksTuple,
}

/// The simulation: the coordinator, the clients, the topics and the model of what the group
/// must look like.
struct Sim {
    /// The coordinator, its records and their incremental replay.
    h: Harness,
    p: Params,
    clients: Vec<Client>,
    /// Existing topics (name → partitions).
    topics: BTreeMap<String, i32>,
    /// Internal topics the coordinator asked for and the "server" has not created yet.
    pending: BTreeMap<String, i32>,
    /// The newest released app version.
    latest: i32,
    /// Model: the group's topology epoch (`None` before the first join).
    group_topology: Option<i32>,
    /// Model: the configured `num.standby.replicas`.
    standby: i32,
    /// Model: the first member that asked for a shutdown, until the group empties.
    shutdown_requester: Option<String>,
    /// Model: deadline of the initial rebalance delay last armed.
    delay_deadline: Option<i64>,
    /// Model: time of each member's last successful heartbeat (its session started then).
    last_seen: BTreeMap<String, i64>,
    /// Model: each revoking member's rebalance deadline and the epoch it was armed at.
    revoke_timer: BTreeMap<String, (i64, i32)>,
    /// Model of local state (§2.12): (process, subtopology, partition) → restored changelog
    /// offset sum, out of [`END_OFFSET`].
    restored: BTreeMap<(String, String, i32), i64>,
}

/// Every task's changelog end offset sum in the simulation.
const END_OFFSET: i64 = 100;
/// What a standby or warm-up task restores per heartbeat of its member.
const RESTORE_STEP: i64 = 50;
/// `acceptable.recovery.lag` in the simulation.
const ACCEPTABLE_LAG: i64 = 10;

impl Sim {
    fn new(p: Params) -> Sim {
        let mut c = streams_coordinator(
            StreamsGroupConfig {
                initial_rebalance_delay_ms: p.delay_ms,
                num_standby_replicas: if p.standby_override { 0 } else { p.standby },
                num_warmup_replicas: p.warmups,
                acceptable_recovery_lag: ACCEPTABLE_LAG,
                ..StreamsGroupConfig::default()
            },
            1,
        );
        if p.standby_override {
            c.set_streams_group_config(
                G,
                StreamsGroupOverrides {
                    num_standby_replicas: Some(p.standby),
                    ..Default::default()
                },
            )
            .unwrap();
        }
        let clients = (0..p.members)
            .map(|i| Client {
                slot: format!("m{i}"),
                id: format!("m{i}"),
                incarnation: 0,
                process: format!("p{}", i % p.processes),
                alive: false,
                version: 0,
                joined_version: -1,
                epoch: None,
                owned: TasksTuple::default(),
            })
            .collect();
        let mut topics = BTreeMap::new();
        for (i, t) in ALL_TOPICS.iter().enumerate() {
            if p.topics_at_start & (1 << i) != 0 {
                topics.insert(t.to_string(), Self::partitions_of(&p, t));
            }
        }
        let mut s = Sim {
            h: Harness::new(c, vec![], 0).client("streams-client", "10.0.0.1"),
            clients,
            topics,
            pending: BTreeMap::new(),
            latest: 0,
            group_topology: None,
            standby: p.standby,
            shutdown_requester: None,
            delay_deadline: None,
            last_seen: BTreeMap::new(),
            revoke_timer: BTreeMap::new(),
            restored: BTreeMap::new(),
            p,
        };
        s.publish_topics();
        for i in 0..s.p.initial.min(s.p.members) {
            s.step(&Op::Join(i));
        }
        s
    }

    /// The partition count a topic has (or must have, for internal topics) in this case.
    fn partitions_of(p: &Params, topic: &str) -> i32 {
        if topic == SRC_B || topic == CL_2 {
            p.parts_b
        } else {
            p.parts_a
        }
    }

    fn group(&self) -> Option<&StreamsGroup> {
        self.h.c.streams_group(G)
    }

    /// Records coming out of the coordinator: all must be streams records (there is no consumer
    /// group); they are logged and applied to the incremental replay.
    fn absorb(&mut self, records: &[Record]) {
        for r in records {
            assert!(
                matches!(r, Record::Streams(_)),
                "unexpected non-streams record {r:?}"
            );
        }
        self.h.absorb(records);
    }

    /// Sends the topic metadata to the coordinator (D4), as a broker does on every change.
    fn publish_topics(&mut self) {
        let list: Vec<TopicMetadata> = self
            .topics
            .iter()
            .map(|(name, parts)| {
                let idx = ALL_TOPICS.iter().position(|t| t == name).unwrap_or(99);
                TopicMetadata::new(Uuid::from_u128(0x70 + idx as u128), name, *parts)
            })
            .collect();
        let records = self.h.c.set_topics(list, self.h.now);
        self.absorb(&records);
    }

    /// Creates the internal topics the coordinator asked for, as the API layer would.
    fn create_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        self.topics.extend(pending);
        self.publish_topics();
    }

    /// Fires due timers and checks that exactly the members the model says are due were
    /// fenced: those whose session (45 s since their last heartbeat) ran out, and those still
    /// revoking at the epoch their rebalance timer (30 s) was armed with when it ran out.
    fn fire(&mut self) {
        let now = self.h.now;
        let before: BTreeMap<String, (StreamsMemberState, i32)> = self
            .group()
            .map(|g| {
                g.members
                    .values()
                    .map(|m| (m.member_id.clone(), (m.state, m.member_epoch)))
                    .collect()
            })
            .unwrap_or_default();
        let due: BTreeSet<&String> = before
            .iter()
            .filter(|(id, (state, epoch))| {
                let session = self.last_seen.get(*id).expect("member never heartbeated");
                session + SESSION_TIMEOUT_MS <= now
                    || self.revoke_timer.get(*id).is_some_and(|(d, e)| {
                        *d <= now && *state == StreamsMemberState::UnrevokedTasks && epoch == e
                    })
            })
            .map(|(id, _)| id)
            .collect();
        let want: BTreeSet<&String> = before.keys().filter(|id| !due.contains(id)).collect();
        let records = self.h.c.fire_timers(now);
        self.absorb(&records);
        let after: BTreeSet<&String> = self
            .h
            .c
            .streams_group(G)
            .map(|g| g.members.keys().collect())
            .unwrap_or_default();
        assert_eq!(
            after, want,
            "members after the timers at {now} (last heartbeats {:?}, rebalance timers {:?})",
            self.last_seen, self.revoke_timer
        );
        let gone: Vec<String> = due.into_iter().cloned().collect();
        for id in gone {
            self.last_seen.remove(&id);
            self.revoke_timer.remove(&id);
        }
        // Fired rebalance timers are consumed whether or not they fenced.
        self.revoke_timer.retain(|_, (d, _)| *d > now);
    }

    fn request(&self, i: usize, shutdown: bool) -> rq::StreamsGroupHeartbeatRequest {
        let (offsets, ends) = self.offsets(i);
        let cl = &self.clients[i];
        match cl.epoch {
            None => rq::StreamsGroupHeartbeatRequest {
                group_id: k(G),
                member_id: k(&cl.id),
                member_epoch: 0,
                rebalance_timeout_ms: REBALANCE_TIMEOUT_MS,
                topology: Some(topology(cl.version)),
                active_tasks: Some(vec![]),
                standby_tasks: Some(vec![]),
                warmup_tasks: Some(vec![]),
                process_id: Some(k(&cl.process)),
                shutdown_application: shutdown,
                task_offsets: Some(offsets.clone()),
                task_end_offsets: Some(ends.clone()),
                ..Default::default()
            },
            Some(e) => rq::StreamsGroupHeartbeatRequest {
                group_id: k(G),
                member_id: k(&cl.id),
                member_epoch: e,
                rebalance_timeout_ms: -1,
                active_tasks: Some(req_task_ids(&cl.owned.active)),
                standby_tasks: Some(req_task_ids(&cl.owned.standby)),
                warmup_tasks: Some(req_task_ids(&cl.owned.warmup)),
                shutdown_application: shutdown,
                task_offsets: Some(offsets),
                task_end_offsets: Some(ends),
                ..Default::default()
            },
        }
    }

    /// The request context: v1 or v0 as the case says.
    fn ctx(&self) -> RequestContext {
        self.h.ctx(i16::from(self.p.v1))
    }

    /// Client `i`'s TaskOffsets and TaskEndOffsets (§2.12): every task its process has state
    /// for, -2 (running) for its own active tasks.
    fn offsets(&self, i: usize) -> (Vec<rq::TaskOffset>, Vec<rq::TaskOffset>) {
        let cl = &self.clients[i];
        let mut offsets = Vec::new();
        let mut ends = Vec::new();
        for ((proc_id, s, p), o) in &self.restored {
            if *proc_id != cl.process {
                continue;
            }
            let running = cl.owned.contains(TaskRole::Active, s, *p);
            let t = |offset| rq::TaskOffset {
                subtopology_id: k(s),
                partition: *p,
                offset,
                ..Default::default()
            };
            offsets.push(t(if running { -2 } else { *o }));
            ends.push(t(END_OFFSET));
        }
        (offsets, ends)
    }

    /// Client `i`'s local state moves on: its active tasks are current, its standby and
    /// warm-up tasks restore [`RESTORE_STEP`] more.
    fn restore(&mut self, i: usize) {
        let cl = &self.clients[i];
        for (role, s, p) in cl.owned.iter() {
            let key = (cl.process.clone(), s.to_string(), p);
            let o = self.restored.entry(key).or_insert(0);
            *o = match role {
                TaskRole::Active => END_OFFSET,
                _ => (*o + RESTORE_STEP).min(END_OFFSET),
            };
        }
    }

    /// One heartbeat of client `i` (a join when it has no epoch). Returns the output, or `None`
    /// when the client is not running.
    fn heartbeat(&mut self, i: usize, shutdown: bool) -> Option<StreamsHeartbeatOutput> {
        if !self.clients[i].alive {
            return None;
        }
        self.restore(i);
        let req = self.request(i, shutdown);
        let before = self.group().cloned();
        let out = self
            .h
            .c
            .streams_group_heartbeat(&self.ctx(), &req, self.h.now);
        self.absorb(&out.records);
        let id = self.clients[i].id.clone();
        let joining = req.member_epoch == 0;
        if out.response.error_code != 0 {
            self.check_error(i, &req, before.as_ref(), &out);
            let cl = &mut self.clients[i];
            cl.epoch = None;
            cl.owned = TasksTuple::default();
            if out.response.error_code == ErrorCode::StreamsTopologyFenced.code() {
                // The operator redeploys the stale instance with the current release.
                cl.version = self.latest;
            }
            return Some(out);
        }
        // Model updates the response must already reflect.
        if joining {
            let v = self.clients[i].version;
            self.clients[i].joined_version = v;
            if self.group_topology.is_none_or(|e| v > e) {
                self.group_topology = Some(v);
            }
            let was_empty = before.as_ref().is_none_or(|g| g.members.is_empty());
            if was_empty && self.p.delay_ms > 0 {
                self.delay_deadline = Some(self.h.now + i64::from(self.p.delay_ms));
            }
        }
        if shutdown && self.shutdown_requester.is_none() {
            self.shutdown_requester = Some(id.clone());
        }
        self.check_response(i, &req, before.as_ref(), &out);
        // Timers (§2.4 steps 8 and 9): the session restarts; the rebalance timer is armed when
        // the member enters or stays in UNREVOKED_TASKS with a new current assignment, and
        // disarmed when it leaves that state.
        self.last_seen.insert(id.clone(), self.h.now);
        let m = &self.h.c.streams_group(G).expect("group").members[&id];
        if m.state == StreamsMemberState::UnrevokedTasks {
            let written = out.records.iter().any(|r| {
                matches!(r, Record::Streams(StreamsRecord::CurrentMemberAssignment(k, Some(_))) if *k.member_id == *id)
            });
            if written {
                let deadline = self.h.now + i64::from(REBALANCE_TIMEOUT_MS);
                self.revoke_timer
                    .insert(id.clone(), (deadline, m.member_epoch));
            }
        } else {
            self.revoke_timer.remove(&id);
        }
        let r = &out.response;
        let cl = &mut self.clients[i];
        cl.epoch = Some(r.member_epoch);
        if let (Some(a), Some(s), Some(w)) = (&r.active_tasks, &r.standby_tasks, &r.warmup_tasks) {
            cl.owned = TasksTuple {
                active: resp_tasks(a),
                standby: resp_tasks(s),
                warmup: resp_tasks(w),
            };
        }
        for t in &out.topics_to_create {
            self.pending.insert(t.name.clone(), t.num_partitions);
        }
        Some(out)
    }

    /// A failed heartbeat wrote nothing, and failed for a reason a well-behaved client can meet:
    /// UNKNOWN_MEMBER_ID after its member expired, or STREAMS_TOPOLOGY_FENCED when it rejoins
    /// with a topology older than the group's (D1). Anything else is a coordinator bug.
    fn check_error(
        &self,
        i: usize,
        req: &rq::StreamsGroupHeartbeatRequest,
        before: Option<&StreamsGroup>,
        out: &StreamsHeartbeatOutput,
    ) {
        let cl = &self.clients[i];
        let r = &out.response;
        let msg = r.error_message.as_deref().unwrap_or("").to_string();
        assert!(out.records.is_empty(), "failed heartbeat wrote records");
        assert!(out.topics_to_create.is_empty());
        assert_eq!(self.group(), before, "failed heartbeat changed the group");
        match ErrorCode::from_code(r.error_code) {
            Some(ErrorCode::UnknownMemberId) => {
                assert_ne!(req.member_epoch, 0, "UNKNOWN_MEMBER_ID on a join");
                assert!(
                    before.is_some_and(|g| !g.members.contains_key(&cl.id)),
                    "UNKNOWN_MEMBER_ID for an existing member {}",
                    cl.id
                );
                assert_eq!(
                    msg,
                    format!("Member {} is not a member of group {G}.", cl.id)
                );
            }
            Some(ErrorCode::StreamsTopologyFenced) => {
                let eg = before.map_or(-1, StreamsGroup::topology_epoch);
                assert_eq!(
                    req.member_epoch, 0,
                    "STREAMS_TOPOLOGY_FENCED outside a join"
                );
                assert!(
                    cl.version < eg,
                    "fenced topology {} >= group's {eg}",
                    cl.version
                );
                assert_eq!(
                    msg,
                    format!(
                        "Topology epoch {} is older than the group's topology epoch {eg}.",
                        cl.version
                    )
                );
            }
            _ => panic!(
                "unexpected error {} ({msg}) for {} (epoch {}, version {}) at {}",
                r.error_code, cl.id, req.member_epoch, cl.version, self.h.now
            ),
        }
    }

    /// The statuses and internal topics the model expects for the group's topology now.
    fn expected_topic_status(&self) -> (Option<Status>, Vec<(String, i32)>) {
        let Some(v) = self.group_topology else {
            return (None, vec![]);
        };
        let missing: Vec<&str> = sources(v)
            .into_iter()
            .filter(|t| !self.topics.contains_key(*t))
            .collect();
        if !missing.is_empty() {
            let detail = format!("Source topics {} are missing.", summarize(missing));
            return (Some((status_codes::MISSING_SOURCE_TOPICS, detail)), vec![]);
        }
        let to_create: Vec<(String, i32)> = internals(v, self.p.parts_a, self.p.parts_b)
            .into_iter()
            .filter(|(t, _)| !self.topics.contains_key(*t))
            .map(|(t, n)| (t.to_string(), n))
            .collect();
        if to_create.is_empty() {
            return (None, vec![]);
        }
        let detail = format!(
            "Internal topics are missing: {}",
            summarize(to_create.iter().map(|(t, _)| t.as_str()))
        );
        (
            Some((status_codes::MISSING_INTERNAL_TOPICS, detail)),
            to_create,
        )
    }

    /// A successful (non-leave) response agrees with the committed state and the model.
    fn check_response(
        &self,
        i: usize,
        req: &rq::StreamsGroupHeartbeatRequest,
        before: Option<&StreamsGroup>,
        out: &StreamsHeartbeatOutput,
    ) {
        let cl = &self.clients[i];
        let r = &out.response;
        let g = self.group().expect("group after a successful heartbeat");
        let m = g
            .members
            .get(&cl.id)
            .expect("member after a successful heartbeat");
        assert_eq!(&*r.member_id, cl.id);
        assert_eq!(
            r.member_epoch, m.member_epoch,
            "response epoch != stored epoch"
        );
        assert_eq!(r.heartbeat_interval_ms, 5000);
        assert_eq!(m.process_id, cl.process);
        assert_eq!(m.topology_epoch, cl.joined_version);
        assert_eq!(Some(g.topology_epoch()), self.group_topology);
        // Task lists: all three or none; present iff joining or the assigned tasks changed; when
        // present, exactly the stored assigned tasks (never the pending revocations).
        let lists = [&r.active_tasks, &r.standby_tasks, &r.warmup_tasks];
        let present = lists.iter().filter(|l| l.is_some()).count();
        assert!(
            present == 0 || present == 3,
            "some task lists null, some not"
        );
        let prev = before
            .and_then(|g| g.members.get(&cl.id))
            .map(|m| m.assigned.clone());
        let changed = prev.as_ref() != Some(&m.assigned);
        assert_eq!(
            present == 3,
            req.member_epoch == 0 || changed,
            "task lists present={} but join={} changed={changed}",
            present == 3,
            req.member_epoch == 0
        );
        if let (Some(a), Some(s), Some(w)) = (&r.active_tasks, &r.standby_tasks, &r.warmup_tasks) {
            assert_eq!(resp_tasks(a), m.assigned.active);
            assert_eq!(resp_tasks(s), m.assigned.standby);
            assert_eq!(resp_tasks(w), m.assigned.warmup);
            assert!(
                self.p.v1 || w.is_empty(),
                "warm-up tasks sent to a v0 member"
            );
        }
        // Statuses, in Kafka's order: STALE_TOPOLOGY, ASSIGNMENT_DELAYED, topic status,
        // SHUTDOWN_APPLICATION.
        let statuses: Vec<Status> = r
            .status
            .as_ref()
            .expect("Status is always a list")
            .iter()
            .map(|s| (s.status_code, s.status_detail.to_string()))
            .collect();
        let delayed = statuses
            .iter()
            .any(|(c, _)| *c == status_codes::ASSIGNMENT_DELAYED);
        if delayed {
            assert!(
                self.delay_deadline.is_some_and(|d| d > self.h.now),
                "ASSIGNMENT_DELAYED outside the delay (deadline {:?}, now {})",
                self.delay_deadline,
                self.h.now
            );
        }
        let mut want = Vec::new();
        if m.topology_epoch < g.topology_epoch() {
            want.push((
                status_codes::STALE_TOPOLOGY,
                format!(
                    "The member's topology epoch {} is behind the group's topology epoch {}.",
                    m.topology_epoch,
                    g.topology_epoch()
                ),
            ));
        }
        if delayed {
            want.push((
                status_codes::ASSIGNMENT_DELAYED,
                "Assignment delayed due to the configured initial rebalance delay.".to_string(),
            ));
        }
        let (topic_status, to_create) = self.expected_topic_status();
        want.extend(topic_status);
        if let Some(who) = &self.shutdown_requester {
            want.push((
                status_codes::SHUTDOWN_APPLICATION,
                format!("Streams group member {who} encountered a fatal error and requested a shutdown for the entire application."),
            ));
        }
        assert_eq!(statuses, want, "statuses of {}", cl.id);
        let created: Vec<(String, i32)> = out
            .topics_to_create
            .iter()
            .map(|t| {
                assert_eq!(t.replication_factor, -1);
                assert!(t.configs.is_empty());
                (t.name.clone(), t.num_partitions)
            })
            .collect();
        assert_eq!(created, to_create, "topics to create");
    }

    /// A -1 leave (with or without a shutdown request): the member and its tasks are gone.
    fn leave(&mut self, i: usize, shutdown: bool) {
        if !self.clients[i].alive {
            return;
        }
        let id = self.clients[i].id.clone();
        let req = rq::StreamsGroupHeartbeatRequest {
            group_id: k(G),
            member_id: k(&id),
            member_epoch: -1,
            rebalance_timeout_ms: -1,
            shutdown_application: shutdown,
            ..Default::default()
        };
        let before = self.group().cloned();
        let out = self
            .h
            .c
            .streams_group_heartbeat(&self.ctx(), &req, self.h.now);
        self.absorb(&out.records);
        let r = &out.response;
        let existed = before.as_ref().is_some_and(|g| g.members.contains_key(&id));
        if existed {
            assert_eq!(r.error_code, 0, "leave failed: {:?}", r.error_message);
            assert_eq!(r.member_epoch, -1);
            assert_eq!(r.status.as_deref(), Some(&[][..]));
            assert!(r.active_tasks.is_none());
            let g = self.group().expect("group after leave");
            assert!(
                !g.members.contains_key(&id),
                "member still there after leave"
            );
            assert!(
                !g.targets.contains_key(&id),
                "target still there after leave"
            );
            assert_eq!(
                g.group_epoch,
                before.as_ref().map_or(0, |b| b.group_epoch) + 1
            );
            self.last_seen.remove(&id);
            self.revoke_timer.remove(&id);
            if shutdown && self.shutdown_requester.is_none() {
                self.shutdown_requester = Some(id);
            }
        } else {
            assert_eq!(
                r.error_code,
                ErrorCode::UnknownMemberId.code(),
                "leave of an absent member"
            );
            assert!(out.records.is_empty());
        }
        let cl = &mut self.clients[i];
        cl.alive = false;
        cl.epoch = None;
        cl.owned = TasksTuple::default();
    }

    fn step(&mut self, op: &Op) {
        let n = self.p.members;
        match *op {
            Op::Heartbeat(i) => {
                self.heartbeat(i % n, false);
            }
            Op::Join(i) => {
                let i = i % n;
                if self.clients[i].alive {
                    self.heartbeat(i, false);
                } else {
                    let fresh = self.p.fresh_ids;
                    let latest = self.latest;
                    let cl = &mut self.clients[i];
                    if fresh && cl.joined_version >= 0 {
                        cl.incarnation += 1;
                        cl.id = format!("{}-{}", cl.slot, cl.incarnation);
                    }
                    cl.alive = true;
                    cl.version = latest;
                    cl.epoch = None;
                    cl.owned = TasksTuple::default();
                    self.heartbeat(i, false);
                }
            }
            Op::Leave(i) => self.leave(i % n, false),
            Op::Crash(i) => {
                let cl = &mut self.clients[i % n];
                cl.alive = false;
                cl.epoch = None;
                cl.owned = TasksTuple::default();
            }
            Op::Shutdown { m, leave } => {
                if leave {
                    self.leave(m % n, true);
                } else if self.clients[m % n].epoch.is_some() {
                    self.heartbeat(m % n, true);
                }
            }
            Op::Release => {
                if self.latest < MAX_VERSION && self.group_topology.is_none_or(|e| e == self.latest)
                {
                    self.latest += 1;
                }
            }
            Op::Upgrade(i) => {
                let i = i % n;
                let latest = self.latest;
                let cl = &mut self.clients[i];
                if cl.version < latest {
                    cl.version = latest;
                    if cl.alive {
                        // The instance restarts with the new release: it rejoins with epoch 0
                        // and the new topology, giving up its tasks.
                        cl.epoch = None;
                        cl.owned = TasksTuple::default();
                        self.heartbeat(i, false);
                    }
                }
            }
            Op::AddTopic(t) => {
                let name = [SRC_A, SRC_B][t % 2];
                if !self.topics.contains_key(name) {
                    let parts = Self::partitions_of(&self.p, name);
                    self.topics.insert(name.to_string(), parts);
                    self.publish_topics();
                }
            }
            Op::CreateTopics => self.create_pending(),
            Op::Advance(ms) => {
                self.h.now += ms;
                self.fire();
            }
            Op::SetStandby(s) => {
                self.h
                    .c
                    .set_streams_group_config(
                        G,
                        StreamsGroupOverrides {
                            num_standby_replicas: Some(s),
                            ..Default::default()
                        },
                    )
                    .unwrap();
                self.standby = s;
            }
        }
        self.after_step();
    }

    /// Model bookkeeping after a step (the shutdown request is forgotten when the group
    /// empties), then the invariants.
    fn after_step(&mut self) {
        if self.group().is_some_and(|g| g.members.is_empty()) {
            self.shutdown_requester = None;
        }
        self.check();
    }

    /// A heartbeat of a running client as a step of its own, returning its output.
    fn hb(&mut self, i: usize) -> StreamsHeartbeatOutput {
        let out = self.heartbeat(i, false).expect("running client");
        self.after_step();
        out
    }

    /// Client `i` moves to the newest release and rejoins with it; returns the join's output.
    fn upgrade(&mut self, i: usize) -> StreamsHeartbeatOutput {
        let latest = self.latest;
        let cl = &mut self.clients[i];
        assert!(cl.alive && cl.version < latest);
        cl.version = latest;
        cl.epoch = None;
        cl.owned = TasksTuple::default();
        self.hb(i)
    }

    /// The invariants that hold after every step (see the module documentation).
    fn check(&self) {
        // 3. State equals the replay of the records, and the derived ownership map is what the
        // members imply.
        // (The Harness compared the state with the replay after every call.)
        let Some(g) = self.group() else {
            assert!(self.clients.iter().all(|c| c.joined_version < 0));
            return;
        };
        let mut owners = TaskOwners::new();
        // 1. Active tasks: at most one member per task (assigned ∪ pending revocation).
        let mut active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
        // 2. Per process: at most one copy of a task over all its members and roles; one member
        // changing a task's role in place (§2.5) may hold it in its assignment and in another
        // role pending revocation.
        let mut per_process: BTreeMap<(&str, &str, i32), (&str, TaskRole)> = BTreeMap::new();
        // 5. Warm-ups (§2.12): only v1 members hold them, and the targets hold at most
        // `num.warmup.replicas`.
        let warm: usize = g
            .targets
            .values()
            .map(|t| {
                t.get(TaskRole::Warmup)
                    .values()
                    .map(BTreeSet::len)
                    .sum::<usize>()
            })
            .sum();
        assert!(
            warm <= usize::try_from(self.p.warmups).unwrap_or(0),
            "{warm} warm-up tasks in the targets, num.warmup.replicas {}: {g:#?}",
            self.p.warmups
        );
        for m in g.members.values() {
            // 4. Epochs.
            assert!(
                m.member_epoch <= g.group_epoch,
                "member {} epoch {} > group epoch {}",
                m.member_id,
                m.member_epoch,
                g.group_epoch
            );
            if m.state != StreamsMemberState::UnrevokedTasks {
                assert!(
                    m.pending_revocation.is_empty(),
                    "{} pending while not revoking",
                    m.member_id
                );
            }
            let mut mine: BTreeSet<(&str, i32)> = BTreeSet::new();
            for (pending, tasks) in [(false, &m.assigned), (true, &m.pending_revocation)] {
                if !self.p.v1 {
                    assert!(tasks.warmup.is_empty(), "warm-up tasks held by a v0 member");
                }
                for (role, s, p) in tasks.iter() {
                    *owners
                        .entry((role, s.to_string(), p))
                        .or_default()
                        .entry(m.process_id.clone())
                        .or_insert(0) += 1;
                    if role == TaskRole::Active {
                        if let Some(other) = active.insert((s, p), &m.member_id) {
                            panic!("task {s}_{p} active in {other} and {}: {g:#?}", m.member_id);
                        }
                    }
                    let key = (m.process_id.as_str(), s, p);
                    let first_of_member = mine.insert((s, p));
                    if !first_of_member && pending {
                        continue;
                    }
                    if let Some((other, r)) = per_process.insert(key, (&m.member_id, role)) {
                        panic!(
                            "process {} holds task {s}_{p} twice: {other} as {r:?}, {} as {role:?}: {g:#?}",
                            m.process_id, m.member_id
                        );
                    }
                }
            }
        }
        assert_eq!(g.task_owners, owners, "derived task owners");
        assert!(
            g.assignment_epoch <= g.group_epoch,
            "assignment epoch > group epoch"
        );
        assert_eq!(
            Some(g.topology_epoch()),
            self.group_topology,
            "group topology epoch"
        );
        // Client side: a running member's tasks are exactly what the server says it has
        // assigned (it revoked pending tasks when the response came), at the server's epoch.
        for cl in self.clients.iter().filter(|c| c.alive) {
            let (Some(e), Some(m)) = (cl.epoch, g.members.get(&cl.id)) else {
                continue;
            };
            assert_eq!(e, m.member_epoch, "client {} epoch", cl.id);
            assert_eq!(cl.owned, m.assigned, "client {} tasks != server's", cl.id);
            assert_eq!(cl.joined_version, m.topology_epoch);
        }
    }

    /// Whether the group has converged: `Stable`, exactly the running clients as members, each
    /// client running its stored assignment, every task of the ready topology active once and
    /// every stateful task with `min(standbys, processes - 1)` standbys.
    fn converged(&self) -> bool {
        let live: BTreeSet<&str> = self
            .clients
            .iter()
            .filter(|c| c.alive)
            .map(|c| c.id.as_str())
            .collect();
        let Some(g) = self.group() else {
            return live.is_empty();
        };
        let members: BTreeSet<&str> = g.members.keys().map(String::as_str).collect();
        if members != live {
            return false;
        }
        if live.is_empty() {
            return g.state == StreamsGroupState::Empty;
        }
        if g.state != StreamsGroupState::Stable {
            return false;
        }
        // Warm-ups still catching up (§2.12) hold tasks back from their final owners.
        if g.targets.values().any(|t| !t.warmup.is_empty()) {
            return false;
        }
        // A changed standby count takes effect at the next heartbeat (§2.4 step 4).
        let configs =
            BTreeMap::from([(NUM_STANDBY_REPLICAS.to_string(), self.standby.to_string())]);
        if g.last_assignment_configs != configs {
            return false;
        }
        let all_current = self.clients.iter().filter(|c| c.alive).all(|c| {
            c.epoch == Some(g.members[&c.id].member_epoch) && c.owned == g.members[&c.id].assigned
        });
        if !all_current {
            return false;
        }
        // Stable: the topology is ready and everything is assigned as promised.
        let v = g.topology_epoch();
        let want = expected_tasks(v, self.p.parts_a, self.p.parts_b);
        let configured = self
            .h
            .c
            .streams_configured_topology(G)
            .expect("configured topology of a stable group");
        assert!(configured.is_ready());
        assert_eq!(configured.topology_epoch, v);
        let got: BTreeMap<&str, (i32, bool)> = configured
            .subtopologies
            .as_ref()
            .expect("subtopologies of a ready topology")
            .iter()
            .map(|(id, s)| (id.as_str(), (s.num_tasks, s.is_stateful())))
            .collect();
        assert_eq!(got, want, "configured subtopologies of version {v}");
        let processes: BTreeSet<&str> = g.members.values().map(|m| m.process_id.as_str()).collect();
        let copies = usize::try_from(self.standby)
            .unwrap_or(0)
            .min(processes.len() - 1);
        for (s, (n, stateful)) in &want {
            for p in 0..*n {
                let act = g
                    .members
                    .values()
                    .filter(|m| m.assigned.contains(TaskRole::Active, s, p))
                    .count();
                assert_eq!(
                    act, 1,
                    "task {s}_{p} active {act} times in a stable group: {g:#?}"
                );
                let stb = g
                    .members
                    .values()
                    .filter(|m| m.assigned.contains(TaskRole::Standby, s, p))
                    .count();
                let want_stb = if *stateful { copies } else { 0 };
                assert_eq!(
                    stb, want_stb,
                    "standbys of {s}_{p} (standby {}): {g:#?}",
                    self.standby
                );
            }
        }
        for m in g.members.values() {
            for (_, s, p) in m.assigned.iter() {
                assert!(
                    want.get(s).is_some_and(|(n, _)| p < *n),
                    "{} holds {s}_{p}, not a task of version {v}",
                    m.member_id
                );
            }
        }
        true
    }

    /// Faults stop: every source topic appears and requested internal topics get created; the
    /// running clients heartbeat every 5 s until the crashed clients' members expired; then at
    /// most [`CONVERGE_ROUNDS`] rounds of one heartbeat per running client must converge.
    /// Returns the number of rounds used.
    fn settle(&mut self) -> usize {
        for t in [SRC_A, SRC_B] {
            if !self.topics.contains_key(t) {
                let parts = Self::partitions_of(&self.p, t);
                self.topics.insert(t.to_string(), parts);
            }
        }
        self.publish_topics();
        self.converge()
    }

    /// [`Sim::settle`] without adding the source topics: requested internal topics are created,
    /// crashed members expire, then at most [`CONVERGE_ROUNDS`] rounds must converge.
    fn converge(&mut self) -> usize {
        self.create_pending();
        self.check();
        // The client set becomes stable: members of crashed clients expire (session timeout
        // 45 s) while the running ones heartbeat every 5 s.
        for attempt in 0..=12 {
            let live: BTreeSet<String> = self
                .clients
                .iter()
                .filter(|c| c.alive)
                .map(|c| c.id.clone())
                .collect();
            if self
                .group()
                .is_none_or(|g| g.members.keys().all(|m| live.contains(m)))
            {
                break;
            }
            assert!(
                attempt < 12,
                "members of stopped clients never expired: {:#?}",
                self.group()
            );
            for i in 0..self.clients.len() {
                self.heartbeat(i, false);
                self.create_pending();
                self.after_step();
            }
            self.h.now += 5_000;
            self.fire();
            self.after_step();
        }
        // Each warm-up needs a few heartbeats to catch up, and at most `warmups` run at once.
        let rounds = if self.p.v1 && self.p.warmups > 0 {
            CONVERGE_ROUNDS * 6
        } else {
            CONVERGE_ROUNDS
        };
        for round in 0..=rounds {
            if self.converged() {
                return round;
            }
            assert!(
                round < rounds,
                "not converged after {rounds} rounds: clients {:#?}, group {:#?}",
                self.clients,
                self.group()
            );
            for i in 0..self.clients.len() {
                self.heartbeat(i, false);
                self.create_pending();
                self.after_step();
            }
            self.h.now += ROUND_MS;
            self.fire();
            self.after_step();
        }
        unreachable!()
    }

    /// StreamsGroupDescribe shows the committed state: state name, epochs, topology epoch, and
    /// per member its epoch, topology epoch, process, assignment and target.
    fn check_describe(&self) {
        let resp = self.h.c.streams_group_describe(
            &self.h.ctx(0),
            &StreamsGroupDescribeRequest {
                group_ids: vec![k(G)],
                ..Default::default()
            },
        );
        let [d] = &resp.groups[..] else {
            panic!("one group described: {resp:?}")
        };
        let Some(g) = self.group() else {
            assert_eq!(d.error_code, ErrorCode::GroupIdNotFound.code());
            return;
        };
        assert_eq!(d.error_code, 0);
        assert_eq!(&*d.group_state, g.state.as_str());
        assert_eq!(d.group_epoch, g.group_epoch);
        assert_eq!(d.assignment_epoch, g.assignment_epoch);
        assert_eq!(d.topology.as_ref().map(|t| t.epoch), self.group_topology);
        let tasks = |l: &[ds::TaskIds]| -> TaskSet {
            l.iter()
                .map(|t| (t.subtopology_id.to_string(), t.partitions.iter().collect()))
                .collect()
        };
        let tuple = |a: &ds::Assignment| TasksTuple {
            active: tasks(&a.active_tasks),
            standby: tasks(&a.standby_tasks),
            warmup: tasks(&a.warmup_tasks),
        };
        let ids: Vec<&str> = d.members.iter().map(|m| &*m.member_id).collect();
        let want: Vec<&str> = g.members.keys().map(String::as_str).collect();
        assert_eq!(ids, want, "described members");
        for dm in &d.members {
            let m = &g.members[&*dm.member_id];
            assert_eq!(dm.member_epoch, m.member_epoch);
            assert_eq!(dm.topology_epoch, m.topology_epoch);
            assert_eq!(&*dm.process_id, m.process_id);
            assert_eq!(tuple(&dm.assignment), m.assigned);
            let target = g.targets.get(&m.member_id).cloned().unwrap_or_default();
            assert_eq!(tuple(&dm.target_assignment), target);
        }
    }

    /// The full replay of every record equals the coordinator's state.
    fn check_full_replay(&self) {
        assert_eq!(&replay(&self.h.log), self.h.c.groups(), "full replay");
    }
}

/// One simulated event. Client indexes are taken modulo the case's member count.
#[derive(Debug, Clone)]
enum Op {
    /// A running client heartbeats (joins if it must).
    Heartbeat(usize),
    /// A stopped client starts (with the newest release) and joins; a running one heartbeats.
    Join(usize),
    /// A running client leaves with epoch -1.
    Leave(usize),
    /// A running client dies silently; its session expires later.
    Crash(usize),
    /// A running client asks for an application shutdown (heartbeat or leave).
    Shutdown { m: usize, leave: bool },
    /// A new app version (topology epoch + 1) is released, once the group runs the previous one.
    Release,
    /// A client moves to the newest release (rejoining with its topology if running).
    Upgrade(usize),
    /// A source topic (src-a or src-b) appears.
    AddTopic(usize),
    /// The internal topics asked for are created.
    CreateTopics,
    /// Time passes; due timers fire.
    Advance(i64),
    /// The group's `num.standby.replicas` override changes.
    SetStandby(i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0..MAX_MEMBERS).prop_map(Op::Heartbeat),
        4 => (0..MAX_MEMBERS).prop_map(Op::Join),
        1 => (0..MAX_MEMBERS).prop_map(Op::Leave),
        1 => (0..MAX_MEMBERS).prop_map(Op::Crash),
        1 => (0..MAX_MEMBERS, any::<bool>()).prop_map(|(m, leave)| Op::Shutdown { m, leave }),
        1 => Just(Op::Release),
        3 => (0..MAX_MEMBERS).prop_map(Op::Upgrade),
        1 => (0..2usize).prop_map(Op::AddTopic),
        2 => Just(Op::CreateTopics),
        3 => (100i64..6_000).prop_map(Op::Advance),
        1 => (6_000i64..=60_000).prop_map(Op::Advance),
        1 => (0..=2i32).prop_map(Op::SetStandby),
    ]
}

fn params() -> impl Strategy<Value = Params> {
    (
        (1..=MAX_MEMBERS, 1..=4usize, 0..=MAX_MEMBERS),
        (1..=4i32, 1..=3i32, any::<u8>()),
        (0..=2i32, any::<bool>()),
        prop_oneof![Just(0), Just(1_500), Just(3_000)],
        any::<bool>(),
        (any::<bool>(), 0..=2i32),
    )
        .prop_map(
            |(
                (members, processes, initial),
                (parts_a, parts_b, mask),
                (standby, over),
                delay,
                fresh,
                (v1, warmups),
            )| {
                Params {
                    members,
                    processes: processes.min(members),
                    initial: initial.min(members),
                    parts_a,
                    parts_b,
                    // Source topics present with probability 3/4 each, internal ones 1/2.
                    topics_at_start: mask | ((mask >> 5) & 0b11),
                    standby,
                    standby_override: over,
                    delay_ms: delay,
                    fresh_ids: fresh,
                    v1,
                    warmups,
                }
            },
        )
}

fn run(p: Params, ops: Vec<Op>) {
    let mut s = Sim::new(p);
    for op in &ops {
        s.step(op);
    }
    s.settle();
    s.check_describe();
    s.check_full_replay();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn simulation(p in params(), ops in proptest::collection::vec(op(), 0..=40)) {
        run(p, ops);
    }
}

// ---------------------------------------------------------------------------------------------
// Deterministic rollout scenarios (docs/coordinator.md, D1).

/// Whether `t` holds a task of subtopology `sub`, in any role.
fn has_sub(t: &TasksTuple, sub: &str) -> bool {
    TaskRole::ALL.iter().any(|r| t.get(*r).contains_key(sub))
}

/// A two-process group on topology epoch 0 rolls onto epoch 1 (subtopology "1" removed, "2"
/// added), one member at a time; the stale member is told so, loses the tasks of the removed
/// subtopology, never shares an active task, and the group converges on the new topology.
#[test]
fn rollout_member_by_member() {
    let mut s = Sim::new(Params {
        topics_at_start: 0b1_1111,
        ..Params::basic(2)
    });
    s.step(&Op::Join(0));
    s.step(&Op::Join(1));
    s.settle();
    let g = s.group().unwrap();
    assert_eq!(g.topology_epoch(), 0);
    assert_eq!(g.state, StreamsGroupState::Stable);
    // 4 tasks each of "0" and "1", two processes.
    assert_eq!(
        g.members["m0"]
            .assigned
            .active
            .values()
            .map(BTreeSet::len)
            .sum::<usize>(),
        4
    );
    assert_eq!(
        g.members["m1"]
            .assigned
            .active
            .values()
            .map(BTreeSet::len)
            .sum::<usize>(),
        4
    );
    assert!(
        has_sub(&s.clients[1].owned, "1"),
        "m1 should run tasks of subtopology 1"
    );

    // m0 rolls onto version 1.
    s.step(&Op::Release);
    assert_eq!(s.latest, 1);
    let out = s.upgrade(0);
    assert_eq!(out.response.error_code, 0);
    let codes: Vec<i8> = out
        .response
        .status
        .as_ref()
        .unwrap()
        .iter()
        .map(|x| x.status_code)
        .collect();
    assert!(
        !codes.contains(&status_codes::STALE_TOPOLOGY),
        "the upgraded member is not stale"
    );
    let g = s.group().unwrap();
    assert_eq!(g.topology_epoch(), 1);
    assert_eq!(g.members["m0"].topology_epoch, 1);
    assert_eq!(g.members["m1"].topology_epoch, 0);
    // Every target is computed from the new topology.
    for t in g.targets.values() {
        assert!(!has_sub(t, "1"), "target with a removed subtopology: {t:?}");
    }

    // m1 keeps heartbeating with the old topology and its old tasks.
    let owned_before = s.clients[1].owned.clone();
    let out = s.hb(1);
    assert_eq!(
        out.response.error_code, 0,
        "{:?}",
        out.response.error_message
    );
    let stale = out.response.status.as_ref().unwrap()[0].clone();
    assert_eq!(stale.status_code, status_codes::STALE_TOPOLOGY);
    assert_eq!(
        &*stale.status_detail,
        "The member's topology epoch 0 is behind the group's topology epoch 1."
    );
    // Its tasks of the removed subtopology are revoked (pending until it confirms).
    let m1 = &s.group().unwrap().members["m1"];
    assert!(!has_sub(&m1.assigned, "1"));
    assert_eq!(m1.state, StreamsMemberState::UnrevokedTasks);
    assert_eq!(
        m1.pending_revocation.active.get("1"),
        owned_before.active.get("1")
    );
    assert!(
        !has_sub(&s.clients[1].owned, "1"),
        "m1 was told to drop subtopology 1"
    );
    // A few more heartbeats of both: still stale, never a task active twice (checked in step),
    // and the revocation completes.
    for _ in 0..3 {
        s.step(&Op::Heartbeat(1));
        s.step(&Op::Heartbeat(0));
    }
    let m1 = &s.group().unwrap().members["m1"];
    assert!(m1.pending_revocation.is_empty());
    assert!(!has_sub(&m1.assigned, "1"));

    // m1 rolls onto version 1: the group converges on the new topology.
    let out = s.upgrade(1);
    let codes: Vec<i8> = out
        .response
        .status
        .as_ref()
        .unwrap()
        .iter()
        .map(|x| x.status_code)
        .collect();
    assert!(!codes.contains(&status_codes::STALE_TOPOLOGY));
    s.settle();
    let g = s.group().unwrap();
    assert_eq!(g.state, StreamsGroupState::Stable);
    let mut all = BTreeSet::new();
    for m in g.members.values() {
        assert_eq!(m.topology_epoch, 1);
        for (s, ps) in &m.assigned.active {
            all.extend(ps.iter().map(|p| (s.clone(), *p)));
        }
    }
    let want: BTreeSet<(String, i32)> = (0..4)
        .map(|p| ("0".to_string(), p))
        .chain((0..2).map(|p| ("2".to_string(), p)))
        .collect();
    assert_eq!(all, want);
    s.check_full_replay();
}

/// A rollout onto a topology whose new source topic does not exist yet: the group is not ready
/// (every target empty, MISSING_SOURCE_TOPICS to both, STALE_TOPOLOGY to the stale one); once the
/// topic appears and the internal topics asked for are created, the group converges with the
/// stale member still stale but running tasks of the new topology.
#[test]
fn rollout_waits_for_missing_source_topic() {
    let mut s = Sim::new(Params {
        topics_at_start: 0b1_0101, // src-a, app-0-changelog, app-rep; no src-b, no app-2-changelog
        standby: 1,
        ..Params::basic(2)
    });
    s.step(&Op::Join(0));
    s.step(&Op::Join(1));
    s.converge();
    s.step(&Op::Release);
    s.upgrade(0);
    for _ in 0..3 {
        s.step(&Op::Heartbeat(0));
        s.step(&Op::Heartbeat(1));
    }
    let g = s.group().unwrap();
    assert_eq!(g.state, StreamsGroupState::NotReady);
    assert!(
        g.members.values().all(|m| m.assigned.is_empty()),
        "tasks assigned while not ready"
    );
    let out = s.hb(1);
    let statuses: Vec<Status> = out
        .response
        .status
        .unwrap()
        .iter()
        .map(|x| (x.status_code, x.status_detail.to_string()))
        .collect();
    assert_eq!(
        statuses,
        vec![
            (
                status_codes::STALE_TOPOLOGY,
                "The member's topology epoch 0 is behind the group's topology epoch 1.".to_string()
            ),
            (
                status_codes::MISSING_SOURCE_TOPICS,
                "Source topics src-b are missing.".to_string()
            ),
        ]
    );
    s.step(&Op::AddTopic(1));
    let out = s.hb(0);
    assert_eq!(
        out.topics_to_create
            .iter()
            .map(|t| (t.name.as_str(), t.num_partitions))
            .collect::<Vec<_>>(),
        vec![(CL_2, 2)]
    );
    s.settle();
    let g = s.group().unwrap();
    assert_eq!(g.members["m1"].topology_epoch, 0, "m1 never rejoined");
    assert!(
        !g.members["m1"].assigned.is_empty(),
        "a stale member still runs tasks"
    );
    let out = s.hb(1);
    assert_eq!(
        out.response.status.unwrap()[0].status_code,
        status_codes::STALE_TOPOLOGY
    );
    s.check_full_replay();
}

/// Topology-epoch errors of D1 write nothing: a stale member that expired and rejoins with its
/// old topology is fenced (132) and, redeployed, joins with the new one; a join two epochs ahead
/// is refused (131).
#[test]
fn rollout_fences_old_topology_and_refuses_skipping() {
    let mut s = Sim::new(Params {
        topics_at_start: 0b1_1111,
        ..Params::basic(2)
    });
    s.step(&Op::Join(0));
    s.step(&Op::Join(1));
    s.settle();
    s.step(&Op::Release);
    s.upgrade(0);
    // m1 stops heartbeating long enough to expire; m0 stays alive.
    for _ in 0..10 {
        s.h.now += 5_000;
        s.fire();
        s.step(&Op::Heartbeat(0));
    }
    assert!(!s.group().unwrap().members.contains_key("m1"), "m1 expired");
    let out = s.hb(1);
    assert_eq!(out.response.error_code, ErrorCode::UnknownMemberId.code());
    // m1 rejoins with its old topology (version 0): fenced.
    s.clients[1].version = 0;
    let out = s.hb(1);
    assert_eq!(
        out.response.error_code,
        ErrorCode::StreamsTopologyFenced.code()
    );
    assert_eq!(
        out.response.error_message.as_deref(),
        Some("Topology epoch 0 is older than the group's topology epoch 1.")
    );
    assert_eq!(
        s.clients[1].version, 1,
        "redeployed with the current release"
    );
    s.check();
    // A join two epochs ahead is refused and writes nothing.
    let before = s.group().cloned();
    let req = rq::StreamsGroupHeartbeatRequest {
        group_id: k(G),
        member_id: k("m9"),
        member_epoch: 0,
        rebalance_timeout_ms: REBALANCE_TIMEOUT_MS,
        topology: Some(topology(3)),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        process_id: Some(k("p9")),
        ..Default::default()
    };
    let out = s.h.c.streams_group_heartbeat(&s.h.ctx(0), &req, s.h.now);
    assert_eq!(
        out.response.error_code,
        ErrorCode::StreamsInvalidTopologyEpoch.code()
    );
    assert_eq!(
        out.response.error_message.as_deref(),
        Some("Topology epoch 3 is more than one ahead of the group's topology epoch 1.")
    );
    assert!(out.records.is_empty());
    assert_eq!(s.group(), before.as_ref());
    // The redeployed m1 joins with version 1 and the group converges.
    s.settle();
    let g = s.group().unwrap();
    assert!(g.members.values().all(|m| m.topology_epoch == 1));
    s.check_full_replay();
}

// ---------------------------------------------------------------------------------------------
// Warm-up tasks (docs/coordinator.md §2.12).

fn count(set: &TaskSet) -> usize {
    set.values().map(BTreeSet::len).sum()
}

/// A v1 member joining a process without state gets the stateless half of its share at once;
/// the stateful tasks stay on the previous owner while one warm-up at a time
/// (`num.warmup.replicas` 1) catches up and is then promoted in place, until the group is
/// balanced without warm-ups.
#[test]
fn warmups_catch_up_then_promote() {
    let mut s = Sim::new(Params {
        topics_at_start: 0b1_1111,
        v1: true,
        warmups: 1,
        ..Params::basic(2)
    });
    s.step(&Op::Join(0));
    s.settle();
    assert_eq!(count(&s.group().unwrap().members["m0"].assigned.active), 8);
    // m0 reports its offsets (running tasks) and end offsets.
    s.hb(0);
    s.step(&Op::Join(1));
    let g = s.group().unwrap();
    let t0 = &g.targets["m0"];
    let t1 = &g.targets["m1"];
    // Balanced would be 0_2, 0_3, 1_2, 1_3 for m1; 0_2 and 0_3 are held back on m0.
    assert_eq!(
        t1.active,
        TaskSet::from([("1".to_string(), BTreeSet::from([2, 3]))])
    );
    assert_eq!(
        t1.warmup,
        TaskSet::from([("0".to_string(), BTreeSet::from([2]))])
    );
    assert_eq!(
        t0.active,
        TaskSet::from([
            ("0".to_string(), BTreeSet::from([0, 1, 2, 3])),
            ("1".to_string(), BTreeSet::from([0, 1])),
        ])
    );
    // m1 heartbeats until its warm-up has caught up: the next target promotes 0_2 and warms
    // up 0_3.
    let mut promoted_in_place = false;
    for _ in 0..8 {
        let before = s.group().unwrap().members["m1"].assigned.clone();
        s.hb(1);
        s.hb(0);
        let after = &s.group().unwrap().members["m1"].assigned;
        if before.contains(TaskRole::Warmup, "0", 2) && after.contains(TaskRole::Active, "0", 2) {
            assert!(!after.contains(TaskRole::Warmup, "0", 2));
            promoted_in_place = true;
        }
    }
    assert!(
        promoted_in_place,
        "0_2 went from warm-up to active: {:#?}",
        s.group()
    );
    s.converge();
    let g = s.group().unwrap();
    for m in ["m0", "m1"] {
        assert_eq!(count(&g.members[m].assigned.active), 4, "{g:#?}");
        assert!(g.members[m].assigned.warmup.is_empty());
    }
    assert_eq!(
        g.members["m1"].assigned.active["0"],
        BTreeSet::from([2, 3]),
        "the warmed-up tasks moved"
    );
}

/// v0 members never get warm-up tasks: the stateful tasks move at once (as before Kafka 4.4).
#[test]
fn v0_members_get_no_warmups() {
    let mut s = Sim::new(Params {
        topics_at_start: 0b1_1111,
        v1: false,
        warmups: 2,
        ..Params::basic(2)
    });
    s.step(&Op::Join(0));
    s.settle();
    s.hb(0);
    s.step(&Op::Join(1));
    let g = s.group().unwrap();
    assert!(g.targets.values().all(|t| t.warmup.is_empty()));
    assert_eq!(count(&g.targets["m1"].active), 4);
}

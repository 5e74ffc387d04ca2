//! Randomised simulation of mixed groups and online migration (proptest, 1,000 cases of 1 to
//! 35 operations in plain `cargo test`): six clients, each speaking the classic protocol
//! (JoinGroup/SyncGroup/Heartbeat/LeaveGroup, eager or cooperative, leader-side assignment when
//! the group is classic) or KIP-848's ConsumerGroupHeartbeat, two of them static members
//! (`group.instance.id`), start, poll, leave, crash and
//! switch protocol while time passes, so the group id is upgraded to a consumer group,
//! downgraded back to a classic group and deleted when empty. Answers come out of the outbox
//! under each request's [`RequestId`] and may be delayed. After every step: the state equals
//! the replay of every record so far (kept incrementally; a full `replay` at the end), no
//! partition is owned by two members of either group type, no member epoch exceeds its group's
//! epoch, and a group's epoch (consumer group epoch or classic generation) never goes down while
//! the group has members.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use proptest::prelude::*;

use super::harness::groups::{decoded, range_assignor_harness, subscription, BAR, FOO};
use super::harness::Harness;
use crate::coordinator::consumer::assignor::Assignment;
use crate::coordinator::consumer::*;
use crate::coordinator::{replay, GroupResponse, Record, RequestId};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_request::TopicPartitions as ReqTp;
use crate::generated::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AsgTp,
};
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use crate::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use crate::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::wire::Encode;

const N: usize = 6;
/// Upgrades, downgrades, steps with a mixed group and cases, over every case of the run.
static STATS: [std::sync::atomic::AtomicUsize; 4] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; 4];
const G: &str = "g";

#[derive(Debug, Clone)]
enum Op {
    Start(usize),
    Poll(usize),
    Stop(usize),
    Crash(usize),
    Switch(usize),
    Advance(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..N).prop_map(Op::Start),
        8 => (0..N).prop_map(Op::Poll),
        1 => (0..N).prop_map(Op::Stop),
        1 => (0..N).prop_map(Op::Crash),
        1 => (0..N).prop_map(Op::Switch),
        2 => (1i64..12_000).prop_map(Op::Advance),
    ]
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Not in the group (must join with the member id it has, if any).
    Idle,
    /// A JoinGroup or SyncGroup is waiting for its answer.
    Waiting,
    /// Joined at this generation; a SyncGroup is due.
    MustSync(i32),
    /// Synced at this generation.
    Member(i32),
}

#[derive(Debug, Clone)]
struct Client {
    classic: bool,
    /// Cooperative classic clients report owned partitions when rejoining; eager ones revoke all.
    cooperative: bool,
    active: bool,
    member_id: String,
    phase: Phase,
    /// KIP-848 member epoch (None = join with 0).
    epoch: Option<i32>,
    owned: BTreeMap<String, BTreeSet<i32>>,
    /// The leader's view from its JoinGroup answer: (member id, subscribed topics).
    leader_of: Option<Vec<(String, Vec<String>)>>,
}

struct Sim {
    /// The coordinator, its records and their incremental replay.
    h: Harness,
    clients: Vec<Client>,
    /// Which client sent each request still unanswered.
    pending: BTreeMap<RequestId, usize>,
    /// The group's epoch after the previous step, and whether it had members then.
    last_epoch: Option<(i32, bool)>,
    name_of: BTreeMap<crate::wire::Uuid, &'static str>,
    /// The generation each client's SyncGroup in flight was sent at.
    sync_gen: BTreeMap<usize, i32>,
    /// Upgrades, downgrades and mixed-group steps seen.
    conversions: (usize, usize, usize),
}

/// Clients 0 and 3 are static members (`group.instance.id`).
fn instance_of(i: usize) -> Option<String> {
    i.is_multiple_of(3).then(|| format!("i{i}"))
}

fn topics_of(i: usize) -> Vec<String> {
    if i % 3 == 2 {
        vec!["foo".into()]
    } else {
        vec!["foo".into(), "bar".into()]
    }
}

impl Sim {
    fn new(policy: MigrationPolicy, classic_mask: u8, coop_mask: u8) -> Sim {
        let h = range_assignor_harness(|c| c.migration_policy = policy, 11).client("c", "h");
        let clients = (0..N)
            .map(|i| Client {
                classic: classic_mask & (1 << i) != 0,
                cooperative: coop_mask & (1 << i) != 0,
                active: false,
                member_id: String::new(),
                phase: Phase::Idle,
                epoch: None,
                owned: BTreeMap::new(),
                leader_of: None,
            })
            .collect();
        Sim {
            h,
            clients,
            pending: BTreeMap::new(),
            last_epoch: None,
            name_of: [(FOO, "foo"), (BAR, "bar")].into_iter().collect(),
            sync_gen: BTreeMap::new(),
            conversions: (0, 0, 0),
        }
    }

    fn absorb(&mut self, records: Vec<Record>) {
        // A conversion writes one group type's tombstone and the other's records in one call.
        let classic_gone = records
            .iter()
            .any(|r| r.record_type() == 23 && r.is_tombstone());
        let consumer_gone = records
            .iter()
            .any(|r| r.record_type() == 3 && r.is_tombstone());
        let consumer_member = records
            .iter()
            .any(|r| r.record_type() == 5 && !r.is_tombstone());
        let classic_member = records
            .iter()
            .any(|r| r.record_type() == 24 && !r.is_tombstone());
        if classic_gone && consumer_member {
            self.conversions.0 += 1;
        }
        if consumer_gone && classic_member {
            self.conversions.1 += 1;
        }
        self.h.absorb(&records);
        if self.h.c.group(G).is_some_and(|g| {
            g.members.values().any(|m| m.classic.is_some())
                && g.members.values().any(|m| m.classic.is_none())
        }) {
            self.conversions.2 += 1;
        }
    }

    fn id(&mut self, client: usize) -> RequestId {
        let id = self.h.id();
        self.pending.insert(id, client);
        id
    }

    /// The invariants after every step.
    fn check(&mut self) {
        let mut seen = BTreeSet::new();
        let mut epoch = None;
        if let Some(g) = self.h.c.group(G) {
            for m in g.members.values() {
                assert!(
                    m.member_epoch <= g.group_epoch,
                    "member epoch above group epoch"
                );
                for a in [&m.assigned, &m.pending_revocation] {
                    for (t, ps) in a {
                        for p in ps {
                            assert!(
                                seen.insert((self.name_of[t].to_string(), *p)),
                                "partition owned twice"
                            );
                        }
                    }
                }
            }
            assert!(g.assignment_epoch <= g.group_epoch);
            epoch = Some((g.group_epoch, !g.members.is_empty()));
        }
        if let Some(g) = self.h.c.classic_group(G) {
            assert!(self.h.c.group(G).is_none(), "one group id, two group types");
            for m in g.members.values() {
                for (t, ps) in decoded(&m.assignment) {
                    for p in ps {
                        assert!(
                            seen.insert((t.clone(), p)),
                            "partition owned twice (classic)"
                        );
                    }
                }
            }
            epoch = Some((g.generation_id, !g.members.is_empty()));
        }
        if let (Some((before, had_members)), Some((now, _))) = (self.last_epoch, epoch) {
            if had_members {
                assert!(now >= before, "group epoch went down: {before} -> {now}");
            }
        }
        self.last_epoch = epoch;
    }

    /// Delivers every answer in the outbox (answers may make clients send more requests).
    fn deliver(&mut self) {
        while let Some((id, resp)) = self.h.pop_answer() {
            let Some(i) = self.pending.remove(&id) else {
                panic!("answer to unknown request {id:?}");
            };
            self.on_answer(i, resp);
        }
    }

    fn reset(&mut self, i: usize, forget_id: bool) {
        let cl = &mut self.clients[i];
        cl.phase = Phase::Idle;
        cl.owned.clear();
        cl.leader_of = None;
        if forget_id {
            cl.member_id.clear();
        }
    }

    fn on_answer(&mut self, i: usize, resp: GroupResponse) {
        if !self.clients[i].active {
            return;
        }
        match resp {
            GroupResponse::JoinGroup(r) => {
                match ErrorCode::from_code(r.error_code) {
                    Some(ErrorCode::None) => {
                        let cl = &mut self.clients[i];
                        cl.member_id = r.member_id.to_string();
                        cl.phase = Phase::MustSync(r.generation_id);
                        cl.leader_of = (r.leader == r.member_id && !r.members.is_empty()).then(|| {
                        r.members
                            .iter()
                            .map(|m| {
                                let subs = crate::coordinator::consumer::migration::decode_subscription(&m.metadata)
                                    .map(|s| s.topics.iter().map(|t| t.to_string()).collect())
                                    .unwrap_or_default();
                                (m.member_id.to_string(), subs)
                            })
                            .collect()
                    });
                        if !self.clients[i].cooperative {
                            self.clients[i].owned.clear();
                        }
                        self.sync(i);
                    }
                    Some(ErrorCode::MemberIdRequired) => {
                        self.clients[i].member_id = r.member_id.to_string();
                        self.clients[i].phase = Phase::Idle;
                        self.join(i);
                    }
                    Some(ErrorCode::UnknownMemberId) | Some(ErrorCode::FencedInstanceId) => {
                        self.reset(i, true)
                    }
                    Some(ErrorCode::RebalanceInProgress)
                    | Some(ErrorCode::IllegalGeneration)
                    | Some(ErrorCode::InconsistentGroupProtocol)
                    | Some(ErrorCode::GroupMaxSizeReached)
                    | Some(ErrorCode::CoordinatorNotAvailable) => self.reset(i, false),
                    _ => panic!("unexpected JoinGroup error {}", r.error_code),
                }
            }
            GroupResponse::SyncGroup(r) => match ErrorCode::from_code(r.error_code) {
                Some(ErrorCode::None) => {
                    let Phase::Waiting = self.clients[i].phase else {
                        return;
                    };
                    let gen = self.sync_gen.remove(&i).unwrap_or(-1);
                    let cl = &mut self.clients[i];
                    cl.owned = decoded(&r.assignment)
                        .into_iter()
                        .map(|(t, ps)| (t, ps.into_iter().collect()))
                        .collect();
                    cl.phase = Phase::Member(gen);
                }
                Some(ErrorCode::UnknownMemberId) | Some(ErrorCode::FencedInstanceId) => {
                    self.reset(i, true)
                }
                Some(ErrorCode::RebalanceInProgress) | Some(ErrorCode::IllegalGeneration) => {
                    self.reset(i, false)
                }
                _ => panic!("unexpected SyncGroup error {}", r.error_code),
            },
            GroupResponse::Heartbeat(r) => match ErrorCode::from_code(r.error_code) {
                Some(ErrorCode::None) => {}
                Some(ErrorCode::RebalanceInProgress) => {
                    let cl = &mut self.clients[i];
                    if !cl.cooperative {
                        cl.owned.clear();
                    }
                    cl.phase = Phase::Idle;
                    cl.leader_of = None;
                    self.join(i);
                }
                Some(ErrorCode::UnknownMemberId) | Some(ErrorCode::FencedInstanceId) => {
                    self.reset(i, true)
                }
                Some(ErrorCode::IllegalGeneration) => self.reset(i, false),
                _ => panic!("unexpected Heartbeat error {}", r.error_code),
            },
            GroupResponse::LeaveGroup(_) => {}
        }
    }

    fn owned_subscription(&self, i: usize) -> Bytes {
        let cl = &self.clients[i];
        let owned: Vec<(&str, Vec<i32>)> = cl
            .owned
            .iter()
            .map(|(t, ps)| (t.as_str(), ps.iter().copied().collect()))
            .collect();
        let owned_ref: Vec<(&str, &[i32])> =
            owned.iter().map(|(t, ps)| (*t, ps.as_slice())).collect();
        let topics = topics_of(i);
        let topics_ref: Vec<&str> = topics.iter().map(String::as_str).collect();
        subscription(&topics_ref, &owned_ref, None, 3)
    }

    fn join(&mut self, i: usize) {
        let req = JoinGroupRequest {
            group_id: G.into(),
            session_timeout_ms: 10_000,
            rebalance_timeout_ms: 15_000,
            member_id: self.clients[i].member_id.clone().into(),
            group_instance_id: instance_of(i).map(Into::into),
            protocol_type: "consumer".into(),
            protocols: vec![JoinGroupRequestProtocol {
                name: "range".into(),
                metadata: self.owned_subscription(i),
                ..Default::default()
            }],
            ..Default::default()
        };
        self.clients[i].phase = Phase::Waiting;
        let id = self.id(i);
        let r = self.h.c.join_group(&self.h.ctx(9), &req, id, self.h.now);
        self.absorb(r);
        self.deliver();
    }

    /// The leader's client-side assignment (classic groups): each topic's partitions dealt
    /// round-robin over its subscribers in member-id order.
    fn leader_assignment(members: &[(String, Vec<String>)]) -> Vec<SyncGroupRequestAssignment> {
        let mut out: BTreeMap<&str, BTreeMap<&str, Vec<i32>>> = BTreeMap::new();
        for (t, n) in [("foo", 6), ("bar", 3)] {
            let subs: Vec<&str> = members
                .iter()
                .filter(|(_, ts)| ts.iter().any(|x| x == t))
                .map(|(m, _)| m.as_str())
                .collect();
            for p in 0..n {
                if !subs.is_empty() {
                    out.entry(subs[p as usize % subs.len()])
                        .or_default()
                        .entry(t)
                        .or_default()
                        .push(p);
                }
            }
        }
        members
            .iter()
            .map(|(m, _)| {
                let a = ConsumerProtocolAssignment {
                    assigned_partitions: out
                        .get(m.as_str())
                        .map(|ts| {
                            ts.iter()
                                .map(|(t, ps)| AsgTp {
                                    topic: t.to_string().into(),
                                    partitions: ps.iter().copied().collect(),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    user_data: None,
                };
                let mut bytes = 3i16.to_be_bytes().to_vec();
                a.encode(&mut bytes, 3).unwrap();
                SyncGroupRequestAssignment {
                    member_id: m.clone().into(),
                    assignment: Bytes::from(bytes),
                    ..Default::default()
                }
            })
            .collect()
    }

    fn sync(&mut self, i: usize) {
        let Phase::MustSync(gen) = self.clients[i].phase else {
            return;
        };
        let assignments = self.clients[i]
            .leader_of
            .take()
            .map(|m| Self::leader_assignment(&m))
            .unwrap_or_default();
        let req = SyncGroupRequest {
            group_id: G.into(),
            generation_id: gen,
            member_id: self.clients[i].member_id.clone().into(),
            group_instance_id: instance_of(i).map(Into::into),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            assignments,
            ..Default::default()
        };
        self.clients[i].phase = Phase::Waiting;
        self.sync_gen.insert(i, gen);
        let id = self.id(i);
        let r = self.h.c.sync_group(&self.h.ctx(5), &req, id, self.h.now);
        self.absorb(r);
        self.deliver();
    }

    fn heartbeat_classic(&mut self, i: usize, gen: i32) {
        let req = HeartbeatRequest {
            group_id: G.into(),
            generation_id: gen,
            member_id: self.clients[i].member_id.clone().into(),
            group_instance_id: instance_of(i).map(Into::into),
            ..Default::default()
        };
        let id = self.id(i);
        let r = self.h.c.heartbeat(&self.h.ctx(4), &req, id, self.h.now);
        self.absorb(r);
        self.deliver();
    }

    fn cghb(&mut self, i: usize) {
        let cl = &self.clients[i];
        if cl.member_id.is_empty() {
            self.clients[i].member_id = format!("k{i}-{}", self.h.requests_sent());
        }
        if self.clients[i].epoch.is_none() {
            self.clients[i].owned.clear();
        }
        let cl = &self.clients[i];
        let owned: Assignment = cl
            .owned
            .iter()
            .map(|(t, ps)| (if t == "foo" { FOO } else { BAR }, ps.clone()))
            .collect();
        let req = ConsumerGroupHeartbeatRequest {
            group_id: G.into(),
            member_id: cl.member_id.clone().into(),
            member_epoch: cl.epoch.unwrap_or(0),
            instance_id: instance_of(i).map(Into::into),
            rebalance_timeout_ms: 15_000,
            subscribed_topic_names: Some(topics_of(i).into_iter().map(Into::into).collect()),
            topic_partitions: Some(
                owned
                    .iter()
                    .map(|(t, ps)| ReqTp {
                        topic_id: *t,
                        partitions: ps.iter().copied().collect(),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        };
        let out = self
            .h
            .c
            .consumer_group_heartbeat(&self.h.ctx(1), &req, self.h.now);
        self.absorb(out.records);
        self.deliver();
        let r = out.response;
        match ErrorCode::from_code(r.error_code) {
            Some(ErrorCode::None) => {
                let cl = &mut self.clients[i];
                cl.epoch = Some(r.member_epoch);
                if let Some(a) = &r.assignment {
                    cl.owned = a
                        .topic_partitions
                        .iter()
                        .filter(|tp| !tp.partitions.is_empty())
                        .map(|tp| {
                            (
                                self.name_of[&tp.topic_id].to_string(),
                                tp.partitions.iter().collect(),
                            )
                        })
                        .collect();
                }
            }
            Some(ErrorCode::FencedMemberEpoch)
            | Some(ErrorCode::UnknownMemberId)
            | Some(ErrorCode::GroupIdNotFound)
            | Some(ErrorCode::GroupMaxSizeReached)
            | Some(ErrorCode::FencedInstanceId)
            // A static member whose previous incarnation is still registered waits for it.
            | Some(ErrorCode::UnreleasedInstanceId) => {
                let cl = &mut self.clients[i];
                cl.epoch = None;
                cl.owned.clear();
            }
            _ => panic!(
                "unexpected ConsumerGroupHeartbeat error {}: {:?}",
                r.error_code, r.error_message
            ),
        }
    }

    fn poll(&mut self, i: usize) {
        if !self.clients[i].active {
            return;
        }
        if !self.clients[i].classic {
            return self.cghb(i);
        }
        match self.clients[i].phase.clone() {
            Phase::Idle => self.join(i),
            Phase::Waiting => {}
            Phase::MustSync(_) => self.sync(i),
            Phase::Member(gen) => self.heartbeat_classic(i, gen),
        }
    }

    fn stop(&mut self, i: usize) {
        if !self.clients[i].active {
            return;
        }
        if self.clients[i].classic {
            if !self.clients[i].member_id.is_empty() {
                let req = LeaveGroupRequest {
                    group_id: G.into(),
                    members: vec![MemberIdentity {
                        member_id: self.clients[i].member_id.clone().into(),
                        group_instance_id: instance_of(i).map(Into::into),
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                let id = self.id(i);
                let r = self.h.c.leave_group(&self.h.ctx(5), &req, id, self.h.now);
                self.absorb(r);
            }
        } else if self.clients[i].epoch.is_some() {
            let req = ConsumerGroupHeartbeatRequest {
                group_id: G.into(),
                member_id: self.clients[i].member_id.clone().into(),
                member_epoch: -1,
                instance_id: instance_of(i).map(Into::into),
                ..Default::default()
            };
            let out = self
                .h
                .c
                .consumer_group_heartbeat(&self.h.ctx(1), &req, self.h.now);
            self.absorb(out.records);
        }
        self.crash(i);
        self.deliver();
    }

    fn crash(&mut self, i: usize) {
        let cl = &mut self.clients[i];
        cl.active = false;
        cl.phase = Phase::Idle;
        cl.epoch = None;
        cl.owned.clear();
        cl.leader_of = None;
        cl.member_id.clear();
    }

    fn step(&mut self, op: &Op) {
        match op {
            Op::Start(i) => {
                if !self.clients[*i].active {
                    self.clients[*i].active = true;
                    self.poll(*i);
                }
            }
            Op::Poll(i) => self.poll(*i),
            Op::Stop(i) => self.stop(*i),
            Op::Crash(i) => self.crash(*i),
            Op::Switch(i) => {
                self.stop(*i);
                self.check();
                self.clients[*i].classic = !self.clients[*i].classic;
                self.clients[*i].active = true;
                self.poll(*i);
            }
            Op::Advance(ms) => {
                self.h.now += ms;
                let r = self.h.c.fire_timers(self.h.now);
                self.absorb(r);
                self.check();
                self.deliver();
            }
        }
        self.check();
    }
}

fn run(policy: MigrationPolicy, classic_mask: u8, coop_mask: u8, ops: &[Op]) {
    let mut s = Sim::new(policy, classic_mask, coop_mask);
    for op in ops {
        s.step(op);
    }
    assert_eq!(&replay(&s.h.log), s.h.c.groups(), "full replay");
    // Faults stop: every active client polls every second until the timers settle.
    for _ in 0..8 {
        s.h.now += 3_000;
        let r = s.h.c.fire_timers(s.h.now);
        s.absorb(r);
        s.check();
        s.deliver();
        for i in 0..N {
            s.poll(i);
        }
        s.check();
    }
    assert_eq!(&replay(&s.h.log), s.h.c.groups(), "full replay");
    use std::sync::atomic::Ordering::Relaxed;
    STATS[0].fetch_add(s.conversions.0, Relaxed);
    STATS[1].fetch_add(s.conversions.1, Relaxed);
    STATS[2].fetch_add(s.conversions.2, Relaxed);
    let cases = STATS[3].fetch_add(1, Relaxed) + 1;
    if cases.is_multiple_of(250) {
        eprintln!(
            "classic_sim: {cases} cases, {} upgrades, {} downgrades, {} steps with a mixed group",
            STATS[0].load(Relaxed),
            STATS[1].load(Relaxed),
            STATS[2].load(Relaxed)
        );
    }
}

fn policy() -> impl Strategy<Value = MigrationPolicy> {
    prop_oneof![
        1 => Just(MigrationPolicy::Disabled),
        1 => Just(MigrationPolicy::Upgrade),
        1 => Just(MigrationPolicy::Downgrade),
        3 => Just(MigrationPolicy::Bidirectional),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn simulation(
        policy in policy(),
        classic_mask in 0u8..64,
        coop_mask in 0u8..64,
        ops in proptest::collection::vec(op(), 1..36),
    ) {
        run(policy, classic_mask, coop_mask, &ops);
    }
}

//! What the `coordinator` fuzz target does: a sequence of group requests of every group API and
//! every version, decoded from the input, fed into one sans-IO [`GroupCoordinator`], with time
//! moving and timers firing in between, and the consumer-protocol data messages read from raw
//! bytes.
//!
//! An input is a sequence of operations. Each starts with a 4-byte header:
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | the operation, modulo [`Op::ALL`]'s length: [`Op`] |
//! | 1 | the version, an offset into the API's valid versions (modulo their count) |
//! | 2 | patch flags ([`PATCH_GROUP`] …), see below |
//! | 3 | the patch argument: which group, which known member |
//!
//! A request operation (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat)
//! then decodes its request from the front of the remaining bytes with the generated decoder
//! (`Message::decode_prefix`, at the selected version); the input ends at the first request
//! that does not decode. Random strings seldom name a group or a member the coordinator knows,
//! so the patch flags overwrite fields of the decoded request with names that reach deeper
//! states: a group id of [`GROUPS`], a member id (with its group and generation) learned from an
//! earlier answer, a session timeout inside the configured bounds, the `consumer` protocol type,
//! an assignment for every known member of the group (SyncGroup), a group instance id.
//!
//! [`Op::Timers`] reads 2 more bytes, a big-endian count of 4 ms steps the clock moves (flag
//! [`PATCH_GROUP`] set: to the next armed deadline instead), and fires the timers due.
//! [`Op::ConsumerProtocol`] reads a 2-byte big-endian length and that many bytes and decodes
//! them as a version-prefixed `ConsumerProtocolSubscription` and `ConsumerProtocolAssignment`
//! (the classic `consumer` protocol's member metadata and assignment, Kafka's
//! `ConsumerProtocol.deserialize…`): no panic, and whatever decodes re-encodes and decodes back
//! to the same value. [`Op::Describe`] describes and lists every group, [`Op::Delete`] deletes
//! one.
//!
//! After every operation (checked, a panic is a finding):
//! * every classic answer drained with `poll_response` answers a request still waiting (no
//!   answer twice, none for a request never made), is of the request's API, and encodes at the
//!   request's version (an answer shaped for its version: no field the version lacks);
//! * DescribeGroups/ListGroups/DeleteGroups and ConsumerGroupHeartbeat answers encode at their
//!   version;
//! * `replay` of every record emitted so far equals `groups()`.
//!
//! At the end the clock runs until no timer is armed: every classic request must have been
//! answered (a client never waits forever), and the state still equals the replay.

use std::collections::BTreeMap;

use kwire_protocol::bytes::Bytes;
use kwire_protocol::coordinator::consumer::migration::{decode_assignment, decode_subscription};
use kwire_protocol::coordinator::{
    replay, ClassicGroupConfig, ConsumerGroupConfig, GroupCoordinator, GroupResponse, Record,
    RequestContext, RequestId, SequentialMemberIds, TopicMetadata,
};
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::consumer_protocol_assignment::ConsumerProtocolAssignment;
use kwire_protocol::generated::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::{Encode, Message, Uuid, VersionRange};

/// The group ids the patch flags choose from.
pub const GROUPS: [&str; 3] = ["g0", "g1", "g2"];

/// Patch flag: the group id becomes `GROUPS[arg % 3]`.
pub const PATCH_GROUP: u8 = 1;
/// Patch flag: the member id (and group id) become those of a member learned from an earlier
/// answer, `arg`-th modulo their number.
pub const PATCH_MEMBER: u8 = 2;
/// Patch flag: the generation (or member epoch) becomes the learned one of that member.
pub const PATCH_GENERATION: u8 = 4;
/// Patch flag: JoinGroup gets protocol type `consumer`, a protocol when it has none and
/// timeouts inside the configured bounds; SyncGroup gets protocol type `consumer` and, from
/// the leader, an assignment (its first one's bytes) for every known member of the group;
/// LeaveGroup v3+ gets the member in its batch.
pub const PATCH_SHAPE: u8 = 8;
/// Patch flag: the group instance id becomes `i{arg % 4}` (static membership).
pub const PATCH_INSTANCE: u8 = 16;
/// Patch flag: the group instance id becomes null.
pub const PATCH_NO_INSTANCE: u8 = 32;

/// Header length of every operation.
pub const OP_HEADER_LEN: usize = 4;

/// One operation of an input (header byte 0, modulo the number of operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// A JoinGroup request.
    Join = 0,
    /// A SyncGroup request.
    Sync = 1,
    /// A Heartbeat request.
    Heartbeat = 2,
    /// A LeaveGroup request.
    Leave = 3,
    /// The clock moves; due timers fire.
    Timers = 4,
    /// A ConsumerGroupHeartbeat request (KIP-848; it meets classic groups in migrations).
    ConsumerHeartbeat = 5,
    /// Raw bytes as consumer-protocol subscription and assignment.
    ConsumerProtocol = 6,
    /// DescribeGroups of every group of [`GROUPS`], and ListGroups.
    Describe = 7,
    /// DeleteGroups of one group.
    Delete = 8,
}

impl Op {
    /// Every operation, by number.
    pub const ALL: [Op; 9] = [
        Op::Join,
        Op::Sync,
        Op::Heartbeat,
        Op::Leave,
        Op::Timers,
        Op::ConsumerHeartbeat,
        Op::ConsumerProtocol,
        Op::Describe,
        Op::Delete,
    ];

    /// The API whose versions header byte 1 selects from.
    pub fn api(self) -> Option<ApiKey> {
        match self {
            Op::Join => Some(ApiKey::JoinGroup),
            Op::Sync => Some(ApiKey::SyncGroup),
            Op::Heartbeat => Some(ApiKey::Heartbeat),
            Op::Leave => Some(ApiKey::LeaveGroup),
            Op::ConsumerHeartbeat => Some(ApiKey::ConsumerGroupHeartbeat),
            Op::Describe => Some(ApiKey::DescribeGroups),
            Op::Delete => Some(ApiKey::DeleteGroups),
            Op::Timers | Op::ConsumerProtocol => None,
        }
    }
}

fn pick(range: VersionRange, b: u8) -> i16 {
    let n = (range.highest as i32 - range.lowest as i32 + 1).max(1);
    (range.lowest as i32 + b as i32 % n) as i16
}

/// The header bytes of an operation at `version` (the inverse of what [`run`] reads).
pub fn op_header(op: Op, version: i16, flags: u8, arg: u8) -> [u8; OP_HEADER_LEN] {
    let lowest = op.api().map_or(0, |a| a.valid_versions().lowest);
    [op as u8, (version - lowest).clamp(0, 255) as u8, flags, arg]
}

/// The classic-group configuration of the target: Kafka's defaults but a 100 ms initial
/// rebalance delay and at most 4 members (so GROUP_MAX_SIZE_REACHED is reachable).
pub fn classic_config() -> ClassicGroupConfig {
    ClassicGroupConfig {
        min_session_timeout_ms: 6_000,
        max_session_timeout_ms: 1_800_000,
        initial_rebalance_delay_ms: 100,
        max_size: 4,
    }
}

/// A member learned from an answer: group, member id, generation (or member epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Known {
    group: String,
    member: String,
    generation: i32,
}

/// The target's state between operations.
struct Sim {
    c: GroupCoordinator,
    records: Vec<Record>,
    now: i64,
    next_id: u64,
    /// Classic requests not yet answered: API, version and group id.
    waiting: BTreeMap<RequestId, (ApiKey, i16, String)>,
    known: Vec<Known>,
}

/// At most this many learned members are kept (the oldest go first).
const MAX_KNOWN: usize = 32;

impl Sim {
    fn new() -> Self {
        let mut c = GroupCoordinator::new(
            ConsumerGroupConfig::default(),
            Box::new(SequentialMemberIds::new(7)),
        )
        .expect("default consumer-group config");
        c.set_classic_config(classic_config())
            .expect("the target's classic config is valid");
        let records = c.set_topics(
            [
                TopicMetadata::new(Uuid::from_u128(1), "t0", 3),
                TopicMetadata::new(Uuid::from_u128(2), "t1", 2),
            ],
            0,
        );
        Sim {
            c,
            records,
            now: 0,
            next_id: 0,
            waiting: BTreeMap::new(),
            known: Vec::new(),
        }
    }

    fn ctx(v: i16) -> RequestContext {
        RequestContext::new("fuzz", "/10.0.0.1", v)
    }

    fn request_id(&mut self, api: ApiKey, v: i16, group: &str) -> RequestId {
        self.next_id += 1;
        let id = RequestId(self.next_id);
        self.waiting.insert(id, (api, v, group.to_string()));
        id
    }

    fn learn(&mut self, group: &str, member: &str, generation: i32) {
        if member.is_empty() {
            return;
        }
        if let Some(k) = self
            .known
            .iter_mut()
            .find(|k| k.group == group && k.member == member)
        {
            k.generation = generation;
            return;
        }
        if self.known.len() == MAX_KNOWN {
            self.known.remove(0);
        }
        self.known.push(Known {
            group: group.to_string(),
            member: member.to_string(),
            generation,
        });
    }

    fn member(&self, flags: u8, arg: u8) -> Option<Known> {
        if flags & PATCH_MEMBER == 0 || self.known.is_empty() {
            return None;
        }
        Some(self.known[arg as usize % self.known.len()].clone())
    }

    /// Takes the records of a call, then drains and checks the answers and the replay.
    fn after(&mut self, records: Vec<Record>) {
        self.records.extend(records);
        while let Some((id, resp)) = self.c.poll_response() {
            if std::env::var_os("KWIRE_FUZZ_TRACE").is_some() {
                eprintln!("t={} {id:?} {resp:?}", self.now);
            }
            let (api, v, group) = self
                .waiting
                .remove(&id)
                .unwrap_or_else(|| panic!("answer to {id:?}, not waiting: {resp:?}"));
            let encoded = match (&resp, api) {
                (GroupResponse::JoinGroup(r), ApiKey::JoinGroup) => {
                    let member = r.member_id.as_str().to_string();
                    self.learn(&group, &member, r.generation_id);
                    r.to_bytes(v).map(|_| ())
                }
                (GroupResponse::SyncGroup(r), ApiKey::SyncGroup) => r.to_bytes(v).map(|_| ()),
                (GroupResponse::Heartbeat(r), ApiKey::Heartbeat) => r.to_bytes(v).map(|_| ()),
                (GroupResponse::LeaveGroup(r), ApiKey::LeaveGroup) => r.to_bytes(v).map(|_| ()),
                _ => panic!("{api:?} request {id:?} answered with {resp:?}"),
            };
            if let Err(e) = encoded {
                panic!("{api:?} v{v} answer does not encode at its version: {e}: {resp:?}");
            }
        }
        let replayed = replay(&self.records);
        assert!(
            replayed == *self.c.groups(),
            "replay(records) != groups() after {} records",
            self.records.len()
        );
    }
}

/// The group id a request goes to after patching.
fn patch_group(
    group_id: &mut kwire_protocol::wire::KStr,
    flags: u8,
    arg: u8,
    known: &Option<Known>,
) {
    if let Some(k) = known {
        *group_id = k.group.clone().into();
    } else if flags & PATCH_GROUP != 0 {
        *group_id = GROUPS[arg as usize % GROUPS.len()].into();
    }
}

fn patch_instance(id: &mut Option<kwire_protocol::wire::KStr>, flags: u8, arg: u8) {
    if flags & PATCH_INSTANCE != 0 {
        *id = Some(format!("i{}", arg % 4).into());
    } else if flags & PATCH_NO_INSTANCE != 0 {
        *id = None;
    }
}

/// The request as the wire carries it at `v`: encoded and decoded again, so a patch that set a
/// field the version lacks is caught (`None`: the operation is skipped) and the coordinator sees
/// only requests a client can send.
fn on_the_wire<T: Message>(m: T, v: i16) -> Option<T> {
    let b = m.to_bytes(v).ok()?;
    Some(T::decode_bytes(b, v).expect("an encoded request decodes"))
}

/// A timeout inside the target's session-timeout bounds, from any value.
fn bounded_timeout(t: i32) -> i32 {
    6_000 + t.rem_euclid(60_000)
}

/// Runs one input (see the module docs). Panics on a finding.
pub fn run(data: &[u8]) {
    let mut sim = Sim::new();
    let mut rest = Bytes::copy_from_slice(data);
    while rest.len() >= OP_HEADER_LEN {
        let h = rest.split_to(OP_HEADER_LEN);
        let op = Op::ALL[h[0] as usize % Op::ALL.len()];
        let v = op.api().map_or(0, |a| pick(a.valid_versions(), h[1]));
        let (flags, arg) = (h[2], h[3]);
        if !step(&mut sim, op, v, flags, arg, &mut rest) {
            break;
        }
    }
    settle(&mut sim);
}

/// One operation; `false` when its bytes do not decode (the input ends there).
fn step(sim: &mut Sim, op: Op, v: i16, flags: u8, arg: u8, rest: &mut Bytes) -> bool {
    let ctx = Sim::ctx(v);
    let known = sim.member(flags, arg);
    match op {
        Op::Join => {
            let Ok(mut req) = JoinGroupRequest::decode_prefix(rest, v) else {
                return false;
            };
            patch_group(&mut req.group_id, flags, arg, &known);
            if let Some(k) = &known {
                req.member_id = k.member.clone().into();
            }
            if v >= 5 {
                patch_instance(&mut req.group_instance_id, flags, arg);
            }
            if flags & PATCH_SHAPE != 0 {
                req.protocol_type = "consumer".into();
                req.session_timeout_ms = bounded_timeout(req.session_timeout_ms);
                if v >= 1 {
                    req.rebalance_timeout_ms = bounded_timeout(req.rebalance_timeout_ms);
                }
                if req.protocols.is_empty() {
                    req.protocols.push(JoinGroupRequestProtocol {
                        name: "range".into(),
                        ..Default::default()
                    });
                }
            }
            let Some(req) = on_the_wire(req, v) else {
                return true;
            };
            let id = sim.request_id(ApiKey::JoinGroup, v, req.group_id.as_str());
            let records = sim.c.join_group(&ctx, &req, id, sim.now);
            sim.after(records);
        }
        Op::Sync => {
            let Ok(mut req) = SyncGroupRequest::decode_prefix(rest, v) else {
                return false;
            };
            patch_group(&mut req.group_id, flags, arg, &known);
            if let Some(k) = &known {
                req.member_id = k.member.clone().into();
                if flags & PATCH_GENERATION != 0 {
                    req.generation_id = k.generation;
                }
            }
            if v >= 3 {
                patch_instance(&mut req.group_instance_id, flags, arg);
            }
            if flags & PATCH_SHAPE != 0 {
                if v >= 5 {
                    req.protocol_type = Some("consumer".into());
                }
                let bytes = req
                    .assignments
                    .first()
                    .map(|a| a.assignment.clone())
                    .unwrap_or_default();
                let group = req.group_id.as_str();
                req.assignments = sim
                    .known
                    .iter()
                    .filter(|k| k.group == group)
                    .map(|k| SyncGroupRequestAssignment {
                        member_id: k.member.clone().into(),
                        assignment: bytes.clone(),
                        ..Default::default()
                    })
                    .collect();
            }
            let Some(req) = on_the_wire(req, v) else {
                return true;
            };
            let id = sim.request_id(ApiKey::SyncGroup, v, req.group_id.as_str());
            let records = sim.c.sync_group(&ctx, &req, id, sim.now);
            sim.after(records);
        }
        Op::Heartbeat => {
            let Ok(mut req) = HeartbeatRequest::decode_prefix(rest, v) else {
                return false;
            };
            patch_group(&mut req.group_id, flags, arg, &known);
            if let Some(k) = &known {
                req.member_id = k.member.clone().into();
                if flags & PATCH_GENERATION != 0 {
                    req.generation_id = k.generation;
                }
            }
            if v >= 3 {
                patch_instance(&mut req.group_instance_id, flags, arg);
            }
            let Some(req) = on_the_wire(req, v) else {
                return true;
            };
            let id = sim.request_id(ApiKey::Heartbeat, v, req.group_id.as_str());
            let records = sim.c.heartbeat(&ctx, &req, id, sim.now);
            sim.after(records);
        }
        Op::Leave => {
            let Ok(mut req) = LeaveGroupRequest::decode_prefix(rest, v) else {
                return false;
            };
            patch_group(&mut req.group_id, flags, arg, &known);
            if let Some(k) = &known {
                if v < 3 {
                    req.member_id = k.member.clone().into();
                } else if flags & PATCH_SHAPE != 0 || req.members.is_empty() {
                    let mut m = MemberIdentity {
                        member_id: k.member.clone().into(),
                        ..Default::default()
                    };
                    if v >= 3 {
                        patch_instance(&mut m.group_instance_id, flags, arg);
                    }
                    req.members.insert(0, m);
                } else {
                    req.members[0].member_id = k.member.clone().into();
                }
            }
            let Some(req) = on_the_wire(req, v) else {
                return true;
            };
            let id = sim.request_id(ApiKey::LeaveGroup, v, req.group_id.as_str());
            let records = sim.c.leave_group(&ctx, &req, id, sim.now);
            sim.after(records);
        }
        Op::Timers => {
            if rest.len() < 2 {
                return false;
            }
            let n = rest.split_to(2);
            let steps = u16::from_be_bytes([n[0], n[1]]) as i64;
            sim.now = match sim.c.next_deadline() {
                Some(d) if flags & PATCH_GROUP != 0 => d.max(sim.now),
                _ => sim.now + steps * 4,
            };
            let records = sim.c.fire_timers(sim.now);
            sim.after(records);
        }
        Op::ConsumerHeartbeat => {
            let Ok(mut req) = ConsumerGroupHeartbeatRequest::decode_prefix(rest, v) else {
                return false;
            };
            patch_group(&mut req.group_id, flags, arg, &known);
            if let Some(k) = &known {
                req.member_id = k.member.clone().into();
                if flags & PATCH_GENERATION != 0 {
                    req.member_epoch = k.generation;
                }
            }
            patch_instance(&mut req.instance_id, flags, arg);
            if flags & PATCH_SHAPE != 0 {
                req.rebalance_timeout_ms = bounded_timeout(req.rebalance_timeout_ms);
                req.subscribed_topic_names = Some(vec!["t0".into(), "t1".into()]);
            }
            let Some(req) = on_the_wire(req, v) else {
                return true;
            };
            let out = sim.c.consumer_group_heartbeat(&ctx, &req, sim.now);
            if let Err(e) = out.response.to_bytes(v) {
                panic!("ConsumerGroupHeartbeat v{v} answer does not encode: {e}: {out:?}");
            }
            if out.response.error_code == 0 {
                let member = out.response.member_id.as_deref().unwrap_or("").to_string();
                sim.learn(req.group_id.as_str(), &member, out.response.member_epoch);
            }
            sim.after(out.records);
        }
        Op::ConsumerProtocol => {
            if rest.len() < 2 {
                return false;
            }
            let n = rest.split_to(2);
            let len = (u16::from_be_bytes([n[0], n[1]]) as usize).min(rest.len());
            let raw = rest.split_to(len);
            consumer_protocol(&raw);
        }
        Op::Describe => {
            let req = DescribeGroupsRequest {
                groups: GROUPS.iter().map(|g| (*g).into()).collect(),
                include_authorized_operations: flags & 1 != 0,
                ..Default::default()
            };
            let resp = sim.c.describe_groups(&ctx, &req);
            if let Err(e) = resp.to_bytes(v) {
                panic!("DescribeGroups v{v} answer does not encode: {e}: {resp:?}");
            }
            let lv = pick(ApiKey::ListGroups.valid_versions(), arg);
            let list = sim
                .c
                .list_groups(&Sim::ctx(lv), &ListGroupsRequest::default());
            if let Err(e) = list.to_bytes(lv) {
                panic!("ListGroups v{lv} answer does not encode: {e}: {list:?}");
            }
        }
        Op::Delete => {
            let req = DeleteGroupsRequest {
                groups_names: vec![GROUPS[arg as usize % GROUPS.len()].into()],
                ..Default::default()
            };
            let out = sim.c.delete_groups(&ctx, &req, sim.now);
            if let Err(e) = out.response.to_bytes(v) {
                panic!("DeleteGroups v{v} answer does not encode: {e}: {out:?}");
            }
            sim.after(out.records);
        }
    }
    true
}

/// Runs the clock until no timer is armed; every classic request must then be answered.
fn settle(sim: &mut Sim) {
    for round in 0..10_000 {
        let Some(d) = sim.c.next_deadline() else {
            break;
        };
        // Kafka re-arms a join phase no member rejoined every rebalance timeout until the
        // sessions (up to 30 min) expire: after 100 rounds, move in 100 s steps (each call fires
        // every timer due in the step, in order).
        sim.now = sim.now.max(d) + if round < 100 { 0 } else { 100_000 };
        if std::env::var_os("KWIRE_FUZZ_TRACE").is_some() {
            eprintln!("settle: timers due at {d}");
        }
        let records = sim.c.fire_timers(sim.now);
        sim.after(records);
    }
    assert!(
        sim.c.next_deadline().is_none(),
        "timers still armed after 10,000 rounds"
    );
    assert!(
        sim.waiting.is_empty(),
        "requests never answered once every timer fired: {:?}",
        sim.waiting
    );
}

/// Reads `raw` as Kafka's version-prefixed consumer-protocol messages (a big-endian i16
/// version, then the message at that version; a version above the highest known reads as the
/// highest, trailing bytes are ignored: Kafka's `ConsumerProtocol.deserialize…`), as a
/// subscription and as an assignment, with the coordinator's decoders
/// (`consumer::migration::decode_subscription` / `decode_assignment`, what a classic member
/// inside a consumer group and an upgrade go through). They must agree with the generated
/// decoder read by that rule, and whatever decodes must re-encode at that version and decode
/// back to the same value. Panics on a finding.
pub fn consumer_protocol(raw: &Bytes) {
    fn by_rule<T: Message>(raw: &Bytes) -> Option<(T, i16)> {
        if raw.len() < 2 {
            return None;
        }
        let version = i16::from_be_bytes([raw[0], raw[1]]);
        if version < T::VALID_VERSIONS.lowest {
            return None;
        }
        let v = version.min(T::VALID_VERSIONS.highest);
        let mut body = raw.slice(2..);
        T::decode_prefix(&mut body, v).ok().map(|m| (m, v))
    }
    fn round_trip<T: Message>(m: &T, v: i16) {
        let e = m
            .to_bytes(v)
            .unwrap_or_else(|e| panic!("{} v{v} decodes but does not encode: {e}", T::NAME));
        let back = T::decode_bytes(e, v)
            .unwrap_or_else(|e| panic!("{} v{v} re-encoding does not decode: {e}", T::NAME));
        assert_eq!(&back, m, "{} v{v}: decode(encode(m)) != m", T::NAME);
    }
    let sub = by_rule::<ConsumerProtocolSubscription>(raw);
    let coord = decode_subscription(raw);
    assert_eq!(
        coord.as_ref().ok(),
        sub.as_ref().map(|(m, _)| m),
        "decode_subscription disagrees with the generated decoder: {coord:?}"
    );
    if let Some((m, v)) = &sub {
        round_trip(m, *v);
    }
    let asg = by_rule::<ConsumerProtocolAssignment>(raw);
    let coord = decode_assignment(raw);
    assert_eq!(
        coord.as_ref().ok(),
        asg.as_ref().map(|(m, _)| m),
        "decode_assignment disagrees with the generated decoder: {coord:?}"
    );
    if let Some((m, v)) = &asg {
        round_trip(m, *v);
    }
}

/// Seeds for the target: short scenarios in its input layout (three members join a classic
/// group, the leader assigns, all sync, heartbeat, one leaves; a static member; a storm of
/// joins without member id; consumer-protocol bytes of every version).
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let enc = |m: &dyn Fn(i16) -> Bytes, v: i16| m(v).to_vec();
    for jv in [0i16, 3, 4, 5, 9] {
        let mut s = Vec::new();
        let join = |s: &mut Vec<u8>, flags: u8, arg: u8, instance: Option<&str>| {
            s.extend(op_header(Op::Join, jv, flags, arg));
            let req = JoinGroupRequest {
                group_id: "g0".into(),
                session_timeout_ms: 10_000,
                rebalance_timeout_ms: 20_000,
                group_instance_id: instance.filter(|_| jv >= 5).map(|i| i.to_string().into()),
                protocol_type: "consumer".into(),
                protocols: vec![JoinGroupRequestProtocol {
                    name: "range".into(),
                    metadata: subscription_bytes(1),
                    ..Default::default()
                }],
                ..Default::default()
            };
            s.extend(enc(&|v| req.to_bytes(v).expect("encodes"), jv));
        };
        // Three new members; then each rejoins with its id (v4+ asks for it).
        for _ in 0..3 {
            join(&mut s, PATCH_GROUP, 0, None);
        }
        if jv >= 4 {
            for i in 0..3 {
                join(&mut s, PATCH_MEMBER, i, None);
            }
        }
        // The initial delay (extended once for the members that came during it) ends.
        for _ in 0..2 {
            s.extend(op_header(Op::Timers, 0, PATCH_GROUP, 0));
            s.extend([0, 0]);
        }
        // Everyone syncs (the first one as leader with assignments for all).
        for i in 0..3 {
            s.extend(op_header(
                Op::Sync,
                5.min(jv),
                PATCH_GROUP | PATCH_MEMBER | PATCH_GENERATION | PATCH_SHAPE,
                i,
            ));
            let req = SyncGroupRequest {
                assignments: vec![SyncGroupRequestAssignment {
                    member_id: "x".into(),
                    assignment: assignment_bytes(1),
                    ..Default::default()
                }],
                ..Default::default()
            };
            s.extend(enc(&|v| req.to_bytes(v).expect("encodes"), 5.min(jv)));
        }
        for i in 0..3 {
            s.extend(op_header(
                Op::Heartbeat,
                4.min(jv),
                PATCH_MEMBER | PATCH_GENERATION,
                i,
            ));
            s.extend(enc(
                &|v| HeartbeatRequest::default().to_bytes(v).expect("encodes"),
                4.min(jv),
            ));
        }
        s.extend(op_header(
            Op::Leave,
            5.min(jv),
            PATCH_MEMBER | PATCH_SHAPE,
            1,
        ));
        s.extend(enc(
            &|v| LeaveGroupRequest::default().to_bytes(v).expect("encodes"),
            5.min(jv),
        ));
        s.extend(op_header(Op::Describe, 5, 0, 0));
        s.extend(op_header(Op::Timers, 0, 0, 0));
        s.extend(2500u16.to_be_bytes());
        out.push((format!("classic-round-join-v{jv}"), s.clone()));
        // A static member, then a storm of joins without member id.
        let mut t = Vec::new();
        join(&mut t, PATCH_INSTANCE, 1, Some("i1"));
        for _ in 0..8 {
            join(&mut t, 0, 0, None);
        }
        out.push((format!("classic-static-and-storm-v{jv}"), t));
    }
    // A consumer-group member, then a classic join to the same group.
    let mut m = Vec::new();
    m.extend(op_header(
        Op::ConsumerHeartbeat,
        1,
        PATCH_GROUP | PATCH_SHAPE,
        0,
    ));
    let hb = ConsumerGroupHeartbeatRequest {
        member_id: "m-1".into(),
        rebalance_timeout_ms: 10_000,
        topic_partitions: Some(vec![]),
        ..Default::default()
    };
    m.extend(hb.to_bytes(1).expect("encodes").to_vec());
    m.extend(op_header(Op::Join, 9, PATCH_GROUP | PATCH_SHAPE, 0));
    m.extend(
        JoinGroupRequest {
            protocols: vec![JoinGroupRequestProtocol {
                name: "range".into(),
                metadata: subscription_bytes(3),
                ..Default::default()
            }],
            ..Default::default()
        }
        .to_bytes(9)
        .expect("encodes")
        .to_vec(),
    );
    out.push(("mixed-consumer-then-classic".to_string(), m));
    for v in 0..=3i16 {
        let mut p = Vec::new();
        for b in [subscription_bytes(v), assignment_bytes(v)] {
            p.extend(op_header(Op::ConsumerProtocol, 0, 0, 0));
            p.extend((b.len() as u16).to_be_bytes());
            p.extend_from_slice(&b);
        }
        out.push((format!("consumer-protocol-v{v}"), p));
    }
    out
}

/// A version-prefixed ConsumerProtocolSubscription of topics `t0`, `t1` at `v`.
pub fn subscription_bytes(v: i16) -> Bytes {
    let s = ConsumerProtocolSubscription {
        topics: vec!["t0".into(), "t1".into()],
        ..Default::default()
    };
    let mut b = v.to_be_bytes().to_vec();
    b.extend_from_slice(&s.to_bytes(v).expect("encodes"));
    Bytes::from(b)
}

/// A version-prefixed ConsumerProtocolAssignment of `t0` partition 0 at `v`.
pub fn assignment_bytes(v: i16) -> Bytes {
    let a = ConsumerProtocolAssignment {
        assigned_partitions: vec![
            kwire_protocol::generated::consumer_protocol_assignment::TopicPartition {
                topic: "t0".into(),
                partitions: vec![0].into(),
            },
        ],
        ..Default::default()
    };
    let mut b = v.to_be_bytes().to_vec();
    b.extend_from_slice(&a.to_bytes(v).expect("encodes"));
    Bytes::from(b)
}

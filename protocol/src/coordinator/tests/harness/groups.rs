//! Builders of the groups the tests start from, each a [`Harness`] or the requests and records
//! that make one: a coordinator with topics, a consumer group of N stable members (as records),
//! a classic group after a complete join round (KIP-394), a streams group's topology and its
//! members' heartbeats.

use std::sync::Arc;

use bytes::Bytes;

use super::Harness;
use crate::coordinator::consumer::assignor::{Assignment, RangeAssignor};
use crate::coordinator::consumer::migration::decode_assignment;
use crate::coordinator::consumer::{ConsumerGroupConfig, ConsumerGroupMember, ConsumerRecord};
use crate::coordinator::streams::tasks::TaskSet;
use crate::coordinator::streams::StreamsGroupConfig;
use crate::coordinator::{
    ClassicGroupConfig, GroupCoordinator, GroupResponse, Record, SequentialMemberIds, TopicMetadata,
};
use crate::error::ErrorCode;
use crate::generated::consumer_protocol_subscription::{
    ConsumerProtocolSubscription, TopicPartition as SubTp,
};
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::streams_group_heartbeat_request as rq;
use crate::generated::streams_group_heartbeat_response as rs;
use crate::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use crate::wire::{Encode, Uuid};

/// A new coordinator with `config`, its member ids from `seed` ([`SequentialMemberIds`]).
pub(crate) fn coordinator(config: ConsumerGroupConfig, seed: u64) -> GroupCoordinator {
    GroupCoordinator::new(config, Box::new(SequentialMemberIds::new(seed))).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Topics and consumer groups.

/// Topic `foo`'s id.
pub(crate) const FOO: Uuid = Uuid::from_u128(0xF00);
/// Topic `bar`'s id.
pub(crate) const BAR: Uuid = Uuid::from_u128(0xBA2);
/// Topic `zar`'s id.
pub(crate) const ZAR: Uuid = Uuid::from_u128(0x2A2);

/// `(topic, partitions)` as an assignment (topics with no partitions left out).
pub(crate) fn assignment(parts: &[(Uuid, &[i32])]) -> Assignment {
    let mut a = Assignment::new();
    for (t, ps) in parts {
        if !ps.is_empty() {
            a.entry(*t).or_default().extend(ps.iter().copied());
        }
    }
    a
}

/// A coordinator with `config` (member ids from `seed`), foo (6 partitions) and bar (3)
/// published at 0 ms, driven from 0 ms.
pub(crate) fn foo_bar_harness(config: ConsumerGroupConfig, seed: u64) -> Harness {
    let mut h = Harness::new(coordinator(config, seed), vec![], 0);
    h.set_topics(vec![
        TopicMetadata::new(FOO, "foo", 6),
        TopicMetadata::new(BAR, "bar", 3),
    ]);
    h
}

/// [`foo_bar_harness`] with the `range` assignor, the config changed by `configure` (e.g. the
/// migration policy).
pub(crate) fn range_assignor_harness(
    configure: impl FnOnce(&mut ConsumerGroupConfig),
    seed: u64,
) -> Harness {
    let mut config = ConsumerGroupConfig::with_assignors(vec![Arc::new(RangeAssignor)]);
    configure(&mut config);
    foo_bar_harness(config, seed)
}

/// The records of a consumer group `g` of stable members (Kafka's "M(e10) ..." fixtures):
/// `(member id, instance id, subscribed topic names, assignment)` each, STABLE at epoch `e`
/// with current = target, the group at group epoch = assignment epoch = `e`.
pub(crate) fn stable_consumer_group(
    g: &str,
    e: i32,
    members: &[(&str, Option<&str>, &[&str], Assignment)],
) -> Vec<Record> {
    let mut r: Vec<Record> = vec![];
    for (m, inst, names, _) in members {
        let mut mm = ConsumerGroupMember::new(m);
        mm.instance_id = inst.map(str::to_string);
        mm.client_id = "client".into();
        mm.client_host = "/127.0.0.1".into();
        mm.rebalance_timeout_ms = 5000;
        mm.subscribed_topic_names = names.iter().map(|s| s.to_string()).collect();
        r.push(ConsumerRecord::member_metadata(g, &mm).into());
    }
    r.push(ConsumerRecord::group_epoch(g, e, 0).into());
    for (m, _, _, asg) in members {
        r.push(ConsumerRecord::target(g, m, asg).into());
    }
    r.push(ConsumerRecord::target_epoch(g, e).into());
    for (m, inst, names, asg) in members {
        let mut mm = ConsumerGroupMember::new(m);
        mm.instance_id = inst.map(str::to_string);
        mm.subscribed_topic_names = names.iter().map(|s| s.to_string()).collect();
        mm.member_epoch = e;
        mm.previous_member_epoch = e - 1;
        mm.assigned = asg.clone();
        r.push(ConsumerRecord::current(g, &mm).into());
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Classic groups.

/// A coordinator (member ids from `seed`, default consumer config) with the classic `config`,
/// driven from 1,000 ms.
pub(crate) fn classic_harness(config: ClassicGroupConfig, seed: u64) -> Harness {
    let mut c = coordinator(ConsumerGroupConfig::default(), seed);
    c.set_classic_config(config).unwrap();
    Harness::new(c, vec![], 1_000)
}

/// A version-prefixed ConsumerProtocolSubscription at `version` (what a classic consumer puts
/// in its JoinGroup protocol metadata, Kafka's `ConsumerProtocol.serializeSubscription`).
pub(crate) fn subscription(
    topics: &[&str],
    owned: &[(&str, &[i32])],
    user_data: Option<&[u8]>,
    version: i16,
) -> Bytes {
    let s = ConsumerProtocolSubscription {
        topics: topics.iter().map(|t| t.to_string().into()).collect(),
        user_data: user_data.map(Bytes::copy_from_slice),
        owned_partitions: owned
            .iter()
            .map(|(t, ps)| SubTp {
                topic: t.to_string().into(),
                partitions: ps.iter().copied().collect(),
            })
            .collect(),
        generation_id: -1,
        rack_id: None,
    };
    let mut out = version.to_be_bytes().to_vec();
    s.encode(&mut out, version).unwrap();
    Bytes::from(out)
}

/// The topics of an assignment in SyncGroup bytes, by name, partitions ascending.
pub(crate) fn decoded(bytes: &Bytes) -> Vec<(String, Vec<i32>)> {
    if bytes.is_empty() {
        return vec![];
    }
    decode_assignment(bytes)
        .unwrap()
        .assigned_partitions
        .iter()
        .map(|tp| (tp.topic.to_string(), tp.partitions.iter().collect()))
        .collect()
}

/// A SyncGroup of `member` of `group` at `generation` (protocol consumer/range).
pub(crate) fn sync_request(
    group: &str,
    member: &str,
    generation: i32,
    assignments: Vec<SyncGroupRequestAssignment>,
) -> SyncGroupRequest {
    SyncGroupRequest {
        group_id: group.to_string().into(),
        generation_id: generation,
        member_id: member.to_string().into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        assignments,
        ..Default::default()
    }
}

/// A classic group after one complete join round.
#[derive(Debug, Clone)]
pub(crate) struct JoinRound {
    pub generation: i32,
    pub leader: String,
    /// The member ids, in join order.
    pub ids: Vec<String>,
}

/// Runs a classic group's first join round to Stable: `n` members join at JoinGroup v9 with
/// `join(i, "")` (KIP-394: MEMBER_ID_REQUIRED and the id at once), rejoin with `join(i, id)`,
/// the timers fire until every join is answered (the initial rebalance delay), the followers
/// sync and then the leader, giving the i-th member `assignments[i]`; every sync is answered.
pub(crate) fn classic_join_round(
    h: &mut Harness,
    n: usize,
    join: impl Fn(usize, &str) -> JoinGroupRequest,
    assignments: &[Bytes],
) -> JoinRound {
    let group = join(0, "").group_id.to_string();
    let mut ids = Vec::new();
    for i in 0..n {
        let id = h.send_join(9, &join(i, ""));
        let r = h.take_join(id).expect("MEMBER_ID_REQUIRED comes at once");
        assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
        ids.push(r.member_id.to_string());
    }
    let sent: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, m)| h.send_join(9, &join(i, m)))
        .collect();
    let mut answers = Vec::new();
    while answers.len() < n {
        answers.extend(h.drain());
        if answers.len() < n {
            let d =
                h.c.next_deadline()
                    .expect("the join phase waits on a timer");
            h.advance_to(d);
        }
    }
    let (mut generation, mut leader) = (-1, String::new());
    for (id, r) in &answers {
        let GroupResponse::JoinGroup(j) = r else {
            panic!("a join answer: {r:?}")
        };
        assert!(sent.contains(id), "{id:?} answered");
        assert_eq!(j.error_code, 0, "{j:?}");
        generation = j.generation_id;
        leader = j.leader.to_string();
    }
    for m in ids.iter().filter(|m| **m != leader) {
        h.send_sync(5, &sync_request(&group, m, generation, vec![]));
    }
    let all = ids
        .iter()
        .zip(assignments)
        .map(|(m, a)| SyncGroupRequestAssignment {
            member_id: m.clone().into(),
            assignment: a.clone(),
            ..Default::default()
        })
        .collect();
    h.send_sync(5, &sync_request(&group, &leader, generation, all));
    assert_eq!(h.drain().len(), n, "every member got its assignment");
    JoinRound {
        generation,
        leader,
        ids,
    }
}

// ---------------------------------------------------------------------------------------------
// Streams groups.

/// A coordinator (member ids from `seed`, default consumer config) with the streams `config`.
pub(crate) fn streams_coordinator(config: StreamsGroupConfig, seed: u64) -> GroupCoordinator {
    let mut c = coordinator(ConsumerGroupConfig::default(), seed);
    c.set_streams_config(config).unwrap();
    c
}

/// A streams coordinator (member ids from 7) driven from 1,000 ms, `topics` published then.
pub(crate) fn streams_harness(config: StreamsGroupConfig, topics: Vec<TopicMetadata>) -> Harness {
    let mut h = Harness::new(streams_coordinator(config, 7), vec![], 1_000);
    h.set_topics(topics);
    h
}

/// Topic `name` with `partitions`, its id the name's first 16 bytes.
pub(crate) fn topic(name: &str, partitions: i32) -> TopicMetadata {
    let mut id = [0u8; 16];
    for (i, b) in name.bytes().enumerate().take(16) {
        id[i] = b;
    }
    TopicMetadata::new(Uuid(id), name, partitions)
}

/// A subtopology reading `sources`, with changelogs `changelogs` (partition count undefined).
pub(crate) fn subtopology(id: &str, sources: &[&str], changelogs: &[&str]) -> rq::Subtopology {
    rq::Subtopology {
        subtopology_id: id.to_string().into(),
        source_topics: sources.iter().map(|s| s.to_string().into()).collect(),
        state_changelog_topics: changelogs
            .iter()
            .map(|c| rq::TopicInfo {
                name: c.to_string().into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// A topology at `epoch` of `subs`.
pub(crate) fn topology(epoch: i32, subs: Vec<rq::Subtopology>) -> rq::Topology {
    rq::Topology {
        epoch,
        subtopologies: subs,
        ..Default::default()
    }
}

/// The join (epoch 0, rebalance timeout 1.5 s) of `member` of process `process` to group `g`
/// with topology `t`, owning nothing.
pub(crate) fn streams_join(
    member: &str,
    process: &str,
    t: rq::Topology,
) -> rq::StreamsGroupHeartbeatRequest {
    rq::StreamsGroupHeartbeatRequest {
        group_id: "g".to_string().into(),
        member_id: member.to_string().into(),
        member_epoch: 0,
        rebalance_timeout_ms: 1500,
        topology: Some(t),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        process_id: Some(process.to_string().into()),
        ..Default::default()
    }
}

/// The tasks of `s` as a heartbeat lists them.
pub(crate) fn task_ids(s: &TaskSet) -> Vec<rq::TaskIds> {
    s.iter()
        .map(|(id, ps)| rq::TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

/// A heartbeat of `member` of group `g` at `epoch` reporting `owned` (active, standby) tasks,
/// or no owned lists.
pub(crate) fn streams_beat(
    member: &str,
    epoch: i32,
    owned: Option<(&TaskSet, &TaskSet)>,
) -> rq::StreamsGroupHeartbeatRequest {
    rq::StreamsGroupHeartbeatRequest {
        group_id: "g".to_string().into(),
        member_id: member.to_string().into(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        active_tasks: owned.map(|o| task_ids(o.0)),
        standby_tasks: owned.map(|o| task_ids(o.1)),
        warmup_tasks: owned.map(|_| vec![]),
        ..Default::default()
    }
}

/// `(subtopology, partitions)` as a task set.
pub(crate) fn tasks(list: &[(&str, &[i32])]) -> TaskSet {
    list.iter()
        .map(|(s, ps)| (s.to_string(), ps.iter().copied().collect()))
        .collect()
}

/// An answer's task list as a [`TaskSet`], asserting partitions are strictly ascending and no
/// subtopology is listed twice or empty.
pub(crate) fn answered_tasks(list: &[rs::TaskIds]) -> TaskSet {
    let mut out = TaskSet::new();
    for t in list {
        let ps: Vec<i32> = t.partitions.iter().collect();
        assert!(
            !ps.is_empty(),
            "empty partition list for subtopology {}",
            &*t.subtopology_id
        );
        assert!(
            ps.windows(2).all(|w| w[0] < w[1]),
            "partitions not ascending: {ps:?}"
        );
        let prev = out.insert(t.subtopology_id.to_string(), ps.into_iter().collect());
        assert!(
            prev.is_none(),
            "subtopology {} listed twice",
            &*t.subtopology_id
        );
    }
    out
}

//! One complete join round of a classic group of 1,000 members inside the coordinator
//! (docs/coordinator.md §Classic groups): the group is Stable; the leader rejoins (a rebalance
//! starts), the 999 followers rejoin, the last JoinGroup ends the join phase (generation + 1,
//! 1,000 JoinGroup answers, the leader's carrying every member's metadata); the 999 followers
//! send SyncGroup (they wait), then the leader's SyncGroup brings the 1,000 assignments and
//! answers everyone. Every answer is drained with `poll_response`, and the group is Stable again
//! at the next generation, so every iteration is the same round.
//!
//! Member metadata: a ConsumerProtocolSubscription v3 of 10 topics (about 100 bytes); each
//! assignment a ConsumerProtocolAssignment v3 of 10 partitions. The requests are built before
//! timing (a client's work); only their generation id is set per round.

use criterion::{criterion_group, criterion_main, Criterion};
use kwire_protocol::bytes::Bytes;
use kwire_protocol::coordinator::{
    ClassicGroupConfig, ConsumerGroupConfig, GroupCoordinator, GroupResponse, RequestContext,
    RequestId, SequentialMemberIds,
};
use kwire_protocol::generated::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition,
};
use kwire_protocol::generated::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kwire_protocol::wire::Message;

const MEMBERS: usize = 1000;
const GROUP: &str = "bench";
const JOIN_V: i16 = 9;
const SYNC_V: i16 = 5;

/// Kafka's version-prefixed consumer-protocol bytes of a message at `v`.
fn prefixed<M: Message>(m: &M, v: i16) -> Bytes {
    let mut b = v.to_be_bytes().to_vec();
    b.extend_from_slice(&m.to_bytes(v).unwrap());
    Bytes::from(b)
}

fn subscription() -> Bytes {
    let s = ConsumerProtocolSubscription {
        topics: (0..10).map(|t| format!("topic-{t}").into()).collect(),
        ..Default::default()
    };
    prefixed(&s, 3)
}

fn assignment(member: usize) -> Bytes {
    let a = ConsumerProtocolAssignment {
        assigned_partitions: (0..10)
            .map(|t| TopicPartition {
                topic: format!("topic-{t}").into(),
                partitions: vec![member as i32].into(),
            })
            .collect(),
        ..Default::default()
    };
    prefixed(&a, 3)
}

fn join_request(member_id: &str, metadata: &Bytes) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: GROUP.into(),
        session_timeout_ms: 45_000,
        rebalance_timeout_ms: 300_000,
        member_id: member_id.to_string().into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: metadata.clone(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The answers drained from the coordinator, as join answers (panics on another kind).
fn joins(c: &mut GroupCoordinator) -> Vec<(RequestId, GroupResponse)> {
    std::iter::from_fn(|| c.poll_response()).collect()
}

/// The round's fixed inputs: the coordinator with a Stable group, the JoinGroup requests (leader
/// first), the SyncGroup requests (leader last) and the current generation.
struct Round {
    c: GroupCoordinator,
    joins: Vec<JoinGroupRequest>,
    syncs: Vec<SyncGroupRequest>,
    generation: i32,
    now: i64,
    next_id: u64,
}

impl Round {
    fn id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId(self.next_id)
    }

    /// One round (see the module docs); returns the number of answers (2,000).
    fn run(&mut self) -> usize {
        self.now += 1;
        let join_ctx = RequestContext::new("bench", "/10.0.0.1", JOIN_V);
        let sync_ctx = RequestContext::new("bench", "/10.0.0.1", SYNC_V);
        let mut answers = 0;
        let mut generation = self.generation;
        for i in 0..self.joins.len() {
            let id = self.id();
            let r = self.c.join_group(&join_ctx, &self.joins[i], id, self.now);
            std::hint::black_box(r);
            while let Some((_, resp)) = self.c.poll_response() {
                let GroupResponse::JoinGroup(j) = resp else {
                    panic!("a join answer")
                };
                assert_eq!(j.error_code, 0);
                generation = j.generation_id;
                answers += 1;
            }
        }
        assert_eq!(
            generation,
            self.generation + 1,
            "the round ends the join phase"
        );
        self.generation = generation;
        for i in 0..self.syncs.len() {
            self.syncs[i].generation_id = generation;
            let id = self.id();
            let r = self.c.sync_group(&sync_ctx, &self.syncs[i], id, self.now);
            std::hint::black_box(r);
            while let Some((_, resp)) = self.c.poll_response() {
                let GroupResponse::SyncGroup(s) = resp else {
                    panic!("a sync answer")
                };
                assert_eq!(s.error_code, 0);
                answers += 1;
            }
        }
        answers
    }
}

/// A Stable group of [`MEMBERS`] members (joined at v9: member id required, then the initial
/// rebalance delay), its leader and the requests of a round.
fn stable_group() -> Round {
    let mut c = GroupCoordinator::new(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(1)),
    )
    .unwrap();
    c.set_classic_config(ClassicGroupConfig {
        min_session_timeout_ms: 6_000,
        max_session_timeout_ms: 1_800_000,
        initial_rebalance_delay_ms: 3_000,
        max_size: i32::MAX,
    })
    .unwrap();
    let ctx = RequestContext::new("bench", "/10.0.0.1", JOIN_V);
    let metadata = subscription();
    let mut next = 0u64;
    let mut id = || {
        next += 1;
        RequestId(next)
    };
    // KIP-394: an empty member id gets MEMBER_ID_REQUIRED and an id.
    let mut ids = Vec::with_capacity(MEMBERS);
    for _ in 0..MEMBERS {
        c.join_group(&ctx, &join_request("", &metadata), id(), 0);
        let Some((_, GroupResponse::JoinGroup(j))) = c.poll_response() else {
            panic!("MEMBER_ID_REQUIRED answer")
        };
        assert_eq!(j.error_code, 79, "MEMBER_ID_REQUIRED");
        ids.push(j.member_id.as_str().to_string());
    }
    for m in &ids {
        c.join_group(&ctx, &join_request(m, &metadata), id(), 0);
    }
    let mut now = 0;
    let mut answered = joins(&mut c);
    while answered.len() < MEMBERS {
        now = c
            .next_deadline()
            .expect("the initial rebalance delay is armed");
        c.fire_timers(now);
        answered.extend(joins(&mut c));
    }
    let (mut leader, mut generation) = (String::new(), 0);
    for (_, r) in &answered {
        let GroupResponse::JoinGroup(j) = r else {
            panic!("a join answer")
        };
        assert_eq!(j.error_code, 0);
        leader = j.leader.as_str().to_string();
        generation = j.generation_id;
    }
    let leader_index = ids.iter().position(|m| *m == leader).unwrap();
    ids.swap(0, leader_index);
    let syncs: Vec<SyncGroupRequest> = ids
        .iter()
        .rev()
        .map(|m| SyncGroupRequest {
            group_id: GROUP.into(),
            generation_id: generation,
            member_id: m.clone().into(),
            protocol_type: Some("consumer".into()),
            protocol_name: Some("range".into()),
            assignments: if *m == leader {
                ids.iter()
                    .enumerate()
                    .map(|(i, m)| SyncGroupRequestAssignment {
                        member_id: m.clone().into(),
                        assignment: assignment(i),
                        ..Default::default()
                    })
                    .collect()
            } else {
                vec![]
            },
            ..Default::default()
        })
        .collect();
    let mut round = Round {
        c,
        joins: ids.iter().map(|m| join_request(m, &metadata)).collect(),
        syncs,
        generation,
        now,
        next_id: next,
    };
    // The first sync round of the initial generation: the group becomes Stable.
    let sync_ctx = RequestContext::new("bench", "/10.0.0.1", SYNC_V);
    for i in 0..round.syncs.len() {
        let id = round.id();
        round.c.sync_group(&sync_ctx, &round.syncs[i], id, now);
    }
    let synced = joins(&mut round.c);
    assert_eq!(synced.len(), MEMBERS, "every member has its assignment");
    round
}

fn bench(c: &mut Criterion) {
    let mut round = stable_group();
    assert_eq!(round.run(), 2 * MEMBERS, "a warm-up round answers everyone");
    let mut g = c.benchmark_group("classic_group");
    g.sample_size(20);
    g.bench_function("join_round_1000_members", |b| {
        b.iter(|| {
            let n = round.run();
            assert_eq!(n, 2 * MEMBERS);
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

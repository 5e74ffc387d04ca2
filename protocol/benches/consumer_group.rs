//! One heartbeat of a stable member in a consumer group of 1,000 members (docs/coordinator.md
//! §1.4): the request carries only group id, member id and epoch, the member is STABLE at the
//! assignment epoch, so the answer is a plain ack with a null assignment and no records.

use criterion::{criterion_group, criterion_main, Criterion};
use kwire_protocol::coordinator::{
    ConsumerGroupConfig, GroupCoordinator, GroupState, RequestContext, SequentialMemberIds,
    TopicMetadata,
};
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::wire::Uuid;

const MEMBERS: usize = 1000;

fn stable_group() -> (GroupCoordinator, Vec<i32>) {
    let mut c = GroupCoordinator::new(
        ConsumerGroupConfig::default(),
        Box::new(SequentialMemberIds::new(1)),
    )
    .unwrap();
    let topics: Vec<TopicMetadata> = (0..10)
        .map(|i| TopicMetadata::new(Uuid::from_u128(i + 1), &format!("topic-{i}"), 1000))
        .collect();
    let names: Vec<_> = topics.iter().map(|t| t.name.clone().into()).collect();
    c.set_topics(topics, 0);
    let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
    let mut epochs = vec![0; MEMBERS];
    for (i, e) in epochs.iter_mut().enumerate() {
        let req = ConsumerGroupHeartbeatRequest {
            group_id: "bench".into(),
            member_id: format!("member-{i:04}").into(),
            member_epoch: 0,
            rebalance_timeout_ms: 30_000,
            subscribed_topic_names: Some(names.clone()),
            topic_partitions: Some(vec![]),
            ..Default::default()
        };
        *e = c
            .consumer_group_heartbeat(&ctx, &req, 0)
            .response
            .member_epoch;
    }
    // Heartbeat until every member is STABLE at the assignment epoch (owned = assigned).
    for round in 0..20 {
        if c.group("bench").map(|g| g.state) == Some(GroupState::Stable) {
            break;
        }
        assert!(round < 19, "group did not stabilise");
        for (i, e) in epochs.iter_mut().enumerate() {
            let id = format!("member-{i:04}");
            let assigned = c.group("bench").unwrap().members[&id].assigned.clone();
            let req = ConsumerGroupHeartbeatRequest {
                group_id: "bench".into(),
                member_id: id.into(),
                member_epoch: *e,
                topic_partitions: Some(
                    assigned
                        .iter()
                        .map(|(t, ps)| kwire_protocol::generated::consumer_group_heartbeat_request::TopicPartitions {
                            topic_id: *t,
                            partitions: ps.iter().copied().collect(),
                            ..Default::default()
                        })
                        .collect(),
                ),
                ..Default::default()
            };
            *e = c
                .consumer_group_heartbeat(&ctx, &req, 1)
                .response
                .member_epoch;
        }
    }
    (c, epochs)
}

fn bench(c: &mut Criterion) {
    let (mut coord, epochs) = stable_group();
    let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
    let req = ConsumerGroupHeartbeatRequest {
        group_id: "bench".into(),
        member_id: "member-0500".into(),
        member_epoch: epochs[500],
        ..Default::default()
    };
    let mut now = 10;
    c.bench_function("consumer_group_heartbeat_stable_member_of_1000", |b| {
        b.iter(|| {
            now += 1;
            let out = coord.consumer_group_heartbeat(&ctx, &req, now);
            assert!(out.records.is_empty() && out.response.error_code == 0);
            out
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! One target-assignment computation of the server-side assignors for 1,000 members and
//! 10,000 partitions (100 topics x 100 partitions).
//!
//! * `homogeneous`: every member subscribes to all 100 topics.
//! * `heterogeneous`: four member classes; class `c` subscribes to the 75 topics whose index
//!   is not `c` mod 4 (overlapping, non-identical subscriptions, so the uniform assignor's
//!   balancing passes run).
//! * `first`: no previous targets. `member-joined`: the previous targets are the assignor's own
//!   balanced result for the other 999 members, and one new member joins (the usual
//!   incremental case; only meaningful for the sticky `uniform`).
//!
//! Run: `cargo bench -p kwire-protocol --bench assignors` (add `-- --quick` for a short run).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kwire_protocol::coordinator::assignor::{
    ConsumerGroupAssignor, GroupAssignment, GroupSpec, MemberSpec, RangeAssignor, SubscriptionType,
    TopicInfo, TopicsSpec, UniformAssignor,
};
use kwire_protocol::wire::Uuid;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const MEMBERS: usize = 1_000;
const TOPICS: usize = 100;
const PARTITIONS: i32 = 100;

fn topic_id(i: usize) -> Uuid {
    // Spread the ids over the whole range, as random ids would be.
    Uuid::from_u128((i as u128 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
}

fn topics() -> TopicsSpec {
    (0..TOPICS)
        .map(|i| {
            (
                topic_id(i),
                TopicInfo {
                    name: format!("topic-{i}"),
                    partitions: PARTITIONS,
                    partition_racks: BTreeMap::new(),
                },
            )
        })
        .collect()
}

fn group(homogeneous: bool, members: usize) -> GroupSpec {
    let members = (0..members)
        .map(|m| {
            let subs: BTreeSet<Uuid> = (0..TOPICS)
                .filter(|t| homogeneous || t % 4 != m % 4)
                .map(topic_id)
                .collect();
            (
                format!("member-{m:04}"),
                MemberSpec {
                    subscribed_topic_ids: subs,
                    ..Default::default()
                },
            )
        })
        .collect();
    let subscription_type = if homogeneous {
        SubscriptionType::Homogeneous
    } else {
        SubscriptionType::Heterogeneous
    };
    GroupSpec {
        members,
        subscription_type,
    }
}

/// The group after one more member joined, with everyone else's previous target from `stable`.
fn member_joined(
    homogeneous: bool,
    assignor: &dyn ConsumerGroupAssignor,
    tp: &TopicsSpec,
) -> GroupSpec {
    let before = group(homogeneous, MEMBERS - 1);
    let stable: GroupAssignment = assignor.assign(&before, tp).expect("assign");
    let mut after = group(homogeneous, MEMBERS);
    for (id, m) in &mut after.members {
        m.assigned = stable.members.get(id).cloned().unwrap_or_default();
    }
    after
}

fn bench(c: &mut Criterion) {
    let tp = topics();
    let mut g = c.benchmark_group("assign-1000x10000");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let assignors: [&dyn ConsumerGroupAssignor; 2] = [&UniformAssignor, &RangeAssignor];
    for assignor in assignors {
        for homogeneous in [true, false] {
            let kind = if homogeneous {
                "homogeneous"
            } else {
                "heterogeneous"
            };
            let first = group(homogeneous, MEMBERS);
            g.bench_with_input(
                BenchmarkId::new(assignor.name(), format!("{kind}/first")),
                &first,
                |b, spec| b.iter(|| assignor.assign(spec, &tp).expect("assign")),
            );
            if assignor.name() == UniformAssignor::NAME {
                let joined = member_joined(homogeneous, assignor, &tp);
                g.bench_with_input(
                    BenchmarkId::new(assignor.name(), format!("{kind}/member-joined")),
                    &joined,
                    |b, spec| b.iter(|| assignor.assign(spec, &tp).expect("assign")),
                );
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

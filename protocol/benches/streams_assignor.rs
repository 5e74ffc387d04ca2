//! One target assignment of the streams-group sticky task assignor (KIP-1071) for 200 members in
//! 50 processes (4 members each) and 2,000 tasks (20 stateful subtopologies x 100 partitions),
//! with one standby replica per task.
//!
//! * `first`: no previous tasks.
//! * `member-removed`: the previous tasks are the assignor's own result for all 200 members, and
//!   one member has left (its tasks are spread over the others).
//! * `stable`: the previous tasks are the assignor's own result for the same group (nothing
//!   moves; the usual case of a rebalance without membership change).
//! * `warmups`: 196 members in 49 processes with the assignor's own result as previous tasks,
//!   each reporting task offsets and end offsets (its active tasks running, its standbys 5
//!   offsets behind an end offset sum of 1,000), and 4 new members in a new process without
//!   state: the 40 active tasks balance gives them stay on their previous owners while at most
//!   `num.warmup.replicas` = 20 warm-ups catch up (docs/coordinator.md §2.12).
//!
//! Run: `cargo bench -p kwire-protocol --bench streams_assignor` (add `-- --quick` for a short
//! run).

use criterion::{criterion_group, criterion_main, Criterion};
use kwire_protocol::coordinator::streams::assignor::{
    AssignmentMemberSpec, GroupSpec, StickyTaskAssignor, SubtopologySpec, TaskAssignor,
    LATEST_OFFSET,
};
use kwire_protocol::coordinator::streams::tasks::TasksTuple;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

const MEMBERS: usize = 200;
const PROCESSES: usize = 50;
const SUBTOPOLOGIES: usize = 20;
const PARTITIONS: i32 = 100;

/// The group with no previous tasks.
fn group() -> GroupSpec {
    let members = (0..MEMBERS)
        .map(|m| {
            let spec = AssignmentMemberSpec {
                process_id: format!("process-{:03}", m % PROCESSES),
                ..Default::default()
            };
            (format!("member-{m:04}"), spec)
        })
        .collect();
    let subtopologies = (0..SUBTOPOLOGIES)
        .map(|s| {
            let spec = SubtopologySpec {
                num_tasks: PARTITIONS,
                stateful: true,
            };
            (format!("subtopology-{s:02}"), spec)
        })
        .collect();
    GroupSpec {
        members,
        subtopologies,
        num_standby_replicas: 1,
        ..Default::default()
    }
}

/// `spec` with every member's previous tasks taken from `result`.
fn with_previous(spec: &GroupSpec, result: &BTreeMap<String, TasksTuple>) -> GroupSpec {
    let mut next = spec.clone();
    for (id, m) in &mut next.members {
        let tasks = result.get(id).cloned().unwrap_or_default();
        m.active_tasks = tasks.active;
        m.standby_tasks = tasks.standby;
        m.warmup_tasks = tasks.warmup;
    }
    next
}

/// 196 members (49 processes) with the assignor's own result as previous tasks and their task
/// offsets, plus 4 new members in a new process without state (see the module docs).
fn warmups() -> GroupSpec {
    let mut spec = group();
    spec.members.retain(|_, m| m.process_id != "process-049");
    let result = StickyTaskAssignor.assign(&spec).expect("assign");
    let mut spec = with_previous(&spec, &result);
    spec.num_warmup_replicas = 20;
    spec.acceptable_recovery_lag = 10;
    for m in spec.members.values_mut() {
        m.warmups_allowed = true;
        for (s, ps) in &m.active_tasks {
            for p in ps {
                m.task_offsets.insert((s.clone(), *p), LATEST_OFFSET);
                m.task_end_offsets.insert((s.clone(), *p), 1_000);
            }
        }
        for (s, ps) in &m.standby_tasks {
            for p in ps {
                m.task_offsets.insert((s.clone(), *p), 995);
                m.task_end_offsets.insert((s.clone(), *p), 1_000);
            }
        }
    }
    for i in 0..4 {
        let fresh = AssignmentMemberSpec {
            process_id: "process-new".to_string(),
            warmups_allowed: true,
            ..Default::default()
        };
        spec.members.insert(format!("member-new-{i}"), fresh);
    }
    spec
}

fn bench(c: &mut Criterion) {
    let assignor = StickyTaskAssignor;
    let first = group();
    let stable = assignor.assign(&first).expect("assign");
    let mut removed = with_previous(&first, &stable);
    removed
        .members
        .remove(&format!("member-{:04}", MEMBERS / 2));
    let stable = with_previous(&first, &stable);
    let warm = warmups();

    let warm_result = assignor.assign(&warm).expect("assign");
    let placed: usize = warm_result
        .values()
        .map(|t| t.warmup.values().map(|p| p.len()).sum::<usize>())
        .sum();
    assert_eq!(placed, 20, "warm-ups placed");

    let mut g = c.benchmark_group("sticky-200x2000");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, spec) in [
        ("first", &first),
        ("member-removed", &removed),
        ("stable", &stable),
        ("warmups", &warm),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| assignor.assign(black_box(spec)).expect("assign"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

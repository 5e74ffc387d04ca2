//! One StreamsGroupHeartbeat (v1) of a stable member in a streams group of 200 members in 50
//! processes (docs/coordinator.md §2.4): the topology has 20 stateful subtopologies of 100 tasks
//! (2,000 tasks, one standby each, warm-ups on); the request carries only group id, member id
//! and epoch, the member is STABLE at the assignment epoch, so the answer is a plain ack with
//! null task lists and no records.
//!
//! Run: `cargo bench -p kwire-protocol --features coordinator --bench streams_group`.
//!
//! Instruction counts: with `KWIRE_HEARTBEATS=N` in the environment the binary skips criterion
//! and sends the same heartbeat N times, so callgrind can count one call (benches/README.md):
//!
//! ```sh
//! KWIRE_HEARTBEATS=1000 valgrind --tool=callgrind \
//!     --toggle-collect='*streams_group_heartbeat*' target/release/deps/streams_group-<hash>
//! ```
//!
//! and divide the difference of the totals of two values of N (the setup's heartbeats count
//! too) by the difference of N; `--toggle-collect='*measured_heartbeats*'` profiles only the N
//! heartbeats (callgrind_annotate --inclusive=yes).

use criterion::{criterion_group, Criterion};
use kwire_protocol::coordinator::{GroupCoordinator, RequestContext};
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

#[path = "../tests/support/groups.rs"]
mod groups;

const GROUP: &str = "bench";

/// 200 members in 50 processes, 20 stateful subtopologies of 100 tasks.
const SHAPE: groups::StreamsShape = groups::StreamsShape {
    group: GROUP,
    members: 200,
    processes: 50,
    subtopologies: 20,
    partitions: 100,
};

fn stable_group() -> (GroupCoordinator, Vec<i32>) {
    groups::stable_streams_group(&SHAPE, &RequestContext::new("bench", "/10.0.0.1", 1))
}

/// The heartbeat of member 100: group id, member id and epoch only.
fn stable_request(epochs: &[i32]) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "member-0100".into(),
        member_epoch: epochs[100],
        ..Default::default()
    }
}

/// One stable heartbeat at `now` (ms), checked to be a plain ack.
fn heartbeat(
    coord: &mut GroupCoordinator,
    ctx: &RequestContext,
    req: &StreamsGroupHeartbeatRequest,
    now: i64,
) -> kwire_protocol::coordinator::StreamsHeartbeatOutput {
    let out = coord.streams_group_heartbeat(ctx, req, now);
    assert!(out.records.is_empty() && out.response.error_code == 0);
    assert!(out.response.active_tasks.is_none());
    out
}

fn bench(c: &mut Criterion) {
    let (mut coord, epochs) = stable_group();
    let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
    let req = stable_request(&epochs);
    let mut now = 10;
    c.bench_function("streams_group_heartbeat_stable_member_of_200", |b| {
        b.iter(|| {
            now += 1;
            heartbeat(&mut coord, &ctx, &req, now)
        })
    });
}

criterion_group!(benches, bench);

/// The N heartbeats of `KWIRE_HEARTBEATS=N`, apart from the setup's, so that
/// `--toggle-collect='*measured_heartbeats*'` profiles only them.
#[inline(never)]
fn measured_heartbeats(
    coord: &mut GroupCoordinator,
    ctx: &RequestContext,
    req: &StreamsGroupHeartbeatRequest,
    n: i64,
) {
    for now in 10..10 + n {
        drop(heartbeat(coord, ctx, req, now));
    }
}

fn main() {
    // `KWIRE_HEARTBEATS=N`: N heartbeats and no criterion, for callgrind (see the module docs).
    if let Some(n) = std::env::var("KWIRE_HEARTBEATS")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
    {
        let (mut coord, epochs) = stable_group();
        let ctx = RequestContext::new("bench", "/10.0.0.1", 1);
        let req = stable_request(&epochs);
        measured_heartbeats(&mut coord, &ctx, &req, n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

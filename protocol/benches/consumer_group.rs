//! One heartbeat of a stable member in a consumer group of 1,000 members (docs/coordinator.md
//! §1.4): the request carries only group id, member id and epoch, the member is STABLE at the
//! assignment epoch, so the answer is a plain ack with a null assignment and no records. The
//! group is built by `tests/support/groups.rs`, which the allocation test shares.
//!
//! With `KWIRE_HEARTBEATS=N` in the environment the binary runs N such heartbeats and exits,
//! without criterion: the run to count instructions per heartbeat with callgrind
//! (benches/README.md, coordinator section).

use criterion::{criterion_group, Criterion};
use kwire_protocol::coordinator::{GroupCoordinator, RequestContext};
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;

#[path = "../tests/support/groups.rs"]
mod groups;

const MEMBERS: usize = 1000;

/// One heartbeat, kept out of line so that callgrind's `--toggle-collect` sees each call.
#[inline(never)]
fn beat(
    c: &mut GroupCoordinator,
    ctx: &RequestContext,
    req: &ConsumerGroupHeartbeatRequest,
    now: i64,
) {
    let out = c.consumer_group_heartbeat(ctx, req, now);
    assert!(out.records.is_empty() && out.response.error_code == 0);
    std::hint::black_box(out);
}

fn bench(c: &mut Criterion) {
    let (mut coord, epochs) = groups::stable_consumer_group(MEMBERS);
    let ctx = groups::consumer_context();
    let req = groups::stable_heartbeat("member-0500", epochs[500]);
    let mut now = 10;
    c.bench_function("consumer_group_heartbeat_stable_member_of_1000", |b| {
        b.iter(|| {
            now += 1;
            beat(&mut coord, &ctx, &req, now);
        })
    });
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(n) = std::env::var("KWIRE_HEARTBEATS") {
        let n: i64 = n.parse().expect("KWIRE_HEARTBEATS is a count");
        let (mut coord, epochs) = groups::stable_consumer_group(MEMBERS);
        let ctx = groups::consumer_context();
        let req = groups::stable_heartbeat("member-0500", epochs[500]);
        for now in 10..10 + n {
            beat(&mut coord, &ctx, &req, now);
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

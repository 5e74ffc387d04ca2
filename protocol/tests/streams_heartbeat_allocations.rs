//! A StreamsGroupHeartbeat that changes nothing allocates nothing in the streams group type
//! (docs/coordinator.md §2.4; benches/README.md): a stable member of a stable group, heartbeating
//! with only its group id, member id and epoch, gets a plain ack with no records, and the
//! coordinator copies neither the group, its configured topology nor the member on the way.
//!
//! A counting global allocator counts the allocations of this thread while a heartbeat runs.
//! The request's and the answer's strings are shared buffers (`bytes::Bytes`), so the answer's
//! member id costs nothing once the request's buffer is shared (as a decoded request's is).

use kwire_protocol::coordinator::RequestContext;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

#[path = "support/groups.rs"]
mod groups;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread's locals may be gone while it exits.
    let on = COUNTING.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; counting touches only
// const-initialised thread locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let out = f();
    COUNTING.with(|c| c.set(false));
    (COUNT.with(Cell::get), out)
}

const GROUP: &str = "app";

/// A Stable group of 12 members in 4 processes, 3 stateful subtopologies of 8 tasks, one
/// standby, warm-ups on (the defaults), heartbeating v1.
const SHAPE: groups::StreamsShape = groups::StreamsShape {
    group: GROUP,
    members: 12,
    processes: 4,
    subtopologies: 3,
    partitions: 8,
};

#[test]
fn a_heartbeat_that_changes_nothing_allocates_nothing() {
    let ctx = RequestContext::new("app-client", "/10.0.0.1", 1);
    let (mut c, epochs) = groups::stable_streams_group(&SHAPE, &ctx);
    let req = StreamsGroupHeartbeatRequest {
        group_id: GROUP.into(),
        member_id: "member-0005".into(),
        member_epoch: epochs[5],
        ..Default::default()
    };
    // The first heartbeat after the rounds shares the request's strings' buffers (a decoded
    // request's already are); the group is stable from here on.
    let first = c.streams_group_heartbeat(&ctx, &req, 10);
    assert_eq!(first.response.error_code, 0);
    let before = c.streams_group(GROUP).cloned();
    for now in 11..14 {
        let (n, out) = allocations(|| c.streams_group_heartbeat(&ctx, &req, now));
        assert_eq!(out.response.error_code, 0, "{:?}", out.response);
        assert!(out.records.is_empty() && out.topics_to_create.is_empty());
        assert!(out.response.active_tasks.is_none());
        assert_eq!(out.response.member_epoch, epochs[5]);
        // Nothing: the shared timers re-arm with borrowed keys and the facade lends the
        // other group types' namespaces without building a list.
        assert_eq!(n, 0, "allocations of the heartbeat at {now} ms");
    }
    assert_eq!(c.streams_group(GROUP).cloned(), before);
    assert_eq!(c.session_deadline(GROUP, "member-0005"), Some(13 + 45_000));
}

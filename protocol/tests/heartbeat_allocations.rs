//! A heartbeat that changes nothing allocates nothing (docs/coordinator.md §Transactions): a
//! counting global allocator (per thread, so the test harness's other threads do not count)
//! around `GroupCoordinator::consumer_group_heartbeat` of a stable member of a 1,000-member
//! consumer group, the group the `consumer_group` bench measures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

#[path = "support/groups.rs"]
mod groups;

/// The system allocator, counting this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to `System` unchanged; the count is a thread-local `Cell`
// with a constant initialiser, which itself never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// This thread's allocations while `f` runs.
fn allocations_of(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn stable_consumer_heartbeat_allocates_nothing() {
    let (mut c, epochs) = groups::stable_consumer_group(1000);
    let ctx = groups::consumer_context();
    let req = groups::stable_heartbeat("member-0500", epochs[500]);
    // The first heartbeat moves the member's session timer to the end of the deadline index.
    let first = c.consumer_group_heartbeat(&ctx, &req, 10);
    assert!(first.records.is_empty() && first.response.error_code == 0);
    let n = allocations_of(|| {
        for now in 11..1_011 {
            let out = c.consumer_group_heartbeat(&ctx, &req, now);
            assert!(out.records.is_empty());
            assert_eq!(out.response.error_code, 0);
            assert_eq!(out.response.member_epoch, epochs[500]);
            assert!(out.response.assignment.is_none());
        }
    });
    assert_eq!(n, 0, "1,000 stable heartbeats allocated {n} times");
    assert_eq!(
        c.session_deadline("bench", "member-0500"),
        Some(1_010 + 45_000)
    );
}

// The streams heartbeat's case (a stable member of the 200-member streams group, its builder
// in support/groups.rs) goes here: `stable_streams_heartbeat_allocates_nothing`.

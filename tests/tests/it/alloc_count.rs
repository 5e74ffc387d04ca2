//! The counting allocator of the test binary (one `#[global_allocator]` for every module).
//!
//! It forwards every call to [`System`] unchanged and, on the current thread only, records what
//! a measured closure allocates: [`measure`] (robustness.rs: the largest allocation, the bytes and
//! the count, reallocations included) and [`allocations_during`] (views.rs: the number of
//! `alloc` calls). Tests run in parallel threads; the thread-local flags keep one test's
//! allocations out of another's figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAlloc;

thread_local! {
    // `measure`
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    // `allocations_during`
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

#[inline]
fn record(size: usize) {
    // `try_with`: while a thread is being torn down its slots may be gone; nothing is measured then.
    let _ = TRACKING.try_with(|t| {
        if t.get() {
            LARGEST.with(|l| l.set(l.get().max(size)));
            TOTAL.with(|x| x.set(x.get().saturating_add(size)));
            COUNT.with(|c| c.set(c.get() + 1));
        }
    });
}

#[inline]
fn count_alloc_call() {
    let _ = COUNTING.try_with(|c| {
        if c.get() {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
    });
}

// SAFETY: every method forwards its arguments unchanged to `System`, so each one meets the
// `GlobalAlloc` contract exactly when `System`'s does (the caller's obligations are passed on as
// they are). `record` and `count_alloc_call` do not allocate: they only touch `const`-initialised
// thread-locals of `Cell<bool>` / `Cell<usize>`, which need no lazy initialisation and have no
// destructor, so the allocator is never re-entered.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        count_alloc_call();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from `System`, with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: `ptr` came from `System` with `layout`; the caller upholds the rest.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// What one measured closure allocated on its thread (a reallocation counts as an allocation of
/// its new size).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Allocs {
    /// The largest single allocation, in bytes.
    pub largest: usize,
    /// The bytes of every allocation added up.
    pub total: usize,
    /// The number of allocations and reallocations.
    pub count: usize,
}

/// Runs `f`, recording the allocations the current thread makes meanwhile. Whatever `f` returns
/// is dropped after measuring ends.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Allocs) {
    struct Off;
    impl Drop for Off {
        fn drop(&mut self) {
            TRACKING.with(|t| t.set(false));
        }
    }
    LARGEST.with(|c| c.set(0));
    TOTAL.with(|c| c.set(0));
    COUNT.with(|c| c.set(0));
    TRACKING.with(|t| t.set(true));
    let off = Off;
    let r = f();
    drop(off);
    let a = Allocs {
        largest: LARGEST.with(Cell::get),
        total: TOTAL.with(Cell::get),
        count: COUNT.with(Cell::get),
    };
    (r, a)
}

/// Runs `f` and returns how many times the current thread called `alloc` meanwhile
/// (`alloc_zeroed` and `realloc` are not counted).
pub fn allocations_during(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|a| a.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}

//! Group requests of every group API and version, decoded from the input, into one sans-IO
//! group coordinator (classic JoinGroup/SyncGroup/Heartbeat/LeaveGroup, ConsumerGroupHeartbeat,
//! DescribeGroups/ListGroups/DeleteGroups), with timers firing in between, and the
//! consumer-protocol data messages from raw bytes (see `kwire_fuzz::coordinator`). No panic;
//! every answer encodes at its request's version and comes once; replay(records) == groups();
//! every classic request is answered once all timers fired.
//!
//! `cargo run --bin seed_coordinator && cargo +nightly fuzz run coordinator -- -max_total_time=300 -malloc_limit_mb=64 -jobs=1`

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kwire_fuzz::coordinator::run(data);
});

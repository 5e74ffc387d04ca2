//! The group settings both servers of the oracle run with (the broker's properties and
//! kwire-server's configuration are built from these): a leaf module, so the broker launcher
//! and the scenarios read them without importing each other.

/// `group.initial.rebalance.delay.ms` on both sides (ms).
pub const GROUP_INITIAL_REBALANCE_DELAY_MS: i32 = 1000;
/// `group.min.session.timeout.ms` on both sides (ms): small, so members can expire quickly.
pub const GROUP_MIN_SESSION_TIMEOUT_MS: i32 = 100;
/// `group.consumer.session.timeout.ms` (and its minimum) on both sides (ms).
pub const GROUP_CONSUMER_SESSION_TIMEOUT_MS: i32 = 3000;
/// `group.consumer.heartbeat.interval.ms` (and its minimum) on both sides (ms).
pub const GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: i32 = 200;
/// `group.streams.session.timeout.ms` (and its minimum) on both sides (ms): kwire-server has one
/// session timeout for consumer and streams groups, so it is the consumer one.
pub const GROUP_STREAMS_SESSION_TIMEOUT_MS: i32 = GROUP_CONSUMER_SESSION_TIMEOUT_MS;
/// `group.streams.heartbeat.interval.ms` (and its minimum) on both sides (ms), as for
/// consumer groups.
pub const GROUP_STREAMS_HEARTBEAT_INTERVAL_MS: i32 = GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS;
/// `group.streams.initial.rebalance.delay.ms` on both sides (ms): off, for speed (a delayed
/// first assignment is covered by kwire's own scenario tests).
pub const GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS: i32 = 0;
/// `group.streams.num.standby.replicas` on both sides: one standby per stateful task.
pub const GROUP_STREAMS_NUM_STANDBY_REPLICAS: i32 = 1;

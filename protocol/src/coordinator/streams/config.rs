//! The configuration of streams groups: the broker's `group.streams.*` settings with Kafka's
//! defaults and bounds, the per-group overrides, the assignment-config keys and the status codes
//! of StreamsGroupHeartbeatResponse (docs/coordinator.md §2.9, §2.10).

use std::sync::Arc;

use super::assignor::{StickyTaskAssignor, TaskAssignor};
use crate::coordinator::context::ConfigError;

/// `Status.StatusCode` values of StreamsGroupHeartbeatResponse (docs/coordinator.md §2.10).
pub mod status_codes {
    /// The member's topology epoch is behind the group's.
    pub const STALE_TOPOLOGY: i8 = 0;
    /// A source topic is not in the metadata.
    pub const MISSING_SOURCE_TOPICS: i8 = 1;
    /// Copartitioned topics differ in partition count, or an internal topic has the wrong count.
    pub const INCORRECTLY_PARTITIONED_TOPICS: i8 = 2;
    /// Internal topics must be created first.
    pub const MISSING_INTERNAL_TOPICS: i8 = 3;
    /// A member asked for the whole application to shut down.
    pub const SHUTDOWN_APPLICATION: i8 = 4;
    /// The initial rebalance delay is running.
    pub const ASSIGNMENT_DELAYED: i8 = 5;
    /// The member lacks a client tag that `rack.aware.assignment.tags` names (Kafka 4.4,
    /// KAFKA-20744); sent only to v1+ heartbeats.
    pub const MISSING_CLIENT_TAGS: i8 = 6;
}

/// The assignment-config key of the standby count (Kafka's `num.standby.replicas`).
pub const NUM_STANDBY_REPLICAS: &str = "num.standby.replicas";
/// The assignment-config key of the client tags rack-aware standby placement uses (Kafka's
/// `rack.aware.assignment.tags`, comma-separated; absent when no tag is configured).
pub const RACK_AWARE_ASSIGNMENT_TAGS: &str = "rack.aware.assignment.tags";

/// Broker-level streams-group configuration (docs/coordinator.md §2.9), with Kafka's defaults.
#[derive(Debug, Clone)]
pub struct StreamsGroupConfig {
    /// `group.streams.heartbeat.interval.ms` (default 5000, range [5000, 15000]).
    pub heartbeat_interval_ms: i32,
    /// `group.streams.session.timeout.ms` (default 45000, range [45000, 60000]).
    pub session_timeout_ms: i32,
    /// `group.streams.max.size` (default `i32::MAX`).
    pub max_size: i32,
    /// `group.streams.num.standby.replicas` (default 0).
    pub num_standby_replicas: i32,
    /// `group.streams.max.standby.replicas` (default 2): the cap of the group override.
    pub max_standby_replicas: i32,
    /// `group.streams.initial.rebalance.delay.ms` (default 3000; 0 turns it off).
    pub initial_rebalance_delay_ms: i32,
    /// `AcceptableRecoveryLag` (offsets) sent in every response (docs/coordinator.md, D2: 10000):
    /// the int64 v1+ field; as Kafka 4.4.0, the v0-only int32 `AcceptableRecoveryLagLegacy` is
    /// left at 0.
    pub acceptable_recovery_lag: i64,
    /// `TaskOffsetIntervalMs` sent in every response (docs/coordinator.md, D2: 60000).
    pub task_offset_interval_ms: i32,
    /// `group.streams.num.warmup.replicas` (Kafka 4.4 default 2): the most warm-up tasks the
    /// group holds at once (docs/coordinator.md §2.12); 0 turns warm-ups off.
    pub num_warmup_replicas: i32,
    /// `group.streams.max.warmup.replicas` (Kafka 4.4 default 20): the cap of the group override
    /// `streams.num.warmup.replicas`.
    pub max_warmup_replicas: i32,
    /// The task assignor (Kafka has only `sticky`; tests may install their own). Its name is
    /// StreamsGroupDescribe v1's `AssignorName`.
    pub assignor: Arc<dyn TaskAssignor>,
    /// `group.streams.rack.aware.assignment.tags` (default none): client tag keys every member
    /// must carry; stored in the assignment configs as [`RACK_AWARE_ASSIGNMENT_TAGS`] and checked
    /// by v1 heartbeats (status [`status_codes::MISSING_CLIENT_TAGS`], Kafka 4.4).
    pub rack_aware_assignment_tags: Vec<String>,
    /// Whether kwire keeps topology descriptions (KIP-1331, default true): heartbeats v1 set
    /// `TopologyDescriptionRequired`, StreamsGroupTopologyDescriptionUpdate stores the
    /// description in a record and StreamsGroupDescribe v1 returns it. False answers as Kafka
    /// 4.4 without a `group.streams.topology.description.plugin` (its default): never required,
    /// key 93 refused with UNSUPPORTED_VERSION, describe's status NOT_STORED.
    pub topology_descriptions: bool,
}

impl Default for StreamsGroupConfig {
    fn default() -> Self {
        StreamsGroupConfig {
            heartbeat_interval_ms: 5000,
            session_timeout_ms: 45000,
            max_size: i32::MAX,
            num_standby_replicas: 0,
            max_standby_replicas: 2,
            initial_rebalance_delay_ms: 3000,
            acceptable_recovery_lag: 10000,
            task_offset_interval_ms: 60000,
            num_warmup_replicas: 2,
            max_warmup_replicas: 20,
            assignor: Arc::new(StickyTaskAssignor),
            rack_aware_assignment_tags: Vec::new(),
            topology_descriptions: true,
        }
    }
}

impl StreamsGroupConfig {
    /// Checks Kafka's bounds: interval positive and below the session timeout, max size at least
    /// 1, standby and warm-up counts within [0, max], recovery lag and delay not negative.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first rule broken.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |s: &str| Err(ConfigError(s.to_string()));
        if self.heartbeat_interval_ms < 1 || self.heartbeat_interval_ms >= self.session_timeout_ms {
            return err("group.streams.heartbeat.interval.ms must be positive and less than group.streams.session.timeout.ms");
        }
        if self.max_size < 1 {
            return err("group.streams.max.size must be at least 1");
        }
        if !(0..=self.max_standby_replicas).contains(&self.num_standby_replicas) {
            return err("group.streams.num.standby.replicas must lie within [0, group.streams.max.standby.replicas]");
        }
        if !(0..=self.max_warmup_replicas).contains(&self.num_warmup_replicas) {
            return err("group.streams.num.warmup.replicas must lie within [0, group.streams.max.warmup.replicas]");
        }
        if self.acceptable_recovery_lag < 0 {
            return err("group.streams.acceptable.recovery.lag must not be negative");
        }
        if self.initial_rebalance_delay_ms < 0 {
            return err("group.streams.initial.rebalance.delay.ms must not be negative");
        }
        Ok(())
    }
}

/// Per-group overrides of a streams group (`streams.session.timeout.ms`,
/// `streams.heartbeat.interval.ms`, `streams.num.standby.replicas`,
/// `streams.initial.rebalance.delay.ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StreamsGroupOverrides {
    /// Session timeout in ms.
    pub session_timeout_ms: Option<i32>,
    /// Heartbeat interval in ms.
    pub heartbeat_interval_ms: Option<i32>,
    /// Standby replicas per stateful task, at most `group.streams.max.standby.replicas`.
    pub num_standby_replicas: Option<i32>,
    /// Initial rebalance delay in ms.
    pub initial_rebalance_delay_ms: Option<i32>,
    /// Warm-up tasks the group may hold at once (`streams.num.warmup.replicas`), at most
    /// `group.streams.max.warmup.replicas`.
    pub num_warmup_replicas: Option<i32>,
}

//! Classic groups: Kafka's original group protocol (JoinGroup, SyncGroup, Heartbeat,
//! LeaveGroup), with the state machine Empty → PreparingRebalance → CompletingRebalance →
//! Stable, leader election, client-side assignment relayed through SyncGroup, static
//! membership, KIP-394's member-id-required rejoin and the initial rebalance delay.
//!
//! See the [coordinator docs](super) §Classic groups for the behaviour, its sources (Kafka's
//! `GroupMetadataManager` classic paths and `ClassicGroup`) and kwire's departures. Files:
//! [`group`] (state, Kafka's `ClassicGroup` and `ClassicGroupMember`), [`records`] (the record
//! enum), `replay` ([`apply`] and [`replay`]), `manager` (request handling and timers, which
//! borrows the coordinator's shared context for one call). This module imports nothing from the
//! coordinator but its shared `context`, `outbox` and `timers`.

pub mod group;
pub(crate) mod manager;
pub mod records;
mod replay;

pub use group::{
    ClassicGroup, ClassicGroupMember, ClassicGroupState, ClassicGroups, ClassicProtocol,
};
pub use records::ClassicRecord;
pub use replay::{apply, replay};

use super::context::ConfigError;

/// How long a new member's JoinGroup may wait before the member is removed (ms; Kafka's
/// `CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS`, 5 minutes): it cannot heartbeat before it has
/// its member id.
pub const NEW_MEMBER_JOIN_TIMEOUT_MS: i64 = 5 * 60 * 1000;

/// Broker-level classic-group configuration, with Kafka's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassicGroupConfig {
    /// `group.min.session.timeout.ms` (default 6000): a JoinGroup with a smaller session
    /// timeout gets INVALID_SESSION_TIMEOUT.
    pub min_session_timeout_ms: i32,
    /// `group.max.session.timeout.ms` (default 1800000): a JoinGroup with a larger session
    /// timeout gets INVALID_SESSION_TIMEOUT.
    pub max_session_timeout_ms: i32,
    /// `group.initial.rebalance.delay.ms` (default 3000): how long the first rebalance of an
    /// empty group waits for more members; each new member extends it, up to the group's
    /// rebalance timeout.
    pub initial_rebalance_delay_ms: i32,
    /// `group.max.size` (default `i32::MAX`, at least 1): joins beyond it get
    /// GROUP_MAX_SIZE_REACHED.
    pub max_size: i32,
}

impl Default for ClassicGroupConfig {
    fn default() -> Self {
        ClassicGroupConfig {
            min_session_timeout_ms: 6000,
            max_session_timeout_ms: 1_800_000,
            initial_rebalance_delay_ms: 3000,
            max_size: i32::MAX,
        }
    }
}

impl ClassicGroupConfig {
    /// Checks Kafka's bounds: the minimum session timeout positive and not above the maximum,
    /// the initial delay not negative, the maximum size at least 1.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first rule broken.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.min_session_timeout_ms < 1 {
            return Err(ConfigError(
                "group.min.session.timeout.ms must be at least 1".into(),
            ));
        }
        if self.min_session_timeout_ms > self.max_session_timeout_ms {
            return Err(ConfigError(format!(
                "group.min.session.timeout.ms {} is above group.max.session.timeout.ms {}",
                self.min_session_timeout_ms, self.max_session_timeout_ms
            )));
        }
        if self.initial_rebalance_delay_ms < 0 {
            return Err(ConfigError(
                "group.initial.rebalance.delay.ms must not be negative".into(),
            ));
        }
        if self.max_size < 1 {
            return Err(ConfigError("group.max.size must be at least 1".into()));
        }
        Ok(())
    }
}

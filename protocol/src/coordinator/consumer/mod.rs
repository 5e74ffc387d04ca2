//! KIP-848 consumer groups: state, records, reconciliation, server-side assignors and the
//! manager that answers `ConsumerGroupHeartbeat` and `ConsumerGroupDescribe`.
//!
//! See the [coordinator docs](super) for the behaviour and kwire's departures from Kafka.
//! Files: [`group`] (state, Kafka's `ConsumerGroup`), [`records`] (the record enum), `replay`
//! ([`apply`] and [`replay`], Kafka's `GroupMetadataManager.replay`), `reconcile` (Kafka's
//! `CurrentAssignmentBuilder`), [`assignor`] (the `uniform` and `range` assignors and the
//! [`ConsumerGroupAssignor`] trait), `manager` (the request
//! handling, which borrows the coordinator's shared context for one call). The scenario tests and
//! the randomised simulation drive the facade, so they live beside it (`coordinator/tests/`).
//! This module imports nothing from the coordinator but its shared `context` and `timers`.

pub mod assignor;
mod classic_members;
pub mod group;
pub(crate) mod manager;
pub mod migration;
mod reconcile;
pub mod records;
mod replay;

use std::collections::BTreeSet;
use std::sync::Arc;

pub use group::{
    ConsumerGroup, ConsumerGroupMember, ConsumerGroups, GroupState, MemberState, ResolvedRegex,
};
pub use migration::{
    ClassicGroupSnapshot, ClassicMemberMetadata, ClassicMemberSnapshot, ClassicProtocol,
    MigrationPolicy,
};
pub use records::ConsumerRecord;
pub use replay::{apply, replay};

use super::context::ConfigError;
use super::overrides::Timeouts;
use assignor::ConsumerGroupAssignor;

/// Broker-level consumer-group configuration (docs/coordinator.md §1.12), with Kafka's defaults.
#[derive(Debug, Clone)]
pub struct ConsumerGroupConfig {
    /// `group.consumer.heartbeat.interval.ms` (default 5000).
    pub heartbeat_interval_ms: i32,
    /// `group.consumer.min.heartbeat.interval.ms` (default 5000).
    pub min_heartbeat_interval_ms: i32,
    /// `group.consumer.max.heartbeat.interval.ms` (default 15000).
    pub max_heartbeat_interval_ms: i32,
    /// `group.consumer.session.timeout.ms` (default 45000).
    pub session_timeout_ms: i32,
    /// `group.consumer.min.session.timeout.ms` (default 45000).
    pub min_session_timeout_ms: i32,
    /// `group.consumer.max.session.timeout.ms` (default 60000).
    pub max_session_timeout_ms: i32,
    /// `group.consumer.max.size` (default `i32::MAX`, at least 1).
    pub max_size: i32,
    /// `group.consumer.assignors`, in order; the first is the default (Kafka: uniform, range).
    pub assignors: Vec<Arc<dyn ConsumerGroupAssignor>>,
    /// `group.consumer.migration.policy` (default [`MigrationPolicy::Bidirectional`]): which
    /// online conversions between classic and consumer groups are allowed (KIP-848;
    /// docs/coordinator.md §Online migration).
    pub migration_policy: MigrationPolicy,
}

impl ConsumerGroupConfig {
    /// Kafka's defaults with the given assignors (the first one is the default assignor).
    pub fn with_assignors(assignors: Vec<Arc<dyn ConsumerGroupAssignor>>) -> Self {
        ConsumerGroupConfig {
            heartbeat_interval_ms: 5000,
            min_heartbeat_interval_ms: 5000,
            max_heartbeat_interval_ms: 15000,
            session_timeout_ms: 45000,
            min_session_timeout_ms: 45000,
            max_session_timeout_ms: 60000,
            max_size: i32::MAX,
            assignors,
            migration_policy: MigrationPolicy::Bidirectional,
        }
    }

    /// Checks Kafka's bounds: intervals and timeouts positive and within [min, max], the
    /// heartbeat interval below the session timeout, max size at least 1, at least one assignor
    /// and no two with the same name.
    ///
    /// # Errors
    /// [`ConfigError`] naming the first rule broken.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |s: String| Err(ConfigError(s));
        if self.min_heartbeat_interval_ms < 1 || self.min_session_timeout_ms < 1 {
            return err(
                "minimum heartbeat interval and session timeout must be at least 1 ms".into(),
            );
        }
        if !(self.min_heartbeat_interval_ms..=self.max_heartbeat_interval_ms)
            .contains(&self.heartbeat_interval_ms)
        {
            return err(format!(
                "group.consumer.heartbeat.interval.ms {} is outside [{}, {}]",
                self.heartbeat_interval_ms,
                self.min_heartbeat_interval_ms,
                self.max_heartbeat_interval_ms
            ));
        }
        if !(self.min_session_timeout_ms..=self.max_session_timeout_ms)
            .contains(&self.session_timeout_ms)
        {
            return err(format!(
                "group.consumer.session.timeout.ms {} is outside [{}, {}]",
                self.session_timeout_ms, self.min_session_timeout_ms, self.max_session_timeout_ms
            ));
        }
        if self.heartbeat_interval_ms >= self.session_timeout_ms {
            return err("group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms".into());
        }
        if self.max_size < 1 {
            return err("group.consumer.max.size must be at least 1".into());
        }
        if self.assignors.is_empty() {
            return err("group.consumer.assignors must not be empty".into());
        }
        let mut names = BTreeSet::new();
        for a in &self.assignors {
            if !names.insert(a.name().to_string()) {
                return err(format!("assignor {} is configured twice", a.name()));
            }
        }
        Ok(())
    }
}

impl Default for ConsumerGroupConfig {
    /// Kafka's defaults, with the built-in assignors `uniform` (the default) and `range`.
    fn default() -> Self {
        Self::with_assignors(vec![
            Arc::new(assignor::UniformAssignor),
            Arc::new(assignor::RangeAssignor),
        ])
    }
}

/// Per-group overrides (`consumer.session.timeout.ms`, `consumer.heartbeat.interval.ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupConfig {
    /// Session timeout in ms; must lie within the broker's [min, max].
    pub session_timeout_ms: Option<i32>,
    /// Heartbeat interval in ms; must lie within the broker's [min, max].
    pub heartbeat_interval_ms: Option<i32>,
}

impl Timeouts for GroupConfig {
    fn session_timeout_ms(&self) -> Option<i32> {
        self.session_timeout_ms
    }

    fn heartbeat_interval_ms(&self) -> Option<i32> {
        self.heartbeat_interval_ms
    }
}

//! Group-level overrides of the broker's session timeout and heartbeat interval, shared by
//! consumer and streams groups: their lookup (the override, else the broker's value) and their
//! bounds (Kafka's `GroupConfig`: `consumer.session.timeout.ms` and
//! `consumer.heartbeat.interval.ms` within `group.consumer.{min,max}.session.timeout.ms` and
//! `group.consumer.{min,max}.heartbeat.interval.ms`; `streams.*` likewise).
//!
//! This module imports nothing from the coordinator but [`super::context`].

use std::collections::BTreeMap;

use super::context::ConfigError;

/// A group's overrides of the two timeouts every heartbeat-based group type has (ms; `None`
/// keeps the broker's value).
pub(crate) trait Timeouts {
    /// The session timeout override (ms).
    fn session_timeout_ms(&self) -> Option<i32>;
    /// The heartbeat interval override (ms).
    fn heartbeat_interval_ms(&self) -> Option<i32>;
}

/// A broker setting and its bounds (ms), e.g. `group.consumer.session.timeout.ms` with
/// `group.consumer.min.session.timeout.ms` and `group.consumer.max.session.timeout.ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounded {
    /// The broker's value.
    pub value: i32,
    /// The smallest value a group may set.
    pub min: i32,
    /// The largest value a group may set.
    pub max: i32,
}

/// Checks a group's overrides against the broker's bounds (Kafka's `GroupConfig.validate`):
/// each given value within [min, max].
///
/// # Errors
/// [`ConfigError`] `{prefix}.session.timeout.ms S is out of bounds` (or the heartbeat
/// interval's), `prefix` being the group type (`consumer`, `streams`).
pub(crate) fn check_bounds(
    o: &impl Timeouts,
    prefix: &str,
    session: Bounded,
    interval: Bounded,
) -> Result<(), ConfigError> {
    for (value, bounds, name) in [
        (o.session_timeout_ms(), session, "session.timeout.ms"),
        (o.heartbeat_interval_ms(), interval, "heartbeat.interval.ms"),
    ] {
        if let Some(v) = value.filter(|v| !(bounds.min..=bounds.max).contains(v)) {
            return Err(ConfigError(format!("{prefix}.{name} {v} is out of bounds")));
        }
    }
    Ok(())
}

/// One group type's overrides, by group id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Overrides<T> {
    by_group: BTreeMap<String, T>,
}

impl<T: Timeouts + Copy + Default> Overrides<T> {
    /// The overrides of `group_id` (all `None` when it has none).
    #[allow(dead_code)] // the streams group type adopts the shared overrides
    pub fn get(&self, group_id: &str) -> T {
        self.by_group.get(group_id).copied().unwrap_or_default()
    }

    /// Replaces the overrides of `group_id`.
    pub fn set(&mut self, group_id: &str, o: T) {
        self.by_group.insert(group_id.to_string(), o);
    }

    /// The session timeout (ms) of `group_id`: its override, else `broker`.
    pub fn session_timeout(&self, group_id: &str, broker: i32) -> i32 {
        self.by_group
            .get(group_id)
            .and_then(Timeouts::session_timeout_ms)
            .unwrap_or(broker)
    }

    /// The heartbeat interval (ms) of `group_id`: its override, else `broker`.
    pub fn heartbeat_interval(&self, group_id: &str, broker: i32) -> i32 {
        self.by_group
            .get(group_id)
            .and_then(Timeouts::heartbeat_interval_ms)
            .unwrap_or(broker)
    }
}

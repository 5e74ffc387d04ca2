//! Installing the streams-group configuration and a group's overrides (docs/coordinator.md
//! §2.9): bounds checked as Kafka's `GroupCoordinatorConfig` and `GroupConfig` check them, and
//! armed session deadlines moved with a changed session timeout.

use std::collections::BTreeMap;

use super::super::config::{StreamsGroupConfig, StreamsGroupOverrides};
use super::side::StreamsManager;
use crate::coordinator::context::ConfigError;
use crate::coordinator::timers::Slot;

impl StreamsManager<'_> {
    /// Installs a streams-group configuration; session deadlines already armed move with the
    /// new timeout (deadline = last heartbeat + timeout).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`StreamsGroupConfig::validate`]).
    pub fn set_config(&mut self, config: StreamsGroupConfig) -> Result<(), ConfigError> {
        config.validate()?;
        let before: BTreeMap<String, i32> = self
            .groups
            .keys()
            .map(|g| (g.clone(), self.side.session_timeout(g)))
            .collect();
        self.side.config = config;
        self.shift_session_deadlines(before);
        Ok(())
    }

    /// Sets a streams group's overrides.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is out of range (interval not below the session timeout,
    /// standby count above `group.streams.max.standby.replicas`, negative delay).
    pub fn set_group_config(
        &mut self,
        group_id: &str,
        o: StreamsGroupOverrides,
    ) -> Result<(), ConfigError> {
        let mut c = self.side.config.clone();
        c.session_timeout_ms = o.session_timeout_ms.unwrap_or(c.session_timeout_ms);
        c.heartbeat_interval_ms = o.heartbeat_interval_ms.unwrap_or(c.heartbeat_interval_ms);
        c.num_standby_replicas = o.num_standby_replicas.unwrap_or(c.num_standby_replicas);
        c.initial_rebalance_delay_ms = o
            .initial_rebalance_delay_ms
            .unwrap_or(c.initial_rebalance_delay_ms);
        c.num_warmup_replicas = o.num_warmup_replicas.unwrap_or(c.num_warmup_replicas);
        c.validate()?;
        let before = BTreeMap::from([(group_id.to_string(), self.side.session_timeout(group_id))]);
        self.side.overrides.insert(group_id.to_string(), o);
        self.shift_session_deadlines(before);
        Ok(())
    }

    /// Moves the armed session deadlines of streams members by the change of their group's
    /// session timeout (`before`: group → timeout before the change).
    fn shift_session_deadlines(&mut self, before: BTreeMap<String, i32>) {
        for (gid, old) in before {
            let delta = i64::from(self.side.session_timeout(&gid)) - i64::from(old);
            if delta == 0 {
                continue;
            }
            let Some(g) = self.groups.get(&gid) else {
                continue;
            };
            for mid in g.members.keys() {
                if let Some((d, k)) = self.ctx.timers.get(&gid, mid, Slot::Session) {
                    self.ctx.timers.arm(&gid, mid, k, d + delta);
                }
            }
        }
    }
}

//! What the coordinator keeps for streams groups besides their records: the configuration, the
//! per-group overrides and the soft state of every group ([`Volatile`], docs/coordinator.md D6),
//! and the [`StreamsManager`] that borrows them with the shared [`Context`] for one call.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::super::config::{
    StreamsGroupConfig, StreamsGroupOverrides, NUM_STANDBY_REPLICAS, RACK_AWARE_ASSIGNMENT_TAGS,
};
use super::super::group::StreamsGroups;
use super::super::tasks::TaskOffsets;
use super::super::topology::{ConfiguredTopology, InvalidTopology};
use crate::coordinator::context::{Context, Others};

/// The configured topology of a group's current topology and metadata (Kafka's
/// `StreamsGroup.configuredTopology`), shared so that a heartbeat reads it without copying it.
#[derive(Debug, Clone)]
pub(crate) struct SharedConfigured(Arc<Result<ConfiguredTopology, InvalidTopology>>);

impl SharedConfigured {
    /// Shares the outcome of [`configure`](super::super::topology::configure).
    pub fn new(c: Result<ConfiguredTopology, InvalidTopology>) -> Self {
        SharedConfigured(Arc::new(c))
    }

    /// The outcome, borrowed: the configured topology, or why the topology is invalid.
    pub fn as_ref(&self) -> Result<&ConfiguredTopology, &InvalidTopology> {
        self.0.as_ref().as_ref()
    }

    /// The configured topology, when the topology could be configured.
    pub fn ok(&self) -> Option<&ConfiguredTopology> {
        self.as_ref().ok()
    }
}

/// Soft state of a streams group, never in records (D6): rebuilt or reset on load.
#[derive(Debug, Clone, Default)]
pub(crate) struct Volatile {
    /// The interactive-query endpoint-information epoch (§2.7), starting at 0.
    pub endpoint_information_epoch: i32,
    /// The member that first asked for an application shutdown, while the group is not empty.
    pub shutdown_requester: Option<String>,
    /// Latest TaskOffsets and TaskEndOffsets per member (D2).
    pub task_offsets: BTreeMap<String, (TaskOffsets, TaskOffsets)>,
    /// Members whose latest heartbeat was v1 or later: only they get warm-up tasks (§2.12).
    pub warmups_allowed: BTreeSet<String>,
    /// The configured topology for the current topology and metadata.
    pub configured: Option<SharedConfigured>,
    /// The last ask for a topology description (KIP-1331): (topology epoch, asks before this one
    /// for that epoch, time in ms before which no heartbeat asks again).
    pub description_ask: Option<(i32, u32, i64)>,
}

impl Volatile {
    /// The configured topology, when one is cached and could be configured.
    pub fn configured_ok(&self) -> Option<&ConfiguredTopology> {
        self.configured.as_ref().and_then(SharedConfigured::ok)
    }

    /// Forgets what a member that left reported: its task offsets and its v1 flag.
    pub fn forget_member(&mut self, member_id: &str) {
        self.task_offsets.remove(member_id);
        self.warmups_allowed.remove(member_id);
    }
}

/// The soft state of group `gid`, created empty when missing (the key is copied only then).
pub(crate) fn volatile_mut<'v>(
    all: &'v mut BTreeMap<String, Volatile>,
    gid: &str,
) -> Option<&'v mut Volatile> {
    if !all.contains_key(gid) {
        all.insert(gid.to_string(), Volatile::default());
    }
    all.get_mut(gid)
}

/// What the coordinator keeps for streams groups besides their persisted state: the
/// configuration, the per-group overrides and the soft state of every group.
#[derive(Debug, Default)]
pub(crate) struct StreamsSide {
    pub config: StreamsGroupConfig,
    pub overrides: BTreeMap<String, StreamsGroupOverrides>,
    pub volatile: BTreeMap<String, Volatile>,
}

impl StreamsSide {
    fn overrides_of(&self, gid: &str) -> StreamsGroupOverrides {
        self.overrides.get(gid).copied().unwrap_or_default()
    }

    /// The session timeout (ms) of a group: its override, else the broker's.
    pub fn session_timeout(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .session_timeout_ms
            .unwrap_or(self.config.session_timeout_ms)
    }

    /// The heartbeat interval (ms) of a group: its override, else the broker's.
    pub fn heartbeat_interval(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .heartbeat_interval_ms
            .unwrap_or(self.config.heartbeat_interval_ms)
    }

    /// The initial rebalance delay (ms) of a group: its override, else the broker's.
    pub fn delay(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .initial_rebalance_delay_ms
            .unwrap_or(self.config.initial_rebalance_delay_ms)
    }

    /// The group's `num.warmup.replicas` (§2.12): its override, else the broker's, capped by
    /// `group.streams.max.warmup.replicas`.
    pub fn warmup_replicas(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .num_warmup_replicas
            .unwrap_or(self.config.num_warmup_replicas)
            .min(self.config.max_warmup_replicas)
    }

    /// The group's `num.standby.replicas`: its override, else the broker's, capped by
    /// `group.streams.max.standby.replicas`.
    pub fn standby_replicas(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .num_standby_replicas
            .unwrap_or(self.config.num_standby_replicas)
            .min(self.config.max_standby_replicas)
    }

    /// The assignment configs of a group (§2.4 step 4; Kafka's `assignmentConfigs`):
    /// [`NUM_STANDBY_REPLICAS`], and [`RACK_AWARE_ASSIGNMENT_TAGS`] when tags are configured.
    pub fn assignment_configs(&self, gid: &str) -> BTreeMap<String, String> {
        let n = self.standby_replicas(gid);
        let mut configs = BTreeMap::from([(NUM_STANDBY_REPLICAS.to_string(), n.to_string())]);
        let tags = &self.config.rack_aware_assignment_tags;
        if !tags.is_empty() {
            configs.insert(RACK_AWARE_ASSIGNMENT_TAGS.to_string(), tags.join(","));
        }
        configs
    }

    /// Whether `stored` equals [`assignment_configs`](Self::assignment_configs) of `gid`,
    /// compared in place (a heartbeat that changes nothing builds no map).
    pub fn configs_match(&self, gid: &str, stored: &BTreeMap<String, String>) -> bool {
        let tags = &self.config.rack_aware_assignment_tags;
        let standby = self.standby_replicas(gid);
        let standby_matches = stored
            .get(NUM_STANDBY_REPLICAS)
            .is_some_and(|s| is_decimal_of(s, standby));
        let tags_match = match stored.get(RACK_AWARE_ASSIGNMENT_TAGS) {
            None => tags.is_empty(),
            Some(joined) => !tags.is_empty() && is_joined(joined, tags),
        };
        let expected_len = if tags.is_empty() { 1 } else { 2 };
        standby_matches && tags_match && stored.len() == expected_len
    }
}

/// Whether `s` is `n` as `to_string` writes it: optional `-`, no leading zero but for 0 itself.
fn is_decimal_of(s: &str, n: i32) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = digits.bytes().all(|b| b.is_ascii_digit())
        && match digits.as_bytes() {
            [] => false,
            [b'0'] => digits.len() == s.len(),
            [first, ..] => *first != b'0',
        };
    canonical && s.parse::<i32>() == Ok(n)
}

/// Whether `joined` is `parts` joined with commas.
fn is_joined(joined: &str, parts: &[String]) -> bool {
    let mut rest = joined;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            let Some(r) = rest.strip_prefix(',') else {
                return false;
            };
            rest = r;
        }
        let Some(r) = rest.strip_prefix(part.as_str()) else {
            return false;
        };
        rest = r;
    }
    rest.is_empty()
}

/// The streams groups' manager for one call: borrows the shared context, the streams side and
/// the streams groups; `others` tells which group ids belong to another group type.
pub(crate) struct StreamsManager<'a> {
    pub ctx: &'a mut Context,
    pub side: &'a mut StreamsSide,
    pub groups: &'a mut StreamsGroups,
    pub others: Others<'a>,
}

/// The member epoch of `member_id` in streams group `group_id` (`Err(())` for an unknown
/// member) and whether the group has members; `None` when the group does not exist.
pub(crate) fn member_epoch(
    groups: &StreamsGroups,
    group_id: &str,
    member_id: &str,
) -> Option<(Result<i32, ()>, bool)> {
    let g = groups.get(group_id)?;
    let e = g.members.get(member_id).map(|m| m.member_epoch).ok_or(());
    Some((e, !g.members.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_match_compares_in_place_as_the_built_map_would() {
        let mut side = StreamsSide::default();
        side.config.num_standby_replicas = 1;
        let built = side.assignment_configs("g");
        assert!(side.configs_match("g", &built));
        let mut other = built.clone();
        other.insert(NUM_STANDBY_REPLICAS.into(), "01".into());
        assert!(!side.configs_match("g", &other));
        other.insert(NUM_STANDBY_REPLICAS.into(), "1".into());
        other.insert("extra".into(), "x".into());
        assert!(!side.configs_match("g", &other));
        assert!(!side.configs_match("g", &BTreeMap::new()));
        for (s, n, is) in [
            ("0", 0, true),
            ("-0", 0, false),
            ("+1", 1, false),
            ("-12", -12, true),
            ("", 0, false),
            ("1", 2, false),
        ] {
            assert_eq!(is_decimal_of(s, n), is, "{s} {n}");
        }
        side.config.rack_aware_assignment_tags = vec!["zone".into(), "rack".into()];
        assert!(!side.configs_match("g", &built));
        let built = side.assignment_configs("g");
        assert!(side.configs_match("g", &built));
        let mut other = built.clone();
        other.insert(RACK_AWARE_ASSIGNMENT_TAGS.into(), "zone,rac".into());
        assert!(!side.configs_match("g", &other));
        other.insert(RACK_AWARE_ASSIGNMENT_TAGS.into(), "zone,rack,".into());
        assert!(!side.configs_match("g", &other));
        side.config.num_standby_replicas = i32::MIN;
        side.config.max_standby_replicas = i32::MIN;
        let built = side.assignment_configs("g");
        assert!(side.configs_match("g", &built));
    }
}

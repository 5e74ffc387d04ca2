//! The consumer-group manager: `ConsumerGroupHeartbeat` (KIP-848; Kafka's
//! `GroupMetadataManager.consumerGroupHeartbeat`), `ConsumerGroupDescribe`, timers, topic
//! metadata changes and configuration, over the consumer groups and the shared [`Context`] the
//! facade lends it for one call.
//!
//! A heartbeat is a sequence of named steps in two phases (the coordinator's one mechanism,
//! [`commit`](crate::coordinator::commit)): [`validate`] (the request's own fields, §1.1),
//! [`check`] (phase one, read-only: the group, its size limit, the member and its epoch, the
//! updated member, the regex bookkeeping, the group-epoch bump and, in [`targets`], the new
//! target assignment) and [`write`] (phase two, infallible: the records, the
//! reconciliation, the timers and the answer). A leave (-1, -2) is [`leave`]. [`fence`] removes
//! members (leaves and timers), [`regex`] resolves regex subscriptions, [`describe`] answers
//! ConsumerGroupDescribe.
//!
//! Section numbers (§) and departures (Dn) cited in this folder are those of docs/coordinator.md.

mod check;
pub(crate) mod describe;
mod fence;
pub(crate) mod heartbeat;
mod leave;
mod regex;
mod targets;
mod validate;
mod write;

use std::collections::{BTreeMap, BTreeSet};

use super::assignor::Assignment;
use super::group::{ConsumerGroup, ConsumerGroupMember, ConsumerGroups, ResolvedRegex};
use super::records::ConsumerRecord;
use super::{ConsumerGroupConfig, GroupConfig};
use crate::coordinator::commit;
use crate::coordinator::context::{ConfigError, Context, HbError};
use crate::coordinator::overrides::{check_bounds, Bounded, Overrides};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;

/// What the coordinator keeps for consumer groups besides their state: the configuration, the
/// per-group overrides and the compiled-regex cache.
#[derive(Debug)]
pub(crate) struct ConsumerSide {
    pub config: ConsumerGroupConfig,
    /// Per-group overrides of the session timeout and heartbeat interval.
    pub overrides: Overrides<GroupConfig>,
    /// Compiled regexes by their text (filled by the commits that resolve a new regex).
    regex_cache: BTreeMap<String, ::regex::Regex>,
    /// `group.max.size` of classic groups: the size a downgraded group must fit (set by the
    /// facade from the classic configuration).
    pub classic_max_size: i32,
    /// Downgrades decided by a fence but not yet carried out: the facade converts these groups
    /// to classic groups after the call (docs/coordinator.md §Online migration).
    pub downgrades: Vec<PendingDowngrade>,
}

/// A consumer group to convert to a classic group once the call that fenced its last
/// consumer-protocol member returns (Kafka's `convertToClassicGroup` after
/// `validateOnlineDowngradeWithFencedMembers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingDowngrade {
    /// The group id.
    pub group_id: String,
    /// The members fenced or leaving (left out of the classic group).
    pub leaving: BTreeSet<String>,
    /// Whether the classic group starts a rebalance (not when a classic static member replaced
    /// the last consumer-protocol member: Kafka 4.4 keeps its stale assignment).
    pub rebalance: bool,
}

impl ConsumerSide {
    /// A validated configuration with no overrides.
    ///
    /// # Errors
    /// [`ConfigError`] when `config` breaks Kafka's bounds.
    pub fn new(config: ConsumerGroupConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(ConsumerSide {
            config,
            overrides: Overrides::default(),
            regex_cache: BTreeMap::new(),
            classic_max_size: i32::MAX,
            downgrades: Vec::new(),
        })
    }

    /// Sets a group's overrides of session timeout and heartbeat interval (Kafka's
    /// `consumer.session.timeout.ms` and `consumer.heartbeat.interval.ms`).
    ///
    /// # Errors
    /// [`ConfigError`] when a value is outside the broker's [min, max].
    pub fn set_group_config(&mut self, group_id: &str, gc: GroupConfig) -> Result<(), ConfigError> {
        let c = &self.config;
        let session = Bounded {
            value: c.session_timeout_ms,
            min: c.min_session_timeout_ms,
            max: c.max_session_timeout_ms,
        };
        let interval = Bounded {
            value: c.heartbeat_interval_ms,
            min: c.min_heartbeat_interval_ms,
            max: c.max_heartbeat_interval_ms,
        };
        check_bounds(&gc, "consumer", session, interval)?;
        self.overrides.set(group_id, gc);
        Ok(())
    }

    /// The session timeout (ms) of a group: its override, else the broker's.
    pub fn session_timeout(&self, group_id: &str) -> i32 {
        self.overrides
            .session_timeout(group_id, self.config.session_timeout_ms)
    }

    /// The heartbeat interval (ms) of a group: its override, else the broker's.
    pub fn heartbeat_interval(&self, group_id: &str) -> i32 {
        self.overrides
            .heartbeat_interval(group_id, self.config.heartbeat_interval_ms)
    }
}

/// How a member reaches the consumer manager: a ConsumerGroupHeartbeat, or a classic JoinGroup
/// (its protocols and session timeout; epochs are not checked and a static member is always
/// replaced, as Kafka's `classicGroupJoinToConsumerGroup` does).
pub(crate) type Via = Option<super::migration::ClassicMemberMetadata>;

/// The consumer groups' manager for one call: borrows the shared context, the consumer side
/// and the consumer groups.
pub(crate) struct ConsumerManager<'a> {
    pub ctx: &'a mut Context,
    pub side: &'a mut ConsumerSide,
    pub groups: &'a mut ConsumerGroups,
}

/// Subscribed topic names of a member: names ∪ resolved regex topics (`extra`: a regex this
/// heartbeat resolves and has not written yet).
pub(super) fn member_topic_names<'a>(
    m: &'a ConsumerGroupMember,
    regexes: &'a BTreeMap<String, ResolvedRegex>,
    extra: Option<(&'a str, &'a ResolvedRegex)>,
) -> impl Iterator<Item = &'a String> + 'a {
    let resolved = m
        .subscribed_topic_regex
        .as_deref()
        .and_then(|r| match extra {
            Some((er, res)) if er == r => Some(&res.topics),
            _ => regexes.get(r).map(|x| &x.topics),
        });
    m.subscribed_topic_names
        .iter()
        .chain(resolved.into_iter().flatten())
}

/// The partitions a heartbeat reports as owned (`None`: not sent).
fn owned_of(req: &ConsumerGroupHeartbeatRequest) -> Option<Assignment> {
    req.topic_partitions.as_ref().map(|tps| {
        let mut a = Assignment::new();
        for tp in tps {
            let s: BTreeSet<i32> = tp.partitions.iter().collect();
            if !s.is_empty() {
                a.entry(tp.topic_id).or_default().extend(s);
            }
        }
        a
    })
}

/// The member epoch of `member_id` in consumer group `group_id` and whether it speaks the
/// classic protocol (`None` for an unknown member), and whether the group has members; `None`
/// when the group does not exist.
pub(crate) fn offset_member(
    groups: &ConsumerGroups,
    group_id: &str,
    member_id: &str,
) -> Option<(Option<(i32, bool)>, bool)> {
    let g = groups.get(group_id)?;
    let m = g
        .members
        .get(member_id)
        .map(|m| (m.member_epoch, m.classic.is_some()));
    Some((m, !g.members.is_empty()))
}

/// The answer to a failed heartbeat: only the error code and message (member id null, epoch 0,
/// interval 0, assignment null; docs/coordinator.md §0).
pub(crate) fn error_response(e: HbError) -> ConsumerGroupHeartbeatResponse {
    ConsumerGroupHeartbeatResponse {
        error_code: e.code,
        error_message: e.message.map(Into::into),
        member_id: None,
        member_epoch: 0,
        heartbeat_interval_ms: 0,
        assignment: None,
        ..Default::default()
    }
}

impl ConsumerManager<'_> {
    /// Applies a record and appends it to `records` (phase two's only way to write).
    pub(super) fn emit(&mut self, records: &mut Vec<ConsumerRecord>, r: ConsumerRecord) {
        commit::write(self.groups, records, r);
    }

    /// The metadata hash of the topics the group's members subscribe to (names ∪ regexes).
    pub(super) fn hash_of(&self, g: &ConsumerGroup) -> u64 {
        self.ctx.metadata_hash(
            g.members
                .values()
                .flat_map(|m| member_topic_names(m, &g.regexes, None)),
        )
    }
}

//! The consumer-group manager: `ConsumerGroupHeartbeat` (KIP-848; Kafka's
//! `GroupMetadataManager.consumerGroupHeartbeat`), `ConsumerGroupDescribe`, timers, topic
//! metadata changes and the member checks of offset commits and fetches, over the consumer
//! groups and the shared [`Context`] the facade lends it for one call.
//!
//! Transactions: a request runs in two phases. The first (`validate`, `plan`) reads the
//! state, makes every check and every fallible computation (regex compilation, the assignor) and
//! changes nothing; the second (`execute`) cannot fail and writes by emitting records, each
//! applied with [`apply`] as it is emitted, so the state stays what `replay` of the records
//! rebuilds. A failed request therefore writes no record and changes no state.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::assignor::{
    Assignment, ConsumerGroupAssignor, GroupSpec, MemberSpec, SubscriptionType, TopicInfo,
    TopicsSpec,
};
use super::group::{
    ConsumerGroup, ConsumerGroupMember, ConsumerGroups, MemberState, ResolvedRegex,
};
use super::reconcile::Reconcile;
use super::records::ConsumerRecord;
use super::replay::apply;
use super::{ConsumerGroupConfig, GroupConfig};
use crate::coordinator::context::{
    blank, fail, ConfigError, Context, HbError, Others, RequestContext, TopicMetadata,
};
use crate::coordinator::timers::{Due, Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::{
    self as describe, ConsumerGroupDescribeResponse, DescribedGroup,
};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::{
    self as hb, ConsumerGroupHeartbeatResponse,
};
use crate::wire::Uuid;

/// What the coordinator keeps for consumer groups besides their state: the configuration, the
/// per-group overrides and the compiled-regex cache.
#[derive(Debug)]
pub(crate) struct ConsumerSide {
    pub config: ConsumerGroupConfig,
    pub group_configs: BTreeMap<String, GroupConfig>,
    regex_cache: BTreeMap<String, regex::Regex>,
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
            group_configs: BTreeMap::new(),
            regex_cache: BTreeMap::new(),
            classic_max_size: i32::MAX,
            downgrades: Vec::new(),
        })
    }

    /// Sets a group's overrides of session timeout and heartbeat interval.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is outside the broker's [min, max].
    pub fn set_group_config(&mut self, group_id: &str, gc: GroupConfig) -> Result<(), ConfigError> {
        if let Some(s) = gc.session_timeout_ms {
            if !(self.config.min_session_timeout_ms..=self.config.max_session_timeout_ms)
                .contains(&s)
            {
                return Err(ConfigError(format!(
                    "consumer.session.timeout.ms {s} is out of bounds"
                )));
            }
        }
        if let Some(h) = gc.heartbeat_interval_ms {
            if !(self.config.min_heartbeat_interval_ms..=self.config.max_heartbeat_interval_ms)
                .contains(&h)
            {
                return Err(ConfigError(format!(
                    "consumer.heartbeat.interval.ms {h} is out of bounds"
                )));
            }
        }
        self.group_configs.insert(group_id.to_string(), gc);
        Ok(())
    }

    /// The assignor describe reports: the preferred one among the members, else the default.
    pub fn preferred_assignor_name(&self, g: &ConsumerGroup) -> String {
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        for m in g.members.values() {
            if let Some(a) = &m.server_assignor {
                *votes.entry(a.as_str()).or_default() += 1;
            }
        }
        let mut best: Option<(&str, usize)> = None;
        for a in &self.config.assignors {
            let n = votes.get(a.name()).copied().unwrap_or(0);
            if n > 0 && best.is_none_or(|(_, b)| n > b) {
                best = Some((a.name(), n));
            }
        }
        if best.is_none() {
            // A member may name an assignor no longer configured; the most named one wins.
            if let Some((name, _)) = votes.iter().max_by_key(|(_, n)| **n) {
                if !self.config.assignors.iter().any(|a| a.name() == *name) {
                    return (*name).to_string();
                }
            }
        }
        best.map(|b| b.0.to_string())
            .unwrap_or_else(|| self.config.assignors[0].name().to_string())
    }

    pub fn session_timeout(&self, group_id: &str) -> i32 {
        self.group_configs
            .get(group_id)
            .and_then(|g| g.session_timeout_ms)
            .unwrap_or(self.config.session_timeout_ms)
    }

    pub fn heartbeat_interval(&self, group_id: &str) -> i32 {
        self.group_configs
            .get(group_id)
            .and_then(|g| g.heartbeat_interval_ms)
            .unwrap_or(self.config.heartbeat_interval_ms)
    }
}

/// The heartbeat's decisions, computed without touching state (so a failure writes nothing).
pub(super) struct Plan {
    group_id: String,
    member_id: String,
    /// The member as stored before this heartbeat (None for a new member).
    replaced: Option<ConsumerGroupMember>,
    updated: ConsumerGroupMember,
    new_group: bool,
    subscription_changed: bool,
    new_regex: Option<(String, ResolvedRegex)>,
    dropped_regex: Option<String>,
    bump: Option<(i32, u64)>,
    targets: Option<(i32, BTreeMap<String, Assignment>)>,
    owned: Option<Assignment>,
}

/// How a member reaches the consumer manager: a ConsumerGroupHeartbeat, or a classic JoinGroup
/// (its protocols and session timeout; epochs are not checked and a static member is always
/// replaced, as Kafka's `classicGroupJoinToConsumerGroup` does).
pub(crate) type Via = Option<super::migration::ClassicMemberMetadata>;

/// The consumer groups' manager for one call: borrows the shared context, the consumer side
/// and the consumer groups; `others` tells which group ids belong to another group type.
pub(crate) struct ConsumerManager<'a> {
    pub ctx: &'a mut Context,
    pub side: &'a mut ConsumerSide,
    pub groups: &'a mut ConsumerGroups,
    pub others: Others<'a>,
}

/// Subscribed topic names of a member: names ∪ resolved regex topics.
fn member_topic_names<'a>(
    m: &'a ConsumerGroupMember,
    regexes: &'a BTreeMap<String, ResolvedRegex>,
    extra: Option<&'a (String, ResolvedRegex)>,
) -> impl Iterator<Item = &'a String> + 'a {
    let resolved = m.subscribed_topic_regex.as_ref().and_then(|r| {
        if let Some((er, res)) = extra {
            if er == r {
                return Some(&res.topics);
            }
        }
        regexes.get(r).map(|x| &x.topics)
    });
    m.subscribed_topic_names
        .iter()
        .chain(resolved.into_iter().flatten())
}

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

/// The member epoch of `member_id` in consumer group `group_id` (`Err(())` for an unknown
/// member) and whether the group has members; `None` when the group does not exist.
pub(crate) fn member_epoch(
    groups: &ConsumerGroups,
    group_id: &str,
    member_id: &str,
) -> Option<(Result<i32, ()>, bool)> {
    let g = groups.get(group_id)?;
    let e = g.members.get(member_id).map(|m| m.member_epoch).ok_or(());
    Some((e, !g.members.is_empty()))
}

impl ConsumerManager<'_> {
    /// Re-arms the volatile timers of every member after a replay (docs/coordinator.md, D6): a
    /// session timer from `now_ms`, and a rebalance timer for members in UNREVOKED_PARTITIONS.
    pub fn rearm(&mut self, now_ms: i64) {
        for g in self.groups.values() {
            let session = self.side.session_timeout(&g.group_id);
            for m in g.members.values() {
                let revoking = (m.state == MemberState::UnrevokedPartitions && m.classic.is_none())
                    .then_some((m.member_epoch, m.rebalance_timeout_ms));
                let session = m.classic.as_ref().map_or(session, |c| c.session_timeout_ms);
                self.ctx
                    .timers
                    .rearm_member(&g.group_id, &m.member_id, now_ms, session, revoking);
            }
        }
    }

    /// Fires a due timer of a consumer member: an expired session fences the member (as a -1
    /// leave, with a group-epoch bump); an expired rebalance timer fences it only if it is still
    /// at the epoch captured when the timer was armed. Timers of members that are gone are no-ops.
    pub fn fire(&mut self, due: &Due) -> Vec<ConsumerRecord> {
        let (g, m) = (&due.group_id, &due.member_id);
        let member = self.groups.get(g).and_then(|gr| gr.members.get(m));
        let fence = match due.kind {
            TimerKind::Session => member.is_some(),
            TimerKind::Rebalance { epoch } => member.is_some_and(|mm| mm.member_epoch == epoch),
            TimerKind::ConsumerClassicJoin | TimerKind::ConsumerClassicSync => member.is_some(),
            // The streams and classic group types' timers.
            _ => false,
        };
        let mut records = Vec::new();
        if fence {
            self.fence_member(g, m, &mut records);
        }
        records
    }

    /// Applies a record and appends it to `records`.
    pub(super) fn emit(&mut self, records: &mut Vec<ConsumerRecord>, r: ConsumerRecord) {
        apply(self.groups, &r);
        records.push(r);
    }

    /// The metadata hash of the topics the group's members subscribe to (names ∪ regexes).
    pub(super) fn hash_of(&self, g: &ConsumerGroup) -> u64 {
        self.ctx.metadata_hash(
            g.members
                .values()
                .flat_map(|m| member_topic_names(m, &g.regexes, None)),
        )
    }

    fn compile(&mut self, re: &str) -> Result<regex::Regex, String> {
        if let Some(r) = self.side.regex_cache.get(re) {
            return Ok(r.clone());
        }
        if let Err(e) = regex::Regex::new(re) {
            let text = e.to_string();
            let reason = text
                .lines()
                .find_map(|l| l.strip_prefix("error: "))
                .map(str::to_string)
                .unwrap_or(text);
            return Err(reason);
        }
        let compiled = regex::Regex::new(&format!("^(?:{re})$")).map_err(|e| e.to_string())?;
        self.side
            .regex_cache
            .insert(re.to_string(), compiled.clone());
        Ok(compiled)
    }

    fn resolve(&self, re: &regex::Regex, now_ms: i64) -> ResolvedRegex {
        ResolvedRegex {
            topics: self
                .ctx
                .topics
                .keys()
                .filter(|n| re.is_match(n))
                .cloned()
                .collect(),
            version: self.ctx.metadata_version,
            timestamp_ms: now_ms,
        }
    }

    /// Follows new topic metadata (already in the context; docs/coordinator.md, D4): every regex
    /// of every group is resolved again (a regex record when its topic set changed), and a group
    /// whose subscribed-topic metadata hash or regex resolutions changed has its epoch bumped (a
    /// group-epoch record with the new hash); its next heartbeat computes a new target.
    pub fn metadata_changed(&mut self, now_ms: i64) -> Vec<ConsumerRecord> {
        let mut records = Vec::new();
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in ids {
            let regexes: Vec<(String, ResolvedRegex)> = match self.groups.get(&gid) {
                Some(g) => g
                    .regexes
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                None => continue,
            };
            let mut changed = false;
            for (re, old) in regexes {
                let Ok(compiled) = self.compile(&re) else {
                    continue;
                };
                let res = self.resolve(&compiled, now_ms);
                if res.topics != old.topics {
                    changed = true;
                    self.emit(&mut records, ConsumerRecord::regex(&gid, &re, &res));
                }
            }
            let Some(g) = self.groups.get(&gid) else {
                continue;
            };
            let hash = self.ctx.metadata_hash(
                g.members
                    .values()
                    .flat_map(|m| member_topic_names(m, &g.regexes, None)),
            );
            if changed || hash != g.metadata_hash {
                let epoch = g.group_epoch + 1;
                self.emit(&mut records, ConsumerRecord::group_epoch(&gid, epoch, hash));
            }
        }
        records
    }

    /// Removes a member as a -1 leave or a fence does (docs/coordinator.md §1.5): tombstones for
    /// its current assignment, target and metadata; a regex tombstone if it was the regex's last
    /// subscriber; G+1 with the recomputed hash; its timers cancelled.
    pub fn fence_member(&mut self, gid: &str, mid: &str, records: &mut Vec<ConsumerRecord>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let Some(m) = g.members.get(mid) else { return };
        if self.downgrade_allowed(g, &BTreeSet::from([mid.to_string()])) {
            self.ctx.timers.cancel_member(gid, mid);
            self.side.downgrades.push(PendingDowngrade {
                group_id: gid.to_string(),
                leaving: BTreeSet::from([mid.to_string()]),
                rebalance: true,
            });
            return;
        }
        let regex = m.subscribed_topic_regex.clone();
        let last_of_regex = regex.as_ref().filter(|r| {
            !g.members
                .values()
                .any(|o| o.member_id != mid && o.subscribed_topic_regex.as_ref() == Some(*r))
                && g.regexes.contains_key(*r)
        });
        let last_of_regex = last_of_regex.cloned();
        self.emit(records, ConsumerRecord::current_tombstone(gid, mid));
        self.emit(records, ConsumerRecord::target_tombstone(gid, mid));
        self.emit(records, ConsumerRecord::member_metadata_tombstone(gid, mid));
        if let Some(r) = last_of_regex {
            self.emit(records, ConsumerRecord::regex_tombstone(gid, &r));
        }
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let hash = self.ctx.metadata_hash(
            g.members
                .values()
                .flat_map(|m| member_topic_names(m, &g.regexes, None)),
        );
        let epoch = g.group_epoch + 1;
        self.emit(records, ConsumerRecord::group_epoch(gid, epoch, hash));
        self.cancel_all_timers(gid, mid);
    }

    /// Cancels every timer of a member: session, rebalance and the classic join and sync
    /// timeouts (Kafka's `cancelTimers`).
    pub fn cancel_all_timers(&mut self, gid: &str, mid: &str) {
        self.ctx.timers.cancel_member(gid, mid);
        self.ctx.timers.cancel(gid, mid, Slot::ConsumerClassicJoin);
        self.ctx.timers.cancel(gid, mid, Slot::ConsumerClassicSync);
    }

    /// Kafka 4.4's `validateOnlineDowngradeWithFencedMembers`: every member left uses the
    /// classic protocol while a fenced one does not, some member is left, the policy allows
    /// downgrades and the members left fit `group.max.size`.
    pub fn downgrade_allowed(&self, g: &ConsumerGroup, fenced: &BTreeSet<String>) -> bool {
        let classic_left = g
            .members
            .values()
            .filter(|m| !fenced.contains(&m.member_id))
            .all(|m| m.classic.is_some());
        let fenced_consumer = g
            .members
            .values()
            .any(|m| fenced.contains(&m.member_id) && m.classic.is_none());
        let left = g.members.keys().filter(|m| !fenced.contains(*m)).count();
        classic_left
            && fenced_consumer
            && left > 0
            && self.side.config.migration_policy.is_downgrade_enabled()
            && left <= self.side.classic_max_size.max(0) as usize
    }

    /// Handles a ConsumerGroupHeartbeat (docs/coordinator.md §1.1-1.10): validation, join, heartbeat,
    /// leave (-1), static temporary leave (-2) and static rejoin. On error the response carries only
    /// the error code and message (member id null, epoch 0, interval 0, assignment null) and no
    /// record is written. Never panics on request input.
    pub fn heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<ConsumerRecord>) {
        let mut records = Vec::new();
        match self.heartbeat_inner(ctx, req, now_ms, &mut records) {
            Ok(response) => (response, records),
            Err(e) => {
                debug_assert!(records.is_empty());
                (
                    ConsumerGroupHeartbeatResponse {
                        error_code: e.code,
                        error_message: e.message.map(Into::into),
                        member_id: None,
                        member_epoch: 0,
                        heartbeat_interval_ms: 0,
                        assignment: None,
                        ..Default::default()
                    },
                    records,
                )
            }
        }
    }

    fn validate(
        &self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
    ) -> Result<(), HbError> {
        let e = req.member_epoch;
        if (ctx.api_version >= 1 || e > 0 || e == -1) && blank(&req.member_id) {
            return fail(ErrorCode::InvalidRequest.code(), "MemberId can't be empty.");
        }
        if blank(&req.group_id) {
            return fail(ErrorCode::InvalidRequest.code(), "GroupId can't be empty.");
        }
        if req.instance_id.as_deref().is_some_and(blank) {
            return fail(
                ErrorCode::InvalidRequest.code(),
                "InstanceId can't be empty.",
            );
        }
        if req.rack_id.as_deref().is_some_and(blank) {
            return fail(ErrorCode::InvalidRequest.code(), "RackId can't be empty.");
        }
        if e == 0 {
            if req.rebalance_timeout_ms == -1 {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "RebalanceTimeoutMs must be provided in first request.",
                );
            }
            if req.topic_partitions.as_ref().is_none_or(|t| !t.is_empty()) {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "TopicPartitions must be empty when (re-)joining.",
                );
            }
            if req.subscribed_topic_names.is_none() && req.subscribed_topic_regex.is_none() {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
                );
            }
        } else if e == -2 {
            if req.instance_id.is_none() {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "InstanceId can't be null.",
                );
            }
        } else if e < -2 {
            return fail(ErrorCode::InvalidRequest.code(), "MemberEpoch is invalid.");
        }
        if let Some(a) = &req.server_assignor {
            if !self.side.config.assignors.iter().any(|x| x.name() == &**a) {
                let names: Vec<&str> = self
                    .side
                    .config
                    .assignors
                    .iter()
                    .map(|x| x.name())
                    .collect();
                return fail(
                    ErrorCode::UnsupportedAssignor.code(),
                    format!(
                        "ServerAssignor {} is not supported. Supported assignors: {}.",
                        &**a,
                        names.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }

    fn heartbeat_inner(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<ConsumerRecord>,
    ) -> Result<ConsumerGroupHeartbeatResponse, HbError> {
        self.validate(ctx, req)?;
        if req.member_epoch < 0 {
            return self.leave(req, records);
        }
        let plan = self.plan(ctx, req, now_ms, None)?;
        Ok(self.execute(plan, req, now_ms, records))
    }

    fn leave(
        &mut self,
        req: &ConsumerGroupHeartbeatRequest,
        records: &mut Vec<ConsumerRecord>,
    ) -> Result<ConsumerGroupHeartbeatResponse, HbError> {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        if self.others.hold(&gid) {
            return fail(
                ErrorCode::GroupIdNotFound.code(),
                format!("Group {gid} is not a consumer group."),
            );
        }
        let Some(g) = self.groups.get(&gid) else {
            return fail(
                ErrorCode::GroupIdNotFound.code(),
                format!("Consumer group {gid} not found."),
            );
        };
        let member = match &req.instance_id {
            None => match g.members.get(&mid) {
                Some(m) => m,
                None => {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Member {mid} is not a member of group {gid}."),
                    )
                }
            },
            Some(i) => match g.static_member(i) {
                None => {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Instance id {} is unknown.", &**i),
                    )
                }
                Some(h) if h.member_id != mid => {
                    return fail(
                        ErrorCode::FencedInstanceId.code(),
                        format!(
                            "Static member {mid} with instance id {} was fenced by member {}.",
                            &**i, h.member_id
                        ),
                    )
                }
                Some(h) => h,
            },
        };
        if req.member_epoch == -2 {
            let mut m = member.clone();
            m.member_epoch = -2;
            m.pending_revocation = Assignment::new();
            self.emit(records, ConsumerRecord::current(&gid, &m));
            Ok(ConsumerGroupHeartbeatResponse {
                member_id: Some(mid.into()),
                member_epoch: -2,
                ..Default::default()
            })
        } else {
            let member_id = member.member_id.clone();
            self.fence_member(&gid, &member_id, records);
            Ok(ConsumerGroupHeartbeatResponse {
                member_id: Some(req.member_id.clone()),
                member_epoch: -1,
                ..Default::default()
            })
        }
    }

    /// Phase one of a heartbeat (epoch ≥ 0): every check and every fallible computation (regex
    /// compilation, the assignor), with no state change.
    pub(super) fn plan(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        via: Via,
    ) -> Result<Plan, HbError> {
        let classic = via.is_some();
        let gid = req.group_id.to_string();
        let epoch = req.member_epoch;
        let generated = if epoch == 0 && blank(&req.member_id) {
            Some(self.ctx.ids.generate())
        } else {
            None
        };
        if self.others.hold(&gid) {
            return fail(
                ErrorCode::GroupIdNotFound.code(),
                format!("Group {gid} is not a consumer group."),
            );
        }
        let fresh;
        let g = match self.groups.get(&gid) {
            Some(g) => g,
            None if epoch == 0 => {
                fresh = ConsumerGroup::new(&gid);
                &fresh
            }
            None => {
                return fail(
                    ErrorCode::GroupIdNotFound.code(),
                    format!("Consumer group {gid} not found."),
                )
            }
        };
        let new_group = g.group_epoch == 0;
        let req_mid = req.member_id.to_string();
        // Max size, before member lookup (docs/coordinator.md §1.2).
        let static_known = req
            .instance_id
            .as_ref()
            .is_some_and(|i| g.static_members.contains_key(&**i));
        if !static_known
            && g.members.len() >= self.side.config.max_size as usize
            && (blank(&req_mid) || !g.members.contains_key(&req_mid))
        {
            return fail(
                ErrorCode::GroupMaxSizeReached.code(),
                format!(
                    "The consumer group has reached its maximum capacity of {} members.",
                    self.side.config.max_size
                ),
            );
        }
        let member_id = generated.unwrap_or(req_mid);
        let owned = owned_of(req);
        // Resolve the member.
        let mut replaced: Option<ConsumerGroupMember> = None;
        let base: ConsumerGroupMember = match &req.instance_id {
            None => match g.members.get(&member_id) {
                Some(m) => {
                    if epoch != 0 {
                        check_epoch(m, epoch, owned.as_ref())?;
                    }
                    m.clone()
                }
                None if epoch == 0 => ConsumerGroupMember::new(&member_id),
                None => {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Member {member_id} is not a member of group {gid}."),
                    )
                }
            },
            Some(i) => {
                let holder = g.static_member(i);
                if epoch == 0 {
                    match holder {
                        None => g.members.get(&member_id).cloned().unwrap_or_else(|| ConsumerGroupMember::new(&member_id)),
                        Some(h) if h.member_epoch != -2 && !classic && h.classic.is_none() => {
                            return fail(
                                ErrorCode::UnreleasedInstanceId.code(),
                                format!(
                                    "Static member {member_id} with instance id {} cannot join the group because the instance id is owned by {} member.",
                                    &**i, h.member_id
                                ),
                            )
                        }
                        Some(h) => {
                            replaced = Some(h.clone());
                            let mut copy = h.clone();
                            copy.member_id = member_id.clone();
                            copy.member_epoch = 0;
                            copy.previous_member_epoch = 0;
                            copy.pending_revocation = Assignment::new();
                            copy
                        }
                    }
                } else {
                    match holder {
                        None => return fail(ErrorCode::UnknownMemberId.code(), format!("Instance id {} is unknown.", &**i)),
                        Some(h) if h.member_id != member_id => {
                            return fail(
                                ErrorCode::FencedInstanceId.code(),
                                format!(
                                    "Static member {member_id} with instance id {} was fenced by member {}.",
                                    &**i, h.member_id
                                ),
                            )
                        }
                        Some(h) => {
                            check_epoch(h, epoch, owned.as_ref())?;
                            h.clone()
                        }
                    }
                }
            }
        };
        if !classic
            && base.state == MemberState::Unknown
            && owned.as_ref().is_none_or(|o| !o.is_empty())
        {
            return fail(
                ErrorCode::FencedMemberEpoch.code(),
                "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.",
            );
        }
        // The updated member: null means unchanged.
        let mut u = base.clone();
        if let Some(i) = &req.instance_id {
            u.instance_id = Some(i.to_string());
        }
        if let Some(r) = &req.rack_id {
            u.rack_id = Some(r.to_string());
        }
        u.client_id = ctx.client_id.clone();
        u.client_host = ctx.client_host.clone();
        if let Some(names) = &req.subscribed_topic_names {
            u.subscribed_topic_names = names.iter().map(|n| n.to_string()).collect();
        }
        if let Some(re) = &req.subscribed_topic_regex {
            u.subscribed_topic_regex = if re.is_empty() {
                None
            } else {
                Some(re.to_string())
            };
        }
        if req.rebalance_timeout_ms != -1 {
            u.rebalance_timeout_ms = req.rebalance_timeout_ms;
        }
        if let Some(a) = &req.server_assignor {
            u.server_assignor = Some(a.to_string());
        }
        u.classic = via;
        let subscription_changed = u.subscribed_topic_names != base.subscribed_topic_names
            || u.subscribed_topic_regex != base.subscribed_topic_regex;
        // Regex bookkeeping (§1.8, D4): a regex new to the group is compiled and resolved now.
        let mut new_regex = None;
        if let Some(re) = &u.subscribed_topic_regex {
            if !g.regexes.contains_key(re) {
                let re = re.clone();
                // `g` borrows self.groups; compile needs &mut self (cache): clone what we need.
                let compiled = match self.compile(&re) {
                    Ok(c) => c,
                    Err(reason) => {
                        return fail(
                            ErrorCode::InvalidRegularExpression.code(),
                            format!("SubscribedTopicRegex `{re}` is not a valid regular expression: {reason}."),
                        )
                    }
                };
                new_regex = Some((re.clone(), self.resolve(&compiled, now_ms)));
            }
        }
        // Re-borrow the group after the &mut self calls.
        let fresh2;
        let g = match self.groups.get(&gid) {
            Some(g) => g,
            None => {
                fresh2 = ConsumerGroup::new(&gid);
                &fresh2
            }
        };
        let dropped_regex = base.subscribed_topic_regex.clone().filter(|old| {
            Some(old) != u.subscribed_topic_regex.as_ref()
                && g.regexes.contains_key(old)
                && !g.members.values().any(|o| {
                    o.member_id != base.member_id
                        && replaced.as_ref().is_none_or(|r| r.member_id != o.member_id)
                        && o.subscribed_topic_regex.as_ref() == Some(old)
                })
        });
        // The membership as it will be (replaced static member out, updated member in).
        let replaced_id = replaced.as_ref().map(|r| r.member_id.clone());
        let prospective = || {
            g.members
                .values()
                .filter(|m| {
                    m.member_id != u.member_id && Some(&m.member_id) != replaced_id.as_ref()
                })
                .chain(std::iter::once(&u))
        };
        let mut regexes_after = g.regexes.clone();
        if let Some((re, res)) = &new_regex {
            regexes_after.insert(re.clone(), res.clone());
        }
        if let Some(d) = &dropped_regex {
            regexes_after.remove(d);
        }
        let bump = if new_group || subscription_changed {
            let hash = self.ctx.metadata_hash(
                prospective().flat_map(|m| member_topic_names(m, &regexes_after, None)),
            );
            Some((g.group_epoch + 1, hash))
        } else {
            None
        };
        let group_epoch = bump.map_or(g.group_epoch, |b| b.0);
        let targets = if group_epoch > g.assignment_epoch {
            let mut specs = BTreeMap::new();
            let mut topics_spec = TopicsSpec::new();
            let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
            let mut sets = BTreeSet::new();
            for m in prospective() {
                let ids = self
                    .ctx
                    .topic_ids_of(member_topic_names(m, &regexes_after, None));
                for id in &ids {
                    if let Some(t) = self.ctx.topics.values().find(|t| t.topic_id == *id) {
                        topics_spec.entry(*id).or_insert_with(|| TopicInfo {
                            name: t.name.clone(),
                            partitions: t.partitions,
                            partition_racks: t.partition_racks.clone(),
                        });
                    }
                }
                if let Some(a) = &m.server_assignor {
                    *votes.entry(a.as_str()).or_default() += 1;
                }
                let previous = g
                    .targets
                    .get(&m.member_id)
                    .or_else(|| {
                        replaced_id
                            .as_ref()
                            .and_then(|r| g.targets.get(r))
                            .filter(|_| m.member_id == u.member_id)
                    })
                    .cloned()
                    .unwrap_or_default();
                sets.insert(ids.clone());
                specs.insert(
                    m.member_id.clone(),
                    MemberSpec {
                        rack_id: m.rack_id.clone(),
                        instance_id: m.instance_id.clone(),
                        subscribed_topic_ids: ids,
                        assigned: previous,
                    },
                );
            }
            let assignor = self.preferred_assignor(&votes);
            let spec = GroupSpec {
                members: specs,
                subscription_type: if sets.len() <= 1 {
                    SubscriptionType::Homogeneous
                } else {
                    SubscriptionType::Heterogeneous
                },
            };
            let out = assignor.assign(&spec, &topics_spec).map_err(|_| HbError {
                code: ErrorCode::UnknownServerError.code(),
                message: None,
            })?;
            let mut t = BTreeMap::new();
            for id in spec.members.keys() {
                let mut a = out.members.get(id).cloned().unwrap_or_default();
                a.retain(|_, p| !p.is_empty());
                t.insert(id.clone(), a);
            }
            Some((group_epoch, t))
        } else {
            None
        };
        Ok(Plan {
            group_id: gid,
            member_id: u.member_id.clone(),
            replaced,
            updated: u,
            new_group,
            subscription_changed,
            new_regex,
            dropped_regex,
            bump,
            targets,
            owned,
        })
    }

    fn preferred_assignor(&self, votes: &BTreeMap<&str, usize>) -> Arc<dyn ConsumerGroupAssignor> {
        let mut best: Option<(&Arc<dyn ConsumerGroupAssignor>, usize)> = None;
        for a in &self.side.config.assignors {
            let n = votes.get(a.name()).copied().unwrap_or(0);
            if n > 0 && best.is_none_or(|(_, b)| n > b) {
                best = Some((a, n));
            }
        }
        best.map(|b| b.0.clone())
            .unwrap_or_else(|| self.side.config.assignors[0].clone())
    }

    /// Phase two of a heartbeat: emit (and apply) the records, reconcile, arm timers, answer.
    pub(super) fn execute(
        &mut self,
        plan: Plan,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<ConsumerRecord>,
    ) -> ConsumerGroupHeartbeatResponse {
        let gid = plan.group_id.clone();
        let mid = plan.member_id.clone();
        let _ = plan.new_group;
        // Static replacement (docs/coordinator.md §1.5).
        if let Some(old) = &plan.replaced {
            let old_target = self
                .groups
                .get(&gid)
                .and_then(|g| g.targets.get(&old.member_id))
                .cloned()
                .unwrap_or_default();
            self.emit(
                records,
                ConsumerRecord::current_tombstone(&gid, &old.member_id),
            );
            self.emit(
                records,
                ConsumerRecord::target_tombstone(&gid, &old.member_id),
            );
            self.emit(
                records,
                ConsumerRecord::member_metadata_tombstone(&gid, &old.member_id),
            );
            let mut copy = old.clone();
            copy.member_id = mid.clone();
            copy.member_epoch = 0;
            copy.previous_member_epoch = 0;
            copy.pending_revocation = Assignment::new();
            self.emit(records, ConsumerRecord::member_metadata(&gid, &copy));
            self.emit(records, ConsumerRecord::target(&gid, &mid, &old_target));
            self.emit(records, ConsumerRecord::current(&gid, &copy));
        }
        let before = self
            .groups
            .get(&gid)
            .and_then(|g| g.members.get(&mid))
            .cloned();
        if before
            .as_ref()
            .is_none_or(|b| !b.same_metadata(&plan.updated))
        {
            self.emit(
                records,
                ConsumerRecord::member_metadata(&gid, &plan.updated),
            );
        }
        if let Some((re, res)) = &plan.new_regex {
            self.emit(records, ConsumerRecord::regex(&gid, re, res));
        }
        if let Some(d) = &plan.dropped_regex {
            self.emit(records, ConsumerRecord::regex_tombstone(&gid, d));
        }
        if let Some((epoch, hash)) = plan.bump {
            self.emit(records, ConsumerRecord::group_epoch(&gid, epoch, hash));
        }
        if let Some((epoch, targets)) = &plan.targets {
            for (id, t) in targets {
                let old = self.groups.get(&gid).and_then(|g| g.targets.get(id));
                if old != Some(t) {
                    self.emit(records, ConsumerRecord::target(&gid, id, t));
                }
            }
            self.emit(records, ConsumerRecord::target_epoch(&gid, *epoch));
        }
        // Reconcile (docs/coordinator.md §1.6).
        let (member, new_member) = {
            let Some(g) = self.groups.get(&gid) else {
                return ConsumerGroupHeartbeatResponse {
                    error_code: ErrorCode::UnknownServerError.code(),
                    ..Default::default()
                };
            };
            let Some(member) = g.members.get(&mid).cloned() else {
                return ConsumerGroupHeartbeatResponse {
                    error_code: ErrorCode::UnknownServerError.code(),
                    ..Default::default()
                };
            };
            let empty = Assignment::new();
            let subscribed = self
                .ctx
                .topic_ids_of(member_topic_names(&member, &g.regexes, None));
            let rec = Reconcile {
                group: g,
                target_epoch: g.assignment_epoch,
                target: g.targets.get(&mid).unwrap_or(&empty),
                subscribed: &subscribed,
                subscription_changed: plan.subscription_changed,
                owned: plan.owned.as_ref(),
            };
            let new_member = rec.run(&member).unwrap_or_else(|_| member.clone());
            (member, new_member)
        };
        let classic = new_member.classic.clone();
        if !member.same_assignment(&new_member) {
            self.emit(records, ConsumerRecord::current(&gid, &new_member));
            if classic.is_some() {
                // Classic members have join and sync timers instead (Kafka's `maybeReconcile`).
            } else if new_member.state == MemberState::UnrevokedPartitions {
                let deadline = now_ms + i64::from(new_member.rebalance_timeout_ms.max(0));
                let epoch = new_member.member_epoch;
                self.ctx
                    .timers
                    .arm(&gid, &mid, TimerKind::Rebalance { epoch }, deadline);
            } else {
                self.ctx.timers.cancel(&gid, &mid, Slot::Rebalance);
            }
        }
        let session = classic
            .as_ref()
            .map_or(self.side.session_timeout(&gid), |c| c.session_timeout_ms);
        self.ctx
            .timers
            .arm(&gid, &mid, TimerKind::Session, now_ms + i64::from(session));
        let full = req.rebalance_timeout_ms != -1
            && (req.subscribed_topic_names.is_some() || req.subscribed_topic_regex.is_some())
            && req.topic_partitions.is_some();
        let changed = member.assigned != new_member.assigned;
        let assignment = (req.member_epoch == 0 || full || changed).then(|| hb::Assignment {
            topic_partitions: new_member
                .assigned
                .iter()
                .map(|(t, ps)| hb::TopicPartitions {
                    topic_id: *t,
                    partitions: ps.iter().copied().collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        ConsumerGroupHeartbeatResponse {
            error_code: ErrorCode::None.code(),
            error_message: None,
            member_id: Some(mid.into()),
            member_epoch: new_member.member_epoch,
            heartbeat_interval_ms: self.side.heartbeat_interval(&gid),
            assignment,
            ..Default::default()
        }
    }
}

fn check_epoch(
    m: &ConsumerGroupMember,
    received: i32,
    owned: Option<&Assignment>,
) -> Result<(), HbError> {
    if received > m.member_epoch {
        return fail(
            ErrorCode::FencedMemberEpoch.code(),
            format!(
                "The consumer group member has a greater member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                m.member_epoch
            ),
        );
    }
    if received < m.member_epoch {
        let tolerated = received == m.previous_member_epoch
            && owned.is_some_and(|o| {
                o.iter()
                    .all(|(t, ps)| m.assigned.get(t).is_some_and(|a| ps.is_subset(a)))
            });
        if !tolerated {
            return fail(
                ErrorCode::FencedMemberEpoch.code(),
                format!(
                    "The consumer group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                    m.member_epoch
                ),
            );
        }
    }
    Ok(())
}

/// Handles a ConsumerGroupDescribe (docs/coordinator.md §1.11): one entry per requested id, in
/// order. An empty (or blank) id gives ErrorCode::InvalidGroupId.code() with GroupId ""; a missing group gives
/// ErrorCode::GroupIdNotFound.code() `Group G not found.` Member entries carry MemberType 1 (consumer) for
/// v1; AuthorizedOperations is left at INT32_MIN (the caller, as KafkaApis, fills it in when
/// asked). State is read as it stands after the last call (a sans-IO coordinator commits
/// every write at once).
pub(crate) fn describe(
    ctx: &Context,
    side: &ConsumerSide,
    groups: &ConsumerGroups,
    others: &Others<'_>,
    req: &ConsumerGroupDescribeRequest,
) -> ConsumerGroupDescribeResponse {
    let groups = req
        .group_ids
        .iter()
        .map(|id| {
            if blank(id) {
                return DescribedGroup {
                    group_id: "".into(),
                    error_code: ErrorCode::InvalidGroupId.code(),
                    authorized_operations: i32::MIN,
                    ..Default::default()
                };
            }
            let Some(g) = groups.get(&**id) else {
                let message = if others.hold(id) {
                    format!("Group {} is not a consumer group.", &**id)
                } else {
                    format!("Group {} not found.", &**id)
                };
                return DescribedGroup {
                    group_id: id.clone(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(message.into()),
                    authorized_operations: i32::MIN,
                    ..Default::default()
                };
            };
            let by_id: BTreeMap<Uuid, &TopicMetadata> =
                ctx.topics.values().map(|t| (t.topic_id, t)).collect();
            let conv = |a: &Assignment| describe::Assignment {
                topic_partitions: a
                    .iter()
                    .filter_map(|(t, ps)| {
                        by_id.get(t).map(|tm| describe::TopicPartitions {
                            topic_id: *t,
                            topic_name: tm.name.clone().into(),
                            partitions: ps.iter().copied().collect(),
                            ..Default::default()
                        })
                    })
                    .collect(),
                ..Default::default()
            };
            let empty = Assignment::new();
            DescribedGroup {
                error_code: ErrorCode::None.code(),
                error_message: None,
                group_id: id.clone(),
                group_state: g.state.as_str().into(),
                group_epoch: g.group_epoch,
                assignment_epoch: g.assignment_epoch,
                assignor_name: side.preferred_assignor_name(g).into(),
                members: g
                    .members
                    .values()
                    .map(|m| describe::Member {
                        member_id: m.member_id.clone().into(),
                        instance_id: m.instance_id.clone().map(Into::into),
                        rack_id: m.rack_id.clone().map(Into::into),
                        member_epoch: m.member_epoch,
                        client_id: m.client_id.clone().into(),
                        client_host: m.client_host.clone().into(),
                        subscribed_topic_names: m
                            .subscribed_topic_names
                            .iter()
                            .map(|s| s.clone().into())
                            .collect(),
                        // Kafka 4.4 writes "" (not null) for a member without a regex
                        // (ConsumerGroupMember.asConsumerGroupDescribeMember; observed by the
                        // Kafka oracle, tests/tests/it/kafka_oracle).
                        subscribed_topic_regex: Some(
                            m.subscribed_topic_regex.clone().unwrap_or_default().into(),
                        ),
                        assignment: conv(&m.assigned),
                        target_assignment: conv(g.targets.get(&m.member_id).unwrap_or(&empty)),
                        // ConsumerGroupDescribe v1: 0 classic, 1 consumer (KIP-848).
                        member_type: if m.classic.is_some() { 0 } else { 1 },
                        ..Default::default()
                    })
                    .collect(),
                authorized_operations: i32::MIN,
                ..Default::default()
            }
        })
        .collect();
    ConsumerGroupDescribeResponse {
        throttle_time_ms: 0,
        groups,
        ..Default::default()
    }
}

//! The group coordinator for KIP-848 consumer groups, sans-IO and deterministic.
//!
//! [`GroupCoordinator`] consumes typed `ConsumerGroupHeartbeat` (v0-1) and `ConsumerGroupDescribe`
//! (v0-1) requests and answers as Apache Kafka 4.2 does (coordinator-spec.md sections 0, 1 and 3,
//! with kwire's departures D4-D7). Every call takes the request, a [`RequestContext`] (client id,
//! host, API version) and the current time in ms; it returns the response plus the [`Record`]s that
//! describe the state change. Timers are data ([`GroupCoordinator::next_deadline`],
//! [`GroupCoordinator::fire_timers`]); member ids come from an injected [`MemberIdGenerator`].
//!
//! State only changes by applying the emitted records, so [`replay`] of every record emitted so
//! far rebuilds the persisted and derived state ([`Groups`]); timers are volatile and re-armed by
//! [`GroupCoordinator::load`].
//!
//! Topic metadata (name → id, partition count, racks) is an input the caller sets with
//! [`GroupCoordinator::set_topics`]; a change bumps the epoch of every group whose subscribed
//! topics it touches (or whose regex resolutions it changes, D4), and the next heartbeat computes
//! a new target.

pub mod assignor;
mod group;
mod reconcile;
mod records;
pub mod streams;

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use group::{
    apply, replay, ConsumerGroup, ConsumerGroupMember, GroupState, Groups, MemberState,
    ResolvedRegex,
};
pub use records::Record;

use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::{
    self as describe, ConsumerGroupDescribeResponse, DescribedGroup,
};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::{
    self as hb, ConsumerGroupHeartbeatResponse,
};
use crate::wire::Uuid;
use assignor::{
    Assignment, ConsumerGroupAssignor, GroupSpec, MemberSpec, SubscriptionType, TopicInfo,
    TopicsSpec,
};
use reconcile::Reconcile;

/// Kafka error codes used by the consumer-group APIs (coordinator-spec.md section 3).
pub mod error_codes {
    /// No error.
    pub const NONE: i16 = 0;
    /// Assignor failure or unexpected failure.
    pub const UNKNOWN_SERVER_ERROR: i16 = -1;
    /// Describe with an empty group id.
    pub const INVALID_GROUP_ID: i16 = 24;
    /// An offset commit below v9 for a group that does not exist.
    pub const ILLEGAL_GENERATION: i16 = 22;
    /// Unknown member id or instance id.
    pub const UNKNOWN_MEMBER_ID: i16 = 25;
    /// Field validation failed.
    pub const INVALID_REQUEST: i16 = 42;
    /// The group does not exist (or is not a consumer group).
    pub const GROUP_ID_NOT_FOUND: i16 = 69;
    /// `group.consumer.max.size` reached.
    pub const GROUP_MAX_SIZE_REACHED: i16 = 81;
    /// A static member's id does not match the instance holder.
    pub const FENCED_INSTANCE_ID: i16 = 82;
    /// Member epoch too large, or too small and not tolerated.
    pub const FENCED_MEMBER_EPOCH: i16 = 110;
    /// A static join while the instance holder has not left with -2.
    pub const UNRELEASED_INSTANCE_ID: i16 = 111;
    /// Unknown `ServerAssignor`.
    pub const UNSUPPORTED_ASSIGNOR: i16 = 112;
    /// An offset commit or fetch at a member epoch that is not the member's (KIP-848).
    pub const STALE_MEMBER_EPOCH: i16 = 113;
    /// Invalid `SubscribedTopicRegex`.
    pub const INVALID_REGULAR_EXPRESSION: i16 = 128;
    /// A structurally invalid streams topology (KIP-1071).
    pub const STREAMS_INVALID_TOPOLOGY: i16 = 130;
    /// A streams join whose topology epoch does not fit the group's (D1).
    pub const STREAMS_INVALID_TOPOLOGY_EPOCH: i16 = 131;
    /// A streams join with a topology epoch older than the group's (D1).
    pub const STREAMS_TOPOLOGY_FENCED: i16 = 132;
}
use error_codes::*;

/// Who sent a request: what Kafka's `RequestContext` gives the coordinator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestContext {
    /// The client id of the request header.
    pub client_id: String,
    /// The client's address.
    pub client_host: String,
    /// The request's API version (v0 lets the server generate member ids; coordinator-spec.md 0).
    pub api_version: i16,
}

impl RequestContext {
    /// A context with the given client id, host and API version.
    pub fn new(client_id: &str, client_host: &str, api_version: i16) -> Self {
        RequestContext {
            client_id: client_id.to_string(),
            client_host: client_host.to_string(),
            api_version,
        }
    }
}

/// Source of server-generated member ids (ConsumerGroupHeartbeat v0 joins with an empty id).
pub trait MemberIdGenerator: Send + std::fmt::Debug {
    /// A fresh member id, never returned before.
    fn generate(&mut self) -> String;
}

/// Deterministic member ids: Kafka's text form (URL-safe base64) of a UUID derived from a counter
/// and a seed.
#[derive(Debug, Clone, Default)]
pub struct SequentialMemberIds {
    seed: u64,
    next: u64,
}

impl SequentialMemberIds {
    /// Ids derived from `seed`.
    pub fn new(seed: u64) -> Self {
        SequentialMemberIds { seed, next: 0 }
    }
}

impl MemberIdGenerator for SequentialMemberIds {
    fn generate(&mut self) -> String {
        self.next += 1;
        let mix = |mut z: u64| {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let hi = mix(self.seed ^ self.next);
        let lo = mix(hi ^ self.next.rotate_left(17));
        Uuid::from_u128(((hi as u128) << 64) | lo as u128).to_string()
    }
}

/// One topic of the caller-provided metadata (D4): what Kafka's metadata image knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// The topic id.
    pub topic_id: Uuid,
    /// The topic name.
    pub name: String,
    /// Number of partitions.
    pub partitions: i32,
    /// Replica racks by partition (may be empty); they feed only the metadata hash.
    pub partition_racks: BTreeMap<i32, BTreeSet<String>>,
}

impl TopicMetadata {
    /// A topic without rack information.
    pub fn new(topic_id: Uuid, name: &str, partitions: i32) -> Self {
        TopicMetadata {
            topic_id,
            name: name.to_string(),
            partitions,
            partition_racks: BTreeMap::new(),
        }
    }
}

/// An invalid configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid consumer-group configuration: {0}")]
pub struct ConfigError(pub String);

/// Broker-level consumer-group configuration (coordinator-spec.md 1.12), with Kafka's defaults.
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

/// A response plus the records describing the state change (empty on error).
#[derive(Debug, Clone, PartialEq)]
pub struct Output<R> {
    /// The response to send.
    pub response: R,
    /// Records to persist, in order; already applied to the coordinator's state.
    pub records: Vec<Record>,
}

#[derive(Debug)]
struct HbError {
    code: i16,
    message: Option<String>,
}

fn fail<T>(code: i16, message: impl Into<String>) -> Result<T, HbError> {
    Err(HbError {
        code,
        message: Some(message.into()),
    })
}

/// What a timer does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TimerKind {
    /// Session timeout: the member is fenced.
    Session,
    /// Rebalance (revocation) timeout: the member is fenced if still at the captured epoch.
    Rebalance {
        /// The member epoch when the timer was scheduled.
        epoch: i32,
    },
    /// A streams group's initial rebalance delay ended: targets are computed (2.4 step 6).
    InitialRebalanceDelay,
}

/// The consumer-group coordinator (see the module docs).
#[derive(Debug)]
pub struct GroupCoordinator {
    config: ConsumerGroupConfig,
    group_configs: BTreeMap<String, GroupConfig>,
    topics: BTreeMap<String, TopicMetadata>,
    metadata_version: i64,
    groups: Groups,
    session_timers: BTreeMap<(String, String), i64>,
    rebalance_timers: BTreeMap<(String, String), (i64, i32)>,
    regex_cache: BTreeMap<String, regex::Regex>,
    ids: Box<dyn MemberIdGenerator>,
    streams_config: streams::StreamsGroupConfig,
    streams_overrides: BTreeMap<String, streams::StreamsGroupOverrides>,
    streams: streams::StreamsGroups,
    streams_volatile: BTreeMap<String, streams::Volatile>,
}

/// The heartbeat's decisions, computed without touching state (so a failure writes nothing).
struct Plan {
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

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

impl GroupCoordinator {
    /// A coordinator with no groups and no topics.
    ///
    /// # Errors
    /// [`ConfigError`] when `config` breaks Kafka's bounds ([`ConsumerGroupConfig::validate`]).
    pub fn new(
        config: ConsumerGroupConfig,
        ids: Box<dyn MemberIdGenerator>,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(GroupCoordinator {
            config,
            group_configs: BTreeMap::new(),
            topics: BTreeMap::new(),
            metadata_version: 0,
            groups: Groups::new(),
            session_timers: BTreeMap::new(),
            rebalance_timers: BTreeMap::new(),
            regex_cache: BTreeMap::new(),
            ids,
            streams_config: streams::StreamsGroupConfig::default(),
            streams_overrides: BTreeMap::new(),
            streams: streams::StreamsGroups::new(),
            streams_volatile: BTreeMap::new(),
        })
    }

    /// A coordinator that takes over groups from their records (a restart or a move): replays
    /// them, sets the topic metadata (without emitting records) and re-arms the volatile timers
    /// (D6): a session timer from `now_ms` for every member, and a rebalance timer for members in
    /// UNREVOKED_PARTITIONS.
    ///
    /// # Errors
    /// [`ConfigError`] as for [`GroupCoordinator::new`].
    pub fn load(
        config: ConsumerGroupConfig,
        ids: Box<dyn MemberIdGenerator>,
        topics: Vec<TopicMetadata>,
        records: &[Record],
        now_ms: i64,
    ) -> Result<Self, ConfigError> {
        let mut c = Self::new(config, ids)?;
        c.topics = topics.into_iter().map(|t| (t.name.clone(), t)).collect();
        c.metadata_version = 1;
        c.groups = replay(records);
        c.streams = streams::replay(records.iter().filter_map(|r| match r {
            Record::Streams(s) => Some(s),
            _ => None,
        }));
        let mut arm = Vec::new();
        for g in c.groups.values() {
            for m in g.members.values() {
                arm.push((
                    g.group_id.clone(),
                    m.member_id.clone(),
                    m.state,
                    m.member_epoch,
                    m.rebalance_timeout_ms,
                ));
            }
        }
        for (g, m, state, epoch, rto) in arm {
            let session = c.session_timeout(&g);
            c.session_timers
                .insert((g.clone(), m.clone()), now_ms + i64::from(session));
            if state == MemberState::UnrevokedPartitions {
                c.rebalance_timers
                    .insert((g, m), (now_ms + i64::from(rto.max(0)), epoch));
            }
        }
        let mut arm = Vec::new();
        for g in c.streams.values() {
            for m in g.members.values() {
                let revoking = m.state == streams::StreamsMemberState::UnrevokedTasks;
                arm.push((
                    g.group_id.clone(),
                    m.member_id.clone(),
                    revoking,
                    m.member_epoch,
                    m.rebalance_timeout_ms,
                ));
            }
        }
        for (g, m, revoking, epoch, rto) in arm {
            let session = c.streams_session_timeout(&g);
            c.session_timers
                .insert((g.clone(), m.clone()), now_ms + i64::from(session));
            if revoking {
                c.rebalance_timers
                    .insert((g, m), (now_ms + i64::from(rto.max(0)), epoch));
            }
        }
        Ok(c)
    }

    /// The coordinator's configuration.
    pub fn config(&self) -> &ConsumerGroupConfig {
        &self.config
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

    fn session_timeout(&self, group_id: &str) -> i32 {
        self.group_configs
            .get(group_id)
            .and_then(|g| g.session_timeout_ms)
            .unwrap_or(self.config.session_timeout_ms)
    }

    fn heartbeat_interval(&self, group_id: &str) -> i32 {
        self.group_configs
            .get(group_id)
            .and_then(|g| g.heartbeat_interval_ms)
            .unwrap_or(self.config.heartbeat_interval_ms)
    }

    /// The member epoch of `member_id` in consumer or streams group `group_id`: `Err(true)` when
    /// the group does not exist, `Err(false)` when the member does not, plus whether the group has
    /// members at all.
    fn offset_member(&self, group_id: &str, member_id: &str) -> (Result<i32, bool>, bool) {
        if let Some(g) = self.groups.get(group_id) {
            let e = g.members.get(member_id).map(|m| m.member_epoch).ok_or(false);
            (e, !g.members.is_empty())
        } else if let Some(g) = self.streams.get(group_id) {
            let e = g.members.get(member_id).map(|m| m.member_epoch).ok_or(false);
            (e, !g.members.is_empty())
        } else {
            (Err(true), false)
        }
    }

    /// Checks the member fields of an OffsetCommit against the group (KIP-848; Kafka's
    /// `ConsumerGroup.validateOffsetCommit`, also for streams groups). Returns the error code to
    /// answer every partition with, or [`error_codes::NONE`]:
    /// - a negative epoch and no member id (the admin client, or a consumer that assigns
    ///   partitions itself): accepted while the group has no members (or does not exist),
    ///   else UNKNOWN_MEMBER_ID (25);
    /// - a member id or epoch for a group that does not exist: GROUP_ID_NOT_FOUND (69) (Kafka
    ///   answers ILLEGAL_GENERATION (22) below v9; `api_version` selects);
    /// - an unknown member id: UNKNOWN_MEMBER_ID (25);
    /// - an epoch other than the member's current one: STALE_MEMBER_EPOCH (113).
    pub fn validate_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        member_epoch: i32,
        api_version: i16,
    ) -> i16 {
        let (member, has_members) = self.offset_member(group_id, member_id);
        if member_id.is_empty() && member_epoch < 0 {
            return if has_members { UNKNOWN_MEMBER_ID } else { NONE };
        }
        match member {
            Err(true) if api_version >= 9 => GROUP_ID_NOT_FOUND,
            Err(true) => ILLEGAL_GENERATION,
            Err(false) => UNKNOWN_MEMBER_ID,
            Ok(e) if e != member_epoch => STALE_MEMBER_EPOCH,
            Ok(_) => NONE,
        }
    }

    /// Checks the member fields of an OffsetFetch (v9+) (Kafka's `validateOffsetFetch`): a
    /// fetch without member id and with epoch -1 (the admin client, or a consumer asking before
    /// it joined) is never checked; otherwise as [`GroupCoordinator::validate_offset_commit`]
    /// at v9, except that a group that does not exist is not an error (there is nothing to
    /// fence; its offsets read as -1).
    pub fn validate_offset_fetch(&self, group_id: &str, member_id: &str, member_epoch: i32) -> i16 {
        if member_id.is_empty() && member_epoch < 0 {
            return NONE;
        }
        match self.offset_member(group_id, member_id).0 {
            Err(true) => NONE,
            Err(false) => UNKNOWN_MEMBER_ID,
            Ok(e) if e != member_epoch => STALE_MEMBER_EPOCH,
            Ok(_) => NONE,
        }
    }

    /// Every group's persisted and derived state; equal to [`replay`] of every record emitted.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// One group's state.
    pub fn group(&self, group_id: &str) -> Option<&ConsumerGroup> {
        self.groups.get(group_id)
    }

    /// The session-timeout deadline (ms) of a member, if armed.
    pub fn session_deadline(&self, group_id: &str, member_id: &str) -> Option<i64> {
        self.session_timers
            .get(&(group_id.to_string(), member_id.to_string()))
            .copied()
    }

    /// The rebalance-timeout deadline (ms) of a member, if armed.
    pub fn rebalance_deadline(&self, group_id: &str, member_id: &str) -> Option<i64> {
        self.rebalance_timers
            .get(&(group_id.to_string(), member_id.to_string()))
            .map(|t| t.0)
    }

    /// The earliest armed timer deadline (ms), if any.
    pub fn next_deadline(&self) -> Option<i64> {
        let s = self.session_timers.values().copied().min();
        let r = self.rebalance_timers.values().map(|t| t.0).min();
        let d = self
            .streams_volatile
            .values()
            .filter_map(|v| v.delay_deadline)
            .min();
        [s, r, d].into_iter().flatten().min()
    }

    /// Fires every timer whose deadline is at or before `now_ms`, in deadline order, and returns
    /// the records they wrote (coordinator-spec.md 1.7): an expired session fences the member (as
    /// a -1 leave, with a group-epoch bump); an expired rebalance timer fences it only if it is
    /// still at the epoch captured when the timer was armed. Timers of members that are gone are
    /// no-ops.
    pub fn fire_timers(&mut self, now_ms: i64) -> Vec<Record> {
        let mut due: Vec<(i64, TimerKind, String, String)> = Vec::new();
        for ((g, m), d) in &self.session_timers {
            if *d <= now_ms {
                due.push((*d, TimerKind::Session, g.clone(), m.clone()));
            }
        }
        for ((g, m), (d, e)) in &self.rebalance_timers {
            if *d <= now_ms {
                due.push((*d, TimerKind::Rebalance { epoch: *e }, g.clone(), m.clone()));
            }
        }
        for (g, v) in &self.streams_volatile {
            if let Some(d) = v.delay_deadline.filter(|d| *d <= now_ms) {
                due.push((
                    d,
                    TimerKind::InitialRebalanceDelay,
                    g.clone(),
                    String::new(),
                ));
            }
        }
        due.sort();
        let mut records = Vec::new();
        for (_, kind, g, m) in due {
            let key = (g.clone(), m.clone());
            let streams_member = self.streams.get(&g).and_then(|gr| gr.members.get(&m));
            let fence = match kind {
                TimerKind::Session => {
                    if self.session_timers.get(&key).is_none_or(|d| *d > now_ms) {
                        continue;
                    }
                    self.session_timers.remove(&key);
                    streams_member.is_some()
                        || self
                            .groups
                            .get(&g)
                            .is_some_and(|gr| gr.members.contains_key(&m))
                }
                TimerKind::Rebalance { epoch } => {
                    if self.rebalance_timers.get(&key).is_none_or(|t| t.0 > now_ms) {
                        continue;
                    }
                    self.rebalance_timers.remove(&key);
                    streams_member.is_some_and(|mm| {
                        mm.member_epoch == epoch
                            && mm.state == streams::StreamsMemberState::UnrevokedTasks
                    }) || self
                        .groups
                        .get(&g)
                        .and_then(|gr| gr.members.get(&m))
                        .is_some_and(|mm| mm.member_epoch == epoch)
                }
                TimerKind::InitialRebalanceDelay => {
                    self.fire_streams_delay(&g, &mut records);
                    false
                }
            };
            if fence {
                if self.streams.contains_key(&g) {
                    self.fence_streams_member(&g, &m, &mut records);
                } else {
                    self.fence_member(&g, &m, &mut records);
                }
            }
        }
        records
    }

    fn emit(&mut self, records: &mut Vec<Record>, r: Record) {
        apply(&mut self.groups, &r);
        records.push(r);
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

    fn topic_ids_of<'a>(&self, names: impl Iterator<Item = &'a String>) -> BTreeSet<Uuid> {
        names
            .filter_map(|n| self.topics.get(n).map(|t| t.topic_id))
            .collect()
    }

    /// kwire's metadata hash (D6): FNV-1a 64 over the sorted subscribed topics present in the
    /// metadata (id, name, partition count, sorted racks per partition); 0 for no topics.
    fn metadata_hash<'a>(&self, names: impl Iterator<Item = &'a String>) -> u64 {
        let names: BTreeSet<&String> = names.collect();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut any = false;
        let mut feed = |bytes: &[u8]| {
            for b in (bytes.len() as u64).to_be_bytes().iter().chain(bytes) {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for n in names {
            let Some(t) = self.topics.get(n) else {
                continue;
            };
            any = true;
            feed(&t.topic_id.0);
            feed(t.name.as_bytes());
            feed(&t.partitions.to_be_bytes());
            for (p, racks) in &t.partition_racks {
                feed(&p.to_be_bytes());
                for r in racks {
                    feed(r.as_bytes());
                }
            }
        }
        if any {
            h
        } else {
            0
        }
    }

    fn compile(&mut self, re: &str) -> Result<regex::Regex, String> {
        if let Some(r) = self.regex_cache.get(re) {
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
        self.regex_cache.insert(re.to_string(), compiled.clone());
        Ok(compiled)
    }

    fn resolve(&self, re: &regex::Regex, now_ms: i64) -> ResolvedRegex {
        ResolvedRegex {
            topics: self
                .topics
                .keys()
                .filter(|n| re.is_match(n))
                .cloned()
                .collect(),
            version: self.metadata_version,
            timestamp_ms: now_ms,
        }
    }

    /// Replaces the topic metadata (D4) and returns the records of its effects: every regex of
    /// every group is resolved again (a regex record when its topic set changed), and a group whose
    /// subscribed-topic metadata hash or regex resolutions changed has its epoch bumped (a
    /// group-epoch record with the new hash); its next heartbeat computes a new target.
    pub fn set_topics(
        &mut self,
        topics: impl IntoIterator<Item = TopicMetadata>,
        now_ms: i64,
    ) -> Vec<Record> {
        self.topics = topics.into_iter().map(|t| (t.name.clone(), t)).collect();
        self.metadata_version += 1;
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
                    self.emit(&mut records, Record::regex(&gid, &re, &res));
                }
            }
            let Some(g) = self.groups.get(&gid) else {
                continue;
            };
            let hash = self.metadata_hash(
                g.members
                    .values()
                    .flat_map(|m| Self::member_topic_names(m, &g.regexes, None)),
            );
            if changed || hash != g.metadata_hash {
                let epoch = g.group_epoch + 1;
                self.emit(&mut records, Record::group_epoch(&gid, epoch, hash));
            }
        }
        self.streams_metadata_changed(&mut records);
        records
    }

    /// Removes a member as a -1 leave or a fence does (coordinator-spec.md 1.5): tombstones for
    /// its current assignment, target and metadata; a regex tombstone if it was the regex's last
    /// subscriber; G+1 with the recomputed hash; its timers cancelled.
    fn fence_member(&mut self, gid: &str, mid: &str, records: &mut Vec<Record>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let Some(m) = g.members.get(mid) else { return };
        let regex = m.subscribed_topic_regex.clone();
        let last_of_regex = regex.as_ref().filter(|r| {
            !g.members
                .values()
                .any(|o| o.member_id != mid && o.subscribed_topic_regex.as_ref() == Some(*r))
                && g.regexes.contains_key(*r)
        });
        let last_of_regex = last_of_regex.cloned();
        self.emit(records, Record::current_tombstone(gid, mid));
        self.emit(records, Record::target_tombstone(gid, mid));
        self.emit(records, Record::member_metadata_tombstone(gid, mid));
        if let Some(r) = last_of_regex {
            self.emit(records, Record::regex_tombstone(gid, &r));
        }
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let hash = self.metadata_hash(
            g.members
                .values()
                .flat_map(|m| Self::member_topic_names(m, &g.regexes, None)),
        );
        let epoch = g.group_epoch + 1;
        self.emit(records, Record::group_epoch(gid, epoch, hash));
        let key = (gid.to_string(), mid.to_string());
        self.session_timers.remove(&key);
        self.rebalance_timers.remove(&key);
    }

    /// Handles a ConsumerGroupHeartbeat (coordinator-spec.md 1.1-1.10): validation, join, heartbeat,
    /// leave (-1), static temporary leave (-2) and static rejoin. On error the response carries only
    /// the error code and message (member id null, epoch 0, interval 0, assignment null) and no
    /// record is written. Never panics on request input.
    pub fn consumer_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        let mut records = Vec::new();
        match self.heartbeat_inner(ctx, req, now_ms, &mut records) {
            Ok(response) => Output { response, records },
            Err(e) => {
                debug_assert!(records.is_empty());
                Output {
                    response: ConsumerGroupHeartbeatResponse {
                        error_code: e.code,
                        error_message: e.message.map(Into::into),
                        member_id: None,
                        member_epoch: 0,
                        heartbeat_interval_ms: 0,
                        assignment: None,
                        ..Default::default()
                    },
                    records,
                }
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
            return fail(INVALID_REQUEST, "MemberId can't be empty.");
        }
        if blank(&req.group_id) {
            return fail(INVALID_REQUEST, "GroupId can't be empty.");
        }
        if req.instance_id.as_deref().is_some_and(blank) {
            return fail(INVALID_REQUEST, "InstanceId can't be empty.");
        }
        if req.rack_id.as_deref().is_some_and(blank) {
            return fail(INVALID_REQUEST, "RackId can't be empty.");
        }
        if e == 0 {
            if req.rebalance_timeout_ms == -1 {
                return fail(
                    INVALID_REQUEST,
                    "RebalanceTimeoutMs must be provided in first request.",
                );
            }
            if req.topic_partitions.as_ref().is_none_or(|t| !t.is_empty()) {
                return fail(
                    INVALID_REQUEST,
                    "TopicPartitions must be empty when (re-)joining.",
                );
            }
            if req.subscribed_topic_names.is_none() && req.subscribed_topic_regex.is_none() {
                return fail(
                    INVALID_REQUEST,
                    "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
                );
            }
        } else if e == -2 {
            if req.instance_id.is_none() {
                return fail(INVALID_REQUEST, "InstanceId can't be null.");
            }
        } else if e < -2 {
            return fail(INVALID_REQUEST, "MemberEpoch is invalid.");
        }
        if let Some(a) = &req.server_assignor {
            if !self.config.assignors.iter().any(|x| x.name() == &**a) {
                let names: Vec<&str> = self.config.assignors.iter().map(|x| x.name()).collect();
                return fail(
                    UNSUPPORTED_ASSIGNOR,
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
        records: &mut Vec<Record>,
    ) -> Result<ConsumerGroupHeartbeatResponse, HbError> {
        self.validate(ctx, req)?;
        if req.member_epoch < 0 {
            return self.leave(req, records);
        }
        let plan = self.plan(ctx, req, now_ms)?;
        Ok(self.execute(plan, req, now_ms, records))
    }

    fn leave(
        &mut self,
        req: &ConsumerGroupHeartbeatRequest,
        records: &mut Vec<Record>,
    ) -> Result<ConsumerGroupHeartbeatResponse, HbError> {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        if self.streams.contains_key(&gid) {
            return fail(
                GROUP_ID_NOT_FOUND,
                format!("Group {gid} is not a consumer group."),
            );
        }
        let Some(g) = self.groups.get(&gid) else {
            return fail(
                GROUP_ID_NOT_FOUND,
                format!("Consumer group {gid} not found."),
            );
        };
        let member = match &req.instance_id {
            None => match g.members.get(&mid) {
                Some(m) => m,
                None => {
                    return fail(
                        UNKNOWN_MEMBER_ID,
                        format!("Member {mid} is not a member of group {gid}."),
                    )
                }
            },
            Some(i) => match g.static_member(i) {
                None => {
                    return fail(
                        UNKNOWN_MEMBER_ID,
                        format!("Instance id {} is unknown.", &**i),
                    )
                }
                Some(h) if h.member_id != mid => {
                    return fail(
                        FENCED_INSTANCE_ID,
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
            self.emit(records, Record::current(&gid, &m));
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

    fn check_epoch(
        m: &ConsumerGroupMember,
        received: i32,
        owned: Option<&Assignment>,
    ) -> Result<(), HbError> {
        if received > m.member_epoch {
            return fail(
                FENCED_MEMBER_EPOCH,
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
                    FENCED_MEMBER_EPOCH,
                    format!(
                        "The consumer group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                        m.member_epoch
                    ),
                );
            }
        }
        Ok(())
    }

    /// Phase one of a heartbeat (epoch ≥ 0): every check and every fallible computation (regex
    /// compilation, the assignor), with no state change.
    fn plan(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Result<Plan, HbError> {
        let gid = req.group_id.to_string();
        let epoch = req.member_epoch;
        let generated = if epoch == 0 && blank(&req.member_id) {
            Some(self.ids.generate())
        } else {
            None
        };
        if self.streams.contains_key(&gid) {
            return fail(
                GROUP_ID_NOT_FOUND,
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
                    GROUP_ID_NOT_FOUND,
                    format!("Consumer group {gid} not found."),
                )
            }
        };
        let new_group = g.group_epoch == 0;
        let req_mid = req.member_id.to_string();
        // Max size, before member lookup (1.2).
        if g.members.len() >= self.config.max_size as usize
            && (blank(&req_mid) || !g.members.contains_key(&req_mid))
        {
            return fail(
                GROUP_MAX_SIZE_REACHED,
                format!(
                    "The consumer group has reached its maximum capacity of {} members.",
                    self.config.max_size
                ),
            );
        }
        let member_id = generated.unwrap_or(req_mid);
        let owned = Self::owned_of(req);
        // Resolve the member.
        let mut replaced: Option<ConsumerGroupMember> = None;
        let base: ConsumerGroupMember = match &req.instance_id {
            None => match g.members.get(&member_id) {
                Some(m) => {
                    if epoch != 0 {
                        Self::check_epoch(m, epoch, owned.as_ref())?;
                    }
                    m.clone()
                }
                None if epoch == 0 => ConsumerGroupMember::new(&member_id),
                None => {
                    return fail(
                        UNKNOWN_MEMBER_ID,
                        format!("Member {member_id} is not a member of group {gid}."),
                    )
                }
            },
            Some(i) => {
                let holder = g.static_member(i);
                if epoch == 0 {
                    match holder {
                        None => g.members.get(&member_id).cloned().unwrap_or_else(|| ConsumerGroupMember::new(&member_id)),
                        Some(h) if h.member_epoch != -2 => {
                            return fail(
                                UNRELEASED_INSTANCE_ID,
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
                        None => return fail(UNKNOWN_MEMBER_ID, format!("Instance id {} is unknown.", &**i)),
                        Some(h) if h.member_id != member_id => {
                            return fail(
                                FENCED_INSTANCE_ID,
                                format!(
                                    "Static member {member_id} with instance id {} was fenced by member {}.",
                                    &**i, h.member_id
                                ),
                            )
                        }
                        Some(h) => {
                            Self::check_epoch(h, epoch, owned.as_ref())?;
                            h.clone()
                        }
                    }
                }
            }
        };
        if base.state == MemberState::Unknown && owned.as_ref().is_none_or(|o| !o.is_empty()) {
            return fail(
                FENCED_MEMBER_EPOCH,
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
        let subscription_changed = u.subscribed_topic_names != base.subscribed_topic_names
            || u.subscribed_topic_regex != base.subscribed_topic_regex;
        // Regex bookkeeping (1.8, D4): a regex new to the group is compiled and resolved now.
        let mut new_regex = None;
        if let Some(re) = &u.subscribed_topic_regex {
            if !g.regexes.contains_key(re) {
                let re = re.clone();
                // `g` borrows self.groups; compile needs &mut self (cache): clone what we need.
                let compiled = match self.compile(&re) {
                    Ok(c) => c,
                    Err(reason) => {
                        return fail(
                            INVALID_REGULAR_EXPRESSION,
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
            let hash = self.metadata_hash(
                prospective().flat_map(|m| Self::member_topic_names(m, &regexes_after, None)),
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
                let ids = self.topic_ids_of(Self::member_topic_names(m, &regexes_after, None));
                for id in &ids {
                    if let Some(t) = self.topics.values().find(|t| t.topic_id == *id) {
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
                code: UNKNOWN_SERVER_ERROR,
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
        for a in &self.config.assignors {
            let n = votes.get(a.name()).copied().unwrap_or(0);
            if n > 0 && best.is_none_or(|(_, b)| n > b) {
                best = Some((a, n));
            }
        }
        best.map(|b| b.0.clone())
            .unwrap_or_else(|| self.config.assignors[0].clone())
    }

    /// The assignor describe reports: the preferred one among the members, else the default.
    fn preferred_assignor_name(&self, g: &ConsumerGroup) -> String {
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

    /// Phase two of a heartbeat: emit (and apply) the records, reconcile, arm timers, answer.
    fn execute(
        &mut self,
        plan: Plan,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<Record>,
    ) -> ConsumerGroupHeartbeatResponse {
        let gid = plan.group_id.clone();
        let mid = plan.member_id.clone();
        let _ = plan.new_group;
        // Static replacement (1.5).
        if let Some(old) = &plan.replaced {
            let old_target = self
                .groups
                .get(&gid)
                .and_then(|g| g.targets.get(&old.member_id))
                .cloned()
                .unwrap_or_default();
            self.emit(records, Record::current_tombstone(&gid, &old.member_id));
            self.emit(records, Record::target_tombstone(&gid, &old.member_id));
            self.emit(
                records,
                Record::member_metadata_tombstone(&gid, &old.member_id),
            );
            let mut copy = old.clone();
            copy.member_id = mid.clone();
            copy.member_epoch = 0;
            copy.previous_member_epoch = 0;
            copy.pending_revocation = Assignment::new();
            self.emit(records, Record::member_metadata(&gid, &copy));
            self.emit(records, Record::target(&gid, &mid, &old_target));
            self.emit(records, Record::current(&gid, &copy));
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
            self.emit(records, Record::member_metadata(&gid, &plan.updated));
        }
        if let Some((re, res)) = &plan.new_regex {
            self.emit(records, Record::regex(&gid, re, res));
        }
        if let Some(d) = &plan.dropped_regex {
            self.emit(records, Record::regex_tombstone(&gid, d));
        }
        if let Some((epoch, hash)) = plan.bump {
            self.emit(records, Record::group_epoch(&gid, epoch, hash));
        }
        if let Some((epoch, targets)) = &plan.targets {
            for (id, t) in targets {
                let old = self.groups.get(&gid).and_then(|g| g.targets.get(id));
                if old != Some(t) {
                    self.emit(records, Record::target(&gid, id, t));
                }
            }
            self.emit(records, Record::target_epoch(&gid, *epoch));
        }
        // Reconcile (1.6).
        let (member, new_member) = {
            let Some(g) = self.groups.get(&gid) else {
                return ConsumerGroupHeartbeatResponse {
                    error_code: UNKNOWN_SERVER_ERROR,
                    ..Default::default()
                };
            };
            let Some(member) = g.members.get(&mid).cloned() else {
                return ConsumerGroupHeartbeatResponse {
                    error_code: UNKNOWN_SERVER_ERROR,
                    ..Default::default()
                };
            };
            let empty = Assignment::new();
            let subscribed = self.topic_ids_of(Self::member_topic_names(&member, &g.regexes, None));
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
        let key = (gid.clone(), mid.clone());
        if !member.same_assignment(&new_member) {
            self.emit(records, Record::current(&gid, &new_member));
            if new_member.state == MemberState::UnrevokedPartitions {
                let deadline = now_ms + i64::from(new_member.rebalance_timeout_ms.max(0));
                self.rebalance_timers
                    .insert(key.clone(), (deadline, new_member.member_epoch));
            } else {
                self.rebalance_timers.remove(&key);
            }
        }
        let session = self.session_timeout(&gid);
        self.session_timers.insert(key, now_ms + i64::from(session));
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
            error_code: NONE,
            error_message: None,
            member_id: Some(mid.into()),
            member_epoch: new_member.member_epoch,
            heartbeat_interval_ms: self.heartbeat_interval(&gid),
            assignment,
            ..Default::default()
        }
    }

    /// Handles a ConsumerGroupDescribe (coordinator-spec.md 1.11): one entry per requested id, in
    /// order. An empty (or blank) id gives INVALID_GROUP_ID with GroupId ""; a missing group gives
    /// GROUP_ID_NOT_FOUND `Group G not found.` Member entries carry MemberType 1 (consumer) for
    /// v1; AuthorizedOperations is left at INT32_MIN (the caller, as KafkaApis, fills it in when
    /// asked). State is read as it stands after the last call (a sans-IO coordinator commits
    /// every write at once).
    pub fn consumer_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &ConsumerGroupDescribeRequest,
    ) -> ConsumerGroupDescribeResponse {
        let groups = req
            .group_ids
            .iter()
            .map(|id| {
                if blank(id) {
                    return DescribedGroup {
                        group_id: "".into(),
                        error_code: INVALID_GROUP_ID,
                        authorized_operations: i32::MIN,
                        ..Default::default()
                    };
                }
                let Some(g) = self.groups.get(&**id) else {
                    let message = if self.streams.contains_key(&**id) {
                        format!("Group {} is not a consumer group.", &**id)
                    } else {
                        format!("Group {} not found.", &**id)
                    };
                    return DescribedGroup {
                        group_id: id.clone(),
                        error_code: GROUP_ID_NOT_FOUND,
                        error_message: Some(message.into()),
                        authorized_operations: i32::MIN,
                        ..Default::default()
                    };
                };
                let by_id: BTreeMap<Uuid, &TopicMetadata> =
                    self.topics.values().map(|t| (t.topic_id, t)).collect();
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
                    error_code: NONE,
                    error_message: None,
                    group_id: id.clone(),
                    group_state: g.state.as_str().into(),
                    group_epoch: g.group_epoch,
                    assignment_epoch: g.assignment_epoch,
                    assignor_name: self.preferred_assignor_name(g).into(),
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
                            subscribed_topic_regex: m
                                .subscribed_topic_regex
                                .clone()
                                .map(Into::into),
                            assignment: conv(&m.assigned),
                            target_assignment: conv(g.targets.get(&m.member_id).unwrap_or(&empty)),
                            member_type: 1,
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
}

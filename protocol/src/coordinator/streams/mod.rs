//! KIP-1071 streams groups: the part of [`GroupCoordinator`] that answers `StreamsGroupHeartbeat`
//! (key 88, v0) and `StreamsGroupDescribe` (key 89, v0), sans-IO like the consumer-group part.
//!
//! Behaviour: coordinator-spec.md sections 0, 2, 3 and 5 (Apache Kafka 4.2) with kwire's
//! departures D1 (topology updates as seed 001 designs them: a join with topology epoch
//! EG + 1 rolls the group onto the new topology), D2 (task offsets accepted and shown in
//! describe), D3 (warm-up tasks and static members refused as in 4.2), D6 (records and replay)
//! and D7. Streams and consumer groups share one group-id namespace.
//!
//! A heartbeat runs on a copy of the group and is committed only when it succeeds, so a failed
//! heartbeat writes nothing. The topics a topology needs but metadata lacks come back to the
//! caller as [`CreatableTopic`]s in [`StreamsHeartbeatOutput::topics_to_create`]; the caller
//! creates them and reports the new metadata through [`GroupCoordinator::set_topics`].

pub mod assignor;
pub mod group;
mod reconcile;
pub mod records;
pub mod tasks;
pub mod topology;

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use group::{
    apply, replay, Endpoint, StreamsGroup, StreamsGroupMember, StreamsGroupState, StreamsGroups,
    StreamsMemberState, TaskOwners,
};
pub use records::StreamsRecord;
pub use topology::{ConfiguredTopology, CreatableTopic, InvalidTopology, StreamsTopology};

use super::error_codes::*;
use super::{blank, fail, ConfigError, GroupCoordinator, HbError, Record, RequestContext};
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response::{
    self as describe, StreamsGroupDescribeResponse,
};
use crate::generated::streams_group_heartbeat_request::{
    self as req_t, StreamsGroupHeartbeatRequest,
};
use crate::generated::streams_group_heartbeat_response::{
    self as hb, StreamsGroupHeartbeatResponse,
};
use assignor::{
    AssignmentMemberSpec, GroupSpec, StickyTaskAssignor, SubtopologySpec, TaskAssignor,
};
use reconcile::Reconcile;
use tasks::{TaskSet, TasksTuple};
use topology::{CopartitionGroup, Subtopology, TopicInfo};

/// `Status.StatusCode` values of StreamsGroupHeartbeatResponse (coordinator-spec.md 2.10).
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
}

/// The assignment-config key of the standby count (Kafka's `num.standby.replicas`).
pub const NUM_STANDBY_REPLICAS: &str = "num.standby.replicas";

/// Broker-level streams-group configuration (coordinator-spec.md 2.9), with Kafka's defaults.
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
    /// `AcceptableRecoveryLag` sent in every response (D2: 10000).
    pub acceptable_recovery_lag: i32,
    /// `TaskOffsetIntervalMs` sent in every response (D2: 60000).
    pub task_offset_interval_ms: i32,
    /// The task assignor (Kafka has only `sticky`; tests may install their own).
    pub assignor: Arc<dyn TaskAssignor>,
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
            assignor: Arc::new(StickyTaskAssignor),
        }
    }
}

impl StreamsGroupConfig {
    /// Checks Kafka's bounds: interval positive and below the session timeout, max size at least
    /// 1, standby counts within [0, max], delay not negative.
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
}

/// A task offset a member reported (D2): (subtopology, partition) → offset.
pub type TaskOffsets = BTreeMap<(String, i32), i64>;

/// Soft state of a streams group, never in records (D6): rebuilt or reset on load.
#[derive(Debug, Clone, Default)]
pub(crate) struct Volatile {
    /// The interactive-query endpoint-information epoch (2.7), starting at 0.
    pub endpoint_information_epoch: i32,
    /// The member that first asked for an application shutdown, while the group is not empty.
    pub shutdown_requester: Option<String>,
    /// Latest TaskOffsets and TaskEndOffsets per member (D2).
    pub task_offsets: BTreeMap<String, (TaskOffsets, TaskOffsets)>,
    /// The configured topology for the current topology and metadata.
    pub configured: Option<Result<ConfiguredTopology, InvalidTopology>>,
    /// Deadline of the initial rebalance delay, if armed.
    pub delay_deadline: Option<i64>,
}

/// A heartbeat's answer: the response, the records describing the state change (empty on
/// error), and the internal topics the caller must create (MISSING_INTERNAL_TOPICS).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsHeartbeatOutput {
    /// The response to send.
    pub response: StreamsGroupHeartbeatResponse,
    /// Records to persist, in order; already applied.
    pub records: Vec<Record>,
    /// Internal topics to create (name, partitions, replication factor (-1 = broker default),
    /// configs), sorted by name.
    pub topics_to_create: Vec<CreatableTopic>,
}

fn topology_from_request(t: &req_t::Topology) -> StreamsTopology {
    records::topology_from!(t)
}

fn tasks_of(list: &[req_t::TaskIds]) -> TaskSet {
    let mut s = TaskSet::new();
    for t in list {
        if !t.partitions.is_empty() {
            s.entry(t.subtopology_id.to_string())
                .or_default()
                .extend(t.partitions.iter());
        }
    }
    s
}

/// The owned tasks of a request: known only when all three lists are non-null (2.5).
fn owned_of(req: &StreamsGroupHeartbeatRequest) -> Option<TasksTuple> {
    match (&req.active_tasks, &req.standby_tasks, &req.warmup_tasks) {
        (Some(a), Some(s), Some(w)) => Some(TasksTuple {
            active: tasks_of(a),
            standby: tasks_of(s),
            warmup: tasks_of(w),
        }),
        _ => None,
    }
}

fn task_ids(s: &TaskSet) -> Vec<hb::TaskIds> {
    s.iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|(id, ps)| hb::TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

fn offsets_of(list: &Option<Vec<req_t::TaskOffset>>) -> Result<Option<TaskOffsets>, HbError> {
    let Some(list) = list else { return Ok(None) };
    let mut out = TaskOffsets::new();
    for o in list {
        if out
            .insert((o.subtopology_id.to_string(), o.partition), o.offset)
            .is_some()
        {
            return fail(
                INVALID_REQUEST,
                format!(
                    "Duplicate task offset for subtopology {} partition {}.",
                    &*o.subtopology_id, o.partition
                ),
            );
        }
    }
    Ok(Some(out))
}

fn status(code: i8, detail: String) -> hb::Status {
    hb::Status {
        status_code: code,
        status_detail: detail.into(),
        ..Default::default()
    }
}

impl GroupCoordinator {
    /// Installs a streams-group configuration (the default is [`StreamsGroupConfig::default`]).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`StreamsGroupConfig::validate`]).
    /// Session deadlines already armed move with the new timeout (deadline = last heartbeat +
    /// timeout), so a coordinator built by [`GroupCoordinator::load`] can take its streams
    /// configuration afterwards.
    pub fn set_streams_config(&mut self, config: StreamsGroupConfig) -> Result<(), ConfigError> {
        config.validate()?;
        let before: BTreeMap<String, i32> = self
            .streams
            .keys()
            .map(|g| (g.clone(), self.streams_session_timeout(g)))
            .collect();
        self.streams_config = config;
        self.shift_session_deadlines(before);
        Ok(())
    }

    /// Moves the armed session deadlines of streams members by the change of their group's
    /// session timeout (`before`: group → timeout before the change).
    fn shift_session_deadlines(&mut self, before: BTreeMap<String, i32>) {
        for (gid, old) in before {
            let delta = i64::from(self.streams_session_timeout(&gid)) - i64::from(old);
            if delta == 0 {
                continue;
            }
            let Some(g) = self.streams.get(&gid) else {
                continue;
            };
            for mid in g.members.keys() {
                if let Some(d) = self.session_timers.get_mut(&(gid.clone(), mid.clone())) {
                    *d += delta;
                }
            }
        }
    }

    /// The streams-group configuration.
    pub fn streams_config(&self) -> &StreamsGroupConfig {
        &self.streams_config
    }

    /// Sets a streams group's overrides.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is out of range (interval not below the session timeout,
    /// standby count above `group.streams.max.standby.replicas`, negative delay).
    pub fn set_streams_group_config(
        &mut self,
        group_id: &str,
        o: StreamsGroupOverrides,
    ) -> Result<(), ConfigError> {
        let mut c = self.streams_config.clone();
        c.session_timeout_ms = o.session_timeout_ms.unwrap_or(c.session_timeout_ms);
        c.heartbeat_interval_ms = o.heartbeat_interval_ms.unwrap_or(c.heartbeat_interval_ms);
        c.num_standby_replicas = o.num_standby_replicas.unwrap_or(c.num_standby_replicas);
        c.initial_rebalance_delay_ms = o
            .initial_rebalance_delay_ms
            .unwrap_or(c.initial_rebalance_delay_ms);
        c.validate()?;
        let before =
            BTreeMap::from([(group_id.to_string(), self.streams_session_timeout(group_id))]);
        self.streams_overrides.insert(group_id.to_string(), o);
        self.shift_session_deadlines(before);
        Ok(())
    }

    /// Every streams group (persisted and derived state).
    pub fn streams_groups(&self) -> &StreamsGroups {
        &self.streams
    }

    /// One streams group.
    pub fn streams_group(&self, group_id: &str) -> Option<&StreamsGroup> {
        self.streams.get(group_id)
    }

    /// The configured topology cached for a streams group (soft state), if computed.
    pub fn streams_configured_topology(&self, group_id: &str) -> Option<&ConfiguredTopology> {
        self.streams_volatile
            .get(group_id)
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
    }

    /// The group's endpoint-information epoch (soft state, 2.7).
    pub fn streams_endpoint_information_epoch(&self, group_id: &str) -> i32 {
        self.streams_volatile
            .get(group_id)
            .map_or(0, |v| v.endpoint_information_epoch)
    }

    fn streams_override(&self, gid: &str) -> StreamsGroupOverrides {
        self.streams_overrides.get(gid).copied().unwrap_or_default()
    }

    pub(crate) fn streams_session_timeout(&self, gid: &str) -> i32 {
        self.streams_override(gid)
            .session_timeout_ms
            .unwrap_or(self.streams_config.session_timeout_ms)
    }

    fn streams_heartbeat_interval(&self, gid: &str) -> i32 {
        self.streams_override(gid)
            .heartbeat_interval_ms
            .unwrap_or(self.streams_config.heartbeat_interval_ms)
    }

    fn streams_delay(&self, gid: &str) -> i32 {
        self.streams_override(gid)
            .initial_rebalance_delay_ms
            .unwrap_or(self.streams_config.initial_rebalance_delay_ms)
    }

    fn assignment_configs(&self, gid: &str) -> BTreeMap<String, String> {
        let n = self
            .streams_override(gid)
            .num_standby_replicas
            .unwrap_or(self.streams_config.num_standby_replicas)
            .min(self.streams_config.max_standby_replicas);
        BTreeMap::from([(NUM_STANDBY_REPLICAS.to_string(), n.to_string())])
    }

    /// The metadata hash and configured topology of `t` against the current topic metadata.
    fn configure_topology(
        &self,
        t: &StreamsTopology,
    ) -> (u64, Result<ConfiguredTopology, InvalidTopology>) {
        let required = t.required_topics();
        let hash = self.metadata_hash(required.iter());
        let configured = topology::configure(t, |name| self.topics.get(name).map(|m| m.partitions));
        (hash, configured)
    }

    /// Re-validates every streams group's topology against new metadata (called by
    /// `set_topics`): a changed metadata hash or validated topology epoch bumps the group epoch.
    pub(crate) fn streams_metadata_changed(&mut self, records: &mut Vec<Record>) {
        let ids: Vec<String> = self.streams.keys().cloned().collect();
        for gid in ids {
            let Some(g) = self.streams.get(&gid) else {
                continue;
            };
            let Some(t) = g.topology.clone() else {
                continue;
            };
            let (hash, configured) = self.configure_topology(&t);
            let validated = match &configured {
                Ok(c) if c.is_ready() => t.epoch,
                _ => -1,
            };
            let (epoch, old_hash, old_validated, configs) = (
                g.group_epoch,
                g.metadata_hash,
                g.validated_topology_epoch,
                g.last_assignment_configs.clone(),
            );
            self.streams_volatile
                .entry(gid.clone())
                .or_default()
                .configured = Some(configured);
            if hash != old_hash || validated != old_validated {
                let r = StreamsRecord::group_metadata(&gid, epoch + 1, hash, validated, &configs);
                self.emit_streams(records, r);
            }
        }
    }

    pub(crate) fn emit_streams(&mut self, records: &mut Vec<Record>, r: StreamsRecord) {
        apply(&mut self.streams, &r);
        if self
            .streams
            .get(r.group_id())
            .is_some_and(|g| g.members.is_empty())
        {
            if let Some(v) = self.streams_volatile.get_mut(r.group_id()) {
                v.shutdown_requester = None;
            }
        }
        records.push(Record::Streams(r));
    }

    /// Removes a streams member as a -1 leave or a fence does (2.4): tombstones for its current
    /// assignment, target and metadata, then G+1 with unchanged hash, validated epoch and
    /// configs; its timers cancelled and its task offsets forgotten.
    pub(crate) fn fence_streams_member(&mut self, gid: &str, mid: &str, records: &mut Vec<Record>) {
        let Some(g) = self.streams.get(gid) else {
            return;
        };
        if !g.members.contains_key(mid) {
            return;
        }
        let (epoch, hash, validated, configs) = (
            g.group_epoch,
            g.metadata_hash,
            g.validated_topology_epoch,
            g.last_assignment_configs.clone(),
        );
        self.emit_streams(records, StreamsRecord::current_tombstone(gid, mid));
        self.emit_streams(records, StreamsRecord::target_tombstone(gid, mid));
        self.emit_streams(records, StreamsRecord::member_metadata_tombstone(gid, mid));
        self.emit_streams(
            records,
            StreamsRecord::group_metadata(gid, epoch + 1, hash, validated, &configs),
        );
        let key = (gid.to_string(), mid.to_string());
        self.session_timers.remove(&key);
        self.rebalance_timers.remove(&key);
        if let Some(v) = self.streams_volatile.get_mut(gid) {
            v.task_offsets.remove(mid);
        }
    }

    /// Computes the target of every member at the group's epoch (2.4 step 7) on `g`, appending
    /// the records (changed or new member targets, then the target epoch).
    fn compute_targets(
        &self,
        g: &mut StreamsGroups,
        gid: &str,
        configured: Option<&ConfiguredTopology>,
        out: &mut Vec<StreamsRecord>,
    ) -> Result<(), HbError> {
        let Some(group) = g.get(gid) else {
            return Ok(());
        };
        let epoch = group.group_epoch;
        let mut new_targets: BTreeMap<String, TasksTuple> = BTreeMap::new();
        match configured
            .filter(|c| c.is_ready())
            .and_then(|c| c.subtopologies.as_ref())
        {
            Some(subs) => {
                let standby = group
                    .last_assignment_configs
                    .get(NUM_STANDBY_REPLICAS)
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let spec = GroupSpec {
                    members: group
                        .members
                        .values()
                        .map(|m| {
                            let prev = group.targets.get(&m.member_id).cloned().unwrap_or_default();
                            (
                                m.member_id.clone(),
                                AssignmentMemberSpec {
                                    instance_id: m.instance_id.clone(),
                                    rack_id: m.rack_id.clone(),
                                    process_id: m.process_id.clone(),
                                    client_tags: m.client_tags.clone(),
                                    active_tasks: prev.active,
                                    standby_tasks: prev.standby,
                                    warmup_tasks: prev.warmup,
                                },
                            )
                        })
                        .collect(),
                    subtopologies: subs
                        .iter()
                        .map(|(id, s)| {
                            (
                                id.clone(),
                                SubtopologySpec {
                                    num_tasks: s.num_tasks,
                                    stateful: s.is_stateful(),
                                },
                            )
                        })
                        .collect(),
                    num_standby_replicas: standby,
                };
                let result = self
                    .streams_config
                    .assignor
                    .assign(&spec)
                    .map_err(|_| HbError {
                        code: UNKNOWN_SERVER_ERROR,
                        message: None,
                    })?;
                for m in group.members.keys() {
                    let mut t = result.get(m).cloned().unwrap_or_default();
                    t.normalize();
                    new_targets.insert(m.clone(), t);
                }
            }
            None => {
                for m in group.members.keys() {
                    new_targets.insert(m.clone(), TasksTuple::default());
                }
            }
        }
        let mut recs = Vec::new();
        for (m, t) in &new_targets {
            if group.targets.get(m) != Some(t) {
                recs.push(StreamsRecord::target(gid, m, t));
            }
        }
        recs.push(StreamsRecord::target_epoch(gid, epoch));
        for r in recs {
            apply(g, &r);
            out.push(r);
        }
        Ok(())
    }

    /// Handles a StreamsGroupHeartbeat (coordinator-spec.md 2.2-2.7 with D1-D3): validation,
    /// join (with topology initialisation, D1 topology updates and topic configuration),
    /// heartbeat, leave (-1) and shutdown requests. On error the response carries only the error
    /// code and message (member id null... as Kafka: empty, epoch 0, interval 0, task lists
    /// null) and nothing is written. Never panics on request input.
    pub fn streams_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeatOutput {
        let mut records = Vec::new();
        let mut create = Vec::new();
        match self.streams_inner(ctx, req, now_ms, &mut records, &mut create) {
            Ok(response) => StreamsHeartbeatOutput {
                response,
                records,
                topics_to_create: create,
            },
            Err(e) => StreamsHeartbeatOutput {
                response: StreamsGroupHeartbeatResponse {
                    error_code: e.code,
                    error_message: e.message.map(Into::into),
                    ..Default::default()
                },
                records: Vec::new(),
                topics_to_create: Vec::new(),
            },
        }
    }

    /// Validates a heartbeat (2.2 with D2/D3) and returns its parsed TaskOffsets and
    /// TaskEndOffsets (`None` = unchanged).
    fn validate_streams(
        req: &StreamsGroupHeartbeatRequest,
    ) -> Result<(Option<TaskOffsets>, Option<TaskOffsets>), HbError> {
        // D3 and 2.2 step 1: features Kafka 4.2 does not support.
        if req.instance_id.is_some() {
            return fail(INVALID_REQUEST, "Static membership is not yet supported.");
        }
        if req.warmup_tasks.as_ref().is_some_and(|w| !w.is_empty()) {
            return fail(INVALID_REQUEST, "WarmupTasks are not supported yet.");
        }
        if let Some(t) = &req.topology {
            if t.subtopologies
                .iter()
                .any(|s| !s.source_topic_regex.is_empty())
            {
                return fail(
                    INVALID_REQUEST,
                    "Regular expressions for source topics are not supported yet.",
                );
            }
        }
        if blank(&req.member_id) {
            return fail(INVALID_REQUEST, "MemberId can't be empty.");
        }
        if blank(&req.group_id) {
            return fail(INVALID_REQUEST, "GroupId can't be empty.");
        }
        if req.rack_id.as_deref().is_some_and(blank) {
            return fail(INVALID_REQUEST, "RackId can't be empty.");
        }
        let e = req.member_epoch;
        if e == 0 {
            if req.rebalance_timeout_ms == -1 {
                return fail(
                    INVALID_REQUEST,
                    "RebalanceTimeoutMs must be provided in first request.",
                );
            }
            for (list, name) in [
                (&req.active_tasks, "ActiveTasks"),
                (&req.standby_tasks, "StandbyTasks"),
                (&req.warmup_tasks, "WarmupTasks"),
            ] {
                if list.as_ref().is_none_or(|l| !l.is_empty()) {
                    return fail(
                        INVALID_REQUEST,
                        format!("{name} must be empty when (re-)joining."),
                    );
                }
            }
            let Some(t) = &req.topology else {
                return fail(
                    INVALID_REQUEST,
                    "Topology must be non-null when (re-)joining.",
                );
            };
            for s in &t.subtopologies {
                for c in &s.state_changelog_topics {
                    if c.partitions != 0 {
                        return fail(
                            STREAMS_INVALID_TOPOLOGY,
                            format!(
                                "Changelog topic {} must have an undefined partition count, but it is set to {}.",
                                &*c.name, c.partitions
                            ),
                        );
                    }
                }
            }
        } else if e == -2 {
            return fail(INVALID_REQUEST, "InstanceId can't be null.");
        } else if e < -2 {
            return fail(
                INVALID_REQUEST,
                format!("MemberEpoch is {e}, but must be greater than or equal to -2."),
            );
        }
        let set = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
            .iter()
            .filter(|l| l.is_some())
            .count();
        if set != 0 && set != 3 {
            return fail(
                INVALID_REQUEST,
                "If one task-type is non-null, all must be non-null.",
            );
        }
        if e != 0 && req.topology.is_some() {
            return fail(
                INVALID_REQUEST,
                "Topology can only be provided when (re-)joining.",
            );
        }
        Ok((
            offsets_of(&req.task_offsets)?,
            offsets_of(&req.task_end_offsets)?,
        ))
    }

    fn streams_leave(
        &mut self,
        req: &StreamsGroupHeartbeatRequest,
        records: &mut Vec<Record>,
    ) -> Result<StreamsGroupHeartbeatResponse, HbError> {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let Some(g) = self.streams.get(&gid) else {
            return self.streams_missing(&gid);
        };
        if !g.members.contains_key(&mid) {
            return fail(
                UNKNOWN_MEMBER_ID,
                format!("Member {mid} is not a member of group {gid}."),
            );
        }
        if req.shutdown_application {
            let v = self.streams_volatile.entry(gid.clone()).or_default();
            v.shutdown_requester.get_or_insert(mid.clone());
        }
        self.fence_streams_member(&gid, &mid, records);
        Ok(StreamsGroupHeartbeatResponse {
            member_id: mid.to_string().into(),
            member_epoch: -1,
            status: Some(Vec::new()),
            ..Default::default()
        })
    }

    fn streams_missing<T>(&self, gid: &str) -> Result<T, HbError> {
        if self.groups.contains_key(gid) {
            fail(
                GROUP_ID_NOT_FOUND,
                format!("Group {gid} is not a streams group."),
            )
        } else {
            fail(
                GROUP_ID_NOT_FOUND,
                format!("Streams group {gid} not found."),
            )
        }
    }

    fn check_streams_epoch(
        m: &StreamsGroupMember,
        received: i32,
        owned: Option<&TasksTuple>,
    ) -> Result<(), HbError> {
        if received > m.member_epoch {
            return fail(
                FENCED_MEMBER_EPOCH,
                format!(
                    "The streams group member has a greater member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its tasks and rejoin.",
                    m.member_epoch
                ),
            );
        }
        if received < m.member_epoch {
            let subset = |o: &TaskSet, a: &TaskSet| {
                o.iter()
                    .all(|(s, ps)| a.get(s).is_some_and(|x| ps.is_subset(x)))
            };
            let tolerated = received == m.previous_member_epoch
                && owned.is_some_and(|o| {
                    subset(&o.active, &m.assigned.active)
                        && subset(&o.standby, &m.assigned.standby)
                        && subset(&o.warmup, &m.assigned.warmup)
                });
            if !tolerated {
                return fail(
                    FENCED_MEMBER_EPOCH,
                    format!(
                        "The streams group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its tasks and rejoin.",
                        m.member_epoch
                    ),
                );
            }
        }
        Ok(())
    }

    /// D1: the topology a join brings, against the group's. Returns whether the group adopts it.
    fn check_topology_epoch(
        group: Option<&StreamsTopology>,
        t: &StreamsTopology,
    ) -> Result<bool, HbError> {
        let Some(gt) = group else { return Ok(true) };
        let (er, eg) = (t.epoch, gt.epoch);
        if er == eg {
            if !gt.same_structure(t) {
                return fail(
                    STREAMS_INVALID_TOPOLOGY_EPOCH,
                    format!("Topology with epoch {er} differs from the group's topology with the same epoch."),
                );
            }
            Ok(false)
        } else if er < eg {
            fail(
                STREAMS_TOPOLOGY_FENCED,
                format!("Topology epoch {er} is older than the group's topology epoch {eg}."),
            )
        } else if i64::from(er) > i64::from(eg) + 1 {
            fail(
                STREAMS_INVALID_TOPOLOGY_EPOCH,
                format!("Topology epoch {er} is more than one ahead of the group's topology epoch {eg}."),
            )
        } else {
            Ok(true)
        }
    }

    /// Owned tasks must exist in a ready topology (2.3), except for stale members, whose tasks
    /// of removed subtopologies are simply revoked (D1).
    fn check_owned(owned: &TasksTuple, c: &ConfiguredTopology) -> Result<(), HbError> {
        let Some(subs) = c.subtopologies.as_ref().filter(|_| c.is_ready()) else {
            return Ok(());
        };
        for (_, s, p) in owned.iter() {
            let Some(sub) = subs.get(s) else {
                return fail(
                    INVALID_REQUEST,
                    format!("Subtopology {s} does not exist in the topology."),
                );
            };
            if p < 0 || p >= sub.num_tasks {
                return fail(
                    INVALID_REQUEST,
                    format!(
                        "Task {p} for subtopology {s} is invalid. Number of tasks for this subtopology: {}",
                        sub.num_tasks
                    ),
                );
            }
        }
        Ok(())
    }

    fn streams_inner(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<Record>,
        create: &mut Vec<CreatableTopic>,
    ) -> Result<StreamsGroupHeartbeatResponse, HbError> {
        let (offsets, end_offsets) = Self::validate_streams(req)?;
        if req.member_epoch == -1 {
            return self.streams_leave(req, records);
        }
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let epoch = req.member_epoch;
        if self.groups.contains_key(&gid) || (epoch != 0 && !self.streams.contains_key(&gid)) {
            return self.streams_missing(&gid);
        }
        let group_existed = self.streams.contains_key(&gid);
        let mut work = StreamsGroups::new();
        work.insert(
            gid.clone(),
            self.streams
                .get(&gid)
                .cloned()
                .unwrap_or_else(|| StreamsGroup::new(&gid)),
        );
        let mut vol = self.streams_volatile.get(&gid).cloned().unwrap_or_default();
        let mut out: Vec<StreamsRecord> = Vec::new();
        let g = &work[&gid];
        if epoch == 0 && g.members.len() >= self.streams_config.max_size as usize {
            return fail(
                GROUP_MAX_SIZE_REACHED,
                format!(
                    "The streams group has reached its maximum capacity of {} members.",
                    self.streams_config.max_size
                ),
            );
        }
        let owned = owned_of(req);
        let base = match g.members.get(&mid) {
            Some(m) => {
                if epoch != 0 {
                    Self::check_streams_epoch(m, epoch, owned.as_ref())?;
                }
                m.clone()
            }
            None if epoch == 0 => StreamsGroupMember::new(&mid),
            None => {
                return fail(
                    UNKNOWN_MEMBER_ID,
                    format!("Member {mid} is not a member of group {gid}."),
                )
            }
        };
        let is_new_member = !g.members.contains_key(&mid);
        if base.state == StreamsMemberState::Unknown && owned.as_ref().is_none_or(|o| !o.is_empty())
        {
            return fail(
                FENCED_MEMBER_EPOCH,
                "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.",
            );
        }
        let was_empty = g.members.is_empty();
        // 2.4 step 1: the updated member; null means unchanged.
        let mut u = base.clone();
        if let Some(r) = &req.rack_id {
            u.rack_id = Some(r.to_string());
        }
        if req.rebalance_timeout_ms != -1 {
            u.rebalance_timeout_ms = req.rebalance_timeout_ms;
        }
        if let Some(p) = &req.process_id {
            u.process_id = p.to_string();
        }
        if let Some(tags) = &req.client_tags {
            u.client_tags = tags
                .iter()
                .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                .collect();
        }
        if let Some(e) = &req.user_endpoint {
            u.user_endpoint = Some(Endpoint {
                host: e.host.to_string(),
                port: e.port,
            });
        }
        u.client_id = ctx.client_id.clone();
        u.client_host = ctx.client_host.clone();
        // 2.4 step 2 with D1: the topology.
        let mut adopted = None;
        if let Some(t) = &req.topology {
            let t = topology_from_request(t);
            u.topology_epoch = t.epoch;
            if Self::check_topology_epoch(g.topology.as_ref(), &t)? {
                adopted = Some(t);
            }
        }
        let mut bump = false;
        if is_new_member || !u.same_metadata(&base) {
            let r = StreamsRecord::member_metadata(&gid, &u);
            apply(&mut work, &r);
            out.push(r);
            bump = true;
        }
        if let Some(t) = &adopted {
            let r = StreamsRecord::topology(&gid, t);
            apply(&mut work, &r);
            out.push(r);
            bump = true;
            vol.configured = None;
        }
        // 2.4 step 3: configure topics when the topology is new or nothing is cached.
        let g = &work[&gid];
        let mut hash = g.metadata_hash;
        let mut validated = g.validated_topology_epoch;
        if let Some(t) = &g.topology {
            if vol.configured.is_none() {
                let (h, c) = self.configure_topology(t);
                hash = h;
                validated = match &c {
                    Ok(c) if c.is_ready() => t.epoch,
                    _ => -1,
                };
                vol.configured = Some(c);
            }
        }
        if let Some(Err(e)) = &vol.configured {
            return fail(STREAMS_INVALID_TOPOLOGY, e.0.clone());
        }
        if hash != g.metadata_hash || validated != g.validated_topology_epoch {
            bump = true;
        }
        // 2.4 step 4: assignment configs.
        let configs = self.assignment_configs(&gid);
        if configs != g.last_assignment_configs {
            bump = true;
        }
        // 2.4 step 5: the bump; a new group's first bump goes 0 -> 2 [4.2].
        if bump {
            let next = if g.group_epoch == 0 {
                2
            } else {
                g.group_epoch + 1
            };
            let r = StreamsRecord::group_metadata(&gid, next, hash, validated, &configs);
            apply(&mut work, &r);
            out.push(r);
        }
        // 2.4 step 6: the initial rebalance delay, armed when a member joins an empty group.
        let delay = self.streams_delay(&gid);
        if was_empty && delay > 0 {
            vol.delay_deadline = Some(now_ms + i64::from(delay));
        }
        let delay_active = vol.delay_deadline.is_some_and(|d| d > now_ms);
        let configured = vol
            .configured
            .as_ref()
            .and_then(|c| c.as_ref().ok())
            .cloned();
        // 2.4 step 7: the target.
        let g = &work[&gid];
        let delayed = delay_active && g.group_epoch > g.assignment_epoch;
        if !delayed && g.group_epoch > g.assignment_epoch {
            self.compute_targets(&mut work, &gid, configured.as_ref(), &mut out)?;
            vol.delay_deadline = None;
        }
        let g = &work[&gid];
        let empty = TasksTuple::default();
        let (target_epoch, target) = if delayed {
            (g.assignment_epoch.max(1), &empty)
        } else {
            (g.assignment_epoch, g.targets.get(&mid).unwrap_or(&empty))
        };
        let member = g.members.get(&mid).cloned().unwrap_or(u);
        let stale = member.topology_epoch < g.topology_epoch();
        if let (Some(o), Some(c), false) = (&owned, &configured, stale) {
            Self::check_owned(o, c)?;
        }
        // 2.4 step 8: reconcile.
        let next = Reconcile {
            group: g,
            target_epoch,
            target,
            owned: owned.as_ref(),
        }
        .run(&member)
        .map_err(|_| HbError {
            code: FENCED_MEMBER_EPOCH,
            message: Some("The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.".into()),
        })?;
        let current_written = !next.same_assignment(&member);
        if current_written {
            let r = StreamsRecord::current(&gid, &next);
            apply(&mut work, &r);
            out.push(r);
        }
        // Commit.
        let Some(g) = work.remove(&gid) else {
            return fail(UNKNOWN_SERVER_ERROR, "group vanished");
        };
        self.streams.insert(gid.clone(), g);
        for r in out {
            records.push(Record::Streams(r));
        }
        let key = (gid.clone(), mid.clone());
        if next.state == StreamsMemberState::UnrevokedTasks {
            if current_written {
                self.rebalance_timers.insert(
                    key.clone(),
                    (
                        now_ms + i64::from(next.rebalance_timeout_ms.max(0)),
                        next.member_epoch,
                    ),
                );
            }
        } else {
            self.rebalance_timers.remove(&key);
        }
        let session = self.streams_session_timeout(&gid);
        self.session_timers.insert(key, now_ms + i64::from(session));
        // D2: task offsets (parsed and validated up front).
        let entry = vol.task_offsets.entry(mid.clone()).or_default();
        if let Some(o) = offsets {
            entry.0 = o;
        }
        if let Some(o) = end_offsets {
            entry.1 = o;
        }
        // 2.4 step 10: the shutdown request.
        if req.shutdown_application {
            vol.shutdown_requester.get_or_insert(mid.clone());
        }
        // 2.7: endpoint-information epoch.
        let tasks_in_response = epoch == 0 || next.assigned != member.assigned;
        if tasks_in_response && next.user_endpoint.is_some() {
            vol.endpoint_information_epoch += 1;
        }
        let g = &self.streams[&gid];
        // Statuses, in Kafka's order.
        let mut statuses = Vec::new();
        if next.topology_epoch < g.topology_epoch() {
            statuses.push(status(
                status_codes::STALE_TOPOLOGY,
                format!(
                    "The member's topology epoch {} is behind the group's topology epoch {}.",
                    next.topology_epoch,
                    g.topology_epoch()
                ),
            ));
        }
        if delayed {
            statuses.push(status(
                status_codes::ASSIGNMENT_DELAYED,
                "Assignment delayed due to the configured initial rebalance delay.".into(),
            ));
        }
        if let Some(c) = &configured {
            if let Some(s) = &c.status {
                statuses.push(status(s.code, s.detail.clone()));
            }
            create.extend(c.internal_topics_to_create.iter().cloned());
        }
        if let Some(who) = &vol.shutdown_requester {
            statuses.push(status(
                status_codes::SHUTDOWN_APPLICATION,
                format!("Streams group member {who} encountered a fatal error and requested a shutdown for the entire application."),
            ));
        }
        let endpoints = (req.endpoint_information_epoch != vol.endpoint_information_epoch)
            .then(|| Self::endpoints(g, configured.as_ref(), &mid, &self.topics));
        let response = StreamsGroupHeartbeatResponse {
            member_id: mid.clone().into(),
            member_epoch: next.member_epoch,
            heartbeat_interval_ms: self.streams_heartbeat_interval(&gid),
            acceptable_recovery_lag: self.streams_config.acceptable_recovery_lag,
            task_offset_interval_ms: self.streams_config.task_offset_interval_ms,
            status: Some(statuses),
            active_tasks: tasks_in_response.then(|| task_ids(&next.assigned.active)),
            standby_tasks: tasks_in_response.then(|| task_ids(&next.assigned.standby)),
            warmup_tasks: tasks_in_response.then(|| task_ids(&next.assigned.warmup)),
            endpoint_information_epoch: if group_existed {
                vol.endpoint_information_epoch
            } else {
                0
            },
            partitions_by_user_endpoint: endpoints,
            ..Default::default()
        };
        self.streams_volatile.insert(gid, vol);
        Ok(response)
    }

    /// PartitionsByUserEndpoint (2.7): one entry per member with an endpoint, other members
    /// first (by member id), the heartbeating member last.
    fn endpoints(
        g: &StreamsGroup,
        configured: Option<&ConfiguredTopology>,
        me: &str,
        topics: &BTreeMap<String, super::TopicMetadata>,
    ) -> Vec<hb::EndpointToPartitions> {
        let subs = configured.and_then(|c| c.subtopologies.as_ref());
        let partitions = |tasks: &TaskSet| -> Vec<hb::TopicPartition> {
            let mut by_topic: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
            let Some(subs) = subs else { return Vec::new() };
            for (s, ps) in tasks {
                let Some(sub) = subs.get(s) else { continue };
                let sources = sub
                    .source_topics
                    .iter()
                    .chain(sub.repartition_source_topics.keys());
                for t in sources {
                    let count = sub
                        .repartition_source_topics
                        .get(t)
                        .map(|i| i.partitions)
                        .or_else(|| topics.get(t).map(|m| m.partitions))
                        .unwrap_or(0)
                        .max(0) as usize;
                    by_topic
                        .entry(t.clone())
                        .or_default()
                        .extend(ps.iter().copied().take(count));
                }
            }
            by_topic
                .into_iter()
                .map(|(t, ps)| hb::TopicPartition {
                    topic: t.into(),
                    partitions: ps.into_iter().collect::<Vec<i32>>().into(),
                    ..Default::default()
                })
                .collect()
        };
        let entry = |m: &StreamsGroupMember, e: &Endpoint| hb::EndpointToPartitions {
            user_endpoint: hb::Endpoint {
                host: e.host.clone().into(),
                port: e.port,
                ..Default::default()
            },
            active_partitions: partitions(&m.assigned.active),
            standby_partitions: partitions(&m.assigned.standby),
            ..Default::default()
        };
        let mut out: Vec<hb::EndpointToPartitions> = g
            .members
            .values()
            .filter(|m| m.member_id != me)
            .filter_map(|m| m.user_endpoint.as_ref().map(|e| entry(m, e)))
            .collect();
        if let Some(m) = g.members.get(me) {
            if let Some(e) = &m.user_endpoint {
                out.push(entry(m, e));
            }
        }
        out
    }

    /// Fires a streams group's initial-rebalance-delay timer: the target of every member is
    /// computed at the current group epoch (2.4 step 6).
    pub(crate) fn fire_streams_delay(&mut self, gid: &str, records: &mut Vec<Record>) {
        if let Some(v) = self.streams_volatile.get_mut(gid) {
            v.delay_deadline = None;
        }
        let Some(g) = self.streams.get(gid) else {
            return;
        };
        if g.members.is_empty() || g.group_epoch <= g.assignment_epoch {
            return;
        }
        let configured = self
            .streams_volatile
            .get(gid)
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
            .cloned();
        let mut work = StreamsGroups::new();
        work.insert(gid.to_string(), g.clone());
        let mut out = Vec::new();
        if self
            .compute_targets(&mut work, gid, configured.as_ref(), &mut out)
            .is_ok()
        {
            for r in out {
                self.emit_streams(records, r);
            }
        }
    }

    /// Handles a StreamsGroupDescribe (2.8): per group, INVALID_GROUP_ID (24) for a blank id,
    /// GROUP_ID_NOT_FOUND (69) for a missing group or one of another type; otherwise the state,
    /// epochs, topology (configured when ready, else as persisted), members with their task
    /// offsets, assignments and targets. `AuthorizedOperations` is `i32::MIN` (not requested /
    /// not computed: ACLs are the caller's).
    pub fn streams_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &StreamsGroupDescribeRequest,
    ) -> StreamsGroupDescribeResponse {
        let groups = req
            .group_ids
            .iter()
            .map(|id| self.describe_streams_group(id))
            .collect();
        StreamsGroupDescribeResponse {
            throttle_time_ms: 0,
            groups,
            ..Default::default()
        }
    }

    fn describe_streams_group(&self, id: &crate::wire::KStr) -> describe::DescribedGroup {
        let error = |code, msg: Option<String>| describe::DescribedGroup {
            group_id: id.clone(),
            error_code: code,
            error_message: msg.map(Into::into),
            authorized_operations: i32::MIN,
            ..Default::default()
        };
        if blank(id) {
            return error(INVALID_GROUP_ID, None);
        }
        let Some(g) = self.streams.get(&**id) else {
            let msg = if self.groups.contains_key(&**id) {
                format!("Group {} is not a streams group.", &**id)
            } else {
                format!("Group {} not found.", &**id)
            };
            return error(GROUP_ID_NOT_FOUND, Some(msg));
        };
        let vol = self.streams_volatile.get(&**id);
        let configured = vol
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
            .filter(|c| c.is_ready());
        let info = |i: &TopicInfo| describe::TopicInfo {
            name: i.name.clone().into(),
            partitions: i.partitions,
            replication_factor: i.replication_factor,
            topic_configs: i
                .topic_configs
                .iter()
                .map(|(k, v)| describe::KeyValue {
                    key: k.clone().into(),
                    value: v.clone().into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let topology = g.topology.as_ref().map(|t| describe::Topology {
            epoch: t.epoch,
            subtopologies: Some(match configured.and_then(|c| c.subtopologies.as_ref()) {
                Some(subs) => subs
                    .iter()
                    .map(|(sid, s)| describe::Subtopology {
                        subtopology_id: sid.clone().into(),
                        source_topics: s.source_topics.iter().map(|x| x.clone().into()).collect(),
                        repartition_sink_topics: s
                            .repartition_sink_topics
                            .iter()
                            .map(|x| x.clone().into())
                            .collect(),
                        state_changelog_topics: s
                            .state_changelog_topics
                            .values()
                            .map(info)
                            .collect(),
                        repartition_source_topics: s
                            .repartition_source_topics
                            .values()
                            .map(info)
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                None => t
                    .subtopologies
                    .iter()
                    .map(|s| describe::Subtopology {
                        subtopology_id: s.subtopology_id.clone().into(),
                        source_topics: s.source_topics.iter().map(|x| x.clone().into()).collect(),
                        repartition_sink_topics: s
                            .repartition_sink_topics
                            .iter()
                            .map(|x| x.clone().into())
                            .collect(),
                        state_changelog_topics: s.state_changelog_topics.iter().map(info).collect(),
                        repartition_source_topics: s
                            .repartition_source_topics
                            .iter()
                            .map(info)
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
            }),
            ..Default::default()
        });
        let ids = |s: &TaskSet| -> Vec<describe::TaskIds> {
            s.iter()
                .map(|(id, ps)| describe::TaskIds {
                    subtopology_id: id.clone().into(),
                    partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
                    ..Default::default()
                })
                .collect()
        };
        let assignment = |t: &TasksTuple| describe::Assignment {
            active_tasks: ids(&t.active),
            standby_tasks: ids(&t.standby),
            warmup_tasks: ids(&t.warmup),
            ..Default::default()
        };
        let offsets = |o: &TaskOffsets| -> Vec<describe::TaskOffset> {
            o.iter()
                .map(|((s, p), off)| describe::TaskOffset {
                    subtopology_id: s.clone().into(),
                    partition: *p,
                    offset: *off,
                    ..Default::default()
                })
                .collect()
        };
        let empty = TasksTuple::default();
        let no_offsets = (TaskOffsets::new(), TaskOffsets::new());
        describe::DescribedGroup {
            error_code: NONE,
            error_message: None,
            group_id: id.clone(),
            group_state: g.state.as_str().into(),
            group_epoch: g.group_epoch,
            assignment_epoch: g.assignment_epoch,
            topology,
            members: g
                .members
                .values()
                .map(|m| {
                    let (o, e) = vol
                        .and_then(|v| v.task_offsets.get(&m.member_id))
                        .unwrap_or(&no_offsets);
                    describe::Member {
                        member_id: m.member_id.clone().into(),
                        member_epoch: m.member_epoch,
                        instance_id: m.instance_id.clone().map(Into::into),
                        rack_id: m.rack_id.clone().map(Into::into),
                        client_id: m.client_id.clone().into(),
                        client_host: m.client_host.clone().into(),
                        topology_epoch: m.topology_epoch,
                        process_id: m.process_id.clone().into(),
                        user_endpoint: m.user_endpoint.as_ref().map(|e| describe::Endpoint {
                            host: e.host.clone().into(),
                            port: e.port,
                            ..Default::default()
                        }),
                        client_tags: m
                            .client_tags
                            .iter()
                            .map(|(k, v)| describe::KeyValue {
                                key: k.clone().into(),
                                value: v.clone().into(),
                                ..Default::default()
                            })
                            .collect(),
                        task_offsets: offsets(o),
                        task_end_offsets: offsets(e),
                        assignment: assignment(&m.assigned),
                        target_assignment: assignment(
                            g.targets.get(&m.member_id).unwrap_or(&empty),
                        ),
                        is_classic: false,
                        ..Default::default()
                    }
                })
                .collect(),
            authorized_operations: i32::MIN,
            ..Default::default()
        }
    }
}

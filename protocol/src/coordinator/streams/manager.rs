//! The streams-group manager: `StreamsGroupHeartbeat` and `StreamsGroupDescribe` (KIP-1071;
//! Kafka's `GroupMetadataManager.streamsGroupHeartbeat`), timers, topic metadata changes and
//! configuration, over the streams groups and the shared [`Context`] the facade lends it for
//! one call.
//!
//! Transactions, as for consumer groups: phase one of a heartbeat reads the live state and
//! writes only into a [`Draft`] (the records so far, plus a scratch copy of the one group they
//! apply to from the first record on, because later steps read their own writes); phase two
//! cannot fail and applies the draft's records to the live state with [`apply`], then stores the
//! soft state and arms timers. A failed heartbeat drops the draft: no record, no change. A
//! stable member's heartbeat writes no record and so copies nothing.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::assignor::{AssignmentMemberSpec, GroupSpec, SubtopologySpec};
use super::description::{self, TopologyDescription};
use super::group::{Endpoint, StreamsGroup, StreamsGroupMember, StreamsGroups, StreamsMemberState};
use super::reconcile::Reconcile;
use super::records::{self, StreamsRecord};
use super::replay::apply;
use super::tasks::{TaskSet, TasksTuple};
use super::topology::{
    self, ConfiguredTopology, CopartitionGroup, CreatableTopic, InvalidTopology, StreamsTopology,
    Subtopology, TopicInfo,
};
use super::{
    status_codes, StreamsGroupConfig, StreamsGroupOverrides, TaskOffsets, NUM_STANDBY_REPLICAS,
    RACK_AWARE_ASSIGNMENT_TAGS,
};
use crate::coordinator::context::{
    blank, fail, ConfigError, Context, HbError, Others, RequestContext, TopicMetadata,
};
use crate::coordinator::timers::{Due, Slot, TimerKind};
use crate::error::ErrorCode;
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
use crate::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use crate::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;

/// First wait (ms) before a group is asked again for its topology description (Kafka 4.4's
/// `StreamsGroupTopologyDescriptionBackoff`: 30 s, doubling per unanswered ask, at most 1 h).
pub(crate) const DESCRIPTION_ASK_INITIAL_MS: i64 = 30_000;
/// Longest wait (ms) between two asks for the same topology epoch's description.
pub(crate) const DESCRIPTION_ASK_MAX_MS: i64 = 3_600_000;

/// Soft state of a streams group, never in records (D6): rebuilt or reset on load.
#[derive(Debug, Clone, Default)]
pub(crate) struct Volatile {
    /// The interactive-query endpoint-information epoch (docs/coordinator.md §2.7), starting at 0.
    pub endpoint_information_epoch: i32,
    /// The member that first asked for an application shutdown, while the group is not empty.
    pub shutdown_requester: Option<String>,
    /// Latest TaskOffsets and TaskEndOffsets per member (docs/coordinator.md, D2).
    pub task_offsets: BTreeMap<String, (TaskOffsets, TaskOffsets)>,
    /// Members whose latest heartbeat was v1 or later: only they get warm-up tasks (§2.12).
    pub warmups_allowed: BTreeSet<String>,
    /// The configured topology for the current topology and metadata.
    pub configured: Option<Result<ConfiguredTopology, InvalidTopology>>,
    /// The last ask for a topology description (KIP-1331): (topology epoch, asks before this one
    /// for that epoch, time in ms before which no heartbeat asks again).
    pub description_ask: Option<(i32, u32, i64)>,
}

/// A member's standby and warm-up tasks together (Kafka's `standbyAndWarmupTasks`, §2.7).
fn standby_and_warmup(t: &TasksTuple) -> TaskSet {
    let mut out = t.standby.clone();
    for (s, ps) in &t.warmup {
        out.entry(s.clone()).or_default().extend(ps.iter().copied());
    }
    out
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

/// The owned tasks of a request: known only when all three lists are non-null (§2.5).
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
                ErrorCode::InvalidRequest.code(),
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

/// The tag keys `rack.aware.assignment.tags` of `configs` names that `m` lacks (Kafka 4.4's
/// check in `streamsGroupHeartbeat`: the value trimmed, split at commas with the blanks around
/// them, empty pieces kept), in configured order; `None` when none is missing or no tag is
/// configured.
fn missing_client_tags(
    configs: &BTreeMap<String, String>,
    m: &StreamsGroupMember,
) -> Option<Vec<String>> {
    let value = configs.get(RACK_AWARE_ASSIGNMENT_TAGS)?.trim();
    if value.is_empty() {
        return None;
    }
    let missing: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|t| !m.client_tags.contains_key(*t))
        .map(str::to_string)
        .collect();
    (!missing.is_empty()).then_some(missing)
}

/// Whether a heartbeat of group `g` asks for its topology description (KIP-1331; Kafka 4.4's
/// `StreamsGroupTopologyDescriptionManager.maybeSetTopologyDescriptionRequired` with its backoff):
/// the group has a topology, no description of its epoch is stored, and no ask for that epoch is
/// waiting out its backoff (30 s, doubling per ask of the same epoch, at most 1 h; Kafka adds a
/// ±20 % jitter, kwire does not). Asking arms the next backoff in `vol`.
fn ask_description(vol: &mut Volatile, g: &StreamsGroup, now_ms: i64) -> bool {
    let current = g.topology_epoch();
    if current < 0
        || g.topology_description
            .as_ref()
            .is_some_and(|d| d.epoch == current)
    {
        return false;
    }
    let attempts = match vol.description_ask {
        Some((e, _, next)) if e == current && now_ms < next => return false,
        Some((e, n, _)) if e == current => n.saturating_add(1),
        _ => 0,
    };
    let delay = DESCRIPTION_ASK_INITIAL_MS
        .saturating_mul(1_i64 << attempts.min(20))
        .min(DESCRIPTION_ASK_MAX_MS);
    vol.description_ask = Some((current, attempts, now_ms.saturating_add(delay)));
    true
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

    fn heartbeat_interval(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .heartbeat_interval_ms
            .unwrap_or(self.config.heartbeat_interval_ms)
    }

    fn delay(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .initial_rebalance_delay_ms
            .unwrap_or(self.config.initial_rebalance_delay_ms)
    }

    /// The group's `num.warmup.replicas` (§2.12): its override, else the broker's, capped by
    /// `group.streams.max.warmup.replicas`.
    fn warmup_replicas(&self, gid: &str) -> i32 {
        self.overrides_of(gid)
            .num_warmup_replicas
            .unwrap_or(self.config.num_warmup_replicas)
            .min(self.config.max_warmup_replicas)
    }

    fn assignment_configs(&self, gid: &str) -> BTreeMap<String, String> {
        let n = self
            .overrides_of(gid)
            .num_standby_replicas
            .unwrap_or(self.config.num_standby_replicas)
            .min(self.config.max_standby_replicas);
        let mut configs = BTreeMap::from([(NUM_STANDBY_REPLICAS.to_string(), n.to_string())]);
        let tags = &self.config.rack_aware_assignment_tags;
        if !tags.is_empty() {
            configs.insert(RACK_AWARE_ASSIGNMENT_TAGS.to_string(), tags.join(","));
        }
        configs
    }
}

/// A heartbeat's answer before the facade wraps its records: the response, the records (empty
/// on error) and the internal topics the caller must create.
pub(crate) struct StreamsHeartbeat {
    pub response: StreamsGroupHeartbeatResponse,
    pub records: Vec<StreamsRecord>,
    pub topics_to_create: Vec<CreatableTopic>,
}

/// A heartbeat's pending writes (see the module docs).
struct Draft<'g> {
    /// The group as it stands (or a new, empty one).
    base: Cow<'g, StreamsGroup>,
    /// `base` with the records applied, made at the first record.
    scratch: Option<StreamsGroups>,
    records: Vec<StreamsRecord>,
}

impl Draft<'_> {
    /// The group as the draft's records leave it.
    fn group(&self) -> &StreamsGroup {
        self.scratch
            .as_ref()
            .and_then(|s| s.get(&self.base.group_id))
            .unwrap_or(&self.base)
    }

    /// Records a write and applies it to the scratch copy.
    fn write(&mut self, r: StreamsRecord) {
        let scratch = self.scratch.get_or_insert_with(|| {
            BTreeMap::from([(self.base.group_id.clone(), self.base.clone().into_owned())])
        });
        apply(scratch, &r);
        self.records.push(r);
    }
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

    /// Re-arms the volatile timers of every member after a replay (docs/coordinator.md, D6): a
    /// session timer from `now_ms`, and a rebalance timer for members in UNREVOKED_TASKS.
    pub fn rearm(&mut self, now_ms: i64) {
        for g in self.groups.values() {
            let session = self.side.session_timeout(&g.group_id);
            for m in g.members.values() {
                let revoking = (m.state == StreamsMemberState::UnrevokedTasks)
                    .then_some((m.member_epoch, m.rebalance_timeout_ms));
                self.ctx
                    .timers
                    .rearm_member(&g.group_id, &m.member_id, now_ms, session, revoking);
            }
        }
    }

    /// Fires a due timer of a streams group: an expired session fences the member; an expired
    /// rebalance timer fences it only if it is still revoking at the captured epoch; the end of
    /// the initial rebalance delay computes the targets (KIP-1071).
    pub fn fire(&mut self, due: &Due) -> Vec<StreamsRecord> {
        let (g, m) = (&due.group_id, &due.member_id);
        let member = self.groups.get(g).and_then(|gr| gr.members.get(m));
        let mut records = Vec::new();
        let fence = match due.kind {
            TimerKind::Session => member.is_some(),
            TimerKind::Rebalance { epoch } => member.is_some_and(|mm| {
                mm.member_epoch == epoch && mm.state == StreamsMemberState::UnrevokedTasks
            }),
            TimerKind::InitialRebalanceDelay => {
                self.fire_delay(g, &mut records);
                false
            }
            // The classic group type's timers.
            _ => false,
        };
        if fence {
            self.fence_member(g, m, &mut records);
        }
        records
    }

    /// The metadata hash and configured topology of `t` against the current topic metadata.
    fn configure_topology(
        &self,
        t: &StreamsTopology,
    ) -> (u64, Result<ConfiguredTopology, InvalidTopology>) {
        let required = t.required_topics();
        let hash = self.ctx.metadata_hash(required.iter());
        let configured =
            topology::configure(t, |name| self.ctx.topics.get(name).map(|m| m.partitions));
        (hash, configured)
    }

    /// Re-validates every streams group's topology against new metadata (called by
    /// `set_topics`): a changed metadata hash or validated topology epoch bumps the group epoch.
    pub fn metadata_changed(&mut self) -> Vec<StreamsRecord> {
        let mut records = Vec::new();
        let records = &mut records;
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in ids {
            let Some(g) = self.groups.get(&gid) else {
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
            self.side
                .volatile
                .entry(gid.clone())
                .or_default()
                .configured = Some(configured);
            if hash != old_hash || validated != old_validated {
                let r = StreamsRecord::group_metadata(&gid, epoch + 1, hash, validated, &configs);
                self.emit(records, r);
            }
        }
        std::mem::take(records)
    }

    fn emit(&mut self, records: &mut Vec<StreamsRecord>, r: StreamsRecord) {
        apply(self.groups, &r);
        if self
            .groups
            .get(r.group_id())
            .is_some_and(|g| g.members.is_empty())
        {
            if let Some(v) = self.side.volatile.get_mut(r.group_id()) {
                v.shutdown_requester = None;
            }
        }
        records.push(r);
    }

    /// Removes a streams member as a -1 leave or a fence does (§2.4): tombstones for its current
    /// assignment, target and metadata, then G+1 with unchanged hash, validated epoch and
    /// configs (and, when it was the last member, the target epoch G+1, as Kafka 4.4); its timers
    /// cancelled and its task offsets forgotten.
    pub fn fence_member(&mut self, gid: &str, mid: &str, records: &mut Vec<StreamsRecord>) {
        let Some(g) = self.groups.get(gid) else {
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
        let last = g.members.len() == 1;
        self.emit(records, StreamsRecord::current_tombstone(gid, mid));
        self.emit(records, StreamsRecord::target_tombstone(gid, mid));
        self.emit(records, StreamsRecord::member_metadata_tombstone(gid, mid));
        self.emit(
            records,
            StreamsRecord::group_metadata(gid, epoch + 1, hash, validated, &configs),
        );
        // The last member gone, the (empty) target is the one of the new epoch: Kafka 4.4's
        // `streamsGroupFenceMember` writes the target epoch G+1 too.
        if last {
            self.emit(records, StreamsRecord::target_epoch(gid, epoch + 1));
        }
        self.ctx.timers.cancel_member(gid, mid);
        if let Some(v) = self.side.volatile.get_mut(gid) {
            v.task_offsets.remove(mid);
            v.warmups_allowed.remove(mid);
        }
    }

    /// Computes the target of every member of `group` at its group epoch (KIP-1071; Kafka's
    /// `TargetAssignmentBuilder`): the records of changed or new member targets, then the target
    /// epoch. Changes nothing.
    fn compute_targets(
        &self,
        group: &StreamsGroup,
        configured: Option<&ConfiguredTopology>,
    ) -> Result<Vec<StreamsRecord>, HbError> {
        let gid = group.group_id.as_str();
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
                let vol = self.side.volatile.get(gid);
                let spec = GroupSpec {
                    members: group
                        .members
                        .values()
                        .map(|m| {
                            // Kafka 4.4's TargetAssignmentBuilder: the member's current
                            // assignment (`assignedTasks`), not its last target.
                            let prev = m.assigned.clone();
                            // §2.12: the lags and who may warm up.
                            let (task_offsets, task_end_offsets) = vol
                                .and_then(|v| v.task_offsets.get(&m.member_id))
                                .cloned()
                                .unwrap_or_default();
                            let warmups_allowed =
                                vol.is_some_and(|v| v.warmups_allowed.contains(&m.member_id));
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
                                    task_offsets,
                                    task_end_offsets,
                                    warmups_allowed,
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
                    num_warmup_replicas: self.side.warmup_replicas(gid),
                    acceptable_recovery_lag: self.side.config.acceptable_recovery_lag,
                };
                let result = self
                    .side
                    .config
                    .assignor
                    .assign(&spec)
                    .map_err(|_| HbError {
                        code: ErrorCode::UnknownServerError.code(),
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
        Ok(recs)
    }

    /// Handles a StreamsGroupHeartbeat (docs/coordinator.md §2.2-2.7 with D1-D3): validation,
    /// join (with topology initialisation, D1 topology updates and topic configuration),
    /// heartbeat, leave (-1) and shutdown requests. On error the response carries only the error
    /// code and message (member id null... as Kafka: empty, epoch 0, interval 0, task lists
    /// null) and nothing is written. Never panics on request input.
    pub fn heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeat {
        let mut records = Vec::new();
        let mut create = Vec::new();
        match self.streams_inner(ctx, req, now_ms, &mut records, &mut create) {
            Ok(response) => StreamsHeartbeat {
                response,
                records,
                topics_to_create: create,
            },
            Err(e) => {
                // §2.12: soft state noted for a member the failed heartbeat did not create.
                let (gid, mid) = (&*req.group_id, &*req.member_id);
                if !self
                    .groups
                    .get(gid)
                    .is_some_and(|g| g.members.contains_key(mid))
                {
                    if let Some(v) = self.side.volatile.get_mut(gid) {
                        v.task_offsets.remove(mid);
                        v.warmups_allowed.remove(mid);
                    }
                }
                StreamsHeartbeat {
                    response: StreamsGroupHeartbeatResponse {
                        error_code: e.code,
                        error_message: e.message.map(Into::into),
                        ..Default::default()
                    },
                    records: Vec::new(),
                    topics_to_create: Vec::new(),
                }
            }
        }
    }

    /// Validates a heartbeat (§2.2 with D2/D3) and returns its parsed TaskOffsets and
    /// TaskEndOffsets (`None` = unchanged).
    fn validate_streams(
        req: &StreamsGroupHeartbeatRequest,
    ) -> Result<(Option<TaskOffsets>, Option<TaskOffsets>), HbError> {
        // docs/coordinator.md §2.2 step 1: features Kafka does not support. Static members are
        // accepted since Kafka 4.4, warm-up tasks since kwire places them (§2.12).
        if let Some(t) = &req.topology {
            if t.subtopologies
                .iter()
                .any(|s| !s.source_topic_regex.is_empty())
            {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "Regular expressions for source topics are not supported yet.",
                );
            }
        }
        if blank(&req.member_id) {
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
        let e = req.member_epoch;
        if e == 0 {
            if req.rebalance_timeout_ms == -1 {
                return fail(
                    ErrorCode::InvalidRequest.code(),
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
                        ErrorCode::InvalidRequest.code(),
                        format!("{name} must be empty when (re-)joining."),
                    );
                }
            }
            let Some(t) = &req.topology else {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "Topology must be non-null when (re-)joining.",
                );
            };
            for s in &t.subtopologies {
                for c in &s.state_changelog_topics {
                    if c.partitions != 0 {
                        return fail(
                            ErrorCode::StreamsInvalidTopology.code(),
                            format!(
                                "Changelog topic {} must have an undefined partition count, but it is set to {}.",
                                &*c.name, c.partitions
                            ),
                        );
                    }
                }
            }
        } else if e == -2 {
            if req.instance_id.is_none() {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "InstanceId can't be null.",
                );
            }
        } else if e < -2 {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!("MemberEpoch is {e}, but must be greater than or equal to -2."),
            );
        }
        let set = [&req.active_tasks, &req.standby_tasks, &req.warmup_tasks]
            .iter()
            .filter(|l| l.is_some())
            .count();
        if set != 0 && set != 3 {
            return fail(
                ErrorCode::InvalidRequest.code(),
                "If one task-type is non-null, all must be non-null.",
            );
        }
        if e != 0 && req.topology.is_some() {
            return fail(
                ErrorCode::InvalidRequest.code(),
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
        records: &mut Vec<StreamsRecord>,
    ) -> Result<StreamsGroupHeartbeatResponse, HbError> {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let Some(g) = self.groups.get(&gid) else {
            return self.streams_missing(&gid);
        };
        let static_leave = match req.instance_id.as_deref() {
            None => {
                if !g.members.contains_key(&mid) {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Member {mid} is not a member of group {gid}."),
                    );
                }
                None
            }
            // Kafka 4.4's streamsGroupLeave with an instance id: the instance's member must be
            // the sender; -2 keeps it (a temporary leave), -1 removes it.
            Some(iid) => {
                let Some(owner) = g.static_member(iid) else {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Instance id {iid} is unknown."),
                    );
                };
                Self::check_static_owner(owner, &mid, iid)?;
                (req.member_epoch == -2).then(|| owner.clone())
            }
        };
        if req.shutdown_application {
            let v = self.side.volatile.entry(gid.clone()).or_default();
            v.shutdown_requester.get_or_insert(mid.clone());
        }
        if let Some(mut m) = static_leave {
            // The member stays with its tasks at epoch -2 until it rejoins with the same instance
            // id or its session times out; nothing is pending revocation any more.
            m.member_epoch = -2;
            m.pending_revocation = TasksTuple::default();
            self.emit(records, StreamsRecord::current(&gid, &m));
            return Ok(StreamsGroupHeartbeatResponse {
                member_id: mid.into(),
                member_epoch: -2,
                status: Some(Vec::new()),
                ..Default::default()
            });
        }
        self.fence_member(&gid, &mid, records);
        Ok(StreamsGroupHeartbeatResponse {
            member_id: mid.to_string().into(),
            member_epoch: -1,
            status: Some(Vec::new()),
            ..Default::default()
        })
    }

    fn streams_missing<T>(&self, gid: &str) -> Result<T, HbError> {
        if self.others.hold(gid) {
            fail(
                ErrorCode::GroupIdNotFound.code(),
                format!("Group {gid} is not a streams group."),
            )
        } else {
            fail(
                ErrorCode::GroupIdNotFound.code(),
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
                ErrorCode::FencedMemberEpoch.code(),
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
                    ErrorCode::FencedMemberEpoch.code(),
                    format!(
                        "The streams group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its tasks and rejoin.",
                        m.member_epoch
                    ),
                );
            }
        }
        Ok(())
    }

    /// Kafka 4.4's throwIfInstanceIdIsFenced: FENCED_INSTANCE_ID when the instance id belongs to
    /// another member id.
    fn check_static_owner(
        owner: &StreamsGroupMember,
        member_id: &str,
        instance_id: &str,
    ) -> Result<(), HbError> {
        if owner.member_id != member_id {
            return fail(
                ErrorCode::FencedInstanceId.code(),
                format!(
                    "Static member {member_id} with instance id {instance_id} was fenced by member {}.",
                    owner.member_id
                ),
            );
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
                    ErrorCode::StreamsInvalidTopologyEpoch.code(),
                    format!("Topology with epoch {er} differs from the group's topology with the same epoch."),
                );
            }
            Ok(false)
        } else if er < eg {
            fail(
                ErrorCode::StreamsTopologyFenced.code(),
                format!("Topology epoch {er} is older than the group's topology epoch {eg}."),
            )
        } else if i64::from(er) > i64::from(eg) + 1 {
            fail(
                ErrorCode::StreamsInvalidTopologyEpoch.code(),
                format!("Topology epoch {er} is more than one ahead of the group's topology epoch {eg}."),
            )
        } else {
            Ok(true)
        }
    }

    /// Owned tasks must exist in a ready topology (§2.3), except for stale members, whose tasks
    /// of removed subtopologies are simply revoked (docs/coordinator.md, D1).
    fn check_owned(owned: &TasksTuple, c: &ConfiguredTopology) -> Result<(), HbError> {
        let Some(subs) = c.subtopologies.as_ref().filter(|_| c.is_ready()) else {
            return Ok(());
        };
        for (_, s, p) in owned.iter() {
            let Some(sub) = subs.get(s) else {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    format!("Subtopology {s} does not exist in the topology."),
                );
            };
            if p < 0 || p >= sub.num_tasks {
                return fail(
                    ErrorCode::InvalidRequest.code(),
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
        records: &mut Vec<StreamsRecord>,
        create: &mut Vec<CreatableTopic>,
    ) -> Result<StreamsGroupHeartbeatResponse, HbError> {
        let (offsets, end_offsets) = Self::validate_streams(req)?;
        if req.member_epoch == -1 || req.member_epoch == -2 {
            return self.streams_leave(req, records);
        }
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let epoch = req.member_epoch;
        if self.others.hold(&gid) || (epoch != 0 && !self.groups.contains_key(&gid)) {
            return self.streams_missing(&gid);
        }
        let group_existed = self.groups.contains_key(&gid);
        // Phase one: every write goes to the draft; nothing live changes until the commit.
        let mut draft = Draft {
            base: match self.groups.get(&gid) {
                Some(g) => Cow::Borrowed(g),
                None => Cow::Owned(StreamsGroup::new(&gid)),
            },
            scratch: None,
            records: Vec::new(),
        };
        let cached = self.side.volatile.get(&gid);
        let mut delay_deadline = self
            .ctx
            .timers
            .get(&gid, "", Slot::InitialRebalanceDelay)
            .map(|t| t.0);
        let g = draft.group();
        let instance_id = req.instance_id.as_deref();
        // Kafka 4.4's throwIfStreamsGroupIsFull: a static member replacing its instance and a
        // member already in the group do not count.
        let static_known = instance_id.is_some_and(|i| g.static_member(i).is_some());
        if epoch == 0
            && !static_known
            && !g.members.contains_key(&mid)
            && g.members.len() >= self.side.config.max_size as usize
        {
            return fail(
                ErrorCode::GroupMaxSizeReached.code(),
                format!(
                    "The streams group has reached its maximum capacity of {} members.",
                    self.side.config.max_size
                ),
            );
        }
        let owned = owned_of(req);
        // The static member this join replaces (Kafka 4.4's getOrMaybeCreateStaticStreamsGroupMember).
        let mut replaced: Option<(String, TasksTuple)> = None;
        let base = match instance_id {
            None => match g.members.get(&mid) {
                Some(m) => {
                    if epoch != 0 {
                        Self::check_streams_epoch(m, epoch, owned.as_ref())?;
                    }
                    m.clone()
                }
                None if epoch == 0 => StreamsGroupMember::new(&mid),
                None => {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Member {mid} is not a member of group {gid}."),
                    )
                }
            },
            Some(iid) => match (g.static_member(iid), epoch) {
                (None, 0) => g
                    .members
                    .get(&mid)
                    .cloned()
                    .unwrap_or_else(|| StreamsGroupMember::new(&mid)),
                (Some(old), 0) => {
                    if old.member_epoch != -2 {
                        return fail(
                            ErrorCode::UnreleasedInstanceId.code(),
                            format!(
                                "Static member {mid} with instance id {iid} cannot join the group because the instance id is owned by {} member.",
                                old.member_id
                            ),
                        );
                    }
                    // The new member takes over the old one's metadata, tasks and target.
                    let mut m = old.clone();
                    m.member_id = mid.clone();
                    m.member_epoch = 0;
                    m.previous_member_epoch = 0;
                    let target = g.targets.get(&old.member_id).cloned().unwrap_or_default();
                    replaced = Some((old.member_id.clone(), target));
                    m
                }
                (None, _) => {
                    return fail(
                        ErrorCode::UnknownMemberId.code(),
                        format!("Instance id {iid} is unknown."),
                    )
                }
                (Some(old), _) => {
                    Self::check_static_owner(old, &mid, iid)?;
                    Self::check_streams_epoch(old, epoch, owned.as_ref())?;
                    old.clone()
                }
            },
        };
        let is_new_member = !g.members.contains_key(&mid) && replaced.is_none();
        if base.state == StreamsMemberState::Unknown && owned.as_ref().is_none_or(|o| !o.is_empty())
        {
            return fail(
                ErrorCode::FencedMemberEpoch.code(),
                "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.",
            );
        }
        let was_empty = g.members.is_empty();
        // docs/coordinator.md §2.4 step 1: the updated member; null means unchanged.
        let mut u = base.clone();
        if let Some(i) = instance_id {
            u.instance_id = Some(i.to_string());
        }
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
        // docs/coordinator.md §2.4 step 2 with D1: the topology.
        let mut adopted = None;
        if let Some(t) = &req.topology {
            let t = topology_from_request(t);
            u.topology_epoch = t.epoch;
            if Self::check_topology_epoch(g.topology.as_ref(), &t)? {
                adopted = Some(t);
            }
        }
        let mut bump = false;
        // Kafka 4.4's replaceStreamsMember: the old static member's records go, the new member
        // is written with the old one's metadata, target and tasks (member epoch 0).
        if let Some((old_id, target)) = &replaced {
            draft.write(StreamsRecord::current_tombstone(&gid, old_id));
            draft.write(StreamsRecord::target_tombstone(&gid, old_id));
            draft.write(StreamsRecord::member_metadata_tombstone(&gid, old_id));
            draft.write(StreamsRecord::member_metadata(&gid, &base));
            draft.write(StreamsRecord::target(&gid, &mid, target));
            draft.write(StreamsRecord::current(&gid, &base));
        }
        if is_new_member || !u.same_metadata(&base) {
            draft.write(StreamsRecord::member_metadata(&gid, &u));
            // Kafka 4.4: a static member's metadata bumps the group epoch only when what the
            // assignment reads changed (topology epoch, rack, client tags, process).
            bump = instance_id.is_none() || !u.same_assignment_inputs(&base);
        }
        if let Some(t) = &adopted {
            draft.write(StreamsRecord::topology(&gid, t));
            bump = true;
        }
        // §2.4 step 3: configure topics when the topology is new or nothing is cached.
        let cached = cached
            .and_then(|v| v.configured.as_ref())
            .filter(|_| adopted.is_none());
        let g = draft.group();
        let mut hash = g.metadata_hash;
        let mut validated = g.validated_topology_epoch;
        let mut fresh = None;
        if let Some(t) = &g.topology {
            if cached.is_none() {
                let (h, c) = self.configure_topology(t);
                hash = h;
                validated = match &c {
                    Ok(c) if c.is_ready() => t.epoch,
                    _ => -1,
                };
                fresh = Some(c);
            }
        }
        let current = fresh.as_ref().or(cached);
        if let Some(Err(e)) = current {
            return fail(ErrorCode::StreamsInvalidTopology.code(), e.0.clone());
        }
        if hash != g.metadata_hash || validated != g.validated_topology_epoch {
            bump = true;
        }
        // docs/coordinator.md §2.4 step 4: assignment configs.
        let configs = self.side.assignment_configs(&gid);
        if configs != g.last_assignment_configs {
            bump = true;
        }
        // §2.12: a warm-up task of this member that the reported offsets show caught up calls
        // for a new target.
        if offsets.is_some() || end_offsets.is_some() {
            let all = self.side.volatile.get(&gid).map(|v| &v.task_offsets);
            let stored = all.and_then(|a| a.get(&mid));
            let own = (
                offsets.as_ref().or(stored.map(|x| &x.0)),
                end_offsets.as_ref().or(stored.map(|x| &x.1)),
            );
            let lag = self.side.config.acceptable_recovery_lag;
            if let Some(t) = g.targets.get(&mid) {
                if super::assignor::warmup_caught_up(own, all, &t.warmup, lag) {
                    bump = true;
                }
            }
        }
        // docs/coordinator.md §2.4 step 5: the bump; a new group's first bump goes 0 -> 2 [4.2].
        if bump {
            let next = if g.group_epoch == 0 {
                2
            } else {
                g.group_epoch + 1
            };
            draft.write(StreamsRecord::group_metadata(
                &gid, next, hash, validated, &configs,
            ));
        }
        // §2.4 step 6: the initial rebalance delay, armed when a member joins an empty group.
        let delay = self.side.delay(&gid);
        if was_empty && delay > 0 {
            delay_deadline = Some(now_ms + i64::from(delay));
        }
        let delay_active = delay_deadline.is_some_and(|d| d > now_ms);
        let configured = current.and_then(|c| c.as_ref().ok()).cloned();
        // §2.12: the task offsets and the v1 flag (soft state) are noted before the target is
        // computed (Kafka 4.4 too notes the offsets before its assignment).
        let vol = self.side.volatile.entry(gid.clone()).or_default();
        if ctx.api_version >= 1 {
            if !vol.warmups_allowed.contains(&mid) {
                vol.warmups_allowed.insert(mid.clone());
            }
        } else {
            vol.warmups_allowed.remove(&mid);
        }
        if offsets.is_some() || end_offsets.is_some() {
            let entry = vol.task_offsets.entry(mid.clone()).or_default();
            if let Some(o) = offsets {
                entry.0 = o;
            }
            if let Some(o) = end_offsets {
                entry.1 = o;
            }
        }
        // docs/coordinator.md §2.4 step 7: the target.
        let g = draft.group();
        let delayed = delay_active && g.group_epoch > g.assignment_epoch;
        if !delayed && g.group_epoch > g.assignment_epoch {
            for r in self.compute_targets(g, configured.as_ref())? {
                draft.write(r);
            }
            delay_deadline = None;
        }
        let g = draft.group();
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
        // docs/coordinator.md §2.4 step 8: reconcile.
        let next = Reconcile {
            group: g,
            target_epoch,
            target,
            owned: owned.as_ref(),
        }
        .run(&member)
        .map_err(|_| HbError {
            code: ErrorCode::FencedMemberEpoch.code(),
            message: Some("The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.".into()),
        })?;
        let current_written = !next.same_assignment(&member);
        if current_written {
            draft.write(StreamsRecord::current(&gid, &next));
        }
        // Phase two (cannot fail): apply the draft's records to the live state, store the
        // soft state and arm the timers.
        let out = draft.records;
        for r in out {
            apply(self.groups, &r);
            records.push(r);
        }
        if let Some((old_id, _)) = replaced.as_ref().filter(|(o, _)| *o != mid) {
            self.ctx.timers.cancel_member(&gid, old_id);
            if let Some(v) = self.side.volatile.get_mut(&gid) {
                v.task_offsets.remove(old_id);
                v.warmups_allowed.remove(old_id);
            }
        }
        let timers = &mut self.ctx.timers;
        match delay_deadline {
            Some(d) => timers.arm(&gid, "", TimerKind::InitialRebalanceDelay, d),
            None => timers.cancel(&gid, "", Slot::InitialRebalanceDelay),
        }
        if next.state == StreamsMemberState::UnrevokedTasks {
            if current_written {
                let deadline = now_ms + i64::from(next.rebalance_timeout_ms.max(0));
                let epoch = next.member_epoch;
                timers.arm(&gid, &mid, TimerKind::Rebalance { epoch }, deadline);
            }
        } else {
            timers.cancel(&gid, &mid, Slot::Rebalance);
        }
        let session = self.side.session_timeout(&gid);
        let interval = self.side.heartbeat_interval(&gid);
        self.ctx
            .timers
            .arm(&gid, &mid, TimerKind::Session, now_ms + i64::from(session));
        let vol = self.side.volatile.entry(gid.clone()).or_default();
        if let Some(c) = fresh {
            vol.configured = Some(c);
        }
        // docs/coordinator.md §2.4 step 10: the shutdown request.
        if req.shutdown_application {
            vol.shutdown_requester.get_or_insert(mid.clone());
        }
        // docs/coordinator.md §2.7: endpoint-information epoch. The join that creates the group
        // does not keep its move: Kafka 4.4 works on a new group object there, whose soft state
        // is lost (the group replayed from the records starts at 0); the moved epoch still
        // decides whether this answer carries the endpoints.
        // Kafka 4.4 moves it when the member's endpoint changed (given, dropped or another one;
        // a new member's against none) or its assigned tasks changed while it has an endpoint;
        // a rejoin with the same endpoint and tasks does not move it.
        let tasks_changed = next.assigned != member.assigned;
        let tasks_in_response = epoch == 0 || tasks_changed;
        let endpoint_changed = base.user_endpoint != next.user_endpoint;
        let endpoint_moved = endpoint_changed || (tasks_changed && next.user_endpoint.is_some());
        if group_existed && endpoint_moved {
            vol.endpoint_information_epoch += 1;
        }
        let endpoint_epoch_now =
            vol.endpoint_information_epoch + i32::from(endpoint_moved && !group_existed);
        let g = &self.groups[&gid];
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
        // Kafka 4.4 (KAFKA-20744): the client tags rack-aware placement needs, at v1+ only.
        if ctx.api_version >= 1 {
            if let Some(missing) = missing_client_tags(&configs, &next) {
                statuses.push(status(status_codes::MISSING_CLIENT_TAGS, format!(
                    "Missing required client tags for rack-aware standby assignment: [{}]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
                    missing.join(", ")
                )));
            }
        }
        // KIP-1331: ask for the description of the group's topology when none is stored.
        let stale = statuses
            .iter()
            .any(|s| s.status_code == status_codes::STALE_TOPOLOGY);
        let description_required = ctx.api_version >= 1
            && self.side.config.topology_descriptions
            && !stale
            && ask_description(vol, g, now_ms);
        let endpoints = (req.endpoint_information_epoch != endpoint_epoch_now)
            .then(|| Self::endpoints(g, configured.as_ref(), &mid, &self.ctx.topics));
        let response = StreamsGroupHeartbeatResponse {
            member_id: mid.clone().into(),
            member_epoch: next.member_epoch,
            heartbeat_interval_ms: interval,
            // Kafka 4.4 sets only the int64 field (dropped at v0, an ignorable v1+ field) and
            // leaves the v0-only int32 `AcceptableRecoveryLagLegacy` at 0 (seen on the 4.4.0
            // broker); setting it would also make a v1 answer unencodable.
            acceptable_recovery_lag_legacy: 0,
            acceptable_recovery_lag: self.side.config.acceptable_recovery_lag,
            task_offset_interval_ms: self.side.config.task_offset_interval_ms,
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
            topology_description_required: description_required,
            ..Default::default()
        };
        Ok(response)
    }

    /// PartitionsByUserEndpoint (§2.7): one entry per member with an endpoint, other members
    /// first (by member id), the heartbeating member last.
    fn endpoints(
        g: &StreamsGroup,
        configured: Option<&ConfiguredTopology>,
        me: &str,
        topics: &BTreeMap<String, TopicMetadata>,
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
            // Kafka 4.4 lists warm-up tasks with the standbys (`standbyAndWarmupTasks`).
            standby_partitions: partitions(&standby_and_warmup(&m.assigned)),
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
    /// computed at the current group epoch (docs/coordinator.md §2.4 step 6).
    fn fire_delay(&mut self, gid: &str, records: &mut Vec<StreamsRecord>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        if g.members.is_empty() || g.group_epoch <= g.assignment_epoch {
            return;
        }
        let configured = self
            .side
            .volatile
            .get(gid)
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
            .cloned();
        if let Ok(out) = self.compute_targets(g, configured.as_ref()) {
            for r in out {
                self.emit(records, r);
            }
        }
    }
}

/// Handles a StreamsGroupDescribe (§2.8): per group, ErrorCode::InvalidGroupId.code() (24) for a blank id,
/// ErrorCode::GroupIdNotFound.code() (69) for a missing group or one of another type; otherwise the state,
/// epochs, topology (configured when ready, else as persisted), members with their task
/// offsets, assignments and targets. `AuthorizedOperations` is `i32::MIN` (not requested /
/// not computed: ACLs are the caller's).
pub(crate) fn describe(
    side: &StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    req: &StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    let groups = req
        .group_ids
        .iter()
        .map(|id| describe_group(side, groups, others, id, req.include_topology_description))
        .collect();
    StreamsGroupDescribeResponse {
        throttle_time_ms: 0,
        groups,
        ..Default::default()
    }
}

fn describe_group(
    side: &StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    id: &crate::wire::KStr,
    include_description: bool,
) -> describe::DescribedGroup {
    let error = |code, msg: Option<String>| describe::DescribedGroup {
        group_id: id.clone(),
        error_code: code,
        error_message: msg.map(Into::into),
        authorized_operations: i32::MIN,
        ..Default::default()
    };
    if blank(id) {
        return error(ErrorCode::InvalidGroupId.code(), None);
    }
    let Some(g) = groups.get(&**id) else {
        let msg = if others.hold(id) {
            format!("Group {} is not a streams group.", &**id)
        } else {
            format!("Group {} not found.", &**id)
        };
        return error(ErrorCode::GroupIdNotFound.code(), Some(msg));
    };
    let vol = side.volatile.get(&**id);
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
                    state_changelog_topics: s.state_changelog_topics.values().map(info).collect(),
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
    // KIP-1331 (v1): the stored description when asked for and of the current topology epoch.
    let stored = g.topology_description.as_ref().filter(|d| {
        side.config.topology_descriptions && Some(d.epoch) == topology.as_ref().map(|t| t.epoch)
    });
    let (description_status, topology_description) = match (include_description, stored) {
        (false, _) => (description::STATUS_NOT_REQUESTED, None),
        (true, None) => (description::STATUS_NOT_STORED, None),
        (true, Some(d)) => (description::STATUS_AVAILABLE, Some(d.to_describe())),
    };
    describe::DescribedGroup {
        error_code: ErrorCode::None.code(),
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
                    target_assignment: assignment(g.targets.get(&m.member_id).unwrap_or(&empty)),
                    is_classic: false,
                    ..Default::default()
                }
            })
            .collect(),
        authorized_operations: i32::MIN,
        topology_description,
        topology_description_status: description_status,
        assignor_name: Some(side.config.assignor.name().to_string().into()),
        ..Default::default()
    }
}

/// Handles a StreamsGroupTopologyDescriptionUpdate (key 93 v0, KIP-1331; Kafka 4.4's
/// `GroupCoordinatorService.streamsGroupTopologyDescriptionUpdate` with kwire as its own plugin):
/// UNSUPPORTED_VERSION when descriptions are off ([`StreamsGroupConfig::topology_descriptions`]);
/// INVALID_REQUEST for a blank member or group id; GROUP_ID_NOT_FOUND for a missing group or one
/// of another type; UNKNOWN_MEMBER_ID for a member not in the group; INVALID_REQUEST when the
/// epoch is not the group's topology epoch or the description is malformed
/// ([`TopologyDescription::from_update`]). Otherwise the description is stored: the returned
/// record (type 25) replaces any earlier one, and the group is no longer asked for it.
pub(crate) fn topology_description_update(
    side: &mut StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    req: &StreamsGroupTopologyDescriptionUpdateRequest,
) -> (
    StreamsGroupTopologyDescriptionUpdateResponse,
    Option<StreamsRecord>,
) {
    match description_update_inner(side, groups, others, req) {
        Ok(r) => (
            StreamsGroupTopologyDescriptionUpdateResponse::default(),
            Some(r),
        ),
        Err(e) => (
            StreamsGroupTopologyDescriptionUpdateResponse {
                error_code: e.code,
                error_message: e.message.map(Into::into),
                ..Default::default()
            },
            None,
        ),
    }
}

fn description_update_inner(
    side: &mut StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    req: &StreamsGroupTopologyDescriptionUpdateRequest,
) -> Result<StreamsRecord, HbError> {
    if !side.config.topology_descriptions {
        return fail(
            ErrorCode::UnsupportedVersion.code(),
            "The broker has no streams group topology description plugin configured.",
        );
    }
    if blank(&req.member_id) {
        return fail(ErrorCode::InvalidRequest.code(), "MemberId can't be empty.");
    }
    if blank(&req.group_id) {
        return fail(ErrorCode::InvalidRequest.code(), "GroupId can't be empty.");
    }
    let (gid, mid) = (&*req.group_id, &*req.member_id);
    let Some(g) = groups.get(gid) else {
        let msg = if others.hold(gid) {
            format!("Group {gid} is not a streams group.")
        } else {
            format!("Group {gid} not found.")
        };
        return fail(ErrorCode::GroupIdNotFound.code(), msg);
    };
    if !g.members.contains_key(mid) {
        return fail(
            ErrorCode::UnknownMemberId.code(),
            format!("Member {mid} is not a member of group {gid}."),
        );
    }
    let current = g.topology_epoch();
    if req.topology_epoch != current {
        return fail(
            ErrorCode::InvalidRequest.code(),
            format!(
                "Topology epoch {} does not match the group's current topology epoch {current}.",
                req.topology_epoch
            ),
        );
    }
    let d = TopologyDescription::from_update(req.topology_epoch, &req.topology_description)?;
    if let Some(v) = side.volatile.get_mut(gid) {
        if v.description_ask.is_some_and(|(e, _, _)| e == current) {
            v.description_ask = None;
        }
    }
    Ok(StreamsRecord::topology_description(gid, &d))
}

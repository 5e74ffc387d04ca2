//! The classic-group manager: JoinGroup, SyncGroup, Heartbeat and LeaveGroup for classic
//! groups (Kafka's `GroupMetadataManager` classic paths and `ClassicGroup`), their timers, and
//! the classic part of DescribeGroups, ListGroups and DeleteGroups, over the classic groups and
//! the shared [`Context`] the facade lends it for one call.
//!
//! State: what records say ([`ClassicGroup`], rebuilt by `replay`) plus the volatile state
//! Kafka keeps only in memory ([`Volatile`]: requests waiting for an answer, members that were
//! given an id and must rejoin (KIP-394), members expected to sync, new members). Every change
//! of the persisted state is a record, applied as it is emitted. Answers go to the context's
//! outbox under the caller's [`RequestId`], at once or when the join or sync phase completes.
//!
//! Section numbers (§) cited in this file are those of docs/coordinator.md §Classic groups.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use super::group::{
    ClassicGroup, ClassicGroupMember, ClassicGroupState, ClassicGroups, ClassicProtocol,
};
use super::records::ClassicRecord;
use super::replay::apply;
use super::{ClassicGroupConfig, NEW_MEMBER_JOIN_TIMEOUT_MS};
use crate::coordinator::context::{leaving_members, Context, RequestContext};
use crate::coordinator::outbox::{GroupResponse, RequestId};
use crate::coordinator::timers::{Due, Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::{JoinGroupResponse, JoinGroupResponseMember};
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::{LeaveGroupResponse, MemberResponse};
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;

use ClassicGroupState::{CompletingRebalance, Empty, PreparingRebalance, Stable};

/// A request waiting for its answer: the caller's id and the request's API version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Waiting {
    pub id: RequestId,
    pub version: i16,
}

/// What Kafka keeps only in memory for a classic group (never in records; lost on restart).
#[derive(Debug, Clone, Default)]
pub(crate) struct Volatile {
    /// Members whose JoinGroup waits for the join phase to end (Kafka's `awaitingJoinFuture`).
    pub awaiting_join: BTreeMap<String, Waiting>,
    /// Members whose SyncGroup waits for the leader's assignment (`awaitingSyncFuture`).
    pub awaiting_sync: BTreeMap<String, Waiting>,
    /// Member ids given out with MEMBER_ID_REQUIRED and not yet used (KIP-394).
    pub pending_join: BTreeSet<String>,
    /// Members expected to send SyncGroup for the current generation.
    pub pending_sync: BTreeSet<String>,
    /// Members added since the last completed join phase (`ClassicGroupMember.isNew`).
    pub new_members: BTreeSet<String>,
    /// A member was added during the initial delay (the delay may be extended).
    pub new_member_added: bool,
    /// The state before the current one (`ClassicGroup.previousState`).
    pub previous_state: Option<ClassicGroupState>,
}

/// What the coordinator keeps for classic groups besides their state: the configuration and
/// the volatile state of each group.
#[derive(Debug, Default)]
pub(crate) struct ClassicSide {
    pub config: ClassicGroupConfig,
    pub volatile: BTreeMap<String, Volatile>,
}

/// The classic groups' manager for one call.
pub(crate) struct ClassicManager<'a> {
    pub ctx: &'a mut Context,
    pub side: &'a mut ClassicSide,
    pub groups: &'a mut ClassicGroups,
    pub records: Vec<ClassicRecord>,
    pub now_ms: i64,
}

fn code(e: ErrorCode) -> i16 {
    e.code()
}

/// A JoinGroup answer shaped for `version`: below v7 a null protocol name is sent as "" (Kafka's
/// `JoinGroupResponse` does the same).
#[allow(clippy::too_many_arguments)]
fn join_response(
    version: i16,
    error: ErrorCode,
    member_id: &str,
    generation_id: i32,
    protocol_type: Option<&str>,
    protocol_name: Option<&str>,
    leader: &str,
    skip_assignment: bool,
    members: Vec<JoinGroupResponseMember>,
) -> JoinGroupResponse {
    let protocol_name = match protocol_name {
        None if version < 7 => Some(String::new()),
        p => p.map(str::to_string),
    };
    JoinGroupResponse {
        throttle_time_ms: 0,
        error_code: error.code(),
        generation_id,
        protocol_type: protocol_type.map(|s| s.to_string().into()),
        protocol_name: protocol_name.map(Into::into),
        leader: leader.to_string().into(),
        skip_assignment: skip_assignment && version >= 9,
        member_id: member_id.to_string().into(),
        members,
        ..Default::default()
    }
}

/// A JoinGroup error answer: the error and member id, generation -1, no protocol, no leader.
fn join_error(version: i16, error: ErrorCode, member_id: &str) -> JoinGroupResponse {
    join_response(
        version,
        error,
        member_id,
        -1,
        None,
        None,
        "",
        false,
        Vec::new(),
    )
}

fn sync_error(error: ErrorCode) -> SyncGroupResponse {
    SyncGroupResponse {
        error_code: error.code(),
        protocol_type: None,
        protocol_name: None,
        assignment: Bytes::new(),
        ..Default::default()
    }
}

/// The request's protocols as stored.
pub(crate) fn protocols_of(req: &JoinGroupRequest) -> Vec<ClassicProtocol> {
    req.protocols
        .iter()
        .map(|p| ClassicProtocol {
            name: p.name.to_string(),
            metadata: Bytes::clone(&p.metadata),
        })
        .collect()
}

/// Kafka's `ClassicGroup.validateMember`: with a group instance id, the member holding it must
/// be `member_id` (FENCED_INSTANCE_ID otherwise, UNKNOWN_MEMBER_ID when nobody holds it);
/// without, the member must exist.
pub(crate) fn validate_member(
    g: &ClassicGroup,
    member_id: &str,
    instance_id: Option<&str>,
) -> Result<(), ErrorCode> {
    match instance_id {
        Some(i) => match g.static_member_id(i) {
            None => Err(ErrorCode::UnknownMemberId),
            Some(m) if m != member_id => Err(ErrorCode::FencedInstanceId),
            Some(_) => Ok(()),
        },
        None if !g.members.contains_key(member_id) => Err(ErrorCode::UnknownMemberId),
        None => Ok(()),
    }
}

/// Whether `a` and `b` are both given and differ (Kafka's `isProtocolInconsistent`).
fn inconsistent(a: Option<&str>, b: Option<&str>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a != b)
}

impl ClassicManager<'_> {
    fn vol(&mut self, gid: &str) -> &mut Volatile {
        self.side.volatile.entry(gid.to_string()).or_default()
    }

    fn group(&self, gid: &str) -> &ClassicGroup {
        &self.groups[gid]
    }

    fn emit(&mut self, r: ClassicRecord) {
        apply(self.groups, &r);
        self.records.push(r);
    }

    fn answer(&mut self, w: Waiting, r: GroupResponse) {
        self.ctx.outbox.push(w.id, r);
    }

    /// Writes the group record after `f` changed the group's scalar fields.
    fn update_group(&mut self, gid: &str, f: impl FnOnce(&mut ClassicGroup)) {
        let g = self.group(gid);
        let mut h = ClassicGroup {
            members: BTreeMap::new(),
            static_members: BTreeMap::new(),
            supported_protocols: BTreeMap::new(),
            group_id: g.group_id.clone(),
            protocol_type: g.protocol_type.clone(),
            protocol_name: g.protocol_name.clone(),
            leader_id: g.leader_id.clone(),
            state: g.state,
            generation_id: g.generation_id,
            current_state_timestamp: g.current_state_timestamp,
        };
        f(&mut h);
        if h.state != g.state {
            let prev = g.state;
            h.current_state_timestamp = self.now_ms;
            self.vol(gid).previous_state = Some(prev);
        }
        let g = self.group(gid);
        if h.state != g.state
            || h.protocol_type != g.protocol_type
            || h.generation_id != g.generation_id
            || h.protocol_name != g.protocol_name
            || h.leader_id != g.leader_id
            || h.current_state_timestamp != g.current_state_timestamp
        {
            self.emit(ClassicRecord::group(&h));
        }
    }

    fn transition(&mut self, gid: &str, state: ClassicGroupState) {
        self.update_group(gid, |h| h.state = state);
    }

    fn put_member(&mut self, gid: &str, m: &ClassicGroupMember) {
        if self.group(gid).members.get(&m.member_id) != Some(m) {
            self.emit(ClassicRecord::member(gid, m));
        }
    }

    /// Kafka's `ClassicGroup.remove`: removes the member (or pending member), and elects the
    /// first remaining member as leader when it was the leader. A SyncGroup it had waiting is
    /// answered UNKNOWN_MEMBER_ID (Kafka leaves it unanswered, §Classic groups).
    fn remove(&mut self, gid: &str, mid: &str) {
        let v = self.vol(gid);
        v.pending_join.remove(mid);
        v.pending_sync.remove(mid);
        v.new_members.remove(mid);
        let join = v.awaiting_join.remove(mid);
        let sync = v.awaiting_sync.remove(mid);
        if let Some(w) = join {
            // Callers complete the join first; this only covers a path that did not.
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        if let Some(w) = sync {
            self.answer(
                w,
                GroupResponse::SyncGroup(sync_error(ErrorCode::UnknownMemberId)),
            );
        }
        if self.group(gid).members.contains_key(mid) {
            self.emit(ClassicRecord::member_tombstone(gid, mid));
        }
        if self.group(gid).is_leader(mid) {
            let next = self.group(gid).members.keys().next().cloned();
            self.update_group(gid, |h| h.leader_id = next);
        }
    }

    fn arm_session(&mut self, gid: &str, mid: &str, timeout_ms: i64) {
        let at = self.now_ms + timeout_ms.max(0);
        self.ctx.timers.arm(gid, mid, TimerKind::Session, at);
    }

    fn reschedule_heartbeat(&mut self, gid: &str, mid: &str) {
        if let Some(m) = self.group(gid).members.get(mid) {
            let t = i64::from(m.session_timeout_ms);
            self.arm_session(gid, mid, t);
        }
    }

    fn has_all_members_joined(&mut self, gid: &str) -> bool {
        let n = self.group(gid).members.len();
        let v = self.vol(gid);
        v.awaiting_join.len() == n && v.pending_join.is_empty()
    }

    fn is_awaiting_join(&self, gid: &str, mid: &str) -> bool {
        self.side
            .volatile
            .get(gid)
            .is_some_and(|v| v.awaiting_join.contains_key(mid))
    }

    // ----- JoinGroup -----

    /// Handles a JoinGroup for a classic group (or a group to create). The facade has already
    /// checked the group id, the session timeout and other group types.
    pub fn join(&mut self, rc: &RequestContext, req: &JoinGroupRequest, id: RequestId) {
        let version = rc.api_version;
        let w = Waiting { id, version };
        let gid = req.group_id.to_string();
        let member_id = req.member_id.to_string();
        let unknown = member_id.is_empty();
        if !self.groups.contains_key(&gid) {
            if !unknown {
                let r = join_error(version, ErrorCode::UnknownMemberId, &member_id);
                self.answer(w, GroupResponse::JoinGroup(r));
                return;
            }
            let mut g = ClassicGroup::new(&gid);
            g.current_state_timestamp = self.now_ms;
            self.emit(ClassicRecord::group(&g));
            self.side.volatile.insert(gid.clone(), Volatile::default());
        }
        if !self.accept_joining_member(&gid, &member_id) {
            if self.group(&gid).members.contains_key(&member_id) {
                self.ctx.timers.cancel(&gid, &member_id, Slot::Session);
            }
            self.remove(&gid, &member_id);
            let r = join_error(version, ErrorCode::GroupMaxSizeReached, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        } else if unknown {
            self.join_new_member(rc, req, &gid, w);
        } else {
            self.join_existing_member(rc, req, &gid, &member_id, w);
        }
    }

    /// Kafka's `acceptJoiningMember` (GROUP_MAX_SIZE_REACHED).
    fn accept_joining_member(&mut self, gid: &str, mid: &str) -> bool {
        let max = self.side.config.max_size.max(0) as usize;
        let g = self.group(gid);
        match g.state {
            Empty | ClassicGroupState::Dead => true,
            PreparingRebalance => {
                let has = g.members.contains_key(mid);
                let awaiting = self.vol(gid).awaiting_join.len();
                (has && self.is_awaiting_join(gid, mid)) || awaiting < max
            }
            CompletingRebalance | Stable => g.members.contains_key(mid) || g.members.len() < max,
        }
    }

    fn join_new_member(
        &mut self,
        rc: &RequestContext,
        req: &JoinGroupRequest,
        gid: &str,
        w: Waiting,
    ) {
        let protocols = protocols_of(req);
        if !self
            .group(gid)
            .supports_protocols(&req.protocol_type, &protocols)
        {
            let r = join_error(w.version, ErrorCode::InconsistentGroupProtocol, "");
            self.answer(w, GroupResponse::JoinGroup(r));
            return;
        }
        let instance = req.group_instance_id.as_ref().map(|s| s.to_string());
        let prefix = instance.clone().unwrap_or_else(|| rc.client_id.clone());
        let new_id = format!("{prefix}-{}", self.ctx.ids.generate());
        match instance {
            Some(i) => match self.group(gid).static_member_id(&i).map(str::to_string) {
                Some(old) => self.update_static_member(rc, req, gid, &old, &new_id, w),
                None => self.add_member(rc, req, gid, &new_id, w),
            },
            None if w.version >= 4 => {
                // KIP-394: the member must come back with the id.
                self.vol(gid).pending_join.insert(new_id.clone());
                self.arm_session(gid, &new_id, i64::from(req.session_timeout_ms));
                let r = join_error(w.version, ErrorCode::MemberIdRequired, &new_id);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            None => self.add_member(rc, req, gid, &new_id, w),
        }
    }

    fn current_join(
        &self,
        gid: &str,
        version: i16,
        mid: &str,
        with_members: bool,
    ) -> JoinGroupResponse {
        let g = self.group(gid);
        let members = if with_members {
            self.member_list(g)
        } else {
            Vec::new()
        };
        join_response(
            version,
            ErrorCode::None,
            mid,
            g.generation_id,
            g.protocol_type.as_deref(),
            g.protocol_name.as_deref(),
            g.leader_id.as_deref().unwrap_or(""),
            false,
            members,
        )
    }

    /// Kafka's `currentClassicGroupMembers`: every member with its metadata for the selected
    /// protocol.
    fn member_list(&self, g: &ClassicGroup) -> Vec<JoinGroupResponseMember> {
        let p = g.protocol_name.as_deref().unwrap_or("");
        g.members
            .values()
            .map(|m| JoinGroupResponseMember {
                member_id: m.member_id.clone().into(),
                group_instance_id: m.group_instance_id.clone().map(Into::into),
                metadata: m.metadata(p).cloned().unwrap_or_default(),
                ..Default::default()
            })
            .collect()
    }

    fn join_existing_member(
        &mut self,
        rc: &RequestContext,
        req: &JoinGroupRequest,
        gid: &str,
        mid: &str,
        w: Waiting,
    ) {
        let protocols = protocols_of(req);
        if !self
            .group(gid)
            .supports_protocols(&req.protocol_type, &protocols)
        {
            let r = join_error(w.version, ErrorCode::InconsistentGroupProtocol, mid);
            self.answer(w, GroupResponse::JoinGroup(r));
            return;
        }
        if self.vol(gid).pending_join.contains(mid) {
            if req.group_instance_id.is_some() {
                // Kafka throws IllegalStateException here (UNKNOWN_SERVER_ERROR).
                let r = join_error(w.version, ErrorCode::UnknownServerError, mid);
                self.answer(w, GroupResponse::JoinGroup(r));
                return;
            }
            self.add_member(rc, req, gid, mid, w);
            return;
        }
        let instance = req.group_instance_id.as_deref();
        if let Err(e) = validate_member(self.group(gid), mid, instance) {
            let r = join_error(w.version, e, mid);
            self.answer(w, GroupResponse::JoinGroup(r));
            return;
        }
        let g = self.group(gid);
        let matches = g.members[mid].matches(&protocols);
        match g.state {
            PreparingRebalance => self.update_member(req, gid, mid, w),
            CompletingRebalance if matches => {
                let leader = g.is_leader(mid);
                let r = self.current_join(gid, w.version, mid, leader);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            CompletingRebalance => self.update_member(req, gid, mid, w),
            Stable if g.is_leader(mid) || !matches => self.update_member(req, gid, mid, w),
            Stable => {
                let r = self.current_join(gid, w.version, mid, false);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            Empty | ClassicGroupState::Dead => {
                let r = join_error(w.version, ErrorCode::UnknownMemberId, mid);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
        }
    }

    fn rebalance_timeout_of(req: &JoinGroupRequest, version: i16) -> i32 {
        if version == 0 {
            req.session_timeout_ms
        } else {
            req.rebalance_timeout_ms
        }
    }

    /// Sets the waiting JoinGroup of a member; a JoinGroup it already had waiting is answered
    /// REBALANCE_IN_PROGRESS (Kafka drops it unanswered, §Classic groups).
    fn set_awaiting_join(&mut self, gid: &str, mid: &str, w: Option<Waiting>) {
        let old = match w {
            Some(w) => self.vol(gid).awaiting_join.insert(mid.to_string(), w),
            None => self.vol(gid).awaiting_join.remove(mid),
        };
        if let (Some(old), Some(_)) = (old, w) {
            let r = join_error(old.version, ErrorCode::RebalanceInProgress, mid);
            self.answer(old, GroupResponse::JoinGroup(r));
        }
    }

    /// Kafka's `updateMemberThenRebalanceOrCompleteJoin`.
    fn update_member(&mut self, req: &JoinGroupRequest, gid: &str, mid: &str, w: Waiting) {
        let mut m = self.group(gid).members[mid].clone();
        m.protocols = protocols_of(req);
        m.rebalance_timeout_ms = Self::rebalance_timeout_of(req, w.version);
        m.session_timeout_ms = req.session_timeout_ms;
        self.put_member(gid, &m);
        self.set_awaiting_join(gid, mid, Some(w));
        self.maybe_prepare_rebalance_or_complete_join(gid);
    }

    /// Kafka's `addMemberThenRebalanceOrCompleteJoin`.
    fn add_member(
        &mut self,
        rc: &RequestContext,
        req: &JoinGroupRequest,
        gid: &str,
        mid: &str,
        w: Waiting,
    ) {
        let m = ClassicGroupMember {
            member_id: mid.to_string(),
            group_instance_id: req.group_instance_id.as_ref().map(|s| s.to_string()),
            client_id: rc.client_id.clone(),
            client_host: rc.client_host.clone(),
            rebalance_timeout_ms: Self::rebalance_timeout_of(req, w.version),
            session_timeout_ms: req.session_timeout_ms,
            protocol_type: req.protocol_type.to_string(),
            protocols: protocols_of(req),
            assignment: Bytes::new(),
        };
        let (state, prev) = (self.group(gid).state, self.vol(gid).previous_state);
        if state == PreparingRebalance && prev == Some(Empty) {
            self.vol(gid).new_member_added = true;
        }
        let first = self.group(gid).members.is_empty();
        let ptype = m.protocol_type.clone();
        self.emit(ClassicRecord::member(gid, &m));
        self.update_group(gid, |h| {
            if first {
                h.protocol_type = Some(ptype);
            }
            if h.leader_id.is_none() {
                h.leader_id = Some(mid.to_string());
            }
        });
        let v = self.vol(gid);
        v.new_members.insert(mid.to_string());
        v.pending_join.remove(mid);
        self.set_awaiting_join(gid, mid, Some(w));
        self.arm_session(gid, mid, NEW_MEMBER_JOIN_TIMEOUT_MS);
        self.maybe_prepare_rebalance_or_complete_join(gid);
    }

    /// Kafka's `updateStaticMemberThenRebalanceOrCompleteJoin`: a static member rejoining with
    /// an unknown member id replaces the member holding its instance id; in a Stable group
    /// whose selected protocol would not change, without a rebalance.
    fn update_static_member(
        &mut self,
        _rc: &RequestContext,
        req: &JoinGroupRequest,
        gid: &str,
        old_id: &str,
        new_id: &str,
        w: Waiting,
    ) {
        let current_leader = self.group(gid).leader_id.clone();
        // replaceStaticMember: fence the old member's waiting requests.
        let v = self.vol(gid);
        let old_join = v.awaiting_join.remove(old_id);
        let old_sync = v.awaiting_sync.remove(old_id);
        // The new member is not new (Kafka builds it afresh); the old id stays expected to
        // sync, as in Kafka, so a replacement before it synced ends in a rebalance at the sync
        // timeout.
        v.new_members.remove(old_id);
        if let Some(o) = old_join {
            let r = join_response(
                o.version,
                ErrorCode::FencedInstanceId,
                old_id,
                -1,
                None,
                None,
                "",
                false,
                Vec::new(),
            );
            self.answer(o, GroupResponse::JoinGroup(r));
        }
        if let Some(o) = old_sync {
            self.answer(
                o,
                GroupResponse::SyncGroup(sync_error(ErrorCode::FencedInstanceId)),
            );
        }
        let mut m = self.group(gid).members[old_id].clone();
        self.emit(ClassicRecord::member_tombstone(gid, old_id));
        self.ctx.timers.cancel(gid, old_id, Slot::Session);
        m.member_id = new_id.to_string();
        m.protocols = protocols_of(req);
        m.rebalance_timeout_ms = Self::rebalance_timeout_of(req, w.version);
        m.session_timeout_ms = req.session_timeout_ms;
        self.emit(ClassicRecord::member(gid, &m));
        if current_leader.as_deref() == Some(old_id) {
            self.update_group(gid, |h| h.leader_id = Some(new_id.to_string()));
        }
        self.reschedule_heartbeat(gid, new_id);
        self.set_awaiting_join(gid, new_id, Some(w));
        match self.group(gid).state {
            Stable => {
                let g = self.group(gid);
                if g.protocol_name.as_deref().unwrap_or("")
                    == g.select_protocol().unwrap_or_default()
                {
                    // No rebalance: the stored member now has the new id.
                    self.set_awaiting_join(gid, new_id, None);
                    let g = self.group(gid);
                    let r = if w.version >= 9 {
                        let leader = g.is_leader(new_id);
                        let members = if leader {
                            self.member_list(g)
                        } else {
                            Vec::new()
                        };
                        join_response(
                            w.version,
                            ErrorCode::None,
                            new_id,
                            g.generation_id,
                            g.protocol_type.as_deref(),
                            g.protocol_name.as_deref(),
                            g.leader_id.as_deref().unwrap_or(""),
                            leader,
                            members,
                        )
                    } else {
                        // Below v9 Kafka names the leader as it was before the replacement.
                        join_response(
                            w.version,
                            ErrorCode::None,
                            new_id,
                            g.generation_id,
                            g.protocol_type.as_deref(),
                            g.protocol_name.as_deref(),
                            current_leader.as_deref().unwrap_or(""),
                            false,
                            Vec::new(),
                        )
                    };
                    self.answer(w, GroupResponse::JoinGroup(r));
                } else {
                    self.maybe_prepare_rebalance_or_complete_join(gid);
                }
            }
            CompletingRebalance => self.prepare_rebalance(gid),
            _ => self.maybe_complete_join_phase(gid),
        }
    }

    fn maybe_prepare_rebalance_or_complete_join(&mut self, gid: &str) {
        match self.group(gid).state {
            Stable | CompletingRebalance | Empty => self.prepare_rebalance(gid),
            _ => self.maybe_complete_join_phase(gid),
        }
    }

    /// Kafka's `prepareRebalance`.
    fn prepare_rebalance(&mut self, gid: &str) {
        if self.group(gid).is(CompletingRebalance) {
            self.reset_and_propagate(gid, ErrorCode::RebalanceInProgress);
        }
        self.vol(gid).pending_sync.clear();
        self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        let initial = self.group(gid).is(Empty);
        if initial {
            let delay = self.side.config.initial_rebalance_delay_ms;
            let remaining = (self.group(gid).rebalance_timeout_ms() - delay).max(0);
            let at = self.now_ms + i64::from(delay);
            self.ctx.timers.arm(
                gid,
                "",
                TimerKind::ClassicInitialDelay {
                    delay_ms: delay,
                    remaining_ms: remaining,
                },
                at,
            );
        }
        self.transition(gid, PreparingRebalance);
        if !initial {
            if self.has_all_members_joined(gid) {
                self.complete_join(gid);
            } else {
                let at = self.now_ms + i64::from(self.group(gid).rebalance_timeout_ms());
                self.ctx.timers.arm(gid, "", TimerKind::ClassicJoin, at);
            }
        }
    }

    /// Kafka's `maybeCompleteJoinPhase`: not during the initial rebalance (the delay timer
    /// completes it), and only when everyone rejoined.
    fn maybe_complete_join_phase(&mut self, gid: &str) {
        if !self.group(gid).is(PreparingRebalance) {
            return;
        }
        if self.vol(gid).previous_state == Some(Empty) {
            return;
        }
        if self.has_all_members_joined(gid) {
            self.complete_join(gid);
        }
    }

    /// Kafka's `completeClassicGroupJoin`: removes the dynamic members that did not rejoin,
    /// elects a leader among those that did, starts the next generation and answers every
    /// waiting JoinGroup (the leader with every member's metadata).
    fn complete_join(&mut self, gid: &str) {
        self.ctx.timers.cancel(gid, "", Slot::ClassicJoin);
        let gone: Vec<String> = {
            let g = self.group(gid);
            g.members
                .values()
                .filter(|m| !m.is_static() && !self.is_awaiting_join(gid, &m.member_id))
                .map(|m| m.member_id.clone())
                .collect()
        };
        for mid in gone {
            self.remove(gid, &mid);
            self.ctx.timers.cancel(gid, &mid, Slot::Session);
        }
        // maybeElectNewJoinedLeader
        let elected = match self.group(gid).leader_id.clone() {
            Some(l) if self.is_awaiting_join(gid, &l) => true,
            Some(_) => {
                let first = self
                    .group(gid)
                    .members
                    .keys()
                    .find(|m| self.is_awaiting_join(gid, m))
                    .cloned();
                match first {
                    Some(f) => {
                        self.update_group(gid, |h| h.leader_id = Some(f));
                        true
                    }
                    None => false,
                }
            }
            None => false,
        };
        if !elected && !self.group(gid).members.is_empty() {
            // At least 1 ms: with a rebalance timeout of 0 this timer would come due again at
            // once, and `fire_timers` would never return (Kafka's timer spins the same way).
            let at = self.now_ms + i64::from(self.group(gid).rebalance_timeout_ms().max(1));
            self.ctx.timers.arm(gid, "", TimerKind::ClassicJoin, at);
            return;
        }
        // initNextGeneration
        let protocol = self.group(gid).select_protocol();
        let has_members = !self.group(gid).members.is_empty();
        self.update_group(gid, |h| {
            h.generation_id += 1;
            if has_members {
                h.protocol_name = protocol;
                h.state = CompletingRebalance;
            } else {
                h.protocol_name = None;
                h.state = Empty;
            }
        });
        self.vol(gid).pending_sync.clear();
        if !has_members {
            return;
        }
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in ids {
            if let Some(w) = self.vol(gid).awaiting_join.remove(&mid) {
                let leader = self.group(gid).is_leader(&mid);
                let r = self.current_join(gid, w.version, &mid, leader);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            self.reschedule_heartbeat(gid, &mid);
            let v = self.vol(gid);
            v.new_members.remove(&mid);
            v.pending_sync.insert(mid);
        }
        let g = self.group(gid);
        let at = self.now_ms + i64::from(g.rebalance_timeout_ms());
        let generation = g.generation_id;
        self.ctx
            .timers
            .arm(gid, "", TimerKind::ClassicSync { generation }, at);
    }

    /// Kafka's `resetAndPropagateAssignmentWithError`: clears every assignment and answers the
    /// waiting SyncGroups with `error`.
    fn reset_and_propagate(&mut self, gid: &str, error: ErrorCode) {
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in &ids {
            let mut m = self.group(gid).members[mid].clone();
            if !m.assignment.is_empty() {
                m.assignment = Bytes::new();
                self.emit(ClassicRecord::member(gid, &m));
            }
        }
        self.propagate(gid, error);
    }

    /// Kafka's `propagateAssignment`: answers every waiting SyncGroup and restarts the session
    /// timer of the members answered.
    fn propagate(&mut self, gid: &str, error: ErrorCode) {
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for mid in ids {
            let Some(w) = self.vol(gid).awaiting_sync.remove(&mid) else {
                continue;
            };
            let g = self.group(gid);
            let ok = error == ErrorCode::None;
            let r = SyncGroupResponse {
                error_code: code(error),
                protocol_type: if ok {
                    g.protocol_type.clone().map(Into::into)
                } else {
                    None
                },
                protocol_name: if ok {
                    g.protocol_name.clone().map(Into::into)
                } else {
                    None
                },
                assignment: g.members[&mid].assignment.clone(),
                ..Default::default()
            };
            self.answer(w, GroupResponse::SyncGroup(r));
            self.reschedule_heartbeat(gid, &mid);
        }
    }

    // ----- SyncGroup -----

    /// Handles a SyncGroup for a classic group (the facade has checked the group id, the v5
    /// protocol fields and other group types).
    pub fn sync(&mut self, req: &SyncGroupRequest, w: Waiting) {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let Some(g) = self.groups.get(&gid) else {
            self.answer(
                w,
                GroupResponse::SyncGroup(sync_error(ErrorCode::UnknownMemberId)),
            );
            return;
        };
        if g.is(Empty) {
            self.answer(
                w,
                GroupResponse::SyncGroup(sync_error(ErrorCode::UnknownMemberId)),
            );
            return;
        }
        let err = validate_member(g, &mid, req.group_instance_id.as_deref())
            .err()
            .or_else(|| {
                (req.generation_id != g.generation_id).then_some(ErrorCode::IllegalGeneration)
            })
            .or_else(|| {
                (inconsistent(req.protocol_type.as_deref(), g.protocol_type.as_deref())
                    || inconsistent(req.protocol_name.as_deref(), g.protocol_name.as_deref()))
                .then_some(ErrorCode::InconsistentGroupProtocol)
            });
        if let Some(e) = err {
            self.answer(w, GroupResponse::SyncGroup(sync_error(e)));
            return;
        }
        match g.state {
            PreparingRebalance => {
                let r = sync_error(ErrorCode::RebalanceInProgress);
                self.answer(w, GroupResponse::SyncGroup(r));
            }
            CompletingRebalance => {
                if let Some(old) = self.vol(&gid).awaiting_sync.insert(mid.clone(), w) {
                    let r = sync_error(ErrorCode::RebalanceInProgress);
                    self.answer(old, GroupResponse::SyncGroup(r));
                }
                self.remove_pending_sync(&gid, &mid);
                if self.group(&gid).is_leader(&mid) {
                    let mut given: BTreeMap<&str, &Bytes> = BTreeMap::new();
                    for a in &req.assignments {
                        given.insert(&a.member_id, &a.assignment);
                    }
                    let ids: Vec<String> = self.group(&gid).members.keys().cloned().collect();
                    for m in ids {
                        let a = given
                            .get(m.as_str())
                            .map(|b| Bytes::clone(b))
                            .unwrap_or_default();
                        let mut mm = self.group(&gid).members[&m].clone();
                        mm.assignment = a;
                        self.put_member(&gid, &mm);
                    }
                    self.propagate(&gid, ErrorCode::None);
                    self.transition(&gid, Stable);
                }
            }
            Stable => {
                self.remove_pending_sync(&gid, &mid);
                let g = self.group(&gid);
                let r = SyncGroupResponse {
                    error_code: 0,
                    protocol_type: g.protocol_type.clone().map(Into::into),
                    protocol_name: g.protocol_name.clone().map(Into::into),
                    assignment: g.members[&mid].assignment.clone(),
                    ..Default::default()
                };
                self.answer(w, GroupResponse::SyncGroup(r));
            }
            Empty | ClassicGroupState::Dead => {
                let r = sync_error(ErrorCode::UnknownMemberId);
                self.answer(w, GroupResponse::SyncGroup(r));
            }
        }
    }

    fn remove_pending_sync(&mut self, gid: &str, mid: &str) {
        self.vol(gid).pending_sync.remove(mid);
        let cancel = match self.group(gid).state {
            Empty | PreparingRebalance | ClassicGroupState::Dead => true,
            CompletingRebalance | Stable => self.vol(gid).pending_sync.is_empty(),
        };
        if cancel {
            self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        }
    }

    // ----- Heartbeat -----

    /// Handles a Heartbeat for a classic group; returns the error code to answer.
    pub fn heartbeat(&mut self, req: &HeartbeatRequest) -> i16 {
        let gid = req.group_id.to_string();
        let mid = req.member_id.to_string();
        let Some(g) = self.groups.get(&gid) else {
            return code(ErrorCode::UnknownMemberId);
        };
        if let Err(e) = validate_member(g, &mid, req.group_instance_id.as_deref()) {
            return e.code();
        }
        if req.generation_id != g.generation_id {
            return code(ErrorCode::IllegalGeneration);
        }
        match g.state {
            Empty | ClassicGroupState::Dead => code(ErrorCode::UnknownMemberId),
            PreparingRebalance => {
                self.reschedule_heartbeat(&gid, &mid);
                code(ErrorCode::RebalanceInProgress)
            }
            CompletingRebalance | Stable => {
                self.reschedule_heartbeat(&gid, &mid);
                code(ErrorCode::None)
            }
        }
    }

    // ----- LeaveGroup -----

    /// Handles a LeaveGroup for a classic group (the facade has checked the group id and other
    /// group types): each identity as Kafka's `classicGroupLeaveToClassicGroup`, then a
    /// rebalance (or the end of the join phase) when anyone left.
    pub fn leave(&mut self, req: &LeaveGroupRequest, version: i16) -> LeaveGroupResponse {
        let gid = req.group_id.to_string();
        if !self.groups.contains_key(&gid) {
            return LeaveGroupResponse {
                error_code: code(ErrorCode::UnknownMemberId),
                ..Default::default()
            };
        }
        let identities = leaving_members(req, version);
        let mut out = Vec::new();
        let mut any = false;
        for (mid, instance) in identities {
            let err = if mid.is_empty() {
                match instance
                    .as_deref()
                    .and_then(|i| self.group(&gid).static_member_id(i))
                {
                    Some(m) => {
                        let m = m.to_string();
                        self.remove_current_member(&gid, &m);
                        ErrorCode::None
                    }
                    None => ErrorCode::UnknownMemberId,
                }
            } else if self.vol(&gid).pending_join.contains(&mid) {
                self.remove(&gid, &mid);
                self.ctx.timers.cancel(&gid, &mid, Slot::Session);
                ErrorCode::None
            } else {
                match validate_member(self.group(&gid), &mid, instance.as_deref()) {
                    Ok(()) => {
                        self.remove_current_member(&gid, &mid);
                        ErrorCode::None
                    }
                    Err(e) => e,
                }
            };
            any |= err == ErrorCode::None;
            out.push(MemberResponse {
                member_id: mid.into(),
                group_instance_id: instance.map(Into::into),
                error_code: err.code(),
                ..Default::default()
            });
        }
        if any {
            match self.group(&gid).state {
                Stable | CompletingRebalance => self.maybe_prepare_rebalance_or_complete_join(&gid),
                PreparingRebalance => self.maybe_complete_join_phase(&gid),
                _ => {}
            }
        }
        if version < 3 {
            let e = out
                .iter()
                .map(|m| m.error_code)
                .find(|c| *c != 0)
                .unwrap_or(0);
            LeaveGroupResponse {
                error_code: e,
                ..Default::default()
            }
        } else {
            LeaveGroupResponse {
                error_code: 0,
                members: out,
                ..Default::default()
            }
        }
    }

    /// Kafka's `removeCurrentMemberFromClassicGroup`: cancels its session timer, answers its
    /// waiting JoinGroup UNKNOWN_MEMBER_ID and removes it.
    fn remove_current_member(&mut self, gid: &str, mid: &str) {
        self.ctx.timers.cancel(gid, mid, Slot::Session);
        if let Some(w) = self.vol(gid).awaiting_join.remove(mid) {
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        self.remove(gid, mid);
    }

    // ----- Timers -----

    /// Fires one classic timer (the facade dispatched it here because a classic group holds its
    /// group id). `now_ms` is the timer's deadline.
    pub fn fire(&mut self, due: &Due) {
        let gid = due.group_id.as_str();
        if !self.groups.contains_key(gid) {
            return;
        }
        match due.kind {
            TimerKind::Session => self.expire_heartbeat(gid, &due.member_id),
            TimerKind::ClassicJoin => {
                if self.group(gid).is(PreparingRebalance) {
                    self.complete_join(gid);
                }
            }
            TimerKind::ClassicInitialDelay {
                delay_ms,
                remaining_ms,
            } => {
                if !self.group(gid).is(PreparingRebalance) {
                    return;
                }
                if self.vol(gid).new_member_added && remaining_ms != 0 {
                    self.vol(gid).new_member_added = false;
                    let d = self
                        .side
                        .config
                        .initial_rebalance_delay_ms
                        .min(remaining_ms);
                    let r = (remaining_ms - delay_ms).max(0);
                    let at = self.now_ms + i64::from(d);
                    self.ctx.timers.arm(
                        gid,
                        "",
                        TimerKind::ClassicInitialDelay {
                            delay_ms: d,
                            remaining_ms: r,
                        },
                        at,
                    );
                } else {
                    self.complete_join(gid);
                }
            }
            TimerKind::ClassicSync { generation } => {
                let g = self.group(gid);
                if generation != g.generation_id || !matches!(g.state, CompletingRebalance | Stable)
                {
                    return;
                }
                let pending: Vec<String> = self.vol(gid).pending_sync.iter().cloned().collect();
                if pending.is_empty() {
                    return;
                }
                for mid in &pending {
                    self.remove(gid, mid);
                    self.ctx.timers.cancel(gid, mid, Slot::Session);
                }
                self.prepare_rebalance(gid);
            }
            TimerKind::Rebalance { .. }
            | TimerKind::InitialRebalanceDelay
            | TimerKind::ConsumerClassicJoin
            | TimerKind::ConsumerClassicSync => {}
        }
    }

    /// Kafka's `expireClassicGroupMemberHeartbeat`.
    fn expire_heartbeat(&mut self, gid: &str, mid: &str) {
        if self.vol(gid).pending_join.contains(mid) {
            self.remove(gid, mid);
            if self.group(gid).is(PreparingRebalance) && self.has_all_members_joined(gid) {
                self.complete_join(gid);
            }
            return;
        }
        if !self.group(gid).members.contains_key(mid) {
            return;
        }
        let v = self.vol(gid);
        let satisfied = !v.new_members.contains(mid)
            && (v.awaiting_join.contains_key(mid) || v.awaiting_sync.contains_key(mid));
        if satisfied {
            return;
        }
        if let Some(w) = self.vol(gid).awaiting_join.remove(mid) {
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        self.remove(gid, mid);
        let state = self.group(gid).state;
        match state {
            Stable | CompletingRebalance => self.maybe_prepare_rebalance_or_complete_join(gid),
            PreparingRebalance if self.has_all_members_joined(gid) => self.complete_join(gid),
            _ => {}
        }
    }

    /// Re-arms the volatile timers of every classic group after a replay (D6): a session timer
    /// per member; the join timer of a group preparing a rebalance (members must rejoin); the
    /// sync timer of a group completing one (every member must sync again).
    pub fn rearm(&mut self) {
        let gids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in gids {
            let g = &self.groups[&gid];
            let members: Vec<(String, i32)> = g
                .members
                .values()
                .map(|m| (m.member_id.clone(), m.session_timeout_ms))
                .collect();
            let (state, generation, rebalance) = (
                g.state,
                g.generation_id,
                i64::from(g.rebalance_timeout_ms()),
            );
            let mut v = Volatile {
                previous_state: Some(state),
                ..Default::default()
            };
            for (mid, t) in &members {
                self.arm_session(&gid, mid, i64::from(*t));
            }
            match state {
                PreparingRebalance => {
                    let at = self.now_ms + rebalance;
                    self.ctx.timers.arm(&gid, "", TimerKind::ClassicJoin, at);
                }
                CompletingRebalance => {
                    v.pending_sync = members.iter().map(|(m, _)| m.clone()).collect();
                    let at = self.now_ms + rebalance;
                    self.ctx
                        .timers
                        .arm(&gid, "", TimerKind::ClassicSync { generation }, at);
                }
                _ => {}
            }
            self.side.volatile.insert(gid, v);
        }
    }

    /// Deletes a classic group (DeleteGroups, or a group replaced by another type): the
    /// tombstone, its timers and volatile state. Waiting requests are answered
    /// COORDINATOR_NOT_AVAILABLE (Kafka's answer for a Dead group).
    pub fn delete(&mut self, gid: &str) {
        self.delete_answering(gid, ErrorCode::CoordinatorNotAvailable);
    }

    /// [`ClassicManager::delete`], answering waiting JoinGroup and SyncGroup requests with
    /// `code` (REBALANCE_IN_PROGRESS when the group is upgraded to a consumer group, Kafka's
    /// `convertToConsumerGroup`).
    pub fn delete_answering(&mut self, gid: &str, code: ErrorCode) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let ids: Vec<String> = g.members.keys().cloned().collect();
        if let Some(v) = self.side.volatile.remove(gid) {
            for (m, w) in v.awaiting_join {
                let r = join_error(w.version, code, &m);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            for (_, w) in v.awaiting_sync {
                let r = sync_error(code);
                self.answer(w, GroupResponse::SyncGroup(r));
            }
            for m in v.pending_join {
                self.ctx.timers.cancel(gid, &m, Slot::Session);
            }
        }
        for m in ids {
            self.ctx.timers.cancel(gid, &m, Slot::Session);
        }
        self.ctx.timers.cancel(gid, "", Slot::ClassicJoin);
        self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        self.emit(ClassicRecord::group_tombstone(gid));
    }
}

impl ClassicManager<'_> {
    /// Writes `g` as a new classic group (its group record, then one record per member) with
    /// fresh volatile state and a session timer per member: how a group converted from another
    /// type (KIP-848 downgrade) is built. An existing classic group of that id is deleted
    /// first.
    pub fn create(&mut self, g: &ClassicGroup) {
        if self.groups.contains_key(&g.group_id) {
            self.delete(&g.group_id);
        }
        let gid = g.group_id.clone();
        self.emit(ClassicRecord::group(g));
        for m in g.members.values() {
            self.emit(ClassicRecord::member(&gid, m));
            self.arm_session(&gid, &m.member_id, i64::from(m.session_timeout_ms));
        }
        self.side.volatile.insert(
            gid,
            Volatile {
                previous_state: Some(g.state),
                ..Default::default()
            },
        );
    }

    /// Starts a rebalance of classic group `gid` (Kafka's `prepareRebalance`, e.g. after a
    /// downgrade); a no-op for a missing group or one already preparing.
    pub fn rebalance(&mut self, gid: &str) {
        if self
            .groups
            .get(gid)
            .is_some_and(|g| !g.is(PreparingRebalance))
        {
            self.prepare_rebalance(gid);
        }
    }
}

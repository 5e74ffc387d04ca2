//! JoinGroup for a classic group (Kafka's `GroupMetadataManager.classicGroupJoin` paths):
//! KIP-394's member-id-required rejoin, the size limit, new and existing members, and the
//! waiting JoinGroup of each member.

use bytes::Bytes;

use super::answers::{join_error, join_response};
use super::{protocols_of, validate_member, ClassicManager, Volatile, Waiting};
use crate::coordinator::classic::group::{ClassicGroup, ClassicGroupMember, ClassicGroupState};
use crate::coordinator::classic::records::ClassicRecord;
use crate::coordinator::classic::NEW_MEMBER_JOIN_TIMEOUT_MS;
use crate::coordinator::context::RequestContext;
use crate::coordinator::outbox::{GroupResponse, RequestId};
use crate::coordinator::timers::Slot;
use crate::error::ErrorCode;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::{JoinGroupResponse, JoinGroupResponseMember};

use ClassicGroupState::{CompletingRebalance, Empty, PreparingRebalance, Stable};

impl ClassicManager<'_> {
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
    pub(super) fn accept_joining_member(&mut self, gid: &str, mid: &str) -> bool {
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

    pub(super) fn join_new_member(
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

    pub(super) fn current_join(
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
    pub(super) fn member_list(&self, g: &ClassicGroup) -> Vec<JoinGroupResponseMember> {
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

    pub(super) fn join_existing_member(
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

    pub(super) fn rebalance_timeout_of(req: &JoinGroupRequest, version: i16) -> i32 {
        if version == 0 {
            req.session_timeout_ms
        } else {
            req.rebalance_timeout_ms
        }
    }

    /// Sets the waiting JoinGroup of a member; a JoinGroup it already had waiting is answered
    /// REBALANCE_IN_PROGRESS (Kafka drops it unanswered, §Classic groups).
    pub(super) fn set_awaiting_join(&mut self, gid: &str, mid: &str, w: Option<Waiting>) {
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
    pub(super) fn update_member(
        &mut self,
        req: &JoinGroupRequest,
        gid: &str,
        mid: &str,
        w: Waiting,
    ) {
        let mut m = self.group(gid).members[mid].clone();
        m.protocols = protocols_of(req);
        m.rebalance_timeout_ms = Self::rebalance_timeout_of(req, w.version);
        m.session_timeout_ms = req.session_timeout_ms;
        self.put_member(gid, &m);
        self.set_awaiting_join(gid, mid, Some(w));
        self.maybe_prepare_rebalance_or_complete_join(gid);
    }

    /// Kafka's `addMemberThenRebalanceOrCompleteJoin`.
    pub(super) fn add_member(
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
}

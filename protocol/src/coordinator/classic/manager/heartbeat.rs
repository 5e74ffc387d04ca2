//! Heartbeat and LeaveGroup for a classic group (Kafka's `classicGroupHeartbeat`,
//! `classicGroupLeave`).

use super::answers::{code, join_error};
use super::{validate_member, ClassicManager};
use crate::coordinator::classic::group::ClassicGroupState;
use crate::coordinator::context::leaving_members;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::Slot;
use crate::error::ErrorCode;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::{LeaveGroupResponse, MemberResponse};

use ClassicGroupState::{CompletingRebalance, Empty, PreparingRebalance, Stable};

impl ClassicManager<'_> {
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
    /// group types): each identity as Kafka's `classicGroupLeaveToClassicGroup`
    /// ([`Self::leave_one`]), then a rebalance (or the end of the join phase) when anyone left.
    /// Below v3 the first member error is the top-level error and no member list is sent.
    pub fn leave(&mut self, req: &LeaveGroupRequest, version: i16) -> LeaveGroupResponse {
        let gid = &*req.group_id;
        if !self.groups.contains_key(gid) {
            return LeaveGroupResponse {
                error_code: code(ErrorCode::UnknownMemberId),
                ..Default::default()
            };
        }
        let mut out = Vec::new();
        let mut any = false;
        for (mid, instance) in leaving_members(req, version) {
            let err = match self.leave_one(gid, &mid, instance.as_deref()) {
                Ok(()) => ErrorCode::None,
                Err(e) => e,
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
            match self.group(gid).state {
                Stable | CompletingRebalance => self.maybe_prepare_rebalance_or_complete_join(gid),
                PreparingRebalance => self.maybe_complete_join_phase(gid),
                _ => {}
            }
        }
        if version < 3 {
            let e = out.iter().map(|m| m.error_code).find(|c| *c != 0);
            return LeaveGroupResponse {
                error_code: e.unwrap_or(0),
                ..Default::default()
            };
        }
        LeaveGroupResponse {
            error_code: 0,
            members: out,
            ..Default::default()
        }
    }

    /// One identity of a LeaveGroup: by instance id alone (no member id), a pending member
    /// (KIP-394), or a member checked as Kafka's `validateMember` does.
    ///
    /// # Errors
    /// UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID.
    fn leave_one(&mut self, gid: &str, mid: &str, instance: Option<&str>) -> Result<(), ErrorCode> {
        if mid.is_empty() {
            let m = instance
                .and_then(|i| self.group(gid).static_member_id(i))
                .ok_or(ErrorCode::UnknownMemberId)?
                .to_string();
            self.remove_current_member(gid, &m);
        } else if self.vol(gid).pending_join.contains(mid) {
            self.remove(gid, mid);
            self.ctx.timers.cancel(gid, mid, Slot::Session);
        } else {
            validate_member(self.group(gid), mid, instance)?;
            self.remove_current_member(gid, mid);
        }
        Ok(())
    }

    /// Kafka's `removeCurrentMemberFromClassicGroup`: cancels its session timer, answers its
    /// waiting JoinGroup UNKNOWN_MEMBER_ID and removes it.
    pub(super) fn remove_current_member(&mut self, gid: &str, mid: &str) {
        self.ctx.timers.cancel(gid, mid, Slot::Session);
        if let Some(w) = self.vol(gid).awaiting_join.remove(mid) {
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        self.remove(gid, mid);
    }
}

//! SyncGroup for a classic group (Kafka's `classicGroupSync`): the leader's assignment is
//! stored and every waiting member answered; a follower waits for it.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::answers::sync_error;
use super::{inconsistent, validate_member, ClassicManager, Waiting};
use crate::coordinator::classic::group::ClassicGroupState;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::Slot;
use crate::error::ErrorCode;
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;

use ClassicGroupState::{CompletingRebalance, Empty, PreparingRebalance, Stable};

impl ClassicManager<'_> {
    /// Handles a SyncGroup for a classic group (the facade has checked the group id, the v5
    /// protocol fields and other group types): the checks ([`Self::check_sync`]), then by
    /// state: REBALANCE_IN_PROGRESS while preparing a rebalance; while completing one the
    /// member waits, and the leader's SyncGroup stores every assignment and answers everyone;
    /// in Stable the member gets its assignment at once.
    pub fn sync(&mut self, req: &SyncGroupRequest, w: Waiting) {
        let (gid, mid) = (&*req.group_id, &*req.member_id);
        if let Err(e) = self.check_sync(req) {
            self.answer(w, GroupResponse::SyncGroup(sync_error(e)));
            return;
        }
        match self.group(gid).state {
            PreparingRebalance => {
                let r = sync_error(ErrorCode::RebalanceInProgress);
                self.answer(w, GroupResponse::SyncGroup(r));
            }
            CompletingRebalance => {
                if let Some(old) = self.vol(gid).awaiting_sync.insert(mid.to_string(), w) {
                    let r = sync_error(ErrorCode::RebalanceInProgress);
                    self.answer(old, GroupResponse::SyncGroup(r));
                }
                self.remove_pending_sync(gid, mid);
                if self.group(gid).is_leader(mid) {
                    self.store_assignments(req);
                }
            }
            Stable => {
                self.remove_pending_sync(gid, mid);
                let g = self.group(gid);
                let r = SyncGroupResponse {
                    error_code: 0,
                    protocol_type: g.protocol_type.clone().map(Into::into),
                    protocol_name: g.protocol_name.clone().map(Into::into),
                    assignment: g.members[mid].assignment.clone(),
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

    /// Kafka's SyncGroup checks, in order: UNKNOWN_MEMBER_ID for a missing or Empty group, the
    /// member check, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL (protocol type or name
    /// given and not the group's).
    fn check_sync(&self, req: &SyncGroupRequest) -> Result<(), ErrorCode> {
        let g = self
            .groups
            .get(&*req.group_id)
            .filter(|g| !g.is(Empty))
            .ok_or(ErrorCode::UnknownMemberId)?;
        validate_member(g, &req.member_id, req.group_instance_id.as_deref())?;
        if req.generation_id != g.generation_id {
            return Err(ErrorCode::IllegalGeneration);
        }
        if inconsistent(req.protocol_type.as_deref(), g.protocol_type.as_deref())
            || inconsistent(req.protocol_name.as_deref(), g.protocol_name.as_deref())
        {
            return Err(ErrorCode::InconsistentGroupProtocol);
        }
        Ok(())
    }

    /// The leader's SyncGroup: every member's assignment from the request (empty when it names
    /// none), then every waiting SyncGroup answered and the group Stable.
    fn store_assignments(&mut self, req: &SyncGroupRequest) {
        let gid = &*req.group_id;
        let given: BTreeMap<&str, &Bytes> = req
            .assignments
            .iter()
            .map(|a| (&*a.member_id, &a.assignment))
            .collect();
        let ids: Vec<String> = self.group(gid).members.keys().cloned().collect();
        for m in ids {
            let mut mm = self.group(gid).members[&m].clone();
            mm.assignment = given
                .get(m.as_str())
                .map(|b| Bytes::clone(b))
                .unwrap_or_default();
            self.put_member(gid, &mm);
        }
        self.propagate(gid, ErrorCode::None);
        self.transition(gid, Stable);
    }

    pub(super) fn remove_pending_sync(&mut self, gid: &str, mid: &str) {
        self.vol(gid).pending_sync.remove(mid);
        let cancel = match self.group(gid).state {
            Empty | PreparingRebalance | ClassicGroupState::Dead => true,
            CompletingRebalance | Stable => self.vol(gid).pending_sync.is_empty(),
        };
        if cancel {
            self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        }
    }
}

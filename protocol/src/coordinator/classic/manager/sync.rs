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

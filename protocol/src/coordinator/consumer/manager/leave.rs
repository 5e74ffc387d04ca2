//! A ConsumerGroupHeartbeat leave (docs/coordinator.md §1.5): -1 removes the member (as a
//! fence does), -2 is a static member's temporary leave (it keeps its partitions at epoch -2
//! and its session timer runs on). Checked in phase one (the group, then the member the shared
//! [`membership::resolve_leaving`] names), written in phase two.

use super::ConsumerManager;
use crate::coordinator::consumer::assignor::Assignment;
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::HbError;
use crate::coordinator::membership::{self, group_not_found, CONSUMER};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;

/// A checked leave: the group and the member it removes (or keeps at -2).
pub(crate) struct Leave<'r> {
    group_id: &'r str,
    member_id: String,
}

impl ConsumerManager<'_> {
    /// Phase one of a leave: the group must be a consumer group (`foreign`: another type holds
    /// it) and hold the member named.
    ///
    /// # Errors
    /// GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID with Kafka's messages.
    pub(super) fn check_leave<'r>(
        &self,
        req: &'r ConsumerGroupHeartbeatRequest,
        foreign: bool,
    ) -> Result<Leave<'r>, HbError> {
        let gid: &'r str = &req.group_id;
        let g = match self.groups.get(gid) {
            _ if foreign => return Err(group_not_found(CONSUMER, gid, true)),
            Some(g) => g,
            None => return Err(group_not_found(CONSUMER, gid, false)),
        };
        let m = membership::resolve_leaving(g, &req.member_id, req.instance_id.as_deref())?;
        Ok(Leave {
            group_id: gid,
            member_id: m.member_id.clone(),
        })
    }

    /// Phase two of a leave: -2 writes the member at epoch -2 with nothing pending revocation;
    /// -1 fences it. Answers the member id and the epoch (-2 or -1).
    pub(super) fn commit_leave(
        &mut self,
        l: Leave<'_>,
        req: &ConsumerGroupHeartbeatRequest,
        records: &mut Vec<ConsumerRecord>,
    ) -> ConsumerGroupHeartbeatResponse {
        if req.member_epoch == -2 {
            let stored = self
                .groups
                .get(l.group_id)
                .and_then(|g| g.members.get(&l.member_id));
            if let Some(mut m) = stored.cloned() {
                m.member_epoch = -2;
                m.pending_revocation = Assignment::new();
                self.emit(records, ConsumerRecord::current(l.group_id, &m));
            }
        } else {
            self.fence_member(l.group_id, &l.member_id, records);
        }
        ConsumerGroupHeartbeatResponse {
            member_id: Some(req.member_id.clone()),
            member_epoch: req.member_epoch,
            ..Default::default()
        }
    }
}

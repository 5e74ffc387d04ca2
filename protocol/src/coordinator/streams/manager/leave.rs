//! A heartbeat with member epoch -1 (leave) or -2 (a static member's temporary leave), with or
//! without a shutdown request (§2.4; Kafka 4.4's `GroupMetadataManager.streamsGroupLeave`), in
//! the coordinator's two phases: [`check_leave`](StreamsManager::check_leave) finds the member
//! (the shared [`membership::resolve_leaving`]), [`commit_leave`](StreamsManager::commit_leave)
//! writes.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::records::StreamsRecord;
use super::super::tasks::TasksTuple;
use super::side::{volatile_mut, StreamsManager};
use crate::coordinator::context::HbError;
use crate::coordinator::membership::{self, group_not_found, STREAMS};
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

/// A checked leave: a removal (-1), or, for a static member's -2, the record that keeps it at
/// epoch -2 with its tasks and nothing pending revocation, until it rejoins with its instance id
/// or its session ends.
pub(super) struct Leave {
    keep: Option<StreamsRecord>,
}

impl StreamsManager<'_> {
    /// GROUP_ID_NOT_FOUND for a group id that names no streams group: `Group G is not a streams
    /// group.` when another group type holds the id, else `Streams group G not found.`
    pub(super) fn missing(&self, gid: &str) -> HbError {
        group_not_found(STREAMS, gid, self.others.hold(gid))
    }

    /// Phase one of a leave: the group and the member it names (by instance id when given:
    /// Kafka 4.4's `streamsGroupLeave` requires the instance's member to be the sender).
    ///
    /// # Errors
    /// GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID (member or instance id unknown), FENCED_INSTANCE_ID.
    pub(super) fn check_leave(&self, req: &StreamsGroupHeartbeatRequest) -> Result<Leave, HbError> {
        let gid = &*req.group_id;
        let Some(g) = self.groups.get(gid) else {
            return Err(self.missing(gid));
        };
        let iid = req.instance_id.as_deref();
        let m = membership::resolve_leaving(g, &req.member_id, iid)?;
        let keep = (iid.is_some() && req.member_epoch == -2).then(|| {
            let mut m = m.clone();
            m.member_epoch = -2;
            m.pending_revocation = TasksTuple::default();
            StreamsRecord::current(gid, &m)
        });
        Ok(Leave { keep })
    }

    /// Phase two of a leave: a shutdown request is noted first (the group's first requester is
    /// kept), then the member is kept at -2 or removed as a fence removes it.
    pub(super) fn commit_leave(
        &mut self,
        leave: Leave,
        req: &StreamsGroupHeartbeatRequest,
        records: &mut Vec<StreamsRecord>,
    ) -> StreamsGroupHeartbeatResponse {
        let (gid, mid) = (&*req.group_id, &*req.member_id);
        if req.shutdown_application {
            if let Some(v) = volatile_mut(&mut self.side.volatile, gid) {
                v.shutdown_requester.get_or_insert_with(|| mid.to_string());
            }
        }
        let epoch = match leave.keep {
            Some(record) => {
                self.emit(records, record);
                -2
            }
            None => {
                self.fence_member(gid, mid, records);
                -1
            }
        };
        StreamsGroupHeartbeatResponse {
            member_id: req.member_id.clone(),
            member_epoch: epoch,
            status: Some(Vec::new()),
            ..Default::default()
        }
    }
}

//! A heartbeat with member epoch -1 (leave) or -2 (a static member's temporary leave), with or
//! without a shutdown request (§2.4; Kafka 4.4's `GroupMetadataManager.streamsGroupLeave`).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::StreamsGroup;
use super::super::records::StreamsRecord;
use super::super::tasks::TasksTuple;
use super::member::check_static_owner;
use super::side::{volatile_mut, StreamsManager};
use crate::coordinator::context::{fail, HbError};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

impl StreamsManager<'_> {
    /// The error for a group id that names no streams group.
    ///
    /// # Errors
    /// Always GROUP_ID_NOT_FOUND: `Group G is not a streams group.` when another group type
    /// holds the id, else `Streams group G not found.`
    pub(super) fn missing<T>(&self, gid: &str) -> Result<T, HbError> {
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

    /// A leave: a -1 removes the member (as a fence); a static member's -2 keeps it at epoch -2
    /// with its tasks until it rejoins with its instance id or its session ends. A shutdown
    /// request is noted first (the group's first requester is kept).
    ///
    /// # Errors
    /// GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID (member or instance id unknown), FENCED_INSTANCE_ID.
    pub(super) fn leave(
        &mut self,
        req: &StreamsGroupHeartbeatRequest,
        records: &mut Vec<StreamsRecord>,
    ) -> Result<StreamsGroupHeartbeatResponse, HbError> {
        let (gid, mid) = (&*req.group_id, &*req.member_id);
        let Some(g) = self.groups.get(gid) else {
            return self.missing(gid);
        };
        let static_leave = leaving(g, req)?;
        if req.shutdown_application {
            if let Some(v) = volatile_mut(&mut self.side.volatile, gid) {
                v.shutdown_requester.get_or_insert_with(|| mid.to_string());
            }
        }
        let epoch = match static_leave {
            Some(record) => {
                self.emit(records, record);
                -2
            }
            None => {
                self.fence_member(gid, mid, records);
                -1
            }
        };
        Ok(StreamsGroupHeartbeatResponse {
            member_id: req.member_id.clone(),
            member_epoch: epoch,
            status: Some(Vec::new()),
            ..Default::default()
        })
    }
}

/// Who leaves: checks the member (by member id, or by instance id: Kafka 4.4's
/// `streamsGroupLeave` with an instance id requires the instance's member to be the sender) and
/// returns, for a static -2, the record that keeps the member at epoch -2 with nothing pending
/// revocation; `None` for a removal.
fn leaving(
    g: &StreamsGroup,
    req: &StreamsGroupHeartbeatRequest,
) -> Result<Option<StreamsRecord>, HbError> {
    let (gid, mid) = (&*req.group_id, &*req.member_id);
    let Some(iid) = req.instance_id.as_deref() else {
        if !g.members.contains_key(mid) {
            return fail(
                ErrorCode::UnknownMemberId.code(),
                format!("Member {mid} is not a member of group {gid}."),
            );
        }
        return Ok(None);
    };
    let Some(owner) = g.static_member(iid) else {
        return fail(
            ErrorCode::UnknownMemberId.code(),
            format!("Instance id {iid} is unknown."),
        );
    };
    check_static_owner(owner, mid, iid)?;
    Ok((req.member_epoch == -2).then(|| {
        let mut m = owner.clone();
        m.member_epoch = -2;
        m.pending_revocation = TasksTuple::default();
        StreamsRecord::current(gid, &m)
    }))
}

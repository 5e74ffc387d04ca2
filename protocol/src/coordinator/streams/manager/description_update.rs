//! StreamsGroupTopologyDescriptionUpdate (key 93 v0, KIP-1331; Kafka 4.4's
//! `GroupCoordinatorService.streamsGroupTopologyDescriptionUpdate`, with kwire as its own
//! description plugin): a member pushes the description of the group's current topology epoch.

use super::super::description::TopologyDescription;
use super::super::group::StreamsGroups;
use super::super::records::StreamsRecord;
use super::side::StreamsSide;
use crate::coordinator::context::{blank, fail, HbError, Others};
use crate::error::ErrorCode;
use crate::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use crate::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;

/// Handles a StreamsGroupTopologyDescriptionUpdate: UNSUPPORTED_VERSION when descriptions are
/// off ([`StreamsGroupConfig::topology_descriptions`](super::super::StreamsGroupConfig));
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
    match update(side, groups, others, req) {
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

fn update(
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

//! The classic protocol's answers: JoinGroup and SyncGroup responses shaped for their version.

use bytes::Bytes;

use crate::error::ErrorCode;
use crate::generated::join_group_response::{JoinGroupResponse, JoinGroupResponseMember};
use crate::generated::sync_group_response::SyncGroupResponse;

pub(super) fn code(e: ErrorCode) -> i16 {
    e.code()
}

/// A JoinGroup answer shaped for `version`: below v7 a null protocol name is sent as "" (Kafka's
/// `JoinGroupResponse` does the same).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_response(
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
pub(super) fn join_error(version: i16, error: ErrorCode, member_id: &str) -> JoinGroupResponse {
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

pub(super) fn sync_error(error: ErrorCode) -> SyncGroupResponse {
    SyncGroupResponse {
        error_code: error.code(),
        protocol_type: None,
        protocol_name: None,
        assignment: Bytes::new(),
        ..Default::default()
    }
}

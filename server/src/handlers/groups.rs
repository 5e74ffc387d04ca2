//! Groups of every type: DescribeGroups, ListGroups and DeleteGroups, handed to the
//! coordinator (DeleteGroups also deletes the groups' committed offsets).

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::delete_groups_response::DeleteGroupsResponse;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::describe_groups_response::DescribeGroupsResponse;
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::list_groups_response::ListGroupsResponse;

use crate::context::Ctx;
use crate::events::groups::Cause;
use crate::services::state::State;

/// DescribeGroups v0-6: [`GroupCoordinator::describe_groups`] (a group that is not a classic
/// group is `Dead`; GROUP_ID_NOT_FOUND at v6).
///
/// [`GroupCoordinator::describe_groups`]: kwire_protocol::coordinator::GroupCoordinator::describe_groups
pub fn describe_groups(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &DescribeGroupsRequest,
) -> DescribeGroupsResponse {
    st.groups.coordinator.describe_groups(&ctx.coordinator(), r)
}

/// ListGroups v0-5: [`GroupCoordinator::list_groups`] (every group type, states and types
/// filters).
///
/// [`GroupCoordinator::list_groups`]: kwire_protocol::coordinator::GroupCoordinator::list_groups
pub fn list_groups(st: &mut State, ctx: &Ctx<'_>, r: &ListGroupsRequest) -> ListGroupsResponse {
    st.groups.coordinator.list_groups(&ctx.coordinator(), r)
}

/// DeleteGroups v0-3: [`GroupCoordinator::delete_groups`] (GROUP_ID_NOT_FOUND,
/// NON_EMPTY_GROUP, INVALID_GROUP_ID per group); the committed offsets of every group deleted
/// are deleted too (written with the group's tombstone).
///
/// [`GroupCoordinator::delete_groups`]: kwire_protocol::coordinator::GroupCoordinator::delete_groups
pub fn delete_groups(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &DeleteGroupsRequest,
) -> DeleteGroupsResponse {
    let out = st
        .groups
        .coordinator
        .delete_groups(&ctx.coordinator(), r, ctx.now);
    let cause = Cause::Request {
        api: "DeleteGroups",
        member_id: "",
    };
    st.queue_records(out.records, cause);
    for g in &out.response.results {
        if g.error_code == ErrorCode::None.code() {
            st.delete_offsets(&g.group_id);
        }
    }
    out.response
}

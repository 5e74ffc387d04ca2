//! The group APIs over every group type: ListGroups, DescribeGroups and DeleteGroups. Each
//! iterates the [`Registry`](super::registry::Registry) or asks the group type holding an id;
//! none names a group type.

use super::registry::{dead_group, Listed};
use super::GroupCoordinator;
use crate::coordinator::context::RequestContext;
use crate::coordinator::record::{Output, Record};
use crate::error::ErrorCode;
use crate::generated::delete_groups_request::DeleteGroupsRequest;
use crate::generated::delete_groups_response::{DeletableGroupResult, DeleteGroupsResponse};
use crate::generated::describe_groups_request::DescribeGroupsRequest;
use crate::generated::describe_groups_response::{DescribeGroupsResponse, DescribedGroup};
use crate::generated::list_groups_request::ListGroupsRequest;
use crate::generated::list_groups_response::{ListGroupsResponse, ListedGroup};

/// Whether ListGroups `v` shows a group in state `state` of type `group_type`: the v4+ states
/// filter (case-insensitive, trimmed) and the v5+ types filter (an unknown type matches
/// nothing).
fn shown(req: &ListGroupsRequest, v: i16, state: &str, group_type: &str) -> bool {
    let state_ok = v < 4
        || req.states_filter.is_empty()
        || req
            .states_filter
            .iter()
            .any(|s| s.trim().eq_ignore_ascii_case(state));
    let type_ok = v < 5
        || req.types_filter.is_empty()
        || req
            .types_filter
            .iter()
            .any(|t| t.trim().eq_ignore_ascii_case(group_type));
    state_ok && type_ok
}

impl GroupCoordinator {
    /// Every group of every type as ListGroups shows it: (id, protocol type, state, type), by
    /// group id.
    pub fn listed_groups(&self) -> Vec<Listed> {
        let mut out = Vec::new();
        for t in self.types.all() {
            t.list(&self.groups, &mut out);
        }
        out.sort();
        out
    }

    /// Handles a ListGroups (v0-5) over every group type (Kafka's `listGroups`): the v4+ states
    /// filter (case-insensitive, trimmed) and the v5+ types filter (`classic`, `consumer`,
    /// `streams`, case-insensitive; an unknown type matches nothing). GroupState is sent from
    /// v4, GroupType from v5. Classic groups show their protocol type (empty before the first
    /// member), consumer groups `consumer`, streams groups `streams`.
    pub fn list_groups(&self, ctx: &RequestContext, req: &ListGroupsRequest) -> ListGroupsResponse {
        let v = ctx.api_version;
        let groups = self
            .listed_groups()
            .into_iter()
            .filter(|(_, _, st, ty)| shown(req, v, st, ty))
            .map(|(id, pt, st, ty)| ListedGroup {
                group_id: id.into(),
                protocol_type: pt.into(),
                group_state: if v >= 4 { st } else { "" }.into(),
                group_type: if v >= 5 { ty } else { "" }.into(),
                ..Default::default()
            })
            .collect();
        ListGroupsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            groups,
            ..Default::default()
        }
    }

    /// Handles a DescribeGroups (v0-6), for every group type: one entry per requested id, in
    /// order. A classic group gives its state, protocol type, and its members (client id, host,
    /// instance id); in Stable also the protocol name, each member's metadata for it and its
    /// assignment (Kafka's `describeGroups`). An empty id gives INVALID_GROUP_ID. An id that
    /// is not a classic group is `Dead` with no members: with no error below v6, and
    /// GROUP_ID_NOT_FOUND (`Group G not found.` / `Group G is not a classic group.`) at v6
    /// (KIP-1043). AuthorizedOperations is `i32::MIN` (the caller fills it in when asked).
    pub fn describe_groups(
        &self,
        ctx: &RequestContext,
        req: &DescribeGroupsRequest,
    ) -> DescribeGroupsResponse {
        let v = ctx.api_version;
        let groups = req
            .groups
            .iter()
            .map(|gid| {
                if gid.is_empty() {
                    return DescribedGroup {
                        error_code: ErrorCode::InvalidGroupId.code(),
                        authorized_operations: i32::MIN,
                        ..Default::default()
                    };
                }
                match self.types.holder(&self.groups, gid) {
                    Some(t) => t.describe_groups(&self.groups, gid, v),
                    None => dead_group(gid, format!("Group {gid} not found."), v),
                }
            })
            .collect();
        DescribeGroupsResponse {
            throttle_time_ms: 0,
            groups,
            ..Default::default()
        }
    }

    /// Handles a DeleteGroups (v0-3) for every group type: per id, INVALID_GROUP_ID for an
    /// empty id, GROUP_ID_NOT_FOUND for a missing group, NON_EMPTY_GROUP for a group with
    /// members (a classic group not Empty); otherwise the group's tombstone is written (the
    /// caller deletes its committed offsets). Results in request order.
    pub fn delete_groups(
        &mut self,
        ctx: &RequestContext,
        req: &DeleteGroupsRequest,
        now_ms: i64,
    ) -> Output<DeleteGroupsResponse> {
        self.guarded(
            |c| c.delete_each(ctx, req, now_ms),
            |_, out| out.response.results.iter().all(|r| r.error_code != 0),
        )
    }

    fn delete_each(
        &mut self,
        _ctx: &RequestContext,
        req: &DeleteGroupsRequest,
        now_ms: i64,
    ) -> Output<DeleteGroupsResponse> {
        let mut records = Vec::new();
        let results = req
            .groups_names
            .iter()
            .map(|gid| {
                let code = match self.delete_group(gid, now_ms) {
                    Ok(r) => {
                        records.extend(r);
                        ErrorCode::None
                    }
                    Err(e) => e,
                };
                DeletableGroupResult {
                    group_id: gid.clone(),
                    error_code: code.code(),
                    error_message: None,
                    ..Default::default()
                }
            })
            .collect();
        Output {
            response: DeleteGroupsResponse {
                throttle_time_ms: 0,
                results,
                ..Default::default()
            },
            records,
        }
    }

    /// Deletes one group through the group type holding it.
    fn delete_group(&mut self, gid: &str, now_ms: i64) -> Result<Vec<Record>, ErrorCode> {
        if gid.is_empty() {
            return Err(ErrorCode::InvalidGroupId);
        }
        let t = self
            .types
            .holder_mut(&self.groups, gid)
            .ok_or(ErrorCode::GroupIdNotFound)?;
        t.delete(&mut self.ctx, &mut self.groups, gid, now_ms)
    }
}

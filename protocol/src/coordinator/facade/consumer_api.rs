//! The consumer group type's requests (KIP-848; docs/coordinator.md §1): ConsumerGroupHeartbeat
//! and ConsumerGroupDescribe.

use super::GroupCoordinator;
use crate::coordinator::consumer::manager::{self as manager, describe};
use crate::coordinator::context::RequestContext;
use crate::coordinator::record::{Output, Record};
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;

impl GroupCoordinator {
    /// Handles a ConsumerGroupHeartbeat (KIP-848; docs/coordinator.md §Consumer groups):
    /// validation, join, heartbeat, leave (-1), static temporary leave (-2) and static rejoin.
    /// On error the response carries only the error code and message (member id null, epoch 0,
    /// interval 0, assignment null) and nothing changes (no record, no timer). A group id held
    /// by a streams group answers GROUP_ID_NOT_FOUND `Group G is not a consumer group.`; a
    /// joining heartbeat replaces an empty classic group and upgrades a non-empty one
    /// (§Online migration). A stable member's heartbeat copies and allocates nothing. Never
    /// panics on request input.
    pub fn consumer_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        self.guarded(
            |c| c.consumer_heartbeat(ctx, req, now_ms),
            |_, out| out.response.error_code != 0,
        )
    }

    fn consumer_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        if req.member_epoch == 0 {
            if let Some(out) = self.upgrade_heartbeat(ctx, req, now_ms) {
                return out;
            }
        }
        let gid = &*req.group_id;
        // Kafka's `maybeDeleteEmptyClassicGroup`: a join replaces an empty classic group, so
        // that group is no other type's for the check.
        let replaces_classic = self.replaces_empty_classic(gid, req.member_epoch);
        let foreign = !replaces_classic
            && self.groups.contains(gid)
            && !self.groups.consumer.contains_key(gid);
        // Phase one (docs §Transactions): every check, nothing written.
        let step = match self
            .consumer_manager()
            .check_heartbeat(ctx, req, now_ms, None, foreign)
        {
            Ok(step) => step,
            Err(e) => {
                return Output {
                    response: manager::error_response(e),
                    records: Vec::new(),
                }
            }
        };
        // Phase two: the empty classic group's tombstone, then the heartbeat's records.
        let mut records = if replaces_classic {
            self.remove_classic_group(gid, now_ms)
        } else {
            Vec::new()
        };
        let (response, written) = self.consumer_manager().commit_heartbeat(step, req, now_ms);
        records.extend(written.into_iter().map(Record::Consumer));
        records.extend(self.run_downgrades(now_ms));
        Output { response, records }
    }

    /// Handles a ConsumerGroupDescribe (KIP-848): one entry per requested id, in order. An empty
    /// (or blank) id gives INVALID_GROUP_ID with GroupId ""; a missing group gives
    /// GROUP_ID_NOT_FOUND `Group G not found.` (`Group G is not a consumer group.` for a group
    /// of another type). Member entries carry MemberType 1 (consumer; 0 for a classic member)
    /// for v1; AuthorizedOperations is left at INT32_MIN (the caller, as KafkaApis, fills it in
    /// when asked). State is read as it stands after the last call (a sans-IO coordinator
    /// commits every write at once).
    pub fn consumer_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &ConsumerGroupDescribeRequest,
    ) -> ConsumerGroupDescribeResponse {
        let g = &self.groups;
        let foreign = |id: &str| g.contains(id) && !g.consumer.contains_key(id);
        describe::describe(&self.ctx, &self.types.consumer, &g.consumer, &foreign, req)
    }
}

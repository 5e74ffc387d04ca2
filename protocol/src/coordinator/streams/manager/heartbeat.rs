//! StreamsGroupHeartbeat (key 88, v0-1; §2.2-§2.7 with D1-D3; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat`) in the coordinator's two phases
//! ([`commit`](crate::coordinator::commit)): [`validate`](super::validate), then a leave
//! ([`leave`](super::leave)) or [`check`](super::check) (phase one, read-only, may fail), then
//! [`write`](super::write) (phase two, cannot fail).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::StreamsGroup;
use super::super::records::StreamsRecord;
use super::super::topology::CreatableTopic;
use super::check::{check, Call};
use super::response;
use super::side::StreamsManager;
use super::validate;
use crate::coordinator::context::{HbError, RequestContext};
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;

/// A heartbeat's answer before the facade wraps its records: the response, the records (empty
/// on error) and the internal topics the caller must create.
pub(crate) struct StreamsHeartbeat {
    pub response: StreamsGroupHeartbeatResponse,
    pub records: Vec<StreamsRecord>,
    pub topics_to_create: Vec<CreatableTopic>,
}

impl StreamsManager<'_> {
    /// Handles a StreamsGroupHeartbeat (§2.2-2.7 with D1-D3): validation, join (with topology
    /// initialisation, D1 topology updates and topic configuration), heartbeat, leave (-1, -2)
    /// and shutdown requests. On error the response carries only the error code and message
    /// (member id empty, epoch 0, interval 0, task lists null) and nothing changes: no record,
    /// no state, no timer, no soft state. A heartbeat that changes nothing copies neither the
    /// group, its configured topology nor the member. Never panics on request input.
    pub fn heartbeat(
        &mut self,
        rc: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeat {
        let call = Call { rc, req, now_ms };
        let mut records = Vec::new();
        match self.run(call, &mut records) {
            Ok((response, topics_to_create)) => StreamsHeartbeat {
                response,
                records,
                topics_to_create,
            },
            Err(e) => StreamsHeartbeat {
                response: response::failed(e),
                records: Vec::new(),
                topics_to_create: Vec::new(),
            },
        }
    }

    /// The heartbeat's steps: §2.2 validation; a leave's check and write; or the group's type,
    /// phase one over the group as it stands, and phase two.
    fn run(
        &mut self,
        call: Call<'_>,
        records: &mut Vec<StreamsRecord>,
    ) -> Result<(StreamsGroupHeartbeatResponse, Vec<CreatableTopic>), HbError> {
        let (gid, req) = (call.gid(), call.req);
        let reported = validate::request(req)?;
        if matches!(req.member_epoch, -1 | -2) {
            let leave = self.check_leave(req)?;
            return Ok((self.commit_leave(leave, req, records), Vec::new()));
        }
        let group_existed = self.groups.contains_key(gid);
        if self.others.hold(gid) || (req.member_epoch != 0 && !group_existed) {
            return Err(self.missing(gid));
        }
        let new_group;
        let live = match self.groups.get(gid) {
            Some(g) => g,
            None => {
                new_group = StreamsGroup::new(gid);
                &new_group
            }
        };
        let plan = check(self.ctx, self.side, live, call, reported)?;
        let topics_to_create = plan
            .configured
            .ok()
            .map(|c| c.internal_topics_to_create.clone())
            .unwrap_or_default();
        let response = self.write_plan(call, plan, group_existed, records);
        Ok((response, topics_to_create))
    }
}

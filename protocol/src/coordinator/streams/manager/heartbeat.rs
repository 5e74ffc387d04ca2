//! StreamsGroupHeartbeat (key 88, v0-1; §2.2-§2.7 with D1-D3; Kafka 4.4's
//! `GroupMetadataManager.streamsGroupHeartbeat`): the request checked, a leave handed to
//! [`leave`](super::leave), then the two phases: [`plan`](super::plan) (every step, writing into
//! a draft) and [`commit`](super::commit) (records applied, timers, soft state, the answer).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::group::StreamsGroup;
use super::super::records::StreamsRecord;
use super::super::topology::CreatableTopic;
use super::plan::{plan, Call};
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
    /// (member id empty, epoch 0, interval 0, task lists null) and nothing is written. A
    /// heartbeat that changes nothing copies neither the group, its configured topology nor the
    /// member. Never panics on request input.
    pub fn heartbeat(
        &mut self,
        rc: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeat {
        let call = Call { rc, req, now_ms };
        match self.try_heartbeat(call) {
            Ok(out) => out,
            Err(e) => {
                self.forget_failed_join(call);
                StreamsHeartbeat {
                    response: response::failed(e),
                    records: Vec::new(),
                    topics_to_create: Vec::new(),
                }
            }
        }
    }

    /// The heartbeat's steps: §2.2 validation, a leave, the group's type, then phase one and,
    /// when it succeeds, phase two and the answer.
    fn try_heartbeat(&mut self, call: Call<'_>) -> Result<StreamsHeartbeat, HbError> {
        let (gid, req) = (call.gid(), call.req);
        let reported = validate::request(req)?;
        if matches!(req.member_epoch, -1 | -2) {
            let mut records = Vec::new();
            let response = self.leave(req, &mut records)?;
            return Ok(StreamsHeartbeat {
                response,
                records,
                topics_to_create: Vec::new(),
            });
        }
        let group_existed = self.groups.contains_key(gid);
        if self.others.hold(gid) || (req.member_epoch != 0 && !group_existed) {
            return self.missing(gid);
        }
        let new_group;
        let live = match self.groups.get(gid) {
            Some(g) => g,
            None => {
                new_group = StreamsGroup::new(gid);
                &new_group
            }
        };
        let mut plan = plan(self.ctx, self.side, live, call, reported)?;
        let records = self.commit(call, &mut plan, group_existed);
        let response = self.answer(call, &plan, group_existed);
        let topics_to_create = plan
            .configured
            .ok()
            .map(|c| c.internal_topics_to_create.clone())
            .unwrap_or_default();
        Ok(StreamsHeartbeat {
            response,
            records,
            topics_to_create,
        })
    }

    /// After a failed heartbeat: the soft state noted for a member the heartbeat did not create
    /// is forgotten (§2.12).
    fn forget_failed_join(&mut self, call: Call<'_>) {
        let (gid, mid) = (call.gid(), call.mid());
        let known = self
            .groups
            .get(gid)
            .is_some_and(|g| g.members.contains_key(mid));
        if !known {
            if let Some(v) = self.side.volatile.get_mut(gid) {
                v.forget_member(mid);
            }
        }
    }
}

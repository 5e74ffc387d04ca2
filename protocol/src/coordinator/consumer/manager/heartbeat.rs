//! The entry of a ConsumerGroupHeartbeat (docs/coordinator.md §1.1-1.10): phase one
//! ([`ConsumerManager::check_heartbeat`]: [`validate`](super::validate), then the leave checks
//! or [`check`](super::check)'s steps) and phase two
//! ([`ConsumerManager::commit_heartbeat`]), kept apart so that the facade can run the checks of
//! every part of a cross-type request before the first commit.

use std::borrow::Cow;

use super::check::Plan;
use super::leave::Leave;
use super::{validate, ConsumerManager};
use crate::coordinator::consumer::group::ConsumerGroup;
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::{blank, HbError, RequestContext};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;

/// A checked ConsumerGroupHeartbeat (phase one's result): a leave or a heartbeat at epoch ≥ 0.
/// Not boxed: a stable heartbeat allocates nothing, its plan included.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Step<'r> {
    /// A leave (-1) or a static temporary leave (-2).
    Leave(Leave<'r>),
    /// A join or a heartbeat.
    Beat(Plan<'r>),
}

impl ConsumerManager<'_> {
    /// The member id a heartbeat at epoch ≥ 0 speaks for: the request's, or a fresh one for a
    /// v0 join without one (docs/coordinator.md §1.1).
    fn member_id_of<'r>(&mut self, req: &'r ConsumerGroupHeartbeatRequest) -> Cow<'r, str> {
        if req.member_epoch == 0 && blank(&req.member_id) {
            Cow::Owned(self.ctx.ids.generate())
        } else {
            Cow::Borrowed(&req.member_id)
        }
    }

    /// Phase one of a ConsumerGroupHeartbeat (docs/coordinator.md §1.1-1.10): [`validate`],
    /// then the leave checks or [`check`]'s steps against `converted` (a group an online
    /// upgrade builds, not yet written) or else the live group. `foreign`: another group type
    /// holds the group id. Changes nothing but the member-id generator.
    ///
    /// # Errors
    /// The error to answer (see [`error_response`]).
    pub fn check_heartbeat<'r>(
        &mut self,
        ctx: &RequestContext,
        req: &'r ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        converted: Option<&ConsumerGroup>,
        foreign: bool,
    ) -> Result<Step<'r>, HbError> {
        validate::validate(&self.side.config, ctx, req)?;
        if req.member_epoch < 0 {
            return self.check_leave(req, foreign).map(Step::Leave);
        }
        let member_id = self.member_id_of(req);
        let group = converted.or_else(|| self.groups.get(&*req.group_id));
        let plan = self.check(ctx, req, now_ms, member_id, group, None, foreign)?;
        Ok(Step::Beat(plan))
    }

    /// Phase two of a ConsumerGroupHeartbeat: writes what [`ConsumerManager::check_heartbeat`]
    /// decided and answers. Cannot fail.
    pub fn commit_heartbeat(
        &mut self,
        step: Step<'_>,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<ConsumerRecord>) {
        let mut records = Vec::new();
        let response = match step {
            Step::Leave(l) => self.commit_leave(l, req, &mut records),
            Step::Beat(plan) => self.write_plan(plan, req, now_ms, &mut records),
        };
        (response, records)
    }
}

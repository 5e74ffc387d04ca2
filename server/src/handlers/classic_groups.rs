//! Classic groups: JoinGroup, SyncGroup, Heartbeat and LeaveGroup, handed to the coordinator.
//! A JoinGroup or SyncGroup whose answer waits for the rest of its group is a [`Reply::Wait`]:
//! the connection answers it, in request order, once the coordinator's outbox has the answer.

use kwire_protocol::coordinator::{
    GroupCoordinator, GroupResponse, Record, RequestContext, RequestId,
};
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::JoinGroupRequest;
use kwire_protocol::generated::leave_group_request::LeaveGroupRequest;
use kwire_protocol::generated::sync_group_request::SyncGroupRequest;
use tokio::sync::oneshot;

use crate::context::Ctx;
use crate::events::groups::{classic_heartbeat_refused, Cause};
use crate::reply::{GroupWait, Reply};
use crate::services::state::State;

/// Hands a classic request to the coordinator (`call`, with a new request id) and queues the
/// records it returns (`(api, member id)`: what caused them); the receiver of its answer.
fn classic(
    st: &mut State,
    ctx: &Ctx<'_>,
    (api, member_id): (&'static str, &str),
    call: impl FnOnce(&mut GroupCoordinator, &RequestContext, RequestId) -> Vec<Record>,
) -> oneshot::Receiver<GroupResponse> {
    let (id, rx) = st.groups.wait_response();
    let records = call(&mut st.groups.coordinator, &ctx.coordinator(), id);
    st.queue_records(records, Cause::Request { api, member_id });
    rx
}

/// A classic request's reply: its answer comes through `rx` (at once if the coordinator gave it
/// right away: the router looks before it waits).
fn wait(rx: oneshot::Receiver<GroupResponse>) -> Reply {
    Reply::Wait(GroupWait { answer: rx })
}

/// JoinGroup v0-9: [`GroupCoordinator::join_group`]; the answer waits for the join phase to end
/// (every member rejoined, the rebalance timeout, or the initial delay).
///
/// [`GroupCoordinator::join_group`]: kwire_protocol::coordinator::GroupCoordinator::join_group
pub fn join_group(st: &mut State, ctx: &Ctx<'_>, r: &JoinGroupRequest) -> Reply {
    let rx = classic(st, ctx, ("JoinGroup", &r.member_id), |c, rc, id| {
        c.join_group(rc, r, id, ctx.now)
    });
    wait(rx)
}

/// SyncGroup v0-5: [`GroupCoordinator::sync_group`]; a follower's answer waits for the leader's
/// SyncGroup with the assignment.
///
/// [`GroupCoordinator::sync_group`]: kwire_protocol::coordinator::GroupCoordinator::sync_group
pub fn sync_group(st: &mut State, ctx: &Ctx<'_>, r: &SyncGroupRequest) -> Reply {
    let rx = classic(st, ctx, ("SyncGroup", &r.member_id), |c, rc, id| {
        c.sync_group(rc, r, id, ctx.now)
    });
    wait(rx)
}

/// Heartbeat v0-4: [`GroupCoordinator::heartbeat`], answered at once. A fenced member
/// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION) is logged at INFO.
///
/// [`GroupCoordinator::heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::heartbeat
pub fn heartbeat(st: &mut State, ctx: &Ctx<'_>, r: &HeartbeatRequest) -> Reply {
    let mut rx = classic(st, ctx, ("Heartbeat", &r.member_id), |c, rc, id| {
        c.heartbeat(rc, r, id, ctx.now)
    });
    st.groups.drain_responses();
    if let Ok(GroupResponse::Heartbeat(h)) = rx.try_recv() {
        let member = (&*r.group_id, &*r.member_id, r.generation_id);
        st.fx
            .events
            .extend(classic_heartbeat_refused(ctx, member, h.error_code));
        return Reply::Respond(h.into());
    }
    wait(rx)
}

/// LeaveGroup v0-5 (v3+ batches of members): [`GroupCoordinator::leave_group`], answered at
/// once.
///
/// [`GroupCoordinator::leave_group`]: kwire_protocol::coordinator::GroupCoordinator::leave_group
pub fn leave_group(st: &mut State, ctx: &Ctx<'_>, r: &LeaveGroupRequest) -> Reply {
    let rx = classic(st, ctx, ("LeaveGroup", &r.member_id), |c, rc, id| {
        c.leave_group(rc, r, id, ctx.now)
    });
    wait(rx)
}

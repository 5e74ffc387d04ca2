//! KIP-848 consumer groups: ConsumerGroupHeartbeat and ConsumerGroupDescribe, handed to the
//! coordinator.

use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::groups::GroupKind;
use crate::events::Refusal;
use crate::services::state::State;

/// ConsumerGroupHeartbeat v0-1: [`GroupCoordinator::consumer_group_heartbeat`], answered at
/// once; a fenced member or a refused heartbeat is logged.
///
/// [`GroupCoordinator::consumer_group_heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::consumer_group_heartbeat
pub fn consumer_group_heartbeat(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &ConsumerGroupHeartbeatRequest,
) -> ConsumerGroupHeartbeatResponse {
    let out = st
        .groups
        .coordinator
        .consumer_group_heartbeat(&ctx.coordinator(), r, ctx.now);
    let refusal = Refusal {
        code: out.response.error_code,
        message: out.response.error_message.as_deref(),
    };
    let member = (&*r.group_id, &*r.member_id, r.member_epoch);
    let what = (ApiKey::ConsumerGroupHeartbeat, GroupKind::Consumer);
    st.heartbeat_answered(ctx, what, member, refusal, out.records);
    out.response
}

/// ConsumerGroupDescribe v0-1: [`GroupCoordinator::consumer_group_describe`].
///
/// [`GroupCoordinator::consumer_group_describe`]: kwire_protocol::coordinator::GroupCoordinator::consumer_group_describe
pub fn consumer_group_describe(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &ConsumerGroupDescribeRequest,
) -> ConsumerGroupDescribeResponse {
    st.groups
        .coordinator
        .consumer_group_describe(&ctx.coordinator(), r)
}

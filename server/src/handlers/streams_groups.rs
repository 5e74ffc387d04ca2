//! KIP-1071 streams groups: StreamsGroupHeartbeat (which creates the internal topics a topology
//! needs), StreamsGroupDescribe and StreamsGroupTopologyDescriptionUpdate (KIP-1331), handed to
//! the coordinator.

use kwire_protocol::coordinator::streams::CreatableTopic;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use kwire_protocol::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::groups::{Cause, GroupKind};
use crate::events::{Refusal, TopicOrigin};
use crate::names::{valid_topic_name, MAX_PARTITIONS};
use crate::services::state::{NewTopic, State};

/// StreamsGroupHeartbeat v0-1: [`GroupCoordinator::streams_group_heartbeat`]; the internal
/// topics it asks for are created here (then [`GroupCoordinator::set_topics`]), so a later
/// heartbeat finds them. Their creation is written with the heartbeat's records: a failure
/// breaks the durable state (the router answers NOT_COORDINATOR).
///
/// [`GroupCoordinator::streams_group_heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::streams_group_heartbeat
/// [`GroupCoordinator::set_topics`]: kwire_protocol::coordinator::GroupCoordinator::set_topics
pub fn streams_group_heartbeat(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &StreamsGroupHeartbeatRequest,
) -> StreamsGroupHeartbeatResponse {
    let out = st
        .groups
        .coordinator
        .streams_group_heartbeat(&ctx.coordinator(), r, ctx.now);
    let refusal = Refusal {
        code: out.response.error_code,
        message: out.response.error_message.as_deref(),
    };
    let member = (&*r.group_id, &*r.member_id, r.member_epoch);
    let what = (ApiKey::StreamsGroupHeartbeat, GroupKind::Streams);
    st.heartbeat_answered(ctx, what, member, refusal, out.records);
    let create = internal_topics(st, &out.topics_to_create);
    if !create.is_empty() {
        let origin = TopicOrigin::StreamsGroup {
            group_id: &r.group_id,
        };
        let _ = st.create_topics(create, ctx.now, origin);
    }
    out.response
}

/// The internal topics of `wanted` to create: new, with legal names that collide with no
/// topic and partition counts kwire-server allows (the others are logged and skipped).
fn internal_topics(st: &State, wanted: &[CreatableTopic]) -> Vec<NewTopic> {
    let mut create: Vec<NewTopic> = Vec::new();
    for t in wanted {
        if st.topics.get(&t.name).is_some() || create.iter().any(|(n, ..)| *n == t.name) {
            continue;
        }
        if let Err(e) = valid_topic_name(&t.name) {
            tracing::warn!(topic = %t.name, error = %e, "cannot create a streams internal topic");
            continue;
        }
        if let Some(other) = st.topics.colliding(&t.name) {
            tracing::warn!(topic = %t.name, colliding = other, "cannot create a streams internal topic: its name collides with an existing topic's");
            continue;
        }
        if !(1..=MAX_PARTITIONS).contains(&t.num_partitions) {
            tracing::warn!(topic = %t.name, partitions = t.num_partitions, "cannot create a streams internal topic");
            continue;
        }
        let configs = t
            .configs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        create.push((t.name.clone(), t.num_partitions, configs));
    }
    create
}

/// StreamsGroupDescribe v0-1: [`GroupCoordinator::streams_group_describe`].
///
/// [`GroupCoordinator::streams_group_describe`]: kwire_protocol::coordinator::GroupCoordinator::streams_group_describe
pub fn streams_group_describe(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    st.groups
        .coordinator
        .streams_group_describe(&ctx.coordinator(), r)
}

/// StreamsGroupTopologyDescriptionUpdate v0 (KIP-1331):
/// [`GroupCoordinator::streams_group_topology_description_update`]; the stored description's
/// record is written before the answer, a refusal is logged.
///
/// [`GroupCoordinator::streams_group_topology_description_update`]: kwire_protocol::coordinator::GroupCoordinator::streams_group_topology_description_update
pub fn streams_group_topology_description_update(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &StreamsGroupTopologyDescriptionUpdateRequest,
) -> StreamsGroupTopologyDescriptionUpdateResponse {
    let out = st
        .groups
        .coordinator
        .streams_group_topology_description_update(&ctx.coordinator(), r);
    if out.response.error_code != ErrorCode::None.code() {
        st.fx.refused(
            ctx,
            ApiKey::StreamsGroupTopologyDescriptionUpdate,
            format_args!(
                "streams group {}, member {:?} at topology epoch {}: {}",
                &*r.group_id,
                &*r.member_id,
                r.topology_epoch,
                Refusal {
                    code: out.response.error_code,
                    message: out.response.error_message.as_deref(),
                }
            ),
        );
    }
    st.queue_records(
        out.records,
        Cause::Request {
            api: "StreamsGroupTopologyDescriptionUpdate",
            member_id: &r.member_id,
        },
    );
    out.response
}

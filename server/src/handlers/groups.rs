//! Group APIs, all handed to the coordinator: the KIP-848 and KIP-1071 heartbeats and
//! describes, the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, whose answers
//! may wait: [`Outcome::Wait`]), and DescribeGroups / ListGroups / DeleteGroups over every group
//! type.

use kwire_protocol::coordinator::RequestContext;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::delete_groups_response::DeleteGroupsResponse;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::describe_groups_response::DescribeGroupsResponse;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::JoinGroupRequest;
use kwire_protocol::generated::leave_group_request::LeaveGroupRequest;
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::list_groups_response::ListGroupsResponse;
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use kwire_protocol::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use kwire_protocol::generated::sync_group_request::SyncGroupRequest;
use kwire_protocol::generated::ApiKey;

use super::{Ctx, GroupWait, Outcome};
use crate::broker::{Broker, NewTopic};
use crate::events::{Cause, GroupKind, Refusal, TopicOrigin};
use crate::topics::{valid_topic_name, MAX_PARTITIONS};

fn context(ctx: &Ctx<'_>) -> RequestContext {
    RequestContext::new(ctx.client_id, ctx.client_host, ctx.version)
}

/// ConsumerGroupHeartbeat v0-1: [`GroupCoordinator::consumer_group_heartbeat`], answered at once.
///
/// [`GroupCoordinator::consumer_group_heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::consumer_group_heartbeat
pub fn consumer_group_heartbeat(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &ConsumerGroupHeartbeatRequest,
) -> ConsumerGroupHeartbeatResponse {
    let out = b
        .coordinator
        .consumer_group_heartbeat(&context(ctx), r, ctx.now);
    let resp = &out.response;
    heartbeat_refused(
        ctx,
        ApiKey::ConsumerGroupHeartbeat,
        GroupKind::Consumer,
        (&r.group_id, &r.member_id, r.member_epoch),
        Refusal {
            code: resp.error_code,
            message: resp.error_message.as_deref(),
        },
    );
    b.queue_records(
        out.records,
        Cause::Heartbeat {
            member_id: &r.member_id,
            member_epoch: r.member_epoch,
        },
    );
    out.response
}

/// Logs at INFO a heartbeat answered with an error: a fenced member (FENCED_MEMBER_EPOCH,
/// UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID: it must rejoin) or a refused request. `(group, member,
/// member epoch)` are the request's.
fn heartbeat_refused(
    ctx: &Ctx<'_>,
    api: ApiKey,
    kind: GroupKind,
    (group, member, epoch): (&str, &str, i32),
    refusal: Refusal<'_>,
) {
    match ErrorCode::from_code(refusal.code) {
        Some(ErrorCode::None) => {}
        Some(
            ErrorCode::FencedMemberEpoch | ErrorCode::UnknownMemberId | ErrorCode::FencedInstanceId,
        ) => tracing::info!(
            "member {member} of {kind} {group} fenced: its heartbeat at member epoch {epoch} was answered {refusal}"
        ),
        _ => ctx.refused(
            api,
            format_args!("{kind} {group}, member {member:?} at member epoch {epoch}: {refusal}"),
        ),
    }
}

/// ConsumerGroupDescribe v0-1.
pub fn consumer_group_describe(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &ConsumerGroupDescribeRequest,
) -> ConsumerGroupDescribeResponse {
    b.coordinator.consumer_group_describe(&context(ctx), r)
}

/// StreamsGroupHeartbeat v0-1: [`GroupCoordinator::streams_group_heartbeat`]; the internal topics
/// it asks for are created here (then [`GroupCoordinator::set_topics`]), so a later heartbeat
/// finds them.
///
/// [`GroupCoordinator::streams_group_heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::streams_group_heartbeat
/// [`GroupCoordinator::set_topics`]: kwire_protocol::coordinator::GroupCoordinator::set_topics
pub fn streams_group_heartbeat(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &StreamsGroupHeartbeatRequest,
) -> StreamsGroupHeartbeatResponse {
    let out = b
        .coordinator
        .streams_group_heartbeat(&context(ctx), r, ctx.now);
    let resp = &out.response;
    heartbeat_refused(
        ctx,
        ApiKey::StreamsGroupHeartbeat,
        GroupKind::Streams,
        (&r.group_id, &r.member_id, r.member_epoch),
        Refusal {
            code: resp.error_code,
            message: resp.error_message.as_deref(),
        },
    );
    b.queue_records(
        out.records,
        Cause::Heartbeat {
            member_id: &r.member_id,
            member_epoch: r.member_epoch,
        },
    );
    let mut create: Vec<NewTopic> = Vec::new();
    for t in &out.topics_to_create {
        if b.topics.get(&t.name).is_some() || create.iter().any(|(n, ..)| *n == t.name) {
            continue;
        }
        if let Err(e) = valid_topic_name(&t.name) {
            tracing::warn!(topic = %t.name, error = %e, "cannot create a streams internal topic");
            continue;
        }
        if let Some(other) = b.topics.colliding(&t.name) {
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
    if !create.is_empty() {
        // Written together with the heartbeat's records: a failure breaks the durable state
        // (the handler's caller answers NOT_COORDINATOR).
        let origin = TopicOrigin::StreamsGroup {
            group_id: &r.group_id,
        };
        let _ = b.create_topics(create, ctx.now, origin);
    }
    out.response
}

/// StreamsGroupDescribe v0-1.
pub fn streams_group_describe(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    b.coordinator.streams_group_describe(&context(ctx), r)
}

/// StreamsGroupTopologyDescriptionUpdate v0 (KIP-1331):
/// [`GroupCoordinator::streams_group_topology_description_update`]; the stored description's
/// record is written before the answer, a refusal is logged.
///
/// [`GroupCoordinator::streams_group_topology_description_update`]: kwire_protocol::coordinator::GroupCoordinator::streams_group_topology_description_update
pub fn streams_group_topology_description_update(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &StreamsGroupTopologyDescriptionUpdateRequest,
) -> StreamsGroupTopologyDescriptionUpdateResponse {
    let out = b
        .coordinator
        .streams_group_topology_description_update(&context(ctx), r);
    if out.response.error_code != ErrorCode::None.code() {
        ctx.refused(
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
    b.queue_records(
        out.records,
        Cause::Request {
            api: "StreamsGroupTopologyDescriptionUpdate",
            member_id: &r.member_id,
        },
    );
    out.response
}

/// A classic request's outcome: its answer if the coordinator gave it at once (handed over by
/// [`Broker::drain_group_responses`] in [`super::handle`]), else a wait in request order.
fn wait(rx: tokio::sync::oneshot::Receiver<kwire_protocol::coordinator::GroupResponse>) -> Outcome {
    Outcome::Wait(GroupWait { answer: rx })
}

/// JoinGroup v0-9: [`GroupCoordinator::join_group`]; the answer waits for the join phase to end
/// (every member rejoined, the rebalance timeout, or the initial delay).
///
/// [`GroupCoordinator::join_group`]: kwire_protocol::coordinator::GroupCoordinator::join_group
pub fn join_group(b: &mut Broker, ctx: &Ctx<'_>, r: &JoinGroupRequest) -> Outcome {
    let (id, rx) = b.wait_group_response();
    let records = b.coordinator.join_group(&context(ctx), r, id, ctx.now);
    b.queue_records(
        records,
        Cause::Request {
            api: "JoinGroup",
            member_id: &r.member_id,
        },
    );
    wait(rx)
}

/// SyncGroup v0-5: [`GroupCoordinator::sync_group`]; a follower's answer waits for the leader's
/// SyncGroup with the assignment.
///
/// [`GroupCoordinator::sync_group`]: kwire_protocol::coordinator::GroupCoordinator::sync_group
pub fn sync_group(b: &mut Broker, ctx: &Ctx<'_>, r: &SyncGroupRequest) -> Outcome {
    let (id, rx) = b.wait_group_response();
    let records = b.coordinator.sync_group(&context(ctx), r, id, ctx.now);
    b.queue_records(
        records,
        Cause::Request {
            api: "SyncGroup",
            member_id: &r.member_id,
        },
    );
    wait(rx)
}

/// Heartbeat v0-4: [`GroupCoordinator::heartbeat`], answered at once. A fenced member
/// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION) is logged at INFO.
///
/// [`GroupCoordinator::heartbeat`]: kwire_protocol::coordinator::GroupCoordinator::heartbeat
pub fn heartbeat(b: &mut Broker, ctx: &Ctx<'_>, r: &HeartbeatRequest) -> Outcome {
    let (id, mut rx) = b.wait_group_response();
    let records = b.coordinator.heartbeat(&context(ctx), r, id, ctx.now);
    b.queue_records(
        records,
        Cause::Request {
            api: "Heartbeat",
            member_id: &r.member_id,
        },
    );
    b.drain_group_responses();
    if let Ok(kwire_protocol::coordinator::GroupResponse::Heartbeat(h)) = rx.try_recv() {
        match ErrorCode::from_code(h.error_code) {
            Some(
                ErrorCode::UnknownMemberId
                | ErrorCode::FencedInstanceId
                | ErrorCode::IllegalGeneration,
            ) => tracing::info!(
                "member {} of classic group {} fenced: its heartbeat at generation {} was answered {}",
                &*r.member_id,
                &*r.group_id,
                r.generation_id,
                Refusal {
                    code: h.error_code,
                    message: None
                }
            ),
            Some(ErrorCode::InvalidGroupId) => ctx.refused(
                ApiKey::Heartbeat,
                format_args!("group id {:?}: INVALID_GROUP_ID", &*r.group_id),
            ),
            _ => {}
        }
        return Outcome::Respond(h.into());
    }
    wait(rx)
}

/// LeaveGroup v0-5 (v3+ batches of members): [`GroupCoordinator::leave_group`], answered at
/// once.
///
/// [`GroupCoordinator::leave_group`]: kwire_protocol::coordinator::GroupCoordinator::leave_group
pub fn leave_group(b: &mut Broker, ctx: &Ctx<'_>, r: &LeaveGroupRequest) -> Outcome {
    let (id, rx) = b.wait_group_response();
    let records = b.coordinator.leave_group(&context(ctx), r, id, ctx.now);
    b.queue_records(
        records,
        Cause::Request {
            api: "LeaveGroup",
            member_id: &r.member_id,
        },
    );
    wait(rx)
}

/// DescribeGroups v0-6: [`GroupCoordinator::describe_groups`] (a group that is not a classic
/// group is `Dead`; GROUP_ID_NOT_FOUND at v6).
///
/// [`GroupCoordinator::describe_groups`]: kwire_protocol::coordinator::GroupCoordinator::describe_groups
pub fn describe_groups(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &DescribeGroupsRequest,
) -> DescribeGroupsResponse {
    b.coordinator.describe_groups(&context(ctx), r)
}

/// ListGroups v0-5: [`GroupCoordinator::list_groups`] (every group type, states and types
/// filters).
///
/// [`GroupCoordinator::list_groups`]: kwire_protocol::coordinator::GroupCoordinator::list_groups
pub fn list_groups(b: &mut Broker, ctx: &Ctx<'_>, r: &ListGroupsRequest) -> ListGroupsResponse {
    b.coordinator.list_groups(&context(ctx), r)
}

/// DeleteGroups v0-3: [`GroupCoordinator::delete_groups`] (GROUP_ID_NOT_FOUND,
/// NON_EMPTY_GROUP, INVALID_GROUP_ID per group); the committed offsets of every group deleted
/// are deleted too (written with the group's tombstone).
///
/// [`GroupCoordinator::delete_groups`]: kwire_protocol::coordinator::GroupCoordinator::delete_groups
pub fn delete_groups(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &DeleteGroupsRequest,
) -> DeleteGroupsResponse {
    let out = b.coordinator.delete_groups(&context(ctx), r, ctx.now);
    b.queue_records(
        out.records,
        Cause::Request {
            api: "DeleteGroups",
            member_id: "",
        },
    );
    for g in &out.response.results {
        if g.error_code == ErrorCode::None.code() {
            b.delete_offsets(&g.group_id);
        }
    }
    out.response
}

//! Group APIs: the KIP-848 and KIP-1071 heartbeats and describes (handed to the coordinator),
//! and the classic DescribeGroups / ListGroups, answered from the coordinator's groups.

use std::collections::BTreeMap;

use kwire_protocol::coordinator::RequestContext;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::describe_groups_response::{DescribeGroupsResponse, DescribedGroup};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::list_groups_response::{ListGroupsResponse, ListedGroup};
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use kwire_protocol::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::ApiKey;

use super::Ctx;
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

/// StreamsGroupHeartbeat v0: [`GroupCoordinator::streams_group_heartbeat`]; the internal topics
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

/// StreamsGroupDescribe v0.
pub fn streams_group_describe(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    b.coordinator.streams_group_describe(&context(ctx), r)
}

/// The groups ListGroups shows: (id, protocol type, state, type).
fn all_groups(b: &Broker) -> BTreeMap<String, (&'static str, &'static str, &'static str)> {
    let mut out = BTreeMap::new();
    // Groups known only from committed offsets are classic groups without members, as in
    // Kafka (a commit creates an empty classic group).
    for (g, offsets) in &b.offsets {
        if !offsets.is_empty() {
            out.insert(g.clone(), ("", "Empty", "classic"));
        }
    }
    for (id, g) in b.coordinator.consumer_groups() {
        out.insert(id.clone(), ("consumer", g.state.as_str(), "consumer"));
    }
    for (id, g) in b.coordinator.streams_groups() {
        out.insert(id.clone(), ("streams", g.state.as_str(), "streams"));
    }
    out
}

/// DescribeGroups v0-5 (the classic API). The server has no classic groups: a consumer or
/// streams group, or an unknown id, is described as Kafka describes a group that is not a
/// classic group, state `Dead` with no error; a group known only from committed offsets is an
/// `Empty` classic group. A blank id is INVALID_GROUP_ID.
pub fn describe_groups(
    b: &mut Broker,
    _ctx: &Ctx<'_>,
    r: &DescribeGroupsRequest,
) -> DescribeGroupsResponse {
    let groups = r
        .groups
        .iter()
        .map(|id| {
            if id.trim().is_empty() {
                return DescribedGroup {
                    error_code: ErrorCode::InvalidGroupId.code(),
                    group_id: id.clone(),
                    authorized_operations: i32::MIN,
                    ..Default::default()
                };
            }
            let classic_empty = b.coordinator.group(id).is_none()
                && b.coordinator.streams_group(id).is_none()
                && b.offsets.get(&**id).is_some_and(|o| !o.is_empty());
            DescribedGroup {
                error_code: ErrorCode::None.code(),
                group_id: id.clone(),
                group_state: if classic_empty { "Empty" } else { "Dead" }.into(),
                protocol_type: "".into(),
                protocol_data: "".into(),
                members: Vec::new(),
                authorized_operations: i32::MIN,
                ..Default::default()
            }
        })
        .collect();
    DescribeGroupsResponse {
        throttle_time_ms: 0,
        groups,
        ..Default::default()
    }
}

/// ListGroups v0-5: every consumer group (protocol type `consumer`), streams group (`streams`)
/// and group known only from committed offsets (classic, `Empty`), filtered by the v4+ states
/// and v5+ types filters (case-insensitive, as Kafka).
pub fn list_groups(b: &mut Broker, ctx: &Ctx<'_>, r: &ListGroupsRequest) -> ListGroupsResponse {
    let states: Vec<String> = r.states_filter.iter().map(|s| s.to_lowercase()).collect();
    let types: Vec<String> = r.types_filter.iter().map(|s| s.to_lowercase()).collect();
    let groups = all_groups(b)
        .into_iter()
        .filter(|(_, (_, state, _))| states.is_empty() || states.contains(&state.to_lowercase()))
        .filter(|(_, (_, _, ty))| types.is_empty() || types.contains(&ty.to_string()))
        .map(|(id, (protocol, state, ty))| ListedGroup {
            group_id: id.into(),
            protocol_type: protocol.into(),
            group_state: if ctx.version >= 4 { state } else { "" }.into(),
            group_type: if ctx.version >= 5 { ty } else { "" }.into(),
            ..Default::default()
        })
        .collect();
    ListGroupsResponse {
        throttle_time_ms: 0,
        error_code: ErrorCode::None.code(),
        groups,
        ..Default::default()
    }
}

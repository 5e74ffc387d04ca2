//! StreamsGroupDescribe (key 89, v0-1; §2.8; Kafka 4.4's `StreamsGroup.asDescribedGroup`), with
//! kwire's task offsets (D2) and the stored topology description (KIP-1331, v1).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::description;
use super::super::group::{StreamsGroup, StreamsGroupMember, StreamsGroups};
use super::super::tasks::{TaskOffsets, TaskSet, TasksTuple};
use super::super::topology::{
    ConfiguredSubtopology, ConfiguredTopology, StreamsTopology, TopicInfo,
};
use super::side::{StreamsSide, Volatile};
use crate::coordinator::context::{blank, Others};
use crate::error::ErrorCode;
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response::{
    self as describe, StreamsGroupDescribeResponse,
};
use crate::wire::KStr;

/// Handles a StreamsGroupDescribe (§2.8): per group, INVALID_GROUP_ID (24) for a blank id,
/// GROUP_ID_NOT_FOUND (69) for a missing group or one of another type; otherwise the state,
/// epochs, topology (configured when ready, else as persisted), members with their task
/// offsets, assignments and targets. `AuthorizedOperations` is `i32::MIN` (not requested / not
/// computed: ACLs are the caller's).
pub(crate) fn describe(
    side: &StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    req: &StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    let groups = req
        .group_ids
        .iter()
        .map(|id| describe_group(side, groups, others, id, req.include_topology_description))
        .collect();
    StreamsGroupDescribeResponse {
        throttle_time_ms: 0,
        groups,
        ..Default::default()
    }
}

fn describe_group(
    side: &StreamsSide,
    groups: &StreamsGroups,
    others: &Others<'_>,
    id: &KStr,
    include_description: bool,
) -> describe::DescribedGroup {
    let error = |code, msg: Option<String>| describe::DescribedGroup {
        group_id: id.clone(),
        error_code: code,
        error_message: msg.map(Into::into),
        authorized_operations: i32::MIN,
        ..Default::default()
    };
    if blank(id) {
        return error(ErrorCode::InvalidGroupId.code(), None);
    }
    let Some(g) = groups.get(&**id) else {
        let msg = if others.hold(id) {
            format!("Group {} is not a streams group.", &**id)
        } else {
            format!("Group {} not found.", &**id)
        };
        return error(ErrorCode::GroupIdNotFound.code(), Some(msg));
    };
    let vol = side.volatile.get(&**id);
    let configured = vol
        .and_then(Volatile::configured_ok)
        .filter(|c| c.is_ready());
    let topology = g.topology.as_ref().map(|t| topology_of(t, configured));
    // KIP-1331 (v1): the stored description when asked for and of the current topology epoch.
    let stored = g.topology_description.as_ref().filter(|d| {
        side.config.topology_descriptions && Some(d.epoch) == topology.as_ref().map(|t| t.epoch)
    });
    let (description_status, topology_description) = match (include_description, stored) {
        (false, _) => (description::STATUS_NOT_REQUESTED, None),
        (true, None) => (description::STATUS_NOT_STORED, None),
        (true, Some(d)) => (description::STATUS_AVAILABLE, Some(d.to_describe())),
    };
    describe::DescribedGroup {
        error_code: ErrorCode::None.code(),
        error_message: None,
        group_id: id.clone(),
        group_state: g.state.as_str().into(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        topology,
        members: g.members.values().map(|m| member_of(g, vol, m)).collect(),
        authorized_operations: i32::MIN,
        topology_description,
        topology_description_status: description_status,
        assignor_name: Some(side.config.assignor.name().to_string().into()),
        ..Default::default()
    }
}

fn info(i: &TopicInfo) -> describe::TopicInfo {
    describe::TopicInfo {
        name: i.name.clone().into(),
        partitions: i.partitions,
        replication_factor: i.replication_factor,
        topic_configs: i
            .topic_configs
            .iter()
            .map(|(k, v)| describe::KeyValue {
                key: k.clone().into(),
                value: v.clone().into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn names<'a>(list: impl IntoIterator<Item = &'a String>) -> Vec<KStr> {
    list.into_iter().map(|x| x.clone().into()).collect()
}

/// The described topology: the configured subtopologies when the topology is ready (resolved
/// partition counts), else the subtopologies as persisted.
fn topology_of(t: &StreamsTopology, configured: Option<&ConfiguredTopology>) -> describe::Topology {
    let subtopologies = match configured.and_then(|c| c.subtopologies.as_ref()) {
        Some(subs) => subs.iter().map(|(sid, s)| configured_sub(sid, s)).collect(),
        None => t
            .subtopologies
            .iter()
            .map(|s| describe::Subtopology {
                subtopology_id: s.subtopology_id.clone().into(),
                source_topics: names(&s.source_topics),
                repartition_sink_topics: names(&s.repartition_sink_topics),
                state_changelog_topics: s.state_changelog_topics.iter().map(info).collect(),
                repartition_source_topics: s.repartition_source_topics.iter().map(info).collect(),
                ..Default::default()
            })
            .collect(),
    };
    describe::Topology {
        epoch: t.epoch,
        subtopologies: Some(subtopologies),
        ..Default::default()
    }
}

fn configured_sub(sid: &str, s: &ConfiguredSubtopology) -> describe::Subtopology {
    describe::Subtopology {
        subtopology_id: sid.to_string().into(),
        source_topics: names(&s.source_topics),
        repartition_sink_topics: names(&s.repartition_sink_topics),
        state_changelog_topics: s.state_changelog_topics.values().map(info).collect(),
        repartition_source_topics: s.repartition_source_topics.values().map(info).collect(),
        ..Default::default()
    }
}

fn ids(s: &TaskSet) -> Vec<describe::TaskIds> {
    s.iter()
        .map(|(id, ps)| describe::TaskIds {
            subtopology_id: id.clone().into(),
            partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
            ..Default::default()
        })
        .collect()
}

fn assignment(t: &TasksTuple) -> describe::Assignment {
    describe::Assignment {
        active_tasks: ids(&t.active),
        standby_tasks: ids(&t.standby),
        warmup_tasks: ids(&t.warmup),
        ..Default::default()
    }
}

fn offsets(o: &TaskOffsets) -> Vec<describe::TaskOffset> {
    o.iter()
        .map(|((s, p), off)| describe::TaskOffset {
            subtopology_id: s.clone().into(),
            partition: *p,
            offset: *off,
            ..Default::default()
        })
        .collect()
}

/// One described member: metadata, task offsets (D2), assignment and target.
fn member_of(g: &StreamsGroup, vol: Option<&Volatile>, m: &StreamsGroupMember) -> describe::Member {
    let no_offsets = (TaskOffsets::new(), TaskOffsets::new());
    let (o, e) = vol
        .and_then(|v| v.task_offsets.get(&m.member_id))
        .unwrap_or(&no_offsets);
    let empty = TasksTuple::default();
    describe::Member {
        member_id: m.member_id.clone().into(),
        member_epoch: m.member_epoch,
        instance_id: m.instance_id.clone().map(Into::into),
        rack_id: m.rack_id.clone().map(Into::into),
        client_id: m.client_id.clone().into(),
        client_host: m.client_host.clone().into(),
        topology_epoch: m.topology_epoch,
        process_id: m.process_id.clone().into(),
        user_endpoint: m.user_endpoint.as_ref().map(|e| describe::Endpoint {
            host: e.host.clone().into(),
            port: e.port,
            ..Default::default()
        }),
        client_tags: m
            .client_tags
            .iter()
            .map(|(k, v)| describe::KeyValue {
                key: k.clone().into(),
                value: v.clone().into(),
                ..Default::default()
            })
            .collect(),
        task_offsets: offsets(o),
        task_end_offsets: offsets(e),
        assignment: assignment(&m.assigned),
        target_assignment: assignment(g.targets.get(&m.member_id).unwrap_or(&empty)),
        is_classic: false,
        ..Default::default()
    }
}

//! ConsumerGroupDescribe (KIP-848; docs/coordinator.md §1.11; Kafka's
//! `GroupMetadataManager.consumerGroupDescribe` and `ConsumerGroup.asDescribedGroup`): reads
//! the state as it stands after the last call.

use std::collections::BTreeMap;

use super::targets::preferred_assignor_name;
use super::ConsumerSide;
use crate::coordinator::consumer::assignor::Assignment;
use crate::coordinator::consumer::group::{ConsumerGroup, ConsumerGroupMember, ConsumerGroups};
use crate::coordinator::context::{blank, Context, TopicMetadata};
use crate::error::ErrorCode;
use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::{
    self as describe, ConsumerGroupDescribeResponse, DescribedGroup,
};
use crate::wire::{KStr, Uuid};

/// Handles a ConsumerGroupDescribe (docs/coordinator.md §1.11): one entry per requested id, in
/// order. An empty (or blank) id gives INVALID_GROUP_ID with GroupId ""; a missing group gives
/// GROUP_ID_NOT_FOUND `Group G not found.` (`Group G is not a consumer group.` when
/// `foreign(G)`: another type holds it). AuthorizedOperations is left at INT32_MIN (the caller,
/// as KafkaApis, fills it in when asked). State is read as it stands after the last call (a
/// sans-IO coordinator commits every write at once).
pub(crate) fn describe(
    ctx: &Context,
    side: &ConsumerSide,
    groups: &ConsumerGroups,
    foreign: &dyn Fn(&str) -> bool,
    req: &ConsumerGroupDescribeRequest,
) -> ConsumerGroupDescribeResponse {
    let groups = req
        .group_ids
        .iter()
        .map(|id| {
            if blank(id) {
                return DescribedGroup {
                    group_id: "".into(),
                    error_code: ErrorCode::InvalidGroupId.code(),
                    authorized_operations: i32::MIN,
                    ..Default::default()
                };
            }
            match groups.get(&**id) {
                Some(g) => described(ctx, side, g),
                None => not_found(id, foreign(id)),
            }
        })
        .collect();
    ConsumerGroupDescribeResponse {
        throttle_time_ms: 0,
        groups,
        ..Default::default()
    }
}

/// GROUP_ID_NOT_FOUND for `id`.
fn not_found(id: &KStr, foreign: bool) -> DescribedGroup {
    let message = if foreign {
        format!("Group {} is not a consumer group.", &**id)
    } else {
        format!("Group {} not found.", &**id)
    };
    DescribedGroup {
        group_id: id.clone(),
        error_code: ErrorCode::GroupIdNotFound.code(),
        error_message: Some(message.into()),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// The entry of group `g`: state, epochs, the assignor describe reports, every member.
fn described(ctx: &Context, side: &ConsumerSide, g: &ConsumerGroup) -> DescribedGroup {
    let by_id: BTreeMap<Uuid, &TopicMetadata> =
        ctx.topics.values().map(|t| (t.topic_id, t)).collect();
    DescribedGroup {
        error_code: ErrorCode::None.code(),
        error_message: None,
        group_id: g.group_id.clone().into(),
        group_state: g.state.as_str().into(),
        group_epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        assignor_name: preferred_assignor_name(&side.config.assignors, g).into(),
        members: g.members.values().map(|m| member(g, m, &by_id)).collect(),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// One member's entry: its fields, current assignment and target (topics missing from the
/// metadata left out), MemberType 1 (consumer) or 0 (classic) for v1.
fn member(
    g: &ConsumerGroup,
    m: &ConsumerGroupMember,
    by_id: &BTreeMap<Uuid, &TopicMetadata>,
) -> describe::Member {
    let empty = Assignment::new();
    describe::Member {
        member_id: m.member_id.clone().into(),
        instance_id: m.instance_id.clone().map(Into::into),
        rack_id: m.rack_id.clone().map(Into::into),
        member_epoch: m.member_epoch,
        client_id: m.client_id.clone().into(),
        client_host: m.client_host.clone().into(),
        subscribed_topic_names: m
            .subscribed_topic_names
            .iter()
            .map(|s| s.clone().into())
            .collect(),
        // Kafka 4.4 writes "" (not null) for a member without a regex
        // (ConsumerGroupMember.asConsumerGroupDescribeMember; observed by the Kafka oracle,
        // tests/tests/it/kafka_oracle).
        subscribed_topic_regex: Some(m.subscribed_topic_regex.clone().unwrap_or_default().into()),
        assignment: described_assignment(&m.assigned, by_id),
        target_assignment: described_assignment(
            g.targets.get(&m.member_id).unwrap_or(&empty),
            by_id,
        ),
        // ConsumerGroupDescribe v1: 0 classic, 1 consumer (KIP-848).
        member_type: if m.classic.is_some() { 0 } else { 1 },
        ..Default::default()
    }
}

/// An assignment by topic id and name; topics the metadata does not know are left out.
fn described_assignment(
    a: &Assignment,
    by_id: &BTreeMap<Uuid, &TopicMetadata>,
) -> describe::Assignment {
    describe::Assignment {
        topic_partitions: a
            .iter()
            .filter_map(|(t, ps)| {
                by_id.get(t).map(|tm| describe::TopicPartitions {
                    topic_id: *t,
                    topic_name: tm.name.clone().into(),
                    partitions: ps.iter().copied().collect(),
                    ..Default::default()
                })
            })
            .collect(),
        ..Default::default()
    }
}

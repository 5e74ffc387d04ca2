//! The records the streams-group coordinator writes: typed key/value pairs generated from
//! kwire's own specs in `schemas/` (`KwireStreamsGroup*Key` / `*Value`, docs/coordinator.md, D6).
//! A value of `None` is a tombstone.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;

use crate::generated::kwire_streams_group_current_member_assignment_key::KwireStreamsGroupCurrentMemberAssignmentKey;
use crate::generated::kwire_streams_group_current_member_assignment_value::{
    self as current_value, KwireStreamsGroupCurrentMemberAssignmentValue,
};
use crate::generated::kwire_streams_group_member_metadata_key::KwireStreamsGroupMemberMetadataKey;
use crate::generated::kwire_streams_group_member_metadata_value::{
    self as member_value, KwireStreamsGroupMemberMetadataValue,
};
use crate::generated::kwire_streams_group_metadata_key::KwireStreamsGroupMetadataKey;
use crate::generated::kwire_streams_group_metadata_value::{
    self as metadata_value, KwireStreamsGroupMetadataValue,
};
use crate::generated::kwire_streams_group_target_assignment_member_key::KwireStreamsGroupTargetAssignmentMemberKey;
use crate::generated::kwire_streams_group_target_assignment_member_value::{
    self as target_value, KwireStreamsGroupTargetAssignmentMemberValue,
};
use crate::generated::kwire_streams_group_target_assignment_metadata_key::KwireStreamsGroupTargetAssignmentMetadataKey;
use crate::generated::kwire_streams_group_target_assignment_metadata_value::KwireStreamsGroupTargetAssignmentMetadataValue;
use crate::generated::kwire_streams_group_topology_description_key::KwireStreamsGroupTopologyDescriptionKey;
use crate::generated::kwire_streams_group_topology_description_value::{
    self as description_value, KwireStreamsGroupTopologyDescriptionValue,
};
use crate::generated::kwire_streams_group_topology_key::KwireStreamsGroupTopologyKey;
use crate::generated::kwire_streams_group_topology_value::{
    self as topology_value, KwireStreamsGroupTopologyValue,
};

use super::description::{DescriptionNode, TopologyDescription};
use super::group::{Endpoint, StreamsGroupMember, StreamsMemberState};
use super::tasks::{TaskSet, TasksTuple};
use super::topology::{CopartitionGroup, StreamsTopology, Subtopology, TopicInfo};

/// One record of the streams-group coordinator: a typed key and an optional value
/// (`None` = tombstone). Record-type numbers ([`StreamsRecord::record_type`]) are kwire's own.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamsRecord {
    /// Group epoch, metadata hash, validated topology epoch, assignment configs (type 17).
    GroupMetadata(
        KwireStreamsGroupMetadataKey,
        Option<KwireStreamsGroupMetadataValue>,
    ),
    /// The group's topology (type 18).
    Topology(
        KwireStreamsGroupTopologyKey,
        Option<KwireStreamsGroupTopologyValue>,
    ),
    /// A member's metadata (type 19); the tombstone removes the member.
    MemberMetadata(
        KwireStreamsGroupMemberMetadataKey,
        Option<KwireStreamsGroupMemberMetadataValue>,
    ),
    /// A member's target tasks (type 20).
    TargetAssignmentMember(
        KwireStreamsGroupTargetAssignmentMemberKey,
        Option<KwireStreamsGroupTargetAssignmentMemberValue>,
    ),
    /// The assignment epoch (type 21).
    TargetAssignmentMetadata(
        KwireStreamsGroupTargetAssignmentMetadataKey,
        Option<KwireStreamsGroupTargetAssignmentMetadataValue>,
    ),
    /// A member's current assignment: epochs, state, assigned and pending tasks (type 22).
    CurrentMemberAssignment(
        KwireStreamsGroupCurrentMemberAssignmentKey,
        Option<KwireStreamsGroupCurrentMemberAssignmentValue>,
    ),
    /// The topology description a member pushed with StreamsGroupTopologyDescriptionUpdate
    /// (type 25, KIP-1331); the tombstone forgets it.
    TopologyDescription(
        KwireStreamsGroupTopologyDescriptionKey,
        Option<KwireStreamsGroupTopologyDescriptionValue>,
    ),
}

impl StreamsRecord {
    /// kwire's record-type number (D6): 17 group metadata, 18 topology, 19 member metadata,
    /// 20 member target, 21 assignment epoch, 22 current member assignment, 25 topology
    /// description (23 and 24 are the classic-group records).
    pub fn record_type(&self) -> i16 {
        match self {
            StreamsRecord::GroupMetadata(..) => 17,
            StreamsRecord::Topology(..) => 18,
            StreamsRecord::MemberMetadata(..) => 19,
            StreamsRecord::TargetAssignmentMember(..) => 20,
            StreamsRecord::TargetAssignmentMetadata(..) => 21,
            StreamsRecord::CurrentMemberAssignment(..) => 22,
            StreamsRecord::TopologyDescription(..) => 25,
        }
    }

    /// The group the record belongs to.
    pub fn group_id(&self) -> &str {
        match self {
            StreamsRecord::GroupMetadata(k, _) => &k.group_id,
            StreamsRecord::Topology(k, _) => &k.group_id,
            StreamsRecord::MemberMetadata(k, _) => &k.group_id,
            StreamsRecord::TargetAssignmentMember(k, _) => &k.group_id,
            StreamsRecord::TargetAssignmentMetadata(k, _) => &k.group_id,
            StreamsRecord::CurrentMemberAssignment(k, _) => &k.group_id,
            StreamsRecord::TopologyDescription(k, _) => &k.group_id,
        }
    }

    /// Whether this is a tombstone.
    pub fn is_tombstone(&self) -> bool {
        match self {
            StreamsRecord::GroupMetadata(_, v) => v.is_none(),
            StreamsRecord::Topology(_, v) => v.is_none(),
            StreamsRecord::MemberMetadata(_, v) => v.is_none(),
            StreamsRecord::TargetAssignmentMember(_, v) => v.is_none(),
            StreamsRecord::TargetAssignmentMetadata(_, v) => v.is_none(),
            StreamsRecord::CurrentMemberAssignment(_, v) => v.is_none(),
            StreamsRecord::TopologyDescription(_, v) => v.is_none(),
        }
    }

    pub(crate) fn group_metadata(
        gid: &str,
        epoch: i32,
        hash: u64,
        validated_topology_epoch: i32,
        configs: &BTreeMap<String, String>,
    ) -> Self {
        StreamsRecord::GroupMetadata(
            KwireStreamsGroupMetadataKey {
                group_id: gid.to_string().into(),
            },
            Some(KwireStreamsGroupMetadataValue {
                epoch,
                metadata_hash: hash as i64,
                validated_topology_epoch,
                last_assignment_configs: configs
                    .iter()
                    .map(|(k, v)| metadata_value::KeyValue {
                        key: k.clone().into(),
                        value: v.clone().into(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn topology(gid: &str, t: &StreamsTopology) -> Self {
        let info = |i: &TopicInfo| topology_value::TopicInfo {
            name: i.name.clone().into(),
            partitions: i.partitions,
            replication_factor: i.replication_factor,
            topic_configs: i
                .topic_configs
                .iter()
                .map(|(k, v)| topology_value::TopicConfig {
                    key: k.clone().into(),
                    value: v.clone().into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let strs = |v: &[String]| v.iter().map(|s| s.clone().into()).collect();
        StreamsRecord::Topology(
            KwireStreamsGroupTopologyKey {
                group_id: gid.to_string().into(),
            },
            Some(KwireStreamsGroupTopologyValue {
                epoch: t.epoch,
                subtopologies: t
                    .subtopologies
                    .iter()
                    .map(|s| topology_value::Subtopology {
                        subtopology_id: s.subtopology_id.clone().into(),
                        source_topics: strs(&s.source_topics),
                        source_topic_regex: strs(&s.source_topic_regex),
                        state_changelog_topics: s.state_changelog_topics.iter().map(info).collect(),
                        repartition_sink_topics: strs(&s.repartition_sink_topics),
                        repartition_source_topics: s
                            .repartition_source_topics
                            .iter()
                            .map(info)
                            .collect(),
                        copartition_groups: s
                            .copartition_groups
                            .iter()
                            .map(|c| topology_value::CopartitionGroup {
                                source_topics: c.source_topics.clone().into(),
                                source_topic_regex: c.source_topic_regex.clone().into(),
                                repartition_source_topics: c
                                    .repartition_source_topics
                                    .clone()
                                    .into(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn member_metadata(gid: &str, m: &StreamsGroupMember) -> Self {
        StreamsRecord::MemberMetadata(
            KwireStreamsGroupMemberMetadataKey {
                group_id: gid.to_string().into(),
                member_id: m.member_id.clone().into(),
            },
            Some(KwireStreamsGroupMemberMetadataValue {
                instance_id: m.instance_id.clone().map(Into::into),
                rack_id: m.rack_id.clone().map(Into::into),
                client_id: m.client_id.clone().into(),
                client_host: m.client_host.clone().into(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                topology_epoch: m.topology_epoch,
                process_id: m.process_id.clone().into(),
                user_endpoint: m.user_endpoint.as_ref().map(|e| member_value::Endpoint {
                    host: e.host.clone().into(),
                    port: e.port,
                    ..Default::default()
                }),
                client_tags: m
                    .client_tags
                    .iter()
                    .map(|(k, v)| member_value::KeyValue {
                        key: k.clone().into(),
                        value: v.clone().into(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn member_metadata_tombstone(gid: &str, mid: &str) -> Self {
        StreamsRecord::MemberMetadata(
            KwireStreamsGroupMemberMetadataKey {
                group_id: gid.to_string().into(),
                member_id: mid.to_string().into(),
            },
            None,
        )
    }

    pub(crate) fn target(gid: &str, mid: &str, t: &TasksTuple) -> Self {
        let conv = |s: &TaskSet| -> Vec<target_value::TaskIds> {
            s.iter()
                .filter(|(_, ps)| !ps.is_empty())
                .map(|(id, ps)| target_value::TaskIds {
                    subtopology_id: id.clone().into(),
                    partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
                    ..Default::default()
                })
                .collect()
        };
        StreamsRecord::TargetAssignmentMember(
            KwireStreamsGroupTargetAssignmentMemberKey {
                group_id: gid.to_string().into(),
                member_id: mid.to_string().into(),
            },
            Some(KwireStreamsGroupTargetAssignmentMemberValue {
                active_tasks: conv(&t.active),
                standby_tasks: conv(&t.standby),
                warmup_tasks: conv(&t.warmup),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn target_tombstone(gid: &str, mid: &str) -> Self {
        StreamsRecord::TargetAssignmentMember(
            KwireStreamsGroupTargetAssignmentMemberKey {
                group_id: gid.to_string().into(),
                member_id: mid.to_string().into(),
            },
            None,
        )
    }

    pub(crate) fn target_epoch(gid: &str, epoch: i32) -> Self {
        StreamsRecord::TargetAssignmentMetadata(
            KwireStreamsGroupTargetAssignmentMetadataKey {
                group_id: gid.to_string().into(),
            },
            Some(KwireStreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                ..Default::default()
            }),
        )
    }

    pub(crate) fn current(gid: &str, m: &StreamsGroupMember) -> Self {
        let conv = |s: &TaskSet| -> Vec<current_value::TaskIds> {
            s.iter()
                .filter(|(_, ps)| !ps.is_empty())
                .map(|(id, ps)| current_value::TaskIds {
                    subtopology_id: id.clone().into(),
                    partitions: ps.iter().copied().collect::<Vec<i32>>().into(),
                    ..Default::default()
                })
                .collect()
        };
        StreamsRecord::CurrentMemberAssignment(
            KwireStreamsGroupCurrentMemberAssignmentKey {
                group_id: gid.to_string().into(),
                member_id: m.member_id.clone().into(),
            },
            Some(KwireStreamsGroupCurrentMemberAssignmentValue {
                member_epoch: m.member_epoch,
                previous_member_epoch: m.previous_member_epoch,
                state: m.state.to_byte(),
                active_tasks: conv(&m.assigned.active),
                standby_tasks: conv(&m.assigned.standby),
                warmup_tasks: conv(&m.assigned.warmup),
                active_tasks_pending_revocation: conv(&m.pending_revocation.active),
                standby_tasks_pending_revocation: conv(&m.pending_revocation.standby),
                warmup_tasks_pending_revocation: conv(&m.pending_revocation.warmup),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn current_tombstone(gid: &str, mid: &str) -> Self {
        StreamsRecord::CurrentMemberAssignment(
            KwireStreamsGroupCurrentMemberAssignmentKey {
                group_id: gid.to_string().into(),
                member_id: mid.to_string().into(),
            },
            None,
        )
    }

    /// The record (type 25) that stores description `d` for group `gid` (KIP-1331).
    pub(crate) fn topology_description(gid: &str, d: &TopologyDescription) -> Self {
        let node = |n: &DescriptionNode| description_value::Node {
            name: n.name.clone().into(),
            node_type: n.node_type,
            source_topics: n.source_topics.iter().map(|s| s.clone().into()).collect(),
            sink_topic: n.sink_topic.clone().map(Into::into),
            stores: n.stores.iter().map(|s| s.clone().into()).collect(),
            successors: n.successors.iter().map(|s| s.clone().into()).collect(),
            ..Default::default()
        };
        StreamsRecord::TopologyDescription(
            KwireStreamsGroupTopologyDescriptionKey {
                group_id: gid.to_string().into(),
            },
            Some(KwireStreamsGroupTopologyDescriptionValue {
                topology_epoch: d.epoch,
                subtopologies: d
                    .subtopologies
                    .iter()
                    .map(|(id, nodes)| description_value::Subtopology {
                        subtopology_id: id.clone().into(),
                        nodes: nodes.iter().map(node).collect(),
                        ..Default::default()
                    })
                    .collect(),
                global_stores: d
                    .global_stores
                    .iter()
                    .map(|(s, p)| description_value::GlobalStore {
                        source: node(s),
                        processor: node(p),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
        )
    }
}

fn tasks_from<'a>(
    list: impl IntoIterator<Item = (&'a str, &'a crate::wire::PrimArray<i32>)>,
) -> TaskSet {
    let mut s = TaskSet::new();
    for (id, ps) in list {
        if !ps.is_empty() {
            s.entry(id.to_string()).or_default().extend(ps.iter());
        }
    }
    s
}

/// Converts a generated topology message (the heartbeat request's `Topology` or the topology
/// record's value: the same fields in two generated modules) into a [`StreamsTopology`].
macro_rules! topology_from {
    ($t:expr) => {{
        let t = $t;
        let strs = |v: &[crate::wire::KStr]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        StreamsTopology {
            epoch: t.epoch,
            subtopologies: t
                .subtopologies
                .iter()
                .map(|s| Subtopology {
                    subtopology_id: s.subtopology_id.to_string(),
                    source_topics: strs(&s.source_topics),
                    source_topic_regex: strs(&s.source_topic_regex),
                    state_changelog_topics: $crate::coordinator::streams::records::topology_from!(@infos s.state_changelog_topics),
                    repartition_sink_topics: strs(&s.repartition_sink_topics),
                    repartition_source_topics: $crate::coordinator::streams::records::topology_from!(@infos s.repartition_source_topics),
                    copartition_groups: s
                        .copartition_groups
                        .iter()
                        .map(|c| CopartitionGroup {
                            source_topics: c.source_topics.iter().collect(),
                            source_topic_regex: c.source_topic_regex.iter().collect(),
                            repartition_source_topics: c.repartition_source_topics.iter().collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }};
    (@infos $list:expr) => {
        $list
            .iter()
            .map(|i| TopicInfo {
                name: i.name.to_string(),
                partitions: i.partitions,
                replication_factor: i.replication_factor,
                topic_configs: i
                    .topic_configs
                    .iter()
                    .map(|c| (c.key.to_string(), c.value.to_string()))
                    .collect(),
            })
            .collect()
    };
}
pub(crate) use topology_from;

pub(crate) fn topology_from_record(v: &KwireStreamsGroupTopologyValue) -> StreamsTopology {
    topology_from!(v)
}

pub(crate) fn member_metadata_into(
    v: &KwireStreamsGroupMemberMetadataValue,
    m: &mut StreamsGroupMember,
) {
    m.instance_id = v.instance_id.as_ref().map(|s| s.to_string());
    m.rack_id = v.rack_id.as_ref().map(|s| s.to_string());
    m.client_id = v.client_id.to_string();
    m.client_host = v.client_host.to_string();
    m.rebalance_timeout_ms = v.rebalance_timeout_ms;
    m.topology_epoch = v.topology_epoch;
    m.process_id = v.process_id.to_string();
    m.user_endpoint = v.user_endpoint.as_ref().map(|e| Endpoint {
        host: e.host.to_string(),
        port: e.port,
    });
    m.client_tags = v
        .client_tags
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect();
}

pub(crate) fn target_from_record(v: &KwireStreamsGroupTargetAssignmentMemberValue) -> TasksTuple {
    let conv = |l: &[target_value::TaskIds]| {
        tasks_from(l.iter().map(|t| (&*t.subtopology_id, &t.partitions)))
    };
    TasksTuple {
        active: conv(&v.active_tasks),
        standby: conv(&v.standby_tasks),
        warmup: conv(&v.warmup_tasks),
    }
}

pub(crate) fn current_into(
    v: &KwireStreamsGroupCurrentMemberAssignmentValue,
    m: &mut StreamsGroupMember,
) {
    let conv = |l: &[current_value::TaskIds]| {
        tasks_from(l.iter().map(|t| (&*t.subtopology_id, &t.partitions)))
    };
    m.member_epoch = v.member_epoch;
    m.previous_member_epoch = v.previous_member_epoch;
    m.state = StreamsMemberState::from_byte(v.state);
    m.assigned = TasksTuple {
        active: conv(&v.active_tasks),
        standby: conv(&v.standby_tasks),
        warmup: conv(&v.warmup_tasks),
    };
    m.pending_revocation = TasksTuple {
        active: conv(&v.active_tasks_pending_revocation),
        standby: conv(&v.standby_tasks_pending_revocation),
        warmup: conv(&v.warmup_tasks_pending_revocation),
    };
}

/// The description a type-25 record holds.
pub(crate) fn description_from_record(
    v: &KwireStreamsGroupTopologyDescriptionValue,
) -> TopologyDescription {
    let node = |n: &description_value::Node| DescriptionNode {
        name: n.name.to_string(),
        node_type: n.node_type,
        source_topics: n.source_topics.iter().map(|s| s.to_string()).collect(),
        sink_topic: n.sink_topic.as_ref().map(|s| s.to_string()),
        stores: n.stores.iter().map(|s| s.to_string()).collect(),
        successors: n.successors.iter().map(|s| s.to_string()).collect(),
    };
    TopologyDescription {
        epoch: v.topology_epoch,
        subtopologies: v
            .subtopologies
            .iter()
            .map(|s| {
                (
                    s.subtopology_id.to_string(),
                    s.nodes.iter().map(node).collect(),
                )
            })
            .collect(),
        global_stores: v
            .global_stores
            .iter()
            .map(|g| (node(&g.source), node(&g.processor)))
            .collect(),
    }
}

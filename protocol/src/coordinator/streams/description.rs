//! Topology descriptions of streams groups (KIP-1331, Kafka 4.4): what a member pushes with
//! `StreamsGroupTopologyDescriptionUpdate` (key 93), what kwire keeps per group in a record of
//! type 25 (`KwireStreamsGroupTopologyDescription*`, docs/coordinator.md §Streams groups,
//! "Topology descriptions") and what `StreamsGroupDescribe` v1 returns.
//!
//! Kafka 4.4 hands a pushed description to a broker plugin
//! (`group.streams.topology.description.plugin`, none by default) and records only the epoch it
//! stored; kwire keeps the description itself. The conversion follows Kafka's
//! `StreamsGroupTopologyDescriptionConverter`: a node keeps only the fields of its type (source:
//! topics; processor: stores; sink: topic; all: successors), each list without repeats in first-seen
//! order, a node type other than 1-3 is INVALID_REQUEST `Unknown topology node type: N.`, and a
//! global store must pair a source with a processor. The record form lives with the other
//! records (`records`), which import this model, not the other way round.

use crate::coordinator::context::{fail, HbError};
use crate::error::ErrorCode;
use crate::generated::streams_group_describe_response as describe;
use crate::generated::streams_group_topology_description_update_request as update;

/// `NodeType` of a source node (reads topics).
pub const NODE_SOURCE: i8 = 1;
/// `NodeType` of a processor node (may use state stores).
pub const NODE_PROCESSOR: i8 = 2;
/// `NodeType` of a sink node (writes a topic).
pub const NODE_SINK: i8 = 3;

/// `TopologyDescriptionStatus` of StreamsGroupDescribe v1: the description was not asked for.
pub const STATUS_NOT_REQUESTED: i8 = 0;
/// `TopologyDescriptionStatus`: no description of the group's current topology epoch is stored.
pub const STATUS_NOT_STORED: i8 = 1;
/// `TopologyDescriptionStatus`: fetching the description failed (never sent by kwire, which has
/// no plugin to fail).
pub const STATUS_ERROR: i8 = 2;
/// `TopologyDescriptionStatus`: `TopologyDescription` carries the description.
pub const STATUS_AVAILABLE: i8 = 3;

/// One node of a described topology, holding only the fields of its type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DescriptionNode {
    /// Node name (e.g. `KSTREAM-SOURCE-0000000000`).
    pub name: String,
    /// [`NODE_SOURCE`], [`NODE_PROCESSOR`] or [`NODE_SINK`].
    pub node_type: i8,
    /// Topics a source node reads (empty for other types).
    pub source_topics: Vec<String>,
    /// Topic a sink node writes, if fixed (`None` for other types).
    pub sink_topic: Option<String>,
    /// State stores a processor node uses (empty for other types).
    pub stores: Vec<String>,
    /// Names of the successor nodes.
    pub successors: Vec<String>,
}

/// A topology description stored for a streams group: the topology epoch it was pushed for,
/// the subtopologies (id, nodes) and the global stores (source, processor), in pushed order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopologyDescription {
    /// The topology epoch the pushing member gave (`TopologyEpoch` of key 93).
    pub epoch: i32,
    /// Subtopology id and its nodes.
    pub subtopologies: Vec<(String, Vec<DescriptionNode>)>,
    /// Global stores as (source node, processor node).
    pub global_stores: Vec<(DescriptionNode, DescriptionNode)>,
}

fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in items {
        if !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    }
    out
}

fn node_of(n: &update::TopologyDescriptionNode) -> Result<DescriptionNode, HbError> {
    let successors = distinct(n.successors.iter().map(|s| &**s));
    let mut out = DescriptionNode {
        name: n.name.to_string(),
        node_type: n.node_type,
        successors,
        ..Default::default()
    };
    match n.node_type {
        NODE_SOURCE => out.source_topics = distinct(n.source_topics.iter().map(|s| &**s)),
        NODE_PROCESSOR => out.stores = distinct(n.stores.iter().map(|s| &**s)),
        NODE_SINK => out.sink_topic = n.sink_topic.as_ref().map(|s| s.to_string()),
        t => {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!("Unknown topology node type: {t}"),
            )
        }
    }
    Ok(out)
}

impl TopologyDescription {
    /// Converts a pushed description (Kafka's `StreamsGroupTopologyDescriptionConverter.fromRequest`).
    ///
    /// # Errors
    /// INVALID_REQUEST for a node type other than 1-3 (`Unknown topology node type: N`) or a
    /// global store that is not a source followed by a processor.
    pub(crate) fn from_update(
        epoch: i32,
        d: &update::TopologyDescription,
    ) -> Result<TopologyDescription, HbError> {
        let mut subtopologies = Vec::with_capacity(d.subtopologies.len());
        for s in &d.subtopologies {
            let nodes = s.nodes.iter().map(node_of).collect::<Result<Vec<_>, _>>()?;
            subtopologies.push((s.subtopology_id.to_string(), nodes));
        }
        let mut global_stores = Vec::with_capacity(d.global_stores.len());
        for g in &d.global_stores {
            let (source, processor) = (node_of(&g.source)?, node_of(&g.processor)?);
            if source.node_type != NODE_SOURCE || processor.node_type != NODE_PROCESSOR {
                return fail(
                    ErrorCode::InvalidRequest.code(),
                    "Global store must be composed of a source and a processor node.",
                );
            }
            global_stores.push((source, processor));
        }
        Ok(TopologyDescription {
            epoch,
            subtopologies,
            global_stores,
        })
    }

    /// The `TopologyDescription` of StreamsGroupDescribe v1 (Kafka's
    /// `StreamsGroupTopologyDescriptionConverter.toDescribeResponse`).
    pub fn to_describe(&self) -> describe::TopologyDescription {
        let node = |n: &DescriptionNode| describe::TopologyDescriptionNode {
            name: n.name.clone().into(),
            node_type: n.node_type,
            source_topics: n.source_topics.iter().map(|s| s.clone().into()).collect(),
            sink_topic: n.sink_topic.clone().map(Into::into),
            stores: n.stores.iter().map(|s| s.clone().into()).collect(),
            successors: n.successors.iter().map(|s| s.clone().into()).collect(),
            ..Default::default()
        };
        describe::TopologyDescription {
            subtopologies: self
                .subtopologies
                .iter()
                .map(|(id, nodes)| describe::TopologyDescriptionSubtopology {
                    subtopology_id: id.clone().into(),
                    nodes: nodes.iter().map(node).collect(),
                    ..Default::default()
                })
                .collect(),
            global_stores: self
                .global_stores
                .iter()
                .map(|(s, p)| describe::TopologyDescriptionGlobalStore {
                    source: node(s),
                    processor: node(p),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }
}

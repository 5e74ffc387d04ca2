//! What configuring a topology yields (Kafka's `ConfiguredTopology` and `ConfiguredSubtopology`):
//! resolved partition counts, the topics to create, the topic-configuration status, and the
//! error of a topology that cannot be configured.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};

use super::model::TopicInfo;

/// Status code: a source topic of the topology does not exist (StreamsGroupHeartbeatResponse
/// `Status.StatusCode`, docs/coordinator.md §2.10).
pub const MISSING_SOURCE_TOPICS: i8 = 1;
/// Status code: a copartition group is violated, or an existing internal topic has the wrong
/// partition count (docs/coordinator.md §2.10).
pub const INCORRECTLY_PARTITIONED_TOPICS: i8 = 2;
/// Status code: internal topics must be created first (docs/coordinator.md §2.10).
pub const MISSING_INTERNAL_TOPICS: i8 = 3;

/// A subtopology with every partition count resolved (Kafka's `ConfiguredSubtopology`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredSubtopology {
    /// The number of tasks: the largest partition count over the source topics and repartition
    /// source topics (docs/coordinator.md §2.1). Tasks are partitions `0..num_tasks`.
    pub num_tasks: i32,
    /// External source topics.
    pub source_topics: BTreeSet<String>,
    /// Repartition topics written.
    pub repartition_sink_topics: BTreeSet<String>,
    /// Repartition topics read, by name, with their resolved partition counts (replication factor
    /// and configs as in the topology).
    pub repartition_source_topics: BTreeMap<String, TopicInfo>,
    /// Changelog topics, by name, with their resolved partition counts (replication factor and
    /// configs as in the topology).
    pub state_changelog_topics: BTreeMap<String, TopicInfo>,
}

impl ConfiguredSubtopology {
    /// Whether the subtopology keeps state, i.e. has changelog topics; only stateful tasks get
    /// standby replicas (docs/coordinator.md §2.6).
    pub fn is_stateful(&self) -> bool {
        !self.state_changelog_topics.is_empty()
    }
}

/// An internal topic the caller must create (a CreateTopics `CreatableTopic`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatableTopic {
    /// The topic name.
    pub name: String,
    /// The resolved partition count.
    pub num_partitions: i32,
    /// The topology's replication factor, or -1 (broker default) when the topology gives none.
    pub replication_factor: i16,
    /// The topology's topic configs.
    pub configs: BTreeMap<String, String>,
}

/// A topic-configuration status (StreamsGroupHeartbeatResponse `Status`, code 1, 2 or 3), sent to
/// every member while the topology is not ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicStatus {
    /// [`MISSING_SOURCE_TOPICS`], [`INCORRECTLY_PARTITIONED_TOPICS`] or [`MISSING_INTERNAL_TOPICS`].
    pub code: i8,
    /// The status detail, as Kafka words it.
    pub detail: String,
}

impl TopicStatus {
    pub(super) fn new(code: i8, detail: String) -> Self {
        TopicStatus { code, detail }
    }
}

/// The outcome of [`configure`] (Kafka's `ConfiguredTopology`).
///
/// Shapes:
/// - ready: `status` is `None`, `subtopologies` is `Some`, nothing to create;
/// - [`MISSING_INTERNAL_TOPICS`]: `subtopologies` is `Some` (every count resolved), the topics to
///   create are listed, not ready;
/// - [`MISSING_SOURCE_TOPICS`] or [`INCORRECTLY_PARTITIONED_TOPICS`]: `subtopologies` is `None`,
///   nothing to create, not ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredTopology {
    /// The epoch of the topology that was configured.
    pub topology_epoch: i32,
    /// The configured subtopologies by id, when every partition count could be resolved.
    pub subtopologies: Option<BTreeMap<String, ConfiguredSubtopology>>,
    /// Internal topics (repartition source and changelog topics) missing from metadata, sorted by
    /// name.
    pub internal_topics_to_create: Vec<CreatableTopic>,
    /// The topic-configuration status; `None` when the topology is ready.
    pub status: Option<TopicStatus>,
}

impl ConfiguredTopology {
    /// Whether tasks can be assigned: no topic-configuration status was raised.
    pub fn is_ready(&self) -> bool {
        self.status.is_none()
    }

    /// The configured subtopology `id`, if the topology was configured and has it.
    pub fn subtopology(&self, id: &str) -> Option<&ConfiguredSubtopology> {
        self.subtopologies.as_ref()?.get(id)
    }
}

/// A structurally invalid topology: the heartbeat fails with STREAMS_INVALID_TOPOLOGY (130) and
/// this message (docs/coordinator.md §2.3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidTopology(pub String);

impl InvalidTopology {
    /// The error code STREAMS_INVALID_TOPOLOGY.
    pub const ERROR_CODE: i16 = 130;
}

/// Why configuration stopped early: a status for the members, or a heartbeat error.
#[derive(Debug)]
pub(super) enum Stop {
    Status(TopicStatus),
    Invalid(InvalidTopology),
}

impl From<InvalidTopology> for Stop {
    fn from(e: InvalidTopology) -> Self {
        Stop::Invalid(e)
    }
}

pub(super) fn invalid(message: String) -> InvalidTopology {
    InvalidTopology(message)
}

pub(super) fn incorrectly_partitioned(detail: String) -> Stop {
    Stop::Status(TopicStatus::new(INCORRECTLY_PARTITIONED_TOPICS, detail))
}

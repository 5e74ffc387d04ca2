//! The assignor interface: the [`ConsumerGroupAssignor`] trait (kwire's departure D5 in
//! docs/coordinator.md: a public trait, as Kafka's `ConsumerGroupPartitionAssignor`), its input
//! ([`GroupSpec`], [`TopicsSpec`]) and its output ([`GroupAssignment`]).

use crate::wire::Uuid;
use std::collections::{BTreeMap, BTreeSet};

/// Partitions by topic id.
pub type Assignment = BTreeMap<Uuid, BTreeSet<i32>>;

/// Whether every member subscribes to the same topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubscriptionType {
    /// All members subscribe to the same set of topics.
    Homogeneous,
    /// Members subscribe to different sets of topics.
    Heterogeneous,
}

/// What an assignor knows about one member.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberSpec {
    /// The rack the member runs in, if it said.
    pub rack_id: Option<String>,
    /// The static member's instance id, if any.
    pub instance_id: Option<String>,
    /// Ids of the topics the member subscribes to (resolved from names and regexes, restricted
    /// to topics present in the metadata).
    pub subscribed_topic_ids: BTreeSet<Uuid>,
    /// The member's previous target assignment (empty for a new member).
    pub assigned: Assignment,
}

/// The group as an assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSpec {
    /// Members by member id.
    pub members: BTreeMap<String, MemberSpec>,
    /// Homogeneous or heterogeneous subscriptions.
    pub subscription_type: SubscriptionType,
}

/// What an assignor knows about one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicInfo {
    /// The topic name.
    pub name: String,
    /// Number of partitions.
    pub partitions: i32,
    /// Racks of each partition's replicas, by partition (may be empty when unknown).
    pub partition_racks: BTreeMap<i32, BTreeSet<String>>,
}

/// The topics an assignor may place partitions of, by topic id.
pub type TopicsSpec = BTreeMap<Uuid, TopicInfo>;

/// An assignor's result: each member's target assignment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupAssignment {
    /// Targets by member id (every member of the spec appears, possibly with nothing).
    pub members: BTreeMap<String, Assignment>,
}

/// An assignor failure (answered as UNKNOWN_SERVER_ERROR).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("assignor {assignor} failed: {reason}")]
pub struct AssignorError {
    /// The assignor's name.
    pub assignor: String,
    /// Why.
    pub reason: String,
}

/// A server-side partition assignor for consumer groups.
///
/// Implementations must be deterministic: the same spec gives the same assignment.
pub trait ConsumerGroupAssignor: Send + Sync + std::fmt::Debug {
    /// The name members use in `ServerAssignor` (e.g. `"uniform"`).
    fn name(&self) -> &str;
    /// Computes every member's target assignment.
    ///
    /// # Errors
    /// [`AssignorError`] when no assignment can be made.
    fn assign(
        &self,
        group: &GroupSpec,
        topics: &TopicsSpec,
    ) -> Result<GroupAssignment, AssignorError>;
}

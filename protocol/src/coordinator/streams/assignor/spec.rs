//! What a streams task assignor reads and returns (KIP-1071; Kafka's `GroupSpec`,
//! `AssignmentMemberSpec` and `TaskAssignor` of the streams assignor package): the group as the
//! assignor sees it, and the [`TaskAssignor`] trait.

use std::collections::BTreeMap;

use super::super::tasks::{TaskOffsets, TaskSet, TasksTuple};

/// What the assignor knows of one member: its current tasks (the assigned ones, without those
/// pending revocation), as Kafka 4.4's `TargetAssignmentBuilder` gives them, not its last target.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AssignmentMemberSpec {
    /// The static member's instance id, if any.
    pub instance_id: Option<String>,
    /// The rack the member runs in, if it said (unused by the sticky assignor).
    pub rack_id: Option<String>,
    /// The process (Kafka Streams client) the member runs in; members of one process share
    /// its state directory. May be empty, which is just another process id.
    pub process_id: String,
    /// Client tags (unused by the sticky assignor).
    pub client_tags: BTreeMap<String, String>,
    /// Previous target active tasks.
    pub active_tasks: TaskSet,
    /// Previous target standby tasks.
    pub standby_tasks: TaskSet,
    /// Previous target warm-up tasks.
    pub warmup_tasks: TaskSet,
    /// The member's latest `TaskOffsets`: (subtopology, partition) → changelog offset sum of
    /// its local state for that task (StreamsGroupHeartbeatRequest; -2 means a running active
    /// task, Kafka Streams' `LATEST_OFFSET`).
    pub task_offsets: TaskOffsets,
    /// The member's latest `TaskEndOffsets`: (subtopology, partition) → changelog end offset
    /// sum of that task.
    pub task_end_offsets: TaskOffsets,
    /// Whether the member may receive warm-up tasks (it heartbeats with
    /// StreamsGroupHeartbeat v1 or later; see [`refine_warmups`](super::refine_warmups)).
    pub warmups_allowed: bool,
}

/// One subtopology of the configured topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubtopologySpec {
    /// Number of tasks (partitions `0..num_tasks`); Kafka's maximum number of input
    /// partitions of the subtopology.
    pub num_tasks: i32,
    /// Whether the subtopology has state stores (only stateful tasks get standbys).
    pub stateful: bool,
}

/// The group as the assignor sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupSpec {
    /// Members by member id.
    pub members: BTreeMap<String, AssignmentMemberSpec>,
    /// Subtopologies by subtopology id.
    pub subtopologies: BTreeMap<String, SubtopologySpec>,
    /// Standby replicas wanted per stateful task (`num.standby.replicas`).
    pub num_standby_replicas: i32,
    /// The most warm-up tasks the group may hold at once (`num.warmup.replicas`); 0 or less
    /// turns warm-ups off (see [`refine_warmups`](super::refine_warmups)).
    pub num_warmup_replicas: i32,
    /// The largest lag (offsets) at which a process counts as caught up on a task
    /// (`acceptable.recovery.lag`).
    pub acceptable_recovery_lag: i64,
}

/// A task assignor failure (answered as UNKNOWN_SERVER_ERROR).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task assignment failed: {0}")]
pub struct TaskAssignorError(pub String);

/// A server-side task assignor for streams groups (KIP-1071).
///
/// Implementations must be deterministic: the same spec gives the same assignment.
pub trait TaskAssignor: Send + Sync + std::fmt::Debug {
    /// The assignor's name (e.g. `"sticky"`).
    fn name(&self) -> &str;
    /// Computes every member's target tasks. Every member of `spec` gets an entry (possibly
    /// an empty [`TasksTuple`]); warm-up tasks only go to members with `warmups_allowed`, and
    /// only when `num_warmup_replicas > 0`.
    ///
    /// # Errors
    /// [`TaskAssignorError`] when the spec cannot be assigned.
    fn assign(&self, spec: &GroupSpec) -> Result<BTreeMap<String, TasksTuple>, TaskAssignorError>;
}

//! Streams-group state (persisted and derived, docs/coordinator.md, D6) and the replay of
//! streams records into it. As for consumer groups, the coordinator changes this state only by
//! applying the records it emits, so what it holds is what [`replay`](super::replay) rebuilds.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;

use super::description::TopologyDescription;
use super::tasks::{TaskRole, TaskSet, TasksTuple};
use super::topology::StreamsTopology;
use crate::coordinator::membership::{GroupMember, MemberGroup};

/// A streams member's reconciliation state (docs/coordinator.md §2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StreamsMemberState {
    /// Converged to its epoch's tasks (stored as 0).
    Stable,
    /// Must give up tasks before it can move on (1).
    UnrevokedTasks,
    /// Waits for tasks that other members (or its own process) still hold (2).
    UnreleasedTasks,
    /// A state byte this coordinator does not know (127).
    Unknown,
}

impl StreamsMemberState {
    /// The byte stored in the current-assignment record.
    pub fn to_byte(self) -> i8 {
        match self {
            StreamsMemberState::Stable => 0,
            StreamsMemberState::UnrevokedTasks => 1,
            StreamsMemberState::UnreleasedTasks => 2,
            StreamsMemberState::Unknown => 127,
        }
    }

    /// The state a stored byte means; any unknown byte is [`StreamsMemberState::Unknown`].
    pub fn from_byte(b: i8) -> Self {
        match b {
            0 => StreamsMemberState::Stable,
            1 => StreamsMemberState::UnrevokedTasks,
            2 => StreamsMemberState::UnreleasedTasks,
            _ => StreamsMemberState::Unknown,
        }
    }
}

/// The state of a streams group (docs/coordinator.md §2.8), computed after every change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamsGroupState {
    /// No members.
    Empty,
    /// No topology yet, or its epoch is not the validated topology epoch.
    NotReady,
    /// The group epoch is ahead of the assignment epoch.
    Assigning,
    /// Some member is not STABLE at the assignment epoch.
    Reconciling,
    /// Every member is STABLE at the assignment epoch.
    Stable,
    /// A deleted group (never produced).
    Dead,
}

impl StreamsGroupState {
    /// The name Kafka prints: `Empty`, `NotReady`, `Assigning`, `Reconciling`, `Stable`, `Dead`.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamsGroupState::Empty => "Empty",
            StreamsGroupState::NotReady => "NotReady",
            StreamsGroupState::Assigning => "Assigning",
            StreamsGroupState::Reconciling => "Reconciling",
            StreamsGroupState::Stable => "Stable",
            StreamsGroupState::Dead => "Dead",
        }
    }
}

/// An interactive-query endpoint (KIP-1071 `UserEndpoint`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Endpoint {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

/// One member of a streams group: metadata (member-metadata record) and current assignment
/// (current-assignment record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsGroupMember {
    /// The member id (always client-generated for streams groups).
    pub member_id: String,
    /// Static membership id (KIP-345; streams groups accept static members since Kafka 4.4).
    pub instance_id: Option<String>,
    /// Rack, if the member gave one.
    pub rack_id: Option<String>,
    /// Client id of the latest request.
    pub client_id: String,
    /// Client address of the latest request.
    pub client_host: String,
    /// Rebalance timeout in ms.
    pub rebalance_timeout_ms: i32,
    /// Epoch of the topology the member runs (from its latest join).
    pub topology_epoch: i32,
    /// The Streams instance (process) the member belongs to.
    pub process_id: String,
    /// Interactive-query endpoint, if any.
    pub user_endpoint: Option<Endpoint>,
    /// Client tags, by key.
    pub client_tags: BTreeMap<String, String>,
    /// Member epoch M (-1 after a leave; 0 while joining).
    pub member_epoch: i32,
    /// Epoch before the last reconciliation step (-1 for a new member).
    pub previous_member_epoch: i32,
    /// Reconciliation state.
    pub state: StreamsMemberState,
    /// Tasks the member has been given.
    pub assigned: TasksTuple,
    /// Tasks the member must still give up.
    pub pending_revocation: TasksTuple,
}

impl StreamsGroupMember {
    /// A new member: epoch 0, previous -1, STABLE, no tasks.
    pub fn new(member_id: &str) -> Self {
        StreamsGroupMember {
            member_id: member_id.to_string(),
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            rebalance_timeout_ms: -1,
            topology_epoch: -1,
            process_id: String::new(),
            user_endpoint: None,
            client_tags: BTreeMap::new(),
            member_epoch: 0,
            previous_member_epoch: -1,
            state: StreamsMemberState::Stable,
            assigned: TasksTuple::default(),
            pending_revocation: TasksTuple::default(),
        }
    }

    /// Whether the metadata (what the member-metadata record holds) equals `o`'s (the manager
    /// compares a request with the member in place; its tests check it against this).
    pub(crate) fn same_metadata(&self, o: &Self) -> bool {
        self.instance_id == o.instance_id
            && self.rack_id == o.rack_id
            && self.client_id == o.client_id
            && self.client_host == o.client_host
            && self.rebalance_timeout_ms == o.rebalance_timeout_ms
            && self.topology_epoch == o.topology_epoch
            && self.process_id == o.process_id
            && self.user_endpoint == o.user_endpoint
            && self.client_tags == o.client_tags
    }

    /// Whether what the assignment reads of a member equals `o`'s: topology epoch, rack, client
    /// tags and process (Kafka 4.4's `hasEpochRelevantMemberConfigChanged`, which decides
    /// whether a static member's new metadata bumps the group epoch).
    pub(crate) fn same_assignment_inputs(&self, o: &Self) -> bool {
        self.topology_epoch == o.topology_epoch
            && self.rack_id == o.rack_id
            && self.client_tags == o.client_tags
            && self.process_id == o.process_id
    }

    /// Whether the current assignment (what the current-assignment record holds) equals `o`'s.
    pub(crate) fn same_assignment(&self, o: &Self) -> bool {
        self.member_epoch == o.member_epoch
            && self.previous_member_epoch == o.previous_member_epoch
            && self.state == o.state
            && self.assigned == o.assigned
            && self.pending_revocation == o.pending_revocation
    }

    /// Reconciled to assignment epoch `a`: STABLE at epoch `a`.
    pub fn is_reconciled_to(&self, a: i32) -> bool {
        self.state == StreamsMemberState::Stable && self.member_epoch == a
    }
}

/// Which processes hold a task, in one role, counted per member (assigned and pending
/// revocation both count: docs/coordinator.md §2.5, "ownership maps").
pub type TaskOwners = BTreeMap<(TaskRole, String, i32), BTreeMap<String, u32>>;

/// A streams group: persisted state plus what is derived from it on replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsGroup {
    /// The group id.
    pub group_id: String,
    /// Group epoch G.
    pub group_epoch: i32,
    /// kwire's hash of the topology's existing topics (docs/coordinator.md, D6).
    pub metadata_hash: u64,
    /// The topology epoch last found ready, or -1.
    pub validated_topology_epoch: i32,
    /// Assignor settings of the last bump (`num.standby.replicas`).
    pub last_assignment_configs: BTreeMap<String, String>,
    /// The group's topology, once a member has joined with one.
    pub topology: Option<StreamsTopology>,
    /// The topology description last pushed with StreamsGroupTopologyDescriptionUpdate
    /// (KIP-1331, record type 25), tagged with the topology epoch it was pushed for.
    pub topology_description: Option<TopologyDescription>,
    /// Assignment epoch A: the epoch of the last computed target.
    pub assignment_epoch: i32,
    /// Members by id.
    pub members: BTreeMap<String, StreamsGroupMember>,
    /// Each member's target tasks.
    pub targets: BTreeMap<String, TasksTuple>,
    /// Derived: the processes holding each task, per role.
    pub task_owners: TaskOwners,
    /// Derived: the group state.
    pub state: StreamsGroupState,
}

impl StreamsGroup {
    /// An empty group at epoch 0 with no topology.
    pub fn new(group_id: &str) -> Self {
        StreamsGroup {
            group_id: group_id.to_string(),
            group_epoch: 0,
            metadata_hash: 0,
            validated_topology_epoch: -1,
            last_assignment_configs: BTreeMap::new(),
            topology: None,
            topology_description: None,
            assignment_epoch: 0,
            members: BTreeMap::new(),
            targets: BTreeMap::new(),
            task_owners: TaskOwners::new(),
            state: StreamsGroupState::Empty,
        }
    }

    /// The topology epoch, or -1 without a topology.
    pub fn topology_epoch(&self) -> i32 {
        self.topology.as_ref().map_or(-1, |t| t.epoch)
    }

    /// The member holding static instance id `instance_id`, if any (KIP-345 for streams groups,
    /// Kafka 4.4's `StreamsGroup.staticMember`).
    pub fn static_member(&self, instance_id: &str) -> Option<&StreamsGroupMember> {
        self.members
            .values()
            .find(|m| m.instance_id.as_deref() == Some(instance_id))
    }

    /// The processes holding `(subtopology, partition)` in `role` (assigned or pending revocation).
    pub fn owners(&self, role: TaskRole, subtopology: &str, partition: i32) -> Vec<&str> {
        self.task_owners
            .get(&(role, subtopology.to_string(), partition))
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Whether `process` holds `(subtopology, partition)` in `role`.
    pub fn process_holds(
        &self,
        role: TaskRole,
        subtopology: &str,
        partition: i32,
        process: &str,
    ) -> bool {
        self.task_owners
            .get(&(role, subtopology.to_string(), partition))
            .is_some_and(|m| m.contains_key(process))
    }

    /// Whether any process holds `(subtopology, partition)` as an active task.
    pub fn active_held(&self, subtopology: &str, partition: i32) -> bool {
        self.task_owners
            .get(&(TaskRole::Active, subtopology.to_string(), partition))
            .is_some_and(|m| !m.is_empty())
    }

    /// Recomputes the group state (docs/coordinator.md §2.8).
    pub(crate) fn refresh_state(&mut self) {
        self.state = if self.members.is_empty() {
            StreamsGroupState::Empty
        } else if self
            .topology
            .as_ref()
            .is_none_or(|t| t.epoch != self.validated_topology_epoch)
        {
            StreamsGroupState::NotReady
        } else if self.group_epoch > self.assignment_epoch {
            StreamsGroupState::Assigning
        } else if self
            .members
            .values()
            .any(|m| !m.is_reconciled_to(self.assignment_epoch))
        {
            StreamsGroupState::Reconciling
        } else {
            StreamsGroupState::Stable
        };
    }

    fn change_ownership(&mut self, m: &StreamsGroupMember, add: bool) {
        for tasks in [&m.assigned, &m.pending_revocation] {
            for (role, s, p) in tasks.iter() {
                let key = (role, s.to_string(), p);
                let procs = self.task_owners.entry(key.clone()).or_default();
                let n = procs.entry(m.process_id.clone()).or_insert(0);
                if add {
                    *n += 1;
                } else {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        procs.remove(&m.process_id);
                    }
                    if procs.is_empty() {
                        self.task_owners.remove(&key);
                    }
                }
            }
        }
    }

    /// Replaces a member, keeping the ownership maps in step (remove-then-add).
    pub(crate) fn put_member(&mut self, m: StreamsGroupMember) {
        if let Some(old) = self.members.remove(&m.member_id) {
            self.change_ownership(&old, false);
        }
        self.change_ownership(&m, true);
        self.members.insert(m.member_id.clone(), m);
    }

    pub(crate) fn remove_member(&mut self, member_id: &str) {
        if let Some(old) = self.members.remove(member_id) {
            self.change_ownership(&old, false);
        }
    }
}

/// Every streams group by id: what [`replay`](super::replay) returns.
pub type StreamsGroups = BTreeMap<String, StreamsGroup>;

impl GroupMember for StreamsGroupMember {
    type Owned = TasksTuple;

    fn member_id(&self) -> &str {
        &self.member_id
    }

    fn member_epoch(&self) -> i32 {
        self.member_epoch
    }

    fn previous_member_epoch(&self) -> i32 {
        self.previous_member_epoch
    }

    /// Every owned task, in each role, is assigned in that role (Kafka 4.4's
    /// `isSubset` of the owned active, standby and warm-up tasks).
    fn owns_only_assigned(&self, owned: &TasksTuple) -> bool {
        let subset = |o: &TaskSet, a: &TaskSet| {
            o.iter()
                .all(|(s, ps)| a.get(s).is_some_and(|x| ps.is_subset(x)))
        };
        subset(&owned.active, &self.assigned.active)
            && subset(&owned.standby, &self.assigned.standby)
            && subset(&owned.warmup, &self.assigned.warmup)
    }

    fn same_metadata(&self, other: &Self) -> bool {
        StreamsGroupMember::same_metadata(self, other)
    }

    fn same_assignment(&self, other: &Self) -> bool {
        StreamsGroupMember::same_assignment(self, other)
    }
}

impl MemberGroup for StreamsGroup {
    type Member = StreamsGroupMember;

    fn group_id(&self) -> &str {
        &self.group_id
    }

    fn member(&self, member_id: &str) -> Option<&StreamsGroupMember> {
        self.members.get(member_id)
    }

    fn static_member(&self, instance_id: &str) -> Option<&StreamsGroupMember> {
        StreamsGroup::static_member(self, instance_id)
    }
}

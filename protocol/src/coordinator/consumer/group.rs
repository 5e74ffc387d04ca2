//! Consumer-group state (persisted and derived, docs/coordinator.md, D6) and the replay of records
//! into it. The coordinator changes state only by applying the records it emits, so the state it
//! holds is, by construction, what [`replay`](super::replay) rebuilds.

use std::collections::{BTreeMap, BTreeSet};

use super::assignor::Assignment;
use crate::coordinator::membership::{GroupMember, MemberGroup};
use crate::wire::Uuid;
use bytes::Bytes;

/// A member's reconciliation state (docs/coordinator.md §1.6, Kafka's `MemberState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemberState {
    /// The member has converged to its epoch's assignment (stored as 0).
    Stable,
    /// The member must give up partitions before it can move on (1).
    UnrevokedPartitions,
    /// The member waits for partitions that other members still hold (2).
    UnreleasedPartitions,
    /// A state byte this coordinator does not know (written by a newer one; 127).
    Unknown,
}

/// The group state (docs/coordinator.md §1.10), computed after every change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupState {
    /// No members.
    Empty,
    /// The group epoch is ahead of the assignment epoch: a new target is due.
    Assigning,
    /// Some member is not STABLE at the assignment epoch.
    Reconciling,
    /// Every member is STABLE at the assignment epoch.
    Stable,
    /// A deleted group (never produced: a deleted group is simply absent).
    Dead,
}

impl GroupState {
    /// The name Kafka prints (`Empty`, `Assigning`, `Reconciling`, `Stable`, `Dead`).
    pub fn as_str(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::Assigning => "Assigning",
            GroupState::Reconciling => "Reconciling",
            GroupState::Stable => "Stable",
            GroupState::Dead => "Dead",
        }
    }
}

/// One protocol of a classic member's JoinGroup: the assignor name and its metadata (for the
/// `consumer` protocol type, a version-prefixed ConsumerProtocolSubscription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicProtocol {
    /// The protocol (assignor) name, e.g. `range`.
    pub name: String,
    /// The protocol metadata bytes, as the member sent them.
    pub metadata: Bytes,
}

/// What a consumer group keeps of a member that joined with the classic protocol (Kafka's
/// `ConsumerGroupMemberMetadataValue.ClassicMemberMetadata`): its session timeout and the
/// protocols of its latest JoinGroup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMemberMetadata {
    /// The session timeout in ms from the member's JoinGroup.
    pub session_timeout_ms: i32,
    /// The JoinGroup protocols, in the member's order of preference (never empty).
    pub supported_protocols: Vec<ClassicProtocol>,
}

/// One member of a consumer group: its metadata (member-metadata record) and its current
/// assignment (current-assignment record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMember {
    /// The member id.
    pub member_id: String,
    /// Static membership id, if any.
    pub instance_id: Option<String>,
    /// Rack, if the member gave one.
    pub rack_id: Option<String>,
    /// Client id from the latest request context.
    pub client_id: String,
    /// Client host from the latest request context.
    pub client_host: String,
    /// Topics subscribed by name (a set: order and duplicates do not matter).
    pub subscribed_topic_names: BTreeSet<String>,
    /// The member's regex, if any.
    pub subscribed_topic_regex: Option<String>,
    /// Rebalance (revocation) timeout in ms.
    pub rebalance_timeout_ms: i32,
    /// Server-side assignor the member asked for.
    pub server_assignor: Option<String>,
    /// Member epoch M (-2 after a static temporary leave).
    pub member_epoch: i32,
    /// Previous member epoch, accepted when the reply carrying M was lost.
    pub previous_member_epoch: i32,
    /// Reconciliation state.
    pub state: MemberState,
    /// Partitions assigned to the member.
    pub assigned: Assignment,
    /// Partitions the member must still revoke.
    pub pending_revocation: Assignment,
    /// The classic-protocol data of a member that joined with JoinGroup (KIP-848 online
    /// migration; Kafka's `ClassicMemberMetadata`), `None` for a ConsumerGroupHeartbeat member.
    pub classic: Option<ClassicMemberMetadata>,
}

impl ConsumerGroupMember {
    /// A member as Kafka creates it before any current-assignment record: epoch 0, previous -1,
    /// STABLE, nothing assigned.
    pub fn new(member_id: &str) -> Self {
        ConsumerGroupMember {
            member_id: member_id.to_string(),
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: BTreeSet::new(),
            subscribed_topic_regex: None,
            rebalance_timeout_ms: -1,
            server_assignor: None,
            member_epoch: 0,
            previous_member_epoch: -1,
            state: MemberState::Stable,
            assigned: Assignment::new(),
            pending_revocation: Assignment::new(),
            classic: None,
        }
    }

    /// Whether the member speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat/LeaveGroup;
    /// Kafka's `useClassicProtocol`).
    pub fn uses_classic_protocol(&self) -> bool {
        self.classic.is_some()
    }

    /// Whether the metadata fields (those of the member-metadata record) are equal.
    pub(crate) fn same_metadata(&self, o: &Self) -> bool {
        self.instance_id == o.instance_id
            && self.rack_id == o.rack_id
            && self.client_id == o.client_id
            && self.client_host == o.client_host
            && self.subscribed_topic_names == o.subscribed_topic_names
            && self.subscribed_topic_regex == o.subscribed_topic_regex
            && self.rebalance_timeout_ms == o.rebalance_timeout_ms
            && self.server_assignor == o.server_assignor
            && self.classic == o.classic
    }

    /// Whether the current-assignment fields are equal.
    pub(crate) fn same_assignment(&self, o: &Self) -> bool {
        self.member_epoch == o.member_epoch
            && self.previous_member_epoch == o.previous_member_epoch
            && self.state == o.state
            && self.assigned == o.assigned
            && self.pending_revocation == o.pending_revocation
    }

    /// Whether the member is reconciled to assignment epoch `a` (STABLE and M == A).
    pub fn is_reconciled_to(&self, a: i32) -> bool {
        self.state == MemberState::Stable && self.member_epoch == a
    }
}

/// A regex's resolution against the caller's topic metadata (docs/coordinator.md §1.8, D4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRegex {
    /// Names of the matching topics.
    pub topics: BTreeSet<String>,
    /// Version of the topic metadata it was resolved against.
    pub version: i64,
    /// When it was resolved (ms, caller's clock).
    pub timestamp_ms: i64,
}

/// One consumer group: persisted state (from records) plus derived state (rebuilt on replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroup {
    /// The group id.
    pub group_id: String,
    /// Group epoch G (persisted).
    pub group_epoch: i32,
    /// Metadata hash of the subscribed topics (persisted with G).
    pub metadata_hash: u64,
    /// Assignment (target) epoch A (persisted).
    pub assignment_epoch: i32,
    /// Members by id (persisted).
    pub members: BTreeMap<String, ConsumerGroupMember>,
    /// Each member's target assignment (persisted).
    pub targets: BTreeMap<String, Assignment>,
    /// Regex resolutions (persisted).
    pub regexes: BTreeMap<String, ResolvedRegex>,
    /// Derived: partition → epoch of its current owner, covering assigned and pending-revocation
    /// partitions of every member (docs/coordinator.md §1.3).
    pub partition_epochs: BTreeMap<(Uuid, i32), i32>,
    /// Derived: instance id → member id of the static members.
    pub static_members: BTreeMap<String, String>,
    /// Derived: the group state (docs/coordinator.md §1.10).
    pub state: GroupState,
}

impl ConsumerGroup {
    /// An empty group at epoch 0.
    pub fn new(group_id: &str) -> Self {
        ConsumerGroup {
            group_id: group_id.to_string(),
            group_epoch: 0,
            metadata_hash: 0,
            assignment_epoch: 0,
            members: BTreeMap::new(),
            targets: BTreeMap::new(),
            regexes: BTreeMap::new(),
            partition_epochs: BTreeMap::new(),
            static_members: BTreeMap::new(),
            state: GroupState::Empty,
        }
    }

    /// Epoch of the member currently holding `(topic, partition)` (assigned or pending
    /// revocation), or `None` when the partition is free.
    pub fn partition_epoch(&self, topic: Uuid, partition: i32) -> Option<i32> {
        self.partition_epochs.get(&(topic, partition)).copied()
    }

    /// The member id holding `instance_id`, if any.
    pub fn static_member(&self, instance_id: &str) -> Option<&ConsumerGroupMember> {
        self.static_members
            .get(instance_id)
            .and_then(|m| self.members.get(m))
    }

    /// Recomputes the group state (docs/coordinator.md §1.10).
    pub(crate) fn refresh_state(&mut self) {
        self.state = if self.members.is_empty() {
            GroupState::Empty
        } else if self.group_epoch > self.assignment_epoch {
            GroupState::Assigning
        } else if self
            .members
            .values()
            .any(|m| !m.is_reconciled_to(self.assignment_epoch))
        {
            GroupState::Reconciling
        } else {
            GroupState::Stable
        };
    }

    fn remove_ownership(&mut self, m: &ConsumerGroupMember) {
        for a in [&m.assigned, &m.pending_revocation] {
            for (t, ps) in a {
                for p in ps {
                    self.partition_epochs.remove(&(*t, *p));
                }
            }
        }
    }

    fn add_ownership(&mut self, m: &ConsumerGroupMember) {
        for a in [&m.assigned, &m.pending_revocation] {
            for (t, ps) in a {
                for p in ps {
                    self.partition_epochs.insert((*t, *p), m.member_epoch);
                }
            }
        }
    }

    /// Replaces a member, keeping the derived maps in step (remove-then-add, §1.3).
    pub(crate) fn put_member(&mut self, m: ConsumerGroupMember) {
        if let Some(old) = self.members.remove(&m.member_id) {
            self.remove_ownership(&old);
            if let Some(i) = &old.instance_id {
                if self.static_members.get(i) == Some(&old.member_id) {
                    self.static_members.remove(i);
                }
            }
        }
        self.add_ownership(&m);
        if let Some(i) = &m.instance_id {
            self.static_members.insert(i.clone(), m.member_id.clone());
        }
        self.members.insert(m.member_id.clone(), m);
    }

    pub(crate) fn remove_member(&mut self, member_id: &str) {
        if let Some(old) = self.members.remove(member_id) {
            self.remove_ownership(&old);
            if let Some(i) = &old.instance_id {
                if self.static_members.get(i).map(String::as_str) == Some(member_id) {
                    self.static_members.remove(i);
                }
            }
        }
    }
}

/// The state of every consumer group, by group id: what [`replay`](super::replay) returns (and the `consumer`
/// half of what the coordinator's `replay` rebuilds).
pub type ConsumerGroups = BTreeMap<String, ConsumerGroup>;

impl GroupMember for ConsumerGroupMember {
    type Owned = Assignment;

    fn member_id(&self) -> &str {
        &self.member_id
    }

    fn member_epoch(&self) -> i32 {
        self.member_epoch
    }

    fn previous_member_epoch(&self) -> i32 {
        self.previous_member_epoch
    }

    fn owns_only_assigned(&self, owned: &Assignment) -> bool {
        owned
            .iter()
            .all(|(t, ps)| self.assigned.get(t).is_some_and(|a| ps.is_subset(a)))
    }

    fn same_metadata(&self, other: &Self) -> bool {
        ConsumerGroupMember::same_metadata(self, other)
    }

    fn same_assignment(&self, other: &Self) -> bool {
        ConsumerGroupMember::same_assignment(self, other)
    }
}

impl MemberGroup for ConsumerGroup {
    type Member = ConsumerGroupMember;

    fn group_id(&self) -> &str {
        &self.group_id
    }

    fn member(&self, member_id: &str) -> Option<&ConsumerGroupMember> {
        self.members.get(member_id)
    }

    fn static_member(&self, instance_id: &str) -> Option<&ConsumerGroupMember> {
        ConsumerGroup::static_member(self, instance_id)
    }
}

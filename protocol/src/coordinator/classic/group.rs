//! Classic-group state (persisted and derived, docs/coordinator.md D6): Kafka's `ClassicGroup`
//! and `ClassicGroupMember` without the parts that only live while a request waits (those are
//! the manager's volatile state). The coordinator changes this state only by applying the
//! records it emits, so it is, by construction, what [`replay`](super::replay) rebuilds.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

/// The state of a classic group (Kafka's `ClassicGroupState`). A deleted group is absent
/// (Kafka's `Dead`), so [`ClassicGroupState::Dead`] is only ever reported, never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClassicGroupState {
    /// No members (stored as 0).
    Empty,
    /// A rebalance started: members must rejoin (1).
    PreparingRebalance,
    /// Every member rejoined; the leader's SyncGroup with the assignment is awaited (2).
    CompletingRebalance,
    /// The leader sent the assignment (3).
    Stable,
    /// The group was deleted (never stored).
    Dead,
}

impl ClassicGroupState {
    /// The name Kafka prints (`Empty`, `PreparingRebalance`, `CompletingRebalance`, `Stable`,
    /// `Dead`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClassicGroupState::Empty => "Empty",
            ClassicGroupState::PreparingRebalance => "PreparingRebalance",
            ClassicGroupState::CompletingRebalance => "CompletingRebalance",
            ClassicGroupState::Stable => "Stable",
            ClassicGroupState::Dead => "Dead",
        }
    }

    /// The byte stored in the group record (0-3; Dead is 4 and never written).
    pub fn as_i8(self) -> i8 {
        match self {
            ClassicGroupState::Empty => 0,
            ClassicGroupState::PreparingRebalance => 1,
            ClassicGroupState::CompletingRebalance => 2,
            ClassicGroupState::Stable => 3,
            ClassicGroupState::Dead => 4,
        }
    }

    /// The state of a stored byte; an unknown byte reads as `Stable` (as Kafka loads a group
    /// with members).
    pub fn from_i8(v: i8) -> Self {
        match v {
            0 => ClassicGroupState::Empty,
            1 => ClassicGroupState::PreparingRebalance,
            2 => ClassicGroupState::CompletingRebalance,
            4 => ClassicGroupState::Dead,
            _ => ClassicGroupState::Stable,
        }
    }
}

/// One protocol a member supports: its name and the member's metadata for it (for the
/// `consumer` protocol type, a ConsumerProtocolSubscription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicProtocol {
    /// Protocol name (e.g. `range`, `cooperative-sticky`).
    pub name: String,
    /// The member's metadata for the protocol (opaque to the coordinator).
    pub metadata: Bytes,
}

/// One member of a classic group (Kafka's `ClassicGroupMember`, persisted part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicGroupMember {
    /// The member id (`<client id>-<uuid>`, or `<group instance id>-<uuid>` for a static member).
    pub member_id: String,
    /// Static membership id (`group.instance.id`), if any.
    pub group_instance_id: Option<String>,
    /// Client id of the request that added the member.
    pub client_id: String,
    /// Client address of the request that added the member.
    pub client_host: String,
    /// Rebalance timeout in ms (JoinGroup v0: the session timeout).
    pub rebalance_timeout_ms: i32,
    /// Session timeout in ms.
    pub session_timeout_ms: i32,
    /// Protocol type the member joined with.
    pub protocol_type: String,
    /// Supported protocols in the member's order of preference.
    pub protocols: Vec<ClassicProtocol>,
    /// Assignment of the current generation (empty before the leader's SyncGroup).
    pub assignment: Bytes,
}

impl ClassicGroupMember {
    /// The member's metadata for `protocol`, if it supports it.
    pub fn metadata(&self, protocol: &str) -> Option<&Bytes> {
        self.protocols
            .iter()
            .find(|p| p.name == protocol)
            .map(|p| &p.metadata)
    }

    /// Whether `protocols` equals the member's supported protocols (names and metadata, in
    /// order; Kafka's `ClassicGroupMember.matches`).
    pub fn matches(&self, protocols: &[ClassicProtocol]) -> bool {
        self.protocols == protocols
    }

    /// The member's vote (Kafka's `ClassicGroupMember.vote`): its most preferred protocol among
    /// `candidates`.
    pub fn vote<'a>(&'a self, candidates: &BTreeSet<&str>) -> Option<&'a str> {
        self.protocols
            .iter()
            .map(|p| p.name.as_str())
            .find(|n| candidates.contains(n))
    }

    /// Whether the member has a `group.instance.id`.
    pub fn is_static(&self) -> bool {
        self.group_instance_id.is_some()
    }
}

/// One classic group: persisted state (from records) plus derived state (rebuilt on replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicGroup {
    /// The group id.
    pub group_id: String,
    /// State (persisted; never `Dead`).
    pub state: ClassicGroupState,
    /// Protocol type, set by the first member (persisted).
    pub protocol_type: Option<String>,
    /// Generation id (persisted).
    pub generation_id: i32,
    /// Protocol selected for the generation (persisted; None when empty).
    pub protocol_name: Option<String>,
    /// Leader's member id (persisted).
    pub leader_id: Option<String>,
    /// When the group entered its state (ms, caller's clock; persisted), or -1.
    pub current_state_timestamp: i64,
    /// Members by id (persisted, one record each).
    pub members: BTreeMap<String, ClassicGroupMember>,
    /// Derived: group instance id → member id of the static members.
    pub static_members: BTreeMap<String, String>,
    /// Derived: how many members support each protocol name (Kafka's
    /// `ClassicGroup.supportedProtocols`), so a JoinGroup's protocol check is O(protocols).
    pub supported_protocols: BTreeMap<String, usize>,
}

impl ClassicGroup {
    /// An empty group at generation 0.
    pub fn new(group_id: &str) -> Self {
        ClassicGroup {
            group_id: group_id.to_string(),
            state: ClassicGroupState::Empty,
            protocol_type: None,
            generation_id: 0,
            protocol_name: None,
            leader_id: None,
            current_state_timestamp: -1,
            members: BTreeMap::new(),
            static_members: BTreeMap::new(),
            supported_protocols: BTreeMap::new(),
        }
    }

    /// Whether the group is in `state`.
    pub fn is(&self, state: ClassicGroupState) -> bool {
        self.state == state
    }

    /// Whether `member_id` is the leader.
    pub fn is_leader(&self, member_id: &str) -> bool {
        self.leader_id.as_deref() == Some(member_id)
    }

    /// The member id holding `instance_id`, if any.
    pub fn static_member_id(&self, instance_id: &str) -> Option<&str> {
        self.static_members.get(instance_id).map(String::as_str)
    }

    /// The largest rebalance timeout of the members (ms; 0 without members; Kafka's
    /// `ClassicGroup.rebalanceTimeoutMs`).
    pub fn rebalance_timeout_ms(&self) -> i32 {
        self.members
            .values()
            .map(|m| m.rebalance_timeout_ms)
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// The protocols every member supports (Kafka's `candidateProtocols`).
    pub fn candidate_protocols(&self) -> BTreeSet<&str> {
        let n = self.members.len();
        self.supported_protocols
            .iter()
            .filter(|(_, c)| **c == n)
            .map(|(p, _)| p.as_str())
            .collect()
    }

    /// Whether a member joining with `protocol_type` and `protocols` fits the group (Kafka's
    /// `ClassicGroup.supportsProtocols`): an empty group takes any non-empty type with at least
    /// one protocol; otherwise the type must be the group's and one of the protocols must be
    /// supported by every member.
    pub fn supports_protocols(&self, protocol_type: &str, protocols: &[ClassicProtocol]) -> bool {
        if self.is(ClassicGroupState::Empty) {
            return !protocol_type.is_empty() && !protocols.is_empty();
        }
        if self.protocol_type.as_deref() != Some(protocol_type) {
            return false;
        }
        // Supported by every member: the derived count per protocol name, as Kafka keeps it.
        let n = self.members.len();
        protocols
            .iter()
            .any(|p| self.supported_protocols.get(&p.name) == Some(&n))
    }

    /// The protocol of the next generation (Kafka's `ClassicGroup.selectProtocol`): every
    /// member votes for its most preferred protocol among those all members support; the most
    /// voted wins. Ties go to the protocol Java's `HashMap` iterates first (see
    /// [`java_hash_order`]), as Kafka's `stream().max()` keeps the first maximum. `None`
    /// without members or without a common protocol.
    pub fn select_protocol(&self) -> Option<String> {
        let candidates = self.candidate_protocols();
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        for m in self.members.values() {
            if let Some(v) = m.vote(&candidates) {
                *votes.entry(v).or_default() += 1;
            }
        }
        let best = votes.values().copied().max()?;
        let mut tied: Vec<&str> = votes
            .iter()
            .filter(|(_, v)| **v == best)
            .map(|(k, _)| *k)
            .collect();
        tied.sort_by_key(|k| java_hash_order(k, votes.len()));
        tied.first().map(|s| s.to_string())
    }

    /// Adds (or replaces) a member, keeping the derived maps in step.
    pub(crate) fn put_member(&mut self, m: ClassicGroupMember) {
        self.remove_member(&m.member_id.clone());
        if let Some(i) = &m.group_instance_id {
            self.static_members.insert(i.clone(), m.member_id.clone());
        }
        for name in distinct_names(&m.protocols) {
            *self
                .supported_protocols
                .entry(name.to_string())
                .or_default() += 1;
        }
        self.members.insert(m.member_id.clone(), m);
    }

    /// Removes a member, keeping the derived maps in step.
    pub(crate) fn remove_member(&mut self, member_id: &str) {
        if let Some(old) = self.members.remove(member_id) {
            if let Some(i) = &old.group_instance_id {
                if self.static_members.get(i).map(String::as_str) == Some(member_id) {
                    self.static_members.remove(i);
                }
            }
            for name in distinct_names(&old.protocols) {
                if let Some(c) = self.supported_protocols.get_mut(name) {
                    *c -= 1;
                    if *c == 0 {
                        self.supported_protocols.remove(name);
                    }
                }
            }
        }
    }
}

/// The protocol names of `protocols`, each once (a member listing a name twice supports it once).
fn distinct_names(protocols: &[ClassicProtocol]) -> BTreeSet<&str> {
    protocols.iter().map(|p| p.name.as_str()).collect()
}

/// The position of a protocol name in the iteration order of a Java `HashMap<String, _>` of
/// `entries` entries: bucket index of the spread `String.hashCode` in a table of the default
/// size for that many entries, then the name (used only to break vote ties as Kafka does).
pub fn java_hash_order(name: &str, entries: usize) -> (u32, String) {
    let mut h: i32 = 0;
    for c in name.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(i32::from(c));
    }
    let h = h as u32;
    let spread = h ^ (h >> 16);
    let mut cap: usize = 16;
    while entries * 4 > cap * 3 {
        cap *= 2;
    }
    (spread & (cap as u32 - 1), name.to_string())
}

/// The state of every classic group, by group id.
pub type ClassicGroups = BTreeMap<String, ClassicGroup>;

//! KIP-848 online migration between classic and consumer groups: the migration policy
//! (`group.consumer.migration.policy`, Kafka's `ConsumerGroupMigrationPolicy`), the embedded
//! consumer protocol (`ConsumerProtocolSubscription` / `ConsumerProtocolAssignment` with their
//! version prefix, Kafka's `ConsumerProtocol`), and the group-type-neutral snapshot a conversion
//! carries from one group type to the other (Kafka's `ConsumerGroup.fromClassicGroup` and
//! `ClassicGroup.fromConsumerGroup`).
//!
//! The rules and every place kwire differs from Kafka: docs/coordinator.md §Online migration.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use super::assignor::Assignment;
use super::group::{ConsumerGroup, ConsumerGroupMember, MemberState};
use super::records::ConsumerRecord;
use crate::coordinator::context::{Context, TopicMetadata};
use crate::generated::consumer_protocol_assignment::{self as cpa, ConsumerProtocolAssignment};
use crate::generated::consumer_protocol_subscription::ConsumerProtocolSubscription;
use crate::wire::{DecodeError, Encode, Message, Uuid};

/// The protocol type of the embedded consumer protocol (Kafka's `ConsumerProtocol.PROTOCOL_TYPE`).
pub const CONSUMER_PROTOCOL_TYPE: &str = "consumer";

/// `group.consumer.migration.policy` (Kafka's `ConsumerGroupMigrationPolicy`, KIP-848): which
/// online conversions between classic and consumer groups are allowed. Kafka's default is
/// [`MigrationPolicy::Bidirectional`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MigrationPolicy {
    /// No conversion; a classic member cannot join a consumer group (`disabled`).
    Disabled,
    /// Classic → consumer only (`upgrade`).
    Upgrade,
    /// Consumer → classic only (`downgrade`).
    Downgrade,
    /// Both directions (`bidirectional`, the default).
    #[default]
    Bidirectional,
}

impl MigrationPolicy {
    /// Whether a non-empty classic group may be upgraded by a ConsumerGroupHeartbeat.
    pub fn is_upgrade_enabled(self) -> bool {
        matches!(
            self,
            MigrationPolicy::Upgrade | MigrationPolicy::Bidirectional
        )
    }

    /// Whether a consumer group whose last consumer-protocol member leaves may become classic.
    pub fn is_downgrade_enabled(self) -> bool {
        matches!(
            self,
            MigrationPolicy::Downgrade | MigrationPolicy::Bidirectional
        )
    }

    /// Kafka's configuration value (`disabled`, `upgrade`, `downgrade`, `bidirectional`).
    pub fn as_str(self) -> &'static str {
        match self {
            MigrationPolicy::Disabled => "disabled",
            MigrationPolicy::Upgrade => "upgrade",
            MigrationPolicy::Downgrade => "downgrade",
            MigrationPolicy::Bidirectional => "bidirectional",
        }
    }
}

impl std::fmt::Display for MigrationPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for MigrationPolicy {
    type Err = String;

    /// Parses Kafka's value, ignoring case as Kafka's validator does.
    ///
    /// # Errors
    /// A message naming the accepted values when `s` is none of them.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "disabled" => Ok(MigrationPolicy::Disabled),
            "upgrade" => Ok(MigrationPolicy::Upgrade),
            "downgrade" => Ok(MigrationPolicy::Downgrade),
            "bidirectional" => Ok(MigrationPolicy::Bidirectional),
            _ => Err(format!(
                "invalid group.consumer.migration.policy `{s}`: expected one of disabled, upgrade, downgrade, bidirectional"
            )),
        }
    }
}

pub use super::group::{ClassicMemberMetadata, ClassicProtocol};

/// Malformed embedded consumer-protocol bytes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConsumerProtocolError {
    /// Fewer than the two bytes of the version prefix.
    #[error("consumer protocol bytes are {0} bytes long, shorter than the 2-byte version")]
    MissingVersion(usize),
    /// A negative version (Kafka: `Unsupported subscription version`).
    #[error("unsupported consumer protocol version {0} at byte 0")]
    NegativeVersion(i16),
    /// The body does not decode (offset and field in the error).
    #[error("consumer protocol body: {0}")]
    Decode(#[from] DecodeError),
}

/// The version prefix of embedded consumer-protocol bytes (Kafka's
/// `ConsumerProtocol.deserializeVersion`).
///
/// # Errors
/// [`ConsumerProtocolError::MissingVersion`] when fewer than 2 bytes;
/// [`ConsumerProtocolError::NegativeVersion`] for a negative version.
pub fn protocol_version(bytes: &[u8]) -> Result<i16, ConsumerProtocolError> {
    if bytes.len() < 2 {
        return Err(ConsumerProtocolError::MissingVersion(bytes.len()));
    }
    let v = i16::from_be_bytes([bytes[0], bytes[1]]);
    if v < 0 {
        return Err(ConsumerProtocolError::NegativeVersion(v));
    }
    Ok(v)
}

/// Decodes a version-prefixed message whose versions are forward compatible: a version above the
/// highest known one is read as the highest (its extra fields, at the end, are ignored), as
/// Kafka's `ConsumerProtocol` does.
fn decode_prefixed<M: Message>(bytes: &Bytes) -> Result<M, ConsumerProtocolError> {
    let v = protocol_version(bytes)?;
    let v = v.min(M::VALID_VERSIONS.highest);
    let mut rest = bytes.slice(2..);
    Ok(M::decode_prefix(&mut rest, v)?)
}

/// Decodes a classic member's `consumer` protocol metadata (Kafka's
/// `ConsumerProtocol.deserializeConsumerProtocolSubscription`; trailing bytes are ignored).
///
/// # Errors
/// [`ConsumerProtocolError`] when the bytes are short, the version negative or the body
/// malformed (the error names the byte offset and field).
pub fn decode_subscription(
    bytes: &Bytes,
) -> Result<ConsumerProtocolSubscription, ConsumerProtocolError> {
    decode_prefixed(bytes)
}

/// Decodes a classic member's assignment bytes (Kafka's
/// `ConsumerProtocol.deserializeConsumerProtocolAssignment`).
///
/// # Errors
/// As [`decode_subscription`].
pub fn decode_assignment(
    bytes: &Bytes,
) -> Result<ConsumerProtocolAssignment, ConsumerProtocolError> {
    decode_prefixed(bytes)
}

/// Encodes an assignment as a classic member receives it in SyncGroup (Kafka's
/// `ConsumerProtocol.serializeAssignment`): the version prefix (the member's subscription version,
/// at most 3, the highest ConsumerProtocolAssignment version) and the topics by name in name
/// order with their partitions ascending; topics the metadata no longer knows are left out; no
/// user data.
pub fn encode_assignment(
    assigned: &Assignment,
    topics: &BTreeMap<String, TopicMetadata>,
    version: i16,
) -> Bytes {
    let version = version.clamp(0, ConsumerProtocolAssignment::VALID_VERSIONS.highest);
    let by_id: BTreeMap<Uuid, &str> = topics
        .values()
        .map(|t| (t.topic_id, t.name.as_str()))
        .collect();
    let mut named: BTreeMap<&str, &BTreeSet<i32>> = BTreeMap::new();
    for (t, ps) in assigned {
        if let Some(n) = by_id.get(t) {
            if !ps.is_empty() {
                named.insert(n, ps);
            }
        }
    }
    let msg = ConsumerProtocolAssignment {
        assigned_partitions: named
            .into_iter()
            .map(|(n, ps)| cpa::TopicPartition {
                topic: n.to_string().into(),
                partitions: ps.iter().copied().collect(),
            })
            .collect(),
        user_data: None,
    };
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&version.to_be_bytes());
    // Encoding a message built from valid names and partitions at a valid version cannot fail;
    // should it, the member gets the bare version prefix (an empty assignment).
    if msg.encode(&mut out, version).is_err() {
        out.truncate(2);
    }
    Bytes::from(out)
}

/// Topic names to ids through the metadata; unknown topics are dropped (Kafka's
/// `Utils.toTopicPartitionMap` / `toTopicPartitions`).
pub(crate) fn to_assignment<'a>(
    ctx: &Context,
    tps: impl Iterator<Item = (&'a str, Vec<i32>)>,
) -> Assignment {
    let mut a = Assignment::new();
    for (name, ps) in tps {
        if let Some(t) = ctx.topics.get(name) {
            if !ps.is_empty() {
                a.entry(t.topic_id).or_default().extend(ps);
            }
        }
    }
    a
}

/// One member of a classic group as a conversion sees it (either direction).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMemberSnapshot {
    /// The member id.
    pub member_id: String,
    /// The static instance id, if any.
    pub instance_id: Option<String>,
    /// Client id.
    pub client_id: String,
    /// Client host.
    pub client_host: String,
    /// Rebalance timeout (ms).
    pub rebalance_timeout_ms: i32,
    /// Session timeout (ms).
    pub session_timeout_ms: i32,
    /// The JoinGroup protocols, in preference order.
    pub protocols: Vec<ClassicProtocol>,
    /// The member's assignment (ConsumerProtocolAssignment bytes; empty for none).
    pub assignment: Bytes,
}

/// A classic group of protocol type `consumer` as a conversion sees it: what
/// `ConsumerGroup.fromClassicGroup` reads and `ClassicGroup.fromConsumerGroup` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicGroupSnapshot {
    /// The group id.
    pub group_id: String,
    /// The generation id (the consumer group's epoch on either side of a conversion).
    pub generation_id: i32,
    /// The protocol type (`consumer` for a convertible group), if any.
    pub protocol_type: Option<String>,
    /// The selected protocol name, if any.
    pub protocol_name: Option<String>,
    /// The members, by member id order.
    pub members: Vec<ClassicMemberSnapshot>,
}

/// Why an upgrade is refused: answered as GROUP_ID_NOT_FOUND with Kafka 4.4's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UpgradeRefused(pub String);

/// Kafka 4.4's `validateOnlineUpgrade`: the policy allows upgrades, the group uses the `consumer`
/// protocol type and its size fits `group.consumer.max.size`.
pub(crate) fn validate_upgrade(
    snap: &ClassicGroupSnapshot,
    policy: MigrationPolicy,
    consumer_max_size: i32,
) -> Result<(), UpgradeRefused> {
    let g = &snap.group_id;
    if !policy.is_upgrade_enabled() {
        return Err(UpgradeRefused(format!(
            "Cannot upgrade classic group {g} to consumer group because online upgrade is disabled."
        )));
    }
    if snap.protocol_type.as_deref() != Some(CONSUMER_PROTOCOL_TYPE) {
        return Err(UpgradeRefused(format!(
            "Cannot upgrade classic group {g} to consumer group because the group does not use the consumer embedded protocol."
        )));
    }
    if snap.members.len() > consumer_max_size.max(0) as usize {
        return Err(UpgradeRefused(format!(
            "Cannot upgrade classic group {g} to consumer group because the group size exceeds the consumer group maximum size."
        )));
    }
    Ok(())
}

/// The consumer group a classic group becomes (Kafka 4.4's `ConsumerGroup.fromClassicGroup`)
/// and the records that create it (`createConsumerGroupRecords`: member metadata, group epoch,
/// targets, target epoch, current assignments). Group epoch, assignment epoch and every
/// member's epoch (and previous epoch) are the classic generation; members are STABLE with their
/// last classic assignment as both current and target assignment.
///
/// # Errors
/// [`UpgradeRefused`] with Kafka's message when a member's subscription or assignment bytes are
/// malformed, or an assignment carries user data (a custom assignor whose data would be lost).
pub(crate) fn upgrade_records(
    snap: &ClassicGroupSnapshot,
    ctx: &Context,
) -> Result<Vec<ConsumerRecord>, UpgradeRefused> {
    let g = &snap.group_id;
    let malformed = || {
        UpgradeRefused(format!(
            "Cannot upgrade classic group {g} to consumer group because the embedded consumer protocol is malformed."
        ))
    };
    let protocol = snap.protocol_name.clone().unwrap_or_default();
    let epoch = snap.generation_id;
    let mut members = Vec::new();
    for m in &snap.members {
        let assigned = if m.assignment.is_empty() {
            Assignment::new()
        } else {
            let a = decode_assignment(&m.assignment).map_err(|_| malformed())?;
            if a.user_data.as_ref().is_some_and(|u| !u.is_empty()) {
                return Err(UpgradeRefused(format!(
                    "Cannot upgrade classic group {g} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade."
                )));
            }
            to_assignment(
                ctx,
                a.assigned_partitions
                    .iter()
                    .map(|tp| (&*tp.topic, tp.partitions.iter().collect())),
            )
        };
        // The selected protocol's metadata; before the group's first join phase ended there
        // is no selected protocol, and the member's first protocol is read.
        let metadata = m
            .protocols
            .iter()
            .find(|p| p.name == protocol)
            .or_else(|| m.protocols.first().filter(|_| snap.protocol_name.is_none()))
            .map(|p| p.metadata.clone())
            .ok_or_else(malformed)?;
        let sub = decode_subscription(&metadata).map_err(|_| malformed())?;
        let mut c = ConsumerGroupMember::new(&m.member_id);
        c.member_epoch = epoch;
        c.previous_member_epoch = epoch;
        c.state = MemberState::Stable;
        c.instance_id = m.instance_id.clone();
        c.rack_id = sub
            .rack_id
            .as_ref()
            .map(|r| r.to_string())
            .filter(|r| !r.is_empty());
        c.rebalance_timeout_ms = m.rebalance_timeout_ms;
        c.client_id = m.client_id.clone();
        c.client_host = m.client_host.clone();
        c.subscribed_topic_names = sub.topics.iter().map(|t| t.to_string()).collect();
        c.assigned = assigned;
        c.classic = Some(ClassicMemberMetadata {
            session_timeout_ms: m.session_timeout_ms,
            supported_protocols: m.protocols.clone(),
        });
        members.push(c);
    }
    let hash = ctx.metadata_hash(members.iter().flat_map(|m| m.subscribed_topic_names.iter()));
    let mut records = Vec::new();
    for m in &members {
        records.push(ConsumerRecord::member_metadata(g, m));
    }
    records.push(ConsumerRecord::group_epoch(g, epoch, hash));
    for m in &members {
        records.push(ConsumerRecord::target(g, &m.member_id, &m.assigned));
    }
    records.push(ConsumerRecord::target_epoch(g, epoch));
    for m in &members {
        records.push(ConsumerRecord::current(g, m));
    }
    Ok(records)
}

/// The records that delete a consumer group (Kafka's `createGroupTombstoneRecords`): current
/// assignment, target and member-metadata tombstones of every member, the target-epoch
/// tombstone, regex tombstones, and the group-epoch tombstone last.
pub(crate) fn tombstones(g: &ConsumerGroup) -> Vec<ConsumerRecord> {
    let gid = &g.group_id;
    let mut records = Vec::new();
    for id in g.members.keys() {
        records.push(ConsumerRecord::current_tombstone(gid, id));
    }
    for id in g.members.keys() {
        records.push(ConsumerRecord::target_tombstone(gid, id));
    }
    records.push(ConsumerRecord::target_epoch_tombstone(gid));
    for id in g.members.keys() {
        records.push(ConsumerRecord::member_metadata_tombstone(gid, id));
    }
    for re in g.regexes.keys() {
        records.push(ConsumerRecord::regex_tombstone(gid, re));
    }
    records.push(ConsumerRecord::group_tombstone(gid));
    records
}

/// Kafka's `ClassicGroup.selectProtocol`: among the protocols every member supports, the one
/// most members list first (each member votes for its most preferred candidate); a tie goes to
/// the name first in byte order (Kafka's tie depends on hash order). `None` when no protocol is
/// common to all.
pub(crate) fn select_protocol<'a>(
    members: impl Iterator<Item = &'a [ClassicProtocol]> + Clone,
) -> Option<String> {
    let mut candidates: Option<BTreeSet<&str>> = None;
    for ps in members.clone() {
        let names: BTreeSet<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        candidates = Some(match candidates {
            None => names,
            Some(c) => c.intersection(&names).copied().collect(),
        });
    }
    let candidates = candidates?;
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for ps in members {
        if let Some(p) = ps.iter().find(|p| candidates.contains(p.name.as_str())) {
            *votes.entry(p.name.as_str()).or_default() += 1;
        }
    }
    let best = votes.values().copied().max()?;
    votes
        .into_iter()
        .find(|(_, n)| *n == best)
        .map(|(name, _)| name.to_string())
}

/// The classic group a consumer group becomes (Kafka 4.4's `ClassicGroup.fromConsumerGroup`):
/// every member but the `leaving` ones (the joining static member replaces `replaced`, taking
/// its target), generation = the group epoch, protocol type `consumer`, the selected protocol,
/// and each member's assignment = its target assignment encoded at its subscription's version.
/// Members without classic metadata (never the case once the last consumer-protocol member
/// leaves) are skipped.
pub(crate) fn downgrade_snapshot(
    g: &ConsumerGroup,
    leaving: &BTreeSet<String>,
    joining: Option<(&ConsumerGroupMember, &str)>,
    ctx: &Context,
) -> ClassicGroupSnapshot {
    let mut members: Vec<(&ConsumerGroupMember, &str)> = g
        .members
        .values()
        .filter(|m| !leaving.contains(&m.member_id))
        .filter(|m| joining.is_none_or(|(_, replaced)| m.member_id != replaced))
        .map(|m| (m, m.member_id.as_str()))
        .collect();
    if let Some(j) = joining {
        members.push(j);
    }
    members.retain(|(m, _)| m.classic.is_some());
    let protocol = select_protocol(members.iter().map(|(m, _)| {
        m.classic
            .as_ref()
            .map_or(&[][..], |c| c.supported_protocols.as_slice())
    }));
    let empty = Assignment::new();
    let mut out: Vec<ClassicMemberSnapshot> = members
        .iter()
        .map(|(m, target_of)| {
            let c = m.classic.as_ref();
            let protocols = c.map(|c| c.supported_protocols.clone()).unwrap_or_default();
            let version = protocols
                .iter()
                .find(|p| Some(&p.name) == protocol.as_ref())
                .and_then(|p| protocol_version(&p.metadata).ok())
                .unwrap_or(0);
            let target = g.targets.get(*target_of).unwrap_or(&empty);
            ClassicMemberSnapshot {
                member_id: m.member_id.clone(),
                instance_id: m.instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                session_timeout_ms: c.map_or(0, |c| c.session_timeout_ms),
                protocols,
                assignment: encode_assignment(target, &ctx.topics, version),
            }
        })
        .collect();
    out.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    ClassicGroupSnapshot {
        group_id: g.group_id.clone(),
        generation_id: g.group_epoch,
        protocol_type: Some(CONSUMER_PROTOCOL_TYPE.to_string()),
        protocol_name: protocol,
        members: out,
    }
}

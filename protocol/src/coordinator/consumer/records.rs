//! The records the consumer-group coordinator writes: typed key/value pairs generated from kwire's
//! own specs in `schemas/` (`KwireConsumerGroup*Key` / `*Value`, docs/coordinator.md, D6).
//!
//! A record whose value is `None` is a tombstone: it deletes what its key names.
//! Every state change of the coordinator is a sequence of these records, and
//! [`replay`](super::replay) rebuilds the persisted and derived state from them.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use crate::generated::kwire_consumer_group_current_member_assignment_key::KwireConsumerGroupCurrentMemberAssignmentKey;
use crate::generated::kwire_consumer_group_current_member_assignment_value::{
    self as current_value, KwireConsumerGroupCurrentMemberAssignmentValue,
};
use crate::generated::kwire_consumer_group_member_metadata_key::KwireConsumerGroupMemberMetadataKey;
use crate::generated::kwire_consumer_group_member_metadata_value::{
    self as member_value, KwireConsumerGroupMemberMetadataValue,
};
use crate::generated::kwire_consumer_group_metadata_key::KwireConsumerGroupMetadataKey;
use crate::generated::kwire_consumer_group_metadata_value::KwireConsumerGroupMetadataValue;
use crate::generated::kwire_consumer_group_regular_expression_key::KwireConsumerGroupRegularExpressionKey;
use crate::generated::kwire_consumer_group_regular_expression_value::KwireConsumerGroupRegularExpressionValue;
use crate::generated::kwire_consumer_group_target_assignment_member_key::KwireConsumerGroupTargetAssignmentMemberKey;
use crate::generated::kwire_consumer_group_target_assignment_member_value::{
    self as target_value, KwireConsumerGroupTargetAssignmentMemberValue,
};
use crate::generated::kwire_consumer_group_target_assignment_metadata_key::KwireConsumerGroupTargetAssignmentMetadataKey;
use crate::generated::kwire_consumer_group_target_assignment_metadata_value::KwireConsumerGroupTargetAssignmentMetadataValue;

use super::assignor::Assignment;
use super::group::{ConsumerGroupMember, MemberState, ResolvedRegex};

/// One record of the consumer-group coordinator: a typed key and an optional value
/// (`None` = tombstone). The variants follow Kafka's consumer-group records; the record-type
/// numbers ([`ConsumerRecord::record_type`]) are kwire's own, the keys' `apiKey` in `schemas/`
/// (docs/coordinator.md, D6).
#[derive(Debug, Clone, PartialEq)]
pub enum ConsumerRecord {
    /// Group epoch and metadata hash.
    GroupMetadata(
        KwireConsumerGroupMetadataKey,
        Option<KwireConsumerGroupMetadataValue>,
    ),
    /// A member's metadata and subscription; the tombstone removes the member.
    MemberMetadata(
        KwireConsumerGroupMemberMetadataKey,
        Option<KwireConsumerGroupMemberMetadataValue>,
    ),
    /// The assignment epoch.
    TargetAssignmentMetadata(
        KwireConsumerGroupTargetAssignmentMetadataKey,
        Option<KwireConsumerGroupTargetAssignmentMetadataValue>,
    ),
    /// One member's target assignment.
    TargetAssignmentMember(
        KwireConsumerGroupTargetAssignmentMemberKey,
        Option<KwireConsumerGroupTargetAssignmentMemberValue>,
    ),
    /// One member's current assignment: epochs, reconciliation state, assigned and
    /// pending-revocation partitions.
    CurrentMemberAssignment(
        KwireConsumerGroupCurrentMemberAssignmentKey,
        Option<KwireConsumerGroupCurrentMemberAssignmentValue>,
    ),
    /// The resolution of one regular expression used by the group's members.
    RegularExpression(
        KwireConsumerGroupRegularExpressionKey,
        Option<KwireConsumerGroupRegularExpressionValue>,
    ),
}

impl ConsumerRecord {
    /// kwire's record-type number of this record (D6): its key's `apiKey` in `schemas/`
    /// (the generated `RECORD_TYPE` of the key struct; Kafka's `CoordinatorRecordType`).
    pub fn record_type(&self) -> i16 {
        match self {
            ConsumerRecord::GroupMetadata(..) => KwireConsumerGroupMetadataKey::RECORD_TYPE,
            ConsumerRecord::MemberMetadata(..) => KwireConsumerGroupMemberMetadataKey::RECORD_TYPE,
            ConsumerRecord::TargetAssignmentMetadata(..) => {
                KwireConsumerGroupTargetAssignmentMetadataKey::RECORD_TYPE
            }
            ConsumerRecord::TargetAssignmentMember(..) => {
                KwireConsumerGroupTargetAssignmentMemberKey::RECORD_TYPE
            }
            ConsumerRecord::CurrentMemberAssignment(..) => {
                KwireConsumerGroupCurrentMemberAssignmentKey::RECORD_TYPE
            }
            ConsumerRecord::RegularExpression(..) => {
                KwireConsumerGroupRegularExpressionKey::RECORD_TYPE
            }
        }
    }

    /// The group the record belongs to.
    pub fn group_id(&self) -> &str {
        match self {
            ConsumerRecord::GroupMetadata(k, _) => &k.group_id,
            ConsumerRecord::MemberMetadata(k, _) => &k.group_id,
            ConsumerRecord::TargetAssignmentMetadata(k, _) => &k.group_id,
            ConsumerRecord::TargetAssignmentMember(k, _) => &k.group_id,
            ConsumerRecord::CurrentMemberAssignment(k, _) => &k.group_id,
            ConsumerRecord::RegularExpression(k, _) => &k.group_id,
        }
    }

    /// Whether this is a tombstone (a key without a value).
    pub fn is_tombstone(&self) -> bool {
        match self {
            ConsumerRecord::GroupMetadata(_, v) => v.is_none(),
            ConsumerRecord::MemberMetadata(_, v) => v.is_none(),
            ConsumerRecord::TargetAssignmentMetadata(_, v) => v.is_none(),
            ConsumerRecord::TargetAssignmentMember(_, v) => v.is_none(),
            ConsumerRecord::CurrentMemberAssignment(_, v) => v.is_none(),
            ConsumerRecord::RegularExpression(_, v) => v.is_none(),
        }
    }

    pub(crate) fn group_epoch(group_id: &str, epoch: i32, hash: u64) -> ConsumerRecord {
        ConsumerRecord::GroupMetadata(
            KwireConsumerGroupMetadataKey {
                group_id: group_id.to_string().into(),
            },
            Some(KwireConsumerGroupMetadataValue {
                epoch,
                metadata_hash: hash as i64,
                ..Default::default()
            }),
        )
    }

    pub(crate) fn member_metadata(group_id: &str, m: &ConsumerGroupMember) -> ConsumerRecord {
        ConsumerRecord::MemberMetadata(
            member_key(group_id, &m.member_id),
            Some(KwireConsumerGroupMemberMetadataValue {
                instance_id: m.instance_id.clone().map(Into::into),
                rack_id: m.rack_id.clone().map(Into::into),
                client_id: m.client_id.clone().into(),
                client_host: m.client_host.clone().into(),
                subscribed_topic_names: m
                    .subscribed_topic_names
                    .iter()
                    .map(|s| s.clone().into())
                    .collect(),
                subscribed_topic_regex: m.subscribed_topic_regex.clone().map(Into::into),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                server_assignor: m.server_assignor.clone().map(Into::into),
                classic_member_metadata: m.classic.as_ref().map(|c| {
                    member_value::ClassicMemberMetadata {
                        session_timeout_ms: c.session_timeout_ms,
                        supported_protocols: c
                            .supported_protocols
                            .iter()
                            .map(|p| member_value::ClassicProtocol {
                                name: p.name.clone().into(),
                                metadata: p.metadata.clone(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    }
                }),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn member_metadata_tombstone(group_id: &str, member_id: &str) -> ConsumerRecord {
        ConsumerRecord::MemberMetadata(member_key(group_id, member_id), None)
    }

    pub(crate) fn target_epoch(group_id: &str, epoch: i32) -> ConsumerRecord {
        ConsumerRecord::TargetAssignmentMetadata(
            KwireConsumerGroupTargetAssignmentMetadataKey {
                group_id: group_id.to_string().into(),
            },
            Some(KwireConsumerGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                ..Default::default()
            }),
        )
    }

    /// The tombstone of the target-assignment epoch (part of a group's deletion).
    pub(crate) fn target_epoch_tombstone(group_id: &str) -> ConsumerRecord {
        ConsumerRecord::TargetAssignmentMetadata(
            KwireConsumerGroupTargetAssignmentMetadataKey {
                group_id: group_id.to_string().into(),
            },
            None,
        )
    }

    /// The tombstone of the group-epoch record: deletes the group.
    pub(crate) fn group_tombstone(group_id: &str) -> ConsumerRecord {
        ConsumerRecord::GroupMetadata(
            KwireConsumerGroupMetadataKey {
                group_id: group_id.to_string().into(),
            },
            None,
        )
    }

    pub(crate) fn target(group_id: &str, member_id: &str, a: &Assignment) -> ConsumerRecord {
        ConsumerRecord::TargetAssignmentMember(
            target_key(group_id, member_id),
            Some(KwireConsumerGroupTargetAssignmentMemberValue {
                topic_partitions: a
                    .iter()
                    .filter(|(_, p)| !p.is_empty())
                    .map(|(t, p)| target_value::TopicPartitions {
                        topic_id: *t,
                        partitions: p.iter().copied().collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn target_tombstone(group_id: &str, member_id: &str) -> ConsumerRecord {
        ConsumerRecord::TargetAssignmentMember(target_key(group_id, member_id), None)
    }

    pub(crate) fn current(group_id: &str, m: &ConsumerGroupMember) -> ConsumerRecord {
        ConsumerRecord::CurrentMemberAssignment(
            current_key(group_id, &m.member_id),
            Some(KwireConsumerGroupCurrentMemberAssignmentValue {
                member_epoch: m.member_epoch,
                previous_member_epoch: m.previous_member_epoch,
                state: m.state.as_i8(),
                assigned_partitions: current_tps(&m.assigned),
                partitions_pending_revocation: current_tps(&m.pending_revocation),
                ..Default::default()
            }),
        )
    }

    pub(crate) fn current_tombstone(group_id: &str, member_id: &str) -> ConsumerRecord {
        ConsumerRecord::CurrentMemberAssignment(current_key(group_id, member_id), None)
    }

    pub(crate) fn regex(group_id: &str, regex: &str, r: &ResolvedRegex) -> ConsumerRecord {
        ConsumerRecord::RegularExpression(
            regex_key(group_id, regex),
            Some(KwireConsumerGroupRegularExpressionValue {
                topics: r.topics.iter().map(|s| s.clone().into()).collect(),
                version: r.version,
                timestamp: r.timestamp_ms,
                ..Default::default()
            }),
        )
    }

    pub(crate) fn regex_tombstone(group_id: &str, regex: &str) -> ConsumerRecord {
        ConsumerRecord::RegularExpression(regex_key(group_id, regex), None)
    }
}

fn member_key(group_id: &str, member_id: &str) -> KwireConsumerGroupMemberMetadataKey {
    KwireConsumerGroupMemberMetadataKey {
        group_id: group_id.to_string().into(),
        member_id: member_id.to_string().into(),
    }
}

fn target_key(group_id: &str, member_id: &str) -> KwireConsumerGroupTargetAssignmentMemberKey {
    KwireConsumerGroupTargetAssignmentMemberKey {
        group_id: group_id.to_string().into(),
        member_id: member_id.to_string().into(),
    }
}

fn current_key(group_id: &str, member_id: &str) -> KwireConsumerGroupCurrentMemberAssignmentKey {
    KwireConsumerGroupCurrentMemberAssignmentKey {
        group_id: group_id.to_string().into(),
        member_id: member_id.to_string().into(),
    }
}

fn regex_key(group_id: &str, regex: &str) -> KwireConsumerGroupRegularExpressionKey {
    KwireConsumerGroupRegularExpressionKey {
        group_id: group_id.to_string().into(),
        regular_expression: regex.to_string().into(),
    }
}

fn current_tps(a: &Assignment) -> Vec<current_value::TopicPartitions> {
    a.iter()
        .filter(|(_, p)| !p.is_empty())
        .map(|(t, p)| current_value::TopicPartitions {
            topic_id: *t,
            partitions: p.iter().copied().collect(),
            ..Default::default()
        })
        .collect()
}

/// Reads an assignment back from a record's topic list (duplicates merge; empty topics vanish).
pub(crate) fn assignment_from_current(tps: &[current_value::TopicPartitions]) -> Assignment {
    let mut a = Assignment::new();
    for tp in tps {
        let set: std::collections::BTreeSet<i32> = tp.partitions.iter().collect();
        if !set.is_empty() {
            a.entry(tp.topic_id).or_default().extend(set);
        }
    }
    a
}

/// Reads a target assignment back from its record.
pub(crate) fn assignment_from_target(tps: &[target_value::TopicPartitions]) -> Assignment {
    let mut a = Assignment::new();
    for tp in tps {
        let set: std::collections::BTreeSet<i32> = tp.partitions.iter().collect();
        if !set.is_empty() {
            a.entry(tp.topic_id).or_default().extend(set);
        }
    }
    a
}

impl MemberState {
    /// The byte stored in the current-assignment record.
    pub fn as_i8(self) -> i8 {
        match self {
            MemberState::Stable => 0,
            MemberState::UnrevokedPartitions => 1,
            MemberState::UnreleasedPartitions => 2,
            MemberState::Unknown => 127,
        }
    }

    /// Reads the stored byte; any value not known is [`MemberState::Unknown`].
    pub fn from_i8(v: i8) -> MemberState {
        match v {
            0 => MemberState::Stable,
            1 => MemberState::UnrevokedPartitions,
            2 => MemberState::UnreleasedPartitions,
            _ => MemberState::Unknown,
        }
    }
}

/// Reads a member's classic-protocol data back from its member-metadata record.
pub(crate) fn classic_from_record(
    v: &member_value::ClassicMemberMetadata,
) -> super::group::ClassicMemberMetadata {
    super::group::ClassicMemberMetadata {
        session_timeout_ms: v.session_timeout_ms,
        supported_protocols: v
            .supported_protocols
            .iter()
            .map(|p| super::group::ClassicProtocol {
                name: p.name.to_string(),
                metadata: p.metadata.clone(),
            })
            .collect(),
    }
}

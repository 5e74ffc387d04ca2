//! The records the classic-group coordinator writes: typed key/value pairs generated from
//! kwire's own specs in `schemas/` (`KwireClassicGroup*Key` / `*Value`, docs/coordinator.md D6).
//!
//! Kafka writes a classic group as one `GroupMetadata` record holding every member, and only
//! when a generation's assignment is stored or the group becomes empty; its in-memory state
//! between those writes is not what the log says. kwire keeps the rule "state == replay of the
//! records" of its other group types, so it writes one record for the group (generation,
//! protocol, leader, state) and one per member, each time they change. A join costs
//! one member record rather than the whole group.

use bytes::Bytes;

use crate::generated::kwire_classic_group_member_key::KwireClassicGroupMemberKey;
use crate::generated::kwire_classic_group_member_value::{KwireClassicGroupMemberValue, Protocol};
use crate::generated::kwire_classic_group_metadata_key::KwireClassicGroupMetadataKey;
use crate::generated::kwire_classic_group_metadata_value::KwireClassicGroupMetadataValue;

use super::group::{ClassicGroup, ClassicGroupMember, ClassicProtocol};

/// One record of the classic-group coordinator: a typed key and an optional value (`None` =
/// tombstone). Record-type numbers are kwire's own (D6): the keys' `apiKey` in `schemas/`.
#[derive(Debug, Clone, PartialEq)]
pub enum ClassicRecord {
    /// The group's generation, protocol, leader and state; the tombstone deletes the
    /// group with its members.
    GroupMetadata(
        KwireClassicGroupMetadataKey,
        Option<KwireClassicGroupMetadataValue>,
    ),
    /// One member; the tombstone removes it.
    Member(
        KwireClassicGroupMemberKey,
        Option<KwireClassicGroupMemberValue>,
    ),
}

impl ClassicRecord {
    /// kwire's record-type number (D6): its key's `apiKey` in `schemas/` (the generated
    /// `RECORD_TYPE` of the key struct).
    pub fn record_type(&self) -> i16 {
        match self {
            ClassicRecord::GroupMetadata(..) => KwireClassicGroupMetadataKey::RECORD_TYPE,
            ClassicRecord::Member(..) => KwireClassicGroupMemberKey::RECORD_TYPE,
        }
    }

    /// The group the record belongs to.
    pub fn group_id(&self) -> &str {
        match self {
            ClassicRecord::GroupMetadata(k, _) => &k.group_id,
            ClassicRecord::Member(k, _) => &k.group_id,
        }
    }

    /// Whether this is a tombstone (a key without a value).
    pub fn is_tombstone(&self) -> bool {
        match self {
            ClassicRecord::GroupMetadata(_, v) => v.is_none(),
            ClassicRecord::Member(_, v) => v.is_none(),
        }
    }

    /// The group-metadata record of `g` (its members are written separately).
    pub fn group(g: &ClassicGroup) -> ClassicRecord {
        ClassicRecord::GroupMetadata(
            KwireClassicGroupMetadataKey {
                group_id: g.group_id.clone().into(),
            },
            Some(KwireClassicGroupMetadataValue {
                protocol_type: g.protocol_type.clone().map(Into::into),
                generation: g.generation_id,
                protocol_name: g.protocol_name.clone().map(Into::into),
                leader: g.leader_id.clone().map(Into::into),
                state: g.state.as_i8(),
                current_state_timestamp: g.current_state_timestamp,
                ..Default::default()
            }),
        )
    }

    /// The tombstone deleting group `group_id` and its members.
    pub fn group_tombstone(group_id: &str) -> ClassicRecord {
        ClassicRecord::GroupMetadata(
            KwireClassicGroupMetadataKey {
                group_id: group_id.to_string().into(),
            },
            None,
        )
    }

    /// The record of member `m` of `group_id`.
    pub fn member(group_id: &str, m: &ClassicGroupMember) -> ClassicRecord {
        ClassicRecord::Member(
            KwireClassicGroupMemberKey {
                group_id: group_id.to_string().into(),
                member_id: m.member_id.clone().into(),
            },
            Some(KwireClassicGroupMemberValue {
                group_instance_id: m.group_instance_id.clone().map(Into::into),
                client_id: m.client_id.clone().into(),
                client_host: m.client_host.clone().into(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                session_timeout_ms: m.session_timeout_ms,
                protocol_type: m.protocol_type.clone().into(),
                protocols: m
                    .protocols
                    .iter()
                    .map(|p| Protocol {
                        name: p.name.clone().into(),
                        metadata: p.metadata.clone(),
                        ..Default::default()
                    })
                    .collect(),
                assignment: m.assignment.clone(),
                ..Default::default()
            }),
        )
    }

    /// The tombstone removing member `member_id` of `group_id`.
    pub fn member_tombstone(group_id: &str, member_id: &str) -> ClassicRecord {
        ClassicRecord::Member(
            KwireClassicGroupMemberKey {
                group_id: group_id.to_string().into(),
                member_id: member_id.to_string().into(),
            },
            None,
        )
    }
}

/// The member a member record describes.
pub(crate) fn member_from_record(
    member_id: &str,
    v: &KwireClassicGroupMemberValue,
) -> ClassicGroupMember {
    ClassicGroupMember {
        member_id: member_id.to_string(),
        group_instance_id: v.group_instance_id.as_ref().map(|s| s.to_string()),
        client_id: v.client_id.to_string(),
        client_host: v.client_host.to_string(),
        rebalance_timeout_ms: v.rebalance_timeout_ms,
        session_timeout_ms: v.session_timeout_ms,
        protocol_type: v.protocol_type.to_string(),
        protocols: v
            .protocols
            .iter()
            .map(|p| ClassicProtocol {
                name: p.name.to_string(),
                metadata: Bytes::clone(&p.metadata),
            })
            .collect(),
        assignment: Bytes::clone(&v.assignment),
    }
}

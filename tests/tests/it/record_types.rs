//! The coordinator record types of `schemas/` (Kafka 4.x `coordinator-key` and
//! `coordinator-value` specs, paired by their `apiKey`): the generated `CoordinatorRecordType`,
//! the `RECORD_TYPE` constant of every key and value struct, and their `Message` facts agree with
//! one another and with the numbers kwire's logs already hold (a record type never changes).

use kwire_protocol::generated::*;
use kwire_protocol::wire::{Message, MessageKind, VersionRange};

/// One record type's facts, as the generated code gives them.
struct Pair {
    ty: CoordinatorRecordType,
    key_type: i16,
    value_type: i16,
    key: (&'static str, MessageKind, Option<i16>, VersionRange),
    value: (&'static str, MessageKind, Option<i16>, VersionRange),
}

fn pair<K: Message, V: Message>(ty: CoordinatorRecordType, key_type: i16, value_type: i16) -> Pair {
    Pair {
        ty,
        key_type,
        value_type,
        key: (K::NAME, K::KIND, K::API_KEY, K::VALID_VERSIONS),
        value: (V::NAME, V::KIND, V::API_KEY, V::VALID_VERSIONS),
    }
}

macro_rules! pairs {
    ($($variant:ident: $key:ident, $value:ident;)*) => {
        vec![$(pair::<$key, $value>(CoordinatorRecordType::$variant, $key::RECORD_TYPE, $value::RECORD_TYPE)),*]
    };
}

/// kwire's record types, by number: fixed once records of the type have been written.
const NUMBERS: [(i16, &str); 18] = [
    (3, "KwireConsumerGroupMetadata"),
    (5, "KwireConsumerGroupMemberMetadata"),
    (6, "KwireConsumerGroupTargetAssignmentMetadata"),
    (7, "KwireConsumerGroupTargetAssignmentMember"),
    (8, "KwireConsumerGroupCurrentMemberAssignment"),
    (16, "KwireConsumerGroupRegularExpression"),
    (17, "KwireStreamsGroupMetadata"),
    (18, "KwireStreamsGroupTopology"),
    (19, "KwireStreamsGroupMemberMetadata"),
    (20, "KwireStreamsGroupTargetAssignmentMember"),
    (21, "KwireStreamsGroupTargetAssignmentMetadata"),
    (22, "KwireStreamsGroupCurrentMemberAssignment"),
    (23, "KwireClassicGroupMetadata"),
    (24, "KwireClassicGroupMember"),
    (25, "KwireStreamsGroupTopologyDescription"),
    (30, "KwireCommittedOffset"),
    (31, "KwireTopic"),
    (32, "KwirePartitionEnd"),
];

#[test]
fn record_types_match_their_key_and_value_specs() {
    let all = pairs! {
        KwireConsumerGroupMetadata: KwireConsumerGroupMetadataKey, KwireConsumerGroupMetadataValue;
        KwireConsumerGroupMemberMetadata: KwireConsumerGroupMemberMetadataKey, KwireConsumerGroupMemberMetadataValue;
        KwireConsumerGroupTargetAssignmentMetadata: KwireConsumerGroupTargetAssignmentMetadataKey, KwireConsumerGroupTargetAssignmentMetadataValue;
        KwireConsumerGroupTargetAssignmentMember: KwireConsumerGroupTargetAssignmentMemberKey, KwireConsumerGroupTargetAssignmentMemberValue;
        KwireConsumerGroupCurrentMemberAssignment: KwireConsumerGroupCurrentMemberAssignmentKey, KwireConsumerGroupCurrentMemberAssignmentValue;
        KwireConsumerGroupRegularExpression: KwireConsumerGroupRegularExpressionKey, KwireConsumerGroupRegularExpressionValue;
        KwireStreamsGroupMetadata: KwireStreamsGroupMetadataKey, KwireStreamsGroupMetadataValue;
        KwireStreamsGroupTopology: KwireStreamsGroupTopologyKey, KwireStreamsGroupTopologyValue;
        KwireStreamsGroupMemberMetadata: KwireStreamsGroupMemberMetadataKey, KwireStreamsGroupMemberMetadataValue;
        KwireStreamsGroupTargetAssignmentMember: KwireStreamsGroupTargetAssignmentMemberKey, KwireStreamsGroupTargetAssignmentMemberValue;
        KwireStreamsGroupTargetAssignmentMetadata: KwireStreamsGroupTargetAssignmentMetadataKey, KwireStreamsGroupTargetAssignmentMetadataValue;
        KwireStreamsGroupCurrentMemberAssignment: KwireStreamsGroupCurrentMemberAssignmentKey, KwireStreamsGroupCurrentMemberAssignmentValue;
        KwireClassicGroupMetadata: KwireClassicGroupMetadataKey, KwireClassicGroupMetadataValue;
        KwireClassicGroupMember: KwireClassicGroupMemberKey, KwireClassicGroupMemberValue;
        KwireStreamsGroupTopologyDescription: KwireStreamsGroupTopologyDescriptionKey, KwireStreamsGroupTopologyDescriptionValue;
        KwireCommittedOffset: KwireCommittedOffsetKey, KwireCommittedOffsetValue;
        KwireTopic: KwireTopicKey, KwireTopicValue;
        KwirePartitionEnd: KwirePartitionEndKey, KwirePartitionEndValue;
    };
    assert_eq!(all.len(), CoordinatorRecordType::ALL.len());
    for (p, (number, name)) in all.iter().zip(NUMBERS) {
        let id = p.ty.id();
        assert_eq!((id, p.ty.name(), p.ty.to_string().as_str()), (number, name, name));
        assert_eq!((p.key_type, p.value_type), (id, id), "{name}: RECORD_TYPE of key and value");
        assert_eq!(p.key, (p.ty.key_name(), MessageKind::CoordinatorKey, Some(id), VersionRange::new(0, 0)), "{name}: key");
        assert_eq!((p.value.0, p.value.1, p.value.2), (p.ty.value_name(), MessageKind::CoordinatorValue, Some(id)), "{name}: value");
        assert_eq!(p.value.3, p.ty.value_versions(), "{name}: value versions");
        assert_eq!((p.ty.key_name(), p.ty.value_name()), (format!("{name}Key").as_str(), format!("{name}Value").as_str()));
        assert_eq!(CoordinatorRecordType::from_id(id), Some(p.ty));
        assert_eq!(CoordinatorRecordType::try_from(id), Ok(p.ty));
    }
    let ids: Vec<i16> = CoordinatorRecordType::ALL.iter().map(|t| t.id()).collect();
    assert_eq!(ids, NUMBERS.map(|(n, _)| n), "ALL is sorted by number");
    for free in [-1, 0, 1, 2, 4, 9, 15, 26, 29, 33, i16::MAX, i16::MIN] {
        assert_eq!(CoordinatorRecordType::from_id(free), None, "{free}");
        assert_eq!(CoordinatorRecordType::try_from(free), Err(free));
    }
}

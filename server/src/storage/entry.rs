//! The entries of the durable log and their codec: a record type, a key and an optional value
//! (a tombstone has none), each encoded with kwire's generated codec at version 0, framed with
//! a length and a CRC-32C (the format is in [`super::file`]'s docs).
//!
//! Record types are the generated [`CoordinatorRecordType`]s (the `apiKey` of each
//! `coordinator-key` spec in `schemas/`): the coordinator's records
//! ([`kwire_protocol::coordinator::Record::record_type`]) and kwire-server's own committed
//! offsets, topics and partition end offsets (`KwireCommittedOffsetKey::RECORD_TYPE`, ...). A
//! type this version does not know is skipped on replay.

use bytes::Bytes;
use kwire_protocol::coordinator::classic::ClassicRecord;
use kwire_protocol::coordinator::streams::StreamsRecord;
use kwire_protocol::coordinator::{ConsumerRecord, Record};
use kwire_protocol::generated::coordinator_record_type::CoordinatorRecordType;
use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_partition_end_key::KwirePartitionEndKey;
use kwire_protocol::generated::kwire_partition_end_value::KwirePartitionEndValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::KwireTopicValue;
use kwire_protocol::records::crc32c;
use kwire_protocol::wire::{DecodeError, Encode, EncodeError, Message};

/// The topic of the partition-end entry ([`Entry::PartitionEnd`]) that holds the end of the
/// last block of producer ids reserved for InitProducerId (partition -1): empty, which no topic
/// can be named.
pub const PRODUCER_ID_BLOCK_TOPIC: &str = "";

/// One entry of the log.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A consumer- or streams-group coordinator record.
    Group(Record),
    /// A committed offset (`None`: deleted).
    Offset(KwireCommittedOffsetKey, Option<KwireCommittedOffsetValue>),
    /// A topic (`None`: deleted).
    Topic(KwireTopicKey, Option<KwireTopicValue>),
    /// A partition's log end offset (`None`: forgotten).
    PartitionEnd(KwirePartitionEndKey, Option<KwirePartitionEndValue>),
}

fn key_value<K: Encode, V: Encode>(
    k: &K,
    v: &Option<V>,
) -> Result<(Bytes, Option<Bytes>), EncodeError> {
    Ok((
        k.to_bytes(0)?,
        v.as_ref().map(|v| v.to_bytes(0)).transpose()?,
    ))
}

fn decode_kv<K: Message, V: Message>(
    k: Bytes,
    v: Option<Bytes>,
) -> Result<(K, Option<V>), DecodeError> {
    Ok((
        K::decode_bytes(k, 0)?,
        v.map(|v| V::decode_bytes(v, 0)).transpose()?,
    ))
}

impl Entry {
    /// The entry's record type.
    pub fn record_type(&self) -> i16 {
        match self {
            Entry::Group(r) => r.record_type(),
            Entry::Offset(..) => KwireCommittedOffsetKey::RECORD_TYPE,
            Entry::Topic(..) => KwireTopicKey::RECORD_TYPE,
            Entry::PartitionEnd(..) => KwirePartitionEndKey::RECORD_TYPE,
        }
    }

    fn key_value(&self) -> Result<(Bytes, Option<Bytes>), EncodeError> {
        match self {
            Entry::Offset(k, v) => key_value(k, v),
            Entry::Topic(k, v) => key_value(k, v),
            Entry::PartitionEnd(k, v) => key_value(k, v),
            Entry::Group(r) => match r {
                Record::Consumer(c) => match c {
                    ConsumerRecord::GroupMetadata(k, v) => key_value(k, v),
                    ConsumerRecord::MemberMetadata(k, v) => key_value(k, v),
                    ConsumerRecord::TargetAssignmentMetadata(k, v) => key_value(k, v),
                    ConsumerRecord::TargetAssignmentMember(k, v) => key_value(k, v),
                    ConsumerRecord::CurrentMemberAssignment(k, v) => key_value(k, v),
                    ConsumerRecord::RegularExpression(k, v) => key_value(k, v),
                },
                Record::Streams(s) => match s {
                    StreamsRecord::GroupMetadata(k, v) => key_value(k, v),
                    StreamsRecord::Topology(k, v) => key_value(k, v),
                    StreamsRecord::MemberMetadata(k, v) => key_value(k, v),
                    StreamsRecord::TargetAssignmentMember(k, v) => key_value(k, v),
                    StreamsRecord::TargetAssignmentMetadata(k, v) => key_value(k, v),
                    StreamsRecord::CurrentMemberAssignment(k, v) => key_value(k, v),
                    StreamsRecord::TopologyDescription(k, v) => key_value(k, v),
                },
                Record::Classic(c) => match c {
                    ClassicRecord::GroupMetadata(k, v) => key_value(k, v),
                    ClassicRecord::Member(k, v) => key_value(k, v),
                },
            },
        }
    }

    /// Decodes an entry of `record_type`; `Ok(None)` for a type this version does not know.
    ///
    /// # Errors
    /// The key's or value's decode error.
    pub fn decode(
        record_type: i16,
        key: Bytes,
        value: Option<Bytes>,
    ) -> Result<Option<Entry>, DecodeError> {
        macro_rules! group {
            ($variant:path) => {{
                let (k, v) = decode_kv(key, value)?;
                Entry::Group(Record::Consumer($variant(k, v)))
            }};
        }
        macro_rules! streams {
            ($variant:path) => {{
                let (k, v) = decode_kv(key, value)?;
                Entry::Group(Record::Streams($variant(k, v)))
            }};
        }
        macro_rules! classic {
            ($variant:path) => {{
                let (k, v) = decode_kv(key, value)?;
                Entry::Group(Record::Classic($variant(k, v)))
            }};
        }
        use CoordinatorRecordType as T;
        let Some(t) = CoordinatorRecordType::from_id(record_type) else {
            return Ok(None);
        };
        Ok(Some(match t {
            T::KwireCommittedOffset => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Offset(k, v)
            }
            T::KwireTopic => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Topic(k, v)
            }
            T::KwirePartitionEnd => {
                let (k, v) = decode_kv(key, value)?;
                Entry::PartitionEnd(k, v)
            }
            T::KwireConsumerGroupMetadata => group!(ConsumerRecord::GroupMetadata),
            T::KwireConsumerGroupMemberMetadata => group!(ConsumerRecord::MemberMetadata),
            T::KwireConsumerGroupTargetAssignmentMetadata => {
                group!(ConsumerRecord::TargetAssignmentMetadata)
            }
            T::KwireConsumerGroupTargetAssignmentMember => {
                group!(ConsumerRecord::TargetAssignmentMember)
            }
            T::KwireConsumerGroupCurrentMemberAssignment => {
                group!(ConsumerRecord::CurrentMemberAssignment)
            }
            T::KwireConsumerGroupRegularExpression => group!(ConsumerRecord::RegularExpression),
            T::KwireStreamsGroupMetadata => streams!(StreamsRecord::GroupMetadata),
            T::KwireStreamsGroupTopology => streams!(StreamsRecord::Topology),
            T::KwireStreamsGroupMemberMetadata => streams!(StreamsRecord::MemberMetadata),
            T::KwireStreamsGroupTargetAssignmentMember => {
                streams!(StreamsRecord::TargetAssignmentMember)
            }
            T::KwireStreamsGroupTargetAssignmentMetadata => {
                streams!(StreamsRecord::TargetAssignmentMetadata)
            }
            T::KwireStreamsGroupCurrentMemberAssignment => {
                streams!(StreamsRecord::CurrentMemberAssignment)
            }
            T::KwireStreamsGroupTopologyDescription => {
                streams!(StreamsRecord::TopologyDescription)
            }
            T::KwireClassicGroupMetadata => classic!(ClassicRecord::GroupMetadata),
            T::KwireClassicGroupMember => classic!(ClassicRecord::Member),
        }))
    }

    /// Appends the framed entry (length, CRC, payload) to `out`.
    ///
    /// # Errors
    /// An encode error of the key or value.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let (key, value) = self.key_value()?;
        let n = 2 + 4 + key.len() + 1 + value.as_ref().map_or(0, |v| v.len());
        let start = out.len();
        out.extend_from_slice(&(n as u32).to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&self.record_type().to_be_bytes());
        out.extend_from_slice(&(key.len() as i32).to_be_bytes());
        out.extend_from_slice(&key);
        match &value {
            Some(v) => {
                out.push(1);
                out.extend_from_slice(v);
            }
            None => out.push(0),
        }
        let crc = crc32c(&out[start + 8..]);
        out[start + 4..start + 8].copy_from_slice(&crc.to_be_bytes());
        Ok(())
    }
}

//! Control records: the transaction markers a coordinator writes (KIP-98), typed from the
//! generated `ControlRecordTypeSchema` (key) and `EndTxnMarker` (value).

use bytes::{BufMut, Bytes, BytesMut};

use super::error::RecordsError;
use crate::generated::{ControlRecordTypeSchema, EndTxnMarker};
use crate::wire::{Encode, Message};

/// Control record type 0: abort marker (Kafka's `ControlRecordType.ABORT`).
const ABORT: i16 = 0;
/// Control record type 1: commit marker (`ControlRecordType.COMMIT`).
const COMMIT: i16 = 1;

/// A control record of a control batch (attribute bit 5).
///
/// The key is `version` (int16, 0) followed by `ControlRecordTypeSchema` (`type`, int16); the
/// value of an abort or commit marker is `version` (int16, 0) followed by `EndTxnMarker`
/// (`coordinator_epoch`, int32). Other types (KRaft's leader change, snapshot header and footer,
/// voters, …) are kept as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlRecord {
    /// Type 0: the transaction aborted.
    Abort {
        /// Version of the `EndTxnMarker` value (0).
        version: i16,
        /// Epoch of the transaction coordinator that wrote the marker.
        coordinator_epoch: i32,
    },
    /// Type 1: the transaction committed.
    Commit {
        /// Version of the `EndTxnMarker` value (0).
        version: i16,
        /// Epoch of the transaction coordinator that wrote the marker.
        coordinator_epoch: i32,
    },
    /// Any other type, with the record's whole key and value.
    Other {
        /// The control record type (the key's int16 after its version).
        r#type: i16,
        /// The whole key (version and type included).
        key: Bytes,
        /// The whole value; `None` when null.
        value: Option<Bytes>,
    },
}

fn decode_err(what: &str, e: crate::wire::DecodeError) -> RecordsError {
    RecordsError::invalid(format!("control record {what}: {e}"), 0)
}

impl ControlRecord {
    /// Reads a control record from its key and value (Kafka's `ControlRecordType.parse` and
    /// `EndTransactionMarker.deserializeValue`): key versions above 0 are read as version 0, as
    /// Kafka does; bytes after the known fields are ignored.
    ///
    /// # Errors
    /// [`RecordsErrorKind::Invalid`](super::RecordsErrorKind::Invalid) for a key under 4 bytes,
    /// a negative key or value version, a null or short marker value.
    pub fn parse(key: &[u8], value: Option<&[u8]>) -> Result<ControlRecord, RecordsError> {
        if key.len() < 4 {
            return Err(RecordsError::invalid(
                format!(
                    "control record key of {} bytes (at least 4: version, type)",
                    key.len()
                ),
                0,
            ));
        }
        let key_version = i16::from_be_bytes([key[0], key[1]]);
        if key_version < 0 {
            return Err(RecordsError::invalid(
                format!("negative control record key version {key_version}"),
                0,
            ));
        }
        let mut rest = Bytes::copy_from_slice(&key[2..]);
        let schema = ControlRecordTypeSchema::decode_prefix(&mut rest, 0)
            .map_err(|e| decode_err("key", e))?;
        match schema.r#type {
            t @ (ABORT | COMMIT) => {
                let Some(value) = value else {
                    return Err(RecordsError::invalid(
                        "transaction marker with a null value",
                        0,
                    ));
                };
                if value.len() < 2 {
                    return Err(RecordsError::invalid(
                        "transaction marker value under 2 bytes",
                        0,
                    ));
                }
                let version = i16::from_be_bytes([value[0], value[1]]);
                if version < 0 {
                    return Err(RecordsError::invalid(
                        format!("negative transaction marker version {version}"),
                        0,
                    ));
                }
                let mut rest = Bytes::copy_from_slice(&value[2..]);
                let marker = EndTxnMarker::decode_prefix(&mut rest, 0)
                    .map_err(|e| decode_err("value", e))?;
                let coordinator_epoch = marker.coordinator_epoch;
                Ok(if t == ABORT {
                    ControlRecord::Abort {
                        version,
                        coordinator_epoch,
                    }
                } else {
                    ControlRecord::Commit {
                        version,
                        coordinator_epoch,
                    }
                })
            }
            t => Ok(ControlRecord::Other {
                r#type: t,
                key: Bytes::copy_from_slice(key),
                value: value.map(Bytes::copy_from_slice),
            }),
        }
    }

    /// The control record type (0 abort, 1 commit, others as read).
    pub fn control_type(&self) -> i16 {
        match self {
            ControlRecord::Abort { .. } => ABORT,
            ControlRecord::Commit { .. } => COMMIT,
            ControlRecord::Other { r#type, .. } => *r#type,
        }
    }

    /// The record's key and value: for a marker, key version 0 and the type, value `version`
    /// and `EndTxnMarker` (as Kafka's `EndTransactionMarker` writes them); for
    /// [`ControlRecord::Other`], its key and value (an empty value for a null one).
    pub fn encode(&self) -> (Bytes, Bytes) {
        let marker = |t: i16, version: i16, coordinator_epoch: i32| {
            let mut key = BytesMut::with_capacity(4);
            key.put_i16(0);
            key.put_slice(
                &ControlRecordTypeSchema { r#type: t }
                    .to_bytes(0)
                    .expect("version 0 is valid"),
            );
            let mut value = BytesMut::with_capacity(6);
            value.put_i16(version);
            value.put_slice(
                &EndTxnMarker { coordinator_epoch }
                    .to_bytes(0)
                    .expect("version 0 is valid"),
            );
            (key.freeze(), value.freeze())
        };
        match self {
            ControlRecord::Abort {
                version,
                coordinator_epoch,
            } => marker(ABORT, *version, *coordinator_epoch),
            ControlRecord::Commit {
                version,
                coordinator_epoch,
            } => marker(COMMIT, *version, *coordinator_epoch),
            ControlRecord::Other { key, value, .. } => {
                (key.clone(), value.clone().unwrap_or_default())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        let c = ControlRecord::Commit {
            version: 0,
            coordinator_epoch: 7,
        };
        let (k, v) = c.encode();
        assert_eq!(&k[..], [0, 0, 0, 1]);
        assert_eq!(&v[..], [0, 0, 0, 0, 0, 7]);
        assert_eq!(ControlRecord::parse(&k, Some(&v)).unwrap(), c);
        let a = ControlRecord::Abort {
            version: 0,
            coordinator_epoch: -1,
        };
        let (k, v) = a.encode();
        assert_eq!(&k[..], [0, 0, 0, 0]);
        assert_eq!(ControlRecord::parse(&k, Some(&v)).unwrap(), a);
        assert_eq!(a.control_type(), 0);
    }

    #[test]
    fn other_types_and_errors() {
        let o = ControlRecord::parse(&[0, 0, 0, 2], Some(b"x")).unwrap();
        assert_eq!(o.control_type(), 2);
        assert_eq!(o.encode().1, Bytes::from_static(b"x"));
        assert!(ControlRecord::parse(&[0, 0, 0], None).is_err());
        assert!(ControlRecord::parse(&[0xff, 0xff, 0, 0], Some(&[0, 0, 0, 0, 0, 0])).is_err());
        assert!(ControlRecord::parse(&[0, 0, 0, 1], None).is_err());
        assert!(ControlRecord::parse(&[0, 0, 0, 1], Some(&[0, 0, 0])).is_err());
        assert!(ControlRecord::parse(&[0, 0, 0, 0], Some(&[0x80, 0, 0, 0, 0, 0])).is_err());
        // A newer key version is read as version 0.
        assert_eq!(
            ControlRecord::parse(&[0, 1, 0, 0], Some(&[0, 0, 0, 0, 0, 3])).unwrap(),
            ControlRecord::Abort {
                version: 0,
                coordinator_epoch: 3
            }
        );
    }
}

//! The durable record log of `--data DIR`: coordinator records, committed offsets and created
//! topics, appended to one file, `DIR/kwire-server.log`, and replayed on start.
//!
//! # Format
//!
//! All integers are big-endian. The file starts with a 12-byte header: the ASCII magic
//! `KWIRELOG` and the format version, `u32` 1. Entries follow, back to back:
//!
//! ```text
//! u32  N        length of the payload that follows the CRC
//! u32  crc      CRC-32C (Castagnoli) of the N payload bytes
//! payload (N bytes):
//!   i16  type   record type (below)
//!   i32  K      key length
//!   K bytes     key, encoded with kwire's generated codec at version 0
//!   i8   flag   1: a value follows; 0: tombstone (nothing follows)
//!   N-7-K bytes value, encoded at version 0 (only when flag = 1)
//! ```
//!
//! Record types: 3, 5, 6, 7, 8, 16 are the consumer-group records and 17-22 the streams-group
//! records of [`kwire_protocol::coordinator::Record::record_type`]; kwire-server adds
//! [`OFFSET_RECORD_TYPE`] (30, `KwireCommittedOffsetKey` / `KwireCommittedOffsetValue`) and [`TOPIC_RECORD_TYPE`] (31, `KwireTopicKey` /
//! `KwireTopicValue`).
//!
//! Each request's entries are written with one `write` call before the response is sent (no
//! fsync: the data survives a crash of the process, not of the machine). A torn last entry (a
//! short length, payload or CRC mismatch, as a SIGKILL in mid-write leaves it) ends the replay:
//! it is logged, ignored and cut off the file, so that new entries follow the last whole one. An
//! entry of an unknown type is skipped with a warning; an entry whose CRC matches but whose key
//! or value does not decode is an error (the file is not one this version can read).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kwire_protocol::coordinator::streams::StreamsRecord;
use kwire_protocol::coordinator::Record;
use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::KwireTopicValue;
use kwire_protocol::wire::{DecodeError, Encode, EncodeError, Message};

use crate::util::crc32c;

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "kwire-server.log";
/// The header's magic.
pub const MAGIC: &[u8; 8] = b"KWIRELOG";
/// The format version in the header.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 12;
/// Record type of a committed offset.
pub const OFFSET_RECORD_TYPE: i16 = 30;
/// Record type of a topic.
pub const TOPIC_RECORD_TYPE: i16 = 31;
/// Longest payload accepted on replay (guards against a garbage length).
const MAX_ENTRY: usize = 256 << 20;

/// One entry of the log.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A consumer- or streams-group coordinator record.
    Group(Record),
    /// A committed offset (`None`: deleted).
    Offset(KwireCommittedOffsetKey, Option<KwireCommittedOffsetValue>),
    /// A topic (`None`: deleted).
    Topic(KwireTopicKey, Option<KwireTopicValue>),
}

/// A failure to read or write the log.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// File-system error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a kwire-server log of a format this version reads.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An entry could not be encoded.
    #[error("encoding a log entry: {0}")]
    Encode(#[from] EncodeError),
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
            Entry::Offset(..) => OFFSET_RECORD_TYPE,
            Entry::Topic(..) => TOPIC_RECORD_TYPE,
        }
    }

    fn key_value(&self) -> Result<(Bytes, Option<Bytes>), EncodeError> {
        match self {
            Entry::Offset(k, v) => key_value(k, v),
            Entry::Topic(k, v) => key_value(k, v),
            Entry::Group(r) => match r {
                Record::GroupMetadata(k, v) => key_value(k, v),
                Record::MemberMetadata(k, v) => key_value(k, v),
                Record::TargetAssignmentMetadata(k, v) => key_value(k, v),
                Record::TargetAssignmentMember(k, v) => key_value(k, v),
                Record::CurrentMemberAssignment(k, v) => key_value(k, v),
                Record::RegularExpression(k, v) => key_value(k, v),
                Record::Streams(s) => match s {
                    StreamsRecord::GroupMetadata(k, v) => key_value(k, v),
                    StreamsRecord::Topology(k, v) => key_value(k, v),
                    StreamsRecord::MemberMetadata(k, v) => key_value(k, v),
                    StreamsRecord::TargetAssignmentMember(k, v) => key_value(k, v),
                    StreamsRecord::TargetAssignmentMetadata(k, v) => key_value(k, v),
                    StreamsRecord::CurrentMemberAssignment(k, v) => key_value(k, v),
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
                Entry::Group($variant(k, v))
            }};
        }
        macro_rules! streams {
            ($variant:path) => {{
                let (k, v) = decode_kv(key, value)?;
                Entry::Group(Record::Streams($variant(k, v)))
            }};
        }
        Ok(Some(match record_type {
            OFFSET_RECORD_TYPE => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Offset(k, v)
            }
            TOPIC_RECORD_TYPE => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Topic(k, v)
            }
            3 => group!(Record::GroupMetadata),
            5 => group!(Record::MemberMetadata),
            6 => group!(Record::TargetAssignmentMetadata),
            7 => group!(Record::TargetAssignmentMember),
            8 => group!(Record::CurrentMemberAssignment),
            16 => group!(Record::RegularExpression),
            17 => streams!(StreamsRecord::GroupMetadata),
            18 => streams!(StreamsRecord::Topology),
            19 => streams!(StreamsRecord::MemberMetadata),
            20 => streams!(StreamsRecord::TargetAssignmentMember),
            21 => streams!(StreamsRecord::TargetAssignmentMetadata),
            22 => streams!(StreamsRecord::CurrentMemberAssignment),
            _ => return Ok(None),
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

/// What replaying a log's bytes found.
#[derive(Debug, Default)]
pub struct Replay {
    /// The whole entries, in order (unknown types left out).
    pub entries: Vec<Entry>,
    /// Length of the file up to the end of the last whole entry.
    pub valid_len: u64,
    /// Why the replay stopped before the end of the file (a torn or corrupt tail), if it did.
    pub torn: Option<String>,
    /// Entries of unknown types that were skipped.
    pub skipped: usize,
}

/// Parses a whole log file's bytes.
///
/// # Errors
/// [`LogError::Format`] for a bad header or an entry whose CRC matches but which does not
/// decode.
pub fn parse(path: &Path, data: &[u8]) -> Result<Replay, LogError> {
    let format = |message: String| LogError::Format {
        path: path.to_path_buf(),
        message,
    };
    let mut replay = Replay::default();
    if data.len() < HEADER_LEN {
        if !MAGIC.starts_with(&data[..data.len().min(8)]) {
            return Err(format("not a kwire-server log (bad magic)".into()));
        }
        if !data.is_empty() {
            replay.torn = Some(format!("torn header ({} bytes)", data.len()));
        }
        return Ok(replay);
    }
    if &data[..8] != MAGIC {
        return Err(format("not a kwire-server log (bad magic)".into()));
    }
    let version = u32::from_be_bytes([data[8], data[9], data[10], data[11]]);
    if version != FORMAT_VERSION {
        return Err(format(format!(
            "log format version {version}; this server reads {FORMAT_VERSION}"
        )));
    }
    let mut pos = HEADER_LEN;
    replay.valid_len = pos as u64;
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.len() < 8 {
            replay.torn = Some(format!("torn entry header at byte {pos}"));
            break;
        }
        let n = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let crc = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]);
        if !(7..=MAX_ENTRY).contains(&n) {
            replay.torn = Some(format!("bad entry length {n} at byte {pos}"));
            break;
        }
        if rest.len() < 8 + n {
            replay.torn = Some(format!(
                "torn entry at byte {pos}: {} of {n} bytes",
                rest.len() - 8
            ));
            break;
        }
        let payload = &rest[8..8 + n];
        if crc32c(payload) != crc {
            replay.torn = Some(format!("CRC mismatch in the entry at byte {pos}"));
            break;
        }
        let record_type = i16::from_be_bytes([payload[0], payload[1]]);
        let k = i32::from_be_bytes([payload[2], payload[3], payload[4], payload[5]]);
        let bad = |m: &str| format(format!("entry at byte {pos} (type {record_type}): {m}"));
        let k = usize::try_from(k).map_err(|_| bad("negative key length"))?;
        if 6 + k + 1 > n {
            return Err(bad("key length past the entry"));
        }
        let key = Bytes::copy_from_slice(&payload[6..6 + k]);
        let value = match payload[6 + k] {
            0 if 7 + k == n => None,
            1 => Some(Bytes::copy_from_slice(&payload[7 + k..])),
            _ => return Err(bad("bad value flag")),
        };
        match Entry::decode(record_type, key, value) {
            Ok(Some(e)) => replay.entries.push(e),
            Ok(None) => replay.skipped += 1,
            Err(e) => return Err(bad(&e.to_string())),
        }
        pos += 8 + n;
        replay.valid_len = pos as u64;
    }
    Ok(replay)
}

/// The open log: appends go to the end of the file.
#[derive(Debug)]
pub struct DurableLog {
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
}

impl DurableLog {
    /// Opens (or creates) `DIR/kwire-server.log`, replays it, cuts off a torn tail and returns
    /// the log ready for appends with what it held.
    ///
    /// # Errors
    /// I/O errors, and [`parse`]'s format errors.
    pub fn open(dir: &Path) -> Result<(DurableLog, Replay), LogError> {
        let path = dir.join(FILE_NAME);
        let io = |source| LogError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|source| LogError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut data = Vec::new();
        file.read_to_end(&mut data).map_err(io)?;
        let replay = parse(&path, &data)?;
        if replay.valid_len < HEADER_LEN as u64 {
            file.set_len(0).map_err(io)?;
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            let mut header = MAGIC.to_vec();
            header.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
            file.write_all(&header).map_err(io)?;
        } else if replay.valid_len < data.len() as u64 {
            file.set_len(replay.valid_len).map_err(io)?;
        }
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok((
            DurableLog {
                path,
                file,
                buf: Vec::new(),
            },
            replay,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entries` with one write.
    ///
    /// # Errors
    /// An encode error (nothing is written) or an I/O error.
    pub fn append(&mut self, entries: &[Entry]) -> Result<(), LogError> {
        if entries.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        for e in entries {
            e.encode_into(&mut self.buf)?;
        }
        let r = self
            .file
            .write_all(&self.buf)
            .and_then(|_| self.file.flush());
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        r.map_err(|source| LogError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kwire_protocol::generated::kwire_topic_value::KeyValue;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "kwire-server-{name}-{}-{}",
            std::process::id(),
            crate::util::random_u64()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn sample() -> Vec<Entry> {
        vec![
            Entry::Topic(
                KwireTopicKey { name: "t1".into() },
                Some(KwireTopicValue {
                    topic_id: crate::util::uuid_from_name("t1"),
                    partitions: 3,
                    configs: vec![KeyValue {
                        key: "cleanup.policy".into(),
                        value: "compact".into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            ),
            Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: "g".into(),
                    topic: "t1".into(),
                    partition: 2,
                },
                Some(KwireCommittedOffsetValue {
                    offset: 42,
                    leader_epoch: 0,
                    metadata: Some("".into()),
                    commit_timestamp_ms: 7,
                    ..Default::default()
                }),
            ),
            Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: "g".into(),
                    topic: "t1".into(),
                    partition: 1,
                },
                None,
            ),
        ]
    }

    #[test]
    fn round_trip_and_torn_tail() {
        let dir = temp_dir("log");
        {
            let (mut log, replay) = DurableLog::open(&dir).unwrap();
            assert!(replay.entries.is_empty());
            log.append(&sample()).unwrap();
        }
        let (log, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries, sample());
        assert!(replay.torn.is_none());
        let path = log.path().to_path_buf();
        drop(log);
        // A torn tail: half of another entry.
        let mut extra = Vec::new();
        sample()[0].encode_into(&mut extra).unwrap();
        let whole = std::fs::metadata(&path).unwrap().len();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&extra[..extra.len() / 2]).unwrap();
        drop(f);
        let (mut log, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries, sample());
        assert!(replay.torn.is_some());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
        // Appends after the cut are readable.
        log.append(&sample()[..1]).unwrap();
        drop(log);
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries.len(), 4);
        assert!(replay.torn.is_none());
        // A flipped byte in the last entry: CRC mismatch, ignored.
        let mut data = std::fs::read(&path).unwrap();
        let last = data.len() - 1;
        data[last] ^= 0x55;
        std::fs::write(&path, &data).unwrap();
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries, sample());
        assert!(replay.torn.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn foreign_file_is_refused() {
        let dir = temp_dir("foreign");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(FILE_NAME), b"hello world, not a log").unwrap();
        assert!(matches!(
            DurableLog::open(&dir),
            Err(LogError::Format { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

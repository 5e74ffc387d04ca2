//! The durable record log of `--data DIR`: coordinator records, committed offsets, created
//! topics and partition end offsets, appended to one file, `DIR/kwire-server.log`, and replayed on
//! start. The directory is locked (`DIR/kwire-server.lock`, an exclusive advisory lock held while
//! the log is open), so a second server on the same directory refuses to start.
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
//! Record types: 3, 5, 6, 7, 8, 16 are the consumer-group records, 17-22 and 25 the streams-group
//! records and 23-24 the classic-group records of [`kwire_protocol::coordinator::Record::record_type`]; kwire-server adds
//! [`OFFSET_RECORD_TYPE`] (30, `KwireCommittedOffsetKey` / `KwireCommittedOffsetValue`),
//! [`TOPIC_RECORD_TYPE`] (31, `KwireTopicKey` / `KwireTopicValue`) and
//! [`PARTITION_END_RECORD_TYPE`] (32, `KwirePartitionEndKey` / `KwirePartitionEndValue`: where a
//! partition's offsets continue after a restart; the records themselves are not kept). A type-32
//! entry whose topic is the empty string ([`PRODUCER_ID_BLOCK_TOPIC`], never a topic's name) and
//! partition -1 holds instead the end of the last block of producer ids reserved for
//! InitProducerId ([`crate::producers::ProducerIds`]): after a restart, ids continue there.
//!
//! # Writes
//!
//! Each request's entries are written with one `write` call before the response is sent (no
//! fsync: the data survives a crash of the process, not of the machine). The log remembers the
//! length of the file up to its last whole entry; a failed write (e.g. ENOSPC) may leave part of
//! an entry after it, so the file is cut back to that length at once and, if that fails too,
//! before any later append: until the cut succeeds every append fails without writing, so no
//! entry ever follows a partial one.
//!
//! # Replay
//!
//! Only the end of the file can be torn: a last entry with fewer bytes left than its header
//! needs, or than its length says (unless a whole entry can be found after it, which shows that
//! the length itself is damaged), a last entry reaching exactly the end of the file whose CRC does
//! not match, or a tail of zero bytes. Such a tail is logged, ignored and cut off the file, so
//! that new entries follow the last whole one. Anything else that does not check is corruption
//! ([`LogError::Corrupt`], naming the entry's byte offset): a CRC mismatch or an impossible length
//! with more data after it. The server then refuses to start and leaves the file as it is, since
//! cutting it there would destroy every later entry. An entry of an unknown type is skipped with a
//! warning; an entry whose CRC matches but whose key or value does not decode is an error (the
//! file is not one this version can read).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use kwire_protocol::coordinator::classic::ClassicRecord;
use kwire_protocol::coordinator::streams::StreamsRecord;
use kwire_protocol::coordinator::{ConsumerRecord, Record};
use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_partition_end_key::KwirePartitionEndKey;
use kwire_protocol::generated::kwire_partition_end_value::KwirePartitionEndValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::KwireTopicValue;
use kwire_protocol::wire::{DecodeError, Encode, EncodeError, Message};

use crate::util::crc32c;

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "kwire-server.log";
/// The lock file's name inside the data directory.
pub const LOCK_FILE_NAME: &str = "kwire-server.lock";
/// The header's magic.
pub const MAGIC: &[u8; 8] = b"KWIRELOG";
/// The format version in the header.
pub const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: usize = 12;
/// Record type of a committed offset.
pub const OFFSET_RECORD_TYPE: i16 = 30;
/// Record type of a topic.
pub const TOPIC_RECORD_TYPE: i16 = 31;
/// Record type of a partition's end offset.
pub const PARTITION_END_RECORD_TYPE: i16 = 32;
/// The topic of the type-32 entry that holds the end of the reserved producer ids: empty, which
/// no topic can be named.
pub const PRODUCER_ID_BLOCK_TOPIC: &str = "";
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
    /// A partition's log end offset (`None`: forgotten).
    PartitionEnd(KwirePartitionEndKey, Option<KwirePartitionEndValue>),
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
    /// An entry in the middle of the file does not check: the file is left as it is.
    #[error("{path}: corrupt entry at byte {offset}: {message}; the file was left as it is (restore it, or move it away to start empty)")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the entry in the file.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// Another process holds the data directory's lock.
    #[error("{path} is locked: another kwire-server{holder} uses this data directory")]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// " (pid N)" when the lock file names its holder, else empty.
        holder: String,
    },
    /// A failed append could not be cut off the file; appends are refused until it can be.
    #[error("{path}: cannot cut the file back to its last whole entry (byte {len}) after a failed write: {source}; appends are refused until it can be")]
    Repair {
        /// The file.
        path: PathBuf,
        /// The length of the file up to its last whole entry.
        len: u64,
        /// The error.
        source: std::io::Error,
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
            Entry::PartitionEnd(..) => PARTITION_END_RECORD_TYPE,
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
        Ok(Some(match record_type {
            OFFSET_RECORD_TYPE => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Offset(k, v)
            }
            TOPIC_RECORD_TYPE => {
                let (k, v) = decode_kv(key, value)?;
                Entry::Topic(k, v)
            }
            PARTITION_END_RECORD_TYPE => {
                let (k, v) = decode_kv(key, value)?;
                Entry::PartitionEnd(k, v)
            }
            3 => group!(ConsumerRecord::GroupMetadata),
            5 => group!(ConsumerRecord::MemberMetadata),
            6 => group!(ConsumerRecord::TargetAssignmentMetadata),
            7 => group!(ConsumerRecord::TargetAssignmentMember),
            8 => group!(ConsumerRecord::CurrentMemberAssignment),
            16 => group!(ConsumerRecord::RegularExpression),
            17 => streams!(StreamsRecord::GroupMetadata),
            18 => streams!(StreamsRecord::Topology),
            19 => streams!(StreamsRecord::MemberMetadata),
            20 => streams!(StreamsRecord::TargetAssignmentMember),
            21 => streams!(StreamsRecord::TargetAssignmentMetadata),
            22 => streams!(StreamsRecord::CurrentMemberAssignment),
            25 => streams!(StreamsRecord::TopologyDescription),
            23 => classic!(ClassicRecord::GroupMetadata),
            24 => classic!(ClassicRecord::Member),
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
    /// Why the replay stopped before the end of the file (a torn tail), if it did.
    pub torn: Option<String>,
    /// Entries of unknown types that were skipped.
    pub skipped: usize,
}

/// The framing of the entry at `pos` when it is whole and its CRC matches: the payload's
/// length.
fn whole_entry_at(data: &[u8], pos: usize) -> Option<usize> {
    let rest = data.get(pos..)?;
    if rest.len() < 8 + 7 {
        return None;
    }
    let n = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    if !(7..=MAX_ENTRY).contains(&n) || rest.len() - 8 < n {
        return None;
    }
    let payload = &rest[8..8 + n];
    // Cheap structural checks first (this runs at every byte of a suspect tail).
    let k = i32::from_be_bytes([payload[2], payload[3], payload[4], payload[5]]);
    let k = usize::try_from(k).ok()?;
    if 6 + k + 1 > n || !matches!((payload[6 + k], 7 + k == n), (0, true) | (1, _)) {
        return None;
    }
    let crc = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]);
    (crc32c(payload) == crc).then_some(n)
}

/// The offset of the first whole, CRC-checked entry that starts at or after `from`, if any.
fn whole_entry_after(data: &[u8], from: usize) -> Option<usize> {
    (from..data.len()).find(|&i| whole_entry_at(data, i).is_some())
}

/// Parses a whole log file's bytes.
///
/// # Errors
/// [`LogError::Format`] for a bad header or an entry whose CRC matches but which does not
/// decode; [`LogError::Corrupt`] for an entry that does not check and is not the torn end of the
/// file (see the module docs).
pub fn parse(path: &Path, data: &[u8]) -> Result<Replay, LogError> {
    let format = |message: String| LogError::Format {
        path: path.to_path_buf(),
        message,
    };
    let corrupt = |pos: usize, message: String| LogError::Corrupt {
        path: path.to_path_buf(),
        offset: pos as u64,
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
            replay.torn = Some(format!(
                "torn entry header at byte {pos} ({} of 8 bytes)",
                rest.len()
            ));
            break;
        }
        let n = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let crc = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]);
        if !(7..=MAX_ENTRY).contains(&n) {
            if rest.iter().all(|b| *b == 0) {
                replay.torn = Some(format!(
                    "{} zero bytes at the end of the file from byte {pos}",
                    rest.len()
                ));
                break;
            }
            return Err(corrupt(
                pos,
                format!("entry length {n} is outside 7..={MAX_ENTRY}, and data follows"),
            ));
        }
        if rest.len() - 8 < n {
            // Fewer bytes left than the entry needs: the torn end of a write, unless a whole
            // entry follows (then the length itself is damaged).
            if let Some(at) = whole_entry_after(data, pos + 8) {
                return Err(corrupt(
                    pos,
                    format!(
                        "entry length {n} reaches past the end of the file, but a whole entry starts at byte {at}"
                    ),
                ));
            }
            replay.torn = Some(format!(
                "torn entry at byte {pos}: {} of {n} bytes",
                rest.len() - 8
            ));
            break;
        }
        let payload = &rest[8..8 + n];
        if crc32c(payload) != crc {
            if rest.len() == 8 + n {
                replay.torn = Some(format!("CRC mismatch in the last entry, at byte {pos}"));
                break;
            }
            return Err(corrupt(
                pos,
                format!(
                    "CRC-32C mismatch, and {} more bytes follow the entry",
                    rest.len() - 8 - n
                ),
            ));
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

/// Failures injected into a [`DurableLog`] by tests.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct Faults {
    /// The next this many appends write half of their bytes, then fail with ENOSPC.
    pub(crate) writes: u32,
    /// The next this many cuts back to the last whole entry fail.
    pub(crate) repairs: u32,
}

/// Takes the exclusive lock of `dir` (see the module docs) and writes our pid into the lock file.
fn lock_dir(dir: &Path) -> Result<File, LogError> {
    let path = dir.join(LOCK_FILE_NAME);
    let io = |source| LogError::Io {
        path: path.clone(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!(" (pid {pid})"),
                Err(_) => String::new(),
            };
            return Err(LogError::Locked { path, holder });
        }
        Err(fs4::TryLockError::Error(e)) => return Err(io(e)),
    }
    file.set_len(0).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    writeln!(file, "{}", std::process::id()).map_err(io)?;
    Ok(file)
}

/// The open log: appends go after the last whole entry.
#[derive(Debug)]
pub struct DurableLog {
    path: PathBuf,
    file: File,
    /// Holds the data directory's lock while the log is open.
    _lock: File,
    buf: Vec<u8>,
    /// Length of the file up to the end of its last whole entry.
    len: u64,
    /// A failed write may have left bytes after `len`: cut them before the next append.
    dirty: bool,
    #[cfg(test)]
    pub(crate) faults: Faults,
}

impl DurableLog {
    /// Locks `DIR`, opens (or creates) `DIR/kwire-server.log`, replays it, cuts off a torn tail
    /// and returns the log ready for appends with what it held.
    ///
    /// # Errors
    /// [`LogError::Locked`] when another process holds the directory, I/O errors, and
    /// [`parse`]'s format and corruption errors (the file is then left untouched).
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
        let lock = lock_dir(dir)?;
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
        let mut len = replay.valid_len;
        if replay.valid_len < HEADER_LEN as u64 {
            file.set_len(0).map_err(io)?;
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            let mut header = MAGIC.to_vec();
            header.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
            file.write_all(&header).map_err(io)?;
            len = HEADER_LEN as u64;
        } else if replay.valid_len < data.len() as u64 {
            file.set_len(replay.valid_len).map_err(io)?;
        }
        file.seek(SeekFrom::Start(len)).map_err(io)?;
        Ok((
            DurableLog {
                path,
                file,
                _lock: lock,
                buf: Vec::new(),
                len,
                dirty: false,
                #[cfg(test)]
                faults: Faults::default(),
            },
            replay,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Length of the file up to the end of its last whole entry.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the log holds no entry (only its header).
    pub fn is_empty(&self) -> bool {
        self.len <= HEADER_LEN as u64
    }

    /// Cuts whatever a failed write left after the last whole entry.
    fn repair(&mut self) -> Result<(), LogError> {
        let len = self.len;
        #[cfg(test)]
        let injected = if self.faults.repairs > 0 {
            self.faults.repairs -= 1;
            true
        } else {
            false
        };
        #[cfg(not(test))]
        let injected = false;
        let r = if injected {
            Err(std::io::Error::other("injected failure"))
        } else {
            self.file
                .set_len(len)
                .and_then(|_| self.file.seek(SeekFrom::Start(len)).map(|_| ()))
        };
        match r {
            Ok(()) => {
                self.dirty = false;
                Ok(())
            }
            Err(source) => Err(LogError::Repair {
                path: self.path.clone(),
                len,
                source,
            }),
        }
    }

    fn write_buf(&mut self) -> std::io::Result<()> {
        #[cfg(test)]
        if self.faults.writes > 0 {
            self.faults.writes -= 1;
            let half = self.buf.len() / 2;
            self.file.write_all(&self.buf[..half])?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "injected ENOSPC",
            ));
        }
        self.file.write_all(&self.buf)?;
        self.file.flush()
    }

    /// Appends `entries` with one write. After a failed write the file is cut back to its last
    /// whole entry (now, or before the next append if that fails too).
    ///
    /// # Errors
    /// An encode error (nothing is written), an I/O error (the entries are not in the log), or
    /// [`LogError::Repair`] when an earlier failure is still not cut off (nothing is written).
    pub fn append(&mut self, entries: &[Entry]) -> Result<(), LogError> {
        if entries.is_empty() {
            return Ok(());
        }
        if self.dirty {
            self.repair()?;
        }
        self.buf.clear();
        for e in entries {
            e.encode_into(&mut self.buf)?;
        }
        let r = self.write_buf();
        let written = self.buf.len() as u64;
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        match r {
            Ok(()) => {
                self.len += written;
                Ok(())
            }
            Err(source) => {
                self.dirty = true;
                if let Err(e) = self.repair() {
                    tracing::error!(error = %e, "DURABLE LOG DAMAGED: a failed write cannot be cut off; writes are refused until it can");
                }
                Err(LogError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        }
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

    /// Writes `count` copies of the sample entries, one append each; returns the log's path and
    /// the byte offset where each append starts.
    fn log_with_appends(dir: &Path, count: usize) -> (PathBuf, Vec<u64>) {
        let (mut log, _) = DurableLog::open(dir).unwrap();
        let mut starts = Vec::new();
        for _ in 0..count {
            starts.push(log.len());
            log.append(&sample()).unwrap();
        }
        (log.path().to_path_buf(), starts)
    }

    #[test]
    fn mid_file_corruption_refuses_to_start_and_keeps_the_file() {
        let dir = temp_dir("corrupt");
        let (path, starts) = log_with_appends(&dir, 3);
        let good = std::fs::read(&path).unwrap();
        // A flipped payload byte in the second append's first entry: a CRC mismatch with data
        // after it.
        let at = starts[1] as usize;
        let mut data = good.clone();
        data[at + 12] ^= 0x01;
        std::fs::write(&path, &data).unwrap();
        match DurableLog::open(&dir) {
            Err(LogError::Corrupt {
                offset, message, ..
            }) => {
                assert_eq!(offset, starts[1]);
                assert!(message.contains("CRC"), "{message}");
            }
            other => panic!("expected a corruption error, got {other:?}"),
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            data,
            "the file must be left as it is"
        );
        let text = DurableLog::open(&dir).unwrap_err().to_string();
        assert!(text.contains(&format!("byte {}", starts[1])), "{text}");
        // A length damaged so that the entry reaches past the end, with whole entries after it.
        let mut data = good.clone();
        data[at..at + 4].copy_from_slice(&(good.len() as u32).to_be_bytes());
        std::fs::write(&path, &data).unwrap();
        match DurableLog::open(&dir) {
            Err(LogError::Corrupt { offset, .. }) => assert_eq!(offset, starts[1]),
            other => panic!("expected a corruption error, got {other:?}"),
        }
        assert_eq!(std::fs::read(&path).unwrap(), data);
        // An impossible length (below the smallest entry) with data after it.
        let mut data = good.clone();
        data[at..at + 4].copy_from_slice(&3u32.to_be_bytes());
        std::fs::write(&path, &data).unwrap();
        assert!(matches!(
            DurableLog::open(&dir),
            Err(LogError::Corrupt { offset, .. }) if offset == starts[1]
        ));
        // The same flip in the very last entry, which reaches the end of the file: a torn
        // tail, cut off; the entries before it stay.
        let mut data = good.clone();
        let last = data.len() - 2;
        data[last] ^= 0x01;
        std::fs::write(&path, &data).unwrap();
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries.len(), 3 * sample().len() - 1);
        assert!(replay.torn.unwrap().contains("CRC"));
        // A zero-filled tail (a file extended but not written) is torn too.
        let mut data = good.clone();
        data.extend_from_slice(&[0; 40]);
        std::fs::write(&path, &data).unwrap();
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries.len(), 3 * sample().len());
        assert!(replay.torn.is_some());
        assert_eq!(std::fs::read(&path).unwrap(), good);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn failed_writes_are_cut_off_before_the_next_append() {
        let dir = temp_dir("enospc");
        let (mut log, _) = DurableLog::open(&dir).unwrap();
        let path = log.path().to_path_buf();
        log.append(&sample()).unwrap();
        let whole = log.len();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
        // A write that fails half-way is cut off at once.
        log.faults.writes = 1;
        assert!(matches!(log.append(&sample()), Err(LogError::Io { .. })));
        assert_eq!(log.len(), whole);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
        // A write that fails half-way and whose cut fails too: the partial entry stays on disk,
        // and the next appends are refused (nothing written) until the cut succeeds.
        log.faults.writes = 1;
        log.faults.repairs = 2;
        assert!(matches!(log.append(&sample()), Err(LogError::Io { .. })));
        let damaged = std::fs::metadata(&path).unwrap().len();
        assert!(damaged > whole);
        assert!(matches!(log.append(&sample()), Err(LogError::Repair { len, .. }) if len == whole));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), damaged);
        // The cut works now: the partial entry goes, the new entries follow the last whole one.
        log.append(&sample()[..1]).unwrap();
        assert_eq!(log.len(), std::fs::metadata(&path).unwrap().len());
        drop(log);
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert!(replay.torn.is_none(), "{:?}", replay.torn);
        let mut want = sample();
        want.push(sample()[0].clone());
        assert_eq!(replay.entries, want);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_second_log_on_the_same_directory_is_refused() {
        let dir = temp_dir("lock");
        let (log, _) = DurableLog::open(&dir).unwrap();
        match DurableLog::open(&dir) {
            Err(e @ LogError::Locked { .. }) => {
                let text = e.to_string();
                assert!(text.contains(LOCK_FILE_NAME), "{text}");
                assert!(
                    text.contains(&format!("pid {}", std::process::id())),
                    "{text}"
                );
            }
            other => panic!("expected a lock error, got {other:?}"),
        }
        drop(log);
        // Released with the log.
        let (_log, _) = DurableLog::open(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn partition_end_entries_round_trip() {
        let dir = temp_dir("ends");
        let e = Entry::PartitionEnd(
            KwirePartitionEndKey {
                topic: "t1".into(),
                partition: 4,
            },
            Some(KwirePartitionEndValue {
                end_offset: 1234,
                ..Default::default()
            }),
        );
        assert_eq!(e.record_type(), 32);
        {
            let (mut log, _) = DurableLog::open(&dir).unwrap();
            log.append(std::slice::from_ref(&e)).unwrap();
        }
        let (_, replay) = DurableLog::open(&dir).unwrap();
        assert_eq!(replay.entries, vec![e]);
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

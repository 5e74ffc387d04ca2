//! Replaying the durable log: the file format's header and framing, and the rules that tell a
//! torn tail (cut off and forgotten) from corruption (the server refuses to start); see
//! [`super::file`] for the format.

use std::path::Path;

use bytes::Bytes;
use kwire_protocol::records::crc32c;

use super::entry::Entry;
use super::error::LogError;

/// The header's magic.
pub const MAGIC: &[u8; 8] = b"KWIRELOG";
/// The format version in the header.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the header: the magic and the format version.
pub const HEADER_LEN: usize = 12;
/// Longest payload accepted on replay (guards against a garbage length).
const MAX_ENTRY: usize = 256 << 20;

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
/// file (see [`super::file`]).
pub fn parse(path: &Path, data: &[u8]) -> Result<Replay, LogError> {
    let mut replay = Replay::default();
    if !parse_header(path, data, &mut replay)? {
        return Ok(replay);
    }
    let mut pos = HEADER_LEN;
    replay.valid_len = pos as u64;
    while pos < data.len() {
        match entry_at(path, data, pos)? {
            Step::Entry { len, entry } => {
                match entry {
                    Some(e) => replay.entries.push(*e),
                    None => replay.skipped += 1,
                }
                pos += len;
                replay.valid_len = pos as u64;
            }
            Step::Torn(why) => {
                replay.torn = Some(why);
                break;
            }
        }
    }
    Ok(replay)
}

/// Checks the header: `Ok(true)` when entries follow it, `Ok(false)` for a file too short to
/// hold one (empty, or a torn header: `replay.torn` says so).
fn parse_header(path: &Path, data: &[u8], replay: &mut Replay) -> Result<bool, LogError> {
    let format = |message: String| LogError::Format {
        path: path.to_path_buf(),
        message,
    };
    if data.len() < HEADER_LEN {
        if !MAGIC.starts_with(&data[..data.len().min(8)]) {
            return Err(format("not a kwire-server log (bad magic)".into()));
        }
        if !data.is_empty() {
            replay.torn = Some(format!("torn header ({} bytes)", data.len()));
        }
        return Ok(false);
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
    Ok(true)
}

/// What the bytes at one position of the file hold.
enum Step {
    /// A whole entry of `len` bytes, framing included (`None`: a type this version skips).
    Entry {
        len: usize,
        entry: Option<Box<Entry>>,
    },
    /// The torn end of the file, and why.
    Torn(String),
}

/// The entry at `pos` (see the module docs for the torn-tail rules).
fn entry_at(path: &Path, data: &[u8], pos: usize) -> Result<Step, LogError> {
    let corrupt = |message: String| LogError::Corrupt {
        path: path.to_path_buf(),
        offset: pos as u64,
        message,
    };
    let rest = &data[pos..];
    if rest.len() < 8 {
        return Ok(Step::Torn(format!(
            "torn entry header at byte {pos} ({} of 8 bytes)",
            rest.len()
        )));
    }
    let n = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    let crc = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]);
    if !(7..=MAX_ENTRY).contains(&n) {
        if rest.iter().all(|b| *b == 0) {
            return Ok(Step::Torn(format!(
                "{} zero bytes at the end of the file from byte {pos}",
                rest.len()
            )));
        }
        return Err(corrupt(format!(
            "entry length {n} is outside 7..={MAX_ENTRY}, and data follows"
        )));
    }
    if rest.len() - 8 < n {
        // Fewer bytes left than the entry needs: the torn end of a write, unless a whole
        // entry follows (then the length itself is damaged).
        if let Some(at) = whole_entry_after(data, pos + 8) {
            return Err(corrupt(format!(
                "entry length {n} reaches past the end of the file, but a whole entry starts at byte {at}"
            )));
        }
        return Ok(Step::Torn(format!(
            "torn entry at byte {pos}: {} of {n} bytes",
            rest.len() - 8
        )));
    }
    let payload = &rest[8..8 + n];
    if crc32c(payload) != crc {
        if rest.len() == 8 + n {
            return Ok(Step::Torn(format!(
                "CRC mismatch in the last entry, at byte {pos}"
            )));
        }
        return Err(corrupt(format!(
            "CRC-32C mismatch, and {} more bytes follow the entry",
            rest.len() - 8 - n
        )));
    }
    let entry = decode_payload(path, pos, payload)?.map(Box::new);
    Ok(Step::Entry { len: 8 + n, entry })
}

/// Decodes a CRC-checked payload (type, key, value flag, value); `None` for a type this version
/// does not know.
fn decode_payload(path: &Path, pos: usize, payload: &[u8]) -> Result<Option<Entry>, LogError> {
    let n = payload.len();
    let record_type = i16::from_be_bytes([payload[0], payload[1]]);
    let k = i32::from_be_bytes([payload[2], payload[3], payload[4], payload[5]]);
    let bad = |m: &str| LogError::Format {
        path: path.to_path_buf(),
        message: format!("entry at byte {pos} (type {record_type}): {m}"),
    };
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
    Entry::decode(record_type, key, value).map_err(|e| bad(&e.to_string()))
}

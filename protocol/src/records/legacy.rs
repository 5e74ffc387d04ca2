//! Legacy message sets, magic 0 and 1 (Kafka's `LegacyRecord`, KIP-32), read-only.
//!
//! An entry is `offset` (int64), `size` (int32) and a message: `crc` (uint32, CRC-32 of the bytes
//! from `magic` to the end), `magic` (int8), `attributes` (int8: bits 0-2 codec, bit 3 timestamp
//! type for magic 1), `timestamp` (int64, magic 1 only), key and value (int32 length, -1 = null).
//! A compressed message (a "wrapper") holds a nested message set of uncompressed messages as its
//! value. Each top-level entry maps to a [`RecordBatch`] whose header has magic 0 or 1.

use bytes::Bytes;

use super::attributes::{Attributes, Compression, TimestampType};
use super::batch::{be_i32, be_i64, be_u32, BatchHeader, LOG_OVERHEAD};
use super::error::{RecordsError, RecordsErrorKind};
use super::headers::Headers;
use super::options::DecodeOptions;
use super::owned::{Record, RecordBatch};

/// `size` of the smallest magic-0 message: crc, magic, attributes, key length, value length
/// (Kafka's `LegacyRecord.RECORD_OVERHEAD_V0`).
pub(crate) const MIN_MESSAGE_SIZE_V0: usize = 14;
/// `size` of the smallest magic-1 message: the magic-0 overhead and the timestamp
/// (`RECORD_OVERHEAD_V1`).
pub(crate) const MIN_MESSAGE_SIZE_V1: usize = 22;
/// Kafka's `RecordBatch.NO_TIMESTAMP`: the timestamp of a magic-0 message.
const NO_TIMESTAMP: i64 = -1;

/// One legacy message, as read: ranges count from the start of the entry.
struct Message {
    offset: i64,
    size: i32,
    crc: u32,
    magic: i8,
    attributes: i8,
    timestamp: i64,
    key: Option<(usize, usize)>,
    value: Option<(usize, usize)>,
}

impl Message {
    fn codec(&self) -> Result<Compression, u8> {
        let id = (self.attributes & 0x07) as u8;
        Compression::from_id(id).ok_or(id)
    }

    /// The attributes as a v2 header carries them: codec bits, and bit 3 for magic 1.
    fn batch_attributes(&self) -> Attributes {
        let mask = if self.magic == 1 { 0x0f } else { 0x07 };
        Attributes((self.attributes as u8 & mask) as i16)
    }

    fn header(&self, record_count: i32) -> BatchHeader {
        BatchHeader {
            base_offset: self.offset,
            batch_length: self.size,
            partition_leader_epoch: -1,
            magic: self.magic,
            crc: self.crc,
            attributes: self.batch_attributes(),
            last_offset_delta: 0,
            base_timestamp: self.timestamp,
            max_timestamp: self.timestamp,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            record_count,
        }
    }
}

/// Reads the int32-length-prefixed nullable bytes at `*pos` of `b`.
fn bytes_field(
    b: &[u8],
    pos: &mut usize,
    what: &str,
) -> Result<Option<(usize, usize)>, RecordsError> {
    if b.len() < *pos + 4 {
        return Err(RecordsError::truncated(b.len()));
    }
    let at = *pos;
    let len = be_i32(b, at);
    *pos += 4;
    if len == -1 {
        return Ok(None);
    }
    if len < 0 {
        return Err(RecordsError::invalid(
            format!("negative {what} length {len}"),
            at,
        ));
    }
    let end = *pos + len as usize;
    if end > b.len() {
        return Err(RecordsError::invalid(
            format!("{what} length {len} runs past the end of the message"),
            at,
        ));
    }
    let start = *pos;
    *pos = end;
    Ok(Some((start, end)))
}

/// Reads the message of a whole entry `b` (`12 + size` bytes). Offsets in errors count from the
/// start of `b`.
fn parse_message(b: &[u8]) -> Result<Message, RecordsError> {
    if b.len() < LOG_OVERHEAD + MIN_MESSAGE_SIZE_V0 {
        return Err(RecordsError::truncated(b.len()));
    }
    let magic = b[16] as i8;
    let mut pos = 18;
    let timestamp = match magic {
        0 => NO_TIMESTAMP,
        1 => {
            if b.len() < LOG_OVERHEAD + MIN_MESSAGE_SIZE_V1 {
                return Err(RecordsError::truncated(b.len()));
            }
            pos = 26;
            be_i64(b, 18)
        }
        m => return Err(RecordsError::new(RecordsErrorKind::UnknownMagic(m), 16)),
    };
    let key = bytes_field(b, &mut pos, "key")?;
    let value = bytes_field(b, &mut pos, "value")?;
    if pos != b.len() {
        return Err(RecordsError::invalid(
            format!(
                "message size {} but its fields take {} bytes",
                b.len() - LOG_OVERHEAD,
                pos - LOG_OVERHEAD
            ),
            8,
        ));
    }
    Ok(Message {
        offset: be_i64(b, 0),
        size: be_i32(b, 8),
        crc: be_u32(b, 12),
        magic,
        attributes: b[17] as i8,
        timestamp,
        key,
        value,
    })
}

fn check_crc(b: &[u8], msg: &Message) -> Result<(), RecordsError> {
    let computed = crc32fast::hash(&b[16..]);
    if computed != msg.crc {
        return Err(RecordsError::new(
            RecordsErrorKind::CrcMismatch {
                stored: msg.crc,
                computed,
            },
            12,
        ));
    }
    Ok(())
}

/// The header a view gives a legacy entry `b`: the message's fields, `record_count` 1 when
/// uncompressed and -1 for a compressed wrapper (its count needs decompression).
pub(crate) fn view_header(b: &[u8]) -> Result<BatchHeader, RecordsError> {
    let msg = parse_message(b)?;
    let count = if msg.attributes & 0x07 == 0 { 1 } else { -1 };
    Ok(msg.header(count))
}

/// A legacy message's key and value (each null or a slice of the message).
pub(crate) type KeyValue<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// The key and value of the one record of an uncompressed legacy entry `b` at byte `offset` of
/// the record set.
pub(crate) fn view_record(b: &[u8], offset: usize) -> Result<KeyValue<'_>, RecordsError> {
    let msg = parse_message(b).map_err(|e| e.shifted(offset))?;
    if msg.attributes & 0x07 != 0 {
        return Err(RecordsError::invalid(
            format!(
                "compressed legacy message (magic {}): read it with RecordSet::decode",
                msg.magic
            ),
            offset + 17,
        ));
    }
    let key = msg.key.map(|(s, e)| &b[s..e]);
    let value = msg.value.map(|(s, e)| &b[s..e]);
    Ok((key, value))
}

/// Decodes the legacy entry at `range` of `input` (entry index `index`) into a batch: one record
/// for a plain message, the inner messages for a compressed wrapper (Kafka's
/// `AbstractLegacyRecordBatch` and its deep iterator: inner offsets of a magic-1 wrapper are
/// relative, the wrapper's offset being the last absolute one; a magic-1 wrapper with
/// LogAppendTime gives every record its timestamp).
pub(crate) fn decode_entry(
    input: &Bytes,
    start: usize,
    end: usize,
    opts: &DecodeOptions,
) -> Result<RecordBatch, RecordsError> {
    let b = &input[start..end];
    let msg = parse_message(b).map_err(|e| e.shifted(start))?;
    if opts.verify_crc {
        check_crc(b, &msg).map_err(|e| e.shifted(start))?;
    }
    let codec = msg
        .codec()
        .map_err(|id| RecordsError::new(RecordsErrorKind::UnknownCompression(id), start + 17))?;
    let slice = |r: Option<(usize, usize)>| r.map(|(s, e)| input.slice(start + s..start + e));
    if codec == Compression::None {
        let record = Record {
            attributes: 0,
            timestamp_delta: 0,
            offset_delta: 0,
            key: slice(msg.key),
            value: slice(msg.value),
            headers: Headers::new(),
        };
        return Ok(RecordBatch {
            header: msg.header(1),
            records: vec![record],
        });
    }
    let Some((vs, ve)) = msg.value else {
        return Err(RecordsError::invalid(
            "compressed legacy message with a null value",
            start + 8,
        ));
    };
    let mut buf = Vec::new();
    let limit = opts.max_decompressed_bytes;
    if msg.magic == 0 && codec == Compression::Lz4 {
        super::compression::lz4_decompress_magic0(&b[vs..ve], limit, &mut buf)
    } else {
        super::compression::decompress(codec, &b[vs..ve], limit, &mut buf)
    }
    .map_err(|e| e.shifted(start + vs))?;
    let inner = Bytes::from(buf);
    decode_wrapper(&msg, &inner, opts)
}

/// The inner messages of a compressed wrapper `wrapper`, from its decompressed value `inner`.
fn decode_wrapper(
    wrapper: &Message,
    inner: &Bytes,
    opts: &DecodeOptions,
) -> Result<RecordBatch, RecordsError> {
    struct Inner {
        offset: i64,
        timestamp: i64,
        key: Option<(usize, usize)>,
        value: Option<(usize, usize)>,
    }
    let err = |e: RecordsError| e.decompressed(true);
    // Each inner entry takes at least 12 + 14 bytes: bound the pre-allocation by the bytes.
    let mut entries: Vec<Inner> =
        Vec::with_capacity(inner.len() / (LOG_OVERHEAD + MIN_MESSAGE_SIZE_V0));
    let mut pos = 0;
    while pos < inner.len() {
        let rest = &inner[pos..];
        if rest.len() < LOG_OVERHEAD {
            return Err(err(RecordsError::truncated(inner.len())));
        }
        let size = be_i32(rest, 8);
        if size < MIN_MESSAGE_SIZE_V0 as i32 {
            return Err(err(RecordsError::invalid(
                format!("inner message size {size} is below the smallest message (14 bytes)"),
                pos + 8,
            )));
        }
        let len = LOG_OVERHEAD + size as usize;
        if rest.len() < len {
            return Err(err(RecordsError::truncated(inner.len())));
        }
        let b = &rest[..len];
        let msg = parse_message(b).map_err(|e| err(e.shifted(pos)))?;
        if msg.magic != wrapper.magic {
            return Err(err(RecordsError::invalid(
                format!(
                    "inner message magic {} differs from the wrapper's {}",
                    msg.magic, wrapper.magic
                ),
                pos + 16,
            )));
        }
        if msg.attributes & 0x07 != 0 {
            return Err(err(RecordsError::invalid(
                "compressed message inside a compressed message",
                pos + 17,
            )));
        }
        if opts.verify_crc {
            check_crc(b, &msg).map_err(|e| err(e.shifted(pos)))?;
        }
        let shift = |r: Option<(usize, usize)>| r.map(|(s, e)| (pos + s, pos + e));
        entries.push(Inner {
            offset: msg.offset,
            timestamp: msg.timestamp,
            key: shift(msg.key),
            value: shift(msg.value),
        });
        pos += len;
    }
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Err(err(RecordsError::invalid(
            "compressed legacy message without inner messages",
            0,
        )));
    };
    let absolute_base = if wrapper.magic >= 1 {
        wrapper.offset.wrapping_sub(last.offset)
    } else {
        -1
    };
    let absolute = |o: i64| {
        if absolute_base >= 0 {
            absolute_base.wrapping_add(o)
        } else {
            o
        }
    };
    let log_append = wrapper.magic == 1
        && wrapper.batch_attributes().timestamp_type() == TimestampType::LogAppendTime;
    let timestamp = |t: i64| if log_append { wrapper.timestamp } else { t };
    let base_offset = absolute(first.offset);
    let base_timestamp = timestamp(first.timestamp);
    let mut records = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let offset_delta =
            i32::try_from(absolute(e.offset).wrapping_sub(base_offset)).map_err(|_| {
                err(RecordsError::invalid(
                    format!(
                        "inner offset {} is out of int32 range of the first",
                        e.offset
                    ),
                    0,
                ))
                .in_record(i)
            })?;
        let timestamp_delta = timestamp(e.timestamp)
            .checked_sub(base_timestamp)
            .ok_or_else(|| {
                err(RecordsError::invalid(
                    "inner timestamp delta overflows int64",
                    0,
                ))
                .in_record(i)
            })?;
        records.push(Record {
            attributes: 0,
            timestamp_delta,
            offset_delta,
            key: e.key.map(|(s, e)| inner.slice(s..e)),
            value: e.value.map(|(s, e)| inner.slice(s..e)),
            headers: Headers::new(),
        });
    }
    let mut header = wrapper.header(records.len() as i32);
    header.base_offset = base_offset;
    header.last_offset_delta = records.last().map_or(0, |r| r.offset_delta);
    header.base_timestamp = base_timestamp;
    header.max_timestamp = if wrapper.magic == 1 {
        wrapper.timestamp
    } else {
        NO_TIMESTAMP
    };
    Ok(RecordBatch { header, records })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A legacy entry written by hand: offset, size, crc, magic, attributes, [timestamp], key,
    /// value.
    fn entry(
        offset: i64,
        magic: i8,
        attributes: i8,
        ts: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut m = vec![magic as u8, attributes as u8];
        if magic == 1 {
            m.extend_from_slice(&ts.to_be_bytes());
        }
        for f in [key, value] {
            match f {
                None => m.extend_from_slice(&(-1i32).to_be_bytes()),
                Some(b) => {
                    m.extend_from_slice(&(b.len() as i32).to_be_bytes());
                    m.extend_from_slice(b);
                }
            }
        }
        let mut e = offset.to_be_bytes().to_vec();
        e.extend_from_slice(&((m.len() + 4) as i32).to_be_bytes());
        e.extend_from_slice(&crc32fast::hash(&m).to_be_bytes());
        e.extend_from_slice(&m);
        e
    }

    fn wrapper(offset: i64, magic: i8, attributes: i8, timestamp: i64) -> Message {
        Message {
            offset,
            size: 0,
            crc: 0,
            magic,
            attributes,
            timestamp,
            key: None,
            value: None,
        }
    }

    #[test]
    fn magic1_wrapper_has_relative_inner_offsets() {
        let mut inner = entry(0, 1, 0, 1000, Some(b"a"), Some(b"1"));
        inner.extend(entry(1, 1, 0, 1003, None, Some(b"2")));
        inner.extend(entry(2, 1, 0, 999, Some(b"c"), None));
        let inner = Bytes::from(inner);
        let b =
            decode_wrapper(&wrapper(102, 1, 1, 1003), &inner, &DecodeOptions::default()).unwrap();
        assert_eq!(b.header.base_offset, 100);
        assert_eq!(b.header.last_offset_delta, 2);
        assert_eq!(b.header.record_count, 3);
        assert_eq!(b.header.magic, 1);
        assert_eq!(
            (b.header.base_timestamp, b.header.max_timestamp),
            (1000, 1003)
        );
        let offsets: Vec<_> = b.records.iter().map(|r| b.offset_of(r)).collect();
        assert_eq!(offsets, [100, 101, 102]);
        let ts: Vec<_> = b.records.iter().map(|r| b.timestamp_of(r)).collect();
        assert_eq!(ts, [1000, 1003, 999]);
        assert_eq!(b.records[1].key, None);
        assert_eq!(b.records[2].value, None);
        assert_eq!(b.records[0].key.as_deref(), Some(&b"a"[..]));
    }

    #[test]
    fn magic1_log_append_time_wrapper_stamps_every_record() {
        let mut inner = entry(0, 1, 0, 1, None, Some(b"1"));
        inner.extend(entry(1, 1, 0, 2, None, Some(b"2")));
        let b = decode_wrapper(
            &wrapper(7, 1, 1 | 0x08, 5000),
            &Bytes::from(inner),
            &DecodeOptions::default(),
        )
        .unwrap();
        assert_eq!(
            b.header.attributes.timestamp_type(),
            TimestampType::LogAppendTime
        );
        assert!(b
            .records
            .iter()
            .all(|r| b.timestamp_of(r) == 5000 && r.timestamp_delta == 0));
        assert_eq!(b.header.base_offset, 6);
    }

    #[test]
    fn magic0_wrapper_has_absolute_inner_offsets() {
        let mut inner = entry(40, 0, 0, 0, None, Some(b"x"));
        inner.extend(entry(41, 0, 0, 0, Some(b"k"), Some(b"y")));
        let b = decode_wrapper(
            &wrapper(41, 0, 2, -1),
            &Bytes::from(inner),
            &DecodeOptions::default(),
        )
        .unwrap();
        assert_eq!((b.header.base_offset, b.header.last_offset_delta), (40, 1));
        assert_eq!((b.header.base_timestamp, b.header.max_timestamp), (-1, -1));
        assert_eq!(b.records[1].offset_delta, 1);
    }

    #[test]
    fn wrapper_errors() {
        let opts = DecodeOptions::default();
        let w = wrapper(0, 1, 1, 0);
        let e = decode_wrapper(&w, &Bytes::new(), &opts).unwrap_err();
        assert!(matches!(e.kind, RecordsErrorKind::Invalid(_)) && e.in_decompressed);
        // Inner magic differs from the wrapper's.
        let inner = Bytes::from(entry(0, 0, 0, 0, None, None));
        assert!(decode_wrapper(&w, &inner, &opts).is_err());
        // Nested compression.
        let inner = Bytes::from(entry(0, 1, 1, 0, None, None));
        assert!(decode_wrapper(&w, &inner, &opts).is_err());
        // Inner CRC.
        let mut inner = entry(0, 1, 0, 0, None, Some(b"v"));
        let last = inner.len() - 1;
        inner[last] ^= 1;
        let e = decode_wrapper(&w, &Bytes::from(inner.clone()), &opts).unwrap_err();
        assert!(matches!(e.kind, RecordsErrorKind::CrcMismatch { .. }));
        let no_crc = DecodeOptions {
            verify_crc: false,
            ..opts
        };
        assert!(decode_wrapper(&w, &Bytes::from(inner.clone()), &no_crc).is_ok());
        // Truncated inner set.
        let e = decode_wrapper(&w, &Bytes::from(inner[..inner.len() - 1].to_vec()), &no_crc)
            .unwrap_err();
        assert_eq!(e.kind, RecordsErrorKind::Truncated);
    }
}

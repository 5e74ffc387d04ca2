//! Varints and the record layout of magic 2 (Kafka's `DefaultRecord`), shared by the view, the
//! owned decoder, the encoder and the builder.

use super::error::RecordsError;

/// Bytes of the smallest record: length, attributes, timestamp delta, offset delta, key length,
/// value length, header count (one byte each).
pub(crate) const MIN_RECORD_SIZE: usize = 7;
/// Bytes of the smallest header: key length and value length (one byte each).
pub(crate) const MIN_HEADER_SIZE: usize = 2;

/// Reads an unsigned LEB128 varint of at most `max` bytes at `*pos`.
#[inline(always)]
fn read_uvarint(b: &[u8], pos: &mut usize, max: usize) -> Result<u64, RecordsError> {
    let start = *pos;
    let mut result: u64 = 0;
    let mut shift = 0u32;
    loop {
        let Some(&byte) = b.get(*pos) else {
            return Err(RecordsError::truncated(*pos));
        };
        *pos += 1;
        result |= ((byte & 0x7f) as u64) << shift;
        if byte < 0x80 {
            return Ok(result);
        }
        if *pos - start >= max {
            return Err(RecordsError::invalid(
                format!("varint longer than {max} bytes"),
                start,
            ));
        }
        shift += 7;
    }
}

/// Reads a zigzag varint (int32, at most 5 bytes; Kafka's `ByteUtils.readVarint`).
#[inline(always)]
pub(crate) fn read_varint(b: &[u8], pos: &mut usize) -> Result<i32, RecordsError> {
    // Fast paths for one and two bytes (lengths below 64 and 8192: most keys, values, records).
    let n = match b.get(*pos..).unwrap_or_default() {
        [b0, ..] if *b0 < 0x80 => {
            *pos += 1;
            *b0 as u32
        }
        [b0, b1, ..] if *b1 < 0x80 => {
            *pos += 2;
            (*b0 & 0x7f) as u32 | (*b1 as u32) << 7
        }
        _ => read_uvarint(b, pos, 5)? as u32,
    };
    Ok(((n >> 1) as i32) ^ -((n & 1) as i32))
}

/// Reads a zigzag varlong (int64, at most 10 bytes; Kafka's `ByteUtils.readVarlong`).
#[inline(always)]
pub(crate) fn read_varlong(b: &[u8], pos: &mut usize) -> Result<i64, RecordsError> {
    if let Some(&byte) = b.get(*pos) {
        if byte < 0x80 {
            *pos += 1;
            return Ok(((byte >> 1) as i64) ^ -((byte & 1) as i64));
        }
    }
    let n = read_uvarint(b, pos, 10)?;
    Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
}

/// Bytes of `v` as a zigzag varint.
#[inline(always)]
pub(crate) fn varint_len(v: i32) -> usize {
    varlong_len(v as i64)
}

/// Bytes of `v` as a zigzag varlong.
#[inline(always)]
pub(crate) fn varlong_len(v: i64) -> usize {
    let z = ((v << 1) ^ (v >> 63)) as u64;
    let bits = 64 - (z | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends `v` as a zigzag varint.
#[inline(always)]
pub(crate) fn write_varint(out: &mut Vec<u8>, v: i32) {
    write_varlong(out, v as i64)
}

/// Appends `v` as a zigzag varlong.
#[inline(always)]
pub(crate) fn write_varlong(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    if z < 0x80 {
        out.push(z as u8);
        return;
    }
    let mut tmp = [0u8; 10];
    let mut n = 0;
    while z >= 0x80 {
        tmp[n] = (z as u8) | 0x80;
        z >>= 7;
        n += 1;
    }
    tmp[n] = z as u8;
    out.extend_from_slice(&tmp[..=n]);
}

/// One record's fields as read: byte ranges into the slice it was read from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawRecord {
    pub attributes: i8,
    pub timestamp_delta: i64,
    pub offset_delta: i32,
    /// `start..end` of the key, `None` for a null key.
    pub key: Option<(usize, usize)>,
    /// `start..end` of the value, `None` for a null value.
    pub value: Option<(usize, usize)>,
    /// `start..end` of the headers (after the header count).
    pub headers: (usize, usize),
    /// Number of headers.
    pub header_count: u32,
}

/// Reads a nullable byte field (varint length, -1 = null) ending no later than `b.len()`.
#[inline(always)]
fn read_nullable(
    b: &[u8],
    pos: &mut usize,
    what: &str,
) -> Result<Option<(usize, usize)>, RecordsError> {
    let at = *pos;
    let len = read_varint(b, pos)?;
    if len < 0 {
        if len == -1 {
            return Ok(None);
        }
        return Err(RecordsError::invalid(
            format!("negative {what} length {len}"),
            at,
        ));
    }
    let start = *pos;
    let end = start + len as usize;
    if end > b.len() {
        return Err(RecordsError::invalid(
            format!("{what} length {len} runs past the end of the record"),
            at,
        ));
    }
    *pos = end;
    Ok(Some((start, end)))
}

/// Reads one record at `*pos` of `b` (Kafka's `DefaultRecord.readFrom` rules: the length prefix
/// must equal the bytes the fields take, key and value lengths are -1 or non-negative, the header
/// count is non-negative and bounded by the record's bytes, a header key is never null). Offsets
/// in errors count from the start of `b`.
#[inline(always)]
pub(crate) fn read_record(b: &[u8], pos: &mut usize) -> Result<RawRecord, RecordsError> {
    let len_at = *pos;
    let len = read_varint(b, pos)?;
    if len < 0 {
        return Err(RecordsError::invalid(
            format!("negative record length {len}"),
            len_at,
        ));
    }
    let body_start = *pos;
    let body_end = body_start + len as usize;
    if body_end > b.len() {
        return Err(RecordsError::truncated(b.len()));
    }
    // Fields are read within the record: none may run past its stated end.
    let r = &b[..body_end];
    let Some(&attributes) = r.get(*pos) else {
        return Err(RecordsError::invalid(
            format!("record length {len} is too small"),
            len_at,
        ));
    };
    *pos += 1;
    let timestamp_delta = read_varlong(r, pos)?;
    let offset_delta = read_varint(r, pos)?;
    let key = read_nullable(r, pos, "key")?;
    let value = read_nullable(r, pos, "value")?;
    let count_at = *pos;
    let count = read_varint(r, pos)?;
    let headers_start = *pos;
    read_headers(r, pos, count, count_at)?;
    if *pos != body_end {
        return Err(RecordsError::invalid(
            format!(
                "record length {len} but its fields take {} bytes",
                *pos - body_start
            ),
            len_at,
        ));
    }
    Ok(RawRecord {
        attributes: attributes as i8,
        timestamp_delta,
        offset_delta,
        key,
        value,
        headers: (headers_start, body_end),
        header_count: count as u32,
    })
}

/// Reads `count` headers (read at `count_at`) at `*pos` of `r`, none running past its end: the
/// count is non-negative and no more than the bytes left hold, a key is never null.
#[inline(always)]
fn read_headers(
    r: &[u8],
    pos: &mut usize,
    count: i32,
    count_at: usize,
) -> Result<(), RecordsError> {
    if count < 0 {
        return Err(RecordsError::invalid(
            format!("negative header count {count}"),
            count_at,
        ));
    }
    if count as usize > (r.len() - *pos) / MIN_HEADER_SIZE {
        return Err(RecordsError::invalid(
            format!("header count {count} exceeds what the record's remaining bytes hold"),
            count_at,
        ));
    }
    for _ in 0..count {
        let key_at = *pos;
        if read_nullable(r, pos, "header key")?.is_none() {
            return Err(RecordsError::invalid("null header key", key_at));
        }
        read_nullable(r, pos, "header value")?;
    }
    Ok(())
}

/// Checks that `section` is exactly `count` headers as a record holds them after its header
/// count (the rules of [`read_record`]). Offsets in errors count from the start of `section`.
pub(crate) fn check_header_section(section: &[u8], count: u32) -> Result<(), RecordsError> {
    let count = i32::try_from(count)
        .map_err(|_| RecordsError::invalid(format!("header count {count} exceeds int32"), 0))?;
    let mut pos = 0;
    read_headers(section, &mut pos, count, 0)?;
    if pos != section.len() {
        return Err(RecordsError::invalid(
            format!(
                "{} bytes after the last of {count} headers",
                section.len() - pos
            ),
            pos,
        ));
    }
    Ok(())
}

/// Bytes of a nullable byte field on the wire (varint length, -1 = null).
#[inline(always)]
fn field_len(v: Option<&[u8]>, what: &str) -> Result<usize, RecordsError> {
    match v {
        None => Ok(1),
        Some(b) => {
            let n = i32::try_from(b.len()).map_err(|_| {
                RecordsError::invalid(format!("{what} of {} bytes exceeds int32", b.len()), 0)
            })?;
            Ok(varint_len(n) + b.len())
        }
    }
}

/// Appends a nullable byte field (its length was checked by [`field_len`]).
#[inline(always)]
fn write_field(out: &mut Vec<u8>, v: Option<&[u8]>) {
    match v {
        None => out.push(1), // zigzag(-1)
        Some(b) => {
            write_varint(out, b.len() as i32);
            out.extend_from_slice(b);
        }
    }
}

/// The header count and bytes of `headers` as a record holds them (after its header count).
///
/// # Errors
/// [`RecordsErrorKind::Invalid`](super::error::RecordsErrorKind::Invalid) for a key or value
/// above int32 bytes.
#[inline]
pub(crate) fn header_pairs_len<'h, I>(headers: I) -> Result<(usize, usize), RecordsError>
where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
{
    let (mut count, mut size) = (0usize, 0usize);
    for (k, v) in headers {
        size = size
            .saturating_add(field_len(Some(k), "header key")?)
            .saturating_add(field_len(v, "header value")?);
        count += 1;
    }
    Ok((count, size))
}

/// Appends `headers` as a record holds them (sizes checked by [`header_pairs_len`]).
#[inline]
pub(crate) fn write_header_pairs<'h, I>(out: &mut Vec<u8>, headers: I)
where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
{
    for (k, v) in headers {
        write_field(out, Some(k));
        write_field(out, v);
    }
}

/// Bytes of a record's body (everything after its length prefix) with these fields and
/// `header_count` headers taking `headers_len` bytes.
///
/// # Errors
/// [`RecordsErrorKind::Invalid`](super::error::RecordsErrorKind::Invalid) for a key, value or
/// header count above int32, or a record above int32 bytes.
#[inline]
pub(crate) fn record_body_len(
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    header_count: usize,
    headers_len: usize,
) -> Result<usize, RecordsError> {
    let count = i32::try_from(header_count)
        .map_err(|_| RecordsError::invalid("more than int32 headers", 0))?;
    let size = (1 + varlong_len(timestamp_delta) + varint_len(offset_delta) + varint_len(count))
        .saturating_add(field_len(key, "key")?)
        .saturating_add(field_len(value, "value")?)
        .saturating_add(headers_len);
    if size > i32::MAX as usize {
        return Err(RecordsError::invalid(
            format!("record of {size} bytes exceeds int32"),
            0,
        ));
    }
    Ok(size)
}

/// Appends one record whose body takes `body_len` bytes ([`record_body_len`]); `write_headers`
/// appends its `header_count` headers.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn write_record(
    out: &mut Vec<u8>,
    body_len: usize,
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    header_count: usize,
    write_headers: impl FnOnce(&mut Vec<u8>),
) {
    write_varint(out, body_len as i32);
    out.push(attributes as u8);
    write_varlong(out, timestamp_delta);
    write_varint(out, offset_delta);
    write_field(out, key);
    write_field(out, value);
    write_varint(out, header_count as i32);
    write_headers(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_lengths() {
        for v in [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            300,
            i32::MAX as i64,
            i32::MIN as i64,
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = Vec::new();
            write_varlong(&mut out, v);
            assert_eq!(out.len(), varlong_len(v), "{v}");
            let mut pos = 0;
            assert_eq!(read_varlong(&out, &mut pos).unwrap(), v);
            assert_eq!(pos, out.len());
            if let Ok(v32) = i32::try_from(v) {
                let mut pos = 0;
                assert_eq!(read_varint(&out, &mut pos).unwrap(), v32);
            }
        }
        // Kafka's examples: zigzag(-1) = 1, zigzag(1) = 2, 300 → zigzag 600 = 0xd8 0x04.
        let mut out = Vec::new();
        write_varint(&mut out, 300);
        assert_eq!(out, [0xd8, 0x04]);
    }

    #[test]
    fn varint_errors() {
        let mut pos = 0;
        assert!(read_varint(&[0x80, 0x80], &mut pos).is_err());
        let mut pos = 0;
        let e = read_varint(&[0xff; 6], &mut pos).unwrap_err();
        assert_eq!(e.offset, 0);
        let mut pos = 0;
        assert!(read_varlong(&[0xff; 11], &mut pos).is_err());
    }
}

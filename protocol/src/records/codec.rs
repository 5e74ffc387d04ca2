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
    if let Some(&byte) = b.get(*pos) {
        if byte < 0x80 {
            *pos += 1;
            return Ok(((byte >> 1) as i32) ^ -((byte & 1) as i32));
        }
    }
    let n = read_uvarint(b, pos, 5)? as u32;
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
#[inline]
pub(crate) fn varint_len(v: i32) -> usize {
    varlong_len(v as i64)
}

/// Bytes of `v` as a zigzag varlong.
#[inline]
pub(crate) fn varlong_len(v: i64) -> usize {
    let z = ((v << 1) ^ (v >> 63)) as u64;
    let bits = 64 - (z | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends `v` as a zigzag varint.
#[inline]
pub(crate) fn write_varint(out: &mut Vec<u8>, v: i32) {
    write_varlong(out, v as i64)
}

/// Appends `v` as a zigzag varlong.
#[inline]
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
/// count is non-negative, a header key is never null). `on_header(key, value)` sees each header's
/// byte ranges (and the header count, bounded by the record's bytes). Offsets in errors count from the start of `b`.
#[inline(always)]
pub(crate) fn read_record<F>(
    b: &[u8],
    pos: &mut usize,
    mut on_header: F,
) -> Result<RawRecord, RecordsError>
where
    F: FnMut(u32, (usize, usize), Option<(usize, usize)>),
{
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
    if count < 0 {
        return Err(RecordsError::invalid(
            format!("negative header count {count}"),
            count_at,
        ));
    }
    let headers_start = *pos;
    if count as usize > (body_end - headers_start) / MIN_HEADER_SIZE {
        return Err(RecordsError::invalid(
            format!("header count {count} exceeds what the record's remaining bytes hold"),
            count_at,
        ));
    }
    for _ in 0..count {
        let key_at = *pos;
        let key = match read_nullable(r, pos, "header key")? {
            Some(k) => k,
            None => return Err(RecordsError::invalid("null header key", key_at)),
        };
        let value = read_nullable(r, pos, "header value")?;
        on_header(count as u32, key, value);
    }
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

/// Bytes of a record body (everything after its length prefix).
#[inline]
pub(crate) fn record_body_len<'h, I>(
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: I,
) -> Result<usize, RecordsError>
where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
{
    fn field(v: Option<&[u8]>, what: &str) -> Result<usize, RecordsError> {
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
    let mut size = 1 + varlong_len(timestamp_delta) + varint_len(offset_delta);
    size += field(key, "key")?;
    size += field(value, "value")?;
    let mut count = 0usize;
    for (k, v) in headers {
        size += field(Some(k), "header key")?;
        size += field(v, "header value")?;
        count += 1;
    }
    let count =
        i32::try_from(count).map_err(|_| RecordsError::invalid("more than int32 headers", 0))?;
    size += varint_len(count);
    if size > i32::MAX as usize {
        return Err(RecordsError::invalid(
            format!("record of {size} bytes exceeds int32"),
            0,
        ));
    }
    Ok(size)
}

/// Appends one record (length prefix included); `body_len` from [`record_body_len`].
// The record's fields, one argument each: a struct would only be unpacked again here.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn write_record<'h, I>(
    out: &mut Vec<u8>,
    body_len: usize,
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    header_count: usize,
    headers: I,
) where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
{
    fn field(out: &mut Vec<u8>, v: Option<&[u8]>) {
        match v {
            None => out.push(1), // zigzag(-1)
            Some(b) => {
                write_varint(out, b.len() as i32);
                out.extend_from_slice(b);
            }
        }
    }
    write_varint(out, body_len as i32);
    out.push(attributes as u8);
    write_varlong(out, timestamp_delta);
    write_varint(out, offset_delta);
    field(out, key);
    field(out, value);
    write_varint(out, header_count as i32);
    for (k, v) in headers {
        field(out, Some(k));
        field(out, v);
    }
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

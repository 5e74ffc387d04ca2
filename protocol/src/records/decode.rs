//! [`RecordSet::decode`]: owned decoding of a record set that shares the input [`Bytes`] (keys,
//! values and header sections are slices of it, or of the one decompression buffer of a compressed
//! batch). The batches are framed by the view ([`RecordSetRef`]); legacy entries go to
//! `legacy`.

use bytes::Bytes;

use super::attributes::Compression;
use super::batch::BatchHeader;
use super::codec::{read_record, MIN_RECORD_SIZE};
use super::error::RecordsError;
use super::headers::Headers;
use super::legacy;
use super::options::DecodeOptions;
use super::owned::{Record, RecordBatch, RecordSet};
use super::view::{BatchRef, RecordSetRef};

impl RecordSet {
    /// Decodes every batch of `input` (magic 2 batches and legacy magic 0/1 messages), sharing
    /// `input`: keys, values and header sections of uncompressed batches are
    /// [`Bytes::slice`]s of it. A compressed batch is decompressed (at most
    /// `opts.max_decompressed_bytes`) into one buffer whose slices its records hold.
    ///
    /// # Errors
    /// The first [`RecordsError`] met, with its batch and record index: truncation inside a
    /// complete batch, bad lengths and counts (Kafka's `DefaultRecord.readFrom` and
    /// `DefaultRecordBatch` rules), CRC mismatch (when `opts.verify_crc`), unknown magic or codec,
    /// decompression errors and the decompression limit.
    pub fn decode(input: &Bytes, opts: &DecodeOptions) -> Result<RecordSet, RecordsError> {
        let mut batches = RecordSetRef::new(input).batches();
        let mut out = Vec::new();
        for batch in batches.by_ref() {
            let batch = batch?;
            out.push(decode_batch(input, &batch, opts).map_err(|e| e.in_batch(batch.index()))?);
        }
        Ok(RecordSet {
            batches: out,
            partial_tail: batches.partial_tail(),
        })
    }
}

fn decode_batch(
    input: &Bytes,
    batch: &BatchRef<'_>,
    opts: &DecodeOptions,
) -> Result<RecordBatch, RecordsError> {
    let start = batch.offset();
    let end = start + batch.bytes().len();
    if batch.header().magic != 2 {
        return legacy::decode_entry(input, start, end, opts);
    }
    let header = *batch.header();
    let codec = batch.compression();
    if opts.verify_crc {
        batch.check_crc()?;
    }
    let records = if codec == Ok(Compression::None) {
        decode_records(
            input,
            start + BatchHeader::SIZE,
            end,
            header.record_count,
            false,
        )?
    } else {
        let codec = codec?;
        let mut buf = Vec::new();
        super::compression::decompress(
            codec,
            &input[start + BatchHeader::SIZE..end],
            opts.max_decompressed_bytes,
            &mut buf,
        )
        .map_err(|e| e.shifted(start + BatchHeader::SIZE))?;
        let data = Bytes::from(buf);
        decode_records(&data, 0, data.len(), header.record_count, true)?
    };
    Ok(RecordBatch { header, records })
}

/// Reads `count` records from `src[start..end]`, slicing `src`; nothing may be left over.
fn decode_records(
    src: &Bytes,
    start: usize,
    end: usize,
    count: i32,
    in_decompressed: bool,
) -> Result<Vec<Record>, RecordsError> {
    let b = &src[start..end];
    let count = count.max(0) as usize;
    let mut records = Vec::with_capacity(count.min(b.len() / MIN_RECORD_SIZE));
    let mut pos = 0;
    let fail =
        |e: RecordsError, i: usize| e.shifted(start).in_record(i).decompressed(in_decompressed);
    for i in 0..count {
        if pos == b.len() {
            let e = RecordsError::invalid(
                format!("record count {count} but the batch holds {i} records"),
                pos,
            );
            return Err(fail(e, i));
        }
        let raw = match read_record(b, &mut pos) {
            Ok(raw) => raw,
            Err(e) => return Err(fail(e, i)),
        };
        let slice = |(s, e): (usize, usize)| src.slice(start + s..start + e);
        records.push(Record {
            attributes: raw.attributes,
            timestamp_delta: raw.timestamp_delta,
            offset_delta: raw.offset_delta,
            key: raw.key.map(slice),
            value: raw.value.map(slice),
            headers: if raw.header_count == 0 {
                Headers::new()
            } else {
                Headers::from_checked(slice(raw.headers), raw.header_count)
            },
        });
    }
    if pos != b.len() {
        let e = RecordsError::invalid(
            format!(
                "{} bytes after the last of the batch's {count} records",
                b.len() - pos
            ),
            pos,
        );
        return Err(fail(e, count));
    }
    Ok(records)
}

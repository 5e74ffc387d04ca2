//! The expanded JSON form of record sets (feature `json`): what `kwire decode --records` prints in
//! place of the base64 of each `records` field, and what the JSON readers accept back.
//!
//! ```json
//! {"batches": [{"baseOffset": 0, "batchLength": 70, "partitionLeaderEpoch": -1, "magic": 2,
//!   "crc": 123456789, "attributes": 0, "compression": "none", "timestampType": "CreateTime",
//!   "isTransactional": false, "isControl": false, "hasDeleteHorizon": false,
//!   "lastOffsetDelta": 0, "baseTimestamp": 1700000000000, "maxTimestamp": 1700000000000,
//!   "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "recordCount": 1,
//!   "records": [{"offsetDelta": 0, "offset": 0, "timestampDelta": 0,
//!     "timestamp": 1700000000000, "key": null, "value": "aGVsbG8=",
//!     "headers": [{"key": "trace", "value": null}]}]}]}
//! ```
//!
//! Keys and values are standard base64 (or `null`); header keys are strings (Kafka's header keys
//! are UTF-8 `String`s; bytes that are not UTF-8 are replaced, as Java's decoder does). Timestamps
//! are ms since the epoch; `timestamp` is absolute (`baseTimestamp + timestampDelta`, or
//! `maxTimestamp` for every record of a LogAppendTime batch, as Kafka's `DefaultRecordBatch`
//! reports them). A record of a control batch also has `"control"`: `{"type": "commit" |
//! "abort", "version", "coordinatorEpoch"}` or `{"type": N}` for other control types. Legacy
//! entries (magic 0 and 1) have the same shape, with Kafka's "no value" in the fields they lack.
//! A record set that ends in an incomplete batch (a fetch cut at its byte limit) has
//! `"partialTailBytes": n`.
//!
//! Reading the expanded form back ([`records_from_json`]) writes magic-2 batches: the CRC, batch
//! length and record count are recomputed (values given for them are ignored); the attribute
//! bits come from `compression`, `timestampType`, `isTransactional`, `isControl` and
//! `hasDeleteHorizon` where given, over `attributes`. Compressed batches are compressed again, so
//! their bytes may differ from the original (compressors differ); uncompressed ones come back
//! byte for byte.
//!
//! Which `records` fields are expanded is decided by the caller: [`with_expanded_records`] turns
//! expansion on for the JSON written by [`JsonForm::to_json`](crate::wire::json::JsonForm) on
//! the current thread for the duration of a closure (generated code calls [`put`]); reading
//! always accepts both base64 and the expanded form.

use super::attributes::{Attributes, Compression, TimestampType};
use super::batch::BatchHeader;
use super::control::ControlRecord;
use super::error::RecordsError;
use super::headers::{Header, Headers};
use super::options::DecodeOptions;
use super::owned::{Record, RecordBatch, RecordSet};
use crate::wire::json::{JsonError, JsonErrorKind, JsonForm, Map, Value};
use crate::wire::{EncodeError, EncodeErrorKind};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use bytes::Bytes;
use std::cell::Cell;

thread_local! {
    static EXPAND: Cell<Option<DecodeOptions>> = const { Cell::new(None) };
}

/// Runs `f` with `records` fields written in the expanded form (decoded with `opts`) by every
/// [`JsonForm::to_json`] on this thread, then restores the previous setting (also when `f`
/// panics).
///
/// ```
/// # #[cfg(feature = "json")] {
/// use kwire_protocol::records::{json::with_expanded_records, BatchBuilder, Compression, DecodeOptions};
/// use kwire_protocol::generated::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
/// use kwire_protocol::wire::json::JsonForm;
///
/// let mut b = BatchBuilder::new(Compression::None);
/// b.append(1_700_000_000_000, None, Some(b"hello"), &[(b"trace", None)]).unwrap();
/// let req = ProduceRequest {
///     topic_data: vec![TopicProduceData {
///         name: "t".into(),
///         partition_data: vec![PartitionProduceData { index: 0, records: Some(b.build().unwrap()), ..Default::default() }],
///         ..Default::default()
///     }],
///     ..Default::default()
/// };
/// let plain = req.to_json(9).unwrap();
/// assert!(plain["topicData"][0]["partitionData"][0]["records"].is_string());
/// let json = with_expanded_records(DecodeOptions::default(), || req.to_json(9)).unwrap();
/// let record = &json["topicData"][0]["partitionData"][0]["records"]["batches"][0]["records"][0];
/// assert_eq!(record["value"], "aGVsbG8=");
/// assert_eq!(record["headers"][0]["key"], "trace");
/// assert!(record["headers"][0]["value"].is_null());
/// // And back: the same request.
/// assert_eq!(ProduceRequest::from_json(&json, 9).unwrap(), req);
/// # }
/// ```
pub fn with_expanded_records<R>(opts: DecodeOptions, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<DecodeOptions>);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXPAND.with(|e| e.set(self.0));
        }
    }
    let _restore = Restore(EXPAND.with(|e| e.replace(Some(opts))));
    f()
}

/// The value of a `records` field: `Bytes`, or `Option<Bytes>` where the field is nullable.
#[doc(hidden)]
pub trait RecordsField: JsonForm {
    /// The bytes, `None` for null.
    fn records_bytes(&self) -> Option<&Bytes>;
    /// From bytes read out of the expanded form.
    fn from_records(b: Bytes) -> Self;
}

impl RecordsField for Bytes {
    fn records_bytes(&self) -> Option<&Bytes> {
        Some(self)
    }
    fn from_records(b: Bytes) -> Self {
        b
    }
}

impl RecordsField for Option<Bytes> {
    fn records_bytes(&self) -> Option<&Bytes> {
        self.as_ref()
    }
    fn from_records(b: Bytes) -> Self {
        Some(b)
    }
}

/// Writes a `records` field: base64, or the expanded form inside [`with_expanded_records`].
///
/// # Errors
/// [`EncodeErrorKind::InvalidRecords`] when expansion is on and the bytes are not a valid record
/// set (the text has the byte offset).
#[doc(hidden)]
pub fn put<T: RecordsField>(
    m: &mut Map<String, Value>,
    key: &str,
    value: &T,
    version: i16,
) -> Result<(), EncodeError> {
    let v = match (EXPAND.with(Cell::get), value.records_bytes()) {
        (Some(opts), Some(b)) => record_set_to_json(b, &opts)
            .map_err(|e| EncodeError::new(EncodeErrorKind::InvalidRecords(e.to_string())))?,
        _ => value.to_json(version)?,
    };
    m.insert(key.to_owned(), v);
    Ok(())
}

/// A `records` field as `wire::json`'s readers take it: read from base64, `null` or the
/// expanded form; written as the field's own JSON form.
struct Readable<T>(T);

impl<T: RecordsField> JsonForm for Readable<T> {
    fn to_json(&self, version: i16) -> Result<Value, EncodeError> {
        self.0.to_json(version)
    }
    fn from_json(v: &Value, version: i16) -> Result<Self, JsonError> {
        if v.is_object() {
            records_from_json(v).map(|b| Readable(T::from_records(b)))
        } else {
            T::from_json(v, version).map(Readable)
        }
    }
}

/// Reads a `records` field the version has outside the tagged section: base64, `null` or the
/// expanded form (`wire::json::required` over [`records_from_json`]).
///
/// # Errors
/// `MissingField` when absent; otherwise as [`records_from_json`] or the base64 reader.
#[doc(hidden)]
pub fn required<T: RecordsField>(
    o: &Map<String, Value>,
    key: &'static str,
    version: i16,
) -> Result<T, JsonError> {
    crate::wire::json::required::<Readable<T>>(o, key, version).map(|r| r.0)
}

/// Reads a `records` field, or gives `default` when it is absent (`wire::json::field_or`).
///
/// # Errors
/// As [`required`], minus the missing field.
#[doc(hidden)]
pub fn field_or<T: RecordsField>(
    o: &Map<String, Value>,
    key: &'static str,
    version: i16,
    default: T,
) -> Result<T, JsonError> {
    crate::wire::json::field_or(o, key, version, Readable(default)).map(|r| r.0)
}

fn b64(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| Value::String(STANDARD.encode(b)))
}

/// The expanded JSON form of a record set (module docs), decoded with `opts` (CRC checked when
/// `opts.verify_crc`, decompression bounded by `opts.max_decompressed_bytes`).
///
/// # Errors
/// As [`RecordSet::decode`].
pub fn record_set_to_json(input: &Bytes, opts: &DecodeOptions) -> Result<Value, RecordsError> {
    let set = RecordSet::decode(input, opts)?;
    let mut batches = Vec::with_capacity(set.batches.len());
    for batch in &set.batches {
        batches.push(batch_to_json(batch)?);
    }
    let mut m = Map::new();
    m.insert("batches".into(), Value::Array(batches));
    if set.partial_tail > 0 {
        m.insert("partialTailBytes".into(), Value::from(set.partial_tail));
    }
    Ok(Value::Object(m))
}

fn batch_to_json(batch: &RecordBatch) -> Result<Value, RecordsError> {
    let h = &batch.header;
    let a = h.attributes;
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.into(), v);
    };
    put("baseOffset", h.base_offset.into());
    put("batchLength", h.batch_length.into());
    put("partitionLeaderEpoch", h.partition_leader_epoch.into());
    put("magic", h.magic.into());
    put("crc", h.crc.into());
    put("attributes", a.0.into());
    put("compression", batch.compression().name().into());
    put(
        "timestampType",
        timestamp_type_name(a.timestamp_type()).into(),
    );
    put("isTransactional", a.is_transactional().into());
    put("isControl", a.is_control().into());
    put("hasDeleteHorizon", a.has_delete_horizon().into());
    put("lastOffsetDelta", h.last_offset_delta.into());
    put("baseTimestamp", h.base_timestamp.into());
    put("maxTimestamp", h.max_timestamp.into());
    put("producerId", h.producer_id.into());
    put("producerEpoch", h.producer_epoch.into());
    put("baseSequence", h.base_sequence.into());
    put("recordCount", h.record_count.into());
    let mut records = Vec::with_capacity(batch.records.len());
    for r in &batch.records {
        let mut o = Map::new();
        o.insert("offsetDelta".into(), r.offset_delta.into());
        o.insert("offset".into(), batch.offset_of(r).into());
        o.insert("timestampDelta".into(), r.timestamp_delta.into());
        o.insert("timestamp".into(), batch.timestamp_of(r).into());
        o.insert("key".into(), b64(r.key.as_deref()));
        o.insert("value".into(), b64(r.value.as_deref()));
        let headers = r
            .headers
            .iter()
            .map(|h| {
                let mut ho = Map::new();
                ho.insert(
                    "key".into(),
                    String::from_utf8_lossy(h.key).into_owned().into(),
                );
                ho.insert("value".into(), b64(h.value));
                Value::Object(ho)
            })
            .collect();
        o.insert("headers".into(), Value::Array(headers));
        if let Some(control) = batch.control_record(r) {
            o.insert("control".into(), control_to_json(&control?));
        }
        records.push(Value::Object(o));
    }
    m.insert("records".into(), Value::Array(records));
    Ok(Value::Object(m))
}

fn timestamp_type_name(t: TimestampType) -> &'static str {
    match t {
        TimestampType::CreateTime => "CreateTime",
        TimestampType::LogAppendTime => "LogAppendTime",
    }
}

fn control_to_json(c: &ControlRecord) -> Value {
    let mut m = Map::new();
    match c {
        ControlRecord::Abort {
            version,
            coordinator_epoch,
        }
        | ControlRecord::Commit {
            version,
            coordinator_epoch,
        } => {
            let kind = if matches!(c, ControlRecord::Commit { .. }) {
                "commit"
            } else {
                "abort"
            };
            m.insert("type".into(), kind.into());
            m.insert("version".into(), (*version).into());
            m.insert("coordinatorEpoch".into(), (*coordinator_epoch).into());
        }
        ControlRecord::Other { r#type, .. } => {
            m.insert("type".into(), (*r#type).into());
        }
    }
    Value::Object(m)
}

/// Reads the expanded form back into record-set bytes: magic-2 batches, each encoded by
/// [`RecordBatch::encode`] (module docs for which fields are recomputed).
///
/// # Errors
/// A [`JsonError`] with the JSON path (`batches[0].records[3].value: …`): a wrong JSON type, bad
/// base64, a `magic` other than 2, an unknown `compression` or `timestampType` name, a number
/// out of its field's range, or a batch that cannot be encoded (the text says why).
pub fn records_from_json(v: &Value) -> Result<Bytes, JsonError> {
    let o = obj(v)?;
    let batches = o.get("batches").ok_or_else(|| missing("batches"))?;
    let batches = batches
        .as_array()
        .ok_or_else(|| invalid("an array", batches).field("batches"))?;
    let mut out = Vec::new();
    for (i, b) in batches.iter().enumerate() {
        let batch = batch_from_json(b).map_err(|e| e.index(i).field("batches"))?;
        let bytes = batch.encode().map_err(|e| {
            JsonError::new(JsonErrorKind::InvalidRecords(e.to_string()))
                .index(i)
                .field("batches")
        })?;
        out.extend_from_slice(&bytes);
    }
    Ok(Bytes::from(out))
}

fn obj(v: &Value) -> Result<&Map<String, Value>, JsonError> {
    v.as_object().ok_or_else(|| invalid("an object", v))
}

fn missing(key: &'static str) -> JsonError {
    JsonError::new(JsonErrorKind::MissingField { key, version: None })
}

fn invalid(what: &str, v: &Value) -> JsonError {
    JsonError::new(JsonErrorKind::InvalidRecords(format!(
        "expected {what}, found {v}"
    )))
}

/// An integer field of type `T`, `default` when absent.
fn int<T: TryFrom<i64>>(
    o: &Map<String, Value>,
    key: &'static str,
    default: Option<T>,
) -> Result<T, JsonError> {
    match o.get(key) {
        None => default.ok_or_else(|| missing(key)),
        Some(v) => v
            .as_i64()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| invalid("an integer in range", v).field(key)),
    }
}

fn flag(o: &Map<String, Value>, key: &'static str) -> Result<Option<bool>, JsonError> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(invalid("a boolean", v).field(key)),
    }
}

fn opt_bytes(o: &Map<String, Value>, key: &'static str) -> Result<Option<Bytes>, JsonError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => Bytes::from_json(v, 0).map(Some).map_err(|e| e.field(key)),
    }
}

fn batch_from_json(v: &Value) -> Result<RecordBatch, JsonError> {
    let o = obj(v)?;
    let magic: i8 = int(o, "magic", Some(2))?;
    if magic != 2 {
        return Err(JsonError::new(JsonErrorKind::InvalidRecords(format!(
            "magic {magic}: only magic 2 batches can be written (legacy message sets are read-only)"
        )))
        .field("magic"));
    }
    let mut bits: i16 = int(o, "attributes", Some(0))?;
    if let Some(name) = o.get("compression") {
        let c = name
            .as_str()
            .and_then(|s| {
                [
                    Compression::None,
                    Compression::Gzip,
                    Compression::Snappy,
                    Compression::Lz4,
                    Compression::Zstd,
                ]
                .into_iter()
                .find(|c| c.name() == s)
            })
            .ok_or_else(|| {
                invalid("one of none, gzip, snappy, lz4, zstd", name).field("compression")
            })?;
        bits = (bits & !0b111) | c.id() as i16;
    }
    if let Some(t) = o.get("timestampType") {
        let log_append = match t.as_str() {
            Some("CreateTime") => false,
            Some("LogAppendTime") => true,
            _ => return Err(invalid("CreateTime or LogAppendTime", t).field("timestampType")),
        };
        bits = set_bit(bits, 3, log_append);
    }
    for (key, bit) in [
        ("isTransactional", 4),
        ("isControl", 5),
        ("hasDeleteHorizon", 6),
    ] {
        if let Some(on) = flag(o, key)? {
            bits = set_bit(bits, bit, on);
        }
    }
    let list = o.get("records").ok_or_else(|| missing("records"))?;
    let list = list
        .as_array()
        .ok_or_else(|| invalid("an array", list).field("records"))?;
    // The base timestamp: given, else the first record's absolute timestamp.
    let first_timestamp = list
        .first()
        .and_then(|r| r.get("timestamp"))
        .and_then(Value::as_i64);
    let base_timestamp: i64 = int(o, "baseTimestamp", Some(first_timestamp.unwrap_or(-1)))?;
    let mut records = Vec::with_capacity(list.len());
    for (i, r) in list.iter().enumerate() {
        records
            .push(record_from_json(r, i, base_timestamp).map_err(|e| e.index(i).field("records"))?);
    }
    let max_default = records
        .iter()
        .map(|r| base_timestamp.saturating_add(r.timestamp_delta))
        .max()
        .unwrap_or(base_timestamp);
    let count = i32::try_from(records.len()).map_err(|_| {
        JsonError::new(JsonErrorKind::InvalidRecords(
            "more than i32::MAX records".into(),
        ))
    })?;
    let header = BatchHeader {
        base_offset: int(o, "baseOffset", Some(0))?,
        batch_length: 0,
        partition_leader_epoch: int(o, "partitionLeaderEpoch", Some(-1))?,
        magic: 2,
        crc: 0,
        attributes: Attributes(bits),
        last_offset_delta: int(o, "lastOffsetDelta", Some(count - 1))?,
        base_timestamp,
        max_timestamp: int(o, "maxTimestamp", Some(max_default))?,
        producer_id: int(o, "producerId", Some(-1))?,
        producer_epoch: int(o, "producerEpoch", Some(-1))?,
        base_sequence: int(o, "baseSequence", Some(-1))?,
        record_count: count,
    };
    Ok(RecordBatch { header, records })
}

fn set_bit(bits: i16, bit: u32, on: bool) -> i16 {
    if on {
        bits | (1 << bit)
    } else {
        bits & !(1 << bit)
    }
}

/// Record `index` of a batch whose base timestamp is `base_timestamp` (ms): a record given with
/// an absolute `timestamp` only gets its delta from the base.
fn record_from_json(v: &Value, index: usize, base_timestamp: i64) -> Result<Record, JsonError> {
    let o = obj(v)?;
    let default_delta = i32::try_from(index).ok();
    let timestamp = o
        .get("timestamp")
        .and_then(Value::as_i64)
        .unwrap_or(base_timestamp);
    let timestamp_delta = timestamp.checked_sub(base_timestamp).ok_or_else(|| {
        JsonError::new(JsonErrorKind::InvalidRecords(format!(
            "timestamp {timestamp} ms: its delta to the base timestamp {base_timestamp} overflows int64"
        )))
        .field("timestamp")
    })?;
    let headers = match o.get("headers") {
        None | Some(Value::Null) => Headers::new(),
        Some(Value::Array(a)) => {
            let list = a
                .iter()
                .enumerate()
                .map(|(i, h)| header_from_json(h).map_err(|e| e.index(i).field("headers")))
                .collect::<Result<Vec<_>, _>>()?;
            Headers::from_headers(&list).map_err(|e| {
                JsonError::new(JsonErrorKind::InvalidRecords(e.to_string())).field("headers")
            })?
        }
        Some(other) => return Err(invalid("an array", other).field("headers")),
    };
    Ok(Record {
        attributes: int(o, "attributes", Some(0))?,
        timestamp_delta: int(o, "timestampDelta", Some(timestamp_delta))?,
        offset_delta: int(o, "offsetDelta", default_delta)?,
        key: opt_bytes(o, "key")?,
        value: opt_bytes(o, "value")?,
        headers,
    })
}

fn header_from_json(v: &Value) -> Result<Header, JsonError> {
    let o = obj(v)?;
    let key = match o.get("key") {
        Some(Value::String(s)) => Bytes::copy_from_slice(s.as_bytes()),
        Some(other) => return Err(invalid("a string", other).field("key")),
        None => return Err(missing("key")),
    };
    Ok(Header {
        key,
        value: opt_bytes(o, "value")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::BatchBuilder;
    use crate::records::RecordsErrorKind;

    fn sample(c: Compression) -> Bytes {
        let mut b = BatchBuilder::new(c).producer(7, 1, 40).base_offset(100);
        b.append(
            1_000,
            Some(b"k"),
            Some(b"v1"),
            &[(b"h", None), (b"h", Some(b"x"))],
        )
        .unwrap();
        b.append(5_000_000_000, None, None, &[]).unwrap();
        b.build().unwrap()
    }

    #[test]
    fn expanded_form_has_every_header_field_and_absolute_timestamps() {
        let bytes = sample(Compression::None);
        let j = record_set_to_json(&bytes, &DecodeOptions::default()).unwrap();
        let b = &j["batches"][0];
        assert_eq!(b["baseOffset"], 100);
        assert_eq!(b["batchLength"], bytes.len() as i64 - 12);
        assert_eq!(b["compression"], "none");
        assert_eq!(b["producerId"], 7);
        assert_eq!(b["producerEpoch"], 1);
        assert_eq!(b["baseSequence"], 40);
        assert_eq!(b["recordCount"], 2);
        assert_eq!(b["maxTimestamp"], 5_000_000_000i64);
        let r = &b["records"];
        assert_eq!(r[0]["key"], "aw==");
        assert_eq!(
            r[0]["headers"],
            serde_json::json!([{"key": "h", "value": null}, {"key": "h", "value": "eA=="}])
        );
        assert_eq!(r[1]["offset"], 101);
        assert_eq!(r[1]["timestampDelta"], 4_999_999_000i64);
        assert_eq!(r[1]["timestamp"], 5_000_000_000i64);
        assert!(r[1]["key"].is_null() && r[1]["value"].is_null());
        assert!(j.get("partialTailBytes").is_none());
        // Uncompressed: back byte for byte.
        assert_eq!(records_from_json(&j).unwrap(), bytes);
    }

    #[test]
    fn a_partial_tail_is_reported_and_garbage_is_an_error() {
        let bytes = sample(Compression::None);
        let mut two = bytes.to_vec();
        two.extend_from_slice(&bytes[..30]);
        let j = record_set_to_json(&Bytes::from(two), &DecodeOptions::default()).unwrap();
        assert_eq!(j["partialTailBytes"], 30);
        let mut bad = bytes.to_vec();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let e = record_set_to_json(&Bytes::from(bad), &DecodeOptions::default()).unwrap_err();
        assert!(
            matches!(e.kind, RecordsErrorKind::CrcMismatch { .. }),
            "{e:?}"
        );
    }

    #[test]
    fn records_given_with_absolute_timestamps_get_deltas_and_the_max_timestamp() {
        let j = serde_json::json!({"batches": [{"records": [{"timestamp": 1000}, {"timestamp": 5000}, {"timestamp": 3000}]}]});
        let set =
            RecordSet::decode(&records_from_json(&j).unwrap(), &DecodeOptions::default()).unwrap();
        let b = &set.batches[0];
        assert_eq!(
            (b.header.base_timestamp, b.header.max_timestamp),
            (1000, 5000)
        );
        let deltas: Vec<i64> = b.records.iter().map(|r| r.timestamp_delta).collect();
        assert_eq!(deltas, [0, 4000, 2000]);
        let j = serde_json::json!({"batches": [{"baseTimestamp": 1, "records": [{"timestamp": i64::MIN}]}]});
        assert!(records_from_json(&j)
            .unwrap_err()
            .to_string()
            .contains("overflows"));
    }

    #[test]
    fn reading_names_the_json_path() {
        let j = serde_json::json!({"batches": [{"records": [{"value": 5}]}]});
        let e = records_from_json(&j).unwrap_err().to_string();
        assert!(e.contains("batches[0].records[0].value"), "{e}");
        let j = serde_json::json!({"batches": [{"magic": 1, "records": []}]});
        assert!(records_from_json(&j)
            .unwrap_err()
            .to_string()
            .contains("magic 1"));
    }
}

//! Produce, Fetch and ListOffsets: the partition logs.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::fetch_request::FetchRequest;
use kwire_protocol::generated::fetch_response::{
    FetchResponse, FetchableTopicResponse, PartitionData,
};
use kwire_protocol::generated::list_offsets_request::ListOffsetsRequest;
use kwire_protocol::generated::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsResponse, ListOffsetsTopicResponse,
};
use kwire_protocol::generated::produce_request::ProduceRequest;
use kwire_protocol::generated::produce_response::{
    PartitionProduceResponse, ProduceResponse, TopicProduceResponse,
};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::Uuid;

use super::{Ctx, FetchWait, Outcome};
use crate::broker::Broker;
use crate::events;
use crate::producers::ProducerEntry;
use crate::topics::{check_produce_version, LogMark, Topic};

/// A producer id and its state before an append (`None`: unknown to the partition).
type ProducerUndo = (i64, Option<ProducerEntry>);

/// Produce v3-11: each partition's records must be exactly one RecordBatch v2 that passes
/// [`check_batch`](crate::topics::check_batch); it is appended with its base offset rewritten
/// ([`PartitionLog::append`](crate::topics::PartitionLog::append)). Unknown topic or partition:
/// UNKNOWN_TOPIC_OR_PARTITION (a produce never creates a topic, as in Kafka: only Metadata
/// does); a bad batch: INVALID_RECORD, CORRUPT_MESSAGE or UNKNOWN_SERVER_ERROR; a zstd batch
/// below v7: UNSUPPORTED_COMPRESSION_TYPE; acks other than -1, 0, 1:
/// INVALID_REQUIRED_ACKS. An idempotent producer's batch is checked against the partition's
/// producer state ([`crate::producers`]): INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER,
/// or, for a duplicate of one of its last five batches, error NONE with the original base offset
/// (and, as Kafka, the original batch's MaxTimestamp as LogAppendTime) and nothing stored. With a
/// data directory the new end offset of every partition appended to is written (one entry per
/// partition, one write); if that write fails the appends and their producer-state changes are
/// undone and those partitions answer KAFKA_STORAGE_ERROR.
/// Returns the response and whether anything was appended (the caller sends nothing for acks=0).
pub fn produce(b: &mut Broker, ctx: &Ctx<'_>, r: &ProduceRequest) -> (ProduceResponse, bool) {
    let v = ctx.version;
    let acks_ok = matches!(r.acks, -1..=1);
    let max_decompressed_bytes = b.max_decompressed_bytes;
    // Partitions appended to: (topic, partition) -> the log's mark before the first append and
    // the producer states to put back, in append order.
    let mut touched: BTreeMap<(String, i32), (LogMark, Vec<ProducerUndo>)> = BTreeMap::new();
    // Where each appended partition's answer is, and each duplicate's in a partition appended
    // to by this request: (topic index, partition index).
    let mut appended_at: Vec<(usize, usize)> = Vec::new();
    let mut responses = Vec::new();
    for (ti, t) in r.topic_data.iter().enumerate() {
        let mut partition_responses = Vec::new();
        for (pi, p) in t.partition_data.iter().enumerate() {
            let mut resp = PartitionProduceResponse {
                index: p.index,
                error_code: ErrorCode::None.code(),
                base_offset: -1,
                log_append_time_ms: -1,
                log_start_offset: -1,
                ..Default::default()
            };
            let mut message: Option<String> = None;
            match b
                .topics
                .get_mut(&t.name)
                .and_then(|topic| topic.partition_mut(p.index))
            {
                _ if !acks_ok => resp.error_code = ErrorCode::InvalidRequiredAcks.code(),
                None => resp.error_code = ErrorCode::UnknownTopicOrPartition.code(),
                Some(log) => match p.records.as_deref().unwrap_or(&[]) {
                    [] => {
                        resp.error_code = ErrorCode::InvalidRecord.code();
                        message = Some("Produce request without a record batch".into());
                    }
                    records => {
                        let mark = log.mark();
                        let appended = check_produce_version(records, v)
                            .and_then(|()| log.append(records, max_decompressed_bytes, ctx.now));
                        match appended {
                            Ok(a) if a.duplicate => {
                                // A duplicate of a batch appended by this very request stands
                                // or falls with it (see the undo below).
                                if touched.contains_key(&(t.name.to_string(), p.index)) {
                                    appended_at.push((ti, pi));
                                }
                                resp.base_offset = a.base_offset;
                                resp.log_append_time_ms = a.log_append_time;
                                resp.log_start_offset = log.log_start_offset();
                                if let Some(producer) = &a.producer {
                                    events::duplicate_batch(
                                        ctx,
                                        &t.name,
                                        p.index,
                                        producer,
                                        a.base_offset,
                                    );
                                }
                            }
                            Ok(a) => {
                                resp.base_offset = a.base_offset;
                                resp.log_start_offset = log.log_start_offset();
                                let entry = touched
                                    .entry((t.name.to_string(), p.index))
                                    .or_insert((mark, Vec::new()));
                                entry.1.extend(a.undo);
                                appended_at.push((ti, pi));
                            }
                            Err(e) => {
                                ctx.refused(
                                    ApiKey::Produce,
                                    format_args!(
                                        "a record batch for {}-{}: {}: {}",
                                        &*t.name, p.index, e.code, e.message
                                    ),
                                );
                                resp.error_code = e.code.code();
                                message = Some(e.message);
                            }
                        }
                    }
                },
            }
            if v >= 8 {
                resp.error_message = message.map(Into::into);
            }
            partition_responses.push(resp);
        }
        responses.push(TopicProduceResponse {
            name: t.name.clone(),
            partition_responses,
            ..Default::default()
        });
    }
    let mut appended = !touched.is_empty();
    if appended && b.is_durable() {
        for (topic, partition) in touched.keys() {
            let end = b
                .topics
                .get(topic)
                .and_then(|t| t.partition(*partition))
                .map_or(0, |l| l.high_watermark());
            b.queue_partition_end(topic, *partition, end);
        }
        if let Err(e) = b.commit() {
            for ((topic, partition), (mark, undo)) in touched {
                if let Some(log) = b
                    .topics
                    .get_mut(&topic)
                    .and_then(|t| t.partition_mut(partition))
                {
                    log.truncate_to(mark);
                    for (producer_id, previous) in undo.into_iter().rev() {
                        log.undo_producer(producer_id, previous);
                    }
                }
            }
            for (ti, pi) in &appended_at {
                let resp = &mut responses[*ti].partition_responses[*pi];
                resp.error_code = ErrorCode::KafkaStorageError.code();
                resp.base_offset = -1;
                resp.log_start_offset = -1;
                if v >= 8 {
                    resp.error_message = Some(format!("cannot write the durable log: {e}").into());
                }
            }
            appended = false;
        }
    }
    (
        ProduceResponse {
            responses,
            throttle_time_ms: 0,
            ..Default::default()
        },
        appended,
    )
}

/// ListOffsets v0-9: -2 (earliest) and -4 (earliest local) are the log start offset (0, or
/// where the partition ended before a restart with `--data`), -1 (latest) the high
/// watermark, -3 the record with the largest timestamp, -5 (latest tiered) -1 (no tiered
/// storage), and a timestamp the first record at or after it (offset and timestamp -1 when
/// there is none, as Kafka). v0 answers with the old-style offset list.
pub fn list_offsets(b: &mut Broker, ctx: &Ctx<'_>, r: &ListOffsetsRequest) -> ListOffsetsResponse {
    let v = ctx.version;
    let topics = r
        .topics
        .iter()
        .map(|t| ListOffsetsTopicResponse {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    let mut resp = ListOffsetsPartitionResponse {
                        partition_index: p.partition_index,
                        error_code: ErrorCode::None.code(),
                        timestamp: -1,
                        offset: -1,
                        leader_epoch: -1,
                        ..Default::default()
                    };
                    let Some(log) = b
                        .topics
                        .get(&t.name)
                        .and_then(|topic| topic.partition(p.partition_index))
                    else {
                        resp.error_code = ErrorCode::UnknownTopicOrPartition.code();
                        return resp;
                    };
                    let hw = log.high_watermark();
                    let start = log.log_start_offset();
                    let (offset, ts) = match p.timestamp {
                        -2 | -4 => (start, -1),
                        -1 => (hw, -1),
                        -3 => log.max_timestamp().unwrap_or((-1, -1)),
                        -5 => (-1, -1),
                        t if t >= 0 => log.offset_for_timestamp(t).unwrap_or((-1, -1)),
                        _ => (-1, -1),
                    };
                    resp.offset = offset;
                    resp.timestamp = ts;
                    if v >= 4 && offset >= 0 {
                        resp.leader_epoch = 0;
                    }
                    resp
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    ListOffsetsResponse {
        throttle_time_ms: 0,
        topics,
        ..Default::default()
    }
}

/// Fetch v4-16: a sessionless fetch (SessionId 0), answered at once when it has records (at
/// least MinBytes) or errors, else held up to MaxWaitMs (capped at `max_wait_cap_ms`) until a
/// produce brings records.
pub fn fetch(b: &mut Broker, ctx: &Ctx<'_>, r: FetchRequest, max_wait_cap_ms: u64) -> Outcome {
    let wait = u64::try_from(r.max_wait_ms)
        .unwrap_or(0)
        .min(max_wait_cap_ms);
    let force = wait == 0;
    match fetch_response(b, &r, ctx.version, force) {
        Some(resp) => Outcome::Respond(resp.into()),
        None => Outcome::Park(FetchWait {
            request: r,
            version: ctx.version,
            deadline: Instant::now() + Duration::from_millis(wait),
        }),
    }
}

fn partition_data(index: i32, code: i16, isolation: i8, version: i16) -> PartitionData {
    PartitionData {
        partition_index: index,
        error_code: code,
        high_watermark: -1,
        last_stable_offset: -1,
        log_start_offset: -1,
        aborted_transactions: (isolation == 1 && version >= 4).then(Vec::new),
        preferred_read_replica: -1,
        records: Some(Bytes::new()),
        ..Default::default()
    }
}

/// Builds the Fetch response at `version`. Returns `None` when the response should wait: no
/// errors and fewer than MinBytes bytes of records, unless `force`.
///
/// Per partition: UNKNOWN_TOPIC_OR_PARTITION (by name, or a partition out of range),
/// UNKNOWN_TOPIC_ID (by id, v13+), OFFSET_OUT_OF_RANGE for an offset outside [log start, HW]
/// (with HW, LSO and log start -1, as Kafka);
/// else whole batches from the fetch offset within PartitionMaxBytes and the response's MaxBytes
/// (the first batch of the response always, as KIP-74). HW = LSO.
pub fn fetch_response(
    b: &Broker,
    r: &FetchRequest,
    version: i16,
    force: bool,
) -> Option<FetchResponse> {
    if r.session_id != 0 {
        return Some(FetchResponse {
            error_code: ErrorCode::FetchSessionIdNotFound.code(),
            session_id: 0,
            ..Default::default()
        });
    }
    let by_id = version >= 13;
    let mut remaining = usize::try_from(r.max_bytes).unwrap_or(0);
    let mut total = 0usize;
    let mut errors = false;
    let mut responses = Vec::with_capacity(r.topics.len());
    for t in &r.topics {
        let topic: Option<&Topic> = if by_id {
            b.topics.by_id(&t.topic_id)
        } else {
            b.topics.get(&t.topic)
        };
        let mut partitions = Vec::with_capacity(t.partitions.len());
        for p in &t.partitions {
            let Some(topic) = topic else {
                errors = true;
                let code = if by_id {
                    ErrorCode::UnknownTopicId.code()
                } else {
                    ErrorCode::UnknownTopicOrPartition.code()
                };
                partitions.push(partition_data(
                    p.partition,
                    code,
                    r.isolation_level,
                    version,
                ));
                continue;
            };
            let Some(log) = topic.partition(p.partition) else {
                errors = true;
                partitions.push(partition_data(
                    p.partition,
                    ErrorCode::UnknownTopicOrPartition.code(),
                    r.isolation_level,
                    version,
                ));
                continue;
            };
            let hw = log.high_watermark();
            let mut pd = partition_data(
                p.partition,
                ErrorCode::None.code(),
                r.isolation_level,
                version,
            );
            pd.high_watermark = hw;
            pd.last_stable_offset = hw;
            let start = log.log_start_offset();
            pd.log_start_offset = start;
            if p.fetch_offset < start || p.fetch_offset > hw {
                // As Kafka's `ReplicaManager.readFromLog` answers an OffsetOutOfRangeException:
                // no high watermark, last stable offset or log start offset (-1).
                errors = true;
                pd.error_code = ErrorCode::OffsetOutOfRange.code();
                pd.high_watermark = -1;
                pd.last_stable_offset = -1;
                pd.log_start_offset = -1;
            } else {
                let limit = usize::try_from(p.partition_max_bytes)
                    .unwrap_or(0)
                    .min(remaining);
                let first = total == 0;
                let data = log.read(p.fetch_offset, limit, first);
                total += data.len();
                remaining = remaining.saturating_sub(data.len());
                pd.records = Some(data);
            }
            partitions.push(pd);
        }
        responses.push(FetchableTopicResponse {
            topic: if by_id { "".into() } else { t.topic.clone() },
            topic_id: if by_id { t.topic_id } else { Uuid::ZERO },
            partitions,
            ..Default::default()
        });
    }
    let min_bytes = usize::try_from(r.min_bytes).unwrap_or(0);
    if !force && !errors && min_bytes > 0 && total < min_bytes {
        return None;
    }
    Some(FetchResponse {
        throttle_time_ms: 0,
        error_code: ErrorCode::None.code(),
        session_id: 0,
        responses,
        ..Default::default()
    })
}

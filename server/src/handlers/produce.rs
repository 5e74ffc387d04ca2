//! Produce: record batches appended to the partition logs.

use std::collections::BTreeMap;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::produce_request::{PartitionProduceData, ProduceRequest};
use kwire_protocol::generated::produce_response::{
    PartitionProduceResponse, ProduceResponse, TopicProduceResponse,
};
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::{duplicate_batch, BatchProducer};
use crate::reply::Reply;
use crate::services::producers::ProducerEntry;
use crate::services::state::State;
use crate::services::topics::batch::check_produce_version;
use crate::services::topics::log::LogMark;

/// A producer id and its state before an append (`None`: unknown to the partition).
type ProducerUndo = (i64, Option<ProducerEntry>);

/// What one Produce request appended, to make durable or undo.
#[derive(Default)]
struct Appends {
    /// Partitions appended to: (topic, partition) -> the log's mark before the first append and
    /// the producer states to put back, in append order.
    touched: BTreeMap<(String, i32), (LogMark, Vec<ProducerUndo>)>,
    /// Where each appended partition's answer is, and each duplicate's in a partition appended
    /// to by this request: (topic index, partition index).
    answers: Vec<(usize, usize)>,
}

/// Produce v3-11: each partition's records must be exactly one RecordBatch v2 that passes
/// [`check_batch`](crate::services::topics::batch::check_batch); it is appended with its base
/// offset rewritten ([`PartitionLog::append`](crate::services::topics::log::PartitionLog::append)).
/// Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION (a produce never creates a topic, as
/// in Kafka: only Metadata does); a bad batch: INVALID_RECORD, CORRUPT_MESSAGE or
/// UNKNOWN_SERVER_ERROR; a zstd batch below v7: UNSUPPORTED_COMPRESSION_TYPE; acks other than
/// -1, 0, 1: INVALID_REQUIRED_ACKS. An idempotent producer's batch is checked against the
/// partition's producer state ([`crate::services::producers`]): INVALID_PRODUCER_EPOCH,
/// OUT_OF_ORDER_SEQUENCE_NUMBER, or, for a duplicate of one of its last five batches, error NONE
/// with the original base offset (and, as Kafka, the original batch's MaxTimestamp as
/// LogAppendTime) and nothing stored. With a data directory the new end offset of every
/// partition appended to is written (one entry per partition, one write); if that write fails
/// the appends and their producer-state changes are undone and those partitions answer
/// KAFKA_STORAGE_ERROR. Acks=0 is answered with nothing. Appended records wake held Fetches.
pub fn produce(st: &mut State, ctx: &Ctx<'_>, r: &ProduceRequest) -> Reply {
    let acks_ok = matches!(r.acks, -1..=1);
    let mut appends = Appends::default();
    let mut responses = Vec::with_capacity(r.topic_data.len());
    for (ti, t) in r.topic_data.iter().enumerate() {
        let partition_responses = t
            .partition_data
            .iter()
            .enumerate()
            .map(|(pi, p)| append_one(st, ctx, &mut appends, (ti, pi), &t.name, p, acks_ok))
            .collect();
        responses.push(TopicProduceResponse {
            name: t.name.clone(),
            partition_responses,
            ..Default::default()
        });
    }
    if make_durable(st, ctx.version, appends, &mut responses) {
        st.fx.produced = true;
    }
    if r.acks == 0 {
        return Reply::Silent;
    }
    Reply::Respond(
        ProduceResponse {
            responses,
            throttle_time_ms: 0,
            ..Default::default()
        }
        .into(),
    )
}

/// One partition of [`produce`]: checks and appends its batch; its answer.
fn append_one(
    st: &mut State,
    ctx: &Ctx<'_>,
    appends: &mut Appends,
    at: (usize, usize),
    topic: &str,
    p: &PartitionProduceData,
    acks_ok: bool,
) -> PartitionProduceResponse {
    let v = ctx.version;
    let mut resp = PartitionProduceResponse {
        index: p.index,
        error_code: ErrorCode::None.code(),
        base_offset: -1,
        log_append_time_ms: -1,
        log_start_offset: -1,
        ..Default::default()
    };
    let mut message: Option<String> = None;
    let max_decompressed_bytes = st.cluster.max_decompressed_bytes;
    let log = st
        .topics
        .get_mut(topic)
        .and_then(|topic| topic.partition_mut(p.index));
    match (acks_ok, log, p.records.as_deref().unwrap_or(&[])) {
        (false, ..) => resp.error_code = ErrorCode::InvalidRequiredAcks.code(),
        (true, None, _) => resp.error_code = ErrorCode::UnknownTopicOrPartition.code(),
        (true, Some(_), []) => {
            resp.error_code = ErrorCode::InvalidRecord.code();
            message = Some("Produce request without a record batch".into());
        }
        (true, Some(log), records) => {
            let mark = log.mark();
            let appended = check_produce_version(records, v)
                .and_then(|()| log.append(records, max_decompressed_bytes, ctx.now));
            let key = (topic.to_string(), p.index);
            match appended {
                Ok(a) if a.duplicate => {
                    // A duplicate of a batch appended by this very request stands or falls
                    // with it (see `make_durable`).
                    if appends.touched.contains_key(&key) {
                        appends.answers.push(at);
                    }
                    resp.base_offset = a.base_offset;
                    resp.log_append_time_ms = a.log_append_time;
                    resp.log_start_offset = log.log_start_offset();
                    if let Some(b) = &a.producer {
                        let producer = BatchProducer {
                            producer_id: b.producer_id,
                            epoch: b.epoch,
                            first_seq: b.first_seq,
                            last_seq: b.last_seq(),
                        };
                        let line = duplicate_batch(ctx, topic, p.index, producer, a.base_offset);
                        st.fx.event(line);
                    }
                }
                Ok(a) => {
                    resp.base_offset = a.base_offset;
                    resp.log_start_offset = log.log_start_offset();
                    let entry = appends.touched.entry(key).or_insert((mark, Vec::new()));
                    entry.1.extend(a.undo);
                    appends.answers.push(at);
                }
                Err(e) => {
                    st.fx.refused(
                        ctx,
                        ApiKey::Produce,
                        format_args!(
                            "a record batch for {topic}-{}: {}: {}",
                            p.index, e.code, e.message
                        ),
                    );
                    resp.error_code = e.code.code();
                    message = Some(e.message);
                }
            }
        }
    }
    if v >= 8 {
        resp.error_message = message.map(Into::into);
    }
    resp
}

/// With a data directory, writes the new end offset of every partition appended to; if that
/// fails, undoes the appends and answers them KAFKA_STORAGE_ERROR. Whether records stay
/// appended.
fn make_durable(
    st: &mut State,
    v: i16,
    appends: Appends,
    responses: &mut [TopicProduceResponse],
) -> bool {
    if appends.touched.is_empty() {
        return false;
    }
    if !st.store.is_durable() {
        return true;
    }
    for (topic, partition) in appends.touched.keys() {
        let end = st
            .topics
            .get(topic)
            .and_then(|t| t.partition(*partition))
            .map_or(0, |l| l.high_watermark());
        st.queue_partition_end(topic, *partition, end);
    }
    let Err(e) = st.commit() else {
        return true;
    };
    for ((topic, partition), (mark, undo)) in appends.touched {
        if let Some(log) = st
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
    for (ti, pi) in appends.answers {
        let resp = &mut responses[ti].partition_responses[pi];
        resp.error_code = ErrorCode::KafkaStorageError.code();
        resp.base_offset = -1;
        resp.log_start_offset = -1;
        if v >= 8 {
            resp.error_message = Some(format!("cannot write the durable log: {e}").into());
        }
    }
    false
}

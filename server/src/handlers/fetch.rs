//! Fetch and ListOffsets: reading the partition logs.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use bytes::Bytes;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::fetch_request::{FetchPartition, FetchRequest};
use kwire_protocol::generated::fetch_response::{
    FetchResponse, FetchableTopicResponse, PartitionData,
};
use kwire_protocol::generated::list_offsets_request::{ListOffsetsPartition, ListOffsetsRequest};
use kwire_protocol::generated::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsResponse, ListOffsetsTopicResponse,
};
use kwire_protocol::wire::Uuid;

use crate::context::Ctx;
use crate::reply::{FetchWait, Reply};
use crate::services::state::State;
use crate::services::topics::table::{Topic, TopicTable};

/// Fetch v4-16: a sessionless fetch (SessionId 0), answered at once when it has records (at
/// least MinBytes) or errors, or when it asks for no partition at all, else held up to
/// MaxWaitMs (capped at `--max-fetch-wait-ms`) until a produce brings records.
///
/// A Fetch that asks for nothing is answered at once, as Kafka's
/// `ReplicaManager.fetchMessages` answers when its partitions to fetch are empty: a consumer's
/// last Fetch after `unsubscribe()` names none, and its `close()` would otherwise wait
/// `fetch.max.wait.ms`. Kafka's set is the fetch session's partitions (for an incremental
/// request: the session's, less the forgotten ones); kwire-server has no fetch sessions
/// (SessionId other than 0: FETCH_SESSION_ID_NOT_FOUND at once, and every answer's SessionId is
/// 0, so clients send full requests, whose ForgottenTopicsData Kafka ignores), so the set is the
/// request's own partitions.
pub fn fetch(st: &mut State, ctx: &Ctx<'_>, r: FetchRequest) -> Reply {
    let wait = u64::try_from(r.max_wait_ms)
        .unwrap_or(0)
        .min(st.cluster.max_fetch_wait_ms);
    let asks_nothing = r.topics.iter().all(|t| t.partitions.is_empty());
    let force = wait == 0 || asks_nothing;
    match response(&st.topics, &r, ctx.version, force) {
        Some(resp) => Reply::Respond(resp.into()),
        None => Reply::Park(FetchWait {
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
pub fn response(
    topics: &TopicTable,
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
    let mut read = Read {
        remaining: usize::try_from(r.max_bytes).unwrap_or(0),
        total: 0,
        errors: false,
    };
    let mut responses = Vec::with_capacity(r.topics.len());
    for t in &r.topics {
        let topic: Option<&Topic> = if by_id {
            topics.by_id(&t.topic_id)
        } else {
            topics.get(&t.topic)
        };
        let partitions = t
            .partitions
            .iter()
            .map(|p| read.partition(topic, p, by_id, r.isolation_level, version))
            .collect();
        responses.push(FetchableTopicResponse {
            topic: if by_id { "".into() } else { t.topic.clone() },
            topic_id: if by_id { t.topic_id } else { Uuid::ZERO },
            partitions,
            ..Default::default()
        });
    }
    let min_bytes = usize::try_from(r.min_bytes).unwrap_or(0);
    if !force && !read.errors && min_bytes > 0 && read.total < min_bytes {
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

/// What a Fetch response has read so far.
struct Read {
    /// Bytes the response may still hold (its MaxBytes, less what it holds).
    remaining: usize,
    /// Bytes of records it holds.
    total: usize,
    /// Whether a partition answers an error (the response is then sent at once).
    errors: bool,
}

impl Read {
    /// One partition's answer (see [`response`]).
    fn partition(
        &mut self,
        topic: Option<&Topic>,
        p: &FetchPartition,
        by_id: bool,
        isolation: i8,
        version: i16,
    ) -> PartitionData {
        let Some(topic) = topic else {
            self.errors = true;
            let code = if by_id {
                ErrorCode::UnknownTopicId
            } else {
                ErrorCode::UnknownTopicOrPartition
            };
            return partition_data(p.partition, code.code(), isolation, version);
        };
        let Some(log) = topic.partition(p.partition) else {
            self.errors = true;
            let code = ErrorCode::UnknownTopicOrPartition.code();
            return partition_data(p.partition, code, isolation, version);
        };
        let hw = log.high_watermark();
        let mut pd = partition_data(p.partition, ErrorCode::None.code(), isolation, version);
        pd.high_watermark = hw;
        pd.last_stable_offset = hw;
        let start = log.log_start_offset();
        pd.log_start_offset = start;
        if p.fetch_offset < start || p.fetch_offset > hw {
            // As Kafka's `ReplicaManager.readFromLog` answers an OffsetOutOfRangeException: no
            // high watermark, last stable offset or log start offset (-1).
            self.errors = true;
            pd.error_code = ErrorCode::OffsetOutOfRange.code();
            pd.high_watermark = -1;
            pd.last_stable_offset = -1;
            pd.log_start_offset = -1;
        } else {
            let limit = usize::try_from(p.partition_max_bytes)
                .unwrap_or(0)
                .min(self.remaining);
            let first = self.total == 0;
            let data = log.read(p.fetch_offset, limit, first);
            self.total += data.len();
            self.remaining = self.remaining.saturating_sub(data.len());
            pd.records = Some(data);
        }
        pd
    }
}

/// ListOffsets v0-9: -2 (earliest) and -4 (earliest local) are the log start offset (0, or
/// where the partition ended before a restart with `--data`), -1 (latest) the high
/// watermark, -3 the record with the largest timestamp, -5 (latest tiered) -1 (no tiered
/// storage), and a timestamp the first record at or after it (offset and timestamp -1 when
/// there is none, as Kafka). v0 answers with the old-style offset list. A partition named more
/// than once in the request is answered once, INVALID_REQUEST (Kafka's
/// `ListOffsetsRequest.duplicatePartitions`). DeleteRecords moves the log start offset up.
pub fn list_offsets(st: &mut State, ctx: &Ctx<'_>, r: &ListOffsetsRequest) -> ListOffsetsResponse {
    let mut count: BTreeMap<(&str, i32), usize> = BTreeMap::new();
    for t in &r.topics {
        for p in &t.partitions {
            *count.entry((&*t.name, p.partition_index)).or_default() += 1;
        }
    }
    let mut answered: BTreeSet<(&str, i32)> = BTreeSet::new();
    let topics = r
        .topics
        .iter()
        .map(|t| ListOffsetsTopicResponse {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .filter(|p| answered.insert((&*t.name, p.partition_index)))
                .map(|p| {
                    let twice = count[&(&*t.name, p.partition_index)] > 1;
                    list_offset(&st.topics, &t.name, p, twice, ctx.version)
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

/// One partition of [`list_offsets`] (`twice`: named more than once).
fn list_offset(
    topics: &TopicTable,
    topic: &str,
    p: &ListOffsetsPartition,
    twice: bool,
    v: i16,
) -> ListOffsetsPartitionResponse {
    let mut resp = ListOffsetsPartitionResponse {
        partition_index: p.partition_index,
        error_code: ErrorCode::None.code(),
        timestamp: -1,
        offset: -1,
        leader_epoch: -1,
        ..Default::default()
    };
    if twice {
        resp.error_code = ErrorCode::InvalidRequest.code();
        return resp;
    }
    let Some(log) = topics
        .get(topic)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServerConfig;
    use kwire_protocol::generated::fetch_request::{FetchTopic, ForgottenTopic};

    fn ctx() -> Ctx<'static> {
        Ctx {
            version: 16,
            client_id: "c",
            client_host: "/127.0.0.1",
            peer: "127.0.0.1:1".parse().expect("addr"),
            now: 0,
        }
    }

    #[test]
    fn a_fetch_that_asks_for_nothing_is_answered_at_once() {
        let mut config = ServerConfig::new("127.0.0.1:0".parse().expect("addr"));
        config.topics.push(("t1".into(), 1));
        let mut st = State::open(&config).expect("open");
        let id = st.topics.get("t1").expect("t1").id;
        let nothing = [
            // No topics (a consumer's last Fetch after unsubscribe()).
            FetchRequest {
                max_wait_ms: 60_000,
                min_bytes: 1,
                ..Default::default()
            },
            // A topic without partitions, and only forgotten ones.
            FetchRequest {
                max_wait_ms: 60_000,
                min_bytes: 1,
                topics: vec![FetchTopic {
                    topic_id: id,
                    ..Default::default()
                }],
                forgotten_topics_data: vec![ForgottenTopic {
                    topic_id: id,
                    partitions: vec![0].into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
        ];
        for r in nothing {
            let reply = fetch(&mut st, &ctx(), r);
            assert!(matches!(reply, Reply::Respond(_)), "{reply:?}");
        }
        // One partition with nothing to read yet: held.
        let held = FetchRequest {
            max_wait_ms: 60_000,
            min_bytes: 1,
            max_bytes: 1 << 20,
            topics: vec![FetchTopic {
                topic_id: id,
                partitions: vec![FetchPartition {
                    partition: 0,
                    partition_max_bytes: 1 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(matches!(fetch(&mut st, &ctx(), held), Reply::Park(_)));
    }
}

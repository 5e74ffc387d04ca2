//! DeleteRecords, DescribeCluster and DescribeTopicPartitions: the admin requests Kafka Streams
//! and the Admin clients send besides DescribeConfigs ([`super::configs`]). Each answer is the
//! one Kafka 4.4.0 gives on a single-node cluster, checked against the real broker by
//! `tests/tests/it/kafka_admin_oracle.rs`.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::delete_records_request::DeleteRecordsRequest;
use kwire_protocol::generated::delete_records_response::{
    DeleteRecordsPartitionResult, DeleteRecordsResponse, DeleteRecordsTopicResult,
};
use kwire_protocol::generated::describe_cluster_request::DescribeClusterRequest;
use kwire_protocol::generated::describe_cluster_response::{
    DescribeClusterBroker, DescribeClusterResponse,
};
use kwire_protocol::generated::describe_topic_partitions_request::DescribeTopicPartitionsRequest;
use kwire_protocol::generated::describe_topic_partitions_response::{
    Cursor, DescribeTopicPartitionsResponse, DescribeTopicPartitionsResponsePartition,
    DescribeTopicPartitionsResponseTopic,
};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::{PrimArray, Uuid};

use super::configs::deletes_records;
use super::Ctx;
use crate::broker::{Broker, NODE_ID};
use crate::topics::valid_topic_name;

/// The operations a resource's `AuthorizedOperations` bitfield holds when there is no
/// authorizer, as Kafka 4.4 answers (`AclOperation` codes, bit `1 << code`, of the operations
/// the resource type supports): for the cluster CREATE (5), ALTER (7), DESCRIBE (8),
/// CLUSTER_ACTION (9), DESCRIBE_CONFIGS (10), ALTER_CONFIGS (11), IDEMPOTENT_WRITE (12) — 8096;
/// for a topic READ (3), WRITE (4), CREATE (5), DELETE (6), ALTER (7), DESCRIBE (8),
/// DESCRIBE_CONFIGS (10), ALTER_CONFIGS (11) — 3576.
pub const CLUSTER_AUTHORIZED_OPERATIONS: i32 =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);

/// See [`CLUSTER_AUTHORIZED_OPERATIONS`].
pub const TOPIC_AUTHORIZED_OPERATIONS: i32 =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

/// Kafka's broker limit on the partitions of one DescribeTopicPartitions answer
/// (`max.request.partition.size.limit`, default 2000).
pub const MAX_REQUEST_PARTITION_SIZE_LIMIT: i32 = 2000;

/// DeleteRecords v0-2 (KIP-107), as Kafka's `ReplicaManager.deleteRecords` and
/// `Partition.deleteRecordsOnLeader` answer on a single replica: each partition's log start
/// offset moves up to the requested offset ([`crate::topics::PartitionLog::delete_records_before`];
/// -1 means the high watermark) and the answer's LowWatermark is the log start offset afterwards
/// (unchanged for an offset at or below it). Errors per partition, LowWatermark -1:
/// UNKNOWN_TOPIC_OR_PARTITION (unknown topic or partition index), OFFSET_OUT_OF_RANGE (an offset
/// above the high watermark, or negative other than -1), POLICY_VIOLATION (a topic whose
/// `cleanup.policy` does not include `delete`, e.g. a compacted changelog). The request's
/// TimeoutMs is not needed: a single replica answers at once. Nothing is written to the durable
/// log: after a restart with `--data` every log starts at its old end offset anyway.
pub fn delete_records(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &DeleteRecordsRequest,
) -> DeleteRecordsResponse {
    let topics = r
        .topics
        .iter()
        .map(|t| DeleteRecordsTopicResult {
            name: t.name.clone(),
            partitions: t
                .partitions
                .iter()
                .map(|p| {
                    let (low_watermark, code) = delete_one(b, &t.name, p.partition_index, p.offset);
                    if code != ErrorCode::None {
                        ctx.refused(
                            ApiKey::DeleteRecords,
                            format_args!(
                                "{}-{} before offset {}: {code}",
                                &*t.name, p.partition_index, p.offset
                            ),
                        );
                    }
                    DeleteRecordsPartitionResult {
                        partition_index: p.partition_index,
                        low_watermark,
                        error_code: code.code(),
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    DeleteRecordsResponse {
        throttle_time_ms: 0,
        topics,
        ..Default::default()
    }
}

/// One partition of [`delete_records`]: (low watermark, error).
fn delete_one(b: &mut Broker, topic: &str, partition: i32, offset: i64) -> (i64, ErrorCode) {
    let Some(t) = b.topics.get_mut(topic) else {
        return (-1, ErrorCode::UnknownTopicOrPartition);
    };
    let deletes = deletes_records(&t.configs);
    let Some(log) = t.partition_mut(partition) else {
        return (-1, ErrorCode::UnknownTopicOrPartition);
    };
    if !deletes {
        return (-1, ErrorCode::PolicyViolation);
    }
    let hw = log.high_watermark();
    let target = if offset == -1 { hw } else { offset };
    if target < 0 || target > hw {
        return (-1, ErrorCode::OffsetOutOfRange);
    }
    (log.delete_records_before(target), ErrorCode::None)
}

/// DescribeCluster v0-2 (KIP-700, KIP-919, KIP-1073): this one broker, node 1, unfenced, no
/// rack, as the controller id too (a broker answers "a random alive broker"); the cluster
/// authorized operations when asked for ([`CLUSTER_AUTHORIZED_OPERATIONS`], no authorizer), else
/// `i32::MIN`. EndpointType 2 (controllers) is MISMATCHED_ENDPOINT_TYPE (a broker listener
/// describes brokers; the controller listener describes controllers), any other type but 1
/// UNSUPPORTED_ENDPOINT_TYPE; both with EndpointType 1, an empty cluster id, controller -1 and
/// no brokers, as Kafka 4.4's broker answers.
pub fn describe_cluster(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &DescribeClusterRequest,
) -> DescribeClusterResponse {
    let endpoint_type = if ctx.version >= 1 { r.endpoint_type } else { 1 };
    if endpoint_type != 1 {
        let (code, message) = if endpoint_type == 2 {
            (
                ErrorCode::MismatchedEndpointType,
                "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER".to_string(),
            )
        } else {
            (
                ErrorCode::UnsupportedEndpointType,
                format!("Unsupported endpoint type {endpoint_type}"),
            )
        };
        ctx.refused(ApiKey::DescribeCluster, format_args!("{code}: {message}"));
        return DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(message.into()),
            endpoint_type: 1,
            cluster_id: "".into(),
            controller_id: -1,
            cluster_authorized_operations: i32::MIN,
            ..Default::default()
        };
    }
    DescribeClusterResponse {
        throttle_time_ms: 0,
        error_code: ErrorCode::None.code(),
        error_message: None,
        endpoint_type: 1,
        cluster_id: b.cluster_id.clone().into(),
        controller_id: NODE_ID,
        brokers: vec![DescribeClusterBroker {
            broker_id: NODE_ID,
            host: b.host.clone().into(),
            port: b.port,
            rack: None,
            is_fenced: false,
            ..Default::default()
        }],
        cluster_authorized_operations: if r.include_cluster_authorized_operations {
            CLUSTER_AUTHORIZED_OPERATIONS
        } else {
            i32::MIN
        },
        ..Default::default()
    }
}

/// DescribeTopicPartitions v0 (KIP-966), as Kafka 4.4's `DescribeTopicPartitionsRequestHandler`
/// and `KRaftMetadataCache.describeTopicResponse` answer: the topics named (every topic when
/// `Topics` is empty), in name order, from the cursor's topic and partition on, at most
/// min(ResponsePartitionLimit, [`MAX_REQUEST_PARTITION_SIZE_LIMIT`]) partitions; when partitions
/// remain, NextCursor names the first one not given (a limit below 1 counts as 1, as Kafka
/// answers; a cursor past a topic's last partition gives that topic with no partitions). Each
/// partition: leader node 1, leader epoch
/// 0, replicas and ISR `[1]`, empty ELR lists (ELR off), no offline replicas. An unknown or
/// invalid topic name: UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a name Kafka
/// cannot hold) with no partitions, a zero topic id and the topic operations; a cursor naming a topic the list does not hold:
/// INVALID_REQUEST for every topic.
pub fn describe_topic_partitions(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &DescribeTopicPartitionsRequest,
) -> DescribeTopicPartitionsResponse {
    let mut names: Vec<String> = if r.topics.is_empty() {
        b.topics.iter().map(|t| t.name.clone()).collect()
    } else {
        r.topics.iter().map(|t| t.name.to_string()).collect()
    };
    names.sort();
    names.dedup();
    let (cursor_topic, mut cursor_partition) = match &r.cursor {
        Some(c) => (Some(c.topic_name.to_string()), c.partition_index.max(0)),
        None => (None, 0),
    };
    if let Some(ct) = &cursor_topic {
        if !r.topics.is_empty() && !names.contains(ct) {
            let message = format!(
                "DescribeTopicPartitionsRequest topic list should contain the cursor topic: {ct}"
            );
            ctx.refused(
                ApiKey::DescribeTopicPartitions,
                format_args!("{}: {message}", ErrorCode::InvalidRequest),
            );
            return DescribeTopicPartitionsResponse {
                topics: names
                    .into_iter()
                    .map(|n| DescribeTopicPartitionsResponseTopic {
                        error_code: ErrorCode::InvalidRequest.code(),
                        name: Some(n.into()),
                        topic_id: Uuid::ZERO,
                        topic_authorized_operations: i32::MIN,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            };
        }
        names.retain(|n| n >= ct);
    }
    let mut budget = r
        .response_partition_limit
        .clamp(1, MAX_REQUEST_PARTITION_SIZE_LIMIT);
    let mut topics = Vec::new();
    let mut next_cursor = None;
    for (i, name) in names.iter().enumerate() {
        let first = i == 0 && cursor_topic.as_deref() == Some(name.as_str());
        let start = if first { cursor_partition } else { 0 };
        cursor_partition = 0;
        let Some(t) = b.topics.get(name) else {
            let code = if valid_topic_name(name).is_ok() {
                ErrorCode::UnknownTopicOrPartition
            } else {
                ErrorCode::InvalidTopicException
            };
            topics.push(DescribeTopicPartitionsResponseTopic {
                error_code: code.code(),
                name: Some(name.clone().into()),
                topic_id: Uuid::ZERO,
                is_internal: false,
                topic_authorized_operations: TOPIC_AUTHORIZED_OPERATIONS,
                ..Default::default()
            });
            continue;
        };
        if budget == 0 {
            next_cursor = Some(Cursor {
                topic_name: name.clone().into(),
                partition_index: start,
                ..Default::default()
            });
            break;
        }
        let count = t.partitions.len() as i32;
        let end = count.min(start.saturating_add(budget));
        let partitions: Vec<_> = (start..end)
            .map(|p| DescribeTopicPartitionsResponsePartition {
                error_code: ErrorCode::None.code(),
                partition_index: p,
                leader_id: NODE_ID,
                leader_epoch: 0,
                replica_nodes: PrimArray::from(vec![NODE_ID]),
                isr_nodes: PrimArray::from(vec![NODE_ID]),
                eligible_leader_replicas: Some(PrimArray::from(Vec::<i32>::new())),
                last_known_elr: Some(PrimArray::from(Vec::<i32>::new())),
                offline_replicas: PrimArray::from(Vec::<i32>::new()),
                ..Default::default()
            })
            .collect();
        budget -= (end - start).max(0);
        topics.push(DescribeTopicPartitionsResponseTopic {
            error_code: ErrorCode::None.code(),
            name: Some(name.clone().into()),
            topic_id: t.id,
            is_internal: false,
            partitions,
            topic_authorized_operations: TOPIC_AUTHORIZED_OPERATIONS,
            ..Default::default()
        });
        if end < count {
            next_cursor = Some(Cursor {
                topic_name: name.clone().into(),
                partition_index: end,
                ..Default::default()
            });
            break;
        }
    }
    DescribeTopicPartitionsResponse {
        throttle_time_ms: 0,
        topics,
        next_cursor,
        ..Default::default()
    }
}

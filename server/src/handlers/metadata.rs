//! The cluster's metadata: Metadata (topics by name or id, auto-creation), FindCoordinator,
//! DescribeCluster and DescribeTopicPartitions. Each answer is the one Kafka 4.4.0 gives on a
//! single-node cluster (the admin ones checked against the real broker by
//! `tests/tests/it/kafka_admin_oracle.rs`).

use std::collections::BTreeSet;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::describe_cluster_request::DescribeClusterRequest;
use kwire_protocol::generated::describe_cluster_response::{
    DescribeClusterBroker, DescribeClusterResponse,
};
use kwire_protocol::generated::describe_topic_partitions_request::DescribeTopicPartitionsRequest;
use kwire_protocol::generated::describe_topic_partitions_response::{
    Cursor, DescribeTopicPartitionsResponse, DescribeTopicPartitionsResponsePartition,
    DescribeTopicPartitionsResponseTopic,
};
use kwire_protocol::generated::find_coordinator_request::FindCoordinatorRequest;
use kwire_protocol::generated::find_coordinator_response::{Coordinator, FindCoordinatorResponse};
use kwire_protocol::generated::metadata_request::MetadataRequest;
use kwire_protocol::generated::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::{PrimArray, Uuid};

use crate::context::Ctx;
use crate::events::TopicOrigin;
use crate::names::{collision_key, valid_topic_name};
use crate::services::cluster::NODE_ID;
use crate::services::state::{NewTopic, State};
use crate::services::topics::table::{Topic, TopicTable};

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

fn topic_entry(t: &Topic, version: i16) -> MetadataResponseTopic {
    MetadataResponseTopic {
        error_code: ErrorCode::None.code(),
        name: Some(t.name.clone().into()),
        topic_id: if version >= 10 { t.id } else { Uuid::ZERO },
        is_internal: false,
        partitions: (0..t.partitions.len() as i32)
            .map(|p| MetadataResponsePartition {
                error_code: ErrorCode::None.code(),
                partition_index: p,
                leader_id: NODE_ID,
                leader_epoch: if version >= 7 { 0 } else { -1 },
                replica_nodes: PrimArray::from(vec![NODE_ID]),
                isr_nodes: PrimArray::from(vec![NODE_ID]),
                offline_replicas: PrimArray::from(Vec::<i32>::new()),
                ..Default::default()
            })
            .collect(),
        topic_authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// Metadata v0-13: broker 1 is this server; topics by name or (v12+) by id; `Topics=null` (or
/// an empty list at v0) means every topic. An unknown id is UNKNOWN_TOPIC_ID with a null name;
/// an unknown name that is not a legal topic name is INVALID_TOPIC_EXCEPTION, any other unknown
/// name UNKNOWN_TOPIC_OR_PARTITION.
///
/// Auto-creation, as Kafka's `auto.create.topics.enable=true` (KRaft `AutoTopicCreationManager`):
/// when the server allows it ([`ServerConfig::auto_create_topics`]) and the request does
/// (AllowAutoTopicCreation, v4+; true for v0-3, which lack the field), the unknown legal names
/// of a request that lists topics by name are created with
/// [`ServerConfig::default_partitions`] partitions. As in Kafka, the response that creates a
/// topic still answers it UNKNOWN_TOPIC_OR_PARTITION (Kafka hands the creation to its
/// controller and answers at once); clients retry their Metadata request (after
/// `retry.backoff.ms` in Java, `topic.metadata.refresh.fast.interval.ms` in librdkafka) and
/// find the topic. A name
/// that collides with an existing topic ('.' versus '_') is not created (Kafka's controller
/// refuses it; the answer stays UNKNOWN_TOPIC_OR_PARTITION), nor are names when the durable log
/// cannot be written.
///
/// [`ServerConfig::auto_create_topics`]: crate::config::ServerConfig::auto_create_topics
/// [`ServerConfig::default_partitions`]: crate::config::ServerConfig::default_partitions
pub fn metadata(st: &mut State, ctx: &Ctx<'_>, r: &MetadataRequest) -> MetadataResponse {
    let v = ctx.version;
    let all = match &r.topics {
        None => true,
        Some(list) => v == 0 && list.is_empty(),
    };
    let mut topics = Vec::new();
    let mut create: Vec<NewTopic> = Vec::new();
    if all {
        topics.extend(st.topics.iter().map(|t| topic_entry(t, v)));
    } else if let Some(list) = &r.topics {
        let mut seen_names = BTreeSet::new();
        let mut seen_ids = BTreeSet::new();
        for rt in list {
            if rt.topic_id != Uuid::ZERO && rt.name.is_none() {
                if seen_ids.insert(rt.topic_id) {
                    topics.push(by_id(&st.topics, rt.topic_id, v));
                }
                continue;
            }
            let name = rt.name.as_deref().unwrap_or("");
            if !seen_names.insert(name.to_string()) {
                continue;
            }
            match st.topics.get(name) {
                Some(t) => topics.push(topic_entry(t, v)),
                None => {
                    let legal = valid_topic_name(name).is_ok();
                    if legal && r.allow_auto_topic_creation {
                        auto_create(st, ctx, name, &mut create);
                    }
                    topics.push(unknown_name(name, legal));
                }
            }
        }
    }
    if !create.is_empty() {
        let origin = TopicOrigin::AutoCreate {
            client_id: ctx.client_id,
            peer: ctx.peer,
        };
        let names: Vec<String> = create.iter().map(|(n, ..)| n.clone()).collect();
        if let Err(e) = st.create_topics(create, ctx.now, origin) {
            st.fx.refused(
                ctx,
                ApiKey::Metadata,
                format_args!(
                    "topics {} are not auto-created: cannot write the durable log: {e}",
                    names.join(", ")
                ),
            );
        }
    }
    MetadataResponse {
        throttle_time_ms: 0,
        brokers: vec![MetadataResponseBroker {
            node_id: NODE_ID,
            host: st.cluster.host.clone().into(),
            port: st.cluster.port,
            rack: None,
            ..Default::default()
        }],
        cluster_id: (v >= 2).then(|| st.cluster.cluster_id.clone().into()),
        controller_id: NODE_ID,
        topics,
        cluster_authorized_operations: i32::MIN,
        error_code: ErrorCode::None.code(),
        ..Default::default()
    }
}

/// The answer for a topic asked for by id (v12+): the topic, or UNKNOWN_TOPIC_ID with a null
/// name.
fn by_id(topics: &TopicTable, id: Uuid, v: i16) -> MetadataResponseTopic {
    match topics.by_id(&id) {
        Some(t) => topic_entry(t, v),
        None => MetadataResponseTopic {
            error_code: ErrorCode::UnknownTopicId.code(),
            name: if v >= 12 { None } else { Some("".into()) },
            topic_id: id,
            topic_authorized_operations: i32::MIN,
            ..Default::default()
        },
    }
}

/// The answer for an unknown name: UNKNOWN_TOPIC_OR_PARTITION, or INVALID_TOPIC_EXCEPTION for
/// a name that is not `legal`.
fn unknown_name(name: &str, legal: bool) -> MetadataResponseTopic {
    let code = if legal {
        ErrorCode::UnknownTopicOrPartition
    } else {
        ErrorCode::InvalidTopicException
    };
    MetadataResponseTopic {
        error_code: code.code(),
        name: Some(name.to_string().into()),
        topic_authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// Stages the auto-creation of the unknown legal `name`, when the server allows it and it
/// collides with no topic (existing or staged).
fn auto_create(st: &mut State, ctx: &Ctx<'_>, name: &str, create: &mut Vec<NewTopic>) {
    let Some(partitions) = st.cluster.auto_create_partitions else {
        return;
    };
    let key = collision_key(name);
    let other = st.topics.colliding(name).map(str::to_string).or_else(|| {
        create
            .iter()
            .find(|(n, ..)| collision_key(n) == key)
            .map(|(n, ..)| n.clone())
    });
    match other {
        Some(other) => st.fx.refused(
            ctx,
            ApiKey::Metadata,
            format_args!(
                "topic {name} is not auto-created: it collides with the existing topic {other} ('.' and '_' collide)"
            ),
        ),
        None => create.push((name.to_string(), partitions, Vec::new())),
    }
}

/// FindCoordinator v0-6: node 1 (this server) for every group and transaction key; v4+
/// batched. A key type other than 0 (group) or 1 (transaction) is INVALID_REQUEST.
pub fn find_coordinator(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &FindCoordinatorRequest,
) -> FindCoordinatorResponse {
    let ok_type = r.key_type == 0 || r.key_type == 1;
    let (code, message) = if ok_type {
        (ErrorCode::None.code(), None)
    } else {
        let message = format!("Unknown coordinator type {}", r.key_type);
        st.fx.refused(
            ctx,
            ApiKey::FindCoordinator,
            format_args!("{}: {message}", ErrorCode::InvalidRequest),
        );
        (ErrorCode::InvalidRequest.code(), Some(message.into()))
    };
    let node = if ok_type { NODE_ID } else { -1 };
    let (host, port) = if ok_type {
        (st.cluster.host.clone(), st.cluster.port)
    } else {
        (String::new(), -1)
    };
    if ctx.version >= 4 {
        return FindCoordinatorResponse {
            throttle_time_ms: 0,
            coordinators: r
                .coordinator_keys
                .iter()
                .map(|k| Coordinator {
                    key: k.clone(),
                    node_id: node,
                    host: host.clone().into(),
                    port,
                    error_code: code,
                    error_message: message.clone(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
    }
    FindCoordinatorResponse {
        throttle_time_ms: 0,
        error_code: code,
        error_message: if ctx.version >= 1 { message } else { None },
        node_id: node,
        host: host.into(),
        port,
        ..Default::default()
    }
}

/// DescribeCluster v0-2 (KIP-700, KIP-919, KIP-1073): this one broker, node 1, unfenced, no
/// rack, as the controller id too (a broker answers "a random alive broker"); the cluster
/// authorized operations when asked for ([`CLUSTER_AUTHORIZED_OPERATIONS`], no authorizer), else
/// `i32::MIN`. EndpointType 2 (controllers) is MISMATCHED_ENDPOINT_TYPE (a broker listener
/// describes brokers; the controller listener describes controllers), any other type but 1
/// UNSUPPORTED_ENDPOINT_TYPE; both with EndpointType 1, an empty cluster id, controller -1 and
/// no brokers, as Kafka 4.4's broker answers.
pub fn describe_cluster(
    st: &mut State,
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
        st.fx.refused(
            ctx,
            ApiKey::DescribeCluster,
            format_args!("{code}: {message}"),
        );
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
        cluster_id: st.cluster.cluster_id.clone().into(),
        controller_id: NODE_ID,
        brokers: vec![DescribeClusterBroker {
            broker_id: NODE_ID,
            host: st.cluster.host.clone().into(),
            port: st.cluster.port,
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
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &DescribeTopicPartitionsRequest,
) -> DescribeTopicPartitionsResponse {
    let mut names: Vec<String> = if r.topics.is_empty() {
        st.topics.iter().map(|t| t.name.clone()).collect()
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
            st.fx.refused(
                ctx,
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
        let Some(t) = st.topics.get(name) else {
            topics.push(unknown_topic(name));
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
        let partitions: Vec<_> = (start..end).map(partition_entry).collect();
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

/// A DescribeTopicPartitions answer for a topic the broker does not have: UNKNOWN_TOPIC_OR_PARTITION
/// (INVALID_TOPIC_EXCEPTION for an illegal name), no partitions, a zero id.
fn unknown_topic(name: &str) -> DescribeTopicPartitionsResponseTopic {
    let code = if valid_topic_name(name).is_ok() {
        ErrorCode::UnknownTopicOrPartition
    } else {
        ErrorCode::InvalidTopicException
    };
    DescribeTopicPartitionsResponseTopic {
        error_code: code.code(),
        name: Some(name.to_string().into()),
        topic_id: Uuid::ZERO,
        is_internal: false,
        topic_authorized_operations: TOPIC_AUTHORIZED_OPERATIONS,
        ..Default::default()
    }
}

/// Partition `p` in a DescribeTopicPartitions answer: led by this broker at epoch 0, replicas
/// and ISR `[1]`, empty ELR lists.
fn partition_entry(p: i32) -> DescribeTopicPartitionsResponsePartition {
    DescribeTopicPartitionsResponsePartition {
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
    }
}

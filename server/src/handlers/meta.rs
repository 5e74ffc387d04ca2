//! Metadata, FindCoordinator and CreateTopics.

use std::collections::{BTreeMap, BTreeSet};

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::create_topics_request::CreateTopicsRequest;
use kwire_protocol::generated::create_topics_response::{
    CreatableTopicConfigs, CreatableTopicResult, CreateTopicsResponse,
};
use kwire_protocol::generated::find_coordinator_request::FindCoordinatorRequest;
use kwire_protocol::generated::find_coordinator_response::{Coordinator, FindCoordinatorResponse};
use kwire_protocol::generated::metadata_request::MetadataRequest;
use kwire_protocol::generated::metadata_response::{
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::{PrimArray, Uuid};

use super::Ctx;
use crate::broker::{Broker, NewTopic, NODE_ID};
use crate::events::TopicOrigin;
use crate::topics::{collision_key, valid_topic_name, Topic, MAX_PARTITIONS};

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
/// cannot be written. Returns the response and whether topics were created.
///
/// [`ServerConfig::auto_create_topics`]: crate::config::ServerConfig::auto_create_topics
/// [`ServerConfig::default_partitions`]: crate::config::ServerConfig::default_partitions
pub fn metadata(b: &mut Broker, ctx: &Ctx<'_>, r: &MetadataRequest) -> (MetadataResponse, bool) {
    let v = ctx.version;
    let mut topics = Vec::new();
    let mut create: Vec<NewTopic> = Vec::new();
    let all = match &r.topics {
        None => true,
        Some(list) => v == 0 && list.is_empty(),
    };
    if all {
        topics.extend(b.topics.iter().map(|t| topic_entry(t, v)));
    } else if let Some(list) = &r.topics {
        let mut seen_names = BTreeSet::new();
        let mut seen_ids = BTreeSet::new();
        for rt in list {
            if rt.topic_id != Uuid::ZERO && rt.name.is_none() {
                if !seen_ids.insert(rt.topic_id) {
                    continue;
                }
                match b.topics.by_id(&rt.topic_id) {
                    Some(t) => topics.push(topic_entry(t, v)),
                    None => topics.push(MetadataResponseTopic {
                        error_code: ErrorCode::UnknownTopicId.code(),
                        name: if v >= 12 { None } else { Some("".into()) },
                        topic_id: rt.topic_id,
                        topic_authorized_operations: i32::MIN,
                        ..Default::default()
                    }),
                }
                continue;
            }
            let name = rt.name.as_deref().unwrap_or("");
            if !seen_names.insert(name.to_string()) {
                continue;
            }
            match b.topics.get(name) {
                Some(t) => topics.push(topic_entry(t, v)),
                None => {
                    let legal = valid_topic_name(name).is_ok();
                    if let (true, Some(partitions), true) =
                        (legal, b.auto_create_partitions, r.allow_auto_topic_creation)
                    {
                        let key = collision_key(name);
                        let other = b.topics.colliding(name).map(str::to_string).or_else(|| {
                            create
                                .iter()
                                .find(|(n, ..)| collision_key(n) == key)
                                .map(|(n, ..)| n.clone())
                        });
                        match other {
                            Some(other) => ctx.refused(
                                ApiKey::Metadata,
                                format_args!(
                                    "topic {name} is not auto-created: it collides with the existing topic {other} ('.' and '_' collide)"
                                ),
                            ),
                            None => create.push((name.to_string(), partitions, Vec::new())),
                        }
                    }
                    topics.push(MetadataResponseTopic {
                        error_code: if legal {
                            ErrorCode::UnknownTopicOrPartition.code()
                        } else {
                            ErrorCode::InvalidTopicException.code()
                        },
                        name: Some(name.to_string().into()),
                        topic_authorized_operations: i32::MIN,
                        ..Default::default()
                    });
                }
            }
        }
    }
    let mut created = false;
    if !create.is_empty() {
        let origin = TopicOrigin::AutoCreate {
            client_id: ctx.client_id,
            peer: ctx.peer,
        };
        let names: Vec<String> = create.iter().map(|(n, ..)| n.clone()).collect();
        match b.create_topics(create, ctx.now, origin) {
            Ok(_) => created = true,
            Err(e) => ctx.refused(
                ApiKey::Metadata,
                format_args!(
                    "topics {} are not auto-created: cannot write the durable log: {e}",
                    names.join(", ")
                ),
            ),
        }
    }
    let resp = MetadataResponse {
        throttle_time_ms: 0,
        brokers: vec![MetadataResponseBroker {
            node_id: NODE_ID,
            host: b.host.clone().into(),
            port: b.port,
            rack: None,
            ..Default::default()
        }],
        cluster_id: if v >= 2 {
            Some(b.cluster_id.clone().into())
        } else {
            None
        },
        controller_id: NODE_ID,
        topics,
        cluster_authorized_operations: i32::MIN,
        error_code: ErrorCode::None.code(),
        ..Default::default()
    };
    (resp, created)
}

/// FindCoordinator v0-6: node 1 (this server) for every group and transaction key; v4+
/// batched. A key type other than 0 (group) or 1 (transaction) is INVALID_REQUEST.
pub fn find_coordinator(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &FindCoordinatorRequest,
) -> FindCoordinatorResponse {
    let ok_type = r.key_type == 0 || r.key_type == 1;
    let (code, message) = if ok_type {
        (ErrorCode::None.code(), None)
    } else {
        let message = format!("Unknown coordinator type {}", r.key_type);
        ctx.refused(
            ApiKey::FindCoordinator,
            format_args!("{}: {message}", ErrorCode::InvalidRequest),
        );
        (ErrorCode::InvalidRequest.code(), Some(message.into()))
    };
    let node = if ok_type { NODE_ID } else { -1 };
    let (host, port) = if ok_type {
        (b.host.clone(), b.port)
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

/// CreateTopics v0-7: creates each topic (NumPartitions -1 → `--default-partitions`, Kafka's
/// `num.partitions`, 1 by default; or as many as its manual
/// assignment lists), TOPIC_ALREADY_EXISTS when present, Kafka's checks of names, counts and
/// replication (one broker: factor -1 or 1), then tells the coordinator the metadata changed.
/// A name that differs from an existing (or earlier created) topic's only in '.' versus '_' is
/// INVALID_TOPIC_EXCEPTION, as in Kafka; more than [`MAX_PARTITIONS`] partitions is
/// INVALID_PARTITIONS; a config Kafka 4.4 does not know
/// ([`super::configs::TOPIC_CONFIGS`]) is INVALID_CONFIG, as Kafka's `LogConfig.validateNames`.
/// The configs are kept with the topic (and in the durable log) for DescribeConfigs. The new topics are written to the durable log before they exist; if that
/// fails they answer KAFKA_STORAGE_ERROR and are not created. `validateOnly` checks without
/// creating.
pub fn create_topics(
    b: &mut Broker,
    ctx: &Ctx<'_>,
    r: &CreateTopicsRequest,
) -> CreateTopicsResponse {
    let v = ctx.version;
    let mut names: BTreeSet<&str> = BTreeSet::new();
    let mut dup: BTreeSet<&str> = BTreeSet::new();
    for t in &r.topics {
        if !names.insert(&t.name) {
            dup.insert(&t.name);
        }
    }
    let mut results = Vec::new();
    // Topics to create, and the index of each one's result.
    let mut create: Vec<NewTopic> = Vec::new();
    let mut create_at: Vec<usize> = Vec::new();
    // Collision keys of the topics this request creates (or would create).
    let mut staged: BTreeMap<String, String> = BTreeMap::new();
    for t in &r.topics {
        let fail = |code: ErrorCode, msg: String| {
            ctx.refused(
                ApiKey::CreateTopics,
                format_args!("topic {}: {code}: {msg}", &*t.name),
            );
            CreatableTopicResult {
                name: t.name.clone(),
                error_code: code.code(),
                error_message: if v >= 1 { Some(msg.into()) } else { None },
                ..Default::default()
            }
        };
        if dup.contains(&*t.name) {
            results.push(fail(
                ErrorCode::InvalidRequest,
                format!(
                    "Create topics request from client contains multiple entries for the topic {}",
                    &*t.name
                ),
            ));
            continue;
        }
        if let Err(e) = valid_topic_name(&t.name) {
            results.push(fail(ErrorCode::InvalidTopicException, e));
            continue;
        }
        if b.topics.get(&t.name).is_some() {
            results.push(fail(
                ErrorCode::TopicAlreadyExists,
                format!("Topic '{}' already exists.", &*t.name),
            ));
            continue;
        }
        let key = collision_key(&t.name);
        if let Some(other) = b
            .topics
            .colliding(&t.name)
            .or_else(|| staged.get(&key).map(String::as_str))
        {
            results.push(fail(
                ErrorCode::InvalidTopicException,
                format!("Topic '{}' collides with existing topic: {other}", &*t.name),
            ));
            continue;
        }
        let partitions = if !t.assignments.is_empty() {
            if t.num_partitions != -1 || t.replication_factor != -1 {
                results.push(fail(
                    ErrorCode::InvalidRequest,
                    "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.".into(),
                ));
                continue;
            }
            let mut idx: Vec<i32> = t.assignments.iter().map(|a| a.partition_index).collect();
            idx.sort_unstable();
            let contiguous = idx.iter().enumerate().all(|(i, p)| *p == i as i32);
            let only_us = t
                .assignments
                .iter()
                .all(|a| a.broker_ids.iter().all(|id| id == NODE_ID) && !a.broker_ids.is_empty());
            if !contiguous || !only_us {
                results.push(fail(
                    ErrorCode::InvalidReplicaAssignment,
                    "Replica assignments must name partitions 0..N-1 on broker 1 only.".into(),
                ));
                continue;
            }
            idx.len() as i32
        } else {
            let p = if t.num_partitions == -1 {
                b.default_partitions
            } else {
                t.num_partitions
            };
            if p < 1 {
                results.push(fail(
                    ErrorCode::InvalidPartitions,
                    format!(
                        "Number of partitions was set to an invalid non-positive value {}.",
                        t.num_partitions
                    ),
                ));
                continue;
            }
            if p > MAX_PARTITIONS {
                results.push(fail(
                    ErrorCode::InvalidPartitions,
                    format!(
                        "Number of partitions {p} is above kwire-server's limit of {MAX_PARTITIONS}."
                    ),
                ));
                continue;
            }
            if t.replication_factor == 0 || t.replication_factor < -1 {
                results.push(fail(
                    ErrorCode::InvalidReplicationFactor,
                    "Replication factor must be larger than 0, or -1 to use the default value."
                        .into(),
                ));
                continue;
            }
            if t.replication_factor > 1 {
                results.push(fail(
                    ErrorCode::InvalidReplicationFactor,
                    format!("Unable to replicate the partition {} time(s): The target replication factor of {} cannot be reached because only 1 broker(s) are registered.", t.replication_factor, t.replication_factor),
                ));
                continue;
            }
            p
        };
        if let Some(c) = t
            .configs
            .iter()
            .find(|c| !super::configs::is_topic_config(&c.name))
        {
            results.push(fail(
                ErrorCode::InvalidConfig,
                format!("Unknown topic config name: {}", &*c.name),
            ));
            continue;
        }
        if let Some(c) = t.configs.iter().find(|c| c.value.is_none()) {
            results.push(fail(
                ErrorCode::InvalidConfig,
                format!("Null value not supported for topic configs: {}", &*c.name),
            ));
            continue;
        }
        let configs: Vec<(String, String)> = t
            .configs
            .iter()
            .map(|c| {
                (
                    c.name.to_string(),
                    c.value.as_deref().unwrap_or("").to_string(),
                )
            })
            .collect();
        staged.insert(key, t.name.to_string());
        if !r.validate_only {
            create.push((t.name.to_string(), partitions, configs.clone()));
            create_at.push(results.len());
        }
        results.push(CreatableTopicResult {
            name: t.name.clone(),
            topic_id: Uuid::ZERO,
            error_code: ErrorCode::None.code(),
            error_message: None,
            num_partitions: if v >= 5 { partitions } else { -1 },
            replication_factor: if v >= 5 { 1 } else { -1 },
            configs: if v >= 5 {
                Some(
                    configs
                        .into_iter()
                        .map(|(k, val)| CreatableTopicConfigs {
                            name: k.into(),
                            value: Some(val.into()),
                            read_only: false,
                            config_source: 1,
                            is_sensitive: false,
                            ..Default::default()
                        })
                        .collect(),
                )
            } else {
                None
            },
            ..Default::default()
        });
    }
    if !create.is_empty() {
        let origin = TopicOrigin::CreateTopics {
            client_id: ctx.client_id,
            peer: ctx.peer,
        };
        match b.create_topics(create, ctx.now, origin) {
            Ok(ids) => {
                if v >= 7 {
                    for (i, id) in create_at.into_iter().zip(ids) {
                        results[i].topic_id = id;
                    }
                }
            }
            Err(e) => {
                for i in create_at {
                    let res = &mut results[i];
                    *res = CreatableTopicResult {
                        name: res.name.clone(),
                        error_code: ErrorCode::KafkaStorageError.code(),
                        error_message: if v >= 1 {
                            Some(format!("cannot write the durable log: {e}").into())
                        } else {
                            None
                        },
                        ..Default::default()
                    };
                }
            }
        }
    }
    CreateTopicsResponse {
        throttle_time_ms: 0,
        topics: results,
        ..Default::default()
    }
}

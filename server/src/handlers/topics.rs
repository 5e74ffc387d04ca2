//! Topic administration: CreateTopics and DeleteRecords.

use std::collections::{BTreeMap, BTreeSet};

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kwire_protocol::generated::create_topics_response::{
    CreatableTopicConfigs, CreatableTopicResult, CreateTopicsResponse,
};
use kwire_protocol::generated::delete_records_request::DeleteRecordsRequest;
use kwire_protocol::generated::delete_records_response::{
    DeleteRecordsPartitionResult, DeleteRecordsResponse, DeleteRecordsTopicResult,
};
use kwire_protocol::generated::ApiKey;
use kwire_protocol::wire::Uuid;

use crate::context::Ctx;
use crate::events::TopicOrigin;
use crate::names::{collision_key, valid_topic_name, MAX_PARTITIONS};
use crate::services::cluster::NODE_ID;
use crate::services::configs::describe::{created_topic_configs, deletes_records, is_topic_config};
use crate::services::state::{NewTopic, State};

/// CreateTopics v0-7: creates each topic (NumPartitions -1 → `--default-partitions`, Kafka's
/// `num.partitions`, 1 by default; or as many as its manual assignment lists),
/// TOPIC_ALREADY_EXISTS when present, Kafka's checks of names, counts and replication (one
/// broker: factor -1 or 1), then tells the coordinator the metadata changed. A name that
/// differs from an existing (or earlier created) topic's only in '.' versus '_' is
/// INVALID_TOPIC_EXCEPTION, as in Kafka; more than [`MAX_PARTITIONS`] partitions is
/// INVALID_PARTITIONS; a config Kafka 4.4 does not know
/// ([`TOPIC_CONFIGS`](crate::services::configs::tables::TOPIC_CONFIGS)) is INVALID_CONFIG, as
/// Kafka's `LogConfig.validateNames`. The configs are kept with the topic (and in the durable
/// log) for DescribeConfigs; from v5 the answer lists every topic config with its value and
/// source, as Kafka 4.4. The new topics are written to the durable log before they exist; if
/// that fails they answer KAFKA_STORAGE_ERROR and are not created. `validateOnly` checks
/// without creating.
pub fn create_topics(
    st: &mut State,
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
        let checked = if dup.contains(&*t.name) {
            Err((
                ErrorCode::InvalidRequest,
                format!(
                    "Create topics request from client contains multiple entries for the topic {}",
                    &*t.name
                ),
            ))
        } else {
            check_topic(st, t, &staged)
        };
        let (partitions, configs) = match checked {
            Ok(ok) => ok,
            Err((code, msg)) => {
                st.fx.refused(
                    ctx,
                    ApiKey::CreateTopics,
                    format_args!("topic {}: {code}: {msg}", &*t.name),
                );
                results.push(CreatableTopicResult {
                    name: t.name.clone(),
                    error_code: code.code(),
                    error_message: (v >= 1).then(|| msg.into()),
                    ..Default::default()
                });
                continue;
            }
        };
        staged.insert(collision_key(&t.name), t.name.to_string());
        results.push(created(t, partitions, &configs, v));
        if !r.validate_only {
            create.push((t.name.to_string(), partitions, configs));
            create_at.push(results.len() - 1);
        }
    }
    if !create.is_empty() {
        let origin = TopicOrigin::CreateTopics {
            client_id: ctx.client_id,
            peer: ctx.peer,
        };
        match st.create_topics(create, ctx.now, origin) {
            Ok(ids) if v >= 7 => {
                for (i, id) in create_at.into_iter().zip(ids) {
                    results[i].topic_id = id;
                }
            }
            Ok(_) => {}
            Err(e) => {
                for i in create_at {
                    let res = &mut results[i];
                    *res = CreatableTopicResult {
                        name: res.name.clone(),
                        error_code: ErrorCode::KafkaStorageError.code(),
                        error_message: (v >= 1)
                            .then(|| format!("cannot write the durable log: {e}").into()),
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

/// A topic's configs: (name, value).
type Configs = Vec<(String, String)>;

/// A topic's checks (see [`create_topics`]): its partition count and configs, or the error code
/// and message. `staged`: the collision keys of the topics this request creates before it.
fn check_topic(
    st: &State,
    t: &CreatableTopic,
    staged: &BTreeMap<String, String>,
) -> Result<(i32, Configs), (ErrorCode, String)> {
    valid_topic_name(&t.name).map_err(|e| (ErrorCode::InvalidTopicException, e))?;
    if st.topics.get(&t.name).is_some() {
        return Err((
            ErrorCode::TopicAlreadyExists,
            format!("Topic '{}' already exists.", &*t.name),
        ));
    }
    let key = collision_key(&t.name);
    if let Some(other) = st
        .topics
        .colliding(&t.name)
        .or_else(|| staged.get(&key).map(String::as_str))
    {
        return Err((
            ErrorCode::InvalidTopicException,
            format!("Topic '{}' collides with existing topic: {other}", &*t.name),
        ));
    }
    let partitions = if t.assignments.is_empty() {
        check_counts(t, st.cluster.default_partitions)?
    } else {
        check_assignments(t)?
    };
    if let Some(c) = t.configs.iter().find(|c| !is_topic_config(&c.name)) {
        return Err((
            ErrorCode::InvalidConfig,
            format!("Unknown topic config name: {}", &*c.name),
        ));
    }
    if let Some(c) = t.configs.iter().find(|c| c.value.is_none()) {
        return Err((
            ErrorCode::InvalidConfig,
            format!("Null value not supported for topic configs: {}", &*c.name),
        ));
    }
    let configs = t
        .configs
        .iter()
        .map(|c| {
            (
                c.name.to_string(),
                c.value.as_deref().unwrap_or("").to_string(),
            )
        })
        .collect();
    Ok((partitions, configs))
}

/// The partition count of a topic given as NumPartitions and ReplicationFactor.
fn check_counts(t: &CreatableTopic, default_partitions: i32) -> Result<i32, (ErrorCode, String)> {
    let p = if t.num_partitions == -1 {
        default_partitions
    } else {
        t.num_partitions
    };
    if p < 1 {
        return Err((
            ErrorCode::InvalidPartitions,
            format!(
                "Number of partitions was set to an invalid non-positive value {}.",
                t.num_partitions
            ),
        ));
    }
    if p > MAX_PARTITIONS {
        return Err((
            ErrorCode::InvalidPartitions,
            format!("Number of partitions {p} is above kwire-server's limit of {MAX_PARTITIONS}."),
        ));
    }
    if t.replication_factor == 0 || t.replication_factor < -1 {
        return Err((
            ErrorCode::InvalidReplicationFactor,
            "Replication factor must be larger than 0, or -1 to use the default value.".into(),
        ));
    }
    if t.replication_factor > 1 {
        return Err((
            ErrorCode::InvalidReplicationFactor,
            format!("Unable to replicate the partition {} time(s): The target replication factor of {} cannot be reached because only 1 broker(s) are registered.", t.replication_factor, t.replication_factor),
        ));
    }
    Ok(p)
}

/// The partition count of a topic given as a manual assignment: partitions 0..N-1, each on
/// broker 1 only.
fn check_assignments(t: &CreatableTopic) -> Result<i32, (ErrorCode, String)> {
    if t.num_partitions != -1 || t.replication_factor != -1 {
        return Err((
            ErrorCode::InvalidRequest,
            "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.".into(),
        ));
    }
    let mut idx: Vec<i32> = t.assignments.iter().map(|a| a.partition_index).collect();
    idx.sort_unstable();
    let contiguous = idx.iter().enumerate().all(|(i, p)| *p == i as i32);
    let only_us = t
        .assignments
        .iter()
        .all(|a| a.broker_ids.iter().all(|id| id == NODE_ID) && !a.broker_ids.is_empty());
    if !contiguous || !only_us {
        return Err((
            ErrorCode::InvalidReplicaAssignment,
            "Replica assignments must name partitions 0..N-1 on broker 1 only.".into(),
        ));
    }
    Ok(idx.len() as i32)
}

/// The answer for a topic that passed its checks (v5+: its partitions, replication and every
/// topic config with its value and source).
fn created(
    t: &CreatableTopic,
    partitions: i32,
    configs: &[(String, String)],
    v: i16,
) -> CreatableTopicResult {
    CreatableTopicResult {
        name: t.name.clone(),
        topic_id: Uuid::ZERO,
        error_code: ErrorCode::None.code(),
        error_message: None,
        num_partitions: if v >= 5 { partitions } else { -1 },
        replication_factor: if v >= 5 { 1 } else { -1 },
        configs: (v >= 5).then(|| {
            created_topic_configs(configs)
                .into_iter()
                .map(|(k, val, source)| CreatableTopicConfigs {
                    name: k.into(),
                    value: Some(val.into()),
                    read_only: false,
                    config_source: source,
                    is_sensitive: false,
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    }
}

/// DeleteRecords v0-2 (KIP-107), as Kafka's `ReplicaManager.deleteRecords` and
/// `Partition.deleteRecordsOnLeader` answer on a single replica: each partition's log start
/// offset moves up to the requested offset ([`PartitionLog::delete_records_before`](crate::services::topics::log::PartitionLog::delete_records_before);
/// -1 means the high watermark) and the answer's LowWatermark is the log start offset afterwards
/// (unchanged for an offset at or below it). Errors per partition, LowWatermark -1:
/// UNKNOWN_TOPIC_OR_PARTITION (unknown topic or partition index), OFFSET_OUT_OF_RANGE (an offset
/// above the high watermark, or negative other than -1), POLICY_VIOLATION (a topic whose
/// `cleanup.policy` does not include `delete`, e.g. a compacted changelog). The request's
/// TimeoutMs is not needed: a single replica answers at once. Nothing is written to the durable
/// log: after a restart with `--data` every log starts at its old end offset anyway.
pub fn delete_records(
    st: &mut State,
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
                    let (low_watermark, code) =
                        delete_one(st, &t.name, p.partition_index, p.offset);
                    if code != ErrorCode::None {
                        st.fx.refused(
                            ctx,
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
fn delete_one(st: &mut State, topic: &str, partition: i32, offset: i64) -> (i64, ErrorCode) {
    let Some(t) = st.topics.get_mut(topic) else {
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

//! kwire-server's admin APIs against the real Apache Kafka 4.4.0 broker: DeleteRecords (and the
//! ListOffsets and Fetch answers that follow the log start offset it moves), DescribeConfigs
//! (topic and broker resources, the configs CreateTopics gave, unknown resources),
//! DescribeCluster and DescribeTopicPartitions.
//!
//! The broker is the one of [`crate::kafka_oracle`] (started once per test process); kwire-server
//! runs in process. The same topics are created on both with CreateTopics v7 (one with the
//! configs Kafka Streams gives a changelog topic), the same record batches produced, then one
//! script of raw requests runs against each and every answer is compared in Kafka's JSON form
//! after [`normalise`]: topic ids mapped to topic names, the cluster id, host and port replaced
//! by symbols, `throttleTimeMs` and `errorMessage` dropped (the error codes are compared), arrays
//! sorted.
//!
//! # Accepted differences
//!
//! | # | Step | Kafka 4.4.0 | kwire | Why accepted, how compared |
//! |---|---|---|---|---|
//! | B1 | DescribeConfigs of broker 1, every key | ~300 broker configs (listeners, SASL, SSL, quotas, log cleaner threads, ...) | the broker configs clients and Kafka Streams read (`kwire_server::kafka_configs::BROKER_CONFIGS`, ~60) | kwire has no such machinery to configure; Kafka's answer is cut down to the names kwire answers, which are compared in full |
//! | B2 | DescribeTopicPartitions of every topic | lists `__consumer_offsets` and the topics of the other tests sharing the broker (the group and streams oracles, Kafka Streams) | kwire keeps offsets outside any topic; this test's kwire-server is its own | topics not named `adm-…` are removed from both answers |
//! | B3 | broker configs set to Kafka's default value | STATIC_BROKER_CONFIG (4) when server.properties names them (`num.partitions=1`, `group.max.session.timeout.ms=1800000`, `group.consumer.assignors`, `group.consumer.migration.policy`) | DEFAULT_CONFIG (5): kwire-server cannot tell an option given on its command line from its default | Kafka's entry rewritten to source 5, its static synonym dropped |
//! | B4 | `group.streams.session.timeout.ms`, `group.streams.heartbeat.interval.ms`, the group configs `streams.session.timeout.ms`, `streams.heartbeat.interval.ms` | the broker's streams defaults (45000, 5000) | kwire-server's one `--session-timeout-ms` / `--heartbeat-interval-ms` serves consumer and streams groups (here the consumer values, 3000 / 200) | left out of the comparison |
//! | B5 | `group.streams.assignment.interval.ms`, `streams.assignment.interval.ms` | 1000 (default) | 0, static: kwire computes a streams group's target assignment at every group epoch bump | left out of the comparison |
//! | B6 | `offsets.topic.*`, `transaction.state.log.*` replication settings | 1 (the oracle's server.properties, for one node) | Kafka's defaults: kwire has no internal topics | left out of the comparison |
//! | B7 | `group.streams.assignor.offload.enable`, the group config `streams.assignor.offload.enable` | false, static (the oracle broker runs streams assignments on the coordinator thread, as kwire does) | absent: kwire-server has no background assignor to turn on | left out of the comparison |
//!
//! Not compared: DescribeConfigs' Documentation (IncludeDocumentation): Kafka answers its own
//! prose, kwire null; the BROKER_LOGGER resource without keys (Kafka lists every log4j logger,
//! kwire only `root`). Everything else — DeleteRecords, ListOffsets and Fetch around the log
//! start offset, every topic config with its default, source, type and synonyms, CreateTopics'
//! config list, group and client-metrics configs, DescribeCluster, DescribeTopicPartitions with
//! cursors and limits — is compared field by field.
//!
//! Gated as the other Java tests are (`cfg(kwire_java)`, required under `CI=true`).

use crate::kafka_oracle::broker;
use bytes::Bytes;
use kwire_protocol::generated::create_topics_request::{
    CreatableTopic, CreatableTopicConfig, CreateTopicsRequest,
};
use kwire_protocol::generated::delete_records_request::{
    DeleteRecordsPartition, DeleteRecordsRequest, DeleteRecordsTopic,
};
use kwire_protocol::generated::describe_cluster_request::DescribeClusterRequest;
use kwire_protocol::generated::describe_configs_request::{
    DescribeConfigsRequest, DescribeConfigsResource,
};
use kwire_protocol::generated::describe_topic_partitions_request::{
    Cursor, DescribeTopicPartitionsRequest, TopicRequest,
};
use kwire_protocol::generated::fetch_request::{FetchPartition, FetchRequest, FetchTopic};
use kwire_protocol::generated::list_offsets_request::{
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic,
};
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_protocol::generated::produce_request::{
    PartitionProduceData, ProduceRequest, TopicProduceData,
};
use kwire_protocol::generated::Request;
use kwire_protocol::records::{BatchBuilder, Compression};
use kwire_protocol::wire::json::{JsonForm as _, Value};
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A topic of the script: (name, partitions, configs).
type TopicSpec = (&'static str, i32, &'static [(&'static str, &'static str)]);

/// The topics of the script.
const TOPICS: &[TopicSpec] = &[
    ("adm-plain", 3, &[]),
    // What Kafka Streams 4.4 gives a changelog topic (`ChangelogTopicConfig`), and a few more.
    (
        "adm-changelog",
        1,
        &[
            ("cleanup.policy", "compact"),
            ("message.timestamp.type", "CreateTime"),
            ("min.compaction.lag.ms", "0"),
        ],
    ),
    // What it gives a repartition topic (`RepartitionTopicConfig`).
    (
        "adm-repartition",
        2,
        &[
            ("cleanup.policy", "delete"),
            ("segment.bytes", "52428800"),
            ("retention.ms", "-1"),
            ("message.timestamp.type", "CreateTime"),
        ],
    ),
];

/// The topic configs asked for by name (the ones clients read), plus an unknown one.
const TOPIC_KEYS: &[&str] = &[
    "cleanup.policy",
    "retention.ms",
    "retention.bytes",
    "segment.bytes",
    "segment.ms",
    "message.timestamp.type",
    "min.insync.replicas",
    "max.message.bytes",
    "compression.type",
    "delete.retention.ms",
    "min.compaction.lag.ms",
    "unclean.leader.election.enable",
    "no.such.config",
];

/// The broker configs asked for by name (what Kafka Streams, the Admin client and tools read).
const BROKER_KEYS: &[&str] = &[
    "auto.create.topics.enable",
    "default.replication.factor",
    "num.partitions",
    "min.insync.replicas",
    "message.max.bytes",
    "log.retention.ms",
    "log.retention.hours",
    "log.segment.bytes",
    "log.cleanup.policy",
    "compression.type",
    "offsets.topic.num.partitions",
    "transaction.state.log.replication.factor",
    "group.streams.num.standby.replicas",
    "group.streams.session.timeout.ms",
    "group.streams.heartbeat.interval.ms",
    "no.such.config",
];

/// kwire-server with the oracle broker's settings that show in these answers
/// (`auto.create.topics.enable=false`, the consumer-group session timeout and heartbeat
/// interval, the streams groups' initial rebalance delay and standby replicas).
fn kwire_config() -> ServerConfig {
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
    config.auto_create_topics = false;
    config.session_timeout_ms = Some(crate::kafka_oracle::GROUP_CONSUMER_SESSION_TIMEOUT_MS);
    config.heartbeat_interval_ms = Some(crate::kafka_oracle::GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);
    config.group_min_session_timeout_ms = crate::kafka_oracle::GROUP_MIN_SESSION_TIMEOUT_MS;
    config.group_max_session_timeout_ms = 1_800_000;
    config.group_initial_rebalance_delay_ms = crate::kafka_oracle::GROUP_INITIAL_REBALANCE_DELAY_MS;
    config.streams_initial_rebalance_delay_ms =
        Some(crate::kafka_oracle::GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS);
    config.streams_num_standby_replicas =
        Some(crate::kafka_oracle::GROUP_STREAMS_NUM_STANDBY_REPLICAS);
    config
}

/// Configs whose values differ for reasons listed in the module docs (B4-B6): left out of the
/// comparison on both sides.
const NOT_COMPARED: &[&str] = &[
    // B4: one session timeout and heartbeat interval for consumer and streams groups.
    "group.streams.session.timeout.ms",
    "group.streams.heartbeat.interval.ms",
    "streams.session.timeout.ms",
    "streams.heartbeat.interval.ms",
    // B5: kwire computes a streams group's target assignment at every group epoch bump.
    "group.streams.assignment.interval.ms",
    "streams.assignment.interval.ms",
    // B7: the oracle broker runs streams assignments inline, as kwire-server always does.
    "group.streams.assignor.offload.enable",
    "streams.assignor.offload.enable",
    // B6: the internal topics kwire-server does not have, set to one replica on the broker.
    "offsets.topic.num.partitions",
    "offsets.topic.replication.factor",
    "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr",
];

/// B3: a broker config the oracle broker's server.properties sets to Kafka's default value is
/// STATIC_BROKER_CONFIG there; kwire-server reports its settings that equal Kafka's default as
/// DEFAULT_CONFIG. Kafka's entry is rewritten to DEFAULT_CONFIG (its static synonym dropped).
fn static_default_as_default(v: &mut Value) {
    use kwire_server::kafka_configs::{source, BROKER_CONFIGS};
    let Some(results) = v.get_mut("results").and_then(Value::as_array_mut) else {
        return;
    };
    for r in results {
        let Some(configs) = r.get_mut("configs").and_then(Value::as_array_mut) else {
            continue;
        };
        for c in configs {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("");
            let value = c.get("value").and_then(Value::as_str).map(str::to_string);
            let default = BROKER_CONFIGS
                .iter()
                .find(|(n, ..)| *n == name)
                .and_then(|(_, d, _)| *d);
            let is_static = c.get("configSource").and_then(Value::as_i64)
                == Some(i64::from(source::STATIC_BROKER_CONFIG));
            if is_static && default.is_some() && value.as_deref() == default {
                c["configSource"] = Value::from(source::DEFAULT_CONFIG);
                if let Some(syn) = c.get_mut("synonyms").and_then(Value::as_array_mut) {
                    syn.retain(|x| {
                        x.get("source").and_then(Value::as_i64)
                            != Some(i64::from(source::STATIC_BROKER_CONFIG))
                    });
                }
            }
        }
        if let Some(configs) = r.get_mut("configs").and_then(Value::as_array_mut) {
            configs.retain(|c| {
                c.get("name")
                    .and_then(Value::as_str)
                    .is_none_or(|n| !NOT_COMPARED.contains(&n))
            });
        }
    }
}

/// One batch of `n` records (values `v0`, `v1`, …) at fixed timestamps, the same bytes on both
/// sides.
fn batch(n: usize, ts: i64) -> Bytes {
    let mut b = BatchBuilder::new(Compression::None);
    for i in 0..n {
        let v = format!("v{i}");
        b.append(ts + i as i64, None, Some(v.as_bytes()), &[])
            .expect("record");
    }
    b.build().expect("batch")
}

/// Creates the topics, waits until Metadata shows them with leaders, and produces: partition 0 of
/// `adm-plain` gets three batches of two records (offsets 0-5), partition 1 one batch of one.
/// Returns (topic id, topic name) pairs for the normaliser and the CreateTopics answer.
async fn setup(c: &mut Client) -> Result<(Vec<(String, String)>, Value), String> {
    let req = CreateTopicsRequest {
        topics: TOPICS
            .iter()
            .map(|(name, n, configs)| CreatableTopic {
                name: (*name).into(),
                num_partitions: *n,
                replication_factor: 1,
                configs: configs
                    .iter()
                    .map(|(k, v)| CreatableTopicConfig {
                        name: (*k).into(),
                        value: Some((*v).into()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        timeout_ms: 30_000,
        ..Default::default()
    };
    let r = c
        .request(&req, 7)
        .await
        .map_err(|e| format!("CreateTopics failed: {e}"))?;
    let created = r.to_json(7).map_err(|e| e.to_string())?;
    let mut ids = Vec::new();
    for t in &r.topics {
        if t.error_code != 0 {
            return Err(format!("CreateTopics {}: error {}", t.name, t.error_code));
        }
        ids.push((t.topic_id.to_string(), format!("topic:{}", t.name)));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let req = MetadataRequest {
            topics: Some(
                TOPICS
                    .iter()
                    .map(|(t, ..)| MetadataRequestTopic {
                        name: Some((*t).into()),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        };
        let m = c
            .request(&req, 12)
            .await
            .map_err(|e| format!("Metadata failed: {e}"))?;
        if m.topics.len() == TOPICS.len()
            && m.topics.iter().all(|t| {
                t.error_code == 0
                    && !t.partitions.is_empty()
                    && t.partitions.iter().all(|p| p.leader_id >= 0)
            })
        {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("the topics do not show in Metadata: {m:?}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let produce = |partition: i32, records: Bytes| ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: vec![TopicProduceData {
            name: "adm-plain".into(),
            partition_data: vec![PartitionProduceData {
                index: partition,
                records: Some(records),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for (partition, n, ts) in [(0, 2, 1000), (0, 2, 2000), (0, 2, 3000), (1, 1, 4000)] {
        loop {
            let p = c
                .request(&produce(partition, batch(n, ts)), 9)
                .await
                .map_err(|e| format!("Produce failed: {e}"))?;
            let code = p.responses[0].partition_responses[0].error_code;
            // A new topic's leader shows in Kafka's Metadata a moment before the partition
            // accepts writes: UNKNOWN_TOPIC_OR_PARTITION (3), LEADER_NOT_AVAILABLE (5) and
            // NOT_LEADER_OR_FOLLOWER (6) are retried, as a producer would, until the deadline.
            match code {
                0 => break,
                3 | 5 | 6 if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await
                }
                _ => return Err(format!("Produce: error {code}")),
            }
        }
    }
    Ok((ids, created))
}

fn delete_records(parts: &[(&str, i32, i64)]) -> DeleteRecordsRequest {
    let mut topics: Vec<DeleteRecordsTopic> = Vec::new();
    for (t, p, offset) in parts {
        let partition = DeleteRecordsPartition {
            partition_index: *p,
            offset: *offset,
            ..Default::default()
        };
        match topics.iter_mut().find(|x| &*x.name == *t) {
            Some(x) => x.partitions.push(partition),
            None => topics.push(DeleteRecordsTopic {
                name: t.to_string().into(),
                partitions: vec![partition],
                ..Default::default()
            }),
        }
    }
    DeleteRecordsRequest {
        topics,
        timeout_ms: 30_000,
        ..Default::default()
    }
}

fn list_offsets(parts: &[(i32, i64)]) -> ListOffsetsRequest {
    ListOffsetsRequest {
        replica_id: -1,
        topics: vec![ListOffsetsTopic {
            name: "adm-plain".into(),
            partitions: parts
                .iter()
                .map(|(p, ts)| ListOffsetsPartition {
                    partition_index: *p,
                    timestamp: *ts,
                    current_leader_epoch: -1,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn fetch(partition: i32, offset: i64) -> FetchRequest {
    FetchRequest {
        replica_id: -1,
        max_wait_ms: 0,
        min_bytes: 0,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: vec![FetchTopic {
            topic: "adm-plain".into(),
            partitions: vec![FetchPartition {
                partition,
                fetch_offset: offset,
                partition_max_bytes: 1 << 20,
                current_leader_epoch: -1,
                last_fetched_epoch: -1,
                log_start_offset: -1,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn describe_configs(
    resources: &[(i8, &str, Option<&[&str]>)],
    synonyms: bool,
) -> DescribeConfigsRequest {
    DescribeConfigsRequest {
        resources: resources
            .iter()
            .map(|(ty, name, keys)| DescribeConfigsResource {
                resource_type: *ty,
                resource_name: name.to_string().into(),
                configuration_keys: keys.map(|k| k.iter().map(|s| s.to_string().into()).collect()),
                ..Default::default()
            })
            .collect(),
        include_synonyms: synonyms,
        include_documentation: false,
        ..Default::default()
    }
}

fn describe_partitions(
    topics: &[&str],
    limit: i32,
    cursor: Option<(&str, i32)>,
) -> DescribeTopicPartitionsRequest {
    DescribeTopicPartitionsRequest {
        topics: topics
            .iter()
            .map(|t| TopicRequest {
                name: t.to_string().into(),
                ..Default::default()
            })
            .collect(),
        response_partition_limit: limit,
        cursor: cursor.map(|(t, p)| Cursor {
            topic_name: t.to_string().into(),
            partition_index: p,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The script: (label, request, version).
fn script() -> Vec<(&'static str, Request, i16)> {
    let topic = 2i8;
    let broker = 4i8;
    vec![
        (
            "DeleteRecords v2: mid-batch, to the high watermark, past it, unknown partition and topic",
            delete_records(&[
                ("adm-plain", 0, 3),
                ("adm-plain", 1, -1),
                ("adm-plain", 2, 5),
                ("adm-plain", 9, 0),
                ("adm-missing", 0, 0),
            ])
            .into(),
            2,
        ),
        (
            "DeleteRecords v0: below the low watermark, then -2",
            delete_records(&[("adm-plain", 0, 1), ("adm-plain", 2, -2)]).into(),
            0,
        ),
        (
            "ListOffsets v9: earliest",
            list_offsets(&[(0, -2), (1, -2), (2, -2)]).into(),
            9,
        ),
        (
            "ListOffsets v9: latest",
            list_offsets(&[(0, -1), (1, -1)]).into(),
            9,
        ),
        (
            "ListOffsets v9: earliest-local",
            list_offsets(&[(0, -4), (1, -4)]).into(),
            9,
        ),
        (
            "ListOffsets v9: a timestamp before the log start offset",
            list_offsets(&[(0, 1000), (1, 0)]).into(),
            9,
        ),
        (
            "ListOffsets v9: a timestamp inside the first batch kept",
            list_offsets(&[(0, 2001)]).into(),
            9,
        ),
        (
            "ListOffsets v9: a partition named twice",
            list_offsets(&[(0, -2), (0, -1), (1, -1)]).into(),
            9,
        ),
        (
            "ListOffsets v9: max timestamp",
            list_offsets(&[(0, -3), (1, -3)]).into(),
            9,
        ),
        (
            "Fetch v12 below the log start offset",
            fetch(0, 2).into(),
            12,
        ),
        ("Fetch v12 at the log start offset", fetch(0, 3).into(), 12),
        (
            "Fetch v12 at the high watermark of a truncated partition",
            fetch(1, 1).into(),
            12,
        ),
        ("Fetch v12 below it", fetch(1, 0).into(), 12),
        (
            "DeleteRecords v1: to the current low watermark, then to the end",
            delete_records(&[("adm-plain", 0, 3), ("adm-plain", 2, 0)]).into(),
            1,
        ),
        (
            "DeleteRecords v2: everything",
            delete_records(&[("adm-plain", 0, 6)]).into(),
            2,
        ),
        (
            "ListOffsets v9 after deleting everything: earliest",
            list_offsets(&[(0, -2)]).into(),
            9,
        ),
        (
            "ListOffsets v9 after deleting everything: latest",
            list_offsets(&[(0, -1)]).into(),
            9,
        ),
        (
            "ListOffsets v9 after deleting everything: max timestamp",
            list_offsets(&[(0, -3)]).into(),
            9,
        ),
        (
            "ListOffsets v9 after deleting everything: timestamp 0",
            list_offsets(&[(0, 0)]).into(),
            9,
        ),
        (
            "DescribeConfigs v4: the changelog topic, every key, synonyms",
            describe_configs(&[(topic, "adm-changelog", None)], true).into(),
            4,
        ),
        (
            "DescribeConfigs v4: the plain topic, every key",
            describe_configs(&[(topic, "adm-plain", None)], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: named keys of three topics, synonyms",
            describe_configs(
                &[
                    (topic, "adm-plain", Some(TOPIC_KEYS)),
                    (topic, "adm-changelog", Some(TOPIC_KEYS)),
                    (topic, "adm-repartition", Some(TOPIC_KEYS)),
                ],
                true,
            )
            .into(),
            4,
        ),
        (
            "DescribeConfigs v1: named keys of the repartition topic",
            describe_configs(&[(topic, "adm-repartition", Some(TOPIC_KEYS))], false).into(),
            1,
        ),
        (
            "DescribeConfigs v2: unknown topic, invalid topic name, empty keys",
            describe_configs(
                &[
                    (topic, "adm-missing", None),
                    (topic, "bad name!", None),
                    (topic, "adm-plain", Some(&[])),
                ],
                false,
            )
            .into(),
            2,
        ),
        (
            "DescribeConfigs v4: broker 1, named keys, synonyms",
            describe_configs(&[(broker, "1", Some(BROKER_KEYS))], true).into(),
            4,
        ),
        (
            "DescribeConfigs v3: broker 1 and the cluster default, named keys",
            describe_configs(
                &[
                    (broker, "1", Some(BROKER_KEYS)),
                    (broker, "", Some(BROKER_KEYS)),
                ],
                false,
            )
            .into(),
            3,
        ),
        (
            "DescribeConfigs v4: broker 1, one key",
            describe_configs(&[(broker, "1", Some(&["num.partitions"]))], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: broker 1, every key, synonyms",
            describe_configs(&[(broker, "1", None)], true).into(),
            4,
        ),
        (
            "DescribeConfigs v4: the cluster default, every key",
            describe_configs(&[(broker, "", None)], true).into(),
            4,
        ),
        (
            "DescribeConfigs v4: another broker id",
            describe_configs(&[(broker, "2", None)], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: a broker id that is not a number",
            describe_configs(&[(broker, "x", None)], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: the broker logger",
            describe_configs(&[(8, "1", Some(&["root"]))], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: a group, one key",
            describe_configs(&[(32, "adm-group", Some(&["consumer.session.timeout.ms"]))], false)
                .into(),
            4,
        ),
        (
            "DescribeConfigs v4: client metrics",
            describe_configs(&[(16, "adm-metrics", None)], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: an unknown resource type",
            describe_configs(&[(99, "x", None)], false).into(),
            4,
        ),
        (
            "DescribeConfigs v4: a topic and an unknown resource type",
            describe_configs(&[(topic, "adm-plain", Some(&["cleanup.policy"])), (99, "x", None)], false)
                .into(),
            4,
        ),
        (
            "DescribeConfigs v4: a group's every key",
            describe_configs(&[(32, "adm-group", None)], false).into(),
            4,
        ),
        (
            "DescribeCluster v0",
            DescribeClusterRequest::default().into(),
            0,
        ),
        (
            "DescribeCluster v1 brokers, authorized operations",
            DescribeClusterRequest {
                include_cluster_authorized_operations: true,
                endpoint_type: 1,
                ..Default::default()
            }
            .into(),
            1,
        ),
        (
            "DescribeCluster v1 controllers",
            DescribeClusterRequest {
                endpoint_type: 2,
                ..Default::default()
            }
            .into(),
            1,
        ),
        (
            "DescribeCluster v2 with fenced brokers",
            DescribeClusterRequest {
                endpoint_type: 1,
                include_fenced_brokers: true,
                ..Default::default()
            }
            .into(),
            2,
        ),
        (
            "DescribeCluster v1 unknown endpoint type",
            DescribeClusterRequest {
                endpoint_type: 7,
                ..Default::default()
            }
            .into(),
            1,
        ),
        (
            "DescribeTopicPartitions: three topics and an unknown one",
            describe_partitions(
                &["adm-repartition", "adm-plain", "adm-missing", "adm-changelog"],
                2000,
                None,
            )
            .into(),
            0,
        ),
        (
            "DescribeTopicPartitions: limit 2",
            describe_partitions(&["adm-plain", "adm-repartition"], 2, None).into(),
            0,
        ),
        (
            "DescribeTopicPartitions: from a cursor, limit 2",
            describe_partitions(
                &["adm-plain", "adm-repartition"],
                2,
                Some(("adm-plain", 2)),
            )
            .into(),
            0,
        ),
        (
            "DescribeTopicPartitions: a cursor on a topic not asked for",
            describe_partitions(&["adm-plain"], 10, Some(("adm-changelog", 0))).into(),
            0,
        ),
        (
            "DescribeTopicPartitions: a cursor past the partitions",
            describe_partitions(&["adm-plain", "adm-repartition"], 10, Some(("adm-plain", 7)))
                .into(),
            0,
        ),
        (
            "DescribeTopicPartitions: limit 0",
            describe_partitions(&["adm-plain"], 0, None).into(),
            0,
        ),
        (
            "DescribeTopicPartitions: every topic",
            describe_partitions(&[], 2000, None).into(),
            0,
        ),
        (
            "DescribeTopicPartitions: every topic from a cursor",
            describe_partitions(&[], 3, Some(("adm-plain", 1))).into(),
            0,
        ),
    ]
}

/// Replaces ids and addresses by symbols, drops timing and free text, sorts arrays, and removes
/// the topics that are not this test's own (`adm-…`) from DescribeTopicPartitions (B2).
fn normalise(v: Value, names: &HashMap<String, String>, cluster: &str) -> Value {
    match v {
        Value::String(s) if s == cluster => Value::String("cluster".into()),
        Value::String(s) => Value::String(names.get(&s).cloned().unwrap_or(s)),
        Value::Array(a) => {
            let mut items: Vec<Value> = a
                .into_iter()
                .filter(|x| {
                    // B2: a topic (an object with a topic id) that is not this test's own.
                    let name = x.get("name").and_then(Value::as_str);
                    x.get("topicId").is_none() || name.is_some_and(|n| n.starts_with("adm-"))
                })
                .map(|x| normalise(x, names, cluster))
                .collect();
            items.sort_by_cached_key(|x| x.to_string());
            Value::Array(items)
        }
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "throttleTimeMs" | "errorMessage"))
                .map(|(k, x)| match k.as_str() {
                    "host" => (k, Value::String("host".into())),
                    "port" => (k, Value::String("port".into())),
                    _ => (k, normalise(x, names, cluster)),
                })
                .collect(),
        ),
        other => other,
    }
}

/// Keeps only the configs of a DescribeConfigs answer that `keep` names (B1).
fn filter_configs(v: &mut Value, keep: &[String]) {
    if let Some(results) = v.get_mut("results").and_then(Value::as_array_mut) {
        for r in results {
            if let Some(configs) = r.get_mut("configs").and_then(Value::as_array_mut) {
                configs.retain(|c| {
                    c.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| keep.iter().any(|k| k == n))
                });
            }
        }
    }
}

/// Runs the script against `addr`; returns (label, answer) pairs, an answer being the normalised
/// JSON or the error that ended the step.
async fn run(addr: SocketAddr) -> Result<Vec<(String, Value)>, String> {
    let mut c = Client::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let (ids, created) = setup(&mut c).await?;
    let names: HashMap<String, String> = ids.into_iter().collect();
    let cluster = match c.request(&DescribeClusterRequest::default(), 0).await {
        Ok(d) => d.cluster_id.to_string(),
        // Without DescribeCluster there is no cluster id to hide; the steps still run.
        _ => String::new(),
    };
    let mut out = vec![(
        "CreateTopics v7 (the setup)".to_string(),
        normalise(created, &names, &cluster),
    )];
    out.extend(run_steps(addr, &names, &cluster).await?);
    Ok(out)
}

async fn run_steps(
    addr: SocketAddr,
    names: &HashMap<String, String>,
    cluster: &str,
) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    for (label, req, version) in script() {
        // A fresh connection per step: a refused API closes the connection.
        let mut c = Client::connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        let answer = match tokio::time::timeout(Duration::from_secs(30), c.call(req, version)).await
        {
            Ok(Ok(resp)) => match resp.to_json(version) {
                Ok(v) => normalise(v, names, cluster),
                Err(e) => Value::String(format!("to_json: {e}")),
            },
            Ok(Err(e)) => Value::String(format!("no answer: {e}")),
            Err(_) => Value::String("no answer within 30 s".into()),
        };
        out.push((label.to_string(), answer));
    }
    Ok(out)
}

/// The config names of kwire's answer to a full broker DescribeConfigs (B1).
fn config_names(v: &Value) -> Vec<String> {
    v.get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|r| {
            r.get("configs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

#[test]
#[cfg_attr(
    not(kwire_java),
    ignore = "needs java (17+) and mvn on PATH (Debian: apt-get install default-jdk-headless maven); then rebuild: touch tests/build.rs"
)]
fn kafka_admin_oracle() {
    if !crate::java::java_ready("kafka admin oracle") {
        return;
    }
    let broker = broker::broker().unwrap_or_else(|e| panic!("kafka admin oracle: {e}"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let server = rt
        .block_on(Server::bind(kwire_config()))
        .expect("kwire-server binds");
    let kwire_addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server.run(async {
        let _ = stopped.await;
    }));
    let (kafka, kwire) = rt.block_on(async { tokio::join!(run(broker.addr), run(kwire_addr)) });
    let _ = stop.send(());
    let _ = rt.block_on(serving);
    let kafka = kafka.unwrap_or_else(|e| panic!("kafka admin oracle: Kafka: {e}"));
    let kwire = kwire.unwrap_or_else(|e| panic!("kafka admin oracle: kwire: {e}"));

    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kafka-admin-oracle");
    let _ = std::fs::create_dir_all(&dir);
    let mut failures = Vec::new();
    for ((label, k), (_, w)) in kafka.iter().zip(&kwire) {
        let (mut k, mut w) = (k.clone(), w.clone());
        if label.contains("broker 1, every key") {
            // B1: Kafka's answer cut down to the configs kwire answers.
            filter_configs(&mut k, &config_names(&w));
        }
        if label.starts_with("DescribeConfigs") {
            static_default_as_default(&mut k);
            static_default_as_default(&mut w);
        }
        let w = &w;
        if &k == w {
            println!("kafka admin oracle: PASS  {label}");
        } else {
            println!("kafka admin oracle: DIFF  {label}\n  kafka: {k}\n  kwire: {w}");
            failures.push(label.clone());
        }
    }
    for (side, t) in [("kafka", &kafka), ("kwire", &kwire)] {
        let text: String = t.iter().map(|(l, v)| format!("{l}\n  {v}\n")).collect();
        let _ = std::fs::write(dir.join(format!("{side}.txt")), text);
    }
    assert!(
        failures.is_empty(),
        "kafka admin oracle: {} of {} steps differ (transcripts in {}): {failures:?}",
        failures.len(),
        kafka.len(),
        dir.display()
    );
}

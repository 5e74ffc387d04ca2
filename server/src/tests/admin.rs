//! The admin APIs through a real socket: DeleteRecords (and the Fetch and ListOffsets answers
//! that follow the log start offset), DescribeConfigs with CreateTopics' configs kept,
//! DescribeCluster and DescribeTopicPartitions. A child of the server's `tests` module (its
//! helpers). The answers were checked against Kafka 4.4.0 by the admin oracle
//! (`tests/tests/it/kafka_admin_oracle.rs`).

use kwire_protocol::error::ErrorCode;
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
use kwire_protocol::generated::describe_configs_response::DescribeConfigsResult;
use kwire_protocol::generated::describe_topic_partitions_request::{
    Cursor, DescribeTopicPartitionsRequest, TopicRequest,
};
use kwire_protocol::generated::list_offsets_request::{
    ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic,
};
use kwire_protocol::generated::ApiKey;

use super::{config, connect, fetch_by_id, make_batch, produce, request, start, topic_id};
use crate::client::Client;
use crate::services::configs::tables::{source, TOPIC_CONFIGS};

fn delete(topic: &str, parts: &[(i32, i64)]) -> DeleteRecordsRequest {
    DeleteRecordsRequest {
        topics: vec![DeleteRecordsTopic {
            name: topic.to_string().into(),
            partitions: parts
                .iter()
                .map(|(p, o)| DeleteRecordsPartition {
                    partition_index: *p,
                    offset: *o,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        timeout_ms: 1000,
        ..Default::default()
    }
}

/// (low watermark, error code) of every partition of a DeleteRecords answer.
async fn delete_records(c: &mut Client, topic: &str, parts: &[(i32, i64)]) -> Vec<(i64, i16)> {
    {
        let r = request(c, &delete(topic, parts), 2).await;
        r.topics[0]
            .partitions
            .iter()
            .map(|p| (p.low_watermark, p.error_code))
            .collect()
    }
}

/// ListOffsets v9 of one partition at `ts`: (offset, timestamp).
async fn list_offset(c: &mut Client, topic: &str, partition: i32, ts: i64) -> (i64, i64) {
    let req = ListOffsetsRequest {
        replica_id: -1,
        topics: vec![ListOffsetsTopic {
            name: topic.to_string().into(),
            partitions: vec![ListOffsetsPartition {
                partition_index: partition,
                timestamp: ts,
                current_leader_epoch: -1,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    {
        let r = request(c, &req, 9).await;
        let p = &r.topics[0].partitions[0];
        assert_eq!(p.error_code, 0);
        (p.offset, p.timestamp)
    }
}

#[tokio::test]
async fn delete_records_moves_the_log_start_offset() {
    let r = start(config(&[("t", 2)])).await;
    let mut c = connect(r.addr).await;
    // Offsets 0-1 (ts 100, 101), 2-3 (ts 200, 201), 4-5 (ts 300, 301).
    for ts in [100, 200, 300] {
        {
            let p = request(
                &mut c,
                &produce("t", 0, make_batch(&[b"a", b"b"], ts), -1),
                9,
            )
            .await;
            assert_eq!(p.responses[0].partition_responses[0].error_code, 0)
        }
    }
    let none = ErrorCode::None.code();
    // Mid-batch, then a lower offset (no change), past the high watermark, unknown partition.
    assert_eq!(
        delete_records(&mut c, "t", &[(0, 3), (1, 1), (7, 0)]).await,
        vec![
            (3, none),
            (-1, ErrorCode::OffsetOutOfRange.code()),
            (-1, ErrorCode::UnknownTopicOrPartition.code())
        ]
    );
    assert_eq!(
        delete_records(&mut c, "t", &[(0, 1)]).await,
        vec![(3, none)]
    );
    assert_eq!(
        delete_records(&mut c, "t", &[(0, -2)]).await,
        vec![(-1, ErrorCode::OffsetOutOfRange.code())]
    );
    assert_eq!(
        delete_records(&mut c, "missing", &[(0, 0)]).await,
        vec![(-1, ErrorCode::UnknownTopicOrPartition.code())]
    );
    // ListOffsets follows: EARLIEST is 3, a timestamp before it finds the first record from 3.
    assert_eq!(list_offset(&mut c, "t", 0, -2).await.0, 3);
    assert_eq!(list_offset(&mut c, "t", 0, -1).await.0, 6);
    assert_eq!(list_offset(&mut c, "t", 0, 100).await, (3, 201));
    assert_eq!(list_offset(&mut c, "t", 0, 250).await, (4, 300));
    // A partition named twice: answered once, INVALID_REQUEST (as Kafka 4.4).
    let twice = ListOffsetsRequest {
        replica_id: -1,
        topics: vec![ListOffsetsTopic {
            name: "t".into(),
            partitions: [(0, -2), (0, -1), (1, -1)]
                .into_iter()
                .map(|(p, ts)| ListOffsetsPartition {
                    partition_index: p,
                    timestamp: ts,
                    current_leader_epoch: -1,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    {
        let r = request(&mut c, &twice, 9).await;
        let got: Vec<(i32, i16, i64)> = r.topics[0]
            .partitions
            .iter()
            .map(|p| (p.partition_index, p.error_code, p.offset))
            .collect();
        assert_eq!(
            got,
            vec![(0, ErrorCode::InvalidRequest.code(), -1), (1, 0, 0)]
        );
    }
    // Fetch below the log start offset: OFFSET_OUT_OF_RANGE; from it: the batch holding it.
    let id = topic_id(&r, "t");
    {
        let f = request(&mut c, &fetch_by_id(id, 0, 2, 0), 16).await;
        let p = &f.responses[0].partitions[0];
        assert_eq!(p.error_code, ErrorCode::OffsetOutOfRange.code());
        assert_eq!((p.high_watermark, p.log_start_offset), (-1, -1));
    }
    {
        let f = request(&mut c, &fetch_by_id(id, 0, 3, 0), 16).await;
        let p = &f.responses[0].partitions[0];
        assert_eq!((p.error_code, p.log_start_offset), (0, 3));
        let records = p.records.as_deref().expect("records");
        assert_eq!(super::be_i64(records, 0), 2, "the batch holding offset 3");
    }
    // -1: up to the high watermark; the batches below are gone from memory.
    assert_eq!(
        delete_records(&mut c, "t", &[(0, -1)]).await,
        vec![(6, none)]
    );
    assert_eq!(list_offset(&mut c, "t", 0, -2).await.0, 6);
    assert_eq!(list_offset(&mut c, "t", 0, 0).await, (-1, -1));
    {
        let b = r.state();
        let log = b.topics.get("t").and_then(|t| t.partition(0)).expect("log");
        assert_eq!((log.size_bytes(), log.batches().len()), (0, 0));
    }
    // Produce goes on from the high watermark.
    {
        let p = request(&mut c, &produce("t", 0, make_batch(&[b"c"], 400), -1), 9).await;
        let p = &p.responses[0].partition_responses[0];
        assert_eq!((p.error_code, p.base_offset, p.log_start_offset), (0, 6, 6));
    }
    r.stop().await;
}

async fn create(c: &mut Client, name: &str, partitions: i32, configs: &[(&str, &str)]) {
    let req = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.to_string().into(),
            num_partitions: partitions,
            replication_factor: 1,
            configs: configs
                .iter()
                .map(|(k, v)| CreatableTopicConfig {
                    name: k.to_string().into(),
                    value: Some(v.to_string().into()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }],
        timeout_ms: 1000,
        ..Default::default()
    };
    {
        let r = request(c, &req, 7).await;
        assert_eq!(r.topics[0].error_code, 0, "{r:?}")
    }
}

async fn describe_configs(
    c: &mut Client,
    resources: &[(i8, &str, Option<&[&str]>)],
    version: i16,
) -> Vec<DescribeConfigsResult> {
    let req = DescribeConfigsRequest {
        resources: resources
            .iter()
            .map(|(t, n, keys)| DescribeConfigsResource {
                resource_type: *t,
                resource_name: n.to_string().into(),
                configuration_keys: keys.map(|k| k.iter().map(|s| s.to_string().into()).collect()),
                ..Default::default()
            })
            .collect(),
        include_synonyms: true,
        ..Default::default()
    };
    {
        let r = request(c, &req, version).await;
        r.results
    }
}

/// (value, source) of `name` in a result.
fn config_of(r: &DescribeConfigsResult, name: &str) -> Option<(String, i8)> {
    r.configs.iter().find(|c| &*c.name == name).map(|c| {
        (
            c.value.as_deref().unwrap_or("").to_string(),
            c.config_source,
        )
    })
}

#[tokio::test]
async fn describe_configs_reports_create_topics_configs_and_defaults() {
    let r = start(config(&[])).await;
    let mut c = connect(r.addr).await;
    create(&mut c, "changelog", 1, &[("cleanup.policy", "compact")]).await;
    create(&mut c, "plain", 1, &[]).await;
    let all = describe_configs(
        &mut c,
        &[(2, "changelog", None), (2, "plain", Some(&[]))],
        4,
    )
    .await;
    assert_eq!(all.len(), 2);
    for res in &all {
        assert_eq!(res.error_code, 0);
        assert_eq!(res.configs.len(), TOPIC_CONFIGS.len());
    }
    let (changelog, plain) = (&all[0], &all[1]);
    assert_eq!(
        config_of(changelog, "cleanup.policy"),
        Some(("compact".into(), source::TOPIC_CONFIG))
    );
    let policy = changelog
        .configs
        .iter()
        .find(|c| &*c.name == "cleanup.policy")
        .expect("cleanup.policy");
    // Synonyms: the topic's own value, then the broker default.
    let synonyms: Vec<(&str, i8)> = policy
        .synonyms
        .iter()
        .map(|s| (&*s.name, s.source))
        .collect();
    assert_eq!(
        synonyms,
        vec![
            ("cleanup.policy", source::TOPIC_CONFIG),
            ("log.cleanup.policy", source::DEFAULT_CONFIG)
        ]
    );
    assert_eq!(policy.config_type, 7, "LIST");
    for (name, value) in [
        ("cleanup.policy", "delete"),
        ("retention.ms", "604800000"),
        ("segment.bytes", "1073741824"),
        ("message.timestamp.type", "CreateTime"),
        ("max.message.bytes", "1048588"),
    ] {
        assert_eq!(
            config_of(plain, name),
            Some((value.to_string(), source::DEFAULT_CONFIG)),
            "{name}"
        );
    }
    // min.insync.replicas: the cluster-wide dynamic default Kafka 4.4 formats a cluster with.
    assert_eq!(
        config_of(plain, "min.insync.replicas"),
        Some(("1".into(), source::DYNAMIC_DEFAULT_BROKER_CONFIG))
    );
    // Named keys, unknown names left out; v1 has no config types.
    let named = describe_configs(
        &mut c,
        &[(2, "changelog", Some(&["retention.ms", "no.such.config"]))],
        1,
    )
    .await;
    assert_eq!(named[0].configs.len(), 1);
    assert_eq!(named[0].configs[0].config_type, 0);
    // A compacted topic refuses DeleteRecords.
    assert_eq!(
        delete_records(&mut c, "changelog", &[(0, 0)]).await,
        vec![(-1, ErrorCode::PolicyViolation.code())]
    );
    // Unknown topic, bad name, broker 1, the cluster default, another broker, other types.
    let res = describe_configs(
        &mut c,
        &[
            (2, "missing", None),
            (2, "bad name", None),
            (4, "1", Some(&["num.partitions", "log.retention.ms"])),
            (4, "", None),
            (4, "2", None),
            (4, "x", None),
        ],
        4,
    )
    .await;
    let codes: Vec<i16> = res.iter().map(|r| r.error_code).collect();
    assert_eq!(
        codes,
        vec![
            ErrorCode::UnknownTopicOrPartition.code(),
            ErrorCode::InvalidTopicException.code(),
            0,
            0,
            ErrorCode::InvalidRequest.code(),
            ErrorCode::InvalidRequest.code(),
        ]
    );
    // A resource type Kafka does not know fails every resource of the request.
    let odd = describe_configs(&mut c, &[(2, "plain", None), (99, "x", None)], 4).await;
    assert!(odd
        .iter()
        .all(|r| r.error_code == ErrorCode::InvalidRequest.code() && r.configs.is_empty()));
    // The broker logger and client metrics.
    let misc = describe_configs(&mut c, &[(8, "1", Some(&["root"])), (16, "m", None)], 4).await;
    assert_eq!(
        config_of(&misc[0], "root"),
        Some(("INFO".into(), source::DYNAMIC_BROKER_LOGGER_CONFIG))
    );
    assert_eq!(
        config_of(&misc[1], "interval.ms"),
        Some(("300000".into(), source::DEFAULT_CONFIG))
    );
    assert_eq!(
        config_of(&res[2], "num.partitions"),
        Some(("1".into(), source::DEFAULT_CONFIG))
    );
    let retention = res[2]
        .configs
        .iter()
        .find(|c| &*c.name == "log.retention.ms")
        .expect("log.retention.ms");
    assert_eq!(
        retention.value, None,
        "no default: log.retention.hours stands in"
    );
    assert_eq!(
        config_of(&res[3], "min.insync.replicas"),
        Some(("1".into(), source::DYNAMIC_DEFAULT_BROKER_CONFIG))
    );
    // A group: its configs whether it exists or not.
    let group = describe_configs(&mut c, &[(32, "any-group", None)], 4).await;
    assert_eq!(group[0].error_code, 0);
    assert_eq!(
        config_of(&group[0], "streams.num.standby.replicas"),
        Some(("0".into(), source::DEFAULT_CONFIG))
    );
    // CreateTopics refuses a config Kafka does not know.
    let req = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "odd".into(),
            num_partitions: 1,
            replication_factor: 1,
            configs: vec![CreatableTopicConfig {
                name: "no.such.config".into(),
                value: Some("1".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 1000,
        ..Default::default()
    };
    {
        let r = request(&mut c, &req, 7).await;
        assert_eq!(r.topics[0].error_code, ErrorCode::InvalidConfig.code())
    }
    r.stop().await;
}

#[tokio::test]
async fn describe_configs_survive_a_restart() {
    let dir = super::temp_dir("admin-configs");
    let mut cfg = config(&[]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    create(
        &mut c,
        "compacted",
        1,
        &[("cleanup.policy", "compact,delete")],
    )
    .await;
    drop(c);
    r.stop().await;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let res = describe_configs(&mut c, &[(2, "compacted", Some(&["cleanup.policy"]))], 4).await;
    assert_eq!(
        config_of(&res[0], "cleanup.policy"),
        Some(("compact,delete".into(), source::TOPIC_CONFIG))
    );
    // compact,delete includes delete: DeleteRecords is allowed.
    assert_eq!(
        delete_records(&mut c, "compacted", &[(0, 0)]).await,
        vec![(0, 0)]
    );
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn describe_cluster_and_topic_partitions() {
    let r = start(config(&[("a", 3), ("b", 2)])).await;
    let mut c = connect(r.addr).await;
    for v in 0..=2 {
        {
            let d = request(&mut c, &DescribeClusterRequest::default(), v).await;
            assert_eq!(d.error_code, 0);
            assert_eq!(d.controller_id, 1);
            assert_eq!(d.brokers.len(), 1);
            assert_eq!(d.brokers[0].broker_id, 1);
            assert_eq!(d.brokers[0].port, i32::from(r.addr.port()));
            assert_eq!(d.cluster_authorized_operations, i32::MIN);
            assert!(!d.cluster_id.is_empty());
        }
    }
    let controllers = DescribeClusterRequest {
        endpoint_type: 2,
        ..Default::default()
    };
    {
        let d = request(&mut c, &controllers, 1).await;
        assert_eq!(d.error_code, ErrorCode::MismatchedEndpointType.code());
        assert_eq!((d.endpoint_type, d.brokers.len()), (1, 0));
    }
    let describe =
        |topics: &[&str], limit: i32, cursor: Option<(&str, i32)>| DescribeTopicPartitionsRequest {
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
        };
    // (topic, error, partitions) and the next cursor.
    type Page = (Vec<(String, i16, Vec<i32>)>, Option<(String, i32)>);
    async fn page(c: &mut Client, req: DescribeTopicPartitionsRequest) -> Page {
        {
            let d = request(c, &req, 0).await;
            (
                d.topics
                    .iter()
                    .map(|t| {
                        (
                            t.name.as_deref().unwrap_or("").to_string(),
                            t.error_code,
                            t.partitions.iter().map(|p| p.partition_index).collect(),
                        )
                    })
                    .collect(),
                d.next_cursor
                    .map(|c| (c.topic_name.to_string(), c.partition_index)),
            )
        }
    }
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    assert_eq!(
        page(&mut c, describe(&["b", "zz", "a"], 2000, None)).await,
        (
            vec![
                ("a".into(), 0, vec![0, 1, 2]),
                ("b".into(), 0, vec![0, 1]),
                ("zz".into(), unknown, vec![])
            ],
            None
        )
    );
    assert_eq!(
        page(&mut c, describe(&[], 2, None)).await,
        (vec![("a".into(), 0, vec![0, 1])], Some(("a".into(), 2)))
    );
    assert_eq!(
        page(&mut c, describe(&[], 2, Some(("a", 2)))).await,
        (
            vec![("a".into(), 0, vec![2]), ("b".into(), 0, vec![0])],
            Some(("b".into(), 1))
        )
    );
    let (topics, _) = page(&mut c, describe(&["a"], 10, Some(("b", 0)))).await;
    assert_eq!(topics[0].1, ErrorCode::InvalidRequest.code());
    r.stop().await;
}

#[test]
fn the_admin_apis_are_advertised() {
    for key in [
        ApiKey::DeleteRecords,
        ApiKey::DescribeConfigs,
        ApiKey::DescribeCluster,
        ApiKey::DescribeTopicPartitions,
    ] {
        assert!(
            crate::router::routes::route_of(key.as_i16()).is_some(),
            "{key:?}"
        );
    }
}

/// A request of each admin API at version `v` for `every_advertised_version_encodes` (in
/// `tests`).
pub(super) fn representative(key: ApiKey, v: i16) -> kwire_protocol::generated::Request {
    match key {
        ApiKey::DeleteRecords => delete("t1", &[(0, -1), (9, 0)]).into(),
        ApiKey::DescribeConfigs => DescribeConfigsRequest {
            resources: vec![
                DescribeConfigsResource {
                    resource_type: 2,
                    resource_name: "t1".into(),
                    configuration_keys: None,
                    ..Default::default()
                },
                DescribeConfigsResource {
                    resource_type: 4,
                    resource_name: "1".into(),
                    configuration_keys: Some(vec!["num.partitions".into()]),
                    ..Default::default()
                },
            ],
            include_synonyms: true,
            ..Default::default()
        }
        .into(),
        ApiKey::DescribeCluster => DescribeClusterRequest {
            include_cluster_authorized_operations: true,
            endpoint_type: 1,
            include_fenced_brokers: v >= 2,
            ..Default::default()
        }
        .into(),
        ApiKey::DescribeTopicPartitions => DescribeTopicPartitionsRequest {
            topics: vec![TopicRequest {
                name: "t1".into(),
                ..Default::default()
            }],
            response_partition_limit: 1,
            cursor: None,
            ..Default::default()
        }
        .into(),
        other => panic!("{other:?} is not an admin API"),
    }
}

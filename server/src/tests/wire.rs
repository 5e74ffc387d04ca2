//! Framing, pipelining and the limits of a connection: request order, ApiVersions, large
//! record sets, hostile input, byte budgets, slow frames, and every advertised version.

use super::*;
use crate::context::Ctx;
use crate::reply::Reply;
use crate::router::routes::ROUTES;
use crate::router::Router;
use kwire_protocol::generated::api_versions_response::ApiVersionsResponse;
use kwire_protocol::generated::metadata_response::MetadataResponse;
use kwire_protocol::generated::produce_response::ProduceResponse;

#[tokio::test]
async fn framing_and_pipelining_keep_request_order() {
    let r = start(config(&[("t1", 1)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let api = ApiVersionsRequest {
        client_software_name: "kwire-test".into(),
        client_software_version: "1.0".into(),
        ..Default::default()
    };
    // Five requests in one buffer: the parked Fetch (300 ms) sits in the middle.
    let reqs: Vec<(Request, i16)> = vec![
        (api.into(), 3),
        (
            MetadataRequest {
                topics: Some(vec![]),
                ..Default::default()
            }
            .into(),
            12,
        ),
        (
            FindCoordinatorRequest {
                key: "g".into(),
                ..Default::default()
            }
            .into(),
            2,
        ),
        (fetch_by_id(id, 0, 0, 300).into(), 16),
        (
            MetadataRequest {
                topics: None,
                ..Default::default()
            }
            .into(),
            12,
        ),
    ];
    let mut wire = Vec::new();
    let mut expect = Vec::new();
    for (i, (body, v)) in reqs.into_iter().enumerate() {
        let key = body.api_key();
        let corr = 100 + i as i32;
        wire.extend_from_slice(&encode_request(body, v, corr, Some("t")).expect("encode"));
        expect.push((corr, key, v));
    }
    // Split inside the first frame and inside the fourth: the server reassembles.
    let cut1 = 7;
    let cut2 = wire.len() - 20;
    within(c.send_raw(&wire[..cut1])).await.expect("send");
    within(c.send_raw(&wire[cut1..cut2])).await.expect("send");
    within(c.send_raw(&wire[cut2..])).await.expect("send");
    let started = Instant::now();
    for (corr, key, v) in expect {
        let f = within(c.recv_frame()).await.expect("recv").expect("frame");
        let resp = ResponseFrame::decode(f, key, v).expect("decode");
        assert_eq!(resp.header.correlation_id, corr);
        match (key, resp.body) {
            (ApiKey::Fetch, Response::Fetch(fr)) => {
                let p = &fr.responses[0].partitions[0];
                assert_eq!(p.error_code, ErrorCode::None.code());
                assert_eq!(p.records.as_ref().map(|r| r.len()), Some(0));
                assert!(started.elapsed() >= Duration::from_millis(250));
            }
            (ApiKey::Metadata, Response::Metadata(m)) if corr == 104 => {
                assert_eq!(m.topics.len(), 1);
            }
            (k, body) => assert_eq!(k, body.api_key()),
        }
    }
    r.stop().await;
}

#[tokio::test]
async fn api_versions_v3_header_v0_v5_ids_and_v6_unsupported() {
    let r = start(config(&[])).await;
    let mut c = connect(r.addr).await;
    let api = ApiVersionsRequest {
        client_software_name: "kwire-test".into(),
        client_software_version: "1.0".into(),
        ..Default::default()
    };
    let bytes = encode_request(api.clone(), 3, 1, Some("rdkafka")).expect("encode");
    within(c.send_raw(&bytes)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    // Header v0: the correlation id, then straight into the body (error code 0), no tag byte.
    assert_eq!(&f[..4], &1i32.to_be_bytes());
    assert_eq!(&f[4..6], &0i16.to_be_bytes());
    let (_, av) = ApiVersionsResponse::decode_response_frame(f, 3).expect("decode");
    assert_eq!(av.error_code, ErrorCode::None.code());
    let keys: Vec<(i16, i16, i16)> = av
        .api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect();
    assert!(keys.contains(&(0, 3, 11)));
    assert!(keys.contains(&(3, 0, 13)));
    assert!(keys.contains(&(68, 0, 1)));
    assert!(!keys.iter().any(|k| k.0 == 71 || k.0 == 72));
    assert_eq!(keys.len(), ROUTES.len());

    // v5 (KIP-1242): ClusterId and NodeId both or neither; another cluster or node is told to
    // bootstrap again, as Kafka 4.4's KafkaApis answers.
    let cluster = crate::util::uuid_from_name("kwire-cluster").to_string();
    for (cluster_id, node_id, code) in [
        (None, -1, 0),
        (Some(cluster.as_str()), 1, 0),
        (Some("another-cluster"), 1, 129),
        (Some(cluster.as_str()), 2, 129),
        (Some(cluster.as_str()), -1, 42),
        (None, 1, 42),
    ] {
        let req = ApiVersionsRequest {
            cluster_id: cluster_id.map(|c| c.to_string().into()),
            node_id,
            ..api.clone()
        };
        let bytes = encode_request(req, 5, 9, Some("java")).expect("encode");
        within(c.send_raw(&bytes)).await.expect("send");
        let f = within(c.recv_frame()).await.expect("recv").expect("frame");
        let (_, av) = ApiVersionsResponse::decode_response_frame(f, 5).expect("decode");
        assert_eq!(av.error_code, code, "{cluster_id:?} {node_id}");
        let served = if code == 0 { ROUTES.len() } else { 0 };
        assert_eq!(av.api_keys.len(), served);
    }

    // v6: UNSUPPORTED_VERSION in the v0 layout with the ApiVersions entry; the connection stays.
    let mut raw = Vec::new();
    raw.extend_from_slice(&18i16.to_be_bytes());
    raw.extend_from_slice(&6i16.to_be_bytes());
    raw.extend_from_slice(&2i32.to_be_bytes());
    raw.extend_from_slice(&7i16.to_be_bytes());
    raw.extend_from_slice(b"rdkafka");
    raw.extend_from_slice(&[0, 1, 1, 0]); // tags, two empty compact strings, tags
    let mut framed = (raw.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&raw);
    within(c.send_raw(&framed)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    let mut expected = 2i32.to_be_bytes().to_vec();
    expected.extend_from_slice(&35i16.to_be_bytes());
    expected.extend_from_slice(&1i32.to_be_bytes());
    for v in [18i16, 0, 5] {
        expected.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(&f[..], &expected[..]);
    let (_, av) = ApiVersionsResponse::decode_response_frame(f, 0).expect("decode v0");
    assert_eq!(av.error_code, ErrorCode::UnsupportedVersion.code());
    // Still open: a v0 request is answered.
    let bytes = encode_request(ApiVersionsRequest::default(), 0, 3, None).expect("encode");
    within(c.send_raw(&bytes)).await.expect("send");
    let f = within(c.recv_frame()).await.expect("recv").expect("frame");
    let resp = ResponseFrame::decode(f, ApiKey::ApiVersions, 0).expect("decode");
    assert_eq!(resp.header.correlation_id, 3);
    r.stop().await;
}

#[tokio::test]
async fn large_record_sets_go_out_uncopied_and_intact() {
    // A batch over SPLICE_MIN is written from the log's buffer (a chunk of its own, vectored
    // write); the client must read exactly the bytes produced (offsets and leader epoch aside).
    let r = start(config(&[("big", 1)])).await;
    let id = topic_id(&r, "big");
    let mut c = connect(r.addr).await;
    let value: Vec<u8> = (0..3 * crate::net::framing::SPLICE_MIN as u32)
        .map(|i| (i % 251) as u8)
        .collect();
    let batch = make_batch(&[&value[..], b"tail"], 5_000);
    assert!(batch.len() > crate::net::framing::SPLICE_MIN);
    let p = request(&mut c, &produce("big", 0, batch.clone(), -1), 9).await;
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::None.code()
    );
    for _ in 0..2 {
        let f = request(&mut c, &fetch_by_id(id, 0, 0, 500), 16).await;
        let recs = f.responses[0].partitions[0]
            .records
            .clone()
            .expect("records");
        assert_eq!(recs.len(), batch.len());
        assert_eq!(be_i64(&recs, 0), 0);
        assert_eq!(&recs[16..], &batch[16..]);
    }
}

#[tokio::test]
async fn oversized_size_prefix_closes_without_allocating() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    // 2 GiB - 1 announced, a few bytes sent.
    within(c.send_raw(&[0x7f, 0xff, 0xff, 0xff, 0, 18, 0, 3]))
        .await
        .expect("send");
    let answer = within(c.recv_frame()).await;
    assert!(
        matches!(answer, Ok(None) | Err(_)),
        "answered a 2 GiB frame: {answer:?}"
    );
    assert!(
        LARGEST_ALLOC.load(Ordering::Relaxed) < 256 << 20,
        "no allocation anywhere near the announced size"
    );
    // Other connections are unaffected.
    assert_serves(r.addr).await;
    r.stop().await;
}

#[tokio::test]
async fn hostile_inputs_close_only_their_connection() {
    let mut cfg = config(&[("t1", 1)]);
    cfg.idle_timeout_ms = 300;
    let r = start(cfg).await;
    let hostile: Vec<Vec<u8>> = vec![
        // Garbage body under a sane size.
        vec![0, 0, 0, 12, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8],
        // An API key that is not served (PushTelemetry).
        [&[0u8, 0, 0, 10][..], &[0, 72, 0, 0, 0, 0, 0, 1, 0xff, 0xff]].concat(),
        // A served key at a version not served (Produce v2).
        [&[0u8, 0, 0, 10][..], &[0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff]].concat(),
        // Negative size.
        vec![0xff, 0xff, 0xff, 0xfe],
        // A frame too short for a header.
        vec![0, 0, 0, 2, 0, 1],
        // A truncated frame, then silence: closed by the idle timeout.
        vec![0, 0, 1, 0, 0, 3, 0, 12],
    ];
    for bytes in hostile {
        let mut c = connect(r.addr).await;
        within(c.send_raw(&bytes)).await.expect("send");
        let answer = within(c.recv_frame()).await;
        assert!(
            matches!(answer, Ok(None) | Err(_)),
            "answered hostile input {bytes:?}: {answer:?}"
        );
        // (A fresh connection each time: the short idle timeout would close a kept one.)
        assert_serves(r.addr).await;
    }
    // Many idle connections: accepted, then closed by the idle timeout; the server still serves.
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(connect(r.addr).await);
    }
    for c in &mut idle {
        assert!(matches!(within(c.recv_frame()).await, Ok(None) | Err(_)));
    }
    drop(idle);
    assert_serves(r.addr).await;
    r.stop().await;
}

/// Every advertised (API, version) answers a representative request with a response that
/// encodes at that version.
#[tokio::test]
async fn every_advertised_version_encodes() {
    let mut cfg = config(&[("t1", 2)]);
    cfg.heartbeat_interval_ms = Some(1000);
    let router = Router::open(&cfg).expect("open");
    let id = router.state().topics.get("t1").expect("t1").id;
    for route in ROUTES {
        let key = &route.api;
        for v in route.min..=route.max {
            let body: Request = match key {
                ApiKey::Produce => produce("t1", 0, make_batch(&[b"x"], 1), -1).into(),
                ApiKey::Fetch => {
                    let mut f = fetch_by_id(id, 0, 0, 0);
                    f.topics[0].topic = "t1".into();
                    if v < 13 {
                        f.topics[0].topic_id = Uuid::ZERO;
                    } else {
                        f.topics[0].topic = "".into();
                    }
                    if v < 4 {
                        f.isolation_level = 0;
                    }
                    f.into()
                }
                ApiKey::ListOffsets => ListOffsetsRequest {
                    replica_id: -1,
                    topics: vec![ListOffsetsTopic {
                        name: "t1".into(),
                        partitions: vec![ListOffsetsPartition {
                            partition_index: 0,
                            timestamp: -1,
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::Metadata => MetadataRequest {
                    topics: Some(vec![MetadataRequestTopic {
                        name: Some("t1".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetCommit => OffsetCommitRequest {
                    group_id: "g".into(),
                    topics: vec![OffsetCommitRequestTopic {
                        name: "t1".into(),
                        partitions: vec![OffsetCommitRequestPartition {
                            partition_index: 0,
                            committed_offset: 1,
                            committed_metadata: Some("".into()),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetFetch if v >= 8 => OffsetFetchRequest {
                    groups: vec![OffsetFetchRequestGroup {
                        group_id: "g".into(),
                        topics: None,
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::OffsetFetch => OffsetFetchRequest {
                    group_id: "g".into(),
                    topics: Some(vec![OffsetFetchRequestTopic {
                        name: "t1".into(),
                        partition_indexes: vec![0].into(),
                        ..Default::default()
                    }]),
                    ..Default::default()
                }
                .into(),
                ApiKey::FindCoordinator if v >= 4 => FindCoordinatorRequest {
                    coordinator_keys: vec!["g".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::FindCoordinator => FindCoordinatorRequest {
                    key: "g".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::DescribeGroups => DescribeGroupsRequest {
                    groups: vec!["g".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::ListGroups => ListGroupsRequest::default().into(),
                // Classic requests for a group that does not exist are answered at once.
                ApiKey::JoinGroup => JoinGroupRequest {
                    group_id: "no-such-group".into(),
                    session_timeout_ms: 10_000,
                    rebalance_timeout_ms: 10_000,
                    member_id: "m".into(),
                    protocol_type: "consumer".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::SyncGroup => SyncGroupRequest {
                    group_id: "no-such-group".into(),
                    member_id: "m".into(),
                    protocol_type: Some("consumer".into()),
                    protocol_name: Some("range".into()),
                    ..Default::default()
                }
                .into(),
                ApiKey::Heartbeat => HeartbeatRequest {
                    group_id: "no-such-group".into(),
                    member_id: "m".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::LeaveGroup => LeaveGroupRequest {
                    group_id: "no-such-group".into(),
                    member_id: if v < 3 { "m" } else { "" }.into(),
                    members: if v >= 3 {
                        vec![MemberIdentity {
                            member_id: "m".into(),
                            ..Default::default()
                        }]
                    } else {
                        Vec::new()
                    },
                    ..Default::default()
                }
                .into(),
                ApiKey::DeleteGroups => DeleteGroupsRequest {
                    groups_names: vec!["no-such-group".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::ApiVersions => ApiVersionsRequest {
                    client_software_name: "a".into(),
                    client_software_version: "1".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::CreateTopics => CreateTopicsRequest {
                    topics: vec![CreatableTopic {
                        name: format!("created-{v}").into(),
                        num_partitions: 1,
                        replication_factor: 1,
                        ..Default::default()
                    }],
                    ..Default::default()
                }
                .into(),
                ApiKey::ConsumerGroupHeartbeat => {
                    let member = if v == 0 { "" } else { "member-for-v1-xxxxxx" };
                    join(&format!("cg{v}"), member, &["t1"]).into()
                }
                ApiKey::ConsumerGroupDescribe => ConsumerGroupDescribeRequest {
                    group_ids: vec!["cg0".into(), "missing".into()],
                    ..Default::default()
                }
                .into(),
                ApiKey::StreamsGroupHeartbeat => StreamsGroupHeartbeatRequest {
                    group_id: "sg".into(),
                    member_id: "m".into(),
                    ..Default::default()
                }
                .into(),
                ApiKey::InitProducerId => init_producer_id(None, -1, -1).into(),
                ApiKey::StreamsGroupDescribe => StreamsGroupDescribeRequest {
                    group_ids: vec!["sg".into()],
                    include_topology_description: v >= 1,
                    ..Default::default()
                }
                .into(),
                ApiKey::StreamsGroupTopologyDescriptionUpdate => {
                    StreamsGroupTopologyDescriptionUpdateRequest {
                        group_id: "sg".into(),
                        member_id: "m".into(),
                        ..Default::default()
                    }
                    .into()
                }
                ApiKey::DeleteRecords
                | ApiKey::DescribeConfigs
                | ApiKey::DescribeCluster
                | ApiKey::DescribeTopicPartitions => admin::representative(*key, v),
                other => {
                    panic!("{other:?} is in the route table but has no representative request here")
                }
            };
            // The request itself must be valid at v (the client side of the check).
            let wire = encode_request(body.clone(), v, 1, Some("c"))
                .unwrap_or_else(|e| panic!("{key:?} v{v} request: {e}"));
            assert!(!wire.is_empty());
            let ctx = Ctx {
                version: v,
                client_id: "c",
                client_host: "/127.0.0.1",
                peer: "127.0.0.1:1".parse().expect("addr"),
                now: crate::util::now_ms(),
            };
            let resp = answered_now(router.handle(&ctx, body))
                .unwrap_or_else(|e| panic!("{key:?} v{v}: {e}"));
            encode_response(resp, 1, v).unwrap_or_else(|e| panic!("{key:?} v{v} response: {e}"));
        }
    }
}

/// The response of a reply given at once, or what the reply is instead.
fn answered_now(reply: Reply) -> Result<Response, String> {
    match reply {
        Reply::Respond(resp) => Ok(resp),
        Reply::Silent => Err("answered nothing".into()),
        Reply::Park(_) => Err("held (a parked Fetch)".into()),
        Reply::Wait(_) => Err("waiting for its group".into()),
        Reply::Close(why) => Err(format!("closed: {why}")),
    }
}

/// A connection whose writer is held by a parked Fetch stops reading once its queued answers
/// fill the byte budget (the connection's, or the server's), and catches up in order.
#[tokio::test]
async fn queued_answer_bytes_are_bounded() {
    for (per_conn, total) in [(64 << 10, 256 << 20), (4 << 20, 64 << 10)] {
        let mut cfg = config(&[("data", 1), ("empty", 1)]);
        cfg.max_queued_bytes = per_conn;
        cfg.max_queued_bytes_total = total;
        let r = start(cfg).await;
        let data_id = topic_id(&r, "data");
        let empty_id = topic_id(&r, "empty");
        let mut producer = connect(r.addr).await;
        let value = vec![7u8; 40 << 10];
        assert_eq!(
            produce_result(
                request(
                    &mut producer,
                    &produce("data", 0, make_batch(&[&value], 1), 1),
                    9
                )
                .await
            )
            .0,
            ErrorCode::None.code()
        );
        let base = r.shared.stats.requests.load(Ordering::Relaxed);
        let mut pauses = r.shared.stats.read_pauses.subscribe();
        let mut c = connect(r.addr).await;
        // A Fetch that is held (nothing to read), then ten whose ~40 KiB answers are ready.
        let mut sent = vec![within(c.send(&fetch_by_id(empty_id, 0, 0, 15_000), 16))
            .await
            .expect("send")];
        for _ in 0..10 {
            sent.push(
                within(c.send(&fetch_by_id(data_id, 0, 0, 0), 16))
                    .await
                    .expect("send"),
            );
        }
        within(pauses.wait_for(|n| *n >= 1)).await.expect("a pause");
        // The held Fetch, one queued answer (40 KiB of the 64 KiB budget) and the one waiting
        // for room: the other eight are not read.
        assert_eq!(r.shared.stats.requests.load(Ordering::Relaxed) - base, 3);
        // (A waiting reservation may already hold part of what it waits for.)
        let queued = total - r.shared.queued.available_permits();
        assert!((40 << 10..=64 << 10).contains(&queued), "queued {queued}");
        // Records for the held Fetch: everything is answered, in order.
        assert_eq!(
            produce_result(
                request(
                    &mut producer,
                    &produce("empty", 0, make_batch(&[b"x"], 1), 1),
                    9
                )
                .await
            )
            .0,
            ErrorCode::None.code()
        );
        for (i, sent) in sent.into_iter().enumerate() {
            let f = within(c.recv(sent)).await.expect("answer");
            let p = &f.responses[0].partitions[0];
            assert_eq!(p.error_code, ErrorCode::None.code());
            let want = if i == 0 { 0..1024 } else { 40 << 10..50 << 10 };
            assert!(want.contains(&p.records.as_ref().expect("records").len()));
        }
        assert_eq!(r.shared.stats.requests.load(Ordering::Relaxed) - base, 12);
        assert_eq!(r.shared.queued.available_permits(), total);
        drop(c);
        r.stop().await;
    }
}

#[tokio::test]
async fn a_trickle_of_bytes_does_not_keep_an_incomplete_frame_alive() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(&[("t1", 1)]);
    cfg.idle_timeout_ms = 400;
    let r = start(cfg).await;
    let stream = within(tokio::net::TcpStream::connect(r.addr))
        .await
        .expect("connect");
    let (mut rd, mut wr) = stream.into_split();
    // A frame of 1000 bytes, of which one byte comes every 50 ms (far below the idle timeout
    // between bytes, but the frame never completes in time).
    wr.write_all(&1000u32.to_be_bytes()).await.expect("send");
    let started = Instant::now();
    let trickle = async {
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if wr.write_all(&[0]).await.is_err() {
                break;
            }
        }
    };
    let mut byte = [0u8; 1];
    tokio::select! {
        r = rd.read(&mut byte) => assert!(matches!(r, Ok(0) | Err(_)), "closed, not answered"),
        _ = trickle => panic!("the connection was kept open by a trickle of bytes"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    r.stop().await;
}

/// librdkafka 2.16's all-topics Metadata v13 (AdminClient.list_topics() of confluent-kafka
/// 2.16) carries 3 bytes after its body; Kafka 4.4 answers it, and so does kwire-server: every
/// topic, and the connection stays open.
#[tokio::test]
async fn a_request_with_trailing_bytes_is_answered_and_the_connection_stays() {
    let r = start(config(&[("t1", 2), ("t2", 1)])).await;
    let mut c = connect(r.addr).await;
    let hex = "0003000d00000003000772646b61666b610000000000010000";
    let body: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    let mut framed = (body.len() as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&body);
    within(c.send_raw(&framed)).await.expect("send");
    let f = within(c.recv_frame())
        .await
        .expect("recv")
        .expect("an answer");
    let (header, m) = MetadataResponse::decode_response_frame(f, 13).expect("Metadata v13");
    assert_eq!(header.correlation_id, 3);
    let mut names: Vec<&str> = m.topics.iter().filter_map(|t| t.name.as_deref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["t1", "t2"]);
    // Still open: the next request is answered.
    let m = request(&mut c, &MetadataRequest::default(), 12).await;
    assert_eq!(m.brokers.len(), 1);
    r.stop().await;
}

/// The frame of a Produce v9 to `t1`-0 of one batch with a `value_len`-byte value, size prefix
/// included.
fn large_produce_frame(value_len: usize, correlation_id: i32) -> Vec<u8> {
    let value = vec![7u8; value_len];
    let req = produce("t1", 0, make_batch(&[&value], 1), 1);
    encode_request(req, 9, correlation_id, Some("big"))
        .expect("encode")
        .to_vec()
}

/// Incomplete frames are bounded over all connections together: with a budget that holds one
/// of two partial 100 KiB frames, the second connection's reader waits (it reads nothing more)
/// while the first holds its bytes; once the first frame completes and is answered, the second
/// goes on and is answered too.
#[tokio::test]
async fn buffered_request_bytes_are_bounded_across_connections() {
    let mut cfg = config(&[("t1", 1)]);
    cfg.max_frame_bytes = 128 << 10;
    cfg.max_buffered_request_bytes = 160 << 10;
    let budget = cfg.max_buffered_request_bytes;
    let r = start(cfg).await;
    let first = large_produce_frame(100 << 10, 1);
    let second = large_produce_frame(100 << 10, 2);
    let part = 90 << 10;
    let mut a = connect(r.addr).await;
    let mut b = connect(r.addr).await;
    let mut waits = r.shared.stats.buffer_waits.subscribe();
    within(a.send_raw(&first[..part])).await.expect("send");
    // Wait until the server holds A's 90 KiB.
    let held = || budget - r.shared.buffered.available_permits();
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    for _ in 0..2000 {
        if held() >= part {
            break;
        }
        tick.tick().await;
    }
    assert!(held() >= part, "held {}", held());
    within(b.send_raw(&second[..part])).await.expect("send");
    within(waits.wait_for(|n| *n >= 1))
        .await
        .expect("B's reader waits for the budget");
    assert!(held() <= budget);
    // A's frame completes: answered, and its bytes given back; then B's.
    within(a.send_raw(&first[part..])).await.expect("send");
    let f = within(a.recv_frame())
        .await
        .expect("recv")
        .expect("A's answer");
    let (_, p) = ProduceResponse::decode_response_frame(f, 9).expect("decode");
    assert_eq!(produce_result(p), (0, 0, 0));
    within(b.send_raw(&second[part..])).await.expect("send");
    let f = within(b.recv_frame())
        .await
        .expect("recv")
        .expect("B's answer");
    let (_, p) = ProduceResponse::decode_response_frame(f, 9).expect("decode");
    assert_eq!(produce_result(p), (0, 1, 0));
    assert!(held() <= budget);
    r.stop().await;
}

/// A frame not complete within `--request-timeout-ms` of its first byte closes its connection,
/// though every byte comes well within the idle timeout; so does a frame that waits that long
/// for the buffered-request budget.
#[tokio::test]
async fn a_frame_not_complete_within_the_request_timeout_closes_its_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut cfg = config(&[("t1", 1)]);
    cfg.idle_timeout_ms = 60_000;
    cfg.request_timeout_ms = 300;
    cfg.max_frame_bytes = 128 << 10;
    cfg.max_buffered_request_bytes = 160 << 10;
    let r = start(cfg).await;
    // A trickle: one byte every 20 ms, never a whole frame.
    let stream = within(tokio::net::TcpStream::connect(r.addr))
        .await
        .expect("connect");
    let (mut rd, mut wr) = stream.into_split();
    wr.write_all(&1000u32.to_be_bytes()).await.expect("send");
    let trickle = async {
        for _ in 0..500 {
            tokio::time::sleep(Duration::from_millis(20)).await;
            if wr.write_all(&[0]).await.is_err() {
                break;
            }
        }
    };
    let mut byte = [0u8; 1];
    tokio::select! {
        r = rd.read(&mut byte) => assert!(matches!(r, Ok(0) | Err(_)), "closed, not answered"),
        _ = trickle => panic!("the connection was kept open by a trickle of bytes"),
    }
    // A frame holding most of the budget, then one that cannot get its room: the second waits,
    // and is closed at its request timeout; the first, also incomplete, is closed too.
    let mut a = connect(r.addr).await;
    let mut b = connect(r.addr).await;
    let frame = large_produce_frame(120 << 10, 1);
    within(a.send_raw(&frame[..110 << 10])).await.expect("send");
    within(b.send_raw(&frame[..90 << 10])).await.expect("send");
    for c in [&mut a, &mut b] {
        let end = within(c.recv_frame()).await;
        assert!(matches!(end, Ok(None) | Err(_)), "closed: {end:?}");
    }
    assert!(
        *r.shared.stats.buffer_waits.borrow() >= 1,
        "B waited for the budget"
    );
    // Everything given back: a new connection is served.
    assert_serves(r.addr).await;
    r.stop().await;
}

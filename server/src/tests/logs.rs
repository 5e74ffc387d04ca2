//! Topics and partition logs over the wire: Metadata, Produce, Fetch, ListOffsets,
//! CreateTopics, auto-creation, batch validation and compression.

use super::*;

#[tokio::test]
async fn metadata_by_name_and_by_id() {
    let r = start(config(&[("t1", 3), ("t2", 1)])).await;
    let id = topic_id(&r, "t1");
    assert_ne!(id, Uuid::ZERO);
    assert_eq!(id, crate::util::uuid_from_name("t1"));
    let mut c = connect(r.addr).await;
    for v in [12i16, 13] {
        // Brokers only.
        let m = request(
            &mut c,
            &MetadataRequest {
                topics: Some(vec![]),
                ..Default::default()
            },
            v,
        )
        .await;
        assert_eq!(m.brokers.len(), 1);
        assert_eq!(m.brokers[0].node_id, 1);
        assert_eq!(&*m.brokers[0].host, "127.0.0.1");
        assert_eq!(m.brokers[0].port, i32::from(r.addr.port()));
        assert_eq!(m.controller_id, 1);
        assert!(m.topics.is_empty());
        // Null: every topic.
        let m = request(
            &mut c,
            &MetadataRequest {
                topics: None,
                ..Default::default()
            },
            v,
        )
        .await;
        assert_eq!(m.topics.len(), 2);
        // By name.
        let m = request(
            &mut c,
            &MetadataRequest {
                topics: Some(vec![
                    MetadataRequestTopic {
                        name: Some("t1".into()),
                        ..Default::default()
                    },
                    MetadataRequestTopic {
                        name: Some("nope".into()),
                        ..Default::default()
                    },
                ]),
                // Not auto-created (see metadata_creates_unknown_topics_and_produce_does_not).
                allow_auto_topic_creation: false,
                ..Default::default()
            },
            v,
        )
        .await;
        let t = &m.topics[0];
        assert_eq!(
            (t.error_code, t.name.as_deref(), t.topic_id),
            (0, Some("t1"), id)
        );
        assert_eq!(t.partitions.len(), 3);
        for (i, p) in t.partitions.iter().enumerate() {
            assert_eq!(p.partition_index, i as i32);
            assert_eq!((p.leader_id, p.leader_epoch), (1, 0));
            assert_eq!(p.replica_nodes.to_vec(), vec![1]);
            assert_eq!(p.isr_nodes.to_vec(), vec![1]);
        }
        assert_eq!(
            m.topics[1].error_code,
            ErrorCode::UnknownTopicOrPartition.code()
        );
        // By id: the same id is echoed, with the name; an unknown id has a null name.
        let unknown = Uuid::from_u128(0x1234);
        let m = request(
            &mut c,
            &MetadataRequest {
                topics: Some(vec![
                    MetadataRequestTopic {
                        topic_id: id,
                        name: None,
                        ..Default::default()
                    },
                    MetadataRequestTopic {
                        topic_id: unknown,
                        name: None,
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            },
            v,
        )
        .await;
        assert_eq!(
            (
                m.topics[0].error_code,
                m.topics[0].name.as_deref(),
                m.topics[0].topic_id
            ),
            (0, Some("t1"), id)
        );
        assert_eq!(m.topics[0].partitions.len(), 3);
        assert_eq!(
            (
                m.topics[1].error_code,
                m.topics[1].name.as_deref(),
                m.topics[1].topic_id
            ),
            (ErrorCode::UnknownTopicId.code(), None, unknown)
        );
    }
    r.stop().await;
}

#[tokio::test]
async fn produce_then_fetch_rewrites_offsets() {
    let r = start(config(&[("t1", 2)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let b1 = make_batch(&[b"a", b"b", b"c"], 1_000);
    let b2 = make_batch(&[b"d"], 2_000);
    for (batch, base) in [(b1.clone(), 0), (b2.clone(), 3)] {
        let p = request(&mut c, &produce("t1", 1, batch, -1), 9).await;
        let pr = &p.responses[0].partition_responses[0];
        assert_eq!(
            (pr.error_code, pr.base_offset),
            (ErrorCode::None.code(), base)
        );
    }
    // Unknown topic and a corrupt batch.
    let p = request(&mut c, &produce("nope", 0, b1.clone(), 1), 11).await;
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::UnknownTopicOrPartition.code()
    );
    let mut bad = b1.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let p = request(&mut c, &produce("t1", 1, bad, 1), 3).await;
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::CorruptMessage.code()
    );

    // By topic id (v16): both batches, base offsets 0 and 3.
    let f = request(&mut c, &fetch_by_id(id, 1, 0, 500), 16).await;
    assert_eq!(f.session_id, 0);
    assert_eq!(f.responses[0].topic_id, id);
    let p = &f.responses[0].partitions[0];
    assert_eq!(
        (
            p.error_code,
            p.high_watermark,
            p.last_stable_offset,
            p.log_start_offset
        ),
        (0, 4, 4, 0)
    );
    let recs = p.records.clone().expect("records");
    assert_eq!(recs.len(), b1.len() + b2.len());
    assert_eq!(be_i64(&recs, 0), 0);
    assert_eq!(be_i64(&recs, b1.len()), 3);
    assert_eq!(
        &recs[8..],
        &{
            let mut x = b1[8..].to_vec();
            x[4..8].copy_from_slice(&0i32.to_be_bytes()); // partition leader epoch rewritten
            x.extend_from_slice(&recs[b1.len()..]);
            x
        }[..]
    );
    // By name (v11), from offset 3: only the second batch.
    let mut by_name = fetch_by_id(Uuid::ZERO, 1, 3, 500);
    by_name.topics[0].topic = "t1".into();
    let f = request(&mut c, &by_name, 11).await;
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(recs.len(), b2.len());
    assert_eq!(be_i64(&recs, 0), 3);
    // Past the high watermark.
    by_name.topics[0].partitions[0].fetch_offset = 9;
    let f = request(&mut c, &by_name, 11).await;
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::OffsetOutOfRange.code()
    );
    // Unknown topic id.
    let f = request(&mut c, &fetch_by_id(Uuid::from_u128(9), 0, 0, 500), 13).await;
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::UnknownTopicId.code()
    );
    // ListOffsets: latest, earliest, by timestamp.
    let lo = |ts: i64| ListOffsetsRequest {
        replica_id: -1,
        isolation_level: 1,
        topics: vec![ListOffsetsTopic {
            name: "t1".into(),
            partitions: vec![ListOffsetsPartition {
                partition_index: 1,
                timestamp: ts,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    for (ts, offset) in [
        (-1, 4),
        (-2, 0),
        (1_001, 1),
        (1_999, 3),
        (9_999, -1),
        (-3, 3),
    ] {
        let l = request(&mut c, &lo(ts), 7).await;
        let p = &l.topics[0].partitions[0];
        assert_eq!(
            (p.error_code, p.offset),
            (ErrorCode::None.code(), offset),
            "timestamp {ts}"
        );
    }
    // acks=0 gets no answer: the next answer is the Metadata sent after it.
    let corr = within(c.send_unanswered(&produce("t1", 0, b2.clone(), 0), 9))
        .await
        .expect("send");
    let all = MetadataRequest {
        topics: None,
        ..Default::default()
    };
    let sent = within(c.send(&all, 12)).await.expect("send");
    assert_eq!(sent.correlation_id, corr + 1);
    let m = within(c.recv(sent)).await.expect("the Metadata answer");
    assert_eq!(m.topics.len(), 1);
    assert_eq!(
        r.state().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        1
    );
    r.stop().await;
}

#[tokio::test]
async fn parked_fetch_wakes_on_produce() {
    let r = start(config(&[("t1", 1)])).await;
    let id = topic_id(&r, "t1");
    let mut consumer = connect(r.addr).await;
    let mut producer = connect(r.addr).await;
    let started = Instant::now();
    let held = within(consumer.send(&fetch_by_id(id, 0, 0, 15_000), 16))
        .await
        .expect("send");
    // Nothing to return yet: the Fetch is held.
    assert!(
        tokio::time::timeout(Duration::from_millis(200), consumer.recv_frame())
            .await
            .is_err(),
        "an empty Fetch must be held"
    );
    // Another connection is not blocked by it.
    let p = request(
        &mut producer,
        &produce("t1", 0, make_batch(&[b"hello"], 5), 1),
        9,
    )
    .await;
    assert_eq!(
        p.responses[0].partition_responses[0].error_code,
        ErrorCode::None.code()
    );
    let f = within(consumer.recv(held)).await.expect("the Fetch answer");
    let p = &f.responses[0].partitions[0];
    assert_eq!(p.high_watermark, 1);
    assert!(!p.records.as_ref().expect("records").is_empty());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woken by the produce"
    );
    r.stop().await;
}

#[tokio::test]
async fn create_topics_limits_and_colliding_names() {
    let r = start(config(&[("a_b", 1)])).await;
    let mut c = connect(r.addr).await;
    for (name, parts, code, text) in [
        (
            "big",
            i32::MAX,
            ErrorCode::InvalidPartitions.code(),
            "limit of 100000",
        ),
        (
            "zero",
            0,
            ErrorCode::InvalidPartitions.code(),
            "non-positive",
        ),
        (
            "a.b",
            1,
            ErrorCode::InvalidTopicException.code(),
            "collides with existing topic: a_b",
        ),
        ("ok.1", 100_000, ErrorCode::None.code(), ""),
    ] {
        let ct = request(&mut c, &create_topic(name, parts), 7).await;
        let t = &ct.topics[0];
        assert_eq!(t.error_code, code, "{name}: {:?}", t.error_message);
        if code != ErrorCode::None.code() {
            let m = t.error_message.as_deref().unwrap_or("");
            assert!(m.contains(text), "{name}: {m}");
        }
    }
    // Two colliding names in one request: the second collides with the first.
    let mut req = create_topic("x.y", 1);
    req.topics.push(CreatableTopic {
        name: "x_y".into(),
        num_partitions: 1,
        replication_factor: -1,
        ..Default::default()
    });
    let ct = request(&mut c, &req, 7).await;
    assert_eq!(
        (ct.topics[0].error_code, ct.topics[1].error_code),
        (
            ErrorCode::None.code(),
            ErrorCode::InvalidTopicException.code()
        )
    );
    // A batch whose record count is nonsense, over the wire.
    let mut bad = make_batch(&[b"a"], 1);
    bad[57..61].copy_from_slice(&5i32.to_be_bytes());
    let crc = crc32c(&bad[21..]);
    bad[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        produce_result(request(&mut c, &produce("a_b", 0, bad, 1), 9).await).0,
        ErrorCode::InvalidRecord.code()
    );
    r.stop().await;
}

#[tokio::test]
async fn metadata_creates_unknown_topics_and_produce_does_not() {
    let mut cfg = config(&[("a.b", 1)]);
    cfg.default_partitions = 3;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    // A produce to an unknown topic: UNKNOWN_TOPIC_OR_PARTITION, and it is not created.
    assert_eq!(
        produce_result(request(&mut c, &produce("fresh", 0, make_batch(&[b"x"], 1), -1), 9).await)
            .0,
        unknown
    );
    assert!(r.state().topics.get("fresh").is_none());
    // AllowAutoTopicCreation=false: not created.
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["fresh"], false), 12).await,
        vec![(unknown, 0)]
    );
    assert!(r.state().topics.get("fresh").is_none());
    // Allowed: created with --default-partitions, answered UNKNOWN_TOPIC_OR_PARTITION in the
    // same response as Kafka's KRaft brokers do; an illegal name is INVALID_TOPIC_EXCEPTION; a
    // colliding one is not created.
    assert_eq!(
        metadata_codes(
            &mut c,
            metadata_for(&["fresh", "bad name", "a_b"], true),
            12
        )
        .await,
        vec![
            (unknown, 0),
            (ErrorCode::InvalidTopicException.code(), 0),
            (unknown, 0)
        ]
    );
    assert!(r.state().topics.get("a_b").is_none());
    // The retry finds it.
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["fresh"], true), 12).await,
        vec![(0, 3)]
    );
    assert_eq!(
        produce_result(request(&mut c, &produce("fresh", 2, make_batch(&[b"x"], 1), -1), 9).await),
        (0, 0, 0)
    );
    // v0-3 have no AllowAutoTopicCreation field: they create, as Kafka (its default is true).
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["old-client"], true), 1).await,
        vec![(unknown, 0)]
    );
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["old-client"], true), 1).await,
        vec![(0, 3)]
    );
    r.stop().await;

    // Turned off on the server: never created.
    let mut cfg = config(&[]);
    cfg.auto_create_topics = false;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    for _ in 0..2 {
        assert_eq!(
            metadata_codes(&mut c, metadata_for(&["fresh"], true), 12).await,
            vec![(unknown, 0)]
        );
    }
    assert!(r.state().topics.is_empty());
    r.stop().await;
}

#[tokio::test]
async fn produced_batches_are_validated_with_kafkas_error_codes() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    let good = make_batch(&[b"a", b"b", b"c"], 1_000);
    let code = |resp: ProduceResponse| produce_result(resp).0;
    // The CRC-32C covers attributes to the end: one flipped value bit is CORRUPT_MESSAGE.
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 2] ^= 0x10;
    assert_eq!(
        code(request(&mut c, &produce("t1", 0, flipped, -1), 9).await),
        ErrorCode::CorruptMessage.code()
    );
    // A record count that is not lastOffsetDelta + 1, with a valid CRC: INVALID_RECORD.
    let mut count = good.clone();
    count[57..61].copy_from_slice(&4i32.to_be_bytes());
    let crc = crc32c(&count[21..]);
    count[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        code(request(&mut c, &produce("t1", 0, count, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // Magic 1 in a Produce v3+: INVALID_RECORD.
    let mut magic = good.clone();
    magic[16] = 1;
    assert_eq!(
        code(request(&mut c, &produce("t1", 0, magic, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // Two batches in one partition's records: INVALID_RECORD (exactly one in v3+).
    let mut two = good.clone();
    two.extend_from_slice(&good);
    assert_eq!(
        code(request(&mut c, &produce("t1", 0, two, -1), 9).await),
        ErrorCode::InvalidRecord.code()
    );
    // zstd needs Produce v7+ (KIP-110): UNSUPPORTED_COMPRESSION_TYPE below.
    let zstd = with_attributes(good.clone(), 4);
    assert_eq!(
        code(request(&mut c, &produce("t1", 0, zstd, -1), 6).await),
        ErrorCode::UnsupportedCompressionType.code()
    );
    // Codec ids 5-7: UNKNOWN_SERVER_ERROR, as Kafka.
    assert_eq!(
        code(
            request(
                &mut c,
                &produce("t1", 0, with_attributes(good.clone(), 6), -1),
                9
            )
            .await
        ),
        ErrorCode::UnknownServerError.code()
    );
    // Nothing was stored; the good batch still is.
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 0, good, -1), 9).await),
        (0, 0, 0)
    );
    r.stop().await;
}

#[tokio::test]
async fn compressed_batches_are_checked_and_served_unchanged() {
    use kwire_protocol::records::{BatchBuilder, Compression};
    let mut cfg = config(&[("t1", 1)]);
    // Records may decompress to at most the largest frame: 64 KiB here.
    cfg.max_frame_bytes = 64 << 10;
    let r = start(cfg).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let mut sent = Vec::new();
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let mut b = BatchBuilder::new(codec);
        for i in 0..20u8 {
            b.append(
                1_000 + i64::from(i),
                Some(&[i][..]),
                Some(&[b'v'; 100][..]),
                &[(b"h", None)],
            )
            .expect("append");
        }
        let bytes = b.build().expect("build").to_vec();
        let base = 20 * sent.len() as i64;
        assert_eq!(
            produce_result(request(&mut c, &produce("t1", 0, bytes.clone(), -1), 9).await),
            (0, base, 0),
            "{codec:?}"
        );
        sent.push(bytes);
    }
    // Served back as sent (still compressed), but for base offset and leader epoch.
    let f = request(&mut c, &fetch_by_id(id, 0, 0, 0), 16).await;
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(batch_offsets(&recs), vec![0, 20, 40, 60]);
    let mut at = 0;
    for s in &sent {
        assert_eq!(&recs[at + 16..at + s.len()], &s[16..]);
        at += s.len();
    }
    // ListOffsets by timestamp reads inside a compressed batch: timestamp 1005 is offset 5.
    let l = request(&mut c, &list_offset("t1", 0, 1_005, 7), 7).await;
    let p = &l.topics[0].partitions[0];
    assert_eq!((p.error_code, p.offset, p.timestamp), (0, 5, 1_005));
    // Bytes that are not gzip: UNKNOWN_SERVER_ERROR, as Kafka's "Failed to decompress".
    let mut garbage = sent[0].clone();
    for x in &mut garbage[61..] {
        *x = 0x5a;
    }
    let crc = crc32c(&garbage[21..]);
    garbage[17..21].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 0, garbage, -1), 9).await).0,
        ErrorCode::UnknownServerError.code()
    );
    // A zstd batch of a few hundred bytes inflating past the 64 KiB limit: MESSAGE_TOO_LARGE.
    let mut bomb = BatchBuilder::new(Compression::Zstd);
    bomb.append(1, None, Some(&vec![0u8; 1 << 20]), &[])
        .expect("append");
    let bomb = bomb.build().expect("build").to_vec();
    assert!(bomb.len() < 1024, "{} bytes", bomb.len());
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 0, bomb, -1), 9).await).0,
        ErrorCode::MessageTooLarge.code()
    );
    assert_eq!(
        r.state().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        80
    );
    r.stop().await;
}

/// A Fetch that names no partition (a consumer's last one after `unsubscribe()`) is answered at
/// once, as Kafka answers it, not after its MaxWaitMs: the answers pipelined behind it on the
/// same connection come before the test's deadline, far below the Fetch's 60 s wait.
#[tokio::test]
async fn a_fetch_that_asks_for_nothing_is_answered_at_once() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    let nothing = FetchRequest {
        max_wait_ms: 60_000,
        min_bytes: 1,
        max_bytes: 50 << 20,
        session_id: 0,
        session_epoch: -1,
        ..Default::default()
    };
    let fetch = within(c.send(&nothing, 16)).await.expect("send");
    let after = within(c.send(&MetadataRequest::default(), 12))
        .await
        .expect("send");
    let f = within(c.recv(fetch)).await.expect("the Fetch answer");
    assert_eq!((f.error_code, f.session_id), (0, 0));
    assert!(f.responses.is_empty());
    let m = within(c.recv(after)).await.expect("the Metadata answer");
    assert_eq!(m.brokers.len(), 1);
    r.stop().await;
}

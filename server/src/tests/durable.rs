//! The durable log through the server: restarts, torn tails, failed writes, offsets and
//! producer ids that are never reused, the data directory's lock.

use super::*;

#[tokio::test]
async fn durable_state_survives_restart_and_a_torn_tail() {
    let dir = temp_dir("replay");
    let mut c1 = config(&[("t1", 2)]);
    c1.data_dir = Some(dir.clone());
    c1.heartbeat_interval_ms = Some(250);
    let r = start(c1.clone()).await;
    let mut c = connect(r.addr).await;
    // A member joins and acknowledges its assignment.
    let hb = request(&mut c, &join("g", "member-1-aaaaaaaaaaaa", &["t1"]), 1).await;
    assert_eq!(hb.error_code, ErrorCode::None.code());
    assert_eq!(hb.heartbeat_interval_ms, 250);
    let epoch = hb.member_epoch;
    let assignment = hb.assignment.expect("assignment");
    let ack = ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "member-1-aaaaaaaaaaaa".into(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        topic_partitions: Some(
            assignment
                .topic_partitions
                .iter()
                .map(|t| cghb::TopicPartitions {
                    topic_id: t.topic_id,
                    partitions: t.partitions.clone(),
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    };
    let hb = request(&mut c, &ack, 1).await;
    assert_eq!(hb.error_code, ErrorCode::None.code());
    // A commit at the member's epoch, and one at a stale epoch.
    let commit = |e: i32, offset: i64| OffsetCommitRequest {
        group_id: "g".into(),
        generation_id_or_member_epoch: e,
        member_id: "member-1-aaaaaaaaaaaa".into(),
        topics: vec![OffsetCommitRequestTopic {
            name: "t1".into(),
            partitions: vec![OffsetCommitRequestPartition {
                partition_index: 1,
                committed_offset: offset,
                committed_leader_epoch: 0,
                committed_metadata: Some("meta".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let oc = request(&mut c, &commit(hb.member_epoch, 42), 9).await;
    assert_eq!(
        oc.topics[0].partitions[0].error_code,
        ErrorCode::None.code()
    );
    let oc = request(&mut c, &commit(hb.member_epoch + 5, 43), 9).await;
    assert_eq!(oc.topics[0].partitions[0].error_code, 113);
    // A topic created over the wire.
    let ct = request(
        &mut c,
        &CreateTopicsRequest {
            topics: vec![CreatableTopic {
                name: "t2".into(),
                num_partitions: -1,
                replication_factor: -1,
                ..Default::default()
            }],
            timeout_ms: 1000,
            ..Default::default()
        },
        7,
    )
    .await;
    assert_eq!(
        (ct.topics[0].error_code, ct.topics[0].num_partitions),
        (ErrorCode::None.code(), 1)
    );
    let t2_id = ct.topics[0].topic_id;
    let (groups, offsets, t1_id) = {
        let b = r.state();
        (
            b.groups.coordinator.groups().clone(),
            b.offsets.clone(),
            b.topics.get("t1").expect("t1").id,
        )
    };
    drop(c);
    r.stop().await;

    let check = |r: &Running| {
        let b = r.state();
        assert_eq!(b.groups.coordinator.groups(), &groups);
        assert_eq!(b.offsets, offsets);
        assert_eq!(b.topics.get("t1").expect("t1").id, t1_id);
        assert_eq!(b.topics.get("t2").expect("t2").id, t2_id);
    };
    let r = start(c1.clone()).await;
    check(&r);
    // Over the wire too: the offset, and the member.
    let mut c = connect(r.addr).await;
    let of = request(
        &mut c,
        &OffsetFetchRequest {
            groups: vec![OffsetFetchRequestGroup {
                group_id: "g".into(),
                member_id: None,
                member_epoch: -1,
                topics: Some(vec![OffsetFetchRequestTopics {
                    name: "t1".into(),
                    partition_indexes: vec![0, 1].into(),
                    ..Default::default()
                }]),
                ..Default::default()
            }],
            require_stable: true,
            ..Default::default()
        },
        9,
    )
    .await;
    let parts = &of.groups[0].topics[0].partitions;
    assert_eq!(
        (parts[0].committed_offset, parts[1].committed_offset),
        (-1, 42)
    );
    assert_eq!(parts[1].metadata.as_deref(), Some("meta"));
    let d = request(
        &mut c,
        &ConsumerGroupDescribeRequest {
            group_ids: vec!["g".into()],
            ..Default::default()
        },
        1,
    )
    .await;
    assert_eq!(d.groups[0].members.len(), 1);
    drop(c);
    r.stop().await;

    // A torn tail (half an entry, as a SIGKILL mid-write leaves) is ignored.
    let path = dir.join(crate::storage::file::FILE_NAME);
    let mut torn = Vec::new();
    crate::storage::entry::Entry::Topic(
        kwire_protocol::generated::kwire_topic_key::KwireTopicKey { name: "t3".into() },
        Some(Default::default()),
    )
    .encode_into(&mut torn)
    .expect("encode");
    let mut data = std::fs::read(&path).expect("read log");
    data.extend_from_slice(&torn[..torn.len() - 3]);
    std::fs::write(&path, &data).expect("write log");
    let r = start(c1).await;
    check(&r);
    assert!(r.state().topics.get("t3").is_none());
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn failed_durable_writes_are_not_acknowledged() {
    let dir = temp_dir("enospc");
    let mut cfg = config(&[("t1", 2)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let two = || make_batch(&[b"a", b"b"], 1_000);
    assert_eq!(
        produced(&mut c, 0, two(), 9).await,
        (ErrorCode::None.code(), 0, 0)
    );
    let whole = log_len(&dir);
    let faults = |writes: u32, repairs: u32| {
        let mut b = r.state();
        let f = b.store.faults().expect("durable");
        f.writes = writes;
        f.repairs = repairs;
    };

    // Produce: the end-offset write fails (half written, then ENOSPC): KAFKA_STORAGE_ERROR,
    // the append is undone, and the partial entry is cut off the file.
    faults(1, 0);
    assert_eq!(
        produced(&mut c, 0, two(), 9).await,
        (ErrorCode::KafkaStorageError.code(), -1, -1)
    );
    assert_eq!(
        r.state().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        2
    );
    assert_eq!(log_len(&dir), whole);
    assert_eq!(
        produced(&mut c, 0, two(), 9).await,
        (ErrorCode::None.code(), 2, 0)
    );

    // OffsetCommit: NOT_COORDINATOR (Kafka's translation for group APIs), nothing stored.
    faults(1, 0);
    let oc = request(&mut c, &admin_commit("g", "t1", 0, 7, ""), 9).await;
    assert_eq!(
        oc.topics[0].partitions[0].error_code,
        ErrorCode::NotCoordinator.code()
    );
    assert!(r.state().offsets.group("g").is_none());

    // CreateTopics whose write fails and whose partial entry cannot be cut either: not
    // created; later writes are refused (nothing appended after the partial entry) until the
    // cut succeeds.
    faults(1, 2);
    let ct = request(&mut c, &create_topic("t2", 1), 7).await;
    assert_eq!(ct.topics[0].error_code, ErrorCode::KafkaStorageError.code());
    assert!(r.state().topics.get("t2").is_none());
    let damaged = log_len(&dir);
    assert!(damaged > log_len_whole(&r));
    assert_eq!(
        produced(&mut c, 1, two(), 9).await.0,
        ErrorCode::KafkaStorageError.code()
    );
    assert_eq!(
        log_len(&dir),
        damaged,
        "nothing appended after a partial entry"
    );
    // The cut works again: writes resume after the last whole entry.
    assert_eq!(
        produced(&mut c, 1, two(), 9).await,
        (ErrorCode::None.code(), 0, 0)
    );
    assert_eq!(log_len(&dir), log_len_whole(&r));

    // A heartbeat whose coordinator records cannot be written: NOT_COORDINATOR, and the server
    // stops (the coordinator's state cannot be rolled back).
    faults(1, 0);
    let hb = request(&mut c, &join("g2", "member-enospc-aaaaaaaa", &["t1"]), 1).await;
    assert_eq!(hb.error_code, ErrorCode::NotCoordinator.code());
    let ServeError::DurableStateBroken(reason) = r.stopped_by_itself().await;
    assert!(reason.contains("coordinator records"), "{reason}");
    drop(c);

    // The file holds whole entries only: a clean replay, without what failed.
    let (_, replay) = crate::storage::file::FileJournal::open(&dir).expect("replay");
    assert!(replay.torn.is_none(), "{:?}", replay.torn);
    let r = start(cfg).await;
    {
        let b = r.state();
        assert!(b.groups.coordinator.group("g2").is_none());
        assert!(b.topics.get("t2").is_none());
        assert!(b.offsets.is_empty());
        let t1 = b.topics.get("t1").expect("t1");
        assert_eq!(t1.partitions[0].high_watermark(), 4);
        assert_eq!(t1.partitions[1].high_watermark(), 2);
    }
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn offsets_are_not_reused_after_a_restart() {
    let dir = temp_dir("ends");
    let mut cfg = config(&[("t1", 3)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let three = make_batch(&[b"a", b"b", b"c"], 1_000);
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 0, three.clone(), 1), 9).await).1,
        0
    );
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 1, make_batch(&[b"x"], 1), 1), 9).await).1,
        0
    );
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 1, make_batch(&[b"y"], 2), 1), 9).await).1,
        1
    );
    drop(c);
    r.stop().await;

    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    // Earliest and latest are both the old end offset; an untouched partition starts at 0.
    for (partition, end) in [(0, 3), (1, 2), (2, 0)] {
        for ts in [-1, -2, -4] {
            let l = request(&mut c, &list_offset("t1", partition, ts, 7), 7).await;
            let p = &l.topics[0].partitions[0];
            assert_eq!(
                (p.error_code, p.offset),
                (ErrorCode::None.code(), end),
                "partition {partition} ts {ts}"
            );
        }
    }
    // Below the log start: OFFSET_OUT_OF_RANGE; at it: nothing yet.
    let f = request(&mut c, &fetch_by_id(id, 0, 0, 0), 16).await;
    assert_eq!(
        f.responses[0].partitions[0].error_code,
        ErrorCode::OffsetOutOfRange.code()
    );
    // Kafka answers OFFSET_OUT_OF_RANGE without the log start offset (-1).
    assert_eq!(f.responses[0].partitions[0].log_start_offset, -1);
    let f = request(&mut c, &fetch_by_id(id, 0, 3, 0), 16).await;
    let p = &f.responses[0].partitions[0];
    assert_eq!(
        (p.error_code, p.high_watermark, p.log_start_offset),
        (ErrorCode::None.code(), 3, 3)
    );
    assert!(p.records.as_ref().expect("records").is_empty());
    // New records continue the offsets.
    assert_eq!(
        produce_result(request(&mut c, &produce("t1", 0, three.clone(), 1), 9).await),
        (ErrorCode::None.code(), 3, 3)
    );
    let f = request(&mut c, &fetch_by_id(id, 0, 3, 0), 16).await;
    let recs = f.responses[0].partitions[0]
        .records
        .clone()
        .expect("records");
    assert_eq!(be_i64(&recs, 0), 3);
    drop(c);
    r.stop().await;

    // And again after a second restart.
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let l = request(&mut c, &list_offset("t1", 0, -1, 7), 7).await;
    assert_eq!(l.topics[0].partitions[0].offset, 6);
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_data_dir_is_served_by_one_server_and_corruption_stops_the_start() {
    use crate::services::open::StartError;
    use crate::storage::error::LogError;
    let dir = temp_dir("lock");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let e = Server::bind(cfg.clone())
        .await
        .expect_err("a second server on the same directory");
    assert!(
        matches!(e, StartError::Log(LogError::Locked { .. })),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains(crate::storage::file::LOCK_FILE_NAME),
        "{text}"
    );
    assert!(text.contains("another kwire-server"), "{text}");
    r.stop().await;
    // Released when the first one stops.
    let r = start(cfg.clone()).await;
    r.stop().await;

    // A damaged entry in the middle of the log: the server refuses to start, file untouched.
    let path = dir.join(crate::storage::file::FILE_NAME);
    let mut data = std::fs::read(&path).expect("log");
    let mut extra = Vec::new();
    crate::storage::entry::Entry::Topic(
        kwire_protocol::generated::kwire_topic_key::KwireTopicKey { name: "t9".into() },
        Some(Default::default()),
    )
    .encode_into(&mut extra)
    .expect("encode");
    data.extend_from_slice(&extra);
    data[20] ^= 0xff; // inside the first entry's payload
    std::fs::write(&path, &data).expect("write");
    let e = Server::bind(cfg).await.expect_err("a corrupt log");
    assert!(
        matches!(e, StartError::Log(LogError::Corrupt { offset: 12, .. })),
        "{e:?}"
    );
    assert_eq!(std::fs::read(&path).expect("log"), data);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn failed_durable_writes_give_no_producer_id_and_undo_producer_state() {
    let dir = temp_dir("pid-enospc");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let faults = |writes: u32| {
        let mut b = r.state();
        b.store.faults().expect("durable").writes = writes;
    };
    // The first id needs a block written: that write fails, so no id is given.
    faults(1);
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (ErrorCode::CoordinatorLoadInProgress.code(), -1, -1)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 0, 0)
    );
    // An idempotent batch whose end-offset write fails: KAFKA_STORAGE_ERROR, and neither the
    // records nor the producer state keep it, so the retry is stored (not a duplicate).
    let b = idempotent_batch(&[b"a", b"b"], 0, 0, 0);
    faults(1);
    assert_eq!(
        produced(&mut c, 0, b.clone(), 9).await,
        (ErrorCode::KafkaStorageError.code(), -1, -1)
    );
    assert!(r.state().topics.get("t1").expect("t1").partitions[0]
        .producers()
        .is_empty());
    assert_eq!(produced(&mut c, 0, b.clone(), 9).await, (0, 0, 0));
    assert_eq!(produced(&mut c, 0, b, 9).await, (0, 0, 0));
    // One request carrying a new batch twice for the same partition: the second is its
    // duplicate; when the write fails both fail, and nothing is kept.
    let next = idempotent_batch(&[b"c"], 0, 0, 2);
    let mut twice = produce("t1", 0, next.clone(), -1);
    let again = twice.topic_data[0].partition_data[0].clone();
    twice.topic_data[0].partition_data.push(again);
    for (fail, expected) in [
        (1, [(ErrorCode::KafkaStorageError.code(), -1); 2]),
        (0, [(0, 2), (0, 2)]),
    ] {
        faults(fail);
        let p = request(&mut c, &twice, 9).await;
        let got: Vec<(i16, i64)> = p.responses[0]
            .partition_responses
            .iter()
            .map(|r| (r.error_code, r.base_offset))
            .collect();
        assert_eq!(got, expected.to_vec(), "write failures {fail}");
    }
    assert_eq!(
        r.state().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        3
    );
    // Auto-creation whose write fails: not created, UNKNOWN_TOPIC_OR_PARTITION; the retry
    // creates it.
    faults(1);
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(unknown, 0)]
    );
    assert!(r.state().topics.get("later").is_none());
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(unknown, 0)]
    );
    assert_eq!(
        metadata_codes(&mut c, metadata_for(&["later"], true), 12).await,
        vec![(0, 1)]
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn producer_ids_are_not_reused_after_a_restart() {
    let dir = temp_dir("pids");
    let mut cfg = config(&[("t1", 1)]);
    cfg.data_dir = Some(dir.clone());
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 0, 0)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 1, 0)
    );
    let b = idempotent_batch(&[b"a"], 1, 0, 0);
    assert_eq!(produced(&mut c, 0, b.clone(), 9).await, (0, 0, 0));
    drop(c);
    r.stop().await;
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    // Ids continue after the reserved block.
    let block = crate::services::producers::PRODUCER_ID_BLOCK;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, block, 0)
    );
    // The records are gone, and their producer state with them (as a Kafka partition whose
    // log start offset passed the producer's batches): the batch is new again, at offset 1.
    assert!(r.state().topics.get("t1").expect("t1").partitions[0]
        .producers()
        .is_empty());
    assert_eq!(produced(&mut c, 0, b, 9).await, (0, 1, 1));
    drop(c);
    r.stop().await;
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, 2 * block, 0)
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

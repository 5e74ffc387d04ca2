//! Idempotent producers: InitProducerId, sequence checks, duplicates, wrapping sequences.

use super::*;

#[tokio::test]
async fn init_producer_id_gives_fresh_ids_and_refuses_transactions() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    // Advertised at 0-5.
    let a = request(
        &mut c,
        &ApiVersionsRequest {
            client_software_name: "t".into(),
            client_software_version: "1".into(),
            ..Default::default()
        },
        3,
    )
    .await;
    let k = a
        .api_keys
        .iter()
        .find(|k| k.api_key == ApiKey::InitProducerId.as_i16())
        .expect("InitProducerId advertised");
    assert_eq!((k.min_version, k.max_version), (0, 5));
    // Fresh ids count up from 0, epoch 0, at every version.
    let mut expected = 0i64;
    for v in 0..=5i16 {
        assert_eq!(
            init_pid(&mut c, init_producer_id(None, -1, -1), v).await,
            (0, expected, 0),
            "v{v}"
        );
        expected += 1;
    }
    // KIP-360: an idempotent producer sending its id and epoch gets a new id with epoch 0, as
    // Kafka's coordinator answers a null transactional id (the epoch bump is the client's).
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, 0, 5), 4).await,
        (0, expected, 0)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, 0, i16::MAX), 5).await,
        (0, expected + 1, 0)
    );
    // Only one of the two set: INVALID_REQUEST.
    for (pid, epoch) in [(3, -1), (-1, 0)] {
        assert_eq!(
            init_pid(&mut c, init_producer_id(None, pid, epoch), 3).await,
            (ErrorCode::InvalidRequest.code(), -1, -1)
        );
    }
    // Transactions are not served.
    assert_eq!(
        init_pid(&mut c, init_producer_id(Some("tx"), -1, -1), 5).await,
        (ErrorCode::CoordinatorNotAvailable.code(), -1, -1)
    );
    assert_eq!(
        init_pid(&mut c, init_producer_id(Some(""), -1, -1), 5).await,
        (ErrorCode::InvalidRequest.code(), -1, -1)
    );
    let mut long = init_producer_id(Some("tx"), -1, -1);
    long.transaction_timeout_ms = 900_001;
    assert_eq!(
        init_pid(&mut c, long, 2).await,
        (ErrorCode::InvalidTransactionTimeout.code(), -1, -1)
    );
    // The failures took no id.
    assert_eq!(
        init_pid(&mut c, init_producer_id(None, -1, -1), 5).await,
        (0, expected + 2, 0)
    );
    r.stop().await;
}

#[tokio::test]
async fn idempotent_produce_checks_sequences_and_answers_duplicates() {
    let r = start(config(&[("t1", 2)])).await;
    let id = topic_id(&r, "t1");
    let mut c = connect(r.addr).await;
    let (_, pid, epoch) = init_pid(&mut c, init_producer_id(None, -1, -1), 5).await;
    // Sequences in order: 0-1, 2-4.
    let first = idempotent_batch(&[b"a", b"b"], pid, epoch, 0);
    assert_eq!(produced(&mut c, 0, first.clone(), 11).await, (0, 0, 0));
    let second = idempotent_batch(&[b"c", b"d", b"e"], pid, epoch, 2);
    // The same batch resent by a raw client, twice in one write (a producer's retry after a
    // lost answer): the first is stored, the second answered with its offset.
    let frame = encode_request(
        Request::from(produce("t1", 0, second.clone(), -1)),
        11,
        7,
        Some("raw"),
    )
    .expect("encode");
    let mut twice = frame.to_vec();
    twice.extend_from_slice(&frame);
    within(c.send_raw(&twice)).await.expect("send");
    for _ in 0..2 {
        let f = within(c.recv_frame()).await.expect("recv").expect("frame");
        let (_, p) = ProduceResponse::decode_response_frame(f, 11).expect("decode");
        let pr = &p.responses[0].partition_responses[0];
        assert_eq!((pr.error_code, pr.base_offset), (0, 2));
    }
    // The first batch again (still among the last five): its original offset, and as Kafka the
    // original batch's MaxTimestamp as LogAppendTime.
    let p = request(&mut c, &produce("t1", 0, first.clone(), -1), 11).await;
    let pr = &p.responses[0].partition_responses[0];
    assert_eq!(
        (pr.error_code, pr.base_offset, pr.log_append_time_ms),
        (0, 0, 1_001)
    );
    // Stored once each: two batches, offsets 0 and 2, high watermark 5.
    let f = request(&mut c, &fetch_by_id(id, 0, 0, 0), 16).await;
    let p = &f.responses[0].partitions[0];
    let recs = p.records.clone().expect("records");
    assert_eq!(batch_offsets(&recs), vec![0, 2]);
    assert_eq!(recs.len(), first.len() + second.len());
    assert_eq!(p.high_watermark, 5);
    // A gap: OUT_OF_ORDER_SEQUENCE_NUMBER, with a message (v8+), nothing stored.
    let gap = idempotent_batch(&[b"x"], pid, epoch, 7);
    let p = request(&mut c, &produce("t1", 0, gap, -1), 11).await;
    let pr = &p.responses[0].partition_responses[0];
    assert_eq!(
        (pr.error_code, pr.base_offset),
        (ErrorCode::OutOfOrderSequenceNumber.code(), -1)
    );
    assert!(pr
        .error_message
        .as_deref()
        .is_some_and(|m| m.contains("Out of order")));
    // Overlapping but not equal to a stored batch: out of order too.
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"x"], pid, epoch, 3), 11)
            .await
            .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    // Sequences are per partition: partition 1 knows no producer and takes any sequence.
    assert_eq!(
        produced(&mut c, 1, idempotent_batch(&[b"p"], pid, epoch, 40), 11).await,
        (0, 0, 0)
    );
    // The producer bumps its epoch (KIP-360): the new epoch must start at 0.
    let bumped = epoch + 1;
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"y"], pid, bumped, 5), 11)
            .await
            .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"y"], pid, bumped, 0), 11).await,
        (0, 5, 0)
    );
    // The old epoch is fenced: INVALID_PRODUCER_EPOCH, even for a former duplicate.
    for b in [
        idempotent_batch(&[b"z"], pid, epoch, 5),
        second.clone(),
        first.clone(),
    ] {
        assert_eq!(
            produced(&mut c, 0, b, 11).await.0,
            ErrorCode::InvalidProducerEpoch.code()
        );
    }
    // A producer id with a negative sequence: INVALID_RECORD (Kafka's LogValidator).
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"z"], pid, bumped, -1), 11)
            .await
            .0,
        ErrorCode::InvalidRecord.code()
    );
    assert_eq!(
        r.state().topics.get("t1").expect("t1").partitions[0].high_watermark(),
        6
    );
    r.stop().await;
}

#[tokio::test]
async fn idempotent_sequences_wrap_at_i32_max() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    let (_, pid, epoch) = init_pid(&mut c, init_producer_id(None, -1, -1), 5).await;
    // Unknown to the partition: any sequence starts it (Kafka 2.5+).
    let near_end = idempotent_batch(&[b"a", b"b"], pid, epoch, i32::MAX - 3);
    assert_eq!(produced(&mut c, 0, near_end, 9).await, (0, 0, 0));
    // MAX-1, MAX, 0: a batch crossing the wrap.
    let crossing = idempotent_batch(&[b"c", b"d", b"e"], pid, epoch, i32::MAX - 1);
    assert_eq!(produced(&mut c, 0, crossing.clone(), 9).await, (0, 2, 0));
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"f"], pid, epoch, 1), 9).await,
        (0, 5, 0)
    );
    // The crossing batch resent: its offset.
    assert_eq!(produced(&mut c, 0, crossing, 9).await, (0, 2, 0));
    // 0 again after 1: out of order.
    assert_eq!(
        produced(&mut c, 0, idempotent_batch(&[b"g"], pid, epoch, 0), 9)
            .await
            .0,
        ErrorCode::OutOfOrderSequenceNumber.code()
    );
    r.stop().await;
}

//! Consumer and streams groups through a socket: internal topics, topology descriptions,
//! session timeouts, committed offset metadata.

use super::*;

#[tokio::test]
async fn streams_heartbeat_creates_internal_topics() {
    use kwire_protocol::generated::streams_group_heartbeat_request::{
        Subtopology, TopicInfo, Topology,
    };
    let mut cfg = config(&[("input", 2)]);
    cfg.streams_initial_rebalance_delay_ms = Some(0);
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let req = StreamsGroupHeartbeatRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        process_id: Some("process-1".into()),
        topology: Some(Topology {
            epoch: 0,
            subtopologies: vec![Subtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["input".into()],
                state_changelog_topics: vec![TopicInfo {
                    name: "app-store-changelog".into(),
                    partitions: 0,
                    replication_factor: -1,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        ..Default::default()
    };
    let hb = request(&mut c, &req, 0).await;
    assert_eq!(
        hb.error_code,
        ErrorCode::None.code(),
        "{:?}",
        hb.error_message
    );
    let created = r
        .state()
        .topics
        .get("app-store-changelog")
        .map(|t| t.partitions.len());
    assert_eq!(created, Some(2));
    let d = request(
        &mut c,
        &StreamsGroupDescribeRequest {
            group_ids: vec!["app".into()],
            ..Default::default()
        },
        0,
    )
    .await;
    assert_eq!(d.groups[0].error_code, ErrorCode::None.code());
    assert_eq!(d.groups[0].members.len(), 1);
    let l = request(&mut c, &ListGroupsRequest::default(), 5).await;
    assert_eq!(&*l.groups[0].group_type, "streams");
    r.stop().await;
}

/// Kafka 4.4's streams surface end to end: a v1 heartbeat is asked for the topology description
/// (KIP-1331), the member pushes it with StreamsGroupTopologyDescriptionUpdate (key 93), and
/// StreamsGroupDescribe v1 returns it, also after a restart on the same data directory.
#[tokio::test]
async fn streams_topology_description_is_pushed_described_and_durable() {
    use kwire_protocol::generated::streams_group_heartbeat_request::{Subtopology, Topology};
    use kwire_protocol::generated::streams_group_topology_description_update_request::{
        TopologyDescription, TopologyDescriptionNode, TopologyDescriptionSubtopology,
    };
    let dir = temp_dir("description");
    let mut cfg = config(&[("input", 2)]);
    cfg.data_dir = Some(dir.clone());
    cfg.streams_initial_rebalance_delay_ms = Some(0);
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let req = StreamsGroupHeartbeatRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        process_id: Some("process-1".into()),
        topology: Some(Topology {
            epoch: 0,
            subtopologies: vec![Subtopology {
                subtopology_id: "0".into(),
                source_topics: vec!["input".into()],
                ..Default::default()
            }],
            ..Default::default()
        }),
        active_tasks: Some(vec![]),
        standby_tasks: Some(vec![]),
        warmup_tasks: Some(vec![]),
        ..Default::default()
    };
    let hb = request(&mut c, &req, 1).await;
    assert_eq!(
        hb.error_code,
        ErrorCode::None.code(),
        "{:?}",
        hb.error_message
    );
    assert!(hb.topology_description_required);
    assert_eq!(hb.acceptable_recovery_lag, 10_000);
    let push = StreamsGroupTopologyDescriptionUpdateRequest {
        group_id: "app".into(),
        member_id: "streams-member-1".into(),
        topology_epoch: 0,
        topology_description: TopologyDescription {
            subtopologies: vec![TopologyDescriptionSubtopology {
                subtopology_id: "0".into(),
                nodes: vec![TopologyDescriptionNode {
                    name: "KSTREAM-SOURCE-0000000000".into(),
                    node_type: 1,
                    source_topics: vec!["input".into()],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let u = request(&mut c, &push, 0).await;
    assert_eq!((u.error_code, u.error_message), (0, None));
    drop(c);
    r.stop().await;
    // Restarted on the same directory: the description was replayed from the log.
    let r = start(cfg).await;
    let mut c = connect(r.addr).await;
    let d = request(
        &mut c,
        &StreamsGroupDescribeRequest {
            group_ids: vec!["app".into()],
            include_topology_description: true,
            ..Default::default()
        },
        1,
    )
    .await;
    let g = &d.groups[0];
    assert_eq!(g.error_code, ErrorCode::None.code());
    assert_eq!(g.topology_description_status, 3);
    assert_eq!(g.assignor_name.as_deref(), Some("sticky"));
    let td = g.topology_description.as_ref().expect("description");
    assert_eq!(
        &*td.subtopologies[0].nodes[0].name,
        "KSTREAM-SOURCE-0000000000"
    );
    drop(c);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn session_timeout_fences_a_silent_member_and_is_persisted() {
    let dir = temp_dir("session");
    let mut cfg = config(&[("t1", 2)]);
    cfg.data_dir = Some(dir.clone());
    cfg.heartbeat_interval_ms = Some(100);
    cfg.session_timeout_ms = Some(500);
    let r = start(cfg.clone()).await;
    let mut c = connect(r.addr).await;
    let hb = request(&mut c, &join("gs", "member-silent-aaaaaaaa", &["t1"]), 1).await;
    assert_eq!(hb.error_code, ErrorCode::None.code());
    assert_eq!(hb.heartbeat_interval_ms, 100);
    let joined = Instant::now();
    // The member never heartbeats again: the timer task fences it after 500 ms. Checked on
    // a bounded number of 50 ms ticks (no event to wait on from outside the server).
    let mut tick = tokio::time::interval(Duration::from_millis(50));
    let mut gone = false;
    for _ in 0..200 {
        tick.tick().await;
        let members = r
            .state()
            .groups
            .coordinator
            .group("gs")
            .map_or(0, |g| g.members.len());
        if members == 0 {
            gone = true;
            break;
        }
    }
    assert!(gone, "member fenced by the session timeout");
    assert!(joined.elapsed() >= Duration::from_millis(450));
    let epoch = r
        .state()
        .groups
        .coordinator
        .group("gs")
        .map(|g| g.group_epoch);
    drop(c);
    r.stop().await;
    // The fence was written to the log.
    let r = start(cfg).await;
    {
        let b = r.state();
        let g = b.groups.coordinator.group("gs").expect("group kept");
        assert!(g.members.is_empty());
        assert_eq!(Some(g.group_epoch), epoch);
    }
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn offset_metadata_longer_than_4096_bytes_is_refused() {
    let r = start(config(&[("t1", 1)])).await;
    let mut c = connect(r.addr).await;
    for (len, code) in [
        (4096, ErrorCode::None.code()),
        (4097, ErrorCode::OffsetMetadataTooLarge.code()),
    ] {
        let oc = request(
            &mut c,
            &admin_commit("gm", "t1", 0, len as i64, &"m".repeat(len)),
            9,
        )
        .await;
        assert_eq!(oc.topics[0].partitions[0].error_code, code, "{len} bytes");
    }
    let stored = r
        .state()
        .offsets
        .get("gm", "t1", 0)
        .expect("committed")
        .offset;
    assert_eq!(stored, 4096);
    r.stop().await;
}

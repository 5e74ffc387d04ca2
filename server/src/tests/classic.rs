//! Classic groups through a real socket: raw [`Client`]s doing JoinGroup (KIP-394), SyncGroup,
//! Heartbeat, LeaveGroup, DescribeGroups, ListGroups and DeleteGroups against a running server,
//! and a restart from the durable log. A child of the server's `tests` module (its helpers).

use bytes::Bytes;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::join_group_response::JoinGroupResponse;
use kwire_protocol::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kwire_protocol::generated::sync_group_response::SyncGroupResponse;

use super::{config, connect, request, start, temp_dir};
use crate::client::Client;

fn join_req(member: &str, meta: &'static [u8]) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: "cg".into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        member_id: member.to_string().into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::from_static(meta),
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn join(c: &mut Client, member: &str, meta: &'static [u8], v: i16) -> JoinGroupResponse {
    {
        let r = request(c, &join_req(member, meta), v).await;
        r
    }
}

fn sync_req(
    member: &str,
    generation: i32,
    assignments: &[(&str, &'static [u8])],
) -> SyncGroupRequest {
    SyncGroupRequest {
        group_id: "cg".into(),
        generation_id: generation,
        member_id: member.to_string().into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        assignments: assignments
            .iter()
            .map(|(m, a)| SyncGroupRequestAssignment {
                member_id: m.to_string().into(),
                assignment: Bytes::from_static(a),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

async fn sync(c: &mut Client, req: SyncGroupRequest) -> SyncGroupResponse {
    {
        let r = request(c, &req, 5).await;
        r
    }
}

async fn heartbeat(c: &mut Client, member: &str, generation: i32) -> i16 {
    let req = HeartbeatRequest {
        group_id: "cg".into(),
        generation_id: generation,
        member_id: member.to_string().into(),
        ..Default::default()
    };
    {
        let r = request(c, &req, 4).await;
        r.error_code
    }
}

/// A KIP-394 join: MEMBER_ID_REQUIRED, then the join with the id (which may wait).
async fn member_id(c: &mut Client, meta: &'static [u8]) -> String {
    let r = join(c, "", meta, 9).await;
    assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
    assert!(
        r.member_id.starts_with("kwire-client-"),
        "{}",
        &*r.member_id
    );
    r.member_id.to_string()
}

#[tokio::test]
async fn classic_group_round_through_a_socket_and_a_restart() {
    let dir = temp_dir("classic");
    let mut cfg = config(&[("t1", 2)]);
    cfg.data_dir = Some(dir.clone());
    cfg.group_initial_rebalance_delay_ms = 0;
    let r = start(cfg.clone()).await;
    let mut a = connect(r.addr).await;
    let mut b = connect(r.addr).await;

    // A alone: its join completes when the (zero) initial delay ends, on the timer task.
    let ida = member_id(&mut a, b"A").await;
    let ja = join(&mut a, &ida, b"A", 9).await;
    assert_eq!(ja.error_code, 0);
    assert_eq!((ja.generation_id, &*ja.leader), (1, ida.as_str()));
    assert_eq!(ja.protocol_name.as_deref(), Some("range"));
    assert_eq!(ja.members.len(), 1);
    let sa = sync(&mut a, sync_req(&ida, 1, &[(&ida, b"a1")])).await;
    assert_eq!((sa.error_code, &sa.assignment[..]), (0, &b"a1"[..]));
    assert_eq!(heartbeat(&mut a, &ida, 1).await, 0);

    // B joins: its JoinGroup waits on its own connection until A rejoins.
    let idb = member_id(&mut b, b"B").await;
    let idb2 = idb.clone();
    let waiting_b = tokio::spawn(async move {
        let r = join(&mut b, &idb2, b"B", 9).await;
        (b, r)
    });
    // A learns of the rebalance from its heartbeat (the join of B reached the server first).
    loop {
        let e = heartbeat(&mut a, &ida, 1).await;
        if e == ErrorCode::RebalanceInProgress.code() {
            break;
        }
        assert_eq!(e, 0);
        tokio::task::yield_now().await;
    }
    let ja = join(&mut a, &ida, b"A", 9).await;
    let (mut b, jb) = waiting_b.await.expect("join task");
    assert_eq!((ja.generation_id, jb.generation_id), (2, 2));
    assert_eq!(&*jb.leader, ida.as_str());
    let mut seen: Vec<(String, Vec<u8>)> = ja
        .members
        .iter()
        .map(|m| (m.member_id.to_string(), m.metadata.to_vec()))
        .collect();
    seen.sort();
    let mut want = vec![(ida.clone(), b"A".to_vec()), (idb.clone(), b"B".to_vec())];
    want.sort();
    assert_eq!(seen, want);
    assert!(jb.members.is_empty());

    // B's SyncGroup waits for the leader's.
    let idb2 = idb.clone();
    let waiting_b = tokio::spawn(async move {
        let r = sync(&mut b, sync_req(&idb2, 2, &[])).await;
        (b, r)
    });
    // (Whether B's SyncGroup reaches the coordinator before or after the leader's, it gets
    // its assignment: waiting for it, or from the Stable group.)
    let sa = sync(&mut a, sync_req(&ida, 2, &[(&ida, b"a2"), (&idb, b"b2")])).await;
    let (b, sb) = waiting_b.await.expect("sync task");
    assert_eq!(&sa.assignment[..], b"a2");
    assert_eq!((sb.error_code, &sb.assignment[..]), (0, &b"b2"[..]));
    assert_eq!(sb.protocol_name.as_deref(), Some("range"));

    // DescribeGroups and ListGroups see it.
    let d = request(
        &mut a,
        &DescribeGroupsRequest {
            groups: vec!["cg".into(), "nope".into()],
            ..Default::default()
        },
        6,
    )
    .await;
    assert_eq!(&*d.groups[0].group_state, "Stable");
    assert_eq!(&*d.groups[0].protocol_data, "range");
    assert_eq!(d.groups[0].members.len(), 2);
    assert_eq!(d.groups[1].error_code, ErrorCode::GroupIdNotFound.code());
    let l = request(
        &mut a,
        &ListGroupsRequest {
            types_filter: vec!["Classic".into()],
            ..Default::default()
        },
        5,
    )
    .await;
    let listed: Vec<(&str, &str, &str, &str)> = l
        .groups
        .iter()
        .map(|g| {
            (
                &*g.group_id,
                &*g.protocol_type,
                &*g.group_state,
                &*g.group_type,
            )
        })
        .collect();
    assert_eq!(listed, vec![("cg", "consumer", "Stable", "classic")]);

    // The state survives a restart.
    r.stop().await;
    drop((a, b));
    let r = start(cfg.clone()).await;
    let mut a = connect(r.addr).await;
    {
        let s = r.state();
        let g = s.groups.coordinator.classic_group("cg").expect("reloaded");
        assert_eq!(g.generation_id, 2);
        assert_eq!(g.members[&idb].assignment, Bytes::from_static(b"b2"));
    }
    assert_eq!(heartbeat(&mut a, &ida, 2).await, 0);

    // B leaves in a batch leave (v5); A must rejoin; then A leaves and the group is empty.
    let lv = request(
        &mut a,
        &LeaveGroupRequest {
            group_id: "cg".into(),
            members: vec![
                MemberIdentity {
                    member_id: idb.clone().into(),
                    ..Default::default()
                },
                MemberIdentity {
                    member_id: "ghost".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        },
        5,
    )
    .await;
    let codes: Vec<i16> = lv.members.iter().map(|m| m.error_code).collect();
    assert_eq!(codes, vec![0, ErrorCode::UnknownMemberId.code()]);
    // Only A is left and it has not rejoined: the rebalance waits for it.
    assert_eq!(
        heartbeat(&mut a, &ida, 2).await,
        ErrorCode::RebalanceInProgress.code()
    );
    let ja = join(&mut a, &ida, b"A", 9).await;
    assert_eq!((ja.error_code, ja.generation_id), (0, 3));
    let del = request(
        &mut a,
        &DeleteGroupsRequest {
            groups_names: vec!["cg".into()],
            ..Default::default()
        },
        2,
    )
    .await;
    assert_eq!(del.results[0].error_code, ErrorCode::NonEmptyGroup.code());
    let lv = request(
        &mut a,
        &LeaveGroupRequest {
            group_id: "cg".into(),
            member_id: ida.clone().into(),
            ..Default::default()
        },
        2,
    )
    .await;
    assert_eq!(lv.error_code, 0);
    assert_eq!(
        r.state()
            .groups
            .coordinator
            .classic_group("cg")
            .map(|g| g.state.as_str()),
        Some("Empty")
    );
    let del = request(
        &mut a,
        &DeleteGroupsRequest {
            groups_names: vec!["cg".into(), "cg".into()],
            ..Default::default()
        },
        2,
    )
    .await;
    let codes: Vec<i16> = del.results.iter().map(|g| g.error_code).collect();
    assert_eq!(codes, vec![0, ErrorCode::GroupIdNotFound.code()]);
    r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

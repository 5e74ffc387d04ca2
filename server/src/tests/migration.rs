//! KIP-848 online migration through a real socket: a classic member inside a consumer group
//! (JoinGroup answered at once, its SyncGroup assignment as ConsumerProtocolAssignment bytes,
//! REBALANCE_IN_PROGRESS when it must reconcile), ConsumerGroupDescribe's MemberType, and the
//! downgrade when the consumer-protocol member leaves. A child of the server's `tests` module.

use std::collections::BTreeSet;

use bytes::Bytes;
use kwire_protocol::coordinator::consumer::migration::decode_assignment;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions as Tp,
};
use kwire_protocol::generated::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::sync_group_request::SyncGroupRequest;
use kwire_protocol::wire::{Encode, Uuid};

use super::{config, connect, join, request, start};
use crate::client::Client;

/// A version-3 ConsumerProtocolSubscription of `t1`, with the version prefix.
fn subscription() -> Bytes {
    let s = ConsumerProtocolSubscription {
        topics: vec!["t1".into()],
        ..Default::default()
    };
    let mut out = 3i16.to_be_bytes().to_vec();
    s.encode(&mut out, 3).expect("encode");
    Bytes::from(out)
}

async fn classic_join(c: &mut Client, member: &str) -> (i16, String, i32) {
    let req = JoinGroupRequest {
        group_id: "mg".into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        member_id: member.to_string().into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: subscription(),
            ..Default::default()
        }],
        ..Default::default()
    };
    {
        let r = request(c, &req, 9).await;
        (r.error_code, r.member_id.to_string(), r.generation_id)
    }
}

/// The partitions of t1 in a SyncGroup answer.
async fn classic_sync(c: &mut Client, member: &str, generation: i32) -> BTreeSet<i32> {
    let req = SyncGroupRequest {
        group_id: "mg".into(),
        generation_id: generation,
        member_id: member.to_string().into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        ..Default::default()
    };
    {
        let r = request(c, &req, 5).await;
        assert_eq!(r.error_code, 0);
        let a = decode_assignment(&r.assignment).expect("ConsumerProtocolAssignment");
        a.assigned_partitions
            .iter()
            .filter(|tp| &*tp.topic == "t1")
            .flat_map(|tp| tp.partitions.iter())
            .collect()
    }
}

async fn classic_heartbeat(c: &mut Client, member: &str, generation: i32) -> i16 {
    let req = HeartbeatRequest {
        group_id: "mg".into(),
        generation_id: generation,
        member_id: member.to_string().into(),
        ..Default::default()
    };
    {
        let r = request(c, &req, 4).await;
        r.error_code
    }
}

/// A ConsumerGroupHeartbeat of `a` at `epoch` reporting `owned` of t1; (epoch, assignment).
async fn cghb(
    c: &mut Client,
    t1: Uuid,
    epoch: i32,
    owned: &BTreeSet<i32>,
) -> (i32, Option<BTreeSet<i32>>) {
    let req = ConsumerGroupHeartbeatRequest {
        group_id: "mg".into(),
        member_id: "member-a-aaaaaaaaaaaaaaaa".into(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        topic_partitions: Some(vec![Tp {
            topic_id: t1,
            partitions: owned.iter().copied().collect(),
            ..Default::default()
        }]),
        ..Default::default()
    };
    {
        let r = request(c, &req, 1).await;
        assert_eq!(r.error_code, 0, "{:?}", r.error_message);
        let a = r.assignment.map(|a| {
            a.topic_partitions
                .iter()
                .flat_map(|tp| tp.partitions.iter())
                .collect()
        });
        (r.member_epoch, a)
    }
}

#[tokio::test]
async fn classic_member_in_a_consumer_group_then_downgrade() {
    let r = start(config(&[("t1", 2)])).await;
    let t1 = super::topic_id(&r, "t1");
    let mut a = connect(r.addr).await;
    let mut b = connect(r.addr).await;

    // a: a KIP-848 member owning both partitions.
    let ja = {
        let r = request(&mut a, &join("mg", "member-a-aaaaaaaaaaaaaaaa", &["t1"]), 1).await;
        r
    };
    assert_eq!((ja.error_code, ja.member_epoch), (0, 1));
    let all: BTreeSet<i32> = [0, 1].into();

    // b: a classic member, KIP-394 then a join answered at once at generation 2.
    let (e, id, _) = classic_join(&mut b, "").await;
    assert_eq!(e, ErrorCode::MemberIdRequired.code());
    let (e, id2, gen) = classic_join(&mut b, &id).await;
    assert_eq!((e, id2.as_str(), gen), (0, id.as_str(), 2));
    // Its partition is still a's: nothing yet.
    assert_eq!(classic_sync(&mut b, &id, 2).await, BTreeSet::new());

    // a gives one partition up and reaches epoch 2.
    let (epoch, kept) = cghb(&mut a, t1, 1, &all).await;
    assert_eq!(epoch, 1);
    let kept = kept.expect("a's new assignment");
    assert_eq!(kept.len(), 1);
    let (epoch, _) = cghb(&mut a, t1, 1, &kept).await;
    assert_eq!(epoch, 2);

    // b is told to rejoin and gets the other partition.
    assert_eq!(
        classic_heartbeat(&mut b, &id, 2).await,
        ErrorCode::RebalanceInProgress.code()
    );
    let (e, _, gen) = classic_join(&mut b, &id).await;
    assert_eq!((e, gen), (0, 2));
    let got = classic_sync(&mut b, &id, 2).await;
    assert_eq!(got, all.difference(&kept).copied().collect());
    assert_eq!(classic_heartbeat(&mut b, &id, 2).await, 0);

    // ConsumerGroupDescribe v1: MemberType 1 for a, 0 for b.
    let d = {
        let d = request(
            &mut a,
            &ConsumerGroupDescribeRequest {
                group_ids: vec!["mg".into()],
                ..Default::default()
            },
            1,
        )
        .await;
        d
    };
    let mut types: Vec<(String, i8)> = d.groups[0]
        .members
        .iter()
        .map(|m| (m.member_id.to_string(), m.member_type))
        .collect();
    types.sort();
    let mut expect = vec![
        ("member-a-aaaaaaaaaaaaaaaa".to_string(), 1),
        (id.clone(), 0),
    ];
    expect.sort();
    assert_eq!(types, expect);

    // a leaves: the group becomes a classic group, rebalancing, with b alone.
    let leave = ConsumerGroupHeartbeatRequest {
        group_id: "mg".into(),
        member_id: "member-a-aaaaaaaaaaaaaaaa".into(),
        member_epoch: -1,
        ..Default::default()
    };
    {
        let r = request(&mut a, &leave, 1).await;
        assert_eq!((r.error_code, r.member_epoch), (0, -1))
    }
    let d = {
        let d = request(
            &mut a,
            &DescribeGroupsRequest {
                groups: vec!["mg".into()],
                ..Default::default()
            },
            5,
        )
        .await;
        d
    };
    let g = &d.groups[0];
    assert_eq!(g.error_code, 0);
    assert_eq!(&*g.group_state, "PreparingRebalance");
    assert_eq!(&*g.protocol_type, "consumer");
    assert_eq!(g.members.len(), 1);
    assert_eq!(&*g.members[0].member_id, id.as_str());
    assert_eq!(
        classic_heartbeat(&mut b, &id, 2).await,
        ErrorCode::RebalanceInProgress.code()
    );
    let (e, _, gen) = classic_join(&mut b, &id).await;
    assert_eq!((e, gen), (0, 3));
}

//! The scripted scenarios: each one drives a few simulated members through raw requests and
//! records every answer it reads (see [`super::harness`]); the same script runs against the
//! Kafka broker and kwire-server, and the two transcripts must be equal.
//!
//! Conditions that depend on time (a session or rebalance timeout passing, the broker having
//! registered a join) are polled for; the polls themselves are not compared.

use super::harness::{assignment, decode_assignment, subscription, Ctx, Fail, Member};
use super::scenario::Scenario;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::delete_groups_request::DeleteGroupsRequest;
use kwire_protocol::generated::offset_commit_request::{
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kwire_protocol::generated::{
    ConsumerGroupHeartbeatResponse, HeartbeatResponse, JoinGroupResponse, Response,
    SyncGroupResponse,
};

pub use super::scenario::Fut;

/// Session timeout of members that must not expire during a scenario (ms).
const SESSION: i32 = 10_000;
/// Session timeout of members that are meant to expire (ms; above group.min.session.timeout.ms).
const SHORT_SESSION: i32 = 400;
/// Rebalance timeout of members whose laggards are not waited for long (ms).
const SHORT_REBALANCE: i32 = 800;
/// Rebalance timeout of everybody else (ms).
const REBALANCE: i32 = 10_000;

/// The topic every scenario's consumers subscribe to ([`TOPIC_PARTITIONS`] on both sides).
pub const TOPIC: &str = "oracle-t1";
/// Partitions of [`TOPIC`]: divisible by 1, 2 and 3, so that the server-side assignor of a
/// consumer group of up to three members has no tie to break (whose tie-breaks differ: A7).
pub const TOPIC_PARTITIONS: i32 = 6;
/// A second topic (2 partitions).
pub const TOPIC2: &str = "oracle-t2";

/// `range` with a subscription to [`TOPIC`].
fn range() -> Vec<(&'static str, Vec<u8>)> {
    vec![("range", subscription(&[TOPIC]))]
}

/// Partition `i` of [`TOPIC`] for the `i`th member (what the scripts' leaders assign).
fn one_each(ms: &[&Member]) -> Vec<(String, Vec<u8>)> {
    ms.iter()
        .enumerate()
        .map(|(i, m)| (m.member_id.clone(), assignment(&[(TOPIC, &[i as i32])])))
        .collect()
}

/// A group answer with a top-level error code.
trait ErrorCode {
    /// The answer's `ErrorCode`.
    fn error_code(&self) -> i16;
}

macro_rules! error_code {
    ($($t:ty),*) => {$(
        impl ErrorCode for $t {
            fn error_code(&self) -> i16 {
                self.error_code
            }
        }
    )*};
}
error_code!(
    JoinGroupResponse,
    SyncGroupResponse,
    HeartbeatResponse,
    ConsumerGroupHeartbeatResponse
);

/// Expects error code `code` in `r` (a scenario whose premise fails stops here: the transcripts
/// up to this point are still compared).
fn expect(r: &impl ErrorCode, code: i16, what: &str) -> Result<(), Fail> {
    if r.error_code() == code {
        Ok(())
    } else {
        Err(format!(
            "{what}: expected error {code}, got {}",
            r.error_code()
        ))
    }
}

/// Forms a stable classic group of `ms` (in this order; the first is the leader): each member
/// gets its id (KIP-394), then each joins with it once the coordinator holds the ones before it
/// (so the join order, and with it the leader, is the script's), inside the initial rebalance
/// delay; the leader assigns partition i to member i; everyone syncs.
async fn form(
    c: &mut Ctx,
    g: &str,
    ms: &mut [Member],
    session: i32,
    rebalance: i32,
) -> Result<(), Fail> {
    let protos = range();
    // Static members get their id with their first join (no MEMBER_ID_REQUIRED).
    for m in ms.iter_mut().filter(|m| m.instance_id.is_none()) {
        let r = c.join_once(m, g, session, rebalance, &protos).await?;
        expect(&r, 79, "first join")?;
    }
    for (i, m) in ms.iter_mut().enumerate() {
        c.send_join(m, g, session, rebalance, &protos).await?;
        c.await_group(g, "holding the joins so far", |d| d.members.len() > i)
            .await?;
    }
    for m in ms.iter_mut() {
        let r: JoinGroupResponse = c.recv_as(m).await?;
        expect(&r, 0, "join")?;
    }
    let refs: Vec<&Member> = ms.iter().collect();
    let plan = one_each(&refs);
    c.send_sync(&mut ms[0], g, &plan).await?;
    for m in ms[1..].iter_mut() {
        c.send_sync(m, g, &[]).await?;
    }
    for m in ms.iter_mut() {
        let r: SyncGroupResponse = c.recv_as(m).await?;
        expect(&r, 0, "sync")?;
    }
    Ok(())
}

/// How many partitions a ConsumerGroupHeartbeat member owns.
fn owned(m: &Member) -> usize {
    m.owned.iter().map(|(_, p)| p.len()).sum()
}

/// New members named `names`.
async fn members(c: &mut Ctx, names: &[&str]) -> Result<Vec<Member>, Fail> {
    let mut out = Vec::new();
    for n in names {
        out.push(c.member(n).await?);
    }
    Ok(out)
}

/// One member: KIP-394 join, leader of generation 1 after the initial delay, sync, heartbeat,
/// describe.
fn join_single(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut a = c.member("a").await?;
        let r = c.join(&mut a, &g, SESSION, REBALANCE, &range()).await?;
        expect(&r, 0, "join")?;
        let plan = vec![(
            a.member_id.clone(),
            assignment(&[(TOPIC, &[0, 1, 2, 3, 4, 5])]),
        )];
        c.sync(&mut a, &g, &plan).await?;
        c.heartbeat(&mut a, &g).await?;
        c.describe(&mut a, &[&g]).await?;
        Ok(())
    })
}

/// JoinGroup v3 (before KIP-394): the member id is given at once, no MEMBER_ID_REQUIRED.
fn join_v3_without_member_id_required(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut a = c.member("a").await?;
        let req = c.join_req(&a, &g, SESSION, REBALANCE, &range());
        let r = c.request(&mut a, &req, 3, "JoinGroup v3").await?;
        expect(&r, 0, "join v3")?;
        let req = c.sync_req(
            &a,
            &g,
            &[(a.member_id.clone(), assignment(&[(TOPIC, &[0])]))],
        );
        c.call(&mut a, req, 2, "SyncGroup v2").await?;
        let req = Ctx::heartbeat_req(&a, &g);
        c.call(&mut a, req, 2, "Heartbeat v2").await?;
        Ok(())
    })
}

/// Two members join inside the initial rebalance delay: one generation with both; the follower's
/// SyncGroup waits for the leader's and gets what the leader assigned.
fn initial_delay_gathers_members(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        let protos = range();
        for m in ms.iter_mut() {
            let r = c.join_once(m, &g, SESSION, REBALANCE, &protos).await?;
            expect(&r, 79, "first join")?;
        }
        c.send_join(&mut ms[0], &g, SESSION, REBALANCE, &protos)
            .await?;
        c.await_group(&g, "holding a", |d| d.members.len() == 1)
            .await?;
        c.send_join(&mut ms[1], &g, SESSION, REBALANCE, &protos)
            .await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        c.recv(a).await?;
        c.recv(b).await?;
        // The follower first: its SyncGroup waits for the leader's.
        c.send_sync(b, &g, &[]).await?;
        c.await_group(&g, "completing the rebalance", |d| {
            d.group_state == *"CompletingRebalance"
        })
        .await?;
        let plan = one_each(&[&*a, &*b]);
        c.send_sync(a, &g, &plan).await?;
        c.recv(a).await?;
        c.recv(b).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// A stable group of one; a second member joins: the first learns of the rebalance from its
/// heartbeat (REBALANCE_IN_PROGRESS), rejoins, and both get generation 2 with the same leader.
fn second_member_triggers_rebalance(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let mut a = ms.pop().unwrap();
        let mut b = c.member("b").await?;
        let r = c
            .join_once(&mut b, &g, SESSION, REBALANCE, &range())
            .await?;
        expect(&r, 79, "b's first join")?;
        c.send_join(&mut b, &g, SESSION, REBALANCE, &range())
            .await?;
        c.heartbeat_until(&mut a, &g).await?;
        // SyncGroup in PreparingRebalance is refused too.
        c.sync(&mut a, &g, &[]).await?;
        c.join(&mut a, &g, SESSION, REBALANCE, &range()).await?;
        c.recv(&mut b).await?;
        c.heartbeat(&mut a, &g).await?;
        let plan = one_each(&[&a, &b]);
        c.sync(&mut a, &g, &plan).await?;
        c.sync(&mut b, &g, &[]).await?;
        c.heartbeat(&mut b, &g).await?;
        Ok(())
    })
}

/// Three members; the leader's assignment leaves one out (it gets an empty assignment); a
/// SyncGroup that is repeated in Stable gets the same answer.
fn sync_relay_and_missing_assignment(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b", "x"]).await?;
        let protos = range();
        for m in ms.iter_mut() {
            c.join_once(m, &g, SESSION, REBALANCE, &protos).await?;
        }
        for (i, m) in ms.iter_mut().enumerate() {
            c.send_join(m, &g, SESSION, REBALANCE, &protos).await?;
            c.await_group(&g, "holding the joins", |d| d.members.len() > i)
                .await?;
        }
        for m in ms.iter_mut() {
            c.recv(m).await?;
        }
        let [a, b, x] = &mut ms[..] else {
            unreachable!()
        };
        let plan = vec![
            (a.member_id.clone(), assignment(&[(TOPIC, &[0, 1])])),
            (
                b.member_id.clone(),
                assignment(&[(TOPIC, &[2, 3]), (super::scenarios::TOPIC2, &[0])]),
            ),
        ];
        c.send_sync(b, &g, &[]).await?;
        c.send_sync(x, &g, &[]).await?;
        c.sync(a, &g, &plan).await?;
        c.recv(b).await?;
        c.recv(x).await?;
        c.sync(b, &g, &[]).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// A follower leaves with LeaveGroup v2 (one member id): the leader is told to rejoin and forms
/// generation 2 alone.
fn leave_single_v2(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let req = kwire_protocol::generated::leave_group_request::LeaveGroupRequest {
            group_id: g.clone().into(),
            member_id: b.member_id.clone().into(),
            ..Default::default()
        };
        c.call(b, req, 2, "LeaveGroup v2").await?;
        c.heartbeat_until(a, &g).await?;
        c.join(a, &g, SESSION, REBALANCE, &range()).await?;
        c.heartbeat(b, &g).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// Batch leave (v5): two known members and an unknown one; per-member errors.
fn leave_batch(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b", "d"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b, d] = &mut ms[..] else {
            unreachable!()
        };
        let who = vec![
            (b.member_id.clone(), None),
            (d.member_id.clone(), None),
            ("nobody-1".to_string(), None),
        ];
        c.leave(a, &g, &who).await?;
        c.heartbeat_until(a, &g).await?;
        c.join(a, &g, SESSION, REBALANCE, &range()).await?;
        c.describe(a, &[&g]).await?;
        // Everyone leaves: the group is Empty.
        let who = vec![(a.member_id.clone(), None)];
        c.leave(a, &g, &who).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// The leader leaves: the follower becomes the leader of the next generation.
fn leader_leaves(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let who = vec![(a.member_id.clone(), None)];
        c.leave(a, &g, &who).await?;
        c.heartbeat_until(b, &g).await?;
        c.join(b, &g, SESSION, REBALANCE, &range()).await?;
        let plan = one_each(&[&*b]);
        c.sync(b, &g, &plan).await?;
        Ok(())
    })
}

/// A member that stops heartbeating is removed after its session timeout; the other is told to
/// rejoin.
fn session_timeout_removes_member(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut a = c.member("a").await?;
        let mut b = c.member("b").await?;
        let protos = range();
        for m in [&mut a, &mut b] {
            c.join_once(m, &g, SESSION, REBALANCE, &protos).await?;
        }
        c.send_join(&mut a, &g, SESSION, REBALANCE, &protos).await?;
        c.await_group(&g, "holding a", |d| d.members.len() == 1)
            .await?;
        c.send_join(&mut b, &g, SHORT_SESSION, REBALANCE, &protos)
            .await?;
        c.recv(&mut a).await?;
        c.recv(&mut b).await?;
        let plan = one_each(&[&a, &b]);
        c.sync(&mut a, &g, &plan).await?;
        c.sync(&mut b, &g, &[]).await?;
        // b goes silent.
        c.heartbeat_until(&mut a, &g).await?;
        c.join(&mut a, &g, SESSION, REBALANCE, &protos).await?;
        c.heartbeat(&mut b, &g).await?;
        c.describe(&mut a, &[&g]).await?;
        Ok(())
    })
}

/// A member that does not rejoin within the rebalance timeout is removed when the join phase
/// ends; the others get the next generation without it.
fn rebalance_timeout_removes_laggard(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, SHORT_REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let mut n = c.member("n").await?;
        c.join_once(&mut n, &g, SESSION, SHORT_REBALANCE, &range())
            .await?;
        c.send_join(&mut n, &g, SESSION, SHORT_REBALANCE, &range())
            .await?;
        c.heartbeat_until(a, &g).await?;
        c.send_join(a, &g, SESSION, SHORT_REBALANCE, &range())
            .await?;
        // b never rejoins: the join phase ends at the rebalance timeout.
        c.recv(a).await?;
        c.recv(&mut n).await?;
        c.heartbeat(b, &g).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// A static member restarts (same group.instance.id, no member id): it replaces the old member
/// without a rebalance and gets the current generation; the old member id is fenced.
fn static_member_replacement(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        ms[0].instance_id = Some("inst-a".into());
        ms[1].instance_id = Some("inst-b".into());
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let mut a2 = c.member("a2").await?;
        a2.instance_id = Some("inst-a".into());
        let r = c.join(&mut a2, &g, SESSION, REBALANCE, &range()).await?;
        expect(&r, 0, "static rejoin")?;
        c.sync(&mut a2, &g, &[]).await?;
        c.heartbeat(b, &g).await?;
        c.heartbeat(&mut a2, &g).await?;
        // The old incarnation is fenced everywhere.
        c.heartbeat(a, &g).await?;
        c.sync(a, &g, &[]).await?;
        let req = c.join_req(a, &g, SESSION, REBALANCE, &range());
        c.call(a, req, 9, "JoinGroup (old member id)").await?;
        c.describe(b, &[&g]).await?;
        Ok(())
    })
}

/// Static members leave by instance id (LeaveGroup v5 without member id); an unknown instance
/// id and a wrong member id for a known instance are refused per member.
fn static_member_leave_by_instance(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        ms[0].instance_id = Some("inst-a".into());
        ms[1].instance_id = Some("inst-b".into());
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let who = vec![
            (String::new(), Some("inst-b".to_string())),
            (String::new(), Some("inst-unknown".to_string())),
            ("wrong-member".to_string(), Some("inst-a".to_string())),
        ];
        c.leave(a, &g, &who).await?;
        c.heartbeat_until(a, &g).await?;
        c.join(a, &g, SESSION, REBALANCE, &range()).await?;
        c.heartbeat(b, &g).await?;
        c.describe(a, &[&g]).await?;
        Ok(())
    })
}

/// Protocol selection: the protocol every member supports with the most votes (members' own
/// preference order) wins; one that nobody else supports is refused with
/// INCONSISTENT_GROUP_PROTOCOL, as is another protocol type.
fn protocol_selection_and_inconsistent_protocol(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let sub = subscription(&[TOPIC]);
        let pa = vec![("range", sub.clone()), ("roundrobin", sub.clone())];
        let pb = vec![("roundrobin", sub.clone()), ("sticky", sub.clone())];
        let mut a = c.member("a").await?;
        let mut b = c.member("b").await?;
        c.join_once(&mut a, &g, SESSION, REBALANCE, &pa).await?;
        c.join_once(&mut b, &g, SESSION, REBALANCE, &pb).await?;
        c.send_join(&mut a, &g, SESSION, REBALANCE, &pa).await?;
        c.await_group(&g, "holding a", |d| d.members.len() == 1)
            .await?;
        c.send_join(&mut b, &g, SESSION, REBALANCE, &pb).await?;
        c.recv(&mut a).await?;
        c.recv(&mut b).await?;
        // Nobody else speaks "cooperative-sticky".
        let mut x = c.member("x").await?;
        let px = vec![("cooperative-sticky", sub.clone())];
        c.join_once(&mut x, &g, SESSION, REBALANCE, &px).await?;
        let req = c.join_req(&x, &g, SESSION, REBALANCE, &px);
        c.call(&mut x, req, 9, "JoinGroup (with member id)").await?;
        // Another protocol type.
        let mut y = c.member("y").await?;
        let mut req = c.join_req(&y, &g, SESSION, REBALANCE, &pa);
        req.protocol_type = "connect".into();
        c.call(&mut y, req, 9, "JoinGroup (connect)").await?;
        // An empty protocol list.
        let mut z = c.member("z").await?;
        let req = c.join_req(&z, &g.clone(), SESSION, REBALANCE, &[]);
        c.call(&mut z, req, 9, "JoinGroup (no protocols)").await?;
        c.describe(&mut a, &[&g]).await?;
        Ok(())
    })
}

/// Requests with a member id the group does not know, and to a group that does not exist.
fn unknown_member(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let mut a = ms.pop().unwrap();
        let mut u = c.member("u").await?;
        u.member_id = "not-a-member".into();
        u.generation = a.generation;
        c.heartbeat(&mut u, &g).await?;
        c.sync(&mut u, &g, &[]).await?;
        let req = c.join_req(&u, &g, SESSION, REBALANCE, &range());
        c.call(&mut u, req, 9, "JoinGroup (unknown member id)")
            .await?;
        let who = vec![(u.member_id.clone(), None)];
        c.leave(&mut u, &g, &who).await?;
        // A group nobody created.
        let nowhere = c.group("nowhere");
        c.heartbeat(&mut u, &nowhere).await?;
        c.sync(&mut u, &nowhere, &[]).await?;
        c.leave(&mut u, &nowhere, &who).await?;
        c.heartbeat(&mut a, &g).await?;
        Ok(())
    })
}

/// Heartbeat and SyncGroup with the wrong generation: ILLEGAL_GENERATION.
fn illegal_generation(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let right = a.generation;
        a.generation = right + 1;
        c.heartbeat(a, &g).await?;
        c.sync(a, &g, &[]).await?;
        a.generation = right - 1;
        c.heartbeat(a, &g).await?;
        a.generation = right;
        c.heartbeat(a, &g).await?;
        c.heartbeat(b, &g).await?;
        Ok(())
    })
}

/// DescribeGroups, ListGroups with state and type filters, DeleteGroups of a non-empty, an
/// empty and an unknown group.
fn describe_list_delete(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let g2 = c.group("second");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let mut ms2 = members(c, &["p"]).await?;
        form(c, &g2, &mut ms2, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let unknown = c.group("unknown");
        c.describe(a, &[&g, &g2, &unknown]).await?;
        c.list(a, &[], &[]).await?;
        c.list(a, &["Stable"], &[]).await?;
        c.list(a, &["Empty"], &[]).await?;
        c.list(a, &[], &["classic"]).await?;
        c.list(a, &[], &["consumer"]).await?;
        c.list(a, &["stable"], &["Classic"]).await?;
        let del = |gs: &[&str]| DeleteGroupsRequest {
            groups_names: gs.iter().map(|x| x.to_string().into()).collect(),
            ..Default::default()
        };
        c.call(a, del(&[&g, &unknown]), 2, "DeleteGroups").await?;
        let p = &mut ms2[0];
        let who = vec![(p.member_id.clone(), None)];
        c.leave(p, &g2, &who).await?;
        c.list(a, &["Empty"], &[]).await?;
        c.call(a, del(&[&g2]), 2, "DeleteGroups").await?;
        c.call(a, del(&[&g2]), 2, "DeleteGroups (again)").await?;
        c.describe(b, &[&g2]).await?;
        Ok(())
    })
}

/// An OffsetCommit (v9) of `m` for partition 0 of [`TOPIC`] with the generation and member id it
/// holds.
async fn commit(c: &mut Ctx, m: &mut Member, g: &str, label: &str) -> Result<Response, Fail> {
    let req = OffsetCommitRequest {
        group_id: g.to_string().into(),
        generation_id_or_member_epoch: m.generation,
        member_id: m.member_id.clone().into(),
        group_instance_id: m.instance_id.clone().map(Into::into),
        topics: vec![OffsetCommitRequestTopic {
            name: TOPIC.into(),
            partitions: vec![OffsetCommitRequestPartition {
                partition_index: 0,
                committed_offset: 5,
                committed_leader_epoch: -1,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    c.call(m, req, 9, label).await
}

/// OffsetCommit's generation checks for classic members: right generation, wrong generation,
/// unknown member, during CompletingRebalance, a fenced static member, an admin commit
/// (generation -1) to a non-empty and to an empty group.
fn offset_commit_generation_checks(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        ms[1].instance_id = Some("inst-b".into());
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        commit(c, a, &g, "OffsetCommit").await?;
        let right = a.generation;
        a.generation = right + 1;
        commit(c, a, &g, "OffsetCommit (wrong generation)").await?;
        a.generation = right;
        let mut u = c.member("u").await?;
        u.member_id = "not-a-member".into();
        u.generation = right;
        commit(c, &mut u, &g, "OffsetCommit (unknown member)").await?;
        let mut admin = c.member("admin").await?;
        commit(
            c,
            &mut admin,
            &g,
            "OffsetCommit (generation -1, non-empty group)",
        )
        .await?;
        // A static member's old id after a replacement.
        let mut b2 = c.member("b2").await?;
        b2.instance_id = Some("inst-b".into());
        c.join(&mut b2, &g, SESSION, REBALANCE, &range()).await?;
        commit(c, b, &g, "OffsetCommit (fenced static member)").await?;
        // A rebalance in CompletingRebalance: joined but not synced.
        let mut n = c.member("n").await?;
        c.join_once(&mut n, &g, SESSION, REBALANCE, &range())
            .await?;
        c.send_join(&mut n, &g, SESSION, REBALANCE, &range())
            .await?;
        c.heartbeat_until(a, &g).await?;
        commit(c, a, &g, "OffsetCommit (PreparingRebalance)").await?;
        c.send_join(a, &g, SESSION, REBALANCE, &range()).await?;
        c.heartbeat_until(&mut b2, &g).await?;
        c.join(&mut b2, &g, SESSION, REBALANCE, &range()).await?;
        c.recv(a).await?;
        c.recv(&mut n).await?;
        commit(c, a, &g, "OffsetCommit (CompletingRebalance)").await?;
        // Everyone leaves; an admin commit to the empty group.
        let who = vec![
            (a.member_id.clone(), None),
            (n.member_id.clone(), None),
            (String::new(), Some("inst-b".to_string())),
        ];
        c.leave(a, &g, &who).await?;
        commit(
            c,
            &mut admin,
            &g,
            "OffsetCommit (generation -1, empty group)",
        )
        .await?;
        Ok(())
    })
}

/// Upgrade: a ConsumerGroupHeartbeat to a non-empty classic `consumer` group converts it to a
/// consumer group; the classic members learn it from REBALANCE_IN_PROGRESS, rejoin, and get the
/// server-computed assignment in SyncGroup.
fn upgrade_classic_to_consumer(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a", "b"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.list(a, &[], &[]).await?;
        c.heartbeat_until(a, &g).await?;
        classic_rejoin_in_consumer_group(c, a, &g).await?;
        c.heartbeat_until(b, &g).await?;
        classic_rejoin_in_consumer_group(c, b, &g).await?;
        c.cg_until(&mut n, &g, |m| !m.owned.is_empty()).await?;
        describe_consumer_group(c, &mut n, &g).await?;
        Ok(())
    })
}

/// A classic member's rejoin inside a consumer group: JoinGroup, then SyncGroup (its
/// server-computed assignment, recorded decoded), then Heartbeat.
async fn classic_rejoin_in_consumer_group(
    c: &mut Ctx,
    m: &mut Member,
    g: &str,
) -> Result<(), Fail> {
    let r = c.join(m, g, SESSION, REBALANCE, &range()).await?;
    expect(&r, 0, "classic join in a consumer group")?;
    let s = c.sync(m, g, &[]).await?;
    let parts = decode_assignment(&s.assignment)?;
    let label = format!("{}: SyncGroup assignment (decoded)", m.name);
    let parts: Vec<serde_json::Value> = parts
        .into_iter()
        .map(|(t, p)| serde_json::json!({"topic": t, "partitions": p}))
        .collect();
    c.note(&label, serde_json::json!(parts));
    c.heartbeat(m, g).await?;
    Ok(())
}

/// ConsumerGroupDescribe v1 and DescribeGroups of `g`, by `m`.
async fn describe_consumer_group(c: &mut Ctx, m: &mut Member, g: &str) -> Result<(), Fail> {
    let req = ConsumerGroupDescribeRequest {
        group_ids: vec![g.to_string().into()],
        ..Default::default()
    };
    c.call(m, req, 1, "ConsumerGroupDescribe").await?;
    c.describe(m, &[g]).await?;
    Ok(())
}

/// A classic member joins a consumer group (made by a ConsumerGroupHeartbeat member): its
/// subscription comes from its protocol metadata, its assignment from the server.
fn classic_member_joins_consumer_group(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.cg_until(&mut n, &g, |m| !m.owned.is_empty()).await?;
        let mut a = c.member("a").await?;
        classic_rejoin_in_consumer_group(c, &mut a, &g).await?;
        c.cg_until(&mut n, &g, |m| owned(m) == TOPIC_PARTITIONS as usize / 2)
            .await?;
        c.heartbeat_until(&mut a, &g).await?;
        classic_rejoin_in_consumer_group(c, &mut a, &g).await?;
        c.list(&mut a, &[], &["consumer"]).await?;
        describe_consumer_group(c, &mut a, &g).await?;
        // Classic members of a consumer group leave with LeaveGroup.
        let who = vec![(a.member_id.clone(), None)];
        c.leave(&mut a, &g, &who).await?;
        c.cg_until(&mut n, &g, |m| owned(m) == TOPIC_PARTITIONS as usize)
            .await?;
        Ok(())
    })
}

/// Downgrade: the last ConsumerGroupHeartbeat member leaves a group that still has classic
/// members: the group becomes a classic group again and its classic members rejoin.
fn downgrade_when_last_consumer_member_leaves(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.cg_until(&mut n, &g, |m| !m.owned.is_empty()).await?;
        let mut a = c.member("a").await?;
        classic_rejoin_in_consumer_group(c, &mut a, &g).await?;
        c.cg_leave(&mut n, &g).await?;
        c.list(&mut a, &[], &[]).await?;
        c.heartbeat_until(&mut a, &g).await?;
        let r = c.join(&mut a, &g, SESSION, REBALANCE, &range()).await?;
        expect(&r, 0, "rejoin after the downgrade")?;
        let plan = one_each(&[&a]);
        c.sync(&mut a, &g, &plan).await?;
        c.heartbeat(&mut a, &g).await?;
        c.describe(&mut a, &[&g]).await?;
        c.list(&mut a, &[], &["classic"]).await?;
        Ok(())
    })
}

/// Upgrade and downgrade in one group: classic group, a ConsumerGroupHeartbeat member joins
/// (upgrade), then leaves (downgrade).
fn upgrade_then_downgrade(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let mut a = ms.pop().unwrap();
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.heartbeat_until(&mut a, &g).await?;
        classic_rejoin_in_consumer_group(c, &mut a, &g).await?;
        c.cg_until(&mut n, &g, |m| !m.owned.is_empty()).await?;
        c.cg_leave(&mut n, &g).await?;
        c.heartbeat_until(&mut a, &g).await?;
        let r = c.join(&mut a, &g, SESSION, REBALANCE, &range()).await?;
        expect(&r, 0, "rejoin after the downgrade")?;
        c.list(&mut a, &[], &[]).await?;
        Ok(())
    })
}

/// An empty classic group (all members left, offsets kept) becomes a consumer group at the first
/// ConsumerGroupHeartbeat; an empty consumer group serves a classic JoinGroup as a consumer
/// group member.
fn empty_groups_convert_freely(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = members(c, &["a"]).await?;
        form(c, &g, &mut ms, SESSION, REBALANCE).await?;
        let mut a = ms.pop().unwrap();
        commit(c, &mut a, &g, "OffsetCommit").await?;
        let who = vec![(a.member_id.clone(), None)];
        c.leave(&mut a, &g, &who).await?;
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.list(&mut n, &[], &[]).await?;
        c.cg_leave(&mut n, &g).await?;
        c.end_rebase();
        c.list(&mut n, &[], &[]).await?;
        let mut b = c.member("b").await?;
        let r = c.join(&mut b, &g, SESSION, REBALANCE, &range()).await?;
        expect(&r, 0, "classic join to an empty consumer group")?;
        c.list(&mut b, &[], &[]).await?;
        Ok(())
    })
}

/// Upgrade refused: a classic group whose protocol type is not `consumer` is not converted; the
/// ConsumerGroupHeartbeat is refused.
fn upgrade_refused_for_other_protocol_type(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut a = c.member("a").await?;
        let mut req = c.join_req(&a, &g, SESSION, REBALANCE, &range());
        req.protocol_type = "connect".into();
        c.call(&mut a, req.clone(), 9, "JoinGroup (connect)")
            .await?;
        req.member_id = a.member_id.clone().into();
        c.call(&mut a, req, 9, "JoinGroup (connect, with member id)")
            .await?;
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.list(&mut a, &[], &[]).await?;
        Ok(())
    })
}

/// Classic members inside a consumer group: a stale generation and an unknown member id are
/// refused.
fn classic_member_in_consumer_group_errors(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut n = c.member("n").await?;
        c.cg(&mut n, &g, Some(&[TOPIC])).await?;
        c.cg_until(&mut n, &g, |m| !m.owned.is_empty()).await?;
        let mut a = c.member("a").await?;
        classic_rejoin_in_consumer_group(c, &mut a, &g).await?;
        let right = a.generation;
        a.generation = right - 1;
        c.heartbeat(&mut a, &g).await?;
        a.generation = right;
        let mut u = c.member("u").await?;
        u.member_id = "not-a-member".into();
        u.generation = right;
        c.heartbeat(&mut u, &g).await?;
        c.sync(&mut u, &g, &[]).await?;
        describe_consumer_group(c, &mut n, &g).await?;
        Ok(())
    })
}

/// Every scenario, in the order of the report.
pub fn all() -> Vec<Scenario> {
    vec![
        Scenario::new("join-single", join_single),
        Scenario::new("join-v3", join_v3_without_member_id_required),
        Scenario::new("initial-delay", initial_delay_gathers_members),
        Scenario::new("second-member", second_member_triggers_rebalance),
        Scenario::new("sync-relay", sync_relay_and_missing_assignment),
        Scenario::new("leave-single", leave_single_v2),
        Scenario::new("leave-batch", leave_batch),
        Scenario::new("leader-leaves", leader_leaves),
        Scenario::new("session-timeout", session_timeout_removes_member),
        Scenario::new("rebalance-timeout", rebalance_timeout_removes_laggard),
        Scenario::new("static-replace", static_member_replacement),
        Scenario::new("static-leave", static_member_leave_by_instance),
        Scenario::new("protocols", protocol_selection_and_inconsistent_protocol),
        Scenario::new("unknown-member", unknown_member),
        Scenario::new("illegal-generation", illegal_generation),
        Scenario::new("describe-list-delete", describe_list_delete),
        Scenario::new("offset-commit", offset_commit_generation_checks),
        Scenario::new("upgrade", upgrade_classic_to_consumer).migration(),
        Scenario::new("classic-in-consumer", classic_member_joins_consumer_group)
            .migration()
            .fresh_consumer_group(),
        Scenario::new("downgrade", downgrade_when_last_consumer_member_leaves)
            .migration()
            .fresh_consumer_group(),
        Scenario::new("upgrade-downgrade", upgrade_then_downgrade).migration(),
        Scenario::new("empty-convert", empty_groups_convert_freely)
            .migration()
            .fresh_consumer_group(),
        Scenario::new("upgrade-refused", upgrade_refused_for_other_protocol_type).migration(),
        Scenario::new(
            "classic-in-consumer-errors",
            classic_member_in_consumer_group_errors,
        )
        .migration()
        .fresh_consumer_group(),
    ]
}

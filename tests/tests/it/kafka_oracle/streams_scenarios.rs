//! The streams-group scenarios (KIP-1071): simulated Kafka Streams members, one connection each,
//! driving StreamsGroupHeartbeat and StreamsGroupDescribe through raw requests against the
//! Kafka 4.4.0 broker and kwire-server; the transcripts must be equal after
//! [`super::normalise`] (see the module docs of [`super`] for the accepted differences S1–S…).
//!
//! A member acknowledges what it was given at once: every heartbeat after the join carries the
//! tasks of its last assignment (all three lists, never null), no topology, process id, endpoint
//! or client tags (the coordinator keeps them), and the endpoint-information epoch it last got.
//! Conditions that depend on time (a revocation reaching another member, a session timeout, the
//! broker creating internal topics or seeing a new topic) are polled for; only the last answer of
//! a poll is compared.
//!
//! Topologies are written as Kafka Streams sends them: subtopology ids "0", "1", …, topology
//! epoch 0, changelog and repartition topics named `<application id>-<name>-changelog` /
//! `-repartition` (the application id is the group id), internal topics without replication
//! factor (0: the broker's default) and changelogs without partition counts.
//!
//! Topology updates (D1) are not compared: [`topology_update_d1`] runs the script on both sides,
//! records the broker's INVALID_REQUEST and asserts kwire's own answer.

use super::harness::{Ctx, Fail, Member};
use super::scenario::Scenario;
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_protocol::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use kwire_protocol::generated::streams_group_heartbeat_request::{
    CopartitionGroup, Endpoint, KeyValue, StreamsGroupHeartbeatRequest, Subtopology, TaskIds,
    TaskOffset, TopicInfo, Topology,
};
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::Response;
use kwire_server::Client;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::scenario::Fut;
use kwire_protocol::wire::json::Value;

/// A source topic of 4 partitions.
pub const S1: &str = "oracle-s1";
/// A second source topic of 4 partitions (copartitioned with [`S1`]).
pub const S2: &str = "oracle-s2";
/// A source topic of 2 partitions (not copartitionable with [`S1`]).
pub const S3: &str = "oracle-s3";

/// Rebalance timeout of members that revoke in time (ms).
const REBALANCE: i32 = 10_000;
/// Rebalance timeout of members meant to miss it (ms).
const SHORT_REBALANCE: i32 = 600;
/// How long a poll may take (above the session timeout, 3 s).
const POLL_WITHIN: Duration = Duration::from_secs(20);

/// Status codes of StreamsGroupHeartbeat (KIP-1071; 6 is Kafka 4.4's MISSING_CLIENT_TAGS).
mod status {
    pub const MISSING_SOURCE_TOPICS: i8 = 1;
    pub const INCORRECTLY_PARTITIONED_TOPICS: i8 = 2;
    pub const MISSING_INTERNAL_TOPICS: i8 = 3;
    pub const SHUTDOWN_APPLICATION: i8 = 4;
}

/// The streams suite's scenarios.
pub fn all() -> Vec<Scenario> {
    vec![
        Scenario::new("s-join-single", join_single),
        Scenario::new("s-two-members", two_members),
        Scenario::new("s-shared-process", shared_process).counts(),
        Scenario::new("s-leave", leave),
        Scenario::new("s-rejoin-after-leave", rejoin_after_leave),
        Scenario::new("s-session-timeout", session_timeout),
        Scenario::new("s-rebalance-timeout", rebalance_timeout),
        Scenario::new("s-shutdown-request", shutdown_request),
        Scenario::new("s-missing-source-topic", missing_source_topic),
        Scenario::new("s-changelog", changelog),
        Scenario::new("s-repartition", repartition),
        Scenario::new("s-repartition-fixed", repartition_fixed),
        Scenario::new("s-copartition-mismatch", copartition_mismatch),
        Scenario::new("s-standby", standby),
        Scenario::new("s-standby-same-process", standby_same_process),
        Scenario::new("s-endpoints", endpoints).known_difference(
            "S4: the standby moved to the joining member c is another partition than Kafka 4.4.0's",
        ),
        Scenario::new("s-fenced-epoch", fenced_epoch),
        Scenario::new("s-unknown-member", unknown_member),
        Scenario::new("s-group-not-found", group_not_found),
        Scenario::new("s-invalid-requests", invalid_requests),
        Scenario::new("s-invalid-owned-tasks", invalid_owned_tasks),
        Scenario::new("s-not-a-streams-group", not_a_streams_group),
        Scenario::new("s-describe-empty", describe_empty),
        Scenario::new("s-task-offsets-v0", task_offsets_v0),
        Scenario::new("s-rack-and-tags", rack_and_tags),
        Scenario::new("s-v1-join-describe", v1_join_describe),
        Scenario::new("s-v1-standby", v1_standby),
        Scenario::new("s-v1-task-offsets", v1_task_offsets),
        Scenario::new("s-v1-describe-missing", v1_describe_missing),
        Scenario::new("s-static-rejoin", static_rejoin),
        Scenario::new("s-static-unreleased", static_unreleased),
        Scenario::new("s-static-leave", static_leave),
        Scenario::new("s-static-v0", static_v0),
        Scenario::new("s-description-update", description_update),
        Scenario::new("s-warm-up", warm_up).checked_on_its_own(check_warm_up),
        Scenario::new("s-d1-topology-update", topology_update_d1).checked_on_its_own(check_d1),
    ]
}

/// Creates [`S1`], [`S2`] (4 partitions each) and [`S3`] (2) on `addr`, waits until Metadata
/// shows them and a throwaway streams member reading all three is given tasks (the broker's
/// group coordinator sees new topics a moment after its controller); returns (topic id, name)
/// for the normaliser.
pub async fn create_topics(addr: SocketAddr) -> Result<Vec<(String, String)>, Fail> {
    {
        let out = create(addr, &[(S1, 4), (S2, 4), (S3, 2)]).await?;
        let mut c = Client::connect(addr)
            .await
            .map_err(|e| format!("connect {addr}: {e}"))?;
        let id = super::broker::random_id();
        let topo = topology(vec![sub("0", &[S1, S2, S3], &[], &[], &[])]);
        let deadline = Instant::now() + POLL_WITHIN;
        let mut epoch = 0;
        loop {
            let req = StreamsGroupHeartbeatRequest {
                group_id: "oracle-streams-warm-up".into(),
                member_id: id.clone().into(),
                member_epoch: epoch,
                endpoint_information_epoch: -1,
                rebalance_timeout_ms: if epoch == 0 { REBALANCE } else { -1 },
                topology: (epoch == 0).then(|| topo.clone()),
                active_tasks: (epoch == 0).then(Vec::new),
                standby_tasks: (epoch == 0).then(Vec::new),
                warmup_tasks: (epoch == 0).then(Vec::new),
                process_id: (epoch == 0).then(|| "warm-up".into()),
                ..Default::default()
            };
            let h = c
                .request(&req, 0)
                .await
                .map_err(|e| format!("streams warm-up heartbeat on {addr} failed: {e}"))?;
            if h.error_code != 0 {
                return Err(format!(
                    "streams warm-up heartbeat on {addr}: error {}",
                    h.error_code
                ));
            }
            epoch = h.member_epoch;
            if h.active_tasks.as_ref().is_some_and(|t| !t.is_empty()) {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "streams warm-up member on {addr} got no tasks: {h:?}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let leave = StreamsGroupHeartbeatRequest {
            group_id: "oracle-streams-warm-up".into(),
            member_id: id.into(),
            member_epoch: -1,
            ..Default::default()
        };
        let _ = c.call(leave, 0).await;
        Ok(out)
    }
}

/// Creates `topics` (name, partitions) with CreateTopics v7 on `addr` and waits until Metadata
/// shows all their partitions with a leader; returns (topic id, `topic:<name>`) per topic.
pub async fn create(
    addr: SocketAddr,
    topics: &[(&str, i32)],
) -> Result<Vec<(String, String)>, Fail> {
    let mut c = Client::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    let req = CreateTopicsRequest {
        topics: topics
            .iter()
            .map(|(name, n)| CreatableTopic {
                name: name.to_string().into(),
                num_partitions: *n,
                replication_factor: 1,
                ..Default::default()
            })
            .collect(),
        timeout_ms: 30_000,
        ..Default::default()
    };
    let r = c
        .request(&req, 7)
        .await
        .map_err(|e| format!("CreateTopics on {addr} failed: {e}"))?;
    let mut out = Vec::new();
    for t in &r.topics {
        if t.error_code != 0 {
            return Err(format!(
                "CreateTopics {} on {addr}: error {} {:?}",
                t.name, t.error_code, t.error_message
            ));
        }
        out.push((t.topic_id.to_string(), format!("topic:{}", t.name)));
    }
    let deadline = Instant::now() + POLL_WITHIN;
    loop {
        let req = MetadataRequest {
            topics: Some(
                topics
                    .iter()
                    .map(|(t, _)| MetadataRequestTopic {
                        name: Some(t.to_string().into()),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        };
        let m = c
            .request(&req, 12)
            .await
            .map_err(|e| format!("Metadata on {addr} failed: {e}"))?;
        let ready = m.topics.len() == topics.len()
            && m.topics.iter().all(|t| {
                t.error_code == 0
                    && !t.partitions.is_empty()
                    && t.partitions.iter().all(|p| p.leader_id >= 0)
            });
        if ready {
            return Ok(out);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the topics do not show in Metadata on {addr}: {m:?}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Topologies

/// An internal topic without partition count or replication factor (both decided by the
/// coordinator), as Kafka Streams sends a changelog.
fn internal(name: &str, partitions: i32) -> TopicInfo {
    TopicInfo {
        name: name.to_string().into(),
        partitions,
        replication_factor: 0,
        ..Default::default()
    }
}

/// A subtopology: its source topics, repartition source topics (name, partitions; 0: derived),
/// repartition sink topics and changelog topics.
fn sub(
    id: &str,
    sources: &[&str],
    repartition_sources: &[(&str, i32)],
    sinks: &[&str],
    changelogs: &[&str],
) -> Subtopology {
    Subtopology {
        subtopology_id: id.to_string().into(),
        source_topics: sources.iter().map(|s| s.to_string().into()).collect(),
        repartition_source_topics: repartition_sources
            .iter()
            .map(|(n, p)| internal(n, *p))
            .collect(),
        repartition_sink_topics: sinks.iter().map(|s| s.to_string().into()).collect(),
        state_changelog_topics: changelogs.iter().map(|n| internal(n, 0)).collect(),
        ..Default::default()
    }
}

/// A topology at epoch 0.
fn topology(subtopologies: Vec<Subtopology>) -> Topology {
    Topology {
        epoch: 0,
        subtopologies,
        ..Default::default()
    }
}

/// One stateless subtopology reading [`S1`] (4 tasks).
fn stateless() -> Topology {
    topology(vec![sub("0", &[S1], &[], &[], &[])])
}

/// One stateful subtopology reading [`S1`] with the changelog `<group>-store-changelog`.
fn stateful(g: &str) -> Topology {
    topology(vec![sub(
        "0",
        &[S1],
        &[],
        &[],
        &[&format!("{g}-store-changelog")],
    )])
}

// ---------------------------------------------------------------------------------------------
// Members

/// A simulated Kafka Streams member: its connection ([`Member`]) and what it sends on joining.
struct SMember {
    m: Member,
    /// The topology it joins with.
    topology: Topology,
    /// StreamsGroupHeartbeat version it speaks.
    version: i16,
    /// Its `application.server` endpoint (host, port).
    endpoint: Option<(String, u16)>,
    /// Its rack.
    rack: Option<String>,
    /// Its client tags.
    tags: Vec<(String, String)>,
    /// Its rebalance timeout (ms).
    rebalance_ms: i32,
}

impl SMember {
    fn new(c: &mut Ctx, m: Member, topology: &Topology) -> SMember {
        let mut m = m;
        c.new_consumer_id(&mut m);
        SMember {
            m,
            topology: topology.clone(),
            version: 0,
            endpoint: None,
            rack: None,
            tags: Vec::new(),
            rebalance_ms: REBALANCE,
        }
    }

    /// The member's join (epoch 0) or heartbeat (its epoch) request.
    fn req(&self, g: &str) -> StreamsGroupHeartbeatRequest {
        let joining = self.m.generation <= 0;
        let tasks = |i: usize| -> Option<Vec<TaskIds>> {
            Some(if joining {
                Vec::new()
            } else {
                self.m.tasks[i]
                    .iter()
                    .map(|(s, p)| TaskIds {
                        subtopology_id: s.clone().into(),
                        partitions: p.clone().into(),
                        ..Default::default()
                    })
                    .collect()
            })
        };
        StreamsGroupHeartbeatRequest {
            group_id: g.to_string().into(),
            member_id: self.m.member_id.clone().into(),
            member_epoch: self.m.generation.max(0),
            endpoint_information_epoch: self.m.endpoint_epoch,
            instance_id: self.m.instance_id.clone().map(Into::into),
            rack_id: if joining {
                self.rack.clone().map(Into::into)
            } else {
                None
            },
            rebalance_timeout_ms: if joining { self.rebalance_ms } else { -1 },
            topology: joining.then(|| self.topology.clone()),
            active_tasks: tasks(0),
            standby_tasks: tasks(1),
            warmup_tasks: tasks(2),
            process_id: joining.then(|| self.m.process.clone().into()),
            user_endpoint: if joining {
                self.endpoint.as_ref().map(|(h, p)| Endpoint {
                    host: h.clone().into(),
                    port: *p,
                    ..Default::default()
                })
            } else {
                None
            },
            client_tags: joining.then(|| {
                self.tags
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.clone().into(),
                        value: v.clone().into(),
                        ..Default::default()
                    })
                    .collect()
            }),
            ..Default::default()
        }
    }
}

/// New streams members named `names`, all with `topology`.
async fn smembers(c: &mut Ctx, names: &[&str], topology: &Topology) -> Result<Vec<SMember>, Fail> {
    let mut out = Vec::new();
    for n in names {
        let m = c.member(n).await?;
        out.push(SMember::new(c, m, topology));
    }
    Ok(out)
}

/// The error code of a StreamsGroupHeartbeat answer.
fn err(r: &StreamsGroupHeartbeatResponse) -> i16 {
    r.error_code
}

/// The status codes of a StreamsGroupHeartbeat answer.
fn statuses(r: &StreamsGroupHeartbeatResponse) -> Vec<i8> {
    r.status
        .as_ref()
        .map(|s| s.iter().map(|s| s.status_code).collect())
        .unwrap_or_default()
}

/// Expects error code `code` in the StreamsGroupHeartbeat answer `r`.
fn expect(r: &StreamsGroupHeartbeatResponse, code: i16, what: &str) -> Result<(), Fail> {
    if err(r) == code {
        Ok(())
    } else {
        Err(format!("{what}: expected error {code}, got {}", err(r)))
    }
}

/// How many tasks of role `role` (0 active, 1 standby, 2 warm-up) `m` owns.
fn owned(m: &SMember, role: usize) -> usize {
    m.m.tasks[role].iter().map(|(_, p)| p.len()).sum()
}

/// `s`'s heartbeat (a join when it has no epoch), recorded.
async fn hb(c: &mut Ctx, s: &mut SMember, g: &str) -> Result<StreamsGroupHeartbeatResponse, Fail> {
    let req = s.req(g);
    let label = if req.member_epoch == 0 {
        "StreamsGroupHeartbeat (join)"
    } else {
        "StreamsGroupHeartbeat"
    };
    c.request(&mut s.m, &req, s.version, label).await
}

/// `s`'s heartbeat with `edit` applied to the request, recorded under `label`.
async fn hb_with(
    c: &mut Ctx,
    s: &mut SMember,
    g: &str,
    label: &str,
    edit: impl FnOnce(&mut StreamsGroupHeartbeatRequest),
) -> Result<StreamsGroupHeartbeatResponse, Fail> {
    let mut req = s.req(g);
    edit(&mut req);
    c.request(&mut s.m, &req, s.version, label).await
}

/// Heartbeats `s` (every 50 ms, acknowledging what it gets) until `done` holds for its state and
/// the answer, an answer carries an error, or [`POLL_WITHIN`] passes; records the last answer.
async fn hb_until(
    c: &mut Ctx,
    s: &mut SMember,
    g: &str,
    done: impl Fn(&SMember, &StreamsGroupHeartbeatResponse) -> bool,
) -> Result<StreamsGroupHeartbeatResponse, Fail> {
    let deadline = Instant::now() + POLL_WITHIN;
    let label = "StreamsGroupHeartbeat";
    loop {
        let req = s.req(g);
        let resp = c.request_quiet(&mut s.m, &req, s.version, label).await?;
        if err(&resp) != 0 || done(s, &resp) || Instant::now() > deadline {
            c.record_answer(&s.m, &format!("{label} (polled)"), &resp, s.version)?;
            return Ok(resp);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `s` leaves (epoch -1), recorded; it forgets its tasks and epoch.
async fn leave_group(
    c: &mut Ctx,
    s: &mut SMember,
    g: &str,
) -> Result<StreamsGroupHeartbeatResponse, Fail> {
    let req = StreamsGroupHeartbeatRequest {
        group_id: g.to_string().into(),
        member_id: s.m.member_id.clone().into(),
        member_epoch: -1,
        instance_id: s.m.instance_id.clone().map(Into::into),
        endpoint_information_epoch: s.m.endpoint_epoch,
        rebalance_timeout_ms: -1,
        ..Default::default()
    };
    let r = c
        .request(&mut s.m, &req, s.version, "StreamsGroupHeartbeat (leave)")
        .await?;
    s.m.generation = -1;
    s.m.tasks = Default::default();
    Ok(r)
}

/// StreamsGroupDescribe of `groups` at `version` by `by`, recorded.
async fn describe(
    c: &mut Ctx,
    by: &mut SMember,
    groups: &[&str],
    version: i16,
) -> Result<Response, Fail> {
    describe_with(c, by, groups, version, false).await
}

/// StreamsGroupDescribe of `groups` at `version` by `by`, with `IncludeTopologyDescription`
/// (v1), recorded.
async fn describe_with(
    c: &mut Ctx,
    by: &mut SMember,
    groups: &[&str],
    version: i16,
    include_description: bool,
) -> Result<Response, Fail> {
    let req = StreamsGroupDescribeRequest {
        group_ids: groups.iter().map(|g| g.to_string().into()).collect(),
        include_authorized_operations: false,
        include_topology_description: include_description,
        ..Default::default()
    };
    let label = format!("StreamsGroupDescribe v{version} (description {include_description})");
    c.call(&mut by.m, req, version, &label).await
}

/// Joins every member of `ms` in turn, then heartbeats them round-robin until no member's
/// assignment changes for a full round in which every answer is error-free and every member is
/// at the group's epoch (a stable group); records every join and the last answer of each member.
async fn stabilise(c: &mut Ctx, g: &str, ms: &mut [SMember]) -> Result<(), Fail> {
    for s in ms.iter_mut() {
        let r = hb(c, s, g).await?;
        expect(&r, 0, "join")?;
    }
    settle(c, g, ms).await
}

/// Heartbeats the members of `ms` round-robin (quietly) until a full round changes nothing and
/// all share one epoch; then records one more heartbeat of each.
async fn settle(c: &mut Ctx, g: &str, ms: &mut [SMember]) -> Result<(), Fail> {
    let deadline = Instant::now() + POLL_WITHIN;
    loop {
        let mut changed = false;
        let mut epochs = Vec::new();
        for s in ms.iter_mut() {
            let before = (s.m.generation, s.m.tasks.clone());
            let req = s.req(g);
            let label = "StreamsGroupHeartbeat";
            let resp = c.request_quiet(&mut s.m, &req, s.version, label).await?;
            if err(&resp) != 0 {
                return Err(format!(
                    "{}: {label}: error {} while settling",
                    s.m.name,
                    err(&resp)
                ));
            }
            changed |= before != (s.m.generation, s.m.tasks.clone());
            epochs.push(s.m.generation);
        }
        if !changed && epochs.windows(2).all(|w| w[0] == w[1]) {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("{g}: the members do not settle: epochs {epochs:?}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for s in ms.iter_mut() {
        hb(c, s, g).await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/// One member joins a new group with a stateless topology over [`S1`]: all four tasks, then a
/// steady heartbeat; describe v0.
fn join_single(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "join")?;
        hb(c, a, &g).await?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// A stable member of its own; a second joins: the first revokes half its tasks, the second
/// gets them once they are free; describe.
fn two_members(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms[..1]).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let r = hb(c, b, &g).await?;
        expect(&r, 0, "join b")?;
        describe(c, a, &[&g], 0).await?;
        hb(c, a, &g).await?;
        hb(c, a, &g).await?;
        hb_until(c, b, &g, |s, _| owned(s, 0) == 2).await?;
        settle(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// Three members, two of them in one process: tasks are balanced over processes first.
fn shared_process(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let topo = topology(vec![
            sub("0", &[S1], &[], &[], &[]),
            sub("1", &[S2], &[], &[], &[]),
        ]);
        let mut ms = smembers(c, &["a", "b", "c"], &topo).await?;
        ms[1].m.process = ms[0].m.process.clone();
        stabilise(c, &g, &mut ms).await?;
        describe(c, &mut ms[2], &[&g], 0).await?;
        Ok(())
    })
}

/// Two stable members; one leaves (-1): the other takes over its tasks; describe.
fn leave(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        leave_group(c, b, &g).await?;
        hb_until(c, a, &g, |s, _| owned(s, 0) == 4).await?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        // A leave of a member the group no longer has.
        b.m.generation = 1;
        leave_group(c, b, &g).await?;
        Ok(())
    })
}

/// A member leaves and joins again with the same member id at epoch 0.
fn rejoin_after_leave(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        leave_group(c, &mut ms[1], &g).await?;
        settle(c, &g, &mut ms[..1]).await?;
        let r = hb(c, &mut ms[1], &g).await?;
        expect(&r, 0, "rejoin")?;
        settle(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// Two stable members; one stops heartbeating: after the session timeout the other has every
/// task; the expired member's next heartbeat is refused.
fn session_timeout(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        hb_until(c, a, &g, |s, _| owned(s, 0) == 4).await?;
        describe(c, a, &[&g], 0).await?;
        hb(c, b, &g).await?;
        Ok(())
    })
}

/// A member that does not revoke within its rebalance timeout is removed from the group.
fn rebalance_timeout(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        ms[0].rebalance_ms = SHORT_REBALANCE;
        stabilise(c, &g, &mut ms[..1]).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        let held = a.m.tasks.clone();
        hb(c, b, &g).await?;
        // a keeps reporting all four tasks (it never revokes) until it is removed.
        let g2 = g.clone();
        let deadline = Instant::now() + POLL_WITHIN;
        loop {
            a.m.tasks = held.clone();
            let r = hb_with(c, a, &g2, "StreamsGroupHeartbeat (not revoking)", |_| {}).await?;
            if err(&r) != 0 || Instant::now() > deadline {
                break;
            }
            c.transcript.pop();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        hb_until(c, b, &g, |s, _| owned(s, 0) == 4).await?;
        describe(c, b, &[&g], 0).await?;
        Ok(())
    })
}

/// A member asks for the application's shutdown: every member's heartbeat carries
/// SHUTDOWN_APPLICATION until the group is empty; a new member after that does not.
fn shutdown_request(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b", "c"], &stateless()).await?;
        stabilise(c, &g, &mut ms[..2]).await?;
        {
            let [a, b, _] = &mut ms[..] else {
                unreachable!()
            };
            hb_with(c, a, &g, "StreamsGroupHeartbeat (shutdown request)", |r| {
                r.shutdown_application = true
            })
            .await?;
            hb(c, b, &g).await?;
            hb(c, a, &g).await?;
            describe(c, a, &[&g], 0).await?;
            leave_group(c, a, &g).await?;
            hb(c, b, &g).await?;
            leave_group(c, b, &g).await?;
        }
        let r = hb(c, &mut ms[2], &g).await?;
        if statuses(&r).contains(&status::SHUTDOWN_APPLICATION) {
            c.note("c still told to shut down", true.into());
        }
        Ok(())
    })
}

/// A topology reading a topic that does not exist: MISSING_SOURCE_TOPICS, no tasks, the group
/// NotReady; the topic is created and the member gets its tasks.
fn missing_source_topic(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let topic = format!("{g}-input");
        let topo = topology(vec![sub("0", &[&topic], &[], &[], &[])]);
        let mut ms = smembers(c, &["a"], &topo).await?;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        if !statuses(&r).contains(&status::MISSING_SOURCE_TOPICS) {
            return Err("no MISSING_SOURCE_TOPICS".into());
        }
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        let ids = create(c.addr, &[(&topic, 3)]).await?;
        for (id, name) in ids {
            c.names.bind(&id, &name);
        }
        hb_until(c, a, &g, |s, _| owned(s, 0) == 3).await?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// A stateful topology: the changelog is missing (MISSING_INTERNAL_TOPICS), created by the
/// coordinator's side with the source's partition count; then the member gets its tasks.
fn changelog(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateful(&g)).await?;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, a, &g, |s, r| {
            owned(s, 0) == 4 && !statuses(r).contains(&status::MISSING_INTERNAL_TOPICS)
        })
        .await?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// Two subtopologies joined by a repartition topic whose partition count is derived from its
/// upstream source (4); the downstream one is stateful.
fn repartition(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let rep = format!("{g}-by-key-repartition");
        let topo = topology(vec![
            sub("0", &[S1], &[], &[&rep], &[]),
            sub(
                "1",
                &[],
                &[(&rep, 0)],
                &[],
                &[&format!("{g}-count-changelog")],
            ),
        ]);
        let mut ms = smembers(c, &["a", "b"], &topo).await?;
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 8 && statuses(r).is_empty()
        })
        .await?;
        stabilise(c, &g, &mut ms[1..]).await?;
        settle(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// A repartition topic with a fixed partition count (2) feeding a copartitioned join with
/// another repartition topic derived from [`S3`].
fn repartition_fixed(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let r1 = format!("{g}-left-repartition");
        let r2 = format!("{g}-right-repartition");
        let mut join = sub(
            "2",
            &[],
            &[(&r1, 2), (&r2, 0)],
            &[],
            &[&format!("{g}-join-changelog")],
        );
        join.copartition_groups = vec![CopartitionGroup {
            repartition_source_topics: vec![0, 1].into(),
            ..Default::default()
        }];
        let topo = topology(vec![
            sub("0", &[S1], &[], &[&r1], &[]),
            sub("1", &[S3], &[], &[&r2], &[]),
            join,
        ]);
        let mut ms = smembers(c, &["a"], &topo).await?;
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 8 && statuses(r).is_empty()
        })
        .await?;
        hb(c, &mut ms[0], &g).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// Copartitioned source topics with different partition counts (4 and 2):
/// INCORRECTLY_PARTITIONED_TOPICS, no tasks.
fn copartition_mismatch(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut s = sub("0", &[S1, S3], &[], &[], &[]);
        s.copartition_groups = vec![CopartitionGroup {
            source_topics: vec![0, 1].into(),
            ..Default::default()
        }];
        let mut ms = smembers(c, &["a"], &topology(vec![s])).await?;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        if !statuses(&r).contains(&status::INCORRECTLY_PARTITIONED_TOPICS) {
            return Err("no INCORRECTLY_PARTITIONED_TOPICS".into());
        }
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// A stateful topology on two processes with one standby per task
/// (`group.streams.num.standby.replicas=1`): each process holds the standbys of the other's
/// active tasks.
fn standby(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateful(&g)).await?;
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 4 && statuses(r).is_empty()
        })
        .await?;
        stabilise(c, &g, &mut ms[1..]).await?;
        settle(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// Two members of one process with a stateful topology: no standby (it would share the process
/// with its active task).
fn standby_same_process(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateful(&g)).await?;
        ms[1].m.process = ms[0].m.process.clone();
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 4 && statuses(r).is_empty()
        })
        .await?;
        stabilise(c, &g, &mut ms[1..]).await?;
        settle(c, &g, &mut ms).await?;
        describe(c, &mut ms[1], &[&g], 0).await?;
        Ok(())
    })
}

/// Members with `application.server` endpoints: the endpoint-information epoch and every
/// endpoint's active and standby partitions.
fn endpoints(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b", "c"], &stateful(&g)).await?;
        for (i, s) in ms.iter_mut().enumerate() {
            s.endpoint = Some((format!("host-{i}"), 8000 + i as u16));
        }
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 4 && statuses(r).is_empty()
        })
        .await?;
        stabilise(c, &g, &mut ms[1..2]).await?;
        settle(c, &g, &mut ms[..2]).await?;
        // c (no endpoint of its own) learns the others' endpoints.
        ms[2].endpoint = None;
        stabilise(c, &g, &mut ms[2..]).await?;
        settle(c, &g, &mut ms).await?;
        // A member that forgot the epoch is sent the endpoints again.
        ms[0].m.endpoint_epoch = -1;
        hb(c, &mut ms[0], &g).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// A heartbeat at an epoch the member does not have: FENCED_MEMBER_EPOCH; it rejoins at 0
/// with the same member id.
fn fenced_epoch(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        let a = &mut ms[0];
        let e = a.m.generation;
        hb_with(c, a, &g, "StreamsGroupHeartbeat (epoch + 1)", |r| {
            r.member_epoch = e + 1
        })
        .await?;
        hb_with(c, a, &g, "StreamsGroupHeartbeat (epoch - 1)", |r| {
            r.member_epoch = e - 1
        })
        .await?;
        a.m.generation = 0;
        a.m.tasks = Default::default();
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "rejoin")?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// A heartbeat at epoch 1 with a member id the group does not know: UNKNOWN_MEMBER_ID.
fn unknown_member(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "x"], &stateless()).await?;
        stabilise(c, &g, &mut ms[..1]).await?;
        let x = &mut ms[1];
        x.m.generation = 1;
        hb(c, x, &g).await?;
        leave_group(c, x, &g).await?;
        Ok(())
    })
}

/// A heartbeat at epoch 1 and a leave to a group that does not exist; describe v0 of it.
fn group_not_found(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        let a = &mut ms[0];
        a.m.generation = 1;
        hb(c, a, &g).await?;
        leave_group(c, a, &g).await?;
        describe(c, a, &[&g, &c.group("other")], 0).await?;
        Ok(())
    })
}

/// Requests Kafka refuses before looking at the group: INVALID_REQUEST.
fn invalid_requests(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        let a = &mut ms[0];
        hb_with(c, a, &g, "join without topology", |r| r.topology = None).await?;
        hb_with(c, a, &g, "join without rebalance timeout", |r| {
            r.rebalance_timeout_ms = -1
        })
        .await?;
        hb_with(c, a, &g, "join with an empty member id", |r| {
            r.member_id = "".into()
        })
        .await?;
        hb_with(c, a, &g, "join with an empty group id", |r| {
            r.group_id = "".into()
        })
        .await?;
        hb_with(c, a, &g, "join with an empty instance id", |r| {
            r.instance_id = Some("".into())
        })
        .await?;
        hb_with(c, a, &g, "join with an empty rack", |r| {
            r.rack_id = Some("".into())
        })
        .await?;
        hb_with(c, a, &g, "join owning a task", |r| {
            r.active_tasks = Some(vec![TaskIds {
                subtopology_id: "0".into(),
                partitions: vec![0].into(),
                ..Default::default()
            }])
        })
        .await?;
        hb_with(c, a, &g, "join with null standby tasks", |r| {
            r.standby_tasks = None
        })
        .await?;
        hb_with(c, a, &g, "epoch -3", |r| r.member_epoch = -3).await?;
        hb_with(c, a, &g, "epoch 1 with a topology", |r| r.member_epoch = 1).await?;
        hb_with(c, a, &g, "source topic regex", |r| {
            if let Some(t) = r.topology.as_mut() {
                t.subtopologies[0].source_topic_regex = vec!["oracle-s.*".into()];
            }
        })
        .await?;
        hb_with(c, a, &g, "changelog with a partition count", |r| {
            if let Some(t) = r.topology.as_mut() {
                t.subtopologies[0].state_changelog_topics =
                    vec![internal(&format!("{g}-x-changelog"), 3)];
            }
        })
        .await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// Owned tasks outside the configured topology: INVALID_REQUEST.
fn invalid_owned_tasks(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        let a = &mut ms[0];
        let task = |s: &str, p: i32| TaskIds {
            subtopology_id: s.to_string().into(),
            partitions: vec![p].into(),
            ..Default::default()
        };
        hb_with(c, a, &g, "owning a task of an unknown subtopology", |r| {
            r.active_tasks = Some(vec![task("9", 0)])
        })
        .await?;
        hb_with(c, a, &g, "owning a partition past the task count", |r| {
            r.standby_tasks = Some(vec![task("0", 4)])
        })
        .await?;
        hb_with(c, a, &g, "owning a negative partition", |r| {
            r.warmup_tasks = Some(vec![task("0", -1)])
        })
        .await?;
        hb(c, a, &g).await?;
        Ok(())
    })
}

/// A streams join to a consumer group's id, and StreamsGroupDescribe of it: GROUP_ID_NOT_FOUND.
fn not_a_streams_group(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut consumer = c.member("consumer").await?;
        c.new_consumer_id(&mut consumer);
        let req = ConsumerGroupHeartbeatRequest {
            group_id: g.clone().into(),
            member_id: consumer.member_id.clone().into(),
            member_epoch: 0,
            rebalance_timeout_ms: 5000,
            subscribed_topic_names: Some(vec![S1.into()]),
            topic_partitions: Some(Vec::new()),
            ..Default::default()
        };
        c.send(&mut consumer, req, 1, "ConsumerGroupHeartbeat")
            .await?;
        c.recv_quiet(&mut consumer).await?;
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        let a = &mut ms[0];
        hb(c, a, &g).await?;
        a.m.generation = 1;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        let leave = ConsumerGroupHeartbeatRequest {
            group_id: g.clone().into(),
            member_id: consumer.member_id.clone().into(),
            member_epoch: -1,
            ..Default::default()
        };
        c.send(&mut consumer, leave, 1, "ConsumerGroupHeartbeat (leave)")
            .await?;
        c.recv_quiet(&mut consumer).await?;
        Ok(())
    })
}

/// Every member leaves: the group is Empty and keeps its topology and epochs.
fn describe_empty(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms).await?;
        leave_group(c, &mut ms[0], &g).await?;
        leave_group(c, &mut ms[1], &g).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        // A new member joins the empty group.
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join again")?;
        hb(c, &mut ms[0], &g).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// Task offsets and end offsets at v0 (Kafka 4.4 accepts them at every version; describe shows
/// them).
fn task_offsets_v0(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateful(&g)).await?;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, a, &g, |s, r| owned(s, 0) == 4 && statuses(r).is_empty()).await?;
        let off = |p: i32, o: i64| TaskOffset {
            subtopology_id: "0".into(),
            partition: p,
            offset: o,
            ..Default::default()
        };
        hb_with(c, a, &g, "StreamsGroupHeartbeat (task offsets)", |r| {
            r.task_offsets = Some(vec![off(0, 10), off(1, 20)]);
            r.task_end_offsets = Some(vec![off(0, 15), off(1, 20)]);
        })
        .await?;
        describe(c, a, &[&g], 0).await?;
        hb_with(
            c,
            a,
            &g,
            "StreamsGroupHeartbeat (duplicate task offsets)",
            |r| {
                r.task_offsets = Some(vec![off(0, 10), off(0, 11)]);
            },
        )
        .await?;
        hb(c, a, &g).await?;
        describe(c, a, &[&g], 0).await?;
        Ok(())
    })
}

/// A member's rack and client tags, and a later heartbeat changing its rack.
fn rack_and_tags(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        ms[0].rack = Some("rack-1".into());
        ms[0].tags = vec![
            ("zone".into(), "z1".into()),
            ("cluster".into(), "c1".into()),
        ];
        stabilise(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        hb_with(c, &mut ms[0], &g, "StreamsGroupHeartbeat (new rack)", |r| {
            r.rack_id = Some("rack-2".into())
        })
        .await?;
        hb(c, &mut ms[0], &g).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        Ok(())
    })
}

/// D1, not compared: a second member joins with another topology, first at the group's
/// topology epoch, then at the next one; the first member heartbeats after that.
fn topology_update_d1(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        stabilise(c, &g, &mut ms[..1]).await?;
        let [a, b] = &mut ms[..] else { unreachable!() };
        b.topology = topology(vec![
            sub("0", &[S1], &[], &[], &[]),
            sub("1", &[S2], &[], &[], &[]),
        ]);
        hb_with(
            c,
            b,
            &g,
            "D1: join, another topology at the same epoch",
            |_| {},
        )
        .await?;
        b.topology.epoch = 1;
        hb_with(
            c,
            b,
            &g,
            "D1: join, another topology at the next epoch",
            |_| {},
        )
        .await?;
        hb_with(
            c,
            a,
            &g,
            "D1: heartbeat of the member on the first topology",
            |_| {},
        )
        .await?;
        Ok(())
    })
}

/// The error code and status codes of step `label` of a transcript.
fn step<'a>(t: &'a [(String, Value)], label: &str) -> Result<&'a Value, Fail> {
    t.iter()
        .find(|(l, _)| l.ends_with(label))
        .map(|(_, v)| v)
        .ok_or_else(|| format!("no step {label}"))
}

/// What the D1 script must give: Kafka 4.4.0 refuses both joins with INVALID_REQUEST (42,
/// "Topology updates are not supported yet."); kwire answers the same-epoch change with
/// STREAMS_INVALID_TOPOLOGY_EPOCH (131), moves the group onto the next epoch's topology, and
/// tells the member still on the first one STALE_TOPOLOGY (status 0).
fn check_d1(kafka: &[(String, Value)], kwire: &[(String, Value)]) -> Result<(), Fail> {
    let code = |v: &Value| v.get("errorCode").and_then(Value::as_i64);
    let statuses = |v: &Value| -> Vec<i64> {
        v.get("status")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.get("statusCode").and_then(Value::as_i64))
                    .collect()
            })
            .unwrap_or_default()
    };
    let same = "another topology at the same epoch";
    let next = "another topology at the next epoch";
    let old = "heartbeat of the member on the first topology";
    let got = (
        code(step(kafka, same)?),
        code(step(kafka, next)?),
        code(step(kafka, old)?),
    );
    if got != (Some(42), Some(42), Some(0)) {
        return Err(format!(
            "Kafka 4.4.0 no longer answers a topology change with INVALID_REQUEST: {got:?}"
        ));
    }
    let got = (
        code(step(kwire, same)?),
        code(step(kwire, next)?),
        code(step(kwire, old)?),
    );
    if got != (Some(131), Some(0), Some(0)) {
        return Err(format!("kwire's D1 answers (131, 0, 0) expected: {got:?}"));
    }
    if !statuses(step(kwire, old)?).contains(&0) {
        return Err(format!(
            "kwire: no STALE_TOPOLOGY for the member on the first topology: {}",
            step(kwire, old)?
        ));
    }
    Ok(())
}

/// v1 members: join, heartbeats (int64 AcceptableRecoveryLag, TopologyDescriptionRequired),
/// describe v1 with and without the topology description, and v0.
fn v1_join_describe(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        ms[0].version = 1;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "join")?;
        hb(c, a, &g).await?;
        describe_with(c, a, &[&g], 1, false).await?;
        describe_with(c, a, &[&g], 1, true).await?;
        describe(c, a, &[&g], 0).await?;
        leave_group(c, a, &g).await?;
        Ok(())
    })
}

/// Two v1 members on two processes with a stateful topology: actives and standbys; describe v1.
fn v1_standby(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateful(&g)).await?;
        for s in ms.iter_mut() {
            s.version = 1;
        }
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 4 && statuses(r).is_empty()
        })
        .await?;
        stabilise(c, &g, &mut ms[1..]).await?;
        settle(c, &g, &mut ms).await?;
        describe_with(c, &mut ms[0], &[&g], 1, true).await?;
        Ok(())
    })
}

/// Task offsets and end offsets at v1; describe v1 shows them.
fn v1_task_offsets(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateful(&g)).await?;
        ms[0].version = 1;
        let a = &mut ms[0];
        let r = hb(c, a, &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, a, &g, |s, r| owned(s, 0) == 4 && statuses(r).is_empty()).await?;
        let off = |p: i32, o: i64| TaskOffset {
            subtopology_id: "0".into(),
            partition: p,
            offset: o,
            ..Default::default()
        };
        hb_with(c, a, &g, "StreamsGroupHeartbeat (task offsets)", |r| {
            r.task_offsets = Some(vec![off(0, 100), off(3, 7)]);
            r.task_end_offsets = Some(vec![off(0, 150), off(3, 7)]);
        })
        .await?;
        hb(c, a, &g).await?;
        describe_with(c, a, &[&g], 1, false).await?;
        Ok(())
    })
}

/// Describe v1 of groups that do not exist, with the description asked for.
fn v1_describe_missing(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        describe_with(c, &mut ms[0], &[&g], 1, true).await?;
        describe_with(c, &mut ms[0], &[&g, ""], 1, false).await?;
        Ok(())
    })
}

/// A static member (instance id) and a dynamic one; the static member leaves temporarily (-2),
/// rejoins with a new member id and gets its tasks back; its old id is then refused.
fn static_rejoin(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b", "a2"], &stateless()).await?;
        for s in ms.iter_mut() {
            s.version = 1;
        }
        ms[0].m.instance_id = Some("instance-a".into());
        ms[2].m.instance_id = Some("instance-a".into());
        ms[2].m.process = ms[0].m.process.clone();
        stabilise(c, &g, &mut ms[..2]).await?;
        let old_epoch = ms[0].m.generation;
        {
            let a = &mut ms[0];
            let req = StreamsGroupHeartbeatRequest {
                group_id: g.clone().into(),
                member_id: a.m.member_id.clone().into(),
                member_epoch: -2,
                instance_id: a.m.instance_id.clone().map(Into::into),
                endpoint_information_epoch: a.m.endpoint_epoch,
                rebalance_timeout_ms: -1,
                ..Default::default()
            };
            c.call(&mut a.m, req, 1, "StreamsGroupHeartbeat (static leave -2)")
                .await?;
        }
        describe_with(c, &mut ms[1], &[&g], 1, false).await?;
        hb(c, &mut ms[1], &g).await?;
        let r = hb(c, &mut ms[2], &g).await?;
        expect(&r, 0, "static rejoin")?;
        settle(c, &g, &mut ms[1..]).await?;
        describe_with(c, &mut ms[1], &[&g], 1, false).await?;
        // The replaced member id, at its old epoch.
        ms[0].m.generation = old_epoch;
        hb(c, &mut ms[0], &g).await?;
        Ok(())
    })
}

/// A second member id with a static member's instance id joins while the first is active:
/// refused; the first keeps heartbeating.
fn static_unreleased(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "a2"], &stateless()).await?;
        for s in ms.iter_mut() {
            s.version = 1;
            s.m.instance_id = Some("instance-a".into());
        }
        stabilise(c, &g, &mut ms[..1]).await?;
        hb(c, &mut ms[1], &g).await?;
        hb(c, &mut ms[0], &g).await?;
        describe_with(c, &mut ms[0], &[&g], 1, false).await?;
        Ok(())
    })
}

/// A static member leaves for good (-1) with an instance id; a leave -2 without one.
fn static_leave(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateless()).await?;
        for s in ms.iter_mut() {
            s.version = 1;
        }
        ms[0].m.instance_id = Some("instance-a".into());
        stabilise(c, &g, &mut ms).await?;
        hb_with(
            c,
            &mut ms[1],
            &g,
            "StreamsGroupHeartbeat (-2 without instance id)",
            |r| {
                r.member_epoch = -2;
                r.active_tasks = None;
                r.standby_tasks = None;
                r.warmup_tasks = None;
            },
        )
        .await?;
        leave_group(c, &mut ms[0], &g).await?;
        hb_until(c, &mut ms[1], &g, |s, _| owned(s, 0) == 4).await?;
        describe_with(c, &mut ms[1], &[&g], 1, false).await?;
        Ok(())
    })
}

/// A static member at v0.
fn static_v0(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        ms[0].m.instance_id = Some("instance-a".into());
        stabilise(c, &g, &mut ms).await?;
        describe(c, &mut ms[0], &[&g], 0).await?;
        leave_group(c, &mut ms[0], &g).await?;
        Ok(())
    })
}

/// StreamsGroupTopologyDescriptionUpdate (93) to a broker without a description plugin.
fn description_update(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        use kwire_protocol::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
        let g = c.group("");
        let mut ms = smembers(c, &["a"], &stateless()).await?;
        ms[0].version = 1;
        stabilise(c, &g, &mut ms).await?;
        let a = &mut ms[0];
        let req = StreamsGroupTopologyDescriptionUpdateRequest {
            group_id: g.clone().into(),
            member_id: a.m.member_id.clone().into(),
            topology_epoch: 0,
            ..Default::default()
        };
        c.call(&mut a.m, req, 0, "StreamsGroupTopologyDescriptionUpdate")
            .await?;
        describe_with(c, a, &[&g], 1, true).await?;
        Ok(())
    })
}

/// Warm-ups, not compared (S3): a v1 member owns every task of a stateful topology; a second
/// v1 member on another process joins reporting no progress on them while the first reports
/// its tasks caught up. Kafka 4.4.0 moves tasks at once (its refiner places no warm-up);
/// kwire holds tasks whose new owner is not caught up on their owner and warms the new one up.
fn warm_up(c: &mut Ctx) -> Fut<'_> {
    Box::pin(async move {
        let g = c.group("");
        let mut ms = smembers(c, &["a", "b"], &stateful(&g)).await?;
        for s in ms.iter_mut() {
            s.version = 1;
        }
        let r = hb(c, &mut ms[0], &g).await?;
        expect(&r, 0, "join")?;
        hb_until(c, &mut ms[0], &g, |s, r| {
            owned(s, 0) == 4 && statuses(r).is_empty()
        })
        .await?;
        let off = |p: i32, o: i64| TaskOffset {
            subtopology_id: "0".into(),
            partition: p,
            offset: o,
            ..Default::default()
        };
        let caught_up: Vec<TaskOffset> = (0..4).map(|p| off(p, 50_000)).collect();
        let ends = caught_up.clone();
        hb_with(c, &mut ms[0], &g, "a: offsets caught up", |r| {
            r.task_offsets = Some(caught_up.clone());
            r.task_end_offsets = Some(ends.clone());
        })
        .await?;
        let ends = caught_up.clone();
        hb_with(c, &mut ms[1], &g, "b: join without state", |r| {
            r.task_offsets = Some(Vec::new());
            r.task_end_offsets = Some(ends.clone());
        })
        .await?;
        settle(c, &g, &mut ms).await?;
        describe_with(c, &mut ms[0], &[&g], 1, false).await?;
        Ok(())
    })
}

/// S3: Kafka 4.4.0 shows no warm-up task anywhere; kwire places at least one and its answers
/// have no error.
fn check_warm_up(kafka: &[(String, Value)], kwire: &[(String, Value)]) -> Result<(), Fail> {
    fn warmups(v: &Value) -> usize {
        match v {
            Value::Object(o) => o
                .iter()
                .map(|(k, x)| match (k.as_str(), x) {
                    ("warmupTasks", Value::Array(a)) => {
                        a.len() + a.iter().map(warmups).sum::<usize>()
                    }
                    _ => warmups(x),
                })
                .sum(),
            Value::Array(a) => a.iter().map(warmups).sum(),
            _ => 0,
        }
    }
    let errors = |t: &[(String, Value)]| {
        t.iter()
            .filter(|(_, v)| {
                v.get("errorCode")
                    .and_then(Value::as_i64)
                    .is_some_and(|e| e != 0)
            })
            .count()
    };
    let k: usize = kafka.iter().map(|(_, v)| warmups(v)).sum();
    let w: usize = kwire.iter().map(|(_, v)| warmups(v)).sum();
    if k != 0 {
        return Err(format!(
            "Kafka 4.4.0 placed warm-up tasks ({k} entries): S3 no longer holds"
        ));
    }
    if w == 0 {
        return Err("kwire placed no warm-up task".into());
    }
    if errors(kafka) + errors(kwire) != 0 {
        return Err("an answer carried an error".into());
    }
    Ok(())
}

//! The scripting side of the suite: a [`Ctx`] per scenario and side (the Kafka broker or
//! kwire-server) holding the transcript of normalised responses, and [`Member`]s, each one
//! connection behaving as one group member (one request at a time, as Kafka serves a
//! connection).

use super::normalise::Names;
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions as CgTopicPartitions,
};
use kwire_protocol::generated::consumer_protocol_assignment::ConsumerProtocolAssignment;
use kwire_protocol::generated::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::describe_groups_response::DescribedGroup;
use kwire_protocol::generated::heartbeat_request::HeartbeatRequest;
use kwire_protocol::generated::join_group_request::{JoinGroupRequest, JoinGroupRequestProtocol};
use kwire_protocol::generated::leave_group_request::{LeaveGroupRequest, MemberIdentity};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::sync_group_request::{SyncGroupRequest, SyncGroupRequestAssignment};
use kwire_protocol::generated::{
    ApiRequest, ApiResponse, ConsumerGroupHeartbeatResponse, DescribeGroupsResponse,
    HeartbeatResponse, JoinGroupResponse, LeaveGroupResponse, Request, Response, SyncGroupResponse,
};
use kwire_protocol::wire::json::{JsonForm, Value};
use kwire_protocol::wire::{Encode as _, Message as _, Uuid};
use kwire_server::{Client, ClientError};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Longest wait for one answer (a JoinGroup may wait for a rebalance timeout).
const ANSWER_DEADLINE: Duration = Duration::from_secs(20);

/// Which server a run talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The real Kafka 4.4.0 broker.
    Kafka,
    /// kwire-server, in process.
    Kwire,
}

/// A scenario step's failure (a message; the scenario stops there).
pub type Fail = String;

/// One scenario's run against one side.
pub struct Ctx {
    /// The server.
    pub addr: SocketAddr,
    /// Which one it is.
    pub side: Side,
    /// The scenario's name: its group ids start with it.
    pub scenario: &'static str,
    /// Symbolic names of generated ids.
    pub names: Names,
    /// (step label, response in Kafka's JSON form) in script order.
    pub transcript: Vec<(String, Value)>,
    /// Whether the scenario's first ConsumerGroupHeartbeat creates a new consumer group: then
    /// the epoch it gets is the base of [`super::normalise::Migration::epoch_base`].
    pub fresh_consumer_group: bool,
    /// (first transcript index, base) of the epochs rebased (set by the first successful
    /// ConsumerGroupHeartbeat of a `fresh_consumer_group` scenario).
    pub epoch_base: Option<(usize, i32)>,
    /// The transcript index from which epochs are no longer rebased ([`Ctx::end_rebase`]).
    pub epoch_base_end: usize,
}

/// One simulated group member: a connection of its own and what a client would remember.
pub struct Member {
    /// Its symbolic name (ids the coordinator gives it are bound to this name).
    pub name: String,
    client: Client,
    pending: VecDeque<(String, i16)>,
    /// Its member id (empty until the coordinator gives one; chosen by the test for
    /// ConsumerGroupHeartbeat v1).
    pub member_id: String,
    /// Its group.instance.id (static membership).
    pub instance_id: Option<String>,
    /// The last generation id JoinGroup gave (or the member epoch of a ConsumerGroupHeartbeat).
    pub generation: i32,
    /// The protocol name of its last successful JoinGroup.
    pub protocol: Option<String>,
    /// The partitions a ConsumerGroupHeartbeat member owns (its last assignment, acknowledged at
    /// once in its next heartbeat), by topic id.
    pub owned: Vec<(Uuid, Vec<i32>)>,
    /// The tasks a StreamsGroupHeartbeat member owns (its last assignment, acknowledged at once
    /// in its next heartbeat): active, standby and warm-up tasks as (subtopology id, partitions).
    pub tasks: [Vec<(String, Vec<i32>)>; 3],
    /// The endpoint-information epoch a StreamsGroupHeartbeat member last got (-1 before).
    pub endpoint_epoch: i32,
    /// The process id a StreamsGroupHeartbeat member sends (`process-<name>` unless the script
    /// puts two members in one process).
    pub process: String,
}

/// ConsumerProtocolSubscription bytes (version 3, as `ConsumerProtocol.serializeSubscription`
/// writes them: an int16 version, then the body) for `topics`.
pub fn subscription(topics: &[&str]) -> Vec<u8> {
    let s = ConsumerProtocolSubscription {
        topics: topics.iter().map(|t| t.to_string().into()).collect(),
        generation_id: -1,
        ..Default::default()
    };
    let mut b = 3i16.to_be_bytes().to_vec();
    b.extend_from_slice(&s.to_bytes(3).expect("a subscription encodes"));
    b
}

/// ConsumerProtocolAssignment bytes (version 3) of `(topic, partitions)`.
pub fn assignment(parts: &[(&str, &[i32])]) -> Vec<u8> {
    use kwire_protocol::generated::consumer_protocol_assignment::TopicPartition;
    let a = ConsumerProtocolAssignment {
        assigned_partitions: parts
            .iter()
            .map(|(t, p)| TopicPartition {
                topic: t.to_string().into(),
                partitions: p.to_vec().into(),
            })
            .collect(),
        ..Default::default()
    };
    let mut b = 3i16.to_be_bytes().to_vec();
    b.extend_from_slice(&a.to_bytes(3).expect("an assignment encodes"));
    b
}

/// The (topic, sorted partitions) of ConsumerProtocolAssignment bytes, sorted by topic; an
/// empty input is the empty assignment.
pub fn decode_assignment(bytes: &[u8]) -> Result<Vec<(String, Vec<i32>)>, Fail> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    if bytes.len() < 2 {
        return Err(format!("assignment of {} bytes", bytes.len()));
    }
    let version = i16::from_be_bytes([bytes[0], bytes[1]]).min(3);
    let a = ConsumerProtocolAssignment::decode_bytes(
        bytes::Bytes::copy_from_slice(&bytes[2..]),
        version,
    )
    .map_err(|e| format!("assignment does not decode: {e}"))?;
    let mut out: Vec<(String, Vec<i32>)> = a
        .assigned_partitions
        .iter()
        .map(|tp| {
            let mut p: Vec<i32> = tp.partitions.iter().collect();
            p.sort_unstable();
            (tp.topic.to_string(), p)
        })
        .filter(|(_, p)| !p.is_empty())
        .collect();
    out.sort();
    Ok(out)
}

/// Awaits `answer`, the answer to `who`'s `label`, for up to [`ANSWER_DEADLINE`].
///
/// # Errors
/// No answer in time, or the client's error, as a message naming `who` and `label`.
async fn answer<T>(
    side: Side,
    who: &str,
    label: &str,
    answer: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<T, Fail> {
    tokio::time::timeout(ANSWER_DEADLINE, answer)
        .await
        .map_err(|_| format!("{side:?}: {who}: no answer to {label} within {ANSWER_DEADLINE:?}"))?
        .map_err(|e| format!("{who}: {label}: {e}"))
}

impl Ctx {
    /// A new member named `name` with a connection of its own.
    pub async fn member(&mut self, name: &str) -> Result<Member, Fail> {
        let client = Client::connect(self.addr)
            .await
            .map_err(|e| format!("{name}: connect: {e}"))?;
        Ok(Member {
            name: name.to_string(),
            client,
            pending: VecDeque::new(),
            member_id: String::new(),
            instance_id: None,
            generation: -1,
            protocol: None,
            owned: Vec::new(),
            tasks: Default::default(),
            endpoint_epoch: -1,
            process: format!("process-{name}"),
        })
    }

    /// The group id `<scenario>` or `<scenario>.<suffix>`.
    pub fn group(&self, suffix: &str) -> String {
        if suffix.is_empty() {
            self.scenario.to_string()
        } else {
            format!("{}.{suffix}", self.scenario)
        }
    }

    /// Records `(label, v)` (normalised when the scenario has ended, with every name bound by
    /// then: a member id may show in another member's answer before its own).
    pub fn record(&mut self, label: &str, v: Value) {
        self.transcript.push((label.to_string(), v));
    }

    /// Sends `req` at `version` on `m`'s connection; its answer is read by [`Ctx::recv`] and
    /// recorded under `label`.
    pub async fn send(
        &mut self,
        m: &mut Member,
        req: impl Into<Request>,
        version: i16,
        label: &str,
    ) -> Result<(), Fail> {
        m.client
            .send_any(req, version)
            .await
            .map_err(|e| format!("{}: send {label}: {e}", m.name))?;
        m.pending.push_back((label.to_string(), version));
        Ok(())
    }

    /// Reads `m`'s oldest pending answer without recording it; returns it with its label and
    /// version.
    pub async fn recv_quiet(&mut self, m: &mut Member) -> Result<(Response, String, i16), Fail> {
        let (label, version) = m
            .pending
            .pop_front()
            .ok_or_else(|| format!("{}: nothing pending", m.name))?;
        let frame = answer(self.side, &m.name, &label, m.client.recv_any()).await?;
        let resp = frame.body;
        self.learn(m, &resp);
        Ok((resp, label, version))
    }

    /// Reads `m`'s oldest pending answer, records it, and returns it.
    pub async fn recv(&mut self, m: &mut Member) -> Result<Response, Fail> {
        let (resp, label, version) = self.recv_quiet(m).await?;
        let json = resp
            .to_json(version)
            .map_err(|e| format!("{label}: to_json: {e}"))?;
        self.record(&format!("{}: {label}", m.name), json);
        Ok(resp)
    }

    /// Reads `m`'s oldest pending answer as a `T` (the answer to a [`Ctx::send`] of `T`'s API),
    /// learns from it and records it, as [`Ctx::recv`] does.
    ///
    /// # Errors
    /// Nothing pending, an answer of another API or that does not decode, or none within
    /// 20 s.
    pub async fn recv_as<T: ApiResponse + JsonForm>(&mut self, m: &mut Member) -> Result<T, Fail> {
        let (label, version) = m
            .pending
            .pop_front()
            .ok_or_else(|| format!("{}: nothing pending", m.name))?;
        let resp = answer(self.side, &m.name, &label, m.client.recv_as::<T>()).await?;
        self.learn(m, &resp.clone().into());
        self.record_answer(m, &label, &resp, version)?;
        Ok(resp)
    }

    /// [`Ctx::send`] then [`Ctx::recv`].
    pub async fn call(
        &mut self,
        m: &mut Member,
        req: impl Into<Request>,
        version: i16,
        label: &str,
    ) -> Result<Response, Fail> {
        self.send(m, req, version, label).await?;
        self.recv(m).await
    }

    /// Sends `req` at `version` on `m`'s connection and reads its answer, typed (nothing else
    /// may be pending on `m`); learns from it as [`Ctx::recv_quiet`] does, without recording it.
    ///
    /// # Errors
    /// A request pending on `m`, a send or decode failure, or no answer within 20 s, as a
    /// message naming `m` and `label`.
    pub async fn request_quiet<R: ApiRequest>(
        &mut self,
        m: &mut Member,
        req: &R,
        version: i16,
        label: &str,
    ) -> Result<R::Response, Fail> {
        if let Some((pending, _)) = m.pending.front() {
            return Err(format!("{}: {label} while {pending} is pending", m.name));
        }
        let sent = m
            .client
            .send(req, version)
            .await
            .map_err(|e| format!("{}: send {label}: {e}", m.name))?;
        let resp = answer(self.side, &m.name, label, m.client.recv(sent)).await?;
        self.learn(m, &resp.clone().into());
        Ok(resp)
    }

    /// [`Ctx::request_quiet`], then records the answer under `<member>: <label>` (as
    /// [`Ctx::call`] does).
    ///
    /// # Errors
    /// As [`Ctx::request_quiet`], or an answer without a JSON form at `version`.
    pub async fn request<R: ApiRequest>(
        &mut self,
        m: &mut Member,
        req: &R,
        version: i16,
        label: &str,
    ) -> Result<R::Response, Fail>
    where
        R::Response: JsonForm,
    {
        let resp = self.request_quiet(m, req, version, label).await?;
        self.record_answer(m, label, &resp, version)?;
        Ok(resp)
    }

    /// Records `resp` (an answer at `version`) under `<member>: <label>`.
    ///
    /// # Errors
    /// An answer without a JSON form at `version`.
    pub fn record_answer(
        &mut self,
        m: &Member,
        label: &str,
        resp: &impl JsonForm,
        version: i16,
    ) -> Result<(), Fail> {
        let json = resp
            .to_json(version)
            .map_err(|e| format!("{label}: to_json: {e}"))?;
        self.record(&format!("{}: {label}", m.name), json);
        Ok(())
    }

    /// What a client learns from an answer: ids (bound to the member's name), generations.
    fn learn(&mut self, m: &mut Member, resp: &Response) {
        match resp {
            Response::JoinGroup(j) => {
                if !j.member_id.is_empty() {
                    self.names.bind(&j.member_id, &m.name);
                    m.member_id = j.member_id.to_string();
                }
                if j.error_code == 0 {
                    m.generation = j.generation_id;
                    m.protocol = j.protocol_name.as_ref().map(|p| p.to_string());
                }
            }
            Response::ConsumerGroupHeartbeat(h) => {
                if self.fresh_consumer_group
                    && self.epoch_base.is_none()
                    && h.error_code == 0
                    && h.member_epoch > 0
                {
                    self.epoch_base = Some((self.transcript.len(), h.member_epoch));
                }
                if let Some(id) = &h.member_id {
                    self.names.bind(id, &m.name);
                    m.member_id = id.to_string();
                }
                if h.error_code == 0 {
                    m.generation = h.member_epoch;
                }
                if let Some(a) = &h.assignment {
                    m.owned = a
                        .topic_partitions
                        .iter()
                        .map(|tp| (tp.topic_id, tp.partitions.iter().collect()))
                        .collect();
                }
            }
            Response::StreamsGroupHeartbeat(h) => {
                if !h.member_id.is_empty() {
                    self.names.bind(&h.member_id, &m.name);
                }
                if h.error_code == 0 {
                    m.generation = h.member_epoch;
                    m.endpoint_epoch = h.endpoint_information_epoch;
                }
                let lists = [&h.active_tasks, &h.standby_tasks, &h.warmup_tasks];
                for (owned, got) in m.tasks.iter_mut().zip(lists) {
                    if let Some(got) = got {
                        *owned = got
                            .iter()
                            .map(|t| (t.subtopology_id.to_string(), t.partitions.iter().collect()))
                            .collect();
                    }
                }
            }
            _ => {}
        }
    }

    /// Sends `make()` to `m` (at `version`) every `every` until `done(answer)` or `within`
    /// passes; records only the last answer, under `label`. The polls in between are not
    /// compared: their count depends on timing.
    #[allow(clippy::too_many_arguments)]
    pub async fn poll<R: ApiRequest>(
        &mut self,
        m: &mut Member,
        make: impl Fn(&Member) -> R,
        version: i16,
        label: &str,
        done: impl Fn(&R::Response) -> bool,
        every: Duration,
        within: Duration,
    ) -> Result<R::Response, Fail>
    where
        R::Response: JsonForm,
    {
        let deadline = Instant::now() + within;
        loop {
            let resp = self.request_quiet(m, &make(m), version, label).await?;
            if done(&resp) || Instant::now() > deadline {
                self.record_answer(m, &format!("{label} (polled)"), &resp, version)?;
                return Ok(resp);
            }
            tokio::time::sleep(every).await;
        }
    }

    /// A JoinGroup request of `m` to `group` (v9 fields; unused ones dropped at lower versions).
    pub fn join_req(
        &self,
        m: &Member,
        group: &str,
        session_ms: i32,
        rebalance_ms: i32,
        protocols: &[(&str, Vec<u8>)],
    ) -> JoinGroupRequest {
        JoinGroupRequest {
            group_id: group.to_string().into(),
            session_timeout_ms: session_ms,
            rebalance_timeout_ms: rebalance_ms,
            member_id: m.member_id.clone().into(),
            group_instance_id: m.instance_id.clone().map(Into::into),
            protocol_type: "consumer".into(),
            protocols: protocols
                .iter()
                .map(|(n, md)| JoinGroupRequestProtocol {
                    name: n.to_string().into(),
                    metadata: md.clone().into(),
                    ..Default::default()
                })
                .collect(),
            reason: None,
            ..Default::default()
        }
    }

    /// A member's full classic join at JoinGroup v9: without a member id the first answer is
    /// MEMBER_ID_REQUIRED (KIP-394) and the member joins again with the id it got; returns the
    /// final answer (recorded, as is the first).
    pub async fn join(
        &mut self,
        m: &mut Member,
        group: &str,
        session_ms: i32,
        rebalance_ms: i32,
        protocols: &[(&str, Vec<u8>)],
    ) -> Result<JoinGroupResponse, Fail> {
        let req = self.join_req(m, group, session_ms, rebalance_ms, protocols);
        let r = self.request(m, &req, 9, "JoinGroup").await?;
        if r.error_code == 79 {
            let req = self.join_req(m, group, session_ms, rebalance_ms, protocols);
            return self.request(m, &req, 9, "JoinGroup (with member id)").await;
        }
        Ok(r)
    }

    /// One JoinGroup v9 of `m` with the id it has (the first of a KIP-394 join when it has none),
    /// recorded.
    pub async fn join_once(
        &mut self,
        m: &mut Member,
        group: &str,
        session_ms: i32,
        rebalance_ms: i32,
        protocols: &[(&str, Vec<u8>)],
    ) -> Result<JoinGroupResponse, Fail> {
        let req = self.join_req(m, group, session_ms, rebalance_ms, protocols);
        self.request(m, &req, 9, "JoinGroup").await
    }

    /// Sends `m`'s JoinGroup v9 with the id it has, without waiting (for joins that complete only
    /// when others join); read with [`Ctx::recv`].
    pub async fn send_join(
        &mut self,
        m: &mut Member,
        group: &str,
        session_ms: i32,
        rebalance_ms: i32,
        protocols: &[(&str, Vec<u8>)],
    ) -> Result<(), Fail> {
        let req = self.join_req(m, group, session_ms, rebalance_ms, protocols);
        self.send(m, req, 9, "JoinGroup").await
    }

    /// A SyncGroup v5 request of `m` with its generation and `assignments` (member, bytes).
    pub fn sync_req(
        &self,
        m: &Member,
        group: &str,
        assignments: &[(String, Vec<u8>)],
    ) -> SyncGroupRequest {
        SyncGroupRequest {
            group_id: group.to_string().into(),
            generation_id: m.generation,
            member_id: m.member_id.clone().into(),
            group_instance_id: m.instance_id.clone().map(Into::into),
            protocol_type: Some("consumer".into()),
            protocol_name: Some(m.protocol.clone().unwrap_or_else(|| "range".into()).into()),
            assignments: assignments
                .iter()
                .map(|(x, a)| SyncGroupRequestAssignment {
                    member_id: x.clone().into(),
                    assignment: a.clone().into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// `m`'s SyncGroup v5, recorded.
    pub async fn sync(
        &mut self,
        m: &mut Member,
        group: &str,
        assignments: &[(String, Vec<u8>)],
    ) -> Result<SyncGroupResponse, Fail> {
        let req = self.sync_req(m, group, assignments);
        self.request(m, &req, 5, "SyncGroup").await
    }

    /// `m`'s SyncGroup v5 sent without waiting.
    pub async fn send_sync(
        &mut self,
        m: &mut Member,
        group: &str,
        assignments: &[(String, Vec<u8>)],
    ) -> Result<(), Fail> {
        let req = self.sync_req(m, group, assignments);
        self.send(m, req, 5, "SyncGroup").await
    }

    /// A Heartbeat v4 of `m` with its generation.
    pub fn heartbeat_req(m: &Member, group: &str) -> HeartbeatRequest {
        HeartbeatRequest {
            group_id: group.to_string().into(),
            generation_id: m.generation,
            member_id: m.member_id.clone().into(),
            group_instance_id: m.instance_id.clone().map(Into::into),
            ..Default::default()
        }
    }

    /// `m`'s Heartbeat v4, recorded.
    pub async fn heartbeat(
        &mut self,
        m: &mut Member,
        group: &str,
    ) -> Result<HeartbeatResponse, Fail> {
        let req = Self::heartbeat_req(m, group);
        self.request(m, &req, 4, "Heartbeat").await
    }

    /// Heartbeats `m` (every 50 ms, up to 15 s) until the answer carries an error (e.g.
    /// REBALANCE_IN_PROGRESS: rejoin; ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID: the member was
    /// moved on or removed); records that answer. A member that gets UNKNOWN_MEMBER_ID forgets
    /// its id, as clients do.
    pub async fn heartbeat_until(
        &mut self,
        m: &mut Member,
        group: &str,
    ) -> Result<HeartbeatResponse, Fail> {
        let g = group.to_string();
        let r = self
            .poll(
                m,
                move |m| Self::heartbeat_req(m, &g),
                4,
                "Heartbeat",
                |h| h.error_code != 0,
                Duration::from_millis(50),
                Duration::from_secs(15),
            )
            .await?;
        if r.error_code == 25 && m.instance_id.is_none() {
            m.member_id.clear();
        }
        Ok(r)
    }

    /// LeaveGroup v5 sent by `by` for `members` (member ids and instance ids as they hold them).
    pub async fn leave(
        &mut self,
        by: &mut Member,
        group: &str,
        members: &[(String, Option<String>)],
    ) -> Result<LeaveGroupResponse, Fail> {
        let req = LeaveGroupRequest {
            group_id: group.to_string().into(),
            members: members
                .iter()
                .map(|(id, inst)| MemberIdentity {
                    member_id: id.clone().into(),
                    group_instance_id: inst.clone().map(Into::into),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        self.request(by, &req, 5, "LeaveGroup").await
    }

    /// A ConsumerGroupHeartbeat v1 of `m`: epoch 0 (join) when it has no epoch yet, with its own
    /// random member id (KIP-1082), subscribed to `topics` when `Some`.
    pub fn cg_req(
        m: &Member,
        group: &str,
        epoch: i32,
        topics: Option<&[&str]>,
    ) -> ConsumerGroupHeartbeatRequest {
        ConsumerGroupHeartbeatRequest {
            group_id: group.to_string().into(),
            member_id: m.member_id.clone().into(),
            member_epoch: epoch,
            instance_id: m.instance_id.clone().map(Into::into),
            rebalance_timeout_ms: if epoch == 0 { 5000 } else { -1 },
            subscribed_topic_names: topics
                .map(|t| t.iter().map(|s| s.to_string().into()).collect()),
            topic_partitions: Some(
                m.owned
                    .iter()
                    .map(|(id, p)| CgTopicPartitions {
                        topic_id: *id,
                        partitions: p.clone().into(),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        }
    }

    /// `m`'s ConsumerGroupHeartbeat v1 at its epoch (0 when it has none yet), recorded.
    pub async fn cg(
        &mut self,
        m: &mut Member,
        group: &str,
        topics: Option<&[&str]>,
    ) -> Result<ConsumerGroupHeartbeatResponse, Fail> {
        if m.member_id.is_empty() {
            self.new_consumer_id(m);
        }
        let epoch = m.generation.max(0);
        let req = Self::cg_req(m, group, epoch, topics);
        self.request(m, &req, 1, "ConsumerGroupHeartbeat").await
    }

    /// `m` leaves with ConsumerGroupHeartbeat epoch -1, recorded.
    pub async fn cg_leave(
        &mut self,
        m: &mut Member,
        group: &str,
    ) -> Result<ConsumerGroupHeartbeatResponse, Fail> {
        let req = Self::cg_req(m, group, -1, None);
        self.request(m, &req, 1, "ConsumerGroupHeartbeat (leave)")
            .await
    }

    /// Heartbeats `m` with ConsumerGroupHeartbeat (every 50 ms, acknowledging what it gets, up
    /// to 15 s) until `done`; records the last answer.
    pub async fn cg_until(
        &mut self,
        m: &mut Member,
        group: &str,
        done: impl Fn(&Member) -> bool,
    ) -> Result<ConsumerGroupHeartbeatResponse, Fail> {
        let deadline = Instant::now() + Duration::from_secs(15);
        let label = "ConsumerGroupHeartbeat";
        loop {
            let req = Self::cg_req(m, group, m.generation.max(0), None);
            let resp = self.request_quiet(m, &req, 1, label).await?;
            if resp.error_code != 0 || done(m) || Instant::now() > deadline {
                self.record_answer(m, &format!("{label} (polled)"), &resp, 1)?;
                return Ok(resp);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// DescribeGroups v5 of `group` on a connection of its own, not recorded (for polling a
    /// condition).
    pub async fn describe_quiet(&self, group: &str) -> Result<DescribedGroup, Fail> {
        let mut c = Client::connect(self.addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let req = DescribeGroupsRequest {
            groups: vec![group.to_string().into()],
            ..Default::default()
        };
        match tokio::time::timeout(ANSWER_DEADLINE, c.request(&req, 5)).await {
            Ok(Ok(mut d)) if !d.groups.is_empty() => Ok(d.groups.swap_remove(0)),
            other => Err(format!("DescribeGroups {group}: {other:?}")),
        }
    }

    /// Polls DescribeGroups (every 20 ms, up to 15 s) until `done` holds for `group`.
    pub async fn await_group(
        &self,
        group: &str,
        what: &str,
        done: impl Fn(&DescribedGroup) -> bool,
    ) -> Result<(), Fail> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let d = self.describe_quiet(group).await?;
            if done(&d) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("{group}: not {what} within 15 s: {d:?}"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// DescribeGroups v5 of `groups` by `m`, recorded.
    pub async fn describe(
        &mut self,
        m: &mut Member,
        groups: &[&str],
    ) -> Result<DescribeGroupsResponse, Fail> {
        let req = DescribeGroupsRequest {
            groups: groups.iter().map(|g| g.to_string().into()).collect(),
            ..Default::default()
        };
        self.request(m, &req, 5, "DescribeGroups").await
    }

    /// ListGroups v5 with the filters, by `m`, recorded with only this scenario's groups (the
    /// other scenarios run on the same server at the same time).
    pub async fn list(
        &mut self,
        m: &mut Member,
        states: &[&str],
        types: &[&str],
    ) -> Result<(), Fail> {
        let req = ListGroupsRequest {
            states_filter: states.iter().map(|g| g.to_string().into()).collect(),
            types_filter: types.iter().map(|g| g.to_string().into()).collect(),
            ..Default::default()
        };
        let mut l = self.request_quiet(m, &req, 5, "ListGroups").await?;
        let prefix = self.scenario;
        l.groups.retain(|g| {
            g.group_id.as_ref() == prefix || g.group_id.starts_with(&format!("{prefix}."))
        });
        let label = format!("ListGroups states={states:?} types={types:?}");
        self.record_answer(m, &label, &l, 5)
    }

    /// Ends the rebasing of epochs (the consumer group is gone: a classic group made from
    /// nothing counts its generations from 1 on both sides).
    pub fn end_rebase(&mut self) {
        self.epoch_base_end = self.transcript.len();
    }

    /// Records a named value of the script's own (e.g. a decoded assignment).
    pub fn note(&mut self, label: &str, v: Value) {
        self.record(label, v);
    }

    /// Gives `m` a fresh client-side member id (ConsumerGroupHeartbeat v1) and binds it.
    pub fn new_consumer_id(&mut self, m: &mut Member) {
        m.member_id = super::broker::random_id();
        self.names.bind(&m.member_id.clone(), &m.name);
    }
}

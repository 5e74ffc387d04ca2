//! Request handlers: one function per API, each a synchronous step over the [`Broker`] (run
//! under its lock) from a decoded request body to a response body.
//!
//! [`handle`] dispatches, writes the records the request produced to the durable log (one
//! append) and wakes the timer task or parked fetches when the request calls for it. Handlers
//! whose changes can be undone (Produce, OffsetCommit, CreateTopics) write them themselves and
//! answer a failed write with an error; when the write of a group heartbeat's records fails,
//! [`handle`] answers NOT_COORDINATOR (Kafka's translation of KAFKA_STORAGE_ERROR for group APIs)
//! and the server stops (see [`crate::broker`]).

mod admin;
pub mod configs;
mod data;
mod groups;
mod meta;
mod offsets;
mod producer;

use std::fmt;
use std::net::SocketAddr;
use std::time::Instant;

use kwire_protocol::coordinator::GroupResponse;
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use kwire_protocol::generated::fetch_request::FetchRequest;
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use kwire_protocol::generated::{ApiKey, Request, Response};
use tokio::sync::oneshot;

use crate::broker::{Broker, Shared};
use crate::events::{self, Refusal};

pub use data::fetch_response;

/// Who sent a request and when.
#[derive(Debug, Clone)]
pub struct Ctx<'a> {
    /// The request's API version.
    pub version: i16,
    /// The header's client id ("" when null).
    pub client_id: &'a str,
    /// The client's address as Kafka shows it (`/127.0.0.1`).
    pub client_host: &'a str,
    /// The client's address and port (for the log).
    pub peer: SocketAddr,
    /// Wall-clock time in ms.
    pub now: i64,
}

/// A Fetch with nothing to return yet, held until records arrive or `deadline`.
#[derive(Debug)]
pub struct FetchWait {
    /// The request.
    pub request: FetchRequest,
    /// Its version.
    pub version: i16,
    /// When to answer whatever there is.
    pub deadline: Instant,
}

impl Ctx<'_> {
    /// Logs at INFO that this request, of `api`, was refused and why ([`events::refused`]).
    pub fn refused(&self, api: ApiKey, reason: impl fmt::Display) {
        let client = (!self.client_id.is_empty()).then_some(self.client_id);
        events::refused(api.as_i16(), self.version, self.peer, client, reason);
    }
}

/// A classic group request whose answer waits for other members or a timer (a JoinGroup until
/// the join phase ends, a follower's SyncGroup until the leader's): answered later, still in
/// request order, through `answer` (filled by [`Broker::drain_group_responses`]).
#[derive(Debug)]
pub struct GroupWait {
    /// Where the answer comes from.
    pub answer: oneshot::Receiver<GroupResponse>,
}

/// The response body of a classic answer.
pub fn group_response(r: GroupResponse) -> Response {
    match r {
        GroupResponse::JoinGroup(r) => r.into(),
        GroupResponse::SyncGroup(r) => r.into(),
        GroupResponse::Heartbeat(r) => r.into(),
        GroupResponse::LeaveGroup(r) => r.into(),
    }
}

/// What to do with a request.
#[derive(Debug)]
pub enum Outcome {
    /// Send this response.
    Respond(Response),
    /// Send nothing (Produce with acks=0).
    Silent,
    /// Hold the Fetch (answered later, still in request order).
    Park(FetchWait),
    /// Wait for a classic group answer (sent later, still in request order).
    Wait(GroupWait),
    /// Close the connection, for this reason (an API in [`crate::apis::SUPPORTED`] without a
    /// handler; a test keeps the two in step).
    Close(String),
}

/// Handles one decoded request (see the module docs). The API and version were checked against
/// [`crate::apis::SUPPORTED`] by the caller.
pub fn handle(shared: &Shared, ctx: &Ctx<'_>, body: Request) -> Outcome {
    let mut produced = false;
    let mut timers = false;
    let outcome = {
        let mut b = shared.lock();
        let b: &mut Broker = &mut b;
        let failures = b.write_failures();
        let out = match body {
            Request::ApiVersions(r) => {
                let resp = crate::apis::api_versions(
                    ctx.version,
                    &r,
                    &b.cluster_id,
                    crate::broker::NODE_ID,
                );
                if resp.error_code != ErrorCode::None.code() {
                    let why = if resp.error_code == ErrorCode::RebootstrapRequired.code() {
                        format!(
                            "the client expects cluster {:?} node {}, this is cluster {:?} node {}",
                            r.cluster_id.as_deref(),
                            r.node_id,
                            b.cluster_id,
                            crate::broker::NODE_ID,
                        )
                    } else {
                        format!(
                            "client software name {:?} or version {:?} breaks KIP-511's pattern, or only one of ClusterId {:?} and NodeId {} is given (KIP-1242)",
                            &*r.client_software_name,
                            &*r.client_software_version,
                            r.cluster_id.as_deref(),
                            r.node_id,
                        )
                    };
                    let refusal = Refusal {
                        code: resp.error_code,
                        message: None,
                    };
                    ctx.refused(ApiKey::ApiVersions, format_args!("{why}: {refusal}"));
                }
                Outcome::Respond(resp.into())
            }
            Request::Metadata(r) => {
                let (resp, created) = meta::metadata(b, ctx, &r);
                timers = created;
                Outcome::Respond(resp.into())
            }
            Request::InitProducerId(r) => {
                Outcome::Respond(producer::init_producer_id(b, ctx, &r).into())
            }
            Request::FindCoordinator(r) => {
                Outcome::Respond(meta::find_coordinator(b, ctx, &r).into())
            }
            Request::CreateTopics(r) => {
                let resp = meta::create_topics(b, ctx, &r);
                timers = true;
                Outcome::Respond(resp.into())
            }
            Request::DeleteRecords(r) => Outcome::Respond(admin::delete_records(b, ctx, &r).into()),
            Request::DescribeConfigs(r) => {
                Outcome::Respond(configs::describe_configs(b, &shared.config, ctx, &r).into())
            }
            Request::DescribeCluster(r) => {
                Outcome::Respond(admin::describe_cluster(b, ctx, &r).into())
            }
            Request::DescribeTopicPartitions(r) => {
                Outcome::Respond(admin::describe_topic_partitions(b, ctx, &r).into())
            }
            Request::ConsumerGroupHeartbeat(r) => {
                timers = true;
                Outcome::Respond(groups::consumer_group_heartbeat(b, ctx, &r).into())
            }
            Request::ConsumerGroupDescribe(r) => {
                Outcome::Respond(groups::consumer_group_describe(b, ctx, &r).into())
            }
            Request::StreamsGroupHeartbeat(r) => {
                timers = true;
                Outcome::Respond(groups::streams_group_heartbeat(b, ctx, &r).into())
            }
            Request::StreamsGroupDescribe(r) => {
                Outcome::Respond(groups::streams_group_describe(b, ctx, &r).into())
            }
            Request::StreamsGroupTopologyDescriptionUpdate(r) => Outcome::Respond(
                groups::streams_group_topology_description_update(b, ctx, &r).into(),
            ),
            Request::DescribeGroups(r) => {
                Outcome::Respond(groups::describe_groups(b, ctx, &r).into())
            }
            Request::ListGroups(r) => Outcome::Respond(groups::list_groups(b, ctx, &r).into()),
            Request::DeleteGroups(r) => {
                timers = true;
                Outcome::Respond(groups::delete_groups(b, ctx, &r).into())
            }
            Request::JoinGroup(r) => {
                timers = true;
                groups::join_group(b, ctx, &r)
            }
            Request::SyncGroup(r) => {
                timers = true;
                groups::sync_group(b, ctx, &r)
            }
            Request::Heartbeat(r) => {
                timers = true;
                groups::heartbeat(b, ctx, &r)
            }
            Request::LeaveGroup(r) => {
                timers = true;
                groups::leave_group(b, ctx, &r)
            }
            Request::OffsetCommit(r) => Outcome::Respond(offsets::offset_commit(b, ctx, &r).into()),
            Request::OffsetFetch(r) => Outcome::Respond(offsets::offset_fetch(b, ctx, &r).into()),
            Request::Produce(r) => {
                let (resp, appended) = data::produce(b, ctx, &r);
                produced = appended;
                if r.acks == 0 {
                    Outcome::Silent
                } else {
                    Outcome::Respond(resp.into())
                }
            }
            Request::ListOffsets(r) => Outcome::Respond(data::list_offsets(b, ctx, &r).into()),
            Request::Fetch(r) => data::fetch(b, ctx, r, shared.config.max_fetch_wait_ms),
            // The caller checks the API against `SUPPORTED` first, so this is a table/handler
            // mismatch: close rather than answer wrongly.
            other => Outcome::Close(format!("{} has no handler", other.api_key().name())),
        };
        let committed = b.commit().is_ok() && b.write_failures() == failures;
        // Classic answers this request made ready (its own or other members').
        b.drain_group_responses();
        let out = match out {
            // Answered at once: no need to hold the connection's queue.
            Outcome::Wait(mut w) => match w.answer.try_recv() {
                Ok(r) => Outcome::Respond(group_response(r)),
                Err(_) => Outcome::Wait(w),
            },
            other => other,
        };
        if committed {
            out
        } else {
            storage_failure(out)
        }
    };
    if produced {
        shared.produced.send_modify(|n| *n = n.wrapping_add(1));
    }
    if timers {
        shared.timers.notify_one();
    }
    outcome
}

/// The answer to a group heartbeat whose records could not be written: NOT_COORDINATOR, as Kafka
/// translates KAFKA_STORAGE_ERROR for group APIs (the client looks for the coordinator again).
/// Other answers already carry their own errors.
fn storage_failure(out: Outcome) -> Outcome {
    const MESSAGE: &str = "The coordinator cannot write its durable log.";
    match out {
        Outcome::Respond(Response::ConsumerGroupHeartbeat(_)) => Outcome::Respond(
            ConsumerGroupHeartbeatResponse {
                error_code: ErrorCode::NotCoordinator.code(),
                error_message: Some(MESSAGE.into()),
                ..Default::default()
            }
            .into(),
        ),
        Outcome::Respond(Response::StreamsGroupHeartbeat(_)) => Outcome::Respond(
            StreamsGroupHeartbeatResponse {
                error_code: ErrorCode::NotCoordinator.code(),
                error_message: Some(MESSAGE.into()),
                ..Default::default()
            }
            .into(),
        ),
        Outcome::Respond(Response::StreamsGroupTopologyDescriptionUpdate(_)) => Outcome::Respond(
            StreamsGroupTopologyDescriptionUpdateResponse {
                error_code: ErrorCode::NotCoordinator.code(),
                error_message: Some(MESSAGE.into()),
                ..Default::default()
            }
            .into(),
        ),
        other => other,
    }
}

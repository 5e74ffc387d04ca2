//! Request handlers: one function per API, each a synchronous step over the [`Broker`] (run
//! under its lock) from a decoded request body to a response body.
//!
//! [`handle`] dispatches, writes the records the request produced to the durable log (one
//! append) and wakes the timer task or parked fetches when the request calls for it.

mod data;
mod groups;
mod meta;
mod offsets;

use std::time::Instant;

use kwire_protocol::generated::fetch_request::FetchRequest;
use kwire_protocol::generated::{Request, Response};

use crate::broker::{Broker, Shared};

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

/// What to do with a request.
#[derive(Debug)]
pub enum Outcome {
    /// Send this response.
    Respond(Response),
    /// Send nothing (Produce with acks=0).
    Silent,
    /// Hold the Fetch (answered later, still in request order).
    Park(FetchWait),
}

/// Handles one decoded request (see the module docs). The API and version were checked against
/// [`crate::apis::SUPPORTED`] by the caller.
pub fn handle(shared: &Shared, ctx: &Ctx<'_>, body: Request) -> Outcome {
    let mut produced = false;
    let mut timers = false;
    let outcome = {
        let mut b = shared.lock();
        let b: &mut Broker = &mut b;
        let out = match body {
            Request::ApiVersions(r) => Outcome::Respond(
                crate::apis::api_versions(
                    ctx.version,
                    &r.client_software_name,
                    &r.client_software_version,
                )
                .into(),
            ),
            Request::Metadata(r) => Outcome::Respond(meta::metadata(b, ctx, &r).into()),
            Request::FindCoordinator(r) => {
                Outcome::Respond(meta::find_coordinator(b, ctx, &r).into())
            }
            Request::CreateTopics(r) => {
                let resp = meta::create_topics(b, ctx, &r);
                timers = true;
                Outcome::Respond(resp.into())
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
            Request::DescribeGroups(r) => {
                Outcome::Respond(groups::describe_groups(b, ctx, &r).into())
            }
            Request::ListGroups(r) => Outcome::Respond(groups::list_groups(b, ctx, &r).into()),
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
        };
        b.commit();
        out
    };
    if produced {
        shared.produced.send_modify(|n| *n = n.wrapping_add(1));
    }
    if timers {
        shared.timers.notify_one();
    }
    outcome
}

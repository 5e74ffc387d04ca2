//! What a handler answers: a response now, nothing (Produce with acks=0), or an answer that
//! comes later (a held Fetch, a classic group request waiting for its group), or a closed
//! connection.
//!
//! A leaf: it imports nothing from the crate. Handlers build replies, the router passes them
//! on, and the connection (`net`) writes them in request order.

use std::time::Instant;

use kwire_protocol::coordinator::GroupResponse;
use kwire_protocol::generated::fetch_request::FetchRequest;
use kwire_protocol::generated::Response;
use tokio::sync::oneshot;

/// What to do with a request.
#[derive(Debug)]
pub enum Reply {
    /// Send this response.
    Respond(Response),
    /// Send nothing (Produce with acks=0).
    Silent,
    /// Hold the Fetch (answered later, still in request order).
    Park(FetchWait),
    /// Wait for a classic group answer (sent later, still in request order).
    Wait(GroupWait),
    /// Close the connection, for this reason.
    Close(String),
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

/// A classic group request whose answer waits for other members or a timer (a JoinGroup until
/// the join phase ends, a follower's SyncGroup until the leader's): answered later, still in
/// request order, through `answer` (filled when the coordinator's outbox has it).
#[derive(Debug)]
pub struct GroupWait {
    /// Where the answer comes from.
    pub answer: oneshot::Receiver<GroupResponse>,
}

/// The response body of a classic group answer.
pub fn group_response(r: GroupResponse) -> Response {
    match r {
        GroupResponse::JoinGroup(r) => r.into(),
        GroupResponse::SyncGroup(r) => r.into(),
        GroupResponse::Heartbeat(r) => r.into(),
        GroupResponse::LeaveGroup(r) => r.into(),
    }
}

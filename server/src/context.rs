//! The request context: who sent a request, at which version, and when.
//!
//! A leaf: it imports nothing from the crate. The router builds one per decoded request and
//! hands it to the handler; services read the client's id and address from it for their log
//! lines and the coordinator's member metadata.

use std::net::SocketAddr;

use kwire_protocol::coordinator::RequestContext;

/// Who sent a request, at which version, and when.
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
    /// Wall-clock time in ms since the Unix epoch.
    pub now: i64,
}

impl Ctx<'_> {
    /// The client id for a log line: `None` when the header carried none (or an empty one).
    pub fn client(&self) -> Option<&str> {
        (!self.client_id.is_empty()).then_some(self.client_id)
    }

    /// The coordinator's view of this request (client id, client host, API version).
    pub fn coordinator(&self) -> RequestContext {
        RequestContext::new(self.client_id, self.client_host, self.version)
    }
}

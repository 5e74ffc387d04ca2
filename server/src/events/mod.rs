//! What kwire-server logs at INFO for a person running it: requests it refuses and why, the
//! topics it creates and for whom, producer ids given and duplicate batches, and the changes of
//! consumer, streams and classic groups ([`groups`]).
//!
//! This module only says what to log: every line is an [`Event`], built by the services and
//! handlers while a request runs and emitted by the router once the request's writes are
//! committed (so the log never shows a change the durable log does not hold, nor a line before
//! the change it reports). It imports only the leaves (the request context and names).
//! Connection lines (opened, identified, closed) are DEBUG lines of the connection itself.
//!
//! Lines are sentences with names, not numbers: API names (Kafka's `ApiKeys` names), error names
//! (Kafka's `Errors` names, through [`ErrorCode`]).

pub mod groups;

use std::fmt;
use std::net::SocketAddr;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::names::{api_label, count};

/// One INFO line for a person running the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event(String);

impl Event {
    /// An event of this text.
    pub fn new(line: impl Into<String>) -> Self {
        Event(line.into())
    }

    /// Logs the line at INFO.
    pub fn emit(&self) {
        tracing::info!("{}", self.0);
    }
}

/// A refused request: `refused Fetch v3 from 127.0.0.1:5555 (client rdkafka): version not
/// supported (Fetch 4-16)`. `api_key` is the raw key (named through [`api_label`]); `client` is
/// the header's client id, when known.
pub fn refused(
    api_key: i16,
    version: i16,
    peer: SocketAddr,
    client: Option<&str>,
    reason: impl fmt::Display,
) -> Event {
    let api = api_label(api_key);
    Event(match client {
        Some(c) => format!("refused {api} v{version} from {peer} (client {c}): {reason}"),
        None => format!("refused {api} v{version} from {peer}: {reason}"),
    })
}

/// The request of `ctx`, of `api`, refused for `reason` ([`refused`]).
pub fn refused_request(ctx: &Ctx<'_>, api: ApiKey, reason: impl fmt::Display) -> Event {
    refused(api.as_i16(), ctx.version, ctx.peer, ctx.client(), reason)
}

/// An error code answered, shown by name with the response's message, if any:
/// `FENCED_MEMBER_EPOCH (110): <message>`, or `error code N` for a code [`ErrorCode`] lacks.
pub struct Refusal<'a> {
    /// The code answered.
    pub code: i16,
    /// The response's error message.
    pub message: Option<&'a str>,
}

impl fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match ErrorCode::from_code(self.code) {
            Some(e) => write!(f, "{e}")?,
            None => write!(f, "error code {}", self.code)?,
        }
        match self.message {
            Some(m) if !m.is_empty() => write!(f, ": {m}"),
            _ => Ok(()),
        }
    }
}

/// Who asked for a topic to be created.
#[derive(Debug, Clone, Copy)]
pub enum TopicOrigin<'a> {
    /// `--topic` on the command line (or the configuration).
    Config,
    /// A CreateTopics request.
    CreateTopics {
        /// The client id of the request.
        client_id: &'a str,
        /// The client's address.
        peer: SocketAddr,
    },
    /// A Metadata request naming an unknown topic (auto-creation, Kafka's
    /// `auto.create.topics.enable`).
    AutoCreate {
        /// The client id of the request.
        client_id: &'a str,
        /// The client's address.
        peer: SocketAddr,
    },
    /// The internal topics a streams group's topology needs (KIP-1071).
    StreamsGroup {
        /// The group.
        group_id: &'a str,
    },
}

impl fmt::Display for TopicOrigin<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopicOrigin::Config => write!(f, "from the configuration (--topic)"),
            TopicOrigin::CreateTopics { client_id, peer } => {
                write!(f, "for CreateTopics from {peer} (client {client_id})")
            }
            TopicOrigin::AutoCreate { client_id, peer } => {
                write!(
                    f,
                    "automatically, for Metadata from {peer} (client {client_id})"
                )
            }
            TopicOrigin::StreamsGroup { group_id } => {
                write!(f, "as an internal topic of streams group {group_id}")
            }
        }
    }
}

/// A topic was created: `created topic t (3 partitions, id …) for CreateTopics from …`.
pub fn topic_created(
    name: &str,
    partitions: i32,
    id: impl fmt::Display,
    origin: TopicOrigin<'_>,
) -> Event {
    let partitions = count(partitions, "partition");
    Event(format!(
        "created topic {name} ({partitions}, id {id}) {origin}"
    ))
}

/// The producer fields of a duplicate batch, for [`duplicate_batch`].
#[derive(Debug, Clone, Copy)]
pub struct BatchProducer {
    /// The producer id.
    pub producer_id: i64,
    /// The producer epoch.
    pub epoch: i16,
    /// The batch's first sequence.
    pub first_seq: i32,
    /// The batch's last sequence.
    pub last_seq: i32,
}

/// A produced batch repeated one of its producer's last batches and was answered with the
/// original offset instead of being stored again (a producer's retry after a lost answer):
/// `duplicate batch of producer 3 (epoch 0, sequences 10-14) for orders-0 from 127.0.0.1:5555
/// (client rdkafka): answered with its original offset 42, not stored again`.
pub fn duplicate_batch(
    ctx: &Ctx<'_>,
    topic: &str,
    partition: i32,
    batch: BatchProducer,
    offset: i64,
) -> Event {
    let BatchProducer {
        producer_id: id,
        epoch,
        first_seq: first,
        last_seq: last,
    } = batch;
    let peer = ctx.peer;
    let client = match ctx.client() {
        None => String::new(),
        Some(c) => format!(" (client {c})"),
    };
    Event(format!(
        "duplicate batch of producer {id} (epoch {epoch}, sequences {first}-{last}) for {topic}-{partition} from {peer}{client}: answered with its original offset {offset}, not stored again"
    ))
}

/// InitProducerId gave a producer id: `producer id 7 (epoch 0) for 127.0.0.1:5555 (client
/// producer-1)`.
pub fn producer_id_given(ctx: &Ctx<'_>, producer_id: i64, epoch: i16) -> Event {
    let peer = ctx.peer;
    Event(match ctx.client() {
        None => format!("producer id {producer_id} (epoch {epoch}) for {peer}"),
        Some(c) => format!("producer id {producer_id} (epoch {epoch}) for {peer} (client {c})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_error() {
        let r = Refusal {
            code: 110,
            message: Some("stale"),
        };
        assert_eq!(r.to_string(), "FENCED_MEMBER_EPOCH (110): stale");
        let r = Refusal {
            code: 999,
            message: None,
        };
        assert_eq!(r.to_string(), "error code 999");
        let peer: SocketAddr = "127.0.0.1:5555".parse().expect("addr");
        assert_eq!(
            refused(1, 3, peer, Some("rdkafka"), "version not supported"),
            Event::new(
                "refused Fetch v3 from 127.0.0.1:5555 (client rdkafka): version not supported"
            )
        );
    }
}

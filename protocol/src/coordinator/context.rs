//! What every group type shares: the request context, the caller-provided topic metadata, the
//! member-id generator, the error codes, configuration errors and the [`Context`] that the
//! facade owns and lends to each group type's manager for one call.
//!
//! This module imports nothing from the coordinator but [`super::timers`] and
//! [`super::outbox`]; every group type imports from here.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use super::outbox::Outbox;
use super::timers::Timers;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::wire::Uuid;

/// Who sent a request: what Kafka's `RequestContext` gives the coordinator.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestContext {
    /// The client id of the request header.
    pub client_id: String,
    /// The client's address.
    pub client_host: String,
    /// The request's API version (v0 lets the server generate member ids; docs/coordinator.md §0).
    pub api_version: i16,
}

impl RequestContext {
    /// A context with the given client id, host and API version. `client_host` is kept as
    /// given; Kafka's form is [`RequestContext::host_of`]'s (`/127.0.0.1`), which
    /// [`RequestContext::from_peer`] writes for you.
    pub fn new(client_id: &str, client_host: &str, api_version: i16) -> Self {
        RequestContext {
            client_id: client_id.to_string(),
            client_host: client_host.to_string(),
            api_version,
        }
    }

    /// A context for a request from `peer` (the connection's remote address, e.g.
    /// `TcpStream::peer_addr()?.ip()`), with the client host in Kafka's form
    /// ([`RequestContext::host_of`]).
    pub fn from_peer(client_id: &str, peer: IpAddr, api_version: i16) -> Self {
        RequestContext {
            client_id: client_id.to_string(),
            client_host: Self::host_of(peer),
            api_version,
        }
    }

    /// Kafka's client host text of an address (Java's `InetAddress.toString()` of an address
    /// with no host name, as `KafkaApis` passes it to the coordinator): `/` and the address,
    /// an IPv4-mapped IPv6 address as IPv4, an IPv6 address as eight hexadecimal groups
    /// without `::` compression (`/0:0:0:0:0:0:0:1`, as Java's `Inet6Address` prints it).
    pub fn host_of(peer: IpAddr) -> String {
        match peer.to_canonical() {
            IpAddr::V4(a) => format!("/{a}"),
            IpAddr::V6(a) => {
                let groups: Vec<String> = a.segments().iter().map(|s| format!("{s:x}")).collect();
                format!("/{}", groups.join(":"))
            }
        }
    }
}

/// Source of server-generated member ids (ConsumerGroupHeartbeat v0 joins with an empty id).
pub trait MemberIdGenerator: Send + std::fmt::Debug {
    /// A fresh member id, never returned before.
    fn generate(&mut self) -> String;
}

/// Deterministic member ids: Kafka's text form (URL-safe base64) of a UUID derived from a counter
/// and a seed.
#[derive(Debug, Clone, Default)]
pub struct SequentialMemberIds {
    seed: u64,
    next: u64,
}

impl SequentialMemberIds {
    /// Ids derived from `seed`.
    pub fn new(seed: u64) -> Self {
        SequentialMemberIds { seed, next: 0 }
    }
}

impl MemberIdGenerator for SequentialMemberIds {
    fn generate(&mut self) -> String {
        self.next += 1;
        let mix = |mut z: u64| {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let hi = mix(self.seed ^ self.next);
        let lo = mix(hi ^ self.next.rotate_left(17));
        Uuid::from_u128(((hi as u128) << 64) | lo as u128).to_string()
    }
}

/// One topic of the caller-provided metadata (D4): what Kafka's metadata image knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// The topic id.
    pub topic_id: Uuid,
    /// The topic name.
    pub name: String,
    /// Number of partitions.
    pub partitions: i32,
    /// Replica racks by partition (may be empty); they feed only the metadata hash.
    pub partition_racks: BTreeMap<i32, BTreeSet<String>>,
}

impl TopicMetadata {
    /// A topic without rack information.
    pub fn new(topic_id: Uuid, name: &str, partitions: i32) -> Self {
        TopicMetadata {
            topic_id,
            name: name.to_string(),
            partitions,
            partition_racks: BTreeMap::new(),
        }
    }
}

/// An invalid configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid consumer-group configuration: {0}")]
pub struct ConfigError(pub String);

/// A request's failure: the error code and message of the response. A failed request writes
/// no record and changes no state.
#[derive(Debug)]
pub(crate) struct HbError {
    pub code: i16,
    pub message: Option<String>,
}

/// `Err(HbError)` with `code` and `message`.
pub(crate) fn fail<T>(code: i16, message: impl Into<String>) -> Result<T, HbError> {
    Err(HbError {
        code,
        message: Some(message.into()),
    })
}

/// The members a LeaveGroup names, as (member id, group instance id), in request order: below
/// v3 the request's own member id; from v3 its `Members` batch (KIP-345). Shared by classic
/// groups and by classic members inside consumer groups.
pub(crate) fn leaving_members(
    req: &LeaveGroupRequest,
    version: i16,
) -> Vec<(String, Option<String>)> {
    if version < 3 {
        return vec![(req.member_id.to_string(), None)];
    }
    req.members
        .iter()
        .map(|m| {
            (
                m.member_id.to_string(),
                m.group_instance_id.as_ref().map(|i| i.to_string()),
            )
        })
        .collect()
}

/// Whether a client string is empty or only whitespace (Kafka's `isBlank` checks).
pub(crate) fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// The group ids one group type holds: how the streams manager learns that an id belongs to
/// another group type (one group-id namespace). The consumer manager is told instead, by the
/// facade, whether another type holds the request's group id (the facade's registry knows
/// every type), which needs no view to be built; streams keeps this view until it adopts that.
pub(crate) trait Namespace {
    /// Whether `group_id` names a group of this type.
    fn holds(&self, group_id: &str) -> bool;
}

impl<T> Namespace for BTreeMap<String, T> {
    fn holds(&self, group_id: &str) -> bool {
        self.contains_key(group_id)
    }
}

/// The group ids of every *other* group type, as seen by one manager.
pub(crate) struct Others<'a>(pub Vec<&'a dyn Namespace>);

impl Others<'_> {
    /// Whether another group type holds `group_id`.
    pub fn hold(&self, group_id: &str) -> bool {
        self.0.iter().any(|n| n.holds(group_id))
    }
}

/// The state every group type shares, owned by the facade and lent to one manager at a time:
/// the topic metadata (by name) and its version, the member-id generator, the timers and the
/// outbox of classic answers ready to send.
#[derive(Debug)]
pub(crate) struct Context {
    pub topics: BTreeMap<String, TopicMetadata>,
    /// Bumped by every `set_topics` (regex resolutions record the version they saw).
    pub metadata_version: i64,
    pub ids: Box<dyn MemberIdGenerator>,
    pub timers: Timers,
    /// Classic-protocol answers ready to send (see [`super::outbox`]).
    pub outbox: Outbox,
}

impl Context {
    /// A context with no topics and no timers.
    pub fn new(ids: Box<dyn MemberIdGenerator>) -> Self {
        Context {
            topics: BTreeMap::new(),
            metadata_version: 0,
            ids,
            timers: Timers::default(),
            outbox: Outbox::default(),
        }
    }

    /// The ids of the named topics that the metadata knows.
    pub fn topic_ids_of<'a>(&self, names: impl Iterator<Item = &'a String>) -> BTreeSet<Uuid> {
        names
            .filter_map(|n| self.topics.get(n).map(|t| t.topic_id))
            .collect()
    }

    /// kwire's metadata hash (docs/coordinator.md, D6): FNV-1a 64 over the sorted named topics
    /// present in the metadata (id, name, partition count, sorted racks per partition); 0 for no
    /// topics.
    pub fn metadata_hash<'a>(&self, names: impl Iterator<Item = &'a String>) -> u64 {
        let names: BTreeSet<&String> = names.collect();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut any = false;
        let mut feed = |bytes: &[u8]| {
            for b in (bytes.len() as u64).to_be_bytes().iter().chain(bytes) {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for n in names {
            let Some(t) = self.topics.get(n) else {
                continue;
            };
            any = true;
            feed(&t.topic_id.0);
            feed(t.name.as_bytes());
            feed(&t.partitions.to_be_bytes());
            for (p, racks) in &t.partition_racks {
                feed(&p.to_be_bytes());
                for r in racks {
                    feed(r.as_bytes());
                }
            }
        }
        if any {
            h
        } else {
            0
        }
    }
}

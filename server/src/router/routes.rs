//! The route table: every API kwire-server serves, its versions, its handler, and what it
//! wakes. It is also what ApiVersions advertises (this module answers ApiVersions), so the
//! advertised list and the handlers cannot drift apart: a request for an API or version not in
//! the table is refused before it is decoded and closes its connection (as Kafka does), except
//! ApiVersions above the highest version served, which is answered UNSUPPORTED_VERSION in the
//! version-0 layout (KIP-511).
//!
//! The lowest versions are Kafka 4.4's (KIP-896 removed older ones). [`served_apis`] gives the
//! table to documentation and tests; [`ROUTES`]' notes say what each API does here.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::api_versions_request::ApiVersionsRequest;
use kwire_protocol::generated::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kwire_protocol::generated::{ApiKey, Request};

use crate::context::Ctx;
use crate::events::Refusal;
use crate::handlers::{
    classic_groups, configs, consumer_groups, fetch, groups, metadata, offsets, produce,
    producer_ids, streams_groups, topics,
};
use crate::reply::Reply;
use crate::services::cluster::NODE_ID;
use crate::services::state::State;

/// A handler: a decoded request body to its reply, run under the state's lock.
pub type Handler = fn(&mut State, &Ctx<'_>, Request) -> Reply;

/// One API served.
#[derive(Clone, Copy)]
pub struct Route {
    /// The API.
    pub api: ApiKey,
    /// Lowest version served.
    pub min: i16,
    /// Highest version served.
    pub max: i16,
    /// Its handler.
    pub handler: Handler,
    /// Whether the request may change the coordinator's timers (the timer task looks again
    /// after it).
    pub wakes_timers: bool,
    /// What kwire-server does with it, in a few words.
    pub note: &'static str,
}

/// The answer of a route whose handler got another API's body (the table is wrong): the
/// connection is closed rather than answered wrongly.
fn mismatch(other: Request) -> Reply {
    Reply::Close(format!(
        "{} reached another API's handler",
        other.api_key().name()
    ))
}

/// A handler of `$variant` from `$f(state, ctx, &request) -> response`.
macro_rules! respond {
    ($variant:ident, $f:path) => {
        |st, ctx, req| match req {
            Request::$variant(r) => Reply::Respond($f(st, ctx, &r).into()),
            other => mismatch(other),
        }
    };
}

/// A handler of `$variant` from `$f(state, ctx, &request) -> Reply`.
macro_rules! reply {
    ($variant:ident, $f:path) => {
        |st, ctx, req| match req {
            Request::$variant(r) => $f(st, ctx, &r),
            other => mismatch(other),
        }
    };
}

/// A route; `timers`: whether the API wakes the timer task.
const fn route(
    api: ApiKey,
    (min, max): (i16, i16),
    handler: Handler,
    timers: bool,
    note: &'static str,
) -> Route {
    Route {
        api,
        min,
        max,
        handler,
        wakes_timers: timers,
        note,
    }
}

/// Every API served, in the order ApiVersions lists them.
pub const ROUTES: &[Route] = &[
    route(ApiKey::Produce, (3, 11), reply!(Produce, produce::produce), false, "≥ 3 is what librdkafka's MsgVer2 feature needs; idempotent producers, no transactions"),
    route(ApiKey::Fetch, (4, 16), |st, ctx, req| match req {
        Request::Fetch(r) => fetch::fetch(st, ctx, r),
        other => mismatch(other),
    }, false, "by name below 13, by topic id from 13; never a fetch session"),
    route(ApiKey::ListOffsets, (1, 9), respond!(ListOffsets, fetch::list_offsets), false, ""),
    route(ApiKey::Metadata, (0, 13), respond!(Metadata, metadata::metadata), false, "v12+ by topic id; v13 has the top-level ErrorCode; auto-creates topics"),
    route(ApiKey::OffsetCommit, (2, 9), respond!(OffsetCommit, offsets::offset_commit), false, ""),
    route(ApiKey::OffsetFetch, (1, 9), respond!(OffsetFetch, offsets::offset_fetch), false, "v8+ batched groups"),
    route(ApiKey::FindCoordinator, (0, 6), respond!(FindCoordinator, metadata::find_coordinator), false, "v4+ batched keys; this broker for every key"),
    route(ApiKey::JoinGroup, (0, 9), reply!(JoinGroup, classic_groups::join_group), true, "classic groups; the answer waits for the join phase"),
    route(ApiKey::Heartbeat, (0, 4), reply!(Heartbeat, classic_groups::heartbeat), true, ""),
    route(ApiKey::LeaveGroup, (0, 5), reply!(LeaveGroup, classic_groups::leave_group), true, "v3+ batches"),
    route(ApiKey::SyncGroup, (0, 5), reply!(SyncGroup, classic_groups::sync_group), true, "a follower's answer waits for the leader's"),
    route(ApiKey::DescribeGroups, (0, 6), respond!(DescribeGroups, groups::describe_groups), false, "every group type; v6 GROUP_ID_NOT_FOUND (KIP-1043)"),
    route(ApiKey::ListGroups, (0, 5), respond!(ListGroups, groups::list_groups), false, "every group type; states and types filters"),
    route(ApiKey::DeleteGroups, (0, 3), respond!(DeleteGroups, groups::delete_groups), true, "every group type, with the group's committed offsets"),
    route(ApiKey::ApiVersions, (0, API_VERSIONS_MAX), respond!(ApiVersions, api_versions), false, "response header v0 always; v5 checks ClusterId/NodeId (KIP-1242); above 5: UNSUPPORTED_VERSION in the v0 layout"),
    route(ApiKey::CreateTopics, (2, 7), respond!(CreateTopics, topics::create_topics), true, ""),
    route(ApiKey::DeleteRecords, (0, 2), respond!(DeleteRecords, topics::delete_records), false, "the log start offset moves; POLICY_VIOLATION for a topic without cleanup.policy=delete"),
    route(ApiKey::DescribeConfigs, (1, 4), respond!(DescribeConfigs, configs::describe_configs), false, "topics (Kafka 4.4's defaults, CreateTopics' configs), broker 1, groups"),
    route(ApiKey::DescribeCluster, (0, 2), respond!(DescribeCluster, metadata::describe_cluster), false, "this broker"),
    route(ApiKey::DescribeTopicPartitions, (0, 0), respond!(DescribeTopicPartitions, metadata::describe_topic_partitions), false, "name order, cursor, partition limit (1 to 2000)"),
    route(ApiKey::InitProducerId, (0, 5), respond!(InitProducerId, producer_ids::init_producer_id), false, "idempotent producers only; v6 (KIP-939) is unstable in Kafka 4.4"),
    route(ApiKey::ConsumerGroupHeartbeat, (0, 1), respond!(ConsumerGroupHeartbeat, consumer_groups::consumer_group_heartbeat), true, "KIP-848"),
    route(ApiKey::ConsumerGroupDescribe, (0, 1), respond!(ConsumerGroupDescribe, consumer_groups::consumer_group_describe), false, "KIP-848"),
    route(ApiKey::StreamsGroupHeartbeat, (0, 1), respond!(StreamsGroupHeartbeat, streams_groups::streams_group_heartbeat), true, "KIP-1071; creates the internal topics"),
    route(ApiKey::StreamsGroupDescribe, (0, 1), respond!(StreamsGroupDescribe, streams_groups::streams_group_describe), false, "KIP-1071; v1 topology description (KIP-1331)"),
    route(ApiKey::StreamsGroupTopologyDescriptionUpdate, (0, 0), respond!(StreamsGroupTopologyDescriptionUpdate, streams_groups::streams_group_topology_description_update), false, "KIP-1331: kwire keeps the description itself"),
];

/// Highest ApiVersions version served.
pub const API_VERSIONS_MAX: i16 = 5;

/// One API served, as [`served_apis`] lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedApi {
    /// The API.
    pub api: ApiKey,
    /// Lowest version served.
    pub min_version: i16,
    /// Highest version served.
    pub max_version: i16,
    /// What kwire-server does with it, in a few words ("" when nothing to add).
    pub note: &'static str,
}

/// Every API kwire-server serves, with its versions, in the order ApiVersions lists them (the
/// route table itself). Any other API is not served: its requests are refused and close the
/// connection.
pub fn served_apis() -> Vec<ServedApi> {
    ROUTES
        .iter()
        .map(|r| ServedApi {
            api: r.api,
            min_version: r.min,
            max_version: r.max,
            note: r.note,
        })
        .collect()
}

/// The route of a raw API key, if served.
pub fn route_of(key: i16) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.api.as_i16() == key)
}

/// Whether `key` at `version` is served.
pub fn is_supported(key: i16, version: i16) -> bool {
    route_of(key).is_some_and(|r| (r.min..=r.max).contains(&version))
}

/// Why a request of API `key` is refused, for a key or version [`is_supported`] rejects:
/// `version not supported (Fetch 4-16)`, `API not served by kwire-server`, or `unknown API key`.
pub fn unsupported_reason(key: i16) -> String {
    match route_of(key) {
        Some(r) => format!(
            "version not supported ({} {}-{})",
            r.api.name(),
            r.min,
            r.max
        ),
        None if ApiKey::from_i16(key).is_some() => "API not served by kwire-server".to_string(),
        None => "unknown API key".to_string(),
    }
}

fn api_keys() -> Vec<ApiVersion> {
    ROUTES
        .iter()
        .map(|r| ApiVersion {
            api_key: r.api.as_i16(),
            min_version: r.min,
            max_version: r.max,
            ..Default::default()
        })
        .collect()
}

/// KIP-511's rule for ClientSoftwareName and ClientSoftwareVersion:
/// `[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?`.
fn valid_software_field(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'.')
}

/// ApiVersions v0-5: [`api_versions_answer`] for this broker; a refusal is logged with the
/// reason the error code stands for.
fn api_versions(st: &mut State, ctx: &Ctx<'_>, r: &ApiVersionsRequest) -> ApiVersionsResponse {
    let resp = api_versions_answer(ctx.version, r, &st.cluster.cluster_id, NODE_ID);
    if resp.error_code != ErrorCode::None.code() {
        let why = if resp.error_code == ErrorCode::RebootstrapRequired.code() {
            format!(
                "the client expects cluster {:?} node {}, this is cluster {:?} node {NODE_ID}",
                r.cluster_id.as_deref(),
                r.node_id,
                st.cluster.cluster_id,
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
        st.fx
            .refused(ctx, ApiKey::ApiVersions, format_args!("{why}: {refusal}"));
    }
    resp
}

/// The ApiVersions answer to `req` at `version` (0-5), in Kafka 4.4's order of checks
/// (`KafkaApis` with `ApiVersionsRequest.isValid`):
/// 1. INVALID_REQUEST (42) with no keys when a v5 request gives only one of `ClusterId` and
///    `NodeId` (KIP-1242: both or neither), or a v3+ request's client software name or version
///    breaks KIP-511's pattern;
/// 2. REBOOTSTRAP_REQUIRED (129) with no keys when a v5 request names a cluster id or node id
///    other than this broker's (`cluster_id`, `node_id`): the client reached the wrong cluster or
///    node and must bootstrap again (KIP-1242);
/// 3. otherwise the route table.
pub fn api_versions_answer(
    version: i16,
    req: &ApiVersionsRequest,
    cluster_id: &str,
    node_id: i32,
) -> ApiVersionsResponse {
    let error = |code: ErrorCode| ApiVersionsResponse {
        error_code: code.code(),
        ..Default::default()
    };
    let ids_given_together = req.cluster_id.is_some() == (req.node_id != -1);
    if version >= 5 && !ids_given_together {
        return error(ErrorCode::InvalidRequest);
    }
    if version >= 3
        && !(valid_software_field(&req.client_software_name)
            && valid_software_field(&req.client_software_version))
    {
        return error(ErrorCode::InvalidRequest);
    }
    if version >= 5
        && req
            .cluster_id
            .as_deref()
            .is_some_and(|c| c != cluster_id || req.node_id != node_id)
    {
        return error(ErrorCode::RebootstrapRequired);
    }
    ApiVersionsResponse {
        error_code: ErrorCode::None.code(),
        api_keys: api_keys(),
        throttle_time_ms: 0,
        ..Default::default()
    }
}

/// The answer to an ApiVersions request of a version above [`API_VERSIONS_MAX`] (KIP-511):
/// UNSUPPORTED_VERSION (35) with only the ApiVersions entry, to be encoded at version 0.
pub fn api_versions_unsupported() -> ApiVersionsResponse {
    ApiVersionsResponse {
        error_code: ErrorCode::UnsupportedVersion.code(),
        api_keys: vec![ApiVersion {
            api_key: ApiKey::ApiVersions.as_i16(),
            min_version: 0,
            max_version: API_VERSIONS_MAX,
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_within_the_codecs() {
        for r in ROUTES {
            let v = r.api.valid_versions();
            assert!(v.contains(r.min) && v.contains(r.max), "{:?}", r.api);
        }
        assert!(route_of(71).is_none() && route_of(72).is_none());
        assert!(is_supported(0, 3) && !is_supported(0, 2));
        assert!(valid_software_field("confluent-kafka-python"));
        assert!(valid_software_field("2.16.1-rdkafka-2.16.0"));
        assert!(!valid_software_field("-x"));
        assert!(!valid_software_field(""));
        for r in ROUTES {
            assert_eq!(crate::names::api_label(r.api.as_i16()), r.api.name());
        }
        assert_eq!(unsupported_reason(1), "version not supported (Fetch 4-16)");
        assert_eq!(unsupported_reason(71), "API not served by kwire-server");
        assert_eq!(unsupported_reason(1000), "unknown API key");
        let req = |name: &str, cluster: Option<&str>, node: i32| ApiVersionsRequest {
            client_software_name: name.to_string().into(),
            client_software_version: "4.4.0".into(),
            cluster_id: cluster.map(|c| c.to_string().into()),
            node_id: node,
            ..Default::default()
        };
        let code = |v, r: &ApiVersionsRequest| api_versions_answer(v, r, "c1", 1).error_code;
        let (ok, invalid, rebootstrap) = (0, 42, 129);
        assert_eq!(code(3, &req("", None, -1)), invalid);
        assert_eq!(code(2, &req("", None, -1)), ok);
        assert_eq!(code(5, &req("java", None, -1)), ok);
        assert_eq!(code(5, &req("java", Some("c1"), 1)), ok);
        assert_eq!(code(5, &req("java", Some("c1"), -1)), invalid);
        assert_eq!(code(5, &req("java", None, 1)), invalid);
        assert_eq!(code(5, &req("java", Some("c2"), 1)), rebootstrap);
        assert_eq!(code(5, &req("java", Some("c1"), 2)), rebootstrap);
        // Below v5 the fields do not exist on the wire: never checked.
        assert_eq!(code(4, &req("java", Some("c2"), -1)), ok);
        assert_eq!(
            api_versions_answer(5, &req("java", None, -1), "c1", 1)
                .api_keys
                .len(),
            ROUTES.len()
        );
    }

    #[test]
    fn every_route_has_its_own_api_once() {
        let mut seen = std::collections::BTreeSet::new();
        for r in ROUTES {
            assert!(seen.insert(r.api), "{:?} twice", r.api);
        }
        let served = served_apis();
        assert_eq!(served.len(), ROUTES.len());
        assert!(served
            .iter()
            .any(|s| s.api == ApiKey::ApiVersions && s.max_version == API_VERSIONS_MAX));
    }
}

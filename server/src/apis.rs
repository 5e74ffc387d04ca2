//! The APIs and versions the server advertises in ApiVersions and serves: exactly these, and a
//! request for anything else closes the connection (as Kafka does).
//!
//! | key | API | versions | notes |
//! |---|---|---|---|
//! | 0 | Produce | 3-11 | ≥ 3 is what librdkafka's MsgVer2 feature needs |
//! | 1 | Fetch | 4-16 | by name below 13, by topic id from 13; never a fetch session |
//! | 2 | ListOffsets | 1-9 | |
//! | 3 | Metadata | 0-13 | v12+ by topic id; v13 has the top-level ErrorCode |
//! | 8 | OffsetCommit | 2-9 | |
//! | 9 | OffsetFetch | 1-9 | v8+ batched groups |
//! | 10 | FindCoordinator | 0-6 | v4+ batched keys |
//! | 11 | JoinGroup | 0-9 | classic groups; the answer waits for the join phase |
//! | 12 | Heartbeat | 0-4 | |
//! | 13 | LeaveGroup | 0-5 | v3+ batches |
//! | 14 | SyncGroup | 0-5 | a follower's answer waits for the leader's |
//! | 15 | DescribeGroups | 0-6 | every group type; v6 GROUP_ID_NOT_FOUND (KIP-1043) |
//! | 16 | ListGroups | 0-5 | every group type; states and types filters |
//! | 42 | DeleteGroups | 0-3 | every group type, with the group's committed offsets |
//! | 18 | ApiVersions | 0-4 | response header v0 always; above 4: UNSUPPORTED_VERSION in the v0 layout |
//! | 19 | CreateTopics | 2-7 | |
//! | 21 | DeleteRecords | 0-2 | the log start offset moves; POLICY_VIOLATION for a topic without `cleanup.policy=delete` |
//! | 22 | InitProducerId | 0-5 | idempotent producers only; v6 (KIP-939) is unstable in Kafka 4.4 |
//! | 32 | DescribeConfigs | 1-4 | topics (Kafka 4.4's defaults, CreateTopics' configs), broker 1, groups; other resource types INVALID_REQUEST |
//! | 60 | DescribeCluster | 0-2 | this broker; endpoint type 2 MISMATCHED_ENDPOINT_TYPE, others UNSUPPORTED_ENDPOINT_TYPE |
//! | 75 | DescribeTopicPartitions | 0 | name order, cursor, partition limit (1 to 2000) |
//! | 68 | ConsumerGroupHeartbeat | 0-1 | |
//! | 69 | ConsumerGroupDescribe | 0-1 | |
//! | 88 | StreamsGroupHeartbeat | 0-1 | v1: int64 AcceptableRecoveryLag, TopologyDescriptionRequired, status 6 |
//! | 89 | StreamsGroupDescribe | 0-1 | v1: topology description, its status, AssignorName |
//! | 93 | StreamsGroupTopologyDescriptionUpdate | 0 | KIP-1331: kwire keeps the description itself |
//!
//! The lowest versions are Kafka 4.4's (KIP-896 removed older ones). Telemetry (71/72),
//! transactions (InitProducerId serves idempotent producers; a
//! transactional id is answered COORDINATOR_NOT_AVAILABLE), SASL and OffsetForLeaderEpoch are
//! not advertised.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kwire_protocol::generated::ApiKey;

/// (API, lowest, highest) of every API served.
pub const SUPPORTED: &[(ApiKey, i16, i16)] = &[
    (ApiKey::Produce, 3, 11),
    (ApiKey::Fetch, 4, 16),
    (ApiKey::ListOffsets, 1, 9),
    (ApiKey::Metadata, 0, 13),
    (ApiKey::OffsetCommit, 2, 9),
    (ApiKey::OffsetFetch, 1, 9),
    (ApiKey::FindCoordinator, 0, 6),
    (ApiKey::JoinGroup, 0, 9),
    (ApiKey::Heartbeat, 0, 4),
    (ApiKey::LeaveGroup, 0, 5),
    (ApiKey::SyncGroup, 0, 5),
    (ApiKey::DescribeGroups, 0, 6),
    (ApiKey::ListGroups, 0, 5),
    (ApiKey::DeleteGroups, 0, 3),
    (ApiKey::ApiVersions, 0, 4),
    (ApiKey::CreateTopics, 2, 7),
    (ApiKey::DeleteRecords, 0, 2),
    (ApiKey::DescribeConfigs, 1, 4),
    (ApiKey::DescribeCluster, 0, 2),
    (ApiKey::DescribeTopicPartitions, 0, 0),
    (ApiKey::InitProducerId, 0, 5),
    (ApiKey::ConsumerGroupHeartbeat, 0, 1),
    (ApiKey::ConsumerGroupDescribe, 0, 1),
    (ApiKey::StreamsGroupHeartbeat, 0, 1),
    (ApiKey::StreamsGroupDescribe, 0, 1),
    (ApiKey::StreamsGroupTopologyDescriptionUpdate, 0, 0),
];

/// The name of a raw API key: Kafka 4.4's name, or `API key N` for a key Kafka does not define.
pub fn api_label(key: i16) -> String {
    ApiKey::from_i16(key).map_or_else(|| format!("API key {key}"), |k| k.name().to_string())
}

/// Why a request of API `key` is refused, for a key or version [`is_supported`] rejects:
/// `version not supported (Fetch 4-16)`, `API not served by kwire-server`, or `unknown API key`.
pub fn unsupported_reason(key: i16) -> String {
    match supported(key) {
        Some((api, lo, hi)) => {
            format!("version not supported ({} {lo}-{hi})", api.name())
        }
        None if ApiKey::from_i16(key).is_some() => "API not served by kwire-server".to_string(),
        None => "unknown API key".to_string(),
    }
}

/// Highest ApiVersions version served.
pub const API_VERSIONS_MAX: i16 = 4;

/// The served version range of a raw API key, if served.
pub fn supported(key: i16) -> Option<(ApiKey, i16, i16)> {
    SUPPORTED
        .iter()
        .copied()
        .find(|(k, _, _)| k.as_i16() == key)
}

/// Whether `key` at `version` is served.
pub fn is_supported(key: i16, version: i16) -> bool {
    supported(key).is_some_and(|(_, lo, hi)| (lo..=hi).contains(&version))
}

fn api_keys() -> Vec<ApiVersion> {
    SUPPORTED
        .iter()
        .map(|(k, lo, hi)| ApiVersion {
            api_key: k.as_i16(),
            min_version: *lo,
            max_version: *hi,
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

/// The ApiVersions answer at `version` (0-4): the table above, or INVALID_REQUEST (42) with no
/// keys when a v3+ request's client software name or version breaks KIP-511's pattern.
pub fn api_versions(version: i16, name: &str, software_version: &str) -> ApiVersionsResponse {
    if version >= 3 && !(valid_software_field(name) && valid_software_field(software_version)) {
        return ApiVersionsResponse {
            error_code: ErrorCode::InvalidRequest.code(),
            ..Default::default()
        };
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
        for (k, lo, hi) in SUPPORTED {
            let v = k.valid_versions();
            assert!(v.contains(*lo) && v.contains(*hi), "{k:?}");
        }
        assert!(supported(71).is_none() && supported(72).is_none());
        assert!(is_supported(0, 3) && !is_supported(0, 2));
        assert!(valid_software_field("confluent-kafka-python"));
        assert!(valid_software_field("2.16.1-rdkafka-2.16.0"));
        assert!(!valid_software_field("-x"));
        assert!(!valid_software_field(""));
        for (k, _, _) in SUPPORTED {
            assert_eq!(api_label(k.as_i16()), k.name());
        }
        assert_eq!(api_label(71), "GetTelemetrySubscriptions");
        assert_eq!(api_label(-1), "API key -1");
        assert_eq!(api_label(95), "API key 95");
        assert_eq!(unsupported_reason(1), "version not supported (Fetch 4-16)");
        assert_eq!(unsupported_reason(71), "API not served by kwire-server");
        assert_eq!(unsupported_reason(1000), "unknown API key");
        assert_eq!(
            api_versions(3, "", "1").error_code,
            ErrorCode::InvalidRequest.code()
        );
    }
}

//! Step 1 of a ConsumerGroupHeartbeat: the request's own fields (docs/coordinator.md §1.1;
//! Kafka's `GroupCoordinatorService.consumerGroupHeartbeat` request validation and
//! `throwIfConsumerGroupHeartbeatRequestIsInvalid`), before any state is read.

use crate::coordinator::consumer::ConsumerGroupConfig;
use crate::coordinator::context::{blank, fail, HbError, RequestContext};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;

/// Checks, in Kafka's order: a member id (unless a v0 join), a group id, non-blank instance and
/// rack ids; a join's rebalance timeout, empty owned partitions and subscription; an instance
/// id for -2; no epoch below -2; a configured server assignor.
///
/// # Errors
/// INVALID_REQUEST or UNSUPPORTED_ASSIGNOR with Kafka's message.
pub(super) fn validate(
    config: &ConsumerGroupConfig,
    ctx: &RequestContext,
    req: &ConsumerGroupHeartbeatRequest,
) -> Result<(), HbError> {
    let invalid = |m: &str| fail(ErrorCode::InvalidRequest.code(), m);
    let e = req.member_epoch;
    if (ctx.api_version >= 1 || e > 0 || e == -1) && blank(&req.member_id) {
        return invalid("MemberId can't be empty.");
    }
    if blank(&req.group_id) {
        return invalid("GroupId can't be empty.");
    }
    if req.instance_id.as_deref().is_some_and(blank) {
        return invalid("InstanceId can't be empty.");
    }
    if req.rack_id.as_deref().is_some_and(blank) {
        return invalid("RackId can't be empty.");
    }
    match e {
        0 => validate_join(req)?,
        -2 if req.instance_id.is_none() => return invalid("InstanceId can't be null."),
        e if e < -2 => return invalid("MemberEpoch is invalid."),
        _ => {}
    }
    validate_assignor(config, req)
}

/// A join (epoch 0) must carry its rebalance timeout, empty owned partitions and a
/// subscription (names or regex).
fn validate_join(req: &ConsumerGroupHeartbeatRequest) -> Result<(), HbError> {
    let invalid = |m: &str| fail(ErrorCode::InvalidRequest.code(), m);
    if req.rebalance_timeout_ms == -1 {
        return invalid("RebalanceTimeoutMs must be provided in first request.");
    }
    if req.topic_partitions.as_ref().is_none_or(|t| !t.is_empty()) {
        return invalid("TopicPartitions must be empty when (re-)joining.");
    }
    if req.subscribed_topic_names.is_none() && req.subscribed_topic_regex.is_none() {
        return invalid(
            "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
        );
    }
    Ok(())
}

/// A `ServerAssignor` must name a configured assignor (UNSUPPORTED_ASSIGNOR).
fn validate_assignor(
    config: &ConsumerGroupConfig,
    req: &ConsumerGroupHeartbeatRequest,
) -> Result<(), HbError> {
    let Some(a) = &req.server_assignor else {
        return Ok(());
    };
    if config.assignors.iter().any(|x| x.name() == &**a) {
        return Ok(());
    }
    let names: Vec<&str> = config.assignors.iter().map(|x| x.name()).collect();
    fail(
        ErrorCode::UnsupportedAssignor.code(),
        format!(
            "ServerAssignor {} is not supported. Supported assignors: {}.",
            &**a,
            names.join(", ")
        ),
    )
}

//! Committed offsets: OffsetCommit (checked with the coordinator) and OffsetFetch.

use std::collections::BTreeMap;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::offset_commit_request::OffsetCommitRequest;
use kwire_protocol::generated::offset_commit_response::{
    OffsetCommitResponse, OffsetCommitResponsePartition, OffsetCommitResponseTopic,
};
use kwire_protocol::generated::offset_fetch_request::{
    OffsetFetchRequest, OffsetFetchRequestGroup,
};
use kwire_protocol::generated::offset_fetch_response::{
    OffsetFetchResponse, OffsetFetchResponseGroup, OffsetFetchResponsePartition,
    OffsetFetchResponsePartitions, OffsetFetchResponseTopic, OffsetFetchResponseTopics,
};
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::groups::Cause;
use crate::events::Refusal;
use crate::services::offsets::{CommittedOffset, Offsets};
use crate::services::state::State;

/// Kafka's `offset.metadata.max.bytes` default: longer metadata is OFFSET_METADATA_TOO_LARGE.
pub const MAX_OFFSET_METADATA_BYTES: usize = 4096;

/// OffsetCommit v0-9: stores each partition's offset. Per partition: INVALID_GROUP_ID for a
/// blank group, UNKNOWN_TOPIC_OR_PARTITION for a topic or partition that does not exist, and
/// from v1 on the member check of [`GroupCoordinator::validate_offset_commit`] (no member id
/// with a negative epoch is a commit from outside the group, accepted while the group has no
/// members): UNKNOWN_MEMBER_ID (25), STALE_MEMBER_EPOCH (113), GROUP_ID_NOT_FOUND (69; 22 below
/// v9); for a classic group [`GroupCoordinator::validate_classic_offset_commit`] (generation,
/// static member: ILLEGAL_GENERATION, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS); a commit to a
/// group id no group holds creates Kafka's empty classic group; OFFSET_METADATA_TOO_LARGE (12) for metadata longer than 4096 bytes. The accepted offsets
/// are written with one append before they are stored; if that fails they are not stored and
/// answer NOT_COORDINATOR (16), as Kafka's group coordinator translates KAFKA_STORAGE_ERROR.
///
/// [`GroupCoordinator::validate_offset_commit`]: kwire_protocol::coordinator::GroupCoordinator::validate_offset_commit
/// [`GroupCoordinator::validate_classic_offset_commit`]: kwire_protocol::coordinator::GroupCoordinator::validate_classic_offset_commit
pub fn offset_commit(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &OffsetCommitRequest,
) -> OffsetCommitResponse {
    let group = &*r.group_id;
    let group_error = commit_group_error(st, ctx, r);
    let mut topics = Vec::new();
    let mut commits: Vec<(String, i32, CommittedOffset)> = Vec::new();
    // The answers of the accepted partitions: (topic index, partition index).
    let mut accepted: Vec<(usize, usize)> = Vec::new();
    for (ti, t) in r.topics.iter().enumerate() {
        let mut partitions = Vec::new();
        for (pi, p) in t.partitions.iter().enumerate() {
            let code = if group_error != ErrorCode::None.code() {
                group_error
            } else if st
                .topics
                .get(&t.name)
                .and_then(|topic| topic.partition(p.partition_index))
                .is_none()
            {
                ErrorCode::UnknownTopicOrPartition.code()
            } else if p
                .committed_metadata
                .as_ref()
                .is_some_and(|m| m.len() > MAX_OFFSET_METADATA_BYTES)
            {
                ErrorCode::OffsetMetadataTooLarge.code()
            } else {
                commits.push((
                    t.name.to_string(),
                    p.partition_index,
                    CommittedOffset {
                        offset: p.committed_offset,
                        leader_epoch: p.committed_leader_epoch,
                        metadata: p.committed_metadata.as_ref().map(|m| m.to_string()),
                        commit_timestamp_ms: ctx.now,
                    },
                ));
                accepted.push((ti, pi));
                ErrorCode::None.code()
            };
            partitions.push(OffsetCommitResponsePartition {
                partition_index: p.partition_index,
                error_code: code,
                ..Default::default()
            });
        }
        topics.push(OffsetCommitResponseTopic {
            name: t.name.clone(),
            partitions,
            ..Default::default()
        });
    }
    log_refusals(st, ctx, r, group_error, &topics);
    let any = !commits.is_empty();
    if let Err(e) = st.commit_offsets(group, commits) {
        tracing::warn!(group, error = %e, "offset commit not stored: the durable log cannot be written");
        for (ti, pi) in accepted {
            topics[ti].partitions[pi].error_code = ErrorCode::NotCoordinator.code();
        }
    } else if any {
        // Offsets committed to a group id no group holds make Kafka's empty classic group
        // (written after the offsets, with the request's other entries).
        let records = st.groups.coordinator.ensure_simple_group(group, ctx.now);
        st.queue_records(
            records,
            Cause::Request {
                api: "OffsetCommit",
                member_id: &r.member_id,
            },
        );
    }
    OffsetCommitResponse {
        throttle_time_ms: 0,
        topics,
        ..Default::default()
    }
}

/// The group-level error of an OffsetCommit: INVALID_GROUP_ID for a blank group, else (v1+)
/// the coordinator's member check.
fn commit_group_error(st: &State, ctx: &Ctx<'_>, r: &OffsetCommitRequest) -> i16 {
    let group = &*r.group_id;
    if group.trim().is_empty() {
        ErrorCode::InvalidGroupId.code()
    } else if ctx.version >= 1 {
        // A classic group checks the generation and the static member (v7+).
        st.groups
            .coordinator
            .validate_classic_offset_commit(
                group,
                &r.member_id,
                r.group_instance_id.as_deref(),
                r.generation_id_or_member_epoch,
                false,
            )
            .unwrap_or_else(|| {
                st.groups.coordinator.validate_offset_commit(
                    group,
                    &r.member_id,
                    r.generation_id_or_member_epoch,
                    ctx.version,
                )
            })
    } else {
        ErrorCode::None.code()
    }
}

/// Logs an OffsetCommit's refusal: its group error, or the partitions refused.
fn log_refusals(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &OffsetCommitRequest,
    group_error: i16,
    topics: &[OffsetCommitResponseTopic],
) {
    let group = &*r.group_id;
    if group_error != ErrorCode::None.code() {
        st.fx.refused(
            ctx,
            ApiKey::OffsetCommit,
            format_args!(
                "group {group}, member {:?} at epoch {}: {}",
                &*r.member_id,
                r.generation_id_or_member_epoch,
                Refusal {
                    code: group_error,
                    message: None
                }
            ),
        );
    } else {
        let refused: Vec<String> = topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .filter(|p| p.error_code != ErrorCode::None.code())
                    .map(move |p| {
                        let code = Refusal {
                            code: p.error_code,
                            message: None,
                        };
                        format!("{}-{} {code}", &*t.name, p.partition_index)
                    })
            })
            .collect();
        if !refused.is_empty() {
            st.fx.refused(
                ctx,
                ApiKey::OffsetCommit,
                format_args!("group {group}: {}", refused.join(", ")),
            );
        }
    }
}

/// One group of a batched OffsetFetch (v8+): its error (INVALID_GROUP_ID for a blank id, the
/// coordinator's member check at v9), or its committed offsets.
fn fetch_group(st: &State, v: i16, g: &OffsetFetchRequestGroup) -> OffsetFetchResponseGroup {
    let gid = &*g.group_id;
    let code = if gid.trim().is_empty() {
        ErrorCode::InvalidGroupId.code()
    } else if v >= 9 {
        st.groups.coordinator.validate_offset_fetch(
            gid,
            g.member_id.as_deref().unwrap_or(""),
            g.member_epoch,
        )
    } else {
        ErrorCode::None.code()
    };
    if code != ErrorCode::None.code() {
        return OffsetFetchResponseGroup {
            group_id: g.group_id.clone(),
            error_code: code,
            ..Default::default()
        };
    }
    let req = g.topics.as_ref().map(|ts| {
        ts.iter()
            .map(|t| (t.name.to_string(), t.partition_indexes.to_vec()))
            .collect()
    });
    let topics = wanted(&st.offsets, gid, req)
        .into_iter()
        .map(|(t, ps)| OffsetFetchResponseTopics {
            partitions: ps
                .into_iter()
                .map(|p| {
                    let (offset, metadata) = lookup(&st.offsets, gid, &t, p);
                    OffsetFetchResponsePartitions {
                        partition_index: p,
                        committed_offset: offset,
                        committed_leader_epoch: -1,
                        metadata: metadata.map(Into::into),
                        error_code: ErrorCode::None.code(),
                        ..Default::default()
                    }
                })
                .collect(),
            name: t.into(),
            ..Default::default()
        })
        .collect();
    OffsetFetchResponseGroup {
        group_id: g.group_id.clone(),
        topics,
        error_code: ErrorCode::None.code(),
        ..Default::default()
    }
}

/// One partition's answer: (offset, metadata); -1 and null when nothing is committed. The
/// committed leader epoch is always answered as -1: given a leader epoch, a KIP-320 client
/// (librdkafka, Kafka's `KafkaConsumer`) validates its position with OffsetForLeaderEpoch, which
/// kwire-server does not serve.
fn lookup(offsets: &Offsets, group: &str, topic: &str, partition: i32) -> (i64, Option<String>) {
    offsets
        .get(group, topic, partition)
        .map_or((-1, None), |c| (c.offset, c.metadata.clone()))
}

/// The requested (topic, partitions) of one group, or every committed offset of the group when
/// `topics` is `None`.
fn wanted(
    offsets: &Offsets,
    group: &str,
    topics: Option<Vec<(String, Vec<i32>)>>,
) -> Vec<(String, Vec<i32>)> {
    match topics {
        Some(t) => t,
        None => {
            let mut by_topic: BTreeMap<String, Vec<i32>> = BTreeMap::new();
            if let Some(g) = offsets.group(group) {
                for (t, p) in g.keys() {
                    by_topic.entry(t.clone()).or_default().push(*p);
                }
            }
            by_topic.into_iter().collect()
        }
    }
}

/// OffsetFetch v0-9 (v8+ batched groups): the committed offsets, -1 with a null metadata where
/// there is none. At v9 the member id and epoch, when given, are checked with
/// [`GroupCoordinator::validate_offset_fetch`] (a null member id with epoch -1 is not checked);
/// a failure is the group's error code. A blank group id is INVALID_GROUP_ID.
///
/// [`GroupCoordinator::validate_offset_fetch`]: kwire_protocol::coordinator::GroupCoordinator::validate_offset_fetch
pub fn offset_fetch(st: &mut State, ctx: &Ctx<'_>, r: &OffsetFetchRequest) -> OffsetFetchResponse {
    let v = ctx.version;
    if v >= 8 {
        let groups = r.groups.iter().map(|g| fetch_group(st, v, g)).collect();
        return OffsetFetchResponse {
            throttle_time_ms: 0,
            groups,
            ..Default::default()
        };
    }
    let gid = &*r.group_id;
    let blank = gid.trim().is_empty();
    let req = r.topics.as_ref().map(|ts| {
        ts.iter()
            .map(|t| (t.name.to_string(), t.partition_indexes.to_vec()))
            .collect()
    });
    // v0 and v1 have no top-level error code: a blank group fails each partition instead.
    let (top_code, part_code) = match (blank, v >= 2) {
        (false, _) => (ErrorCode::None.code(), ErrorCode::None.code()),
        (true, true) => (ErrorCode::InvalidGroupId.code(), ErrorCode::None.code()),
        (true, false) => (ErrorCode::None.code(), ErrorCode::InvalidGroupId.code()),
    };
    let topics = if top_code != ErrorCode::None.code() {
        Vec::new()
    } else {
        wanted(&st.offsets, gid, req)
            .into_iter()
            .map(|(t, ps)| OffsetFetchResponseTopic {
                partitions: ps
                    .into_iter()
                    .map(|p| {
                        let (offset, metadata) = lookup(&st.offsets, gid, &t, p);
                        OffsetFetchResponsePartition {
                            partition_index: p,
                            committed_offset: offset,
                            committed_leader_epoch: -1,
                            metadata: metadata.map(Into::into),
                            error_code: part_code,
                            ..Default::default()
                        }
                    })
                    .collect(),
                name: t.into(),
                ..Default::default()
            })
            .collect()
    };
    OffsetFetchResponse {
        throttle_time_ms: 0,
        topics,
        error_code: top_code,
        ..Default::default()
    }
}

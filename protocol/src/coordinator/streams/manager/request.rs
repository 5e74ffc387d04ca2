//! Reading a StreamsGroupHeartbeat request (KIP-1071): its topology, its owned tasks and its
//! task offsets in kwire's types.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::records::topology_from;
use super::super::tasks::{TaskOffsets, TaskSet, TasksTuple};
use super::super::topology::{CopartitionGroup, StreamsTopology, Subtopology, TopicInfo};
use crate::coordinator::context::{fail, HbError};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::{
    self as req_t, StreamsGroupHeartbeatRequest,
};

/// The task offsets a heartbeat reported (D2): `TaskOffsets` and `TaskEndOffsets`, `None` when
/// the list is null (unchanged).
#[derive(Debug, Default)]
pub(super) struct Reported {
    pub offsets: Option<TaskOffsets>,
    pub end_offsets: Option<TaskOffsets>,
}

impl Reported {
    /// Whether either list was sent.
    pub fn any(&self) -> bool {
        self.offsets.is_some() || self.end_offsets.is_some()
    }
}

/// The topology of a joining request.
pub(super) fn topology_from_request(t: &req_t::Topology) -> StreamsTopology {
    topology_from!(t)
}

fn tasks_of(list: &[req_t::TaskIds]) -> TaskSet {
    let mut s = TaskSet::new();
    for t in list {
        if !t.partitions.is_empty() {
            s.entry(t.subtopology_id.to_string())
                .or_default()
                .extend(t.partitions.iter());
        }
    }
    s
}

/// The owned tasks of a request: known only when all three lists are non-null (§2.5).
pub(super) fn owned_of(req: &StreamsGroupHeartbeatRequest) -> Option<TasksTuple> {
    match (&req.active_tasks, &req.standby_tasks, &req.warmup_tasks) {
        (Some(a), Some(s), Some(w)) => Some(TasksTuple {
            active: tasks_of(a),
            standby: tasks_of(s),
            warmup: tasks_of(w),
        }),
        _ => None,
    }
}

/// One task-offset list of a request (D2), `None` when null.
///
/// # Errors
/// INVALID_REQUEST when a task is listed twice.
fn offsets_of(list: &Option<Vec<req_t::TaskOffset>>) -> Result<Option<TaskOffsets>, HbError> {
    let Some(list) = list else { return Ok(None) };
    let mut out = TaskOffsets::new();
    for o in list {
        if out
            .insert((o.subtopology_id.to_string(), o.partition), o.offset)
            .is_some()
        {
            return fail(
                ErrorCode::InvalidRequest.code(),
                format!(
                    "Duplicate task offset for subtopology {} partition {}.",
                    &*o.subtopology_id, o.partition
                ),
            );
        }
    }
    Ok(Some(out))
}

/// The `TaskOffsets` and `TaskEndOffsets` of a request (D2).
///
/// # Errors
/// INVALID_REQUEST when a list names a task twice.
pub(super) fn reported(req: &StreamsGroupHeartbeatRequest) -> Result<Reported, HbError> {
    Ok(Reported {
        offsets: offsets_of(&req.task_offsets)?,
        end_offsets: offsets_of(&req.task_end_offsets)?,
    })
}

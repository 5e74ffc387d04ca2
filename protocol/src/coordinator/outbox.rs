//! Answers that wait: the classic group protocol's delayed responses.
//!
//! A classic JoinGroup is answered only when the group's join phase ends (every member rejoined,
//! or the rebalance timeout expired), and a follower's SyncGroup only when the leader's SyncGroup
//! brings the assignment (Kafka's `ClassicGroup` keeps each member's `awaitingJoinFuture` and
//! `awaitingSyncFuture`). A sans-IO coordinator cannot hold a future, so the caller gives each
//! classic request a [`RequestId`] of its choosing, and every answer, immediate or delayed, is put
//! in the [`Outbox`] under the id of the request it answers. After every call into the
//! coordinator (a request of any group type, [`GroupCoordinator::fire_timers`], a topic change),
//! the caller drains [`GroupCoordinator::poll_response`] and sends each answer to whoever sent
//! that request. A request may be answered by a later call (a JoinGroup by another member's
//! JoinGroup or by a timer) and a call may answer many requests at once.
//!
//! This module imports nothing from the coordinator; the context owns the outbox.
//!
//! [`GroupCoordinator::fire_timers`]: super::GroupCoordinator::fire_timers
//! [`GroupCoordinator::poll_response`]: super::GroupCoordinator::poll_response

use std::collections::VecDeque;

use crate::generated::heartbeat_response::HeartbeatResponse;
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_response::LeaveGroupResponse;
use crate::generated::sync_group_response::SyncGroupResponse;

/// The caller's name for one classic request (unique among the requests not yet answered; a
/// server may use a counter, or the connection and correlation id packed into 64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(pub u64);

/// The answer to one classic-protocol request.
#[derive(Debug, Clone, PartialEq)]
pub enum GroupResponse {
    /// A JoinGroup answer.
    JoinGroup(JoinGroupResponse),
    /// A SyncGroup answer.
    SyncGroup(SyncGroupResponse),
    /// A Heartbeat answer.
    Heartbeat(HeartbeatResponse),
    /// A LeaveGroup answer.
    LeaveGroup(LeaveGroupResponse),
}

impl GroupResponse {
    /// The JoinGroup answer, if this is one.
    pub fn into_join(self) -> Option<JoinGroupResponse> {
        match self {
            GroupResponse::JoinGroup(r) => Some(r),
            _ => None,
        }
    }

    /// The SyncGroup answer, if this is one.
    pub fn into_sync(self) -> Option<SyncGroupResponse> {
        match self {
            GroupResponse::SyncGroup(r) => Some(r),
            _ => None,
        }
    }

    /// The Heartbeat answer, if this is one.
    pub fn into_heartbeat(self) -> Option<HeartbeatResponse> {
        match self {
            GroupResponse::Heartbeat(r) => Some(r),
            _ => None,
        }
    }

    /// The LeaveGroup answer, if this is one.
    pub fn into_leave(self) -> Option<LeaveGroupResponse> {
        match self {
            GroupResponse::LeaveGroup(r) => Some(r),
            _ => None,
        }
    }
}

/// Answers ready to send, in the order they became ready.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outbox {
    ready: VecDeque<(RequestId, GroupResponse)>,
}

impl Outbox {
    /// Queues the answer to request `id`.
    pub fn push(&mut self, id: RequestId, response: GroupResponse) {
        self.ready.push_back((id, response));
    }

    /// The oldest answer not yet taken.
    pub fn pop(&mut self) -> Option<(RequestId, GroupResponse)> {
        self.ready.pop_front()
    }

    /// Answers waiting to be taken.
    pub fn len(&self) -> usize {
        self.ready.len()
    }

    /// The error code of the latest answer queued for request `id`, if any: its top-level
    /// error, or for a LeaveGroup whose members all failed, the first member's.
    pub fn error_of(&self, id: RequestId) -> Option<i16> {
        let (_, r) = self.ready.iter().rev().find(|(i, _)| *i == id)?;
        Some(match r {
            GroupResponse::JoinGroup(r) => r.error_code,
            GroupResponse::SyncGroup(r) => r.error_code,
            GroupResponse::Heartbeat(r) => r.error_code,
            GroupResponse::LeaveGroup(r) if r.error_code != 0 || r.members.is_empty() => {
                r.error_code
            }
            GroupResponse::LeaveGroup(r) => {
                if r.members.iter().all(|m| m.error_code != 0) {
                    r.members[0].error_code
                } else {
                    0
                }
            }
        })
    }
}

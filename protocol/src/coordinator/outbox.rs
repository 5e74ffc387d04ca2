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

/// Answers ready to send, in the order they became ready.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outbox {
    ready: VecDeque<(RequestId, GroupResponse)>,
}

impl Outbox {
    /// Queues the answer to request `id`.
    #[allow(dead_code)] // the classic group type (Stage 11) is its first user
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
}

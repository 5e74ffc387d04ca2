//! The classic-group manager: JoinGroup, SyncGroup, Heartbeat and LeaveGroup for classic
//! groups (Kafka's `GroupMetadataManager` classic paths and `ClassicGroup`), their timers, and
//! the classic part of DescribeGroups, DeleteGroups and the offset checks, over the classic
//! groups and the shared [`Context`] the facade lends it for one call.
//!
//! State: what records say ([`ClassicGroup`], rebuilt by `replay`) plus the volatile state
//! Kafka keeps only in memory ([`Volatile`]: requests waiting for an answer, members that were
//! given an id and must rejoin (KIP-394), members expected to sync, new members). Every change
//! of the persisted state is a record, applied as it is emitted. Answers go to the context's
//! outbox under the caller's [`RequestId`], at once or when the join or sync phase completes.
//!
//! The coordinator's one mechanism ([`commit`](crate::coordinator::commit)) in the classic
//! protocol: every request first makes its checks against the state (the member, the
//! generation, the protocol) and answers an error without writing; only then does it write.
//! Kafka's error answers that come with effects (MEMBER_ID_REQUIRED keeps a pending member,
//! GROUP_MAX_SIZE_REACHED removes the member, a new group is created before its first join's
//! checks) are outcomes, written as Kafka writes them.
//!
//! Files: this one (the state and the helpers every step uses), [`answers`] (response shapes),
//! [`join`] and [`static_member`] (JoinGroup), [`rebalance`] (the join phase and the next
//! generation), [`sync`] (SyncGroup), [`heartbeat`] (Heartbeat and LeaveGroup), [`timers`],
//! [`lifecycle`] (creating and deleting groups), [`describe`] (DescribeGroups) and [`offsets`]
//! (the OffsetCommit check).
//!
//! Section numbers (§) cited in this folder are those of docs/coordinator.md §Classic groups.

mod answers;
pub(crate) mod describe;
mod heartbeat;
mod join;
mod lifecycle;
pub(crate) mod offsets;
mod rebalance;
mod static_member;
mod sync;
mod timers;

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use super::group::{
    ClassicGroup, ClassicGroupMember, ClassicGroupState, ClassicGroups, ClassicProtocol,
};
use super::records::ClassicRecord;
use super::ClassicGroupConfig;
use crate::coordinator::commit;
use crate::coordinator::context::Context;
use crate::coordinator::outbox::{GroupResponse, RequestId};
use crate::coordinator::timers::TimerKind;
use crate::error::ErrorCode;
use crate::generated::join_group_request::JoinGroupRequest;
use answers::{join_error, sync_error};

/// A request waiting for its answer: the caller's id and the request's API version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Waiting {
    pub id: RequestId,
    pub version: i16,
}

/// What Kafka keeps only in memory for a classic group (never in records; lost on restart).
#[derive(Debug, Clone, Default)]
pub(crate) struct Volatile {
    /// Members whose JoinGroup waits for the join phase to end (Kafka's `awaitingJoinFuture`).
    pub awaiting_join: BTreeMap<String, Waiting>,
    /// Members whose SyncGroup waits for the leader's assignment (`awaitingSyncFuture`).
    pub awaiting_sync: BTreeMap<String, Waiting>,
    /// Member ids given out with MEMBER_ID_REQUIRED and not yet used (KIP-394).
    pub pending_join: BTreeSet<String>,
    /// Members expected to send SyncGroup for the current generation.
    pub pending_sync: BTreeSet<String>,
    /// Members added since the last completed join phase (`ClassicGroupMember.isNew`).
    pub new_members: BTreeSet<String>,
    /// A member was added during the initial delay (the delay may be extended).
    pub new_member_added: bool,
    /// The state before the current one (`ClassicGroup.previousState`).
    pub previous_state: Option<ClassicGroupState>,
}

/// What the coordinator keeps for classic groups besides their state: the configuration and
/// the volatile state of each group.
#[derive(Debug, Default)]
pub(crate) struct ClassicSide {
    pub config: ClassicGroupConfig,
    pub volatile: BTreeMap<String, Volatile>,
}

/// The classic groups' manager for one call.
pub(crate) struct ClassicManager<'a> {
    pub ctx: &'a mut Context,
    pub side: &'a mut ClassicSide,
    pub groups: &'a mut ClassicGroups,
    pub records: Vec<ClassicRecord>,
    pub now_ms: i64,
}

/// The request's protocols as stored.
pub(crate) fn protocols_of(req: &JoinGroupRequest) -> Vec<ClassicProtocol> {
    req.protocols
        .iter()
        .map(|p| ClassicProtocol {
            name: p.name.to_string(),
            metadata: Bytes::clone(&p.metadata),
        })
        .collect()
}

/// Kafka's `ClassicGroup.validateMember`: with a group instance id, the member holding it must
/// be `member_id` (FENCED_INSTANCE_ID otherwise, UNKNOWN_MEMBER_ID when nobody holds it);
/// without, the member must exist.
pub(crate) fn validate_member(
    g: &ClassicGroup,
    member_id: &str,
    instance_id: Option<&str>,
) -> Result<(), ErrorCode> {
    match instance_id {
        Some(i) => match g.static_member_id(i) {
            None => Err(ErrorCode::UnknownMemberId),
            Some(m) if m != member_id => Err(ErrorCode::FencedInstanceId),
            Some(_) => Ok(()),
        },
        None if !g.members.contains_key(member_id) => Err(ErrorCode::UnknownMemberId),
        None => Ok(()),
    }
}

/// Whether `a` and `b` are both given and differ (Kafka's `isProtocolInconsistent`).
fn inconsistent(a: Option<&str>, b: Option<&str>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a != b)
}

impl ClassicManager<'_> {
    pub(super) fn vol(&mut self, gid: &str) -> &mut Volatile {
        self.side.volatile.entry(gid.to_string()).or_default()
    }

    pub(super) fn group(&self, gid: &str) -> &ClassicGroup {
        &self.groups[gid]
    }

    pub(super) fn emit(&mut self, r: ClassicRecord) {
        commit::write(self.groups, &mut self.records, r);
    }

    pub(super) fn answer(&mut self, w: Waiting, r: GroupResponse) {
        self.ctx.outbox.push(w.id, r);
    }

    /// Writes the group record after `f` changed the group's scalar fields.
    pub(super) fn update_group(&mut self, gid: &str, f: impl FnOnce(&mut ClassicGroup)) {
        let g = self.group(gid);
        let mut h = ClassicGroup {
            members: BTreeMap::new(),
            static_members: BTreeMap::new(),
            supported_protocols: BTreeMap::new(),
            group_id: g.group_id.clone(),
            protocol_type: g.protocol_type.clone(),
            protocol_name: g.protocol_name.clone(),
            leader_id: g.leader_id.clone(),
            state: g.state,
            generation_id: g.generation_id,
            current_state_timestamp: g.current_state_timestamp,
        };
        f(&mut h);
        if h.state != g.state {
            let prev = g.state;
            h.current_state_timestamp = self.now_ms;
            self.vol(gid).previous_state = Some(prev);
        }
        let g = self.group(gid);
        if h.state != g.state
            || h.protocol_type != g.protocol_type
            || h.generation_id != g.generation_id
            || h.protocol_name != g.protocol_name
            || h.leader_id != g.leader_id
            || h.current_state_timestamp != g.current_state_timestamp
        {
            self.emit(ClassicRecord::group(&h));
        }
    }

    pub(super) fn transition(&mut self, gid: &str, state: ClassicGroupState) {
        self.update_group(gid, |h| h.state = state);
    }

    pub(super) fn put_member(&mut self, gid: &str, m: &ClassicGroupMember) {
        if self.group(gid).members.get(&m.member_id) != Some(m) {
            self.emit(ClassicRecord::member(gid, m));
        }
    }

    /// Kafka's `ClassicGroup.remove`: removes the member (or pending member), and elects the
    /// first remaining member as leader when it was the leader. A SyncGroup it had waiting is
    /// answered UNKNOWN_MEMBER_ID (Kafka leaves it unanswered, §Classic groups).
    pub(super) fn remove(&mut self, gid: &str, mid: &str) {
        let v = self.vol(gid);
        v.pending_join.remove(mid);
        v.pending_sync.remove(mid);
        v.new_members.remove(mid);
        let join = v.awaiting_join.remove(mid);
        let sync = v.awaiting_sync.remove(mid);
        if let Some(w) = join {
            // Callers complete the join first; this only covers a path that did not.
            let r = join_error(w.version, ErrorCode::UnknownMemberId, "");
            self.answer(w, GroupResponse::JoinGroup(r));
        }
        if let Some(w) = sync {
            self.answer(
                w,
                GroupResponse::SyncGroup(sync_error(ErrorCode::UnknownMemberId)),
            );
        }
        if self.group(gid).members.contains_key(mid) {
            self.emit(ClassicRecord::member_tombstone(gid, mid));
        }
        if self.group(gid).is_leader(mid) {
            let next = self.group(gid).members.keys().next().cloned();
            self.update_group(gid, |h| h.leader_id = next);
        }
    }

    pub(super) fn arm_session(&mut self, gid: &str, mid: &str, timeout_ms: i64) {
        let at = self.now_ms + timeout_ms.max(0);
        self.ctx.timers.arm(gid, mid, TimerKind::Session, at);
    }

    pub(super) fn reschedule_heartbeat(&mut self, gid: &str, mid: &str) {
        if let Some(m) = self.group(gid).members.get(mid) {
            let t = i64::from(m.session_timeout_ms);
            self.arm_session(gid, mid, t);
        }
    }

    pub(super) fn has_all_members_joined(&mut self, gid: &str) -> bool {
        let n = self.group(gid).members.len();
        let v = self.vol(gid);
        v.awaiting_join.len() == n && v.pending_join.is_empty()
    }

    pub(super) fn is_awaiting_join(&self, gid: &str, mid: &str) -> bool {
        self.side
            .volatile
            .get(gid)
            .is_some_and(|v| v.awaiting_join.contains_key(mid))
    }
}

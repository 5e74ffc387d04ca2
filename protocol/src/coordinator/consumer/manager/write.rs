//! Phase two of a ConsumerGroupHeartbeat at epoch ≥ 0 (docs/coordinator.md §1.4-1.7): writes
//! what the [`Plan`] decided, reconciles the member (Kafka's `CurrentAssignmentBuilder`), arms
//! its timers and answers. Cannot fail. The stored member is read in place, never copied: only
//! a member whose assignment changes is rebuilt.

use super::check::Plan;
use super::{member_topic_names, ConsumerManager};
use crate::coordinator::consumer::assignor::Assignment;
use std::collections::BTreeMap;

use crate::coordinator::consumer::group::{ConsumerGroup, ConsumerGroupMember, MemberState};
use crate::coordinator::consumer::reconcile::Reconcile;
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::TopicMetadata;
use crate::coordinator::timers::{Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::{
    self as hb, ConsumerGroupHeartbeatResponse,
};
use crate::wire::{KStr, Uuid};

impl ConsumerManager<'_> {
    /// Writes `plan` (see the module docs) and answers: member id, epoch, heartbeat interval
    /// and, for a join, a full request (timeout, subscription and owned partitions all sent) or
    /// a changed assignment, the assigned partitions. The member is looked up once; only a
    /// member whose assignment changes is rebuilt.
    pub(crate) fn write_plan(
        &mut self,
        plan: Plan<'_>,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<ConsumerRecord>,
    ) -> ConsumerGroupHeartbeatResponse {
        let (gid, mid) = (plan.group_id, &*plan.member_id);
        self.write_records(&plan, records);
        let Some((g, m)) = self
            .groups
            .get(gid)
            .and_then(|g| g.members.get(mid).map(|m| (g, m)))
        else {
            // Unreachable: the records just written hold the member.
            return ConsumerGroupHeartbeatResponse {
                error_code: ErrorCode::UnknownServerError.code(),
                ..Default::default()
            };
        };
        let full = req.rebalance_timeout_ms != -1
            && (req.subscribed_topic_names.is_some() || req.subscribed_topic_regex.is_some())
            && req.topic_partitions.is_some();
        let answer = |m: &ConsumerGroupMember, changed: bool| {
            let session = m.classic.as_ref().map(|c| c.session_timeout_ms);
            let assignment = (req.member_epoch == 0 || full || changed).then(|| assignment_of(m));
            (session, m.member_epoch, assignment)
        };
        let (session, member_epoch, assignment) =
            match next_assignment(&self.ctx.topics, g, m, &plan) {
                None => answer(m, false),
                Some(next) => {
                    let changed = m.assigned != next.assigned;
                    self.write_current(gid, mid, &next, records, now_ms);
                    answer(&next, changed)
                }
            };
        let session = session.unwrap_or_else(|| self.side.session_timeout(gid));
        self.ctx
            .timers
            .arm(gid, mid, TimerKind::Session, now_ms + i64::from(session));
        let member_id = match &plan.member_id {
            std::borrow::Cow::Borrowed(_) => req.member_id.clone(),
            std::borrow::Cow::Owned(id) => KStr::from(id.clone()),
        };
        ConsumerGroupHeartbeatResponse {
            error_code: ErrorCode::None.code(),
            error_message: None,
            member_id: Some(member_id),
            member_epoch,
            heartbeat_interval_ms: self.side.heartbeat_interval(gid),
            assignment,
            ..Default::default()
        }
    }

    /// The plan's records, in order: a static replacement (the old member's tombstones, then
    /// its copy under the new id), the member's metadata, the regex bookkeeping, the
    /// group-epoch bump, the changed targets and the target epoch.
    fn write_records(&mut self, plan: &Plan<'_>, records: &mut Vec<ConsumerRecord>) {
        let (gid, mid) = (plan.group_id, &*plan.member_id);
        if let Some(old) = &plan.replaced {
            self.write_replacement(gid, old, mid, records);
        }
        if let Some(u) = &plan.updated {
            let stored = self.groups.get(gid).and_then(|g| g.members.get(mid));
            if stored.is_none_or(|b| !b.same_metadata(u)) {
                self.emit(records, ConsumerRecord::member_metadata(gid, u));
            }
        }
        if let Some(n) = &plan.new_regex {
            self.emit(records, ConsumerRecord::regex(gid, &n.regex, &n.resolved));
            self.cache_regex(&n.regex, n.compiled.clone());
        }
        if let Some(d) = &plan.dropped_regex {
            self.emit(records, ConsumerRecord::regex_tombstone(gid, d));
        }
        if let Some((epoch, hash)) = plan.bump {
            self.emit(records, ConsumerRecord::group_epoch(gid, epoch, hash));
        }
        if let Some((epoch, targets)) = &plan.targets {
            for (id, t) in targets {
                let old = self.groups.get(gid).and_then(|g| g.targets.get(id));
                if old != Some(t) {
                    self.emit(records, ConsumerRecord::target(gid, id, t));
                }
            }
            self.emit(records, ConsumerRecord::target_epoch(gid, *epoch));
        }
    }

    /// Kafka's static member replacement (docs/coordinator.md §1.5): the old member's current,
    /// target and metadata tombstones, then a copy under the new id (epochs 0, nothing pending
    /// revocation) with the old member's target and assignment.
    fn write_replacement(
        &mut self,
        gid: &str,
        old_id: &str,
        mid: &str,
        records: &mut Vec<ConsumerRecord>,
    ) {
        let g = self.groups.get(gid);
        let Some(old) = g.and_then(|g| g.members.get(old_id)).cloned() else {
            return;
        };
        let target = g
            .and_then(|g| g.targets.get(old_id))
            .cloned()
            .unwrap_or_default();
        self.emit(records, ConsumerRecord::current_tombstone(gid, old_id));
        self.emit(records, ConsumerRecord::target_tombstone(gid, old_id));
        self.emit(
            records,
            ConsumerRecord::member_metadata_tombstone(gid, old_id),
        );
        let mut copy = old;
        copy.member_id = mid.to_string();
        copy.member_epoch = 0;
        copy.previous_member_epoch = 0;
        copy.pending_revocation = Assignment::new();
        self.emit(records, ConsumerRecord::member_metadata(gid, &copy));
        self.emit(records, ConsumerRecord::target(gid, mid, &target));
        self.emit(records, ConsumerRecord::current(gid, &copy));
    }

    /// Writes the member's new current assignment (docs/coordinator.md §1.6) and arms
    /// (revoking) or cancels its rebalance timer (classic members have join and sync timers
    /// instead, Kafka's `maybeReconcile`).
    fn write_current(
        &mut self,
        gid: &str,
        mid: &str,
        next: &ConsumerGroupMember,
        records: &mut Vec<ConsumerRecord>,
        now_ms: i64,
    ) {
        self.emit(records, ConsumerRecord::current(gid, next));
        if next.classic.is_some() {
            return;
        }
        if next.state == MemberState::UnrevokedPartitions {
            let deadline = now_ms + i64::from(next.rebalance_timeout_ms.max(0));
            let epoch = next.member_epoch;
            self.ctx
                .timers
                .arm(gid, mid, TimerKind::Rebalance { epoch }, deadline);
        } else {
            self.ctx.timers.cancel(gid, mid, Slot::Rebalance);
        }
    }
}

/// The member's next current assignment (Kafka's `CurrentAssignmentBuilder` towards its target
/// at the assignment epoch) when it differs from the stored one; `None`: the member stays as it
/// is, the stable case, which builds nothing.
fn next_assignment(
    topics: &BTreeMap<String, TopicMetadata>,
    g: &ConsumerGroup,
    member: &ConsumerGroupMember,
    plan: &Plan<'_>,
) -> Option<ConsumerGroupMember> {
    let empty = Assignment::new();
    let subscribed = |t: &Uuid| {
        member_topic_names(member, &g.regexes, None)
            .any(|n| topics.get(n).is_some_and(|tm| tm.topic_id == *t))
    };
    let rec = Reconcile {
        group: g,
        target_epoch: g.assignment_epoch,
        target: g.targets.get(&*plan.member_id).unwrap_or(&empty),
        subscribed: &subscribed,
        subscription_changed: plan.subscription_changed,
        owned: plan.owned.as_ref(),
    };
    rec.run(member)
        .ok()
        .flatten()
        .filter(|next| !member.same_assignment(next))
}

/// The response's assignment: the member's assigned partitions by topic id.
fn assignment_of(m: &ConsumerGroupMember) -> hb::Assignment {
    hb::Assignment {
        topic_partitions: m
            .assigned
            .iter()
            .map(|(t, ps)| hb::TopicPartitions {
                topic_id: *t,
                partitions: ps.iter().copied().collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

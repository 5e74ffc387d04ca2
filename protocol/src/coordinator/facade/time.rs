//! Time and topics, the coordinator's two inputs besides requests: the timers every group type
//! arms (fired here, each by the group type holding its group) and the topic metadata every
//! group type follows.

use super::GroupCoordinator;
use crate::coordinator::context::TopicMetadata;
use crate::coordinator::record::Record;
use crate::coordinator::timers::Slot;

impl GroupCoordinator {
    /// The session-timeout deadline (ms) of a member of any group type, if armed.
    pub fn session_deadline(&self, group_id: &str, member_id: &str) -> Option<i64> {
        self.ctx
            .timers
            .get(group_id, member_id, Slot::Session)
            .map(|t| t.0)
    }

    /// The rebalance-timeout deadline (ms) of a member of any group type, if armed.
    pub fn rebalance_deadline(&self, group_id: &str, member_id: &str) -> Option<i64> {
        self.ctx
            .timers
            .get(group_id, member_id, Slot::Rebalance)
            .map(|t| t.0)
    }

    /// The earliest armed timer deadline (ms), if any; O(log n). Call
    /// [`GroupCoordinator::fire_timers`] when the clock reaches it. A timer may be due at once:
    /// a new classic group's first join phase ends on a timer even with
    /// `group.initial.rebalance.delay.ms` 0, as in Kafka (its `classicGroupJoinKey` timer).
    pub fn next_deadline(&self) -> Option<i64> {
        self.ctx.timers.next_deadline()
    }

    /// Fires every timer whose deadline is at or before `now_ms`, in deadline order (then
    /// session before rebalance before delay, then group and member id), and returns the
    /// records they wrote. Each timer goes to the group type holding its group: an expired
    /// session fences the member (as a -1 leave, with a group-epoch bump); an expired rebalance
    /// timer fences it only if it is still at the epoch captured when the timer was armed; the
    /// end of a streams group's initial rebalance delay computes its targets; a classic group's
    /// join and sync timers end its phases. Timers of members or groups that are gone are
    /// no-ops. Only due timers are visited.
    pub fn fire_timers(&mut self, now_ms: i64) -> Vec<Record> {
        let mut records = Vec::new();
        while let Some(due) = self.ctx.timers.pop_due(now_ms) {
            if let Some(t) = self.types.holder_mut(&self.groups, &due.group_id) {
                records.extend(t.fire(&mut self.ctx, &mut self.groups, &due));
                // A fence may leave only classic members: the downgrade it decided.
                records.extend(self.run_downgrades(now_ms));
            }
        }
        records
    }

    /// Replaces the topic metadata (docs/coordinator.md, D4) and returns the records of its
    /// effects, consumer groups first: every regex of every consumer group is resolved again (a
    /// regex record when its topic set changed), and a consumer group whose subscribed-topic
    /// metadata hash or regex resolutions changed has its epoch bumped (a group-epoch record
    /// with the new hash); a streams group whose topology's metadata hash or validated topology
    /// epoch changed has its epoch bumped. The next heartbeat computes a new target.
    pub fn set_topics(
        &mut self,
        topics: impl IntoIterator<Item = TopicMetadata>,
        now_ms: i64,
    ) -> Vec<Record> {
        self.ctx.topics = topics.into_iter().map(|t| (t.name.clone(), t)).collect();
        self.ctx.metadata_version += 1;
        let mut records = Vec::new();
        for t in self.types.all_mut() {
            records.extend(t.metadata_changed(&mut self.ctx, &mut self.groups, now_ms));
        }
        records
    }
}

//! Creating and deleting whole classic groups: DeleteGroups, a group replaced by another
//! type, a group built by a KIP-848 downgrade.

use super::answers::{join_error, sync_error};
use super::{ClassicManager, Volatile};
use crate::coordinator::classic::group::{ClassicGroup, ClassicGroupState};
use crate::coordinator::classic::records::ClassicRecord;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::Slot;
use crate::error::ErrorCode;

use ClassicGroupState::PreparingRebalance;

impl ClassicManager<'_> {
    /// Deletes a classic group (DeleteGroups, or a group replaced by another type): the
    /// tombstone, its timers and volatile state. Waiting requests are answered
    /// COORDINATOR_NOT_AVAILABLE (Kafka's answer for a Dead group).
    pub fn delete(&mut self, gid: &str) {
        self.delete_answering(gid, ErrorCode::CoordinatorNotAvailable);
    }

    /// [`ClassicManager::delete`], answering waiting JoinGroup and SyncGroup requests with
    /// `code` (REBALANCE_IN_PROGRESS when the group is upgraded to a consumer group, Kafka's
    /// `convertToConsumerGroup`).
    pub fn delete_answering(&mut self, gid: &str, code: ErrorCode) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        let ids: Vec<String> = g.members.keys().cloned().collect();
        if let Some(v) = self.side.volatile.remove(gid) {
            for (m, w) in v.awaiting_join {
                let r = join_error(w.version, code, &m);
                self.answer(w, GroupResponse::JoinGroup(r));
            }
            for (_, w) in v.awaiting_sync {
                let r = sync_error(code);
                self.answer(w, GroupResponse::SyncGroup(r));
            }
            for m in v.pending_join {
                self.ctx.timers.cancel(gid, &m, Slot::Session);
            }
        }
        for m in ids {
            self.ctx.timers.cancel(gid, &m, Slot::Session);
        }
        self.ctx.timers.cancel(gid, "", Slot::ClassicJoin);
        self.ctx.timers.cancel(gid, "", Slot::ClassicSync);
        self.emit(ClassicRecord::group_tombstone(gid));
    }

    /// Writes `g` as a new classic group (its group record, then one record per member) with
    /// fresh volatile state and a session timer per member: how a group converted from another
    /// type (KIP-848 downgrade) is built. An existing classic group of that id is deleted
    /// first.
    pub fn create(&mut self, g: &ClassicGroup) {
        if self.groups.contains_key(&g.group_id) {
            self.delete(&g.group_id);
        }
        let gid = g.group_id.clone();
        self.emit(ClassicRecord::group(g));
        for m in g.members.values() {
            self.emit(ClassicRecord::member(&gid, m));
            self.arm_session(&gid, &m.member_id, i64::from(m.session_timeout_ms));
        }
        self.side.volatile.insert(
            gid,
            Volatile {
                previous_state: Some(g.state),
                ..Default::default()
            },
        );
    }

    /// Starts a rebalance of classic group `gid` (Kafka's `prepareRebalance`, e.g. after a
    /// downgrade); a no-op for a missing group or one already preparing.
    pub fn rebalance(&mut self, gid: &str) {
        if self
            .groups
            .get(gid)
            .is_some_and(|g| !g.is(PreparingRebalance))
        {
            self.prepare_rebalance(gid);
        }
    }
}

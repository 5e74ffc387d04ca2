//! Writing outside a heartbeat's draft, and removing a member (§2.4): what a -1 leave, an
//! expired session and an expired rebalance timer share (Kafka 4.4's
//! `GroupMetadataManager.streamsGroupFenceMember`).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::records::StreamsRecord;
use super::side::StreamsManager;
use crate::coordinator::commit;

impl StreamsManager<'_> {
    /// Writes `r` (`commit::write`: applied to the live state, then kept in `records`); a group
    /// left empty forgets its shutdown request.
    pub(super) fn emit(&mut self, records: &mut Vec<StreamsRecord>, r: StreamsRecord) {
        commit::write(self.groups, records, r);
        let Some(gid) = records.last().map(StreamsRecord::group_id) else {
            return;
        };
        if self.groups.get(gid).is_some_and(|g| g.members.is_empty()) {
            if let Some(v) = self.side.volatile.get_mut(gid) {
                v.shutdown_requester = None;
            }
        }
    }

    /// Removes a streams member as a -1 leave or a fence does (§2.4): tombstones for its current
    /// assignment, target and metadata, then G+1 with unchanged hash, validated epoch and
    /// configs (and, when it was the last member, the target epoch G+1, as Kafka 4.4); its timers
    /// cancelled and its task offsets forgotten. Nothing happens for an unknown member.
    pub fn fence_member(&mut self, gid: &str, mid: &str, records: &mut Vec<StreamsRecord>) {
        let Some(g) = self.groups.get(gid) else {
            return;
        };
        if !g.members.contains_key(mid) {
            return;
        }
        let (epoch, last) = (g.group_epoch, g.members.len() == 1);
        let bump = StreamsRecord::group_metadata(
            gid,
            epoch + 1,
            g.metadata_hash,
            g.validated_topology_epoch,
            &g.last_assignment_configs,
        );
        self.emit(records, StreamsRecord::current_tombstone(gid, mid));
        self.emit(records, StreamsRecord::target_tombstone(gid, mid));
        self.emit(records, StreamsRecord::member_metadata_tombstone(gid, mid));
        self.emit(records, bump);
        // The last member gone, the (empty) target is the one of the new epoch: Kafka 4.4's
        // `streamsGroupFenceMember` writes the target epoch G+1 too.
        if last {
            self.emit(records, StreamsRecord::target_epoch(gid, epoch + 1));
        }
        self.ctx.timers.cancel_member(gid, mid);
        if let Some(v) = self.side.volatile.get_mut(gid) {
            v.forget_member(mid);
        }
    }
}

//! A static member rejoining under a new member id (Kafka's
//! `updateStaticMemberThenRebalanceOrCompleteJoin` and `replaceStaticMember`).

use super::answers::{join_error, join_response, sync_error};
use super::{protocols_of, ClassicManager, Waiting};
use crate::coordinator::classic::group::ClassicGroupState;
use crate::coordinator::classic::records::ClassicRecord;
use crate::coordinator::context::RequestContext;
use crate::coordinator::outbox::GroupResponse;
use crate::coordinator::timers::Slot;
use crate::error::ErrorCode;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::JoinGroupResponse;

use ClassicGroupState::{CompletingRebalance, Stable};

impl ClassicManager<'_> {
    /// Kafka's `updateStaticMemberThenRebalanceOrCompleteJoin`: a static member rejoining with
    /// an unknown member id replaces the member holding its instance id; in a Stable group
    /// whose selected protocol would not change, without a rebalance.
    pub(super) fn update_static_member(
        &mut self,
        _rc: &RequestContext,
        req: &JoinGroupRequest,
        gid: &str,
        old_id: &str,
        new_id: &str,
        w: Waiting,
    ) {
        let current_leader = self.group(gid).leader_id.clone();
        self.replace_static_member(req, gid, old_id, new_id, w.version);
        if current_leader.as_deref() == Some(old_id) {
            self.update_group(gid, |h| h.leader_id = Some(new_id.to_string()));
        }
        self.reschedule_heartbeat(gid, new_id);
        self.set_awaiting_join(gid, new_id, Some(w));
        match self.group(gid).state {
            Stable => {
                let g = self.group(gid);
                if g.protocol_name.as_deref().unwrap_or("")
                    == g.select_protocol().unwrap_or_default()
                {
                    // No rebalance: the stored member now has the new id.
                    self.set_awaiting_join(gid, new_id, None);
                    let r = self.replaced_join(gid, new_id, w.version, current_leader.as_deref());
                    self.answer(w, GroupResponse::JoinGroup(r));
                } else {
                    self.maybe_prepare_rebalance_or_complete_join(gid);
                }
            }
            CompletingRebalance => self.prepare_rebalance(gid),
            _ => self.maybe_complete_join_phase(gid),
        }
    }

    /// Kafka's `replaceStaticMember`: the old member's waiting JoinGroup and SyncGroup are
    /// answered FENCED_INSTANCE_ID, its record and session timer go, and the member is written
    /// under the new id with the JoinGroup's protocols and timeouts. The new member is not new
    /// (Kafka builds it afresh); the old id stays expected to sync, as in Kafka, so a
    /// replacement before it synced ends in a rebalance at the sync timeout.
    fn replace_static_member(
        &mut self,
        req: &JoinGroupRequest,
        gid: &str,
        old_id: &str,
        new_id: &str,
        version: i16,
    ) {
        let v = self.vol(gid);
        let old_join = v.awaiting_join.remove(old_id);
        let old_sync = v.awaiting_sync.remove(old_id);
        v.new_members.remove(old_id);
        if let Some(o) = old_join {
            let r = join_error(o.version, ErrorCode::FencedInstanceId, old_id);
            self.answer(o, GroupResponse::JoinGroup(r));
        }
        if let Some(o) = old_sync {
            let r = sync_error(ErrorCode::FencedInstanceId);
            self.answer(o, GroupResponse::SyncGroup(r));
        }
        let mut m = self.group(gid).members[old_id].clone();
        self.emit(ClassicRecord::member_tombstone(gid, old_id));
        self.ctx.timers.cancel(gid, old_id, Slot::Session);
        m.member_id = new_id.to_string();
        m.protocols = protocols_of(req);
        m.rebalance_timeout_ms = Self::rebalance_timeout_of(req, version);
        m.session_timeout_ms = req.session_timeout_ms;
        self.emit(ClassicRecord::member(gid, &m));
    }

    /// The JoinGroup answer of a static member replaced without a rebalance: from v9 the
    /// current leader, with the members when the new member leads (and SkipAssignment); below
    /// v9 Kafka names the leader as it was before the replacement, with no members.
    fn replaced_join(
        &self,
        gid: &str,
        new_id: &str,
        version: i16,
        leader_before: Option<&str>,
    ) -> JoinGroupResponse {
        let g = self.group(gid);
        let leads = version >= 9 && g.is_leader(new_id);
        let leader = if version >= 9 {
            g.leader_id.as_deref()
        } else {
            leader_before
        };
        join_response(
            version,
            ErrorCode::None,
            new_id,
            g.generation_id,
            g.protocol_type.as_deref(),
            g.protocol_name.as_deref(),
            leader.unwrap_or(""),
            leads,
            if leads {
                self.member_list(g)
            } else {
                Vec::new()
            },
        )
    }
}

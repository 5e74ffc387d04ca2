//! The facade's part of KIP-848's online migration (docs/coordinator.md §Online migration):
//! routing classic requests for a group id held by a consumer group to the consumer manager,
//! upgrading a classic group on the first ConsumerGroupHeartbeat, and carrying out the
//! downgrades the consumer manager decides when its last consumer-protocol member goes.
//! Conversions write tombstones for one group type and records for the other, so `replay` of
//! the records gives the converted group.

use super::consumer::migration::tombstones;
use super::{GroupCoordinator, Record, RequestContext, RequestId};
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::sync_group_request::SyncGroupRequest;

impl GroupCoordinator {
    /// A classic JoinGroup for a group id held by a consumer group: a non-empty consumer group
    /// takes it (its answer is in the outbox; `Some(records)`); an empty one is deleted first
    /// (its tombstones are returned in `Err`) so that the classic group type creates a classic
    /// group in its place, as Kafka's `getOrMaybeCreateClassicGroup` does. `Ok(None)` when no
    /// consumer group holds the id.
    pub(crate) fn join_consumer_group(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Result<Option<Vec<Record>>, Vec<Record>> {
        let Some(g) = self.groups.consumer.get(&*req.group_id) else {
            return Ok(None);
        };
        if g.members.is_empty() {
            return Err(self.delete_consumer_group(&req.group_id));
        }
        let records = self.consumer_manager().classic_join(ctx, req, id, now_ms);
        let mut out: Vec<Record> = records.into_iter().map(Record::Consumer).collect();
        out.extend(self.run_downgrades(now_ms));
        Ok(Some(out))
    }

    /// Deletes an empty consumer group (its tombstones, already applied).
    pub(crate) fn delete_consumer_group(&mut self, group_id: &str) -> Vec<Record> {
        let Some(g) = self.groups.consumer.get(group_id) else {
            return Vec::new();
        };
        let records = tombstones(g);
        for r in &records {
            super::consumer::apply(&mut self.groups.consumer, r);
        }
        records.into_iter().map(Record::Consumer).collect()
    }

    /// A classic SyncGroup for a group id held by a consumer group (answer in the outbox);
    /// `false` when no consumer group holds the id.
    pub(crate) fn sync_consumer_group(
        &mut self,
        req: &SyncGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> bool {
        if !self.groups.consumer.contains_key(&*req.group_id) {
            return false;
        }
        self.consumer_manager().classic_sync(req, id, now_ms);
        true
    }

    /// A classic Heartbeat for a group id held by a consumer group (answer in the outbox);
    /// `false` when no consumer group holds the id.
    pub(crate) fn heartbeat_consumer_group(
        &mut self,
        req: &HeartbeatRequest,
        id: RequestId,
        now_ms: i64,
    ) -> bool {
        if !self.groups.consumer.contains_key(&*req.group_id) {
            return false;
        }
        self.consumer_manager().classic_heartbeat(req, id, now_ms);
        true
    }

    /// A classic LeaveGroup for a group id held by a consumer group (answer in the outbox);
    /// `None` when no consumer group holds the id.
    pub(crate) fn leave_consumer_group(
        &mut self,
        ctx: &RequestContext,
        req: &LeaveGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Option<Vec<Record>> {
        if !self.groups.consumer.contains_key(&*req.group_id) {
            return None;
        }
        let records = self.consumer_manager().classic_leave(ctx, req, id);
        let mut out: Vec<Record> = records.into_iter().map(Record::Consumer).collect();
        out.extend(self.run_downgrades(now_ms));
        Some(out)
    }

    /// Carries out the downgrades the consumer manager decided (see
    /// `ConsumerManager::downgrade_allowed`).
    pub(crate) fn run_downgrades(&mut self, _now_ms: i64) -> Vec<Record> {
        let pending = std::mem::take(&mut self.consumer.downgrades);
        let mut out = Vec::new();
        for _d in pending {
            // Wired once the classic group type exists.
        }
        out.extend(Vec::<Record>::new());
        out
    }
}

/// Stand-ins for the classic facade methods until the classic group type lands (TEMPORARY:
/// removed at the merge of `classic`).
#[cfg(test)]
impl GroupCoordinator {
    pub(crate) fn join_group(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        match self.join_consumer_group(ctx, req, id, now_ms) {
            Ok(Some(r)) => r,
            Ok(None) | Err(_) => Vec::new(),
        }
    }
    pub(crate) fn sync_group(
        &mut self,
        _ctx: &RequestContext,
        req: &SyncGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.sync_consumer_group(req, id, now_ms);
        Vec::new()
    }
    pub(crate) fn heartbeat(
        &mut self,
        _ctx: &RequestContext,
        req: &HeartbeatRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.heartbeat_consumer_group(req, id, now_ms);
        Vec::new()
    }
    pub(crate) fn leave_group(
        &mut self,
        ctx: &RequestContext,
        req: &LeaveGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.leave_consumer_group(ctx, req, id, now_ms)
            .unwrap_or_default()
    }
}

//! The facade's part of KIP-848's online migration (docs/coordinator.md §Online migration):
//! routing classic requests for a group id held by a consumer group to the consumer manager,
//! upgrading a classic group on the first ConsumerGroupHeartbeat, and carrying out the
//! downgrades the consumer manager decides when its last consumer-protocol member goes.
//! Conversions write tombstones for one group type and records for the other, so `replay` of
//! the records gives the converted group.

use bytes::Bytes;

use super::GroupCoordinator;
use crate::coordinator::classic::{
    ClassicGroup, ClassicGroupMember, ClassicGroupState, ClassicProtocol,
};
use crate::coordinator::consumer::assignor::Assignment;
use crate::coordinator::consumer::manager::error_response;
use crate::coordinator::consumer::manager::heartbeat::Step;
use crate::coordinator::consumer::migration::{
    downgrade_snapshot, encode_assignment, protocol_version, tombstones, upgrade_records,
    validate_upgrade, UpgradeRefused, CONSUMER_PROTOCOL_TYPE,
};
use crate::coordinator::consumer::{self, ClassicGroupSnapshot, ClassicMemberSnapshot};
use crate::coordinator::context::RequestContext;
use crate::coordinator::outbox::RequestId;
use crate::coordinator::record::{Output, Record};
use crate::coordinator::timers::TimerKind;
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::sync_group_request::SyncGroupRequest;

impl GroupCoordinator {
    /// A classic JoinGroup for a group id held by a non-empty consumer group: the consumer
    /// manager answers it (into the outbox); returns the records written.
    pub(crate) fn join_consumer_group(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        let records = self.consumer_manager().classic_join(ctx, req, id, now_ms);
        let mut out: Vec<Record> = records.into_iter().map(Record::Consumer).collect();
        out.extend(self.run_downgrades(now_ms));
        out
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

    /// Carries out the downgrades the consumer manager decided when it fenced the last
    /// consumer-protocol member of a group (Kafka's `convertToClassicGroup`): the consumer
    /// group's tombstones, its members' timers cancelled, then the classic group (see
    /// [`GroupCoordinator::classic_of`]) with a session timer per member, and a rebalance.
    pub(crate) fn run_downgrades(&mut self, now_ms: i64) -> Vec<Record> {
        let pending = std::mem::take(&mut self.types.consumer.downgrades);
        let mut out = Vec::new();
        for d in pending {
            let Some(g) = self.groups.consumer.get(&d.group_id) else {
                continue;
            };
            let snap = downgrade_snapshot(g, &d.leaving, None, &self.ctx);
            let targets = g.targets.clone();
            let member_ids: Vec<String> = g.members.keys().cloned().collect();
            let records = tombstones(g);
            for r in &records {
                consumer::apply(&mut self.groups.consumer, r);
            }
            out.extend(records.into_iter().map(Record::Consumer));
            let mut m = self.consumer_manager();
            for id in &member_ids {
                m.cancel_all_timers(&d.group_id, id);
            }
            let cg = self.classic_of(&snap, &targets, now_ms);
            out.extend(self.insert_classic_group(&cg, d.rebalance, now_ms));
        }
        out
    }

    /// The classic group a downgrade builds from the consumer group's snapshot: generation =
    /// the group epoch, Stable, protocol type `consumer`, the protocol selected among the
    /// members' (Kafka's `selectProtocol`, with its tie-break), the first member in id order as
    /// leader, and each member's target as its assignment, encoded at its subscription's
    /// version.
    fn classic_of(
        &self,
        snap: &ClassicGroupSnapshot,
        targets: &std::collections::BTreeMap<String, Assignment>,
        now_ms: i64,
    ) -> ClassicGroup {
        let mut cg = ClassicGroup::new(&snap.group_id);
        cg.state = ClassicGroupState::Stable;
        cg.protocol_type = snap.protocol_type.clone();
        cg.generation_id = snap.generation_id;
        cg.current_state_timestamp = now_ms;
        for m in &snap.members {
            cg.put_member(ClassicGroupMember {
                member_id: m.member_id.clone(),
                group_instance_id: m.instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                session_timeout_ms: m.session_timeout_ms,
                protocol_type: CONSUMER_PROTOCOL_TYPE.to_string(),
                protocols: m
                    .protocols
                    .iter()
                    .map(|p| ClassicProtocol {
                        name: p.name.clone(),
                        metadata: p.metadata.clone(),
                    })
                    .collect(),
                assignment: Bytes::new(),
            });
        }
        cg.leader_id = cg.members.keys().next().cloned();
        cg.protocol_name = cg.select_protocol();
        let protocol = cg.protocol_name.clone().unwrap_or_default();
        let empty = Assignment::new();
        for m in cg.members.values_mut() {
            let version = m
                .metadata(&protocol)
                .and_then(|b| protocol_version(b).ok())
                .unwrap_or(0);
            let target = targets.get(&m.member_id).unwrap_or(&empty);
            m.assignment = encode_assignment(target, &self.ctx.topics, version);
        }
        cg
    }

    /// The first ConsumerGroupHeartbeat (epoch 0) to a non-empty classic group (Kafka 4.4's
    /// `getOrMaybeCreateConsumerGroup` with `validateOnlineUpgrade` and
    /// `convertToConsumerGroup`): refused with GROUP_ID_NOT_FOUND and Kafka's message, or the
    /// classic group's tombstone, the consumer group's records and the heartbeat's. Both
    /// phases (docs §Transactions): the heartbeat is checked against the converted group, built
    /// from the conversion records and not yet written, so when it fails nothing changes.
    /// `None` when no non-empty classic group holds the id (the caller carries on).
    pub(crate) fn upgrade_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Option<Output<ConsumerGroupHeartbeatResponse>> {
        let gid = &*req.group_id;
        let snap = classic_snapshot(
            self.groups
                .classic
                .get(gid)
                .filter(|g| !g.members.is_empty())?,
        );
        let refuse = |message: String| Output {
            response: ConsumerGroupHeartbeatResponse {
                error_code: ErrorCode::GroupIdNotFound.code(),
                error_message: Some(message.into()),
                ..Default::default()
            },
            records: Vec::new(),
        };
        let config = &self.types.consumer.config;
        if let Err(UpgradeRefused(m)) =
            validate_upgrade(&snap, config.migration_policy, config.max_size)
        {
            return Some(refuse(m));
        }
        let conversion = match upgrade_records(&snap, &self.ctx) {
            Ok(r) => r,
            Err(UpgradeRefused(m)) => return Some(refuse(m)),
        };
        // Phase one: the heartbeat against the converted group.
        let converted = consumer::replay(&conversion);
        let checked =
            self.consumer_manager()
                .check_heartbeat(ctx, req, now_ms, converted.get(gid), false);
        let step = match checked {
            Ok(step) => step,
            Err(e) => {
                return Some(Output {
                    response: error_response(e),
                    records: Vec::new(),
                })
            }
        };
        Some(self.commit_upgrade(&snap, conversion, step, req, now_ms))
    }

    /// Phase two of an upgrade: the classic group goes (its waiting requests told to rejoin),
    /// the consumer group comes (its conversion records), then the heartbeat is written; each
    /// converted member gets a session timer with its own session timeout.
    fn commit_upgrade(
        &mut self,
        snap: &ClassicGroupSnapshot,
        conversion: Vec<consumer::ConsumerRecord>,
        step: Step<'_>,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        let gid = &*req.group_id;
        let mut out = {
            let mut m = self.classic_manager(now_ms);
            m.delete_answering(gid, ErrorCode::RebalanceInProgress);
            m.records
                .into_iter()
                .map(Record::Classic)
                .collect::<Vec<_>>()
        };
        for r in &conversion {
            consumer::apply(&mut self.groups.consumer, r);
        }
        out.extend(conversion.into_iter().map(Record::Consumer));
        let (response, records) = self.consumer_manager().commit_heartbeat(step, req, now_ms);
        for m in &snap.members {
            let deadline = now_ms + i64::from(m.session_timeout_ms);
            self.ctx
                .timers
                .arm(gid, &m.member_id, TimerKind::Session, deadline);
        }
        out.extend(records.into_iter().map(Record::Consumer));
        out.extend(self.run_downgrades(now_ms));
        Output {
            response,
            records: out,
        }
    }
}

/// The group-type-neutral snapshot of a classic group an upgrade converts (Kafka's
/// `ConsumerGroup.fromClassicGroup` input).
fn classic_snapshot(g: &ClassicGroup) -> ClassicGroupSnapshot {
    ClassicGroupSnapshot {
        group_id: g.group_id.clone(),
        generation_id: g.generation_id,
        protocol_type: g.protocol_type.clone(),
        protocol_name: g.protocol_name.clone(),
        members: g
            .members
            .values()
            .map(|m| ClassicMemberSnapshot {
                member_id: m.member_id.clone(),
                instance_id: m.group_instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                session_timeout_ms: m.session_timeout_ms,
                protocols: m
                    .protocols
                    .iter()
                    .map(|p| consumer::ClassicProtocol {
                        name: p.name.clone(),
                        metadata: p.metadata.clone(),
                    })
                    .collect(),
                assignment: m.assignment.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
impl GroupCoordinator {
    /// The conversion records of a classic-group snapshot, or the refusal message (tests).
    pub(crate) fn try_upgrade_records(&self, snap: &ClassicGroupSnapshot) -> Result<usize, String> {
        upgrade_records(snap, &self.ctx)
            .map(|r| r.len())
            .map_err(|UpgradeRefused(m)| m)
    }
}

//! Classic members inside a consumer group (KIP-848 online migration): JoinGroup, SyncGroup,
//! Heartbeat and LeaveGroup from members that still speak the classic protocol, answered from the
//! consumer group's server-side assignment (Kafka 4.4's `GroupMetadataManager`
//! `classicGroupJoinToConsumerGroup`, `classicGroupSyncToConsumerGroup`,
//! `classicGroupHeartbeatToConsumerGroup`, `classicGroupLeaveToConsumerGroup`).
//!
//! A classic member's subscription is read from the `consumer` protocol metadata of its
//! JoinGroup (a ConsumerProtocolSubscription); it joins as a ConsumerGroupHeartbeat member
//! would with epoch 0 (no epoch checks; a static member is always replaced), its generation is
//! its member epoch, and its assignment reaches it in SyncGroup as ConsumerProtocolAssignment
//! bytes. Its timers are its own session timeout, a sync timeout (rebalance timeout after a
//! JoinGroup) and a join timeout (rebalance timeout after it was told REBALANCE_IN_PROGRESS);
//! either expiry fences it. Every answer goes to the outbox under the caller's [`RequestId`].
//! Rules and differences from Kafka: docs/coordinator.md §Online migration.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::group::{ConsumerGroup, ConsumerGroupMember, MemberState};
use super::manager::ConsumerManager;
use super::migration::{
    decode_subscription, encode_assignment, protocol_version, to_assignment, ClassicMemberMetadata,
    ClassicProtocol, MigrationPolicy, CONSUMER_PROTOCOL_TYPE,
};
use super::records::ConsumerRecord;
use crate::coordinator::commit;
use crate::coordinator::context::{fail, leaving_members, HbError, RequestContext};
use crate::coordinator::outbox::{GroupResponse, RequestId};
use crate::coordinator::timers::{Slot, TimerKind};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::{
    self as hbr, ConsumerGroupHeartbeatRequest,
};
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::heartbeat_response::HeartbeatResponse;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::{LeaveGroupResponse, MemberResponse};
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;

fn err(code: ErrorCode) -> HbError {
    HbError {
        code: code.code(),
        message: None,
    }
}

/// Kafka's `ConsumerGroup.supportsClassicProtocols`: protocol type `consumer`, and (for a
/// non-empty group) some protocol named by the joining member that every classic member
/// supports.
fn supports_classic_protocols(
    g: &ConsumerGroup,
    protocol_type: &str,
    names: &BTreeSet<&str>,
) -> bool {
    if protocol_type != CONSUMER_PROTOCOL_TYPE {
        return false;
    }
    if g.members.is_empty() {
        return !names.is_empty();
    }
    names.iter().any(|n| {
        g.members
            .values()
            .filter_map(|m| m.classic.as_ref())
            .all(|c| c.supported_protocols.iter().any(|p| p.name == *n))
    })
}

/// Kafka's `ConsumerGroup.waitingOnUnreleasedPartition`: the member is UNRELEASED_PARTITIONS
/// and some partition of its target is still owned by another member.
pub(crate) fn waiting_on_unreleased(g: &ConsumerGroup, m: &ConsumerGroupMember) -> bool {
    if m.state != MemberState::UnreleasedPartitions {
        return false;
    }
    let Some(target) = g.targets.get(&m.member_id) else {
        return false;
    };
    target.iter().any(|(t, ps)| {
        ps.iter().any(|p| {
            !m.assigned.get(t).is_some_and(|a| a.contains(p)) && g.partition_epoch(*t, *p).is_some()
        })
    })
}

/// Kafka's `validateConsumerGroupMember`: by instance id when given (UNKNOWN_MEMBER_ID when no
/// member holds it, FENCED_INSTANCE_ID when another member id does), else by member id.
fn validate_member<'g>(
    g: &'g ConsumerGroup,
    member_id: &str,
    instance_id: Option<&str>,
) -> Result<&'g ConsumerGroupMember, HbError> {
    match instance_id {
        None => g.members.get(member_id).ok_or_else(|| HbError {
            code: ErrorCode::UnknownMemberId.code(),
            message: Some(format!(
                "Member {member_id} is not a member of group {}.",
                g.group_id
            )),
        }),
        Some(i) => {
            let m = g.static_member(i).ok_or_else(|| HbError {
                code: ErrorCode::UnknownMemberId.code(),
                message: Some(format!(
                    "Member with instance id {i} is not a member of group {}.",
                    g.group_id
                )),
            })?;
            if m.member_id != member_id {
                return fail(
                    ErrorCode::FencedInstanceId.code(),
                    format!(
                        "Static member {member_id} with instance id {i} is fenced by existing member {}.",
                        m.member_id
                    ),
                );
            }
            Ok(m)
        }
    }
}

/// Kafka's `throwIfMemberDoesNotUseClassicProtocol` (UNKNOWN_MEMBER_ID).
fn require_classic(m: &ConsumerGroupMember) -> Result<&ClassicMemberMetadata, HbError> {
    m.classic.as_ref().ok_or_else(|| HbError {
        code: ErrorCode::UnknownMemberId.code(),
        message: Some(format!(
            "Member {} does not use the classic protocol.",
            m.member_id
        )),
    })
}

/// Kafka's `throwIfGenerationIdUnmatched` (ILLEGAL_GENERATION).
fn require_generation(m: &ConsumerGroupMember, generation_id: i32) -> Result<(), HbError> {
    if m.member_epoch != generation_id {
        return Err(err(ErrorCode::IllegalGeneration));
    }
    Ok(())
}

impl ConsumerManager<'_> {
    /// Arms the join timeout of a classic member unless one is armed (Kafka's
    /// `scheduleConsumerGroupJoinTimeoutIfAbsent`): rebalance timeout from now.
    fn arm_join_timeout_if_absent(&mut self, gid: &str, m: &ConsumerGroupMember, now_ms: i64) {
        if self
            .ctx
            .timers
            .get(gid, &m.member_id, Slot::ConsumerClassicJoin)
            .is_none()
        {
            let deadline = now_ms + i64::from(m.rebalance_timeout_ms.max(0));
            self.ctx
                .timers
                .arm(gid, &m.member_id, TimerKind::ConsumerClassicJoin, deadline);
        }
    }

    /// Handles a JoinGroup sent to a non-empty consumer group (Kafka 4.4's
    /// `classicGroupJoinToConsumerGroup`); the answer (immediate: a classic member of a consumer
    /// group never waits for others) goes to the outbox under `id`. Errors, in Kafka's order:
    /// INCONSISTENT_GROUP_PROTOCOL when the migration policy is `disabled`,
    /// GROUP_MAX_SIZE_REACHED, INCONSISTENT_GROUP_PROTOCOL when the protocol type is not
    /// `consumer` or no protocol is common to the classic members, MEMBER_ID_REQUIRED (v4+,
    /// dynamic member without id; the answer carries the new id), INCONSISTENT_GROUP_PROTOCOL
    /// for malformed subscription bytes. Returns the records written (already applied).
    pub fn classic_join(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<ConsumerRecord> {
        let mut records = Vec::new();
        let response = match self.classic_join_inner(ctx, req, now_ms, &mut records) {
            Ok(r) => r,
            Err(e) => {
                debug_assert!(records.is_empty());
                JoinGroupResponse {
                    error_code: e.code,
                    // Null, as Kafka 4.4.0 answers errors (seen on the broker,
                    // tests/tests/it/kafka_oracle); the field's default is "".
                    protocol_name: None,
                    ..Default::default()
                }
            }
        };
        self.ctx.outbox.push(id, GroupResponse::JoinGroup(response));
        records
    }

    /// A classic JoinGroup to a consumer group in steps: [`Self::check_classic_join`], the
    /// member id a v4+ dynamic member must first come back with (MEMBER_ID_REQUIRED), the
    /// heartbeat the join stands for ([`Self::join_as_heartbeat`]) in the coordinator's two
    /// phases, then the answer and the member's classic timers.
    fn classic_join_inner(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        now_ms: i64,
        records: &mut Vec<ConsumerRecord>,
    ) -> Result<JoinGroupResponse, HbError> {
        let gid = &*req.group_id;
        let unknown = req.member_id.is_empty();
        let member_id = self.check_classic_join(req, unknown)?;
        if ctx.api_version >= 4 && unknown && req.group_instance_id.is_none() {
            return Ok(JoinGroupResponse {
                member_id: member_id.into(),
                error_code: ErrorCode::MemberIdRequired.code(),
                protocol_name: None,
                ..Default::default()
            });
        }
        let (synth, meta) = self.join_as_heartbeat(ctx, req, &member_id)?;
        let downgrade = self.replaces_last_consumer_member(gid, req.group_instance_id.as_deref());
        // The coordinator's two phases: the join checked against the live group, then written.
        commit::two_phase(
            self,
            |m| {
                let group = m.groups.get(gid);
                let id = Cow::Borrowed(member_id.as_str());
                m.check(ctx, &synth, now_ms, id, group, Some(meta), false)
            },
            |m, plan| m.write_plan(plan, &synth, now_ms, records),
        )?;
        if downgrade {
            self.side.downgrades.push(super::manager::PendingDowngrade {
                group_id: gid.to_string(),
                leaving: BTreeSet::new(),
                rebalance: false,
            });
        }
        let Some(m) = self.groups.get(gid).and_then(|g| g.members.get(&member_id)) else {
            return Err(err(ErrorCode::UnknownServerError));
        };
        let response = JoinGroupResponse {
            member_id: member_id.clone().into(),
            generation_id: m.member_epoch,
            protocol_type: Some(CONSUMER_PROTOCOL_TYPE.into()),
            protocol_name: Some(req.protocols[0].name.clone()),
            ..Default::default()
        };
        let timers = &mut self.ctx.timers;
        timers.cancel(gid, &member_id, Slot::ConsumerClassicJoin);
        let session = now_ms + i64::from(req.session_timeout_ms);
        timers.arm(gid, &member_id, TimerKind::Session, session);
        let sync = now_ms + i64::from(synth.rebalance_timeout_ms.max(0));
        timers.arm(gid, &member_id, TimerKind::ConsumerClassicSync, sync);
        Ok(response)
    }

    /// The checks of a classic JoinGroup to a consumer group, in Kafka's order: the migration
    /// policy, the size limit (a known static member is let in), the protocols; returns the
    /// member id (a fresh one for an unknown member).
    ///
    /// # Errors
    /// UNKNOWN_MEMBER_ID (no such group), INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED.
    fn check_classic_join(
        &mut self,
        req: &JoinGroupRequest,
        unknown: bool,
    ) -> Result<String, HbError> {
        let gid = &*req.group_id;
        if !self.groups.contains_key(gid) {
            return Err(err(ErrorCode::UnknownMemberId));
        }
        if self.side.config.migration_policy == MigrationPolicy::Disabled {
            return fail(
                ErrorCode::InconsistentGroupProtocol.code(),
                format!("Cannot join the consumer group {gid} with the classic protocol because the group migration is disabled."),
            );
        }
        let member_id = if unknown {
            self.ctx.ids.generate()
        } else {
            req.member_id.to_string()
        };
        let Some(g) = self.groups.get(gid) else {
            return Err(err(ErrorCode::UnknownMemberId));
        };
        let static_known = req
            .group_instance_id
            .as_ref()
            .is_some_and(|i| g.static_members.contains_key(&**i));
        let max = self.side.config.max_size;
        if !static_known
            && g.members.len() >= max.max(0) as usize
            && (member_id.is_empty() || !g.members.contains_key(&member_id))
        {
            return fail(
                ErrorCode::GroupMaxSizeReached.code(),
                format!("The consumer group has reached its maximum capacity of {max} members."),
            );
        }
        let names: BTreeSet<&str> = req.protocols.iter().map(|p| &*p.name).collect();
        if !supports_classic_protocols(g, &req.protocol_type, &names) {
            return fail(
                ErrorCode::InconsistentGroupProtocol.code(),
                format!("Member {member_id}'s protocols are not supported."),
            );
        }
        Ok(member_id)
    }

    /// The ConsumerGroupHeartbeat at epoch 0 a classic JoinGroup stands for (Kafka's
    /// `classicGroupJoinToConsumerGroup`): the subscription, rack and owned partitions from the
    /// first protocol's ConsumerProtocolSubscription (owned topics missing from the metadata
    /// dropped), the rebalance timeout (v0: the session timeout), the regex cleared, no server
    /// assignor; and the member's classic metadata (its protocols and session timeout).
    ///
    /// # Errors
    /// INCONSISTENT_GROUP_PROTOCOL for malformed subscription bytes.
    fn join_as_heartbeat(
        &self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        member_id: &str,
    ) -> Result<(ConsumerGroupHeartbeatRequest, ClassicMemberMetadata), HbError> {
        // Non-empty: checked by supports_classic_protocols.
        let first = &req.protocols[0];
        let sub = decode_subscription(&first.metadata).map_err(|_| HbError {
            code: ErrorCode::InconsistentGroupProtocol.code(),
            message: Some(
                "Malformed embedded consumer protocol in subscription deserialization.".into(),
            ),
        })?;
        let owned = to_assignment(
            self.ctx,
            sub.owned_partitions
                .iter()
                .map(|tp| (&*tp.topic, tp.partitions.iter().collect())),
        );
        let rebalance_timeout_ms = if ctx.api_version == 0 {
            req.session_timeout_ms
        } else {
            req.rebalance_timeout_ms
        };
        let owned = owned
            .iter()
            .map(|(t, ps)| hbr::TopicPartitions {
                topic_id: *t,
                partitions: ps.iter().copied().collect(),
                ..Default::default()
            })
            .collect();
        let synth = ConsumerGroupHeartbeatRequest {
            group_id: req.group_id.clone(),
            member_id: member_id.to_string().into(),
            member_epoch: 0,
            instance_id: req.group_instance_id.clone(),
            rack_id: sub.rack_id.clone().filter(|r| !r.is_empty()),
            rebalance_timeout_ms,
            subscribed_topic_names: Some(sub.topics.clone()),
            subscribed_topic_regex: Some("".into()),
            server_assignor: None,
            topic_partitions: Some(owned),
            ..Default::default()
        };
        let meta = ClassicMemberMetadata {
            session_timeout_ms: req.session_timeout_ms,
            supported_protocols: req
                .protocols
                .iter()
                .map(|p| ClassicProtocol {
                    name: p.name.to_string(),
                    metadata: p.metadata.clone(),
                })
                .collect(),
        };
        Ok((synth, meta))
    }

    /// Kafka 4.4's `validateOnlineDowngradeWithReplacedMember`: this static member replaces the
    /// last consumer-protocol member, so the group becomes classic right after its join.
    fn replaces_last_consumer_member(&self, gid: &str, instance: Option<&str>) -> bool {
        let Some(g) = self.groups.get(gid) else {
            return false;
        };
        let Some(r) = instance.and_then(|i| g.static_member(i)) else {
            return false;
        };
        r.classic.is_none()
            && g.members
                .values()
                .all(|m| m.member_id == r.member_id || m.classic.is_some())
            && self.side.config.migration_policy.is_downgrade_enabled()
            && g.members.len() <= self.side.classic_max_size.max(0) as usize
    }

    /// Handles a SyncGroup to a consumer group (Kafka's `classicGroupSyncToConsumerGroup`): the
    /// member's current assignment as ConsumerProtocolAssignment bytes at its subscription's
    /// version; the assignments a leader sends are ignored. Errors: UNKNOWN_MEMBER_ID (unknown
    /// member, or one using the consumer protocol, or an empty group), FENCED_INSTANCE_ID,
    /// ILLEGAL_GENERATION (generation ≠ member epoch), INCONSISTENT_GROUP_PROTOCOL (protocol type
    /// or name differs from the member's), REBALANCE_IN_PROGRESS (the assignment epoch moved past the
    /// member's and it is not revoking; its join timeout is armed). No record is written.
    pub fn classic_sync(&mut self, req: &SyncGroupRequest, id: RequestId, now_ms: i64) {
        let response = match self.classic_sync_inner(req, now_ms) {
            Ok(r) => r,
            Err(e) => SyncGroupResponse {
                error_code: e.code,
                ..Default::default()
            },
        };
        self.ctx.outbox.push(id, GroupResponse::SyncGroup(response));
    }

    fn classic_sync_inner(
        &mut self,
        req: &SyncGroupRequest,
        now_ms: i64,
    ) -> Result<SyncGroupResponse, HbError> {
        let gid = req.group_id.to_string();
        let Some(g) = self.groups.get(&gid).filter(|g| !g.members.is_empty()) else {
            return Err(err(ErrorCode::UnknownMemberId));
        };
        let m = validate_member(g, &req.member_id, req.group_instance_id.as_deref())?;
        let c = require_classic(m)?;
        require_generation(m, req.generation_id)?;
        let protocol = c
            .supported_protocols
            .first()
            .cloned()
            .ok_or_else(|| err(ErrorCode::InconsistentGroupProtocol))?;
        if req
            .protocol_type
            .as_deref()
            .is_some_and(|t| t != CONSUMER_PROTOCOL_TYPE)
            || req
                .protocol_name
                .as_deref()
                .is_some_and(|n| n != protocol.name)
        {
            return Err(err(ErrorCode::InconsistentGroupProtocol));
        }
        let m = m.clone();
        // Kafka 4.4's `throwIfRebalanceInProgress` compares with the assignment epoch (the
        // epoch of the last computed target assignment), not the group epoch.
        if g.assignment_epoch > m.member_epoch && m.state != MemberState::UnrevokedPartitions {
            self.arm_join_timeout_if_absent(&gid, &m, now_ms);
            return Err(err(ErrorCode::RebalanceInProgress));
        }
        let session = c.session_timeout_ms;
        let version = protocol_version(&protocol.metadata).unwrap_or(0);
        self.ctx
            .timers
            .cancel(&gid, &req.member_id, Slot::ConsumerClassicSync);
        self.ctx.timers.arm(
            &gid,
            &m.member_id,
            TimerKind::Session,
            now_ms + i64::from(session),
        );
        Ok(SyncGroupResponse {
            protocol_type: req.protocol_type.clone(),
            protocol_name: req.protocol_name.clone(),
            assignment: encode_assignment(&m.assigned, &self.ctx.topics, version),
            ..Default::default()
        })
    }

    /// Handles a Heartbeat to a consumer group (Kafka's `classicGroupHeartbeatToConsumerGroup`):
    /// refreshes the member's session; REBALANCE_IN_PROGRESS (and a join timeout armed unless
    /// one is) when the member's epoch is behind the assignment epoch, it must revoke partitions, or
    /// partitions it waits for are free. Errors as [`ConsumerManager::classic_sync`] (without
    /// the protocol checks). No record is written.
    pub fn classic_heartbeat(&mut self, req: &HeartbeatRequest, id: RequestId, now_ms: i64) {
        let code = match self.classic_heartbeat_inner(req, now_ms) {
            Ok(c) => c,
            Err(e) => e.code,
        };
        self.ctx.outbox.push(
            id,
            GroupResponse::Heartbeat(HeartbeatResponse {
                error_code: code,
                ..Default::default()
            }),
        );
    }

    fn classic_heartbeat_inner(
        &mut self,
        req: &HeartbeatRequest,
        now_ms: i64,
    ) -> Result<i16, HbError> {
        let gid = req.group_id.to_string();
        let Some(g) = self.groups.get(&gid) else {
            return Err(err(ErrorCode::UnknownMemberId));
        };
        let m = validate_member(g, &req.member_id, req.group_instance_id.as_deref())?;
        let c = require_classic(m)?;
        require_generation(m, req.generation_id)?;
        // Kafka 4.4 compares with the assignment epoch (the epoch of the last computed target
        // assignment), not the group epoch.
        let rejoin = m.member_epoch < g.assignment_epoch
            || m.state == MemberState::UnrevokedPartitions
            || (m.state == MemberState::UnreleasedPartitions && !waiting_on_unreleased(g, m));
        let session = c.session_timeout_ms;
        let m = m.clone();
        self.ctx.timers.arm(
            &gid,
            &m.member_id,
            TimerKind::Session,
            now_ms + i64::from(session),
        );
        if rejoin {
            self.arm_join_timeout_if_absent(&gid, &m, now_ms);
            return Ok(ErrorCode::RebalanceInProgress.code());
        }
        Ok(ErrorCode::None.code())
    }

    /// Handles a LeaveGroup to a consumer group (Kafka 4.4's `classicGroupLeaveToConsumerGroup`
    /// and `consumerGroupFenceMembers`): each listed member (by instance id when given, else
    /// member id; v0-v2 name one member in the top-level member id), of either protocol, is
    /// removed (current, target and metadata tombstones, timers cancelled); per-member
    /// UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID, each answered under the member id of the
    /// request. When any member left, the group epoch is bumped once (with the recomputed
    /// metadata hash) — or, when only classic members would be left and the policy allows, the
    /// group is downgraded instead (carried out by the facade). Below v3 the member's error is
    /// the top-level error and no member list is sent. Returns the records written.
    pub fn classic_leave(
        &mut self,
        ctx: &RequestContext,
        req: &LeaveGroupRequest,
        id: RequestId,
    ) -> Vec<ConsumerRecord> {
        let gid = req.group_id.to_string();
        let mut records = Vec::new();
        let identities = leaving_members(req, ctx.api_version);
        let mut responses = Vec::new();
        let mut leaving = BTreeSet::new();
        for (mid, iid) in identities {
            let code = match self.classic_leave_one(&gid, &mid, iid.as_deref()) {
                Ok(real) => {
                    leaving.insert(real);
                    0
                }
                Err(code) => code,
            };
            // Kafka answers with the request's member id (empty for a removal by instance id).
            responses.push(MemberResponse {
                member_id: mid.into(),
                group_instance_id: iid.map(Into::into),
                error_code: code,
                ..Default::default()
            });
        }
        // Kafka 4.4's `consumerGroupFenceMembers`: a downgrade when only classic members would
        // be left, else every member removed and one group-epoch bump.
        let downgrade = self
            .groups
            .get(&gid)
            .is_some_and(|g| !leaving.is_empty() && self.downgrade_allowed(g, &leaving));
        if downgrade {
            for m in &leaving {
                self.cancel_all_timers(&gid, m);
            }
            self.side.downgrades.push(super::manager::PendingDowngrade {
                group_id: gid.clone(),
                leaving,
                rebalance: true,
            });
        } else if !leaving.is_empty() {
            for m in &leaving {
                self.remove_member_records(&gid, m, &mut records);
                self.cancel_all_timers(&gid, m);
            }
            if let Some(g) = self.groups.get(&gid) {
                let hash = self.hash_of(g);
                let epoch = g.group_epoch + 1;
                self.emit(&mut records, ConsumerRecord::group_epoch(&gid, epoch, hash));
            }
        }
        let response = if ctx.api_version < 3 {
            LeaveGroupResponse {
                error_code: responses.first().map_or(0, |r| r.error_code),
                ..Default::default()
            }
        } else {
            LeaveGroupResponse {
                members: responses,
                ..Default::default()
            }
        };
        self.ctx
            .outbox
            .push(id, GroupResponse::LeaveGroup(response));
        records
    }

    fn classic_leave_one(&self, gid: &str, mid: &str, iid: Option<&str>) -> Result<String, i16> {
        let g = self
            .groups
            .get(gid)
            .ok_or(ErrorCode::UnknownMemberId.code())?;
        let m = match iid {
            None => g
                .members
                .get(mid)
                .ok_or(ErrorCode::UnknownMemberId.code())?,
            Some(i) => {
                let m = g
                    .static_member(i)
                    .ok_or(ErrorCode::UnknownMemberId.code())?;
                if !mid.is_empty() && m.member_id != mid {
                    return Err(ErrorCode::FencedInstanceId.code());
                }
                m
            }
        };
        Ok(m.member_id.clone())
    }
}

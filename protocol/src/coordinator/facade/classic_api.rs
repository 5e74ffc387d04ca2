//! The classic group type's requests (docs/coordinator.md §4): JoinGroup, SyncGroup,
//! Heartbeat, LeaveGroup, and the classic groups' configuration and conversions. A request for
//! a group id held by a consumer group goes to that group's classic members (KIP-848 online
//! migration, `migration`); one for a streams group's id is refused.

use super::GroupCoordinator;
use crate::coordinator::classic::manager::Waiting;
use crate::coordinator::classic::{
    ClassicGroup, ClassicGroupConfig, ClassicGroupState, ClassicGroups,
};
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::{ConfigError, RequestContext};
use crate::coordinator::outbox::{GroupResponse, RequestId};
use crate::coordinator::record::{apply, Record};
use crate::error::ErrorCode;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::heartbeat_response::HeartbeatResponse;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::{LeaveGroupResponse, MemberResponse};
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;

impl GroupCoordinator {
    /// Runs a classic request (answered under `id`) through [`GroupCoordinator::guarded`]: it
    /// failed when it wrote nothing and its answer is one of the checks' errors.
    fn classic_request(
        &mut self,
        id: RequestId,
        run: impl FnOnce(&mut Self) -> Vec<Record>,
    ) -> Vec<Record> {
        self.guarded(run, |c, records| {
            records.is_empty() && c.answered_check_error(id)
        })
    }

    /// Kafka's `maybeDeleteEmptyClassicGroup`: whether a consumer or streams heartbeat at
    /// `member_epoch` (a join at 0) replaces the Empty classic group `group_id`.
    pub(super) fn replaces_empty_classic(&self, group_id: &str, member_epoch: i32) -> bool {
        member_epoch == 0
            && self
                .groups
                .classic
                .get(group_id)
                .is_some_and(|g| g.is(ClassicGroupState::Empty))
    }

    /// Installs the classic-group configuration (the default is [`ClassicGroupConfig::default`]).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`ClassicGroupConfig::validate`]).
    pub fn set_classic_config(&mut self, config: ClassicGroupConfig) -> Result<(), ConfigError> {
        config.validate()?;
        self.types.classic.config = config;
        // A downgraded group must fit the classic group.max.size (docs §Online migration).
        self.types.consumer.classic_max_size = config.max_size;
        Ok(())
    }

    /// The classic-group configuration.
    pub fn classic_config(&self) -> &ClassicGroupConfig {
        &self.types.classic.config
    }

    /// Every classic group.
    pub fn classic_groups(&self) -> &ClassicGroups {
        &self.groups.classic
    }

    /// One classic group.
    pub fn classic_group(&self, id: &str) -> Option<&ClassicGroup> {
        self.groups.classic.get(id)
    }

    /// Removes classic group `group_id` (its tombstone; waiting requests are answered
    /// COORDINATOR_NOT_AVAILABLE, timers cancelled) and returns the records: for a conversion to
    /// another group type (KIP-848 upgrade). Nothing for a missing group.
    pub fn remove_classic_group(&mut self, group_id: &str, now_ms: i64) -> Vec<Record> {
        let mut m = self.classic_manager(now_ms);
        m.delete(group_id);
        m.records.into_iter().map(Record::Classic).collect()
    }

    /// Writes `group` as a classic group (group record and one record per member, a session
    /// timer per member from `now_ms`), replacing a classic group of that id, then, when
    /// `rebalance` is set, starts a rebalance (KIP-848 downgrade). The caller removes the group
    /// of the other type first. Returns the records.
    pub fn insert_classic_group(
        &mut self,
        group: &ClassicGroup,
        rebalance: bool,
        now_ms: i64,
    ) -> Vec<Record> {
        let mut m = self.classic_manager(now_ms);
        m.create(group);
        if rebalance {
            m.rebalance(&group.group_id);
        }
        m.records.into_iter().map(Record::Classic).collect()
    }

    /// Kafka's group of committed offsets only: an OffsetCommit from outside group management
    /// (the admin client, a consumer assigning partitions itself) to a group id that no group
    /// holds creates an Empty classic group without protocol type (Kafka's
    /// `getOrMaybeCreateClassicGroup` in the offset commit path), which ListGroups and
    /// DescribeGroups show and DeleteGroups deletes. Returns its record; nothing when the id
    /// is empty or taken.
    pub fn ensure_simple_group(&mut self, group_id: &str, now_ms: i64) -> Vec<Record> {
        if group_id.is_empty() || self.groups.contains(group_id) {
            return Vec::new();
        }
        let mut g = ClassicGroup::new(group_id);
        g.current_state_timestamp = now_ms;
        self.insert_classic_group(&g, false, now_ms)
    }

    /// Handles a JoinGroup (every version 0-9; docs/coordinator.md §Classic groups): answers
    /// INVALID_GROUP_ID for an empty group id and INVALID_SESSION_TIMEOUT outside
    /// [`ClassicGroupConfig`]'s bounds, replaces an empty consumer group, answers
    /// INCONSISTENT_GROUP_PROTOCOL for a streams group, hands a non-empty consumer group's id to
    /// its classic members (KIP-848), and otherwise joins the classic group (creating it for an
    /// empty member id). The answer, at once or when the join phase ends, comes out of
    /// [`GroupCoordinator::poll_response`] under `id`; the first rebalance of a new group waits
    /// `group.initial.rebalance.delay.ms` on a timer ([`GroupCoordinator::fire_timers`]). Returns
    /// the records written (already applied).
    pub fn join_group(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.classic_request(id, |c| c.join(ctx, req, id, now_ms))
    }

    fn join(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        let v = ctx.api_version;
        let refuse = |code: ErrorCode, member: &str| JoinGroupResponse {
            error_code: code.code(),
            member_id: member.to_string().into(),
            protocol_name: if v < 7 { Some("".into()) } else { None },
            ..Default::default()
        };
        let cfg = self.types.classic.config;
        let code = if req.group_id.is_empty() {
            Some(ErrorCode::InvalidGroupId)
        } else if req.session_timeout_ms < cfg.min_session_timeout_ms
            || req.session_timeout_ms > cfg.max_session_timeout_ms
        {
            Some(ErrorCode::InvalidSessionTimeout)
        } else {
            None
        };
        if let Some(code) = code {
            self.push(id, GroupResponse::JoinGroup(refuse(code, &req.member_id)));
            return Vec::new();
        }
        let gid = &*req.group_id;
        let mut records = Vec::new();
        if let Some(g) = self.groups.consumer.get(gid) {
            if !g.members.is_empty() {
                // KIP-848: a classic member joins the consumer group (docs §Online migration).
                return self.join_consumer_group(ctx, req, id, now_ms);
            }
            // Kafka's maybeDeleteEmptyConsumerGroup: an empty consumer group is replaced.
            let r = Record::Consumer(ConsumerRecord::group_tombstone(gid));
            apply(&mut self.groups, &r);
            records.push(r);
        } else if self.groups.streams.contains_key(gid) {
            let r = refuse(ErrorCode::InconsistentGroupProtocol, "");
            self.push(id, GroupResponse::JoinGroup(r));
            return Vec::new();
        }
        let mut m = self.classic_manager(now_ms);
        m.join(ctx, req, id);
        records.extend(m.records.into_iter().map(Record::Classic));
        records
    }

    /// Handles a SyncGroup (v0-5): INVALID_GROUP_ID for an empty group id; at v5+,
    /// INCONSISTENT_GROUP_PROTOCOL when ProtocolType or ProtocolName is missing (KIP-559);
    /// UNKNOWN_MEMBER_ID for a missing, empty or other-typed group (the consumer-group case
    /// is the KIP-848 migration hook); otherwise Kafka's checks (member, generation,
    /// protocol type and name) and the sync: the leader's assignment is stored and every
    /// waiting member answered; a follower waits for it. Answers come out of
    /// [`GroupCoordinator::poll_response`] under `id`.
    pub fn sync_group(
        &mut self,
        ctx: &RequestContext,
        req: &SyncGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.classic_request(id, |c| c.sync(ctx, req, id, now_ms))
    }

    fn sync(
        &mut self,
        ctx: &RequestContext,
        req: &SyncGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        let gid = &*req.group_id;
        let code = if gid.is_empty() {
            Some(ErrorCode::InvalidGroupId)
        } else if ctx.api_version >= 5
            && (req.protocol_type.is_none() || req.protocol_name.is_none())
        {
            Some(ErrorCode::InconsistentGroupProtocol)
        } else if self.sync_consumer_group(req, id, now_ms) {
            // KIP-848: a classic member of a consumer group (docs §Online migration).
            return Vec::new();
        } else if !self.groups.classic.contains_key(gid) {
            Some(ErrorCode::UnknownMemberId)
        } else {
            None
        };
        if let Some(code) = code {
            let r = SyncGroupResponse {
                error_code: code.code(),
                ..Default::default()
            };
            self.push(id, GroupResponse::SyncGroup(r));
            return Vec::new();
        }
        let mut m = self.classic_manager(now_ms);
        let version = ctx.api_version;
        m.sync(req, Waiting { id, version });
        m.records.into_iter().map(Record::Classic).collect()
    }

    /// Handles a Heartbeat (v0-4), answered at once through
    /// [`GroupCoordinator::poll_response`]: INVALID_GROUP_ID for an empty id;
    /// UNKNOWN_MEMBER_ID for a missing or other-typed group (consumer groups: the KIP-848
    /// migration hook); FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION from Kafka's
    /// checks; REBALANCE_IN_PROGRESS while the group prepares a rebalance; otherwise none. A
    /// valid heartbeat restarts the member's session timer.
    pub fn heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &HeartbeatRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.classic_request(id, |c| c.classic_heartbeat(ctx, req, id, now_ms))
    }

    fn classic_heartbeat(
        &mut self,
        _ctx: &RequestContext,
        req: &HeartbeatRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        if !req.group_id.is_empty() && self.heartbeat_consumer_group(req, id, now_ms) {
            // KIP-848: a classic member of a consumer group (docs §Online migration).
            return Vec::new();
        }
        let code = if req.group_id.is_empty() {
            ErrorCode::InvalidGroupId.code()
        } else if !self.groups.classic.contains_key(&*req.group_id) {
            ErrorCode::UnknownMemberId.code()
        } else {
            self.classic_manager(now_ms).heartbeat(req)
        };
        let r = HeartbeatResponse {
            error_code: code,
            ..Default::default()
        };
        self.push(id, GroupResponse::Heartbeat(r));
        Vec::new()
    }

    /// Handles a LeaveGroup (v0-5; v3+ a batch of members by member id and/or group instance
    /// id), answered at once: INVALID_GROUP_ID for an empty id; UNKNOWN_MEMBER_ID (top level
    /// below v3, per member from v3, as Kafka 4.4.0 answers) for a missing or other-typed group
    /// (consumer groups: the KIP-848 migration hook); otherwise one result per member (below v3,
    /// the first member error at top level), then a rebalance when anyone left.
    pub fn leave_group(
        &mut self,
        ctx: &RequestContext,
        req: &LeaveGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        self.classic_request(id, |c| c.leave(ctx, req, id, now_ms))
    }

    fn leave(
        &mut self,
        ctx: &RequestContext,
        req: &LeaveGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        let fail = |code: ErrorCode| LeaveGroupResponse {
            error_code: code.code(),
            ..Default::default()
        };
        if req.group_id.is_empty() {
            self.push(
                id,
                GroupResponse::LeaveGroup(fail(ErrorCode::InvalidGroupId)),
            );
            return Vec::new();
        }
        if let Some(records) = self.leave_consumer_group(ctx, req, id, now_ms) {
            // KIP-848: classic members of a consumer group (docs §Online migration).
            return records;
        }
        if !self.groups.classic.contains_key(&*req.group_id) {
            // As Kafka 4.4.0 answers a group it does not have (seen on the broker,
            // tests/tests/it/kafka_oracle): from v3 each member is UNKNOWN_MEMBER_ID and the
            // top level is NONE; before v3 the top level carries it.
            let r = if ctx.api_version < 3 {
                fail(ErrorCode::UnknownMemberId)
            } else {
                LeaveGroupResponse {
                    members: req
                        .members
                        .iter()
                        .map(|m| MemberResponse {
                            member_id: m.member_id.clone(),
                            group_instance_id: m.group_instance_id.clone(),
                            error_code: ErrorCode::UnknownMemberId.code(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }
            };
            self.push(id, GroupResponse::LeaveGroup(r));
            return Vec::new();
        }
        let mut m = self.classic_manager(now_ms);
        let r = m.leave(req, ctx.api_version);
        let records = m.records.into_iter().map(Record::Classic).collect();
        self.push(id, GroupResponse::LeaveGroup(r));
        records
    }
}

#![doc = include_str!("../../docs/coordinator.md")]

pub mod classic;
pub mod consumer;
mod context;
mod migration;
mod outbox;
mod record;
pub mod streams;
#[cfg(test)]
mod tests;
mod timers;

pub use classic::{
    ClassicGroup, ClassicGroupConfig, ClassicGroupMember, ClassicGroupState, ClassicGroups,
    ClassicProtocol, ClassicRecord,
};
pub use consumer::assignor;
pub use consumer::{
    ClassicMemberMetadata, ConsumerGroup, ConsumerGroupConfig,
    ConsumerGroupMember, ConsumerGroups, ConsumerRecord, GroupConfig, GroupState, MemberState,
    MigrationPolicy, ResolvedRegex,
};
pub use context::{
    ConfigError, MemberIdGenerator, RequestContext, SequentialMemberIds, TopicMetadata,
};
pub use outbox::{GroupResponse, RequestId};
pub use record::{apply, replay, Groups, Output, Record, StreamsHeartbeatOutput};
pub use timers::TimerKind;

use crate::error::ErrorCode;
use classic::manager::{self as classic_manager, ClassicManager, ClassicSide, Waiting};
use consumer::manager::{self as consumer_manager, ConsumerManager, ConsumerSide};
use context::{Context, Others};
use streams::manager::{self as streams_manager, StreamsManager, StreamsSide};
use streams::{ConfiguredTopology, StreamsGroup, StreamsGroupConfig, StreamsGroupOverrides};
use timers::Slot;

use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::delete_groups_request::DeleteGroupsRequest;
use crate::generated::delete_groups_response::{DeletableGroupResult, DeleteGroupsResponse};
use crate::generated::describe_groups_request::DescribeGroupsRequest;
use crate::generated::describe_groups_response::{
    DescribeGroupsResponse, DescribedGroup, DescribedGroupMember,
};
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::heartbeat_response::HeartbeatResponse;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::kwire_consumer_group_metadata_key::KwireConsumerGroupMetadataKey;
use crate::generated::kwire_streams_group_metadata_key::KwireStreamsGroupMetadataKey;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::{LeaveGroupResponse, MemberResponse};
use crate::generated::list_groups_request::ListGroupsRequest;
use crate::generated::list_groups_response::{ListGroupsResponse, ListedGroup};
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use crate::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;
use consumer::ConsumerRecord as CRecord;
use streams::StreamsRecord;

/// The group coordinator (see the module docs): a thin facade that owns the shared context and
/// the state of every group type, and lends them to one group type's manager per call.
#[derive(Debug)]
pub struct GroupCoordinator {
    ctx: Context,
    groups: Groups,
    consumer: ConsumerSide,
    streams: StreamsSide,
    classic: ClassicSide,
}

impl GroupCoordinator {
    /// A coordinator with no groups and no topics, the given consumer-group configuration and
    /// the default streams-group configuration.
    ///
    /// # Errors
    /// [`ConfigError`] when `config` breaks Kafka's bounds ([`ConsumerGroupConfig::validate`]).
    pub fn new(
        config: ConsumerGroupConfig,
        ids: Box<dyn MemberIdGenerator>,
    ) -> Result<Self, ConfigError> {
        Ok(GroupCoordinator {
            ctx: Context::new(ids),
            groups: Groups::new(),
            consumer: ConsumerSide::new(config)?,
            streams: StreamsSide::default(),
            classic: ClassicSide::default(),
        })
    }

    /// A coordinator that takes over groups from their records (a restart or a move): replays
    /// them, sets the topic metadata (without emitting records) and re-arms the volatile timers
    /// (docs/coordinator.md, D6): a session timer from `now_ms` for every member of every group
    /// type, and a rebalance timer for members that are revoking.
    ///
    /// # Errors
    /// [`ConfigError`] as for [`GroupCoordinator::new`].
    pub fn load(
        config: ConsumerGroupConfig,
        ids: Box<dyn MemberIdGenerator>,
        topics: Vec<TopicMetadata>,
        records: &[Record],
        now_ms: i64,
    ) -> Result<Self, ConfigError> {
        let mut c = Self::new(config, ids)?;
        c.ctx.topics = topics.into_iter().map(|t| (t.name.clone(), t)).collect();
        c.ctx.metadata_version = 1;
        c.groups = replay(records);
        c.consumer_manager().rearm(now_ms);
        c.streams_manager().rearm(now_ms);
        c.classic_manager(now_ms).rearm();
        Ok(c)
    }

    /// The consumer groups' manager, lent the context for one call.
    fn consumer_manager(&mut self) -> ConsumerManager<'_> {
        ConsumerManager {
            ctx: &mut self.ctx,
            side: &mut self.consumer,
            groups: &mut self.groups.consumer,
            others: Others(vec![&self.groups.streams, &self.groups.classic]),
        }
    }

    /// The streams groups' manager, lent the context for one call.
    fn streams_manager(&mut self) -> StreamsManager<'_> {
        StreamsManager {
            ctx: &mut self.ctx,
            side: &mut self.streams,
            groups: &mut self.groups.streams,
            others: Others(vec![&self.groups.consumer, &self.groups.classic]),
        }
    }

    /// The classic groups' manager, lent the context for one call at `now_ms`.
    fn classic_manager(&mut self, now_ms: i64) -> ClassicManager<'_> {
        ClassicManager {
            ctx: &mut self.ctx,
            side: &mut self.classic,
            groups: &mut self.groups.classic,
            records: Vec::new(),
            now_ms,
        }
    }

    /// The consumer-group configuration.
    pub fn config(&self) -> &ConsumerGroupConfig {
        &self.consumer.config
    }

    /// Sets a consumer group's overrides of session timeout and heartbeat interval.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is outside the broker's [min, max].
    pub fn set_group_config(&mut self, group_id: &str, gc: GroupConfig) -> Result<(), ConfigError> {
        self.consumer.set_group_config(group_id, gc)
    }

    /// Installs a streams-group configuration (the default is [`StreamsGroupConfig::default`]).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`StreamsGroupConfig::validate`]).
    /// Session deadlines already armed move with the new timeout (deadline = last heartbeat +
    /// timeout), so a coordinator built by [`GroupCoordinator::load`] can take its streams
    /// configuration afterwards.
    pub fn set_streams_config(&mut self, config: StreamsGroupConfig) -> Result<(), ConfigError> {
        self.streams_manager().set_config(config)
    }

    /// The streams-group configuration.
    pub fn streams_config(&self) -> &StreamsGroupConfig {
        &self.streams.config
    }

    /// Sets a streams group's overrides.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is out of range (interval not below the session timeout,
    /// standby count above `group.streams.max.standby.replicas`, negative delay).
    pub fn set_streams_group_config(
        &mut self,
        group_id: &str,
        o: StreamsGroupOverrides,
    ) -> Result<(), ConfigError> {
        self.streams_manager().set_group_config(group_id, o)
    }

    /// The member epoch of `member_id` in the group `group_id` of any type: `Err(true)` when the
    /// group does not exist, `Err(false)` when the member does not, plus whether the group has
    /// members at all.
    /// Whether `member_id` is a classic-protocol member of consumer group `group_id`.
    fn is_classic_member(&self, group_id: &str, member_id: &str) -> bool {
        self.groups
            .consumer
            .get(group_id)
            .and_then(|g| g.members.get(member_id))
            .is_some_and(|m| m.classic.is_some())
    }

    fn offset_member(&self, group_id: &str, member_id: &str) -> (Result<i32, bool>, bool) {
        let found = consumer_manager::member_epoch(&self.groups.consumer, group_id, member_id)
            .or_else(|| streams_manager::member_epoch(&self.groups.streams, group_id, member_id));
        match found {
            Some((e, has_members)) => (e.map_err(|()| false), has_members),
            None => (Err(true), false),
        }
    }

    /// Checks the member fields of an OffsetCommit against the group (KIP-848; Kafka's
    /// `ConsumerGroup.validateOffsetCommit`, also for streams groups; for a classic group,
    /// [`GroupCoordinator::validate_classic_offset_commit`] with `member_epoch` as the
    /// generation id and no group instance id). Returns the error code to
    /// answer every partition with, or [`ErrorCode::None`] (0):
    /// - a negative epoch and no member id (the admin client, or a consumer that assigns
    ///   partitions itself): accepted while the group has no members (or does not exist),
    ///   else ErrorCode::UnknownMemberId.code() (25);
    /// - a member id or epoch for a group that does not exist: ErrorCode::GroupIdNotFound.code() (69) (Kafka
    ///   answers ErrorCode::IllegalGeneration.code() (22) below v9; `api_version` selects);
    /// - an unknown member id: ErrorCode::UnknownMemberId.code() (25);
    /// - an epoch other than the member's current one: ErrorCode::StaleMemberEpoch.code() (113),
    ///   or ErrorCode::IllegalGeneration.code() (22) for a classic-protocol member of a consumer
    ///   group, whose generation id is its member epoch (KIP-848 online migration).
    pub fn validate_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        member_epoch: i32,
        api_version: i16,
    ) -> i16 {
        if let Some(c) =
            self.validate_classic_offset_commit(group_id, member_id, None, member_epoch, false)
        {
            return c;
        }
        let (member, has_members) = self.offset_member(group_id, member_id);
        if member_id.is_empty() && member_epoch < 0 {
            return if has_members {
                ErrorCode::UnknownMemberId.code()
            } else {
                ErrorCode::None.code()
            };
        }
        match member {
            Err(true) if api_version >= 9 => ErrorCode::GroupIdNotFound.code(),
            Err(true) => ErrorCode::IllegalGeneration.code(),
            Err(false) => ErrorCode::UnknownMemberId.code(),
            // Kafka 4.4's `validateMemberEpoch`: a classic member of a consumer group gets
            // ILLEGAL_GENERATION (docs §Online migration).
            Ok(e) if e != member_epoch && self.is_classic_member(group_id, member_id) => {
                ErrorCode::IllegalGeneration.code()
            }
            Ok(e) if e != member_epoch => ErrorCode::StaleMemberEpoch.code(),
            Ok(_) => ErrorCode::None.code(),
        }
    }

    /// Checks the member fields of an OffsetFetch (v9+) (Kafka's `validateOffsetFetch`): a
    /// fetch without member id and with epoch -1 (the admin client, or a consumer asking before
    /// it joined) is never checked; otherwise as [`GroupCoordinator::validate_offset_commit`]
    /// at v9, except that a group that does not exist is not an error (there is nothing to
    /// fence; its offsets read as -1).
    pub fn validate_offset_fetch(&self, group_id: &str, member_id: &str, member_epoch: i32) -> i16 {
        // Kafka's ClassicGroup.validateOffsetFetch checks nothing of a live classic group.
        if member_id.is_empty() && member_epoch < 0 || self.groups.classic.contains_key(group_id) {
            return ErrorCode::None.code();
        }
        match self.offset_member(group_id, member_id).0 {
            Err(true) => ErrorCode::None.code(),
            Err(false) => ErrorCode::UnknownMemberId.code(),
            // Kafka 4.4's `validateMemberEpoch`: a classic member of a consumer group gets
            // ILLEGAL_GENERATION (docs §Online migration).
            Ok(e) if e != member_epoch && self.is_classic_member(group_id, member_id) => {
                ErrorCode::IllegalGeneration.code()
            }
            Ok(e) if e != member_epoch => ErrorCode::StaleMemberEpoch.code(),
            Ok(_) => ErrorCode::None.code(),
        }
    }

    /// The next classic-protocol answer ready to send, oldest first, with the id the caller gave
    /// its request (see the `outbox` module: JoinGroup and SyncGroup answers may wait for other
    /// members or a timer). Drain it after every call into the coordinator.
    pub fn poll_response(&mut self) -> Option<(RequestId, GroupResponse)> {
        self.ctx.outbox.pop()
    }

    /// Classic-protocol answers waiting to be taken with [`GroupCoordinator::poll_response`].
    pub fn ready_responses(&self) -> usize {
        self.ctx.outbox.len()
    }

    /// Every group's persisted and derived state, by group type; equal to [`replay`] of every
    /// record emitted.
    pub fn groups(&self) -> &Groups {
        &self.groups
    }

    /// Every consumer group.
    pub fn consumer_groups(&self) -> &ConsumerGroups {
        &self.groups.consumer
    }

    /// One consumer group's state.
    pub fn group(&self, group_id: &str) -> Option<&ConsumerGroup> {
        self.groups.consumer.get(group_id)
    }

    /// Every streams group (persisted and derived state).
    pub fn streams_groups(&self) -> &streams::StreamsGroups {
        &self.groups.streams
    }

    /// One streams group.
    pub fn streams_group(&self, group_id: &str) -> Option<&StreamsGroup> {
        self.groups.streams.get(group_id)
    }

    /// The configured topology cached for a streams group (soft state), if computed.
    pub fn streams_configured_topology(&self, group_id: &str) -> Option<&ConfiguredTopology> {
        self.streams
            .volatile
            .get(group_id)
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
    }

    /// A streams group's endpoint-information epoch (soft state, KIP-1071), starting at 0.
    pub fn streams_endpoint_information_epoch(&self, group_id: &str) -> i32 {
        self.streams
            .volatile
            .get(group_id)
            .map_or(0, |v| v.endpoint_information_epoch)
    }

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

    /// The earliest armed timer deadline (ms), if any; O(log n).
    pub fn next_deadline(&self) -> Option<i64> {
        self.ctx.timers.next_deadline()
    }

    /// Fires every timer whose deadline is at or before `now_ms`, in deadline order (then
    /// session before rebalance before delay, then group and member id), and returns the
    /// records they wrote. Each timer goes to the group type holding its group: an expired
    /// session fences the member (as a -1 leave, with a group-epoch bump); an expired rebalance
    /// timer fences it only if it is still at the epoch captured when the timer was armed; the
    /// end of a streams group's initial rebalance delay computes its targets. Timers of members
    /// that are gone are no-ops. Only due timers are visited.
    pub fn fire_timers(&mut self, now_ms: i64) -> Vec<Record> {
        let mut records = Vec::new();
        while let Some(due) = self.ctx.timers.pop_due(now_ms) {
            if self.groups.consumer.contains_key(&due.group_id) {
                let out = self.consumer_manager().fire(&due);
                records.extend(out.into_iter().map(Record::Consumer));
                records.extend(self.run_downgrades(now_ms));
            } else if self.groups.streams.contains_key(&due.group_id) {
                let out = self.streams_manager().fire(&due);
                records.extend(out.into_iter().map(Record::Streams));
            } else if self.groups.classic.contains_key(&due.group_id) {
                let mut m = self.classic_manager(due.deadline);
                m.fire(&due);
                records.extend(m.records.into_iter().map(Record::Classic));
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
        let mut records: Vec<Record> = Vec::new();
        let consumer = self.consumer_manager().metadata_changed(now_ms);
        records.extend(consumer.into_iter().map(Record::Consumer));
        let streams = self.streams_manager().metadata_changed();
        records.extend(streams.into_iter().map(Record::Streams));
        records
    }

    /// Handles a ConsumerGroupHeartbeat (KIP-848; docs/coordinator.md §Consumer groups):
    /// validation, join, heartbeat, leave (-1), static temporary leave (-2) and static rejoin.
    /// On error the response carries only the error code and message (member id null, epoch 0,
    /// interval 0, assignment null) and no record is written. A group id held by a streams
    /// group answers ErrorCode::GroupIdNotFound.code() `Group G is not a consumer group.` Never panics on
    /// request input.
    pub fn consumer_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        if req.member_epoch == 0 {
            if let Some(out) = self.upgrade_heartbeat(ctx, req, now_ms) {
                return out;
            }
        }
        let (mut out, saved) = if req.member_epoch == 0 {
            self.delete_empty_classic_group(&req.group_id, now_ms)
        } else {
            (Vec::new(), None)
        };
        let (response, records) = self.consumer_manager().heartbeat(ctx, req, now_ms);
        if response.error_code != 0 {
            // A failed heartbeat writes nothing: the empty classic group stays.
            self.restore_classic_group(saved);
            out.clear();
        }
        out.extend(records.into_iter().map(Record::Consumer));
        out.extend(self.run_downgrades(now_ms));
        Output {
            response,
            records: out,
        }
    }

    /// Handles a ConsumerGroupDescribe (KIP-848): one entry per requested id, in order. An empty
    /// (or blank) id gives ErrorCode::InvalidGroupId.code() with GroupId ""; a missing group gives
    /// ErrorCode::GroupIdNotFound.code() `Group G not found.` (`Group G is not a consumer group.` for a streams
    /// group). Member entries carry MemberType 1 (consumer) for v1; AuthorizedOperations is left
    /// at INT32_MIN (the caller, as KafkaApis, fills it in when asked). State is read as it
    /// stands after the last call (a sans-IO coordinator commits every write at once).
    pub fn consumer_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &ConsumerGroupDescribeRequest,
    ) -> ConsumerGroupDescribeResponse {
        consumer_manager::describe(
            &self.ctx,
            &self.consumer,
            &self.groups.consumer,
            &Others(vec![&self.groups.streams]),
            req,
        )
    }

    /// Handles a StreamsGroupHeartbeat (KIP-1071; docs/coordinator.md §Streams groups, D1-D3):
    /// validation, join (with topology initialisation, D1 topology updates and topic
    /// configuration), heartbeat, leave (-1) and shutdown requests. On error the response
    /// carries only the error code and message (member id empty, epoch 0, interval 0, task lists
    /// null) and nothing is written. The topics a topology needs but metadata lacks come back
    /// as [`StreamsHeartbeatOutput::topics_to_create`]; the caller creates them and reports the
    /// new metadata through [`GroupCoordinator::set_topics`]. Never panics on request input.
    pub fn streams_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeatOutput {
        let (mut pre, saved) = if req.member_epoch == 0 {
            self.delete_empty_classic_group(&req.group_id, now_ms)
        } else {
            (Vec::new(), None)
        };
        let out = self.streams_manager().heartbeat(ctx, req, now_ms);
        if out.response.error_code != 0 {
            self.restore_classic_group(saved);
            pre.clear();
        }
        pre.extend(out.records.into_iter().map(Record::Streams));
        StreamsHeartbeatOutput {
            response: out.response,
            records: pre,
            topics_to_create: out.topics_to_create,
        }
    }

    /// Handles a StreamsGroupDescribe (KIP-1071): per group, ErrorCode::InvalidGroupId.code() (24) for a blank
    /// id, ErrorCode::GroupIdNotFound.code() (69) for a missing group or one of another type; otherwise the
    /// state, epochs, topology (configured when ready, else as persisted), members with their
    /// task offsets, assignments and targets. `AuthorizedOperations` is `i32::MIN` (not
    /// requested / not computed: ACLs are the caller's).
    pub fn streams_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &StreamsGroupDescribeRequest,
    ) -> StreamsGroupDescribeResponse {
        streams_manager::describe(
            &self.streams,
            &self.groups.streams,
            &Others(vec![&self.groups.consumer]),
            req,
        )
    }

    /// Handles a StreamsGroupTopologyDescriptionUpdate (key 93 v0, KIP-1331, Kafka 4.4): a
    /// member of a streams group pushes the description of the group's current topology epoch,
    /// which kwire keeps (record type 25) and StreamsGroupDescribe v1 returns. Errors:
    /// UNSUPPORTED_VERSION when [`StreamsGroupConfig::topology_descriptions`] is off (Kafka 4.4
    /// without a description plugin), INVALID_REQUEST (blank ids, another topology epoch, a
    /// malformed description), GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID; no record on error.
    pub fn streams_group_topology_description_update(
        &mut self,
        _ctx: &RequestContext,
        req: &StreamsGroupTopologyDescriptionUpdateRequest,
    ) -> Output<StreamsGroupTopologyDescriptionUpdateResponse> {
        let (response, record) = streams_manager::topology_description_update(
            &mut self.streams,
            &self.groups.streams,
            &Others(vec![&self.groups.consumer, &self.groups.classic]),
            req,
        );
        let records = record
            .map(|r| {
                let r = Record::Streams(r);
                apply(&mut self.groups, &r);
                vec![r]
            })
            .unwrap_or_default();
        Output { response, records }
    }
}

/// A classic group taken out by [`GroupCoordinator::delete_empty_classic_group`], to put back
/// when the request that replaced it fails.
type SavedClassic = Option<(ClassicGroup, Option<classic_manager::Volatile>)>;

/// Classic groups (docs/coordinator.md §Classic groups) and the group APIs shared by every
/// group type (DescribeGroups, ListGroups, DeleteGroups).
impl GroupCoordinator {
    /// Kafka's `maybeDeleteEmptyClassicGroup`: a joining ConsumerGroupHeartbeat or
    /// StreamsGroupHeartbeat replaces an empty classic group. Returns the tombstone and what to
    /// put back if the heartbeat fails.
    fn delete_empty_classic_group(
        &mut self,
        group_id: &str,
        now_ms: i64,
    ) -> (Vec<Record>, SavedClassic) {
        let Some(g) = self.groups.classic.get(group_id) else {
            return (Vec::new(), None);
        };
        if !g.is(ClassicGroupState::Empty) {
            return (Vec::new(), None);
        }
        let saved = (g.clone(), self.classic.volatile.get(group_id).cloned());
        let mut m = self.classic_manager(now_ms);
        m.delete(group_id);
        let records = m.records.into_iter().map(Record::Classic).collect();
        (records, Some(saved))
    }

    fn restore_classic_group(&mut self, saved: SavedClassic) {
        if let Some((g, v)) = saved {
            if let Some(v) = v {
                self.classic.volatile.insert(g.group_id.clone(), v);
            }
            self.groups.classic.insert(g.group_id.clone(), g);
        }
    }

    /// Installs the classic-group configuration (the default is [`ClassicGroupConfig::default`]).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`ClassicGroupConfig::validate`]).
    pub fn set_classic_config(&mut self, config: ClassicGroupConfig) -> Result<(), ConfigError> {
        config.validate()?;
        self.classic.config = config;
        // A downgraded group must fit the classic group.max.size (docs §Online migration).
        self.consumer.classic_max_size = config.max_size;
        Ok(())
    }

    /// The classic-group configuration.
    pub fn classic_config(&self) -> &ClassicGroupConfig {
        &self.classic.config
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

    fn push(&mut self, id: RequestId, r: GroupResponse) {
        self.ctx.outbox.push(id, r);
    }

    /// Handles a JoinGroup (every version 0-9; docs/coordinator.md §Classic groups): answers
    /// INVALID_GROUP_ID for an empty group id and INVALID_SESSION_TIMEOUT outside
    /// [`ClassicGroupConfig`]'s bounds, replaces an empty consumer group, answers
    /// INCONSISTENT_GROUP_PROTOCOL for a streams group or a non-empty consumer group (the hook
    /// where KIP-848 classic members inside consumer groups plug in), and otherwise joins the
    /// classic group (creating it for an empty member id). The answer, at once or when the
    /// join phase ends, comes out of [`GroupCoordinator::poll_response`] under `id`. Returns the
    /// records written (already applied).
    pub fn join_group(
        &mut self,
        ctx: &RequestContext,
        req: &JoinGroupRequest,
        id: RequestId,
        now_ms: i64,
    ) -> Vec<Record> {
        let v = ctx.api_version;
        let fail = |code: ErrorCode, member: &str| JoinGroupResponse {
            error_code: code.code(),
            member_id: member.to_string().into(),
            protocol_name: if v < 7 { Some("".into()) } else { None },
            ..Default::default()
        };
        if req.group_id.is_empty() {
            self.push(
                id,
                GroupResponse::JoinGroup(fail(ErrorCode::InvalidGroupId, &req.member_id)),
            );
            return Vec::new();
        }
        let cfg = self.classic.config;
        if req.session_timeout_ms < cfg.min_session_timeout_ms
            || req.session_timeout_ms > cfg.max_session_timeout_ms
        {
            let r = fail(ErrorCode::InvalidSessionTimeout, &req.member_id);
            self.push(id, GroupResponse::JoinGroup(r));
            return Vec::new();
        }
        let mut records = Vec::new();
        if let Some(g) = self.groups.consumer.get(&*req.group_id) {
            if !g.members.is_empty() {
                // KIP-848: a classic member joins the consumer group (docs §Online migration).
                return self.join_consumer_group(ctx, req, id, now_ms);
            }
            // Kafka's maybeDeleteEmptyConsumerGroup: an empty consumer group is replaced.
            let r = Record::Consumer(CRecord::GroupMetadata(
                KwireConsumerGroupMetadataKey {
                    group_id: req.group_id.clone(),
                },
                None,
            ));
            apply(&mut self.groups, &r);
            records.push(r);
        } else if self.groups.streams.contains_key(&*req.group_id) {
            let r = fail(ErrorCode::InconsistentGroupProtocol, "");
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
        let fail = |code: ErrorCode| SyncGroupResponse {
            error_code: code.code(),
            ..Default::default()
        };
        if req.group_id.is_empty() {
            self.push(
                id,
                GroupResponse::SyncGroup(fail(ErrorCode::InvalidGroupId)),
            );
            return Vec::new();
        }
        if ctx.api_version >= 5 && (req.protocol_type.is_none() || req.protocol_name.is_none()) {
            self.push(
                id,
                GroupResponse::SyncGroup(fail(ErrorCode::InconsistentGroupProtocol)),
            );
            return Vec::new();
        }
        if self.sync_consumer_group(req, id, now_ms) {
            // KIP-848: a classic member of a consumer group (docs §Online migration).
            return Vec::new();
        }
        if !self.groups.classic.contains_key(&*req.group_id) {
            self.push(
                id,
                GroupResponse::SyncGroup(fail(ErrorCode::UnknownMemberId)),
            );
            return Vec::new();
        }
        let mut m = self.classic_manager(now_ms);
        m.sync(
            req,
            Waiting {
                id,
                version: ctx.api_version,
            },
        );
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
    /// id), answered at once: INVALID_GROUP_ID for an empty id; UNKNOWN_MEMBER_ID (top level)
    /// for a missing or other-typed group (consumer groups: the KIP-848 migration hook);
    /// otherwise one result per member (below v3, the first member error at top level), then a
    /// rebalance when anyone left.
    pub fn leave_group(
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

    /// Handles a DescribeGroups (v0-6), for every group type: one entry per requested id, in
    /// order. A classic group gives its state, protocol type, and its members (client id, host,
    /// instance id); in Stable also the protocol name, each member's metadata for it and its
    /// assignment (Kafka's `describeGroups`). An empty id gives INVALID_GROUP_ID. An id that
    /// is not a classic group is `Dead` with no members: with no error below v6, and
    /// GROUP_ID_NOT_FOUND (`Group G not found.` / `Group G is not a classic group.`) at v6
    /// (KIP-1043). AuthorizedOperations is `i32::MIN` (the caller fills it in when asked).
    pub fn describe_groups(
        &self,
        ctx: &RequestContext,
        req: &DescribeGroupsRequest,
    ) -> DescribeGroupsResponse {
        let groups = req
            .groups
            .iter()
            .map(|gid| {
                let base = DescribedGroup {
                    group_id: gid.clone(),
                    authorized_operations: i32::MIN,
                    ..Default::default()
                };
                if gid.is_empty() {
                    return DescribedGroup {
                        error_code: ErrorCode::InvalidGroupId.code(),
                        ..base
                    };
                }
                let Some(g) = self.groups.classic.get(&**gid) else {
                    let message = if self.groups.contains(gid) {
                        format!("Group {gid} is not a classic group.")
                    } else {
                        format!("Group {gid} not found.")
                    };
                    let v6 = ctx.api_version >= 6;
                    return DescribedGroup {
                        error_code: if v6 {
                            ErrorCode::GroupIdNotFound.code()
                        } else {
                            0
                        },
                        error_message: v6.then(|| message.into()),
                        group_state: "Dead".into(),
                        ..base
                    };
                };
                let stable = g.is(ClassicGroupState::Stable);
                let protocol = g.protocol_name.clone().unwrap_or_default();
                let members = g
                    .members
                    .values()
                    .map(|m| DescribedGroupMember {
                        member_id: m.member_id.clone().into(),
                        group_instance_id: m.group_instance_id.clone().map(Into::into),
                        client_id: m.client_id.clone().into(),
                        client_host: m.client_host.clone().into(),
                        member_metadata: if stable {
                            m.metadata(&protocol).cloned().unwrap_or_default()
                        } else {
                            Default::default()
                        },
                        // Kafka's `describeNoMetadata` keeps the assignment outside Stable
                        // (cleared only by `resetAndPropagateAssignmentWithError`); seen on a
                        // 4.4.0 broker in CompletingRebalance (tests/tests/it/kafka_oracle).
                        member_assignment: m.assignment.clone(),
                        ..Default::default()
                    })
                    .collect();
                DescribedGroup {
                    group_state: g.state.as_str().into(),
                    protocol_type: g.protocol_type.clone().unwrap_or_default().into(),
                    protocol_data: if stable { protocol.into() } else { "".into() },
                    members,
                    ..base
                }
            })
            .collect();
        DescribeGroupsResponse {
            throttle_time_ms: 0,
            groups,
            ..Default::default()
        }
    }

    /// Every group of every type as ListGroups shows it: (id, protocol type, state, type), by
    /// group id.
    pub fn listed_groups(&self) -> Vec<(String, String, &'static str, &'static str)> {
        let mut out: Vec<(String, String, &'static str, &'static str)> = Vec::new();
        for (id, g) in &self.groups.classic {
            let pt = g.protocol_type.clone().unwrap_or_default();
            out.push((id.clone(), pt, g.state.as_str(), "classic"));
        }
        for (id, g) in &self.groups.consumer {
            out.push((id.clone(), "consumer".into(), g.state.as_str(), "consumer"));
        }
        for (id, g) in &self.groups.streams {
            out.push((id.clone(), "streams".into(), g.state.as_str(), "streams"));
        }
        out.sort();
        out
    }

    /// Handles a ListGroups (v0-5) over every group type (Kafka's `listGroups`): the v4+ states
    /// filter (case-insensitive, trimmed) and the v5+ types filter (`classic`, `consumer`,
    /// `streams`, case-insensitive; an unknown type matches nothing). GroupState is sent from
    /// v4, GroupType from v5. Classic groups show their protocol type (empty before the first
    /// member), consumer groups `consumer`, streams groups `streams`.
    pub fn list_groups(&self, ctx: &RequestContext, req: &ListGroupsRequest) -> ListGroupsResponse {
        let v = ctx.api_version;
        let states: Vec<String> = req
            .states_filter
            .iter()
            .map(|s| s.trim().to_lowercase())
            .collect();
        let types: Vec<String> = req
            .types_filter
            .iter()
            .map(|s| s.trim().to_lowercase())
            .collect();
        let groups = self
            .listed_groups()
            .into_iter()
            .filter(|(_, _, st, _)| {
                v < 4 || states.is_empty() || states.contains(&st.to_lowercase())
            })
            .filter(|(_, _, _, ty)| v < 5 || types.is_empty() || types.iter().any(|t| t == ty))
            .map(|(id, pt, st, ty)| ListedGroup {
                group_id: id.into(),
                protocol_type: pt.into(),
                group_state: if v >= 4 { st } else { "" }.into(),
                group_type: if v >= 5 { ty } else { "" }.into(),
                ..Default::default()
            })
            .collect();
        ListGroupsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            groups,
            ..Default::default()
        }
    }

    /// Handles a DeleteGroups (v0-3) for every group type: per id, INVALID_GROUP_ID for an
    /// empty id, GROUP_ID_NOT_FOUND for a missing group, NON_EMPTY_GROUP for a group with
    /// members (a classic group not Empty); otherwise the group's tombstone is written (the
    /// caller deletes its committed offsets). Results in request order.
    pub fn delete_groups(
        &mut self,
        _ctx: &RequestContext,
        req: &DeleteGroupsRequest,
        now_ms: i64,
    ) -> Output<DeleteGroupsResponse> {
        let mut records = Vec::new();
        let mut results = Vec::new();
        for gid in &req.groups_names {
            let code = self.delete_group(gid, now_ms, &mut records);
            results.push(DeletableGroupResult {
                group_id: gid.clone(),
                error_code: code.code(),
                error_message: None,
                ..Default::default()
            });
        }
        Output {
            response: DeleteGroupsResponse {
                throttle_time_ms: 0,
                results,
                ..Default::default()
            },
            records,
        }
    }

    fn delete_group(&mut self, gid: &str, now_ms: i64, records: &mut Vec<Record>) -> ErrorCode {
        if gid.is_empty() {
            return ErrorCode::InvalidGroupId;
        }
        if let Some(g) = self.groups.classic.get(gid) {
            if !g.is(ClassicGroupState::Empty) {
                return ErrorCode::NonEmptyGroup;
            }
            records.extend(self.remove_classic_group(gid, now_ms));
        } else if let Some(g) = self.groups.consumer.get(gid) {
            if !g.members.is_empty() {
                return ErrorCode::NonEmptyGroup;
            }
            let r = Record::Consumer(CRecord::GroupMetadata(
                KwireConsumerGroupMetadataKey {
                    group_id: gid.to_string().into(),
                },
                None,
            ));
            apply(&mut self.groups, &r);
            records.push(r);
        } else if let Some(g) = self.groups.streams.get(gid) {
            if !g.members.is_empty() {
                return ErrorCode::NonEmptyGroup;
            }
            let r = Record::Streams(StreamsRecord::GroupMetadata(
                KwireStreamsGroupMetadataKey {
                    group_id: gid.to_string().into(),
                },
                None,
            ));
            apply(&mut self.groups, &r);
            records.push(r);
        } else {
            return ErrorCode::GroupIdNotFound;
        }
        ErrorCode::None
    }

    /// Checks the member fields of an OffsetCommit against a classic group (Kafka's
    /// `ClassicGroup.validateOffsetCommit`; `generation_id` is the request's generation id):
    /// `Some(code)` when `group_id` is a classic group, `None` otherwise. A negative generation
    /// with no member id and no instance id commits only into an Empty group
    /// (UNKNOWN_MEMBER_ID otherwise); any member field: Kafka's member check
    /// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), then ILLEGAL_GENERATION unless the generation
    /// is the group's; REBALANCE_IN_PROGRESS while CompletingRebalance (not for transactional
    /// commits).
    pub fn validate_classic_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        group_instance_id: Option<&str>,
        generation_id: i32,
        transactional: bool,
    ) -> Option<i16> {
        let g = self.groups.classic.get(group_id)?;
        if generation_id < 0 && g.is(ClassicGroupState::Empty) {
            return Some(0);
        }
        if generation_id >= 0 || !member_id.is_empty() || group_instance_id.is_some() {
            if let Err(e) = classic_manager::validate_member(g, member_id, group_instance_id) {
                return Some(e.code());
            }
            if generation_id != g.generation_id {
                return Some(ErrorCode::IllegalGeneration.code());
            }
        } else if !transactional && !g.is(ClassicGroupState::Empty) {
            return Some(ErrorCode::UnknownMemberId.code());
        }
        if !transactional && g.is(ClassicGroupState::CompletingRebalance) {
            return Some(ErrorCode::RebalanceInProgress.code());
        }
        Some(0)
    }
}

#![doc = include_str!("../../docs/coordinator.md")]

pub mod consumer;
mod context;
mod migration;
mod outbox;
mod record;
pub mod streams;
#[cfg(test)]
mod tests;
mod timers;

pub use consumer::assignor;
pub use consumer::{
    ClassicMemberMetadata, ClassicProtocol, ConsumerGroup, ConsumerGroupConfig,
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
use consumer::manager::{self as consumer_manager, ConsumerManager, ConsumerSide};
use context::{Context, Others};
use streams::manager::{self as streams_manager, StreamsManager, StreamsSide};
use streams::{ConfiguredTopology, StreamsGroup, StreamsGroupConfig, StreamsGroupOverrides};
use timers::Slot;

use crate::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use crate::generated::consumer_group_describe_response::ConsumerGroupDescribeResponse;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

/// The group coordinator (see the module docs): a thin facade that owns the shared context and
/// the state of every group type, and lends them to one group type's manager per call.
#[derive(Debug)]
pub struct GroupCoordinator {
    ctx: Context,
    groups: Groups,
    consumer: ConsumerSide,
    streams: StreamsSide,
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
        Ok(c)
    }

    /// The consumer groups' manager, lent the context for one call.
    fn consumer_manager(&mut self) -> ConsumerManager<'_> {
        ConsumerManager {
            ctx: &mut self.ctx,
            side: &mut self.consumer,
            groups: &mut self.groups.consumer,
            others: Others(vec![&self.groups.streams]),
        }
    }

    /// The streams groups' manager, lent the context for one call.
    fn streams_manager(&mut self) -> StreamsManager<'_> {
        StreamsManager {
            ctx: &mut self.ctx,
            side: &mut self.streams,
            groups: &mut self.groups.streams,
            others: Others(vec![&self.groups.consumer]),
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
    fn offset_member(&self, group_id: &str, member_id: &str) -> (Result<i32, bool>, bool) {
        let found = consumer_manager::member_epoch(&self.groups.consumer, group_id, member_id)
            .or_else(|| streams_manager::member_epoch(&self.groups.streams, group_id, member_id));
        match found {
            Some((e, has_members)) => (e.map_err(|()| false), has_members),
            None => (Err(true), false),
        }
    }

    /// Checks the member fields of an OffsetCommit against the group (KIP-848; Kafka's
    /// `ConsumerGroup.validateOffsetCommit`, also for streams groups). Returns the error code to
    /// answer every partition with, or [`ErrorCode::None`] (0):
    /// - a negative epoch and no member id (the admin client, or a consumer that assigns
    ///   partitions itself): accepted while the group has no members (or does not exist),
    ///   else ErrorCode::UnknownMemberId.code() (25);
    /// - a member id or epoch for a group that does not exist: ErrorCode::GroupIdNotFound.code() (69) (Kafka
    ///   answers ErrorCode::IllegalGeneration.code() (22) below v9; `api_version` selects);
    /// - an unknown member id: ErrorCode::UnknownMemberId.code() (25);
    /// - an epoch other than the member's current one: ErrorCode::StaleMemberEpoch.code() (113).
    pub fn validate_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        member_epoch: i32,
        api_version: i16,
    ) -> i16 {
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
        if member_id.is_empty() && member_epoch < 0 {
            return ErrorCode::None.code();
        }
        match self.offset_member(group_id, member_id).0 {
            Err(true) => ErrorCode::None.code(),
            Err(false) => ErrorCode::UnknownMemberId.code(),
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
        let (response, records) = self.consumer_manager().heartbeat(ctx, req, now_ms);
        let mut records: Vec<Record> = records.into_iter().map(Record::Consumer).collect();
        records.extend(self.run_downgrades(now_ms));
        Output { response, records }
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
        let out = self.streams_manager().heartbeat(ctx, req, now_ms);
        StreamsHeartbeatOutput {
            response: out.response,
            records: out.records.into_iter().map(Record::Streams).collect(),
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
}

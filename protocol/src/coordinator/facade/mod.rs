//! The [`GroupCoordinator`] facade: it owns the shared context, the state of every group type
//! and the [`Registry`] of group types, and lends them to one group type's manager per call.
//! Files: this one (the struct, construction, configuration and state accessors), `registry`
//! (the [`GroupType`](registry::GroupType) interface and the group types behind it),
//! `listing` (ListGroups, DescribeGroups, DeleteGroups), `offsets` (the member checks of offset
//! commits and fetches), `time` (timers and topic metadata), `consumer_api`, `streams_api`,
//! `classic_api` (each group type's requests), `migration` (KIP-848 conversions between
//! classic and consumer groups) and `guard` (the test-build check that a failed request
//! changes nothing).

mod classic_api;
mod consumer_api;
mod guard;
mod listing;
mod migration;
mod offsets;
pub(crate) mod registry;
mod streams_api;
mod time;

use registry::Registry;

use super::classic::manager::{ClassicManager, ClassicSide};
use super::consumer::manager::{ConsumerManager, ConsumerSide};
use super::consumer::{ConsumerGroup, ConsumerGroupConfig, ConsumerGroups, GroupConfig};
use super::context::{ConfigError, Context, MemberIdGenerator, TopicMetadata};
use super::outbox::{GroupResponse, RequestId};
use super::record::{replay, Groups, Record};
use super::streams::manager::{StreamsManager, StreamsSide};

/// The group coordinator (see the module docs): a thin facade that owns the shared context and
/// the state of every group type, and lends them to one group type's manager per call.
///
/// # Example
///
/// A classic join round of two members (JoinGroup, then SyncGroup; every answer comes out of
/// [`GroupCoordinator::poll_response`] under the id given with its request), then a KIP-848
/// consumer joining a consumer group (`ConsumerGroupHeartbeat` until its assignment is stable).
/// The same program is `protocol/examples/coordinator.rs`.
///
/// ```
#[doc = include_str!("../../../examples/coordinator.rs")]
/// ```
#[derive(Debug)]
pub struct GroupCoordinator {
    ctx: Context,
    groups: Groups,
    types: Registry,
}

impl GroupCoordinator {
    /// A coordinator with no groups and no topics, the given consumer-group configuration and
    /// the default streams- and classic-group configurations.
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
            types: Registry {
                classic: ClassicSide::default(),
                consumer: ConsumerSide::new(config)?,
                streams: StreamsSide::default(),
            },
        })
    }

    /// A coordinator that takes over groups from their records (a restart or a move): replays
    /// them, sets the topic metadata (without emitting records) and re-arms the volatile timers
    /// of every group type (docs/coordinator.md, D6): a session timer from `now_ms` for every
    /// member, a rebalance timer for members that are revoking, a classic group's join or sync
    /// timer (§4.7).
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
        for t in c.types.all_mut() {
            t.rearm(&mut c.ctx, &mut c.groups, now_ms);
        }
        Ok(c)
    }

    /// The consumer groups' manager, lent the context for one call.
    fn consumer_manager(&mut self) -> ConsumerManager<'_> {
        ConsumerManager {
            ctx: &mut self.ctx,
            side: &mut self.types.consumer,
            groups: &mut self.groups.consumer,
        }
    }

    /// The streams groups' manager, lent the context for one call.
    fn streams_manager(&mut self) -> StreamsManager<'_> {
        self.types.streams.manager(&mut self.ctx, &mut self.groups)
    }

    /// The classic groups' manager, lent the context for one call at `now_ms`.
    fn classic_manager(&mut self, now_ms: i64) -> ClassicManager<'_> {
        self.types
            .classic
            .manager(&mut self.ctx, &mut self.groups, now_ms)
    }

    /// The consumer-group configuration.
    pub fn config(&self) -> &ConsumerGroupConfig {
        &self.types.consumer.config
    }

    /// Sets a consumer group's overrides of session timeout and heartbeat interval.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is outside the broker's [min, max].
    pub fn set_group_config(&mut self, group_id: &str, gc: GroupConfig) -> Result<(), ConfigError> {
        self.types.consumer.set_group_config(group_id, gc)
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

    /// Queues an immediate classic answer to request `id`.
    fn push(&mut self, id: RequestId, r: GroupResponse) {
        self.ctx.outbox.push(id, r);
    }
}

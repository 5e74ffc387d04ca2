#![doc = include_str!("../../docs/coordinator.md")]

// The shared pieces every group type imports (nothing above them).
mod commit;
mod context;
mod membership;
mod outbox;
mod overrides;
mod timers;

// The group types: each imports only the shared pieces and its own folder.
pub mod classic;
pub mod consumer;
pub mod streams;

// One record and one replay over the group types, the facade and its tests.
mod facade;
mod record;
#[cfg(test)]
mod tests;

pub use classic::{
    ClassicGroup, ClassicGroupConfig, ClassicGroupMember, ClassicGroupState, ClassicGroups,
    ClassicProtocol, ClassicRecord,
};
pub use consumer::assignor;
pub use consumer::{
    ClassicMemberMetadata, ConsumerGroup, ConsumerGroupConfig, ConsumerGroupMember, ConsumerGroups,
    ConsumerRecord, GroupConfig, GroupState, MemberState, MigrationPolicy, ResolvedRegex,
};
pub use context::{
    ConfigError, MemberIdGenerator, RequestContext, SequentialMemberIds, TopicMetadata,
};
pub use facade::GroupCoordinator;
pub use outbox::{GroupResponse, RequestId};
pub use record::{apply, replay, Groups, Output, Record, StreamsHeartbeatOutput};
pub use timers::TimerKind;

//! Server-side assignors for consumer groups (KIP-848): the [`ConsumerGroupAssignor`] trait and
//! its input and output. The built-in `uniform` and `range` assignors live in submodules.
//!
//! Behaviour target: docs/coordinator.md §1.9 (Kafka 4.2), with kwire's departure D5: the
//! assignor is a public trait, and tests may install their own.

pub mod range;
mod spec;
#[cfg(test)]
pub(crate) mod testkit;
pub mod uniform;

pub use range::RangeAssignor;
pub use spec::{
    Assignment, AssignorError, ConsumerGroupAssignor, GroupAssignment, GroupSpec, MemberSpec,
    SubscriptionType, TopicInfo, TopicsSpec,
};
pub use uniform::UniformAssignor;

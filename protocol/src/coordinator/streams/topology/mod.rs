//! The topology of a streams group (KIP-1071) and the configuration of its topics.
//!
//! A member sends its topology when it joins: a list of subtopologies, each naming the topics it
//! reads (external source topics and repartition source topics), the repartition topics it
//! writes, its state changelog topics and its copartition groups. [`configure`] checks that
//! topology against the topic metadata the caller knows and resolves every partition count
//! (docs/coordinator.md §2.4 step 3, the work of Kafka's `InternalTopicManager`):
//!
//! 1. a source topic missing from metadata gives status [`MISSING_SOURCE_TOPICS`];
//! 2. repartition topics get their partition counts (fixed in the topology, or derived from the
//!    topics of the subtopology that writes them), failing with [`InvalidTopology`] when that is
//!    impossible;
//! 3. copartition groups are enforced ([`INCORRECTLY_PARTITIONED_TOPICS`] on a violation);
//! 4. changelog topics get the task count of their subtopology;
//! 5. existing internal topics must have the expected count ([`INCORRECTLY_PARTITIONED_TOPICS`]);
//! 6. missing internal topics are listed for creation ([`MISSING_INTERNAL_TOPICS`]).
//!
//! The result, a [`ConfiguredTopology`], is *ready* when no status was raised. Everything is
//! deterministic: subtopologies are processed in ascending id order and every collection is a
//! `BTreeMap`, a `BTreeSet` or a sorted list.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.
//!
//! Layout: `model` (the topology as sent and persisted), `configured` (what configuring yields),
//! `counts` (steps 2 and 4), `copartition` (step 3), `configure` (the entry: steps 1, 5 and 6). Each imports only the modules listed before it.

mod configure;
mod configured;
mod copartition;
mod counts;
mod model;

pub use configure::configure;
pub use configured::{
    ConfiguredSubtopology, ConfiguredTopology, CreatableTopic, InvalidTopology, TopicStatus,
    INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS, MISSING_SOURCE_TOPICS,
};
pub use model::{CopartitionGroup, StreamsTopology, Subtopology, TopicInfo};

#[cfg(test)]
mod tests;

//! The broker's state: the services (cluster, topics and their logs, producer ids, committed
//! offsets, groups, configs) over one store, and the effects a request leaves. One [`State`]
//! sits behind the router's lock; every handler runs under that lock without awaiting.
//!
//! Operations that span services live here: creating topics (written, then added, then the
//! coordinator told), coordinator records (queued and read for the log), producer ids (a block
//! written first), partition end offsets.

use kwire_protocol::coordinator::Record;
use kwire_protocol::generated::kwire_partition_end_key::KwirePartitionEndKey;
use kwire_protocol::generated::kwire_partition_end_value::KwirePartitionEndValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::{self as topic_value, KwireTopicValue};
use kwire_protocol::wire::Uuid;

use super::cluster::Cluster;
use super::configs::describe::Configs;
use super::effects::Effects;
use super::groups::Groups;
use super::offsets::{CommittedOffset, Offsets};
use super::producers::ProducerIds;
use super::topics::table::TopicTable;
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::groups::{heartbeat_refused, Cause, GroupKind};
use crate::events::{topic_created, Refusal, TopicOrigin};
use crate::storage::entry::{Entry, PRODUCER_ID_BLOCK_TOPIC};
use crate::storage::error::StorageError;
use crate::storage::store::Store;
use crate::util::{random_uuid, uuid_from_name};

/// A topic to create: name, partition count, configs.
pub type NewTopic = (String, i32, Vec<(String, String)>);

/// The broker's mutable state (see the module docs).
#[derive(Debug)]
pub struct State {
    /// This broker: identity, address, settings.
    pub cluster: Cluster,
    /// Topics and their partition logs.
    pub topics: TopicTable,
    /// The producer id counter of InitProducerId.
    pub producer_ids: ProducerIds,
    /// Committed offsets by group.
    pub offsets: Offsets,
    /// The group coordinator and the classic requests waiting on it.
    pub groups: Groups,
    /// What DescribeConfigs reads.
    pub configs: Configs,
    /// The journal and the entries waiting for it.
    pub store: Store,
    /// What the current request leaves for the router (log lines, wake-ups).
    pub fx: Effects,
    /// Topic ids are random (with a data directory) rather than derived from the names.
    pub(super) random_topic_ids: bool,
}

impl State {
    /// Creates topics (the caller checked names, counts and that they are new): ids derived
    /// from the names, or random ones with a data directory; their entries are written first,
    /// together with whatever else is pending, and only then are they added to the table and
    /// the coordinator told ([`State::topics_changed`], whose records are queued for the next
    /// commit). Each creation is an INFO line with who asked (`origin`). Returns the ids, in
    /// order.
    ///
    /// # Errors
    /// The write failed: no topic was added.
    pub fn create_topics(
        &mut self,
        topics: Vec<NewTopic>,
        now: i64,
        origin: TopicOrigin<'_>,
    ) -> Result<Vec<Uuid>, StorageError> {
        let mut ids: Vec<Uuid> = Vec::with_capacity(topics.len());
        for (name, partitions, configs) in &topics {
            let mut id = if self.random_topic_ids {
                random_uuid()
            } else {
                uuid_from_name(name)
            };
            while self.topics.id_taken(&id) || ids.contains(&id) {
                id = random_uuid();
            }
            ids.push(id);
            self.store
                .queue(topic_entry(name, id, *partitions, configs));
        }
        self.store.commit()?;
        for ((name, partitions, configs), id) in topics.into_iter().zip(&ids) {
            self.fx.event(topic_created(&name, partitions, id, origin));
            self.topics.insert(&name, *id, partitions, configs);
        }
        if !ids.is_empty() {
            self.topics_changed(now);
        }
        Ok(ids)
    }

    /// Tells the coordinator the topic metadata changed
    /// ([`GroupCoordinator::set_topics`](kwire_protocol::coordinator::GroupCoordinator::set_topics))
    /// and queues the records that follow; the timer task looks again afterwards.
    pub fn topics_changed(&mut self, now: i64) {
        self.fx.timers = true;
        let records = self
            .groups
            .coordinator
            .set_topics(self.topics.metadata(), now);
        self.queue_records(records, Cause::TopicsChanged);
    }

    /// Queues coordinator records for the next commit, with the INFO lines of the group changes
    /// they describe (`cause`: what made the coordinator write them).
    pub fn queue_records(&mut self, records: Vec<Record>, cause: Cause<'_>) {
        self.groups
            .record(records, cause, &mut self.store, &mut self.fx);
    }

    /// Takes in a consumer or streams heartbeat's answer: the line of a fenced member or a
    /// refused heartbeat (`api`, `kind`; `(group, member, member epoch)` are the request's), and
    /// the coordinator's records, queued with their group lines.
    pub fn heartbeat_answered(
        &mut self,
        ctx: &Ctx<'_>,
        (api, kind): (ApiKey, GroupKind),
        (group, member, epoch): (&str, &str, i32),
        refusal: Refusal<'_>,
        records: Vec<Record>,
    ) {
        let line = heartbeat_refused(ctx, api, kind, (group, member, epoch), refusal);
        self.fx.events.extend(line);
        let cause = Cause::Heartbeat {
            member_id: member,
            member_epoch: epoch,
        };
        self.queue_records(records, cause);
    }

    /// Stores committed offsets of `group`: written first, applied once written.
    ///
    /// # Errors
    /// The write failed: nothing was stored.
    pub fn commit_offsets(
        &mut self,
        group: &str,
        commits: Vec<(String, i32, CommittedOffset)>,
    ) -> Result<(), StorageError> {
        self.offsets.commit(&mut self.store, group, commits)
    }

    /// Deletes every committed offset of `group` (tombstones queued for the next commit).
    pub fn delete_offsets(&mut self, group: &str) {
        self.offsets.delete_group(&mut self.store, group);
    }

    /// A new producer id for InitProducerId (ids count up from 0 and are never given twice).
    /// With a data directory, the end of the next block of
    /// [`PRODUCER_ID_BLOCK`](super::producers::PRODUCER_ID_BLOCK) ids is written first whenever
    /// the current block is used up, together with whatever else is pending.
    ///
    /// # Errors
    /// That write failed: no id was given.
    pub fn new_producer_id(&mut self) -> Result<i64, StorageError> {
        if self.store.is_durable() && self.producer_ids.needs_block() {
            let end = self.producer_ids.next_block_end();
            self.store
                .queue(partition_end_entry(PRODUCER_ID_BLOCK_TOPIC, -1, end));
            self.store.commit()?;
            self.producer_ids.reserve(end);
        }
        Ok(self.producer_ids.take())
    }

    /// Queues a partition's end offset (the next offset it assigns) for the next commit.
    pub fn queue_partition_end(&mut self, topic: &str, partition: i32, end_offset: i64) {
        self.store
            .queue(partition_end_entry(topic, partition, end_offset));
    }

    /// Writes what the request queued ([`Store::commit`]).
    ///
    /// # Errors
    /// The write failed.
    pub fn commit(&mut self) -> Result<(), StorageError> {
        self.store.commit()
    }
}

/// The journal entry of a new topic.
fn topic_entry(name: &str, id: Uuid, partitions: i32, configs: &[(String, String)]) -> Entry {
    Entry::Topic(
        KwireTopicKey {
            name: name.to_string().into(),
        },
        Some(KwireTopicValue {
            topic_id: id,
            partitions,
            configs: configs
                .iter()
                .map(|(k, v)| topic_value::KeyValue {
                    key: k.clone().into(),
                    value: v.clone().into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
    )
}

/// The journal entry of a partition's end offset.
fn partition_end_entry(topic: &str, partition: i32, end_offset: i64) -> Entry {
    Entry::PartitionEnd(
        KwirePartitionEndKey {
            topic: topic.to_string().into(),
            partition,
        },
        Some(KwirePartitionEndValue {
            end_offset,
            ..Default::default()
        }),
    )
}

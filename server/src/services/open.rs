//! Opening the state: the journal replayed (topics first, then the coordinator's records
//! through [`GroupCoordinator::load`], then the committed offsets and partition end offsets),
//! then the `--topic`s the journal does not have created.

use std::collections::{BTreeMap, HashMap};

use kwire_protocol::coordinator::{GroupCoordinator, Record};

use super::cluster::Cluster;
use super::configs::describe::Configs;
use super::effects::Effects;
use super::groups::Groups;
use super::offsets::{CommittedOffset, GroupOffsets, Offsets};
use super::producers::ProducerIds;
use super::state::{NewTopic, State};
use super::topics::log::PartitionLog;
use super::topics::table::TopicTable;
use crate::config::ServerConfig;
use crate::events::TopicOrigin;
use crate::storage::entry::{Entry, PRODUCER_ID_BLOCK_TOPIC};
use crate::storage::error::{LogError, StorageError};
use crate::storage::store::Store;
use crate::util::{now_ms, RandomMemberIds};

/// A failure to start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The group configuration is invalid.
    #[error(transparent)]
    Config(#[from] kwire_protocol::coordinator::ConfigError),
    /// The durable log cannot be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The configuration is invalid.
    #[error("invalid configuration: {0}")]
    Invalid(String),
    /// The durable log cannot be written at start.
    #[error("cannot write the durable log: {0}")]
    Storage(StorageError),
    /// The listener cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The error.
        source: std::io::Error,
    },
}

/// What the journal's entries add up to.
#[derive(Default)]
struct Replayed {
    topics: TopicTable,
    records: Vec<Record>,
    offsets: HashMap<String, GroupOffsets>,
    ends: BTreeMap<(String, i32), i64>,
    producer_id_end: i64,
}

impl Replayed {
    /// Takes in one entry.
    fn apply(&mut self, e: Entry) {
        match e {
            Entry::Topic(k, Some(v)) => {
                if self.topics.get(&k.name).is_none() && !self.topics.id_taken(&v.topic_id) {
                    let configs = v
                        .configs
                        .iter()
                        .map(|c| (c.key.to_string(), c.value.to_string()))
                        .collect();
                    self.topics
                        .insert(&k.name, v.topic_id, v.partitions, configs);
                }
            }
            Entry::Topic(_, None) => {}
            Entry::PartitionEnd(k, Some(v)) if &*k.topic == PRODUCER_ID_BLOCK_TOPIC => {
                self.producer_id_end = self.producer_id_end.max(v.end_offset);
            }
            Entry::PartitionEnd(k, v) => {
                let key = (k.topic.to_string(), k.partition);
                match v {
                    Some(v) => {
                        self.ends.insert(key, v.end_offset);
                    }
                    None => {
                        self.ends.remove(&key);
                    }
                }
            }
            Entry::Group(r) => self.records.push(r),
            Entry::Offset(k, v) => {
                let group = self.offsets.entry(k.group_id.to_string()).or_default();
                let key = (k.topic.to_string(), k.partition);
                match v {
                    Some(v) => {
                        group.insert(
                            key,
                            CommittedOffset {
                                offset: v.offset,
                                leader_epoch: v.leader_epoch,
                                metadata: v.metadata.map(|m| m.to_string()),
                                commit_timestamp_ms: v.commit_timestamp_ms,
                            },
                        );
                    }
                    None => {
                        group.remove(&key);
                    }
                }
            }
        }
    }

    /// Produced records are not kept, but offsets continue where they ended (the producer
    /// state goes with the records: see the producers service).
    fn restore_ends(&mut self) {
        for ((topic, partition), end) in std::mem::take(&mut self.ends) {
            if let Some(log) = self
                .topics
                .get_mut(&topic)
                .and_then(|t| t.partition_mut(partition))
            {
                *log = PartitionLog::starting_at(end.max(0));
            }
        }
    }
}

impl State {
    /// Opens the state: replays the journal of `config.data_dir` (see the module docs), then
    /// creates the `config.topics` it does not have. The INFO lines of the creations are in
    /// [`State::fx`].
    ///
    /// # Errors
    /// An invalid group configuration, a journal that cannot be read or written, or a
    /// `--topic` whose name collides with a replayed topic's.
    pub fn open(config: &ServerConfig) -> Result<State, StartError> {
        let consumer = config.consumer_group_config()?;
        let streams = config.streams_group_config()?;
        let now = now_ms();
        let (store, entries) = Store::open(config.data_dir.as_deref())?;
        let mut replayed = Replayed::default();
        for e in entries {
            replayed.apply(e);
        }
        replayed.restore_ends();
        let mut coordinator = GroupCoordinator::load(
            consumer,
            Box::new(RandomMemberIds),
            replayed.topics.metadata(),
            &replayed.records,
            now,
        )?;
        coordinator.set_streams_config(streams)?;
        coordinator.set_classic_config(config.classic_group_config()?)?;
        // Groups known only from their committed offsets are Kafka's empty classic groups; a
        // log written before classic groups existed has no record of them.
        for (g, o) in &replayed.offsets {
            if !o.is_empty() {
                let _ = coordinator.ensure_simple_group(g, now);
            }
        }
        let mut state = State {
            cluster: Cluster::new(config),
            topics: replayed.topics,
            producer_ids: ProducerIds::starting_at(replayed.producer_id_end),
            offsets: Offsets::from_replay(replayed.offsets),
            groups: Groups::new(coordinator, &replayed.records),
            configs: Configs::new(config),
            random_topic_ids: store.is_durable(),
            store,
            fx: Effects::default(),
        };
        state.create_configured_topics(config, now)?;
        state.commit().map_err(StartError::Storage)?;
        Ok(state)
    }

    /// Creates the `--topic`s the journal does not have (one with another partition count is
    /// kept as it is, with a warning).
    fn create_configured_topics(
        &mut self,
        config: &ServerConfig,
        now: i64,
    ) -> Result<(), StartError> {
        let mut create: Vec<NewTopic> = Vec::new();
        for (name, parts) in &config.topics {
            if create.iter().any(|(n, ..)| n == name) {
                continue;
            }
            match self.topics.get(name) {
                Some(t) if t.partitions.len() != *parts as usize => {
                    tracing::warn!(topic = %name, kept = t.partitions.len(), asked = parts, "topic exists with another partition count; kept as it is");
                }
                Some(_) => {}
                None => {
                    if let Some(other) = self.topics.colliding(name) {
                        return Err(StartError::Invalid(format!(
                            "topic {name} collides with the existing topic {other} ('.' and '_' collide)"
                        )));
                    }
                    create.push((name.clone(), *parts, Vec::new()));
                }
            }
        }
        if !create.is_empty() {
            self.create_topics(create, now, TopicOrigin::Config)
                .map_err(StartError::Storage)?;
        }
        Ok(())
    }
}

//! The broker's state: topics and their logs, committed offsets, the group coordinator, and the
//! durable log they are written to. One [`Broker`] sits behind a mutex in [`Shared`]; every
//! request handler runs under that lock without awaiting, and writes the records it produced with
//! one append before its response is sent ([`Broker::commit`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use kwire_protocol::coordinator::{GroupCoordinator, Record};
use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::{self as topic_value, KwireTopicValue};
use kwire_protocol::wire::Uuid;
use tokio::sync::{watch, Notify};

use crate::config::ServerConfig;
use crate::durable::{DurableLog, Entry, LogError};
use crate::topics::{Topic, TopicTable};
use crate::util::{now_ms, random_uuid, uuid_from_name, RandomMemberIds};

/// Node id of this broker (and of the controller).
pub const NODE_ID: i32 = 1;

/// One committed offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    /// The offset.
    pub offset: i64,
    /// The leader epoch the client sent (-1: none).
    pub leader_epoch: i32,
    /// The client's metadata string.
    pub metadata: Option<String>,
    /// When it was committed (ms since the epoch).
    pub commit_timestamp_ms: i64,
}

/// Committed offsets of one group, by (topic, partition).
pub type GroupOffsets = BTreeMap<(String, i32), CommittedOffset>;

/// A failure to start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The group configuration is invalid.
    #[error(transparent)]
    Config(#[from] kwire_protocol::coordinator::ConfigError),
    /// The durable log cannot be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The listener cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The error.
        source: std::io::Error,
    },
}

/// The broker's mutable state (see the module docs).
#[derive(Debug)]
pub struct Broker {
    /// Topics and their partition logs.
    pub topics: TopicTable,
    /// The consumer- and streams-group coordinator.
    pub coordinator: GroupCoordinator,
    /// Committed offsets by group.
    pub offsets: HashMap<String, GroupOffsets>,
    /// The advertised host of broker 1.
    pub host: String,
    /// The advertised port of broker 1.
    pub port: i32,
    /// The cluster id reported in Metadata.
    pub cluster_id: String,
    log: Option<DurableLog>,
    pending: Vec<Entry>,
    random_topic_ids: bool,
}

impl Broker {
    /// Opens the broker: replays the durable log of `config.data_dir` (topics first, then the
    /// coordinator records through [`GroupCoordinator::load`], then the offsets), then creates
    /// the `config.topics` the log does not have.
    ///
    /// # Errors
    /// An invalid group configuration, or a log that cannot be read or written.
    pub fn open(config: &ServerConfig) -> Result<Broker, StartError> {
        let consumer = config.consumer_group_config()?;
        let streams = config.streams_group_config()?;
        let now = now_ms();
        let (log, entries) = match &config.data_dir {
            Some(dir) => {
                let (log, replay) = DurableLog::open(dir)?;
                if let Some(torn) = &replay.torn {
                    tracing::warn!(file = %log.path().display(), %torn, "ignored the torn tail of the durable log");
                }
                if replay.skipped > 0 {
                    tracing::warn!(
                        skipped = replay.skipped,
                        "skipped log entries of unknown types"
                    );
                }
                tracing::info!(file = %log.path().display(), entries = replay.entries.len(), "replayed the durable log");
                (Some(log), replay.entries)
            }
            None => (None, Vec::new()),
        };
        let mut topics = TopicTable::default();
        let mut records: Vec<Record> = Vec::new();
        let mut offsets: HashMap<String, GroupOffsets> = HashMap::new();
        for e in entries {
            match e {
                Entry::Topic(k, Some(v)) => {
                    if topics.get(&k.name).is_none() && !topics.id_taken(&v.topic_id) {
                        let configs = v
                            .configs
                            .iter()
                            .map(|c| (c.key.to_string(), c.value.to_string()))
                            .collect();
                        topics.insert(&k.name, v.topic_id, v.partitions, configs);
                    }
                }
                Entry::Topic(_, None) => {}
                Entry::Group(r) => records.push(r),
                Entry::Offset(k, v) => {
                    let group = offsets.entry(k.group_id.to_string()).or_default();
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
        let mut coordinator = GroupCoordinator::load(
            consumer,
            Box::new(RandomMemberIds),
            topics.metadata(),
            &records,
            now,
        )?;
        coordinator.set_streams_config(streams)?;
        let mut broker = Broker {
            topics,
            coordinator,
            offsets,
            host: String::new(),
            port: 0,
            cluster_id: uuid_from_name("kwire-cluster").to_string(),
            log,
            pending: Vec::new(),
            random_topic_ids: config.data_dir.is_some(),
        };
        let mut created = false;
        for (name, parts) in &config.topics {
            match broker.topics.get(name) {
                Some(t) if t.partitions.len() != *parts as usize => {
                    tracing::warn!(topic = %name, kept = t.partitions.len(), asked = parts, "topic exists with another partition count; kept as it is");
                }
                Some(_) => {}
                None => {
                    broker.add_topic(name, *parts, Vec::new());
                    created = true;
                }
            }
        }
        if created {
            broker.topics_changed(now);
        }
        broker.commit();
        Ok(broker)
    }

    /// Adds a topic to the table (an id derived from the name, or a random one with a data
    /// directory) and queues its log entry. The caller checked the name; call
    /// [`Broker::topics_changed`] after a batch of these.
    pub fn add_topic(
        &mut self,
        name: &str,
        partitions: i32,
        configs: Vec<(String, String)>,
    ) -> &Topic {
        let mut id = if self.random_topic_ids {
            random_uuid()
        } else {
            uuid_from_name(name)
        };
        while self.topics.id_taken(&id) {
            id = random_uuid();
        }
        self.pending.push(Entry::Topic(
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
        ));
        tracing::info!(topic = %name, partitions, id = %id, "created topic");
        self.topics.insert(name, id, partitions, configs)
    }

    /// Tells the coordinator the topic metadata changed ([`GroupCoordinator::set_topics`]) and
    /// queues the records that follows.
    pub fn topics_changed(&mut self, now: i64) {
        let records = self.coordinator.set_topics(self.topics.metadata(), now);
        self.queue_records(records);
    }

    /// Queues coordinator records for the next [`Broker::commit`].
    pub fn queue_records(&mut self, records: Vec<Record>) {
        self.pending.extend(records.into_iter().map(Entry::Group));
    }

    /// Stores a committed offset and queues its log entry.
    pub fn store_offset(&mut self, group: &str, topic: &str, partition: i32, c: CommittedOffset) {
        self.pending.push(Entry::Offset(
            KwireCommittedOffsetKey {
                group_id: group.to_string().into(),
                topic: topic.to_string().into(),
                partition,
            },
            Some(KwireCommittedOffsetValue {
                offset: c.offset,
                leader_epoch: c.leader_epoch,
                metadata: c.metadata.clone().map(Into::into),
                commit_timestamp_ms: c.commit_timestamp_ms,
                ..Default::default()
            }),
        ));
        self.offsets
            .entry(group.to_string())
            .or_default()
            .insert((topic.to_string(), partition), c);
    }

    /// Whether anything waits for [`Broker::commit`].
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Writes the queued entries to the durable log with one write (a no-op without a data
    /// directory). A write error is logged; the in-memory state stays as it is.
    pub fn commit(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let entries = std::mem::take(&mut self.pending);
        if let Some(log) = &mut self.log {
            if let Err(e) = log.append(&entries) {
                tracing::error!(error = %e, entries = entries.len(), "cannot append to the durable log");
            }
        }
    }

    /// The topic with id `id`.
    pub fn topic_by_id(&self, id: &Uuid) -> Option<&Topic> {
        self.topics.by_id(id)
    }
}

/// What every connection shares: the broker behind its lock and the wake-up channels.
#[derive(Debug)]
pub struct Shared {
    /// The broker state.
    pub broker: Mutex<Broker>,
    /// The configuration.
    pub config: ServerConfig,
    /// Bumped after every produce that appended records; parked fetches watch it.
    pub produced: watch::Sender<u64>,
    /// Woken when the coordinator's timers may have changed.
    pub timers: Notify,
}

impl Shared {
    /// Wraps an opened broker.
    pub fn new(broker: Broker, config: ServerConfig) -> Self {
        Shared {
            broker: Mutex::new(broker),
            config,
            produced: watch::channel(0).0,
            timers: Notify::new(),
        }
    }

    /// Locks the broker (a poisoned lock is taken over: handlers never leave state half-changed
    /// across a panic point they could reach, and the server must keep serving).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Broker> {
        self.broker.lock().unwrap_or_else(|p| p.into_inner())
    }
}

//! The broker's state: topics and their logs, committed offsets, the group coordinator, and the
//! durable log they are written to. One [`Broker`] sits behind a mutex in [`Shared`]; every
//! request handler runs under that lock without awaiting, and writes the records it produced with
//! one append before its response is sent ([`Broker::commit`]).
//!
//! # When a write fails
//!
//! A failed append (e.g. ENOSPC) is cut off the file by [`DurableLog`]; what happens to the state
//! depends on what was written:
//! - committed offsets, topics and partition end offsets are written *before* they are applied
//!   (or, for produced records, undone on failure), so the request is answered with an error
//!   (KAFKA_STORAGE_ERROR; NOT_COORDINATOR for OffsetCommit, as Kafka's group coordinator
//!   translates it) and nothing changes;
//! - coordinator records are applied by the coordinator when it emits them and cannot be rolled
//!   back. A failure to write them leaves the state in memory ahead of the file, so the durable
//!   state is marked broken: the request is answered with NOT_COORDINATOR, nothing more is written,
//!   and the server stops ([`Broker::fatal`], then `Server::run` returns the error and the binary
//!   exits with status 1). A restart replays the file, which holds only whole entries.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use kwire_protocol::coordinator::{GroupCoordinator, GroupResponse, Record, RequestId};
use kwire_protocol::generated::kwire_committed_offset_key::KwireCommittedOffsetKey;
use kwire_protocol::generated::kwire_committed_offset_value::KwireCommittedOffsetValue;
use kwire_protocol::generated::kwire_partition_end_key::KwirePartitionEndKey;
use kwire_protocol::generated::kwire_partition_end_value::KwirePartitionEndValue;
use kwire_protocol::generated::kwire_topic_key::KwireTopicKey;
use kwire_protocol::generated::kwire_topic_value::{self as topic_value, KwireTopicValue};
use kwire_protocol::wire::Uuid;
use tokio::sync::oneshot;
use tokio::sync::{watch, Notify, Semaphore};

use crate::config::ServerConfig;
use crate::durable::{DurableLog, Entry, LogError, PRODUCER_ID_BLOCK_TOPIC};
use crate::events::{self, Cause, GroupLog, TopicOrigin};
use crate::producers::ProducerIds;
use crate::topics::{PartitionLog, Topic, TopicTable};
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

/// A durable write that failed (the request's change is not in the log).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StorageError(pub String);

/// A topic to create: name, partition count, configs.
pub type NewTopic = (String, i32, Vec<(String, String)>);

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
    /// The producer id counter of InitProducerId.
    pub producer_ids: ProducerIds,
    /// Partitions of the topics Metadata creates, when it creates them (`None`: auto-creation
    /// is off); also the count for CreateTopics' NumPartitions -1 (see
    /// [`Broker::default_partitions`]).
    pub auto_create_partitions: Option<i32>,
    /// Kafka's `num.partitions`.
    pub default_partitions: i32,
    /// The most bytes a produced batch's records may decompress to when it is checked: the
    /// largest request frame (`--max-frame-bytes`), so compression never lets a batch hold more
    /// than an uncompressed one could.
    pub max_decompressed_bytes: usize,
    log: Option<DurableLog>,
    pending: Vec<Entry>,
    random_topic_ids: bool,
    /// Why nothing more may be written (the durable state is broken, or the server stopped).
    broken: Option<String>,
    /// Set (once) when the durable state breaks: the server stops.
    fatal: watch::Sender<Option<String>>,
    /// Failed commits so far.
    write_failures: u64,
    /// The group changes already logged (see [`crate::events`]).
    group_log: GroupLog,
    /// Classic group requests waiting for their answer (JoinGroup, SyncGroup, ...): filled by
    /// [`Broker::drain_group_responses`] after every call into the coordinator.
    waiting: HashMap<RequestId, oneshot::Sender<GroupResponse>>,
    /// The next [`RequestId`] to give out.
    next_request_id: u64,
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
        let mut ends: BTreeMap<(String, i32), i64> = BTreeMap::new();
        let mut producer_id_end = 0i64;
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
                Entry::PartitionEnd(k, Some(v)) if &*k.topic == PRODUCER_ID_BLOCK_TOPIC => {
                    producer_id_end = producer_id_end.max(v.end_offset);
                }
                Entry::PartitionEnd(k, v) => {
                    let key = (k.topic.to_string(), k.partition);
                    match v {
                        Some(v) => {
                            ends.insert(key, v.end_offset);
                        }
                        None => {
                            ends.remove(&key);
                        }
                    }
                }
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
        // Produced records are not kept, but offsets continue where they ended (the producer
        // state goes with the records: see `crate::producers`).
        for ((topic, partition), end) in ends {
            if let Some(log) = topics
                .get_mut(&topic)
                .and_then(|t| t.partition_mut(partition))
            {
                *log = PartitionLog::starting_at(end.max(0));
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
        coordinator.set_classic_config(config.classic_group_config()?)?;
        // Groups known only from their committed offsets are Kafka's empty classic groups; a
        // log written before classic groups existed has no record of them.
        for (g, o) in &offsets {
            if !o.is_empty() {
                let _ = coordinator.ensure_simple_group(g, now);
            }
        }
        let mut group_log = GroupLog::default();
        group_log.seed(&records);
        let mut broker = Broker {
            topics,
            coordinator,
            offsets,
            host: String::new(),
            port: 0,
            cluster_id: uuid_from_name("kwire-cluster").to_string(),
            producer_ids: ProducerIds::starting_at(producer_id_end),
            auto_create_partitions: config
                .auto_create_topics
                .then_some(config.default_partitions),
            default_partitions: config.default_partitions,
            max_decompressed_bytes: config.max_frame_bytes,
            log,
            pending: Vec::new(),
            random_topic_ids: config.data_dir.is_some(),
            broken: None,
            fatal: watch::channel(None).0,
            write_failures: 0,
            group_log,
            waiting: HashMap::new(),
            next_request_id: 0,
        };
        let mut create: Vec<NewTopic> = Vec::new();
        for (name, parts) in &config.topics {
            if create.iter().any(|(n, ..)| n == name) {
                continue;
            }
            match broker.topics.get(name) {
                Some(t) if t.partitions.len() != *parts as usize => {
                    tracing::warn!(topic = %name, kept = t.partitions.len(), asked = parts, "topic exists with another partition count; kept as it is");
                }
                Some(_) => {}
                None => {
                    if let Some(other) = broker.topics.colliding(name) {
                        return Err(StartError::Invalid(format!(
                            "topic {name} collides with the existing topic {other} ('.' and '_' collide)"
                        )));
                    }
                    create.push((name.clone(), *parts, Vec::new()));
                }
            }
        }
        if !create.is_empty() {
            broker
                .create_topics(create, now, TopicOrigin::Config)
                .map_err(StartError::Storage)?;
        }
        broker.commit().map_err(StartError::Storage)?;
        Ok(broker)
    }

    /// Creates topics (the caller checked names, counts and that they are new): ids derived
    /// from the names, or random ones with a data directory; their log entries are written first,
    /// together with whatever else is pending, and only then are they added to the table and the
    /// coordinator told ([`Broker::topics_changed`], whose records are queued for the next
    /// commit). Each creation is logged at INFO with who asked (`origin`). Returns the ids, in
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
            self.pending.push(Entry::Topic(
                KwireTopicKey {
                    name: name.clone().into(),
                },
                Some(KwireTopicValue {
                    topic_id: id,
                    partitions: *partitions,
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
        }
        self.commit()?;
        for ((name, partitions, configs), id) in topics.into_iter().zip(&ids) {
            events::topic_created(&name, partitions, id, origin);
            self.topics.insert(&name, *id, partitions, configs);
        }
        if !ids.is_empty() {
            self.topics_changed(now);
        }
        Ok(ids)
    }

    /// Tells the coordinator the topic metadata changed ([`GroupCoordinator::set_topics`]) and
    /// queues the records that follows.
    pub fn topics_changed(&mut self, now: i64) {
        let records = self.coordinator.set_topics(self.topics.metadata(), now);
        self.queue_records(records, Cause::TopicsChanged);
    }

    /// Queues coordinator records for the next [`Broker::commit`], and logs at INFO the group
    /// changes they describe (`cause`: what made the coordinator write them; see
    /// [`crate::events`]).
    pub fn queue_records(&mut self, records: Vec<Record>, cause: Cause<'_>) {
        for line in self.group_log.observe(&records, cause) {
            tracing::info!("{line}");
        }
        self.pending.extend(records.into_iter().map(Entry::Group));
    }

    /// A new classic request id and the receiver its answer will come through (see
    /// [`Broker::drain_group_responses`]).
    pub fn wait_group_response(&mut self) -> (RequestId, oneshot::Receiver<GroupResponse>) {
        self.next_request_id += 1;
        let id = RequestId(self.next_request_id);
        let (tx, rx) = oneshot::channel();
        self.waiting.insert(id, tx);
        (id, rx)
    }

    /// Hands every classic answer the coordinator has ready to the request waiting for it
    /// (an answer whose connection is gone is dropped). Called after every call into the
    /// coordinator: each request, and each run of the timers.
    pub fn drain_group_responses(&mut self) {
        while let Some((id, r)) = self.coordinator.poll_response() {
            if let Some(tx) = self.waiting.remove(&id) {
                let _ = tx.send(r);
            }
        }
    }

    /// Stores committed offsets of `group` (topic, partition, offset): written first, applied
    /// once written.
    ///
    /// # Errors
    /// The write failed: nothing was stored.
    pub fn commit_offsets(
        &mut self,
        group: &str,
        commits: Vec<(String, i32, CommittedOffset)>,
    ) -> Result<(), StorageError> {
        if commits.is_empty() {
            return Ok(());
        }
        for (topic, partition, c) in &commits {
            self.pending.push(Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: group.to_string().into(),
                    topic: topic.clone().into(),
                    partition: *partition,
                },
                Some(KwireCommittedOffsetValue {
                    offset: c.offset,
                    leader_epoch: c.leader_epoch,
                    metadata: c.metadata.clone().map(Into::into),
                    commit_timestamp_ms: c.commit_timestamp_ms,
                    ..Default::default()
                }),
            ));
        }
        self.commit()?;
        let offsets = self.offsets.entry(group.to_string()).or_default();
        for (topic, partition, c) in commits {
            offsets.insert((topic, partition), c);
        }
        Ok(())
    }

    /// Deletes every committed offset of `group` (DeleteGroups): tombstones queued for the next
    /// [`Broker::commit`], the offsets gone at once.
    pub fn delete_offsets(&mut self, group: &str) {
        let Some(offsets) = self.offsets.remove(group) else {
            return;
        };
        let mut keys: Vec<(String, i32)> = offsets.into_keys().collect();
        keys.sort();
        for (topic, partition) in keys {
            self.pending.push(Entry::Offset(
                KwireCommittedOffsetKey {
                    group_id: group.to_string().into(),
                    topic: topic.into(),
                    partition,
                },
                None,
            ));
        }
    }

    /// A new producer id for InitProducerId (ids count up from 0 and are never given twice).
    /// With a data directory, the end of the next block of
    /// [`PRODUCER_ID_BLOCK`](crate::producers::PRODUCER_ID_BLOCK) ids is written
    /// first whenever the current block is used up ([`ProducerIds`]), together with whatever
    /// else is pending.
    ///
    /// # Errors
    /// That write failed: no id was given.
    pub fn new_producer_id(&mut self) -> Result<i64, StorageError> {
        if self.log.is_some() && self.producer_ids.needs_block() {
            let end = self.producer_ids.next_block_end();
            self.pending.push(Entry::PartitionEnd(
                KwirePartitionEndKey {
                    topic: PRODUCER_ID_BLOCK_TOPIC.into(),
                    partition: -1,
                },
                Some(KwirePartitionEndValue {
                    end_offset: end,
                    ..Default::default()
                }),
            ));
            self.commit()?;
            self.producer_ids.reserve(end);
        }
        Ok(self.producer_ids.take())
    }

    /// Whether a data directory is written (else nothing survives a restart and no write fails).
    pub fn is_durable(&self) -> bool {
        self.log.is_some()
    }

    /// Queues a partition's end offset (the next offset it assigns) for the next commit.
    pub fn queue_partition_end(&mut self, topic: &str, partition: i32, end_offset: i64) {
        self.pending.push(Entry::PartitionEnd(
            KwirePartitionEndKey {
                topic: topic.to_string().into(),
                partition,
            },
            Some(KwirePartitionEndValue {
                end_offset,
                ..Default::default()
            }),
        ));
    }

    /// Whether anything waits for [`Broker::commit`].
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Writes the queued entries to the durable log with one write (a no-op without a data
    /// directory). When the write fails (or the durable state is already broken) nothing is
    /// written; if the entries held coordinator records, the durable state is now broken (see
    /// the module docs): the error is logged, nothing more is written, and [`Broker::fatal`]
    /// fires.
    ///
    /// # Errors
    /// The write failed; the caller answers with an error and undoes what it can.
    pub fn commit(&mut self) -> Result<(), StorageError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let entries = std::mem::take(&mut self.pending);
        let result = match (&self.broken, &mut self.log) {
            (Some(reason), _) => Err(StorageError(format!(
                "the durable log is out of service: {reason}"
            ))),
            (None, None) => return Ok(()),
            (None, Some(log)) => log
                .append(&entries)
                .map_err(|e| StorageError(e.to_string())),
        };
        if let Err(e) = &result {
            self.write_failures += 1;
            let group_records = entries.iter().any(|e| matches!(e, Entry::Group(_)));
            if self.broken.is_none() && group_records {
                let reason = format!(
                    "coordinator records could not be written ({e}): the group state in memory is ahead of the durable log and cannot be rolled back"
                );
                tracing::error!(%reason, "DURABLE STATE BROKEN: the server stops");
                self.broken = Some(reason.clone());
                self.fatal.send_replace(Some(reason));
            } else {
                tracing::error!(error = %e, entries = entries.len(), "cannot append to the durable log; the request fails");
            }
        }
        result
    }

    /// Failed commits so far.
    pub fn write_failures(&self) -> u64 {
        self.write_failures
    }

    /// Watches for the durable state to break (`Some(reason)`): the server must stop.
    pub fn fatal(&self) -> watch::Receiver<Option<String>> {
        self.fatal.subscribe()
    }

    /// Closes the durable log (releasing the data directory's lock); later writes fail.
    pub fn close(&mut self) {
        if self.log.take().is_some() && self.broken.is_none() {
            self.broken = Some("the server stopped".into());
        }
    }

    /// The durable log, for tests that inject failures.
    #[cfg(test)]
    pub(crate) fn log_mut(&mut self) -> Option<&mut DurableLog> {
        self.log.as_mut()
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
    /// The server-wide budget of bytes of answers queued and not yet written
    /// (`max_queued_bytes_total` permits; see [`crate::conn`]).
    pub queued: Arc<Semaphore>,
    /// Counters.
    pub stats: Stats,
}

/// Counters of the server's activity.
#[derive(Debug)]
pub struct Stats {
    /// Requests decoded and handled.
    pub requests: AtomicU64,
    /// Times a connection's reader stopped reading because its answers, or all connections'
    /// answers, held their byte budget.
    pub read_pauses: watch::Sender<u64>,
}

impl Shared {
    /// Wraps an opened broker.
    pub fn new(broker: Broker, config: ServerConfig) -> Self {
        Shared {
            broker: Mutex::new(broker),
            produced: watch::channel(0).0,
            timers: Notify::new(),
            queued: Arc::new(Semaphore::new(config.max_queued_bytes_total.max(1))),
            stats: Stats {
                requests: AtomicU64::new(0),
                read_pauses: watch::channel(0).0,
            },
            config,
        }
    }

    /// Locks the broker (a poisoned lock is taken over: handlers never leave state half-changed
    /// across a panic point they could reach, and the server must keep serving).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Broker> {
        self.broker.lock().unwrap_or_else(|p| p.into_inner())
    }
}

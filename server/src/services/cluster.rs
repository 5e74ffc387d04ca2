//! This one-broker cluster: its node id, cluster id and advertised address, and the settings
//! the handlers read (topic auto-creation and defaults, the decompression limit, the longest
//! Fetch wait).

use crate::config::ServerConfig;
use crate::util::uuid_from_name;

/// Node id of this broker (and of the controller).
pub const NODE_ID: i32 = 1;

/// The broker's identity and settings.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The advertised host of broker 1 (set once the listener is bound).
    pub host: String,
    /// The advertised port of broker 1 (set once the listener is bound).
    pub port: i32,
    /// The cluster id reported in Metadata, DescribeCluster and checked by ApiVersions v5: the
    /// same in every run.
    pub cluster_id: String,
    /// Partitions of the topics Metadata creates, when it creates them (`None`: auto-creation
    /// is off, Kafka's `auto.create.topics.enable=false`).
    pub auto_create_partitions: Option<i32>,
    /// Kafka's `num.partitions`: also the count for CreateTopics' NumPartitions -1.
    pub default_partitions: i32,
    /// The most bytes a produced batch's records may decompress to when it is checked: the
    /// largest request frame (`--max-frame-bytes`), so compression never lets a batch hold more
    /// than an uncompressed one could.
    pub max_decompressed_bytes: usize,
    /// Longest a Fetch is held (ms), whatever its MaxWaitMs.
    pub max_fetch_wait_ms: u64,
}

impl Cluster {
    /// The settings of `config`, not yet bound to an address.
    pub fn new(config: &ServerConfig) -> Self {
        Cluster {
            host: String::new(),
            port: 0,
            cluster_id: uuid_from_name("kwire-cluster").to_string(),
            auto_create_partitions: config
                .auto_create_topics
                .then_some(config.default_partitions),
            default_partitions: config.default_partitions,
            max_decompressed_bytes: config.max_frame_bytes,
            max_fetch_wait_ms: config.max_fetch_wait_ms,
        }
    }
}

//! The server's configuration and its command line.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use kwire_protocol::coordinator::streams::StreamsGroupConfig;
use kwire_protocol::coordinator::{
    ClassicGroupConfig, ConfigError, ConsumerGroupConfig, MigrationPolicy,
};

use crate::names::{collision_key, valid_topic_name, MAX_PARTITIONS};

/// The smallest `--max-frame-bytes` accepted (a frame must at least hold an ApiVersions
/// request).
pub const MIN_FRAME_BYTES: usize = 1024;

/// Everything the server is started with.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Where to listen (port 0: an ephemeral port).
    pub listen: SocketAddr,
    /// Topics to create at start (name, partitions), unless the data directory has them.
    pub topics: Vec<(String, i32)>,
    /// The directory of the durable record log; `None`: nothing survives a restart.
    pub data_dir: Option<PathBuf>,
    /// Heartbeat interval of consumer and streams groups (ms); `None`: Kafka's 5000.
    pub heartbeat_interval_ms: Option<i32>,
    /// Session timeout of consumer and streams groups (ms); `None`: Kafka's 45000.
    pub session_timeout_ms: Option<i32>,
    /// Initial rebalance delay of streams groups (ms); `None`: Kafka's 3000.
    pub streams_initial_rebalance_delay_ms: Option<i32>,
    /// Standby replicas per stateful task in streams groups (Kafka's
    /// `group.streams.num.standby.replicas`, at most `group.streams.max.standby.replicas` 2);
    /// `None`: Kafka's 0.
    pub streams_num_standby_replicas: Option<i32>,
    /// Whether streams groups keep topology descriptions (KIP-1331; default true). False answers
    /// as Kafka 4.4 without a topology description plugin (see
    /// `StreamsGroupConfig::topology_descriptions`).
    pub streams_topology_descriptions: bool,
    /// Kafka's `group.streams.rack.aware.assignment.tags` (default none): client tag keys every
    /// streams member must carry (status 6 MISSING_CLIENT_TAGS otherwise, v1 heartbeats).
    pub streams_rack_aware_assignment_tags: Vec<String>,
    /// Smallest session timeout a classic JoinGroup may ask for (ms; Kafka's
    /// `group.min.session.timeout.ms`, default 6000); below it: INVALID_SESSION_TIMEOUT.
    pub group_min_session_timeout_ms: i32,
    /// Largest session timeout a classic JoinGroup may ask for (ms; Kafka's
    /// `group.max.session.timeout.ms`, default 1800000); above it: INVALID_SESSION_TIMEOUT.
    pub group_max_session_timeout_ms: i32,
    /// How long the first rebalance of an empty classic group waits for more members (ms;
    /// Kafka's `group.initial.rebalance.delay.ms`, default 3000).
    pub group_initial_rebalance_delay_ms: i32,
    /// Most members of a classic group (Kafka's `group.max.size`, default `i32::MAX`); joins
    /// beyond it: GROUP_MAX_SIZE_REACHED.
    pub group_max_size: i32,
    /// `group.consumer.migration.policy`: which online conversions between classic and
    /// consumer groups are allowed (KIP-848; default `bidirectional`).
    pub consumer_migration_policy: MigrationPolicy,
    /// Largest request frame accepted (bytes, size prefix excluded); checked before allocating.
    pub max_frame_bytes: usize,
    /// A connection that sends nothing for this long is closed (ms).
    pub idle_timeout_ms: u64,
    /// A request frame not complete this long (ms) after its first byte arrived closes its
    /// connection (or the idle timeout, if shorter), whether its client sends too slowly or the
    /// frame waited for the buffered-request budget. Default 30000, Kafka clients'
    /// `request.timeout.ms`: no client waits longer for an answer, so a frame still incomplete
    /// by then is one no client is waiting for.
    pub request_timeout_ms: u64,
    /// Bytes of incomplete request frames buffered over all connections together (size
    /// prefixes included; each connection's next read counts too); over it, connections wait
    /// to read more (backpressure) until others' frames complete or are closed. At least
    /// `max_frame_bytes + 4` (one largest frame). Default 256 MiB.
    pub max_buffered_request_bytes: usize,
    /// Requests read ahead on one connection while earlier answers are pending.
    pub max_in_flight: usize,
    /// Bytes of encoded answers queued on one connection and not yet written beyond which no
    /// more requests are read from it (1..=4 GiB).
    pub max_queued_bytes: usize,
    /// The same bound over all connections together (1..=4 GiB).
    pub max_queued_bytes_total: usize,
    /// Longest a Fetch is held (ms), whatever its MaxWaitMs.
    pub max_fetch_wait_ms: u64,
    /// Whether Metadata creates the unknown topics it is asked about (Kafka's
    /// `auto.create.topics.enable`, default true; see the Metadata handler).
    pub auto_create_topics: bool,
    /// Partitions of an auto-created topic, and of a CreateTopics topic with NumPartitions -1
    /// (Kafka's `num.partitions`, default 1).
    pub default_partitions: i32,
}

impl ServerConfig {
    /// A configuration listening on `listen` with the defaults of the command line.
    pub fn new(listen: SocketAddr) -> Self {
        ServerConfig {
            listen,
            topics: Vec::new(),
            data_dir: None,
            heartbeat_interval_ms: None,
            session_timeout_ms: None,
            streams_initial_rebalance_delay_ms: None,
            streams_num_standby_replicas: None,
            streams_topology_descriptions: true,
            streams_rack_aware_assignment_tags: Vec::new(),
            group_min_session_timeout_ms: 6000,
            group_max_session_timeout_ms: 1_800_000,
            group_initial_rebalance_delay_ms: 3000,
            group_max_size: i32::MAX,
            consumer_migration_policy: MigrationPolicy::Bidirectional,
            max_frame_bytes: 100 * 1024 * 1024,
            idle_timeout_ms: 600_000,
            request_timeout_ms: 30_000,
            max_buffered_request_bytes: 256 << 20,
            max_in_flight: 128,
            max_queued_bytes: 4 << 20,
            max_queued_bytes_total: 256 << 20,
            max_fetch_wait_ms: 60_000,
            auto_create_topics: true,
            default_partitions: 1,
        }
    }

    /// Checks the limits and the topics: `max_frame_bytes` at least [`MIN_FRAME_BYTES`], a
    /// non-zero idle timeout, in-flight count and queued-bytes bounds (at most 4 GiB), legal
    /// topic names and partition counts, no topic given twice with different partition counts,
    /// and no two topics whose names collide ('.' versus '_', as Kafka refuses).
    ///
    /// # Errors
    /// A message naming the first problem found.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_frame_bytes < MIN_FRAME_BYTES {
            return Err(format!(
                "--max-frame-bytes {} is below the minimum of {MIN_FRAME_BYTES}",
                self.max_frame_bytes
            ));
        }
        if self.idle_timeout_ms == 0 {
            return Err("--idle-timeout-ms must be at least 1".into());
        }
        if self.request_timeout_ms == 0 {
            return Err("--request-timeout-ms must be at least 1".into());
        }
        if self.max_in_flight == 0 {
            return Err("max_in_flight must be at least 1".into());
        }
        let one_frame = self.max_frame_bytes.saturating_add(4);
        if self.max_buffered_request_bytes < one_frame
            || u32::try_from(self.max_buffered_request_bytes).is_err()
        {
            return Err(format!(
                "--max-buffered-request-bytes {} is outside {one_frame}..={} (at least one largest frame, --max-frame-bytes {} and its 4-byte size prefix)",
                self.max_buffered_request_bytes,
                u32::MAX,
                self.max_frame_bytes
            ));
        }
        for (name, v) in [
            ("--max-queued-bytes", self.max_queued_bytes),
            ("--max-queued-bytes-total", self.max_queued_bytes_total),
        ] {
            if v == 0 || u32::try_from(v).is_err() {
                return Err(format!("{name} {v} is outside 1..={}", u32::MAX));
            }
        }
        if !(1..=MAX_PARTITIONS).contains(&self.default_partitions) {
            return Err(format!(
                "--default-partitions {} is outside 1..={MAX_PARTITIONS}",
                self.default_partitions
            ));
        }
        for (i, (name, parts)) in self.topics.iter().enumerate() {
            valid_topic_name(name).map_err(|e| format!("--topic {name}: {e}"))?;
            if !(1..=MAX_PARTITIONS).contains(parts) {
                return Err(format!(
                    "--topic {name}: partition count {parts} is outside 1..={MAX_PARTITIONS}"
                ));
            }
            for (other, other_parts) in &self.topics[..i] {
                if other == name && other_parts != parts {
                    return Err(format!(
                        "--topic {name} is given twice, with {other_parts} and {parts} partitions"
                    ));
                }
                if other != name && collision_key(other) == collision_key(name) {
                    return Err(format!(
                        "--topic {name} collides with --topic {other} ('.' and '_' collide in topic names)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The consumer-group configuration: Kafka's defaults, with the heartbeat interval and
    /// session timeout of this configuration (their [min, max] bounds widened to hold them).
    ///
    /// # Errors
    /// [`ConfigError`] when the result breaks the coordinator's rules (e.g. an interval not below
    /// the session timeout).
    pub fn consumer_group_config(&self) -> Result<ConsumerGroupConfig, ConfigError> {
        let mut c = ConsumerGroupConfig::default();
        if let Some(h) = self.heartbeat_interval_ms {
            c.heartbeat_interval_ms = h;
            c.min_heartbeat_interval_ms = c.min_heartbeat_interval_ms.min(h);
            c.max_heartbeat_interval_ms = c.max_heartbeat_interval_ms.max(h);
        }
        if let Some(s) = self.session_timeout_ms {
            c.session_timeout_ms = s;
            c.min_session_timeout_ms = c.min_session_timeout_ms.min(s);
            c.max_session_timeout_ms = c.max_session_timeout_ms.max(s);
        }
        c.migration_policy = self.consumer_migration_policy;
        c.validate()?;
        Ok(c)
    }

    /// The streams-group configuration: Kafka's defaults with this configuration's interval,
    /// session timeout, initial rebalance delay and standby replicas.
    ///
    /// # Errors
    /// [`ConfigError`] when the result breaks the coordinator's rules.
    pub fn streams_group_config(&self) -> Result<StreamsGroupConfig, ConfigError> {
        let mut c = StreamsGroupConfig::default();
        if let Some(h) = self.heartbeat_interval_ms {
            c.heartbeat_interval_ms = h;
        }
        if let Some(s) = self.session_timeout_ms {
            c.session_timeout_ms = s;
        }
        if let Some(d) = self.streams_initial_rebalance_delay_ms {
            c.initial_rebalance_delay_ms = d;
        }
        if let Some(n) = self.streams_num_standby_replicas {
            c.num_standby_replicas = n;
        }
        c.topology_descriptions = self.streams_topology_descriptions;
        c.rack_aware_assignment_tags = self.streams_rack_aware_assignment_tags.clone();
        c.validate()?;
        Ok(c)
    }

    /// The classic-group configuration (`--group-min-session-timeout-ms`,
    /// `--group-max-session-timeout-ms`, `--group-initial-rebalance-delay-ms`,
    /// `--group-max-size`).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`ClassicGroupConfig::validate`]).
    pub fn classic_group_config(&self) -> Result<ClassicGroupConfig, ConfigError> {
        let c = ClassicGroupConfig {
            min_session_timeout_ms: self.group_min_session_timeout_ms,
            max_session_timeout_ms: self.group_max_session_timeout_ms,
            initial_rebalance_delay_ms: self.group_initial_rebalance_delay_ms,
            max_size: self.group_max_size,
        };
        c.validate()?;
        Ok(c)
    }
}

/// Parses a `--topic` value: `NAME:PARTITIONS`.
///
/// # Errors
/// A message when the value has no `:PARTITIONS`, the name is not a legal topic name or the
/// count is not in 1..=100000.
pub fn parse_topic(s: &str) -> Result<(String, i32), String> {
    let Some((name, parts)) = s.rsplit_once(':') else {
        return Err(format!(
            "`{s}` has no partition count: give NAME:PARTITIONS, e.g. {s}:1"
        ));
    };
    let parts: i32 = parts
        .parse()
        .map_err(|_| format!("`{parts}` is not a partition count (NAME:PARTITIONS)"))?;
    valid_topic_name(name)?;
    if !(1..=MAX_PARTITIONS).contains(&parts) {
        return Err(format!(
            "topic {name}: partition count {parts} is outside 1..={MAX_PARTITIONS}"
        ));
    }
    Ok((name.to_string(), parts))
}

/// Parses a `--listen` value: `IP:PORT`, or `HOST:PORT` with a host name resolved now (the
/// first IPv4 address it has, else its first address).
///
/// # Errors
/// A message when the value is not an address or the name does not resolve.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let addrs: Vec<SocketAddr> = s
        .to_socket_addrs()
        .map_err(|e| format!("`{s}` is not HOST:PORT or does not resolve: {e}"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or_else(|| addrs.first())
        .copied()
        .ok_or_else(|| format!("`{s}` resolves to no address"))
}

fn parse_frame_bytes(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= MIN_FRAME_BYTES => Ok(n),
        Ok(_) => Err(format!("must be at least {MIN_FRAME_BYTES} bytes")),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_timeout_ms(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1 ms".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_queued_bytes(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=u32::MAX as usize).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be in 1..={}", u32::MAX)),
        Err(e) => Err(e.to_string()),
    }
}

/// The command line of `kwire-server`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "kwire-server",
    version,
    about = "A single-node in-memory Kafka test broker with kwire's group coordinator (classic, KIP-848 and KIP-1071 groups)"
)]
pub struct Cli {
    /// Address to listen on, IP:PORT or HOST:PORT (a host name is resolved at start, preferring
    /// IPv4; the address is what Metadata advertises); port 0 picks a free port. The bound address
    /// is printed to stdout as `kwire-server listening on HOST:PORT`.
    #[arg(long, default_value = "127.0.0.1:9092", value_parser = parse_listen)]
    pub listen: SocketAddr,
    /// A topic to create at start, as NAME:PARTITIONS (repeatable; 1 to 100000 partitions).
    #[arg(long = "topic", value_name = "NAME:PARTITIONS", value_parser = parse_topic)]
    pub topics: Vec<(String, i32)>,
    /// Directory of the durable log (group state, committed offsets, topics, partition end
    /// offsets); locked while the server runs.
    #[arg(long = "data", value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Heartbeat interval of consumer and streams groups, in ms (Kafka's default: 5000).
    #[arg(long, value_name = "N")]
    pub heartbeat_interval_ms: Option<i32>,
    /// Session timeout of consumer and streams groups, in ms (Kafka's default: 45000).
    #[arg(long, value_name = "N")]
    pub session_timeout_ms: Option<i32>,
    /// Initial rebalance delay of streams groups, in ms (Kafka's default: 3000).
    #[arg(long, value_name = "N")]
    pub streams_initial_rebalance_delay_ms: Option<i32>,
    /// Standby replicas per stateful task in streams groups (Kafka's
    /// `group.streams.num.standby.replicas`, default 0, at most 2).
    #[arg(long, value_name = "N")]
    pub streams_num_standby_replicas: Option<i32>,
    /// Do not keep streams topology descriptions: answer StreamsGroupTopologyDescriptionUpdate
    /// with UNSUPPORTED_VERSION and never ask for them, as Kafka 4.4 without a
    /// `group.streams.topology.description.plugin` (by default kwire keeps them, KIP-1331).
    #[arg(long)]
    pub no_streams_topology_descriptions: bool,
    /// Client tag keys every streams member must carry, comma-separated (Kafka's
    /// `group.streams.rack.aware.assignment.tags`; v1 heartbeats lacking one get status 6
    /// MISSING_CLIENT_TAGS).
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    pub streams_rack_aware_assignment_tags: Vec<String>,
    /// Smallest session timeout of a classic group member, in ms (Kafka's
    /// `group.min.session.timeout.ms`).
    #[arg(long, value_name = "N", default_value_t = 6000)]
    pub group_min_session_timeout_ms: i32,
    /// Largest session timeout of a classic group member, in ms (Kafka's
    /// `group.max.session.timeout.ms`).
    #[arg(long, value_name = "N", default_value_t = 1_800_000)]
    pub group_max_session_timeout_ms: i32,
    /// How long the first rebalance of an empty classic group waits for more members, in ms
    /// (Kafka's `group.initial.rebalance.delay.ms`).
    #[arg(long, value_name = "N", default_value_t = 3000)]
    pub group_initial_rebalance_delay_ms: i32,
    /// Most members of a classic group (Kafka's `group.max.size`).
    #[arg(long, value_name = "N", default_value_t = i32::MAX)]
    pub group_max_size: i32,
    /// Which online conversions between classic and consumer groups are allowed (Kafka's
    /// `group.consumer.migration.policy`): disabled, upgrade, downgrade or bidirectional.
    #[arg(long, value_name = "POLICY", default_value = "bidirectional")]
    pub group_consumer_migration_policy: MigrationPolicy,
    /// Largest request frame accepted, in bytes (at least 1024); a larger size prefix closes the
    /// connection.
    #[arg(long, value_name = "N", default_value_t = 104_857_600, value_parser = parse_frame_bytes)]
    pub max_frame_bytes: usize,
    /// Close a connection that sends nothing for this many ms (at least 1), or whose
    /// incomplete request frame is older than that.
    #[arg(long, value_name = "N", default_value_t = 600_000, value_parser = parse_timeout_ms)]
    pub idle_timeout_ms: u64,
    /// Close a connection whose request frame is not complete this many ms after its first byte
    /// (at least 1; default 30000, Kafka clients' request.timeout.ms): a client too slow to send
    /// it, or a frame that waited that long for --max-buffered-request-bytes.
    #[arg(long, value_name = "N", default_value_t = 30_000, value_parser = parse_timeout_ms)]
    pub request_timeout_ms: u64,
    /// Bytes of incomplete request frames held over all connections together; over it,
    /// connections wait to read more (at least --max-frame-bytes + 4).
    #[arg(long, value_name = "N", default_value_t = 256 << 20, value_parser = parse_queued_bytes)]
    pub max_buffered_request_bytes: usize,
    /// Stop reading requests from a connection while more than this many bytes of its answers
    /// wait to be written.
    #[arg(long, value_name = "N", default_value_t = 4 << 20, value_parser = parse_queued_bytes)]
    pub max_queued_bytes: usize,
    /// The same bound over all connections together.
    #[arg(long, value_name = "N", default_value_t = 256 << 20, value_parser = parse_queued_bytes)]
    pub max_queued_bytes_total: usize,
    /// Do not create the unknown topics a Metadata request names (Kafka's
    /// `auto.create.topics.enable=false`); by default they are created, as Kafka does.
    #[arg(long)]
    pub no_auto_create_topics: bool,
    /// Partitions of an auto-created topic and of a CreateTopics topic with NumPartitions -1
    /// (Kafka's `num.partitions`; 1 to 100000).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..=i64::from(MAX_PARTITIONS)))]
    pub default_partitions: i32,
}

impl Cli {
    /// The server configuration this command line gives (check it with
    /// [`ServerConfig::validate`]).
    pub fn into_config(self) -> ServerConfig {
        let mut c = ServerConfig::new(self.listen);
        c.topics = self.topics;
        c.data_dir = self.data;
        c.heartbeat_interval_ms = self.heartbeat_interval_ms;
        c.session_timeout_ms = self.session_timeout_ms;
        c.streams_initial_rebalance_delay_ms = self.streams_initial_rebalance_delay_ms;
        c.streams_num_standby_replicas = self.streams_num_standby_replicas;
        c.streams_topology_descriptions = !self.no_streams_topology_descriptions;
        c.streams_rack_aware_assignment_tags = self.streams_rack_aware_assignment_tags;
        c.group_min_session_timeout_ms = self.group_min_session_timeout_ms;
        c.group_max_session_timeout_ms = self.group_max_session_timeout_ms;
        c.group_initial_rebalance_delay_ms = self.group_initial_rebalance_delay_ms;
        c.group_max_size = self.group_max_size;
        c.consumer_migration_policy = self.group_consumer_migration_policy;
        c.max_frame_bytes = self.max_frame_bytes;
        c.idle_timeout_ms = self.idle_timeout_ms;
        c.request_timeout_ms = self.request_timeout_ms;
        c.max_buffered_request_bytes = self.max_buffered_request_bytes;
        c.max_queued_bytes = self.max_queued_bytes;
        c.max_queued_bytes_total = self.max_queued_bytes_total;
        c.auto_create_topics = !self.no_auto_create_topics;
        c.default_partitions = self.default_partitions;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_and_group_configs() {
        assert_eq!(parse_topic("t1:3"), Ok(("t1".to_string(), 3)));
        assert!(parse_topic("t1").unwrap_err().contains("NAME:PARTITIONS"));
        assert!(parse_topic("t1:0").is_err());
        assert!(parse_topic("t1:100001").is_err());
        assert!(parse_topic("bad name:1").is_err());
        let mut c = ServerConfig::new("127.0.0.1:0".parse().unwrap());
        c.heartbeat_interval_ms = Some(250);
        let g = c.consumer_group_config().unwrap();
        assert_eq!(g.heartbeat_interval_ms, 250);
        c.session_timeout_ms = Some(3000);
        let g = c.consumer_group_config().unwrap();
        assert_eq!(g.session_timeout_ms, 3000);
        assert_eq!(c.streams_group_config().unwrap().heartbeat_interval_ms, 250);
        c.heartbeat_interval_ms = Some(5000);
        assert!(c.consumer_group_config().is_err());
        let k = c.classic_group_config().unwrap();
        assert_eq!(
            (k.min_session_timeout_ms, k.max_session_timeout_ms),
            (6000, 1_800_000)
        );
        assert_eq!((k.initial_rebalance_delay_ms, k.max_size), (3000, i32::MAX));
        c.group_max_size = 0;
        assert!(c.classic_group_config().is_err());
    }

    #[test]
    fn migration_policy_flag() {
        let c = cli(&[]).unwrap();
        assert_eq!(c.consumer_migration_policy, MigrationPolicy::Bidirectional);
        let c = cli(&["--group-consumer-migration-policy", "Upgrade"]).unwrap();
        assert_eq!(c.consumer_migration_policy, MigrationPolicy::Upgrade);
        assert_eq!(
            c.consumer_group_config().unwrap().migration_policy,
            MigrationPolicy::Upgrade
        );
        assert!(cli(&["--group-consumer-migration-policy", "sideways"])
            .unwrap_err()
            .contains("disabled, upgrade, downgrade, bidirectional"));
    }

    fn cli(args: &[&str]) -> Result<ServerConfig, String> {
        use clap::Parser;
        let mut all = vec!["kwire-server"];
        all.extend_from_slice(args);
        let c = Cli::try_parse_from(all)
            .map_err(|e| e.to_string())?
            .into_config();
        c.validate()?;
        Ok(c)
    }

    #[test]
    fn command_line_limits_and_topics() {
        let c = cli(&[
            "--listen",
            "127.0.0.1:0",
            "--topic",
            "a:2",
            "--topic",
            "a:2",
        ])
        .unwrap();
        assert_eq!(c.topics.len(), 2);
        assert!(cli(&["--topic", "a"])
            .unwrap_err()
            .contains("NAME:PARTITIONS"));
        let e = cli(&["--topic", "a:1", "--topic", "a:2"]).unwrap_err();
        assert!(e.contains("given twice"), "{e}");
        let e = cli(&["--topic", "a.b:1", "--topic", "a_b:1"]).unwrap_err();
        assert!(e.contains("collides"), "{e}");
        assert!(cli(&["--max-frame-bytes", "1023"]).is_err());
        assert_eq!(
            cli(&["--max-frame-bytes", "1024"]).unwrap().max_frame_bytes,
            1024
        );
        assert!(cli(&["--idle-timeout-ms", "0"]).is_err());
        // The request timeout and the buffered-request budget (one largest frame at least).
        let c = cli(&[]).unwrap();
        assert_eq!(
            (c.request_timeout_ms, c.max_buffered_request_bytes),
            (30_000, 256 << 20)
        );
        assert!(cli(&["--request-timeout-ms", "0"]).is_err());
        let c = cli(&[
            "--max-frame-bytes",
            "2048",
            "--max-buffered-request-bytes",
            "2052",
        ])
        .unwrap();
        assert_eq!(c.max_buffered_request_bytes, 2052);
        let e = cli(&[
            "--max-frame-bytes",
            "2048",
            "--max-buffered-request-bytes",
            "2051",
        ])
        .unwrap_err();
        assert!(e.contains("at least one largest frame"), "{e}");
        // Auto-creation: on by default with 1 partition, as Kafka.
        let c = cli(&[]).unwrap();
        assert!(c.auto_create_topics);
        assert_eq!(c.default_partitions, 1);
        let c = cli(&["--no-auto-create-topics", "--default-partitions", "4"]).unwrap();
        assert!(!c.auto_create_topics);
        assert_eq!(c.default_partitions, 4);
        assert!(cli(&["--default-partitions", "0"]).is_err());
        assert!(cli(&["--default-partitions", "100001"]).is_err());
        // Streams topology descriptions (KIP-1331): kept by default; rack-aware tags: none.
        let s = c.streams_group_config().unwrap();
        assert!(s.topology_descriptions && s.rack_aware_assignment_tags.is_empty());
        let c = cli(&[
            "--no-streams-topology-descriptions",
            "--streams-rack-aware-assignment-tags",
            "zone,cluster",
        ])
        .unwrap();
        let s = c.streams_group_config().unwrap();
        assert!(!s.topology_descriptions);
        assert_eq!(s.rack_aware_assignment_tags, ["zone", "cluster"]);
        let c = cli(&[
            "--group-min-session-timeout-ms",
            "100",
            "--group-max-session-timeout-ms",
            "9000",
            "--group-initial-rebalance-delay-ms",
            "0",
            "--group-max-size",
            "3",
        ])
        .unwrap();
        assert_eq!(
            c.classic_group_config().unwrap(),
            ClassicGroupConfig {
                min_session_timeout_ms: 100,
                max_session_timeout_ms: 9000,
                initial_rebalance_delay_ms: 0,
                max_size: 3,
            }
        );
        assert!(cli(&["--max-queued-bytes", "0"]).is_err());
        assert_eq!(
            cli(&["--max-queued-bytes", "65536"])
                .unwrap()
                .max_queued_bytes,
            65536
        );
        // Host names resolve (localhost is an address of this machine).
        let c = cli(&["--listen", "localhost:0"]).unwrap();
        assert!(c.listen.ip().is_loopback(), "{}", c.listen);
        assert!(cli(&["--listen", "localhost"]).is_err());
        // The library's configuration is checked the same way.
        let mut c = ServerConfig::new("127.0.0.1:0".parse().unwrap());
        c.max_frame_bytes = 10;
        assert!(c.validate().is_err());
        c.max_frame_bytes = 4096;
        c.idle_timeout_ms = 0;
        assert!(c.validate().is_err());
        c.idle_timeout_ms = 1;
        c.topics = vec![("t".into(), 1), ("t".into(), 3)];
        assert!(c.validate().is_err());
    }
}

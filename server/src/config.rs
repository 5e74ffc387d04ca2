//! The server's configuration and its command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use kwire_protocol::coordinator::streams::StreamsGroupConfig;
use kwire_protocol::coordinator::{ConfigError, ConsumerGroupConfig};

use crate::topics::valid_topic_name;

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
    /// Largest request frame accepted (bytes, size prefix excluded); checked before allocating.
    pub max_frame_bytes: usize,
    /// A connection that sends nothing for this long is closed (ms).
    pub idle_timeout_ms: u64,
    /// Requests read ahead on one connection while earlier answers are pending.
    pub max_in_flight: usize,
    /// Longest a Fetch is held (ms), whatever its MaxWaitMs.
    pub max_fetch_wait_ms: u64,
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
            max_frame_bytes: 100 * 1024 * 1024,
            idle_timeout_ms: 600_000,
            max_in_flight: 128,
            max_fetch_wait_ms: 60_000,
        }
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
        c.validate()?;
        Ok(c)
    }

    /// The streams-group configuration: Kafka's defaults with this configuration's interval,
    /// session timeout and initial rebalance delay.
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
        c.validate()?;
        Ok(c)
    }
}

/// Parses a `--topic` value: `NAME:PARTITIONS`, or `NAME` for one partition.
///
/// # Errors
/// A message when the name is not a legal topic name or the count is not a positive number.
pub fn parse_topic(s: &str) -> Result<(String, i32), String> {
    let (name, parts) = match s.rsplit_once(':') {
        Some((n, p)) => {
            let p: i32 = p
                .parse()
                .map_err(|_| format!("`{p}` is not a partition count (NAME:PARTITIONS)"))?;
            (n, p)
        }
        None => (s, 1),
    };
    valid_topic_name(name)?;
    if !(1..=100_000).contains(&parts) {
        return Err(format!(
            "topic {name}: partition count {parts} is outside 1..=100000"
        ));
    }
    Ok((name.to_string(), parts))
}

/// The command line of `kwire-server`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "kwire-server",
    version,
    about = "A single-node in-memory Kafka test broker with kwire's KIP-848 / KIP-1071 group coordinator"
)]
pub struct Cli {
    /// Address to listen on; port 0 picks a free port. The bound address is printed to stdout
    /// as `kwire-server listening on HOST:PORT`.
    #[arg(long, default_value = "127.0.0.1:9092")]
    pub listen: SocketAddr,
    /// A topic to create at start, as NAME:PARTITIONS (repeatable).
    #[arg(long = "topic", value_name = "NAME:PARTITIONS", value_parser = parse_topic)]
    pub topics: Vec<(String, i32)>,
    /// Directory of the durable record log (group state, committed offsets, topics).
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
    /// Largest request frame accepted, in bytes; a larger size prefix closes the connection.
    #[arg(long, value_name = "N", default_value_t = 104_857_600)]
    pub max_frame_bytes: usize,
    /// Close a connection that sends nothing for this many ms.
    #[arg(long, value_name = "N", default_value_t = 600_000)]
    pub idle_timeout_ms: u64,
}

impl Cli {
    /// The server configuration this command line gives.
    pub fn into_config(self) -> ServerConfig {
        let mut c = ServerConfig::new(self.listen);
        c.topics = self.topics;
        c.data_dir = self.data;
        c.heartbeat_interval_ms = self.heartbeat_interval_ms;
        c.session_timeout_ms = self.session_timeout_ms;
        c.streams_initial_rebalance_delay_ms = self.streams_initial_rebalance_delay_ms;
        c.max_frame_bytes = self.max_frame_bytes;
        c.idle_timeout_ms = self.idle_timeout_ms;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_and_group_configs() {
        assert_eq!(parse_topic("t1:3"), Ok(("t1".to_string(), 3)));
        assert_eq!(parse_topic("t1"), Ok(("t1".to_string(), 1)));
        assert!(parse_topic("t1:0").is_err());
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
    }
}

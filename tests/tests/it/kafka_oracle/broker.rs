//! One real Apache Kafka 4.4.0 broker per test process: single-node KRaft (broker and controller
//! in one JVM), formatted and started in a fresh temporary directory on free ports, stopped when
//! the test process ends.
//!
//! The jars come from the Maven module `tests/kafka-broker/` (`kafka_2.13:4.4.0`, log4j2 and its
//! SLF4J 2 binding), built by [`crate::java::module_classpath`]. The broker is started under
//! `sh -c` by a wrapper script that runs `java … kafka.Kafka` in the background and then reads
//! its own stdin, a pipe whose writing end only the test process holds: when the test process
//! exits (however it exits), the pipe closes, `cat` returns, and the wrapper stops the JVM
//! (SIGTERM, SIGKILL after 10 s) and removes the temporary directory (unless
//! `KWIRE_ORACLE_KEEP=1`, for reading the broker's log afterwards).

use super::settings::{GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS, GROUP_CONSUMER_SESSION_TIMEOUT_MS};
use super::settings::{GROUP_INITIAL_REBALANCE_DELAY_MS, GROUP_MIN_SESSION_TIMEOUT_MS};
use super::settings::{GROUP_STREAMS_HEARTBEAT_INTERVAL_MS, GROUP_STREAMS_SESSION_TIMEOUT_MS};
use super::settings::{
    GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS, GROUP_STREAMS_NUM_STANDBY_REPLICAS,
};
use kwire_protocol::generated::describe_groups_request::DescribeGroupsRequest;
use kwire_protocol::generated::find_coordinator_request::FindCoordinatorRequest;
use kwire_protocol::generated::ApiVersionsRequest;
use kwire_server::Client;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the broker may take from `java … kafka.Kafka` to answering group requests.
const START_DEADLINE: Duration = Duration::from_secs(180);

/// A running broker.
pub struct Broker {
    /// Its PLAINTEXT listener (the controller listener is another port).
    pub addr: SocketAddr,
    /// Its temporary directory (server.properties, log4j2.yaml, broker.log, data/).
    pub dir: PathBuf,
    /// From the start of `StorageTool format` to the first answered group request.
    pub startup: Duration,
    /// The writing end of the wrapper's stdin: never written, closed when the process exits.
    _lifeline: Mutex<ChildStdin>,
}

/// The broker of this test process, started on first use.
///
/// Must be called outside an async context (it runs its own short-lived Tokio runtime).
///
/// # Errors
/// Why the broker could not be built or started (Maven, format or start failure, with the tail
/// of its output).
pub fn broker() -> Result<&'static Broker, String> {
    static BROKER: OnceLock<Result<Broker, String>> = OnceLock::new();
    BROKER.get_or_init(start).as_ref().map_err(Clone::clone)
}

/// A port nobody listens on right now (the OS's choice for port 0).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding 127.0.0.1:0")
        .port()
}

/// A random id (a cluster id, a KIP-1082 member id): 16 bytes (from std's randomly keyed hasher) as Kafka's `Uuid.toString`
/// writes them, URL-safe base64 without padding.
pub fn random_id() -> String {
    use base64::Engine as _;
    use std::hash::{BuildHasher, Hasher};
    let mut bytes = Vec::with_capacity(16);
    for salt in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos(),
        );
        bytes.extend_from_slice(&h.finish().to_be_bytes());
    }
    // Kafka refuses the all-zero id and ids whose base64 starts with '-'.
    bytes[0] = (bytes[0] & 0x7f) | 0x10;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The broker's configuration: the listeners, and the group settings kwire-server is started
/// with (see the constants in the module above).
fn server_properties(dir: &std::path::Path, port: u16, cport: u16) -> String {
    format!(
        "process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:{cport}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}
advertised.listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs={data}
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms={GROUP_INITIAL_REBALANCE_DELAY_MS}
group.min.session.timeout.ms={GROUP_MIN_SESSION_TIMEOUT_MS}
group.max.session.timeout.ms=1800000
group.consumer.min.session.timeout.ms={GROUP_CONSUMER_SESSION_TIMEOUT_MS}
group.consumer.session.timeout.ms={GROUP_CONSUMER_SESSION_TIMEOUT_MS}
group.consumer.min.heartbeat.interval.ms={GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS}
group.consumer.heartbeat.interval.ms={GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS}
group.consumer.migration.policy=bidirectional
group.consumer.assignors=uniform,range
group.consumer.assignment.interval.ms=0
group.streams.session.timeout.ms={GROUP_STREAMS_SESSION_TIMEOUT_MS}
group.streams.min.session.timeout.ms={GROUP_STREAMS_SESSION_TIMEOUT_MS}
group.streams.heartbeat.interval.ms={GROUP_STREAMS_HEARTBEAT_INTERVAL_MS}
group.streams.min.heartbeat.interval.ms={GROUP_STREAMS_HEARTBEAT_INTERVAL_MS}
group.streams.initial.rebalance.delay.ms={GROUP_STREAMS_INITIAL_REBALANCE_DELAY_MS}
group.streams.num.standby.replicas={GROUP_STREAMS_NUM_STANDBY_REPLICAS}
group.streams.assignment.interval.ms=0
group.streams.assignor.offload.enable=false
",
        data = dir.join("data").display()
    )
}

/// log4j2 configuration: everything at INFO to `broker.log` in the broker's directory.
fn log4j2_yaml(dir: &std::path::Path) -> String {
    format!(
        "Configuration:
  Appenders:
    File:
      name: FILE
      fileName: \"{}\"
      PatternLayout:
        pattern: \"[%d] %p %m (%c)%n\"
  Loggers:
    Root:
      level: INFO
      AppenderRef:
        - ref: FILE
",
        dir.join("broker.log").display()
    )
}

/// The last `n` lines of a file (for error messages).
fn tail(path: &std::path::Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn start() -> Result<Broker, String> {
    let classpath = crate::java::module_classpath("kafka-broker", &[])
        .map_err(|e| format!("building tests/kafka-broker with Maven failed: {e}"))?;
    let started = Instant::now();
    let dir = std::env::temp_dir().join(format!(
        "kwire-kafka-oracle-{}-{}",
        std::process::id(),
        random_id()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (port, cport) = (free_port(), free_port());
    let props = dir.join("server.properties");
    let log4j = dir.join("log4j2.yaml");
    std::fs::write(&props, server_properties(&dir, port, cport)).map_err(|e| e.to_string())?;
    std::fs::write(&log4j, log4j2_yaml(&dir)).map_err(|e| e.to_string())?;
    let log4j_arg = format!("-Dlog4j2.configurationFile={}", log4j.display());

    let format = Command::new("java")
        .args([
            "-Xshare:auto",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            &log4j_arg,
            "-cp",
            &classpath,
        ])
        .args([
            "kafka.tools.StorageTool",
            "format",
            "--standalone",
            "-t",
            &random_id(),
            "-c",
        ])
        .arg(&props)
        .output()
        .map_err(|e| format!("running java: {e}"))?;
    if !format.status.success() {
        return Err(format!(
            "kafka.tools.StorageTool format failed ({}):\n{}{}",
            format.status,
            String::from_utf8_lossy(&format.stdout),
            String::from_utf8_lossy(&format.stderr)
        ));
    }

    // The wrapper: java in the background (its stdin is /dev/null, as for every asynchronous
    // command of a non-interactive shell), then wait for the test process's pipe to close.
    let keep = std::env::var("KWIRE_ORACLE_KEEP").as_deref() == Ok("1");
    let script = format!(
        r#"java -Xshare:auto -XX:+UseSerialGC -Xms256m -Xmx512m "$1" -cp "$2" kafka.Kafka "$3/server.properties" >"$3/stdout.txt" 2>&1 &
pid=$!
echo "$pid" >"$3/java.pid"
cat >/dev/null
kill "$pid" 2>/dev/null
( sleep 10; kill -9 "$pid" 2>/dev/null ) &
wait "$pid"
{}"#,
        if keep { "" } else { r#"rm -rf "$3""# }
    );
    let mut wrapper = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("kafka-oracle")
        .arg(&log4j_arg)
        .arg(&classpath)
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("starting sh: {e}"))?;
    let lifeline = wrapper.stdin.take().expect("piped stdin");
    // The wrapper is reaped by nobody: it ends after this process, whose exit closes the pipe.
    std::mem::forget(wrapper);

    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + START_DEADLINE;
    let java_alive = || {
        let pid = std::fs::read_to_string(dir.join("java.pid")).unwrap_or_default();
        let pid = pid.trim();
        pid.is_empty()
            || !std::path::Path::new("/proc").is_dir()
            || std::path::Path::new("/proc").join(pid).exists()
    };
    loop {
        if rt.block_on(ready(addr)) {
            break;
        }
        if !java_alive() || Instant::now() > deadline {
            return Err(format!(
                "the Kafka broker did not come up on {addr} ({}):\n{}\n--- broker.log ---\n{}",
                if java_alive() {
                    "deadline passed"
                } else {
                    "java exited"
                },
                tail(&dir.join("stdout.txt"), 20),
                tail(&dir.join("broker.log"), 40)
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let startup = started.elapsed();
    println!(
        "kafka oracle: Kafka 4.4.0 broker up on {addr} in {:.1} s (format and start; dir {})",
        startup.as_secs_f64(),
        dir.display()
    );
    Ok(Broker {
        addr,
        dir,
        startup,
        _lifeline: Mutex::new(lifeline),
    })
}

/// Whether the broker answers ApiVersions, finds a group coordinator, and that coordinator
/// answers DescribeGroups without a coordinator error (the offsets topic created and loaded).
async fn ready(addr: SocketAddr) -> bool {
    let attempt = async {
        let mut c = Client::connect(addr).await.ok()?;
        let req = ApiVersionsRequest {
            client_software_name: "kwire-oracle".into(),
            client_software_version: "0".into(),
            ..Default::default()
        };
        let v = c.request(&req, 3).await.ok()?;
        if v.error_code != 0 {
            return None;
        }
        let find = FindCoordinatorRequest {
            key: "kwire-oracle-ready".into(),
            key_type: 0,
            ..Default::default()
        };
        let f = c.request(&find, 3).await.ok()?;
        if f.error_code != 0 {
            return None;
        }
        let describe = DescribeGroupsRequest {
            groups: vec!["kwire-oracle-ready".into()],
            ..Default::default()
        };
        let d = c.request(&describe, 5).await.ok()?;
        (d.groups.first()?.error_code == 0).then_some(())
    };
    tokio::time::timeout(Duration::from_secs(5), attempt)
        .await
        .ok()
        .flatten()
        .is_some()
}

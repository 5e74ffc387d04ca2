//! What a person running `kwire-server` sees: the binary runs with `RUST_LOG=info`, a short
//! session talks to it (a CreateTopics, a consumer-group join and leave, a Metadata that
//! auto-creates a topic, InitProducerId with and without a transactional id, a Fetch at a version
//! it does not serve, then a frame too slow to arrive), and its stderr must show the topic
//! creations with who asked, the join and leave with the member id and group epoch, the member's
//! assignment, the producer id given, the refused requests by API name, and the connection the
//! server closed for its slow frame; ordinary connection lines (opened, identified, closed) stay
//! at DEBUG.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::api_versions_request::ApiVersionsRequest;
use kwire_protocol::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use kwire_protocol::generated::create_topics_request::{CreatableTopic, CreateTopicsRequest};
use kwire_protocol::generated::init_producer_id_request::InitProducerIdRequest;
use kwire_protocol::generated::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kwire_server::Client;

/// How long to wait for a line before giving up (a safety net against a hang; no test asserts
/// on time).
const LIMIT: Duration = Duration::from_secs(30);

/// The server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The server's stderr lines as they come, and every line seen so far.
struct Log {
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Log {
    /// Reads lines until one contains every one of `parts`; returns it.
    fn wait_for(&mut self, parts: &[&str]) -> String {
        if let Some(l) = self
            .seen
            .iter()
            .find(|l| parts.iter().all(|p| l.contains(p)))
        {
            return l.clone();
        }
        loop {
            match self.lines.recv_timeout(LIMIT) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if parts.iter().all(|p| l.contains(p)) {
                        return l;
                    }
                }
                Err(e) => panic!(
                    "no INFO line with {parts:?} ({e}); the log so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

fn start() -> (Server, SocketAddr, Log) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--topic",
            "from-config:1",
            "--request-timeout-ms",
            "500",
        ])
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kwire-server");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let server = Server(child);
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("read the listening line");
    let addr = first
        .trim()
        .strip_prefix("kwire-server listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .parse()
        .expect("address");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (
        server,
        addr,
        Log {
            lines: rx,
            seen: Vec::new(),
        },
    )
}

fn heartbeat(member_epoch: i32) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: "log-group".into(),
        member_id: "member-log-1".into(),
        member_epoch,
        rebalance_timeout_ms: 300_000,
        subscribed_topic_names: (member_epoch == 0).then(|| vec!["asked-for".into()]),
        topic_partitions: (member_epoch == 0).then(Vec::new),
        ..Default::default()
    }
}

/// A request header for Fetch v3 (below the served 4-16); the server refuses it before it
/// looks at the body.
fn fetch_v3_frame() -> Vec<u8> {
    let client = b"kwire-client";
    let mut body = Vec::new();
    body.extend_from_slice(&1i16.to_be_bytes());
    body.extend_from_slice(&3i16.to_be_bytes());
    body.extend_from_slice(&99i32.to_be_bytes());
    body.extend_from_slice(&(client.len() as i16).to_be_bytes());
    body.extend_from_slice(client);
    let mut frame = (body.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

#[test]
fn info_log_shows_connections_groups_topics_and_refusals() {
    let (_server, addr, mut log) = start();
    log.wait_for(&[
        " INFO ",
        "created topic from-config (1 partition,",
        "from the configuration (--topic)",
    ]);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let local = rt.block_on(async {
        let mut c = Client::connect(addr).await.expect("connect");
        let local = c.local_addr().expect("local address");
        let v = c
            .request(
                &ApiVersionsRequest {
                    client_software_name: "log-test".into(),
                    client_software_version: "1.0".into(),
                    ..Default::default()
                },
                3,
            )
            .await
            .expect("ApiVersions");
        assert_eq!(v.error_code, ErrorCode::None.code());
        let t = c
            .request(
                &CreateTopicsRequest {
                    topics: vec![CreatableTopic {
                        name: "asked-for".into(),
                        num_partitions: 2,
                        replication_factor: 1,
                        ..Default::default()
                    }],
                    timeout_ms: 1000,
                    ..Default::default()
                },
                7,
            )
            .await
            .expect("CreateTopics");
        assert_eq!(t.topics[0].error_code, ErrorCode::None.code());
        let j = c.request(&heartbeat(0), 1).await.expect("join");
        assert_eq!(j.error_code, ErrorCode::None.code());
        assert_eq!(j.member_epoch, 1);
        let l = c.request(&heartbeat(-1), 1).await.expect("leave");
        assert_eq!((l.error_code, l.member_epoch), (ErrorCode::None.code(), -1));
        // A Metadata naming an unknown topic creates it (auto.create.topics.enable).
        let m = c
            .request(
                &MetadataRequest {
                    topics: Some(vec![MetadataRequestTopic {
                        name: Some("made-on-demand".into()),
                        ..Default::default()
                    }]),
                    ..Default::default()
                },
                12,
            )
            .await
            .expect("Metadata");
        assert_eq!(
            m.topics[0].error_code,
            ErrorCode::UnknownTopicOrPartition.code()
        );
        // A producer id; a transactional id is refused.
        for (txn, code) in [
            (None, ErrorCode::None),
            (Some("tx-1"), ErrorCode::CoordinatorNotAvailable),
        ] {
            let p = c
                .request(
                    &InitProducerIdRequest {
                        transactional_id: txn.map(Into::into),
                        transaction_timeout_ms: 60_000,
                        producer_id: -1,
                        producer_epoch: -1,
                        ..Default::default()
                    },
                    5,
                )
                .await
                .expect("InitProducerId");
            assert_eq!(p.error_code, code.code());
        }
        c.send_raw(&fetch_v3_frame()).await.expect("send Fetch v3");
        // The server closes the connection without an answer.
        assert!(c.recv_frame().await.expect("read").is_none());
        // A frame that never completes: closed at the request timeout (500 ms).
        let mut slow = Client::connect(addr).await.expect("connect");
        let slow_addr = slow.local_addr().expect("local address");
        slow.send_raw(&[0, 0, 3, 232, 0, 18])
            .await
            .expect("send part of a frame");
        assert!(slow.recv_frame().await.expect("read").is_none());
        (local, slow_addr)
    });
    let (local, slow) = local;
    log.wait_for(&[
        "created topic asked-for (2 partitions,",
        &format!("for CreateTopics from {local} (client kwire-client)"),
    ]);
    log.wait_for(&[
        "member member-log-1 joined consumer group log-group (group epoch 1;",
        "client kwire-client",
        "subscribed to [asked-for]",
    ]);
    log.wait_for(&["consumer group log-group: new target assignment at assignment epoch 1"]);
    log.wait_for(&[
        "member member-log-1 of consumer group log-group: member epoch 1 (was 0), 2 partitions assigned",
    ]);
    log.wait_for(&[
        "member member-log-1 of consumer group log-group left with a leave heartbeat (group epoch 2)",
    ]);
    log.wait_for(&[
        "created topic made-on-demand (1 partition,",
        &format!("automatically, for Metadata from {local} (client kwire-client)"),
    ]);
    log.wait_for(&[&format!(
        "producer id 0 (epoch 0) for {local} (client kwire-client)"
    )]);
    log.wait_for(&[&format!(
        "refused InitProducerId v5 from {local} (client kwire-client): COORDINATOR_NOT_AVAILABLE (15): transactional id \"tx-1\": kwire-server has no transaction coordinator"
    )]);
    log.wait_for(&[&format!(
        "refused Fetch v3 from {local} (client kwire-client): version not supported (Fetch 4-16)"
    )]);
    // The server closed the slow connection for its frame: a line for a person running it.
    log.wait_for(&[
        " INFO ",
        &format!("connection from {slow} closed after 0 requests: an incomplete request frame (6 of 1004 bytes) is older than the request timeout (500 ms)"),
    ]);
    // Ordinary connection lines (opened, identified, closed by the client or after a refusal
    // logged on its own) are DEBUG: none at INFO, the enforced close is the only connection
    // line.
    let connection_lines: Vec<&String> = log
        .seen
        .iter()
        .filter(|l| l.contains("connection "))
        .collect();
    assert_eq!(connection_lines.len(), 1, "{connection_lines:#?}");
    // Per-request lines stay at DEBUG.
    assert!(
        !log.seen.iter().any(|l| l.contains(" DEBUG ")),
        "{:#?}",
        log.seen
    );
}

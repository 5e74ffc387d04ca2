//! Confluent's Rust client (`confluent-kafka` 1.0 from crates.io, a translation of the Java
//! client 4.4 with its KIP-848 consumer) against kwire-server.
//!
//! The client lives in its own crate, `tests/confluent-rust/` (its own workspace and lock file,
//! outside kwire's workspace, so `cargo build` never compiles it). This test builds that crate's
//! test with `cargo test --offline --locked` into `$CARGO_TARGET_TMPDIR/confluent-rust`
//! (printing how long the build took), starts a kwire-server in process with a 3-partition topic
//! filled with 10 records per partition, and runs the crate's test against it: a consumer joins
//! the group, reads every record, commits chosen offsets and leaves; a new member resumes at the
//! committed offsets; a third reads what the second committed (see
//! `tests/confluent-rust/tests/consumer.rs`).
//!
//! When the crate cannot be built offline (its dependencies are not in Cargo's cache) the test
//! prints `SKIPPED: confluent-rust: …` and passes; under `CI=true` it fetches them instead
//! (`cargo fetch --locked`), and any failure fails the test.

use kwire_protocol::generated::produce_request::{
    PartitionProduceData, ProduceRequest, TopicProduceData,
};
use kwire_protocol::records::{BatchBuilder, Compression};
use kwire_server::Client;
use kwire_server::Server;
use kwire_server::ServerConfig;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const TOPIC: &str = "confluent-rust";
const PARTITIONS: i32 = 3;
const PER_PARTITION: i64 = 10;

fn crate_dir() -> PathBuf {
    kwire_tests::workspace_root()
        .join("tests")
        .join("confluent-rust")
}

/// `cargo <subcommand> --manifest-path … <args>` on the client crate (run in its folder), its
/// target dir under this build's target dir.
fn cargo(subcommand: &str, args: &[&str], target: &Path) -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.arg(subcommand)
        .arg("--manifest-path")
        .arg(crate_dir().join("Cargo.toml"))
        .args(args)
        .current_dir(crate_dir())
        .env("CARGO_TARGET_DIR", target)
        // The outer build's settings are not the crate's.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET_DIR");
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Whether a failed offline build failed for want of the network (a crate not in the cache).
fn offline_failure(out: &str) -> bool {
    out.contains("--offline") || out.contains("offline mode") || out.contains("failed to download")
}

/// One batch per record: values `p<partition>-<index>`.
async fn fill(addr: std::net::SocketAddr) {
    let mut c = Client::connect(addr).await.expect("connect");
    for p in 0..PARTITIONS {
        for i in 0..PER_PARTITION {
            let mut b = BatchBuilder::new(Compression::None);
            let value = format!("p{p}-{i}");
            b.append(1_000 + i, None, Some(value.as_bytes()), &[])
                .expect("record");
            let req = ProduceRequest {
                acks: -1,
                timeout_ms: 10_000,
                topic_data: vec![TopicProduceData {
                    name: TOPIC.into(),
                    partition_data: vec![PartitionProduceData {
                        index: p,
                        records: Some(b.build().expect("batch")),
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            };
            let r = c
                .request(&req, 9)
                .await
                .unwrap_or_else(|e| panic!("produce: {e}"));
            assert_eq!(r.responses[0].partition_responses[0].error_code, 0);
        }
    }
}

#[test]
fn confluent_rust_consumer_group_commits_and_resumes() {
    let ci = crate::java::ci();
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("confluent-rust");
    let build_args = ["--offline", "--locked", "--no-run"];
    let started = Instant::now();
    let mut built = cargo("test", &build_args, &target)
        .output()
        .expect("running cargo");
    if !built.status.success() && offline_failure(&text(&built)) {
        if !ci {
            println!(
                "SKIPPED: confluent-rust: tests/confluent-rust cannot be built offline (its crates are not in Cargo's cache; `cargo fetch --manifest-path tests/confluent-rust/Cargo.toml` fetches them): {}",
                text(&built).lines().last().unwrap_or("")
            );
            return;
        }
        let fetched = cargo("fetch", &["--locked"], &target)
            .output()
            .expect("running cargo fetch");
        assert!(
            fetched.status.success(),
            "confluent-rust: cargo fetch failed:\n{}",
            text(&fetched)
        );
        built = cargo("test", &build_args, &target)
            .output()
            .expect("running cargo");
    }
    assert!(
        built.status.success(),
        "confluent-rust: building tests/confluent-rust failed:\n{}",
        text(&built)
    );
    println!(
        "confluent-rust: tests/confluent-rust built in {:.1} s (confluent-kafka 1.0, no default features)",
        started.elapsed().as_secs_f64()
    );

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap());
    config.topics.push((TOPIC.into(), PARTITIONS));
    config.heartbeat_interval_ms = Some(500);
    let server = rt
        .block_on(Server::bind(config))
        .expect("kwire-server binds");
    let addr = server.local_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server.run(async {
        let _ = stopped.await;
    }));
    rt.block_on(fill(addr));

    let ran = cargo(
        "test",
        &["--offline", "--locked", "--", "--nocapture"],
        &target,
    )
    .env("KWIRE_BOOTSTRAP", addr.to_string())
    .env("KWIRE_TOPIC", TOPIC)
    .env("KWIRE_PARTITIONS", PARTITIONS.to_string())
    .env("KWIRE_PER_PARTITION", PER_PARTITION.to_string())
    .env("KWIRE_GROUP", "confluent-rust-group")
    .output()
    .expect("running cargo test");
    let _ = stop.send(());
    let _ = rt.block_on(serving);
    let out = text(&ran);
    for line in out.lines().filter(|l| l.starts_with("confluent-rust:")) {
        println!("{line}");
    }
    assert!(
        ran.status.success(),
        "confluent-rust: the client's test failed:\n{out}"
    );
    assert!(
        out.contains("consumer 3 reads committed offset"),
        "confluent-rust: the client's test did not run to its end:\n{out}"
    );
}

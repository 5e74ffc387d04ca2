//! Load generator: N simulated KIP-848 consumer members heartbeating as fast as kwire-server
//! answers, against a server started in-process on one core (a tokio current_thread runtime on
//! its own thread); the members run on another thread, spread over a few pipelined connections.
//!
//! Every member keeps one ConsumerGroupHeartbeat v1 in flight: it joins, acknowledges each new
//! assignment with its full owned set, and otherwise sends the all-null steady heartbeat with its
//! epoch; an error answer makes it rejoin. After a warm-up (joins and the first rebalances), the
//! answered heartbeats are counted for a fixed time and the rate is printed.
//!
//! ```sh
//! cargo run --release -p kwire-server --example loadgen -- --members 1000 --connections 4
//! ```

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use clap::Parser;
use kwire_protocol::generated::consumer_group_describe_request::ConsumerGroupDescribeRequest;
use kwire_protocol::generated::consumer_group_heartbeat_request::{
    ConsumerGroupHeartbeatRequest, TopicPartitions,
};
use kwire_protocol::generated::list_groups_request::ListGroupsRequest;
use kwire_protocol::generated::{ApiResponse as _, ConsumerGroupHeartbeatResponse};
use kwire_protocol::wire::frame::read_frame;
use kwire_server::{encode_request, Client, Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Debug, Parser)]
#[command(about = "Heartbeat load against an in-process kwire-server on one core")]
struct Args {
    /// Simulated consumer members.
    #[arg(long, default_value_t = 1000)]
    members: usize,
    /// Connections the members are spread over.
    #[arg(long, default_value_t = 4)]
    connections: usize,
    /// Consumer groups the members are spread over.
    #[arg(long, default_value_t = 1)]
    groups: usize,
    /// Partitions of the subscribed topic.
    #[arg(long, default_value_t = 1000)]
    partitions: i32,
    /// Warm-up before measuring (s).
    #[arg(long, default_value_t = 3.0)]
    warmup_seconds: f64,
    /// Measured time (s).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
}

#[derive(Default)]
struct Counters {
    answered: AtomicU64,
    errors: AtomicU64,
    acks: AtomicU64,
}

struct Member {
    group: String,
    id: String,
    epoch: i32,
    ack: Option<Vec<TopicPartitions>>,
}

fn request(m: &Member) -> ConsumerGroupHeartbeatRequest {
    if m.epoch == 0 {
        return ConsumerGroupHeartbeatRequest {
            group_id: m.group.clone().into(),
            member_id: m.id.clone().into(),
            member_epoch: 0,
            rebalance_timeout_ms: 300_000,
            subscribed_topic_names: Some(vec!["load".into()]),
            topic_partitions: Some(vec![]),
            ..Default::default()
        };
    }
    ConsumerGroupHeartbeatRequest {
        group_id: m.group.clone().into(),
        member_id: m.id.clone().into(),
        member_epoch: m.epoch,
        rebalance_timeout_ms: -1,
        topic_partitions: m.ack.clone(),
        ..Default::default()
    }
}

async fn drive(
    addr: SocketAddr,
    mut members: Vec<Member>,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
) -> std::io::Result<()> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut rd, mut wr) = stream.into_split();
    let mut in_flight: VecDeque<usize> = VecDeque::new();
    let mut corr: i32 = 0;
    let mut out = BytesMut::new();
    let mut send = |i: usize, m: &Member, out: &mut BytesMut, q: &mut VecDeque<usize>| {
        corr = corr.wrapping_add(1);
        let bytes = encode_request(request(m), 1, corr, Some("loadgen")).expect("encode");
        out.extend_from_slice(&bytes);
        q.push_back(i);
    };
    for (i, m) in members.iter().enumerate() {
        send(i, m, &mut out, &mut in_flight);
    }
    let mut buf = BytesMut::with_capacity(1 << 16);
    loop {
        if !out.is_empty() {
            wr.write_all(&out).await?;
            out.clear();
        }
        if in_flight.is_empty() {
            return Ok(());
        }
        buf.reserve(1 << 16);
        if rd.read_buf(&mut buf).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let stopping = stop.load(Ordering::Relaxed);
        while let Some(frame) = read_frame(&mut buf, 1 << 24).expect("frame") {
            let i = in_flight.pop_front().expect("a request in flight");
            let (_, hb) =
                ConsumerGroupHeartbeatResponse::decode_response_frame(frame, 1).expect("decodes");
            let m = &mut members[i];
            if hb.error_code == 0 {
                counters.answered.fetch_add(1, Ordering::Relaxed);
                m.epoch = hb.member_epoch;
                m.ack = hb.assignment.map(|a| {
                    counters.acks.fetch_add(1, Ordering::Relaxed);
                    a.topic_partitions
                        .into_iter()
                        .map(|t| TopicPartitions {
                            topic_id: t.topic_id,
                            partitions: t.partitions,
                            ..Default::default()
                        })
                        .collect()
                });
            } else {
                counters.errors.fetch_add(1, Ordering::Relaxed);
                m.epoch = 0;
                m.ack = None;
            }
            if !stopping {
                send(i, m, &mut out, &mut in_flight);
            }
        }
    }
}

fn main() {
    let args = Args::parse();
    let mut config = ServerConfig::new("127.0.0.1:0".parse().expect("address"));
    config.topics.push(("load".into(), args.partitions));
    // Long sessions: members that wait behind a slow answer are never fenced.
    config.session_timeout_ms = Some(120_000);
    config.heartbeat_interval_ms = Some(5_000);
    config.max_in_flight = args.members.max(1);

    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server_thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("server runtime");
        rt.block_on(async move {
            let server = Server::bind(config).await.expect("bind");
            addr_tx.send(server.local_addr()).expect("report address");
            server
                .run(async {
                    let _ = stop_rx.await;
                })
                .await
                .expect("server");
        });
    });
    let addr = addr_rx.recv().expect("server address");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(Counters::default());
    let conns = args.connections.max(1);
    let groups = args.groups.max(1);
    let mut per_conn: Vec<Vec<Member>> = (0..conns).map(|_| Vec::new()).collect();
    for i in 0..args.members {
        per_conn[i % conns].push(Member {
            group: format!("load-group-{}", i % groups),
            id: format!("loadgen-member-{i:08}-xxxx"),
            epoch: 0,
            ack: None,
        });
    }
    let (rate, answered, elapsed) = rt.block_on(async {
        let mut tasks = Vec::new();
        for members in per_conn {
            tasks.push(tokio::spawn(drive(
                addr,
                members,
                stop.clone(),
                counters.clone(),
            )));
        }
        tokio::time::sleep(Duration::from_secs_f64(args.warmup_seconds)).await;
        let c0 = counters.answered.load(Ordering::Relaxed);
        let t0 = Instant::now();
        tokio::time::sleep(Duration::from_secs_f64(args.seconds)).await;
        let c1 = counters.answered.load(Ordering::Relaxed);
        let elapsed = t0.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        for t in tasks {
            match tokio::time::timeout(Duration::from_secs(30), t).await {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => eprintln!("connection failed: {e}"),
                Ok(Err(e)) => eprintln!("connection task failed: {e}"),
                Err(_) => eprintln!("connection did not drain in 30 s"),
            }
        }
        ((c1 - c0) as f64 / elapsed, c1 - c0, elapsed)
    });
    let states = rt.block_on(group_states(addr));
    let _ = stop_tx.send(());
    let _ = server_thread.join();
    println!(
        "members={} connections={} groups={} partitions={}: {answered} heartbeats in {elapsed:.2} s = {rate:.0} heartbeats/s (errors {}, assignments {})",
        args.members,
        conns,
        groups,
        args.partitions,
        counters.errors.load(Ordering::Relaxed),
        counters.acks.load(Ordering::Relaxed),
    );
    for s in states {
        println!("  {s}");
    }
}

/// One line per consumer group (members, group epoch, state), read over the wire:
/// ListGroups, then ConsumerGroupDescribe of the groups listed.
async fn group_states(addr: SocketAddr) -> Vec<String> {
    let mut c = match Client::connect(addr).await {
        Ok(c) => c,
        Err(e) => return vec![format!("cannot describe the groups: {e}")],
    };
    let listed = match c.request(&ListGroupsRequest::default(), 5).await {
        Ok(l) => l,
        Err(e) => return vec![format!("ListGroups failed: {e}")],
    };
    let describe = ConsumerGroupDescribeRequest {
        group_ids: listed.groups.iter().map(|g| g.group_id.clone()).collect(),
        ..Default::default()
    };
    match c.request(&describe, 1).await {
        Ok(d) => d
            .groups
            .iter()
            .map(|g| {
                format!(
                    "{}: {} members, epoch {}, {}",
                    &*g.group_id,
                    g.members.len(),
                    g.group_epoch,
                    &*g.group_state
                )
            })
            .collect(),
        Err(e) => vec![format!("ConsumerGroupDescribe failed: {e}")],
    }
}

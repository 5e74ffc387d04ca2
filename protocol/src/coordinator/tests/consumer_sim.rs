//! Randomised simulation (proptest, 1,000 cases of 1 to 31 operations in plain `cargo test`):
//! members join, heartbeat with lost and delayed responses, change subscriptions, leave and time
//! out, while topic metadata changes. After every step: the state equals the replay of every
//! record emitted so far (kept incrementally; a full `replay` is compared at the end of the
//! operations and again once converged), no partition is held by two members, and no member
//! epoch exceeds the group epoch. Once faults stop, every member reaches STABLE at the
//! assignment epoch within a bounded number of heartbeat rounds.

use std::collections::BTreeSet;

use proptest::prelude::*;

use super::harness::groups::{coordinator, BAR, FOO, ZAR};
use super::harness::Harness;
use crate::coordinator::consumer::*;
use crate::coordinator::{replay, GroupCoordinator, TopicMetadata};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_request::TopicPartitions as ReqTp;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use assignor::Assignment;

const N: usize = 5;
const NAMES: [&str; 3] = ["foo", "bar", "zar"];

#[derive(Debug, Clone)]
enum Op {
    Join(usize),
    Heartbeat {
        m: usize,
        lose: bool,
        delay: bool,
        send_owned: bool,
    },
    ChangeSub {
        m: usize,
        mask: u8,
        regex: bool,
    },
    Leave(usize),
    StaticLeave(usize),
    Advance(i64),
    Metadata(i32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0..N).prop_map(Op::Join),
        6 => (0..N, any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(m, lose, delay, send_owned)| Op::Heartbeat { m, lose, delay, send_owned }),
        1 => (0..N, 0u8..8, any::<bool>()).prop_map(|(m, mask, regex)| Op::ChangeSub { m, mask, regex }),
        1 => (0..N).prop_map(Op::Leave),
        1 => (0..N).prop_map(Op::StaticLeave),
        1 => (1i64..30_000).prop_map(Op::Advance),
        1 => (4i32..9).prop_map(Op::Metadata),
    ]
}

#[derive(Debug, Clone)]
struct Client {
    id: String,
    instance: Option<String>,
    active: bool,
    /// `None` = must (re)join with epoch 0.
    epoch: Option<i32>,
    owned: Assignment,
    names: Vec<String>,
    regex: Option<String>,
    sub_dirty: bool,
    delayed: Option<ConsumerGroupHeartbeatResponse>,
}

struct Sim {
    /// The coordinator, its records and their incremental replay, checked with
    /// [`no_partition_twice`] after every call.
    h: Harness,
    clients: Vec<Client>,
    topics: Vec<TopicMetadata>,
}

impl Sim {
    fn new() -> Sim {
        let c = coordinator(ConsumerGroupConfig::default(), 3);
        let clients = (0..N)
            .map(|i| Client {
                id: format!("m{i}"),
                instance: (i % 2 == 1).then(|| format!("i{i}")),
                active: false,
                epoch: None,
                owned: Assignment::new(),
                names: vec!["foo".into(), "bar".into()],
                regex: None,
                sub_dirty: false,
                delayed: None,
            })
            .collect();
        let mut s = Sim {
            h: Harness::new(c, vec![], 0)
                .client("c", "h")
                .invariant(no_partition_twice),
            clients,
            topics: vec![],
        };
        s.set_meta(6);
        s
    }

    fn set_meta(&mut self, foo: i32) {
        self.topics = vec![
            TopicMetadata::new(FOO, "foo", foo),
            TopicMetadata::new(BAR, "bar", 3),
            TopicMetadata::new(ZAR, "zar", 2),
        ];
        self.h.set_topics(self.topics.clone());
    }

    fn apply_response(&mut self, i: usize, r: &ConsumerGroupHeartbeatResponse) {
        let cl = &mut self.clients[i];
        match ErrorCode::from_code(r.error_code) {
            Some(ErrorCode::None) => {
                if r.member_epoch < 0 {
                    cl.epoch = None;
                    cl.owned.clear();
                    return;
                }
                cl.epoch = Some(r.member_epoch);
                if let Some(a) = &r.assignment {
                    let mut o = Assignment::new();
                    for tp in &a.topic_partitions {
                        let s: BTreeSet<i32> = tp.partitions.iter().collect();
                        if !s.is_empty() {
                            o.insert(tp.topic_id, s);
                        }
                    }
                    cl.owned = o;
                }
            }
            Some(ErrorCode::FencedMemberEpoch)
            | Some(ErrorCode::UnknownMemberId)
            | Some(ErrorCode::GroupIdNotFound) => {
                cl.epoch = None;
                cl.owned.clear();
            }
            // A static member whose previous incarnation is still registered must wait for it.
            Some(ErrorCode::UnreleasedInstanceId) => {}
            _ => panic!("unexpected error {}: {:?}", r.error_code, r.error_message),
        }
    }

    fn heartbeat(&mut self, i: usize, lose: bool, delay: bool, send_owned: bool) {
        if !self.clients[i].active {
            return;
        }
        if let Some(d) = self.clients[i].delayed.take() {
            self.apply_response(i, &d);
        }
        let cl = &self.clients[i];
        let req = match cl.epoch {
            None => ConsumerGroupHeartbeatRequest {
                group_id: "g".into(),
                member_id: cl.id.clone().into(),
                member_epoch: 0,
                instance_id: cl.instance.clone().map(Into::into),
                rebalance_timeout_ms: 20_000,
                subscribed_topic_names: Some(cl.names.iter().map(|n| n.clone().into()).collect()),
                subscribed_topic_regex: Some(cl.regex.clone().unwrap_or_default().into()),
                topic_partitions: Some(vec![]),
                ..Default::default()
            },
            Some(e) => ConsumerGroupHeartbeatRequest {
                group_id: "g".into(),
                member_id: cl.id.clone().into(),
                member_epoch: e,
                instance_id: cl.instance.clone().map(Into::into),
                subscribed_topic_names: cl
                    .sub_dirty
                    .then(|| cl.names.iter().map(|n| n.clone().into()).collect()),
                subscribed_topic_regex: cl
                    .sub_dirty
                    .then(|| cl.regex.clone().unwrap_or_default().into()),
                topic_partitions: send_owned.then(|| {
                    cl.owned
                        .iter()
                        .map(|(t, ps)| ReqTp {
                            topic_id: *t,
                            partitions: ps.iter().copied().collect(),
                            ..Default::default()
                        })
                        .collect()
                }),
                ..Default::default()
            },
        };
        let out = self.h.consumer_heartbeat(1, &req);
        if out.response.error_code == 0 {
            self.clients[i].sub_dirty = false;
        }
        if lose {
            return;
        }
        if delay {
            self.clients[i].delayed = Some(out.response);
        } else {
            self.apply_response(i, &out.response);
        }
    }

    fn step(&mut self, op: &Op) {
        match op {
            Op::Join(i) => {
                self.clients[*i].active = true;
                self.heartbeat(*i, false, false, true);
            }
            Op::Heartbeat {
                m,
                lose,
                delay,
                send_owned,
            } => self.heartbeat(*m, *lose, *delay, *send_owned),
            Op::ChangeSub { m, mask, regex } => {
                let cl = &mut self.clients[*m];
                cl.names = NAMES
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| mask & (1 << k) != 0)
                    .map(|(_, n)| n.to_string())
                    .collect();
                cl.regex = regex.then(|| "ba.|z.*".to_string());
                cl.sub_dirty = true;
            }
            Op::Leave(i) | Op::StaticLeave(i) => {
                let static_leave = matches!(op, Op::StaticLeave(_));
                let cl = &self.clients[*i];
                if !cl.active || cl.epoch.is_none() || (static_leave && cl.instance.is_none()) {
                    return;
                }
                let req = ConsumerGroupHeartbeatRequest {
                    group_id: "g".into(),
                    member_id: cl.id.clone().into(),
                    member_epoch: if static_leave { -2 } else { -1 },
                    instance_id: cl.instance.clone().map(Into::into),
                    ..Default::default()
                };
                self.h.consumer_heartbeat(1, &req);
                let cl = &mut self.clients[*i];
                cl.active = false;
                cl.epoch = None;
                cl.owned.clear();
                cl.delayed = None;
                if static_leave {
                    // The process restarts under a new member id (KIP-848 v1 clients generate one).
                    cl.id = format!("{}x", cl.id);
                }
            }
            Op::Advance(ms) => {
                self.h.advance(*ms);
            }
            Op::Metadata(n) => self.set_meta(*n),
        }
        self.h.check();
    }

    fn converged(&self) -> bool {
        let Some(g) = self.h.c.group("g") else {
            return self.clients.iter().all(|c| !c.active);
        };
        if g.group_epoch != g.assignment_epoch && g.members.values().any(|m| m.member_epoch >= 0) {
            return false;
        }
        self.clients.iter().filter(|c| c.active).all(|c| {
            c.epoch.is_some()
                && g.members.get(&c.id).is_some_and(|m| {
                    m.state == MemberState::Stable && m.member_epoch == g.assignment_epoch
                })
                && c.owned == g.members[&c.id].assigned
        })
    }
}

/// No partition is held by two members; no member epoch, nor the assignment epoch, exceeds the
/// group epoch.
fn no_partition_twice(c: &GroupCoordinator) {
    if let Some(g) = c.group("g") {
        let mut seen = BTreeSet::new();
        for m in g.members.values() {
            assert!(
                m.member_epoch <= g.group_epoch,
                "member epoch {} > group epoch {}",
                m.member_epoch,
                g.group_epoch
            );
            for a in [&m.assigned, &m.pending_revocation] {
                for (t, ps) in a {
                    for p in ps {
                        assert!(
                            seen.insert((*t, *p)),
                            "partition {t}-{p} held by two members"
                        );
                    }
                }
            }
        }
        assert!(g.assignment_epoch <= g.group_epoch);
    }
}

fn run(ops: Vec<Op>) {
    let mut s = Sim::new();
    for op in &ops {
        s.step(op);
    }
    assert_eq!(&replay(&s.h.log), s.h.c.groups(), "full replay");
    // Faults stop: drop delayed responses' lateness, let stale static incarnations expire.
    s.h.advance(60_000);
    for i in 0..N {
        if let Some(d) = s.clients[i].delayed.take() {
            s.apply_response(i, &d);
        }
    }
    const ROUNDS: usize = 8;
    for round in 0..=ROUNDS {
        if s.converged() {
            assert_eq!(&replay(&s.h.log), s.h.c.groups(), "full replay");
            return;
        }
        assert!(
            round < ROUNDS,
            "not converged after {ROUNDS} rounds: {:#?}",
            s.h.c.group("g")
        );
        for i in 0..N {
            s.h.advance(50);
            s.heartbeat(i, false, false, true);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn simulation(ops in proptest::collection::vec(op(), 1..32)) {
        run(ops);
    }
}

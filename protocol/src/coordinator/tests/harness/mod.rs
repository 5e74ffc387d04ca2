//! The one test driver of the [`GroupCoordinator`] facade (in the manner of quinn-proto's test
//! `Pair`), shared by every scenario and simulation file: the coordinator, the records it wrote,
//! their incremental replay, a clock in ms, a request-id counter and the answers not yet looked
//! at. Every call's records are logged and applied to the replay, and the state is compared with
//! it at once (docs/coordinator.md, D6). Time moves only by [`Harness::advance`] and
//! [`Harness::advance_to`]. The builders of groups (a consumer group of N members, a classic
//! group after a join round, a streams group with a topology) are in [`groups`].

pub(crate) mod groups;

use std::collections::VecDeque;

use crate::coordinator::{
    apply, replay, GroupCoordinator, GroupResponse, Groups, Output, Record, RequestContext,
    RequestId, StreamsHeartbeatOutput, TopicMetadata,
};
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;
use crate::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use crate::generated::heartbeat_request::HeartbeatRequest;
use crate::generated::join_group_request::JoinGroupRequest;
use crate::generated::join_group_response::JoinGroupResponse;
use crate::generated::leave_group_request::LeaveGroupRequest;
use crate::generated::leave_group_response::LeaveGroupResponse;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::sync_group_request::SyncGroupRequest;
use crate::generated::sync_group_response::SyncGroupResponse;

/// A coordinator driven by a test.
pub(crate) struct Harness {
    pub c: GroupCoordinator,
    /// Every record written so far, in order.
    pub log: Vec<Record>,
    /// `log` replayed incrementally (a step costs O(state), not O(log)).
    replayed: Groups,
    /// The clock, in ms.
    pub now: i64,
    next_id: u64,
    /// Answers polled from the coordinator and not yet taken, in the order they came.
    outbox: VecDeque<(RequestId, GroupResponse)>,
    /// The client id and host of every request's context.
    client: (&'static str, &'static str),
    /// A file's own invariant, checked after the replay at every step.
    invariant: Option<fn(&GroupCoordinator)>,
}

impl Harness {
    /// Drives `c` from `now` ms; `c` was loaded from `log` (empty for a new coordinator).
    pub fn new(c: GroupCoordinator, log: Vec<Record>, now: i64) -> Harness {
        let h = Harness {
            replayed: replay(&log),
            c,
            log,
            now,
            next_id: 0,
            outbox: VecDeque::new(),
            client: ("client", "/127.0.0.1"),
            invariant: None,
        };
        h.check();
        h
    }

    /// Requests come from client `id` at `host`.
    pub fn client(mut self, id: &'static str, host: &'static str) -> Harness {
        self.client = (id, host);
        self
    }

    /// `f` is checked after every step, after the replay.
    pub fn invariant(mut self, f: fn(&GroupCoordinator)) -> Harness {
        self.invariant = Some(f);
        self.check();
        self
    }

    /// The context of a request at `version`.
    pub fn ctx(&self, version: i16) -> RequestContext {
        RequestContext::new(self.client.0, self.client.1, version)
    }

    /// How many request ids were given out.
    pub fn requests_sent(&self) -> u64 {
        self.next_id
    }

    /// The next request id (1, 2, ...).
    pub fn id(&mut self) -> RequestId {
        self.next_id += 1;
        RequestId(self.next_id)
    }

    /// The state equals the replay of every record so far, and the file's invariant holds.
    pub fn check(&self) {
        assert_eq!(&self.replayed, self.c.groups(), "state != replay(records)");
        if let Some(f) = self.invariant {
            f(&self.c);
        }
    }

    /// Logs and replays one call's records, checks, and moves the coordinator's answers to the
    /// outbox (an id answered twice fails).
    pub fn absorb(&mut self, records: &[Record]) {
        for r in records {
            apply(&mut self.replayed, r);
        }
        self.log.extend_from_slice(records);
        self.check();
        while let Some((id, r)) = self.c.poll_response() {
            assert!(
                self.outbox.iter().all(|(i, _)| *i != id),
                "request {id:?} answered twice"
            );
            self.outbox.push_back((id, r));
        }
    }

    /// Every answer not yet taken, in the order they came.
    pub fn drain(&mut self) -> Vec<(RequestId, GroupResponse)> {
        self.outbox.drain(..).collect()
    }

    /// The oldest answer not yet taken.
    pub fn pop_answer(&mut self) -> Option<(RequestId, GroupResponse)> {
        self.outbox.pop_front()
    }

    /// The answer to request `id`, if it came.
    pub fn take(&mut self, id: RequestId) -> Option<GroupResponse> {
        let at = self.outbox.iter().position(|(i, _)| *i == id)?;
        self.outbox.remove(at).map(|(_, r)| r)
    }

    /// The JoinGroup answer to `id`, if it came.
    pub fn take_join(&mut self, id: RequestId) -> Option<JoinGroupResponse> {
        match self.take(id)? {
            GroupResponse::JoinGroup(j) => Some(j),
            other => panic!("not a JoinGroup answer: {other:?}"),
        }
    }

    /// The SyncGroup answer to `id`, if it came.
    pub fn take_sync(&mut self, id: RequestId) -> Option<SyncGroupResponse> {
        match self.take(id)? {
            GroupResponse::SyncGroup(s) => Some(s),
            other => panic!("not a SyncGroup answer: {other:?}"),
        }
    }

    /// The Heartbeat answer's error code to `id`, if it came.
    pub fn take_heartbeat(&mut self, id: RequestId) -> Option<i16> {
        match self.take(id)? {
            GroupResponse::Heartbeat(h) => Some(h.error_code),
            other => panic!("not a Heartbeat answer: {other:?}"),
        }
    }

    /// The LeaveGroup answer to `id`, if it came.
    pub fn take_leave(&mut self, id: RequestId) -> Option<LeaveGroupResponse> {
        match self.take(id)? {
            GroupResponse::LeaveGroup(l) => Some(l),
            other => panic!("not a LeaveGroup answer: {other:?}"),
        }
    }

    /// Sends one classic request at `version` through `call` (the coordinator, the context,
    /// the request's id, the time); its answer (now or later) goes to the outbox.
    fn send(
        &mut self,
        version: i16,
        call: impl FnOnce(&mut GroupCoordinator, &RequestContext, RequestId, i64) -> Vec<Record>,
    ) -> RequestId {
        let id = self.id();
        let ctx = self.ctx(version);
        let r = call(&mut self.c, &ctx, id, self.now);
        self.absorb(&r);
        id
    }

    /// Sends a JoinGroup at `version`.
    pub fn send_join(&mut self, version: i16, req: &JoinGroupRequest) -> RequestId {
        self.send(version, |c, ctx, id, now| c.join_group(ctx, req, id, now))
    }

    /// Sends a SyncGroup at `version`.
    pub fn send_sync(&mut self, version: i16, req: &SyncGroupRequest) -> RequestId {
        self.send(version, |c, ctx, id, now| c.sync_group(ctx, req, id, now))
    }

    /// Sends a Heartbeat at `version`.
    pub fn send_heartbeat(&mut self, version: i16, req: &HeartbeatRequest) -> RequestId {
        self.send(version, |c, ctx, id, now| c.heartbeat(ctx, req, id, now))
    }

    /// Sends a LeaveGroup at `version`.
    pub fn send_leave(&mut self, version: i16, req: &LeaveGroupRequest) -> RequestId {
        self.send(version, |c, ctx, id, now| c.leave_group(ctx, req, id, now))
    }

    /// A ConsumerGroupHeartbeat at `version`.
    pub fn consumer_heartbeat(
        &mut self,
        version: i16,
        req: &ConsumerGroupHeartbeatRequest,
    ) -> Output<ConsumerGroupHeartbeatResponse> {
        let ctx = self.ctx(version);
        let out = self.c.consumer_group_heartbeat(&ctx, req, self.now);
        self.absorb_heartbeat(out.response.error_code, &out.records);
        out
    }

    /// A StreamsGroupHeartbeat at `version`.
    pub fn streams_heartbeat(
        &mut self,
        version: i16,
        req: &StreamsGroupHeartbeatRequest,
    ) -> StreamsHeartbeatOutput {
        let ctx = self.ctx(version);
        let out = self.c.streams_group_heartbeat(&ctx, req, self.now);
        self.absorb_heartbeat(out.response.error_code, &out.records);
        out
    }

    /// A heartbeat's records, absorbed; one that failed (`error_code` not 0) wrote none.
    fn absorb_heartbeat(&mut self, error_code: i16, records: &[Record]) {
        if error_code != 0 {
            assert!(records.is_empty(), "a failed heartbeat wrote records");
        }
        self.absorb(records);
    }

    /// Replaces the topic metadata at the current time; the records it wrote.
    pub fn set_topics(&mut self, topics: Vec<TopicMetadata>) -> Vec<Record> {
        let r = self.c.set_topics(topics, self.now);
        self.absorb(&r);
        r
    }

    /// Moves the clock to `now` ms and fires the timers due; the records they wrote.
    pub fn advance_to(&mut self, now: i64) -> Vec<Record> {
        self.now = now;
        let r = self.c.fire_timers(now);
        self.absorb(&r);
        r
    }

    /// Moves the clock `ms` on and fires the timers due; the records they wrote.
    pub fn advance(&mut self, ms: i64) -> Vec<Record> {
        self.advance_to(self.now + ms)
    }
}

//! Groups: kwire's sans-IO [`GroupCoordinator`] (consumer, streams and classic groups), the
//! classic requests waiting for its answers, and the group lines of the INFO log read off the
//! records it returns.
//!
//! Every record the coordinator returns goes through [`Groups::record`]: queued in the store for
//! the request's commit, and read by the [`GroupLog`] for the lines it means (added to the
//! effects, logged by the router after the commit).

use std::collections::HashMap;

use kwire_protocol::coordinator::{GroupCoordinator, GroupResponse, Record, RequestId};
use tokio::sync::oneshot;

use super::effects::Effects;
use crate::events::groups::{Cause, GroupLog};
use crate::events::Event;
use crate::storage::entry::Entry;
use crate::storage::store::Store;

/// The coordinator and what waits on it.
#[derive(Debug)]
pub struct Groups {
    /// The consumer-, streams- and classic-group coordinator.
    pub coordinator: GroupCoordinator,
    /// The group changes already logged.
    log: GroupLog,
    /// Classic group requests waiting for their answer (JoinGroup, SyncGroup, ...): filled by
    /// [`Groups::drain_responses`] after every call into the coordinator.
    waiting: HashMap<RequestId, oneshot::Sender<GroupResponse>>,
    /// The next [`RequestId`] to give out.
    next_request_id: u64,
}

impl Groups {
    /// The groups of a coordinator loaded from the journal's `replayed` records (the log learns
    /// their members without a line).
    pub fn new(coordinator: GroupCoordinator, replayed: &[Record]) -> Self {
        let mut log = GroupLog::default();
        log.seed(replayed);
        Groups {
            coordinator,
            log,
            waiting: HashMap::new(),
            next_request_id: 0,
        }
    }

    /// Takes in coordinator records: queued in `store` for the next commit, and the INFO lines
    /// of the group changes they describe added to `fx` (`cause`: what made the coordinator
    /// write them).
    pub fn record(
        &mut self,
        records: Vec<Record>,
        cause: Cause<'_>,
        store: &mut Store,
        fx: &mut Effects,
    ) {
        for line in self.log.observe(&records, cause) {
            fx.event(Event::new(line));
        }
        store.queue_all(records.into_iter().map(Entry::Group));
    }

    /// A new classic request id and the receiver its answer will come through (see
    /// [`Groups::drain_responses`]).
    pub fn wait_response(&mut self) -> (RequestId, oneshot::Receiver<GroupResponse>) {
        self.next_request_id += 1;
        let id = RequestId(self.next_request_id);
        let (tx, rx) = oneshot::channel();
        self.waiting.insert(id, tx);
        (id, rx)
    }

    /// Hands every classic answer the coordinator has ready to the request waiting for it
    /// (an answer whose connection is gone is dropped). Called after every call into the
    /// coordinator: each request, and each run of the timers.
    pub fn drain_responses(&mut self) {
        while let Some((id, r)) = self.coordinator.poll_response() {
            if let Some(tx) = self.waiting.remove(&id) {
                let _ = tx.send(r);
            }
        }
    }
}

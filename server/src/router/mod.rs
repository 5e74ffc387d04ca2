//! The router: the state behind its lock, the route table ([`routes`]), and what happens around
//! every handler. It is the only place that locks the state, in the manner of mini-redis's `Db`:
//! it owns its lock and wakes its own timers.
//!
//! For each decoded request [`Router::handle`] locks the state, runs the route's handler, writes
//! what the request queued (one append), hands out the classic group answers the coordinator
//! made ready, and then, with the lock released, applies the request's effects: its INFO lines
//! are logged (after the commit, so the log never shows what the durable log does not hold),
//! held Fetches look again after a produce, and the timer task after a group request.
//! [`Router::run_timers`] fires the coordinator's timers at their deadlines the same way.
//!
//! When the write of a group heartbeat's records fails, the answer is NOT_COORDINATOR (Kafka's
//! translation of KAFKA_STORAGE_ERROR for group APIs) and the server stops (see the store).
//! Handlers whose changes can be undone (Produce, OffsetCommit, CreateTopics) write them
//! themselves and answer a failed write with their own errors.

pub mod routes;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::consumer_group_heartbeat_response::ConsumerGroupHeartbeatResponse;
use kwire_protocol::generated::fetch_response::FetchResponse;
use kwire_protocol::generated::streams_group_heartbeat_response::StreamsGroupHeartbeatResponse;
use kwire_protocol::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;
use kwire_protocol::generated::{Request, Response};
use tokio::sync::{watch, Notify};

use crate::config::ServerConfig;
use crate::context::Ctx;
use crate::events::groups::Cause;
use crate::handlers::fetch;
use crate::reply::{group_response, FetchWait, Reply};
use crate::services::effects::Effects;
use crate::services::open::StartError;
use crate::services::state::State;
use crate::util::now_ms;

/// The state behind its lock, and the wake-up channels around it.
#[derive(Debug)]
pub struct Router {
    state: Mutex<State>,
    /// Bumped after every produce that appended records; held Fetches watch it.
    produced: watch::Sender<u64>,
    /// Woken when the coordinator's timers may have changed.
    timers: Notify,
}

impl Router {
    /// Opens the state ([`State::open`]) and logs what opening it did (the `--topic`s created).
    ///
    /// # Errors
    /// As [`State::open`].
    pub fn open(config: &ServerConfig) -> Result<Router, StartError> {
        let mut state = State::open(config)?;
        let fx = state.fx.take();
        let router = Router {
            state: Mutex::new(state),
            produced: watch::channel(0).0,
            timers: Notify::new(),
        };
        router.apply(fx);
        Ok(router)
    }

    /// Locks the state (a poisoned lock is taken over: handlers never leave state half-changed
    /// across a panic point they could reach, and the server must keep serving).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The state, locked, for tests that look inside.
    #[cfg(test)]
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.lock()
    }

    /// Sets the address Metadata, FindCoordinator and DescribeCluster advertise.
    pub fn set_address(&self, host: String, port: i32) {
        let mut st = self.lock();
        st.cluster.host = host;
        st.cluster.port = port;
    }

    /// Topics known (for the start line).
    pub fn topic_count(&self) -> usize {
        self.lock().topics.len()
    }

    /// Watches for the durable state to break (`Some(reason)`): the server must stop.
    pub fn fatal(&self) -> watch::Receiver<Option<String>> {
        self.lock().store.fatal()
    }

    /// Watches the produce counter (bumped after every produce that appended records).
    pub fn produced(&self) -> watch::Receiver<u64> {
        self.produced.subscribe()
    }

    /// Handles one decoded request (see the module docs). The net layer checked the API and
    /// version against the route table.
    pub fn handle(&self, ctx: &Ctx<'_>, body: Request) -> Reply {
        let route = routes::route_of(body.api_key().as_i16());
        let (reply, mut fx) = {
            let mut st = self.lock();
            let failures = st.store.write_failures();
            let reply = match route {
                Some(r) => (r.handler)(&mut st, ctx, body),
                None => Reply::Close(format!("{} has no route", body.api_key().name())),
            };
            let committed = st.commit().is_ok() && st.store.write_failures() == failures;
            // Classic answers this request made ready (its own or other members').
            st.groups.drain_responses();
            let reply = match reply {
                // Answered at once: no need to hold the connection's queue.
                Reply::Wait(mut w) => match w.answer.try_recv() {
                    Ok(r) => Reply::Respond(group_response(r)),
                    Err(_) => Reply::Wait(w),
                },
                other => other,
            };
            let reply = if committed {
                reply
            } else {
                storage_failure(reply)
            };
            (reply, st.fx.take())
        };
        fx.timers |= route.is_some_and(|r| r.wakes_timers);
        self.apply(fx);
        reply
    }

    /// The answer to a held Fetch now: `None` while it should still wait (unless `force`).
    pub fn fetch_answer(&self, w: &FetchWait, force: bool) -> Option<FetchResponse> {
        let st = self.lock();
        fetch::response(&st.topics, &w.request, w.version, force)
    }

    /// Logs a request's INFO lines and wakes whom it asks for.
    fn apply(&self, fx: Effects) {
        for e in &fx.events {
            e.emit();
        }
        if fx.produced {
            self.produced.send_modify(|n| *n = n.wrapping_add(1));
        }
        if fx.timers {
            self.timers.notify_one();
        }
    }

    /// Fires the coordinator's timers at their deadlines (wall-clock ms) and writes what they
    /// record, forever (the server aborts the task when it stops). Woken early after requests
    /// that may arm an earlier timer.
    pub async fn run_timers(self: Arc<Router>) {
        loop {
            let (next, fx) = {
                let mut st = self.lock();
                let records = st.groups.coordinator.fire_timers(now_ms());
                if !records.is_empty() {
                    tracing::debug!(records = records.len(), "coordinator timers fired");
                    st.queue_records(records, Cause::Timers);
                    // A failure breaks the durable state, and the server stops (see the store).
                    let _ = st.commit();
                }
                // Classic answers the timers made ready (the end of a join or sync phase).
                st.groups.drain_responses();
                (st.groups.coordinator.next_deadline(), st.fx.take())
            };
            self.apply(fx);
            let notified = self.timers.notified();
            match next {
                Some(deadline) => {
                    let wait = u64::try_from(deadline.saturating_sub(now_ms())).unwrap_or(0);
                    // Re-check at least once a minute (wall-clock jumps).
                    let wait = Duration::from_millis(wait.clamp(1, 60_000));
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = notified => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// Writes what is still queued and closes the journal (releasing the data directory).
    pub fn close(&self) {
        let mut st = self.lock();
        if let Err(e) = st.commit() {
            tracing::error!(error = %e, "the last durable writes failed");
        }
        st.store.close();
    }
}

/// The answer to a group heartbeat whose records could not be written: NOT_COORDINATOR, as Kafka
/// translates KAFKA_STORAGE_ERROR for group APIs (the client looks for the coordinator again).
/// Other answers already carry their own errors.
fn storage_failure(out: Reply) -> Reply {
    const MESSAGE: &str = "The coordinator cannot write its durable log.";
    let code = ErrorCode::NotCoordinator.code();
    let message = Some(MESSAGE.into());
    match out {
        Reply::Respond(Response::ConsumerGroupHeartbeat(_)) => Reply::Respond(
            ConsumerGroupHeartbeatResponse {
                error_code: code,
                error_message: message,
                ..Default::default()
            }
            .into(),
        ),
        Reply::Respond(Response::StreamsGroupHeartbeat(_)) => Reply::Respond(
            StreamsGroupHeartbeatResponse {
                error_code: code,
                error_message: message,
                ..Default::default()
            }
            .into(),
        ),
        Reply::Respond(Response::StreamsGroupTopologyDescriptionUpdate(_)) => Reply::Respond(
            StreamsGroupTopologyDescriptionUpdateResponse {
                error_code: code,
                error_message: message,
                ..Default::default()
            }
            .into(),
        ),
        other => other,
    }
}

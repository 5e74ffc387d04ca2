//! Effects: what a request's handling leaves for the router to do once its writes are
//! committed and the state's lock is released: INFO lines to log, and whom to wake (held
//! Fetches after a produce, the coordinator's timer task after a group request).
//!
//! Services and handlers add to the state's [`Effects`] while a request runs; the router takes
//! them ([`Effects::take`]) after the commit and applies them. Nothing here logs or wakes by
//! itself.

use std::fmt;

use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::events::{refused_request, Event};

/// The effects of one request (or one run of the coordinator's timers).
#[derive(Debug, Default)]
pub struct Effects {
    /// INFO lines, in the order they happened.
    pub events: Vec<Event>,
    /// Records were appended to a partition: held Fetches look again.
    pub produced: bool,
    /// The coordinator's timers may have changed: the timer task looks again.
    pub timers: bool,
}

impl Effects {
    /// Adds an INFO line.
    pub fn event(&mut self, e: Event) {
        self.events.push(e);
    }

    /// Adds the line of a refused request of `ctx` ([`refused_request`]).
    pub fn refused(&mut self, ctx: &Ctx<'_>, api: ApiKey, reason: impl fmt::Display) {
        self.events.push(refused_request(ctx, api, reason));
    }

    /// Takes the effects gathered so far, leaving none.
    pub fn take(&mut self) -> Effects {
        std::mem::take(self)
    }
}

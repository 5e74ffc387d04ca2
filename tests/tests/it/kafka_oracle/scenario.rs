//! What a scripted scenario is: its body (a future over the harness's [`Ctx`]) and the flags
//! that say how its two transcripts are compared. A leaf: the scenario lists and the suite
//! runner import it, it imports only the harness.

use super::harness::{Ctx, Fail};
use kwire_protocol::wire::json::Value;
use std::future::Future;
use std::pin::Pin;

/// A scenario's body.
pub type Fut<'a> = Pin<Box<dyn Future<Output = Result<(), Fail>> + Send + 'a>>;

/// One scripted scenario.
pub struct Scenario {
    /// Its name: the group ids it uses start with it.
    pub name: &'static str,
    /// The script.
    pub run: for<'a> fn(&'a mut Ctx) -> Fut<'a>,
    /// Whether it needs classic members inside consumer groups (KIP-848 migration): its
    /// server-side assignments are compared by size (accepted difference A7).
    pub migration: bool,
    /// Whether its first ConsumerGroupHeartbeat creates a new consumer group (epochs compared
    /// relative to that group's first epoch: accepted difference A8).
    pub fresh_consumer_group: bool,
    /// A difference kwire still has in this scenario (reported with its first differing step,
    /// not failed); `None`: the transcripts must be equal.
    pub known_difference: Option<&'static str>,
    /// A scenario excluded from the comparison (a departure such as D1): this check of the two
    /// normalised transcripts (Kafka's, kwire's) replaces it.
    pub own_check: Option<Check>,
}

/// A check of an excluded scenario's transcripts (Kafka's, kwire's): `Err` says what is wrong.
pub type Check = fn(&[(String, Value)], &[(String, Value)]) -> Result<(), Fail>;

impl Scenario {
    pub(super) fn new(name: &'static str, run: for<'a> fn(&'a mut Ctx) -> Fut<'a>) -> Scenario {
        Scenario {
            name,
            run,
            migration: false,
            fresh_consumer_group: false,
            known_difference: None,
            own_check: None,
        }
    }

    pub(super) fn checked_on_its_own(mut self, check: Check) -> Scenario {
        self.own_check = Some(check);
        self
    }

    pub(super) fn migration(mut self) -> Scenario {
        self.migration = true;
        self
    }

    /// Task and partition lists compared by size (tie-breaks of the assignors differ, S2).
    pub(super) fn counts(mut self) -> Scenario {
        self.migration = true;
        self
    }

    pub(super) fn known_difference(mut self, why: &'static str) -> Scenario {
        self.known_difference = Some(why);
        self
    }

    pub(super) fn fresh_consumer_group(mut self) -> Scenario {
        self.fresh_consumer_group = true;
        self
    }
}

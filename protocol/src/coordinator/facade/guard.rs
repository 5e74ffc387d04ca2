//! The proof, in test builds, that a failed request changes nothing (docs/coordinator.md
//! §Transactions; the mechanism: [`commit`](crate::coordinator::commit)). Every request entry
//! point of the facade runs through [`GroupCoordinator::guarded`]; in a test build (the
//! scenario suites and the randomised simulations of every group type drive the facade) it
//! snapshots the state the request could touch — every group of the request's group id, of any
//! type, the number of groups of each type, and every armed timer — and, when the request
//! failed, asserts that the snapshot is unchanged. Outside tests it only runs the request.
//!
//! A request fails when Kafka answers it with an error without writing: a heartbeat or a
//! topology description update with any error; a DeleteGroups whose every group failed; a
//! classic request answered at once with one of its checks' errors (see
//! [`GroupCoordinator::answered_check_error`]) and no record written. The classic answers
//! REBALANCE_IN_PROGRESS (a Heartbeat re-arms the session timer; a classic member inside a
//! consumer group gets a join timer), MEMBER_ID_REQUIRED (KIP-394 keeps the pending member and
//! its session timer) and GROUP_MAX_SIZE_REACHED (the member is removed) are outcomes with
//! effects in Kafka too, so they are not failures.

use super::GroupCoordinator;
use crate::coordinator::outbox::RequestId;

#[cfg(test)]
use crate::coordinator::record::Groups;
#[cfg(test)]
use crate::coordinator::timers::Timers;

/// What a request could change (see the module docs).
#[cfg(test)]
#[derive(Debug, PartialEq)]
struct Snapshot {
    groups: Groups,
    timers: Timers,
}

#[cfg(test)]
impl GroupCoordinator {
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            groups: self.groups.clone(),
            timers: self.ctx.timers.clone(),
        }
    }
}

impl GroupCoordinator {
    /// Runs one request; in a test build asserts that, when `failed` says it failed, the groups
    /// and the armed timers are exactly as before (see the module docs).
    pub(super) fn guarded<R>(
        &mut self,
        run: impl FnOnce(&mut Self) -> R,
        failed: impl FnOnce(&Self, &R) -> bool,
    ) -> R {
        #[cfg(test)]
        let before = self.snapshot();
        let r = run(self);
        #[cfg(test)]
        if failed(self, &r) {
            let after = self.snapshot();
            assert!(
                after.groups == before.groups,
                "a failed request changed the groups: {:?} -> {:?}",
                before.groups,
                after.groups
            );
            assert!(
                after.timers == before.timers,
                "a failed request changed the timers: {:?} -> {:?}",
                before.timers,
                after.timers
            );
        }
        #[cfg(not(test))]
        let _ = failed;
        r
    }

    /// Whether the answer the last call queued for request `id` is one of the classic checks'
    /// errors (a failure, see the module docs); `false` when it waits or succeeded.
    pub(super) fn answered_check_error(&self, id: RequestId) -> bool {
        use crate::error::ErrorCode::{GroupMaxSizeReached, MemberIdRequired, RebalanceInProgress};
        let effects = [
            GroupMaxSizeReached.code(),
            MemberIdRequired.code(),
            RebalanceInProgress.code(),
        ];
        self.ctx
            .outbox
            .error_of(id)
            .is_some_and(|code| code != 0 && !effects.contains(&code))
    }
}

#[cfg(test)]
mod tests {
    use crate::coordinator::timers::TimerKind;
    use crate::coordinator::{ConsumerGroupConfig, GroupCoordinator, SequentialMemberIds};

    fn coordinator() -> GroupCoordinator {
        let ids = Box::new(SequentialMemberIds::new(1));
        GroupCoordinator::new(ConsumerGroupConfig::default(), ids).unwrap()
    }

    #[test]
    #[should_panic(expected = "a failed request changed the timers")]
    fn a_failure_that_arms_a_timer_is_caught() {
        let mut c = coordinator();
        c.guarded(
            |c| c.ctx.timers.arm("g", "m", TimerKind::Session, 5),
            |_, ()| true,
        );
    }

    #[test]
    fn a_success_may_change_state() {
        let mut c = coordinator();
        c.guarded(
            |c| c.ctx.timers.arm("g", "m", TimerKind::Session, 5),
            |_, ()| false,
        );
        assert_eq!(c.next_deadline(), Some(5));
    }
}

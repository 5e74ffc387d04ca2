//! The built-in [`StickyTaskAssignor`]: the active pass, the standby passes and the warm-up
//! refinement in order (the algorithm is in the [module docs](super)).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::super::tasks::TasksTuple;
use super::spec::{GroupSpec, TaskAssignor, TaskAssignorError};
use super::state::State;
use super::warmup::{intended, refine_warmups};

/// The sticky task assignor (`"sticky"`, Kafka's default for streams groups). See the
/// [module documentation](super) for the algorithm and its tie-breaks.
///
/// [`assign`](TaskAssignor::assign) fails only when a subtopology has a negative task count or
/// the topology has more than `u32::MAX` tasks.
#[derive(Debug, Clone, Copy, Default)]
pub struct StickyTaskAssignor;

impl StickyTaskAssignor {
    /// The assignor's name: `"sticky"`.
    pub const NAME: &'static str = "sticky";
}

impl TaskAssignor for StickyTaskAssignor {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn assign(&self, spec: &GroupSpec) -> Result<BTreeMap<String, TasksTuple>, TaskAssignorError> {
        let warmups = spec.num_warmup_replicas > 0;
        // A task held back on its previous owner while a warm-up catches up counts, for the
        // balanced assignment, as the warm-up holder's (see `refine_warmups`).
        let desired = if warmups {
            intended(spec)
        } else {
            Cow::Borrowed(spec)
        };
        let mut state = State::new(&desired)?;
        state.assign_active()?;
        let replicas = u64::try_from(spec.num_standby_replicas).unwrap_or(0);
        if replicas > 0 {
            state.assign_standby(replicas);
            state.balance_standby();
        }
        let mut result = state.into_result();
        if warmups {
            refine_warmups(spec, &mut result);
        }
        Ok(result)
    }
}

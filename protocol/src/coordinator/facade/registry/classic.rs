//! Classic groups as a [`GroupType`].

use super::{GroupType, Listed};
use crate::coordinator::classic::manager::{self as manager, ClassicManager, ClassicSide};
use crate::coordinator::classic::ClassicGroupState;
use crate::coordinator::context::Context;
use crate::coordinator::membership::OffsetMember;
use crate::coordinator::record::{Groups, Record};
use crate::coordinator::timers::Due;
use crate::error::ErrorCode;
use crate::generated::describe_groups_response::DescribedGroup;

impl ClassicSide {
    /// The classic groups' manager, lent the context and the classic groups for one call at
    /// `now_ms`.
    pub(crate) fn manager<'a>(
        &'a mut self,
        ctx: &'a mut Context,
        groups: &'a mut Groups,
        now_ms: i64,
    ) -> ClassicManager<'a> {
        ClassicManager {
            ctx,
            side: self,
            groups: &mut groups.classic,
            records: Vec::new(),
            now_ms,
        }
    }
}

impl GroupType for ClassicSide {
    fn name(&self) -> &'static str {
        "classic"
    }

    fn holds(&self, groups: &Groups, group_id: &str) -> bool {
        groups.classic.contains_key(group_id)
    }

    fn list(&self, groups: &Groups, out: &mut Vec<Listed>) {
        for (id, g) in &groups.classic {
            let pt = g.protocol_type.clone().unwrap_or_default();
            out.push((id.clone(), pt, g.state.as_str(), self.name()));
        }
    }

    fn describe_groups(&self, groups: &Groups, group_id: &str, _version: i16) -> DescribedGroup {
        groups
            .classic
            .get(group_id)
            .map(manager::describe::described_group)
            .unwrap_or_default()
    }

    fn delete(
        &mut self,
        ctx: &mut Context,
        groups: &mut Groups,
        group_id: &str,
        now_ms: i64,
    ) -> Result<Vec<Record>, ErrorCode> {
        if groups
            .classic
            .get(group_id)
            .is_some_and(|g| !g.is(ClassicGroupState::Empty))
        {
            return Err(ErrorCode::NonEmptyGroup);
        }
        let mut m = self.manager(ctx, groups, now_ms);
        m.delete(group_id);
        Ok(m.records.into_iter().map(Record::Classic).collect())
    }

    fn validate_offset_commit(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16 {
        groups
            .classic
            .get(group_id)
            .map_or(0, |g| manager::offsets::validate_offset_commit(g, m))
    }

    /// Kafka's `ClassicGroup.validateOffsetFetch` checks nothing of a live classic group.
    fn validate_offset_fetch(
        &self,
        _groups: &Groups,
        _group_id: &str,
        _m: &OffsetMember<'_>,
    ) -> i16 {
        ErrorCode::None.code()
    }

    fn rearm(&mut self, ctx: &mut Context, groups: &mut Groups, now_ms: i64) {
        self.manager(ctx, groups, now_ms).rearm();
    }

    fn fire(&mut self, ctx: &mut Context, groups: &mut Groups, due: &Due) -> Vec<Record> {
        let mut m = self.manager(ctx, groups, due.deadline);
        m.fire(due);
        m.records.into_iter().map(Record::Classic).collect()
    }
}

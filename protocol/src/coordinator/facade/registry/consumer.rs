//! Consumer groups (KIP-848) as a [`GroupType`].

use super::{delete_if_empty, GroupType, Listed};
use crate::coordinator::consumer::manager::{self as manager, ConsumerManager, ConsumerSide};
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::Context;
use crate::coordinator::membership::{offset_commit_code, offset_epoch_code, OffsetMember};
use crate::coordinator::record::{Groups, Record};
use crate::coordinator::timers::Due;
use crate::error::ErrorCode;

impl ConsumerSide {
    fn manager<'a>(
        &'a mut self,
        ctx: &'a mut Context,
        groups: &'a mut Groups,
    ) -> ConsumerManager<'a> {
        ConsumerManager {
            ctx,
            side: self,
            groups: &mut groups.consumer,
        }
    }
}

impl GroupType for ConsumerSide {
    fn name(&self) -> &'static str {
        "consumer"
    }

    fn holds(&self, groups: &Groups, group_id: &str) -> bool {
        groups.consumer.contains_key(group_id)
    }

    fn list(&self, groups: &Groups, out: &mut Vec<Listed>) {
        for (id, g) in &groups.consumer {
            out.push((id.clone(), "consumer".into(), g.state.as_str(), self.name()));
        }
    }

    fn delete(
        &mut self,
        _ctx: &mut Context,
        groups: &mut Groups,
        group_id: &str,
        _now_ms: i64,
    ) -> Result<Vec<Record>, ErrorCode> {
        let members = groups.consumer.get(group_id).map(|g| g.members.len());
        let r = Record::Consumer(ConsumerRecord::group_tombstone(group_id));
        delete_if_empty(groups, members, r)
    }

    fn validate_offset_commit(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16 {
        let (member, has_members) = manager::offset_member(&groups.consumer, group_id, m.member_id)
            .unwrap_or((None, false));
        offset_commit_code(m, has_members, member)
    }

    fn validate_offset_fetch(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16 {
        let member =
            manager::offset_member(&groups.consumer, group_id, m.member_id).and_then(|x| x.0);
        offset_epoch_code(m.epoch, member)
    }

    fn rearm(&mut self, ctx: &mut Context, groups: &mut Groups, now_ms: i64) {
        self.manager(ctx, groups).rearm(now_ms);
    }

    fn fire(&mut self, ctx: &mut Context, groups: &mut Groups, due: &Due) -> Vec<Record> {
        let out = self.manager(ctx, groups).fire(due);
        out.into_iter().map(Record::Consumer).collect()
    }

    fn metadata_changed(
        &mut self,
        ctx: &mut Context,
        groups: &mut Groups,
        now_ms: i64,
    ) -> Vec<Record> {
        let out = self.manager(ctx, groups).metadata_changed(now_ms);
        out.into_iter().map(Record::Consumer).collect()
    }
}

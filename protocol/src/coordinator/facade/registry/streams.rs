//! Streams groups (KIP-1071) as a [`GroupType`].

use super::{delete_if_empty, GroupType, Listed};
use crate::coordinator::context::{Context, Others};
use crate::coordinator::membership::{offset_commit_code, offset_epoch_code, OffsetMember};
use crate::coordinator::record::{Groups, Record};
use crate::coordinator::streams::manager::{self as manager, StreamsManager, StreamsSide};
use crate::coordinator::streams::StreamsRecord;
use crate::coordinator::timers::Due;
use crate::error::ErrorCode;
use crate::generated::kwire_streams_group_metadata_key::KwireStreamsGroupMetadataKey;

impl StreamsSide {
    /// The streams groups' manager, lent the context and the streams groups for one call.
    pub(crate) fn manager<'a>(
        &'a mut self,
        ctx: &'a mut Context,
        groups: &'a mut Groups,
    ) -> StreamsManager<'a> {
        StreamsManager {
            ctx,
            side: self,
            groups: &mut groups.streams,
            others: Others(vec![&groups.consumer, &groups.classic]),
        }
    }

    /// The member (its epoch; streams members never speak the classic protocol) of
    /// `member_id` and whether the group has members.
    fn offset_member(
        groups: &Groups,
        group_id: &str,
        member_id: &str,
    ) -> (Option<(i32, bool)>, bool) {
        match manager::member_epoch(&groups.streams, group_id, member_id) {
            Some((e, has_members)) => (e.ok().map(|e| (e, false)), has_members),
            None => (None, false),
        }
    }
}

impl GroupType for StreamsSide {
    fn name(&self) -> &'static str {
        "streams"
    }

    fn holds(&self, groups: &Groups, group_id: &str) -> bool {
        groups.streams.contains_key(group_id)
    }

    fn list(&self, groups: &Groups, out: &mut Vec<Listed>) {
        for (id, g) in &groups.streams {
            out.push((id.clone(), "streams".into(), g.state.as_str(), self.name()));
        }
    }

    fn delete(
        &mut self,
        _ctx: &mut Context,
        groups: &mut Groups,
        group_id: &str,
        _now_ms: i64,
    ) -> Result<Vec<Record>, ErrorCode> {
        let members = groups.streams.get(group_id).map(|g| g.members.len());
        let key = KwireStreamsGroupMetadataKey {
            group_id: group_id.to_string().into(),
        };
        let records = delete_if_empty(
            groups,
            members,
            Record::Streams(StreamsRecord::GroupMetadata(key, None)),
        )?;
        // Kafka 4.4 clears a deleted group's topology-description backoff.
        if let Some(v) = self.volatile.get_mut(group_id) {
            v.description_ask = None;
        }
        Ok(records)
    }

    fn validate_offset_commit(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16 {
        let (member, has_members) = Self::offset_member(groups, group_id, m.member_id);
        offset_commit_code(m, has_members, member)
    }

    fn validate_offset_fetch(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16 {
        offset_epoch_code(
            m.epoch,
            Self::offset_member(groups, group_id, m.member_id).0,
        )
    }

    fn rearm(&mut self, ctx: &mut Context, groups: &mut Groups, now_ms: i64) {
        self.manager(ctx, groups).rearm(now_ms);
    }

    fn fire(&mut self, ctx: &mut Context, groups: &mut Groups, due: &Due) -> Vec<Record> {
        let out = self.manager(ctx, groups).fire(due);
        out.into_iter().map(Record::Streams).collect()
    }

    fn metadata_changed(
        &mut self,
        ctx: &mut Context,
        groups: &mut Groups,
        _now_ms: i64,
    ) -> Vec<Record> {
        let out = self.manager(ctx, groups).metadata_changed();
        out.into_iter().map(Record::Streams).collect()
    }
}

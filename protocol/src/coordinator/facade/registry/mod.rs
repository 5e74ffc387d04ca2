//! The group types the facade serves, behind one interface: [`GroupType`], in the manner of
//! Kafka's `Group` interface (`ClassicGroup`, `ConsumerGroup`, `StreamsGroup`), and the
//! [`Registry`] that holds one of each with its configuration and soft state. ListGroups,
//! DescribeGroups, DeleteGroups, the offset commit and fetch checks, timers, topic changes and
//! loading iterate the registry (one group-id namespace: at most one type holds an id) and never
//! ask which type a group is.
//!
//! **Adding a group type** (share groups, say): a sibling folder `coordinator/share/` with its
//! state, records (their `apply`, [`commit::Apply`](crate::coordinator::commit::Apply)) and a
//! manager; in `record.rs` a [`Record`] variant, a [`Groups`] field and an arm of `apply`;
//! here, a file `share.rs` with `impl GroupType for ShareSide` (its name, its groups, how it lists, deletes, checks
//! offsets, fires and re-arms timers) and its entry in [`Registry`] (a field, and one element
//! of [`Registry::all`] and [`Registry::all_mut`]). The facade's list, describe, delete, offset,
//! timer, topic and load code does not change; the group type's own requests (its heartbeat)
//! are new facade methods.

mod classic;
mod consumer;
mod streams;

use crate::coordinator::classic::manager::ClassicSide;
use crate::coordinator::consumer::manager::ConsumerSide;
use crate::coordinator::context::Context;
use crate::coordinator::membership::OffsetMember;
use crate::coordinator::record::{apply, Groups, Record};
use crate::coordinator::streams::manager::StreamsSide;
use crate::coordinator::timers::Due;
use crate::error::ErrorCode;
use crate::generated::describe_groups_response::DescribedGroup;

/// A DescribeGroups entry for a group id that is no classic group: state `Dead`, no members;
/// no error below v6, GROUP_ID_NOT_FOUND with `message` from v6 (KIP-1043).
pub(crate) fn dead_group(group_id: &str, message: String, version: i16) -> DescribedGroup {
    let v6 = version >= 6;
    DescribedGroup {
        error_code: if v6 {
            ErrorCode::GroupIdNotFound.code()
        } else {
            ErrorCode::None.code()
        },
        error_message: v6.then(|| message.into()),
        group_id: group_id.to_string().into(),
        group_state: "Dead".into(),
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

/// One row of ListGroups: group id, protocol type, state, group type (Kafka's
/// `ListGroupsResponseData.ListedGroup`).
pub(crate) type Listed = (String, String, &'static str, &'static str);

/// What the facade asks of every group type (Kafka's `Group` interface). Each method gets the
/// state of every group type ([`Groups`]) and reads or writes its own part.
pub(crate) trait GroupType {
    /// Kafka's `Group.Type` name: `classic`, `consumer`, `streams` (ListGroups v5 `GroupType`
    /// and its types filter).
    fn name(&self) -> &'static str;

    /// Whether a group of this type has id `group_id`.
    fn holds(&self, groups: &Groups, group_id: &str) -> bool;

    /// Appends every group of this type as ListGroups shows it.
    fn list(&self, groups: &Groups, out: &mut Vec<Listed>);

    /// The DescribeGroups (v0-6) entry of `group_id`, a group of this type. DescribeGroups is
    /// the classic protocol's: Kafka answers any other type `Dead`, with GROUP_ID_NOT_FOUND
    /// `Group G is not a classic group.` from v6 (KIP-1043), the default.
    fn describe_groups(&self, _groups: &Groups, group_id: &str, version: i16) -> DescribedGroup {
        dead_group(
            group_id,
            format!("Group {group_id} is not a classic group."),
            version,
        )
    }

    /// DeleteGroups of `group_id`, a group of this type: Kafka's `validateDeleteGroup`, then
    /// the group's tombstones, applied.
    ///
    /// # Errors
    /// NON_EMPTY_GROUP for a group with members (a classic group not Empty).
    fn delete(
        &mut self,
        ctx: &mut Context,
        groups: &mut Groups,
        group_id: &str,
        now_ms: i64,
    ) -> Result<Vec<Record>, ErrorCode>;

    /// Kafka's `validateOffsetCommit` of `group_id`, a group of this type: the error code to
    /// answer every partition with (0 for none).
    fn validate_offset_commit(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16;

    /// Kafka's `validateOffsetFetch` of `group_id`, a group of this type (a fetch without
    /// member id at epoch -1 never gets here): the error code (0 for none).
    fn validate_offset_fetch(&self, groups: &Groups, group_id: &str, m: &OffsetMember<'_>) -> i16;

    /// Re-arms the volatile timers of every group of this type after a replay (D6).
    fn rearm(&mut self, ctx: &mut Context, groups: &mut Groups, now_ms: i64);

    /// Fires `due`, a timer of a group of this type; returns the records written.
    fn fire(&mut self, ctx: &mut Context, groups: &mut Groups, due: &Due) -> Vec<Record>;

    /// Follows new topic metadata (already in `ctx`); returns the records written.
    fn metadata_changed(
        &mut self,
        _ctx: &mut Context,
        _groups: &mut Groups,
        _now_ms: i64,
    ) -> Vec<Record> {
        Vec::new()
    }
}

/// DeleteGroups of a group with `members` members (`None`: absent) whose deletion is the
/// single tombstone `tombstone` (Kafka's `validateDeleteGroup` of consumer and streams groups).
///
/// # Errors
/// NON_EMPTY_GROUP for a group with members.
fn delete_if_empty(
    groups: &mut Groups,
    members: Option<usize>,
    tombstone: Record,
) -> Result<Vec<Record>, ErrorCode> {
    if members.is_some_and(|n| n > 0) {
        return Err(ErrorCode::NonEmptyGroup);
    }
    apply(groups, &tombstone);
    Ok(vec![tombstone])
}

/// Every group type the coordinator serves, with its configuration and soft state. The one
/// place a group type registers: a field here and its element in [`Registry::all`] and
/// [`Registry::all_mut`] (in ListGroups' tie order and `set_topics`' order of effects).
#[derive(Debug)]
pub(crate) struct Registry {
    pub classic: ClassicSide,
    pub consumer: ConsumerSide,
    pub streams: StreamsSide,
}

impl Registry {
    /// Every group type.
    pub fn all(&self) -> [&dyn GroupType; 3] {
        [&self.classic, &self.consumer, &self.streams]
    }

    /// Every group type, mutably.
    pub fn all_mut(&mut self) -> [&mut dyn GroupType; 3] {
        [&mut self.classic, &mut self.consumer, &mut self.streams]
    }

    /// The group type holding `group_id` (one group-id namespace), if any.
    pub fn holder(&self, groups: &Groups, group_id: &str) -> Option<&dyn GroupType> {
        self.all().into_iter().find(|t| t.holds(groups, group_id))
    }

    /// The group type holding `group_id`, mutably.
    pub fn holder_mut(&mut self, groups: &Groups, group_id: &str) -> Option<&mut dyn GroupType> {
        self.all_mut()
            .into_iter()
            .find(|t| t.holds(groups, group_id))
    }
}

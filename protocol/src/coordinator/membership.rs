//! What consumer groups (KIP-848) and streams groups (KIP-1071) share about their members,
//! written once: looking up the member a heartbeat names (by member id or static instance id),
//! Kafka's member-epoch check, the member a leave names, the "group not found" answers and the
//! member check of offset commits and fetches. The two group types differ only in their words
//! ([`Terms`]: "consumer" and "partitions", "streams" and "tasks") and in a small parameter
//! where Kafka's rules differ (which static member a join may replace, what "owns only what is
//! assigned" means for partitions or tasks).
//!
//! Sources: Kafka 4.4's `GroupMetadataManager` (`throwIfMemberEpochIsInvalid`,
//! `getOrMaybeCreateMember`, `getOrMaybeCreateStaticMember`, `throwIfInstanceIdIsFenced`,
//! `throwIfStaticMemberIsUnknown`, `consumerGroupLeave` / `streamsGroupLeave`) and the
//! `validateOffsetCommit` / `validateOffsetFetch` of `ConsumerGroup` and `StreamsGroup`.
//!
//! This module imports nothing from the coordinator but [`super::context`]; group types import
//! it, and implement [`GroupMember`] and [`MemberGroup`] for their member and group types.

use super::context::{fail, HbError};
use crate::error::ErrorCode;

/// The words a group type's messages use: Kafka's texts for consumer and streams groups differ
/// only in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terms {
    /// The group type in lower case (`consumer`, `streams`): "Group G is not a consumer group."
    pub group: &'static str,
    /// The group type capitalised (`Consumer`, `Streams`): "Consumer group G not found."
    pub group_title: &'static str,
    /// What a member owns (`partitions`, `tasks`): "The member must abandon all its tasks".
    pub owns: &'static str,
}

/// A consumer group's words.
pub(crate) const CONSUMER: Terms = Terms {
    group: "consumer",
    group_title: "Consumer",
    owns: "partitions",
};

/// A streams group's words.
#[allow(dead_code)] // the streams group type adopts the shared checks
pub(crate) const STREAMS: Terms = Terms {
    group: "streams",
    group_title: "Streams",
    owns: "tasks",
};

/// A member of a consumer or streams group, as the shared checks read it.
#[allow(dead_code)] // the comparisons: the streams group type adopts them
pub(crate) trait GroupMember {
    /// What a heartbeat reports as owned (partitions by topic, or tasks by role).
    type Owned: ?Sized;

    /// The member id.
    fn member_id(&self) -> &str;
    /// The member epoch M (-2 after a static temporary leave).
    fn member_epoch(&self) -> i32;
    /// The epoch before M (accepted when the answer that carried M was lost).
    fn previous_member_epoch(&self) -> i32;
    /// Whether everything in `owned` is assigned to the member (Kafka's `isSubset` of the owned
    /// partitions or tasks in the assigned ones).
    fn owns_only_assigned(&self, owned: &Self::Owned) -> bool;
    /// Whether the fields of the member-metadata record are equal (a heartbeat writes the
    /// member only when they changed).
    fn same_metadata(&self, other: &Self) -> bool;
    /// Whether the fields of the current-assignment record are equal (a heartbeat writes the
    /// member's current assignment only when they changed).
    fn same_assignment(&self, other: &Self) -> bool;
}

/// A group whose members the shared checks look up.
pub(crate) trait MemberGroup {
    /// The group type's member.
    type Member: GroupMember;

    /// The group id.
    fn group_id(&self) -> &str;
    /// The member with id `member_id`.
    fn member(&self, member_id: &str) -> Option<&Self::Member>;
    /// The member holding static instance id `instance_id`.
    fn static_member(&self, instance_id: &str) -> Option<&Self::Member>;
}

/// Kafka's `throwIfMemberEpochIsInvalid`: an epoch above the member's is FENCED_MEMBER_EPOCH;
/// one below it is tolerated only when it is the member's previous epoch and the member owns
/// only what is assigned to it (`owned` given: the answer carrying the new epoch may have been
/// lost); otherwise FENCED_MEMBER_EPOCH too.
///
/// # Errors
/// FENCED_MEMBER_EPOCH with Kafka's message in `terms`' words.
pub(crate) fn check_member_epoch<M: GroupMember>(
    m: &M,
    received: i32,
    owned: Option<&M::Owned>,
    terms: Terms,
) -> Result<(), HbError> {
    let stored = m.member_epoch();
    let which = if received > stored {
        "greater"
    } else if received < stored
        && !(received == m.previous_member_epoch()
            && owned.is_some_and(|o| m.owns_only_assigned(o)))
    {
        "smaller"
    } else {
        return Ok(());
    };
    fail(
        ErrorCode::FencedMemberEpoch.code(),
        format!(
            "The {} group member has a {which} member epoch ({received}) than the one known by the group coordinator ({stored}). The member must abandon all its {} and rejoin.",
            terms.group, terms.owns
        ),
    )
}

/// FENCED_MEMBER_EPOCH for a member in a state this coordinator does not know (written by a
/// newer one) that still reports owned partitions or tasks (Kafka's `UNKNOWN` member state).
pub(crate) fn unknown_state(terms: Terms) -> HbError {
    HbError {
        code: ErrorCode::FencedMemberEpoch.code(),
        message: Some(format!(
            "The {} group member is in a unknown state. The member must abandon all its {} and rejoin.",
            terms.group, terms.owns
        )),
    }
}

/// The member a heartbeat at epoch ≥ 0 is for.
#[derive(Debug)]
pub(crate) enum Resolved<'g, M> {
    /// A member of the group (its epoch checked unless the heartbeat is a rejoin at epoch 0).
    Existing(&'g M),
    /// A new member (epoch 0, no member of that id or instance id).
    New,
    /// A static member joining (epoch 0) under a new member id in place of the member holding
    /// its instance id (Kafka's static member replacement).
    Replaces(&'g M),
}

/// Kafka's `getOrMaybeCreateMember` / `getOrMaybeCreateStaticMember` with
/// `throwIfMemberEpochIsInvalid`: the member `member_id` (or, with an instance id, the member
/// holding it) of `g`, its epoch checked against `epoch` (not at 0). At epoch 0 an unknown
/// member is new, and a static member whose instance id is held by another member id replaces
/// it when `may_replace(holder)` (Kafka: the holder left with -2; a consumer group also lets
/// classic-protocol members be replaced).
///
/// # Errors
/// UNKNOWN_MEMBER_ID (member or instance id unknown), FENCED_INSTANCE_ID (the instance id is
/// held by another member id), UNRELEASED_INSTANCE_ID (a join for an instance id not released),
/// FENCED_MEMBER_EPOCH ([`check_member_epoch`]); Kafka's messages.
pub(crate) fn resolve_member<'g, G: MemberGroup>(
    g: &'g G,
    member_id: &str,
    instance_id: Option<&str>,
    epoch: i32,
    owned: Option<&<G::Member as GroupMember>::Owned>,
    may_replace: impl FnOnce(&G::Member) -> bool,
    terms: Terms,
) -> Result<Resolved<'g, G::Member>, HbError> {
    let Some(iid) = instance_id else {
        return match g.member(member_id) {
            Some(m) if epoch != 0 => {
                check_member_epoch(m, epoch, owned, terms).map(|()| Resolved::Existing(m))
            }
            Some(m) => Ok(Resolved::Existing(m)),
            None if epoch == 0 => Ok(Resolved::New),
            None => Err(unknown_member(g, member_id)),
        };
    };
    match (g.static_member(iid), epoch) {
        (None, 0) => Ok(g.member(member_id).map_or(Resolved::New, Resolved::Existing)),
        (Some(h), 0) if may_replace(h) => Ok(Resolved::Replaces(h)),
        (Some(h), 0) => fail(
            ErrorCode::UnreleasedInstanceId.code(),
            format!(
                "Static member {member_id} with instance id {iid} cannot join the group because the instance id is owned by {} member.",
                h.member_id()
            ),
        ),
        (None, _) => Err(unknown_instance(iid)),
        (Some(h), _) => {
            check_instance_owner(h, member_id, iid)?;
            check_member_epoch(h, epoch, owned, terms)?;
            Ok(Resolved::Existing(h))
        }
    }
}

/// The member a leave (-1) or a static temporary leave (-2) names: by instance id when given
/// (Kafka's `throwIfStaticMemberIsUnknown` and `throwIfInstanceIdIsFenced`), else by member id.
///
/// # Errors
/// UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID; Kafka's messages.
pub(crate) fn resolve_leaving<'g, G: MemberGroup>(
    g: &'g G,
    member_id: &str,
    instance_id: Option<&str>,
) -> Result<&'g G::Member, HbError> {
    match instance_id {
        None => g
            .member(member_id)
            .ok_or_else(|| unknown_member(g, member_id)),
        Some(iid) => {
            let h = g.static_member(iid).ok_or_else(|| unknown_instance(iid))?;
            check_instance_owner(h, member_id, iid)?;
            Ok(h)
        }
    }
}

/// Kafka's `throwIfInstanceIdIsFenced`: FENCED_INSTANCE_ID when the instance id is held by
/// another member id.
fn check_instance_owner<M: GroupMember>(
    holder: &M,
    member_id: &str,
    iid: &str,
) -> Result<(), HbError> {
    if holder.member_id() == member_id {
        return Ok(());
    }
    fail(
        ErrorCode::FencedInstanceId.code(),
        format!(
            "Static member {member_id} with instance id {iid} was fenced by member {}.",
            holder.member_id()
        ),
    )
}

/// UNKNOWN_MEMBER_ID for a member id the group does not hold.
fn unknown_member<G: MemberGroup>(g: &G, member_id: &str) -> HbError {
    HbError {
        code: ErrorCode::UnknownMemberId.code(),
        message: Some(format!(
            "Member {member_id} is not a member of group {}.",
            g.group_id()
        )),
    }
}

/// UNKNOWN_MEMBER_ID for an instance id no member holds.
fn unknown_instance(iid: &str) -> HbError {
    HbError {
        code: ErrorCode::UnknownMemberId.code(),
        message: Some(format!("Instance id {iid} is unknown.")),
    }
}

/// GROUP_ID_NOT_FOUND for a heartbeat to a group this type does not hold: `Group G is not a
/// consumer group.` when another group type holds the id, else `Consumer group G not found.`
/// (in `terms`' words).
pub(crate) fn group_not_found(terms: Terms, group_id: &str, other_type: bool) -> HbError {
    let message = if other_type {
        format!("Group {group_id} is not a {} group.", terms.group)
    } else {
        format!("{} group {group_id} not found.", terms.group_title)
    };
    HbError {
        code: ErrorCode::GroupIdNotFound.code(),
        message: Some(message),
    }
}

/// The member fields of an offset commit or fetch, as the group types check them (Kafka's
/// `Group.validateOffsetCommit` / `validateOffsetFetch` arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OffsetMember<'a> {
    /// The request's member id ("" from the admin client or a consumer assigning itself).
    pub member_id: &'a str,
    /// The request's group instance id (classic groups check it).
    pub instance_id: Option<&'a str>,
    /// The generation id (classic groups) or member epoch (consumer and streams groups).
    pub epoch: i32,
    /// Whether the commit is transactional (TxnOffsetCommit; classic groups skip some checks).
    pub transactional: bool,
    /// The request's API version.
    pub api_version: i16,
}

/// Kafka's `validateOffsetCommit` of a consumer or streams group with member epochs: a commit
/// without member id and with a negative epoch (the admin client) is accepted while the group
/// has no members (UNKNOWN_MEMBER_ID otherwise); an unknown member is UNKNOWN_MEMBER_ID; an
/// epoch other than the member's is STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for a member
/// that speaks the classic protocol (its generation is its member epoch; Kafka 4.4's
/// `validateMemberEpoch`). `member` is the member's (epoch, uses the classic protocol), `None`
/// for an unknown member. Returns the error code (0 for none).
pub(crate) fn offset_commit_code(
    c: &OffsetMember<'_>,
    has_members: bool,
    member: Option<(i32, bool)>,
) -> i16 {
    if c.member_id.is_empty() && c.epoch < 0 {
        return if has_members {
            ErrorCode::UnknownMemberId.code()
        } else {
            ErrorCode::None.code()
        };
    }
    offset_epoch_code(c.epoch, member)
}

/// The member-epoch part of [`offset_commit_code`], also Kafka's `validateOffsetFetch` of a
/// consumer or streams group (a fetch without member id and with epoch -1 is never checked, by
/// the facade).
pub(crate) fn offset_epoch_code(received: i32, member: Option<(i32, bool)>) -> i16 {
    match member {
        None => ErrorCode::UnknownMemberId.code(),
        Some((e, true)) if e != received => ErrorCode::IllegalGeneration.code(),
        Some((e, false)) if e != received => ErrorCode::StaleMemberEpoch.code(),
        Some(_) => ErrorCode::None.code(),
    }
}

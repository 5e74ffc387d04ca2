//! The member checks of OffsetCommit and OffsetFetch over every group type (Kafka's
//! `Group.validateOffsetCommit` / `validateOffsetFetch`, called by
//! `GroupCoordinatorShard.commitOffset` / `fetchOffsets`): the group type holding the id
//! checks; an id no group holds has the facade's rules.

use super::GroupCoordinator;
use crate::coordinator::classic::manager::offsets as classic;
use crate::coordinator::membership::OffsetMember;
use crate::error::ErrorCode;

impl GroupCoordinator {
    /// Checks the member fields of an OffsetCommit against the group (Kafka's
    /// `validateOffsetCommit` of the group type holding `group_id`; for a classic group with
    /// `member_epoch` as the generation id and no group instance id, see
    /// [`GroupCoordinator::validate_classic_offset_commit`]). Returns the error code to
    /// answer every partition with, or [`ErrorCode::None`] (0):
    /// - a negative epoch and no member id (the admin client, or a consumer that assigns
    ///   partitions itself): accepted while the group has no members (or does not exist),
    ///   else UNKNOWN_MEMBER_ID (25);
    /// - a member id or epoch for a group that does not exist: GROUP_ID_NOT_FOUND (69) (Kafka
    ///   answers ILLEGAL_GENERATION (22) below v9; `api_version` selects);
    /// - an unknown member id: UNKNOWN_MEMBER_ID (25);
    /// - an epoch other than the member's current one: STALE_MEMBER_EPOCH (113), or
    ///   ILLEGAL_GENERATION (22) for a classic-protocol member of a consumer group, whose
    ///   generation id is its member epoch (KIP-848 online migration).
    pub fn validate_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        member_epoch: i32,
        api_version: i16,
    ) -> i16 {
        let m = OffsetMember {
            member_id,
            instance_id: None,
            epoch: member_epoch,
            transactional: false,
            api_version,
        };
        match self.types.holder(&self.groups, group_id) {
            Some(t) => t.validate_offset_commit(&self.groups, group_id, &m),
            None if member_id.is_empty() && member_epoch < 0 => ErrorCode::None.code(),
            None if api_version >= 9 => ErrorCode::GroupIdNotFound.code(),
            None => ErrorCode::IllegalGeneration.code(),
        }
    }

    /// Checks the member fields of an OffsetFetch (v9+) (Kafka's `validateOffsetFetch`): a
    /// fetch without member id and with epoch -1 (the admin client, or a consumer asking before
    /// it joined) is never checked; otherwise as [`GroupCoordinator::validate_offset_commit`]
    /// at v9, except that a group that does not exist is not an error (there is nothing to
    /// fence; its offsets read as -1) and a classic group checks nothing.
    pub fn validate_offset_fetch(&self, group_id: &str, member_id: &str, member_epoch: i32) -> i16 {
        if member_id.is_empty() && member_epoch < 0 {
            return ErrorCode::None.code();
        }
        let m = OffsetMember {
            member_id,
            instance_id: None,
            epoch: member_epoch,
            transactional: false,
            api_version: 9,
        };
        self.types
            .holder(&self.groups, group_id)
            .map_or(ErrorCode::None.code(), |t| {
                t.validate_offset_fetch(&self.groups, group_id, &m)
            })
    }

    /// Checks the member fields of an OffsetCommit against a classic group (Kafka's
    /// `ClassicGroup.validateOffsetCommit`; `generation_id` is the request's generation id):
    /// `Some(code)` when `group_id` is a classic group, `None` otherwise. A negative generation
    /// with no member id and no instance id commits only into an Empty group
    /// (UNKNOWN_MEMBER_ID otherwise); any member field: Kafka's member check
    /// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), then ILLEGAL_GENERATION unless the generation
    /// is the group's; REBALANCE_IN_PROGRESS while CompletingRebalance (not for transactional
    /// commits).
    pub fn validate_classic_offset_commit(
        &self,
        group_id: &str,
        member_id: &str,
        group_instance_id: Option<&str>,
        generation_id: i32,
        transactional: bool,
    ) -> Option<i16> {
        let m = OffsetMember {
            member_id,
            instance_id: group_instance_id,
            epoch: generation_id,
            transactional,
            api_version: 9,
        };
        let g = self.groups.classic.get(group_id)?;
        Some(classic::validate_offset_commit(g, &m))
    }
}

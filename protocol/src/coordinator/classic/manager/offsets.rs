//! The OffsetCommit check of a classic group (Kafka's `ClassicGroup.validateOffsetCommit`).

use super::validate_member;
use crate::coordinator::classic::group::{ClassicGroup, ClassicGroupState};
use crate::coordinator::membership::OffsetMember;
use crate::error::ErrorCode;

/// Kafka's `ClassicGroup.validateOffsetCommit` (`m.epoch` is the request's generation id): a
/// negative generation with no member id and no instance id commits only into an Empty group
/// (UNKNOWN_MEMBER_ID otherwise, unless transactional); any member field: the member check
/// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID), then ILLEGAL_GENERATION unless the generation is
/// the group's; REBALANCE_IN_PROGRESS while CompletingRebalance (not for transactional
/// commits). Returns the error code (0 for none).
pub(crate) fn validate_offset_commit(g: &ClassicGroup, m: &OffsetMember<'_>) -> i16 {
    let empty = g.is(ClassicGroupState::Empty);
    if m.epoch < 0 && empty {
        return ErrorCode::None.code();
    }
    if m.epoch >= 0 || !m.member_id.is_empty() || m.instance_id.is_some() {
        if let Err(e) = validate_member(g, m.member_id, m.instance_id) {
            return e.code();
        }
        if m.epoch != g.generation_id {
            return ErrorCode::IllegalGeneration.code();
        }
    } else if !m.transactional && !empty {
        return ErrorCode::UnknownMemberId.code();
    }
    if !m.transactional && g.is(ClassicGroupState::CompletingRebalance) {
        return ErrorCode::RebalanceInProgress.code();
    }
    ErrorCode::None.code()
}

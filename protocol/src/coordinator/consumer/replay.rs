//! Applying consumer-group records to the state (Kafka's `GroupMetadataManager.replay` for the
//! consumer-group record types). The coordinator changes consumer-group state only through
//! [`apply`], so the state it holds is, by construction, what [`replay`] rebuilds.

use super::group::{
    ConsumerGroup, ConsumerGroupMember, ConsumerGroups, MemberState, ResolvedRegex,
};
use super::records::{
    assignment_from_current, assignment_from_target, classic_from_record, ConsumerRecord,
};
use crate::coordinator::commit;
use crate::generated::kwire_consumer_group_current_member_assignment_value::KwireConsumerGroupCurrentMemberAssignmentValue;
use crate::generated::kwire_consumer_group_member_metadata_value::KwireConsumerGroupMemberMetadataValue;

/// Applies one record to the consumer groups (Kafka's `replay`). Tolerates missing entries
/// (as Kafka's `GroupMetadataManager` does): a tombstone for something absent is a no-op.
pub fn apply(groups: &mut ConsumerGroups, record: &ConsumerRecord) {
    let gid = record.group_id();
    match record {
        ConsumerRecord::GroupMetadata(_, None) => {
            groups.remove(gid);
            return;
        }
        ConsumerRecord::GroupMetadata(_, Some(v)) => {
            let g = group_mut(groups, gid);
            g.group_epoch = v.epoch;
            g.metadata_hash = v.metadata_hash as u64;
        }
        ConsumerRecord::MemberMetadata(k, Some(v)) => {
            let g = group_mut(groups, gid);
            let m = member_from(g.members.get(&*k.member_id), &k.member_id, v);
            g.put_member(m);
        }
        ConsumerRecord::MemberMetadata(k, None) => {
            if let Some(g) = groups.get_mut(gid) {
                g.remove_member(&k.member_id);
            }
        }
        ConsumerRecord::TargetAssignmentMetadata(_, v) => {
            if let Some(v) = v {
                group_mut(groups, gid).assignment_epoch = v.assignment_epoch;
            }
        }
        ConsumerRecord::TargetAssignmentMember(k, Some(v)) => {
            let target = assignment_from_target(&v.topic_partitions);
            group_mut(groups, gid)
                .targets
                .insert(k.member_id.to_string(), target);
        }
        ConsumerRecord::TargetAssignmentMember(k, None) => {
            if let Some(g) = groups.get_mut(gid) {
                g.targets.remove(&*k.member_id);
            }
        }
        ConsumerRecord::CurrentMemberAssignment(k, v) => {
            let Some(g) = groups.get_mut(gid) else {
                // Kafka creates neither group nor member from an assignment record alone;
                // a record out of order is ignored.
                return;
            };
            apply_current(g, &k.member_id, v.as_ref());
        }
        ConsumerRecord::RegularExpression(k, Some(v)) => {
            let resolved = ResolvedRegex {
                topics: v.topics.iter().map(|s| s.to_string()).collect(),
                version: v.version,
                timestamp_ms: v.timestamp,
            };
            group_mut(groups, gid)
                .regexes
                .insert(k.regular_expression.to_string(), resolved);
        }
        ConsumerRecord::RegularExpression(k, None) => {
            if let Some(g) = groups.get_mut(gid) {
                g.regexes.remove(&*k.regular_expression);
            }
        }
    }
    if let Some(g) = groups.get_mut(gid) {
        g.refresh_state();
    }
}

/// The group `gid`, created empty when absent.
fn group_mut<'a>(groups: &'a mut ConsumerGroups, gid: &str) -> &'a mut ConsumerGroup {
    if !groups.contains_key(gid) {
        groups.insert(gid.to_string(), ConsumerGroup::new(gid));
    }
    groups.get_mut(gid).expect("inserted above")
}

/// The member as its member-metadata record describes it (its current assignment kept).
fn member_from(
    stored: Option<&ConsumerGroupMember>,
    member_id: &str,
    v: &KwireConsumerGroupMemberMetadataValue,
) -> ConsumerGroupMember {
    let mut m = stored
        .cloned()
        .unwrap_or_else(|| ConsumerGroupMember::new(member_id));
    m.instance_id = v.instance_id.as_ref().map(|s| s.to_string());
    m.rack_id = v.rack_id.as_ref().map(|s| s.to_string());
    m.client_id = v.client_id.to_string();
    m.client_host = v.client_host.to_string();
    m.subscribed_topic_names = v
        .subscribed_topic_names
        .iter()
        .map(|s| s.to_string())
        .collect();
    m.subscribed_topic_regex = v.subscribed_topic_regex.as_ref().map(|s| s.to_string());
    m.rebalance_timeout_ms = v.rebalance_timeout_ms;
    m.server_assignor = v.server_assignor.as_ref().map(|s| s.to_string());
    m.classic = v.classic_member_metadata.as_ref().map(classic_from_record);
    m
}

/// A member's current-assignment record (a tombstone resets it to epoch -1, nothing
/// assigned); a member the group does not hold is ignored.
fn apply_current(
    g: &mut ConsumerGroup,
    member_id: &str,
    v: Option<&KwireConsumerGroupCurrentMemberAssignmentValue>,
) {
    let Some(mut m) = g.members.get(member_id).cloned() else {
        return;
    };
    match v {
        Some(v) => {
            m.member_epoch = v.member_epoch;
            m.previous_member_epoch = v.previous_member_epoch;
            m.state = MemberState::from_i8(v.state);
            m.assigned = assignment_from_current(&v.assigned_partitions);
            m.pending_revocation = assignment_from_current(&v.partitions_pending_revocation);
        }
        None => {
            m.member_epoch = -1;
            m.previous_member_epoch = -1;
            m.state = MemberState::Stable;
            m.assigned.clear();
            m.pending_revocation.clear();
        }
    }
    g.put_member(m);
}

impl commit::Apply for ConsumerGroups {
    type Record = ConsumerRecord;

    fn apply(&mut self, record: &ConsumerRecord) {
        apply(self, record);
    }
}

/// Rebuilds the persisted and derived state of every group from its records, in order
/// (docs/coordinator.md, D6). Timers are volatile and not part of the result.
pub fn replay<'a>(records: impl IntoIterator<Item = &'a ConsumerRecord>) -> ConsumerGroups {
    commit::replay(records)
}

//! Applying streams-group records to the state (Kafka's `GroupMetadataManager.replay` for the
//! streams-group record types, KIP-1071): the streams groups' [`commit::Apply`]. The coordinator
//! changes streams-group state only through it (phase two writes with `commit::write`), so the
//! state it holds is, by construction, what [`replay`] rebuilds.

use super::group::{StreamsGroup, StreamsGroupMember, StreamsGroups, StreamsMemberState};
use super::records::{self, StreamsRecord};
use super::tasks::TasksTuple;
use crate::coordinator::commit;
use crate::generated::kwire_streams_group_current_member_assignment_value::KwireStreamsGroupCurrentMemberAssignmentValue;
use crate::generated::kwire_streams_group_member_metadata_value::KwireStreamsGroupMemberMetadataValue;
use crate::generated::kwire_streams_group_metadata_value::KwireStreamsGroupMetadataValue;

fn group_mut<'a>(groups: &'a mut StreamsGroups, gid: &str) -> &'a mut StreamsGroup {
    groups
        .entry(gid.to_string())
        .or_insert_with(|| StreamsGroup::new(gid))
}

impl commit::Apply for StreamsGroups {
    type Record = StreamsRecord;

    /// Applies one streams record (Kafka's replay), then recomputes the group's state.
    /// Tolerates missing entries (as Kafka does): a tombstone for something absent is a no-op.
    fn apply(&mut self, record: &StreamsRecord) {
        let gid = record.group_id();
        match record {
            StreamsRecord::GroupMetadata(_, None) => {
                self.remove(gid);
                return;
            }
            StreamsRecord::GroupMetadata(_, Some(v)) => group_metadata(group_mut(self, gid), v),
            StreamsRecord::TopologyDescription(_, v) => {
                let d = v.as_ref().map(records::description_from_record);
                if d.is_some() || self.contains_key(gid) {
                    group_mut(self, gid).topology_description = d;
                }
            }
            StreamsRecord::Topology(_, v) => {
                group_mut(self, gid).topology = v.as_ref().map(records::topology_from_record);
            }
            StreamsRecord::MemberMetadata(k, v) => member_metadata(self, gid, &k.member_id, v),
            StreamsRecord::TargetAssignmentMember(k, v) => match v {
                Some(v) => {
                    let t = records::target_from_record(v);
                    group_mut(self, gid)
                        .targets
                        .insert(k.member_id.to_string(), t);
                }
                None => {
                    if let Some(g) = self.get_mut(gid) {
                        g.targets.remove(&*k.member_id);
                    }
                }
            },
            StreamsRecord::TargetAssignmentMetadata(_, v) => {
                if let Some(v) = v {
                    group_mut(self, gid).assignment_epoch = v.assignment_epoch;
                }
            }
            StreamsRecord::CurrentMemberAssignment(k, v) => current(self, gid, &k.member_id, v),
        }
        if let Some(g) = self.get_mut(gid) {
            g.refresh_state();
        }
    }
}

fn group_metadata(g: &mut StreamsGroup, v: &KwireStreamsGroupMetadataValue) {
    g.group_epoch = v.epoch;
    g.metadata_hash = v.metadata_hash as u64;
    g.validated_topology_epoch = v.validated_topology_epoch;
    g.last_assignment_configs = v
        .last_assignment_configs
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect();
}

/// A member's metadata (a new member if absent); the tombstone removes the member.
fn member_metadata(
    groups: &mut StreamsGroups,
    gid: &str,
    mid: &str,
    v: &Option<KwireStreamsGroupMemberMetadataValue>,
) {
    match v {
        Some(v) => {
            let g = group_mut(groups, gid);
            let mut m = g
                .members
                .get(mid)
                .cloned()
                .unwrap_or_else(|| StreamsGroupMember::new(mid));
            records::member_metadata_into(v, &mut m);
            g.put_member(m);
        }
        None => {
            if let Some(g) = groups.get_mut(gid) {
                g.remove_member(mid);
            }
        }
    }
}

/// A member's current assignment; the tombstone leaves the member at epoch -1 with no tasks.
fn current(
    groups: &mut StreamsGroups,
    gid: &str,
    mid: &str,
    v: &Option<KwireStreamsGroupCurrentMemberAssignmentValue>,
) {
    let g = match v {
        Some(_) => group_mut(groups, gid),
        None => match groups.get_mut(gid) {
            Some(g) => g,
            None => return,
        },
    };
    let mut m = match (g.members.get(mid), v) {
        (Some(m), _) => m.clone(),
        (None, Some(_)) => StreamsGroupMember::new(mid),
        (None, None) => return,
    };
    match v {
        Some(v) => records::current_into(v, &mut m),
        None => {
            m.member_epoch = -1;
            m.previous_member_epoch = -1;
            m.state = StreamsMemberState::Stable;
            m.assigned = TasksTuple::default();
            m.pending_revocation = TasksTuple::default();
        }
    }
    g.put_member(m);
}

/// Applies one streams record (see [`commit::Apply`] for the streams groups).
pub fn apply(groups: &mut StreamsGroups, record: &StreamsRecord) {
    commit::Apply::apply(groups, record);
}

/// Rebuilds every streams group from its records, in order (docs/coordinator.md, D6).
pub fn replay<'a>(records: impl IntoIterator<Item = &'a StreamsRecord>) -> StreamsGroups {
    commit::replay(records)
}

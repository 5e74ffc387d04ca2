//! Applying streams-group records to the state (Kafka's `GroupMetadataManager.replay` for the
//! streams-group record types, KIP-1071). The coordinator changes streams-group state only
//! through [`apply`], so the state it holds is, by construction, what [`replay`] rebuilds.

use super::group::{StreamsGroup, StreamsGroupMember, StreamsGroups, StreamsMemberState};
use super::records::{self, StreamsRecord};
use super::tasks::TasksTuple;

fn group_mut<'a>(groups: &'a mut StreamsGroups, gid: &str) -> &'a mut StreamsGroup {
    groups
        .entry(gid.to_string())
        .or_insert_with(|| StreamsGroup::new(gid))
}

/// Applies one streams record (Kafka's replay). Tolerates missing entries
/// (as Kafka does): a tombstone for something absent is a no-op.
pub fn apply(groups: &mut StreamsGroups, record: &StreamsRecord) {
    let gid = record.group_id().to_string();
    match record {
        StreamsRecord::GroupMetadata(_, None) => {
            groups.remove(&gid);
            return;
        }
        StreamsRecord::GroupMetadata(_, Some(v)) => {
            let g = group_mut(groups, &gid);
            g.group_epoch = v.epoch;
            g.metadata_hash = v.metadata_hash as u64;
            g.validated_topology_epoch = v.validated_topology_epoch;
            g.last_assignment_configs = v
                .last_assignment_configs
                .iter()
                .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                .collect();
        }
        StreamsRecord::TopologyDescription(_, v) => match v {
            Some(v) => {
                group_mut(groups, &gid).topology_description =
                    Some(records::description_from_record(v));
            }
            None => {
                if let Some(g) = groups.get_mut(&gid) {
                    g.topology_description = None;
                }
            }
        },
        StreamsRecord::Topology(_, v) => {
            let topology = v.as_ref().map(records::topology_from_record);
            group_mut(groups, &gid).topology = topology;
        }
        StreamsRecord::MemberMetadata(k, v) => match v {
            Some(v) => {
                let g = group_mut(groups, &gid);
                let mut m = g
                    .members
                    .get(&*k.member_id)
                    .cloned()
                    .unwrap_or_else(|| StreamsGroupMember::new(&k.member_id));
                records::member_metadata_into(v, &mut m);
                g.put_member(m);
            }
            None => {
                if let Some(g) = groups.get_mut(&gid) {
                    g.remove_member(&k.member_id);
                }
            }
        },
        StreamsRecord::TargetAssignmentMember(k, v) => match v {
            Some(v) => {
                let t = records::target_from_record(v);
                group_mut(groups, &gid)
                    .targets
                    .insert(k.member_id.to_string(), t);
            }
            None => {
                if let Some(g) = groups.get_mut(&gid) {
                    g.targets.remove(&*k.member_id);
                }
            }
        },
        StreamsRecord::TargetAssignmentMetadata(_, v) => {
            if let Some(v) = v {
                group_mut(groups, &gid).assignment_epoch = v.assignment_epoch;
            }
        }
        StreamsRecord::CurrentMemberAssignment(k, v) => match v {
            Some(v) => {
                let g = group_mut(groups, &gid);
                let mut m = g
                    .members
                    .get(&*k.member_id)
                    .cloned()
                    .unwrap_or_else(|| StreamsGroupMember::new(&k.member_id));
                records::current_into(v, &mut m);
                g.put_member(m);
            }
            None => {
                if let Some(g) = groups.get_mut(&gid) {
                    if let Some(mut m) = g.members.get(&*k.member_id).cloned() {
                        m.member_epoch = -1;
                        m.previous_member_epoch = -1;
                        m.state = StreamsMemberState::Stable;
                        m.assigned = TasksTuple::default();
                        m.pending_revocation = TasksTuple::default();
                        g.put_member(m);
                    }
                }
            }
        },
    }
    if let Some(g) = groups.get_mut(&gid) {
        g.refresh_state();
    }
}

/// Rebuilds every streams group from its records, in order.
pub fn replay<'a>(records: impl IntoIterator<Item = &'a StreamsRecord>) -> StreamsGroups {
    let mut groups = StreamsGroups::new();
    for r in records {
        apply(&mut groups, r);
    }
    groups
}

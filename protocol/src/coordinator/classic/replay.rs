//! Applying classic-group records to the state (Kafka's `GroupMetadataManager.replay` for the
//! classic group record). The coordinator changes classic-group state only through [`apply`], so
//! the state it holds is, by construction, what [`replay`] rebuilds.

use super::group::{ClassicGroup, ClassicGroupState, ClassicGroups};
use super::records::{member_from_record, ClassicRecord};
use crate::coordinator::commit;

/// Applies one record to the classic groups. A member record creates its group if absent; a
/// tombstone for something absent is a no-op.
pub fn apply(groups: &mut ClassicGroups, record: &ClassicRecord) {
    let gid = record.group_id();
    match record {
        ClassicRecord::GroupMetadata(_, None) => {
            groups.remove(gid);
        }
        ClassicRecord::GroupMetadata(_, Some(v)) => {
            let g = groups
                .entry(gid.to_string())
                .or_insert_with(|| ClassicGroup::new(gid));
            g.protocol_type = v.protocol_type.as_ref().map(|s| s.to_string());
            g.generation_id = v.generation;
            g.protocol_name = v.protocol_name.as_ref().map(|s| s.to_string());
            g.leader_id = v.leader.as_ref().map(|s| s.to_string());
            g.state = match ClassicGroupState::from_i8(v.state) {
                ClassicGroupState::Dead => ClassicGroupState::Empty,
                s => s,
            };
            g.current_state_timestamp = v.current_state_timestamp;
        }
        ClassicRecord::Member(k, Some(v)) => {
            let g = groups
                .entry(gid.to_string())
                .or_insert_with(|| ClassicGroup::new(gid));
            g.put_member(member_from_record(&k.member_id, v));
        }
        ClassicRecord::Member(k, None) => {
            if let Some(g) = groups.get_mut(gid) {
                g.remove_member(&k.member_id);
            }
        }
    }
}

/// Rebuilds every classic group from its records, in order (docs/coordinator.md D6).
pub fn replay<'a>(records: impl IntoIterator<Item = &'a ClassicRecord>) -> ClassicGroups {
    commit::replay(records)
}

impl commit::Apply for ClassicGroups {
    type Record = ClassicRecord;

    fn apply(&mut self, record: &ClassicRecord) {
        apply(self, record);
    }
}

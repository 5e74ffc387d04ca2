//! DescribeGroups of a classic group (Kafka's `ClassicGroup.describe` and
//! `describeNoMetadata`).

use crate::coordinator::classic::group::{ClassicGroup, ClassicGroupState};
use crate::generated::describe_groups_response::{DescribedGroup, DescribedGroupMember};

/// The DescribeGroups entry of `g`: its state, protocol type and members (client id, host,
/// instance id, assignment); in Stable also the protocol name and each member's metadata for
/// it. AuthorizedOperations is `i32::MIN` (the caller fills it in when asked).
pub(crate) fn described_group(g: &ClassicGroup) -> DescribedGroup {
    let stable = g.is(ClassicGroupState::Stable);
    let protocol = g.protocol_name.clone().unwrap_or_default();
    let members = g
        .members
        .values()
        .map(|m| DescribedGroupMember {
            member_id: m.member_id.clone().into(),
            group_instance_id: m.group_instance_id.clone().map(Into::into),
            client_id: m.client_id.clone().into(),
            client_host: m.client_host.clone().into(),
            member_metadata: if stable {
                m.metadata(&protocol).cloned().unwrap_or_default()
            } else {
                Default::default()
            },
            // Kafka's `describeNoMetadata` keeps the assignment outside Stable (cleared only
            // by `resetAndPropagateAssignmentWithError`); seen on a 4.4.0 broker in
            // CompletingRebalance (tests/tests/it/kafka_oracle).
            member_assignment: m.assignment.clone(),
            ..Default::default()
        })
        .collect();
    DescribedGroup {
        group_id: g.group_id.clone().into(),
        group_state: g.state.as_str().into(),
        protocol_type: g.protocol_type.clone().unwrap_or_default().into(),
        protocol_data: if stable { protocol.into() } else { "".into() },
        members,
        authorized_operations: i32::MIN,
        ..Default::default()
    }
}

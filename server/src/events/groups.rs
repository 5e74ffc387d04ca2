//! The group lines of the INFO log: members joining, leaving, expiring; group epochs and
//! classic generations; target and current assignments; online migrations between classic and
//! consumer groups.
//!
//! Group changes are read off the records the coordinator returns (the same records written to
//! the durable log), not from inside the coordinator: [`GroupLog`] keeps the member ids of every
//! group, so a member-metadata record for an id it has not seen is a join and a tombstone is a
//! departure, and what caused the records ([`Cause`]) tells a leave from an expiry.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use kwire_protocol::coordinator::classic::ClassicRecord;
use kwire_protocol::coordinator::streams::StreamsRecord;
use kwire_protocol::coordinator::{ClassicGroupState, ConsumerRecord, Record};
use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::kwire_consumer_group_current_member_assignment_value::TopicPartitions;
use kwire_protocol::generated::kwire_streams_group_current_member_assignment_value::TaskIds;
use kwire_protocol::generated::ApiKey;

use super::{refused_request, Event, Refusal};
use crate::context::Ctx;
use crate::names::count;

/// The group types the coordinator runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupKind {
    /// A consumer group (KIP-848).
    Consumer,
    /// A streams group (KIP-1071).
    Streams,
    /// A classic group (JoinGroup/SyncGroup).
    Classic,
}

impl fmt::Display for GroupKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupKind::Consumer => "consumer group",
            GroupKind::Streams => "streams group",
            GroupKind::Classic => "classic group",
        })
    }
}

/// What made the coordinator return records.
#[derive(Debug, Clone, Copy)]
pub enum Cause<'a> {
    /// A heartbeat of a consumer or streams group.
    Heartbeat {
        /// The member id the request carried ("" for a v0 consumer join).
        member_id: &'a str,
        /// The member epoch the request carried (0 join, -1 leave, -2 static leave).
        member_epoch: i32,
    },
    /// A classic group request (JoinGroup, SyncGroup, LeaveGroup) or a DeleteGroups.
    Request {
        /// The API's name.
        api: &'static str,
        /// The member id the request carried ("" when none).
        member_id: &'a str,
    },
    /// The coordinator's timers (session, rebalance, initial-rebalance delay).
    Timers,
    /// The topic metadata changed.
    TopicsChanged,
}

/// One record, reduced to what the log says about it.
enum Change<'r> {
    /// The group's epoch (`None`: the group's metadata was deleted).
    GroupEpoch(Option<i32>),
    /// A member's metadata was written: `details` describes it.
    Member { member: &'r str, details: String },
    /// A member's metadata tombstone: the member is gone.
    MemberGone { member: &'r str },
    /// The group's target assignment epoch.
    TargetEpoch(i32),
    /// A member's target assignment was written.
    TargetMember,
    /// A member's current assignment.
    Current {
        member: &'r str,
        epoch: i32,
        previous: i32,
        assigned: String,
    },
    /// A streams group's topology (epoch, subtopology count).
    Topology { epoch: i32, subtopologies: usize },
    /// A classic group's generation, state, protocol and leader.
    Generation {
        generation: i32,
        state: &'static str,
        protocol: Option<&'r str>,
        leader: Option<&'r str>,
    },
}

/// The group type, group id and change a record stands for; `None` for what the log does not
/// show (assignment tombstones, regular-expression resolutions, topology tombstones).
fn classify(record: &Record) -> Option<(GroupKind, &str, Change<'_>)> {
    match record {
        Record::Classic(c) => Some(classify_classic(c)),
        Record::Consumer(c) => classify_consumer(c),
        Record::Streams(s) => classify_streams(s),
    }
}

/// [`classify`] for a classic group's record (every one is shown).
fn classify_classic(c: &ClassicRecord) -> (GroupKind, &str, Change<'_>) {
    use GroupKind::Classic;
    match c {
        ClassicRecord::GroupMetadata(k, None) => (Classic, &k.group_id, Change::GroupEpoch(None)),
        ClassicRecord::GroupMetadata(k, Some(v)) => (
            Classic,
            &k.group_id,
            Change::Generation {
                generation: v.generation,
                state: ClassicGroupState::from_i8(v.state).as_str(),
                protocol: v.protocol_name.as_deref(),
                leader: v.leader.as_deref(),
            },
        ),
        ClassicRecord::Member(k, Some(v)) => {
            let mut details = format!("client {} at {}", &*v.client_id, &*v.client_host);
            if let Some(i) = v.group_instance_id.as_deref().filter(|i| !i.is_empty()) {
                details += &format!(", instance id {i}");
            }
            let protocols: Vec<&str> = v.protocols.iter().map(|p| &*p.name).collect();
            details += &format!(
                "; protocol type {}, protocols [{}]; session timeout {} ms, rebalance timeout {} ms; assignment of {} bytes",
                &*v.protocol_type,
                protocols.join(", "),
                v.session_timeout_ms,
                v.rebalance_timeout_ms,
                v.assignment.len()
            );
            (
                Classic,
                &k.group_id,
                Change::Member {
                    member: &k.member_id,
                    details,
                },
            )
        }
        ClassicRecord::Member(k, None) => (
            Classic,
            &k.group_id,
            Change::MemberGone {
                member: &k.member_id,
            },
        ),
    }
}

/// [`classify`] for a consumer group's record.
fn classify_consumer(c: &ConsumerRecord) -> Option<(GroupKind, &str, Change<'_>)> {
    use GroupKind::Consumer;
    let partitions =
        |tps: &[TopicPartitions]| -> usize { tps.iter().map(|t| t.partitions.len()).sum() };
    Some(match c {
        ConsumerRecord::GroupMetadata(k, v) => (
            Consumer,
            &k.group_id,
            Change::GroupEpoch(v.as_ref().map(|v| v.epoch)),
        ),
        ConsumerRecord::MemberMetadata(k, Some(v)) => {
            let mut details = format!("client {} at {}", &*v.client_id, &*v.client_host);
            if let Some(i) = v.instance_id.as_deref().filter(|i| !i.is_empty()) {
                details += &format!(", instance id {i}");
            }
            let topics: Vec<&str> = v.subscribed_topic_names.iter().map(|t| &**t).collect();
            details += &format!("; subscribed to [{}]", topics.join(", "));
            if let Some(re) = v
                .subscribed_topic_regex
                .as_deref()
                .filter(|r| !r.is_empty())
            {
                details += &format!(" and /{re}/");
            }
            (
                Consumer,
                &k.group_id,
                Change::Member {
                    member: &k.member_id,
                    details,
                },
            )
        }
        ConsumerRecord::MemberMetadata(k, None) => (
            Consumer,
            &k.group_id,
            Change::MemberGone {
                member: &k.member_id,
            },
        ),
        ConsumerRecord::TargetAssignmentMetadata(k, Some(v)) => (
            Consumer,
            &k.group_id,
            Change::TargetEpoch(v.assignment_epoch),
        ),
        ConsumerRecord::TargetAssignmentMember(k, Some(_)) => {
            (Consumer, &k.group_id, Change::TargetMember)
        }
        ConsumerRecord::CurrentMemberAssignment(k, Some(v)) => (
            Consumer,
            &k.group_id,
            Change::Current {
                member: &k.member_id,
                epoch: v.member_epoch,
                previous: v.previous_member_epoch,
                assigned: format!(
                    "{} assigned, {} pending revocation",
                    count(partitions(&v.assigned_partitions), "partition"),
                    partitions(&v.partitions_pending_revocation)
                ),
            },
        ),
        _ => return None,
    })
}

/// [`classify`] for a streams group's record.
fn classify_streams(s: &StreamsRecord) -> Option<(GroupKind, &str, Change<'_>)> {
    use GroupKind::Streams;
    let tasks = |ts: &[TaskIds]| -> usize { ts.iter().map(|t| t.partitions.len()).sum() };
    Some(match s {
        StreamsRecord::GroupMetadata(k, v) => (
            Streams,
            &k.group_id,
            Change::GroupEpoch(v.as_ref().map(|v| v.epoch)),
        ),
        StreamsRecord::Topology(k, Some(v)) => (
            Streams,
            &k.group_id,
            Change::Topology {
                epoch: v.epoch,
                subtopologies: v.subtopologies.len(),
            },
        ),
        StreamsRecord::MemberMetadata(k, Some(v)) => {
            let mut details = format!(
                "client {} at {}, process {}",
                &*v.client_id, &*v.client_host, &*v.process_id
            );
            if let Some(i) = v.instance_id.as_deref().filter(|i| !i.is_empty()) {
                details += &format!(", instance id {i}");
            }
            details += &format!("; topology epoch {}", v.topology_epoch);
            (
                Streams,
                &k.group_id,
                Change::Member {
                    member: &k.member_id,
                    details,
                },
            )
        }
        StreamsRecord::MemberMetadata(k, None) => (
            Streams,
            &k.group_id,
            Change::MemberGone {
                member: &k.member_id,
            },
        ),
        StreamsRecord::TargetAssignmentMetadata(k, Some(v)) => (
            Streams,
            &k.group_id,
            Change::TargetEpoch(v.assignment_epoch),
        ),
        StreamsRecord::TargetAssignmentMember(k, Some(_)) => {
            (Streams, &k.group_id, Change::TargetMember)
        }
        StreamsRecord::CurrentMemberAssignment(k, Some(v)) => (
            Streams,
            &k.group_id,
            Change::Current {
                member: &k.member_id,
                epoch: v.member_epoch,
                previous: v.previous_member_epoch,
                assigned: format!(
                    "tasks assigned: {} active, {} standby, {} warm-up; {} pending revocation",
                    tasks(&v.active_tasks),
                    tasks(&v.standby_tasks),
                    tasks(&v.warmup_tasks),
                    tasks(&v.active_tasks_pending_revocation)
                        + tasks(&v.standby_tasks_pending_revocation)
                        + tasks(&v.warmup_tasks_pending_revocation)
                ),
            },
        ),
        _ => return None,
    })
}

/// The group state the log needs: every group's member ids and group epoch, kept from the
/// coordinator's records (see the module docs).
#[derive(Debug, Default)]
pub struct GroupLog {
    groups: BTreeMap<(GroupKind, String), GroupSeen>,
}

#[derive(Debug, Default)]
struct GroupSeen {
    epoch: i32,
    members: BTreeSet<String>,
}

/// What a change did to the members a group has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Membership {
    /// A member id not seen before.
    Joined,
    /// A member seen before is gone.
    Left,
    /// Nothing (or a change that is not about membership).
    Unchanged,
}

impl GroupLog {
    /// Takes in records without logging (the durable log replayed at start).
    pub fn seed(&mut self, records: &[Record]) {
        for r in records {
            if let Some((kind, group, change)) = classify(r) {
                self.apply(kind, group, &change);
            }
        }
    }

    /// Applies one change; says what it did to the group's members.
    fn apply(&mut self, kind: GroupKind, group: &str, change: &Change<'_>) -> Membership {
        let key = (kind, group.to_string());
        match change {
            Change::GroupEpoch(None) => {
                self.groups.remove(&key);
            }
            Change::GroupEpoch(Some(e)) => self.groups.entry(key).or_default().epoch = *e,
            Change::Generation { generation, .. } => {
                self.groups.entry(key).or_default().epoch = *generation;
            }
            Change::Member { member, .. } => {
                let g = self.groups.entry(key).or_default();
                if g.members.insert(member.to_string()) {
                    return Membership::Joined;
                }
            }
            Change::MemberGone { member } => {
                if let Some(g) = self.groups.get_mut(&key) {
                    if g.members.remove(*member) {
                        return Membership::Left;
                    }
                }
            }
            _ => {}
        }
        Membership::Unchanged
    }

    /// Takes in the records of one step of the coordinator and returns the log lines that say
    /// what they change, in record order (the caller logs them at INFO).
    pub fn observe(&mut self, records: &[Record], cause: Cause<'_>) -> Vec<String> {
        let mut lines = conversions(records);
        let changes: Vec<(GroupKind, &str, Change<'_>)> =
            records.iter().filter_map(classify).collect();
        let step = self.epochs(&changes);
        // Groups whose epoch a join or leave line showed.
        let mut shown: BTreeSet<(GroupKind, &str)> = BTreeSet::new();
        for (kind, group, change) in &changes {
            let at = (*kind, *group);
            let epoch = match step.after.get(&at).copied().unwrap_or(step.before[&at]) {
                Some(e) => e.to_string(),
                None => "unknown".to_string(),
            };
            let membership = self.apply(*kind, group, change);
            let targets = step.targets.get(&at).copied().unwrap_or(0);
            let mut showed = false;
            let line = LineOf {
                kind: *kind,
                group,
                epoch: &epoch,
                targets,
                cause,
            }
            .line(change, membership, &mut showed);
            if showed {
                shown.insert(at);
            }
            lines.extend(line);
        }
        for (at, e) in step.after {
            if let Some(e) = e {
                if !shown.contains(&at) && step.before[&at] != Some(e) {
                    let (kind, group) = at;
                    lines.push(format!("{kind} {group}: group epoch {e}"));
                }
            }
        }
        lines
    }

    /// Per group of one step's changes: its epoch before the step, the epoch it ends the step
    /// at (the join and leave lines show it), and how many members' targets changed.
    fn epochs<'c>(&self, changes: &[(GroupKind, &'c str, Change<'_>)]) -> StepEpochs<'c> {
        let mut step = StepEpochs::default();
        for (kind, group, change) in changes {
            let seen = self
                .groups
                .get(&(*kind, group.to_string()))
                .map(|g| g.epoch);
            step.before.entry((*kind, group)).or_insert(seen);
            match change {
                Change::GroupEpoch(e) => {
                    step.after.insert((*kind, group), *e);
                }
                Change::Generation { generation, .. } => {
                    step.after.insert((*kind, group), Some(*generation));
                }
                Change::TargetMember => *step.targets.entry((*kind, group)).or_default() += 1,
                _ => {}
            }
        }
        step
    }
}

/// What [`GroupLog::epochs`] finds in one step's changes, per (group type, group id).
#[derive(Default)]
struct StepEpochs<'c> {
    before: BTreeMap<(GroupKind, &'c str), Option<i32>>,
    after: BTreeMap<(GroupKind, &'c str), Option<i32>>,
    targets: BTreeMap<(GroupKind, &'c str), usize>,
}

/// What one change's line says besides the change: its group, the group's epoch at the end of
/// the step, how many members' targets the step changed, and what caused it.
struct LineOf<'l> {
    kind: GroupKind,
    group: &'l str,
    epoch: &'l str,
    targets: usize,
    cause: Cause<'l>,
}

impl LineOf<'_> {
    /// The line for `change` (which did `membership` to the group), if it has one; `shown`
    /// becomes true when the line shows the group's epoch.
    fn line(
        &self,
        change: &Change<'_>,
        membership: Membership,
        shown: &mut bool,
    ) -> Option<String> {
        let (kind, group, epoch, cause) = (self.kind, self.group, self.epoch, self.cause);
        match (change, membership) {
        (Change::Member { member, details }, Membership::Joined) => {
            *shown = true;
            let what = epoch_name(kind);
            Some(format!(
                "member {member} joined {kind} {group} ({what} {epoch}; {details})"
            ))
        }
        (Change::Member { member, details }, _) => {
            Some(format!(
                "member {member} of {kind} {group} updated its metadata ({details})"
            ))
        }
        (Change::MemberGone { member }, Membership::Left) => {
            *shown = true;
            let how = departure(cause, member);
            let what = epoch_name(kind);
            Some(format!(
                "member {member} of {kind} {group} {how} ({what} {epoch})"
            ))
        }
        (
            Change::Current {
                member, epoch: -2, ..
            },
            _,
        ) => {
            Some(format!("member {member} of {kind} {group} left temporarily (a static member keeps its assignment until its session times out)"))
        }
        (
            Change::Current {
                member,
                epoch: member_epoch,
                previous,
                assigned,
            },
            _,
        ) => {
            Some(format!("member {member} of {kind} {group}: member epoch {member_epoch} (was {previous}), {assigned}"))
        }
        (Change::TargetEpoch(e), _) => {
            let n = count(self.targets, "member");
            Some(format!("{kind} {group}: new target assignment at assignment epoch {e} (the target of {n} changed)"))
        }
        (
            Change::Topology {
                epoch,
                subtopologies,
            },
            _,
        ) => {
            Some(format!(
                "{kind} {group}: topology epoch {epoch} ({})",
                count(*subtopologies, "subtopology")
            ))
        }
        (Change::GroupEpoch(None), _) => {
            *shown = true;
            Some(format!("{kind} {group} deleted"))
        }
        (
            Change::Generation {
                generation,
                state,
                protocol,
                leader,
            },
            _,
        ) => {
            *shown = true;
            let protocol = protocol.unwrap_or("none");
            let leader = leader.unwrap_or("none");
            Some(format!("{kind} {group}: generation {generation}, state {state}, protocol {protocol}, leader {leader}"))
        }
            _ => None,
        }
    }
}

/// What a group type calls its epoch: `generation` for classic groups, else `group epoch`.
fn epoch_name(kind: GroupKind) -> &'static str {
    match kind {
        GroupKind::Classic => "generation",
        _ => "group epoch",
    }
}

/// KIP-848 online migration, read off one step's records: a step that deletes a group of one
/// type (its group-record tombstone) and writes a group record of the other type under the same
/// id converted it: `group g upgraded from classic to consumer (online migration)`, or
/// `downgraded from consumer to classic`.
fn conversions(records: &[Record]) -> Vec<String> {
    let of = |classic: bool, tomb: bool| -> BTreeSet<&str> {
        records
            .iter()
            .filter(|r| match r {
                Record::Classic(ClassicRecord::GroupMetadata(_, v)) => {
                    classic && v.is_none() == tomb
                }
                Record::Consumer(ConsumerRecord::GroupMetadata(_, v)) => {
                    !classic && v.is_none() == tomb
                }
                _ => false,
            })
            .map(|r| r.group_id())
            .collect()
    };
    let (classic_gone, consumer_made) = (of(true, true), of(false, false));
    let (consumer_gone, classic_made) = (of(false, true), of(true, false));
    let mut lines = Vec::new();
    for g in classic_gone.intersection(&consumer_made) {
        lines.push(format!(
            "group {g} upgraded from classic to consumer (online migration)"
        ));
    }
    for g in consumer_gone.intersection(&classic_made) {
        lines.push(format!(
            "group {g} downgraded from consumer to classic (online migration)"
        ));
    }
    lines
}

/// How a member left, given what caused the records that removed it.
fn departure(cause: Cause<'_>, member: &str) -> String {
    match cause {
        Cause::Heartbeat {
            member_id,
            member_epoch,
            ..
        } if member_id == member && member_epoch < 0 => "left with a leave heartbeat".into(),
        Cause::Heartbeat { member_id, .. } if !member_id.is_empty() => {
            format!("was replaced by member {member_id}, which took over its static instance id")
        }
        Cause::Heartbeat { .. } => {
            "was replaced by a new member, which took over its static instance id".into()
        }
        Cause::Timers => {
            "expired: its session or rebalance timeout passed, and the coordinator fenced it".into()
        }
        Cause::TopicsChanged => "was removed".into(),
        Cause::Request {
            api: "LeaveGroup", ..
        } => "left with a LeaveGroup request".into(),
        Cause::Request {
            api: "JoinGroup",
            member_id: "",
        } => {
            "was replaced by a new member, which took over its static instance id (or was removed: the group is full)".into()
        }
        Cause::Request { api, .. } => format!("was removed by a {api} request"),
    }
}

/// The line for a consumer or streams heartbeat answered with an error, if it needs one: a
/// fenced member (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID: it must rejoin) or
/// a refused request. `(group, member, member epoch)` are the request's.
pub fn heartbeat_refused(
    ctx: &Ctx<'_>,
    api: ApiKey,
    kind: GroupKind,
    (group, member, epoch): (&str, &str, i32),
    refusal: Refusal<'_>,
) -> Option<Event> {
    match ErrorCode::from_code(refusal.code) {
        Some(ErrorCode::None) => None,
        Some(
            ErrorCode::FencedMemberEpoch | ErrorCode::UnknownMemberId | ErrorCode::FencedInstanceId,
        ) => Some(Event::new(format!(
            "member {member} of {kind} {group} fenced: its heartbeat at member epoch {epoch} was answered {refusal}"
        ))),
        _ => Some(refused_request(
            ctx,
            api,
            format_args!("{kind} {group}, member {member:?} at member epoch {epoch}: {refusal}"),
        )),
    }
}

/// The line for a classic Heartbeat answered with `code`, if it needs one: a fenced member
/// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION) or an invalid group id.
/// `(group, member, generation)` are the request's.
pub fn classic_heartbeat_refused(
    ctx: &Ctx<'_>,
    (group, member, generation): (&str, &str, i32),
    code: i16,
) -> Option<Event> {
    match ErrorCode::from_code(code) {
        Some(
            ErrorCode::UnknownMemberId | ErrorCode::FencedInstanceId | ErrorCode::IllegalGeneration,
        ) => Some(Event::new(format!(
            "member {member} of classic group {group} fenced: its heartbeat at generation {generation} was answered {}",
            Refusal {
                code,
                message: None
            }
        ))),
        Some(ErrorCode::InvalidGroupId) => Some(refused_request(
            ctx,
            ApiKey::Heartbeat,
            format_args!("group id {group:?}: INVALID_GROUP_ID"),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kwire_protocol::generated::kwire_consumer_group_member_metadata_key::KwireConsumerGroupMemberMetadataKey as ConsumerMemberKey;
    use kwire_protocol::generated::kwire_consumer_group_member_metadata_value::KwireConsumerGroupMemberMetadataValue as ConsumerMemberValue;
    use kwire_protocol::generated::kwire_consumer_group_metadata_key::KwireConsumerGroupMetadataKey as ConsumerGroupKey;
    use kwire_protocol::generated::kwire_consumer_group_metadata_value::KwireConsumerGroupMetadataValue as ConsumerGroupValue;
    use kwire_protocol::generated::kwire_streams_group_current_member_assignment_key::KwireStreamsGroupCurrentMemberAssignmentKey as StreamsCurrentKey;
    use kwire_protocol::generated::kwire_streams_group_current_member_assignment_value::{
        KwireStreamsGroupCurrentMemberAssignmentValue as StreamsCurrentValue, TaskIds,
    };
    use kwire_protocol::generated::kwire_streams_group_member_metadata_key::KwireStreamsGroupMemberMetadataKey as StreamsMemberKey;
    use kwire_protocol::generated::kwire_streams_group_member_metadata_value::KwireStreamsGroupMemberMetadataValue as StreamsMemberValue;
    use kwire_protocol::generated::kwire_streams_group_metadata_key::KwireStreamsGroupMetadataKey as StreamsGroupKey;
    use kwire_protocol::generated::kwire_streams_group_metadata_value::KwireStreamsGroupMetadataValue as StreamsGroupValue;

    fn consumer_epoch(group: &str, epoch: i32) -> Record {
        ConsumerRecord::GroupMetadata(
            ConsumerGroupKey {
                group_id: group.to_string().into(),
            },
            Some(ConsumerGroupValue {
                epoch,
                ..Default::default()
            }),
        )
        .into()
    }

    fn consumer_member(group: &str, member: &str, present: bool) -> Record {
        ConsumerRecord::MemberMetadata(
            ConsumerMemberKey {
                group_id: group.to_string().into(),
                member_id: member.to_string().into(),
            },
            present.then(|| ConsumerMemberValue {
                client_id: "app".into(),
                client_host: "/10.0.0.1".into(),
                subscribed_topic_names: vec!["a".into(), "b".into()],
                ..Default::default()
            }),
        )
        .into()
    }

    #[test]
    fn joins_expiries_and_replacements_of_consumer_groups() {
        let mut log = GroupLog::default();
        // Replayed records are taken in without a line.
        log.seed(&[consumer_epoch("g", 3), consumer_member("g", "m1", true)]);
        let join = Cause::Heartbeat {
            member_id: "m2",
            member_epoch: 0,
        };
        assert_eq!(
            log.observe(
                &[consumer_member("g", "m2", true), consumer_epoch("g", 4)],
                join
            ),
            ["member m2 joined consumer group g (group epoch 4; client app at /10.0.0.1; subscribed to [a, b])"]
        );
        // The same member's metadata again is an update, not a join; an unchanged epoch adds
        // no line.
        assert_eq!(
            log.observe(&[consumer_member("g", "m2", true)], join),
            ["member m2 of consumer group g updated its metadata (client app at /10.0.0.1; subscribed to [a, b])"]
        );
        assert_eq!(
            log.observe(
                &[consumer_member("g", "m1", false), consumer_epoch("g", 5)],
                Cause::Timers
            ),
            ["member m1 of consumer group g expired: its session or rebalance timeout passed, and the coordinator fenced it (group epoch 5)"]
        );
        assert_eq!(
            log.observe(
                &[
                    consumer_member("g", "m2", false),
                    consumer_member("g", "m3", true),
                    consumer_epoch("g", 6)
                ],
                Cause::Heartbeat {
                    member_id: "m3",
                    member_epoch: 0
                }
            ),
            [
                "member m2 of consumer group g was replaced by member m3, which took over its static instance id (group epoch 6)",
                "member m3 joined consumer group g (group epoch 6; client app at /10.0.0.1; subscribed to [a, b])",
            ]
        );
        // A tombstone of a member never seen says nothing; an epoch bump alone says so.
        assert_eq!(
            log.observe(
                &[consumer_member("g", "ghost", false), consumer_epoch("g", 7)],
                Cause::TopicsChanged
            ),
            ["consumer group g: group epoch 7"]
        );
    }

    #[test]
    fn streams_group_join_and_assignment() {
        let mut log = GroupLog::default();
        let records = [
            Record::Streams(StreamsRecord::MemberMetadata(
                StreamsMemberKey {
                    group_id: "s".into(),
                    member_id: "w1".into(),
                },
                Some(StreamsMemberValue {
                    client_id: "app-1".into(),
                    client_host: "/10.0.0.2".into(),
                    process_id: "p1".into(),
                    topology_epoch: 2,
                    ..Default::default()
                }),
            )),
            Record::Streams(StreamsRecord::GroupMetadata(
                StreamsGroupKey {
                    group_id: "s".into(),
                },
                Some(StreamsGroupValue {
                    epoch: 1,
                    ..Default::default()
                }),
            )),
            Record::Streams(StreamsRecord::CurrentMemberAssignment(
                StreamsCurrentKey {
                    group_id: "s".into(),
                    member_id: "w1".into(),
                },
                Some(StreamsCurrentValue {
                    member_epoch: 1,
                    previous_member_epoch: 0,
                    active_tasks: vec![TaskIds {
                        subtopology_id: "0".into(),
                        partitions: vec![0, 1, 2].into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            )),
        ];
        let cause = Cause::Heartbeat {
            member_id: "w1",
            member_epoch: 0,
        };
        assert_eq!(
            log.observe(&records, cause),
            [
                "member w1 joined streams group s (group epoch 1; client app-1 at /10.0.0.2, process p1; topology epoch 2)",
                "member w1 of streams group s: member epoch 1 (was 0), tasks assigned: 3 active, 0 standby, 0 warm-up; 0 pending revocation",
            ]
        );
        assert_eq!(count(1, "subtopology"), "1 subtopology");
        assert_eq!(count(2usize, "subtopology"), "2 subtopologies");
        assert_eq!(count(0, "partition"), "0 partitions");
    }
}

//! The target-assignment step of a heartbeat (docs/coordinator.md §1.9; Kafka's
//! `TargetAssignmentBuilder`): when the group epoch is ahead of the assignment epoch, the
//! preferred assignor computes every member's target from the membership as the heartbeat
//! leaves it. Part of phase one: it reads, and its failure (an assignor error) is the answer.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::check::Prospective;
use super::ConsumerManager;
use crate::coordinator::consumer::assignor::{
    Assignment, ConsumerGroupAssignor, GroupSpec, MemberSpec, SubscriptionType, TopicInfo,
    TopicsSpec,
};
use crate::coordinator::consumer::group::ConsumerGroup;
use crate::coordinator::context::HbError;
use crate::error::ErrorCode;

impl ConsumerManager<'_> {
    /// Every prospective member's target (empty topics left out), from the assignor most
    /// members name (ties by configured order, D5), else the first configured one. Each member's
    /// previous target is its own, or, for a static member replacing another, the replaced one's.
    ///
    /// # Errors
    /// UNKNOWN_SERVER_ERROR when the assignor fails.
    pub(super) fn targets(
        &self,
        p: &Prospective<'_>,
    ) -> Result<BTreeMap<String, Assignment>, HbError> {
        let mut specs = BTreeMap::new();
        let mut topics = TopicsSpec::new();
        let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
        let mut sets = BTreeSet::new();
        for m in p.members() {
            let ids = self.ctx.topic_ids_of(p.topic_names(m));
            for id in &ids {
                if let Some(t) = self.ctx.topics.values().find(|t| t.topic_id == *id) {
                    topics.entry(*id).or_insert_with(|| TopicInfo {
                        name: t.name.clone(),
                        partitions: t.partitions,
                        partition_racks: t.partition_racks.clone(),
                    });
                }
            }
            if let Some(a) = &m.server_assignor {
                *votes.entry(a.as_str()).or_default() += 1;
            }
            let previous =
                p.g.targets
                    .get(&m.member_id)
                    .or_else(|| {
                        p.replaced
                            .and_then(|r| p.g.targets.get(r))
                            .filter(|_| m.member_id == p.u.member_id)
                    })
                    .cloned()
                    .unwrap_or_default();
            sets.insert(ids.clone());
            let spec = MemberSpec {
                rack_id: m.rack_id.clone(),
                instance_id: m.instance_id.clone(),
                subscribed_topic_ids: ids,
                assigned: previous,
            };
            specs.insert(m.member_id.clone(), spec);
        }
        let spec = GroupSpec {
            members: specs,
            subscription_type: if sets.len() <= 1 {
                SubscriptionType::Homogeneous
            } else {
                SubscriptionType::Heterogeneous
            },
        };
        let out = self
            .preferred_assignor(&votes)
            .assign(&spec, &topics)
            .map_err(|_| HbError {
                code: ErrorCode::UnknownServerError.code(),
                message: None,
            })?;
        Ok(spec
            .members
            .keys()
            .map(|id| {
                let mut a = out.members.get(id).cloned().unwrap_or_default();
                a.retain(|_, p| !p.is_empty());
                (id.clone(), a)
            })
            .collect())
    }

    /// The assignor with the most votes among `votes` (ties by configured order), else the
    /// first configured one (docs/coordinator.md §1.9, D5).
    fn preferred_assignor(&self, votes: &BTreeMap<&str, usize>) -> Arc<dyn ConsumerGroupAssignor> {
        let assignors = &self.side.config.assignors;
        let mut best: Option<(&Arc<dyn ConsumerGroupAssignor>, usize)> = None;
        for a in assignors {
            let n = votes.get(a.name()).copied().unwrap_or(0);
            if n > 0 && best.is_none_or(|(_, b)| n > b) {
                best = Some((a, n));
            }
        }
        best.map_or_else(|| assignors[0].clone(), |b| b.0.clone())
    }
}

/// The assignor ConsumerGroupDescribe reports: the preferred one among the members, else the
/// default; a name no longer configured when the members' most named one is such.
pub(crate) fn preferred_assignor_name(
    assignors: &[Arc<dyn ConsumerGroupAssignor>],
    g: &ConsumerGroup,
) -> String {
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for m in g.members.values() {
        if let Some(a) = &m.server_assignor {
            *votes.entry(a.as_str()).or_default() += 1;
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for a in assignors {
        let n = votes.get(a.name()).copied().unwrap_or(0);
        if n > 0 && best.is_none_or(|(_, b)| n > b) {
            best = Some((a.name(), n));
        }
    }
    if best.is_none() {
        // A member may name an assignor no longer configured; the most named one wins.
        if let Some((name, _)) = votes.iter().max_by_key(|(_, n)| **n) {
            if !assignors.iter().any(|a| a.name() == *name) {
                return (*name).to_string();
            }
        }
    }
    best.map_or_else(|| assignors[0].name().to_string(), |b| b.0.to_string())
}

//! Phase one of a ConsumerGroupHeartbeat at epoch ≥ 0 (docs/coordinator.md §1.2-1.9; Kafka's
//! `GroupMetadataManager.consumerGroupHeartbeat` up to the target assignment): every check and
//! every fallible computation, read-only. Its result, a [`Plan`], holds only what the heartbeat
//! changes: a stable member's heartbeat borrows the stored member, compares the request with it
//! in place and plans nothing, so it copies and allocates nothing.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::{member_topic_names, owned_of, ConsumerManager, Via};
use crate::coordinator::consumer::assignor::Assignment;
use crate::coordinator::consumer::group::{
    ConsumerGroup, ConsumerGroupMember, MemberState, ResolvedRegex,
};
use crate::coordinator::context::{blank, fail, HbError, RequestContext};
use crate::coordinator::membership::{self, group_not_found, Resolved, CONSUMER};
use crate::error::ErrorCode;
use crate::generated::consumer_group_heartbeat_request::ConsumerGroupHeartbeatRequest;

/// A regex new to the group: its text, its resolution and its compiled form (cached when the
/// plan is written).
pub(crate) struct NewRegex {
    pub regex: String,
    pub resolved: ResolvedRegex,
    pub compiled: ::regex::Regex,
}

/// What a heartbeat at epoch ≥ 0 writes, decided by [`ConsumerManager::check`].
pub(crate) struct Plan<'r> {
    pub group_id: &'r str,
    pub member_id: Cow<'r, str>,
    /// The static member this join replaces (its member id).
    pub replaced: Option<String>,
    /// The member's metadata as the heartbeat leaves it, when it differs from the stored one
    /// (always for a new or replacing member); `None`: the stored member as it is.
    /// Boxed: the plan stays small to move, and a stable heartbeat (`None`) allocates nothing.
    pub updated: Option<Box<ConsumerGroupMember>>,
    pub subscription_changed: bool,
    pub new_regex: Option<NewRegex>,
    /// The regex whose last subscriber switches away (its tombstone).
    pub dropped_regex: Option<String>,
    /// The group-epoch bump: new epoch and metadata hash.
    pub bump: Option<(i32, u64)>,
    /// The new target assignment: its epoch and every member's target.
    pub targets: Option<(i32, BTreeMap<String, Assignment>)>,
    /// The partitions the request reports as owned (`None`: not sent).
    pub owned: Option<Assignment>,
}

/// The member a heartbeat speaks for, before the request's changes (not boxed: built once,
/// never moved far).
#[allow(clippy::large_enum_variant)]
enum Base<'g> {
    /// The stored member.
    Stored(&'g ConsumerGroupMember),
    /// A new member, or the copy a static member takes over (Kafka's static replacement:
    /// the holder's metadata, assignment and target under the new id, epochs 0).
    Fresh(ConsumerGroupMember),
}

impl Base<'_> {
    fn member(&self) -> &ConsumerGroupMember {
        match self {
            Base::Stored(m) => m,
            Base::Fresh(m) => m,
        }
    }
}

impl ConsumerManager<'_> {
    /// Phase one of a heartbeat at epoch ≥ 0 against `group` (`None`: no such group yet): the
    /// steps of docs/coordinator.md §1.2-1.9 in Kafka's order, changing nothing. `via`: the
    /// classic-protocol data of a member joining with JoinGroup (no epoch checks; it may replace
    /// any static member).
    ///
    /// # Errors
    /// GROUP_ID_NOT_FOUND, GROUP_MAX_SIZE_REACHED, the member checks
    /// ([`membership::resolve_member`]), FENCED_MEMBER_EPOCH for a member in an unknown state,
    /// INVALID_REGULAR_EXPRESSION, UNKNOWN_SERVER_ERROR from the assignor.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check<'r>(
        &self,
        ctx: &RequestContext,
        req: &'r ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        member_id: Cow<'r, str>,
        group: Option<&ConsumerGroup>,
        via: Via,
        foreign: bool,
    ) -> Result<Plan<'r>, HbError> {
        let gid: &'r str = &req.group_id;
        let fresh;
        let g = match group {
            _ if foreign => return Err(group_not_found(CONSUMER, gid, true)),
            Some(g) => g,
            None if req.member_epoch == 0 => {
                fresh = ConsumerGroup::new(gid);
                &fresh
            }
            None => return Err(group_not_found(CONSUMER, gid, false)),
        };
        self.check_size(g, req)?;
        let owned = owned_of(req);
        let (base, replaced) = resolve(g, req, &member_id, owned.as_ref(), via.is_some())?;
        if via.is_none()
            && base.member().state == MemberState::Unknown
            && owned.as_ref().is_none_or(|o| !o.is_empty())
        {
            return Err(membership::unknown_state(CONSUMER));
        }
        let updated = updated_member(&base, req, ctx, via);
        let u = updated.as_ref().unwrap_or(base.member());
        let b = base.member();
        // Compared only when the request changed the member: a stable member compares nothing.
        let subscription_changed = updated.as_ref().is_some_and(|u| {
            u.subscribed_topic_names != b.subscribed_topic_names
                || u.subscribed_topic_regex != b.subscribed_topic_regex
        });
        let new_regex = self.new_regex(g, u, now_ms)?;
        let replaced_id = replaced.map(|r| r.member_id.as_str());
        let dropped_regex = dropped_regex(g, b, u, replaced_id);
        let extra = new_regex.as_ref().map(|n| (n.regex.as_str(), &n.resolved));
        let prospective = Prospective {
            g,
            u,
            replaced: replaced_id,
            extra,
        };
        let bump = (g.group_epoch == 0 || subscription_changed)
            .then(|| (g.group_epoch + 1, prospective.hash(self)));
        let group_epoch = bump.map_or(g.group_epoch, |b| b.0);
        let targets = if group_epoch > g.assignment_epoch {
            Some((group_epoch, self.targets(&prospective)?))
        } else {
            None
        };
        let (updated, replaced) = match (base, updated) {
            (Base::Stored(_), None) => (None, None),
            (Base::Fresh(m), None) => (Some(Box::new(m)), replaced.map(|r| r.member_id.clone())),
            (_, Some(u)) => (Some(Box::new(u)), replaced.map(|r| r.member_id.clone())),
        };
        Ok(Plan {
            group_id: gid,
            member_id,
            replaced,
            updated,
            subscription_changed,
            new_regex,
            dropped_regex,
            bump,
            targets,
            owned,
        })
    }

    /// `group.consumer.max.size` (docs/coordinator.md §1.2): a full group refuses a member id
    /// it does not hold, before the member is looked up; a known static member is let in.
    fn check_size(
        &self,
        g: &ConsumerGroup,
        req: &ConsumerGroupHeartbeatRequest,
    ) -> Result<(), HbError> {
        let max = self.side.config.max_size;
        let static_known = req
            .instance_id
            .as_ref()
            .is_some_and(|i| g.static_members.contains_key(&**i));
        if !static_known
            && g.members.len() >= max as usize
            && (blank(&req.member_id) || !g.members.contains_key(&*req.member_id))
        {
            return fail(
                ErrorCode::GroupMaxSizeReached.code(),
                format!("The consumer group has reached its maximum capacity of {max} members."),
            );
        }
        Ok(())
    }
}

/// The member the heartbeat is for (shared lookup and epoch check,
/// [`membership::resolve_member`]) and, for a static replacement, the member it replaces.
fn resolve<'g>(
    g: &'g ConsumerGroup,
    req: &ConsumerGroupHeartbeatRequest,
    member_id: &str,
    owned: Option<&Assignment>,
    classic: bool,
) -> Result<(Base<'g>, Option<&'g ConsumerGroupMember>), HbError> {
    let may_replace =
        |h: &ConsumerGroupMember| h.member_epoch == -2 || classic || h.classic.is_some();
    let resolved = membership::resolve_member(
        g,
        member_id,
        req.instance_id.as_deref(),
        req.member_epoch,
        owned,
        may_replace,
        CONSUMER,
    )?;
    Ok(match resolved {
        Resolved::Existing(m) => (Base::Stored(m), None),
        Resolved::New => (Base::Fresh(ConsumerGroupMember::new(member_id)), None),
        Resolved::Replaces(h) => {
            let mut copy = h.clone();
            copy.member_id = member_id.to_string();
            copy.member_epoch = 0;
            copy.previous_member_epoch = 0;
            copy.pending_revocation = Assignment::new();
            (Base::Fresh(copy), Some(h))
        }
    })
}

/// The member as the request leaves it (null fields unchanged; client id and host from the
/// context; `via` the classic-protocol data, `None` for a ConsumerGroupHeartbeat member), or
/// `None` when the request changes no field of the stored member.
fn updated_member(
    base: &Base<'_>,
    req: &ConsumerGroupHeartbeatRequest,
    ctx: &RequestContext,
    via: Via,
) -> Option<ConsumerGroupMember> {
    let b = base.member();
    if matches!(base, Base::Stored(_)) && !changes(b, req, ctx, &via) {
        return None;
    }
    let mut u = b.clone();
    if let Some(i) = &req.instance_id {
        u.instance_id = Some(i.to_string());
    }
    if let Some(r) = &req.rack_id {
        u.rack_id = Some(r.to_string());
    }
    u.client_id.clone_from(&ctx.client_id);
    u.client_host.clone_from(&ctx.client_host);
    if let Some(names) = &req.subscribed_topic_names {
        u.subscribed_topic_names = names.iter().map(|n| n.to_string()).collect();
    }
    if let Some(re) = &req.subscribed_topic_regex {
        u.subscribed_topic_regex = (!re.is_empty()).then(|| re.to_string());
    }
    if req.rebalance_timeout_ms != -1 {
        u.rebalance_timeout_ms = req.rebalance_timeout_ms;
    }
    if let Some(a) = &req.server_assignor {
        u.server_assignor = Some(a.to_string());
    }
    u.classic = via;
    Some(u)
}

/// Whether the request changes a field of member `m` (the fields of its member-metadata
/// record), compared in place.
fn changes(
    m: &ConsumerGroupMember,
    req: &ConsumerGroupHeartbeatRequest,
    ctx: &RequestContext,
    via: &Via,
) -> bool {
    let differs =
        |new: Option<&str>, old: Option<&String>| new.is_some_and(|n| old.is_none_or(|o| o != n));
    let names_differ = req.subscribed_topic_names.as_ref().is_some_and(|names| {
        names
            .iter()
            .any(|n| !m.subscribed_topic_names.contains(n.as_str()))
            || m.subscribed_topic_names
                .iter()
                .any(|s| !names.iter().any(|n| n == s.as_str()))
    });
    let regex_differs = req
        .subscribed_topic_regex
        .as_deref()
        .is_some_and(|re| m.subscribed_topic_regex.as_deref() != (!re.is_empty()).then_some(re));
    differs(req.instance_id.as_deref(), m.instance_id.as_ref())
        || differs(req.rack_id.as_deref(), m.rack_id.as_ref())
        || m.client_id != ctx.client_id
        || m.client_host != ctx.client_host
        || names_differ
        || regex_differs
        || (req.rebalance_timeout_ms != -1 && req.rebalance_timeout_ms != m.rebalance_timeout_ms)
        || differs(req.server_assignor.as_deref(), m.server_assignor.as_ref())
        || m.classic != *via
}

/// The regex the member switches away from when it was its last subscriber and is resolved
/// (its tombstone, docs/coordinator.md §1.8).
fn dropped_regex(
    g: &ConsumerGroup,
    base: &ConsumerGroupMember,
    u: &ConsumerGroupMember,
    replaced: Option<&str>,
) -> Option<String> {
    let old = base.subscribed_topic_regex.as_ref()?;
    let kept = Some(old) == u.subscribed_topic_regex.as_ref()
        || !g.regexes.contains_key(old)
        || g.members.values().any(|o| {
            o.member_id != base.member_id
                && replaced != Some(o.member_id.as_str())
                && o.subscribed_topic_regex.as_ref() == Some(old)
        });
    (!kept).then(|| old.clone())
}

/// The membership as the heartbeat leaves it: the group's members without the replaced static
/// member, with the updated member in place of its stored self; `extra` the regex it resolves.
pub(super) struct Prospective<'a> {
    pub g: &'a ConsumerGroup,
    pub u: &'a ConsumerGroupMember,
    pub replaced: Option<&'a str>,
    pub extra: Option<(&'a str, &'a ResolvedRegex)>,
}

impl<'a> Prospective<'a> {
    /// Every member of the prospective membership.
    pub fn members(&self) -> impl Iterator<Item = &'a ConsumerGroupMember> + 'a {
        let (u, replaced) = (self.u, self.replaced);
        self.g
            .members
            .values()
            .filter(move |m| m.member_id != u.member_id && Some(m.member_id.as_str()) != replaced)
            .chain(std::iter::once(u))
    }

    /// The subscribed topic names of member `m` of the prospective membership.
    pub fn topic_names(&self, m: &'a ConsumerGroupMember) -> impl Iterator<Item = &'a String> + 'a {
        member_topic_names(m, &self.g.regexes, self.extra)
    }

    /// The metadata hash of every prospective member's subscribed topics.
    fn hash(&self, m: &ConsumerManager<'_>) -> u64 {
        m.ctx
            .metadata_hash(self.members().flat_map(|x| self.topic_names(x)))
    }
}

//! Who sends a heartbeat (§2.4, Kafka 4.4's `GroupMetadataManager.streamsGroupHeartbeat` up to
//! its member update): the group's capacity, the member found by member id or by static
//! instance id (KIP-345 for streams groups, Kafka 4.4) with the member-epoch fence (the shared
//! [`membership`] checks in streams words), and the member as the request updates it.
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use std::collections::BTreeMap;
use std::ops::Deref;

use super::super::group::{Endpoint, StreamsGroup, StreamsGroupMember, StreamsMemberState};
use super::super::tasks::TasksTuple;
use crate::coordinator::context::{fail, HbError, RequestContext};
use crate::coordinator::membership::{self, Resolved as MemberFound, STREAMS};
use crate::error::ErrorCode;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;

/// The member a heartbeat starts from: the stored one (borrowed), or one built for a join (a
/// new member, or the static member it replaces under the new member id), boxed so that what
/// phase one returns stays small to move; a stable heartbeat builds none.
pub(super) enum Base<'g> {
    /// The member as the group holds it.
    Stored(&'g StreamsGroupMember),
    /// A member built for a join.
    Built(Box<StreamsGroupMember>),
}

impl Base<'_> {
    /// The member, owned (copied when stored).
    pub fn into_owned(self) -> Box<StreamsGroupMember> {
        match self {
            Base::Stored(m) => Box::new(m.clone()),
            Base::Built(m) => m,
        }
    }
}

impl Deref for Base<'_> {
    type Target = StreamsGroupMember;

    fn deref(&self) -> &StreamsGroupMember {
        match self {
            Base::Stored(m) => m,
            Base::Built(m) => m,
        }
    }
}

/// The member a heartbeat speaks for, before the request's updates.
pub(super) struct Resolved<'g> {
    /// The member as the group holds it, or a new one, or the static member it replaces under
    /// the new member id.
    pub base: Base<'g>,
    /// The static member this join replaces: its member id and its target.
    pub replaced: Option<(&'g str, &'g TasksTuple)>,
    /// Whether the member is new to the group (not a static replacement).
    pub is_new: bool,
}

/// Finds the member of a heartbeat in `g` (the group as it stands): the capacity check of a
/// join, the member by id or instance id with Kafka's epoch check
/// ([`membership::resolve_member`]; a join replaces a static member that left with -2), and a
/// member in an UNKNOWN state must rejoin with empty task lists.
///
/// # Errors
/// GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID or
/// FENCED_MEMBER_EPOCH, with Kafka's messages.
pub(super) fn resolve<'g>(
    g: &'g StreamsGroup,
    req: &StreamsGroupHeartbeatRequest,
    owned: Option<&TasksTuple>,
    max_size: i32,
) -> Result<Resolved<'g>, HbError> {
    check_capacity(g, req, max_size)?;
    let mid = &*req.member_id;
    let found = membership::resolve_member(
        g,
        mid,
        req.instance_id.as_deref(),
        req.member_epoch,
        owned,
        |holder| holder.member_epoch == -2,
        STREAMS,
    )?;
    let resolved = match found {
        MemberFound::Existing(m) => Resolved {
            base: Base::Stored(m),
            replaced: None,
            is_new: false,
        },
        MemberFound::New => Resolved {
            base: Base::Built(Box::new(StreamsGroupMember::new(mid))),
            replaced: None,
            is_new: true,
        },
        // Kafka 4.4's replaceStreamsMember: the new member takes over the old one's metadata,
        // tasks and target (member epoch 0).
        MemberFound::Replaces(old) => {
            let mut m = Box::new(old.clone());
            m.member_id = mid.to_string();
            m.member_epoch = 0;
            m.previous_member_epoch = 0;
            let target = g.targets.get(&old.member_id).unwrap_or(&NO_TASKS);
            Resolved {
                base: Base::Built(m),
                replaced: Some((old.member_id.as_str(), target)),
                is_new: false,
            }
        }
    };
    if resolved.base.state == StreamsMemberState::Unknown && owned.is_none_or(|o| !o.is_empty()) {
        return Err(membership::unknown_state(STREAMS));
    }
    Ok(resolved)
}

/// No task in any role: the target of a member without one.
pub(super) static NO_TASKS: TasksTuple = TasksTuple {
    active: BTreeMap::new(),
    standby: BTreeMap::new(),
    warmup: BTreeMap::new(),
};

/// Kafka 4.4's `throwIfStreamsGroupIsFull`: a join of a new member into a full group; a static
/// member replacing its instance and a member already in the group do not count.
fn check_capacity(
    g: &StreamsGroup,
    req: &StreamsGroupHeartbeatRequest,
    max_size: i32,
) -> Result<(), HbError> {
    if req.member_epoch != 0 {
        return Ok(());
    }
    let static_known = req
        .instance_id
        .as_deref()
        .is_some_and(|i| g.static_member(i).is_some());
    if !static_known
        && !g.members.contains_key(&*req.member_id)
        && g.members.len() >= max_size as usize
    {
        return fail(
            ErrorCode::GroupMaxSizeReached.code(),
            format!("The streams group has reached its maximum capacity of {max_size} members."),
        );
    }
    Ok(())
}

/// §2.4 step 1: the member as the request updates it (a null field means unchanged; client id
/// and host come from the request context; `topology_epoch` from a joining request's topology),
/// or `None` when that changes nothing of its metadata and the member is not new. Compared in
/// place, so an unchanged member is not copied; the updated one is boxed (small to move).
pub(super) fn updated(
    base: &StreamsGroupMember,
    req: &StreamsGroupHeartbeatRequest,
    ctx: &RequestContext,
    topology_epoch: Option<i32>,
    is_new: bool,
) -> Option<Box<StreamsGroupMember>> {
    if !is_new && !metadata_changes(base, req, ctx, topology_epoch) {
        return None;
    }
    let mut u = Box::new(base.clone());
    if let Some(i) = &req.instance_id {
        u.instance_id = Some(i.to_string());
    }
    if let Some(r) = &req.rack_id {
        u.rack_id = Some(r.to_string());
    }
    if req.rebalance_timeout_ms != -1 {
        u.rebalance_timeout_ms = req.rebalance_timeout_ms;
    }
    if let Some(p) = &req.process_id {
        u.process_id = p.to_string();
    }
    if let Some(tags) = &req.client_tags {
        u.client_tags = tags
            .iter()
            .map(|kv| (kv.key.to_string(), kv.value.to_string()))
            .collect();
    }
    if let Some(e) = &req.user_endpoint {
        u.user_endpoint = Some(Endpoint {
            host: e.host.to_string(),
            port: e.port,
        });
    }
    u.client_id.clone_from(&ctx.client_id);
    u.client_host.clone_from(&ctx.client_host);
    if let Some(e) = topology_epoch {
        u.topology_epoch = e;
    }
    Some(u)
}

/// Whether the request changes a field of `m`'s metadata (what
/// [`StreamsGroupMember::same_metadata`] compares).
fn metadata_changes(
    m: &StreamsGroupMember,
    req: &StreamsGroupHeartbeatRequest,
    ctx: &RequestContext,
    topology_epoch: Option<i32>,
) -> bool {
    let differs = |given: Option<&str>, held: Option<&str>| given.is_some_and(|g| Some(g) != held);
    differs(req.instance_id.as_deref(), m.instance_id.as_deref())
        || differs(req.rack_id.as_deref(), m.rack_id.as_deref())
        || (req.rebalance_timeout_ms != -1 && req.rebalance_timeout_ms != m.rebalance_timeout_ms)
        || differs(req.process_id.as_deref(), Some(&m.process_id))
        || req.client_tags.as_ref().is_some_and(|t| {
            let given = t.iter().map(|kv| (&*kv.key, &*kv.value));
            !same_tags(given, &m.client_tags)
        })
        || req.user_endpoint.as_ref().is_some_and(|e| {
            m.user_endpoint
                .as_ref()
                .is_none_or(|h| h.host != *e.host || h.port != e.port)
        })
        || ctx.client_id != m.client_id
        || ctx.client_host != m.client_host
        || topology_epoch.is_some_and(|e| e != m.topology_epoch)
}

/// Whether the tag list `given` makes the map `held` (later keys win, as when collected).
fn same_tags<'r>(
    given: impl ExactSizeIterator<Item = (&'r str, &'r str)> + Clone,
    held: &BTreeMap<String, String>,
) -> bool {
    let mut keys = given.clone().map(|(k, _)| k);
    let strictly_sorted = keys.next().is_none_or(|first| {
        keys.try_fold(first, |prev, k| (prev < k).then_some(k))
            .is_some()
    });
    if strictly_sorted {
        return given.len() == held.len()
            && given
                .into_iter()
                .all(|(k, v)| held.get(k).is_some_and(|h| h == v));
    }
    let collected: BTreeMap<&str, &str> = given.collect();
    collected.len() == held.len()
        && collected
            .iter()
            .all(|(k, v)| held.get(*k).is_some_and(|h| h == v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::streams_group_heartbeat_request::{Endpoint as ReqEndpoint, KeyValue};
    use proptest::prelude::*;

    fn member() -> StreamsGroupMember {
        let mut m = StreamsGroupMember::new("m");
        m.instance_id = Some("i".into());
        m.rack_id = Some("r".into());
        m.client_id = "c".into();
        m.client_host = "h".into();
        m.rebalance_timeout_ms = 100;
        m.topology_epoch = 3;
        m.process_id = "p".into();
        m.user_endpoint = Some(Endpoint {
            host: "e".into(),
            port: 1,
        });
        m.client_tags = BTreeMap::from([("a".into(), "1".into()), ("b".into(), "2".into())]);
        m
    }

    fn pick(names: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop::sample::select(names).prop_map(str::to_string)
    }

    proptest! {
        /// `updated` gives a member exactly when building it would change the metadata
        /// (`same_metadata` of the built member against the base).
        #[test]
        fn in_place_comparison_agrees_with_same_metadata(
            instance in prop::option::of(pick(&["i", "j"])),
            rack in prop::option::of(pick(&["r", "s"])),
            timeout in prop::sample::select(vec![-1, 100, 200]),
            process in prop::option::of(pick(&["p", "q"])),
            tags in prop::option::of(prop::collection::vec((pick(&["a", "b", "c"]), pick(&["1", "2"])), 0..4)),
            endpoint in prop::option::of((pick(&["e", "f"]), 1_u16..3)),
            client in (pick(&["c", "d"]), pick(&["h", "k"])),
            epoch in prop::option::of(2_i32..5),
        ) {
            let base = member();
            let req = StreamsGroupHeartbeatRequest {
                instance_id: instance.map(Into::into),
                rack_id: rack.map(Into::into),
                rebalance_timeout_ms: timeout,
                process_id: process.map(Into::into),
                client_tags: tags.map(|t| t.into_iter().map(|(k, v)| KeyValue {
                    key: k.into(),
                    value: v.into(),
                    ..Default::default()
                }).collect()),
                user_endpoint: endpoint.map(|(h, p)| ReqEndpoint { host: h.into(), port: p, ..Default::default() }),
                ..Default::default()
            };
            let ctx = RequestContext::new(&client.0, &client.1, 1);
            let forced = updated(&base, &req, &ctx, epoch, true).expect("a new member is built");
            let got = updated(&base, &req, &ctx, epoch, false);
            prop_assert_eq!(got.is_some(), !forced.same_metadata(&base));
            if let Some(u) = got {
                prop_assert_eq!(*u, *forced);
            }
        }
    }
}

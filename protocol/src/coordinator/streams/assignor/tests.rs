//! Tests of the sticky task assignor: examples of every step and property tests of its
//! guarantees (balance, one copy per process, stability).

use std::collections::{BTreeMap, BTreeSet};

use super::super::tasks::{insert_task, TaskRole, TaskSet, TasksTuple};
use super::*;
use proptest::prelude::*;

/// A task set from `(subtopology, partitions)` pairs.
fn ts(list: &[(&str, &[i32])]) -> TaskSet {
    list.iter()
        .filter(|(_, ps)| !ps.is_empty())
        .map(|&(s, ps)| (s.to_string(), ps.iter().copied().collect()))
        .collect()
}

/// A member of `process` without previous tasks.
fn member(process: &str) -> AssignmentMemberSpec {
    AssignmentMemberSpec {
        process_id: process.to_string(),
        ..Default::default()
    }
}

/// A member of `process` with previous active and standby tasks.
fn prev(process: &str, active: TaskSet, standby: TaskSet) -> AssignmentMemberSpec {
    AssignmentMemberSpec {
        active_tasks: active,
        standby_tasks: standby,
        ..member(process)
    }
}

/// A group spec from members, `(subtopology, tasks, stateful)` and the standby count.
fn group(
    members: Vec<(&str, AssignmentMemberSpec)>,
    subtopologies: &[(&str, i32, bool)],
    num_standby_replicas: i32,
) -> GroupSpec {
    GroupSpec {
        members: members
            .into_iter()
            .map(|(id, m)| (id.to_string(), m))
            .collect(),
        subtopologies: subtopologies
            .iter()
            .map(|&(s, num_tasks, stateful)| {
                (
                    s.to_string(),
                    SubtopologySpec {
                        num_tasks,
                        stateful,
                    },
                )
            })
            .collect(),
        num_standby_replicas,
        ..Default::default()
    }
}

fn run(spec: &GroupSpec) -> BTreeMap<String, TasksTuple> {
    let result = StickyTaskAssignor.assign(spec).expect("assign");
    check_invariants(spec, &result);
    result
}

/// `(active, standby)` of one member.
fn tasks_of(result: &BTreeMap<String, TasksTuple>, id: &str) -> (TaskSet, TaskSet) {
    let t = &result[id];
    (t.active.clone(), t.standby.clone())
}

fn size(set: &TaskSet) -> usize {
    set.values().map(BTreeSet::len).sum()
}

/// The same group with each member's previous tasks replaced by `result`'s.
fn with_previous(spec: &GroupSpec, result: &BTreeMap<String, TasksTuple>) -> GroupSpec {
    let mut next = spec.clone();
    for (id, m) in &mut next.members {
        let t = result.get(id).cloned().unwrap_or_default();
        m.active_tasks = t.active;
        m.standby_tasks = t.standby;
        m.warmup_tasks = t.warmup;
    }
    next
}

/// The invariants that hold for every spec:
/// * the result has exactly the spec's members, no warm-up tasks and no empty sets;
/// * every task of every subtopology has exactly one active owner, and nothing else is
///   assigned;
/// * active counts are balanced: `T mod M` members have `ceil(T / M)`, the rest
///   `floor(T / M)`;
/// * no process holds two copies of a task;
/// * stateless tasks have no standbys, and stateful ones
///   `min(num_standby_replicas, processes - 1)`;
/// * no standby could move to a member with two tasks fewer (step 7 finished).
fn check_invariants(spec: &GroupSpec, result: &BTreeMap<String, TasksTuple>) {
    let ids: Vec<&String> = spec.members.keys().collect();
    let got: Vec<&String> = result.keys().collect();
    assert_eq!(ids, got, "result members differ from the spec's");
    let processes: BTreeSet<&str> = spec
        .members
        .values()
        .map(|m| m.process_id.as_str())
        .collect();
    let total: usize = spec
        .subtopologies
        .values()
        .map(|s| s.num_tasks as usize)
        .sum();
    let floor = total / spec.members.len().max(1);
    let extra = total % spec.members.len().max(1);
    let mut active: BTreeMap<(&str, i32), &str> = BTreeMap::new();
    let mut standbys: BTreeMap<(&str, i32), usize> = BTreeMap::new();
    let mut copies: BTreeSet<(&str, &str, i32)> = BTreeSet::new();
    for (id, t) in result {
        assert!(t.warmup.is_empty(), "{id} got warm-up tasks");
        let process = spec.members[id].process_id.as_str();
        for (role, s, p) in t.iter() {
            let sub = spec
                .subtopologies
                .get(s)
                .unwrap_or_else(|| panic!("{id} got unknown subtopology {s}"));
            assert!((0..sub.num_tasks).contains(&p), "{id} got {s}-{p}");
            assert!(
                copies.insert((process, s, p)),
                "process {process} holds {s}-{p} twice"
            );
            match role {
                TaskRole::Active => {
                    if let Some(other) = active.insert((s, p), id) {
                        panic!("{s}-{p} active on {other} and {id}");
                    }
                }
                _ => *standbys.entry((s, p)).or_default() += 1,
            }
        }
        for set in [&t.active, &t.standby] {
            assert!(set.values().all(|ps| !ps.is_empty()), "{id}: empty set");
        }
    }
    let replicas = usize::try_from(spec.num_standby_replicas).unwrap_or(0);
    let wanted = replicas.min(processes.len().saturating_sub(1));
    for (s, sub) in &spec.subtopologies {
        for p in 0..sub.num_tasks {
            if !spec.members.is_empty() {
                assert!(active.contains_key(&(s.as_str(), p)), "{s}-{p} unassigned");
            }
            let n = standbys.get(&(s.as_str(), p)).copied().unwrap_or(0);
            let expected = if sub.stateful { wanted } else { 0 };
            assert_eq!(n, expected, "{s}-{p}: standby count");
        }
    }
    let sizes: Vec<usize> = result.values().map(|t| size(&t.active)).collect();
    assert!(
        sizes.iter().all(|&n| n == floor || n == floor + 1),
        "active counts {sizes:?} are not {floor} or {}",
        floor + 1
    );
    let big = sizes.iter().filter(|&&n| n > floor).count();
    assert_eq!(big, extra, "active counts {sizes:?}");
    // Step 7: no standby of `from` may go to a member with two tasks fewer.
    let count = |id: &str| result[id].len();
    for (from, t) in result {
        let home = spec.members[from].process_id.as_str();
        for (s, ps) in &t.standby {
            for &p in ps {
                for (to, m) in &spec.members {
                    let process = m.process_id.as_str();
                    let free = process == home || !copies.contains(&(process, s, p));
                    assert!(
                        !(free && count(to) + 2 <= count(from)),
                        "standby {s}-{p} of {from} could move to {to}"
                    );
                }
            }
        }
    }
}

#[test]
fn name_is_sticky() {
    assert_eq!(StickyTaskAssignor.name(), "sticky");
}

#[test]
fn no_members_gives_nothing() {
    let spec = group(vec![], &[("s", 4, true)], 1);
    assert_eq!(run(&spec), BTreeMap::new());
}

#[test]
fn negative_task_count_is_an_error() {
    let spec = group(vec![("m1", member("p1"))], &[("s", -1, true)], 0);
    let err = StickyTaskAssignor.assign(&spec).unwrap_err();
    assert_eq!(
        err.to_string(),
        "task assignment failed: subtopology s has a negative task count -1"
    );
}

#[test]
fn one_member_gets_everything() {
    let spec = group(
        vec![("m1", member("p1"))],
        &[("a", 3, true), ("b", 2, false)],
        1,
    );
    let result = run(&spec);
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("a", &[0, 1, 2]), ("b", &[0, 1])]), ts(&[]))
    );
}

#[test]
fn two_members_split_six_tasks() {
    let spec = group(
        vec![("m1", member("p1")), ("m2", member("p2"))],
        &[("s", 6, false)],
        0,
    );
    let result = run(&spec);
    // Alternating: the tie between the two empty processes goes to p1.
    assert_eq!(result["m1"].active, ts(&[("s", &[0, 2, 4])]));
    assert_eq!(result["m2"].active, ts(&[("s", &[1, 3, 5])]));
}

#[test]
fn previous_owners_keep_tasks_within_quota_when_a_member_joins() {
    let spec = group(
        vec![
            ("m1", prev("p1", ts(&[("s", &[0, 2, 4])]), ts(&[]))),
            ("m2", prev("p2", ts(&[("s", &[1, 3, 5])]), ts(&[]))),
            ("m3", member("p3")),
        ],
        &[("s", 6, false)],
        0,
    );
    let result = run(&spec);
    // Quota 2: m1 and m2 keep their two lowest partitions, the new member gets the rest.
    assert_eq!(result["m1"].active, ts(&[("s", &[0, 2])]));
    assert_eq!(result["m2"].active, ts(&[("s", &[1, 3])]));
    assert_eq!(result["m3"].active, ts(&[("s", &[4, 5])]));
}

#[test]
fn tasks_of_a_leaving_member_are_spread() {
    let spec = group(
        vec![
            ("m1", prev("p1", ts(&[("s", &[0, 1])]), ts(&[]))),
            ("m2", prev("p2", ts(&[("s", &[2, 3])]), ts(&[]))),
        ],
        &[("s", 6, false)],
        0,
    );
    // m3 had 4 and 5.
    let result = run(&spec);
    assert_eq!(result["m1"].active, ts(&[("s", &[0, 1, 4])]));
    assert_eq!(result["m2"].active, ts(&[("s", &[2, 3, 5])]));
}

#[test]
fn standbys_go_to_the_other_process() {
    let spec = group(
        vec![("m1", member("p1")), ("m2", member("p2"))],
        &[("s", 4, true), ("t", 2, false)],
        1,
    );
    let result = run(&spec);
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("s", &[0, 2]), ("t", &[0])]), ts(&[("s", &[1, 3])]))
    );
    assert_eq!(
        tasks_of(&result, "m2"),
        (ts(&[("s", &[1, 3]), ("t", &[1])]), ts(&[("s", &[0, 2])]))
    );
}

#[test]
fn no_standbys_when_all_members_share_one_process() {
    let spec = group(
        vec![
            ("m1", member("p")),
            ("m2", member("p")),
            ("m3", member("p")),
        ],
        &[("s", 6, true)],
        2,
    );
    let result = run(&spec);
    for (id, t) in &result {
        assert_eq!(size(&t.active), 2, "{id}");
        assert!(t.standby.is_empty(), "{id}");
    }
}

#[test]
fn stateless_subtopologies_get_no_standbys() {
    let spec = group(
        vec![
            ("m1", member("p1")),
            ("m2", member("p2")),
            ("m3", member("p3")),
        ],
        &[("s", 5, false)],
        2,
    );
    let result = run(&spec);
    assert!(result.values().all(|t| t.standby.is_empty()));
    assert_eq!(
        result.values().map(|t| size(&t.active)).collect::<Vec<_>>(),
        vec![2, 2, 1]
    );
}

#[test]
fn members_of_one_process_share_its_load() {
    let spec = group(
        vec![
            ("a1", member("A")),
            ("a2", member("A")),
            ("b1", member("B")),
        ],
        &[("s", 6, false)],
        0,
    );
    let result = run(&spec);
    // A has two members, so it takes two tasks for each one B takes.
    assert_eq!(result["a1"].active, ts(&[("s", &[0, 3])]));
    assert_eq!(result["a2"].active, ts(&[("s", &[2, 5])]));
    assert_eq!(result["b1"].active, ts(&[("s", &[1, 4])]));
}

#[test]
fn previous_standby_becomes_active_when_the_owner_is_gone() {
    // m1 (gone) had 0 and 1 active, m4 kept standbys of them.
    let spec = group(
        vec![
            ("m2", prev("p2", ts(&[("s", &[2, 3])]), ts(&[]))),
            ("m3", member("p3")),
            ("m4", prev("p4", ts(&[]), ts(&[("s", &[0, 1])]))),
        ],
        &[("s", 4, false)],
        0,
    );
    let result = run(&spec);
    assert_eq!(result["m2"].active, ts(&[("s", &[2, 3])]));
    // Quota 1 after m2 is full: m4 takes back 0, the new member gets 1.
    assert_eq!(result["m4"].active, ts(&[("s", &[0])]));
    assert_eq!(result["m3"].active, ts(&[("s", &[1])]));
}

#[test]
fn warmup_holder_counts_as_previous_holder() {
    let spec = group(
        vec![
            ("m1", member("p1")),
            (
                "m2",
                AssignmentMemberSpec {
                    warmup_tasks: ts(&[("s", &[0])]),
                    ..member("p2")
                },
            ),
        ],
        &[("s", 2, false)],
        0,
    );
    let result = run(&spec);
    assert_eq!(result["m2"].active, ts(&[("s", &[0])]));
    assert_eq!(result["m1"].active, ts(&[("s", &[1])]));
}

#[test]
fn previous_active_owner_keeps_a_standby_copy() {
    let spec = group(
        vec![
            ("m1", prev("p1", ts(&[("s", &[0, 1, 2, 3])]), ts(&[]))),
            ("m2", member("p2")),
        ],
        &[("s", 4, true)],
        1,
    );
    let result = run(&spec);
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("s", &[0, 1])]), ts(&[("s", &[2, 3])]))
    );
    assert_eq!(
        tasks_of(&result, "m2"),
        (ts(&[("s", &[2, 3])]), ts(&[("s", &[0, 1])]))
    );
}

#[test]
fn standbys_rebalance_when_a_process_joins() {
    let spec = group(
        vec![
            (
                "m1",
                prev("p1", ts(&[("s", &[0, 1, 2])]), ts(&[("s", &[3, 4, 5])])),
            ),
            (
                "m2",
                prev("p2", ts(&[("s", &[3, 4, 5])]), ts(&[("s", &[0, 1, 2])])),
            ),
            ("m3", member("p3")),
        ],
        &[("s", 6, true)],
        1,
    );
    let result = run(&spec);
    // Actives: quota 2, m3 gets the two that m1 and m2 gave up. Standbys: the previous
    // owners keep theirs (5 tasks each), then step 7 moves one from each to m3.
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("s", &[0, 1])]), ts(&[("s", &[2, 3])]))
    );
    assert_eq!(
        tasks_of(&result, "m2"),
        (ts(&[("s", &[3, 4])]), ts(&[("s", &[0, 5])]))
    );
    assert_eq!(
        tasks_of(&result, "m3"),
        (ts(&[("s", &[2, 5])]), ts(&[("s", &[1, 4])]))
    );
}

#[test]
fn previous_standbys_stay_put() {
    let spec = group(
        vec![
            ("m1", prev("p1", ts(&[("s", &[0])]), ts(&[]))),
            ("m2", prev("p2", ts(&[("s", &[1])]), ts(&[]))),
            ("m3", prev("p3", ts(&[]), ts(&[("s", &[0, 1])]))),
        ],
        &[("s", 2, true)],
        1,
    );
    let result = run(&spec);
    assert_eq!(result["m3"].standby, ts(&[("s", &[0, 1])]));
    assert!(result["m3"].active.is_empty());
    assert!(result["m1"].standby.is_empty() && result["m2"].standby.is_empty());
}

#[test]
fn garbage_previous_tasks_are_ignored() {
    let spec = group(
        vec![
            (
                "m1",
                prev(
                    "p1",
                    ts(&[("gone", &[0]), ("s", &[-1, 7, 1])]),
                    ts(&[("s", &[99])]),
                ),
            ),
            ("m2", prev("p2", ts(&[("s", &[1])]), ts(&[]))),
        ],
        &[("s", 2, true)],
        1,
    );
    let result = run(&spec);
    // Both claim s-1; the first in member-id order keeps it.
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("s", &[1])]), ts(&[("s", &[0])]))
    );
    assert_eq!(
        tasks_of(&result, "m2"),
        (ts(&[("s", &[0])]), ts(&[("s", &[1])]))
    );
}

#[test]
fn empty_process_id_is_a_process() {
    let spec = group(
        vec![("m1", member("")), ("m2", member("p"))],
        &[("s", 2, true)],
        1,
    );
    let result = run(&spec);
    assert_eq!(
        tasks_of(&result, "m1"),
        (ts(&[("s", &[0])]), ts(&[("s", &[1])]))
    );
}

#[test]
fn negative_standby_replicas_mean_none() {
    let spec = group(
        vec![("m1", member("p1")), ("m2", member("p2"))],
        &[("s", 2, true)],
        -3,
    );
    let result = run(&spec);
    assert!(result.values().all(|t| t.standby.is_empty()));
}

#[test]
fn huge_standby_replicas_are_capped_by_processes() {
    let spec = group(
        vec![
            ("m1", member("p1")),
            ("m2", member("p2")),
            ("m3", member("p3")),
        ],
        &[("s", 3, true)],
        i32::MAX,
    );
    let result = run(&spec);
    for t in result.values() {
        assert_eq!(size(&t.active) + size(&t.standby), 3);
    }
}

/// Random groups: `(members, subtopologies, standbys)`; members carry random previous tasks,
/// including tasks of a subtopology that does not exist ("x") and out-of-range partitions.
fn arb_group() -> impl Strategy<Value = GroupSpec> {
    let subs = prop::collection::vec((1..=40i32, any::<bool>()), 1..=6);
    let prev_task = (0..7usize, -1..45i32, 0..4u8);
    let members = prop::collection::vec(
        (0..10usize, prop::collection::vec(prev_task, 0..12)),
        1..=30,
    );
    (members, subs, 0..=2i32).prop_map(|(members, subs, replicas)| {
        let names = ["a", "b", "c", "d", "e", "f", "x"];
        let mut spec = GroupSpec {
            num_standby_replicas: replicas,
            ..Default::default()
        };
        for (i, &(num_tasks, stateful)) in subs.iter().enumerate() {
            spec.subtopologies.insert(
                names[i].to_string(),
                SubtopologySpec {
                    num_tasks,
                    stateful,
                },
            );
        }
        for (i, (process, previous)) in members.into_iter().enumerate() {
            let mut m = member(&format!("process-{process}"));
            for (s, p, role) in previous {
                let set = match role {
                    0 => &mut m.active_tasks,
                    1 => &mut m.standby_tasks,
                    2 => &mut m.warmup_tasks,
                    _ => continue,
                };
                insert_task(set, names[s], p);
            }
            spec.members.insert(format!("member-{i:02}"), m);
        }
        spec
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn invariants_hold(spec in arb_group()) {
        let result = run(&spec);
        // Deterministic.
        prop_assert_eq!(&StickyTaskAssignor.assign(&spec).expect("assign"), &result);
    }

    #[test]
    fn first_assignment_is_balanced(spec in arb_group()) {
        let mut spec = spec;
        for m in spec.members.values_mut() {
            m.active_tasks.clear();
            m.standby_tasks.clear();
            m.warmup_tasks.clear();
        }
        let result = run(&spec);
        let sizes: Vec<usize> = result.values().map(|t| size(&t.active)).collect();
        let max = sizes.iter().copied().max().unwrap_or(0);
        let min = sizes.iter().copied().min().unwrap_or(0);
        prop_assert!(max - min <= 1, "active counts {:?}", sizes);
    }

    #[test]
    fn previous_owners_keep_up_to_floor_quota(spec in arb_group()) {
        let result = run(&spec);
        let total: usize = spec.subtopologies.values().map(|s| s.num_tasks as usize).sum();
        let floor = total / spec.members.len();
        let mut claimed: BTreeSet<(&str, i32)> = BTreeSet::new();
        for (id, m) in &spec.members {
            let mut had = 0;
            let mut kept = 0;
            for (s, ps) in &m.active_tasks {
                let Some(sub) = spec.subtopologies.get(s) else { continue };
                for &p in ps {
                    if (0..sub.num_tasks).contains(&p) && claimed.insert((s.as_str(), p)) {
                        had += 1;
                        kept += usize::from(result[id].contains(TaskRole::Active, s, p));
                    }
                }
            }
            prop_assert!(kept >= had.min(floor), "{} kept {} of {}", id, kept, had);
        }
    }

    #[test]
    fn output_fed_back_is_stable(spec in arb_group()) {
        let first = run(&spec);
        let again = run(&with_previous(&spec, &first));
        prop_assert_eq!(again, first);
    }
}

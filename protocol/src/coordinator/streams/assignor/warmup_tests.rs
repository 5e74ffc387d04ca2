//! Tests of warm-up placement and of lags (docs/coordinator.md §2.12).

use std::collections::BTreeMap;

use super::super::tasks::{TaskOffsets, TaskSet};
use super::*;

fn offsets(list: &[(&str, i32, i64)]) -> TaskOffsets {
    list.iter()
        .map(|&(s, p, o)| ((s.to_string(), p), o))
        .collect()
}

fn set(list: &[(&str, &[i32])]) -> TaskSet {
    list.iter()
        .map(|&(s, ps)| (s.to_string(), ps.iter().copied().collect()))
        .collect()
}

/// m0 (process a) ran all 4 tasks of stateful "s"; m1 (process b) joins without state.
fn spec(m1_offset: Option<i64>, warmups: i32) -> GroupSpec {
    let all: Vec<(&str, i32, i64)> = (0..4).map(|p| ("s", p, LATEST_OFFSET)).collect();
    let ends: Vec<(&str, i32, i64)> = (0..4).map(|p| ("s", p, 100)).collect();
    let m0 = AssignmentMemberSpec {
        process_id: "a".into(),
        active_tasks: set(&[("s", &[0, 1, 2, 3])]),
        task_offsets: offsets(&all),
        task_end_offsets: offsets(&ends),
        warmups_allowed: true,
        ..Default::default()
    };
    let m1 = AssignmentMemberSpec {
        process_id: "b".into(),
        task_offsets: m1_offset.map_or_else(TaskOffsets::new, |o| offsets(&[("s", 2, o)])),
        warmups_allowed: true,
        ..Default::default()
    };
    GroupSpec {
        members: BTreeMap::from([("m0".to_string(), m0), ("m1".to_string(), m1)]),
        subtopologies: BTreeMap::from([(
            "s".to_string(),
            SubtopologySpec {
                num_tasks: 4,
                stateful: true,
            },
        )]),
        num_standby_replicas: 0,
        num_warmup_replicas: warmups,
        acceptable_recovery_lag: 10,
    }
}

#[test]
fn tasks_moving_to_a_process_without_state_are_warmed_up_first() {
    let r = StickyTaskAssignor.assign(&spec(None, 1)).unwrap();
    assert_eq!(r["m0"].active, set(&[("s", &[0, 1, 2, 3])]));
    assert!(r["m1"].active.is_empty());
    assert_eq!(r["m1"].warmup, set(&[("s", &[2])]));
    // Stable: the same lags give the same assignment.
    let mut next = spec(Some(40), 1);
    next.members.get_mut("m1").unwrap().warmup_tasks = r["m1"].warmup.clone();
    next.members.get_mut("m0").unwrap().active_tasks = r["m0"].active.clone();
    let again = StickyTaskAssignor.assign(&next).unwrap();
    assert_eq!(again, r);
}

#[test]
fn a_caught_up_warmup_is_promoted_and_the_next_one_placed() {
    let first = StickyTaskAssignor.assign(&spec(None, 1)).unwrap();
    let mut next = spec(Some(95), 1);
    next.members.get_mut("m1").unwrap().warmup_tasks = first["m1"].warmup.clone();
    let r = StickyTaskAssignor.assign(&next).unwrap();
    assert_eq!(r["m1"].active, set(&[("s", &[2])]));
    assert_eq!(r["m1"].warmup, set(&[("s", &[3])]));
    assert_eq!(r["m0"].active, set(&[("s", &[0, 1, 3])]));
}

#[test]
fn without_warmups_or_for_v0_members_tasks_move_at_once() {
    let r = StickyTaskAssignor.assign(&spec(None, 0)).unwrap();
    assert_eq!(r["m1"].active, set(&[("s", &[2, 3])]));
    let mut v0 = spec(None, 2);
    v0.members.get_mut("m1").unwrap().warmups_allowed = false;
    let r = StickyTaskAssignor.assign(&v0).unwrap();
    assert_eq!(r["m1"].active, set(&[("s", &[2, 3])]));
    assert!(r.values().all(|t| t.warmup.is_empty()));
}

#[test]
fn lags() {
    let s = spec(Some(30), 2);
    assert_eq!(process_lag(&s, "a", "s", 2), 0);
    assert_eq!(process_lag(&s, "b", "s", 2), 70);
    assert_eq!(process_lag(&s, "b", "s", 3), 100);
    assert_eq!(process_lag(&s, "b", "x", 0), 0, "unknown end offset");
    let own = offsets(&[("s", 2, 95)]);
    let ends = offsets(&[("s", 2, 100)]);
    let w = set(&[("s", &[2])]);
    assert!(warmup_caught_up((Some(&own), Some(&ends)), None, &w, 10));
    assert!(!warmup_caught_up((Some(&own), Some(&ends)), None, &w, 4));
}

//! The wire-compatibility gate of `cargo xtask codegen` (`xtask::codegen::gate`) on a scratch git
//! repository: one spec committed under `schemas/`, then edited in the working tree.

use std::path::{Path, PathBuf};
use std::process::Command;
use xtask::codegen::{gate, Gate};

/// The committed spec: a data type with two versions and one field.
const V0_1: &str = r#"{
  "type": "data",
  "name": "GateProbe",
  "validVersions": "0-1",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "GroupId", "type": "string", "versions": "0+",
      "about": "The group." }
  ]
}
"#;

/// A scratch git repository under the system temp folder, removed on drop.
struct Repo(PathBuf);

impl Repo {
    fn new(name: &str) -> Repo {
        let dir = std::env::temp_dir().join(format!("kwire-gate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("schemas")).unwrap();
        let repo = Repo(dir);
        repo.git(&["init", "-q"]);
        repo
    }

    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.0)
            .args([
                "-c",
                "user.name=kwire",
                "-c",
                "user.email=kwire@example.invalid",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn write(&self, text: &str) {
        std::fs::write(self.0.join("schemas/GateProbe.json"), text).unwrap();
    }

    fn commit(&self) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "spec"]);
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `V0_1` with a non-tagged field added to the versions it already has (`0+`), or, `bump`ed, with
/// a version 2 that alone carries it.
fn with_member_id(bump: bool) -> String {
    let (valid, versions) = if bump { ("0-2", "2+") } else { ("0-1", "0+") };
    V0_1.replace(
        r#""validVersions": "0-1""#,
        &format!(r#""validVersions": "{valid}""#),
    )
    .replace(
        r#""about": "The group." }"#,
        &format!(
            r#""about": "The group." }},
    {{ "name": "MemberId", "type": "string", "versions": "{versions}",
      "about": "The member." }}"#
        ),
    )
}

#[test]
fn a_field_added_to_existing_versions_is_refused_with_the_finding() {
    let repo = Repo::new("breaking");
    repo.write(V0_1);
    repo.commit();
    repo.write(&with_member_id(false));
    let Gate::Refused(text) = gate(repo.path(), "schemas", "HEAD", false).unwrap() else {
        panic!("a breaking edit must be refused")
    };
    assert!(text.contains("K5006"), "{text}");
    assert!(text.contains("MemberId"), "{text}");
    assert!(text.contains("HEAD:schemas/GateProbe.json"), "{text}");
    assert!(text.contains("schemas/GateProbe.json"), "{text}");
    assert!(text.contains("1 breaking change(s)"), "{text}");
    assert!(!Gate::Refused(text).passes());
}

#[test]
fn allow_breaking_lets_it_through_with_the_findings() {
    let repo = Repo::new("allowed");
    repo.write(V0_1);
    repo.commit();
    repo.write(&with_member_id(false));
    let g = gate(repo.path(), "schemas", "HEAD", true).unwrap();
    assert!(g.passes());
    let Gate::Allowed(text) = g else {
        panic!("{g:?}")
    };
    assert!(text.contains("K5006"), "{text}");
}

#[test]
fn a_new_version_with_the_new_field_passes() {
    let repo = Repo::new("compatible");
    repo.write(V0_1);
    repo.commit();
    repo.write(&with_member_id(true));
    let g = gate(repo.path(), "schemas", "HEAD", false).unwrap();
    assert!(g.passes(), "{g:?}");
    let Gate::Passed(line) = g else {
        panic!("{g:?}")
    };
    assert!(line.contains("wire-compatible with HEAD"), "{line}");
}

#[test]
fn an_older_baseline_is_compared_too() {
    let repo = Repo::new("baseline");
    repo.write(V0_1);
    repo.commit();
    repo.write(&with_member_id(false));
    repo.commit();
    // Against HEAD (which has the edit) nothing changed; against HEAD~1 the edit is breaking.
    assert!(matches!(
        gate(repo.path(), "schemas", "HEAD", false).unwrap(),
        Gate::Passed(_)
    ));
    assert!(matches!(
        gate(repo.path(), "schemas", "HEAD~1", false).unwrap(),
        Gate::Refused(_)
    ));
}

#[test]
fn no_repository_or_no_schemas_skips_with_a_line() {
    let dir = std::env::temp_dir().join(format!("kwire-gate-norepo-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    // GIT_CEILING_DIRECTORIES keeps git from finding a repository above the temp folder.
    std::env::set_var("GIT_CEILING_DIRECTORIES", std::env::temp_dir());
    let g = gate(&dir, "schemas", "HEAD", false).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let Gate::Skipped(line) = g else {
        panic!("{g:?}")
    };
    assert!(
        line.starts_with("codegen: wire-compatibility gate skipped: "),
        "{line}"
    );

    let repo = Repo::new("empty");
    std::fs::write(repo.path().join("README"), "x").unwrap();
    repo.commit();
    repo.write(V0_1);
    let Gate::Skipped(line) = gate(repo.path(), "schemas", "HEAD", false).unwrap() else {
        panic!("HEAD without schemas/ must skip")
    };
    assert_eq!(
        line,
        "codegen: wire-compatibility gate skipped: HEAD has no schemas/*.json"
    );
}

#[test]
fn a_mistyped_baseline_is_an_error() {
    let repo = Repo::new("typo");
    repo.write(V0_1);
    repo.commit();
    let e = gate(repo.path(), "schemas", "no-such-rev", false).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("--baseline no-such-rev: no such commit"),
        "{e}"
    );
}

//! This workspace keeps the rules of its ARCHITECTURE.md: no import cycles, no upward edges, no
//! broken sibling or facade rules, no production function or file over its folder's limit (see
//! `xtask::arch` for how this is decided, and ARCHITECTURE.md for the rules).

#[test]
fn the_workspace_keeps_architecture_md() {
    let report = xtask::arch::check(&xtask::codegen::root()).expect("reading the workspace");
    assert!(
        report.packages >= 8 && report.modules > 200,
        "read only {} packages and {} modules: are the manifests right?",
        report.packages,
        report.modules
    );
    let violations: Vec<&str> = report.violations().map(String::as_str).collect();
    assert!(
        report.is_clean(),
        "ARCHITECTURE.md's rules are broken (`cargo xtask arch` prints the same):\n{}\n{}",
        violations.join("\n"),
        report.summary()
    );
}

//! No two modules of `codegen/src` or `protocol/src` import each other, and the coordinator's
//! group types do not reach up to the facade (see `xtask::modgraph` for how this is decided).

#[test]
fn no_module_pairs_import_each_other() {
    let report = xtask::modgraph::check(&xtask::codegen::root()).expect("reading the sources");
    assert!(
        report.modules > 50,
        "read only {} modules: is the crate root right?",
        report.modules
    );
    assert!(
        report.is_clean(),
        "modules that import each other (move the shared item to a leaf module or to its owner):\n{}",
        report.pairs.iter().chain(&report.facade).cloned().collect::<Vec<_>>().join("\n")
    );
}

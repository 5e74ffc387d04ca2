//! Scratch crates: the small crates `corpus`, `build-time` and `build-cost` write and build
//! outside the workspace.

use std::path::Path;

/// The cargo that runs the task (`$CARGO`), else `cargo` from `PATH`.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The `Cargo.toml` of a scratch crate `name`: a package that is a workspace of its own (so the
/// enclosing workspace does not claim it), with `targets` (`[lib]`/`[[bin]]` sections, or empty)
/// and `dependencies` (TOML lines, each ending in a newline).
pub fn manifest(name: &str, targets: &str, dependencies: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         {targets}[dependencies]\n{dependencies}\n[workspace]\n"
    )
}

/// The dependency line on the workspace's `kwire-protocol` (under `root`), without its default
/// features, with `features`.
pub fn kwire_protocol_dependency(root: &Path, features: &[&str]) -> String {
    let features = if features.is_empty() {
        String::new()
    } else {
        format!(", features = {features:?}")
    };
    format!(
        "kwire-protocol = {{ path = {:?}, default-features = false{features} }}\n",
        root.join("protocol").display().to_string()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_are_standalone_packages() {
        let root = Path::new("/w");
        assert_eq!(
            manifest("kwire-user", "", &kwire_protocol_dependency(root, &["view"])),
            "[package]\nname = \"kwire-user\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nkwire-protocol = { path = \"/w/protocol\", default-features = false, features = [\"view\"] }\n\n\
             [workspace]\n"
        );
        assert_eq!(
            kwire_protocol_dependency(root, &[]),
            "kwire-protocol = { path = \"/w/protocol\", default-features = false }\n"
        );
    }
}

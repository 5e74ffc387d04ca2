//! `kwire diff`: what changed between two sets of specs, and whether the bytes of a version
//! already on the wire changed.
//!
//! Specs are matched by message `name`. For every version valid on both sides, the wire layout
//! ([`layout::message_at`]: the ordered non-tagged fields with type, nullability and compact
//! encoding, nested structs resolved, the tagged fields by tag, flexibility, header version) is
//! compared ([`rules`]); so are the attributes that do not reach the bytes (`about`, `mapKey`,
//! `entityType`, …). Every finding has a stable code:
//!
//! | code | impact | what |
//! |------|--------|------|
//! | K5001 | breaking | message removed |
//! | K5002 | breaking | versions removed (e.g. KIP-896) |
//! | K5003 | breaking | api key changed |
//! | K5004 | breaking | message type changed (`request`, `response`, …) |
//! | K5005 | breaking | `flexibleVersions` moved over an existing version |
//! | K5006 | breaking | non-tagged field added to an existing version |
//! | K5007 | breaking | non-tagged field removed from an existing version |
//! | K5008 | breaking | type changed at an existing version |
//! | K5009 | breaking | fields reordered |
//! | K5010 | breaking | nullability changed at an existing version |
//! | K5011 | breaking | tag number reused, or a field's tag changed |
//! | K5012 | breaking | tagged field's default changed at an existing version |
//! | K5013 | breaking | tagged field removed from an existing version |
//! | K5014 | breaking | header version changed at an existing version (`headerVersions`) |
//! | K5015 | breaking | field moved between tagged and non-tagged at an existing version |
//! | K5016 | breaking | a field's own `flexibleVersions` changed over an existing version |
//! | K5101 | compatible | message added |
//! | K5102 | compatible | versions added |
//! | K5103 | compatible | `TBD` api key became a number |
//! | K5104 | compatible | field added in new versions only |
//! | K5105 | compatible | tagged field added |
//! | K5106 | compatible | field renamed (same slot, same type) |
//! | K5107 | compatible | `about` changed |
//! | K5108 | compatible | flag changed that does not touch the bytes |
//! | K5109 | compatible | a field's versions extended to new versions only |
//! | K5110 | compatible | a `data` spec without `apiKey` became a `coordinator-key` or `coordinator-value` (Kafka 4.x) |
//!
//! K5110 is compatible because the record type, the new `apiKey`, is not part of the struct's
//! bytes: Kafka's coordinator records (and kwire-server's log) carry it beside the key struct, and
//! a coordinator key or value is encoded exactly as the `data` spec with the same fields was (a
//! field changed with it is still compared, and reported, as any other). The reverse, a
//! coordinator record that becomes `data`, loses its record type: K5004, as any other type
//! change; so does a record type that changes (K5003).

mod finding;
pub mod layout;
mod render;
pub mod rules;

use crate::source::Checked;
use std::collections::BTreeMap;

use finding::Located;
pub use finding::{kind_of, Finding, Impact, Side};
pub use render::{render_human, to_json};

/// The specs of a checked set by message name, each with its file's path.
fn by_name(c: &Checked) -> BTreeMap<&str, Located<'_>> {
    let mut out = BTreeMap::new();
    for spec in &c.specs {
        let file = c
            .files
            .iter()
            .find(|f| f.file_name() == spec.file)
            .map(|f| f.path.display().to_string())
            .unwrap_or_else(|| spec.file.clone());
        out.insert(spec.name.as_str(), Located { spec, file });
    }
    out
}

/// Compares two checked sets: specs matched by message `name` (so a single file pair too, if
/// both name the same message; two single files with different names are compared with each
/// other). Only specs without errors take part (see [`Checked::specs`]).
///
/// Returns the findings sorted by message, code, path and versions; a finding that holds for
/// several versions is one finding listing them all.
pub fn diff(old: &Checked, new: &Checked) -> Vec<Finding> {
    let (o, n) = (by_name(old), by_name(new));
    let mut c = rules::Collector::default();
    if o.len() == 1 && n.len() == 1 && old.files.len() == 1 && new.files.len() == 1 {
        // Two files given: compared with each other whatever their names.
        let (a, b) = (o.values().next().unwrap(), n.values().next().unwrap());
        rules::compare_message(&mut c, a, b);
        return c.finish();
    }
    for (name, a) in &o {
        match n.get(name) {
            Some(b) => rules::compare_message(&mut c, a, b),
            None => rules::message_removed(&mut c, a),
        }
    }
    for (name, b) in &n {
        if !o.contains_key(name) {
            rules::message_added(&mut c, b);
        }
    }
    c.finish()
}

/// Whether some finding is breaking.
pub fn any_breaking(f: &[Finding]) -> bool {
    f.iter().any(|f| f.impact == Impact::Breaking)
}

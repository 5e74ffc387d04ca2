//! What `kwire diff` reports: [`Finding`]s with their [`Impact`] and where they are ([`Side`]),
//! shared by the comparison ([`super::rules`]) and the renderers ([`super::render`]).

use crate::diagnostics::Span;
use crate::ir::Spec;

/// Whether a change alters the bytes or meaning of something already on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Impact {
    /// An existing version's bytes or meaning changed, or a version or message disappeared.
    Breaking,
    /// Nothing on the wire changed for a version both sides have.
    Compatible,
}

impl Impact {
    /// `"breaking"` or `"compatible"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Impact::Breaking => "breaking",
            Impact::Compatible => "compatible",
        }
    }
    /// The impact of a code: K50xx breaking, K51xx compatible.
    pub fn of_code(code: &str) -> Impact {
        if code.starts_with("K50") {
            Impact::Breaking
        } else {
            Impact::Compatible
        }
    }
}

/// Where a finding is, in one of the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The file's path as given (as [`crate::SourceFile::path`] displays it).
    pub file: String,
    /// The byte span in that file.
    pub span: Span,
}

/// One change between the old and the new specs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable code (`"K5001"`…; table in the module docs).
    pub code: &'static str,
    /// Breaking or compatible.
    pub impact: Impact,
    /// What changed: `"removed"`, `"added"`, `"layout"`, `"type"`, `"nullability"`, `"tag"`,
    /// `"default"`, `"flexible"`, `"header"`, `"api-key"`, `"rename"`, `"doc"`, `"flag"`,
    /// `"reorder"`.
    pub kind: &'static str,
    /// The message name (`FetchRequest`).
    pub message: String,
    /// The versions affected, ascending, each listed (empty for a change to a message whose
    /// `validVersions` is `none` on both sides, such as an API Kafka removed).
    pub versions: Vec<i16>,
    /// The field path (`Topics.Partitions.PartitionIndex`), `""` for the message itself.
    pub path: String,
    /// One sentence.
    pub text: String,
    /// Where in the old file (absent for something added; for something the old side lacks, such
    /// as an added field, the place it would go: its struct's field or the message's `fields`).
    pub old: Option<Side>,
    /// Where in the new file (absent for something removed).
    pub new: Option<Side>,
}

/// The `kind` of a code.
pub fn kind_of(code: &str) -> &'static str {
    match code {
        "K5001" | "K5002" => "removed",
        "K5003" | "K5103" => "api-key",
        "K5004" | "K5008" | "K5110" => "type",
        "K5005" | "K5016" => "flexible",
        "K5006" | "K5007" | "K5015" => "layout",
        "K5009" => "reorder",
        "K5010" => "nullability",
        "K5011" | "K5013" => "tag",
        "K5012" => "default",
        "K5014" => "header",
        "K5106" => "rename",
        "K5107" => "doc",
        "K5108" => "flag",
        _ => "added",
    }
}

/// A spec and the path of its file as given.
pub(crate) struct Located<'a> {
    pub spec: &'a Spec,
    pub file: String,
}


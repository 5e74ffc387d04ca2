//! Lowering: syntax tree → [`Spec`], applying Kafka's reader leniencies and reporting every
//! problem it meets as a [`Diagnostic`] (it never stops at the first).
//!
//! Coercions accepted silently, as Kafka's Jackson reader does: a number or boolean where text is
//! expected becomes its text (`"default": -1`); a string where an integer or boolean is expected
//! is parsed (`"tag": "0"`, `"ignorable": "false"`); a float where an integer is expected is
//! truncated (reported as a warning); a single value where a list is expected is a one-element
//! list; `null` is the same as an absent key; when a key repeats, the last one wins.
//!
//! | code | meaning |
//! |---|---|
//! | K2001 | a required key is missing (`name`, `type`, `validVersions`, `flexibleVersions`, field `versions`); a removed-API stub (`"validVersions": "none"`, literally) needs no `flexibleVersions` |
//! | K2002 | unknown key |
//! | K2003 | a value of the wrong kind (e.g. an object where a string is expected) |
//! | K2004 | invalid version range |
//! | K2005 | unknown `type` value (the types are `request`, `response`, `header`, `data`, `metadata`, and Kafka 4.x's `coordinator-key` and `coordinator-value`) |
//! | K2006 | a bare word other than `TBD`, or `TBD` anywhere but `apiKey` |
//! | K2007 | unknown field type |
//! | K2008 | a number out of range or not a number (`apiKey`, `tag`) |
//! | K2009 | a boolean that is neither `true` nor `false` |
//! | K2010 | invalid `default` for the field's type |
//! | K2011 | unknown `listeners` value |
//! | K2012 | unknown `entityType` |
//! | K2013 | invalid `headerVersions` |
//! | K2014 | a float where an integer is expected (warning; truncated as Kafka does) |
//! | K2015 | a key given twice (warning; the last one wins, as in Kafka) |
//! | K2016 | `apiKey` is `TBD` (warning; the message is left out of API-key dispatch) |
//! | K2101 | flexibleVersions neither `none` nor open-ended (rule 4) |
//! | K2102 | `listeners` on a message that is not a request (rule 5) |
//! | K2103 | `latestVersionUnstable: true` on a message that is not a request (rule 6) |
//! | K2104 | validVersions without a maximum, e.g. `0+` (rule 7) |
//! | K2105 | invalid field name (rule 9) |
//! | K2106 | an array of arrays (rule 12) |
//! | K2107 | nullableVersions on a type that cannot be null (rule 13) |
//! | K2108 | entityType that does not match the type (rule 14) |
//! | K2109 | `fields` on a field that is neither a struct nor an array (rule 15) |
//! | K2110 | field flexibleVersions on a type other than string or bytes (rule 16) |
//! | K2111 | field flexibleVersions not a subset of the message's (rule 17) |
//! | K2112 | zeroCopy on a type other than bytes (rule 18) |
//! | K2113 | a tagged field used as a map key (rule 19) |
//! | K2114 | a negative tag (rule 20) |
//! | K2115 | a tag without taggedVersions (rule 21) |
//! | K2116 | taggedVersions without a tag (rule 22) |
//! | K2117 | some tagged versions nullable, others not (rule 23) |
//! | K2118 | taggedVersions not open-ended (rule 24) |
//! | K2119 | taggedVersions not a subset of versions (rule 25) |
//! | K2120 | taggedVersions not a subset of the flexible versions (rule 26) |
//! | K2121 | a tagged records field (rule 27) |
//! | K2122 | an array of records (rule 28) |
//! | K2123 | empty validVersions (e.g. `3-1`, which Kafka rejects later as "no versions in common"); the literal `none` is not an error: it marks a removed-API stub with no versions |
//! | K2124 | a `coordinator-key` or `coordinator-value` without a numeric `apiKey`, its record type (Kafka 4.x `MessageSpec`) |
//! | K2125 | a `coordinator-key` whose validVersions is not `0` (Kafka 4.x `MessageSpec`) |
//! | K2126 | a `coordinator-key` with flexibleVersions other than `none` (Kafka 4.x `MessageSpec`) |
//! | K2150 | nullableVersions outside versions (warning) |
//! | K2151 | deprecatedVersions outside validVersions (warning) |
//! | K2152 | a primitive field whose versions lie outside the enclosing versions (warning) |
//! | K2153 | a field with versions `none` (warning) |
//! | K2154 | an inline or common struct with an empty `fields` list (warning) |
//! | K2155 | an octal-looking integer default such as `010` (warning) |
//! | K2156 | a bare JSON `null` default on a nullable field: Kafka reads it as no default (warning) |
//! | K3005 | a common struct name not starting with an upper-case letter (rule 33) |
//! | K3009 | an inline struct inside a common struct (rule 37) |
//!
//! Rule 1 is K2001/K2005/K2011, rules 2, 3 and 10 are K2001, rule 8 is K2002, rule 11 is K2007
//! and rule 29 is K2010. The struct and folder rules are in [`crate::validate`].

use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{ApiKeyValue, DefaultValue, Field, KeySpans, MessageKind, Spec, Struct, Type, Versions};
use crate::suggest::suggest;
use crate::syntax::{Member, Value, ValueKind};

const TOP_KEYS: &[&str] = &[
    "apiKey",
    "type",
    "listeners",
    "name",
    "validVersions",
    "deprecatedVersions",
    "flexibleVersions",
    "latestVersionUnstable",
    "headerVersions",
    "fields",
    "commonStructs",
];
const FIELD_KEYS: &[&str] = &[
    "name",
    "type",
    "versions",
    "nullableVersions",
    "default",
    "ignorable",
    "mapKey",
    "entityType",
    "about",
    "tag",
    "taggedVersions",
    "flexibleVersions",
    "zeroCopy",
    "fields",
];
const STRUCT_KEYS: &[&str] = &["name", "versions", "fields", "deprecatedVersions"];
const ENTITY_TYPES: &[&str] =
    &["unknown", "transactionalId", "producerId", "groupId", "topicName", "brokerId"];
const LISTENERS: &[&str] = &["zkBroker", "broker", "controller"];
const TYPES: &[&str] = &[
    "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes",
    "uuid", "records",
];

/// What lowering found: the spec (absent when the file is too broken to describe a message) and
/// the diagnostics, in the order found.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// The spec, when `name`, `type`, `validVersions` and `flexibleVersions` could be read.
    pub spec: Option<Spec>,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers the syntax tree of the file `file` (a file name used in the [`Spec`]).
pub fn lower(file: &str, root: &Value) -> Lowered {
    let mut cx = Cx { diags: Vec::new() };
    let spec = cx.spec(file, root);
    Lowered { spec, diagnostics: cx.diags }
}

struct Cx {
    diags: Vec<Diagnostic>,
}

/// A key-indexed view of an object: last occurrence wins, repeats reported.
struct Obj<'a> {
    members: Vec<&'a Member>,
    span: Span,
}

impl<'a> Obj<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.members
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
            .filter(|v| v.kind != ValueKind::Null)
    }
    fn key_span(&self, key: &str) -> Option<Span> {
        self.members.iter().rev().find(|m| m.key == key).map(|m| m.key_span)
    }
    /// The raw value of `key` (a JSON `null` included).
    fn raw(&self, key: &str) -> Option<&'a Value> {
        self.members.iter().rev().find(|m| m.key == key).map(|m| &m.value)
    }
    fn spans(&self) -> KeySpans {
        KeySpans(self.members.iter().map(|m| (m.key.clone(), m.value.span)).collect())
    }
    /// Where to point for a missing key: the opening brace.
    fn head(&self) -> Span {
        Span::new(self.span.start, self.span.start + 1)
    }
}

/// A field's `tag`: its value when it could be read, and whether the key was given at all.
#[derive(Clone, Copy)]
struct Tag {
    value: Option<i64>,
    given: bool,
}

/// Whether a value is a blank string (Kafka reads it as absent).
fn is_blank(v: &Value) -> bool {
    matches!(&v.kind, ValueKind::String(s) if s.trim().is_empty())
}

/// Where a field sits, for the rules that depend on it.
#[derive(Clone, Copy)]
struct FieldCx {
    /// The versions of the enclosing struct (the message's for top-level fields).
    parent: Versions,
    /// The message's flexibleVersions (when it could be read).
    msg_flexible: Option<Versions>,
    /// Inside a common struct (rule 37: inline structs are not allowed there).
    in_common: bool,
    /// The fields of an inline or common struct, not of the message itself.
    nested: bool,
}

impl Cx {
    fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, span, msg));
        self.diags.last_mut().expect("just pushed")
    }
    fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::warning(code, span, msg));
        self.diags.last_mut().expect("just pushed")
    }

    fn object<'a>(&mut self, v: &'a Value, what: &str, allowed: &[&str]) -> Option<Obj<'a>> {
        let ValueKind::Object(members) = &v.kind else {
            self.err("K2003", v.span, format!("expected {what} to be an object, found {}", v.kind_name()))
                .help = Some("write it as `{ \"key\": value, ... }`".into());
            return None;
        };
        let mut seen: Vec<&str> = Vec::new();
        for m in members {
            if !allowed.contains(&m.key.as_str()) {
                let d = self.err("K2002", m.key_span, format!("unknown key `{}` in {what}", m.key));
                if let Some(s) = suggest(&m.key, allowed) {
                    d.help = Some(format!("did you mean `{s}`?"));
                } else {
                    d.help = Some(format!("the keys of {what} are: {}", allowed.join(", ")));
                }
            } else if seen.contains(&m.key.as_str()) {
                self.warn("K2015", m.key_span, format!("key `{}` is given more than once; the last one wins", m.key))
                    .help = Some("remove the earlier one".into());
            }
            seen.push(&m.key);
        }
        Some(Obj { members: members.iter().collect(), span: v.span })
    }

    fn text(&mut self, v: &Value, key: &str) -> Option<String> {
        match &v.kind {
            ValueKind::String(s) => Some(s.clone()),
            ValueKind::Number(n) => Some(n.clone()),
            ValueKind::Bool(b) => Some(b.to_string()),
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                None
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be a string, found {}", v.kind_name()))
                    .help = Some(format!("write `{key}` as a string in double quotes"));
                None
            }
        }
    }

    fn bare_word(&mut self, v: &Value, w: &str, key: &str) {
        let d = self.err("K2006", v.span, format!("bare word `{w}` is not a JSON value"));
        d.help = Some(if w == "TBD" {
            format!("`TBD` is only allowed as the value of `apiKey`; quote it for `{key}`")
        } else {
            format!("quote it: \"{w}\"")
        });
    }

    fn int(&mut self, v: &Value, key: &str, min: i64, max: i64) -> Option<i64> {
        let n = match &v.kind {
            ValueKind::Number(t) => {
                if let Ok(n) = t.parse::<i64>() {
                    Some(n)
                } else if let Ok(f) = t.parse::<f64>() {
                    self.warn("K2014", v.span, format!("`{key}` should be an integer; Kafka truncates `{t}` to {}", f.trunc()))
                        .help = Some(format!("write {}", f.trunc()));
                    Some(f.trunc() as i64)
                } else {
                    None
                }
            }
            ValueKind::String(s) => s.trim().strip_prefix('+').unwrap_or(s.trim()).parse::<i64>().ok(),
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                return None;
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be an integer, found {}", v.kind_name()))
                    .help = Some(format!("write `{key}` as a number, e.g. `0`"));
                return None;
            }
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(n) => {
                self.err("K2008", v.span, format!("`{key}` is {n}, outside {min}..={max}"))
                    .help = Some(format!("`{key}` must lie in {min}..={max}"));
                None
            }
            None => {
                self.err("K2008", v.span, format!("`{key}` is not an integer"))
                    .help = Some(format!("write `{key}` as a whole number"));
                None
            }
        }
    }

    fn bool(&mut self, v: &Value, key: &str) -> Option<bool> {
        match &v.kind {
            ValueKind::Bool(b) => Some(*b),
            ValueKind::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
            ValueKind::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
            ValueKind::String(s) => {
                self.err("K2009", v.span, format!("`{key}` must be true or false, not \"{s}\""))
                    .help = Some("write `true` or `false`".into());
                None
            }
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                None
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be a boolean, found {}", v.kind_name()))
                    .help = Some("write `true` or `false`".into());
                None
            }
        }
    }

    /// A version range; a blank string counts as absent (`None`, no diagnostic), as in Kafka.
    fn versions(&mut self, v: &Value, key: &str) -> Option<Versions> {
        let t = self.text(v, key)?;
        if t.trim().is_empty() {
            return None;
        }
        match Versions::parse(&t) {
            Ok(r) => Some(r),
            Err(e) => {
                let help = if t.contains(' ') {
                    "versions are written `N`, `N+`, `N-M` or `none`, without inner spaces"
                } else {
                    "versions are written `N`, `N+`, `N-M` or `none`"
                };
                self.err("K2004", v.span, format!("{e} in `{key}`")).help = Some(help.into());
                None
            }
        }
    }

    /// A list value, accepting a single value as a one-element list.
    fn list<'a>(&self, v: &'a Value) -> Vec<&'a Value> {
        match &v.kind {
            ValueKind::Array(items) => items.iter().collect(),
            _ => vec![v],
        }
    }

    fn spec(&mut self, file: &str, root: &Value) -> Option<Spec> {
        let obj = self.object(root, "the message", TOP_KEYS)?;
        let name = match obj.get("name") {
            Some(v) => self.text(v, "name"),
            None => {
                self.err("K2001", obj.head(), "the message has no `name`")
                    .help = Some("add `\"name\": \"FooRequest\"`".into());
                None
            }
        };
        let kind = self.message_kind(&obj);
        let api_key = match obj.get("apiKey") {
            None => ApiKeyValue::Absent,
            Some(v) => match &v.kind {
                ValueKind::Word(w) if w == "TBD" => {
                    self.warn("K2016", v.span, "`apiKey` is TBD: the message gets types and codecs but no place in API-key dispatch")
                        .help = Some("assign a key before the KIP is implemented".into());
                    ApiKeyValue::Tbd
                }
                _ => match self.int(v, "apiKey", i16::MIN as i64, i16::MAX as i64) {
                    Some(k) => ApiKeyValue::Assigned(k as i16),
                    None => ApiKeyValue::Absent,
                },
            },
        };
        // A removed-API stub (Kafka 4.0 keeps e.g. `ControlledShutdownRequest.json` with
        // `"validVersions": "none"`): only the literal `none` marks one, as in Kafka's `MessageSpec`,
        // which then requires neither `flexibleVersions` nor `fields`. An empty range such as `3-1`
        // stays an error (K2123).
        let stub = obj.get("validVersions").is_some_and(|v| matches!(&v.kind, ValueKind::String(s) if s.trim() == "none"));
        let valid = match obj.get("validVersions").filter(|v| !is_blank(v)) {
            Some(v) => self.versions(v, "validVersions"),
            None => {
                self.err("K2001", obj.head(), format!("the message {} has no `validVersions`", name.as_deref().unwrap_or("")))
                    .help = Some("add `\"validVersions\": \"0\"`".into());
                None
            }
        };
        if let (Some(v), Some(span)) = (valid, obj.get("validVersions").map(|x| x.span)) {
            // Rule 7: a finite maximum.
            if !v.is_empty() && v.highest == i16::MAX {
                self.err("K2104", span, format!("validVersions `{v}` does not specify a maximum version"))
                    .help = Some(format!("give the highest version the message has, e.g. `\"{}-N\"`", v.lowest));
            }
            if v.is_empty() && !stub {
                self.err("K2123", span, "validVersions is empty: the message has no version")
                    .help = Some("write `N`, `N-M` with N <= M".into());
            }
        }
        let flexible = match obj.get("flexibleVersions").filter(|v| !is_blank(v)) {
            Some(v) => self.versions(v, "flexibleVersions"),
            None if stub => Some(Versions::NONE),
            None => {
                self.err("K2001", obj.head(), "the message has no `flexibleVersions`")
                    .help = Some("add `\"flexibleVersions\": \"none\"` or `\"0+\"`".into());
                None
            }
        };
        if let (Some(f), Some(span)) = (flexible, obj.get("flexibleVersions").map(|x| x.span)) {
            // Rule 4: none or open-ended.
            if !f.is_open_ended() {
                self.err("K2101", span, format!("flexibleVersions `{f}` is not open-ended"))
                    .help = Some(format!("once a version is flexible, every later one is: write `\"{}+\"`", f.lowest));
            }
        }
        let deprecated = obj.get("deprecatedVersions").and_then(|v| self.versions(v, "deprecatedVersions"));
        if let (Some(d), Some(v), Some(span)) = (deprecated, valid, obj.get("deprecatedVersions").map(|x| x.span)) {
            if !d.is_subset_of(&v) {
                self.warn("K2151", span, format!("deprecatedVersions `{d}` lie outside validVersions `{v}`"))
                    .help = Some("deprecate only versions the message has".into());
            }
        }
        if let (Some(k), Some(v)) = (kind, valid) {
            if k.is_coordinator_record() && !v.is_empty() {
                self.coordinator_rules(&obj, k, api_key, v, flexible);
            }
        }
        let mut listeners = Vec::new();
        if let Some(v) = obj.get("listeners") {
            for item in self.list(v) {
                if let Some(t) = self.text(item, "listeners") {
                    if LISTENERS.contains(&t.as_str()) {
                        listeners.push(t);
                    } else {
                        let d = self.err("K2011", item.span, format!("unknown listener `{t}`"));
                        d.help = Some(match suggest(&t, LISTENERS) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "the listeners are zkBroker, broker and controller".into(),
                        });
                    }
                }
            }
            // Rule 5.
            if !listeners.is_empty() && kind.is_some_and(|k| k != MessageKind::Request) {
                self.err("K2102", v.span, "`listeners` is only valid on messages of type `request`")
                    .help = Some("remove `listeners`; the request of this API declares them".into());
            }
        }
        let latest_version_unstable =
            obj.get("latestVersionUnstable").and_then(|v| self.bool(v, "latestVersionUnstable")).unwrap_or(false);
        if latest_version_unstable && kind.is_some_and(|k| k != MessageKind::Request) {
            self.err("K2103", obj.get("latestVersionUnstable").map_or(obj.head(), |v| v.span), "`latestVersionUnstable` is only valid on messages of type `request`")
                .help = Some("remove it; the request of this API carries the flag".into());
        }
        let header_versions = match obj.get("headerVersions") {
            Some(v) => self.header_versions(v, valid, kind),
            None => Vec::new(),
        };
        let mut structs = Vec::new();
        let cx = FieldCx { parent: valid.unwrap_or(Versions::ALL), msg_flexible: flexible, in_common: false, nested: false };
        let fields = match obj.get("fields") {
            Some(v) => self.fields(v, &mut structs, cx),
            None => Vec::new(),
        };
        if let Some(v) = obj.get("commonStructs") {
            for item in self.list(v) {
                if let Some(s) = self.common_struct(item, &mut structs, flexible) {
                    structs.push(s);
                }
            }
        }
        Some(Spec {
            file: file.to_string(),
            name: name?,
            kind: kind?,
            api_key,
            valid: valid?,
            flexible: flexible?,
            deprecated: deprecated.unwrap_or(Versions::NONE),
            listeners,
            latest_version_unstable,
            header_versions,
            fields,
            structs,
            spans: obj.spans(),
            span: obj.span,
        })
    }

    /// The message's `type` (K2001 when absent, K2005 when unknown).
    fn message_kind(&mut self, obj: &Obj) -> Option<MessageKind> {
        let Some(v) = obj.get("type") else {
            self.err("K2001", obj.head(), "the message has no `type`")
                .help = Some("add `\"type\": \"request\"` (or response, header, data, metadata, coordinator-key, coordinator-value)".into());
            return None;
        };
        let t = self.text(v, "type")?;
        if let Some(k) = MessageKind::from_keyword(&t) {
            return Some(k);
        }
        let keywords: Vec<&str> = MessageKind::ALL.iter().map(|k| k.as_str()).collect();
        let d = self.err("K2005", v.span, format!("unknown message type `{t}`"));
        d.help = Some(match suggest(&t, &keywords) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the types are {}", keywords.join(", ")),
        });
        None
    }

    /// What Kafka 4.x's `MessageSpec` requires of a coordinator record with versions: an
    /// `apiKey` (the record type) on the key and the value (K2124); the key at version `0` only
    /// (K2125) and never flexible (K2126).
    fn coordinator_rules(&mut self, obj: &Obj, kind: MessageKind, api_key: ApiKeyValue, valid: Versions, flexible: Option<Versions>) {
        let what = kind.as_str();
        match (api_key, obj.get("apiKey")) {
            (ApiKeyValue::Assigned(_), _) => {}
            (_, Some(v)) => {
                self.err("K2124", v.span, format!("a `{what}` needs a number as `apiKey`: it is the record type"))
                    .help = Some("give the record type, the same number on the record's key and value".into());
            }
            (_, None) => {
                self.err("K2124", obj.head(), format!("a `{what}` has no `apiKey`: it is the record type"))
                    .help = Some("add `\"apiKey\": N`, the record type, the same number on the record's key and value".into());
            }
        }
        if kind != MessageKind::CoordinatorKey {
            return;
        }
        if valid != Versions::new(0, 0) {
            self.err("K2125", obj.get("validVersions").map_or(obj.head(), |v| v.span), format!("a `coordinator-key` has version 0 only, not `{valid}`"))
                .help = Some("write `\"validVersions\": \"0\"`: the key's bytes never change; version the value instead".into());
        }
        if let Some(f) = flexible.filter(|f| !f.is_empty()) {
            self.err("K2126", obj.get("flexibleVersions").map_or(obj.head(), |v| v.span), format!("a `coordinator-key` cannot be flexible (flexibleVersions `{f}`)"))
                .help = Some("write `\"flexibleVersions\": \"none\"`".into());
        }
    }

    fn header_versions(&mut self, v: &Value, valid: Option<Versions>, kind: Option<MessageKind>) -> Vec<(Versions, i16)> {
        let ValueKind::Object(members) = &v.kind else {
            self.err("K2013", v.span, format!("`headerVersions` must be an object, found {}", v.kind_name()))
                .help = Some("e.g. `\"headerVersions\": { \"0+\": \"2\" }`".into());
            return Vec::new();
        };
        let max = match kind {
            Some(MessageKind::Response) => 1,
            _ => 2,
        };
        let mut out: Vec<(Versions, i16)> = Vec::new();
        for m in members {
            let r = match Versions::parse(&m.key) {
                Ok(r) => r,
                Err(e) => {
                    self.err("K2013", m.key_span, format!("{e} in `headerVersions`"))
                        .help = Some("keys of `headerVersions` are version ranges: `N`, `N+`, `N-M`".into());
                    continue;
                }
            };
            if let Some(valid) = valid {
                let inside = r.is_empty()
                    || (valid.contains(r.lowest) && (r.highest == i16::MAX || valid.contains(r.highest)));
                if !inside {
                    self.err("K2013", m.key_span, format!("`headerVersions` range `{r}` lies outside validVersions `{valid}`"))
                        .help = Some(format!("use ranges within `{valid}`"));
                }
            }
            if let Some((o, _)) = out.iter().find(|(o, _)| !o.intersect(&r).is_empty()) {
                self.err("K2013", m.key_span, format!("`headerVersions` range `{r}` overlaps `{o}`"))
                    .help = Some("give each version one header version".into());
                continue;
            }
            let h = match &m.value.kind {
                ValueKind::Number(t) | ValueKind::String(t) => t.trim().parse::<i16>().ok(),
                _ => None,
            };
            match h {
                Some(h) if (0..=max).contains(&h) => out.push((r, h)),
                _ => {
                    self.err("K2013", m.value.span, format!("`headerVersions` value for `{r}` must be a header version 0..={max}"))
                        .help = Some(format!("{} header versions are 0 to {max}", if max == 1 { "response" } else { "request" }));
                }
            }
        }
        out
    }

    fn fields(&mut self, v: &Value, structs: &mut Vec<Struct>, cx: FieldCx) -> Vec<Field> {
        let items = self.list(v);
        if items.is_empty() && cx.nested {
            self.warn("K2154", v.span, "`fields` is empty: the struct has no fields")
                .help = Some("declare the struct's fields, or use a primitive type".into());
        }
        items.into_iter().filter_map(|f| self.field(f, structs, cx)).collect()
    }

    fn common_struct(&mut self, v: &Value, structs: &mut Vec<Struct>, msg_flexible: Option<Versions>) -> Option<Struct> {
        let obj = self.object(v, "a common struct", STRUCT_KEYS)?;
        let name = match obj.get("name") {
            Some(n) => self.text(n, "name"),
            None => {
                self.err("K2001", obj.head(), "the common struct has no `name`");
                None
            }
        };
        let name_span = obj.get("name").map_or(obj.head(), |n| n.span);
        if let Some(n) = &name {
            // Rule 33.
            if !n.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                let mut fixed = n.clone();
                if let Some(c) = fixed.get_mut(0..1) {
                    c.make_ascii_uppercase();
                }
                self.err("K3005", name_span, format!("common struct `{n}`: the first letter of structure names must be capitalized"))
                    .help = Some(format!("rename it `{fixed}`"));
            }
        }
        let versions = match obj.get("versions") {
            Some(n) => self.versions(n, "versions"),
            None => {
                self.err("K2001", obj.head(), format!("the common struct `{}` has no `versions`", name.as_deref().unwrap_or("?")))
                    .help = Some("add `\"versions\": \"0+\"`".into());
                None
            }
        };
        if let Some(d) = obj.get("deprecatedVersions") {
            self.versions(d, "deprecatedVersions");
        }
        let cx = FieldCx { parent: versions.unwrap_or(Versions::ALL), msg_flexible, in_common: true, nested: true };
        let fields = match obj.get("fields") {
            Some(f) => self.fields(f, structs, cx),
            None => Vec::new(),
        };
        Some(Struct { name: name?, fields, versions: versions?, common: true, span: obj.span, name_span })
    }

    fn field(&mut self, v: &Value, structs: &mut Vec<Struct>, cx: FieldCx) -> Option<Field> {
        let obj = self.object(v, "a field", FIELD_KEYS)?;
        let sp = |key: &str| obj.get(key).map_or(obj.head(), |x| x.span);
        let name = match obj.get("name") {
            Some(n) => self.text(n, "name"),
            None => {
                self.err("K2001", obj.head(), "the field has no `name`");
                None
            }
        };
        let label = name.clone().unwrap_or_else(|| "?".into());
        if let Some(n) = &name {
            // Rule 9.
            let ok = n.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && n.chars().all(|c| c.is_ascii_alphanumeric());
            if !ok {
                let fixed: String = n.chars().filter(|c| c.is_ascii_alphanumeric()).skip_while(|c| !c.is_ascii_alphabetic()).collect();
                let d = self.err("K2105", sp("name"), format!("invalid field name `{n}`: names are a letter followed by letters and digits"));
                if !fixed.is_empty() {
                    d.help = Some(format!("did you mean `{fixed}`?"));
                }
            }
        }
        let ty = match obj.get("type") {
            Some(t) => {
                let text = self.text(t, "type");
                text.and_then(|text| match Type::parse(&text) {
                    Ok(ty) => Some(ty),
                    Err(e) => {
                        let trimmed = text.trim();
                        let (prefix, base) = match trimmed.strip_prefix("[]") {
                            Some(b) => ("[]", b.trim_start_matches("[]")),
                            None => ("", trimmed),
                        };
                        let code = if trimmed.starts_with("[][]") { "K2106" } else { "K2007" };
                        let d = self.err(code, t.span, format!("field `{label}`: {e}"));
                        d.help = if code == "K2106" {
                            Some("wrap the inner array in a struct: `[]Name` with a field of type `[]T`".into())
                        } else if let Some((a, b)) = split_types(base) {
                            Some(format!("`{base}` is two types run together: did you mean `{prefix}{a}` or `{prefix}{b}`?"))
                        } else if let Some(s) = suggest_type(base) {
                            Some(format!("did you mean `{prefix}{s}`?"))
                        } else {
                            Some("the types are bool, int8, int16, uint16, int32, uint32, int64, float64, string, bytes, uuid, records, `[]T`, and struct names starting with an upper-case letter".into())
                        };
                        None
                    }
                })
            }
            None => {
                self.err("K2001", obj.head(), format!("field `{label}` has no `type`"));
                None
            }
        };
        let tagged = obj.get("taggedVersions").and_then(|t| self.versions(t, "taggedVersions"));
        // Rule 10: `versions`, else a non-empty `taggedVersions` (a blank string counts as absent).
        let versions = match obj.get("versions").filter(|x| !is_blank(x)) {
            Some(x) => self.versions(x, "versions"),
            None => match tagged.filter(|t| !t.is_empty()) {
                Some(t) => Some(t),
                None => {
                    self.err("K2001", obj.key_span("name").unwrap_or(obj.head()), format!("field `{label}` has no `versions`"))
                        .help = Some("add `\"versions\": \"0+\"`".into());
                    None
                }
            },
        };
        if versions.is_some_and(|v| v.is_empty()) && obj.get("versions").is_some() {
            self.warn("K2153", sp("versions"), format!("field `{label}` has versions `none`: it is never on the wire"))
                .help = Some("remove the field, or give the versions it exists in".into());
        }
        let nullable = obj.get("nullableVersions").and_then(|x| self.versions(x, "nullableVersions")).unwrap_or(Versions::NONE);
        let tag = match obj.get("tag") {
            Some(t) => self.int(t, "tag", i32::MIN as i64, i32::MAX as i64),
            None => None,
        };
        let ignorable = obj.get("ignorable").and_then(|x| self.bool(x, "ignorable")).unwrap_or(false);
        let map_key = obj.get("mapKey").and_then(|x| self.bool(x, "mapKey")).unwrap_or(false);
        let zero_copy = obj.get("zeroCopy").and_then(|x| self.bool(x, "zeroCopy")).unwrap_or(false);
        let entity_type = match obj.get("entityType") {
            Some(e) => match self.text(e, "entityType") {
                Some(t) if ENTITY_TYPES.contains(&t.as_str()) => t,
                Some(t) => {
                    let d = self.err("K2012", e.span, format!("unknown entity type `{t}`"));
                    d.help = Some(match suggest(&t, ENTITY_TYPES) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("the entity types are: {}", ENTITY_TYPES.join(", ")),
                    });
                    "unknown".into()
                }
                None => "unknown".into(),
            },
            None => "unknown".into(),
        };
        let about = obj.get("about").and_then(|x| self.text(x, "about")).unwrap_or_default();
        let flexible_override = obj.get("flexibleVersions").and_then(|x| self.versions(x, "flexibleVersions"));

        if let (Some(ty), Some(versions)) = (&ty, versions) {
            let tag = Tag { value: tag, given: obj.get("tag").is_some() };
            self.field_rules(&obj, &label, ty, versions, nullable, tag, tagged, map_key, zero_copy, &entity_type, flexible_override, cx);
        }

        let field_versions = versions.unwrap_or(Versions::NONE).intersect(&cx.parent);
        if let Some(inner) = obj.get("fields") {
            match ty.as_ref().and_then(|t| t.struct_name()) {
                Some(sname) => {
                    if cx.in_common {
                        // Rule 37: Kafka never registers it, and fails to find it.
                        self.err("K3009", sp("type"), format!("inline struct `{sname}` inside a common struct: Kafka cannot locate a specification for it"))
                            .help = Some(format!("move `{sname}` to `commonStructs` and refer to it by name"));
                    }
                    let inner_cx = FieldCx { parent: field_versions, nested: true, ..cx };
                    let inner_fields = self.fields(inner, structs, inner_cx);
                    structs.push(Struct {
                        name: sname.to_string(),
                        fields: inner_fields,
                        versions: field_versions,
                        common: false,
                        span: obj.span,
                        name_span: sp("type"),
                    });
                }
                None if matches!(&ty, Some(Type::Array(_))) => {
                    // Accepted by Kafka (rule 15 exempts arrays of primitives); the fields are unused.
                }
                None => {
                    if let Some(t) = &ty {
                        self.err("K2109", obj.key_span("fields").unwrap_or(inner.span), format!("field `{label}` of type {t} cannot have `fields`"))
                            .help = Some("only struct and array-of-struct fields have inline fields; give the type an upper-case struct name".into());
                    }
                }
            }
        }
        let ty = ty?;
        let default = match obj.raw("default") {
            None => DefaultValue::Implicit,
            Some(d) if d.kind == ValueKind::Null => {
                if !nullable.is_empty() && ty.can_be_nullable() {
                    self.warn("K2156", d.span, format!("bare `null` default on nullable field `{label}`: Kafka reads it as no default, so the default is {}", implicit_desc(&ty)))
                        .help = Some("write `\"null\"` (with quotes) for a null default, or remove `default`".to_string());
                }
                DefaultValue::Implicit
            }
            Some(d) => {
                let text = self.text(d, "default")?;
                let all_nullable = versions.is_some_and(|v| v.is_subset_of(&nullable));
                if looks_octal(&text) && ty.is_fixed() && ty != Type::Float64 && ty != Type::Bool && ty != Type::Uuid {
                    self.warn("K2155", d.span, format!("default `{text}` of field `{label}` looks octal: Kafka validates it as decimal but emits it into Java, where it is octal"))
                        .help = Some(format!("write `{}` without leading zeros", strip_zeros(&text)));
                }
                match resolve_default(&ty, &text, !nullable.is_empty() && ty.can_be_nullable(), all_nullable) {
                    Ok(dv) => dv,
                    Err((msg, help)) => {
                        let e = self.err("K2010", d.span, format!("invalid default for {ty} field `{label}`: {msg}"));
                        e.help = help;
                        DefaultValue::Implicit
                    }
                }
            }
        };
        Some(Field {
            name: name?,
            ty,
            versions: versions?,
            nullable,
            tag: match (tag, tagged) {
                (Some(t), Some(tv)) if t >= 0 && !tv.is_empty() => Some((t as u32, tv)),
                _ => None,
            },
            default,
            ignorable,
            map_key,
            entity_type,
            zero_copy,
            flexible_override,
            about,
            span: obj.span,
            spans: obj.spans(),
        })
    }

    /// Rules 12-28 and the field warnings, on a field whose type and versions could be read.
    #[allow(clippy::too_many_arguments)]
    fn field_rules(
        &mut self,
        obj: &Obj,
        label: &str,
        ty: &Type,
        versions: Versions,
        nullable: Versions,
        tag: Tag,
        tagged: Option<Versions>,
        map_key: bool,
        zero_copy: bool,
        entity_type: &str,
        flexible_override: Option<Versions>,
        cx: FieldCx,
    ) {
        let sp = |key: &str| obj.get(key).map_or(obj.head(), |x| x.span);
        // Rule 13.
        if !nullable.is_empty() && !ty.can_be_nullable() {
            self.err("K2107", sp("nullableVersions"), format!("field `{label}`: type {ty} cannot be nullable"))
                .help = Some(if *ty == Type::Uuid {
                    "uuid fields cannot be null; use the zero UUID (AAAAAAAAAAAAAAAAAAAAAA) for \"none\"".to_string()
                } else {
                    "remove `nullableVersions`; only string, bytes, records, arrays and structs can be null".to_string()
                });
        } else if !nullable.is_empty() && !nullable.is_subset_of(&versions) {
            self.warn("K2150", sp("nullableVersions"), format!("field `{label}`: nullableVersions `{nullable}` lie outside versions `{versions}`"))
                .help = Some(format!("nullable versions only matter where the field exists: `{}`", nullable.intersect(&versions)));
        }
        // Rule 14.
        let base = match ty {
            Type::Array(e) => &**e,
            t => t,
        };
        let expected = match entity_type {
            "transactionalId" | "groupId" | "topicName" => Some(Type::String),
            "producerId" => Some(Type::Int64),
            "brokerId" => Some(Type::Int32),
            _ => None,
        };
        if let Some(e) = expected {
            if *base != e {
                self.err("K2108", sp("entityType"), format!("field `{label}` has entity type {entity_type}, but field type {ty}"))
                    .help = Some(format!("{entity_type} fields are {e} (or arrays of {e})"));
            }
        }
        // Rule 16 / 17.
        if let Some(o) = flexible_override {
            if !matches!(ty, Type::String | Type::Bytes) {
                self.err("K2110", sp("flexibleVersions"), format!("field `{label}`: invalid flexibleVersions override on a field of type {ty}"))
                    .help = Some("a field-level flexibleVersions only changes how string and bytes lengths are written; remove it".into());
            } else if let Some(mf) = cx.msg_flexible {
                if !o.is_subset_of(&mf) {
                    self.err("K2111", sp("flexibleVersions"), format!("field `{label}`: flexibleVersions `{o}` are not a subset of the message's flexible versions `{mf}`"))
                        .help = Some(format!("use `none` or a range within `{mf}`"));
                }
            }
        }
        // Rule 18.
        if zero_copy && *ty != Type::Bytes {
            self.err("K2112", sp("zeroCopy"), format!("field `{label}`: only fields of type bytes can use zeroCopy"))
                .help = Some("remove `zeroCopy`".into());
        }
        // Rules 19-26. A `tag` that could not be read was reported already (K2008); it still
        // counts as given, so that its taggedVersions are not reported as tagless.
        let tagged = tagged.filter(|t| !t.is_empty());
        if tag.given && map_key {
            self.err("K2113", sp("tag"), format!("field `{label}`: tagged fields cannot be used as keys"))
                .help = Some("remove `mapKey` or make the field untagged".into());
        }
        if let Some(t) = tag.value.filter(|t| *t < 0) {
            self.err("K2114", sp("tag"), format!("field `{label}`: tags cannot be negative ({t})"))
                .help = Some("tags count up from 0 in each struct".into());
        }
        if tag.given && tagged.is_none() {
            self.err("K2115", sp("tag"), format!("field `{label}` has a tag but no taggedVersions"))
                .help = Some(format!("add `\"taggedVersions\": \"{}+\"`", cx.msg_flexible.filter(|f| !f.is_empty()).map_or(0, |f| f.lowest)));
        }
        if !tag.given && tagged.is_some() {
            self.err("K2116", sp("taggedVersions"), format!("field `{label}` has taggedVersions but no tag"))
                .help = Some("add a `tag`, or remove `taggedVersions`".into());
        }
        if let (Some(tv), Some(_)) = (tagged, tag.value) {
            let inter = tv.intersect(&nullable);
            if !inter.is_empty() && inter != tv {
                self.err("K2117", sp("nullableVersions"), format!("field `{label}`: either all tagged versions (`{tv}`) must be nullable, or none must be; nullableVersions is `{nullable}`"))
                    .help = Some(format!("make nullableVersions cover `{tv}`"));
            }
            if !tv.is_open_ended() {
                self.err("K2118", sp("taggedVersions"), format!("field `{label}`: taggedVersions must be either none, or an open-ended range, not `{tv}`"))
                    .help = Some(format!("tagged fields are permanent: write `\"{}+\"`", tv.lowest));
            }
            if !tv.is_subset_of(&versions) {
                self.err("K2119", sp("taggedVersions"), format!("field `{label}`: taggedVersions `{tv}` must be a subset of versions `{versions}`"))
                    .help = Some("a tagged field exists in every version it is tagged in; widen `versions`".into());
            }
            let effective = flexible_override.or(cx.msg_flexible);
            if let Some(fx) = effective {
                if !tv.is_subset_of(&fx) {
                    self.err("K2120", sp("taggedVersions"), format!("field `{label}` specifies tagged versions `{tv}` that are not a subset of the flexible versions `{fx}`"))
                        .help = Some(format!("tagged fields exist only in flexible versions: start taggedVersions at {} or later", fx.lowest));
                }
            }
            // Rule 27.
            if *ty == Type::Records {
                self.err("K2121", sp("tag"), format!("field `{label}`: records fields cannot be tagged"))
                    .help = Some("remove `tag` and `taggedVersions`".into());
            }
        }
        // Rule 28.
        if let Type::Array(e) = ty {
            if **e == Type::Records {
                self.err("K2122", sp("type"), format!("field `{label}`: arrays of records are not supported"))
                    .help = Some("use a single `records` field".into());
            }
        }
        // Primitive field that never overlaps its parent (struct fields: rule 38, in validate).
        if ty.struct_name().is_none() && !versions.is_empty() && versions.intersect(&cx.parent).is_empty() && !cx.parent.is_empty() {
            self.warn("K2152", sp("versions"), format!("field `{label}` has versions `{versions}`, which lie outside the enclosing versions `{}`: it is never on the wire", cx.parent))
                .help = Some("fix the field's versions, or remove it".into());
        }
    }

}

/// A short description of a type's implicit default, for messages.
fn implicit_desc(ty: &Type) -> &'static str {
    match ty {
        Type::String => "the empty string",
        Type::Bytes => "empty bytes",
        Type::Array(_) => "an empty array",
        Type::Struct(_) => "an empty struct",
        Type::Records => "null",
        _ => "the type's zero",
    }
}

/// `-007` → `-7`, `00` → `0`.
fn strip_zeros(text: &str) -> String {
    let sign = if text.starts_with('-') { "-" } else { "" };
    let d = text.trim_start_matches(['+', '-']).trim_start_matches('0');
    format!("{sign}{}", if d.is_empty() { "0" } else { d })
}

/// Whether an integer default is written with a leading zero (`010`, `-07`).
fn looks_octal(text: &str) -> bool {
    let d = text.trim_start_matches(['+', '-']);
    d.len() > 1 && d.starts_with('0') && d.bytes().all(|b| b.is_ascii_digit())
}

/// A type name close to `word` (`byte` → `int8`, `boolean` → `bool`, `[]int32int16` → `int32`).
fn suggest_type(word: &str) -> Option<String> {
    let alias = match word {
        "byte" | "i8" => Some("int8"),
        "short" | "i16" => Some("int16"),
        "int" | "integer" | "i32" => Some("int32"),
        "long" | "i64" => Some("int64"),
        "boolean" => Some("bool"),
        "double" | "float" | "f64" => Some("float64"),
        "String" | "str" => Some("string"),
        "UUID" | "Uuid" => Some("uuid"),
        _ => None,
    };
    if let Some(a) = alias {
        return Some(a.to_string());
    }
    suggest(word, TYPES).map(str::to_string)
}

/// `int32int16` → (`int32`, `int16`): two primitive type names written together.
fn split_types(word: &str) -> Option<(&'static str, &'static str)> {
    TYPES.iter().find_map(|a| {
        let rest = word.strip_prefix(a)?;
        TYPES.iter().find(|b| **b == rest).map(|b| (*a, *b))
    })
}

/// Resolves a `default` text against a type (Kafka's rules: `org.apache.kafka.message.FieldSpec` and the generated `…Data` classes).
///
/// `optional`: the field is nullable in some version; `all_nullable`: in all its versions.
///
/// # Errors
/// A message and, where a fix is known, a help line.
pub fn resolve_default(
    ty: &Type,
    text: &str,
    optional: bool,
    all_nullable: bool,
) -> Result<DefaultValue, (String, Option<String>)> {
    let null_check = || {
        if all_nullable {
            Ok(DefaultValue::Null)
        } else {
            Err((
                "null cannot be the default because not all versions of this field are nullable".to_string(),
                Some("make `nullableVersions` cover `versions`, or give a non-null default".to_string()),
            ))
        }
    };
    let _ = optional;
    match ty {
        Type::Records => Ok(DefaultValue::Implicit),
        _ if text.is_empty() => Ok(DefaultValue::Implicit),
        Type::Bool => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(DefaultValue::Bool(true)),
            "false" => Ok(DefaultValue::Bool(false)),
            _ => Err((format!("`{text}` is not true or false"), None)),
        },
        Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 => {
            let (lo, hi): (i128, i128) = match ty {
                Type::Int8 => (i8::MIN as i128, i8::MAX as i128),
                Type::Int16 => (i16::MIN as i128, i16::MAX as i128),
                Type::Uint16 => (0, u16::MAX as i128),
                Type::Int32 => (i32::MIN as i128, i32::MAX as i128),
                Type::Uint32 => (0, u32::MAX as i128),
                _ => (i64::MIN as i128, i64::MAX as i128),
            };
            let parsed = if let Some(hex) = text.strip_prefix("0x") {
                i128::from_str_radix(hex, 16).ok().filter(|_| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            } else {
                let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    text.parse::<i128>().ok()
                } else {
                    None
                }
            };
            match parsed {
                Some(n) if (lo..=hi).contains(&n) => Ok(DefaultValue::Int(n as i64)),
                Some(n) => Err((format!("{n} is out of range for {ty} ({lo}..={hi})"), None)),
                None if text == "null" => Err((format!("{ty} fields cannot be null"), None)),
                None => Err((
                    format!("`{text}` is not a decimal or `0x` hex integer"),
                    (text.starts_with("0X") || text.starts_with("-0x"))
                        .then(|| "hex defaults are written with a lower-case `0x` and no sign".to_string()),
                )),
            }
        }
        Type::Float64 => {
            let t = text.trim_end_matches(['d', 'D', 'f', 'F']);
            match t.parse::<f64>() {
                Ok(f) => Ok(DefaultValue::Float(f)),
                Err(_) => Err((format!("`{text}` is not a number"), None)),
            }
        }
        Type::String => {
            if text == "null" {
                null_check()
            } else {
                Ok(DefaultValue::Str(text.to_string()))
            }
        }
        Type::Uuid => {
            use base64::Engine;
            let t = text.trim_end_matches('=');
            match base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(t) {
                Ok(b) if b.len() == 16 => {
                    let mut a = [0u8; 16];
                    a.copy_from_slice(&b);
                    Ok(DefaultValue::Uuid(a))
                }
                Ok(b) => Err((format!("`{text}` decodes to {} bytes, a uuid has 16", b.len()), None)),
                Err(_) => Err((format!("`{text}` is not URL-safe base64"), Some("a uuid default is 22 characters of URL-safe base64".into()))),
            }
        }
        Type::Bytes | Type::Array(_) | Type::Struct(_) => {
            if text == "null" {
                null_check()
            } else {
                Err((
                    format!("the only defaults of a {} field are \"\" and \"null\"", match ty {
                        Type::Bytes => "bytes",
                        Type::Array(_) => "array",
                        _ => "struct",
                    }),
                    None,
                ))
            }
        }
    }
}

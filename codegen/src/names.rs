//! Rust names for spec names.

use heck::ToSnakeCase;
use proc_macro2::{Ident, Span};

/// snake_case of a spec name, as Kafka's `toSnakeCase` does (`FooBarBaz` → `foo_bar_baz`,
/// `FORTRAN` → `fortran`).
pub fn snake(name: &str) -> String {
    #[cfg(test)]
    SNAKE_CALLS.with(|n| n.set(n.get() + 1));
    name.to_snake_case()
}

#[cfg(test)]
thread_local! {
    /// How many times [`snake`] ran on this thread: the unit tests' measure of how much work a
    /// check does.
    pub(crate) static SNAKE_CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An identifier for `name`, raw (`r#type`) when it is a keyword, suffixed with `_` when it
/// cannot be raw (`self`, `super`, `crate`, `Self`).
pub fn ident(name: &str) -> Ident {
    match name {
        "self" | "super" | "crate" | "Self" | "_" => {
            Ident::new(&format!("{name}_"), Span::call_site())
        }
        _ if syn::parse_str::<Ident>(name).is_err() => Ident::new_raw(name, Span::call_site()),
        _ => Ident::new(name, Span::call_site()),
    }
}

/// The Rust field identifier of a spec field.
pub fn field_ident(name: &str) -> Ident {
    let s = snake(name);
    if s == "unknown_tagged_fields" {
        return ident("unknown_tagged_fields_");
    }
    ident(&s)
}

/// The Rust type identifier of a message or struct.
pub fn type_ident(name: &str) -> Ident {
    ident(name)
}

/// The module name of a spec.
pub fn module_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// The JSON key of a spec field: its name with the first letter lower-cased (Kafka's
/// `camelCaseName`).
pub fn json_key(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The identifier text without a raw prefix (`r#type` → `type`): the name error paths show.
pub fn plain(id: &Ident) -> String {
    id.to_string().trim_start_matches("r#").to_string()
}

#[cfg(test)]
mod tests {
    use super::json_key;

    #[test]
    fn json_keys_lower_the_first_letter_only() {
        assert_eq!(json_key("GroupId"), "groupId");
        assert_eq!(json_key("TopicID"), "topicID");
        assert_eq!(json_key("x"), "x");
    }
}

//! The emitter options (a leaf: every emitter reads them, none is imported here).

/// Emitter options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Also emit `kwire_protocol::wire::sample::Sample` impls (needs the runtime's `sample`
    /// feature).
    pub samples: bool,
    /// Put `#[cfg(feature = "sample")]` on the `Sample` impls (for the protocol crate itself).
    pub samples_cfg_feature: bool,
    /// Path shown in each file's `@generated` line before the spec file name (e.g. `schemas/`).
    pub source_prefix: String,
    /// Also emit Kafka's JSON form (`kwire_protocol::wire::json`; needs the runtime's `json`
    /// feature).
    pub json: bool,
    /// Put `#[cfg(feature = "json")]` on the JSON impls (for the protocol crate itself).
    pub json_cfg_feature: bool,
    /// Also emit borrowed views (`…Ref<'a>`).
    pub views: bool,
    /// Put `#[cfg(feature = "view")]` on the views (for the protocol crate itself).
    pub views_cfg_feature: bool,
}

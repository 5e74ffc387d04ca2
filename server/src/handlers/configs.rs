//! DescribeConfigs v1-4: topic configs (Kafka 4.4's defaults, overridden by the configs
//! CreateTopics gave), the broker configs clients read, group configs, and unknown resources
//! answered as Kafka 4.4 answers them; the configs themselves come from the configs service.
//! Checked against the real broker by `tests/tests/it/kafka_admin_oracle.rs`.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::describe_configs_request::DescribeConfigsRequest;
use kwire_protocol::generated::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult,
    DescribeConfigsSynonym,
};
use kwire_protocol::generated::ApiKey;

use crate::context::Ctx;
use crate::services::configs::describe::{known_resource_type, ConfigEntry};
use crate::services::state::State;

/// DescribeConfigs v1-4, per resource as Kafka 4.4's `ConfigHelper.describeConfigs` (the
/// configs of each resource type: [`Configs::resource`](crate::services::configs::describe::Configs::resource)).
/// A resource type Kafka does not know makes every resource of the request INVALID_REQUEST.
/// `ConfigurationKeys` null or empty lists every config; otherwise the named ones kwire knows
/// (unknown names are left out, as Kafka does). Synonyms only with IncludeSynonyms;
/// documentation (v3+) is null.
pub fn describe_configs(
    st: &mut State,
    ctx: &Ctx<'_>,
    r: &DescribeConfigsRequest,
) -> DescribeConfigsResponse {
    let v = ctx.version;
    let unknown_type = r
        .resources
        .iter()
        .map(|res| res.resource_type)
        .find(|t| !known_resource_type(*t));
    let mut results = Vec::with_capacity(r.resources.len());
    for res in &r.resources {
        let entries = match unknown_type {
            Some(t) => Err((
                ErrorCode::InvalidRequest,
                format!("Unsupported resource type {t} in the request"),
            )),
            None => st
                .configs
                .resource(&st.topics, res.resource_type, &res.resource_name, v),
        };
        let mut result = DescribeConfigsResult {
            error_code: ErrorCode::None.code(),
            error_message: None,
            resource_type: res.resource_type,
            resource_name: res.resource_name.clone(),
            ..Default::default()
        };
        match entries {
            Ok(entries) => {
                let keys = res.configuration_keys.as_deref().unwrap_or(&[]);
                result.configs = entries
                    .into_iter()
                    .filter(|e| keys.is_empty() || keys.iter().any(|k| **k == *e.name))
                    .map(|e| config_result(e, r.include_synonyms, v))
                    .collect();
            }
            Err((code, message)) => {
                st.fx.refused(
                    ctx,
                    ApiKey::DescribeConfigs,
                    format_args!(
                        "resource {} {:?}: {code}: {message}",
                        res.resource_type, &*res.resource_name
                    ),
                );
                result.error_code = code.code();
                result.error_message = Some(message.into());
            }
        }
        results.push(result);
    }
    DescribeConfigsResponse {
        throttle_time_ms: 0,
        results,
        ..Default::default()
    }
}

/// One config of a resource's answer at version `v`.
fn config_result(e: ConfigEntry, synonyms: bool, v: i16) -> DescribeConfigsResourceResult {
    DescribeConfigsResourceResult {
        documentation: e.documentation.map(Into::into),
        name: e.name.into(),
        value: e.value.map(Into::into),
        read_only: e.read_only,
        config_source: e.source,
        is_sensitive: false,
        synonyms: if synonyms {
            e.synonyms
                .into_iter()
                .map(|(name, value, source)| DescribeConfigsSynonym {
                    name: name.into(),
                    value: value.map(Into::into),
                    source,
                    ..Default::default()
                })
                .collect()
        } else {
            Vec::new()
        },
        config_type: if v >= 3 { e.kind } else { 0 },
        ..Default::default()
    }
}

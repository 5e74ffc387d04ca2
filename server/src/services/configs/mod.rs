//! Configs: Kafka 4.4's config tables ([`tables`]) and DescribeConfigs' answers per resource
//! ([`describe`]), from kwire-server's configuration and the configs topics were created with.

pub mod describe;
pub mod tables;

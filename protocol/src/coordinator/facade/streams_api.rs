//! The streams group type's requests and configuration (KIP-1071; docs/coordinator.md §2):
//! StreamsGroupHeartbeat, StreamsGroupDescribe, StreamsGroupTopologyDescriptionUpdate.

use super::GroupCoordinator;
use crate::coordinator::context::{ConfigError, Others, RequestContext};
use crate::coordinator::record::{apply, Output, Record, StreamsHeartbeatOutput};
use crate::coordinator::streams::manager::{self as streams_manager, StreamsManager};
use crate::coordinator::streams::{
    self, ConfiguredTopology, StreamsGroup, StreamsGroupConfig, StreamsGroupOverrides,
};
use crate::generated::streams_group_describe_request::StreamsGroupDescribeRequest;
use crate::generated::streams_group_describe_response::StreamsGroupDescribeResponse;
use crate::generated::streams_group_heartbeat_request::StreamsGroupHeartbeatRequest;
use crate::generated::streams_group_topology_description_update_request::StreamsGroupTopologyDescriptionUpdateRequest;
use crate::generated::streams_group_topology_description_update_response::StreamsGroupTopologyDescriptionUpdateResponse;

impl GroupCoordinator {
    /// Installs a streams-group configuration (the default is [`StreamsGroupConfig::default`]).
    ///
    /// # Errors
    /// [`ConfigError`] when it breaks Kafka's bounds ([`StreamsGroupConfig::validate`]).
    /// Session deadlines already armed move with the new timeout (deadline = last heartbeat +
    /// timeout), so a coordinator built by [`GroupCoordinator::load`] can take its streams
    /// configuration afterwards.
    pub fn set_streams_config(&mut self, config: StreamsGroupConfig) -> Result<(), ConfigError> {
        self.streams_manager().set_config(config)
    }

    /// The streams-group configuration.
    pub fn streams_config(&self) -> &StreamsGroupConfig {
        &self.types.streams.config
    }

    /// Sets a streams group's overrides.
    ///
    /// # Errors
    /// [`ConfigError`] when a value is out of range (interval not below the session timeout,
    /// standby count above `group.streams.max.standby.replicas`, negative delay).
    pub fn set_streams_group_config(
        &mut self,
        group_id: &str,
        o: StreamsGroupOverrides,
    ) -> Result<(), ConfigError> {
        self.streams_manager().set_group_config(group_id, o)
    }

    /// Every streams group (persisted and derived state).
    pub fn streams_groups(&self) -> &streams::StreamsGroups {
        &self.groups.streams
    }

    /// One streams group.
    pub fn streams_group(&self, group_id: &str) -> Option<&StreamsGroup> {
        self.groups.streams.get(group_id)
    }

    /// The configured topology cached for a streams group (soft state), if computed.
    pub fn streams_configured_topology(&self, group_id: &str) -> Option<&ConfiguredTopology> {
        self.types
            .streams
            .volatile
            .get(group_id)
            .and_then(|v| v.configured.as_ref())
            .and_then(|c| c.as_ref().ok())
    }

    /// A streams group's endpoint-information epoch (soft state, KIP-1071), starting at 0.
    pub fn streams_endpoint_information_epoch(&self, group_id: &str) -> i32 {
        self.types
            .streams
            .volatile
            .get(group_id)
            .map_or(0, |v| v.endpoint_information_epoch)
    }

    /// Handles a StreamsGroupHeartbeat (KIP-1071; docs/coordinator.md §Streams groups, D1-D3):
    /// validation, join (with topology initialisation, D1 topology updates and topic
    /// configuration), heartbeat, leave (-1) and shutdown requests. On error the response
    /// carries only the error code and message (member id empty, epoch 0, interval 0, task lists
    /// null) and nothing is written. A joining heartbeat replaces an empty classic group. The
    /// topics a topology needs but metadata lacks come back as
    /// [`StreamsHeartbeatOutput::topics_to_create`]; the caller creates them and reports the
    /// new metadata through [`GroupCoordinator::set_topics`]. Never panics on request input.
    pub fn streams_group_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeatOutput {
        self.guarded(
            |c| c.streams_heartbeat(ctx, req, now_ms),
            |_, out| out.response.error_code != 0,
        )
    }

    fn streams_heartbeat(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> StreamsHeartbeatOutput {
        let gid = &*req.group_id;
        // Kafka's `maybeDeleteEmptyClassicGroup`: a join replaces an empty classic group, so
        // the heartbeat runs as if it were gone and the group is deleted once it succeeded.
        let replaces_classic = self.replaces_empty_classic(gid, req.member_epoch);
        let out = if replaces_classic {
            let groups = &mut self.groups;
            StreamsManager {
                ctx: &mut self.ctx,
                side: &mut self.types.streams,
                groups: &mut groups.streams,
                others: Others(vec![&groups.consumer]),
            }
            .heartbeat(ctx, req, now_ms)
        } else {
            self.streams_manager().heartbeat(ctx, req, now_ms)
        };
        let mut records = if replaces_classic && out.response.error_code == 0 {
            self.remove_classic_group(gid, now_ms)
        } else {
            Vec::new()
        };
        records.extend(out.records.into_iter().map(Record::Streams));
        StreamsHeartbeatOutput {
            response: out.response,
            records,
            topics_to_create: out.topics_to_create,
        }
    }

    /// Handles a StreamsGroupDescribe (KIP-1071): per group, INVALID_GROUP_ID (24) for a blank
    /// id, GROUP_ID_NOT_FOUND (69) for a missing group or one of another type; otherwise the
    /// state, epochs, topology (configured when ready, else as persisted), members with their
    /// task offsets, assignments and targets. `AuthorizedOperations` is `i32::MIN` (not
    /// requested / not computed: ACLs are the caller's).
    pub fn streams_group_describe(
        &self,
        _ctx: &RequestContext,
        req: &StreamsGroupDescribeRequest,
    ) -> StreamsGroupDescribeResponse {
        streams_manager::describe(
            &self.types.streams,
            &self.groups.streams,
            &Others(vec![&self.groups.consumer]),
            req,
        )
    }

    /// Handles a StreamsGroupTopologyDescriptionUpdate (key 93 v0, KIP-1331, Kafka 4.4): a
    /// member of a streams group pushes the description of the group's current topology epoch,
    /// which kwire keeps (record type 25) and StreamsGroupDescribe v1 returns. Errors:
    /// UNSUPPORTED_VERSION when [`StreamsGroupConfig::topology_descriptions`] is off (Kafka 4.4
    /// without a description plugin), INVALID_REQUEST (blank ids, another topology epoch, a
    /// malformed description), GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID; no record on error.
    pub fn streams_group_topology_description_update(
        &mut self,
        ctx: &RequestContext,
        req: &StreamsGroupTopologyDescriptionUpdateRequest,
    ) -> Output<StreamsGroupTopologyDescriptionUpdateResponse> {
        self.guarded(
            |c| c.description_update(ctx, req),
            |_, out| out.response.error_code != 0,
        )
    }

    fn description_update(
        &mut self,
        _ctx: &RequestContext,
        req: &StreamsGroupTopologyDescriptionUpdateRequest,
    ) -> Output<StreamsGroupTopologyDescriptionUpdateResponse> {
        let (response, record) = streams_manager::topology_description_update(
            &mut self.types.streams,
            &self.groups.streams,
            &Others(vec![&self.groups.consumer, &self.groups.classic]),
            req,
        );
        let records = record
            .map(|r| {
                let r = Record::Streams(r);
                apply(&mut self.groups, &r);
                vec![r]
            })
            .unwrap_or_default();
        Output { response, records }
    }
}

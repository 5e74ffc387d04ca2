//! A change of the topic metadata (the facade's `set_topics`, docs/coordinator.md D4): every
//! streams group's topology configured again, and the group epoch bumped where the metadata
//! hash or the validated topology epoch moved (Kafka 4.4 compares them on the next heartbeat).
//!
//! Section numbers (§) and departures (Dn) cited in this file are those of docs/coordinator.md.

use super::super::records::StreamsRecord;
use super::side::{volatile_mut, StreamsManager};
use super::topology::{configure, validated_epoch};

impl StreamsManager<'_> {
    /// Re-validates every streams group's topology against new metadata: a changed metadata hash
    /// or validated topology epoch bumps the group epoch. Returns the records written.
    pub fn metadata_changed(&mut self) -> Vec<StreamsRecord> {
        let mut records = Vec::new();
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in ids {
            let Some(g) = self.groups.get(&gid) else {
                continue;
            };
            let Some(t) = &g.topology else {
                continue;
            };
            let (hash, configured) = configure(self.ctx, t);
            let validated = validated_epoch(t, &configured);
            let bump =
                (hash != g.metadata_hash || validated != g.validated_topology_epoch).then(|| {
                    let (e, configs) = (g.group_epoch + 1, &g.last_assignment_configs);
                    StreamsRecord::group_metadata(&gid, e, hash, validated, configs)
                });
            if let Some(v) = volatile_mut(&mut self.side.volatile, &gid) {
                v.configured = Some(configured);
            }
            if let Some(r) = bump {
                self.emit(&mut records, r);
            }
        }
        records
    }
}

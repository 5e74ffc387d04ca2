//! The topic table: every topic by name and by id, with its partition logs and the configs it
//! was created with.

use std::collections::{BTreeMap, HashMap};

use kwire_protocol::coordinator::TopicMetadata;
use kwire_protocol::wire::Uuid;

use super::log::PartitionLog;
use crate::names::collision_key;

/// One topic.
#[derive(Debug, Clone)]
pub struct Topic {
    /// The name.
    pub name: String,
    /// The topic id (stable for the topic's life).
    pub id: Uuid,
    /// One log per partition.
    pub partitions: Vec<PartitionLog>,
    /// Topic configs given at creation.
    pub configs: Vec<(String, String)>,
}

impl Topic {
    /// A partition's log, if the index is in range.
    pub fn partition(&self, index: i32) -> Option<&PartitionLog> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.partitions.get(i))
    }

    /// A partition's log, mutably.
    pub fn partition_mut(&mut self, index: i32) -> Option<&mut PartitionLog> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.partitions.get_mut(i))
    }
}

/// Every topic, by name and by id.
#[derive(Debug, Default)]
pub struct TopicTable {
    by_name: BTreeMap<String, Topic>,
    by_id: HashMap<Uuid, String>,
}

impl TopicTable {
    /// Adds a topic (the caller checked that the name is free and the id unused).
    pub fn insert(
        &mut self,
        name: &str,
        id: Uuid,
        partitions: i32,
        configs: Vec<(String, String)>,
    ) -> &Topic {
        let n = usize::try_from(partitions.max(0)).unwrap_or(0);
        self.by_id.insert(id, name.to_string());
        self.by_name.insert(
            name.to_string(),
            Topic {
                name: name.to_string(),
                id,
                partitions: vec![PartitionLog::default(); n],
                configs,
            },
        );
        &self.by_name[name]
    }

    /// The topic named `name`.
    pub fn get(&self, name: &str) -> Option<&Topic> {
        self.by_name.get(name)
    }

    /// The topic named `name`, mutably.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Topic> {
        self.by_name.get_mut(name)
    }

    /// The topic with id `id`.
    pub fn by_id(&self, id: &Uuid) -> Option<&Topic> {
        self.by_id.get(id).and_then(|n| self.by_name.get(n))
    }

    /// An existing topic whose name differs from `name` only in '.' versus '_' (Kafka refuses
    /// such names: its metric names cannot tell them apart).
    pub fn colliding(&self, name: &str) -> Option<&str> {
        let key = collision_key(name);
        self.by_name
            .keys()
            .find(|n| n.as_str() != name && collision_key(n) == key)
            .map(String::as_str)
    }

    /// Whether an id is taken.
    pub fn id_taken(&self, id: &Uuid) -> bool {
        self.by_id.contains_key(id)
    }

    /// Every topic, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Topic> {
        self.by_name.values()
    }

    /// Number of topics.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether there is no topic.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The coordinator's view of the topics (id, name, partition count).
    pub fn metadata(&self) -> Vec<TopicMetadata> {
        self.by_name
            .values()
            .map(|t| TopicMetadata::new(t.id, &t.name, t.partitions.len() as i32))
            .collect()
    }
}

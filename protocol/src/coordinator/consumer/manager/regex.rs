//! Regex subscriptions (docs/coordinator.md §1.8, D4): a regex must match the whole topic name,
//! uses the `regex` crate's syntax and is resolved synchronously — in the heartbeat that
//! introduces it (phase one resolves it, phase two writes and caches it) and whenever the topic
//! metadata changes.

use super::check::NewRegex;
use super::{member_topic_names, ConsumerManager};
use crate::coordinator::consumer::group::{ConsumerGroup, ConsumerGroupMember, ResolvedRegex};
use crate::coordinator::consumer::records::ConsumerRecord;
use crate::coordinator::context::{fail, HbError};
use crate::error::ErrorCode;

impl ConsumerManager<'_> {
    /// The compiled form of `re` (anchored: `^(?:re)$`), from the cache or compiled now; the
    /// reason (the crate's error line) when it does not compile.
    fn compiled(&self, re: &str) -> Result<::regex::Regex, String> {
        if let Some(r) = self.side.regex_cache.get(re) {
            return Ok(r.clone());
        }
        if let Err(e) = ::regex::Regex::new(re) {
            let text = e.to_string();
            let reason = text
                .lines()
                .find_map(|l| l.strip_prefix("error: "))
                .map(str::to_string)
                .unwrap_or(text);
            return Err(reason);
        }
        ::regex::Regex::new(&format!("^(?:{re})$")).map_err(|e| e.to_string())
    }

    /// Keeps a compiled regex for the next resolution (phase two, or a metadata change).
    pub(super) fn cache_regex(&mut self, re: &str, compiled: ::regex::Regex) {
        if !self.side.regex_cache.contains_key(re) {
            self.side.regex_cache.insert(re.to_string(), compiled);
        }
    }

    /// The topics of the current metadata `re` matches, with the metadata version and time.
    fn resolve(&self, re: &::regex::Regex, now_ms: i64) -> ResolvedRegex {
        ResolvedRegex {
            topics: self
                .ctx
                .topics
                .keys()
                .filter(|n| re.is_match(n))
                .cloned()
                .collect(),
            version: self.ctx.metadata_version,
            timestamp_ms: now_ms,
        }
    }

    /// Phase one's regex step: the member's regex, when the group has not resolved it yet,
    /// compiled and resolved now.
    ///
    /// # Errors
    /// INVALID_REGULAR_EXPRESSION with the crate's reason.
    pub(super) fn new_regex(
        &self,
        g: &ConsumerGroup,
        u: &ConsumerGroupMember,
        now_ms: i64,
    ) -> Result<Option<NewRegex>, HbError> {
        let Some(re) = u
            .subscribed_topic_regex
            .as_ref()
            .filter(|r| !g.regexes.contains_key(*r))
        else {
            return Ok(None);
        };
        let compiled = match self.compiled(re) {
            Ok(c) => c,
            Err(reason) => {
                return fail(
                    ErrorCode::InvalidRegularExpression.code(),
                    format!(
                        "SubscribedTopicRegex `{re}` is not a valid regular expression: {reason}."
                    ),
                )
            }
        };
        Ok(Some(NewRegex {
            regex: re.clone(),
            resolved: self.resolve(&compiled, now_ms),
            compiled,
        }))
    }

    /// Follows new topic metadata (already in the context; docs/coordinator.md, D4): every regex
    /// of every group is resolved again (a regex record when its topic set changed), and a group
    /// whose subscribed-topic metadata hash or regex resolutions changed has its epoch bumped (a
    /// group-epoch record with the new hash); its next heartbeat computes a new target.
    pub fn metadata_changed(&mut self, now_ms: i64) -> Vec<ConsumerRecord> {
        let mut records = Vec::new();
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for gid in ids {
            let changed = self.resolve_again(&gid, now_ms, &mut records);
            let Some(g) = self.groups.get(&gid) else {
                continue;
            };
            let hash = self.ctx.metadata_hash(
                g.members
                    .values()
                    .flat_map(|m| member_topic_names(m, &g.regexes, None)),
            );
            if changed || hash != g.metadata_hash {
                let epoch = g.group_epoch + 1;
                self.emit(&mut records, ConsumerRecord::group_epoch(&gid, epoch, hash));
            }
        }
        records
    }

    /// Resolves every regex of group `gid` again; writes those whose topics changed and says
    /// whether any did.
    fn resolve_again(&mut self, gid: &str, now_ms: i64, records: &mut Vec<ConsumerRecord>) -> bool {
        let regexes: Vec<(String, ResolvedRegex)> = match self.groups.get(gid) {
            Some(g) => g
                .regexes
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            None => return false,
        };
        let mut changed = false;
        for (re, old) in regexes {
            let Ok(compiled) = self.compiled(&re) else {
                continue;
            };
            let res = self.resolve(&compiled, now_ms);
            self.cache_regex(&re, compiled);
            if res.topics != old.topics {
                changed = true;
                self.emit(records, ConsumerRecord::regex(gid, &re, &res));
            }
        }
        changed
    }
}

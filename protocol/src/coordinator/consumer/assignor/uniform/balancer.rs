//! The balancing helpers of the heterogeneous case (Kafka's `MemberAssignmentBalancer`).

/// Buffers reused across the balancing of every topic.
pub(super) struct Scratch {
    pub(super) balancer: Balancer,
    pub(super) partitions: Vec<u32>,
    pub(super) start: Vec<usize>,
    pub(super) end: Vec<usize>,
}

/// Kafka's `MemberAssignmentBalancer`: one topic's subscribers sorted by load, with a
/// least-loaded range that grows rightwards and a most-loaded range that grows leftwards.
#[derive(Default)]
pub(super) struct Balancer {
    /// Subscribers by (partition count, member index) ascending.
    pub(super) sorted: Vec<u32>,
    /// `[0, least_end)`: the least-loaded range.
    pub(super) least_end: usize,
    /// Partition count of the least-loaded range before this round of assignments.
    pub(super) least_count: i64,
    /// Next position in the least-loaded range to receive a partition.
    pub(super) next_least: usize,
    /// `[most_start, most_end)`: the most-loaded range.
    pub(super) most_start: usize,
    pub(super) most_end: usize,
    /// Partition count of the most-loaded range before this round of removals.
    pub(super) most_count: i64,
    /// Next position in the most-loaded range to give up a partition (-1 = none left).
    pub(super) next_most: isize,
}

impl Balancer {
    /// Resets for `members` (non-empty); returns the spread of their partition counts.
    pub(super) fn initialize(&mut self, members: &[u32], sizes: &[u32]) -> u32 {
        self.sorted.clear();
        self.sorted.extend_from_slice(members);
        self.sorted
            .sort_unstable_by_key(|&m| (sizes[m as usize], m));
        let len = self.sorted.len();
        let min = sizes[self.sorted[0] as usize];
        let max = sizes[self.sorted[len - 1] as usize];
        self.least_end = 0;
        self.least_count = i64::from(min) - 1;
        self.next_least = 0;
        self.most_start = len;
        self.most_end = len;
        self.most_count = i64::from(max) + 1;
        self.next_most = len as isize - 1;
        max - min
    }

    pub(super) fn size(&self, sizes: &[u32], pos: usize) -> i64 {
        i64::from(sizes[self.sorted[pos] as usize])
    }

    /// The member to give the next partition to; assumes it will get it.
    pub(super) fn next_least_loaded(&mut self, sizes: &[u32]) -> u32 {
        if self.next_least >= self.least_end {
            // Every member of the range got one: raise its level and widen it.
            self.least_count += 1;
            while self.least_end < self.sorted.len()
                && self.size(sizes, self.least_end) == self.least_count
            {
                self.least_end += 1;
            }
            // Cannot happen (the first member is always at the level); keeps indexing safe.
            self.least_end = self.least_end.max(1);
            self.next_least = 0;
        }
        let m = self.sorted[self.next_least];
        self.next_least += 1;
        m
    }

    /// The member to take the next partition from, if any; assumes it will give it.
    pub(super) fn next_most_loaded(&mut self, sizes: &[u32]) -> Option<u32> {
        if self.next_most < self.most_start as isize {
            if self.most_end <= self.most_start && self.most_start > 0 {
                // The range was emptied by exclusions: restart from the next member down.
                self.most_count = self.size(sizes, self.most_start - 1);
            } else {
                self.most_count -= 1;
            }
            while self.most_start > 0 && self.size(sizes, self.most_start - 1) == self.most_count {
                self.most_start -= 1;
            }
            self.next_most = self.most_end as isize - 1;
        }
        if self.next_most < 0 {
            return None;
        }
        let m = self.sorted[self.next_most as usize];
        self.next_most -= 1;
        Some(m)
    }

    /// Drops the member last returned by [`Self::next_most_loaded`] from the most-loaded range
    /// (it has nothing of the topic left to give).
    pub(super) fn exclude_most_loaded(&mut self) {
        let pos = (self.next_most + 1) as usize;
        self.sorted.swap(pos, self.most_end - 1);
        self.most_end -= 1;
    }

    /// Whether the two ranges' levels differ by at most one.
    pub(super) fn is_balanced(&self) -> bool {
        self.most_count - self.least_count <= 1
    }
}

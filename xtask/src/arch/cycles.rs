//! Import cycles of any length: the strongly connected components of a package's module graph
//! (Tarjan's algorithm), each with one shortest cycle through it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::graph::PackageGraph;

/// One strongly connected component of two or more modules.
#[derive(Debug)]
pub struct Cycle {
    /// Its modules, sorted by name.
    pub members: Vec<usize>,
    /// A shortest cycle through its first member: `chain[0] → chain[1] → … → chain[0]`.
    pub chain: Vec<usize>,
}

/// The edges that count: every edge but those between a `#[cfg(test)]` module and its parent
/// (a `tests` module using `super::*` while the parent calls one of its helpers).
fn counted(g: &PackageGraph) -> BTreeMap<usize, Vec<usize>> {
    let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(a, b) in g.edges.keys() {
        let test_pair = (g.modules[a].test_only && g.is_child(a, b))
            || (g.modules[b].test_only && g.is_child(b, a));
        if !test_pair {
            out.entry(a).or_default().push(b);
        }
    }
    out
}

/// Every cycle of `g`, sorted by the name of its first member.
pub fn find(g: &PackageGraph) -> Vec<Cycle> {
    let edges = counted(g);
    let mut tarjan = Tarjan {
        edges: &edges,
        index: vec![None; g.modules.len()],
        low: vec![0; g.modules.len()],
        on_stack: vec![false; g.modules.len()],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for m in 0..g.modules.len() {
        if tarjan.index[m].is_none() {
            tarjan.connect(m);
        }
    }
    let mut cycles: Vec<Cycle> = tarjan
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|mut members| {
            members.sort_by_key(|&m| g.show(m));
            let chain = shortest_cycle(&edges, members[0], &members.iter().copied().collect());
            Cycle { members, chain }
        })
        .collect();
    cycles.sort_by_key(|c| g.show(c.members[0]));
    cycles
}

/// The shortest path from `start` back to itself inside `within` (breadth first).
fn shortest_cycle(
    edges: &BTreeMap<usize, Vec<usize>>,
    start: usize,
    within: &BTreeSet<usize>,
) -> Vec<usize> {
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for &next in edges.get(&at).into_iter().flatten() {
            if !within.contains(&next) {
                continue;
            }
            if next == start {
                let mut chain = vec![at];
                while let Some(&prev) = came_from.get(chain.last().unwrap_or(&start)) {
                    chain.push(prev);
                }
                chain.reverse();
                return chain;
            }
            if next != start && !came_from.contains_key(&next) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}

struct Tarjan<'a> {
    edges: &'a BTreeMap<usize, Vec<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    /// Tarjan's `strongconnect` (module graphs are a few hundred deep at most).
    fn connect(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in self.edges.get(&v).into_iter().flatten() {
            match self.index[w] {
                None => {
                    self.connect(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

//! Which partition (thread) runs each node of a parallel run (`threads`, [`crate::par`]).
//!
//! Two rules, both deterministic (the same scenario and thread count give the same split):
//!
//! * **The fat-tree builder's nodes** (`h*`, `edge{pod}_*`, `agg{pod}_*`, `core*`) go by
//!   pod: a pod's hosts and switches talk to other pods only through their aggregation-core
//!   links, so each pod is one unit; core switch `c` joins pod `c mod k` (equal sizes);
//!   with fewer threads than pods, neighbouring pods share a thread (pod `p` → thread
//!   `p·threads/k`). More threads than pods are refused.
//! * **Any other topology**: links shorter than a cut delay `d` tie their nodes together
//!   (a union-find over the links with delay < `d`); `d` is the longest link delay that still
//!   leaves at least `threads` groups, so the links between partitions are the longest
//!   available (the lookahead is as large as it can be). A group weighs the link
//!   directions that start or end at its nodes (a link direction's events run at its two
//!   ends: transmissions at the sender, arrivals at the receiver), so a router that 10 000
//!   access links feed weighs as much as those hosts together. The groups go to threads
//!   heaviest first, each to the thread with the least weight so far (ties: the lowest
//!   thread). A dumbbell splits at its bottleneck for two threads; more threads cut access
//!   links, and each router then gets a thread with few or no hosts beside it (counting
//!   nodes instead put a quarter of the hosts beside each router on 4 threads: 42 % of the
//!   10 000-flow dumbbell's events on one thread, against 34 % now; docs/scaling.md).
//!
//! Either way the run refuses a split whose lookahead is below [`crate::par::MIN_LOOKAHEAD`]
//! (one line naming the delay).

use super::ScenarioError;
use crate::sim::Sim;

/// Node → partition for `threads` partitions.
pub fn partition(sim: &Sim, threads: usize) -> Result<Vec<u16>, ScenarioError> {
    let n = sim.nodes.len();
    if threads <= 1 {
        return Ok(vec![0; n]);
    }
    if let Some(parts) = fat_tree(sim, threads)? {
        return Ok(parts);
    }
    if threads > n {
        return Err(ScenarioError::new(
            "threads",
            format!("{threads} threads for {n} nodes: at most one thread per node"),
        ));
    }
    // Candidate cut delays, longest first.
    let mut delays: Vec<u64> = sim.links.iter().map(|l| l.delay.0).collect();
    delays.sort_unstable();
    delays.dedup();
    for &d in delays.iter().rev() {
        let groups = groups_below(sim, d);
        let count = groups.iter().copied().max().map_or(0, |m| m as usize + 1);
        if count >= threads {
            return Ok(assign(sim, &groups, count, threads));
        }
    }
    // Every link is a cut: each node its own group.
    let groups: Vec<u32> = (0..n as u32).collect();
    Ok(assign(sim, &groups, n, threads))
}

/// Union-find over the links with delay below `d`: each node's group, numbered 0, 1, … in
/// the order of the groups' first node.
fn groups_below(sim: &Sim, d: u64) -> Vec<u32> {
    let n = sim.nodes.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for l in &sim.links {
        if l.delay.0 < d {
            let (a, b) = (
                find(&mut parent, l.from.index()),
                find(&mut parent, l.to.index()),
            );
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut label = vec![u32::MAX; n];
    let mut next = 0;
    (0..n)
        .map(|i| {
            let r = find(&mut parent, i);
            if label[r] == u32::MAX {
                label[r] = next;
                next += 1;
            }
            label[r]
        })
        .collect()
}

/// Groups to threads: heaviest first, each to the least-loaded thread, a group weighing
/// the link directions at its nodes (both ends count; a node without links weighs 1).
fn assign(sim: &Sim, groups: &[u32], count: usize, threads: usize) -> Vec<u16> {
    let mut weight = vec![0usize; groups.len()];
    for l in &sim.links {
        weight[l.from.index()] += 1;
        weight[l.to.index()] += 1;
    }
    let mut size = vec![0usize; count];
    for (&g, &w) in groups.iter().zip(&weight) {
        size[g as usize] += w.max(1);
    }
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&g| (std::cmp::Reverse(size[g]), g));
    let mut load = vec![0usize; threads];
    let mut to = vec![0u16; count];
    for g in order {
        let t = (0..threads).min_by_key(|&t| (load[t], t)).unwrap();
        load[t] += size[g];
        to[g] = t as u16;
    }
    groups.iter().map(|&g| to[g as usize]).collect()
}

/// The fat-tree builder's split by pod, if every node has one of its names.
fn fat_tree(sim: &Sim, threads: usize) -> Result<Option<Vec<u16>>, ScenarioError> {
    let num = |s: &str| s.parse::<usize>().ok();
    let mut hosts = 0;
    let mut cores = 0;
    let mut pod = Vec::with_capacity(sim.nodes.len());
    for node in &sim.nodes {
        let name = node.name.as_str();
        let p = if let Some(r) = name
            .strip_prefix("edge")
            .or_else(|| name.strip_prefix("agg"))
        {
            match r
                .split_once('_')
                .and_then(|(p, i)| Some((num(p)?, num(i)?)))
            {
                Some((p, _)) => Pod::Switch(p),
                None => return Ok(None),
            }
        } else if let Some(c) = name.strip_prefix("core").and_then(num) {
            cores += 1;
            Pod::Core(c)
        } else if let Some(h) = name.strip_prefix('h').and_then(num) {
            hosts += 1;
            Pod::Host(h)
        } else {
            return Ok(None);
        };
        pod.push(p);
    }
    // k/2 squared cores, k³/4 hosts.
    let half = (cores as f64).sqrt().round() as usize;
    let k = 2 * half;
    if half == 0 || half * half != cores || hosts != k * half * half {
        return Ok(None);
    }
    if threads > k {
        return Err(ScenarioError::new(
            "threads",
            format!("{threads} threads for a k = {k} fat-tree: at most one thread per pod ({k})"),
        ));
    }
    let per_pod = half * half;
    Ok(Some(
        pod.into_iter()
            .map(|p| {
                let p = match p {
                    Pod::Switch(p) => p,
                    Pod::Core(c) => c % k,
                    Pod::Host(h) => h / per_pod,
                };
                (p * threads / k) as u16
            })
            .collect(),
    ))
}

enum Pod {
    Switch(usize),
    Core(usize),
    Host(usize),
}

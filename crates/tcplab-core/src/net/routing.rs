//! Static shortest-path routing (fewest hops), one next link per (node, destination).
//!
//! **Ties** between equal-cost next hops are broken by [`Ecmp`] (`[routing] ecmp`):
//!
//! * [`Ecmp::First`] (default): the next hop of the first shortest path a breadth-first
//!   search from the node finds, exploring links in declaration (name) order — in effect
//!   the link declared first.
//! * [`Ecmp::Destination`]: a static spread by destination. Hosts are numbered
//!   r = 0, 1, ... in name order. Let P(n, d) be the number of shortest paths from node n to
//!   destination d (P(d, d) = 1; P(n, d) = Σ P(m, d) over the equal-cost next hops m of n,
//!   links in name order). Node n sends packets for host d to the next hop m_i holding path
//!   number q = r(d) mod P(n, d) in that order (the i with C_i ≤ q < C_(i+1), where C_i is
//!   the sum of P(m_j, d) over j < i). Where every next hop has the same count p this is
//!   i = ⌊r/p⌋ mod c (c next hops): on a k-ary fat-tree, edge switches pick the aggregation
//!   switch ⌊r/(k/2)⌋ mod k/2 and aggregation switches the core r mod k/2, so the k²/4 hosts
//!   of a pod reach it through k²/4 different cores ("D-mod-k" routing): the downward paths
//!   to the hosts of one pod are disjoint. It is per destination, not per flow: every flow
//!   to one host takes one path (`Flow` spreads flows).
//! * [`Ecmp::Flow`]: per-flow ECMP, as switches hash five-tuples. A node with several
//!   equal-cost next hops towards a destination (the links to neighbours one hop nearer,
//!   in name order) keeps them all ([`FlowEcmp`]) and sends each packet on the one that
//!   [`flow_hash`] of the packet's flow and the node's salt picks: `i = h mod c` for `c`
//!   candidates, `h = mix(salt XOR mix(flow index + 1))` with `mix` SplitMix64's
//!   finaliser and `salt = mix(seed XOR mix(node index + 1))` from the run's seed. So every
//!   packet of a flow (and every ack of it, on the way back) keeps one path, different
//!   flows to one host take different paths, and the choice depends on the seed, the flow
//!   and the node only (not on the thread count or the order of events).
//!
//! **Storage.** A node with at most one outgoing link direction (a host on its access
//! link, a stub router) stores no table: every destination is reached through its
//! [`Routes::uplink`] (or none). Only nodes with several outgoing directions keep a row of
//! one entry per node, so a 10 000-pair dumbbell keeps two rows (its routers) instead of
//! 20 002² entries.

use crate::event::{LinkId, NodeId};
use std::collections::VecDeque;

/// How ties between equal-cost next hops are broken (`[routing] ecmp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecmp {
    /// The link declared first (name order), as a breadth-first search finds it.
    #[default]
    First,
    /// A static spread by destination host (see the module documentation).
    Destination,
    /// Per flow: a hash of the flow and a per-node salt from `seed`.
    Flow { seed: u64 },
}

/// SplitMix64's finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words whose
/// outputs are uniform for consecutive inputs.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The hash [`Ecmp::Flow`] picks a next hop by (module documentation).
#[inline(always)]
pub fn flow_hash(salt: u64, flow: crate::ids::FlowId) -> u64 {
    mix(salt ^ mix(flow.index() as u64 + 1))
}

/// A node's equal-cost next hops per destination ([`Ecmp::Flow`]).
#[derive(Clone, Debug, Default)]
pub struct FlowEcmp {
    salt: u64,
    /// Per destination node: `(start, count)` of its candidates in `links`.
    groups: Vec<(u32, u32)>,
    links: Vec<LinkId>,
}

impl FlowEcmp {
    /// The next link towards `dst` for a packet of `flow`.
    #[inline]
    pub fn pick(&self, dst: NodeId, flow: crate::ids::FlowId) -> Option<LinkId> {
        let (s, n) = *self.groups.get(dst.index())?;
        match n {
            0 => None,
            1 => Some(self.links[s as usize]),
            _ => Some(self.links[s as usize + (flow_hash(self.salt, flow) % n as u64) as usize]),
        }
    }

    /// The equal-cost next hops towards `dst`, in name order.
    pub fn candidates(&self, dst: NodeId) -> &[LinkId] {
        let (s, n) = self.groups[dst.index()];
        &self.links[s as usize..(s + n) as usize]
    }
}

/// Routes of every node.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    /// Per node: the first link towards each destination node, for nodes with several
    /// outgoing link directions; empty for the others (they use `uplink`).
    pub rows: Vec<Vec<Option<LinkId>>>,
    /// Per node: its only outgoing link direction, if it has exactly one.
    pub uplink: Vec<Option<LinkId>>,
    /// Per node ([`Ecmp::Flow`]): its equal-cost next hops, for a node that has a choice
    /// towards some destination (`rows` then holds the first of each).
    pub flow_ecmp: Vec<Option<Box<FlowEcmp>>>,
}

/// The outgoing link directions of every node, in declaration order.
fn out_links(n_nodes: usize, links: &[(NodeId, NodeId)]) -> Vec<Vec<LinkId>> {
    let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); n_nodes];
    for (i, &(a, _)) in links.iter().enumerate() {
        out[a.index()].push(LinkId::from_index(i));
    }
    out
}

/// The routes of every node. `hosts[i]`: node i is a host (numbering for
/// [`Ecmp::Destination`]).
pub fn routes(n_nodes: usize, links: &[(NodeId, NodeId)], ecmp: Ecmp, hosts: &[bool]) -> Routes {
    let out = out_links(n_nodes, links);
    let mut r = Routes {
        rows: vec![Vec::new(); n_nodes],
        uplink: vec![None; n_nodes],
        flow_ecmp: vec![None; n_nodes],
    };
    for (n, o) in out.iter().enumerate() {
        if o.len() == 1 {
            r.uplink[n] = Some(o[0]);
        }
    }
    let multi: Vec<usize> = (0..n_nodes).filter(|&n| out[n].len() > 1).collect();
    if multi.is_empty() {
        return r;
    }
    match ecmp {
        Ecmp::First => {
            for &src in &multi {
                r.rows[src] = first_row(src, n_nodes, links, &out);
            }
        }
        Ecmp::Destination => {
            for &n in &multi {
                r.rows[n] = vec![None; n_nodes];
            }
            spread(&mut r.rows, &multi, n_nodes, links, &out, hosts);
        }
        Ecmp::Flow { seed } => {
            for &n in &multi {
                r.rows[n] = vec![None; n_nodes];
            }
            groups(&mut r, &multi, n_nodes, links, &out, seed);
        }
    }
    r
}

/// [`Ecmp::Flow`]: hop distances to every destination by a backwards breadth-first search,
/// then each node's equal-cost next hops (links to a neighbour one hop nearer, name order).
fn groups(
    r: &mut Routes,
    multi: &[usize],
    n_nodes: usize,
    links: &[(NodeId, NodeId)],
    out: &[Vec<LinkId>],
    seed: u64,
) {
    let mut tables: Vec<FlowEcmp> = multi
        .iter()
        .map(|&n| FlowEcmp {
            salt: mix(seed ^ mix(n as u64 + 1)),
            groups: vec![(0, 0); n_nodes],
            links: Vec::new(),
        })
        .collect();
    let dist_to = distances(n_nodes, links);
    for d in 0..n_nodes {
        let dist = &dist_to(d);
        for (t, &n) in tables.iter_mut().zip(multi) {
            if n == d || dist[n] == u32::MAX {
                continue;
            }
            let start = t.links.len() as u32;
            for &l in &out[n] {
                let m = links[l.index()].1.index();
                if dist[m] != u32::MAX && dist[m] + 1 == dist[n] {
                    t.links.push(l);
                }
            }
            t.groups[d] = (start, t.links.len() as u32 - start);
            r.rows[n][d] = t.links.get(start as usize).copied();
        }
    }
    for (t, &n) in tables.into_iter().zip(multi) {
        if t.groups.iter().any(|&(_, c)| c > 1) {
            r.flow_ecmp[n] = Some(Box::new(t));
        }
    }
}

/// Hop distances to a destination: `distances(..)(d)[n]` is the number of links from `n`
/// to `d` (`u32::MAX`: unreachable), by a backwards breadth-first search.
fn distances(n_nodes: usize, links: &[(NodeId, NodeId)]) -> impl Fn(usize) -> Vec<u32> + '_ {
    let mut inc: Vec<Vec<usize>> = vec![Vec::new(); n_nodes];
    for &(a, b) in links {
        inc[b.index()].push(a.index());
    }
    move |d| {
        let mut dist = vec![u32::MAX; n_nodes];
        let mut order = vec![d];
        dist[d] = 0;
        let mut i = 0;
        while i < order.len() {
            let n = order[i];
            i += 1;
            for &m in &inc[n] {
                if dist[m] == u32::MAX {
                    dist[m] = dist[n] + 1;
                    order.push(m);
                }
            }
        }
        dist
    }
}

/// The first links from `src` to every node by breadth-first search (ties: first found).
fn first_row(
    src: usize,
    n_nodes: usize,
    links: &[(NodeId, NodeId)],
    out: &[Vec<LinkId>],
) -> Vec<Option<LinkId>> {
    let mut row = vec![None; n_nodes];
    let mut seen = vec![false; n_nodes];
    let mut q = VecDeque::new();
    seen[src] = true;
    for &l in &out[src] {
        let to = links[l.index()].1.index();
        if !seen[to] {
            seen[to] = true;
            row[to] = Some(l);
            q.push_back((to, l));
        }
    }
    while let Some((node, first)) = q.pop_front() {
        for &l in &out[node] {
            let to = links[l.index()].1.index();
            if !seen[to] {
                seen[to] = true;
                row[to] = Some(first);
                q.push_back((to, first));
            }
        }
    }
    row
}

/// [`Ecmp::Destination`]: for every destination, hop distances by a backwards
/// breadth-first search, shortest-path counts in order of distance, then each node's choice.
fn spread(
    rows: &mut [Vec<Option<LinkId>>],
    multi: &[usize],
    n_nodes: usize,
    links: &[(NodeId, NodeId)],
    out: &[Vec<LinkId>],
    hosts: &[bool],
) {
    let mut inc: Vec<Vec<usize>> = vec![Vec::new(); n_nodes];
    for &(a, b) in links {
        inc[b.index()].push(a.index());
    }
    // Destination numbers: hosts 0, 1, ... in node (name) order, then the routers.
    let mut rank = vec![0u64; n_nodes];
    let mut next = 0;
    for pass in [true, false] {
        for (n, r) in rank.iter_mut().enumerate() {
            if hosts.get(n).copied().unwrap_or(false) == pass {
                *r = next;
                next += 1;
            }
        }
    }
    const FAR: u32 = u32::MAX;
    let mut dist = vec![FAR; n_nodes];
    let mut count = vec![0u64; n_nodes];
    let mut order = Vec::with_capacity(n_nodes);
    for d in 0..n_nodes {
        dist.fill(FAR);
        order.clear();
        dist[d] = 0;
        order.push(d);
        let mut i = 0;
        while i < order.len() {
            let n = order[i];
            i += 1;
            for &m in &inc[n] {
                if dist[m] == FAR {
                    dist[m] = dist[n] + 1;
                    order.push(m);
                }
            }
        }
        // Path counts, nearest first (every next hop is one step nearer, so done).
        count[d] = 1;
        for &n in &order[1..] {
            count[n] = out[n]
                .iter()
                .map(|l| links[l.index()].1.index())
                .filter(|&m| dist[m] != FAR && dist[m] + 1 == dist[n])
                .fold(0u64, |s, m| s.saturating_add(count[m]));
        }
        for &n in multi {
            if n == d || dist[n] == FAR {
                continue;
            }
            let mut q = rank[d] % count[n].max(1);
            let mut pick = None;
            for &l in &out[n] {
                let m = links[l.index()].1.index();
                if dist[m] == FAR || dist[m] + 1 != dist[n] {
                    continue;
                }
                pick.get_or_insert(l);
                if q < count[m] {
                    pick = Some(l);
                    break;
                }
                q -= count[m];
            }
            rows[n][d] = pick;
        }
    }
}

impl Routes {
    /// The first link from `node` towards `dst` (`None`: unreachable, or `dst == node` for
    /// a node with a table; a node without one answers its uplink).
    pub fn next(&self, node: NodeId, dst: NodeId) -> Option<LinkId> {
        match self.rows[node.index()].get(dst.index()) {
            Some(r) => *r,
            None => self.uplink[node.index()],
        }
    }
}

/// The links a packet crosses from `src` to `dst`, if reachable; `next(node, dst)` gives
/// the first link from a node.
pub fn path(
    next: impl Fn(NodeId, NodeId) -> Option<LinkId>,
    links: &[(NodeId, NodeId)],
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<LinkId>> {
    let mut at = src;
    let mut p = Vec::new();
    while at != dst {
        let l = next(at, dst)?;
        p.push(l);
        at = links[l.index()].1;
        if p.len() > links.len() {
            return None;
        }
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(pairs: &[(u32, u32)]) -> Vec<(NodeId, NodeId)> {
        pairs.iter().map(|&(a, b)| (NodeId(a), NodeId(b))).collect()
    }

    fn links(ids: &[u32]) -> Vec<LinkId> {
        ids.iter().map(|&l| LinkId(l)).collect()
    }

    fn route_path(r: &Routes, pairs: &[(NodeId, NodeId)], a: u32, b: u32) -> Option<Vec<LinkId>> {
        path(|n, d| r.next(n, d), pairs, NodeId(a), NodeId(b))
    }

    #[test]
    fn dumbbell_routes_through_bottleneck() {
        // 0,1 -> 2 == 3 -> 4,5 (duplex as pairs)
        let pairs = nodes(&[
            (0, 2),
            (2, 0),
            (1, 2),
            (2, 1),
            (2, 3),
            (3, 2),
            (3, 4),
            (4, 3),
            (3, 5),
            (5, 3),
        ]);
        for ecmp in [Ecmp::First, Ecmp::Destination] {
            let r = routes(6, &pairs, ecmp, &[true, true, false, false, true, true]);
            assert_eq!(route_path(&r, &pairs, 0, 4), Some(links(&[0, 4, 6])));
            assert_eq!(route_path(&r, &pairs, 5, 1), Some(links(&[9, 5, 3])));
            // Hosts keep no table; the routers do.
            assert!(r.rows[0].is_empty() && r.uplink[0] == Some(LinkId(0)));
            assert_eq!(r.rows[2].len(), 6);
            assert_eq!(r.next(NodeId(2), NodeId(2)), None);
        }
    }

    #[test]
    fn one_way_link_leaves_reverse_unreachable() {
        let pairs = nodes(&[(0, 1)]);
        let r = routes(2, &pairs, Ecmp::First, &[true, true]);
        assert_eq!(r.next(NodeId(0), NodeId(1)), Some(LinkId(0)));
        assert_eq!(r.next(NodeId(1), NodeId(0)), None);
        assert_eq!(route_path(&r, &pairs, 1, 0), None);
    }

    /// A diamond with four branches, 0 -> {1, 2, 3, 4} -> 5 -> 6: per-flow ECMP spreads the
    /// flows to the one host 6 over the four branches, keeps each flow on one, and changes
    /// its choice with the seed; the dumbbell part (one next hop) keeps the plain table.
    #[test]
    fn per_flow_ecmp_spreads_flows_to_one_host_and_keeps_each_on_one_path() {
        use crate::ids::FlowId;
        let mut p = vec![];
        for b in 1..=4 {
            p.push((0, b));
            p.push((b, 5));
        }
        p.push((5, 6));
        let pairs = nodes(&p);
        let hosts = [true, false, false, false, false, false, true];
        let r = routes(7, &pairs, Ecmp::Flow { seed: 1 }, &hosts);
        let t = r.flow_ecmp[0].as_deref().expect("node 0 has a choice");
        assert_eq!(t.candidates(NodeId(6)), &links(&[0, 2, 4, 6])[..]);
        assert!(r.flow_ecmp[5].is_none(), "node 5 has one way to 6");
        let branch = |t: &FlowEcmp, f: u32| t.pick(NodeId(6), FlowId(f)).unwrap().0 / 2;
        let mut per = [0u32; 4];
        for f in 0..4000 {
            let b = branch(t, f);
            assert_eq!(b, branch(t, f), "one flow, one path");
            per[b as usize] += 1;
        }
        // Binomial(4000, 1/4): mean 1000, sd 27; 6 sd either way.
        assert!(per.iter().all(|&c| (840..=1160).contains(&c)), "{per:?}");
        // The first shortest path is still in the rows (paths for checks and reports).
        assert_eq!(r.next(NodeId(0), NodeId(6)), Some(LinkId(0)));
        // Another seed, another salt: the choices change for about 3/4 of the flows.
        let r2 = routes(7, &pairs, Ecmp::Flow { seed: 2 }, &hosts);
        let t2 = r2.flow_ecmp[0].as_deref().unwrap();
        let moved = (0..4000).filter(|&f| branch(t, f) != branch(t2, f)).count();
        assert!((2700..=3300).contains(&moved), "{moved}");
        // The same seed: the same table.
        let r3 = routes(7, &pairs, Ecmp::Flow { seed: 1 }, &hosts);
        let t3 = r3.flow_ecmp[0].as_deref().unwrap();
        assert!((0..4000).all(|f| branch(t, f) == branch(t3, f)));
    }

    /// A diamond 0 -> {1, 2} -> 3 with a stub host behind 3: `First` always takes link 0,
    /// `Destination` spreads destinations over both branches by their host number.
    #[test]
    fn ties_first_or_spread_by_destination() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4, 3 -> 5, and back links to 0 for 4, 5.
        let pairs = nodes(&[
            (0, 1),
            (0, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (3, 5),
            (4, 3),
            (5, 3),
            (3, 1),
            (1, 0),
        ]);
        let hosts = [false, false, false, false, true, true];
        let first = routes(6, &pairs, Ecmp::First, &hosts);
        assert_eq!(first.next(NodeId(0), NodeId(4)), Some(LinkId(0)));
        assert_eq!(first.next(NodeId(0), NodeId(5)), Some(LinkId(0)));
        let spread = routes(6, &pairs, Ecmp::Destination, &hosts);
        // Host 4 is number 0, host 5 number 1: two paths each, one per branch.
        assert_eq!(spread.next(NodeId(0), NodeId(4)), Some(LinkId(0)));
        assert_eq!(spread.next(NodeId(0), NodeId(5)), Some(LinkId(1)));
        assert_eq!(route_path(&spread, &pairs, 0, 5), Some(links(&[1, 3, 5])));
    }
}

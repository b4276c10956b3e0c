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
//!   to one host takes one path (per-flow ECMP would need per-flow routes, which tcplab
//!   does not have).
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
}

/// Routes of every node.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    /// Per node: the first link towards each destination node, for nodes with several
    /// outgoing link directions; empty for the others (they use `uplink`).
    pub rows: Vec<Vec<Option<LinkId>>>,
    /// Per node: its only outgoing link direction, if it has exactly one.
    pub uplink: Vec<Option<LinkId>>,
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
    }
    r
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

//! Static shortest-path routing (fewest hops; ties go to the link declared first).

use crate::event::{LinkId, NodeId};
use std::collections::VecDeque;

/// `table[src][dst]` = first link on a shortest path from `src` to `dst`.
pub fn shortest_paths(n_nodes: usize, links: &[(NodeId, NodeId)]) -> Vec<Vec<Option<LinkId>>> {
    let mut out_links: Vec<Vec<LinkId>> = vec![Vec::new(); n_nodes];
    for (i, &(a, _)) in links.iter().enumerate() {
        out_links[a.index()].push(LinkId::from_index(i));
    }
    let mut table = vec![vec![None; n_nodes]; n_nodes];
    let mut q = VecDeque::new();
    for src in 0..n_nodes {
        let mut seen = vec![false; n_nodes];
        seen[src] = true;
        q.clear();
        for &l in &out_links[src] {
            let to = links[l.index()].1.index();
            if !seen[to] {
                seen[to] = true;
                table[src][to] = Some(l);
                q.push_back((to, l));
            }
        }
        while let Some((node, first)) = q.pop_front() {
            for &l in &out_links[node] {
                let to = links[l.index()].1.index();
                if !seen[to] {
                    seen[to] = true;
                    table[src][to] = Some(first);
                    q.push_back((to, first));
                }
            }
        }
    }
    table
}

/// The links a packet crosses from `src` to `dst`, if reachable.
pub fn path(
    table: &[Vec<Option<LinkId>>],
    links: &[(NodeId, NodeId)],
    src: NodeId,
    dst: NodeId,
) -> Option<Vec<LinkId>> {
    let mut at = src;
    let mut p = Vec::new();
    while at != dst {
        let l = table[at.index()][dst.index()]?;
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
        let t = shortest_paths(6, &pairs);
        assert_eq!(
            path(&t, &pairs, NodeId(0), NodeId(4)),
            Some(links(&[0, 4, 6]))
        );
        assert_eq!(
            path(&t, &pairs, NodeId(5), NodeId(1)),
            Some(links(&[9, 5, 3]))
        );
        assert_eq!(t[0][0], None);
    }

    #[test]
    fn one_way_link_leaves_reverse_unreachable() {
        let t = shortest_paths(2, &nodes(&[(0, 1)]));
        assert_eq!(t[0][1], Some(LinkId(0)));
        assert_eq!(t[1][0], None);
    }
}

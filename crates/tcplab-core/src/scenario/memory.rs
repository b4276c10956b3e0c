//! The built scenario's memory, estimated before anything is built (issue 32: a scenario
//! file is data; its size is bounded before it can exhaust the machine).
//!
//! Bytes per element, from docs/performance.md's "Memory" table (`size_of` and RSS
//! measurements), rounded up to cover the kept specification, names and allocator slack:
//! a flow 4 KiB (state 1 120 B inline, receiver deque, its `FlowSpec` ~2.6 KB), a link
//! direction 2 KiB (848 B inline plus its `LinkSpec`), a node 512 B, and 8 B per route
//! entry (a node with more than one outgoing direction keeps one entry per node). Packets
//! in flight are not counted: no queue reserves storage up front (pipes and queues grow by
//! doubling to what the run holds).

use super::{Scenario, ScenarioError};

pub const FLOW_BYTES: u64 = 4096;
pub const LINK_BYTES: u64 = 2048;
pub const NODE_BYTES: u64 = 512;
pub const ROUTE_ENTRY_BYTES: u64 = 8;

/// The memory limit a build is checked against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryLimit {
    /// Half of the machine's available memory (`MemAvailable` in /proc/meminfo); no check
    /// where that cannot be read.
    #[default]
    Auto,
    /// At most this many bytes (`--max-memory`, `tcplab.run(..., max_memory=...)`).
    Bytes(u64),
}

/// One contributor to the estimate: (the scenario key it comes from, what, bytes).
pub type Part = (&'static str, String, u64);

/// The estimate: each contributor with its bytes.
pub fn estimate(sc: &Scenario) -> Vec<Part> {
    let n_nodes = sc.nodes.len() as u64;
    let n_links = sc.links.len() as u64;
    let n_flows = sc.flows.len() as u64;
    let mut out_degree = std::collections::HashMap::<&str, u32>::new();
    for l in sc.links.values() {
        *out_degree.entry(l.from.as_str()).or_default() += 1;
    }
    let routers = out_degree.values().filter(|&&d| d > 1).count() as u64;
    vec![
        (
            "flows",
            format!("{n_flows} flows × {} KiB", FLOW_BYTES / 1024),
            n_flows * FLOW_BYTES,
        ),
        (
            "links",
            format!("{n_links} link directions × {} KiB", LINK_BYTES / 1024),
            n_links * LINK_BYTES,
        ),
        (
            "nodes",
            format!("{n_nodes} nodes × {NODE_BYTES} B"),
            n_nodes * NODE_BYTES,
        ),
        (
            "nodes",
            format!("route tables: {routers} nodes with several links × {n_nodes} entries × {ROUTE_ENTRY_BYTES} B"),
            routers * n_nodes * ROUTE_ENTRY_BYTES,
        ),
    ]
}

/// Half of `MemAvailable` from /proc/meminfo, in bytes.
fn auto_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 2)
}

/// "1.5 GB"-style size for messages.
pub fn human(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).ceil())
    }
}

/// Refuse a scenario whose estimate exceeds `limit`, naming the largest contributor.
pub fn check(sc: &Scenario, limit: MemoryLimit) -> Result<(), ScenarioError> {
    check_copies(sc, 1, limit)
}

/// [`check`] for `copies` copies of the built scenario (a parallel run keeps one per
/// partition and the template its results are merged into).
pub fn check_copies(sc: &Scenario, copies: u64, limit: MemoryLimit) -> Result<(), ScenarioError> {
    let (max, why) = match limit {
        MemoryLimit::Bytes(b) => (b, "the limit given (--max-memory / max_memory)".to_string()),
        MemoryLimit::Auto => match auto_limit() {
            Some(b) => (b, "half of this machine's available memory".to_string()),
            None => return Ok(()),
        },
    };
    let parts = estimate(sc);
    let total: u64 = parts
        .iter()
        .map(|p| p.2)
        .sum::<u64>()
        .saturating_mul(copies);
    if total <= max {
        return Ok(());
    }
    let (key, what, bytes) = parts.iter().max_by_key(|p| p.2).expect("four parts");
    let (key, copies_note) = if copies > 1 {
        (
            "threads",
            format!(" for {copies} copies (one per thread and the merged result)"),
        )
    } else {
        (*key, String::new())
    };
    Err(ScenarioError::new(
        key,
        format!(
            "the built scenario would need about {}{copies_note} (largest: {what} = {}), above {} ({why}); \
             shrink the scenario{} or raise the limit with --max-memory SIZE",
            human(total),
            human(*bytes),
            human(max),
            if copies > 1 { ", use fewer threads" } else { "" }
        ),
    ))
}

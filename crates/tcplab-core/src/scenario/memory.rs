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
/// Per interval row (a flow's one interval): measured as peak RSS of `tcplab run` over
/// 800 000 rows (4 flows, 200 000 intervals), about 300 B each: the core's row, its
/// Arrow copy and the Parquet writer.
pub const INTERVAL_ROW_BYTES: u64 = 320;
/// Per trace sample of one flow or link (`metrics.trace`): likewise about 170 B measured
/// over 4.4 million rows (4 flows and 18 link directions, 200 000 samples).
pub const TRACE_ROW_BYTES: u64 = 192;

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
    let generated = workload_flows(sc);
    let mut parts = vec![
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
    ];
    // Results that grow with simulated time: a row per flow and interval, and per flow and
    // link and trace sample (event traces, `metrics.events`, grow with what happens and are
    // not estimated).
    let secs = sc.duration.0.as_secs_f64();
    // Counts above the build's own ceiling (MAX_SAMPLES) are left to its sharper error.
    let per = |d: crate::time::SimDuration| {
        let k = (secs / d.as_secs_f64()).ceil().min(1e18) as u64;
        if k > super::build::MAX_SAMPLES {
            0
        } else {
            k
        }
    };
    let interval = sc.metrics.interval.0;
    if interval.0 > 0 && n_flows > 0 {
        let k = per(interval);
        parts.push((
            "metrics.interval",
            format!(
                "{} interval rows ({n_flows} flows × {k} intervals) × {INTERVAL_ROW_BYTES} B",
                n_flows.saturating_mul(k)
            ),
            n_flows.saturating_mul(k).saturating_mul(INTERVAL_ROW_BYTES),
        ));
    }
    if let Some(tr) = sc.metrics.trace.filter(|t| t.0 .0 > 0) {
        let k = per(tr.0);
        let rows = (n_flows + n_links).saturating_mul(k);
        parts.push((
            "metrics.trace",
            format!(
                "{rows} trace rows ({} flows and links × {k} samples) × {TRACE_ROW_BYTES} B",
                n_flows + n_links
            ),
            rows.saturating_mul(TRACE_ROW_BYTES),
        ));
    }
    if generated > 0 {
        parts.push((
            "workloads",
            format!(
                "about {generated} workload flows × {} KiB",
                FLOW_BYTES / 1024
            ),
            generated.saturating_mul(FLOW_BYTES),
        ));
    }
    parts
}

/// The expected number of flows the workloads generate: each source's arrival rate times
/// its arrival window (each host's rate is its first link's), or the incast rounds times
/// their senders. Malformed keys count nothing here (the build names them).
pub fn workload_flows(sc: &Scenario) -> u64 {
    use crate::app::workload::WorkloadSpec;
    let end = sc.duration.0.as_secs_f64();
    let hosts: Vec<&str> = sc
        .nodes
        .iter()
        .filter(|(_, k)| **k == super::NodeKindSpec::Host)
        .map(|(n, _)| n.as_str())
        .collect();
    let rate_of = |h: &str| {
        sc.links
            .values()
            .find(|l| l.from == h)
            .map(|l| l.rate.0.bps())
            .unwrap_or(0) as f64
    };
    let window = |a: Option<crate::config::units::DurationValue>,
                  b: Option<crate::config::units::DurationValue>| {
        let a = a.map_or(0.0, |d| d.0.as_secs_f64());
        let b = b.map_or(end, |d| d.0.as_secs_f64().min(end));
        (b - a).max(0.0)
    };
    let mut n = 0f64;
    for w in sc.workloads.values() {
        match w {
            WorkloadSpec::Load(l) => {
                let Ok(cdf) = l.sizes.cdf("") else { continue };
                // The template's segment and header sizes (expansion wrote its profile's
                // there), else the schema's defaults.
                let key = |k: &str, d: u32| {
                    l.flow
                        .as_ref()
                        .and_then(|f| f.get(k))
                        .and_then(serde_json::Value::as_u64)
                        .map_or(d, |v| v.clamp(1, u32::MAX as u64) as u32)
                };
                let mean_wire = cdf.mean_wire(key("mss", 1460), key("header", 40));
                let from: Vec<&str> = match &l.from {
                    Some(v) => v.iter().map(String::as_str).collect(),
                    None => hosts.clone(),
                };
                let c: f64 = match &l.load_of {
                    Some(link) => sc.links.get(link).map_or(0.0, |x| x.rate.0.bps() as f64),
                    None => from.iter().map(|h| rate_of(h)).sum(),
                };
                if l.load.is_finite() && l.load > 0.0 {
                    n += l.load.min(1.0) * c / (8.0 * mean_wire.max(1.0)) * window(l.start, l.stop);
                }
            }
            WorkloadSpec::Incast(i) => {
                let t = window(i.start, i.stop);
                let rounds = match (i.period, i.rate) {
                    (Some(p), _) if p.0 .0 > 0 => t / p.0.as_secs_f64() + 1.0,
                    (_, Some(r)) if r.is_finite() && r > 0.0 => r * t + 1.0,
                    _ => 0.0,
                };
                let rounds = i.rounds.map_or(rounds, |r| rounds.min(r as f64));
                n += rounds * i.senders as f64;
            }
        }
    }
    n.min(u64::MAX as f64) as u64
}

/// The builders' element counts read from the raw document, before expansion writes
/// them out (a 65,536-pair dumbbell took 5.5 s to expand before [`check`] could refuse it;
/// found by the `sizes_bounded` fuzz target). Keys that are missing, malformed or not
/// counts are left to expansion's own checks; counts saturate. Returns the parts of
/// [`estimate`] with the builder key each comes from.
pub fn estimate_builders(doc: &serde_json::Value) -> Vec<Part> {
    let n = |v: Option<&serde_json::Value>| v.and_then(serde_json::Value::as_u64);
    // A flow group's `count` (default 1; a list in place of a field does not change it).
    let groups = |v: Option<&serde_json::Value>| -> u64 {
        v.and_then(serde_json::Value::as_array).map_or(0, |gs| {
            gs.iter()
                .map(|g| n(g.get("count")).unwrap_or(1))
                .fold(0u64, u64::saturating_add)
        })
    };
    let mut out: Vec<Part> = Vec::new();
    let mut push = |key: &'static str, nodes: u64, routers: u64, links: u64, flows: u64| {
        out.push((
            key,
            format!("{links} link directions × {} KiB", LINK_BYTES / 1024),
            links.saturating_mul(LINK_BYTES),
        ));
        out.push((
            key,
            format!("{nodes} nodes × {NODE_BYTES} B, route tables of {routers} nodes"),
            nodes.saturating_mul(NODE_BYTES).saturating_add(
                routers
                    .saturating_mul(nodes)
                    .saturating_mul(ROUTE_ENTRY_BYTES),
            ),
        ));
        out.push((
            key,
            format!("{flows} flows × {} KiB", FLOW_BYTES / 1024),
            flows.saturating_mul(FLOW_BYTES),
        ));
    };
    if let Some(d) = doc.get("dumbbell") {
        if let Some(p) = n(d.get("pairs")) {
            let flows = groups(d.get("flows"));
            push(
                "dumbbell.pairs",
                p.saturating_mul(2).saturating_add(2),
                2,
                p.saturating_mul(4).saturating_add(2),
                flows,
            );
        }
    }
    if let Some(d) = doc.get("parking_lot") {
        if let Some(k) = n(d.get("hops")) {
            let flows =
                groups(d.get("flows")).saturating_add(k.saturating_mul(groups(d.get("cross"))));
            let nodes = k.saturating_add(1).saturating_mul(3);
            push(
                "parking_lot.hops",
                nodes,
                k.saturating_add(1),
                k.saturating_mul(6).saturating_add(4),
                flows,
            );
        }
    }
    if let Some(d) = doc.get("fat_tree") {
        if let Some(k) = n(d.get("k")) {
            let k3 = k.saturating_mul(k).saturating_mul(k);
            let hosts = k3 / 4;
            let switches = k.saturating_mul(k).saturating_mul(5) / 4;
            let flows = match d.get("traffic").and_then(serde_json::Value::as_str) {
                Some("permutation") => hosts,
                Some("all_to_all") => hosts.saturating_mul(hosts.saturating_sub(1)),
                _ => 0,
            };
            push(
                "fat_tree.k",
                hosts.saturating_add(switches),
                switches,
                k3.saturating_mul(3) / 2,
                flows,
            );
        }
    }
    out
}

/// [`check`] on the builders' counts before expansion ([`estimate_builders`]); the error
/// names the builder key whose elements weigh most.
pub fn check_builders(doc: &serde_json::Value, limit: MemoryLimit) -> Result<(), ScenarioError> {
    let parts = estimate_builders(doc);
    if parts.is_empty() {
        return Ok(());
    }
    check_parts(&parts, 1, limit)
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
    check_parts(&estimate(sc), copies, limit)
}

/// The limit check shared by [`check_copies`] and [`check_builders`]: `copies` times the
/// parts' sum against `limit`; the error names the largest part's key (or `threads`).
fn check_parts(parts: &[Part], copies: u64, limit: MemoryLimit) -> Result<(), ScenarioError> {
    let (max, why) = match limit {
        MemoryLimit::Bytes(b) => (b, "the limit given (--max-memory / max_memory)".to_string()),
        MemoryLimit::Auto => match auto_limit() {
            Some(b) => (b, "half of this machine's available memory".to_string()),
            None => return Ok(()),
        },
    };
    // The result rows (`metrics.*` parts) are kept once: each partition holds its own
    // flows' and links' rows, merged at the end.
    let sum = |results: bool| {
        parts
            .iter()
            .filter(|p| p.0.starts_with("metrics.") == results)
            .map(|p| p.2)
            .fold(0u64, u64::saturating_add)
    };
    let total = sum(false).saturating_mul(copies).saturating_add(sum(true));
    if total <= max {
        return Ok(());
    }
    let (key, what, bytes) = parts.iter().max_by_key(|p| p.2).expect("some parts");
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
             {} or raise the limit with --max-memory SIZE",
            human(total),
            human(*bytes),
            human(max),
            match (copies > 1, key.starts_with("metrics.")) {
                (_, true) => format!("write a longer {key} or a shorter duration"),
                (true, false) => "shrink the scenario, use fewer threads".to_string(),
                (false, false) => "shrink the scenario".to_string(),
            }
        ),
    ))
}

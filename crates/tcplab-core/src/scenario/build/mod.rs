//! From a parsed [`Scenario`] to a runnable [`Sim`], with semantic validation.
//!
//! One file per part of the scenario: [`links`] (link directions and their queues),
//! [`flows`] (transport, congestion control, applications), [`analysis`] (closed-form
//! models), [`pcap`] (packet capture files, opened by the front ends), [`schedules`] (flow
//! schedules). [`build`] calls them
//! in order; each error names its field.

mod analysis;
mod flows;
mod links;
pub use links::outage_periods;
mod pcap;
mod schedules;
mod workloads;

use super::{EcmpSpec, NodeKindSpec, Scenario, ScenarioError};
use crate::analysis::AnyAnalysis;
use crate::event::{LinkId, NodeId};
use crate::net::{routing, Node, NodeKind};
use crate::sim::{MetricsConfig, Sim};
use crate::stats::events::{EventKind, EventSet};
use crate::tcp::TcpConfig;
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;

/// A built simulation plus what the summary needs to describe it.
pub struct Built {
    pub sim: Sim,
    pub scenario: Scenario,
    pub seed: u64,
    /// Per flow: algorithm name, path (link ids), transport config.
    pub flow_meta: Vec<FlowMeta>,
    /// The closed-form analysis the scenario configured (`[analysis]`).
    pub analysis: Option<AnyAnalysis>,
}

#[derive(Clone, Debug)]
pub struct FlowMeta {
    pub cc: String,
    /// `flows.NAME.group`.
    pub group: Option<String>,
    /// The flow has a positive `start_jitter` (a random start: seeds differ).
    pub jittered: bool,
    pub path: Vec<LinkId>,
    pub tcp: TcpConfig,
}

pub(crate) use crate::config::known_names as known;

/// Node and link names to ids, with errors that name the field and list the known names.
pub(super) struct Names<'a> {
    sc: &'a Scenario,
    nodes: BTreeMap<&'a str, NodeId>,
    links: BTreeMap<&'a str, LinkId>,
}

impl<'a> Names<'a> {
    fn new(sc: &'a Scenario) -> Self {
        Names {
            sc,
            nodes: sc
                .nodes
                .keys()
                .enumerate()
                .map(|(i, n)| (n.as_str(), NodeId::from_index(i)))
                .collect(),
            links: sc
                .links
                .keys()
                .enumerate()
                .map(|(i, n)| (n.as_str(), LinkId::from_index(i)))
                .collect(),
        }
    }
    pub(super) fn node(&self, field: String, name: &str) -> Result<NodeId, ScenarioError> {
        self.nodes.get(name).copied().ok_or_else(|| {
            ScenarioError::new(
                field,
                format!(
                    "unknown node '{name}' ({})",
                    known(self.sc.nodes.keys().cloned())
                ),
            )
        })
    }
    pub(super) fn link(&self, field: String, name: &str) -> Result<LinkId, ScenarioError> {
        self.links.get(name).copied().ok_or_else(|| {
            ScenarioError::new(
                field,
                format!(
                    "unknown link '{name}' ({})",
                    known(self.sc.links.keys().cloned())
                ),
            )
        })
    }
}

/// Validate `sc` and build the simulation. `seed` overrides `sc.seed` when given.
pub fn build(sc: Scenario, seed: Option<u64>) -> Result<Built, ScenarioError> {
    let seed = seed.unwrap_or(sc.seed);
    let duration = sc.duration.0;
    if duration == SimDuration::ZERO {
        return Err(ScenarioError::new("duration", "must be positive"));
    }
    if sc.nodes.is_empty() {
        return Err(ScenarioError::new("nodes", "at least one node is needed"));
    }
    let max_ids = crate::event::MAX_EVENT_ID as usize + 1;
    if sc.links.len() > max_ids {
        return Err(ScenarioError::new(
            "links",
            format!("at most {max_ids} link directions"),
        ));
    }
    if sc.nodes.len() > max_ids {
        return Err(ScenarioError::new(
            "nodes",
            format!("at most {max_ids} nodes"),
        ));
    }
    if sc.flows.len() > max_ids {
        return Err(ScenarioError::new(
            "flows",
            format!("at most {max_ids} flows"),
        ));
    }
    let names = Names::new(&sc);
    let (links, ends) = links::links(&sc, &names, seed)?;
    let hosts: Vec<bool> = sc
        .nodes
        .values()
        .map(|k| *k == NodeKindSpec::Host)
        .collect();
    let ecmp = match sc.routing.ecmp {
        EcmpSpec::First => routing::Ecmp::First,
        EcmpSpec::Destination => routing::Ecmp::Destination,
        EcmpSpec::Flow => routing::Ecmp::Flow { seed },
    };
    let routing::Routes {
        rows,
        uplink,
        flow_ecmp,
    } = routing::routes(sc.nodes.len(), &ends, ecmp, &hosts);
    let nodes: Vec<Node> = sc
        .nodes
        .iter()
        .zip(rows.into_iter().zip(uplink))
        .map(|((name, k), (routes, uplink))| Node {
            name: name.as_str().into(),
            kind: match k {
                NodeKindSpec::Host => NodeKind::Host,
                NodeKindSpec::Router => NodeKind::Router,
            },
            routes,
            uplink,
            agent: None,
        })
        .collect();
    let mut nodes = nodes;
    let agents = agents(&sc, &names, &mut nodes, &ends)?;

    // Per-flow ECMP tables, by node (none unless a node has a choice).
    let flow_ecmp = if flow_ecmp.iter().any(Option::is_some) {
        flow_ecmp
    } else {
        Vec::new()
    };
    let generated =
        workloads::workloads(&sc, &names, &nodes, &links, seed, max_ids - sc.flows.len())?;
    let wl_names: Vec<&str> = sc.workloads.keys().map(String::as_str).collect();
    let entries: Vec<flows::Entry> = sc
        .flows
        .iter()
        .map(|(n, f)| flows::Entry {
            name: n,
            field: format!("flows.{n}"),
            spec: f,
            workload: None,
        })
        .chain(generated.iter().map(|g| flows::Entry {
            name: &g.name,
            field: g.field.clone(),
            spec: &g.spec,
            workload: Some(wl_names[g.workload as usize]),
        }))
        .collect();
    let (mut flows, meta) =
        flows::flows(&entries, &names, &nodes, &flow_ecmp, &ends, &links, seed)?;
    drop(entries);
    drop(generated);
    let schedules = schedules::schedules(&sc, &mut flows, duration)?;
    let metrics = metrics(&sc, duration)?;
    let analysis = analysis::analysis(&sc, &flows, &meta)?;
    let mut sim = Sim::new(SimTime::ZERO + duration, nodes, links, flows, metrics);
    sim.schedules = schedules;
    sim.agents = agents;
    sim.flow_ecmp = flow_ecmp;
    Ok(Built {
        sim,
        scenario: sc,
        seed,
        flow_meta: meta,
        analysis,
    })
}

/// `[agents]`: one agent per node at most, on a link direction leaving that node.
fn agents(
    sc: &Scenario,
    names: &Names,
    nodes: &mut [Node],
    ends: &[(NodeId, NodeId)],
) -> Result<Vec<crate::net::snoop::AnyAgent>, ScenarioError> {
    use crate::net::snoop::{AgentSpec, AnyAgent};
    let mut out = Vec::new();
    for (name, spec) in &sc.agents {
        let f = format!("agents.{name}");
        let AgentSpec::Snoop(s) = spec;
        let node = names.node(format!("{f}.node"), &s.node)?;
        let link = names.link(format!("{f}.wireless"), &s.wireless)?;
        if ends[link.index()].0 != node {
            return Err(ScenarioError::new(
                format!("{f}.wireless"),
                format!("link '{}' does not leave node '{}'", s.wireless, s.node),
            ));
        }
        let n = &mut nodes[node.index()];
        if n.agent.is_some() {
            return Err(ScenarioError::new(
                format!("{f}.node"),
                format!("node '{}' already has an agent", s.node),
            ));
        }
        n.agent = Some(out.len() as u32);
        out.push(AnyAgent::Snoop(Box::new(s.build(
            &f,
            link,
            sc.flows.len(),
        )?)));
    }
    Ok(out)
}
/// Most intervals (`duration / metrics.interval`) or trace samples a run may have.
pub const MAX_SAMPLES: u64 = 10_000_000;

/// `[metrics]`: interval, steady-state start, trace period, event traces.
fn metrics(sc: &Scenario, duration: SimDuration) -> Result<MetricsConfig, ScenarioError> {
    use super::expand::fmt_duration;
    let m = &sc.metrics;
    if let Some(b) = &m.fct_buckets {
        for (i, e) in b.iter().enumerate() {
            if e.0 == 0 || (i > 0 && e.0 <= b[i - 1].0) {
                return Err(ScenarioError::new(
                    format!("metrics.fct_buckets[{i}]"),
                    "bucket edges must be positive and increase",
                ));
            }
        }
    }
    if m.interval.0 == SimDuration::ZERO {
        return Err(ScenarioError::new("metrics.interval", "must be positive"));
    }
    if m.steady_start.0 >= duration {
        // Say the fix in the same line (a shorter `--set duration=...` hits this first).
        return Err(ScenarioError::new(
            "metrics.steady_start",
            format!(
                "{} is not before the end of the run (duration {}): set it below the \
                 duration too, e.g. --set metrics.steady_start={}",
                fmt_duration(m.steady_start.0 .0),
                fmt_duration(duration.0),
                fmt_duration(duration.0 / 2)
            ),
        ));
    }
    if m.trace.is_some_and(|t| t.0 == SimDuration::ZERO) {
        return Err(ScenarioError::new(
            "metrics.trace",
            "period must be positive",
        ));
    }
    // Every interval (and trace sample) is a row per flow kept in memory: a period that
    // divides the run into more than MAX_SAMPLES would exhaust memory long before the end.
    let periods = [
        ("metrics.interval", Some(m.interval.0)),
        ("metrics.trace", m.trace.map(|t| t.0)),
    ];
    for (field, period) in periods {
        if let Some(p) = period {
            let n = duration.0 / p.0;
            if n > MAX_SAMPLES {
                return Err(ScenarioError::new(
                    field,
                    format!("divides the run ({duration}) into {n} periods; at most {MAX_SAMPLES} (a row per flow each, kept in memory): use a longer period"),
                ));
            }
        }
    }
    let mut events = EventSet::default();
    for (i, name) in m.events.iter().enumerate() {
        let kind = EventKind::from_name(name).ok_or_else(|| {
            ScenarioError::new(
                format!("metrics.events[{i}]"),
                format!(
                    "unknown event kind '{name}' ({})",
                    known(EventKind::ALL.iter().map(|k| k.name().to_string()))
                ),
            )
        })?;
        events.insert(kind);
    }
    Ok(MetricsConfig {
        interval: m.interval.0,
        steady_start: SimTime::ZERO + m.steady_start.0,
        trace: m.trace.map(|t| t.0),
        events,
    })
}

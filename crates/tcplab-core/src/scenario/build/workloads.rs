//! Workloads (`[workloads.NAME]`): the flows they generate, as flow specifications built
//! like the scenario's own flows (`app/workload.rs` draws them).

use super::Names;
use crate::app::workload::{Cx, Host, WorkloadSpec};
use crate::event::NodeId;
use crate::net::{Link, Node, NodeKind};
use crate::scenario::{FlowSpec, Scenario, ScenarioError};
use crate::time::SimTime;

/// One generated flow: its name, the field its errors name, its specification and its
/// workload's index.
pub(super) struct Generated {
    pub name: String,
    pub field: String,
    pub spec: FlowSpec,
    pub workload: u32,
}

/// Every host with its first-hop link's rate and far end.
fn hosts(nodes: &[Node], links: &[Link]) -> Vec<Host> {
    nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == NodeKind::Host)
        .map(|(i, n)| {
            let id = NodeId::from_index(i);
            let first = n
                .uplink
                .map(|l| &links[l.index()])
                .or_else(|| links.iter().find(|l| l.from == id));
            Host {
                name: n.name.to_string(),
                node: i as u32,
                rate_bps: first.map_or(0, |l| l.rate.bps()),
                rack: first.map_or(i as u32, |l| l.to.index() as u32),
            }
        })
        .collect()
}

/// The flow specification a workload's flows share: its `flow` table (expanded like a
/// flow's) with placeholder endpoints and application, checked once here.
fn template(name: &str, w: &WorkloadSpec, host: &str) -> Result<FlowSpec, ScenarioError> {
    let field = format!("workloads.{name}.flow");
    let mut t = match w.flow() {
        None => serde_json::Map::new(),
        Some(serde_json::Value::Object(m)) => m.clone(),
        Some(_) => return Err(ScenarioError::new(field, "must be a table of flow keys")),
    };
    for k in ["from", "to", "app"] {
        if t.contains_key(k) {
            return Err(ScenarioError::new(
                format!("{field}.{k}"),
                "is decided by the workload (its hosts and sizes); remove it",
            ));
        }
    }
    t.insert("from".into(), host.into());
    t.insert("to".into(), host.into());
    t.insert(
        "app".into(),
        serde_json::json!({ "type": "transfer", "bytes": 1 }),
    );
    t.entry("group").or_insert_with(|| name.into());
    let spec: FlowSpec = serde_path_to_error::deserialize(serde_json::Value::Object(t))
        .map_err(crate::scenario::path_error)
        .map_err(|e| {
            let sub = if e.field.is_empty() {
                String::new()
            } else {
                format!(".{}", e.field)
            };
            ScenarioError::new(format!("{field}{sub}"), e.reason)
        })?;
    if spec.transport != crate::scenario::TransportSpec::Tcp {
        return Err(ScenarioError::new(
            format!("{field}.transport"),
            "workload flows are TCP transfers",
        ));
    }
    Ok(spec)
}

/// The flows of every workload, workloads by name, each one's flows in identity order
/// (source host, arrival index). At most `max_flows` in all.
pub(super) fn workloads(
    sc: &Scenario,
    names: &Names,
    nodes: &[Node],
    links: &[Link],
    seed: u64,
    max_flows: usize,
) -> Result<Vec<Generated>, ScenarioError> {
    let mut out = Vec::new();
    if sc.workloads.is_empty() {
        return Ok(out);
    }
    let hosts = hosts(nodes, links);
    if hosts.len() < 2 {
        return Err(ScenarioError::new(
            "workloads",
            "a workload needs at least two hosts",
        ));
    }
    let end = SimTime::ZERO + sc.duration.0;
    for (ci, (name, w)) in sc.workloads.iter().enumerate() {
        let field = format!("workloads.{name}");
        if name.contains('/') {
            return Err(ScenarioError::new(
                field,
                "a workload's name may not contain '/' (its flows are named NAME/HOST/INDEX)",
            ));
        }
        let spec = template(name, w, &hosts[0].name)?;
        let load_of_bps = match w {
            WorkloadSpec::Load(l) => match &l.load_of {
                Some(n) => {
                    let id = names.link(format!("{field}.load_of"), n)?;
                    Some(links[id.index()].rate.bps())
                }
                None => None,
            },
            WorkloadSpec::Incast(_) => None,
        };
        let cx = Cx {
            field: &field,
            class: ci as u32,
            seed,
            hosts: &hosts,
            load_of_bps,
            mss: spec.mss.max(1),
            header: spec.header.unwrap_or(40),
            end,
            max_flows: max_flows.saturating_sub(out.len()),
        };
        for a in w.generate(&cx)? {
            let (src, dst) = (&hosts[a.src as usize], &hosts[a.dst as usize]);
            let mut f = spec.clone();
            f.from = src.name.clone();
            f.to = dst.name.clone();
            f.app = crate::app::AppSpec::Transfer(crate::app::transfer::TransferSpec {
                bytes: crate::config::units::SizeValue(a.bytes),
                start: Some(crate::config::units::DurationValue(
                    a.t.since(SimTime::ZERO),
                )),
            });
            out.push(Generated {
                name: format!("{name}/{}/{}", src.name, a.index),
                field: field.clone() + ".flow",
                spec: f,
                workload: ci as u32,
            });
        }
    }
    Ok(out)
}

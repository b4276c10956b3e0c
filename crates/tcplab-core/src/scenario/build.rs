//! From a parsed [`Scenario`] to a runnable [`Sim`], with semantic validation.

use super::{
    AppSpec, CcSpec, LimitSpec, NodeKindSpec, PartialAckTimerSpec, QueueSpec, RecoveryExitSpec,
    Scenario, ScenarioError, TwoWaySpec,
};
use crate::app::App;
use crate::cc::CcConfig;
use crate::event::{LinkId, NodeId};
use crate::net::{routing, Link, Node, NodeKind};
use crate::queue::{AckPriority, AnyQueue, BandwidthAllocation, DropTail, Limit};
use crate::rng::{SimRng, Stream};
use crate::sim::{Flow, MetricsConfig, Sim};
use crate::stats::pcap::PcapWriter;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::{PartialAckTimer, RecoveryExit, TcpConfig};
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A built simulation plus what the summary needs to describe it.
pub struct Built {
    pub sim: Sim,
    pub scenario: Scenario,
    pub seed: u64,
    /// Per flow: algorithm name, path (link ids), transport config.
    pub flow_meta: Vec<FlowMeta>,
    pub two_way: Option<TwoWaySpec>,
}

#[derive(Clone, Debug)]
pub struct FlowMeta {
    pub cc: String,
    pub path: Vec<LinkId>,
    pub tcp: TcpConfig,
}

fn known(names: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = names.collect();
    if v.is_empty() {
        "none defined".into()
    } else {
        format!("known: {}", v.join(", "))
    }
}

fn cc_config(field: &str, c: &CcSpec) -> Result<CcConfig, ScenarioError> {
    let reject = |name: &str, v: bool| -> Result<(), ScenarioError> {
        if v {
            Err(ScenarioError::new(
                format!("{field}.{name}"),
                format!("not a parameter of '{}'", c.algorithm),
            ))
        } else {
            Ok(())
        }
    };
    match c.algorithm.as_str() {
        "reno" | "newreno" => {
            reject("alpha", c.alpha.is_some())?;
            reject("beta", c.beta.is_some())?;
            reject("recovery", c.recovery.is_some())?;
            Ok(if c.algorithm == "reno" {
                CcConfig::Reno
            } else {
                CcConfig::NewReno
            })
        }
        "gaimd" => {
            let alpha = c.alpha.unwrap_or(1.0);
            let beta = c.beta.unwrap_or(0.5);
            if !(alpha > 0.0 && alpha.is_finite()) {
                return Err(ScenarioError::new(
                    format!("{field}.alpha"),
                    format!("must be positive, got {alpha}"),
                ));
            }
            if !(beta > 0.0 && beta < 1.0) {
                return Err(ScenarioError::new(
                    format!("{field}.beta"),
                    format!("must be in (0, 1), got {beta}"),
                ));
            }
            let newreno = match c.recovery.as_deref() {
                None | Some("reno") => false,
                Some("newreno") => true,
                Some(o) => {
                    return Err(ScenarioError::new(
                        format!("{field}.recovery"),
                        format!("unknown recovery '{o}' (known: reno, newreno)"),
                    ))
                }
            };
            Ok(CcConfig::Gaimd {
                alpha,
                beta,
                newreno,
            })
        }
        other => Err(ScenarioError::new(
            format!("{field}.algorithm"),
            format!("unknown algorithm '{other}' (known: reno, newreno, gaimd)"),
        )),
    }
}

impl Built {
    /// The pcap files the scenario asks for: (link id, path as written).
    pub fn pcap_specs(&self) -> Vec<(usize, &str)> {
        self.scenario
            .links
            .values()
            .enumerate()
            .filter_map(|(i, l)| l.pcap.as_deref().map(|p| (i, p)))
            .collect()
    }

    /// Create the pcap files of `links.*.pcap` (truncating existing ones) and attach their
    /// writers to the links. Relative paths are taken relative to `dir` (the current
    /// directory when `None`); no directory is created. With `log`, every capture also keeps
    /// the packets it records in memory (see [`crate::stats::pcap::PcapWriter::log`]).
    ///
    /// Building a scenario never touches files; the front ends call this before running.
    pub fn open_pcaps(&mut self, dir: Option<&Path>, log: bool) -> Result<(), ScenarioError> {
        let rwnd: Vec<u64> = self.flow_meta.iter().map(|m| m.tcp.max_window).collect();
        let specs: Vec<(usize, String, String)> = self
            .pcap_specs()
            .into_iter()
            .map(|(i, p)| (i, self.sim.links[i].name.clone(), p.to_string()))
            .collect();
        let resolved: Vec<(usize, String, PathBuf)> = specs
            .into_iter()
            .map(|(i, name, p)| {
                let path = match dir {
                    Some(d) if Path::new(&p).is_relative() => d.join(&p),
                    _ => PathBuf::from(&p),
                };
                (i, name, path)
            })
            .collect();
        // Check every path before creating any file, so a bad one leaves nothing behind.
        for (_, name, path) in &resolved {
            let field = format!("links.{name}.pcap");
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "cannot create '{}': directory '{}' does not exist",
                        path.display(),
                        parent.display()
                    ),
                ));
            }
            if path.is_dir() {
                return Err(ScenarioError::new(
                    field,
                    format!("cannot create '{}': it is a directory", path.display()),
                ));
            }
        }
        let mut created: Vec<PathBuf> = Vec::new();
        for (i, name, path) in resolved {
            let mut w = match PcapWriter::create(&path, &rwnd) {
                Ok(w) => w,
                Err(e) => {
                    for l in &mut self.sim.links {
                        l.capture = None;
                    }
                    for p in &created {
                        let _ = std::fs::remove_file(p);
                    }
                    return Err(ScenarioError::new(
                        format!("links.{name}.pcap"),
                        format!("cannot create '{}': {e}", path.display()),
                    ));
                }
            };
            if log {
                w.enable_log();
            }
            created.push(path);
            self.sim.links[i].capture = Some(Box::new(w));
        }
        Ok(())
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
    if sc.flows.len() > max_ids {
        return Err(ScenarioError::new(
            "flows",
            format!("at most {max_ids} flows"),
        ));
    }
    let node_ids: BTreeMap<&str, NodeId> = sc
        .nodes
        .keys()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as NodeId))
        .collect();
    let node_of = |field: String, name: &str| -> Result<NodeId, ScenarioError> {
        node_ids.get(name).copied().ok_or_else(|| {
            ScenarioError::new(
                field,
                format!(
                    "unknown node '{name}' ({})",
                    known(sc.nodes.keys().cloned())
                ),
            )
        })
    };

    // Links.
    let mut ends = Vec::new();
    let mut links = Vec::new();
    let link_ids: BTreeMap<&str, LinkId> = sc
        .links
        .keys()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as LinkId))
        .collect();
    for (i, (name, l)) in sc.links.iter().enumerate() {
        let f = format!("links.{name}");
        let from = node_of(format!("{f}.from"), &l.from)?;
        let to = node_of(format!("{f}.to"), &l.to)?;
        if from == to {
            return Err(ScenarioError::new(
                f,
                format!("link from '{}' to itself", l.from),
            ));
        }
        if !(0.0..1.0).contains(&l.loss) {
            return Err(ScenarioError::new(
                format!("{f}.loss"),
                format!("must be in [0, 1), got {}", l.loss),
            ));
        }
        let lim = match l.queue {
            QueueSpec::Droptail { limit }
            | QueueSpec::Ackprio { limit }
            | QueueSpec::Bwalloc { limit, .. } => match limit {
                LimitSpec::Packets(0) | LimitSpec::Bytes(0) => {
                    return Err(ScenarioError::new(
                        format!("{f}.queue.limit"),
                        "must be positive",
                    ));
                }
                LimitSpec::Packets(n) => Limit::Packets(n),
                LimitSpec::Bytes(b) => Limit::Bytes(b),
                LimitSpec::Unlimited => Limit::Unlimited,
            },
        };
        let queue = match l.queue {
            QueueSpec::Droptail { .. } => AnyQueue::DropTail(DropTail::new(lim)),
            QueueSpec::Ackprio { .. } => AnyQueue::AckPriority(AckPriority::new(lim)),
            QueueSpec::Bwalloc { data_fraction, .. } => {
                if !(data_fraction > 0.0 && data_fraction < 1.0) {
                    return Err(ScenarioError::new(
                        format!("{f}.queue.data_fraction"),
                        format!("must be strictly between 0 and 1, got {data_fraction}"),
                    ));
                }
                AnyQueue::BandwidthAllocation(BandwidthAllocation::new(lim, data_fraction))
            }
        };
        if let Some(b) = l.backpressure {
            if b == 0 {
                return Err(ScenarioError::new(
                    format!("{f}.backpressure"),
                    "must be at least 1 data segment",
                ));
            }
            if matches!(sc.nodes[&l.from], NodeKindSpec::Router) {
                return Err(ScenarioError::new(
                    format!("{f}.backpressure"),
                    format!(
                        "'{}' is a router; backpressure applies to links leaving a host",
                        l.from
                    ),
                ));
            }
        }
        if let Some(path) = &l.pcap {
            let field = format!("{f}.pcap");
            if path.trim().is_empty() {
                return Err(ScenarioError::new(
                    field,
                    "must name a file, e.g. 'up.pcap' (got an empty string)",
                ));
            }
            if path.ends_with('/') || path.ends_with(std::path::MAIN_SEPARATOR) {
                return Err(ScenarioError::new(
                    field,
                    format!("'{path}' names a directory; name a file, e.g. '{path}{name}.pcap'"),
                ));
            }
            if path.contains('\0') {
                return Err(ScenarioError::new(field, "contains a NUL character"));
            }
            if let Some((other, _)) = sc
                .links
                .iter()
                .take(i)
                .find(|(_, o)| o.pcap.as_deref() == Some(path.as_str()))
            {
                return Err(ScenarioError::new(
                    field,
                    format!("'{path}' is already the pcap file of links.{other}"),
                ));
            }
        }
        ends.push((from, to));
        let mut link = Link::new(
            name.clone(),
            from,
            to,
            l.rate.0,
            l.delay.0,
            queue,
            l.loss,
            SimRng::derive(seed, Stream::Queue, i as u64),
            SimRng::derive(seed, Stream::LinkLoss, i as u64),
        );
        link.backpressure = l.backpressure;
        links.push(link);
    }
    let table = routing::shortest_paths(sc.nodes.len(), &ends);
    let nodes: Vec<Node> = sc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, (name, k))| Node {
            name: name.clone(),
            kind: match k {
                NodeKindSpec::Host => NodeKind::Host,
                NodeKindSpec::Router => NodeKind::Router,
            },
            routes: table[i].clone(),
        })
        .collect();

    // Flows.
    let mut flows = Vec::new();
    let mut meta = Vec::new();
    for (fi, (name, fl)) in sc.flows.iter().enumerate() {
        let f = format!("flows.{name}");
        let src = node_of(format!("{f}.from"), &fl.from)?;
        let dst = node_of(format!("{f}.to"), &fl.to)?;
        for (which, n, id) in [("from", &fl.from, src), ("to", &fl.to, dst)] {
            if nodes[id as usize].kind != NodeKind::Host {
                return Err(ScenarioError::new(
                    format!("{f}.{which}"),
                    format!("'{n}' is a router; flows start and end at hosts"),
                ));
            }
        }
        if src == dst {
            return Err(ScenarioError::new(
                f,
                format!("flow from '{}' to itself", fl.from),
            ));
        }
        let path = routing::path(&table, &ends, src, dst).ok_or_else(|| {
            ScenarioError::new(
                f.clone(),
                format!("no path from '{}' to '{}'", fl.from, fl.to),
            )
        })?;
        if routing::path(&table, &ends, dst, src).is_none() {
            return Err(ScenarioError::new(
                f,
                format!(
                    "no path back from '{}' to '{}' for the acks",
                    fl.to, fl.from
                ),
            ));
        }
        if fl.mss == 0 {
            return Err(ScenarioError::new(format!("{f}.mss"), "must be positive"));
        }
        if fl.ack_size == 0 {
            return Err(ScenarioError::new(
                format!("{f}.ack_size"),
                "must be positive",
            ));
        }
        if fl.init_cwnd == 0 {
            return Err(ScenarioError::new(
                format!("{f}.init_cwnd"),
                "must be at least 1 segment",
            ));
        }
        if fl.dupack_threshold == 0 {
            return Err(ScenarioError::new(
                format!("{f}.dupack_threshold"),
                "must be at least 1",
            ));
        }
        if fl.max_window.0 < fl.mss as u64 {
            return Err(ScenarioError::new(
                format!("{f}.max_window"),
                format!(
                    "{} bytes is less than one segment (mss = {})",
                    fl.max_window.0, fl.mss
                ),
            ));
        }
        if fl.rto_min.0 > fl.rto_max.0 {
            return Err(ScenarioError::new(
                format!("{f}.rto_min"),
                "is larger than rto_max",
            ));
        }
        if fl.delayed_ack.is_some_and(|d| d.0 == SimDuration::ZERO) {
            return Err(ScenarioError::new(
                format!("{f}.delayed_ack"),
                "timeout must be positive (omit it to ack every segment)",
            ));
        }
        let cc = cc_config(&format!("{f}.cc"), &fl.cc)?;
        let app = match fl.app {
            AppSpec::Bulk { start, stop } => {
                if let Some(s) = stop {
                    if s.0 <= start.0 {
                        return Err(ScenarioError::new(
                            format!("{f}.app.stop"),
                            "must be after start",
                        ));
                    }
                }
                App::Bulk {
                    start: SimTime::ZERO + start.0,
                    stop: stop.map(|s| SimTime::ZERO + s.0),
                }
            }
            AppSpec::Transfer { bytes, start } => {
                if bytes.0 == 0 {
                    return Err(ScenarioError::new(
                        format!("{f}.app.bytes"),
                        "must be positive",
                    ));
                }
                App::Transfer {
                    start: SimTime::ZERO + start.0,
                    bytes: bytes.0,
                }
            }
        };
        let eff_link = match &fl.efficiency_link {
            None => path[0],
            Some(l) => *link_ids.get(l.as_str()).ok_or_else(|| {
                ScenarioError::new(
                    format!("{f}.efficiency_link"),
                    format!("unknown link '{l}' ({})", known(sc.links.keys().cloned())),
                )
            })?,
        };
        let tcp = TcpConfig {
            mss: fl.mss,
            header: fl.header,
            ack_size: fl.ack_size,
            max_window: fl.max_window.0,
            init_cwnd: fl.init_cwnd,
            init_ssthresh: fl.init_ssthresh.map_or(u64::MAX, |s| s.0),
            rto_initial: fl.rto_initial.0,
            rto_min: fl.rto_min.0,
            rto_max: fl.rto_max.0,
            dupack_threshold: fl.dupack_threshold,
            delayed_ack: fl.delayed_ack.map(|d| d.0),
            ecn: false,
            partial_ack_timer: match fl.partial_ack_timer {
                PartialAckTimerSpec::Every => PartialAckTimer::Every,
                PartialAckTimerSpec::First => PartialAckTimer::First,
            },
            recovery_exit: match fl.recovery_exit {
                RecoveryExitSpec::Ssthresh => RecoveryExit::Ssthresh,
                RecoveryExitSpec::Flightsize => RecoveryExit::FlightSize,
            },
        };
        let algo = cc.build(
            tcp.mss,
            tcp.init_cwnd as u64 * tcp.mss as u64,
            tcp.init_ssthresh,
        );
        use crate::cc::CongestionControl;
        let cc_name = algo.name().to_string();
        let mut sender = TcpSender::new(fi as u32, src, dst, &tcp, algo);
        if let Some(b) = links[path[0] as usize].backpressure {
            sender.set_ipq_limit(b);
        }
        let receiver = TcpReceiver::new(tcp.ack_size, tcp.delayed_ack);
        flows.push(Flow::new(
            name.clone(),
            src,
            dst,
            sender,
            receiver,
            app,
            eff_link,
        ));
        meta.push(FlowMeta {
            cc: cc_name,
            path,
            tcp,
        });
    }

    let m = &sc.metrics;
    if m.interval.0 == SimDuration::ZERO {
        return Err(ScenarioError::new("metrics.interval", "must be positive"));
    }
    if m.steady_start.0 >= duration {
        return Err(ScenarioError::new(
            "metrics.steady_start",
            "must be before the end of the run (duration)",
        ));
    }
    if m.trace.is_some_and(|t| t.0 == SimDuration::ZERO) {
        return Err(ScenarioError::new(
            "metrics.trace",
            "period must be positive",
        ));
    }
    let two_way = match sc.analysis.as_ref().and_then(|a| a.two_way.clone()) {
        None => None,
        Some(tw) => {
            let find = |field: &str, n: &str| -> Result<usize, ScenarioError> {
                sc.flows.keys().position(|k| k == n).ok_or_else(|| {
                    ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        format!("unknown flow '{n}' ({})", known(sc.flows.keys().cloned())),
                    )
                })
            };
            let mut sides = Vec::new();
            for (field, names) in [("slow", &tw.slow), ("fast", &tw.fast)] {
                let names = names.names();
                if names.is_empty() {
                    return Err(ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        "names no flow",
                    ));
                }
                let mut ids = Vec::new();
                for n in &names {
                    ids.push(find(field, n)?);
                }
                let f0 = &flows[ids[0]];
                if ids
                    .iter()
                    .any(|&k| flows[k].src != f0.src || flows[k].dst != f0.dst)
                {
                    return Err(ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        "the flows of one side must share their source and destination hosts",
                    ));
                }
                sides.push(ids);
            }
            let (si, sj) = (&sides[0], &sides[1]);
            if si.iter().any(|k| sj.contains(k)) {
                return Err(ScenarioError::new(
                    "analysis.two_way.fast",
                    "must name different flows than slow",
                ));
            }
            let (fi, fj) = (&flows[si[0]], &flows[sj[0]]);
            if fi.src != fj.dst || fi.dst != fj.src {
                return Err(ScenarioError::new(
                    "analysis.two_way",
                    "the two flows must run in opposite directions between the same hosts",
                ));
            }
            if si.iter().chain(sj).any(|&k| meta[k].path.len() != 1) {
                return Err(ScenarioError::new(
                    "analysis.two_way",
                    "the two-way models have one link per direction; the flows' paths have more hops",
                ));
            }
            Some(tw)
        }
    };
    let metrics = MetricsConfig {
        interval: m.interval.0,
        steady_start: SimTime::ZERO + m.steady_start.0,
        trace: m.trace.map(|t| t.0),
    };
    let sim = Sim::new(SimTime::ZERO + duration, nodes, links, flows, metrics);
    Ok(Built {
        sim,
        scenario: sc,
        seed,
        flow_meta: meta,
        two_way,
    })
}

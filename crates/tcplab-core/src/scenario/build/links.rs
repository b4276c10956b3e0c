//! Link directions: endpoints, rate, delay, queue discipline, error model, backpressure,
//! pcap file.

use super::Names;
use crate::event::NodeId;
use crate::net::error::{ErrorCx, Schedule};
use crate::net::Link;
use crate::rng::{SimRng, Stream};
use crate::scenario::{NodeKindSpec, OutageScheduleSpec, Scenario, ScenarioError};
use std::collections::BTreeMap;

/// Each link direction's (from, to) node, in link-id order.
pub(super) type Ends = Vec<(NodeId, NodeId)>;

/// Build every link direction; also returns each one's (from, to) for routing.
pub(super) fn links(
    sc: &Scenario,
    names: &Names,
    seed: u64,
) -> Result<(Vec<Link>, Ends), ScenarioError> {
    let schedules = schedules(sc, seed)?;
    let mut ends = Vec::new();
    let mut links = Vec::new();
    for (i, (name, l)) in sc.links.iter().enumerate() {
        let f = format!("links.{name}");
        let from = names.node(format!("{f}.from"), &l.from)?;
        let to = names.node(format!("{f}.to"), &l.to)?;
        if from == to {
            return Err(ScenarioError::new(
                f,
                format!("link from '{}' to itself", l.from),
            ));
        }
        let loss = l.loss.unwrap_or(0.0);
        if !(0.0..1.0).contains(&loss) {
            return Err(ScenarioError::new(
                format!("{f}.loss"),
                format!("must be in [0, 1), got {loss}"),
            ));
        }
        let error = match &l.error {
            Some(_) if l.loss.is_some() => {
                return Err(ScenarioError::new(
                    format!("{f}.error"),
                    "give either `loss` (short for the Bernoulli model) or `error`, not both",
                ));
            }
            Some(spec) => {
                let cx = ErrorCx {
                    seed,
                    link: i as u64,
                    schedules: &schedules,
                };
                Some(spec.build(&format!("{f}.error"), &cx)?)
            }
            None => None,
        };
        let queue = l
            .queue
            .build(&format!("{f}.queue"), l.rate.0, l.delay.0.as_secs_f64())?;
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
            check_pcap(sc, i, name, path)?;
        }
        ends.push((from, to));
        let mut link = Link::new(
            name.clone(),
            from,
            to,
            l.rate.0,
            l.delay.0,
            queue,
            loss,
            SimRng::derive(seed, Stream::Queue, i as u64),
            SimRng::derive(seed, Stream::LinkLoss, i as u64),
        );
        if let Some(e) = error {
            link.error = e;
        }
        link.backpressure = l.backpressure;
        links.push(link);
    }
    Ok((links, ends))
}

/// The down periods `[down, up)` of each named outage schedule that begin before `end`,
/// at most `cap` each (with whether more were cut): the schedules are rebuilt from the
/// scenario and seed, which gives the periods the run's links saw (same streams).
pub fn outage_periods(
    sc: &Scenario,
    seed: u64,
    end: crate::time::SimTime,
    cap: usize,
) -> BTreeMap<String, (Vec<(crate::time::SimTime, crate::time::SimTime)>, bool)> {
    let Ok(all) = schedules(sc, seed) else {
        return BTreeMap::new(); // the run was built from this scenario: cannot fail
    };
    all.into_iter()
        .map(|(name, s)| {
            let mut v = s.periods(cap + 1);
            v.retain(|&(d, _)| d < end);
            let cut = v.len() > cap;
            v.truncate(cap);
            (name, (v, cut))
        })
        .collect()
}

/// The named outage schedules (`[outages.NAME]`); the i-th (by name) draws from stream
/// `Outage` i.
fn schedules(sc: &Scenario, seed: u64) -> Result<BTreeMap<String, Schedule>, ScenarioError> {
    let mut out = BTreeMap::new();
    for (i, (name, spec)) in sc.outages.iter().enumerate() {
        let f = format!("outages.{name}");
        let s = match spec {
            OutageScheduleSpec::Periodic(p) => p.build(&f, seed, i as u64)?,
            OutageScheduleSpec::List(l) => l.build(&f)?,
        };
        out.insert(name.clone(), s);
    }
    Ok(out)
}

/// Check `links.NAME.pcap` (link number `i`): a file name relative to the run's output
/// directory (no root, no `..`), not used by an earlier link. Symbolic links that lead out
/// are refused when the file is opened (`Built::open_pcaps`).
fn check_pcap(sc: &Scenario, i: usize, name: &str, path: &str) -> Result<(), ScenarioError> {
    let field = format!("links.{name}.pcap");
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
    // A scenario is data: it writes only inside the run's output directory (issue 32).
    let p = std::path::Path::new(path);
    if p.has_root() || p.is_absolute() {
        return Err(ScenarioError::new(
            field,
            format!(
                "'{path}' is an absolute path; a scenario writes only inside the run's output \
                 directory (--out, or pcap_dir from Python): give a path relative to it, e.g. \
                 '{name}.pcap'"
            ),
        ));
    }
    if p.components().any(|c| c == std::path::Component::ParentDir) {
        return Err(ScenarioError::new(
            field,
            format!(
                "'{path}' contains '..'; a scenario writes only inside the run's output \
                 directory: give a path below it, e.g. '{name}.pcap'"
            ),
        ));
    }
    if let Some((other, _)) = sc
        .links
        .iter()
        .take(i)
        .find(|(_, o)| o.pcap.as_deref() == Some(path))
    {
        return Err(ScenarioError::new(
            field,
            format!("'{path}' is already the pcap file of links.{other}"),
        ));
    }
    Ok(())
}

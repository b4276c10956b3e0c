//! Workloads (`[workloads.NAME]`): flows that arrive over time, as datacenter studies
//! generate them, instead of flows written one by one.
//!
//! - `type = "load"`: each source host starts flows at random times, Poisson (exponential
//!   gaps) or lognormal gaps of shape `sigma`, with sizes drawn from a flow-size CDF, at a
//!   rate that makes the offered bytes (headers included) a fraction `load` of the host's
//!   access link (or of a named link, shared equally by the sources). The arrival rate per
//!   source is `λ = load · C / (8 · E[W])`, `C` the rate in bit/s and `E[W]` the mean wire
//!   bytes of a flow, `E[S + header · ⌈S / mss⌉]` over the size distribution `S`.
//! - `type = "incast"`: rounds in which `senders` hosts each send `bytes` to one receiver at
//!   once (the partition-aggregate pattern of DCTCP, SIGCOMM 2010, §2.3.1), every `period`
//!   or at Poisson times of `rate` rounds per second.
//!
//! Sizes: `"web_search"` (DCTCP, SIGCOMM 2010) and `"data_mining"` (VL2, SIGCOMM 2009), the
//! two distributions of pFabric (SIGCOMM 2013) and HPCC (SIGCOMM 2019), shipped as CDF files
//! in `data/workloads/` with their origin, or a CDF of the user's own (`{ cdf = [[bytes, p],
//! ...] }`). A size is drawn by inverting the CDF with linear interpolation between points
//! (as those simulators' generators do), then rounded to whole bytes (at least one).
//!
//! A workload flow's identity is (workload, source host, arrival index): it names the flow
//! (`NAME/HOST/INDEX`), orders `fct.parquet`, and keys the draws: every (workload, source)
//! has its own random stream ([`Stream::Workload`]), so the same scenario and seed give the
//! same flows whatever the thread count.

use crate::config::units::{DurationValue, SizeValue};
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use crate::time::{SimDuration, SimTime, PS_PER_S};
use schemars::JsonSchema;
use serde::Deserialize;

/// The built-in flow-size distributions: (name, CDF file text).
pub const BUILTIN_SIZES: [(&str, &str); 2] = [
    (
        "web_search",
        include_str!("../../data/workloads/web_search.cdf"),
    ),
    (
        "data_mining",
        include_str!("../../data/workloads/data_mining.cdf"),
    ),
];

/// The most points a CDF may have.
pub const MAX_CDF_POINTS: usize = 10_000;

/// A flow-size distribution: a piecewise-linear CDF through `(bytes, p)` points, `p`
/// rising from 0 to 1 (equal sizes at two points make an atom).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeCdf {
    pts: Vec<(f64, f64)>,
}

impl SizeCdf {
    /// Check the points: at least two, sizes and probabilities not decreasing, the first
    /// probability 0 and the last 1, sizes finite and non-negative, the largest positive.
    pub fn new(pts: Vec<(f64, f64)>, field: &str) -> Result<Self, ScenarioError> {
        let err = |m: String| ScenarioError::new(field, m);
        if pts.len() < 2 {
            return Err(err(
                "a CDF needs at least two [bytes, probability] points".into()
            ));
        }
        if pts.len() > MAX_CDF_POINTS {
            return Err(err(format!("at most {MAX_CDF_POINTS} points")));
        }
        for (i, &(x, p)) in pts.iter().enumerate() {
            if !(x.is_finite() && x >= 0.0) {
                return Err(err(format!(
                    "point {i}: size {x} is not a number of bytes ≥ 0"
                )));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(err(format!("point {i}: probability {p} is not in [0, 1]")));
            }
            if i > 0 {
                let (x0, p0) = pts[i - 1];
                if x < x0 || p < p0 {
                    return Err(err(format!(
                        "point {i}: ({x}, {p}) is below point {} ({x0}, {p0}); sizes and \
                         probabilities must not decrease",
                        i - 1
                    )));
                }
            }
        }
        if pts[0].1 != 0.0 {
            return Err(err(format!(
                "the first point's probability is {}, not 0",
                pts[0].1
            )));
        }
        if pts[pts.len() - 1].1 != 1.0 {
            return Err(err(format!(
                "the last point's probability is {}, not 1",
                pts[pts.len() - 1].1
            )));
        }
        if pts[pts.len() - 1].0 < 1.0 {
            return Err(err("the largest size is below one byte".into()));
        }
        Ok(SizeCdf { pts })
    }

    /// A CDF file: one `bytes probability` pair per line, `#` comments, blank lines.
    pub fn parse(text: &str, field: &str) -> Result<Self, ScenarioError> {
        let mut pts = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut it = line.split_whitespace().map(str::parse::<f64>);
            match (it.next(), it.next(), it.next()) {
                (Some(Ok(x)), Some(Ok(p)), None) => pts.push((x, p)),
                _ => {
                    return Err(ScenarioError::new(
                        field,
                        format!("line {}: expected 'bytes probability', got '{line}'", n + 1),
                    ))
                }
            }
        }
        SizeCdf::new(pts, field)
    }

    /// The size at cumulative probability `u` in [0, 1): linear between points.
    pub fn quantile(&self, u: f64) -> f64 {
        let pts = &self.pts;
        // The first point whose probability reaches u (after the first).
        let i = pts[1..].partition_point(|&(_, p)| p < u) + 1;
        let i = i.min(pts.len() - 1);
        let ((x0, p0), (x1, p1)) = (pts[i - 1], pts[i]);
        if p1 > p0 {
            x0 + (x1 - x0) * (u - p0) / (p1 - p0)
        } else {
            x1
        }
    }

    /// A size in whole bytes (at least one).
    #[inline]
    pub fn sample(&self, rng: &mut SimRng) -> u64 {
        (self.quantile(rng.next_f64()).round() as u64).max(1)
    }

    /// The mean size in bytes (exact for the piecewise-linear CDF).
    pub fn mean(&self) -> f64 {
        self.pts
            .windows(2)
            .map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1))
            .sum()
    }

    /// The mean bytes on the wire of a flow of these sizes: payload plus `header` bytes per
    /// segment of at most `mss` (midpoint rule over 2^16 quantiles; the size rounding of
    /// [`SizeCdf::sample`] included).
    pub fn mean_wire(&self, mss: u32, header: u32) -> f64 {
        const N: u32 = 1 << 16;
        let mut sum = 0.0;
        for i in 0..N {
            let s = (self.quantile((i as f64 + 0.5) / N as f64).round() as u64).max(1);
            sum += (s + header as u64 * s.div_ceil(mss as u64)) as f64;
        }
        sum / N as f64
    }
}

/// A flow-size distribution as written: a built-in name or a table of points.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum SizesSpec {
    /// `"web_search"` or `"data_mining"`.
    Named(String),
    /// `{ cdf = [[bytes, probability], ...] }`: a CDF of your own.
    Points { cdf: Vec<(f64, f64)> },
    /// `{ file = "sizes.cdf" }`: a CDF file of your own, in the format of the built-in ones
    /// (one `bytes probability` pair per line, `#` comments). The Python loader reads it
    /// relative to the scenario file and puts its contents in `text`, so that a scenario
    /// written out (a run folder's scenario.toml, a sweep point sent to another machine)
    /// carries its distribution; without `text` the core reads `file` itself.
    File {
        file: String,
        #[serde(default)]
        text: Option<String>,
    },
}

/// The largest CDF file read (bytes): far above any published distribution's.
pub const MAX_CDF_FILE_BYTES: u64 = 1 << 20;

impl SizesSpec {
    pub fn cdf(&self, field: &str) -> Result<SizeCdf, ScenarioError> {
        match self {
            SizesSpec::Named(n) => match BUILTIN_SIZES.iter().find(|(k, _)| k == n) {
                Some((_, text)) => SizeCdf::parse(text, field),
                None => Err(ScenarioError::new(
                    field,
                    format!(
                        "unknown size distribution '{n}' (known: {}; or a table {{ cdf = [[bytes, p], ...] }})",
                        BUILTIN_SIZES.map(|(k, _)| k).join(", ")
                    ),
                )),
            },
            SizesSpec::Points { cdf } => SizeCdf::new(cdf.clone(), field),
            SizesSpec::File { file, text } => {
                let field = format!("{field}.file");
                let read;
                let text = match text {
                    Some(t) => t.as_str(),
                    None => {
                        read = read_cdf_file(file, &field)?;
                        read.as_str()
                    }
                };
                if text.len() as u64 > MAX_CDF_FILE_BYTES {
                    return Err(ScenarioError::new(
                        field,
                        format!("'{file}' is {} bytes; a CDF file is limited to {MAX_CDF_FILE_BYTES}", text.len()),
                    ));
                }
                SizeCdf::parse(text, &field).map_err(|e| {
                    ScenarioError::new(e.field, format!("'{file}': {}", e.reason))
                })
            }
        }
    }
}

/// Read a CDF file named by `sizes.file` (relative to the current directory), its size
/// checked before it is read.
fn read_cdf_file(file: &str, field: &str) -> Result<String, ScenarioError> {
    let err = |m: String| ScenarioError::new(field, m);
    let meta = std::fs::metadata(file).map_err(|e| err(format!("cannot read '{file}': {e}")))?;
    if !meta.is_file() {
        return Err(err(format!("'{file}' is not a file")));
    }
    if meta.len() > MAX_CDF_FILE_BYTES {
        return Err(err(format!(
            "'{file}' is {} bytes; a CDF file is limited to {MAX_CDF_FILE_BYTES}",
            meta.len()
        )));
    }
    std::fs::read_to_string(file).map_err(|e| err(format!("cannot read '{file}': {e}")))
}

/// Gaps between a source's arrivals.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum ArrivalsSpec {
    /// Exponential gaps (a Poisson process).
    #[default]
    Poisson,
    /// Lognormal gaps of shape `sigma` and the same mean: burstier for larger `sigma`.
    Lognormal,
}

/// How a flow's destination is chosen.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum DestinationsSpec {
    /// Any other host of `to`, uniformly, for each flow.
    #[default]
    Uniform,
    /// One fixed destination per source: a random derangement of the sources (`to` must be
    /// the sources).
    Permutation,
}

/// `type = "load"`: flows arriving at each source at a target load.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LoadWorkload {
    /// Flow sizes: "web_search", "data_mining", or `{ cdf = [[bytes, p], ...] }`.
    pub sizes: SizesSpec,
    /// Offered load per source, headers included: a fraction in (0, 1] of the source's
    /// access link rate (or of `load_of`'s rate, shared equally by the sources).
    pub load: f64,
    /// A link direction whose rate `load` refers to (default: each source's own first-hop
    /// link).
    #[serde(default)]
    pub load_of: Option<String>,
    /// "poisson" (default) or "lognormal" gaps between a source's arrivals.
    #[serde(default)]
    pub arrivals: ArrivalsSpec,
    /// Shape of lognormal gaps (the standard deviation of their logarithm); lognormal only.
    #[serde(default)]
    pub sigma: Option<f64>,
    /// Source hosts (default: every host).
    #[serde(default)]
    pub from: Option<Vec<String>>,
    /// Destination hosts (default: the sources).
    #[serde(default)]
    pub to: Option<Vec<String>>,
    /// "uniform" (default) or "permutation".
    #[serde(default)]
    pub destinations: DestinationsSpec,
    /// The fraction of flows that go to a host behind the source's own first-hop switch (its
    /// rack), the rest to a host behind another; uniform only. Default: no preference.
    #[serde(default)]
    pub rack_local: Option<f64>,
    /// First arrivals not before this time (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No arrival at or after this time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<DurationValue>,
    /// The flows' transport: every key of a `[flows.NAME]` table but `from`, `to` and `app`
    /// (`cc`, `profile`, `mss`, `syn`, ...); `[defaults.flows]` and profiles apply as to a
    /// flow.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub flow: Option<serde_json::Value>,
}

/// `type = "incast"`: rounds of many senders to one receiver at once.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IncastWorkload {
    /// Senders per round (the fan-in).
    pub senders: u32,
    /// Bytes each sender sends per round, e.g. "64KiB".
    pub bytes: SizeValue,
    /// The receiver: a host name (default: drawn anew each round from `hosts`).
    #[serde(default)]
    pub to: Option<String>,
    /// The hosts senders (and receivers) are drawn from, a new set each round (default:
    /// every host).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Time between rounds (give this or `rate`).
    #[serde(default)]
    pub period: Option<DurationValue>,
    /// Rounds per second, at Poisson times (give this or `period`).
    #[serde(default)]
    pub rate: Option<f64>,
    /// At most this many rounds (default: as many as fit before `stop`).
    #[serde(default)]
    pub rounds: Option<u32>,
    /// The first round's time (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No round at or after this time (default: the end of the run).
    #[serde(default)]
    pub stop: Option<DurationValue>,
    /// The flows' transport, as for `type = "load"`.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub flow: Option<serde_json::Value>,
}

crate::tagged_enum! {
    /// A workload (`[workloads.NAME]`), chosen by `type`.
    #[derive(PartialEq)]
    pub enum WorkloadSpec, tag "type" {
        /// Flows arriving at a target load, sizes from a distribution.
        "load" => Load(LoadWorkload),
        /// Rounds of `senders` flows to one receiver.
        "incast" => Incast(IncastWorkload),
    }
}

impl WorkloadSpec {
    /// The transport template (`flow`).
    pub fn flow(&self) -> Option<&serde_json::Value> {
        match self {
            WorkloadSpec::Load(w) => w.flow.as_ref(),
            WorkloadSpec::Incast(w) => w.flow.as_ref(),
        }
    }
}

/// A host a workload may use: its node, the rate of its first-hop link and that link's far
/// end (its rack switch).
#[derive(Clone, Debug)]
pub struct Host {
    pub name: String,
    pub node: u32,
    pub rate_bps: u64,
    pub rack: u32,
}

/// One generated flow: hosts as indices into the workload's host list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub t: SimTime,
    pub src: u32,
    pub dst: u32,
    pub bytes: u64,
    /// The arrival's number among its source's arrivals in this workload (0, 1, ...).
    pub index: u32,
}

/// What generation needs besides the spec.
pub struct Cx<'a> {
    /// `workloads.NAME`, for errors.
    pub field: &'a str,
    /// Index of the workload (its random streams).
    pub class: u32,
    pub seed: u64,
    /// Every host of the scenario, in node order.
    pub hosts: &'a [Host],
    /// The rate of `load_of`, resolved by the caller (bit/s).
    pub load_of_bps: Option<u64>,
    /// The template's segment size and header bytes (for the load).
    pub mss: u32,
    pub header: u32,
    pub end: SimTime,
    /// Generation stops with an error past this many flows.
    pub max_flows: usize,
}

impl Cx<'_> {
    fn err(&self, key: &str, m: impl Into<String>) -> ScenarioError {
        ScenarioError::new(format!("{}.{key}", self.field), m)
    }
    fn rng(&self, sub: u32) -> SimRng {
        SimRng::derive(
            self.seed,
            Stream::Workload,
            ((self.class as u64) << 32) | sub as u64,
        )
    }
    /// Host names to indices into `hosts`.
    fn pick(&self, key: &str, names: &Option<Vec<String>>) -> Result<Vec<u32>, ScenarioError> {
        let Some(names) = names else {
            return Ok((0..self.hosts.len() as u32).collect());
        };
        let mut out = Vec::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            let Some(h) = self.hosts.iter().position(|h| &h.name == n) else {
                return Err(self.err(
                    &format!("{key}[{i}]"),
                    format!("'{n}' is not a host of the scenario"),
                ));
            };
            if out.contains(&(h as u32)) {
                return Err(self.err(&format!("{key}[{i}]"), format!("'{n}' is listed twice")));
            }
            out.push(h as u32);
        }
        Ok(out)
    }
    fn window(
        &self,
        start: Option<DurationValue>,
        stop: Option<DurationValue>,
    ) -> Result<(SimTime, SimTime), ScenarioError> {
        let start = SimTime::ZERO + start.map_or(SimDuration::ZERO, |d| d.0);
        let stop = stop.map_or(self.end, |d| (SimTime::ZERO + d.0).min(self.end));
        if start >= self.end {
            return Err(self.err("start", "is not before the end of the run"));
        }
        if stop <= start {
            return Err(self.err("stop", "must be after start"));
        }
        Ok((start, stop))
    }
}

/// A lognormal gap of mean `mean_s` and shape `sigma` (Box–Muller normal from two draws).
fn lognormal(rng: &mut SimRng, mean_s: f64, sigma: f64) -> f64 {
    let u1 = 1.0 - rng.next_f64(); // (0, 1]
    let u2 = rng.next_f64();
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    let mu = mean_s.ln() - sigma * sigma / 2.0;
    (mu + sigma * z).exp()
}

fn to_ps(s: f64) -> u64 {
    let ps = s * PS_PER_S as f64;
    if ps >= u64::MAX as f64 {
        u64::MAX
    } else {
        ps.max(1.0) as u64
    }
}

impl LoadWorkload {
    /// The arrivals, sources in host order, each source's in time order.
    pub fn generate(&self, cx: &Cx) -> Result<Vec<Arrival>, ScenarioError> {
        if !(self.load > 0.0 && self.load <= 1.0) {
            return Err(cx.err(
                "load",
                format!("{} is not a fraction in (0, 1] of the link rate", self.load),
            ));
        }
        let sigma = match (self.arrivals, self.sigma) {
            (ArrivalsSpec::Lognormal, Some(s)) if s > 0.0 && s <= 10.0 => s,
            (ArrivalsSpec::Lognormal, Some(s)) => {
                return Err(cx.err("sigma", format!("{s} is not in (0, 10]")))
            }
            (ArrivalsSpec::Lognormal, None) => {
                return Err(cx.err("sigma", "lognormal arrivals need a shape sigma, e.g. 2"))
            }
            (ArrivalsSpec::Poisson, Some(_)) => {
                return Err(cx.err("sigma", "only lognormal arrivals have a sigma"))
            }
            (ArrivalsSpec::Poisson, None) => 0.0,
        };
        let cdf = self.sizes.cdf(&format!("{}.sizes", cx.field))?;
        let (start, stop) = cx.window(self.start, self.stop)?;
        let from = cx.pick("from", &self.from)?;
        let to = match &self.to {
            None => from.clone(),
            some => cx.pick("to", some)?,
        };
        if let Some(f) = self.rack_local {
            if !(0.0..=1.0).contains(&f) {
                return Err(cx.err("rack_local", format!("{f} is not a fraction in [0, 1]")));
            }
            if self.destinations == DestinationsSpec::Permutation {
                return Err(cx.err("rack_local", "applies to uniform destinations only"));
            }
        }
        let perm = match self.destinations {
            DestinationsSpec::Uniform => None,
            DestinationsSpec::Permutation => {
                if self.to.is_some() && to != from {
                    return Err(cx.err(
                        "to",
                        "a permutation sends each source to another source: leave `to` out",
                    ));
                }
                if from.len() < 2 {
                    return Err(cx.err("from", "a permutation needs at least two hosts"));
                }
                let mut rng = cx.rng(u32::MAX);
                Some(rng.derangement(from.len()))
            }
        };
        let mean_wire = cdf.mean_wire(cx.mss, cx.header);
        let mut out = Vec::new();
        for (si, &src) in from.iter().enumerate() {
            let h = &cx.hosts[src as usize];
            let c_bps = match cx.load_of_bps {
                Some(r) => r as f64 / from.len() as f64,
                None => h.rate_bps as f64,
            };
            let lambda = self.load * c_bps / (8.0 * mean_wire); // flows per second
            let mean_gap = 1.0 / lambda;
            // The destinations this source may use (not itself), rack-local ones apart.
            let others: Vec<u32> = to.iter().copied().filter(|&d| d != src).collect();
            if others.is_empty() && perm.is_none() {
                return Err(cx.err(
                    "to",
                    format!("source '{}' has no destination but itself", h.name),
                ));
            }
            let (local, remote): (Vec<u32>, Vec<u32>) = others
                .iter()
                .partition(|&&d| cx.hosts[d as usize].rack == h.rack);
            let mut rng = cx.rng(src);
            let mut t = start.0 as f64 / PS_PER_S as f64;
            let stop_s = stop.0 as f64 / PS_PER_S as f64;
            let mut index = 0u32;
            loop {
                t += match self.arrivals {
                    ArrivalsSpec::Poisson => rng.exp1() * mean_gap,
                    ArrivalsSpec::Lognormal => lognormal(&mut rng, mean_gap, sigma),
                };
                if t >= stop_s {
                    break;
                }
                let bytes = cdf.sample(&mut rng);
                let dst = if let Some(p) = &perm {
                    from[p[si]]
                } else {
                    let pool = match self.rack_local {
                        Some(f) if !local.is_empty() && !remote.is_empty() => {
                            if rng.next_f64() < f {
                                &local
                            } else {
                                &remote
                            }
                        }
                        _ => &others,
                    };
                    pool[rng.below(pool.len() as u64) as usize]
                };
                out.push(Arrival {
                    t: SimTime(to_ps(t)),
                    src,
                    dst,
                    bytes,
                    index,
                });
                index += 1;
                if out.len() > cx.max_flows {
                    return Err(cx.err(
                        "load",
                        format!(
                            "generates more than {} flows by {t:.3} s (at {:.0} flows/s per source, mean size {:.0} B): lower the load, shorten start..stop or use fewer sources",
                            cx.max_flows,
                            lambda,
                            cdf.mean()
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }
}

impl IncastWorkload {
    /// The arrivals, sources in host order, each source's in time order.
    pub fn generate(&self, cx: &Cx) -> Result<Vec<Arrival>, ScenarioError> {
        if self.bytes.0 == 0 {
            return Err(cx.err("bytes", "must be positive"));
        }
        let (start, stop) = cx.window(self.start, self.stop)?;
        let pool = cx.pick("hosts", &self.hosts)?;
        let to = match &self.to {
            None => None,
            Some(n) => match cx.hosts.iter().position(|h| &h.name == n) {
                Some(i) => Some(i as u32),
                None => return Err(cx.err("to", format!("'{n}' is not a host of the scenario"))),
            },
        };
        let candidates = pool.iter().filter(|&&h| Some(h) != to).count();
        if self.senders == 0
            || self.senders as usize > candidates.saturating_sub(to.is_none() as usize)
        {
            return Err(cx.err(
                "senders",
                format!(
                    "{} senders, but {} hosts can send to the receiver",
                    self.senders,
                    candidates.saturating_sub(to.is_none() as usize)
                ),
            ));
        }
        // Rounds every `period`, or Poisson rounds of mean gap 1 / rate.
        enum Gap {
            Every(SimDuration),
            Poisson(f64),
        }
        let gap = match (self.period, self.rate) {
            (Some(p), None) if p.0 > SimDuration::ZERO => Gap::Every(p.0),
            (Some(_), None) => return Err(cx.err("period", "must be positive")),
            (None, Some(r)) if r > 0.0 && r.is_finite() => Gap::Poisson(1.0 / r),
            (None, Some(r)) => return Err(cx.err("rate", format!("{r} rounds/s is not positive"))),
            (Some(_), Some(_)) => return Err(cx.err("rate", "give period or rate, not both")),
            (None, None) => return Err(cx.err("period", "give period (or rate) between rounds")),
        };
        let mut rng = cx.rng(u32::MAX);
        let mut out = Vec::new();
        let mut per_src = vec![0u32; cx.hosts.len()];
        let mut t = start;
        let mut round = 0u32;
        let mut draw: Vec<u32> = Vec::with_capacity(pool.len());
        loop {
            match gap {
                Gap::Every(p) if round > 0 => t += p,
                Gap::Every(_) => {}
                Gap::Poisson(mean) => t += SimDuration(to_ps(rng.exp1() * mean)),
            }
            if t >= stop || self.rounds.is_some_and(|n| round >= n) {
                break;
            }
            let recv = match to {
                Some(r) => r,
                None => pool[rng.below(pool.len() as u64) as usize],
            };
            draw.clear();
            draw.extend(pool.iter().copied().filter(|&h| h != recv));
            // The first `senders` of a partial Fisher–Yates shuffle.
            for k in 0..self.senders as usize {
                let j = k + rng.below((draw.len() - k) as u64) as usize;
                draw.swap(k, j);
            }
            let mut senders = draw[..self.senders as usize].to_vec();
            senders.sort_unstable();
            for s in senders {
                out.push(Arrival {
                    t,
                    src: s,
                    dst: recv,
                    bytes: self.bytes.0,
                    index: per_src[s as usize],
                });
                per_src[s as usize] += 1;
            }
            round += 1;
            if out.len() > cx.max_flows {
                return Err(cx.err(
                    "senders",
                    format!(
                        "generates more than {} flows by round {round}: fewer rounds or senders",
                        cx.max_flows
                    ),
                ));
            }
        }
        // Identity order: source, then arrival index.
        out.sort_by_key(|a| (a.src, a.index));
        Ok(out)
    }
}

impl WorkloadSpec {
    pub fn generate(&self, cx: &Cx) -> Result<Vec<Arrival>, ScenarioError> {
        match self {
            WorkloadSpec::Load(w) => w.generate(cx),
            WorkloadSpec::Incast(w) => w.generate(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(n: u32, per_rack: u32) -> Vec<Host> {
        (0..n)
            .map(|i| Host {
                name: format!("h{i}"),
                node: i,
                rate_bps: 10_000_000_000,
                rack: i / per_rack,
            })
            .collect()
    }

    fn cx<'a>(h: &'a [Host], end_s: u64) -> Cx<'a> {
        Cx {
            field: "workloads.w",
            class: 0,
            seed: 1,
            hosts: h,
            load_of_bps: None,
            mss: 1460,
            header: 40,
            end: SimTime(end_s * PS_PER_S),
            max_flows: 1_000_000,
        }
    }

    #[test]
    fn builtin_cdfs_parse_with_their_documented_means() {
        let ws = SizesSpec::Named("web_search".into()).cdf("s").unwrap();
        assert!((ws.mean() - 1_711_250.0).abs() < 1.0, "{}", ws.mean());
        let dm = SizesSpec::Named("data_mining".into()).cdf("s").unwrap();
        assert!((dm.mean() / 1460.0 - 5116.6).abs() < 0.01, "{}", dm.mean());
        // Half of data mining's flows are one packet.
        assert_eq!(dm.quantile(0.25), 1460.0);
        assert!((dm.quantile(0.55) - 2190.0).abs() < 1e-9);
        let e = SizesSpec::Named("hadoop".into())
            .cdf("workloads.w.sizes")
            .unwrap_err();
        assert!(e.to_string().contains("web_search, data_mining"), "{e}");
    }

    #[test]
    fn bad_cdfs_are_refused_with_the_point() {
        for (pts, want) in [
            (vec![(0.0, 0.0)], "at least two"),
            (vec![(0.0, 0.1), (10.0, 1.0)], "not 0"),
            (vec![(0.0, 0.0), (10.0, 0.9)], "not 1"),
            (vec![(0.0, 0.0), (10.0, 0.5), (5.0, 1.0)], "point 2"),
            (vec![(0.0, 0.0), (10.0, 1.5)], "not in [0, 1]"),
        ] {
            let e = SizeCdf::new(pts, "f").unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn sampled_sizes_follow_the_cdf() {
        let cdf = SizesSpec::Named("web_search".into()).cdf("s").unwrap();
        let mut rng = SimRng::derive(3, Stream::Workload, 0);
        let n = 200_000;
        let xs: Vec<u64> = (0..n).map(|_| cdf.sample(&mut rng)).collect();
        let below = |b: u64| xs.iter().filter(|&&x| x <= b).count() as f64 / n as f64;
        for (b, p) in [(10_000, 0.15), (80_000, 0.53), (2_000_000, 0.8)] {
            assert!((below(b) - p).abs() < 0.005, "{b}: {}", below(b));
        }
        let mean = xs.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean / cdf.mean() - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn poisson_load_offers_the_asked_fraction_of_the_link() {
        let h = hosts(4, 2);
        let mut c = cx(&h, 2);
        c.mss = 1460;
        for arrivals in [ArrivalsSpec::Poisson, ArrivalsSpec::Lognormal] {
            let w = LoadWorkload {
                sizes: SizesSpec::Points {
                    cdf: vec![(1000.0, 0.0), (100_000.0, 1.0)],
                },
                load: 0.4,
                load_of: None,
                arrivals,
                sigma: (arrivals == ArrivalsSpec::Lognormal).then_some(1.0),
                from: None,
                to: None,
                destinations: DestinationsSpec::Uniform,
                rack_local: None,
                start: None,
                stop: None,
                flow: None,
            };
            let a = w.generate(&c).unwrap();
            // Offered wire bits per source over 2 s / rate.
            let wire: f64 = a
                .iter()
                .map(|x| (x.bytes + 40 * x.bytes.div_ceil(1460)) as f64 * 8.0)
                .sum();
            let load = wire / (4.0 * 2.0 * 1e10);
            assert!((load - 0.4).abs() < 0.02, "{arrivals:?}: {load}");
            assert!(a.iter().all(|x| x.src != x.dst));
            // Identity order, and the same flows again.
            assert!(a
                .windows(2)
                .all(|p| (p[0].src, p[0].index) < (p[1].src, p[1].index)));
            assert_eq!(a, w.generate(&c).unwrap());
        }
    }

    #[test]
    fn rack_local_and_permutation_destinations() {
        let h = hosts(8, 4);
        let c = cx(&h, 1);
        let mut w = LoadWorkload {
            sizes: SizesSpec::Named("web_search".into()),
            load: 0.5,
            load_of: None,
            arrivals: ArrivalsSpec::Poisson,
            sigma: None,
            from: None,
            to: None,
            destinations: DestinationsSpec::Uniform,
            rack_local: Some(0.75),
            start: None,
            stop: None,
            flow: None,
        };
        let a = w.generate(&c).unwrap();
        let local = a
            .iter()
            .filter(|x| h[x.src as usize].rack == h[x.dst as usize].rack)
            .count();
        let f = local as f64 / a.len() as f64;
        assert!(a.len() > 1000 && (f - 0.75).abs() < 0.04, "{} {f}", a.len());
        w.rack_local = None;
        w.destinations = DestinationsSpec::Permutation;
        let a = w.generate(&c).unwrap();
        for s in 0..8 {
            let d: std::collections::BTreeSet<u32> =
                a.iter().filter(|x| x.src == s).map(|x| x.dst).collect();
            assert_eq!(d.len(), 1, "source {s}: {d:?}");
            assert!(!d.contains(&s));
        }
    }

    #[test]
    fn incast_rounds_have_distinct_senders_and_one_receiver() {
        let h = hosts(16, 4);
        let c = cx(&h, 1);
        let w = IncastWorkload {
            senders: 15,
            bytes: SizeValue(20_000),
            to: Some("h0".into()),
            hosts: None,
            period: Some(DurationValue(SimDuration(10 * PS_PER_S / 1000))),
            rate: None,
            rounds: Some(20),
            start: None,
            stop: None,
            flow: None,
        };
        let a = w.generate(&c).unwrap();
        assert_eq!(a.len(), 20 * 15);
        assert!(a
            .iter()
            .all(|x| x.dst == 0 && x.src != 0 && x.bytes == 20_000));
        let times: std::collections::BTreeSet<u64> = a.iter().map(|x| x.t.0).collect();
        assert_eq!(times.len(), 20);
        let mut w2 = w.clone();
        w2.senders = 16;
        let e = w2.generate(&c).unwrap_err().to_string();
        assert!(
            e.contains("workloads.w.senders") && e.contains("15 hosts"),
            "{e}"
        );
        // Receivers drawn per round: never among that round's senders.
        let mut w3 = w;
        w3.to = None;
        w3.senders = 8;
        let a = w3.generate(&c).unwrap();
        for x in &a {
            assert_ne!(x.src, x.dst);
        }
    }
}

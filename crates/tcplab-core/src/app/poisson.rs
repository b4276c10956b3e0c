//! `poisson`: writes at the arrivals of a Poisson process, each of a size drawn from a mix.
//!
//! Seed 004's cross traffic for the packet-pair and packet-train histograms (our reading:
//! "Poisson UDP cross traffic with mixed packet sizes (40/576/1500 B)", after
//! Dovrolis, Ramanathan, Moore, "What do packet dispersion techniques measure?", INFOCOM
//! 2001). Over UDP a write is one datagram, over TCP that many more bytes of application
//! limit (as `cbr`).
//!
//! Formulas: with sizes s_i drawn with probabilities p_i = w_i / Σw, the mean write is
//! s̄ = Σ p_i·s_i bytes and the writes are a Poisson process of rate λ = rate / (8·s̄), so
//! the long-run payload rate is `rate`. Gaps are exponential with mean 1/λ (inverse
//! transform of one uniform draw, rounded to the picosecond); the first write comes one gap
//! after `start`. Each write draws its gap, and its size when the mix has several.

use super::{App, AppCx};
use crate::config::units::{DurationValue, RateValue};
use crate::config::ScenarioError;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime, PS_PER_S};
use schemars::JsonSchema;
use serde::Deserialize;

/// Most sizes in one mix.
pub const MAX_SIZES: usize = 64;

/// Poisson arrivals of writes whose sizes are drawn from `sizes` with `weights`.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PoissonSpec {
    /// Long-run mean rate, counting payload bytes only, e.g. "2Mbps".
    pub rate: RateValue,
    /// Payload bytes of a write, one value per kind of write (default `[1000]`), e.g.
    /// `[40, 576, 1500]` with `header = 0` on the flow for those wire sizes.
    #[serde(default = "default_sizes")]
    pub sizes: Vec<u32>,
    /// Relative frequency of each size, in writes (default: all equal).
    #[serde(default)]
    pub weights: Option<Vec<f64>>,
    /// When the process starts (default "0s"); the first write is one gap later.
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No writes from this time on (default: never).
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

fn default_sizes() -> Vec<u32> {
    vec![1000]
}

/// Runtime state of a Poisson source.
#[derive(Clone, Debug)]
pub struct Poisson {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    sizes: Vec<u32>,
    /// Cumulative probabilities of `sizes` (the last is 1).
    cumulative: Vec<f64>,
    /// Mean gap between writes, ps.
    mean_gap_ps: f64,
    rng: SimRng,
    /// Time of the pending write.
    next: SimTime,
}

impl PoissonSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        if self.sizes.is_empty() {
            return Err(cx.err("sizes", "must list at least one size"));
        }
        if self.sizes.len() > MAX_SIZES {
            return Err(cx.err(
                "sizes",
                format!("{} sizes; at most {MAX_SIZES}", self.sizes.len()),
            ));
        }
        for &s in &self.sizes {
            super::write_size(cx, "sizes", s)?;
        }
        let weights = match &self.weights {
            None => vec![1.0; self.sizes.len()],
            Some(w) if w.len() != self.sizes.len() => {
                return Err(cx.err(
                    "weights",
                    format!(
                        "{} weights for {} sizes: give one per size",
                        w.len(),
                        self.sizes.len()
                    ),
                ))
            }
            Some(w) => {
                if let Some(x) = w.iter().find(|x| !x.is_finite() || **x < 0.0) {
                    return Err(cx.err("weights", format!("{x} is not a weight (finite and >= 0)")));
                }
                w.clone()
            }
        };
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return Err(cx.err("weights", "at least one weight must be positive"));
        }
        let bps = self.rate.0.bps();
        if bps == 0 {
            return Err(cx.err("rate", "must be positive"));
        }
        let mut acc = 0.0;
        let mut cumulative: Vec<f64> = weights
            .iter()
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        *cumulative.last_mut().expect("at least one size") = 1.0;
        let mean_size: f64 = self
            .sizes
            .iter()
            .zip(&weights)
            .map(|(&s, w)| s as f64 * w / total)
            .sum();
        let mean_gap_ps = mean_size * 8.0 * PS_PER_S as f64 / bps as f64;
        if mean_gap_ps < 1.0 {
            return Err(cx.err(
                "rate",
                format!(
                    "{bps} b/s with a mean write of {mean_size} bytes is more than one write per picosecond"
                ),
            ));
        }
        let (start, stop) = cx.window(self.start, self.stop)?;
        Ok(App::Poisson(Poisson {
            start,
            stop,
            sizes: self.sizes.clone(),
            cumulative,
            mean_gap_ps,
            rng: cx.rng(),
            next: SimTime::ZERO,
        }))
    }

    /// The largest write (packet-size checks).
    pub fn max_size(&self) -> u32 {
        self.sizes.iter().copied().max().unwrap_or(0)
    }
}

impl Poisson {
    /// The stream the gaps and sizes are drawn from (`run.stochastic`).
    pub(crate) fn rng(&self) -> &SimRng {
        &self.rng
    }

    /// The payload rate the mix and gaps give: Σ p_i·s_i·8 / mean gap (b/s).
    #[cfg(test)]
    fn mean_rate_bps(&self) -> f64 {
        let mut prev = 0.0;
        let mean: f64 = self
            .sizes
            .iter()
            .zip(&self.cumulative)
            .map(|(&s, &c)| {
                let p = c - prev;
                prev = c;
                s as f64 * p
            })
            .sum();
        mean * 8.0 * PS_PER_S as f64 / self.mean_gap_ps
    }

    fn gap(&mut self) -> SimDuration {
        let x = self.mean_gap_ps * self.rng.exp1();
        // At least 1 ps: two writes at one instant would be one arrival of the process.
        SimDuration((x.round().min(1e18) as u64).max(1))
    }

    fn size(&mut self) -> u32 {
        if self.sizes.len() == 1 {
            return self.sizes[0];
        }
        let u = self.rng.next_f64();
        let i = self.cumulative.partition_point(|&c| c <= u);
        self.sizes[i.min(self.sizes.len() - 1)]
    }

    pub(super) fn begin(&mut self, now: SimTime) -> SimTime {
        self.next = now + self.gap();
        self.next
    }

    #[inline]
    pub(super) fn tick(&mut self, now: SimTime) -> (u32, SimTime) {
        let size = self.size();
        self.next = now + self.gap();
        (size, self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, AppCx, Begin};
    use crate::time::Rate;

    fn spec(bps: u64, sizes: Vec<u32>, weights: Option<Vec<f64>>) -> PoissonSpec {
        PoissonSpec {
            rate: RateValue(Rate(bps)),
            sizes,
            weights,
            start: None,
            stop: None,
        }
    }

    fn cx(seed: u64) -> AppCx<'static> {
        AppCx {
            field: "flows.x.app",
            seed,
            index: 0,
            transport: "udp",
        }
    }

    /// (time, size) of every write before `end`.
    fn writes(app: &mut App, end: SimTime) -> Vec<(SimTime, u32)> {
        let Begin::Tick(mut t) = app.begin(SimTime::ZERO) else {
            panic!("active source")
        };
        let mut v = Vec::new();
        while t < end {
            let (size, next) = app.tick(t);
            v.push((t, size));
            t = next;
        }
        v
    }

    #[test]
    fn mixed_sizes_give_the_rate_the_weights_and_exponential_gaps() {
        // 2 Mb/s of 40/576/1500-B writes, equal weights: mean 705.33 B, λ = 354.4/s.
        let mut app = spec(2_000_000, vec![40, 576, 1500], None)
            .build(&cx(7))
            .unwrap();
        let App::Poisson(p) = &app else { panic!() };
        assert!((p.mean_rate_bps() / 2e6 - 1.0).abs() < 1e-12);
        let secs = 2000;
        let w = writes(&mut app, SimTime::ZERO + SimDuration::from_secs(secs));
        let bytes: u64 = w.iter().map(|&(_, s)| s as u64).sum();
        let rate = bytes as f64 * 8.0 / secs as f64;
        assert!((rate / 2e6 - 1.0).abs() < 0.01, "{rate}");
        for size in [40, 576, 1500] {
            let n = w.iter().filter(|&&(_, s)| s == size).count() as f64;
            assert!((n / w.len() as f64 - 1.0 / 3.0).abs() < 0.01, "{size}: {n}");
        }
        // Exponential gaps: the coefficient of variation is 1, P(gap > mean) = 1/e.
        let gaps: Vec<f64> = w
            .windows(2)
            .map(|x| x[1].0.since(x[0].0).as_secs_f64())
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.02,
            "cv {}",
            var.sqrt() / mean
        );
        let above = gaps.iter().filter(|&&g| g > mean).count() as f64 / gaps.len() as f64;
        assert!((above - (-1f64).exp()).abs() < 0.01, "{above}");
    }

    #[test]
    fn weights_set_the_mix_and_seeds_change_it() {
        let mut a = spec(8_000_000, vec![100, 1000], Some(vec![3.0, 1.0]))
            .build(&cx(1))
            .unwrap();
        let w = writes(&mut a, SimTime::ZERO + SimDuration::from_secs(100));
        let small = w.iter().filter(|&&(_, s)| s == 100).count() as f64 / w.len() as f64;
        assert!((small - 0.75).abs() < 0.01, "{small}");
        let again = writes(
            &mut spec(8_000_000, vec![100, 1000], Some(vec![3.0, 1.0]))
                .build(&cx(1))
                .unwrap(),
            SimTime::ZERO + SimDuration::from_secs(100),
        );
        let other = writes(
            &mut spec(8_000_000, vec![100, 1000], Some(vec![3.0, 1.0]))
                .build(&cx(2))
                .unwrap(),
            SimTime::ZERO + SimDuration::from_secs(100),
        );
        assert_eq!(w, again);
        assert_ne!(w, other);
        // A zero weight never draws its size.
        let mut z = spec(8_000_000, vec![100, 1000], Some(vec![0.0, 1.0]))
            .build(&cx(1))
            .unwrap();
        assert!(writes(&mut z, SimTime::ZERO + SimDuration::from_secs(1))
            .iter()
            .all(|&(_, s)| s == 1000));
    }

    #[test]
    fn bad_mixes_name_the_key() {
        let e = |s: PoissonSpec| s.build(&cx(1)).err().unwrap().to_string();
        assert!(e(spec(1_000_000, vec![], None)).contains("flows.x.app.sizes"));
        assert!(e(spec(1_000_000, vec![0, 10], None)).contains("positive"));
        assert!(e(spec(1_000_000, vec![70_000], None)).contains("65507"));
        let w = e(spec(1_000_000, vec![40, 1500], Some(vec![1.0])));
        assert!(
            w.contains("flows.x.app.weights") && w.contains("1 weights for 2 sizes"),
            "{w}"
        );
        assert!(e(spec(1_000_000, vec![40], Some(vec![-1.0]))).contains("not a weight"));
        assert!(e(spec(1_000_000, vec![40], Some(vec![0.0]))).contains("at least one weight"));
        assert!(e(spec(0, vec![40], None)).contains("flows.x.app.rate"));
    }
}

//! `onoff`: an on/off source (VBR background traffic), over UDP or TCP.

use super::{App, AppCx};
use crate::config::units::{DurationValue, RateValue};
use crate::config::ScenarioError;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime, PS_PER_S};
use schemars::JsonSchema;
use serde::Deserialize;

/// On/off source: during an on period it writes `packet_size` bytes at the constant
/// spacing of the peak `rate`; during an off period it is silent. Like ns-3's
/// OnOffApplication it begins with an off period, and the spacing continues across off
/// periods, so the long-run mean rate is exactly rate·on/(on+off). `semantics = "ns2"`
/// draws bursts as ns-2.35's `Application/Traffic/Exponential` does (see [`Semantics`]).
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Peak rate during on periods (payload bytes only), e.g. "30Mbps".
    pub rate: RateValue,
    /// Payload bytes per write: one UDP datagram's payload, or one TCP write.
    #[serde(default = "super::cbr::default_packet_size")]
    pub packet_size: u32,
    /// On-period length (the mean, when exponential), e.g. "0.5s".
    pub on: DurationValue,
    /// Off-period length (the mean, when exponential), e.g. "1.2s". Give `off` or
    /// `mean_rate`.
    #[serde(default)]
    pub off: Option<DurationValue>,
    /// Long-run mean rate instead of `off`: off = on·(rate/mean_rate − 1), e.g. seed 001's
    /// backward load 0.9 of 16 Mb/s with 30 Mb/s peaks is `mean_rate = "14.4Mbps"`.
    /// "0bps" makes a source that never sends (load 0 of a sweep).
    #[serde(default)]
    pub mean_rate: Option<String>,
    /// "exponential" (default) or "constant" period lengths.
    #[serde(default)]
    pub distribution: Distribution,
    /// `"ns2"`: ns-2.35's rules, i.e. `semantics = "ns2"`. Profile `ns2` sets it.
    #[serde(default)]
    pub compat: Option<crate::config::profile::Compat>,
    /// How a burst is drawn: "ns3" (the default without `compat`: on durations, spacing
    /// carried across off periods) or "ns2" (ns-2.35's `Application/Traffic/Exponential`:
    /// whole packets).
    #[serde(default)]
    pub semantics: Option<Semantics>,
    /// When the first off period begins (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No writes from this time on (default: never).
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    #[default]
    Exponential,
    Constant,
}

/// How an on/off source draws its bursts.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// ns-3's OnOffApplication: an on period is a duration (exponential or constant with
    /// mean `on`); writes fall on a virtual clock that runs only while on, so the spacing
    /// carries across off periods and an on period may hold no write.
    #[default]
    Ns3,
    /// ns-2.35's `Application/Traffic/Exponential` (tools/expoo.cc, `EXPOO_Traffic::init`
    /// and `next_interval`, started by `TrafficGenerator::start`): each cycle draws a burst
    /// length in packets, n = max(1, ⌊X + 0.5⌋) with X exponential of mean
    /// `on`/spacing (X = `on`/spacing itself when `constant`), and an off period of mean
    /// `off`; the burst's packets are written at off + 1·spacing, …, off + n·spacing after
    /// the cycle began, and the next cycle begins at the n-th write. So the source begins
    /// silent (off plus one spacing), every gap between bursts is off + one spacing, and no
    /// fraction of a spacing carries over: mean rate rate·E[n]·spacing/(E[n]·spacing + off).
    Ns2,
}

/// Runtime state of an on/off source.
///
/// Writes are spaced on a virtual clock that runs only during on periods: write `k` is
/// due when the on time accumulated since the source (re)started reaches `k·size·8/rate`
/// (ns-3's OnOffApplication carries its residual bits across off periods the same way), so
/// over a long run the source writes exactly rate·(total on time), whatever the period
/// lengths; an on period shorter than the spacing may carry no write.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub packet_size: u32,
    on: SimDuration,
    off: SimDuration,
    exponential: bool,
    rng: SimRng,
    /// `size·8·10^12` and the rate in b/s: write `k` is due at virtual time `k·bits_ps/bps`.
    bits_ps: u128,
    bps: u128,
    /// Index of the next write.
    k: u64,
    /// Real and virtual time at which the current on period began.
    burst_t: SimTime,
    burst_v: u64,
    /// End of the current on period.
    on_end: SimTime,
    /// `mean_rate = 0`: never writes.
    silent: bool,
    /// `semantics = "ns2"`: bursts of `burst_n` writes, write `j` (1-based) of the burst
    /// at `burst_t + due(j)` (`burst_t`: the end of the cycle's off period).
    ns2: bool,
    burst_n: u64,
    burst_j: u64,
}

/// Most on periods a write may need (spacing of writes / mean on period). Each costs two
/// draws inside one event, and a run has as many such events as writes: at 10^6 (the
/// first bound) a 10-ms run of 1-byte writes at 10 Mb/s with 1-ps periods took 5·10^9
/// draws (fuzz/regressions/run_bounded/onoff_on_1ps_1byte). An on period a thousand times
/// shorter than one write's spacing already carries no meaning as traffic.
pub const MAX_PERIODS_PER_WRITE: u128 = 1_000;

impl OnOffSpec {
    /// How bursts are drawn: `semantics` where written, else `compat`'s.
    pub fn effective_semantics(&self) -> Semantics {
        match (self.semantics, self.compat) {
            (Some(s), _) => s,
            (None, Some(crate::config::profile::Compat::Ns2)) => Semantics::Ns2,
            (None, None) => Semantics::Ns3,
        }
    }

    /// The keys profile `p` sets in an on/off source's table: under `ns2`, `compat = "ns2"`:
    /// ns-2.35's Application/Traffic/Exponential bursts in whole packets (`semantics =
    /// "ns2"`, tools/expoo.cc, `EXPOO_Traffic::next_interval`).
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match p {
            crate::config::profile::Profile::Ns2 => {
                vec![("compat", serde_json::Value::from("ns2"))]
            }
            _ => Vec::new(),
        }
    }

    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        let size = super::packet_size(cx, self.packet_size)?;
        if self.on.0 == SimDuration::ZERO {
            return Err(cx.err("on", "must be positive"));
        }
        let (start, stop) = cx.window(self.start, self.stop)?;
        let bps = self.rate.0.bps();
        let ns2 = self.effective_semantics() == Semantics::Ns2;
        // A write takes spacing / on periods to reach when the on periods are shorter than
        // the spacing (the virtual clock runs only while on): bound that work per write.
        // (ns-2's bursts hold at least one write: one cycle per write at most.)
        let spacing = size as u128 * 8 * PS_PER_S as u128 / bps.max(1) as u128;
        let per_write = spacing / self.on.0 .0 as u128;
        if !ns2 && per_write > MAX_PERIODS_PER_WRITE {
            return Err(cx.err(
                "on",
                format!(
                    "{} is {per_write} times shorter than the spacing of writes at the peak rate ({}): each write would take that many on/off periods; make `on` at least 1/{MAX_PERIODS_PER_WRITE} of the spacing",
                    self.on.0,
                    SimDuration(spacing.min(u64::MAX as u128) as u64)
                ),
            ));
        }
        let (off, silent) = match (&self.off, &self.mean_rate) {
            (Some(off), None) => (off.0, false),
            (None, Some(m)) => match parse_mean_rate(m) {
                Ok(0) => (SimDuration::ZERO, true),
                Ok(mean) if mean > bps => {
                    return Err(cx.err(
                        "mean_rate",
                        format!("'{m}' is above the peak rate {bps} b/s"),
                    ))
                }
                Ok(mean) => {
                    let off = self.on.0 .0 as u128 * (bps - mean) as u128 / mean as u128;
                    if off > u64::MAX as u128 {
                        return Err(
                            cx.err("mean_rate", format!("'{m}' makes the off period too long"))
                        );
                    }
                    (SimDuration(off as u64), false)
                }
                Err(e) => return Err(cx.err("mean_rate", e)),
            },
            (Some(_), Some(_)) => {
                return Err(cx.err("off", "give either `off` or `mean_rate`, not both"))
            }
            (None, None) => {
                return Err(cx.err(
                    "off",
                    "missing: give `off` (the mean off period) or `mean_rate`",
                ))
            }
        };
        Ok(App::OnOff(OnOff {
            start,
            stop,
            packet_size: size,
            on: self.on.0,
            off,
            exponential: self.distribution == Distribution::Exponential,
            rng: cx.rng(),
            bits_ps: size as u128 * 8 * PS_PER_S as u128,
            bps: self.rate.0.bps() as u128,
            k: 0,
            burst_t: SimTime::ZERO,
            burst_v: 0,
            on_end: SimTime::ZERO,
            silent,
            ns2,
            burst_n: 0,
            burst_j: 0,
        }))
    }
}

/// A mean rate that may be zero ("0bps", "0"): bits per second.
fn parse_mean_rate(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let zero = t.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '/');
    if !zero.is_empty() && zero.parse::<f64>() == Ok(0.0) {
        return Ok(0);
    }
    crate::config::units::parse_rate(t).map(|r| r.bps())
}

impl OnOff {
    /// The stream the period lengths are drawn from (`run.stochastic`).
    pub(crate) fn rng(&self) -> &SimRng {
        &self.rng
    }

    /// Whether the period lengths are drawn at random.
    pub fn is_random(&self) -> bool {
        self.exponential && !self.silent
    }

    /// A period of mean `mean`: itself, or exponential with that mean (rounded to ps).
    fn draw(&mut self, mean: SimDuration) -> SimDuration {
        if !self.exponential || mean == SimDuration::ZERO {
            return mean;
        }
        let u = self.rng.next_f64(); // [0, 1): 1 - u > 0
        let x = -(mean.0 as f64) * (1.0 - u).ln();
        SimDuration(x.round().min(1e18) as u64)
    }
    /// Virtual (on-time) due time of write `k`, in ps.
    #[inline]
    fn due(&self, k: u64) -> u64 {
        (k as u128 * self.bits_ps / self.bps).min(u64::MAX as u128) as u64
    }
    /// An off period, then an on period, from `t`.
    fn new_burst(&mut self, t: SimTime) {
        self.burst_t = t + self.draw(self.off);
        self.on_end = self.burst_t + self.draw(self.on);
    }
    /// Real time of write `k`: in the current on period, or in a later one.
    fn next_write(&mut self) -> SimTime {
        loop {
            let t = self.burst_t + SimDuration(self.due(self.k) - self.burst_v);
            if t < self.on_end {
                return t;
            }
            self.burst_v += self.on_end.since(self.burst_t).0;
            self.new_burst(self.on_end);
        }
    }
    /// ns-2 semantics: a new cycle from `t`: the burst length in packets (ns-2 draws it
    /// first), then the off period.
    fn new_cycle_ns2(&mut self, t: SimTime) {
        // Mean burst length on/spacing = on·bps / (size·8), in packets.
        let mean = self.on.0 as f64 * self.bps as f64 / self.bits_ps as f64;
        let x = if self.exponential {
            let u = self.rng.next_f64(); // [0, 1): 1 - u > 0
            -mean * (1.0 - u).ln()
        } else {
            mean
        };
        self.burst_n = ((x + 0.5).floor().min(1e18) as u64).max(1);
        self.burst_j = 1;
        self.burst_t = t + self.draw(self.off);
    }
    pub(super) fn begin(&mut self, now: SimTime) -> SimTime {
        if self.silent {
            return SimTime::MAX;
        }
        if self.ns2 {
            self.new_cycle_ns2(now);
            return self.burst_t + SimDuration(self.due(self.burst_j));
        }
        self.burst_v = self.due(self.k);
        self.new_burst(now);
        self.next_write()
    }
    #[inline]
    pub(super) fn tick(&mut self, _now: SimTime) -> (u32, SimTime) {
        self.k += 1;
        if self.ns2 {
            if self.burst_j >= self.burst_n {
                // The burst's last write: the next cycle begins now.
                let end = self.burst_t + SimDuration(self.due(self.burst_j));
                self.new_cycle_ns2(end);
            } else {
                self.burst_j += 1;
            }
            return (
                self.packet_size,
                self.burst_t + SimDuration(self.due(self.burst_j)),
            );
        }
        (self.packet_size, self.next_write())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, AppCx, Begin};
    use crate::config::units::{DurationValue, RateValue};
    use crate::time::Rate;

    fn source(seed: u64, dist: Distribution, on_ms: u64, off_ms: u64, bps: u64) -> App {
        let spec = OnOffSpec {
            rate: RateValue(Rate(bps)),
            packet_size: 1000,
            on: DurationValue(SimDuration::from_ms(on_ms)),
            off: Some(DurationValue(SimDuration::from_ms(off_ms))),
            mean_rate: None,
            distribution: dist,
            semantics: Some(Semantics::Ns3),
            compat: None,
            start: None,
            stop: None,
        };
        spec.build(&AppCx {
            field: "flows.f.app",
            seed,
            index: 0,
            transport: "udp",
        })
        .unwrap()
    }

    /// Write times before `end`.
    fn writes(app: &mut App, end: SimTime) -> Vec<SimTime> {
        let Begin::Tick(mut t) = app.begin(SimTime::ZERO) else {
            panic!("active source")
        };
        let mut v = Vec::new();
        while t < end {
            v.push(t);
            t = app.tick(t).1;
        }
        v
    }

    #[test]
    fn exponential_long_run_mean_rate() {
        // Peak 8 Mb/s, 1000 B = 1 ms spacing; on 1 ms, off 3 ms (means): 1 M cycles.
        let end = SimTime::ZERO + SimDuration::from_secs(4000);
        let n = writes(
            &mut source(5, Distribution::Exponential, 1, 3, 8_000_000),
            end,
        )
        .len();
        let rate = n as f64 * 8000.0 / 4000.0;
        let expect = 8e6 * 1.0 / 4.0;
        assert!((rate / expect - 1.0).abs() < 0.005, "{rate} vs {expect}");
    }

    #[test]
    fn on_periods_far_below_the_spacing_are_refused() {
        // 1 ps on periods at 1 Mb/s (8 ms spacing): 8e9 periods per write.
        let spec = |on: SimDuration| OnOffSpec {
            rate: RateValue(Rate(1_000_000)),
            packet_size: 1000,
            on: DurationValue(on),
            off: Some(DurationValue(on)),
            mean_rate: None,
            distribution: Distribution::Exponential,
            semantics: Some(Semantics::Ns3),
            compat: None,
            start: None,
            stop: None,
        };
        let cx = AppCx {
            field: "flows.f.app",
            seed: 1,
            index: 0,
            transport: "udp",
        };
        let e = spec(SimDuration(1)).build(&cx).unwrap_err();
        assert_eq!(e.field, "flows.f.app.on", "{e:?}");
        assert!(e.reason.contains("8000000000 times shorter"), "{e:?}");
        // 8 us: exactly a thousand periods per write, accepted; 7.99 us (1001), refused.
        assert!(spec(SimDuration(8_000_000)).build(&cx).is_ok());
        let e = spec(SimDuration(7_990_000)).build(&cx).unwrap_err();
        assert!(e.reason.contains("1001 times shorter"), "{e:?}");
    }

    #[test]
    fn constant_periods_are_exact() {
        // On 10 ms at 1 ms spacing, off 30 ms: ten writes per 40 ms cycle, first after
        // the first off period, then 1 ms apart.
        let end = SimTime::ZERO + SimDuration::from_ms(400);
        let w = writes(
            &mut source(1, Distribution::Constant, 10, 30, 8_000_000),
            end,
        );
        assert_eq!(w.len(), 100);
        assert_eq!(w[0], SimTime::ZERO + SimDuration::from_ms(30));
        assert_eq!(w[9], SimTime::ZERO + SimDuration::from_ms(39));
        assert_eq!(w[10], SimTime::ZERO + SimDuration::from_ms(70));
    }

    #[test]
    fn seeds_change_exponential_periods() {
        let end = SimTime::ZERO + SimDuration::from_secs(1);
        let a = writes(
            &mut source(1, Distribution::Exponential, 10, 30, 8_000_000),
            end,
        );
        let b = writes(
            &mut source(1, Distribution::Exponential, 10, 30, 8_000_000),
            end,
        );
        let c = writes(
            &mut source(2, Distribution::Exponential, 10, 30, 8_000_000),
            end,
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    fn with_mean(mean: &str, off: Option<u64>) -> Result<App, ScenarioError> {
        OnOffSpec {
            rate: RateValue(Rate(30_000_000)),
            packet_size: 1000,
            on: DurationValue(SimDuration::from_ms(500)),
            off: off.map(|ms| DurationValue(SimDuration::from_ms(ms))),
            mean_rate: Some(mean.to_string()),
            distribution: Distribution::Exponential,
            semantics: Some(Semantics::Ns3),
            compat: None,
            start: None,
            stop: None,
        }
        .build(&AppCx {
            field: "flows.vbr.app",
            seed: 3,
            index: 0,
            transport: "udp",
        })
    }

    #[test]
    fn mean_rate_sets_the_off_period() {
        // Seed 001's load 0.9 of 16 Mb/s with 30 Mb/s peaks and 0.5-s on periods:
        // off = 0.5 (30/14.4 - 1) = 0.541666... s; long-run rate 14.4 Mb/s.
        let Ok(App::OnOff(o)) = with_mean("14.4Mbps", None) else {
            panic!()
        };
        assert_eq!(o.off, SimDuration(541_666_666_666));
        let end = SimTime::ZERO + SimDuration::from_secs(20_000);
        let n = writes(&mut with_mean("14.4Mbps", None).unwrap(), end).len();
        let rate = n as f64 * 8000.0 / 20_000.0;
        assert!((rate / 14.4e6 - 1.0).abs() < 0.01, "{rate}");
        // Zero: a source that never writes and draws nothing.
        let mut silent = with_mean("0bps", None).unwrap();
        let App::OnOff(o) = &silent else { panic!() };
        assert!(!o.is_random());
        assert!(matches!(
            silent.begin(SimTime::ZERO),
            Begin::Tick(SimTime::MAX)
        ));
        // Errors name the field.
        let e = |m: &str, off| with_mean(m, off).err().unwrap().to_string();
        assert!(e("31Mbps", None).contains("flows.vbr.app.mean_rate"));
        assert!(e("31Mbps", None).contains("above the peak"));
        assert!(e("fast", None).contains("mean_rate"));
        assert!(e("1Mbps", Some(3)).contains("not both"));
    }

    fn ns2_source(seed: u64, dist: Distribution, on_ms: u64, off_ms: u64, bps: u64) -> App {
        OnOffSpec {
            rate: RateValue(Rate(bps)),
            packet_size: 1000,
            on: DurationValue(SimDuration::from_ms(on_ms)),
            off: Some(DurationValue(SimDuration::from_ms(off_ms))),
            mean_rate: None,
            distribution: dist,
            semantics: Some(Semantics::Ns2),
            compat: None,
            start: None,
            stop: None,
        }
        .build(&AppCx {
            field: "flows.f.app",
            seed,
            index: 0,
            transport: "udp",
        })
        .unwrap()
    }

    #[test]
    fn ns2_constant_bursts_are_whole_packets_after_off_plus_one_spacing() {
        // 8 Mb/s, 1000 B: 1 ms spacing; on 10 ms = 10 packets, off 30 ms. As ns-2's
        // EXPOO_Traffic: the first write at off + one spacing (31 ms), ten writes 1 ms
        // apart, then the next burst off + one spacing after the last write (71 ms).
        let w = writes(
            &mut ns2_source(1, Distribution::Constant, 10, 30, 8_000_000),
            SimTime::ZERO + SimDuration::from_ms(401),
        );
        let ms = |x: u64| SimTime::ZERO + SimDuration::from_ms(x);
        assert_eq!(w.len(), 100);
        assert_eq!(w[0], ms(31));
        assert_eq!(w[9], ms(40));
        assert_eq!(w[10], ms(71));
        assert_eq!(w[99], ms(400));
        // An on period of 0.4 spacing rounds to 0 packets: ns-2 sends one anyway; 1.6 -> 2.
        let spec = |on_us: u64| OnOffSpec {
            rate: RateValue(Rate(8_000_000)),
            packet_size: 1000,
            on: DurationValue(SimDuration::from_us(on_us)),
            off: Some(DurationValue(SimDuration::from_ms(10))),
            mean_rate: None,
            distribution: Distribution::Constant,
            semantics: Some(Semantics::Ns2),
            compat: None,
            start: None,
            stop: None,
        };
        let cx = AppCx {
            field: "flows.f.app",
            seed: 1,
            index: 0,
            transport: "udp",
        };
        // Cycles of 11 ms (one write at 11, 22, ... ms) and 12 ms (two, at 11-12, 23-24 ...).
        let end = SimTime::ZERO + SimDuration::from_ms(111);
        assert_eq!(writes(&mut spec(400).build(&cx).unwrap(), end).len(), 10);
        assert_eq!(writes(&mut spec(1600).build(&cx).unwrap(), end).len(), 18);
        // ns3 semantics refuse an on period 10^4 times below the spacing; ns2's bursts
        // hold at least one write, so it is accepted.
        assert!(spec(0).build(&cx).is_err());
        let mut tiny = spec(1);
        tiny.on = DurationValue(SimDuration(100_000)); // 0.1 us
        assert!(tiny.build(&cx).is_ok());
        tiny.semantics = Some(Semantics::Ns3);
        assert!(tiny.build(&cx).is_err());
    }

    /// Burst lengths (in writes) of the first `cycles` ns-2 cycles, and the writes' span.
    fn ns2_bursts(app: &mut App, cycles: usize) -> (Vec<u64>, SimTime) {
        let Begin::Tick(mut t) = app.begin(SimTime::ZERO) else {
            panic!("active source")
        };
        let mut v = Vec::new();
        let mut count = 0;
        while v.len() < cycles {
            let App::OnOff(o) = &*app else { panic!() };
            let (n, j) = (o.burst_n, o.burst_j);
            count += 1;
            if j == n {
                v.push(count);
                count = 0;
            }
            t = app.tick(t).1;
        }
        (v, t)
    }

    #[test]
    fn ns2_exponential_bursts_are_rounded_exponentials_in_packets() {
        // Mean burst mu = on/spacing packets; ns-2 takes n = max(1, floor(X + 0.5)):
        // P(n = 1) = 1 - exp(-1.5/mu), E[n] = 1 + exp(-1.5/mu) / (1 - exp(-1/mu)).
        for (on_ms, mu) in [(1u64, 1.0f64), (50, 50.0)] {
            let mut app = ns2_source(9, Distribution::Exponential, on_ms, 3, 8_000_000);
            let (b, _) = ns2_bursts(&mut app, 100_000);
            let mean = b.iter().sum::<u64>() as f64 / b.len() as f64;
            let ones = b.iter().filter(|&&n| n == 1).count() as f64 / b.len() as f64;
            let e_mean = 1.0 + (-1.5 / mu).exp() / (1.0 - (-1.0 / mu).exp());
            let e_ones = 1.0 - (-1.5 / mu).exp();
            assert!(
                (mean / e_mean - 1.0).abs() < 0.01,
                "mu {mu}: {mean} vs {e_mean}"
            );
            assert!((ones - e_ones).abs() < 0.005, "mu {mu}: {ones} vs {e_ones}");
            assert!(b.iter().all(|&n| n >= 1));
        }
    }

    #[test]
    fn ns2_long_run_mean_rate_and_seeds() {
        // Peak 8 Mb/s, 1 ms spacing, on 20 ms (mu = 20 packets), off 60 ms: cycles of
        // E[n] ms + 60 ms; E[n] = 1 + e^-0.075 / (1 - e^-0.05) = 20.0 (to 0.02).
        let mut app = ns2_source(5, Distribution::Exponential, 20, 60, 8_000_000);
        let (b, t) = ns2_bursts(&mut app, 100_000);
        let n: u64 = b.iter().sum();
        let secs = t.since(SimTime::ZERO).0 as f64 / 1e12;
        let mu = 20.0f64;
        let e_n = 1.0 + (-1.5 / mu).exp() / (1.0 - (-1.0 / mu).exp());
        let expect = 8e6 * e_n / (e_n + 60.0);
        let rate = n as f64 * 8000.0 / secs;
        assert!((rate / expect - 1.0).abs() < 0.01, "{rate} vs {expect}");
        let end = SimTime::ZERO + SimDuration::from_secs(2);
        let a = writes(
            &mut ns2_source(1, Distribution::Exponential, 20, 60, 8_000_000),
            end,
        );
        let a2 = writes(
            &mut ns2_source(1, Distribution::Exponential, 20, 60, 8_000_000),
            end,
        );
        let c = writes(
            &mut ns2_source(2, Distribution::Exponential, 20, 60, 8_000_000),
            end,
        );
        assert_eq!(a, a2);
        assert_ne!(a, c);
        // Within a burst the writes are one spacing apart; between bursts at least that.
        assert!(a
            .windows(2)
            .all(|p| p[1].since(p[0]) >= SimDuration::from_ms(1)));
    }
}

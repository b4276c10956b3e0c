//! CUBIC, with HyStart++ as an option.
//!
//! References: L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-Distance
//! Networks", RFC 9438 (2023), §4; P. Balasubramanian, Y. Huang, M. Olson, "HyStart++:
//! Modified Slow Start for TCP", RFC 9406 (2023), §4.
//!
//! Units: windows in **segments** (W = cwnd / MSS, real-valued) inside the formulas, time in
//! seconds; `cwnd()`/`ssthresh()` report bytes (W·MSS, truncated) as every algorithm does.
//!
//! Formulas (RFC 9438; C = `c` = 0.4 segments/s³, β = `beta` = 0.7):
//! - §4.2 window curve: `W_cubic(t) = C·(t − K)³ + W_max`, `K = cbrt((W_max − cwnd_epoch)/C)`,
//!   t = time since the congestion-avoidance epoch began (`t_epoch`, the first
//!   congestion-avoidance ack after a reduction), `cwnd_epoch` = W then
//! - §4.2 target: `target = W_cubic(t + RTT)` clamped to `[W, 1.5·W]` (RTT = smoothed RTT)
//! - §4.3 Reno-friendly region: `W_est = cwnd_epoch` at the epoch start, then per ack
//!   `W_est += α_cubic·segments_acked/W`, `α_cubic = 3(1 − β)/(1 + β)`, and `α_cubic = 1` once
//!   `W_est ≥ cwnd_prior`; if `W_cubic(t) < W_est`: `W = W_est`
//! - §4.4/§4.5 concave and convex regions: `W += (target − W)/W` per segment acked
//! - §4.6 multiplicative decrease (fast retransmit, ECN): `cwnd_prior = W`,
//!   `ssthresh = max(β·W, 2)`, `W = ssthresh`; `W_max = W` before the cut
//! - §4.7 fast convergence (`fast_convergence = true`): if `W < W_max` at the cut, then
//!   `W_max = W·(1 + β)/2` instead
//! - §4.8 timeout: ssthresh as §4.6 (and W_max, fast convergence), `W = 1`; in the first
//!   congestion-avoidance stage after it, `K = 0` and `W_max = cwnd_epoch`
//! - §4.10 slow start: standard (`W += min(acked, 1)` per ack, as `reno`; with the flow's
//!   `ack_counting = "segments"`, `W = min(W + acked, ssthresh)` and the rest of the ack to
//!   congestion avoidance, as Linux's `tcp_slow_start`) or HyStart++; when
//!   slow start ends without a loss (HyStart++), `K = 0` and `W_max = cwnd_epoch` as after a
//!   timeout, `cwnd_prior = W`
//! - end of fast recovery: `W = ssthresh` (or RFC 6582 §3.2 step 3 with
//!   `recovery_exit = "flightsize"`); a new epoch starts at the next ack
//!
//! HyStart++ (RFC 9406 §4.2, `hystart = true`; constants as recommended there: MIN_RTT_THRESH
//! 4 ms, MAX_RTT_THRESH 16 ms, MIN_RTT_DIVISOR 8, N_RTT_SAMPLE 8, CSS_GROWTH_DIVISOR 4,
//! CSS_ROUNDS 5, L = 8 for a sender without pacing):
//! - rounds: a round ends at the first ack that covers the data sent when it began
//!   (`delivered ≥ window_end`, `window_end = delivered + in_flight` at its start); at a
//!   round start `lastRoundMinRTT = currentRoundMinRTT`, `currentRoundMinRTT = ∞`, samples 0
//! - slow start: `W += min(acked, L)` per ack; after N_RTT_SAMPLE samples in a round, if
//!   `currentRoundMinRTT ≥ lastRoundMinRTT + clamp(lastRoundMinRTT/8, 4 ms, 16 ms)`:
//!   `cssBaselineMinRtt = currentRoundMinRTT`, enter Conservative Slow Start (CSS)
//! - CSS: `W += min(acked, L)/4` per ack; if a round's min RTT (after N_RTT_SAMPLE samples)
//!   falls below `cssBaselineMinRtt`, back to slow start; after CSS_ROUNDS rounds,
//!   `ssthresh = W` (congestion avoidance)
//! - used in the initial slow start only (RFC 9406 §4.3 lets an implementation also use it
//!   after a timeout; this one does not); a loss or ECN echo ends it (the usual reduction)
//!
//! `hystart` defaults to true: Linux's CUBIC also runs a hybrid slow start by default, but
//! its `hystart = 1` is the older HyStart (Ha & Rhee 2011: ack trains and delay increase),
//! not RFC 9406's HyStart++; `hystart = false` is plain slow start.
//!
//! Per ack: a few multiplications (one cube); `cbrt` only at an epoch start. Not
//! implemented: RFC 9438 §4.2's exclusion of application-limited periods from t (the bulk
//! sources used here are never application-limited), §4.9 spurious-congestion undo.

use super::{recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView};
use crate::config::ScenarioError;
use crate::time::{SimDuration, SimTime};

fn default_c() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    0.7
}
fn yes() -> bool {
    true
}

/// `cc = { algorithm = "cubic", c = 0.4, beta = 0.7, fast_convergence = true,
/// reno_friendly = true, hystart = true }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicSpec {
    /// C, the cubic's scaling constant in segments/s³ (default 0.4, RFC 9438 §5.1).
    #[serde(default = "default_c")]
    pub c: f64,
    /// β_cubic, the fraction of the window kept after a congestion event, in (0, 1)
    /// (default 0.7).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7): release bandwidth by lowering W_max when the window
    /// shrinks between losses (default true).
    #[serde(default = "yes")]
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 §4.3): never grow slower than the W_est estimate of an
    /// AIMD(α_cubic, β) flow (default true).
    #[serde(default = "yes")]
    pub reno_friendly: bool,
    /// HyStart++ (RFC 9406) in the initial slow start (default true; Linux's default hybrid
    /// slow start is the older HyStart, not this one).
    #[serde(default = "yes")]
    pub hystart: bool,
}

impl Default for CubicSpec {
    fn default() -> Self {
        CubicSpec {
            c: default_c(),
            beta: default_beta(),
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
        }
    }
}

impl CubicSpec {
    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Cubic, ScenarioError> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(ScenarioError::new(
                format!("{field}.c"),
                format!("must be a positive number (segments/s³), got {}", self.c),
            ));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(ScenarioError::new(
                format!("{field}.beta"),
                format!("must be in (0, 1), got {}", self.beta),
            ));
        }
        Ok(Cubic::new(init, self))
    }
}

/// HyStart++'s phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Standard slow start with RTT-increase detection.
    SlowStart,
    /// Conservative slow start: growth divided by CSS_GROWTH_DIVISOR.
    Css,
    /// HyStart++ is over (left slow start, or disabled).
    Off,
}

const MIN_RTT_THRESH: SimDuration = SimDuration::from_ms(4);
const MAX_RTT_THRESH: SimDuration = SimDuration::from_ms(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;
/// Segments of growth per ack at most (a sender without pacing).
const HYSTART_L: f64 = 8.0;

#[derive(Clone, Debug)]
pub struct Cubic {
    mss: f64,
    c: f64,
    beta: f64,
    alpha_cubic: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    /// Flow key `ack_counting` (standard slow start only: the rest counts segments).
    counting: super::AckCounting,
    /// Window and threshold in segments.
    w: f64,
    ssthresh: f64,
    w_max: f64,
    /// Window just before the last reduction (segments).
    cwnd_prior: f64,
    k: f64,
    /// Start of the current congestion-avoidance epoch.
    t_epoch: Option<SimTime>,
    cwnd_epoch: f64,
    w_est: f64,
    /// The next epoch starts with K = 0 and W_max = cwnd_epoch (after a timeout, or slow
    /// start left without a loss).
    k_zero_next: bool,
    /// α for W_est (α_cubic until W_est reaches cwnd_prior, then 1).
    alpha: f64,
    // HyStart++ state.
    phase: Phase,
    window_end: u64,
    last_round_min: Option<SimDuration>,
    cur_round_min: Option<SimDuration>,
    samples: u32,
    css_baseline: Option<SimDuration>,
    css_rounds: u32,
}

impl Cubic {
    pub fn new(init: super::CcInit, spec: &CubicSpec) -> Self {
        let mss = init.mss as f64;
        let beta = spec.beta;
        Cubic {
            mss,
            c: spec.c,
            beta,
            alpha_cubic: 3.0 * (1.0 - beta) / (1.0 + beta),
            fast_convergence: spec.fast_convergence,
            reno_friendly: spec.reno_friendly,
            counting: init.ack_counting,
            w: init.init_cwnd as f64 / mss,
            ssthresh: init.init_ssthresh as f64 / mss,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            k_zero_next: true,
            alpha: 3.0 * (1.0 - beta) / (1.0 + beta),
            phase: if spec.hystart {
                Phase::SlowStart
            } else {
                Phase::Off
            },
            window_end: 0,
            last_round_min: None,
            cur_round_min: None,
            samples: 0,
            css_baseline: None,
            css_rounds: 0,
        }
    }

    /// W_cubic(t), segments.
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.c * d * d * d + self.w_max
    }
    /// (W_max, K in seconds, the epoch's start) for tests and traces.
    pub fn curve(&self) -> (f64, f64, Option<SimTime>) {
        (self.w_max, self.k, self.t_epoch)
    }

    fn start_epoch(&mut self, now: SimTime) {
        self.t_epoch = Some(now);
        self.cwnd_epoch = self.w;
        self.w_est = self.w;
        if self.k_zero_next {
            self.k_zero_next = false;
            self.k = 0.0;
            self.w_max = self.w;
        } else {
            self.k = ((self.w_max - self.cwnd_epoch) / self.c).cbrt();
        }
    }

    /// Congestion avoidance, one ack of `acked` segments.
    #[inline]
    fn avoid(&mut self, now: SimTime, acked: f64, c: &ConnView) {
        if self.t_epoch.is_none() {
            self.start_epoch(now);
        }
        let t = now.since(self.t_epoch.unwrap_or(now)).as_secs_f64();
        let rtt = c.srtt.map_or(0.0, |r| r.as_secs_f64());
        if self.reno_friendly {
            self.w_est += self.alpha * acked / self.w;
            if self.alpha < 1.0 && self.w_est >= self.cwnd_prior {
                self.alpha = 1.0;
            }
            if self.w_cubic(t) < self.w_est {
                self.w = self.w_est;
                return;
            }
        }
        let target = self.w_cubic(t + rtt).clamp(self.w, 1.5 * self.w);
        self.w += (target - self.w) / self.w * acked;
    }

    /// Slow start (with HyStart++ when on), one ack; returns the segments of the ack left
    /// for congestion avoidance (`ack_counting = "segments"` without HyStart++ only).
    #[inline]
    fn slow_start(&mut self, ack: &AckSample, c: &ConnView) -> f64 {
        let acked = ack.newly_acked as f64 / self.mss;
        if self.phase == Phase::Off {
            return match self.counting {
                super::AckCounting::Acks => {
                    self.w += acked.min(1.0);
                    0.0
                }
                super::AckCounting::Segments => {
                    let grow = acked.min((self.ssthresh - self.w).max(0.0));
                    self.w += grow;
                    acked - grow
                }
            };
        }
        // Round boundaries.
        if ack.delivered >= self.window_end {
            self.window_end = ack.delivered + c.in_flight;
            self.last_round_min = self.cur_round_min;
            self.cur_round_min = None;
            self.samples = 0;
            if self.phase == Phase::Css {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.leave_slow_start();
                    return 0.0;
                }
            }
        }
        if let Some(r) = ack.rtt {
            self.cur_round_min = Some(self.cur_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let inc = acked.min(HYSTART_L);
        match self.phase {
            Phase::SlowStart => {
                self.w += inc;
                if self.samples >= N_RTT_SAMPLE {
                    if let (Some(cur), Some(last)) = (self.cur_round_min, self.last_round_min) {
                        let thresh = SimDuration(last.0 / MIN_RTT_DIVISOR)
                            .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                        if cur >= last + thresh {
                            self.css_baseline = Some(cur);
                            self.css_rounds = 0;
                            self.phase = Phase::Css;
                        }
                    }
                }
            }
            Phase::Css => {
                self.w += inc / CSS_GROWTH_DIVISOR;
                if self.samples >= N_RTT_SAMPLE {
                    if let (Some(cur), Some(base)) = (self.cur_round_min, self.css_baseline) {
                        if cur < base {
                            self.css_baseline = None;
                            self.phase = Phase::SlowStart;
                        }
                    }
                }
            }
            Phase::Off => unreachable!(),
        }
        0.0
    }

    /// HyStart++ ends slow start without a loss: congestion avoidance from here.
    fn leave_slow_start(&mut self) {
        self.phase = Phase::Off;
        self.ssthresh = self.w;
        self.cwnd_prior = self.w;
        self.k_zero_next = true;
        self.t_epoch = None;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn cwnd(&self) -> u64 {
        (self.w * self.mss) as u64
    }
    fn ssthresh(&self) -> u64 {
        // Saturates: an unset (infinite) threshold is u64::MAX.
        (self.ssthresh * self.mss) as u64
    }
    /// The exact window, W_max and W_est in segments, K and the epoch's start in seconds
    /// (NaN outside congestion avoidance), and HyStart++'s phase (0 slow start, 1 CSS,
    /// 2 off).
    fn trace_names(&self) -> &'static [&'static str] {
        &[
            "cwnd_segments",
            "w_max_segments",
            "k_s",
            "epoch_s",
            "w_est_segments",
            "hystart_phase",
        ]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.w;
        out[1] = self.w_max;
        out[2] = self.k;
        out[3] = self.t_epoch.map_or(f64::NAN, |t| t.as_secs_f64());
        out[4] = self.w_est;
        out[5] = match self.phase {
            Phase::SlowStart => 0.0,
            Phase::Css => 1.0,
            Phase::Off => 2.0,
        };
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        if ack.newly_acked == 0 || c.state == CaState::Recovery {
            return;
        }
        if self.w * self.mss >= c.max_window as f64 {
            return;
        }
        if self.w < self.ssthresh {
            let rest = self.slow_start(ack, c);
            if rest > 0.0 {
                self.avoid(now, rest, c);
            }
        } else {
            self.avoid(now, ack.newly_acked as f64 / self.mss, c);
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, _c: &ConnView) {
        // HyStart++ is for the initial slow start only.
        self.phase = Phase::Off;
        let w = self.w;
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.alpha = self.alpha_cubic;
        self.ssthresh = (self.beta * w).max(2.0);
        self.t_epoch = None;
        match why {
            Congestion::Timeout => {
                self.w = 1.0;
                self.k_zero_next = true;
            }
            Congestion::FastRetransmit | Congestion::Ecn => {
                self.w = self.ssthresh;
                self.k_zero_next = false;
            }
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        // W = ssthresh exactly (in segments, not through whole bytes: a fraction of a byte
        // below ssthresh would make the next ack slow start's, +1 segment with
        // `ack_counting = "acks"`); with `recovery_exit = "flightsize"` at most
        // max(FlightSize, S) + S.
        self.w = self
            .ssthresh
            .min(recovery_exit_cwnd(u64::MAX, c) as f64 / self.mss);
        self.t_epoch = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::cc::CcInit;

    const S: u32 = 1000;

    fn cubic(w: u64, ssthresh: u64, spec: CubicSpec) -> Cubic {
        Cubic::new(
            CcInit {
                mss: S,
                init_cwnd: w * S as u64,
                init_ssthresh: ssthresh,
                ack_counting: Default::default(),
            },
            &spec,
        )
    }

    /// Drive congestion avoidance with one ack per segment, `w` acks per RTT, starting at
    /// `t0`; returns samples (t since t0, W) once per RTT.
    fn run(cc: &mut Cubic, t0: SimTime, rtt: SimDuration, rounds: u32) -> Vec<(f64, f64)> {
        let mut v = view(S, 0, CaState::Open);
        v.srtt = Some(rtt);
        let mut now = t0;
        let mut out = Vec::new();
        for _ in 0..rounds {
            let n = cc.w.floor().max(1.0) as u64;
            let dt = SimDuration(rtt.0 / n);
            for _ in 0..n {
                now += dt;
                cc.on_ack(now, &ack(S as u64), &v);
            }
            out.push((now.since(t0).as_secs_f64(), cc.w));
        }
        out
    }

    #[test]
    fn window_follows_the_cubic_between_losses() {
        // A long RTT puts CUBIC in its cubic region (Reno-friendly off to see the curve).
        let spec = CubicSpec {
            reno_friendly: false,
            ..CubicSpec::default()
        };
        let mut cc = cubic(1000, u64::MAX, spec);
        let v = view(S, 0, CaState::Open);
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert!((cc.w - 700.0).abs() < 1e-9);
        cc.on_recovery_exit(SimTime::ZERO, &v);
        let rtt = SimDuration::from_ms(100);
        let t0 = SimTime(1_000_000_000_000);
        let samples = run(&mut cc, t0, rtt, 200);
        let (w_max, k, _) = cc.curve();
        assert_eq!(w_max, 1000.0);
        // K = cbrt(1000·0.3/0.4) = 9.086 s.
        assert!((k - (300.0f64 / 0.4).cbrt()).abs() < 1e-9, "{k}");
        for &(t, w) in &samples {
            // The epoch starts at the first ack (t0 + dt); W runs one RTT ahead of the curve
            // at most, and lags its target by less than a segment per ack.
            let lo = cc.w_cubic(t - 0.1);
            let hi = cc.w_cubic(t + 0.1);
            assert!(
                w >= lo - 2.0 && w <= hi + 2.0,
                "t {t}: W {w}, curve {lo}..{hi}"
            );
        }
        // Plateau near W_max around K, convex growth after.
        let near_k = samples.iter().find(|s| (s.0 - k).abs() < 0.1).unwrap();
        assert!((near_k.1 - 1000.0).abs() < 3.0, "{near_k:?}");
        // t = 20 s: W_cubic = 0.4·(20 − 9.09)³ + 1000 = 1519.
        assert!(samples.last().unwrap().1 > 1450.0, "{:?}", samples.last());
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cc = cubic(100, u64::MAX, CubicSpec::default());
        let v = view(S, 0, CaState::Open);
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert_eq!(cc.w_max, 100.0);
        // A second loss below W_max: W_max = 70·(1.7/2) = 59.5.
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert!((cc.w_max - 59.5).abs() < 1e-9);
        assert!((cc.w - 49.0).abs() < 1e-9);
        let mut nf = cubic(
            100,
            u64::MAX,
            CubicSpec {
                fast_convergence: false,
                ..CubicSpec::default()
            },
        );
        nf.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        nf.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert_eq!(nf.w_max, 70.0);
    }

    #[test]
    fn reno_friendly_region_at_short_rtt() {
        // 1 ms RTT, small window: the cubic grows far slower than AIMD(α_cubic, 0.7).
        let mut cc = cubic(20, u64::MAX, CubicSpec::default());
        let v = view(S, 0, CaState::Open);
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        cc.on_recovery_exit(SimTime::ZERO, &v);
        let w0 = cc.w;
        let rounds = 50;
        run(&mut cc, SimTime::ZERO, SimDuration::from_ms(1), rounds);
        // α_cubic = 3·0.3/1.7 = 0.529 segments per RTT until W_est reaches cwnd_prior = 20
        // (11 rounds from 14), then 1 per RTT: about 14 + 6 + 39 = 59 after 50 rounds.
        let a = 3.0 * 0.3 / 1.7;
        let to_prior = (20.0 - w0) / a;
        let want = 20.0 + (rounds as f64 - to_prior);
        assert!((cc.w - want).abs() < 2.0, "W {} vs {want}", cc.w);
        assert!(cc.w_cubic(0.05) < cc.w, "cubic alone would be slower");
    }

    #[test]
    fn target_is_clamped_to_half_a_window_per_rtt() {
        // Far beyond K the cubic races ahead: growth at most 1.5x per RTT.
        let spec = CubicSpec {
            reno_friendly: false,
            ..CubicSpec::default()
        };
        let mut cc = cubic(10, u64::MAX, spec);
        let v = view(S, 0, CaState::Open);
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        let s = run(&mut cc, SimTime::ZERO, SimDuration::from_secs(5), 6);
        let mut prev = 7.0;
        for &(_, w) in &s {
            assert!(w <= 1.5 * prev + 1e-9, "{w} after {prev}");
            prev = w;
        }
        assert!(
            prev > 7.0 * 1.4f64.powi(5),
            "{prev}: grows by nearly 1.5 per RTT"
        );
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut cc = cubic(100, u64::MAX, CubicSpec::default());
        let v = view(S, 0, CaState::Open);
        cc.on_congestion(SimTime::ZERO, Congestion::Timeout, &v);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 70_000));
        // Slow start to ssthresh, then an epoch with K = 0, W_max = cwnd_epoch.
        let mut now = SimTime::ZERO;
        let mut lv = view(S, 0, CaState::Loss);
        lv.srtt = Some(SimDuration::from_ms(10));
        while cc.w < cc.ssthresh {
            now += SimDuration::from_ms(1);
            cc.on_ack(now, &ack(S as u64), &lv);
        }
        cc.on_ack(now, &ack(S as u64), &lv);
        let (w_max, k, epoch) = cc.curve();
        assert_eq!(k, 0.0);
        assert_eq!(w_max, 70.0);
        assert_eq!(epoch, Some(now));
    }

    /// HyStart++: an RTT that rises by more than the threshold moves slow start to CSS, and
    /// CSS_ROUNDS rounds later to congestion avoidance with ssthresh = W, no loss.
    #[test]
    fn hystart_plus_plus_leaves_slow_start_on_rtt_increase() {
        let mut cc = cubic(10, u64::MAX, CubicSpec::default());
        let mut delivered = 0u64;
        let mut now = SimTime::ZERO;
        let mut round = 0u64;
        let mut phases = Vec::new();
        while cc.phase != Phase::Off && round < 40 {
            // Each round: W acks; the RTT is 50 ms for 3 rounds, then 70 ms (a queue).
            let n = cc.w as u64;
            let rtt = SimDuration::from_ms(if round < 3 { 50 } else { 70 });
            let flight = n * S as u64;
            for _ in 0..n {
                delivered += S as u64;
                now += SimDuration(rtt.0 / n);
                let mut a = ack(S as u64);
                a.delivered = delivered;
                a.rtt = Some(rtt);
                cc.on_ack(now, &a, &view(S, flight, CaState::Open));
                if cc.phase == Phase::Off {
                    break;
                }
            }
            phases.push(cc.phase);
            round += 1;
        }
        assert_eq!(phases[2], Phase::SlowStart);
        assert_eq!(phases[3], Phase::Css, "{phases:?}");
        assert_eq!(cc.phase, Phase::Off);
        assert!(round <= 3 + CSS_ROUNDS as u64 + 2, "{round}");
        assert_eq!(cc.ssthresh, cc.w);
        // Without HyStart++ slow start would still be doubling.
        let mut plain = cubic(
            10,
            u64::MAX,
            CubicSpec {
                hystart: false,
                ..CubicSpec::default()
            },
        );
        plain.on_ack(now, &ack(S as u64), &view(S, 0, CaState::Open));
        assert_eq!(plain.w, 11.0);
    }

    /// End of fast recovery: W = ssthresh exactly (RFC 9438 §4.6, `cwnd = ssthresh` as
    /// RFC 6675/6582 leave recovery; Linux's `tcp_end_cwnd_reduction` sets cwnd =
    /// ssthresh), so the next ack is congestion avoidance (W ≥ ssthresh), whatever the ack
    /// counting. A window converted through whole bytes would end a fraction of a byte below
    /// ssthresh, and with `ack_counting = "acks"` the next ack would be slow start's +1
    /// segment.
    #[test]
    fn recovery_exit_sets_the_window_to_ssthresh_exactly() {
        use crate::cc::{AckCounting, RecoveryExit};
        for counting in [AckCounting::Acks, AckCounting::Segments] {
            // 0.7·101 = 70.7 segments (70699.99… bytes in binary floating point); windows
            // grown in congestion avoidance are fractional.
            for w0 in [101.0, 100.37, 57.3, 10.0] {
                let mut cc = Cubic::new(
                    CcInit {
                        mss: S,
                        init_cwnd: 10 * S as u64,
                        init_ssthresh: 0,
                        ack_counting: counting,
                    },
                    &CubicSpec::default(),
                );
                cc.w = w0;
                let mut v = view(S, 0, CaState::Open);
                v.srtt = Some(SimDuration::from_ms(100));
                cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
                let ssthresh = cc.ssthresh;
                assert_eq!(ssthresh, (0.7 * w0).max(2.0));
                cc.on_recovery_exit(SimTime::ZERO, &v);
                assert_eq!(cc.w, ssthresh, "{counting:?} W {w0}");
                assert_eq!(cc.cwnd(), cc.ssthresh());
                cc.on_ack(SimTime(1_000_000_000), &ack(S as u64), &v);
                // Congestion avoidance: a fraction of a segment (the Reno-friendly
                // α_cubic/W at most here), not slow start's whole one.
                let grown = cc.w - ssthresh;
                assert!(
                    grown > 0.0 && grown < 0.1,
                    "{counting:?} W {w0}: grew {grown} segments"
                );
            }
        }
        // RFC 6582 §3.2 step 3 (`recovery_exit = "flightsize"`): from a smaller flight the
        // window restarts below ssthresh and slow-starts back up.
        let mut cc = cubic(100, u64::MAX, CubicSpec::default());
        let mut v = view(S, 20 * S as u64, CaState::Open);
        v.recovery_exit = RecoveryExit::FlightSize;
        cc.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        cc.on_recovery_exit(SimTime::ZERO, &v);
        assert_eq!(cc.w, 21.0);
        cc.on_ack(SimTime::ZERO, &ack(S as u64), &v);
        assert_eq!(cc.w, 22.0);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let init = CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let bad = |s: CubicSpec| s.build("flows.f.cc", init).err().unwrap().field;
        assert_eq!(
            bad(CubicSpec {
                beta: 1.0,
                ..CubicSpec::default()
            }),
            "flows.f.cc.beta"
        );
        assert_eq!(
            bad(CubicSpec {
                c: 0.0,
                ..CubicSpec::default()
            }),
            "flows.f.cc.c"
        );
        assert!(CubicSpec::default().build("flows.f.cc", init).is_ok());
    }
}

//! FAST TCP.
//!
//! References: seed 001 (P1) eq. 2; C. Jin, D. X. Wei and S. H. Low, "FAST TCP: motivation,
//! architecture, algorithms, performance", INFOCOM 2004; the P4 FAST slide ("updates window
//! every RTT", "upon a loss, act similar to TCP NewReno").
//!
//! Formulas (W = cwnd in segments, S = MSS):
//! - BaseRTT = the minimum of all per-ack RTT samples (Karn-valid) seen so far
//! - RTT = the mean of the per-ack RTT samples of the last update period (one round)
//! - once per round, after slow start (P1 eq. 2):
//!   `W ← min{ 2W, (1 − γ)·W + γ·(BaseRTT/RTT · W + α) }`, γ ∈ (0, 1], α in packets;
//!   then capped at the receiver window and floored at one segment
//! - equilibrium: `W·(1 − BaseRTT/RTT) = α`, i.e. α of the flow's packets queued
//! - slow start: `W += S` per ack of new data (doubling per RTT) until, at the end of a
//!   round, `W·(1 − BaseRTT/RTT) > α` (W = the window at the start of that round), or W
//!   reaches ssthresh; then `ssthresh = W` and eq. 2 from the next round on
//! - fast retransmit or ECN (NewReno): `ssthresh = max(W/2, 2S)`, `W = ssthresh`; the
//!   transport runs RFC 6582 recovery, and on its end `W = ssthresh` (or §3.2 step 3 with
//!   `recovery_exit = "flightsize"`)
//! - timeout (Reno): `ssthresh = max(W/2, 2S)`, `W = S`, slow start again
//! - FAST-ALT (`alt = true`, seed 001 §II, `cc/alt.rs`): `BaseRTT = TF_min + TB_min` and
//!   each RTT sample `RTT_i = TF_i + TB_min` from the receiver's arrival (AT) and leaving
//!   (LT) timestamps, so backward queueing leaves eq. 2 alone; everything else as above
//!
//! Rounds as in Vegas (`cc/vegas.rs`): a round ends at the first ack covering the first
//! byte sent after it began. No decisions while in fast recovery.

use super::alt::{self, AltClock, AltWire};
use super::vegas::{trace_values, Rounds};
use super::{recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView};
use crate::config::ScenarioError;
use crate::time::SimTime;

fn fifty() -> f64 {
    50.0
}
fn half() -> f64 {
    0.5
}

/// `cc = { algorithm = "fast", alpha = 50, gamma = 0.5 }` (FAST-ALT: `alt = true`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FastSpec {
    /// Packets of this flow kept queued in equilibrium (default 50, > 0).
    #[serde(default = "fifty")]
    pub alpha: f64,
    /// Weight of the new target in each update, in (0, 1] (default 0.5).
    #[serde(default = "half")]
    pub gamma: f64,
    /// FAST-ALT (seed 001 §II): BaseRTT = TF_min + TB_min and RTT = TF + TB_min from the
    /// receiver's arrival and leaving timestamps, so backward queueing is ignored; default
    /// false.
    #[serde(default)]
    pub alt: bool,
    /// With `alt`: bytes of the timestamp option on every ack (default 10, RFC 1323: acks
    /// 40 → 50 B).
    #[serde(default)]
    pub alt_option_bytes: Option<u32>,
    /// With `alt`: data segments carry the option too, within their unchanged wire size
    /// (payload per full segment = mss − alt_option_bytes); default true.
    #[serde(default)]
    pub alt_data_option: Option<bool>,
}

impl Default for FastSpec {
    fn default() -> Self {
        FastSpec {
            alpha: 50.0,
            gamma: 0.5,
            alt: false,
            alt_option_bytes: None,
            alt_data_option: None,
        }
    }
}

impl FastSpec {
    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Fast, ScenarioError> {
        let (alpha, gamma) = (self.alpha, self.gamma);
        if !(alpha > 0.0 && alpha.is_finite()) {
            return Err(ScenarioError::new(
                format!("{field}.alpha"),
                format!("must be a positive number of packets, got {alpha}"),
            ));
        }
        if !(gamma > 0.0 && gamma <= 1.0) {
            return Err(ScenarioError::new(
                format!("{field}.gamma"),
                format!("must be in (0, 1], got {gamma}"),
            ));
        }
        let mut f = Fast::new(init.mss, init.init_cwnd, init.init_ssthresh, alpha, gamma);
        if self.alt_wire(field)?.is_some() {
            f.rounds.alt = Some(AltClock::default());
        }
        Ok(f)
    }
    /// What ALT adds to the flow's packets (`None` without `alt`).
    pub fn alt_wire(&self, field: &str) -> Result<Option<AltWire>, ScenarioError> {
        alt::wire(field, self.alt, self.alt_option_bytes, self.alt_data_option)
    }
}

#[derive(Clone, Debug)]
pub struct Fast {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    alpha: f64,
    gamma: f64,
    slow_start: bool,
    rounds: Rounds,
    /// The last round's estimate of the flow's queued packets, `W·(1 − BaseRTT/RTT)` with W
    /// the window at the round's start (NaN before the first).
    diff: f64,
}

impl Fast {
    pub fn new(mss: u32, init_cwnd: u64, init_ssthresh: u64, alpha: f64, gamma: f64) -> Self {
        Fast {
            mss: mss as f64,
            cwnd: init_cwnd as f64,
            ssthresh: init_ssthresh as f64,
            alpha,
            gamma,
            slow_start: true,
            rounds: Rounds::new(),
            diff: f64::NAN,
        }
    }
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    /// P1 eq. 2 in segments: `min{2W, (1 − γ)W + γ(BaseRTT/RTT·W + α)}`.
    pub fn eq2(w: f64, base: f64, rtt: f64, alpha: f64, gamma: f64) -> f64 {
        (2.0 * w).min((1.0 - gamma) * w + gamma * (base / rtt * w + alpha))
    }
    fn leave_slow_start(&mut self) {
        self.slow_start = false;
        self.ssthresh = self.cwnd;
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        if self.rounds.alt.is_some() {
            "fast-alt"
        } else {
            "fast"
        }
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    /// `diff`: the last round's queue estimate `W·(1 − BaseRTT/RTT)` (packets);
    /// `base_rtt_s`: BaseRTT; `rtt_s`: the last round's mean RTT, the RTT of eq. 2
    /// (seconds); with ALT `tf_min_s`, `tb_min_s` (seconds, each on the mixed clocks).
    fn trace_names(&self) -> &'static [&'static str] {
        self.rounds.trace_names()
    }
    fn trace_values(&self, out: &mut [f64]) {
        trace_values(&self.rounds, self.diff, out);
    }
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        let window = self.rounds.start_cwnd;
        if let Some(mean) = self.rounds.on_ack(now, ack, c, self.cwnd) {
            // `window` is 0 only at the end of the initial round (no round before it).
            if let (Some(rtt), true) = (mean, window > 0.0) {
                self.diff = window / self.mss * (1.0 - self.rounds.base / rtt);
            }
            if let (Some(rtt), CaState::Open | CaState::Loss, true) = (mean, c.state, window > 0.0)
            {
                let base = self.rounds.base;
                if self.slow_start {
                    // Queued packets estimated with the window that sent this round.
                    if self.diff > self.alpha {
                        self.leave_slow_start();
                    }
                } else {
                    let w = Self::eq2(self.cwnd / self.mss, base, rtt, self.alpha, self.gamma);
                    self.cwnd = (w * self.mss).min(c.max_window as f64).max(self.mss);
                }
            }
            self.rounds.start_cwnd = self.cwnd;
        }
        if self.slow_start
            && ack.newly_acked > 0
            && c.state != CaState::Recovery
            && self.cwnd < c.max_window as f64
        {
            self.cwnd += self.mss;
            if self.cwnd >= self.ssthresh {
                self.cwnd = self.cwnd.min(self.ssthresh.max(2.0 * self.mss));
                self.leave_slow_start();
            }
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, _c: &ConnView) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0 * self.mss);
        match why {
            Congestion::FastRetransmit | Congestion::Ecn => {
                self.cwnd = self.ssthresh;
                self.slow_start = false;
            }
            Congestion::Timeout => {
                self.cwnd = self.mss;
                self.slow_start = true;
            }
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = self.ssthresh.min(recovery_exit_cwnd(u64::MAX, c) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::view;
    use crate::cc::vegas::pipe::{Pipe, S};

    #[test]
    fn update_is_eq2_once_per_round() {
        // W = 100 segments, BaseRTT 40 ms, RTT 50 ms, α = 50, γ = 0.5:
        // 0.5·100 + 0.5·(0.8·100 + 50) = 115 (< 2W = 200).
        let mut f = Fast::new(1000, 100 * S, u64::MAX, 50.0, 0.5);
        f.slow_start = false;
        f.rounds.base = 0.040;
        let mut p = Pipe::new(&f);
        // First ack ends the empty initial round; the next round ends at ack 101.
        for _ in 0..100 {
            p.ack(&mut f, 50.0);
        }
        assert_eq!(f.cwnd(), 100 * S);
        p.ack(&mut f, 50.0);
        assert_eq!(f.cwnd(), 115 * S);
        assert_eq!(Fast::eq2(100.0, 0.04, 0.05, 50.0, 0.5), 115.0);
        // γ = 1, RTT = BaseRTT: W + α = 150 ≤ 2W; a small window hits the 2W cap.
        assert_eq!(Fast::eq2(100.0, 0.04, 0.04, 50.0, 1.0), 150.0);
        assert_eq!(Fast::eq2(10.0, 0.04, 0.04, 50.0, 1.0), 20.0);
        assert!((Fast::eq2(40.0, 0.04, 0.05, 50.0, 0.25) - (30.0 + 0.25 * 82.0)).abs() < 1e-12);
        assert_eq!(
            Fast::eq2(10.0, 0.04, 0.05, 50.0, 0.25),
            20.0,
            "22 capped at 2W"
        );
        // Fixed point: W·(1 − BaseRTT/RTT) = α is left unchanged.
        let w = 50.0 / (1.0 - 0.04 / 0.05);
        assert!((Fast::eq2(w, 0.04, 0.05, 50.0, 0.5) - w).abs() < 1e-9);
    }

    #[test]
    fn cap_of_two_w_applies_in_the_simulated_round() {
        let mut f = Fast::new(1000, 10 * S, u64::MAX, 50.0, 1.0);
        f.slow_start = false;
        f.rounds.base = 0.040;
        let mut p = Pipe::new(&f);
        for _ in 0..11 {
            p.ack(&mut f, 40.0);
        }
        assert_eq!(f.cwnd(), 20 * S, "min{{2W, W + α}} = 2W");
    }

    #[test]
    fn slow_start_doubles_until_alpha_queued() {
        // RTT = 40 ms + the window's excess over 80 segments at 0.5 ms per segment (a
        // 80-segment pipe draining 2 segments per ms): queued = W − 80 once W > 80, and the
        // estimate W·(1 − BaseRTT/RTT) equals it.
        let mut f = Fast::new(1000, 2 * S, u64::MAX, 50.0, 0.5);
        let mut p = Pipe::new(&f);
        let mut n = 0;
        while f.in_slow_start() {
            let w = ((p.max - p.una) / S) as f64;
            p.ack(&mut f, 40.0 + 0.5 * (w - 80.0).max(0.0));
            n += 1;
            assert!(n < 10_000, "never left slow start");
        }
        assert_eq!(f.ssthresh(), f.cwnd());
        // Rounds begin with 2, 4, ..., 64, 128 segments and double during the round. The
        // one that began with 64 (in flight 64 → 128) saw on average 48·24/64 = 18 queued,
        // RTT ≈ 49 ms, 64·(1 − 40/49) ≈ 11.7 ≤ α; the one that began with 128 (128 → 256)
        // saw ≈ 112 queued, RTT ≈ 96 ms, 128·(1 − 40/96) ≈ 75 > α: slow start ends with
        // the window that round reached, 256.
        assert_eq!(f.cwnd(), 256 * S);
    }

    #[test]
    fn loss_halves_and_timeout_collapses() {
        let mut f = Fast::new(1000, 120 * S, u64::MAX, 50.0, 0.5);
        let c = view(1000, 120 * S, CaState::Open);
        f.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!((f.cwnd(), f.ssthresh()), (60 * S, 60 * S));
        assert!(!f.in_slow_start());
        f.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert_eq!((f.cwnd(), f.ssthresh()), (S, 30 * S));
        assert!(f.in_slow_start());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        for (spec, field) in [
            (
                FastSpec {
                    gamma: 0.0,
                    ..FastSpec::default()
                },
                "flows.f.cc.gamma",
            ),
            (
                FastSpec {
                    gamma: 1.5,
                    ..FastSpec::default()
                },
                "flows.f.cc.gamma",
            ),
            (
                FastSpec {
                    alpha: -1.0,
                    ..FastSpec::default()
                },
                "flows.f.cc.alpha",
            ),
        ] {
            assert_eq!(spec.build("flows.f.cc", init).unwrap_err().field, field);
        }
        assert!(FastSpec {
            gamma: 1.0,
            ..FastSpec::default()
        }
        .build("flows.f.cc", init)
        .is_ok());
    }
}

//! DCTCP (Data Center TCP).
//!
//! References: S. Bensley, D. Thaler, P. Balasubramanian, L. Eggert, G. Judd, "Data Center
//! TCP (DCTCP): TCP Congestion Control for Data Centers", RFC 8257 (2017), §3.2 (receiver)
//! and §3.3 (sender); M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.1
//! (the closed forms of its steady state are in `analysis/dctcp.rs`).
//!
//! Formulas (W = cwnd in bytes, S = MSS, g = `g` = 1/16):
//! - per ack of new data: `bytes_acked += newly_acked`, and if the ack carries ECN-Echo
//!   `bytes_marked += newly_acked` (every ack, recovery included)
//! - at the end of each observation window (an ack with `delivered ≥ window_end`;
//!   `window_end = delivered + in_flight` then, RFC 8257's `SND.NXT`):
//!   `F = bytes_marked/bytes_acked`, `α ← (1 − g)·α + g·F`, counters reset
//! - ECN-Echo (the transport calls it at most once per window of data, RFC 3168 style):
//!   `W ← max(W·(1 − α/2), 2S)`, `ssthresh = W`
//! - growth (slow start, congestion avoidance), fast retransmit and timeout: NewReno's
//!   (`cc/reno.rs`): `ssthresh = max(flight/2, 2S)`, `W = ssthresh` (timeout: `W = S`)
//! - `α` starts at `alpha_init` (RFC 8257 §3.3: 1, the conservative choice)
//!
//! The sender needs accurate ECN feedback: one ECE per CE-marked segment, and with delayed
//! acks RFC 8257 §3.2's rule (unmarked segments held for the delayed ack are acked without
//! ECE before a CE-marked one): the flow's `ecn_echo = "dctcp"`, this algorithm's default
//! (`"per_mark"` is accepted; the scenario builder refuses `"rfc3168"`, whose latched ECE
//! would count every later byte as marked).

use super::reno::half_flight;
use super::{recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView};
use crate::config::ScenarioError;
use crate::time::SimTime;

fn sixteenth() -> f64 {
    1.0 / 16.0
}
fn one() -> f64 {
    1.0
}

/// `cc = { algorithm = "dctcp", g = 0.0625, alpha_init = 1 }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DctcpSpec {
    /// g, the weight of the newest window's marked fraction in α, in (0, 1] (default 1/16).
    #[serde(default = "sixteenth")]
    pub g: f64,
    /// α before the first window ends, in [0, 1] (default 1, RFC 8257 §3.3).
    #[serde(default = "one")]
    pub alpha_init: f64,
}

impl Default for DctcpSpec {
    fn default() -> Self {
        DctcpSpec {
            g: sixteenth(),
            alpha_init: 1.0,
        }
    }
}

impl DctcpSpec {
    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Dctcp, ScenarioError> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(ScenarioError::new(
                format!("{field}.g"),
                format!("must be in (0, 1], got {}", self.g),
            ));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(ScenarioError::new(
                format!("{field}.alpha_init"),
                format!("must be in [0, 1], got {}", self.alpha_init),
            ));
        }
        Ok(Dctcp {
            mss: init.mss as u64,
            cwnd: init.init_cwnd,
            ssthresh: init.init_ssthresh,
            ca_acc: 0,
            counting: init.ack_counting,
            g: self.g,
            alpha: self.alpha_init,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            last_f: 0.0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Congestion-avoidance ack counter (bytes), as `reno`.
    ca_acc: u64,
    /// Flow key `ack_counting` (Linux's DCTCP grows as its Reno: segments acked).
    counting: super::AckCounting,
    g: f64,
    alpha: f64,
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// The last window's marked fraction F.
    last_f: f64,
}

impl Dctcp {
    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// α and the last observation window's marked fraction F.
    fn trace_names(&self) -> &'static [&'static str] {
        &["alpha", "marked_fraction"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.alpha;
        out[1] = self.last_f;
    }
    #[inline]
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        if ack.newly_acked == 0 {
            return;
        }
        self.bytes_acked += ack.newly_acked;
        if ack.ece {
            self.bytes_marked += ack.newly_acked;
        }
        if ack.delivered >= self.window_end {
            if self.bytes_acked > 0 {
                self.last_f = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * self.last_f;
            }
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = ack.delivered + c.in_flight;
        }
        if c.state == CaState::Recovery || self.cwnd >= c.max_window {
            return;
        }
        match self.counting {
            super::AckCounting::Acks => {
                let slow_start = self.cwnd < self.ssthresh;
                super::reno::reno_increase(&mut self.cwnd, &mut self.ca_acc, slow_start, self.mss);
            }
            super::AckCounting::Segments => super::reno::reno_increase_bytes(
                &mut self.cwnd,
                &mut self.ca_acc,
                self.ssthresh,
                self.mss,
                ack.newly_acked,
            ),
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        self.ca_acc = 0;
        match why {
            Congestion::Ecn => {
                let w = (self.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
                self.cwnd = w.max(2 * self.mss);
                self.ssthresh = self.cwnd;
            }
            Congestion::FastRetransmit => {
                self.ssthresh = half_flight(c.in_flight, self.mss);
                self.cwnd = self.ssthresh;
            }
            Congestion::Timeout => {
                self.ssthresh = half_flight(c.in_flight, self.mss);
                self.cwnd = self.mss;
            }
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = recovery_exit_cwnd(self.ssthresh, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::cc::CcInit;

    const S: u64 = 1000;

    fn dctcp(w: u64, alpha: f64) -> Dctcp {
        DctcpSpec {
            g: 1.0 / 16.0,
            alpha_init: alpha,
        }
        .build(
            "f",
            CcInit {
                mss: S as u32,
                init_cwnd: w * S,
                init_ssthresh: 1,
                ack_counting: Default::default(),
            },
        )
        .unwrap()
    }

    /// One window of `w` acks, `marked` of them with ECE, the window ending at its last ack.
    fn window(d: &mut Dctcp, delivered: &mut u64, w: u64, marked: u64) {
        for k in 0..w {
            *delivered += S;
            let mut a = ack(S);
            a.delivered = *delivered;
            a.ece = k < marked;
            // In flight: the window's remaining acks.
            d.on_ack(
                SimTime::ZERO,
                &a,
                &view(S as u32, (w - 1 - k) * S, CaState::Open),
            );
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        let mut d = dctcp(10, 0.0);
        let mut delivered = 0;
        // The first ack closes the (empty) initial window and opens one of 9 more acks.
        window(&mut d, &mut delivered, 1, 0);
        let mut want = 0.0;
        for f in [0.5, 0.0, 1.0, 0.2] {
            let n = 10;
            let marked = (f * n as f64) as u64;
            // α is updated at the ack that ends the previous window: feed exactly n acks.
            d.window_end = delivered + n * S;
            window(&mut d, &mut delivered, n, marked);
            want = (1.0 - 1.0 / 16.0) * want + f / 16.0;
            assert!(
                (d.alpha() - want).abs() < 1e-12,
                "F {f}: α {} vs {want}",
                d.alpha()
            );
        }
    }

    #[test]
    fn ecn_cuts_by_alpha_over_two() {
        let mut d = dctcp(100, 0.5);
        d.on_congestion(
            SimTime::ZERO,
            Congestion::Ecn,
            &view(S as u32, 100 * S, CaState::Open),
        );
        assert_eq!(d.cwnd(), 75 * S);
        assert_eq!(d.ssthresh(), 75 * S);
        // α = 0: no reduction beyond the 2-segment floor; α = 1: halve.
        let mut d = dctcp(100, 1.0);
        d.on_congestion(
            SimTime::ZERO,
            Congestion::Ecn,
            &view(S as u32, 100 * S, CaState::Open),
        );
        assert_eq!(d.cwnd(), 50 * S);
        // A loss is NewReno's.
        let mut d = dctcp(100, 0.1);
        d.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            &view(S as u32, 80 * S, CaState::Open),
        );
        assert_eq!(d.cwnd(), 40 * S);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let init = CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let e = DctcpSpec {
            g: 0.0,
            alpha_init: 1.0,
        }
        .build("flows.f.cc", init)
        .err()
        .unwrap();
        assert_eq!(e.field, "flows.f.cc.g");
        let e = DctcpSpec {
            g: 0.1,
            alpha_init: 1.5,
        }
        .build("flows.f.cc", init)
        .err()
        .unwrap();
        assert_eq!(e.field, "flows.f.cc.alpha_init");
    }
}

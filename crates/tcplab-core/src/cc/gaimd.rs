//! GAIMD TCP(α, β): general additive increase, multiplicative decrease.
//!
//! Reference: Y. R. Yang and S. S. Lam, "General AIMD congestion control", ICNP 2000; as used
//! in P3 (Zhang & Tsaoussidis, "The interrelation of TCP responsiveness and smoothness in
//! heterogeneous networks", §2, eqs. 1-5).
//!
//! P3: "the window is increased by α if there is no packet loss in a round-trip time, and
//! the window is decreased to β times the current value if there is a loss indication".
//! Standard TCP is TCP(1, 1/2). Here β is the *retained* fraction.
//!
//! Formulas (W = cwnd in bytes, S = MSS):
//! - slow start (W < ssthresh): `W += S` per ack of new data (standard)
//! - congestion avoidance: `W += α·S·S/W` per ack of new data (α segments per round trip)
//! - fast retransmit or ECN: `ssthresh = max(β·W, 2S)`, `W = ssthresh`
//! - `ece_increase = false` (flow key; ns-2's `old_ecn_ 0`): an ack carrying ECN-Echo does not
//!   grow the window, in slow start either ([`super::AckSample::ece_hold`])
//! - end of fast recovery: `W = ssthresh` (or `min(ssthresh, max(flight, S) + S)` with
//!   `recovery_exit = "flightsize"`, RFC 6582 §3.2 step 3)
//! - timeout: `ssthresh = max(β·W, 2S)`, `W = S` (P3 §3: floor of two segments)
//! - TCP-friendly pairs (P3 eq. 3): `α = 4(1 − β²)/3`
//! - `ns2_compat = true` (default false): ns-2's `TcpAgent::slowdown()`
//!   halves instead of applying β (a) on the connection's first decrease (ssthresh and W),
//!   (b) on any decrease while `W < ssthresh` (slow start), (c) for ssthresh at a timeout;
//!   β applies only to the other fast-retransmit (and ECN) decreases
//! - `ns2_window = true` (default false): ns-2.35's window arithmetic around a decrease, with
//!   `precisionReduce_ true` (ns-default.tcl): `TcpAgent::slowdown()` (tcp/tcp.cc) keeps
//!   ssthresh in whole packets, `ssthresh = max(⌊k·W/S⌋, 2)·S`, and sets `W = k·W` untruncated
//!   at a fast retransmit or ECN (k = β, or ½ where `ns2_compat` halves; tcplab keeps at least
//!   one segment where ns-2 could go below it); at the end of fast recovery W stays what the
//!   decrease set, and the ack that ends it grows W once, as any new ack
//!   (`RenoTcpAgent::recv` and `NewRenoTcpAgent::recv` → `recv_newack_helper` →
//!   `opencwnd`): `W += S` if `W < ssthresh`, else `W += α·S²/W`

use super::{
    recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView, RecoveryStyle,
};
use crate::config::profile::Compat;
use crate::config::ScenarioError;
use crate::time::SimTime;
use serde_json::Value;

fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}

/// Fast recovery after a fast retransmit.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GaimdRecovery {
    /// Leave recovery on the first new ack (as P3).
    #[default]
    Reno,
    /// RFC 6582 partial acks.
    Newreno,
}

/// `cc = { algorithm = "gaimd", alpha = 0.31, beta = 0.875 }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GaimdSpec {
    /// Additive increase per round trip, in segments (default 1).
    #[serde(default = "one")]
    pub alpha: f64,
    /// Fraction of the window kept after a loss, in (0, 1) (default 0.5).
    #[serde(default = "half")]
    pub beta: f64,
    /// "reno" (default, as in P3) or "newreno" fast recovery.
    #[serde(default)]
    pub recovery: GaimdRecovery,
    /// `"ns2"`: ns-2.35's rules, both of the two below (default: neither).
    #[serde(default)]
    pub compat: Option<Compat>,
    /// ns-2's decrease rules alone (default: as `compat`): halve instead of β on the first
    /// decrease, in slow start and for ssthresh at a timeout (ns-2.35 tcp/tcp.cc, `slowdown`).
    #[serde(default)]
    pub ns2_compat: Option<bool>,
    /// ns-2's window arithmetic alone (default: as `compat`): ssthresh in whole packets, the
    /// window set to k·W untruncated, and the ack that ends fast recovery grows it once
    /// (file header).
    #[serde(default)]
    pub ns2_window: Option<bool>,
}

impl GaimdSpec {
    /// The keys profile `p` sets on a TCP(α, β) flow's `cc` table: under `ns2`, `compat =
    /// "ns2"`: ns-2.35's `TcpAgent::slowdown()` halving rules (`ns2_compat`) and its window
    /// arithmetic around a decrease (`ns2_window`), which every ns-2 agent built on
    /// `TcpAgent` runs and no OTcl setting removes (tcp/tcp.cc, `slowdown`,
    /// `recv_newack_helper`).
    pub fn profile_keys(&self, p: crate::config::profile::Profile) -> Vec<(&'static str, Value)> {
        match p {
            crate::config::profile::Profile::Ns2 => vec![("compat", Value::from("ns2"))],
            _ => Vec::new(),
        }
    }

    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Gaimd, ScenarioError> {
        let (alpha, beta) = (self.alpha, self.beta);
        let ns2 = self.compat == Some(Compat::Ns2);
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
        Ok(Gaimd::new(
            init.mss,
            init.init_cwnd,
            init.init_ssthresh,
            alpha,
            beta,
            self.recovery == GaimdRecovery::Newreno,
        )
        .with_ns2_compat(self.ns2_compat.unwrap_or(ns2))
        .with_ns2_window(self.ns2_window.unwrap_or(ns2))
        .with_ack_counting(init.ack_counting))
    }
}

#[derive(Clone, Debug)]
pub struct Gaimd {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    alpha: f64,
    beta: f64,
    newreno: bool,
    ns2_compat: bool,
    ns2_window: bool,
    /// A decrease has happened (ns-2's `first_decrease_` is its negation).
    decreased: bool,
    counting: super::AckCounting,
}

impl Gaimd {
    pub fn new(
        mss: u32,
        init_cwnd: u64,
        init_ssthresh: u64,
        alpha: f64,
        beta: f64,
        newreno: bool,
    ) -> Self {
        Gaimd {
            mss: mss as f64,
            cwnd: init_cwnd as f64,
            ssthresh: init_ssthresh as f64,
            alpha,
            beta,
            newreno,
            ns2_compat: false,
            ns2_window: false,
            decreased: false,
            counting: super::AckCounting::Acks,
        }
    }
    /// Count acks or the segments they cover (flow key `ack_counting`): with "segments" an
    /// ack of A bytes adds `α·S·A/W` in congestion avoidance.
    pub fn with_ack_counting(mut self, counting: super::AckCounting) -> Self {
        self.counting = counting;
        self
    }
    /// ns-2's halving rules (see the file header).
    pub fn with_ns2_compat(mut self, on: bool) -> Self {
        self.ns2_compat = on;
        self
    }
    /// ns-2's window arithmetic (see the file header).
    pub fn with_ns2_window(mut self, on: bool) -> Self {
        self.ns2_window = on;
        self
    }
    /// P3 eq. 3: the α that makes TCP(α, β) friendly to TCP(1, 1/2) (timeout term).
    pub fn friendly_alpha(beta: f64) -> f64 {
        4.0 * (1.0 - beta * beta) / 3.0
    }
}

impl CongestionControl for Gaimd {
    fn name(&self) -> &'static str {
        "gaimd"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    fn recovery_style(&self) -> RecoveryStyle {
        if self.newreno {
            RecoveryStyle::NewReno
        } else {
            RecoveryStyle::Reno
        }
    }
    /// The exact window in segments (the `cwnd_bytes` columns truncate the internal `f64`
    /// window to whole bytes): shows the α·S²/W growth per ack of congestion avoidance.
    fn trace_names(&self) -> &'static [&'static str] {
        &["cwnd_segments"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.cwnd / self.mss;
    }
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        // No growth on an ECN-Echo ack with `ece_increase = false` (ns-2's `old_ecn_ 0`:
        // `TcpAgent::recv_newack_helper` skips `opencwnd()`).
        if ack.newly_acked == 0
            || c.state == CaState::Recovery
            || self.cwnd >= c.max_window as f64
            || ack.ece_hold
        {
            return;
        }
        match self.counting {
            super::AckCounting::Acks => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += self.mss;
                } else {
                    self.cwnd += self.alpha * self.mss * self.mss / self.cwnd;
                }
            }
            super::AckCounting::Segments => {
                let mut acked = ack.newly_acked as f64;
                if self.cwnd < self.ssthresh {
                    acked = super::reno::slow_start_bytes(&mut self.cwnd, self.ssthresh, acked);
                }
                self.cwnd += self.alpha * self.mss * acked / self.cwnd;
            }
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, _c: &ConnView) {
        // The window, not the flight size, is what P3's β multiplies.
        let timeout = matches!(why, Congestion::Timeout);
        let halve = self.ns2_compat && (!self.decreased || self.cwnd < self.ssthresh || timeout);
        self.decreased = true;
        let keep = if halve { 0.5 } else { self.beta };
        let kept = keep * self.cwnd;
        if self.ns2_window {
            // tcp.cc `slowdown()`: `ssthresh_ = (int) decreasewin` (at least 2 packets),
            // `cwnd_ = decreasewin` (a double) under CLOSE_CWND_HALF.
            self.ssthresh = ((kept / self.mss).floor() * self.mss).max(2.0 * self.mss);
            self.cwnd = match why {
                Congestion::Timeout => self.mss,
                Congestion::FastRetransmit | Congestion::Ecn => kept.max(self.mss),
            };
            return;
        }
        self.ssthresh = kept.max(2.0 * self.mss);
        self.cwnd = match why {
            Congestion::Timeout => self.mss,
            Congestion::FastRetransmit | Congestion::Ecn => self.ssthresh,
        };
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        if self.ns2_window {
            // ns-2: `dupwnd_ = 0` leaves `cwnd_` as `slowdown()` set it; the ack that ends
            // recovery then goes through `recv_newack_helper()` → `opencwnd()` once.
            if self.cwnd < c.max_window as f64 {
                if self.cwnd < self.ssthresh {
                    self.cwnd += self.mss;
                } else {
                    self.cwnd += self.alpha * self.mss * self.mss / self.cwnd;
                }
            }
            return;
        }
        // min(ssthresh, cap): cap is u64::MAX unless the connection caps by its flight.
        self.cwnd = self.ssthresh.min(recovery_exit_cwnd(u64::MAX, c) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};

    #[test]
    fn increase_is_alpha_segments_per_round() {
        let s = 1000u32;
        let mut g = Gaimd::new(s, 20_000, 10_000, 0.31, 0.875, false);
        let v = view(s, 0, CaState::Open);
        // One window of acks adds about α segments.
        for _ in 0..20 {
            g.on_ack(SimTime::ZERO, &ack(1000), &v);
        }
        let grown = g.cwnd() as f64 - 20_000.0;
        assert!((grown - 310.0).abs() < 10.0, "{grown}");
    }

    #[test]
    fn decrease_keeps_beta() {
        let mut g = Gaimd::new(1000, 40_000, 1, 1.25, 0.25, false);
        g.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            &view(1000, 40_000, CaState::Open),
        );
        assert_eq!(g.cwnd(), 10_000);
        g.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(1000, 10_000, CaState::Open),
        );
        assert_eq!(g.ssthresh(), 2_500);
        assert_eq!(g.cwnd(), 1_000);
    }

    #[test]
    fn ns2_compat_halves_first_in_slow_start_and_at_timeouts() {
        let v = |w| view(1000, w, CaState::Open);
        let fr = Congestion::FastRetransmit;
        // Default: β on every decrease, the first one included.
        let mut g = Gaimd::new(1000, 40_000, u64::MAX, 0.31, 0.875, false);
        g.on_congestion(SimTime::ZERO, fr, &v(40_000));
        assert_eq!(g.cwnd(), 35_000);
        // ns2_compat: the first decrease halves (here also in slow start: ssthresh unlimited) ...
        let mut g = Gaimd::new(1000, 40_000, u64::MAX, 0.31, 0.875, false).with_ns2_compat(true);
        g.on_congestion(SimTime::ZERO, fr, &v(40_000));
        assert_eq!((g.cwnd(), g.ssthresh()), (20_000, 20_000));
        // ... a later one in congestion avoidance keeps β ...
        g.on_congestion(SimTime::ZERO, fr, &v(20_000));
        assert_eq!(g.cwnd(), 17_500);
        // ... a timeout halves ssthresh ...
        g.on_congestion(SimTime::ZERO, Congestion::Timeout, &v(17_500));
        assert_eq!((g.cwnd(), g.ssthresh()), (1_000, 8_750));
        // ... and a decrease in slow start (W < ssthresh) halves too.
        for _ in 0..3 {
            g.on_ack(SimTime::ZERO, &ack(1000), &v(1_000));
        }
        assert_eq!(g.cwnd(), 4_000);
        g.on_congestion(SimTime::ZERO, fr, &v(4_000));
        assert_eq!(g.cwnd(), 2_000);
        // Not in slow start and not the first: β again.
        let mut g = Gaimd::new(1000, 40_000, 10_000, 1.25, 0.25, false).with_ns2_compat(true);
        g.on_congestion(SimTime::ZERO, fr, &v(40_000));
        assert_eq!(g.cwnd(), 20_000); // first decrease: halved, not 10_000
        g.on_congestion(SimTime::ZERO, fr, &v(20_000));
        assert_eq!(g.cwnd(), 5_000);
    }

    #[test]
    fn ns2_window_truncates_ssthresh_keeps_k_w_and_grows_at_exit() {
        let fr = Congestion::FastRetransmit;
        // W = 41.5 segments, β = 0.875: k·W = 36.3125 segments.
        let mut g = Gaimd::new(1000, 41_500, 1, 0.31, 0.875, false).with_ns2_window(true);
        g.on_congestion(SimTime::ZERO, fr, &view(1000, 41_500, CaState::Open));
        assert_eq!((g.cwnd(), g.ssthresh()), (36_312, 36_000));
        // The ack that ends recovery: congestion avoidance (W >= ssthresh), one α·S²/W step.
        g.on_recovery_exit(SimTime::ZERO, &view(1000, 36_312, CaState::Open));
        let w = 36_312.5 + 0.31 * 1e6 / 36_312.5;
        assert_eq!(g.cwnd(), w as u64);
        // Without the key: W = ssthresh = k·W, and the exit sets W = ssthresh.
        let mut d = Gaimd::new(1000, 41_500, 1, 0.31, 0.875, false);
        d.on_congestion(SimTime::ZERO, fr, &view(1000, 41_500, CaState::Open));
        assert_eq!((d.cwnd(), d.ssthresh()), (36_312, 36_312));
        d.on_recovery_exit(SimTime::ZERO, &view(1000, 36_312, CaState::Open));
        assert_eq!(d.cwnd(), 36_312);
        // ns2_compat's first decrease halves: 3.5 segments → ssthresh 2 (the floor: ⌊1.75⌋
        // is 1), W = 1.75 segments; a timeout puts ssthresh at ⌊k·W⌋ packets too.
        let mut h = Gaimd::new(1000, 3_500, u64::MAX, 1.0, 0.5, false)
            .with_ns2_compat(true)
            .with_ns2_window(true);
        h.on_congestion(SimTime::ZERO, fr, &view(1000, 3_500, CaState::Open));
        assert_eq!((h.cwnd(), h.ssthresh()), (1_750, 2_000));
        // Below ssthresh the exit ack is a slow-start step.
        h.on_recovery_exit(SimTime::ZERO, &view(1000, 1_750, CaState::Open));
        assert_eq!(h.cwnd(), 2_750);
        h.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(1000, 2_750, CaState::Open),
        );
        assert_eq!((h.cwnd(), h.ssthresh()), (1_000, 2_000));
        let mut t = Gaimd::new(1000, 9_900, 1, 1.0, 0.5, false).with_ns2_window(true);
        t.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(1000, 9_900, CaState::Open),
        );
        assert_eq!((t.cwnd(), t.ssthresh()), (1_000, 4_000));
    }

    #[test]
    fn eq3_pairs_match_p3() {
        assert!((Gaimd::friendly_alpha(0.875) - 0.3125).abs() < 1e-9);
        assert!((Gaimd::friendly_alpha(0.5) - 1.0).abs() < 1e-9);
        assert!((Gaimd::friendly_alpha(0.25) - 1.25).abs() < 1e-9);
    }
}

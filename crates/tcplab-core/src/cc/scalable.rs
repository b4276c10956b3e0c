//! Scalable TCP (STCP).
//!
//! Reference: T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", ACM CCR 33(2), 2003; seed 004 (P4) "Scalable TCP (STCP)" slide.
//!
//! P4: "For each ACK in a RTT without a loss: cwnd = cwnd + a"; "For each window
//! experiencing a loss: cwnd = cwnd − b·cwnd"; "In STCP, a = 0.01, b = 0.125".
//!
//! Formulas (w = cwnd in segments, S = MSS):
//! - slow start (w < ssthresh): `w += 1` per ack of new data (standard)
//! - congestion avoidance, per ack of new data: `w += a` (w ≥ legacy_window), or
//!   `w += 1/w` (standard TCP, below `legacy_window`; Kelly uses 16; default: no legacy)
//! - fast retransmit or ECN (at most once per window, the transport's rule):
//!   `w = (1 − b)·w` (w ≥ legacy_window) or `w = w/2` (below), `ssthresh` likewise
//!   (floor 2 segments)
//! - end of fast recovery: `w = ssthresh` (or RFC 6582 §3.2 step 3)
//! - timeout: `ssthresh` as for a loss, `w = 1`
//! - `linux_count = true` (Linux 2.6.22's `tcp_scalable_cong_avoid`, which ns-2.35's
//!   Agent/TCP/Linux runs, tcp/linux/src/tcp_scalable.c): congestion avoidance counts acks
//!   and adds one segment once more than `min(w, N)` have come since the last increase,
//!   `N = round(1/a) − 1` (Linux's `TCP_SCALABLE_AI_CNT` = 50 is `a = 1/51`), so below N
//!   segments the window grows by one per `w + 1` acks, about Reno's rate, where `w += a`
//!   would take 1/a acks; a loss restarts the count. Profile `ns2` sets it
//! - `linux_min_cwnd = true` (the same module's `.min_cwnd = tcp_reno_min_cwnd`, with
//!   ns-2.35's `LinuxTcpAgent::tcp_fastretrans_alert`): a fast retransmit or ECN sets
//!   `ssthresh = max(w − ⌊b·w⌋, 2)` in whole segments (`tcp_scalable_ssthresh`'s
//!   `w − (w >> 3)`: below 8 segments no cut) and `w = ⌊ssthresh/2⌋` (at least 1), the
//!   floor the transport's rate halving (`prr = "rate_halving"`) descends towards, and
//!   leaving recovery sets
//!   `w = min(ssthresh, FlightSize + 3)` when w is below ssthresh (`tcp_moderate_cwnd`,
//!   3 = Linux's `tcp_max_burst`, the reordering degree); slow start then climbs back to
//!   ssthresh. Profile `ns2` sets it
//! - response function: per packet the window gains a, per loss it loses b·w, so in
//!   equilibrium `a = p·b·w`, i.e. `w = a/(b·p)` (= 0.08/p with the defaults)

use super::{
    linux_agent_exit_cwnd, recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl,
    ConnView,
};
use crate::config::ScenarioError;
use crate::time::SimTime;

fn default_a() -> f64 {
    0.01
}
fn default_b() -> f64 {
    0.125
}

/// `cc = { algorithm = "scalable", a = 0.01, b = 0.125, legacy_window = 16 }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScalableSpec {
    /// Segments added per ack in congestion avoidance, in (0, 1]. Default 0.01.
    #[serde(default = "default_a")]
    pub a: f64,
    /// Fraction of the window removed on a loss or ECN echo, in (0, 1). Default 0.125.
    #[serde(default = "default_b")]
    pub b: f64,
    /// Below this window (segments) behave as standard TCP (Kelly: 16). Default: none.
    #[serde(default)]
    pub legacy_window: Option<f64>,
    /// Linux's ack count in congestion avoidance (module text): one segment after more than
    /// min(cwnd, round(1/a) − 1) acks. Default false; profile `ns2` sets it (ns-2.35 runs
    /// Scalable as Linux 2.6.22's module). Not with `legacy_window`.
    #[serde(default)]
    pub linux_count: bool,
    /// Linux 2.6.22's recovery rules with ns-2's exit (module text): ssthresh in whole
    /// segments (w − ⌊b·w⌋), in recovery the window is ⌊ssthresh/2⌋ segments, on leaving
    /// it min(ssthresh, FlightSize + 3 segments). Default false; profile `ns2` sets it (with
    /// `prr = "rate_halving"`). Not with `legacy_window`.
    #[serde(default)]
    pub linux_min_cwnd: bool,
}

impl Default for ScalableSpec {
    fn default() -> Self {
        ScalableSpec {
            a: default_a(),
            b: default_b(),
            legacy_window: None,
            linux_count: false,
            linux_min_cwnd: false,
        }
    }
}

impl ScalableSpec {
    /// The keys profile `p` sets: `ns2` runs Scalable as Linux 2.6.22's module.
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match p {
            crate::config::profile::Profile::Ns2 if self.legacy_window.is_none() => {
                vec![
                    ("linux_count", serde_json::Value::Bool(true)),
                    ("linux_min_cwnd", serde_json::Value::Bool(true)),
                ]
            }
            _ => Vec::new(),
        }
    }

    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Scalable, ScenarioError> {
        let err = |k: &str, m: String| Err(ScenarioError::new(format!("{field}.{k}"), m));
        if !(self.a > 0.0 && self.a <= 1.0) {
            return err("a", format!("must be in (0, 1], got {}", self.a));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return err("b", format!("must be in (0, 1), got {}", self.b));
        }
        if self.linux_count && self.legacy_window.is_some() {
            return err(
                "linux_count",
                "Linux's count has no legacy window: leave out legacy_window".into(),
            );
        }
        if self.linux_min_cwnd && self.legacy_window.is_some() {
            return err(
                "linux_min_cwnd",
                "Linux's module has no legacy window: leave out legacy_window".into(),
            );
        }
        if let Some(l) = self.legacy_window {
            if !(l >= 1.0 && l.is_finite()) {
                return err(
                    "legacy_window",
                    format!("must be at least 1 segment, got {l}"),
                );
            }
        }
        Ok(Scalable::new(
            init.mss,
            init.init_cwnd,
            init.init_ssthresh,
            self.a,
            self.b,
            self.legacy_window.unwrap_or(0.0),
        )
        .with_ack_counting(init.ack_counting)
        .with_linux_count(self.linux_count)
        .with_linux_min_cwnd(self.linux_min_cwnd))
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    a: f64,
    b: f64,
    /// Standard TCP below this window, in bytes (0 = never).
    legacy: f64,
    counting: super::AckCounting,
    /// `linux_count`: N (acks), 0 = off; and the acks counted since the last increase.
    linux_n: u64,
    cnt: u64,
    /// `linux_min_cwnd`.
    linux_min: bool,
}

impl Scalable {
    pub fn new(mss: u32, init_cwnd: u64, init_ssthresh: u64, a: f64, b: f64, legacy: f64) -> Self {
        Scalable {
            mss: mss as f64,
            cwnd: init_cwnd as f64,
            ssthresh: init_ssthresh as f64,
            a,
            b,
            legacy: legacy * mss as f64,
            counting: super::AckCounting::Acks,
            linux_n: 0,
            cnt: 0,
            linux_min: false,
        }
    }
    /// Linux's `min_cwnd` in recovery and ns-2's exit (`linux_min_cwnd`).
    pub fn with_linux_min_cwnd(mut self, on: bool) -> Self {
        self.linux_min = on;
        self
    }
    /// Linux's ack count (`linux_count`), N = round(1/a) − 1 (at least 1).
    pub fn with_linux_count(mut self, on: bool) -> Self {
        self.linux_n = if on {
            ((1.0 / self.a).round() as u64).saturating_sub(1).max(1)
        } else {
            0
        };
        self
    }
    /// Count acks or the segments they cover (flow key `ack_counting`): with "segments" an
    /// ack of A bytes adds `a·A` (A/S increases of `a·S`; `S·A/W` below the legacy window).
    pub fn with_ack_counting(mut self, counting: super::AckCounting) -> Self {
        self.counting = counting;
        self
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    /// The exact window in segments.
    fn trace_names(&self) -> &'static [&'static str] {
        &["cwnd_segments"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.cwnd / self.mss;
    }
    #[inline]
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        if ack.newly_acked == 0 || c.state == CaState::Recovery || self.cwnd >= c.max_window as f64
        {
            return;
        }
        // Bytes counted by this ack: S per ack, or what it acknowledges.
        let mut acked = match self.counting {
            super::AckCounting::Acks => self.mss,
            super::AckCounting::Segments => ack.newly_acked as f64,
        };
        if self.cwnd < self.ssthresh {
            match self.counting {
                super::AckCounting::Acks => {
                    self.cwnd += self.mss;
                    return;
                }
                super::AckCounting::Segments => {
                    acked = super::reno::slow_start_bytes(&mut self.cwnd, self.ssthresh, acked);
                }
            }
        }
        if self.linux_n > 0 {
            // tcp_scalable_cong_avoid: `if (++cnt > min(cwnd, AI_CNT)) { cwnd++; cnt = 0 }`.
            self.cnt += 1;
            if self.cnt > ((self.cwnd / self.mss) as u64).min(self.linux_n) {
                self.cwnd += self.mss;
                self.cnt = 0;
            }
        } else if self.cwnd < self.legacy {
            self.cwnd += self.mss * acked / self.cwnd;
        } else {
            self.cwnd += self.a * acked;
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, _c: &ConnView) {
        self.cnt = 0;
        let b = if self.cwnd < self.legacy { 0.5 } else { self.b };
        self.ssthresh = if self.linux_min {
            // tcp_scalable_ssthresh: max(w − (w >> 3), 2) in whole segments, so a window
            // below 8 segments keeps its ssthresh (w − ⌊b·w⌋ for another b).
            let w = (self.cwnd / self.mss).floor();
            (w - (b * w).floor()).max(2.0) * self.mss
        } else {
            ((1.0 - b) * self.cwnd).max(2.0 * self.mss)
        };
        self.cwnd = match why {
            Congestion::Timeout => self.mss,
            // tcp_reno_min_cwnd: snd_ssthresh / 2, whole segments.
            _ if self.linux_min => ((self.ssthresh / self.mss) as u64 / 2).max(1) as f64 * self.mss,
            Congestion::FastRetransmit | Congestion::Ecn => self.ssthresh,
        };
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = if self.linux_min {
            linux_agent_exit_cwnd(self.cwnd, self.ssthresh, c)
        } else {
            self.ssthresh.min(recovery_exit_cwnd(u64::MAX, c) as f64)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};

    const S: u32 = 1000;

    #[test]
    fn increase_is_a_per_ack_so_a_w_per_round_trip() {
        let v = view(S, 0, CaState::Open);
        for w in [20u64, 200, 2000] {
            let mut s = Scalable::new(S, w * 1000, 1000, 0.01, 0.125, 0.0);
            for _ in 0..w {
                s.on_ack(SimTime::ZERO, &ack(1000), &v);
            }
            let grown = s.cwnd / 1000.0 - w as f64;
            assert!((grown - 0.01 * w as f64).abs() < 1e-9, "w {w}: {grown}");
        }
    }

    #[test]
    fn decrease_removes_b_for_loss_and_ecn_and_timeout_collapses() {
        for why in [Congestion::FastRetransmit, Congestion::Ecn] {
            let mut s = Scalable::new(S, 800_000, u64::MAX, 0.01, 0.125, 0.0);
            s.on_congestion(SimTime::ZERO, why, &view(S, 0, CaState::Open));
            assert_eq!((s.cwnd(), s.ssthresh()), (700_000, 700_000), "{why:?}");
        }
        let mut s = Scalable::new(S, 800_000, u64::MAX, 0.01, 0.125, 0.0);
        s.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(S, 0, CaState::Open),
        );
        assert_eq!((s.cwnd(), s.ssthresh()), (1000, 700_000));
    }

    #[test]
    fn legacy_window_is_standard_tcp_below_it() {
        let v = view(S, 0, CaState::Open);
        let mut s = Scalable::new(S, 10_000, 1000, 0.01, 0.125, 16.0);
        for _ in 0..10 {
            s.on_ack(SimTime::ZERO, &ack(1000), &v);
        }
        // About one segment per round trip (not 0.1).
        assert!((s.cwnd - 11_000.0).abs() < 60.0, "{}", s.cwnd);
        s.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert!((s.cwnd - s.ssthresh).abs() < 1e-9);
        assert!((s.cwnd / 1000.0 - 5.5).abs() < 0.05, "{}", s.cwnd);
        // Above it: Scalable.
        let mut s = Scalable::new(S, 20_000, 1000, 0.01, 0.125, 16.0);
        s.on_ack(SimTime::ZERO, &ack(1000), &v);
        assert!((s.cwnd - 20_010.0).abs() < 1e-9);
    }

    /// Linux's module constants (a = 1/51) and an initial window of `w` segments.
    fn linux_spec(min_cwnd: bool, w: u64) -> (ScalableSpec, crate::cc::CcInit) {
        let spec = ScalableSpec {
            a: 1.0 / 51.0,
            linux_count: true,
            linux_min_cwnd: min_cwnd,
            ..ScalableSpec::default()
        };
        let init = crate::cc::CcInit {
            mss: S,
            init_cwnd: w * S as u64,
            init_ssthresh: 2 * S as u64,
            ack_counting: crate::cc::AckCounting::Acks,
        };
        (spec, init)
    }

    #[test]
    fn linux_count_grows_one_segment_per_min_w_n_plus_one_acks() {
        let (spec, init) = linux_spec(false, 4);
        let mut c = spec.build("flows.f.cc", init).unwrap();
        let v = view(S, 0, CaState::Open);
        // At 4 segments: the 5th ack adds one (more than min(4, 50) acks).
        for _ in 0..4 {
            c.on_ack(SimTime::ZERO, &ack(S as u64), &v);
        }
        assert_eq!(c.cwnd(), 4 * S as u64);
        c.on_ack(SimTime::ZERO, &ack(S as u64), &v);
        assert_eq!(c.cwnd(), 5 * S as u64);
        // Far above N = 50: one per 51 acks, Kelly's a.
        c.cwnd = 200.0 * S as f64;
        for _ in 0..50 {
            c.on_ack(SimTime::ZERO, &ack(S as u64), &v);
        }
        assert_eq!(c.cwnd(), 200 * S as u64);
        c.on_ack(SimTime::ZERO, &ack(S as u64), &v);
        assert_eq!(c.cwnd(), 201 * S as u64);
        let both = ScalableSpec {
            legacy_window: Some(16.0),
            ..spec
        };
        assert_eq!(
            both.build("flows.f.cc", init).unwrap_err().field,
            "flows.f.cc.linux_count"
        );
    }

    #[test]
    fn slow_start_is_standard() {
        let mut s = Scalable::new(S, 1000, 50_000, 0.01, 0.125, 0.0);
        let v = view(S, 0, CaState::Open);
        for _ in 0..7 {
            s.on_ack(SimTime::ZERO, &ack(1000), &v);
        }
        assert_eq!(s.cwnd(), 8000);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let bad = |s: ScalableSpec| s.build("flows.f.cc", init).err().unwrap().field;
        let d = ScalableSpec::default;
        assert_eq!(bad(ScalableSpec { a: 0.0, ..d() }), "flows.f.cc.a");
        assert_eq!(bad(ScalableSpec { b: 1.0, ..d() }), "flows.f.cc.b");
        assert_eq!(
            bad(ScalableSpec {
                legacy_window: Some(f64::NAN),
                ..d()
            }),
            "flows.f.cc.legacy_window"
        );
        assert!(d().build("flows.f.cc", init).is_ok());
    }

    /// `linux_min_cwnd`: tcp_reno_min_cwnd in recovery (⌊ssthresh/2⌋ segments), and on
    /// leaving it ssthresh at most FlightSize + 3 segments (tcp_moderate_cwnd).
    #[test]
    fn linux_min_cwnd_recovers_from_half_ssthresh_with_a_moderated_exit() {
        let (spec, init) = linux_spec(true, 80);
        let mut c = spec.build("flows.f.cc", init).unwrap();
        c.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            &view(S, 80 * S as u64, CaState::Open),
        );
        assert_eq!((c.ssthresh(), c.cwnd()), (70 * S as u64, 35 * S as u64));
        c.on_recovery_exit(SimTime::ZERO, &view(S, 40 * S as u64, CaState::Recovery));
        assert_eq!(c.cwnd(), 43 * S as u64, "min(70, 40 + 3) segments");
        // With enough in flight the exit is ssthresh; a timeout still collapses to 1.
        let mut d = spec.build("flows.f.cc", init).unwrap();
        d.on_congestion(SimTime::ZERO, Congestion::Ecn, &view(S, 0, CaState::Open));
        d.on_recovery_exit(SimTime::ZERO, &view(S, 90 * S as u64, CaState::Recovery));
        assert_eq!(d.cwnd(), 70 * S as u64);
        d.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(S, 0, CaState::Open),
        );
        assert_eq!(d.cwnd(), S as u64);
        // Below 8 segments w >> 3 is 0: ssthresh stays w, the window goes to w/2.
        let mut e = spec
            .build(
                "flows.f.cc",
                crate::cc::CcInit {
                    init_cwnd: 5 * S as u64,
                    ..init
                },
            )
            .unwrap();
        e.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            &view(S, 0, CaState::Open),
        );
        assert_eq!((e.ssthresh(), e.cwnd()), (5 * S as u64, 2 * S as u64));
        let bad = ScalableSpec {
            legacy_window: Some(16.0),
            linux_min_cwnd: true,
            ..ScalableSpec::default()
        };
        assert_eq!(
            bad.build("flows.f.cc", init).unwrap_err().field,
            "flows.f.cc.linux_min_cwnd"
        );
    }
}

//! TCP/E ("ECN enhanced"): an ECN mark freezes the window instead of halving it.
//!
//! Reference: A. Kamra, V. Misra, D. Towsley, "Achieving High Throughput in Low
//! Multiplexed, High Bandwidth, High Delay Environments" (seed 002), §2 and its `OnAck`
//! pseudocode; ECN per RFC 3168.
//!
//! OnAck, in our words (runs on every ack outside fast recovery, before the transport's own
//! ack processing; W = cwnd in bytes, S = MSS):
//! - the increase is chosen from the mode *before* any mode change: `S` in slow start,
//!   `S·S/W` in congestion avoidance (exact, with a byte counter as in `cc/reno.rs`)
//! - ECN-Echo on the ack: remember `last_ecn = now`, switch to congestion avoidance, leave
//!   W as it is (frozen: no increase, no decrease)
//! - no ECN-Echo: `W += increase`; if `now − last_ecn > T` switch to slow start, T = the
//!   smoothed RTT (`rtt_basis = "srtt"`) or RFC 6298's timeout formula `SRTT + 4·RTTVAR`
//!   (`"rto"`: "or a time out interval"; without the timer's minimum and backoff)
//! - the mode, not `W < ssthresh`, decides the growth; the flow starts in slow start
//!   (`last_ecn = −∞`)
//!
//! The rest is the base TCP ("DefaultAction"), NewReno by default:
//! - fast retransmit: `ssthresh = max(flight/2, 2S)`, `W = ssthresh`; recovery run by the
//!   transport (no TCP/E increase inside it); on exit `W = ssthresh` (RFC 6582 §3.2)
//! - timeout: `ssthresh = max(flight/2, 2S)`, `W = S`
//! - after a fast retransmit or a timeout, with `loss_exits_ss` (default, the prose: slow
//!   start lasts "until it receives an ECN mark again (or a packet gets dropped)"):
//!   congestion avoidance and `last_ecn = now`; without it the mode is left alone (the
//!   pseudocode)
//! - the receiver echoes each CE mark in exactly one ack (`ecn_echo = "per_mark"`, the
//!   default for TCP/E flows), and the transport's once-per-window RFC 3168 reduction and
//!   CWR are off ([`CongestionControl::reduces_on_ecn`] is false): TCP/E reacts per mark
//! - `ss_switch = false` (an ablation, "the final version of TCP/E" implies an earlier
//!   one): the freeze on marked acks only; otherwise the base TCP's slow start below
//!   `ssthresh` and congestion avoidance above

use super::{
    recovery_exit_cwnd, reno::half_flight, AckSample, CaState, CcInit, Congestion,
    CongestionControl, ConnView, RecoveryStyle,
};
use crate::config::ScenarioError;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;

/// The time without ECN-Echo after which TCP/E returns to slow start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttBasis {
    /// The smoothed round-trip time (RFC 6298 SRTT).
    #[default]
    Srtt,
    /// RFC 6298's timeout formula SRTT + 4·RTTVAR (without the timer's `rto_min` clamp and
    /// backoff).
    Rto,
}

/// The base TCP's fast recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BaseRecovery {
    #[default]
    Newreno,
    Reno,
}

fn default_true() -> bool {
    true
}

/// `cc = { algorithm = "tcpe", … }`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpeSpec {
    /// How long without ECN-Echo switches back to slow start: "srtt" (default) or "rto".
    #[serde(default)]
    pub rtt_basis: RttBasis,
    /// Also grow on the 1st and 2nd duplicate ack (the pseudocode runs on every ack);
    /// default true. False: only acks of new data grow the window.
    #[serde(default = "default_true")]
    pub inc_on_dupack: bool,
    /// A fast retransmit or timeout switches to congestion avoidance and restarts the
    /// no-ECN timer (the prose); default true. False: the mode is untouched (the
    /// pseudocode).
    #[serde(default = "default_true")]
    pub loss_exits_ss: bool,
    /// Slow-start/congestion-avoidance switching by ECN (the final TCP/E); default true.
    /// False: freeze on ECN-Echo only, base TCP growth otherwise.
    #[serde(default = "default_true")]
    pub ss_switch: bool,
    /// The base TCP's recovery: "newreno" (default) or "reno".
    #[serde(default)]
    pub recovery: BaseRecovery,
}

impl Default for TcpeSpec {
    fn default() -> Self {
        TcpeSpec {
            rtt_basis: RttBasis::Srtt,
            inc_on_dupack: true,
            loss_exits_ss: true,
            ss_switch: true,
            recovery: BaseRecovery::Newreno,
        }
    }
}

impl TcpeSpec {
    pub fn build(&self, _field: &str, init: CcInit) -> Result<Tcpe, ScenarioError> {
        Ok(Tcpe {
            mss: init.mss as u64,
            cwnd: init.init_cwnd,
            ssthresh: init.init_ssthresh,
            ca_acc: 0,
            slow_start: true,
            last_ecn: None,
            frozen: false,
            p: self.clone(),
        })
    }
}

#[derive(Clone, Debug)]
pub struct Tcpe {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Congestion-avoidance ack counter in bytes (one S per W bytes of acks).
    ca_acc: u64,
    /// The mode: slow start (true) or congestion avoidance.
    slow_start: bool,
    /// When the last ECN-Echo arrived (`None` = never, −∞).
    last_ecn: Option<SimTime>,
    /// The last ack carried ECN-Echo (the window did not move).
    frozen: bool,
    p: TcpeSpec,
}

impl Tcpe {
    /// In slow start (the mode; with `ss_switch = false`, `cwnd < ssthresh`).
    pub fn in_slow_start(&self) -> bool {
        if self.p.ss_switch {
            self.slow_start
        } else {
            self.cwnd < self.ssthresh
        }
    }
    pub fn frozen(&self) -> bool {
        self.frozen
    }

    #[inline]
    fn grow(&mut self, slow_start: bool, c: &ConnView) {
        if self.cwnd >= c.max_window {
            return;
        }
        super::reno::reno_increase(&mut self.cwnd, &mut self.ca_acc, slow_start, self.mss);
    }

    fn no_ecn_for(&self, now: SimTime, c: &ConnView) -> bool {
        let Some(t0) = self.last_ecn else {
            return true;
        };
        let t: Option<SimDuration> = match self.p.rtt_basis {
            RttBasis::Srtt => c.srtt,
            RttBasis::Rto => c.srtt.map(|s| SimDuration(s.0 + 4 * c.rttvar.0)),
        };
        t.is_some_and(|t| now.since(t0) > t)
    }
}

impl CongestionControl for Tcpe {
    fn name(&self) -> &'static str {
        "tcpe"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn recovery_style(&self) -> RecoveryStyle {
        match self.p.recovery {
            BaseRecovery::Newreno => RecoveryStyle::NewReno,
            BaseRecovery::Reno => RecoveryStyle::Reno,
        }
    }
    fn reduces_on_ecn(&self) -> bool {
        false
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        if ack.ece {
            // Freeze; remember the mark (during fast recovery too: it is news about the
            // queue, and the window is the transport's there anyway).
            self.frozen = true;
            if self.p.ss_switch {
                self.last_ecn = Some(now);
                self.slow_start = false;
            }
            return;
        }
        self.frozen = false;
        if c.state == CaState::Recovery {
            return; // NewReno's recovery window rules, no TCP/E increase
        }
        let grows = ack.newly_acked > 0 || (ack.dup && self.p.inc_on_dupack);
        if !self.p.ss_switch {
            if grows {
                self.grow(self.cwnd < self.ssthresh, c);
            }
            return;
        }
        if grows {
            self.grow(self.slow_start, c); // the mode before any switch
        }
        if !self.slow_start && self.no_ecn_for(now, c) {
            self.slow_start = true;
        }
    }
    fn on_congestion(&mut self, now: SimTime, why: Congestion, c: &ConnView) {
        self.cwnd = match why {
            Congestion::Ecn => return, // never called: reduces_on_ecn() is false
            Congestion::FastRetransmit => {
                self.ssthresh = half_flight(c.in_flight, self.mss);
                self.ssthresh
            }
            Congestion::Timeout => {
                self.ssthresh = half_flight(c.in_flight, self.mss);
                self.mss
            }
        };
        self.ca_acc = 0;
        if self.p.loss_exits_ss && self.p.ss_switch {
            self.slow_start = false;
            self.last_ecn = Some(now);
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = recovery_exit_cwnd(self.ssthresh, c);
    }
    fn trace_names(&self) -> &'static [&'static str] {
        &["slow_start", "frozen"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.in_slow_start() as u8 as f64;
        out[1] = self.frozen as u8 as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};

    const S: u64 = 1000;

    fn tcpe(spec: TcpeSpec, cwnd: u64) -> Tcpe {
        spec.build(
            "cc",
            CcInit {
                mss: S as u32,
                init_cwnd: cwnd,
                init_ssthresh: u64::MAX,
                ack_counting: Default::default(),
            },
        )
        .unwrap()
    }
    fn ece(n: u64) -> AckSample {
        let mut a = ack(n);
        a.ece = true;
        a
    }
    fn open(srtt_ms: u64) -> ConnView {
        let mut v = view(1000, 0, CaState::Open);
        v.srtt = Some(SimDuration::from_ms(srtt_ms));
        v.rttvar = SimDuration::from_ms(3 * srtt_ms / 4); // srtt + 4·rttvar = 4·srtt
        v
    }
    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_ms(x)
    }

    #[test]
    fn marked_acks_freeze_and_switch_to_ca_then_an_rtt_without_marks_returns_to_ss() {
        let v = open(100);
        let mut t = tcpe(TcpeSpec::default(), 10 * S);
        assert!(t.in_slow_start());
        t.on_ack(ms(0), &ack(S), &v);
        assert_eq!(t.cwnd(), 11 * S, "slow start: +S per ack");
        // A marked ack: frozen, CA.
        t.on_ack(ms(1), &ece(S), &v);
        assert_eq!(t.cwnd(), 11 * S);
        assert!(!t.in_slow_start() && t.frozen());
        // More marks never reduce it (no multiplicative decrease).
        for i in 0..50 {
            t.on_ack(ms(2 + i), &ece(S), &v);
        }
        assert_eq!(t.cwnd(), 11 * S);
        // Unmarked acks within one srtt of the last mark (at 51 ms): CA growth, S·S/W each;
        // 11 acks add exactly one segment.
        for i in 0..11 {
            t.on_ack(ms(60 + i), &ack(S), &v);
            assert!(!t.in_slow_start(), "still CA at {} ms", 60 + i);
        }
        assert_eq!(t.cwnd(), 12 * S);
        assert!(!t.frozen());
        // 151 ms: more than srtt (100 ms) after the last mark: this ack still grows by the
        // CA increase (chosen before the switch), then the flow is in slow start.
        let before = t.cwnd();
        t.on_ack(ms(152), &ack(S), &v);
        assert_eq!(t.cwnd(), before, "CA increase of S/12 S: counter only");
        assert!(t.in_slow_start());
        t.on_ack(ms(153), &ack(S), &v);
        assert_eq!(t.cwnd(), before + S, "slow start from the next ack on");
        // A mark takes it straight back to CA, frozen.
        t.on_ack(ms(154), &ece(S), &v);
        assert_eq!(t.cwnd(), before + S);
        assert!(!t.in_slow_start());
    }

    #[test]
    fn rto_basis_waits_longer() {
        let v = open(100); // rto 400 ms
        let mut t = tcpe(
            TcpeSpec {
                rtt_basis: RttBasis::Rto,
                ..TcpeSpec::default()
            },
            10 * S,
        );
        t.on_ack(ms(0), &ece(S), &v);
        t.on_ack(ms(300), &ack(S), &v);
        assert!(!t.in_slow_start(), "300 ms < rto");
        t.on_ack(ms(401), &ack(S), &v);
        assert!(t.in_slow_start());
    }

    #[test]
    fn losses_halve_as_newreno_and_leave_slow_start() {
        let mut t = tcpe(TcpeSpec::default(), 40 * S);
        let v = open(100);
        assert!(t.in_slow_start());
        t.on_congestion(
            ms(10),
            Congestion::FastRetransmit,
            &view(1000, 40 * S, CaState::Open),
        );
        assert_eq!((t.cwnd(), t.ssthresh()), (20 * S, 20 * S));
        assert!(!t.in_slow_start(), "loss_exits_ss: CA after a loss");
        // No growth inside recovery.
        t.on_ack(ms(20), &ack(S), &view(1000, 30 * S, CaState::Recovery));
        assert_eq!(t.cwnd(), 20 * S);
        t.on_recovery_exit(ms(100), &view(1000, 0, CaState::Recovery));
        assert_eq!(t.cwnd(), 20 * S);
        // One srtt after the loss without marks: slow start again.
        t.on_ack(ms(111), &ack(S), &v);
        assert!(t.in_slow_start());
        // The ECN reaction of RFC 3168 is not TCP/E's: the transport skips it, and the
        // hook does nothing if called.
        assert!(!t.reduces_on_ecn());
        let w = t.cwnd();
        t.on_congestion(ms(120), Congestion::Ecn, &v);
        assert_eq!(t.cwnd(), w);
        t.on_congestion(
            ms(130),
            Congestion::Timeout,
            &view(1000, 30 * S, CaState::Open),
        );
        assert_eq!((t.cwnd(), t.ssthresh()), (S, 15 * S));
        // The pseudocode, literally: the mode survives a loss.
        let mut lit = tcpe(
            TcpeSpec {
                loss_exits_ss: false,
                ..TcpeSpec::default()
            },
            40 * S,
        );
        lit.on_congestion(
            ms(10),
            Congestion::Timeout,
            &view(1000, 40 * S, CaState::Open),
        );
        assert!(lit.in_slow_start());
    }

    #[test]
    fn duplicate_acks_grow_unless_disabled() {
        let v = open(100);
        let mut dupack = ack(0);
        dupack.dup = true;
        let mut t = tcpe(TcpeSpec::default(), 10 * S);
        t.on_ack(ms(0), &dupack, &v);
        assert_eq!(t.cwnd(), 11 * S);
        let mut t = tcpe(
            TcpeSpec {
                inc_on_dupack: false,
                ..TcpeSpec::default()
            },
            10 * S,
        );
        t.on_ack(ms(0), &dupack, &v);
        assert_eq!(t.cwnd(), 10 * S);
    }

    #[test]
    fn without_ss_switch_the_base_rules_grow_and_marks_only_freeze() {
        let v = open(100);
        let mut t = tcpe(
            TcpeSpec {
                ss_switch: false,
                ..TcpeSpec::default()
            },
            10 * S,
        );
        t.ssthresh = 10 * S; // CA
        t.on_ack(ms(0), &ece(S), &v);
        assert_eq!(t.cwnd(), 10 * S);
        for i in 0..10 {
            t.on_ack(ms(500 + i), &ack(S), &v);
        }
        assert_eq!(
            t.cwnd(),
            11 * S,
            "CA: one segment per window, no return to SS"
        );
        assert!(!t.in_slow_start());
        let mut names = [0.0; 2];
        t.trace_values(&mut names);
        assert_eq!(names, [0.0, 0.0]);
    }
}

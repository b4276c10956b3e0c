//! TCP Reno and NewReno window rules.
//!
//! References: V. Jacobson, "Congestion Avoidance and Control", SIGCOMM 1988; RFC 5681
//! (Reno); RFC 6582 (NewReno recovery, run by the transport when `newreno` is set).
//! P0 §1-2 describes the variant the papers assume.
//!
//! Formulas (W = cwnd in bytes, S = MSS):
//! - slow start (W < ssthresh), per ack of new data: `W += S` (ack counting, so the window
//!   doubles every round trip when every segment is acked)
//! - congestion avoidance, per ack of new data: `W += S*S/W`, kept exact with a byte
//!   counter: one `S` per `W` bytes' worth of acks (Linux `cwnd_cnt`)
//! - with `ack_counting = "segments"` (RFC 3465 byte counting without its L limit, as Linux
//!   counts `acked`), an ack of `A` new bytes: slow start `W = min(W + A, ssthresh)`, and the
//!   part of `A` left over at ssthresh goes to congestion avoidance, where the byte counter
//!   gains `A` (not `S`): `W += S` per `W` bytes acknowledged, so one segment per round trip
//!   and doubling per round in slow start whatever the receiver's ack ratio
//! - fast retransmit (3rd dupack): `ssthresh = max(flight/2, 2S)`, `W = ssthresh`; the
//!   transport inflates the window by 3S and then S per further dupack during recovery
//! - end of fast recovery (RFC 6582 §3.2 step 3): `W = ssthresh`, or with
//!   `recovery_exit = "flightsize"` `W = min(ssthresh, max(flight, S) + S)`
//! - timeout: `ssthresh = max(flight/2, 2S)`, `W = S`
//! - ECN echo: as fast retransmit, without the retransmission; with the flow key
//!   `ece_increase = false` an ack carrying ECN-Echo does not grow the window at all (slow
//!   start included), as ns-2.35's `TcpAgent::recv_newack_helper` with `old_ecn_ 0`
//!   ([`super::AckSample::ece_hold`])

use super::{
    recovery_exit_cwnd, AckCounting, AckSample, CaState, Congestion, CongestionControl, ConnView,
    RecoveryStyle,
};
use crate::time::SimTime;

/// `cc = "reno"` / `cc = "newreno"`: no parameters (the transport's options, e.g.
/// `recovery_exit`, are flow keys).
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenoSpec {}

impl RenoSpec {
    pub fn build(&self, init: super::CcInit, newreno: bool) -> Reno {
        Reno::new(init.mss, init.init_cwnd, init.init_ssthresh, newreno)
            .with_ack_counting(init.ack_counting)
    }
}

#[derive(Clone, Debug)]
pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Congestion-avoidance ack counter, in bytes (Linux `snd_cwnd_cnt` scaled by S).
    ca_acc: u64,
    newreno: bool,
    counting: AckCounting,
}

impl Reno {
    pub fn new(mss: u32, init_cwnd: u64, init_ssthresh: u64, newreno: bool) -> Self {
        Reno {
            mss: mss as u64,
            cwnd: init_cwnd,
            ssthresh: init_ssthresh,
            ca_acc: 0,
            newreno,
            counting: AckCounting::Acks,
        }
    }
    /// Count acks or the segments they cover (flow key `ack_counting`).
    pub fn with_ack_counting(mut self, counting: AckCounting) -> Self {
        self.counting = counting;
        self
    }
}

/// Multiplicative decrease shared by the loss events: `max(flight/2, 2S)`.
/// Reno's per-ack increase (RFC 5681): one MSS per ack in slow start, else one MSS per
/// window's worth of acked MSS (`ca_acc` counts them). Shared by Reno/NewReno, DCTCP and TCP/E.
#[inline(always)]
pub(crate) fn reno_increase(cwnd: &mut u64, ca_acc: &mut u64, slow_start: bool, mss: u64) {
    if slow_start {
        *cwnd += mss;
    } else {
        *ca_acc += mss;
        if *ca_acc >= *cwnd {
            *ca_acc -= *cwnd;
            *cwnd += mss;
        }
    }
}

/// Reno's increase with `ack_counting = "segments"`: an ack of `acked` new bytes grows the
/// window by `acked` in slow start, up to `ssthresh` (Linux `tcp_slow_start`), and the rest
/// counts towards congestion avoidance, one `mss` per `cwnd` bytes acknowledged (Linux
/// `tcp_cong_avoid_ai` with `acked`, in bytes). O(1): one division per window's worth.
#[inline(always)]
pub(crate) fn reno_increase_bytes(
    cwnd: &mut u64,
    ca_acc: &mut u64,
    ssthresh: u64,
    mss: u64,
    acked: u64,
) {
    let mut acked = acked;
    if *cwnd < ssthresh {
        let grow = acked.min(ssthresh - *cwnd);
        *cwnd += grow;
        acked -= grow;
        if acked == 0 {
            return;
        }
    }
    *ca_acc += acked;
    if *ca_acc >= *cwnd {
        let n = *ca_acc / *cwnd;
        *ca_acc -= n * *cwnd;
        *cwnd += n * mss;
    }
}

/// The float-window algorithms' slow start with `ack_counting = "segments"`: `W = min(W +
/// acked, ssthresh)` (at least the window itself if it is above); returns the bytes of the
/// ack left over for congestion avoidance.
#[inline(always)]
pub(crate) fn slow_start_bytes(cwnd: &mut f64, ssthresh: f64, acked: f64) -> f64 {
    let grow = acked.min((ssthresh - *cwnd).max(0.0));
    *cwnd += grow;
    acked - grow
}

pub(crate) fn half_flight(flight: u64, mss: u64) -> u64 {
    (flight / 2).max(2 * mss)
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        if self.newreno {
            "newreno"
        } else {
            "reno"
        }
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn recovery_style(&self) -> RecoveryStyle {
        if self.newreno {
            RecoveryStyle::NewReno
        } else {
            RecoveryStyle::Reno
        }
    }
    #[inline]
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        if ack.newly_acked == 0 || c.state == CaState::Recovery {
            return;
        }
        // Never grow past what the receiver window lets us use, nor on an ECN-Echo ack with
        // `ece_increase = false` (ns-2's `old_ecn_ 0`).
        if self.cwnd >= c.max_window || ack.ece_hold {
            return;
        }
        match self.counting {
            AckCounting::Acks => {
                let slow_start = self.cwnd < self.ssthresh;
                reno_increase(&mut self.cwnd, &mut self.ca_acc, slow_start, self.mss);
            }
            AckCounting::Segments => reno_increase_bytes(
                &mut self.cwnd,
                &mut self.ca_acc,
                self.ssthresh,
                self.mss,
                ack.newly_acked,
            ),
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        self.ssthresh = half_flight(c.in_flight, self.mss);
        self.ca_acc = 0;
        self.cwnd = match why {
            Congestion::Timeout => self.mss,
            Congestion::FastRetransmit | Congestion::Ecn => self.ssthresh,
        };
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = recovery_exit_cwnd(self.ssthresh, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::cc_api::RecoveryExit;

    const S: u64 = 1000;

    #[test]
    fn slow_start_doubles_per_round() {
        let mut r = Reno::new(1000, S, u64::MAX, true);
        let v = view(1000, 0, CaState::Open);
        // One round: cwnd/S acks, each adds S.
        for _ in 0..1 {
            r.on_ack(SimTime::ZERO, &ack(S), &v);
        }
        assert_eq!(r.cwnd(), 2 * S);
        for _ in 0..2 {
            r.on_ack(SimTime::ZERO, &ack(S), &v);
        }
        assert_eq!(r.cwnd(), 4 * S);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut r = Reno::new(1000, 10 * S, 5 * S, true);
        let v = view(1000, 0, CaState::Open);
        for _ in 0..9 {
            r.on_ack(SimTime::ZERO, &ack(S), &v);
        }
        assert_eq!(r.cwnd(), 10 * S);
        r.on_ack(SimTime::ZERO, &ack(S), &v);
        assert_eq!(r.cwnd(), 11 * S);
    }

    /// One round trip of delayed acks: the window's `w` segments acked two per ack (the
    /// last one alone if `w` is odd, as the delayed-ack timer would).
    fn delayed_ack_round(r: &mut Reno) {
        let v = view(1000, 0, CaState::Open);
        let w = r.cwnd() / S;
        for _ in 0..w / 2 {
            r.on_ack(SimTime::ZERO, &ack(2 * S), &v);
        }
        if w % 2 == 1 {
            r.on_ack(SimTime::ZERO, &ack(S), &v);
        }
    }

    #[test]
    fn delayed_acks_grow_one_segment_per_round_with_segment_counting() {
        // Congestion avoidance at 20 segments, an ack per two segments.
        let seg = |counting| {
            let mut r = Reno::new(1000, 20 * S, 10 * S, true).with_ack_counting(counting);
            let mut grown = Vec::new();
            for _ in 0..4 {
                let before = r.cwnd();
                delayed_ack_round(&mut r);
                grown.push(r.cwnd() as f64 - before as f64);
            }
            (r.cwnd(), grown)
        };
        // "segments": 20 -> 21 -> 22 -> 23 -> 24 (one MSS per round trip, Linux).
        let (w, grown) = seg(AckCounting::Segments);
        assert_eq!(w, 24 * S, "{grown:?}");
        assert!(grown.iter().all(|&g| g == S as f64), "{grown:?}");
        // "acks" (RFC 5681 per ack): half a segment per round trip: 2 MSS in 4 rounds.
        let (w, grown) = seg(AckCounting::Acks);
        assert_eq!(w, 22 * S, "{grown:?}");
        assert!(grown.iter().all(|&g| g <= S as f64), "{grown:?}");
    }

    #[test]
    fn delayed_acks_double_slow_start_with_segment_counting() {
        let mut r =
            Reno::new(1000, 10 * S, u64::MAX, true).with_ack_counting(AckCounting::Segments);
        delayed_ack_round(&mut r);
        assert_eq!(r.cwnd(), 20 * S);
        delayed_ack_round(&mut r);
        assert_eq!(r.cwnd(), 40 * S);
        // Per ack: x1.5 per round.
        let mut r = Reno::new(1000, 10 * S, u64::MAX, true);
        delayed_ack_round(&mut r);
        assert_eq!(r.cwnd(), 15 * S);
    }

    #[test]
    fn segment_counting_stops_slow_start_at_ssthresh_and_carries_the_rest() {
        // cwnd 9, ssthresh 10: an ack of 4 segments brings cwnd to 10 and puts 3 segments'
        // bytes into the congestion-avoidance counter; 7 more segments then add one MSS.
        let mut r = Reno::new(1000, 9 * S, 10 * S, true).with_ack_counting(AckCounting::Segments);
        let v = view(1000, 0, CaState::Open);
        r.on_ack(SimTime::ZERO, &ack(4 * S), &v);
        assert_eq!(r.cwnd(), 10 * S);
        r.on_ack(SimTime::ZERO, &ack(6 * S), &v);
        assert_eq!(r.cwnd(), 10 * S);
        r.on_ack(SimTime::ZERO, &ack(S), &v);
        assert_eq!(r.cwnd(), 11 * S);
        // A stretch ack covering two windows adds two segments at once (O(1)).
        r.on_ack(SimTime::ZERO, &ack(22 * S), &v);
        assert_eq!(r.cwnd(), 13 * S);
    }

    #[test]
    fn three_dupacks_halve_flight() {
        let mut r = Reno::new(1000, 20 * S, u64::MAX, true);
        r.on_congestion(
            SimTime::ZERO,
            Congestion::FastRetransmit,
            &view(1000, 20 * S, CaState::Open),
        );
        assert_eq!(r.ssthresh(), 10 * S);
        assert_eq!(r.cwnd(), 10 * S);
        // Dupacks and acks during recovery do not grow the window here.
        r.on_ack(
            SimTime::ZERO,
            &ack(S),
            &view(1000, 20 * S, CaState::Recovery),
        );
        assert_eq!(r.cwnd(), 10 * S);
        r.on_recovery_exit(SimTime::ZERO, &view(1000, 0, CaState::Recovery));
        assert_eq!(r.cwnd(), 10 * S);
    }

    #[test]
    fn recovery_exit_window_per_rfc6582_options() {
        let exit = |flight: u64, how: RecoveryExit| {
            let mut r = Reno::new(1000, 20 * S, u64::MAX, true);
            r.on_congestion(
                SimTime::ZERO,
                Congestion::FastRetransmit,
                &view(1000, 20 * S, CaState::Open),
            );
            let mut v = view(1000, flight, CaState::Recovery);
            v.recovery_exit = how;
            r.on_recovery_exit(SimTime::ZERO, &v);
            r.cwnd()
        };
        // ssthresh is 10 segments.
        assert_eq!(exit(2 * S, RecoveryExit::Ssthresh), 10 * S);
        assert_eq!(exit(2 * S, RecoveryExit::FlightSize), 3 * S);
        assert_eq!(exit(0, RecoveryExit::FlightSize), 2 * S);
        assert_eq!(exit(15 * S, RecoveryExit::FlightSize), 10 * S);
    }

    #[test]
    fn timeout_collapses_to_one_segment_with_floor_two() {
        let mut r = Reno::new(1000, 3 * S, u64::MAX, false);
        r.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(1000, 3 * S, CaState::Open),
        );
        assert_eq!(r.cwnd(), S);
        assert_eq!(r.ssthresh(), 2 * S);
        assert_eq!(r.recovery_style(), RecoveryStyle::Reno);
    }
}

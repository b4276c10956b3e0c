//! Round-trip time estimation and the retransmission timeout, RFC 6298.
//!
//! - first sample R: `SRTT = R`, `RTTVAR = R/2`
//! - later samples: `RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|`, `SRTT = 7/8·SRTT + 1/8·R`
//! - `RTO = SRTT + max(G, 4·RTTVAR)`, clamped to `[rto_min, rto_max]`; G = 0 here because the
//!   simulator's clock is exact (P0 asks for fine-grained timers)
//! - backoff: each expiry doubles the RTO (up to `rto_max`); a valid new sample clears it
//!   (Karn: samples never come from retransmitted segments)
//!
//! The smoothed estimator is fed **once per round trip** (one timed segment at a time, as in
//! 4.4BSD, which P0 assumes): RFC 6298's gains are meant for that rate, and feeding every ack
//! shrinks RTTVAR to nothing within a window, so that any growth of the queueing delay
//! (ack compression doubles it each slow-start round) fires spurious timeouts. Per-ack
//! samples go to [`RttEstimator::observe`] (latest and minimum RTT, used by delay-based
//! algorithms).
//!
//! **ns-2's tick estimator** ([`RttEstimator::with_tick`], the `rto_tick` flow key; ns-2.35
//! `tcp/tcp.cc`, `TcpAgent::rtt_update`, `rtt_timeout`, `rtt_backoff`), tick `g`
//! (`tcpTick_`, 10 ms by default):
//! - a sample is the number of tick boundaries between the send and the ack,
//!   `m = max(1, ⌊now/g⌋ − ⌊sent/g⌋)` (ns-2 without timestamps: `(tao + tickoff)/tcp_tick_`
//!   with `tickoff` the send time's phase in the tick grid; ns-2 adds a random `boot_time_`
//!   below one tick to that phase, tcplab takes 0);
//! - fixed point, `S = 8·srtt` and `V = 4·rttvar` in ticks: the first sample sets `S = 8m`,
//!   `V = 2m`; later ones `d = m − ⌊S/8⌋`, `S += d`, `V += |d| − ⌊V/4⌋` (each at least 1);
//! - `RTO = ⌊(8·V + S)/8⌋·g` (srtt + 4·rttvar, truncated to whole ticks); the timeout is
//!   `max(RTO, rto_min)·2^backoff`, capped at `rto_max`, and at least `2g`;
//! - past a backoff of 8 (a fourth consecutive expiry) SRTT is folded into RTTVAR
//!   (`V += ⌊S/8⌋`, `S = 0`), so that the next sample starts the estimator afresh.

use crate::time::SimDuration;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    min_rtt: Option<u64>,
    latest: Option<u64>,
    rto_base: u64,
    backoff_shift: u32,
    rto_min: u64,
    rto_max: u64,
    /// ns-2's tick estimator: the tick (ps) and the fixed-point `(8·srtt, 4·rttvar)` in
    /// ticks; `None` = RFC 6298 on the exact clock.
    ns2: Option<Ns2Rtt>,
}

#[derive(Clone, Copy, Debug)]
struct Ns2Rtt {
    tick: u64,
    srtt8: i64,
    rttvar4: i64,
}

impl RttEstimator {
    pub fn new(initial: SimDuration, min: SimDuration, max: SimDuration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rtt: None,
            latest: None,
            rto_base: initial.0,
            backoff_shift: 0,
            rto_min: min.0,
            rto_max: max.0,
            ns2: None,
        }
    }

    /// ns-2's tick-based estimator with tick `tick` (module docs).
    pub fn with_tick(mut self, tick: SimDuration) -> Self {
        assert!(
            tick.0 > 0,
            "rto_tick must be positive (checked by the scenario)"
        );
        self.ns2 = Some(Ns2Rtt {
            tick: tick.0,
            srtt8: 0,
            rttvar4: 0,
        });
        self
    }

    /// A timed segment sent at `sent` was acked at `now`: the smoothed estimator's sample.
    pub fn sample_at(&mut self, now: crate::time::SimTime, sent: crate::time::SimTime) {
        let Some(n) = self.ns2.as_mut() else {
            return self.sample(now.since(sent));
        };
        let g = n.tick;
        let m = ((now.0 / g) as i64 - (sent.0 / g) as i64).max(1);
        if n.srtt8 != 0 {
            let mut d = m - (n.srtt8 >> 3);
            n.srtt8 += d;
            if n.srtt8 <= 0 {
                n.srtt8 = 1;
            }
            d = d.abs() - (n.rttvar4 >> 2);
            n.rttvar4 += d;
            if n.rttvar4 <= 0 {
                n.rttvar4 = 1;
            }
        } else {
            n.srtt8 = m << 3;
            n.rttvar4 = m << 1;
        }
        self.srtt = Some((n.srtt8 as u64) * g / 8);
        self.rttvar = (n.rttvar4 as u64) * g / 4;
        self.rto_base = (((n.rttvar4 << 3) + n.srtt8) >> 3) as u64 * g;
        self.observe(now.since(sent));
        self.backoff_shift = 0;
    }

    pub fn sample(&mut self, r: SimDuration) {
        let r = r.0;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                let diff = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + diff) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.observe(SimDuration(r));
        self.rto_base = self.srtt.unwrap() + 4 * self.rttvar;
        self.backoff_shift = 0;
    }

    /// A per-ack round-trip sample: updates the latest and minimum RTT only.
    pub fn observe(&mut self, r: SimDuration) {
        self.latest = Some(r.0);
        self.min_rtt = Some(self.min_rtt.map_or(r.0, |m| m.min(r.0)));
    }

    /// The current timeout including backoff.
    pub fn rto(&self) -> SimDuration {
        let base = self.rto_base.clamp(self.rto_min, self.rto_max);
        let t = base
            .saturating_mul(1u64 << self.backoff_shift)
            .min(self.rto_max.max(self.rto_min));
        match self.ns2 {
            // ns-2's `rtt_timeout`: never below two ticks.
            Some(n) => SimDuration(t.max(2 * n.tick)),
            None => SimDuration(t),
        }
    }

    /// Timer expired: double the timeout (RFC 6298 5.5).
    pub fn back_off(&mut self) {
        if self.backoff_shift < 32 {
            self.backoff_shift += 1;
        }
        if let Some(n) = self.ns2.as_mut() {
            // ns-2 `rtt_backoff`: past a backoff of 8, srtt moves into rttvar and the next
            // sample starts afresh.
            if self.backoff_shift > 3 && n.srtt8 != 0 {
                n.rttvar4 += n.srtt8 >> 3;
                n.srtt8 = 0;
            }
        }
    }

    pub fn backoff_shift(&self) -> u32 {
        self.backoff_shift
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration)
    }
    pub fn rttvar(&self) -> SimDuration {
        SimDuration(self.rttvar)
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt.map(SimDuration)
    }
    pub fn latest(&self) -> Option<SimDuration> {
        self.latest.map(SimDuration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::ZERO,
            SimDuration::from_secs(60),
        )
    }

    #[test]
    fn first_sample_sets_srtt_and_half_var() {
        let mut e = est();
        assert_eq!(e.rto(), SimDuration::from_secs(1));
        e.sample(SimDuration::from_ms(100));
        assert_eq!(e.srtt(), Some(SimDuration::from_ms(100)));
        assert_eq!(e.rttvar(), SimDuration::from_ms(50));
        assert_eq!(e.rto(), SimDuration::from_ms(300));
    }

    #[test]
    fn smoothing_follows_rfc6298() {
        let mut e = est();
        e.sample(SimDuration::from_ms(100));
        e.sample(SimDuration::from_ms(200));
        // rttvar = 3/4*50 + 1/4*100 = 62.5; srtt = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), SimDuration::from_us(62_500));
        assert_eq!(e.srtt(), Some(SimDuration::from_us(112_500)));
        assert_eq!(e.rto(), SimDuration::from_us(362_500));
    }

    #[test]
    fn backoff_doubles_and_caps_and_sample_clears() {
        let mut e = RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(4),
        );
        e.sample(SimDuration::from_ms(100));
        assert_eq!(e.rto(), SimDuration::from_ms(300));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_ms(600));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_ms(2400));
        e.back_off();
        assert_eq!(e.rto(), SimDuration::from_secs(4));
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDuration::from_secs(4));
        e.sample(SimDuration::from_ms(100));
        assert_eq!(e.backoff_shift(), 0);
    }

    #[test]
    fn ns2_tick_estimator_counts_tick_boundaries_and_truncates() {
        use crate::time::SimTime;
        let ms = |x: u64| SimTime(SimDuration::from_ms(x).0);
        let mut e = RttEstimator::new(
            SimDuration::from_secs(3),
            SimDuration::ZERO,
            SimDuration::from_secs(60),
        )
        .with_tick(SimDuration::from_ms(10));
        assert_eq!(e.rto(), SimDuration::from_secs(3));
        // Sent at 5 ms, acked at 101 ms: boundaries 10..100 = 10 ticks (the exact RTT is
        // 96 ms). S = 80, V = 20: RTO = (160 + 80) >> 3 = 30 ticks.
        e.sample_at(ms(101), ms(5));
        assert_eq!(e.srtt(), Some(SimDuration::from_ms(100)));
        assert_eq!(e.rttvar(), SimDuration::from_ms(50));
        assert_eq!(e.rto(), SimDuration::from_ms(300));
        // 12 ticks: d = 2, S = 82, V = 20 + (2 - 5) = 17: RTO = (136 + 82) >> 3 = 27 ticks.
        e.sample_at(ms(1120), ms(1000));
        assert_eq!(e.rto(), SimDuration::from_ms(270));
        // A sample within one tick counts as one tick.
        let mut f = RttEstimator::new(
            SimDuration::from_secs(3),
            SimDuration::ZERO,
            SimDuration::from_secs(60),
        )
        .with_tick(SimDuration::from_ms(10));
        f.sample_at(ms(2), ms(1));
        // S = 8, V = 2: RTO = (16 + 8) >> 3 = 3 ticks.
        assert_eq!(f.rto(), SimDuration::from_ms(30));
    }

    #[test]
    fn ns2_tick_estimator_floor_and_backoff_reset() {
        use crate::time::SimTime;
        let mut e = RttEstimator::new(
            SimDuration::from_secs(3),
            SimDuration::ZERO,
            SimDuration::from_secs(60),
        )
        .with_tick(SimDuration::from_ms(10));
        e.sample_at(SimTime(SimDuration::from_ms(10).0), SimTime::ZERO);
        // One tick: RTO 3 ticks = 30 ms, and never below two ticks.
        assert_eq!(e.rto(), SimDuration::from_ms(30));
        for _ in 0..4 {
            e.back_off();
        }
        // The fourth expiry folds SRTT into RTTVAR: the next sample re-initialises.
        assert_eq!(e.rto(), SimDuration::from_ms(480));
        e.sample_at(
            SimTime(SimDuration::from_ms(1050).0),
            SimTime(SimDuration::from_ms(1000).0),
        );
        assert_eq!(e.srtt(), Some(SimDuration::from_ms(50)));
        assert_eq!(e.rto(), SimDuration::from_ms(150));
    }

    #[test]
    fn minimum_applies() {
        let mut e = RttEstimator::new(
            SimDuration::from_secs(1),
            SimDuration::from_ms(200),
            SimDuration::from_secs(60),
        );
        e.sample(SimDuration::from_ms(10));
        assert_eq!(e.rto(), SimDuration::from_ms(200));
    }
}

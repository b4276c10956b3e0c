//! Round-trip time estimation and the retransmission timeout, RFC 6298.
//!
//! - first sample R: `SRTT = R`, `RTTVAR = R/2`
//! - later samples: `RTTVAR = 3/4·RTTVAR + 1/4·|SRTT − R|`, `SRTT = 7/8·SRTT + 1/8·R`
//! - `RTO = SRTT + max(G, 4·RTTVAR)`, clamped to `[rto_min, rto_max]`; G = 0 here because the
//!   simulator's clock is exact (P0 asks for fine-grained timers, mechanisms.md §2 item 6)
//! - backoff: each expiry doubles the RTO (up to `rto_max`); a valid new sample clears it
//!   (Karn: samples never come from retransmitted segments)
//!
//! The smoothed estimator is fed **once per round trip** (one timed segment at a time, as in
//! 4.4BSD, which P0 assumes): RFC 6298's gains are meant for that rate, and feeding every ack
//! shrinks RTTVAR to nothing within a window, so that any growth of the queueing delay
//! (ack compression doubles it each slow-start round) fires spurious timeouts. Per-ack
//! samples go to [`RttEstimator::observe`] (latest and minimum RTT, used by delay-based
//! algorithms).

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
        }
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
        SimDuration(
            base.saturating_mul(1u64 << self.backoff_shift)
                .min(self.rto_max.max(self.rto_min)),
        )
    }

    /// Timer expired: double the timeout (RFC 6298 5.5).
    pub fn back_off(&mut self) {
        if self.backoff_shift < 32 {
            self.backoff_shift += 1;
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

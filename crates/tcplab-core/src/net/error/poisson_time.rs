//! Time-based random losses (the link loss model's `loss_mode = time` variant, for
//! seed 002: "The loss probability was configured to provide one loss approximately every 10
//! seconds"): loss events form a Poisson process in time with mean spacing `mean_interval`,
//! and each event loses the next packet whose transmission starts at or after it. A
//! per-packet probability (`bernoulli`) gives fewer losses per second on a link that is not
//! full; this model gives the same rate of losses whatever the load (as long as packets are
//! sent more often than events occur).
//!
//! Rule, per transmitted packet with transmission start `s`: if `s >= next` the packet is
//! lost and the next event is drawn from `s`: `next = s + Exp(mean_interval)`. Events that
//! fall in one gap between transmissions lose one packet together (the line sends nothing
//! then), and by the exponential's lack of memory the events after `s` are again a Poisson
//! process of the same rate, whatever the traffic. (Letting each of them lose a packet of
//! its own would make a flow that stalls after a loss lose its next retransmissions in a
//! row, and its backed-off timer would keep it from ever catching up.)
//!
//! Random numbers: stream `Stream::LinkError` with the link's index; one draw per event (the
//! first when the model is built).

use super::{ErrorCx, ErrorModel};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;

/// `{ model = "poisson_time", mean_interval = "10s" }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoissonTimeSpec {
    /// Mean time between loss events (at least 1 µs).
    pub mean_interval: DurationValue,
    /// Where the model acts: "after_link" (the default: on transmitted packets) or
    /// "before_queue" (on arriving packets; a lost one takes no buffer space or link time).
    #[serde(default)]
    pub placement: super::Placement,
}

impl PoissonTimeSpec {
    pub fn build(&self, field: &str, cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        let mean = self.mean_interval.0;
        if mean < SimDuration::from_us(1) {
            return Err(ScenarioError::new(
                format!("{field}.mean_interval"),
                format!("must be at least 1us (one loss event per mean interval), got {mean}"),
            ));
        }
        Ok(ErrorModel::PoissonTime(Box::new(PoissonTime::new(
            mean,
            SimRng::derive(cx.seed, Stream::LinkError, cx.link),
        ))))
    }
}

#[derive(Clone, Debug)]
pub struct PoissonTime {
    /// Mean spacing, picoseconds.
    mean_ps: f64,
    /// The next loss event.
    next: SimTime,
    rng: SimRng,
}

impl PoissonTime {
    pub fn new(mean: SimDuration, mut rng: SimRng) -> Self {
        let mean_ps = mean.0 as f64;
        let first = SimTime(Self::gap(&mut rng, mean_ps));
        PoissonTime {
            mean_ps,
            next: first,
            rng,
        }
    }

    /// The stream the event times are drawn from (`run.stochastic`).
    pub(crate) fn rng(&self) -> &SimRng {
        &self.rng
    }

    /// An exponential gap in picoseconds, at least 1.
    fn gap(rng: &mut SimRng, mean_ps: f64) -> u64 {
        ((rng.exp1() * mean_ps) as u64).max(1)
    }

    #[inline]
    pub fn lost(&mut self, start: SimTime) -> bool {
        if start < self.next {
            return false;
        }
        self.next = SimTime(
            start
                .0
                .saturating_add(Self::gap(&mut self.rng, self.mean_ps)),
        );
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(mean: SimDuration, seed: u64) -> PoissonTime {
        PoissonTime::new(mean, SimRng::derive(seed, Stream::LinkError, 0))
    }

    /// Losses per second follow the event rate whatever the packet rate: 10 ms events over
    /// 100 s are about 10,000 losses (±4 sigma = ±400) with a packet every 10 µs and with a
    /// packet every 100 µs (each loss restarts the process at a packet, so the two counts
    /// differ only by chance; both within the same band).
    #[test]
    fn losses_follow_time_not_packets() {
        let count = |step_ps: u64| {
            let mut m = model(SimDuration::from_ms(10), 7);
            let end = 100_000_000_000_000u64; // 100 s in ps
            (0..end / step_ps)
                .filter(|k| m.lost(SimTime(k * step_ps)))
                .count()
        };
        for step in [10_000_000u64, 100_000_000] {
            let n = count(step);
            assert!((9_600..=10_400).contains(&n), "{step}: {n}");
        }
    }

    /// Events in one gap between packets lose one packet together: one packet a second
    /// against events every 10 ms loses every packet, once each, and then the events
    /// restart from the packet (the next one is about 10 ms later).
    #[test]
    fn events_in_one_gap_lose_one_packet() {
        let mut m = model(SimDuration::from_ms(10), 1);
        let lost = (1..=20u64)
            .filter(|s| m.lost(SimTime(s * 1_000_000_000_000)))
            .count();
        assert_eq!(lost, 20);
        let after = m.next.0 - 20 * 1_000_000_000_000;
        assert!(after < 200_000_000_000, "{after}"); // within 200 ms (20 means)
    }
}

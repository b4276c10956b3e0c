//! PIE (Proportional Integral controller Enhanced).
//!
//! Reference: R. Pan, P. Natarajan, F. Baker, G. White, "Proportional Integral Controller
//! Enhanced (PIE): A Lightweight Control Scheme to Address the Bufferbloat Problem",
//! RFC 8033 (2017), §4 (random drop, drop-probability update, burst allowance), §5 (ECN,
//! auto-tuning, derandomization) and its Appendix pseudocode. QDELAY_REF = `target`
//! (15 ms), T_UPDATE = `t_update` (15 ms), α = `alpha` (0.125 Hz), β = `beta` (1.25 Hz),
//! MAX_BURST = `max_burst` (150 ms), MEAN_PKTSIZE = `mean_packet_size` (1500 B).
//!
//! - arrival: a full buffer (`limit`) drops (`overflow`); else, with `burst_allowance > 0`,
//!   enqueue; else if `qdelay_old < target/2` and `drop_prob < 0.2`, or at most
//!   `2·mean_packet_size` bytes are queued: enqueue; else drop with probability `drop_prob`
//!   (`ecn = true`: an ECN-capable packet is marked instead while
//!   `drop_prob ≤ ecn_threshold`, RFC 8033 §5.1)
//! - derandomization (`derandomize = true`, RFC 8033 §5.4): `accu_prob += drop_prob` per
//!   arrival that reaches the random test (reset to 0 while `drop_prob = 0`); no drop while
//!   `accu_prob < 0.85`, a certain one at `accu_prob ≥ 8.5`, else the random draw; a drop
//!   resets `accu_prob`
//! - every `t_update` (the queue's wake-up timer `QueueCx::wake_at`):
//!   `p = α·(qdelay − target) + β·(qdelay − qdelay_old)` (seconds), scaled by the
//!   magnitude of `drop_prob` (RFC 8033 §5.2 auto-tuning): `/2048` below 1e-6, `/512` below
//!   1e-5, `/128` below 1e-4, `/32` below 1e-3, `/8` below 1e-2, `/2` below 0.1, unscaled
//!   above; `drop_prob += p`; if `qdelay = qdelay_old = 0`: `drop_prob *= 0.98`; clamp to
//!   [0, 1]; `qdelay_old = qdelay`; `burst_allowance −= t_update` (floor 0); and if
//!   `drop_prob = 0` with `qdelay` and `qdelay_old` both below `target/2`:
//!   `burst_allowance = max_burst`
//! - queueing delay (RFC 8033 §5.1 permits a departure-rate estimate or timestamps; this is
//!   timestamps): `qdelay` = the sojourn time of the last packet dequeued, 0 when the queue
//!   is empty after it
//! - the timer runs from the first arrival and stops once the queue is empty and
//!   `drop_prob = 0` (nothing would change); the next arrival restarts it
//!
//! Not implemented (not in RFC 8033's algorithm; Linux and the PIE paper have them): the
//! 2 % cap on increases above `drop_prob = 0.1` and the extra 2 % at `qdelay > 250 ms`.
//! Storage: a FIFO of (packet, arrival time).

use super::{Backlog, DropReason, Limit, QueueCx, QueueDisc};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::packet::flags;
use crate::packet::Packet;
use crate::queue::LimitSpec;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

fn ms15() -> DurationValue {
    DurationValue(SimDuration::from_ms(15))
}
fn ms150() -> DurationValue {
    DurationValue(SimDuration::from_ms(150))
}
fn alpha() -> f64 {
    0.125
}
fn beta() -> f64 {
    1.25
}
fn tenth() -> f64 {
    0.1
}
fn mean_pkt() -> u32 {
    1500
}

/// `queue = { type = "pie", target = "15ms", t_update = "15ms", alpha = 0.125, beta = 1.25,
/// max_burst = "150ms", ecn = false, … }`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// Buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
    /// QDELAY_REF, the queueing delay PIE steers to (default "15ms").
    #[serde(default = "ms15")]
    pub target: DurationValue,
    /// T_UPDATE, the drop-probability update period (default "15ms").
    #[serde(default = "ms15")]
    pub t_update: DurationValue,
    /// α in Hz, the weight of the delay's distance from target (default 0.125).
    #[serde(default = "alpha")]
    pub alpha: f64,
    /// β in Hz, the weight of the delay's change since the last update (default 1.25).
    #[serde(default = "beta")]
    pub beta: f64,
    /// MAX_BURST, the burst allowance restored when the queue is calm (default "150ms").
    #[serde(default = "ms150")]
    pub max_burst: DurationValue,
    /// Mark ECN-capable packets instead of dropping them while the probability is at most
    /// `ecn_threshold` (default false).
    #[serde(default)]
    pub ecn: bool,
    /// Drop probability above which even ECN-capable packets are dropped (default 0.1).
    #[serde(default = "tenth")]
    pub ecn_threshold: f64,
    /// RFC 8033 §5.4 derandomization of drops (default false, as Linux).
    #[serde(default)]
    pub derandomize: bool,
    /// MEAN_PKTSIZE, bytes: with at most twice this queued PIE never drops (default 1500).
    #[serde(default = "mean_pkt")]
    pub mean_packet_size: u32,
}

/// PIE's settings after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieParams {
    pub limit: Limit,
    pub target: SimDuration,
    pub t_update: SimDuration,
    pub alpha: f64,
    pub beta: f64,
    pub max_burst: SimDuration,
    pub ecn: bool,
    pub ecn_threshold: f64,
    pub derandomize: bool,
    pub mean_packet_size: u32,
}

impl PieSpec {
    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<Pie, ScenarioError> {
        let err = |k: &str, m: String| Err(ScenarioError::new(format!("{field}.{k}"), m));
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        if self.target.0 == SimDuration::ZERO {
            return err("target", "must be positive".into());
        }
        if let Some(m) = crate::time::timer_period_too_short(self.t_update.0) {
            return err("t_update", m);
        }
        for (k, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v >= 0.0 && v.is_finite()) {
                return err(k, format!("must be a non-negative number (Hz), got {v}"));
            }
        }
        if !(self.ecn_threshold >= 0.0 && self.ecn_threshold <= 1.0) {
            return err(
                "ecn_threshold",
                format!("must be in [0, 1], got {}", self.ecn_threshold),
            );
        }
        if self.mean_packet_size == 0 {
            return err("mean_packet_size", "must be positive".into());
        }
        Ok(Pie::new(PieParams {
            limit,
            target: self.target.0,
            t_update: self.t_update.0,
            alpha: self.alpha,
            beta: self.beta,
            max_burst: self.max_burst.0,
            ecn: self.ecn,
            ecn_threshold: self.ecn_threshold,
            derandomize: self.derandomize,
            mean_packet_size: self.mean_packet_size,
        }))
    }
}

pub struct Pie {
    p: PieParams,
    q: VecDeque<(Packet, SimTime)>,
    backlog: Backlog,
    /// The controlled probability.
    pub drop_prob: f64,
    /// Current and previous queueing-delay estimates.
    qdelay: SimDuration,
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
    accu_prob: f64,
    /// The next update, while the timer runs.
    next_update: Option<SimTime>,
    /// Updates made (tests, summary).
    pub updates: u64,
}

/// RFC 8033 §5.2: the update's scale for the current probability.
#[inline]
pub fn auto_tune_divisor(drop_prob: f64) -> f64 {
    if drop_prob < 1e-6 {
        2048.0
    } else if drop_prob < 1e-5 {
        512.0
    } else if drop_prob < 1e-4 {
        128.0
    } else if drop_prob < 1e-3 {
        32.0
    } else if drop_prob < 1e-2 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    }
}

impl Pie {
    pub fn new(p: PieParams) -> Self {
        Pie {
            p,
            q: VecDeque::new(),
            backlog: Backlog::default(),
            drop_prob: 0.0,
            qdelay: SimDuration::ZERO,
            qdelay_old: SimDuration::ZERO,
            burst_allowance: p.max_burst,
            accu_prob: 0.0,
            next_update: None,
            updates: 0,
        }
    }
    pub fn params(&self) -> &PieParams {
        &self.p
    }
    /// The current queueing-delay estimate.
    pub fn qdelay(&self) -> SimDuration {
        self.qdelay
    }

    /// RFC 8033 `drop_early`: whether the arrival is signalled.
    fn drop_early(&mut self, pkt: &Packet, cx: &mut QueueCx) -> bool {
        let half = SimDuration(self.p.target.0 / 2);
        if (self.qdelay_old < half && self.drop_prob < 0.2)
            || self.backlog.bytes + pkt.size as u64 <= 2 * self.p.mean_packet_size as u64
        {
            return false;
        }
        if self.p.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                self.accu_prob = 0.0;
                return true;
            }
        }
        let hit = cx.rng.bernoulli(self.drop_prob);
        if hit {
            self.accu_prob = 0.0;
        }
        hit
    }

    /// RFC 8033 §4.2 and §5.2: one drop-probability update.
    pub fn update(&mut self) {
        self.updates += 1;
        let (q, q_old) = (self.qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64());
        let mut p = self.p.alpha * (q - self.p.target.as_secs_f64()) + self.p.beta * (q - q_old);
        p /= auto_tune_divisor(self.drop_prob);
        self.drop_prob += p;
        if self.qdelay == SimDuration::ZERO && self.qdelay_old == SimDuration::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        self.burst_allowance = self.burst_allowance - self.p.t_update;
        let half = SimDuration(self.p.target.0 / 2);
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.p.max_burst;
        }
    }
}

impl QueueDisc for Pie {
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        super::audit_limit(&self.p.limit, waiting)?;
        super::audit_range("PIE's drop probability", self.drop_prob, 0.0, 1.0)?;
        // Derandomisation adds drop_prob (≤ 1) and restarts from 0 at 8.5.
        super::audit_range("PIE's accumulated probability", self.accu_prob, 0.0, 9.5)?;
        if self.burst_allowance > self.p.max_burst {
            return Err(format!(
                "PIE's burst allowance {:?} > max_burst {:?}",
                self.burst_allowance, self.p.max_burst
            ));
        }
        Ok(())
    }
    fn name(&self) -> &'static str {
        "pie"
    }
    // Out of line: keeps the link's inlined enqueue/dequeue dispatch (and the fast
    // path's code beside it) as small as before this discipline existed.
    #[inline(never)]
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCx) {
        if self.next_update.is_none() {
            let t = cx.now + self.p.t_update;
            self.next_update = Some(t);
            cx.wake_at(t);
        }
        if !self.p.limit.fits(&self.backlog, &pkt) {
            cx.drop(pkt, DropReason::Overflow);
            return;
        }
        if self.burst_allowance == SimDuration::ZERO && self.drop_early(&pkt, cx) {
            if self.p.ecn && pkt.has(flags::ECT) && self.drop_prob <= self.p.ecn_threshold {
                cx.mark(&mut pkt, DropReason::Pie);
            } else {
                cx.drop(pkt, DropReason::Pie);
                return;
            }
        }
        self.backlog.add(&pkt);
        self.q.push_back((pkt, cx.now));
    }
    #[inline(never)]
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet> {
        let (p, t_in) = self.q.pop_front()?;
        self.backlog.remove(&p);
        self.qdelay = if self.backlog.packets == 0 {
            SimDuration::ZERO
        } else {
            cx.now.since(t_in)
        };
        Some(p)
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(|(p, _)| f(p))
    }
    fn on_wake(&mut self, cx: &mut QueueCx) {
        let Some(t) = self.next_update else {
            return;
        };
        if cx.now < t {
            cx.wake_at(t);
            return;
        }
        self.update();
        if self.backlog.packets == 0 && self.drop_prob == 0.0 {
            self.next_update = None;
        } else {
            let next = t + self.p.t_update;
            self.next_update = Some(next);
            cx.wake_at(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};
    use crate::time::PS_PER_MS;

    pub(super) fn spec() -> PieSpec {
        PieSpec {
            limit: crate::queue::default_limit(),
            target: ms15(),
            t_update: ms15(),
            alpha: alpha(),
            beta: beta(),
            max_burst: ms150(),
            ecn: false,
            ecn_threshold: tenth(),
            derandomize: false,
            mean_packet_size: 1500,
        }
    }

    #[test]
    fn update_is_the_pi_law_scaled_by_the_probability() {
        let mut pie = spec().build("q").unwrap();
        // 45 ms of delay, 15 ms last time: p = 0.125·0.030 + 1.25·0.030 = 0.04125.
        pie.qdelay_old = SimDuration::from_ms(15);
        pie.qdelay = SimDuration::from_ms(45);
        pie.update();
        assert!((pie.drop_prob - 0.04125 / 2048.0).abs() < 1e-15);
        // At drop_prob = 0.05 the step is halved; at 0.5 it is whole.
        for (p0, div) in [(0.05, 2.0), (0.5, 1.0), (0.005, 8.0), (5e-4, 32.0)] {
            pie.drop_prob = p0;
            pie.qdelay_old = SimDuration::from_ms(15);
            pie.qdelay = SimDuration::from_ms(45);
            pie.update();
            assert!((pie.drop_prob - (p0 + 0.04125 / div)).abs() < 1e-12, "{p0}");
        }
        // Both delays zero: decay by 2 %.
        pie.drop_prob = 0.5;
        pie.qdelay = SimDuration::ZERO;
        pie.qdelay_old = SimDuration::ZERO;
        pie.update();
        // p = −0.125·0.015 = −0.001875 (unscaled at 0.5), then × 0.98.
        assert!((pie.drop_prob - (0.5 - 0.001875) * 0.98).abs() < 1e-12);
    }

    #[test]
    fn burst_allowance_lets_a_burst_through_then_expires() {
        let mut pie = spec().build("q").unwrap();
        pie.drop_prob = 1.0;
        pie.qdelay_old = SimDuration::from_ms(100);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for _ in 0..100 {
            pie.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
        }
        assert_eq!(cx.drops.packets, 0, "within the burst allowance");
        assert_eq!(cx.wake, Some(SimTime(15 * PS_PER_MS)));
        for _ in 0..10 {
            pie.qdelay = SimDuration::from_ms(100);
            pie.update();
        }
        assert_eq!(pie.burst_allowance, SimDuration::ZERO);
        pie.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
        assert_eq!(cx.drops.packets, 1, "probability 1 after the allowance");
    }

    /// A standing UDP overload driven directly: 1250 departures/s (10 Mb/s of 1000-B
    /// packets) and 1562.5 arrivals/s. PIE steers the queueing delay to its 15 ms target and
    /// the drop probability to 1 − C/λ = 0.2.
    #[test]
    fn converges_to_target_delay_under_overload() {
        let mut pie = spec().build("q").unwrap();
        let mut rng = SimRng::derive(1, Stream::Queue, 0);
        let mut log = DropLog::default();
        let dep = 800_000_000u64; // 0.8 ms in ps
        let arr = 640_000_000u64; // 0.64 ms
        let (mut next_dep, mut next_arr, mut next_wake) = (dep, arr, u64::MAX);
        let end = 60_000 * PS_PER_MS;
        let (mut sum_delay, mut n) = (0.0, 0u64);
        let mut probs = Vec::new();
        loop {
            let now = next_dep.min(next_arr).min(next_wake);
            if now >= end {
                break;
            }
            let mut cx = QueueCx::new(SimTime(now), &mut rng, &mut log);
            if now == next_wake {
                next_wake = u64::MAX;
                pie.on_wake(&mut cx);
                if now > 20_000 * PS_PER_MS {
                    probs.push(pie.drop_prob);
                }
            } else if now == next_arr {
                pie.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
                next_arr += arr;
            } else {
                cx.phase = crate::queue::Phase::Dequeue;
                if pie.dequeue(&mut cx).is_some() && now > 20_000 * PS_PER_MS {
                    sum_delay += pie.qdelay().as_secs_f64();
                    n += 1;
                }
                next_dep += dep;
            }
            if let Some(w) = cx.wake {
                next_wake = next_wake.min(w.0);
            }
        }
        let mean = sum_delay / n as f64;
        assert!((mean - 0.015).abs() < 0.002, "mean queueing delay {mean}");
        let p = probs.iter().sum::<f64>() / probs.len() as f64;
        assert!((p - 0.2).abs() < 0.01, "mean drop_prob {p}");
        assert_eq!(log.by_reason[DropReason::Pie.index()], log.packets);
    }

    #[test]
    fn ecn_marks_below_the_threshold_and_drops_above() {
        let mut s = spec();
        s.ecn = true;
        let mut pie = s.build("q").unwrap();
        pie.burst_allowance = SimDuration::ZERO;
        pie.qdelay_old = SimDuration::from_ms(100);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        let ect = || {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            p.flags |= flags::ECT;
            p
        };
        for _ in 0..3 {
            pie.enqueue(ect(), &mut cx);
        }
        pie.drop_prob = 0.1;
        for _ in 0..2000 {
            pie.enqueue(ect(), &mut cx);
            pie.q.pop_back();
            let b = pie.backlog;
            pie.backlog = Backlog {
                packets: b.packets - 1,
                bytes: b.bytes - 1000,
            };
        }
        let marks = cx.drops.marks;
        assert!((marks as f64 - 200.0).abs() < 45.0, "{marks}");
        assert_eq!(cx.drops.packets, 0);
        pie.drop_prob = 0.5;
        pie.enqueue(ect(), &mut cx);
        pie.enqueue(ect(), &mut cx);
        pie.enqueue(ect(), &mut cx);
        pie.enqueue(ect(), &mut cx);
        assert!(
            cx.drops.packets > 0,
            "above the threshold ECT packets are dropped"
        );
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let bad = |s: PieSpec| s.build("links.l.queue").err().unwrap().field;
        assert_eq!(
            bad(PieSpec {
                alpha: -1.0,
                ..spec()
            }),
            "links.l.queue.alpha"
        );
        assert_eq!(
            bad(PieSpec {
                t_update: DurationValue(SimDuration::ZERO),
                ..spec()
            }),
            "links.l.queue.t_update"
        );
        assert_eq!(
            bad(PieSpec {
                ecn_threshold: 2.0,
                ..spec()
            }),
            "links.l.queue.ecn_threshold"
        );
        assert!(spec().build("links.l.queue").is_ok());
    }

    #[test]
    fn a_picosecond_update_period_is_refused() {
        // Fuzz regression fuzz/regressions/run_bounded/pie_t_update_1ps: a 1-ps timer
        // fired 10^12 times per simulated second. 1 µs is the shortest accepted.
        let with = |d: SimDuration| {
            PieSpec {
                t_update: DurationValue(d),
                ..spec()
            }
            .build("links.l.queue")
        };
        let e = with(SimDuration(1)).err().unwrap();
        assert_eq!(e.field, "links.l.queue.t_update");
        assert!(e.reason.contains("shorter than 1us"), "{}", e.reason);
        assert!(with(SimDuration(999_999)).is_err());
        assert!(with(SimDuration::from_us(1)).is_ok());
    }
}

#[cfg(test)]
mod audit_tests {
    use super::*;

    #[test]
    fn the_auditor_checks_the_probabilities_and_burst_allowance() {
        let mut pie = tests::spec().build("q").unwrap();
        let w = Backlog::default();
        assert!(pie.audit(w).is_ok());
        pie.drop_prob = 1.0;
        assert!(pie.audit(w).is_ok());
        for bad in [1.0 + 1e-12, -0.0001, f64::NAN] {
            pie.drop_prob = bad;
            let e = pie.audit(w).unwrap_err();
            assert!(e.contains("drop probability"), "{e}");
        }
        pie.drop_prob = 0.5;
        pie.accu_prob = f64::INFINITY;
        assert!(pie.audit(w).unwrap_err().contains("accumulated"));
        pie.accu_prob = 0.0;
        pie.burst_allowance = pie.p.max_burst + SimDuration(1);
        assert!(pie.audit(w).unwrap_err().contains("burst allowance"));
    }
}

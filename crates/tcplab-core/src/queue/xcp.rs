//! XCP router: efficiency and fairness controllers writing per-packet feedback into the
//! congestion header.
//!
//! Reference: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, §3.5 (the router) and §4 (stability:
//! α = 0.4, β = 0.226 = α²·√2); seed 004's XCP slides.
//!
//! Formulas (per control interval of length d; s = packet size in bytes, cwnd and rtt
//! read from the packet's congestion header, C = link rate in bytes/s):
//! - control interval: `d` = the average RTT of the XCP packets seen in the previous
//!   interval, weighted by bytes: `d = Σ rtt·s / Σ s`
//! - efficiency controller: `φ = α·d·S − β·Q`, spare bandwidth `S = C − y/d` (y = bytes
//!   that arrived in the interval), Q = the persistent queue (bytes)
//! - bandwidth shuffling: `h = max(0, γ·y − |φ|)`
//! - fairness controller, computed at the end of an interval, applied to the packets of
//!   the next one:
//!   `ξ_p = (h + max(φ, 0)) / (d · Σ rtt·s/cwnd)`,
//!   `ξ_n = (h + max(−φ, 0)) / (d · Σ s)`
//! - the sums run over the interval just ended, of length t; the formulas assume t = d.
//!   When they differ (the first interval, `init_interval`, or after the average RTT
//!   changed) the sums are rescaled to the next interval, `Σ·d/t`, and S and y are rates
//!   over t turned into amounts over d: `φ = α·d·(C − y/t) − β·Q`, `h = max(0,
//!   γ·(y/t)·d − |φ|)`, `ξ_p = (h + max(φ, 0))·t / (d²·Σ rtt·s/cwnd)` and likewise ξ_n
//!   (identical to the paper's when t = d). Without the rescaling a first interval of
//!   10 ms on 100-ms flows hands out ten times the aggregate feedback.
//! - per packet: `p = ξ_p·rtt²·s/cwnd`, `n = ξ_n·rtt·s`, and the header's feedback
//!   `H_feedback ← min(H_feedback, p − n)` (bytes of window change), so the path's
//!   bottleneck sets it.
//! - persistent queue (Katabi §3.5.1): the minimum queue (bytes waiting, not counting the
//!   packet in transmission) seen by an arriving packet during the last propagation
//!   delay, the propagation delay estimated as `d − q/C` (average RTT minus the local
//!   queueing delay, q = the last queue seen); choice: at least `d/10`, so a queue
//!   longer than the RTT does not make the window vanish.
//!
//! Choices the paper leaves open (documented in docs/scenarios.md):
//! - `init_interval` (10 ms): the first control interval, before any RTT is known; an
//!   interval in which no packet arrives stops the timer, the next arrival restarts it.
//! - The sums (Σ rtt·s/cwnd, Σ s, the average RTT) cover XCP data packets only (those with
//!   a congestion header: `rtt_ns > 0` and `cwnd > 0`); `y` counts every byte that arrives
//!   (acks and non-XCP traffic use the capacity too). A packet without an RTT estimate
//!   gets no positive and no negative feedback (`p = n = 0`).
//! - Feedback is computed when a packet arrives (links run XCP on their FIFO fast path: one
//!   event per packet); the coefficients are those of the last completed interval.
//! - No residue tracking: the per-packet shares are the paper's formulas; over an interval
//!   they hand out the aggregate to the extent the flows' windows and RTTs stay as
//!   observed in the previous interval.
//! - The buffer (`limit`) drops arrivals that do not fit (drop tail).
//!
//! Per-packet work is O(1): three running sums, one minimum, two multiplications.

use super::{Backlog, DropReason, Limit, QueueCx, QueueDisc};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::packet::Packet;
use crate::queue::LimitSpec;
use crate::time::{Rate, SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

fn default_alpha() -> f64 {
    0.4
}
fn default_beta() -> f64 {
    0.226
}
fn default_gamma() -> f64 {
    0.1
}
fn default_init_interval() -> DurationValue {
    DurationValue(SimDuration::from_ms(10))
}

/// `queue = { type = "xcp", … }`: an XCP router (Katabi, Handley & Rohrs 2002).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XcpSpec {
    /// Physical buffer (drop tail): packets (100 or "100p"), bytes ("64KiB") or
    /// "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
    /// Efficiency-controller gain on spare bandwidth, α (default 0.4; Katabi 2002: stable
    /// for 0 < α < π/(4√2) with β = α²√2).
    #[serde(default = "default_alpha")]
    #[schemars(with = "f64")]
    pub alpha: f64,
    /// Efficiency-controller gain on the persistent queue, β (default 0.226).
    #[serde(default = "default_beta")]
    #[schemars(with = "f64")]
    pub beta: f64,
    /// Bandwidth-shuffling fraction γ: `h = max(0, γ·y − |φ|)` (default 0.1).
    #[serde(default = "default_gamma")]
    #[schemars(with = "f64")]
    pub gamma: f64,
    /// First control interval, used until an average RTT has been measured (default
    /// "10ms"; not in the paper).
    #[serde(default = "default_init_interval")]
    #[schemars(with = "String")]
    pub init_interval: DurationValue,
}

impl XcpSpec {
    /// Validate (`field` = `links.NAME.queue`) and build for a link of rate `rate`.
    pub fn build(&self, field: &str, rate: Rate) -> Result<Xcp, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        let pos = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ScenarioError::new(
                    format!("{field}.{name}"),
                    format!("must be a finite number > 0, got {v}"),
                ))
            }
        };
        pos("alpha", self.alpha)?;
        pos("beta", self.beta)?;
        if !(self.gamma.is_finite() && (0.0..=1.0).contains(&self.gamma)) {
            return Err(ScenarioError::new(
                format!("{field}.gamma"),
                format!("must be in [0, 1], got {}", self.gamma),
            ));
        }
        if self.init_interval.0 == SimDuration::ZERO {
            return Err(ScenarioError::new(
                format!("{field}.init_interval"),
                "must be greater than zero",
            ));
        }
        // The control and queue-estimation timers run every d and max(d - qdelay, d/10):
        // a 1-ps interval made the latter 0 ps, a wake-up at the same instant forever (fuzz
        // regression run_bounded/xcp_init_interval_1ps). Measured intervals are >= 1 us.
        if let Some(m) = crate::time::timer_period_too_short(self.init_interval.0) {
            return Err(ScenarioError::new(format!("{field}.init_interval"), m));
        }
        Ok(Xcp::new(
            limit,
            rate,
            self.alpha,
            self.beta,
            self.gamma,
            self.init_interval.0,
        ))
    }
}

/// The XCP router state: the last interval's coefficients and this interval's sums.
pub struct Xcp {
    limit: Limit,
    /// Link capacity, bytes/s.
    capacity: f64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Control interval d (seconds): the last measured average RTT.
    d: f64,
    /// Feedback coefficients of the last completed interval.
    xi_p: f64,
    xi_n: f64,
    // Running sums of the current interval.
    interval_start: SimTime,
    /// Bytes arrived (every packet).
    y: f64,
    /// XCP packets: Σ s, Σ rtt·s, Σ rtt·s/cwnd.
    sum_s: f64,
    sum_rtt_s: f64,
    sum_rtt_s_cwnd: f64,
    // Persistent queue estimate.
    /// Minimum queue (bytes) seen by arrivals since the estimation window began.
    q_min: u64,
    /// The last queue seen by an arrival (bytes).
    q_last: u64,
    /// The persistent queue Q of the last completed estimation window (bytes).
    q_persist: u64,
    // Timers: `None` while the link is quiet.
    next_ctrl: Option<SimTime>,
    next_qwin: Option<SimTime>,
    // Scheduled-path storage.
    q: VecDeque<Packet>,
    backlog: Backlog,
    /// Control intervals completed (tests, diagnostics).
    pub intervals: u64,
    /// The last φ (bytes), for tests and diagnostics.
    pub last_phi: f64,
}

impl Xcp {
    pub fn new(
        limit: Limit,
        rate: Rate,
        alpha: f64,
        beta: f64,
        gamma: f64,
        init_interval: SimDuration,
    ) -> Self {
        Xcp {
            limit,
            capacity: rate.bps() as f64 / 8.0,
            alpha,
            beta,
            gamma,
            d: init_interval.as_secs_f64(),
            xi_p: 0.0,
            xi_n: 0.0,
            interval_start: SimTime::ZERO,
            y: 0.0,
            sum_s: 0.0,
            sum_rtt_s: 0.0,
            sum_rtt_s_cwnd: 0.0,
            q_min: u64::MAX,
            q_last: 0,
            q_persist: 0,
            next_ctrl: None,
            next_qwin: None,
            q: VecDeque::new(),
            backlog: Backlog::default(),
            intervals: 0,
            last_phi: 0.0,
        }
    }

    /// The current control interval d, seconds.
    pub fn interval(&self) -> f64 {
        self.d
    }
    /// The feedback coefficients (ξ_p, ξ_n) in force.
    pub fn coefficients(&self) -> (f64, f64) {
        (self.xi_p, self.xi_n)
    }

    /// Length of the next persistent-queue window: `max(d − q/C, d/10)`.
    fn qwin(&self) -> SimDuration {
        let qdelay = self.q_last as f64 / self.capacity;
        SimDuration::from_secs_f64((self.d - qdelay).max(self.d / 10.0))
    }

    fn arm(&self, cx: &mut QueueCx) {
        if let Some(t) = self.next_ctrl {
            cx.wake_at(t);
        }
        if let Some(t) = self.next_qwin {
            cx.wake_at(t);
        }
    }

    /// The end of a control interval: efficiency and fairness controllers.
    fn control(&mut self, now: SimTime) {
        self.intervals += 1;
        let t = now.since(self.interval_start).as_secs_f64();
        if self.y == 0.0 || t <= 0.0 {
            // A quiet interval: stop until the next arrival.
            self.xi_p = 0.0;
            self.xi_n = 0.0;
            self.next_ctrl = None;
            self.next_qwin = None;
            self.reset(now);
            return;
        }
        // The next interval: the average RTT measured in this one (kept if no XCP packet).
        if self.sum_s > 0.0 {
            self.d = (self.sum_rtt_s / self.sum_s).max(1e-6);
        }
        let d = self.d;
        let input_rate = self.y / t;
        let spare = self.capacity - input_rate;
        let phi = self.alpha * d * spare - self.beta * self.q_persist as f64;
        let h = (self.gamma * input_rate * d - phi.abs()).max(0.0);
        self.last_phi = phi;
        // The sums cover t; the next interval (length d) sees t/d times as much of them.
        let scale = t / (d * d);
        self.xi_p = if self.sum_rtt_s_cwnd > 0.0 {
            (h + phi.max(0.0)) * scale / self.sum_rtt_s_cwnd
        } else {
            0.0
        };
        self.xi_n = if self.sum_s > 0.0 {
            (h + (-phi).max(0.0)) * scale / self.sum_s
        } else {
            0.0
        };
        self.reset(now);
        self.next_ctrl = Some(now + SimDuration::from_secs_f64(self.d));
    }

    fn reset(&mut self, now: SimTime) {
        self.interval_start = now;
        self.y = 0.0;
        self.sum_s = 0.0;
        self.sum_rtt_s = 0.0;
        self.sum_rtt_s_cwnd = 0.0;
    }

    /// Account for an arrival that found `waiting` queued and write its feedback.
    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) {
        if self.next_ctrl.is_none() {
            // First arrival after a quiet period: start both timers.
            self.reset(cx.now);
            self.q_min = u64::MAX;
            self.q_last = waiting.bytes;
            self.next_ctrl = Some(cx.now + SimDuration::from_secs_f64(self.d));
            self.next_qwin = Some(cx.now + self.qwin());
            self.arm(cx);
        }
        let s = pkt.size as f64;
        self.y += s;
        self.q_last = waiting.bytes;
        self.q_min = self.q_min.min(waiting.bytes);
        let data = pkt.is_data();
        let h = &mut pkt.cc;
        if data && h.rtt_ns > 0 && h.cwnd > 0 {
            let rtt = h.rtt_ns as f64 * 1e-9;
            let cwnd = h.cwnd as f64;
            self.sum_s += s;
            self.sum_rtt_s += rtt * s;
            self.sum_rtt_s_cwnd += rtt * s / cwnd;
            let fb = self.xi_p * rtt * rtt * s / cwnd - self.xi_n * rtt * s;
            let fb = fb as f32;
            if fb < h.feedback {
                h.feedback = fb;
            }
        }
    }
}

impl QueueDisc for Xcp {
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        use super::audit_range as range;
        super::audit_limit(&self.limit, waiting)?;
        let m = f64::MAX;
        // This interval's sums: bytes, and over XCP data packets Σ s, Σ rtt·s, Σ rtt·s/cwnd.
        range("XCP's input bytes y", self.y, 0.0, m)?;
        range(
            "XCP's sum of sizes",
            self.sum_s,
            0.0,
            self.y * (1.0 + 1e-12),
        )?;
        range("XCP's sum of rtt*s", self.sum_rtt_s, 0.0, m)?;
        range("XCP's sum of rtt*s/cwnd", self.sum_rtt_s_cwnd, 0.0, m)?;
        // The last interval's coefficients and the control interval.
        range("XCP's xi_p", self.xi_p, 0.0, m)?;
        range("XCP's xi_n", self.xi_n, 0.0, m)?;
        range("XCP's control interval d (s)", self.d, f64::MIN_POSITIVE, m)?;
        range("XCP's phi", self.last_phi, -m, m)?;
        Ok(())
    }
    fn name(&self) -> &'static str {
        "xcp"
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCx) {
        let waiting = self.backlog;
        if self.admit(&mut pkt, waiting, cx) {
            self.backlog.add(&pkt);
            self.q.push_back(pkt);
        }
    }
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.backlog.remove(&p);
        Some(p)
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(f)
    }
    fn admission_only(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        if !self.limit.fits(&waiting, pkt) {
            // A dropped packet still offered load: count it in y.
            self.y += pkt.size as f64;
            cx.drop(*pkt, DropReason::Overflow);
            return false;
        }
        self.on_arrival(pkt, waiting, cx);
        true
    }
    fn on_wake(&mut self, cx: &mut QueueCx) {
        let now = cx.now;
        if self.next_qwin.is_some_and(|t| t <= now) {
            self.q_persist = if self.q_min == u64::MAX {
                0
            } else {
                self.q_min
            };
            self.q_min = u64::MAX;
            self.next_qwin = Some(now + self.qwin());
        }
        if self.next_ctrl.is_some_and(|t| t <= now) {
            self.control(now);
        }
        self.arm(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};

    const C: u64 = 10_000_000; // 10 Mb/s = 1.25e6 B/s

    pub(super) fn xcp() -> Xcp {
        Xcp::new(
            Limit::Packets(100),
            Rate(C),
            0.4,
            0.226,
            0.1,
            SimDuration::from_ms(100),
        )
    }

    fn data(rtt_ms: u32, cwnd: u32) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
        p.cc.rtt_ns = rtt_ms * 1_000_000;
        p.cc.cwnd = cwnd;
        p.cc.feedback = f32::INFINITY;
        p
    }

    fn arrive(x: &mut Xcp, t: SimTime, p: &mut Packet, waiting: Backlog) -> Option<SimTime> {
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(t, &mut rng, &mut log);
        assert!(x.admit(p, waiting, &mut cx));
        cx.wake
    }

    fn wake(x: &mut Xcp, t: SimTime) -> Option<SimTime> {
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(t, &mut rng, &mut log);
        x.on_wake(&mut cx);
        cx.wake
    }

    /// Drive one 100 ms interval with 50 packets of 1000 B (0.5 MB/s, S = 0.75 MB/s) from
    /// two flows (rtt 100 ms, cwnd 20 kB; rtt 50 ms, cwnd 10 kB), empty queue; check φ, ξ
    /// and the next interval's feedback against the formulas.
    #[test]
    fn controllers_follow_the_formulas() {
        let mut x = xcp();
        let w = arrive(
            &mut x,
            SimTime::ZERO,
            &mut data(100, 20_000),
            Backlog::default(),
        );
        // Both timers asked for; the earlier is the queue window (d − 0 = d, same time).
        assert_eq!(w, Some(SimTime(100 * crate::time::PS_PER_MS)));
        for i in 1..50u64 {
            let t = SimTime(i * 2 * crate::time::PS_PER_MS);
            let mut p = if i % 2 == 0 {
                data(100, 20_000)
            } else {
                data(50, 10_000)
            };
            arrive(&mut x, t, &mut p, Backlog::default());
            // First interval: no coefficients yet, zero feedback.
            assert_eq!(p.cc.feedback, 0.0);
        }
        let end = SimTime(100 * crate::time::PS_PER_MS);
        let next = wake(&mut x, end).unwrap();
        assert_eq!(x.intervals, 1);
        // d = Σ rtt·s / Σ s = 75 ms, the next interval; this one lasted t = 100 ms.
        assert!((x.interval() - 0.075).abs() < 1e-12);
        let (y, t, d) = (50_000.0, 0.1, 0.075);
        let phi: f64 = 0.4 * d * (1.25e6 - y / t) - 0.0;
        assert!((x.last_phi - phi).abs() < 1e-6, "{} vs {phi}", x.last_phi);
        let h = (0.1 * y / t * d - phi.abs()).max(0.0);
        assert_eq!(h, 0.0);
        // 25 packets each: Σ rtt·s/cwnd = 25·(0.1·1000/20000 + 0.05·1000/10000) = 0.25,
        // over t; the next interval d sees 0.25·d/t of it.
        let xi_p = phi / (d * 0.25 * d / t);
        let (p, n) = x.coefficients();
        assert!((p - xi_p).abs() < 1e-9 * xi_p);
        assert_eq!(n, 0.0);
        assert_eq!(next, end + SimDuration::from_ms(75));
        // The next packets' feedback: ξ_p·rtt²·s/cwnd, equal rate increase per flow per d.
        let mut a = data(100, 20_000);
        let mut b = data(50, 10_000);
        arrive(&mut x, end, &mut a, Backlog::default());
        arrive(&mut x, end, &mut b, Backlog::default());
        let fa = xi_p * 0.01 * 1000.0 / 20_000.0;
        let fb = xi_p * 0.0025 * 1000.0 / 10_000.0;
        assert!((a.cc.feedback as f64 - fa).abs() < 1e-3 * fa);
        assert!((b.cc.feedback as f64 - fb).abs() < 1e-3 * fb);
        // Flow a sends cwnd/rtt/s = 200 packets/s, b 200 packets/s: per second the rate
        // increase is 200·fa/0.1 vs 200·fb/0.05: equal.
        assert!((200.0 * fa / 0.1 - 200.0 * fb / 0.05).abs() < 1e-9 * fa);
    }

    /// Overload with a persistent queue: φ < 0, negative feedback proportional to rtt·s
    /// (so to the flow's rate over an interval), and the header keeps the minimum.
    #[test]
    fn overload_gives_negative_feedback_and_min_along_the_path() {
        let mut x = xcp();
        let q = Backlog {
            packets: 20,
            bytes: 20_000,
        };
        // 200 packets in 100 ms = 2 MB/s > 1.25 MB/s.
        for i in 0..200u64 {
            let t = SimTime(i * crate::time::PS_PER_MS / 2);
            arrive(&mut x, t, &mut data(100, 50_000), q);
        }
        // The queue window closes at 100 ms − 20 kB/1.25 MB/s = 84 ms: Q = 20 kB.
        wake(&mut x, SimTime(84 * crate::time::PS_PER_MS));
        wake(&mut x, SimTime(100 * crate::time::PS_PER_MS));
        let phi = 0.4 * 0.1 * (1.25e6 - 2e6) - 0.226 * 20_000.0;
        assert!((x.last_phi - phi).abs() < 1e-6);
        let (p, n) = x.coefficients();
        assert_eq!(p, 0.0, "h = max(0, 0.1·200 kB − |φ|) = 0 here");
        assert!((n - (-phi) / (0.1 * 200_000.0)).abs() < 1e-12);
        let mut pk = data(100, 50_000);
        pk.cc.feedback = -1.0; // an upstream router already asked for less
        arrive(&mut x, SimTime(100 * crate::time::PS_PER_MS), &mut pk, q);
        let fb = -n * 0.1 * 1000.0;
        assert!(fb < -1.0);
        assert!((pk.cc.feedback as f64 - fb).abs() < 1e-3 * -fb);
        let mut up = data(100, 50_000);
        up.cc.feedback = 2.0 * fb as f32;
        arrive(&mut x, SimTime(100 * crate::time::PS_PER_MS), &mut up, q);
        assert_eq!(
            up.cc.feedback,
            2.0 * fb as f32,
            "a smaller upstream value stays"
        );
    }

    #[test]
    fn quiet_interval_stops_the_timer_and_non_xcp_packets_get_none() {
        let mut x = xcp();
        let mut plain = Packet::test(FlowId(1), PacketKind::Data, 1000);
        arrive(&mut x, SimTime::ZERO, &mut plain, Backlog::default());
        assert_eq!(plain.cc.feedback, 0.0, "untouched");
        assert!(wake(&mut x, SimTime(100 * crate::time::PS_PER_MS)).is_some());
        // No arrivals in the second interval: no more wake-ups.
        assert!(wake(&mut x, SimTime(200 * crate::time::PS_PER_MS)).is_none());
        // The next arrival restarts the timer.
        let w = arrive(
            &mut x,
            SimTime(500 * crate::time::PS_PER_MS),
            &mut data(100, 1000),
            Backlog::default(),
        );
        assert!(w.is_some());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let spec: XcpSpec = toml::from_str("alpha = -1").unwrap();
        let e = spec.build("links.bn.queue", Rate(C)).err().unwrap();
        assert_eq!(e.field, "links.bn.queue.alpha");
        let spec: XcpSpec = toml::from_str("gamma = 2").unwrap();
        let e = spec.build("links.bn.queue", Rate(C)).err().unwrap();
        assert_eq!(e.field, "links.bn.queue.gamma");
    }

    #[test]
    fn a_sub_microsecond_initial_interval_is_refused() {
        // Fuzz regression run_bounded/xcp_init_interval_1ps: d = 1 ps made the queue
        // window d/10 round to 0 ps, and on_wake re-armed itself at the same instant.
        let spec: XcpSpec = toml::from_str("init_interval = \"1ps\"").unwrap();
        let e = spec.build("links.bn.queue", Rate(C)).err().unwrap();
        assert_eq!(e.field, "links.bn.queue.init_interval");
        assert!(e.reason.contains("shorter than 1us"), "{}", e.reason);
        let spec: XcpSpec = toml::from_str("init_interval = \"1us\"").unwrap();
        let mut x = spec.build("links.bn.queue", Rate(C)).unwrap();
        assert!(x.qwin() > SimDuration::ZERO);
        x.q_last = u64::MAX;
        assert!(x.qwin() >= SimDuration(100_000), "at least d/10");
    }
}

#[cfg(test)]
mod audit_tests {
    use super::*;

    #[test]
    fn the_auditor_checks_the_sums_and_coefficients() {
        let mut x = tests::xcp();
        let w = Backlog::default();
        assert!(x.audit(w).is_ok());
        x.y = 3000.0;
        x.sum_s = 3000.0;
        x.sum_rtt_s = 300.0;
        x.sum_rtt_s_cwnd = 30.0;
        assert!(x.audit(w).is_ok());
        x.sum_s = 3001.0;
        assert!(x.audit(w).unwrap_err().contains("sum of sizes"), "Σ s > y");
        x.sum_s = 3000.0;
        x.sum_rtt_s_cwnd = f64::NAN;
        assert!(x.audit(w).unwrap_err().contains("rtt*s/cwnd"));
        x.sum_rtt_s_cwnd = 30.0;
        x.xi_n = -1.0;
        assert!(x.audit(w).unwrap_err().contains("xi_n"));
        x.xi_n = 0.0;
        x.d = 0.0;
        assert!(x.audit(w).unwrap_err().contains("control interval"));
        x.d = 0.1;
        x.last_phi = f64::NEG_INFINITY;
        assert!(x.audit(w).unwrap_err().contains("phi"));
        x.last_phi = -5.0;
        assert!(x.audit(w).is_ok());
        assert!(
            x.audit(Backlog {
                packets: 101,
                bytes: 0
            })
            .is_err(),
            "limit 100"
        );
    }
}

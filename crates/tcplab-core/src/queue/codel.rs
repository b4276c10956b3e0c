//! CoDel (Controlled Delay), a dequeue-time AQM on the packets' sojourn time.
//!
//! Reference: K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, "Controlled Delay Active
//! Queue Management", RFC 8289 (2018), §3 (the algorithm), §4 and §5 (pseudocode), with
//! `TARGET` = `target` (5 ms), `INTERVAL` = `interval` (100 ms), `MAXPACKET` = `mtu`.
//!
//! Per packet taken from the head at `now` (its arrival time `t_in` is stored beside it):
//! - `sojourn = now − t_in`
//! - `sojourn < target` or the bytes still queued ≤ `mtu`: `first_above_time = 0` (not
//!   ok to drop); else if `first_above_time = 0`: `first_above_time = now + interval`; else
//!   ok to drop once `now ≥ first_above_time`
//! - dropping state: leave it when not ok to drop; otherwise while `now ≥ drop_next`: drop
//!   the packet, `count += 1`, take the next one, and (still ok to drop)
//!   `drop_next = control_law(drop_next, count)`
//! - not dropping and ok to drop: drop it, take the next one, enter the dropping state;
//!   `delta = count − lastcount`; `count = delta` if `delta > 1` and
//!   `now − drop_next < 16·interval` (re-entry soon after leaving: resume near the old
//!   rate), else `count = 1`; `drop_next = control_law(now, count)`; `lastcount = count`
//! - `control_law(t, count) = t + interval/√count`
//! - an empty queue resets `first_above_time`
//! - `ecn = true`: where CoDel would drop an ECN-capable packet it sets CE and sends it
//!   (one signal per dequeue, counted like a drop for the control law); other packets are
//!   dropped
//!
//! Drops and marks are counted under the reason `codel` (in the dequeue phase:
//! `dequeue_drops`); a full buffer (`limit`) drops arrivals (`overflow`). Storage: a FIFO
//! of (packet, arrival time), grown to the largest backlog (no allocation after that).
//! The control law's state ([`CodelState`]) is separate from the storage so that FQ-CoDel
//! runs one per flow bucket over its own storage ([`CodelQueue`]).

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

pub(crate) fn default_target() -> DurationValue {
    DurationValue(SimDuration::from_ms(5))
}
pub(crate) fn default_interval() -> DurationValue {
    DurationValue(SimDuration::from_ms(100))
}
pub(crate) fn default_mtu() -> u32 {
    1500
}

/// `queue = { type = "codel", target = "5ms", interval = "100ms", ecn = false, … }`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
    /// Acceptable standing queue delay (RFC 8289 TARGET); default "5ms".
    #[serde(default = "default_target")]
    pub target: DurationValue,
    /// Sliding window for the minimum sojourn and the control law's base (INTERVAL);
    /// default "100ms".
    #[serde(default = "default_interval")]
    pub interval: DurationValue,
    /// Mark ECN-capable packets (CE) instead of dropping them; default false (Linux
    /// `codel`'s default).
    #[serde(default)]
    pub ecn: bool,
    /// MAXPACKET, bytes: with at most this much left queued CoDel never drops; default 1500.
    #[serde(default = "default_mtu")]
    pub mtu: u32,
}

/// CoDel's settings after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub ecn: bool,
    pub mtu: u32,
}

impl CodelParams {
    /// Validate the shared CoDel keys (`field` = the queue's table).
    pub(crate) fn build(
        field: &str,
        target: DurationValue,
        interval: DurationValue,
        ecn: bool,
        mtu: u32,
    ) -> Result<Self, ScenarioError> {
        if target.0 == SimDuration::ZERO {
            return Err(ScenarioError::new(
                format!("{field}.target"),
                "must be positive",
            ));
        }
        if interval.0 <= target.0 {
            return Err(ScenarioError::new(
                format!("{field}.interval"),
                format!(
                    "must be longer than target ({} s), got {} s",
                    target.0.as_secs_f64(),
                    interval.0.as_secs_f64()
                ),
            ));
        }
        if mtu == 0 {
            return Err(ScenarioError::new(
                format!("{field}.mtu"),
                "must be positive",
            ));
        }
        Ok(CodelParams {
            target: target.0,
            interval: interval.0,
            ecn,
            mtu,
        })
    }
    /// `control_law(t, count) = t + interval/√count`.
    #[inline]
    pub fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        t + SimDuration((self.interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
    }
}

impl CodelSpec {
    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<Codel, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        let p = CodelParams::build(field, self.target, self.interval, self.ecn, self.mtu)?;
        Ok(Codel::new(limit, p))
    }
}

/// What CoDel needs from the storage it runs over.
pub(crate) trait CodelQueue {
    /// Take the head packet and its arrival time.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bytes still queued (after a `pop`).
    fn bytes(&self) -> u64;
}

/// CoDel's control-law state (RFC 8289's per-queue variables).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelState {
    /// `first_above_time` (None = 0).
    first_above: Option<SimTime>,
    drop_next: SimTime,
    /// Drops (and marks) since entering the dropping state, with the re-entry rule.
    pub count: u32,
    lastcount: u32,
    pub dropping: bool,
}

impl CodelState {
    /// RFC 8289 `dodequeue`: the head packet and whether CoDel may drop it.
    #[inline]
    fn dodequeue<Q: CodelQueue>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        now: SimTime,
    ) -> Option<(Packet, bool)> {
        let Some((pkt, t_in)) = q.pop() else {
            self.first_above = None;
            return None;
        };
        let sojourn = now.since(t_in);
        let mut ok = false;
        if sojourn < p.target || q.bytes() <= p.mtu as u64 {
            self.first_above = None;
        } else {
            match self.first_above {
                None => self.first_above = Some(now + p.interval),
                Some(t) => ok = now >= t,
            }
        }
        Some((pkt, ok))
    }

    /// Signal on `pkt`: CE if `ecn` and it is ECN-capable (returns the packet to send),
    /// else drop it (returns None).
    #[inline]
    fn signal(p: &CodelParams, mut pkt: Packet, cx: &mut QueueCx) -> Option<Packet> {
        if p.ecn && pkt.has(flags::ECT) {
            cx.mark(&mut pkt, DropReason::Codel);
            Some(pkt)
        } else {
            cx.drop(pkt, DropReason::Codel);
            None
        }
    }

    /// RFC 8289 `dequeue`: the next packet to send, dropping (or marking) on the way.
    pub(crate) fn dequeue<Q: CodelQueue>(
        &mut self,
        p: &CodelParams,
        q: &mut Q,
        cx: &mut QueueCx,
    ) -> Option<Packet> {
        let now = cx.now;
        let Some((mut pkt, ok)) = self.dodequeue(p, q, now) else {
            // An empty queue is never ok to drop: leave the dropping state (else a stale
            // drop_next would release a burst of drops at the next standing queue).
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if let Some(marked) = Self::signal(p, pkt, cx) {
                    // A mark: the packet goes out; the schedule moves on.
                    self.drop_next = p.control_law(self.drop_next, self.count);
                    return Some(marked);
                }
                match self.dodequeue(p, q, now) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((next, next_ok)) => {
                        pkt = next;
                        if !next_ok {
                            self.dropping = false;
                        } else {
                            self.drop_next = p.control_law(self.drop_next, self.count);
                        }
                    }
                }
            }
        } else if ok {
            // Enter the dropping state (RFC 8289 §5.5's count reuse on re-entry).
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = 1;
            if delta > 1
                && delta < u32::MAX / 2
                && now.since(self.drop_next) < p.interval.saturating_mul(16)
            {
                self.count = delta;
            }
            self.drop_next = p.control_law(now, self.count);
            self.lastcount = self.count;
            match Self::signal(p, pkt, cx) {
                Some(marked) => return Some(marked),
                None => pkt = self.dodequeue(p, q, now)?.0,
            }
        }
        Some(pkt)
    }
}

/// FIFO storage of (packet, arrival time).
struct Fifo {
    q: VecDeque<(Packet, SimTime)>,
    backlog: Backlog,
}

impl CodelQueue for Fifo {
    #[inline]
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let (p, t) = self.q.pop_front()?;
        self.backlog.remove(&p);
        Some((p, t))
    }
    #[inline]
    fn bytes(&self) -> u64 {
        self.backlog.bytes
    }
}

pub struct Codel {
    fifo: Fifo,
    limit: Limit,
    params: CodelParams,
    state: CodelState,
}

impl Codel {
    pub fn new(limit: Limit, params: CodelParams) -> Self {
        Codel {
            fifo: Fifo {
                q: VecDeque::new(),
                backlog: Backlog::default(),
            },
            limit,
            params,
            state: CodelState::default(),
        }
    }
    pub fn params(&self) -> &CodelParams {
        &self.params
    }
    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDisc for Codel {
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        super::audit_limit(&self.limit, waiting)
    }
    fn name(&self) -> &'static str {
        "codel"
    }
    // Out of line: keeps the link's inlined enqueue/dequeue dispatch (and the fast
    // path's code beside it) as small as before this discipline existed.
    #[inline(never)]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        if !self.limit.fits(&self.fifo.backlog, &pkt) {
            cx.drop(pkt, DropReason::Overflow);
            return;
        }
        self.fifo.backlog.add(&pkt);
        self.fifo.q.push_back((pkt, cx.now));
    }
    #[inline(never)]
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet> {
        self.state.dequeue(&self.params, &mut self.fifo, cx)
    }
    fn backlog(&self) -> Backlog {
        self.fifo.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.q.iter().for_each(|(p, _)| f(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};

    fn params(ecn: bool) -> CodelParams {
        CodelParams {
            target: SimDuration::from_ms(5),
            interval: SimDuration::from_ms(100),
            ecn,
            mtu: 1500,
        }
    }

    /// A standing queue: every 1 ms one 1000-B packet arrives and one is dequeued, with a
    /// backlog of 50 packets (50 ms sojourn once the first ones have left, far above target).
    /// Returns the drop times.
    fn standing_queue(ecn: bool, ms: u64) -> (Vec<SimTime>, DropLog) {
        let mut q = Codel::new(Limit::Packets(1000), params(ecn));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut drops = Vec::new();
        let pkt = || {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            if ecn {
                p.flags |= flags::ECT;
            }
            p
        };
        {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            for _ in 0..50 {
                q.enqueue(pkt(), &mut cx);
            }
        }
        for k in 1..=ms {
            let now = SimTime(k * crate::time::PS_PER_MS);
            let before = log.packets + log.marks;
            let mut cx = QueueCx::new(now, &mut rng, &mut log);
            cx.phase = crate::queue::Phase::Dequeue;
            q.enqueue(pkt(), &mut cx);
            // Keep the standing queue: refill what CoDel dropped.
            let got = q.dequeue(&mut cx);
            assert!(got.is_some());
            while q.backlog().packets < 50 {
                q.enqueue(pkt(), &mut cx);
            }
            for _ in before..(log.packets + log.marks) {
                drops.push(now);
            }
        }
        (drops, log)
    }

    #[test]
    fn drop_schedule_is_interval_over_sqrt_count() {
        let (drops, log) = standing_queue(false, 3000);
        // The first 50 packets arrived at 0, so the k-th leaves after k ms: the sojourn
        // reaches target (5 ms) at 5 ms, and the first drop is one interval later, 105 ms.
        assert_eq!(drops[0], SimTime(105 * crate::time::PS_PER_MS));
        // Then the n-th gap is interval/√n (to the 1 ms dequeue granularity).
        for n in 1..drops.len().min(60) {
            let gap = drops[n].since(drops[n - 1]).as_secs_f64();
            let want = 0.1 / (n as f64).sqrt();
            assert!(
                (gap - want).abs() <= 0.001 + 1e-9,
                "gap {n}: {gap} s, want {want}"
            );
        }
        // Drops by 3 s: t_1 = 0.105 s, t_(n+1) = t_n + 0.1/√n (Σ 1/√n ≈ 2√N − 1.46: 231).
        let (mut t, mut n) = (0.105, 1u32);
        while t + 0.1 / (n as f64).sqrt() <= 3.0 {
            t += 0.1 / (n as f64).sqrt();
            n += 1;
        }
        assert!(
            (drops.len() as i64 - n as i64).abs() <= 2,
            "{} drops, want {n}",
            drops.len()
        );
        assert_eq!(log.dequeue_drops, log.packets, "all drops at dequeue");
        assert_eq!(log.by_reason[DropReason::Codel.index()], log.packets);
    }

    #[test]
    fn ecn_marks_instead_of_dropping_on_the_same_schedule() {
        let (marks, log) = standing_queue(true, 1000);
        let (drops, _) = standing_queue(false, 1000);
        assert_eq!(log.packets, 0);
        assert_eq!(marks.len(), drops.len());
        assert_eq!(marks[..10], drops[..10]);
    }

    #[test]
    fn reentry_reuses_the_count() {
        let p = params(false);
        let mut st = CodelState {
            count: 40,
            lastcount: 10,
            drop_next: SimTime(1_000 * crate::time::PS_PER_MS),
            first_above: Some(SimTime::ZERO),
            dropping: false,
        };
        // Re-entry 200 ms after the last drop_next (< 16 intervals): count = 40 − 10 = 30.
        let mut fifo = Fifo {
            q: VecDeque::new(),
            backlog: Backlog::default(),
        };
        for _ in 0..10 {
            let pk = Packet::test(FlowId(0), PacketKind::Data, 1000);
            fifo.backlog.add(&pk);
            fifo.q.push_back((pk, SimTime::ZERO));
        }
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let now = SimTime(1_200 * crate::time::PS_PER_MS);
        let mut cx = QueueCx::new(now, &mut rng, &mut log);
        assert!(st.dequeue(&p, &mut fifo, &mut cx).is_some());
        assert!(st.dropping);
        assert_eq!(st.count, 30);
        assert_eq!(st.drop_next, p.control_law(now, 30));
        // Long after (≥ 16 intervals): count starts over at 1.
        st.dropping = false;
        st.lastcount = st.count;
        st.count += 5;
        let later = now + SimDuration::from_secs(2);
        let mut cx = QueueCx::new(later, &mut rng, &mut log);
        st.dequeue(&p, &mut fifo, &mut cx);
        assert_eq!(st.count, 1);
    }

    #[test]
    fn short_queue_or_low_delay_never_drops() {
        // One packet queued at a time: the bytes left are below MTU, whatever the sojourn.
        let mut q = Codel::new(Limit::Packets(1000), params(false));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        for k in 0..1000u64 {
            let mut cx = QueueCx::new(SimTime(k * 50 * crate::time::PS_PER_MS), &mut rng, &mut log);
            q.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
            q.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
            let mut cx = QueueCx::new(
                SimTime((k * 50 + 40) * crate::time::PS_PER_MS),
                &mut rng,
                &mut log,
            );
            q.dequeue(&mut cx);
            q.dequeue(&mut cx);
        }
        assert_eq!(log.packets, 0);
    }

    /// The unboxed disciplines must not make `AnyQueue` (in every link) larger than RED does.
    #[test]
    fn codel_does_not_grow_every_link() {
        use std::mem::size_of;
        assert!(
            size_of::<Codel>() <= size_of::<crate::queue::Red>(),
            "{}",
            size_of::<Codel>()
        );
        // Nor the algorithms `AnyCc` (in every sender): CUBIC is boxed, DCTCP is small.
        assert!(size_of::<crate::cc::AnyCc>() <= size_of::<crate::cc::Vegas>() + 8);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let spec = |t: u64, i: u64, mtu: u32| CodelSpec {
            limit: crate::queue::default_limit(),
            target: DurationValue(SimDuration::from_ms(t)),
            interval: DurationValue(SimDuration::from_ms(i)),
            ecn: false,
            mtu,
        };
        let bad = |s: CodelSpec| s.build("links.l.queue").err().unwrap().field;
        assert_eq!(bad(spec(0, 100, 1500)), "links.l.queue.target");
        assert_eq!(bad(spec(5, 5, 1500)), "links.l.queue.interval");
        assert_eq!(bad(spec(5, 100, 0)), "links.l.queue.mtu");
        assert!(spec(5, 100, 1500).build("links.l.queue").is_ok());
    }
}

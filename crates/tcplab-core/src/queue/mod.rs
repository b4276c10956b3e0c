//! Queue disciplines: who waits, in what order, and who is dropped.
//!
//! Every outgoing interface (routers **and end hosts**) owns one discipline. The trait is small:
//! a discipline stores or drops on `enqueue`, hands the next packet to the link on `dequeue`,
//! and reports its backlog. Drops go through [`QueueCx::drop`] so the accounting lives in one
//! place. Built-ins sit in the closed enum [`AnyQueue`] and are dispatched with a `match`.

pub mod ackprio;
pub mod bwalloc;
pub mod choke;
pub mod codel;
pub mod droptail;
pub mod fq_codel;
pub mod pie;
pub mod red;
mod spec;
pub mod xcp;

pub use ackprio::AckPriority;
pub use bwalloc::BandwidthAllocation;
pub use choke::Choke;
pub use codel::Codel;
pub use droptail::{DropTail, Limit};
pub use fq_codel::FqCodel;
pub use pie::Pie;
pub use red::Red;
pub(crate) use spec::default_limit;
pub use spec::{LimitSpec, QueueSpec};
pub use xcp::Xcp;

use crate::ids::FlowId;
use crate::packet::flags;
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::stats::events::{EventKind, PacketEventLog};
use crate::time::{Rate, SimDuration, SimTime};

/// What a queue holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub packets: u32,
    pub bytes: u64,
}

impl Backlog {
    #[inline]
    pub fn add(&mut self, p: &Packet) {
        self.packets += 1;
        self.bytes += p.size as u64;
    }
    #[inline]
    pub fn remove(&mut self, p: &Packet) {
        self.packets -= 1;
        self.bytes -= p.size as u64;
    }
}

/// Why a queue dropped or marked a packet. A new variant also gets its
/// [`DropReason::name`] (summary keys `drops_<name>` and the `reason` column of
/// `packet_events`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room (the buffer's limit).
    Overflow,
    /// An AQM's probabilistic early signal (RED between its thresholds).
    Early,
    /// An AQM's forced signal (RED's average at or above its upper threshold).
    Forced,
    /// An ECN mark that the AQM turned into a drop with a small probability
    /// (seed 002's "Bernoulli losses as part of the AQM").
    MarkToDrop,
    /// A CHOKe match: the arrival and a random queued packet belong to the same flow.
    Choke,
    /// CoDel's control law (CoDel, FQ-CoDel): a packet whose sojourn stayed above target.
    Codel,
    /// PIE's random drop (or mark) with its controlled probability.
    Pie,
}

impl DropReason {
    /// Every reason, in the order of [`DropReason::index`].
    pub const ALL: [DropReason; 7] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::MarkToDrop,
        DropReason::Choke,
        DropReason::Codel,
        DropReason::Pie,
    ];
    /// The name used in summary.json and event traces.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::MarkToDrop => "mark_to_drop",
            DropReason::Choke => "choke",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
        }
    }
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// When a discipline acted on a packet: as it arrived, or as the link asked for the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Enqueue,
    Dequeue,
}

impl Phase {
    /// The name in event traces (`packet_events.phase`).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Enqueue => "enqueue",
            Phase::Dequeue => "dequeue",
        }
    }
}

/// Drop and mark counters, kept by the link that owns the queue, and the link's packet
/// event log when `metrics.events` asks for one.
#[derive(Clone, Debug, Default)]
pub struct DropLog {
    pub packets: u64,
    /// Of which data segments.
    pub data_packets: u64,
    pub bytes: u64,
    pub overflow: u64,
    /// Drops per [`DropReason`] (indexed by [`DropReason::index`]).
    pub by_reason: [u64; DropReason::ALL.len()],
    /// Drops made when the link asked for its next packet (dequeue-time AQMs).
    pub dequeue_drops: u64,
    /// ECN congestion-experienced marks set on ECT packets, per reason.
    pub marks: u64,
    pub marks_by_reason: [u64; DropReason::ALL.len()],
    /// Drop / loss / mark events (`metrics.events`); `None` when none is asked for.
    pub(crate) events: Option<Box<PacketEventLog>>,
    /// Per flow index, packets this link dropped or lost on the wire (the invariant
    /// auditor's segment accounting, `crate::audit`). Empty (not counted) unless the
    /// auditor was switched on before the run started; then one bounds test per drop.
    pub by_flow: Vec<FlowLosses>,
}

/// One flow's packets a link dropped (its queue) or lost (its wire), data segments and
/// acks apart: `[data, ack]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowLosses {
    pub dropped: [u64; 2],
    pub lost: [u64; 2],
}

/// Index of `p` in [`FlowLosses`]' pairs: 0 for a data segment (or datagram), 1 for an ack.
#[inline]
pub fn kind_index(p: &Packet) -> usize {
    !p.is_data() as usize
}

impl DropLog {
    /// Count a drop (every queue drop goes through here).
    #[inline]
    pub fn record(&mut self, now: SimTime, pkt: &Packet, why: DropReason) {
        self.record_in(now, pkt, why, Phase::Enqueue);
    }
    #[inline]
    pub fn record_in(&mut self, now: SimTime, pkt: &Packet, why: DropReason, phase: Phase) {
        self.packets += 1;
        self.data_packets += pkt.is_data() as u64;
        self.bytes += pkt.size as u64;
        self.by_reason[why.index()] += 1;
        if why == DropReason::Overflow {
            self.overflow += 1;
        }
        if phase == Phase::Dequeue {
            self.dequeue_drops += 1;
        }
        if let Some(c) = self.by_flow.get_mut(pkt.flow.index()) {
            c.dropped[kind_index(pkt)] += 1;
        }
        if let Some(e) = &mut self.events {
            e.push(EventKind::Drop, now, pkt, why.name(), phase.name());
        }
    }
    /// Count a wire loss per flow (auditor only; see [`DropLog::by_flow`]), when the
    /// link decides it.
    #[inline]
    pub fn count_loss(&mut self, pkt: &Packet) {
        if let Some(c) = self.by_flow.get_mut(pkt.flow.index()) {
            c.lost[kind_index(pkt)] += 1;
        }
    }
    /// Log a wire loss at `at` (the link counts it in `LinkStats::lost`).
    #[inline]
    pub fn log_loss(&mut self, at: SimTime, pkt: &Packet) {
        if let Some(e) = &mut self.events {
            e.push(EventKind::Loss, at, pkt, "wire", "wire");
        }
    }
    /// Count (and log, with `metrics.events = ["mark"]`) an ECN mark set on `pkt`: the one
    /// call site for marks ([`QueueCx::mark`]).
    #[inline]
    pub fn record_mark(&mut self, now: SimTime, pkt: &Packet, why: DropReason, phase: Phase) {
        self.marks += 1;
        self.marks_by_reason[why.index()] += 1;
        if let Some(e) = &mut self.events {
            e.push(EventKind::Mark, now, pkt, why.name(), phase.name());
        }
    }
}

/// What a discipline may use besides its own state: the time, the link's rate, when the
/// link went idle, its own random stream, the drop/mark log and its wake-up timer.
pub struct QueueCx<'a> {
    pub now: SimTime,
    /// The rate of the link this queue feeds.
    pub rate: Rate,
    /// `Some(t)`: the queue is empty and the transmitter has been idle since `t` (RED's
    /// idle-time decay); `None`: something is queued or being sent.
    pub idle_since: Option<SimTime>,
    /// Which phase the current call is in (set by the link).
    pub phase: Phase,
    /// This queue's own random stream.
    pub rng: &'a mut SimRng,
    pub(crate) drops: &'a mut DropLog,
    /// The earliest wake-up asked for during this call (see [`QueueCx::wake_at`]).
    pub(crate) wake: Option<SimTime>,
    /// Fast path, [`QueueDisc::admit`]: the flow of the `i`-th waiting packet (0 = the next
    /// to be sent), from the link, which holds the packets (see [`QueueCx::waiting_flow`]).
    pub(crate) waiting_flow: Option<&'a (dyn Fn(u32) -> FlowId + 'a)>,
}

impl<'a> QueueCx<'a> {
    /// A context for driving a discipline directly (tests, tools): a 1 Gb/s link that is
    /// busy, enqueue phase.
    pub fn new(now: SimTime, rng: &'a mut SimRng, drops: &'a mut DropLog) -> Self {
        QueueCx {
            now,
            rate: Rate(1_000_000_000),
            idle_since: None,
            phase: Phase::Enqueue,
            rng,
            drops,
            wake: None,
            waiting_flow: None,
        }
    }
    /// In [`QueueDisc::admit`] on a link's fast path: the flow of the `i`-th of the waiting
    /// packets (0 = the next to be sent; `i` below the `waiting` count the call received).
    /// `None` where the link does not offer it (direct drives, the scheduled path).
    #[inline]
    pub fn waiting_flow(&self, i: u32) -> Option<FlowId> {
        self.waiting_flow.map(|f| f(i))
    }
    /// Discard `pkt`, counting it under `why` (and the current phase).
    #[inline]
    pub fn drop(&mut self, pkt: Packet, why: DropReason) {
        self.drops.record_in(self.now, &pkt, why, self.phase);
    }
    /// Signal congestion on `pkt` (RFC 3168 §5): an ECN-capable packet gets CE and stays
    /// (returns `true`); any other packet is dropped under `why` (returns `false`, and the
    /// discipline must not keep it).
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet, why: DropReason) -> bool {
        if pkt.has(flags::ECT) {
            pkt.flags |= flags::CE;
            self.drops.record_mark(self.now, pkt, why, self.phase);
            true
        } else {
            self.drop(*pkt, why);
            false
        }
    }
    /// Ask for a [`QueueDisc::on_wake`] call at `t` (or earlier, if asked for earlier).
    /// Only the earliest outstanding request is kept by the link; a discipline that needs
    /// several deadlines asks again from `on_wake`.
    #[inline]
    pub fn wake_at(&mut self, t: SimTime) {
        if self.wake.is_none_or(|w| t < w) {
            self.wake = Some(t);
        }
    }
    /// Time to transmit `bytes` on this queue's link.
    #[inline]
    pub fn tx_time(&self, bytes: u32) -> SimDuration {
        self.rate.tx_time(bytes)
    }
}

/// The queue-discipline interface.
pub trait QueueDisc {
    fn name(&self) -> &'static str;
    /// Store `pkt` or hand it to `cx.drop`. May also evict queued packets (CHOKe), through
    /// `cx.drop` too, so the link's counts stay exact.
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx);
    /// The next packet for the link, if any. May drop head packets on the way (CoDel).
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet>;
    fn backlog(&self) -> Backlog;
    /// Every packet the discipline holds, in any order (the invariant auditor counts them
    /// per flow, `crate::audit`; never called on the packet path).
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet));
    /// A wake-up asked for with [`QueueCx::wake_at`] is due. May drop queued packets; the
    /// link starts a transmission afterwards if it is idle and something is queued.
    fn on_wake(&mut self, _cx: &mut QueueCx) {}
    /// Disciplines that decide every packet's fate when it arrives and serve in arrival
    /// order return `true`; the link then runs them on its FIFO fast path (one event per
    /// packet per hop), calling [`QueueDisc::admit`] instead of `enqueue`/`dequeue`.
    fn admission_only(&self) -> bool {
        false
    }
    /// Fast path: decide whether `pkt` joins a FIFO that holds `waiting` (not counting the
    /// packet in transmission). Drop it through `cx.drop`/`cx.mark` and return `false`, or
    /// return `true` (possibly after `cx.mark` set CE). The discipline stores nothing;
    /// the link keeps the packets. Called only when `admission_only()` is true.
    fn admit(&mut self, _pkt: &mut Packet, _waiting: Backlog, _cx: &mut QueueCx) -> bool {
        unreachable!("admit called on a discipline that is not admission_only")
    }
    /// The invariant auditor's look inside the discipline (`crate::audit::check_link`;
    /// never called on the packet path, so it costs nothing unless auditing): `waiting` is
    /// what waits for the link (the discipline's backlog, or the link's FIFO on the fast
    /// path). Occupancy within the limit, controller state finite and in range; `Err`
    /// states the broken rule with its numbers. Default: nothing to check.
    fn audit(&self, _waiting: Backlog) -> Result<(), String> {
        Ok(())
    }
}

/// The auditor's occupancy check: `waiting` within `limit`.
pub(crate) fn audit_limit(limit: &Limit, waiting: Backlog) -> Result<(), String> {
    if limit.holds(&waiting) {
        Ok(())
    } else {
        Err(format!(
            "holds {} packets / {} B, beyond its limit {limit:?}",
            waiting.packets, waiting.bytes
        ))
    }
}

/// The auditor's state check: `x` is finite and in `[lo, hi]`.
pub(crate) fn audit_range(what: &str, x: f64, lo: f64, hi: f64) -> Result<(), String> {
    if x.is_finite() && x >= lo && x <= hi {
        Ok(())
    } else {
        Err(format!("{what} = {x}, outside [{lo}, {hi}]"))
    }
}

/// Data segments and pure acks in two FIFOs under one shared capacity limit: the storage
/// of the end-host disciplines, which differ only in which head they send next.
pub(crate) struct DataAckQueues {
    pub(crate) acks: std::collections::VecDeque<Packet>,
    pub(crate) data: std::collections::VecDeque<Packet>,
    limit: Limit,
    pub(crate) backlog: Backlog,
}

impl DataAckQueues {
    pub(crate) fn new(limit: Limit) -> Self {
        DataAckQueues {
            acks: std::collections::VecDeque::with_capacity(64),
            data: std::collections::VecDeque::with_capacity(64),
            limit,
            backlog: Backlog::default(),
        }
    }
    #[inline]
    pub(crate) fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        if !self.limit.fits(&self.backlog, &pkt) {
            cx.drop(pkt, DropReason::Overflow);
            return;
        }
        self.backlog.add(&pkt);
        if pkt.is_data() {
            self.data.push_back(pkt);
        } else {
            self.acks.push_back(pkt);
        }
    }
    pub(crate) fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.acks.iter().chain(self.data.iter()).for_each(f)
    }
    /// Take the head of the ack queue (`ack = true`) or the data queue.
    #[inline]
    pub(crate) fn audit(&self) -> Result<(), String> {
        audit_limit(&self.limit, self.backlog)
    }
    pub(crate) fn pop(&mut self, ack: bool) -> Option<Packet> {
        let p = if ack {
            self.acks.pop_front()
        } else {
            self.data.pop_front()
        }?;
        self.backlog.remove(&p);
        Some(p)
    }
}

/// The built-in disciplines, dispatched statically.
pub enum AnyQueue {
    DropTail(DropTail),
    AckPriority(AckPriority),
    BandwidthAllocation(BandwidthAllocation),
    Red(Red),
    /// Boxed: CHOKe carries RED and its own queue, and would make every link larger.
    Choke(Box<Choke>),
    Codel(Codel),
    /// Boxed: FQ-CoDel's bucket table and lists.
    FqCodel(Box<FqCodel>),
    /// Boxed: PIE's parameters and controller state would size every link.
    Pie(Box<Pie>),
    /// Boxed: the XCP router's sums and timers would make every link larger.
    Xcp(Box<Xcp>),
    #[cfg(test)]
    Test(tests::WakeTest),
}

/// Apply `$body` to whichever discipline `$q` holds.
macro_rules! each_queue {
    ($q:expr, $x:ident => $body:expr) => {
        match $q {
            AnyQueue::DropTail($x) => $body,
            AnyQueue::AckPriority($x) => $body,
            AnyQueue::BandwidthAllocation($x) => $body,
            AnyQueue::Red($x) => $body,
            AnyQueue::Choke($x) => $body,
            AnyQueue::Codel($x) => $body,
            AnyQueue::FqCodel($x) => $body,
            AnyQueue::Pie($x) => $body,
            AnyQueue::Xcp($x) => $body,
            #[cfg(test)]
            AnyQueue::Test($x) => $body,
        }
    };
}

impl QueueSpec {
    /// Validate and build the discipline of a link of rate `rate` and propagation delay
    /// `delay_s` seconds (`field` = `links.NAME.queue`). Registry: one line per discipline.
    pub fn build(
        &self,
        field: &str,
        rate: Rate,
        delay_s: f64,
    ) -> Result<AnyQueue, crate::config::ScenarioError> {
        use QueueSpec as S;
        Ok(match self {
            S::Droptail(s) => AnyQueue::DropTail(s.build(field)?),
            S::Ackprio(s) => AnyQueue::AckPriority(s.build(field)?),
            S::Bwalloc(s) => AnyQueue::BandwidthAllocation(s.build(field)?),
            S::Red(s) => AnyQueue::Red(s.build(field, rate, delay_s)?),
            S::RedI(s) => AnyQueue::Red(s.build(field)?),
            S::Choke(s) => AnyQueue::Choke(Box::new(s.build(field, rate, delay_s)?)),
            S::ChokeRedI(s) => AnyQueue::Choke(Box::new(s.build(field)?)),
            S::Codel(s) => AnyQueue::Codel(s.build(field)?),
            S::FqCodel(s) => AnyQueue::FqCodel(Box::new(s.build(field)?)),
            S::Pie(s) => AnyQueue::Pie(Box::new(s.build(field)?)),
            S::Xcp(s) => AnyQueue::Xcp(Box::new(s.build(field, rate)?)),
        })
    }
}

impl AnyQueue {
    /// Whether the discipline can set CE on ECN-capable packets.
    pub fn can_mark(&self) -> bool {
        match self {
            AnyQueue::DropTail(q) => q.plain_limit().is_none(),
            AnyQueue::Red(r) => r.config().ecn,
            AnyQueue::Choke(c) => c.red().config().ecn,
            AnyQueue::Codel(c) => c.params().ecn,
            AnyQueue::FqCodel(c) => c.codel().ecn,
            AnyQueue::Pie(c) => c.params().ecn,
            _ => false,
        }
    }
    /// `Some(limit)` for a drop-tail queue without marking: its admission is the limit
    /// alone, which the link checks inline.
    pub fn plain_limit(&self) -> Option<Limit> {
        match self {
            AnyQueue::DropTail(q) => q.plain_limit(),
            _ => None,
        }
    }
}

impl QueueDisc for AnyQueue {
    fn name(&self) -> &'static str {
        each_queue!(self, q => q.name())
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        each_queue!(self, q => q.enqueue(pkt, cx))
    }
    #[inline]
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet> {
        each_queue!(self, q => q.dequeue(cx))
    }
    #[inline]
    fn backlog(&self) -> Backlog {
        each_queue!(self, q => q.backlog())
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        each_queue!(self, q => q.for_each_packet(f))
    }
    fn on_wake(&mut self, cx: &mut QueueCx) {
        each_queue!(self, q => q.on_wake(cx))
    }
    fn admission_only(&self) -> bool {
        each_queue!(self, q => q.admission_only())
    }
    #[inline]
    fn admit(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        each_queue!(self, q => q.admit(pkt, waiting, cx))
    }
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        each_queue!(self, q => q.audit(waiting))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! A discipline that uses the wake-up timer, for the link's tests: it holds every
    //! packet until `release_at`, then releases them all (and asks to be woken then).
    use super::*;
    use std::collections::VecDeque;

    pub struct WakeTest {
        pub release_at: SimTime,
        pub released: bool,
        pub q: VecDeque<Packet>,
        pub backlog: Backlog,
        pub wakes: u32,
    }

    impl QueueDisc for WakeTest {
        fn name(&self) -> &'static str {
            "wake_test"
        }
        fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
            self.backlog.add(&pkt);
            self.q.push_back(pkt);
            if !self.released {
                cx.wake_at(self.release_at);
            }
        }
        fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
            if !self.released {
                return None;
            }
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
        fn on_wake(&mut self, cx: &mut QueueCx) {
            self.wakes += 1;
            if cx.now >= self.release_at {
                self.released = true;
            } else {
                cx.wake_at(self.release_at);
            }
        }
    }
}

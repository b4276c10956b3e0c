//! Queue disciplines: who waits, in what order, and who is dropped.
//!
//! Every outgoing interface (routers **and end hosts**) owns one discipline. The trait is small:
//! a discipline stores or drops on `enqueue`, hands the next packet to the link on `dequeue`,
//! and reports its backlog. Drops go through [`QueueCx::drop`] so the accounting lives in one
//! place. Built-ins sit in the closed enum [`AnyQueue`] and are dispatched with a `match`.

mod ackprio;
mod bwalloc;
mod droptail;

pub use ackprio::AckPriority;
pub use bwalloc::BandwidthAllocation;
pub use droptail::{DropTail, Limit};

use crate::event::FlowId;
use crate::net::packet::Packet;
use crate::rng::SimRng;
use crate::stats::events::{EventKind, PacketEventLog};
use crate::time::SimTime;

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

/// Why a queue dropped a packet. A new variant also gets its [`DropReason::name`] (the
/// `reason` column of `packet_events`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room (drop-tail overflow).
    Overflow,
}

impl DropReason {
    /// The reason as event traces name it (`packet_events.reason`).
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
        }
    }
}

/// Drop counters, kept by the link that owns the queue, and the link's packet event log
/// when `metrics.events` asks for one.
#[derive(Clone, Debug, Default)]
pub struct DropLog {
    pub packets: u64,
    /// Of which data segments.
    pub data_packets: u64,
    pub bytes: u64,
    pub overflow: u64,
    /// Drop / loss / mark events (`metrics.events`); `None` when none is asked for.
    pub(crate) events: Option<Box<PacketEventLog>>,
}

impl DropLog {
    /// Count a drop (every queue drop goes through here).
    #[inline]
    pub fn record(&mut self, now: SimTime, pkt: &Packet, why: DropReason) {
        self.packets += 1;
        self.data_packets += pkt.is_data() as u64;
        self.bytes += pkt.size as u64;
        match why {
            DropReason::Overflow => self.overflow += 1,
        }
        if let Some(e) = &mut self.events {
            e.push(EventKind::Drop, now, pkt, why.name());
        }
    }
    /// Log a wire loss at `at` (the link counts it in `LinkStats::lost`).
    #[inline]
    pub fn log_loss(&mut self, at: SimTime, pkt: &Packet) {
        if let Some(e) = &mut self.events {
            e.push(EventKind::Loss, at, pkt, "wire");
        }
    }
    /// Log an ECN mark (`metrics.events = ["mark"]`): the one call site for marks, to be
    /// called wherever a queue sets CE; `why` names the marking reason. Counters are the
    /// caller's to keep.
    #[inline]
    pub fn log_mark(&mut self, now: SimTime, pkt: &Packet, why: DropReason) {
        if let Some(e) = &mut self.events {
            e.push(EventKind::Mark, now, pkt, why.name());
        }
    }
}

/// What a discipline may use besides its own state.
pub struct QueueCx<'a> {
    pub now: SimTime,
    /// This queue's own random stream.
    pub rng: &'a mut SimRng,
    pub(crate) drops: &'a mut DropLog,
}

impl<'a> QueueCx<'a> {
    pub fn new(now: SimTime, rng: &'a mut SimRng, drops: &'a mut DropLog) -> Self {
        QueueCx { now, rng, drops }
    }
    /// Discard `pkt`, counting it under `why`.
    pub fn drop(&mut self, pkt: Packet, why: DropReason) {
        self.drops.record(self.now, &pkt, why);
    }
}

/// The queue-discipline interface.
pub trait QueueDisc {
    fn name(&self) -> &'static str;
    /// Store `pkt` or hand it to `cx.drop`. May also evict queued packets (CHOKe).
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx);
    /// The next packet for the link, if any. May drop head packets on the way (CoDel).
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet>;
    fn backlog(&self) -> Backlog;
    /// Data packets of `flow` currently queued (end-host backpressure needs it).
    fn backlog_of(&self, _flow: FlowId) -> Option<Backlog> {
        None
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
    /// Take the head of the ack queue (`ack = true`) or the data queue.
    #[inline]
    pub(crate) fn pop(&mut self, ack: bool) -> Option<Packet> {
        let p = if ack {
            self.acks.pop_front()
        } else {
            self.data.pop_front()
        }?;
        self.backlog.remove(&p);
        Some(p)
    }
    pub(crate) fn backlog_of(&self, flow: FlowId) -> Backlog {
        let mut b = Backlog::default();
        for p in self.data.iter().filter(|p| p.flow == flow) {
            b.add(p);
        }
        b
    }
}

/// The built-in disciplines, dispatched statically.
pub enum AnyQueue {
    DropTail(DropTail),
    AckPriority(AckPriority),
    BandwidthAllocation(BandwidthAllocation),
}

/// Apply `$body` to whichever discipline `$q` holds.
macro_rules! each_queue {
    ($q:expr, $x:ident => $body:expr) => {
        match $q {
            AnyQueue::DropTail($x) => $body,
            AnyQueue::AckPriority($x) => $body,
            AnyQueue::BandwidthAllocation($x) => $body,
        }
    };
}

impl AnyQueue {
    /// `Some(limit)` when the discipline decides everything when a packet arrives (drop or
    /// keep) and serves in arrival order: then the link can compute each departure time at
    /// enqueue and needs no event per departure (see `net::link`).
    pub fn fifo_limit(&self) -> Option<Limit> {
        match self {
            AnyQueue::DropTail(q) => Some(q.limit()),
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
    fn backlog_of(&self, flow: FlowId) -> Option<Backlog> {
        each_queue!(self, q => q.backlog_of(flow))
    }
}

//! One direction of a link: queue → transmitter → propagation pipe.
//!
//! Two ways to run it, chosen once per link by [`Link::prepare`]:
//!
//! * **FIFO fast path** (a discipline that decides at arrival, [`QueueDisc::admission_only`]:
//!   DropTail with or without step marking, RED, RED-I; no end-host backpressure): whether a
//!   packet is kept (or marked) is decided when it arrives by [`QueueDisc::admit`], and
//!   packets leave in arrival order, so its transmission
//!   start, end and arrival at the far end are all known at enqueue:
//!   `start = max(now, free_at)`, `done = start + size/rate`, `arrive = done + delay`.
//!   The packet goes straight into the pipe; a small ring of unfinished transmissions
//!   (`txs`, 24 bytes each) gives the queue occupancy at any time and is retired lazily
//!   ([`Link::settle`]). One event per packet per hop (its arrival) instead of two.
//! * **Scheduled path** (every other discipline, and backpressure): the discipline picks the
//!   next packet when the transmitter frees (`LinkTxDone` event), as the end-host
//!   schedulers and dequeue-time AQMs need.
//!
//! Both give the same departures for the same arrivals (tested below); counters that are
//! updated when a transmission ends are exact after `settle(now)`.

use crate::event::{Event, EventQueue, LinkId, NodeId};
use crate::ids::FlowId;
use crate::net::error::ErrorModel;
use crate::net::ring::Ring;
use crate::packet::Packet;
use crate::queue::{AnyQueue, Backlog, DropLog, DropReason, Limit, Phase, QueueCx, QueueDisc};
use crate::rng::SimRng;
use crate::stats::pcap::PcapWriter;
use crate::time::{Rate, SimDuration, SimTime};

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkStats {
    /// Packets handed to this link direction (to its queue).
    pub offered: u64,
    /// Of which data segments.
    pub offered_data: u64,
    /// Data segments whose transmission finished.
    pub tx_data_packets: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Packets lost on the wire (error model).
    pub lost: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub tx_data_bytes: u64,
    pub tx_ack_bytes: u64,
    /// Picoseconds spent transmitting.
    pub busy_ps: u64,
    /// Largest occupancy seen, counting the packet being transmitted.
    pub max_queue_packets: u32,
    pub max_queue_bytes: u64,
    /// Largest occupancy since the steady-state window began (packets).
    pub steady_max_queue_packets: u32,
    /// Largest number of data segments queued or in transmission (acks not counted), whole
    /// run and since the steady-state window began: what seed 000's Theorem 2 bounds.
    pub max_data_queue: u64,
    pub steady_max_data_queue: u64,
    /// Busy picoseconds, packets offered, dropped and marked when the steady-state window
    /// began (summary: steady_utilization, steady_drop_rate, steady_mark_rate).
    pub steady_busy0: u64,
    pub steady_offered0: u64,
    pub steady_drops0: u64,
    pub steady_marks0: u64,
    /// Waiting packets integrated over time (packet·ps; the packet in transmission not
    /// counted): the fast path adds each admitted packet's whole wait `start − arrival`
    /// when it is admitted, the scheduled path adds `backlog × elapsed` before each
    /// change of its backlog (at `area_at`). [`Link::queue_area_at`] gives the exact
    /// integral up to a time. With [`Link::queued`], the mean queue and the mean queueing
    /// delay.
    pub queue_area: u128,
    pub area_at: SimTime,
    /// Scheduled path: packets the transmitter took from the queue (see [`Link::queued`]).
    pub served: u64,
    /// `queue_area_at` and [`Link::queued`] when the steady-state window began.
    pub steady_area0: u128,
    pub steady_queued0: u64,
}

/// A transmission on the FIFO fast path that has not finished yet.
#[derive(Clone, Copy, Debug)]
struct Tx {
    start: SimTime,
    done: SimTime,
    size: u32,
    /// For CHOKe's comparison on the fast path ([`QueueCx::waiting_flow`]).
    flow: FlowId,
    data: bool,
    lost: bool,
}

/// Bytes a packet waiting in a FIFO fast-path link costs: its pipe entry (arrival time and
/// header) and its transmission record (for occupancy), not counting the deques' spare
/// capacity (up to 2x after a doubling). For `tcplab-bench sizes`.
pub const QUEUED_PACKET_BYTES: usize =
    std::mem::size_of::<(SimTime, Packet)>() + std::mem::size_of::<Tx>();

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimDuration,
    pub queue: AnyQueue,
    /// Which packets the wire loses (`net/error`): asked once per transmitted packet by
    /// [`Link::wire_lost`], or (`placement = "before_queue"`) once per arriving packet by
    /// [`Link::offer`]. `loss = p` is Bernoulli on the `LinkLoss` stream.
    pub error: ErrorModel,
    pub(crate) queue_rng: SimRng,
    pub(crate) busy: Option<Packet>,
    busy_since: SimTime,
    pub(crate) pipe: Ring<(SimTime, Packet)>,
    /// Parallel runs (`crate::par`): this is the sending partition's copy of a link whose
    /// far end another partition owns. Its pipe is then an outbox: no `LinkArrival` is
    /// scheduled here; the partitions hand the pipe's packets over at the window barrier.
    pub(crate) crossing: bool,
    pub stats: LinkStats,
    pub drops: DropLog,
    /// End-host backpressure threshold (data segments per local connection), if any. The
    /// link only carries the setting; the simulation returns credit to the sender when one
    /// of its data segments leaves (or is dropped by) this queue.
    pub backpressure: Option<u32>,
    /// FIFO fast path (else the scheduled path).
    fifo: bool,
    /// Fast path with a plain drop-tail limit: admission is one comparison, without a
    /// discipline call (the common case, measured: see docs/performance.md).
    plain_limit: Option<Limit>,
    /// Scheduled path: when the transmitter last went idle with nothing queued.
    idle_at: SimTime,
    /// The pending `QueueWake` deadline the discipline asked for, if any.
    wake_pending: Option<SimTime>,
    /// Fast path: unfinished transmissions in order (the front one is on the wire).
    txs: Ring<Tx>,
    txs_bytes: u64,
    /// Fast path: when the transmitter finishes everything accepted so far.
    free_at: SimTime,
    /// Serialisation times of the two most recent packet sizes (data and ack, typically).
    tx_cache: [(u32, SimDuration); 2],
    /// End of the run (fast-path captures stop there).
    end: SimTime,
    /// Packet capture of this direction (`links.NAME.pcap`): every packet is recorded when
    /// its transmission starts. Boxed so an uncaptured link stays small.
    pub capture: Option<Box<PcapWriter>>,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: SimDuration,
        queue: AnyQueue,
        loss: f64,
        queue_rng: SimRng,
        loss_rng: SimRng,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate,
            delay,
            queue,
            error: ErrorModel::from_loss(loss, loss_rng),
            queue_rng,
            busy: None,
            busy_since: SimTime::ZERO,
            // Grows to the largest number of packets in flight on the link (at most a few
            // doublings, early in the run); a preallocated 64 entries (6 KiB) per direction
            // was 245 MB of a 10 000-pair dumbbell's 40 004 directions.
            pipe: Ring::new(),
            crossing: false,
            stats: LinkStats::default(),
            drops: DropLog::default(),
            backpressure: None,
            fifo: false,
            plain_limit: None,
            idle_at: SimTime::ZERO,
            wake_pending: None,
            txs: Ring::new(),
            txs_bytes: 0,
            free_at: SimTime::ZERO,
            tx_cache: [(u32::MAX, SimDuration::ZERO); 2],
            end: SimTime::MAX,
            capture: None,
        }
    }

    /// Choose the fast or the scheduled path from the discipline and the backpressure
    /// setting, and note when the run ends. Call once, before the first packet.
    pub fn prepare(&mut self, end: SimTime) {
        self.end = end;
        self.error.set_horizon(end);
        self.fifo = self.backpressure.is_none() && self.queue.admission_only();
        self.plain_limit = if self.fifo {
            self.queue.plain_limit()
        } else {
            None
        };
    }

    /// Force the scheduled path (tests compare the two).
    #[cfg(test)]
    pub(crate) fn force_scheduled(&mut self) {
        self.fifo = false;
        self.plain_limit = None;
    }

    /// Serialisation time of `size` bytes, from a two-entry cache (a 128-bit division
    /// otherwise).
    #[inline]
    fn tx_time(&mut self, size: u32) -> SimDuration {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            return self.tx_cache[1].1;
        }
        let dt = self.rate.tx_time(size);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, dt);
        dt
    }

    /// Fast path: account every transmission that has finished by `now`. Counters, occupancy
    /// and busy time are exact after this; a no-op on the scheduled path.
    #[inline]
    pub fn settle(&mut self, now: SimTime) {
        while let Some(t) = self.txs.front() {
            if t.done > now {
                break;
            }
            let t = *t;
            self.txs.pop_front();
            self.txs_bytes -= t.size as u64;
            self.count_tx(t.size, t.data, t.done.since(t.start).0);
            self.stats.lost += t.lost as u64;
        }
    }

    #[inline]
    fn count_tx(&mut self, size: u32, data: bool, busy_ps: u64) {
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += size as u64;
        if data {
            self.stats.tx_data_packets += 1;
            self.stats.tx_data_bytes += size as u64;
        } else {
            self.stats.tx_ack_bytes += size as u64;
        }
        self.stats.busy_ps += busy_ps;
    }

    /// Packets held: queued, in transmission and propagating.
    pub fn in_system(&self) -> u64 {
        if self.fifo {
            // Accepted packets are in the pipe from enqueue on, except those the wire loses.
            return self.pipe.len() as u64 + self.txs.iter().filter(|t| t.lost).count() as u64;
        }
        self.queue.backlog().packets as u64 + self.busy.is_some() as u64 + self.pipe.len() as u64
    }

    /// Count every packet this link holds (queued, in transmission, propagating; the fast
    /// path's packets the wire will lose are not held: they count as lost from their
    /// enqueue on) into `out[flow][kind]` (kind as [`crate::queue::kind_index`]). The
    /// auditor's segment accounting; not for the packet path.
    pub fn held_by_flow(&self, out: &mut [[u64; 2]]) {
        let mut add = |p: &Packet| out[p.flow.index()][crate::queue::kind_index(p)] += 1;
        for (_, p) in self.pipe.iter() {
            add(p);
        }
        if !self.fifo {
            if let Some(p) = &self.busy {
                add(p);
            }
            self.queue.for_each_packet(&mut add);
        }
    }

    /// What waits for the transmitter (not the packet on the wire): the discipline's
    /// backlog, or on the fast path the unfinished transmissions after the front one, as
    /// [`Link::offer`] last measured them for admission (the invariant auditor's occupancy
    /// check, [`QueueDisc::audit`]; not for the packet path).
    pub fn waiting(&self) -> Backlog {
        if !self.fifo {
            return self.queue.backlog();
        }
        match self.txs.front() {
            Some(t) => Backlog {
                packets: self.txs.len() as u32 - 1,
                bytes: self.txs_bytes - t.size as u64,
            },
            None => Backlog::default(),
        }
    }

    /// Occupancy (packets, bytes) including the one being transmitted. Fast path: as of the
    /// last [`Link::settle`].
    #[inline]
    pub fn occupancy(&self) -> (u32, u64) {
        if self.fifo {
            return (self.txs.len() as u32, self.txs_bytes);
        }
        let b = self.queue.backlog();
        match &self.busy {
            Some(p) => (b.packets + 1, b.bytes + p.size as u64),
            None => (b.packets, b.bytes),
        }
    }

    /// Data segments queued or in transmission.
    #[inline]
    pub fn data_occupancy(&self) -> u64 {
        self.stats.offered_data - self.drops.data_packets - self.stats.tx_data_packets
    }

    /// Start tracking the steady-state maxima from the current occupancy.
    pub fn reset_steady_max(&mut self) {
        self.stats.steady_max_queue_packets = self.occupancy().0;
        self.stats.steady_max_data_queue = self.data_occupancy();
    }

    /// Scheduled path: integrate the `backlog` the queue held since `area_at` up to `now`,
    /// before the queue changes.
    #[inline]
    fn add_queue_area(&mut self, backlog: u32, now: SimTime) {
        self.stats.queue_area += backlog as u128 * now.since(self.stats.area_at).0 as u128;
        self.stats.area_at = now;
    }

    /// Packets that joined the queue so far. Fast path: every drop is an arrival refused,
    /// so those offered less those dropped. Scheduled path: those the transmitter took,
    /// those dropped at dequeue (CoDel's head drops) and those waiting; a discipline that
    /// evicts a queued packet for an arrival (CHOKe's drop of both, FQ-CoDel at its limit)
    /// does not count the evicted one.
    pub fn queued(&self) -> u64 {
        if self.fifo {
            self.stats.offered - self.drops.packets
        } else {
            self.stats.served + self.drops.dequeue_drops + self.queue.backlog().packets as u64
        }
    }

    /// Waiting packets integrated over time up to `now` (packet·ps; see
    /// [`LinkStats::queue_area`]): on the fast path less the waits admitted packets will
    /// spend after `now`, on the scheduled path plus the backlog held since the last change.
    /// Fast path: call after `settle(now)`.
    pub fn queue_area_at(&self, now: SimTime) -> u128 {
        if self.fifo {
            let ahead: u128 = self
                .txs
                .iter()
                .filter(|t| t.start > now)
                .map(|t| (t.start.0 - now.0) as u128)
                .sum();
            self.stats.queue_area - ahead
        } else {
            self.stats.queue_area
                + self.queue.backlog().packets as u128 * now.since(self.stats.area_at).0 as u128
        }
    }

    /// Busy time up to `now`, counting a transmission in progress. Fast path: call after
    /// `settle(now)`.
    pub fn busy_time(&self, now: SimTime) -> SimDuration {
        if self.fifo {
            let extra = match self.txs.front() {
                Some(t) if t.start < now => now.since(t.start).0,
                _ => 0,
            };
            return SimDuration(self.stats.busy_ps + extra);
        }
        let extra = if self.busy.is_some() {
            now.since(self.busy_since).0
        } else {
            0
        };
        SimDuration(self.stats.busy_ps + extra)
    }

    /// A packet arrives at this link's queue.
    #[inline]
    pub fn offer(&mut self, id: LinkId, now: SimTime, pkt: Packet, events: &mut EventQueue) {
        self.stats.offered += 1;
        if self.error.before_queue() && self.lost_on_arrival(now, &pkt) {
            return;
        }
        let is_data = pkt.is_data();
        self.stats.offered_data += is_data as u64;
        let (p, b) = if self.fifo {
            if !self.enqueue_fifo(id, now, pkt, events) {
                return;
            }
            (self.txs.len() as u32, self.txs_bytes)
        } else {
            self.enqueue_scheduled(id, now, pkt, events);
            self.occupancy()
        };
        // A steady-state maximum never exceeds the whole run's (it restarts from the
        // current occupancy), so the run's needs a look only when the steady one grows.
        if p > self.stats.steady_max_queue_packets {
            self.stats.steady_max_queue_packets = p;
            self.stats.max_queue_packets = self.stats.max_queue_packets.max(p);
        }
        if b > self.stats.max_queue_bytes {
            self.stats.max_queue_bytes = b;
        }
        if is_data {
            let d = self.data_occupancy();
            if d > self.stats.steady_max_data_queue {
                self.stats.steady_max_data_queue = d;
                self.stats.max_data_queue = self.stats.max_data_queue.max(d);
            }
        }
    }

    /// Scheduled path: hand `pkt` to the discipline and start a transmission if idle. Out
    /// of line so that the inlined dispatch over every discipline's `enqueue` does not shape
    /// the fast path's code in [`Link::offer`] (callgrind, bench b 5 s, after CoDel, FQ-CoDel
    /// and PIE joined `AnyQueue`: 488.6 M instructions inline, 485.1 M out of line).
    #[inline(never)]
    fn enqueue_scheduled(
        &mut self,
        id: LinkId,
        now: SimTime,
        pkt: Packet,
        events: &mut EventQueue,
    ) {
        let before = self.queue.backlog().packets;
        self.add_queue_area(before, now);
        let idle = self.busy.is_none() && before == 0;
        let mut cx = QueueCx {
            now,
            rate: self.rate,
            idle_since: idle.then_some(self.idle_at),
            phase: Phase::Enqueue,
            rng: &mut self.queue_rng,
            drops: &mut self.drops,
            wake: None,
            waiting_flow: None,
        };
        self.queue.enqueue(pkt, &mut cx);
        let wake = cx.wake;
        self.request_wake(id, wake, events);
        if self.busy.is_none() {
            self.start_tx(id, now, events);
        }
    }

    /// Fast path: drop `pkt` or schedule its whole passage through this link. Returns
    /// whether it was kept.
    #[inline]
    fn enqueue_fifo(
        &mut self,
        id: LinkId,
        now: SimTime,
        mut pkt: Packet,
        events: &mut EventQueue,
    ) -> bool {
        self.settle(now);
        // The front transmission (if any) is on the wire; the rest wait.
        let (waiting, idle_since) = match self.txs.front() {
            Some(t) => (
                Backlog {
                    packets: self.txs.len() as u32 - 1,
                    bytes: self.txs_bytes - t.size as u64,
                },
                None,
            ),
            None => (Backlog::default(), Some(self.free_at)),
        };
        if let Some(limit) = self.plain_limit {
            if !limit.fits(&waiting, &pkt) {
                self.drops.record(now, &pkt, DropReason::Overflow);
                return false;
            }
        } else if !self.admit(id, now, &mut pkt, waiting, idle_since, events) {
            return false;
        }
        let start = now.max(self.free_at);
        let done = start + self.tx_time(pkt.size);
        self.free_at = done;
        self.stats.queue_area += (start.0 - now.0) as u128;
        if pkt.tx_start == SimTime::MAX {
            pkt.tx_start = start;
        }
        // Captured now, stamped with its start time (FIFO: starts are in enqueue order);
        // a start after the end of the run never happens, so it is not recorded.
        if let Some(c) = &mut self.capture {
            if start <= self.end {
                c.record(start, &pkt);
            }
        }
        let lost = self.wire_lost(start, done);
        if lost {
            self.note_loss(done, &pkt);
        }
        self.txs.push_back(Tx {
            start,
            done,
            size: pkt.size,
            flow: pkt.flow,
            data: pkt.is_data(),
            lost,
        });
        self.txs_bytes += pkt.size as u64;
        if !lost {
            let at = done + self.delay;
            self.pipe.push_back((at, pkt));
            if self.pipe.len() == 1 && !self.crossing {
                events.schedule(at, Event::LinkArrival(id));
            }
        }
        true
    }

    /// Fast path: ask the discipline whether `pkt` joins the FIFO. Out of line: only
    /// admission-only AQMs (RED, step marking) come here, and the dispatch over every
    /// discipline would otherwise shape [`Link::offer`]'s code.
    #[inline(never)]
    fn admit(
        &mut self,
        id: LinkId,
        now: SimTime,
        pkt: &mut Packet,
        waiting: Backlog,
        idle_since: Option<SimTime>,
        events: &mut EventQueue,
    ) -> bool {
        // The waiting packets are the unfinished transmissions after the first (which is
        // on the wire); CHOKe compares an arrival with one of them.
        let txs = &self.txs;
        let flow_of = |i: u32| txs[1 + i as usize].flow;
        let mut cx = QueueCx {
            now,
            rate: self.rate,
            idle_since,
            phase: Phase::Enqueue,
            rng: &mut self.queue_rng,
            drops: &mut self.drops,
            wake: None,
            waiting_flow: Some(&flow_of),
        };
        let kept = self.queue.admit(pkt, waiting, &mut cx);
        let wake = cx.wake;
        self.request_wake(id, wake, events);
        kept
    }

    /// Schedule a `QueueWake` for a deadline the discipline asked for, unless an earlier
    /// one is pending.
    #[inline]
    fn request_wake(&mut self, id: LinkId, wake: Option<SimTime>, events: &mut EventQueue) {
        if let Some(w) = wake {
            if self.wake_pending.is_none_or(|p| w < p) {
                self.wake_pending = Some(w);
                events.schedule(w, Event::QueueWake(id));
            }
        }
    }

    /// A `QueueWake` event: run the discipline's timer if this is its pending deadline
    /// (a superseded one is ignored), then start a transmission if the link is idle.
    #[inline(never)]
    pub fn wake(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        if self.wake_pending != Some(now) {
            return;
        }
        self.wake_pending = None;
        // The fast path keeps no backlog in the discipline (and integrates its own waits).
        let idle = !self.fifo && {
            let backlog = self.queue.backlog().packets;
            self.add_queue_area(backlog, now);
            self.busy.is_none() && backlog == 0
        };
        let mut cx = QueueCx {
            now,
            rate: self.rate,
            idle_since: idle.then_some(self.idle_at),
            phase: Phase::Dequeue,
            rng: &mut self.queue_rng,
            drops: &mut self.drops,
            wake: None,
            waiting_flow: None,
        };
        self.queue.on_wake(&mut cx);
        let wake = cx.wake;
        self.request_wake(id, wake, events);
        if !self.fifo {
            self.start_next(id, now, events);
        }
    }

    #[inline]
    fn start_tx(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        self.add_queue_area(self.queue.backlog().packets, now);
        let mut cx = QueueCx {
            now,
            rate: self.rate,
            idle_since: None,
            phase: Phase::Dequeue,
            rng: &mut self.queue_rng,
            drops: &mut self.drops,
            wake: None,
            waiting_flow: None,
        };
        let next = self.queue.dequeue(&mut cx);
        let wake = cx.wake;
        self.request_wake(id, wake, events);
        if next.is_none() {
            self.idle_at = now;
        }
        if let Some(mut p) = next {
            self.stats.served += 1;
            if p.tx_start == SimTime::MAX {
                p.tx_start = now;
            }
            let dt = self.tx_time(p.size);
            if let Some(c) = &mut self.capture {
                c.record(now, &p);
            }
            self.busy = Some(p);
            self.busy_since = now;
            events.schedule(now + dt, Event::LinkTxDone(id));
        }
    }

    /// The transmitter finished its packet: put it on the wire and start the next one.
    #[inline]
    pub fn tx_done(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        self.finish_tx(id, now, events);
        self.start_tx(id, now, events);
    }

    /// The transmitter finished its packet: put it on the wire (or lose it) and return a
    /// copy of it. The link stays idle until [`Link::start_next`]; in between the caller may
    /// enqueue packets that must compete for the next transmission (backpressure).
    #[inline]
    pub fn finish_tx(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) -> Packet {
        let p = self
            .busy
            .take()
            .expect("tx_done without a packet in transmission");
        self.count_tx(p.size, p.is_data(), now.since(self.busy_since).0);
        if self.wire_lost(self.busy_since, now) {
            self.stats.lost += 1;
            self.note_loss(now, &p);
        } else {
            let at = now + self.delay;
            self.pipe.push_back((at, p));
            if self.pipe.len() == 1 && !self.crossing {
                events.schedule(at, Event::LinkArrival(id));
            }
        }
        p
    }

    /// `placement = "before_queue"`: is the packet arriving at `now` lost before the
    /// queue? Counted (and logged) as a wire loss at once; it takes no place in the queue
    /// and no link time. Out of line: only such links come here.
    #[inline(never)]
    fn lost_on_arrival(&mut self, now: SimTime, pkt: &Packet) -> bool {
        if !self.error.lost_on_arrival(now) {
            return false;
        }
        self.stats.lost += 1;
        self.note_loss(now, pkt);
        true
    }

    /// Is the packet transmitted over `[start, done)` lost on the wire? The one place both
    /// paths ask the error model, once per transmitted packet, in transmission order.
    #[inline]
    fn wire_lost(&mut self, start: SimTime, done: SimTime) -> bool {
        self.error.lost(start, done)
    }

    /// Outage model: schedule the first `LinkState` event (the first down transition
    /// before the end of the run). Call once, at the start.
    pub fn start_states(&mut self, id: LinkId, events: &mut EventQueue) {
        self.schedule_state(id, events);
    }

    /// `LinkState` event: the channel goes down or comes back up (counted for the
    /// summary; packets are affected through [`Link::wire_lost`] only). Schedules the next
    /// transition, so at most one is pending per link.
    #[inline(never)]
    pub fn state_change(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        if let Some(o) = self.error.outage() {
            o.transition(now);
        }
        self.schedule_state(id, events);
    }

    fn schedule_state(&mut self, id: LinkId, events: &mut EventQueue) {
        let end = self.end;
        if let Some(o) = self.error.outage() {
            let t = o.next_transition();
            if t < end {
                events.schedule(t, Event::LinkState(id));
            }
        }
    }

    /// The wire loses `pkt` when its transmission ends at `at`: the event trace's one call
    /// site (a loss after the end of the run is not counted, so not logged either).
    #[inline]
    fn note_loss(&mut self, at: SimTime, pkt: &Packet) {
        self.drops.count_loss(pkt);
        if at <= self.end {
            self.drops.log_loss(at, pkt);
        }
    }

    /// Record `kinds`' packet events (drop, loss, mark) of this link direction `id`.
    pub fn enable_events(&mut self, id: LinkId, kinds: crate::stats::events::EventSet) {
        if kinds.any_packet() {
            self.drops.events = Some(Box::new(crate::stats::events::PacketEventLog::new(
                id, kinds,
            )));
        }
    }

    /// Start the next transmission if the transmitter is idle.
    #[inline]
    pub fn start_next(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        if self.busy.is_none() {
            self.start_tx(id, now, events);
        }
    }

    /// Parallel runs: packets another partition's copy of this link sent, in order, each
    /// with its arrival time (all after the current window). Schedules the first arrival
    /// when the pipe was empty.
    pub(crate) fn receive_crossing(
        &mut self,
        id: LinkId,
        pkts: impl Iterator<Item = (SimTime, Packet)>,
        events: &mut EventQueue,
    ) {
        let was_empty = self.pipe.is_empty();
        for e in pkts {
            self.pipe.push_back(e);
        }
        if was_empty {
            if let Some(&(at, _)) = self.pipe.front() {
                events.schedule(at, Event::LinkArrival(id));
            }
        }
    }

    /// The head of the pipe reaches the far end; returns it.
    #[inline]
    pub fn arrive(&mut self, id: LinkId, events: &mut EventQueue) -> Packet {
        let (_, p) = self.pipe.pop_front().expect("arrival with an empty pipe");
        self.stats.delivered += 1;
        if let Some(&(next, _)) = self.pipe.front() {
            events.schedule(next, Event::LinkArrival(id));
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::red::RedConfig;
    use crate::queue::{DropTail, Limit, Red};
    use crate::rng::Stream;
    use std::collections::VecDeque;

    /// Offer `arrivals` (time, size) to a link and run it to the end; returns the far-end
    /// arrivals (time, packet index, tx_start) and the link for its counters.
    fn drive(
        arrivals: &[(u64, u32)],
        limit: Limit,
        loss: f64,
        scheduled: bool,
    ) -> (Vec<(u64, u64, u64)>, Link) {
        drive_queue(
            arrivals,
            AnyQueue::DropTail(DropTail::new(limit)),
            loss,
            scheduled,
        )
    }

    /// A 10 Mb/s, 5 ms link direction with `queue` and wire loss probability `loss`.
    fn test_link(queue: AnyQueue, loss: f64) -> Link {
        let mut l = Link::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            Rate(10_000_000),
            SimDuration::from_ms(5),
            queue,
            loss,
            SimRng::derive(1, Stream::Queue, 0),
            SimRng::derive(1, Stream::LinkLoss, 0),
        );
        l.prepare(SimTime::MAX);
        l
    }

    fn drive_queue(
        arrivals: &[(u64, u32)],
        queue: AnyQueue,
        loss: f64,
        scheduled: bool,
    ) -> (Vec<(u64, u64, u64)>, Link) {
        let mut l = test_link(queue, loss);
        assert_eq!(l.fifo, l.queue.admission_only());
        if scheduled {
            l.force_scheduled();
        }
        let mut ev = EventQueue::new();
        let mut out = Vec::new();
        let mut next = 0;
        let mut max_seen = 0;
        loop {
            let t_ev = ev.peek_time();
            let t_arr = arrivals.get(next).map(|a| SimTime(a.0));
            match (t_ev, t_arr) {
                (None, None) => break,
                (Some(te), Some(ta)) if ta < te => {}
                (Some(_), _) => {
                    let (at, e) = ev.pop().unwrap();
                    match e {
                        Event::LinkTxDone(id) => l.tx_done(id, at, &mut ev),
                        Event::QueueWake(id) => l.wake(id, at, &mut ev),
                        Event::LinkArrival(id) => {
                            let p = l.arrive(id, &mut ev);
                            out.push((at.0, p.seq, p.tx_start.0));
                        }
                        _ => unreachable!(),
                    }
                    continue;
                }
                (None, Some(_)) => {}
            }
            let (t, size) = arrivals[next];
            let kind = if size > 100 {
                PacketKind::Data
            } else {
                PacketKind::Ack
            };
            let mut p = Packet::test(FlowId::from_index(next % 3), kind, size);
            p.seq = next as u64;
            if next % 3 != 0 {
                p.flags |= crate::packet::flags::ECT;
            }
            l.offer(LinkId(0), SimTime(t), p, &mut ev);
            l.settle(SimTime(t));
            max_seen = max_seen.max(l.occupancy().0);
            if let (AnyQueue::Choke(c), false) = (&l.queue, l.fifo) {
                // Evictions keep the link's count of data segments queued or in
                // transmission (offered − dropped − sent) exact.
                let busy = l.busy.is_some_and(|p| p.is_data()) as u64;
                assert_eq!(l.data_occupancy(), c.data_waiting() + busy);
            }
            next += 1;
        }
        l.settle(SimTime(u64::MAX));
        assert_eq!(max_seen, l.stats.max_queue_packets);
        (out, l)
    }

    #[test]
    fn queue_area_by_hand() {
        // Three 1500-byte packets at t = 0 on an idle 10 Mb/s link (1.2 ms each) wait 0,
        // 1.2 and 2.4 ms. At 1 ms two have waited 1 ms each; at the end 3.6 ms in all.
        let ms = 1_000_000_000u64;
        for scheduled in [false, true] {
            let mut l = test_link(AnyQueue::DropTail(DropTail::new(Limit::Packets(10))), 0.0);
            if scheduled {
                l.force_scheduled();
            }
            let mut ev = EventQueue::new();
            for i in 0..3 {
                let p = Packet::test(FlowId::from_index(i), PacketKind::Data, 1500);
                l.offer(LinkId(0), SimTime::ZERO, p, &mut ev);
            }
            l.settle(SimTime(ms));
            assert_eq!(l.queue_area_at(SimTime(ms)), 2 * ms as u128, "{scheduled}");
            while let Some((at, e)) = ev.pop() {
                match e {
                    Event::LinkTxDone(id) => l.tx_done(id, at, &mut ev),
                    Event::LinkArrival(id) => drop(l.arrive(id, &mut ev)),
                    _ => unreachable!(),
                }
            }
            let end = SimTime(100 * ms);
            l.settle(end);
            assert_eq!(l.queue_area_at(end), 3_600_000_000, "{scheduled}");
            assert_eq!(l.queued(), 3);
        }
    }

    #[test]
    fn fast_path_matches_scheduled_path() {
        // Bursts and gaps at picosecond resolution over 2 s (1500 B take 1.2 ms at 10 Mb/s).
        let arrivals = bursty_arrivals(7);
        for (limit, loss) in [
            (Limit::Packets(8), 0.0),
            (Limit::Bytes(9000), 0.05),
            (Limit::Unlimited, 0.0),
        ] {
            let (fast, lf) = drive(&arrivals, limit, loss, false);
            let (sched, ls) = drive(&arrivals, limit, loss, true);
            assert_eq!(fast, sched, "{limit:?}");
            assert!(fast.len() > 1000);
            // The same waiting integral and admissions, summed per packet (fast) and per
            // backlog change (scheduled).
            let end = SimTime(u64::MAX);
            assert_eq!(lf.queue_area_at(end), ls.queue_area_at(end), "{limit:?}");
            assert_eq!(lf.queued(), ls.queued(), "{limit:?}");
            assert!(lf.queue_area_at(end) > 0);
            let (a, b) = (lf.stats, ls.stats);
            assert_eq!(
                (
                    a.offered,
                    a.tx_packets,
                    a.tx_bytes,
                    a.tx_data_bytes,
                    a.busy_ps
                ),
                (
                    b.offered,
                    b.tx_packets,
                    b.tx_bytes,
                    b.tx_data_bytes,
                    b.busy_ps
                )
            );
            assert_eq!(
                (a.lost, a.delivered, a.max_queue_packets),
                (b.lost, b.delivered, b.max_queue_packets)
            );
            assert_eq!(
                (a.max_queue_bytes, a.max_data_queue),
                (b.max_queue_bytes, b.max_data_queue)
            );
            assert_eq!(
                (lf.drops.packets, lf.drops.data_packets),
                (ls.drops.packets, ls.drops.data_packets)
            );
            if limit != Limit::Unlimited {
                assert!(lf.drops.packets > 0, "{limit:?} must overflow in this test");
            }
            if loss > 0.0 {
                assert!(a.lost > 0);
            }
            assert_eq!(lf.in_system(), 0);
        }
    }

    #[test]
    fn busy_time_counts_the_transmission_in_progress() {
        let mut l = Link::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            Rate(8_000_000), // 1 byte per µs
            SimDuration::ZERO,
            AnyQueue::DropTail(DropTail::new(Limit::Unlimited)),
            0.0,
            SimRng::derive(1, Stream::Queue, 0),
            SimRng::derive(1, Stream::LinkLoss, 0),
        );
        l.prepare(SimTime::MAX);
        let mut ev = EventQueue::new();
        l.offer(
            LinkId(0),
            SimTime::ZERO,
            Packet::test(FlowId(0), PacketKind::Data, 1000),
            &mut ev,
        );
        l.offer(
            LinkId(0),
            SimTime::ZERO,
            Packet::test(FlowId(0), PacketKind::Data, 1000),
            &mut ev,
        );
        let t = SimTime::ZERO + SimDuration::from_us(1500);
        l.settle(t);
        assert_eq!(l.busy_time(t), SimDuration::from_us(1500));
        assert_eq!(l.occupancy(), (1, 1000));
        assert_eq!(l.stats.tx_packets, 1);
    }

    /// 5000 arrivals in bursts and gaps over about 2 s.
    fn bursty_arrivals(seed: u64) -> Vec<(u64, u32)> {
        let mut rng = SimRng::derive(seed, Stream::App, 0);
        let mut t = 0u64;
        let mut arrivals = Vec::new();
        for _ in 0..5000 {
            let gap = if rng.bernoulli(0.2) {
                3_000_000_000
            } else {
                300_000_000
            };
            t += rng.below(gap) + 1;
            arrivals.push((t, if rng.bernoulli(0.3) { 40 } else { 1500 }));
        }
        arrivals
    }

    #[test]
    fn red_fast_path_matches_scheduled_path() {
        // RED decides at admission: both paths see the same waiting backlog and idle times,
        // so the same random draws, marks, drops and departures.
        let arrivals = bursty_arrivals(11);
        let red = |w_q: f64| {
            AnyQueue::Red(Red::new(RedConfig {
                limit: Limit::Packets(30),
                min_th: 3.0,
                max_th: 12.0,
                max_p: 0.2,
                w_q,
                gentle: true,
                count_spacing: true,
                ecn: true,
                forced_drop: false,
                mark_to_drop: 0.1,
                mean_packet_size: 1000,
                instantaneous: w_q == 1.0,
            }))
        };
        for w_q in [0.05, 1.0] {
            let (fast, lf) = drive_queue(&arrivals, red(w_q), 0.0, false);
            let (sched, ls) = drive_queue(&arrivals, red(w_q), 0.0, true);
            assert_eq!(fast, sched, "w_q {w_q}");
            let (a, b) = (lf.drops, ls.drops);
            assert_eq!(
                (a.packets, a.marks, a.by_reason, a.marks_by_reason),
                (b.packets, b.marks, b.by_reason, b.marks_by_reason)
            );
            assert!(a.marks > 0 && a.packets > a.overflow, "RED must act: {a:?}");
        }
    }

    #[test]
    fn choke_without_drop_both_takes_the_fast_path_with_the_same_results() {
        // Seed 002's CHOKe/RED-I drops only the arrival on a match: the fast path (the link
        // names the waiting packets' flows) must make the same draws, matches, marks and
        // departures as the scheduled path, also with wire losses among the waiting packets.
        use crate::queue::choke::{CheckFrom, Choke, ChokeConfig};
        let arrivals = bursty_arrivals(17);
        let choke = |period: Option<SimDuration>| {
            let red = Red::new(RedConfig {
                limit: Limit::Packets(30),
                min_th: 3.0,
                max_th: 20.0,
                max_p: 1.0,
                w_q: 1.0,
                gentle: false,
                count_spacing: false,
                ecn: true,
                forced_drop: false,
                mark_to_drop: 0.0,
                mean_packet_size: 1000,
                instantaneous: true,
            });
            AnyQueue::Choke(Box::new(Choke::new(
                red,
                ChokeConfig {
                    period,
                    check_prob: 1.0,
                    check_from: CheckFrom::Nonempty,
                    drop_both: false,
                    instantaneous: true,
                },
            )))
        };
        for (period, loss) in [
            (None, 0.0),
            (None, 0.05),
            (Some(SimDuration::from_ms(20)), 0.02),
        ] {
            let (fast, lf) = drive_queue(&arrivals, choke(period), loss, false);
            let (sched, ls) = drive_queue(&arrivals, choke(period), loss, true);
            assert!(lf.fifo, "CHOKe without drop_both runs on the fast path");
            assert_eq!(fast, sched, "period {period:?} loss {loss}");
            let (a, b) = (lf.drops, ls.drops);
            assert_eq!(
                (a.packets, a.marks, a.by_reason, a.marks_by_reason),
                (b.packets, b.marks, b.by_reason, b.marks_by_reason)
            );
            assert_eq!(
                (
                    lf.stats.lost,
                    lf.stats.delivered,
                    lf.stats.max_queue_packets
                ),
                (
                    ls.stats.lost,
                    ls.stats.delivered,
                    ls.stats.max_queue_packets
                )
            );
            let (AnyQueue::Choke(cf), AnyQueue::Choke(cs)) = (&lf.queue, &ls.queue) else {
                unreachable!()
            };
            assert_eq!((cf.checks, cf.matches), (cs.checks, cs.matches));
            assert!(cf.matches > 20, "CHOKe must act: {}", cf.matches);
            assert_eq!(a.by_reason[DropReason::Choke.index()], cf.matches);
            if loss > 0.0 {
                assert!(lf.stats.lost > 0);
            }
        }
    }

    #[test]
    fn choke_on_a_link_keeps_counts_exact() {
        // CHOKe evicts queued packets: the link's counters (drops, data occupancy, maximum
        // queue) must still add up, and every offered packet is delivered or dropped.
        use crate::queue::choke::{CheckFrom, Choke, ChokeConfig};
        let arrivals = bursty_arrivals(13);
        let red = Red::new(RedConfig {
            limit: Limit::Packets(30),
            min_th: 2.0,
            max_th: 20.0,
            max_p: 0.1,
            w_q: 1.0,
            gentle: false,
            count_spacing: false,
            ecn: true,
            forced_drop: false,
            mark_to_drop: 0.0,
            mean_packet_size: 1000,
            instantaneous: true,
        });
        let q = AnyQueue::Choke(Box::new(Choke::new(
            red,
            ChokeConfig {
                period: None,
                check_prob: 1.0,
                check_from: CheckFrom::MinTh,
                drop_both: true,
                instantaneous: true,
            },
        )));
        let (out, l) = drive_queue(&arrivals, q, 0.0, false);
        assert!(!l.fifo, "CHOKe runs on the scheduled path");
        let choke = l.drops.by_reason[DropReason::Choke.index()];
        let AnyQueue::Choke(c) = &l.queue else {
            unreachable!()
        };
        assert!(c.matches > 50, "CHOKe must act: {}", c.matches);
        assert_eq!(choke, 2 * c.matches);
        assert_eq!(l.stats.offered, out.len() as u64 + l.drops.packets);
        assert_eq!(l.stats.delivered, out.len() as u64);
        assert_eq!(l.in_system(), 0);
        assert_eq!(l.data_occupancy(), 0);
        // FIFO among survivors.
        assert!(out.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn queue_wake_timer_releases_held_packets() {
        // The test discipline holds packets until 50 ms and asks to be woken then; the
        // link transmits them back to back from that instant.
        let mut l = Link::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            Rate(8_000_000), // 1 byte per µs
            SimDuration::ZERO,
            AnyQueue::Test(crate::queue::tests::WakeTest {
                release_at: SimTime::ZERO + SimDuration::from_ms(50),
                released: false,
                q: VecDeque::new(),
                backlog: Backlog::default(),
                wakes: 0,
            }),
            0.0,
            SimRng::derive(1, Stream::Queue, 0),
            SimRng::derive(1, Stream::LinkLoss, 0),
        );
        l.prepare(SimTime::MAX);
        assert!(!l.fifo);
        let mut ev = EventQueue::new();
        for i in 0..3u64 {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            p.seq = i;
            l.offer(
                LinkId(0),
                SimTime::ZERO + SimDuration::from_ms(i),
                p,
                &mut ev,
            );
        }
        let mut got = Vec::new();
        while let Some((at, e)) = ev.pop() {
            match e {
                Event::QueueWake(id) => l.wake(id, at, &mut ev),
                Event::LinkTxDone(id) => l.tx_done(id, at, &mut ev),
                Event::LinkArrival(id) => got.push((at, l.arrive(id, &mut ev).seq)),
                _ => unreachable!(),
            }
        }
        let ms = |x: u64| SimTime::ZERO + SimDuration::from_ms(x);
        assert_eq!(got, vec![(ms(51), 0), (ms(52), 1), (ms(53), 2)]);
        match &l.queue {
            AnyQueue::Test(q) => assert_eq!(q.wakes, 1, "one pending wake-up, not three"),
            _ => unreachable!(),
        }
    }
}

//! One direction of a link: queue → transmitter → propagation pipe.

use crate::event::{Event, EventQueue, LinkId, NodeId};
use crate::net::packet::Packet;
use crate::queue::{AnyQueue, DropLog, QueueCx, QueueDisc};
use crate::rng::SimRng;
use crate::stats::pcap::PcapWriter;
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

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
}

pub struct Link {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimDuration,
    pub queue: AnyQueue,
    /// Bernoulli loss probability per packet on the wire.
    pub loss: f64,
    pub(crate) queue_rng: SimRng,
    pub(crate) loss_rng: SimRng,
    pub(crate) busy: Option<Packet>,
    busy_since: SimTime,
    pub(crate) pipe: VecDeque<(SimTime, Packet)>,
    pub stats: LinkStats,
    pub drops: DropLog,
    /// End-host backpressure threshold (data segments per local connection), if any. The
    /// link only carries the setting; the simulation returns credit to the sender when one
    /// of its data segments leaves (or is dropped by) this queue.
    pub backpressure: Option<u32>,
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
            loss,
            queue_rng,
            loss_rng,
            busy: None,
            busy_since: SimTime::ZERO,
            pipe: VecDeque::with_capacity(64),
            stats: LinkStats::default(),
            drops: DropLog::default(),
            backpressure: None,
            capture: None,
        }
    }

    /// Packets held: queued, in transmission and propagating.
    pub fn in_system(&self) -> u64 {
        self.queue.backlog().packets as u64 + self.busy.is_some() as u64 + self.pipe.len() as u64
    }

    /// Occupancy in packets including the one being transmitted.
    #[inline]
    pub fn occupancy(&self) -> (u32, u64) {
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

    /// Busy time up to `now`, counting a transmission in progress.
    pub fn busy_time(&self, now: SimTime) -> SimDuration {
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
        let is_data = pkt.is_data();
        self.stats.offered_data += is_data as u64;
        let mut cx = QueueCx::new(now, &mut self.queue_rng, &mut self.drops);
        self.queue.enqueue(pkt, &mut cx);
        if self.busy.is_none() {
            self.start_tx(id, now, events);
        }
        let (p, b) = self.occupancy();
        if p > self.stats.max_queue_packets {
            self.stats.max_queue_packets = p;
        }
        if b > self.stats.max_queue_bytes {
            self.stats.max_queue_bytes = b;
        }
        if p > self.stats.steady_max_queue_packets {
            self.stats.steady_max_queue_packets = p;
        }
        if is_data {
            let d = self.data_occupancy();
            self.stats.max_data_queue = self.stats.max_data_queue.max(d);
            self.stats.steady_max_data_queue = self.stats.steady_max_data_queue.max(d);
        }
    }

    #[inline]
    fn start_tx(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        let mut cx = QueueCx::new(now, &mut self.queue_rng, &mut self.drops);
        if let Some(mut p) = self.queue.dequeue(&mut cx) {
            if p.tx_start == SimTime::MAX {
                p.tx_start = now;
            }
            if let Some(c) = &mut self.capture {
                c.record(now, &p);
            }
            let dt = self.rate.tx_time(p.size);
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
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += p.size as u64;
        if p.is_data() {
            self.stats.tx_data_packets += 1;
            self.stats.tx_data_bytes += p.size as u64;
        } else {
            self.stats.tx_ack_bytes += p.size as u64;
        }
        self.stats.busy_ps += now.since(self.busy_since).0;
        if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
            self.stats.lost += 1;
        } else {
            let at = now + self.delay;
            self.pipe.push_back((at, p));
            if self.pipe.len() == 1 {
                events.schedule(at, Event::LinkArrival(id));
            }
        }
        p
    }

    /// Start the next transmission if the transmitter is idle.
    #[inline]
    pub fn start_next(&mut self, id: LinkId, now: SimTime, events: &mut EventQueue) {
        if self.busy.is_none() {
            self.start_tx(id, now, events);
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

//! DropTail FIFO: arrivals that do not fit are discarded.

use super::{Backlog, DropReason, QueueCx, QueueDisc};
use crate::net::packet::Packet;
use std::collections::VecDeque;

/// Capacity of a queue (packets waiting, not counting the one being transmitted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

impl Limit {
    /// Whether `p` fits in a queue holding `backlog`.
    #[inline]
    pub fn fits(&self, backlog: &Backlog, p: &Packet) -> bool {
        match *self {
            Limit::Packets(n) => backlog.packets < n,
            Limit::Bytes(b) => backlog.bytes + p.size as u64 <= b,
            Limit::Unlimited => true,
        }
    }
}

pub struct DropTail {
    q: VecDeque<Packet>,
    limit: Limit,
    backlog: Backlog,
}

impl DropTail {
    /// Storage grows with the largest backlog seen (amortised doubling), so a big limit on a
    /// queue that never fills costs nothing, and a run that has reached its largest backlog
    /// allocates no more.
    pub fn new(limit: Limit) -> Self {
        DropTail {
            q: VecDeque::new(),
            limit,
            backlog: Backlog::default(),
        }
    }
    pub fn limit(&self) -> Limit {
        self.limit
    }
}

impl QueueDisc for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        if self.limit.fits(&self.backlog, &pkt) {
            self.backlog.add(&pkt);
            self.q.push_back(pkt);
        } else {
            cx.drop(pkt, DropReason::Overflow);
        }
    }
    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.backlog.remove(&p);
        Some(p)
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};
    use crate::time::SimTime;

    #[test]
    fn fifo_order_and_packet_limit() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for i in 0..3 {
            let mut p = Packet::test(0, PacketKind::Data, 100);
            p.seq = i;
            q.enqueue(p, &mut cx);
        }
        assert_eq!(
            q.backlog(),
            Backlog {
                packets: 2,
                bytes: 200
            }
        );
        assert_eq!(q.dequeue(&mut cx).unwrap().seq, 0);
        assert_eq!(q.dequeue(&mut cx).unwrap().seq, 1);
        assert!(q.dequeue(&mut cx).is_none());
        assert_eq!(log.overflow, 1);
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(150));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        q.enqueue(Packet::test(0, PacketKind::Data, 100), &mut cx);
        q.enqueue(Packet::test(0, PacketKind::Ack, 40), &mut cx);
        q.enqueue(Packet::test(0, PacketKind::Ack, 40), &mut cx);
        assert_eq!(q.backlog().packets, 2);
        assert_eq!(log.packets, 1);
    }
}

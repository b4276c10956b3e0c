//! UDP: datagrams with a per-flow sequence number (carried in `Packet::seq`, counting
//! datagrams), never acknowledged. The receiver counts what arrives and infers losses
//! from gaps in the sequence numbers.

use crate::event::{FlowId, NodeId};
use crate::net::packet::{flags, CcHeader};
use crate::net::{Packet, PacketKind};
use crate::time::SimTime;

/// The sending end of a UDP flow.
#[derive(Clone, Debug)]
pub struct UdpSender {
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    /// Header bytes added to each datagram's payload on the wire (IP + UDP).
    pub header: u32,
    /// Datagrams sent so far (the next datagram's sequence number).
    pub packets_sent: u64,
    pub bytes_sent: u64,
}

impl UdpSender {
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, header: u32) -> Self {
        UdpSender {
            flow,
            src,
            dst,
            header,
            packets_sent: 0,
            bytes_sent: 0,
        }
    }

    /// Send one datagram of `len` payload bytes now.
    #[inline]
    pub fn send(&mut self, now: SimTime, len: u32, out: &mut impl FnMut(Packet)) {
        let seq = self.packets_sent;
        self.packets_sent += 1;
        self.bytes_sent += len as u64;
        out(Packet {
            flow: self.flow,
            src: self.src,
            dst: self.dst,
            kind: PacketKind::Data,
            flags: flags::UDP,
            size: len + self.header,
            len,
            seq,
            ack: 0,
            ts: now,
            rx_time: SimTime::ZERO,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
            sack_len2: 0,
        });
    }
}

/// The receiving end of a UDP flow.
#[derive(Clone, Debug, Default)]
pub struct UdpReceiver {
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// One past the highest sequence number received.
    next_expected: u64,
}

impl UdpReceiver {
    /// A datagram arrived; returns its payload bytes.
    #[inline]
    pub fn on_datagram(&mut self, p: &Packet) -> u64 {
        self.packets_delivered += 1;
        self.bytes_delivered += p.len as u64;
        self.next_expected = self.next_expected.max(p.seq + 1);
        p.len as u64
    }
    /// Datagrams missing below the highest one received (lost; the network never
    /// reorders a flow's packets, so a gap is a loss; datagrams still in flight after the
    /// last arrival are not counted).
    pub fn packets_lost(&self) -> u64 {
        self.next_expected - self.packets_delivered.min(self.next_expected)
    }
    /// Lost / (lost + delivered); 0 when nothing was expected.
    pub fn loss_fraction(&self) -> f64 {
        if self.next_expected == 0 {
            0.0
        } else {
            self.packets_lost() as f64 / self.next_expected as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_count_as_losses() {
        let mut s = UdpSender::new(FlowId(0), NodeId(0), NodeId(1), 28);
        let mut sent = Vec::new();
        for _ in 0..10 {
            s.send(SimTime::ZERO, 1000, &mut |p| sent.push(p));
        }
        assert_eq!(sent[3].seq, 3);
        assert_eq!(sent[3].size, 1028);
        let mut r = UdpReceiver::default();
        for p in sent.iter().filter(|p| p.seq % 5 != 2) {
            r.on_datagram(p);
        }
        assert_eq!(r.packets_delivered, 8);
        assert_eq!(r.bytes_delivered, 8000);
        assert_eq!(r.packets_lost(), 2);
        assert!((r.loss_fraction() - 0.2).abs() < 1e-12);
    }
}

//! Packets are small `Copy` records: headers only, no payload bytes, no heap.

use crate::event::{FlowId, NodeId};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP segment carrying `len` payload bytes starting at `seq`, or a UDP datagram
    /// (`flags::UDP`) of `len` payload bytes, number `seq` of its flow.
    Data,
    /// A pure acknowledgement: cumulative `ack`.
    Ack,
}

/// Header bits.
pub mod flags {
    /// ECN-capable transport (ECT) on a data segment.
    pub const ECT: u8 = 1 << 0;
    /// Congestion experienced, set by a router on an ECT packet.
    pub const CE: u8 = 1 << 1;
    /// ECN-Echo on an ack.
    pub const ECE: u8 = 1 << 2;
    /// Congestion window reduced (sender to receiver).
    pub const CWR: u8 = 1 << 3;
    /// Data: this segment is a retransmission. Ack: the segment that caused this ack was one
    /// (the receiver echoes it so the sender can apply Karn's rule).
    pub const RETX: u8 = 1 << 4;
    /// A UDP datagram (`kind` is `Data`; `seq` counts datagrams; never acked).
    pub const UDP: u8 = 1 << 5;
}

/// Per-packet fields written by congestion controllers or routers (XCP-style explicit
/// feedback). Unused by the loss-based algorithms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcHeader {
    pub cwnd: u32,
    pub rtt_ns: u32,
    pub feedback: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: PacketKind,
    pub flags: u8,
    /// On-the-wire size in bytes (payload + headers, or the configured ack size).
    pub size: u32,
    /// Data: payload bytes.
    pub len: u32,
    /// Data: sequence number of the first payload byte.
    pub seq: u64,
    /// Ack: next byte expected by the receiver.
    pub ack: u64,
    /// Data: time the segment was sent (a timestamp option value). Ack: the echoed value
    /// of the segment that triggered the ack.
    pub ts: SimTime,
    /// Ack: when the echoed data segment arrived at the receiver (AT, on the receiver's
    /// clock: simulated time plus the flow's `receiver_clock_offset`, wrapping).
    pub rx_time: SimTime,
    /// Data: time the packet started transmission on its first hop (stamped by the link,
    /// which stamps only packets still at `SimTime::MAX`). Ack: its leaving time LT, stamped
    /// by the receiver on its own clock when it hands the ack to its host (seed 001's ALT).
    pub tx_start: SimTime,
    pub cc: CcHeader,
}

impl Packet {
    #[inline]
    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    /// A blank packet, for unit tests.
    #[cfg(test)]
    pub fn test(flow: FlowId, kind: PacketKind, size: u32) -> Packet {
        Packet {
            flow,
            src: NodeId(0),
            dst: NodeId(1),
            kind,
            flags: 0,
            size,
            len: if kind == PacketKind::Data { size } else { 0 },
            seq: 0,
            ack: 0,
            ts: SimTime::ZERO,
            rx_time: SimTime::ZERO,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        assert!(std::mem::size_of::<super::Packet>() <= 88);
    }
}

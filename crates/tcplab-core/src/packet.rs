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
    /// Ack: carries SACK blocks (RFC 2018), see [`Packet::sack_blocks`].
    pub const SACK: u8 = 1 << 6;
    /// Ack: the first SACK block is a D-SACK block (RFC 2883): a duplicate segment.
    pub const DSACK: u8 = 1 << 7;
    /// Data: the last segment of a finite transfer carries the FIN (`fin = true`): the
    /// receiver acknowledges it at once. The bit is [`SACK`]'s, which only acks carry (the
    /// eight bits are all in use, and `Packet` stays at 80 bytes).
    pub const FIN: u8 = SACK;
}

/// SACK blocks an ack can carry. RFC 2018 allows 3 beside the timestamp option; tcplab
/// carries 2 in fields acks do not otherwise use (`seq`, `len`, `sack_len2`), which keeps
/// `Packet` at 80 bytes: a third block would add 8 bytes to every packet of every flow,
/// copied at every hop (docs/tcp.md, "Carrying the blocks").
pub const SACK_BLOCKS: usize = 2;

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
    /// Data: payload bytes. Ack with `flags::SACK`: the second SACK block's start, as an
    /// offset from `ack`.
    pub len: u32,
    /// Data: sequence number of the first payload byte. Ack with `flags::SACK`: the first
    /// SACK block, start offset from `ack` (high 32 bits, two's complement for a D-SACK
    /// block below `ack`) and length (low 32 bits).
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
    /// Ack with `flags::SACK`: the second SACK block's length (0: one block only). It fills
    /// what was padding, so `Packet` stays at 80 bytes.
    pub sack_len2: u32,
    /// Ack: the receive window the receiver advertises, in units of `2^scale` bytes (RFC
    /// 7323 §2: the flow's window scale, fixed per flow, [`crate::tcp::PlaybackRwnd::scale`]).
    /// Only a flow with `playback_rwnd_cap` reads it; every other ack carries `0xffff`.
    /// Data: 0. It fills the last 2 bytes of padding, so `Packet` stays at 80 bytes (no field
    /// is free on every ack: `seq`, `len` and `sack_len2` carry SACK blocks, `rx_time` and
    /// `tx_start` ALT's stamps, `cc` XCP's echo).
    pub wnd: u16,
}

/// The ack fields that carry SACK blocks (see [`Packet::sack_blocks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackFields {
    pub seq: u64,
    pub len: u32,
    pub len2: u32,
    /// `flags::SACK`, and `flags::DSACK` if the first block is one.
    pub flags: u8,
}

impl SackFields {
    /// Encode up to [`SACK_BLOCKS`] blocks relative to `ack` (see
    /// [`Packet::set_sack_blocks`]).
    pub fn encode(ack: u64, blocks: &[(u64, u64)], dsack: bool) -> SackFields {
        let mut f = SackFields::default();
        let mut n = 0;
        for (k, &(s, e)) in blocks.iter().enumerate() {
            let len = e - s;
            let off = s.wrapping_sub(ack) as i64;
            let is_d = dsack && k == 0;
            let fits = len > 0
                && len <= u32::MAX as u64
                && if is_d {
                    off >= i32::MIN as i64 && off <= i32::MAX as i64
                } else {
                    off >= 0 && off <= u32::MAX as i64
                };
            if !fits {
                continue;
            }
            if n == 0 {
                f.seq = ((off as u32 as u64) << 32) | len;
                if is_d {
                    f.flags |= flags::DSACK;
                }
            } else {
                f.len = off as u32;
                f.len2 = len as u32;
            }
            n += 1;
            if n == SACK_BLOCKS {
                break;
            }
        }
        if n > 0 {
            f.flags |= flags::SACK;
        }
        f
    }
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
    /// The SACK blocks `[start, end)` of an ack (empty ones have `start == end`). With
    /// `flags::DSACK` the first is a D-SACK block, which may lie below `ack`.
    #[inline]
    pub fn sack_blocks(&self) -> [(u64, u64); SACK_BLOCKS] {
        let off0 = (self.seq >> 32) as u32 as i32 as i64;
        let s0 = if self.has(flags::DSACK) {
            self.ack.wrapping_add(off0 as u64)
        } else {
            self.ack + (self.seq >> 32)
        };
        let s1 = self.ack + self.len as u64;
        [
            (s0, s0 + (self.seq & 0xffff_ffff)),
            (s1, s1 + self.sack_len2 as u64),
        ]
    }

    /// Write up to [`SACK_BLOCKS`] blocks on an ack (after `ack` is set). A block that does
    /// not fit the 32-bit encoding (more than 4 GiB above `ack`, or a D-SACK block more than
    /// 2 GiB below it) is left out. Sets `flags::SACK` if any block was written.
    pub fn set_sack_blocks(&mut self, blocks: &[(u64, u64)], dsack: bool) {
        let f = SackFields::encode(self.ack, blocks, dsack);
        self.seq = f.seq;
        self.len = f.len;
        self.sack_len2 = f.len2;
        self.flags = (self.flags & !(flags::SACK | flags::DSACK)) | f.flags;
    }

    /// A data packet of `flow` from `src` to `dst` sent at `now` (`ts`), empty: no payload,
    /// flags or congestion header, not yet stamped by a link (`tx_start` = `SimTime::MAX`).
    /// Senders set what differs with struct update syntax (`Packet { len, seq, ..data }`).
    #[inline(always)]
    pub fn data(flow: FlowId, src: NodeId, dst: NodeId, now: SimTime) -> Packet {
        Packet {
            flow,
            src,
            dst,
            kind: PacketKind::Data,
            flags: 0,
            size: 0,
            len: 0,
            seq: 0,
            ack: 0,
            ts: now,
            rx_time: SimTime::ZERO,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
            sack_len2: 0,
            wnd: 0,
        }
    }

    /// A blank packet, for unit tests.
    #[cfg(test)]
    pub fn test(flow: FlowId, kind: PacketKind, size: u32) -> Packet {
        Packet {
            kind,
            size,
            len: if kind == PacketKind::Data { size } else { 0 },
            ..Packet::data(flow, NodeId(0), NodeId(1), SimTime::ZERO)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;

    #[test]
    fn packet_stays_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 80);
    }

    #[test]
    fn sack_blocks_round_trip() {
        let mut a = Packet::test(FlowId(0), PacketKind::Ack, 40);
        a.ack = 10_000;
        a.set_sack_blocks(&[(12_000, 15_000), (20_000, 21_000)], false);
        assert!(a.has(flags::SACK) && !a.has(flags::DSACK));
        assert_eq!(a.sack_blocks(), [(12_000, 15_000), (20_000, 21_000)]);
        // A D-SACK block below the ack, then one above it.
        a.set_sack_blocks(&[(8_000, 9_000), (20_000, 21_000)], true);
        assert!(a.has(flags::SACK | flags::DSACK));
        assert_eq!(a.sack_blocks(), [(8_000, 9_000), (20_000, 21_000)]);
        // One block: the second is empty.
        a.set_sack_blocks(&[(12_000, 13_000)], false);
        assert!(!a.has(flags::DSACK));
        let b = a.sack_blocks();
        assert_eq!(b[0], (12_000, 13_000));
        assert_eq!(b[1].0, b[1].1);
        // Out of the encoding's range: left out; nothing left: no SACK flag.
        a.set_sack_blocks(&[(10_000 + (1 << 33), 10_000 + (1 << 33) + 5)], false);
        assert!(!a.has(flags::SACK));
    }
}

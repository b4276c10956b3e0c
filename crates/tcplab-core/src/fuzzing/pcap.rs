//! The `pcap` fuzz target's property ([`check_pcap`]): the capture writer
//! (`stats/pcap.rs`) on arbitrary packets, decoded from the fuzz bytes with `arbitrary`
//! (every field of [`Packet`], any time, any receiver windows, and optionally an output
//! that fills after a number of bytes).

use arbitrary::Unstructured;
use std::io::{self, Write};
use std::path::PathBuf;

use crate::ids::{FlowId, NodeId};
use crate::packet::{flags, CcHeader, Packet, PacketKind};
use crate::stats::pcap::{
    checksum, file_header, node_addr, sender_port, PcapWriter, FILE_HEADER_LEN, HEADER_LEN,
    RECEIVER_ISN, RECEIVER_PORT, SENDER_ISN, UDP_HEADER_LEN,
};
use crate::time::SimTime;

/// Packets per input at most (longer inputs are cut: the writer is linear).
const MAX_PACKETS: usize = 64;

/// A packet with every field drawn from `u` (exhausted input: zeros).
fn packet(u: &mut Unstructured) -> Packet {
    let mut a = || -> u64 { u.arbitrary().unwrap_or_default() };
    let kind = if a() & 1 == 0 {
        PacketKind::Data
    } else {
        PacketKind::Ack
    };
    Packet {
        flow: FlowId(a() as u32),
        size: a() as u32,
        src: NodeId(a() as u32),
        dst: NodeId(a() as u32),
        kind,
        flags: a() as u8,
        len: a() as u32,
        seq: a(),
        ack: a(),
        ts: SimTime(a()),
        rx_time: SimTime(a()),
        tx_start: SimTime(a()),
        cc: CcHeader {
            cwnd: a() as u32,
            rtt_ns: a() as u32,
            feedback: f32::from_bits(a() as u32),
        },
        sack_len2: a() as u32,
        wnd: a() as u16,
    }
}

/// An output device that takes `cap` bytes, then fails as a full disk does (a short write,
/// then an error).
struct Full {
    buf: Vec<u8>,
    cap: usize,
}

impl Write for Full {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.buf.len();
        if room == 0 && !b.is_empty() {
            return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
        }
        let n = room.min(b.len());
        self.buf.extend_from_slice(&b[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The Internet checksum over a pseudo-header (`src`, `dst`, `proto`, `len`) and `hdr`
/// (the payload, all zero bytes, adds nothing): 0 when the header's checksum is right.
fn pseudo_checksum(ip: &[u8], proto: u8, len: u16, hdr: &[u8]) -> u16 {
    let mut v = Vec::with_capacity(12 + hdr.len());
    v.extend_from_slice(&ip[12..20]);
    v.extend_from_slice(&[0, proto]);
    v.extend_from_slice(&len.to_be_bytes());
    v.extend_from_slice(hdr);
    checksum(&v)
}

/// Decode `file` as a libpcap file and check every record against the packet it was
/// written for (docs/outputs.md, "pcap"). Returns each record's end offset.
fn verify(file: &[u8], recs: &[(SimTime, Packet)], rwnd: &[u64]) -> Vec<usize> {
    assert_eq!(file[..FILE_HEADER_LEN], file_header(), "file header");
    let mut off = FILE_HEADER_LEN;
    let mut ends = Vec::with_capacity(recs.len());
    for (i, (now, p)) in recs.iter().enumerate() {
        let what = format!("record {i} ({p:?} at {} ps)", now.0);
        let udp = p.has(flags::UDP);
        let data = p.kind == PacketKind::Data;
        // TCP: the simulated header (the packet's size less its payload), between 40 and
        // 80 bytes, a multiple of 4 (stats/pcap.rs, `tcp_header_len`).
        let hdr = if udp {
            UDP_HEADER_LEN
        } else {
            let pay = if data { p.len } else { 0 };
            let h = p.size.saturating_sub(pay) as usize;
            let t = (h.saturating_sub(20) / 4 * 4).clamp(20, 60) + 20;
            assert!(t <= HEADER_LEN);
            t
        };
        assert!(file.len() >= off + 16 + hdr, "{what}: file ends early");
        let r = &file[off..off + 16 + hdr];
        // Record header: the start time in s + ns (picoseconds truncated), lengths.
        let ns = now.0 / 1000;
        assert_eq!(le32(&r[0..4]) as u64, ns / 1_000_000_000, "{what}: seconds");
        assert_eq!(le32(&r[4..8]) as u64, ns % 1_000_000_000, "{what}: ns");
        assert_eq!(le32(&r[8..12]) as usize, hdr, "{what}: captured length");
        // IPv4 cannot say more than 65,535 bytes: longer packets are written at that.
        // A UDP echo (ack kind, `echo = true` flows) carries its datagram's payload back.
        let payload = if data || udp { p.len as u64 } else { 0 };
        let total = (hdr as u64 + payload).min(u16::MAX as u64) as u16;
        assert_eq!(le32(&r[12..16]), total as u32, "{what}: original length");
        // IPv4.
        let ip = &r[16..36];
        assert_eq!(ip[0], 0x45, "{what}: version/IHL");
        let ecn = if p.has(flags::CE) {
            3
        } else if p.has(flags::ECT) {
            2
        } else {
            0
        };
        assert_eq!(ip[1], ecn, "{what}: DSCP/ECN");
        assert_eq!(be16(&ip[2..4]), total, "{what}: IPv4 total length");
        assert_eq!(be16(&ip[4..6]), i as u16, "{what}: identification");
        assert_eq!(be16(&ip[6..8]), 0x4000, "{what}: DF, offset 0");
        assert_eq!(ip[8], 64, "{what}: TTL");
        assert_eq!(ip[9], if udp { 17 } else { 6 }, "{what}: protocol");
        assert_eq!(checksum(ip), 0, "{what}: IPv4 checksum");
        assert_eq!(ip[12..16], node_addr(p.src), "{what}: source address");
        assert_eq!(ip[16..20], node_addr(p.dst), "{what}: destination address");
        let seg_len = total - 20;
        if udp {
            let h = &r[36..44];
            let (sport, dport) = if data {
                (sender_port(p.flow), RECEIVER_PORT)
            } else {
                (RECEIVER_PORT, sender_port(p.flow))
            };
            assert_eq!(be16(&h[0..2]), sport, "{what}: UDP source port");
            assert_eq!(be16(&h[2..4]), dport, "{what}: UDP destination port");
            assert_eq!(be16(&h[4..6]), seg_len, "{what}: UDP length");
            assert_ne!(
                be16(&h[6..8]),
                0,
                "{what}: a computed UDP checksum is never 0"
            );
            assert_eq!(
                pseudo_checksum(ip, 17, seg_len, h),
                0,
                "{what}: UDP checksum"
            );
        } else {
            let t = &r[36..16 + hdr];
            let wseq = |isn: u32, s: u64| (isn as u64).wrapping_add(s) as u32;
            let us = |t: SimTime| (t.0 as i64).div_euclid(1_000_000) as u32;
            let (sport, dport, seq, ack, tsval, tsecr, win) = if data {
                (
                    sender_port(p.flow),
                    RECEIVER_PORT,
                    wseq(SENDER_ISN, p.seq),
                    RECEIVER_ISN,
                    us(p.ts),
                    0,
                    u16::MAX,
                )
            } else {
                let w = rwnd.get(p.flow.0 as usize).copied().unwrap_or(u64::MAX);
                (
                    RECEIVER_PORT,
                    sender_port(p.flow),
                    RECEIVER_ISN,
                    wseq(SENDER_ISN, p.ack),
                    us(p.rx_time),
                    us(p.ts),
                    w.min(u16::MAX as u64) as u16,
                )
            };
            assert_eq!(be16(&t[0..2]), sport, "{what}: TCP source port");
            assert_eq!(be16(&t[2..4]), dport, "{what}: TCP destination port");
            assert_eq!(be32(&t[4..8]), seq, "{what}: sequence number");
            assert_eq!(be32(&t[8..12]), ack, "{what}: acknowledgment number");
            assert_eq!(t[12] as usize, (hdr - 20) / 4 * 16, "{what}: data offset");
            let mut fl = 0x10;
            if p.has(flags::ECE) {
                fl |= 0x40;
            }
            if p.has(flags::CWR) {
                fl |= 0x80;
            }
            assert_eq!(t[13], fl, "{what}: TCP flags");
            assert_eq!(be16(&t[14..16]), win, "{what}: window");
            assert_eq!(be16(&t[18..20]), 0, "{what}: urgent pointer");
            if hdr >= 52 {
                assert_eq!(t[20..24], [1, 1, 8, 10], "{what}: options");
                assert_eq!(be32(&t[24..28]), tsval, "{what}: TSval");
                assert_eq!(be32(&t[28..32]), tsecr, "{what}: TSecr");
                assert!(t[32..].iter().all(|&b| b == 1), "{what}: NOP padding");
            } else {
                assert!(t[20..].iter().all(|&b| b == 1), "{what}: NOP padding");
                let _ = (tsval, tsecr);
            }
            assert_eq!(
                pseudo_checksum(ip, 6, seg_len, t),
                0,
                "{what}: TCP checksum"
            );
        }
        off += 16 + hdr;
        ends.push(off);
    }
    assert_eq!(off, file.len(), "bytes after the last record");
    ends
}

/// The pcap writer on arbitrary packets: never a panic; the file decodes as libpcap with
/// one record per packet, each header field as `stats/pcap.rs` documents it (addresses,
/// ports, sequence numbers mod 2^32, timestamps, ECN bits and flags, lengths, valid IPv4,
/// TCP and UDP checksums); and an output that fills after any number of bytes holds a
/// prefix of that file, reports the error, and counts only the records written whole.
pub fn check_pcap(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let n_rwnd = u.int_in_range(0..=3u8).unwrap_or(0);
    let rwnd: Vec<u64> = (0..n_rwnd)
        .map(|_| u.arbitrary().unwrap_or_default())
        .collect();
    let full_at: Option<u16> = u.arbitrary().unwrap_or_default();
    let mut recs = Vec::new();
    while !u.is_empty() && recs.len() < MAX_PACKETS {
        let now = SimTime(u.arbitrary().unwrap_or_default());
        recs.push((now, packet(&mut u)));
    }

    let mut w = PcapWriter::new(Vec::new(), PathBuf::from("fuzz.pcap"), &rwnd);
    w.enable_log();
    for (t, p) in &recs {
        w.record(*t, p);
    }
    w.finish();
    assert_eq!(w.error(), None);
    assert_eq!(w.records(), recs.len() as u64);
    assert_eq!(w.log().map(<[_]>::len), Some(recs.len()));
    let file = w.get_ref().clone();
    let ends = verify(&file, &recs, &rwnd);

    if let Some(cap) = full_at {
        let cap = cap as usize;
        let mut w = PcapWriter::new(
            Full {
                buf: Vec::new(),
                cap,
            },
            PathBuf::from("full.pcap"),
            &rwnd,
        );
        for (t, p) in &recs {
            w.record(*t, p);
        }
        w.finish();
        let got = &w.get_ref().buf;
        assert_eq!(got[..], file[..cap.min(file.len())], "a prefix of the file");
        assert_eq!(w.error().is_some(), cap < file.len(), "error iff full");
        let whole = if cap < FILE_HEADER_LEN {
            0
        } else {
            ends.iter().take_while(|&&e| e <= cap).count()
        };
        assert_eq!(w.records(), whole as u64, "records written whole");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_of_the_file_is_checked() {
        // A data segment, an ack and a UDP datagram: flipping any bit of the file they
        // make must fail the check, so the property covers every byte written.
        let mut d = Packet {
            flow: FlowId(1),
            src: NodeId(0),
            dst: NodeId(2),
            kind: PacketKind::Data,
            flags: flags::ECT,
            size: 1500,
            len: 1460,
            seq: 5000,
            ack: 0,
            ts: SimTime(1_000_000_000),
            rx_time: SimTime::ZERO,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
            sack_len2: 0,
            wnd: 0,
        };
        let mut a = d;
        a.kind = PacketKind::Ack;
        a.flags = flags::ECE;
        a.ack = 6460;
        a.rx_time = SimTime(7_000_000_000);
        d.flags |= flags::CWR;
        let mut g = d;
        g.flags = flags::UDP | flags::CE;
        let recs = [
            (SimTime(1_000_000_123_456), d),
            (SimTime(1_500_000_000_000), a),
            (SimTime(2_000_000_000_000), g),
        ];
        let rwnd = [0, 20_000];
        let mut w = PcapWriter::new(Vec::new(), PathBuf::from("t.pcap"), &rwnd);
        for (t, p) in &recs {
            w.record(*t, p);
        }
        w.finish();
        let file = w.get_ref().clone();
        verify(&file, &recs, &rwnd);
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let unchecked: Vec<(usize, u8)> = (0..file.len())
            .flat_map(|i| (0..8).map(move |b| (i, b)))
            .filter(|&(i, b)| {
                let mut f = file.clone();
                f[i] ^= 1 << b;
                std::panic::catch_unwind(|| verify(&f, &recs, &rwnd)).is_ok()
            })
            .collect();
        std::panic::set_hook(quiet);
        assert!(
            unchecked.is_empty(),
            "bits no check looks at: {unchecked:?}"
        );
    }
}

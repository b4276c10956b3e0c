//! Packet traces: a classic libpcap file per captured link direction.
//!
//! The simulator's packets carry no bytes, so each record is a **synthesized wire image**:
//! an IPv4 header and a TCP header as long as the packet's simulated header (40 bytes by
//! default; 52 and more carry the timestamps option; [`tcp_header_len`]), built from the
//! packet's fields. Only these headers are stored; the IPv4 total length and the record's
//! original length are the packet's simulated size, so readers
//! (Wireshark/tshark, tcptrace, scapy, dpkt) see the right TCP payload length and follow
//! the sequence space exactly. The mapping (documented in `docs/outputs.md`):
//!
//! - file: libpcap 2.4, magic `0xa1b23c4d` (nanosecond timestamps), link type
//!   `LINKTYPE_RAW` (101: each record starts with the IPv4 header), snaplen 80, little-endian;
//! - record time: the simulated time the packet **starts transmission** on the link
//!   direction (a capture on the sending interface), in ns since t = 0, written as
//!   seconds since the Unix epoch (t = 0 is 1970-01-01T00:00:00Z); picoseconds are truncated;
//! - IPv4: addresses `10.a.b.c` with `a.b.c` = node id + 1 as 24 bits (node ids follow the
//!   sorted node names: the first node is 10.0.0.1); protocol 6; TTL 64; DF; DSCP 0; ECN
//!   field ECT(0) when the packet has `flags::ECT`, CE (0b11) when it has `flags::CE`;
//!   total length = the simulated on-the-wire size (`payload + header` for data,
//!   `ack_size` for acks, from the flow's configuration; a header below 40 bytes, above 80
//!   or not a multiple of 4 is written at the closest length below it that IPv4 + TCP can
//!   have, 40 at least);
//!   identification = the record's number in the file mod 2^16 (distinct for consecutive
//!   packets, as a real sender's counter; tcptrace takes equal sequence number *and*
//!   identification for a hardware duplicate); correct checksum;
//! - TCP: sender port `10000 + flow id` (flow ids follow the sorted flow names), receiver
//!   port 5001; data segments go sender → receiver with seq = ([`SENDER_ISN`] + simulated
//!   seq) mod 2^32 and ack = [`RECEIVER_ISN`] (the receiver sends no data); acks go
//!   receiver → sender with seq = [`RECEIVER_ISN`] and ack = ([`SENDER_ISN`] + simulated
//!   ack) mod 2^32; flags ACK always, plus ECE / CWR from the packet's flags and FIN on a
//!   transfer's last segment (`fin = true`; it takes no sequence number here); window =
//!   65535 from the sender, min(receiver window, 65535) from the receiver (no window scale:
//!   no SYN is synthesized); options (headers of 52 bytes and more; NOPs pad the rest) NOP,
//!   NOP, timestamps (kind 8): data TSval = the time the
//!   sender sent the segment (`Packet::ts`), TSecr = 0; ack TSval = the time the
//!   acknowledged segment reached the receiver (`Packet::rx_time`, on the receiver's clock:
//!   shifted by the flow's `receiver_clock_offset`), TSecr = the echoed data timestamp
//!   (`Packet::ts`); both in **microseconds** of simulated time mod 2^32;
//!   checksum computed as if the payload were all zero bytes.
//! - UDP datagrams (`flags::UDP`, from `transport = "udp"` flows): IPv4 protocol 17 and an
//!   8-byte UDP header instead (capture length 28, total length = 28 + payload): ports as
//!   for TCP data (sender `10000 + flow id` → 5001), length = 8 + payload, checksum as if
//!   the payload were zero bytes. The datagram's sequence number is not on the wire. An
//!   `echo = true` flow's echoes go back 5001 → `10000 + flow id`, the datagram's size.
//!
//! Writing never panics: the first I/O error is remembered, later records are skipped, and
//! the run's summary reports it (see [`PcapWriter::error`]). Records are built in a fixed
//! array and written through a `BufWriter`: no allocation per packet.

use crate::event::{FlowId, NodeId};
use crate::packet::{flags, Packet, PacketKind};
use crate::time::{SimTime, PS_PER_NS, PS_PER_US};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Sequence number (mod 2^32) of the sender's simulated byte 0. Chosen 1 MiB below 2^32,
/// so every capture of more than a MiB of data exercises the wrap-around.
pub const SENDER_ISN: u32 = 0xFFF0_0000;
/// Sequence number the receiver's (data-less) segments carry.
pub const RECEIVER_ISN: u32 = 0x0010_0000;
/// TCP port of every flow's receiver.
pub const RECEIVER_PORT: u16 = 5001;
/// A flow's sender port is `SENDER_PORT_BASE + flow id` (mod 55,536 flows).
pub const SENDER_PORT_BASE: u16 = 10000;
/// `LINKTYPE_RAW`: records begin with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
/// Nanosecond-resolution libpcap magic.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// Most synthesized header bytes per record: IPv4 (20) + TCP (20) + 40 bytes of options
/// (also the file's snaplen).
pub const HEADER_LEN: usize = 80;
/// Bytes of the largest record: the 16-byte record header and the synthesized headers.
pub const RECORD_LEN: usize = 16 + HEADER_LEN;

/// The IPv4 + TCP header bytes a TCP packet's record carries: its simulated header (`size`
/// less the payload of a data segment; an ack's whole `size`), so the frame is as long on
/// the wire as the simulated packet. A header of 52 bytes or more carries the timestamps
/// option; one that IPv4 + TCP cannot have exactly (below 40 or above 80 bytes, or not a
/// multiple of 4) is written at the closest length below it that they can (40 at least).
#[inline]
pub fn tcp_header_len(p: &Packet) -> usize {
    let payload = if p.kind == PacketKind::Data { p.len } else { 0 };
    let h = p.size.saturating_sub(payload) as usize;
    (h.saturating_sub(20) & !3).clamp(20, 60) + 20
}
/// Bytes of the file header.
pub const FILE_HEADER_LEN: usize = 24;

/// The IPv4 address of node `n`: 10.a.b.c with a.b.c = n + 1.
pub fn node_addr(n: NodeId) -> [u8; 4] {
    let k = (n.0 as u64 + 1) & 0xFF_FFFF;
    [10, (k >> 16) as u8, (k >> 8) as u8, k as u8]
}

/// The TCP port of flow `f`'s sender.
pub fn sender_port(f: FlowId) -> u16 {
    SENDER_PORT_BASE + (f.0 % (u16::MAX as u32 + 1 - SENDER_PORT_BASE as u32)) as u16
}

/// A 32-bit TCP sequence number: `(isn + seq) mod 2^32`.
#[inline]
pub fn wire_seq(isn: u32, seq: u64) -> u32 {
    isn.wrapping_add(seq as u32)
}

/// Microseconds of simulated time mod 2^32 (a TSval / TSecr). Read as signed, so a receiver
/// clock behind simulated time (a negative `receiver_clock_offset`, wrapping below zero)
/// still counts on mod 2^32.
#[inline]
fn ts_us(t: SimTime) -> u32 {
    (t.0 as i64).div_euclid(PS_PER_US as i64) as u32
}

/// One's-complement sum of big-endian 16-bit words, not yet folded.
#[inline]
fn sum16(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum()
}

#[inline]
fn fold(mut s: u32) -> u16 {
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// The Internet checksum of `bytes` (RFC 1071).
pub fn checksum(bytes: &[u8]) -> u16 {
    fold(sum16(bytes))
}

/// The libpcap file header.
pub fn file_header() -> [u8; FILE_HEADER_LEN] {
    let mut h = [0u8; FILE_HEADER_LEN];
    h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone = 0, sigfigs = 0
    h[16..20].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    h
}

/// Synthesized header bytes of a UDP datagram's record: IPv4 (20) + UDP (8).
pub const UDP_HEADER_LEN: usize = 28;

/// Build one record (record header + IPv4 + TCP or UDP header) for `p` starting
/// transmission at `now`; returns the record's length (`RECORD_LEN`, or `16 +
/// UDP_HEADER_LEN` for a UDP datagram). `rwnd` is the window the flow's receiver
/// advertises, `ip_id` the IPv4 identification.
pub fn encode(
    buf: &mut [u8; RECORD_LEN],
    now: SimTime,
    p: &Packet,
    rwnd: u16,
    ip_id: u16,
) -> usize {
    let data = p.kind == PacketKind::Data;
    let udp = p.has(flags::UDP);
    let hdr = if udp {
        UDP_HEADER_LEN
    } else {
        tcp_header_len(p)
    };
    // A UDP echo (ack kind) carries its datagram's payload back.
    let payload = if data || udp { p.len as usize } else { 0 };
    let total = (hdr + payload).min(u16::MAX as usize) as u16;

    // Record header: seconds, nanoseconds, captured length, original length.
    let ns = now.0 / PS_PER_NS;
    buf[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
    buf[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
    buf[8..12].copy_from_slice(&(hdr as u32).to_le_bytes());
    buf[12..16].copy_from_slice(&(total as u32).to_le_bytes());

    // IPv4.
    let ecn = if p.has(flags::CE) {
        0b11
    } else if p.has(flags::ECT) {
        0b10
    } else {
        0
    };
    let (src, dst) = (node_addr(p.src), node_addr(p.dst));
    let ip = &mut buf[16..36];
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF, offset 0
    ip[8] = 64;
    ip[9] = if udp { 17 } else { 6 };
    ip[10..12].copy_from_slice(&[0, 0]);
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = checksum(ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());

    if udp {
        let len = total - 20;
        let h = &mut buf[36..36 + 8];
        let (sport, dport) = if data {
            (sender_port(p.flow), RECEIVER_PORT)
        } else {
            (RECEIVER_PORT, sender_port(p.flow))
        };
        h[0..2].copy_from_slice(&sport.to_be_bytes());
        h[2..4].copy_from_slice(&dport.to_be_bytes());
        h[4..6].copy_from_slice(&len.to_be_bytes());
        h[6..8].copy_from_slice(&[0, 0]);
        let c = fold(sum16(&src) + sum16(&dst) + 17 + len as u32 + sum16(h));
        // 0 means "no checksum" in UDP; a computed 0 is sent as 0xFFFF (RFC 768).
        let c = if c == 0 { 0xFFFF } else { c };
        h[6..8].copy_from_slice(&c.to_be_bytes());
        return 16 + UDP_HEADER_LEN;
    }

    // TCP.
    let (sport, dport, seq, ack, tsval, tsecr, win) = if data {
        (
            sender_port(p.flow),
            RECEIVER_PORT,
            wire_seq(SENDER_ISN, p.seq),
            RECEIVER_ISN,
            ts_us(p.ts),
            0,
            u16::MAX,
        )
    } else {
        (
            RECEIVER_PORT,
            sender_port(p.flow),
            RECEIVER_ISN,
            wire_seq(SENDER_ISN, p.ack),
            ts_us(p.rx_time),
            ts_us(p.ts),
            rwnd,
        )
    };
    let mut tcp_flags = 0x10u8; // ACK
    if p.has(flags::ECE) {
        tcp_flags |= 0x40;
    }
    if p.has(flags::CWR) {
        tcp_flags |= 0x80;
    }
    if p.kind == PacketKind::Data && p.has(flags::FIN) {
        tcp_flags |= 0x01;
    }
    let tcp = &mut buf[36..16 + hdr];
    tcp[0..2].copy_from_slice(&sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&dport.to_be_bytes());
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = (((hdr - 20) / 4) << 4) as u8; // data offset in 32-bit words
    tcp[13] = tcp_flags;
    tcp[14..16].copy_from_slice(&win.to_be_bytes());
    tcp[16..20].copy_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    if hdr >= 52 {
        tcp[20..24].copy_from_slice(&[1, 1, 8, 10]); // NOP, NOP, kind 8, length 10
        tcp[24..28].copy_from_slice(&tsval.to_be_bytes());
        tcp[28..32].copy_from_slice(&tsecr.to_be_bytes());
        tcp[32..].fill(1); // NOPs up to the simulated header's length
    } else {
        tcp[20..].fill(1);
    }
    // Pseudo-header + TCP header; the (absent) payload counts as zero bytes.
    let tcp_len = total as u32 - 20;
    let pseudo = sum16(&src) + sum16(&dst) + 6 + tcp_len;
    let c = fold(pseudo + sum16(tcp));
    tcp[16..18].copy_from_slice(&c.to_be_bytes());
    16 + hdr
}

/// Writes one link direction's packets to a pcap file.
///
/// A file writer ([`PcapWriter::create`]) writes into a temporary file next to `path`
/// (`.NAME.tmp-PID`) and renames it to `path` in [`PcapWriter::finish`]: a run killed or
/// interrupted before its end, or a write error (disk full), never leaves a truncated
/// file at `path` (an earlier complete file stays). A writer dropped unfinished removes its
/// temporary file.
pub struct PcapWriter<W: Write = BufWriter<File>> {
    out: W,
    path: PathBuf,
    /// The temporary file being written (file writers only), renamed to `path` by `finish`.
    tmp: Option<PathBuf>,
    buf: [u8; RECORD_LEN],
    /// Receiver window per flow id (what acks advertise).
    rwnd: Vec<u16>,
    records: u64,
    error: Option<String>,
    /// When enabled, every recorded packet with its time, as the simulation had it (a test
    /// and debugging aid: grows with the packet count).
    log: Option<Vec<(SimTime, Packet)>>,
}

impl PcapWriter<BufWriter<File>> {
    /// Create (or truncate) `path` and write the file header. `rwnd[f]` is the receiver
    /// window of flow `f` in bytes.
    /// The records go to a temporary file in the same directory until [`PcapWriter::finish`]
    /// (unless `path` exists and is not a regular file, e.g. a FIFO or a device: that is
    /// written directly).
    pub fn create(path: &Path, rwnd: &[u64]) -> io::Result<Self> {
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        let tmp = (!special).then(|| temp_path(path));
        let f = File::create(tmp.as_deref().unwrap_or(path))?;
        let mut w = Self::new(
            BufWriter::with_capacity(64 * 1024, f),
            path.to_path_buf(),
            rwnd,
        );
        w.tmp = tmp;
        Ok(w)
    }
}

/// `.NAME.tmp-PID` next to `path`.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

impl<W: Write> Drop for PcapWriter<W> {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

impl<W: Write> PcapWriter<W> {
    /// Wrap any writer (tests use a `Vec<u8>`); writes the file header.
    pub fn new(out: W, path: PathBuf, rwnd: &[u64]) -> Self {
        let mut w = PcapWriter {
            out,
            path,
            tmp: None,
            buf: [0; RECORD_LEN],
            rwnd: rwnd
                .iter()
                .map(|&r| r.min(u16::MAX as u64) as u16)
                .collect(),
            records: 0,
            error: None,
            log: None,
        };
        let h = file_header();
        w.write(&h);
        w
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e.to_string());
            }
        }
    }

    /// Keep every recorded packet in memory too (see [`PcapWriter::log`]).
    pub fn enable_log(&mut self) {
        self.log = Some(Vec::new());
    }

    /// Record `p`, which starts transmission at `now`.
    #[inline]
    pub fn record(&mut self, now: SimTime, p: &Packet) {
        if let Some(log) = &mut self.log {
            log.push((now, *p));
        }
        if self.error.is_some() {
            return;
        }
        let rwnd = self.rwnd.get(p.flow.index()).copied().unwrap_or(u16::MAX);
        let n = encode(&mut self.buf, now, p, rwnd, self.records as u16);
        if let Err(e) = self.out.write_all(&self.buf[..n]) {
            self.error = Some(e.to_string());
            return;
        }
        self.records += 1;
    }

    /// Flush buffered records (at the end of the run) and, for a file writer, move the
    /// temporary file to the final path. After an error the temporary file is removed and
    /// the final path is left as it was.
    pub fn finish(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e.to_string());
            }
        }
        if let Some(tmp) = self.tmp.take() {
            if self.error.is_none() {
                if let Err(e) = std::fs::rename(&tmp, &self.path) {
                    self.error = Some(e.to_string());
                }
            }
            if self.error.is_some() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records handed to the writer without error.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The first I/O error, if any (later records were skipped).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The packets recorded, when [`PcapWriter::enable_log`] was called.
    pub fn log(&self) -> Option<&[(SimTime, Packet)]> {
        self.log.as_deref()
    }

    /// The underlying writer (tests).
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn data(flow: u32, seq: u64, len: u32) -> Packet {
        // 52-byte headers: IPv4, TCP and the timestamps option, as the "linux" profile.
        let mut p = Packet::test(FlowId(flow), PacketKind::Data, len + 52);
        p.src = NodeId(0);
        p.dst = NodeId(2);
        p.seq = seq;
        p.len = len;
        p.ts = SimTime(1_234_567_000_000); // 1.234567 s
        p
    }

    fn ack(flow: u32, ack: u64) -> Packet {
        let mut p = Packet::test(FlowId(flow), PacketKind::Ack, 52);
        p.src = NodeId(2);
        p.dst = NodeId(0);
        p.ack = ack;
        p.ts = SimTime(1_000_000_000_000);
        p.rx_time = SimTime(1_500_000_000_000);
        p
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

    #[test]
    fn checksum_matches_rfc1071_example() {
        // RFC 1071 §3's example words sum to 0xddf2; the checksum is its complement.
        let b = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(checksum(&b), !0xddf2);
        // A well-known IPv4 header (Wikipedia's example) has checksum 0xb861.
        let mut h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&h), 0xb861);
        h[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(checksum(&h), 0, "a header with its checksum sums to 0xffff");
    }

    #[test]
    fn timestamps_before_zero_wrap_mod_2_32() {
        // A receiver clock 1 µs behind time 0 (receiver_clock_offset = "-1us").
        assert_eq!(ts_us(SimTime((-1_000_000i64) as u64)), u32::MAX);
        assert_eq!(
            ts_us(SimTime((-1i64) as u64)),
            u32::MAX,
            "floor, not toward 0"
        );
        assert_eq!(ts_us(SimTime(2_500_000)), 2);
    }

    #[test]
    fn file_header_layout() {
        let h = file_header();
        assert_eq!(&h[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&h[4..8], &[2, 0, 4, 0]);
        assert_eq!(&h[8..16], &[0; 8]);
        assert_eq!(le32(&h[16..20]), 80, "snaplen: the longest header");
        assert_eq!(le32(&h[20..24]), 101);
    }

    #[test]
    fn udp_record_layout() {
        let mut b = [0u8; RECORD_LEN];
        let mut p = data(2, 17, 1000);
        p.flags = flags::UDP;
        let n = encode(&mut b, SimTime(1_000_000_000_000), &p, 0, 9);
        assert_eq!(n, 16 + 28);
        assert_eq!(le32(&b[8..12]), 28, "caplen: IPv4 + UDP");
        assert_eq!(le32(&b[12..16]), 1028);
        let ip = &b[16..36];
        assert_eq!(be16(&ip[2..4]), 1028);
        assert_eq!(ip[9], 17, "protocol UDP");
        assert_eq!(checksum(ip), 0);
        let udp = &b[36..44];
        assert_eq!(be16(&udp[0..2]), 10002);
        assert_eq!(be16(&udp[2..4]), 5001);
        assert_eq!(be16(&udp[4..6]), 1008);
        // Pseudo-header + UDP header (+ zero payload) sums to 0xffff.
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&ip[12..20]);
        pseudo.extend_from_slice(&[0, 17]);
        pseudo.extend_from_slice(&1008u16.to_be_bytes());
        pseudo.extend_from_slice(udp);
        assert_eq!(checksum(&pseudo), 0, "valid UDP checksum");
    }

    #[test]
    fn udp_echo_is_the_datagram_back() {
        // An `echo = true` flow's echo: ack kind, the datagram's size and payload, ports
        // reversed, so the frame length is the simulated wire size (issue 31 §2).
        let mut b = [0u8; RECORD_LEN];
        let mut d = data(2, 17, 64);
        d.flags = flags::UDP;
        d.size = 92;
        let e = crate::udp::UdpReceiver::new(true).echo_of(SimTime(2_000_000_000_000), &d);
        encode(&mut b, SimTime(2_000_000_000_000), &e, 0, 9);
        assert_eq!(le32(&b[12..16]), 92, "orig length = wire size");
        let ip = &b[16..36];
        assert_eq!((be16(&ip[2..4]), ip[9]), (92, 17));
        let udp = &b[36..44];
        assert_eq!(
            (be16(&udp[0..2]), be16(&udp[2..4]), be16(&udp[4..6])),
            (5001, 10002, 72)
        );
    }

    #[test]
    fn data_record_layout() {
        let mut b = [0u8; RECORD_LEN];
        let mut p = data(3, 5000, 1460);
        p.flags = flags::ECT | flags::CWR;
        let now = SimTime(2_000_000_123_456); // 2.000000123456 s
        encode(&mut b, now, &p, 1000, 7);
        // Record header: 2 s, 123 ns (picoseconds truncated), caplen 52, orig 52 + 1460.
        assert_eq!(le32(&b[0..4]), 2);
        assert_eq!(le32(&b[4..8]), 123);
        assert_eq!(le32(&b[8..12]), 52);
        assert_eq!(le32(&b[12..16]), 1512);
        let ip = &b[16..36];
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[1], 0b10, "ECT(0)");
        assert_eq!(be16(&ip[2..4]), 1512);
        assert_eq!(be16(&ip[4..6]), 7, "identification as given");
        assert_eq!(be16(&ip[6..8]), 0x4000);
        assert_eq!((ip[8], ip[9]), (64, 6));
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 3]);
        assert_eq!(checksum(ip), 0, "valid IPv4 header checksum");
        let tcp = &b[36..];
        assert_eq!(be16(&tcp[0..2]), 10003);
        assert_eq!(be16(&tcp[2..4]), 5001);
        assert_eq!(be32(&tcp[4..8]), SENDER_ISN.wrapping_add(5000));
        assert_eq!(be32(&tcp[8..12]), RECEIVER_ISN);
        assert_eq!(tcp[12], 0x80);
        assert_eq!(tcp[13], 0x10 | 0x80, "ACK + CWR");
        assert_eq!(be16(&tcp[14..16]), 65535);
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!(be32(&tcp[24..28]), 1_234_567, "TSval in µs");
        assert_eq!(be32(&tcp[28..32]), 0);
        // TCP checksum over pseudo-header + header + 1460 zero bytes.
        let mut seg = tcp.to_vec();
        seg.resize(32 + 1460, 0);
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&ip[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&((32 + 1460) as u16).to_be_bytes());
        pseudo.extend_from_slice(&seg);
        assert_eq!(checksum(&pseudo), 0, "valid TCP checksum");
    }

    #[test]
    fn ack_record_layout_and_ecn() {
        let mut b = [0u8; RECORD_LEN];
        let mut p = ack(0, 1460);
        p.flags = flags::ECE;
        encode(&mut b, SimTime(0), &p, 8192, 8);
        assert_eq!(le32(&b[12..16]), 52);
        let ip = &b[16..36];
        assert_eq!(ip[1], 0);
        assert_eq!(be16(&ip[2..4]), 52);
        assert_eq!(be16(&ip[4..6]), 8);
        assert_eq!(&ip[12..16], &[10, 0, 0, 3]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 1]);
        assert_eq!(checksum(ip), 0);
        let tcp = &b[36..];
        assert_eq!(be16(&tcp[0..2]), 5001);
        assert_eq!(be16(&tcp[2..4]), 10000);
        assert_eq!(be32(&tcp[4..8]), RECEIVER_ISN);
        assert_eq!(be32(&tcp[8..12]), SENDER_ISN.wrapping_add(1460));
        assert_eq!(tcp[13], 0x10 | 0x40, "ACK + ECE");
        assert_eq!(be16(&tcp[14..16]), 8192);
        assert_eq!(
            be32(&tcp[24..28]),
            1_500_000,
            "TSval: when the segment arrived"
        );
        assert_eq!(
            be32(&tcp[28..32]),
            1_000_000,
            "TSecr: the echoed data timestamp"
        );
        // CE marks the IP ECN field 0b11.
        let mut d = data(0, 0, 100);
        d.flags = flags::ECT | flags::CE;
        encode(&mut b, SimTime(0), &d, 0, 0);
        assert_eq!(b[17] & 0b11, 0b11);
        assert_eq!(checksum(&b[16..36]), 0);
    }

    /// The frame is as long as the simulated packet (issue 31: 40-byte headers were written
    /// with a 12-byte timestamps option, so tshark measured 50.4 Mb/s on a 50 Mb/s link).
    #[test]
    fn frame_length_is_the_simulated_size() {
        let mut b = [0u8; RECORD_LEN];
        for (header, caplen, offset, ts) in [
            (40u32, 40, 0x50, false),
            (52, 52, 0x80, true),
            (60, 60, 0xa0, true),
            (44, 44, 0x60, false),
        ] {
            let mut p = data(1, 0, 1000);
            p.size = 1000 + header;
            let n = encode(&mut b, SimTime(0), &p, 0, 0);
            assert_eq!(n, 16 + caplen, "header {header}");
            assert_eq!(le32(&b[8..12]) as usize, caplen);
            assert_eq!(
                le32(&b[12..16]),
                1000 + header,
                "original length = simulated size"
            );
            assert_eq!(be16(&b[18..20]) as u32, 1000 + header, "IPv4 total length");
            let tcp = &b[36..16 + caplen];
            assert_eq!(tcp[12], offset, "data offset");
            assert_eq!(
                tcp.get(20..24) == Some(&[1, 1, 8, 10][..]),
                ts,
                "timestamps option iff it fits"
            );
            // Valid TCP checksum over the pseudo-header, the header and zero payload.
            let mut pseudo = Vec::new();
            pseudo.extend_from_slice(&b[28..36]);
            pseudo.extend_from_slice(&[0, 6]);
            pseudo.extend_from_slice(&((caplen - 20 + 1000) as u16).to_be_bytes());
            pseudo.extend_from_slice(tcp);
            assert_eq!(checksum(&pseudo), 0, "header {header}");
        }
        // An ack of the default 40 bytes, and a compressed 28-byte one (below what IPv4 +
        // TCP can be: written at 40).
        for (size, frame) in [(40, 40), (28, 40), (57, 56)] {
            let mut p = ack(0, 1460);
            p.size = size;
            assert_eq!(encode(&mut b, SimTime(0), &p, 0, 0), 16 + frame as usize);
            assert_eq!(le32(&b[12..16]), frame);
        }
    }

    #[test]
    fn seq_wraps_mod_2_32() {
        let wrap = (1u64 << 32) - SENDER_ISN as u64; // sim seq where the wire seq wraps
        assert_eq!(wire_seq(SENDER_ISN, wrap - 1), u32::MAX);
        assert_eq!(wire_seq(SENDER_ISN, wrap), 0);
        assert_eq!(wire_seq(SENDER_ISN, wrap + 7), 7);
        assert_eq!(wire_seq(SENDER_ISN, (5u64 << 32) + 9), SENDER_ISN + 9);
        let mut b = [0u8; RECORD_LEN];
        encode(&mut b, SimTime(0), &data(0, wrap + 1460, 1460), 0, 0);
        assert_eq!(be32(&b[40..44]), 1460);
        encode(&mut b, SimTime(0), &ack(0, (3u64 << 32) + wrap + 5), 0, 0);
        assert_eq!(be32(&b[44..48]), 5);
    }

    #[test]
    fn addresses_and_ports() {
        assert_eq!(node_addr(NodeId(0)), [10, 0, 0, 1]);
        assert_eq!(node_addr(NodeId(255)), [10, 0, 1, 0]);
        assert_eq!(node_addr(NodeId(70_000)), [10, 1, 17, 113]);
        assert_eq!(sender_port(FlowId(0)), 10000);
        assert_eq!(sender_port(FlowId(55_535)), 65535);
        assert_eq!(sender_port(FlowId(55_536)), 10000);
    }

    #[test]
    fn writer_appends_records_and_is_deterministic() {
        let run = || {
            let mut w = PcapWriter::new(Vec::new(), PathBuf::from("t.pcap"), &[1 << 30]);
            w.enable_log();
            let mut t = SimTime(0);
            for i in 0..5u64 {
                w.record(t, &data(0, i * 1460, 1460));
                w.record(t, &ack(0, i * 1460));
                t += SimDuration::from_us(120);
            }
            w.finish();
            assert_eq!(w.records(), 10);
            assert_eq!(w.log().unwrap().len(), 10);
            assert!(w.error().is_none());
            w.get_ref().clone()
        };
        let bytes = run();
        // 52-byte headers: 68 bytes a record.
        assert_eq!(bytes.len(), FILE_HEADER_LEN + 10 * 68);
        assert_eq!(bytes, run());
        // Receiver window capped at 65535 without window scaling.
        let ack1 = &bytes[FILE_HEADER_LEN + 68..][..68];
        assert_eq!(be16(&ack1[50..52]), 65535);
    }

    /// A writer that fails after `ok` bytes.
    struct Failing {
        ok: usize,
    }
    impl Write for Failing {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.ok < b.len() {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            self.ok -= b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn io_errors_are_remembered_not_raised() {
        let mut w = PcapWriter::new(
            Failing {
                ok: FILE_HEADER_LEN + 2 * 68,
            },
            PathBuf::from("full.pcap"),
            &[],
        );
        for i in 0..5 {
            w.record(SimTime(i), &data(0, 0, 10));
        }
        w.finish();
        assert_eq!(w.records(), 2);
        assert_eq!(w.error(), Some("disk full"));
    }

    #[test]
    fn dev_full_reports_the_error_at_finish() {
        let p = Path::new("/dev/full");
        if !p.exists() {
            return;
        }
        let mut w = PcapWriter::create(p, &[]).unwrap();
        for i in 0..10 {
            w.record(SimTime(i), &data(0, 0, 10));
        }
        assert!(w.error().is_none(), "buffered so far");
        w.finish();
        assert!(
            w.error().unwrap().contains("No space left"),
            "{:?}",
            w.error()
        );
    }

    #[test]
    fn file_appears_complete_at_finish_or_not_at_all() {
        let dir = std::env::temp_dir().join(format!("tcplab-pcap-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.pcap");
        let tmp = temp_path(&path);
        // Unfinished (an interrupted run): the temporary file goes, nothing appears.
        let mut w = PcapWriter::create(&path, &[65535]).unwrap();
        w.record(SimTime(1), &data(0, 0, 1000));
        assert!(tmp.exists() && !path.exists());
        drop(w);
        assert!(!tmp.exists() && !path.exists());
        // Finished: the complete file is renamed into place.
        let mut w = PcapWriter::create(&path, &[65535]).unwrap();
        w.record(SimTime(1), &data(0, 0, 1000));
        w.record(SimTime(2), &data(0, 1000, 1000));
        w.finish();
        assert!(w.error().is_none(), "{:?}", w.error());
        drop(w);
        assert!(!tmp.exists());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 24 + 2 * (16 + 52));
        // A later unfinished writer leaves the earlier complete file untouched.
        let mut w = PcapWriter::create(&path, &[65535]).unwrap();
        w.record(SimTime(1), &data(0, 0, 1000));
        drop(w);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 24 + 2 * (16 + 52));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

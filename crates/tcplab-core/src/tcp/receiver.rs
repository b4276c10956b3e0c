//! The receiving side of a connection.
//!
//! Cumulative acks; out-of-order data is buffered as byte ranges (a sorted vector whose
//! length is the number of holes, not the window). Every segment is acked at once by default
//! (P0: "For each data segment received, an ack is generated immediately"). With delayed
//! acks (RFC 5681 §4.2) an ack goes out for every second in-order segment or when the timer
//! fires; out-of-order, duplicate and hole-filling segments are acked at once.
//!
//! **Quick-ack mode** (`with_quickack`, Linux's `tcp_incr_quickack` from
//! `tcp_event_data_recv`): with delayed acks on, the first `q` segments of the connection,
//! and the first `q` after a gap in arrivals longer than `idle`, are each acked at once;
//! `q = min(quickack, max(2, window / (2·MSS)))` (Linux: `rcv_wnd / (2·rcv_mss)`, at most
//! `TCP_MAX_QUICKACKS` = 16), and every ack sent uses one up. Linux's other ways into
//! quick-ack mode (an out-of-window or duplicate segment, a change of CE marking) and its
//! adaptive delayed-ack timeout are not modelled.
//!
//! Each ack echoes the triggering segment's send time and retransmission flag (for the
//! sender's RTT sample and Karn's rule), CE marks as ECE ([`EcnEcho`]: latched until CWR
//! as RFC 3168 §6.1.3, or one ECE per mark), and the congestion-control header (XCP
//! feedback). It also carries two receiver timestamps (seed 001's ALT scheme, Vegas-ALT and
//! FAST-ALT), read on the receiver's own clock (simulated time plus the flow's
//! `receiver_clock_offset`, two's-complement wrapping, so only differences mean anything):
//! the arriving time AT of the segment the ack echoes (`Packet::rx_time`) and the leaving
//! time LT, stamped when the receiver hands the ack to its host's outgoing queue
//! (`Packet::tx_start` of the ack; queueing inside the receiving host therefore counts as
//! backward delay, our reading of seed 001's LT).
//!
//! **SACK** (RFC 2018, with `with_sack`): every ack sent while out-of-order data is held
//! carries up to [`SACK_BLOCKS`] blocks. The first is the held range containing the segment
//! that triggered the ack (§4: "the first SACK block MUST specify the contiguous block of
//! data containing the segment which triggered this ACK, unless that segment advanced the
//! Acknowledgment Number"); the others repeat the most recently reported ranges, most recent
//! first, skipping any now covered by the first block or by the cumulative ack. A segment
//! that brought no new byte is reported in a D-SACK block first (RFC 2883 §4: the
//! duplicate's own range, then the held range containing it if any). Cost per ack:
//! O(log h) for h held ranges (binary searches), never O(window).
//!
//! **Playback buffer** (`playback_rwnd_cap`, [`TcpReceiver::with_playback`]): the
//! application keeps a buffer of `B` bytes and reads up to `R` of them every `T` (at `T`,
//! `2T`, … of simulated time, the same instants as `tcplab.metrics.playback_success`'s
//! reads when `metrics.interval = T`). Data delivered in order and not read yet fills it;
//! every ack advertises its free space, `B − (rcv_nxt − read)`, as the receive window
//! (RFC 9293 §3.8.6.2: the right edge `read + B` never moves left), in `Packet::wnd` scaled
//! by RFC 7323's shift (the smallest that fits `B` in 16 bits; the window is rounded down to
//! a multiple of `2^scale`). A read that takes any byte sends a window update at once (the
//! held delayed ack, if any, or a pure ack of `rcv_nxt`; RFC 9293 §3.8.6.2.2 would wait for
//! the window to grow by min(B/2, MSS), which every read of a whole segment does).
//! Out-of-order data lies inside the window the sender was given and does not count against
//! the buffer. A read costs O(1).

use crate::packet::{flags, CcHeader, Packet, PacketKind, SackFields, SACK_BLOCKS};
use crate::tcp::EcnEcho;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default)]
pub struct ReceiverStats {
    pub data_packets: u64,
    /// Data packets that brought no new bytes.
    pub duplicate_packets: u64,
    /// Wire bytes of data packets that brought new bytes (X-EFF counts these).
    pub unique_wire_bytes: u64,
    pub acks_sent: u64,
    /// Data segments that arrived with CE set.
    pub ce_received: u64,
    /// Acks sent with ECE set.
    pub ece_sent: u64,
    /// Playback buffer: reads (one per `interval`, taking 0 bytes or more) and the bytes
    /// they took.
    pub playback_reads: u64,
    pub playback_read_bytes: u64,
    /// Playback buffer: acks sent only to report a window the application's read opened.
    pub window_updates: u64,
}

/// `playback_rwnd_cap`'s reader (see the module header).
#[derive(Clone, Copy, Debug)]
struct Playback {
    buffer: u64,
    read: u64,
    interval: SimDuration,
    /// Bytes the application has read (a sequence offset: the buffer holds
    /// `[consumed, rcv_nxt)`).
    consumed: u64,
    /// The flow's ends and id, for window updates that echo no segment.
    flow: crate::ids::FlowId,
    src: crate::ids::NodeId,
    dst: crate::ids::NodeId,
}

/// What one arriving segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxOutcome {
    /// In-order bytes newly delivered to the application.
    pub delivered: u64,
    /// Wire bytes of the segment if it carried any byte not received before, else 0.
    pub unique_wire: u64,
}

pub struct TcpReceiver {
    ack_size: u32,
    delayed_ack: Option<SimDuration>,
    rcv_nxt: u64,
    /// Out-of-order ranges `[start, end)` above `rcv_nxt`, sorted and disjoint.
    ooo: VecDeque<(u64, u64)>,
    unacked: u32,
    /// The earliest unacknowledged segment, stamped with its arrival time: `Some` exactly
    /// while `unacked > 0`.
    echo: Option<Packet>,
    /// An ack for two held segments echoes the later one's send time (ns-2's sinks),
    /// not the earliest unacknowledged one's (RFC 7323 §4.3).
    latest_echo: bool,
    ecn_echo: EcnEcho,
    /// Receiver clock minus simulated time (the sender's clock), picoseconds.
    clock_offset: i64,
    /// RFC 3168: a CE mark arrived and no CWR since.
    ece_latched: bool,
    pub delack_deadline: Option<SimTime>,
    pub stats: ReceiverStats,
    /// SACK blocks on acks (RFC 2018).
    sack: bool,
    /// SACK: what the last arriving segment asks the next ack to report first.
    sack_first: SackFirst,
    /// SACK: starts of the most recently reported blocks, most recent first (0 = none: a
    /// held range always starts above `rcv_nxt` ≥ 0).
    sack_recent: [u64; SACK_BLOCKS],
    /// Quick-ack mode: acks at once left (each ack sent uses one).
    quick_left: u32,
    /// Quick acks granted at the start and after an idle gap (0 = no quick-ack mode).
    quick_max: u32,
    /// The gap in arrivals after which quick-ack mode starts again.
    quick_idle: SimDuration,
    /// Arrival time of the last data segment (quick-ack mode only).
    last_data: Option<SimTime>,
    /// The right edge of the advertised window (`u64::MAX`: no playback buffer, acks carry
    /// `wnd = 0xffff`) and its RFC 7323 scale.
    rwnd_right: u64,
    wscale: u8,
    /// Playback buffer (`playback_rwnd_cap`).
    playback: Option<Box<Playback>>,
    /// The playback reader's next read, if any.
    pub read_at: Option<SimTime>,
}

/// The first SACK block of the next ack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SackFirst {
    /// The segment advanced the cumulative ack (or there is none): only older blocks.
    None,
    /// The held range containing this sequence number.
    Held(u64),
    /// A duplicate segment `[start, end)` (D-SACK).
    Dup(u64, u64),
}

impl TcpReceiver {
    pub fn new(ack_size: u32, delayed_ack: Option<SimDuration>) -> Self {
        TcpReceiver {
            ack_size,
            delayed_ack,
            rcv_nxt: 0,
            ooo: VecDeque::new(), // grows at the first out-of-order segment (most flows never have one)
            unacked: 0,
            echo: None,
            latest_echo: false,
            ecn_echo: EcnEcho::Rfc3168,
            clock_offset: 0,
            ece_latched: false,
            delack_deadline: None,
            stats: ReceiverStats::default(),
            sack: false,
            sack_first: SackFirst::None,
            sack_recent: [0; SACK_BLOCKS],
            quick_left: 0,
            quick_max: 0,
            quick_idle: SimDuration::ZERO,
            last_data: None,
            rwnd_right: u64::MAX,
            wscale: 0,
            playback: None,
            read_at: None,
        }
    }

    /// A playback buffer whose free space is the advertised window (`playback_rwnd_cap`;
    /// see the module header). `flow`, `src` and `dst` are the flow's id and data
    /// direction (a window update goes from `dst` to `src`).
    pub fn with_playback(
        mut self,
        p: crate::tcp::PlaybackRwnd,
        flow: crate::ids::FlowId,
        src: crate::ids::NodeId,
        dst: crate::ids::NodeId,
    ) -> Self {
        self.wscale = p.scale();
        self.rwnd_right = p.buffer;
        self.read_at = Some(SimTime::ZERO + p.interval);
        self.playback = Some(Box::new(Playback {
            buffer: p.buffer,
            read: p.read,
            interval: p.interval,
            consumed: 0,
            flow,
            src,
            dst,
        }));
        self
    }

    /// The earliest of the receiver's timers: the delayed ack and the playback read.
    #[inline(always)]
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.delack_deadline, self.read_at) {
            (d, None) => d,
            (None, r) => r,
            (Some(d), Some(r)) => Some(d.min(r)),
        }
    }

    /// The receiver's timer event at `now`: the delayed ack and/or the playback read, if
    /// due.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.on_delack_timer(now, out);
        }
        if self.read_at.is_some_and(|r| r <= now) {
            self.playback_read(now, out);
        }
    }

    /// Bytes in the playback buffer (delivered in order, not read yet); 0 without one.
    pub fn playback_held(&self) -> u64 {
        self.playback
            .as_deref()
            .map_or(0, |p| self.rcv_nxt - p.consumed)
    }

    /// The window the next ack advertises, in bytes (`u64::MAX` without a playback buffer).
    pub fn advertised_window(&self) -> u64 {
        if self.rwnd_right == u64::MAX {
            return u64::MAX;
        }
        (self.wnd_field() as u64) << self.wscale
    }

    /// `wnd_field` off the common ack path (only playback flows advertise a window).
    #[cold]
    #[inline(never)]
    fn wnd_field_cold(&self) -> u16 {
        self.wnd_field()
    }

    /// The ack's window field: free space `>> scale`, at most 0xffff.
    #[inline(always)]
    fn wnd_field(&self) -> u16 {
        (self.rwnd_right.saturating_sub(self.rcv_nxt) >> self.wscale).min(0xffff) as u16
    }

    /// The playback reader takes up to `read` bytes; a read that takes any sends a window
    /// update.
    #[cold]
    #[inline(never)]
    fn playback_read(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        let Some(p) = self.playback.as_deref_mut() else {
            self.read_at = None;
            return;
        };
        let got = (self.rcv_nxt - p.consumed).min(p.read);
        p.consumed += got;
        self.rwnd_right = p.consumed + p.buffer;
        self.read_at = self.read_at.map(|t| t + p.interval);
        self.stats.playback_reads += 1;
        self.stats.playback_read_bytes += got;
        if got == 0 {
            return;
        }
        if let Some(echo) = self.echo.filter(|_| self.unacked > 0) {
            // The held delayed ack goes now, with the new window.
            self.send_ack(now, &echo, out);
            return;
        }
        self.stats.window_updates += 1;
        let (flow, src, dst) = (p.flow, p.src, p.dst);
        let at = self.clock(now);
        let seg = Packet {
            flow,
            src,
            dst,
            kind: PacketKind::Data,
            flags: 0,
            size: 0,
            len: 0,
            seq: self.rcv_nxt,
            ack: 0,
            ts: now,
            rx_time: at,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
            sack_len2: 0,
            wnd: 0,
        };
        self.send_ack(now, &seg, out);
    }

    /// Quick-ack mode (delayed acks only; see the module header): up to `quickack` segments
    /// acked at once at the start and after a gap in arrivals longer than `idle`, bounded by
    /// `window / (2·mss)` (at least 2). `quickack = 0` turns it off.
    pub fn with_quickack(
        mut self,
        quickack: u32,
        idle: SimDuration,
        window: u64,
        mss: u32,
    ) -> Self {
        self.quick_max = if quickack == 0 {
            0
        } else {
            let by_window = (window / (2 * mss.max(1) as u64)).max(2);
            quickack.min(by_window.min(u32::MAX as u64) as u32)
        };
        self.quick_idle = idle;
        self
    }

    /// Put SACK blocks (RFC 2018, D-SACK RFC 2883) on acks.
    pub fn with_sack(mut self, on: bool) -> Self {
        self.sack = on;
        self
    }

    /// The held range containing `x`, if any: O(log h).
    fn held_range(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, e)| e <= x);
        self.ooo.get(i).copied().filter(|&(s, _)| s <= x)
    }

    /// The blocks of the next ack, first to last, and whether the first is a D-SACK block.
    /// O(SACK_BLOCKS · log h).
    #[cold]
    fn sack_blocks(&mut self) -> ([(u64, u64); SACK_BLOCKS], usize, bool) {
        let mut out = [(0u64, 0u64); SACK_BLOCKS];
        let mut n = 0;
        let mut dsack = false;
        match std::mem::replace(&mut self.sack_first, SackFirst::None) {
            SackFirst::None => {}
            SackFirst::Held(x) => {
                if let Some(r) = self.held_range(x) {
                    out[0] = r;
                    n = 1;
                }
            }
            SackFirst::Dup(s, e) => {
                out[0] = (s, e);
                n = 1;
                dsack = true;
                // RFC 2883 §4 (2): then the held range containing the duplicate, if any.
                if let Some(r) = self.held_range(s.max(self.rcv_nxt)) {
                    out[1] = r;
                    n = 2;
                }
            }
        }
        // Then the most recently reported ranges still held and not reported yet.
        for k in 0..SACK_BLOCKS {
            if n == SACK_BLOCKS {
                break;
            }
            let x = self.sack_recent[k];
            if x <= self.rcv_nxt {
                continue;
            }
            if let Some(r) = self.held_range(x) {
                if !out[..n].iter().any(|&(s, e)| s <= r.0 && r.1 <= e) {
                    out[n] = r;
                    n += 1;
                }
            }
        }
        // Held ranges never reported yet (reordering): the highest one.
        if n < SACK_BLOCKS {
            if let Some(&r) = self.ooo.back() {
                if !out[..n].iter().any(|&(s, e)| s <= r.0 && r.1 <= e) {
                    out[n] = r;
                    n += 1;
                }
            }
        }
        // Remember the held ranges just reported (not the D-SACK block), most recent first,
        // then the older ones not reported this time.
        let mut recent = [0u64; SACK_BLOCKS];
        let mut m = 0;
        let first_held = usize::from(dsack);
        let reported = out[first_held..n].iter().map(|&(s, _)| s);
        for x in reported.chain(self.sack_recent) {
            if m < SACK_BLOCKS && x > self.rcv_nxt && !recent[..m].contains(&x) {
                recent[m] = x;
                m += 1;
            }
        }
        self.sack_recent = recent;
        (out, n, dsack)
    }

    /// With delayed acks, echo the send time of the segment that triggers an ack (ns-2.35's
    /// `TcpSink::ack` with `ts_echo_rfc1323_ false`), not the earliest held one's.
    pub fn with_latest_echo(mut self, on: bool) -> Self {
        self.latest_echo = on;
        self
    }

    /// Use `policy` to echo CE marks.
    pub fn with_ecn_echo(mut self, policy: EcnEcho) -> Self {
        self.ecn_echo = policy;
        self
    }

    /// Stamp AT and LT on a clock `offset_ps` picoseconds ahead of simulated time (the
    /// sender's clock); negative = behind.
    pub fn with_clock_offset(mut self, offset_ps: i64) -> Self {
        self.clock_offset = offset_ps;
        self
    }

    /// The receiver's clock at `now`, wrapping (differences of two readings, or of a reading
    /// and a sender time, are exact as signed 64-bit values).
    #[inline]
    pub fn clock(&self, now: SimTime) -> SimTime {
        SimTime(now.0.wrapping_add(self.clock_offset as u64))
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    /// Number of out-of-order ranges held.
    pub fn holes(&self) -> usize {
        self.ooo.len()
    }

    /// The out-of-order ranges held, `[start, end)` above `rcv_nxt`, in order.
    pub fn held(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ooo.iter().copied()
    }

    /// Record `[s, e)` above `rcv_nxt`; returns whether any byte was new.
    fn insert_ooo(&mut self, s: u64, e: u64) -> bool {
        // Fast path: the segment extends (or repeats part of) the last range.
        if let Some(last) = self.ooo.back_mut() {
            if last.0 <= s && s <= last.1 {
                if e <= last.1 {
                    return false;
                }
                last.1 = e;
                return true;
            }
        }
        // First range that ends at or after s.
        let i = self.ooo.partition_point(|&(_, re)| re < s);
        if i < self.ooo.len() && self.ooo[i].0 <= s && self.ooo[i].1 >= e {
            return false;
        }
        let mut ns = s;
        let mut ne = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= ne {
            ns = ns.min(self.ooo[j].0);
            ne = ne.max(self.ooo[j].1);
            j += 1;
        }
        // Replace ranges i..j by the merged one. The common cases are O(1): extending the
        // last range (in-order arrivals behind a hole), a new range at the end, and (in
        // on_data) a retransmission filling the first hole; only a new hole in the middle
        // shifts ranges.
        if j > i {
            self.ooo[i] = (ns, ne);
            if j > i + 1 {
                self.ooo.drain(i + 1..j);
            }
        } else {
            self.ooo.insert(i, (ns, ne));
        }
        true
    }

    /// A data segment arrived at `now`. Acks (if due) go to `out`.
    #[inline]
    pub fn on_data(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        out: &mut impl FnMut(Packet),
    ) -> RxOutcome {
        if pkt.len == 0 {
            return self.on_syn(now, pkt, out);
        }
        self.on_segment(now, pkt, out)
    }

    /// [`TcpReceiver::on_data`] for a segment with payload (the simulation calls it
    /// directly after its own SYN test, so that this body inlines into the event loop as it
    /// did before SYNs existed: callgrind, bench b 5 s, 2.7 M instructions less).
    pub(crate) fn on_segment(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        out: &mut impl FnMut(Packet),
    ) -> RxOutcome {
        self.stats.data_packets += 1;
        // RFC 3168 §6.1.3: CWR ends the echo, then a CE mark on this very segment starts it
        // again.
        if pkt.has(flags::CWR) {
            self.ece_latched = false;
        }
        if pkt.has(flags::CE) {
            self.stats.ce_received += 1;
            self.ece_latched = true;
            // RFC 8257 §3.2: the CE state changes, so ack what is held (unmarked: a marked
            // segment is acked at once) without ECE before this segment moves rcv_nxt.
            if self.ecn_echo == EcnEcho::Dctcp && self.unacked > 0 {
                if let Some(mut held) = self.echo {
                    held.flags &= !flags::CE;
                    self.send_ack(now, &held, out);
                }
            }
        }
        let (s, e) = (pkt.seq, pkt.seq + pkt.len as u64);
        let mut res = RxOutcome::default();
        let in_order = s <= self.rcv_nxt && e > self.rcv_nxt;
        let had_holes = !self.ooo.is_empty();
        if in_order {
            let before = self.rcv_nxt;
            self.rcv_nxt = e;
            // Swallow buffered ranges that are now contiguous.
            let k = self.ooo.partition_point(|&(rs, _)| rs <= self.rcv_nxt);
            if k > 0 {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k - 1].1);
                self.ooo.drain(..k);
            }
            res.delivered = self.rcv_nxt - before;
            res.unique_wire = pkt.size as u64;
        } else if s > self.rcv_nxt && self.insert_ooo(s, e) {
            res.unique_wire = pkt.size as u64;
        }
        if res.unique_wire == 0 {
            self.stats.duplicate_packets += 1;
        }
        if self.sack {
            self.sack_first = if res.unique_wire == 0 {
                SackFirst::Dup(s, e)
            } else if in_order {
                SackFirst::None
            } else {
                SackFirst::Held(s)
            };
        }
        self.stats.unique_wire_bytes += res.unique_wire;

        let immediate = match self.delayed_ack {
            None => true,
            Some(_) => {
                if self.quick_max > 0 {
                    self.quickack_arrival(now);
                }
                // A FIN is acknowledged at once (Linux `tcp_fin` schedules the ack, ns-3's
                // `TcpSocketBase::DoPeerClose` sends it): a transfer's completion never waits
                // for the delayed-ack timer.
                !in_order || had_holes || pkt.has(flags::CE | flags::FIN) || self.quick_left > 0
            }
        };
        let at = self.clock(now);
        self.unacked += 1;
        if immediate {
            // An immediate ack echoes this segment (its arrival time, its marks).
            let mut echo = Packet {
                rx_time: at,
                ..*pkt
            };
            // XCP: one ack for two segments echoes both segments' feedback (a sum).
            if let Some(held) = self.echo.as_ref().filter(|_| self.unacked > 1) {
                echo.cc.feedback += held.cc.feedback;
            }
            self.send_ack(now, &echo, out);
            return res;
        }
        let held = *self.echo.get_or_insert(Packet {
            rx_time: at,
            ..*pkt
        });
        if self.unacked >= 2 {
            // The newest segment's marks travel with the ack; the echoed send time is the
            // earliest unacknowledged segment's (RFC 7323 §4.3).
            let mut echo = if self.latest_echo {
                Packet {
                    rx_time: at,
                    ..*pkt
                }
            } else {
                held
            };
            echo.flags = pkt.flags;
            echo.cc = pkt.cc;
            echo.cc.feedback += held.cc.feedback;
            self.send_ack(now, &echo, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delayed_ack.unwrap());
        }
        res
    }

    /// A SYN (`syn = true` on the sender: the only data packet without payload): acked at
    /// once, as ns-2's sinks do (`TcpSink::recv`; `SYN_immediate_ack_` for delayed-ack
    /// sinks). It delivers nothing.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_syn(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        out: &mut impl FnMut(Packet),
    ) -> RxOutcome {
        self.stats.data_packets += 1;
        let echo = Packet {
            rx_time: self.clock(now),
            ..*pkt
        };
        self.send_ack(now, &echo, out);
        RxOutcome::default()
    }

    /// Quick-ack mode: a data segment arrives at `now` (Linux `tcp_event_data_recv`: the
    /// first one, or one after a gap longer than `quick_idle`, grants the quick acks).
    #[inline]
    fn quickack_arrival(&mut self, now: SimTime) {
        let idle = self
            .last_data
            .is_none_or(|t| now.since(t) > self.quick_idle);
        if idle {
            self.quick_left = self.quick_left.max(self.quick_max);
        }
        self.last_data = Some(now);
    }

    /// The delayed-ack timer expired.
    pub fn on_delack_timer(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.delack_deadline = None;
        if let Some(echo) = self.echo {
            self.send_ack(now, &echo, out);
        }
    }

    fn send_ack(&mut self, now: SimTime, seg: &Packet, out: &mut impl FnMut(Packet)) {
        // The SACK fields come back as scalars, so that without SACK the ack is still built
        // in place (no packet on the stack, one call of `out`).
        let sf = if self.sack {
            self.sack_fields()
        } else {
            SackFields::default()
        };
        out(self.ack_packet(now, seg, sf));
    }

    /// The SACK blocks of the next ack (out of line: flows without SACK never come here).
    #[inline(never)]
    fn sack_fields(&mut self) -> SackFields {
        if self.ooo.is_empty() && self.sack_first == SackFirst::None {
            return SackFields::default();
        }
        let (b, n, dsack) = self.sack_blocks();
        SackFields::encode(self.rcv_nxt, &b[..n], dsack)
    }

    /// The ack for `seg` (counts it, resets the delayed-ack state).
    #[inline(always)]
    fn ack_packet(&mut self, now: SimTime, seg: &Packet, sf: SackFields) -> Packet {
        self.unacked = 0;
        self.echo = None;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        self.quick_left = self.quick_left.saturating_sub(1);
        let mut f = 0u8;
        if seg.has(flags::RETX) {
            f |= flags::RETX;
        }
        let ece = match self.ecn_echo {
            EcnEcho::Rfc3168 => self.ece_latched,
            EcnEcho::PerMark | EcnEcho::Dctcp => seg.has(flags::CE),
        };
        if ece {
            f |= flags::ECE;
            self.stats.ece_sent += 1;
        }
        Packet {
            flow: seg.flow,
            src: seg.dst,
            dst: seg.src,
            kind: PacketKind::Ack,
            flags: f | sf.flags,
            size: self.ack_size,
            len: sf.len,
            seq: sf.seq,
            ack: self.rcv_nxt,
            ts: seg.ts,
            rx_time: seg.rx_time,
            // LT on this host's clock. The link stamps only packets still at `MAX`; the
            // one reading that would collide (clock = −1 ps) is moved back one picosecond.
            tx_start: SimTime(self.clock(now).0.min(u64::MAX - 1)),
            cc: CcHeader { ..seg.cc },
            sack_len2: sf.len2,
            wnd: if self.rwnd_right == u64::MAX {
                0xffff
            } else {
                self.wnd_field_cold()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};

    fn seg(seq: u64, len: u32) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Data, len + 40);
        p.seq = seq;
        p.len = len;
        p
    }

    fn rx(r: &mut TcpReceiver, s: u64, l: u32) -> (RxOutcome, Vec<u64>) {
        let mut acks = Vec::new();
        let o = r.on_data(SimTime::ZERO, &seg(s, l), &mut |p| acks.push(p.ack));
        (o, acks)
    }

    #[test]
    fn acks_every_segment_and_buffers_out_of_order() {
        let mut r = TcpReceiver::new(40, None);
        assert_eq!(
            rx(&mut r, 0, 100),
            (
                RxOutcome {
                    delivered: 100,
                    unique_wire: 140
                },
                vec![100]
            )
        );
        assert_eq!(
            rx(&mut r, 200, 100),
            (
                RxOutcome {
                    delivered: 0,
                    unique_wire: 140
                },
                vec![100]
            )
        );
        assert_eq!(rx(&mut r, 400, 100).1, vec![100]);
        assert_eq!(r.holes(), 2);
        // duplicate of buffered data: no new bytes
        assert_eq!(rx(&mut r, 200, 100).0.unique_wire, 0);
        // fill the first hole: delivers 100..300
        assert_eq!(
            rx(&mut r, 100, 100),
            (
                RxOutcome {
                    delivered: 200,
                    unique_wire: 140
                },
                vec![300]
            )
        );
        assert_eq!(
            rx(&mut r, 300, 100),
            (
                RxOutcome {
                    delivered: 200,
                    unique_wire: 140
                },
                vec![500]
            )
        );
        assert_eq!(r.holes(), 0);
        assert_eq!(rx(&mut r, 0, 100).0, RxOutcome::default());
    }

    #[test]
    fn overlapping_ranges_merge() {
        let mut r = TcpReceiver::new(40, None);
        rx(&mut r, 300, 100);
        rx(&mut r, 100, 100);
        rx(&mut r, 150, 200); // bridges both
        assert_eq!(r.holes(), 1);
        assert_eq!(rx(&mut r, 0, 100).0.delivered, 400);
    }

    #[test]
    fn quickack_mode_acks_the_first_segments_and_after_idle_at_once() {
        let idle = SimDuration::from_ms(200);
        // 16 quick acks allowed; the window (100 segments of 100 B) does not bound them.
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(40)))
            .with_quickack(16, idle, 10_000, 100);
        let mut t = SimTime::ZERO;
        let mut seq = 0;
        let burst = |r: &mut TcpReceiver, t: SimTime, n: u64, seq: &mut u64| {
            let mut acks = 0;
            for _ in 0..n {
                r.on_data(t, &seg(*seq, 100), &mut |_| acks += 1);
                *seq += 100;
            }
            acks
        };
        // 16 segments: 16 acks, then 20 more: 10 acks (every second one).
        assert_eq!(burst(&mut r, t, 16, &mut seq), 16);
        assert_eq!(burst(&mut r, t, 20, &mut seq), 10);
        // A gap of exactly `idle` is not idle; longer is: quick-ack mode again.
        t += idle;
        assert_eq!(burst(&mut r, t, 4, &mut seq), 2);
        t += idle + SimDuration::from_ms(1);
        assert_eq!(burst(&mut r, t, 16, &mut seq), 16);
        assert_eq!(burst(&mut r, t, 4, &mut seq), 2);
        // The window bounds the count: 1000 B / (2 · 100 B) = 5.
        let mut r =
            TcpReceiver::new(40, Some(SimDuration::from_ms(40))).with_quickack(16, idle, 1000, 100);
        let mut seq = 0;
        assert_eq!(burst(&mut r, SimTime::ZERO, 5, &mut seq), 5);
        assert_eq!(burst(&mut r, SimTime::ZERO, 4, &mut seq), 2);
        // Off (0), or without delayed acks: unchanged.
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(40)))
            .with_quickack(0, idle, 10_000, 100);
        let mut seq = 0;
        assert_eq!(burst(&mut r, SimTime::ZERO, 4, &mut seq), 2);
    }

    #[test]
    fn quickack_without_the_idle_rule_acks_only_the_first_data_at_once() {
        // ns-3's receiver: the first data segment acked at once, none after any gap.
        let never = SimDuration::from_ps(u64::MAX);
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(200)))
            .with_quickack(1, never, 10_000, 100);
        let mut acks = 0;
        r.on_data(SimTime::ZERO, &seg(0, 100), &mut |_| acks += 1);
        assert_eq!(acks, 1, "the first segment at once");
        r.on_data(SimTime::ZERO, &seg(100, 100), &mut |_| acks += 1);
        r.on_data(SimTime::ZERO, &seg(200, 100), &mut |_| acks += 1);
        assert_eq!(acks, 2, "then every second one");
        let later = SimTime::ZERO + SimDuration::from_secs(3600);
        r.on_data(later, &seg(300, 100), &mut |_| acks += 1);
        assert_eq!(acks, 2, "an hour's gap grants no quick ack");
    }

    #[test]
    fn a_fin_is_acked_at_once_with_delayed_acks() {
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100)));
        assert!(rx(&mut r, 0, 100).1.is_empty(), "held for the delayed ack");
        assert_eq!(rx(&mut r, 100, 100).1, vec![200]);
        let mut fin = seg(200, 50);
        fin.flags |= flags::FIN;
        let mut acks = Vec::new();
        r.on_data(SimTime::ZERO, &fin, &mut |p| acks.push(p));
        assert_eq!(acks.len(), 1, "the odd last segment is not held");
        assert_eq!(acks[0].ack, 250);
        assert!(r.delack_deadline.is_none());
        assert!(
            !acks[0].has(flags::SACK),
            "the ack carries no flag of the data's"
        );
    }

    #[test]
    fn delayed_acks_every_second_segment_or_timer() {
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100)));
        assert!(rx(&mut r, 0, 100).1.is_empty());
        assert!(r.delack_deadline.is_some());
        assert_eq!(rx(&mut r, 100, 100).1, vec![200]);
        assert!(r.delack_deadline.is_none());
        assert!(rx(&mut r, 200, 100).1.is_empty());
        let mut acks = Vec::new();
        r.on_delack_timer(SimTime(1), &mut |p| acks.push(p.ack));
        assert_eq!(acks, vec![300]);
        // Out of order: immediate.
        assert_eq!(rx(&mut r, 500, 100).1, vec![300]);
    }

    #[test]
    fn delayed_acks_echo_the_earliest_unacked_segment() {
        // (send time, arrival time) of each echoed segment, and the ack's addresses.
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100)));
        let mut acks = Vec::new();
        let data = |r: &mut TcpReceiver, seq: u64, ts: u64, now: u64, acks: &mut Vec<_>| {
            let mut p = seg(seq, 100);
            p.ts = SimTime(ts);
            r.on_data(SimTime(now), &p, &mut |a| {
                acks.push((a.ts.0, a.rx_time.0, a.src, a.dst))
            });
        };
        data(&mut r, 0, 1, 10, &mut acks);
        data(&mut r, 100, 2, 20, &mut acks);
        assert_eq!(acks, [(1, 10, NodeId(1), NodeId(0))], "the first of two");
        // After an ack, the next segment is the one held, and the timer acks it.
        data(&mut r, 200, 3, 30, &mut acks);
        r.on_delack_timer(SimTime(40), &mut |a| {
            acks.push((a.ts.0, a.rx_time.0, a.src, a.dst))
        });
        assert_eq!(acks[1], (3, 30, NodeId(1), NodeId(0)));
        // Nothing held: a late timer sends nothing.
        r.on_delack_timer(SimTime(50), &mut |a| {
            acks.push((a.ts.0, a.rx_time.0, a.src, a.dst))
        });
        assert_eq!(acks.len(), 2);
    }

    #[test]
    fn latest_echo_echoes_the_segment_that_triggers_the_ack() {
        // ns-2's sinks: the ack for segments sent at 1 and 2 echoes 2 (and its arrival).
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100))).with_latest_echo(true);
        let mut acks = Vec::new();
        for (seq, ts, now) in [(0, 1, 10), (100, 2, 20)] {
            let mut p = seg(seq, 100);
            p.ts = SimTime(ts);
            r.on_data(SimTime(now), &p, &mut |a| {
                acks.push((a.ts.0, a.rx_time.0, a.ack))
            });
        }
        assert_eq!(acks, [(2, 20, 200)]);
    }

    #[test]
    fn delayed_acks_sum_the_xcp_feedback_of_both_segments() {
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100)));
        let mut fb = Vec::new();
        for (k, x) in [1.5f32, 2.0, -4.0].into_iter().enumerate() {
            let mut p = seg(100 * k as u64, 100);
            p.cc.feedback = x;
            r.on_data(SimTime::ZERO, &p, &mut |a| fb.push(a.cc.feedback));
        }
        r.on_delack_timer(SimTime(1), &mut |a| fb.push(a.cc.feedback));
        assert_eq!(fb, vec![3.5, -4.0], "two segments' sum, then one alone");
    }

    #[test]
    fn arrival_and_leaving_times_are_on_the_receiver_clock() {
        // Clock 5 ps behind simulated time: AT and LT read 5 ps less (wrapping below 0).
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100))).with_clock_offset(-5);
        let mut acks = Vec::new();
        let mut p = seg(0, 100);
        p.ts = SimTime(1);
        r.on_data(SimTime(3), &p, &mut |a| acks.push(a));
        r.on_delack_timer(SimTime(20), &mut |a| acks.push(a));
        let a = acks[0];
        assert_eq!(a.ts, SimTime(1), "T1 echoed as sent");
        assert_eq!(a.rx_time.0 as i64, -2, "AT = 3 − 5");
        assert_eq!(
            a.tx_start,
            SimTime(15),
            "LT = 20 − 5, when the timer sent it"
        );
        assert_eq!(
            a.rx_time.0.wrapping_sub(a.ts.0) as i64,
            -3,
            "T2 − T1 = 2 − 5"
        );
        // The one reading equal to the link's "not stamped" marker moves back 1 ps.
        let mut r = TcpReceiver::new(40, None).with_clock_offset(-4);
        r.on_data(SimTime(3), &seg(0, 100), &mut |a| acks.push(a));
        assert_eq!(acks[1].tx_start, SimTime(u64::MAX - 1));
    }

    /// (ack, blocks, D-SACK) of one ack.
    type SackAck = (u64, Vec<(u64, u64)>, bool);

    /// The acks one segment produces.
    fn rx_sack(r: &mut TcpReceiver, s: u64, l: u32) -> Vec<SackAck> {
        let mut acks = Vec::new();
        r.on_data(SimTime::ZERO, &seg(s, l), &mut |p| {
            let blocks = if p.has(flags::SACK) {
                p.sack_blocks()
                    .into_iter()
                    .filter(|&(s, e)| e > s)
                    .collect()
            } else {
                vec![]
            };
            acks.push((p.ack, blocks, p.has(flags::DSACK)))
        });
        acks
    }

    #[test]
    fn sack_blocks_follow_rfc_2018_and_2883() {
        let mut r = TcpReceiver::new(40, None).with_sack(true);
        assert_eq!(
            rx_sack(&mut r, 0, 100),
            [(100, vec![], false)],
            "in order: none"
        );
        // Holes at 100 and 300: the first block holds the segment that triggered the ack.
        assert_eq!(rx_sack(&mut r, 200, 100), [(100, vec![(200, 300)], false)]);
        assert_eq!(
            rx_sack(&mut r, 400, 100),
            [(100, vec![(400, 500), (200, 300)], false)]
        );
        assert_eq!(
            rx_sack(&mut r, 500, 100),
            [(100, vec![(400, 600), (200, 300)], false)],
            "the range grows; the other most recent one follows"
        );
        // A duplicate of held data: D-SACK block first, then the held range containing it.
        assert_eq!(
            rx_sack(&mut r, 200, 100),
            [(100, vec![(200, 300), (200, 300)], true)]
        );
        // A duplicate below the cumulative ack: its own D-SACK block, then the most recently
        // reported range.
        assert_eq!(
            rx_sack(&mut r, 0, 100),
            [(100, vec![(0, 100), (200, 300)], true)]
        );
        // Filling the first hole advances the ack: only the remaining range.
        assert_eq!(rx_sack(&mut r, 100, 100), [(300, vec![(400, 600)], false)]);
        assert_eq!(rx_sack(&mut r, 300, 100), [(600, vec![], false)]);
        // Without SACK, never any block.
        let mut r = TcpReceiver::new(40, None);
        rx_sack(&mut r, 0, 100);
        assert_eq!(rx_sack(&mut r, 200, 100), [(100, vec![], false)]);
    }

    fn rx_flags(r: &mut TcpReceiver, seq: u64, f: u8) -> Vec<bool> {
        let mut p = seg(seq, 100);
        p.flags = f;
        let mut eces = Vec::new();
        r.on_data(SimTime::ZERO, &p, &mut |a| eces.push(a.has(flags::ECE)));
        eces
    }

    #[test]
    fn rfc3168_echo_latches_until_cwr() {
        use flags::{CE, CWR, ECT};
        let mut r = TcpReceiver::new(40, None);
        assert_eq!(rx_flags(&mut r, 0, ECT), vec![false]);
        assert_eq!(rx_flags(&mut r, 100, ECT | CE), vec![true]);
        assert_eq!(rx_flags(&mut r, 200, ECT), vec![true], "latched");
        assert_eq!(rx_flags(&mut r, 300, ECT), vec![true], "latched");
        assert_eq!(rx_flags(&mut r, 400, ECT | CWR), vec![false], "CWR clears");
        assert_eq!(rx_flags(&mut r, 500, ECT), vec![false]);
        assert_eq!(
            rx_flags(&mut r, 600, ECT | CWR | CE),
            vec![true],
            "CE after CWR"
        );
        assert_eq!((r.stats.ce_received, r.stats.ece_sent), (2, 4));
    }

    #[test]
    fn per_mark_echo_is_one_to_one() {
        use flags::{CE, ECT};
        let mut r =
            TcpReceiver::new(40, Some(SimDuration::from_ms(100))).with_ecn_echo(EcnEcho::PerMark);
        // Delayed acks: the CE segment is acked at once, with ECE; the others not.
        let mut eces = Vec::new();
        for (i, f) in [ECT, ECT | CE, ECT, ECT, ECT | CE, ECT | CE]
            .iter()
            .enumerate()
        {
            eces.extend(rx_flags(&mut r, 100 * i as u64, *f));
        }
        assert_eq!(eces.iter().filter(|&&e| e).count(), 3, "{eces:?}");
        assert_eq!((r.stats.ce_received, r.stats.ece_sent), (3, 3));
    }

    /// RFC 8257 §3.2 with delayed acks: an unmarked segment held for the delayed ack is
    /// acked without ECE before the CE-marked one that follows it (per_mark acks both with
    /// one ECE, so the sender would count the unmarked bytes as marked).
    #[test]
    fn dctcp_echo_acks_held_unmarked_bytes_separately() {
        use flags::{CE, ECE, ECT};
        let acks = |policy: EcnEcho| {
            let mut r = TcpReceiver::new(40, Some(SimDuration::from_ms(100))).with_ecn_echo(policy);
            let mut out = Vec::new();
            for (i, f) in [ECT, ECT | CE, ECT, ECT].iter().enumerate() {
                let mut p = seg(100 * i as u64, 100);
                p.flags = *f;
                r.on_data(SimTime::ZERO, &p, &mut |a| out.push((a.ack, a.has(ECE))));
            }
            out
        };
        assert_eq!(acks(EcnEcho::PerMark), vec![(200, true), (400, false)]);
        assert_eq!(
            acks(EcnEcho::Dctcp),
            vec![(100, false), (200, true), (400, false)]
        );
    }

    fn playback(buffer: u64, read: u64) -> crate::tcp::PlaybackRwnd {
        crate::tcp::PlaybackRwnd {
            buffer,
            read,
            interval: SimDuration::from_secs(1),
        }
    }

    #[test]
    fn a_playback_buffer_advertises_its_free_space() {
        // Buffer 5000 B, the application reads up to 2000 B every second.
        let mut r = TcpReceiver::new(40, None).with_playback(
            playback(5000, 2000),
            FlowId(3),
            NodeId(0),
            NodeId(1),
        );
        assert_eq!(
            r.deadline(),
            Some(SimTime::ZERO + SimDuration::from_secs(1))
        );
        let mut acks = Vec::new();
        for k in 0..5u64 {
            let mut p = seg(k * 1000, 1000);
            p.flow = FlowId(3);
            r.on_data(SimTime::ZERO, &p, &mut |a| acks.push(a));
        }
        let wnd: Vec<u16> = acks.iter().map(|a| a.wnd).collect();
        assert_eq!(wnd, [4000, 3000, 2000, 1000, 0]);
        assert_eq!(r.playback_held(), 5000);
        // Reads at 1 s, 2 s, 3 s take 2000, 2000, 1000; each sends a window update from
        // the receiver (node 1) to the sender (node 0) acking 5000.
        let mut upd = Vec::new();
        for k in 1..=4u64 {
            let t = SimTime::ZERO + SimDuration::from_secs(k);
            assert_eq!(r.deadline(), Some(t));
            r.on_timer(t, &mut |a| upd.push(a));
        }
        let got: Vec<(u64, u16, u32, u32)> = upd
            .iter()
            .map(|a| (a.ack, a.wnd, a.src.0, a.dst.0))
            .collect();
        assert_eq!(
            got,
            [(5000, 2000, 1, 0), (5000, 4000, 1, 0), (5000, 5000, 1, 0)]
        );
        assert!(upd
            .iter()
            .all(|a| a.kind == PacketKind::Ack && a.flow == FlowId(3)));
        assert_eq!(r.stats.playback_reads, 4, "the fourth read found nothing");
        assert_eq!(r.stats.playback_read_bytes, 5000);
        assert_eq!(r.stats.window_updates, 3);
        assert_eq!(r.advertised_window(), 5000);
        // A zero-length probe is acked at once with the window.
        let mut a = Vec::new();
        r.on_data(SimTime(7), &seg(5000, 0), &mut |x| a.push(x));
        assert_eq!((a.len(), a[0].ack, a[0].wnd), (1, 5000, 5000));
    }

    #[test]
    fn a_read_releases_a_held_delayed_ack_with_the_new_window() {
        let mut r = TcpReceiver::new(40, Some(SimDuration::from_secs(2))).with_playback(
            playback(5000, 5000),
            FlowId(0),
            NodeId(0),
            NodeId(1),
        );
        let mut acks = Vec::new();
        r.on_data(SimTime::ZERO, &seg(0, 1000), &mut |a| acks.push(a));
        assert!(acks.is_empty(), "held for the delayed ack");
        let one = SimTime::ZERO + SimDuration::from_secs(1);
        assert_eq!(r.deadline(), Some(one));
        r.on_timer(one, &mut |a| acks.push(a));
        assert_eq!(acks.len(), 1);
        assert_eq!((acks[0].ack, acks[0].wnd), (1000, 5000));
        assert_eq!(r.stats.window_updates, 0, "the held ack carried the window");
        assert_eq!(r.delack_deadline, None);
    }

    #[test]
    fn without_a_playback_buffer_acks_carry_the_largest_field() {
        let mut r = TcpReceiver::new(40, None);
        let mut acks = Vec::new();
        r.on_data(SimTime::ZERO, &seg(0, 1000), &mut |a| acks.push(a));
        assert_eq!(acks[0].wnd, 0xffff);
        assert_eq!(r.deadline(), None);
        assert_eq!(r.advertised_window(), u64::MAX);
    }

    #[test]
    fn a_scaled_window_is_rounded_down() {
        // 125,000 B needs scale 1: 124,000 free bytes are 62,000 units.
        let mut r = TcpReceiver::new(40, None).with_playback(
            playback(125_000, 125_000),
            FlowId(0),
            NodeId(0),
            NodeId(1),
        );
        let mut acks = Vec::new();
        r.on_data(SimTime::ZERO, &seg(0, 1000), &mut |a| acks.push(a));
        r.on_data(SimTime::ZERO, &seg(1000, 999), &mut |a| acks.push(a));
        assert_eq!(acks[0].wnd, 62_000);
        assert_eq!(
            acks[1].wnd, 61_500,
            "123,001 free bytes round down to 123,000"
        );
    }
}

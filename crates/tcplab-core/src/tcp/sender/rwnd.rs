//! The receiver's advertised window and the persist timer, for flows with
//! `playback_rwnd_cap` (the receiver advertises the free space of a playback buffer,
//! `tcp/receiver.rs`).
//!
//! - **Send window** (RFC 9293 §3.8.6.2.1, RFC 5681 §2): new data goes out only while it
//!   stays at or below the right edge of the receiver's window, `SND.UNA + SND.WND`; the
//!   usable window is `min(cwnd, advertised window)` (and `max_window`). The edge is the
//!   highest `ack + (wnd << scale)` seen (RFC 7323 §2.3 scaling, a fixed per-flow scale, as
//!   if negotiated on the SYN): a receiver never shrinks its window, so an ack that arrives
//!   late cannot move the edge back, and keeping the maximum replaces RFC 9293's
//!   SND.WL1/SND.WL2 test. O(1) per ack. The initial edge is the whole buffer (the window a
//!   handshake would have announced).
//! - **Window updates** (RFC 5681 §2, the definition of a duplicate ack, condition (e)): an
//!   ack that acknowledges nothing new but changes the advertised window is a window update,
//!   not a duplicate ack; an ack of nothing new while nothing is outstanding (the reply to a
//!   probe) is one too. Neither reaches the congestion-control algorithm nor the
//!   duplicate-ack count: the sender notes the window and sends what it now allows.
//! - **Persist timer** (RFC 9293 §3.8.6.1, zero-window probing): when nothing is
//!   outstanding, data waits, and the next segment does not fit under the edge, no ack
//!   will come to open the window, so the retransmission timer (idle while nothing is
//!   outstanding) runs as the persist timer: it expires one RTO later; the sender then sends
//!   a probe, backs the timer off (doubling, as the RTO, up to `rto_max`: "SHOULD increase
//!   exponentially the interval between successive probes") and restarts it. Every ack
//!   stops the persist timer; if the window is still closed after it, it starts again.
//!   The probe is a segment without payload at `snd_una` (as Linux's `tcp_xmit_probe_skb`,
//!   net/ipv4/tcp_output.c, sends one without data; tcplab's receiver acks any zero-length
//!   segment at once, as it acks a SYN), so it never puts data beyond the window: the
//!   playback buffer never overflows. Its ack carries the current window. The backoff is the
//!   RTO estimator's, cleared by the next RTT sample (Linux shares `icsk_backoff` between
//!   the two timers likewise).
//!
//! The receiver also sends a window update when its application reads (receiver.rs), so the
//! persist timer is needed only when such an update is lost.

use super::TcpSender;
use crate::packet::Packet;
use crate::time::SimTime;

/// What the sender knows of the receiver's advertised window.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rwnd {
    /// The right edge of the receiver's window: the highest `ack + window` advertised (a
    /// receiver never shrinks its window, RFC 9293 §3.8.6.2.1, so an older ack cannot move
    /// it back). `u64::MAX` without `playback_rwnd_cap`. New data stays at or below it.
    pub(super) edge: u64,
    /// RFC 7323 window scale of the `Packet::wnd` field.
    pub(super) scale: u8,
    /// The window field of the last ack (RFC 5681's duplicate-ack definition: an ack that
    /// changes the advertised window is not a duplicate).
    pub(super) last_wnd: u16,
    /// The retransmission timer is running as the persist timer (RFC 9293 §3.8.6.1: the
    /// window is closed, nothing is outstanding and data waits).
    pub(super) persist: bool,
}

impl TcpSender {
    /// An ack on a flow with an advertised window: note the window; handle the ack here
    /// (return true) when it is only a window update or a probe's reply. O(1).
    #[inline(never)]
    pub(super) fn rwnd_ack(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        out: &mut impl FnMut(Packet),
    ) -> bool {
        let changed = pkt.wnd != self.rwnd.last_wnd;
        self.rwnd.last_wnd = pkt.wnd;
        let edge = pkt.ack.saturating_add((pkt.wnd as u64) << self.rwnd.scale);
        self.rwnd.edge = self.rwnd.edge.max(edge);
        if self.rwnd.persist {
            // Any ack stops the persist timer; `output` starts it again if the window is
            // still closed.
            self.rwnd.persist = false;
            self.rto_deadline = None;
        }
        if self.out_slow & super::OUT_SYN != 0 {
            return false;
        }
        let update = pkt.ack < self.snd_una
            || (pkt.ack == self.snd_una && (changed || self.snd_max == self.snd_una));
        if update {
            self.output(now, out);
        }
        update
    }

    /// After `output`: start the persist timer if the window keeps data from leaving while
    /// nothing is outstanding (no ack will come otherwise).
    #[inline(never)]
    pub(super) fn persist_check(&mut self, now: SimTime) {
        if self.snd_una < self.snd_max || self.snd_nxt >= self.buf.app_limit {
            return;
        }
        let len = (self.buf.app_limit - self.snd_nxt).min(self.mss as u64);
        if self.snd_nxt + len <= self.rwnd.edge || self.rto_deadline.is_some() {
            return;
        }
        self.rwnd.persist = true;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The persist timer expired (nothing outstanding): probe the window if it is still
    /// closed, back off, and start the timer again.
    pub(super) fn persist_timeout(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.rwnd.persist = false;
        if !self.gate_open() {
            // Backpressure: the local queue is full; its departure calls `output` again.
            return;
        }
        self.stats.window_probes += 1;
        // A data packet on the wire: counted among the segments sent, as a SYN is.
        self.stats.segments_sent += 1;
        if self.ipq.limit != u32::MAX {
            self.ipq.count += 1;
        }
        out(Packet {
            size: self.header,
            seq: self.snd_una,
            ..Packet::data(self.flow, self.src, self.dst, now)
        });
        self.rtt.back_off();
        self.persist_check(now);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::testkit::reno;
    use crate::cc::CongestionControl;
    use crate::ids::{FlowId, NodeId};
    use crate::packet::{flags, Packet, PacketKind};
    use crate::tcp::sender::TcpSender;
    use crate::tcp::StartConfig;
    use crate::tcp::{PlaybackRwnd, TcpConfig, MAX_SCALED_WINDOW};
    use crate::time::{SimDuration, SimTime};

    const MSS: u32 = 1000;

    fn pb(buffer: u64) -> PlaybackRwnd {
        PlaybackRwnd {
            buffer,
            read: buffer,
            interval: SimDuration::from_secs(1),
        }
    }

    /// A NewReno sender with a 10-segment window and a receiver buffer of `buffer` bytes.
    fn sender(buffer: Option<u64>) -> TcpSender {
        let cfg = TcpConfig {
            mss: MSS,
            header: 40,
            playback: buffer.map(pb),
            start: StartConfig {
                init_cwnd: 10,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
        TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc)
    }

    /// An ack of `ack` advertising `wnd` bytes (scale 0: buffers below 64 KiB).
    fn ack(ack: u64, wnd: u64) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Ack, 40);
        p.ack = ack;
        p.wnd = wnd as u16;
        p
    }

    fn run(s: &mut TcpSender, t: SimTime, p: &Packet) -> Vec<Packet> {
        let mut v = Vec::new();
        s.on_ack(t, p, &mut |q| v.push(q));
        v
    }

    fn seqs(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.seq).collect()
    }

    fn ms(x: u64) -> SimTime {
        SimTime(SimDuration::from_ms(x).0)
    }

    #[test]
    fn window_scale_is_the_smallest_shift_that_fits() {
        assert_eq!(pb(65_535).scale(), 0);
        assert_eq!(pb(65_536).scale(), 1);
        assert_eq!(pb(125_000).scale(), 1);
        assert_eq!(pb(10_000_000).scale(), 8);
        assert_eq!(pb(MAX_SCALED_WINDOW).scale(), 14);
    }

    #[test]
    fn the_advertised_window_limits_new_data_and_a_closed_one_is_probed() {
        // Buffer 3000 B, cwnd 10 segments: min(cwnd, rwnd) = 3 segments leave.
        let mut s = sender(Some(3000));
        let mut out = Vec::new();
        s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| out.push(p));
        assert_eq!(seqs(&out), [0, 1000, 2000]);
        // Acks of data the application has not read: the right edge stays at 3000.
        assert!(run(&mut s, ms(100), &ack(1000, 2000)).is_empty());
        assert!(run(&mut s, ms(100), &ack(2000, 1000)).is_empty());
        assert!(run(&mut s, ms(100), &ack(3000, 0)).is_empty());
        assert_eq!(s.rwnd_edge(), 3000);
        // Nothing outstanding, data waiting, window closed: the persist timer runs.
        let rto = s.rtt.rto();
        assert!(s.rwnd.persist);
        assert_eq!(s.rto_deadline, Some(ms(100) + rto));
        // It expires: one probe without payload at snd_una, no congestion reaction, and
        // the timer restarts backed off (2·RTO).
        let t1 = ms(100) + rto;
        let cwnd = s.cc.cwnd();
        let mut probe = Vec::new();
        s.on_timeout(t1, &mut |p| probe.push(p));
        assert_eq!(probe.len(), 1);
        let p = probe[0];
        assert_eq!(
            (p.kind, p.len, p.seq, p.size),
            (PacketKind::Data, 0, 3000, 40)
        );
        assert_eq!(s.stats.window_probes, 1);
        assert_eq!(s.stats.segments_sent, 4, "three segments and the probe");
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.cc.cwnd(), cwnd);
        assert_eq!(s.rto_deadline, Some(t1 + SimDuration(2 * rto.0)));
        // Its reply: same window, nothing outstanding: the timer starts again.
        let t2 = t1 + SimDuration::from_ms(20);
        assert!(run(&mut s, t2, &ack(3000, 0)).is_empty());
        assert!(s.rwnd.persist);
        assert_eq!(s.rto_deadline, Some(t2 + SimDuration(2 * rto.0)));
        // The application read 2000 B: the window update sends two segments and stops
        // the persist timer (the retransmission timer now times the data).
        let t3 = t2 + SimDuration::from_ms(500);
        assert_eq!(seqs(&run(&mut s, t3, &ack(3000, 2000))), [3000, 4000]);
        assert!(!s.rwnd.persist);
        assert_eq!(s.stats.window_probes, 1);
        // Duplicate acks (the same window) count; an ack that changes the window does not
        // (RFC 5681 §2) but opens it: one more segment, and the count stays at 2.
        assert!(run(&mut s, t3, &ack(3000, 2000)).is_empty());
        assert!(run(&mut s, t3, &ack(3000, 2000)).is_empty());
        assert_eq!(seqs(&run(&mut s, t3, &ack(3000, 3000))), [5000]);
        assert_eq!(s.rec.dupacks, 2);
        // The third duplicate with that window: fast retransmit of 3000.
        let fr = run(&mut s, t3, &ack(3000, 3000));
        assert_eq!(seqs(&fr), [3000]);
        assert!(fr[0].has(flags::RETX));
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn an_older_ack_cannot_move_the_right_edge_back() {
        let mut s = sender(Some(5000));
        let mut out = Vec::new();
        s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| out.push(p));
        assert_eq!(out.len(), 5);
        run(&mut s, ms(10), &ack(2000, 5000));
        assert_eq!(s.rwnd_edge(), 7000);
        // A reordered ack of 1000 with a window of 3000 (edge 4000) arrives later.
        run(&mut s, ms(11), &ack(1000, 3000));
        assert_eq!(s.rwnd_edge(), 7000);
        assert_eq!(s.snd_max(), 7000, "new data up to the edge, never beyond");
    }

    #[test]
    fn without_the_option_the_window_field_is_ignored() {
        // Today's flows: a zero window field changes nothing (and no persist timer).
        let mut s = sender(None);
        let mut out = Vec::new();
        s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| out.push(p));
        assert_eq!(out.len(), 10);
        assert_eq!(s.rwnd_edge(), u64::MAX);
        assert_eq!(run(&mut s, ms(100), &ack(1000, 0)).len(), 2);
        assert!(!s.rwnd.persist);
    }
}

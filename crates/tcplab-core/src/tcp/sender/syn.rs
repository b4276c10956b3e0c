//! The one-way handshake of `syn = true` (ns-2's `syn_ true`, `delay_growth_ true`): a
//! header-sized SYN goes first, timed for the RTO estimator unless retransmitted, and data
//! starts when its ack returns (ns-2.35 tcp/tcp.cc `TcpAgent::output` for seqno 0,
//! `RenoTcpAgent::recv` setting `cwnd_ = initial_window()`).

use super::*;

impl TcpSender {
    /// `syn`: send the SYN (a data packet of `header` bytes, no payload; ns-2 `output` of
    /// seqno 0 with `syn_`: `tcpip_base_hdr_size_` bytes) if it has not left.
    #[cold]
    #[inline(never)]
    pub(super) fn syn_output(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.syn != Syn::ToSend || self.buf.app_limit == 0 {
            return;
        }
        self.send_syn(now, false, out);
    }

    pub(super) fn send_syn(
        &mut self,
        now: SimTime,
        retransmitted: bool,
        out: &mut dyn FnMut(Packet),
    ) {
        self.syn = Syn::Sent { retransmitted };
        // Counted as a segment (and a retransmission when resent), as ns-2 counts it
        // among the data packets it sends.
        self.stats.segments_sent += 1;
        if retransmitted {
            self.stats.retransmits += 1;
        }
        if self.ipq.limit != u32::MAX {
            self.ipq.count += 1;
        }
        out(Packet {
            flags: if retransmitted { flags::RETX } else { 0 },
            size: self.header,
            ..Packet::data(self.flow, self.src, self.dst, now)
        });
        self.arm_timer(now);
    }

    /// `syn`: the SYN's ack (the only ack before any data is sent). The first SYN's round
    /// trip is an RTO sample (ns-2 times it; a retransmitted one is not: Karn); data start
    /// with the initial window (ns-2's `delay_growth_`: the SYN's ack does not open it).
    #[cold]
    #[inline(never)]
    pub(super) fn syn_acked(&mut self, now: SimTime, pkt: &Packet, out: &mut impl FnMut(Packet)) {
        let Syn::Sent { retransmitted } = self.syn else {
            return;
        };
        if !retransmitted && !pkt.has(flags::RETX) {
            self.rtt.sample_at(now, pkt.ts);
        }
        self.syn = Syn::Done;
        self.out_slow &= !OUT_SYN;
        self.rto_deadline = None;
        self.output(now, out);
    }

    /// `syn`: the SYN's timer expired: back off and send it again. The algorithm sees a
    /// timeout (ns-2's `TcpAgent::timeout` runs `slowdown` for a lost SYN too: ssthresh
    /// falls to its floor of two segments).
    #[cold]
    #[inline(never)]
    pub(super) fn syn_timeout(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.stats.timeouts += 1;
        let view = self.loss_view();
        self.cc.on_congestion(now, Congestion::Timeout, &view);
        self.rtt.back_off();
        self.send_syn(now, true, out);
    }
}

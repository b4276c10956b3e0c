//! UDP: datagrams with a per-flow sequence number (carried in `Packet::seq`, counting
//! datagrams), never acknowledged. The receiver counts what arrives and infers losses
//! from gaps in the sequence numbers. A flow with `echo = true` is a probe, as ping or
//! Flent's latency measurement: its receiver returns each datagram at once (same size, an
//! ack-kind packet carrying the send time and its arrival time), and the source records
//! the round trip and the one-way delay out of each echo ([`ProbeColumns`]).

use crate::event::{FlowId, NodeId};
use crate::net::{Packet, PacketKind};
use crate::packet::{flags, CcHeader};
use crate::stats::columns::{ProbeColumns, ProbeRow};
use crate::stats::RttDist;
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
    /// Echoes received (an `echo = true` flow), whole run.
    pub echoes_received: u64,
    /// Their round trips in the steady-state window (reset when it begins).
    pub echo_rtt: RttDist,
    /// Every echo's row, in arrival order (empty unless the flow echoes).
    pub probes: ProbeColumns,
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
            echoes_received: 0,
            echo_rtt: RttDist::default(),
            probes: ProbeColumns::default(),
        }
    }

    /// An echo of one of this flow's datagrams came back at `now`.
    pub fn on_echo(&mut self, now: SimTime, p: &Packet) {
        self.echoes_received += 1;
        let rtt = now.since(p.ts);
        self.echo_rtt.add(rtt.0);
        self.probes.push(ProbeRow {
            flow: self.flow,
            t: now.as_secs_f64(),
            seq: p.seq,
            rtt_s: rtt.as_secs_f64(),
            forward_s: p.rx_time.since(p.ts).as_secs_f64(),
        });
    }

    /// Send one datagram of `len` payload bytes now.
    #[inline]
    pub fn send(&mut self, now: SimTime, len: u32, out: &mut impl FnMut(Packet)) {
        let seq = self.packets_sent;
        self.packets_sent += 1;
        self.bytes_sent += len as u64;
        out(Packet {
            flags: flags::UDP,
            size: len + self.header,
            len,
            seq,
            ..Packet::data(self.flow, self.src, self.dst, now)
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
    /// Return every datagram to its source (`flows.NAME.echo`).
    pub echo: bool,
    /// Echoes sent, whole run.
    pub echoes_sent: u64,
}

impl UdpReceiver {
    /// A receiver that returns every datagram when `echo` is set.
    pub fn new(echo: bool) -> Self {
        UdpReceiver {
            echo,
            ..Default::default()
        }
    }

    /// The echo of datagram `p`, which arrived at `now`: back to its source, the same size
    /// (so the frame on the wire is the datagram's), its number and send time kept, its
    /// arrival time in `rx_time`.
    pub fn echo_of(&mut self, now: SimTime, p: &Packet) -> Packet {
        self.echoes_sent += 1;
        Packet {
            src: p.dst,
            dst: p.src,
            kind: PacketKind::Ack,
            rx_time: now,
            tx_start: SimTime::MAX,
            cc: CcHeader::default(),
            ..*p
        }
    }

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

    #[test]
    fn an_echo_returns_the_datagram_and_gives_both_delays() {
        let mut s = UdpSender::new(FlowId(2), NodeId(0), NodeId(1), 28);
        let ms = |x: u64| SimTime(x * 1_000_000_000);
        let mut sent = Vec::new();
        s.send(ms(1000), 64, &mut |p| sent.push(p));
        let mut r = UdpReceiver::new(true);
        let arrived = ms(1000 + 15);
        let e = r.echo_of(arrived, &sent[0]);
        assert_eq!(
            (e.src, e.dst, e.kind, e.size, e.len),
            (NodeId(1), NodeId(0), PacketKind::Ack, 92, 64)
        );
        assert_eq!((e.ts, e.seq, r.echoes_sent), (sent[0].ts, 0, 1));
        s.on_echo(ms(1000 + 40), &e);
        assert_eq!(s.echoes_received, 1);
        assert_eq!(s.probes.seq, [0]);
        assert!((s.probes.rtt_s[0] - 0.040).abs() < 1e-12);
        assert!((s.probes.forward_s[0] - 0.015).abs() < 1e-12);
        assert!((s.probes.t[0] - 1.040).abs() < 1e-12);
        assert!((s.echo_rtt.mean_s().unwrap() - 0.040).abs() < 1e-12);
    }
}

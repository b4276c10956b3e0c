//! Reno and NewReno fast retransmit and recovery (RFC 5681 §3.2, RFC 6582): entering
//! recovery on the `dupack_threshold`-th duplicate ack, the algorithm's reduction, the
//! recovery window inflated per duplicate ack, and limited transmit (RFC 3042) on the
//! first duplicate acks. The per-ack rules (partial acks, leaving recovery) are in
//! `TcpSender::on_ack`.

use super::*;

impl TcpSender {
    /// What NewReno and RFC 6675 recovery share on entry: the algorithm reduces its
    /// windows, and `recover` (RecoveryPoint) is the highest sequence sent. A loss in the
    /// window of data an ECN-Echo already reduced (the lost segment, at `snd_una`, was sent
    /// before that reaction's `snd_max`) is repaired without a second reduction: RFC 3168
    /// §6.1.2, "the TCP sender's congestion window should be reduced only once in response
    /// to a series of dropped and/or CE packets from a single window of data" (Linux: a loss
    /// in its CWR state enters Recovery with the CWR's ssthresh).
    pub(super) fn begin_recovery(&mut self, now: SimTime) {
        if self.spurious.is_some() {
            self.undo_on_recovery();
        }
        self.stats.fast_retransmits += 1;
        let view = self.loss_view();
        if self.ecn_reacted_until.is_none_or(|h| self.snd_una >= h) {
            self.cc
                .on_congestion(now, Congestion::FastRetransmit, &view);
        }
        self.state = CaState::Recovery;
        self.partial_acks = 0;
        self.recover = self.snd_max;
        self.recover_set = true;
        if self.rto_restart_on_fr {
            // ns-2 `RenoTcpAgent::dupack_action`: `reset_rtx_timer(1, 0)` before the fast
            // retransmit (no backoff; the current backoff stays in the timeout).
            self.arm_timer(now);
        }
    }

    /// Limited transmit (RFC 3042; ns-2 `TcpAgent::send_one` on the first and second
    /// duplicate ack with `singledup_`): one new segment if the flight stays within
    /// `cwnd + dupacks` segments and the receiver's window.
    #[inline(never)]
    pub(super) fn limited_send(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        // At `snd_nxt`, which after a timeout may lie below `snd_max` (ns-2 sends `t_seqno_`).
        if !self.gate_open() || self.snd_nxt >= self.app_limit {
            return;
        }
        let len = (self.app_limit - self.snd_nxt).min(self.mss as u64);
        let allowed = (self.cc.cwnd() + self.dupacks as u64 * self.mss as u64).min(self.max_window);
        if self.snd_nxt + len > self.snd_una + allowed || self.snd_nxt + len > self.rwnd_edge {
            return;
        }
        let seq = self.snd_nxt;
        self.snd_nxt += self.send_segment(now, seq, out) as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.begin_recovery(now);
        self.rec_window = self.cc.cwnd() + self.dupack_threshold as u64 * self.inflate_step;
        self.retransmit_head(now, out);
    }
}

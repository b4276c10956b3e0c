//! Reno and NewReno fast retransmit and recovery (RFC 5681 §3.2, RFC 6582): entering
//! recovery on the `dupack_threshold`-th duplicate ack, the algorithm's reduction, the
//! recovery window inflated per duplicate ack, and limited transmit (RFC 3042) on the
//! first duplicate acks, and the per-ack rules (partial acks, leaving recovery): the
//! [`RecoveryEngine::NewReno`] engine.

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
        if self.ecn.reacted_until.is_none_or(|h| self.snd_una >= h) {
            self.cc
                .on_congestion(now, Congestion::FastRetransmit, &view);
        }
        self.rec.state = CaState::Recovery;
        self.rec.partial_acks = 0;
        self.rec.recover = self.snd_max;
        self.rec.recover_set = true;
        if self.compat.rto_restart_on_fr {
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
        if !self.gate_open() || self.snd_nxt >= self.buf.app_limit {
            return;
        }
        let len = (self.buf.app_limit - self.snd_nxt).min(self.mss as u64);
        let allowed =
            (self.cc.cwnd() + self.rec.dupacks as u64 * self.mss as u64).min(self.max_window);
        if self.snd_nxt + len > self.snd_una + allowed || self.snd_nxt + len > self.rwnd.edge {
            return;
        }
        let seq = self.snd_nxt;
        self.snd_nxt += self.send_segment(now, seq, out) as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.begin_recovery(now);
        self.rec.window = self.cc.cwnd() + self.dupack_threshold as u64 * self.rec.inflate_step;
        self.retransmit_head(now, out);
    }
}

impl RecoveryOps for NewRenoOps {
    /// RFC 5681 §3.2 / RFC 6582 §3.2 for one ack: in recovery a duplicate ack inflates the
    /// recovery window and an ack of new data either ends recovery (all of `recover`
    /// acknowledged, or Reno's first new ack) or is partial (NewReno: retransmit the next
    /// hole, deflate by the amount acknowledged, restart the timer per
    /// `partial_ack_timer`); in the open state the `dupack_threshold`-th duplicate ack
    /// starts a fast retransmit, earlier ones send per limited transmit.
    #[inline(always)]
    fn on_ack(
        s: &mut TcpSender,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        dup: bool,
        _sacked: Option<SackUpdate>,
        out: &mut impl FnMut(Packet),
    ) -> bool {
        let ack = pkt.ack;
        let mut restart = newly > 0;
        match s.rec.state {
            CaState::Recovery => {
                if dup {
                    s.rec.window += s.rec.inflate_step;
                } else if newly > 0 {
                    let full = ack >= s.rec.recover;
                    if full || s.cc.recovery_style() == RecoveryStyle::Reno {
                        s.rec.state = CaState::Open;
                        s.rec.dupacks = 0;
                        let view = s.view();
                        s.cc.on_recovery_exit(now, &view);
                    } else {
                        // NewReno partial ack: retransmit the next hole, deflate, restart timer.
                        s.retransmit_head(now, out);
                        if s.rec.inflate_step != 0 {
                            s.rec.window = s.rec.window.saturating_sub(newly);
                            if newly >= s.mss as u64 {
                                s.rec.window += s.mss as u64;
                            }
                        } else {
                            s.rec.window = s.cc.cwnd();
                        }
                        s.rec.partial_acks += 1;
                        restart = s.compat.partial_ack_timer == PartialAckTimer::Every
                            || s.rec.partial_acks == 1;
                    }
                }
            }
            CaState::Open | CaState::Loss => {
                if newly > 0 {
                    s.rec.dupacks = 0;
                    if s.rec.state == CaState::Loss && s.snd_una >= s.rec.recover {
                        s.rec.state = CaState::Open;
                    }
                } else if dup {
                    s.rec.dupacks += 1;
                    // RFC 6582 §3.2 step 1: NewReno starts a fast retransmit only if the
                    // ack covers more than `recover` (the highest sequence sent when the
                    // last recovery or timeout began); duplicate acks at or below it are
                    // most likely caused by unnecessary retransmissions (§4). `bugfix`
                    // (ns-2's `bugFix_`, `RenoTcpAgent::dupack_action`) makes Reno check
                    // too, or NewReno not.
                    let careful = s
                        .compat
                        .bugfix
                        .unwrap_or(s.cc.recovery_style() == RecoveryStyle::NewReno);
                    if s.rec.dupacks == s.dupack_threshold
                        && s.rec.state == CaState::Open
                        && (!careful || !s.rec.recover_set || ack > s.rec.recover)
                    {
                        s.enter_recovery(now, out);
                    } else if s.rec.limited_transmit && s.rec.dupacks < s.dupack_threshold {
                        s.limited_send(now, out);
                    }
                }
            }
        }
        restart
    }

    fn timeout_view(s: &mut TcpSender, _now: SimTime) -> ConnView {
        s.view()
    }

    /// Go-back-N from the first unacknowledged byte (RFC 6298 §5.4, RFC 5681 §3.1).
    fn timeout_resume(s: &mut TcpSender) {
        s.snd_nxt = s.snd_una;
    }
}

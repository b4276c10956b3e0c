//! The retransmission timer (RFC 6298 §5): armed while data is outstanding, restarted on
//! acks of new data; on expiry it backs off, lets the algorithm react
//! (`on_congestion(Timeout)`) and resumes where the loss-recovery engine says (go-back-N; with SACK, only what
//! the scoreboard deems lost: `recovery.rs`). The same timer runs RACK-TLP's timers, the persist timer and
//! the SYN's retransmission.

use super::*;

impl TcpSender {
    pub(super) fn arm_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.rto());
        if let Some(r) = self.rack.as_deref_mut() {
            r.rto_at = self.rto_deadline;
        }
    }

    /// The retransmission timer expired (the caller checked the deadline).
    pub fn on_timeout(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.out_slow & OUT_SYN != 0 {
            return self.syn_timeout(now, out);
        }
        if self.rack.is_some() {
            return self.rack_timeout(now, out);
        }
        self.rto_deadline = None;
        if self.snd_una >= self.snd_max {
            if self.rwnd.persist {
                self.persist_timeout(now, out);
            }
            return;
        }
        self.stats.timeouts += 1;
        if self.spurious.is_some() {
            self.undo_on_rto();
        }
        let mut view = self.recovery_timeout_view(now);
        if self.compat.window_basis {
            // ns-2 `TcpAgent::timeout` → `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)`:
            // ssthresh is half of `window()` = min(cwnd, awnd), fast recovery's inflation
            // gone (`RenoTcpAgent::timeout` zeroes `dupwnd_` first).
            view = self.loss_view();
        }
        self.timeout_reduce(now, &view);
        self.recovery_timeout_resume();
        self.output(now, out);
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
    }

    /// What every timeout does after its engine's bookkeeping (RFC 6298 §5.5-5.6, RFC 5681
    /// eq. (4)): the algorithm reacts, the timer backs off, and the connection enters the
    /// Loss state with `recover` at the highest sequence sent. A waiting retransmission is
    /// dropped: sending resumes at `snd_una` first anyway.
    pub(super) fn timeout_reduce(&mut self, now: SimTime, view: &ConnView) {
        self.cc.on_congestion(now, Congestion::Timeout, view);
        self.rtt.back_off();
        self.rec.state = CaState::Loss;
        self.rec.recover = self.snd_max;
        self.rec.recover_set = true;
        self.rec.dupacks = 0;
        self.ipq.retx_pending = false;
    }
}

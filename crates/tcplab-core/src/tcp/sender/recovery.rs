//! Loss recovery as a strategy, one implementation per engine (the transport's counterpart
//! of [`crate::cc::CongestionControl`]; ns-3 keeps `TcpRecoveryOps` beside
//! `TcpCongestionOps` for the same reason, `src/internet/model/tcp-recovery-ops.h`).
//!
//! The engine is chosen once, in `TcpSender::new`, from `RecoveryConfig::mode` and
//! `RecoveryConfig::loss_detection` (the scenario build refuses the combinations that do not
//! exist, e.g. Vegas' loss detection with SACK):
//!
//! | engine | keys | file | rules |
//! |---|---|---|---|
//! | [`RecoveryEngine::NewReno`] | `recovery = "newreno"` | `newreno.rs` | RFC 5681 §3.2 fast retransmit, Reno or RFC 6582 NewReno recovery (the algorithm's `recovery_style`), RFC 3042 limited transmit |
//! | [`RecoveryEngine::Sack`] | `recovery = "rfc6675"` | `sack_recovery.rs` (RACK-TLP: `rack_glue.rs`) | RFC 6675 with PRR (RFC 6937); RFC 8985 with `loss_detection = "rack"` |
//! | [`RecoveryEngine::Vegas`] | `loss_detection = "vegas"` | `vegas_loss.rs` | Brakmo & Peterson 1995 §3.1, as ns-2.35's Vegas agent |
//!
//! What an engine decides is what an ack and a retransmission timeout do to the
//! connection's recovery state (`state`, `dupacks`, `recover`, the recovery window, the
//! retransmissions); the algorithm's reaction (`on_congestion`, `on_recovery_exit`) is
//! called from the engine at the points the engine's RFC names. What the engines share
//! stays in the sender: the ack's bookkeeping before the engine runs (RTT samples,
//! `snd_una`, the algorithm's `on_ack`, ECN), and after it the undo rules, the timer and
//! `output`. Sending during SACK recovery goes through `sack_output`, selected per
//! `output` by the `OUT_SACK` bit rather than per engine, since it is also on after a
//! timeout and always with RACK.
//!
//! Dispatch is static: the engine is a field the ack path matches on, and each engine is a
//! type implementing [`RecoveryOps`] with associated functions, so every call is a direct
//! call the compiler may inline (no trait object on the per-ack path).

use super::*;

/// The loss-recovery engine a flow runs (fixed for the flow's life).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryEngine {
    /// Fast retransmit with Reno or NewReno recovery (`recovery = "newreno"`).
    NewReno,
    /// SACK-based recovery with PRR, and RACK-TLP where asked (`recovery = "rfc6675"`).
    Sack,
    /// Vegas' fine-grained retransmissions (`loss_detection = "vegas"`).
    Vegas,
}

impl RecoveryEngine {
    /// The engine a configuration asks for.
    pub fn of(cfg: &TcpConfig) -> Self {
        if cfg.recovery.mode == Recovery::Rfc6675 {
            RecoveryEngine::Sack
        } else if cfg.recovery.loss_detection == LossDetection::Vegas {
            RecoveryEngine::Vegas
        } else {
            RecoveryEngine::NewReno
        }
    }
}

/// The state loss recovery keeps, whichever engine runs (each engine reads and writes it
/// by its own rules; `sack` and `vegas` on the sender hold what only one engine keeps).
#[derive(Clone, Copy, Debug)]
pub(super) struct RecoveryState {
    /// Open, in (fast) recovery, or after a timeout (Loss).
    pub(super) state: CaState,
    /// Duplicate acks counted since the last ack of new data.
    pub(super) dupacks: u32,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: the highest sequence sent when the
    /// last recovery or timeout began.
    pub(super) recover: u64,
    /// `recover` was set by a recovery or a timeout (before that, like RFC 6582's initial
    /// value ISS, it lies below the first data byte).
    pub(super) recover_set: bool,
    /// Send window while in fast recovery (inflated by duplicate acks; PRR's `pipe +
    /// sndcnt` with SACK).
    pub(super) window: u64,
    /// Partial acks seen in the current recovery.
    pub(super) partial_acks: u32,
    /// What a duplicate ack adds to `window` in Reno/NewReno fast recovery: one MSS, or
    /// 0 when the algorithm's `recovery_inflation` is false (the window stays its own).
    pub(super) inflate_step: u64,
    /// `limited_transmit` (RFC 3042, ns-2 `singledup_`).
    pub(super) limited_transmit: bool,
    /// `recovery_burst`: new segments per ack in Reno/NewReno recovery (0 = no cap).
    pub(super) burst: u32,
    /// SACK flows whose algorithm sets the window in recovery itself
    /// (`controls_recovery_window`, BBR): no PRR, the recovery window is `cc.cwnd()`.
    pub(super) cc_window: bool,
}

/// One loss-recovery engine: its rules for an ack and for a retransmission timeout.
pub(super) trait RecoveryOps {
    /// One ack, after the sender's bookkeeping and the algorithm's `on_ack`: `newly` bytes
    /// newly acknowledged, `dup` a duplicate ack, `sacked` the scoreboard's update where
    /// rate sampling already ran it. Returns whether an ack of new data restarts the
    /// retransmission timer (RFC 6298 §5.3; NewReno's partial acks per
    /// `partial_ack_timer`).
    fn on_ack(
        s: &mut TcpSender,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        dup: bool,
        sacked: Option<SackUpdate>,
        out: &mut impl FnMut(Packet),
    ) -> bool;

    /// A retransmission timeout, before the algorithm reacts: the engine's own bookkeeping
    /// and the connection view the reaction sees.
    fn timeout_view(s: &mut TcpSender, now: SimTime) -> ConnView;

    /// A retransmission timeout, after the reaction: where sending resumes.
    fn timeout_resume(s: &mut TcpSender);
}

/// RFC 5681 / RFC 6582 (`newreno.rs`).
pub(super) struct NewRenoOps;
/// RFC 6675 + PRR, RACK-TLP (`sack_recovery.rs`, `rack_glue.rs`).
pub(super) struct SackOps;
/// Vegas' own rules (`vegas_loss.rs`).
pub(super) struct VegasOps;

impl TcpSender {
    /// The loss-recovery engine this flow runs.
    pub fn recovery_engine(&self) -> RecoveryEngine {
        self.engine
    }

    /// The engine's rules for one ack (see [`RecoveryOps::on_ack`]).
    #[inline(always)]
    pub(super) fn recovery_on_ack(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        dup: bool,
        sacked: Option<SackUpdate>,
        out: &mut impl FnMut(Packet),
    ) -> bool {
        match self.engine {
            RecoveryEngine::Sack => SackOps::on_ack(self, now, pkt, newly, dup, sacked, out),
            RecoveryEngine::Vegas => VegasOps::on_ack(self, now, pkt, newly, dup, sacked, out),
            RecoveryEngine::NewReno => NewRenoOps::on_ack(self, now, pkt, newly, dup, sacked, out),
        }
    }

    /// See [`RecoveryOps::timeout_view`].
    pub(super) fn recovery_timeout_view(&mut self, now: SimTime) -> ConnView {
        match self.engine {
            RecoveryEngine::Sack => SackOps::timeout_view(self, now),
            RecoveryEngine::Vegas => VegasOps::timeout_view(self, now),
            RecoveryEngine::NewReno => NewRenoOps::timeout_view(self, now),
        }
    }

    /// See [`RecoveryOps::timeout_resume`].
    pub(super) fn recovery_timeout_resume(&mut self) {
        match self.engine {
            RecoveryEngine::Sack => SackOps::timeout_resume(self),
            RecoveryEngine::Vegas => VegasOps::timeout_resume(self),
            RecoveryEngine::NewReno => NewRenoOps::timeout_resume(self),
        }
    }
}

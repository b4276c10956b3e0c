//! ECN in the sender (RFC 3168 §6.1): which segments carry ECT and CWR, and the reaction to
//! ECN-Echo (the rules are listed in the sender's module doc, "ECN").
//!
//! - new data segments carry ECT; retransmissions do not (§6.1.5) unless `ecn_retransmits`
//!   (ns-2.35 sets ECT on every data packet, `TcpAgent::output`);
//! - an ack with ECN-Echo, in the open state and past the `snd_max` of the last reaction,
//!   calls `on_congestion(Ecn)` without a retransmission (§6.1.2) and the next new segment
//!   carries CWR; the algorithm opts out with `reduces_on_ecn() = false` (TCP/E);
//! - `ece_increase = false` (ns-2.35's `old_ecn_ 0`, `TcpAgent::recv_newack_helper`): an
//!   ECN-Echo ack after the first ack of new data that carried one is flagged
//!   [`AckSample::ece_hold`] so that the algorithm does not grow its window on it.

use super::*;

/// The sender's ECN state (`TcpSender::ecn`).
#[derive(Clone, Debug)]
pub(super) struct Ecn {
    /// `ecn`: the connection negotiated ECN; its data segments are ECN-capable.
    pub(super) enabled: bool,
    /// `ecn_retransmits`: retransmissions are ECN-capable too.
    pub(super) retransmits: bool,
    /// `ece_increase`: an ECN-Echo ack may grow the window.
    pub(super) ece_increase: bool,
    /// An ack of new data has carried ECN-Echo (ns-2's `ect_`, set after its `opencwnd()`
    /// test: the first such ack still grows the window).
    pub(super) ece_seen: bool,
    /// The next new data segment carries CWR.
    pub(super) cwr_pending: bool,
    /// `snd_max` at the last ECE reaction; the next needs `snd_una` beyond it. A loss of a
    /// segment sent before it is repaired without a second reduction (`begin_recovery`).
    pub(super) reacted_until: Option<u64>,
}

impl Ecn {
    pub(super) fn new(cfg: &TcpConfig) -> Self {
        Ecn {
            enabled: cfg.ecn.enabled,
            retransmits: cfg.ecn.retransmits,
            ece_increase: cfg.ecn.ece_increase,
            ece_seen: false,
            cwr_pending: false,
            reacted_until: None,
        }
    }

    /// The ECN flags of a data segment (`retx`: a retransmission); takes a pending CWR.
    #[inline(always)]
    pub(super) fn segment_flags(&mut self, retx: bool) -> u8 {
        let mut f = 0;
        if self.enabled && (!retx || self.retransmits) {
            f |= flags::ECT;
            if !retx && self.cwr_pending {
                f |= flags::CWR;
                self.cwr_pending = false;
            }
        }
        f
    }
}

impl TcpSender {
    /// An ack's ECN-Echo (`ece`), before the algorithm sees the ack: counts it, reduces the
    /// window once per window of data, and returns `ece_hold` for the ack sample.
    #[inline(always)]
    pub(super) fn ecn_on_ack(&mut self, now: SimTime, ece: bool, newly: u64) -> bool {
        if !ece {
            return false;
        }
        let hold = self.ecn.ece_seen && !self.ecn.ece_increase;
        self.stats.ece_received += 1;
        if newly > 0 {
            self.ecn.ece_seen = true;
        }
        if self.ecn.enabled
            && self.rec.state == CaState::Open
            && self.ecn.reacted_until.is_none_or(|h| self.snd_una > h)
            && self.cc.reduces_on_ecn()
        {
            // RFC 3168 §6.1.2: reduce as for a loss, without retransmitting.
            self.stats.ecn_reductions += 1;
            let view = self.loss_view();
            self.cc.on_congestion(now, Congestion::Ecn, &view);
            self.ecn.reacted_until = Some(self.snd_max);
            self.ecn.cwr_pending = true;
        }
        hold
    }
}

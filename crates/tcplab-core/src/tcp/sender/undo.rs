//! Spurious retransmission detection and undo: F-RTO (RFC 5682) and D-SACK-based undo
//! (RFC 2883 §4 as Linux applies it), for flows with `frto = true` or `dsack_undo = true`.
//!
//! **Undo state.** When a reduction episode starts from the open state (a fast retransmit,
//! a RACK loss or a retransmission timeout) the sender keeps a copy of the congestion-control
//! algorithm's whole state (`AnyCc`), the first unacknowledged byte (the undo marker) and the
//! retransmission count. A timeout during a recovery or a repeated timeout keeps the copy
//! of the first reduction. Undo puts the copy back if its window is larger than the current
//! one (Linux's `cwnd = max(cwnd, prior_cwnd)`, `ssthresh = max(ssthresh, prior_ssthresh)`
//! for the Reno family; for CUBIC it is RFC 9438 §4.9's "restore the state before the
//! congestion event": `W_max`, `K`, epoch and all). The copy is made once per episode (one
//! allocation for algorithms whose state is boxed, never per packet).
//!
//! **F-RTO** (RFC 5682; the SACK-enhanced variant's rules where the flow has SACK, which also
//! hold without SACK, as Linux implements it):
//! 1. on a timeout (not during a fast recovery, unless it repeats an F-RTO timeout) the first
//!    unacknowledged segment is retransmitted as usual; `recover = HighData`;
//! 2. on the first ack that acknowledges new data: if it covers `recover`, conventional
//!    recovery continues (F-RTO ends); otherwise up to two new, previously unsent segments
//!    are sent (whatever the window) and the sender goes to step 3 — if it has no new data,
//!    conventional recovery. A duplicate ack here means conventional recovery without SACK;
//!    with SACK it is ignored (acks of segments sent before the timeout may still arrive);
//! 3. on the next ack: if it acknowledges data never retransmitted (the cumulative ack
//!    moves above every retransmitted byte) the timeout was spurious: undo, back to the open
//!    state, the segments the timeout marked lost are not retransmitted; else (a duplicate
//!    ack, SACKing only the new data) the timeout was genuine and conventional recovery
//!    (go-back-N, or the SACK loss floor) continues. Step 3 decides on the cumulative ack
//!    only (RFC 5682 §3 would also count a SACK for never-retransmitted data below
//!    `recover`).
//!
//! **D-SACK undo** (needs SACK): a D-SACK block at or above the undo marker reports a
//! retransmission of this episode that was not needed. When every retransmission of the
//! episode has been reported so and the sender is no longer in fast recovery (at its end or
//! later, as Linux's `tcp_try_undo_recovery`; after a timeout at once, as
//! `tcp_try_undo_loss`), the reduction is undone. The copy stays valid until the next
//! episode.
//!
//! **Eifel** (RFC 3522) is not built. tcplab's acks echo the send time of the segment that
//! triggered them (`AckSample::sent_at`, like the timestamp option's TSecr) and whether it
//! was a retransmission, so its detection (the first ack after a retransmission echoes a
//! time before it) could be added on the same undo state.

use super::TcpSender;
use crate::cc::{AnyCc, CaState, CongestionControl};
use crate::packet::{flags, Packet};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct UndoStats {
    /// Timeouts F-RTO found spurious (each undone).
    pub frto_spurious: u64,
    /// Reductions undone because D-SACKs reported every retransmission.
    pub dsack_undos: u64,
}

/// The undo copy and the F-RTO state of one sender.
#[derive(Clone, Debug)]
pub struct Spurious {
    frto: bool,
    dsack: bool,
    /// The algorithm before the episode's first reduction.
    snap: Option<AnyCc>,
    marker: u64,
    retx_at_start: u64,
    dsacks: u64,
    /// F-RTO: 0 = not running, 2 = waiting for the first new ack, 3 = for the second.
    step: u8,
    recover: u64,
    pub stats: UndoStats,
}

impl Spurious {
    pub fn new(frto: bool, dsack: bool) -> Self {
        Spurious {
            frto,
            dsack,
            snap: None,
            marker: 0,
            retx_at_start: 0,
            dsacks: 0,
            step: 0,
            recover: 0,
            stats: UndoStats::default(),
        }
    }
}

impl TcpSender {
    /// Keep the algorithm's state before a reduction that starts an episode.
    fn undo_mark(&mut self) {
        let (cc, una, retx) = (&self.cc, self.snd_una, self.stats.retransmits);
        let sp = self.spurious.as_deref_mut().expect("undo state");
        sp.snap = Some(cc.clone());
        sp.marker = una;
        sp.retx_at_start = retx;
        sp.dsacks = 0;
    }

    /// A fast recovery starts (before the algorithm's reduction).
    pub(super) fn undo_on_recovery(&mut self) {
        if self.rec.state == CaState::Open {
            self.undo_mark();
        }
        self.spurious.as_deref_mut().expect("undo state").step = 0;
    }

    /// A retransmission timeout (before the algorithm's reduction): F-RTO step 1.
    pub(super) fn undo_on_rto(&mut self) {
        let state = self.rec.state;
        if state == CaState::Open {
            self.undo_mark();
        }
        let high = self.snd_max;
        let sp = self.spurious.as_deref_mut().expect("undo state");
        let repeated = state == CaState::Loss && sp.step != 0;
        sp.step = if sp.frto && (state == CaState::Open || repeated) {
            sp.recover = high;
            2
        } else {
            0
        };
    }

    /// Per ack, after the recovery rules and before output: D-SACK accounting, F-RTO steps
    /// 2-3, D-SACK undo.
    #[inline(never)]
    pub(super) fn undo_on_ack(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        out: &mut impl FnMut(Packet),
    ) {
        let prev_una = self.snd_una - newly;
        let dup = newly == 0 && pkt.ack == self.snd_una && self.snd_max > self.snd_una;
        let sack = self.sack.is_some();
        let sp = self.spurious.as_deref_mut().expect("undo state");
        if sp.dsack
            && sp.snap.is_some()
            && pkt.has(flags::DSACK)
            && pkt.has(flags::SACK)
            && pkt.sack_blocks()[0].0 >= sp.marker
        {
            sp.dsacks += 1;
        }
        match sp.step {
            2 if newly > 0 => {
                if self.snd_una >= sp.recover {
                    sp.step = 0;
                } else {
                    let sent = self.frto_send_new(now, out);
                    let sp = self.spurious.as_deref_mut().expect("undo state");
                    sp.step = if sent > 0 { 3 } else { 0 };
                }
            }
            2 if dup && !sack => sp.step = 0,
            3 if newly > 0 || dup => {
                sp.step = 0;
                if newly > 0 && prev_una >= self.retx_high {
                    sp.stats.frto_spurious += 1;
                    self.undo(now);
                } else if !sack {
                    // Genuine: conventional go-back-N from the first unacknowledged byte.
                    self.snd_nxt = self.snd_una;
                }
            }
            _ => {}
        }
        let sp = self.spurious.as_deref_mut().expect("undo state");
        if sp.dsack && sp.snap.is_some() && self.rec.state != CaState::Recovery {
            let retx = self.stats.retransmits - sp.retx_at_start;
            if retx > 0 && sp.dsacks >= retx {
                sp.stats.dsack_undos += 1;
                self.undo(now);
            }
        }
    }

    /// F-RTO step 2: up to two new segments whatever the window. Returns how many.
    fn frto_send_new(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) -> u32 {
        let mss = self.mss as u64;
        let mut n = 0;
        // Go-back-N (without SACK) may have moved snd_nxt down: new data starts at snd_max.
        self.snd_nxt = self.snd_max;
        while n < 2 && self.gate_open() {
            let nxt = self.snd_max;
            let len = self.buf.app_limit.saturating_sub(nxt).min(mss);
            if len == 0 || nxt + len > (self.snd_una + self.max_window).min(self.rwnd.edge) {
                break;
            }
            let sent = self.send_capped(now, nxt, len as u32, out) as u64;
            if let Some(st) = self.sack.as_deref_mut() {
                if self.rec.state == CaState::Recovery {
                    st.prr.sent(sent);
                }
            }
            if let Some(r) = self.rack.as_deref_mut() {
                r.sent_new(nxt, nxt + sent, now);
                r.pto_restart = true;
            }
            self.snd_nxt = nxt + sent;
            self.snd_max = self.snd_nxt;
            n += 1;
        }
        n
    }

    /// Undo the episode's reduction (F-RTO found the timeout spurious, or D-SACKs reported
    /// every retransmission). After a timeout the sender returns to the open state and
    /// forgets the losses the timeout assumed.
    fn undo(&mut self, _now: SimTime) {
        let sp = self.spurious.as_deref_mut().expect("undo state");
        let Some(snap) = sp.snap.take() else { return };
        if snap.cwnd() > self.cc.cwnd() {
            self.cc = snap;
        }
        if self.rec.state == CaState::Loss {
            self.rec.state = CaState::Open;
            self.rec.dupacks = 0;
            if let Some(r) = self.rack.as_deref_mut() {
                r.undo_rto();
            } else if let Some(st) = self.sack.as_deref_mut() {
                st.sb.clear_loss_floor();
                if !st.sb.is_fack() {
                    self.out_slow &= !super::OUT_SACK;
                }
            } else {
                self.snd_nxt = self.snd_max;
            }
        }
    }

    /// F-RTO and undo statistics (`frto` or `dsack_undo` flows only).
    pub fn undo_stats(&self) -> Option<UndoStats> {
        self.spurious.as_deref().map(|s| s.stats)
    }
}

/// An unused helper type check: `AnyCc` must stay `Clone` for the undo copy.
#[allow(dead_code)]
fn _assert_clone(c: &AnyCc) -> AnyCc {
    c.clone()
}

#[cfg(test)]
mod tests {
    use crate::cc::CongestionControl;
    use crate::tcp::sender::rack_glue::tests::{cfg, Path, MSS};
    use crate::tcp::RecoveryConfig;
    use crate::tcp::{LossDetection, Recovery, TcpConfig};
    use crate::time::{SimDuration, SimTime};

    fn secs(s: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs(s)
    }

    /// Data sent between 60 ms and 460 ms is held until 460 ms on the path (a delay
    /// spike, nothing lost, order kept): the retransmission timer fires spuriously.
    fn run(c: &TcpConfig) -> Path {
        let mut p = Path::new(c);
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_ms(m);
        p.spike = Some((ms(60), ms(460)));
        p.run(300 * MSS as u64, secs(60), |_, _| false, |_, _| 0);
        assert!(p.s.is_complete());
        p
    }

    #[test]
    fn frto_detects_a_spurious_timeout_and_undoes_it() {
        for (sack, rack) in [(false, false), (true, false), (true, true)] {
            let base = TcpConfig {
                sack,
                recovery: RecoveryConfig {
                    mode: if sack {
                        Recovery::Rfc6675
                    } else {
                        Recovery::NewReno
                    },
                    loss_detection: if rack {
                        LossDetection::Rack
                    } else {
                        LossDetection::DupAck
                    },
                    ..cfg(rack).recovery
                },
                ..cfg(rack)
            };
            let plain = run(&base);
            assert!(plain.s.stats.timeouts >= 1, "the spike fires the timer");
            let f = run(&TcpConfig {
                recovery: RecoveryConfig {
                    frto: true,
                    ..base.recovery
                },
                ..base.clone()
            });
            let st = f.s.undo_stats().unwrap();
            assert!(st.frto_spurious >= 1, "sack {sack} rack {rack}: {st:?}");
            // Conventional recovery resends the delayed window; F-RTO sends the head only.
            assert!(
                f.s.stats.retransmits < plain.s.stats.retransmits,
                "sack {sack} rack {rack}: {} vs {}",
                f.s.stats.retransmits,
                plain.s.stats.retransmits
            );
            assert!(f.now <= plain.now, "sack {sack} rack {rack}");
        }
    }

    #[test]
    fn dsack_undo_restores_the_window_after_a_spurious_fast_retransmit() {
        // Segment 30 arrives 4 ms late, behind four others: dupack detection retransmits it
        // and halves the window; the receiver reports the duplicate in a D-SACK block.
        let late = |seq: u64, n: u32| {
            if seq == 30 * MSS as u64 && n == 1 {
                4_000
            } else {
                0
            }
        };
        let mut plain = Path::new(&cfg(false));
        plain.run(200 * MSS as u64, secs(20), |_, _| false, late);
        assert_eq!(plain.s.stats.fast_retransmits, 1);
        assert!(plain.s.stats.dsacks_received >= 1);
        let mut u = Path::new(&TcpConfig {
            recovery: RecoveryConfig {
                dsack_undo: true,
                ..cfg(false).recovery
            },
            ..cfg(false)
        });
        u.run(200 * MSS as u64, secs(20), |_, _| false, late);
        assert_eq!(u.s.stats.fast_retransmits, 1);
        assert_eq!(u.s.undo_stats().unwrap().dsack_undos, 1);
        assert!(
            u.s.cc.cwnd() > plain.s.cc.cwnd(),
            "{} vs {}",
            u.s.cc.cwnd(),
            plain.s.cc.cwnd()
        );
    }
}

//! Vegas' fine-grained loss detection in the sender (`loss_detection = "vegas"`).
//!
//! References: L. S. Brakmo and L. L. Peterson, "TCP Vegas: end to end congestion
//! avoidance on a global Internet", IEEE JSAC 13(8), 1995, §3.1 ("New retransmission
//! mechanism"); the behaviour below is ns-2.35's
//! (`tcp/tcp-vegas.cc`, `VegasTcpAgent::recv`, `vegas_expire`, `output`, `timeout`), which
//! seeds 001-004 ran, read for its facts.
//!
//! Per segment the sender keeps its last send time and how often it was sent (ns-2's
//! `v_sendtime_` / `v_transmits_`: a ring indexed by segment, here by `seq / mss`, each
//! entry tagged with its segment so that a stale or misaligned slot reads as unknown).
//! A fine-grained timeout T (seconds, from the exact clock, not the coarse RTO's tick):
//! - at the first ack: `rtt = time since the first segment left`, `sa = 8·rtt`, `sd = rtt`,
//!   `T = (sa/4 + sd)/2`;
//! - per ack of new data whose highest segment was sent once, with `rtt = now − its send
//!   time > 0`: `n = rtt − sa/8; sa += n; sd += |n| − sd/4; T = (sa/4 + sd)/2; T += T/16`
//!   (Jacobson's sa = 8·srtt and sd = 4·mdev, so T = (srtt + 2·mdev)·17/16);
//! - at each retransmission decided below: `T = 2T` if the segment had been sent more than
//!   once, else `T = T + T/8`.
//!
//! Duplicate ack (not after a timeout, until `recover` is acked): `dupacks += 1`; if the
//! segment at `snd_una` was sent at least T ago, or `dupacks` reaches the threshold (3):
//! - up to the next two acks of new data are watched (`worried = min(2, segments in
//!   flight)`);
//! - T backs off as above;
//! - the window is cut only if the segment was sent after the last cut or timeout (ns-2's
//!   `t_cwnd_changed_ < sendTime`: at most one cut per window of data): the algorithm's
//!   `on_congestion(FastRetransmit)` (Vegas: 3/4, or 1/2 for a segment lost again), and the
//!   sender's window becomes that plus one segment per duplicate ack so far (ns-2 `cwnd_ =
//!   v_newcwnd_ + dupacks_`);
//! - the retransmission timer backs off and restarts (ns-2 `reset_rtx_timer(1)`), the
//!   segment is retransmitted, and if it had been sent once `dupacks` jumps to the
//!   threshold.
//!
//! Otherwise a duplicate ack past the threshold adds one segment to the window (fast
//! recovery's inflation). An ack of new data deflates the window to the algorithm's
//! (ns-2's `cwnd_ = v_newcwnd_`), clears `dupacks`, and while `worried` counts down, a
//! segment at the new `snd_una` sent at least T ago is retransmitted at once (no cut, no
//! back-off: ns-2 "no need to change cwnd since we already did"; `dupacks` jumps to the
//! threshold, so later duplicate acks inflate until T says again). There are no NewReno
//! partial acks: the next hole waits for T, three more duplicate acks or the timer.
//! A timeout counts as a cut (`t_cwnd_changed_`) and forgets `worried`. Before the first
//! cut any loss cuts (ns-2 starts `t_cwnd_changed_` at 0 s of its `vegastime()`, the first
//! segment's send: without `syn_`, losses in the first window it sends at that instant are
//! retransmitted without a cut; with `syn_` the data leave after the SYN's ack, so the
//! two agree).
//!
//! The algorithm hears `on_recovery_exit` only when leaving a recovery that began with its
//! own cut (`on_congestion`); a recovery entered without one (a retransmission of a segment
//! sent before the last cut or timeout, or on a new ack) only drops the sender's inflation.
//! (ns-2 deflates to `v_newcwnd_` in both cases, which after a timeout is 0.)
//!
//! Not taken from ns-2: its per-ack loop that clears the acked slots (the tags make it
//! unnecessary: per-ack work stays O(1)); its inflation by duplicate acks after a timeout
//! (the `Loss` state ignores them, as for the other loss detections).

use super::recovery::{RecoveryOps, VegasOps};
use super::{SackUpdate, TcpSender};
use crate::cc::ConnView;
use crate::cc::{CaState, CongestionControl};
use crate::packet::Packet;
use crate::time::SimTime;

/// One slot of the ring: the segment it describes (start, end) and its last send.
#[derive(Clone, Copy, Debug)]
struct Slot {
    seq: u64,
    end: u64,
    sent: SimTime,
    transmits: u32,
}

const EMPTY: Slot = Slot {
    seq: u64::MAX,
    end: 0,
    sent: SimTime::ZERO,
    transmits: 0,
};

/// The state of `loss_detection = "vegas"` (see the module documentation).
#[derive(Clone, Debug)]
pub struct VegasLoss {
    ring: Vec<Slot>,
    mss: u64,
    /// When the first segment left (ns-2's `firstsent_`).
    first_sent: Option<SimTime>,
    /// The estimator has its first sample (ns-2's `firstrecv_ >= 0`).
    started: bool,
    /// Jacobson's scaled sums, in seconds: 8·srtt and 4·mdev.
    sa: f64,
    sd: f64,
    /// The fine-grained timeout T, in seconds.
    pub timeout_s: f64,
    /// Acks of new data still watched after a retransmission.
    worried: u32,
    /// The last window cut or timeout (ns-2's `t_cwnd_changed_`); none yet: any loss cuts.
    cut_at: Option<SimTime>,
    /// The algorithm was told of the current recovery (`on_congestion` at its cut), so
    /// leaving it calls `on_recovery_exit`; a recovery entered without a cut (the window was
    /// already cut for this loss) only drops the inflation.
    cc_recovery: bool,
    /// Retransmissions decided by T before the duplicate-ack threshold or on a new ack.
    pub fine_retransmits: u64,
}

impl VegasLoss {
    pub fn new(mss: u32) -> Self {
        VegasLoss {
            ring: vec![EMPTY; 64],
            mss: mss.max(1) as u64,
            first_sent: None,
            started: false,
            sa: 0.0,
            sd: 0.0,
            timeout_s: 1000.0, // ns-2's initial v_timeout_: nothing expires before an ack
            worried: 0,
            cut_at: None,
            cc_recovery: false,
            fine_retransmits: 0,
        }
    }

    #[inline]
    fn index(&self, seq: u64) -> usize {
        ((seq / self.mss) as usize) & (self.ring.len() - 1)
    }

    /// A segment `[seq, seq + len)` leaves now; `una` is the first unacknowledged byte.
    /// The ring doubles when the flight outgrows it (amortised; never in steady state).
    pub fn on_send(&mut self, now: SimTime, seq: u64, len: u32, una: u64) {
        self.first_sent.get_or_insert(now);
        let span = (seq + len as u64).saturating_sub(una) / self.mss + 2;
        if span as usize > self.ring.len() {
            self.grow(span as usize);
        }
        let i = self.index(seq);
        let s = &mut self.ring[i];
        if s.seq == seq {
            s.transmits = s.transmits.saturating_add(1);
        } else {
            *s = Slot {
                seq,
                end: seq + len as u64,
                sent: now,
                transmits: 1,
            };
        }
        s.sent = now;
    }

    #[cold]
    fn grow(&mut self, need: usize) {
        let old = std::mem::take(&mut self.ring);
        self.ring = vec![EMPTY; need.next_power_of_two().max(old.len() * 2)];
        for s in old.into_iter().filter(|s| s.seq != u64::MAX) {
            let i = self.index(s.seq);
            // Keep the newer of two old slots that land together (the older is acked).
            if self.ring[i].seq == u64::MAX || self.ring[i].seq < s.seq {
                self.ring[i] = s;
            }
        }
    }

    /// The slot of the segment starting at `seq`, if the ring still has it.
    #[inline]
    fn at(&self, seq: u64) -> Option<Slot> {
        let s = self.ring[self.index(seq)];
        (s.seq == seq).then_some(s)
    }

    /// The segment at `una` was sent at least T ago.
    fn expired(&self, now: SimTime, una: u64) -> bool {
        self.started
            && self
                .at(una)
                .is_some_and(|s| now.since(s.sent).as_secs_f64() >= self.timeout_s)
    }

    /// An ack of new data up to `ack`: the first ack starts the estimator, later ones
    /// feed it when the highest acked segment was sent once.
    fn sample(&mut self, now: SimTime, ack: u64) {
        if !self.started {
            self.started = true;
            let r = self.first_sent.map_or(0.0, |t| now.since(t).as_secs_f64());
            self.sa = 8.0 * r;
            self.sd = r;
            self.timeout_s = (self.sa / 4.0 + self.sd) / 2.0;
        }
        let s = self.ring[self.index(ack.saturating_sub(1))];
        if s.end != ack || s.transmits != 1 {
            return;
        }
        let rtt = now.since(s.sent).as_secs_f64();
        if rtt > 0.0 {
            let n = rtt - self.sa / 8.0;
            self.sa += n;
            self.sd += n.abs() - self.sd / 4.0;
            self.timeout_s = (self.sa / 4.0 + self.sd) / 2.0;
            self.timeout_s += self.timeout_s / 16.0;
        }
    }
}

impl TcpSender {
    /// The Reno/NewReno part of `on_ack` for `loss_detection = "vegas"` (after the
    /// algorithm has seen the ack).
    #[inline(never)]
    pub(super) fn vegas_on_ack(
        &mut self,
        now: SimTime,
        newly: u64,
        dup: bool,
        out: &mut impl FnMut(Packet),
    ) {
        let una = self.snd_una;
        let f = self.vegas.as_deref_mut().expect("vegas loss state");
        if newly > 0 {
            f.sample(now, una);
            self.rec.dupacks = 0;
            match self.rec.state {
                CaState::Recovery => {
                    // Deflate to the algorithm's window (ns-2 `cwnd_ = v_newcwnd_`): the
                    // sender's inflated window is dropped; the algorithm hears of the exit
                    // only from a recovery it was told of.
                    self.rec.state = CaState::Open;
                    if std::mem::take(&mut f.cc_recovery) {
                        let view = self.view();
                        self.cc.on_recovery_exit(now, &view);
                    }
                }
                CaState::Loss if una >= self.rec.recover => self.rec.state = CaState::Open,
                _ => {}
            }
            let f = self.vegas.as_deref_mut().expect("vegas loss state");
            if f.worried > 0 && una < self.snd_max {
                f.worried -= 1;
                if f.expired(now, una) {
                    f.fine_retransmits += 1;
                    // ns-2 sets dupacks_ to the threshold: further dupacks inflate the
                    // window until the next new ack deflates it.
                    self.rec.dupacks = self.dupack_threshold;
                    self.rec.state = CaState::Recovery;
                    self.rec.window = self.cc.cwnd();
                    self.retransmit_head(now, out);
                } else {
                    f.worried = 0;
                }
            }
            return;
        }
        if !dup || self.rec.state == CaState::Loss {
            return;
        }
        self.rec.dupacks = self.rec.dupacks.saturating_add(1);
        let expired = f.expired(now, una);
        if !(expired || self.rec.dupacks == self.dupack_threshold) {
            if self.rec.dupacks > self.dupack_threshold && self.rec.state == CaState::Recovery {
                self.rec.window += self.mss as u64;
            }
            return;
        }
        let slot = f.at(una);
        let (sent, transmits) = slot.map_or((now, 1), |s| (s.sent, s.transmits));
        let mss = self.mss as u64;
        f.worried = ((self.snd_max - una).div_ceil(mss)).min(2) as u32;
        if transmits > 1 {
            f.timeout_s *= 2.0;
        } else {
            f.timeout_s += f.timeout_s / 8.0;
        }
        if expired && self.rec.dupacks < self.dupack_threshold {
            f.fine_retransmits += 1;
        }
        if f.cut_at.is_none_or(|c| c < sent) {
            f.cut_at = Some(now);
            f.cc_recovery = true;
            self.begin_recovery(now);
            self.rec.window = self.cc.cwnd() + self.rec.dupacks as u64 * mss;
        } else if self.rec.state != CaState::Recovery {
            // Retransmitted without a cut (the window was cut after this segment left).
            self.rec.state = CaState::Recovery;
            self.rec.window = self.cc.cwnd();
        }
        self.rtt.back_off();
        self.arm_timer(now);
        self.retransmit_head(now, out);
        if transmits == 1 {
            self.rec.dupacks = self.dupack_threshold;
        }
    }

    /// `loss_detection = "vegas"` at a retransmission timeout: it counts as a cut.
    #[cold]
    pub(super) fn vegas_on_timeout(&mut self, now: SimTime) {
        if let Some(f) = self.vegas.as_deref_mut() {
            f.cut_at = Some(now);
            f.worried = 0;
            f.cc_recovery = false;
        }
    }

    /// `loss_detection = "vegas"`: the fine-grained state, for reports and tests.
    pub fn vegas_loss(&self) -> Option<&VegasLoss> {
        self.vegas.as_deref()
    }
}

impl RecoveryOps for VegasOps {
    /// `vegas_on_ack`, out of line; the timer restarts on every ack of new data.
    #[inline(always)]
    fn on_ack(
        s: &mut TcpSender,
        now: SimTime,
        _pkt: &Packet,
        newly: u64,
        dup: bool,
        _sacked: Option<SackUpdate>,
        out: &mut impl FnMut(Packet),
    ) -> bool {
        s.vegas_on_ack(now, newly, dup, out);
        newly > 0
    }

    /// A timeout counts as a cut (`vegas_on_timeout`).
    fn timeout_view(s: &mut TcpSender, now: SimTime) -> ConnView {
        s.vegas_on_timeout(now);
        s.view()
    }

    /// Go-back-N, as NewReno.
    fn timeout_resume(s: &mut TcpSender) {
        s.snd_nxt = s.snd_una;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration(x * 1_000_000_000)
    }

    #[test]
    fn estimator_starts_at_the_first_ack_and_follows_ns2() {
        let mut v = VegasLoss::new(1000);
        v.on_send(ms(0), 0, 1000, 0);
        v.on_send(ms(0), 1000, 1000, 0);
        assert!(
            !v.expired(ms(5000), 0),
            "nothing expires before the first ack"
        );
        // First ack at 100 ms: rtt = 0.1, sa = 0.8, sd = 0.1, T = (0.2 + 0.1)/2 = 0.15;
        // then the segment's own sample (0.1 s, sent once): n = 0, sa = 0.8,
        // sd = 0.1 + 0 - 0.025 = 0.075, T = (0.2 + 0.075)/2 = 0.1375, T += T/16.
        v.sample(ms(100), 1000);
        let t = (0.2 + 0.075) / 2.0;
        assert!(
            (v.timeout_s - (t + t / 16.0)).abs() < 1e-12,
            "{}",
            v.timeout_s
        );
        assert!(!v.expired(ms(100), 1000));
        let tt = SimDuration::from_secs_f64(t + t / 16.0);
        assert!(!v.expired(ms(0) + SimDuration(tt.0 - 1_000_000), 1000));
        assert!(v.expired(ms(0) + SimDuration(tt.0 + 1_000_000), 1000));
    }

    #[test]
    fn retransmitted_segments_give_no_sample_and_slots_are_tagged() {
        let mut v = VegasLoss::new(1000);
        for k in 0..4 {
            v.on_send(ms(0), k * 1000, 1000, 0);
        }
        v.sample(ms(100), 1000);
        let t0 = v.timeout_s;
        v.on_send(ms(150), 1000, 1000, 1000); // a retransmission
        assert_eq!(v.at(1000).unwrap().transmits, 2);
        v.sample(ms(400), 2000); // highest acked segment sent twice: no sample
        assert_eq!(v.timeout_s, t0);
        // A misaligned start is unknown, not a neighbour's slot.
        assert!(v.at(1500).is_none());
    }

    #[test]
    fn the_ring_grows_with_the_flight_and_keeps_what_is_outstanding() {
        let mut v = VegasLoss::new(1000);
        for k in 0..1000u64 {
            v.on_send(ms(k), k * 1000, 1000, 0);
        }
        assert!(v.ring.len() >= 1000);
        for k in [0u64, 1, 500, 999] {
            assert_eq!(v.at(k * 1000).unwrap().sent, ms(k), "segment {k}");
        }
    }
}

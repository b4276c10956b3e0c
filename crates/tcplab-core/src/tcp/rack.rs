//! RACK-TLP loss detection (RFC 8985, "The RACK-TLP Loss Detection Algorithm for TCP",
//! Cheng, Cardwell, Dukkipati, Jha, 2021), for flows with `loss_detection = "rack"`.
//!
//! **RACK** (§6): a segment is lost when a segment sent *after* it has been delivered
//! (cumulatively acked or SACKed) and a reordering window has passed:
//! - per delivered segment (§6.2 step 2): unless it was retransmitted and
//!   `now − xmit_ts < min_RTT` (the ack is probably for the original), if it was sent after
//!   `RACK.xmit_ts` (time, then `end_seq`): `RACK.xmit_ts = xmit_ts`, `RACK.end_seq = end`,
//!   `RACK.rtt = now − xmit_ts`;
//! - step 3: a delivered segment never retransmitted with `end < RACK.fack` (the highest
//!   end delivered before it) means reordering: `RACK.reordering_seen = true`;
//! - step 4, reordering window: on an ack with a D-SACK and no D-SACK round open,
//!   `reo_wnd_mult += 1`, `reo_wnd_persist = 16`, the round lasts until `SND.NXT` at that
//!   time is acked; each recovery that ends without one decrements `reo_wnd_persist`, at 0
//!   `reo_wnd_mult = 1`. `RACK.reo_wnd = 0` if no reordering was seen and the sender is in
//!   recovery (fast or after a timeout) or at least `DupThresh` segments are SACKed, else
//!   `min(reo_wnd_mult · min_RTT / 4, SRTT)`;
//! - step 5: every segment not delivered, sent before `RACK.xmit_ts`, with
//!   `xmit_ts + RACK.rtt + RACK.reo_wnd ≤ now` is lost; otherwise a reordering timer is armed
//!   for the time left.
//!
//! **TLP** (§7): in the open state with data outstanding, a probe timeout
//! `PTO = 2·SRTT` (plus `WCDelAckT` = 200 ms when one segment is in flight; 1 s before the
//! first RTT sample), never beyond the RTO, is (re)started after new data is sent or an ack
//! acknowledges new data. When it fires the sender sends one new segment if it can, else
//! retransmits the highest segment sent, and re-arms the RTO. One probe at a time. The
//! episode ends on an ack beyond the probe: if the probe was a retransmission, no D-SACK
//! reported it and no recovery ran since, the probe repaired a loss and the algorithm
//! reduces its window once (`on_congestion(FastRetransmit)` then `on_recovery_exit`); a
//! D-SACK for the probe ends it without reduction.
//!
//! **With SACK and PRR.** RACK replaces RFC 6675's IsLost and duplicate-ack count: recovery
//! starts when RACK marks a segment lost (RecoveryPoint = HighData, the algorithm's
//! reduction, PRR as in [`crate::tcp::sack`]), NextSeg sends lost segments (lost
//! retransmissions first, then in the order RACK found them) before new data, and `pipe`
//! is Linux's `packets_in_flight`: `HighData − HighACK − SACKed − lost + retransmitted and
//! not lost`. The SACKed ranges live in the flow's [`crate::tcp::sack::Scoreboard`] (its
//! `add_with` reports the newly SACKed sub-ranges); PRR is [`crate::tcp::sack::PrrState`].
//! After a retransmission timeout every unSACKed segment is lost and retransmitted in the
//! algorithm's window as with RFC 6675.
//!
//! **Data structures and costs.** RACK needs each segment's last transmit time. The board
//! keeps one record per segment sent and not yet cumulatively acked (start, end, transmit
//! time, state: SACKed / lost / retransmission in flight / ever retransmitted), in sequence
//! order in a ring buffer (`VecDeque`, which keeps its capacity: no allocation in steady
//! state). RFC 8985's time-ordered list of transmissions is two lists:
//! - original transmissions are sent in sequence order, so they are already time-ordered in
//!   the ring: a cursor walks up through them and only ever moves forward;
//! - retransmissions are appended to a FIFO of (segment number, transmit time) in time
//!   order; entries made stale (the segment was acked, SACKed or sent again) are dropped when
//!   they reach the head.
//!
//! Step 5 looks at the head of each list only: both are in transmit order and
//! `xmit_ts + RACK.rtt + reo_wnd` grows along them, so detection stops at the first segment
//! that is not lost (or was sent after `RACK.xmit_ts`). Every segment is passed once by the
//! cursor or popped once from the FIFO, so detection is **O(1) amortized per segment** and
//! per ack, however large the window. (RFC 8985 arms the reordering timer for the latest
//! undelivered segment sent before `RACK.xmit_ts`; finding it would walk the window, so the
//! timer is armed for the head's remaining time and detection runs again when it fires,
//! marking each segment when its own deadline passes.)
//!
//! Other per-ack costs: a cumulative ack pops the records it covers (each once: amortized
//! O(1)); a SACK block marks its newly SACKed segments (each once), found from a forward
//! cursor in O(1) amortized when the block lies at or above the highest SACKed segment
//! (nearly all of them) and by binary search, O(log n) for n segments outstanding, when a
//! retransmission fills a hole below it; the scoreboard's own cost is in
//! [`crate::tcp::sack`]. Lost segments wait in two FIFOs. A retransmission timeout marks
//! every outstanding segment, O(n), once per timeout.

use crate::time::SimTime;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// A retransmission of the segment is in flight (not yet deemed lost).
const RETRANS: u8 = 4;
/// The segment has been retransmitted at least once.
const EVER: u8 = 8;

/// Worst-case delayed-ack time added to the PTO with one segment in flight (RFC 8985 §7.2,
/// `WCDelAckT`, its recommended 200 ms).
pub const WC_DEL_ACK_PS: u64 = 200_000_000_000;

#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    end: u64,
    xmit: SimTime,
    st: u8,
}

impl Seg {
    #[inline]
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// RFC 8985's `RACK_sent_after(t1, seq1, t2, seq2)`.
#[inline]
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// Per-segment board, RACK and TLP state of one sender (see the module text).
#[derive(Clone, Debug)]
pub struct RackState {
    segs: VecDeque<Seg>,
    /// Segment number of `segs[0]`.
    base: u64,
    /// Bytes SACKed, lost (not SACKed) and retransmitted-in-flight (not SACKed).
    sacked: u64,
    lost: u64,
    retrans: u64,
    sacked_segs: u64,
    /// RACK.fack: the highest end of a delivered segment.
    fack: u64,
    /// Forward cursor for SACK blocks at the top (segment number).
    top_no: u64,
    /// Original transmissions below this segment number are settled (delivered, lost or
    /// retransmitted): the cursor of step 5.
    orig_no: u64,
    /// Retransmissions in transmit order: (segment number, transmit time).
    rtx_q: VecDeque<(u64, SimTime)>,
    /// Lost segments waiting for retransmission: lost retransmissions first.
    relost_q: VecDeque<u64>,
    lost_q: VecDeque<u64>,
    // RACK (§6)
    has_rack: bool,
    xmit: SimTime,
    end_seq: u64,
    rtt: u64,
    reordering_seen: bool,
    reo_mult: u64,
    reo_persist: u32,
    dsack_round: Option<u64>,
    /// Newly SACKed sub-ranges of the current ack (reused buffer).
    parts: Vec<(u64, u64)>,
    // Timers: the RTO as the sender armed it, the reordering timer, the probe timer.
    pub rto_at: Option<SimTime>,
    pub reo_at: Option<SimTime>,
    pub pto_at: Option<SimTime>,
    /// Restart the PTO at the next timer update (new data sent or acked).
    pub pto_restart: bool,
    // TLP (§7)
    pub tlp: bool,
    pub tlp_end: Option<u64>,
    pub tlp_retrans: bool,
    /// A recovery started since the probe (its reduction covers the loss).
    pub tlp_reduced: bool,
    pub stats: RackStats,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct RackStats {
    /// Segments RACK marked lost (originals and retransmissions).
    pub marked_lost: u64,
    /// Retransmissions RACK found lost.
    pub lost_retransmissions: u64,
    pub reo_timeouts: u64,
    pub tlp_probes: u64,
    /// Probes that repaired a loss (window reduced).
    pub tlp_recoveries: u64,
}

impl RackState {
    pub fn new(tlp: bool) -> Self {
        RackState {
            // Grown on first use: a flow that never sends far (a short transfer) keeps none.
            segs: VecDeque::new(),
            base: 0,
            sacked: 0,
            lost: 0,
            retrans: 0,
            sacked_segs: 0,
            fack: 0,
            top_no: 0,
            orig_no: 0,
            rtx_q: VecDeque::new(),
            relost_q: VecDeque::new(),
            lost_q: VecDeque::new(),
            has_rack: false,
            xmit: SimTime::ZERO,
            end_seq: 0,
            rtt: 0,
            reordering_seen: false,
            reo_mult: 1,
            reo_persist: 0,
            dsack_round: None,
            parts: Vec::new(),
            rto_at: None,
            reo_at: None,
            pto_at: None,
            pto_restart: false,
            tlp,
            tlp_end: None,
            tlp_retrans: false,
            tlp_reduced: false,
            stats: RackStats::default(),
        }
    }

    /// Bytes deemed lost and not SACKed.
    pub fn lost(&self) -> u64 {
        self.lost
    }
    pub fn sacked(&self) -> u64 {
        self.sacked
    }
    /// Retransmissions in flight (not deemed lost, not SACKed), bytes.
    pub fn retrans(&self) -> u64 {
        self.retrans
    }
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }
    /// The reordering window multiplier (D-SACK adaptation).
    pub fn reo_mult(&self) -> u64 {
        self.reo_mult
    }
    /// Records held (segments outstanding).
    pub fn outstanding(&self) -> usize {
        self.segs.len()
    }

    /// Linux's `packets_in_flight` in bytes: outstanding − SACKed − lost + retransmitted.
    #[inline]
    pub fn pipe(&self, una: u64, high: u64) -> u64 {
        (high - una - self.sacked - self.lost) + self.retrans
    }

    #[inline]
    fn idx(&self, no: u64) -> Option<usize> {
        no.checked_sub(self.base)
            .map(|i| i as usize)
            .filter(|&i| i < self.segs.len())
    }

    /// New data `[start, end)` went out at `now`.
    pub fn sent_new(&mut self, start: u64, end: u64, now: SimTime) {
        self.segs.push_back(Seg {
            start,
            end,
            xmit: now,
            st: 0,
        });
    }

    /// The highest segment sent: (number, start, end) (TLP's retransmission probe).
    pub fn last(&self) -> Option<(u64, u64, u64)> {
        let n = self.segs.len();
        self.segs
            .back()
            .map(|g| (self.base + n as u64 - 1, g.start, g.end))
    }

    /// The next lost segment to retransmit, (number, start, end), without taking it.
    pub fn peek_lost(&mut self) -> Option<(u64, u64, u64)> {
        for q in 0..2 {
            loop {
                let queue = if q == 0 {
                    &mut self.relost_q
                } else {
                    &mut self.lost_q
                };
                let Some(&no) = queue.front() else { break };
                let i = no.checked_sub(self.base).map(|i| i as usize);
                match i.and_then(|i| self.segs.get(i)) {
                    Some(g) if g.st & (LOST | RETRANS | SACKED) == LOST => {
                        return Some((no, g.start, g.end));
                    }
                    _ => {
                        queue.pop_front();
                    }
                }
            }
        }
        None
    }

    /// Segment `no` was retransmitted at `now` (a lost one from [`Self::peek_lost`], or a
    /// probe).
    pub fn retransmitted(&mut self, no: u64, now: SimTime) {
        if self.relost_q.front() == Some(&no) {
            self.relost_q.pop_front();
        } else if self.lost_q.front() == Some(&no) {
            self.lost_q.pop_front();
        }
        let Some(i) = self.idx(no) else { return };
        let g = &mut self.segs[i];
        g.xmit = now;
        if g.st & (RETRANS | SACKED) == 0 {
            self.retrans += g.len();
        }
        g.st |= RETRANS | EVER;
        self.rtx_q.push_back((no, now));
    }

    /// RACK step 2 and 3 for a delivered segment.
    #[inline]
    fn deliver(&mut self, g: Seg, now: SimTime, min_rtt: u64) {
        let rtt = now.0.saturating_sub(g.xmit.0);
        if !(g.st & EVER != 0 && rtt < min_rtt)
            && sent_after(g.xmit, g.end, self.xmit, self.end_seq)
        {
            self.has_rack = true;
            self.xmit = g.xmit;
            self.end_seq = g.end;
            self.rtt = rtt;
        }
        if g.st & EVER == 0 && g.end < self.fack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(g.end);
    }

    /// Cumulative ack up to `una`: drop the records below it (each once). Returns nothing;
    /// the caller counts delivered bytes from sequence numbers.
    pub fn advance(&mut self, una: u64, now: SimTime, min_rtt: u64) {
        while let Some(&g) = self.segs.front() {
            if g.end > una {
                if g.start < una {
                    // Only with a receiver that acks part of a segment; kept exact.
                    let cut = una - g.start;
                    let f = &mut self.segs[0];
                    f.start = una;
                    if g.st & SACKED != 0 {
                        self.sacked -= cut;
                    } else if g.st & LOST != 0 {
                        self.lost -= cut;
                    }
                    if g.st & (RETRANS | SACKED) == RETRANS {
                        self.retrans -= cut;
                    }
                }
                break;
            }
            self.segs.pop_front();
            self.base += 1;
            if g.st & SACKED != 0 {
                self.sacked -= g.len();
                self.sacked_segs -= 1;
            } else {
                if g.st & LOST != 0 {
                    self.lost -= g.len();
                }
                if g.st & RETRANS != 0 {
                    self.retrans -= g.len();
                }
                self.deliver(g, now, min_rtt);
            }
        }
    }

    /// Mark the newly SACKed sub-ranges recorded in `self.parts` (filled by the caller from
    /// `Scoreboard::add_with`); `covers` tells whether a segment is wholly SACKed.
    pub fn sack_parts(&mut self, now: SimTime, min_rtt: u64, covers: impl Fn(u64, u64) -> bool) {
        let mut parts = std::mem::take(&mut self.parts);
        for &(s, e) in &parts {
            self.mark_sacked(s, e, now, min_rtt, &covers);
        }
        parts.clear();
        self.parts = parts;
    }

    /// The buffer `Scoreboard::add_with` reports into.
    pub fn parts_mut(&mut self) -> &mut Vec<(u64, u64)> {
        &mut self.parts
    }

    fn mark_sacked(
        &mut self,
        s: u64,
        e: u64,
        now: SimTime,
        min_rtt: u64,
        covers: &impl Fn(u64, u64) -> bool,
    ) {
        // The first segment ending after s: forward from the top cursor when the block lies
        // at or above it (amortized O(1)), else binary search.
        let mut i = match self.idx(self.top_no) {
            Some(t) if self.segs[t].start <= s => {
                let mut t = t;
                while t < self.segs.len() && self.segs[t].end <= s {
                    t += 1;
                }
                t
            }
            _ => self.segs.partition_point(|g| g.end <= s),
        };
        while i < self.segs.len() && self.segs[i].start < e {
            let g = self.segs[i];
            let whole = (g.start >= s && g.end <= e) || covers(g.start, g.end);
            if whole && g.st & SACKED == 0 {
                let len = g.len();
                if g.st & LOST != 0 {
                    self.lost -= len;
                }
                if g.st & RETRANS != 0 {
                    self.retrans -= len;
                }
                self.segs[i].st |= SACKED;
                self.sacked += len;
                self.sacked_segs += 1;
                self.deliver(g, now, min_rtt);
            }
            i += 1;
        }
        let no = self.base + i as u64;
        if no > self.top_no {
            self.top_no = no;
        }
    }

    /// RACK step 4, per ack: the D-SACK round and multiplier.
    pub fn on_ack_dsack(&mut self, una: u64, snd_nxt: u64, dsack: bool) {
        if self.dsack_round.is_some_and(|r| una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_mult += 1;
            self.reo_persist = 16;
        }
    }

    /// A recovery (fast or after a timeout) ended: RACK step 4's persistence.
    pub fn recovery_ended(&mut self) {
        if self.reo_persist > 0 {
            self.reo_persist -= 1;
        }
        if self.reo_persist == 0 {
            self.reo_mult = 1;
        }
    }

    /// RACK.reo_wnd in picoseconds (step 4).
    pub fn reo_wnd(&self, in_recovery: bool, srtt: u64, min_rtt: u64, dupthresh: u64) -> u64 {
        if !self.reordering_seen && (in_recovery || self.sacked_segs >= dupthresh) {
            return 0;
        }
        (self.reo_mult * min_rtt / 4).min(srtt)
    }

    #[inline]
    fn mark_lost(&mut self, i: usize, relost: bool) {
        let g = &mut self.segs[i];
        if g.st & LOST == 0 {
            self.lost += g.len();
        }
        if g.st & RETRANS != 0 {
            self.retrans -= g.len();
            self.stats.lost_retransmissions += 1;
        }
        g.st = (g.st | LOST) & !RETRANS;
        self.stats.marked_lost += 1;
        let no = self.base + i as u64;
        if relost {
            self.relost_q.push_back(no);
        } else {
            self.lost_q.push_back(no);
        }
    }

    /// RACK step 5: mark lost segments; returns the time until the next one could be
    /// (picoseconds) if a segment sent before `RACK.xmit_ts` is not lost yet.
    pub fn detect(&mut self, now: SimTime, reo_wnd: u64) -> Option<u64> {
        if !self.has_rack {
            return None;
        }
        let wait = self.rtt + reo_wnd;
        let mut timeout: Option<u64> = None;
        // Original transmissions, in sequence (= transmit) order.
        let mut no = self.orig_no.max(self.base);
        while let Some(i) = self.idx(no) {
            let g = self.segs[i];
            if g.st & (SACKED | LOST | EVER) != 0 {
                no += 1;
                continue;
            }
            if !sent_after(self.xmit, self.end_seq, g.xmit, g.end) {
                break;
            }
            let due = g.xmit.0 + wait;
            if due <= now.0 {
                self.mark_lost(i, false);
                no += 1;
            } else {
                timeout = Some(due - now.0);
                break;
            }
        }
        self.orig_no = no;
        // Retransmissions, in transmit order.
        while let Some(&(no, t)) = self.rtx_q.front() {
            let live = self
                .idx(no)
                .map(|i| (i, self.segs[i]))
                .filter(|(_, g)| g.xmit == t && g.st & (RETRANS | SACKED) == RETRANS);
            let Some((i, g)) = live else {
                self.rtx_q.pop_front();
                continue;
            };
            if !sent_after(self.xmit, self.end_seq, t, g.end) {
                break;
            }
            let due = t.0 + wait;
            if due <= now.0 {
                self.mark_lost(i, true);
                self.rtx_q.pop_front();
            } else {
                let left = due - now.0;
                timeout = Some(timeout.map_or(left, |x| x.min(left)));
                break;
            }
        }
        timeout
    }

    /// A retransmission timeout: every outstanding segment not SACKed is lost (O(n)).
    pub fn on_rto(&mut self) {
        self.rtx_q.clear();
        self.relost_q.clear();
        self.lost_q.clear();
        for i in 0..self.segs.len() {
            let g = self.segs[i];
            if g.st & SACKED != 0 {
                continue;
            }
            let len = g.len();
            if g.st & LOST == 0 {
                self.lost += len;
            }
            if g.st & RETRANS != 0 {
                self.retrans -= len;
            }
            self.segs[i].st = (g.st | LOST) & !RETRANS;
            self.lost_q.push_back(self.base + i as u64);
        }
        self.orig_no = self.base + self.segs.len() as u64;
        self.reo_at = None;
        self.pto_at = None;
        self.tlp_end = None;
    }

    /// A timeout turned out spurious (undo): the segments it marked lost are not; those
    /// retransmitted since stay retransmitted. O(n), once per undo.
    pub fn undo_rto(&mut self) {
        self.relost_q.clear();
        self.lost_q.clear();
        for g in self.segs.iter_mut() {
            if g.st & (LOST | SACKED) == LOST {
                self.lost -= g.end - g.start;
            }
            g.st &= !LOST;
        }
    }

    /// Recompute every counter from the records (tests).
    #[cfg(test)]
    pub fn check(&self) {
        let (mut sacked, mut lost, mut retrans, mut n) = (0, 0, 0, 0);
        for (k, g) in self.segs.iter().enumerate() {
            assert!(g.start < g.end);
            if k > 0 {
                assert_eq!(self.segs[k - 1].end, g.start, "records are contiguous");
            }
            if g.st & SACKED != 0 {
                sacked += g.len();
                n += 1;
            } else {
                if g.st & LOST != 0 {
                    lost += g.len();
                }
                if g.st & RETRANS != 0 {
                    retrans += g.len();
                }
            }
        }
        assert_eq!(
            (sacked, lost, retrans, n),
            (self.sacked, self.lost, self.retrans, self.sacked_segs)
        );
    }
}

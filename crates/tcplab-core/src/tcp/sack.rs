//! SACK-based loss recovery: the sender's scoreboard (RFC 6675) and Proportional Rate
//! Reduction (RFC 6937).
//!
//! References: RFC 2018 (SACK option), RFC 2883 (D-SACK), RFC 6675 ("A Conservative Loss
//! Recovery Algorithm Based on Selective Acknowledgment (SACK) for TCP"), RFC 6937
//! ("Proportional Rate Reduction for TCP").
//!
//! **Scoreboard.** Segments carry no payload and the sender keeps no per-segment state, so the
//! scoreboard is the set of SACKed byte ranges above `snd_una` (sorted, disjoint, merged) with
//! incremental counters. RFC 6675's quantities are then:
//! - *IsLost(S)* (§4): S is lost if `DupThresh` discontiguous SACKed ranges lie above it, or
//!   more than `(DupThresh − 1)·SMSS` SACKed bytes. Both counts only fall as S rises, so
//!   there is a *lost frontier* `L`, the start of the highest range `J` with
//!   `ranges(J..) ≥ DupThresh` or `bytes(J..) > (DupThresh − 1)·SMSS`: every unSACKed byte
//!   below `L` is lost, none above. Found from the top in at most `DupThresh` steps.
//! - *SetPipe* (§4): `pipe` counts each unSACKed byte in `[HighACK, HighData)` once if it
//!   is not lost and once more if it was retransmitted (below `HighRxt`, since retransmissions
//!   go upward through the holes within a phase):
//!   `pipe = (HighData − HighACK − sacked) − ((L − HighACK) − sacked_below(L))
//!          + ((HighRxt − HighACK) − sacked_below(HighRxt))`,
//!   with `sacked_below(L)` from the same top-down walk and `sacked_below(HighRxt)` a counter
//!   kept up to date by every change.
//! - *NextSeg* (§4): rule 1 the first unSACKed byte at or above `HighRxt` if below `L`;
//!   rule 2 new data; rule 3 (flow key `nextseg_rule3`, off by default) the first unSACKed
//!   byte at or above `HighRxt` below `HighData` (a segment not yet deemed lost). Rule 4
//!   (the optional rescue retransmission) is not implemented. `HighRxt` only rises within a
//!   phase, so the search is a cursor.
//!
//!   Rule 3 is a SHOULD in RFC 6675, for an application-limited sender. tcplab leaves it
//!   off by default, as Linux, whose SACK recovery retransmits only segments marked lost:
//!   with PRR sending from the first ack of recovery, rule 3 retransmits segments that are
//!   still on their way (a 40-segment transfer with 6 losses: 19 retransmissions, 13 of
//!   them duplicates at the receiver, against 6 and 0 without it).
//!
//! **FACK** (`loss_detection = "fack"`, M. Mathis and J. Mahdavi, "Forward
//! Acknowledgment", SIGCOMM 1996, as ns-2.35's Agent/TCP/Linux scoreboard has it:
//! tcp/scoreboard1.cc `ScoreBoard1::UpdateScoreBoard`, `MarkRetran`, `GetNextRetran`):
//! - the lost frontier is `L = fack − (DupThresh + 1)·SMSS`, `fack` the end of the highest
//!   SACKed byte: every unSACKed byte more than DupThresh + 1 segments below it is lost
//!   (ns-2: packet `p` is lost when `p ≤ fack_ − (dupack_threshold + 1)`);
//! - a retransmission is lost again when data first sent after it is SACKed (`fack` above
//!   the `snd_nxt` it was sent at), or when a retransmission sent more than DupThresh + 1
//!   retransmissions after it was delivered (ns-2's `acked_rtx_id_`; tcplab knows which
//!   retransmission an ack answers from its echoed send time and retransmission flag). It is
//!   then sent again before any other hole, and leaves `pipe` until it is.
//!
//!   Each retransmission of a phase is one entry of a queue in sending order (send time,
//!   ids and `snd_nxt` all rise along it), so both tests look at its front only and an
//!   answered retransmission is found by binary search on its send time: O(1) amortized
//!   plus O(log r) per ack, r the retransmissions outstanding, never the window. The queue
//!   is cleared when a phase starts or a timeout marks everything lost (ns-2's
//!   `MarkLoss`), and keeps its capacity.
//!
//! After a retransmission timeout the scoreboard is kept (as Linux does; RFC 2018 §8
//! suggests clearing it because a receiver may renege, which tcplab's receivers never do):
//! every unSACKed byte below `HighData` at the timeout counts as lost (a *loss floor*), and
//! the sender retransmits only those, in the algorithm's slow-start window, with `pipe`
//! limiting what is out.
//!
//! Costs (h = SACKed ranges held, at most one per hole; never the window):
//! - [`Scoreboard::add`]: O(1) when the block extends the highest range or starts a new one
//!   at the top (nearly every SACK: new data arrives above the holes); otherwise O(log h)
//!   to find the place plus, when a range is inserted or ranges merge in the middle, a
//!   shift of the shorter side of the ring buffer (`VecDeque`), O(min(i, h − i)) 16-byte
//!   moves.
//! - [`Scoreboard::advance`] (cumulative ack): amortized O(1) (each range is removed once).
//! - [`Scoreboard::lost_frontier`], [`Scoreboard::pipe`]: O(DupThresh).
//! - [`Scoreboard::next_hole`]: O(log h). [`Scoreboard::retransmitted`]: O(log h) plus the
//!   ranges `HighRxt` passes, each once per phase (amortized O(1)).
//!
//! Storage is one `VecDeque` that grows to the largest number of holes and keeps its
//! capacity: no allocation in steady state.
//!
//! **PRR** (RFC 6937 §3): at the start of recovery `RecoverFS = snd.nxt − snd.una`,
//! `prr_delivered = prr_out = 0`. On every ack in recovery
//! `DeliveredData = Δsnd.una + ΔSACKed`, `prr_delivered += DeliveredData`, then
//! - if `pipe > ssthresh`: `sndcnt = ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out`
//! - else SSRB: `sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + MSS)`,
//!   CRB: `sndcnt = min(ssthresh − pipe, prr_delivered − prr_out)`
//!
//! and `sndcnt = max(sndcnt, 0)`; every transmission adds to `prr_out`. `ssthresh` here is
//! the window the congestion-control algorithm set in `on_congestion` (`ssthresh` for the
//! Reno family). A segment goes out when `sndcnt` covers it.

use crate::tcp::Prr;
use crate::time::SimTime;
use std::collections::VecDeque;

/// A sequence number and the SACKed bytes below it (kept current by every change).
#[derive(Clone, Copy, Debug, Default)]
struct Pivot {
    at: u64,
    below: u64,
}

impl Pivot {
    /// Bytes of `[s, e)` below the pivot.
    #[inline]
    fn part(&self, s: u64, e: u64) -> u64 {
        e.min(self.at).saturating_sub(s)
    }
}

/// SACKed ranges above `snd_una` and RFC 6675's counters (see the module text).
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// `[start, end)`, sorted, disjoint and not adjacent.
    ranges: VecDeque<(u64, u64)>,
    /// Bytes in `ranges`.
    sacked: u64,
    /// HighRxt (end of the highest byte retransmitted in this phase) and the SACKed bytes
    /// below it.
    rxt: Pivot,
    /// After a timeout: every unSACKed byte below `floor.at` is lost (0 = none).
    floor: Pivot,
    dupthresh: u64,
    mss: u64,
    /// The most ranges ever held (bench: the scoreboard's scale).
    max_ranges: usize,
    /// `loss_detection = "fack"`: FACK's frontier and lost-retransmission detection.
    fack: Option<Box<Fack>>,
}

/// One retransmission of the current phase (FACK).
#[derive(Clone, Copy, Debug)]
struct Rtx {
    seq: u64,
    end: u64,
    /// When it was sent (the ack that answers it echoes this time).
    at: SimTime,
    /// `snd_nxt` when it was sent.
    nxt: u64,
    id: u64,
}

/// FACK's lost-retransmission state (module text).
#[derive(Clone, Debug, Default)]
struct Fack {
    /// Retransmissions not yet delivered nor found lost, in sending order.
    sent: VecDeque<Rtx>,
    /// Retransmissions found lost again, waiting to be sent again, lowest id first.
    relost: VecDeque<(u64, u64)>,
    /// Bytes in `relost` (out of `pipe`).
    relost_bytes: u64,
    next_id: u64,
    /// The id of the latest retransmission known delivered (`None`: none yet).
    acked_id: Option<u64>,
    /// Retransmissions found lost again (a statistic).
    lost_retransmissions: u64,
}

impl Scoreboard {
    pub fn new(dupthresh: u32, mss: u32) -> Self {
        Scoreboard {
            ranges: VecDeque::new(), // grows at the first SACK block
            sacked: 0,
            rxt: Pivot::default(),
            floor: Pivot::default(),
            dupthresh: dupthresh.max(1) as u64,
            mss: mss as u64,
            max_ranges: 0,
            fack: None,
        }
    }

    /// The same with FACK's rules (`loss_detection = "fack"`).
    pub fn with_fack(mut self) -> Self {
        self.fack = Some(Box::default());
        self
    }

    /// Whether FACK's rules are on.
    pub fn is_fack(&self) -> bool {
        self.fack.is_some()
    }

    /// FACK: retransmissions found lost again so far.
    pub fn lost_retransmissions(&self) -> u64 {
        self.fack.as_ref().map_or(0, |f| f.lost_retransmissions)
    }

    /// FACK: forget the phase's retransmissions (a new phase, a timeout, the end of
    /// recovery).
    fn fack_reset(&mut self) {
        if let Some(f) = self.fack.as_deref_mut() {
            f.sent.clear();
            f.relost.clear();
            f.relost_bytes = 0;
            f.acked_id = None;
        }
    }

    /// FACK: `[seq, end)` was (re)transmitted at `at` with `snd_nxt = nxt`.
    pub fn fack_sent(&mut self, seq: u64, end: u64, at: SimTime, nxt: u64) {
        let Some(f) = self.fack.as_deref_mut() else {
            return;
        };
        if f.relost.front().is_some_and(|&(s, _)| s == seq) {
            let (s, e) = f.relost.pop_front().unwrap();
            f.relost_bytes -= e - s;
        }
        let id = f.next_id;
        f.next_id += 1;
        f.sent.push_back(Rtx {
            seq,
            end,
            at,
            nxt,
            id,
        });
    }

    /// FACK, after an ack's SACK blocks and cumulative ack are in: `answered` is the send
    /// time the ack echoes when it answers a retransmission. Finds the retransmissions lost
    /// again (module text).
    pub fn fack_on_ack(&mut self, una: u64, answered: Option<SimTime>) {
        let Some(mut f) = self.fack.take() else {
            return;
        };
        if let Some(t) = answered {
            // The latest retransmission sent at or before the echoed time.
            let i = f.sent.partition_point(|r| r.at <= t);
            if i > 0 {
                let id = f.sent[i - 1].id;
                f.acked_id = Some(f.acked_id.map_or(id, |a| a.max(id)));
            }
        }
        let top = self.ranges.back().map_or(0, |r| r.1);
        while let Some(r) = f.sent.front().copied() {
            if r.end <= una || self.covers(r.seq, r.end) {
                f.sent.pop_front();
            } else if top > r.nxt || f.acked_id.is_some_and(|a| r.id + self.dupthresh + 1 < a) {
                f.sent.pop_front();
                f.relost.push_back((r.seq, r.end));
                f.relost_bytes += r.end - r.seq;
                f.lost_retransmissions += 1;
            } else {
                break;
            }
        }
        while let Some(&(s, e)) = f.relost.front() {
            if e <= una || self.covers(s, e) {
                f.relost.pop_front();
                f.relost_bytes -= e - s;
            } else {
                break;
            }
        }
        self.fack = Some(f);
    }

    /// FACK: the retransmission to send again first, if one was lost again.
    pub fn relost(&self) -> Option<(u64, u64)> {
        self.fack
            .as_deref()
            .and_then(|f| f.relost.front())
            .map(|&(s, e)| (s, e - s))
    }

    /// SACKed bytes above `snd_una`.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }
    /// Number of SACKed ranges (one per hole above the first).
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }
    /// The most SACKed ranges held at once so far.
    pub fn max_ranges(&self) -> usize {
        self.max_ranges
    }
    /// HighRxt: the end of the highest byte retransmitted in this phase.
    pub fn high_rxt(&self) -> u64 {
        self.rxt.at
    }
    /// The SACKed ranges, lowest first (tests, traces).
    pub fn iter(&self) -> impl Iterator<Item = &(u64, u64)> {
        self.ranges.iter()
    }

    /// Forget every SACKed range, the phase and the loss floor (`sack_clear_at_exit`: ns-2.35's
    /// `ScoreBoard1::ClearScoreBoard`); the next SACK blocks start a new board.
    pub fn clear(&mut self, una: u64) {
        self.ranges.clear();
        self.sacked = 0;
        self.floor = Pivot::default();
        self.start_phase(una);
    }

    /// A new recovery phase starts at `una`: nothing retransmitted yet (HighRxt = HighACK).
    pub fn start_phase(&mut self, una: u64) {
        self.rxt = Pivot { at: una, below: 0 };
        self.fack_reset();
    }

    /// A retransmission timeout at `high_data`: every unSACKed byte below it is lost.
    pub fn set_loss_floor(&mut self, una: u64, high_data: u64) {
        self.start_phase(una);
        self.floor = Pivot {
            at: high_data,
            below: self.sacked,
        };
    }

    /// Forget the loss floor of a timeout (the timeout was spurious: undo).
    pub fn clear_loss_floor(&mut self) {
        self.floor = Pivot::default();
    }

    /// Cumulative ack up to `una`: forget the ranges below it. Returns the SACKed bytes
    /// removed (RFC 6937's ΔSACKed counts them negatively). Amortized O(1).
    #[inline]
    pub fn advance(&mut self, una: u64) -> u64 {
        let mut removed = 0;
        while let Some(&(s, e)) = self.ranges.front() {
            if s >= una {
                break;
            }
            let cut = e.min(una);
            removed += cut - s;
            self.rxt.below -= self.rxt.part(s, cut);
            self.floor.below -= self.floor.part(s, cut);
            if e <= una {
                self.ranges.pop_front();
            } else {
                // Cannot happen with a receiver that acks what it holds; kept exact anyway.
                self.ranges[0].0 = una;
                break;
            }
        }
        self.sacked -= removed;
        if self.rxt.at < una {
            self.rxt = Pivot { at: una, below: 0 };
        }
        if self.floor.at <= una {
            self.floor = Pivot::default();
        }
        removed
    }

    /// Record the SACK block `[s, e)`, clipped to `[una, high_data)`. Returns the bytes
    /// newly SACKed. O(1) at the top, else O(log h) + the shift (module text).
    #[inline]
    pub fn add(&mut self, una: u64, high_data: u64, s: u64, e: u64) -> u64 {
        self.add_with(una, high_data, s, e, |_, _| {})
    }

    /// [`Scoreboard::add`], calling `f(start, end)` for each newly SACKed sub-range (RACK
    /// marks the segments there, [`crate::tcp::rack`]). Same costs.
    pub fn add_with(
        &mut self,
        una: u64,
        high_data: u64,
        s: u64,
        e: u64,
        mut f: impl FnMut(u64, u64),
    ) -> u64 {
        let (s, e) = (s.max(una), e.min(high_data));
        if s >= e {
            return 0;
        }
        // Fast path: at or above the highest range.
        let (ns, ne) = match self.ranges.back_mut() {
            None => {
                self.ranges.push_back((s, e));
                self.max_ranges = self.max_ranges.max(1);
                (s, e)
            }
            Some(last) if s > last.1 => {
                self.ranges.push_back((s, e));
                self.max_ranges = self.max_ranges.max(self.ranges.len());
                (s, e)
            }
            Some(last) if s >= last.0 => {
                if e <= last.1 {
                    return 0;
                }
                let from = last.1;
                last.1 = e;
                (from, e)
            }
            Some(_) => return self.add_middle(s, e, f),
        };
        f(ns, ne);
        let new = ne - ns;
        self.sacked += new;
        self.rxt.below += self.rxt.part(ns, ne);
        self.floor.below += self.floor.part(ns, ne);
        new
    }

    fn add_middle(&mut self, s: u64, e: u64, mut f: impl FnMut(u64, u64)) -> u64 {
        // First range ending at or after s (overlapping or adjacent).
        let i = self.ranges.partition_point(|&(_, re)| re < s);
        let (mut ns, mut ne) = (s, e);
        let (mut covered, mut cov_rxt, mut cov_floor) = (0, 0, 0);
        let mut j = i;
        let mut gap = s;
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            let (rs, re) = self.ranges[j];
            if rs > gap {
                f(gap, rs.min(e));
            }
            gap = gap.max(re);
            let (os, oe) = (rs.max(s), re.min(e));
            if os < oe {
                covered += oe - os;
                cov_rxt += self.rxt.part(os, oe);
                cov_floor += self.floor.part(os, oe);
            }
            ns = ns.min(rs);
            ne = ne.max(re);
            j += 1;
        }
        if gap < e {
            f(gap, e);
        }
        let new = (e - s) - covered;
        if new == 0 {
            return 0;
        }
        self.sacked += new;
        self.rxt.below += self.rxt.part(s, e) - cov_rxt;
        self.floor.below += self.floor.part(s, e) - cov_floor;
        if j > i {
            self.ranges[i] = (ns, ne);
            if j > i + 1 {
                self.ranges.drain(i + 1..j);
            }
        } else {
            self.ranges.insert(i, (ns, ne));
            self.max_ranges = self.max_ranges.max(self.ranges.len());
        }
        new
    }

    /// `[s, e)` lies inside one SACKed range. O(log h).
    pub fn covers(&self, s: u64, e: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, re)| re <= s);
        self.ranges
            .get(i)
            .is_some_and(|&(rs, re)| rs <= s && e <= re)
    }

    /// RFC 6675 IsLost as a frontier: every unSACKed byte below the returned `L` is lost
    /// (SACK evidence, or below the loss floor after a timeout), none above; `L ≥ una`.
    /// Also returns the SACKed bytes below `L`. O(DupThresh).
    pub fn lost_frontier(&self, una: u64) -> (u64, u64) {
        let mut above = 0;
        let mut l = (una, 0);
        if self.fack.is_some() {
            // FACK: DupThresh + 1 segments below the highest SACKed byte.
            let top = self.ranges.back().map_or(0, |r| r.1);
            let at = top.saturating_sub((self.dupthresh + 1) * self.mss);
            if at > una {
                for &(s, e) in self.ranges.iter().rev() {
                    if e <= at {
                        break;
                    }
                    above += e - s.max(at);
                    if s < at {
                        break;
                    }
                }
                l = (at, self.sacked - above);
            }
            return if self.floor.at > l.0 {
                (self.floor.at, self.floor.below)
            } else {
                l
            };
        }
        for (k, &(s, e)) in self.ranges.iter().rev().enumerate() {
            above += e - s;
            if k as u64 + 1 >= self.dupthresh || above > (self.dupthresh - 1) * self.mss {
                l = (s, self.sacked - above);
                break;
            }
        }
        if self.floor.at > l.0 {
            (self.floor.at, self.floor.below)
        } else {
            l
        }
    }

    /// RFC 6675 SetPipe: bytes presumed in the network. O(DupThresh).
    pub fn pipe(&self, una: u64, high_data: u64) -> u64 {
        let (l, sacked_below_l) = self.lost_frontier(una);
        let unsacked = high_data - una - self.sacked;
        let lost = (l.min(high_data) - una) - sacked_below_l.min(self.sacked);
        let retx = (self.rxt.at.max(una) - una) - self.rxt.below;
        let relost = self.fack.as_deref().map_or(0, |f| f.relost_bytes);
        (unsacked - lost.min(unsacked) + retx).saturating_sub(relost)
    }

    /// The first unSACKed byte at or above `max(HighRxt, una)` if it lies below `limit`,
    /// with the length to send there: up to `mss`, never into the next SACKed range.
    /// NextSeg rule 1 with `limit` = the lost frontier, rule 3 with `limit` = HighData.
    /// O(log h).
    pub fn next_hole(&self, una: u64, limit: u64) -> Option<(u64, u64)> {
        let mut p = self.rxt.at.max(una);
        let i = self.ranges.partition_point(|&(_, e)| e <= p);
        let next = match self.ranges.get(i) {
            Some(&(s, e)) if s <= p => {
                p = e;
                self.ranges.get(i + 1).map_or(u64::MAX, |r| r.0)
            }
            Some(&(s, _)) => s,
            None => u64::MAX,
        };
        if p >= limit {
            return None;
        }
        Some((p, self.mss.min(next - p).min(limit - p)))
    }

    /// The length of the segment at `una` (RFC 6675 (4.3)'s first retransmission): up to
    /// `mss`, never into the first SACKed range. O(1).
    pub fn head_len(&self, una: u64) -> u64 {
        self.ranges
            .front()
            .map_or(self.mss, |r| self.mss.min(r.0.saturating_sub(una).max(1)))
    }

    /// `[seq, seq + len)` was retransmitted: HighRxt moves to its end if higher. O(log h)
    /// plus the ranges passed (each once per phase).
    pub fn retransmitted(&mut self, seq: u64, len: u64) {
        let new = seq + len;
        let old = self.rxt.at;
        if new <= old {
            return;
        }
        let mut i = self.ranges.partition_point(|&(_, e)| e <= old);
        while let Some(&(s, e)) = self.ranges.get(i) {
            if s >= new {
                break;
            }
            self.rxt.below += e.min(new) - s.max(old);
            i += 1;
        }
        self.rxt.at = new;
    }

    /// Recompute every counter from the ranges (tests).
    #[cfg(test)]
    fn check(&self) {
        let mut last_end = None;
        let (mut sacked, mut b_rxt, mut b_floor) = (0, 0, 0);
        for &(s, e) in &self.ranges {
            assert!(s < e, "empty range");
            if let Some(le) = last_end {
                assert!(s > le, "ranges overlap or touch: {:?}", self.ranges);
            }
            last_end = Some(e);
            sacked += e - s;
            b_rxt += self.rxt.part(s, e);
            b_floor += self.floor.part(s, e);
        }
        assert_eq!(sacked, self.sacked);
        assert_eq!(b_rxt, self.rxt.below, "sacked below HighRxt");
        assert_eq!(b_floor, self.floor.below, "sacked below the loss floor");
    }
}

/// RFC 6937 state for one recovery.
#[derive(Clone, Copy, Debug)]
pub struct PrrState {
    mode: Prr,
    recover_fs: u64,
    /// The target window (ssthresh).
    target: u64,
    delivered: u64,
    out: u64,
    /// Bytes that may still be sent on the current ack (`sndcnt` minus what went out since).
    quota: i64,
    /// Rate halving's limit N ([`Prr::RateHalving`]), bytes.
    next: u64,
}

impl PrrState {
    pub fn new(mode: Prr) -> Self {
        PrrState {
            mode,
            recover_fs: 0,
            target: 0,
            delivered: 0,
            out: 0,
            quota: 0,
            next: 0,
        }
    }
    /// RFC 6937 in force (SSRB or CRB).
    pub fn enabled(&self) -> bool {
        matches!(self.mode, Prr::Ssrb | Prr::Crb)
    }
    /// [`Prr::RateHalving`] in force.
    pub fn rate_halving(&self) -> bool {
        self.mode == Prr::RateHalving
    }
    /// Rate halving, at each output in recovery: `N = min(N, pipe + S)`
    /// (`LinuxTcpAgent::send_much`'s first step); returns the send limit `max(cwnd, N)`.
    pub fn rh_limit(&mut self, cwnd: u64, pipe: u64, mss: u64) -> u64 {
        self.next = self.next.min(pipe + mss);
        cwnd.max(self.next)
    }
    /// Rate halving: a segment went out, `pipe` after it: `N = min(N, max(pipe − S, S))`;
    /// returns the new limit `max(cwnd, N)`.
    pub fn rh_sent(&mut self, cwnd: u64, pipe: u64, mss: u64) -> u64 {
        self.next = self.next.min(pipe.saturating_sub(mss).max(mss));
        cwnd.max(self.next)
    }
    /// Recovery starts with `recover_fs = snd.nxt − snd.una` and the algorithm's new window.
    pub fn start(&mut self, recover_fs: u64, target: u64) {
        self.recover_fs = recover_fs.max(1);
        self.target = target;
        self.delivered = 0;
        self.out = 0;
        self.quota = 0;
        // ns-2 starts N at the window before the cut; the first output caps it at
        // pipe + S ≤ FlightSize, so FlightSize is the same start.
        self.next = recover_fs;
    }
    /// An ack in recovery delivered `delivered` bytes; `pipe` after it. Sets `sndcnt`
    /// (RFC 6937 §3) and returns it.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > self.target {
            let num = self.delivered as u128 * self.target as u128;
            let prop = num.div_ceil(self.recover_fs as u128) as u64;
            prop as i64 - self.out as i64
        } else {
            let room = (self.target - pipe) as i64;
            let spare = self.delivered as i64 - self.out as i64;
            let limit = match self.mode {
                Prr::Crb => spare,
                _ => spare.max(delivered as i64) + mss as i64,
            };
            room.min(limit)
        };
        self.quota = sndcnt.max(0);
        self.quota as u64
    }
    /// Bytes the current ack still allows.
    pub fn quota(&self) -> i64 {
        self.quota
    }
    /// `len` bytes went out (new data or a retransmission).
    pub fn sent(&mut self, len: u64) {
        self.out += len;
        self.quota -= len as i64;
    }
    /// Bytes sent since recovery began (`prr_out`).
    pub fn prr_out(&self) -> u64 {
        self.out
    }
    /// Bytes delivered since recovery began (`prr_delivered`).
    pub fn prr_delivered(&self) -> u64 {
        self.delivered
    }
}

/// A sender's SACK state: the scoreboard and PRR.
#[derive(Clone, Debug)]
pub struct SackState {
    pub sb: Scoreboard,
    pub prr: PrrState,
    /// NextSeg rule 3 (see the module text).
    pub rule3: bool,
    /// At a retransmission timeout the algorithm's FlightSize leaves out the SACKed bytes
    /// (flow key `rto_unsacked_flight`).
    pub rto_unsacked: bool,
    /// Forget the scoreboard when recovery ends (flow key `sack_clear_at_exit`).
    pub clear_at_exit: bool,
}

impl SackState {
    pub fn new(dupthresh: u32, mss: u32, prr: Prr, rule3: bool) -> Self {
        SackState {
            sb: Scoreboard::new(dupthresh, mss),
            prr: PrrState::new(prr),
            rule3,
            rto_unsacked: false,
            clear_at_exit: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1000;

    fn sb() -> Scoreboard {
        Scoreboard::new(3, S as u32)
    }

    /// Brute-force RFC 6675 SetPipe over single bytes.
    fn pipe_ref(b: &Scoreboard, una: u64, high: u64) -> u64 {
        let mss = b.mss;
        let sacked = |x: u64| b.iter().any(|&(s, e)| s <= x && x < e);
        let mut pipe = 0;
        for x in una..high {
            if sacked(x) {
                continue;
            }
            // IsLost: DupThresh discontiguous SACKed ranges above, or > (D−1)·S bytes.
            let above: Vec<_> = b.iter().filter(|&&(s, _)| s > x).collect();
            let bytes: u64 = above.iter().map(|&&(s, e)| e - s).sum();
            let lost = above.len() as u64 >= 3 || bytes > 2 * mss || x < b.floor.at;
            if !lost {
                pipe += 1;
            }
            if x < b.high_rxt() {
                pipe += 1;
            }
        }
        pipe
    }

    #[test]
    fn ranges_merge_and_split() {
        let mut b = sb();
        assert_eq!(b.add(0, 20 * S, 3 * S, 4 * S), S);
        assert_eq!(b.add(0, 20 * S, 4 * S, 5 * S), S, "extends the top");
        assert_eq!(b.add(0, 20 * S, 7 * S, 8 * S), S, "new range at the top");
        assert_eq!(b.add(0, 20 * S, 3 * S, 5 * S), 0, "old news");
        assert_eq!(b.add(0, 20 * S, 10 * S, 11 * S), S);
        b.check();
        // A block in the middle, then one bridging two ranges.
        assert_eq!(b.add(0, 20 * S, 9 * S, 9 * S + 500), 500);
        b.check();
        assert_eq!(b.ranges(), 4);
        // Covers 1.5 segments already SACKed... and 2.5 in all: 3.5 new.
        assert_eq!(b.add(0, 20 * S, 4 * S, 10 * S), 3 * S + 500);
        b.check();
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), [(3 * S, 11 * S)]);
        assert_eq!(b.sacked(), 8 * S);
        // Clipped to [una, high_data).
        assert_eq!(b.add(0, 12 * S, 11 * S, 15 * S), S);
        assert_eq!(b.add(2 * S, 12 * S, 0, 3 * S), S, "only [2S, 3S)");
        b.check();
        // Cumulative ack removes what lies below.
        assert_eq!(
            b.advance(5 * S),
            3 * S,
            "una inside a range: [2S, 5S) removed"
        );
        b.check();
        assert_eq!(b.sacked(), 7 * S);
        let mut b = sb();
        b.add(0, 20 * S, 2 * S, 3 * S);
        b.add(0, 20 * S, 5 * S, 6 * S);
        assert_eq!(b.advance(4 * S), S);
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), [(5 * S, 6 * S)]);
        b.check();
    }

    #[test]
    fn fack_frontier_is_dupthresh_plus_one_segments_below_the_highest_sack() {
        let mut b = sb().with_fack();
        // One SACKed segment at [4S, 5S): nothing is 4 segments below 5S but [0, S).
        b.add(0, 20 * S, 4 * S, 5 * S);
        assert_eq!(b.lost_frontier(0), (S, 0));
        // RFC 6675 would need three ranges or more than 2S SACKed for the same.
        assert_eq!(sb().lost_frontier(0), (0, 0));
        // A SACK up to 12S: everything unSACKed below 8S is lost; [4S, 5S) is below it.
        b.add(0, 20 * S, 10 * S, 12 * S);
        assert_eq!(b.lost_frontier(0), (8 * S, S));
        // The frontier inside a range counts the range's part below it.
        b.add(0, 20 * S, 6 * S, 12 * S);
        assert_eq!(b.lost_frontier(0), (8 * S, S + 2 * S));
        b.check();
    }

    #[test]
    fn fack_finds_a_lost_retransmission_by_new_data_sacked_above_it() {
        let t = |ms: u64| SimTime(ms * 1_000_000_000);
        let mut b = sb().with_fack();
        b.add(0, 20 * S, S, 10 * S); // [0, S) is lost
        b.start_phase(0);
        // Retransmit [0, S) when snd_nxt = 20S; then new data [20S, 21S) goes out.
        b.retransmitted(0, S);
        b.fack_sent(0, S, t(1), 20 * S);
        let pipe = b.pipe(0, 21 * S);
        b.fack_on_ack(0, None);
        assert_eq!(b.relost(), None, "nothing sent after it is SACKed yet");
        // The new segment is SACKed while [0, S) is still missing: lost again.
        b.add(0, 21 * S, 20 * S, 21 * S);
        let pipe_before = b.pipe(0, 21 * S);
        b.fack_on_ack(0, None);
        assert_eq!(b.relost(), Some((0, S)));
        assert_eq!(b.lost_retransmissions(), 1);
        assert_eq!(
            b.pipe(0, 21 * S),
            pipe_before - S,
            "out of pipe until sent again"
        );
        // Sent again: back in pipe, off the queue.
        b.fack_sent(0, S, t(2), 21 * S);
        assert_eq!(b.relost(), None);
        assert_eq!(b.pipe(0, 21 * S), pipe_before);
        assert!(pipe > 0);
        // Delivered: the cumulative ack clears it.
        b.advance(10 * S);
        b.fack_on_ack(10 * S, Some(t(2)));
        assert_eq!(b.relost(), None);
        assert_eq!(b.lost_retransmissions(), 1);
    }

    #[test]
    fn fack_finds_a_lost_retransmission_by_later_retransmissions_delivered() {
        let t = |ms: u64| SimTime(ms * 1_000_000_000);
        let mut b = sb().with_fack();
        // Holes at every other segment up to 20S, new data never sent (snd_nxt = 20S).
        for k in 0..10 {
            b.add(0, 20 * S, (2 * k + 1) * S, (2 * k + 2) * S);
        }
        b.start_phase(0);
        for k in 0..8 {
            b.retransmitted(2 * k * S, S);
            b.fack_sent(2 * k * S, (2 * k + 1) * S, t(k + 1), 20 * S);
        }
        // Retransmission id 4 (seq 8S) arrives: id 0 is not yet DupThresh + 1 behind.
        b.add(0, 20 * S, 8 * S, 9 * S);
        b.fack_on_ack(0, Some(t(5)));
        assert_eq!(b.relost(), None);
        // Id 5 (seq 10S) arrives: id 0 (seq 0) is lost again; id 1 not yet.
        b.add(0, 20 * S, 10 * S, 11 * S);
        b.fack_on_ack(0, Some(t(6)));
        assert_eq!(b.relost(), Some((0, S)));
        assert_eq!(b.lost_retransmissions(), 1);
        // Ids 1-3 (seq 2S, 4S, 6S) arrived in between: delivered, never lost.
        b.add(0, 20 * S, 2 * S, 8 * S);
        b.fack_on_ack(0, Some(t(7)));
        assert_eq!(b.lost_retransmissions(), 1);
        // A new phase forgets the queue.
        b.start_phase(0);
        assert_eq!(b.relost(), None);
        b.check();
    }

    #[test]
    fn is_lost_by_ranges_or_bytes() {
        let mut b = sb();
        // Two single-segment ranges above 0: not lost (2 < DupThresh, 2S ≤ 2S).
        b.add(0, 20 * S, S, 2 * S);
        b.add(0, 20 * S, 3 * S, 4 * S);
        assert_eq!(b.lost_frontier(0).0, 0);
        // A third range: the hole below the lowest of the top three is lost.
        b.add(0, 20 * S, 5 * S, 6 * S);
        assert_eq!(b.lost_frontier(0), (S, 0));
        // Bytes: 3 contiguous segments above 10S make [6S, 10S) lost too.
        b.add(0, 20 * S, 10 * S, 13 * S);
        assert_eq!(b.lost_frontier(0), (10 * S, 3 * S));
        b.check();
    }

    #[test]
    fn pipe_matches_the_rfc_definition() {
        // Holes at 0, 2, 5-6, 9; SACKed 1, 3-4, 7-8, 10-11; HighData 12 segments.
        let mut b = sb();
        for (s, e) in [(1, 2), (3, 5), (7, 9), (10, 12)] {
            b.add(0, 12 * S, s * S, e * S);
        }
        b.check();
        b.start_phase(0);
        assert_eq!(b.pipe(0, 12 * S), pipe_ref(&b, 0, 12 * S));
        // Retransmit the first two lost holes: NextSeg goes upward.
        let (l, _) = b.lost_frontier(0);
        assert_eq!(
            l,
            7 * S,
            "3 ranges above 5S-7S... the frontier is the 3rd from the top"
        );
        let mut sent = vec![];
        while let Some((seq, len)) = b.next_hole(0, l) {
            b.retransmitted(seq, len);
            b.check();
            sent.push(seq / S);
            assert_eq!(b.pipe(0, 12 * S), pipe_ref(&b, 0, 12 * S), "after {sent:?}");
        }
        assert_eq!(sent, [0, 2, 5, 6]);
        // Rule 3: the next unSACKed segment not lost.
        assert_eq!(b.next_hole(0, 12 * S), Some((9 * S, S)));
        // A retransmission arrives: the cumulative ack moves to 2S, a SACK for 5S.
        b.advance(2 * S);
        b.add(2 * S, 12 * S, 5 * S, 6 * S);
        b.check();
        assert_eq!(b.pipe(2 * S, 12 * S), pipe_ref(&b, 2 * S, 12 * S));
        // Timeout: everything unSACKed below HighData is lost.
        b.set_loss_floor(2 * S, 12 * S);
        b.check();
        assert_eq!(b.pipe(2 * S, 12 * S), 0);
        assert_eq!(
            b.next_hole(2 * S, b.lost_frontier(2 * S).0),
            Some((2 * S, S))
        );
        b.advance(13 * S);
        b.check();
        assert_eq!(b.ranges(), 0);
    }

    #[test]
    fn randomized_counters_stay_exact() {
        // Segments of 10 bytes so that the byte-by-byte reference stays cheap.
        const S: u64 = 10;
        let mut rng = crate::rng::SimRng::derive(7, crate::rng::Stream::Flow, 0);
        for _ in 0..50 {
            let mut b = Scoreboard::new(3, S as u32);
            let mut una = 0;
            let high = 200 * S;
            b.start_phase(0);
            for step in 0..300 {
                let r = rng.next_u64();
                match r % 8 {
                    0 => {
                        una = (una + (r >> 8) % (5 * S)).min(high);
                        b.advance(una);
                    }
                    1 => {
                        let l = b.lost_frontier(una).0;
                        if let Some((seq, len)) = b.next_hole(una, l.max(una + S).min(high)) {
                            b.retransmitted(seq, len);
                        }
                    }
                    2 if step == 150 => b.set_loss_floor(una, high),
                    _ => {
                        let s = una + (r >> 8) % (80 * S);
                        let e = s + 1 + (r >> 40) % (4 * S);
                        let mut parts = 0;
                        let new = b.add_with(una, high, s, e, |ps, pe| {
                            assert!(ps < pe && pe <= e && ps >= s.max(una));
                            parts += pe - ps;
                        });
                        assert_eq!(parts, new, "add_with reports exactly the new bytes");
                        if new > 0 {
                            assert!(b.covers(s.max(una), e.min(high)));
                        }
                    }
                }
                b.check();
                if step % 25 == 0 {
                    assert_eq!(b.pipe(una, high), pipe_ref(&b, una, high));
                }
            }
        }
    }

    #[test]
    fn prr_sends_in_proportion_then_slow_starts_back() {
        // RecoverFS 20 segments, ssthresh 10: while pipe > ssthresh, one segment per two
        // delivered.
        let mut p = PrrState::new(Prr::Ssrb);
        p.start(20 * S, 10 * S);
        let mut sent = 0;
        for k in 0..8 {
            let q = p.on_ack(S, 18 * S - k * S, S);
            if q >= S {
                p.sent(S);
                sent += 1;
            }
        }
        assert_eq!(sent, 4);
        assert_eq!((p.prr_delivered(), p.prr_out()), (8 * S, 4 * S));
        // pipe below ssthresh: SSRB allows up to ssthresh − pipe, bounded by what was
        // delivered and not yet sent plus one MSS; CRB only by what was delivered.
        assert_eq!(
            p.on_ack(S, 5 * S, S),
            5 * S,
            "min(10 − 5, max(9 − 4, 1) + 1)"
        );
        let mut c = PrrState::new(Prr::Crb);
        c.start(20 * S, 10 * S);
        assert_eq!(c.on_ack(S, 5 * S, S), S, "min(10 − 5, 1 − 0)");
        let mut d = PrrState::new(Prr::Ssrb);
        d.start(20 * S, 10 * S);
        assert_eq!(d.on_ack(S, 5 * S, S), 2 * S, "min(10 − 5, max(1, 1) + 1)");
    }

    /// ns-2.35's `next_pkts_in_flight_`: from a flight of 20 segments with cwnd 12, each
    /// ack delivering one segment lets one out every second ack, so the flight falls by one
    /// per two acks until cwnd rules; then one out per ack.
    #[test]
    fn rate_halving_lets_one_segment_out_per_two_acks_down_to_cwnd() {
        let mut p = PrrState::new(Prr::RateHalving);
        assert!(p.rate_halving() && !p.enabled(), "no RFC 6937 quota");
        p.start(20 * S, 12 * S);
        let cwnd = 12 * S;
        let mut pipe = 19 * S; // the first ack delivered one; the hole is resent
        let mut flights = Vec::new();
        for _ in 0..24 {
            let mut limit = p.rh_limit(cwnd, pipe, S);
            while pipe + S <= limit {
                pipe += S;
                limit = p.rh_sent(cwnd, pipe, S);
            }
            flights.push(pipe / S);
            pipe -= S; // the next ack delivers one segment
        }
        assert_eq!(&flights[..6], &[20, 19, 19, 18, 18, 17]);
        assert!(flights[20..].iter().all(|&f| f == 12), "{flights:?}");
        // The limit never falls below cwnd, nor N below one segment.
        let mut q = PrrState::new(Prr::RateHalving);
        q.start(4 * S, 2 * S);
        assert_eq!(q.rh_sent(2 * S, 0, S), 2 * S);
        assert_eq!(q.rh_limit(0, 0, S), S);
    }

    /// `sack_clear_at_exit`: the board forgets every range, the phase and the loss floor;
    /// the next blocks start afresh, and FACK's frontier then comes from them alone.
    #[test]
    fn clear_forgets_the_board_and_fack_rebuilds_from_the_next_blocks() {
        let mut b = Scoreboard::new(3, S as u32).with_fack();
        b.add(0, 40 * S, 10 * S, 12 * S);
        b.add(0, 40 * S, 20 * S, 30 * S);
        b.set_loss_floor(0, 40 * S);
        assert_eq!((b.ranges(), b.sacked()), (2, 12 * S));
        b.clear(5 * S);
        assert_eq!((b.ranges(), b.sacked(), b.high_rxt()), (0, 0, 5 * S));
        assert_eq!(b.pipe(5 * S, 40 * S), 35 * S, "nothing SACKed nor lost");
        b.add(5 * S, 40 * S, 28 * S, 30 * S);
        // Everything unSACKed more than DupThresh + 1 segments below the highest SACKed byte
        // is lost again, the segments SACKed before the clear included.
        let (lost, _) = b.lost_frontier(5 * S);
        assert_eq!(lost, 26 * S, "30 − (3 + 1) segments");
        b.check();
    }
}

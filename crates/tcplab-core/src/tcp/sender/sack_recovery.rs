//! RFC 6675 SACK-based loss recovery with PRR (RFC 6937), run out of line so that flows
//! without SACK pay one branch: the scoreboard update per ack, entering recovery (the
//! `dupack_threshold`-th duplicate ack that SACKs new data, or IsLost on the first
//! unacknowledged byte), and sending per NextSeg within `cwnd − pipe`, what PRR allows, or
//! rate halving's limit (`prr = "rate_halving"`, [`Prr::RateHalving`]).
//! The scoreboard and its rules are [`crate::tcp::sack`].

use super::*;

impl TcpSender {
    /// SACK flows: the scoreboard (and with RACK its per-segment board: RACK steps 1-2 for
    /// the segments this ack delivers) learns one ack (after `snd_una` moved).
    #[inline(never)]
    pub(super) fn sack_update(&mut self, now: SimTime, pkt: &Packet, newly: u64) -> SackUpdate {
        let (una, high) = (self.snd_una, self.snd_max);
        let st = self.sack.as_deref_mut().expect("SACK state");
        let mut rack = self.rack.as_deref_mut();
        let min_rtt = match rack {
            Some(_) => self.rtt.min_rtt().map_or(0, |d| d.0),
            None => 0,
        };
        let removed = st.sb.advance(una);
        if let Some(r) = rack.as_deref_mut() {
            r.advance(una, now, min_rtt);
        }
        let mut newly_sacked = 0;
        let mut newest = None;
        let mut dsack = None;
        if pkt.has(flags::SACK) {
            let d = pkt.has(flags::DSACK);
            for (k, &(s, e)) in pkt.sack_blocks().iter().enumerate() {
                if k == 0 && d {
                    self.stats.dsacks_received += 1;
                    dsack = Some((s, e));
                    continue;
                }
                let n = match rack.as_deref_mut() {
                    // RACK marks the segments in each newly SACKed part (steps 1-2).
                    Some(r) => {
                        let parts = r.parts_mut();
                        st.sb.add_with(una, high, s, e, |a, b| parts.push((a, b)))
                    }
                    None => st.sb.add(una, high, s, e),
                };
                if n > 0 && newest.is_none() {
                    newest = Some(e);
                }
                newly_sacked += n;
            }
            if let Some(r) = rack {
                let sb = &st.sb;
                r.sack_parts(now, min_rtt, |a, b| sb.covers(a, b));
            }
        }
        if st.sb.is_fack() {
            let answered = pkt.has(flags::RETX).then_some(pkt.ts);
            st.sb.fack_on_ack(una, answered);
        }
        SackUpdate {
            // RFC 6937: DeliveredData = Δsnd.una + ΔSACKed (SACKed bytes now acked count once).
            delivered: newly + newly_sacked - removed,
            newly_sacked,
            newest,
            dsack,
        }
    }

    /// SACK flows, the common case inline: an ack without SACK blocks, in the open state,
    /// with nothing SACKed and no RACK board, is what [`TcpSender::sack_on_ack`] would
    /// make of it in a few instructions (the scoreboard drops nothing, `DeliveredData` is
    /// the newly acked bytes, a duplicate ack without new SACK information does not
    /// count). Returns false, having changed nothing, when the full rules must run.
    #[inline]
    pub(super) fn sack_on_ack_plain(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        sacked: &Option<SackUpdate>,
    ) -> bool {
        if sacked.is_some()
            || self.rack.is_some()
            || self.rec.state != CaState::Open
            || pkt.has(flags::SACK)
        {
            return false;
        }
        let una = self.snd_una;
        let st = self.sack.as_deref_mut().expect("SACK state");
        if st.sb.ranges() > 0 {
            return false;
        }
        st.sb.advance(una);
        if newly > 0 {
            self.rec.dupacks = 0;
        }
        if self.rec.dupacks >= self.dupack_threshold {
            self.maybe_enter_sack_recovery(now, newly);
        }
        true
    }

    /// SACK flows: the RFC 6675 state machine (or RACK's) for one ack (after the scoreboard
    /// update and after the algorithm saw the ack); `sacked` is the scoreboard update's
    /// result when it already ran (rate sampling runs it before the algorithm sees the ack).
    #[inline(never)]
    pub(super) fn sack_on_ack(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        dup: bool,
        sacked: Option<SackUpdate>,
    ) {
        let upd = match sacked {
            Some(u) => u,
            None => self.sack_update(now, pkt, newly),
        };
        if self.rack.is_some() {
            return self.rack_on_ack(now, newly, upd);
        }
        let (delivered, newly_sacked) = (upd.delivered, upd.newly_sacked);
        let (una, high) = (self.snd_una, self.snd_max);
        let st = self.sack.as_deref_mut().expect("SACK state");
        match self.rec.state {
            CaState::Recovery => {
                if newly > 0 && una >= self.rec.recover {
                    // RFC 6675 (A): RecoveryPoint acknowledged. The scoreboard above it is kept
                    // (ns-2's Agent/TCP/Linux forgets it: `sack_clear_at_exit`).
                    if st.clear_at_exit {
                        st.sb.clear(una);
                    }
                    self.rec.state = CaState::Open;
                    if !st.sb.is_fack() {
                        self.out_slow &= !OUT_SACK;
                    }
                    self.rec.dupacks = 0;
                    let view = self.view();
                    self.cc.on_recovery_exit(now, &view);
                    self.maybe_enter_sack_recovery(now, 0);
                } else if st.prr.enabled() {
                    let pipe = st.sb.pipe(una, high);
                    let sndcnt = st.prr.on_ack(delivered, pipe, self.mss as u64);
                    self.rec.window = pipe + sndcnt;
                }
            }
            CaState::Open | CaState::Loss => {
                if newly > 0 {
                    self.rec.dupacks = 0;
                    if self.rec.state == CaState::Loss && una >= self.rec.recover {
                        self.rec.state = CaState::Open;
                        self.out_slow &= !OUT_SACK;
                    }
                }
                // RFC 6675 §2: a duplicate ack SACKs data not SACKed before.
                if dup && newly_sacked > 0 {
                    self.rec.dupacks += 1;
                }
                self.maybe_enter_sack_recovery(now, delivered);
            }
        }
    }

    /// RFC 6675 §5 steps (1)-(2): in the open state, `DupThresh` duplicate acks or
    /// IsLost(HighACK + 1) start recovery (step 4).
    pub(super) fn maybe_enter_sack_recovery(&mut self, now: SimTime, delivered: u64) {
        if self.rec.state != CaState::Open || self.snd_una >= self.snd_max {
            return;
        }
        let st = self.sack.as_deref().expect("SACK state");
        let lost_head = st.sb.ranges() > 0 && st.sb.lost_frontier(self.snd_una).0 > self.snd_una;
        // FACK (ns-2's Agent/TCP/Linux) starts recovery on the scoreboard's loss marks only.
        if (self.rec.dupacks < self.dupack_threshold || st.sb.is_fack()) && !lost_head {
            return;
        }
        // (4.1) RecoveryPoint = HighData; (4.2) the algorithm sets its windows.
        self.begin_recovery(now);
        self.out_slow |= OUT_SACK;
        let (una, high) = (self.snd_una, self.snd_max);
        let cwnd = self.cc.cwnd();
        let mss = self.mss as u64;
        let st = self.sack.as_deref_mut().expect("SACK state");
        st.sb.start_phase(una);
        st.prr.start(high - una, cwnd);
        self.rec.window = if st.prr.enabled() {
            let pipe = st.sb.pipe(una, high);
            pipe + st.prr.on_ack(delivered, pipe, mss)
        } else {
            cwnd
        };
        // (4.3) Retransmit the first segment (HighACK + 1) whatever the window says: the
        // `output` call that ends every ack sends it first (or when the IP queue gate opens).
        self.ipq.retx_pending = true;
    }

    /// Send one SACK-rule segment of at most `cap` bytes at `seq`: a retransmission below
    /// `snd_max` (HighRxt moves), else new data at `snd_nxt`. Returns the bytes sent.
    pub(super) fn sack_send(
        &mut self,
        now: SimTime,
        seq: u64,
        cap: u64,
        out: &mut impl FnMut(Packet),
    ) -> u64 {
        let retx = seq < self.snd_max;
        let len = self.send_capped(now, seq, cap.min(self.mss as u64) as u32, out) as u64;
        let st = self.sack.as_deref_mut().expect("SACK state");
        if retx {
            st.sb.retransmitted(seq, len);
            st.sb.fack_sent(seq, seq + len, now, self.snd_nxt);
        } else {
            self.snd_nxt = seq + len;
            self.snd_max = self.snd_nxt;
        }
        if self.rec.state == CaState::Recovery {
            st.prr.sent(len);
        }
        len
    }

    /// RFC 6675 step (C), for SACK recovery and after a timeout with SACK: send per NextSeg
    /// while the window (`cwnd − pipe`, or PRR's `sndcnt`) allows.
    #[inline(never)]
    pub(super) fn sack_output(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.rack.is_some() {
            return self.rack_output(now, out);
        }
        let mss = self.mss as u64;
        let recovery = self.rec.state == CaState::Recovery;
        // Rate halving ([`Prr::RateHalving`]) limits by max(cwnd, N), N updated per send.
        let rh = recovery && self.sack.as_deref().is_some_and(|st| st.prr.rate_halving());
        let rh_cwnd = if rh {
            self.cc.cwnd().min(self.max_window)
        } else {
            0
        };
        if self.ipq.retx_pending && self.gate_open() {
            self.ipq.retx_pending = false;
            if self.snd_una < self.snd_max {
                let (una, high) = (self.snd_una, self.snd_max);
                let st = self.sack.as_deref_mut().expect("SACK state");
                let cap = st.sb.head_len(una);
                if rh {
                    let pipe = st.sb.pipe(una, high);
                    st.prr.rh_limit(rh_cwnd, pipe, mss);
                }
                self.sack_send(now, una, cap, out);
                if rh {
                    let st = self.sack.as_deref_mut().expect("SACK state");
                    let pipe = st.sb.pipe(self.snd_una, self.snd_max);
                    st.prr.rh_sent(rh_cwnd, pipe, mss);
                }
            }
        }
        let (una, high) = (self.snd_una, self.snd_max);
        let st = self.sack.as_deref_mut().expect("SACK state");
        let mut pipe = st.sb.pipe(una, high);
        let lost = st.sb.lost_frontier(una).0;
        let prr = recovery && st.prr.enabled();
        let mut cwnd = if rh {
            st.prr.rh_limit(rh_cwnd, pipe, mss).min(self.max_window)
        } else {
            self.window()
        };
        loop {
            if !self.gate_open() {
                break;
            }
            let (una, nxt) = (self.snd_una, self.snd_nxt);
            let st = self.sack.as_deref().expect("SACK state");
            // NextSeg: (1) a lost hole (with FACK a retransmission lost again first), (2) new
            // data, (3) an unSACKed segment not yet lost.
            let seg = st
                .sb
                .relost()
                .or_else(|| st.sb.next_hole(una, lost))
                .or_else(|| {
                    let len = self.buf.app_limit.saturating_sub(nxt).min(mss);
                    if len > 0 && nxt + len <= (una + self.max_window).min(self.rwnd.edge) {
                        Some((nxt, len))
                    } else if recovery && st.rule3 {
                        st.sb.next_hole(una, nxt)
                    } else {
                        None
                    }
                });
            let Some((seq, len)) = seg else { break };
            let allowed = if prr {
                st.prr.quota() >= len as i64
            } else {
                pipe == 0 || cwnd >= pipe + mss
            };
            if !allowed || self.pace_blocked(now) {
                break;
            }
            pipe += self.sack_send(now, seq, len, out);
            if rh {
                let st = self.sack.as_deref_mut().expect("SACK state");
                cwnd = st.prr.rh_sent(rh_cwnd, pipe, mss).min(self.max_window);
            }
        }
    }
}

impl RecoveryOps for SackOps {
    /// The common ack inline (`sack_on_ack_plain`), the full RFC 6675 / RACK rules out of
    /// line. The timer restarts on every ack of new data (RFC 6298 §5.3).
    #[inline(always)]
    fn on_ack(
        s: &mut TcpSender,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        dup: bool,
        sacked: Option<SackUpdate>,
        _out: &mut impl FnMut(Packet),
    ) -> bool {
        if !s.sack_on_ack_plain(now, pkt, newly, &sacked) {
            s.sack_on_ack(now, pkt, newly, dup, sacked);
        }
        newly > 0
    }

    fn timeout_view(s: &mut TcpSender, _now: SimTime) -> ConnView {
        let mut view = s.view();
        if let Some(st) = s.sack.as_deref().filter(|st| st.rto_unsacked) {
            // `rto_unsacked_flight`: RFC 5681 eq. (4) bounds ssthresh by FlightSize/2 ("no
            // more than"); the bytes the receiver has SACKed have left the network
            // (docs/tcp.md, "Retransmission timeout").
            view.in_flight = view.in_flight.saturating_sub(st.sb.sacked());
        }
        view
    }

    /// RFC 6675 §5.1: keep the scoreboard; everything unSACKed below HighData is lost and
    /// is what `sack_output` retransmits.
    fn timeout_resume(s: &mut TcpSender) {
        let (una, high) = (s.snd_una, s.snd_max);
        let st = s.sack.as_deref_mut().expect("SACK state");
        st.sb.set_loss_floor(una, high);
        s.out_slow |= OUT_SACK;
    }
}

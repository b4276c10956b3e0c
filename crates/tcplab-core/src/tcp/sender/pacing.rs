//! Pacing (`pacing`): fq-style per-flow release times, the algorithm's rate or Linux's
//! (2·cwnd/srtt in slow start below ssthresh/2, else 1.2·cwnd/srtt), and the per-segment
//! extras (rate sampling, Vegas' send times) that only flows asking for them pay.

use super::*;

/// The sender's pacing state.
#[derive(Clone, Copy, Debug)]
pub(super) struct PaceState {
    /// `pacing` (other than "off": where the rate comes from).
    pub(super) mode: Pacing,
    /// `mode != Off`: the test unpaced flows pay per segment in `output`.
    pub(super) paced: bool,
    /// The earliest time the next segment may leave (fq's per-flow release time).
    pub(super) next: SimTime,
}

impl TcpSender {
    /// The sender paces (`pacing` other than "off").
    pub fn is_paced(&self) -> bool {
        self.pace.paced
    }

    /// The pacing rate now, bytes per second (`None`: this flow is not paced now).
    pub fn pacing_rate(&self) -> Option<u64> {
        match self.pace.mode {
            Pacing::Off => None,
            Pacing::Cc => self.cc.pacing_rate(),
            Pacing::Rate(r) => Some(r),
            Pacing::Linux => self.linux_pacing_rate(),
        }
    }

    /// Linux `tcp_update_pacing_rate`: ratio · max(cwnd, flight) / srtt, ratio 200 % while
    /// `cwnd < ssthresh / 2`, else 120 %.
    pub(super) fn linux_pacing_rate(&self) -> Option<u64> {
        let srtt = self.rtt.srtt()?;
        if srtt == SimDuration::ZERO {
            return None;
        }
        let cwnd = self.window();
        let pct: u128 = if cwnd < self.cc.ssthresh() / 2 {
            200
        } else {
            120
        };
        let w = cwnd.max(self.snd_max - self.snd_una) as u128;
        Some((w * pct * 10_000_000_000 / srtt.0 as u128).min(u64::MAX as u128) as u64)
    }

    /// Pacing, rate sampling and Vegas' send times for a segment leaving (flows with any;
    /// out of line so that the others pay one test).
    #[inline(never)]
    pub(super) fn on_send_extras(&mut self, now: SimTime, seq: u64, len: u32, retx: bool) {
        if let Some(v) = self.vegas.as_deref_mut() {
            v.on_send(now, seq, len, self.snd_una);
        }
        if let Some(r) = self.rate.as_deref_mut() {
            r.on_send(now, seq, len as u64, retx, self.snd_max - self.snd_una);
        }
        if self.pace.paced {
            self.pace_charge(now, len + self.header);
        }
    }

    /// Pacing: a segment of `wire` bytes leaves now; the next may leave `wire / rate` later
    /// (after the previous release time, if that is still ahead: `max(now, next) + size/rate`).
    #[inline(never)]
    pub(super) fn pace_charge(&mut self, now: SimTime, wire: u32) {
        self.pace.next = match self.pacing_rate() {
            Some(r) if r > 0 => {
                // In u64 when `wire · 10¹²` fits (any packet under 18 MB): the same quotient
                // without a 128-bit division per segment.
                const PS: u64 = 1_000_000_000_000;
                let gap = if (wire as u64) <= u64::MAX / PS {
                    wire as u64 * PS / r
                } else {
                    (wire as u128 * PS as u128 / r as u128).min(u64::MAX as u128) as u64
                };
                self.pace.next.max(now) + SimDuration(gap)
            }
            _ => now,
        };
    }

    /// Pacing: the segment at the head may not leave yet; wait for the release time.
    #[inline(always)]
    pub(super) fn pace_blocked(&mut self, now: SimTime) -> bool {
        self.pace.paced && self.pace_wait(now)
    }

    #[inline(never)]
    pub(super) fn pace_wait(&mut self, now: SimTime) -> bool {
        if now < self.pace.next {
            self.pace_deadline = Some(self.pace.next);
            return true;
        }
        self.pace_deadline = None;
        false
    }

    /// The pacing timer expired (the caller checked the deadline): send what is due.
    pub fn on_pace_timer(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        self.pace_deadline = None;
        self.output(now, out);
    }
}

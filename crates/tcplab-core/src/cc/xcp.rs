//! XCP end host: the sender side of explicit congestion control.
//!
//! Reference: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, §3.2-3.3 (congestion header, sender,
//! receiver); seed 004's XCP slides. The routers are
//! `queue = { type = "xcp" }` (`queue/xcp.rs`).
//!
//! Formulas (bytes; S = MSS):
//! - every data segment carries `H_cwnd = cwnd`, `H_rtt = srtt` (0 before the first RTT
//!   sample) and `H_feedback = +∞` (the desired increase: as much as the path allows;
//!   routers lower it to their feedback, the smallest along the path stays)
//! - the receiver echoes `H_feedback` on the ack (with delayed acks, the sum of the two
//!   acknowledged segments' feedback: `tcp/receiver.rs`)
//! - per ack (outside fast recovery): `cwnd ← max(cwnd + H_feedback, S)`
//! - losses as NewReno: 3rd dupack `ssthresh = max(flight/2, 2S)`, `cwnd = ssthresh`, the
//!   transport's NewReno recovery, `cwnd = ssthresh` at its end; timeout `cwnd = S`
//!
//! Choices (not in the paper): an ack whose feedback is still `+∞` came over a path
//! without an XCP router, and the window grows as NewReno's (slow start, then one segment
//! per round trip), so an XCP sender on a plain path is a NewReno sender; the window never
//! exceeds the receiver's window (`max_window`).
//!
//! Wire size (`header_bytes`: an optional XCP header overhead of 20 bytes on data
//! packets, our choice, not from Katabi 2002): that many bytes are added to the
//! flow's TCP/IP `header` on every data packet (and the SYN), so links, queues, pacing and
//! the XCP routers' byte sums see them; acks keep `ack_size`; goodput counts payload only.
//! Default 0. ns-2.35 charges nothing: `XCP_HDR_LEN` (20, "to match the internet draft",
//! xcp/xcp-end-sys.h) is defined and never used, and `XcpEndsys::send`
//! (xcp/xcp-end-sys.cc) fills `hdr_xcp` on data and acks without touching
//! `hdr_cmn::size()`.

use super::{
    recovery_exit_cwnd, AckSample, CaState, CcInit, Congestion, CongestionControl, ConnView,
};
use crate::config::ScenarioError;
use crate::packet::CcHeader;
use crate::time::SimTime;

/// `cc = "xcp"` / `cc = { algorithm = "xcp", header_bytes = 20 }`.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XcpSpec {
    /// Bytes the congestion header adds to every data packet on the wire (default 0; the
    /// XCP Internet-Draft's header is 20). Acks are not enlarged.
    #[serde(default)]
    pub header_bytes: u32,
}

impl XcpSpec {
    pub fn build(&self, _field: &str, init: CcInit) -> Result<Xcp, ScenarioError> {
        Ok(Xcp {
            s: init.mss as f64,
            cwnd: init.init_cwnd as f64,
            ssthresh: init.init_ssthresh as f64,
            last_feedback: 0.0,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Xcp {
    s: f64,
    cwnd: f64,
    ssthresh: f64,
    /// The last finite feedback received (bytes; the trace column `cc_feedback_bytes`).
    last_feedback: f64,
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        "xcp"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh.min(u64::MAX as f64) as u64
    }
    #[inline]
    fn on_send(&mut self, _now: SimTime, _bytes: u32, hdr: &mut CcHeader, c: &ConnView) {
        hdr.cwnd = self.cwnd.min(u32::MAX as f64) as u32;
        hdr.rtt_ns = c.srtt.map_or(0, |r| {
            (r.0 / crate::time::PS_PER_NS).clamp(1, u32::MAX as u64) as u32
        });
        hdr.feedback = f32::INFINITY;
    }
    #[inline]
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        if c.state == CaState::Recovery {
            return;
        }
        let fb = ack.echo.feedback as f64;
        if fb.is_finite() {
            self.last_feedback = fb;
            self.cwnd = (self.cwnd + fb).max(self.s);
        } else if ack.newly_acked > 0 {
            // No XCP router on the path: NewReno growth.
            if self.cwnd < self.ssthresh {
                self.cwnd += self.s;
            } else {
                self.cwnd += self.s * self.s / self.cwnd;
            }
        }
        self.cwnd = self.cwnd.min(c.max_window as f64).max(self.s);
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        self.ssthresh = super::reno::half_flight(c.in_flight, self.s as u64) as f64;
        self.cwnd = match why {
            Congestion::Timeout => self.s,
            Congestion::FastRetransmit | Congestion::Ecn => self.ssthresh,
        };
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = recovery_exit_cwnd(self.ssthresh as u64, c) as f64;
    }
    fn trace_names(&self) -> &'static [&'static str] {
        &["feedback_bytes"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.last_feedback;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::time::SimDuration;

    fn xcp() -> Xcp {
        XcpSpec::default()
            .build(
                "f",
                CcInit {
                    mss: 1000,
                    init_cwnd: 2000,
                    init_ssthresh: u64::MAX,
                    ack_counting: Default::default(),
                },
            )
            .unwrap()
    }

    #[test]
    fn stamps_the_header() {
        let mut x = xcp();
        let mut v = view(1000, 0, CaState::Open);
        let mut h = CcHeader::default();
        x.on_send(SimTime::ZERO, 1000, &mut h, &v);
        assert_eq!((h.cwnd, h.rtt_ns), (2000, 0));
        assert_eq!(h.feedback, f32::INFINITY);
        v.srtt = Some(SimDuration::from_ms(80));
        x.on_send(SimTime::ZERO, 1000, &mut h, &v);
        assert_eq!(h.rtt_ns, 80_000_000);
    }

    #[test]
    fn applies_feedback_with_a_floor_of_one_segment() {
        let mut x = xcp();
        let v = view(1000, 0, CaState::Open);
        let mut a = ack(1000);
        a.echo.feedback = 350.5;
        x.on_ack(SimTime::ZERO, &a, &v);
        assert_eq!(x.cwnd(), 2350);
        // Duplicate acks carry feedback too.
        a = ack(0);
        a.echo.feedback = -10_000.0;
        x.on_ack(SimTime::ZERO, &a, &v);
        assert_eq!(x.cwnd(), 1000);
        // None in recovery.
        a.echo.feedback = 5000.0;
        x.on_ack(SimTime::ZERO, &a, &view(1000, 0, CaState::Recovery));
        assert_eq!(x.cwnd(), 1000);
    }

    #[test]
    fn plain_path_and_losses_are_newreno() {
        let mut x = xcp();
        let v = view(1000, 8000, CaState::Open);
        let mut a = ack(1000);
        a.echo.feedback = f32::INFINITY;
        x.on_ack(SimTime::ZERO, &a, &v);
        assert_eq!(x.cwnd(), 3000, "slow start");
        x.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &v);
        assert_eq!((x.cwnd(), x.ssthresh()), (4000, 4000));
        x.on_congestion(SimTime::ZERO, Congestion::Timeout, &v);
        assert_eq!(x.cwnd(), 1000);
    }
}

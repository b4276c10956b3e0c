//! Congestion control: one small trait, one file per algorithm.
//!
//! The shape follows Linux `tcp_congestion_ops`: the transport ([`crate::tcp`]) owns the
//! sequence space, loss detection, fast retransmit / recovery and the retransmission timer;
//! the algorithm owns `cwnd` and `ssthresh` and is told about every ack and every congestion
//! event. While the transport is in fast recovery it runs the recovery window itself
//! (starting from [`CongestionControl::ssthresh`]) and hands control back on exit.
//!
//! The hooks carry everything the papers' algorithms need:
//! per-ack RTT and the connection's minimum RTT (Vegas, FAST), the receiver's arrival and
//! leaving timestamps echoed in the ack (Vegas-ALT, FAST-ALT: [`alt`]), the ECN echo one-to-one
//! (TCP/E), ack arrival time and cumulative bytes delivered (Westwood), and a header field
//! routers can write and receivers echo (XCP).
//!
//! Built-ins are variants of the closed enum [`AnyCc`] (static dispatch on the hot path).
//! See `docs/writing-a-cc.md` for adding one.

pub mod alt;
pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod gaimd;
pub mod highspeed;
pub mod reno;
pub mod scalable;
pub mod tcpe;
pub mod vegas;
pub mod westwood;
pub mod xcp;

pub use bbr::Bbr;
pub use cubic::Cubic;
pub use dctcp::Dctcp;
pub use fast::Fast;
pub use gaimd::Gaimd;
pub use highspeed::Highspeed;
pub use reno::Reno;
pub use scalable::Scalable;
pub use tcpe::Tcpe;
pub use vegas::Vegas;
pub use westwood::Westwood;
pub use xcp::Xcp;

pub use crate::cc_api::{
    linux_agent_exit_cwnd, recovery_exit_cwnd, AckCounting, AckSample, CaState, CcInit, Congestion,
    ConnView, RecoveryExit, RecoveryStyle,
};
use crate::config::ScenarioError;
use crate::packet::CcHeader;
use crate::rng::{SimRng, Stream};
use crate::time::SimTime;

/// The congestion-control interface. Units: bytes and [`SimTime`].
pub trait CongestionControl {
    fn name(&self) -> &'static str;
    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold in bytes.
    fn ssthresh(&self) -> u64;
    /// Which recovery the transport runs after a fast retransmit.
    fn recovery_style(&self) -> RecoveryStyle {
        RecoveryStyle::NewReno
    }
    /// A data segment is leaving; the algorithm may stamp its header.
    fn on_send(&mut self, _now: SimTime, _bytes: u32, _hdr: &mut CcHeader, _c: &ConnView) {}
    /// Every arriving ack, including duplicates and acks during recovery (`c.state` says
    /// which). Window growth normally happens only when `c.state != Recovery`.
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView);
    /// Once per congestion event, before the transport starts recovery: set `ssthresh`
    /// and `cwnd` for what follows (`Timeout` normally collapses `cwnd` to one segment).
    fn on_congestion(&mut self, now: SimTime, why: Congestion, c: &ConnView);
    /// Fast recovery ended (all data outstanding at its start is acknowledged).
    fn on_recovery_exit(&mut self, _now: SimTime, _c: &ConnView) {}
    /// Whether the transport applies RFC 3168's reaction to ECN-Echo: at most once per
    /// window `on_congestion(Ecn)`, then CWR. True by default; TCP/E, which reacts to each
    /// echoed mark in `on_ack`, says false (no `Ecn` call, no CWR).
    fn reduces_on_ecn(&self) -> bool {
        true
    }
    /// Trace hook: names of the internal values this algorithm exports (Vegas' diff, FAST's
    /// base RTT, Westwood's bandwidth estimate, ...). Each becomes a column `cc_<name>` of
    /// the cwnd trace (`metrics.trace`). Fixed per algorithm instance; none by default.
    fn trace_names(&self) -> &'static [&'static str] {
        &[]
    }
    /// Trace hook: write the current values, `out[k]` for `trace_names()[k]` (`out` has
    /// exactly that length). Called once per trace sample, never on the packet path.
    fn trace_values(&self, _out: &mut [f64]) {}
    /// The pacing rate this algorithm asks for, bytes per second (Linux `sk_pacing_rate`
    /// set by the algorithm, as BBR does), or `None` for no pacing. Read by the sender
    /// once per segment sent, only on flows with `pacing = "cc"` (BBR's default).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// The algorithm needs delivery-rate samples ([`AckSample::rate`]; BBR). Asked once,
    /// when the sender is built: flows whose algorithm says false keep no per-segment state.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// The algorithm sets the window during fast recovery itself (Linux's `cong_control`
    /// hook, which BBR uses: `tcp_cong_control` then skips PRR): on SACK flows the
    /// transport sends while `pipe + S ≤ cwnd()` in recovery instead of running its own
    /// recovery window (PRR or RFC 6675's `cwnd − pipe`). Asked once, when the sender is built.
    fn controls_recovery_window(&self) -> bool {
        false
    }
    /// Whether Reno/NewReno fast recovery (sack = false) inflates the window by the
    /// duplicate acks (RFC 5681 §3.2 steps 4-5: 3 S at the fast retransmit, S per further
    /// duplicate, deflated on a partial ack). `false`: the recovery window stays `cwnd()`
    /// (seed 004's `tcpw_fr_inflation = false`). Asked once, when the sender is built.
    fn recovery_inflation(&self) -> bool {
        true
    }
}

// ---- The registry: one line per algorithm in each of the four lists below ----------------

crate::tagged_enum! {
    #[derive(PartialEq)]
    /// `flows.NAME.cc`: an algorithm name (`cc = "reno"`) or a table with `algorithm` and the
    /// algorithm's own parameters (declared and validated in its file).
    pub enum CcSpec, tag "algorithm" {
        /// TCP Reno (RFC 5681).
        "reno" => Reno(reno::RenoSpec),
        /// TCP NewReno (RFC 6582).
        "newreno" => NewReno(reno::RenoSpec),
        /// GAIMD TCP(α, β) (Yang & Lam; seed 003).
        "gaimd" => Gaimd(gaimd::GaimdSpec),
        /// TCP Vegas (Brakmo & Peterson; seed 001 eq. 1).
        "vegas" => Vegas(vegas::VegasSpec),
        /// FAST TCP (Jin, Wei & Low; seed 001 eq. 2).
        "fast" => Fast(fast::FastSpec),
        /// HighSpeed TCP (RFC 3649; seeds 002, 004).
        "highspeed" => Highspeed(highspeed::HighspeedSpec),
        /// Scalable TCP (Kelly 2003; seed 004).
        "scalable" => Scalable(scalable::ScalableSpec),
        /// TCP/E: ECN-Echo freezes the window (Kamra, Misra & Towsley; seed 002).
        "tcpe" => Tcpe(tcpe::TcpeSpec),
        /// TCP Westwood: BE/RE/CRB/ABSE eligible rate, Agile Probing, PNCD (seed 004), and
        /// Westwood+ (`estimator = "plus"`, Linux).
        "westwood" => Westwood(westwood::WestwoodSpec),
        /// CUBIC (RFC 9438) with HyStart++ (RFC 9406).
        "cubic" => Cubic(cubic::CubicSpec),
        /// DCTCP (RFC 8257): α-proportional reduction from the fraction of marked bytes.
        "dctcp" => Dctcp(dctcp::DctcpSpec),
        /// BBR v1 as Linux's `tcp_bbr.c` (paced by default: the flow's `pacing = "cc"`).
        "bbr" => Bbr(bbr::BbrSpec),
        /// XCP end host: applies the routers' explicit feedback (Katabi, Handley & Rohrs
        /// 2002; seed 004); needs `queue = { type = "xcp" }` routers.
        "xcp" => Xcp(xcp::XcpSpec),
    }
}

impl Default for CcSpec {
    fn default() -> Self {
        CcSpec::NewReno(reno::RenoSpec::default())
    }
}

impl CcSpec {
    /// Validate (`field` = `flows.NAME.cc`) and build the algorithm.
    pub fn build(&self, field: &str, init: CcInit) -> Result<AnyCc, ScenarioError> {
        Ok(match self {
            CcSpec::Reno(s) => AnyCc::Reno(s.build(init, false)),
            CcSpec::NewReno(s) => AnyCc::Reno(s.build(init, true)),
            CcSpec::Gaimd(s) => AnyCc::Gaimd(s.build(field, init)?),
            CcSpec::Vegas(s) => AnyCc::Vegas(s.build(field, init)?),
            CcSpec::Fast(s) => AnyCc::Fast(s.build(field, init)?),
            CcSpec::Highspeed(s) => AnyCc::Highspeed(s.build(field, init)?),
            CcSpec::Scalable(s) => AnyCc::Scalable(s.build(field, init)?),
            CcSpec::Tcpe(s) => AnyCc::Tcpe(s.build(field, init)?),
            CcSpec::Westwood(s) => AnyCc::Westwood(Box::new(s.build(field, init)?)),
            CcSpec::Cubic(s) => AnyCc::Cubic(Box::new(s.build(field, init)?)),
            CcSpec::Dctcp(s) => AnyCc::Dctcp(s.build(field, init)?),
            // The gain cycle's start phase comes from the flow's stream: see `seed_rng`.
            CcSpec::Bbr(s) => AnyCc::Bbr(Box::new(s.build(
                field,
                init,
                SimRng::derive(0, Stream::Cc, 0),
            )?)),
            CcSpec::Xcp(s) => AnyCc::Xcp(s.build(field, init)?),
        })
    }
    /// What seed 001's ALT timestamps add to the flow's packets, for algorithms that run
    /// with `alt = true` (`None` otherwise); validates the ALT keys (`field` =
    /// `flows.NAME.cc`).
    pub fn alt_wire(&self, field: &str) -> Result<Option<alt::AltWire>, ScenarioError> {
        match self {
            CcSpec::Vegas(s) => s.alt_wire(field),
            CcSpec::Fast(s) => s.alt_wire(field),
            _ => Ok(None),
        }
    }
    /// Bytes the algorithm's own header adds to every data packet beside the flow's
    /// `header` (XCP's `header_bytes`; 0 for the others).
    pub fn data_header_bytes(&self) -> u32 {
        match self {
            CcSpec::Xcp(s) => s.header_bytes,
            _ => 0,
        }
    }
}

impl CcSpec {
    /// The keys profile `p` sets in this algorithm's `cc` table (expansion writes them where
    /// the table does not set them; a name alone becomes a table). Each algorithm decides in
    /// its own file; most have nothing a profile changes.
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match self {
            CcSpec::Gaimd(s) => s.profile_keys(p),
            CcSpec::Highspeed(s) => s.profile_keys(p),
            CcSpec::Westwood(s) => s.profile_keys(p),
            CcSpec::Vegas(s) => s.profile_keys(p),
            CcSpec::Scalable(s) => s.profile_keys(p),
            _ => Vec::new(),
        }
    }
}

/// Whether an algorithm honours [`AckSample::ece_hold`] (the flow key `ece_increase`): those
/// whose ns-2.35 agents (Reno, Newreno, Sack1, `windowOption_ 8`) grow the window through
/// `TcpAgent::opencwnd`, which `recv_newack_helper` skips on ECN-Echo acks with `old_ecn_ 0`.
pub fn grows_through_opencwnd(spec: &CcSpec) -> bool {
    matches!(
        spec,
        CcSpec::Reno(_) | CcSpec::NewReno(_) | CcSpec::Gaimd(_) | CcSpec::Highspeed(_)
    )
}

/// The built-in algorithms, dispatched with a `match`.
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
    Gaimd(Gaimd),
    Vegas(Vegas),
    Fast(Fast),
    Highspeed(Highspeed),
    Scalable(Scalable),
    Tcpe(Tcpe),
    /// Boxed: its estimators' state (about 1.5 kB with the RE ring) would otherwise size
    /// every variant; allocated once, at build.
    Westwood(Box<Westwood>),
    /// Boxed: its curve and HyStart++ state (184 bytes) would size every sender.
    Cubic(Box<Cubic>),
    Dctcp(Dctcp),
    Xcp(Xcp),
    /// Boxed: its filters and random stream would size every sender.
    Bbr(Box<Bbr>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Gaimd($c) => $e,
            AnyCc::Vegas($c) => $e,
            AnyCc::Fast($c) => $e,
            AnyCc::Highspeed($c) => $e,
            AnyCc::Scalable($c) => $e,
            AnyCc::Tcpe($c) => $e,
            AnyCc::Westwood($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Dctcp($c) => $e,
            AnyCc::Xcp($c) => $e,
            AnyCc::Bbr($c) => $e,
        }
    };
}
// ---- end of the registry -----------------------------------------------------------------

impl AnyCc {
    /// The algorithm's own random stream, for those that have one (BBR: `run.stochastic`).
    pub fn rng(&self) -> Option<&SimRng> {
        match self {
            AnyCc::Bbr(b) => Some(b.rng()),
            _ => None,
        }
    }

    /// Give a randomized algorithm (BBR's gain-cycle start) the flow's own random stream;
    /// the others ignore it.
    pub fn seed_rng(&mut self, rng: SimRng) {
        if let AnyCc::Bbr(b) = self {
            b.set_rng(rng);
        }
    }
}

impl CongestionControl for AnyCc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    #[inline]
    fn cwnd(&self) -> u64 {
        dispatch!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn recovery_style(&self) -> RecoveryStyle {
        dispatch!(self, c => c.recovery_style())
    }
    #[inline]
    fn on_send(&mut self, now: SimTime, bytes: u32, hdr: &mut CcHeader, cv: &ConnView) {
        dispatch!(self, c => c.on_send(now, bytes, hdr, cv))
    }
    #[inline]
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, cv: &ConnView) {
        dispatch!(self, c => c.on_ack(now, ack, cv))
    }
    fn on_congestion(&mut self, now: SimTime, why: Congestion, cv: &ConnView) {
        dispatch!(self, c => c.on_congestion(now, why, cv))
    }
    fn on_recovery_exit(&mut self, now: SimTime, cv: &ConnView) {
        dispatch!(self, c => c.on_recovery_exit(now, cv))
    }
    #[inline]
    fn reduces_on_ecn(&self) -> bool {
        dispatch!(self, c => c.reduces_on_ecn())
    }
    fn trace_names(&self) -> &'static [&'static str] {
        dispatch!(self, c => c.trace_names())
    }
    fn trace_values(&self, out: &mut [f64]) {
        dispatch!(self, c => c.trace_values(out))
    }
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, c => c.wants_rate_samples())
    }
    fn controls_recovery_window(&self) -> bool {
        dispatch!(self, c => c.controls_recovery_window())
    }
    fn recovery_inflation(&self) -> bool {
        dispatch!(self, c => c.recovery_inflation())
    }
}

#[cfg(test)]
pub(crate) mod testkit {
    //! Tiny drivers for hook-level tests.
    use super::*;
    use crate::time::SimDuration;

    pub fn view(mss: u32, in_flight: u64, state: CaState) -> ConnView {
        ConnView {
            mss,
            in_flight,
            pipe: in_flight,
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            state,
            max_window: u64::MAX,
            recovery_exit: RecoveryExit::Ssthresh,
            una_retransmitted: false,
        }
    }

    /// A NewReno (or Reno) instance for transport tests.
    pub fn reno(mss: u32, init_cwnd: u64, init_ssthresh: u64, newreno: bool) -> AnyCc {
        AnyCc::Reno(Reno::new(mss, init_cwnd, init_ssthresh, newreno))
    }

    pub fn ack(newly_acked: u64) -> AckSample {
        AckSample {
            newly_acked,
            dup: newly_acked == 0,
            rtt: None,
            sent_at: SimTime::ZERO,
            echo_retx: false,
            rx_arrival: SimTime::ZERO,
            rx_leave: SimTime::ZERO,
            ece: false,
            ece_hold: false,
            echo: CcHeader::default(),
            delivered: 0,
            rate: None,
        }
    }
}

#[cfg(test)]
mod ack_counting_tests {
    //! `ack_counting`: every algorithm that honours it, with an ack per two segments.
    use super::testkit::{ack, view};
    use super::*;
    use crate::time::SimDuration;

    const S: u64 = 1000;

    fn build(algo: serde_json::Value, cwnd: u64, ssthresh: u64, counting: AckCounting) -> AnyCc {
        let spec: CcSpec = serde_json::from_value(algo).unwrap();
        spec.build(
            "f.cc",
            CcInit {
                mss: S as u32,
                init_cwnd: cwnd * S,
                init_ssthresh: ssthresh * S,
                ack_counting: counting,
            },
        )
        .unwrap()
    }

    /// One round trip: the window acked two segments per ack (the last alone if odd).
    fn round(cc: &mut AnyCc) {
        let mut v = view(S as u32, 0, CaState::Open);
        v.srtt = Some(SimDuration::from_ms(100));
        let w = cc.cwnd() / S;
        let mut now = SimTime::ZERO;
        for k in 0..w.div_ceil(2) {
            let bytes = if 2 * k + 1 == w { S } else { 2 * S };
            now += SimDuration::from_ms(1);
            cc.on_ack(now, &ack(bytes), &v);
        }
    }

    #[test]
    fn slow_start_doubles_per_round_with_segments_and_not_with_acks() {
        for algo in [
            serde_json::json!("reno"),
            serde_json::json!("newreno"),
            serde_json::json!("dctcp"),
            serde_json::json!("gaimd"),
            serde_json::json!("highspeed"),
            serde_json::json!("scalable"),
            serde_json::json!({"algorithm": "cubic", "hystart": false}),
        ] {
            let mut seg = build(algo.clone(), 10, 1_000, AckCounting::Segments);
            round(&mut seg);
            assert_eq!(seg.cwnd(), 20 * S, "{algo}: segments");
            let mut acks = build(algo.clone(), 10, 1_000, AckCounting::Acks);
            round(&mut acks);
            assert_eq!(acks.cwnd(), 15 * S, "{algo}: acks");
        }
    }

    #[test]
    fn congestion_avoidance_counts_the_segments_an_ack_covers() {
        // Per round trip in congestion avoidance at 40 segments: "segments" grows twice as
        // much as "acks" for the per-ack AIMD rules (Reno: 1 against 0.5 segments).
        for (algo, seg_growth) in [
            (serde_json::json!("reno"), 1.0),
            (serde_json::json!("dctcp"), 1.0),
            (
                serde_json::json!({"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875}),
                0.31,
            ),
            (serde_json::json!("highspeed"), 1.0),
            (serde_json::json!({"algorithm": "scalable", "a": 0.01}), 0.4),
        ] {
            let grow = |counting| {
                let mut cc = build(algo.clone(), 40, 20, counting);
                let before = cc.cwnd() as f64;
                for _ in 0..4 {
                    round(&mut cc);
                }
                (cc.cwnd() as f64 - before) / S as f64 / 4.0
            };
            let (g_seg, g_ack) = (grow(AckCounting::Segments), grow(AckCounting::Acks));
            assert!(
                (g_seg - seg_growth).abs() < 0.05 * seg_growth.max(1.0),
                "{algo}: {g_seg} segments per round, expected {seg_growth}"
            );
            assert!(
                (g_ack - g_seg / 2.0).abs() < 0.05 * g_seg.max(1.0),
                "{algo}: acks {g_ack} vs segments {g_seg}"
            );
        }
    }
}

#[cfg(test)]
mod ece_hold_tests {
    //! `AckSample::ece_hold` (flow key `ece_increase = false`, ns-2's `old_ecn_ 0`).
    use super::testkit::{ack, view};
    use super::*;

    const S: u64 = 1000;

    #[test]
    fn ece_hold_stops_growth_in_slow_start_and_congestion_avoidance() {
        for algo in [
            serde_json::json!("reno"),
            serde_json::json!("newreno"),
            serde_json::json!({"algorithm": "gaimd", "alpha": 0.31, "beta": 0.875}),
            serde_json::json!("highspeed"),
        ] {
            let spec: CcSpec = serde_json::from_value(algo.clone()).unwrap();
            assert!(grows_through_opencwnd(&spec), "{algo}");
            for counting in [AckCounting::Acks, AckCounting::Segments] {
                // (cwnd, ssthresh) in segments: slow start, then congestion avoidance.
                for (w, ss) in [(10, 1_000), (40, 20)] {
                    let mut cc = spec
                        .build(
                            "f.cc",
                            CcInit {
                                mss: S as u32,
                                init_cwnd: w * S,
                                init_ssthresh: ss * S,
                                ack_counting: counting,
                            },
                        )
                        .unwrap();
                    let v = view(S as u32, 0, CaState::Open);
                    let mut held = ack(S);
                    held.ece = true;
                    held.ece_hold = true;
                    for _ in 0..2 * w {
                        cc.on_ack(SimTime::ZERO, &held, &v);
                    }
                    assert_eq!(cc.cwnd(), w * S, "{algo} {counting:?} w={w}: held");
                    // ECE alone (ece_increase = true) still grows, as today.
                    let mut ece = ack(S);
                    ece.ece = true;
                    for _ in 0..2 * w {
                        cc.on_ack(SimTime::ZERO, &ece, &v);
                    }
                    assert!(cc.cwnd() > w * S, "{algo} {counting:?} w={w}: grows");
                }
            }
        }
        for algo in [
            "vegas", "cubic", "dctcp", "scalable", "bbr", "westwood", "tcpe",
        ] {
            let spec: CcSpec = serde_json::from_value(serde_json::json!(algo)).unwrap();
            assert!(!grows_through_opencwnd(&spec), "{algo}");
        }
    }
}

//! The sending side of a connection.
//!
//! Loss detection and recovery (transport-owned, the algorithm only sets windows):
//! - **Fast retransmit** (RFC 5681 §3.2): the `dupack_threshold`-th duplicate ack retransmits
//!   the first unacknowledged segment; the algorithm's `on_congestion(FastRetransmit)` sets
//!   `ssthresh`, and the recovery window starts at `cwnd + 3·MSS`, growing one MSS per
//!   further duplicate ack.
//! - **Reno** recovery ends at the first ack of new data. **NewReno** (RFC 6582) enters fast
//!   retransmit only when the duplicate acks cover more than `recover`, the highest sequence
//!   sent when the previous recovery or timeout began (§3.2 step 1: duplicate acks at or
//!   below it come from unnecessary retransmissions, §4), and treats an ack
//!   below `recover` as partial: it retransmits the next hole, deflates the window by the
//!   amount acknowledged (adding back one MSS if at least one MSS was acked), restarts the
//!   timer (every partial ack, or only the first: [`crate::tcp::PartialAckTimer`]) and
//!   stays in recovery until `recover` is acknowledged.
//! - **Timeout** (RFC 6298 §5): the timer runs while data is outstanding, restarts on every
//!   ack of new data, and on expiry backs off, calls `on_congestion(Timeout)` and goes back
//!   to `snd_una` (go-back-N from the first unacknowledged byte). Duplicate acks do not start
//!   a fast retransmit until everything sent before the timeout is acknowledged.
//! - **RTT sampling and Karn's rule**: the RTO estimator times one segment per round trip
//!   (4.4BSD style); timing is abandoned when anything is retransmitted, so no sample ever
//!   comes from a retransmitted segment. Separately, every ack whose triggering segment was
//!   not a retransmission yields a per-ack sample for the algorithm (the receiver echoes the
//!   segment's send time and retransmission flag, like a timestamp option).
//!
//! - **End-host backpressure** (seed 000 §5): with an IP-queue limit `b`, at most `b` of this
//!   connection's data segments may sit in the first-hop interface queue, counting the one
//!   being transmitted. A blocked sender keeps its window credit and sends as soon as the
//!   simulation reports a departure ([`TcpSender::ipq_departed`]). A retransmission that
//!   finds the gate closed waits and goes first when it opens.
//!
//! - **ECN** (RFC 3168 §6.1, with `ecn`): new data segments carry ECT (retransmissions do
//!   not, §6.1.5, unless `ecn_retransmits` asks for ns-2's behaviour). An ack with ECN-Echo while the connection is open and not already
//!   reduced in the current window calls `on_congestion(Ecn)` (no retransmission) and the
//!   next new segment carries CWR. The window is `[snd_una, snd_max]` at the reduction: a
//!   new reaction needs `snd_una` past the `snd_max` of the last one (at most once per
//!   round trip, as Linux's CWR state). ECE during fast recovery or after a timeout is
//!   ignored (the window was already reduced), and a loss of a segment sent before that
//!   `snd_max` is repaired (fast retransmit, recovery) without a second reduction (RFC 3168
//!   §6.1.2: once for "a series of dropped and/or CE packets" of one window; Linux keeps its
//!   CWR ssthresh, ns-3 stays in CA_CWR). Algorithms see every ECE in
//!   [`AckSample::ece`]; an algorithm whose `reduces_on_ecn()` is false (TCP/E, which
//!   reacts to each mark in `on_ack`) gets no `on_congestion(Ecn)` and sends no CWR.
//!   With `ece_increase = false` (ns-2's `old_ecn_ 0`) an ECN-Echo ack after the first ack of
//!   new data that carried one is flagged [`AckSample::ece_hold`]: the algorithm does not grow
//!   its window on it (reno, newreno, gaimd, highspeed).
//!
//! - **SACK recovery** (`recovery = "rfc6675"`, RFC 6675 with PRR, RFC 6937): the
//!   scoreboard and the recovery rules live in [`crate::tcp::sack`]; this file runs them
//!   (`sack_on_ack`, `sack_output`, out of line, so that flows without SACK pay one branch).
//!   Recovery starts on the `dupack_threshold`-th duplicate ack that SACKs new data or when
//!   the first unacknowledged byte is lost by IsLost, sets `RecoveryPoint = HighData`, lets
//!   the algorithm reduce its window (`on_congestion(FastRetransmit)`), retransmits the first
//!   hole and then sends per NextSeg while `cwnd − pipe ≥ 1 SMSS` (`prr = "off"`, `cwnd` the
//!   algorithm's window after the reduction) or as much as PRR allows. It ends when
//!   `RecoveryPoint` is acknowledged (the algorithm's `recovery_style` does not apply). After
//!   a timeout the scoreboard is kept, everything unSACKed below `HighData` counts as lost,
//!   and only that is retransmitted (in the algorithm's window, against `pipe`).
//!
//! Where each concern lives (child modules of this file, each a set of `impl TcpSender`
//! methods over the one struct, so the hot path keeps static calls the compiler inlines):
//! - this file: the struct, `new`, the ack path (`on_ack`), window/flight arithmetic, output;
//! - `recovery`: loss recovery as a strategy, [`RecoveryEngine`] and its one interface,
//!   with one implementation per engine:
//!   - `newreno`: RFC 5681/6582 fast retransmit and recovery, limited transmit;
//!   - `sack_recovery`: the RFC 6675 + PRR engine driven by [`crate::tcp::sack`];
//!   - `vegas_loss`: Vegas' own fine-grained retransmission rules;
//! - `ecn`: ECT/CWR on data segments and the reaction to ECN-Echo (RFC 3168 §6.1);
//! - `rack_glue`: RACK-TLP (RFC 8985) timers and marking on top of the SACK engine;
//! - `undo`: spurious-retransmission undo (Eifel/DSACK, F-RTO);
//! - `timer`: the retransmission timer (RFC 6298) and what a timeout does;
//! - `pacing`: pacing rate, the pace timer and its budget;
//! - `syn`: the handshake (SYN, SYN retries, SYN-ACK);
//! - `rwnd`: the receiver's advertised window (`playback_rwnd_cap`) and the persist timer.
//!
//! Per-ack work is O(1) without SACK: no per-segment state is kept, since segments carry no
//! payload and any byte range can be rebuilt from sequence numbers. With SACK it is
//! O(log h) for h holes (see [`crate::tcp::sack`]).

use crate::cc::{
    AckSample, AnyCc, CaState, Congestion, CongestionControl, ConnView, RecoveryStyle,
};
use crate::event::{FlowId, NodeId};
use crate::packet::{flags, CcHeader, Packet};
use crate::tcp::rack::RackState;
use crate::tcp::rate::RateSampler;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::sack::SackState;
use crate::tcp::{
    LossDetection, Pacing, PartialAckTimer, Prr, Recovery, RecoveryExit, SsthreshBasis, TcpConfig,
};
use crate::time::{SimDuration, SimTime};

mod ecn;
mod newreno;
mod pacing;
mod rack_glue;
mod recovery;
mod rwnd;
mod sack_recovery;
mod syn;
mod timer;
mod undo;
mod vegas_loss;

pub use recovery::RecoveryEngine;
use recovery::{NewRenoOps, RecoveryOps, SackOps};

pub use vegas_loss::VegasLoss;

pub use undo::UndoStats;

/// One ack's scoreboard update (`sack_update`): RFC 6937's DeliveredData, the bytes newly
/// SACKed, the end of the first block that SACKed new data (the newest) and the D-SACK
/// block, if any.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SackUpdate {
    delivered: u64,
    newly_sacked: u64,
    newest: Option<u64>,
    dsack: Option<(u64, u64)>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_received: u64,
    /// Acks that arrived with ECN-Echo.
    pub ece_received: u64,
    /// Window reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// Acks with a D-SACK block (RFC 2883: a segment arrived twice).
    pub dsacks_received: u64,
    /// Zero-window probes sent by the persist timer (`playback_rwnd_cap` flows).
    pub window_probes: u64,
}

pub struct TcpSender {
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
    mss: u32,
    header: u32,
    max_window: u64,
    dupack_threshold: u32,
    /// ECN (`sender/ecn.rs`).
    ecn: ecn::Ecn,
    pub cc: AnyCc,
    pub rtt: RttEstimator,
    /// Per-ack RTT samples since the steady-state window began (summary mean/p99).
    pub rtt_dist: crate::stats::RttDist,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// The segment being timed for the RTO estimator: (end sequence, send time).
    timed: Option<(u64, SimTime)>,
    /// Retransmission timer deadline, if running.
    pub rto_deadline: Option<SimTime>,
    pub stats: SenderStats,
    /// End of the highest segment ever retransmitted (`ConnView::una_retransmitted`).
    retx_high: u64,
    /// RFC 6675 recovery (`recovery = "rfc6675"`): scoreboard and PRR.
    sack: Option<Box<SackState>>,
    /// What sends off `output`'s common path, one bit each: `OUT_SACK` (the SACK rules: in
    /// SACK recovery, or after a timeout with SACK; always with RACK and FACK), `OUT_SYN` (the SYN
    /// has not been acked), `OUT_BURST` (`recovery_burst` caps Reno/NewReno recovery),
    /// `OUT_RWND` (`playback_rwnd_cap`: the receiver's window bounds new data).
    /// Flows with none of them pay one test per `output` and per ack.
    out_slow: u8,
    /// Paced or rate-sampled: the one test other flows pay per segment sent.
    extras: bool,
    /// Pacing timer: a segment waits for `pace.next` (the flow's timer event fires then).
    pub pace_deadline: Option<SimTime>,
    /// Delivery-rate sampling, for algorithms that ask for it (BBR).
    rate: Option<Box<RateSampler>>,
    /// RACK-TLP (`loss_detection = "rack"`): per-segment board and timers
    /// ([`crate::tcp::rack`], run by `sender/rack_glue.rs`).
    rack: Option<Box<RackState>>,
    /// F-RTO and D-SACK undo (`frto`, `dsack_undo`; `sender/undo.rs`).
    spurious: Option<Box<undo::Spurious>>,
    /// `syn`: the SYN's state (see [`Syn`]).
    syn: Syn,
    /// `loss_detection = "vegas"`: per-segment send times and the fine-grained timeout
    /// (`sender/vegas_loss.rs`).
    vegas: Option<Box<VegasLoss>>,
    /// The loss-recovery engine (`sender/recovery.rs`).
    engine: RecoveryEngine,
    /// The state loss recovery keeps, whichever engine runs (`sender/recovery.rs`).
    rec: recovery::RecoveryState,
    /// Rules in which stacks differ (the profiles set them: docs/tcp.md, "Profiles").
    compat: Compat,
    /// End-host backpressure (seed 000 §5).
    ipq: Backpressure,
    /// Pacing (`sender/pacing.rs`).
    pace: pacing::PaceState,
    /// The send buffer between the application and the connection.
    buf: SendBuffer,
    /// The receiver's advertised window (`sender/rwnd.rs`).
    rwnd: rwnd::Rwnd,
}

/// Rules in which stacks differ, one switch each (`TcpConfig` keys of the same names).
#[derive(Clone, Copy, Debug)]
struct Compat {
    /// `bugfix`: whether duplicate acks at or below `recover` may start a fast retransmit
    /// (`None`: as the algorithm's recovery style says).
    bugfix: Option<bool>,
    /// `ssthresh_basis = "window"`: losses halve the window, not the flight.
    window_basis: bool,
    /// `rto_restart_on_fast_retransmit`.
    rto_restart_on_fr: bool,
    /// Restart the RTO when the segment at `snd_una` is retransmitted (Linux, ns-2).
    rto_restart_on_retransmit: bool,
    /// `rto_restart_on_dupack`: duplicate acks restart the RTO too.
    rto_restart_on_dupack: bool,
    /// Which partial acks restart the timer in NewReno recovery.
    partial_ack_timer: PartialAckTimer,
    /// How the window is set when a recovery ends.
    recovery_exit: RecoveryExit,
}

/// End-host backpressure: at most `limit` of this connection's data segments in the
/// first-hop interface queue.
#[derive(Clone, Copy, Debug)]
struct Backpressure {
    /// Data segments allowed in the local IP queue (`u32::MAX` = no limit).
    limit: u32,
    /// How many are there now.
    count: u32,
    /// A retransmission of `snd_una` waits for the IP queue gate.
    retx_pending: bool,
}

/// What the application has written and what of it the connection may send.
#[derive(Clone, Copy, Debug)]
struct SendBuffer {
    /// Bytes the send buffer has accepted from the application (end of the stream so far;
    /// what may be sent). Without a send buffer, everything written.
    app_limit: u64,
    /// Bytes the application has written (`u64::MAX`: a greedy source). With a send buffer
    /// `app_limit = min(written, snd_una + limit)` (never below `snd_max`).
    written: u64,
    /// `send_buffer` (`u64::MAX` = unlimited: `app_limit = written`).
    limit: u64,
    /// The end of the stream, whose last segment carries the FIN (`u64::MAX`: none yet).
    fin: u64,
    /// `fin = true`: [`TcpSender::app_write_last`] sets `fin`.
    fin_on: bool,
}

/// The one-way handshake of `syn = true` (ns-2's `syn_`).
/// `TcpSender::out_slow` bits.
pub(super) const OUT_SACK: u8 = 1;
const OUT_SYN: u8 = 2;
const OUT_BURST: u8 = 4;
/// `playback_rwnd_cap`: the receiver advertises a window the sender obeys (its right edge
/// bounds new data, a closed window starts the persist timer).
const OUT_RWND: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syn {
    /// No SYN, or its ack has arrived: data flow.
    Done,
    /// The SYN has not left yet.
    ToSend,
    /// The SYN is out (timed for the RTO estimator unless `retransmitted`).
    Sent { retransmitted: bool },
}

impl TcpSender {
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, cfg: &TcpConfig, cc: AnyCc) -> Self {
        let engine = RecoveryEngine::of(cfg);
        let cc_window = cc.controls_recovery_window() && cfg.recovery.mode == Recovery::Rfc6675;
        let inflate = cc.recovery_inflation();
        // Linux skips PRR for an algorithm with `cong_control` (BBR).
        let prr = if cc_window {
            Prr::Off
        } else {
            cfg.recovery.prr
        };
        TcpSender {
            flow,
            src,
            dst,
            mss: cfg.mss,
            header: cfg.header,
            max_window: cfg.max_window,
            dupack_threshold: cfg.recovery.dupack_threshold,
            ecn: ecn::Ecn::new(cfg),
            cc,
            rtt: match cfg.rto.tick {
                Some(g) => {
                    RttEstimator::new(cfg.rto.initial, cfg.rto.min, cfg.rto.max).with_tick(g)
                }
                None => RttEstimator::new(cfg.rto.initial, cfg.rto.min, cfg.rto.max),
            },
            rtt_dist: crate::stats::RttDist::default(),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            timed: None,
            rto_deadline: None,
            stats: SenderStats::default(),
            retx_high: 0,
            sack: (cfg.recovery.mode == Recovery::Rfc6675).then(|| {
                let mut st = SackState::new(
                    cfg.recovery.dupack_threshold,
                    cfg.mss,
                    prr,
                    cfg.recovery.nextseg_rule3,
                );
                st.rto_unsacked = cfg.rto.unsacked_flight;
                st.clear_at_exit = cfg.recovery.sack_clear_at_exit;
                if cfg.recovery.loss_detection == LossDetection::Fack {
                    st.sb = st.sb.with_fack();
                }
                Box::new(st)
            }),
            // RACK and FACK send by the SACK rules in every state: `cwnd − pipe`, so SACKed
            // segments open the window before recovery too (Linux's `tcp_packets_in_flight`,
            // ns-2's `LinuxTcpAgent::send_much`).
            out_slow: (u8::from(
                cfg.recovery.mode == Recovery::Rfc6675
                    && matches!(
                        cfg.recovery.loss_detection,
                        LossDetection::Rack | LossDetection::Fack
                    ),
            ) * OUT_SACK)
                | (u8::from(cfg.start.syn) * OUT_SYN)
                | (u8::from(cfg.compat.recovery_burst > 0) * OUT_BURST)
                | (u8::from(cfg.playback.is_some()) * OUT_RWND),
            rack: (cfg.recovery.mode == Recovery::Rfc6675
                && cfg.recovery.loss_detection == LossDetection::Rack)
                .then(|| Box::new(RackState::new(cfg.recovery.tlp))),
            spurious: (cfg.recovery.frto || cfg.recovery.dsack_undo).then(|| {
                Box::new(undo::Spurious::new(
                    cfg.recovery.frto,
                    cfg.recovery.dsack_undo,
                ))
            }),
            extras: cfg.pacing != Pacing::Off
                || cfg.recovery.loss_detection == LossDetection::Vegas,
            pace_deadline: None,
            rate: None,
            syn: if cfg.start.syn {
                Syn::ToSend
            } else {
                Syn::Done
            },
            vegas: (engine == RecoveryEngine::Vegas).then(|| Box::new(VegasLoss::new(cfg.mss))),
            engine,
            rec: recovery::RecoveryState {
                state: CaState::Open,
                dupacks: 0,
                recover: 0,
                recover_set: false,
                window: 0,
                partial_acks: 0,
                inflate_step: if inflate { cfg.mss as u64 } else { 0 },
                limited_transmit: cfg.recovery.limited_transmit
                    && cfg.recovery.mode == Recovery::NewReno,
                burst: cfg.compat.recovery_burst,
                cc_window,
            },
            compat: Compat {
                bugfix: cfg.compat.bugfix,
                window_basis: cfg.compat.ssthresh_basis == SsthreshBasis::Window,
                rto_restart_on_fr: cfg.compat.rto_restart_on_fast_retransmit
                    && cfg.recovery.loss_detection != LossDetection::Rack,
                rto_restart_on_retransmit: cfg.compat.rto_restart_on_retransmit
                    && cfg.recovery.loss_detection != LossDetection::Rack,
                rto_restart_on_dupack: cfg.compat.rto_restart_on_dupack
                    && cfg.recovery.loss_detection != LossDetection::Rack,
                partial_ack_timer: cfg.recovery.partial_ack_timer,
                recovery_exit: cfg.recovery.exit,
            },
            ipq: Backpressure {
                limit: u32::MAX,
                count: 0,
                retx_pending: false,
            },
            pace: pacing::PaceState {
                mode: cfg.pacing,
                paced: cfg.pacing != Pacing::Off,
                next: SimTime::ZERO,
            },
            buf: SendBuffer {
                app_limit: 0,
                written: 0,
                limit: cfg.send_buffer,
                fin: u64::MAX,
                fin_on: cfg.start.fin,
            },
            rwnd: rwnd::Rwnd {
                edge: cfg
                    .playback
                    .map_or(u64::MAX, |p| (p.buffer >> p.scale()) << p.scale()),
                scale: cfg.playback.map_or(0, |p| p.scale()),
                last_wnd: cfg
                    .playback
                    .map_or(0, |p| (p.buffer >> p.scale()).min(0xffff) as u16),
                persist: false,
            },
        }
        .with_rate_sampler()
    }

    fn with_rate_sampler(mut self) -> Self {
        if self.cc.wants_rate_samples() {
            self.rate = Some(Box::new(RateSampler::new()));
            self.extras = true;
        }
        self
    }

    /// The delivery-rate sampler (BBR flows only).
    pub fn rate_sampler(&self) -> Option<&RateSampler> {
        self.rate.as_deref()
    }

    /// RACK-TLP state (`loss_detection = "rack"` only).
    pub fn rack_state(&self) -> Option<&RackState> {
        self.rack.as_deref()
    }

    /// The SACK scoreboard and PRR state (`recovery = "rfc6675"` only).
    pub fn sack_state(&self) -> Option<&SackState> {
        self.sack.as_deref()
    }

    /// Enable end-host backpressure: at most `b` data segments in the local IP queue.
    pub fn set_ipq_limit(&mut self, b: u32) {
        self.ipq.limit = b.max(1);
    }

    /// This connection's data segments in the local IP queue (backpressure only).
    pub fn ipq_count(&self) -> u32 {
        self.ipq.count
    }

    #[inline]
    fn gate_open(&self) -> bool {
        self.ipq.count < self.ipq.limit
    }

    /// One of this connection's data segments left the local IP queue (transmitted or
    /// dropped): send whatever the window now allows.
    pub fn ipq_departed(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        debug_assert!(self.ipq.count > 0, "departure without a queued segment");
        self.ipq.count = self.ipq.count.saturating_sub(1);
        self.output(now, out);
    }

    /// Retransmit the first unacknowledged segment now, or as soon as the gate opens.
    fn retransmit_head(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.gate_open() {
            self.ipq.retx_pending = false;
            self.send_segment(now, self.snd_una, out);
        } else {
            self.ipq.retx_pending = true;
        }
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn state(&self) -> CaState {
        self.rec.state
    }
    pub fn max_window(&self) -> u64 {
        self.max_window
    }
    pub fn app_limit(&self) -> u64 {
        self.buf.app_limit
    }
    /// Bytes the application has written (`u64::MAX`: a greedy source); more than
    /// [`TcpSender::app_limit`] only while a full send buffer holds the rest back.
    pub fn written(&self) -> u64 {
        self.buf.written
    }
    /// The right edge of the receiver's advertised window (`u64::MAX` without
    /// `playback_rwnd_cap`).
    pub fn rwnd_edge(&self) -> u64 {
        self.rwnd.edge
    }
    /// All data the application offered has been acknowledged.
    pub fn is_complete(&self) -> bool {
        self.buf.app_limit != u64::MAX
            && self.snd_una >= self.buf.app_limit
            && self.buf.written <= self.buf.app_limit
    }

    /// The effective send window in bytes.
    #[inline]
    pub fn window(&self) -> u64 {
        let w = if self.rec.state == CaState::Recovery && !self.rec.cc_window {
            self.rec.window
        } else {
            self.cc.cwnd()
        };
        w.min(self.max_window)
    }

    #[inline(always)]
    fn view(&self) -> ConnView {
        ConnView {
            mss: self.mss,
            in_flight: self.snd_max - self.snd_una,
            pipe: self.pipe_for_cc(),
            srtt: self.rtt.srtt(),
            rttvar: self.rtt.rttvar(),
            min_rtt: self.rtt.min_rtt(),
            state: self.rec.state,
            max_window: self.max_window,
            recovery_exit: self.compat.recovery_exit,
            una_retransmitted: self.snd_una < self.retx_high,
        }
    }

    /// The view an algorithm's `on_congestion` gets: with `ssthresh_basis = "window"` its
    /// `in_flight` is the window `min(cwnd, max_window)` (ns-2's `slowdown` halves
    /// `windowd()`), not FlightSize.
    #[inline(never)]
    fn loss_view(&self) -> ConnView {
        let mut v = self.view();
        if self.compat.window_basis {
            v.in_flight = self.cc.cwnd().min(self.max_window);
        }
        v
    }

    /// `ConnView::pipe`: the scoreboard's pipe for rate-sampling algorithms (BBR) on SACK
    /// flows (O(DupThresh), or O(1) with RACK), else `snd_max − snd_una`.
    #[inline(always)]
    fn pipe_for_cc(&self) -> u64 {
        if self.rate.is_none() {
            return self.snd_max - self.snd_una;
        }
        self.scoreboard_pipe()
    }

    /// The scoreboard's pipe (rate-sampling flows only; out of line so that `view` stays
    /// small enough to inline on every other flow's ack path).
    #[inline(never)]
    fn scoreboard_pipe(&self) -> u64 {
        let (una, high) = (self.snd_una, self.snd_max);
        match (self.rack.as_deref(), self.sack.as_deref()) {
            (Some(r), _) => r.pipe(una, high),
            (None, Some(st)) => st.sb.pipe(una, high),
            _ => high - una,
        }
    }

    /// The application now offers data up to byte `limit` (`u64::MAX` = unlimited).
    pub fn set_app_limit(&mut self, now: SimTime, limit: u64, out: &mut impl FnMut(Packet)) {
        self.buf.written = limit.max(self.snd_max);
        self.accept();
        self.output(now, out);
    }

    /// The application writes `bytes` more (`u64::MAX`: a greedy source from now on). With a
    /// send buffer, what does not fit waits with the application (the write blocks) and is
    /// accepted, in order, as acks free space.
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut impl FnMut(Packet)) {
        self.set_app_limit(now, self.buf.written.saturating_add(bytes), out);
    }

    /// [`TcpSender::app_write`] of the last bytes of a transfer (`u64::MAX`: a greedy source,
    /// which never ends): with `fin = true` the segment that ends them carries the FIN.
    pub fn app_write_last(&mut self, now: SimTime, bytes: u64, out: &mut impl FnMut(Packet)) {
        if self.buf.fin_on {
            self.buf.fin = self.buf.written.saturating_add(bytes).max(self.snd_max);
        }
        self.app_write(now, bytes, out);
    }

    /// The send buffer accepts what the application wrote, as far as it has room:
    /// `app_limit = min(written, snd_una + send_buffer)`, never below `snd_max`.
    #[inline(always)]
    fn accept(&mut self) {
        self.buf.app_limit = if self.buf.limit == u64::MAX {
            self.buf.written
        } else {
            self.buf
                .written
                .min(self.snd_una.saturating_add(self.buf.limit))
                .max(self.snd_max)
        };
    }

    /// The application stops offering new data; what was sent is still delivered (what it
    /// wrote and the send buffer did not accept yet is withdrawn too).
    pub fn stop_app(&mut self) {
        self.buf.app_limit = self.snd_max;
        self.buf.written = self.snd_max;
    }

    #[inline(always)]
    fn send_segment(&mut self, now: SimTime, seq: u64, out: &mut impl FnMut(Packet)) -> u32 {
        self.send_capped(now, seq, self.mss, out)
    }

    /// Send the segment at `seq` of at most `cap` bytes.
    fn send_capped(
        &mut self,
        now: SimTime,
        seq: u64,
        cap: u32,
        out: &mut impl FnMut(Packet),
    ) -> u32 {
        // `app_limit >= snd_max` always, so this also rebuilds a retransmitted segment.
        let len = (self.buf.app_limit - seq).min(cap as u64) as u32;
        let retx = seq < self.snd_max;
        let mut f = 0u8;
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            self.retx_high = self.retx_high.max(seq + len as u64);
            self.timed = None; // Karn
            if self.compat.rto_restart_on_retransmit && seq == self.snd_una {
                // Linux `tcp_xmit_retransmit_queue`, ns-2 `reset_rtx_timer` (after a
                // timeout this sets what the timeout would: now + the backed-off RTO).
                self.arm_timer(now);
            }
        } else if self.timed.is_none() {
            self.timed = Some((seq + len as u64, now));
        }
        // New data is ECN-capable; retransmissions only with `ecn_retransmits`. CWR rides
        // on the next new segment.
        f |= self.ecn.segment_flags(retx);
        if seq + len as u64 == self.buf.fin {
            f |= flags::FIN;
        }
        if self.ipq.limit != u32::MAX {
            self.ipq.count += 1;
        }
        let mut cc = CcHeader::default();
        let view = self.view();
        self.cc.on_send(now, len, &mut cc, &view);
        self.stats.segments_sent += 1;
        if self.extras {
            self.on_send_extras(now, seq, len, retx);
        }
        out(Packet {
            flags: f,
            size: len + self.header,
            len,
            seq,
            cc,
            ..Packet::data(self.flow, self.src, self.dst, now)
        });
        if self.rto_deadline.is_none() {
            self.arm_timer(now);
        }
        len
    }

    /// Send whatever the window and the application allow.
    #[inline]
    pub fn output(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.out_slow != 0 {
            return self.output_slow(now, out);
        }
        self.output_new::<false>(now, out)
    }

    /// `output` for a flow with one of the `out_slow` bits set.
    #[inline(never)]
    fn output_slow(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        // The SYN first: FACK flows have `OUT_SACK` from the start and may open with one.
        if self.out_slow & OUT_SYN != 0 {
            self.syn_output(now, out)
        } else if self.out_slow & OUT_SACK != 0 {
            self.sack_output(now, out)
        } else {
            self.output_new::<true>(now, out)
        }
        if self.out_slow & OUT_RWND != 0 {
            self.persist_check(now);
        }
    }

    /// Reno/NewReno output: a pending retransmission of `snd_una`, then new segments while
    /// the window allows. `SLOW` (from `output_slow`): at most `recovery_burst` new segments
    /// in recovery (`OUT_BURST`), none past the receiver's window (`OUT_RWND`).
    #[inline(always)]
    fn output_new<const SLOW: bool>(&mut self, now: SimTime, out: &mut impl FnMut(Packet)) {
        if self.ipq.retx_pending && self.gate_open() {
            self.ipq.retx_pending = false;
            if self.snd_una < self.snd_max {
                self.send_segment(now, self.snd_una, out);
            }
        }
        // `recovery_burst`: the new segments this call may send (ns-2's Newreno sends at most
        // two per ack in fast recovery).
        let mut burst =
            if SLOW && self.out_slow & OUT_BURST != 0 && self.rec.state == CaState::Recovery {
                self.rec.burst
            } else {
                u32::MAX
            };
        loop {
            if !self.gate_open() || self.snd_nxt >= self.buf.app_limit || (SLOW && burst == 0) {
                break;
            }
            let len = (self.buf.app_limit - self.snd_nxt).min(self.mss as u64);
            let wnd = self.window();
            // A whole segment must fit in the window, except that an idle connection may
            // always send one segment (so a window below one MSS cannot deadlock). The
            // receiver's advertised window has no such exception (`playback_rwnd_cap`: a
            // closed window is probed by the persist timer).
            if (self.snd_nxt + len > self.snd_una + wnd && self.snd_nxt > self.snd_una)
                || (SLOW && self.snd_nxt + len > self.rwnd.edge)
            {
                break;
            }
            if self.pace_blocked(now) {
                break;
            }
            let seq = self.snd_nxt;
            let sent = self.send_segment(now, seq, out) as u64;
            self.snd_nxt += sent;
            if self.snd_nxt > self.snd_max {
                self.snd_max = self.snd_nxt;
            }
            if SLOW {
                burst = burst.saturating_sub(1);
            }
        }
        if self.rate.is_some() {
            self.check_app_limited();
        }
    }

    /// Delivery-rate sampling: the application has no more data while the window has
    /// room (Linux `tcp_rate_check_app_limited`).
    #[inline(never)]
    fn check_app_limited(&mut self) {
        let flight = self.snd_max - self.snd_una;
        if self.snd_nxt >= self.buf.app_limit && flight < self.window() {
            if let Some(r) = self.rate.as_deref_mut() {
                r.mark_app_limited(flight);
            }
        }
    }

    /// An ack for this connection arrived.
    #[inline(never)]
    pub fn on_ack(&mut self, now: SimTime, pkt: &Packet, out: &mut impl FnMut(Packet)) {
        self.stats.acks_received += 1;
        if self.out_slow & OUT_RWND != 0 && self.rwnd_ack(now, pkt, out) {
            return;
        }
        if self.out_slow & OUT_SYN != 0 {
            return self.syn_acked(now, pkt, out);
        }
        let ack = pkt.ack;
        if ack > self.snd_max {
            // Acknowledges data never sent: ignore (cannot happen without corruption).
            return;
        }
        let newly = ack.saturating_sub(self.snd_una);
        let dup = newly == 0 && ack == self.snd_una && self.snd_max > self.snd_una;
        if newly == 0 && !dup {
            // Old or window-less ack: nothing to learn.
            if ack < self.snd_una {
                return;
            }
        }
        if let Some((end, t0)) = self.timed {
            if ack >= end {
                self.rtt.sample_at(now, t0);
                self.timed = None;
            }
        }
        let rtt = if newly > 0 && !pkt.has(flags::RETX) {
            let r = now.since(pkt.ts);
            self.rtt.observe(r);
            self.rtt_dist.add(r.0);
            Some(r)
        } else {
            None
        };
        if newly > 0 {
            self.snd_una = ack;
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una;
            }
            if self.buf.limit != u64::MAX {
                // Acked bytes leave the send buffer: the blocked writer's data moves in.
                self.accept();
            }
        }
        // Delivery-rate sampling (BBR) counts SACKed bytes, so with SACK the scoreboard
        // learns this ack first (its result is kept for the recovery rules that run after
        // the algorithm has seen the ack).
        let mut sacked = None;
        let rate = if self.rate.is_some() {
            self.rate_sample(now, pkt, newly, &mut sacked)
        } else {
            None
        };
        let ece = pkt.has(flags::ECE);
        // ECN-Echo (sender/ecn.rs): the reaction comes before the algorithm sees the ack.
        let ece_hold = self.ecn_on_ack(now, ece, newly);
        let sample = AckSample {
            newly_acked: newly,
            dup,
            rtt,
            sent_at: pkt.ts,
            echo_retx: pkt.has(flags::RETX),
            rx_arrival: pkt.rx_time,
            rx_leave: pkt.tx_start,
            ece,
            ece_hold,
            echo: pkt.cc,
            delivered: self.snd_una,
            rate,
        };
        let view = self.view();
        self.cc.on_ack(now, &sample, &view);

        // The loss-recovery engine's rules (sender/recovery.rs); RFC 6298 5.3: an ack of new
        // data restarts the timer unless the engine says otherwise.
        let restart = self.recovery_on_ack(now, pkt, newly, dup, sacked, out);

        if self.spurious.is_some() {
            self.undo_on_ack(now, pkt, newly, out);
        }
        // RFC 6298 5.2/5.3: stop the timer when all is acked, restart it on new data acked.
        if newly > 0 {
            if self.snd_una >= self.snd_max {
                self.rto_deadline = None;
            } else if restart {
                self.arm_timer(now);
            }
        } else if dup && self.compat.rto_restart_on_dupack && self.rto_deadline.is_some() {
            self.arm_timer(now);
        }
        self.output(now, out);
    }

    /// Delivery-rate sampling for one ack (flows whose algorithm asked for it): with SACK
    /// the scoreboard is updated here, and its result left in `sacked` for the recovery
    /// rules.
    #[inline(never)]
    fn rate_sample(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        newly: u64,
        sacked: &mut Option<SackUpdate>,
    ) -> Option<crate::tcp::rate::RateSample> {
        let (delivered, sack_end) = if self.sack.is_some() {
            let u = self.sack_update(now, pkt, newly);
            *sacked = Some(u);
            (u.delivered, u.newest)
        } else {
            (newly, None)
        };
        let min_rtt = self.rtt.min_rtt();
        let r = self.rate.as_deref_mut().expect("rate sampler");
        r.on_ack(now, self.snd_una, delivered, sack_end, min_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::reno;
    use crate::packet::PacketKind;
    use crate::tcp::{EcnConfig, RecoveryConfig, RtoConfig, StartConfig};
    use crate::time::SimDuration;

    const MSS: u32 = 1000;

    /// The transport settings of the test senders.
    fn test_cfg(init_cwnd: u32) -> TcpConfig {
        TcpConfig {
            mss: MSS,
            header: 40,
            start: StartConfig {
                init_cwnd,
                ..Default::default()
            },
            rto: RtoConfig {
                min: SimDuration::from_ms(200),
                initial: SimDuration::from_secs(1),
                ..Default::default()
            },
            ..TcpConfig::default()
        }
    }

    fn sender(init_cwnd: u32, newreno: bool) -> TcpSender {
        let cfg = test_cfg(init_cwnd);
        let cc = reno(MSS, (init_cwnd * MSS) as u64, u64::MAX, newreno);
        TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc)
    }

    fn ack_pkt(ack: u64, ts: SimTime) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Ack, 40);
        p.ack = ack;
        p.ts = ts;
        p
    }

    fn collect(
        s: &mut TcpSender,
        f: impl FnOnce(&mut TcpSender, &mut dyn FnMut(Packet)),
    ) -> Vec<Packet> {
        let mut v = Vec::new();
        f(s, &mut |p| v.push(p));
        v
    }

    /// A Reno sender paced at 8 Mb/s (1 MB/s) with a 100-segment window, started at
    /// `t0`: what it sent at once.
    fn start_paced(cfg: TcpConfig, t0: SimTime) -> (TcpSender, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: MSS,
            header: 40,
            pacing: Pacing::Rate(1_000_000),
            start: StartConfig {
                init_cwnd: 100,
                ..cfg.start
            },
            ..cfg
        };
        let cc = reno(MSS, 100 * MSS as u64, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let out = collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        (s, out)
    }

    #[test]
    fn the_last_segment_of_a_transfer_carries_the_fin_and_so_does_its_retransmission() {
        for fin in [true, false] {
            let mut cfg = test_cfg(10);
            cfg.start.fin = fin;
            let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
            let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
            let t0 = SimTime::ZERO;
            let out = collect(&mut s, |s, o| s.app_write_last(t0, 2500, &mut |p| o(p)));
            let lens: Vec<(u32, bool)> = out.iter().map(|p| (p.len, p.has(flags::FIN))).collect();
            assert_eq!(lens, [(1000, false), (1000, false), (500, fin)]);
            // The timeout resends from snd_una; the segment that ends the stream has it again.
            let t = SimTime(2_000_000_000_000);
            let first = collect(&mut s, |s, o| s.on_timeout(t, &mut |p| o(p)));
            assert_eq!(first[0].seq, 0);
            let mut again = Vec::new();
            for i in 1..=2u64 {
                let ack = ack_pkt(i * 1000, t0);
                again.extend(collect(&mut s, |s, o| s.on_ack(t, &ack, &mut |p| o(p))));
            }
            assert!(
                again
                    .iter()
                    .any(|p| p.seq == 2000 && p.has(flags::FIN) == fin),
                "{again:?}"
            );
        }
        // A greedy source never ends.
        let mut cfg = test_cfg(10);
        cfg.start.fin = true;
        let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let out = collect(&mut s, |s, o| {
            s.app_write_last(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|p| !p.has(flags::FIN)));
    }

    #[test]
    fn paced_segments_leave_size_over_rate_apart() {
        // 8 Mb/s = 1 MB/s: a 1040-byte segment (1000 + 40) every 1.04 ms, however large
        // the window; the first leaves at once.
        let t0 = SimTime(5_000);
        let (mut s, out) = start_paced(TcpConfig::default(), t0);
        assert_eq!(out.len(), 1);
        let gap = SimDuration::from_us(1040);
        let mut t = t0;
        let mut departures = vec![t0];
        for _ in 0..20 {
            let d = s.pace_deadline.expect("waiting for the release time");
            assert_eq!(d, t + gap);
            // An ack-clocked `output` before the release time sends nothing.
            let early = collect(&mut s, |s, o| s.output(SimTime(d.0 - 1), &mut |p| o(p)));
            assert!(early.is_empty());
            t = d;
            let out = collect(&mut s, |s, o| s.on_pace_timer(t, &mut |p| o(p)));
            assert_eq!(out.len(), 1);
            departures.push(t);
        }
        assert!(departures.windows(2).all(|w| w[1].since(w[0]) == gap));
        // After an idle period the next segment leaves at once: next = max(now, next) + gap.
        let late = t + SimDuration::from_ms(50);
        let out = collect(&mut s, |s, o| s.on_pace_timer(late, &mut |p| o(p)));
        assert_eq!(out.len(), 1);
        assert_eq!(s.pace_deadline, Some(late + gap));
        // Unpaced senders never wait.
        let mut u = sender(100, true);
        let out = collect(&mut u, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        assert_eq!(out.len(), 100);
        assert_eq!(u.pace_deadline, None);
    }

    #[test]
    fn rack_output_is_paced_too() {
        // RACK-TLP flows send through `rack_output`: the same pacing as the other paths.
        let cfg = TcpConfig {
            sack: true,
            recovery: RecoveryConfig {
                mode: Recovery::Rfc6675,
                loss_detection: LossDetection::Rack,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let t0 = SimTime(5_000);
        let (s, out) = start_paced(cfg, t0);
        assert_eq!(out.len(), 1);
        assert_eq!(s.pace_deadline, Some(t0 + SimDuration::from_us(1040)));
    }

    #[test]
    fn bbr_sets_the_window_in_sack_recovery_without_prr() {
        // Linux's `cong_control` (BBR): no PRR, the recovery window is the algorithm's.
        let cfg = TcpConfig {
            mss: MSS,
            sack: true,
            start: StartConfig {
                init_cwnd: 10,
                ..Default::default()
            },
            recovery: RecoveryConfig {
                mode: Recovery::Rfc6675,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let init = crate::cc::CcInit {
            mss: MSS,
            init_cwnd: 10 * MSS as u64,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let bbr = crate::cc::bbr::BbrSpec::default()
            .build(
                "cc",
                init,
                crate::rng::SimRng::derive(1, crate::rng::Stream::Cc, 0),
            )
            .unwrap();
        let mut s = TcpSender::new(
            FlowId(0),
            NodeId(0),
            NodeId(1),
            &cfg,
            AnyCc::Bbr(Box::new(bbr)),
        );
        assert!(s.rec.cc_window);
        assert!(!s.sack.as_deref().unwrap().prr.enabled());
        s.rec.state = CaState::Recovery;
        s.rec.window = 3 * MSS as u64;
        assert_eq!(
            s.window(),
            10 * MSS as u64,
            "BBR's cwnd, not the recovery window"
        );
        // Other algorithms keep the transport's recovery window (PRR by default).
        let mut r = TcpSender::new(
            FlowId(0),
            NodeId(0),
            NodeId(1),
            &cfg,
            reno(MSS, 10_000, u64::MAX, true),
        );
        assert!(!r.rec.cc_window);
        assert!(r.sack.as_deref().unwrap().prr.enabled());
        r.rec.state = CaState::Recovery;
        r.rec.window = 3 * MSS as u64;
        assert_eq!(r.window(), 3 * MSS as u64);
    }

    #[test]
    fn linux_pacing_rate_is_2_or_1_2_windows_per_srtt() {
        let cfg = TcpConfig {
            mss: MSS,
            pacing: Pacing::Linux,
            ..TcpConfig::default()
        };
        // Slow start far below ssthresh (10 000 < 100 000 / 2): 200 %.
        let cc = reno(MSS, 10 * MSS as u64, 100_000, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        assert_eq!(s.pacing_rate(), None, "no RTT sample yet");
        s.rtt.sample(SimDuration::from_ms(100));
        assert_eq!(s.pacing_rate(), Some(200_000));
        // cwnd ≥ ssthresh / 2: 120 %.
        let cc = reno(MSS, 10 * MSS as u64, 15_000, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        s.rtt.sample(SimDuration::from_ms(100));
        assert_eq!(s.pacing_rate(), Some(120_000));
    }

    #[test]
    fn backpressure_gate_holds_segments_until_departures() {
        let mut s = sender(4, true);
        s.set_ipq_limit(1);
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(out.len(), 1, "window 4 but only 1 allowed in the IP queue");
        assert_eq!(s.ipq_count(), 1);
        let t = SimTime::ZERO + SimDuration::from_ms(1);
        let out = collect(&mut s, |s, o| s.ipq_departed(t, &mut |p| o(p)));
        assert_eq!(
            out.iter().map(|p| p.seq).collect::<Vec<_>>(),
            vec![MSS as u64]
        );
        // Three dupacks while the gate is closed: the retransmission waits, then goes first.
        for _ in 0..3 {
            let _ = collect(&mut s, |s, o| {
                s.on_ack(t, &ack_pkt(0, SimTime::ZERO), &mut |p| o(p))
            });
        }
        let out = collect(&mut s, |s, o| s.ipq_departed(t, &mut |p| o(p)));
        assert_eq!(out.len(), 1);
        assert!(out[0].has(flags::RETX) && out[0].seq == 0);
    }

    #[test]
    fn sends_initial_window_and_arms_timer() {
        let mut s = sender(4, true);
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(out.len(), 4);
        assert_eq!(
            out.iter().map(|p| p.seq).collect::<Vec<_>>(),
            vec![0, 1000, 2000, 3000]
        );
        assert!(out.iter().all(|p| p.size == 1040 && !p.has(flags::RETX)));
        assert_eq!(
            s.rto_deadline,
            Some(SimTime::ZERO + SimDuration::from_secs(1))
        );
    }

    /// `recovery_inflation` (Westwood's `fr_inflation`): with it, fast recovery's window is
    /// the algorithm's window plus 3 S, plus S per further dupack; without, the algorithm's
    /// window throughout (also after a partial ack).
    #[test]
    fn recovery_without_inflation_keeps_the_algorithms_window() {
        use crate::cc::{westwood::WestwoodSpec, AckCounting, AnyCc, CcInit, CongestionControl};
        let run = |inflate: bool| {
            let cfg = test_cfg(10);
            let spec = WestwoodSpec {
                fr_inflation: inflate,
                ..WestwoodSpec::default()
            };
            let init = CcInit {
                mss: MSS,
                init_cwnd: 10 * MSS as u64,
                init_ssthresh: u64::MAX,
                ack_counting: AckCounting::Acks,
            };
            let cc = AnyCc::Westwood(Box::new(spec.build("flows.f.cc", init).unwrap()));
            let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
            let t0 = SimTime::ZERO;
            collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
            let t1 = SimTime(1_000_000);
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
            });
            for _ in 0..3 {
                collect(&mut s, |s, o| {
                    s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
                });
            }
            assert_eq!(s.state(), CaState::Recovery);
            let at_fr = (s.window(), s.cc.cwnd());
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
            });
            let after_dup = s.window();
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(4000, t0), &mut |p| o(p))
            });
            assert_eq!(s.state(), CaState::Recovery);
            (at_fr, after_dup, s.window(), s.cc.cwnd())
        };
        let ((w, cw), dup, partial, cw2) = run(true);
        assert_eq!(w, cw + 3 * MSS as u64);
        assert_eq!(dup, w + MSS as u64);
        assert_eq!(partial, dup - 3000 + MSS as u64);
        assert!(cw2 > 0);
        let ((w, cw), dup, partial, cw2) = run(false);
        assert_eq!((w, dup, partial), (cw, cw, cw2));
    }

    #[test]
    fn three_dupacks_fast_retransmit_and_newreno_partial_ack() {
        let mut s = sender(10, true);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        assert_eq!(s.snd_max(), 10_000);
        let t1 = SimTime(1_000_000);
        // First segment acked, then segment 1000..2000 and 4000..5000 are lost.
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
        });
        assert_eq!(out.len(), 2); // slow start: cwnd 11 segments, window slides by 1 → 2 new
        assert_eq!(s.snd_max(), 12_000);
        for _ in 0..2 {
            let out = collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
            });
            assert!(out.is_empty());
        }
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 1000);
        assert!(out[0].has(flags::RETX));
        // flight was 11_000 → ssthresh 5_500, recovery window 5_500 + 3_000.
        assert_eq!(s.cc.ssthresh(), 5_500);
        assert_eq!(s.window(), 8_500);
        // Further dupacks inflate by one MSS each.
        collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
        });
        assert_eq!(s.window(), 9_500);
        // Partial ack up to 4000: retransmit 4000, deflate by 3000 then add one MSS.
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(4000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(out[0].seq, 4000);
        assert!(out[0].has(flags::RETX));
        assert_eq!(s.window(), 9_500 - 3_000 + 1_000);
        // Full ack: leave recovery with cwnd = ssthresh.
        collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(12_000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.window(), 5_500);
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn una_retransmitted_tells_vegas_whether_the_lost_segment_was_sent_once() {
        let cfg = TcpConfig {
            mss: MSS,
            header: 40,
            start: StartConfig {
                init_cwnd: 10,
                ..Default::default()
            },
            rto: RtoConfig {
                min: SimDuration::from_ms(200),
                initial: SimDuration::from_secs(1),
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let cc = AnyCc::Vegas(crate::cc::Vegas::new(MSS, 10_000, u64::MAX, 1.0, 3.0));
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        assert!(!s.view().una_retransmitted);
        let t1 = SimTime(1_000_000);
        for _ in 0..3 {
            collect(&mut s, |s, o| s.on_ack(t1, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        // Segment 0 had been sent once: P1's 3/4 cut, then it is retransmitted.
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(s.cc.cwnd(), 7_500);
        assert!(s.view().una_retransmitted);
        // Partial ack to 3000: hole 3000 is retransmitted, 3000 is now snd_una.
        collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(3000, t0), &mut |p| o(p))
        });
        assert!(s.view().una_retransmitted);
        // Timeout: go-back-N from 3000 with one segment; 4000 was never retransmitted.
        s.on_timeout(SimTime(2_000_000_000), &mut |_| {});
        assert_eq!(s.cc.cwnd(), 1_000);
        let t2 = SimTime(2_100_000_000);
        collect(&mut s, |s, o| {
            s.on_ack(t2, &ack_pkt(4000, t0), &mut |p| o(p))
        });
        // Slow start after the timeout: two segments (4000 and 5000) go out again as
        // retransmissions (below snd_max), so 4000 is now retransmitted; 6000 is not.
        assert!(s.view().una_retransmitted);
        collect(&mut s, |s, o| {
            s.on_ack(t2, &ack_pkt(6000, t0), &mut |p| o(p))
        });
        // Go-back-N has resent 6000..9000 by now: still a retransmitted head.
        assert_eq!(s.snd_una(), 6000);
        assert!(s.view().una_retransmitted);
        // The timeout came with snd_max = 11 000 (recovery sent new data): 10 000 lies
        // below it and is resent by go-back-N, so it counts as retransmitted too.
        let high = s.snd_max();
        assert_eq!(high, 11_000);
        collect(&mut s, |s, o| {
            s.on_ack(t2, &ack_pkt(10_000, t0), &mut |p| o(p))
        });
        assert!(s.view().una_retransmitted);
        // Past everything sent before the timeout only new data: sent once.
        collect(&mut s, |s, o| {
            s.on_ack(t2, &ack_pkt(high, t0), &mut |p| o(p))
        });
        assert!(!s.view().una_retransmitted);
    }

    /// A Vegas sender with `loss_detection = "vegas"` and a 10-segment window, whose first
    /// ack (segment 0, at 100 ms) started the fine-grained estimator: T = 0.1375·17/16 s.
    fn vegas_fine_sender() -> (TcpSender, SimTime) {
        let cfg = TcpConfig {
            recovery: RecoveryConfig {
                loss_detection: LossDetection::Vegas,
                ..test_cfg(10).recovery
            },
            ..test_cfg(10)
        };
        let cc = AnyCc::Vegas(crate::cc::Vegas::new(MSS, 10_000, u64::MAX, 1.0, 3.0));
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        let t1 = t0 + SimDuration::from_ms(100);
        collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
        });
        let t = (0.2 + 0.075) / 2.0;
        let fine = s.vegas_loss().unwrap().timeout_s;
        assert!((fine - (t + t / 16.0)).abs() < 1e-12, "{fine}");
        (s, t1)
    }

    #[test]
    fn vegas_retransmits_on_the_first_dupack_once_the_head_is_older_than_its_fine_timeout() {
        let (mut s, t1) = vegas_fine_sender();
        // A dupack before T has passed for segment 1000 (sent at 0): nothing yet.
        let early = SimTime::ZERO + SimDuration::from_ms(140);
        let out = collect(&mut s, |s, o| {
            s.on_ack(early, &ack_pkt(1000, t1), &mut |p| o(p))
        });
        assert!(out.iter().all(|p| p.seq != 1000), "{out:?}");
        assert_eq!(s.state(), CaState::Open);
        // The second dupack, at 150 ms (> T = 146 ms): retransmitted, window cut to 3/4,
        // plus one segment per dupack so far; the fine timeout backs off by 1/8.
        let late = SimTime::ZERO + SimDuration::from_ms(150);
        let t_before = s.vegas_loss().unwrap().timeout_s;
        let out = collect(&mut s, |s, o| {
            s.on_ack(late, &ack_pkt(1000, t1), &mut |p| o(p))
        });
        assert_eq!(out.iter().filter(|p| p.seq == 1000).count(), 1, "{out:?}");
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.vegas_loss().unwrap().fine_retransmits, 1);
        assert_eq!(s.state(), CaState::Recovery);
        assert!(s.cc.cwnd() < 10_000);
        assert_eq!(s.window(), s.cc.cwnd() + 2 * MSS as u64);
        let t_after = s.vegas_loss().unwrap().timeout_s;
        assert!((t_after - t_before * 1.125).abs() < 1e-12);
        // Sent once: the dupack count jumps to the threshold, so the next one inflates.
        let w = s.window();
        collect(&mut s, |s, o| {
            s.on_ack(late, &ack_pkt(1000, t1), &mut |p| o(p))
        });
        assert_eq!(s.window(), w + MSS as u64);
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn vegas_resends_the_next_old_hole_on_a_new_ack_without_a_second_cut() {
        let (mut s, t1) = vegas_fine_sender();
        // Segments 1000 and 3000 lost. Three dupacks (no expiry yet: at 120 ms) start the
        // recovery of 1000.
        let t = SimTime::ZERO + SimDuration::from_ms(120);
        for _ in 0..3 {
            collect(&mut s, |s, o| {
                s.on_ack(t, &ack_pkt(1000, t1), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.vegas_loss().unwrap().fine_retransmits, 0);
        let cut = s.cc.cwnd();
        // The retransmission's ack covers up to the next hole at 3000, which was sent at 0
        // and is older than T by now: resent at once, no second cut, window deflated.
        let t2 = SimTime::ZERO + SimDuration::from_ms(250);
        let out = collect(&mut s, |s, o| {
            s.on_ack(t2, &ack_pkt(3000, t1), &mut |p| o(p))
        });
        assert_eq!(out.iter().filter(|p| p.seq == 3000).count(), 1, "{out:?}");
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.vegas_loss().unwrap().fine_retransmits, 1);
        assert_eq!(s.cc.cwnd(), cut);
        assert_eq!(s.window(), cut, "deflated to the algorithm's window");
        // Dupacks for the resent hole count from the threshold (ns-2 sets dupacks_ to it):
        // before the hole is older than T they only inflate the window.
        let w = s.window();
        let t3 = t2 + SimDuration::from_ms(10);
        let out = collect(&mut s, |s, o| {
            s.on_ack(t3, &ack_pkt(3000, t1), &mut |p| o(p))
        });
        assert!(out.iter().all(|p| p.seq != 3000), "{out:?}");
        assert_eq!(s.window(), w + MSS as u64);
        // Once it is (sent at 250 ms; T about 236 ms since the new ack's sample, the
        // original send of segment 2000 at 0 ms: 250 ms): resent. It had been sent twice, so T
        // doubles, and since its last send (250 ms) came after the last cut (120 ms) the
        // window is cut again, by half (P1: a retransmission lost again).
        let before = s.vegas_loss().unwrap().timeout_s;
        let t4 = SimTime::ZERO + SimDuration::from_ms(500);
        let out = collect(&mut s, |s, o| {
            s.on_ack(t4, &ack_pkt(3000, t1), &mut |p| o(p))
        });
        assert_eq!(out.iter().filter(|p| p.seq == 3000).count(), 1, "{out:?}");
        assert!((s.vegas_loss().unwrap().timeout_s - 2.0 * before).abs() < 1e-12);
        assert_eq!(s.stats.fast_retransmits, 2);
        assert_eq!(s.cc.cwnd(), (cut / 2).max(2 * MSS as u64));
    }

    /// Three holes (1000, 3000, 5000): the timer after each partial ack, per variant.
    fn timer_after_partial_acks(variant: PartialAckTimer) -> Vec<Option<SimTime>> {
        let mut s = sender(10, true);
        s.compat.partial_ack_timer = variant;
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        let ms = |k: u64| SimTime(k * 1_000_000_000);
        for _ in 0..4 {
            collect(&mut s, |s, o| {
                s.on_ack(ms(10), &ack_pkt(1000, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.state(), CaState::Recovery);
        let mut deadlines = vec![s.rto_deadline];
        for (k, ack) in [(20, 3000), (30, 5000)] {
            collect(&mut s, |s, o| {
                s.on_ack(ms(k), &ack_pkt(ack, t0), &mut |p| o(p))
            });
            assert_eq!(s.state(), CaState::Recovery);
            deadlines.push(s.rto_deadline);
        }
        deadlines
    }

    #[test]
    fn partial_ack_timer_variants() {
        let every = timer_after_partial_acks(PartialAckTimer::Every);
        let first = timer_after_partial_acks(PartialAckTimer::First);
        // Both restart on the first partial ack (at 20 ms).
        assert_eq!(every[1], first[1]);
        assert!(every[1] > every[0]);
        // Only Slow-but-Steady restarts on the second (at 30 ms).
        assert!(every[2] > every[1]);
        assert_eq!(first[2], first[1]);
    }

    /// The timer after a fast retransmit at 10 ms (the last new data acked at 5 ms).
    fn timer_around_fast_retransmit(restart: bool) -> (Option<SimTime>, Option<SimTime>, SimTime) {
        let mut s = sender(10, true);
        s.compat.rto_restart_on_retransmit = restart;
        let t0 = SimTime::ZERO;
        let ms = |k: u64| SimTime(k * 1_000_000_000);
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        collect(&mut s, |s, o| {
            s.on_ack(ms(5), &ack_pkt(1000, t0), &mut |p| o(p))
        });
        let before = s.rto_deadline;
        for _ in 0..3 {
            collect(&mut s, |s, o| {
                s.on_ack(ms(10), &ack_pkt(1000, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        (before, s.rto_deadline, ms(10) + s.rtt.rto())
    }

    #[test]
    fn rto_restart_on_retransmit() {
        // RFC 6298 (default): the fast retransmit leaves the timer where the last ack of new
        // data put it; Linux/ns-2 (`rto_restart_on_retransmit`): it restarts at the
        // retransmission of the head.
        let (before, after, _) = timer_around_fast_retransmit(false);
        assert_eq!(after, before);
        let (before, after, restarted) = timer_around_fast_retransmit(true);
        assert_eq!(after, Some(restarted));
        assert!(after > before);
    }

    #[test]
    fn newreno_ignores_dupacks_at_recover() {
        // RFC 6582 §3.2 step 1: after a recovery that ended at `recover` = 12 000, three
        // duplicate acks of 12 000 do not start another one; duplicates above it do.
        let mut s = sender(10, true);
        let t0 = SimTime::ZERO;
        let t1 = SimTime(1_000_000);
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        for _ in 0..4 {
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(12_000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Open);
        assert!(s.snd_max() > 13_000);
        for _ in 0..5 {
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(12_000, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 1, "dupacks at recover");
        for _ in 0..4 {
            collect(&mut s, |s, o| {
                s.on_ack(t1, &ack_pkt(13_000, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 2, "dupacks above recover");
    }

    #[test]
    fn reno_leaves_recovery_on_partial_ack() {
        let mut s = sender(10, false);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        for _ in 0..3 {
            collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        // snd_una = 0 with data outstanding: those were dupacks.
        assert_eq!(s.state(), CaState::Recovery);
        collect(&mut s, |s, o| {
            s.on_ack(t0, &ack_pkt(3000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Open);
        assert_eq!(s.window(), 5_000);
    }

    /// Reno, 10 segments out, holes at 0 and 3000: the first fast retransmit, a partial ack
    /// (Reno leaves recovery), then three duplicate acks of 3000 (the second hole, still
    /// below `recover`). Fast retransmits and the window after them.
    fn reno_second_hole(bugfix: Option<bool>) -> (u64, u64, Vec<u64>) {
        let mut s = sender(10, false);
        s.compat.bugfix = bugfix;
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        for _ in 0..3 {
            collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        collect(&mut s, |s, o| {
            s.on_ack(t0, &ack_pkt(3000, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Open);
        let mut sent = Vec::new();
        for _ in 0..3 {
            for p in collect(&mut s, |s, o| {
                s.on_ack(t0, &ack_pkt(3000, t0), &mut |p| o(p))
            }) {
                sent.push(p.seq);
            }
        }
        (s.stats.fast_retransmits, s.cc.cwnd(), sent)
    }

    #[test]
    fn reno_bugfix_refuses_a_second_fast_retransmit_in_one_window() {
        // ns-2 Agent/TCP/Reno with bugFix_ false (tcplab's Reno default): the second hole
        // gets a second fast retransmit and a second halving.
        let (fr, cwnd, sent) = reno_second_hole(None);
        assert_eq!(fr, 2);
        assert_eq!(cwnd, 3_500, "half of the 7 segments in flight");
        assert_eq!(sent, vec![3000]);
        // bugFix_ true (ns-2's default, `RenoTcpAgent::dupack_action`): the dupacks are at
        // or below `recover` (10 000): no retransmission, no cut; the timer repairs it.
        let (fr, cwnd, sent) = reno_second_hole(Some(true));
        assert_eq!(fr, 1);
        assert_eq!(cwnd, 5_000);
        assert!(sent.is_empty(), "{sent:?}");
        // NewReno without the check (bugFix_ false on Agent/TCP/Newreno).
        let mut s = sender(10, true);
        s.compat.bugfix = Some(false);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        s.on_timeout(SimTime(1), &mut |_| {});
        for _ in 0..3 {
            collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        assert_eq!(
            s.stats.fast_retransmits, 0,
            "in the Loss state dupacks never start one"
        );
    }

    #[test]
    fn ssthresh_basis_window_halves_the_window_not_the_flight() {
        // 10 segments out, cwnd 10; a fast retransmit halves it to 5 and recovery stalls.
        // At the timeout RFC 5681 halves the flight (10 segments: ssthresh 5), ns-2 the
        // window (5: ssthresh 2.5 segments).
        let run = |mode: SsthreshBasis| {
            let mut s = sender(10, true);
            s.compat.window_basis = mode == SsthreshBasis::Window;
            let t0 = SimTime::ZERO;
            collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
            for _ in 0..3 {
                collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
            }
            assert_eq!(s.cc.cwnd(), 5_000);
            s.on_timeout(SimTime(1), &mut |_| {});
            s.cc.ssthresh()
        };
        assert_eq!(run(SsthreshBasis::FlightSize), 5_000);
        assert_eq!(run(SsthreshBasis::Window), 2_500);
    }

    #[test]
    fn ssthresh_basis_window_at_a_fast_retransmit_after_limited_transmit() {
        // cwnd 10, limited transmit: 12 segments in flight at the third dupack. RFC 5681
        // halves the flight (6), ns-2's slowdown the window (5).
        let run = |window: bool| {
            let mut s = sender(10, true);
            s.rec.limited_transmit = true;
            s.compat.window_basis = window;
            let t0 = SimTime::ZERO;
            collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
            for _ in 0..3 {
                collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
            }
            assert_eq!(s.snd_max(), 12_000);
            s.cc.ssthresh()
        };
        assert_eq!(run(false), 6_000);
        assert_eq!(run(true), 5_000);
    }

    #[test]
    fn rto_restart_on_fast_retransmit_only() {
        let mut s = sender(10, true);
        s.compat.rto_restart_on_fr = true;
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        let first = s.rto_deadline;
        let t1 = SimTime(SimDuration::from_ms(50).0);
        for _ in 0..3 {
            collect(&mut s, |s, o| s.on_ack(t1, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        assert_eq!(
            s.rto_deadline,
            Some(t1 + s.rtt.rto()),
            "restarted at the fast retransmit"
        );
        assert_ne!(s.rto_deadline, first);
        // Without the key the timer keeps running from the first send.
        let mut q = sender(10, true);
        collect(&mut q, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        for _ in 0..3 {
            collect(&mut q, |s, o| s.on_ack(t1, &ack_pkt(0, t0), &mut |p| o(p)));
        }
        assert_eq!(q.rto_deadline, first);
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_per_early_dupack() {
        let mut s = sender(4, true);
        s.rec.limited_transmit = true;
        let t0 = SimTime::ZERO;
        let sent = collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        assert_eq!(sent.len(), 4);
        let mut new = Vec::new();
        for _ in 0..2 {
            for p in collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p))) {
                new.push(p.seq);
            }
        }
        assert_eq!(new, vec![4000, 5000]);
        // The third is the fast retransmit (of 0), not a limited transmit.
        let third = collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
        assert_eq!(third[0].seq, 0);
        assert_eq!(s.stats.fast_retransmits, 1);
        // Without the key, nothing is sent on the first two.
        let mut q = sender(4, true);
        collect(&mut q, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        for _ in 0..2 {
            assert!(
                collect(&mut q, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p))).is_empty()
            );
        }
    }

    #[test]
    fn recovery_burst_caps_new_segments_per_ack() {
        // The application offers 10 segments, all sent; eight duplicate acks inflate the
        // recovery window to 5 + 3 + 5 = 13 segments with nothing new to send. Then more
        // data: NewReno sends the 3 segments the window allows, with recovery_burst = 2
        // only two in this call (ns-2 Newreno: `send_much(0, 0, 2)` per ack).
        let run = |burst: u32| {
            let mut s = sender(10, true);
            s.rec.burst = burst;
            if burst > 0 {
                s.out_slow |= OUT_BURST;
            }
            let t0 = SimTime::ZERO;
            collect(&mut s, |s, o| s.set_app_limit(t0, 10_000, &mut |p| o(p)));
            for _ in 0..8 {
                collect(&mut s, |s, o| s.on_ack(t0, &ack_pkt(0, t0), &mut |p| o(p)));
            }
            assert_eq!(s.state(), CaState::Recovery);
            let new = collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
            new.iter().filter(|p| !p.has(flags::RETX)).count()
        };
        assert_eq!(run(0), 3);
        assert_eq!(run(2), 2);
    }

    #[test]
    fn syn_goes_first_and_its_round_trip_times_the_rto() {
        let mut s = sender(2, true);
        s.syn = Syn::ToSend;
        s.out_slow |= OUT_SYN;
        s.rtt = RttEstimator::new(
            SimDuration::from_secs(3),
            SimDuration::from_ms(200),
            SimDuration::from_secs(60),
        );
        let t0 = SimTime::ZERO;
        let out = collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].len, out[0].size, out[0].seq), (0, 40, 0));
        assert_eq!(s.rto_deadline, Some(SimTime(SimDuration::from_secs(3).0)));
        // Lost: the timer resends it (backed off) and the algorithm saw a timeout.
        let t3 = SimTime(SimDuration::from_secs(3).0);
        let again = collect(&mut s, |s, o| s.on_timeout(t3, &mut |p| o(p)));
        assert_eq!(again.len(), 1);
        assert!(again[0].has(flags::RETX));
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.rto_deadline, Some(t3 + SimDuration::from_secs(6)));
        // Its ack starts data; a retransmitted SYN gives no RTT sample (Karn).
        let t4 = SimTime(SimDuration::from_ms(3100).0);
        let mut a = ack_pkt(0, t3);
        a.flags |= flags::RETX;
        let data = collect(&mut s, |s, o| s.on_ack(t4, &a, &mut |p| o(p)));
        assert!(!data.is_empty() && data.iter().all(|p| p.len == MSS));
        assert_eq!(s.rtt.srtt(), None);
    }

    #[test]
    fn first_syn_is_timed() {
        let mut s = sender(2, true);
        s.syn = Syn::ToSend;
        s.out_slow |= OUT_SYN;
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        let t1 = SimTime(SimDuration::from_ms(80).0);
        let data = collect(&mut s, |s, o| s.on_ack(t1, &ack_pkt(0, t0), &mut |p| o(p)));
        assert_eq!(
            data.len(),
            2,
            "the initial window, not grown by the SYN's ack"
        );
        assert_eq!(s.rtt.srtt(), Some(SimDuration::from_ms(80)));
    }

    #[test]
    fn timeout_backs_off_and_goes_back_n() {
        let mut s = sender(4, true);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        let t1 = SimTime::ZERO + SimDuration::from_secs(1);
        let out = collect(&mut s, |s, o| s.on_timeout(t1, &mut |p| o(p)));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 0);
        assert!(out[0].has(flags::RETX));
        assert_eq!(s.cc.cwnd(), MSS as u64);
        assert_eq!(s.cc.ssthresh(), 2_000);
        assert_eq!(s.state(), CaState::Loss);
        // RTO doubled: 1 s initial → 2 s.
        assert_eq!(s.rto_deadline, Some(t1 + SimDuration::from_secs(2)));
        let t2 = t1 + SimDuration::from_secs(2);
        collect(&mut s, |s, o| s.on_timeout(t2, &mut |p| o(p)));
        assert_eq!(s.rto_deadline, Some(t2 + SimDuration::from_secs(4)));
        assert_eq!(s.stats.timeouts, 2);
        // Karn: acks of retransmitted segments give no RTO sample and keep the backoff.
        let mut t = t2;
        for ack in [1000u64, 2000, 3000, 4000] {
            t += SimDuration::from_ms(50);
            let mut a = ack_pkt(ack, t2);
            a.flags |= flags::RETX;
            collect(&mut s, |s, o| s.on_ack(t, &a, &mut |p| o(p)));
            assert!(s.rtt.srtt().is_none());
            assert_eq!(s.rtt.backoff_shift(), 2);
        }
        // New data beyond the old snd_max is timed; its ack gives a sample and clears the backoff.
        assert!(s.snd_max() > 4000);
        let a = ack_pkt(5000, t);
        collect(&mut s, |s, o| {
            s.on_ack(t + SimDuration::from_ms(80), &a, &mut |p| o(p))
        });
        // Timed from when 4000.. was first sent (after one of the acks above) until now.
        let srtt = s.rtt.srtt().expect("a sample from new data");
        assert!(
            srtt >= SimDuration::from_ms(80) && srtt <= SimDuration::from_ms(280),
            "{srtt}"
        );
        assert_eq!(s.rtt.backoff_shift(), 0);
        assert_eq!(s.state(), CaState::Open);
    }

    #[test]
    fn dupacks_after_timeout_do_not_fast_retransmit() {
        let mut s = sender(8, true);
        let t0 = SimTime::ZERO;
        collect(&mut s, |s, o| s.set_app_limit(t0, u64::MAX, &mut |p| o(p)));
        collect(&mut s, |s, o| s.on_timeout(SimTime(5), &mut |p| o(p)));
        for _ in 0..5 {
            collect(&mut s, |s, o| {
                s.on_ack(SimTime(6), &ack_pkt(0, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 0);
    }

    #[test]
    fn finite_transfer_sends_short_last_segment_and_completes() {
        let mut s = sender(10, true);
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, 2500, &mut |p| o(p))
        });
        assert_eq!(
            out.iter().map(|p| p.len).collect::<Vec<_>>(),
            vec![1000, 1000, 500]
        );
        assert!(!s.is_complete());
        collect(&mut s, |s, o| {
            s.on_ack(SimTime(9), &ack_pkt(2500, SimTime::ZERO), &mut |p| o(p))
        });
        assert!(s.is_complete());
        assert_eq!(s.rto_deadline, None);
    }

    #[test]
    fn max_window_caps_flight() {
        let cfg = TcpConfig {
            mss: MSS,
            max_window: 3500,
            start: StartConfig {
                init_cwnd: 10,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let cc = reno(MSS, 10_000, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(out.len(), 3);
    }

    /// An ECN-capable Reno sender (MSS 1000, initial window 10) with a bulk application
    /// started at 0: its first 10 segments and the sender.
    fn ecn_reno_started() -> (TcpSender, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: MSS,
            header: 40,
            start: StartConfig {
                init_cwnd: 10,
                ..Default::default()
            },
            ecn: EcnConfig {
                enabled: true,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        (s, out)
    }

    #[test]
    fn ecn_echo_reduces_once_per_window_and_sets_cwr() {
        let t0 = SimTime::ZERO;
        let (mut s, out) = ecn_reno_started();
        assert!(out.iter().all(|p| p.has(flags::ECT) && !p.has(flags::CWR)));
        assert_eq!(s.snd_max(), 10_000);
        let ece = |ack: u64| {
            let mut a = ack_pkt(ack, t0);
            a.flags |= flags::ECE;
            a
        };
        // First ECE: flight 9000 after the ack → ssthresh = cwnd = 4500; the next new
        // segment carries CWR, later ones not.
        let out = collect(&mut s, |s, o| {
            s.on_ack(SimTime(5), &ece(1000), &mut |p| o(p))
        });
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.cc.cwnd(), 4_500);
        assert_eq!(s.stats.retransmits, 0, "ECN never retransmits");
        assert!(out.is_empty(), "window 4500 < flight 9000: nothing to send");
        // More ECEs inside the same window (snd_una ≤ 10 000): no further reduction.
        let mut sent = Vec::new();
        for ack in [2000u64, 3000, 4000, 5000, 6000] {
            sent.extend(collect(&mut s, |s, o| {
                s.on_ack(SimTime(6), &ece(ack), &mut |p| o(p))
            }));
        }
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.stats.ece_received, 6);
        sent.extend(collect(&mut s, |s, o| {
            s.on_ack(SimTime(7), &ack_pkt(7000, t0), &mut |p| o(p))
        }));
        assert!(sent.len() >= 2);
        assert!(
            sent[0].has(flags::CWR),
            "first new segment after the reduction"
        );
        assert!(sent[1..].iter().all(|p| !p.has(flags::CWR)));
        // An ECE acknowledging beyond the reduction's snd_max: a new window, a new reduction.
        let w = s.cc.cwnd();
        let beyond = s.snd_max();
        assert!(beyond > 10_000);
        collect(&mut s, |s, o| {
            s.on_ack(SimTime(8), &ece(10_000), &mut |p| o(p))
        });
        assert_eq!(
            s.stats.ecn_reductions, 1,
            "10 000 is not beyond the old snd_max"
        );
        collect(&mut s, |s, o| {
            s.on_ack(SimTime(9), &ece(11_000), &mut |p| o(p))
        });
        assert_eq!(s.stats.ecn_reductions, 2);
        assert!(s.cc.cwnd() < w);
    }

    /// RFC 3168 §6.1.2: one reduction for "a series of dropped and/or CE packets from a
    /// single window of data". A loss found after an ECN-Echo reduction, of a segment sent
    /// before that reaction, is retransmitted (fast retransmit, recovery) without a second
    /// reduction; a loss in a later window reduces again.
    #[test]
    fn loss_in_the_window_an_ece_reduced_is_not_reduced_again() {
        let t0 = SimTime::ZERO;
        let (mut s, _) = ecn_reno_started();
        let mut ece = ack_pkt(1000, t0);
        ece.flags |= flags::ECE;
        // ECE on the first ack: flight 9000 → ssthresh = cwnd = 4500; reaction's snd_max
        // 10 000.
        collect(&mut s, |s, o| s.on_ack(SimTime(5), &ece, &mut |p| o(p)));
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.cc.ssthresh(), 4_500);
        // Acks to 5000 (congestion avoidance), then segment 5000..6000 is lost.
        for a in [2000u64, 3000, 4000, 5000] {
            collect(&mut s, |s, o| {
                s.on_ack(SimTime(6), &ack_pkt(a, t0), &mut |p| o(p))
            });
        }
        let high = s.snd_max();
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(collect(&mut s, |s, o| {
                s.on_ack(SimTime(7), &ack_pkt(5000, t0), &mut |p| o(p))
            }));
        }
        assert_eq!(s.state(), CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert!(out.iter().any(|p| p.seq == 5000 && p.has(flags::RETX)));
        // A second reduction would halve the flight, (high − 5000)/2 < 4500.
        assert!((high - 5000) / 2 < 4_500);
        assert_eq!(
            s.cc.ssthresh(),
            4_500,
            "no second reduction in the ECE's window"
        );
        // Full ack; then a loss of a segment sent after the reaction (snd_una ≥ 10 000):
        // a new window, a new reduction.
        let high = s.snd_max();
        collect(&mut s, |s, o| {
            s.on_ack(SimTime(8), &ack_pkt(high, t0), &mut |p| o(p))
        });
        assert_eq!(s.state(), CaState::Open);
        let una = s.snd_una;
        assert!(una >= 10_000);
        let high = s.snd_max();
        assert!(
            high > una + 3_000,
            "enough in flight for three duplicate acks"
        );
        for _ in 0..3 {
            collect(&mut s, |s, o| {
                s.on_ack(SimTime(9), &ack_pkt(una, t0), &mut |p| o(p))
            });
        }
        assert_eq!(s.stats.fast_retransmits, 2);
        assert_eq!(s.cc.ssthresh(), ((high - una) / 2).max(2_000));
    }

    /// `ece_increase = false` (ns-2.35's `old_ecn_ 0`, tcp.cc `recv_newack_helper`): after
    /// the first ack of new data with ECN-Echo (which still grows the window: ns-2 sets
    /// `ect_` after its test), ECN-Echo acks do not grow it; acks without ECE do.
    #[test]
    fn ece_increase_false_holds_the_window_on_ece_acks() {
        let t0 = SimTime::ZERO;
        let run = |ece_increase: bool| {
            let cfg = TcpConfig {
                mss: MSS,
                header: 40,
                start: StartConfig {
                    init_cwnd: 10,
                    ..Default::default()
                },
                ecn: EcnConfig {
                    enabled: true,
                    ece_increase,
                    ..Default::default()
                },
                ..TcpConfig::default()
            };
            let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
            let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
            collect(&mut s, |s, o| {
                s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
            });
            let ece = |ack: u64| {
                let mut a = ack_pkt(ack, t0);
                a.flags |= flags::ECE;
                a
            };
            // First ECE: the reduction to ssthresh = cwnd = 4500 (flight 9000), then the
            // ack's own increase (congestion avoidance: 1000 bytes into the counter).
            collect(&mut s, |s, o| {
                s.on_ack(SimTime(5), &ece(1000), &mut |p| o(p))
            });
            assert_eq!(s.stats.ecn_reductions, 1);
            assert_eq!(s.cc.cwnd(), 4_500);
            // Five more ECE acks in the same window: no new reduction. With the increase,
            // the counter passes 4500 at the fourth (cwnd 5500); without it, nothing.
            for a in [2000u64, 3000, 4000, 5000, 6000] {
                collect(&mut s, |s, o| s.on_ack(SimTime(6), &ece(a), &mut |p| o(p)));
            }
            assert_eq!(s.stats.ecn_reductions, 1);
            let after_ece = s.cc.cwnd();
            // Acks without ECE grow the window either way: 4 more acks.
            for a in [7000u64, 8000, 9000, 10_000] {
                collect(&mut s, |s, o| {
                    s.on_ack(SimTime(7), &ack_pkt(a, t0), &mut |p| o(p))
                });
            }
            (after_ece, s.cc.cwnd())
        };
        let (ece_on, end_on) = run(true);
        assert_eq!(ece_on, 5_500, "today: ECE acks open the window");
        assert_eq!(end_on, 6_500, "counter 1500 + 4000 reaches 5500");
        let (ece_off, end_off) = run(false);
        assert_eq!(ece_off, 4_500, "ns-2's old_ecn_ 0: held");
        // The first ECE ack counted (1000), then four plain acks: 5000 >= 4500.
        assert_eq!(end_off, 5_500, "acks without ECE still grow it");
    }

    #[test]
    fn retransmissions_are_not_ecn_capable() {
        let cfg = TcpConfig {
            mss: MSS,
            start: StartConfig {
                init_cwnd: 4,
                ..Default::default()
            },
            ecn: EcnConfig {
                enabled: true,
                ..Default::default()
            },
            ..TcpConfig::default()
        };
        let cc = reno(MSS, 4 * MSS as u64, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        let out = collect(&mut s, |s, o| s.on_timeout(SimTime(1), &mut |p| o(p)));
        assert!(out[0].has(flags::RETX) && !out[0].has(flags::ECT));
        // ns-2's behaviour on request: ECT on retransmissions too (never CWR there).
        let cfg = TcpConfig {
            ecn: EcnConfig {
                retransmits: true,
                ..cfg.ecn
            },
            ..cfg
        };
        let cc = reno(MSS, 4 * MSS as u64, u64::MAX, true);
        let mut s = TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc);
        collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        let out = collect(&mut s, |s, o| s.on_timeout(SimTime(1), &mut |p| o(p)));
        assert!(out[0].has(flags::RETX) && out[0].has(flags::ECT));
        assert!(!out[0].has(flags::CWR));
    }

    fn seqs(v: &[Packet]) -> Vec<u64> {
        v.iter().map(|p| p.seq).collect()
    }

    /// A NewReno sender with a 10-segment window and a 3000-B (three-segment) send buffer.
    fn buffered_sender() -> TcpSender {
        let cfg = TcpConfig {
            send_buffer: 3 * MSS as u64,
            ..test_cfg(10)
        };
        let cc = reno(MSS, 10 * MSS as u64, u64::MAX, true);
        TcpSender::new(FlowId(0), NodeId(0), NodeId(1), &cfg, cc)
    }

    #[test]
    fn a_send_buffer_holds_back_what_does_not_fit() {
        // A 3000-B send buffer under a 10-segment window: five 1000-B writes, three fit.
        let mut s = buffered_sender();
        let t0 = SimTime::ZERO;
        let mut sent = Vec::new();
        for _ in 0..5 {
            sent.extend(collect(&mut s, |s, o| {
                s.app_write(t0, MSS as u64, &mut |p| o(p))
            }));
        }
        assert_eq!(seqs(&sent), [0, 1000, 2000]);
        assert_eq!((s.written(), s.app_limit()), (5000, 3000));
        // Each ack frees what it acknowledges: the blocked bytes move in, in order, and leave.
        let t1 = SimTime(SimDuration::from_ms(100).0);
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(1000, t0), &mut |p| o(p))
        });
        assert_eq!(seqs(&out), [3000]);
        assert_eq!(s.app_limit(), 4000);
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(3000, t0), &mut |p| o(p))
        });
        assert_eq!(seqs(&out), [4000]);
        assert_eq!(
            s.app_limit(),
            5000,
            "min(written, snd_una + buffer) = min(5000, 6000)"
        );
        assert!(!s.is_complete());
        let out = collect(&mut s, |s, o| {
            s.on_ack(t1, &ack_pkt(5000, t0), &mut |p| o(p))
        });
        assert!(out.is_empty());
        assert!(s.is_complete(), "everything written is acknowledged");
    }

    #[test]
    fn a_send_buffer_caps_a_greedy_sources_flight() {
        // Bulk: the buffer is always full, so at most 3000 B are unacknowledged whatever
        // the window; without the key (unlimited) the whole 10-segment window leaves.
        let mut s = buffered_sender();
        let out = collect(&mut s, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(seqs(&out), [0, 1000, 2000]);
        for k in 1..=20u64 {
            let out = collect(&mut s, |s, o| {
                s.on_ack(SimTime(k), &ack_pkt(k * 1000, SimTime::ZERO), &mut |p| o(p))
            });
            assert_eq!(seqs(&out), [(k + 2) * 1000]);
            assert_eq!(s.snd_max() - s.snd_una(), 3000);
        }
        assert_eq!(s.written(), u64::MAX);
        assert!(!s.is_complete());
        let mut u = sender(10, true);
        let out = collect(&mut u, |s, o| {
            s.set_app_limit(SimTime::ZERO, u64::MAX, &mut |p| o(p))
        });
        assert_eq!(out.len(), 10);
        // A passive source that stops withdraws what the buffer has not accepted too.
        s.stop_app();
        assert_eq!((s.written(), s.app_limit()), (s.snd_max(), s.snd_max()));
    }
}

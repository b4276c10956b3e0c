//! The interface between the transport (`tcp/`) and congestion control (`cc/`): the types
//! both sides name. The transport fills them and calls the algorithm's hooks
//! ([`crate::cc::CongestionControl`]); the algorithm reads them. Keeping them here, below
//! both, lets the dependency run one way (tcp/ uses cc/, cc/ never names tcp/), as Linux
//! keeps `struct tcp_congestion_ops` and `struct rate_sample` in `include/net/tcp.h` rather
//! than in either side's files.
//!
//! [`crate::cc`] and [`crate::tcp`] re-export these names where they used to live.

use crate::packet::CcHeader;
use crate::time::{SimDuration, SimTime};

/// The transport's loss-recovery state (Linux `tcp_ca_state`, reduced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal operation: slow start or congestion avoidance.
    Open,
    /// Fast recovery after a fast retransmit.
    Recovery,
    /// After a retransmission timeout, until everything sent before it is acknowledged.
    Loss,
}

/// How the transport recovers from a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 5681: leave recovery on the first ack of new data.
    Reno,
    /// RFC 6582: partial acks retransmit the next hole; leave once `recover` is acked.
    NewReno,
}

/// Read-only connection state handed to every hook.
#[derive(Clone, Copy, Debug)]
pub struct ConnView {
    pub mss: u32,
    /// Bytes sent and not yet cumulatively acknowledged (`snd_max - snd_una`).
    pub in_flight: u64,
    /// Bytes presumed in the network (Linux `tcp_packets_in_flight`: outstanding − SACKed −
    /// presumed lost + retransmitted; RFC 6675 `pipe`, or RACK's). Computed only for
    /// algorithms that take delivery-rate samples (BBR) on SACK flows; `in_flight` otherwise.
    pub pipe: u64,
    pub srtt: Option<SimDuration>,
    /// The RFC 6298 round-trip variation (RTTVAR; 0 before the first sample).
    pub rttvar: SimDuration,
    pub min_rtt: Option<SimDuration>,
    pub state: CaState,
    /// The receiver's window (the maximum window) in bytes.
    pub max_window: u64,
    /// The connection's choice of window when fast recovery ends.
    pub recovery_exit: RecoveryExit,
    /// The first unacknowledged segment has been retransmitted before (exact for this
    /// transport: its retransmissions always start at `snd_una` and go forward, so this is
    /// `snd_una < ` the highest retransmitted sequence). At `on_congestion(FastRetransmit)`
    /// it tells whether the segment about to be retransmitted was "transmitted just once"
    /// (Vegas, P1 §II).
    pub una_retransmitted: bool,
}

/// ns-2.35's Agent/TCP/Linux leaving recovery (tcp/tcp-linux.cc
/// `LinuxTcpAgent::tcp_fastretrans_alert`): a window below ssthresh is raised to it, at most
/// FlightSize + 3 segments (`tcp_moderate_cwnd`; 3 is Linux's `tcp_max_burst`, the
/// reordering degree); a window at or above ssthresh stays. Bytes.
pub fn linux_agent_exit_cwnd(cwnd: f64, ssthresh: f64, c: &ConnView) -> f64 {
    if cwnd < ssthresh {
        ssthresh.min((c.in_flight + 3 * c.mss as u64) as f64)
    } else {
        cwnd
    }
}

/// The congestion window on leaving fast recovery (RFC 6582 §3.2 step 3), for algorithms
/// whose post-recovery window is `ssthresh`: `ssthresh`, or with
/// [`RecoveryExit::FlightSize`] `min(ssthresh, max(FlightSize, S) + S)`.
pub fn recovery_exit_cwnd(ssthresh: u64, c: &ConnView) -> u64 {
    match c.recovery_exit {
        RecoveryExit::Ssthresh => ssthresh,
        RecoveryExit::FlightSize => {
            let s = c.mss as u64;
            ssthresh.min(c.in_flight.max(s) + s)
        }
    }
}

/// What one arriving ack tells the algorithm.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Bytes newly acknowledged cumulatively by this ack (0 for a duplicate).
    pub newly_acked: u64,
    /// The ack advanced nothing and carries no window update.
    pub dup: bool,
    /// Round-trip sample (Karn-valid: never from a retransmitted segment).
    pub rtt: Option<SimDuration>,
    /// Send time of the data segment that triggered this ack (echoed timestamp; the
    /// sender's clock, T1 of seed 001).
    pub sent_at: SimTime,
    /// The segment that triggered this ack was a retransmission (the receiver echoes the
    /// flag): `sent_at` and `rx_arrival` may belong to different copies (Karn).
    pub echo_retx: bool,
    /// When that segment arrived at the receiver (AT = T2 of seed 001, Vegas-ALT/FAST-ALT),
    /// on the receiver's clock: simulated time plus the flow's `receiver_clock_offset`,
    /// wrapping, so only differences such as `rx_arrival − sent_at` (as `i64`) mean anything.
    pub rx_arrival: SimTime,
    /// When the receiver handed this ack to its host's outgoing queue (LT = T3), on the
    /// receiver's clock like `rx_arrival`.
    pub rx_leave: SimTime,
    /// ECN-Echo, one per CE-marked segment.
    pub ece: bool,
    /// This ack must not open the window (the flow key `ece_increase = false`, ns-2.35's
    /// `old_ecn_ 0`): it carries ECN-Echo and an earlier ack of new data did too (ns-2's
    /// `ect_`; tcp.cc `TcpAgent::recv_newack_helper` then skips `opencwnd()`, slow start
    /// included). Honoured by the algorithms whose ns-2 agents grow through
    /// `TcpAgent::opencwnd`: reno, newreno, gaimd and highspeed (the flow key is refused
    /// with the others, so it is always false for them).
    pub ece_hold: bool,
    /// Router feedback echoed by the receiver (XCP).
    pub echo: CcHeader,
    /// Cumulative bytes acknowledged so far, after this ack (Westwood bandwidth samples).
    pub delivered: u64,
    /// A delivery-rate sample (`tcp_rate.c`), for algorithms whose
    /// [`CongestionControl::wants_rate_samples`] is true and acks that deliver a whole
    /// segment; `None` otherwise.
    pub rate: Option<RateSample>,
}

/// A congestion signal the transport detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Third duplicate ack: fast retransmit, then recovery.
    FastRetransmit,
    /// Retransmission timeout.
    Timeout,
    /// ECN-Echo received (at most once per window for standard TCP).
    Ecn,
}

/// How the window's per-ack increase counts an ack (the flow key `ack_counting`).
///
/// - [`AckCounting::Acks`] (the default): each ack of new data is one increase, however many
///   segments it covers, as the papers' and RFC 5681's per-ack rules say (Reno: `W += S` in
///   slow start, `W += S²/W` in congestion avoidance, per ack). With delayed acks (an ack per
///   two segments) Reno's window then grows half a segment per round trip, and ×1.5 per
///   round in slow start.
/// - [`AckCounting::Segments`]: each ack counts the bytes it newly acknowledges (RFC 3465
///   byte counting without its L limit, as Linux counts `acked` packets in
///   `tcp_slow_start`/`tcp_cong_avoid_ai`): one segment per round trip in congestion
///   avoidance and doubling per round in slow start whatever the ack ratio. Slow start stops
///   at ssthresh and the rest of the ack counts towards congestion avoidance (as Linux).
///
/// Honoured by the AIMD family: reno, newreno, dctcp, gaimd, highspeed, scalable, and CUBIC's
/// standard slow start (`hystart = false`; CUBIC's congestion avoidance, Reno-friendly
/// estimate and HyStart++ already count segments acked, as RFC 9438/9406 write them). The
/// algorithms with their own per-ack or per-round rules (vegas, fast, westwood, tcpe, bbr,
/// xcp) ignore it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckCounting {
    #[default]
    Acks,
    Segments,
}

/// What every algorithm starts from (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcInit {
    pub mss: u32,
    pub init_cwnd: u64,
    pub init_ssthresh: u64,
    /// How window increases count acks (flow key `ack_counting`).
    pub ack_counting: AckCounting,
}

/// RFC 6582 §3.2 step 3 (full acknowledgment) offers two congestion windows for leaving
/// fast recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecoveryExit {
    /// Option 2: `cwnd = ssthresh` (RFC 5681, ns-3; tcplab's default). If little is in
    /// flight when the full ack arrives (after a long recovery the receiver holds most of
    /// the window), the sender may send nearly `ssthresh` bytes at once.
    #[default]
    Ssthresh,
    /// Option 1: `cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS)`, the burst-free choice;
    /// the window then grows back to `ssthresh` in slow start.
    FlightSize,
}

/// One delivery-rate sample (Linux `struct rate_sample`, the fields BBR uses).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// `delivered` when the sampled segment was sent (round counting).
    pub prior_delivered: u64,
    /// Bytes delivered over the interval.
    pub delivered: u64,
    /// The sample's interval, `max(send_elapsed, ack_elapsed)`; `ZERO` when invalid.
    pub interval: SimDuration,
    /// The sampled segment was sent while the application had run out of data.
    pub is_app_limited: bool,
    /// The connection's `delivered` after this ack.
    pub delivered_total: u64,
    /// Bytes this ack delivered (cumulatively acknowledged plus newly SACKed; Linux
    /// `acked_sacked`).
    pub acked: u64,
}

impl RateSample {
    /// The sample has a usable interval (at least one minimum RTT long).
    #[inline]
    pub fn valid(&self) -> bool {
        self.interval > SimDuration::ZERO
    }
    /// Delivery rate in bytes per second (0 for an invalid sample).
    pub fn rate_bps(&self) -> f64 {
        if !self.valid() {
            return 0.0;
        }
        self.delivered as f64 / self.interval.as_secs_f64()
    }
}

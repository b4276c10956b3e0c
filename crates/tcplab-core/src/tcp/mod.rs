//! TCP mechanics: sequence space, acks, retransmission timer, recovery.
//!
//! - [`sender::TcpSender`]: slow start / congestion avoidance through the [`crate::cc`]
//!   algorithm, fast retransmit and Reno or NewReno fast recovery (RFC 5681, RFC 6582),
//!   retransmission timeout per RFC 6298 with fine-grained timers, a configurable minimum,
//!   Karn's rule and exponential backoff.
//! - [`receiver::TcpReceiver`]: cumulative acks, out-of-order buffering, immediate or delayed
//!   acks (RFC 1122 / 5681: every second full segment or a timer).
//! - [`sack`]: the SACK scoreboard, RFC 6675's `pipe`, IsLost and NextSeg, and PRR
//!   (RFC 6937), for `recovery = "rfc6675"`.
//! - [`rack`]: RACK-TLP loss detection (RFC 8985), for `loss_detection = "rack"`.
//! - [`rtt::RttEstimator`]: RFC 6298 smoothing in integer picoseconds.
//!
//! Sequence numbers are 64-bit byte offsets and never wrap. There is no handshake by
//! default: a connection starts established when its application starts. With `syn` (ns-2's
//! one-way TCP with `syn_`) a SYN of header size goes first and data follow its ack; the
//! SYN is a data packet without payload (the only TCP data packet of length 0).

pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;

pub use crate::cc_api::RecoveryExit;
use crate::time::SimDuration;

/// Per-connection transport parameters, grouped by concern (start-up, the retransmission
/// timer, loss recovery, ECN, the rules where stacks differ); what is left at the top are
/// segment sizes, the windows, the receiver's acking and the send side's buffer and pacing.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Header bytes added to each data segment on the wire.
    pub header: u32,
    /// Wire size of a pure ack.
    pub ack_size: u32,
    /// The receiver's window (largest amount of unacknowledged data), in bytes.
    pub max_window: u64,
    /// Delayed acks: ack every second full segment or after this timeout.
    pub delayed_ack: Option<SimDuration>,
    /// Quick-ack mode with delayed acks: segments acked at once at the start and after an
    /// idle gap longer than `rto_min` (0 = off; see [`receiver`]).
    pub quickack: u32,
    /// Whether an idle gap grants the quick acks again (false: only the first data).
    pub quickack_after_idle: bool,
    /// How the algorithm's window increase counts acks (handed to it in
    /// [`crate::cc::CcInit`]).
    pub ack_counting: crate::cc::AckCounting,
    /// The receiver's clock minus the sender's, picoseconds: the receiver stamps the
    /// arrival and leaving times it echoes in acks (seed 001's ALT) on its own clock.
    pub receiver_clock_offset: i64,
    /// SACK (RFC 2018): the receiver puts SACK blocks on its acks (D-SACK, RFC 2883, for
    /// duplicate segments).
    pub sack: bool,
    /// Pacing: fq-style per-flow release times (see [`Pacing`]).
    pub pacing: Pacing,
    /// The send buffer in bytes (`u64::MAX` = unlimited, tcplab's default): the sender holds
    /// at most this many bytes the application wrote and the receiver has not acknowledged
    /// (`app_limit ≤ snd_una + send_buffer`); what the application wrote beyond that waits
    /// with the application and is accepted, in order, as acks free space
    /// ([`sender::TcpSender::app_write`]).
    pub send_buffer: u64,
    /// The receive window is the free space of a playback buffer (`playback_rwnd_cap`).
    /// `None`: acks advertise nothing the sender reads (the window is `max_window`).
    pub playback: Option<PlaybackRwnd>,
    /// How a connection starts.
    pub start: StartConfig,
    /// The retransmission timer (RFC 6298).
    pub rto: RtoConfig,
    /// Loss detection and recovery.
    pub recovery: RecoveryConfig,
    /// ECN (RFC 3168).
    pub ecn: EcnConfig,
    /// Rules in which stacks differ beyond the RFCs (each names the stack whose rule it is; the `ns2` profile sets them).
    pub compat: CompatConfig,
}

/// How a connection starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartConfig {
    /// Initial congestion window in segments.
    pub init_cwnd: u32,
    /// Initial slow-start threshold in bytes (`u64::MAX` = unlimited).
    pub init_ssthresh: u64,
    /// A SYN (a data packet of `header` bytes and no payload) goes first; data starts when
    /// its ack returns (ns-2's `syn_` with `delay_growth_`).
    pub syn: bool,
    /// The last segment of each finite write that ends a transfer carries a FIN
    /// ([`crate::packet::flags::FIN`]; [`sender::TcpSender::app_write_last`]).
    pub fin: bool,
}

/// The retransmission timer (RFC 6298).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoConfig {
    pub initial: SimDuration,
    pub min: SimDuration,
    pub max: SimDuration,
    /// ns-2's clock granularity (`tcpTick_`): the RTO estimator counts round trips in ticks
    /// and keeps ns-2's fixed-point SRTT/RTTVAR (`tcp.cc`, `rtt_update`, `rtt_timeout`).
    /// `None`: the exact RFC 6298 estimator.
    pub tick: Option<SimDuration>,
    /// RFC 6675 recovery: at a retransmission timeout the algorithm's FlightSize is
    /// `snd_max − snd_una − SACKed bytes` instead of `snd_max − snd_una`.
    pub unsacked_flight: bool,
}

/// Loss detection and recovery.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecoveryConfig {
    /// Duplicate acks that trigger a fast retransmit.
    pub dupack_threshold: u32,
    /// Loss recovery after a fast retransmit.
    pub mode: Recovery,
    /// Proportional Rate Reduction (RFC 6937) during [`Recovery::Rfc6675`].
    pub prr: Prr,
    /// RFC 6675 NextSeg rule 3: when neither a lost segment nor new data can be sent,
    /// retransmit the next unSACKed segment not yet deemed lost.
    pub nextseg_rule3: bool,
    /// Forget the SACK scoreboard when recovery ends (ns-2.35's Agent/TCP/Linux,
    /// `ScoreBoard1::ClearScoreBoard` at `recover_`).
    pub sack_clear_at_exit: bool,
    /// How losses are detected in SACK recovery: RFC 6675's duplicate-ack count and IsLost,
    /// or RACK-TLP (RFC 8985).
    pub loss_detection: LossDetection,
    /// Tail loss probes (RFC 8985 §7), with [`LossDetection::Rack`].
    pub tlp: bool,
    /// F-RTO (RFC 5682): detect spurious retransmission timeouts and undo them.
    pub frto: bool,
    /// Undo a window reduction when D-SACKs report every retransmission of it (needs SACK).
    pub dsack_undo: bool,
    /// Limited transmit (ns-2's `singledup_`, RFC 3042): the first and second duplicate
    /// acks each send one new segment if the flight stays within `cwnd + dupacks` segments.
    pub limited_transmit: bool,
    /// Which NewReno partial acks restart the retransmission timer.
    pub partial_ack_timer: PartialAckTimer,
    /// The congestion window when fast recovery ends.
    pub exit: RecoveryExit,
}

/// ECN (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnConfig {
    /// ECN (RFC 3168): mark new data segments ECN-capable (ECT), react to ECN-Echo once
    /// per window, and set CWR on the next new segment after a reduction.
    pub enabled: bool,
    /// How the receiver echoes CE marks.
    pub echo: EcnEcho,
    /// ECN: retransmitted segments carry ECT as well (ns-2 sets ECT on every data packet;
    /// RFC 3168 §6.1.5 forbids it).
    pub retransmits: bool,
    /// An ack carrying ECN-Echo may grow the window (true, RFC 3168 and Linux in congestion
    /// avoidance). False: ns-2.35's `old_ecn_ 0` (tcp.cc `TcpAgent::recv_newack_helper`): once
    /// an ack of new data has carried ECN-Echo, later ECN-Echo acks do not call `opencwnd()`
    /// ([`crate::cc::AckSample::ece_hold`]; reno, newreno, gaimd and highspeed only).
    pub ece_increase: bool,
}

/// Rules in which stacks differ beyond the RFCs (each names the stack whose rule it is; the `ns2` profile sets them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompatConfig {
    /// ns-2's `bugFix_` (`tcp-reno.cc`, `RenoTcpAgent::dupack_action`): a fast retransmit
    /// needs duplicate acks above `recover` (RFC 6582 §3.2 step 1). `None`: as the
    /// algorithm's recovery style says (NewReno checks, Reno does not); `Some(b)` forces it
    /// for either style.
    pub bugfix: Option<bool>,
    /// What a loss (fast retransmit, timeout, ECN-Echo) halves for ssthresh.
    pub ssthresh_basis: SsthreshBasis,
    /// Restart the retransmission timer whenever the first unacknowledged segment is
    /// retransmitted (a fast retransmit, a partial ack's or SACK recovery's retransmission
    /// of the new head), as Linux (`tcp_xmit_retransmit_queue`) and ns-2 (`reset_rtx_timer`
    /// at a fast retransmit) do; RFC 6298 restarts it only on acks of new data (§5.3).
    pub rto_restart_on_retransmit: bool,
    /// Restart the retransmission timer at a fast retransmit (ns-2's `dupack_action` calls
    /// `reset_rtx_timer(1, 0)`), without restarting it at later retransmissions.
    pub rto_restart_on_fast_retransmit: bool,
    /// Restart the retransmission timer on duplicate acks too (ns-2's Agent/TCP/Linux).
    pub rto_restart_on_dupack: bool,
    /// At most this many new segments per ack during NewReno/Reno fast recovery (ns-2's
    /// Newreno: `send_much(0, 0, 2)` in `NewRenoTcpAgent::recv`); 0 = no cap.
    pub recovery_burst: u32,
}

/// `playback_rwnd_cap`: the receiving application keeps a playback buffer of `buffer` bytes
/// and reads up to `read` bytes from it every `interval` (at `interval`, `2·interval`, … of
/// simulated time). In-order data delivered and not yet read fills the buffer; every ack
/// advertises its free space as the receive window (RFC 9293 §3.8.6.2; `Packet::wnd`,
/// scaled by [`PlaybackRwnd::scale`]) and the sender keeps new data within it, probing a
/// closed window with the persist timer (docs/tcp.md, "Receive window").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaybackRwnd {
    pub buffer: u64,
    pub read: u64,
    pub interval: SimDuration,
}

/// The largest window RFC 7323 §2.3 can advertise: 65535 · 2^14 bytes.
pub const MAX_SCALED_WINDOW: u64 = 0xffff << 14;

impl PlaybackRwnd {
    /// The window scale (RFC 7323 §2.3): the smallest shift that fits `buffer` into the
    /// 16-bit window field (at most 14; the scenario refuses larger buffers).
    pub fn scale(&self) -> u8 {
        let mut s = 0u8;
        while (self.buffer >> s) > 0xffff && s < 14 {
            s += 1;
        }
        s
    }
}

/// The amount a congestion signal halves for the new ssthresh: what the algorithm sees as
/// [`crate::cc::ConnView::in_flight`] in `on_congestion`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// RFC 5681 eq. (4): FlightSize (`snd_max − snd_una`). tcplab's default.
    #[default]
    FlightSize,
    /// ns-2 (`tcp/tcp.cc`, `TcpAgent::slowdown`: `halfwin = windowd() / 2`): the current
    /// window `min(cwnd, awnd)` without fast recovery's inflation, at a fast retransmit
    /// (`dupack_action`), a timeout (`timeout`; after a recovery that stalled, half the
    /// already halved window) and an ECN-Echo (`ecn`). With limited transmit the flight
    /// exceeds the window by up to two segments at a fast retransmit.
    Window,
}

/// The sender's pacing (fq-style, per flow): a segment does not leave before the flow's
/// release time, and each segment moves it on by its wire size over the pacing rate,
/// `next = max(now, next) + size / rate`. Off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Pacing {
    /// No pacing: segments leave as soon as the window allows (tcplab's default).
    #[default]
    Off,
    /// The algorithm's rate ([`crate::cc::CongestionControl::pacing_rate`]; BBR's default);
    /// unpaced while it returns `None`.
    Cc,
    /// A fixed rate, bytes per second.
    Rate(u64),
    /// Linux's default for algorithms without their own rate (`tcp_update_pacing_rate`):
    /// `rate = ratio · max(cwnd, flight) / srtt` with ratio 2 (`tcp_pacing_ss_ratio` = 200 %)
    /// while `cwnd < ssthresh / 2` and 1.2 (`tcp_pacing_ca_ratio` = 120 %) otherwise;
    /// unpaced until the first RTT sample.
    Linux,
}

/// The sender's loss detection (SACK flows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossDetection {
    /// Duplicate acks (RFC 5681) and, with SACK, RFC 6675's IsLost. tcplab's default.
    #[default]
    DupAck,
    /// RACK-TLP (RFC 8985, [`rack`]): time-based, needs SACK.
    Rack,
    /// FACK as ns-2.35's Agent/TCP/Linux has it ([`sack`], "FACK"): the lost frontier
    /// DupThresh + 1 segments below the highest SACKed byte, and lost retransmissions found
    /// and sent again. Needs SACK.
    Fack,
    /// Vegas' fine-grained retransmission (Brakmo & Peterson 1995 §3.1, as ns-2's
    /// `VegasTcpAgent`): the segment at `snd_una` is resent on the first or second
    /// duplicate ack, or on one of the two acks after a retransmission, once it is older
    /// than a fine-grained timeout (`tcp/sender/vegas_loss.rs`). Without SACK.
    Vegas,
}

/// The sender's loss recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recovery {
    /// Reno or NewReno fast recovery, as the algorithm's `recovery_style` says (RFC 5681,
    /// RFC 6582): no use of SACK information. tcplab's default.
    #[default]
    NewReno,
    /// RFC 6675 conservative SACK-based loss recovery (needs `sack`): a scoreboard of
    /// SACKed ranges, `pipe`, IsLost and NextSeg (see [`sack`]).
    Rfc6675,
}

/// RFC 6937's reduction bound (§3.1), or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Prr {
    /// RFC 6675 alone: send while `cwnd − pipe ≥ 1 SMSS`, `cwnd` = the algorithm's window
    /// after its reduction.
    Off,
    /// PRR with Slow Start Reduction Bound (RFC 6937's recommended default, as Linux).
    #[default]
    Ssrb,
    /// PRR with Conservative Reduction Bound: never more than what was delivered.
    Crb,
    /// Rate halving as ns-2.35's Agent/TCP/Linux does it (tcp/tcp-linux.cc
    /// `LinuxTcpAgent::send_much`, its `next_pkts_in_flight_`; Linux 2.6's
    /// `tcp_cwnd_down` in spirit): a limit N starts at FlightSize when recovery begins; each
    /// ack lowers it to at most `pipe + S`, each segment sent to at most
    /// `max(pipe − S, S)` (pipe after the send), and segments go out while
    /// `pipe + S ≤ max(cwnd, N)` (`LinuxTcpAgent::window()` is `snd_cwnd`, the algorithm's
    /// window). So the flight falls by one segment per two acks until it reaches the
    /// algorithm's window, which then rules. Not with RACK.
    RateHalving,
}

/// The receiver's ECN-Echo policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnEcho {
    /// RFC 3168 §6.1.3: after a CE-marked segment, every ack carries ECE until a segment
    /// with CWR arrives.
    #[default]
    Rfc3168,
    /// One ECE per CE mark: only the ack of a CE-marked segment carries ECE (seed 002's
    /// TCP/E: "a one to one correspondence between the ECN marks in the forward direction
    /// and the ECN marks reflected in the ack packets").
    PerMark,
    /// `PerMark` with RFC 8257 §3.2's delayed-ack rule: a CE-marked segment that arrives
    /// while unmarked segments are held for the delayed ack first releases an ack for those
    /// (without ECE), so each ECE covers marked bytes only (DCTCP's default).
    Dctcp,
}

/// RFC 6582 §4 ("Resetting the Retransmit Timer in Response to Partial Acknowledgments")
/// allows two behaviours for the retransmission timer during NewReno recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PartialAckTimer {
    /// "Slow-but-Steady": every partial ack restarts the timer (as RFC 6298 §5.3 does for
    /// any ack of new data), so recovery repairs one hole per round trip however many were
    /// lost. tcplab's default (seed 000's reproductions use it).
    #[default]
    Every,
    /// "Impatient": only the first partial ack of a recovery restarts it (RFC 6582 §3.2
    /// step 5 as written; ns-3's TcpSocketBase behaves this way). With many holes the timer
    /// fires and go-back-N slow start repairs the rest.
    First,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            header: 40,
            ack_size: 40,
            max_window: 1 << 30,
            delayed_ack: None,
            quickack: 0,
            quickack_after_idle: true,
            ack_counting: crate::cc::AckCounting::Acks,
            receiver_clock_offset: 0,
            sack: false,
            pacing: Pacing::Off,
            send_buffer: u64::MAX,
            playback: None,
            start: StartConfig::default(),
            rto: RtoConfig::default(),
            recovery: RecoveryConfig::default(),
            ecn: EcnConfig::default(),
            compat: CompatConfig::default(),
        }
    }
}

impl Default for StartConfig {
    fn default() -> Self {
        StartConfig {
            init_cwnd: 1,
            init_ssthresh: u64::MAX,
            syn: false,
            fin: false,
        }
    }
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: SimDuration::from_secs(1),
            min: SimDuration::from_ms(200),
            max: SimDuration::from_secs(60),
            tick: None,
            unsacked_flight: false,
        }
    }
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        RecoveryConfig {
            dupack_threshold: 3,
            mode: Recovery::NewReno,
            prr: Prr::Ssrb,
            nextseg_rule3: false,
            sack_clear_at_exit: false,
            loss_detection: LossDetection::DupAck,
            tlp: true,
            frto: false,
            dsack_undo: false,
            limited_transmit: false,
            partial_ack_timer: PartialAckTimer::Every,
            exit: RecoveryExit::Ssthresh,
        }
    }
}

impl Default for EcnConfig {
    fn default() -> Self {
        EcnConfig {
            enabled: false,
            echo: EcnEcho::Rfc3168,
            retransmits: false,
            ece_increase: true,
        }
    }
}

impl Default for CompatConfig {
    fn default() -> Self {
        CompatConfig {
            bugfix: None,
            ssthresh_basis: SsthreshBasis::FlightSize,
            rto_restart_on_retransmit: false,
            rto_restart_on_fast_retransmit: false,
            rto_restart_on_dupack: false,
            recovery_burst: 0,
        }
    }
}

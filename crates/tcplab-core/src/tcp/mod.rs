//! TCP mechanics: sequence space, acks, retransmission timer, recovery.
//!
//! - [`sender::TcpSender`]: slow start / congestion avoidance through the [`crate::cc`]
//!   algorithm, fast retransmit and Reno or NewReno fast recovery (RFC 5681, RFC 6582),
//!   retransmission timeout per RFC 6298 with fine-grained timers, a configurable minimum,
//!   Karn's rule and exponential backoff.
//! - [`receiver::TcpReceiver`]: cumulative acks, out-of-order buffering, immediate or delayed
//!   acks (RFC 1122 / 5681: every second full segment or a timer).
//! - [`rtt::RttEstimator`]: RFC 6298 smoothing in integer picoseconds.
//!
//! Sequence numbers are 64-bit byte offsets and never wrap. There is no handshake: a
//! connection starts established when its application starts.

pub mod receiver;
pub mod rtt;
pub mod sender;

use crate::time::SimDuration;

/// Per-connection transport parameters.
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
    /// Initial congestion window in segments.
    pub init_cwnd: u32,
    /// Initial slow-start threshold in bytes (`u64::MAX` = unlimited).
    pub init_ssthresh: u64,
    pub rto_initial: SimDuration,
    pub rto_min: SimDuration,
    pub rto_max: SimDuration,
    /// Duplicate acks that trigger a fast retransmit.
    pub dupack_threshold: u32,
    /// Delayed acks: ack every second full segment or after this timeout.
    pub delayed_ack: Option<SimDuration>,
    /// Mark data segments ECN-capable.
    pub ecn: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            header: 40,
            ack_size: 40,
            max_window: 1 << 30,
            init_cwnd: 1,
            init_ssthresh: u64::MAX,
            rto_initial: SimDuration::from_secs(1),
            rto_min: SimDuration::from_ms(200),
            rto_max: SimDuration::from_secs(60),
            dupack_threshold: 3,
            delayed_ack: None,
            ecn: false,
        }
    }
}

//! The ALT timestamp scheme: Vegas-ALT and FAST-ALT.
//!
//! Reference: seed 001 (P1) §II, C.-Y. Ho, C.-Y. Ho and J.-T. Wang, "Performance Improvement
//! of Delay-Based TCPs in Asymmetric Networks", IEEE Comm. Letters 15(3), 2011;
//! the choices the paper leaves open are listed below.
//!
//! Timestamps of data packet i: T1 = sent (sender clock), T2 = arrived at the receiver (AT,
//! receiver clock), T3 = its ack left the receiver (LT, receiver clock), T4 = the ack
//! arrived (sender clock). With T_D = sender clock − receiver clock (unknown):
//! - forward trip `TF_i = T2 − T1 + T_D`, backward trip `TB_i = T4 − T3 − T_D`
//!   (measured here as `T2 − T1` and `T4 − T3`: each carries the offset, their sum does not)
//! - `TF_min`, `TB_min` = the minima over every sample since the connection started
//! - `BaseRTT = TF_min + TB_min`, `RTT_i = TF_i + TB_min` (the paper's right-hand side;
//!   its middle term writes `TF_i + TB_i`): the offset cancels,
//!   and backward queueing is left out of both
//! - the window rules are unchanged (eq. 1 for Vegas, eq. 2 for FAST, and their slow-start
//!   exits); loss recovery is unchanged
//!
//! Choices (where the paper leaves them open):
//! - T1 is the echoed send time of the segment whose arrival the ack reports (equivalent to
//!   the sender looking up the stored send time of that sequence number: P1's 10-byte
//!   option carries only AT and LT). AT is that of the segment that triggered the ack (for a
//!   hole-filling segment, that segment).
//! - Karn: the forward sample of a retransmitted segment is skipped (which copy arrived is
//!   unknown); the backward sample `T4 − T3` needs no T1 and is kept. Every ack gives a
//!   backward sample, every ack of a segment sent once a forward sample (duplicates too);
//!   the round's mean RTT takes `RTT_i` from the same acks plain Vegas/FAST take their RTT
//!   samples from (acks of new data, Karn-valid), so without backward queueing the two
//!   behave alike.
//! - `RTT_i` uses `TB_min` as it is when sample i arrives.
//! - The true sender-clock sample `T4 − T1` still drives srtt, rttvar and the RTO (the
//!   transport's estimator, untouched): ALT feeds only eq. 1, eq. 2 and the slow-start exits.
//!
//! Arithmetic is in integer picoseconds (`i64`), so the offset cancels exactly: a run with
//! any `receiver_clock_offset` is bit-identical to one without.

use super::AckSample;
use crate::config::ScenarioError;
use crate::time::{SimTime, PS_PER_S};

/// Bytes of the ALT option: one RFC 1323 timestamps option (P1 footnote 1; acks 40 → 50 B).
pub const DEFAULT_OPTION_BYTES: u32 = 10;

/// Trace-hook names of Vegas and FAST without and with ALT.
pub const TRACE_PLAIN: &[&str] = &["diff", "base_rtt_s", "rtt_s"];
pub const TRACE_ALT: &[&str] = &["diff", "base_rtt_s", "rtt_s", "tf_min_s", "tb_min_s"];

/// What ALT adds to the packets of its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AltWire {
    /// Bytes of the timestamp option added to every ack.
    pub option_bytes: u32,
    /// Data segments carry the option too, inside their unchanged wire size: each full
    /// segment holds `mss − option_bytes` payload bytes (as a real TCP whose MSS does not
    /// include the options), so goodput is net of the option.
    pub data_option: bool,
}

/// Validate the ALT keys shared by `vegas` and `fast` (`field` = `flows.NAME.cc`).
pub(crate) fn wire(
    field: &str,
    alt: bool,
    option_bytes: Option<u32>,
    data_option: Option<bool>,
) -> Result<Option<AltWire>, ScenarioError> {
    if !alt {
        for (name, set) in [
            ("alt_option_bytes", option_bytes.is_some()),
            ("alt_data_option", data_option.is_some()),
        ] {
            if set {
                return Err(ScenarioError::new(
                    format!("{field}.{name}"),
                    "applies only with alt = true",
                ));
            }
        }
        return Ok(None);
    }
    let option_bytes = option_bytes.unwrap_or(DEFAULT_OPTION_BYTES);
    if option_bytes > 40 {
        return Err(ScenarioError::new(
            format!("{field}.alt_option_bytes"),
            format!("must be at most 40 (the TCP option space), got {option_bytes}"),
        ));
    }
    Ok(Some(AltWire {
        option_bytes,
        data_option: data_option.unwrap_or(true),
    }))
}

fn secs(ps: i64) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// The sender's ALT state: the minimum forward and backward trip times seen so far, in
/// picoseconds on the mixed clocks (each includes the clock offset, their sum does not).
#[derive(Clone, Debug)]
pub struct AltClock {
    tf_min: i64,
    tb_min: i64,
}

impl Default for AltClock {
    fn default() -> Self {
        AltClock {
            tf_min: i64::MAX,
            tb_min: i64::MAX,
        }
    }
}

impl AltClock {
    /// Take this ack's samples (it arrived at `now`); return `RTT_i = TF_i + TB_min` in
    /// seconds when the ack carries an RTT sample for the round (`ack.rtt` is set: new
    /// data, Karn-valid).
    #[inline]
    pub fn sample(&mut self, now: SimTime, ack: &AckSample) -> Option<f64> {
        // T4 − T3 and T2 − T1 across the two clocks, exact as signed differences.
        let tb = now.0.wrapping_sub(ack.rx_leave.0) as i64;
        self.tb_min = self.tb_min.min(tb);
        if ack.echo_retx {
            return None;
        }
        let tf = ack.rx_arrival.0.wrapping_sub(ack.sent_at.0) as i64;
        self.tf_min = self.tf_min.min(tf);
        ack.rtt?;
        Some(secs(tf + self.tb_min))
    }
    /// `BaseRTT = TF_min + TB_min` in seconds (infinite before both are known).
    #[inline]
    pub fn base(&self) -> f64 {
        if self.tf_min == i64::MAX || self.tb_min == i64::MAX {
            f64::INFINITY
        } else {
            secs(self.tf_min + self.tb_min)
        }
    }
    /// `TF_min` in seconds (NaN before the first forward sample); includes the clock
    /// offset (receiver clock − sender clock).
    pub fn tf_min(&self) -> f64 {
        if self.tf_min == i64::MAX {
            f64::NAN
        } else {
            secs(self.tf_min)
        }
    }
    /// `TB_min` in seconds (NaN before the first ack); includes minus the clock offset.
    pub fn tb_min(&self) -> f64 {
        if self.tb_min == i64::MAX {
            f64::NAN
        } else {
            secs(self.tb_min)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::ack;
    use crate::time::{SimDuration, PS_PER_MS};

    /// An ack for a segment sent at `t1` ms that arrived at `t2`, whose ack left at `t3`
    /// (receiver clock = sender clock + `off` ms), received at `t4`.
    fn sample(c: &mut AltClock, t: [i64; 4], off: i64, retx: bool, newly: u64) -> Option<f64> {
        let ps = |ms: i64| (ms * PS_PER_MS as i64) as u64;
        let rx = |ms: i64| SimTime(ps(ms).wrapping_add(ps(off)));
        let mut a = ack(newly);
        a.sent_at = SimTime(ps(t[0]));
        a.rx_arrival = rx(t[1]);
        a.rx_leave = rx(t[2]);
        a.echo_retx = retx;
        a.rtt = (newly > 0 && !retx).then(|| SimDuration::from_ms((t[3] - t[0]) as u64));
        c.sample(SimTime(ps(t[3])), &a)
    }

    #[test]
    fn base_and_rtt_are_forward_plus_min_backward_whatever_the_offset() {
        for off in [0, 5_000, -5_000, -123_456] {
            let mut c = AltClock::default();
            // Forward 20 ms, backward 30 ms (10 ms of it queueing): RTT_1 = 20 + 30.
            let r1 = sample(&mut c, [100, 120, 120, 150], off, false, 1000);
            assert_eq!(r1, Some(0.050), "off {off}");
            // Forward 25 ms, backward 20 ms (the minimum): RTT_2 = 25 + 20.
            let r2 = sample(&mut c, [200, 225, 226, 246], off, false, 1000);
            assert_eq!(r2, Some(0.045));
            // Forward 20 ms, backward 400 ms: RTT_3 = 20 + TB_min = 40 ms.
            let r3 = sample(&mut c, [300, 320, 320, 720], off, false, 1000);
            assert_eq!(r3, Some(0.040));
            assert_eq!(c.base(), 0.040, "TF_min 20 + TB_min 20");
            assert!((c.tf_min() - (0.020 + off as f64 / 1e3)).abs() < 1e-12);
            assert!((c.tb_min() - (0.020 - off as f64 / 1e3)).abs() < 1e-12);
        }
    }

    #[test]
    fn retransmissions_give_only_a_backward_sample_and_dupacks_no_round_sample() {
        let mut c = AltClock::default();
        // A retransmitted segment: its forward time (1 ms) is not taken, TB = 20 ms is.
        assert_eq!(sample(&mut c, [0, 1, 1, 21], 0, true, 1000), None);
        assert_eq!(c.base(), f64::INFINITY);
        assert_eq!(c.tb_min(), 0.020);
        // A duplicate ack: forward minimum taken, no sample for the round mean.
        assert_eq!(sample(&mut c, [100, 115, 115, 140], 0, false, 0), None);
        assert_eq!(c.base(), 0.035);
        assert_eq!(
            sample(&mut c, [200, 230, 230, 250], 0, false, 1000),
            Some(0.050)
        );
    }

    #[test]
    fn option_keys_apply_only_with_alt() {
        let e = wire("flows.f.cc", false, Some(10), None).unwrap_err();
        assert_eq!(e.field, "flows.f.cc.alt_option_bytes");
        let e = wire("flows.f.cc", false, None, Some(false)).unwrap_err();
        assert_eq!(e.field, "flows.f.cc.alt_data_option");
        let e = wire("flows.f.cc", true, Some(41), None).unwrap_err();
        assert_eq!(e.field, "flows.f.cc.alt_option_bytes");
        assert_eq!(wire("flows.f.cc", false, None, None), Ok(None));
        assert_eq!(
            wire("flows.f.cc", true, None, None),
            Ok(Some(AltWire {
                option_bytes: 10,
                data_option: true
            }))
        );
    }
}

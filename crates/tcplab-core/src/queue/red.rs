//! RED (Random Early Detection) and RED-I (RED on the instantaneous queue).
//!
//! References: S. Floyd and V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993 (FJ93), §4 and Fig. 2; the gentle variant (Floyd,
//! "Recommendation on using the gentle_ variant of RED", 2000); ECN marking per RFC 3168
//! §5; RED-I as seed 002 (Kamra, Misra, Towsley) uses it: "RED with no averaging … based on
//! an instantaneous queue length".
//!
//! Formulas (q = packets waiting, not counting the one in transmission; all per arrival):
//! - average, queue busy: `avg ← (1 − w_q)·avg + w_q·q`
//! - average, queue idle since `q_time`: first `avg ← (1 − w_q)^m·avg` with
//!   `m = (now − q_time)/s`, `s` = transmission time of `mean_packet_size` bytes at the link
//!   rate (FJ93's `f(time − q_time)`), then the busy update with q = 0 (as ns-2's
//!   `estimator`; FJ93's figure applies the decay only: the two differ by one factor
//!   `1 − w_q`, and this way RED-I's `w_q = 1` gives `avg = q` in both cases)
//! - `w_q = "auto"`: `1 − exp(−1/C)`, C = link capacity in `mean_packet_size` packets per
//!   second (ns-2's `q_weight_ 0`, a memory of about one second); `w_q = "auto_rtt"`:
//!   `1 − exp(−1/(10·R·C))`, `R = max(0.1 s, 3·(d + 1/C))`, d = the link's propagation
//!   delay (ns-2.35's default `q_weight_ -1`, queue/red.cc `REDQueue::initialize_params`)
//! - `min_th = "auto"` (the default): `max(5, target_delay·C/2)`; `max_th = "auto"`:
//!   `3·min_th` (ns-2.35's `thresh_ 0`, `maxthresh_ 0`, same function; `target_delay` 5 ms)
//! - `queue_in_bytes` (ns-2.35's `queue_in_bytes_`): q = waiting bytes / mean_packet_size,
//!   a packet limit N admits while fewer than N·mean_packet_size bytes wait, `min_waiting`
//!   counts bytes; `byte_drop` (`bytes_`, `REDQueue::modify_p`): the spacing rule's count
//!   is ⌊bytes since the last signal / mean_packet_size⌋, `p_a ← min(1, p_a·size /
//!   mean_packet_size)` below 1, and the forced region uses the same rule with `p_b = 1`
//!   (ns-2.35 with `use_mark_p_ true` sends it through `drop_early` too)
//! - `mark_p`: an ECN-capable packet is marked only while `p_b ≤ mark_p`, else dropped
//!   (ns-2.35's `use_mark_p_`, `mark_p_ 0.1`, `REDQueue::drop_early`)
//! - `min_th ≤ avg < max_th`: `count ← count + 1`, `p_b = max_p·(avg − min_th)/(max_th −
//!   min_th)`, `p_a = p_b/(1 − count·p_b)` (1 once `count·p_b ≥ 1`; count incremented first,
//!   as in FJ93's Fig. 2 and ns-2, so signals are 1 … 1/p_b − 1 packets apart, uniformly)
//!   with count-based spacing, else `p_a = p_b`; with probability `p_a` signal (reason `early`) and `count ← 0`;
//!   `wait_spacing` (ns-2.35's `wait_`, queue/red.cc `REDQueue::modify_p`) instead gives
//!   `p_a = 0` below `count·p_b = 1` and `p_b/(2 − count·p_b)` up to 2 (then 1)
//! - gentle, `max_th ≤ avg < 2·max_th`: as above with `p_b = max_p + (1 − max_p)·(avg −
//!   max_th)/max_th`
//! - `avg ≥ max_th` (gentle: `≥ 2·max_th`): signal every arrival (reason `forced`),
//!   `count ← 0`; `avg < min_th`: `count ← −1`
//! - signal = CE mark on an ECT packet when `ecn = true` (RFC 3168), else drop; with
//!   `forced_drop = true` the forced region drops even ECT packets (ns-2's default, RFC 3168
//!   §7); a mark becomes a drop with probability `mark_to_drop` (reason `mark_to_drop`,
//!   seed 002's Bernoulli losses inside the AQM: "an ECN mark is replaced by a packet
//!   drop", so the packet is dropped instead of marked and counted as a drop only)
//! - a full buffer (`limit`) always drops the arrival (reason `overflow`), checked before
//!   the early decision; the average is updated first either way.
//!
//! RED decides at arrival and serves in FIFO order, so links run it on their fast path
//! ([`QueueDisc::admit`]).

use super::{Backlog, DropReason, Limit, QueueCx, QueueDisc};
use crate::config::ScenarioError;
use crate::packet::Packet;
use crate::time::Rate;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `w_q`: a number in (0, 1] or "auto". (The schema is derived from the untagged shape;
/// reading is written out so that a bad value gets a reason, not serde's "did not match any
/// variant".)
#[derive(Clone, Copy, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub enum WeightSpec {
    Value(f64),
    Name(AutoWeight),
}

impl<'de> Deserialize<'de> for WeightSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::String(s) if s == "auto" => Ok(WeightSpec::Name(AutoWeight::Auto)),
            serde_json::Value::String(s) if s == "auto_rtt" => {
                Ok(WeightSpec::Name(AutoWeight::AutoRtt))
            }
            serde_json::Value::Number(n) => Ok(WeightSpec::Value(n.as_f64().unwrap_or(f64::NAN))),
            _ => Err(D::Error::custom(format!(
                "expected a number in (0, 1], \"auto\" (1 − exp(−1/C)) or \"auto_rtt\" \
                 (1 − exp(−1/(10·R·C))), got {v}"
            ))),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoWeight {
    Auto,
    AutoRtt,
}

/// `min_th` / `max_th`: a number of packets, or "auto" (ns-2.35's rule, see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub enum ThresholdSpec {
    Value(f64),
    Name(AutoThreshold),
}

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AutoThreshold {
    Auto,
}

impl Default for ThresholdSpec {
    fn default() -> Self {
        ThresholdSpec::Name(AutoThreshold::Auto)
    }
}

impl From<f64> for ThresholdSpec {
    fn from(v: f64) -> Self {
        ThresholdSpec::Value(v)
    }
}

impl<'de> Deserialize<'de> for ThresholdSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::String(s) if s == "auto" => {
                Ok(ThresholdSpec::Name(AutoThreshold::Auto))
            }
            serde_json::Value::Number(n) => {
                Ok(ThresholdSpec::Value(n.as_f64().unwrap_or(f64::NAN)))
            }
            _ => Err(D::Error::custom(format!(
                "expected a number of packets or \"auto\", got {v}"
            ))),
        }
    }
}

pub(crate) fn default_target_delay() -> crate::config::units::DurationValue {
    crate::config::units::DurationValue(crate::time::SimDuration::from_ms(5))
}
pub(crate) fn default_mark_p() -> f64 {
    1.0
}

fn default_true() -> bool {
    true
}
pub(crate) fn default_mean_packet() -> u32 {
    1000
}
pub(crate) fn default_weight() -> WeightSpec {
    WeightSpec::Value(0.002)
}
pub(crate) fn default_max_p() -> f64 {
    0.1
}
pub(crate) fn default_max_p_i() -> f64 {
    1.0
}

/// `queue = { type = "red", … }`: RED on the averaged queue (FJ93).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Physical buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited".
    #[serde(default = "crate::queue::default_limit")]
    pub limit: crate::queue::LimitSpec,
    /// Lower threshold on the average queue, in packets, or "auto" (the default): ns-2.35's
    /// max(5, target_delay·C/2), C = link rate in `mean_packet_size` packets per second.
    #[serde(default)]
    pub min_th: ThresholdSpec,
    /// Upper threshold on the average queue, in packets, or "auto" (the default): 3·min_th.
    #[serde(default)]
    pub max_th: ThresholdSpec,
    /// The queueing delay "auto" thresholds aim at (ns-2.35's `targetdelay_`); default 5 ms.
    #[serde(default = "default_target_delay")]
    pub target_delay: crate::config::units::DurationValue,
    /// Signal probability at `max_th` (default 0.1, FJ93).
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    /// EWMA weight in (0, 1], "auto" = 1 − exp(−1/C) (C in packets/s, a memory of about a
    /// second), or "auto_rtt" = 1 − exp(−1/(10·R·C)) with R = max(0.1 s, 3·(link delay +
    /// 1/C)) (ten assumed round trips; ns-2.35's `q_weight_ -1`); default 0.002.
    #[serde(default = "default_weight")]
    pub w_q: WeightSpec,
    /// Ramp from `max_p` to 1 between `max_th` and `2·max_th` instead of jumping to 1.
    #[serde(default)]
    pub gentle: bool,
    /// Count-based spacing of signals (`p_a = p_b/(1 − count·p_b)`); default true.
    #[serde(default = "default_true")]
    pub count_spacing: bool,
    /// Mark ECN-capable packets (CE) instead of dropping them; default true.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Drop even ECN-capable packets in the forced region (avg ≥ max_th, gentle: 2·max_th).
    #[serde(default)]
    pub forced_drop: bool,
    /// Probability that a mark is replaced by a drop (seed 002's Bernoulli AQM losses).
    #[serde(default)]
    pub mark_to_drop: f64,
    /// Packet size (bytes) for the idle-time decay and "auto" w_q; default 1000.
    #[serde(default = "default_mean_packet")]
    pub mean_packet_size: u32,
    /// No early or forced signal unless at least this many packets wait (ns-2.35's
    /// `REDQueue::enque`: `qlen > 1`, i.e. 2); an arrival that finds fewer is treated as
    /// one below `min_th` (the count restarts). Default 0 (FJ93).
    #[serde(default)]
    pub min_waiting: u32,
    /// The first arrival that may be signalled after one that could not (average below
    /// `min_th`, or `min_waiting` not met) is never signalled and sets count = 1 (ns-2.35's
    /// `edv_.old`). Default false (FJ93's Fig. 2: count = 0 there, and it may be signalled).
    #[serde(default)]
    pub restart_count: bool,
    /// With `count_spacing`, ns-2.35's `wait_ true` rule (queue/red.cc
    /// `REDQueue::modify_p`): `p_a = 0` while `count·p_b < 1`, `p_b/(2 − count·p_b)` while
    /// `count·p_b < 2`, else 1, so signals are `1/p_b` to `2/p_b` packets apart, uniformly (a
    /// signal fraction of about `2·p_b/3`, where FJ93's rule gives `2·p_b`). Default false.
    #[serde(default)]
    pub wait_spacing: bool,
    /// Measure the queue in bytes (ns-2.35's `queue_in_bytes_`): the average is taken over
    /// the waiting bytes divided by `mean_packet_size` (so `min_th`, `max_th` stay in mean
    /// packets), a limit of N packets admits an arrival while fewer than N·mean_packet_size
    /// bytes wait (queue/red.cc `REDQueue::enque`: `qlen >= qlim` drops), and `min_waiting`
    /// counts bytes. Default false.
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// Byte-mode signal probability (ns-2.35's `bytes_`, `REDQueue::modify_p`): the count of
    /// the spacing rule is ⌊bytes since the last signal / mean_packet_size⌋ and `p_a` is
    /// scaled by size/mean_packet_size (at most 1), in the forced region too (so a small
    /// packet right after a signal is not signalled). Default false.
    #[serde(default)]
    pub byte_drop: bool,
    /// ECN marks only while `p_b ≤ mark_p`; above it an ECN-capable packet is dropped
    /// (ns-2.35's `use_mark_p_ true` with `mark_p_`, `REDQueue::drop_early`). Default 1
    /// (always mark, as RFC 3168).
    #[serde(default = "default_mark_p")]
    pub mark_p: f64,
}

/// `queue = { type = "red_i", … }`: RED on the instantaneous queue (w_q = 1), seed 002's
/// defaults: linear ramp to 1 (`max_p = 1`), no count-based spacing.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedISpec {
    /// Physical buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited".
    #[serde(default = "crate::queue::default_limit")]
    pub limit: crate::queue::LimitSpec,
    /// Lower threshold on the queue, in packets.
    pub min_th: f64,
    /// Upper threshold on the queue, in packets.
    pub max_th: f64,
    /// Signal probability at `max_th` (default 1).
    #[serde(default = "default_max_p_i")]
    pub max_p: f64,
    /// Ramp from `max_p` to 1 between `max_th` and `2·max_th`.
    #[serde(default)]
    pub gentle: bool,
    /// Count-based spacing of signals; default false (seed 002: `p_b` directly).
    #[serde(default)]
    pub count_spacing: bool,
    /// Mark ECN-capable packets instead of dropping them; default true.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Drop even ECN-capable packets in the forced region.
    #[serde(default)]
    pub forced_drop: bool,
    /// Probability that a mark is replaced by a drop.
    #[serde(default)]
    pub mark_to_drop: f64,
}

/// RED's configuration after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    pub limit: Limit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub count_spacing: bool,
    pub ecn: bool,
    pub forced_drop: bool,
    pub mark_to_drop: f64,
    pub mean_packet_size: u32,
    /// RED-I (reported as "red_i").
    pub instantaneous: bool,
}

fn check(field: &str, name: &str, v: f64, ok: bool, want: &str) -> Result<(), ScenarioError> {
    if ok && v.is_finite() {
        Ok(())
    } else {
        Err(ScenarioError::new(
            format!("{field}.{name}"),
            format!("must be {want}, got {v}"),
        ))
    }
}

impl RedConfig {
    #[allow(clippy::too_many_arguments)]
    fn validated(
        field: &str,
        limit: Limit,
        min_th: f64,
        max_th: f64,
        max_p: f64,
        mark_to_drop: f64,
    ) -> Result<(), ScenarioError> {
        let _ = limit;
        check(field, "min_th", min_th, min_th >= 0.0, "≥ 0 packets")?;
        check(
            field,
            "max_th",
            max_th,
            max_th > min_th,
            &format!("greater than min_th ({min_th})"),
        )?;
        check(
            field,
            "max_p",
            max_p,
            max_p > 0.0 && max_p <= 1.0,
            "in (0, 1]",
        )?;
        check(
            field,
            "mark_to_drop",
            mark_to_drop,
            (0.0..=1.0).contains(&mark_to_drop),
            "in [0, 1]",
        )?;
        Ok(())
    }
}

impl RedSpec {
    /// The keys profile `p` sets in a RED queue's table. Under `ns2`: ns-2.35's Queue/RED
    /// defaults (tcl/lib/ns-default.tcl) for the keys tcplab's RED has: `limit_ 50` (RED
    /// holds `limit_` waiting: `qlen >= qlim` drops), `gentle_ true`,
    /// `linterm_ 10` (`max_p = 0.1`), `mean_pktsize_ 500`, `setbit_ false` (drop, never
    /// mark: `ecn = false`), `q_weight_ -1` (`w_q = "auto_rtt"`), `bytes_ true`
    /// (`byte_drop`), `queue_in_bytes_ true` (`queue_in_bytes`), `use_mark_p_ true` with
    /// `mark_p_ 0.1` (`mark_p = 0.1`), `wait_ true` (`wait_spacing`; `REDQueue::modify_p`),
    /// and `REDQueue::enque`'s rules in queue/red.cc (no signal unless `qlen > 1` in the
    /// queue's unit: `min_waiting = 2`; the first arrival after one that could not be
    /// signalled is not signalled and sets count = 1, `edv_.old`: `restart_count = true`).
    /// `thresh_ 0`, `maxthresh_ 0` and `targetdelay_ 0.005` are tcplab's own "auto"
    /// defaults already (`REDQueue::initialize_params`).
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::Value;
        match p {
            crate::config::profile::Profile::Ns2 => vec![
                ("limit", Value::from(50)),
                ("gentle", Value::Bool(true)),
                ("max_p", Value::from(0.1)),
                ("mean_packet_size", Value::from(500)),
                ("ecn", Value::Bool(false)),
                ("w_q", Value::from("auto_rtt")),
                ("queue_in_bytes", Value::Bool(true)),
                ("byte_drop", Value::Bool(true)),
                ("mark_p", Value::from(0.1)),
                ("min_waiting", Value::from(2)),
                ("restart_count", Value::Bool(true)),
                ("wait_spacing", Value::Bool(true)),
            ],
            _ => Vec::new(),
        }
    }

    /// `(min_th, max_th)` in packets for a link of `c` mean packets per second: a stated
    /// value as stated; "auto" by ns-2.35's `REDQueue::initialize_params`: `min_th =
    /// max(5, target_delay·C/2)`, `max_th = 3·min_th`.
    pub fn thresholds(&self, c: f64) -> (f64, f64) {
        let min_th = match self.min_th {
            ThresholdSpec::Value(v) => v,
            ThresholdSpec::Name(AutoThreshold::Auto) => {
                (self.target_delay.0.as_secs_f64() * c / 2.0).max(5.0)
            }
        };
        let max_th = match self.max_th {
            ThresholdSpec::Value(v) => v,
            ThresholdSpec::Name(AutoThreshold::Auto) => 3.0 * min_th,
        };
        (min_th, max_th)
    }

    /// Validate (`field` = `links.NAME.queue`) for a link of rate `rate` and propagation
    /// delay `delay_s` seconds.
    pub fn build(&self, field: &str, rate: Rate, delay_s: f64) -> Result<Red, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        if self.mean_packet_size == 0 {
            return Err(ScenarioError::new(
                format!("{field}.mean_packet_size"),
                "must be positive",
            ));
        }
        // C: the link's capacity in mean packets per second (ns-2.35's `ptc`).
        let c = rate.bps() as f64 / (8.0 * self.mean_packet_size as f64);
        let (min_th, max_th) = self.thresholds(c);
        RedConfig::validated(field, limit, min_th, max_th, self.max_p, self.mark_to_drop)?;
        check(
            field,
            "mark_p",
            self.mark_p,
            self.mark_p > 0.0 && self.mark_p <= 1.0,
            "in (0, 1]",
        )?;
        let w_q = match self.w_q {
            WeightSpec::Value(w) => {
                check(
                    field,
                    "w_q",
                    w,
                    w > 0.0 && w <= 1.0,
                    "in (0, 1], \"auto\" or \"auto_rtt\"",
                )?;
                w
            }
            WeightSpec::Name(AutoWeight::Auto) => 1.0 - (-1.0 / c).exp(),
            WeightSpec::Name(AutoWeight::AutoRtt) => {
                let r = (3.0 * (delay_s + 1.0 / c)).max(0.1);
                1.0 - (-1.0 / (10.0 * r * c)).exp()
            }
        };
        let mut red = Red::new(RedConfig {
            limit,
            min_th,
            max_th,
            max_p: self.max_p,
            w_q,
            gentle: self.gentle,
            count_spacing: self.count_spacing,
            ecn: self.ecn,
            forced_drop: self.forced_drop,
            mark_to_drop: self.mark_to_drop,
            mean_packet_size: self.mean_packet_size,
            instantaneous: false,
        });
        red.min_waiting = self.min_waiting;
        red.restart_count = self.restart_count;
        red.wait_spacing = self.wait_spacing;
        red.queue_in_bytes = self.queue_in_bytes;
        red.byte_drop = self.byte_drop;
        red.mark_p = self.mark_p;
        Ok(red)
    }
}

impl RedISpec {
    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<Red, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        RedConfig::validated(
            field,
            limit,
            self.min_th,
            self.max_th,
            self.max_p,
            self.mark_to_drop,
        )?;
        Ok(Red::new(RedConfig {
            limit,
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            w_q: 1.0,
            gentle: self.gentle,
            count_spacing: self.count_spacing,
            ecn: self.ecn,
            forced_drop: self.forced_drop,
            mark_to_drop: self.mark_to_drop,
            mean_packet_size: 1000,
            instantaneous: true,
        }))
    }
}

pub struct Red {
    cfg: RedConfig,
    avg: f64,
    /// Packets since the last signal (FJ93's `count`; −1 below `min_th`).
    count: i64,
    /// Storage on the scheduled path only (the fast path keeps packets in the link).
    q: VecDeque<Packet>,
    backlog: Backlog,
    /// ns-2 rules (see RedSpec::min_waiting, restart_count, wait_spacing, queue_in_bytes,
    /// byte_drop, mark_p).
    pub min_waiting: u32,
    pub restart_count: bool,
    pub wait_spacing: bool,
    pub queue_in_bytes: bool,
    pub byte_drop: bool,
    pub mark_p: f64,
    /// Bytes since the last signal (ns-2.35's `count_bytes`; with `byte_drop`).
    count_bytes: u64,
}

impl Red {
    /// The auditor's state check ([`QueueDisc::audit`]; CHOKe's too): the average is an
    /// EWMA of queue lengths (packets) an arrival found, so it is finite, not negative and,
    /// under a packet limit, at most the limit; `count` is −1 or more.
    pub(crate) fn audit_state(&self) -> Result<(), String> {
        let hi = match self.cfg.limit {
            Limit::Packets(n) if !self.queue_in_bytes => n as f64 * (1.0 + 1e-9),
            _ => f64::MAX,
        };
        super::audit_range("RED's average queue (packets)", self.avg, 0.0, hi)?;
        if self.count < -1 {
            return Err(format!("RED's count = {} < -1", self.count));
        }
        Ok(())
    }
    pub fn new(cfg: RedConfig) -> Self {
        Red {
            cfg,
            avg: 0.0,
            count: -1,
            q: VecDeque::new(),
            backlog: Backlog::default(),
            min_waiting: 0,
            restart_count: false,
            wait_spacing: false,
            queue_in_bytes: false,
            byte_drop: false,
            mark_p: 1.0,
            count_bytes: 0,
        }
    }
    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }
    /// The current average queue (packets).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The signal probability `p_b` for an average `avg` (before count-based spacing):
    /// 0 below `min_th`, 1 in the forced region.
    pub fn p_b(cfg: &RedConfig, avg: f64) -> f64 {
        if avg < cfg.min_th {
            0.0
        } else if avg < cfg.max_th {
            cfg.max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th)
        } else if cfg.gentle && avg < 2.0 * cfg.max_th {
            cfg.max_p + (1.0 - cfg.max_p) * (avg - cfg.max_th) / cfg.max_th
        } else {
            1.0
        }
    }

    /// Update the average with `q` packets waiting (every arrival, before any decision).
    #[inline]
    pub(crate) fn update_avg(&mut self, q: f64, cx: &QueueCx) {
        let w = self.cfg.w_q;
        if let Some(t0) = cx.idle_since {
            if w < 1.0 {
                let s = cx.tx_time(self.cfg.mean_packet_size).0.max(1) as f64;
                let m = cx.now.since(t0).0 as f64 / s;
                self.avg *= (1.0 - w).powf(m);
            }
        }
        self.avg = (1.0 - w) * self.avg + w * q;
    }

    /// Signal congestion on `pkt` (at signal probability `pb`); returns whether it stays in
    /// the queue.
    #[inline]
    fn signal(&mut self, pkt: &mut Packet, why: DropReason, pb: f64, cx: &mut QueueCx) -> bool {
        let drop_anyway = !self.cfg.ecn
            || (why == DropReason::Forced && self.cfg.forced_drop)
            || pb > self.mark_p;
        if drop_anyway {
            cx.drop(*pkt, why);
            return false;
        }
        if self.cfg.mark_to_drop > 0.0
            && pkt.has(crate::packet::flags::ECT)
            && cx.rng.bernoulli(self.cfg.mark_to_drop)
        {
            // Seed 002 §2: "an ECN mark is replaced by a packet drop": no CE, no mark count.
            cx.drop(*pkt, DropReason::MarkToDrop);
            return false;
        }
        cx.mark(pkt, why) // false: not ECN-capable, dropped
    }
}

impl QueueDisc for Red {
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        if let Some(bytes) = self.byte_limit() {
            // Admitted while fewer than `bytes` waited: at most one packet (≤ 64 KiB) beyond.
            let cap = bytes + 65_535;
            if waiting.bytes > cap {
                return Err(format!("holds {} B, beyond {cap} B", waiting.bytes));
            }
        } else {
            super::audit_limit(&self.cfg.limit, waiting)?;
        }
        self.audit_state()
    }
    fn name(&self) -> &'static str {
        if self.cfg.instantaneous {
            "red_i"
        } else {
            "red"
        }
    }
    #[inline]
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCx) {
        let waiting = self.backlog;
        if self.admit(&mut pkt, waiting, cx) {
            self.backlog.add(&pkt);
            self.q.push_back(pkt);
        }
    }
    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.backlog.remove(&p);
        Some(p)
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(f)
    }
    fn admission_only(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        let q = if self.queue_in_bytes {
            waiting.bytes as f64 / self.cfg.mean_packet_size as f64
        } else {
            waiting.packets as f64
        };
        self.update_avg(q, cx);
        self.decide(pkt, waiting, cx)
    }
}

impl Red {
    /// RED's decision for an arrival after [`Red::update_avg`]: the buffer limit, then the
    /// early/forced regions on the current average (CHOKe runs its comparison in between).
    #[inline]
    pub(crate) fn decide(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        let full = match self.byte_limit() {
            // ns-2.35's byte mode: qlim = limit_·mean_pktsize_ bytes, dropped if qlen ≥ qlim.
            Some(bytes) => waiting.bytes >= bytes,
            None => !self.cfg.limit.fits(&waiting, pkt),
        };
        if full {
            cx.drop(*pkt, DropReason::Overflow);
            return false;
        }
        let c = &self.cfg;
        let avg = self.avg;
        let forced = if c.gentle {
            avg >= 2.0 * c.max_th
        } else {
            avg >= c.max_th
        };
        let units = if self.queue_in_bytes {
            waiting.bytes
        } else {
            waiting.packets as u64
        };
        if avg < c.min_th || units < self.min_waiting as u64 {
            self.count = -1;
            self.count_bytes = 0;
            return true;
        }
        if self.restart_count && self.count < 0 {
            // ns-2's edv_.old: the first arrival back above min_th only restarts the count.
            self.count = 1;
            self.count_bytes = pkt.size as u64;
            return true;
        }
        self.count_bytes += pkt.size as u64;
        if forced && !self.byte_drop {
            self.count = 0;
            self.count_bytes = 0;
            return self.signal(pkt, DropReason::Forced, 1.0, cx);
        }
        self.count += 1;
        let pb = if forced { 1.0 } else { Self::p_b(c, avg) };
        let pa = self.p_a(pb, pkt.size);
        if cx.rng.next_f64() < pa {
            self.count = 0;
            self.count_bytes = 0;
            let why = if forced {
                DropReason::Forced
            } else {
                DropReason::Early
            };
            return self.signal(pkt, why, pb, cx);
        }
        true
    }

    /// With `queue_in_bytes` and a packet limit N: the byte limit N·mean_packet_size.
    #[inline]
    fn byte_limit(&self) -> Option<u64> {
        match (self.queue_in_bytes, self.cfg.limit) {
            (true, Limit::Packets(n)) => Some(n as u64 * self.cfg.mean_packet_size as u64),
            _ => None,
        }
    }

    /// The probability of signalling this arrival for `p_b` (count-based or `wait_`
    /// spacing, the byte-mode count and scaling).
    #[inline]
    fn p_a(&self, pb: f64, size: u32) -> f64 {
        if !self.cfg.count_spacing {
            return pb;
        }
        let mps = self.cfg.mean_packet_size as u64;
        let n = if self.byte_drop {
            (self.count_bytes / mps) as f64
        } else {
            self.count as f64
        };
        let k = n * pb;
        let pa = if self.wait_spacing {
            // ns-2.35's wait_: no signal within 1/p_b packets of the last one.
            if k < 1.0 {
                0.0
            } else if k < 2.0 {
                pb / (2.0 - k)
            } else {
                1.0
            }
        } else if k >= 1.0 {
            1.0
        } else {
            pb / (1.0 - k)
        };
        if self.byte_drop && pa < 1.0 {
            (pa * size as f64 / mps as f64).min(1.0)
        } else {
            pa
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::{flags, PacketKind};
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};
    use crate::time::{SimDuration, SimTime};

    fn cfg(min_th: f64, max_th: f64, max_p: f64, w_q: f64) -> RedConfig {
        RedConfig {
            limit: Limit::Packets(10_000),
            min_th,
            max_th,
            max_p,
            w_q,
            gentle: false,
            count_spacing: false,
            ecn: true,
            forced_drop: false,
            mark_to_drop: 0.0,
            mean_packet_size: 1000,
            instantaneous: w_q == 1.0,
        }
    }

    fn backlog(n: u32) -> Backlog {
        Backlog {
            packets: n,
            bytes: n as u64 * 1000,
        }
    }

    /// Offer `n` arrivals to a RED-I queue held at `q` waiting packets; returns the
    /// fraction signalled.
    fn signalled_fraction(c: RedConfig, q: u32, n: u32, ect: bool) -> (f64, DropLog) {
        signalled_fraction_with(Red::new(c), q, n, ect)
    }

    fn signalled_fraction_with(mut red: Red, q: u32, n: u32, ect: bool) -> (f64, DropLog) {
        let mut rng = SimRng::derive(3, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut signalled = 0;
        for _ in 0..n {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            if ect {
                p.flags |= flags::ECT;
            }
            let kept = red.admit(&mut p, backlog(q), &mut cx);
            if !kept || p.has(flags::CE) {
                signalled += 1;
            }
        }
        (signalled as f64 / n as f64, log)
    }

    #[test]
    fn red_i_signal_probability_follows_the_linear_ramp() {
        // min 100, max 300, max_p 0.5: p_b(q) = 0.5 (q − 100)/200.
        let c = cfg(100.0, 300.0, 0.5, 1.0);
        let n = 40_000;
        for q in [50u32, 100, 150, 200, 250, 299] {
            let want = Red::p_b(&c, q as f64);
            let (got, _) = signalled_fraction(c, q, n, false);
            let sd = (want * (1.0 - want) / n as f64).sqrt();
            assert!(
                (got - want).abs() <= 4.0 * sd + 1e-12,
                "q={q}: got {got}, formula {want}"
            );
        }
        let (all, log) = signalled_fraction(c, 300, 1000, false);
        assert_eq!(all, 1.0, "forced region drops every non-ECT arrival");
        assert_eq!(log.by_reason[DropReason::Forced.index()], 1000);
    }

    /// ns-2.35's rules (`REDQueue::enque`, queue/red.cc): no signal while fewer than
    /// `min_waiting` packets wait, and with `restart_count` the first arrival that may be
    /// signalled after one that could not only restarts the count.
    #[test]
    fn ns2_min_waiting_and_restart_count() {
        // w_q = 1 (avg = q), max_th 1: every arrival that may be signalled is (forced).
        let signals = |min_waiting: u32, restart_count: bool, qs: &[u32]| -> Vec<bool> {
            let mut red = Red::new(cfg(0.0, 1.0, 1.0, 1.0));
            red.min_waiting = min_waiting;
            red.restart_count = restart_count;
            let mut rng = SimRng::derive(3, Stream::Queue, 0);
            let mut log = DropLog::default();
            qs.iter()
                .map(|&q| {
                    let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
                    let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
                    !red.admit(&mut p, backlog(q), &mut cx)
                })
                .collect()
        };
        let qs = [2, 2, 2, 1, 2, 2, 3];
        assert_eq!(signals(0, false, &qs), [true; 7]);
        assert_eq!(
            signals(2, false, &qs),
            [true, true, true, false, true, true, true]
        );
        assert_eq!(
            signals(2, true, &qs),
            [false, true, true, false, false, true, true]
        );
        assert_eq!(
            signals(0, true, &qs),
            [false, true, true, true, true, true, true]
        );
    }

    #[test]
    fn count_spacing_gives_fj93_mean_rate() {
        // FJ93's Fig. 2 increments `count` before computing p_a = p_b/(1 − count·p_b) (so
        // does ns-2): the gap X between signals then has P(X = n) = p_b for n = 1 … 1/p_b − 1
        // (the survival product telescopes), E[X] = 1/(2 p_b), a signal fraction of 2 p_b.
        // (FJ93 §7 analyses count *before* the increment, X uniform on 1 … 1/p_b and a
        // fraction of 2 p_b/(1 + p_b); the figure is the algorithm we implement.)
        let mut c = cfg(100.0, 300.0, 0.1, 1.0);
        c.count_spacing = true;
        let pb = Red::p_b(&c, 200.0); // 0.05
        let want = 2.0 * pb;
        let (got, _) = signalled_fraction(c, 200, 200_000, false);
        assert!((got - want).abs() < 0.002, "got {got}, want {want}");
        assert!((got - pb).abs() > 0.03, "spacing changes the rate from p_b");
    }

    #[test]
    fn wait_spacing_gives_ns2_s_uniform_gaps_from_1_to_2_over_p_b() {
        // ns-2's wait_ rule: no signal until count·p_b ≥ 1, then p_b/(2 − count·p_b). The
        // survival telescopes again: gaps uniform on n0 … 2/p_b − 1 (n0 = ⌈1/p_b⌉), here
        // p_b = 0.05: 20 … 39, mean 29.5, a signal fraction of 1/29.5.
        let mut c = cfg(100.0, 300.0, 0.1, 1.0);
        c.count_spacing = true;
        let pb = Red::p_b(&c, 200.0);
        assert!((pb - 0.05).abs() < 1e-12);
        let mut red = Red::new(c);
        red.wait_spacing = true;
        let mut rng = SimRng::derive(3, Stream::Queue, 0);
        let mut log = DropLog::default();
        let (mut last, mut gaps) = (0u32, Vec::new());
        for i in 1..=200_000u32 {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            if !red.admit(&mut p, backlog(200), &mut cx) {
                gaps.push(i - last);
                last = i;
            }
        }
        let gaps = &gaps[1..]; // the first gap starts from the run's start
        assert!(
            gaps.iter().all(|&g| (19..=40).contains(&g)),
            "{:?}",
            &gaps[..20]
        );
        let mean = gaps.iter().map(|&g| g as f64).sum::<f64>() / gaps.len() as f64;
        assert!((mean - 29.5).abs() < 0.3, "mean gap {mean}");
    }

    #[test]
    fn gentle_region_ramps_to_one() {
        let mut c = cfg(100.0, 300.0, 0.1, 1.0);
        c.gentle = true;
        assert!((Red::p_b(&c, 450.0) - (0.1 + 0.9 * 0.5)).abs() < 1e-12);
        let n = 40_000;
        let want = Red::p_b(&c, 450.0);
        let (got, log) = signalled_fraction(c, 450, n, false);
        let sd = (want * (1.0 - want) / n as f64).sqrt();
        assert!((got - want).abs() <= 4.0 * sd, "got {got}, want {want}");
        assert_eq!(log.by_reason[DropReason::Forced.index()], 0);
        let (all, log) = signalled_fraction(c, 600, 100, false);
        assert_eq!(all, 1.0);
        assert_eq!(log.by_reason[DropReason::Forced.index()], 100);
    }

    #[test]
    fn ect_packets_are_marked_not_dropped_unless_forced_drop() {
        let c = cfg(100.0, 300.0, 1.0, 1.0);
        let (frac, log) = signalled_fraction(c, 400, 500, true);
        assert_eq!(frac, 1.0);
        assert_eq!((log.marks, log.packets), (500, 0));
        let mut c2 = c;
        c2.forced_drop = true;
        let (_, log) = signalled_fraction(c2, 400, 500, true);
        assert_eq!((log.marks, log.packets), (0, 500));
        let mut c3 = c;
        c3.mark_to_drop = 0.25;
        let (_, log) = signalled_fraction(c3, 400, 20_000, true);
        let dropped = log.by_reason[DropReason::MarkToDrop.index()] as f64 / 20_000.0;
        assert!((dropped - 0.25).abs() < 0.02, "{dropped}");
        assert_eq!(
            log.marks + log.by_reason[DropReason::MarkToDrop.index()],
            20_000,
            "each mark decision is either a mark or its replacement drop"
        );
        assert_eq!(log.packets, log.by_reason[DropReason::MarkToDrop.index()]);
    }

    #[test]
    fn full_buffer_drops_before_the_early_test() {
        let mut c = cfg(1000.0, 2000.0, 0.1, 1.0);
        c.limit = Limit::Packets(5);
        let (frac, log) = signalled_fraction(c, 5, 100, true);
        assert_eq!(frac, 1.0);
        assert_eq!((log.overflow, log.marks), (100, 0));
    }

    #[test]
    fn average_decays_over_idle_time() {
        // w_q = 0.01 on 8 Mb/s, 1000-B packets: s = 1 ms. After filling the average near
        // 50, an idle period of 100 ms decays it by (1 − w)^100, then the busy update.
        let c = cfg(1000.0, 2000.0, 0.1, 0.01);
        let mut red = Red::new(c);
        let mut rng = SimRng::derive(3, Stream::Queue, 0);
        let mut log = DropLog::default();
        for _ in 0..2000 {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
            red.admit(&mut p, backlog(50), &mut cx);
        }
        let before = red.avg();
        assert!((before - 50.0).abs() < 1e-6, "{before}");
        let t0 = SimTime::ZERO + SimDuration::from_secs(1);
        let now = t0 + SimDuration::from_ms(100);
        let mut cx = QueueCx::new(now, &mut rng, &mut log);
        cx.rate = Rate(8_000_000);
        cx.idle_since = Some(t0);
        let mut p = Packet::test(FlowId(0), PacketKind::Data, 1000);
        red.admit(&mut p, backlog(0), &mut cx);
        let want = before * 0.99f64.powi(100) * 0.99;
        assert!((red.avg() - want).abs() < 1e-9, "{} vs {want}", red.avg());
    }

    fn spec(v: serde_json::Value) -> RedSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn auto_weight_is_one_second_of_packets() {
        let s = spec(serde_json::json!({"limit": 100, "min_th": 5, "max_th": 15, "w_q": "auto"}));
        // 2.4 Gb/s of 1000-B packets = 300 000 pkt/s.
        let red = s.build("q", Rate(2_400_000_000), 0.0).unwrap();
        let want = 1.0 - (-1.0f64 / 300_000.0).exp();
        assert!((red.config().w_q - want).abs() < 1e-15);
        let bad = RedSpec {
            max_th: 5.0.into(),
            ..s
        };
        let e = bad.build("links.x.queue", Rate(1), 0.0).err().unwrap();
        assert_eq!(e.field, "links.x.queue.max_th");
    }

    #[test]
    fn auto_rtt_weight_and_auto_thresholds_follow_ns2_initialize_params() {
        // 10 Mb/s of 500-B packets: C = 2500 pkt/s; delay 20 ms: R = 3·(0.02 + 0.0004) =
        // 0.0612 s, below 0.1 s, so R = 0.1: w_q = 1 − exp(−1/(10·0.1·2500)).
        let s = spec(serde_json::json!({"limit": 100, "w_q": "auto_rtt", "mean_packet_size": 500}));
        let red = s.build("q", Rate(10_000_000), 0.020).unwrap();
        let c = red.config();
        assert!((c.w_q - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        // target 5 ms·2500/2 = 6.25 packets (> 5); max_th three times that.
        assert!((c.min_th - 6.25).abs() < 1e-12 && (c.max_th - 18.75).abs() < 1e-12);
        // A long link: R = 3·(0.1 + 0.0004) = 0.3012 s.
        let red = s.build("q", Rate(10_000_000), 0.1).unwrap();
        let want = 1.0 - (-1.0f64 / (10.0 * 0.3012 * 2500.0)).exp();
        assert!((red.config().w_q - want).abs() < 1e-12);
        // A slow link: the floor of 5 packets; a stated min_th sets max_th = 3·min_th.
        let red = s.build("q", Rate(1_000_000), 0.0).unwrap();
        assert_eq!((red.config().min_th, red.config().max_th), (5.0, 15.0));
        let s2 = spec(serde_json::json!({"limit": 100, "min_th": 8}));
        let red = s2.build("q", Rate(1_000_000), 0.0).unwrap();
        assert_eq!((red.config().min_th, red.config().max_th), (8.0, 24.0));
        let e = spec(serde_json::json!({"limit": 100, "max_th": 4}))
            .build("links.x.queue", Rate(1_000_000), 0.0)
            .err()
            .unwrap();
        assert_eq!(e.field, "links.x.queue.max_th");
        let e = serde_json::from_value::<RedSpec>(serde_json::json!({"min_th": "big"}))
            .err()
            .unwrap();
        assert!(e.to_string().contains("\"auto\""), "{e}");
    }

    fn bytes(n: u32, size: u64) -> Backlog {
        Backlog {
            packets: n,
            bytes: n as u64 * size,
        }
    }

    #[test]
    fn queue_in_bytes_averages_bytes_over_the_mean_size_and_limits_bytes() {
        // limit 10 packets of mean 500 B = 5000 B: 4 waiting 1040-B packets (4160 B) admit,
        // 5 (5200 B) do not, although fewer than 10 packets wait.
        let s = spec(
            serde_json::json!({"limit": 10, "min_th": 100, "max_th": 300,
            "w_q": 1.0, "mean_packet_size": 500, "queue_in_bytes": true}),
        );
        let mut red = s.build("q", Rate(10_000_000), 0.0).unwrap();
        let (mut rng, mut drops) = (SimRng::derive(1, Stream::Queue, 0), DropLog::default());
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut drops);
        let mut p = Packet::test(FlowId(0), PacketKind::Data, 1040);
        assert!(red.admit(&mut p, bytes(4, 1040), &mut cx));
        assert!((red.avg() - 4160.0 / 500.0).abs() < 1e-12);
        assert!(!red.admit(&mut p, bytes(5, 1040), &mut cx));
        assert!(red.audit(bytes(5, 1040)).is_ok());
    }

    #[test]
    fn byte_drop_scales_by_size_and_counts_bytes() {
        // Instantaneous average at 2 mean packets between min_th 1 and max_th 3 with
        // max_p 0.5: p_b = 0.25. FJ93 spacing on the byte count: a 40-B ack right after a
        // signal has count ⌊40/500⌋ = 0, so p_a = 0.25·40/500 = 0.02; a 1000-B packet
        // 0.25/(1 − 2·0.25)·1000/500 = 1.
        let s = spec(
            serde_json::json!({"limit": 100, "min_th": 1, "max_th": 3, "max_p": 0.5,
            "w_q": 1.0, "mean_packet_size": 500, "queue_in_bytes": true, "byte_drop": true,
            "ecn": false}),
        );
        let red = s.build("q", Rate(10_000_000), 0.0).unwrap();
        let mut r = red;
        r.count_bytes = 40;
        assert!((r.p_a(0.25, 40) - 0.02).abs() < 1e-12);
        r.count_bytes = 1000;
        assert_eq!(r.p_a(0.25, 1000), 1.0);
        // Acks alone at p_b 0.25: the byte count reaches one mean packet after 13 of them,
        // so the long-run fraction is far below packet mode's 2·p_b/(1 + p_b) = 0.4.
        let mut red = s.build("q", Rate(10_000_000), 0.0).unwrap();
        let (mut rng, mut drops) = (SimRng::derive(7, Stream::Queue, 0), DropLog::default());
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut drops);
        let mut kept = 0;
        let n = 20_000;
        for _ in 0..n {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 40);
            if red.admit(&mut p, bytes(25, 40), &mut cx) {
                kept += 1;
            }
        }
        let frac = 1.0 - kept as f64 / n as f64;
        assert!(frac > 0.0 && frac < 0.1, "{frac}");
    }

    #[test]
    fn mark_p_drops_ect_packets_above_it() {
        // p_b = max_p·(avg − min_th)/(max_th − min_th): with avg 2.5 (instantaneous),
        // min 1, max 3, max_p 0.4: 0.3 > mark_p 0.1: every signal is a drop even for ECT.
        let s = spec(
            serde_json::json!({"limit": 100, "min_th": 1, "max_th": 3, "max_p": 0.4,
            "w_q": 1.0, "count_spacing": false, "mark_p": 0.1}),
        );
        let red = s.build("q", Rate(10_000_000), 0.0).unwrap();
        let (frac, log) = signalled_fraction_with(red, 2, 4000, true);
        assert!(frac > 0.1, "{frac}");
        assert_eq!(log.marks, 0);
        // Below mark_p they are marks.
        let s = spec(
            serde_json::json!({"limit": 100, "min_th": 1, "max_th": 3, "max_p": 0.1,
            "w_q": 1.0, "count_spacing": false, "mark_p": 0.1}),
        );
        let red = s.build("q", Rate(10_000_000), 0.0).unwrap();
        let (_, log) = signalled_fraction_with(red, 2, 4000, true);
        assert!(log.marks > 0);
    }
}

#[cfg(test)]
mod audit_tests {
    use super::*;

    fn red(limit: Limit) -> Red {
        Red::new(RedConfig {
            limit,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            count_spacing: true,
            ecn: false,
            forced_drop: false,
            mark_to_drop: 0.0,
            mean_packet_size: 1000,
            instantaneous: false,
        })
    }

    #[test]
    fn the_auditor_checks_the_average_and_count() {
        let w = Backlog::default();
        let mut r = red(Limit::Packets(100));
        assert!(r.audit(w).is_ok());
        r.avg = 100.0;
        assert!(r.audit(w).is_ok(), "at the limit");
        r.avg = 100.5;
        let e = r.audit(w).unwrap_err();
        assert!(e.contains("RED's average queue"), "{e}");
        for bad in [f64::NAN, f64::INFINITY, -1e-9] {
            r.avg = bad;
            assert!(r.audit(w).is_err(), "avg {bad}");
        }
        let mut r = red(Limit::Unlimited);
        r.avg = 1e12;
        assert!(
            r.audit(w).is_ok(),
            "no bound but finiteness without a packet limit"
        );
        r.count = -2;
        assert!(r.audit(w).unwrap_err().contains("count"));
    }
}

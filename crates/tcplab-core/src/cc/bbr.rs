//! BBR v1 (Bottleneck Bandwidth and Round-trip propagation time).
//!
//! References: N. Cardwell, Y. Cheng, C. S. Gunn, S. H. Yeganeh, V. Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016; the Linux implementation
//! `net/ipv4/tcp_bbr.c` (the behaviour followed here, facts taken from it, no code);
//! delivery-rate samples per draft-cheng-iccrg-delivery-rate-estimation (`tcp/rate.rs`).
//!
//! Model (bytes, seconds; S = MSS; BW = windowed max of delivery-rate samples over the last
//! `bw_window_rounds` = 10 packet-timed rounds; RTprop = min RTT over `min_rtt_window` = 10 s):
//! - `bdp(g) = ceil(BW · RTprop · g / S)` segments (the initial window while no RTT is known)
//! - `inflight(g) = bdp(g) + 3·q`, rounded up to an even number of segments, `+2` in the
//!   ProbeBW phase with gain 1.25 (Linux's quantization budget; q = the TSO goal Linux would
//!   use: `max(rate/1024/S, 1 or 2)` segments, at most 127, or `quantum_segs`)
//! - `pacing_rate = pacing_gain · BW · (1 − pacing_margin)`, margin 1 %; before a bandwidth
//!   sample `high_gain · init_cwnd / srtt` (1 ms while no srtt); in STARTUP it never falls
//! - `cwnd`: after the pipe is full `min(cwnd + acked, inflight(cwnd_gain))`, before that
//!   `cwnd + acked` while below the target (or less than the initial window delivered);
//!   never below `min_cwnd_segs` = 4 segments; `min(cwnd, 4·S)` in PROBE_RTT
//! - a round ends when a segment sent after the previous round's end is delivered
//!   (`prior_delivered ≥ next_rtt_delivered`)
//!
//! States (pacing gain / cwnd gain):
//! - STARTUP (`high_gain` = 2/ln 2 ≈ 2.885 / `startup_cwnd_gain`, Linux: also 2.885): until
//!   BW has not grown by `full_bw_thresh` = 25 % for `full_bw_rounds` = 3 rounds (rounds whose
//!   sample is not application-limited)
//! - DRAIN (`1/high_gain` / `high_gain`): until `in_flight ≤ inflight(1)`; ssthresh is set to
//!   `inflight(1)` on entry (Linux)
//! - PROBE_BW (cycle `1.25, 0.75, 1, 1, 1, 1, 1, 1` / `cwnd_gain` = 2): a phase lasts one
//!   RTprop; the 1.25 phase also waits until `prior_in_flight ≥ inflight(1.25)` or a loss;
//!   the 0.75 phase ends early once `prior_in_flight ≤ inflight(1)`. The cycle starts at a
//!   phase drawn uniformly from the seven phases other than 0.75 (the flow's own random
//!   stream, Linux's `CYCLE_LEN − 1 − rand(7)` then one step)
//! - PROBE_RTT (1 / 1): entered when RTprop is older than `min_rtt_window` (only an RTT
//!   sample strictly below RTprop refreshes it, as in Linux since the 2020 fix "tcp: only
//!   postpone PROBE_RTT if RTT is < current min_rtt estimate"; with `<=` a simulated flow whose
//!   queue drains to empty sees RTprop exactly again and never probes); cwnd is capped at
//!   4 S; once the flight is at most 4 S it stays `probe_rtt_duration` = 200 ms and at least
//!   one round, then RTprop's stamp is renewed, cwnd restored to the value saved on entry,
//!   and the flow returns to PROBE_BW (or STARTUP if the pipe was never full). Samples
//!   taken meanwhile count as application-limited.
//! - Loss recovery (Linux `bbr_set_cwnd_to_recover_or_restore`): BBR sets the window in
//!   recovery itself (`controls_recovery_window`, Linux's `cong_control`: on SACK flows the
//!   transport runs no PRR and sends while `pipe + S ≤ cwnd`). On a fast retransmit the
//!   window is saved and set to `pipe + acked`; for the first round (until a round starts)
//!   packet conservation holds it at `max(cwnd, pipe + acked)`; after that the usual
//!   `min(cwnd + acked, inflight(cwnd_gain))`; when recovery ends it is restored to
//!   `max(cwnd, saved)`. (Without SACK the transport keeps its NewReno recovery window.)
//!   A timeout (the transport sets `cwnd = S`) resets `full_bw` and the saved window is
//!   restored once the transport leaves the loss state. ECN is ignored (Linux's BBR v1).
//! - In flight: wherever Linux uses `tcp_packets_in_flight` (DRAIN's exit, the gain cycle's
//!   `prior_in_flight`, PROBE_RTT's 4-segment test and its app-limited mark, the recovery
//!   window) BBR uses the transport's `pipe` (outstanding − SACKed − presumed lost +
//!   retransmitted: RFC 6675's, or RACK's); `prior_in_flight = pipe + acked`.
//!
//! Not built (documented differences from Linux): the long-term bandwidth (policer) estimator
//! `lt_bw` (it engages only after two 4-16-round intervals each losing at least 50/256 ≈ 20 %
//! of what they delivered at a steady rate: a token-bucket policer, not a drop-tail queue;
//! docs/performance.md "e-bbr's unfairness"); the ack-aggregation allowance `extra_acked` (cwnd += recent excess acked data);
//! idle restart; the EDT correction of in-flight (`bbr_packets_in_net_at_edt`); the
//! delayed-ack exception in the RTprop refresh. `losses` is "this ack follows a fast
//! retransmit" (Linux counts the packets this ack marked lost and also takes them off cwnd
//! in recovery; not done here). Without SACK, `pipe` is `snd_max − snd_una`.

use super::{AckSample, CaState, CcInit, Congestion, CongestionControl, ConnView};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

fn high_gain() -> f64 {
    2.0 / std::f64::consts::LN_2
}
fn two() -> f64 {
    2.0
}
fn ten() -> u32 {
    10
}
fn ten_s() -> DurationValue {
    DurationValue(SimDuration::from_secs(10))
}
fn probe_rtt_200ms() -> DurationValue {
    DurationValue(SimDuration::from_ms(200))
}
fn four() -> u32 {
    4
}
fn full_thresh() -> f64 {
    1.25
}
fn three() -> u32 {
    3
}
fn margin() -> f64 {
    0.01
}

/// `cc = { algorithm = "bbr" }` with optional parameters (defaults: Linux's `tcp_bbr.c`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbrSpec {
    /// STARTUP pacing gain (default 2/ln 2 ≈ 2.885); DRAIN paces at its inverse.
    #[serde(default = "high_gain")]
    pub high_gain: f64,
    /// STARTUP and DRAIN cwnd gain (default: `high_gain`, as Linux; the BBR draft uses 2).
    #[serde(default)]
    pub startup_cwnd_gain: Option<f64>,
    /// PROBE_BW cwnd gain (default 2).
    #[serde(default = "two")]
    pub cwnd_gain: f64,
    /// Bandwidth filter window in packet-timed rounds (default 10: the 8-phase cycle + 2).
    #[serde(default = "ten")]
    pub bw_window_rounds: u32,
    /// Minimum-RTT filter window (default "10s"); PROBE_RTT follows when it expires.
    #[serde(default = "ten_s")]
    pub min_rtt_window: DurationValue,
    /// Time at the minimum window in PROBE_RTT (default "200ms"; at least one round).
    #[serde(default = "probe_rtt_200ms")]
    pub probe_rtt_duration: DurationValue,
    /// Minimum cwnd, and the PROBE_RTT window, in segments (default 4).
    #[serde(default = "four")]
    pub min_cwnd_segs: u32,
    /// STARTUP ends after `full_bw_rounds` rounds without bandwidth growth by this factor
    /// (default 1.25).
    #[serde(default = "full_thresh")]
    pub full_bw_thresh: f64,
    /// Rounds without growth that end STARTUP (default 3).
    #[serde(default = "three")]
    pub full_bw_rounds: u32,
    /// Pacing below the estimate by this fraction (default 0.01).
    #[serde(default = "margin")]
    pub pacing_margin: f64,
    /// Segments q of the quantization budget `3·q` (default: Linux's TSO goal, rate-dependent:
    /// about 1 ms of data, at least 2 segments, 1 below 1.2 Mbit/s, at most 127).
    #[serde(default)]
    pub quantum_segs: Option<u32>,
}

impl Default for BbrSpec {
    fn default() -> Self {
        BbrSpec {
            high_gain: high_gain(),
            startup_cwnd_gain: None,
            cwnd_gain: 2.0,
            bw_window_rounds: 10,
            min_rtt_window: ten_s(),
            probe_rtt_duration: probe_rtt_200ms(),
            min_cwnd_segs: 4,
            full_bw_thresh: 1.25,
            full_bw_rounds: 3,
            pacing_margin: 0.01,
            quantum_segs: None,
        }
    }
}

impl BbrSpec {
    /// Validate (`field` = `flows.NAME.cc`) and build; `rng` is the flow's own stream (the
    /// gain cycle's random start phase).
    pub fn build(&self, field: &str, init: CcInit, rng: SimRng) -> Result<Bbr, ScenarioError> {
        let err = |k: &str, m: String| Err(ScenarioError::new(format!("{field}.{k}"), m));
        if !(self.high_gain > 1.0 && self.high_gain.is_finite()) {
            return err(
                "high_gain",
                format!("must be above 1, got {}", self.high_gain),
            );
        }
        let scg = self.startup_cwnd_gain.unwrap_or(self.high_gain);
        if !(scg >= 1.0 && scg.is_finite()) {
            return err(
                "startup_cwnd_gain",
                format!("must be at least 1, got {scg}"),
            );
        }
        if !(self.cwnd_gain >= 1.0 && self.cwnd_gain.is_finite()) {
            return err(
                "cwnd_gain",
                format!("must be at least 1, got {}", self.cwnd_gain),
            );
        }
        if self.bw_window_rounds == 0 {
            return err("bw_window_rounds", "must be at least 1".into());
        }
        if self.min_rtt_window.0 == SimDuration::ZERO {
            return err("min_rtt_window", "must be positive".into());
        }
        if self.min_cwnd_segs == 0 {
            return err("min_cwnd_segs", "must be at least 1".into());
        }
        if !(self.full_bw_thresh > 1.0 && self.full_bw_thresh.is_finite()) {
            return err(
                "full_bw_thresh",
                format!("must be above 1, got {}", self.full_bw_thresh),
            );
        }
        if self.full_bw_rounds == 0 {
            return err("full_bw_rounds", "must be at least 1".into());
        }
        if !(0.0..1.0).contains(&self.pacing_margin) {
            return err(
                "pacing_margin",
                format!("must be in [0, 1), got {}", self.pacing_margin),
            );
        }
        if self.quantum_segs == Some(0) {
            return err("quantum_segs", "must be at least 1".into());
        }
        let mss = init.mss as u64;
        let mut b = Bbr {
            p: Params {
                high_gain: self.high_gain,
                startup_cwnd_gain: scg,
                cwnd_gain: self.cwnd_gain,
                bw_window: self.bw_window_rounds as u64,
                min_rtt_window: self.min_rtt_window.0,
                probe_rtt_duration: self.probe_rtt_duration.0,
                min_cwnd: self.min_cwnd_segs as u64 * mss,
                full_bw_thresh: self.full_bw_thresh,
                full_bw_rounds: self.full_bw_rounds,
                pacing_margin: self.pacing_margin,
                quantum_segs: self.quantum_segs,
            },
            mss,
            init_cwnd: init.init_cwnd.max(mss),
            cwnd: init.init_cwnd.max(mss),
            ssthresh: u64::MAX,
            mode: Mode::Startup,
            pacing_gain: self.high_gain,
            cwnd_gain: scg,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            bw: MaxFilter::default(),
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            limited_until: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: SimTime::ZERO,
            prior_cwnd: 0,
            prev_state: CaState::Open,
            loss_pending: false,
            packet_conservation: false,
            last_acked: 0,
            delivered: 0,
            rng,
            target_key: [u64::MAX; 5],
            target: 0,
        };
        b.init_pacing_rate(None);
        Ok(b)
    }
}

/// BBR's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// The trace hook's code: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT.
    pub fn code(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// PROBE_BW's pacing-gain cycle.
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// Windowed maximum over rounds (Kathleen Nichols' three-sample running max, as Linux's
/// `lib/win_minmax.c` describes it): the best, second and third best samples of the window,
/// each with its round; O(1) per sample. A sample taken in round r counts while the current
/// round is at most `r + win`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    pub fn get(&self) -> f64 {
        self.s[0].1
    }
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let fresh = (t, v);
        // A new maximum, or nothing left in the window (even the newest sample expired).
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            self.s = [fresh; 3];
            return v;
        }
        if v >= self.s[1].1 {
            self.s[1] = fresh;
            self.s[2] = fresh;
        } else if v >= self.s[2].1 {
            self.s[2] = fresh;
        }
        let dt = t - self.s[0].0;
        if dt > win {
            // The best expired: promote the others (and again if the second expired too).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = fresh;
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window without a second choice: take this one.
            self.s[1] = fresh;
            self.s[2] = fresh;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = fresh;
        }
        self.s[0].1
    }
}

#[derive(Clone, Copy, Debug)]
struct Params {
    high_gain: f64,
    startup_cwnd_gain: f64,
    cwnd_gain: f64,
    bw_window: u64,
    min_rtt_window: SimDuration,
    probe_rtt_duration: SimDuration,
    min_cwnd: u64,
    full_bw_thresh: f64,
    full_bw_rounds: u32,
    pacing_margin: f64,
    quantum_segs: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    p: Params,
    mss: u64,
    init_cwnd: u64,
    cwnd: u64,
    ssthresh: u64,
    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Bytes per second.
    pacing_rate: f64,
    has_seen_rtt: bool,
    /// Bytes per second, by round.
    bw: MaxFilter,
    round_count: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// Samples of segments sent before `delivered` reached this count as
    /// application-limited (set in PROBE_RTT, as Linux sets `tp->app_limited`).
    limited_until: u64,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: SimTime,
    prior_cwnd: u64,
    prev_state: CaState,
    /// A fast retransmit happened since the last ack (`rs.losses`).
    loss_pending: bool,
    /// The first round of fast recovery: packet conservation (Linux `packet_conservation`).
    packet_conservation: bool,
    /// Bytes the latest ack delivered (`acked_sacked`; the recovery window starts at
    /// `pipe + acked` when that ack starts recovery).
    last_acked: u64,
    delivered: u64,
    rng: SimRng,
    /// `set_cwnd`'s target (`inflight(bw, cwnd_gain)`) and everything it depends on: bw,
    /// cwnd gain, pacing rate (the quantum), min RTT (`u64::MAX` = none), 1.25 phase.
    /// Recomputed only when one of them changed (most acks change none): same value, less
    /// work per ack.
    target_key: [u64; 5],
    target: u64,
}

impl Bbr {
    /// The random stream of the gain cycle's start phase (the flow's own).
    pub fn rng(&self) -> &SimRng {
        &self.rng
    }

    pub fn set_rng(&mut self, rng: SimRng) {
        self.rng = rng;
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The bandwidth estimate, bytes per second.
    pub fn bw(&self) -> f64 {
        self.bw.get()
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }
    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    pub fn round_count(&self) -> u64 {
        self.round_count
    }

    fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let rtt = match srtt {
            Some(r) if r > SimDuration::ZERO => {
                self.has_seen_rtt = true;
                r.as_secs_f64()
            }
            _ => 1e-3,
        };
        let bw = self.cwnd as f64 / rtt;
        self.pacing_rate = self.rate_with_gain(bw, self.p.high_gain);
    }

    fn rate_with_gain(&self, bw: f64, gain: f64) -> f64 {
        bw * gain * (1.0 - self.p.pacing_margin)
    }

    /// Linux's TSO goal in segments (`bbr_tso_segs_goal`: about 1 ms of data at the pacing
    /// rate, `rate >> 10` bytes, at least 2 segments, 1 below 1.2 Mbit/s, at most 127).
    fn quantum(&self) -> u64 {
        if let Some(q) = self.p.quantum_segs {
            return q as u64;
        }
        let min = if self.pacing_rate < 1.2e6 / 8.0 { 1 } else { 2 };
        let bytes = (self.pacing_rate / 1024.0).min(65_535.0) as u64;
        (bytes / self.mss).max(min).min(127)
    }

    /// `ceil(BW · RTprop · gain / S)` segments (the initial window without an RTT).
    fn bdp_segs(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            None => self.init_cwnd.div_ceil(self.mss),
            Some(r) => (bw * r.as_secs_f64() * gain / self.mss as f64).ceil() as u64,
        }
    }

    /// `bdp + 3·q`, even, `+2` in the 1.25 phase: bytes.
    fn quantization_budget(&self, segs: u64) -> u64 {
        let mut c = segs + 3 * self.quantum();
        c = (c + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c * self.mss
    }

    /// Linux `bbr_inflight`: the in-flight target at `gain`, bytes.
    pub fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp_segs(bw, gain))
    }

    /// `inflight(bw, cwnd_gain)`, recomputed only when one of its inputs changed.
    #[inline]
    fn cwnd_target(&mut self, bw: f64) -> u64 {
        let key = [
            bw.to_bits(),
            self.cwnd_gain.to_bits(),
            self.pacing_rate.to_bits(),
            self.min_rtt.map_or(u64::MAX, |r| r.0),
            u64::from(self.mode == Mode::ProbeBw && self.cycle_idx == 0),
        ];
        if key != self.target_key {
            self.target_key = key;
            self.target = self.inflight(bw, self.cwnd_gain);
        }
        self.target
    }

    fn save_cwnd(&mut self) {
        if self.prev_state == CaState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        // Linux: CYCLE_LEN − 1 − rand(7), then one step: any phase but 0.75 (index 1).
        let r = (self.rng.next_u64() % 7) as usize;
        self.cycle_idx = CYCLE.len() - 1 - r;
        self.advance_cycle(now);
    }

    fn advance_cycle(&mut self, now: SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = now;
    }

    fn reset_mode(&mut self, now: SimTime) {
        if self.full_bw_reached {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.startup_cwnd_gain),
            Mode::Drain => (1.0 / self.p.high_gain, self.p.startup_cwnd_gain),
            Mode::ProbeBw => (CYCLE[self.cycle_idx], self.p.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Everything of one ack (Linux `bbr_main`).
    fn on_sample(&mut self, now: SimTime, a: &AckSample, c: &ConnView) {
        // Linux `acked_sacked`: bytes this ack delivered, cumulatively or by SACK.
        let acked = a.rate.map_or(a.newly_acked, |r| r.acked);
        self.last_acked = acked;
        // Linux `tcp_packets_in_flight` before this ack: pipe plus what the ack delivered.
        let prior_in_flight = c.pipe + acked;
        let losses = std::mem::take(&mut self.loss_pending);
        let rs = a.rate.filter(|r| r.valid());
        let app_limited =
            rs.is_some_and(|r| r.is_app_limited || r.prior_delivered < self.limited_until);
        if let Some(r) = a.rate {
            self.delivered = r.delivered_total;
        }

        // bbr_update_bw: rounds and the bandwidth filter.
        self.round_start = false;
        if let Some(r) = rs {
            if r.prior_delivered >= self.next_rtt_delivered {
                self.next_rtt_delivered = self.delivered;
                self.round_count += 1;
                self.round_start = true;
                self.packet_conservation = false;
            }
            let bw = r.rate_bps();
            if !app_limited || bw >= self.bw.get() {
                self.bw.update(self.p.bw_window, self.round_count, bw);
            }
        }

        // bbr_update_cycle_phase.
        if self.mode == Mode::ProbeBw {
            let full_length = self
                .min_rtt
                .is_some_and(|m| now.since(self.cycle_stamp) > m);
            let bw = self.bw.get();
            let next = if self.pacing_gain == 1.0 {
                full_length
            } else if self.pacing_gain > 1.0 {
                full_length && (losses || prior_in_flight >= self.inflight(bw, self.pacing_gain))
            } else {
                full_length || prior_in_flight <= self.inflight(bw, 1.0)
            };
            if next {
                self.advance_cycle(now);
            }
        }

        // bbr_check_full_bw_reached.
        if !self.full_bw_reached && self.round_start && rs.is_some() && !app_limited {
            let max = self.bw.get();
            if max >= self.full_bw * self.p.full_bw_thresh {
                self.full_bw = max;
                self.full_bw_cnt = 0;
            } else {
                self.full_bw_cnt += 1;
                self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_rounds;
            }
        }

        // bbr_check_drain.
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.bw.get(), 1.0);
        }
        if self.mode == Mode::Drain && c.pipe <= self.inflight(self.bw.get(), 1.0) {
            self.enter_probe_bw(now);
        }

        // bbr_update_min_rtt and PROBE_RTT.
        let expired = now > self.min_rtt_stamp + self.p.min_rtt_window;
        if let Some(rtt) = a.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.p.probe_rtt_duration > SimDuration::ZERO {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            self.limited_until = self.delivered + c.pipe;
            if self.probe_rtt_done.is_none() && c.pipe <= self.p.min_cwnd {
                self.probe_rtt_done = Some(now + self.p.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if let Some(done) = self.probe_rtt_done {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    self.cwnd = self.cwnd.max(self.prior_cwnd);
                    self.reset_mode(now);
                }
            }
        }
        self.update_gains();

        // bbr_set_pacing_rate.
        if !self.has_seen_rtt && c.srtt.is_some() {
            self.init_pacing_rate(c.srtt);
        }
        let bw = self.bw.get();
        let rate = self.rate_with_gain(bw, self.pacing_gain);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }

        // bbr_set_cwnd.
        self.set_cwnd(acked, bw, c);
        self.prev_state = c.state;
    }

    fn set_cwnd(&mut self, acked: u64, bw: f64, c: &ConnView) {
        if acked > 0 {
            // Leaving loss recovery or the loss state: restore the saved window.
            let restore = self.prev_state != CaState::Open && c.state == CaState::Open;
            if restore {
                self.cwnd = self.cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            if self.packet_conservation {
                // The first round of recovery: send what the ack delivered.
                self.cwnd = self.cwnd.max(c.pipe + acked);
                if self.mode == Mode::ProbeRtt {
                    self.cwnd = self.cwnd.min(self.p.min_cwnd);
                }
                return;
            }
            let target = self.cwnd_target(bw);
            if self.full_bw_reached {
                self.cwnd = (self.cwnd + acked).min(target);
            } else if self.cwnd < target || self.delivered < self.init_cwnd {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(self.p.min_cwnd);
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.p.min_cwnd);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        self.on_sample(now, ack, c);
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        match why {
            Congestion::FastRetransmit => {
                // bbr_ssthresh saves the window; the first round of recovery conserves
                // packets: cwnd = what is in flight.
                self.save_cwnd();
                self.loss_pending = true;
                self.packet_conservation = true;
                self.cwnd = (c.pipe + self.last_acked).max(self.mss);
                self.next_rtt_delivered = self.delivered;
                self.prev_state = CaState::Recovery;
            }
            Congestion::Timeout => {
                self.save_cwnd();
                self.cwnd = self.mss;
                self.full_bw = 0.0;
                self.prev_state = CaState::Loss;
            }
            Congestion::Ecn => {}
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, _c: &ConnView) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.packet_conservation = false;
        self.prev_state = CaState::Open;
    }
    fn reduces_on_ecn(&self) -> bool {
        false
    }
    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate.max(1.0) as u64)
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn controls_recovery_window(&self) -> bool {
        true
    }
    fn trace_names(&self) -> &'static [&'static str] {
        &[
            "bbr_mode",
            "bbr_bw_bps",
            "bbr_min_rtt_s",
            "bbr_pacing_gain",
            "bbr_cwnd_gain",
        ]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.mode.code();
        out[1] = self.bw.get() * 8.0;
        out[2] = self.min_rtt.map_or(f64::NAN, |r| r.as_secs_f64());
        out[3] = self.pacing_gain;
        out[4] = self.cwnd_gain;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::cc_api::RateSample;
    use crate::rng::Stream;

    const S: u64 = 1000;
    /// Path: 1 MB/s (1000 segments/s), RTprop 100 ms: BDP = 100 segments.
    const BW: f64 = 1e6;

    fn bbr() -> Bbr {
        BbrSpec {
            quantum_segs: Some(1),
            ..BbrSpec::default()
        }
        .build(
            "cc",
            CcInit {
                mss: S as u32,
                init_cwnd: 10 * S,
                init_ssthresh: u64::MAX,
                ack_counting: Default::default(),
            },
            SimRng::derive(1, Stream::Cc, 0),
        )
        .unwrap()
    }

    /// A driver: one ack per `step`, each delivering one segment at the rate `bw`,
    /// with RTT `rtt`; rounds advance since every sample's `prior_delivered` is what was
    /// delivered one RTT earlier.
    struct Drive {
        b: Bbr,
        now: SimTime,
        delivered: u64,
        /// (time, delivered) history for prior_delivered one RTT back.
        hist: std::collections::VecDeque<(SimTime, u64)>,
    }

    impl Drive {
        fn new() -> Self {
            Drive {
                b: bbr(),
                now: SimTime::ZERO,
                delivered: 0,
                hist: Default::default(),
            }
        }
        /// One ack: `bw` bytes/s delivered, RTT `rtt_ms`, `in_flight` after the ack.
        fn ack(&mut self, bw: f64, rtt_ms: u64, in_flight: u64) {
            self.ack_sack(bw, rtt_ms, in_flight, in_flight, CaState::Open);
        }
        /// One ack on a SACK flow: `in_flight` (`snd_max − snd_una`) and `pipe` (without
        /// the SACKed and lost bytes) after the ack, in transport state `state`.
        fn ack_sack(&mut self, bw: f64, rtt_ms: u64, in_flight: u64, pipe: u64, state: CaState) {
            let step = SimDuration::from_secs_f64(S as f64 / bw);
            self.now += step;
            self.delivered += S;
            self.hist.push_back((self.now, self.delivered));
            let rtt = SimDuration::from_ms(rtt_ms);
            while self.hist.len() > 1 && self.now.since(self.hist[0].0) > rtt {
                self.hist.pop_front();
            }
            let prior = self.hist[0].1 - S.min(self.hist[0].1);
            let mut a = ack(S);
            a.rtt = Some(rtt);
            a.rate = Some(RateSample {
                prior_delivered: prior,
                delivered: self.delivered - prior,
                interval: SimDuration::from_secs_f64((self.delivered - prior) as f64 / bw).max(rtt),
                is_app_limited: false,
                delivered_total: self.delivered,
                acked: S,
            });
            let mut v = view(S as u32, in_flight, state);
            v.pipe = pipe;
            v.srtt = Some(rtt);
            let now = self.now;
            self.b.on_ack(now, &a, &v);
        }
        /// Run acks for `d` of simulated time.
        fn run(&mut self, d: SimDuration, bw: f64, rtt_ms: u64, in_flight: u64) {
            let end = self.now + d;
            while self.now < end {
                self.ack(bw, rtt_ms, in_flight);
            }
        }
    }

    #[test]
    fn max_filter_keeps_the_best_sample_for_its_window() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100.0);
        for r in 1..=10 {
            assert_eq!(f.update(10, r, 50.0 + r as f64), 100.0, "round {r}");
        }
        // Round 11: the sample of round 0 is older than 10 rounds; the best of rounds 1-11
        // that the filter kept (the three-sample filter keeps the latest of its
        // sub-windows: here round 10's).
        let v = f.update(10, 11, 40.0);
        assert_eq!(v, 60.0);
        // A larger sample replaces everything at once.
        assert_eq!(f.update(10, 12, 500.0), 500.0);
    }

    #[test]
    fn startup_exits_after_three_rounds_without_growth_then_drain_then_probe_bw() {
        let mut d = Drive::new();
        assert_eq!(d.b.mode(), Mode::Startup);
        assert!((d.b.pacing_gain() - 2.885).abs() < 1e-3);
        // Bandwidth doubling every round: stays in STARTUP.
        let mut bw = 50e3;
        for _ in 0..4 {
            d.run(SimDuration::from_ms(100), bw, 100, 10 * S);
            bw *= 2.0;
        }
        assert_eq!(d.b.mode(), Mode::Startup);
        assert!(!d.b.full_bw_reached());
        // Flat bandwidth: the pipe is full exactly three rounds after the last round whose
        // estimate grew by 25 % (the estimate still grows in the first flat rounds, as the
        // doubling rounds' samples age).
        let r0 = d.b.round_count();
        let mut last_growth = (d.b.full_bw, d.b.round_count());
        while !d.b.full_bw_reached() {
            d.ack(BW, 100, 250 * S);
            if d.b.full_bw != last_growth.0 {
                last_growth = (d.b.full_bw, d.b.round_count());
            }
            assert!(d.b.round_count() - r0 <= 8, "no exit");
        }
        assert_eq!(d.b.round_count() - last_growth.1, 3);
        assert!((last_growth.0 - BW).abs() < BW * 0.02);
        // In flight above the BDP: DRAIN at 1/2.885.
        assert_eq!(d.b.mode(), Mode::Drain);
        assert!((d.b.pacing_gain() - 1.0 / 2.885).abs() < 1e-3);
        let bdp_target = d.b.inflight(d.b.bw(), 1.0);
        assert_eq!(d.b.ssthresh(), bdp_target);
        d.ack(BW, 100, bdp_target + S);
        assert_eq!(d.b.mode(), Mode::Drain);
        // Down to the BDP (plus the quantization budget): PROBE_BW.
        d.ack(BW, 100, bdp_target);
        assert_eq!(d.b.mode(), Mode::ProbeBw);
        assert_ne!(d.b.cycle_idx(), 1, "never starts in the 0.75 phase");
    }

    fn probe_bw_flow() -> Drive {
        let mut d = Drive::new();
        d.run(SimDuration::from_ms(1000), BW, 100, 100 * S);
        assert_eq!(d.b.mode(), Mode::ProbeBw);
        d
    }

    #[test]
    fn gain_cycle_runs_in_order_one_rtprop_per_phase() {
        let mut d = probe_bw_flow();
        let bdp = 100 * S;
        // Phase changes over 16 RTprops: every phase lasts one RTprop (the 1.25 phase
        // reaches its in-flight target since in flight is 1.25 BDP + budget).
        let mut seen = vec![(d.b.cycle_idx(), d.now)];
        let end = d.now + SimDuration::from_ms(1600);
        while d.now < end {
            let inflight = match d.b.cycle_idx() {
                0 => bdp * 2,
                _ => bdp,
            };
            d.ack(BW, 100, inflight);
            if d.b.cycle_idx() != seen.last().unwrap().0 {
                seen.push((d.b.cycle_idx(), d.now));
            }
        }
        for w in seen.windows(2) {
            assert_eq!(w[1].0, (w[0].0 + 1) % 8, "order");
        }
        for w in seen[1..].windows(2) {
            let dur = w[1].1.since(w[0].1);
            if w[0].0 == 1 {
                // 0.75: ends as soon as in flight ≤ inflight(1), i.e. at once here.
                assert!(dur <= SimDuration::from_ms(2), "{dur}");
            } else {
                assert!(
                    dur > SimDuration::from_ms(100) && dur <= SimDuration::from_ms(102),
                    "phase {} lasted {dur}",
                    w[0].0
                );
            }
        }
        assert!(seen.len() >= 12);
        let gains: Vec<f64> = (0..8).map(|i| CYCLE[i]).collect();
        assert_eq!(gains, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn the_1_25_phase_waits_for_its_inflight_target() {
        let mut d = probe_bw_flow();
        // Get to phase 0.
        while d.b.cycle_idx() != 0 {
            d.ack(BW, 100, 100 * S);
        }
        let t0 = d.now;
        // In flight stays at one BDP: the phase outlasts its RTprop.
        d.run(SimDuration::from_ms(300), BW, 100, 100 * S);
        assert_eq!(d.b.cycle_idx(), 0);
        assert!(d.now.since(t0) > SimDuration::from_ms(250));
        d.ack(BW, 100, 200 * S);
        assert_eq!(d.b.cycle_idx(), 1);
    }

    #[test]
    fn random_start_phase_is_never_the_0_75_phase_and_depends_on_the_stream() {
        let mut phases = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut b = bbr();
            b.set_rng(SimRng::derive(seed, Stream::Cc, 0));
            b.enter_probe_bw(SimTime::ZERO);
            phases.insert(b.cycle_idx());
        }
        assert_eq!(
            phases.into_iter().collect::<Vec<_>>(),
            [0, 2, 3, 4, 5, 6, 7]
        );
    }

    #[test]
    fn probe_rtt_after_10s_without_a_new_min_holds_200ms_at_4_segments() {
        let mut d = probe_bw_flow();
        // The RTT rises (a standing queue) and never matches RTprop again.
        let t_min = d.b.min_rtt_stamp;
        let mut cwnd_before = 0;
        while d.b.mode() != Mode::ProbeRtt {
            cwnd_before = d.b.cwnd();
            d.ack(BW, 120, 150 * S);
            assert!(d.now.since(t_min) <= SimDuration::from_ms(10_002));
        }
        assert!(d.now.since(t_min) > SimDuration::from_secs(10));
        assert!(cwnd_before > 100 * S);
        assert_eq!(d.b.cwnd(), 4 * S);
        assert_eq!(d.b.pacing_gain(), 1.0);
        // In flight still above 4 segments: the 200 ms have not started.
        d.run(SimDuration::from_ms(300), BW, 120, 20 * S);
        assert_eq!(d.b.mode(), Mode::ProbeRtt);
        // Flight at 4 segments from `t4`: at least 200 ms and one round there.
        d.ack(BW, 100, 4 * S);
        let t4 = d.now;
        while d.b.mode() == Mode::ProbeRtt {
            assert_eq!(d.b.cwnd(), 4 * S);
            d.ack(BW, 100, 4 * S);
            assert!(
                d.now.since(t4) < SimDuration::from_ms(400),
                "stuck in PROBE_RTT"
            );
        }
        assert!(d.now.since(t4) > SimDuration::from_ms(200));
        assert_eq!(d.b.mode(), Mode::ProbeBw);
        assert!(d.b.cwnd() >= cwnd_before, "window restored");
        assert_eq!(d.b.min_rtt(), Some(SimDuration::from_ms(100)));
    }

    #[test]
    fn an_rtt_sample_equal_to_rtprop_does_not_postpone_probe_rtt() {
        // The queue drains completely every cycle, so samples equal RTprop exactly (as they
        // do in a simulator): PROBE_RTT still comes 10 s after the stamp (Linux's `<`).
        let mut d = probe_bw_flow();
        let t_min = d.b.min_rtt_stamp;
        while d.b.mode() != Mode::ProbeRtt {
            d.ack(BW, 100, 100 * S);
            assert!(d.now.since(t_min) <= SimDuration::from_ms(10_002));
        }
        assert!(d.now.since(t_min) > SimDuration::from_secs(10));
        // A strictly lower sample renews RTprop and its stamp: no PROBE_RTT 10 s after t_min.
        let mut d = probe_bw_flow();
        let t_min = d.b.min_rtt_stamp;
        d.run(SimDuration::from_secs(5), BW, 100, 100 * S);
        d.ack(BW, 99, 100 * S);
        assert_eq!(d.b.min_rtt(), Some(SimDuration::from_ms(99)));
        while d.now.since(t_min) < SimDuration::from_secs(11) {
            d.ack(BW, 100, 100 * S);
            assert_ne!(d.b.mode(), Mode::ProbeRtt);
        }
    }

    #[test]
    fn pacing_rate_is_gain_times_bw_less_the_margin() {
        let d = probe_bw_flow();
        let r = d.b.pacing_rate().unwrap() as f64;
        let want = d.b.pacing_gain() * d.b.bw() * 0.99;
        assert!((r - want).abs() <= 1.0, "{r} vs {want}");
        assert!((d.b.bw() - BW).abs() < BW * 0.02);
    }

    #[test]
    fn fast_retransmit_conserves_packets_then_restores_the_window() {
        let mut d = probe_bw_flow();
        let w = d.b.cwnd();
        let v = view(S as u32, 80 * S, CaState::Open);
        d.b.on_congestion(d.now, Congestion::FastRetransmit, &v);
        assert_eq!(d.b.cwnd(), 81 * S, "pipe + the last ack's delivered bytes");
        d.b.on_recovery_exit(d.now, &v);
        assert_eq!(d.b.cwnd(), w);
        assert!(!d.b.reduces_on_ecn());
    }

    #[test]
    fn probe_rtt_ends_when_pipe_is_at_4_segments_whatever_sacked_or_lost_bytes_remain() {
        // Linux tests `tcp_packets_in_flight` (outstanding − SACKed − lost + retransmitted):
        // a hole below 200 SACKed segments must not hold the flow at 4 segments for good.
        let mut d = probe_bw_flow();
        while d.b.mode() != Mode::ProbeRtt {
            d.ack(BW, 120, 150 * S);
        }
        let t = d.now;
        while d.b.mode() == Mode::ProbeRtt {
            assert_eq!(d.b.cwnd(), 4 * S);
            d.ack_sack(BW, 100, 200 * S, 3 * S, CaState::Recovery);
            assert!(
                d.now.since(t) < SimDuration::from_ms(400),
                "stuck in PROBE_RTT"
            );
        }
        assert!(d.now.since(t) > SimDuration::from_ms(200));
        assert_eq!(d.b.mode(), Mode::ProbeBw);
    }

    #[test]
    fn recovery_starts_at_pipe_plus_acked_conserves_one_round_then_grows_to_target() {
        let mut d = probe_bw_flow();
        // The ack that starts recovery delivered one segment; 150 segments outstanding, 60
        // of them in the network (the rest SACKed or lost).
        d.ack_sack(BW, 100, 150 * S, 60 * S, CaState::Open);
        let v = view(S as u32, 150 * S, CaState::Recovery);
        let v = ConnView { pipe: 60 * S, ..v };
        d.b.on_congestion(d.now, Congestion::FastRetransmit, &v);
        assert_eq!(d.b.cwnd(), 61 * S, "pipe + acked, not snd_max − snd_una");
        // First round: packet conservation, cwnd = max(cwnd, pipe + acked).
        let t = d.now;
        let round = d.b.round_count();
        while d.b.round_count() == round {
            assert_eq!(d.b.cwnd(), 61 * S, "conservation");
            d.ack_sack(BW, 100, 150 * S, 50 * S, CaState::Recovery);
            assert!(d.now.since(t) < SimDuration::from_ms(150));
        }
        // Then cwnd + acked per ack up to the target.
        let c = d.b.cwnd();
        for _ in 0..20 {
            d.ack_sack(BW, 100, 150 * S, 50 * S, CaState::Recovery);
        }
        assert!(d.b.cwnd() >= c + 19 * S, "grows by what is acked");
        d.run(SimDuration::from_ms(300), BW, 100, 100 * S);
        assert_eq!(d.b.cwnd(), d.b.inflight(d.b.bw(), 2.0), "at the target");
        assert!(d.b.controls_recovery_window());
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let init = CcInit {
            mss: 1000,
            init_cwnd: 10_000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let rng = SimRng::derive(0, Stream::Cc, 0);
        let e = BbrSpec {
            high_gain: 0.5,
            ..BbrSpec::default()
        }
        .build("flows.f.cc", init, rng.clone())
        .unwrap_err();
        assert!(e.to_string().contains("flows.f.cc.high_gain"), "{e}");
        let e = BbrSpec {
            bw_window_rounds: 0,
            ..BbrSpec::default()
        }
        .build("flows.f.cc", init, rng)
        .unwrap_err();
        assert!(e.to_string().contains("flows.f.cc.bw_window_rounds"), "{e}");
    }
}

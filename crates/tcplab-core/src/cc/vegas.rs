//! TCP Vegas.
//!
//! References: seed 001 (P1) eq. 1 and §II (loss rule); L. S. Brakmo and L. L. Peterson,
//! "TCP Vegas: end to end congestion avoidance on a global Internet", IEEE JSAC 13(8), 1995
//! (slow start); L. S. Brakmo, S. W. O'Malley and L. L. Peterson, "TCP Vegas: New
//! Techniques for Congestion Detection and Avoidance", SIGCOMM 1994, §3.2 (the
//! distinguished segment); where the papers leave a choice open, it is ours.
//!
//! Formulas (W = cwnd, S = MSS, windows in segments where the paper uses packets):
//! - BaseRTT = the minimum of all per-ack RTT samples (Karn-valid) seen so far (with
//!   `rtt_sample = "distinguished"` the distinguished samples too)
//! - RTT, `rtt_sample = "mean"` (default): the mean of the per-ack RTT samples of the last
//!   round (P1: "the average RTT"; our choice, as ns-2)
//! - RTT, `rtt_sample = "distinguished"` (Brakmo 1994 §3.2, P1's "newly measured RTT"): the
//!   RTT of the round's distinguished segment D, the first segment of new data sent after
//!   the round began (the one at `snd_max` of the round's start, so its ack is the one that
//!   ends the round): `RTT = T_ack − T_D`, T_D its send time, T_ack the arrival of the first
//!   ack that covers it. Karn: no sample (and no decision that round) when that ack was
//!   triggered by a retransmission (`AckSample::echo_retx`) or when a fast retransmit or a
//!   timeout came after D left (D may have been resent). Retransmissions are never
//!   distinguished: D is the segment that moved `snd_max` past the round's start.
//! - `Expected = W / BaseRTT`, `Actual = W / RTT`
//! - `Delta = (Expected − Actual) · BaseRTT` (= `W·(RTT − BaseRTT)/RTT`, packets queued)
//! - once per round, in linear mode (P1 eq. 1):
//!   `Delta < α` → `W += S`; `Delta > β` → `W −= S` (floor 2S); otherwise W unchanged
//! - slow start (Brakmo): `W += S` per ack of new data, but only in every other round
//!   (doubling every other RTT); leave for linear mode at the end of a round where
//!   `Delta > γ_ss`, or when W reaches ssthresh; on leaving `ssthresh = W` (with
//!   `ss_exit_cut`: `W = 7W/8` first, as ns-2.35 does)
//! - fast retransmit (P1 §II): `W = 3/4·W` if the lost segment had been transmitted once,
//!   `W = 1/2·W` if it was a retransmission lost again (`ConnView::una_retransmitted`: the
//!   segment at `snd_una` lies below the end of the highest segment ever retransmitted,
//!   exact because the transport only retransmits forward from `snd_una`); floor 2S;
//!   `ssthresh = W`; linear mode afterwards. At most one cut per window: the transport starts one fast retransmit
//!   per recovery (NewReno, RFC 6582 §3.2 step 1).
//! - end of fast recovery: `W = ssthresh` (or RFC 6582 §3.2 step 3 with
//!   `recovery_exit = "flightsize"`)
//! - ECN echo (not in P1): `W = 1/2·W` (floor 2S), `ssthresh = W`
//! - timeout (Reno): `ssthresh = max(W/2, 2S)`, `W = S` (`restart_window`: ns-2's Vegas
//!   agent restarts from 2S, `v_slowstart_`), Vegas slow start again
//! - Vegas-ALT (`alt = true`, seed 001 §II, `cc/alt.rs`): `BaseRTT = TF_min + TB_min` and
//!   each RTT sample `RTT_i = TF_i + TB_min` from the receiver's arrival (AT) and leaving
//!   (LT) timestamps, so backward queueing leaves Delta alone; everything else as above.
//!   With `rtt_sample = "distinguished"` the round's RTT is D's `TF_D + TB_min`, taken from
//!   the ack that ends the round when that ack echoes D's send time (it carries D's AT);
//!   otherwise (D's own ack lost, or with delayed acks an ack that echoes the segment
//!   before D) the round has no sample and no decision.
//!
//! W in `Delta` is the window at the start of the round: the acks that make up a round are
//! those of the segments in flight when it began, which that window sent. In the
//! distinguished mode this keeps the form of eq. 1; Brakmo's Actual is instead the bytes
//! sent between D's transmission and its ack divided by RTT (here `snd_max − end` at that
//! ack), which equals W when the window is full and unchanged through the round (linear
//! mode between changes) and exceeds it while the window grows (slow start). ns-2's
//! `VegasTcpAgent::recv` (tcp-vegas.cc) has only the mean (its Actual counts the segments
//! sent since the round began; with no sample in a round it uses the time since the round
//! began): the translator refuses `rtt_sample = "distinguished"`.
//!
//! A round starts at an ack and ends at the first ack that covers the first byte sent after
//! that start (`delivered > snd_max` at the start; Linux `beg_snd_nxt`). Per ack the work is
//! a compare, an add and a min; per segment sent, with `"distinguished"`, one compare (D's
//! send time is that of the last segment sent while `snd_max` was still the round's start:
//! the sender's `snd_una` is the last ack's `delivered`, so `snd_max = snd_una + in_flight`).
//!
//! **`rules = "ns2"`**: the window rules of ns-2.35's `VegasTcpAgent::recv` and `timeout`
//! (tcp/tcp-vegas.cc), which differ from the above in more than the rounding of Delta. W in
//! segments, `out` = segments outstanding + 1 (ns-2's `t_seqno_ − last_ack_`), `sent` =
//! segments sent since the round began (`t_seqno_ − v_begseq_`), per ack of new data:
//! - a round ends at the ack of the first segment sent after it began; its RTT is the mean of
//!   the samples of the acks before this one (this ack's sample joins the next round), or
//!   the time since the round began when it had none; BaseRTT = that RTT when it is lower
//!   or when `sent ≤ 1`;
//! - `Delta = int((out/BaseRTT − sent/RTT)·BaseRTT + 0.5)`;
//! - slow start while `W < ssthresh` (ssthresh starts at the receiver's window,
//!   `TcpAgent::reset`): every other round, `Delta > γ` → `ssthresh = 2`, `W −= W/8` (floor
//!   2), no growth; otherwise one segment per ack in that round; in the round between, none;
//! - otherwise (linear mode): `Delta > β` → `W −= 1` at once (floor 2) and no growth;
//!   `Delta < α` → `W += 1/W` per ack through the next round (half a segment per round trip
//!   behind a delayed-ack sink); otherwise no growth;
//! - growth only while `W − out ≤ 2` ("unless we haven't been able to keep up");
//! - fast retransmit: `w = ⌊W⌋`: 2 if `w ≤ 3`, `w/2` for a segment lost again, else `w − ⌊w/4⌋`
//!   (integers); after the recovery `ssthresh = 2` (no slow start);
//! - timeout: `ssthresh = max(⌊W/2⌋, 2)`, `W = restart_window` (2), the every-other-round
//!   phase kept.
//!
//! Brakmo's fine-grained retransmission on the first and second duplicate ack is the
//! transport's (`loss_detection = "vegas"`, `tcp/sender/vegas_loss.rs`, as ns-2's Vegas
//! agent; the default is the usual `dupack_threshold` rule).

use super::alt::{self, AltClock, AltWire};
use super::{recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView};
use crate::config::ScenarioError;
use crate::packet::CcHeader;
use crate::time::SimTime;
use serde_json::Value;

fn one() -> f64 {
    1.0
}
fn three() -> f64 {
    3.0
}

/// Which RTT eq. 1 uses at the end of a round (`rtt_sample`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RttSample {
    /// The mean of the round's per-ack samples (ns-2, P1's "average RTT").
    #[default]
    Mean,
    /// The RTT of the round's distinguished segment (Brakmo 1994 §3.2).
    Distinguished,
}

/// `cc = { algorithm = "vegas", alpha = 1, beta = 3 }` (Vegas-ALT: `alt = true`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VegasSpec {
    /// Lower bound of the target number of the flow's packets queued, in packets
    /// (default 1, ns-2 `v_alpha_`). Below it the window grows one segment per RTT.
    #[serde(default = "one")]
    pub alpha: f64,
    /// Upper bound, in packets (default 3, ns-2 `v_beta_`); `beta >= alpha`. Above it the
    /// window shrinks one segment per RTT.
    #[serde(default = "three")]
    pub beta: f64,
    /// Slow start ends when the estimated queue exceeds this many packets (default 1).
    #[serde(default = "one")]
    pub gamma: f64,
    /// Cut the window to 7/8 when slow start ends (as ns-2.35 does); default false; not
    /// with `rules = "ns2"`, which has it.
    #[serde(default)]
    pub ss_exit_cut: bool,
    /// The window after a retransmission timeout, in segments: 1 (default, Reno) or more
    /// (ns-2's Vegas agent restarts from `v_slowstart_` = 2, `VegasTcpAgent::timeout`;
    /// `profile = "ns2"` sets 2 for Vegas flows).
    #[serde(default)]
    pub restart_window: Option<u32>,
    /// Vegas-ALT (seed 001 §II): BaseRTT = TF_min + TB_min and RTT = TF + TB_min from the
    /// receiver's arrival and leaving timestamps, so backward queueing is ignored; default
    /// false.
    #[serde(default)]
    pub alt: bool,
    /// With `alt`: bytes of the timestamp option on every ack (default 10, RFC 1323: acks
    /// 40 → 50 B).
    #[serde(default)]
    pub alt_option_bytes: Option<u32>,
    /// With `alt`: data segments carry the option too, within their unchanged wire size
    /// (payload per full segment = mss − alt_option_bytes); default true.
    #[serde(default)]
    pub alt_data_option: Option<bool>,
    /// The RTT of eq. 1: "mean" (default; the mean of the round's per-ack samples, as ns-2)
    /// or "distinguished" (one segment per round, Brakmo 1994 §3.2).
    #[serde(default)]
    pub rtt_sample: RttSample,
    /// Round Delta to the nearest whole packet before comparing it with α, β and γ
    /// (ns-2.35's `VegasTcpAgent::recv`: `int((expect − v_actual_)·v_baseRTT_ + 0.5)`), so
    /// the window holds while 0.5 ≤ Delta < 3.5 at the defaults; default false (P1's
    /// real-valued Delta). `profile = "ns2"` sets it.
    #[serde(default)]
    pub round_delta: bool,
    /// The window rules: `"paper"` (default; the formulas above) or `"ns2"` (ns-2.35's
    /// `VegasTcpAgent::recv`: its Expected and Actual, its slow start with the 7/8 cut, a
    /// linear increase spread over the acks of a round, integer cuts; see the module
    /// header). `profile = "ns2"` sets it.
    #[serde(default)]
    pub rules: VegasRules,
}

/// Which window rules a Vegas flow follows (`rules`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VegasRules {
    /// Seed 001's eq. 1 and Brakmo's slow start, as the module header writes them.
    #[default]
    Paper,
    /// ns-2.35's `VegasTcpAgent` (tcp/tcp-vegas.cc).
    Ns2,
}

impl Default for VegasSpec {
    fn default() -> Self {
        VegasSpec {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            ss_exit_cut: false,
            restart_window: None,
            alt: false,
            alt_option_bytes: None,
            alt_data_option: None,
            rtt_sample: RttSample::Mean,
            round_delta: false,
            rules: VegasRules::Paper,
        }
    }
}

pub(crate) fn check_nonneg(field: &str, name: &str, v: f64) -> Result<(), ScenarioError> {
    if !(v >= 0.0 && v.is_finite()) {
        return Err(ScenarioError::new(
            format!("{field}.{name}"),
            format!("must be a finite number >= 0 (packets), got {v}"),
        ));
    }
    Ok(())
}

impl VegasSpec {
    /// The keys profile `p` sets on a Vegas flow's `cc` table: under `ns2`, the window of 2
    /// that ns-2.35's Vegas agent restarts from after a timeout (`v_slowstart_`,
    /// tcp/tcp-vegas.cc) and its whole-packet Delta (`round_delta`). The flow's own part of that agent (its loss detection) is the
    /// flow profile's (scenario/profiles.rs).
    pub fn profile_keys(&self, p: crate::config::profile::Profile) -> Vec<(&'static str, Value)> {
        match p {
            crate::config::profile::Profile::Ns2 => {
                let mut k = vec![
                    ("restart_window", Value::from(2)),
                    ("round_delta", Value::Bool(true)),
                ];
                // ns-2's window rules, unless the flow asks for what they exclude (ALT,
                // the paper's exit cut, the distinguished segment): then the paper's.
                if !self.alt && !self.ss_exit_cut && self.rtt_sample == RttSample::Mean {
                    k.push(("rules", Value::from("ns2")));
                }
                k
            }
            _ => Vec::new(),
        }
    }

    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Vegas, ScenarioError> {
        check_nonneg(field, "alpha", self.alpha)?;
        check_nonneg(field, "beta", self.beta)?;
        check_nonneg(field, "gamma", self.gamma)?;
        if self.beta < self.alpha {
            return Err(ScenarioError::new(
                format!("{field}.beta"),
                format!(
                    "must be >= alpha ({}), got {} (eq. 1 keeps alpha <= Delta <= beta)",
                    self.alpha, self.beta
                ),
            ));
        }
        let mut v = Vegas::new(
            init.mss,
            init.init_cwnd,
            init.init_ssthresh,
            self.alpha,
            self.beta,
        );
        v.gamma = self.gamma;
        v.ss_exit_cut = self.ss_exit_cut;
        v.round_delta = self.round_delta;
        match self.restart_window {
            None => {}
            Some(w @ 1..=1000) => v.restart_window = w as f64,
            Some(w) => {
                return Err(ScenarioError::new(
                    format!("{field}.restart_window"),
                    format!("must be 1 to 1000 segments, got {w}"),
                ))
            }
        }
        if self.rules == VegasRules::Ns2 {
            for (bad, key) in [
                (self.alt, "alt"),
                (self.ss_exit_cut, "ss_exit_cut"),
                (self.rtt_sample != RttSample::Mean, "rtt_sample"),
            ] {
                if bad {
                    return Err(ScenarioError::new(
                        format!("{field}.{key}"),
                        "not with rules = \"ns2\" (ns-2.35's Vegas has its own slow-start \
                         exit and RTT, and no ALT)",
                    ));
                }
            }
            v.ns2 = Some(Ns2Rules::default());
        }
        if self.alt_wire(field)?.is_some() {
            v.rounds.alt = Some(AltClock::default());
        }
        if self.rtt_sample == RttSample::Distinguished {
            v.rounds.dist = Some(Distinguished::default());
        }
        Ok(v)
    }
    /// What ALT adds to the flow's packets (`None` without `alt`).
    pub fn alt_wire(&self, field: &str) -> Result<Option<AltWire>, ScenarioError> {
        alt::wire(field, self.alt, self.alt_option_bytes, self.alt_data_option)
    }
}

/// Per-round RTT bookkeeping shared by Vegas and FAST.
#[derive(Clone, Debug)]
pub(crate) struct Rounds {
    /// The round ends when `delivered` passes this (snd_max when it began).
    end: u64,
    /// BaseRTT, seconds (infinite before the first sample): the minimum RTT sample, or
    /// with ALT `TF_min + TB_min`.
    pub base: f64,
    sum: f64,
    count: u32,
    /// Window in bytes when the current round began.
    pub start_cwnd: f64,
    /// The mean RTT of the last round that had samples, seconds (NaN before).
    pub last: f64,
    /// ALT: RTT samples `TF_i + TB_min` instead of the sender's `T4 − T1`.
    pub alt: Option<AltClock>,
    /// `rtt_sample = "distinguished"` (Vegas only): the round's RTT is its distinguished
    /// segment's.
    pub dist: Option<Distinguished>,
}

/// Brakmo's distinguished segment D of the current round: the first segment of new data
/// sent after the round began, i.e. the segment at the round's `end`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Distinguished {
    /// The sender's `snd_una`: `delivered` of the last ack.
    una: u64,
    /// Send time of the last segment sent while `snd_max` was at most the round's `end`:
    /// retransmissions and finally D, which moves `snd_max` past `end`. Nothing later
    /// changes it, so at the ack that covers D it is D's send time.
    sent: SimTime,
    /// No fast retransmit or timeout since `sent` (Karn: D was not resent).
    clean: bool,
}

impl Distinguished {
    /// The round's RTT at the first ack covering D (`alt_rtt`: this ack's ALT sample).
    #[inline]
    fn sample(&self, now: SimTime, ack: &AckSample, alt_rtt: Option<Option<f64>>) -> Option<f64> {
        if !self.clean || ack.echo_retx {
            return None;
        }
        match alt_rtt {
            // ALT needs D's arrival time AT: only an ack that echoes D carries it.
            Some(r) => r.filter(|_| ack.sent_at == self.sent),
            None => Some(now.since(self.sent).as_secs_f64()),
        }
    }
}

impl Rounds {
    pub fn new() -> Self {
        Rounds {
            end: 0,
            base: f64::INFINITY,
            sum: 0.0,
            count: 0,
            start_cwnd: 0.0,
            last: f64::NAN,
            alt: None,
            dist: None,
        }
    }
    /// A segment is leaving (`c` as before it: `snd_max = snd_una + in_flight`).
    #[inline]
    pub fn on_send(&mut self, now: SimTime, c: &ConnView) {
        if let Some(d) = &mut self.dist {
            if d.una + c.in_flight <= self.end {
                d.sent = now;
                d.clean = true;
            }
        }
    }
    /// A fast retransmit or timeout: the distinguished segment, if already sent, may be
    /// resent, so its sample is void.
    pub fn on_loss(&mut self) {
        if let Some(d) = &mut self.dist {
            d.clean = false;
        }
    }
    /// Record this ack's sample; at the end of a round return its RTT (the mean of its
    /// samples, or the distinguished segment's; `None` when it had none) and start the next
    /// round with window `cwnd`.
    #[inline]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        ack: &AckSample,
        c: &ConnView,
        cwnd: f64,
    ) -> Option<Option<f64>> {
        let sample = match &mut self.alt {
            None => ack.rtt.map(|r| {
                let r = r.as_secs_f64();
                self.base = self.base.min(r);
                r
            }),
            Some(a) => {
                let r = a.sample(now, ack);
                self.base = a.base();
                r
            }
        };
        if let Some(r) = sample {
            self.sum += r;
            self.count += 1;
        }
        if let Some(d) = &mut self.dist {
            d.una = ack.delivered;
        }
        if ack.delivered <= self.end {
            return None;
        }
        let mean = match &self.dist {
            None => (self.count > 0).then(|| self.sum / self.count as f64),
            Some(d) => {
                let r = d.sample(now, ack, self.alt.as_ref().map(|_| sample));
                if let (Some(r), None) = (r, &self.alt) {
                    self.base = self.base.min(r);
                }
                r
            }
        };
        if let Some(m) = mean {
            self.last = m;
        }
        self.end = ack.delivered + c.in_flight;
        self.sum = 0.0;
        self.count = 0;
        self.start_cwnd = cwnd;
        Some(mean)
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    ss_exit_cut: bool,
    /// Delta rounded to whole packets (ns-2, `VegasSpec::round_delta`).
    round_delta: bool,
    /// Segments in the window after a timeout (`restart_window`).
    restart_window: f64,
    slow_start: bool,
    /// In slow start: this round grows the window (every other round does).
    grow_round: bool,
    rounds: Rounds,
    /// Last computed Delta, packets (NaN before the first decision).
    diff: f64,
    /// `rules = "ns2"`: ns-2.35's per-round state (None: the paper's rules).
    ns2: Option<Ns2Rules>,
}

/// ns-2.35's `VegasTcpAgent` round state (`rules = "ns2"`), windows in segments.
#[derive(Clone, Debug)]
struct Ns2Rules {
    /// `v_begseq_`: snd_max (bytes) when the round began; 0 at the start, so the first ack
    /// ends the first round.
    begseq: u64,
    /// `v_begtime_`: when the round began (the simulation's start at first).
    begtime: SimTime,
    /// `v_sumRTT_`, `v_cntRTT_`: the round's samples so far.
    sum: f64,
    count: u32,
    /// `v_incr_`: segments added per ack of new data until the next round's end.
    incr: f64,
    /// `v_inc_flag_`: slow start grows in the rounds where this turns true.
    inc_flag: bool,
    /// The first ack has set BaseRTT and ssthresh (`firstrecv_`, `TcpAgent::reset`).
    started: bool,
}

impl Default for Ns2Rules {
    fn default() -> Self {
        Ns2Rules {
            begseq: 0,
            begtime: SimTime::ZERO,
            sum: 0.0,
            count: 0,
            incr: 0.0,
            inc_flag: true,
            started: false,
        }
    }
}

/// The trace hook of Vegas and FAST: `diff`, `base_rtt_s`, `rtt_s`, with ALT also
/// `tf_min_s`, `tb_min_s`.
impl Rounds {
    /// The trace columns of Vegas and FAST: `diff`, `base_rtt_s`, `rtt_s`, with ALT also
    /// `tf_min_s`, `tb_min_s` (see [`trace_values`]).
    pub(crate) fn trace_names(&self) -> &'static [&'static str] {
        if self.alt.is_some() {
            alt::TRACE_ALT
        } else {
            alt::TRACE_PLAIN
        }
    }
}

pub(crate) fn trace_values(rounds: &Rounds, diff: f64, out: &mut [f64]) {
    out[0] = diff;
    out[1] = if rounds.base.is_finite() {
        rounds.base
    } else {
        f64::NAN
    };
    out[2] = rounds.last;
    if let Some(a) = &rounds.alt {
        out[3] = a.tf_min();
        out[4] = a.tb_min();
    }
}

impl Vegas {
    pub fn new(mss: u32, init_cwnd: u64, init_ssthresh: u64, alpha: f64, beta: f64) -> Self {
        Vegas {
            mss: mss as f64,
            cwnd: init_cwnd as f64,
            ssthresh: init_ssthresh as f64,
            alpha,
            beta,
            gamma: 1.0,
            ss_exit_cut: false,
            round_delta: false,
            restart_window: 1.0,
            slow_start: true,
            grow_round: true,
            rounds: Rounds::new(),
            diff: f64::NAN,
            ns2: None,
        }
    }

    /// `rules = "ns2"`: one ack (`VegasTcpAgent::recv`, the branch of an ack of new data;
    /// duplicate acks only start the clock).
    fn on_ack_ns2(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        let mss = self.mss;
        let Some(n) = self.ns2.as_mut() else { return };
        if !n.started {
            // `firstrecv_`: BaseRTT starts at the first ack's time (seconds of the
            // simulation), which the first sample then undercuts; ssthresh at the
            // receiver's window (`ssthresh_ = int(wnd_)`).
            n.started = true;
            let t = now.as_secs_f64();
            self.rounds.base = if t > 0.0 { t } else { f64::INFINITY };
            let wnd = (c.max_window as f64 / mss).floor().max(1.0) * mss;
            self.ssthresh = self.ssthresh.min(wnd);
        }
        // Every ack of new data, the one that ends a recovery included (ns-2 deflates and
        // then runs the round's test on it; here the sender deflates after this hook).
        if ack.newly_acked == 0 {
            return;
        }
        let snd_max = ack.delivered + c.in_flight;
        // `t_seqno_ − last_ack_`: the segments outstanding plus one.
        let out = c.in_flight.div_ceil(mss as u64) as f64 + 1.0;
        if ack.delivered > n.begseq {
            let rtt = if n.count > 0 {
                n.sum / n.count as f64
            } else {
                now.since(n.begtime).as_secs_f64()
            };
            n.sum = 0.0;
            n.count = 0;
            let sent = (snd_max.saturating_sub(n.begseq) / mss as u64) as f64;
            if rtt > 0.0 {
                if rtt < self.rounds.base || sent <= 1.0 {
                    self.rounds.base = rtt;
                }
                let base = self.rounds.base;
                let actual = sent / rtt;
                let expect = out / base;
                // C's int(x + 0.5): truncation toward zero.
                let delta = ((expect - actual) * base + 0.5).trunc();
                self.diff = delta;
                self.rounds.last = rtt;
                let w = self.cwnd / mss;
                if self.cwnd < self.ssthresh {
                    n.inc_flag = !n.inc_flag;
                    if !n.inc_flag {
                        n.incr = 0.0;
                    } else if delta > self.gamma {
                        self.ssthresh = 2.0 * mss;
                        self.cwnd = (self.cwnd - self.cwnd / 8.0).max(2.0 * mss);
                        n.incr = 0.0;
                    } else {
                        n.incr = 1.0;
                    }
                } else if delta > self.beta {
                    self.cwnd = (self.cwnd - mss).max(2.0 * mss);
                    n.incr = 0.0;
                } else if delta < self.alpha {
                    n.incr = 1.0 / w;
                } else {
                    n.incr = 0.0;
                }
            }
            n.begseq = snd_max;
            n.begtime = now;
        }
        if n.incr == 1.0 && self.cwnd >= self.ssthresh {
            n.incr = 0.0;
        }
        if n.incr > 0.0 && self.cwnd / mss - out <= 2.0 {
            self.cwnd += n.incr * mss;
        }
        self.slow_start = self.cwnd < self.ssthresh;
        // This ack's sample joins the next round (ns-2 adds it after the round's test).
        if let Some(r) = ack.rtt {
            let r = r.as_secs_f64();
            n.sum += r;
            n.count += 1;
            if r > 0.0 && r < self.rounds.base {
                self.rounds.base = r;
            }
        }
    }
    /// The last Delta (packets queued, eq. 1).
    pub fn diff(&self) -> f64 {
        self.diff
    }
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    fn leave_slow_start(&mut self) {
        self.slow_start = false;
        if self.ss_exit_cut {
            self.cwnd = (self.cwnd * 7.0 / 8.0).max(2.0 * self.mss);
        }
        self.ssthresh = self.cwnd;
    }
    /// End of a round whose RTT (mean or distinguished) is `rtt` (seconds).
    fn decide(&mut self, rtt: f64, window: f64, c: &ConnView) {
        let base = self.rounds.base;
        // Delta = (W/BaseRTT − W/RTT)·BaseRTT, in packets.
        let w = window / self.mss;
        let mut diff = (w / base - w / rtt) * base;
        if self.round_delta {
            // C's int(x + 0.5): truncation toward zero.
            diff = (diff + 0.5).trunc();
        }
        self.diff = diff;
        if self.slow_start {
            if diff > self.gamma {
                self.leave_slow_start();
            } else {
                self.grow_round = !self.grow_round;
            }
            return;
        }
        if diff < self.alpha {
            if self.cwnd < c.max_window as f64 {
                self.cwnd += self.mss;
            }
        } else if diff > self.beta {
            self.cwnd = (self.cwnd - self.mss).max(2.0 * self.mss);
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        if self.rounds.alt.is_some() {
            "vegas-alt"
        } else {
            "vegas"
        }
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    /// `diff`: the last Delta of eq. 1 (packets); `base_rtt_s`: BaseRTT; `rtt_s`: the last
    /// round's RTT (its mean, or its distinguished segment's; seconds); with ALT
    /// `tf_min_s`, `tb_min_s` (seconds, each on the mixed clocks: they include ± the
    /// receiver's clock offset).
    fn trace_names(&self) -> &'static [&'static str] {
        self.rounds.trace_names()
    }
    fn trace_values(&self, out: &mut [f64]) {
        trace_values(&self.rounds, self.diff, out);
    }
    #[inline]
    fn on_send(&mut self, now: SimTime, _bytes: u32, _hdr: &mut CcHeader, c: &ConnView) {
        self.rounds.on_send(now, c);
    }
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        if self.ns2.is_some() {
            self.on_ack_ns2(now, ack, c);
            return;
        }
        let window = self.rounds.start_cwnd;
        if let Some(rtt) = self.rounds.on_ack(now, ack, c, self.cwnd) {
            if let (Some(rtt), CaState::Open | CaState::Loss) = (rtt, c.state) {
                if window > 0.0 {
                    self.decide(rtt, window, c);
                }
            }
            self.rounds.start_cwnd = self.cwnd;
        }
        if ack.newly_acked == 0 || c.state == CaState::Recovery {
            return;
        }
        if self.slow_start && self.grow_round && self.cwnd < c.max_window as f64 {
            self.cwnd += self.mss;
            if self.cwnd >= self.ssthresh {
                self.cwnd = self.cwnd.min(self.ssthresh.max(2.0 * self.mss));
                self.leave_slow_start();
            }
        }
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        let floor = 2.0 * self.mss;
        if why != Congestion::Ecn {
            self.rounds.on_loss();
        }
        if self.ns2.is_some() && why != Congestion::Ecn {
            // `VegasTcpAgent::recv` (the third duplicate ack) and `timeout`, in whole
            // segments of `window()` = min(cwnd, wnd).
            let w = (self.cwnd.min(c.max_window as f64) / self.mss).floor();
            match why {
                Congestion::FastRetransmit => {
                    let w = if w <= 3.0 {
                        2.0
                    } else if c.una_retransmitted {
                        (w / 2.0).floor()
                    } else {
                        w - (w / 4.0).floor()
                    };
                    // The window after the recovery (`v_newcwnd_`), kept in ssthresh
                    // until `on_recovery_exit`.
                    self.cwnd = w * self.mss;
                    self.ssthresh = self.cwnd;
                }
                _ => {
                    // `slowdown(CLOSE_CWND_RESTART | CLOSE_SSTHRESH_HALF)`, then
                    // `cwnd_ = v_slowstart_`; the round state carries on.
                    self.ssthresh = (w / 2.0).floor().max(2.0) * self.mss;
                    self.cwnd = self.restart_window * self.mss;
                }
            }
            self.slow_start = self.cwnd < self.ssthresh;
            return;
        }
        match why {
            Congestion::FastRetransmit => {
                // P1 §II: 3/4 if the lost segment was transmitted once, else 1/2.
                let keep = if c.una_retransmitted { 0.5 } else { 0.75 };
                self.cwnd = (keep * self.cwnd).max(floor);
                self.ssthresh = self.cwnd;
                self.slow_start = false;
            }
            Congestion::Ecn => {
                self.cwnd = (0.5 * self.cwnd).max(floor);
                self.ssthresh = self.cwnd;
                self.slow_start = false;
            }
            Congestion::Timeout => {
                self.ssthresh = (self.cwnd / 2.0).max(floor);
                self.cwnd = self.restart_window * self.mss;
                self.slow_start = true;
                self.grow_round = true;
            }
        }
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = self.ssthresh.min(recovery_exit_cwnd(u64::MAX, c) as f64);
        if self.ns2.is_some() {
            // "vegas ssthresh is used only during slow-start": `ssthresh_ = 2`.
            self.ssthresh = 2.0 * self.mss;
            self.slow_start = false;
        }
    }
}

/// A lossless pipe for hook-level tests: acks arrive one segment at a time in send order
/// and the sender refills the window after each.
#[cfg(test)]
pub(crate) mod pipe {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::time::SimDuration;

    pub const S: u64 = 1000;

    pub struct Pipe {
        pub una: u64,
        pub max: u64,
    }

    impl Pipe {
        pub fn new(cc: &impl CongestionControl) -> Self {
            Pipe {
                una: 0,
                max: cc.cwnd() / S * S,
            }
        }
        /// One ack of the next segment, with RTT `rtt_ms`.
        pub fn ack(&mut self, cc: &mut impl CongestionControl, rtt_ms: f64) {
            self.una += S;
            let mut x = ack(S);
            x.delivered = self.una;
            x.rtt = Some(SimDuration::from_secs_f64(rtt_ms / 1000.0));
            let c = view(1000, self.max - self.una, CaState::Open);
            cc.on_ack(SimTime::ZERO, &x, &c);
            self.max = self.max.max(self.una + cc.cwnd() / S * S);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::view;

    use super::pipe::{Pipe, S};

    /// A Vegas in linear mode with window `w` segments and BaseRTT 100 ms.
    fn linear(w: u64) -> (Vegas, Pipe) {
        let mut v = Vegas::new(1000, w * S, u64::MAX, 1.0, 3.0);
        v.slow_start = false;
        v.rounds.base = 0.100;
        let p = Pipe::new(&v);
        (v, p)
    }

    #[test]
    fn eq1_increases_below_alpha_holds_inside_decreases_above_beta() {
        // W = 20 segments, BaseRTT = 100 ms: Delta = 20·(RTT − 100)/RTT.
        // RTT 102 ms → 0.39 < 1: +1; RTT 110 → 1.82 in [1, 3]: hold; RTT 125 → 4 > 3: −1.
        // The first ack ends the empty initial round (no decision) and starts one that
        // ends with the ack of segment 21, the first sent after it: acks 2..=21.
        for (rtt, want) in [(102.0, 21), (110.0, 20), (125.0, 19)] {
            let (mut v, mut p) = linear(20);
            for _ in 0..20 {
                p.ack(&mut v, rtt);
            }
            assert_eq!(v.cwnd(), 20 * S, "no decision before the round ends");
            p.ack(&mut v, rtt);
            assert_eq!(v.cwnd(), want * S, "rtt {rtt}: diff {}", v.diff());
            let expect = 20.0 * (rtt - 100.0) / rtt;
            assert!((v.diff() - expect).abs() < 1e-9, "{} vs {expect}", v.diff());
        }
    }

    /// A Vegas under ns-2's rules, window `w` segments, in slow start (ssthresh unset).
    fn ns2(w: u64) -> (Vegas, Pipe) {
        let mut v = Vegas::new(1000, w * S, u64::MAX, 1.0, 3.0);
        v.ns2 = Some(Ns2Rules::default());
        let p = Pipe::new(&v);
        (v, p)
    }

    #[test]
    fn ns2_rules_spread_the_linear_increase_over_the_rounds_acks() {
        // Linear mode (ssthresh 2) at W = 20 and RTT = BaseRTT: Delta = 0 < α, so each ack
        // of the next round adds 1/20 of a segment: +1 per round trip, not at its end.
        let (mut v, mut p) = ns2(20);
        v.ssthresh = 2.0 * S as f64;
        for _ in 0..21 {
            p.ack(&mut v, 100.0);
        }
        let w0 = v.cwnd;
        assert!(w0 > 20.0 * S as f64, "{w0}");
        let mut grew = 0;
        for _ in 0..10 {
            let before = v.cwnd;
            p.ack(&mut v, 100.0);
            grew += (v.cwnd > before) as u32;
        }
        assert_eq!(grew, 10, "every ack adds its share");
        assert!(
            (v.cwnd - w0 - 10.0 * S as f64 / 20.0).abs() < 0.2 * S as f64,
            "{}",
            v.cwnd
        );
    }

    #[test]
    fn ns2_rules_leave_slow_start_with_a_7_8_cut_and_ssthresh_2() {
        // The RTT doubles after the first rounds: at the next growing round's end Delta > γ,
        // ns-2 cuts W by W/8 and sets ssthresh_ = 2 (tcp-vegas.cc: `cwnd_ -= cwnd_/8`).
        let (mut v, mut p) = ns2(2);
        let mut cut = None;
        for i in 0..400 {
            let rtt = if i < 12 { 100.0 } else { 200.0 };
            let before = v.cwnd;
            p.ack(&mut v, rtt);
            if v.cwnd < before {
                cut = Some((before, v.cwnd));
                break;
            }
        }
        let (before, after) = cut.expect("slow start ends");
        assert!(
            (after - (before - before / 8.0)).abs() < 1e-9,
            "{before} -> {after}"
        );
        assert_eq!(v.ssthresh(), 2 * S);
        assert!(!v.in_slow_start());
        // In slow start the window grows only in every other round: it doubled at most
        // once per two rounds before the cut (from 2 segments in 12 + a few acks).
        assert!(before <= 32.0 * S as f64, "{before}");
    }

    #[test]
    fn ns2_rules_cut_whole_segments_on_fast_retransmit_and_timeout() {
        for (w, again, want) in [(10, false, 8), (11, false, 9), (10, true, 5), (3, false, 2)] {
            let (mut v, _) = ns2(w);
            let mut c = view(1000, w * S, CaState::Open);
            c.una_retransmitted = again;
            v.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
            assert_eq!(v.cwnd(), want * S, "w {w} again {again}");
            v.on_recovery_exit(SimTime::ZERO, &view(1000, 0, CaState::Recovery));
            assert_eq!(
                (v.cwnd(), v.ssthresh()),
                (want * S, 2 * S),
                "after recovery"
            );
        }
        // Timeout: ssthresh = max(⌊W/2⌋, 2) segments, W = restart_window.
        let (mut v, _) = ns2(11);
        v.restart_window = 2.0;
        v.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(1000, 11 * S, CaState::Open),
        );
        assert_eq!((v.cwnd(), v.ssthresh()), (2 * S, 5 * S));
        assert!(v.in_slow_start());
    }

    #[test]
    fn ns2_rules_refuse_what_ns2s_vegas_has_not() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 2000,
            init_ssthresh: u64::MAX,
            ack_counting: crate::cc::AckCounting::Acks,
        };
        for bad in [
            "alt = true",
            "ss_exit_cut = true",
            "rtt_sample = \"distinguished\"",
        ] {
            let spec: VegasSpec =
                toml::from_str(&format!("rules = \"ns2\"\n{bad}")).expect("parses");
            let e = spec.build("flows.v.cc", init).expect_err("refused");
            assert!(e.field.starts_with("flows.v.cc."), "{e}");
            assert!(e.reason.contains("rules = \"ns2\""), "{e}");
        }
    }

    #[test]
    fn round_delta_compares_whole_packets_as_ns2() {
        // W = 20, BaseRTT 100 ms. RTT 103 ms: Delta 0.58 (< α: grows in P1's rule), rounded
        // 1 (holds); RTT 117 ms: Delta 2.9 → 3 (holds); RTT 121 ms: 3.47 → 3 (holds, where
        // P1's rule shrinks at 3.47 > β); RTT 122 ms: 3.61 → 4 (shrinks).
        for (rtt, exact, rounded) in [
            (103.0, 21, 20),
            (117.0, 20, 20),
            (121.0, 19, 20),
            (122.0, 19, 19),
        ] {
            for (round, want) in [(false, exact), (true, rounded)] {
                let (mut v, mut p) = linear(20);
                v.round_delta = round;
                for _ in 0..21 {
                    p.ack(&mut v, rtt);
                }
                assert_eq!(
                    v.cwnd(),
                    want * S,
                    "rtt {rtt}, round {round}: diff {}",
                    v.diff()
                );
            }
        }
    }

    #[test]
    fn decision_happens_once_per_round() {
        // Delta stays below α at RTT 101 ms, so each round adds exactly one segment. After
        // ack 21 (cwnd 21) the next round began with snd_max = 40 segments: it ends at ack
        // 41; the one after at ack 41 + 21 = 62 (cwnd 22 at its start), and so on.
        let (mut v, mut p) = linear(20);
        let mut changes = Vec::new();
        for k in 1..=90 {
            let before = v.cwnd();
            p.ack(&mut v, 101.0);
            if v.cwnd() != before {
                changes.push((k, v.cwnd() / S));
            }
        }
        assert_eq!(changes, [(21, 21), (41, 22), (62, 23), (84, 24)]);
    }

    #[test]
    fn loss_cuts_three_quarters_once_transmitted_else_half() {
        let mut v = Vegas::new(1000, 40 * S, u64::MAX, 1.0, 3.0);
        let mut c = view(1000, 40 * S, CaState::Open);
        v.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!(v.cwnd(), 30 * S);
        assert_eq!(v.ssthresh(), 30 * S);
        assert!(!v.in_slow_start());
        c.una_retransmitted = true;
        v.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!(v.cwnd(), 15 * S);
        v.on_recovery_exit(SimTime::ZERO, &view(1000, 0, CaState::Recovery));
        assert_eq!(v.cwnd(), 15 * S);
        v.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert_eq!((v.cwnd(), v.ssthresh()), (S, 7500));
        assert!(v.in_slow_start());
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_exits_above_gamma() {
        // No queue (RTT = BaseRTT = 100 ms) while the window is at most 16 segments, then
        // 120 ms: a round that began with 16 segments measures Delta = 16·20/120 = 2.67 > 1.
        let mut v = Vegas::new(1000, 2 * S, u64::MAX, 1.0, 3.0);
        let mut p = Pipe::new(&v);
        let mut at_round_end = Vec::new();
        let mut end = v.rounds.end;
        while v.in_slow_start() {
            let rtt = if v.cwnd() <= 16 * S { 100.0 } else { 120.0 };
            p.ack(&mut v, rtt);
            if v.rounds.end != end {
                end = v.rounds.end;
                at_round_end.push(v.rounds.start_cwnd as u64 / S);
            }
            assert!(at_round_end.len() < 20, "never left slow start");
        }
        // The window at each round's start: grow rounds double it, hold rounds keep it. The
        // ack that ends a hold round already grows the window (it belongs to the next, grow
        // round), so the grow round from 16 segments sees only 120 ms samples:
        // Delta = 16·20/120 = 2.67 > γ = 1, and slow start ends at the 32 it reached.
        assert_eq!(at_round_end, [2, 4, 4, 8, 8, 16, 16, 32]);
        assert_eq!(v.cwnd(), 32 * S);
        assert_eq!(v.ssthresh(), v.cwnd());
        assert!(
            (v.diff() - 16.0 * 20.0 / 120.0).abs() < 1e-9,
            "{}",
            v.diff()
        );
    }

    /// `ms` milliseconds after time zero.
    fn at(ms: u64) -> SimTime {
        SimTime(ms * crate::time::PS_PER_MS)
    }

    /// Send one segment at `t` with `snd_max − snd_una = in_flight` before it.
    fn send(v: &mut Vegas, t: u64, in_flight: u64) {
        let c = view(1000, in_flight, CaState::Open);
        v.on_send(at(t), 1000, &mut CcHeader::default(), &c);
    }

    /// An ack at `t` of the segment sent at `sent` (an original unless `retx`), after which
    /// `snd_una = una` and `in_flight` bytes are outstanding.
    fn ack_at(v: &mut Vegas, t: u64, sent: u64, una: u64, in_flight: u64, retx: bool) {
        let mut x = crate::cc::testkit::ack(S);
        x.delivered = una;
        x.sent_at = at(sent);
        x.echo_retx = retx;
        x.rtt = (!retx).then(|| at(t).since(at(sent)));
        v.on_ack(at(t), &x, &view(1000, in_flight, CaState::Open));
    }

    /// A Vegas in linear mode with window 20 segments, BaseRTT 100 ms and `rtt_sample`.
    fn linear_spec(rtt_sample: RttSample) -> Vegas {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 20 * S,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let mut v = VegasSpec {
            rtt_sample,
            ..VegasSpec::default()
        }
        .build("flows.f.cc", init)
        .unwrap();
        v.slow_start = false;
        v.rounds.base = 0.100;
        v
    }

    /// One round of a 20-segment window, segments 0..20 sent at 0 ms. Segment 0's ack
    /// (100 ms) ends the empty first round and starts one with snd_max = 20 segments, so
    /// its distinguished segment is segment 20, sent at once at 100 ms. Segments 1..=19 are
    /// acked at 125 ms (RTT 125, each sending one more segment); segment 20's ack, after
    /// `d_rtt` ms, ends the round.
    fn distinguished_round(v: &mut Vegas, d_rtt: u64) {
        for k in 0..20 {
            send(v, 0, k * S);
        }
        ack_at(v, 100, 0, S, 19 * S, false);
        send(v, 100, 19 * S); // segment 20: the distinguished one
        for k in 1..20 {
            ack_at(v, 125, 0, (k + 1) * S, 19 * S, false);
            send(v, 125, 19 * S); // segment 20 + k
        }
        assert_eq!(v.cwnd(), 20 * S, "no decision before the round ends");
        ack_at(v, 100 + d_rtt, 100, 21 * S, 19 * S, false);
    }

    #[test]
    fn distinguished_segment_rtt_decides_where_the_mean_would_not() {
        // The round's samples: 19 × 125 ms and the distinguished segment's d ms.
        // mean: (19·125 + d)/20 = 123.85 / 124.25 / 125 ms for d = 102 / 110 / 125, so
        //   Delta = 20·(mean − 100)/mean = 3.85 / 3.90 / 4.00 > β = 3: always −1;
        // distinguished: Delta = 20·(d − 100)/d = 0.39 < α (+1) / 1.82 (hold) / 4.00 (−1).
        for (d, want_mean, want_dist) in [(102, 19, 21), (110, 19, 20), (125, 19, 19)] {
            let mean = (19.0 * 125.0 + d as f64) / 20.0;
            let mut v = linear_spec(RttSample::Mean);
            distinguished_round(&mut v, d);
            assert_eq!(v.cwnd(), want_mean * S, "mean, d {d}: diff {}", v.diff());
            assert!((v.diff() - 20.0 * (mean - 100.0) / mean).abs() < 1e-9);
            assert!((v.rounds.last - mean / 1000.0).abs() < 1e-12);

            let mut v = linear_spec(RttSample::Distinguished);
            distinguished_round(&mut v, d);
            assert_eq!(
                v.cwnd(),
                want_dist * S,
                "distinguished, d {d}: diff {}",
                v.diff()
            );
            let expect = 20.0 * (d as f64 - 100.0) / d as f64;
            assert!((v.diff() - expect).abs() < 1e-9, "{} vs {expect}", v.diff());
            assert_eq!(v.rounds.last, d as f64 / 1000.0);
        }
    }

    #[test]
    fn retransmissions_are_never_distinguished_and_a_resent_one_gives_no_sample() {
        // The round starts at the ack at 100 ms (snd_una = 1, snd_max = 20 segments). A
        // retransmission leaves at 110 ms (snd_max still 20), the distinguished segment 20 at
        // 130 ms, segment 21 at 140 ms; the ack covering segment 20 arrives at 232 ms.
        let start = |v: &mut Vegas| {
            ack_at(v, 100, 0, S, 19 * S, false);
            send(v, 110, 19 * S); // retransmission: not distinguished
            send(v, 130, 19 * S); // segment 20
            send(v, 140, 20 * S); // segment 21
        };
        // From 130 ms: RTT 102 → Delta 0.39 → +1 (from the retransmission's 110 ms it would be
        // 122 → Delta 3.6 → −1).
        let mut v = linear_spec(RttSample::Distinguished);
        start(&mut v);
        ack_at(&mut v, 232, 130, 21 * S, 20 * S, false);
        assert_eq!(v.cwnd(), 21 * S);
        assert_eq!(v.rounds.last, 0.102);
        // The ack covering it was triggered by a retransmission: no sample, no decision.
        let mut v = linear_spec(RttSample::Distinguished);
        start(&mut v);
        ack_at(&mut v, 232, 131, 21 * S, 20 * S, true);
        assert_eq!(v.cwnd(), 20 * S);
        assert!(v.diff().is_nan());
        // A fast retransmit after it left (it may have been resent): no decision either.
        let mut v = linear_spec(RttSample::Distinguished);
        start(&mut v);
        let c = view(1000, 20 * S, CaState::Open);
        v.on_congestion(at(150), Congestion::FastRetransmit, &c);
        assert_eq!(v.cwnd(), 15 * S);
        ack_at(&mut v, 232, 130, 21 * S, 20 * S, false);
        assert_eq!(v.cwnd(), 15 * S);
        assert!(v.diff().is_nan());
        // ... but one before it left does not matter.
        let mut v = linear_spec(RttSample::Distinguished);
        ack_at(&mut v, 100, 0, S, 19 * S, false);
        v.on_congestion(at(120), Congestion::FastRetransmit, &c);
        send(&mut v, 130, 19 * S);
        ack_at(&mut v, 232, 130, 21 * S, 20 * S, false);
        assert_eq!(v.rounds.last, 0.102);
        assert_eq!(v.cwnd(), 16 * S, "15 + 1: Delta = 20·2/102 < α");
    }

    #[test]
    fn alt_distinguished_uses_the_forward_trip_of_the_segment_its_ack_echoes() {
        // Vegas-ALT with rtt_sample = "distinguished": forward and backward trips of 50 ms
        // for segment 0 (acked at 100 ms: BaseRTT = TF_min + TB_min = 100 ms); the
        // distinguished segment 20 leaves at 130 ms and reaches the receiver at 182 ms
        // (TF = 52), the ack leaves at once and arrives at `t4`.
        let alt_ack = |v: &mut Vegas, t4: u64, sent: u64, arrived: u64, una: u64| {
            let mut x = crate::cc::testkit::ack(S);
            x.delivered = una;
            x.sent_at = at(sent);
            x.rx_arrival = at(arrived);
            x.rx_leave = at(arrived);
            x.rtt = Some(at(t4).since(at(sent)));
            v.on_ack(at(t4), &x, &view(1000, 19 * S, CaState::Open));
        };
        let round = |t4: u64, echoed: u64| {
            let init = crate::cc::CcInit {
                mss: 1000,
                init_cwnd: 20 * S,
                init_ssthresh: u64::MAX,
                ack_counting: Default::default(),
            };
            let mut v = VegasSpec {
                alt: true,
                rtt_sample: RttSample::Distinguished,
                ..VegasSpec::default()
            }
            .build("flows.f.cc", init)
            .unwrap();
            v.slow_start = false;
            send(&mut v, 0, 0);
            alt_ack(&mut v, 100, 0, 50, S);
            assert_eq!(v.rounds.base, 0.100);
            send(&mut v, 130, 19 * S); // segment 20
            alt_ack(&mut v, t4, echoed, 182, 21 * S);
            v
        };
        // RTT_D = TF_D + TB_min = 52 + 50 = 102 ms: Delta = 20·2/102 = 0.39 < α → +1,
        // whether the ack comes back at once (t4 = 232) or after 118 ms of backward
        // queueing (plain Vegas would measure 170 ms: Delta 8.2 → −1).
        for t4 in [232, 300] {
            let v = round(t4, 130);
            assert_eq!(v.rounds.last, 0.102, "t4 {t4}");
            assert_eq!(v.cwnd(), 21 * S);
        }
        // An ack that echoes another segment (the one before it, as a delayed ack may)
        // carries no AT of the distinguished one: no sample, no decision.
        let v = round(232, 129);
        assert_eq!(v.cwnd(), 20 * S);
        assert!(v.diff().is_nan());
    }

    #[test]
    fn rtt_sample_parses_and_refuses_other_values() {
        let spec: VegasSpec =
            serde_json::from_value(serde_json::json!({ "rtt_sample": "distinguished" })).unwrap();
        assert_eq!(spec.rtt_sample, RttSample::Distinguished);
        let spec: VegasSpec = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(spec.rtt_sample, RttSample::Mean);
        let e = serde_json::from_value::<VegasSpec>(serde_json::json!({ "rtt_sample": "median" }))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown variant `median`") && e.contains("distinguished"),
            "{e}"
        );
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let e = VegasSpec {
            alpha: 4.0,
            ..VegasSpec::default()
        }
        .build("flows.f.cc", init)
        .unwrap_err();
        assert_eq!(e.field, "flows.f.cc.beta");
        let e = VegasSpec {
            gamma: f64::NAN,
            ..VegasSpec::default()
        }
        .build("flows.f.cc", init)
        .unwrap_err();
        assert_eq!(e.field, "flows.f.cc.gamma");
        let e = VegasSpec {
            restart_window: Some(0),
            ..VegasSpec::default()
        }
        .build("flows.f.cc", init)
        .unwrap_err();
        assert_eq!(e.field, "flows.f.cc.restart_window");
    }

    #[test]
    fn a_timeout_restarts_from_the_restart_window() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 10_000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        for (w, expect) in [(None, 1000.0), (Some(2), 2000.0)] {
            let mut v = VegasSpec {
                restart_window: w,
                ..VegasSpec::default()
            }
            .build("flows.f.cc", init)
            .unwrap();
            let c = crate::cc::testkit::view(1000, 10_000, CaState::Open);
            v.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
            assert_eq!(v.cwnd(), expect as u64, "{w:?}");
            assert_eq!(v.ssthresh, 5000.0);
        }
    }
}

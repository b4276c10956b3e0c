//! TCP Westwood (TCPW): eligible-rate estimation (BE, RE, CRB, ABSE), its control rule,
//! Agile Probing and PNCD; and Westwood+ as Linux implements it.
//!
//! References: seed 004 (P4), M. Y. Sanadidi's TCPW slide deck, slides "TCPW Control
//! Algorithm", "ERE Evolution: TCPW BE", "TCPW Rate Estimation (RE)", "TCPW CRB", "Better
//! E/F Profile: TCPW ABSE", "Use of ERE in Agile Probing", "Agile Probing (Aprobe)",
//! "Persistent Non-Congestion Detection (PNCD)", with our choices where the deck leaves
//! them open; S. Mascolo et al., "TCP Westwood: bandwidth estimation for
//! enhanced transport over wireless links", MobiCom 2001 (ack counting); Linux
//! `net/ipv4/tcp_westwood.c` (Westwood+, facts only).
//!
//! One algorithm `westwood` with `estimator = "be" | "re" | "crb" | "abse" | "plus"`.
//! All estimators run on every ack (each is O(1)), so the trace shows BE, RE, ABSE and
//! Westwood+ side by side; `estimator` picks the eligible rate estimate ERE the window rules
//! use. Rates are in bytes/s of acknowledged payload; S = MSS; t_k = the k-th ack's arrival.
//!
//! - d_k (M-TCPW-BE, Mascolo's AckedCount): `d = newly acked`; a duplicate ack counts
//!   `d = S` and `accounted += S`; a cumulative ack with `d > S` first pays back
//!   `accounted` (`d = S` if `accounted >= d`, else `d -= accounted`). Acks at the same
//!   instant are one sample (their d summed; the sample is recomputed, never `dt = 0`).
//! - BE (slide "ERE Evolution: TCPW BE"): `b_k = d_k/Δt_k`, `Δt_k = t_k − t_(k−1)`,
//!   `BE_k = α_k·BE_(k−1) + (1−α_k)·(b_k + b_(k−1))/2`, `α_k = (2τ − Δt_k)/(2τ + Δt_k)`,
//!   clamped to [0, 1] (Δt_k > 2τ); `BE_0 = b_0 = b_1`.
//! - BE's virtual null samples (`null_samples = m ≥ 2`, Mascolo et al., MobiCom 2001 §2.2;
//!   an option, instead of the clamp): whenever h = τ/m passes without an
//!   ack, the filter takes a sample `b = 0` with `Δt = h` (gain `α_h = (2m − 1)/(2m + 1)`,
//!   in (0, 1)). Applied lazily, with no timer: an ack a gap G after the previous sample
//!   instant first applies the n = ⌈G/h⌉ − 1 ticks strictly before it (the first one
//!   `BE ← α_h·BE + (1 − α_h)·b_(k−1)/2`, the others `BE ← α_h·BE` since their b_(k−1) is
//!   0 too: `α_h^(n−1)` in closed form, O(1) whatever the gap), then its own sample with
//!   `Δt = G − n·h` ∈ (0, h] (the time since the last sample, real or virtual) and
//!   `b = d_k/Δt`, so the samples' b·Δt still add up to the bytes acknowledged; its
//!   b_(k−1) is 0 after a virtual sample. Where ERE is read between samples (a timeout;
//!   an ECN-Echo or fast retransmit, which the transport handles before the ack's own
//!   sample), BE is brought to that instant the same way (the ticks strictly before it)
//!   without changing the state, so the next ack applies each tick once. The trace's `be_bps` shows BE at
//!   the last ack. Applies to the BE filter only, so to `estimator = "be"` and `"crb"`
//!   (refused with the others: RE's and ABSE's samples are sums over a window, which a
//!   silence does not zero, and Westwood+ has its own filters).
//! - RE (slide "TCPW Rate Estimation (RE)"): `b_k = Σ_{t_j > t_k − T} d_j / T`, same filter
//!   and gain; `T = srtt` (or `re_window`); `T = min(T, t_k − t_first)` at the start
//!   (t_first = the first ack, the ring's oldest snapshot).
//! - CRB (slide "TCPW CRB"): congested ⇔ `cwnd/(RE·RTT_min) > θ`; ERE = RE if congested,
//!   else BE.
//! - ABSE (slide "Better E/F Profile: TCPW ABSE"):
//!   `γ = (cwnd/RTT_min − Th_k)/(cwnd/RTT_min)` with Th_k = RE (T = RTT);
//!   `T_k = Δt_k` if `γ < γ_th` (0.28), else `T_k = slope·RTT·γ` clamped to [Δt_k, RTT];
//!   `S_k = Σ_{t_j > t_k − T_k} d_j / T_k` filtered with the BE filter (τ fixed).
//! - Control (slide "TCPW Control Algorithm"), for be/re/crb/abse: on 3 dupacks
//!   `ssthresh = ERE·RTT_min` (in whole segments, floor 2), `cwnd = min(cwnd, ssthresh)`;
//!   fast recovery (transport) inflates from there by 3 S plus S per further dupack
//!   (`fr_inflation = true`, default) or stays at that
//!   window (`fr_inflation = false`, Reno/NewReno recovery only: SACK recovery never
//!   inflates), and its exit restores that window; on a
//!   timeout `ssthresh = ERE·RTT_min`, `cwnd = S`. ECN-Echo (not in the deck): as 3 dupacks.
//!   RTT_min = the connection's minimum RTT sample. Otherwise NewReno.
//! - Agile Probing (slide "Agile Probing (Aprobe)"), at startup (`agile_probing`), after each
//!   timeout (`agile_probing`) and when PNCD fires: per new ack
//!   `ssthresh = max(ssthresh, ERE·RTT_min/S)` (segments), then `cwnd > ssthresh`:
//!   `cwnd += S²/cwnd`; `cwnd < ssthresh`: `cwnd += S`; equal: unchanged. Leaves on 3 dupacks
//!   (with the control action). Initial ssthresh 2 S.
//! - PNCD (our design, the deck gives no rule): every `pncd_period`
//!   rounds in congestion avoidance, the round is non-congested if
//!   `RE ≥ (1 − ε)·cwnd/RTT_min`; after `pncd_rounds` consecutive non-congested rounds enter
//!   Agile Probing with cwnd unchanged and `ssthresh = max(ssthresh, ERE·RTT_min)`. A
//!   congested round, a loss or an ECN-Echo resets the count.
//! - Westwood+ (`estimator = "plus"`, Linux): d_k as above summed over a window that closes
//!   at the first ack more than `max(RTT, 50 ms)` after it opened (RTT = the last RTT
//!   sample); sample `bk/Δ`; two cascaded filters `x ← (7x + s)/8` (the first sample fills
//!   both). RTT_min is its own, re-learned after a timeout. Window: NewReno, but a fast
//!   retransmit sets `ssthresh = max(cwnd/2, 2S)`, `cwnd = ssthresh`, and leaving recovery
//!   sets `cwnd = ssthresh = max(ERE·RTT_min/S, 2)` segments; a timeout sets
//!   `ssthresh = max(ERE·RTT_min/S, 2)`, `cwnd = S`; ECN-Echo sets both at once.
//!   `plus_rules = "ns2"`: ns-2.35's Agent/TCP/Linux around Linux 2.6.22's module
//!   (tcp/tcp-linux.cc `LinuxTcpAgent::tcp_fastretrans_alert`, `enter_loss`, `send_much`;
//!   tcp/linux/src/tcp_westwood.c): a fast retransmit (or ECN-Echo) sets
//!   `ssthresh = max(cwnd/2, 2S)` (`tcp_reno_ssthresh`) and the window target
//!   `cwnd = W = max(ERE·RTT_min/S, 2)` segments (the module's `min_cwnd`, which may
//!   exceed the old window); the flight's descent to W by one segment per two acks is the
//!   transport's (`prr = "rate_halving"`, ns-2's `next_pkts_in_flight_`, which profile
//!   `ns2` sets with these rules); leaving recovery raises a window below ssthresh to
//!   `min(ssthresh, FlightSize + 3S)` (`tcp_moderate_cwnd`; no `CA_EVENT_COMPLETE_CWR` in
//!   ns-2);
//!   a timeout sets `ssthresh = max(cwnd/2, 2S)`, `cwnd = S` and keeps RTT_min; congestion
//!   avoidance counts bytes (RFC 3465: ns-2 sets `sysctl_tcp_abc = 1`,
//!   tcp/linux/ns-linux-param.c, so `tcp_reno_cong_avoid` adds a segment once per
//!   `cwnd` bytes acknowledged, at most one per ack; the count includes the bytes acked in
//!   recovery and starts again at each loss).
//!
//! RE's "bytes acked over the last T" in O(1): a fixed ring of `RING` snapshots
//! (t, cumulative d) taken at most every T/`RING_SPAN` (so it spans ≥ 2T for the T in force
//! when taken); the bytes before t − T are read by binary search over the ring (bounded,
//! independent of the window) and linear interpolation between the two snapshots around
//! t − T. The error is at most the bytes of one snapshot gap (T/32), halved on average by
//! the interpolation. ABSE's T_k ≤ RTT uses the same ring; at `T_k = Δt_k` its sample is
//! exactly d_k/Δt_k.
//!
//! Not implemented (options): virtual null samples in RE's and ABSE's
//! filters (their gain is clamped), ABSE's adaptive τ (not in the deck), and Linux
//! Westwood+'s rate-halving / PRR descent during recovery (the transport runs NewReno
//! recovery from `cwnd/2`).

use super::{
    linux_agent_exit_cwnd, recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl,
    ConnView,
};
use crate::config::profile::Compat;
use crate::config::ScenarioError;
use crate::time::{SimDuration, SimTime};
use serde_json::Value;

/// Snapshots in the RE ring.
const RING: usize = 64;
/// Snapshot spacing = T / RING_SPAN (the ring spans RING/RING_SPAN = 2 windows).
const RING_SPAN: f64 = 32.0;
/// Westwood+'s shortest bandwidth-sampling window (Linux `TCP_WESTWOOD_RTT_MIN`), seconds.
const PLUS_MIN_WINDOW: f64 = 0.050;

fn tau() -> f64 {
    0.5
}
fn theta() -> f64 {
    1.4
}
fn gamma_th() -> f64 {
    0.28
}
fn one() -> f64 {
    1.0
}
fn eps() -> f64 {
    0.1
}
fn eight() -> u32 {
    8
}
fn one_u() -> u32 {
    1
}

/// Which estimate is the eligible rate ERE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Estimator {
    /// Bandwidth estimation: per-ack samples d_k/Δt_k (the original TCPW).
    #[default]
    Be,
    /// Rate estimation: bytes acked over the last T.
    Re,
    /// Combined: RE when the congestion measure says congested, else BE.
    Crb,
    /// Adaptive sample interval T_k from the congestion level γ.
    Abse,
    /// Westwood+ (Linux): per-RTT samples, 7/8 filters, Linux's window rules.
    Plus,
}

/// `cc = { algorithm = "westwood", estimator = "be", tau = 0.5, ... }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WestwoodSpec {
    /// "be" (default), "re", "crb", "abse" or "plus" (Westwood+ as in Linux).
    #[serde(default)]
    pub estimator: Estimator,
    /// The BE/RE/ABSE filter's time constant τ, seconds (default 0.5, our choice).
    #[serde(default = "tau")]
    pub tau: f64,
    /// RE's sample interval T, seconds; absent (default) = the smoothed RTT (§22).
    #[serde(default)]
    pub re_window: Option<f64>,
    /// CRB's threshold θ: congested when `cwnd/(RE·RTT_min) > θ` (default 1.4, §23).
    #[serde(default = "theta")]
    pub crb_theta: f64,
    /// ABSE's congestion-level threshold (default 0.28, the deck's value).
    #[serde(default = "gamma_th")]
    pub abse_threshold: f64,
    /// ABSE's map above the threshold: `T_k = abse_slope·RTT·γ` (default 1, the deck's).
    #[serde(default = "one")]
    pub abse_slope: f64,
    /// Agile Probing instead of slow start at startup and after timeouts (default false).
    #[serde(default)]
    pub agile_probing: bool,
    /// Agile Probing also grows the window on the 1st and 2nd duplicate ack (the deck's
    /// literal "else (ACK is received)"); default false.
    #[serde(default)]
    pub aprobe_grow_on_dupack: bool,
    /// Persistent Non-Congestion Detection (our rule, see the file header); default false.
    #[serde(default)]
    pub pncd: bool,
    /// PNCD: a round is non-congested if `RE >= (1 − pncd_eps)·cwnd/RTT_min` (default 0.1).
    #[serde(default = "eps")]
    pub pncd_eps: f64,
    /// PNCD: consecutive non-congested evaluations that trigger Agile Probing (default 8).
    #[serde(default = "eight")]
    pub pncd_rounds: u32,
    /// PNCD: evaluate every this many rounds (RTTs) of congestion avoidance (default 1).
    #[serde(default = "one_u")]
    pub pncd_period: u32,
    /// Fast recovery inflates the window by the duplicate acks (default true, as in
    /// RFC 5681). False: the recovery window stays at
    /// `min(cwnd, ssthresh)` (Reno/NewReno recovery; SACK recovery never inflates).
    #[serde(default = "yes")]
    pub fr_inflation: bool,
    /// `"ns2"`: ns-2.35's Agent/TCP/Linux rules, i.e. `plus_rules = "ns2"` (`estimator =
    /// "plus"` only). Profile `ns2` sets it on Westwood+.
    #[serde(default)]
    pub compat: Option<Compat>,
    /// Westwood+'s window rules (`estimator = "plus"` only): "linux" (the default without
    /// `compat`) or "ns2" (ns-2.35's Agent/TCP/Linux; the file header).
    #[serde(default)]
    pub plus_rules: Option<PlusRules>,
    /// BE's virtual null samples (Mascolo et al. 2001 §2.2): 0 (default) = off, the gain is
    /// clamped to [0, 1] after a silence longer than 2τ; m ≥ 2 = a sample b = 0 with
    /// Δt = τ/m whenever τ/m passes with no ack (estimator "be" and "crb" only).
    #[serde(default)]
    pub null_samples: u32,
}

/// Westwood+'s window rules (`plus_rules`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlusRules {
    /// Linux with `CA_EVENT_COMPLETE_CWR`: halve at the fast retransmit,
    /// `cwnd = ssthresh = ERE·RTT_min` on leaving recovery.
    #[default]
    Linux,
    /// ns-2.35's LinuxTcpAgent: `min_cwnd` at the fast retransmit (the transport's rate
    /// halving descends to it), Reno's ssthresh, no `CA_EVENT_COMPLETE_CWR`.
    Ns2,
}

fn yes() -> bool {
    true
}

impl Default for WestwoodSpec {
    fn default() -> Self {
        WestwoodSpec {
            estimator: Estimator::Be,
            tau: tau(),
            re_window: None,
            crb_theta: theta(),
            abse_threshold: gamma_th(),
            abse_slope: 1.0,
            agile_probing: false,
            aprobe_grow_on_dupack: false,
            pncd: false,
            pncd_eps: eps(),
            pncd_rounds: 8,
            pncd_period: 1,
            fr_inflation: true,
            compat: None,
            plus_rules: None,
            null_samples: 0,
        }
    }
}

fn bad(field: &str, name: &str, why: String) -> ScenarioError {
    ScenarioError::new(format!("{field}.{name}"), why)
}

fn positive(field: &str, name: &str, v: f64, unit: &str) -> Result<(), ScenarioError> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(bad(
            field,
            name,
            format!("must be a finite number > 0 ({unit}), got {v}"),
        ))
    }
}

impl WestwoodSpec {
    /// The keys profile `p` sets on a Westwood flow's `cc` table: under `ns2`, a Westwood+
    /// flow (`estimator = "plus"`) gets the window rules of ns-2.35's Agent/TCP/Linux
    /// (`compat = "ns2"`: `plus_rules = "ns2"`, see [`PlusRules::Ns2`]); the other
    /// estimators are seed 004's own and get nothing.
    pub fn profile_keys(&self, p: crate::config::profile::Profile) -> Vec<(&'static str, Value)> {
        match p {
            crate::config::profile::Profile::Ns2 if self.estimator == Estimator::Plus => {
                vec![("compat", Value::from("ns2"))]
            }
            _ => Vec::new(),
        }
    }

    /// Westwood+'s window rules: `plus_rules` where written, else `compat`'s.
    pub fn effective_plus_rules(&self) -> PlusRules {
        match (self.plus_rules, self.compat) {
            (Some(r), _) => r,
            (None, Some(Compat::Ns2)) => PlusRules::Ns2,
            (None, None) => PlusRules::Linux,
        }
    }

    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Westwood, ScenarioError> {
        positive(field, "tau", self.tau, "seconds")?;
        if self.effective_plus_rules() == PlusRules::Ns2 && self.estimator != Estimator::Plus {
            let key = if self.plus_rules.is_some() {
                "plus_rules"
            } else {
                "compat"
            };
            return Err(bad(
                field,
                key,
                "\"ns2\" applies to estimator = \"plus\" only".into(),
            ));
        }
        if let Some(t) = self.re_window {
            positive(field, "re_window", t, "seconds")?;
        }
        if !(self.crb_theta >= 1.0 && self.crb_theta.is_finite()) {
            return Err(bad(
                field,
                "crb_theta",
                format!("must be a finite number >= 1 (cwnd/(RE·RTT_min) is >= 1 without a queue), got {}", self.crb_theta),
            ));
        }
        if !(0.0..1.0).contains(&self.abse_threshold) {
            return Err(bad(
                field,
                "abse_threshold",
                format!(
                    "must be in [0, 1) (a congestion level), got {}",
                    self.abse_threshold
                ),
            ));
        }
        positive(field, "abse_slope", self.abse_slope, "a factor of RTT·γ")?;
        if !(0.0..1.0).contains(&self.pncd_eps) {
            return Err(bad(
                field,
                "pncd_eps",
                format!("must be in [0, 1), got {}", self.pncd_eps),
            ));
        }
        if self.pncd_rounds == 0 {
            return Err(bad(field, "pncd_rounds", "must be >= 1".into()));
        }
        if self.pncd_period == 0 {
            return Err(bad(field, "pncd_period", "must be >= 1".into()));
        }
        if self.null_samples == 1 {
            return Err(bad(
                field,
                "null_samples",
                "must be 0 (off: the gain is clamped) or m >= 2 (a virtual null sample every \
                 tau/m without an ack; m = 1 would make the gain 1/3 at Δt = τ, not the filter's \
                 sampling rule), got 1"
                    .into(),
            ));
        }
        if self.null_samples >= 2 {
            if !matches!(self.estimator, Estimator::Be | Estimator::Crb) {
                return Err(bad(
                    field,
                    "null_samples",
                    format!(
                        "applies to the BE filter, estimator = \"be\" or \"crb\" only, not \"{}\" \
                         (RE's and ABSE's samples are sums over a window, Westwood+ has its own filters)",
                        self.estimator.name()
                    ),
                ));
            }
            if null_step(self.tau, self.null_samples).0 < crate::time::PS_PER_NS {
                return Err(bad(
                    field,
                    "null_samples",
                    format!(
                        "tau/null_samples = {}/{} is under 1 ns",
                        self.tau, self.null_samples
                    ),
                ));
            }
        }
        Ok(Westwood::new(init, self))
    }
}

impl Estimator {
    fn name(self) -> &'static str {
        match self {
            Estimator::Be => "be",
            Estimator::Re => "re",
            Estimator::Crb => "crb",
            Estimator::Abse => "abse",
            Estimator::Plus => "plus",
        }
    }
}

/// The virtual null samples' spacing h = τ/m.
fn null_step(tau: f64, m: u32) -> SimDuration {
    SimDuration::from_secs_f64(tau / m as f64)
}

/// Virtual null ticks strictly before a gap of `gap` after the last sample, spaced `h`:
/// (n = ⌈gap/h⌉ − 1, the rest gap − n·h ∈ (0, h]); (0, gap) for a zero gap.
fn null_split(gap: SimDuration, h: SimDuration) -> (u64, SimDuration) {
    if gap.0 == 0 {
        return (0, gap);
    }
    let n = (gap.0 - 1) / h.0;
    (n, SimDuration(gap.0 - n * h.0))
}

/// The exponential filter of BE and RE (slide "ERE Evolution: TCPW BE").
#[derive(Clone, Copy, Debug, Default)]
struct Filter {
    est: f64,
    prev: f64,
    started: bool,
}

impl Filter {
    /// The gain α_k = (2τ − Δt)/(2τ + Δt), clamped to [0, 1].
    fn gain(tau: f64, dt: f64) -> f64 {
        ((2.0 * tau - dt) / (2.0 * tau + dt)).clamp(0.0, 1.0)
    }
    fn update(&mut self, b: f64, dt: f64, tau: f64) {
        if !self.started {
            *self = Filter {
                est: b,
                prev: b,
                started: true,
            };
            return;
        }
        let a = Self::gain(tau, dt);
        self.est = a * self.est + (1.0 - a) * (b + self.prev) / 2.0;
        self.prev = b;
    }
    /// The filter after `n` ≥ 1 virtual null samples spaced `h` s (closed form): the first
    /// averages 0 with the previous sample, the others have b_(k−1) = 0 as well.
    fn after_nulls(self, n: u64, h: f64, tau: f64) -> Filter {
        if n == 0 || !self.started {
            return self;
        }
        let a = Self::gain(tau, h);
        let first = a * self.est + (1.0 - a) * self.prev / 2.0;
        Filter {
            est: first * a.powf((n - 1) as f64),
            prev: 0.0,
            started: true,
        }
    }
}

/// Snapshots of the cumulative counted bytes, for sums over the last T (see the header).
#[derive(Clone, Debug)]
struct Ring {
    t: [f64; RING],
    cum: [f64; RING],
    /// Index of the oldest snapshot.
    head: usize,
    len: usize,
}

impl Ring {
    fn new() -> Self {
        Ring {
            t: [0.0; RING],
            cum: [0.0; RING],
            head: 0,
            len: 0,
        }
    }
    fn at(&self, i: usize) -> (f64, f64) {
        let k = (self.head + i) % RING;
        (self.t[k], self.cum[k])
    }
    /// Record (t, cum) if the last snapshot is at least `gap` old.
    fn record(&mut self, t: f64, cum: f64, gap: f64) {
        if self.len > 0 {
            let (lt, _) = self.at(self.len - 1);
            if t - lt < gap {
                return;
            }
        }
        if self.len == RING {
            self.head = (self.head + 1) % RING;
            self.len -= 1;
        }
        let k = (self.head + self.len) % RING;
        self.t[k] = t;
        self.cum[k] = cum;
        self.len += 1;
    }
    fn oldest(&self) -> f64 {
        self.at(0).0
    }
    /// Cumulative bytes at time `x` (≥ the oldest snapshot), linearly interpolated; `now`
    /// and `cum_now` are the current point, after the last snapshot.
    fn cum_at(&self, x: f64, now: f64, cum_now: f64) -> f64 {
        // The last snapshot at or before x (binary search over at most RING entries).
        let (mut lo, mut hi) = (0usize, self.len);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.at(mid).0 <= x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (ta, ca) = self.at(lo);
        let (tb, cb) = if lo + 1 < self.len {
            self.at(lo + 1)
        } else {
            (now, cum_now)
        };
        if tb <= ta || x <= ta {
            return ca;
        }
        ca + (cb - ca) * ((x - ta) / (tb - ta)).min(1.0)
    }
    /// Bytes counted in (now − w, now] and the width actually covered (≤ w: the ring's
    /// span and the connection's age).
    fn sum_over(&self, w: f64, now: f64, cum_now: f64) -> (f64, f64) {
        if self.len == 0 {
            return (0.0, 0.0);
        }
        let from = (now - w).max(self.oldest());
        (cum_now - self.cum_at(from, now, cum_now), now - from)
    }
}

/// The per-sample filters (saved before each new instant, so that acks arriving at the same
/// instant recompute that instant's sample instead of dividing by Δt = 0).
#[derive(Clone, Copy, Debug, Default)]
struct Filters {
    be: Filter,
    re: Filter,
    abse: Filter,
    gamma: f64,
    abse_t: f64,
}

#[derive(Clone, Debug)]
pub struct Westwood {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    /// Congestion-avoidance byte counter (one S per cwnd bytes acked).
    ca_acc: f64,
    estimator: Estimator,
    tau: f64,
    re_window: Option<f64>,
    crb_theta: f64,
    abse_threshold: f64,
    abse_slope: f64,
    agile_probing: bool,
    grow_on_dupack: bool,
    pncd: bool,
    pncd_eps: f64,
    pncd_rounds: u32,
    pncd_period: u32,
    fr_inflation: bool,
    plus_rules: PlusRules,
    /// BE's virtual null sample spacing τ/m (zero: off, the gain is clamped).
    null_h: SimDuration,
    // --- ack counting and per-instant samples
    accounted: f64,
    /// Σ d_k so far (the ring's cumulative count).
    cum: f64,
    ring: Ring,
    /// The instant of the last sample, its Δt and its (summed) d.
    at: Option<SimTime>,
    dt_last: f64,
    /// The same Δt, exact (for the virtual null ticks).
    gap_last: SimDuration,
    d_last: f64,
    before: Filters,
    f: Filters,
    // --- Westwood+
    plus_ns: f64,
    plus_est: f64,
    plus_bk: f64,
    plus_win_start: f64,
    plus_rtt: f64,
    plus_rtt_min: f64,
    plus_reset_rtt_min: bool,
    // --- control
    /// The window fast recovery started from (min(cwnd, ssthresh)), restored on exit.
    w0: f64,
    aprobe: bool,
    nc_rounds: u32,
    round_end: u64,
    round_count: u32,
    /// The connection's minimum RTT at the last ack, seconds (for the trace).
    conn_rtt_min: f64,
}

impl Westwood {
    pub fn new(init: super::CcInit, s: &WestwoodSpec) -> Self {
        let mss = init.mss as f64;
        let mut ssthresh = init.init_ssthresh as f64;
        if s.agile_probing && init.init_ssthresh == u64::MAX {
            // M-TCPW-APROBE: Aprobe only raises ssthresh, so it starts at 2 segments.
            ssthresh = 2.0 * mss;
        }
        Westwood {
            mss,
            cwnd: init.init_cwnd as f64,
            ssthresh,
            ca_acc: 0.0,
            estimator: s.estimator,
            tau: s.tau,
            re_window: s.re_window,
            crb_theta: s.crb_theta,
            abse_threshold: s.abse_threshold,
            abse_slope: s.abse_slope,
            agile_probing: s.agile_probing,
            grow_on_dupack: s.aprobe_grow_on_dupack,
            pncd: s.pncd,
            pncd_eps: s.pncd_eps,
            pncd_rounds: s.pncd_rounds,
            pncd_period: s.pncd_period,
            fr_inflation: s.fr_inflation,
            plus_rules: s.effective_plus_rules(),
            null_h: if s.null_samples >= 2 {
                null_step(s.tau, s.null_samples)
            } else {
                SimDuration::ZERO
            },
            accounted: 0.0,
            cum: 0.0,
            ring: Ring::new(),
            at: None,
            dt_last: 0.0,
            gap_last: SimDuration::ZERO,
            d_last: 0.0,
            before: Filters::default(),
            f: Filters::default(),
            plus_ns: 0.0,
            plus_est: 0.0,
            plus_bk: 0.0,
            plus_win_start: f64::NAN,
            plus_rtt: f64::NAN,
            plus_rtt_min: f64::NAN,
            plus_reset_rtt_min: true,
            w0: 0.0,
            aprobe: s.agile_probing,
            nc_rounds: 0,
            round_end: 0,
            round_count: 0,
            conn_rtt_min: f64::NAN,
        }
    }

    /// BE, bytes/s (0 before the first sample).
    pub fn be(&self) -> f64 {
        self.f.be.est
    }
    /// RE, bytes/s.
    pub fn re(&self) -> f64 {
        self.f.re.est
    }
    /// ABSE's estimate, bytes/s.
    pub fn abse(&self) -> f64 {
        self.f.abse.est
    }
    /// Westwood+'s estimate, bytes/s.
    pub fn plus(&self) -> f64 {
        self.plus_est
    }
    /// ABSE's congestion level γ of the last sample.
    pub fn gamma(&self) -> f64 {
        self.f.gamma
    }
    /// ABSE's sample interval T_k of the last sample, seconds.
    pub fn abse_interval(&self) -> f64 {
        self.f.abse_t
    }
    pub fn in_agile_probing(&self) -> bool {
        self.aprobe
    }
    pub fn nc_rounds(&self) -> u32 {
        self.nc_rounds
    }

    /// BE brought to `now` with the virtual null samples of the silence since the last
    /// sample (the ticks strictly before `now`), the state unchanged; BE itself without them.
    pub fn be_at(&self, now: SimTime) -> f64 {
        match self.at {
            Some(at) if self.null_h.0 > 0 => {
                let (n, _) = null_split(now.since(at), self.null_h);
                self.f
                    .be
                    .after_nulls(n, self.null_h.as_secs_f64(), self.tau)
                    .est
            }
            _ => self.f.be.est,
        }
    }

    /// CRB's congestion measure: `cwnd/(RE·RTT_min) > θ`.
    fn crb_says_congested(&self, rtt_min: f64) -> bool {
        self.cwnd > self.crb_theta * self.f.re.est * rtt_min
    }

    /// The eligible rate estimate ERE at `now`, bytes/s (`rtt_min` for CRB's choice).
    fn ere(&self, rtt_min: f64, now: SimTime) -> f64 {
        match self.estimator {
            Estimator::Be => self.be_at(now),
            Estimator::Re => self.f.re.est,
            Estimator::Abse => self.f.abse.est,
            Estimator::Plus => self.plus_est,
            Estimator::Crb => {
                if self.crb_says_congested(rtt_min) {
                    self.f.re.est
                } else {
                    self.be_at(now)
                }
            }
        }
    }

    /// Westwood+ with ns-2.35's Agent/TCP/Linux window rules.
    fn ns2_rules(&self) -> bool {
        self.estimator == Estimator::Plus && self.plus_rules == PlusRules::Ns2
    }

    /// The RTT_min the control uses: the connection's, or Westwood+'s own.
    fn rtt_min(&self, c: &ConnView) -> f64 {
        if self.estimator == Estimator::Plus {
            return self.plus_rtt_min;
        }
        c.min_rtt.map_or(f64::NAN, |r| r.as_secs_f64())
    }

    /// `ERE·RTT_min` in whole segments (floor 2), as bytes, at `now`.
    fn target(&self, c: &ConnView, now: SimTime) -> f64 {
        let rtt_min = self.rtt_min(c);
        let seg = (self.ere(rtt_min, now) * rtt_min / self.mss).floor();
        let seg = if seg.is_finite() { seg.max(2.0) } else { 2.0 };
        seg * self.mss
    }

    /// RE's sample interval T, seconds (NaN before an RTT is known).
    fn re_t(&self, c: &ConnView) -> f64 {
        self.re_window
            .unwrap_or_else(|| c.srtt.map_or(f64::NAN, |r| r.as_secs_f64()))
    }

    /// d_k by ack counting (M-TCPW-BE), bytes; None for an ack that counts nothing.
    fn acked_count(&mut self, ack: &AckSample) -> Option<f64> {
        let mut d = ack.newly_acked as f64;
        if ack.newly_acked == 0 {
            if !ack.dup {
                return None;
            }
            self.accounted += self.mss;
            d = self.mss;
        }
        if d > self.mss {
            if self.accounted >= d {
                self.accounted -= d;
                d = self.mss;
            } else {
                d -= self.accounted;
                self.accounted = 0.0;
            }
        }
        Some(d)
    }

    /// Recompute the samples of the current instant from the saved filters.
    fn sample(&mut self, now: f64, c: &ConnView) {
        let (dt, d) = (self.dt_last, self.d_last);
        let mut f = self.before;
        // BE: packet-pair-like per-ack samples (after the virtual null samples of a silence).
        let b = d / dt;
        if self.null_h.0 > 0 && f.be.started {
            let (n, rest) = null_split(self.gap_last, self.null_h);
            f.be = f.be.after_nulls(n, self.null_h.as_secs_f64(), self.tau);
            let r = rest.as_secs_f64();
            f.be.update(d / r, r, self.tau);
        } else {
            f.be.update(b, dt, self.tau);
        }
        // RE: bytes over the last T.
        let t = self.re_t(c);
        let w = if t.is_finite() { t } else { dt };
        let (bytes, width) = self.ring.sum_over(w, now, self.cum);
        if width > 0.0 {
            f.re.update(bytes / width, dt, self.tau);
        }
        // ABSE: the interval follows the congestion level γ = 1 − Th·RTT_min/cwnd.
        let rtt_min = c.min_rtt.map_or(f64::NAN, |r| r.as_secs_f64());
        let gamma = if f.re.started && rtt_min > 0.0 && self.cwnd > 0.0 {
            1.0 - f.re.est * rtt_min / self.cwnd
        } else {
            0.0
        };
        let rtt = c.srtt.map_or(f64::NAN, |r| r.as_secs_f64());
        let tk = if gamma < self.abse_threshold || !rtt.is_finite() {
            dt
        } else {
            (self.abse_slope * rtt * gamma.min(1.0)).clamp(dt.min(rtt), rtt.max(dt))
        };
        let s = if tk <= dt {
            b
        } else {
            let (bytes, width) = self.ring.sum_over(tk, now, self.cum);
            if width > 0.0 {
                bytes / width
            } else {
                b
            }
        };
        f.abse.update(s, dt, self.tau);
        f.gamma = gamma;
        f.abse_t = tk;
        self.f = f;
    }

    /// Westwood+: the per-RTT window and its 7/8 filters (before adding this ack's bytes).
    fn plus_on_ack(&mut self, now: f64, ack: &AckSample, d: f64) {
        if let Some(r) = ack.rtt {
            self.plus_rtt = r.as_secs_f64();
        }
        if self.plus_win_start.is_nan() {
            self.plus_win_start = now;
        }
        let delta = now - self.plus_win_start;
        if self.plus_rtt.is_finite() && delta > self.plus_rtt.max(PLUS_MIN_WINDOW) {
            let s = self.plus_bk / delta;
            if self.plus_ns == 0.0 && self.plus_est == 0.0 {
                self.plus_ns = s;
                self.plus_est = s;
            } else {
                self.plus_ns = (7.0 * self.plus_ns + s) / 8.0;
                self.plus_est = (7.0 * self.plus_est + self.plus_ns) / 8.0;
            }
            self.plus_bk = 0.0;
            self.plus_win_start = now;
        }
        self.plus_bk += d;
        if self.plus_rtt.is_finite() {
            if self.plus_reset_rtt_min || self.plus_rtt < self.plus_rtt_min {
                self.plus_rtt_min = self.plus_rtt;
            }
            self.plus_reset_rtt_min = false;
        }
    }

    fn estimate(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        let Some(d) = self.acked_count(ack) else {
            return;
        };
        let t = now.as_secs_f64();
        self.plus_on_ack(t, ack, d);
        self.cum += d;
        let gap = self.re_t(c) / RING_SPAN;
        self.ring
            .record(t, self.cum, if gap.is_finite() { gap } else { 0.0 });
        match self.at {
            None => {
                self.at = Some(now);
            }
            Some(at) if at == now => {
                if self.dt_last > 0.0 {
                    self.d_last += d;
                    self.sample(t, c);
                }
            }
            Some(at) => {
                self.before = self.f;
                self.gap_last = now.since(at);
                self.dt_last = self.gap_last.as_secs_f64();
                self.d_last = d;
                self.at = Some(now);
                self.sample(t, c);
            }
        }
    }

    /// One congestion-avoidance increment for `S` bytes acked (`S²/cwnd` per ack, exact).
    fn ca_step(&mut self) {
        self.ca_acc += self.mss;
        if self.ca_acc >= self.cwnd {
            self.ca_acc -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// PNCD, at the end of each round in congestion avoidance.
    fn pncd_round(&mut self, c: &ConnView, now: SimTime) {
        self.round_count += 1;
        if self.round_count < self.pncd_period {
            return;
        }
        self.round_count = 0;
        let rtt_min = c.min_rtt.map_or(f64::NAN, |r| r.as_secs_f64());
        if rtt_min.is_nan() || rtt_min <= 0.0 {
            return;
        }
        let expected = self.cwnd / rtt_min;
        if self.f.re.est >= (1.0 - self.pncd_eps) * expected {
            self.nc_rounds += 1;
        } else {
            self.nc_rounds = 0;
        }
        if self.nc_rounds >= self.pncd_rounds {
            self.nc_rounds = 0;
            self.aprobe = true;
            self.ssthresh = self.ssthresh.max(self.target(c, now));
        }
    }

    fn grow(&mut self, ack: &AckSample, c: &ConnView, now: SimTime) {
        if self.cwnd >= c.max_window as f64 {
            return;
        }
        if self.aprobe {
            if ack.newly_acked == 0 && !(self.grow_on_dupack && ack.dup) {
                return;
            }
            let target = self.target(c, now);
            if self.ssthresh < target {
                self.ssthresh = target;
            }
            if self.cwnd > self.ssthresh {
                self.ca_step();
            } else if self.cwnd < self.ssthresh {
                self.cwnd += self.mss;
            }
            return;
        }
        if ack.newly_acked == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += self.mss;
        } else if self.ns2_rules() {
            self.abc_step(ack.newly_acked as f64);
        } else {
            self.ca_step();
        }
    }

    /// ns-2.35's Agent/TCP/Linux counts bytes in congestion avoidance (RFC 3465, its
    /// `sysctl_tcp_abc = 1` in tcp/linux/ns-linux-param.c; Linux 2.6.22's
    /// `tcp_reno_cong_avoid`, which Westwood+ uses): the byte counter gains every byte an
    /// ack newly acknowledges, and one segment is added per window of bytes, at most one per
    /// ack. One segment per round trip whatever the receiver's ack ratio.
    fn abc_step(&mut self, acked: f64) {
        self.ca_acc += acked;
        if self.ca_acc >= self.cwnd {
            self.ca_acc -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// The deck's 3-dupack action (also ECN-Echo): `ssthresh = ERE·RTT_min`,
    /// `cwnd = min(cwnd, ssthresh)`.
    fn cut(&mut self, c: &ConnView, now: SimTime) {
        self.ssthresh = self.target(c, now);
        self.cwnd = self.cwnd.min(self.ssthresh);
        self.w0 = self.cwnd;
    }
}

/// Trace columns (see `trace_values`).
const TRACE: &[&str] = &[
    "be_bps",
    "re_bps",
    "abse_bps",
    "plus_bps",
    "ere_bps",
    "gamma",
    "abse_t_s",
    "aprobe",
    "nc_rounds",
    "rtt_min_s",
];

impl CongestionControl for Westwood {
    fn recovery_inflation(&self) -> bool {
        self.fr_inflation
    }
    fn name(&self) -> &'static str {
        match self.estimator {
            Estimator::Be => "westwood",
            Estimator::Re => "westwood-re",
            Estimator::Crb => "westwood-crb",
            Estimator::Abse => "westwood-abse",
            Estimator::Plus => "westwood+",
        }
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    /// Estimates in bit/s of acknowledged payload: `be_bps`, `re_bps`, `abse_bps`,
    /// `plus_bps`, and `ere_bps` (the one in use; CRB's current choice); ABSE's `gamma` and
    /// `abse_t_s` (T_k, s); `aprobe` (1 in Agile Probing); `nc_rounds` (PNCD's count);
    /// `rtt_min_s` (the RTT_min of `ssthresh = ERE·RTT_min`, s).
    fn trace_names(&self) -> &'static [&'static str] {
        TRACE
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = 8.0 * self.f.be.est;
        out[1] = 8.0 * self.f.re.est;
        out[2] = 8.0 * self.f.abse.est;
        out[3] = 8.0 * self.plus_est;
        let rtt_min = if self.estimator == Estimator::Plus {
            self.plus_rtt_min
        } else {
            self.conn_rtt_min
        };
        out[4] = 8.0 * self.ere(rtt_min, self.at.unwrap_or(SimTime::ZERO));
        out[5] = self.f.gamma;
        out[6] = self.f.abse_t;
        out[7] = if self.aprobe { 1.0 } else { 0.0 };
        out[8] = self.nc_rounds as f64;
        out[9] = rtt_min;
    }
    fn on_ack(&mut self, now: SimTime, ack: &AckSample, c: &ConnView) {
        if let Some(r) = c.min_rtt {
            self.conn_rtt_min = r.as_secs_f64();
        }
        self.estimate(now, ack, c);
        if ack.delivered > self.round_end {
            self.round_end = ack.delivered + c.in_flight;
            if self.pncd && !self.aprobe && c.state == CaState::Open && self.cwnd >= self.ssthresh {
                self.pncd_round(c, now);
            }
        }
        if c.state == CaState::Recovery {
            if self.ns2_rules() {
                // LinuxTcpAgent::recv adds every newly acked byte to `bytes_acked`, in
                // recovery too (it is cleared when recovery begins, not when it ends).
                self.ca_acc += ack.newly_acked as f64;
            }
            return;
        }
        self.grow(ack, c, now);
    }
    fn on_congestion(&mut self, now: SimTime, why: Congestion, c: &ConnView) {
        self.ca_acc = 0.0;
        self.nc_rounds = 0;
        self.round_count = 0;
        if self.ns2_rules() {
            self.ssthresh = (self.cwnd / 2.0).max(2.0 * self.mss);
            match why {
                Congestion::FastRetransmit | Congestion::Ecn => {
                    // snd_cwnd = min_cwnd; the flight's descent to it is the transport's
                    // rate halving (`prr = "rate_halving"`).
                    self.cwnd = self.target(c, now);
                    self.w0 = self.cwnd;
                }
                Congestion::Timeout => {
                    self.cwnd = self.mss;
                }
            }
            self.aprobe = why == Congestion::Timeout && self.agile_probing;
            return;
        }
        if self.estimator == Estimator::Plus {
            match why {
                Congestion::FastRetransmit => {
                    self.ssthresh = (self.cwnd / 2.0).max(2.0 * self.mss);
                    self.cwnd = self.ssthresh;
                    self.w0 = self.cwnd;
                }
                Congestion::Ecn => {
                    self.ssthresh = self.target(c, now);
                    self.cwnd = self.ssthresh;
                }
                Congestion::Timeout => {
                    self.ssthresh = self.target(c, now);
                    self.cwnd = self.mss;
                    self.plus_reset_rtt_min = true;
                }
            }
            self.aprobe = why == Congestion::Timeout && self.agile_probing;
            return;
        }
        match why {
            Congestion::FastRetransmit | Congestion::Ecn => {
                self.cut(c, now);
                self.aprobe = false;
            }
            Congestion::Timeout => {
                self.ssthresh = self.target(c, now);
                self.cwnd = self.mss;
                self.aprobe = self.agile_probing;
            }
        }
    }
    fn on_recovery_exit(&mut self, now: SimTime, c: &ConnView) {
        if self.ns2_rules() {
            self.cwnd = linux_agent_exit_cwnd(self.cwnd, self.ssthresh, c);
        } else if self.estimator == Estimator::Plus {
            self.ssthresh = self.target(c, now);
            self.cwnd = self.ssthresh;
        } else {
            self.cwnd = recovery_exit_cwnd(self.w0 as u64, c) as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};
    use crate::cc::CcInit;
    use crate::time::SimDuration;

    const S: u64 = 1000;

    fn ww(spec: WestwoodSpec, cwnd_seg: u64) -> Westwood {
        let init = CcInit {
            mss: 1000,
            init_cwnd: cwnd_seg * S,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        spec.build("flows.f.cc", init).unwrap()
    }

    fn ms(x: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(x / 1000.0)
    }

    /// A view with RTT_min and srtt (ms).
    fn cv(in_flight: u64, rtt_min: f64, srtt: f64) -> ConnView {
        let mut c = view(1000, in_flight, CaState::Open);
        c.min_rtt = Some(SimDuration::from_secs_f64(rtt_min / 1000.0));
        c.srtt = Some(SimDuration::from_secs_f64(srtt / 1000.0));
        c
    }

    /// Feeds acks of `bytes` each at the given times (ms); `delivered` counts up.
    struct Feed {
        delivered: u64,
    }
    impl Feed {
        fn ack(&mut self, w: &mut Westwood, t_ms: f64, bytes: u64, c: &ConnView) {
            self.delivered += bytes;
            let mut a = ack(bytes);
            a.delivered = self.delivered;
            a.rtt = c.srtt;
            w.on_ack(ms(t_ms), &a, c);
        }
    }

    #[test]
    fn be_filter_uses_gain_two_tau_minus_dt_over_two_tau_plus_dt() {
        let mut w = ww(WestwoodSpec::default(), 10);
        let c = cv(10 * S, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        // Acks of 1000 B every 1 ms: b = 10⁶ B/s; the first sample sets BE_0 = b_0 = b_1.
        f.ack(&mut w, 0.0, S, &c);
        assert_eq!(w.be(), 0.0, "no sample before a second instant");
        f.ack(&mut w, 1.0, S, &c);
        assert!((w.be() - 1e6).abs() < 1e-6, "{}", w.be());
        f.ack(&mut w, 2.0, S, &c);
        assert!((w.be() - 1e6).abs() < 1e-6);
        // Next ack 4 ms later: b_k = 250 000, Δt = 0.004, α = (1 − 0.004)/(1 + 0.004).
        f.ack(&mut w, 6.0, S, &c);
        let a = (1.0 - 0.004) / (1.0 + 0.004);
        let want = a * 1e6 + (1.0 - a) * (250_000.0 + 1e6) / 2.0;
        assert!((w.be() - want).abs() < 1e-6, "{} vs {want}", w.be());
        // Then 1 ms again: b_(k−1) = 250 000 enters the average.
        f.ack(&mut w, 7.0, S, &c);
        let a1 = (1.0 - 0.001) / (1.0 + 0.001);
        let want2 = a1 * want + (1.0 - a1) * (1e6 + 250_000.0) / 2.0;
        assert!((w.be() - want2).abs() < 1e-6);
        // A gap longer than 2τ makes the gain negative: clamped to 0, BE = the mean of the
        // last two samples.
        f.ack(&mut w, 1507.0, S, &c);
        assert!(
            (w.be() - (1e6 + 1000.0 / 1.5) / 2.0).abs() < 1e-6,
            "{}",
            w.be()
        );
    }

    /// Mascolo's virtual null samples (`null_samples = 2`, τ = 0.5 s: h = 0.25 s,
    /// α_h = (1 − 0.25)/(1 + 0.25) = 0.6) against the default clamp, by hand.
    #[test]
    fn be_virtual_null_samples_during_a_silence() {
        let nulls = WestwoodSpec {
            null_samples: 2,
            ..WestwoodSpec::default()
        };
        let c = cv(10 * S, 100.0, 100.0);
        let start = |spec: WestwoodSpec| {
            let mut w = ww(spec, 10);
            let mut f = Feed { delivered: 0 };
            // BE = b_(k−1) = 10⁶ B/s.
            for t in [0.0, 1.0, 2.0] {
                f.ack(&mut w, t, S, &c);
            }
            assert!((w.be() - 1e6).abs() < 1e-6);
            (w, f)
        };
        let (mut w, mut f) = start(nulls.clone());
        // Read between acks, 600 ms after the last: ticks at 250 and 500 ms. The first
        // averages 0 with b_(k−1): 0.6·10⁶ + 0.4·(0 + 10⁶)/2 = 800 000; the second
        // 0.6·800 000 = 480 000 (b_(k−1) = 0 now). The state is not changed.
        assert!((w.be_at(ms(602.0)) - 480_000.0).abs() < 1e-6);
        assert!((w.be_at(ms(2.0)) - 1e6).abs() < 1e-6, "no tick at the ack");
        assert!(
            (w.be_at(ms(252.0)) - 1e6).abs() < 1e-6,
            "a tick at exactly h is not before"
        );
        assert!((w.be_at(ms(252.001)) - 800_000.0).abs() < 1e-6);
        assert!((w.be() - 1e6).abs() < 1e-6);
        // An ack 875 ms = 3.5 h after the last: 3 null ticks (800 000, 480 000, 288 000),
        // then the real sample over the remaining 125 ms: b = 1000/0.125 = 8000 B/s,
        // α = (1 − 0.125)/(1 + 0.125) = 7/9, averaged with b_(k−1) = 0:
        // 7/9·288 000 + 2/9·(8000 + 0)/2 = 224 888.9.
        f.ack(&mut w, 877.0, S, &c);
        let want = 7.0 / 9.0 * 288_000.0 + 2.0 / 9.0 * 4000.0;
        assert!((w.be() - want).abs() < 1e-6, "{} vs {want}", w.be());
        // The default clamp on the same acks: Δt = 0.875, α = 0.125/1.875 = 1/15,
        // b = 1000/0.875: 1/15·10⁶ + 14/15·(1142.857 + 10⁶)/2 = 533 866.7.
        let (mut d, mut g) = start(WestwoodSpec::default());
        g.ack(&mut d, 877.0, S, &c);
        let clamp = 1e6 / 15.0 + 14.0 / 15.0 * (1000.0 / 0.875 + 1e6) / 2.0;
        assert!((d.be() - clamp).abs() < 1e-6, "{} vs {clamp}", d.be());
        // One more ack 1 ms later (no tick): b_(k−1) is the real sample's 8000 B/s.
        f.ack(&mut w, 878.0, S, &c);
        g.ack(&mut d, 878.0, S, &c);
        let a = 0.999 / 1.001;
        let want2 = a * want + (1.0 - a) * (1e6 + 8000.0) / 2.0;
        assert!((w.be() - want2).abs() < 1e-6, "{} vs {want2}", w.be());
        let clamp2 = a * clamp + (1.0 - a) * (1e6 + 1000.0 / 0.875) / 2.0;
        assert!((d.be() - clamp2).abs() < 1e-6);
        // A gap of exactly 2h: one tick (at h), the real sample over the other h.
        let (mut e, mut h) = start(nulls.clone());
        h.ack(&mut e, 502.0, S, &c);
        let want3 = 0.6 * 800_000.0 + 0.4 * (4000.0 + 0.0) / 2.0;
        assert!((e.be() - want3).abs() < 1e-6, "{} vs {want3}", e.be());
        // A silence of 1000 s = 4000 h: 3999 ticks in closed form (800 000·0.6^3998 ≈ 0),
        // then the real sample over the last h: 0.4·(1000/0.25 + 0)/2 = 800.
        let (mut l, mut k) = start(nulls);
        k.ack(&mut l, 1_000_002.0, S, &c);
        assert!((l.be() - 800.0).abs() < 1e-6, "{}", l.be());
    }

    /// The estimate read at a timeout (no ack since) includes the virtual samples of the
    /// silence, and the next ack applies them once.
    #[test]
    fn null_samples_bring_ere_up_to_date_at_a_timeout() {
        let c = cv(10 * S, 100.0, 100.0);
        for (m, want_ss) in [(0, 100), (2, 48)] {
            let mut w = ww(
                WestwoodSpec {
                    null_samples: m,
                    ..WestwoodSpec::default()
                },
                10,
            );
            let mut f = Feed { delivered: 0 };
            for t in [0.0, 1.0, 2.0] {
                f.ack(&mut w, t, S, &c);
            }
            // 600 ms of silence: BE 10⁶ (clamp, untouched) or 480 000 B/s; RTT_min 0.1 s.
            w.on_congestion(ms(602.0), Congestion::Timeout, &c);
            assert_eq!((w.ssthresh(), w.cwnd()), (want_ss * S, S), "m = {m}");
            f.ack(&mut w, 877.0, S, &c);
            if m == 2 {
                let want = 7.0 / 9.0 * 288_000.0 + 2.0 / 9.0 * 4000.0;
                assert!((w.be() - want).abs() < 1e-6, "{} vs {want}", w.be());
            }
        }
        // CRB takes the key (its ERE is BE when not congested); RE, ABSE, Westwood+ refuse
        // it; m = 1 is refused.
        let init = CcInit {
            mss: 1000,
            init_cwnd: S,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let spec = |estimator, m| WestwoodSpec {
            estimator,
            null_samples: m,
            ..WestwoodSpec::default()
        };
        assert!(spec(Estimator::Crb, 4).build("flows.f.cc", init).is_ok());
        assert!(spec(Estimator::Re, 0).build("flows.f.cc", init).is_ok());
        for (est, m) in [
            (Estimator::Re, 2),
            (Estimator::Abse, 2),
            (Estimator::Plus, 3),
            (Estimator::Be, 1),
        ] {
            let e = spec(est, m).build("flows.f.cc", init).unwrap_err();
            assert_eq!(e.field, "flows.f.cc.null_samples", "{}", e.reason);
        }
        let e = WestwoodSpec {
            tau: 1e-9,
            null_samples: 4,
            ..WestwoodSpec::default()
        }
        .build("flows.f.cc", init)
        .unwrap_err();
        assert!(e.reason.contains("under 1 ns"), "{}", e.reason);
    }

    #[test]
    fn be_converges_to_the_ack_rate_with_time_constant_tau() {
        let mut w = ww(WestwoodSpec::default(), 10);
        let c = cv(10 * S, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        for k in 0..=100 {
            f.ack(&mut w, k as f64, S, &c); // 10⁶ B/s
        }
        // Switch to 2 ms spacing (5·10⁵ B/s): after τ = 0.5 s the error has decayed to
        // about e⁻¹ of the step, after 5τ to under 1 %.
        let t0 = 100.0;
        let mut t = t0;
        while t < t0 + 500.0 {
            t += 2.0;
            f.ack(&mut w, t, S, &c);
        }
        let frac = (w.be() - 5e5) / 5e5;
        assert!((0.30..0.42).contains(&frac), "after τ: {frac}");
        while t < t0 + 2500.0 {
            t += 2.0;
            f.ack(&mut w, t, S, &c);
        }
        assert!(((w.be() - 5e5) / 5e5).abs() < 0.01, "{}", w.be());
    }

    #[test]
    fn same_instant_acks_are_one_sample_and_dupacks_are_counted_once() {
        let c = cv(10 * S, 100.0, 100.0);
        let (mut a, mut b) = (
            ww(WestwoodSpec::default(), 10),
            ww(WestwoodSpec::default(), 10),
        );
        let (mut fa, mut fb) = (Feed { delivered: 0 }, Feed { delivered: 0 });
        for t in [0.0, 1.0, 2.0] {
            fa.ack(&mut a, t, S, &c);
            fb.ack(&mut b, t, S, &c);
        }
        // Two acks at 3 ms on one side, one ack of 2000 B on the other.
        fa.ack(&mut a, 3.0, S, &c);
        fa.ack(&mut a, 3.0, S, &c);
        // A 2000-B ack is a delayed ack: counts 2000 (nothing accounted yet).
        fb.ack(&mut b, 3.0, 2 * S, &c);
        assert!((a.be() - b.be()).abs() < 1e-9, "{} {}", a.be(), b.be());
        assert!(a.be().is_finite() && a.be() > 1e6);
        // Ack counting: three dupacks count S each (accounted 3S), then the cumulative ack
        // of 4S counts only 4S − 3S = S.
        let before = a.cum;
        for t in [4.0, 5.0, 6.0] {
            let mut d = ack(0);
            d.delivered = fa.delivered;
            a.on_ack(ms(t), &d, &c);
        }
        assert_eq!(a.cum - before, 3000.0);
        fa.ack(&mut a, 7.0, 4 * S, &c);
        assert_eq!(a.cum - before, 4000.0);
        assert_eq!(a.accounted, 0.0);
    }

    #[test]
    fn re_counts_the_bytes_of_the_last_t() {
        let spec = WestwoodSpec {
            re_window: Some(0.1),
            ..WestwoodSpec::default()
        };
        let mut w = ww(spec, 10);
        let c = cv(10 * S, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        // 1 ms spacing for 1 s, then 2 ms: the RE sample (T = 100 ms) halves within T,
        // BE's samples at once.
        let mut t = 0.0;
        while t < 1000.0 {
            f.ack(&mut w, t, S, &c);
            t += 1.0;
        }
        assert!((w.re() - 1e6).abs() / 1e6 < 0.01, "{}", w.re());
        t += 1.0;
        while t < 1050.0 {
            f.ack(&mut w, t, S, &c);
            t += 2.0;
        }
        // Half the window at each rate: 50 + 25 acks of 1000 B over 100 ms.
        let (bytes, width) = w.ring.sum_over(0.1, (t - 2.0) / 1000.0, w.cum);
        assert!((width - 0.1).abs() < 1e-12);
        assert!((bytes - 75_000.0).abs() <= 1000.0, "{bytes}");
        // First RTT: T is cut to the connection's age.
        let mut y = ww(WestwoodSpec::default(), 10);
        let mut g = Feed { delivered: 0 };
        for k in 0..10 {
            g.ack(&mut y, k as f64, S, &c);
        }
        // 9 ms old, 9 acks after the first: 9000 B / 9 ms.
        assert!((y.re() - 1e6).abs() / 1e6 < 0.02, "{}", y.re());
    }

    #[test]
    fn crb_uses_re_when_congested_else_be() {
        // cwnd 40 segments, RTT_min 100 ms. RE·RTT_min = 20 segments: 40/20 = 2 > 1.4,
        // congested: ERE = RE. RE·RTT_min = 35: 40/35 = 1.14: ERE = BE (50 segments).
        for (re_seg, want_ss, want_cwnd) in [(20.0, 20, 20), (35.0, 50, 40)] {
            let spec = WestwoodSpec {
                estimator: Estimator::Crb,
                ..WestwoodSpec::default()
            };
            let mut w = ww(spec, 40);
            w.f.re.est = re_seg * 1000.0 / 0.1;
            w.f.be.est = 50.0 * 1000.0 / 0.1;
            let c = cv(40 * S, 100.0, 120.0);
            w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
            assert_eq!(w.ssthresh(), want_ss * S, "RE {re_seg}");
            assert_eq!(w.cwnd(), want_cwnd * S);
            let mut x = view(1000, 0, CaState::Recovery);
            x.min_rtt = c.min_rtt;
            w.on_recovery_exit(SimTime::ZERO, &x);
            assert_eq!(w.cwnd(), want_cwnd * S, "exit restores min(cwnd, ssthresh)");
        }
    }

    #[test]
    fn abse_interval_follows_the_congestion_level() {
        let spec = WestwoodSpec {
            estimator: Estimator::Abse,
            ..WestwoodSpec::default()
        };
        // cwnd 40 segments, RTT_min 100 ms: expected 400 000 B/s.
        let c = cv(40 * S, 100.0, 200.0);
        for (th, nominal) in [(380_000.0, 0.05), (200_000.0, 0.5), (-1.0, 1.0)] {
            let mut w = ww(spec.clone(), 40);
            let mut f = Feed { delivered: 0 };
            f.ack(&mut w, 0.0, S, &c);
            w.f.re = Filter {
                est: th,
                prev: th,
                started: true,
            };
            w.f.abse = w.f.re;
            f.ack(&mut w, 1.0, S, &c);
            // γ = 1 − Th·RTT_min/cwnd with this ack's RE (the first ack grew cwnd to 41 S
            // in slow start).
            let g = w.gamma();
            let want = 1.0 - w.re() * 0.1 / 41_000.0;
            assert!((g - want).abs() < 1e-12, "Th {th}: γ {g} vs {want}");
            assert!((g - nominal).abs() < 0.1, "Th {th}: γ {g}");
            let tk = w.abse_interval();
            if g < 0.28 {
                assert!(
                    (tk - 0.001).abs() < 1e-12,
                    "BE-like: one inter-ack interval, {tk}"
                );
            } else {
                // RTT·γ with RTT = srtt = 200 ms, clamped to RTT.
                let want = (0.2 * g).min(0.2);
                assert!((tk - want).abs() < 1e-9, "γ {g}: T_k {tk}");
            }
        }
    }

    /// Agile Probing driver: acks at one instant, so the estimators stay as set.
    fn aprobe_ack(w: &mut Westwood, f: &mut Feed, c: &ConnView) {
        f.delivered += S;
        let mut a = ack(S);
        a.delivered = f.delivered;
        w.on_ack(SimTime::ZERO, &a, c);
    }

    #[test]
    fn agile_probing_ramps_exponentially_to_ere_then_linearly_and_exits_on_three_dupacks() {
        let spec = WestwoodSpec {
            agile_probing: true,
            ..WestwoodSpec::default()
        };
        let mut w = ww(spec, 2);
        assert!(w.in_agile_probing());
        assert_eq!(w.ssthresh(), 2 * S, "initial ssthresh 2 segments");
        let c = cv(0, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        // ERE = 30 segments per RTT_min.
        w.f.be.est = 30.0 * 1000.0 / 0.1;
        w.f.be.started = true;
        aprobe_ack(&mut w, &mut f, &c);
        assert_eq!(w.ssthresh(), 30 * S, "raised to ERE·RTT_min");
        assert_eq!(w.cwnd(), 3 * S, "mini exponential: +1 per ack");
        for _ in 0..27 {
            aprobe_ack(&mut w, &mut f, &c);
        }
        assert_eq!(w.cwnd(), 30 * S);
        // cwnd == ssthresh: no growth while ERE stays (the pseudocode's literal hold).
        for _ in 0..100 {
            aprobe_ack(&mut w, &mut f, &c);
        }
        assert_eq!(w.cwnd(), 30 * S);
        // ERE rises to 40 segments: exponential again up to 40; then ERE falls to 20 and
        // ssthresh stays (Aprobe only raises it), cwnd 40 > 40? no: equal, hold.
        w.f.be.est = 40.0 * 1000.0 / 0.1;
        for _ in 0..10 {
            aprobe_ack(&mut w, &mut f, &c);
        }
        assert_eq!((w.cwnd(), w.ssthresh()), (40 * S, 40 * S));
        // Above ssthresh (a PNCD entry can leave cwnd there): mini linear, +1 per window.
        w.cwnd = 50.0 * 1000.0;
        for _ in 0..50 {
            aprobe_ack(&mut w, &mut f, &c);
        }
        assert_eq!(w.cwnd(), 51 * S);
        // Three dupacks: leave Aprobe with the control action, ssthresh = ERE·RTT_min.
        w.f.be.est = 20.0 * 1000.0 / 0.1;
        w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert!(!w.in_agile_probing());
        assert_eq!((w.cwnd(), w.ssthresh()), (20 * S, 20 * S));
        // A timeout restarts Aprobe from one segment.
        w.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert!(w.in_agile_probing());
        assert_eq!((w.cwnd(), w.ssthresh()), (S, 20 * S));
        // Dupacks do not grow the window (default), nor without agile probing by default.
        let mut d = ack(0);
        d.delivered = f.delivered;
        w.on_ack(SimTime::ZERO, &d, &c);
        assert_eq!(w.cwnd(), S);
    }

    #[test]
    fn control_sets_ssthresh_to_ere_times_rtt_min_in_segments() {
        let mut w = ww(WestwoodSpec::default(), 60);
        // BE = 2.5 Mb/s = 312 500 B/s, RTT_min 100 ms: 31.25 → 31 segments.
        w.f.be.est = 312_500.0;
        let c = cv(60 * S, 100.0, 150.0);
        w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!((w.ssthresh(), w.cwnd()), (31 * S, 31 * S));
        // cwnd below ERE·RTT_min is not raised.
        let mut w = ww(WestwoodSpec::default(), 10);
        w.f.be.est = 312_500.0;
        w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!((w.ssthresh(), w.cwnd()), (31 * S, 10 * S));
        w.on_recovery_exit(SimTime::ZERO, &c);
        assert_eq!(w.cwnd(), 10 * S);
        // Timeout: ssthresh = ERE·RTT_min, cwnd = 1; no estimate: floor 2 segments.
        w.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert_eq!((w.ssthresh(), w.cwnd()), (31 * S, S));
        let mut z = ww(WestwoodSpec::default(), 10);
        z.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert_eq!(z.ssthresh(), 2 * S);
    }

    #[test]
    fn pncd_invokes_agile_probing_after_m_non_congested_rounds_and_again_after_a_loss() {
        let spec = WestwoodSpec {
            pncd: true,
            ..WestwoodSpec::default()
        };
        // Congestion avoidance at 20 segments; acks at one instant keep RE as set.
        let run = |re: f64| {
            let mut w = ww(spec.clone(), 20);
            w.ssthresh = 10.0 * 1000.0;
            w.f.re.est = re;
            let mut c = cv(20 * S, 100.0, 100.0);
            c.max_window = 20 * S; // cwnd stays at 20 segments
            let mut f = Feed { delivered: 0 };
            let mut entered_at = Vec::new();
            for k in 1..=400 {
                aprobe_ack(&mut w, &mut f, &c);
                if w.in_agile_probing() {
                    entered_at.push(k);
                    w.aprobe = false; // re-arm to see the next invocation
                    if entered_at.len() == 1 {
                        w.on_congestion(SimTime::ZERO, Congestion::Ecn, &c);
                        w.cwnd = 20.0 * 1000.0;
                    }
                }
            }
            (entered_at, w)
        };
        // expected = 20 S / 0.1 s = 200 000 B/s. RE 190 000 ≥ 0.9·expected: non-congested.
        let (at, w) = run(190_000.0);
        assert!(at.len() >= 2, "{at:?}");
        // A round ends at the first ack with delivered > delivered + in_flight at its start:
        // acks 1, 22, 43, ... (21 apart); the eighth evaluation is at 1 + 7·21 = 148.
        assert_eq!(at[0], 148, "{at:?}");
        // After the ECN-Echo resets the count, eight more rounds re-invoke it.
        assert_eq!(at[1] - at[0], 8 * 21, "{at:?}");
        assert!(w.ssthresh() >= 2 * S);
        // RE 150 000 < 0.9·expected: congested rounds never invoke it.
        let (at, _) = run(150_000.0);
        assert!(at.is_empty(), "{at:?}");
    }

    #[test]
    fn westwood_plus_samples_once_per_rtt_with_seven_eighths_filters() {
        let spec = WestwoodSpec {
            estimator: Estimator::Plus,
            ..WestwoodSpec::default()
        };
        let mut w = ww(spec, 10);
        let c = cv(10 * S, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        // 1 ack of 1000 B per ms, RTT sample 100 ms: the window opens at 0 and closes at
        // the first ack more than 100 ms later (101 ms) with the bytes of acks 0..=100.
        for k in 0..=100 {
            f.ack(&mut w, k as f64, S, &c);
        }
        assert_eq!(w.plus(), 0.0, "no sample within the first RTT");
        f.ack(&mut w, 101.0, S, &c);
        let s1 = 101_000.0 / 0.101;
        assert!(
            (w.plus() - s1).abs() < 1e-6,
            "first sample fills the filter"
        );
        // Next window: acks 101..=201 (101 acks) over 101 ms, then halve the rate.
        for k in 102..=202 {
            f.ack(&mut w, k as f64, S, &c);
        }
        let s2 = 101_000.0 / 0.101;
        assert!((w.plus() - s2).abs() < 1e-6);
        let mut t = 202.0;
        for _ in 0..51 {
            t += 2.0;
            f.ack(&mut w, t, S, &c);
        }
        // The window of acks 202..=302 (51 acks at 2 ms after 202) closes at 304 ms.
        let s3 = 51_000.0 / 0.102;
        let ns = (7.0 * s1 + s3) / 8.0;
        let est = (7.0 * s1 + ns) / 8.0;
        assert!((w.plus() - est).abs() < 1e-6, "{} vs {est}", w.plus());
        // Leaving recovery: cwnd = ssthresh = plus·RTT_min / S.
        let before = w.cwnd();
        w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!(w.cwnd(), before / 2, "Linux: cwnd/2 at the fast retransmit");
        w.on_recovery_exit(SimTime::ZERO, &c);
        let want = (est * 0.1 / 1000.0).floor() as u64 * S;
        assert_eq!((w.cwnd(), w.ssthresh()), (want, want));
    }

    /// `plus_rules = "ns2"` (ns-2.35's Agent/TCP/Linux): at a fast retransmit ssthresh is
    /// Reno's half and the window goes to max(ERE·RTT_min, 2) segments even above the old
    /// window; leaving recovery keeps max(that, ssthresh); a timeout halves ssthresh.
    #[test]
    fn westwood_plus_ns2_rules() {
        let spec = WestwoodSpec {
            estimator: Estimator::Plus,
            plus_rules: Some(PlusRules::Ns2),
            ..WestwoodSpec::default()
        };
        let mut w = ww(spec.clone(), 40);
        let c = cv(40 * S, 100.0, 100.0);
        let mut f = Feed { delivered: 0 };
        for k in 0..=101 {
            f.ack(&mut w, k as f64, S, &c);
        }
        // One sample of 101 000 B in 0.101 s: 10^6 B/s; times RTT_min 0.1 s = 100 segments.
        assert!((w.plus() - 1e6).abs() < 1e-6);
        assert_eq!(w.cwnd(), 142 * S, "slow start grew it by one per ack");
        w.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!(w.ssthresh(), 71 * S, "tcp_reno_ssthresh: cwnd/2");
        assert_eq!(
            w.cwnd(),
            100 * S,
            "min_cwnd = BWE·RTT_min, above the old window"
        );
        w.on_recovery_exit(SimTime::ZERO, &c);
        assert_eq!(
            (w.cwnd(), w.ssthresh()),
            (100 * S, 71 * S),
            "no COMPLETE_CWR"
        );
        w.on_congestion(SimTime::ZERO, Congestion::Timeout, &c);
        assert_eq!((w.cwnd(), w.ssthresh()), (S, 50 * S));
        // Linux's rules on the same samples: halve, then cwnd = ssthresh = 100 segments.
        let mut l = ww(
            WestwoodSpec {
                plus_rules: Some(PlusRules::Linux),
                ..spec.clone()
            },
            40,
        );
        let mut f = Feed { delivered: 0 };
        for k in 0..=101 {
            f.ack(&mut l, k as f64, S, &c);
        }
        l.on_congestion(SimTime::ZERO, Congestion::FastRetransmit, &c);
        assert_eq!(l.cwnd(), 71 * S);
        l.on_recovery_exit(SimTime::ZERO, &c);
        assert_eq!((l.cwnd(), l.ssthresh()), (100 * S, 100 * S));
        // Only for Westwood+.
        let build = |s: WestwoodSpec| {
            s.build(
                "flows.f.cc",
                CcInit {
                    mss: 1000,
                    init_cwnd: S,
                    init_ssthresh: u64::MAX,
                    ack_counting: Default::default(),
                },
            )
        };
        let e = build(WestwoodSpec {
            estimator: Estimator::Be,
            ..spec
        })
        .unwrap_err();
        assert_eq!(e.field, "flows.f.cc.plus_rules", "{e:?}");
        // `compat = "ns2"` is the same rule set; on another estimator it is named.
        let ns2 = WestwoodSpec {
            estimator: Estimator::Plus,
            compat: Some(Compat::Ns2),
            ..WestwoodSpec::default()
        };
        assert_eq!(ns2.effective_plus_rules(), PlusRules::Ns2);
        let e = build(WestwoodSpec {
            estimator: Estimator::Be,
            ..ns2
        })
        .unwrap_err();
        assert_eq!(e.field, "flows.f.cc.compat", "{e:?}");
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let init = CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let cases: [(WestwoodSpec, &str); 7] = [
            (
                WestwoodSpec {
                    tau: 0.0,
                    ..Default::default()
                },
                "tau",
            ),
            (
                WestwoodSpec {
                    re_window: Some(-1.0),
                    ..Default::default()
                },
                "re_window",
            ),
            (
                WestwoodSpec {
                    crb_theta: 0.5,
                    ..Default::default()
                },
                "crb_theta",
            ),
            (
                WestwoodSpec {
                    abse_threshold: 1.0,
                    ..Default::default()
                },
                "abse_threshold",
            ),
            (
                WestwoodSpec {
                    abse_slope: f64::NAN,
                    ..Default::default()
                },
                "abse_slope",
            ),
            (
                WestwoodSpec {
                    pncd_eps: -0.1,
                    ..Default::default()
                },
                "pncd_eps",
            ),
            (
                WestwoodSpec {
                    pncd_rounds: 0,
                    ..Default::default()
                },
                "pncd_rounds",
            ),
        ];
        for (spec, leaf) in cases {
            let e = spec.build("flows.f.cc", init).unwrap_err();
            assert_eq!(e.field, format!("flows.f.cc.{leaf}"), "{}", e.reason);
        }
    }
}

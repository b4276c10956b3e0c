//! HighSpeed TCP (HSTCP).
//!
//! Reference: S. Floyd, "HighSpeed TCP for Large Congestion Windows", RFC 3649 (2003), §5
//! (the response function and a(w), b(w)) and Appendix B (the table of a(w), b(w)); seed 002
//! (P2) baseline [FRS02], seed 004 (P4) "HS TCP" slide.
//!
//! Formulas (w = cwnd in segments, S = MSS, defaults Low_Window = 38, High_Window = 83000,
//! High_P = 1e-7, High_Decrease = 0.1):
//! - w <= Low_Window: `a(w) = 1`, `b(w) = 0.5` (standard TCP)
//! - w > Low_Window:
//!   `b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5`,
//!   but at least `b_min` (below)
//! - `b_min` (scenario key `b_floor`): RFC 3649 §5 defines the line from Low_Window to
//!   High_Window (its Appendix B extends it to 89,053 segments) and leaves open what b(w) is
//!   beyond; extended, the line reaches 0 at
//!   Low_Window·(High_Window/Low_Window)^(0.5/(0.5 − High_Decrease)) (≈ 567,000 segments for
//!   the defaults) and is negative beyond, where a(w) < 0 and a "decrease" grows the window
//!   (found by the `run_bounded` fuzz target with `init_cwnd = 2^32 − 1`). Before that, a(w)
//!   peaks and then falls. So b is held at a floor, chosen by `b_floor`:
//!   - `"a_peak"` (default): the value where a(w) stops increasing:
//!     d ln a/d ln w = 0 ⇔ `b(2 − b) = 2s/(2 − p_exp)` with
//!     `s = (0.5 − High_Decrease)/(ln High_Window − ln Low_Window)` and p(w) ∝ w^(−p_exp), so
//!     `b_min = 1 − √(1 − 2s/(2 − p_exp))` (0.0673 at w ≈ 1.6·10^5 for the defaults: the
//!     RFC's range and table are unchanged), and at most High_Decrease (b_min =
//!     High_Decrease when a(w) would already fall before High_Window or p_exp ≥ 2);
//!   - `"high_decrease"`: High_Decrease, b(w) constant from High_Window on (as the table
//!     modes hold the last row);
//!   - a number in (0, High_Decrease]: that value (below `"a_peak"`'s, a(w) falls past its
//!     peak but stays positive).
//! - `p(w) = 0.078/w^1.2` (RFC 3649 §5 for the default constants; `aimd = "formula"`), or
//!   the general line through (Low_Window, Low_P) and (High_Window, High_P) in log-log space
//!   `ln p(w) = ln Low_P + (ln w − ln Low_Window)·(ln High_P − ln Low_P)/(ln High_Window − ln Low_Window)`
//!   with `Low_P = 1.5/Low_Window²` (ns-2; makes a(Low_Window) = 1; `aimd = "general"`)
//! - `a(w) = w²·p(w)·2·b(w)/(2 − b(w))`
//! - `aimd = "table"`: a(w), b(w) from RFC 3649 Appendix B: the last row whose window is at
//!   most w (a = 1, 2, 3, ... at w = 38, 118, 221, ...)
//! - `aimd = "table_up"`: the same table, the first row whose window is at least w (a = 2,
//!   b = 0.44 for 38 < w ≤ 118; a = 3 for 118 < w ≤ 221, ...; the last row beyond the table),
//!   as Linux's `tcp_highspeed` and ns-3's `TcpHighSpeed` look it up. RFC 3649 gives the table
//!   without saying which row applies between its windows: `table` never exceeds the formula,
//!   `table_up` never falls below it
//! - slow start (W < ssthresh): `W += S` per ack of new data (standard)
//! - congestion avoidance, per ack of new data: `w += a(w)/w` (a(w) segments per round trip)
//! - fast retransmit or ECN: `w = (1 − b(w))·w`, `ssthresh` likewise (floor 2 segments)
//! - `ece_increase = false` (flow key; ns-2's `old_ecn_ 0`): an ack carrying ECN-Echo does not
//!   grow the window, in slow start either ([`super::AckSample::ece_hold`])
//! - end of fast recovery: `W = ssthresh` (or RFC 6582 §3.2 step 3 with
//!   `recovery_exit = "flightsize"`)
//! - timeout: `ssthresh = (1 − b(w))·w` (as Linux `tcp_highspeed`), `W = S`
//!
//! a(w) and b(w) are evaluated at the integer window ⌊w⌋ and cached: they are recomputed
//! only when ⌊w⌋ changes (O(1) per ack; the table is searched by bisection, 72 rows).

use super::{recovery_exit_cwnd, AckSample, CaState, Congestion, CongestionControl, ConnView};
use crate::config::profile::Compat;
use crate::config::ScenarioError;
use crate::time::SimTime;
use serde_json::Value;

fn low_window() -> f64 {
    38.0
}
fn high_window() -> f64 {
    83_000.0
}
fn high_p() -> f64 {
    1e-7
}
fn high_decrease() -> f64 {
    0.1
}

/// How a(w) and b(w) are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum HsAimd {
    /// RFC 3649 §5 with the default response function `p(w) = 0.078/w^1.2` (this is what
    /// reproduces the RFC's Appendix B table); `high_p` is not used.
    #[default]
    Formula,
    /// RFC 3649 §5, general form: `p(w)` on the log-log line through (low_window, 1.5/low_window²)
    /// and (high_window, high_p).
    General,
    /// RFC 3649 Appendix B table, the last row at or below w (needs the default constants).
    Table,
    /// RFC 3649 Appendix B table, the first row at or above w (Linux `tcp_highspeed`, ns-3
    /// `TcpHighSpeed`; needs the default constants).
    #[serde(rename = "table_up")]
    TableUp,
}

/// Where b(w) stops decreasing beyond High_Window (module doc, `b_min`): `b_floor =
/// "a_peak"` (default), `"high_decrease"` or a number in (0, high_decrease].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum HsBFloor {
    /// Where a(w) stops increasing (0.0673 for the defaults).
    #[default]
    APeak,
    /// High_Decrease: b(w) constant from High_Window on.
    HighDecrease,
    /// A fixed value.
    Value(f64),
}

impl<'de> serde::Deserialize<'de> for HsBFloor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::String(s) if s == "a_peak" => Ok(HsBFloor::APeak),
            serde_json::Value::String(s) if s == "high_decrease" => Ok(HsBFloor::HighDecrease),
            serde_json::Value::Number(n) => Ok(HsBFloor::Value(n.as_f64().unwrap_or(f64::NAN))),
            _ => Err(D::Error::custom(format!(
                "expected \"a_peak\", \"high_decrease\" or a number in (0, high_decrease], got {v}"
            ))),
        }
    }
}

impl schemars::JsonSchema for HsBFloor {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "HsBFloor".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "where b(w) stops decreasing beyond high_window: \"a_peak\" (where a(w) stops increasing), \"high_decrease\" or a number in (0, high_decrease]",
            "oneOf": [
                { "type": "string", "enum": ["a_peak", "high_decrease"] },
                { "type": "number" }
            ]
        })
    }
}

/// `cc = { algorithm = "highspeed", low_window = 38, high_window = 83000, high_p = 1e-7,
/// high_decrease = 0.1, aimd = "formula", b_floor = "a_peak" }`.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HighspeedSpec {
    /// Window (segments) up to which HSTCP behaves as standard TCP (a = 1, b = 0.5). Default 38.
    #[serde(default = "low_window")]
    pub low_window: f64,
    /// Window (segments) at which the decrease reaches `high_decrease`. Default 83000.
    #[serde(default = "high_window")]
    pub high_window: f64,
    /// Loss rate at `high_window` (used by `aimd = "general"`). Default 1e-7.
    #[serde(default = "high_p")]
    pub high_p: f64,
    /// Decrease factor b at `high_window`, in (0, 0.5]. Default 0.1.
    #[serde(default = "high_decrease")]
    pub high_decrease: f64,
    /// "formula" (default: p(w) = 0.078/w^1.2), "general" (p(w) from the four constants),
    /// "table" (RFC 3649 Appendix B, the row at or below w) or "table_up" (the row at or
    /// above w, as Linux and ns-3).
    #[serde(default)]
    pub aimd: HsAimd,
    /// Where b(w) stops decreasing beyond high_window (a choice RFC 3649 leaves open):
    /// "a_peak" (default: where a(w) stops increasing, 0.0673 for the default constants),
    /// "high_decrease" or a number in (0, high_decrease]. Not with the table modes (they
    /// hold the table's last row).
    #[serde(default)]
    pub b_floor: Option<HsBFloor>,
    /// `"ns2"`: ns-2.35's rules, i.e. `ns2_compat` (default: none).
    #[serde(default)]
    pub compat: Option<Compat>,
    /// ns-2.35's `TcpAgent::slowdown()` (tcp.cc) for windowOption_ 8: the first decrease,
    /// a decrease in slow start (cwnd < ssthresh) and the ssthresh after a timeout use half
    /// the window instead of (1 − b(w)). Default: as `compat` (false without it).
    #[serde(default)]
    pub ns2_compat: Option<bool>,
}

impl Default for HighspeedSpec {
    fn default() -> Self {
        HighspeedSpec {
            low_window: low_window(),
            high_window: high_window(),
            high_p: high_p(),
            high_decrease: high_decrease(),
            aimd: HsAimd::Formula,
            b_floor: None,
            compat: None,
            ns2_compat: None,
        }
    }
}

impl HighspeedSpec {
    /// The keys profile `p` sets on a HighSpeed flow's `cc` table: under `ns2`, the halving
    /// rules of ns-2.35's `TcpAgent::slowdown()` (tcp/tcp.cc), which its HighSpeed agent
    /// (`hstcp_` in the same file) runs as every agent built on `TcpAgent` does.
    pub fn profile_keys(&self, p: crate::config::profile::Profile) -> Vec<(&'static str, Value)> {
        match p {
            crate::config::profile::Profile::Ns2 => vec![("compat", Value::from("ns2"))],
            _ => Vec::new(),
        }
    }

    /// Validate (`field` = `flows.NAME.cc`) and build.
    pub fn build(&self, field: &str, init: super::CcInit) -> Result<Highspeed, ScenarioError> {
        let err = |k: &str, m: String| Err(ScenarioError::new(format!("{field}.{k}"), m));
        let (lw, hw, hp, hd) = (
            self.low_window,
            self.high_window,
            self.high_p,
            self.high_decrease,
        );
        if !(lw >= 1.0 && lw.is_finite()) {
            return err(
                "low_window",
                format!("must be at least 1 segment, got {lw}"),
            );
        }
        if !(hw > lw && hw.is_finite()) {
            return err(
                "high_window",
                format!("must be larger than low_window ({lw}), got {hw}"),
            );
        }
        if !(hd > 0.0 && hd <= 0.5) {
            return err("high_decrease", format!("must be in (0, 0.5], got {hd}"));
        }
        let low_p = 1.5 / (lw * lw);
        if !(hp > 0.0 && hp < low_p) {
            return err(
                "high_p",
                format!(
                    "must be in (0, 1.5/low_window² = {low_p:.3e}) (a smaller loss rate than \
                     standard TCP's at low_window), got {hp}"
                ),
            );
        }
        if let Some(f) = self.b_floor {
            if matches!(self.aimd, HsAimd::Table | HsAimd::TableUp) {
                return err(
                    "b_floor",
                    "applies to aimd = \"formula\" or \"general\" only (the table modes hold \
                     the last row of RFC 3649's Appendix B, b = 0.1, beyond the table)"
                        .to_string(),
                );
            }
            if let HsBFloor::Value(x) = f {
                if !(x > 0.0 && x <= hd) {
                    return err(
                        "b_floor",
                        format!(
                            "must be \"a_peak\", \"high_decrease\" or a number in \
                             (0, high_decrease = {hd}], got {x}"
                        ),
                    );
                }
            }
        }
        if matches!(self.aimd, HsAimd::Table | HsAimd::TableUp)
            && *self
                != (HighspeedSpec {
                    aimd: self.aimd,
                    ..HighspeedSpec::default()
                })
        {
            return err(
                "aimd",
                "\"table\" and \"table_up\" are RFC 3649's Appendix B, computed for low_window \
                 = 38, high_window = 83000, high_p = 1e-7, high_decrease = 0.1: use \"formula\" \
                 or \"general\" with other constants"
                    .to_string(),
            );
        }
        Ok(Highspeed::new(
            init.mss,
            init.init_cwnd,
            init.init_ssthresh,
            Aimd::new(lw, hw, hp, hd, self.aimd).with_b_floor(self.b_floor.unwrap_or_default()),
        )
        .with_ack_counting(init.ack_counting)
        .with_ns2_compat(self.ns2_compat.unwrap_or(self.compat == Some(Compat::Ns2))))
    }
}

/// RFC 3649 Appendix B: the window (segments) at which a(w) reaches 1, 2, 3, ... (row k has
/// a = k + 1) and b(w) there, to two decimals as printed.
pub const RFC3649_TABLE: [(u32, f64); 72] = [
    (38, 0.50),
    (118, 0.44),
    (221, 0.41),
    (347, 0.38),
    (495, 0.37),
    (663, 0.35),
    (851, 0.34),
    (1058, 0.33),
    (1284, 0.32),
    (1529, 0.31),
    (1793, 0.30),
    (2076, 0.29),
    (2378, 0.28),
    (2699, 0.28),
    (3039, 0.27),
    (3399, 0.27),
    (3778, 0.26),
    (4177, 0.26),
    (4596, 0.25),
    (5036, 0.25),
    (5497, 0.24),
    (5979, 0.24),
    (6483, 0.23),
    (7009, 0.23),
    (7558, 0.22),
    (8130, 0.22),
    (8726, 0.22),
    (9346, 0.21),
    (9991, 0.21),
    (10661, 0.21),
    (11358, 0.20),
    (12082, 0.20),
    (12834, 0.20),
    (13614, 0.19),
    (14424, 0.19),
    (15265, 0.19),
    (16137, 0.19),
    (17042, 0.18),
    (17981, 0.18),
    (18955, 0.18),
    (19965, 0.17),
    (21013, 0.17),
    (22101, 0.17),
    (23230, 0.17),
    (24402, 0.16),
    (25618, 0.16),
    (26881, 0.16),
    (28193, 0.16),
    (29557, 0.15),
    (30975, 0.15),
    (32450, 0.15),
    (33986, 0.15),
    (35586, 0.14),
    (37253, 0.14),
    (38992, 0.14),
    (40808, 0.14),
    (42707, 0.13),
    (44694, 0.13),
    (46776, 0.13),
    (48961, 0.13),
    (51258, 0.13),
    (53677, 0.12),
    (56230, 0.12),
    (58932, 0.12),
    (61799, 0.12),
    (64851, 0.11),
    (68113, 0.11),
    (71617, 0.11),
    (75401, 0.10),
    (79517, 0.10),
    (84035, 0.10),
    (89053, 0.10),
];

/// a(w) and b(w) (RFC 3649 §5).
#[derive(Clone, Copy, Debug)]
pub struct Aimd {
    low_window: f64,
    ln_low: f64,
    /// ln High_Window − ln Low_Window.
    ln_span: f64,
    high_decrease: f64,
    /// The smallest b(w): where a(w) stops increasing (module doc).
    b_min: f64,
    /// p(w) = p_coef · w^(−p_exp).
    p_coef: f64,
    p_exp: f64,
    /// Appendix B lookup: None (the formula), Some(false) the row at or below w,
    /// Some(true) the row at or above w.
    table: Option<bool>,
}

impl Aimd {
    pub fn new(lw: f64, hw: f64, hp: f64, hd: f64, how: HsAimd) -> Self {
        let ln_span = hw.ln() - lw.ln();
        let (p_coef, p_exp) = match how {
            HsAimd::Formula | HsAimd::Table | HsAimd::TableUp => (0.078, 1.2),
            HsAimd::General => {
                // ln p = ln Low_P + (ln w − ln LW)·slope, slope = (ln HP − ln Low_P)/ln_span.
                let low_p = 1.5 / (lw * lw);
                let slope = (hp.ln() - low_p.ln()) / ln_span;
                ((low_p.ln() - lw.ln() * slope).exp(), -slope)
            }
        };
        let c = 2.0 * (0.5 - hd) / ln_span / (2.0 - p_exp);
        let b_min = if p_exp < 2.0 && c > 0.0 && c < 1.0 {
            (1.0 - (1.0 - c).sqrt()).min(hd)
        } else {
            hd
        };
        Aimd {
            b_min,
            low_window: lw,
            ln_low: lw.ln(),
            ln_span,
            high_decrease: hd,
            p_coef,
            p_exp,
            table: match how {
                HsAimd::Table => Some(false),
                HsAimd::TableUp => Some(true),
                HsAimd::Formula | HsAimd::General => None,
            },
        }
    }
    /// Hold b(w) at `floor` beyond High_Window instead of where a(w) stops increasing (the
    /// value `new` computes). Values are checked by [`HighspeedSpec::build`].
    pub fn with_b_floor(mut self, floor: HsBFloor) -> Self {
        match floor {
            HsBFloor::APeak => {}
            HsBFloor::HighDecrease => self.b_min = self.high_decrease,
            HsBFloor::Value(x) => self.b_min = x,
        }
        self
    }
    /// The RFC 3649 default constants with `p(w) = 0.078/w^1.2`.
    pub fn rfc3649() -> Self {
        Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::Formula)
    }
    /// b(w): the fraction of the window removed on a congestion event.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        if let Some(up) = self.table {
            return RFC3649_TABLE[Self::row(w, up)].1;
        }
        ((self.high_decrease - 0.5) * (w.ln() - self.ln_low) / self.ln_span + 0.5).max(self.b_min)
    }
    /// p(w): the loss rate at which HSTCP's window averages w.
    pub fn p(&self, w: f64) -> f64 {
        self.p_coef * w.powf(-self.p_exp)
    }
    /// a(w): segments added per round trip.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        if let Some(up) = self.table {
            return (Self::row(w, up) + 1) as f64;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
    /// The last table row whose window is at most `w`, or (`up`) the first whose window is
    /// at least `w` (the last row beyond the table); bisection: 7 steps.
    fn row(w: f64, up: bool) -> usize {
        if up {
            RFC3649_TABLE
                .partition_point(|&(tw, _)| (tw as f64) < w)
                .min(RFC3649_TABLE.len() - 1)
        } else {
            RFC3649_TABLE
                .partition_point(|&(tw, _)| tw as f64 <= w)
                .saturating_sub(1)
        }
    }
}

#[derive(Clone, Debug)]
pub struct Highspeed {
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    aimd: Aimd,
    /// ⌊w⌋ at which `a`, `b` were last evaluated.
    at: u64,
    a: f64,
    b: f64,
    counting: super::AckCounting,
    ns2_compat: bool,
    /// A decrease has happened (ns-2's `first_decrease_` is its negation).
    decreased: bool,
}

impl Highspeed {
    pub fn with_ns2_compat(mut self, on: bool) -> Self {
        self.ns2_compat = on;
        self
    }
    pub fn new(mss: u32, init_cwnd: u64, init_ssthresh: u64, aimd: Aimd) -> Self {
        let mut h = Highspeed {
            mss: mss as f64,
            cwnd: init_cwnd as f64,
            ssthresh: init_ssthresh as f64,
            aimd,
            at: u64::MAX,
            a: 1.0,
            b: 0.5,
            counting: super::AckCounting::Acks,
            ns2_compat: false,
            decreased: false,
        };
        h.refresh();
        h
    }
    /// Count acks or the segments they cover (flow key `ack_counting`): with "segments" an
    /// ack of A bytes adds `a(w)·S·A/W` (A/S increases of `a(w)·S²/W`).
    pub fn with_ack_counting(mut self, counting: super::AckCounting) -> Self {
        self.counting = counting;
        self
    }
    /// Re-evaluate a(w), b(w) if ⌊w⌋ changed.
    #[inline]
    fn refresh(&mut self) {
        let w = (self.cwnd / self.mss).floor().max(1.0);
        if w as u64 != self.at {
            self.at = w as u64;
            self.a = self.aimd.a(w);
            self.b = self.aimd.b(w);
        }
    }
    /// Current a(w) (segments per round trip) and b(w).
    pub fn a_b(&self) -> (f64, f64) {
        (self.a, self.b)
    }
}

impl CongestionControl for Highspeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }
    fn ssthresh(&self) -> u64 {
        // Float-to-integer casts saturate: an unset (infinite) threshold is u64::MAX.
        self.ssthresh as u64
    }
    /// The exact window in segments, a(w) (segments per round trip) and b(w).
    fn trace_names(&self) -> &'static [&'static str] {
        &["cwnd_segments", "hstcp_a_segments", "hstcp_b"]
    }
    fn trace_values(&self, out: &mut [f64]) {
        out[0] = self.cwnd / self.mss;
        out[1] = self.a;
        out[2] = self.b;
    }
    #[inline]
    fn on_ack(&mut self, _now: SimTime, ack: &AckSample, c: &ConnView) {
        // No growth on an ECN-Echo ack with `ece_increase = false` (ns-2's `old_ecn_ 0`:
        // `TcpAgent::recv_newack_helper` skips `opencwnd()`).
        if ack.newly_acked == 0
            || c.state == CaState::Recovery
            || self.cwnd >= c.max_window as f64
            || ack.ece_hold
        {
            return;
        }
        match self.counting {
            super::AckCounting::Acks => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += self.mss;
                } else {
                    // w += a(w)/w segments, i.e. W += a·S²/W bytes.
                    self.cwnd += self.a * self.mss * self.mss / self.cwnd;
                }
            }
            super::AckCounting::Segments => {
                let mut acked = ack.newly_acked as f64;
                if self.cwnd < self.ssthresh {
                    acked = super::reno::slow_start_bytes(&mut self.cwnd, self.ssthresh, acked);
                }
                self.cwnd += self.a * self.mss * acked / self.cwnd;
            }
        }
        self.refresh();
    }
    fn on_congestion(&mut self, _now: SimTime, why: Congestion, c: &ConnView) {
        self.refresh();
        if self.ns2_compat {
            // ns-2 slowdown(): windowd() = min(cwnd_, window_); halfwin for the first
            // decrease, in slow start, and (ssthresh only) after a timeout.
            let w = self.cwnd.min(c.max_window as f64);
            let slow = self.cwnd < self.ssthresh;
            let first = !self.decreased;
            let half = 0.5 * w;
            let dec = (1.0 - self.b) * w;
            // tcp.cc timeout() and dupack_action() set last_cwnd_action_ before slowdown():
            // a timeout always takes halfwin for ssthresh.
            let timeout = matches!(why, Congestion::Timeout);
            let ss = if first || slow || timeout { half } else { dec };
            let cw = if first || slow { half } else { dec };
            self.decreased = true;
            self.ssthresh = ss.max(2.0 * self.mss);
            self.cwnd = match why {
                Congestion::Timeout => self.mss,
                Congestion::FastRetransmit | Congestion::Ecn => cw.max(2.0 * self.mss),
            };
            self.refresh();
            return;
        }
        self.ssthresh = ((1.0 - self.b) * self.cwnd).max(2.0 * self.mss);
        self.cwnd = match why {
            Congestion::Timeout => self.mss,
            Congestion::FastRetransmit | Congestion::Ecn => self.ssthresh,
        };
        self.refresh();
    }
    fn on_recovery_exit(&mut self, _now: SimTime, c: &ConnView) {
        self.cwnd = self.ssthresh.min(recovery_exit_cwnd(u64::MAX, c) as f64);
        self.refresh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{ack, view};

    /// `ns2_compat`: ns-2.35's `slowdown()` halves at the first decrease and in slow start,
    /// and a timeout's ssthresh is half the window; other decreases keep (1 − b(w))·w.
    #[test]
    fn ns2_compat_halves_at_the_first_decrease() {
        // `compat = "ns2"` (the profile's spelling) and `ns2_compat = true` (its alias).
        let spec = |compat: bool| HighspeedSpec {
            compat: compat.then_some(Compat::Ns2),
            ..HighspeedSpec::default()
        };
        let init = |w: u64| crate::cc::CcInit {
            mss: 1000,
            init_cwnd: w * 1000,
            init_ssthresh: 1000 * 1000,
            ack_counting: Default::default(),
        };
        let c = view(1000, 10_000_000, CaState::Open);
        let t = SimTime::ZERO;
        // 10 000 segments, below ssthresh? No: ssthresh 1000 segments, so congestion avoidance.
        let mut h = spec(true).build("f", init(10_000)).unwrap();
        let b = h.b;
        h.on_congestion(t, Congestion::FastRetransmit, &c);
        assert_eq!(h.cwnd(), 5_000_000, "first decrease: half");
        let w = h.cwnd;
        h.refresh();
        let b2 = h.b;
        h.on_congestion(t, Congestion::FastRetransmit, &c);
        assert!(
            (h.cwnd - (1.0 - b2) * w).abs() < 1.0,
            "then (1 − b(w))·w: {}",
            h.cwnd
        );
        let w = h.cwnd;
        h.on_congestion(t, Congestion::Timeout, &c);
        assert_eq!(
            (h.cwnd(), h.ssthresh()),
            (1000, (0.5 * w) as u64),
            "timeout: half for ssthresh"
        );
        // Without it, the first decrease is (1 − b(w)) too.
        let mut r = spec(false).build("f", init(10_000)).unwrap();
        r.on_congestion(t, Congestion::FastRetransmit, &c);
        assert!((r.cwnd - (1.0 - b) * 10_000_000.0).abs() < 1.0 && b < 0.5);
        // In slow start (cwnd below ssthresh) ns-2 halves at any decrease.
        let mut s = spec(true).build("f", init(100)).unwrap();
        s.on_congestion(t, Congestion::FastRetransmit, &c);
        s.cwnd = 50_000.0;
        s.ssthresh = 1e9;
        s.on_congestion(t, Congestion::FastRetransmit, &c);
        assert_eq!(s.cwnd(), 25_000);
    }

    #[test]
    fn worked_value_at_18000_segments() {
        let m = Aimd::rfc3649();
        // RFC 3649 Appendix B's table: b ≈ 0.18, a ≈ 39 at w = 18 000.
        assert!((m.b(18_000.0) - 0.1795).abs() < 5e-4, "{}", m.b(18_000.0));
        assert!((m.a(18_000.0) - 39.02).abs() < 0.05, "{}", m.a(18_000.0));
        // Standard TCP at and below Low_Window; High_Decrease at High_Window.
        assert_eq!((m.a(38.0), m.b(38.0)), (1.0, 0.5));
        assert_eq!((m.a(10.0), m.b(10.0)), (1.0, 0.5));
        assert!((m.b(83_000.0) - 0.1).abs() < 1e-12);
        // RFC 3649 §5: p(w) is the inverse of w = 0.12/p^0.835 to the rounding of both
        // (1/0.835 = 1.198 vs 1.2: 3.3 % apart at w = 83 000).
        for w in [100.0, 1000.0, 10_000.0, 83_000.0] {
            let back = 0.12 / m.p(w).powf(0.835);
            assert!((back / w - 1.0).abs() < 0.04, "w {w}: {back}");
        }
    }

    #[test]
    fn b_stops_where_a_stops_increasing() {
        // The line through (38, 0.5) and (83000, 0.1) would be 0 at ≈ 5.7e5 segments and
        // negative beyond (a(w) < 0, a decrease that grows the window).
        let m = Aimd::rfc3649();
        assert!((m.b_min - 0.0673).abs() < 1e-4, "{}", m.b_min);
        let g = Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::General);
        for m in [m, g] {
            let mut prev = 0.0;
            let mut w = 39.0;
            while w < 1e13 {
                let (a, b) = (m.a(w), m.b(w));
                assert!(b >= m.b_min && b > 0.0 && b <= 0.5, "b({w}) = {b}");
                assert!(
                    a.is_finite() && a >= prev * (1.0 - 1e-9),
                    "a({w}) = {a} < {prev}"
                );
                prev = a;
                w *= 1.01;
            }
            // At the peak, a(w) no longer grows: held b, a ∝ w^(2 − p_exp) beyond.
            assert!(m.b(4294967295.0) == m.b_min);
        }
        // Constants whose a(w) would fall before High_Window hold b at High_Decrease.
        let m = Aimd::new(38.0, 40.0, 1e-5, 0.1, HsAimd::General);
        assert_eq!(m.b_min, 0.1);
    }

    /// `b_floor`: "a_peak" is today's floor (the default), "high_decrease" holds b at
    /// High_Decrease from High_Window on, a number holds it there; the RFC's range
    /// (Low_Window to High_Window) is the same under all three.
    #[test]
    fn b_floor_choices() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let with = |f: Option<HsBFloor>, aimd: HsAimd| {
            HighspeedSpec {
                b_floor: f,
                aimd,
                ..HighspeedSpec::default()
            }
            .build("flows.f.cc", init)
            .unwrap()
            .aimd
        };
        for aimd in [HsAimd::Formula, HsAimd::General] {
            let dflt = with(None, aimd);
            let peak = with(Some(HsBFloor::APeak), aimd);
            let hd = with(Some(HsBFloor::HighDecrease), aimd);
            let low = with(Some(HsBFloor::Value(0.03)), aimd);
            assert_eq!(dflt.b_min, peak.b_min);
            let want = if aimd == HsAimd::Formula {
                0.0673
            } else {
                peak.b_min
            };
            assert!((dflt.b_min - want).abs() < 1e-4, "{}", dflt.b_min);
            for w in [39.0, 1000.0, 18_000.0, 82_999.0] {
                for m in [hd, low] {
                    assert_eq!(m.b(w), dflt.b(w), "w {w}");
                    assert_eq!(m.a(w), dflt.a(w), "w {w}");
                }
            }
            // At High_Window the line gives High_Decrease to the last bit.
            assert!((hd.b(83_000.0) - dflt.b(83_000.0)).abs() < 1e-15);
            // Beyond High_Window the floors differ: b(w) held at 0.1, at the peak value,
            // at 0.03 (and a(w) then falls past its peak, but stays positive).
            let far = 1e7;
            assert_eq!(hd.b(far), 0.1);
            assert_eq!(dflt.b(far), dflt.b_min);
            assert_eq!(low.b(far), 0.03);
            assert!(hd.b(2e5) == 0.1 && dflt.b(2e5) < 0.1);
            // The window where the line reaches b: 38·(83000/38)^((0.5 − b)/0.4).
            let at = |b: f64| 38.0 * (83_000.0f64 / 38.0).powf((0.5 - b) / 0.4);
            let (w_peak, w_low) = (at(dflt.b_min), at(0.03));
            assert!(low.a(w_low) < 0.9 * low.a(w_peak), "{w_peak} {w_low}");
            assert!(dflt.a(w_low) >= dflt.a(w_peak) && hd.a(w_low) >= hd.a(w_peak));
            let mut w = 83_000.0;
            while w < 1e13 {
                assert!(low.a(w) > 0.0 && low.b(w) >= 0.03, "w {w}");
                w *= 1.1;
            }
        }
        // Bad values name the field.
        for (f, aimd) in [
            (HsBFloor::Value(0.0), HsAimd::Formula),
            (HsBFloor::Value(-0.1), HsAimd::Formula),
            (HsBFloor::Value(0.11), HsAimd::General),
            (HsBFloor::Value(f64::NAN), HsAimd::Formula),
            (HsBFloor::APeak, HsAimd::Table),
            (HsBFloor::HighDecrease, HsAimd::TableUp),
        ] {
            let e = HighspeedSpec {
                b_floor: Some(f),
                aimd,
                ..HighspeedSpec::default()
            }
            .build("flows.f.cc", init)
            .err()
            .unwrap_or_else(|| panic!("{f:?} {aimd:?} accepted"));
            assert_eq!(e.field, "flows.f.cc.b_floor", "{e}");
        }
        // b_floor = high_decrease is accepted at the upper end.
        assert!(HighspeedSpec {
            b_floor: Some(HsBFloor::Value(0.1)),
            ..HighspeedSpec::default()
        }
        .build("flows.f.cc", init)
        .is_ok());
    }

    #[test]
    fn formula_reproduces_the_rfc_appendix_b_table() {
        let m = Aimd::rfc3649();
        for (k, &(w, b)) in RFC3649_TABLE.iter().enumerate().skip(1) {
            let w = w as f64;
            let want = (k + 1) as f64;
            // Each row is (within rounding) the first window where a(w) reaches k + 1.
            assert!(
                (m.a(w) - want).abs() < 0.05,
                "w {w}: a {} vs {want}",
                m.a(w)
            );
            assert!(m.a(w - 10.0) < want, "w {w}");
            // b to the table's two decimals (±0.005 rounding, ±0.001 slack).
            assert!((m.b(w) - b).abs() <= 0.006, "w {w}: b {} vs {b}", m.b(w));
        }
    }

    #[test]
    fn general_form_meets_both_ends() {
        let m = Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::General);
        assert!(
            (m.a(38.0 + 1e-9) - 1.0).abs() < 1e-6,
            "continuous at Low_Window"
        );
        assert!((m.p(83_000.0) / 1e-7 - 1.0).abs() < 1e-9);
        // A few per cent above the rounded response function.
        let r = m.a(18_000.0) / Aimd::rfc3649().a(18_000.0);
        assert!(r > 1.0 && r < 1.05, "{r}");
    }

    #[test]
    fn table_mode_steps() {
        let m = Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::Table);
        assert_eq!((m.a(117.0), m.b(117.0)), (1.0, 0.5));
        assert_eq!((m.a(118.0), m.b(118.0)), (2.0, 0.44));
        assert_eq!((m.a(18_000.0), m.b(18_000.0)), (39.0, 0.18));
        assert_eq!(m.a(1e7), 72.0);
    }

    /// `table_up`: the first row at or above w, as Linux and ns-3 look the table up.
    #[test]
    fn table_up_mode_steps() {
        let m = Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::TableUp);
        assert_eq!((m.a(38.0), m.b(38.0)), (1.0, 0.5));
        assert_eq!((m.a(39.0), m.b(39.0)), (2.0, 0.44));
        assert_eq!((m.a(118.0), m.b(118.0)), (2.0, 0.44));
        assert_eq!((m.a(119.0), m.b(119.0)), (3.0, 0.41));
        assert_eq!((m.a(665.0), m.b(665.0)), (7.0, 0.34));
        assert_eq!((m.a(17_981.0), m.b(17_981.0)), (39.0, 0.18));
        assert_eq!((m.a(1e7), m.b(1e7)), (72.0, 0.10));
        // Between rows it brackets the formula from above, `table` from below.
        let (f, down) = (
            Aimd::rfc3649(),
            Aimd::new(38.0, 83_000.0, 1e-7, 0.1, HsAimd::Table),
        );
        for w in [50.0, 200.0, 500.0, 5000.0, 50_000.0] {
            assert!(
                down.a(w) <= f.a(w) + 0.05 && f.a(w) <= m.a(w) + 0.05,
                "w {w}"
            );
            assert!(m.b(w) <= down.b(w), "w {w}");
        }
    }

    /// Acks for one round trip at window w: the window grows by a(w) segments.
    #[test]
    fn increase_per_round_trip_is_a_of_w() {
        let s = 1000u32;
        let v = view(s, 0, CaState::Open);
        for w in [20u64, 100, 1000, 18_000] {
            let mut h = Highspeed::new(s, w * 1000, 1000, Aimd::rfc3649());
            let a = Aimd::rfc3649().a(w as f64);
            for _ in 0..w {
                h.on_ack(SimTime::ZERO, &ack(1000), &v);
            }
            let grown = (h.cwnd / 1000.0) - w as f64;
            // The window grows during the round, so a(w)/w per ack slightly undershoots.
            assert!(
                (grown - a).abs() < 0.02 * a + 0.01,
                "w {w}: grew {grown}, a(w) {a}"
            );
        }
    }

    #[test]
    fn decrease_is_b_of_w_for_loss_and_ecn() {
        let s = 1000u32;
        for why in [Congestion::FastRetransmit, Congestion::Ecn] {
            let mut h = Highspeed::new(s, 18_000_000, u64::MAX, Aimd::rfc3649());
            let b = Aimd::rfc3649().b(18_000.0);
            h.on_congestion(SimTime::ZERO, why, &view(s, 0, CaState::Open));
            let kept = h.cwnd / 18_000_000.0;
            assert!((kept - (1.0 - b)).abs() < 1e-9, "{why:?}: {kept}");
            assert_eq!(h.ssthresh(), h.cwnd());
            assert!(h.a_b().1 > b, "b re-evaluated at the smaller window");
        }
        // Small windows halve; timeouts collapse to one segment.
        let mut h = Highspeed::new(s, 30_000, u64::MAX, Aimd::rfc3649());
        h.on_congestion(
            SimTime::ZERO,
            Congestion::Timeout,
            &view(s, 0, CaState::Open),
        );
        assert_eq!((h.cwnd(), h.ssthresh()), (1000, 15_000));
    }

    #[test]
    fn slow_start_is_standard() {
        let mut h = Highspeed::new(1000, 1000, 50_000, Aimd::rfc3649());
        let v = view(1000, 0, CaState::Open);
        for _ in 0..7 {
            h.on_ack(SimTime::ZERO, &ack(1000), &v);
        }
        assert_eq!(h.cwnd(), 8000);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let init = crate::cc::CcInit {
            mss: 1000,
            init_cwnd: 1000,
            init_ssthresh: u64::MAX,
            ack_counting: Default::default(),
        };
        let bad = |s: HighspeedSpec| s.build("flows.f.cc", init).err().unwrap().field;
        let d = HighspeedSpec::default;
        assert_eq!(
            bad(HighspeedSpec {
                low_window: 0.5,
                ..d()
            }),
            "flows.f.cc.low_window"
        );
        assert_eq!(
            bad(HighspeedSpec {
                high_window: 38.0,
                ..d()
            }),
            "flows.f.cc.high_window"
        );
        assert_eq!(
            bad(HighspeedSpec {
                high_p: 0.01,
                ..d()
            }),
            "flows.f.cc.high_p"
        );
        assert_eq!(
            bad(HighspeedSpec {
                high_decrease: 0.6,
                ..d()
            }),
            "flows.f.cc.high_decrease"
        );
        for aimd in [HsAimd::Table, HsAimd::TableUp] {
            assert_eq!(
                bad(HighspeedSpec {
                    aimd,
                    low_window: 40.0,
                    ..d()
                }),
                "flows.f.cc.aimd"
            );
        }
        assert!(d().build("flows.f.cc", init).is_ok());
    }
}

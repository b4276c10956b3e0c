//! Outages: a schedule of down periods `[down, up)` during which the channel loses every
//! packet it transmits (P3's wireless handoffs, T-HANDOFF).
//!
//! **The rule.** The transmitter does not notice an outage: it keeps taking packets from
//! its queue and sending them at the link's rate. A packet whose transmission
//! `[start, done)` overlaps a down period (`start < up && done > down`) is lost: it uses the
//! link for its transmission time and never reaches the far end. Consequently
//!
//! * packets already propagating when an outage begins (transmission finished at or before
//!   `down`) are delivered;
//! * a packet being transmitted when the outage begins, or starting before it ends, is lost;
//! * queued packets wait their turn as usual and are sent; those whose transmission still
//!   overlaps the outage are lost, the others (starting at or after `up`) go through.
//!
//! The bandwidth is available again at once after `up` (P3: "the channel's bandwidth was
//! becoming available immediately afterwards").
//!
//! **Schedules** are named (`[outages.NAME]`) and shared: every link direction that refers
//! to `NAME` sees the same down periods. Each such direction holds its own copies of the
//! schedule's generator (same stream, so the same periods), generated lazily in time order
//! with no allocation: one copy answers the per-packet question, the other drives the
//! `LinkState` events (one pending per direction, at the next down or up transition) that
//! count outages and down time.
//!
//! Periodic schedules: outage k (k = 0, 1, ...) starts at `start + k * period` (or, with
//! `period_from = "end"`, `period` after the previous outage ended) and lasts `duration`, or
//! `min(Exp(mean), cap)` (at least 1 ps), drawn from stream `Stream::Outage` with the
//! schedule's index in `[outages]` (sorted by name), one draw per outage in order.

use super::{ErrorCx, ErrorModel};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;

/// `{ model = "outage", schedule = "handoff" }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageRefSpec {
    /// Name of a schedule defined under `[outages.NAME]`.
    pub schedule: String,
    /// Where the model acts: "after_link" only (written for symmetry with the other
    /// models; an outage loses what is transmitted while the channel is down).
    #[serde(default)]
    pub placement: super::Placement,
}

impl OutageRefSpec {
    pub fn build(&self, field: &str, cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        match cx.schedules.get(&self.schedule) {
            Some(s) => Ok(ErrorModel::Outage(Box::new(Outage::new(s.clone())))),
            None => Err(ScenarioError::new(
                format!("{field}.schedule"),
                format!(
                    "unknown outage schedule '{}' ({})",
                    self.schedule,
                    crate::config::known_names(cx.schedules.keys().cloned())
                ),
            )),
        }
    }
}

/// When the next periodic outage starts.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PeriodFrom {
    /// Outages start every `period` (at `start`, `start + period`, ...).
    #[default]
    Start,
    /// The next outage starts `period` after the previous one ended.
    End,
}

/// `[outages.NAME]` with `type = "periodic"`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeriodicSpec {
    /// Time between outage starts (or from an outage's end to the next start, with
    /// `period_from = "end"`); positive.
    pub period: DurationValue,
    /// Start of the first outage (default: one `period` after t = 0).
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// Constant outage length (give this or `mean`).
    #[serde(default)]
    pub duration: Option<DurationValue>,
    /// Mean of exponentially distributed outage lengths (give this or `duration`).
    #[serde(default)]
    pub mean: Option<DurationValue>,
    /// Upper bound on an exponential outage length; positive. Default: `period` when
    /// `period_from = "start"` (outages never overlap), none otherwise. With
    /// `period_from = "start"` it may not exceed `period`.
    #[serde(default)]
    pub cap: Option<DurationValue>,
    /// "start" (default) or "end": what `period` is counted from.
    #[serde(default)]
    pub period_from: PeriodFrom,
}

/// `[outages.NAME]` with `type = "list"`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IntervalsSpec {
    /// Down periods `[down, up)`, e.g. `[["10s", "12s"], ["20s", "20.5s"]]`: each `down`
    /// before its `up`, in time order, not overlapping.
    pub intervals: Vec<[DurationValue; 2]>,
}

fn positive(field: String, d: SimDuration) -> Result<SimDuration, ScenarioError> {
    if d == SimDuration::ZERO {
        Err(ScenarioError::new(field, "must be positive"))
    } else {
        Ok(d)
    }
}

impl PeriodicSpec {
    /// Validate and build (`field` = `outages.NAME`, `index` = its position in `[outages]`).
    pub fn build(&self, field: &str, seed: u64, index: u64) -> Result<Schedule, ScenarioError> {
        let period = positive(format!("{field}.period"), self.period.0)?;
        // Two `LinkState` events per period.
        if let Some(m) = crate::time::timer_period_too_short(period) {
            return Err(ScenarioError::new(format!("{field}.period"), m));
        }
        let from_end = self.period_from == PeriodFrom::End;
        let len = match (self.duration, self.mean) {
            (Some(d), None) => {
                let d = positive(format!("{field}.duration"), d.0)?;
                if !from_end && d > period {
                    return Err(ScenarioError::new(
                        format!("{field}.duration"),
                        format!(
                            "{d} is longer than the period {period}; outages would overlap \
                             (use period_from = \"end\" to count the period from the end)"
                        ),
                    ));
                }
                if self.cap.is_some() {
                    return Err(ScenarioError::new(
                        format!("{field}.cap"),
                        "only applies to exponential lengths (`mean`), not to `duration`",
                    ));
                }
                Length::Constant(d)
            }
            (None, Some(m)) => {
                let mean = positive(format!("{field}.mean"), m.0)?;
                let cap = match self.cap {
                    Some(c) => {
                        let c = positive(format!("{field}.cap"), c.0)?;
                        if !from_end && c > period {
                            return Err(ScenarioError::new(
                                format!("{field}.cap"),
                                format!(
                                    "{c} is longer than the period {period}; outages would \
                                     overlap"
                                ),
                            ));
                        }
                        c
                    }
                    None if from_end => SimDuration(u64::MAX),
                    None => period,
                };
                Length::Exponential { mean, cap }
            }
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    field,
                    "give either `duration` (constant) or `mean` (exponential), not both",
                ))
            }
            (None, None) => {
                return Err(ScenarioError::new(
                    field,
                    "give the outage length: `duration` (constant) or `mean` (exponential)",
                ))
            }
        };
        let first = SimTime(self.start.map_or(period, |s| s.0).0);
        Ok(Schedule::new(Gen::Periodic {
            next: first,
            period,
            from_end,
            len,
            rng: SimRng::derive(seed, Stream::Outage, index),
        }))
    }
}

impl IntervalsSpec {
    /// Validate and build (`field` = `outages.NAME`).
    pub fn build(&self, field: &str) -> Result<Schedule, ScenarioError> {
        if self.intervals.is_empty() {
            return Err(ScenarioError::new(
                format!("{field}.intervals"),
                "list at least one [down, up) interval, e.g. [[\"10s\", \"12s\"]]",
            ));
        }
        let mut prev_up = SimTime::ZERO;
        let mut v = Vec::with_capacity(self.intervals.len());
        for (i, [d, u]) in self.intervals.iter().enumerate() {
            let f = format!("{field}.intervals[{i}]");
            let (d, u) = (SimTime(d.0 .0), SimTime(u.0 .0));
            if u <= d {
                return Err(ScenarioError::new(
                    f,
                    format!("the outage must end after it starts (down {d}, up {u})"),
                ));
            }
            if i > 0 && d < prev_up {
                return Err(ScenarioError::new(
                    f,
                    format!(
                        "starts at {d}, before the previous interval ends ({prev_up}); list \
                         intervals in time order without overlap"
                    ),
                ));
            }
            prev_up = u;
            v.push((d, u));
        }
        Ok(Schedule::new(Gen::List {
            intervals: v,
            next: 0,
        }))
    }
}

#[derive(Clone, Copy, Debug)]
enum Length {
    Constant(SimDuration),
    Exponential { mean: SimDuration, cap: SimDuration },
}

/// Produces the down periods in time order.
#[derive(Clone, Debug)]
enum Gen {
    Periodic {
        /// Start of the next outage to generate.
        next: SimTime,
        period: SimDuration,
        from_end: bool,
        len: Length,
        rng: SimRng,
    },
    List {
        intervals: Vec<(SimTime, SimTime)>,
        next: usize,
    },
}

fn add(t: SimTime, d: SimDuration) -> SimTime {
    SimTime(t.0.saturating_add(d.0))
}

impl Gen {
    /// The next down period; `(MAX, MAX)` when there is none.
    fn next(&mut self) -> (SimTime, SimTime) {
        match self {
            Gen::Periodic {
                next,
                period,
                from_end,
                len,
                rng,
            } => {
                let down = *next;
                if down == SimTime::MAX {
                    return (SimTime::MAX, SimTime::MAX);
                }
                let d = match *len {
                    Length::Constant(d) => d,
                    Length::Exponential { mean, cap } => {
                        let x = (mean.0 as f64 * rng.exp1()).round();
                        let ps = if x >= cap.0 as f64 { cap.0 } else { x as u64 };
                        SimDuration(ps.clamp(1, cap.0))
                    }
                };
                let up = add(down, d);
                *next = add(if *from_end { up } else { down }, *period);
                (down, up)
            }
            Gen::List { intervals, next } => match intervals.get(*next) {
                Some(&iv) => {
                    *next += 1;
                    iv
                }
                None => (SimTime::MAX, SimTime::MAX),
            },
        }
    }
}

/// A built schedule: a generator and its current down period.
#[derive(Clone, Debug)]
pub struct Schedule {
    gen: Gen,
    /// Current (earliest not yet passed) down period.
    down: SimTime,
    up: SimTime,
}

impl Schedule {
    fn new(mut gen: Gen) -> Self {
        let (down, up) = gen.next();
        Schedule { gen, down, up }
    }

    /// Move to the next down period.
    #[inline]
    fn advance(&mut self) {
        let (d, u) = self.gen.next();
        self.down = d;
        self.up = u;
    }

    /// The first `n` down periods (tests and tools; allocates).
    pub fn periods(&self, n: usize) -> Vec<(SimTime, SimTime)> {
        let mut s = self.clone();
        let mut v = Vec::with_capacity(n);
        while v.len() < n && s.down != SimTime::MAX {
            v.push((s.down, s.up));
            s.advance();
        }
        v
    }

    /// The down periods that begin before `end` (tests and tools; allocates).
    pub fn periods_until(&self, end: SimTime) -> Vec<(SimTime, SimTime)> {
        let mut s = self.clone();
        let mut v = Vec::new();
        while s.down < end {
            v.push((s.down, s.up));
            s.advance();
        }
        v
    }
}

/// The outage model of one link direction.
#[derive(Clone, Debug)]
pub struct Outage {
    /// Answers [`Outage::lost`] (queried in transmission order; may run ahead of the clock).
    losses: Schedule,
    /// Drives the `LinkState` events (follows the clock).
    states: Schedule,
    is_down: bool,
    down_since: SimTime,
    down_ps: u64,
    /// Outages begun so far (state events processed).
    pub outages: u64,
    /// The end of the run: a transmission that starts later never happens in it, so
    /// `lost` answers it without generating the periods up to its start (a queue on a slow
    /// link schedules starts far past the end: 1,000 packets at 1 b/s reach 2·10^7 s, 2·10^9
    /// periods of 10 ms; fuzz regression `outage_1bps_link`).
    horizon: SimTime,
}

impl Outage {
    /// Whether the schedule draws random numbers (exponential outage lengths).
    pub fn is_random(&self) -> bool {
        matches!(
            self.losses.gen,
            Gen::Periodic {
                len: Length::Exponential { .. },
                ..
            }
        )
    }

    pub fn new(s: Schedule) -> Self {
        Outage {
            losses: s.clone(),
            states: s,
            is_down: false,
            down_since: SimTime::ZERO,
            down_ps: 0,
            outages: 0,
            horizon: SimTime::MAX,
        }
    }

    /// Note when the run ends (see `horizon`).
    pub fn set_horizon(&mut self, end: SimTime) {
        self.horizon = end;
    }

    /// Does the transmission `[start, done)` overlap a down period? `start` must not
    /// decrease from one call to the next. Out of line: inlined into `Link::offer` (through
    /// `ErrorModel::lost`) it cost links without outages +0.8 % instructions on bench b
    /// (callgrind `run b 5`: 478.27 M inlined, 474.43 M out of line).
    #[inline(never)]
    pub fn lost(&mut self, start: SimTime, done: SimTime) -> bool {
        if start > self.horizon {
            return false;
        }
        while self.losses.up <= start {
            self.losses.advance();
        }
        self.losses.down < done
    }

    /// Whether the channel is down (as of the last state event).
    pub fn is_down(&self) -> bool {
        self.is_down
    }

    /// Time of the next down or up transition (`SimTime::MAX`: none).
    pub fn next_transition(&self) -> SimTime {
        if self.is_down {
            self.states.up
        } else {
            self.states.down
        }
    }

    /// Apply the transition due at `now` (= [`Outage::next_transition`]).
    pub fn transition(&mut self, now: SimTime) {
        if self.is_down {
            self.is_down = false;
            self.down_ps += now.since(self.down_since).0;
            self.states.advance();
        } else {
            self.is_down = true;
            self.down_since = now;
            self.outages += 1;
        }
    }

    /// Time spent down up to `now`, counting an outage in progress.
    pub fn down_time(&self, now: SimTime) -> SimDuration {
        let extra = if self.is_down {
            now.since(self.down_since).0
        } else {
            0
        };
        SimDuration(self.down_ps + extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dur(ps: u64) -> DurationValue {
        DurationValue(SimDuration(ps))
    }
    const S: u64 = 1_000_000_000_000;

    fn handoff(seed: u64) -> Schedule {
        PeriodicSpec {
            period: dur(5 * S),
            start: None,
            duration: None,
            mean: Some(dur(S)),
            cap: None,
            period_from: PeriodFrom::Start,
        }
        .build("outages.h", seed, 0)
        .unwrap()
    }

    #[test]
    fn periodic_exponential_schedule_has_the_stated_shape() {
        let n = 20_000;
        let p = handoff(1).periods(n);
        assert_eq!(p.len(), n);
        let mut sum = 0.0;
        for (k, &(d, u)) in p.iter().enumerate() {
            assert_eq!(
                d,
                SimTime(5 * S * (k as u64 + 1)),
                "starts every 5 s from 5 s"
            );
            assert!(
                u > d && u.since(d) <= SimDuration(5 * S),
                "capped at the period"
            );
            sum += u.since(d).as_secs_f64();
        }
        // Mean of min(Exp(1), 5) = 1 - e^-5; sd of Exp(1) <= 1, so 4 sigma < 4/sqrt(n).
        let mean = sum / n as f64;
        let want = 1.0 - (-5.0f64).exp();
        assert!(
            (mean - want).abs() < 4.0 / (n as f64).sqrt(),
            "{mean} vs {want}"
        );
        // The same seed and index give the same schedule; another seed another one.
        assert_eq!(handoff(1).periods(50), p[..50].to_vec());
        assert_ne!(handoff(2).periods(50), p[..50].to_vec());
    }

    #[test]
    fn period_from_end_counts_from_the_previous_up() {
        let s = PeriodicSpec {
            period: dur(5 * S),
            start: Some(dur(2 * S)),
            duration: Some(dur(S)),
            mean: None,
            cap: None,
            period_from: PeriodFrom::End,
        }
        .build("outages.h", 1, 0)
        .unwrap();
        let want: Vec<(SimTime, SimTime)> = vec![
            (SimTime(2 * S), SimTime(3 * S)),
            (SimTime(8 * S), SimTime(9 * S)),
            (SimTime(14 * S), SimTime(15 * S)),
        ];
        assert_eq!(s.periods(3), want);
    }

    #[test]
    fn a_start_after_the_horizon_generates_no_periods() {
        // 5-s periods from 5 s: a start 10^7 s ahead would walk 2·10^6 periods; after the
        // horizon it is answered at once and the schedule has not moved.
        let mut o = Outage::new(handoff(1));
        o.set_horizon(SimTime(100 * S));
        assert!(
            o.lost(SimTime(5 * S), SimTime(5 * S + 1)),
            "the first outage"
        );
        let at = (o.losses.down, o.losses.up);
        assert!(!o.lost(SimTime(10_000_000 * S), SimTime(10_000_001 * S)));
        assert_eq!((o.losses.down, o.losses.up), at);
        // Up to the horizon the answers are those of an unbounded model.
        let mut a = Outage::new(handoff(3));
        let mut b = Outage::new(handoff(3));
        b.set_horizon(SimTime(100 * S));
        for k in 0..1000u64 {
            let t = SimTime(k * S / 10);
            assert_eq!(
                a.lost(t, t + SimDuration(S / 20)),
                b.lost(t, t + SimDuration(S / 20))
            );
        }
    }

    #[test]
    fn loss_query_is_overlap_with_a_down_period() {
        let s = IntervalsSpec {
            intervals: vec![
                [dur(100), dur(200)],
                [dur(200), dur(250)],
                [dur(400), dur(500)],
            ],
        }
        .build("outages.x")
        .unwrap();
        let mut o = Outage::new(s);
        // (start, done, lost): ends exactly at down → kept; starts exactly at up → kept.
        let cases = [
            (0, 100, false),
            (50, 101, true),
            (150, 160, true),
            (240, 260, true),
            (250, 300, false),
            (300, 400, false),
            (390, 600, true),
            (500, 510, false),
            (10_000, 10_001, false),
        ];
        for (a, b, want) in cases {
            assert_eq!(o.lost(SimTime(a), SimTime(b)), want, "[{a}, {b})");
        }
    }

    #[test]
    fn state_transitions_count_outages_and_down_time() {
        let s = IntervalsSpec {
            intervals: vec![
                [dur(10), dur(30)],
                [dur(30), dur(35)],
                [dur(100), dur(1000)],
            ],
        }
        .build("outages.x")
        .unwrap();
        let mut o = Outage::new(s);
        let mut seen = Vec::new();
        while o.next_transition() < SimTime(500) {
            let t = o.next_transition();
            o.transition(t);
            seen.push((t.0, o.is_down()));
        }
        assert_eq!(
            seen,
            vec![
                (10, true),
                (30, false),
                (30, true),
                (35, false),
                (100, true)
            ]
        );
        assert_eq!(o.outages, 3);
        assert_eq!(o.down_time(SimTime(500)), SimDuration(20 + 5 + 400));
    }

    #[test]
    fn bad_schedules_name_their_field() {
        let base = PeriodicSpec {
            period: dur(5 * S),
            start: None,
            duration: None,
            mean: Some(dur(S)),
            cap: None,
            period_from: PeriodFrom::Start,
        };
        let err = |s: PeriodicSpec| s.build("outages.h", 1, 0).unwrap_err().field;
        let mut s = base.clone();
        s.period = dur(0);
        assert_eq!(err(s), "outages.h.period");
        // A picosecond period: 2·10^12 link state changes per simulated second (a 10-s run
        // did not finish in 30 s); 1 µs is the shortest accepted.
        let mut s = base.clone();
        (s.period, s.mean, s.duration) = (dur(1), None, Some(dur(1)));
        let e = s.clone().build("outages.h", 1, 0).unwrap_err();
        assert_eq!(e.field, "outages.h.period");
        assert!(e.reason.contains("shorter than 1us"), "{}", e.reason);
        s.period = dur(1_000_000);
        assert!(s.build("outages.h", 1, 0).is_ok());
        let mut s = base.clone();
        s.cap = Some(dur(6 * S));
        assert_eq!(err(s), "outages.h.cap");
        let mut s = base.clone();
        s.mean = None;
        assert_eq!(err(s), "outages.h");
        let mut s = base.clone();
        s.duration = Some(dur(S));
        assert_eq!(err(s), "outages.h");
        let e = IntervalsSpec {
            intervals: vec![[dur(10), dur(30)], [dur(20), dur(40)]],
        }
        .build("outages.x")
        .unwrap_err();
        assert_eq!(e.field, "outages.x.intervals[1]");
    }
}

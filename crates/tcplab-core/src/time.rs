//! Simulated time: integer picoseconds.
//!
//! `SimTime` is an instant, `SimDuration` a span; both wrap a `u64` count of picoseconds
//! (2^64 ps ≈ 213 days of simulated time). All arithmetic is integer, so a scenario and a
//! seed always give bit-identical results. `Rate` is a link or pacing rate in bits/s.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// The shortest period accepted for a component's own recurring timer (PIE's update, a
/// periodic outage, Snoop's timeouts): 1 µs, at most 10^6 firings per simulated second.
/// A picosecond timer made a run of seconds take days (found by the `run_bounded` fuzz
/// target, docs/reliability.md).
pub const MIN_TIMER_PERIOD: SimDuration = SimDuration(PS_PER_US);

/// The refusal of a timer period below [`MIN_TIMER_PERIOD`], or `None`.
pub fn timer_period_too_short(d: SimDuration) -> Option<String> {
    (d < MIN_TIMER_PERIOD).then(|| {
        format!(
            "{d} is shorter than 1us: the timer would fire 10^{} times per simulated second and be the whole cost of the run",
            (PS_PER_S as f64 / d.0.max(1) as f64).log10().round()
        )
    })
}

/// An instant of simulated time in picoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const fn from_ps(ps: u64) -> Self {
        SimDuration(ps)
    }
    pub const fn from_ns(ns: u64) -> Self {
        SimDuration(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Self {
        SimDuration(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Self {
        SimDuration(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * PS_PER_S)
    }
    /// Rounds to the nearest picosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimDuration(0)
        } else {
            SimDuration((s * PS_PER_S as f64).round() as u64)
        }
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, o: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

/// A rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Serialisation time of `bytes` at this rate, rounded up to the next picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u32) -> SimDuration {
        let num = bytes as u128 * 8 * PS_PER_S as u128;
        let r = self.0 as u128;
        SimDuration(num.div_ceil(r) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_is_exact_for_decimal_rates() {
        // 1500 B at 100 kb/s = 120 ms; at 5 Mb/s = 2.4 ms (P0 §4.2).
        assert_eq!(Rate(100_000).tx_time(1500), SimDuration::from_ms(120));
        assert_eq!(Rate(5_000_000).tx_time(1500), SimDuration::from_us(2400));
        assert_eq!(Rate(100_000).tx_time(28), SimDuration::from_us(2240));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 b/s = 2.666.. s -> rounded up.
        assert_eq!(Rate(3).tx_time(1).0, 2_666_666_666_667);
    }
}

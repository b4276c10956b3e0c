//! `onoff`: an on/off source (VBR background traffic), over UDP or TCP.

use super::{App, AppCx, Spacing};
use crate::rng::SimRng;
use crate::scenario::units::{DurationValue, RateValue};
use crate::scenario::ScenarioError;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;

/// On/off source: during an on period it writes `packet_size` bytes at the constant
/// spacing of the peak `rate`; during an off period it is silent. Like ns-3's
/// OnOffApplication it begins with an off period. Long-run mean rate
/// ≈ rate·on/(on+off).
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Peak rate during on periods (payload bytes only), e.g. "30Mbps".
    pub rate: RateValue,
    /// Payload bytes per write: one UDP datagram's payload, or one TCP write.
    #[serde(default = "super::cbr::default_packet_size")]
    pub packet_size: u32,
    /// On-period length (the mean, when exponential), e.g. "0.5s".
    pub on: DurationValue,
    /// Off-period length (the mean, when exponential), e.g. "1.2s".
    pub off: DurationValue,
    /// "exponential" (default) or "constant" period lengths.
    #[serde(default)]
    pub distribution: Distribution,
    /// When the first off period begins (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No writes from this time on (default: never).
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    #[default]
    Exponential,
    Constant,
}

/// Runtime state of an on/off source.
#[derive(Clone, Debug)]
pub struct OnOff {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub packet_size: u32,
    on: SimDuration,
    off: SimDuration,
    exponential: bool,
    rng: SimRng,
    spacing: Spacing,
    /// End of the current on period.
    on_end: SimTime,
}

impl OnOffSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        let size = super::packet_size(cx, self.packet_size)?;
        if self.on.0 == SimDuration::ZERO {
            return Err(cx.err("on", "must be positive"));
        }
        let (start, stop) = cx.window(self.start, self.stop)?;
        Ok(App::OnOff(OnOff {
            start,
            stop,
            packet_size: size,
            on: self.on.0,
            off: self.off.0,
            exponential: self.distribution == Distribution::Exponential,
            rng: cx.rng(),
            spacing: Spacing::new(self.rate.0, size),
            on_end: SimTime::ZERO,
        }))
    }
}

impl OnOff {
    /// A period of mean `mean`: itself, or exponential with that mean (rounded to ps).
    fn draw(&mut self, mean: SimDuration) -> SimDuration {
        if !self.exponential || mean == SimDuration::ZERO {
            return mean;
        }
        let u = self.rng.next_f64(); // [0, 1): 1 - u > 0
        let x = -(mean.0 as f64) * (1.0 - u).ln();
        SimDuration(x.round().min(u64::MAX as f64 / 4.0) as u64)
    }
    /// An off period from `t`, then the next non-empty on period; its first write time.
    fn next_burst(&mut self, mut t: SimTime) -> SimTime {
        loop {
            t += self.draw(self.off);
            let on = self.draw(self.on);
            if on > SimDuration::ZERO {
                self.on_end = t + on;
                self.spacing.restart(t);
                return t;
            }
        }
    }
    pub(super) fn begin(&mut self, now: SimTime) -> SimTime {
        self.next_burst(now)
    }
    #[inline]
    pub(super) fn tick(&mut self, _now: SimTime) -> (u32, SimTime) {
        let mut next = self.spacing.advance();
        if next >= self.on_end {
            next = self.next_burst(self.on_end);
        }
        (self.packet_size, next)
    }
}

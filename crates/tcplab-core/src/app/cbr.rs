//! `cbr`: constant bit rate, over UDP (one datagram per tick) or TCP (app-limited).

use super::{App, AppCx, Spacing};
use crate::config::units::{DurationValue, RateValue};
use crate::config::ScenarioError;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// Constant bit rate: one write of `packet_size` bytes every `packet_size·8 / rate`,
/// the first at `start`.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Application rate, counting payload bytes only (headers come on top on the wire),
    /// e.g. "1Mbps".
    pub rate: RateValue,
    /// Payload bytes per write: one UDP datagram's payload, or one TCP write.
    #[serde(default = "default_packet_size")]
    pub packet_size: u32,
    /// First write (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No writes from this time on (default: never).
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

pub(super) fn default_packet_size() -> u32 {
    1000
}

/// Runtime state of a CBR source.
#[derive(Clone, Debug)]
pub struct Cbr {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub packet_size: u32,
    spacing: Spacing,
}

impl CbrSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        let size = super::packet_size(cx, self.packet_size)?;
        let (start, stop) = cx.window(self.start, self.stop)?;
        Ok(App::Cbr(Cbr {
            start,
            stop,
            packet_size: size,
            spacing: Spacing::new(self.rate.0, size),
        }))
    }
}

impl Cbr {
    pub(super) fn begin(&mut self, now: SimTime) -> SimTime {
        self.spacing.restart(now);
        now
    }
    #[inline]
    pub(super) fn tick(&mut self, _now: SimTime) -> (u32, SimTime) {
        (self.packet_size, self.spacing.advance())
    }
}

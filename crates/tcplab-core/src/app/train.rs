//! `train`: packet pairs and packet trains, the probes of dispersion-based bandwidth
//! estimation.
//!
//! Seed 004's background slides ("Packet Pairs Bandwidth Histogram", "Packet Train
//! Bandwidth Histogram"), after
//! Dovrolis, Ramanathan, Moore, "What do packet dispersion techniques measure?", INFOCOM
//! 2001: every `interval` the source writes `length` packets of `packet_size` bytes at one
//! instant, so they leave the host back to back. A train of N packets of L wire bytes whose
//! first and last arrive Δ apart gives the estimate b = (N − 1)·L·8 / Δ; a pair is N = 2.
//! With `echo = true` on a UDP flow every packet's one-way delay comes back
//! (`probes.parquet`), from which the arrival times and each train's dispersion follow.
//!
//! The packets of a train are written by successive ticks at the same instant (one
//! datagram each); the first train is at `start`.

use super::{App, AppCx};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;

/// Longest train.
pub const MAX_LENGTH: u32 = 100_000;

/// `length` back-to-back writes of `packet_size` bytes every `interval`.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrainSpec {
    /// Packets per train (2 = packet pairs), 1-100000.
    pub length: u32,
    /// Payload bytes per packet (one UDP datagram's payload, or one TCP write).
    #[serde(default = "super::cbr::default_packet_size")]
    pub packet_size: u32,
    /// From the start of one train to the start of the next, e.g. "50ms".
    pub interval: DurationValue,
    /// First train (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// No writes from this time on (default: never).
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

/// Runtime state of a train source.
#[derive(Clone, Debug)]
pub struct Train {
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub packet_size: u32,
    length: u32,
    interval: SimDuration,
    /// Start of the current train and the packets of it written so far.
    train_t: SimTime,
    sent: u32,
}

impl TrainSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        let size = super::packet_size(cx, self.packet_size)?;
        if self.length == 0 || self.length > MAX_LENGTH {
            return Err(cx.err(
                "length",
                format!("must be 1-{MAX_LENGTH} packets, got {}", self.length),
            ));
        }
        if self.interval.0 == SimDuration::ZERO {
            return Err(cx.err("interval", "must be positive"));
        }
        let (start, stop) = cx.window(self.start, self.stop)?;
        Ok(App::Train(Train {
            start,
            stop,
            packet_size: size,
            length: self.length,
            interval: self.interval.0,
            train_t: SimTime::ZERO,
            sent: 0,
        }))
    }
}

impl Train {
    pub(super) fn begin(&mut self, now: SimTime) -> SimTime {
        self.train_t = now;
        self.sent = 0;
        now
    }

    #[inline]
    pub(super) fn tick(&mut self, now: SimTime) -> (u32, SimTime) {
        self.sent += 1;
        if self.sent < self.length {
            return (self.packet_size, now);
        }
        self.sent = 0;
        self.train_t += self.interval;
        (self.packet_size, self.train_t.max(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, AppCx, Begin};

    fn train(length: u32, interval_ms: u64) -> Result<App, ScenarioError> {
        TrainSpec {
            length,
            packet_size: 1500,
            interval: DurationValue(SimDuration::from_ms(interval_ms)),
            start: Some(DurationValue(SimDuration::from_ms(5))),
            stop: None,
        }
        .build(&AppCx {
            field: "flows.pp.app",
            seed: 1,
            index: 0,
            transport: "udp",
        })
    }

    #[test]
    fn trains_of_length_n_at_one_instant_every_interval() {
        let mut app = train(3, 50).unwrap();
        assert_eq!(app.start(), SimTime::ZERO + SimDuration::from_ms(5));
        let Begin::Tick(mut t) = app.begin(app.start()) else {
            panic!()
        };
        let mut w = Vec::new();
        while t < SimTime::ZERO + SimDuration::from_ms(160) {
            let (size, next) = app.tick(t);
            assert_eq!(size, 1500);
            w.push(t.since(SimTime::ZERO).as_secs_f64() * 1e3);
            t = next;
        }
        let ms: Vec<u64> = w.iter().map(|x| x.round() as u64).collect();
        assert_eq!(ms, [5, 5, 5, 55, 55, 55, 105, 105, 105, 155, 155, 155]);
    }

    #[test]
    fn bad_trains_name_the_key() {
        let e = |r: Result<App, ScenarioError>| r.err().unwrap().to_string();
        assert!(e(train(0, 50)).contains("flows.pp.app.length"));
        assert!(e(train(MAX_LENGTH + 1, 50)).contains("1-100000"));
        assert!(e(train(2, 0)).contains("flows.pp.app.interval"));
    }
}

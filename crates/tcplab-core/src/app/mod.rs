//! Traffic sources: what the application offers to its transport, and when.
//!
//! Passive sources (`bulk`, `transfer`) offer their data at start; active sources (`cbr`,
//! `onoff`, `poisson`, `train`) schedule `Event::AppTick` for their flow (at most one pending) and write one
//! packet's worth of bytes per tick: one datagram over UDP, or that many more bytes of
//! application limit over TCP (app-limited TCP). Each variant declares and validates its
//! parameters in its own file; `scenario::AppSpec` lists them.

pub mod bulk;
pub mod cbr;
pub mod onoff;
pub mod poisson;
pub mod train;
pub mod transfer;
pub mod workload;

use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use crate::time::{Rate, SimDuration, SimTime, PS_PER_S};

pub use cbr::Cbr;
pub use onoff::OnOff;
pub use poisson::Poisson;
pub use train::Train;

crate::tagged_enum! {
    /// Application of a flow, chosen by `type` (parameters in `app/`).
    #[derive(PartialEq)]
    pub enum AppSpec, tag "type" {
        /// Greedy sender.
        "bulk" => Bulk(crate::app::bulk::BulkSpec),
        /// A finite transfer.
        "transfer" => Transfer(crate::app::transfer::TransferSpec),
        /// Constant bit rate.
        "cbr" => Cbr(crate::app::cbr::CbrSpec),
        /// On/off source (constant or exponential periods).
        "onoff" => Onoff(crate::app::onoff::OnOffSpec),
        /// Poisson arrivals of writes of mixed sizes (cross traffic).
        "poisson" => Poisson(crate::app::poisson::PoissonSpec),
        /// Packet pairs / trains: `length` back-to-back writes every `interval`.
        "train" => Train(crate::app::train::TrainSpec),
    }
}

impl AppSpec {
    /// The keys profile `p` sets in this application's table (expansion writes them where
    /// the table does not set them). Each source decides in its own file.
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match self {
            AppSpec::Onoff(s) => s.profile_keys(p),
            _ => Vec::new(),
        }
    }
}

/// The runtime application of one flow.
#[derive(Clone, Debug)]
pub enum App {
    /// Greedy (FTP-like): always has data from `start` until `stop`.
    Bulk {
        start: SimTime,
        stop: Option<SimTime>,
    },
    /// A finite transfer of `bytes`, offered at once at `start` (and again at each rejoin
    /// when the flow is in a schedule).
    Transfer { start: SimTime, bytes: u64 },
    /// Constant bit rate: one `packet_size` write every `packet_size / rate`.
    Cbr(Cbr),
    /// On/off source: CBR at the peak rate during on periods, silent during off periods.
    OnOff(OnOff),
    /// Poisson arrivals of writes whose sizes are drawn from a mix.
    Poisson(Poisson),
    /// Packet pairs and trains.
    Train(Train),
}

/// What the application does when it (re)starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Begin {
    /// Offer this many more bytes at once (`u64::MAX` = unlimited).
    Offer(u64),
    /// An active source: its first tick is at this time.
    Tick(SimTime),
}

impl App {
    pub fn start(&self) -> SimTime {
        match self {
            App::Bulk { start, .. } | App::Transfer { start, .. } => *start,
            App::Cbr(c) => c.start,
            App::OnOff(o) => o.start,
            App::Poisson(p) => p.start,
            App::Train(t) => t.start,
        }
    }
    /// Delay the start by `d` (a flow's `start_jitter`; the caller checks the stop).
    pub fn shift_start(&mut self, d: SimDuration) {
        match self {
            App::Bulk { start, .. } | App::Transfer { start, .. } => *start += d,
            App::Cbr(c) => c.start += d,
            App::OnOff(o) => o.start += d,
            App::Poisson(p) => p.start += d,
            App::Train(t) => t.start += d,
        }
    }
    pub fn stop(&self) -> Option<SimTime> {
        match self {
            App::Bulk { stop, .. } => *stop,
            App::Transfer { .. } => None,
            App::Cbr(c) => c.stop,
            App::OnOff(o) => o.stop,
            App::Poisson(p) => p.stop,
            App::Train(t) => t.stop,
        }
    }
    /// An active source (schedules `AppTick`s).
    pub fn is_active_source(&self) -> bool {
        matches!(
            self,
            App::Cbr(_) | App::OnOff(_) | App::Poisson(_) | App::Train(_)
        )
    }
    /// Called at `AppStart` (and at each rejoin of a scheduled flow).
    pub fn begin(&mut self, now: SimTime) -> Begin {
        match self {
            App::Bulk { .. } => Begin::Offer(u64::MAX),
            App::Transfer { bytes, .. } => Begin::Offer(*bytes),
            App::Cbr(c) => Begin::Tick(c.begin(now)),
            App::OnOff(o) => Begin::Tick(o.begin(now)),
            App::Poisson(p) => Begin::Tick(p.begin(now)),
            App::Train(t) => Begin::Tick(t.begin(now)),
        }
    }
    /// An active source's tick: the bytes it writes now and the time of its next tick.
    #[inline]
    pub fn tick(&mut self, now: SimTime) -> (u32, SimTime) {
        match self {
            App::Cbr(c) => c.tick(now),
            App::OnOff(o) => o.tick(now),
            App::Poisson(p) => p.tick(now),
            App::Train(t) => t.tick(now),
            App::Bulk { .. } | App::Transfer { .. } => {
                unreachable!("passive sources schedule no ticks")
            }
        }
    }
}

/// What an application's `build` needs besides its own parameters.
pub struct AppCx<'a> {
    /// `flows.NAME.app`, for error messages.
    pub field: &'a str,
    pub seed: u64,
    /// Flow index (the app's random stream is `SimRng::derive(seed, Stream::App, index)`).
    pub index: u64,
    /// "tcp" or "udp".
    pub transport: &'a str,
}

impl AppCx<'_> {
    pub fn err(&self, key: &str, reason: impl Into<String>) -> ScenarioError {
        ScenarioError::new(format!("{}.{key}", self.field), reason)
    }
    pub fn rng(&self) -> SimRng {
        SimRng::derive(self.seed, Stream::App, self.index)
    }
    /// `start` (default 0) and `stop` (optional, after start) as times.
    pub fn window(
        &self,
        start: Option<DurationValue>,
        stop: Option<DurationValue>,
    ) -> Result<(SimTime, Option<SimTime>), ScenarioError> {
        let start = start.map_or(SimDuration::ZERO, |s| s.0);
        if let Some(s) = stop {
            if s.0 <= start {
                return Err(self.err("stop", "must be after start"));
            }
        }
        Ok((SimTime::ZERO + start, stop.map(|s| SimTime::ZERO + s.0)))
    }
    /// Passive sources need a reliable transport.
    pub fn need_tcp(&self, app: &str) -> Result<(), ScenarioError> {
        if self.transport == "tcp" {
            Ok(())
        } else {
            Err(ScenarioError::new(
                format!("{}.type", self.field),
                format!("'{app}' needs transport = \"tcp\"; use 'cbr', 'onoff', 'poisson' or 'train' over UDP"),
            ))
        }
    }
}

impl AppSpec {
    /// Validate and build the runtime application.
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        match self {
            AppSpec::Bulk(s) => s.build(cx),
            AppSpec::Transfer(s) => s.build(cx),
            AppSpec::Cbr(s) => s.build(cx),
            AppSpec::Onoff(s) => s.build(cx),
            AppSpec::Poisson(s) => s.build(cx),
            AppSpec::Train(s) => s.build(cx),
        }
    }
    /// The name of an explicitly set `start` or `stop` key, if any (a scheduled flow's
    /// schedule decides when it runs, so these must stay unset).
    pub fn explicit_time(&self) -> Option<&'static str> {
        let (start, stop) = match self {
            AppSpec::Bulk(s) => (s.start, s.stop),
            AppSpec::Transfer(s) => (s.start, None),
            AppSpec::Cbr(s) => (s.start, s.stop),
            AppSpec::Onoff(s) => (s.start, s.stop),
            AppSpec::Poisson(s) => (s.start, s.stop),
            AppSpec::Train(s) => (s.start, s.stop),
        };
        if start.is_some() {
            Some("start")
        } else if stop.is_some() {
            Some("stop")
        } else {
            None
        }
    }
}

impl Default for AppSpec {
    fn default() -> Self {
        AppSpec::Bulk(bulk::BulkSpec::default())
    }
}

/// Evenly spaced writes of `size` bytes at `rate`: write `k` of a run that began at
/// `anchor` is at `anchor + k·size·8/rate`, computed exactly (no accumulated rounding).
#[derive(Clone, Copy, Debug)]
pub struct Spacing {
    bits_ps: u128,
    bps: u128,
    anchor: SimTime,
    k: u64,
}

impl Spacing {
    pub fn new(rate: Rate, size: u32) -> Self {
        Spacing {
            bits_ps: size as u128 * 8 * PS_PER_S as u128,
            bps: rate.bps() as u128,
            anchor: SimTime::ZERO,
            k: 0,
        }
    }
    /// Start a new run of writes at `t`.
    #[inline]
    pub fn restart(&mut self, t: SimTime) {
        self.anchor = t;
        self.k = 0;
    }
    /// Count one write; the time of the next.
    #[inline]
    pub fn advance(&mut self) -> SimTime {
        self.k += 1;
        let off = (self.k as u128 * self.bits_ps) / self.bps;
        SimTime(
            self.anchor
                .0
                .saturating_add(off.min(u64::MAX as u128) as u64),
        )
    }
}

/// A packet size in bytes for an active source: positive, and over TCP any size is a
/// write (segmented by the MSS); over UDP one datagram payload.
pub fn packet_size(cx: &AppCx, size: u32) -> Result<u32, ScenarioError> {
    write_size(cx, "packet_size", size)
}

/// [`packet_size`]'s checks for a write size given under another key (`field`).
pub fn write_size(cx: &AppCx, field: &str, size: u32) -> Result<u32, ScenarioError> {
    if size == 0 {
        return Err(cx.err(field, "must be positive"));
    }
    if size > 65_507 && cx.transport == "udp" {
        return Err(cx.err(
            field,
            format!("{size} bytes is more than a UDP datagram carries (65507)"),
        ));
    }
    Ok(size)
}

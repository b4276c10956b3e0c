//! Traffic sources: what the application offers to its TCP sender, and when.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum App {
    /// Greedy (FTP-like): always has data from `start` until `stop`.
    Bulk {
        start: SimTime,
        stop: Option<SimTime>,
    },
    /// A finite transfer of `bytes`, offered at once at `start`.
    Transfer { start: SimTime, bytes: u64 },
}

impl App {
    pub fn start(&self) -> SimTime {
        match *self {
            App::Bulk { start, .. } | App::Transfer { start, .. } => start,
        }
    }
    pub fn stop(&self) -> Option<SimTime> {
        match *self {
            App::Bulk { stop, .. } => stop,
            App::Transfer { .. } => None,
        }
    }
    /// Total bytes offered at start (`u64::MAX` = unlimited).
    pub fn offered(&self) -> u64 {
        match *self {
            App::Bulk { .. } => u64::MAX,
            App::Transfer { bytes, .. } => bytes,
        }
    }
}

//! Streaming statistics: counters that add, never per-packet records.
//!
//! Per flow: in-order bytes delivered (goodput) and unique data wire bytes delivered
//! (throughput, the X-EFF numerator), overall, per interval and over the steady-state window.
//! Interval and trace rows are produced at interval granularity, so their memory grows with
//! `duration / interval`, never with the packet count. Their columns are declared once, in
//! [`columns`]; event traces on request are in [`events`].

pub mod columns;
pub mod events;
pub mod pcap;

pub use columns::{CwndTrace, IntervalColumns};

#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCounters {
    pub goodput_bytes: u64,
    pub wire_bytes: u64,
    pub interval_goodput: u64,
    pub interval_wire: u64,
    pub steady_goodput0: u64,
    pub steady_wire0: u64,
}

impl FlowCounters {
    #[inline]
    pub fn add(&mut self, delivered: u64, wire: u64) {
        self.goodput_bytes += delivered;
        self.wire_bytes += wire;
        self.interval_goodput += delivered;
        self.interval_wire += wire;
    }
}

/// Jain's fairness index `(Σx)² / (n·Σx²)`; 1 for an empty or all-zero input.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || s2 == 0.0 {
        1.0
    } else {
        s * s / (n * s2)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jain_bounds() {
        assert_eq!(super::jain_index(&[1.0, 1.0, 1.0]), 1.0);
        assert!((super::jain_index(&[1.0, 0.0, 0.0]) - 1.0 / 3.0).abs() < 1e-12);
    }
}

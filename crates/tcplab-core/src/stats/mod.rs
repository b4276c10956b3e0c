//! Streaming statistics: counters that add, never per-packet records.
//!
//! Per flow: in-order bytes delivered (goodput) and unique data wire bytes delivered
//! (throughput, the X-EFF numerator), overall, per interval and over the steady-state window.
//! Interval and trace rows are produced at interval granularity, so their memory grows with
//! `duration / interval`, never with the packet count.

pub mod pcap;

use serde::Serialize;

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

/// Per-flow interval series, column-oriented.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IntervalColumns {
    pub flow: Vec<String>,
    pub t_start: Vec<f64>,
    pub t_end: Vec<f64>,
    pub goodput_bps: Vec<f64>,
    pub throughput_bps: Vec<f64>,
    pub efficiency: Vec<f64>,
    pub cwnd_bytes: Vec<u64>,
    pub srtt_s: Vec<f64>,
}

/// Sampled traces, column-oriented (only when `metrics.trace` is set).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TraceColumns {
    pub cwnd_flow: Vec<String>,
    pub cwnd_t: Vec<f64>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub in_flight_bytes: Vec<u64>,
    pub queue_link: Vec<String>,
    pub queue_t: Vec<f64>,
    pub queue_packets: Vec<u32>,
    pub queue_bytes: Vec<u64>,
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

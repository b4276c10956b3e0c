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

/// Samples of one flow in the steady-state window (per-ack round trips, or one-way delays
/// in [`DelayStats`]): their count and sum
/// (mean) and a log histogram with 8 buckets per octave from 1 µs (bucket `8·⌊log2 µs⌋ +`
/// the next three bits; the last of 160 buckets holds everything from about 1.1e6 s),
/// so a quantile is known to within one bucket (≤ 9.1 % of its value). O(1) per sample, 640
/// bytes per flow allocated once.
#[derive(Clone, Debug)]
pub struct RttDist {
    n: u64,
    sum_ps: u128,
    hist: Box<[u32; RttDist::BUCKETS]>,
}

impl Default for RttDist {
    fn default() -> Self {
        RttDist {
            n: 0,
            sum_ps: 0,
            hist: Box::new([0; RttDist::BUCKETS]),
        }
    }
}

impl RttDist {
    const BUCKETS: usize = 160;

    #[inline]
    fn bucket(ps: u64) -> usize {
        let us = ps / 1_000_000;
        if us == 0 {
            return 0;
        }
        let l = 63 - us.leading_zeros() as usize; // floor(log2 us)
        let mant = if l >= 3 {
            (us >> (l - 3)) & 7
        } else {
            (us << (3 - l)) & 7
        } as usize;
        (8 * l + mant).min(Self::BUCKETS - 1)
    }
    /// Upper edge of bucket `b`, in seconds.
    fn upper_s(b: usize) -> f64 {
        let (l, m) = (b / 8, b % 8);
        (1u64 << l) as f64 * (1.0 + (m + 1) as f64 / 8.0) * 1e-6
    }
    #[inline]
    pub fn add(&mut self, rtt_ps: u64) {
        self.n += 1;
        self.sum_ps += rtt_ps as u128;
        let b = Self::bucket(rtt_ps);
        self.hist[b] = self.hist[b].saturating_add(1);
    }
    pub fn reset(&mut self) {
        self.n = 0;
        self.sum_ps = 0;
        self.hist.fill(0);
    }
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Mean in seconds (None without samples).
    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ps as f64 / self.n as f64 * 1e-12)
    }
    /// Quantile `q` (None without samples): found in its bucket, then interpolated linearly
    /// inside it as if the bucket's samples were spread evenly over it (a bucket is an
    /// eighth of an octave, so the value is within 12.5 % of the true quantile; below 8 µs
    /// buckets are whole microseconds). Before, this returned the bucket's upper edge, which
    /// put a p50 above the mean of samples all in one bucket.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = (q.clamp(0.0, 1.0) * self.n as f64).max(f64::MIN_POSITIVE);
        let mut acc = 0u64;
        for (b, &c) in self.hist.iter().enumerate() {
            if c > 0 && (acc + c as u64) as f64 >= rank {
                let lo = if b == 0 { 0.0 } else { Self::upper_s(b - 1) };
                let frac = ((rank - acc as f64) / c as f64).clamp(0.0, 1.0);
                return Some(lo + frac * (Self::upper_s(b) - lo));
            }
            acc += c as u64;
        }
        Some(Self::upper_s(Self::BUCKETS - 1))
    }
}

/// One-way delay of a flow's data packets (segments or datagrams) as ns-3's FlowMonitor
/// reports it, over the steady-state window: each packet that reaches the destination
/// host counts with `arrival − ts` (`ts`: when the source sent that copy, retransmissions
/// each their own), in a [`RttDist`] histogram (mean exact, quantiles to one bucket), and
/// jitter as the mean of `|d_i − d_{i−1}|` over consecutive arrivals (FlowMonitor's
/// `jitterSum / (rxPackets − 1)`, ns-3 `flow-monitor/model/flow-monitor.cc`,
/// `FlowMonitor::ReportLastRx`). O(1) per packet.
#[derive(Clone, Debug, Default)]
pub struct DelayStats {
    pub dist: RttDist,
    /// Delay of the previous arrival (`u64::MAX`: none yet in this window).
    last_ps: u64,
    /// Sum of `|d_i − d_{i−1}|` over the window's arrivals after its first (as many terms
    /// as samples less one).
    jitter_sum_ps: u128,
}

impl DelayStats {
    pub fn new() -> Self {
        DelayStats {
            last_ps: u64::MAX,
            ..Default::default()
        }
    }
    #[inline]
    pub fn add(&mut self, delay_ps: u64) {
        self.dist.add(delay_ps);
        if self.last_ps != u64::MAX {
            self.jitter_sum_ps += delay_ps.abs_diff(self.last_ps) as u128;
        }
        self.last_ps = delay_ps;
    }
    /// The steady-state window starts: forget what came before it.
    pub fn reset(&mut self) {
        self.dist.reset();
        self.last_ps = u64::MAX;
        self.jitter_sum_ps = 0;
    }
    /// Mean `|d_i − d_{i−1}|` in seconds (None with fewer than two arrivals).
    pub fn jitter_s(&self) -> Option<f64> {
        let pairs = self.dist.count().saturating_sub(1);
        (pairs > 0).then(|| self.jitter_sum_ps as f64 / pairs as f64 * 1e-12)
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

    #[test]
    fn rtt_distribution_mean_and_quantiles() {
        use super::RttDist;
        let mut d = RttDist::default();
        assert_eq!((d.mean_s(), d.quantile_s(0.99)), (None, None));
        // 990 samples of 40 ms, 10 of 400 ms.
        for _ in 0..990 {
            d.add(40_000_000_000);
        }
        for _ in 0..10 {
            d.add(400_000_000_000);
        }
        let mean = d.mean_s().unwrap();
        assert!((mean - 0.0436).abs() < 1e-9, "{mean}");
        let p99 = d.quantile_s(0.99).unwrap();
        assert!((0.040..=0.040 * 1.0911).contains(&p99), "{p99}");
        let p999 = d.quantile_s(0.999).unwrap();
        assert!((0.4..=0.4 * 1.0911).contains(&p999), "{p999}");
        d.reset();
        assert_eq!(d.count(), 0);
        // Extremes land in the first and last buckets without panicking.
        d.add(0);
        d.add(u64::MAX);
        assert_eq!(d.count(), 2);
    }

    #[test]
    fn quantiles_are_interpolated_inside_their_bucket() {
        use super::RttDist;
        // 1000 delays spread evenly over 44.0-44.999 ms (one bucket, 40.96-45.06 ms): the
        // bucket's upper edge (45.06 ms) was the p50 before; interpolated, it is within the
        // bucket's resolution of the true 44.5 ms, below the largest sample.
        let mut d = RttDist::default();
        for i in 0..1000u64 {
            d.add((44_000 + i) * 1_000_000);
        }
        let p50 = d.quantile_s(0.5).unwrap();
        assert!((p50 - 0.0445).abs() < 0.0445 * 0.125, "{p50}");
        assert!(p50 < 0.044999, "{p50}");
        // Spread over several buckets (10-90 ms evenly): p10, p50, p90 within 2 % of the truth.
        let mut d = RttDist::default();
        for i in 0..8000u64 {
            d.add((10_000_000 + i * 10_000) * 1_000_000 / 1000);
        }
        for (q, want) in [(0.1, 0.018), (0.5, 0.050), (0.9, 0.082)] {
            let got = d.quantile_s(q).unwrap();
            assert!((got - want).abs() < want * 0.02, "q {q}: {got} vs {want}");
        }
        let (lo, hi) = (d.quantile_s(0.0).unwrap(), d.quantile_s(1.0).unwrap());
        assert!(lo <= 0.010 && hi >= 0.08999, "{lo} {hi}");
    }

    #[test]
    fn one_way_delay_and_jitter_as_flow_monitor() {
        use super::DelayStats;
        let ms = |x: u64| x * 1_000_000_000;
        let mut d = DelayStats::new();
        assert_eq!((d.jitter_s(), d.dist.mean_s()), (None, None));
        d.add(ms(10));
        assert_eq!(d.jitter_s(), None, "one arrival has no jitter");
        // Delays 10, 14, 11, 11 ms: |4| + |3| + |0| over 3 pairs.
        for x in [14, 11, 11] {
            d.add(ms(x));
        }
        assert!((d.jitter_s().unwrap() - 7e-3 / 3.0).abs() < 1e-15);
        assert!((d.dist.mean_s().unwrap() - 11.5e-3).abs() < 1e-15);
        d.reset();
        d.add(ms(30));
        assert_eq!(d.jitter_s(), None, "the window restarts the pairs");
        assert_eq!(d.dist.count(), 1);
    }
}

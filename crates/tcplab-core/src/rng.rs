//! Per-component random streams.
//!
//! Every component that needs randomness (a lossy link, a RED queue, an on/off source) owns a
//! [`SimRng`] derived from `(scenario seed, component kind, component index)` with SplitMix64,
//! so adding a component never shifts another component's stream. The generator is
//! xoshiro256++ (Blackman & Vigna), small and fast; it is not cryptographic.

/// SplitMix64 step, used to expand seeds.
#[inline]
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Kinds of components, so that link 3 and flow 3 get unrelated streams.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Stream {
    LinkLoss = 1,
    Queue = 2,
    App = 3,
    Flow = 4,
    /// Gilbert-Elliott error model of a link direction (index: link).
    LinkError = 5,
    /// A named outage schedule (index: its position in `[outages]`, sorted by name).
    Outage = 6,
    /// A flow's `start_jitter` (index: the flow).
    StartJitter = 7,
    /// A flow's congestion-control algorithm (index: the flow; BBR's gain-cycle phase).
    Cc = 8,
    /// A topology builder's random choices (index 0: `[fat_tree]`'s permutation).
    Topology = 9,
    /// Workload arrivals: index (workload << 32) | source host (incast rounds and
    /// permutations: the low half all ones).
    Workload = 10,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimRng {
    s: [u64; 4],
}

impl SimRng {
    /// Whether this stream has drawn a number since it was derived as `(seed, kind,
    /// index)`: xoshiro256++'s state does not come back within any run (period 2^256 − 1),
    /// so a state other than the derived one means at least one draw. Costs nothing per
    /// draw; the run summary's `run.stochastic` asks it of every stream at the end.
    pub fn drew_since(&self, seed: u64, kind: Stream, index: u64) -> bool {
        *self != SimRng::derive(seed, kind, index)
    }

    /// The stream of component `index` of kind `kind` under scenario seed `seed`.
    pub fn derive(seed: u64, kind: Stream, index: u64) -> Self {
        let mut st = seed ^ 0x7463_706C_6162_0000; // "tcplab"
        let a = splitmix64(&mut st);
        let mut st2 = a ^ (kind as u64).wrapping_mul(0xA076_1D64_78BD_642F);
        let b = splitmix64(&mut st2);
        let mut st3 = b ^ index.wrapping_mul(0xE703_7ED1_A0B4_28DB);
        let s = [
            splitmix64(&mut st3),
            splitmix64(&mut st3),
            splitmix64(&mut st3),
            splitmix64(&mut st3),
        ];
        SimRng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.next_f64() < p
    }

    /// Exponentially distributed with mean 1 (inverse transform of one uniform draw).
    #[inline]
    pub fn exp1(&mut self) -> f64 {
        -(1.0 - self.next_f64()).ln()
    }

    /// Uniform integer in [0, n); `n` must be positive.
    /// A random permutation of `0..n` without fixed points (`n` ≥ 2): Fisher–Yates shuffles
    /// until one has none.
    pub fn derangement(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        loop {
            for i in (1..n).rev() {
                let j = self.below(i as u64 + 1) as usize;
                p.swap(i, j);
            }
            if p.iter().enumerate().all(|(i, &x)| i != x) {
                return p;
            }
        }
    }

    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = SimRng::derive(7, Stream::LinkLoss, 0);
        let mut b = SimRng::derive(7, Stream::LinkLoss, 0);
        let mut c = SimRng::derive(7, Stream::LinkLoss, 1);
        let mut d = SimRng::derive(7, Stream::Queue, 0);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        let xd: Vec<u64> = (0..4).map(|_| d.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert_ne!(xa, xd);
    }

    #[test]
    fn bernoulli_rate_is_close() {
        let mut r = SimRng::derive(1, Stream::LinkLoss, 0);
        let n = 200_000;
        let hits = (0..n).filter(|_| r.bernoulli(0.1)).count();
        let p = hits as f64 / n as f64;
        assert!((p - 0.1).abs() < 0.005, "{p}");
    }
}

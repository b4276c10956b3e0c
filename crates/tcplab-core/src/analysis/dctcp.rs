//! DCTCP's steady state on a single bottleneck (Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010, §3.3 "Analysis"): N long-lived, synchronized flows with identical RTTs share
//! a link of capacity C (packets/s) whose switch marks every packet arriving to a queue
//! above K packets; each flow's window follows a sawtooth.
//!
//! Notation: `bdp` = C·RTT in packets (RTT without queueing), K in packets, N flows.
//! - critical window (the queue reaches K): `W* = (C·RTT + K)/N`
//! - marked fraction α (eq. 7): the flow's window is marked for the one RTT in which it
//!   grows from W* to W* + 1, so `α²·(1 − α/4) = (2W* + 1)/(W* + 1)²`, hence (eq. 8)
//!   `α ≈ sqrt(2/W*)`
//! - window oscillation amplitude (eq. 9): `D = (W* + 1)·α/2` packets
//! - queue oscillation amplitude (eq. 10): `A = N·D ≈ ½·sqrt(2N·(C·RTT + K))` packets
//! - period (eq. 11): `T_C = D` round trips
//! - queue maximum (eq. 12): `Q_max = N·(W* + 1) − C·RTT = K + N`; minimum (eq. 13)
//!   `Q_min = Q_max − A`
//!
//! Not a prediction of the run's exact numbers: the analysis assumes synchronized flows and
//! one RTT of marking per cycle; tests/it/modern.rs compares it with a simulation.

/// The model's prediction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpSteady {
    pub w_star: f64,
    /// α from eq. 7 (solved exactly).
    pub alpha: f64,
    /// eq. 8's approximation sqrt(2/W*).
    pub alpha_approx: f64,
    /// Window amplitude D (packets).
    pub d: f64,
    /// Queue amplitude A = N·D (packets).
    pub amplitude: f64,
    /// Period, round trips.
    pub period_rtts: f64,
    pub q_max: f64,
    pub q_min: f64,
}

/// α solving `α²(1 − α/4) = (2W* + 1)/(W* + 1)²` in (0, 1] (bisection; the left side
/// increases on [0, 1], and the right side is at most 1 for W* ≥ 1 — for smaller W* every
/// packet is marked and α = 1).
pub fn alpha_exact(w_star: f64) -> f64 {
    let rhs = (2.0 * w_star + 1.0) / ((w_star + 1.0) * (w_star + 1.0));
    let f = |a: f64| a * a * (1.0 - a / 4.0);
    if f(1.0) <= rhs {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < rhs {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The steady state for `n` flows, `bdp` = C·RTT packets and marking threshold `k` packets.
pub fn steady_state(n: f64, bdp: f64, k: f64) -> DctcpSteady {
    let w_star = (bdp + k) / n;
    let alpha = alpha_exact(w_star);
    let d = (w_star + 1.0) * alpha / 2.0;
    let amplitude = n * d;
    let q_max = k + n;
    DctcpSteady {
        w_star,
        alpha,
        alpha_approx: (2.0 / w_star).sqrt(),
        d,
        amplitude,
        period_rtts: d,
        q_max,
        q_min: q_max - amplitude,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_alpha_approaches_sqrt_two_over_w() {
        for w in [10.0, 100.0, 1000.0, 1e5] {
            let a = alpha_exact(w);
            let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
            assert!((a * a * (1.0 - a / 4.0) - rhs).abs() < 1e-12);
            let rel = a / (2.0 / w).sqrt() - 1.0;
            // The approximation drops the α/4 and 1/W terms: a few per cent at W* = 100.
            assert!(rel.abs() < 2.0 / w.sqrt(), "W* {w}: {rel}");
        }
        assert_eq!(alpha_exact(0.5), 1.0);
    }

    #[test]
    fn paper_amplitude_form() {
        // eq. 10: A ≈ ½·sqrt(2N(C·RTT + K)); the paper's 10 Gb/s example has
        // C·RTT = 1000 packets, K = 65, N = 2 (large windows, where the approximations hold).
        let s = steady_state(2.0, 1000.0, 65.0);
        let approx = 0.5 * (2.0 * 2.0 * 1065.0f64).sqrt();
        assert!(
            (s.amplitude / approx - 1.0).abs() < 0.03,
            "{} vs {approx}",
            s.amplitude
        );
        assert_eq!(s.q_max, 67.0);
        assert!((s.q_min - (67.0 - s.amplitude)).abs() < 1e-12);
        assert_eq!(s.period_rtts, s.d);
    }
}

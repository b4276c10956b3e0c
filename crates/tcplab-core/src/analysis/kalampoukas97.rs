//! L. Kalampoukas, A. Varma, K. K. Ramakrishnan, "Improving TCP Throughput over Two-Way
//! Asymmetric Links: Analysis and Solutions", UCSC-CRL-97-20, 1997 (seed 000), §2.
//!
//! Two greedy connections, i (node i → node j, on the slow link) and j (the reverse), whose
//! data and the other connection's acks share one FIFO at each end host. With windows
//! `W_i`, `W_j` (packets), link capacities `ρ_i`, `ρ_j` (data packets/s) and round-trip
//! fixed delay `D = D_ij + D_ji`, write `x = W_i/ρ_i`, `y = W_j/ρ_j`.
//!
//! Ack compression needs (2.1) `x + y > D`.
//!
//! **Theorem 1** (2.2), efficiency of connection i:
//! - `F_i = 1` if `x > y + D`
//! - `F_i = 2x / (x + y + D)` if `y − D ≤ x ≤ y + D`
//! - `F_i = x / y` otherwise
//!
//! (F_j: swap i and j.)
//!
//! **Theorem 2** (2.3), maximum IP-queue occupancy at node i, in packets:
//! - `Q_i ≤ W_i − D·ρ_i` if `x > y + D`
//! - `Q_i ≤ (x + y − D)·ρ_i` if `y − D ≤ x ≤ y + D`
//! - `Q_i ≤ W_i` otherwise
//!
//! The theorems neglect ack transmission times; with non-negligible acks (28-byte acks
//! behind 1500-byte data) the simulated efficiencies sit slightly below them.

use serde::Serialize;

/// Which case of Theorem 1 / 2 applies, seen from connection i.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// `x > y + D`: i's window dominates; i runs at full efficiency.
    Dominant,
    /// `|x − y| ≤ D`: comparable windows.
    Balanced,
    /// `x < y − D`: i is held back by j's bunches.
    Dominated,
}

pub fn regime(x: f64, y: f64, d: f64) -> Regime {
    if x > y + d {
        Regime::Dominant
    } else if x >= y - d {
        Regime::Balanced
    } else {
        Regime::Dominated
    }
}

/// (2.1): whether ack compression occurs.
pub fn compression_condition(x: f64, y: f64, d: f64) -> bool {
    x + y > d
}

/// Theorem 1 (2.2): efficiency of the connection whose window time is `x`.
pub fn theorem1(x: f64, y: f64, d: f64) -> f64 {
    match regime(x, y, d) {
        Regime::Dominant => 1.0,
        Regime::Balanced => 2.0 * x / (x + y + d),
        Regime::Dominated => x / y,
    }
}

/// Theorem 2 (2.3): bound on the IP-queue occupancy (packets) at the node whose window is
/// `w` packets on a link of `rho` packets/s.
pub fn theorem2(w: f64, rho: f64, x: f64, y: f64, d: f64) -> f64 {
    match regime(x, y, d) {
        Regime::Dominant => w - d * rho,
        Regime::Balanced => (x + y - d) * rho,
        Regime::Dominated => w,
    }
}

/// Inputs of the two-way model in the paper's units.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TwoWayParams {
    /// Windows in packets.
    pub w_i: f64,
    pub w_j: f64,
    /// Capacities in data packets per second.
    pub rho_i: f64,
    pub rho_j: f64,
    /// Round-trip fixed delay in seconds.
    pub d: f64,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct TwoWayPrediction {
    pub x: f64,
    pub y: f64,
    pub compression: bool,
    pub regime_i: Regime,
    pub f_i: f64,
    pub f_j: f64,
    pub q_i_max: f64,
    pub q_j_max: f64,
}

pub fn predict(p: &TwoWayParams) -> TwoWayPrediction {
    let x = p.w_i / p.rho_i;
    let y = p.w_j / p.rho_j;
    TwoWayPrediction {
        x,
        y,
        compression: compression_condition(x, y, p.d),
        regime_i: regime(x, y, p.d),
        f_i: theorem1(x, y, p.d),
        f_j: theorem1(y, x, p.d),
        q_i_max: theorem2(p.w_i, p.rho_i, x, y, p.d),
        q_j_max: theorem2(p.w_j, p.rho_j, y, x, p.d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig_2_3_numbers() {
        // 43 packets of 1500 B; 100 kb/s = 8.333 pkt/s; 5 Mb/s = 416.67 pkt/s; D = 0.
        let p = TwoWayParams {
            w_i: 43.0,
            w_j: 43.0,
            rho_i: 100e3 / 12e3,
            rho_j: 5e6 / 12e3,
            d: 0.0,
        };
        let r = predict(&p);
        assert!((r.x - 5.16).abs() < 1e-9);
        assert!((r.y - 0.1032).abs() < 1e-9);
        assert_eq!(r.f_i, 1.0);
        assert!((r.f_j - 0.02).abs() < 1e-12); // = 1/alpha = 1/50
        assert_eq!(r.q_i_max, 43.0);
        assert_eq!(r.q_j_max, 43.0);
        assert!(r.compression);
    }

    #[test]
    fn balanced_case_is_continuous_at_its_edges() {
        let d = 0.5;
        let y = 1.0;
        let eps = 1e-9;
        assert!((theorem1(y + d + eps, y, d) - theorem1(y + d, y, d)).abs() < 1e-6);
        assert!((theorem1(y - d, y, d) - theorem1(y - d - eps, y, d)).abs() < 1e-6);
        // symmetric windows: each gets 2x/(2x + D)
        assert!((theorem1(1.0, 1.0, 0.5) - 0.8).abs() < 1e-12);
    }
}

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

//! # End-host remedies (§4–§6)
//!
//! In transmission times: `td_i`, `ta_i` = data / ack transmission time on the slow link,
//! `td_j` on the fast link; `α = td_i/td_j`, `β = td_i/ta_i` (so `α/β = ta_i/td_j`); `n_j` =
//! fast window in packets.
//!
//! **Ack priority** (§4.1): (4.1) `F_i = 1 − α/β` if `ta_i < td_j`, else 0;
//! (4.2) `N_a = min(n_j, α)`; (4.3) acks before the next data packet `N_a/(1 − α/β)`;
//! (4.4) `T_a = N_a·ta_i/(1 − α/β)`; (4.5) `F_j = (min(n_j·td_j, td_i) + T_a)/(td_i + T_a)`
//! `= min(1, n_j(β/α)/(β − α + n_j))` (right form assumes `n_j ≤ α`); if `ta_i ≥ td_j`:
//! `F_i = 0`, `F_j = td_j/ta_i = β/α`. The slow link also carries the acks, so its data
//! share is really `1 − F_j·α/β` ([`ack_priority`] reports both).
//!
//! **Backpressure, b = 1** (§5.1): (5.1) `Q^k = (α/β)Q^(k−1) + α·ta_i`, (5.2)
//! `Q^k = td_i Σ_{m=1..k} (α/β)^m`, (5.3) `Q^S = td_i·α/(β − α)` if `α < β`, (5.4)
//! `Q^S = n_j·ta_i` otherwise. **Theorem 3** (5.5–5.8): `F_i = td_i/(Q^S + td_i)`,
//! `F_j = min(1, n_j·td_j/(Q^S + td_i))`, i.e. `F_i = 1 − α/β`, `F_j = min(1, n_j(1/α − 1/β))`
//! if `α/β < 1`, else `F_i = β/(n_j + β)`, `F_j = min(1, n_j·β/((n_j + β)α))`.
//! As printed the first branch ignores that at most `n_j` acks can wait behind one data
//! packet: the steady state is `Q^S = ta_i·min(n_j, αβ/(β − α))`, so the first branch holds
//! only when `n_j ≥ αβ/(β − α)`. The paper's own numbers (56 %/48 %, 17.2 %/87 %) follow
//! this corrected rule; [`backpressure`] implements it and [`backpressure_printed`] the
//! theorem as printed.
//!
//! **Theorem 4**, thresholds `b_i`, `b_j` (5.9–5.13): `T^S` as `Q^S` above,
//! `Q^S = td_i·α·b_i/(β − α) + (b_i − 1)td_i` (α < β) or `n_j·ta_i + (b_i − 1)td_i`;
//! `F_i` as Theorem 3; `F_j = min(1, (n_j/b_i)(1/α − 1/β))` if `α/β < 1`, else
//! `min(1, n_j·β/((n_j + β·b_i)α))`.
//!
//! **Propagation delay** (§5.3, b = 1): `L_j = (D + td_i)/max(td_j, ta_i)`,
//! `λ_j = n_j − L_j`; (5.14) `F_i = 1 − α/β` if `α/β < 1` and `n_j > L_j`, otherwise
//! `1 − (n_j·α/(L_j·β))·min(1, β/α)`; (5.15) `F_j = min(1, λ_j(1/α − 1/β))` if `α/β < 1`
//! and `n_j > L_j`, otherwise `(n_j/L_j)·min(1, β/α)`. The text's rule ("if `n_j > L_j`
//! replace `n_j` by `λ_j` in (5.6)") is [`backpressure_delay_text`].
//!
//! **Bandwidth allocation** with data fraction f (§6): (6.1) `γ = (1 − f)β/f`;
//! (6.2) `T_max = min(n_j, γ)·ta_i`; (6.3) `F_i = td_i/(T_max + td_i) = max(β/(n_j + β), f)`;
//! (6.4) `F_j = min(1, min(n_j, γ)·td_j/(min(n_j, γ)·ta_i + td_i))`;
//! (6.5) `F_j = min(1, βn_j/(α(n_j + β)), (1 − f)β/α)`.

pub mod report;

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

/// The end-host quantities of §4–§6, in seconds and packets.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct AsymParams {
    /// Data transmission time on the slow link (i's packets).
    pub td_i: f64,
    /// Data transmission time on the fast link (j's packets).
    pub td_j: f64,
    /// Ack transmission time on the slow link (acks of j's packets).
    pub ta_i: f64,
    /// Ack transmission time on the fast link.
    pub ta_j: f64,
    /// Windows in packets.
    pub n_i: f64,
    pub n_j: f64,
    /// Round-trip propagation delay D.
    pub d: f64,
}

impl AsymParams {
    /// `α = td_i/td_j`.
    pub fn alpha(&self) -> f64 {
        self.td_i / self.td_j
    }
    /// `β = td_i/ta_i`.
    pub fn beta(&self) -> f64 {
        self.td_i / self.ta_i
    }
}

/// Efficiencies predicted by one closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Efficiencies {
    pub f_i: f64,
    pub f_j: f64,
}

/// Ack priority, eqs. 4.1–4.5. Returns (printed: `F_i` by 4.1, `F_j` by 4.5 in its general
/// `min(n_j·td_j, td_i)` form; refined: same `F_j`, `F_i = 1 − F_j·α/β`, the slow link's time
/// left after the acks that `F_j` implies).
pub fn ack_priority(p: &AsymParams) -> (Efficiencies, Efficiencies) {
    let (a, b) = (p.alpha(), p.beta());
    if p.ta_i >= p.td_j {
        // The slow link's ack rate caps the fast connection; no room for slow data.
        let f_j = (p.td_j / p.ta_i).min(1.0);
        let e = Efficiencies { f_i: 0.0, f_j };
        return (
            e,
            Efficiencies {
                f_i: (1.0 - f_j * a / b).max(0.0),
                f_j,
            },
        );
    }
    let r = a / b;
    let n_a = p.n_j.min(a);
    let t_a = n_a * p.ta_i / (1.0 - r);
    let f_j = ((p.n_j * p.td_j).min(p.td_i) + t_a) / (p.td_i + t_a);
    let f_j = f_j.min(1.0);
    (
        Efficiencies { f_i: 1.0 - r, f_j },
        Efficiencies {
            f_i: (1.0 - f_j * r).max(0.0),
            f_j,
        },
    )
}

/// Eq. 4.5's right-hand closed form `min(1, n_j(β/α)/(β − α + n_j))` (valid for `n_j ≤ α`).
pub fn eq_4_5_closed(p: &AsymParams) -> f64 {
    let (a, b) = (p.alpha(), p.beta());
    (p.n_j * (b / a) / (b - a + p.n_j)).min(1.0)
}

/// (5.2): ack time queued in front of the k-th slow packet after start, b = 1.
pub fn backpressure_q_k(p: &AsymParams, k: u32) -> f64 {
    let r = p.alpha() / p.beta();
    let mut q = 0.0;
    for _ in 0..k {
        q = r * q + p.alpha() * p.ta_i; // (5.1)
    }
    q
}

/// Steady-state ack time in front of each slow data packet with b = 1: (5.3)/(5.4) as
/// printed, and capped at `n_j` acks (at most one fast window of acks can wait).
pub fn backpressure_q_s(p: &AsymParams, capped: bool) -> f64 {
    let (a, b) = (p.alpha(), p.beta());
    if a < b {
        let q = p.td_i * a / (b - a);
        if capped {
            q.min(p.n_j * p.ta_i)
        } else {
            q
        }
    } else {
        p.n_j * p.ta_i
    }
}

/// Theorem 3 (b = 1) in its proof form `F_i = td_i/(Q^S + td_i)`,
/// `F_j = min(1, n_j·td_j/(Q^S + td_i))` with the capped steady state: the physically
/// consistent reading, and the one the paper's worked numbers follow.
pub fn backpressure(p: &AsymParams) -> Efficiencies {
    let q = backpressure_q_s(p, true);
    Efficiencies {
        f_i: p.td_i / (q + p.td_i),
        f_j: (p.n_j * p.td_j / (q + p.td_i)).min(1.0),
    }
}

/// Theorem 3 exactly as printed (branch chosen by `α/β < 1` alone).
pub fn backpressure_printed(p: &AsymParams) -> Efficiencies {
    let (a, b, n) = (p.alpha(), p.beta(), p.n_j);
    if a / b < 1.0 {
        Efficiencies {
            f_i: 1.0 - a / b,
            f_j: (n * (1.0 / a - 1.0 / b)).min(1.0),
        }
    } else {
        Efficiencies {
            f_i: b / (n + b),
            f_j: (n * b / ((n + b) * a)).min(1.0),
        }
    }
}

/// Theorem 4 as printed: thresholds `b_i` (slow node); `F_i` as Theorem 3 (printed).
pub fn backpressure_thm4(p: &AsymParams, b_i: f64) -> Efficiencies {
    let (a, b, n) = (p.alpha(), p.beta(), p.n_j);
    let f_i = backpressure_printed(p).f_i;
    let f_j = if a / b < 1.0 {
        ((n / b_i) * (1.0 / a - 1.0 / b)).min(1.0)
    } else {
        (n * b / ((n + b * b_i) * a)).min(1.0)
    };
    Efficiencies { f_i, f_j }
}

/// (5.9)–(5.11): steady-state queueing in front of a packet with threshold `b_i`.
pub fn backpressure_thm4_q_s(p: &AsymParams, b_i: f64) -> f64 {
    let (a, b) = (p.alpha(), p.beta());
    if a / b < 1.0 {
        p.td_i * a * b_i / (b - a) + (b_i - 1.0) * p.td_i
    } else {
        p.n_j * p.ta_i + (b_i - 1.0) * p.td_i
    }
}

/// `L_j = (D + td_i)/max(td_j, ta_i)` (§5.3).
pub fn l_j(p: &AsymParams) -> f64 {
    (p.d + p.td_i) / p.td_j.max(p.ta_i)
}

/// Eqs. 5.14 and 5.15 as printed.
pub fn backpressure_delay_printed(p: &AsymParams) -> Efficiencies {
    let (a, b, n) = (p.alpha(), p.beta(), p.n_j);
    let l = l_j(p);
    if a / b < 1.0 && n > l {
        Efficiencies {
            f_i: 1.0 - a / b,
            f_j: ((n - l) * (1.0 / a - 1.0 / b)).min(1.0),
        }
    } else {
        Efficiencies {
            f_i: 1.0 - (n * a / (l * b)) * (b / a).min(1.0),
            f_j: (n / l) * (b / a).min(1.0),
        }
    }
}

/// §5.3's prose rule: if `n_j > L_j`, Theorem 3 (corrected branch rule) with `λ_j = n_j − L_j`
/// in place of `n_j`; otherwise `F_j = n_j·td_j/(L_j·max(td_j, ta_i))` and the slow link's
/// remaining time `F_i = 1 − F_j·α/β`.
pub fn backpressure_delay_text(p: &AsymParams) -> Efficiencies {
    let l = l_j(p);
    if p.n_j > l {
        backpressure(&AsymParams {
            n_j: p.n_j - l,
            ..*p
        })
    } else {
        let f_j = p.n_j * p.td_j / (l * p.td_j.max(p.ta_i));
        Efficiencies {
            f_i: 1.0 - f_j * p.alpha() / p.beta(),
            f_j,
        }
    }
}

/// Backpressure with propagation delay, our combination (not in the paper): the fast
/// connection is bounded both by Theorem 3 (acks queued behind slow packets) and by its
/// window over the round trip, the `n_j ≤ L_j` branch of (5.15):
/// `F_j = min(F_j^Thm3, n_j·td_j/(L_j·max(td_j, ta_i)))`, and the slow link carries the rest,
/// `F_i = 1 − F_j·α/β`. At D = 0 it is Theorem 3; at large D it is (5.14)/(5.15).
pub fn backpressure_delay(p: &AsymParams) -> Efficiencies {
    let t3 = backpressure(p);
    let window = p.n_j * p.td_j / (l_j(p) * p.td_j.max(p.ta_i));
    let f_j = t3.f_j.min(window);
    Efficiencies {
        f_i: (1.0 - f_j * p.alpha() / p.beta()).clamp(0.0, 1.0),
        f_j,
    }
}

/// Acks sent between two slow data packets under bandwidth allocation, physically: the
/// scheduler stops them after `γ` (6.1), or the ack queue runs dry first. It does not run
/// dry after the `n_j` acks of (6.2): while acks are sent the fast connection keeps sending
/// and new acks arrive every `td_j`, exactly the §4 situation, so the burst is eq. 4.3's
/// `N_a/(1 − α/β)` with `N_a = min(n_j, α)` (4.2), and endless when `ta_i ≥ td_j`.
pub fn bwalloc_acks_per_packet(p: &AsymParams, f: f64) -> f64 {
    let g = bwalloc_gamma(p, f);
    let r = p.alpha() / p.beta();
    if r >= 1.0 {
        g
    } else {
        g.min(p.n_j.min(p.alpha()) / (1.0 - r))
    }
}

/// Bandwidth allocation with the ack burst of [`bwalloc_acks_per_packet`] in place of
/// (6.2)'s `min(n_j, γ)`: `F_i = td_i/(m·ta_i + td_i)`, `F_j = min(1, m·td_j/(m·ta_i + td_i))`.
pub fn bwalloc_burst(p: &AsymParams, f: f64) -> Efficiencies {
    let m = bwalloc_acks_per_packet(p, f);
    Efficiencies {
        f_i: p.td_i / (m * p.ta_i + p.td_i),
        f_j: (m * p.td_j / (m * p.ta_i + p.td_i)).min(1.0),
    }
}

/// (6.1): acks sent between two data packets when acks are plentiful.
pub fn bwalloc_gamma(p: &AsymParams, f: f64) -> f64 {
    (1.0 - f) * p.beta() / f
}

/// Connection-level bandwidth allocation, eqs. 6.3 and 6.4.
pub fn bwalloc(p: &AsymParams, f: f64) -> Efficiencies {
    let g = bwalloc_gamma(p, f);
    let m = p.n_j.min(g);
    Efficiencies {
        f_i: p.td_i / (m * p.ta_i + p.td_i),
        f_j: (m * p.td_j / (m * p.ta_i + p.td_i)).min(1.0),
    }
}

/// Eq. 6.5's closed form: `F_i = max(β/(n_j + β), f)`,
/// `F_j = min(1, βn_j/(α(n_j + β)), (1 − f)β/α)`.
pub fn bwalloc_closed(p: &AsymParams, f: f64) -> Efficiencies {
    let (a, b, n) = (p.alpha(), p.beta(), p.n_j);
    Efficiencies {
        f_i: (b / (n + b)).max(f),
        f_j: (b * n / (a * (n + b))).min((1.0 - f) * b / a).min(1.0),
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

    /// The paper's configurations: (slow data, fast data, ack) sizes → params.
    fn cfg(slow: f64, fast: f64, ack: f64, n_j: f64) -> AsymParams {
        let (ri, rj) = (100e3, 5e6);
        AsymParams {
            td_i: slow * 8.0 / ri,
            td_j: fast * 8.0 / rj,
            ta_i: ack * 8.0 / ri,
            ta_j: ack * 8.0 / rj,
            n_i: (65535.0 / slow).floor(),
            n_j,
            d: 0.0,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn ack_priority_paper_numbers() {
        // Fig 4.2 (A15): F_i = 0.50 (refined 0.538), F_j = 0.9247 = 86/93.
        let p = cfg(1500.0, 1500.0, 15.0, 43.0);
        assert!(close(p.alpha(), 50.0, 1e-9) && close(p.beta(), 100.0, 1e-9));
        let (pr, re) = ack_priority(&p);
        assert!(close(pr.f_i, 0.5, 1e-12));
        assert!(close(pr.f_j, 86.0 / 93.0, 1e-9), "{}", pr.f_j);
        assert!(close(eq_4_5_closed(&p), 86.0 / 93.0, 1e-9));
        assert!(close(re.f_i, 0.538, 1e-3));
        // Fig 4.3 (A28): F_i = 0.0667, F_j = 0.989.
        let (pr, _) = ack_priority(&cfg(1500.0, 1500.0, 28.0, 43.0));
        assert!(close(pr.f_i, 0.0667, 1e-4) && close(pr.f_j, 0.989, 1e-3));
        // Fig 4.4 (A40): starved slow connection, F_j = β/α = 0.75.
        let (pr, re) = ack_priority(&cfg(1500.0, 1500.0, 40.0, 43.0));
        assert_eq!(pr.f_i, 0.0);
        assert!(close(pr.f_j, 0.75, 1e-12) && close(re.f_i, 0.0, 1e-12));
    }

    #[test]
    fn backpressure_paper_numbers_and_branch_caveat() {
        // Fig 5.3 with the paper's β = 54: 56 % / 48 %.
        let mut p = cfg(1500.0, 1500.0, 28.0, 43.0);
        p.ta_i = p.td_i / 54.0;
        let e = backpressure(&p);
        assert!(close(e.f_i, 54.0 / 97.0, 1e-9) && close(e.f_j, 43.0 * 54.0 / (97.0 * 50.0), 1e-9));
        // Exact β: 0.5547 / 0.4771; printed theorem's first branch: 0.067 / 0.057.
        let p = cfg(1500.0, 1500.0, 28.0, 43.0);
        let e = backpressure(&p);
        assert!(close(e.f_i, 0.5547, 1e-4) && close(e.f_j, 0.4771, 1e-4));
        let lit = backpressure_printed(&p);
        assert!(close(lit.f_i, 0.0667, 1e-4) && close(lit.f_j, 0.0573, 1e-4));
        // The slow link is saturated: F_i + F_j·α/β = 1.
        assert!(close(e.f_i + e.f_j * p.alpha() / p.beta(), 1.0, 1e-9));
        // Fig 5.4 (B): 0.1753 / 0.8836; Fig 5.6 (C): 0.0672 / 0.3412.
        let e = backpressure(&cfg(256.0, 1500.0, 28.0, 43.0));
        assert!(close(e.f_i, 0.1753, 1e-4) && close(e.f_j, 0.8836, 1e-4));
        let pc = cfg(256.0, 512.0, 28.0, 127.0);
        let e = backpressure(&pc);
        assert!(close(e.f_i, 0.0672, 1e-4) && close(e.f_j, 0.3412, 1e-4));
        assert_eq!(e, backpressure_printed(&pc)); // α ≥ β: both agree
                                                  // A window large enough for the uncapped steady state: both readings agree, F_j = 1.
        let big = cfg(1500.0, 1500.0, 28.0, 800.0);
        assert_eq!(backpressure(&big).f_j, 1.0);
        assert!(close(
            backpressure(&big).f_i,
            backpressure_printed(&big).f_i,
            1e-12
        ));
    }

    #[test]
    fn backpressure_queue_recursion_converges_to_steady_state() {
        let p = cfg(1500.0, 1500.0, 28.0, 43.0);
        let qk = backpressure_q_k(&p, 2000);
        assert!(close(qk, backpressure_q_s(&p, false), 1e-6));
        // (5.2) closed sum equals the recursion.
        let r = p.alpha() / p.beta();
        let sum: f64 = (1..=5).map(|m| r.powi(m)).sum::<f64>() * p.td_i;
        assert!(close(backpressure_q_k(&p, 5), sum, 1e-12));
        // Theorem 4 at b = 1 is Theorem 3 as printed.
        assert_eq!(backpressure_thm4(&p, 1.0), backpressure_printed(&p));
        assert!(close(
            backpressure_thm4_q_s(&p, 1.0),
            backpressure_q_s(&p, false),
            1e-12
        ));
    }

    #[test]
    fn delay_forms_reproduce_the_documented_values() {
        // The paper's §5.3 at D = 0: A28 0.197/0.86; B 0.067/0.269; C text rule 0.072/0.339.
        let e = backpressure_delay_printed(&cfg(1500.0, 1500.0, 28.0, 43.0));
        assert!(close(e.f_i, 0.197, 1e-3) && close(e.f_j, 0.86, 1e-3));
        let e = backpressure_delay_printed(&cfg(256.0, 1500.0, 28.0, 43.0));
        assert!(close(e.f_i, 0.0667, 1e-3) && close(e.f_j, 0.269, 1e-3));
        let e = backpressure_delay_text(&cfg(256.0, 512.0, 28.0, 127.0));
        assert!(close(e.f_i, 0.072, 1e-3) && close(e.f_j, 0.339, 1e-3));
    }

    #[test]
    fn delay_combination_reduces_to_theorem3_and_to_eq_5_15() {
        for p in [
            cfg(1500.0, 1500.0, 28.0, 43.0),
            cfg(256.0, 1500.0, 28.0, 43.0),
            cfg(256.0, 512.0, 28.0, 127.0),
        ] {
            let e = backpressure_delay(&p);
            let t = backpressure(&p);
            assert!(close(e.f_i, t.f_i, 1e-9) && close(e.f_j, t.f_j, 1e-9));
            let far = AsymParams { d: 2.0, ..p };
            let e = backpressure_delay(&far);
            let printed = backpressure_delay_printed(&far);
            assert!(close(e.f_j, printed.f_j, 1e-9) && close(e.f_i, printed.f_i, 1e-9));
        }
    }

    #[test]
    fn bwalloc_paper_numbers() {
        // Fig 6.3 (B, f = .5): 0.50 / 0.536; Fig 6.4 (C): 0.50 / 0.183; Fig 6.5 (B, f = .18): 0.18 / 0.879.
        let b = cfg(256.0, 1500.0, 28.0, 43.0);
        let e = bwalloc_closed(&b, 0.5);
        assert!(close(e.f_i, 0.5, 1e-9) && close(e.f_j, 0.5357, 1e-4));
        assert!(close(bwalloc(&b, 0.5).f_i, 0.5, 1e-9));
        let e = bwalloc_closed(&cfg(256.0, 512.0, 28.0, 127.0), 0.5);
        assert!(close(e.f_i, 0.5, 1e-9) && close(e.f_j, 0.1829, 1e-4));
        let e = bwalloc_closed(&b, 0.18);
        assert!(close(e.f_i, 0.18, 1e-3) && close(e.f_j, 0.8786, 1e-4));
        // (6.3)/(6.4) and (6.5) are the same function.
        for &f in &[0.1, 0.18, 0.5, 0.8] {
            for p in [
                b,
                cfg(1500.0, 1500.0, 28.0, 43.0),
                cfg(256.0, 512.0, 28.0, 127.0),
            ] {
                let (x, y) = (bwalloc(&p, f), bwalloc_closed(&p, f));
                assert!(
                    close(x.f_i, y.f_i, 1e-9) && close(x.f_j, y.f_j, 1e-9),
                    "f={f}"
                );
            }
        }
        // Fig 6.2 (A28, f = .5): as printed, same as backpressure (the ack queue empties
        // after n_j acks); with the §4 ack burst the counter binds first and data gets f.
        let a = cfg(1500.0, 1500.0, 28.0, 43.0);
        assert!(close(bwalloc(&a, 0.5).f_i, backpressure(&a).f_i, 1e-9));
        assert!(close(bwalloc_burst(&a, 0.5).f_i, 0.5, 1e-9));
        // Where the burst is below γ and n_j the burst decides: α = 20, β = 50, n_j = 30.
        let mut q = cfg(1000.0, 1000.0, 20.0, 30.0);
        q.td_i = 0.040;
        q.td_j = 0.002;
        q.ta_i = 0.0008;
        assert!(close(bwalloc_acks_per_packet(&q, 0.5), 20.0 / 0.6, 1e-9));
        assert!(close(bwalloc_burst(&q, 0.5).f_i, 0.6, 1e-9));
    }
}

//! Closed forms of seed 003 (Zhang & Tsaoussidis, "The Interrelation of TCP Responsiveness
//! and Smoothness in Heterogeneous Networks", §2) and the standard-TCP response functions
//! the issue cross-checks them with.
//!
//! Notation: p = loss rate (loss events per packet), RTT and T0 (retransmission timeout)
//! in seconds, b = packets acknowledged per ack, α = segments added per round trip,
//! β = fraction of the window *kept* after a loss. Throughputs in packets per second.
//!
//! - eq. (1), GAIMD (Yang & Lam 2000, after Padhye et al. 1998):
//!   `T(p) = 1 / ( RTT·sqrt(2b(1−β)/(α(1+β))·p) + T0·min(1, 3·sqrt((1−β²)b/(2α)·p))·p·(1 + 32p²) )`
//! - eq. (2), TCP-friendliness: `T_{α,β} = T_{1,1/2}`.
//! - eq. (3): `α = 4(1 − β²)/3`. This equates only the timeout terms of eq. (1) with
//!   standard TCP's; equating the first (dominant at small p) term needs
//!   `α = 3(1 − β)/(1 + β)` instead: 0.2 for β = 7/8, where eq. 3
//!   gives 0.3125. Both are offered; [`friendly_alpha_timeout`] is the paper's.
//! - eq. (4), congestion epoch: `n = (1 − β)·W/α + 1` round trips.
//! - eq. (5): `W = B·RTT/N` packets (B = bottleneck packets per second, N flows).
//! - Mathis et al. 1997 (periodic losses): `T = sqrt(3/(2b p))/RTT` (MSS/RTT·C/√p with
//!   C = sqrt(3/2) when b = 1).
//! - Padhye et al. 1998 (full model without the receiver window): eq. (1) with α = 1, β = 1/2.
//! - P3 Observation 1: the climb from β·W to W takes (1 − β)·W/α round trips (3.2 s for
//!   TCP(1, 1/2) from 32 to 64 packets at 100 ms).

/// Eq. (1): GAIMD throughput, packets per second.
pub fn gaimd_throughput(p: f64, rtt: f64, t0: f64, b: f64, alpha: f64, beta: f64) -> f64 {
    let first = rtt * (2.0 * b * (1.0 - beta) / (alpha * (1.0 + beta)) * p).sqrt();
    let to = t0
        * (3.0 * ((1.0 - beta * beta) * b / (2.0 * alpha) * p).sqrt()).min(1.0)
        * p
        * (1.0 + 32.0 * p * p);
    1.0 / (first + to)
}

/// Eq. (3): the α that eq. (2) gives for β in the paper's derivation (timeout terms equal).
pub fn friendly_alpha_timeout(beta: f64) -> f64 {
    4.0 * (1.0 - beta * beta) / 3.0
}

/// The α that makes the first term of eq. (1) equal to standard TCP's.
pub fn friendly_alpha_first_term(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// Eq. (4): round trips in a congestion epoch from β·W to W.
pub fn epoch_rtts(w: f64, alpha: f64, beta: f64) -> f64 {
    (1.0 - beta) * w / alpha + 1.0
}

/// Eq. (5): per-flow window (packets) of N flows sharing B packets/s at round trip RTT.
pub fn fair_window(b_pkts: f64, rtt: f64, n: f64) -> f64 {
    b_pkts * rtt / n
}

/// Mathis et al. 1997: packets per second at loss rate p.
pub fn mathis_throughput(p: f64, rtt: f64, b: f64) -> f64 {
    (3.0 / (2.0 * b * p)).sqrt() / rtt
}

/// Padhye et al. 1998 (no receiver-window limit): eq. (1) for TCP(1, 1/2).
pub fn padhye_throughput(p: f64, rtt: f64, t0: f64, b: f64) -> f64 {
    gaimd_throughput(p, rtt, t0, b, 1.0, 0.5)
}

/// The four protocols of P3 §4, (α, β), smoothest first.
pub const PRESETS: [(f64, f64); 4] = [(0.31, 0.875), (0.583, 0.75), (1.0, 0.5), (1.25, 0.25)];

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a / b - 1.0).abs() < rel
    }

    #[test]
    fn eq3_gives_the_papers_pairs() {
        // P3 §2: β = 7/8 gives α = 0.31; the four presets are eq. (3) rounded to the digits
        // printed (0.3125 -> 0.31, 0.5833 -> 0.583).
        assert!(close(friendly_alpha_timeout(0.875), 0.3125, 1e-12));
        for (a, b) in PRESETS {
            assert!((friendly_alpha_timeout(b) - a).abs() < 0.005, "{a} {b}");
        }
        assert_eq!(friendly_alpha_first_term(0.5), 1.0);
        assert!(close(friendly_alpha_first_term(0.875), 0.2, 1e-12));
    }

    #[test]
    fn eq1_worked_numbers() {
        // A worked example: at p = 0.001, RTT = 0.1 s, T0 = 0.4 s,
        // b = 1, eq. 1 gives 477 pkt/s for TCP(0.31, 0.875) and 384 for TCP(1, 0.5).
        let smooth = gaimd_throughput(1e-3, 0.1, 0.4, 1.0, 0.31, 0.875);
        let std = gaimd_throughput(1e-3, 0.1, 0.4, 1.0, 1.0, 0.5);
        assert!((smooth - 477.0).abs() < 1.0, "{smooth}");
        assert!((std - 384.0).abs() < 1.0, "{std}");
        // With the first-term friendly α the two agree within the timeout term's share.
        let ft = gaimd_throughput(1e-3, 0.1, 0.4, 1.0, friendly_alpha_first_term(0.875), 0.875);
        assert!(close(ft, std, 0.02), "{ft} vs {std}");
        // Padhye is eq. 1 at (1, 1/2); at small p both approach Mathis.
        assert_eq!(padhye_throughput(1e-3, 0.1, 0.4, 1.0), std);
        assert!(close(
            padhye_throughput(1e-6, 0.1, 0.4, 1.0),
            mathis_throughput(1e-6, 0.1, 1.0),
            0.01
        ));
    }

    #[test]
    fn observation_1_and_epochs() {
        // TCP(1, 1/2) from 32 to 64 packets at 100 ms: 32 round trips = 3.2 s (eq. 4 counts
        // the round trip of the drop as well: 33).
        assert_eq!(epoch_rtts(64.0, 1.0, 0.5), 33.0);
        assert!(close((epoch_rtts(64.0, 1.0, 0.5) - 1.0) * 0.1, 3.2, 1e-12));
        // TCP(0.31, 0.875) needs (1/8)·64/0.31 + 1 = 26.8 round trips.
        assert!(close(
            epoch_rtts(64.0, 0.31, 0.875),
            0.125 * 64.0 / 0.31 + 1.0,
            1e-12
        ));
        // Eq. 5: 10 Mb/s of 1000-B packets, 100 ms, 10 flows: 12.5 packets each.
        assert_eq!(fair_window(1250.0, 0.1, 10.0), 12.5);
    }
}

//! Seed 000 Theorem 1 against the simulator on parameter sets chosen here (not the paper's):
//! different rate ratios, windows, packet sizes and non-zero delays, covering all three
//! regimes. The theorem neglects ack transmission times, so acks are kept small relative to
//! data (≤ 2 % of a data packet's serialisation time); the tolerance is 3 percentage points on
//! the steady-state mean, measured after both windows have reached their maximum.

use super::common::{opposite_flows, run, two_host};
use tcplab_core::analysis::kalampoukas97::Regime;

struct Case {
    name: &'static str,
    rate_i: &'static str,
    rate_j: &'static str,
    mss_i: u32,
    mss_j: u32,
    win_i: u64,
    win_j: u64,
    delay: &'static str,
    ack: u32,
    regime: Regime,
}

const CASES: &[Case] = &[
    Case {
        name: "dominant, 10x, 20 ms",
        rate_i: "200kbps",
        rate_j: "2Mbps",
        mss_i: 1460,
        mss_j: 1460,
        win_i: 32,
        win_j: 32,
        delay: "20ms",
        ack: 28,
        regime: Regime::Dominant,
    },
    Case {
        name: "dominant, 156x, 100 ms",
        rate_i: "64kbps",
        rate_j: "10Mbps",
        mss_i: 1460,
        mss_j: 1460,
        win_i: 16,
        win_j: 16,
        delay: "100ms",
        ack: 20,
        regime: Regime::Dominant,
    },
    Case {
        name: "dominated, 2x, 20 ms",
        rate_i: "1Mbps",
        rate_j: "2Mbps",
        mss_i: 960,
        mss_j: 1460,
        win_i: 8,
        win_j: 64,
        delay: "20ms",
        ack: 40,
        regime: Regime::Dominated,
    },
    Case {
        name: "dominated, 5.9x, 25 ms",
        rate_i: "256kbps",
        rate_j: "1500kbps",
        mss_i: 472,
        mss_j: 1460,
        win_i: 2,
        win_j: 40,
        delay: "25ms",
        ack: 40,
        regime: Regime::Dominated,
    },
    Case {
        name: "balanced, symmetric, 50 ms",
        rate_i: "1Mbps",
        rate_j: "1Mbps",
        mss_i: 960,
        mss_j: 960,
        win_i: 20,
        win_j: 20,
        delay: "50ms",
        ack: 40,
        regime: Regime::Balanced,
    },
    Case {
        name: "balanced, 8x, 50 ms",
        rate_i: "500kbps",
        rate_j: "4Mbps",
        mss_i: 960,
        mss_j: 1460,
        win_i: 16,
        win_j: 100,
        delay: "50ms",
        ack: 40,
        regime: Regime::Balanced,
    },
];

fn scenario(c: &Case) -> String {
    let flows = opposite_flows(
        c.mss_i,
        c.mss_j,
        c.ack,
        c.win_i * c.mss_i as u64,
        c.win_j * c.mss_j as u64,
        "0s",
    );
    let extra = r#"
[metrics]
interval = "10s"
steady_start = "400s"
[analysis.two_way]
slow = "i"
fast = "j"
"#;
    two_host(
        c.rate_i,
        c.rate_j,
        c.delay,
        c.delay,
        r#"{ type = "droptail", limit = "unlimited" }"#,
        0.0,
        &flows,
        "800s",
        extra,
    )
}

#[test]
fn theorem1_matches_simulation_in_all_three_regimes() {
    let mut failures = Vec::new();
    for c in CASES {
        let b = run(&scenario(c));
        let s = tcplab_core::report::summary(&b, 0.0);
        let a = &s["analysis"];
        let regime: Regime = match a["prediction"]["regime_i"].as_str().unwrap() {
            "dominant" => Regime::Dominant,
            "balanced" => Regime::Balanced,
            _ => Regime::Dominated,
        };
        assert_eq!(
            regime, c.regime,
            "{}: parameter set is not in the intended regime",
            c.name
        );
        for f in &b.sim.flows {
            let at = f
                .max_window_at
                .expect("window reached its maximum")
                .as_secs_f64();
            assert!(
                at < 400.0,
                "{}: flow {} reached its max window only at {at}",
                c.name,
                f.name
            );
        }
        for row in a["rows"].as_array().unwrap() {
            let an = row["analytic"].as_f64().unwrap();
            let sim = row["simulated"].as_f64().unwrap();
            if (sim - an).abs() > 0.03 {
                failures.push(format!(
                    "{}: flow {}: analytic {an:.4}, simulated {sim:.4}",
                    c.name, row["flow"]
                ));
            }
        }
        // Theorem 2: the peak queue (data packets; acks add at most the other window) stays
        // within the bound plus the other connection's acks.
        for (row, w_other) in a["rows"].as_array().unwrap().iter().zip([c.win_j, c.win_i]) {
            let q = row["max_queue"].as_f64().unwrap();
            let bound = row["q_max_bound"].as_f64().unwrap();
            assert!(
                q <= bound.ceil() + w_other as f64 + 1.0,
                "{}: max queue {q} > bound {bound} + {w_other} acks",
                c.name
            );
        }
    }
    assert!(
        failures.is_empty(),
        "Theorem 1 disagreements:\n{}",
        failures.join("\n")
    );
}

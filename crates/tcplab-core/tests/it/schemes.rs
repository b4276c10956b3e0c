//! Seed 000's end-host schemes against their closed forms on parameter sets of our own
//! (other rates, packet and ack sizes, windows, f), plus the properties §4–§6 claim.

use super::common::{opposite_flows, run, two_host};
use serde_json::Value;
use tcplab_core::stats::jain_index;
use tcplab_core::time::SimTime;

/// A held-out configuration: slow link a→b, fast link b→a, one greedy connection each way.
struct Case {
    name: &'static str,
    rate_slow: &'static str,
    rate_fast: &'static str,
    /// Wire sizes of the data packets (payload = size − 40) and the acks.
    data_slow: u32,
    data_fast: u32,
    ack: u32,
    /// Windows in packets.
    win_slow: u64,
    win_fast: u64,
}

fn scenario(c: &Case, queue: &str, backpressure: Option<u32>, limit: &str) -> String {
    let q = format!(r#"{{ {queue}, limit = {limit} }}"#);
    let (mi, mj) = (c.data_slow - 40, c.data_fast - 40);
    let flows = opposite_flows(
        mi,
        mj,
        c.ack,
        c.win_slow * mi as u64,
        c.win_fast * mj as u64,
        "1s",
    );
    let mut toml = two_host(
        c.rate_slow,
        c.rate_fast,
        "0s",
        "0s",
        &q,
        0.0,
        &flows,
        "300s",
        r#"
[metrics]
interval = "3s"
steady_start = "60s"
[analysis.two_way]
slow = "i"
fast = "j"
"#,
    );
    if let Some(b) = backpressure {
        toml = toml.replace("loss = 0\n", &format!("loss = 0\nbackpressure = {b}\n"));
        assert!(toml.contains("backpressure"), "backpressure not inserted");
    }
    toml
}

fn analysis(toml: &str) -> (Value, tcplab_core::scenario::Built) {
    let b = run(toml);
    let s = tcplab_core::report::summary(&b, 0.0);
    (s, b)
}

/// Rows whose simulated efficiency is more than `tol` from the primary closed form.
fn disagreements(name: &str, s: &Value, tol: f64) -> Vec<String> {
    let mut out = Vec::new();
    for row in s["analysis"]["rows"].as_array().unwrap() {
        let (an, sim) = (
            row["analytic"].as_f64().unwrap(),
            row["simulated"].as_f64().unwrap(),
        );
        if (sim - an).abs() > tol {
            out.push(format!(
                "{name}: {} {}: closed form ({}) {an:.4}, simulated {sim:.4}",
                row["role"], row["flow"], row["analytic_label"]
            ));
        }
    }
    for w in s["warnings"].as_array().unwrap() {
        out.push(format!("{name}: warning: {w}"));
    }
    out
}

const CASES: &[Case] = &[
    Case {
        name: "200k/4M 1000/1000 ack 20",
        rate_slow: "200kbps",
        rate_fast: "4Mbps",
        data_slow: 1000,
        data_fast: 1000,
        ack: 20,
        win_slow: 30,
        win_fast: 30,
    },
    Case {
        name: "64k/2M 576/1500 ack 24",
        rate_slow: "64kbps",
        rate_fast: "2Mbps",
        data_slow: 576,
        data_fast: 1500,
        ack: 24,
        win_slow: 40,
        win_fast: 20,
    },
    Case {
        name: "500k/10M 512/1024 ack 40",
        rate_slow: "500kbps",
        rate_fast: "10Mbps",
        data_slow: 512,
        data_fast: 1024,
        ack: 40,
        win_slow: 60,
        win_fast: 64,
    },
    Case {
        name: "128k/8M 1500/800 ack 12",
        rate_slow: "128kbps",
        rate_fast: "8Mbps",
        data_slow: 1500,
        data_fast: 800,
        ack: 12,
        win_slow: 20,
        win_fast: 50,
    },
];

#[test]
fn ack_priority_matches_eq_4_5_on_held_out_sets() {
    let mut bad = Vec::new();
    for c in CASES {
        let (s, _) = analysis(&scenario(c, r#"type = "ackprio""#, None, r#""unlimited""#));
        assert_eq!(s["analysis"]["scheme"], "ackprio");
        bad.extend(disagreements(c.name, &s, 0.03));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn backpressure_matches_theorem3_on_held_out_sets() {
    let mut bad = Vec::new();
    for c in CASES {
        let (s, _) = analysis(&scenario(
            c,
            r#"type = "droptail""#,
            Some(1),
            r#""unlimited""#,
        ));
        assert_eq!(s["analysis"]["scheme"], "backpressure");
        bad.extend(disagreements(c.name, &s, 0.03));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Eqs. 6.3/6.4 with the acks per slow packet capped by γ and by the §4 ack burst (the
/// report's primary form for bandwidth allocation).
#[test]
fn bandwidth_allocation_matches_eq_6_3_on_held_out_sets() {
    let mut bad = Vec::new();
    for c in CASES {
        for f in [0.2, 0.5, 0.8] {
            let (s, _) = analysis(&scenario(
                c,
                &format!(r#"type = "bwalloc", data_fraction = {f}"#),
                None,
                r#""unlimited""#,
            ));
            bad.extend(disagreements(&format!("{} f={f}", c.name), &s, 0.03));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// §6: the slow connection gets at least f of the slow link whatever the fast connection's
/// packet size (and its own).
#[test]
fn allocation_guarantees_the_data_fraction_over_a_grid() {
    let mut bad = Vec::new();
    for f in [0.1, 0.18, 0.5, 0.8] {
        for data_fast in [128, 512, 1500] {
            for data_slow in [256, 1500] {
                let c = Case {
                    name: "grid",
                    rate_slow: "100kbps",
                    rate_fast: "5Mbps",
                    data_slow,
                    data_fast,
                    ack: 28,
                    win_slow: 65535 / data_slow as u64,
                    win_fast: 65535 / data_fast as u64,
                };
                let (s, _) = analysis(&scenario(
                    &c,
                    &format!(r#"type = "bwalloc", data_fraction = {f}"#),
                    None,
                    r#""unlimited""#,
                ));
                let sim_i = s["analysis"]["rows"][0]["simulated"].as_f64().unwrap();
                // Efficiency counts whole wire bytes of data; allow one slow packet per 3-s
                // interval of granularity.
                if sim_i < f - 0.005 {
                    bad.push(format!(
                        "f={f} fast {data_fast} B slow {data_slow} B: slow efficiency {sim_i:.4}"
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Fig 5.5: three backpressured connections each way, started 1 s apart, share their
/// direction fairly.
#[test]
fn fig_5_5_is_fair_per_direction() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/kalampoukas97/fig5_5.toml"
    ))
    .unwrap();
    let b = run(&text);
    let s = tcplab_core::report::summary(&b, 0.0);
    for side in ["slow", "fast"] {
        let effs: Vec<f64> = s["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["name"].as_str().unwrap().starts_with(side))
            .map(|f| f["efficiency"].as_f64().unwrap())
            .collect();
        assert_eq!(effs.len(), 3);
        let j = jain_index(&effs);
        assert!(j >= 0.95, "{side}: Jain index {j:.4} over {effs:?}");
    }
}

/// Invariants for every end-host discipline: the link never idles while its queue holds a
/// packet, and queues sized to the two windows (data of one, acks of the other) lose nothing.
#[test]
fn schedulers_never_idle_and_window_sized_queues_lose_nothing() {
    let c = &CASES[2];
    let limit = format!("{}", c.win_slow.max(c.win_fast) * 2);
    for (queue, bp) in [
        (r#"type = "droptail""#, None),
        (r#"type = "droptail""#, Some(1)),
        (r#"type = "ackprio""#, None),
        (r#"type = "bwalloc", data_fraction = 0.3"#, None),
    ] {
        let mut b = super::common::build(&scenario(c, queue, bp, &limit));
        let mut t = SimTime::ZERO;
        let step = tcplab_core::time::SimDuration::from_ms(1);
        while !b.sim.is_finished() {
            t += step;
            b.sim.run_until(t);
            for l in &b.sim.links {
                let (occ, _) = l.occupancy();
                let queued = tcplab_core::queue::QueueDisc::backlog(&l.queue).packets;
                assert!(
                    !(queued > 0 && occ == queued),
                    "{queue} bp={bp:?}: link {} idle with {queued} packets queued at {t:?}",
                    l.name
                );
            }
        }
        for l in &b.sim.links {
            assert_eq!(
                l.drops.packets, 0,
                "{queue} bp={bp:?}: link {} dropped",
                l.name
            );
        }
    }
}

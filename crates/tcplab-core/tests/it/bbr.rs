//! BBR v1 (`cc/bbr.rs`) and sender pacing on dumbbells: one BBR flow fills a 100 Mb/s,
//! 40 ms path with a 1-BDP buffer while keeping the queue short, two share it fairly, and a
//! paced flow sends at its rate.

use crate::common::{f, named, summary, u};

/// `n` flows of `cc` (TOML) over a 100 Mb/s, 40 ms dumbbell with a one-BDP buffer
/// (333 packets, 40 ms of queueing), SACK on (as Linux runs BBR).
fn dumbbell(n: usize, cc: &str, duration: &str, extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
metrics = {{ steady_start = "5s" }}
defaults.flows = {{ init_cwnd = 10, sack = true {extra} }}
[dumbbell]
bottleneck = {{ rate = "100Mbps", delay = "18ms", buffer = "1bdp" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
flows = [{{ count = {n}, cc = {cc} }}]
"#
    )
}

fn queueing_s(s: &serde_json::Value, name: &str) -> f64 {
    let fl = named(s, "flows", name);
    f(&fl["mean_rtt_s"]) - f(&fl["min_rtt_s"])
}

#[test]
fn one_bbr_flow_fills_the_pipe_with_a_short_queue() {
    let s = summary(&dumbbell(1, "\"bbr\"", "20s", ""));
    let bn = named(&s, "links", "bn");
    let util = f(&bn["steady_utilization"]);
    // Pacing at 0.99 of the payload rate charged in wire bytes (1460/1500), the gain cycle
    // averaging 1: the link stays busy from the queue the 1.25 phase builds.
    assert!(util >= 0.95, "utilisation {util}");
    // The buffer holds 40 ms; BBR keeps the mean queueing delay far below it.
    let q = queueing_s(&s, "f1");
    assert!(q < 0.010, "queueing delay {q} s");
    // Startup overshoots into the 1-BDP buffer; after it, no timeouts.
    assert_eq!(u(&named(&s, "flows", "f1")["steady_timeouts"]), 0);
    // CUBIC on the same path fills the buffer: the contrast the test is about.
    let c = summary(&dumbbell(1, "\"cubic\"", "20s", ""));
    let qc = queueing_s(&c, "f1");
    assert!(qc > 2.0 * q, "cubic {qc} s vs bbr {q} s");
}

#[test]
fn two_bbr_flows_share_fairly() {
    let s = summary(&dumbbell(2, "\"bbr\"", "30s", ""));
    let jain = f(&s["fairness"]["jain"]);
    assert!(jain >= 0.95, "Jain {jain}");
    let util = f(&named(&s, "links", "bn")["steady_utilization"]);
    assert!(util >= 0.9, "utilisation {util}");
}

#[test]
fn a_fixed_pacing_rate_sets_the_throughput_of_an_unlimited_window() {
    // NewReno with a huge window over 1 Gb/s access, paced at 20 Mb/s (wire): the goodput
    // is the payload share of the paced rate and nothing queues at the sender's host.
    let s = summary(&dumbbell(1, "\"newreno\"", "6s", r#", pacing = "20Mbps""#));
    let fl = named(&s, "flows", "f1");
    let good = f(&fl["goodput_bps"]);
    let want = 20e6 * 1460.0 / 1500.0;
    assert!(
        (good - want).abs() < want * 0.01,
        "goodput {good} vs {want}"
    );
    assert_eq!(u(&fl["retransmits"]), 0);
    let access = named(&s, "links", "s1");
    assert!(u(&access["max_queue"]) <= 1, "{}", access["max_queue"]);
}

#[test]
fn linux_pacing_paces_cubic_without_changing_it_when_off() {
    let off = summary(&dumbbell(1, "\"cubic\"", "6s", ""));
    let explicit_off = summary(&dumbbell(1, "\"cubic\"", "6s", r#", pacing = "off""#));
    assert_eq!(off["flows"], explicit_off["flows"]);
    assert!(off["flows"][0]["cc"] == "cubic");
    // Paced at 1.2·cwnd/srtt in congestion avoidance: the link stays busy, and the run
    // differs from the unpaced one.
    let linux = summary(&dumbbell(1, "\"cubic\"", "6s", r#", pacing = "linux""#));
    assert!(f(&named(&linux, "links", "bn")["steady_utilization"]) > 0.9);
    assert_ne!(off["flows"], linux["flows"]);
}

#[test]
fn bbr_runs_are_deterministic_and_seeds_change_the_cycle_phase() {
    let sc = dumbbell(2, "\"bbr\"", "8s", "");
    let a = summary(&sc);
    let b = summary(&sc);
    assert_eq!(a["flows"], b["flows"]);
    let mut c = tcplab_core::load_toml(&sc, Some(7)).unwrap();
    c.sim.run();
    let c = tcplab_core::report::summary(&c, 0.0);
    assert_ne!(a["flows"], c["flows"], "seed 7 draws other start phases");
}

#[test]
fn bbr_parameters_are_validated_by_name() {
    let bad = dumbbell(1, r#"{ algorithm = "bbr", cwnd_gain = 0.5 }"#, "1s", "");
    let e = tcplab_core::load_toml(&bad, None).err().expect("refused");
    assert!(e.to_string().contains("cc.cwnd_gain"), "{e}");
    let bad = dumbbell(1, "\"bbr\"", "1s", r#", pacing = "fast""#);
    let e = tcplab_core::load_toml(&bad, None).err().expect("refused");
    assert!(e.to_string().contains("pacing"), "{e}");
}

#[test]
fn an_explicit_prr_on_a_bbr_flow_warns_a_profiles_does_not() {
    let prr_warnings = |cc: &str, extra: &str| -> Vec<String> {
        let s = summary(&dumbbell(1, cc, "6s", extra));
        s["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .filter(|w| w.contains("prr"))
            .collect()
    };
    // The user's own prr: on the flow (here the builder's flow table), or in [defaults.flows].
    for (cc, extra) in [
        ("\"bbr\", prr = \"ssrb\"", ""),
        ("\"bbr\"", r#", prr = "crb""#),
        ("\"bbr\"", r#", profile = "linux", prr = "ssrb""#),
    ] {
        let w = prr_warnings(cc, extra);
        assert!(
            w.len() == 1 && w[0].contains("'f1'") && w[0].contains("bbr"),
            "{cc} {extra}: {w:?}"
        );
    }
    // The linux and ns3 profiles' prr, prr = "off", and prr on an algorithm PRR applies to.
    for (cc, extra) in [
        ("\"bbr\"", r#", profile = "linux""#),
        ("\"bbr\", profile = \"ns3\"", ""),
        ("\"bbr\"", r#", prr = "off""#),
        ("\"cubic\", prr = \"ssrb\"", ""),
        ("\"cubic\"", r#", prr = "crb""#),
    ] {
        let w = prr_warnings(cc, extra);
        assert!(w.is_empty(), "{cc} {extra}: {w:?}");
    }
}

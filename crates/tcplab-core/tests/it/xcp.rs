//! XCP (`queue/xcp.rs` routers, `cc/xcp.rs` end hosts): Katabi, Handley & Rohrs' headline
//! result, shortened. Five XCP flows with propagation round trips 20-200 ms join a 20 Mb/s
//! bottleneck one second apart; with the XCP router they converge to equal shares with a
//! near-empty queue and a fully used link.

use crate::common::{f, named, summary, u};

fn dumbbell(flow_defaults: &str, queue: &str) -> String {
    format!(
        r#"
duration = "20s"
metrics = {{ steady_start = "12s" }}
defaults.flows = {{ mss = 1000, init_cwnd = 2, {flow_defaults} }}
[dumbbell]
bottleneck = {{ rate = "20Mbps", delay = "5ms", buffer = "1bdp"{queue} }}
access = {{ rate = "100Mbps", delay = "1ms" }}
rtt = ["20ms", "65ms", "110ms", "155ms", "200ms"]
flows = [
  {{ app = {{ type = "bulk", start = "0s" }} }},
  {{ app = {{ type = "bulk", start = "1s" }} }},
  {{ app = {{ type = "bulk", start = "2s" }} }},
  {{ app = {{ type = "bulk", start = "3s" }} }},
  {{ app = {{ type = "bulk", start = "4s" }} }},
]
"#
    )
}

fn check_converged(s: &serde_json::Value, what: &str) {
    let g: Vec<f64> = (1..=5)
        .map(|i| f(&named(s, "flows", &format!("f{i}"))["goodput_bps"]))
        .collect();
    let mean = g.iter().sum::<f64>() / 5.0;
    for (i, x) in g.iter().enumerate() {
        assert!(
            (x / mean - 1.0).abs() < 0.1,
            "{what}: flow f{} has {x} b/s, mean {mean}: {g:?}",
            i + 1
        );
    }
    let bn = named(s, "links", "bn");
    let util = f(&bn["steady_utilization"]);
    assert!(util >= 0.95, "{what}: utilisation {util}");
    // BDP at 200 ms: 500 packets; "near-empty": under 5 % of it at any steady instant.
    let q = u(&bn["steady_max_queue"]);
    assert!(q <= 25, "{what}: steady max queue {q} packets");
    assert_eq!(
        f(&bn["steady_drop_rate"]),
        0.0,
        "{what}: drops in steady state"
    );
    for i in 1..=5 {
        assert_eq!(
            u(&named(s, "flows", &format!("f{i}"))["steady_retransmits"]),
            0
        );
    }
}

#[test]
fn rtts_20_to_200ms_converge_to_equal_shares_with_an_empty_queue() {
    let s = summary(&dumbbell(r#"cc = "xcp""#, r#", queue = { type = "xcp" }"#));
    check_converged(&s, "xcp");
    // Against the same flows as NewReno over drop-tail: not equal (the short-RTT flows
    // take more) and a standing queue.
    let nr = summary(&dumbbell(r#"cc = "newreno""#, ""));
    let j_xcp = f(&s["fairness"]["jain"]);
    let j_nr = f(&nr["fairness"]["jain"]);
    assert!(
        j_xcp > 0.99 && j_nr < j_xcp - 0.1,
        "Jain xcp {j_xcp}, newreno {j_nr}"
    );
}

#[test]
fn delayed_acks_echo_both_segments_feedback() {
    // One ack per two segments carries the sum of their feedback (tcp/receiver.rs unit
    // test): the windows converge as with an ack per segment.
    let s = summary(&dumbbell(
        r#"cc = "xcp", delayed_ack = "100ms""#,
        r#", queue = { type = "xcp" }"#,
    ));
    check_converged(&s, "xcp, delayed acks");
}

#[test]
fn xcp_senders_without_an_xcp_router_are_newreno_like() {
    // No router writes feedback: every ack echoes +inf and the sender grows as NewReno,
    // so the flows fill the drop-tail buffer and lose packets like NewReno flows do.
    let s = summary(&dumbbell(r#"cc = "xcp""#, ""));
    let bn = named(&s, "links", "bn");
    assert!(u(&bn["drops"]) > 0);
    assert!(f(&bn["utilization"]) > 0.8);
}

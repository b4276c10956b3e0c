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

/// A 1 Mb/s CBR writer over an XCP flow on a free 10 Mb/s path (no XCP router: the sender
/// is NewReno-like), with `header_bytes` = 0 or 20.
fn cbr_path(cc: &str) -> tcplab_core::scenario::Built {
    crate::common::run(&crate::common::two_host(
        "10Mbps",
        "10Mbps",
        "50ms",
        "50ms",
        "{ type = \"droptail\", limit = 100 }",
        0.0,
        &format!(
            r#"[flows.w]
from = "a"
to = "b"
cc = {cc}
mss = 1000
app = {{ type = "cbr", rate = "1Mbps", packet_size = 1000 }}"#
        ),
        "10s",
        "[metrics]\nsteady_start = \"2s\"",
    ))
}

#[test]
fn header_bytes_add_to_every_data_packet_on_the_wire_and_not_to_goodput() {
    let plain = cbr_path("\"xcp\"");
    let hdr = cbr_path("{ algorithm = \"xcp\", header_bytes = 20 }");
    let link = |b: &tcplab_core::scenario::Built, name: &str| {
        b.sim.links.iter().find(|l| l.name == name).unwrap().stats
    };
    let (p, h) = (link(&plain, "ab"), link(&hdr, "ab"));
    let n = p.tx_data_packets;
    assert!(n > 1200, "{n} data packets in 10 s at 125 per second");
    assert_eq!(h.tx_data_packets, n);
    // Payload 1000 + TCP/IP 40 (+ 20 for the congestion header), exactly.
    assert_eq!(p.tx_data_bytes, n * 1040);
    assert_eq!(h.tx_data_bytes, n * 1060);
    // Serialisation: 1060·8 bits at 10 Mb/s = 848 µs per packet (832 µs without).
    assert_eq!(p.busy_ps, n * 832_000_000);
    assert_eq!(h.busy_ps, n * 848_000_000);
    // Acks are not enlarged: 40 bytes each, as many.
    let (pa, ha) = (link(&plain, "ba"), link(&hdr, "ba"));
    assert_eq!((ha.tx_packets, ha.tx_bytes), (pa.tx_packets, pa.tx_bytes));
    assert_eq!(pa.tx_bytes, pa.tx_packets * 40);
    // Goodput counts payload only: the same on the unloaded path (1 Mb/s), while
    // throughput (wire bytes) grows by 20/1040.
    let (sp, sh) = (
        tcplab_core::report::summary(&plain, 0.0),
        tcplab_core::report::summary(&hdr, 0.0),
    );
    let (fp, fh) = (named(&sp, "flows", "w"), named(&sh, "flows", "w"));
    assert_eq!(u(&fp["bytes_delivered"]), u(&fh["bytes_delivered"]));
    assert_eq!(f(&fp["goodput_bps"]), f(&fh["goodput_bps"]));
    assert!(
        (f(&fp["goodput_bps"]) - 1e6).abs() < 1e4,
        "{}",
        fp["goodput_bps"]
    );
    let ratio = f(&fh["throughput_bps"]) / f(&fp["throughput_bps"]);
    assert!((ratio - 1060.0 / 1040.0).abs() < 1e-9, "{ratio}");
}

#[test]
fn bad_header_bytes_name_the_field() {
    for (cc, why) in [
        ("{ algorithm = \"xcp\", header_bytes = -20 }", ""),
        (
            "{ algorithm = \"xcp\", header_bytes = 4294967295 }",
            "makes",
        ),
    ] {
        let toml = format!(
            r#"
duration = "1s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "1ms"
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "1ms"
[flows.w]
from = "a"
to = "b"
cc = {cc}
"#
        );
        let e = tcplab_core::load_toml(&toml, None)
            .err()
            .expect("must fail");
        assert_eq!(e.field, "flows.w.cc.header_bytes", "{}", e.reason);
        assert!(e.reason.contains(why), "{}", e.reason);
    }
}

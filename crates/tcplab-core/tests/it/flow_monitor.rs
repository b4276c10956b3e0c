//! FlowMonitor-style metrics (issue 31 §4): per-flow one-way delay, jitter and packets
//! lost; per-link mean queue and mean queueing delay over the steady-state window, against
//! values computed by hand.

use crate::common::{f, named, summary, two_host, u};
use serde_json::Value;

fn udp(rate: &str, limit: u32, start: &str) -> String {
    two_host(
        "10Mbps",
        "10Mbps",
        "10ms",
        "10ms",
        &format!("{{ type = \"droptail\", limit = {limit} }}"),
        0.0,
        &format!(
            r#"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = {{ type = "cbr", rate = "{rate}", packet_size = 1000, start = "{start}" }}
"#
        ),
        "10s",
        "[metrics]\nsteady_start = \"2s\"",
    )
}

/// A 1028-byte datagram (1000 B + 28 B of headers) takes 822.4 µs at 10 Mb/s.
const TX_S: f64 = 1028.0 * 8.0 / 10e6;

#[test]
fn unqueued_cbr_has_the_path_delay_and_no_jitter() {
    // 4 Mb/s of payload: one datagram every 2 ms, each alone on the link.
    let s = summary(&udp("4Mbps", 100, "1s"));
    let fl = named(&s, "flows", "u");
    let d = TX_S + 0.010;
    assert!(
        (f(&fl["mean_delay_s"]) - d).abs() < 1e-12,
        "{}",
        fl["mean_delay_s"]
    );
    // Quantiles: the upper edge of d's histogram bucket (at most 9.1 % above it).
    for q in ["p50_delay_s", "p99_delay_s"] {
        let x = f(&fl[q]);
        assert!(x >= d && x <= d * 1.0911, "{q} {x}");
    }
    assert_eq!(f(&fl["mean_jitter_s"]), 0.0);
    assert_eq!(u(&fl["data_packets_lost"]), 0);
    assert_eq!(f(&fl["data_loss_ratio"]), 0.0);
    let l = named(&s, "links", "ab");
    assert_eq!(f(&l["steady_mean_queue_packets"]), 0.0);
    assert_eq!(f(&l["steady_mean_queue_delay_s"]), 0.0);
}

#[test]
fn overloaded_droptail_holds_its_limit_and_loses_the_excess() {
    // 20 Mb/s of payload (one datagram per 400 µs) into 10 Mb/s (one per 822.4 µs) behind
    // 100 packets: from 0.1 s on the queue stays within one packet of full, each admitted
    // datagram waits for about 100 transmissions, and about 1 - 400/822.4 are dropped.
    let s = summary(&udp("20Mbps", 100, "0s"));
    let fl = named(&s, "flows", "u");
    let l = named(&s, "links", "ab");
    let q = f(&l["steady_mean_queue_packets"]);
    assert!((99.0..=100.0).contains(&q), "mean queue {q}");
    let w = f(&l["steady_mean_queue_delay_s"]);
    assert!((99.0 * TX_S..=100.0 * TX_S).contains(&w), "queue delay {w}");
    // One-way delay in the window: the wait, the transmission and the propagation delay.
    let d = f(&fl["mean_delay_s"]);
    assert!((w + TX_S + 0.010 - d).abs() < TX_S, "delay {d} vs {w}");
    // Whole run: every datagram not delivered and not still held was dropped by the queue.
    let lost = u(&fl["data_packets_lost"]);
    assert_eq!(lost, u(&l["drops"]));
    let sent = u(&fl["packets_sent"]);
    let ratio = f(&fl["data_loss_ratio"]);
    assert_eq!(ratio, lost as f64 / sent as f64);
    assert!(
        (ratio - (1.0 - 400e-6 / TX_S)).abs() < 0.01,
        "loss ratio {ratio}"
    );
}

fn tcp_lossy() -> Value {
    summary(
        r#"
duration = "20s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
queue = { type = "droptail", limit = 20 }
error = { model = "bernoulli", p = 0.01 }
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "10ms"
[flows.t1]
from = "a"
to = "b"
cc = "newreno"
[flows.t2]
from = "a"
to = "b"
cc = "cubic"
sack = true
[metrics]
steady_start = "5s"
"#,
    )
}

#[test]
fn tcp_losses_are_the_drops_and_wire_losses_of_their_data() {
    let s = tcp_lossy();
    let (t1, t2) = (named(&s, "flows", "t1"), named(&s, "flows", "t2"));
    let l = named(&s, "links", "ab");
    let back = named(&s, "links", "ba");
    assert_eq!(
        u(&back["drops"]) + u(&back["lost"]),
        0,
        "acks all get through"
    );
    // The forward link carries only data: its drops and wire losses are the flows' losses.
    let lost = u(&t1["data_packets_lost"]) + u(&t2["data_packets_lost"]);
    assert_eq!(lost, u(&l["drops"]) + u(&l["lost"]));
    assert!(u(&l["drops"]) > 0 && u(&l["lost"]) > 0);
    for t in [t1, t2] {
        let r = f(&t["data_loss_ratio"]);
        assert_eq!(
            r,
            u(&t["data_packets_lost"]) as f64 / u(&t["segments_sent"]) as f64
        );
        // Every segment waits at least its transmission and the 10 ms propagation delay.
        let (mean, p50, p99) = (
            f(&t["mean_delay_s"]),
            f(&t["p50_delay_s"]),
            f(&t["p99_delay_s"]),
        );
        assert!(mean > 0.010 && p50 <= p99 && f(&t["mean_jitter_s"]) > 0.0);
        // No segment waits longer than a full queue (20 waiting, one on the wire) plus
        // the path.
        assert!(
            p99 <= (0.010 + 21.0 * 1500.0 * 8.0 / 10e6) * 1.0911,
            "{p99}"
        );
    }
    let w = f(&l["steady_mean_queue_delay_s"]);
    let q = f(&l["steady_mean_queue_packets"]);
    assert!(q > 0.0 && q <= 20.0 && w > 0.0, "{q} {w}");
}

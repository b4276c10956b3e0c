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
    // Quantiles: interpolated inside d's histogram bucket (an eighth of an octave: the
    // bucket holding d spans at most 12.5 % of its lower edge).
    for q in ["p50_delay_s", "p99_delay_s"] {
        let x = f(&fl[q]);
        assert!((x - d).abs() <= d * 0.125, "{q} {x}");
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
    // From 2 s on (the window): every datagram not delivered and not still held was dropped
    // by the queue, which drops at a steady rate from 0.1 s: 8 of the 9.9 s of drops.
    let lost = u(&fl["data_packets_lost"]) as f64;
    let drops = u(&l["drops"]) as f64;
    assert!(
        (lost - drops * 8.0 / 9.9).abs() < 0.01 * drops,
        "{lost} of {drops}"
    );
    let ratio = f(&fl["data_loss_ratio"]);
    assert!(
        (ratio - (1.0 - 400e-6 / TX_S)).abs() < 0.01,
        "loss ratio {ratio}"
    );
}

fn tcp_lossy_from(steady_start: &str) -> Value {
    summary(
        &r#"
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
steady_start = "STEADY"
"#
        .replace("STEADY", steady_start),
    )
}

#[test]
fn tcp_losses_are_the_drops_and_wire_losses_of_their_data() {
    // The window is the whole run here, so the losses are every drop and wire loss.
    let s = tcp_lossy_from("0s");
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

fn ping(extra: &str) -> tcplab_core::scenario::Built {
    crate::common::run(&two_host(
        "10Mbps",
        "10Mbps",
        "10ms",
        "10ms",
        "{ type = \"droptail\", limit = 100 }",
        0.0,
        &format!(
            r#"
[flows.ping]
from = "a"
to = "b"
transport = "udp"
echo = true
app = {{ type = "cbr", rate = "51.2kbps", packet_size = 64, start = "1s" }}
{extra}
"#
        ),
        "10s",
        "[metrics]\nsteady_start = \"2s\"",
    ))
}

#[test]
fn an_idle_path_echoes_every_probe_after_exactly_two_path_delays() {
    // 64 B + 28 B every 10 ms; each way 92 B take 73.6 µs at 10 Mb/s, then 10 ms.
    let b = ping("");
    let s = tcplab_core::report::summary(&b, 0.0);
    let fl = named(&s, "flows", "ping");
    let one_way = 92.0 * 8.0 / 10e6 + 0.010;
    let p = &b.sim.probes;
    // From 1 s to 10 s: 900 datagrams; those sent after 10 s − 20.15 ms (9.98, 9.99 s) are
    // still on their way back at the end.
    assert_eq!(p.len(), 898);
    assert_eq!(u(&fl["echo_replies"]), 898);
    assert_eq!(u(&fl["packets_sent"]), 900);
    assert!(p.seq.iter().enumerate().all(|(i, &q)| q == i as u64));
    assert!(p.t.windows(2).all(|w| w[0] < w[1]));
    for (r, f) in p.rtt_s.iter().zip(&p.forward_s) {
        assert!(
            (r - 2.0 * one_way).abs() < 1e-12 && (f - one_way).abs() < 1e-12,
            "{r} {f}"
        );
    }
    assert!((f(&fl["mean_rtt_s"]) - 2.0 * one_way).abs() < 1e-12);
    assert!((f(&fl["mean_delay_s"]) - one_way).abs() < 1e-12);
    // The echoes are acks on the way back, the datagram's size: 899 × 92 B (the echo of
    // 9.99 s leaves b at 10.01 s).
    let back = named(&s, "links", "ba");
    assert_eq!(u(&back["tx_packets"]), 899);
    assert_eq!(u(&back["tx_ack_bytes"]), 899 * 92);
}

#[test]
fn a_probe_sees_the_queue_a_bulk_flow_builds() {
    // A bulk flow whose window (100 kB, 68 segments) exceeds the path's 17 by a standing
    // queue of about 51 that never overflows: no probe is dropped (a probe dropped at a full
    // queue would leave its delay unsampled and bias the mean low).
    let b =
        ping("[flows.bulk]\nfrom = \"a\"\nto = \"b\"\ncc = \"newreno\"\nmax_window = \"100kB\"\n");
    let s = tcplab_core::report::summary(&b, 0.0);
    let fl = named(&s, "flows", "ping");
    let base = 2.0 * (92.0 * 8.0 / 10e6 + 0.010);
    let p = &b.sim.probes;
    // Every probe came back but those still on their way at the end (no gap).
    assert!(p.len() > 880 && p.seq.iter().enumerate().all(|(i, &q)| q == i as u64));
    assert_eq!(u(&named(&s, "links", "ab")["drops"]), 0);
    // Probes arrive at instants independent of the queue, so they see its time average,
    // the link's mean queue q (its per-packet mean delay weighs the times the bulk flow
    // sends most). Of the q packets waiting, 100/s × w are probes (Little's law, w = the
    // probes' mean wait) of 73.6 µs each, the rest 1500-byte segments of 1.2 ms; a probe
    // also waits for what remains of the transmission in progress (0 to 1.2 ms).
    let ab = named(&s, "links", "ab");
    let (tx, tx_probe) = (1500.0 * 8.0 / 10e6, 92.0 * 8.0 / 10e6);
    let (rtt, q) = (f(&fl["mean_rtt_s"]), f(&ab["steady_mean_queue_packets"]));
    let w = rtt - base;
    assert!(w > 0.02, "{rtt}");
    let probes = 100.0 * w;
    let residual = w - (q - probes) * tx - probes * tx_probe;
    assert!(
        (-0.25 * tx..=1.25 * tx).contains(&residual),
        "{rtt} {q} {residual}"
    );
    assert!(p.rtt_s.iter().all(|&r| r >= base - 1e-12));
}

#[test]
fn only_udp_flows_echo() {
    let toml = two_host(
        "10Mbps",
        "10Mbps",
        "10ms",
        "10ms",
        "{ type = \"droptail\", limit = 100 }",
        0.0,
        "[flows.t]\nfrom = \"a\"\nto = \"b\"\necho = true\n",
        "1s",
        "",
    );
    let e = tcplab_core::load_toml(&toml, None).err().expect("refused");
    assert_eq!(e.field, "flows.t.echo");
    assert!(e.reason.contains("only a UDP flow echoes"), "{}", e.reason);
}

#[test]
fn losses_are_counted_over_the_steady_window_like_the_delays() {
    // One window for every FlowMonitor key: the same run (the window's start does not change
    // the dynamics) loses fewer packets from 5 s on than over the whole run, and some.
    let (all, late) = (tcp_lossy_from("0s"), tcp_lossy_from("5s"));
    for name in ["t1", "t2"] {
        let (a, l) = (named(&all, "flows", name), named(&late, "flows", name));
        assert_eq!(u(&a["segments_sent"]), u(&l["segments_sent"]), "same run");
        let (la, ll) = (u(&a["data_packets_lost"]), u(&l["data_packets_lost"]));
        assert!(0 < ll && ll < la, "{name}: {ll} from 5 s, {la} in all");
        let r = f(&l["data_loss_ratio"]);
        assert!(r > 0.0 && r < 0.1, "{name}: {r}");
    }
}

//! Today's algorithms: CUBIC (RFC 9438), CoDel (RFC 8289), FQ-CoDel (RFC 8290), PIE
//! (RFC 8033) and DCTCP (RFC 8257) in small scenarios.

use crate::common::{f, named, run, two_host};
use serde_json::Value;

fn link<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(s, "links", name)
}

fn flow<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(s, "flows", name)
}

/// One CUBIC flow a → b over 10 Mb/s, 2 × 25 ms, a 100-packet drop-tail buffer: between
/// losses the traced window follows `W_cubic(t) = C(t − K)³ + W_max` from the epoch's start
/// (or the Reno-friendly estimate W_est when that is larger), within one RTT of the curve
/// (the target looks one RTT ahead; W lags the target).
#[test]
fn cubic_window_follows_its_curve_between_losses() {
    let toml = two_host(
        "10Mbps",
        "10Mbps",
        "25ms",
        "25ms",
        r#"{ type = "droptail", limit = 100 }"#,
        0.0,
        r#"
[flows.c]
from = "a"
to = "b"
cc = "cubic"
"#,
        "60s",
        "[metrics]\ntrace = \"20ms\"",
    );
    let b = run(&toml);
    let tr = &b.sim.cwnd_trace;
    let col = |n: &str| {
        let i = tr.cc_names.iter().position(|x| *x == n).unwrap();
        &tr.cc_values[i]
    };
    let (w, w_max, k, epoch, w_est) = (
        col("cwnd_segments"),
        col("w_max_segments"),
        col("k_s"),
        col("epoch_s"),
        col("w_est_segments"),
    );
    let (c, rtt_max) = (0.4, 0.05 + 100.0 * 1040.0 * 8.0 / 10e6 + 0.01);
    let (mut checked, mut epochs) = (0, std::collections::BTreeSet::new());
    for r in 0..w.len() {
        if epoch[r].is_nan() {
            continue;
        }
        let t = tr.base.t[r] - epoch[r];
        let cubic = |t: f64| c * (t - k[r]).powi(3) + w_max[r];
        // In the Reno-friendly region (W_cubic(t) < W_est) W is W_est; otherwise W chases
        // the target W_cubic(t + RTT) and lags it by up to the curve's slope times an RTT.
        let lo = if cubic(t) < w_est[r] {
            w_est[r]
        } else {
            cubic(t - rtt_max)
        } - 1.0;
        let hi = cubic(t + rtt_max).max(w_est[r]) + 1.0;
        assert!(
            w[r] >= lo && w[r] <= hi,
            "t {}: W {} not in [{lo}, {hi}] (W_max {}, K {})",
            tr.base.t[r],
            w[r],
            w_max[r],
            k[r]
        );
        checked += 1;
        epochs.insert(epoch[r].to_bits());
    }
    assert!(checked > 1500, "{checked} samples in congestion avoidance");
    assert!(epochs.len() >= 5, "{} epochs (losses)", epochs.len());
    let s = tcplab_core::report::summary(&b, 0.0);
    assert!(f(&link(&s, "ab")["utilization"]) > 0.9);
    assert_eq!(flow(&s, "c")["cc"], "cubic");
}

/// Two TCP flows a → b over 10 Mb/s, 2 × 20 ms, 1000-packet buffer: with drop-tail the
/// standing queue fills the buffer (hundreds of ms); CoDel keeps the queueing delay (mean
/// RTT − minimum RTT) near its 5 ms target, the link busy, and drops only at dequeue.
fn two_tcp(queue: &str, cc: &str, duration: &str) -> String {
    two_host(
        "10Mbps",
        "10Mbps",
        "20ms",
        "20ms",
        queue,
        0.0,
        &format!(
            r#"
[flows.x]
from = "a"
to = "b"
cc = "{cc}"
[flows.y]
from = "a"
to = "b"
cc = "{cc}"
app = {{ type = "bulk", start = "1s" }}
"#
        ),
        duration,
        "",
    )
}

fn queueing_s(s: &Value, name: &str) -> f64 {
    let fl = flow(s, name);
    f(&fl["mean_rtt_s"]) - f(&fl["min_rtt_s"])
}

#[test]
fn codel_holds_tcp_queueing_delay_near_target() {
    for cc in ["newreno", "cubic"] {
        let s = crate::common::summary(&two_tcp(r#"{ type = "codel" }"#, cc, "60s"));
        let l = link(&s, "ab");
        let (qx, qy) = (queueing_s(&s, "x"), queueing_s(&s, "y"));
        assert!(qx < 0.015 && qy < 0.015, "{cc}: queueing {qx} s, {qy} s");
        assert!(f(&l["utilization"]) > 0.9, "{cc}: {}", l["utilization"]);
        let drops = crate::common::u(&l["drops"]);
        assert!(drops > 10, "{cc}: {drops}");
        assert_eq!(l["drops_codel"], l["drops"], "{cc}: no overflow");
        assert_eq!(l["dequeue_drops"], l["drops"], "{cc}");
        let dt = crate::common::summary(&two_tcp(r#"{ type = "droptail" }"#, cc, "60s"));
        assert!(queueing_s(&dt, "x") > 0.2, "{cc}: drop-tail bufferbloat");
    }
}

#[test]
fn codel_ecn_marks_instead_of_dropping() {
    let toml = two_tcp(r#"{ type = "codel", ecn = true }"#, "newreno", "30s")
        .replace("cc = \"newreno\"", "cc = \"newreno\"\necn = true");
    let s = crate::common::summary(&toml);
    let l = link(&s, "ab");
    assert!(crate::common::u(&l["marks"]) > 10);
    assert_eq!(crate::common::u(&l["drops"]), 0);
    assert!(queueing_s(&s, "x") < 0.015);
}

/// A 20 Mb/s UDP flood and one TCP flow share a 10 Mb/s link. Drop-tail gives the flood
/// nearly everything; FQ-CoDel hashes them into different buckets and DRR gives each half
/// the link (the TCP flow's DRR share), with CoDel holding the TCP flow's own queue short.
#[test]
fn fq_codel_isolates_a_udp_flood() {
    let scenario = |queue: &str| {
        two_host(
            "10Mbps",
            "10Mbps",
            "10ms",
            "10ms",
            queue,
            0.0,
            r#"
[flows.t]
from = "a"
to = "b"
cc = "cubic"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "20Mbps", packet_size = 1000 }
"#,
            "30s",
            "",
        )
    };
    let fq = crate::common::summary(&scenario(r#"{ type = "fq_codel" }"#));
    let share = f(&flow(&fq, "t")["throughput_bps"]) / 10e6;
    assert!((share - 0.5).abs() < 0.05, "TCP share {share}");
    assert!(queueing_s(&fq, "t") < 0.01, "{}", queueing_s(&fq, "t"));
    let l = link(&fq, "ab");
    assert!(f(&l["utilization"]) > 0.99);
    let dt = crate::common::summary(&scenario(r#"{ type = "droptail", limit = 100 }"#));
    let dt_share = f(&flow(&dt, "t")["throughput_bps"]) / 10e6;
    assert!(dt_share < 0.2, "drop-tail TCP share {dt_share}");
}

/// PIE on a link under a UDP overload of 12.5 Mb/s into 10 Mb/s: its timer (the link's
/// `QueueWake`) drives the probability to 1 − C/λ = 0.2, the drops are PIE's, and the queue
/// (sampled every 10 ms) holds about target × C = 15 ms × 1250 packets/s ≈ 19 packets.
#[test]
fn pie_steers_a_udp_overload_to_its_target_delay() {
    let toml = two_host(
        "10Mbps",
        "10Mbps",
        "5ms",
        "5ms",
        r#"{ type = "pie" }"#,
        0.0,
        r#"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "12.15Mbps", packet_size = 972 }
"#,
        "100s",
        "[metrics]\ntrace = \"10ms\"",
    );
    let b = run(&toml);
    let s = tcplab_core::report::summary(&b, 0.0);
    let l = link(&s, "ab");
    let d = crate::common::u(&l["drops"]) as f64 / crate::common::u(&l["offered"]) as f64;
    assert!((d - 0.2).abs() < 0.005, "dropped fraction {d}");
    assert_eq!(l["drops_pie"], l["drops"]);
    let p = f(&l["pie_drop_prob"]);
    assert!((p - 0.2).abs() < 0.05, "drop_prob {p}");
    // 100 s / 15 ms updates (the timer never stops under overload).
    assert_eq!(crate::common::u(&l["pie_updates"]), 6666);
    let q = &b.sim.queue_trace;
    let (mut sum, mut n) = (0.0, 0.0);
    for k in 0..q.t.len() {
        if q.t[k] > 20.0 && q.link[k].0 == 0 {
            sum += q.packets[k] as f64;
            n += 1.0;
        }
    }
    let mean = sum / n;
    // Sampled occupancy counts the packet in transmission: target/0.8 ms + 1 ≈ 19.75.
    assert!((mean - 19.75).abs() < 2.0, "mean queue {mean} packets");
}

#[test]
fn pie_holds_tcp_queueing_delay_near_target() {
    let s = crate::common::summary(&two_tcp(r#"{ type = "pie" }"#, "cubic", "60s"));
    let l = link(&s, "ab");
    let (qx, qy) = (queueing_s(&s, "x"), queueing_s(&s, "y"));
    assert!(qx < 0.03 && qy < 0.03, "queueing {qx} s, {qy} s");
    assert!(
        qx > 0.005,
        "{qx}: PIE lets a standing queue of about its target"
    );
    assert!(f(&l["utilization"]) > 0.9);
    assert!(crate::common::u(&l["drops_pie"]) > 10);
}

/// DCTCP on a single bottleneck against Alizadeh et al. 2010 §3.3 (`analysis/dctcp.rs`):
/// two flows, 100 Mb/s (8333 packets/s of 1500 B), 2 × 5 ms (C·RTT ≈ 84.4 packets), step
/// marking at K = 20 waiting packets. Tolerances (set from the analysis' own approximations,
/// synchronized flows, before running): α within 20 %, the queue's maximum within 3 packets
/// of K + N, its mean between Q_min and Q_max; no loss.
#[test]
fn dctcp_matches_the_sawtooth_analysis() {
    let flows = r#"
[flows.x]
from = "a"
to = "b"
cc = "dctcp"
ecn = true
[flows.y]
from = "a"
to = "b"
cc = "dctcp"
ecn = true
"#;
    let toml = two_host(
        "100Mbps",
        "100Mbps",
        "5ms",
        "5ms",
        r#"{ type = "droptail", limit = 1000, mark_threshold = 20 }"#,
        0.0,
        flows,
        "20s",
        "[metrics]\ntrace = \"1ms\"",
    );
    let b = run(&toml);
    let s = tcplab_core::report::summary(&b, 0.0);
    let l = link(&s, "ab");
    assert_eq!(crate::common::u(&l["drops"]), 0);
    assert!(f(&l["utilization"]) > 0.95, "{}", l["utilization"]);
    // C·RTT: 1500-B packets at 100 Mb/s, RTT = 10 ms + 120 µs data + 3.2 µs ack transmission.
    let c = 100e6 / (1500.0 * 8.0);
    let bdp = c * (0.010 + 1500.0 * 8.0 / 100e6 + 40.0 * 8.0 / 100e6);
    let m = tcplab_core::analysis::dctcp::steady_state(2.0, bdp, 20.0);

    let tr = &b.sim.cwnd_trace;
    let ai = tr.cc_names.iter().position(|x| *x == "alpha").unwrap();
    let (mut sa, mut na) = (0.0, 0.0);
    for (k, &t) in tr.base.t.iter().enumerate() {
        if t > 5.0 {
            sa += tr.cc_values[ai][k];
            na += 1.0;
        }
    }
    let alpha = sa / na;
    assert!(
        (alpha / m.alpha - 1.0).abs() < 0.2,
        "mean α {alpha}, analysis {} (≈ sqrt(2/W*) = {}, W* = {})",
        m.alpha,
        m.alpha_approx,
        m.w_star
    );
    let q = &b.sim.queue_trace;
    let (mut max, mut sum, mut n) = (0u32, 0.0, 0.0);
    for k in 0..q.t.len() {
        if q.t[k] > 5.0 && q.link[k].0 == 0 {
            // Waiting packets (the trace counts the one in transmission).
            let w = q.packets[k].saturating_sub(1);
            max = max.max(w);
            sum += w as f64;
            n += 1.0;
        }
    }
    let mean = sum / n;
    assert!(
        (max as f64 - m.q_max).abs() <= 3.0,
        "queue max {max}, analysis Q_max = K + N = {}",
        m.q_max
    );
    assert!(
        mean > m.q_min && mean < m.q_max,
        "queue mean {mean}, analysis [{}, {}] (A = {})",
        m.q_min,
        m.q_max,
        m.amplitude
    );
    for name in ["x", "y"] {
        let fl = flow(&s, name);
        assert!(crate::common::u(&fl["ecn_reductions"]) > 100);
        assert_eq!(crate::common::u(&fl["retransmits"]), 0);
    }
}

#[test]
fn dctcp_needs_ecn_and_an_accurate_echo() {
    let toml = |extra: &str| {
        two_host(
            "10Mbps",
            "10Mbps",
            "5ms",
            "5ms",
            r#"{ type = "droptail", mark_threshold = 20 }"#,
            0.0,
            &format!("[flows.x]\nfrom = \"a\"\nto = \"b\"\ncc = \"dctcp\"\n{extra}"),
            "1s",
            "",
        )
    };
    let e = tcplab_core::load_toml(&toml(""), None).err().unwrap();
    assert_eq!(e.field, "flows.x.ecn");
    let e = tcplab_core::load_toml(&toml("ecn = true\necn_echo = \"rfc3168\""), None)
        .err()
        .unwrap();
    assert_eq!(e.field, "flows.x.ecn_echo");
    assert!(tcplab_core::load_toml(&toml("ecn = true"), None).is_ok());
}

//! Seed 001's ALT timestamps (Vegas-ALT, FAST-ALT) on a two-host path: a → b at 10 Mb/s,
//! 20 ms each way, with or without UDP traffic from b to a that queues the acks.
//!
//! Expected values. Data packets are 1040 B on the wire (1000 B mss + 40 B headers; with
//! ALT 990 B payload + 40 B headers + the 10-byte option), acks 40 B (50 B with ALT). The
//! shortest forward trip is 1040·8/10⁷ s + 20 ms = 20.832 ms, the shortest backward trip
//! 50·8/10⁷ s + 20 ms = 20.040 ms: ALT's BaseRTT is their sum, 40.872 ms.

use crate::common::{f, named, run, two_host, u};
use tcplab_core::scenario::Built;

const WARM_UP: f64 = 20.0;
const TF_MIN: f64 = 1040.0 * 8.0 / 1e7 + 0.020;
const TB_MIN: f64 = 50.0 * 8.0 / 1e7 + 0.020;

/// The path with `flows`; `backward` adds on/off UDP traffic from b to a: 20 Mb/s for
/// 0.1 s every 0.3 s (a mean of 6.7 Mb/s on the 10 Mb/s link b → a, whose 200-packet queue
/// holds up to about 130 packets, 100 ms, at the end of each burst and drains in between).
fn path(flows: &str, backward: bool) -> String {
    let udp = if backward {
        r#"
[flows.udp]
from = "b"
to = "a"
transport = "udp"
app = { type = "onoff", rate = "20Mbps", packet_size = 1000, on = "0.1s", off = "0.2s", distribution = "constant" }
"#
    } else {
        ""
    };
    two_host(
        "10Mbps",
        "10Mbps",
        "20ms",
        "20ms",
        "{ type = \"droptail\", limit = 200 }",
        0.0,
        &format!("{flows}{udp}"),
        "60s",
        &format!("[metrics]\ntrace = \"10ms\"\nsteady_start = \"{WARM_UP}s\""),
    )
}

fn flow(cc: &str, extra: &str) -> String {
    format!(
        r#"
[flows.t]
from = "a"
to = "b"
cc = {cc}
mss = 1000
{extra}
"#
    )
}

/// The cwnd-trace column `cc_<name>` of flow `t`, from `from` seconds on.
fn trace(b: &Built, name: &str, from: f64) -> Vec<f64> {
    let tr = &b.sim.cwnd_trace;
    let k = tr
        .cc_names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no cc_{name} in {:?}", tr.cc_names));
    let t = b.sim.flows.iter().position(|fl| fl.name == "t").unwrap();
    (0..tr.base.t.len())
        .filter(|&i| tr.base.flow[i].index() == t && tr.base.t[i] >= from)
        .map(|i| tr.cc_values[k][i])
        .collect()
}

fn cwnds(b: &Built) -> Vec<u64> {
    b.sim.cwnd_trace.base.cwnd_bytes.clone()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn base_rtt_is_forward_plus_min_backward_trip_whatever_the_clock_offset() {
    let mut runs = Vec::new();
    for off in ["0", "\"5s\"", "\"-5s\"", "\"-3.7s\""] {
        let cc = "{ algorithm = \"vegas\", alt = true }";
        let extra = format!("receiver_clock_offset = {off}");
        let b = run(&path(&flow(cc, &extra), true));
        let o: f64 = match off {
            "0" => 0.0,
            s => s.trim_matches(['"', 's']).parse().unwrap(),
        };
        let (base, tf, tb) = (
            trace(&b, "base_rtt_s", WARM_UP),
            trace(&b, "tf_min_s", WARM_UP),
            trace(&b, "tb_min_s", WARM_UP),
        );
        assert!(base.len() > 1000 && tf.len() == base.len() && tb.len() == base.len());
        // The off periods leave the backward queue empty: both minima are the bare trips.
        for ((&base, &tf), &tb) in base.iter().zip(&tf).zip(&tb) {
            assert!((base - (TF_MIN + TB_MIN)).abs() < 1e-12, "BaseRTT {base}");
            assert!((tf - (TF_MIN + o)).abs() < 1e-9, "TF_min {tf}, offset {o}");
            assert!((tb - (TB_MIN - o)).abs() < 1e-9, "TB_min {tb}, offset {o}");
        }
        runs.push(b);
    }
    // Everything but TF_min and TB_min is bit-identical across the offsets.
    let r0 = &runs[0];
    for b in &runs[1..] {
        assert_eq!(cwnds(b), cwnds(r0), "cwnd trajectory");
        for name in ["diff", "base_rtt_s", "rtt_s"] {
            let (x, y) = (trace(b, name, 0.0), trace(r0, name, 0.0));
            let same = x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits());
            assert!(same && x.len() == y.len(), "cc_{name} differs");
        }
        let (s, s0) = (
            tcplab_core::report::summary(b, 0.0),
            tcplab_core::report::summary(r0, 0.0),
        );
        assert_eq!(s["flows"], s0["flows"]);
    }
}

#[test]
fn alt_rtt_is_the_forward_trip_plus_the_shortest_backward_trip() {
    // No backward traffic, one Vegas-ALT flow: the RTT it uses is BaseRTT plus its own
    // forward queue (Vegas keeps 1 to 3 packets, 0.832 ms each) and never below BaseRTT.
    let b = run(&path(
        &flow("{ algorithm = \"vegas\", alt = true }", ""),
        false,
    ));
    let (rtt, base) = (
        trace(&b, "rtt_s", WARM_UP),
        trace(&b, "base_rtt_s", WARM_UP),
    );
    let q = 1040.0 * 8.0 / 1e7;
    assert!(rtt.len() > 1000 && rtt.len() == base.len());
    for (&r, &b0) in rtt.iter().zip(&base) {
        assert!(r >= b0 - 1e-12 && r <= b0 + 4.0 * q, "rtt {r}, base {b0}");
    }
    let m = mean(&rtt) - TF_MIN - TB_MIN;
    assert!((0.5 * q..=3.5 * q).contains(&m), "mean queueing {m}");
}

#[test]
fn without_backward_traffic_alt_and_plain_get_the_same_throughput() {
    for algo in ["vegas", "fast"] {
        let s = |cc: &str| tcplab_core::report::summary(&run(&path(&flow(cc, ""), false)), 0.0);
        let plain = s(&format!("\"{algo}\""));
        let alt = s(&format!("{{ algorithm = \"{algo}\", alt = true }}"));
        let (p, a) = (named(&plain, "flows", "t"), named(&alt, "flows", "t"));
        assert_eq!(p["cc"], algo);
        assert_eq!(a["cc"], format!("{algo}-alt"));
        let (tp, ta) = (f(&p["throughput_bps"]), f(&a["throughput_bps"]));
        assert!((ta / tp - 1.0).abs() < 0.01, "{algo}: {ta} vs {tp}");
        // Goodput is net of the option each data segment carries: 990 of every 1040 B
        // instead of 1000.
        let (gp, ga) = (f(&p["goodput_bps"]), f(&a["goodput_bps"]));
        assert!((gp / tp - 1000.0 / 1040.0).abs() < 1e-3, "{gp} / {tp}");
        assert!((ga / ta - 990.0 / 1040.0).abs() < 1e-3, "{ga} / {ta}");
        // Acks are 40 B, 50 B with the option.
        for (sum, size) in [(&plain, 40), (&alt, 50)] {
            let acks = u(&named(sum, "flows", "t")["acks_sent"]);
            assert_eq!(u(&named(sum, "links", "ba")["tx_ack_bytes"]), acks * size);
        }
    }
}

#[test]
fn backward_congestion_hurts_vegas_much_more_than_vegas_alt() {
    let go = |cc: &str| {
        let b = run(&path(&flow(cc, ""), true));
        let s = tcplab_core::report::summary(&b, 0.0);
        let good = f(&named(&s, "flows", "t")["goodput_bps"]);
        let q = mean(&trace(&b, "rtt_s", WARM_UP)) - mean(&trace(&b, "base_rtt_s", WARM_UP));
        (good, q)
    };
    let (vegas, q_vegas) = go("\"vegas\"");
    let (alt, q_alt) = go("{ algorithm = \"vegas\", alt = true }");
    eprintln!("vegas {vegas:.0} q {q_vegas:.4}; vegas-alt {alt:.0} q {q_alt:.4}");
    assert!(
        alt > 2.0 * vegas,
        "Vegas-ALT {alt:.0} b/s vs Vegas {vegas:.0}"
    );
    // Plain Vegas' RTT holds the backward queueing (tens of ms on average); ALT's only the
    // flow's own forward queue (Vegas keeps about 1 to 3 packets, 0.832 ms each, more
    // while the delayed acks of a burst arrive together).
    assert!(q_vegas > 0.020, "Vegas: RTT − BaseRTT = {q_vegas}");
    assert!(q_alt < 0.005, "Vegas-ALT: RTT − BaseRTT = {q_alt}");
    let (fast, _) = go("\"fast\"");
    let (fast_alt, _) = go("{ algorithm = \"fast\", alt = true }");
    eprintln!("fast {fast:.0}; fast-alt {fast_alt:.0}");
    assert!(
        fast_alt > fast,
        "FAST-ALT {fast_alt:.0} b/s vs FAST {fast:.0}"
    );
}

#[test]
fn bad_alt_input_names_the_leaf_field() {
    for (cc, extra, field) in [
        (
            "{ algorithm = \"vegas\", alt = \"yes\" }",
            "",
            "flows.t.cc.alt",
        ),
        ("{ algorithm = \"fast\", alt = 1 }", "", "flows.t.cc.alt"),
        (
            "{ algorithm = \"vegas\", alt_option_bytes = 12 }",
            "",
            "flows.t.cc.alt_option_bytes",
        ),
        (
            "{ algorithm = \"fast\", alt = true, alt_option_bytes = -1 }",
            "",
            "flows.t.cc.alt_option_bytes",
        ),
        ("{ algorithm = \"reno\", alt = true }", "", "flows.t.cc.alt"),
        (
            "\"vegas\"",
            "receiver_clock_offset = \"-3.7 parsecs\"",
            "flows.t.receiver_clock_offset",
        ),
        (
            "\"vegas\"",
            "receiver_clock_offset = 5",
            "flows.t.receiver_clock_offset",
        ),
    ] {
        let e = tcplab_core::load_toml(&path(&flow(cc, extra), false), None)
            .err()
            .expect("must fail");
        assert_eq!(e.field, field, "{}", e.reason);
    }
    // A segment must hold more than the option.
    let toml = path(&flow("{ algorithm = \"vegas\", alt = true }", ""), false)
        .replace("mss = 1000", "mss = 10");
    let e = tcplab_core::load_toml(&toml, None)
        .err()
        .expect("must fail");
    assert_eq!(e.field, "flows.t.mss", "{}", e.reason);
}

//! Delay-based congestion control (seed 001): Vegas and FAST on a 10 Mb/s, 40 ms RTT
//! dumbbell whose buffer (1000 packets) never fills, so every equilibrium is set by the
//! algorithm's own target queue.
//!
//! Expected values. Data packets are 1000 B payload + 40 B headers: one takes
//! t = 1040·8/10⁷ s = 0.832 ms on the bottleneck, the pipe holds 40 ms / t ≈ 48 packets. With
//! q of the flow's packets waiting, RTT = BaseRTT + q·t and the sending rate is W/RTT = 1/t,
//! so the estimate both algorithms use, `W·(1 − BaseRTT/RTT) = W·q·t/RTT`, equals q: Vegas
//! holds its queue in [α, β] = [1, 3] packets, FAST at α = 50.

use crate::common::{f, named, run, two_host, u};
use tcplab_core::event::LinkId;
use tcplab_core::scenario::Built;

const WARM_UP: f64 = 20.0;

fn dumbbell(flows: &str) -> String {
    two_host(
        "10Mbps",
        "10Mbps",
        "20ms",
        "20ms",
        "{ type = \"droptail\", limit = 1000 }",
        0.0,
        flows,
        "60s",
        &format!("[metrics]\ntrace = \"10ms\"\nsteady_start = \"{WARM_UP}s\""),
    )
}

fn flow(name: &str, cc: &str) -> String {
    format!(
        r#"
[flows.{name}]
from = "a"
to = "b"
cc = {cc}
mss = 1000
"#
    )
}

/// Sampled queue on a → b after the warm-up, without the packet in service.
fn queue_after_warm_up(b: &Built) -> Vec<f64> {
    let q = &b.sim.queue_trace;
    let ab = LinkId::from_index(b.sim.links.iter().position(|l| l.name == "ab").unwrap());
    let v: Vec<f64> = (0..q.t.len())
        .filter(|&k| q.link[k] == ab && q.t[k] >= WARM_UP)
        .map(|k| (q.packets[k] as f64 - 1.0).max(0.0))
        .collect();
    assert!(v.len() > 1000, "{} samples", v.len());
    v
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn vegas_keeps_between_alpha_and_beta_packets_queued_without_loss() {
    let b = run(&dumbbell(&flow("v", "\"vegas\"")));
    let s = tcplab_core::report::summary(&b, 0.0);
    let (l, fl) = (named(&s, "links", "ab"), named(&s, "flows", "v"));
    assert_eq!(u(&l["drops"]), 0, "{l}");
    assert_eq!(u(&fl["retransmits"]), 0);
    let q = queue_after_warm_up(&b);
    let m = mean(&q);
    // Eq. 1 holds Delta = q in [α, β] = [1, 3]; the instantaneous sample may be one off
    // (a window step of one segment per RTT, and the sampling phase within a packet time).
    assert!((1.0..=3.0).contains(&m), "mean queue {m:.2}");
    let (lo, hi) = q
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(lo >= 0.0 && hi <= 4.0, "queue range [{lo}, {hi}]");
    // With a standing queue the link never idles.
    assert!(f(&fl["efficiency"]) > 0.99, "{}", fl["efficiency"]);
    // The trace hook exports Delta and BaseRTT; BaseRTT is the 40 ms propagation plus the
    // data packet's and the ack's serialisation, well under 41 ms.
    let tr = &b.sim.cwnd_trace;
    assert_eq!(tr.cc_names, ["diff", "base_rtt_s", "rtt_s"]);
    let base = &tr.cc_values[1];
    let last = base[base.len() - 1];
    assert!(last > 0.040 && last < 0.041, "BaseRTT {last}");
}

/// N flows keep N·α..N·β packets queued (the ns-3 cross-check's v4 and v16,
/// docs/performance.md): each flow's own Delta stays in [α, β], so the sum does too, whatever
/// share each flow ends with.
#[test]
fn n_vegas_flows_keep_between_n_alpha_and_n_beta_packets_queued() {
    use tcplab_core::cc::CongestionControl;
    for n in [4usize, 16] {
        let flows: String = (0..n)
            .map(|i| {
                flow(&format!("v{i}"), "\"vegas\"").replace(
                    "mss = 1000\n",
                    &format!(
                        "mss = 1000\napp = {{ type = \"bulk\", start = \"{}ms\" }}\n",
                        i * 7
                    ),
                )
            })
            .collect();
        let b = run(&dumbbell(&flows));
        let s = tcplab_core::report::summary(&b, 0.0);
        assert_eq!(u(&named(&s, "links", "ab")["drops"]), 0, "n = {n}");
        let m = mean(&queue_after_warm_up(&b));
        assert!(
            (n as f64..=3.0 * n as f64).contains(&m),
            "n = {n}: mean queue {m:.2} outside [{n}, {}]",
            3 * n
        );
        for fl in &b.sim.flows {
            let cc = &fl.tcp().unwrap().0.cc;
            let mut x = vec![0.0; cc.trace_names().len()];
            cc.trace_values(&mut x);
            assert!(
                (1.0..=3.0).contains(&x[0]),
                "n = {n}: a flow ends with Delta {}",
                x[0]
            );
        }
    }
}

/// Brakmo's distinguished-segment RTT (`rtt_sample = "distinguished"`) holds the same
/// equilibrium: without backward traffic every segment of a round sees the same queue, so
/// one sample per round estimates it as well as the mean.
#[test]
fn distinguished_vegas_keeps_between_alpha_and_beta_packets_queued() {
    let cc = "{ algorithm = \"vegas\", rtt_sample = \"distinguished\" }";
    let b = run(&dumbbell(&flow("v", cc)));
    let s = tcplab_core::report::summary(&b, 0.0);
    let (l, fl) = (named(&s, "links", "ab"), named(&s, "flows", "v"));
    assert_eq!(u(&l["drops"]), 0, "{l}");
    let m = mean(&queue_after_warm_up(&b));
    assert!((1.0..=3.0).contains(&m), "mean queue {m:.2}");
    assert!(f(&fl["efficiency"]) > 0.99, "{}", fl["efficiency"]);
}

#[test]
fn bad_parameters_name_the_leaf_field() {
    for (cc, field) in [
        ("{ algorithm = \"vegas\", alpha = 4 }", "flows.v.cc.beta"),
        (
            "{ algorithm = \"vegas\", rtt_sample = \"median\" }",
            "flows.v.cc.rtt_sample",
        ),
        ("{ algorithm = \"fast\", gamma = 0 }", "flows.v.cc.gamma"),
        ("{ algorithm = \"fast\", alpha = 0 }", "flows.v.cc.alpha"),
    ] {
        let e = tcplab_core::load_toml(&dumbbell(&flow("v", cc)), None)
            .err()
            .expect("must fail");
        assert_eq!(e.field, field, "{}", e.reason);
    }
}

#[test]
fn fast_keeps_alpha_packets_queued_and_fills_the_link() {
    let b = run(&dumbbell(&flow("f", "\"fast\"")));
    let s = tcplab_core::report::summary(&b, 0.0);
    let (l, fl) = (named(&s, "links", "ab"), named(&s, "flows", "f"));
    assert_eq!(u(&l["drops"]), 0, "{l}");
    let m = mean(&queue_after_warm_up(&b));
    // Tolerance 5 % of α (2.5 packets): the per-ack RTT also holds the ack's own
    // serialisation and the packet-granular sampling.
    assert!((m - 50.0).abs() <= 2.5, "mean queue {m:.2}, α = 50");
    assert!(f(&fl["efficiency"]) > 0.99, "{}", fl["efficiency"]);
}

#[test]
fn two_fast_flows_with_equal_rtt_share_fairly() {
    let b = run(&dumbbell(
        &(flow("f1", "\"fast\"") + &flow("f2", "\"fast\"")),
    ));
    let s = tcplab_core::report::summary(&b, 0.0);
    let x: Vec<f64> = ["f1", "f2"]
        .iter()
        .map(|n| f(&named(&s, "flows", n)["throughput_bps"]))
        .collect();
    let j = tcplab_core::stats::jain_index(&x);
    assert!(j >= 0.95, "Jain {j:.4} for {x:?}");
    assert_eq!(u(&named(&s, "links", "ab")["drops"]), 0);
    // Each keeps α = 50 queued: about 2α in all (same tolerance per flow as above).
    let m = mean(&queue_after_warm_up(&b));
    assert!((m - 100.0).abs() <= 5.0, "mean queue {m:.2}, 2α = 100");
}

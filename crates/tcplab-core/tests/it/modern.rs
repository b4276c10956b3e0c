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

//! TCP Westwood (seed 004, `cc/westwood.rs`) on a 10 Mb/s, 100 ms path.
//!
//! Data packets are 1000 B payload + 40 B headers: the bottleneck carries
//! 10⁷/(1040·8) = 1201.9 packets/s, i.e. 9.615 Mb/s of payload, which is what Westwood's
//! estimates (payload bytes acknowledged per second) converge to when the link is busy.

use crate::common::{f, named, run, u};
use tcplab_core::scenario::Built;

/// The payload rate of a saturated 10 Mb/s link, b/s.
const PAYLOAD_BPS: f64 = 1e7 * 1000.0 / 1040.0;

/// One flow a → b over a 10 Mb/s, 50 ms link each way, Bernoulli `loss` on the data
/// direction only, drop-tail `limit` packets.
fn path(cc: &str, loss: f64, limit: u32, duration: &str, flow_extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 4
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "50ms"
queue = {{ type = "droptail", limit = {limit} }}
loss = {loss}
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "50ms"
queue = {{ type = "droptail", limit = {limit} }}
[flows.w]
from = "a"
to = "b"
cc = {cc}
mss = 1000
{flow_extra}
[metrics]
trace = "10ms"
steady_start = "10s"
"#
    )
}

/// The trace column `cc_<name>`.
fn column<'a>(b: &'a Built, name: &str) -> &'a [f64] {
    let tr = &b.sim.cwnd_trace;
    let k = tr
        .cc_names
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no column {name}: {:?}", tr.cc_names));
    &tr.cc_values[k]
}

#[test]
fn be_estimate_converges_to_the_bottleneck_rate_on_a_clean_path() {
    // No loss, a buffer that never fills (the window is capped at 2·BDP ≈ 240 packets, the
    // buffer holds 1000): after slow start the link is busy and acks leave it 0.832 ms apart.
    let b = run(&path(
        "\"westwood\"",
        0.0,
        1000,
        "20s",
        "max_window = 240000",
    ));
    let s = tcplab_core::report::summary(&b, 0.0);
    let fl = named(&s, "flows", "w");
    assert_eq!(u(&fl["retransmits"]), 0, "{fl}");
    let be = column(&b, "be_bps");
    let t = &b.sim.cwnd_trace.base.t;
    // From 5 s on (τ = 0.5 s, slow start over by ~1.5 s) BE stays within 0.5 % of the rate
    // (measured: 0.013 %; acks leave the busy link exactly one packet time apart).
    let mut worst: f64 = 0.0;
    for k in 0..t.len() {
        if t[k] >= 5.0 {
            worst = worst.max((be[k] - PAYLOAD_BPS).abs() / PAYLOAD_BPS);
        }
    }
    assert!(worst < 0.005, "BE off by {:.3} %", 100.0 * worst);
    // RE (T = srtt) measures the same busy link.
    let re = column(&b, "re_bps");
    let last = re[re.len() - 1];
    assert!((last - PAYLOAD_BPS).abs() / PAYLOAD_BPS < 0.02, "RE {last}");
    // ERE is BE.
    assert_eq!(column(&b, "ere_bps")[be.len() - 1], be[be.len() - 1]);
}

#[test]
fn null_samples_change_nothing_while_acks_come_faster_than_tau_over_m() {
    // Mascolo's virtual null samples fill silences of τ/m (here 0.5/4 = 125 ms); on a busy
    // path acks are 0.832 ms apart, so BE (and the run) is the default's, bit for bit.
    let trace = |cc: &str| {
        let b = run(&path(cc, 0.0, 1000, "12s", "max_window = 240000"));
        (
            column(&b, "be_bps").to_vec(),
            b.sim.cwnd_trace.base.cwnd_bytes.clone(),
        )
    };
    let (be0, w0) = trace("\"westwood\"");
    let (be4, w4) = trace("{ algorithm = \"westwood\", null_samples = 4 }");
    assert!(be0.len() > 100 && be0[be0.len() - 1] > 0.9 * PAYLOAD_BPS);
    assert_eq!(be0, be4);
    assert_eq!(w0, w4);
}

/// Steady goodput (b/s) of `cc` under 1 % random loss, buffer = BDP (120 packets).
fn lossy_goodput(cc: &str) -> (f64, Built) {
    let b = run(&path(cc, 0.01, 120, "70s", ""));
    let s = tcplab_core::report::summary(&b, 0.0);
    (f(&named(&s, "flows", "w")["goodput_bps"]), b)
}

#[test]
fn westwood_beats_newreno_under_one_percent_random_loss() {
    // The deck's "Efficiency Gains" (E004-S-EFFGAIN at PER 1 %): NewReno halves its window
    // at every random loss; Westwood sets it to BE·RTT_min, the rate the link delivered.
    let (reno, _) = lossy_goodput("\"newreno\"");
    let (ww, b) = lossy_goodput("\"westwood\"");
    let ratio = ww / reno;
    eprintln!(
        "1 % loss, 10 Mb/s, 100 ms: westwood {ww:.0} b/s, newreno {reno:.0} b/s, ratio {ratio:.2}"
    );
    assert!(ratio > 1.3, "ratio {ratio:.2}");
    // Westwood+ (Linux) gains too.
    let (plus, _) = lossy_goodput("{ algorithm = \"westwood\", estimator = \"plus\" }");
    assert!(plus > reno, "plus {plus:.0} vs newreno {reno:.0}");
    // After each loss ssthresh = ERE·RTT_min in whole segments (floor 2). The trace samples
    // every 10 ms, so the loss falls between sample k − 1 and k: ssthresh(k) must lie
    // between the targets computed from ERE at those two samples (± 1 segment for the
    // floor). ERE mostly moves little in 10 ms (τ = 0.5 s), but the first ack after a
    // silence (a timeout) has a long Δt and pulls it down at once.
    let tr = &b.sim.cwnd_trace;
    let (ere, rtt_min) = (column(&b, "ere_bps"), column(&b, "rtt_min_s"));
    let target = |j: usize| (ere[j] / 8.0 * rtt_min[j] / 1000.0).floor().max(2.0) * 1000.0;
    let ss = &tr.base.ssthresh_bytes;
    let mut checked = 0;
    for k in 1..ss.len() {
        if ss[k] != ss[k - 1] && ss[k - 1] != i64::MAX as u64 && ss[k] != u64::MAX {
            let (x, y) = (target(k - 1), target(k));
            let got = ss[k] as f64;
            assert!(
                got >= x.min(y) - 1000.0 && got <= x.max(y) + 1000.0,
                "t {}: ssthresh {got} vs ERE·RTT_min {x} .. {y}",
                tr.base.t[k]
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} ssthresh changes");
}

#[test]
fn bad_parameters_name_the_leaf_field() {
    for (cc, field) in [
        ("{ algorithm = \"westwood\", tau = 0 }", "flows.w.cc.tau"),
        (
            "{ algorithm = \"westwood\", crb_theta = 0.9 }",
            "flows.w.cc.crb_theta",
        ),
        (
            "{ algorithm = \"westwood\", abse_threshold = 2 }",
            "flows.w.cc.abse_threshold",
        ),
        (
            "{ algorithm = \"westwood\", pncd_rounds = 0 }",
            "flows.w.cc.pncd_rounds",
        ),
        (
            "{ algorithm = \"westwood\", estimator = \"xx\" }",
            "flows.w.cc.estimator",
        ),
        ("{ algorithm = \"westwood\", taus = 1 }", "flows.w.cc.taus"),
        (
            "{ algorithm = \"westwood\", null_samples = 1 }",
            "flows.w.cc.null_samples",
        ),
        (
            "{ algorithm = \"westwood\", null_samples = -2 }",
            "flows.w.cc.null_samples",
        ),
        (
            "{ algorithm = \"westwood\", estimator = \"re\", null_samples = 2 }",
            "flows.w.cc.null_samples",
        ),
    ] {
        let e = tcplab_core::load_toml(&path(cc, 0.0, 100, "1s", ""), None)
            .err()
            .expect("must fail");
        assert_eq!(e.field, field, "{}", e.reason);
    }
}

#[test]
fn estimators_under_random_loss_rank_as_the_deck_says() {
    // ABSE slide: BE is "effective under random loss", RE "underestimates under random loss";
    // CRB picks between them. Measured (70 s, 1 % loss): BE 4.92, ABSE 4.64, CRB 3.99,
    // RE 2.55, Westwood+ 1.69, NewReno 1.01 Mb/s.
    let g = |est: &str| {
        lossy_goodput(&format!(
            "{{ algorithm = \"westwood\", estimator = \"{est}\" }}"
        ))
        .0
    };
    let (reno, _) = lossy_goodput("\"newreno\"");
    let (be, re, crb, abse) = (g("be"), g("re"), g("crb"), g("abse"));
    eprintln!("1 % loss: be {be:.0} re {re:.0} crb {crb:.0} abse {abse:.0} newreno {reno:.0}");
    assert!(
        re < be && crb < be,
        "RE {re:.0}, CRB {crb:.0} vs BE {be:.0}"
    );
    assert!(
        crb > re,
        "CRB {crb:.0} uses BE at non-congestion losses, RE {re:.0}"
    );
    for (name, x) in [("re", re), ("crb", crb), ("abse", abse)] {
        assert!(x > reno, "{name} {x:.0} vs newreno {reno:.0}");
    }
}

#[test]
fn agile_probing_starts_up_without_overflowing_a_bdp_buffer() {
    // E004-S-APROBE: "converges faster to its pipe size with less buffer overflow". Slow
    // start overshoots a BDP buffer (120 packets); Agile Probing's exponential phase stops
    // at ERE·RTT_min (the pipe) and grows linearly above it.
    let startup = |cc: &str| {
        let b = run(&path(cc, 0.0, 120, "20s", ""));
        let s = tcplab_core::report::summary(&b, 0.0);
        let (l, fl) = (named(&s, "links", "ab"), named(&s, "flows", "w"));
        (u(&l["drops"]), f(&fl["goodput_bps"]))
    };
    let (ss_drops, _) = startup("\"westwood\"");
    let (ap_drops, ap_goodput) = startup("{ algorithm = \"westwood\", agile_probing = true }");
    assert!(ss_drops > 100, "slow start drops {ss_drops}");
    assert_eq!(ap_drops, 0);
    assert!(ap_goodput > 0.95 * PAYLOAD_BPS, "{ap_goodput}");
}

/// A Westwood flow `w` (Agile Probing on) shares a 40 Mb/s, 100 ms dumbbell (buffer one
/// BDP) with three NewReno flows that leave at 20 s; summary window 21–26 s.
fn dynamic(cc: &str) -> Built {
    run(&format!(
        r#"
duration = "26s"
seed = 4
[dumbbell]
bottleneck = {{ rate = "40Mbps", delay = "40ms", buffer = "1bdp" }}
access = {{ rate = "400Mbps", delay = "5ms" }}
flows = [ {{ cc = {cc}, name = "w" }}, {{ cc = "newreno", count = 3, name = "x" }} ]
[schedules.cross]
flows = ["x1", "x2", "x3"]
active = [["0s", 3], ["20s", 0]]
[metrics]
trace = "100ms"
steady_start = "21s"
"#
    ))
}

#[test]
fn pncd_reinvokes_agile_probing_when_the_load_drops() {
    // The deck's PNCD use "during Congestion Avoidance, when load reduces drastically".
    // Without PNCD the window climbs one segment per RTT from its ~1/4 share; with it, eight
    // non-congested rounds re-enter Agile Probing, whose ERE (BE) sees the free link.
    // Measured (goodput 21–26 s): 31.5 Mb/s without, 37.8 Mb/s with PNCD.
    let goodput = |b: &Built| {
        let s = tcplab_core::report::summary(b, 0.0);
        f(&named(&s, "flows", "w")["goodput_bps"])
    };
    let plain = dynamic("{ algorithm = \"westwood\", agile_probing = true }");
    let pncd = dynamic("{ algorithm = \"westwood\", agile_probing = true, pncd = true }");
    let (g0, g1) = (goodput(&plain), goodput(&pncd));
    eprintln!("after the load drops: {g0:.0} b/s without PNCD, {g1:.0} with");
    assert!(g1 > 1.1 * g0, "PNCD {g1:.0} vs {g0:.0}");
    // The trace shows Agile Probing re-entered after 20 s only with PNCD.
    let reentered = |b: &Built| {
        let t = &b.sim.cwnd_trace.base.t;
        let ap = column(b, "aprobe");
        (0..t.len()).any(|k| t[k] > 20.0 && ap[k] == 1.0)
    };
    assert!(reentered(&pncd) && !reentered(&plain));
}

#[test]
fn agile_probing_on_re_holds_the_window_at_its_own_rate() {
    // A literal consequence of the deck's Aprobe pseudocode (kept on purpose):
    // cwnd == ssthresh = ERE·RTT_min does not grow, and RE (bytes over the last RTT) never
    // exceeds what the flow itself sends, so with estimator = "re" Agile Probing holds the
    // initial window on a free 10 Mb/s path; BE's per-ack samples see the bottleneck's
    // spacing and probe up to the pipe.
    let goodput = |cc: &str| {
        let b = run(&path(cc, 0.0, 120, "20s", ""));
        let s = tcplab_core::report::summary(&b, 0.0);
        f(&named(&s, "flows", "w")["goodput_bps"])
    };
    let re = goodput("{ algorithm = \"westwood\", estimator = \"re\", agile_probing = true }");
    let be = goodput("{ algorithm = \"westwood\", agile_probing = true }");
    assert!(re < 0.05 * PAYLOAD_BPS, "RE + Aprobe {re:.0}");
    assert!(be > 0.95 * PAYLOAD_BPS, "BE + Aprobe {be:.0}");
}

//! SACK (RFC 2018) with RFC 6675 recovery and PRR (RFC 6937) in whole runs.

use crate::common::run;
use tcplab_core::report::summary;

/// One flow a → b over a 10 Mb/s, 2 × 20 ms path; `drops` are data packet numbers lost on
/// a → b (the list error model); `extra` adds flow keys.
fn path(drops: &[u64], flow_extra: &str, app: &str, duration: &str) -> String {
    let list = drops
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let error = if drops.is_empty() {
        String::new()
    } else {
        format!("error = {{ model = \"list\", packets = [{list}] }}")
    };
    format!(
        r#"
duration = "{duration}"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "20ms"
queue = {{ type = "droptail", limit = 1000 }}
{error}
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "20ms"
[flows.f]
from = "a"
to = "b"
cc = "newreno"
mss = 1000
init_cwnd = 40
rto_min = "1s"
app = {app}
{flow_extra}
"#
    )
}

fn flow(b: &tcplab_core::scenario::Built) -> serde_json::Value {
    summary(b, 0.0)["flows"][0].clone()
}

/// Exactly the first window (40 segments).
const TRANSFER: &str = r#"{ type = "transfer", bytes = 40000 }"#;

#[test]
fn several_losses_in_one_window_are_repaired_in_about_one_rtt() {
    // A 40-segment transfer sent in the first window; 6 segments lost. NewReno repairs one
    // hole per round trip (~41 ms each), SACK all of them in the first.
    let drops = [5, 9, 14, 20, 27, 33];
    let nr = run(&path(&drops, "", TRANSFER, "10s"));
    let sk = run(&path(&drops, "sack = true", TRANSFER, "10s"));
    let (fn_, fs) = (flow(&nr), flow(&sk));
    let t_nr = fn_["completed_at_s"].as_f64().expect("NewReno completes");
    let t_sk = fs["completed_at_s"].as_f64().expect("SACK completes");
    // No timeouts in either: the difference is recovery rounds.
    assert_eq!(fn_["timeouts"], 0, "{fn_}");
    assert_eq!(fs["timeouts"], 0, "{fs}");
    // Exactly the lost segments are retransmitted.
    assert_eq!(fs["retransmits"], 6, "{fs}");
    assert_eq!(fs["fast_retransmits"], 1, "{fs}");
    // The window is sent in 32 ms; the last loss (segment 33) is known once three
    // segments above it are SACKed (~1.7 RTT), and its retransmission is acked one RTT
    // later: SACK completes in under 3 RTTs. NewReno retransmits one hole per RTT: 5 more.
    let rtt = 0.0408;
    assert!(t_sk < 3.0 * rtt, "SACK {t_sk:.3} s, NewReno {t_nr:.3} s");
    assert!(t_nr > t_sk + 4.0 * rtt, "SACK {t_sk:.3} s, NewReno {t_nr:.3} s");
    let s = sk.sim.flows[0].tcp().unwrap().0;
    assert_eq!(s.stats.dsacks_received, 0);
}

#[test]
fn no_spurious_retransmissions_on_a_clean_path() {
    let b = run(&path(
        &[],
        "sack = true",
        r#"{ type = "transfer", bytes = 20000000 }"#,
        "30s",
    ));
    let f = flow(&b);
    assert!(f["completed_at_s"].as_f64().is_some(), "{f}");
    // Losses only from the 1000-packet queue overflowing in slow start, then recovered
    // by SACK: every retransmission repairs a real drop, none is duplicated at the receiver.
    let (snd, rcv) = b.sim.flows[0].tcp().unwrap();
    assert_eq!(snd.stats.timeouts, 0, "{f}");
    assert_eq!(rcv.stats.duplicate_packets, 0, "{f}");
    assert_eq!(snd.stats.dsacks_received, 0);
    let dropped = b.sim.links[0].drops.packets;
    assert_eq!(snd.stats.retransmits, dropped, "{f}");
}

#[test]
fn sack_runs_are_deterministic() {
    let sc = path(&[5, 9, 14, 70, 71, 72, 73], "sack = true\nprr = \"crb\"", r#"{ type = "bulk" }"#, "5s");
    let a = summary(&run(&sc), 0.0);
    let b = summary(&run(&sc), 0.0);
    assert_eq!(a, b);
}

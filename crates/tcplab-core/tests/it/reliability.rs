//! Every byte is delivered exactly once and in order, whatever the loss rate (0-30 % each
//! way, data and acks), for every recovery flavour, over many seeds.

use super::common::{build, two_host};

fn scenario(loss: f64, cc: &str, seed: u64, bytes: u64) -> String {
    let flows = format!(
        r#"
[flows.t]
from = "a"
to = "b"
cc = {cc}
mss = 1000
max_window = "32KiB"
rto_min = "200ms"
rto_max = "8s"
app = {{ type = "transfer", bytes = {bytes} }}
"#
    );
    let body = two_host(
        "10Mbps",
        "10Mbps",
        "10ms",
        "10ms",
        r#"{ type = "droptail", limit = 50 }"#,
        loss,
        &flows,
        "5000s",
        "",
    );
    format!("seed = {seed}\n{body}")
}

#[test]
fn every_byte_exactly_once_in_order_under_loss() {
    let bytes = 150_000u64;
    for cc in [
        r#""reno""#,
        r#""newreno""#,
        r#"{ algorithm = "gaimd", alpha = 0.31, beta = 0.875 }"#,
    ] {
        for loss in [0.0, 0.01, 0.05, 0.1, 0.2, 0.3] {
            for seed in 1..=8u64 {
                let mut b = build(&scenario(loss, cc, seed, bytes));
                b.sim.run();
                let f = &b.sim.flows[0];
                let (sender, receiver) = f.tcp().unwrap();
                let ctx = format!("cc={cc} loss={loss} seed={seed}");
                assert_eq!(
                    receiver.rcv_nxt(),
                    bytes,
                    "{ctx}: receiver did not get every byte"
                );
                // In-order delivery counted once per byte: the goodput counter equals the size.
                assert_eq!(
                    f.counters.goodput_bytes, bytes,
                    "{ctx}: bytes delivered more or less than once"
                );
                assert!(
                    sender.is_complete(),
                    "{ctx}: sender did not see everything acked"
                );
                assert_eq!(receiver.holes(), 0, "{ctx}");
                if loss == 0.0 {
                    assert_eq!(
                        sender.stats.retransmits, 0,
                        "{ctx}: retransmitted without loss"
                    );
                } else if loss >= 0.05 {
                    assert!(
                        sender.stats.retransmits > 0,
                        "{ctx}: no retransmission under loss?"
                    );
                }
            }
        }
    }
}

#[test]
fn losses_on_different_seeds_differ() {
    let run = |seed| {
        let mut b = build(&scenario(0.1, r#""newreno""#, seed, 150_000));
        b.sim.run();
        (
            b.sim.flows[0].tcp().unwrap().0.stats.retransmits,
            b.sim.flows[0].completed_at,
        )
    };
    assert_ne!(run(1), run(2));
    assert_eq!(run(3), run(3));
}

//! Snoop (`net/snoop.rs`): a base-station agent on a lossy wireless last hop
//! (`examples/snoop.toml`: two identical paths, the agent on the second).

use crate::common::{f, named, summary, u};

const EXAMPLE: &str = include_str!("../../../../examples/snoop.toml");

fn with(duration: &str, loss: &str, extra: &str) -> String {
    EXAMPLE
        .replace("duration = \"60s\"", &format!("duration = \"{duration}\""))
        .replace("loss = 0.02", &format!("loss = {loss}"))
        + extra
}

#[test]
fn newreno_with_snoop_beats_newreno_alone_on_a_lossy_last_hop() {
    let s = summary(&with("30s", "0.02", ""));
    let plain = named(&s, "flows", "plain");
    let snoop = named(&s, "flows", "snoop");
    let (gp, gs) = (f(&plain["goodput_bps"]), f(&snoop["goodput_bps"]));
    assert!(gs > 1.5 * gp, "snoop {gs} vs plain {gp}");
    // The fixed host no longer fast-retransmits for wireless losses: the agent repairs
    // them and keeps the duplicate acks. What remains are the base station queue's own
    // overflows, which Snoop leaves to the sender (`repair_queue_drops = false`).
    assert!(u(&plain["fast_retransmits"]) > 20);
    assert!(u(&snoop["fast_retransmits"]) * 2 < u(&plain["fast_retransmits"]));
    let bs2 = named(&s, "links", "bs2_mh2");
    assert!(u(&snoop["fast_retransmits"]) <= u(&bs2["drops"]));
    let a = &s["agents"]["bs2_snoop"];
    assert!(u(&a["local_retransmits"]) > 50);
    assert!(u(&a["suppressed_dupacks"]) > u(&a["local_retransmits"]));
    assert_eq!(a["node"], "bs2");
}

#[test]
fn on_a_clean_path_snoop_changes_nothing() {
    // No errors, and a window (20 segments) the base station's 50-packet queue holds: no
    // loss anywhere, so the agent only forwards, and both connections run identically.
    let s = summary(&with("20s", "0.0", "").replace(
        "defaults.flows = { cc = \"newreno\", mss = 1000 }",
        "defaults.flows = { cc = \"newreno\", mss = 1000, max_window = \"20000B\" }",
    ));
    let plain = named(&s, "flows", "plain");
    let snoop = named(&s, "flows", "snoop");
    assert_eq!(plain["goodput_bps"], snoop["goodput_bps"]);
    assert_eq!(plain["mean_rtt_s"], snoop["mean_rtt_s"]);
    assert_eq!(u(&snoop["retransmits"]), 0);
    let a = &s["agents"]["bs2_snoop"];
    assert!(u(&a["cached"]) > 1000);
    for k in [
        "local_retransmits",
        "timer_retransmits",
        "suppressed_dupacks",
        "not_cached",
    ] {
        assert_eq!(u(&a[k]), 0, "{k}");
    }
}

#[test]
fn bad_agents_name_the_field() {
    let bad = |extra: &str| {
        let text = EXAMPLE.replace(
            "[agents.bs2_snoop]\ntype = \"snoop\"\nnode = \"bs2\"\nwireless = \"bs2_mh2\"\n",
            extra,
        );
        tcplab_core::load_toml(&text, None).err().expect("an error")
    };
    let e = bad("[agents.s]\ntype = \"snoop\"\nnode = \"bs2\"\nwireless = \"fh2_bs2\"\n");
    assert_eq!(e.field, "agents.s.wireless", "{e}");
    assert!(e.reason.contains("does not leave"), "{e}");
    let e = bad("[agents.s]\ntype = \"snoop\"\nnode = \"bs9\"\nwireless = \"bs2_mh2\"\n");
    assert_eq!(e.field, "agents.s.node", "{e}");
    let e = bad("[agents.s]\ntype = \"snoopy\"\nnode = \"bs2\"\nwireless = \"bs2_mh2\"\n");
    assert!(e.field.starts_with("agents.s"), "{e}");
}

//! Event traces (`metrics.events`) and the congestion-control trace hook.

use crate::common::two_host;
use tcplab_core::event::{FlowId, LinkId};
use tcplab_core::stats::columns::ColRef;

/// A bulk flow a→b through a 10-packet drop-tail queue (it overflows in slow start), a
/// GAIMD flow b→a, and 1 % wire loss on both directions.
fn scenario(metrics: &str) -> String {
    two_host(
        "2Mbps",
        "2Mbps",
        "20ms",
        "20ms",
        r#"{ type = "droptail", limit = 10 }"#,
        0.01,
        r#"
[flows.x]
from = "a"
to = "b"
cc = "newreno"
[flows.y]
from = "b"
to = "a"
cc = { algorithm = "gaimd", alpha = 0.31, beta = 0.875 }
"#,
        "20s",
        &format!("[metrics]\n{metrics}"),
    )
}

fn run(metrics: &str) -> tcplab_core::scenario::Built {
    let mut b = tcplab_core::load_toml(&scenario(metrics), Some(3)).unwrap();
    b.sim.run();
    b
}

#[test]
fn drop_and_loss_rows_match_the_summary_counts() {
    let b = run(r#"events = ["drop", "loss"]"#);
    let s = tcplab_core::report::summary(&b, 0.0);
    let links = s["links"].as_array().unwrap();
    let drops: u64 = links.iter().map(|l| l["drops"].as_u64().unwrap()).sum();
    let lost: u64 = links.iter().map(|l| l["lost"].as_u64().unwrap()).sum();
    assert!(
        drops > 0 && lost > 0,
        "the scenario must drop and lose: {drops} {lost}"
    );
    let ev = &b.sim.packet_events;
    let n = |e: &str| ev.event.iter().filter(|&&x| x == e).count() as u64;
    assert_eq!(n("drop"), drops);
    assert_eq!(n("loss"), lost);
    assert_eq!(ev.len() as u64, drops + lost);
    assert_eq!(s["run"]["packets_dropped"].as_u64().unwrap(), drops + lost);
    // Per link too, and every drop row has the drop-tail reason.
    for (i, l) in links.iter().enumerate() {
        let rows = (0..ev.len())
            .filter(|&k| ev.link[k] == LinkId::from_index(i) && ev.event[k] == "drop")
            .count() as u64;
        assert_eq!(rows, l["drops"].as_u64().unwrap(), "link {i}");
    }
    assert!((0..ev.len())
        .filter(|&k| ev.event[k] == "drop")
        .all(|k| ev.reason[k] == "overflow"));
    assert!(ev.t.windows(2).all(|w| w[0] <= w[1]), "time order");
    assert!(b.sim.cwnd_events.is_empty(), "cwnd not asked for");
}

#[test]
fn cwnd_rows_are_changes_in_time_order() {
    let b = run(r#"events = ["cwnd"]"#);
    let ev = &b.sim.cwnd_events;
    assert!(ev.len() > 100, "{}", ev.len());
    assert!(ev.t.windows(2).all(|w| w[0] <= w[1]));
    for f in 0..2u32 {
        let rows: Vec<usize> = (0..ev.len()).filter(|&k| ev.flow[k] == FlowId(f)).collect();
        assert_eq!(ev.t[rows[0]], 0.0, "initial row at t = 0");
        for w in rows.windows(2) {
            let (a, c) = (w[0], w[1]);
            assert!(
                (ev.cwnd_bytes[a], ev.ssthresh_bytes[a])
                    != (ev.cwnd_bytes[c], ev.ssthresh_bytes[c]),
                "row {c} repeats row {a}"
            );
        }
        // Losses happen, so the flow leaves the open state at least once.
        assert!(rows.iter().any(|&k| ev.state[k] != "open"), "flow {f}");
    }
    assert!(b.sim.packet_events.is_empty());
}

#[test]
fn events_are_off_by_default_and_change_no_result() {
    let off = run("");
    assert!(off.sim.cwnd_events.is_empty() && off.sim.packet_events.is_empty());
    let on = run(r#"events = ["cwnd", "drop", "loss", "mark"]"#);
    assert!(!on.sim.cwnd_events.is_empty() && !on.sim.packet_events.is_empty());
    assert_eq!(
        tcplab_core::report::summary(&off, 0.0),
        tcplab_core::report::summary(&on, 0.0)
    );
    assert_eq!(
        format!("{:?}", off.sim.intervals),
        format!("{:?}", on.sim.intervals)
    );
}

#[test]
fn unknown_event_kind_names_the_field_and_the_known_kinds() {
    let e = tcplab_core::load_toml(&scenario(r#"events = ["drop", "drops"]"#), None)
        .err()
        .expect("must fail");
    assert_eq!(e.field, "metrics.events[1]");
    assert!(e.reason.contains("'drops'"), "{}", e.reason);
    assert!(e.reason.contains("cwnd, drop, loss, mark"), "{}", e.reason);
}

#[test]
fn trace_hook_adds_one_column_per_exported_name() {
    let b = run(r#"trace = "100ms""#);
    let tr = &b.sim.cwnd_trace;
    assert_eq!(
        tr.cc_names,
        ["cwnd_segments"],
        "GAIMD exports it, NewReno nothing"
    );
    let cols = tr.columns();
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "flow",
            "t",
            "cwnd_bytes",
            "ssthresh_bytes",
            "in_flight_bytes",
            "pacing_rate_bps",
            "cc_cwnd_segments"
        ]
    );
    let ColRef::F64(seg) = cols[6].data else {
        panic!("cc_ columns are f64")
    };
    let (mss, max_window) = (b.flow_meta[1].tcp.mss as f64, b.flow_meta[1].tcp.max_window);
    let (mut gaimd_rows, mut exact) = (0, 0);
    for (k, &flow) in tr.base.flow.iter().enumerate() {
        match flow.0 {
            0 => assert!(seg[k].is_nan(), "newreno row {k} has no value"),
            _ => {
                gaimd_rows += 1;
                assert!(seg[k] >= 1.0, "row {k}: {}", seg[k]);
                // The exact window; cwnd_bytes is it truncated and capped at the receiver
                // window, except in fast recovery (where the transport runs its own).
                let w = ((seg[k] * mss) as u64).min(max_window);
                exact += (w == tr.base.cwnd_bytes[k]) as usize;
            }
        }
    }
    assert_eq!(gaimd_rows, seg.len() / 2);
    // This lossy run spends about a sixth of its samples in fast recovery.
    assert!(exact * 4 >= gaimd_rows * 3, "{exact} of {gaimd_rows}");
}

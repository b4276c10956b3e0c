//! The invariant auditor (`tcplab_core::audit`) on every checked-in scenario: the examples and
//! every paper's scenario files, shortened, with the whole state checked every 256 events
//! and the summary at the end. And proof that the auditor can fail.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![repo().join("examples")];
    for e in std::fs::read_dir(repo().join("python/tcplab/repro/papers")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            dirs.push(p);
        }
    }
    for d in dirs {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml")
                && p.file_name().is_some_and(|n| n != "reproduce.toml")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The scenario cut to at most `secs` simulated seconds, without pcap files.
fn shortened(text: &str, secs: f64) -> String {
    let mut v: toml::Table = text.parse().unwrap();
    v.insert("duration".into(), toml::Value::String(format!("{secs}s")));
    if let Some(m) = v.get_mut("metrics").and_then(|m| m.as_table_mut()) {
        m.insert("steady_start".into(), toml::Value::String("0s".into()));
    }
    // Paper scenarios whose flow lists come from the manifest (`vary_fn`): two pairs.
    if let Some(d) = v.get_mut("dumbbell").and_then(|d| d.as_table_mut()) {
        if d.get("flows")
            .and_then(|f| f.as_array())
            .is_some_and(|f| f.is_empty())
        {
            d.remove("flows");
            d.insert("pairs".into(), toml::Value::Integer(2));
        }
    }
    if let Some(links) = v.get_mut("links").and_then(|l| l.as_table_mut()) {
        for (_, l) in links.iter_mut() {
            if let Some(t) = l.as_table_mut() {
                t.remove("pcap");
            }
        }
    }
    toml::to_string(&v).unwrap()
}

#[test]
fn every_checked_in_scenario_passes_the_auditor() {
    let files = scenario_files();
    assert!(
        files.len() >= 30,
        "found only {} scenario files",
        files.len()
    );
    let mut ran = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let top: toml::Table = text.parse().unwrap();
        if top.contains_key("base") || top.contains_key("sweep") {
            continue; // a sweep file, not a scenario
        }
        let toml = shortened(&text, 3.0);
        let mut b = match tcplab_core::load_toml(&toml, Some(7)) {
            Ok(b) => b,
            Err(e) => panic!("{}: {e}", f.display()),
        };
        b.sim.enable_audit(256);
        b.sim.run();
        assert!(b.sim.is_finished());
        let _ = tcplab_core::report::summary(&b, 0.0); // audits the summary too
        ran += 1;
    }
    assert!(ran >= 30, "ran only {ran}");
}

const TWO_HOSTS: &str = r#"
duration = "2s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
queue = { type = "droptail", limit = 20 }
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "5ms"
[flows.f]
from = "a"
to = "b"
"#;

#[test]
#[should_panic(expected = "tcplab audit: link 'ab': offered")]
fn the_auditor_catches_a_lost_packet() {
    let mut b = tcplab_core::load_toml(TWO_HOSTS, Some(1)).unwrap();
    b.sim.enable_audit(1_000_000);
    b.sim.run_until(tcplab_core::time::SimTime(
        tcplab_core::time::SimDuration::from_secs(1).0,
    ));
    b.sim.audit(); // consistent so far
    b.sim.links[0].stats.offered += 1; // a packet that went nowhere
    b.sim.audit();
}

#[test]
fn audited_and_unaudited_runs_are_identical() {
    let run = |audit: bool| {
        let mut b = tcplab_core::load_toml(TWO_HOSTS, Some(1)).unwrap();
        if audit {
            b.sim.enable_audit(1);
        }
        b.sim.run();
        let mut s = tcplab_core::report::summary(&b, 0.0);
        s["run"]["wall_seconds"] = serde_json::Value::Null;
        (s, b.sim.events_processed)
    };
    assert_eq!(run(false), run(true));
}

/// `TWO_HOSTS` with a small buffer and a lossy wire, so queue drops and wire losses both
/// enter the segment accounting.
fn lossy_two_hosts() -> String {
    TWO_HOSTS
        .replace("limit = 20 }", "limit = 5 }\nloss = 0.02")
        .replace("duration = \"2s\"", "duration = \"3s\"")
}

/// Run `text` for 1 s with the auditor on from the start, and check it passes.
fn audited_for_1s(text: &str) -> tcplab_core::scenario::Built {
    let mut b = tcplab_core::load_toml(text, Some(1)).unwrap();
    b.sim.enable_audit(1_000_000);
    b.sim.run_until(tcplab_core::time::SimTime(
        tcplab_core::time::SimDuration::from_secs(1).0,
    ));
    b.sim.audit(); // consistent so far
    b
}

#[test]
fn the_segment_accounting_sees_drops_and_losses() {
    let mut b = audited_for_1s(&lossy_two_hosts());
    b.sim.run();
    let l = &b.sim.links[0];
    let x = l.drops.by_flow[0];
    assert!(x.dropped[0] > 0, "no queue drop: {x:?}");
    assert!(x.lost[0] > 0, "no wire loss: {x:?}");
    // Every drop and loss of the link is the one flow's.
    assert_eq!(x.dropped[0] + x.dropped[1], l.drops.packets);
}

#[test]
#[should_panic(expected = "tcplab audit: flow 'f': data segments sent")]
fn the_auditor_catches_a_segment_that_vanished() {
    let mut b = audited_for_1s(&lossy_two_hosts());
    // A segment counted as sent that never reached a link.
    match &mut b.sim.flows[0].transport {
        tcplab_core::sim::Transport::Tcp { sender, .. } => sender.stats.segments_sent += 1,
        _ => unreachable!(),
    }
    b.sim.audit();
}

#[test]
#[should_panic(expected = "tcplab audit: flow 'f': acks sent")]
fn the_auditor_catches_an_ack_counted_twice() {
    let mut b = audited_for_1s(&lossy_two_hosts());
    // An ack drop counted on a second link (the reverse direction also dropped it).
    b.sim.links[0].drops.by_flow[0].dropped[1] += 1;
    b.sim.audit();
}

#[test]
fn switched_on_mid_run_the_auditor_skips_the_accounting() {
    // Drops before the switch were not counted per flow: no accounting, and no false alarm.
    let mut b = tcplab_core::load_toml(&lossy_two_hosts(), Some(1)).unwrap();
    b.sim.run_until(tcplab_core::time::SimTime(
        tcplab_core::time::SimDuration::from_secs(1).0,
    ));
    assert!(b.sim.links[0].drops.packets > 0);
    b.sim.enable_audit(64);
    b.sim.run();
    assert!(b.sim.links[0].drops.by_flow.is_empty());
}

#[test]
fn the_segment_accounting_covers_snoop_agents() {
    // Snoop sends local retransmissions and keeps dupacks back: both enter the accounting.
    let text = std::fs::read_to_string(repo().join("examples/snoop.toml")).unwrap();
    let mut b = tcplab_core::load_toml(&shortened(&text, 20.0), Some(3)).unwrap();
    b.sim.enable_audit(512);
    b.sim.run();
    let tcplab_core::net::snoop::AnyAgent::Snoop(s) = &b.sim.agents[0];
    assert!(
        s.stats.local_retransmits + s.stats.timer_retransmits > 0 && s.stats.suppressed_dupacks > 0,
        "{:?}",
        s.stats
    );
}

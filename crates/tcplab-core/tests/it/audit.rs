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
    for e in std::fs::read_dir(repo().join("python/tcplab/papers")).unwrap() {
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

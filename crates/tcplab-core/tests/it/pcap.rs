//! Packet traces: `links.NAME.pcap` writes what the link transmits, deterministically; bad
//! paths are errors naming the field; I/O errors become warnings, never panics.

use super::common::{build, opposite_flows, two_host};
use std::path::{Path, PathBuf};
use tcplab_core::net::PacketKind;
use tcplab_core::stats::pcap::{RECEIVER_ISN, SENDER_ISN};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tcplab-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two-way Reno over a small buffer (drops), both directions captured.
fn scenario(pcap_ab: &str, pcap_ba: &str) -> String {
    let s = two_host(
        "1Mbps",
        "1Mbps",
        "5ms",
        "5ms",
        r#"{ type = "droptail", limit = 8 }"#,
        0.0,
        &opposite_flows(1000, 500, 40, 64_000, 64_000, "200ms"),
        "6s",
        "",
    );
    let s = s.replacen(
        "[links.ab]\n",
        &format!("[links.ab]\npcap = \"{pcap_ab}\"\n"),
        1,
    );
    let s = s.replacen(
        "[links.ba]\n",
        &format!("[links.ba]\npcap = \"{pcap_ba}\"\n"),
        1,
    );
    assert_eq!(s.matches("pcap = ").count(), 2, "{s}");
    s
}

struct Rec {
    sec: u32,
    nsec: u32,
    orig: u32,
    bytes: Vec<u8>,
}

/// A minimal pcap reader, independent of the writer's code.
fn read_pcap(path: &Path) -> Vec<Rec> {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[0..4], &0xa1b23c4du32.to_le_bytes());
    assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101);
    let mut out = Vec::new();
    let mut i = 24;
    while i < b.len() {
        let w = |k: usize| u32::from_le_bytes(b[i + k..i + k + 4].try_into().unwrap());
        let (sec, nsec, cap, orig) = (w(0), w(4), w(8) as usize, w(12));
        out.push(Rec {
            sec,
            nsec,
            orig,
            bytes: b[i + 16..i + 16 + cap].to_vec(),
        });
        i += 16 + cap;
    }
    assert_eq!(i, b.len(), "no trailing partial record");
    out
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

#[test]
fn capture_matches_the_simulation() {
    let d = scratch("match");
    let mut b = build(&scenario("ab.pcap", "sub/ba.pcap"));
    std::fs::create_dir(d.join("sub")).unwrap();
    b.open_pcaps(Some(&d), true).unwrap();
    b.sim.run();
    let s = tcplab_core::report::summary(&b, 0.0);
    assert!(
        s["warnings"].as_array().unwrap().is_empty(),
        "{}",
        s["warnings"]
    );
    let files = s["pcap"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let mut saw_drops = false;
    for (li, file) in [(0usize, "ab.pcap"), (1, "sub/ba.pcap")] {
        let link = &b.sim.links[li];
        saw_drops |= link.drops.packets > 0;
        let recs = read_pcap(&d.join(file));
        let log = link.capture.as_ref().unwrap().log().unwrap();
        assert_eq!(recs.len(), log.len());
        assert_eq!(files[li]["packets"], recs.len() as u64);
        // Everything was transmitted or is still being transmitted at the end.
        let busy = (link.occupancy().0 > 0) as u64;
        assert_eq!(recs.len() as u64, link.stats.tx_packets + busy);
        let mut last = 0u64;
        let mut data_seen = 0;
        for (k, (r, (t, p))) in recs.iter().zip(log).enumerate() {
            let ns = r.sec as u64 * 1_000_000_000 + r.nsec as u64;
            assert_eq!(ns, t.0 / 1000);
            assert!(ns >= last, "timestamps non-decreasing");
            last = ns;
            let tcp = &r.bytes[20..];
            match p.kind {
                PacketKind::Data => {
                    data_seen += 1;
                    assert_eq!(be32(&tcp[4..]), SENDER_ISN.wrapping_add(p.seq as u32));
                    // The frame is the simulated packet (issue 31): header + payload.
                    assert_eq!(r.orig, p.size);
                    assert_eq!(r.bytes.len() as u32, p.size - p.len, "headers captured");
                }
                PacketKind::Ack => {
                    assert_eq!(be32(&tcp[4..]), RECEIVER_ISN);
                    assert_eq!(be32(&tcp[8..]), SENDER_ISN.wrapping_add(p.ack as u32));
                    assert_eq!(r.orig, p.size);
                }
            }
            // Identification: the record's number in the file (a sender's counter).
            assert_eq!(u16::from_be_bytes([r.bytes[4], r.bytes[5]]), k as u16);
        }
        assert!(
            data_seen > 0 && data_seen < recs.len(),
            "data and acks on each direction"
        );
    }
    assert!(saw_drops, "the scenario should drop packets");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn same_scenario_same_bytes_and_building_touches_no_file() {
    let d = scratch("det");
    let sc = scenario("ab.pcap", "ba.pcap");
    let run = |sub: &str| {
        let dir = d.join(sub);
        std::fs::create_dir(&dir).unwrap();
        let mut b = build(&sc);
        assert!(!dir.join("ab.pcap").exists(), "building creates no file");
        b.open_pcaps(Some(&dir), false).unwrap();
        b.sim.run();
        (
            std::fs::read(dir.join("ab.pcap")).unwrap(),
            std::fs::read(dir.join("ba.pcap")).unwrap(),
        )
    };
    let (a1, b1) = run("one");
    let (a2, b2) = run("two");
    assert!(a1.len() > 24 + 100 * 68);
    assert_eq!(a1, a2);
    assert_eq!(b1, b2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_pcap_values_name_the_field() {
    let cases = [
        ("", "links.ab.pcap", "empty"),
        ("  ", "links.ab.pcap", "empty"),
        ("traces/", "links.ab.pcap", "names a directory"),
    ];
    for (value, field, words) in cases {
        let e = match tcplab_core::load_toml(&scenario(value, "ba.pcap"), None) {
            Ok(_) => panic!("accepted pcap = {value:?}"),
            Err(e) => e,
        };
        assert_eq!(e.field, field);
        assert!(e.reason.contains(words), "{e}");
    }
    let e = match tcplab_core::load_toml(&scenario("same.pcap", "same.pcap"), None) {
        Ok(_) => panic!("accepted one file for two links"),
        Err(e) => e,
    };
    assert_eq!(e.field, "links.ba.pcap");
    assert!(e.reason.contains("links.ab"), "{e}");
    let e = match tcplab_core::load_toml(
        &scenario("a.pcap", "b.pcap").replace("pcap = \"a.pcap\"", "pcap = 5"),
        None,
    ) {
        Ok(_) => panic!("accepted a number"),
        Err(e) => e,
    };
    assert_eq!(e.field, "links.ab.pcap");
}

#[test]
fn unwritable_paths_are_errors_naming_the_field() {
    let d = scratch("missing");
    let mut b = build(&scenario("ab.pcap", "no/such/dir/ba.pcap"));
    let e = b.open_pcaps(Some(&d), false).unwrap_err();
    assert_eq!(e.field, "links.ba.pcap");
    assert!(
        e.reason.contains("cannot create")
            && e.reason.contains("no/such/dir/ba.pcap")
            && e.reason.contains("does not exist"),
        "{e}"
    );
    assert!(
        !d.join("ab.pcap").exists(),
        "a bad path leaves no file behind"
    );
    assert!(b.sim.links.iter().all(|l| l.capture.is_none()));
    std::fs::create_dir(d.join("dir.pcap")).unwrap();
    let mut b = build(&scenario("dir.pcap", "ba.pcap"));
    let e = b.open_pcaps(Some(&d), false).unwrap_err();
    assert_eq!(e.field, "links.ab.pcap");
    assert!(e.reason.contains("is a directory"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn write_errors_become_warnings() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    // Inside the output directory (a scenario writes nowhere else): /dev itself.
    let mut b = build(&scenario("full", "null"));
    b.open_pcaps(Some(Path::new("/dev")), false).unwrap();
    b.sim.run();
    let s = tcplab_core::report::summary(&b, 0.0);
    let w: Vec<&str> = s["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("links.ab.pcap: writing '/dev/full' failed"),
        "{}",
        w[0]
    );
    assert!(s["pcap"]["files"][0]["error"]
        .as_str()
        .unwrap()
        .contains("No space"));
    assert!(s["pcap"]["files"][1]["error"].is_null());
}

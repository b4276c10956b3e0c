//! Replays the checked-in fuzz corpus (fuzz/corpus/TARGET/) and every input a fuzzer once
//! crashed on (fuzz/regressions/TARGET/) through the check functions the fuzz targets use,
//! so `cargo test` on stable keeps every crash fixed. `make fuzz` grows the corpus.

use std::path::PathBuf;
use tcplab_core::fuzzing;

fn replay(target: &str, check: fn(&[u8])) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut n = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.is_file()) {
            let data = std::fs::read(&p).unwrap();
            let r = std::panic::catch_unwind(|| check(&data));
            assert!(r.is_ok(), "fuzz input {} fails its check", p.display());
            n += 1;
        }
    }
    assert!(n > 0, "no corpus for fuzz target {target}");
}

#[test]
fn scenario_toml() {
    replay("scenario_toml", fuzzing::check_scenario_toml);
}

#[test]
fn scenario_json() {
    replay("scenario_json", fuzzing::check_scenario_json);
}

#[test]
fn units() {
    replay("units", fuzzing::check_units);
}

#[test]
fn run_bounded() {
    replay("run_bounded", fuzzing::check_run_bounded);
}

#[test]
fn pcap() {
    replay("pcap", fuzzing::check_pcap);
}

#[test]
fn sizes_bounded() {
    replay("sizes_bounded", fuzzing::check_sizes_bounded);
}

//! Check functions shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`, run with
//! `make fuzz` on nightly) and the corpus replay test (`tests/it/fuzz_corpus.rs`, run by
//! `make test` on stable). Each takes the raw fuzz input and panics when the property
//! fails; docs/reliability.md lists the properties and what the fuzzers found.
//!
//! Not part of the public API.

mod gen;
mod pcap;
mod sizes;

pub use pcap::check_pcap;
pub use sizes::{check_sizes_bounded, sizes_scenario};

use crate::scenario::{self, units, ScenarioError};
use crate::time::SimTime;

/// The first `cap` bytes of `data` as text (lossy, so every input reaches the parser).
fn text(data: &[u8], cap: usize) -> String {
    String::from_utf8_lossy(&data[..data.len().min(cap)]).into_owned()
}

/// Scenario text longer than this is cut (the parsers are linear; long inputs only slow
/// the fuzzer down).
const MAX_TEXT: usize = 16 * 1024;

/// [`check_run_bounded`] stops a run after about this many events (it advances one event
/// time at a time). Kept small: with the auditor on, a fuzz execution costs about as much
/// as its events (20,000: 10-100 ms in the instrumented fuzz build).
const MAX_EVENTS: u64 = 20_000;

/// [`check_run_bounded`]'s auditor checks the whole state every this many events.
const AUDIT_EVERY: u64 = 128;

/// A rejection must say why, and name a field unless the text is not a document at all.
fn check_error(e: &ScenarioError, doc_parsed: bool) {
    assert!(!e.reason.trim().is_empty(), "error without a reason: {e:?}");
    if doc_parsed {
        // A missing top-level key has no path; serde names it in the reason (`duration`).
        assert!(
            !e.field.trim().is_empty() || e.reason.contains('`'),
            "error on a parsed document names no field: {e:?}"
        );
    }
}

/// Scenario TOML → expand → validate → build: never a panic; every rejection is a
/// [`ScenarioError`] with a reason, naming a field once the text is valid TOML.
pub fn check_scenario_toml(data: &[u8]) {
    let t = text(data, MAX_TEXT);
    let doc_parsed = t.parse::<toml::Table>().is_ok();
    if let Err(e) = crate::load_toml(&t, Some(1)) {
        check_error(&e, doc_parsed);
    }
    if let Err(e) = scenario::expand_toml(&t) {
        check_error(&e, doc_parsed);
    }
}

/// [`check_scenario_toml`] for the JSON the Python binding sends.
pub fn check_scenario_json(data: &[u8]) {
    let t = text(data, MAX_TEXT);
    let doc_parsed = serde_json::from_str::<serde_json::Value>(&t)
        .map(|v| v.is_object())
        .unwrap_or(false);
    if let Err(e) = crate::load_json(&t, Some(1)) {
        check_error(&e, doc_parsed);
    }
    if let Err(e) = scenario::expand_json(&t) {
        check_error(&e, doc_parsed);
    }
}

/// The unit parsers: never a panic, and an accepted value agrees with the number written
/// (within f64 rounding) so nothing wraps at the edges of 64 bits.
pub fn check_units(data: &[u8]) {
    let s = text(data, 256);
    // The value the text denotes in base units, by an independent f64 reading.
    let approx = |mult: &dyn Fn(&str) -> Option<f64>| -> Option<f64> {
        let t = s.trim();
        let t = t.strip_prefix('+').unwrap_or(t);
        // The longest prefix that parses as an f64 is the number.
        (1..=t.len())
            .rev()
            .filter(|&i| t.is_char_boundary(i))
            .find_map(|i| {
                let v: f64 = t[..i].parse().ok()?;
                Some(v * mult(t[i..].trim())?)
            })
    };
    let close = |got: f64, want: Option<f64>, what: &str| {
        if let Some(w) = want {
            assert!(
                (got - w).abs() <= 1.0 + w.abs() * 1e-9,
                "{what}('{s}') = {got}, text says {w}"
            );
        }
    };
    if let Ok(r) = units::parse_rate(&s) {
        assert!(r.0 >= 1);
        close(
            r.0 as f64,
            approx(&|u| match u.to_ascii_lowercase().as_str() {
                "bps" | "b/s" | "bit/s" => Some(1.0),
                "kbps" | "kb/s" | "kbit/s" => Some(1e3),
                "mbps" | "mb/s" | "mbit/s" => Some(1e6),
                "gbps" | "gb/s" | "gbit/s" => Some(1e9),
                "tbps" | "tb/s" | "tbit/s" => Some(1e12),
                _ => None,
            }),
            "parse_rate",
        );
    }
    let dur_mult = |u: &str| match u {
        "ps" => Some(1.0),
        "ns" => Some(1e3),
        "us" | "µs" => Some(1e6),
        "ms" => Some(1e9),
        "s" => Some(1e12),
        "min" => Some(60e12),
        "" => Some(1.0),
        _ => None,
    };
    if let Ok(d) = units::parse_duration(&s) {
        assert!(d.0 <= u64::MAX / 2, "parse_duration('{s}') = {} ps", d.0);
        close(d.0 as f64, approx(&dur_mult), "parse_duration");
        // Adding it to any instant of a run must not overflow.
        let _ = SimTime(u64::MAX / 2).0.checked_add(d.0).expect("fits");
    }
    if let Ok(n) = units::parse_size(&s) {
        close(
            n as f64,
            approx(&|u| match u {
                "" | "B" | "bytes" => Some(1.0),
                "kB" | "KB" => Some(1e3),
                "MB" => Some(1e6),
                "GB" => Some(1e9),
                "KiB" => Some(1024.0),
                "MiB" => Some(1048576.0),
                "GiB" => Some(1073741824.0),
                _ => None,
            }),
            "parse_size",
        );
    }
    if let Ok(ps) = units::parse_signed_duration(&s) {
        assert!(ps.unsigned_abs() <= u64::MAX / 2);
        let t = s.trim();
        if t.starts_with('-') && ps != 0 {
            assert!(ps < 0, "parse_signed_duration('{s}') = {ps}");
        }
    }
}

/// Map fuzz bytes to a scenario drawn from the whole schema ([`gen`]: every registry
/// entry, flow and link key, three topologies), build it and run it for at most
/// [`MAX_EVENTS`] events with the invariant auditor on; a rejection must name a field, and a
/// finished run's summary numbers must be finite.
///
/// Crashes found (regressions in fuzz/regressions/run_bounded/): a Snoop `cache` of
/// 2^32 − 1 allocated 400 GB; a PIE `t_update` of 1 ps fired 10^12 times per simulated
/// second (and, with 5-ms slices, ran far past the event budget).
pub fn check_run_bounded(data: &[u8]) {
    let text = scenario_from_bytes(data);
    let seed = data.last().copied().unwrap_or(0) as u64;
    let mut built = match crate::load_json(&text, Some(seed)) {
        Ok(x) => x,
        Err(e) => {
            check_error(&e, true);
            return;
        }
    };
    // The invariant auditor (crate::audit) checks the whole state every AUDIT_EVERY
    // events and at the end, the segment accounting included (on before the run starts).
    built.sim.enable_audit(AUDIT_EVERY);
    // One instant at a time (every event at the next event's time), so the budget holds
    // whatever the event rate: a source that starts late at a picosecond spacing cannot
    // fill one long slice. An engine loop that never leaves one instant still hangs (and
    // the fuzzer reports a timeout), as it should.
    let end = built.sim.end;
    built.sim.run_until(SimTime::ZERO); // starts the run
    while built.sim.events_processed < MAX_EVENTS {
        match built.sim.events.peek_time() {
            Some(t) if t < end => built.sim.run_until(t),
            _ => {
                built.sim.run_until(end);
                break;
            }
        }
    }
    if !built.sim.is_finished() {
        built.sim.audit();
        return;
    }
    // Audited: every number of the summary is checked finite (crate::audit::check_summary).
    let summary = crate::report::summary(&built, 0.0);
    let flows = summary["flows"].as_array().expect("flows array");
    for f in flows {
        for key in ["goodput_bps", "throughput_bps"] {
            let v = &f[key];
            assert!(
                v.as_f64().is_some_and(f64::is_finite),
                "flow {}: {key} = {v} in\n{text}",
                f["name"]
            );
        }
    }
}

/// The scenario (JSON text) the fuzz input `data` stands for.
pub fn scenario_from_bytes(data: &[u8]) -> String {
    gen::Gen::new(data).scenario().to_string()
}

/// A cursor over fuzz bytes that yields zeros when exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&x, rest)) => {
                self.0 = rest;
                x
            }
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Fuzz-like inputs from a fixed generator.
    fn inputs(n: usize, len: usize) -> Vec<Vec<u8>> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..n)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        (x >> 56) as u8
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn no_input_builds_a_valid_plain_scenario() {
        // Zeros (and an exhausted input) pick every menu's first, valid, entry.
        for data in [&[][..], &[0u8; 64][..]] {
            let text = scenario_from_bytes(data);
            if let Err(e) = crate::load_json(&text, Some(1)) {
                panic!("{e}\n{text}");
            }
            check_run_bounded(data);
        }
    }

    #[test]
    fn run_bounded_mapping_builds_scenarios() {
        // Most byte strings map to scenarios the builder accepts (otherwise the target
        // would only exercise rejections), and the run passes the auditor.
        let mut ok = 0;
        for data in inputs(48, 96) {
            let text = scenario_from_bytes(&data);
            match crate::load_json(&text, Some(1)) {
                Ok(_) => ok += 1,
                Err(e) => eprintln!("{e}"),
            }
            check_run_bounded(&data);
        }
        assert!(ok >= 12, "only {ok}/48 fuzz scenarios build");
    }

    #[test]
    #[ignore]
    fn replay_input() {
        // FUZZ_INPUT=fuzz/artifacts/run_bounded/crash-… cargo test --release --lib \
        //   fuzzing::tests::replay_input -- --ignored --nocapture
        let Ok(p) = std::env::var("FUZZ_INPUT") else {
            return;
        };
        let data = std::fs::read(p).unwrap();
        eprintln!("{}", scenario_from_bytes(&data));
        let t = std::time::Instant::now();
        check_run_bounded(&data);
        eprintln!("ran in {:?}", t.elapsed());
    }

    #[test]
    #[ignore]
    fn print_rejections() {
        // cargo test --release --lib fuzzing::tests::print_rejections -- --ignored --nocapture
        let mut h = std::collections::BTreeMap::new();
        let mut ok = 0;
        for data in inputs(2000, 128) {
            match crate::load_json(&scenario_from_bytes(&data), Some(1)) {
                Ok(_) => ok += 1,
                Err(e) => {
                    let r: String = e.reason.chars().take(70).collect();
                    *h.entry(r).or_insert(0) += 1;
                }
            }
        }
        let mut v: Vec<_> = h.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        eprintln!("{ok}/2000 build");
        for (r, n) in v.iter().take(40) {
            eprintln!("{n:5} {r}");
        }
    }

    #[test]
    fn every_registry_entry_builds() {
        // Every entry of every tagged registry in the schema (congestion control, queue
        // disciplines, error models, outage schedules, applications, agents) and every flow
        // key appears in some scenario that builds: a new entry the generator cannot use
        // (e.g. one needing a pairing the skeleton lacks) fails here.
        let mut used = BTreeSet::new();
        let mut keys = BTreeSet::new();
        for data in inputs(3000, 128) {
            let mut g = gen::Gen::new(&data);
            let text = g.scenario().to_string();
            if crate::load_json(&text, Some(1)).is_ok() {
                used.extend(g.used);
                keys.extend(g.flow_keys);
            }
        }
        let regs = gen::registries();
        let names: BTreeSet<&str> = regs.iter().map(|(r, _)| r.as_str()).collect();
        for r in [
            "CcSpec",
            "QueueSpec",
            "ErrorSpec",
            "OutageScheduleSpec",
            "AppSpec",
            "AgentSpec",
        ] {
            assert!(
                names.contains(r),
                "registry {r} not found in the schema: {names:?}"
            );
        }
        // The schema lists what the Rust registries list.
        let schema_names = |r: &str| regs.iter().find(|(n, _)| n == r).unwrap().1.clone();
        assert_eq!(schema_names("CcSpec"), crate::cc::CcSpec::NAMES);
        assert_eq!(schema_names("QueueSpec"), crate::scenario::QueueSpec::NAMES);
        assert_eq!(schema_names("ErrorSpec"), crate::scenario::ErrorSpec::NAMES);
        assert_eq!(schema_names("AppSpec"), crate::scenario::AppSpec::NAMES);
        let mut missing = Vec::new();
        for (r, ns) in &regs {
            for n in ns {
                if !used.contains(&(r.clone(), n.clone())) {
                    missing.push(format!("{r}:{n}"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "never in a scenario that builds: {missing:?}"
        );
        let flow_keys: Vec<String> = crate::scenario::json_schema()
            .parse::<serde_json::Value>()
            .unwrap()["$defs"]["FlowSpec"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| !["from", "to", "efficiency_link"].contains(&k.as_str()))
            .cloned()
            .collect();
        let missing: Vec<&String> = flow_keys.iter().filter(|k| !keys.contains(*k)).collect();
        assert!(
            missing.is_empty(),
            "flow keys never in a scenario that builds: {missing:?}"
        );
    }
}

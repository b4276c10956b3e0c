//! Check functions shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`, run with
//! `make fuzz` on nightly) and the corpus replay test (`tests/it/fuzz_corpus.rs`, run by
//! `make test` on stable). Each takes the raw fuzz input and panics when the property
//! fails; docs/reliability.md lists the properties and what the fuzzers found.
//!
//! Not part of the public API.

use crate::scenario::{self, units, ScenarioError};
use crate::time::SimTime;

/// The first `cap` bytes of `data` as text (lossy, so every input reaches the parser).
fn text(data: &[u8], cap: usize) -> String {
    String::from_utf8_lossy(&data[..data.len().min(cap)]).into_owned()
}

/// Scenario text longer than this is cut (the parsers are linear; long inputs only slow
/// the fuzzer down).
const MAX_TEXT: usize = 16 * 1024;

/// [`check_run_bounded`] stops a run after this many events (checked every 5 ms of
/// simulated time).
const MAX_EVENTS: u64 = 200_000;

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

/// Map fuzz bytes to a small, valid-looking dumbbell scenario (structure-aware: every
/// input is a scenario the builder has to take or reject by field), build it and run it
/// for at most [`MAX_EVENTS`] events; a finished run's summary numbers must be finite.
pub fn check_run_bounded(data: &[u8]) {
    let mut b = Bytes(data);
    let toml = scenario_from_bytes(&mut b);
    let built = match crate::load_toml(&toml, Some(b.u8() as u64)) {
        Ok(x) => x,
        Err(e) => {
            check_error(&e, true);
            return;
        }
    };
    let mut built = built;
    // The invariant auditor (crate::audit) checks the whole state every 64 events.
    built.sim.enable_audit(64);
    let end = built.sim.end;
    let step = crate::time::SimDuration::from_ms(5);
    let mut now = SimTime(0);
    while now < end && built.sim.events_processed < MAX_EVENTS {
        now = SimTime(now.0.saturating_add(step.0)).min(end);
        built.sim.run_until(now);
    }
    if !built.sim.is_finished() {
        built.sim.audit();
        return;
    }
    let summary = crate::report::summary(&built, 0.0);
    let flows = summary["flows"].as_array().expect("flows array");
    for f in flows {
        for key in ["goodput_bps", "throughput_bps", "efficiency"] {
            let v = &f[key];
            assert!(
                v.as_f64().is_some_and(f64::is_finite),
                "flow {}: {key} = {v} in\n{toml}",
                f["name"]
            );
        }
    }
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
    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.u8() as usize % xs.len()]
    }
}

fn scenario_from_bytes(b: &mut Bytes) -> String {
    const CC: &[&str] = &[
        "reno",
        "newreno",
        "gaimd",
        "vegas",
        "fast",
        "highspeed",
        "scalable",
        "tcpe",
        "westwood",
    ];
    const RATE: &[&str] = &[
        "1bps", "9600bps", "64kbps", "1Mbps", "10Mbps", "100Mbps", "1Gbps",
    ];
    const DELAY: &[&str] = &["0", "1ps", "1us", "1ms", "20ms", "250ms", "3s"];
    const BUF: &[&str] = &["1", "2", "5", "20", "100", "0.1bdp", "1bdp", "4bdp", "0"];
    const QUEUE: &[&str] = &[
        "",
        ", queue = { type = \"red\", min_th = 5, max_th = 15 }",
        ", queue = { type = \"red\", min_th = 1, max_th = 2, gentle = true, ecn = false }",
        ", queue = { type = \"red\", min_th = 0.5, max_th = 3, w_q = \"auto\", max_p = 1 }",
        ", queue = { type = \"choke\", min_th = 5, max_th = 15 }",
        ", queue = { type = \"ackprio\" }",
    ];
    const DUR: &[&str] = &["0", "1ms", "100ms", "1s", "3s"];
    const CWND: &[&str] = &["", "init_cwnd = 1", "init_cwnd = 10", "init_cwnd = 0"];
    const MSS: &[&str] = &["", "mss = 1", "mss = 40", "mss = 536", "mss = 9000"];
    const LOSS: &[&str] = &["", ", loss = 0.01", ", loss = 0.5", ", loss = 0.999"];
    let n = 1 + b.u8() as usize % 4;
    let flows: Vec<String> = (0..n).map(|_| format!("\"{}\"", b.pick(CC))).collect();
    let rtts: Vec<String> = (0..n)
        .map(|_| format!("\"{}\"", b.pick(&["1ms", "10ms", "44ms", "200ms", "1s"])))
        .collect();
    let (rate, delay, buf, q, loss) = (
        b.pick(RATE),
        b.pick(DELAY),
        b.pick(BUF),
        b.pick(QUEUE),
        b.pick(LOSS),
    );
    let (arate, adelay) = (b.pick(RATE), b.pick(DELAY));
    let (dur, cwnd, mss) = (b.pick(DUR), b.pick(CWND), b.pick(MSS));
    let buf = if buf.ends_with("bdp") {
        format!("\"{buf}\"")
    } else {
        buf.to_string()
    };
    let rtt_line = if b.u8() & 3 == 0 {
        format!("rtt = [{}]\n", rtts.join(", "))
    } else {
        String::new()
    };
    format!(
        "duration = \"{dur}\"\n\
         defaults.flows = {{ {cwnd}{sep}{mss} }}\n\
         [dumbbell]\n\
         bottleneck = {{ rate = \"{rate}\", delay = \"{delay}\", buffer = {buf}{q}{loss} }}\n\
         access = {{ rate = \"{arate}\", delay = \"{adelay}\" }}\n\
         {rtt_line}\
         flows = [{flows}]\n",
        sep = if !cwnd.is_empty() && !mss.is_empty() {
            ", "
        } else {
            ""
        },
        flows = flows.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_bounded_mapping_builds_scenarios() {
        // Most byte strings map to scenarios the builder accepts (otherwise the target
        // would only exercise rejections).
        let mut ok = 0;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..64 {
            let data: Vec<u8> = (0..32)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 56) as u8
                })
                .collect();
            let toml = scenario_from_bytes(&mut Bytes(&data));
            match crate::load_toml(&toml, Some(1)) {
                Ok(_) => ok += 1,
                Err(e) => eprintln!("{e}"),
            }
            check_run_bounded(&data);
        }
        assert!(ok >= 16, "only {ok}/64 fuzz scenarios build");
    }
}

//! Issue 30: one simulation on N threads gives bit-identical results to one thread.

use tcplab_core::scenario::{split, Built, ScenarioError};
use tcplab_core::time::SimTime;

/// How `split` refuses `b` (built from `text`) on `threads` threads.
fn refusal(b: &mut Built, threads: u32, text: &str) -> ScenarioError {
    let limit = tcplab_core::scenario::memory::MemoryLimit::Auto;
    split(b, threads, limit, || tcplab_core::load_toml(text, None))
        .err()
        .expect("refused")
}

/// The summary (without the wall clock) and every result table, as text.
fn results(b: &Built) -> String {
    let mut s = tcplab_core::report::summary(b, 0.0);
    s["run"]["wall_seconds"] = serde_json::Value::Null;
    let mut out = serde_json::to_string_pretty(&s).unwrap();
    for (table, cols) in b.sim.tables() {
        out.push_str(&format!("\n== {table}\n"));
        for c in cols {
            out.push_str(&format!("{}: {:?}\n", c.name, c.data));
        }
    }
    out
}

fn sequential(text: &str) -> String {
    let mut b = tcplab_core::load_toml(text, None).unwrap();
    b.sim.run();
    results(&b)
}

/// The run on `threads` partitions, advanced in `steps` slices (as the Python binding's
/// progress loop does).
fn parallel(text: &str, threads: u32, steps: u64) -> (String, u64) {
    let mut b = tcplab_core::load_toml(text, None).unwrap();
    let mut par = split(
        &mut b,
        threads,
        tcplab_core::scenario::memory::MemoryLimit::Auto,
        || tcplab_core::load_toml(text, None),
    )
    .unwrap();
    let end = par.end();
    for i in 1..=steps {
        par.run_until(SimTime(end.0 / steps * i));
    }
    par.run_until(end);
    assert!(par.is_finished());
    let windows = par.windows;
    b.sim = par.into_merged();
    (results(&b), windows)
}

fn same_for_every_thread_count(text: &str, threads: &[u32]) {
    let want = sequential(text);
    for &n in threads {
        let (got, windows) = parallel(text, n, 7);
        assert!(windows > 0);
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let ctx = |s: &str| {
                let l: String = s
                    .lines()
                    .nth(line)
                    .unwrap_or("")
                    .chars()
                    .take(300)
                    .collect();
                l
            };
            panic!(
                "{n} threads differ from one at line {line}:\n--- 1 thread\n{}\n--- {n} threads\n{}",
                ctx(&want),
                ctx(&got)
            );
        }
    }
}

#[test]
fn fat_tree_is_bit_identical_on_1_2_3_4_threads() {
    let text = r#"
duration = "30ms"
metrics = { interval = "5ms", steady_start = "10ms", trace = "2ms", events = ["drop"] }
defaults.flows = { cc = "newreno", init_cwnd = 10, rto_min = "10ms", delayed_ack = "1ms" }
[fat_tree]
k = 4
link = { rate = "1Gbps", delay = "5us", buffer = 20 }
traffic = "permutation"
"#;
    same_for_every_thread_count(text, &[1, 2, 3, 4]);
}

#[test]
fn dumbbell_is_bit_identical_on_1_2_3_4_threads() {
    let text = r#"
duration = "3s"
metrics = { interval = "250ms", steady_start = "1s", trace = "100ms", events = ["drop", "loss"] }
defaults.flows = { init_cwnd = 2, delayed_ack = "40ms" }
[dumbbell]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp", loss = 0.001 }
access = { rate = "100Mbps", delay = "1ms" }
rtt = ["44ms", "44ms", "84ms", "124ms"]
flows = ["newreno", "reno", "cubic", { cc = "highspeed", name = "hs" }]
# A probe across the partitions: its echoes come back to the source's partition.
[flows.ping]
from = "s1"
to = "d1"
transport = "udp"
echo = true
app = { type = "cbr", rate = "51.2kbps", packet_size = 64 }
"#;
    same_for_every_thread_count(text, &[1, 2, 3, 4]);
}

#[test]
fn parking_lot_is_bit_identical_on_1_2_3_4_threads() {
    let text = r#"
duration = "3s"
metrics = { interval = "500ms", steady_start = "1s" }
[parking_lot]
hops = 3
link = { rate = "10Mbps", delay = "10ms", buffer = 50, loss = 0.002 }
access = { rate = "100Mbps", delay = "1ms" }
flows = ["newreno", "vegas"]
cross = ["newreno"]
"#;
    same_for_every_thread_count(text, &[1, 2, 3, 4]);
}

#[test]
fn a_dumbbells_routers_get_threads_of_their_own() {
    // Two threads cut the bottleneck (each router with its hosts); four cut the access
    // links, and the routers, which see every packet, go to threads with no host beside
    // them, the hosts to the other two (issue 30's 10 000-flow dumbbell: the busiest
    // thread runs 34 % of the events, against 42 % when threads were balanced by nodes).
    let text = r#"
duration = "1s"
[dumbbell]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 50 }
access = { rate = "100Mbps", delay = "1ms" }
flows = ["newreno", "newreno", "newreno", "newreno", "newreno", "newreno", "newreno", "newreno"]
"#;
    let b = tcplab_core::load_toml(text, None).unwrap();
    let names: Vec<&str> = b.sim.nodes.iter().map(|n| n.name.as_str()).collect();
    let at = |parts: &[u16], name: &str| parts[names.iter().position(|&n| n == name).unwrap()];
    let two = tcplab_core::scenario::partition::partition(&b.sim, 2).unwrap();
    for i in 1..=8 {
        assert_eq!(at(&two, &format!("s{i}")), at(&two, "r1"));
        assert_eq!(at(&two, &format!("d{i}")), at(&two, "r2"));
    }
    assert_ne!(at(&two, "r1"), at(&two, "r2"));
    let four = tcplab_core::scenario::partition::partition(&b.sim, 4).unwrap();
    let (r1, r2) = (at(&four, "r1"), at(&four, "r2"));
    assert_ne!(r1, r2);
    let mut hosts = [0; 4];
    for (n, &p) in names.iter().zip(&four) {
        if n.starts_with('s') || n.starts_with('d') {
            assert!(p != r1 && p != r2, "host {n} shares a router's thread");
            hosts[p as usize] += 1;
        }
    }
    assert_eq!(hosts.iter().filter(|&&h| h == 8).count(), 2, "{hosts:?}");
}

#[test]
fn refusals_name_the_key() {
    let text = r#"
duration = "1s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "100ns"
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "100ns"
[flows.f]
from = "a"
to = "b"
"#;
    let mut b = tcplab_core::load_toml(text, None).unwrap();
    let e = refusal(&mut b, 2, text);
    assert_eq!(e.field, "links.ab.delay"); // the first of the two short links
    assert!(e.reason.contains("lookahead"), "{}", e.reason);
    assert!(e.reason.contains("as does 1 more link"), "{}", e.reason);
    let e = refusal(&mut b, 3, text);
    assert!(
        e.reason.contains("at most one thread per node"),
        "{}",
        e.reason
    );
    b.sim.enable_audit(10);
    let e = refusal(&mut b, 2, text);
    assert!(e.reason.contains("auditor"), "{}", e.reason);
}

#[test]
fn every_copy_counts_against_the_memory_limit() {
    use tcplab_core::scenario::memory::{estimate, MemoryLimit};
    let text = r#"
duration = "10ms"
[fat_tree]
k = 4
link = { rate = "1Gbps", delay = "5us", buffer = 20 }
traffic = "permutation"
"#;
    let mut b = tcplab_core::load_toml(text, None).unwrap();
    let one: u64 = estimate(&b.scenario).iter().map(|p| p.2).sum();
    // Room for two copies: one thread's run fits, two threads' (three copies) do not.
    let limit = MemoryLimit::Bytes(2 * one);
    let e = split(&mut b, 2, limit, || tcplab_core::load_toml(text, None))
        .err()
        .unwrap();
    assert_eq!(e.field, "threads");
    assert!(
        e.reason.contains("3 copies") && e.reason.contains("fewer threads"),
        "{}",
        e.reason
    );
    assert!(split(&mut b, 2, MemoryLimit::Bytes(3 * one), || {
        tcplab_core::load_toml(text, None)
    })
    .is_ok());
}

#[test]
fn playback_readers_and_send_buffers_are_bit_identical_on_1_2_3_threads() {
    // The reader's timer lives with the receiver (the destination's partition), its window
    // updates cross back; a send buffer and persist probes on the way.
    let text = r#"
duration = "3s"
metrics = { interval = "250ms", steady_start = "1s" }
defaults.flows = { mss = 1000, send_buffer_bytes = 30000, playback_rwnd_cap = { buffer = 40000, read = 20000, interval = "200ms" } }
[dumbbell]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp", loss = 0.001 }
access = { rate = "100Mbps", delay = "1ms" }
rtt = ["44ms", "84ms", "124ms"]
flows = ["newreno", { cc = "cubic", sack = true }, { cc = "reno", app = { type = "cbr", rate = "1Mbps", packet_size = 1000 } }]
"#;
    same_for_every_thread_count(text, &[1, 2, 3]);
}

#[test]
fn a_short_link_between_partitions_is_named_in_the_file_s_terms() {
    let text = r#"
duration = "10ms"
[dumbbell]
pairs = 2
bottleneck = { rate = "10Mbps", delay = "0ms" }
access = { rate = "100Mbps", delay = "0ms" }
flows = ["reno", "reno"]
"#;
    let mut b = tcplab_core::load_toml(text, None).unwrap();
    let e = refusal(&mut b, 2, text);
    assert!(
        e.field.starts_with("dumbbell."),
        "{}: {}",
        e.field,
        e.reason
    );
    assert!(e.field.ends_with(".delay"), "{}: {}", e.field, e.reason);
    assert!(
        e.reason.contains("0 µs joins two partitions") && e.reason.contains("links."),
        "{}",
        e.reason
    );
}

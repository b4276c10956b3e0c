//! `tcplab-bench`: the speed benchmark suite (`make bench`). It measures; it asserts nothing.
//!
//! ```text
//! tcplab-bench [--quick] [--only a,b,..] [--json FILE] [--no-memcheck]
//!                                  the suite: every scenario in its own child process
//!                                  (so peak RSS is per scenario); TCPLAB_BENCH_QUICK=1 = --quick
//! tcplab-bench run NAME SECONDS [--warmup S] [--access-limit N] [--init-ssthresh SIZE]
//!                                  [--partial-ack-timer first|every] [--sack true|false]
//!                                  [--cc TOML] [--queue TOML] [--flow-keys TOML]
//!                                  [--sample true|false] [--trace SECONDS]
//!                                  one scenario in this process; prints one JSON line
//!                                  (used by the suite and by bench/ns3_compare.py)
//! tcplab-bench toml NAME SECONDS [--access-limit N]
//!                                  print the scenario as TOML
//! tcplab-bench FLOWS RATE SECONDS  an ad hoc dumbbell (same shape as a-d)
//! tcplab-bench scale [--quick]     the scale runs (n16 .. n10000, fat8), one child each
//! tcplab-bench sizes               bytes of the per-flow, per-link and per-packet structs
//! tcplab-bench parallelism [SECONDS [WARMUP]]
//!                                  fat8's events per lookahead window, per partition
//!                                  (docs/scaling.md); counts only, the run is unchanged
//! ```
//!
//! Scenarios (dumbbell, NewReno, no SACK, init_cwnd 10, every segment acked):
//!
//! | name | flows | bottleneck | RTT | packet | buffer |
//! |---|---|---|---|---|---|
//! | a | 1 | 100 Mb/s | 40 ms | 1500 B | 1 BDP (333) |
//! | b | 16 | 1 Gb/s | 40 ms | 1500 B | 1 BDP (3333) |
//! | c | 8 | 2.5 Gb/s | 40 ms | 1500 B | 1 BDP (8333) |
//! | d | 64 | 10 Gb/s | 40 ms | 1500 B | 1 BDP (33333) |
//! | e | 3 | 2.4 Gb/s (OC-48, seed 002) | 60 ms | 1000 B | 32 Mbit (4 MB) |
//!
//! bs, cs, ds, es: b-e with SACK (`sack = true`: RFC 6675 recovery with PRR-SSRB).
//! br, cr, dr, er: the same with RACK-TLP loss detection (`loss_detection = "rack"`).
//! CUBIC variants `a-cubic` .. `e-cubic` (in the suite, after a-e): a-e with `cc = "cubic"`.
//! BBR variants `a-bbr` .. `e-bbr` (in the suite, after the CUBIC ones): a-e with
//! `cc = "bbr"` (paced at BBR's rate) and SACK.
//!
//! Vegas scenarios for the ns-3 cross-check (`bench/ns3_compare.py --vegas`), not in the
//! suite: v1, v4, v16 = 1, 4, 16 Vegas flows (alpha 1, beta 3, gamma 1), 10 Mb/s, 40 ms,
//! 1500 B, 1000-packet buffer, init_cwnd 1; `run` adds the bottleneck queue sampled every
//! 10 ms over [warmup, end] (`queue_samples`, packets waiting) and each flow's mean window.
//!
//! Scale runs (`tcplab-bench scale`, bench/scale_plot.py, docs/performance.md "Scale"), not
//! in the suite: n16, n100, n1000, n10000 = dumbbells with N flows on one 10 Gb/s, 40 ms
//! bottleneck (scenario d's link), 1500 B packets, NewReno, buffer max(1 BDP, 10 packets
//! per flow) (33 333 packets up to N = 3 333, 100 000 at N = 10 000: so every flow's window
//! peaks at >= 13 segments and the run stays in congestion avoidance with fast
//! retransmits), init_ssthresh = 3/4 of a flow's share of BDP + buffer (the middle of the
//! AIMD sawtooth: no slow-start overshoot), init_cwnd = min(10, that). fat8 = a k = 8
//! fat-tree (`[fat_tree]`: 128 hosts, 80 switches), 10 Gb/s links of 5 us, 100-packet
//! buffers, permutation traffic (128 NewReno flows, rto_min 10 ms), D-mod-k routes. The
//! steady window (after `--warmup`) runs in `measured_window`, which callgrind can count
//! alone (`--collect-atstart=no --toggle-collect='*measured_window*'`).
//! Options of `run` for the ns-3 cross-checks (bench/ns3_compare.py): `--cc` replaces the
//! flows' `cc` value, `--queue` the bottleneck's queue table (e.g. `{ type = "codel" }`; its
//! limit is the scenario's buffer unless the table gives one), `--flow-keys` adds TOML lines
//! to every flow (e.g. `delayed_ack = "200ms"`), `--sample true` samples the bottleneck queue
//! and windows every 10 ms over [warmup, end], `--trace S` records every flow's cwnd and
//! ssthresh every S seconds from 0 (`cwnd_trace`). Every per-flow list of `run` is in flow
//! index order (f0, f1, ..., f15; `flow_names`), the order ns-3's flows are built in.
//!
//! a4 (for `bench/ns3_compare.py --algo`, not in the suite): a with 4 flows.
//!
//! Access links run at 10x the bottleneck with 1 ms delay; the bottleneck delay makes up the
//! rest of the RTT. Host access queues hold 1000 packets (Linux's default txqueuelen; they
//! never fill in these runs since the access links are 10x faster, see docs/performance.md).

use std::io::Write;
use std::process::Command;
use std::time::Instant;
use tcplab_core::cc::CongestionControl;
use tcplab_core::time::{Rate, SimDuration, SimTime};

/// One benchmark scenario.
#[derive(Clone, Copy, Debug)]
struct Spec {
    name: &'static str,
    flows: usize,
    /// Bottleneck rate in bit/s.
    rate: u64,
    rtt_ms: u64,
    /// Payload bytes per segment (wire size = mss + 40).
    mss: u32,
    /// Bottleneck buffer in packets (`None`: 1 BDP of full packets).
    buffer_pkts: Option<u64>,
    /// Bottleneck buffer in bytes, when given as bytes.
    buffer_bytes: Option<u64>,
    /// Simulated seconds: full run and quick run.
    secs: f64,
    quick_secs: f64,
    /// Start of the measurement window for goodput and fairness (simulated seconds).
    warmup: f64,
    quick_warmup: f64,
    /// Initial slow-start threshold in bytes (`None`: unlimited, the default).
    init_ssthresh: Option<u64>,
    /// NewReno timer restarted only on the first partial ack (ns-3's behaviour).
    impatient: bool,
    /// The flows' `cc` value as TOML.
    cc: &'static str,
    /// Initial window, segments.
    init_cwnd: u32,
    /// Sample the bottleneck queue and every flow's window every `QUEUE_SAMPLE` over the
    /// measurement window (the Vegas cross-check; off for the speed suite).
    sample_queue: bool,
    /// SACK with RFC 6675 recovery and PRR-SSRB (`sack = true`, the defaults with it).
    sack: bool,
    /// With `sack`: RACK-TLP loss detection (`loss_detection = "rack"`).
    rack: bool,
    /// The bottleneck's queue table as TOML (`None`: drop-tail with the buffer as limit).
    queue: Option<&'static str>,
    /// Extra TOML lines for every flow (`run --flow-keys`).
    flow_keys: &'static str,
    /// Record every flow's cwnd and ssthresh with this period from 0 (`run --trace`).
    trace: Option<SimDuration>,
}

const SUITE: &[Spec] = &[
    SUITE_NEWRENO[0],
    SUITE_NEWRENO[1],
    SUITE_NEWRENO[2],
    SUITE_NEWRENO[3],
    SUITE_NEWRENO[4],
    with_sack("bs", 1),
    with_sack("cs", 2),
    with_sack("ds", 3),
    with_sack("es", 4),
    with_rack("br", 1),
    with_rack("cr", 2),
    with_rack("dr", 3),
    with_rack("er", 4),
];

const SUITE_NEWRENO: [Spec; 5] = [
    Spec {
        name: "a",
        flows: 1,
        rate: 100_000_000,
        rtt_ms: 40,
        mss: 1460,
        buffer_pkts: None,
        buffer_bytes: None,
        secs: 100.0,
        quick_secs: 10.0,
        warmup: 10.0,
        quick_warmup: 2.0,
        init_ssthresh: None,
        impatient: false,
        cc: NEWRENO,
        init_cwnd: 10,
        sample_queue: false,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    },
    Spec {
        name: "b",
        flows: 16,
        rate: 1_000_000_000,
        rtt_ms: 40,
        mss: 1460,
        buffer_pkts: None,
        buffer_bytes: None,
        secs: 30.0,
        quick_secs: 5.0,
        warmup: 10.0,
        quick_warmup: 2.0,
        init_ssthresh: None,
        impatient: false,
        cc: NEWRENO,
        init_cwnd: 10,
        sample_queue: false,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    },
    Spec {
        name: "c",
        flows: 8,
        rate: 2_500_000_000,
        rtt_ms: 40,
        mss: 1460,
        buffer_pkts: None,
        buffer_bytes: None,
        secs: 20.0,
        quick_secs: 3.0,
        warmup: 5.0,
        quick_warmup: 1.0,
        init_ssthresh: None,
        impatient: false,
        cc: NEWRENO,
        init_cwnd: 10,
        sample_queue: false,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    },
    Spec {
        name: "d",
        flows: 64,
        rate: 10_000_000_000,
        rtt_ms: 40,
        mss: 1460,
        buffer_pkts: None,
        buffer_bytes: None,
        secs: 5.0,
        quick_secs: 1.0,
        warmup: 2.0,
        quick_warmup: 0.5,
        init_ssthresh: None,
        impatient: false,
        cc: NEWRENO,
        init_cwnd: 10,
        sample_queue: false,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    },
    Spec {
        name: "e",
        flows: 3,
        rate: 2_400_000_000,
        rtt_ms: 60,
        mss: 960,
        buffer_pkts: None,
        buffer_bytes: Some(4_000_000),
        secs: 500.0,
        quick_secs: 20.0,
        warmup: 50.0,
        quick_warmup: 5.0,
        init_ssthresh: None,
        impatient: false,
        cc: NEWRENO,
        init_cwnd: 10,
        sample_queue: false,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    },
];

/// Scenario `SUITE[base]` with SACK (RFC 6675 recovery, PRR-SSRB): bs, cs, ds, es.
const fn with_sack(name: &'static str, base: usize) -> Spec {
    Spec {
        name,
        sack: true,
        ..SUITE_NEWRENO[base]
    }
}

/// Scenario `SUITE[base]` with SACK and RACK-TLP (`loss_detection = "rack"`): br .. er.
const fn with_rack(name: &'static str, base: usize) -> Spec {
    Spec {
        name,
        sack: true,
        rack: true,
        ..SUITE_NEWRENO[base]
    }
}

const NEWRENO: &str = "\"newreno\"";
const CUBIC: &str = "\"cubic\"";

/// CUBIC variants of a-e (`a-cubic`, ...): the same dumbbells with `cc = "cubic"` (RFC 9438
/// defaults, HyStart++ on).
const CUBIC_SUITE: &[Spec] = &[
    cubic_of(SUITE_NEWRENO[0], "a-cubic"),
    cubic_of(SUITE_NEWRENO[1], "b-cubic"),
    cubic_of(SUITE_NEWRENO[2], "c-cubic"),
    cubic_of(SUITE_NEWRENO[3], "d-cubic"),
    cubic_of(SUITE_NEWRENO[4], "e-cubic"),
];

const fn cubic_of(s: Spec, name: &'static str) -> Spec {
    Spec {
        name,
        cc: CUBIC,
        ..s
    }
}
const BBR: &str = "\"bbr\"";

/// BBR variants of a-e (`a-bbr`, ...): the same dumbbells with `cc = "bbr"` (Linux's
/// defaults, paced at its own rate) and SACK (RFC 6675 recovery with PRR, as Linux runs it).
const BBR_SUITE: &[Spec] = &[
    bbr_of(SUITE_NEWRENO[0], "a-bbr"),
    bbr_of(SUITE_NEWRENO[1], "b-bbr"),
    bbr_of(SUITE_NEWRENO[2], "c-bbr"),
    bbr_of(SUITE_NEWRENO[3], "d-bbr"),
    bbr_of(SUITE_NEWRENO[4], "e-bbr"),
];

const fn bbr_of(s: Spec, name: &'static str) -> Spec {
    Spec {
        name,
        cc: BBR,
        sack: true,
        ..s
    }
}
const VEGAS: &str = "{ algorithm = \"vegas\", alpha = 1, beta = 3, gamma = 1 }";

/// Vegas on a small dumbbell (bench/ns3_compare.py --vegas): 1, 4 and 16 flows, 10 Mb/s,
/// 40 ms, a 1000-packet buffer (never full: Vegas's queue target sets the equilibrium),
/// tcplab's default initial window of 1 segment. Not part of the speed suite.
const VEGAS_SUITE: &[Spec] = &[
    vegas_spec("v1", 1),
    vegas_spec("v4", 4),
    vegas_spec("v16", 16),
];

const fn vegas_spec(name: &'static str, flows: usize) -> Spec {
    Spec {
        name,
        flows,
        rate: 10_000_000,
        rtt_ms: 40,
        mss: 1460,
        buffer_pkts: Some(1000),
        buffer_bytes: None,
        secs: 100.0,
        quick_secs: 40.0,
        warmup: 30.0,
        quick_warmup: 15.0,
        init_ssthresh: None,
        impatient: false,
        cc: VEGAS,
        init_cwnd: 1,
        sample_queue: true,
        sack: false,
        rack: false,
        queue: None,
        flow_keys: "",
        trace: None,
    }
}

/// Flow counts of the scale runs n16 .. n10000.
const SCALE_FLOWS: [(&str, usize); 4] = [
    ("n16", 16),
    ("n100", 100),
    ("n1000", 1000),
    ("n10000", 10_000),
];

/// Scale run `name` (see the module documentation), if it is one.
fn scale_spec(name: &str) -> Option<Spec> {
    let &(name, n) = SCALE_FLOWS.iter().find(|(s, _)| *s == name)?;
    let mut s = Spec {
        name,
        flows: n,
        secs: 1.5,
        quick_secs: 0.7,
        warmup: 1.0,
        quick_warmup: 0.5,
        ..SUITE_NEWRENO[3]
    };
    let bdp = bdp_pkts(&s);
    let buffer = bdp.max(10 * n as u64);
    s.buffer_pkts = Some(buffer);
    let share = 0.75 * (bdp + buffer) as f64 / n as f64;
    s.init_ssthresh = Some((share * s.mss as f64) as u64);
    s.init_cwnd = (share as u32).clamp(2, 10);
    Some(s)
}

/// The fat-tree scale run (k = 8, permutation).
const FAT_TREE: Spec = Spec {
    name: "fat8",
    flows: 128,
    rate: 10_000_000_000,
    rtt_ms: 0,
    mss: 1460,
    buffer_pkts: Some(100),
    buffer_bytes: None,
    secs: 0.03,
    quick_secs: 0.012,
    warmup: 0.02,
    quick_warmup: 0.008,
    init_ssthresh: None,
    impatient: false,
    cc: NEWRENO,
    init_cwnd: 10,
    sample_queue: false,
    sack: false,
    rack: false,
    queue: None,
    flow_keys: "",
    trace: None,
};

fn fat_tree_toml(s: &Spec, seconds: f64) -> String {
    format!(
        "name = \"bench-{name}\"\nprofile = \"classic\"\nduration = \"{seconds}s\"\nseed = 1\n\
         [metrics]\ninterval = \"10ms\"\n\
         [defaults.flows]\ncc = {cc}\nmss = {mss}\nheader = 40\nack_size = 40\ninit_cwnd = {icw}\n\
         rto_min = \"10ms\"\nrto_initial = \"100ms\"\n\
         [fat_tree]\nk = 8\ntraffic = \"permutation\"\n\
         link = {{ rate = \"{r}bps\", delay = \"5us\", buffer = {b} }}\n",
        name = s.name,
        cc = s.cc,
        mss = s.mss,
        icw = s.init_cwnd,
        r = s.rate,
        b = s.buffer_pkts.unwrap_or(100),
    )
}

/// a4: scenario a with 4 flows (100 Mb/s, 40 ms, 1 BDP = 333 packets) for the ns-3
/// cross-checks of `bench/ns3_compare.py --algo` that need several flows (fairness, FQ-CoDel)
/// at a cost ns-3 can run in minutes. Not part of the speed suite.
const NS3_SUITE: &[Spec] = &[Spec {
    name: "a4",
    flows: 4,
    ..SUITE_NEWRENO[0]
}];

/// Sampling period of the queue and windows in runs with `sample_queue`.
const QUEUE_SAMPLE: SimDuration = SimDuration::from_ms(10);

/// The memory check runs this scenario for both durations and compares peak RSS.
const MEMCHECK: (&str, f64, f64) = ("b", 10.0, 100.0);
const DEFAULT_ACCESS_LIMIT: u64 = 1000;

fn spec(name: &str) -> Spec {
    if let Some(s) = scale_spec(name) {
        return s;
    }
    if name == FAT_TREE.name {
        return FAT_TREE;
    }
    *SUITE
        .iter()
        .chain(VEGAS_SUITE)
        .chain(CUBIC_SUITE)
        .chain(BBR_SUITE)
        .chain(NS3_SUITE)
        .find(|s| s.name == name)
        .unwrap_or_else(|| {
            die(&format!(
                "unknown scenario '{name}' (a, b, c, d, e; SACK: bs, cs, ds, es; RACK: br, cr, dr, er; CUBIC: a-cubic .. e-cubic; BBR: a-bbr .. e-bbr; Vegas: v1, v4, v16; scale: n16, n100, n1000, n10000, fat8; ns-3 --algo: a4)"
            ))
        })
}

fn die(msg: &str) -> ! {
    eprintln!("tcplab-bench: {msg}");
    std::process::exit(2)
}

fn bdp_pkts(s: &Spec) -> u64 {
    let wire = (s.mss + 40) as f64 * 8.0;
    ((s.rate as f64 * s.rtt_ms as f64 / 1000.0) / wire)
        .round()
        .max(10.0) as u64
}

/// The dumbbell as scenario TOML: s_i → r1 → r2 → d_i, acks back the same way.
fn dumbbell_toml(s: &Spec, seconds: f64, access_limit: u64) -> String {
    let access = Rate(s.rate * 10);
    // RTT = 2 * (1 ms + bottleneck delay + 1 ms).
    let bdelay_us = s.rtt_ms * 1000 / 2 - 2000;
    let bqueue = match (s.buffer_bytes, s.buffer_pkts) {
        (Some(b), _) => format!("\"{b}B\""),
        (None, Some(p)) => p.to_string(),
        (None, None) => bdp_pkts(s).to_string(),
    };
    let mut t = format!(
        "name = \"bench-{name}\"\nprofile = \"classic\"\nduration = \"{seconds}s\"\nseed = 1\n\
         [metrics]\ninterval = \"1s\"\n\n[nodes]\nr1 = \"router\"\nr2 = \"router\"\n",
        name = s.name
    );
    for i in 0..s.flows {
        t += &format!("s{i} = \"host\"\nd{i} = \"host\"\n");
    }
    t += &format!(
        "\n[links.bottleneck]\nfrom = \"r1\"\nto = \"r2\"\nrate = \"{r}bps\"\ndelay = \"{bdelay_us}us\"\n\
         queue = {bq}\n\
         [links.bottleneck_rev]\nfrom = \"r2\"\nto = \"r1\"\nrate = \"{r}bps\"\ndelay = \"{bdelay_us}us\"\n",
        r = s.rate,
        bq = bottleneck_queue(s, &bqueue)
    );
    for i in 0..s.flows {
        t += &format!(
            "[links.s{i}_r1]\nfrom = \"s{i}\"\nto = \"r1\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\nqueue = {{ type = \"droptail\", limit = {access_limit} }}\n\
             [links.r1_s{i}]\nfrom = \"r1\"\nto = \"s{i}\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\n\
             [links.r2_d{i}]\nfrom = \"r2\"\nto = \"d{i}\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\n\
             [links.d{i}_r2]\nfrom = \"d{i}\"\nto = \"r2\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\nqueue = {{ type = \"droptail\", limit = {access_limit} }}\n\
             [flows.f{i}]\nfrom = \"s{i}\"\nto = \"d{i}\"\ncc = {cc}\nmss = {mss}\nheader = 40\nack_size = 40\n\
             init_cwnd = {icw}\n{ssthresh}{pat}{sack}{keys}rto_min = \"200ms\"\nrto_initial = \"1s\"\napp = {{ type = \"bulk\", start = \"{st}ms\" }}\n",
            a = access.0,
            cc = s.cc,
            icw = s.init_cwnd,
            mss = s.mss,
            ssthresh = s
                .init_ssthresh
                .map_or(String::new(), |b| format!("init_ssthresh = {b}\n")),
            pat = if s.impatient {
                "partial_ack_timer = \"first\"\n"
            } else {
                ""
            },
            sack = match (s.sack, s.rack) {
                (true, true) => "sack = true\nloss_detection = \"rack\"\n",
                (true, false) => "sack = true\n",
                _ => "",
            },
            keys = flow_keys(s),
            st = i * 7 % 100
        );
    }
    t
}

/// The bottleneck's queue table: drop-tail with the buffer as limit, or `s.queue` (given
/// the buffer as its `limit` unless it names one).
fn bottleneck_queue(s: &Spec, limit: &str) -> String {
    match s.queue {
        None => format!("{{ type = \"droptail\", limit = {limit} }}"),
        Some(q) => {
            let mut t: toml::Table = toml::from_str(&format!("q = {q}"))
                .unwrap_or_else(|e| die(&format!("--queue: {e}")));
            let Some(toml::Value::Table(q)) = t.remove("q") else {
                die("--queue must be a TOML table such as { type = \"codel\" }")
            };
            let mut out = q.clone();
            if !out.contains_key("limit") {
                let v: toml::Table = toml::from_str(&format!("l = {limit}")).expect("limit");
                out.insert("limit".into(), v["l"].clone());
            }
            let items: Vec<String> = out.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("{{ {} }}", items.join(", "))
        }
    }
}

/// The bottleneck's drops and marks per reason since the warmup snapshot (`d0`, `m0`):
/// `{"drops": {"early": n, ...}, "marks": {...}}`, reasons with a count only.
fn reasons_window(l: &tcplab_core::queue::DropLog, d0: &[u64], m0: &[u64]) -> serde_json::Value {
    let pick = |now: &[u64], then: &[u64]| {
        let mut m = serde_json::Map::new();
        for r in tcplab_core::queue::DropReason::ALL {
            let n = now[r.index()] - then[r.index()];
            if n > 0 {
                m.insert(r.name().into(), n.into());
            }
        }
        serde_json::Value::Object(m)
    };
    serde_json::json!({
        "drops": pick(&l.by_reason, d0),
        "marks": pick(&l.marks_by_reason, m0),
    })
}

/// `s.flow_keys` as lines ending in a newline.
fn flow_keys(s: &Spec) -> String {
    s.flow_keys
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim()))
        .collect()
}

/// Peak resident set size of this process in KiB (VmHWM), 0 where /proc is missing.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Resident set size of this process now in KiB (VmRSS), 0 where /proc is missing.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Return freed heap memory to the system (glibc `malloc_trim`; nothing elsewhere).
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases free memory at the top of glibc's heaps.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Bytes of the structures whose count grows with the scenario: per flow (the flow with its
/// TCP sender, receiver and congestion control inline), per link direction, per node, per
/// queued packet; heap parts (names, deques, route rows, SACK scoreboards) not included.
fn sizes() -> serde_json::Value {
    use std::mem::size_of;
    use tcplab_core::net::{Link, Node, Packet};
    use tcplab_core::sim::Flow;
    use tcplab_core::tcp::{receiver::TcpReceiver, sender::TcpSender};
    serde_json::json!({
        "flow": size_of::<Flow>(),
        "tcp_sender": size_of::<TcpSender>(),
        "tcp_receiver": size_of::<TcpReceiver>(),
        "cc": size_of::<tcplab_core::cc::AnyCc>(),
        "link": size_of::<Link>(),
        "node": size_of::<Node>(),
        "packet": size_of::<Packet>(),
        "queued_packet": tcplab_core::net::link::QUEUED_PACKET_BYTES,
    })
}

/// The steady window of a run (after the warm-up): a function of its own so that callgrind
/// can count it alone (`--collect-atstart=no --toggle-collect='*measured_window*'`).
#[inline(never)]
fn measured_window(sim: &mut tcplab_core::sim::Sim) {
    sim.run();
}

fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let q: f64 = xs.iter().map(|x| x * x).sum();
    if q == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * q)
    }
}

/// FNV-1a over every counter the run produced: equal fingerprints = identical runs.
struct Fnv(u64);
impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The run fingerprint: the event count and [`results_fingerprint`]'s outputs, in one hash
/// (what every earlier bench figure quotes).
fn fingerprint(sim: &tcplab_core::sim::Sim) -> u64 {
    let mut h = Fnv::new();
    h.add(sim.events_processed);
    results_into(sim, &mut h);
    h.0
}

/// The results fingerprint: every output [`fingerprint`] hashes but the event count, so a
/// change that only removes events (the same results with less work) keeps it.
fn results_fingerprint(sim: &tcplab_core::sim::Sim) -> u64 {
    let mut h = Fnv::new();
    results_into(sim, &mut h);
    h.0
}

fn results_into(sim: &tcplab_core::sim::Sim, h: &mut Fnv) {
    for l in &sim.links {
        let s = &l.stats;
        for v in [
            s.offered,
            s.delivered,
            s.lost,
            s.tx_packets,
            s.tx_bytes,
            s.busy_ps,
            s.max_queue_packets as u64,
            s.max_queue_bytes,
            l.drops.packets,
        ] {
            h.add(v);
        }
    }
    for f in &sim.flows {
        h.add(f.counters.goodput_bytes);
        h.add(f.counters.wire_bytes);
        let sender = f.tcp().expect("bench flows are TCP").0;
        h.add(sender.stats.segments_sent);
        h.add(sender.stats.retransmits);
        h.add(sender.stats.timeouts);
        h.add(sender.window());
    }
    for v in &sim.intervals.goodput_bps {
        h.add(v.to_bits());
    }
}

/// Run one scenario here and return its figures as a JSON object.
fn run_one(
    s: &Spec,
    seconds: f64,
    warmup: f64,
    access_limit: u64,
    text: Option<String>,
) -> serde_json::Value {
    let fat = s.name == FAT_TREE.name;
    let text = text.unwrap_or_else(|| {
        if fat {
            fat_tree_toml(s, seconds)
        } else {
            dumbbell_toml(s, seconds, access_limit)
        }
    });
    let t_build = Instant::now();
    let mut b =
        tcplab_core::load_toml(&text, None).unwrap_or_else(|e| die(&format!("scenario: {e}")));
    drop(text);
    let build_s = t_build.elapsed().as_secs_f64();
    // The parse and expansion buffers are freed; give them back so VmRSS is what the
    // simulation holds (glibc keeps freed memory otherwise).
    trim_heap();
    let rss_built = rss_kib();
    // The fat-tree has no one bottleneck: its figures are per link h000 (host 0's uplink).
    let bott = b
        .sim
        .links
        .iter()
        .position(|l| l.name == if fat { "h000" } else { "bottleneck" })
        .expect("bottleneck link");
    // Packets the hosts put on their links (data and acks), and hop deliveries.
    let host_links: Vec<usize> = b
        .sim
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| b.sim.nodes[l.from.index()].kind == tcplab_core::net::NodeKind::Host)
        .map(|(i, _)| i)
        .collect();
    let counts = |sim: &tcplab_core::sim::Sim| {
        (
            sim.events_processed,
            sim.links[bott].stats.tx_packets,
            host_links
                .iter()
                .map(|&i| sim.links[i].stats.tx_packets)
                .sum::<u64>(),
            sim.links.iter().map(|l| l.stats.delivered).sum::<u64>(),
        )
    };
    let warm = SimTime(0) + SimDuration::from_secs_f64(warmup.min(seconds));
    let end = SimTime(0) + SimDuration::from_secs_f64(seconds);
    // `--trace`: every flow's cwnd and ssthresh (bytes) at multiples of the period.
    let mut trace: Vec<Vec<[u64; 2]>> = vec![Vec::new(); b.sim.flows.len()];
    let mut next_trace = SimTime(0);
    let mut advance = |sim: &mut tcplab_core::sim::Sim, to: SimTime| {
        if let Some(p) = s.trace {
            while next_trace <= to && next_trace < end {
                sim.run_until(next_trace);
                for (tr, f) in trace.iter_mut().zip(&sim.flows) {
                    let st = f.tcp().map_or(0, |(snd, _)| snd.cc.ssthresh());
                    tr.push([f.window(), st]);
                }
                next_trace += p;
            }
        }
        sim.run_until(to);
    };
    let t0 = Instant::now();
    advance(&mut b.sim, warm);
    let g0: Vec<u64> = b
        .sim
        .flows
        .iter()
        .map(|f| f.counters.goodput_bytes)
        .collect();
    // Out-of-order data held at the window's start: delivered in it, it arrived before it
    // (left out of the window's goodput, as summary.json does; docs/outputs.md).
    let held0: Vec<Vec<(u64, u64)>> = b
        .sim
        .flows
        .iter()
        .map(|f| f.tcp().map(|(_, r)| r.held().collect()).unwrap_or_default())
        .collect();
    let busy0 = b.sim.links[bott].busy_time(warm).0;
    let txb0 = b.sim.links[bott].stats.tx_bytes;
    let c0 = counts(&b.sim);
    let (drops0, marks0) = (
        b.sim.links[bott].drops.packets,
        b.sim.links[bott].drops.marks,
    );
    let (by_reason0, marks_by_reason0) = (
        b.sim.links[bott].drops.by_reason,
        b.sim.links[bott].drops.marks_by_reason,
    );
    // Packets waiting in the bottleneck queue (not the one being transmitted: the FIFO is
    // work-conserving, so a non-empty link is transmitting its head), as ns-3's
    // `Queue::GetNPackets()`; and each flow's window in segments.
    let mut queue_samples: Vec<u32> = Vec::new();
    let mut cwnd_sums = vec![0.0f64; b.sim.flows.len()];
    if s.sample_queue {
        let mut t = warm;
        while t < end {
            advance(&mut b.sim, t);
            let l = &mut b.sim.links[bott];
            l.settle(t);
            queue_samples.push(l.occupancy().0.saturating_sub(1));
            for (sum, f) in cwnd_sums.iter_mut().zip(&b.sim.flows) {
                *sum += f.window() as f64 / s.mss as f64;
            }
            t += QUEUE_SAMPLE;
        }
    }
    if s.trace.is_some() {
        advance(&mut b.sim, end);
    }
    let t_win = Instant::now();
    measured_window(&mut b.sim);
    let wall_win = t_win.elapsed().as_secs_f64();
    let wall = t0.elapsed().as_secs_f64();
    let c1 = counts(&b.sim);
    let sim = &b.sim;
    let l = &sim.links[bott];
    let window = seconds - warmup.min(seconds);
    // Every per-flow list below is in flow index order (f0, f1, ..., f15: ns-3's order and
    // the start order of the dumbbells), not the simulator's (flows sorted by name: f0, f1,
    // f10, ..., f15, f2, ...).
    let order = index_order(sim.flows.iter().map(|f| f.name.as_str()));
    let per_flow: Vec<f64> = order
        .iter()
        .map(|&k| {
            let f = &sim.flows[k];
            let carried = f.tcp().map_or(0, |(_, r)| {
                tcplab_core::report::carried_in(&held0[k], r.rcv_nxt())
            });
            (f.counters.goodput_bytes - g0[k] - carried) as f64 * 8.0 / window.max(1e-12)
        })
        .collect();
    let agg: f64 = per_flow.iter().sum();
    let busy = l.busy_time(sim.end).0 - busy0;
    let hops: u64 = sim.links.iter().map(|l| l.stats.delivered).sum();
    let drops: u64 = sim.links.iter().map(|l| l.drops.packets).sum();
    let max_access_q = sim
        .links
        .iter()
        .filter(|l| !fat && (l.name.starts_with('s') || l.name.starts_with('d')))
        .map(|l| l.stats.max_queue_packets)
        .max()
        .unwrap_or(0);
    let pkts = l.stats.tx_packets;
    let mut v = serde_json::json!({
        "name": s.name,
        "flows": s.flows,
        "rate_bps": s.rate,
        "rtt_ms": s.rtt_ms,
        "packet_bytes": s.mss + 40,
        "mss": s.mss,
        "bottleneck_delay_us": (s.rtt_ms * 1000 / 2).saturating_sub(2000),
        "bottleneck_buffer": match (s.buffer_bytes, s.buffer_pkts) {
            (Some(b), _) => format!("{b}B"),
            (None, Some(p)) => format!("{p}p"),
            (None, None) => format!("{}p", bdp_pkts(s)),
        },
        "access_limit_packets": access_limit,
        "init_ssthresh_bytes": s.init_ssthresh,
        "partial_ack_timer": if s.impatient { "first" } else { "every" },
        "sim_seconds": seconds,
        "warmup_seconds": warmup.min(seconds),
        "build_seconds": build_s,
        "wall_seconds": wall,
        "events": sim.events_processed,
        "events_per_s": sim.events_processed as f64 / wall,
        "bottleneck_packets": pkts,
        "bottleneck_pkts_per_s": pkts as f64 / wall,
        "events_per_bottleneck_packet": sim.events_processed as f64 / pkts.max(1) as f64,
        "hop_deliveries_per_s": hops as f64 / wall,
        "wall_per_sim": wall / seconds,
        "peak_rss_kib": peak_rss_kib(),
        "utilization": busy as f64 / (window.max(1e-12) * 1e12),
        "bottleneck_window_bytes": l.stats.tx_bytes - txb0,
        "goodput_bps": agg,
        "per_flow_goodput_bps": per_flow,
        "jain": jain(&per_flow),
        "drops": drops,
        "bottleneck_drops": l.drops.packets,
        "bottleneck_marks": l.drops.marks,
        "bottleneck_drops_window": l.drops.packets - drops0,
        "bottleneck_marks_window": l.drops.marks - marks0,
        "timeouts": sim.flows.iter().filter_map(|f| f.tcp()).map(|(s, _)| s.stats.timeouts).sum::<u64>(),
        "fast_retransmits": sim.flows.iter().filter_map(|f| f.tcp()).map(|(s, _)| s.stats.fast_retransmits).sum::<u64>(),
        "retransmits": sim.flows.iter().filter_map(|f| f.tcp()).map(|(s, _)| s.stats.retransmits).sum::<u64>(),
        "ecn_reductions": sim.flows.iter().filter_map(|f| f.tcp()).map(|(s, _)| s.stats.ecn_reductions).sum::<u64>(),
        "max_access_queue_packets": max_access_q,
        "max_sack_ranges": sim.flows.iter().filter_map(|f| f.tcp()).filter_map(|(s, _)| s.sack_state()).map(|st| st.sb.max_ranges()).max().unwrap_or(0),
        "max_bottleneck_queue_packets": l.stats.max_queue_packets,
        "fingerprint": format!("{:016x}", fingerprint(sim)),
    });
    let extra = serde_json::json!({
        "results_fingerprint": format!("{:016x}", results_fingerprint(sim)),
        "rss_after_build_kib": rss_built,
        "rss_end_kib": rss_kib(),
        "window_wall_seconds": wall_win,
        "window_events": c1.0 - c0.0,
        "window_bottleneck_packets": c1.1 - c0.1,
        "window_host_packets": c1.2 - c0.2,
        "window_hop_deliveries": c1.3 - c0.3,
        "window_events_per_bottleneck_packet": (c1.0 - c0.0) as f64 / (c1.1 - c0.1).max(1) as f64,
        "window_events_per_host_packet": (c1.0 - c0.0) as f64 / (c1.2 - c0.2).max(1) as f64,
        "window_wall_ns_per_bottleneck_packet": wall_win * 1e9 / (c1.1 - c0.1).max(1) as f64,
        "window_wall_ns_per_host_packet": wall_win * 1e9 / (c1.2 - c0.2).max(1) as f64,
        "max_queue_packets_any_link": sim.links.iter().map(|l| l.stats.max_queue_packets).max().unwrap_or(0),
        "sum_max_queue_packets": sim.links.iter().map(|l| l.stats.max_queue_packets as u64).sum::<u64>(),
        "links": sim.links.len(),
        "nodes": sim.nodes.len(),
        "sizes": sizes(),
    });
    if let (Some(m), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
    // Per reason (overflow, early, forced, ...; only those seen), from warmup on.
    v["bottleneck_window_by_reason"] = reasons_window(&l.drops, &by_reason0, &marks_by_reason0);
    v["cc"] = s.cc.into();
    v["sack"] = s.sack.into();
    v["rack"] = s.rack.into();
    v["init_cwnd"] = s.init_cwnd.into();
    v["queue"] = s.queue.unwrap_or("droptail").into();
    v["flow_keys"] = s.flow_keys.into();
    v["flow_names"] = order
        .iter()
        .map(|&k| sim.flows[k].name.clone())
        .collect::<Vec<_>>()
        .into();
    if let Some(p) = s.trace {
        v["trace_s"] = p.as_secs_f64().into();
        v["cwnd_trace"] = order
            .iter()
            .map(|&k| std::mem::take(&mut trace[k]))
            .collect::<Vec<_>>()
            .into();
    }
    v["per_flow_retransmits"] = order
        .iter()
        .filter_map(|&k| sim.flows[k].tcp())
        .map(|(s, _)| s.stats.retransmits)
        .collect::<Vec<_>>()
        .into();
    if s.sample_queue {
        let n = queue_samples.len().max(1) as f64;
        v["queue_sample_s"] = QUEUE_SAMPLE.as_secs_f64().into();
        v["queue_samples"] = queue_samples.into();
        v["per_flow_mean_cwnd_segments"] = order
            .iter()
            .map(|&k| cwnd_sums[k] / n)
            .collect::<Vec<_>>()
            .into();
        // Each flow's algorithm state at the end (Vegas: the last Delta and BaseRTT).
        v["per_flow_cc_trace"] = order
            .iter()
            .filter_map(|&k| sim.flows[k].tcp())
            .map(|(snd, _)| {
                let names = snd.cc.trace_names();
                let mut x = vec![0.0; names.len()];
                snd.cc.trace_values(&mut x);
                names
                    .iter()
                    .zip(x)
                    .map(|(n, x)| ((*n).to_string(), serde_json::json!(x)))
                    .collect::<serde_json::Map<_, _>>()
            })
            .collect::<Vec<_>>()
            .into();
    }
    v
}

/// Positions of `names` (the simulator's flows) in index order: by the number a name ends
/// with (`f10` after `f9`), then by name. The simulator keeps flows sorted by name, so with
/// more than 10 flows its order is f0, f1, f10, ..., f15, f2, ...
fn index_order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<usize> {
    let names: Vec<&str> = names.collect();
    let key = |n: &str| {
        let digits = n.len() - n.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        n[n.len() - digits..].parse::<u64>().unwrap_or(u64::MAX)
    };
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| (key(names[a]), names[a]).cmp(&(key(names[b]), names[b])));
    order
}

/// Run one scenario in a child process (fresh address space: its own peak RSS).
fn run_child(name: &str, seconds: f64, warmup: f64, access_limit: u64) -> serde_json::Value {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe)
        .args([
            "run",
            name,
            &seconds.to_string(),
            "--warmup",
            &warmup.to_string(),
            "--access-limit",
            &access_limit.to_string(),
        ])
        .output()
        .expect("spawn child");
    if !out.status.success() {
        die(&format!(
            "scenario {name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim()).expect("child prints one JSON line")
}

fn fmt_row(v: &serde_json::Value) -> String {
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    format!(
        "{:>2} {:>3} {:>9} {:>7.1} | {:>7.3} {:>7.2} {:>7.3} {:>6.1} {:>8.4} {:>7.1} | {:>6.3} {:>9.1} {:>6.4}",
        v["name"].as_str().unwrap_or("?"),
        v["flows"],
        rate_str(f("rate_bps")),
        f("sim_seconds"),
        f("wall_seconds"),
        f("events_per_s") / 1e6,
        f("bottleneck_pkts_per_s") / 1e6,
        f("events_per_bottleneck_packet"),
        f("wall_per_sim"),
        f("peak_rss_kib") / 1024.0,
        f("utilization"),
        f("goodput_bps") / 1e6,
        f("jain"),
    )
}

fn rate_str(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{}Gb/s", bps / 1e9)
    } else {
        format!("{}Mb/s", bps / 1e6)
    }
}

const HEADER: &str = "sc  fl      rate   sim s |  wall s  Mev/s  Mpkt/s  ev/pkt wall/sim  RSS MiB |   util  goodput Mb/s  jain";

fn suite(args: &[String]) {
    let mut quick = std::env::var("TCPLAB_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let mut only: Option<Vec<String>> = None;
    let mut json_out: Option<String> = None;
    let mut memcheck = true;
    let mut access_limit = DEFAULT_ACCESS_LIMIT;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--only" => {
                only = Some(
                    it.next()
                        .unwrap_or_else(|| die("--only needs a list"))
                        .split(',')
                        .map(str::to_string)
                        .collect(),
                )
            }
            "--json" => json_out = Some(it.next().unwrap_or_else(|| die("--json FILE")).clone()),
            "--no-memcheck" => memcheck = false,
            "--access-limit" => {
                access_limit = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| die("--access-limit N"))
            }
            other => die(&format!("unknown option '{other}'")),
        }
    }
    println!(
        "tcplab-bench{}: dumbbell, NewReno, access links 10x, host queues {access_limit} pkts; \
         one child process per scenario",
        if quick { " --quick" } else { "" }
    );
    println!("{HEADER}");
    let mut results = Vec::new();
    for s in SUITE.iter().chain(CUBIC_SUITE).chain(BBR_SUITE) {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == s.name))
        {
            continue;
        }
        let (secs, warm) = if quick {
            (s.quick_secs, s.quick_warmup)
        } else {
            (s.secs, s.warmup)
        };
        let v = run_child(s.name, secs, warm, access_limit);
        println!("{}", fmt_row(&v));
        std::io::stdout().flush().ok();
        results.push(v);
    }
    let mut mem = serde_json::Value::Null;
    if memcheck {
        let (name, short, long) = MEMCHECK;
        let (short, long) = if quick {
            (short / 5.0, long / 5.0)
        } else {
            (short, long)
        };
        let a = run_child(name, short, 0.0, access_limit);
        let b = run_child(name, long, 0.0, access_limit);
        let ra = a["peak_rss_kib"].as_f64().unwrap_or(0.0);
        let rb = b["peak_rss_kib"].as_f64().unwrap_or(0.0);
        let growth = if ra > 0.0 { rb / ra - 1.0 } else { f64::NAN };
        let qa = a["max_access_queue_packets"].as_u64().unwrap_or(0);
        let qb = b["max_access_queue_packets"].as_u64().unwrap_or(0);
        println!(
            "memory: scenario {name} peak RSS {:.1} MiB at {short} s, {:.1} MiB at {long} s: {:+.1} % ({}); \
             largest host-queue backlog {qa} -> {qb} packets",
            ra / 1024.0,
            rb / 1024.0,
            growth * 100.0,
            if growth.abs() <= 0.10 { "flat, within 10 %" } else { "NOT within 10 %" }
        );
        mem = serde_json::json!({"scenario": name, "short_s": short, "long_s": long,
            "short_rss_kib": ra, "long_rss_kib": rb, "growth": growth,
            "short_max_access_queue": qa, "long_max_access_queue": qb});
        if qb > qa {
            // Storage follows the largest backlog, not the simulated time: show the same pair
            // with host queues too small for the bursts that fill them (docs/performance.md).
            let lim = 100;
            let c = run_child(name, short, 0.0, lim);
            let d = run_child(name, long, 0.0, lim);
            let rc = c["peak_rss_kib"].as_f64().unwrap_or(0.0);
            let rd = d["peak_rss_kib"].as_f64().unwrap_or(0.0);
            let g2 = if rc > 0.0 { rd / rc - 1.0 } else { f64::NAN };
            println!(
                "        control, host queues of {lim} packets: {:.1} MiB at {short} s, {:.1} MiB at {long} s: {:+.1} %",
                rc / 1024.0,
                rd / 1024.0,
                g2 * 100.0
            );
            mem["control_access_limit"] = lim.into();
            mem["control_growth"] = g2.into();
        }
    }
    if let Some(p) = json_out {
        let doc = serde_json::json!({"quick": quick, "access_limit": access_limit,
            "scenarios": results, "memory": mem});
        std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap())
            .unwrap_or_else(|e| die(&format!("{p}: {e}")));
        println!("wrote {p}");
    }
}

/// `tcplab-bench fuzz-input TARGET FILE`: the scenario (JSON) a fuzz input of `run_bounded`
/// or `sizes_bounded` stands for, to triage what a campaign found (docs/reliability.md).
fn fuzz_input(args: &[String]) {
    let (Some(target), Some(file)) = (args.first(), args.get(1)) else {
        die("usage: tcplab-bench fuzz-input run_bounded|sizes_bounded FILE");
    };
    let data = std::fs::read(file).unwrap_or_else(|e| die(&format!("{file}: {e}")));
    match target.as_str() {
        "run_bounded" => println!("{}", tcplab_core::fuzzing::scenario_from_bytes(&data)),
        "sizes_bounded" => println!("{}", tcplab_core::fuzzing::sizes_scenario(&data)),
        t => die(&format!(
            "TARGET: {t:?} is not run_bounded or sizes_bounded"
        )),
    }
}

/// `tcplab-bench threads [SECONDS [WARMUP [K [TRAFFIC [ROUNDS [THREADS...]]]]]]`: the
/// parallel engine's speed-up (issue 30) on the bench's fat-tree (`fat8`'s links: 10 Gb/s,
/// 5 us, 100 packets; NewReno; `K` = 8 and `TRAFFIC` = permutation by default, or
/// all_to_all), or, where `K` is a bench scenario's name instead of a number (`n10000`,
/// `b`, ...), on that dumbbell (`TRAFFIC` is then ignored). Each round runs every thread
/// count once, in turn (1 thread = the sequential engine), timing the simulated span from
/// WARMUP to SECONDS alone (not the build, not the start-up transient, whose load can sit
/// in one pod: all_to_all's first 100 ms); prints per thread count the median wall time, the
/// speed-up against 1 thread's median, events per window and whether the merged result's
/// fingerprint equals the sequential one (it must).
fn threads_bench(args: &[String]) {
    let secs: f64 = args.first().and_then(|v| v.parse().ok()).unwrap_or(0.03);
    let warmup: f64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(0.01);
    let topology = args.get(2).cloned().unwrap_or_else(|| "8".into());
    let traffic = args.get(3).cloned().unwrap_or_else(|| "permutation".into());
    let rounds: usize = args.get(4).and_then(|v| v.parse().ok()).unwrap_or(3);
    let warm = SimTime(0) + SimDuration::from_secs_f64(warmup);
    let mut counts: Vec<u32> = args[5.min(args.len())..]
        .iter()
        .filter_map(|v| v.parse().ok())
        .collect();
    if counts.is_empty() {
        counts = vec![1, 2, 4, 8];
    }
    if !counts.contains(&1) {
        counts.insert(0, 1);
    }
    let (text, scenario) = match topology.parse::<u32>() {
        Ok(k) => (
            fat_tree_toml(&FAT_TREE, secs)
                .replace("k = 8", &format!("k = {k}"))
                .replace("\"permutation\"", &format!("\"{traffic}\"")),
            format!("fat-tree k={k} {traffic}"),
        ),
        Err(_) => {
            let s = spec(&topology);
            if s.name == FAT_TREE.name {
                die("K: give the fat-tree's k as a number (8 for fat8)");
            }
            (
                dumbbell_toml(&s, secs, DEFAULT_ACCESS_LIMIT),
                format!("dumbbell {} ({} flows)", s.name, s.flows),
            )
        }
    };
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
    let mut info: Vec<(u64, u64, bool, u64)> = vec![(0, 0, true, 0); counts.len()];
    let mut phases: Vec<serde_json::Value> = vec![serde_json::Value::Null; counts.len()];
    let mut reference = 0u64;
    for round in 0..rounds {
        for (i, &n) in counts.iter().enumerate() {
            let load =
                || tcplab_core::load_toml(&text, None).unwrap_or_else(|e| die(&format!("{e}")));
            let mut b = load();
            let (wall, windows) = if n == 1 {
                b.sim.run_until(warm);
                let t0 = Instant::now();
                b.sim.run();
                (t0.elapsed().as_secs_f64(), 0)
            } else {
                let mut par = tcplab_core::scenario::split(
                    &mut b,
                    n,
                    tcplab_core::scenario::memory::MemoryLimit::Auto,
                    || Ok(load()),
                )
                .unwrap_or_else(|e| die(&format!("{e}")));
                par.run_until(warm);
                let (w0, busy0, exch0, wait0) = (
                    par.windows,
                    par.busy_ns.clone(),
                    par.exchange_ns.clone(),
                    par.wait_ns.clone(),
                );
                let ev0 = par.events_per_partition();
                let t0 = Instant::now();
                let end = par.end();
                par.run_until(end);
                let wall = t0.elapsed().as_secs_f64();
                let w = par.windows - w0;
                let ms = |v: &[u64], v0: &[u64]| {
                    v.iter()
                        .zip(v0)
                        .map(|(&x, &y)| (x - y) as f64 / 1e6)
                        .collect::<Vec<_>>()
                };
                let ev: Vec<u64> = par
                    .events_per_partition()
                    .iter()
                    .zip(&ev0)
                    .map(|(a, b)| a - b)
                    .collect();
                phases[i] = serde_json::json!({
                    "events": ev, "busy_ms": ms(&par.busy_ns, &busy0), "exchange_ms": ms(&par.exchange_ns, &exch0), "wait_ms": ms(&par.wait_ns, &wait0)
                });
                b.sim = par.into_merged();
                (wall, w)
            };
            let fp = fingerprint(&b.sim);
            if round == 0 && n == 1 {
                reference = fp;
            }
            walls[i].push(wall);
            info[i] = (
                b.sim.events_processed,
                windows,
                info[i].2 && fp == reference,
                {
                    let bn: u64 = b.sim.links.iter().map(|l| l.stats.delivered).sum();
                    bn
                },
            );
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = median(&walls[0]);
    let rows: Vec<_> = counts
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let (events, windows, same, deliveries) = info[i];
            let m = median(&walls[i]);
            serde_json::json!({
                "threads": n,
                "wall_s": walls[i],
                "median_wall_s": m,
                "speedup": base / m,
                "events": events,
                "hop_deliveries_per_s": deliveries as f64 / m,
                "windows": windows,
                "events_per_window": if windows > 0 { events as f64 / windows as f64 } else { f64::NAN },
                "fingerprint_equal": same,
                "last_round_per_partition": phases[i],
            })
        })
        .collect();
    println!(
        "{}",
        serde_json::json!({"scenario": scenario, "sim_seconds": secs, "warmup_seconds": warmup, "rounds": rounds, "fingerprint": format!("{reference:016x}"), "runs": rows})
    );
}

/// `tcplab-bench parallelism`: how much work a conservative parallel simulation of fat8
/// could do at once (docs/scaling.md). The run advances in windows of the lookahead W = the
/// smallest link delay (5 us: a packet sent in one window cannot arrive in another partition
/// within it) and counts, per window, the events processed and, per partition, the packet
/// arrivals at its nodes (link deliveries by the receiving node's partition; the other
/// events — flow timers, interval statistics — are spread evenly and reported apart).
/// Partitions: the k pods (edge and aggregation switches and hosts), core switch c in pod
/// c mod k; coarser ones group neighbouring pods. A window-synchronous (YAWNS) run with P
/// partitions takes at least sum over windows of max over partitions of their events, so
/// sum(events) / that sum bounds its speed-up (before synchronisation costs). Stepping
/// does not change the run: the fingerprint equals the unstepped one (checked).
fn parallelism(args: &[String]) {
    let secs: f64 = args.first().and_then(|v| v.parse().ok()).unwrap_or(0.012);
    let warmup: f64 = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(0.008);
    let s = FAT_TREE;
    let k = 8usize;
    let text = fat_tree_toml(&s, secs);
    let reference = {
        let mut b = tcplab_core::load_toml(&text, None).unwrap_or_else(|e| die(&format!("{e}")));
        b.sim.run();
        fingerprint(&b.sim)
    };
    let mut b = tcplab_core::load_toml(&text, None).unwrap_or_else(|e| die(&format!("{e}")));
    let w = b.sim.links.iter().map(|l| l.delay).min().expect("links");
    // Pod of every node (hosts: k²/4 per pod, in name order).
    let per_pod = k * k / 4;
    let pod: Vec<usize> = b
        .sim
        .nodes
        .iter()
        .map(|n| {
            let num = |p: &str| -> usize {
                n.name[p.len()..]
                    .split('_')
                    .next()
                    .and_then(|x| x.parse().ok())
                    .unwrap_or_else(|| die(&format!("node name {}", n.name)))
            };
            if n.name.starts_with("core") {
                num("core") % k
            } else if n.name.starts_with("edge") {
                num("edge")
            } else if n.name.starts_with("agg") {
                num("agg")
            } else {
                num("h") / per_pod
            }
        })
        .collect();
    let to_pod: Vec<usize> = b.sim.links.iter().map(|l| pod[l.to.index()]).collect();
    let crosses: Vec<bool> = b
        .sim
        .links
        .iter()
        .map(|l| pod[l.from.index()] != pod[l.to.index()])
        .collect();
    let mut crossing = 0u64;
    let parts = [1usize, 2, 4, 8];
    b.sim
        .run_until(SimTime(0) + SimDuration::from_secs_f64(warmup));
    let end = b.sim.end;
    let mut t = b.sim.now;
    let mut last_ev = b.sim.events_processed;
    let mut last_del: Vec<u64> = b.sim.links.iter().map(|l| l.stats.delivered).collect();
    let mut windows = 0u64;
    let mut empty = 0u64;
    let mut total = 0u64;
    let mut arrivals = 0u64;
    let mut per_window: Vec<u64> = Vec::new();
    // Per partitioning: sum over windows of the busiest partition's events.
    let mut crit = vec![0.0f64; parts.len()];
    let mut pods = vec![0u64; k];
    while t < end {
        t = (t + w).min(end);
        b.sim.run_until(t);
        let ev = b.sim.events_processed - last_ev;
        last_ev = b.sim.events_processed;
        pods.fill(0);
        for (i, l) in b.sim.links.iter().enumerate() {
            let d = l.stats.delivered - last_del[i];
            last_del[i] = l.stats.delivered;
            pods[to_pod[i]] += d;
            crossing += if crosses[i] { d } else { 0 };
        }
        let arr: u64 = pods.iter().sum();
        let other = ev.saturating_sub(arr) as f64;
        for (c, &p) in crit.iter_mut().zip(&parts) {
            let mut busiest = 0u64;
            for g in 0..p {
                busiest = busiest.max(pods[g * k / p..(g + 1) * k / p].iter().sum());
            }
            *c += busiest as f64 + other / p as f64;
        }
        windows += 1;
        empty += (ev == 0) as u64;
        total += ev;
        arrivals += arr;
        per_window.push(ev);
    }
    let stepped = fingerprint(&b.sim);
    per_window.sort_unstable();
    let q = |f: f64| per_window[((per_window.len() - 1) as f64 * f) as usize];
    let bounds: Vec<serde_json::Value> = parts
        .iter()
        .zip(&crit)
        .map(|(&p, &c)| serde_json::json!({"partitions": p, "speedup_bound": total as f64 / c}))
        .collect();
    let v = serde_json::json!({
        "scenario": "fat8",
        "sim_seconds": secs,
        "warmup_seconds": warmup,
        "lookahead_ps": w.0,
        "windows": windows,
        "empty_windows": empty,
        "events": total,
        "arrival_events": arrivals,
        "other_events_share": 1.0 - arrivals as f64 / total.max(1) as f64,
        "cross_partition_arrivals_share_8": crossing as f64 / arrivals.max(1) as f64,
        "cross_partition_arrivals_per_window_8": crossing as f64 / windows.max(1) as f64,
        "events_per_window_mean": total as f64 / windows.max(1) as f64,
        "events_per_window_p10_p50_p90": [q(0.1), q(0.5), q(0.9)],
        "events_per_window_max": per_window.last().copied().unwrap_or(0),
        "bounds": bounds,
        "fingerprint_stepped": format!("{stepped:016x}"),
        "fingerprint_unstepped": format!("{reference:016x}"),
        "stepping_changes_nothing": stepped == reference,
    });
    println!("{v}");
}

/// `tcplab-bench scale`: the scale runs, each in its own child (own peak RSS).
fn scale(args: &[String]) {
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var("TCPLAB_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    println!(
        "tcplab-bench scale{}: sizes {}",
        if quick { " --quick" } else { "" },
        sizes()
    );
    println!(
        "run     flows   links |  window pkts  ev/pkt  ns/pkt(wall) | RSS built  peak MiB | util   timeouts"
    );
    let names = SCALE_FLOWS.iter().map(|(n, _)| *n).chain([FAT_TREE.name]);
    for name in names {
        let s = spec(name);
        let (secs, warm) = if quick {
            (s.quick_secs, s.quick_warmup)
        } else {
            (s.secs, s.warmup)
        };
        let v = run_child(name, secs, warm, DEFAULT_ACCESS_LIMIT);
        let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let (pk, ev, ns) = if name == FAT_TREE.name {
            (
                "window_host_packets",
                "window_events_per_host_packet",
                "window_wall_ns_per_host_packet",
            )
        } else {
            (
                "window_bottleneck_packets",
                "window_events_per_bottleneck_packet",
                "window_wall_ns_per_bottleneck_packet",
            )
        };
        println!(
            "{name:<7} {:>5} {:>7} | {:>12} {:>7.2} {:>13.0} | {:>9.1} {:>9.1} | {:>5.3} {:>8}",
            v["flows"],
            v["links"],
            v[pk],
            f(ev),
            f(ns),
            f("rss_after_build_kib") / 1024.0,
            f("peak_rss_kib") / 1024.0,
            f("utilization"),
            v["timeouts"],
        );
        std::io::stdout().flush().ok();
    }
}

fn parse_opts(rest: &[String], s: &mut Spec) -> (f64, u64) {
    let mut warmup = 0.0;
    let mut access_limit = DEFAULT_ACCESS_LIMIT;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let v = it
            .next()
            .unwrap_or_else(|| die(&format!("{a} needs a value")));
        match a.as_str() {
            "--warmup" => warmup = v.parse().unwrap_or_else(|_| die("--warmup SECONDS")),
            "--access-limit" => {
                access_limit = v.parse().unwrap_or_else(|_| die("--access-limit N"))
            }
            "--init-ssthresh" => {
                s.init_ssthresh = Some(
                    tcplab_core::scenario::units::parse_size(v)
                        .unwrap_or_else(|e| die(&format!("--init-ssthresh: {e}"))),
                )
            }
            "--sack" => s.sack = parse_bool(a, v),
            "--sample" => s.sample_queue = parse_bool(a, v),
            "--cc" => s.cc = Box::leak(v.clone().into_boxed_str()),
            "--queue" => s.queue = Some(Box::leak(v.clone().into_boxed_str())),
            "--flow-keys" => s.flow_keys = Box::leak(v.clone().into_boxed_str()),
            "--trace" => {
                let p: f64 = v.parse().unwrap_or_else(|_| die("--trace SECONDS"));
                if p <= 0.0 {
                    die("--trace must be positive");
                }
                s.trace = Some(SimDuration::from_secs_f64(p));
            }
            "--partial-ack-timer" => {
                s.impatient = match v.as_str() {
                    "first" => true,
                    "every" => false,
                    _ => die("--partial-ack-timer first|every"),
                }
            }
            _ => die(&format!("unknown option '{a}'")),
        }
    }
    (warmup, access_limit)
}

fn parse_bool(opt: &str, v: &str) -> bool {
    match v {
        "true" => true,
        "false" => false,
        _ => die(&format!("{opt} true|false")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") | Some("toml") if args.len() >= 3 => {
            let mut s = spec(&args[1]);
            let secs: f64 = args[2]
                .parse()
                .unwrap_or_else(|_| die("SECONDS must be a number"));
            let (warmup, access_limit) = parse_opts(&args[3..], &mut s);
            if args[0] == "toml" && s.name == FAT_TREE.name {
                print!("{}", fat_tree_toml(&s, secs));
            } else if args[0] == "toml" {
                print!("{}", dumbbell_toml(&s, secs, access_limit));
            } else {
                let v = run_one(&s, secs, warmup, access_limit, None);
                println!("{v}");
            }
        }
        Some("sizes") => println!("{}", sizes()),
        Some("parallelism") => parallelism(&args[1..]),
        Some("threads") => threads_bench(&args[1..]),
        Some("fuzz-input") => fuzz_input(&args[1..]),
        Some("scale") => scale(&args[1..]),
        Some(f) if args.len() == 3 && f.parse::<usize>().is_ok() => {
            let n: usize = f.parse().unwrap();
            let rate = tcplab_core::scenario::units::parse_rate(&args[1])
                .unwrap_or_else(|e| die(&format!("RATE: {e}")));
            let secs: f64 = args[2]
                .parse()
                .unwrap_or_else(|_| die("SECONDS must be a number"));
            let s = Spec {
                name: "adhoc",
                flows: n,
                rate: rate.0,
                ..spec("a")
            };
            let text = dumbbell_toml(&s, secs, DEFAULT_ACCESS_LIMIT);
            println!("{HEADER}");
            println!(
                "{}",
                fmt_row(&run_one(&s, secs, 0.0, DEFAULT_ACCESS_LIMIT, Some(text)))
            );
        }
        _ => suite(&args),
    }
}

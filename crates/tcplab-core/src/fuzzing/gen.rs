//! Whole-schema scenario generator for the `run_bounded` fuzz target: fuzz bytes → a
//! scenario (JSON, as the Python binding sends it) drawn from the scenario's own JSON
//! schema ([`crate::scenario::json_schema`]), so every registry entry (`tagged_enum!`:
//! congestion control, queue disciplines, error models, outage schedules, applications,
//! node agents) and every flow and link key is reachable without being listed here. A new
//! algorithm, discipline or key joins the generator when it joins the schema; the test
//! `every_registry_entry_builds` fails if one never yields a scenario that builds.
//!
//! The skeleton (which nodes and links exist, so that references resolve) is chosen by
//! the first byte: a `[dumbbell]`, a `[parking_lot]`, or a fixed host → base station →
//! mobile host path with a Snoop agent on the wireless hop. Every value comes from a small
//! menu per type (durations, rates, sizes, queue limits, integers, fractions), valid
//! values first, so that an input of zeros is a plain valid scenario and the fuzzer
//! reaches both accepted and refused values by mutating single bytes.

use super::Bytes;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The scenario schema, parsed once per process.
fn defs() -> &'static Map<String, Value> {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| {
        serde_json::from_str(&crate::scenario::json_schema()).expect("the schema is JSON")
    })["$defs"]
        .as_object()
        .expect("the schema has $defs")
}

const DURATIONS: &[&str] = &[
    "10ms", "1ms", "100ms", "1s", "0s", "1ps", "1us", "50ms", "3s", "20s", "1e6s",
];
const RATES: &[&str] = &[
    "10Mbps", "1Mbps", "100Mbps", "64kbps", "1Gbps", "1bps", "9600bps", "10Gbps", "1Tbps",
];
fn sizes() -> [Value; 8] {
    [
        json!("64KiB"),
        json!(1500),
        json!("1MB"),
        json!(1),
        json!(40),
        json!(0),
        json!("1GiB"),
        json!(100000),
    ]
}
fn limits() -> [Value; 8] {
    [
        json!(20),
        json!(5),
        json!(100),
        json!(1),
        json!("3000B"),
        json!("64KiB"),
        json!("unlimited"),
        json!(1000),
    ]
}
const INTEGERS: &[u64] = &[1, 2, 3, 0, 4, 8, 16, 100, 1000, 65535, 4294967295];
/// Counts past the scenario's size ceilings (issue 32), refused before expansion, for the
/// builders' `pairs`, `hops` and group `count`s now and then.
const HUGE: &[u64] = &[100_001, 10_000_000, 4_294_967_295];
/// Pcap paths, most of them leaving the run's output directory (refused by validation).
const PCAP_PATHS: &[&str] = &[
    "up.pcap",
    "/tmp/abs.pcap",
    "../out.pcap",
    "a/../../b.pcap",
    "sub/x.pcap",
    "",
    "dir/",
];
const NUMBERS: &[f64] = &[
    0.01, 0.5, 0.1, 0.9, 0.0, 1.0, 0.001, 0.25, 0.99, 2.0, 1e-9, 10.0, 1e6, -1.0,
];

/// The generator's state: the input, and what it has used (for the coverage test).
pub(crate) struct Gen<'a> {
    b: Bytes<'a>,
    /// (registry, variant) pairs written, e.g. ("CcSpec", "cubic").
    pub used: BTreeSet<(String, String)>,
    /// Flow keys written (per flow or in `defaults.flows`).
    pub flow_keys: BTreeSet<String>,
    /// The node an agent sits on and its wireless link (Snoop skeleton).
    agent_at: (&'static str, &'static str),
    /// An error model referred to the outage schedule `o1`.
    need_outage: bool,
}

impl<'a> Gen<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Gen {
            b: Bytes(data),
            used: BTreeSet::new(),
            flow_keys: BTreeSet::new(),
            agent_at: ("bs", "bs_mh"),
            need_outage: false,
        }
    }

    /// True with probability `n`/256 (false on a zero byte, so once the input is
    /// exhausted).
    fn chance(&mut self, n: u8) -> bool {
        self.b.u8() > 255 - n
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.b.u8() as usize % xs.len()].clone()
    }
    fn small(&mut self, lo: u64, n: u64) -> u64 {
        lo + self.b.u8() as u64 % n
    }

    /// A value for property `name` of schema `s`.
    fn value(&mut self, name: &str, s: &Value, depth: u32) -> Value {
        if depth > 8 {
            return Value::Null;
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let def = r.rsplit('/').next().unwrap_or(r);
            return self.named(name, def, depth);
        }
        if let Some(c) = s.get("const") {
            return c.clone();
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            return self.pick(e);
        }
        for k in ["anyOf", "oneOf"] {
            if let Some(a) = s.get(k).and_then(Value::as_array) {
                let opts: Vec<&Value> = a
                    .iter()
                    .filter(|x| x.get("type").and_then(Value::as_str) != Some("null"))
                    .collect();
                let o = opts[self.b.u8() as usize % opts.len()];
                return self.value(name, o, depth + 1);
            }
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
            _ => "",
        };
        match ty {
            "boolean" => json!(self.b.u8() & 1 == 0),
            "integer" => {
                let max = match s.get("format").and_then(Value::as_str) {
                    Some("uint8") => 255,
                    Some("uint16") => 65535,
                    Some("uint32") => u32::MAX as u64,
                    _ => u64::MAX,
                };
                let min = s.get("minimum").and_then(Value::as_u64).unwrap_or(0);
                json!(self.pick(INTEGERS).clamp(min, max))
            }
            "number" => json!(self.pick(NUMBERS)),
            "string" => self.string(name),
            "array" => {
                let lo = s.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let hi = s
                    .get("maxItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(3)
                    .max(lo);
                let n = self.small(lo, hi - lo + 1);
                let item = s
                    .get("prefixItems")
                    .map(|p| json!({"type": "array", "prefixItems": p}))
                    .or_else(|| s.get("items").cloned())
                    .unwrap_or(Value::Null);
                if let Some(p) = s.get("prefixItems").and_then(Value::as_array) {
                    // A fixed-length tuple, e.g. a schedule's `[time, count]`.
                    return Value::Array(
                        p.iter().map(|x| self.value(name, x, depth + 1)).collect(),
                    );
                }
                Value::Array((0..n).map(|_| self.value(name, &item, depth + 1)).collect())
            }
            "object" => Value::Object(self.table(s, 64, &[], depth + 1)),
            _ => Value::Null,
        }
    }

    /// A string property: the name says what it holds.
    fn string(&mut self, name: &str) -> Value {
        match name {
            "node" => json!(self.agent_at.0),
            "wireless" => json!(self.agent_at.1),
            "schedule" => {
                self.need_outage = true;
                json!("o1")
            }
            n if n.contains("rate") => json!(self.pick(RATES)),
            n if [
                "time", "delay", "period", "interval", "start", "stop", "on", "off", "duration",
                "cap", "mean", "trace", "tick",
            ]
            .iter()
            .any(|k| n.contains(k)) =>
            {
                json!(self.pick(DURATIONS))
            }
            "events" => json!(self.pick(&["drop", "loss", "mark", "cwnd"])),
            // Names from a list the schema does not enumerate (valid ones first).
            "profile" => json!(self.pick(&["linux", "ns3", "rfc", "ns2"])),
            "pacing" => json!(self.pick(&["off", "cc", "linux", "50Mbps", "1bps"])),
            _ => json!(self.pick(&["g1", "auto", "1", ""])),
        }
    }

    /// A value of the schema definition `def`.
    fn named(&mut self, name: &str, def: &str, depth: u32) -> Value {
        match def {
            "DurationValue" => json!(self.pick(DURATIONS)),
            "SignedDurationValue" => json!(self.pick(&["0s", "-3.7s", "1ms", "-1ps"])),
            "RateValue" | "LinkRate" => json!(self.pick(RATES)),
            "SizeValue" => self.pick(&sizes()),
            "LimitSpec" => self.pick(&limits()),
            _ => {
                let s = &defs()[def];
                match registry_names(s) {
                    Some(names) => self.registry(def, &names, depth),
                    None => self.value(name, s, depth + 1),
                }
            }
        }
    }

    /// One entry of a tagged registry `def`: a bare name, or its table with some of its
    /// parameters.
    fn registry(&mut self, def: &str, names: &[String], depth: u32) -> Value {
        let i = self.b.u8() as usize % names.len();
        let name = &names[i];
        self.used.insert((def.to_string(), name.clone()));
        let Some((tag, v)) = variant_schema(&defs()[def], name) else {
            return json!(name);
        };
        let required_params = v
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.len() > 1);
        if !required_params && self.b.u8() & 1 == 0 {
            return json!(name);
        }
        let mut t = self.table(v, 64, &[tag.as_str()], depth + 1);
        t.insert(tag, json!(name));
        Value::Object(t)
    }

    /// Properties of the object schema `s`: every required one, each other with
    /// probability `p`/256, none of `skip`.
    fn table(&mut self, s: &Value, p: u8, skip: &[&str], depth: u32) -> Map<String, Value> {
        let mut out = Map::new();
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            return out;
        };
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (k, ps) in props {
            if skip.contains(&k.as_str()) {
                continue;
            }
            if required.contains(&k.as_str()) || self.chance(p) {
                let v = self.value(k, ps, depth);
                if !v.is_null() {
                    out.insert(k.clone(), v);
                }
            }
        }
        out
    }

    /// Flow keys (from the FlowSpec schema): each with probability 1/8. Unless the input
    /// says otherwise (1 in 8), the keys other keys need are added ([`repair_flow`]).
    fn flow_fields(&mut self) -> Map<String, Value> {
        let mut t = self.table(
            &defs()["FlowSpec"],
            32,
            &["from", "to", "efficiency_link"],
            0,
        );
        if !self.chance(32) {
            repair_flow(&mut t);
        }
        self.flow_keys.extend(t.keys().cloned());
        t
    }

    /// Link keys (from the LinkSpec schema) for a builder's link group or an explicit
    /// link: rate and delay always, the rest with probability 1/6.
    fn link_fields(&mut self, buffer: bool) -> Map<String, Value> {
        let mut t = self.table(
            &defs()["LinkSpec"],
            42,
            &[
                "from",
                "to",
                "pcap",
                "duplex",
                "reverse",
                "rate",
                "delay",
                "backpressure",
            ],
            0,
        );
        t.insert("rate".into(), json!(self.pick(RATES)));
        t.insert("delay".into(), json!(self.pick(DURATIONS)));
        if t.contains_key("error") && !self.chance(32) {
            t.remove("loss"); // one or the other
        }
        if buffer && self.chance(128) {
            let b = self.pick(&[
                json!(20),
                json!("1bdp"),
                json!("0.1bdp"),
                json!(1),
                json!("150KB"),
                json!("4bdp"),
            ]);
            t.insert("buffer".into(), b);
        }
        t
    }

    /// Builder flow groups: 1-3 groups of 1-2 flows (a name alone or a table of flow keys).
    fn groups(&mut self, pairs: u64, flows: &mut u64) -> Value {
        let n = self.small(1, 3);
        let mut out = Vec::new();
        for _ in 0..n {
            let mut t = self.flow_fields();
            let count = if self.chance(6) {
                self.pick(HUGE)
            } else {
                self.small(1, 2)
            };
            // Huge counts are refused before expansion: name only the first two flows.
            *flows += count.min(2);
            t.insert("count".into(), json!(count));
            if self.chance(48) {
                t.insert("direction".into(), json!("reverse"));
            }
            if pairs > 1 && self.chance(64) {
                t.insert("pair".into(), json!(self.small(1, pairs)));
            }
            out.push(Value::Object(t));
        }
        Value::Array(out)
    }

    /// The whole scenario.
    pub(crate) fn scenario(&mut self) -> Value {
        let mut sc = Map::new();
        sc.insert(
            "duration".into(),
            json!(self.pick(&["100ms", "1s", "10ms", "3s", "20s"])),
        );
        let mut flows = 0;
        let mut names: Vec<String> = Vec::new();
        match self.b.u8() % 3 {
            0 => {
                let pairs = self.small(1, 3);
                let mut d = Map::new();
                d.insert("bottleneck".into(), Value::Object(self.link_fields(true)));
                d.insert("access".into(), Value::Object(self.link_fields(false)));
                d.insert("flows".into(), self.groups(pairs, &mut flows));
                // Flows without a `pair` take the next pairs in turn.
                let pairs = pairs.max(flows);
                let written = if self.chance(6) {
                    self.pick(HUGE)
                } else {
                    pairs
                };
                d.insert("pairs".into(), json!(written));
                if self.chance(48) {
                    let rtts: Vec<Value> = (0..pairs)
                        .map(|_| json!(self.pick(&["200ms", "1s", "10ms", "1ms"])))
                        .collect();
                    d.insert("rtt".into(), Value::Array(rtts));
                }
                names.extend((1..=flows).map(|i| format!("f{i}")));
                sc.insert("dumbbell".into(), Value::Object(d));
            }
            1 => {
                let hops = self.small(1, 3);
                let mut p = Map::new();
                let hops = if self.chance(6) {
                    self.pick(HUGE)
                } else {
                    hops
                };
                p.insert("hops".into(), json!(hops));
                p.insert("link".into(), Value::Object(self.link_fields(true)));
                p.insert("access".into(), Value::Object(self.link_fields(false)));
                p.insert("flows".into(), self.groups(1, &mut flows));
                if self.chance(160) {
                    let mut cross = 0;
                    p.insert("cross".into(), self.groups(1, &mut cross));
                }
                sc.insert("parking_lot".into(), Value::Object(p));
            }
            _ => {
                // fh → bs → mh with a Snoop agent on bs and a lossy wireless hop bs → mh.
                sc.insert(
                    "nodes".into(),
                    json!({"fh": "host", "bs": "router", "mh": "host"}),
                );
                let mut wired = self.link_fields(false);
                wired.insert("from".into(), json!("fh"));
                wired.insert("to".into(), json!("bs"));
                wired.insert("duplex".into(), json!(true));
                if self.chance(24) {
                    wired.insert("pcap".into(), json!(self.pick(PCAP_PATHS)));
                }
                let mut wireless = self.link_fields(false);
                wireless.insert("from".into(), json!("bs"));
                wireless.insert("to".into(), json!("mh"));
                wireless.insert("duplex".into(), json!(true));
                if !wireless.contains_key("loss") && !wireless.contains_key("error") {
                    wireless.insert("loss".into(), json!(0.02));
                }
                sc.insert("links".into(), json!({"fh_bs": wired, "bs_mh": wireless}));
                let mut fl = Map::new();
                for i in 1..=self.small(1, 3) {
                    let mut t = self.flow_fields();
                    let up = self.chance(32);
                    t.insert("from".into(), json!(if up { "mh" } else { "fh" }));
                    t.insert("to".into(), json!(if up { "fh" } else { "mh" }));
                    fl.insert(format!("f{i}"), Value::Object(t));
                    names.push(format!("f{i}"));
                }
                sc.insert("flows".into(), Value::Object(fl));
                if !self.chance(32) {
                    let a = self.named("agent", "AgentSpec", 0);
                    sc.insert("agents".into(), json!({ "bs_snoop": a }));
                }
            }
        }
        if self.chance(64) {
            let d = self.flow_fields();
            sc.insert("defaults".into(), json!({ "flows": d }));
        }
        if self.chance(32) {
            let m = self.table(&defs()["MetricsSpec"], 128, &[], 0);
            sc.insert("metrics".into(), Value::Object(m));
        }
        if !names.is_empty() && self.chance(24) {
            // A flow schedule over the flows the skeleton named.
            let steps: Vec<Value> = (0..self.small(1, 3))
                .map(|_| {
                    json!([
                        self.pick(&["0s", "10ms", "500ms", "2s"]),
                        self.small(0, names.len() as u64 + 1)
                    ])
                })
                .collect();
            sc.insert(
                "schedules".into(),
                json!({"s1": {"flows": names, "active": steps}}),
            );
        }
        if self.chance(48) {
            // A workload over the skeleton's hosts: the generated entry with the keys that
            // name hosts or links taken out, and sizes, load and rounds that can build.
            let mut w = self.named("workload", "WorkloadSpec", 0);
            if let Some(t) = w.as_object_mut() {
                for k in ["from", "to", "hosts", "load_of", "flow"] {
                    t.remove(k);
                }
                if !self.chance(16) {
                    for k in ["start", "stop"] {
                        t.remove(k);
                    }
                }
                if t.get("type") == Some(&json!("load")) && !self.chance(16) {
                    t.insert(
                        "sizes".into(),
                        json!(self.pick(&["web_search", "data_mining"])),
                    );
                    t.insert("load".into(), json!(self.pick(&[0.1, 0.5, 1.0])));
                    if t.get("arrivals") == Some(&json!("lognormal")) {
                        t.insert("sigma".into(), json!(1.5));
                    } else {
                        t.remove("sigma");
                    }
                }
                if t.get("type") == Some(&json!("incast")) && !self.chance(16) {
                    t.insert("senders".into(), json!(1));
                    t.insert("bytes".into(), json!("10KB"));
                    t.remove("rate");
                    t.insert("period".into(), json!(self.pick(&["5ms", "50ms"])));
                }
                if self.chance(64) {
                    let mut f = self.flow_fields();
                    for k in ["from", "to", "app", "transport"] {
                        f.remove(k);
                    }
                    t.insert("flow".into(), Value::Object(f));
                }
            }
            sc.insert("workloads".into(), json!({ "w": w }));
        }
        if self.need_outage {
            let mut o = self.named("outage", "OutageScheduleSpec", 0);
            // A periodic schedule needs its outage length (constant or mean).
            if let Some(t) = o.as_object_mut() {
                if t.get("type") == Some(&json!("periodic"))
                    && !t.contains_key("duration")
                    && !t.contains_key("mean")
                    && !self.chance(32)
                {
                    t.insert("duration".into(), json!("10ms"));
                }
                // A listed schedule needs [down, up) pairs in time order without overlap:
                // order each pair and keep the pairs that follow the previous one.
                if t.get("type") == Some(&json!("list")) && !self.chance(8) {
                    t.insert("intervals".into(), ordered_intervals(t.get("intervals")));
                }
            }
            sc.insert("outages".into(), json!({ "o1": o }));
        }
        Value::Object(sc)
    }
}

/// `intervals` (a list of generated `[down, up]` duration pairs) made valid: each pair in
/// order, equal ends dropped, pairs sorted and those overlapping an earlier one dropped; at
/// least one pair.
fn ordered_intervals(v: Option<&Value>) -> Value {
    let ps = |v: &Value| {
        v.as_str()
            .and_then(|s| crate::scenario::units::parse_duration(s).ok())
            .map(|d| d.0)
    };
    let mut pairs: Vec<(u64, u64, Value, Value)> = v
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let (a, b) = (p.get(0)?, p.get(1)?);
            let (x, y) = (ps(a)?, ps(b)?);
            match x.cmp(&y) {
                std::cmp::Ordering::Less => Some((x, y, a.clone(), b.clone())),
                std::cmp::Ordering::Greater => Some((y, x, b.clone(), a.clone())),
                std::cmp::Ordering::Equal => None,
            }
        })
        .collect();
    pairs.sort_by_key(|p| p.0);
    let mut out = Vec::new();
    let mut end = 0;
    for (x, y, a, b) in pairs {
        if x >= end {
            out.push(json!([a, b]));
            end = y;
        }
    }
    if out.is_empty() {
        out.push(json!(["10ms", "20ms"]));
    }
    Value::Array(out)
}

/// Add the keys that the flow's other keys need, so that most generated flows build:
/// Vegas' loss detection without SACK and NewReno's extras, SACK recovery for its keys (PRR, NextSeg rule 3, RACK and its tail loss probes, the
/// RTO's unSACKed flight; SACK for D-SACK undo), ECN for ECN's keys and the algorithms that
/// need marks, a datagram source for UDP, and no `rto_max` below `rto_min`.
fn repair_flow(t: &mut Map<String, Value>) {
    let has = |t: &Map<String, Value>, k: &str| t.contains_key(k);
    if t.get("loss_detection") == Some(&json!("vegas")) {
        // Vegas' loss detection runs without SACK and without NewReno's extras.
        let sack_keys = [
            "sack",
            "prr",
            "nextseg_rule3",
            "rto_unsacked_flight",
            "dsack_undo",
            "tlp",
        ];
        if sack_keys.iter().any(|k| has(t, k)) || has(t, "recovery") {
            t.insert("loss_detection".into(), json!("dupack"));
        } else {
            t.remove("limited_transmit");
            t.remove("recovery_burst");
        }
    }
    if has(t, "tlp") {
        t.insert("loss_detection".into(), json!("rack"));
    }
    if t.get("loss_detection") == Some(&json!("rack")) {
        // Keys RACK-TLP refuses: they belong to duplicate-ack detection and the RTO rule.
        t.remove("nextseg_rule3");
        t.remove("rto_restart_on_retransmit");
        t.remove("rto_restart_on_fast_retransmit");
        t.remove("rto_restart_on_dupack");
        t.remove("sack_clear_at_exit");
        t.remove("syn");
        // The persist timer shares the retransmission timer RACK-TLP owns.
        t.remove("playback_rwnd_cap");
    }
    if has(t, "prr")
        || has(t, "nextseg_rule3")
        || has(t, "rto_unsacked_flight")
        || t.get("loss_detection") == Some(&json!("rack"))
        || t.get("recovery") == Some(&json!("rfc6675"))
    {
        t.insert("sack".into(), json!(true));
        if t.get("recovery") == Some(&json!("newreno")) {
            t.insert("recovery".into(), json!("rfc6675"));
        }
    }
    if has(t, "dsack_undo") {
        t.insert("sack".into(), json!(true));
    }
    if t.get("sack") == Some(&json!(true)) && t.get("recovery") != Some(&json!("newreno")) {
        // Reno/NewReno recovery's keys (ns-2's): not with SACK recovery.
        for k in ["bugfix", "limited_transmit", "recovery_burst"] {
            t.remove(k);
        }
    }
    let cc = t.get("cc").map(|c| c.get("algorithm").unwrap_or(c).clone());
    let opencwnd = t.get("cc").is_none_or(|c| {
        serde_json::from_value::<crate::cc::CcSpec>(c.clone())
            .is_ok_and(|s| crate::cc::grows_through_opencwnd(&s))
    });
    if !opencwnd {
        // `ece_increase = false` is refused outside ns-2's opencwnd algorithms.
        t.remove("ece_increase");
    }
    if has(t, "ecn_echo")
        || has(t, "ecn_retransmits")
        || cc == Some(json!("dctcp"))
        || cc == Some(json!("tcpe"))
    {
        t.insert("ecn".into(), json!(true));
    }
    if has(t, "rto_min") {
        t.remove("rto_max");
    }
    if t.get("transport") != Some(&json!("udp")) {
        // Only a UDP flow echoes (`flows.NAME.echo`).
        t.remove("echo");
    }
    if t.get("transport") == Some(&json!("udp")) {
        // TCP-only buffers (refused over UDP).
        t.remove("send_buffer_bytes");
        t.remove("playback_rwnd_cap");
        let app = t.get("app").map(|a| a.get("type").unwrap_or(a).clone());
        if app != Some(json!("cbr")) && app != Some(json!("onoff")) {
            t.insert("app".into(), json!({"type": "cbr", "rate": "1Mbps"}));
        }
    }
}

/// The variant names of a tagged registry's schema (its first `anyOf` branch: the names
/// alone), or `None` for any other definition.
fn registry_names(s: &Value) -> Option<Vec<String>> {
    let a = s.get("anyOf")?.as_array()?;
    let names = a.first()?.get("enum")?.as_array()?;
    if a.len() < 2 || !a[1..].iter().all(|v| v.get("properties").is_some()) {
        return None;
    }
    Some(
        names
            .iter()
            .filter_map(|n| n.as_str().map(String::from))
            .collect(),
    )
}

/// The table schema of variant `name` of a tagged registry, and its tag key.
fn variant_schema<'s>(s: &'s Value, name: &str) -> Option<(String, &'s Value)> {
    s.get("anyOf")?.as_array()?.iter().skip(1).find_map(|v| {
        let props = v.get("properties")?.as_object()?;
        props.iter().find_map(|(k, p)| {
            (p.get("const").and_then(Value::as_str) == Some(name)).then(|| (k.clone(), v))
        })
    })
}

/// The tagged registries the scenario schema has, with their variant names (tests).
#[cfg(test)]
pub(crate) fn registries() -> Vec<(String, Vec<String>)> {
    defs()
        .iter()
        .filter_map(|(k, s)| registry_names(s).map(|n| (k.clone(), n)))
        .collect()
}

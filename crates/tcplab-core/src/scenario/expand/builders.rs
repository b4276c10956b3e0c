//! The topology builders `[dumbbell]` and `[parking_lot]`: nodes, duplex link entries and
//! flows with predictable names (docs/scenarios.md "Topology builders").

use super::{
    digits, duration_ps, fmt_duration, merge_over, rate_bps, same_variant, split, Defaults, Entry,
    Gen, Obj, Origins,
};
use crate::scenario::ScenarioError;
use serde_json::Value;

/// A builder table whose keys are taken one by one; what is left is an error.
struct Tbl {
    map: Obj,
    path: String,
}

impl Tbl {
    fn new(v: Value, path: &str) -> Result<Self, ScenarioError> {
        match v {
            Value::Object(map) => Ok(Tbl {
                map,
                path: path.into(),
            }),
            _ => Err(ScenarioError::new(path, "must be a table")),
        }
    }
    fn field(&self, k: &str) -> String {
        format!("{}.{k}", self.path)
    }
    fn take(&mut self, k: &str) -> Option<Value> {
        self.map.remove(k)
    }
    fn take_table(&mut self, k: &str) -> Result<Option<Obj>, ScenarioError> {
        match self.map.remove(k) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(_) => Err(ScenarioError::new(self.field(k), "must be a table")),
        }
    }
    fn take_count(&mut self, k: &str) -> Result<Option<u32>, ScenarioError> {
        self.map
            .remove(k)
            .map(|v| count(&v, &self.field(k)))
            .transpose()
    }
    fn finish(self, known: &[&str]) -> Result<(), ScenarioError> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(k) => Err(ScenarioError::new(
                self.field(k),
                format!("unknown key (known: {})", known.join(", ")),
            )),
        }
    }
}

/// An integer ≥ 1.
fn count(v: &Value, field: &str) -> Result<u32, ScenarioError> {
    v.as_u64()
        .filter(|&n| n >= 1)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| ScenarioError::new(field, format!("must be an integer >= 1, got {v}")))
}

/// Element `i` of `n` ("pair", "hop", ...): a list gives one value per element.
struct Each<'a> {
    i: usize,
    n: usize,
    what: &'a str,
}

/// `v` at `field`, or its element `i` when it is a list (which must have `n` elements).
fn pick(v: &Value, field: &str, each: Option<&Each>) -> Result<(Value, String), ScenarioError> {
    match (v, each) {
        (Value::Array(a), Some(e)) => {
            if a.len() != e.n {
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "a list gives one value per {}: expected {} values, got {}",
                        e.what,
                        e.n,
                        a.len()
                    ),
                ));
            }
            Ok((a[e.i].clone(), format!("{field}[{}]", e.i)))
        }
        _ => Ok((v.clone(), field.to_string())),
    }
}

/// The link fields of a builder's link tables (`layers`, later ones win) for one element.
fn link_entry(
    layers: &[(&Obj, &str)],
    each: Option<&Each>,
    path: &str,
) -> Result<Entry, ScenarioError> {
    let mut e = Entry::new(path);
    for (tbl, tpath) in layers {
        for (k, v) in tbl.iter() {
            let field = format!("{tpath}.{k}");
            match k.as_str() {
                "from" | "to" => {
                    return Err(ScenarioError::new(field, "set by the builder"));
                }
                "duplex" => {
                    return Err(ScenarioError::new(
                        field,
                        "a builder's links are always duplex (use `reverse` or \
                         `reverse_rate` for the other direction)",
                    ));
                }
                _ => {}
            }
            let (mut v, from) = pick(v, &field, each)?;
            if k == "reverse" {
                if let Value::Object(r) = &mut v {
                    for (rk, rv) in r.iter_mut() {
                        let (x, o) = pick(rv, &format!("{field}.{rk}"), each)?;
                        *rv = x;
                        e.origin.insert(format!("reverse.{rk}"), o);
                    }
                }
            }
            match e.map.get_mut(k) {
                Some(b) if same_variant(b, &v) => {
                    merge_over(b, v, "", &mut Origins::default());
                    e.origin.insert(k.clone(), from);
                }
                _ => e.set(k, v, from),
            }
        }
    }
    Ok(e)
}

/// A link field's value with `[defaults.links]` under it, and where it came from.
fn eff<'a>(e: &'a Entry, k: &str, d: &'a Defaults) -> Option<(&'a Value, String)> {
    match e.map.get(k) {
        Some(v) => Some((v, e.origin_of(k))),
        None => d.links.get(k).map(|v| (v, format!("defaults.links.{k}"))),
    }
}

/// The rate of a builder link (required).
fn rate_of(e: &Entry, d: &Defaults, table: &str) -> Result<u64, ScenarioError> {
    match eff(e, "rate", d) {
        Some((v, at)) => rate_bps(v, &at),
        None => {
            // A misspelt `rate` is named as what it is, not as a missing rate.
            if let Some(k) = e.map.keys().find(|k| {
                k.as_str() != "reverse_rate"
                    && crate::config::suggest::closest(k, &["rate"]).is_some()
            }) {
                return Err(ScenarioError::new(
                    e.origin_of(k),
                    format!("unknown field `{k}` (did you mean `rate`?)"),
                ));
            }
            Err(ScenarioError::new(
                format!("{table}.rate"),
                "required: the links' rate, e.g. \"100Mbps\"",
            ))
        }
    }
}

/// Forward and reverse propagation delays of a builder link (before splitting).
fn delays_of(e: &Entry, d: &Defaults) -> Result<(u64, u64), ScenarioError> {
    let fwd = match eff(e, "delay", d) {
        Some((v, at)) => duration_ps(v, &at)?,
        None => 0,
    };
    let rev = match e.map.get("reverse").and_then(|r| r.get("delay")) {
        Some(v) => duration_ps(v, &e.origin_of("reverse.delay"))?,
        None => fwd,
    };
    Ok((fwd, rev))
}

/// Forward and reverse rates of a builder link (before splitting).
fn rates_of(e: &Entry, d: &Defaults, table: &str) -> Result<(u64, u64), ScenarioError> {
    let fwd = rate_of(e, d, table)?;
    let rev = if let Some(v) = e.map.get("reverse_rate") {
        rate_bps(v, &e.origin_of("reverse_rate"))?
    } else if let Some(v) = e.map.get("reverse").and_then(|r| r.get("rate")) {
        rate_bps(v, &e.origin_of("reverse.rate"))?
    } else {
        fwd
    };
    Ok((fwd, rev))
}

/// The queue limit a `buffer` value gives on a direction of `rate_bps` with round-trip
/// time `rtt_ps`: an integer or "100pkt" is packets, a size ("150KB") bytes, "Nbdp" N
/// bandwidth-delay products in bytes (rounded up).
fn buffer_limit(buf: &Value, field: &str, rate: u64, rtt_ps: u64) -> Result<Value, ScenarioError> {
    match buf {
        Value::Number(_) => Ok(buf.clone()),
        Value::String(s) => {
            let t = s.trim();
            let Some(m) = t.strip_suffix("bdp").or_else(|| t.strip_suffix("BDP")) else {
                return Ok(buf.clone());
            };
            let m: f64 = m.trim().parse().map_err(|_| {
                ScenarioError::new(field, format!("'{s}': expected a number of BDPs, e.g. \"1bdp\""))
            })?;
            if !(m.is_finite() && m > 0.0) {
                return Err(ScenarioError::new(field, format!("'{s}': must be positive")));
            }
            let bdp_bits = rate as f64 * rtt_ps as f64 / 1e12;
            let bytes = (m * bdp_bits / 8.0).ceil();
            if bytes < 1.0 || bytes >= u64::MAX as f64 {
                return Err(ScenarioError::new(
                    field,
                    format!("'{s}' gives {bytes} bytes (rate x round-trip time {} )", fmt_duration(rtt_ps)),
                ));
            }
            Ok(Value::String(format!("{}B", bytes as u64)))
        }
        _ => Err(ScenarioError::new(
            field,
            format!("expected packets (100, \"100pkt\"), bytes (\"150KB\") or BDPs (\"1bdp\"), got {buf}"),
        )),
    }
}

/// Set a direction's queue limit from `buffer`: the direction's queue (or the default
/// queue, or drop-tail) with `limit` = the buffer. `own_limit_ok`: the direction may already
/// carry a limit of its own (a reverse direction's `reverse.queue.limit`), which is kept.
fn apply_buffer(
    e: &mut Entry,
    d: &Defaults,
    buf: &Value,
    buf_at: &str,
    rate: u64,
    rtt_ps: u64,
    own_limit_ok: bool,
) -> Result<(), ScenarioError> {
    let (q, q_at) = match e.map.remove("queue") {
        Some(v) => (v, e.origin_of("queue")),
        None => match d.links.get("queue") {
            Some(v) => (v.clone(), "defaults.links.queue".to_string()),
            None => (
                serde_json::json!({ "type": "droptail" }),
                buf_at.to_string(),
            ),
        },
    };
    let mut q = match q {
        Value::String(s) => {
            let mut m = Obj::new();
            m.insert("type".into(), Value::String(s));
            m
        }
        Value::Object(m) => m,
        other => {
            return Err(ScenarioError::new(
                q_at,
                format!("expected a queue table or name, got {other}"),
            ))
        }
    };
    // FQ-CoDel has two limits: `limit` (packets, an integer) and `memory_limit` (bytes).
    let fq = q.get("type").and_then(Value::as_str) == Some("fq_codel");
    let own = if fq && q.contains_key("memory_limit") {
        Some("memory_limit")
    } else if q.contains_key("limit") {
        Some("limit")
    } else {
        None
    };
    if let Some(k) = own {
        if own_limit_ok {
            e.set("queue", Value::Object(q), q_at);
            return Ok(());
        }
        return Err(ScenarioError::new(
            buf_at,
            format!("give `buffer` or `{q_at}.{k}`, not both"),
        ));
    }
    let limit = buffer_limit(buf, buf_at, rate, rtt_ps)?;
    let key = if fq {
        match fq_codel_limit(&limit) {
            Some(FqLimit::Packets(n)) => {
                q.insert("limit".into(), Value::from(n));
                "limit"
            }
            Some(FqLimit::Bytes(b)) => {
                q.insert("memory_limit".into(), Value::String(b));
                "memory_limit"
            }
            None => {
                return Err(ScenarioError::new(
                    buf_at,
                    format!(
                        "{buf} is not a buffer fq_codel takes: give packets (100, \"100pkt\", \
                         its `limit`), bytes (\"150KB\") or BDPs (\"1bdp\"; both its `memory_limit`)"
                    ),
                ))
            }
        }
    } else {
        q.insert("limit".into(), limit);
        "limit"
    };
    e.set("queue", Value::Object(q), q_at);
    e.origin.insert(format!("queue.{key}"), buf_at.into());
    Ok(())
}

/// A builder buffer as FQ-CoDel's limits: packets go to `limit` (an integer), bytes to
/// `memory_limit`.
enum FqLimit {
    Packets(u64),
    Bytes(String),
}

/// `limit` as [`buffer_limit`] gives it: an integer (packets), "Npkt"-style packets, a size.
/// None for what FQ-CoDel cannot hold ("unlimited", a negative or fractional count).
fn fq_codel_limit(limit: &Value) -> Option<FqLimit> {
    match limit {
        Value::Number(n) => n.as_u64().map(FqLimit::Packets),
        Value::String(s) => {
            let t = s.trim();
            if t == "unlimited" {
                return None;
            }
            for suf in ["packets", "pkts", "pkt", "p"] {
                if let Some(n) = t.strip_suffix(suf) {
                    return n.trim().parse::<u64>().ok().map(FqLimit::Packets);
                }
            }
            Some(FqLimit::Bytes(t.to_string()))
        }
        _ => None,
    }
}

/// Split a builder link (from → to) into its two directions, apply `buffer` to both and add
/// them to `g`.
#[allow(clippy::too_many_arguments)]
fn put_duplex(
    g: &mut Gen,
    d: &Defaults,
    name: &str,
    mut e: Entry,
    from: &str,
    to: &str,
    buffer: Option<(&Value, &str, u64)>,
    table: &str,
) -> Result<(), ScenarioError> {
    let (rate_f, rate_r) = rates_of(&e, d, table)?;
    let rev_has_limit = e
        .map
        .get("reverse")
        .and_then(|r| r.get("queue"))
        .and_then(|q| q.get("limit"))
        .is_some();
    e.set("from", Value::String(from.into()), e.path.clone());
    e.set("to", Value::String(to.into()), e.path.clone());
    let mut dirs = split(name, e, false)?;
    if let Some((buf, at, rtt)) = buffer {
        apply_buffer(&mut dirs[0].1, d, buf, at, rate_f, rtt, false)?;
        apply_buffer(&mut dirs[1].1, d, buf, at, rate_r, rtt, rev_has_limit)?;
    }
    for (n, dir) in dirs {
        g.put_link(&n, dir)?;
    }
    Ok(())
}

/// A flow group of a builder's `flows` list.
struct Group {
    path: String,
    count: u32,
    name: Option<String>,
    pair: Option<Value>,
    reverse: bool,
    fields: Obj,
    /// Written as a bare congestion-control name.
    bare: bool,
}

fn groups(v: Option<Value>, path: &str, allow_pair: bool) -> Result<Vec<Group>, ScenarioError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let Value::Array(list) = v else {
        return Err(ScenarioError::new(
            path,
            "must be a list of flow groups, e.g. [\"newreno\", { cc = \"vegas\", count = 2 }]",
        ));
    };
    let mut out = Vec::new();
    for (i, item) in list.into_iter().enumerate() {
        let gpath = format!("{path}[{i}]");
        let g = match item {
            Value::String(cc) => {
                let mut fields = Obj::new();
                fields.insert("cc".into(), Value::String(cc));
                Group {
                    path: gpath,
                    count: 1,
                    name: None,
                    pair: None,
                    reverse: false,
                    fields,
                    bare: true,
                }
            }
            Value::Object(mut m) => {
                let count = m
                    .remove("count")
                    .map(|v| count(&v, &format!("{gpath}.count")))
                    .transpose()?
                    .unwrap_or(1);
                ceiling(
                    count as u64,
                    MAX_BUILDER_FLOWS,
                    &format!("{gpath}.count"),
                    "flows",
                )?;
                let name = match m.remove("name") {
                    None => None,
                    Some(Value::String(s)) if !s.is_empty() => Some(s),
                    Some(_) => {
                        return Err(ScenarioError::new(
                            format!("{gpath}.name"),
                            "must be a flow name (count > 1 numbers it: NAME1, NAME2, ...)",
                        ))
                    }
                };
                let pair = m.remove("pair");
                if pair.is_some() && !allow_pair {
                    return Err(ScenarioError::new(
                        format!("{gpath}.pair"),
                        "only dumbbell flows choose a pair",
                    ));
                }
                let reverse = match m.remove("direction") {
                    None => false,
                    Some(Value::String(s)) if s == "forward" => false,
                    Some(Value::String(s)) if s == "reverse" => true,
                    Some(v) => {
                        return Err(ScenarioError::new(
                            format!("{gpath}.direction"),
                            format!("must be \"forward\" or \"reverse\", got {v}"),
                        ))
                    }
                };
                if let Some(k) = ["from", "to"].into_iter().find(|k| m.contains_key(*k)) {
                    return Err(ScenarioError::new(
                        format!("{gpath}.{k}"),
                        "set by the builder (choose the hosts with `pair` and `direction`)",
                    ));
                }
                Group {
                    path: gpath,
                    count,
                    name,
                    pair,
                    reverse,
                    fields: m,
                    bare: false,
                }
            }
            other => {
                return Err(ScenarioError::new(
                    gpath,
                    format!("expected a congestion-control name or a flow table, got {other}"),
                ))
            }
        };
        out.push(g);
    }
    Ok(out)
}

impl Group {
    /// Flow `j` of the group (lists give one value per flow of the group).
    fn entry(&self, j: usize) -> Result<Entry, ScenarioError> {
        let mut e = Entry::new(self.path.clone());
        let each = Each {
            i: j,
            n: self.count as usize,
            what: "flow of the group (count)",
        };
        for (k, v) in &self.fields {
            let (v, from) = pick(v, &format!("{}.{k}", self.path), Some(&each))?;
            let from = if self.bare { self.path.clone() } else { from };
            e.set(k, v, from);
        }
        if self.bare {
            // Errors about the bare name come back as `cc.algorithm`.
            e.origin.insert("cc.algorithm".into(), self.path.clone());
        }
        Ok(e)
    }

    /// The group's name for flow `j` when it has one.
    fn named(&self, j: usize) -> Option<String> {
        let n = self.name.as_ref()?;
        Some(if self.count == 1 {
            n.clone()
        } else {
            format!("{n}{:0w$}", j + 1, w = digits(self.count as u64))
        })
    }
}

/// Add a builder flow from `src` to `dst` (swapped for reverse groups).
#[allow(clippy::too_many_arguments)]
fn put_flow(
    g: &mut Gen,
    d: &Defaults,
    gr: &Group,
    j: usize,
    name: String,
    src: &str,
    dst: &str,
    eff_link: &str,
) -> Result<(), ScenarioError> {
    let mut e = gr.entry(j)?;
    let (a, b) = if gr.reverse { (dst, src) } else { (src, dst) };
    let at = match &gr.pair {
        Some(_) => format!("{}.pair", gr.path),
        None => gr.path.clone(),
    };
    e.set("from", Value::String(a.into()), at.clone());
    e.set("to", Value::String(b.into()), at);
    if !e.map.contains_key("efficiency_link") && !d.flows.contains_key("efficiency_link") {
        let l = if gr.reverse {
            format!("{eff_link}_rev")
        } else {
            eff_link.to_string()
        };
        e.set("efficiency_link", Value::String(l), gr.path.clone());
    }
    g.put_flow(&name, e)
}

// ---- dumbbell -----------------------------------------------------------------------------

/// `[dumbbell]`: hosts s1..sN (left) and d1..dN (right), routers r1 and r2; links `sI`
/// (sI → r1), `bn` (r1 → r2), `dI` (r2 → dI), each with its `_rev` direction.
pub(super) fn dumbbell(v: Value, d: &Defaults, g: &mut Gen) -> Result<(), ScenarioError> {
    g.by = "[dumbbell]".into();
    const KNOWN: [&str; 7] = [
        "pairs",
        "bottleneck",
        "access",
        "left",
        "right",
        "rtt",
        "flows",
    ];
    let mut t = Tbl::new(v, "dumbbell")?;
    let pairs = t.take_count("pairs")?;
    let bottleneck = t.take_table("bottleneck")?;
    let access = t.take_table("access")?.unwrap_or_default();
    let left = t.take_table("left")?.unwrap_or_default();
    let right = t.take_table("right")?.unwrap_or_default();
    let rtt = t.take("rtt");
    let groups = groups(t.take("flows"), "dumbbell.flows", true)?;
    t.finish(&KNOWN)?;
    if let Some(n) = pairs {
        ceiling(n as u64, MAX_PAIRS, "dumbbell.pairs", "host pairs")?;
    }
    let total: u64 = groups.iter().map(|gr| gr.count as u64).sum();
    ceiling(total, MAX_BUILDER_FLOWS, "dumbbell.flows", "flows")?;
    let Some(bottleneck) = bottleneck else {
        return Err(ScenarioError::new(
            "dumbbell.bottleneck",
            "required: the bottleneck link, e.g. { rate = \"10Mbps\", delay = \"20ms\" }",
        ));
    };

    // Flows onto pairs: each group takes the next unused pairs unless it names its own.
    let mut next = 1u32;
    let mut placed: Vec<(usize, usize, u32)> = Vec::new(); // (group, flow in group, pair)
    for (gi, gr) in groups.iter().enumerate() {
        let at = format!("{}.pair", gr.path);
        let ps: Vec<u32> = match &gr.pair {
            None => (next..next + gr.count).collect(),
            Some(Value::Array(a)) => {
                if a.len() != gr.count as usize {
                    return Err(ScenarioError::new(
                        at,
                        format!("a list gives one pair per flow of the group: expected {} values, got {}", gr.count, a.len()),
                    ));
                }
                a.iter()
                    .enumerate()
                    .map(|(i, p)| count(p, &format!("{at}[{i}]")))
                    .collect::<Result<_, _>>()?
            }
            Some(p) => vec![count(p, &at)?; gr.count as usize],
        };
        if let Some(&m) = ps.iter().max() {
            ceiling(
                m as u64,
                MAX_PAIRS,
                &at,
                "host pairs (the highest pair a flow names)",
            )?;
        }
        next = next.max(ps.iter().max().map_or(next, |m| m + 1));
        placed.extend(ps.into_iter().enumerate().map(|(j, p)| (gi, j, p)));
    }
    let n = match pairs {
        Some(n) => {
            if let Some(&(gi, _, p)) = placed.iter().find(|(_, _, p)| *p > n) {
                let gr = &groups[gi];
                let at = if gr.pair.is_some() {
                    format!("{}.pair", gr.path)
                } else {
                    "dumbbell.pairs".to_string()
                };
                return Err(ScenarioError::new(
                    at,
                    format!("the flows need pair {p} but the dumbbell has pairs = {n}"),
                ));
            }
            n
        }
        None if next > 1 => next - 1,
        None => {
            return Err(ScenarioError::new(
                "dumbbell",
                "give `pairs` (the number of host pairs) or `flows`",
            ))
        }
    } as usize;
    let w = digits(n as u64);
    let s = |i: usize| format!("s{:0w$}", i + 1);
    let dn = |i: usize| format!("d{:0w$}", i + 1);

    g.put_node("r1", "router", "dumbbell");
    g.put_node("r2", "router", "dumbbell");
    for i in 0..n {
        g.put_node(&s(i), "host", "dumbbell");
        g.put_node(&dn(i), "host", "dumbbell");
    }

    let mut bn = link_entry(
        &[(&bottleneck, "dumbbell.bottleneck")],
        None,
        "dumbbell.bottleneck",
    )?;
    let buffer = bn.map.remove("buffer").map(|b| (b, bn.origin_of("buffer")));
    let (bn_f, bn_r) = delays_of(&bn, d)?;
    rate_of(&bn, d, "dumbbell.bottleneck")?;

    let side_of = |tbl: &Obj, name: &str, i: usize| {
        let each = Each { i, n, what: "pair" };
        link_entry(
            &[
                (&access, "dumbbell.access"),
                (tbl, &format!("dumbbell.{name}")),
            ],
            Some(&each),
            &format!("dumbbell.{name}"),
        )
    };
    let mut lefts = Vec::with_capacity(n);
    let mut rights = Vec::with_capacity(n);
    for i in 0..n {
        lefts.push(side_of(&left, "left", i)?);
        rights.push(side_of(&right, "right", i)?);
    }
    if let Some(rtt) = &rtt {
        for k in ["delay"] {
            if left.contains_key(k) {
                return Err(ScenarioError::new(
                    format!("dumbbell.left.{k}"),
                    "give `rtt` or the left access delay, not both (rtt sets it)",
                ));
            }
        }
        let rev_delay = |t: &Obj| t.get("reverse").and_then(|r| r.get("delay")).is_some();
        if rev_delay(&left) || rev_delay(&access) {
            let at = if rev_delay(&left) { "left" } else { "access" };
            return Err(ScenarioError::new(
                format!("dumbbell.{at}.reverse.delay"),
                "cannot be combined with `rtt` (rtt sets both directions of the left access links)",
            ));
        }
        for i in 0..n {
            let each = Each { i, n, what: "pair" };
            let (v, at) = pick(rtt, "dumbbell.rtt", Some(&each))?;
            let target = duration_ps(&v, &at)?;
            let (rf, rr) = delays_of(&rights[i], d)?;
            let rest = bn_f + bn_r + rf + rr;
            let Some(two_left) = target.checked_sub(rest) else {
                return Err(ScenarioError::new(
                    at,
                    format!(
                        "{} is shorter than the rest of the pair's round trip ({}: bottleneck \
                         and right access delays, both ways)",
                        fmt_duration(target),
                        fmt_duration(rest)
                    ),
                ));
            };
            if two_left % 2 != 0 {
                return Err(ScenarioError::new(
                    at,
                    "leaves an odd number of picoseconds for the two left access delays",
                ));
            }
            lefts[i].set("delay", Value::String(fmt_duration(two_left / 2)), at);
        }
    }
    // The longest propagation round trip over the pairs, for "Nbdp" buffers.
    let mut rtt_max = 0;
    for i in 0..n {
        let (lf, lr) = delays_of(&lefts[i], d)?;
        let (rf, rr) = delays_of(&rights[i], d)?;
        rtt_max = rtt_max.max(lf + lr + bn_f + bn_r + rf + rr);
    }
    let buffer = buffer.as_ref().map(|(b, at)| (b, at.as_str(), rtt_max));
    put_duplex(g, d, "bn", bn, "r1", "r2", buffer, "dumbbell.bottleneck")?;
    for (i, (l, r)) in lefts.into_iter().zip(rights).enumerate() {
        put_duplex(g, d, &s(i), l, &s(i), "r1", None, "dumbbell.access")?;
        put_duplex(g, d, &dn(i), r, "r2", &dn(i), None, "dumbbell.access")?;
    }

    let total = placed.len();
    let fw = digits(total as u64);
    for (k, &(gi, j, p)) in placed.iter().enumerate() {
        let gr = &groups[gi];
        let name = gr.named(j).unwrap_or_else(|| format!("f{:0fw$}", k + 1));
        let p = p as usize - 1;
        put_flow(g, d, gr, j, name, &s(p), &dn(p), "bn")?;
    }
    Ok(())
}

// ---- parking lot --------------------------------------------------------------------------

/// `[parking_lot]`: routers r0..rK in a chain of hops `hI` (r(I-1) → rI); the long flows
/// run s0 → r0 → ... → rK → d0, the cross flows of hop I run sI → r(I-1) → rI → dI.
pub(super) fn parking_lot(v: Value, d: &Defaults, g: &mut Gen) -> Result<(), ScenarioError> {
    g.by = "[parking_lot]".into();
    const KNOWN: [&str; 5] = ["hops", "link", "access", "flows", "cross"];
    let mut t = Tbl::new(v, "parking_lot")?;
    let hops = t.take_count("hops")?;
    let link = t.take_table("link")?;
    let access = t.take_table("access")?.unwrap_or_default();
    let long = groups(t.take("flows"), "parking_lot.flows", false)?;
    let cross = groups(t.take("cross"), "parking_lot.cross", false)?;
    t.finish(&KNOWN)?;
    if let Some(k) = hops {
        ceiling(k as u64, MAX_HOPS, "parking_lot.hops", "hops")?;
        let per_hop: u64 = cross.iter().map(|gr| gr.count as u64).sum();
        let long_n: u64 = long.iter().map(|gr| gr.count as u64).sum();
        ceiling(long_n, MAX_BUILDER_FLOWS, "parking_lot.flows", "flows")?;
        ceiling(
            per_hop * k as u64,
            MAX_BUILDER_FLOWS,
            "parking_lot.cross",
            "cross flows (per hop × hops)",
        )?;
    }
    let Some(k) = hops else {
        return Err(ScenarioError::new(
            "parking_lot.hops",
            "required: the number of bottleneck hops (>= 1)",
        ));
    };
    let Some(link) = link else {
        return Err(ScenarioError::new(
            "parking_lot.link",
            "required: the hops' link, e.g. { rate = \"10Mbps\", delay = \"10ms\" }",
        ));
    };
    let k = k as usize;
    let w = digits(k as u64);
    let r = |i: usize| format!("r{i:0w$}");
    let s = |i: usize| format!("s{i:0w$}");
    let dn = |i: usize| format!("d{i:0w$}");
    let h = |i: usize| format!("h{i:0w$}");
    for i in 0..=k {
        g.put_node(&r(i), "router", "parking_lot");
        g.put_node(&s(i), "host", "parking_lot");
        g.put_node(&dn(i), "host", "parking_lot");
    }
    let mut hop_entries = Vec::with_capacity(k);
    let mut path_rtt = 0;
    for i in 1..=k {
        let each = Each {
            i: i - 1,
            n: k,
            what: "hop",
        };
        let e = link_entry(
            &[(&link, "parking_lot.link")],
            Some(&each),
            "parking_lot.link",
        )?;
        let (f, b) = delays_of(&e, d)?;
        path_rtt += f + b;
        hop_entries.push(e);
    }
    let mut hosts = Vec::with_capacity(2 * (k + 1));
    for i in 0..=k {
        let each = Each {
            i,
            n: k + 1,
            what: "host number (0..=hops)",
        };
        let sa = link_entry(
            &[(&access, "parking_lot.access")],
            Some(&each),
            "parking_lot.access",
        )?;
        let da = link_entry(
            &[(&access, "parking_lot.access")],
            Some(&each),
            "parking_lot.access",
        )?;
        if i == 0 {
            let (a, b) = delays_of(&sa, d)?;
            let (c, e) = delays_of(&da, d)?;
            path_rtt += a + b + c + e;
        }
        hosts.push((i, sa, da));
    }
    for (i, mut e) in hop_entries.into_iter().enumerate() {
        let i = i + 1;
        let buffer = e.map.remove("buffer").map(|b| (b, e.origin_of("buffer")));
        let buffer = buffer.as_ref().map(|(b, at)| (b, at.as_str(), path_rtt));
        put_duplex(g, d, &h(i), e, &r(i - 1), &r(i), buffer, "parking_lot.link")?;
    }
    for (i, sa, da) in hosts {
        let (sr, dr) = if i == 0 {
            (r(0), r(k))
        } else {
            (r(i - 1), r(i))
        };
        put_duplex(g, d, &s(i), sa, &s(i), &sr, None, "parking_lot.access")?;
        put_duplex(g, d, &dn(i), da, &dr, &dn(i), None, "parking_lot.access")?;
    }
    // Long flows.
    let total: u32 = long.iter().map(|gr| gr.count).sum();
    let lw = digits(total as u64);
    let mut n = 0;
    for gr in &long {
        for j in 0..gr.count as usize {
            n += 1;
            let name = gr.named(j).unwrap_or_else(|| {
                if total == 1 {
                    "long".to_string()
                } else {
                    format!("long{n:0lw$}")
                }
            });
            put_flow(g, d, gr, j, name, &s(0), &dn(0), &h(1))?;
        }
    }
    // Cross flows, on every hop.
    let per_hop: u32 = cross.iter().map(|gr| gr.count).sum();
    let cw = digits(per_hop as u64);
    for i in 1..=k {
        let mut n = 0;
        for gr in &cross {
            for j in 0..gr.count as usize {
                n += 1;
                let hn = format!("{i:0w$}");
                let name = match &gr.name {
                    Some(base) if gr.count == 1 => format!("{base}{hn}"),
                    Some(base) => {
                        format!("{base}{hn}_{:0w2$}", j + 1, w2 = digits(gr.count as u64))
                    }
                    None if per_hop == 1 => format!("c{hn}"),
                    None => format!("c{hn}_{n:0cw$}"),
                };
                put_flow(g, d, gr, j, name, &s(i), &dn(i), &h(i))?;
            }
        }
    }
    Ok(())
}

// ---- fat-tree -----------------------------------------------------------------------------

/// Most flows `traffic = "all_to_all"` may generate: every flow is an entry of the expanded
/// scenario (measured: about 3.5 KiB of peak memory per flow to expand and validate, k = 8
/// all-to-all; plus its state while running, docs/performance.md "Scale"); k = 8 gives
/// 128 x 127 = 16 256, k = 10 gives 62 250, k = 12 (432 hosts) would give 186 192.
pub(crate) const MAX_ALL_TO_ALL_FLOWS: u64 = 100_000;

/// Ceilings on what a builder expands (issue 32: a scenario is data, its size is bounded
/// before anything is built): checked before the loops that allocate per element, so a
/// three-line file cannot ask for ten million hosts. docs/scenarios.md lists them.
pub(crate) const MAX_PAIRS: u64 = 100_000;
/// Hops of a parking lot.
pub(crate) const MAX_HOPS: u64 = 10_000;
/// Flows one builder generates (every group's `count` summed; a parking lot's cross groups
/// once per hop).
pub(crate) const MAX_BUILDER_FLOWS: u64 = 100_000;

/// `n` at `field` must not exceed `max` (`what`: the thing counted).
fn ceiling(n: u64, max: u64, field: &str, what: &str) -> Result<(), ScenarioError> {
    if n > max {
        return Err(ScenarioError::new(
            field,
            format!("{n} {what} is too many: at most {max} (a bound on the scenario's size, checked before it is built; docs/scenarios.md, \"Size limits\")"),
        ));
    }
    Ok(())
}

/// Largest `k`: k = 32 has 8 192 hosts and 1 280 switches; every switch keeps a route
/// table of one entry per node (1 280 x 9 472 entries), and routing with
/// `ecmp = "destination"` is a breadth-first search per destination.
pub(crate) const MAX_FAT_TREE_K: u64 = 32;

/// `[fat_tree]`: a k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and
/// k/2 aggregation switches, (k/2)² core switches, k/2 hosts per edge switch (k³/4 hosts).
/// Nodes `hN` (hosts, numbered 0 .. k³/4 − 1 pod by pod, edge by edge), `edgeP_I`,
/// `aggP_J`, `coreC`; links `hN` (host → edge), `edgeP_I-aggP_J`, `aggP_J-coreC` (core
/// C = J·k/2 + M connects to aggregation switch J of every pod), each with its `_rev`
/// (downward) direction. Sets `routing.ecmp = "destination"` (D-mod-k) unless given.
pub(super) fn fat_tree(v: Value, d: &Defaults, g: &mut Gen) -> Result<(), ScenarioError> {
    g.by = "[fat_tree]".into();
    const KNOWN: [&str; 7] = [
        "k",
        "link",
        "access",
        "aggregation",
        "core",
        "traffic",
        "permutation_seed",
    ];
    let mut t = Tbl::new(v, "fat_tree")?;
    let k = t.take("k");
    let link = t.take_table("link")?.unwrap_or_default();
    let tiers = [
        ("access", t.take_table("access")?.unwrap_or_default()),
        (
            "aggregation",
            t.take_table("aggregation")?.unwrap_or_default(),
        ),
        ("core", t.take_table("core")?.unwrap_or_default()),
    ];
    let traffic = t.take("traffic");
    let perm_seed = t.take("permutation_seed");
    t.finish(&KNOWN)?;
    let k = match k {
        None => {
            return Err(ScenarioError::new(
                "fat_tree.k",
                "required: the switches' port count, an even integer >= 2 (k = 8: 128 hosts, 80 switches)",
            ))
        }
        Some(v) => match v.as_u64() {
            Some(k) if k >= 2 && k % 2 == 0 && k <= MAX_FAT_TREE_K => k as usize,
            Some(k) if k > MAX_FAT_TREE_K => {
                return Err(ScenarioError::new(
                    "fat_tree.k",
                    format!(
                        "{k} is too large: at most {MAX_FAT_TREE_K} ({} hosts; every switch keeps a route table with one entry per node)",
                        MAX_FAT_TREE_K.pow(3) / 4
                    ),
                ))
            }
            _ => {
                return Err(ScenarioError::new(
                    "fat_tree.k",
                    format!("must be an even integer >= 2 (the switches' port count), got {v}"),
                ))
            }
        },
    };
    #[derive(PartialEq)]
    enum Traffic {
        None,
        Permutation,
        AllToAll,
    }
    let traffic = match &traffic {
        None => Traffic::None,
        Some(Value::String(s)) if s == "none" => Traffic::None,
        Some(Value::String(s)) if s == "permutation" => Traffic::Permutation,
        Some(Value::String(s)) if s == "all_to_all" => Traffic::AllToAll,
        Some(v) => {
            return Err(ScenarioError::new(
                "fat_tree.traffic",
                format!("must be \"none\", \"permutation\" or \"all_to_all\", got {v}"),
            ))
        }
    };
    let perm_seed = match perm_seed {
        None => 1,
        Some(v) => v.as_u64().ok_or_else(|| {
            ScenarioError::new(
                "fat_tree.permutation_seed",
                format!("must be a non-negative integer, got {v}"),
            )
        })?,
    };
    let half = k / 2;
    let n_hosts = k * k * k / 4;
    let per_pod = half * half;
    let n_core = half * half;
    if traffic == Traffic::AllToAll {
        let flows = (n_hosts as u64) * (n_hosts as u64 - 1);
        if flows > MAX_ALL_TO_ALL_FLOWS {
            return Err(ScenarioError::new(
                "fat_tree.traffic",
                format!(
                    "\"all_to_all\" with k = {k} is {n_hosts} x {} = {flows} flows; at most \
                     {MAX_ALL_TO_ALL_FLOWS} (use \"permutation\", or write the flows you need)",
                    n_hosts - 1
                ),
            ));
        }
    }
    let hw = digits(n_hosts as u64 - 1);
    let pw = digits(k as u64 - 1);
    let iw = digits(half as u64 - 1);
    let cw = digits(n_core as u64 - 1);
    let host = |n: usize| format!("h{n:0hw$}");
    let edge = |p: usize, i: usize| format!("edge{p:0pw$}_{i:0iw$}");
    let agg = |p: usize, j: usize| format!("agg{p:0pw$}_{j:0iw$}");
    let core = |c: usize| format!("core{c:0cw$}");

    // Link fields per tier (`link` under the tier's own table), its buffer, delays.
    let mut entries = Vec::new();
    let mut rtt = 0;
    for (name, tbl) in &tiers {
        let mut e = link_entry(
            &[(&link, "fat_tree.link"), (tbl, &format!("fat_tree.{name}"))],
            None,
            &format!("fat_tree.{name}"),
        )?;
        let buffer = e.map.remove("buffer").map(|b| (b, e.origin_of("buffer")));
        rate_of(&e, d, &format!("fat_tree.{name}"))?;
        let (f, r) = delays_of(&e, d)?;
        // The longest path (between pods) crosses each tier twice each way.
        rtt += 2 * (f + r);
        entries.push((*name, e, buffer));
    }
    for p in 0..k {
        for i in 0..half {
            g.put_node(&edge(p, i), "router", "fat_tree");
            g.put_node(&agg(p, i), "router", "fat_tree");
        }
    }
    for c in 0..n_core {
        g.put_node(&core(c), "router", "fat_tree");
    }
    for n in 0..n_hosts {
        g.put_node(&host(n), "host", "fat_tree");
    }
    for (name, e, buffer) in &entries {
        let buffer = buffer.as_ref().map(|(b, at)| (b, at.as_str(), rtt));
        let table = format!("fat_tree.{name}");
        match *name {
            "access" => {
                for n in 0..n_hosts {
                    let (p, i) = (n / per_pod, n % per_pod / half);
                    let h = host(n);
                    put_duplex(g, d, &h, e.clone(), &h, &edge(p, i), buffer, &table)?;
                }
            }
            "aggregation" => {
                for p in 0..k {
                    for i in 0..half {
                        for j in 0..half {
                            let (a, b) = (edge(p, i), agg(p, j));
                            let n = format!("{a}-{b}");
                            put_duplex(g, d, &n, e.clone(), &a, &b, buffer, &table)?;
                        }
                    }
                }
            }
            _ => {
                for p in 0..k {
                    for j in 0..half {
                        for m in 0..half {
                            let (a, b) = (agg(p, j), core(j * half + m));
                            let n = format!("{a}-{b}");
                            put_duplex(g, d, &n, e.clone(), &a, &b, buffer, &table)?;
                        }
                    }
                }
            }
        }
    }
    let mut routing = Obj::new();
    routing.insert("ecmp".into(), Value::String("destination".into()));
    g.routing = Some(routing);

    let flow = |g: &mut Gen, name: String, a: usize, b: usize| {
        let mut e = Entry::new("fat_tree.traffic");
        e.set("from", Value::String(host(a)), "fat_tree.traffic");
        e.set("to", Value::String(host(b)), "fat_tree.traffic");
        g.put_flow(&name, e)
    };
    match traffic {
        Traffic::None => {}
        Traffic::Permutation => {
            for (a, b) in derangement(n_hosts, perm_seed).into_iter().enumerate() {
                flow(g, format!("f{a:0hw$}"), a, b)?;
            }
        }
        Traffic::AllToAll => {
            for a in 0..n_hosts {
                for b in (0..n_hosts).filter(|&b| b != a) {
                    flow(g, format!("f{a:0hw$}_{b:0hw$}"), a, b)?;
                }
            }
        }
    }
    Ok(())
}

/// A uniformly random permutation of 0..n without fixed points (n >= 2): Fisher-Yates
/// shuffles from the stream (seed, topology, 0) until one has none (about e tries).
pub(crate) fn derangement(n: usize, seed: u64) -> Vec<usize> {
    crate::rng::SimRng::derive(seed, crate::rng::Stream::Topology, 0).derangement(n)
}

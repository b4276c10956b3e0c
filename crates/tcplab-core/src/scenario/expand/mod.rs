//! Expansion of a scenario document before validation: `[defaults]`, duplex link entries
//! (`duplex = true`) and the topology builders `[dumbbell]` and `[parking_lot]` become
//! plain nodes, link directions and flows.
//!
//! It happens once, here, on the parsed document (a JSON value with sorted keys), before
//! the strict deserialization into [`Scenario`](super::Scenario): the CLI, Python, sweeps
//! and `tcplab expand` all see the same plain scenario, and it is validated exactly as a
//! hand-written one would be. The order:
//!
//! 1. the builder (at most one) generates nodes, link directions and flows;
//! 2. explicit `[links]` entries with `duplex = true` are split into their two directions;
//! 3. every other explicit `[nodes]`, `[links]`, `[flows]` entry whose name was generated in
//!    1 or 2 is merged **over** the generated one (its keys win, tables merge key by key) —
//!    this is how `--set links.bn.rate=5Mbps` changes a generated link; it may not change
//!    the endpoints (`from`, `to`);
//! 4. `[defaults.links]` and `[defaults.flows]` are merged **under** every link direction
//!    and flow (the entry's own keys win).
//!
//! Merging is key by key and recursive for tables, except that two tables naming different
//! variants (`type`, `algorithm` or `model`) do not mix: the winner's table is taken whole.
//!
//! Every value that did not come from the same place in the file records where it came
//! from ([`Origins`]), so a validation error on `links.bn_rev.queue.limit` names
//! `dumbbell.bottleneck.buffer`, and one on `flows.f3.cc` names `defaults.flows.cc`.

mod builders;

use super::units::{parse_duration, parse_rate};
use super::ScenarioError;
use crate::config::profile::Profile;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(crate) type Obj = Map<String, Value>;

/// Where the values of an expanded scenario came from: expanded path → source path. An
/// error's field is renamed by its longest recorded prefix.
#[derive(Clone, Debug, Default)]
pub struct Origins(
    BTreeMap<String, String>,
    std::collections::BTreeSet<String>,
    /// Values of [`WRITTEN_FLOW_KEYS`] that the `classic` profile filled in: not written.
    std::collections::BTreeSet<String>,
);

/// The origin recorded for a key the default profile wrote (the file names no profile at
/// its top): a profile's key for [`Origins::from_profile`], but not a place in the file, so
/// [`Origins::locate`] leaves an error about it at the expanded path.
const DEFAULT_PROFILE: &str = "(the default profile)";

/// Flow keys whose presence is recorded ([`Origins::written`]): the run's warnings about
/// defaults that today's algorithms do not expect keep quiet where a value was given.
const WRITTEN_FLOW_KEYS: [&str; 2] = ["sack", "init_cwnd"];

impl Origins {
    /// Whether the expanded scenario has a value at `path` (one of `flows.NAME.sack`,
    /// `flows.NAME.init_cwnd`) that the file gave: on the flow, in `[defaults.flows]`, a
    /// builder's table, an override or a profile other than `classic` (which writes the
    /// built-in defaults).
    pub fn written(&self, path: &str) -> bool {
        self.1.contains(path)
    }

    fn set(&mut self, at: String, from: String) {
        self.0.insert(at, from);
    }

    /// Whether the value at `path` (an expanded path such as `flows.f1.prr`) was filled in
    /// by a flow's `profile` rather than written by the user (on the entry, in
    /// `[defaults.flows]` or in a builder's table).
    pub fn from_profile(&self, path: &str) -> bool {
        self.0
            .get(path)
            .is_some_and(|o| o == "profile" || o.ends_with(".profile") || o == DEFAULT_PROFILE)
    }

    /// Rename `e.field` to the place in the file the value came from (the expanded path is
    /// kept in the reason). Fields nothing was recorded for are returned as they are.
    pub fn locate(&self, e: ScenarioError) -> ScenarioError {
        if self.0.is_empty() || e.field.is_empty() {
            return e;
        }
        let f = e.field.as_str();
        let best = self
            .0
            .iter()
            .filter(|(k, v)| {
                v.as_str() != DEFAULT_PROFILE
                    && (f == k.as_str()
                        || (f.starts_with(k.as_str())
                            && matches!(f.as_bytes()[k.len()], b'.' | b'[')))
            })
            .max_by_key(|(k, _)| k.len());
        match best {
            Some((k, v)) if k != v => {
                let rest = &f[k.len()..];
                ScenarioError::new(
                    format!("{v}{rest}"),
                    format!("{} (in the expanded scenario: {f})", e.reason),
                )
            }
            _ => e,
        }
    }
}

/// A scenario document after expansion, and where its values came from.
pub struct Expanded {
    pub doc: Value,
    pub origins: Origins,
}

/// Keys of a link entry that only a duplex entry (or a builder's link table) has.
const DUPLEX_KEYS: [&str; 3] = ["duplex", "reverse", "reverse_rate"];
/// Keys that choose the variant of a tagged table.
const TAGS: [&str; 3] = ["type", "algorithm", "model"];

/// Expand `doc` (the parsed scenario file). A document that is not a table is returned as
/// it is (deserialization reports it).
pub fn expand(mut doc: Value) -> Result<Expanded, ScenarioError> {
    let mut origins = Origins::default();
    let Value::Object(top) = &mut doc else {
        return Ok(Expanded { doc, origins });
    };
    let mut defaults = Defaults::parse(top.remove("defaults"))?;
    // The profiles named for many components at once (docs/scenarios.md, "Profiles").
    // A scenario that names no profile at the top gets the default one (`linux`) there: the
    // weakest place, so [defaults.*], a component's own profile and its keys all beat it.
    let top_profile = named_profile(top.remove("profile"), "profile".into())?
        .or(Some((Profile::DEFAULT, DEFAULT_PROFILE.into())));
    let flows_profile = named_profile(
        defaults.flows.remove("profile"),
        "defaults.flows.profile".into(),
    )?;
    let links_profile = named_profile(
        defaults.links.remove("profile"),
        "defaults.links.profile".into(),
    )?;
    let mut gen = Gen::default();
    let mut builder: Option<(&str, Value)> = None;
    for name in ["dumbbell", "fat_tree", "parking_lot"] {
        if let Some(v) = top.remove(name) {
            if let Some((first, _)) = builder {
                return Err(ScenarioError::new(
                    name,
                    format!(
                        "one topology builder per scenario: give [{first}] or [{name}], not both"
                    ),
                ));
            }
            builder = Some((name, v));
        }
    }
    match builder {
        Some(("dumbbell", v)) => builders::dumbbell(v, &defaults, &mut gen)?,
        Some(("parking_lot", v)) => builders::parking_lot(v, &defaults, &mut gen)?,
        Some((_, v)) => builders::fat_tree(v, &defaults, &mut gen)?,
        None => {}
    }
    // Routing a builder asks for, under the file's own `[routing]` keys.
    if let Some(r) = gen.routing.take() {
        match top.get_mut("routing") {
            Some(Value::Object(own)) => {
                for (k, v) in r {
                    if !own.contains_key(&k) {
                        gen.origins.set(
                            format!("routing.{k}"),
                            gen.by.trim_matches(['[', ']']).to_string(),
                        );
                        own.insert(k, v);
                    }
                }
            }
            Some(_) => {} // deserialization names the problem
            None => {
                for k in r.keys() {
                    gen.origins.set(
                        format!("routing.{k}"),
                        gen.by.trim_matches(['[', ']']).to_string(),
                    );
                }
                top.insert("routing".into(), Value::Object(r));
            }
        }
    }
    // Explicit duplex link entries: split into their two directions (generated too).
    let mut explicit_links = match top.remove("links") {
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            top.insert("links".into(), other); // deserialization names the problem
            None
        }
        None => None,
    };
    if let Some(links) = explicit_links.as_mut() {
        let duplex: Vec<String> = links
            .iter()
            .filter(|(_, v)| {
                v.as_object()
                    .is_some_and(|o| DUPLEX_KEYS.iter().any(|k| o.contains_key(*k)))
            })
            .map(|(k, _)| k.clone())
            .collect();
        for name in duplex {
            let Some(Value::Object(map)) = links.remove(&name) else {
                unreachable!("filtered on objects")
            };
            let path = format!("links.{name}");
            if let Some(other) = gen.generator(&name) {
                return Err(ScenarioError::new(
                    path,
                    format!(
                        "the name '{name}' is generated by {other}; a duplex entry needs a \
                         name of its own"
                    ),
                ));
            }
            let origin = map
                .keys()
                .map(|k| (k.clone(), format!("{path}.{k}")))
                .collect();
            let e = Entry { map, origin, path };
            let duplex = match e.map.get("duplex") {
                None => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(ScenarioError::new(
                        format!("{}.duplex", e.path),
                        "must be true or false",
                    ))
                }
            };
            if !duplex {
                if let Some(k) = ["reverse", "reverse_rate"]
                    .into_iter()
                    .find(|k| e.map.contains_key(*k))
                {
                    return Err(ScenarioError::new(
                        format!("{}.{k}", e.path),
                        "needs duplex = true (a reverse direction only exists on a duplex link)",
                    ));
                }
                let mut e = e;
                e.map.remove("duplex");
                links.insert(name, Value::Object(e.map));
                continue;
            }
            let by = format!("links.{name} (duplex)");
            for (n, d) in split(&name, e, true)? {
                if let Some(other) = gen.generator(&n) {
                    return Err(ScenarioError::new(
                        format!("links.{name}.reverse.name"),
                        format!("the reverse direction's name '{n}' is generated by {other}"),
                    ));
                }
                gen.put_link(&n, d)?;
                gen.link_by.insert(n, by.clone());
            }
        }
    }
    // Explicit entries over generated ones.
    for section in ["nodes", "links", "flows"] {
        let explicit = if section == "links" {
            explicit_links.take().map(Value::Object)
        } else {
            top.remove(section)
        };
        let generated = std::mem::take(gen.section(section));
        let merged = match explicit {
            None if generated.is_empty() => continue,
            None => generated,
            Some(Value::Object(ex)) => {
                let mut out = generated;
                for (name, v) in ex {
                    let path = format!("{section}.{name}");
                    match out.get_mut(&name) {
                        Some(base) => {
                            check_endpoints(section, &name, base, &v, &gen)?;
                            merge_over(base, v, &path, &mut gen.origins);
                        }
                        None => {
                            out.insert(name, v);
                        }
                    }
                }
                out
            }
            Some(other) => {
                if !generated.is_empty() {
                    return Err(ScenarioError::new(section, "must be a table"));
                }
                top.insert(section.into(), other);
                continue;
            }
        };
        top.insert(section.into(), Value::Object(merged));
    }
    // Defaults under every link direction and flow, and the profile of each component:
    // its own (taken before [defaults] fills in, so that it beats [defaults] keys), else
    // the one of [defaults.*], else the scenario's.
    let outer = Outer {
        flows: flows_profile,
        links: links_profile,
        top: top_profile,
    };
    for (section, dflt) in [("links", &defaults.links), ("flows", &defaults.flows)] {
        let mut used = std::collections::BTreeSet::new();
        if let Some(Value::Object(entries)) = top.get_mut(section) {
            for e in entries.values() {
                if let Value::Object(e) = e {
                    used.extend(dflt.keys().filter(|k| !e.contains_key(*k)).cloned());
                }
            }
        }
        check_unused_defaults(section, dflt, &used)?;
        let Some(Value::Object(entries)) = top.get_mut(section) else {
            continue;
        };
        for (name, e) in entries.iter_mut() {
            let Value::Object(e) = e else { continue };
            let path = format!("{section}.{name}");
            let sub = if section == "flows" { "app" } else { "queue" };
            let own = take_profile(e, &path, &gen.origins)?;
            let own_sub = match e.get_mut(sub) {
                Some(Value::Object(t)) => take_profile(t, &format!("{path}.{sub}"), &gen.origins)?,
                _ => None,
            };
            let own_err = match e.get_mut("error").filter(|_| section == "links") {
                Some(Value::Object(t)) => take_profile(t, &format!("{path}.error"), &gen.origins)?,
                _ => None,
            };
            if !dflt.is_empty() {
                fill_under(
                    e,
                    dflt,
                    &path,
                    &format!("defaults.{section}"),
                    &mut gen.origins,
                );
            }
            // A profile in [defaults.flows.app] or [defaults.links.queue] came in with the
            // table: it ranks with [defaults].
            let dflt_sub = match e.get_mut(sub) {
                Some(Value::Object(t)) => take_profile(t, &format!("{path}.{sub}"), &gen.origins)?,
                _ => None,
            };
            let dflt_err = match e.get_mut("error").filter(|_| section == "links") {
                Some(Value::Object(t)) => take_profile(t, &format!("{path}.error"), &gen.origins)?,
                _ => None,
            };
            if section == "flows" {
                resolve_flow(e, &path, own, own_sub, dflt_sub, &outer, &mut gen.origins)?;
            } else {
                // A link entry's own profile is its queue's, under the queue table's own.
                let own_q = own_sub.or(own.clone());
                resolve_queue(e, &path, own_q, dflt_sub, &outer, &mut gen.origins)?;
                // And its error model's, under the error table's own.
                let own_e = own_err.or(own);
                resolve_error(e, &path, own_e, dflt_err, &outer, &mut gen.origins)?;
            }
        }
    }
    // A workload's `flow` table is a flow without endpoints or application: defaults and
    // profiles reach it as they reach a flow (placeholders stand in for the missing keys
    // while the profile hooks read it).
    if let Some(Value::Object(ws)) = top.get_mut("workloads") {
        for (name, w) in ws.iter_mut() {
            let Value::Object(w) = w else { continue };
            let path = format!("workloads.{name}.flow");
            let slot = w.entry("flow").or_insert_with(|| Value::Object(Obj::new()));
            let Value::Object(e) = slot else { continue };
            let placeholders: Vec<&str> = ["from", "to", "app"]
                .into_iter()
                .filter(|k| !e.contains_key(*k))
                .collect();
            for k in &placeholders {
                let v = match *k {
                    "app" => serde_json::json!({ "type": "transfer", "bytes": 1 }),
                    _ => Value::String(String::new()),
                };
                e.insert(k.to_string(), v);
            }
            let own = take_profile(e, &path, &gen.origins)?;
            if !defaults.flows.is_empty() {
                fill_under(
                    e,
                    &defaults.flows,
                    &path,
                    "defaults.flows",
                    &mut gen.origins,
                );
            }
            resolve_flow(e, &path, own, None, None, &outer, &mut gen.origins)?;
            for k in placeholders {
                e.remove(k);
            }
        }
    }
    origins.0.append(&mut gen.origins.0);
    if let Some(Value::Object(flows)) = doc.get("flows") {
        for (name, f) in flows {
            for k in WRITTEN_FLOW_KEYS {
                let at = format!("flows.{name}.{k}");
                if f.get(k).is_some() && !gen.origins.2.contains(&at) {
                    origins.1.insert(at);
                }
            }
        }
    }
    Ok(Expanded { doc, origins })
}

/// `[defaults.flows]` / `[defaults.links]` keys that no entry takes (every entry sets its
/// own, or there is none) are still checked, so that a mistake there is not silently
/// accepted (`--set defaults.flows.cc=nosuch` where every flow names its `cc`): each such
/// key alone, on an otherwise minimal flow or link, must deserialize. Tables are left out:
/// a default table may be partial, completed by the entries it merges under.
fn check_unused_defaults(
    section: &str,
    dflt: &Obj,
    used: &std::collections::BTreeSet<String>,
) -> Result<(), ScenarioError> {
    for (k, v) in dflt {
        if used.contains(k) || v.is_object() {
            continue;
        }
        let mut probe = Obj::new();
        probe.insert("from".into(), Value::from("a"));
        probe.insert("to".into(), Value::from("b"));
        if section == "links" && k != "rate" {
            probe.insert("rate".into(), Value::from("1Mbps"));
        }
        probe.insert(k.clone(), v.clone());
        let probe = Value::Object(probe);
        let err = if section == "flows" {
            serde_path_to_error::deserialize::<_, super::FlowSpec>(probe)
                .err()
                .map(super::path_error)
        } else {
            serde_path_to_error::deserialize::<_, super::LinkSpec>(probe)
                .err()
                .map(super::path_error)
        };
        if let Some(e) = err {
            let field = if e.field.is_empty() {
                k.clone()
            } else {
                e.field
            };
            return Err(ScenarioError::new(
                format!("defaults.{section}.{field}"),
                e.reason,
            ));
        }
    }
    Ok(())
}

// ---- profiles ----------------------------------------------------------------------------

/// A profile and the field that named it (where its keys' errors are reported).
type Named = Option<(Profile, String)>;

/// The profiles named for many components: `[defaults.flows]`, `[defaults.links]`, the
/// scenario's own.
struct Outer {
    flows: Named,
    links: Named,
    top: Named,
}

/// The profile a value names (`field`: where it was written).
fn named_profile(v: Option<Value>, field: String) -> Result<Named, ScenarioError> {
    match v {
        None => Ok(None),
        Some(v) => Ok(Some((Profile::from_value(&v, &field)?, field))),
    }
}

/// Remove a table's `profile` key and say which profile it names, reported where the
/// value came from.
fn take_profile(t: &mut Obj, path: &str, origins: &Origins) -> Result<Named, ScenarioError> {
    let at = format!("{path}.profile");
    let field = origins.0.get(&at).cloned().unwrap_or(at);
    named_profile(t.remove("profile"), field)
}

/// The table in `slot`, a name alone (`cc = "vegas"`) becoming a table with `tag`.
fn table_of<'a>(slot: &'a mut Value, tag: &str) -> Option<&'a mut Obj> {
    if let Value::String(name) = slot {
        let mut t = Obj::new();
        t.insert(tag.into(), Value::String(std::mem::take(name)));
        *slot = Value::Object(t);
    }
    slot.as_object_mut()
}

/// Whether the value at `at` came from `[defaults.*]`.
fn from_defaults(origins: &Origins, at: &str) -> bool {
    origins
        .0
        .get(at)
        .is_some_and(|o| o.starts_with("defaults."))
}

/// Write a profile's `keys` (dotted paths under `t`, which is at `path`) where `t` does not
/// set them; `strong` (the component's own profile): also over values from `[defaults]`.
fn fill_keys(
    t: &mut Obj,
    keys: Vec<(String, Value)>,
    path: &str,
    field: &str,
    strong: bool,
    origins: &mut Origins,
) {
    for (k, v) in keys {
        let at = format!("{path}.{k}");
        let (obj, leaf) = match k.split_once('.') {
            None => (&mut *t, k.as_str()),
            Some((sub, leaf)) => {
                let tag = if sub == "cc" { "algorithm" } else { "type" };
                match t.get_mut(sub).and_then(|s| table_of(s, tag)) {
                    Some(o) => (o, leaf),
                    None => continue,
                }
            }
        };
        if !obj.contains_key(leaf) || (strong && from_defaults(origins, &at)) {
            obj.insert(leaf.to_string(), v);
            origins.set(at, field.to_string());
        }
    }
}

/// A flow's profile (its own, else `[defaults.flows]`'s, else the scenario's) and its
/// application's (its own, else one from `[defaults.flows.app]`, else the flow's): the
/// keys each hook returns for the flow as written.
fn resolve_flow(
    e: &mut Obj,
    path: &str,
    own: Named,
    own_app: Named,
    dflt_app: Named,
    outer: &Outer,
    origins: &mut Origins,
) -> Result<(), ScenarioError> {
    let strong = own.is_some();
    let flow = own
        .or_else(|| outer.flows.clone())
        .or_else(|| outer.top.clone());
    if let Some((p, _)) = &flow {
        if strong {
            // The flow's own profile beats [defaults.flows] on the keys of its table.
            for k in super::profiles::table_keys(*p) {
                if from_defaults(origins, &format!("{path}.{k}")) {
                    e.remove(k);
                }
            }
        }
    }
    // The hooks read the flow as written; one that does not deserialize gets no profile
    // keys, and the strict deserialization after expansion names what is wrong.
    let Ok(spec) = serde_json::from_value::<super::FlowSpec>(Value::Object(e.clone())) else {
        return Ok(());
    };
    if let Some((p, field)) = &flow {
        let keys = super::profiles::flow_keys(*p, &spec, &|k| e.contains_key(k));
        let before: Vec<bool> = WRITTEN_FLOW_KEYS
            .iter()
            .map(|k| e.contains_key(*k))
            .collect();
        fill_keys(e, keys, path, field, strong, origins);
        if *p == Profile::Classic {
            // `classic` writes tcplab's old defaults: the warnings about them still speak.
            for (k, had) in WRITTEN_FLOW_KEYS.iter().zip(before) {
                if !had && e.contains_key(*k) {
                    origins.2.insert(format!("{path}.{k}"));
                }
            }
        }
    }
    let app_strong = own_app.is_some() || (dflt_app.is_none() && strong);
    if let Some((p, field)) = own_app.or(dflt_app).or(flow) {
        let keys = spec.app.profile_keys(p);
        if !keys.is_empty() {
            if let Some(app) = e.get_mut("app").and_then(|a| table_of(a, "type")) {
                let keys = keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                fill_keys(
                    app,
                    keys,
                    &format!("{path}.app"),
                    &field,
                    app_strong,
                    origins,
                );
            }
        }
    }
    Ok(())
}

/// A link direction's queue profile: the queue table's own (or the link entry's), else one
/// from `[defaults.links.queue]`, else `[defaults.links]`'s, else the scenario's.
fn resolve_queue(
    e: &mut Obj,
    path: &str,
    own: Named,
    dflt: Named,
    outer: &Outer,
    origins: &mut Origins,
) -> Result<(), ScenarioError> {
    let strong = own.is_some();
    let Some((p, field)) = link_profile(own, dflt, outer) else {
        return Ok(());
    };
    if !e.contains_key("queue") {
        // The default drop-tail queue, written out where the profile changes it.
        let dflt = crate::queue::QueueSpec::default();
        if dflt.profile_keys(p).is_empty() {
            return Ok(());
        }
        let mut t = Obj::new();
        t.insert("type".into(), Value::from("droptail"));
        e.insert("queue".into(), Value::Object(t));
    }
    let Some(q) = e.get_mut("queue") else {
        return Ok(());
    };
    fill_component::<crate::queue::QueueSpec, _>(
        q,
        "type",
        |s| s.profile_keys(p),
        &format!("{path}.queue"),
        &field,
        strong,
        origins,
    );
    Ok(())
}

/// Write the keys `keys` gives for the component in `slot` (deserialized as `T`; `tag`
/// names a bare name's variant) where its table does not set them. A component that does
/// not deserialize gets none: the strict deserialization after expansion names it.
fn fill_component<T: serde::de::DeserializeOwned, K: ToString>(
    slot: &mut Value,
    tag: &str,
    keys: impl Fn(&T) -> Vec<(K, Value)>,
    at: &str,
    field: &str,
    strong: bool,
    origins: &mut Origins,
) {
    let Ok(spec) = serde_json::from_value::<T>(slot.clone()) else {
        return;
    };
    let keys: Vec<(String, Value)> = keys(&spec)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    if keys.is_empty() {
        return;
    }
    if let Some(t) = table_of(slot, tag) {
        fill_keys(t, keys, at, field, strong, origins);
    }
}

/// The profile of a link direction's component: its own (the component table's, else the
/// link entry's), else one from its `[defaults.links.*]` table, else `[defaults.links]`'s,
/// else the scenario's.
fn link_profile(own: Named, dflt: Named, outer: &Outer) -> Named {
    own.or(dflt)
        .or_else(|| outer.links.clone())
        .or_else(|| outer.top.clone())
}

/// A link direction's error-model profile: the error table's own (or the link entry's),
/// else one from `[defaults.links.error]`, else `[defaults.links]`'s, else the scenario's.
/// `loss = p` is short for the Bernoulli model, so a profile that places error models
/// (`ns2`: before the queue) writes it out as `error = { model = "bernoulli", p, ... }`;
/// a `loss` that is not a probability stays for the link's own check to name.
fn resolve_error(
    e: &mut Obj,
    path: &str,
    own: Named,
    dflt: Named,
    outer: &Outer,
    origins: &mut Origins,
) -> Result<(), ScenarioError> {
    let strong = own.is_some();
    let Some((p, field)) = link_profile(own, dflt, outer) else {
        return Ok(());
    };
    if !e.contains_key("error") {
        let Some(loss) = e.get("loss").and_then(Value::as_f64) else {
            return Ok(());
        };
        if !(loss > 0.0 && loss < 1.0) {
            return Ok(());
        }
        let mut t = Obj::new();
        t.insert("model".into(), Value::from("bernoulli"));
        t.insert("p".into(), Value::from(loss));
        let spec = crate::net::error::ErrorSpec::Bernoulli(crate::net::error::BernoulliSpec {
            p: loss,
            placement: Default::default(),
        });
        if spec.profile_keys(p).is_empty() {
            return Ok(());
        }
        let from = origins.0.get(&format!("{path}.loss")).cloned();
        e.remove("loss");
        e.insert("error".into(), Value::Object(t));
        for k in ["error.model", "error.p"] {
            let at = format!("{path}.{k}");
            match &from {
                Some(o) => origins.set(at, o.clone()),
                None => origins.set(at, format!("{path}.loss")),
            }
        }
    }
    let Some(err) = e.get_mut("error") else {
        return Ok(());
    };
    fill_component::<crate::net::error::ErrorSpec, _>(
        err,
        "model",
        |s| s.profile_keys(p),
        &format!("{path}.error"),
        &field,
        strong,
        origins,
    );
    Ok(())
}

/// An explicit entry named like a generated one may change its fields, not its endpoints.
fn check_endpoints(
    section: &str,
    name: &str,
    base: &Value,
    over: &Value,
    gen: &Gen,
) -> Result<(), ScenarioError> {
    if section == "nodes" {
        return Ok(());
    }
    let (Value::Object(b), Value::Object(o)) = (base, over) else {
        return Ok(());
    };
    for k in ["from", "to"] {
        if let (Some(bv), Some(ov)) = (b.get(k), o.get(k)) {
            if bv != ov {
                let by = match section {
                    "links" => gen.link_by.get(name).unwrap_or(&gen.by),
                    _ => &gen.by,
                };
                return Err(ScenarioError::new(
                    format!("{section}.{name}.{k}"),
                    format!(
                        "'{name}' is generated by {by} with {k} = {bv}; an entry of the same \
                         name may change its other fields, not its endpoints (give the new \
                         one another name)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `[defaults]`: `flows` and `links` tables.
#[derive(Default)]
pub(crate) struct Defaults {
    pub flows: Obj,
    pub links: Obj,
}

impl Defaults {
    fn parse(v: Option<Value>) -> Result<Self, ScenarioError> {
        let mut d = Defaults::default();
        let Some(v) = v else { return Ok(d) };
        let Value::Object(m) = v else {
            return Err(ScenarioError::new(
                "defaults",
                "must be a table with `flows` and/or `links` sub-tables",
            ));
        };
        for (k, v) in m {
            let slot = match k.as_str() {
                "flows" => &mut d.flows,
                "links" => &mut d.links,
                _ => {
                    return Err(ScenarioError::new(
                        format!("defaults.{k}"),
                        "unknown table (known: flows, links)",
                    ))
                }
            };
            let Value::Object(t) = v else {
                return Err(ScenarioError::new(
                    format!("defaults.{k}"),
                    "must be a table",
                ));
            };
            *slot = t;
        }
        if let Some(k) = DUPLEX_KEYS.iter().find(|k| d.links.contains_key(**k)) {
            return Err(ScenarioError::new(
                format!("defaults.links.{k}"),
                "cannot be a default: duplex entries are split before defaults apply; give it \
                 on the link entry",
            ));
        }
        Ok(d)
    }
}

/// What the builder and the duplex entries generated.
#[derive(Default)]
pub(crate) struct Gen {
    pub nodes: Obj,
    pub links: Obj,
    pub flows: Obj,
    pub origins: Origins,
    /// The builder's table name, for messages ("[dumbbell]").
    pub by: String,
    /// `[routing]` keys the builder sets unless the file gives them.
    pub routing: Option<Obj>,
    /// Link name → what generated it, for duplex entries.
    link_by: BTreeMap<String, String>,
}

impl Gen {
    /// What generated link `name`, if anything did.
    fn generator(&self, name: &str) -> Option<String> {
        if !self.links.contains_key(name) {
            return None;
        }
        Some(self.link_by.get(name).unwrap_or(&self.by).clone())
    }

    fn section(&mut self, s: &str) -> &mut Obj {
        match s {
            "nodes" => &mut self.nodes,
            "links" => &mut self.links,
            _ => &mut self.flows,
        }
    }

    pub(crate) fn put_node(&mut self, name: &str, kind: &str, origin: &str) {
        self.nodes.insert(name.into(), Value::String(kind.into()));
        self.origins.set(format!("nodes.{name}"), origin.into());
    }

    pub(crate) fn put_link(&mut self, name: &str, e: Entry) -> Result<(), ScenarioError> {
        self.put("links", name, e)
    }

    pub(crate) fn put_flow(&mut self, name: &str, e: Entry) -> Result<(), ScenarioError> {
        self.put("flows", name, e)
    }

    fn put(&mut self, section: &str, name: &str, e: Entry) -> Result<(), ScenarioError> {
        let at = format!("{section}.{name}");
        if self.section(section).contains_key(name) {
            return Err(ScenarioError::new(
                e.path,
                format!("generates '{at}', which is already generated"),
            ));
        }
        self.origins.set(at.clone(), e.path);
        for (k, from) in e.origin {
            // Keys of the entry, and nested ones such as "queue.limit" (not "reverse.*":
            // the reverse table is gone once the entry is split).
            let top = k.split('.').next().unwrap_or("");
            if top != "reverse" && e.map.contains_key(top) {
                self.origins.set(format!("{at}.{k}"), from);
            }
        }
        self.section(section)
            .insert(name.into(), Value::Object(e.map));
        Ok(())
    }
}

/// An entry being generated: its keys, where each came from, where the entry came from.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub map: Obj,
    /// key → source path ("reverse.KEY" for keys of the `reverse` sub-table).
    pub origin: BTreeMap<String, String>,
    pub path: String,
}

impl Entry {
    pub(crate) fn new(path: impl Into<String>) -> Self {
        Entry {
            map: Obj::new(),
            origin: BTreeMap::new(),
            path: path.into(),
        }
    }
    pub(crate) fn set(&mut self, k: &str, v: Value, from: impl Into<String>) {
        self.map.insert(k.into(), v);
        self.origin.insert(k.into(), from.into());
    }
    fn origin_of(&self, k: &str) -> String {
        self.origin
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("{}.{k}", self.path))
    }
}

/// A duplex entry → (forward name, forward direction), (reverse name, reverse direction).
/// The reverse direction is the forward one with `from` and `to` swapped, without `pcap`
/// (two directions cannot write one file), then `reverse_rate` and the `reverse` table's
/// keys merged over it. `allow_name`: whether `reverse.name` may rename it.
pub(crate) fn split(
    name: &str,
    mut fwd: Entry,
    allow_name: bool,
) -> Result<Vec<(String, Entry)>, ScenarioError> {
    fwd.map.remove("duplex");
    let rev_tbl = fwd.map.remove("reverse");
    let rev_rate = fwd.map.remove("reverse_rate");
    let rev_tbl_origin = fwd.origin_of("reverse");
    let rev_rate_origin = fwd.origin_of("reverse_rate");
    let mut rev = fwd.clone();
    rev.map.remove("pcap");
    let (f, t) = (rev.map.remove("from"), rev.map.remove("to"));
    let (fo, to) = (rev.origin_of("from"), rev.origin_of("to"));
    if let Some(t) = t {
        rev.set("from", t, to);
    }
    if let Some(f) = f {
        rev.set("to", f, fo);
    }
    let mut rev_name = format!("{name}_rev");
    let mut rev_has_rate = false;
    if let Some(tbl) = rev_tbl {
        let Value::Object(tbl) = tbl else {
            return Err(ScenarioError::new(
                rev_tbl_origin,
                "must be a table of the reverse direction's fields",
            ));
        };
        for (k, v) in tbl {
            let from = fwd
                .origin
                .get(&format!("reverse.{k}"))
                .cloned()
                .unwrap_or_else(|| format!("{rev_tbl_origin}.{k}"));
            match k.as_str() {
                "name" if allow_name => match v {
                    Value::String(s) if !s.is_empty() => rev_name = s,
                    _ => return Err(ScenarioError::new(from, "must be a link name")),
                },
                "name" => {
                    return Err(ScenarioError::new(
                        from,
                        "the builder names its links (see docs/scenarios.md)",
                    ))
                }
                "from" | "to" => {
                    return Err(ScenarioError::new(
                        from,
                        "the reverse direction runs between the same nodes, swapped",
                    ))
                }
                "duplex" | "reverse" | "reverse_rate" => {
                    return Err(ScenarioError::new(from, "not a field of a link direction"))
                }
                _ => {
                    rev_has_rate |= k == "rate";
                    match rev.map.get_mut(&k) {
                        Some(base) if same_variant(base, &v) => {
                            let mut o = Origins::default();
                            merge_over(base, v, "", &mut o);
                            // Nested keys from `reverse` keep the sub-table's origin.
                            rev.origin.insert(k.clone(), from);
                        }
                        _ => rev.set(&k, v, from),
                    }
                }
            }
        }
    }
    if let Some(r) = rev_rate {
        if rev_has_rate {
            return Err(ScenarioError::new(
                rev_rate_origin,
                "give reverse_rate or reverse.rate, not both",
            ));
        }
        rev.set("rate", r, rev_rate_origin);
    }
    if rev_name == name {
        return Err(ScenarioError::new(
            rev_tbl_origin + ".name",
            "the reverse direction needs a name of its own",
        ));
    }
    Ok(vec![(name.to_string(), fwd), (rev_name, rev)])
}

/// Whether two values may merge key by key: both tables, not naming different variants.
fn same_variant(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => TAGS.iter().all(|t| match (a.get(*t), b.get(*t)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }),
        _ => false,
    }
}

/// Merge `over` into `base`; `over`'s keys win. Keys it sets are recorded as coming from
/// their own place (`path.KEY`), which overrides an origin recorded for the generated value.
pub(crate) fn merge_over(base: &mut Value, over: Value, path: &str, origins: &mut Origins) {
    if !same_variant(base, &over) {
        if !path.is_empty() {
            origins.set(path.into(), path.into());
        }
        *base = over;
        return;
    }
    let (Value::Object(b), Value::Object(o)) = (base, over) else {
        unreachable!("same_variant is true only for tables")
    };
    for (k, v) in o {
        let p = if path.is_empty() {
            String::new()
        } else {
            format!("{path}.{k}")
        };
        match b.get_mut(&k) {
            Some(bv) => merge_over(bv, v, &p, origins),
            None => {
                if !p.is_empty() {
                    origins.set(p.clone(), p);
                }
                b.insert(k, v);
            }
        }
    }
}

/// Merge the defaults `dflt` (at `dpath`) under `entry` (at `path`): keys the entry lacks
/// are taken from the defaults.
fn fill_under(entry: &mut Obj, dflt: &Obj, path: &str, dpath: &str, origins: &mut Origins) {
    for (k, dv) in dflt {
        match entry.get_mut(k) {
            None => {
                entry.insert(k.clone(), dv.clone());
                origins.set(format!("{path}.{k}"), format!("{dpath}.{k}"));
            }
            Some(ev) if same_variant(ev, dv) => {
                let (Value::Object(e), Value::Object(d)) = (ev, dv) else {
                    unreachable!()
                };
                fill_under(
                    e,
                    d,
                    &format!("{path}.{k}"),
                    &format!("{dpath}.{k}"),
                    origins,
                );
            }
            Some(_) => {}
        }
    }
}

// ---- values ------------------------------------------------------------------------------

/// A duration field in picoseconds ("10ms" or 0).
pub(crate) fn duration_ps(v: &Value, field: &str) -> Result<u64, ScenarioError> {
    match v {
        Value::String(s) => parse_duration(s)
            .map(|d| d.0)
            .map_err(|m| ScenarioError::new(field, m)),
        Value::Number(n) if n.as_f64() == Some(0.0) => Ok(0),
        _ => Err(ScenarioError::new(
            field,
            format!("expected a duration such as \"10ms\", got {v}"),
        )),
    }
}

/// A rate field in bits per second ("10Mbps").
pub(crate) fn rate_bps(v: &Value, field: &str) -> Result<u64, ScenarioError> {
    match v {
        Value::String(s) => parse_rate(s)
            .map(|r| r.0)
            .map_err(|m| ScenarioError::new(field, m)),
        _ => Err(ScenarioError::new(
            field,
            format!("expected a rate such as \"10Mbps\", got {v}"),
        )),
    }
}

/// Picoseconds as the shortest exact duration text that parses back to the same value
/// ("9.5ms", "40ms", "1500ns", ...).
pub(crate) fn fmt_duration(ps: u64) -> String {
    if ps == 0 {
        return "0s".into();
    }
    const UNITS: [(&str, u64); 5] = [
        ("s", 1_000_000_000_000),
        ("ms", 1_000_000_000),
        ("us", 1_000_000),
        ("ns", 1_000),
        ("ps", 1),
    ];
    let mut best: Option<String> = None;
    for (name, per) in UNITS {
        if ps < per {
            continue;
        }
        let int = ps / per;
        let frac = ps % per;
        let text = if frac == 0 {
            format!("{int}{name}")
        } else {
            let w = per.ilog10() as usize;
            let f = format!("{frac:0w$}");
            format!("{int}.{}{name}", f.trim_end_matches('0'))
        };
        let exact = parse_duration(&text).is_ok_and(|d| d.0 == ps);
        if exact && best.as_ref().is_none_or(|b| text.len() < b.len()) {
            best = Some(text);
        }
    }
    best.unwrap_or_else(|| format!("{ps}ps"))
}

/// Decimal digits of `n` (the width numbered names are padded to).
pub(crate) fn digits(n: u64) -> usize {
    n.max(1).ilog10() as usize + 1
}

/// Add what expansion accepts to the schema of the plain [`Scenario`](super::Scenario):
/// `[defaults]`, `[dumbbell]`, `[parking_lot]`, the duplex keys of a link entry; and drop the
/// `required` lists that a builder or an override entry (`[links.bn] rate = ...` over a
/// generated link) makes untrue (`nodes`, `links`, a link's `from`/`to`/`rate`, a flow's
/// `from`/`to`): the schema accepts every valid file (validation still checks the rest).
pub(crate) fn patch_schema(schema: &mut Value) {
    use serde_json::json;
    if let Some(r) = schema.get_mut("required").and_then(Value::as_array_mut) {
        r.retain(|k| k == "duration");
    }
    for def in ["LinkSpec", "FlowSpec"] {
        if let Some(Value::Object(d)) = schema.pointer_mut(&format!("/$defs/{def}")) {
            d.remove("required");
        }
    }
    if let Some(Value::Object(p)) = schema.pointer_mut("/$defs/LinkSpec/properties") {
        p.insert("duplex".into(), json!({
            "description": "Also generate the reverse direction (to → from), named NAME_rev: the same fields (not pcap) with `reverse_rate` and the `reverse` table's keys over them.",
            "type": "boolean"
        }));
        p.insert("reverse_rate".into(), json!({
            "description": "Rate of the reverse direction of a duplex entry (short for reverse.rate).",
            "type": "string"
        }));
        p.insert("reverse".into(), json!({
            "description": "Fields of the reverse direction of a duplex entry that differ from the forward one, and `name` (default NAME_rev).",
            "type": "object",
            "properties": { "name": { "type": "string" } }
        }));
    }
    let link_table = |what: &str| {
        json!({
            "description": format!("{what}: link fields (rate, delay, queue, loss, error, backpressure, pcap, reverse_rate, reverse); a list gives one value per element"),
            "type": "object"
        })
    };
    let flow_groups = json!({
        "description": "Flow groups: a congestion-control name, or a table of flow fields plus count (default 1), name, direction (\"forward\" or \"reverse\") and, in a dumbbell, pair; a list gives one value per flow of the group",
        "type": "array",
        "items": { "anyOf": [
            { "type": "string" },
            { "type": "object", "properties": {
                "count": { "type": "integer", "minimum": 1 },
                "name": { "type": "string" },
                "direction": { "enum": ["forward", "reverse"] },
                "pair": { "anyOf": [
                    { "type": "integer", "minimum": 1 },
                    { "type": "array", "items": { "type": "integer", "minimum": 1 } }
                ] }
            } }
        ] }
    });
    let Some(Value::Object(p)) = schema.get_mut("properties") else {
        return;
    };
    p.insert("defaults".into(), json!({
        "description": "Fields merged under every flow and link direction (the entry's own keys win).",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "flows": { "$ref": "#/$defs/FlowSpec" },
            "links": { "$ref": "#/$defs/LinkSpec" }
        }
    }));
    p.insert("dumbbell".into(), json!({
        "description": "Dumbbell builder: hosts s1..sN and d1..dN, routers r1, r2; links sI, bn, dI and their _rev directions; flows f1..fM (docs/scenarios.md).",
        "type": "object",
        "additionalProperties": false,
        "required": ["bottleneck"],
        "properties": {
            "pairs": { "type": "integer", "minimum": 1 },
            "bottleneck": link_table("The bottleneck r1 → r2, plus buffer (100, \"100pkt\", \"150KB\" or \"1bdp\")"),
            "access": link_table("Every access link"),
            "left": link_table("Access links sI → r1 (over access)"),
            "right": link_table("Access links r2 → dI (over access)"),
            "rtt": {
                "description": "Propagation round-trip time per pair (one value or a list); sets the left access delays",
                "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "string" } }]
            },
            "flows": flow_groups.clone()
        }
    }));
    p.insert("fat_tree".into(), json!({
        "description": "Fat-tree builder (k-ary, Al-Fares et al. 2008): hosts h0..h(k³/4−1), switches edgeP_I, aggP_J, coreC; links hN, edgeP_I-aggP_J, aggP_J-coreC and their _rev directions; sets routing.ecmp = \"destination\" (docs/scenarios.md).",
        "type": "object",
        "additionalProperties": false,
        "required": ["k"],
        "properties": {
            "k": { "type": "integer", "minimum": 2, "maximum": builders::MAX_FAT_TREE_K, "multipleOf": 2 },
            "link": link_table("Every link, plus buffer"),
            "access": link_table("Host links hN (over link)"),
            "aggregation": link_table("Edge-aggregation links (over link)"),
            "core": link_table("Aggregation-core links (over link)"),
            "traffic": { "enum": ["none", "permutation", "all_to_all"] },
            "permutation_seed": { "type": "integer", "minimum": 0 }
        }
    }));
    p.insert("parking_lot".into(), json!({
        "description": "Parking-lot builder: routers r0..rK, hops hI (r(I-1) → rI); long flows s0 → d0, cross flows sI → dI per hop (docs/scenarios.md).",
        "type": "object",
        "additionalProperties": false,
        "required": ["hops", "link"],
        "properties": {
            "hops": { "type": "integer", "minimum": 1 },
            "link": link_table("Every hop, plus buffer"),
            "access": link_table("Every access link"),
            "flows": flow_groups.clone(),
            "cross": flow_groups
        }
    }));
}

#[cfg(test)]
mod tests;

//! PyO3 bindings: conversions and error mapping only. The Python package `tcplab` wraps
//! this private module (`tcplab._core`).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::ffi::c_str;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
mod parquet_out;

use std::path::PathBuf;
use std::time::Instant;
use tcplab_core::scenario::{Built, ScenarioError as CoreScenarioError};
use tcplab_core::stats::columns::ColRef;
use tcplab_core::time::{SimDuration, SimTime, PS_PER_NS};

// The class is `tcplab.ScenarioError` (module "tcplab", where the package re-exports it),
// so tracebacks, reprs and pickling name it the way users import it.
create_exception!(
    tcplab,
    ScenarioError,
    PyValueError,
    "A scenario field is invalid.\n\nargs = (message, field, reason); str() is the message \
     (\"field: reason\"); .field and .reason are args[1] and args[2]; .file is the scenario \
     file when known, else None."
);

/// Python-level members of ScenarioError: a readable str() and named views of the args.
const SCENARIO_ERROR_MEMBERS: &std::ffi::CStr = c_str!(
    r#"
def __str__(self):
    if len(self.args) == 3:
        return str(self.args[0])
    return ValueError.__str__(self)

def _field(self):
    return str(self.args[1] or "") if len(self.args) == 3 else ""

def _reason(self):
    return str(self.args[2] or "") if len(self.args) == 3 else ValueError.__str__(self)

field = property(_field, doc="Dotted path of the offending field ('' for file errors).")
reason = property(_reason, doc="What is wrong with it.")
"#
);

fn scenario_err(e: CoreScenarioError) -> PyErr {
    ScenarioError::new_err((e.to_string(), e.field, e.reason))
}

fn add_scenario_error(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let ty = py.get_type::<ScenarioError>();
    let members = PyModule::from_code(
        py,
        SCENARIO_ERROR_MEMBERS,
        c_str!("tcplab/_core/scenario_error.py"),
        c_str!("tcplab._core_scenario_error"),
    )?;
    ty.setattr("__str__", members.getattr("__str__")?)?;
    ty.setattr("field", members.getattr("field")?)?;
    ty.setattr("reason", members.getattr("reason")?)?;
    ty.setattr("file", py.None())?;
    m.add("ScenarioError", ty)
}

/// Check a scenario given as JSON text; raises ScenarioError.
#[pyfunction]
fn validate_json(text: &str) -> PyResult<()> {
    tcplab_core::load_json(text, None)
        .map(|_| ())
        .map_err(scenario_err)
}

/// Check a scenario given as TOML text; raises ScenarioError.
#[pyfunction]
fn validate_toml(text: &str) -> PyResult<()> {
    tcplab_core::load_toml(text, None)
        .map(|_| ())
        .map_err(scenario_err)
}

/// The plain scenario a scenario (JSON text) expands to: builders, duplex links and
/// defaults replaced by what they generate, as JSON text with sorted keys. The result is
/// validated; raises ScenarioError.
#[pyfunction]
fn expand_json(text: &str) -> PyResult<String> {
    let doc = tcplab_core::scenario::expand_json(text).map_err(scenario_err)?;
    Ok(doc.to_string())
}

/// JSON Schema of scenario files.
#[pyfunction]
fn json_schema() -> String {
    tcplab_core::scenario::json_schema()
}

/// The column registry: table name -> list of {name, type, unit, doc} in column order
/// (type: "f64", "u64", "u32" or "str").
#[pyfunction]
fn columns(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for (table, defs) in tcplab_core::stats::columns::registry() {
        let list = defs
            .iter()
            .map(|c| {
                let d = PyDict::new(py);
                d.set_item("name", c.name)?;
                d.set_item("type", c.ty.name())?;
                d.set_item("unit", c.unit)?;
                d.set_item("doc", c.doc)?;
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item(table, list)?;
    }
    Ok(out)
}

/// Seed 003's closed forms (`tcplab_core::analysis::zhang`), by name, on plain floats;
/// `tcplab.analysis` checks the arguments and documents each.
#[pyfunction]
fn zhang_model(name: &str, args: Vec<f64>) -> PyResult<f64> {
    use tcplab_core::analysis::zhang as z;
    let a = |i: usize| args.get(i).copied().unwrap_or(f64::NAN);
    Ok(match (name, args.len()) {
        ("gaimd_throughput", 6) => z::gaimd_throughput(a(0), a(1), a(2), a(3), a(4), a(5)),
        ("padhye_throughput", 4) => z::padhye_throughput(a(0), a(1), a(2), a(3)),
        ("mathis_throughput", 3) => z::mathis_throughput(a(0), a(1), a(2)),
        ("friendly_alpha_timeout", 1) => z::friendly_alpha_timeout(a(0)),
        ("friendly_alpha_first_term", 1) => z::friendly_alpha_first_term(a(0)),
        ("epoch_rtts", 3) => z::epoch_rtts(a(0), a(1), a(2)),
        ("fair_window", 3) => z::fair_window(a(0), a(1), a(2)),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "no model '{name}' with {} arguments",
                args.len()
            )))
        }
    })
}

/// A built simulation that runs in slices (so Python can show progress and handle Ctrl-C).
#[pyclass(unsendable)]
struct Simulation {
    built: Built,
    /// `threads` > 1: the partitions while the run goes on; merged into `built.sim` when
    /// it finishes.
    par: Option<tcplab_core::par::Parallel>,
    wall: f64,
}

#[pymethods]
impl Simulation {
    /// Build from scenario JSON text; `seed` overrides the scenario's seed. The pcap files
    /// of `links.*.pcap` are created here, relative paths in `pcap_dir` (default: the
    /// current directory); `pcap_log` also keeps every captured packet for `results()`.
    /// `audit` > 0 switches the invariant auditor on, checking the whole state every `audit`
    /// events (a violation raises a PanicException naming the rule: an engine bug).
    /// `max_memory` (bytes) bounds the built scenario's estimated memory (default: half the
    /// machine's available memory). `threads` (default: the scenario's `threads`, else 1)
    /// splits the run over that many threads (`tcplab_core::par`; bit-identical results).
    #[new]
    #[pyo3(signature = (scenario_json, seed=None, pcap_dir=None, pcap_log=false, audit=0, max_memory=None, threads=None))]
    fn new(
        scenario_json: &str,
        seed: Option<u64>,
        pcap_dir: Option<PathBuf>,
        pcap_log: bool,
        audit: u64,
        max_memory: Option<u64>,
        threads: Option<u32>,
    ) -> PyResult<Self> {
        let mut built = tcplab_core::load_json_limited(scenario_json, seed, max_memory)
            .map_err(scenario_err)?;
        built
            .open_pcaps(pcap_dir.as_deref(), pcap_log)
            .map_err(scenario_err)?;
        if audit > 0 {
            built.sim.enable_audit(audit);
        }
        let threads = threads.or(built.scenario.threads).unwrap_or(1);
        let par = if threads > 1 {
            let replica = || tcplab_core::load_json_limited(scenario_json, seed, max_memory);
            let limit = max_memory.map_or(
                tcplab_core::scenario::memory::MemoryLimit::Auto,
                tcplab_core::scenario::memory::MemoryLimit::Bytes,
            );
            Some(
                tcplab_core::scenario::split(&mut built, threads, limit, replica)
                    .map_err(scenario_err)?,
            )
        } else if threads == 0 {
            return Err(scenario_err(CoreScenarioError::new(
                "threads",
                "must be at least 1, got 0",
            )));
        } else {
            None
        };
        Ok(Simulation {
            built,
            par,
            wall: 0.0,
        })
    }

    /// Threads this run uses.
    #[getter]
    fn threads(&self) -> usize {
        self.par.as_ref().map_or(1, |p| p.threads())
    }

    /// Simulated seconds the run lasts.
    #[getter]
    fn duration(&self) -> f64 {
        self.built.sim.end.as_secs_f64()
    }

    /// Current simulated time in seconds.
    #[getter]
    fn now(&self) -> f64 {
        match &self.par {
            Some(p) => p.now().as_secs_f64(),
            None => self.built.sim.now.as_secs_f64(),
        }
    }

    #[getter]
    fn finished(&self) -> bool {
        self.par.is_none() && self.built.sim.is_finished()
    }

    /// Events processed so far (a parallel run: every partition's, the shared interval and
    /// trace events counted several times until the run ends).
    #[getter]
    fn events(&self) -> u64 {
        match &self.par {
            Some(p) => p.events_per_partition().iter().sum(),
            None => self.built.sim.events_processed,
        }
    }

    /// Advance by `seconds` of simulated time with the GIL released. Returns whether the
    /// run has finished.
    fn advance(&mut self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        // Written so that NaN is rejected too.
        if seconds.is_nan() || seconds <= 0.0 {
            return Err(PyValueError::new_err("seconds: must be positive"));
        }
        let (built, par) = (&mut self.built, &mut self.par);
        let (done, dt) = py.allow_threads(|| {
            let t0 = Instant::now();
            // At least one picosecond, so a step below the clock's resolution (a
            // picosecond-long run sliced in 200) still makes progress.
            let step = SimDuration(SimDuration::from_secs_f64(seconds).0.max(1));
            if let Some(p) = par {
                p.run_until(p.now() + step);
                if p.is_finished() {
                    built.sim = par.take().expect("a parallel run").into_merged();
                }
            } else {
                let target: SimTime = built.sim.now + step;
                built.sim.run_until(target);
            }
            (built.sim.is_finished(), t0.elapsed().as_secs_f64())
        });
        self.wall += dt;
        Ok(done)
    }

    /// Summary (JSON text) and every result table of a finished run (intervals,
    /// cwnd_trace, queue_trace, cwnd_events, packet_events, probes: column name -> list,
    /// unless `lists` is false), plus `parquet`: the Parquet file of each table the run
    /// writes (intervals, cwnd_trace, queue_trace, probes, and `events`, the cwnd and
    /// packet events merged in time order) and `rows`: each of those tables' row count.
    #[pyo3(signature = (lists=true))]
    fn results<'py>(&self, py: Python<'py>, lists: bool) -> PyResult<Bound<'py, PyDict>> {
        if !self.built.sim.is_finished() {
            return Err(PyValueError::new_err("the run has not finished"));
        }
        let d = PyDict::new(py);
        let summary = tcplab_core::report::summary(&self.built, self.wall);
        d.set_item("summary", summary.to_string())?;
        let sim = &self.built.sim;
        let (files, rows) = py.allow_threads(|| parquet_tables(sim));
        let files = files.map_err(|e| PyValueError::new_err(format!("writing Parquet: {e}")))?;
        let pq = PyDict::new(py);
        let nrows = PyDict::new(py);
        for ((name, bytes), (_, n)) in files.iter().zip(&rows) {
            pq.set_item(*name, PyBytes::new(py, bytes))?;
            nrows.set_item(*name, *n)?;
        }
        d.set_item("parquet", pq)?;
        d.set_item("rows", nrows)?;
        d.set_item("pcap_log", self.pcap_log(py)?)?;
        if !lists {
            return Ok(d);
        }
        // Every table of the column registry, generically: flow and link ids become names.
        for (table, columns) in sim.tables() {
            let cols = PyDict::new(py);
            for c in columns {
                match c.data {
                    ColRef::F64(v) => cols.set_item(c.name.as_ref(), v)?,
                    ColRef::U64(v) => cols.set_item(c.name.as_ref(), v)?,
                    ColRef::U32(v) => cols.set_item(c.name.as_ref(), v)?,
                    ColRef::Label(v) => cols.set_item(c.name.as_ref(), v)?,
                    ColRef::Flow(v) => cols.set_item(
                        c.name.as_ref(),
                        v.iter()
                            .map(|&f| sim.flows[f.index()].name.as_str())
                            .collect::<Vec<_>>(),
                    )?,
                    ColRef::Link(v) => cols.set_item(
                        c.name.as_ref(),
                        v.iter()
                            .map(|&l| sim.links[l.index()].name.as_str())
                            .collect::<Vec<_>>(),
                    )?,
                    ColRef::Node(v) => cols.set_item(
                        c.name.as_ref(),
                        v.iter()
                            .map(|&n| &*sim.nodes[n.index()].name)
                            .collect::<Vec<_>>(),
                    )?,
                }
            }
            d.set_item(table, cols)?;
        }
        Ok(d)
    }
}

/// One registry column as writer values (ids resolved to names).
fn values<'a>(sim: &'a tcplab_core::sim::Sim, data: ColRef<'a>) -> parquet_out::Values<'a> {
    use parquet_out::Values;
    match data {
        ColRef::F64(v) => Values::F64(v.iter().map(|&x| Some(x)).collect()),
        ColRef::U64(v) => Values::U64(v.iter().map(|&x| Some(x)).collect()),
        ColRef::U32(v) => Values::U32(v.iter().map(|&x| Some(x)).collect()),
        ColRef::Label(v) => Values::Str(v.iter().map(|&x| Some(x)).collect()),
        ColRef::Flow(v) => Values::Str(
            v.iter()
                .map(|&f| Some(sim.flows[f.index()].name.as_str()))
                .collect(),
        ),
        ColRef::Link(v) => Values::Str(
            v.iter()
                .map(|&l| Some(sim.links[l.index()].name.as_str()))
                .collect(),
        ),
        ColRef::Node(v) => Values::Str(
            v.iter()
                .map(|&n| Some(&*sim.nodes[n.index()].name))
                .collect(),
        ),
    }
}

fn col_len(v: &parquet_out::Values) -> usize {
    use parquet_out::Values;
    match v {
        Values::F64(x) => x.len(),
        Values::U64(x) => x.len(),
        Values::U32(x) => x.len(),
        Values::Str(x) => x.len(),
    }
}

/// The Parquet files of a finished run and their row counts, in a fixed order: intervals,
/// cwnd_trace, queue_trace, probes, fct, events.
#[allow(clippy::type_complexity)]
fn parquet_tables(
    sim: &tcplab_core::sim::Sim,
) -> (
    Result<Vec<(&'static str, Vec<u8>)>, String>,
    Vec<(&'static str, usize)>,
) {
    use parquet_out::{table_bytes, Col, Values};
    let mut tables: std::collections::BTreeMap<&str, Vec<Col>> = Default::default();
    for (name, columns) in sim.tables() {
        let cols = columns
            .into_iter()
            .map(|c| Col {
                name: c.name.to_string(),
                values: values(sim, c.data),
                nullable: false,
            })
            .collect();
        tables.insert(name, cols);
    }
    let rows = |cols: &[Col]| cols.first().map_or(0, |c| col_len(&c.values));
    let mut out = Vec::new();
    let mut counts = Vec::new();
    for name in ["intervals", "cwnd_trace", "queue_trace", "probes", "fct"] {
        let cols = &tables[name];
        counts.push((name, rows(cols)));
        match table_bytes(cols) {
            Ok(b) => out.push((name, b)),
            Err(e) => return (Err(e), counts),
        }
    }
    // events: the packet events' columns, then the cwnd events' own; rows of both kinds in
    // time order, cwnd events first at equal times (a stable sort of cwnd rows, then packet
    // rows); `event` = "cwnd" in the cwnd rows; a column only one kind has is null in the
    // other kind's rows.
    let cw = tables.remove("cwnd_events").unwrap_or_default();
    let pk = tables.remove("packet_events").unwrap_or_default();
    let (ncw, npk) = (rows(&cw), rows(&pk));
    // Each kind's times, once (the sort compares them).
    let times = |cols: &[Col], n: usize| -> Vec<f64> {
        match cols.iter().find(|c| c.name == "t").map(|c| &c.values) {
            Some(Values::F64(v)) => v.iter().map(|x| x.unwrap_or(0.0)).collect(),
            _ => vec![0.0; n],
        }
    };
    let (tcw, tpk) = (times(&cw, ncw), times(&pk, npk));
    // (kind: 0 = cwnd, 1 = packet; row), stably sorted by time.
    let mut order: Vec<(u8, usize)> = (0..ncw)
        .map(|i| (0, i))
        .chain((0..npk).map(|i| (1, i)))
        .collect();
    let t = |&(k, i): &(u8, usize)| if k == 0 { tcw[i] } else { tpk[i] };
    order.sort_by(|a, b| t(a).total_cmp(&t(b)));
    let mut names: Vec<String> = pk.iter().map(|c| c.name.clone()).collect();
    for c in &cw {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    if !names.iter().any(|n| n == "event") {
        names.push("event".into());
    }
    let find = |cols: &[Col], n: &str| cols.iter().position(|c| c.name == n);
    let mut ev = Vec::new();
    for n in &names {
        let (ic, ip) = (find(&cw, n), find(&pk, n));
        let proto = ic.map(|i| &cw[i].values).or(ip.map(|i| &pk[i].values));
        let nullable = (ic.is_none() && ncw > 0 && n != "event") || (ip.is_none() && npk > 0);
        macro_rules! gather {
            ($variant:ident) => {{
                let get = |k: u8, i: usize| {
                    let col = if k == 0 {
                        ic.map(|j| &cw[j].values)
                    } else {
                        ip.map(|j| &pk[j].values)
                    };
                    match col {
                        Some(Values::$variant(v)) => v[i],
                        _ => None,
                    }
                };
                Values::$variant(order.iter().map(|&(k, i)| get(k, i)).collect())
            }};
        }
        let values = if n == "event" && ic.is_none() {
            // cwnd rows: "cwnd"; packet rows: their own kind.
            let pkv = ip.map(|j| &pk[j].values);
            Values::Str(
                order
                    .iter()
                    .map(|&(k, i)| match (k, pkv) {
                        (0, _) => Some("cwnd"),
                        (_, Some(Values::Str(v))) => v[i],
                        _ => None,
                    })
                    .collect(),
            )
        } else {
            match proto {
                Some(Values::F64(_)) => gather!(F64),
                Some(Values::U64(_)) => gather!(U64),
                Some(Values::U32(_)) => gather!(U32),
                _ => gather!(Str),
            }
        };
        ev.push(Col {
            name: n.clone(),
            values,
            nullable,
        });
    }
    counts.push(("events", ncw + npk));
    match table_bytes(&ev) {
        Ok(b) => out.push(("events", b)),
        Err(e) => return (Err(e), counts),
    }
    (Ok(out), counts)
}

impl Simulation {
    /// Per captured link with `pcap_log`: the packets as the simulation recorded them.
    fn pcap_log<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let sim = &self.built.sim;
        for l in &sim.links {
            let Some(log) = l.capture.as_ref().and_then(|c| c.log()) else {
                continue;
            };
            let ns = |t: SimTime| t.0 / PS_PER_NS;
            let cols = PyDict::new(py);
            cols.set_item("t_ns", log.iter().map(|(t, _)| ns(*t)).collect::<Vec<_>>())?;
            let flow: Vec<&str> = log
                .iter()
                .map(|(_, p)| sim.flows[p.flow.index()].name.as_str())
                .collect();
            cols.set_item("flow", flow)?;
            let kind: Vec<&str> = log
                .iter()
                .map(|(_, p)| if p.is_data() { "data" } else { "ack" })
                .collect();
            cols.set_item("kind", kind)?;
            cols.set_item("seq", log.iter().map(|(_, p)| p.seq).collect::<Vec<_>>())?;
            cols.set_item("ack", log.iter().map(|(_, p)| p.ack).collect::<Vec<_>>())?;
            cols.set_item("len", log.iter().map(|(_, p)| p.len).collect::<Vec<_>>())?;
            cols.set_item("size", log.iter().map(|(_, p)| p.size).collect::<Vec<_>>())?;
            cols.set_item(
                "flags",
                log.iter().map(|(_, p)| p.flags).collect::<Vec<_>>(),
            )?;
            cols.set_item(
                "ts_ns",
                log.iter().map(|(_, p)| ns(p.ts)).collect::<Vec<_>>(),
            )?;
            cols.set_item(
                "rx_ns",
                log.iter().map(|(_, p)| ns(p.rx_time)).collect::<Vec<_>>(),
            )?;
            out.set_item(&l.name, cols)?;
        }
        Ok(out)
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_scenario_error(m)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate_toml, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(expand_json, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    m.add_function(wrap_pyfunction!(zhang_model, m)?)?;
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

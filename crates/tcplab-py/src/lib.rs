//! PyO3 bindings: conversions and error mapping only. The Python package `tcplab` wraps
//! this private module (`tcplab._core`).

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::ffi::c_str;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::time::Instant;
use tcplab_core::scenario::{Built, ScenarioError as CoreScenarioError};
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

/// JSON Schema of scenario files.
#[pyfunction]
fn json_schema() -> String {
    tcplab_core::scenario::json_schema()
}

/// A built simulation that runs in slices (so Python can show progress and handle Ctrl-C).
#[pyclass(unsendable)]
struct Simulation {
    built: Built,
    wall: f64,
}

#[pymethods]
impl Simulation {
    /// Build from scenario JSON text; `seed` overrides the scenario's seed. The pcap files
    /// of `links.*.pcap` are created here, relative paths in `pcap_dir` (default: the
    /// current directory); `pcap_log` also keeps every captured packet for `results()`.
    #[new]
    #[pyo3(signature = (scenario_json, seed=None, pcap_dir=None, pcap_log=false))]
    fn new(
        scenario_json: &str,
        seed: Option<u64>,
        pcap_dir: Option<PathBuf>,
        pcap_log: bool,
    ) -> PyResult<Self> {
        let mut built = tcplab_core::load_json(scenario_json, seed).map_err(scenario_err)?;
        built
            .open_pcaps(pcap_dir.as_deref(), pcap_log)
            .map_err(scenario_err)?;
        Ok(Simulation { built, wall: 0.0 })
    }

    /// Simulated seconds the run lasts.
    #[getter]
    fn duration(&self) -> f64 {
        self.built.sim.end.as_secs_f64()
    }

    /// Current simulated time in seconds.
    #[getter]
    fn now(&self) -> f64 {
        self.built.sim.now.as_secs_f64()
    }

    #[getter]
    fn finished(&self) -> bool {
        self.built.sim.is_finished()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.built.sim.events_processed
    }

    /// Advance by `seconds` of simulated time with the GIL released. Returns whether the
    /// run has finished.
    fn advance(&mut self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        // Written so that NaN is rejected too.
        if seconds.is_nan() || seconds <= 0.0 {
            return Err(PyValueError::new_err("seconds: must be positive"));
        }
        let built = &mut self.built;
        let (done, dt) = py.allow_threads(|| {
            let t0 = Instant::now();
            let target: SimTime = built.sim.now + SimDuration::from_secs_f64(seconds);
            built.sim.run_until(target);
            (built.sim.is_finished(), t0.elapsed().as_secs_f64())
        });
        self.wall += dt;
        Ok(done)
    }

    /// Summary (JSON text), interval columns and trace columns of a finished run.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if !self.built.sim.is_finished() {
            return Err(PyValueError::new_err("the run has not finished"));
        }
        let d = PyDict::new(py);
        let summary = tcplab_core::report::summary(&self.built, self.wall);
        d.set_item("summary", summary.to_string())?;
        let iv = &self.built.sim.intervals;
        let cols = PyDict::new(py);
        cols.set_item("flow", iv.flow.clone())?;
        cols.set_item("t_start", iv.t_start.clone())?;
        cols.set_item("t_end", iv.t_end.clone())?;
        cols.set_item("goodput_bps", iv.goodput_bps.clone())?;
        cols.set_item("throughput_bps", iv.throughput_bps.clone())?;
        cols.set_item("efficiency", iv.efficiency.clone())?;
        cols.set_item("cwnd_bytes", iv.cwnd_bytes.clone())?;
        cols.set_item("srtt_s", iv.srtt_s.clone())?;
        d.set_item("intervals", cols)?;
        let tr = &self.built.sim.traces;
        let cw = PyDict::new(py);
        cw.set_item("flow", tr.cwnd_flow.clone())?;
        cw.set_item("t", tr.cwnd_t.clone())?;
        cw.set_item("cwnd_bytes", tr.cwnd_bytes.clone())?;
        cw.set_item("ssthresh_bytes", tr.ssthresh_bytes.clone())?;
        cw.set_item("in_flight_bytes", tr.in_flight_bytes.clone())?;
        d.set_item("cwnd_trace", cw)?;
        let q = PyDict::new(py);
        q.set_item("link", tr.queue_link.clone())?;
        q.set_item("t", tr.queue_t.clone())?;
        q.set_item("packets", tr.queue_packets.clone())?;
        q.set_item("bytes", tr.queue_bytes.clone())?;
        d.set_item("queue_trace", q)?;
        d.set_item("pcap_log", self.pcap_log(py)?)?;
        Ok(d)
    }
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
                .map(|(_, p)| sim.flows[p.flow as usize].name.as_str())
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
    m.add_class::<Simulation>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

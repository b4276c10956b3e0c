//! Closed-form models from the seed papers, and their comparison with a finished run.
//!
//! Each paper has one module: the formulas as pure functions (each tested against the
//! paper's own worked numbers) and a `report` submodule that implements [`PaperAnalysis`]:
//! given the built, finished run and the summary's per-flow rows it returns the
//! prediction and the report rows that `summary.json` shows under `analysis`. The generic
//! summary ([`crate::report`]) knows nothing about any paper; it only calls
//! [`PaperAnalysis::evaluate`] on the analysis the scenario configured.
//!
//! **Why a trait plus a closed enum.** The trait is the contract a paper's module fulfils
//! (its id and `evaluate`); [`AnyAnalysis`] lists the configured analyses, one variant per
//! paper, and dispatches with one `match`, like `AnyCc` and `AnyQueue`. `dyn` would do as
//! well here (this runs once per run, not per packet), but the enum keeps the set of
//! analyses visible in one place and each configured analysis cloneable and printable. Adding a paper: a
//! module `analysis/<paper>/` with its formulas and a `report.rs` implementing the trait,
//! one variant and one match arm below, its `[analysis]` key in the scenario, and the
//! validation in `scenario/build/analysis.rs`.

pub mod dctcp;
pub mod kalampoukas97;
pub mod zhang;

use crate::event::LinkId;
use crate::sim::Sim;
use crate::tcp::TcpConfig;
use serde_json::Value;

/// What an analysis reads of a finished run: the engine's state and, per flow (in flow
/// order), its path and transport configuration. The scenario layer hands it over, so the
/// closed forms depend on the engine and the components only, never on the schema.
pub struct RunView<'a> {
    pub sim: &'a Sim,
    pub flows: Vec<FlowView<'a>>,
}

/// One flow of a [`RunView`].
pub struct FlowView<'a> {
    /// The links the flow's data crosses, in order.
    pub path: &'a [LinkId],
    pub tcp: &'a TcpConfig,
}

/// What every paper's analysis module provides.
pub trait PaperAnalysis {
    /// Stable id of the analysis (`<paper>.<model>`).
    fn id(&self) -> &'static str;
    /// Compare the model with the finished run `b`. `flows` are the summary's per-flow
    /// objects (in flow order); problems with the model's assumptions go to `warnings`.
    /// Returns the `analysis` object of `summary.json`: the prediction, its parameters and
    /// `rows` (one per compared quantity, with `analytic`, `simulated` and `difference`).
    fn evaluate(&self, b: &RunView, flows: &[Value], warnings: &mut Vec<String>) -> Value;
}

/// The analyses a scenario can configure under `[analysis]`.
#[derive(Clone, Debug)]
pub enum AnyAnalysis {
    /// `analysis.two_way`: seed 000 (Kalampoukas, Varma & Ramakrishnan 1997).
    TwoWay(kalampoukas97::report::TwoWay),
}

impl PaperAnalysis for AnyAnalysis {
    fn id(&self) -> &'static str {
        match self {
            AnyAnalysis::TwoWay(a) => a.id(),
        }
    }
    fn evaluate(&self, b: &RunView, flows: &[Value], warnings: &mut Vec<String>) -> Value {
        match self {
            AnyAnalysis::TwoWay(a) => a.evaluate(b, flows, warnings),
        }
    }
}

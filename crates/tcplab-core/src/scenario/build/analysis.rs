//! The closed-form models a scenario asks for (`[analysis]`): check that they apply.

use super::{known, FlowMeta};
use crate::analysis::{kalampoukas97, AnyAnalysis};
use crate::scenario::{Scenario, ScenarioError, TwoWaySpec};
use crate::sim::Flow;

/// The analysis `[analysis]` configures, validated against the built flows.
pub(super) fn analysis(
    sc: &Scenario,
    flows: &[Flow],
    meta: &[FlowMeta],
) -> Result<Option<AnyAnalysis>, ScenarioError> {
    Ok(two_way(sc, flows, meta)?.map(|tw| AnyAnalysis::TwoWay(kalampoukas97::report::TwoWay(tw))))
}

/// Seed 000's two-way model (`analysis.two_way`): names flows in opposite directions over
/// one link each way.
fn two_way(
    sc: &Scenario,
    flows: &[Flow],
    meta: &[FlowMeta],
) -> Result<Option<TwoWaySpec>, ScenarioError> {
    let two_way = match sc.analysis.as_ref().and_then(|a| a.two_way.clone()) {
        None => None,
        Some(tw) => {
            let find = |field: &str, n: &str| -> Result<usize, ScenarioError> {
                sc.flows.keys().position(|k| k == n).ok_or_else(|| {
                    ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        format!("unknown flow '{n}' ({})", known(sc.flows.keys().cloned())),
                    )
                })
            };
            let mut sides = Vec::new();
            for (field, names) in [("slow", &tw.slow), ("fast", &tw.fast)] {
                let names = names.names();
                if names.is_empty() {
                    return Err(ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        "names no flow",
                    ));
                }
                let mut ids = Vec::new();
                for n in &names {
                    let k = find(field, n)?;
                    if flows[k].tcp().is_none() {
                        return Err(ScenarioError::new(
                            format!("analysis.two_way.{field}"),
                            format!("flow '{n}' is a UDP flow; the two-way model is about TCP"),
                        ));
                    }
                    ids.push(k);
                }
                let f0 = &flows[ids[0]];
                if ids
                    .iter()
                    .any(|&k| flows[k].src != f0.src || flows[k].dst != f0.dst)
                {
                    return Err(ScenarioError::new(
                        format!("analysis.two_way.{field}"),
                        "the flows of one side must share their source and destination hosts",
                    ));
                }
                sides.push(ids);
            }
            let (si, sj) = (&sides[0], &sides[1]);
            if si.iter().any(|k| sj.contains(k)) {
                return Err(ScenarioError::new(
                    "analysis.two_way.fast",
                    "must name different flows than slow",
                ));
            }
            let (fi, fj) = (&flows[si[0]], &flows[sj[0]]);
            if fi.src != fj.dst || fi.dst != fj.src {
                return Err(ScenarioError::new(
                    "analysis.two_way",
                    "the two flows must run in opposite directions between the same hosts",
                ));
            }
            if si.iter().chain(sj).any(|&k| meta[k].path.len() != 1) {
                return Err(ScenarioError::new(
                    "analysis.two_way",
                    "the two-way models have one link per direction; the flows' paths have more hops",
                ));
            }
            Some(tw)
        }
    };
    Ok(two_way)
}

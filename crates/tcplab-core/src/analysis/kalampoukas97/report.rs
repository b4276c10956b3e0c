//! Seed 000's comparison (`analysis.two_way`): pick the closed form for the slow node's
//! scheme, compute it from the simulated configuration, and lay it next to the simulated
//! efficiencies. This is the [`PaperAnalysis`] of Kalampoukas, Varma & Ramakrishnan 1997;
//! the formulas themselves are in the parent module.

use super::{self as k97, AsymParams, Efficiencies, TwoWayParams};
use crate::analysis::{PaperAnalysis, RunView};
use crate::net::Link;
use crate::queue::AnyQueue;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// `[analysis.two_way]`: which flows the two-way model compares, and the paper's figures.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TwoWaySpec {
    /// Flow i: the connection sending on the slow link (or a list of flows in that
    /// direction, analysed as one aggregate: their efficiencies add, their windows add).
    pub slow: FlowNames,
    /// Flow j: the connection(s) in the opposite direction.
    pub fast: FlowNames,
    /// The paper's stated efficiencies, shown in the table (optional).
    #[serde(default)]
    pub paper_slow: Option<f64>,
    #[serde(default)]
    pub paper_fast: Option<f64>,
    /// The paper's words for its claim, shown with the table.
    #[serde(default)]
    pub paper_note: Option<String>,
}

/// One flow name or a list of them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FlowNames {
    One(String),
    Many(Vec<String>),
}

impl FlowNames {
    pub fn names(&self) -> Vec<String> {
        match self {
            FlowNames::One(s) => vec![s.clone()],
            FlowNames::Many(v) => v.clone(),
        }
    }
    /// The names joined with "+", for tables.
    pub fn label(&self) -> String {
        self.names().join("+")
    }
}

/// The two-way model of seed 000, configured by `[analysis.two_way]`.
#[derive(Clone, Debug)]
pub struct TwoWay(pub TwoWaySpec);

impl PaperAnalysis for TwoWay {
    fn id(&self) -> &'static str {
        "kalampoukas97.two_way"
    }
    fn evaluate(&self, b: &RunView, flows: &[Value], warnings: &mut Vec<String>) -> Value {
        two_way_analysis(b, &self.0, flows, warnings)
    }
}

/// Which end-host scheme the slow node runs, and so which closed form applies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    Fifo,
    AckPriority,
    Backpressure(u32),
    BandwidthAllocation(f64),
}

fn scheme_of(l: &Link) -> Scheme {
    match (&l.queue, l.backpressure) {
        (AnyQueue::BandwidthAllocation(q), _) => Scheme::BandwidthAllocation(q.data_fraction()),
        (AnyQueue::AckPriority(_), _) => Scheme::AckPriority,
        (_, Some(b)) => Scheme::Backpressure(b),
        (_, None) => Scheme::Fifo,
    }
}

/// One closed form's prediction, shown next to the primary one.
fn alt(id: &str, label: &str, e: Efficiencies) -> Value {
    json!({"id": id, "label": label, "f_i": e.f_i, "f_j": e.f_j})
}

/// Seed 000's two-way comparison: pick the closed form for the slow node's scheme, compute
/// it from the simulated configuration, and lay it next to the simulated efficiencies.
fn two_way_analysis(
    b: &RunView,
    tw: &TwoWaySpec,
    flows: &[Value],
    warnings: &mut Vec<String>,
) -> Value {
    let sim = b.sim;
    let steady0 = sim.metrics.steady_start;
    let idx = |n: &String| sim.flows.iter().position(|f| &f.name == n).unwrap();
    let si: Vec<usize> = tw.slow.names().iter().map(idx).collect();
    let sj: Vec<usize> = tw.fast.names().iter().map(idx).collect();
    let (mi, mj) = (&b.flows[si[0]], &b.flows[sj[0]]);
    let (li, lj) = (
        &sim.links[mi.path[0].index()],
        &sim.links[mj.path[0].index()],
    );
    let pkt = |k: usize| (b.flows[k].tcp.mss + b.flows[k].tcp.header) as f64;
    let win = |k: usize| (b.flows[k].tcp.max_window / b.flows[k].tcp.mss as u64) as f64;
    let (pkt_i, pkt_j) = (pkt(si[0]), pkt(sj[0]));
    let (n_i, n_j): (f64, f64) = (
        si.iter().map(|&k| win(k)).sum(),
        sj.iter().map(|&k| win(k)).sum(),
    );
    let (ri, rj) = (li.rate.bps() as f64, lj.rate.bps() as f64);
    let d = li.delay.as_secs_f64() + lj.delay.as_secs_f64();
    let eff = |ks: &[usize]| -> f64 {
        ks.iter()
            .map(|&k| flows[k]["efficiency"].as_f64().unwrap())
            .sum()
    };
    let (sim_i, sim_j) = (eff(&si), eff(&sj));

    let fifo = scheme_of(li) == Scheme::Fifo;
    for &k in si.iter().chain(&sj) {
        let f = &sim.flows[k];
        // Theorem 1 needs both windows at their maximum; the remedies' closed forms depend
        // on the fast window only (the slow connection just has to stay backlogged).
        let need_max_window = fifo || sj.contains(&k);
        let (sender, _) = f.tcp().expect("validated: two-way flows are TCP");
        let steady_retx = sender.stats.retransmits - f.retransmits_before_steady;
        if steady_retx > 0 {
            warnings.push(format!(
                "two-way analysis: flow '{}' retransmitted {} segments in the steady-state window; the closed forms assume a loss-free steady state",
                f.name, steady_retx
            ));
        }
        match f.max_window_at {
            _ if !need_max_window => {}
            Some(t) if t > steady0 => warnings.push(format!(
                "two-way analysis: flow '{}' reached its maximum window only at {:.1} s, after steady_start ({:.1} s); the closed forms assume windows at their maximum",
                f.name, t.as_secs_f64(), steady0.as_secs_f64()
            )),
            None => warnings.push(format!(
                "two-way analysis: flow '{}' never reached its maximum window; the closed forms assume windows at their maximum",
                f.name
            )),
            _ => {}
        }
    }

    let asym = AsymParams {
        td_i: pkt_i * 8.0 / ri,
        td_j: pkt_j * 8.0 / rj,
        ta_i: b.flows[sj[0]].tcp.ack_size as f64 * 8.0 / ri,
        ta_j: b.flows[si[0]].tcp.ack_size as f64 * 8.0 / rj,
        n_i,
        n_j,
        d,
    };
    let (alpha, beta) = (asym.alpha(), asym.beta());
    let scheme = scheme_of(li);
    let fast_scheme = scheme_of(lj);
    if fast_scheme != scheme {
        warnings.push(format!(
            "two-way analysis: the fast node runs {:?} but the slow node {:?}; the closed form follows the slow node (the paper applies one scheme at both)",
            fast_scheme, scheme
        ));
    }

    // Primary prediction, its label, alternatives, and scheme-specific outputs.
    let mut alternatives = Vec::new();
    let (model, reference, label, primary, mut prediction, bounds): (
        &str,
        &str,
        String,
        Efficiencies,
        Value,
        Option<(f64, f64)>,
    ) = match scheme {
        Scheme::Fifo => {
            let p = TwoWayParams {
                w_i: n_i,
                w_j: n_j,
                rho_i: ri / (8.0 * pkt_i),
                rho_j: rj / (8.0 * pkt_j),
                d,
            };
            let pred = k97::predict(&p);
            if !pred.compression {
                warnings.push("two-way analysis: condition (2.1) W_i/rho_i + W_j/rho_j > D does not hold; Theorem 1 does not apply".into());
            }
            // Refinement: the fast connection's acks also take slow-link time per cycle.
            let cycle = pred.x.max(pred.y) + n_j * asym.ta_i;
            if pred.regime_i == k97::Regime::Dominant {
                alternatives.push(alt(
                    "theorem1_ack_time",
                    "Theorem 1 + ack time on the slow link",
                    Efficiencies {
                        f_i: pred.x / cycle,
                        f_j: pred.y / cycle,
                    },
                ));
            }
            let mut v = serde_json::to_value(pred).unwrap();
            v["params"] = serde_json::to_value(p).unwrap();
            (
                "kalampoukas97.theorem1",
                "Kalampoukas, Varma, Ramakrishnan 1997, Theorems 1-2 (eqs. 2.2, 2.3)",
                "Theorem 1".to_string(),
                Efficiencies {
                    f_i: pred.f_i,
                    f_j: pred.f_j,
                },
                v,
                Some((pred.q_i_max, pred.q_j_max)),
            )
        }
        Scheme::AckPriority => {
            let (printed, refined) = k97::ack_priority(&asym);
            // Eq. 4.1 assumes the fast connection at full rate; the slow link's time left
            // after the acks that eq. 4.5's F_j implies is the consistent F_i.
            alternatives.push(alt("eq4_1_printed", "eq. 4.1 as printed", printed));
            (
                "kalampoukas97.ack_priority",
                "Kalampoukas, Varma, Ramakrishnan 1997, §4.1, eqs. 4.1-4.5",
                "eq. 4.5; F_i = 1 − F_j·α/β".to_string(),
                refined,
                json!({"n_a": asym.n_j.min(alpha), "eq_4_5_closed": k97::eq_4_5_closed(&asym),
                           "ack_limited": asym.ta_i >= asym.td_j}),
                None,
            )
        }
        Scheme::Backpressure(bi) => {
            // K backpressured slow connections keep K·b slow packets in the queue; the
            // fast window's acks split over them, so each slow packet has n_j/K acks
            // behind it (for one connection with b = 1 this is Theorem 3 itself).
            let k = si.len() as f64;
            let per = AsymParams {
                n_j: n_j / k,
                ..asym
            };
            let corrected = if d > 0.0 {
                alternatives.push(alt(
                    "theorem3",
                    "Theorem 3 (delay ignored)",
                    k97::backpressure(&per),
                ));
                k97::backpressure_delay(&per)
            } else {
                k97::backpressure(&per)
            };
            alternatives.push(alt(
                "theorem3_printed",
                "Theorem 3 as printed",
                k97::backpressure_printed(&asym),
            ));
            if k > 1.0 {
                alternatives.push(alt(
                    "theorem3_aggregate",
                    "Theorem 3, aggregate window n_j",
                    k97::backpressure(&asym),
                ));
            }
            let b_tot = bi as f64 * k;
            if b_tot > 1.0 {
                alternatives.push(alt(
                    "theorem4",
                    &format!("Theorem 4 as printed (b_i = {b_tot})"),
                    k97::backpressure_thm4(&asym, b_tot),
                ));
            }
            if d > 0.0 {
                alternatives.push(alt(
                    "eq5_14_printed",
                    "eqs. 5.14/5.15 as printed",
                    k97::backpressure_delay_printed(&per),
                ));
                alternatives.push(alt(
                    "eq5_14_text",
                    "§5.3 text rule (λ_j in 5.6)",
                    k97::backpressure_delay_text(&per),
                ));
            }
            let (a, bb, nj) = (alpha, beta, per.n_j);
            let first = a < bb && nj >= a * bb / (bb - a);
            let branch = if first { "first" } else { "second" };
            (
                    "kalampoukas97.backpressure",
                    "Kalampoukas, Varma, Ramakrishnan 1997, §5, Theorem 3 (eqs. 5.1-5.8), with the n_j cap on Q^S",
                    match (d > 0.0, k > 1.0) {
                        (true, _) => "min(Theorem 3, window limit of eq. 5.15)".to_string(),
                        (false, true) => {
                            format!("Theorem 3 ({branch} branch, n_j/{k} per slow packet)")
                        }
                        (false, false) => format!("Theorem 3 ({branch} branch)"),
                    },
                    corrected,
                    json!({"threshold": bi, "slow_connections": si.len(), "q_s_s": k97::backpressure_q_s(&per, true),
                           "q_s_printed_s": k97::backpressure_q_s(&per, false),
                           "first_branch": first, "l_j": k97::l_j(&per)}),
                    None,
                )
        }
        Scheme::BandwidthAllocation(f) => {
            // (6.2) caps the acks per slow packet at n_j; but acks keep arriving while acks
            // are sent (the §4 burst), so the physically consistent cap is min(γ, burst).
            let g = k97::bwalloc_gamma(&asym, f);
            alternatives.push(alt(
                "eq6_printed",
                "eqs. 6.3/6.4 as printed (min(n_j, γ) acks)",
                k97::bwalloc(&asym, f),
            ));
            (
                "kalampoukas97.bandwidth_allocation",
                "Kalampoukas, Varma, Ramakrishnan 1997, §6, eqs. 6.1-6.5, with the ack burst of eq. 4.3",
                format!("eqs. 6.3/6.4, min(γ, 4.3 burst) acks (f = {f})"),
                k97::bwalloc_burst(&asym, f),
                json!({"data_fraction": f, "gamma": g,
                       "acks_per_packet": k97::bwalloc_acks_per_packet(&asym, f)}),
                None,
            )
        }
    };
    prediction["alpha"] = json!(alpha);
    prediction["beta"] = json!(beta);
    // The slow link's share left for data given the fast connection's simulated acks.
    let slow_util = li.busy_time(sim.end).as_secs_f64() / sim.end.as_secs_f64();
    let alt_val = |which: &str| -> Value {
        alternatives
            .iter()
            .map(|a| (a["id"].as_str().unwrap().to_string(), a[which].clone()))
            .collect::<serde_json::Map<String, Value>>()
            .into()
    };
    let row = |flow: String,
               role: &str,
               paper: Option<f64>,
               analytic: f64,
               sim: f64,
               l: &Link,
               bound: Option<f64>,
               which: &str| {
        json!({"flow": flow, "role": role, "paper": paper, "analytic": analytic, "analytic_label": label,
               "simulated": sim, "difference": sim - analytic, "alternatives": alt_val(which),
               "max_queue": l.stats.steady_max_queue_packets, "max_data_queue": l.stats.steady_max_data_queue,
               "q_max_bound": bound})
    };
    json!({
        "model": model,
        "scheme": match scheme { Scheme::Fifo => "fifo", Scheme::AckPriority => "ackprio", Scheme::Backpressure(_) => "backpressure", Scheme::BandwidthAllocation(_) => "bwalloc" },
        "reference": reference,
        "params": asym_params_json(&asym, ri, rj, pkt_i, pkt_j),
        "prediction": prediction,
        "alternatives": alternatives,
        "slow_link_utilization": slow_util,
        "rows": [
            row(tw.slow.label(), "slow (i)", tw.paper_slow, primary.f_i, sim_i, li, bounds.map(|b| b.0), "f_i"),
            row(tw.fast.label(), "fast (j)", tw.paper_fast, primary.f_j, sim_j, lj, bounds.map(|b| b.1), "f_j"),
        ],
        "paper_note": tw.paper_note,
    })
}

fn asym_params_json(a: &AsymParams, ri: f64, rj: f64, pkt_i: f64, pkt_j: f64) -> Value {
    json!({
        "w_i": a.n_i, "w_j": a.n_j,
        "rho_i": ri / (8.0 * pkt_i), "rho_j": rj / (8.0 * pkt_j),
        "d": a.d,
        "td_i": a.td_i, "td_j": a.td_j, "ta_i": a.ta_i, "ta_j": a.ta_j,
    })
}

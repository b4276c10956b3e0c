//! The run summary (`summary.json`): per flow, per link direction, run-level numbers and,
//! when the scenario asks for it, the closed-form predictions next to the simulated values.
//! Keys are documented in `docs/outputs.md`.

use crate::analysis::kalampoukas97::{self as k97, AsymParams, Efficiencies, TwoWayParams};
use crate::net::{ErrorModel, Link};
use crate::queue::{AnyQueue, DropReason};
use crate::scenario::Built;
use crate::scenario::TwoWaySpec;
use serde_json::{json, Value};

/// Build the summary of a finished run. `wall_seconds` is the only field that is not a
/// function of (scenario, seed).
pub fn summary(b: &Built, wall_seconds: f64) -> Value {
    let sim = &b.sim;
    let end = sim.end;
    let steady0 = sim.metrics.steady_start;
    let steady_secs = end.since(steady0).as_secs_f64();
    let sim_secs = end.as_secs_f64();
    let mut warnings: Vec<String> = Vec::new();

    let flows: Vec<Value> = sim
        .flows
        .iter()
        .zip(&b.flow_meta)
        .map(|(f, m)| {
            let c = &f.counters;
            let good = (c.goodput_bytes - c.steady_goodput0) as f64 * 8.0 / steady_secs;
            let thr = (c.wire_bytes - c.steady_wire0) as f64 * 8.0 / steady_secs;
            let link = &sim.links[f.eff_link as usize];
            let Some((sender, receiver)) = f.tcp() else {
                let (us, ur) = f.udp().expect("a flow is TCP or UDP");
                return json!({
                    "name": f.name,
                    "from": sim.nodes[f.src as usize].name,
                    "to": sim.nodes[f.dst as usize].name,
                    "transport": "udp",
                    "goodput_bps": good,
                    "throughput_bps": thr,
                    "efficiency": thr / link.rate.bps() as f64,
                    "efficiency_link": link.name,
                    "bytes_delivered": c.goodput_bytes,
                    "packets_sent": us.packets_sent,
                    "bytes_sent": us.bytes_sent,
                    "packets_delivered": ur.packets_delivered,
                    "packets_lost": ur.packets_lost(),
                    "loss_fraction": ur.loss_fraction(),
                });
            };
            let st = &sender.stats;
            json!({
                "name": f.name,
                "from": sim.nodes[f.src as usize].name,
                "to": sim.nodes[f.dst as usize].name,
                "cc": m.cc,
                "goodput_bps": good,
                "throughput_bps": thr,
                "efficiency": thr / link.rate.bps() as f64,
                "efficiency_link": link.name,
                "bytes_delivered": c.goodput_bytes,
                "segments_sent": st.segments_sent,
                "retransmits": st.retransmits,
                "fast_retransmits": st.fast_retransmits,
                "timeouts": st.timeouts,
                "acks_sent": receiver.stats.acks_sent,
                "duplicate_segments": receiver.stats.duplicate_packets,
                "final_cwnd_bytes": sender.window(),
                "srtt_s": sender.rtt.srtt().map(|d| d.as_secs_f64()),
                "min_rtt_s": sender.rtt.min_rtt().map(|d| d.as_secs_f64()),
                "completed_at_s": f.completed_at.map(|t| t.as_secs_f64()),
                "max_window_reached_s": f.max_window_at.map(|t| t.as_secs_f64()),
                "steady_retransmits": st.retransmits - f.retransmits_before_steady,
                "steady_timeouts": st.timeouts - f.timeouts_before_steady,
                "ce_marks": receiver.stats.ce_received,
                "ece_acks": st.ece_received,
                "ecn_reductions": st.ecn_reductions,
            })
        })
        .collect();

    let links: Vec<Value> = sim
        .links
        .iter()
        .map(|l| {
            let mut v = json!({
                "name": l.name,
                "from": sim.nodes[l.from as usize].name,
                "to": sim.nodes[l.to as usize].name,
                "rate_bps": l.rate.bps(),
                "delay_s": l.delay.as_secs_f64(),
                "queue": crate::queue::QueueDisc::name(&l.queue),
                "utilization": l.busy_time(end).as_secs_f64() / sim_secs,
                "offered": l.stats.offered,
                "delivered": l.stats.delivered,
                "drops": l.drops.packets,
                "lost": l.stats.lost,
                "in_flight": l.in_system(),
                "max_queue": l.stats.max_queue_packets,
                "steady_max_queue": l.stats.steady_max_queue_packets,
                "max_data_queue": l.stats.max_data_queue,
                "steady_max_data_queue": l.stats.steady_max_data_queue,
                "max_queue_bytes": l.stats.max_queue_bytes,
                "tx_packets": l.stats.tx_packets,
                "tx_data_bytes": l.stats.tx_data_bytes,
                "tx_ack_bytes": l.stats.tx_ack_bytes,
                "marks": l.drops.marks,
                "dequeue_drops": l.drops.dequeue_drops,
            });
            for r in DropReason::ALL {
                v[format!("drops_{}", r.name())] = json!(l.drops.by_reason[r.index()]);
            }
            // Error models other than none/Bernoulli add their name and outage counters
            // (absent otherwise, so summaries of runs without them keep their keys).
            if !matches!(l.error, ErrorModel::None | ErrorModel::Bernoulli(_)) {
                let (n, down) = l.error.down(end);
                v["error_model"] = json!(l.error.name());
                v["outages"] = json!(n);
                v["down_s"] = json!(down.as_secs_f64());
            }
            v
        })
        .collect();

    let analysis = b
        .two_way
        .as_ref()
        .map(|tw| two_way_analysis(b, tw, &flows, &mut warnings));

    let pcap = pcap_summary(b, &mut warnings);

    let total_drops: u64 = sim
        .links
        .iter()
        .map(|l| l.drops.packets + l.stats.lost)
        .sum();
    let mut out = json!({
        "scenario": b.scenario.name,
        "seed": b.seed,
        "run": {
            "sim_seconds": sim_secs,
            "steady_start_s": steady0.as_secs_f64(),
            "wall_seconds": wall_seconds,
            "events": sim.events_processed,
            "packets_dropped": total_drops,
        },
        "flows": flows,
        "links": links,
        "analysis": analysis,
        "pcap": pcap,
        "warnings": warnings,
    });
    // Only when the scenario has schedules, so summaries without them keep their bytes.
    if !sim.schedules.is_empty() {
        out["schedules"] = sim
            .schedules
            .iter()
            .map(|s| {
                let pairs = |v: &[(crate::time::SimTime, u32)]| -> Vec<Value> {
                    v.iter().map(|&(t, n)| json!([t.as_secs_f64(), n])).collect()
                };
                (
                    s.name.clone(),
                    json!({
                        "flows": s.flows.iter().map(|&f| sim.flows[f as usize].name.clone()).collect::<Vec<_>>(),
                        "requested": pairs(&s.steps),
                        "active": pairs(&s.log),
                    }),
                )
            })
            .collect::<serde_json::Map<String, Value>>()
            .into();
    }
    out
}

/// The pcap files of the run (null when none was asked for): per file the link, the path
/// as the scenario wrote it, the records written and the first I/O error; and the address
/// and port mapping of the synthesized headers. A failed file also becomes a warning.
fn pcap_summary(b: &Built, warnings: &mut Vec<String>) -> Value {
    use crate::stats::pcap::{node_addr, sender_port, RECEIVER_PORT};
    let specs = b.pcap_specs();
    if specs.is_empty() {
        return Value::Null;
    }
    let sim = &b.sim;
    let files: Vec<Value> = specs
        .iter()
        .map(|&(i, file)| {
            let l = &sim.links[i];
            let (packets, error) = match &l.capture {
                Some(c) => (
                    c.records(),
                    c.error()
                        .map(|e| format!("writing '{}' failed: {e}", c.path().display())),
                ),
                None => (0, Some("not written: the file was not opened".to_string())),
            };
            if let Some(e) = &error {
                warnings.push(format!("links.{}.pcap: {e}", l.name));
            }
            json!({"link": l.name, "file": file, "packets": packets, "error": error})
        })
        .collect();
    let addresses: serde_json::Map<String, Value> = sim
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let a = node_addr(i as u32);
            (
                n.name.clone(),
                json!(format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])),
            )
        })
        .collect();
    let ports: serde_json::Map<String, Value> = sim
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                f.name.clone(),
                json!({"sender": sender_port(i as u32), "receiver": RECEIVER_PORT}),
            )
        })
        .collect();
    json!({"files": files, "addresses": addresses, "ports": ports})
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
    b: &Built,
    tw: &TwoWaySpec,
    flows: &[Value],
    warnings: &mut Vec<String>,
) -> Value {
    let sim = &b.sim;
    let steady0 = sim.metrics.steady_start;
    let idx = |n: &String| sim.flows.iter().position(|f| &f.name == n).unwrap();
    let si: Vec<usize> = tw.slow.names().iter().map(idx).collect();
    let sj: Vec<usize> = tw.fast.names().iter().map(idx).collect();
    let (mi, mj) = (&b.flow_meta[si[0]], &b.flow_meta[sj[0]]);
    let (li, lj) = (
        &sim.links[mi.path[0] as usize],
        &sim.links[mj.path[0] as usize],
    );
    let pkt = |k: usize| (b.flow_meta[k].tcp.mss + b.flow_meta[k].tcp.header) as f64;
    let win = |k: usize| (b.flow_meta[k].tcp.max_window / b.flow_meta[k].tcp.mss as u64) as f64;
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
        ta_i: b.flow_meta[sj[0]].tcp.ack_size as f64 * 8.0 / ri,
        ta_j: b.flow_meta[si[0]].tcp.ack_size as f64 * 8.0 / rj,
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

//! The run summary (`summary.json`): per flow, per link direction, run-level numbers and,
//! when the scenario asks for it, the closed-form predictions next to the simulated values.
//! Keys are documented in `docs/outputs.md`.

use crate::analysis::kalampoukas97::{self, TwoWayParams};
use crate::scenario::Built;
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
            let st = &f.sender.stats;
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
                "acks_sent": f.receiver.stats.acks_sent,
                "duplicate_segments": f.receiver.stats.duplicate_packets,
                "final_cwnd_bytes": f.sender.window(),
                "srtt_s": f.sender.rtt.srtt().map(|d| d.as_secs_f64()),
                "min_rtt_s": f.sender.rtt.min_rtt().map(|d| d.as_secs_f64()),
                "completed_at_s": f.completed_at.map(|t| t.as_secs_f64()),
                "max_window_reached_s": f.max_window_at.map(|t| t.as_secs_f64()),
                "steady_retransmits": st.retransmits - f.retransmits_before_steady,
                "steady_timeouts": st.timeouts - f.timeouts_before_steady,
            })
        })
        .collect();

    let links: Vec<Value> = sim
        .links
        .iter()
        .map(|l| {
            json!({
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
            })
        })
        .collect();

    let analysis = b.two_way.as_ref().map(|tw| {
        let idx = |n: &str| sim.flows.iter().position(|f| f.name == n).unwrap();
        let (i, j) = (idx(&tw.slow), idx(&tw.fast));
        let (mi, mj) = (&b.flow_meta[i], &b.flow_meta[j]);
        let (li, lj) = (&sim.links[mi.path[0] as usize], &sim.links[mj.path[0] as usize]);
        let pkt_i = (mi.tcp.mss + mi.tcp.header) as f64;
        let pkt_j = (mj.tcp.mss + mj.tcp.header) as f64;
        let p = TwoWayParams {
            w_i: (mi.tcp.max_window / mi.tcp.mss as u64) as f64,
            w_j: (mj.tcp.max_window / mj.tcp.mss as u64) as f64,
            rho_i: li.rate.bps() as f64 / (8.0 * pkt_i),
            rho_j: lj.rate.bps() as f64 / (8.0 * pkt_j),
            d: li.delay.as_secs_f64() + lj.delay.as_secs_f64(),
        };
        let pred = kalampoukas97::predict(&p);
        let sim_i = flows[i]["efficiency"].as_f64().unwrap();
        let sim_j = flows[j]["efficiency"].as_f64().unwrap();
        if !pred.compression {
            warnings.push("two-way analysis: condition (2.1) W_i/rho_i + W_j/rho_j > D does not hold; Theorem 1 does not apply".into());
        }
        for &k in &[i, j] {
            let f = &sim.flows[k];
            let st = &f.sender.stats;
            let steady_retx = st.retransmits - f.retransmits_before_steady;
            if steady_retx > 0 {
                warnings.push(format!(
                    "two-way analysis: flow '{}' retransmitted {} segments in the steady-state window; Theorems 1-2 assume a loss-free steady state",
                    f.name, steady_retx
                ));
            }
            match f.max_window_at {
                Some(t) if t > steady0 => warnings.push(format!(
                    "two-way analysis: flow '{}' reached its maximum window only at {:.1} s, after steady_start ({:.1} s); Theorem 1 assumes windows at their maximum",
                    f.name, t.as_secs_f64(), steady0.as_secs_f64()
                )),
                None => warnings.push(format!(
                    "two-way analysis: flow '{}' never reached its maximum window; Theorem 1 assumes windows at their maximum",
                    f.name
                )),
                _ => {}
            }
        }
        json!({
            "model": "kalampoukas97.theorem1",
            "reference": "Kalampoukas, Varma, Ramakrishnan 1997, Theorems 1-2 (eqs. 2.2, 2.3)",
            "params": p,
            "prediction": pred,
            "rows": [
                {"flow": tw.slow, "role": "slow (i)", "paper": tw.paper_slow, "analytic": pred.f_i, "simulated": sim_i,
                 "difference": sim_i - pred.f_i, "max_queue": li.stats.steady_max_queue_packets, "max_data_queue": li.stats.steady_max_data_queue, "q_max_bound": pred.q_i_max},
                {"flow": tw.fast, "role": "fast (j)", "paper": tw.paper_fast, "analytic": pred.f_j, "simulated": sim_j,
                 "difference": sim_j - pred.f_j, "max_queue": lj.stats.steady_max_queue_packets, "max_data_queue": lj.stats.steady_max_data_queue, "q_max_bound": pred.q_j_max},
            ],
            "paper_note": tw.paper_note,
        })
    });

    let total_drops: u64 = sim
        .links
        .iter()
        .map(|l| l.drops.packets + l.stats.lost)
        .sum();
    json!({
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
        "warnings": warnings,
    })
}

//! The run summary (`summary.json`): per flow, per link direction, run-level numbers and,
//! when the scenario asks for it, the closed-form predictions next to the simulated values
//! (computed by the configured [`crate::analysis::PaperAnalysis`]; nothing here is specific
//! to a paper).
//! Keys are documented in `docs/outputs.md`.

use crate::analysis::PaperAnalysis;
use crate::event::{FlowId, NodeId};
use crate::net::ErrorModel;
use crate::queue::DropReason;
use crate::scenario::Built;
use serde_json::{json, Value};

/// At most this many down periods per outage schedule in `summary.outages`.
const OUTAGE_CAP: usize = 10_000;

/// `v` (a flow's object) with the FlowMonitor-style keys added.
fn with_flow_monitor(mut v: Value, monitor: [(&str, Value); 6]) -> Value {
    for (k, x) in monitor {
        v[k] = x;
    }
    v
}

/// Build the summary of a finished run. `wall_seconds` is the only field that is not a
/// function of (scenario, seed).
pub fn summary(b: &Built, wall_seconds: f64) -> Value {
    let sim = &b.sim;
    let end = sim.end;
    let steady0 = sim.metrics.steady_start;
    let steady_secs = end.since(steady0).as_secs_f64();
    let sim_secs = end.as_secs_f64();
    let mut warnings: Vec<String> = Vec::new();

    // FlowMonitor's losses over the steady-state window, like its delays and jitter.
    let losses = sim.steady_data_losses();
    let flows: Vec<Value> = sim
        .flows
        .iter()
        .zip(&b.flow_meta)
        .zip(&losses)
        // Workload flows (quiet, after the scenario's own) are in fct.parquet instead.
        .filter(|((f, _), _)| !f.quiet)
        .map(|((f, m), &(data_sent, data_lost))| {
            let c = &f.counters;
            let d = &f.delay;
            let loss_ratio = if data_sent == 0 {
                0.0
            } else {
                data_lost as f64 / data_sent as f64
            };
            // FlowMonitor-style keys (issue 31 §4), the same for TCP and UDP flows, all over
            // the steady-state window.
            let monitor = [
                ("data_packets_lost", json!(data_lost)),
                ("data_loss_ratio", json!(loss_ratio)),
                ("mean_delay_s", json!(d.dist.mean_s())),
                ("p50_delay_s", json!(d.dist.quantile_s(0.5))),
                ("p99_delay_s", json!(d.dist.quantile_s(0.99))),
                ("mean_jitter_s", json!(d.jitter_s())),
            ];
            // Data that arrived before the window, held out of order, and was delivered in
            // it when the hole below it filled: not the window's goodput (issue 31: counted
            // in, a short window showed goodput above throughput, and above capacity).
            let carried = f
                .tcp()
                .map_or(0, |(_, r)| carried_in(&f.steady_held, r.rcv_nxt()));
            let good = (c.goodput_bytes - c.steady_goodput0 - carried) as f64 * 8.0 / steady_secs;
            let thr = (c.wire_bytes - c.steady_wire0) as f64 * 8.0 / steady_secs;
            let link = &sim.links[f.eff_link.index()];
            let Some((sender, receiver)) = f.tcp() else {
                let (us, ur) = f.udp().expect("a flow is TCP or UDP");
                let v = json!({
                    "name": f.name,
                    "from": sim.nodes[f.src.index()].name,
                    "to": sim.nodes[f.dst.index()].name,
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
                let mut v = with_flow_monitor(v, monitor);
                if ur.echo {
                    v["echo"] = json!(true);
                    v["echo_replies"] = json!(us.echoes_received);
                    v["mean_rtt_s"] = json!(us.echo_rtt.mean_s());
                    v["p99_rtt_s"] = json!(us.echo_rtt.quantile_s(0.99));
                }
                return v;
            };
            let st = &sender.stats;
            let v = json!({
                "name": f.name,
                "from": sim.nodes[f.src.index()].name,
                "to": sim.nodes[f.dst.index()].name,
                "cc": m.cc,
                "goodput_bps": good,
                "throughput_bps": thr,
                "efficiency": thr / link.rate.bps() as f64,
                "efficiency_link": link.name,
                "bytes_delivered": c.goodput_bytes,
                "steady_carried_bytes": carried,
                "segments_sent": st.segments_sent,
                "retransmits": st.retransmits,
                "fast_retransmits": st.fast_retransmits,
                "timeouts": st.timeouts,
                "acks_sent": receiver.stats.acks_sent,
                "duplicate_segments": receiver.stats.duplicate_packets,
                "final_cwnd_bytes": sender.window(),
                "srtt_s": sender.rtt.srtt().map(|d| d.as_secs_f64()),
                "min_rtt_s": sender.rtt.min_rtt().map(|d| d.as_secs_f64()),
                "mean_rtt_s": sender.rtt_dist.mean_s(),
                "p99_rtt_s": sender.rtt_dist.quantile_s(0.99),
                "completed_at_s": f.completed_at.map(|t| t.as_secs_f64()),
                "max_window_reached_s": f.max_window_at.map(|t| t.as_secs_f64()),
                "steady_retransmits": st.retransmits - f.retransmits_before_steady,
                "steady_timeouts": st.timeouts - f.timeouts_before_steady,
                "ce_marks": receiver.stats.ce_received,
                "ece_acks": st.ece_received,
                "ecn_reductions": st.ecn_reductions,
                "tlp_probes": sender.rack_state().map_or(0, |r| r.stats.tlp_probes),
                "frto_spurious": sender.undo_stats().map_or(0, |u| u.frto_spurious),
                "dsack_undos": sender.undo_stats().map_or(0, |u| u.dsack_undos),
            });
            let mut v = v;
            // Keys of the two optional buffers only where set, so other summaries keep theirs.
            if m.tcp.send_buffer != u64::MAX {
                v["send_buffer_waiting_bytes"] = match sender.written() {
                    u64::MAX => Value::Null,
                    w => json!(w - sender.app_limit()),
                };
            }
            if m.tcp.playback.is_some() {
                let rs = &receiver.stats;
                v["playback_reads"] = json!(rs.playback_reads);
                v["playback_read_bytes"] = json!(rs.playback_read_bytes);
                v["playback_held_bytes"] = json!(receiver.playback_held());
                v["window_updates"] = json!(rs.window_updates);
                v["window_probes"] = json!(st.window_probes);
            }
            with_flow_monitor(v, monitor)
        })
        .collect();

    // `group` only where set, so summaries of scenarios without groups keep their keys.
    let mut flows = flows;
    for (v, m) in flows.iter_mut().zip(&b.flow_meta) {
        if let Some(g) = &m.group {
            v["group"] = json!(g);
        }
    }
    let fairness = fairness(b, &flows, &mut warnings);

    let steady_ps = end.since(steady0).0;
    let links: Vec<Value> = sim
        .links
        .iter()
        .map(|l| {
            let offered = l.stats.offered - l.stats.steady_offered0;
            let area = l.queue_area_at(end) - l.stats.steady_area0;
            let queued = l.queued() - l.stats.steady_queued0;
            let rate = |n: u64| {
                if offered == 0 {
                    0.0
                } else {
                    n as f64 / offered as f64
                }
            };
            let mut v = json!({
                "name": l.name,
                "from": sim.nodes[l.from.index()].name,
                "to": sim.nodes[l.to.index()].name,
                "rate_bps": l.rate.bps(),
                "delay_s": l.delay.as_secs_f64(),
                "queue": crate::queue::QueueDisc::name(&l.queue),
                "utilization": l.busy_time(end).as_secs_f64() / sim_secs,
                "steady_utilization": if steady_ps == 0 { 0.0 } else {
                    (l.busy_time(end).0 - l.stats.steady_busy0) as f64 / steady_ps as f64
                },
                "steady_drop_rate": rate(l.drops.packets - l.stats.steady_drops0),
                "steady_mark_rate": rate(l.drops.marks - l.stats.steady_marks0),
                "steady_mean_queue_packets": if steady_ps == 0 { 0.0 } else {
                    area as f64 / steady_ps as f64
                },
                "steady_mean_queue_delay_s": (queued > 0).then(|| {
                    area as f64 / queued as f64 * 1e-12
                }),
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
            if let crate::queue::AnyQueue::Choke(c) = &l.queue {
                v["choke_checks"] = json!(c.checks);
                v["choke_matches"] = json!(c.matches);
            }
            if let crate::queue::AnyQueue::FqCodel(q) = &l.queue {
                v["fq_new_flows"] = json!(q.new_flow_count);
                v["fq_overflow_events"] = json!(q.overflow_events);
            }
            if let crate::queue::AnyQueue::Pie(q) = &l.queue {
                v["pie_drop_prob"] = json!(q.drop_prob);
                v["pie_updates"] = json!(q.updates);
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
        .analysis
        .as_ref()
        .map(|a| a.evaluate(&run_view(b), &flows, &mut warnings));

    let pcap = pcap_summary(b, &mut warnings);
    queue_warnings(b, &mut warnings);
    prr_warnings(b, &mut warnings);
    defaults_warnings(b, &mut warnings);
    window_limit_warnings(b, &mut warnings);
    flow_warnings(b, &mut warnings);
    tie_warnings(b, &mut warnings);

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
            "stochastic": uses_randomness(b),
            "packets_dropped": total_drops,
        },
        "flows": flows,
        "fairness": fairness,
        "links": links,
        "analysis": analysis,
        "pcap": pcap,
        "warnings": warnings,
    });
    // Only when the run has finite transfers: their completion times and slowdowns.
    if let Some(v) = fct_summary(b, &mut out) {
        out["fct"] = v;
    }
    // Only when the scenario has outage schedules: their down periods (for windows after a
    // handoff, seed 003's Fig 5), at most OUTAGE_CAP each.
    if !b.scenario.outages.is_empty() {
        out["outages"] = crate::scenario::outage_periods(&b.scenario, b.seed, end, OUTAGE_CAP)
            .into_iter()
            .map(|(name, (v, cut))| {
                let periods: Vec<Value> = v
                    .iter()
                    .map(|&(d, u)| json!([d.as_secs_f64(), u.min(end).as_secs_f64()]))
                    .collect();
                (name, json!({ "periods": periods, "truncated": cut }))
            })
            .collect::<serde_json::Map<String, Value>>()
            .into();
    }
    // Only when the scenario has agents (Snoop): their counters, by agent name.
    if !sim.agents.is_empty() {
        out["agents"] = b
            .scenario
            .agents
            .iter()
            .zip(&sim.agents)
            .map(|((name, spec), a)| {
                let crate::net::snoop::AnyAgent::Snoop(s) = a;
                let st = s.stats;
                let crate::net::snoop::AgentSpec::Snoop(sp) = spec;
                (
                    name.clone(),
                    json!({
                        "type": spec.kind(),
                        "node": sp.node,
                        "wireless": sp.wireless,
                        "cached": st.cached,
                        "not_cached": st.not_cached,
                        "local_retransmits": st.local_retransmits,
                        "timer_retransmits": st.timer_retransmits,
                        "suppressed_dupacks": st.suppressed_dupacks,
                    }),
                )
            })
            .collect::<serde_json::Map<String, Value>>()
            .into();
    }
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
                        "flows": s.flows.iter().map(|&f| sim.flows[f.index()].name.clone()).collect::<Vec<_>>(),
                        "requested": pairs(&s.steps),
                        "active": pairs(&s.log),
                    }),
                )
            })
            .collect::<serde_json::Map<String, Value>>()
            .into();
    }
    if sim.audited() {
        crate::audit::check_summary(&out);
    }
    out
}

/// Bytes of the out-of-order ranges `held` when the steady-state window began that the
/// receiver delivered by the end (those below its final `rcv_nxt`).
pub fn carried_in(held: &[(u64, u64)], rcv_nxt: u64) -> u64 {
    held.iter()
        .map(|&(s, e)| e.min(rcv_nxt).saturating_sub(s))
        .sum()
}

/// Jain's index `(Σx)²/(n·Σx²)` of steady-state goodputs: over all TCP flows (`jain`), and
/// per `group` label over the group's flows, whatever their transport. Null with no flow,
/// and 1 when every goodput is 0 (nobody is treated worse than anybody else).
pub fn jain(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    let s: f64 = x.iter().sum();
    let q: f64 = x.iter().map(|v| v * v).sum();
    Some(if q == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * q)
    })
}

fn fairness(b: &Built, flows: &[Value], warnings: &mut Vec<String>) -> Value {
    let good = |v: &Value| v["goodput_bps"].as_f64().unwrap_or(0.0);
    let tcp: Vec<f64> = flows
        .iter()
        .filter(|v| v.get("cc").is_some())
        .map(good)
        .collect();
    let mut groups = serde_json::Map::new();
    let mut names: Vec<&str> = b
        .flow_meta
        .iter()
        .take(flows.len())
        .filter_map(|m| m.group.as_deref())
        .collect();
    names.sort_unstable();
    names.dedup();
    for g in names {
        let x: Vec<f64> = flows
            .iter()
            .zip(&b.flow_meta)
            .filter(|(_, m)| m.group.as_deref() == Some(g))
            .map(|(v, _)| good(v))
            .collect();
        groups.insert(
            g.to_string(),
            json!({ "jain": jain(&x), "flows": x.len(), "goodput_bps": x.iter().sum::<f64>() }),
        );
    }
    // A bulk TCP flow that had data to send for the whole steady-state window.
    let (steady0, end) = (b.sim.metrics.steady_start, b.sim.end);
    let always_on = |f: &crate::sim::Flow| {
        matches!(f.app, crate::app::App::Bulk { .. })
            && f.schedule.is_none()
            && f.app.start() <= steady0
            && f.app.stop().is_none_or(|s| s >= end)
    };
    let starved: Vec<&str> = flows
        .iter()
        .zip(&b.sim.flows)
        .filter(|(v, f)| v.get("cc").is_some() && good(v) == 0.0 && always_on(f) && steady0 < end)
        .filter_map(|(v, _)| v["name"].as_str())
        .collect();
    if !starved.is_empty() && tcp.len() > 1 {
        // At most 20 names (10,000 starved flows make one readable line, not 100 kB).
        const NAMES: usize = 20;
        let more = starved.len().saturating_sub(NAMES);
        let tail = if more > 0 {
            format!(
                " and {more} more ({} of {} TCP flows)",
                starved.len(),
                tcp.len()
            )
        } else {
            String::new()
        };
        warnings.push(format!(
            "TCP flow(s) with zero goodput in the steady-state window: {}{tail} (starved?)",
            starved[..starved.len().min(NAMES)].join(", ")
        ));
    }
    json!({ "jain": jain(&tcp), "flows": tcp.len(), "groups": groups })
}

/// Whether link direction `i`'s error model drew a random number in the run.
fn model_drew(m: &ErrorModel, seed: u64, i: u64) -> bool {
    use crate::rng::Stream;
    match m {
        ErrorModel::Bernoulli(m) => m.rng().drew_since(seed, Stream::LinkLoss, i),
        ErrorModel::GilbertElliott(m) => m.rng().drew_since(seed, Stream::LinkError, i),
        ErrorModel::PoissonTime(m) => m.rng().drew_since(seed, Stream::LinkError, i),
        // Exponential lengths are drawn as the schedule is built (the first outage).
        ErrorModel::Outage(o) => o.is_random(),
        ErrorModel::None | ErrorModel::List(_) => false,
        ErrorModel::BeforeQueue(m) => model_drew(m, seed, i),
    }
}

/// Whether the run drew from any random stream, as it ran — not whether a component could
/// (a sweep of BBR flows was once told its seeds were all alike): a link direction's
/// queue stream (RED/RED-I and CHOKe early tests, CHOKe's victims, PIE's drops, FQ-CoDel's
/// hash perturbation), its error model (Bernoulli and Gilbert-Elliott losses, exponential
/// outage lengths), an on/off source's exponential periods, an algorithm's own stream
/// (BBR's gain-cycle start phase), a positive `start_jitter`. Each stream is compared with
/// its state when derived ([`crate::rng::SimRng::drew_since`]), so this costs nothing per
/// draw. A draw need not change the results (a RED queue's draw that falls above p),
/// but without any draw the seed cannot change them.
fn uses_randomness(b: &Built) -> bool {
    use crate::rng::Stream;
    let (sim, seed) = (&b.sim, b.seed);
    let links = sim.links.iter().enumerate().any(|(i, l)| {
        let i = i as u64;
        l.queue_rng.drew_since(seed, Stream::Queue, i) || model_drew(&l.error, seed, i)
    });
    let flows = sim.flows.iter().enumerate().any(|(i, f)| {
        let i = i as u64;
        let app = match &f.app {
            crate::app::App::OnOff(o) => o.rng().drew_since(seed, Stream::App, i),
            crate::app::App::Poisson(p) => p.rng().drew_since(seed, Stream::App, i),
            _ => false,
        };
        app || f
            .tcp()
            .and_then(|(s, _)| s.cc.rng())
            .is_some_and(|r| r.drew_since(seed, Stream::Cc, i))
    });
    links || flows || b.flow_meta.iter().any(|m| m.jittered) || !b.scenario.workloads.is_empty()
}

/// Settings that are valid but likely not what the user meant: an ECN flow whose path has
/// no queue that can mark (it will only ever see drops), a RED queue whose buffer is
/// smaller than its lower threshold (RED never acts).
fn queue_warnings(b: &Built, warnings: &mut Vec<String>) {
    use crate::queue::QueueDisc;
    let sim = &b.sim;
    for (f, m) in sim.flows.iter().zip(&b.flow_meta) {
        if m.tcp.ecn.enabled
            && f.tcp().is_some()
            && !m
                .path
                .iter()
                .any(|&l| sim.links[l.index()].queue.can_mark())
        {
            warnings.push(format!(
                "flow '{}' has ecn = true but no queue on its path marks (red, red_i, choke, choke_red_i, codel, fq_codel or pie with ecn, or droptail with mark_threshold): it will only ever see drops",
                f.name
            ));
        }
    }
    for l in &sim.links {
        let red = match &l.queue {
            crate::queue::AnyQueue::Red(r) => Some(r),
            crate::queue::AnyQueue::Choke(c) => Some(c.red()),
            _ => None,
        };
        if let Some(r) = red {
            let c = r.config();
            if let crate::queue::Limit::Packets(n) = c.limit {
                if (n as f64) <= c.min_th {
                    warnings.push(format!(
                        "links.{}.queue: limit {n} packets is not above min_th {}: {} never acts, the buffer drops at its limit",
                        l.name,
                        c.min_th,
                        l.queue.name()
                    ));
                }
            }
        }
    }
}

/// A `prr` the user wrote (on the flow, in `[defaults.flows]` or a builder's flow table) on
/// a flow whose algorithm sets its recovery window itself (`controls_recovery_window`: BBR,
/// as Linux's `cong_control` bypasses PRR): the value is ignored. A profile's `prr` (the
/// "linux" and "ns3" profiles set one) is not the user's choice and gets no warning, nor
/// does `prr = "off"`, which is what such a flow gets anyway.
fn prr_warnings(b: &Built, warnings: &mut Vec<String>) {
    use crate::cc::CongestionControl;
    use crate::scenario::PrrSpec;
    for f in &b.sim.flows {
        let Some((s, _)) = f.tcp() else { continue };
        let Some(spec) = b.scenario.flows.get(&f.name) else {
            continue;
        };
        let Some(p @ (PrrSpec::Ssrb | PrrSpec::Crb)) = spec.prr else {
            continue;
        };
        let at = format!("flows.{}.prr", f.name);
        if s.cc.controls_recovery_window() && !b.scenario.origins.from_profile(&at) {
            warnings.push(format!(
                "flow '{}' sets prr = \"{}\" but its cc ({}) sets the recovery window itself, as Linux's BBR does: prr is ignored for this flow (docs/tcp.md, PRR)",
                f.name,
                match p {
                    PrrSpec::Crb => "crb",
                    _ => "ssrb",
                },
                s.cc.name()
            ));
        }
    }
}

/// Algorithms written for today's stacks, which run them with SACK and an initial window of
/// 10 (Linux; ns-3's defaults): BBR's model and CUBIC's and DCTCP's windows recover one loss
/// per round trip without SACK, and start from one segment under the `classic` profile
/// (`sack = false`, `init_cwnd = 1`: the papers' setting, which their scenarios name).
pub const ASSUME_SACK: [&str; 3] = ["bbr", "cubic", "dctcp"];

/// A flow of an [`ASSUME_SACK`] algorithm on a default it does not expect: no SACK, or an
/// initial window of 1, neither written anywhere (flow, `[defaults.flows]`, builder table,
/// override, profile). One line per kind, with the count and the first few flows; writing
/// the value (`sack = false`, `init_cwnd = 1`) acknowledges it.
fn defaults_warnings(b: &Built, warnings: &mut Vec<String>) {
    const NAMES: usize = 5;
    let o = &b.scenario.origins;
    // 0: neither SACK nor IW 10; 1: no SACK; 2: IW 1.
    let mut kinds: [Vec<(&str, &str)>; 3] = Default::default();
    for (f, m) in b.sim.flows.iter().zip(&b.flow_meta) {
        if f.tcp().is_none() || !ASSUME_SACK.contains(&m.cc.as_str()) {
            continue;
        }
        let no_sack = !m.tcp.sack && !o.written(&format!("flows.{}.sack", f.name));
        let iw1 = m.tcp.start.init_cwnd == 1 && !o.written(&format!("flows.{}.init_cwnd", f.name));
        let k = match (no_sack, iw1) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => continue,
        };
        kinds[k].push((f.name.as_str(), m.cc.as_str()));
    }
    for (k, v) in kinds.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        let mut names: Vec<String> = v[..v.len().min(NAMES)]
            .iter()
            .map(|(n, cc)| format!("{n} ({cc})"))
            .collect();
        if v.len() > NAMES {
            names.push(format!("and {} more", v.len() - NAMES));
        }
        let (what, set, keep) = match k {
            0 => (
                "without SACK, from an initial window of 1 segment",
                "sack = true, init_cwnd = 10",
                "sack = false / init_cwnd = 1",
            ),
            1 => ("without SACK", "sack = true", "sack = false"),
            _ => (
                "from an initial window of 1 segment",
                "init_cwnd = 10",
                "init_cwnd = 1",
            ),
        };
        warnings.push(format!(
            "{} flow(s) of an algorithm written for today's stacks run {what} (profile \
             \"classic\": the papers' defaults): {}; set profile = \"linux\" or \"ns3\" (on the \
             flows or in [defaults.flows]), or {set}; write {keep} to keep it (docs/tcp.md#profiles)",
            v.len(),
            names.join(", ")
        ));
    }
}

/// TCP flows whose window sat at a `max_window` they did not write (a profile's, e.g. ns3's
/// 128 KiB) at the end of most steady-state intervals: the receive window, not congestion
/// control, set their rate. Read from the interval rows (the window at each interval's end);
/// a `max_window` the flow (or `[defaults.flows]`) writes is taken as meant.
fn window_limit_warnings(b: &Built, warnings: &mut Vec<String>) {
    const NAMES: usize = 5;
    let o = &b.scenario.origins;
    let iv = &b.sim.intervals;
    let steady0 = b.sim.metrics.steady_start.as_secs_f64();
    let n = b.sim.flows.len();
    let (mut at_max, mut rows) = (vec![0u32; n], vec![0u32; n]);
    for r in 0..iv.flow.len() {
        if iv.t_start[r] < steady0 || iv.active[r] < 1.0 {
            continue;
        }
        let f = iv.flow[r].index();
        rows[f] += 1;
        at_max[f] += u32::from(iv.cwnd_bytes[r] >= b.flow_meta[f].tcp.max_window);
    }
    let limited: Vec<(&str, u64, f64)> = b
        .sim
        .flows
        .iter()
        .zip(&b.flow_meta)
        .enumerate()
        .filter(|(i, (f, _))| {
            f.tcp().is_some()
                && rows[*i] >= 4
                && 2 * at_max[*i] > rows[*i]
                && o.from_profile(&format!("flows.{}.max_window", f.name))
        })
        .map(|(i, (f, m))| {
            (
                f.name.as_str(),
                m.tcp.max_window,
                at_max[i] as f64 / rows[i] as f64,
            )
        })
        .collect();
    if limited.is_empty() {
        return;
    }
    let mut names: Vec<String> = limited[..limited.len().min(NAMES)]
        .iter()
        .map(|(name, w, frac)| format!("'{name}' ({w} B, {:.0} %)", 100.0 * frac))
        .collect();
    if limited.len() > NAMES {
        names.push(format!("and {} more", limited.len() - NAMES));
    }
    warnings.push(format!(
        "{} TCP flow(s) had their window at the max_window their profile sets at the end of \
         most steady-state intervals: {}; the receive window, not congestion control, set \
         their rate. Write a larger max_window on the flows (or in [defaults.flows]) if the \
         algorithm should act, or write this one to keep it",
        limited.len(),
        names.join(", ")
    ));
}

/// A link whose queue dropped packets at its limit while two or more links of exactly its
/// rate feed it on the flows' paths (seed 003's dumbbells: access links at the bottleneck's
/// rate). Packets from them reach its queue at the same instants, so which of two tied
/// arrivals a full buffer drops is the engine's tie order, not the protocols, and the flows'
/// shares can turn on it (docs/reproductions.md, seed 003's Figs 9-11: standard TCP's share
/// against TCP(0.31, 0.875) is about 50 % with tcplab's hashed order and 25-34 % with
/// ns-2's FIFO order at N >= 60; with 100 Mb/s access links nothing ties: 39-46 % and 22-31 %).
fn tie_warnings(b: &Built, warnings: &mut Vec<String>) {
    /// Tied links listed one warning each up to this many of a kind; more are one warning.
    const EACH: usize = 3;
    let sim = &b.sim;
    let mut pairs: Vec<(usize, usize)> = b
        .flow_meta
        .iter()
        .flat_map(|m| m.path.windows(2).map(|w| (w[1].index(), w[0].index())))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    // (link, drops, feeders) for ties fed by hosts' links, and for ties between switches.
    let mut by_hosts: Vec<(&str, u64, Vec<&str>)> = Vec::new();
    let mut by_fabric: Vec<(&str, u64, Vec<&str>)> = Vec::new();
    for (li, l) in sim.links.iter().enumerate() {
        let over = l.drops.by_reason[DropReason::Overflow.index()];
        if over == 0 {
            continue;
        }
        let lo = pairs.partition_point(|&(d, _)| d < li);
        let hi = pairs.partition_point(|&(d, _)| d <= li);
        let feeders: Vec<usize> = pairs[lo..hi]
            .iter()
            .filter(|&&(_, u)| sim.links[u].rate.bps() == l.rate.bps())
            .map(|&(_, u)| u)
            .collect();
        if feeders.len() < 2 {
            continue;
        }
        // Host links feeding a router at its rate are a choice of the scenario (seed 003's
        // access links); links between switches at one rate are a fabric's design (a
        // fat-tree's), where faster feeders would make another topology.
        let from_hosts = feeders
            .iter()
            .all(|&u| sim.nodes[sim.links[u].from.index()].kind == crate::net::NodeKind::Host);
        let mut names: Vec<&str> = feeders
            .iter()
            .map(|&u| sim.links[u].name.as_str())
            .collect();
        names.sort_unstable();
        let entry = (l.name.as_str(), over, names);
        if from_hosts {
            by_hosts.push(entry);
        } else {
            by_fabric.push(entry);
        }
    }
    let list = |names: &[&str]| {
        if names.len() > 3 {
            format!("{} and {} more", names[..3].join(", "), names.len() - 3)
        } else {
            names.join(", ")
        }
    };
    const WHY: &str = "their packets reach its queue at the same instants, so which tied packet \
                       is dropped is the engine's tie order, not the protocols, and the flows' \
                       shares can turn on it";
    for (ties, advice) in [
        (
            &by_hosts,
            "faster host links avoid the ties where the topology allows; docs/reproductions.md, \
             seed 003's Figs 9-11",
        ),
        (
            &by_fabric,
            "links of one rate between switches tie by design: compare several seeds before \
             reading one flow's share; docs/scaling.md, \"Why the hash\"",
        ),
    ] {
        if ties.len() <= EACH {
            for (link, over, names) in ties {
                warnings.push(format!(
                    "links.{link}: dropped {over} packet(s) at its limit while fed by {} links of \
                     exactly its rate ({}): {WHY} ({advice})",
                    names.len(),
                    list(names)
                ));
            }
        } else {
            let links: Vec<&str> = ties.iter().map(|t| t.0).collect();
            let over: u64 = ties.iter().map(|t| t.1).sum();
            warnings.push(format!(
                "{} links dropped {over} packet(s) at their limits while each was fed by two or \
                 more links of exactly its rate ({}): {} ({advice})",
                ties.len(),
                list(&links),
                WHY.replace("its queue", "their queues")
            ));
        }
    }
}

/// Results that are likely not what the user meant: a host's own outgoing queue that
/// overflowed although a slower link follows (a sender's window outgrew the path), a TCP flow that delivered nothing for
/// several intervals while its application ran (starved), a window far above the path's
/// bandwidth-delay product plus the queueing it ever saw from its slowest link on (inflated
/// by a long recovery, or grown while application-limited). Thresholds: 3 intervals; 4x and 100 kB.
fn flow_warnings(b: &Built, warnings: &mut Vec<String>) {
    use crate::net::NodeKind;
    let sim = &b.sim;
    for (li, l) in sim.links.iter().enumerate() {
        let over = l.drops.by_reason[DropReason::Overflow.index()];
        // Only where the host's link is not the bottleneck of a flow it carries (on a
        // two-host path the host queue is the bottleneck queue and drops there are the
        // normal congestion signal).
        let upstream = b.flow_meta.iter().any(|m| {
            m.path.first().map(|p| p.index()) == Some(li)
                && m.path
                    .iter()
                    .any(|&p| sim.links[p.index()].rate.bps() < l.rate.bps())
        });
        if over > 0 && upstream && sim.nodes[l.from.index()].kind == NodeKind::Host {
            warnings.push(format!(
                "links.{}: the queue of host '{}' dropped {over} packet(s) at its limit although a slower link follows: a local sender's window (or a source's rate) outgrew what the path holds (backpressure or a smaller max_window avoids it for TCP)",
                l.name,
                sim.nodes[l.from.index()].name
            ));
        }
    }
    let iv = &sim.intervals;
    let n = sim.flows.len();
    // Per flow: the longest run of consecutive intervals with the application running
    // throughout and nothing delivered, and the largest window at an interval's end.
    let mut run = vec![(0usize, 0.0f64); n];
    let mut worst = vec![(0usize, 0.0f64, 0.0f64); n];
    let mut max_cwnd = vec![0u64; n];
    for k in 0..iv.flow.len() {
        let i = iv.flow[k].index();
        max_cwnd[i] = max_cwnd[i].max(iv.cwnd_bytes[k]);
        if iv.active[k] >= 1.0 && iv.goodput_bps[k] == 0.0 {
            if run[i].0 == 0 {
                run[i].1 = iv.t_start[k];
            }
            run[i].0 += 1;
            if run[i].0 > worst[i].0 {
                worst[i] = (run[i].0, run[i].1, iv.t_end[k]);
            }
        } else {
            run[i].0 = 0;
        }
    }
    for (i, (f, m)) in sim.flows.iter().zip(&b.flow_meta).enumerate() {
        if f.tcp().is_none() {
            continue;
        }
        let (k, t0, t1) = worst[i];
        // A transfer that delivered all its bytes has nothing left to deliver.
        let done = matches!(f.app, crate::app::App::Transfer { bytes, .. } if f.counters.goodput_bytes >= bytes);
        if k >= 3 && !done {
            warnings.push(format!(
                "flow '{}' delivered nothing for {k} consecutive intervals ({t0}-{t1} s) while its application was running: starved (a long recovery or repeated timeouts?)",
                f.name
            ));
        }
        // Bandwidth-delay product of the forward path (twice its one-way delays) at its
        // slowest rate, plus the most every queue from the slowest link on ever held. The
        // queues before it (the sender's own host queue on a faster access link) do not
        // count: what they hold is the window in excess, not room the path offers.
        let path = m.path.iter().map(|&l| &sim.links[l.index()]);
        let rate = path.clone().map(|l| l.rate.bps()).min().unwrap_or(0);
        let rtt: f64 = 2.0 * path.clone().map(|l| l.delay.as_secs_f64()).sum::<f64>();
        let queued: u64 = path
            .clone()
            .skip_while(|l| l.rate.bps() > rate)
            .map(|l| l.stats.max_queue_bytes)
            .sum();
        let rate = rate as f64;
        let plausible = rate * rtt / 8.0 + queued as f64;
        let w = max_cwnd[i] as f64;
        if w > 4.0 * plausible && w > 100_000.0 {
            warnings.push(format!(
                "flow '{}': its window reached {} bytes, {:.0}x the path's bandwidth-delay product plus the most its queues ever held ({:.0} bytes): an inflated window (a long recovery, or growth while application-limited) that would leave in one burst",
                f.name,
                max_cwnd[i],
                w / plausible,
                plausible
            ));
        }
    }
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
            let a = node_addr(NodeId::from_index(i));
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
                json!({"sender": sender_port(FlowId::from_index(i)), "receiver": RECEIVER_PORT}),
            )
        })
        .collect();
    json!({"files": files, "addresses": addresses, "ports": ports})
}

/// The finished run as the closed forms read it ([`crate::analysis::RunView`]).
fn run_view(b: &Built) -> crate::analysis::RunView<'_> {
    crate::analysis::RunView {
        sim: &b.sim,
        flows: b
            .flow_meta
            .iter()
            .map(|m| crate::analysis::FlowView {
                path: &m.path,
                tcp: &m.tcp,
            })
            .collect(),
    }
}

/// The default upper edges of the FCT summary's size buckets, in bytes.
pub const FCT_BUCKETS: [u64; 4] = [10_000, 100_000, 1_000_000, 10_000_000];

/// The `q` quantile of sorted `x`, linear between order statistics (numpy's default).
pub fn quantile_sorted(x: &[f64], q: f64) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    let h = (x.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(x.len() - 1);
    Some(x[lo] + (h - lo as f64) * (x[hi] - x[lo]))
}

/// A size in bytes as a bucket label ("10KB", "1MB"; decimal units).
fn size_label(b: u64) -> String {
    for (unit, n) in [("GB", 1_000_000_000u64), ("MB", 1_000_000), ("KB", 1_000)] {
        if b >= n && b.is_multiple_of(n) {
            return format!("{}{unit}", b / n);
        }
    }
    format!("{b}B")
}

/// Completed count, share and slowdown quantiles of the rows `idx`.
fn fct_stats(fct: &crate::stats::columns::FctColumns, idx: &[usize]) -> Value {
    // A column's values over the completed rows, sorted.
    let sorted = |col: &[f64]| {
        let mut v: Vec<f64> = idx
            .iter()
            .filter(|&&i| fct.completed[i] == 1)
            .map(|&i| col[i])
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let (sd, t) = (sorted(&fct.slowdown), sorted(&fct.fct_s));
    let mean = |x: &[f64]| (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64);
    json!({
        "flows": idx.len(),
        "completed": sd.len(),
        "completed_share": if idx.is_empty() { None } else { Some(sd.len() as f64 / idx.len() as f64) },
        "slowdown_p50": quantile_sorted(&sd, 0.5),
        "slowdown_p95": quantile_sorted(&sd, 0.95),
        "slowdown_p99": quantile_sorted(&sd, 0.99),
        "slowdown_mean": mean(&sd),
        "fct_p50_s": quantile_sorted(&t, 0.5),
        "fct_p99_s": quantile_sorted(&t, 0.99),
        "fct_mean_s": mean(&t),
    })
}

/// Overall, per size bucket, and per workload (each with its own buckets).
fn fct_block(fct: &crate::stats::columns::FctColumns, idx: &[usize], edges: &[u64]) -> Value {
    let mut v = fct_stats(fct, idx);
    let mut buckets = Vec::new();
    let mut lo = 0u64;
    for k in 0..=edges.len() {
        let hi = edges.get(k).copied();
        let rows: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| fct.bytes[i] >= lo && hi.is_none_or(|h| fct.bytes[i] < h))
            .collect();
        let label = match (k, hi) {
            (0, Some(h)) => format!("<{}", size_label(h)),
            (_, Some(h)) => format!("{}-{}", size_label(lo), size_label(h)),
            (_, None) => format!(">={}", size_label(lo)),
        };
        let mut b = fct_stats(fct, &rows);
        b["bucket"] = json!(label);
        b["bytes_min"] = json!(lo);
        b["bytes_max"] = json!(hi);
        buckets.push(b);
        lo = hi.unwrap_or(lo);
    }
    v["buckets"] = json!(buckets);
    v
}

/// summary.json's `fct`: completion and slowdown over every round of `fct.parquet`, by size
/// bucket (`metrics.fct_buckets`) and by workload. A warning when many did not complete.
fn fct_summary(b: &Built, out: &mut Value) -> Option<Value> {
    let fct = &b.sim.fct;
    if fct.is_empty() {
        return None;
    }
    let edges: Vec<u64> = match &b.scenario.metrics.fct_buckets {
        Some(v) => v.iter().map(|s| s.0).collect(),
        None => FCT_BUCKETS.to_vec(),
    };
    let all: Vec<usize> = (0..fct.len()).collect();
    let mut v = fct_block(fct, &all, &edges);
    let mut labels: Vec<&str> = fct
        .workload
        .iter()
        .copied()
        .filter(|l| !l.is_empty())
        .collect();
    labels.sort_unstable();
    labels.dedup();
    let mut per = serde_json::Map::new();
    for l in labels {
        let rows: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| fct.workload[i] == l)
            .collect();
        per.insert(l.to_string(), fct_block(fct, &rows, &edges));
    }
    v["workloads"] = json!(per);
    v["buckets_bytes"] = json!(edges);
    let share = v["completed_share"].as_f64().unwrap_or(1.0);
    if share < 0.95 {
        let msg = format!(
            "{:.1} % of the {} transfers did not complete before the end of the run: the FCT and slowdown quantiles leave out the slowest (fct.parquet has them as completed = 0); run longer than the last arrival, or set the workloads' stop earlier",
            100.0 * (1.0 - share),
            fct.len()
        );
        if let Some(w) = out["warnings"].as_array_mut() {
            w.push(json!(msg));
        }
    }
    Some(v)
}

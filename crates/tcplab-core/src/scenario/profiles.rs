//! What a profile means for a flow: the transport keys it sets (the tables below, one per
//! [`Profile`], documented key by key with sources in docs/tcp.md, "Profiles") and the
//! rules that depend on the flow's own choices, read from its typed spec ([`flow_keys`]).
//! The flow's algorithm and application add their own keys through their hooks
//! (`CcSpec::profile_keys` in cc/, `AppSpec::profile_keys` in app/); which profile applies
//! to a flow, and over which keys, is expansion's (scenario/expand, docs/scenarios.md).
//!
//! - `linux`: a current Linux sender and receiver (6.x defaults: CUBIC, SACK, RACK-TLP,
//!   PRR, F-RTO, D-SACK undo, IW10, delayed acks, 200 ms minimum RTO, timestamps).
//! - `ns3`: ns-3's `TcpSocket`/`TcpSocketBase`/`TcpL4Protocol` attribute defaults
//!   (read from ns-3.40's sources; see docs/tcp.md for what was not verified for 3.44).
//! - `rfc`: standards-track NewReno: RFC 5681 (IW 3 for SMSS 1460, delayed acks), RFC 6582
//!   (the Impatient timer of §3.2 step 5), RFC 6298 (1 s initial and minimum RTO).
//! - `ns2`: ns-2.35's one-way TCP agents and sinks as `tcl/lib/ns-default.tcl` sets them
//!   (Agent/TCP, Agent/TCP/Newreno, Agent/TCPSink), each key's source in docs/tcp.md. The
//!   algorithm is not set (Reno, Newreno, Vegas, ... are ns-2 agents of their own: set `cc`)
//!   nor is `max_window` (ns-2's `window_` of 20 packets is a script's choice).
//!
//! The ns-2 rules of the TCP agents, all in one place (ns-2.35 sources):
//! - every agent built on `TcpAgent` (tcp/tcp.cc): the table's keys; `ece_increase =
//!   false` (`old_ecn_ 0`, `recv_newack_helper`) only where the window grows through
//!   `TcpAgent::opencwnd` (reno, newreno, gaimd, highspeed: [`grows_through_opencwnd`]);
//!   TCP(α, β) and HighSpeed run `TcpAgent::slowdown()` (cc/gaimd.rs, cc/highspeed.rs);
//! - `VegasTcpAgent` (tcp/tcp-vegas.cc): its own loss detection and recovery
//!   (`loss_detection = "vegas"`, none of Newreno's limited transmit or recovery burst),
//!   the restart window of 2 after a timeout (cc/vegas.rs);
//! - Agent/TCP/Linux running Westwood+ (tcp/linux/tcp_westwood.c under ns-2's
//!   `LinuxTcpAgent`): its window rules (cc/westwood.rs); every Agent/TCP/Linux flow
//!   (CUBIC, Scalable, Westwood+): FACK loss marking and lost-retransmission detection
//!   (`loss_detection = "fack"`, tcp/scoreboard1.cc) and the timer re-armed on every ack
//!   (`rto_restart_on_dupack`, tcp/tcp-linux.cc `LinuxTcpAgent::time_processing`);
//! - `Application/Traffic/Exponential` (tools/expoo.cc): bursts in whole packets
//!   (app/onoff.rs); `Queue/RED` (queue/red.cc): queue/red.rs.

use crate::cc::{grows_through_opencwnd, CcSpec};
use crate::config::profile::Profile;
use serde_json::{json, Value};

/// Keys that need `sack = true`: a flow that sets `sack = false` over a profile does not
/// get them.
const NEEDS_SACK: [&str; 5] = ["recovery", "prr", "loss_detection", "tlp", "dsack_undo"];

/// Keys of Reno/NewReno recovery: a flow that sets `sack = true` over a profile without
/// SACK (`ns2`: ns-2's Sack1 agent) does not get them.
const NEEDS_NO_SACK: [&str; 3] = ["bugfix", "limited_transmit", "recovery_burst"];

/// Keys of the `ns2` profile that a Vegas flow does not get: with `cc = "vegas"` the
/// profile sets `loss_detection = "vegas"` instead (ns-2's Vegas agent).
const NOT_WITH_VEGAS: [&str; 3] = ["limited_transmit", "recovery_burst", "loss_detection"];

/// Keys of the `ns2` profile that only a flow whose algorithm grows through ns-2's
/// `TcpAgent::opencwnd` gets; the others refuse them (ns-2's Vegas and Linux agents have
/// rules of their own).
const OPENCWND_ONLY: [&str; 1] = ["ece_increase"];

/// Flow keys that RACK-TLP (`loss_detection = "rack"`) refuses when set true (or, for
/// `playback_rwnd_cap`, set at all): a flow that sets one over a profile with RACK keeps
/// duplicate-ack loss detection instead.
const NOT_WITH_RACK: [&str; 7] = [
    "syn",
    "rto_restart_on_retransmit",
    "rto_restart_on_fast_retransmit",
    "rto_restart_on_dupack",
    "nextseg_rule3",
    "playback_rwnd_cap",
    "sack_clear_at_exit",
];

/// The keys profile `p` fills into a flow, as (dotted path under the flow, value): its
/// table, less what the flow's own choices rule out, plus its algorithm's keys (`cc.…`).
/// `spec` is the flow as written so far (strictly deserialized, the profile not yet
/// applied), `set(k)` whether it sets key `k` itself. The application's keys are not here:
/// an application may name a profile of its own (expansion asks `AppSpec::profile_keys`).
/// A UDP flow gets none: the profiles describe TCP stacks.
pub fn flow_keys(
    p: Profile,
    spec: &crate::scenario::FlowSpec,
    set: &dyn Fn(&str) -> bool,
) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if spec.transport == crate::scenario::TransportSpec::Udp {
        return out;
    }
    // `sack = false` set over a SACK profile drops the keys that need SACK with it, and
    // `sack = true` over a profile without SACK drops Reno/NewReno recovery's keys.
    let no_sack = set("sack") && !spec.sack;
    let sack = set("sack") && spec.sack;
    // A key RACK-TLP refuses, set by the flow, or a loss detection of its own: the
    // profile's RACK and its tail loss probes stay out.
    let no_rack = set("loss_detection")
        || NOT_WITH_RACK
            .iter()
            .any(|k| set(k) && rack_refused(spec, k));
    // ns-2's Vegas agent (`VegasTcpAgent::recv`) has its own loss detection and recovery,
    // and none of Agent/TCP/Newreno's limited transmit or recovery burst.
    let is_vegas = matches!(spec.cc, CcSpec::Vegas(_));
    let vegas_agent = p == Profile::Ns2 && !sack && is_vegas;
    if vegas_agent {
        out.push(("loss_detection".to_string(), Value::from("vegas")));
    }
    // The algorithm's own keys (a Vegas flow with SACK is no ns-2 agent: none).
    if !is_vegas || vegas_agent {
        for (k, v) in spec.cc.profile_keys(p) {
            out.push((format!("cc.{k}"), v));
        }
    }
    let opencwnd = grows_through_opencwnd(&spec.cc);
    let user_rack = set("loss_detection")
        && spec.loss_detection == Some(crate::scenario::LossDetectionSpec::Rack);
    // NewReno recovery written (`rfc` with `sack = true`, or the user's): no PRR, RACK or
    // tail loss probes from a profile, which need RFC 6675's.
    let reno_recovery =
        set("recovery") && spec.recovery == Some(crate::scenario::RecoverySpec::Newreno);
    for (k, v) in table(p, spec.sack && set("sack")) {
        let skip = (vegas_agent && NOT_WITH_VEGAS.contains(&k))
            || (p == Profile::Ns2 && k == "recovery_burst" && !newreno_agent(spec, sack))
            || (!opencwnd && OPENCWND_ONLY.contains(&k))
            || (no_sack && NEEDS_SACK.contains(&k))
            || (sack && NEEDS_NO_SACK.contains(&k))
            || (no_rack && k == "loss_detection")
            || (no_rack && !user_rack && k == "tlp")
            || (reno_recovery && matches!(k, "prr" | "tlp"))
            // NextSeg's rule 3 is RFC 6675's, which RACK-TLP replaces.
            || ((no_sack || reno_recovery || user_rack) && k == "nextseg_rule3")
            || (reno_recovery && k == "loss_detection" && v == json!("rack"));
        if !skip {
            out.push((k.to_string(), v));
        }
    }
    if p == Profile::Ns3 && matches!(spec.cc, CcSpec::Dctcp(_)) {
        // ns-3's `TcpDctcp` is a `TcpLinuxReno`, whose `SlowStart` and
        // `CongestionAvoidance` (tcp-linux-reno.cc) count the segments an ack covers;
        // `TcpNewReno`, the profile's `"acks"`, counts acks.
        if let Some(a) = out.iter_mut().find(|(k, _)| k == "ack_counting") {
            a.1 = Value::from("segments");
        }
    }
    if p == Profile::Ns2 && linux_agent(spec) && !user_rack {
        // `LinuxTcpAgent::time_processing` (tcp/tcp-linux.cc) re-arms the retransmission
        // timer on every ack while data is outstanding, duplicates included; its scoreboard
        // (tcp/scoreboard1.cc) marks losses by FACK and finds lost retransmissions; its
        // `send_much` rate-halves in recovery (`next_pkts_in_flight_`).
        out.push(("rto_restart_on_dupack".to_string(), Value::from(true)));
        // `tcp_fastretrans_alert` clears the scoreboard when the ack reaches `recover_`.
        if sack {
            out.push(("sack_clear_at_exit".to_string(), Value::from(true)));
        }
        if let Some(l) = out.iter_mut().find(|(k, _)| k == "loss_detection") {
            l.1 = Value::from("fack");
        }
        if let Some(l) = out.iter_mut().find(|(k, _)| k == "prr") {
            l.1 = Value::from("rate_halving");
        }
    }
    if p == Profile::Ns2 && !linux_agent(spec) {
        // ns-2.35's sinks echo the triggering segment's send time (`TcpSink::ack`,
        // `ts_echo_rfc1323_ false`); Vegas' per-ack samples take the highest acked
        // segment's send time (`VegasTcpAgent::recv`, `v_sendtime_`). Agent/TCP/Linux runs
        // with timestamps and RFC 1323 echoes (the translator's idiom), tcplab's default.
        out.push(("delack_echo".to_string(), Value::from("latest")));
    }
    if vegas_agent {
        // `VegasTcpAgent::output` (tcp/tcp-vegas.cc) sends `allocpkt()`'s `packetSize_`
        // bytes and never adds `headersize()`: a Vegas segment is `mss` bytes on the wire.
        if let Some(h) = out.iter_mut().find(|(k, _)| k == "header") {
            h.1 = Value::from(0);
        }
    }
    if p == Profile::Ns2 {
        // ns-2.35's `Agent/TCP set window_ 20`: 20 packets of the flow's segment size
        // (`TcpAgent::window()` = min(cwnd_, wnd_), in packets).
        let mss = if set("mss") { spec.mss } else { 1000 };
        if let Some(w) = out.iter_mut().find(|(k, _)| k == "max_window") {
            w.1 = Value::from(NS2_WINDOW_PACKETS as u64 * mss as u64);
        }
    }
    out
}

/// ns-2.35's default advertised window, in packets (`Agent/TCP set window_ 20`,
/// tcl/lib/ns-default.tcl).
pub const NS2_WINDOW_PACKETS: u32 = 20;

/// Whether ns-2.35 runs the flow on `Agent/TCP/Linux` (the translator's agent for CUBIC,
/// Scalable and Westwood+, which ns-2 has only as Linux 2.6.22 modules).
fn linux_agent(spec: &crate::scenario::FlowSpec) -> bool {
    matches!(
        spec.cc,
        CcSpec::Cubic(_) | CcSpec::Scalable(_) | CcSpec::Westwood(_)
    )
}

/// Whether ns-2.35 runs the flow on `Agent/TCP/Newreno`, whose recovery sends at most 2
/// segments per ack (tcp-newreno.cc `NewRenoTcpAgent::recv`: `send_much(0, 0, 2)`): NewReno,
/// HighSpeed (`windowOption_ 8`) and TCP(α, β) with NewReno recovery, without SACK. Reno's
/// agent (and Reno/XCP's) has no such cap (`maxburst_ 0`).
fn newreno_agent(spec: &crate::scenario::FlowSpec, sack: bool) -> bool {
    !sack
        && match &spec.cc {
            CcSpec::NewReno(_) | CcSpec::Highspeed(_) => true,
            CcSpec::Gaimd(g) => g.recovery == crate::cc::gaimd::GaimdRecovery::Newreno,
            _ => false,
        }
}

/// Whether the flow as written sets `k` (one of [`NOT_WITH_RACK`]) to a value RACK-TLP
/// refuses: `true`, or for `playback_rwnd_cap` any receive-window cap.
fn rack_refused(spec: &crate::scenario::FlowSpec, k: &str) -> bool {
    match k {
        "syn" => spec.syn,
        "rto_restart_on_retransmit" => spec.rto_restart_on_retransmit,
        "rto_restart_on_fast_retransmit" => spec.rto_restart_on_fast_retransmit,
        "rto_restart_on_dupack" => spec.rto_restart_on_dupack,
        "nextseg_rule3" => spec.nextseg_rule3,
        "playback_rwnd_cap" => spec.playback_rwnd_cap.is_some(),
        "sack_clear_at_exit" => spec.sack_clear_at_exit,
        _ => false,
    }
}

/// The names of the keys in profile `p`'s table: under a flow's own profile these beat
/// `[defaults.flows]`, except `cc` (the algorithm `[defaults.flows]` names is the
/// scenario's choice, which a flow's profile of how a stack behaves does not undo).
pub fn table_keys(p: Profile) -> Vec<&'static str> {
    table(p, false)
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| *k != "cc")
        .collect()
}

/// `recovery` (and `prr`) for a profile without SACK of its own: NewReno recovery, or, on a
/// flow that writes `sack = true`, what the defaults derive from SACK (RFC 6675 with PRR).
fn recovery_by_sack(sack: bool) -> Vec<(&'static str, Value)> {
    if sack {
        vec![("recovery", json!("rfc6675")), ("prr", json!("ssrb"))]
    } else {
        vec![("recovery", json!("newreno"))]
    }
}

/// The flow keys profile `p` sets, in documentation order; `sack`: the flow sets `sack =
/// true` itself (`classic` then writes the recovery its defaults derive from SACK).
fn table(p: Profile, sack: bool) -> Vec<(&'static str, Value)> {
    let mut t = transport_table(p, sack);
    // Not transport, but where a flow's efficiency is measured: the papers measured it on
    // the link they named, often the first hop; today's tools on the bottleneck.
    let eff = match p {
        Profile::Classic | Profile::Ns2 => crate::scenario::EFFICIENCY_FIRST_HOP,
        Profile::Linux | Profile::Ns3 | Profile::Rfc => crate::scenario::EFFICIENCY_SLOWEST,
    };
    t.push(("efficiency_link", json!(eff)));
    t
}

fn transport_table(p: Profile, sack: bool) -> Vec<(&'static str, Value)> {
    match p {
        Profile::Linux => vec![
            ("cc", json!("cubic")),
            ("mss", json!(1448)),
            ("header", json!(52)),
            ("ack_size", json!(52)),
            ("max_window", json!("4MiB")),
            ("init_cwnd", json!(10)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("200ms")),
            ("rto_max", json!("120s")),
            ("delayed_ack", json!("40ms")),
            ("quickack", json!(16)),
            ("ack_counting", json!("segments")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(true)),
            ("recovery", json!("rfc6675")),
            ("prr", json!("ssrb")),
            ("loss_detection", json!("rack")),
            ("tlp", json!(true)),
            ("frto", json!(true)),
            ("dsack_undo", json!(true)),
            ("recovery_exit", json!("ssthresh")),
            ("ecn", json!(false)),
            ("fin", json!(true)),
        ],
        Profile::Ns3 => vec![
            ("cc", json!("cubic")),
            ("mss", json!(536)),
            ("header", json!(52)),
            ("ack_size", json!(52)),
            ("max_window", json!(131072)),
            ("init_cwnd", json!(10)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("1s")),
            ("rto_max", json!("60s")),
            ("delayed_ack", json!("200ms")),
            // `TcpSocketBase::ProcessSynRcvd` sets `m_delAckCount = m_delAckMaxCount`
            // ("Always respond to first data packet"): the first data segment is acked at
            // once, later ones by the delayed-ack rule, with no quick acks after idle.
            ("quickack", json!(1)),
            ("quickack_after_idle", json!(false)),
            ("ack_counting", json!("acks")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(true)),
            ("recovery", json!("rfc6675")),
            ("prr", json!("ssrb")),
            ("nextseg_rule3", json!(true)),
            ("loss_detection", json!("dupack")),
            ("frto", json!(false)),
            ("dsack_undo", json!(false)),
            ("partial_ack_timer", json!("first")),
            ("recovery_exit", json!("ssthresh")),
            ("ecn", json!(false)),
            ("fin", json!(true)),
        ],
        Profile::Rfc => vec![
            ("cc", json!("newreno")),
            ("mss", json!(1460)),
            ("header", json!(40)),
            ("ack_size", json!(40)),
            ("max_window", json!("1GiB")),
            ("init_cwnd", json!(3)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("1s")),
            ("rto_max", json!("60s")),
            ("delayed_ack", json!("200ms")),
            ("quickack", json!(0)),
            ("ack_counting", json!("acks")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(false)),
            ("recovery", json!("newreno")),
            ("loss_detection", json!("dupack")),
            ("partial_ack_timer", json!("first")),
            ("recovery_exit", json!("ssthresh")),
            ("frto", json!(false)),
            ("dsack_undo", json!(false)),
            ("ecn", json!(false)),
            ("fin", json!(true)),
        ],
        Profile::Ns2 => {
            let mut t = vec![
                ("cc", json!("newreno")),
                ("mss", json!(1000)),
                ("header", json!(40)),
                ("ack_size", json!(40)),
                // 20 packets of the flow's mss: see `flow_keys`
                ("max_window", json!(20_000)),
                ("init_cwnd", json!(2)),
                ("rto_initial", json!("3s")),
                ("rto_min", json!("200ms")),
                ("rto_max", json!("60s")),
                ("rto_tick", json!("10ms")),
                ("syn", json!(true)),
                ("delayed_ack", json!("off")),
                ("quickack", json!(0)),
                ("ack_counting", json!("acks")),
                ("dupack_threshold", json!(3)),
                ("sack", json!(false)),
            ];
            // `sack = true` written: ns-2's Sack1 agent (tcp/tcp-sack1.cc), RFC 6675-style
            // recovery from a scoreboard, without PRR (ns-2.35 has none).
            t.extend(if sack {
                vec![("recovery", json!("rfc6675")), ("prr", json!("off"))]
            } else {
                recovery_by_sack(false)
            });
            t.extend([
                ("loss_detection", json!("dupack")),
                ("frto", json!(false)),
                ("dsack_undo", json!(false)),
                ("bugfix", json!(true)),
                ("ssthresh_basis", json!("window")),
                ("rto_restart_on_fast_retransmit", json!(true)),
                ("partial_ack_timer", json!("first")),
                ("recovery_exit", json!("ssthresh")),
                ("limited_transmit", json!(true)),
                ("recovery_burst", json!(2)),
                ("ecn", json!(false)),
                ("ece_increase", json!(false)),
                ("fin", json!(false)),
            ]);
            t
        }
        // Every key `linux` sets, with the value tcplab's own defaults give it (the serde
        // defaults of `FlowSpec`); `recovery` and `prr` as those defaults derive them from
        // `sack`. Not written, because the defaults derive them from keys a flow may set:
        // `tlp` (RACK's default, true, with `loss_detection = "rack"`) and `bugfix` (from
        // the algorithm's recovery style).
        Profile::Classic => {
            let mut t = vec![
                ("cc", json!("newreno")),
                ("mss", json!(1460)),
                ("header", json!(40)),
                ("ack_size", json!(40)),
                ("max_window", json!("1GiB")),
                ("init_cwnd", json!(1)),
                ("rto_initial", json!("1s")),
                ("rto_min", json!("200ms")),
                ("rto_max", json!("60s")),
                ("delayed_ack", json!("off")),
                ("quickack", json!(0)),
                ("ack_counting", json!("acks")),
                ("dupack_threshold", json!(3)),
                ("sack", json!(false)),
            ];
            t.extend(recovery_by_sack(sack));
            t.extend([
                ("loss_detection", json!("dupack")),
                ("frto", json!(false)),
                ("dsack_undo", json!(false)),
                ("recovery_exit", json!("ssthresh")),
                ("ecn", json!(false)),
                ("fin", json!(false)),
            ]);
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_writes_every_key_the_default_writes() {
        let linux: Vec<&str> = table(Profile::DEFAULT, false)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert!(linux.len() > 10);
        for p in Profile::ALL {
            for sack in [false, true] {
                let keys: Vec<&str> = table(p, sack).into_iter().map(|(k, _)| k).collect();
                for k in &linux {
                    // Without SACK recovery there is no PRR; without RACK no TLP.
                    let rfc6675 = table(p, sack).contains(&("recovery", json!("rfc6675")));
                    let optional = *k == "tlp" || (*k == "prr" && !rfc6675);
                    assert!(optional || keys.contains(k), "{p}: {k} (sack {sack})");
                }
            }
        }
    }
}

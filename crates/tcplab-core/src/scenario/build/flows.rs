//! Flows: endpoints and path, transport parameters, congestion control, application.

use super::{FlowMeta, Names};
use crate::app::AppCx;
use crate::cc::CcInit;
use crate::event::{FlowId, NodeId};
use crate::net::{routing, Link, Node, NodeKind};
use crate::scenario::{
    AckCountingSpec, EcnEchoSpec, FlowSpec, LossDetectionSpec, PacingSpec, PartialAckTimerSpec,
    PrrSpec, RecoveryExitSpec, RecoverySpec, ScenarioError, SsthreshBasisSpec, TransportSpec,
};
use crate::sim::{Flow, Transport};
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::tcp::{
    CompatConfig, EcnConfig, EcnEcho, LossDetection, Pacing, PartialAckTimer, Prr, Recovery,
    RecoveryConfig, RecoveryExit, RtoConfig, SsthreshBasis, StartConfig, TcpConfig,
};
use crate::time::SimDuration;
use crate::udp::{UdpReceiver, UdpSender};

/// The most segments an initial window (`init_cwnd`, within `max_window`) may hold.
pub const MAX_INIT_WINDOW_SEGMENTS: u64 = 1_000_000;

/// One flow to build: its name, the field its errors name (`flows.NAME`, or a workload's
/// `workloads.NAME.flow`), its specification, and its workload (a quiet flow: no interval
/// rows or summary entry).
pub(super) struct Entry<'a> {
    pub name: &'a str,
    pub field: String,
    pub spec: &'a FlowSpec,
    pub workload: Option<&'a str>,
}

/// Build every flow over the built network.
#[allow(clippy::too_many_arguments)]
pub(super) fn flows(
    entries: &[Entry],
    names: &Names,
    nodes: &[Node],
    ecmp: &[Option<Box<crate::net::routing::FlowEcmp>>],
    ends: &[(NodeId, NodeId)],
    links: &[Link],
    seed: u64,
) -> Result<(Vec<Flow>, Vec<FlowMeta>), ScenarioError> {
    let mut flows = Vec::new();
    let mut meta = Vec::new();
    for (fi, e) in entries.iter().enumerate() {
        let (name, fl) = (e.name, e.spec);
        // The flow's identity: its packets' `flow`, which per-flow ECMP hashes where a
        // packet is forwarded (not on its first hop, from its own host: `Net::forward`).
        let id = FlowId::from_index(fi);
        let hop = |n: NodeId, d: NodeId, origin: NodeId| {
            if n == origin {
                nodes[n.index()].route(d)
            } else {
                crate::net::route_flow(nodes, ecmp, n, d, id)
            }
        };
        let f = e.field.clone();
        let src = names.node(format!("{f}.from"), &fl.from)?;
        let dst = names.node(format!("{f}.to"), &fl.to)?;
        for (which, n, id) in [("from", &fl.from, src), ("to", &fl.to, dst)] {
            if nodes[id.index()].kind != NodeKind::Host {
                return Err(ScenarioError::new(
                    format!("{f}.{which}"),
                    format!("'{n}' is a router; flows start and end at hosts"),
                ));
            }
        }
        if src == dst {
            return Err(ScenarioError::new(
                f,
                format!("flow from '{}' to itself", fl.from),
            ));
        }
        let path = routing::path(
            |n, d| crate::net::route_flow(nodes, ecmp, n, d, id),
            ends,
            src,
            dst,
        )
        .ok_or_else(|| {
            ScenarioError::new(
                f.clone(),
                format!("no path from '{}' to '{}'", fl.from, fl.to),
            )
        })?;
        let udp = fl.transport == TransportSpec::Udp;
        if fl.echo && !udp {
            return Err(ScenarioError::new(
                format!("{f}.echo"),
                "only a UDP flow echoes (transport = \"udp\"); a TCP flow's acks give its RTT \
                 (mean_rtt_s, p99_rtt_s)",
            ));
        }
        if (!udp || fl.echo) && routing::path(|n, d| hop(n, d, dst), ends, dst, src).is_none() {
            return Err(ScenarioError::new(
                f,
                format!(
                    "no path back from '{}' to '{}' for the {}",
                    fl.to,
                    fl.from,
                    if udp { "echoes" } else { "acks" }
                ),
            ));
        }
        if fl.mss == 0 {
            return Err(ScenarioError::new(format!("{f}.mss"), "must be positive"));
        }
        if fl.ack_size == 0 {
            return Err(ScenarioError::new(
                format!("{f}.ack_size"),
                "must be positive",
            ));
        }
        if fl.init_cwnd == 0 {
            return Err(ScenarioError::new(
                format!("{f}.init_cwnd"),
                "must be at least 1 segment",
            ));
        }
        if fl.dupack_threshold == 0 {
            return Err(ScenarioError::new(
                format!("{f}.dupack_threshold"),
                "must be at least 1",
            ));
        }
        if fl.max_window.0 < fl.mss as u64 {
            return Err(ScenarioError::new(
                format!("{f}.max_window"),
                format!(
                    "{} bytes is less than one segment (mss = {})",
                    fl.max_window.0, fl.mss
                ),
            ));
        }
        // The whole initial window leaves in the event that starts the application, each
        // segment a packet (and, with RACK, a record) held in memory: 10^9 one-byte segments
        // (init_cwnd = 2^32 - 1 under the default 1-GiB max_window) took > 10 GB in one
        // event (fuzz regression run_bounded/rack_mss1_init_cwnd_u32_max).
        let w0 = (fl.init_cwnd as u64).min(fl.max_window.0 / fl.mss as u64);
        if w0 > MAX_INIT_WINDOW_SEGMENTS {
            return Err(ScenarioError::new(
                format!("{f}.init_cwnd"),
                format!(
                    "{} segments (within max_window: {w0} segments of {} bytes) is more than \
                     {MAX_INIT_WINDOW_SEGMENTS} (the initial window is sent at once, each \
                     segment a packet in memory)",
                    fl.init_cwnd, fl.mss
                ),
            ));
        }
        if let Some(s) = fl.init_ssthresh.filter(|s| s.0 < fl.mss as u64) {
            // A zero threshold was accepted and left ssthresh = 0 (fuzz regression
            // run_bounded/init_ssthresh_0).
            return Err(ScenarioError::new(
                format!("{f}.init_ssthresh"),
                format!("{} bytes is less than one segment (mss = {})", s.0, fl.mss),
            ));
        }
        // A zero timeout retransmits at the same instant forever (the backoff doubles 0):
        // fuzz regression run_bounded/rto_initial_0.
        for (k, d) in [("rto_initial", fl.rto_initial), ("rto_max", fl.rto_max)] {
            if d.0 == SimDuration::ZERO {
                return Err(ScenarioError::new(
                    format!("{f}.{k}"),
                    "must be positive (a zero timeout would fire again at the same instant forever)",
                ));
            }
        }
        if fl.rto_min.0 > fl.rto_max.0 {
            return Err(ScenarioError::new(
                format!("{f}.rto_min"),
                "is larger than rto_max",
            ));
        }
        if fl.delayed_ack.is_some_and(|d| d.0 == SimDuration::ZERO) {
            return Err(ScenarioError::new(
                format!("{f}.delayed_ack"),
                "timeout must be positive (omit it to ack every segment)",
            ));
        }
        let recovery = match fl.recovery {
            None if fl.sack => Recovery::Rfc6675,
            None | Some(RecoverySpec::Newreno) => Recovery::NewReno,
            Some(RecoverySpec::Rfc6675) if !fl.sack => {
                return Err(ScenarioError::new(
                    format!("{f}.recovery"),
                    "\"rfc6675\" needs sack = true (the receiver must send SACK blocks)",
                ));
            }
            Some(RecoverySpec::Rfc6675) => Recovery::Rfc6675,
        };
        let prr = match fl.prr {
            Some(p) if recovery != Recovery::Rfc6675 => {
                if p != PrrSpec::Off {
                    return Err(ScenarioError::new(
                        format!("{f}.prr"),
                        "PRR applies to SACK recovery only: needs sack = true and \
                         recovery = \"rfc6675\" (the default with sack)",
                    ));
                }
                Prr::Off
            }
            None | Some(PrrSpec::Ssrb) => Prr::Ssrb,
            Some(PrrSpec::Crb) => Prr::Crb,
            Some(PrrSpec::Off) => Prr::Off,
            Some(PrrSpec::RateHalving) => Prr::RateHalving,
        };
        if fl.sack_clear_at_exit && recovery != Recovery::Rfc6675 {
            return Err(ScenarioError::new(
                format!("{f}.sack_clear_at_exit"),
                "applies to SACK recovery only: needs sack = true and recovery = \"rfc6675\"",
            ));
        }
        if fl.nextseg_rule3 && recovery != Recovery::Rfc6675 {
            return Err(ScenarioError::new(
                format!("{f}.nextseg_rule3"),
                "applies to SACK recovery only: needs sack = true and recovery = \"rfc6675\"",
            ));
        }
        let loss_detection = match fl.loss_detection {
            None | Some(LossDetectionSpec::Dupack) => LossDetection::DupAck,
            Some(LossDetectionSpec::Rack) if recovery != Recovery::Rfc6675 => {
                return Err(ScenarioError::new(
                    format!("{f}.loss_detection"),
                    "\"rack\" needs SACK recovery: sack = true and recovery = \"rfc6675\" \
                     (the default with sack)",
                ));
            }
            Some(LossDetectionSpec::Rack) => LossDetection::Rack,
            Some(LossDetectionSpec::Fack) if recovery != Recovery::Rfc6675 => {
                return Err(ScenarioError::new(
                    format!("{f}.loss_detection"),
                    "\"fack\" needs SACK recovery: sack = true and recovery = \"rfc6675\" \
                     (the default with sack)",
                ));
            }
            Some(LossDetectionSpec::Fack) => LossDetection::Fack,
            Some(LossDetectionSpec::Vegas) if recovery != Recovery::NewReno => {
                return Err(ScenarioError::new(
                    format!("{f}.loss_detection"),
                    "\"vegas\" is Vegas' own recovery without SACK: needs sack = false",
                ));
            }
            Some(LossDetectionSpec::Vegas) => LossDetection::Vegas,
        };
        if loss_detection == LossDetection::Vegas {
            for (on, k) in [
                (fl.limited_transmit, "limited_transmit"),
                (fl.recovery_burst > 0, "recovery_burst"),
            ] {
                if on {
                    return Err(ScenarioError::new(
                        format!("{f}.{k}"),
                        "does not apply with loss_detection = \"vegas\" (ns-2's Vegas agent \
                         sends nothing new on the first two duplicate acks and caps no burst)",
                    ));
                }
            }
        }
        if fl.tlp.is_some() && loss_detection != LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.tlp"),
                "tail loss probes are part of RACK-TLP: needs loss_detection = \"rack\"",
            ));
        }
        if fl.sack_clear_at_exit && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.sack_clear_at_exit"),
                "does not apply with loss_detection = \"rack\" (RACK-TLP keeps its per-segment \
                 state)",
            ));
        }
        if prr == Prr::RateHalving && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.prr"),
                "\"rate_halving\" is ns-2's Agent/TCP/Linux recovery, which detects losses by \
                 duplicate acks or FACK: not with loss_detection = \"rack\"",
            ));
        }
        if fl.nextseg_rule3 && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.nextseg_rule3"),
                "applies to RFC 6675's duplicate-ack loss detection; RACK retransmits only \
                 segments it deems lost",
            ));
        }
        if fl.dsack_undo && !fl.sack {
            return Err(ScenarioError::new(
                format!("{f}.dsack_undo"),
                "needs sack = true (D-SACK blocks come with SACK)",
            ));
        }
        if fl.rto_unsacked_flight && recovery != Recovery::Rfc6675 {
            return Err(ScenarioError::new(
                format!("{f}.rto_unsacked_flight"),
                "applies to SACK recovery only: needs sack = true and recovery = \"rfc6675\"",
            ));
        }
        if fl.rto_restart_on_retransmit && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.rto_restart_on_retransmit"),
                "does not apply with loss_detection = \"rack\": RACK-TLP's reordering and \
                 probe timers share the retransmission timer and set it themselves",
            ));
        }
        if recovery == Recovery::Rfc6675 {
            for (on, k) in [
                (fl.bugfix.is_some(), "bugfix"),
                (fl.limited_transmit, "limited_transmit"),
                (fl.recovery_burst > 0, "recovery_burst"),
            ] {
                if on {
                    return Err(ScenarioError::new(
                        format!("{f}.{k}"),
                        "applies to Reno/NewReno recovery only (not with sack = true and \
                         recovery = \"rfc6675\")",
                    ));
                }
            }
        }
        if fl.syn && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.syn"),
                "does not apply with loss_detection = \"rack\" (RACK-TLP owns the \
                 retransmission timer the SYN needs)",
            ));
        }
        if fl.rto_restart_on_fast_retransmit && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.rto_restart_on_fast_retransmit"),
                "does not apply with loss_detection = \"rack\": RACK-TLP's timers set the \
                 retransmission timer themselves",
            ));
        }
        if fl.rto_restart_on_dupack && loss_detection == LossDetection::Rack {
            return Err(ScenarioError::new(
                format!("{f}.rto_restart_on_dupack"),
                "does not apply with loss_detection = \"rack\": RACK-TLP's timers set the \
                 retransmission timer themselves",
            ));
        }
        if let Some(t) = fl.rto_tick {
            if t.0 .0 == 0 || t.0 > crate::time::SimDuration::from_secs(1) {
                return Err(ScenarioError::new(
                    format!("{f}.rto_tick"),
                    "must be above 0 and at most 1 s (ns-2's tcpTick_ is 10 ms by default)",
                ));
            }
        }
        if fl.ecn_retransmits && !fl.ecn {
            return Err(ScenarioError::new(
                format!("{f}.ecn_retransmits"),
                "needs ecn = true",
            ));
        }
        if !fl.ece_increase && !crate::cc::grows_through_opencwnd(&fl.cc) {
            return Err(ScenarioError::new(
                format!("{f}.ece_increase"),
                "false applies to cc reno, newreno, gaimd and highspeed only (ns-2's \
                 TcpAgent::opencwnd rule)",
            ));
        }
        if let Some(b) = fl.send_buffer_bytes {
            if udp {
                return Err(ScenarioError::new(
                    format!("{f}.send_buffer_bytes"),
                    "applies to TCP only (a UDP sender buffers nothing)",
                ));
            }
            if b.0 < fl.mss as u64 {
                return Err(ScenarioError::new(
                    format!("{f}.send_buffer_bytes"),
                    format!("{} bytes is less than one segment (mss = {})", b.0, fl.mss),
                ));
            }
        }
        let playback = match &fl.playback_rwnd_cap {
            None => None,
            Some(p) => {
                let k = format!("{f}.playback_rwnd_cap");
                if udp {
                    return Err(ScenarioError::new(
                        k,
                        "applies to TCP only (a UDP receiver advertises no window)",
                    ));
                }
                if loss_detection == LossDetection::Rack {
                    return Err(ScenarioError::new(
                        k,
                        "does not apply with loss_detection = \"rack\" (RACK-TLP's timers \
                         own the retransmission timer the persist timer uses)",
                    ));
                }
                if p.buffer.0 < fl.mss as u64 {
                    return Err(ScenarioError::new(
                        format!("{k}.buffer"),
                        format!(
                            "{} bytes is less than one segment (mss = {})",
                            p.buffer.0, fl.mss
                        ),
                    ));
                }
                if p.buffer.0 > crate::tcp::MAX_SCALED_WINDOW {
                    return Err(ScenarioError::new(
                        format!("{k}.buffer"),
                        format!(
                            "{} bytes is more than the largest window RFC 7323 can advertise \
                             ({} bytes)",
                            p.buffer.0,
                            crate::tcp::MAX_SCALED_WINDOW
                        ),
                    ));
                }
                let read = p.read.map_or(p.buffer.0, |r| r.0);
                if read == 0 {
                    return Err(ScenarioError::new(format!("{k}.read"), "must be positive"));
                }
                let interval = p.interval.map_or(SimDuration::from_secs(1), |d| d.0);
                if interval == SimDuration::ZERO {
                    return Err(ScenarioError::new(
                        format!("{k}.interval"),
                        "must be positive",
                    ));
                }
                Some(crate::tcp::PlaybackRwnd {
                    buffer: p.buffer.0,
                    read,
                    interval,
                })
            }
        };
        if fl.ecn_echo.is_some() && !fl.ecn {
            return Err(ScenarioError::new(
                format!("{f}.ecn_echo"),
                "needs ecn = true (without ECN no segment is ever marked)",
            ));
        }
        // TCP/E (seed 002) and DCTCP (RFC 8257 §3.2) read ECN marks one by one: they need
        // ECN and the one-to-one echo (RFC 3168's echo is latched until a CWR).
        let tcpe = matches!(fl.cc, crate::cc::CcSpec::Tcpe(_));
        let dctcp = matches!(fl.cc, crate::cc::CcSpec::Dctcp(_));
        if tcpe && !udp {
            per_mark_ecn(
                &f,
                fl,
                "tcpe",
                "TCP/E reacts to ECN marks",
                "latches ECE until a CWR that TCP/E never sends",
            )?;
        }
        if dctcp && !udp {
            per_mark_ecn(
                &f,
                fl,
                "dctcp",
                "DCTCP reacts to the fraction of marked bytes",
                "latches ECE until CWR, so every byte acked meanwhile would count as marked",
            )?;
        }
        let mut app = fl.app.build(&AppCx {
            field: &format!("{f}.app"),
            seed,
            index: fi as u64,
            transport: fl.transport.name(),
        })?;
        let jittered = fl
            .start_jitter
            .is_some_and(|j| j.0 > crate::time::SimDuration::ZERO);
        if let (true, Some(j)) = (jittered, fl.start_jitter) {
            // Refused whatever the draw: a seed must not decide whether a scenario is valid.
            if app.stop().is_some_and(|stop| app.start() + j.0 >= stop) {
                return Err(ScenarioError::new(
                    format!("{f}.start_jitter"),
                    "can push the application's start past its stop; make the jitter shorter than stop - start",
                ));
            }
            let u = crate::rng::SimRng::derive(seed, crate::rng::Stream::StartJitter, fi as u64)
                .next_f64();
            app.shift_start(crate::time::SimDuration((u * j.0 .0 as f64) as u64));
        }
        let eff_link = match fl.efficiency_link.as_deref() {
            // The path's slowest link (the first of equals): where a flow's share is decided.
            None | Some(crate::scenario::EFFICIENCY_SLOWEST) => *path
                .iter()
                .min_by_key(|l| links[l.index()].rate.bps())
                .expect("a path has a link"),
            Some(crate::scenario::EFFICIENCY_FIRST_HOP) => path[0],
            Some(l) => names.link(format!("{f}.efficiency_link"), l)?,
        };
        // Seed 001's ALT option: on every ack, and on data within the segment's wire size.
        let alt = if udp {
            None
        } else {
            fl.cc.alt_wire(&format!("{f}.cc"))?
        };
        let (opt_ack, opt_data) = match alt {
            None => (0, 0),
            Some(w) => (
                w.option_bytes,
                if w.data_option { w.option_bytes } else { 0 },
            ),
        };
        if fl.mss <= opt_data {
            return Err(ScenarioError::new(
                format!("{f}.mss"),
                format!(
                    "{} bytes leave no payload beside the {opt_data}-byte ALT option each \
                     segment carries (cc.alt_data_option)",
                    fl.mss
                ),
            ));
        }
        // XCP's congestion header (cc.header_bytes) on every data packet, beside `header`.
        let cc_hdr = if udp { 0 } else { fl.cc.data_header_bytes() };
        // Packet sizes are u32: a segment (mss + header), an ack and a datagram must fit,
        // or the size wraps (fuzz regression run_bounded/header_u32_max: 1 + (2^32 − 1)
        // wrapped to 0-byte packets, sent without end at one instant).
        let header =
            fl.header.unwrap_or(if udp { 28 } else { 40 }) as u64 + opt_data as u64 + cc_hdr as u64;
        let payload = match &fl.app {
            crate::scenario::AppSpec::Cbr(a) if udp => a.packet_size,
            crate::scenario::AppSpec::Onoff(a) if udp => a.packet_size,
            crate::scenario::AppSpec::Poisson(a) if udp => a.max_size(),
            crate::scenario::AppSpec::Train(a) if udp => a.packet_size,
            _ => fl.mss,
        } as u64;
        let seg_key = if cc_hdr > 0 && payload + header - cc_hdr as u64 <= u32::MAX as u64 {
            "cc.header_bytes"
        } else {
            "header"
        };
        for (k, size) in [
            (seg_key, payload + header),
            ("ack_size", fl.ack_size as u64 + opt_ack as u64),
        ] {
            if size > u32::MAX as u64 {
                return Err(ScenarioError::new(
                    format!("{f}.{k}"),
                    format!(
                        "makes {size}-byte packets; packet sizes are at most {} bytes",
                        u32::MAX
                    ),
                ));
            }
        }
        let tcp = TcpConfig {
            mss: fl.mss - opt_data,
            header: fl.header.unwrap_or(if udp { 28 } else { 40 }) + opt_data + cc_hdr,
            ack_size: fl.ack_size + opt_ack,
            max_window: fl.max_window.0,
            delayed_ack: fl.delayed_ack.map(|d| d.0),
            quickack: fl.quickack,
            quickack_after_idle: fl.quickack_after_idle,
            ack_counting: match fl.ack_counting {
                AckCountingSpec::Acks => crate::cc::AckCounting::Acks,
                AckCountingSpec::Segments => crate::cc::AckCounting::Segments,
            },
            receiver_clock_offset: fl.receiver_clock_offset.0,
            sack: fl.sack,
            pacing: match fl.pacing {
                None if matches!(fl.cc, crate::cc::CcSpec::Bbr(_)) => Pacing::Cc,
                None | Some(PacingSpec::Off) => Pacing::Off,
                Some(PacingSpec::Cc) => Pacing::Cc,
                Some(PacingSpec::Linux) => Pacing::Linux,
                Some(PacingSpec::Rate(r)) => Pacing::Rate((r.bps() / 8).max(1)),
            },
            send_buffer: fl.send_buffer_bytes.map_or(u64::MAX, |b| b.0),
            playback,
            start: StartConfig {
                init_cwnd: fl.init_cwnd,
                init_ssthresh: fl.init_ssthresh.map_or(u64::MAX, |s| s.0),
                syn: fl.syn,
                fin: fl.fin,
            },
            rto: RtoConfig {
                initial: fl.rto_initial.0,
                min: fl.rto_min.0,
                max: fl.rto_max.0,
                unsacked_flight: fl.rto_unsacked_flight,
                tick: fl.rto_tick.map(|d| d.0),
            },
            recovery: RecoveryConfig {
                dupack_threshold: fl.dupack_threshold,
                partial_ack_timer: match fl.partial_ack_timer {
                    PartialAckTimerSpec::Every => PartialAckTimer::Every,
                    PartialAckTimerSpec::First => PartialAckTimer::First,
                },
                exit: match fl.recovery_exit {
                    RecoveryExitSpec::Ssthresh => RecoveryExit::Ssthresh,
                    RecoveryExitSpec::Flightsize => RecoveryExit::FlightSize,
                },
                mode: recovery,
                prr,
                nextseg_rule3: fl.nextseg_rule3,
                sack_clear_at_exit: fl.sack_clear_at_exit,
                loss_detection,
                tlp: fl.tlp.unwrap_or(true),
                frto: fl.frto,
                dsack_undo: fl.dsack_undo,
                limited_transmit: fl.limited_transmit,
            },
            ecn: EcnConfig {
                enabled: fl.ecn,
                retransmits: fl.ecn_retransmits,
                ece_increase: fl.ece_increase,
                echo: match fl.ecn_echo {
                    None if tcpe => EcnEcho::PerMark,
                    None if dctcp => EcnEcho::Dctcp,
                    None | Some(EcnEchoSpec::Rfc3168) => EcnEcho::Rfc3168,
                    Some(EcnEchoSpec::PerMark) => EcnEcho::PerMark,
                    Some(EcnEchoSpec::Dctcp) => EcnEcho::Dctcp,
                },
            },
            compat: CompatConfig {
                rto_restart_on_retransmit: fl.rto_restart_on_retransmit,
                bugfix: fl.bugfix,
                ssthresh_basis: match fl.ssthresh_basis {
                    SsthreshBasisSpec::Flightsize => SsthreshBasis::FlightSize,
                    SsthreshBasisSpec::Window => SsthreshBasis::Window,
                },
                rto_restart_on_fast_retransmit: fl.rto_restart_on_fast_retransmit,
                rto_restart_on_dupack: fl.rto_restart_on_dupack,
                recovery_burst: fl.recovery_burst,
            },
        };
        let algo = fl.cc.build(
            &format!("{f}.cc"),
            CcInit {
                mss: tcp.mss,
                init_cwnd: tcp.start.init_cwnd as u64 * tcp.mss as u64,
                init_ssthresh: tcp.start.init_ssthresh,
                ack_counting: tcp.ack_counting,
            },
        )?;
        let mut algo = algo;
        algo.seed_rng(crate::rng::SimRng::derive(
            seed,
            crate::rng::Stream::Cc,
            fi as u64,
        ));
        use crate::cc::CongestionControl;
        let (cc_name, transport) = if udp {
            let sender = UdpSender::new(FlowId::from_index(fi), src, dst, tcp.header);
            let receiver = UdpReceiver::new(fl.echo);
            ("none".to_string(), Transport::Udp { sender, receiver })
        } else {
            let cc_name = algo.name().to_string();
            let mut sender = TcpSender::new(FlowId::from_index(fi), src, dst, &tcp, algo);
            if let Some(b) = links[path[0].index()].backpressure {
                sender.set_ipq_limit(b);
            }
            let receiver = TcpReceiver::new(tcp.ack_size, tcp.delayed_ack)
                .with_ecn_echo(tcp.ecn.echo)
                .with_clock_offset(tcp.receiver_clock_offset)
                .with_sack(tcp.sack)
                .with_quickack(
                    tcp.quickack,
                    // No gap is longer than the largest duration: only the first data.
                    if tcp.quickack_after_idle {
                        tcp.rto.min
                    } else {
                        crate::time::SimDuration::from_ps(u64::MAX)
                    },
                    tcp.max_window,
                    tcp.mss,
                )
                .with_latest_echo(fl.delack_echo == crate::scenario::DelackEchoSpec::Latest);
            let receiver = match tcp.playback {
                Some(p) => receiver.with_playback(p, FlowId::from_index(fi), src, dst),
                None => receiver,
            };
            (cc_name, Transport::Tcp { sender, receiver })
        };
        let mut flow = Flow::new(name.to_string(), src, dst, transport, app, eff_link);
        if let (crate::app::App::Transfer { .. }, false) = (&flow.app, udp) {
            // What the ideal completion time needs: propagation out and back (twice with a
            // SYN) and the slowest rate on the way out.
            let back = routing::path(|n, d| hop(n, d, dst), ends, dst, src).unwrap_or_default();
            let prop: u64 = path
                .iter()
                .chain(&back)
                .map(|l| links[l.index()].delay.0)
                .sum();
            let rate = path
                .iter()
                .map(|l| links[l.index()].rate.bps())
                .min()
                .unwrap_or(1);
            flow.fct = Some(Box::new(crate::sim::FctState {
                label: crate::stats::columns::intern(
                    e.workload.or(fl.group.as_deref()).unwrap_or(""),
                ),
                base: crate::time::SimDuration(prop * if tcp.start.syn { 2 } else { 1 }),
                rate_bps: rate,
                mss: tcp.mss,
                header: tcp.header,
                rounds: Vec::new(),
            }));
        }
        flow.quiet = e.workload.is_some();
        flows.push(flow);
        meta.push(FlowMeta {
            cc: cc_name,
            group: fl.group.clone(),
            jittered,
            path,
            tcp,
        });
    }

    Ok((flows, meta))
}

/// A flow whose `cc` (`name`) reads ECN marks one by one needs `ecn = true` (`why`: what it
/// does with the marks) and the per-mark echo (`latch`: what RFC 3168's echo would do to it).
fn per_mark_ecn(
    f: &str,
    fl: &FlowSpec,
    name: &str,
    why: &str,
    latch: &str,
) -> Result<(), ScenarioError> {
    if !fl.ecn {
        return Err(ScenarioError::new(
            format!("{f}.ecn"),
            format!("cc '{name}' needs ecn = true ({why})"),
        ));
    }
    if fl.ecn_echo == Some(EcnEchoSpec::Rfc3168) {
        return Err(ScenarioError::new(
            format!("{f}.ecn_echo"),
            format!(
                "cc '{name}' needs \"per_mark\" (one ECE per CE mark, its default): \"rfc3168\" {latch}"
            ),
        ));
    }
    Ok(())
}

//! Scenarios are data: a TOML file (or the same structure as a Python dict / JSON) that
//! names nodes, link directions with their queues, flows with their transport and
//! congestion control, applications, metrics, duration and seed.
//!
//! Parsing is strict (`deny_unknown_fields`) and every error names the field path and the
//! reason, e.g. `links.up.rate: '100' has no unit; write e.g. '100kbps'`. See
//! `docs/scenarios.md` for the reference and [`json_schema`] for the machine-readable schema.

mod build;
pub mod expand;
pub mod memory;
pub mod partition;
pub mod profiles;
pub mod suggest;

pub use crate::app::AppSpec;
pub(crate) use crate::config::split_subpath;
pub use crate::config::{tagged, units, ScenarioError};
pub use crate::net::error::{ErrorSpec, OutageScheduleSpec};
pub use crate::queue::{LimitSpec, QueueSpec};

pub use build::{outage_periods, Built};

pub use crate::analysis::kalampoukas97::report::{FlowNames, TwoWaySpec};
use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use units::{DurationValue, SizeValue};

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKindSpec {
    Host,
    Router,
}

/// The whole scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short title used in reports.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Simulated time to run, e.g. "300s".
    pub duration: DurationValue,
    /// Seed of every random stream (each component derives its own).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The profile of every flow, application and queue that names none of its own and
    /// gets none from `[defaults.flows]` / `[defaults.links]` (docs/scenarios.md,
    /// "Profiles"). Expansion applies it and removes it.
    #[serde(default)]
    pub profile: Option<crate::config::profile::Profile>,
    /// Threads for this one simulation (default 1): the network is split into partitions
    /// that run in parallel with results bit-identical to one thread (docs/scaling.md).
    #[serde(default)]
    pub threads: Option<u32>,
    /// Node name → "host" (ends flows) or "router".
    pub nodes: BTreeMap<String, NodeKindSpec>,
    /// Link directions by name. A full-duplex link is two entries.
    pub links: BTreeMap<String, LinkSpec>,
    /// Flows (TCP or UDP) by name.
    #[serde(default)]
    pub flows: BTreeMap<String, FlowSpec>,
    /// Flow schedules by name: how many flows of a group are active over time.
    #[serde(default)]
    pub schedules: BTreeMap<String, ScheduleSpec>,
    /// Workloads by name: flows generated as they arrive, at a load or in incast rounds
    /// (docs/workloads.md). Each flow is named `NAME/HOST/INDEX`.
    #[serde(default)]
    pub workloads: BTreeMap<String, crate::app::workload::WorkloadSpec>,
    #[serde(default)]
    pub metrics: MetricsSpec,
    /// Closed-form models to evaluate next to the simulation.
    #[serde(default)]
    pub analysis: Option<AnalysisSpec>,
    /// Named outage schedules, shared by the link directions whose `error` refers to them
    /// (`error = { model = "outage", schedule = "NAME" }`).
    #[serde(default)]
    pub outages: BTreeMap<String, OutageScheduleSpec>,
    /// Agents on nodes by name (`[agents.NAME] type = "snoop"`): none by default.
    #[serde(default)]
    pub agents: BTreeMap<String, crate::net::snoop::AgentSpec>,
    /// How routes are chosen (`[routing]`): ties between equal-cost next hops.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Where the values of an expanded scenario (builders, duplex links, defaults) came
    /// from, so that validation errors name the field the user wrote.
    #[serde(skip)]
    #[schemars(skip)]
    pub origins: expand::Origins,
}

/// The most threads a run may ask for.
pub const MAX_THREADS: u32 = 1024;

/// Split a built scenario for a parallel run on `threads` threads (`threads` ≥ 2), its
/// `threads + 1` copies checked against `limit` first: `replica` builds the same scenario with the same seed again (one copy per partition;
/// `built` keeps its own as the template the results are merged into). Pcap captures
/// opened on `built` move to the partition that owns their link.
pub fn split(
    built: &mut Built,
    threads: u32,
    limit: memory::MemoryLimit,
    mut replica: impl FnMut() -> Result<Built, ScenarioError>,
) -> Result<crate::par::Parallel, ScenarioError> {
    if threads == 0 || threads > MAX_THREADS {
        return Err(ScenarioError::new(
            "threads",
            format!("must be between 1 and {MAX_THREADS}, got {threads}"),
        ));
    }
    if let Some(why) = crate::par::check_supported(&built.sim) {
        return Err(ScenarioError::new("threads", why));
    }
    let node_part = partition::partition(&built.sim, threads as usize)?;
    memory::check_copies(&built.scenario, threads as u64 + 1, limit)?;
    let mut sims = Vec::with_capacity(threads as usize);
    for _ in 0..threads {
        sims.push(replica()?.sim);
    }
    for (l, link) in built.sim.links.iter_mut().enumerate() {
        if let Some(c) = link.capture.take() {
            sims[node_part[link.from.index()] as usize].links[l].capture = Some(c);
        }
    }
    crate::par::Parallel::new(sims, node_part).map_err(|(field, why)| {
        built
            .scenario
            .origins
            .locate(ScenarioError::new(field, why))
    })
}

/// Validate `sc` and build the simulation. `seed` overrides `sc.seed` when given. Errors
/// on values that expansion produced name the field they came from; the origins stay in
/// `Built::scenario` (the report's warnings tell a user's keys from a profile's).
pub fn build(sc: Scenario, seed: Option<u64>) -> Result<Built, ScenarioError> {
    build_limited(sc, seed, memory::MemoryLimit::Auto)
}

/// [`build`], refusing first a scenario whose estimated memory ([`memory::estimate`])
/// exceeds `limit` (one line naming the largest contributor).
pub fn build_limited(
    mut sc: Scenario,
    seed: Option<u64>,
    limit: memory::MemoryLimit,
) -> Result<Built, ScenarioError> {
    memory::check(&sc, limit)?;
    let origins = std::mem::take(&mut sc.origins);
    let mut b = build::build(sc, seed).map_err(|e| origins.locate(e))?;
    b.scenario.origins = origins;
    Ok(b)
}

/// `efficiency_link`'s two words that are not link names.
pub const EFFICIENCY_SLOWEST: &str = "slowest";
pub const EFFICIENCY_FIRST_HOP: &str = "first_hop";

fn default_seed() -> u64 {
    1
}

/// One direction of a link.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    /// Transmission rate, e.g. "5Mbps", or from seed 001's asymmetry factor:
    /// `{ asym_k = 4, forward = "16Mbps", data_size = 1000, ack_size = 40 }`.
    pub rate: units::LinkRate,
    /// One-way propagation delay, e.g. "10ms".
    #[serde(default = "zero_duration")]
    pub delay: DurationValue,
    /// Outgoing queue discipline of this direction.
    #[serde(default)]
    pub queue: QueueSpec,
    /// Bernoulli packet loss probability on the wire, in [0, 1): short for
    /// `error = { model = "bernoulli", p = ... }` (give one or the other).
    #[serde(default)]
    pub loss: Option<f64>,
    /// Error model of this direction (default: none). See docs/scenarios.md "Error models".
    #[serde(default)]
    pub error: Option<ErrorSpec>,
    /// End-host backpressure (seed 000 §5): each local TCP connection may have at most this
    /// many data segments in this interface's queue, counting the one being transmitted;
    /// the sender waits for a departure before handing over the next. Only on links leaving
    /// a host. Absent = no backpressure.
    #[serde(default)]
    pub backpressure: Option<u32>,
    /// Write every packet this direction transmits to this pcap file (synthesized IPv4/TCP
    /// headers, nanosecond timestamps; see docs/outputs.md). A relative path is relative to
    /// the run's output directory (`tcplab run --out DIR`; the current directory for
    /// `tcplab.run` without `pcap_dir`).
    #[serde(default)]
    pub pcap: Option<String>,
}

fn zero_duration() -> DurationValue {
    DurationValue(crate::time::SimDuration::ZERO)
}

/// `flows.NAME.pacing`: "off", "cc", "linux" or a rate ("50Mbps").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingSpec {
    Off,
    Cc,
    Linux,
    Rate(crate::time::Rate),
}

impl<'de> Deserialize<'de> for PacingSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.trim() {
            "off" => Ok(PacingSpec::Off),
            "cc" => Ok(PacingSpec::Cc),
            "linux" => Ok(PacingSpec::Linux),
            t => units::parse_rate(t).map(PacingSpec::Rate).map_err(|e| {
                de::Error::custom(format!(
                    "{e} (pacing is \"off\", \"cc\", \"linux\" or a rate such as \"50Mbps\")"
                ))
            }),
        }
    }
}

impl JsonSchema for PacingSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PacingSpec".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "\"off\", \"cc\" (the algorithm's rate), \"linux\" (2 or 1.2 cwnd/srtt) or a rate (\"50Mbps\")",
            "type": "string"
        })
    }
}

/// A flow: endpoints, transport and its parameters, application.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub from: String,
    pub to: String,
    /// A preset for the keys below (and the flow's `cc` and `app` tables): "linux", "ns3",
    /// "rfc" or "ns2" (docs/tcp.md, "Profiles"; precedence in docs/scenarios.md). Expansion
    /// writes its keys into the flow where the flow does not set them and removes it, so it
    /// is never set here after expansion.
    #[serde(default)]
    pub profile: Option<crate::config::profile::Profile>,
    /// Congestion control: a name ("newreno") or a table with `algorithm` and parameters.
    #[serde(default)]
    pub cc: crate::cc::CcSpec,
    /// Payload bytes per full segment.
    #[serde(default = "default_mss")]
    pub mss: u32,
    /// Header bytes per data packet (TCP: packet size = mss + header, default 40; UDP:
    /// IP + UDP headers added to each datagram, default 28).
    #[serde(default)]
    pub header: Option<u32>,
    /// Wire size of a pure ack (e.g. 28 to model compressed headers).
    #[serde(default = "default_ack_size")]
    pub ack_size: u32,
    /// Receiver window: the largest amount of unacknowledged data, e.g. "64KiB" or 65535.
    #[serde(default = "default_max_window")]
    pub max_window: SizeValue,
    /// Initial congestion window, in segments.
    #[serde(default = "default_init_cwnd")]
    pub init_cwnd: u32,
    /// Initial slow-start threshold (default: unlimited).
    #[serde(default)]
    pub init_ssthresh: Option<SizeValue>,
    #[serde(default = "default_rto_initial")]
    pub rto_initial: DurationValue,
    /// Lower bound on the retransmission timeout ("0s" for purely fine-grained timers).
    #[serde(default = "default_rto_min")]
    pub rto_min: DurationValue,
    #[serde(default = "default_rto_max")]
    pub rto_max: DurationValue,
    /// Delayed-ack timeout; absent or "off" = ack every segment at once.
    #[serde(default, deserialize_with = "units::duration_or_off")]
    #[schemars(with = "Option<String>")]
    pub delayed_ack: Option<DurationValue>,
    /// Quick-ack mode with delayed acks (Linux): the first N segments, and the first N after
    /// a gap in arrivals longer than `rto_min`, are each acked at once (N also at most
    /// max_window / (2·mss), at least 2). Default 0 (off); no effect without `delayed_ack`.
    #[serde(default)]
    pub quickack: u32,
    /// Whether a gap in arrivals longer than `rto_min` grants the `quickack` immediate acks
    /// again (Linux's `tcp_event_data_recv`: true, the default) or only the connection's
    /// first data does (ns-3's `TcpSocketBase::ProcessSynRcvd`: false). No effect without
    /// `quickack`.
    #[serde(default = "default_true")]
    pub quickack_after_idle: bool,
    /// Which send time an ack for two held segments echoes (the sender's RTT sample):
    /// "earliest" (RFC 7323 §4.3, the earliest unacknowledged segment's; default) or
    /// "latest" (the segment that triggered the ack, ns-2.35's `Agent/TCPSink/DelAck` with
    /// `ts_echo_rfc1323_ false`, `TcpSink::ack`). No effect without `delayed_ack`.
    #[serde(default)]
    pub delack_echo: DelackEchoSpec,
    #[serde(default = "default_dupthresh")]
    pub dupack_threshold: u32,
    /// NewReno partial acks that restart the retransmission timer (RFC 6582 §4): "every"
    /// (Slow-but-Steady, default) or "first" (Impatient, as RFC 6582 §3.2 and ns-3).
    #[serde(default)]
    pub partial_ack_timer: PartialAckTimerSpec,
    /// Congestion window when NewReno/Reno fast recovery ends (RFC 6582 §3.2 step 3):
    /// "ssthresh" (default) or "flightsize" (min(ssthresh, max(flight, MSS) + MSS): no burst).
    #[serde(default)]
    pub recovery_exit: RecoveryExitSpec,
    /// How window increases count acks: "acks" (default: one increase per ack of new data,
    /// as RFC 5681 and the papers) or "segments" (per segment the ack covers: RFC 3465 byte
    /// counting without its L limit, as Linux; with delayed acks Reno then still grows one
    /// segment per round trip). Honoured by reno, newreno, dctcp, gaimd, highspeed,
    /// scalable and CUBIC's standard slow start; ignored by the others (docs/tcp.md).
    #[serde(default)]
    pub ack_counting: AckCountingSpec,
    /// SACK (RFC 2018): the receiver puts SACK blocks on its acks (and D-SACK blocks, RFC
    /// 2883, for duplicate segments). Default false.
    #[serde(default)]
    pub sack: bool,
    /// Loss recovery: "newreno" (Reno/NewReno fast recovery as the algorithm says; the
    /// default without SACK) or "rfc6675" (SACK-based, RFC 6675; needs `sack = true`, and is
    /// the default with it).
    #[serde(default)]
    pub recovery: Option<RecoverySpec>,
    /// Proportional Rate Reduction (RFC 6937) in RFC 6675 recovery: "ssrb" (default, slow
    /// start reduction bound, as Linux), "crb" (conservative reduction bound), "off"
    /// (send while cwnd − pipe ≥ 1 SMSS) or "rate_halving" (ns-2.35's Agent/TCP/Linux: the
    /// flight falls by one segment per two acks down to cwnd; not with RACK; profile `ns2`
    /// sets it on CUBIC, Scalable and Westwood+ flows).
    #[serde(default)]
    pub prr: Option<PrrSpec>,
    /// RFC 6675 NextSeg rule 3 in SACK recovery: when no lost segment and no new data can
    /// be sent, retransmit the next unSACKed segment not yet deemed lost. Default false (as
    /// Linux; with PRR it retransmits segments still in flight).
    #[serde(default)]
    pub nextseg_rule3: bool,
    /// Forget the SACK scoreboard when recovery ends (ns-2.35's Agent/TCP/Linux:
    /// `LinuxTcpAgent::tcp_fastretrans_alert` calls `scb_->ClearScoreBoard()` once the ack
    /// reaches `recover_`, although segments sent in the recovery may still be SACKed above
    /// it): the next acks' SACK blocks rebuild it, and with `loss_detection = "fack"` the
    /// segments they no longer report count as lost. Default false (RFC 6675 keeps it);
    /// profile `ns2` sets it on CUBIC, Scalable and Westwood+ flows. Needs SACK recovery;
    /// not with `loss_detection = "rack"`.
    #[serde(default)]
    pub sack_clear_at_exit: bool,
    /// Pacing (fq-style per-flow release: a segment leaves no earlier than
    /// `next = max(now, next) + wire size / rate`): "off" (the default, except for BBR),
    /// "cc" (the algorithm's own rate; BBR's default), "linux" (Linux's rate for algorithms
    /// without one: 2·cwnd/srtt while cwnd < ssthresh/2, else 1.2·cwnd/srtt) or a fixed rate
    /// such as "50Mbps" (wire bits per second).
    #[serde(default)]
    pub pacing: Option<PacingSpec>,
    /// Loss detection: "dupack" (duplicate acks and, with SACK, RFC 6675's IsLost, the
    /// default), "rack" (RACK-TLP, RFC 8985; needs `sack = true`) or "vegas" (Vegas'
    /// fine-grained retransmission on the first duplicate acks and its own recovery, as
    /// ns-2's Vegas agent; needs `sack = false`).
    #[serde(default)]
    pub loss_detection: Option<LossDetectionSpec>,
    /// Tail loss probes (RFC 8985 §7) with `loss_detection = "rack"` (default true).
    #[serde(default)]
    pub tlp: Option<bool>,
    /// F-RTO (RFC 5682): after a retransmission timeout, send new data on the first ack and
    /// undo the reduction if the next ack shows the timeout was spurious. Default false.
    #[serde(default)]
    pub frto: bool,
    /// Undo a window reduction when D-SACK blocks report every retransmission of the
    /// episode as unnecessary (as Linux; needs `sack = true`). Default false.
    #[serde(default)]
    pub dsack_undo: bool,
    /// SACK recovery: at a retransmission timeout, FlightSize (the algorithm's ssthresh
    /// basis, RFC 5681 eq. 4) leaves out the bytes the receiver has SACKed. Default false
    /// (`snd_max − snd_una`, RFC 5681's definition).
    #[serde(default)]
    pub rto_unsacked_flight: bool,
    /// ECN (RFC 3168): data segments ECN-capable, reaction to ECN-Echo once per window, CWR.
    #[serde(default)]
    pub ecn: bool,
    /// How the receiver echoes CE marks: "rfc3168" (ECE on every ack until CWR) or
    /// "per_mark" (one ECE per CE-marked segment, seed 002's TCP/E). Needs `ecn = true`.
    /// Default: "per_mark" for `cc = "tcpe"` (which rejects "rfc3168"), else "rfc3168".
    #[serde(default)]
    pub ecn_echo: Option<EcnEchoSpec>,
    /// Retransmissions are ECN-capable too (ns-2's TCP sets ECT on every data packet; RFC
    /// 3168 §6.1.5 forbids it, the default). Needs `ecn = true`.
    #[serde(default)]
    pub ecn_retransmits: bool,
    /// An ack carrying ECN-Echo may open the congestion window (default true, RFC 3168).
    /// False: as ns-2.35 with `old_ecn_ 0` (its default; tcp.cc `recv_newack_helper`), once an
    /// ack of new data has carried ECN-Echo no later ECN-Echo ack grows the window, in slow
    /// start either. Only for cc reno, newreno, gaimd and highspeed (ns-2's agents that grow
    /// through `TcpAgent::opencwnd`). The `ns2` profile sets false.
    #[serde(default = "default_true")]
    pub ece_increase: bool,
    /// Restart the retransmission timer whenever the first unacknowledged segment is
    /// retransmitted (Linux; ns-2 at a fast retransmit). Default false: RFC 6298 restarts it
    /// only on acks of new data. Not with `loss_detection = "rack"` (RACK's timers own it).
    #[serde(default)]
    pub rto_restart_on_retransmit: bool,
    /// ns-2's `bugFix_`: a fast retransmit needs duplicate acks above `recover`, the highest
    /// sequence sent when the last fast retransmit or timeout began (RFC 6582 §3.2 step 1).
    /// Default: true for NewReno-style recovery, false for Reno (`cc = "reno"`); `true` on
    /// Reno is ns-2's Agent/TCP/Reno default (a second loss in one window waits for the
    /// timer). Reno/NewReno recovery only (not with `recovery = "rfc6675"`).
    #[serde(default)]
    pub bugfix: Option<bool>,
    /// What a retransmission timeout halves for ssthresh: "flightsize" (RFC 5681 eq. 4, the
    /// default) or "window" (ns-2's `slowdown`: half of min(cwnd, max_window)).
    #[serde(default)]
    pub ssthresh_basis: SsthreshBasisSpec,
    /// Restart the retransmission timer at a fast retransmit (ns-2's `dupack_action`), and
    /// not at later retransmissions (compare `rto_restart_on_retransmit`). Default false.
    #[serde(default)]
    pub rto_restart_on_fast_retransmit: bool,
    /// Restart the retransmission timer on every duplicate ack too, not only on acks of new
    /// data (ns-2.35's Agent/TCP/Linux: `LinuxTcpAgent::time_processing` calls
    /// `set_rtx_timer` for every ack while data is outstanding). Default false (RFC 6298
    /// §5.3); profile `ns2` sets it on the flows ns-2 runs on Agent/TCP/Linux (CUBIC,
    /// Scalable, Westwood+). Not with `loss_detection = "rack"`.
    #[serde(default)]
    pub rto_restart_on_dupack: bool,
    /// ns-2's RTO clock tick (`tcpTick_`, e.g. "10ms"): the RTO estimator counts round trips
    /// in ticks with ns-2's fixed-point SRTT/RTTVAR and keeps RTO ≥ 2 ticks (docs/tcp.md).
    /// Default: none, or "off" (RFC 6298 on the exact clock).
    #[serde(default, deserialize_with = "units::duration_or_off")]
    #[schemars(with = "Option<String>")]
    pub rto_tick: Option<DurationValue>,
    /// Send a SYN (`header` bytes, no payload) first and start data when its ack returns
    /// (ns-2's one-way TCP with `syn_ true`, its default). Default false.
    #[serde(default)]
    pub syn: bool,
    /// A finite transfer (`app = { type = "transfer" }`, each round of a `[schedules]`
    /// entry) ends with a FIN on its last segment, which the receiver acknowledges at once
    /// (Linux, ns-3), so that the transfer's completion never waits for the delayed-ack
    /// timer. Default false (the papers' one-way agents have none); `linux`, `ns3` and
    /// `rfc` set it.
    #[serde(default)]
    pub fin: bool,
    /// Limited transmit (RFC 3042; ns-2's `singledup_ 1`): the first and second duplicate
    /// acks each send one new segment while the flight stays within cwnd + dupacks segments.
    /// Reno/NewReno recovery only. Default false.
    #[serde(default)]
    pub limited_transmit: bool,
    /// At most this many new segments per ack during Reno/NewReno fast recovery (ns-2's
    /// Newreno sends at most 2: `send_much(0, 0, 2)`). 0 (default) = no cap.
    #[serde(default)]
    pub recovery_burst: u32,
    /// A finite TCP send buffer, e.g. 16000 or "16kB" (default: unlimited). The sender holds
    /// at most this many bytes written and not yet acknowledged; a write that does not fit
    /// blocks the application, and what it wrote waits with it and is accepted, in order, as
    /// acks free space (nothing is lost). So at any time the bytes accepted are
    /// min(written, acknowledged + send_buffer_bytes): a `cbr` source over TCP falls behind
    /// its schedule, and a `bulk` source keeps at most this much in flight. At least one
    /// segment (`mss`). TCP only.
    #[serde(default)]
    pub send_buffer_bytes: Option<SizeValue>,
    /// The receiver advertises the free space of a playback buffer as its receive window,
    /// e.g. `{ buffer = 125000, read = 125000, interval = "1s" }`: the application reads up
    /// to `read` bytes every `interval`, and the sender keeps new data within the window
    /// (zero-window probes when it closes; docs/tcp.md, "Receive window"). Default: none
    /// (the window is `max_window`). TCP only; not with `loss_detection = "rack"`.
    #[serde(default)]
    pub playback_rwnd_cap: Option<PlaybackSpec>,
    /// Transport: "tcp" (default) or "udp" (datagrams, never acked; the TCP keys other
    /// than `header` do not apply).
    #[serde(default)]
    pub transport: TransportSpec,
    /// UDP only: the destination returns every datagram to the source at once, which
    /// records each round trip and one-way delay (`probes.parquet`): a ping-like probe of
    /// latency under load (e.g. `app = { type = "cbr", rate = "51.2kbps", packet_size = 64 }`,
    /// one 64-byte datagram every 10 ms). Needs a path back.
    #[serde(default)]
    pub echo: bool,
    /// Application: bulk (greedy), a finite transfer, cbr or onoff.
    #[serde(default)]
    pub app: AppSpec,
    /// The receiver's clock minus the sender's, e.g. "-3.7s" (default 0): the receiver
    /// stamps the arrival and leaving times it echoes in acks on its own clock (seed 001's
    /// ALT timestamps; Vegas-ALT and FAST-ALT results do not depend on it).
    #[serde(default)]
    pub receiver_clock_offset: units::SignedDurationValue,
    /// Link whose rate is the efficiency denominator: a link name, `"slowest"` (the
    /// path's slowest link, the first of equals; the default, and the `linux`, `ns3` and
    /// `rfc` profiles') or `"first_hop"` (the flow's first link; the papers' profiles,
    /// `classic` and `ns2`).
    #[serde(default)]
    pub efficiency_link: Option<String>,
    /// Delay the application's start by a uniform random time in [0, start_jitter), drawn
    /// from the flow's own stream, so that seeds differ (default: none).
    #[serde(default)]
    pub start_jitter: Option<DurationValue>,
    /// A label for fairness per group: summary.json's `fairness.groups.NAME` is Jain's
    /// index over the flows with this label.
    #[serde(default)]
    pub group: Option<String>,
}

fn default_mss() -> u32 {
    1460
}
fn default_ack_size() -> u32 {
    40
}
fn default_max_window() -> SizeValue {
    SizeValue(1 << 30)
}
fn default_init_cwnd() -> u32 {
    1
}
fn default_rto_initial() -> DurationValue {
    DurationValue(crate::time::SimDuration::from_secs(1))
}
fn default_rto_min() -> DurationValue {
    DurationValue(crate::time::SimDuration::from_ms(200))
}
fn default_rto_max() -> DurationValue {
    DurationValue(crate::time::SimDuration::from_secs(60))
}
fn default_dupthresh() -> u32 {
    3
}
fn default_true() -> bool {
    true
}

/// `[routing]`: routes are static shortest paths (fewest hops), one next link per (node,
/// destination); `ecmp` breaks ties between equal-cost next hops (net/routing.rs).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// "first" (default): the link declared first (name order); "destination": a static
    /// spread by destination host number (D-mod-k on a fat-tree; `[fat_tree]` sets it);
    /// "flow": per-flow ECMP, a hash of the flow and a per-switch salt from the seed.
    #[serde(default)]
    pub ecmp: EcmpSpec,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EcmpSpec {
    #[default]
    First,
    Destination,
    Flow,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PartialAckTimerSpec {
    #[default]
    Every,
    First,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RecoverySpec {
    Newreno,
    Rfc6675,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LossDetectionSpec {
    Dupack,
    Rack,
    Fack,
    Vegas,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PrrSpec {
    Off,
    Ssrb,
    Crb,
    #[serde(rename = "rate_halving")]
    RateHalving,
}

/// `flows.NAME.delack_echo`.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DelackEchoSpec {
    #[default]
    Earliest,
    Latest,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EcnEchoSpec {
    Rfc3168,
    PerMark,
    /// `per_mark` plus RFC 8257 §3.2: with delayed acks, unmarked segments held for the
    /// delayed ack are acknowledged on their own before a CE-marked one.
    Dctcp,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AckCountingSpec {
    #[default]
    Acks,
    Segments,
}

/// `playback_rwnd_cap`: a playback buffer whose free space is the receive window.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlaybackSpec {
    /// The playback buffer, e.g. 125000 or "125kB": at least one segment (`mss`), at most
    /// 65535·2^14 bytes (RFC 7323's largest window).
    pub buffer: SizeValue,
    /// The most the application reads at each read (default: `buffer`). Positive.
    #[serde(default)]
    pub read: Option<SizeValue>,
    /// Time between reads (default "1s"): reads happen at `interval`, `2·interval`, … of
    /// simulated time. Positive.
    #[serde(default)]
    pub interval: Option<DurationValue>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SsthreshBasisSpec {
    #[default]
    Flightsize,
    Window,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryExitSpec {
    #[default]
    Ssthresh,
    Flightsize,
}

/// A flow's transport.
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TransportSpec {
    /// Reliable, congestion-controlled (the default).
    #[default]
    Tcp,
    /// Datagrams: no acks, no retransmission, no congestion control.
    Udp,
}

impl TransportSpec {
    pub fn name(self) -> &'static str {
        match self {
            TransportSpec::Tcp => "tcp",
            TransportSpec::Udp => "udp",
        }
    }
}

/// A flow schedule: the number of active flows of a group over time (P3 §5.2). When the
/// count rises the next flows of the list start; when it drops the highest-index active
/// flows stop. Before the first entry no flow of the list is active.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSpec {
    /// The flows of the group, in joining order.
    pub flows: Vec<String>,
    /// `[time, count]` pairs with increasing times, e.g. `[["0s", 12], ["15s", 25]]`.
    pub active: Vec<(DurationValue, u32)>,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsSpec {
    /// Length of the interval series bins (P0 uses "3s").
    #[serde(default = "default_interval")]
    pub interval: DurationValue,
    /// Start of the steady-state window the summary averages over.
    #[serde(default = "zero_duration")]
    pub steady_start: DurationValue,
    /// Sample cwnd and queue lengths with this period (off when absent).
    #[serde(default)]
    pub trace: Option<DurationValue>,
    /// Event traces to record (`events.parquet`): any of "cwnd" (each cwnd/ssthresh change),
    /// "drop" (each queue drop), "loss" (each wire loss), "mark" (each ECN mark). None by
    /// default.
    #[serde(default)]
    pub events: Vec<String>,
    /// Upper edges of the flow-size buckets of the flow-completion-time summary, in bytes,
    /// increasing (default 10KB, 100KB, 1MB, 10MB: five buckets, the last open).
    #[serde(default)]
    pub fct_buckets: Option<Vec<SizeValue>>,
}

impl Default for MetricsSpec {
    fn default() -> Self {
        MetricsSpec {
            interval: default_interval(),
            steady_start: zero_duration(),
            trace: None,
            events: Vec::new(),
            fct_buckets: None,
        }
    }
}

fn default_interval() -> DurationValue {
    DurationValue(crate::time::SimDuration::from_secs(1))
}

/// Closed-form models to put next to the simulated numbers.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSpec {
    /// Kalampoukas, Varma & Ramakrishnan 1997 (seed 000), Theorems 1 and 2: two-way traffic
    /// through shared FIFO end-host queues.
    #[serde(default)]
    pub two_way: Option<TwoWaySpec>,
}

/// Join the path serde reports with a sub-path carried in the message.
fn located(path: String, msg: String) -> ScenarioError {
    let path = if path == "." { String::new() } else { path };
    match split_subpath(&msg) {
        Some((sub, m)) if path.is_empty() => ScenarioError::new(sub, first_line(&m)),
        Some((sub, m)) => ScenarioError::new(format!("{path}.{sub}"), first_line(&m)),
        None => ScenarioError::new(path, first_line(&msg)),
    }
}

fn first_line(m: &str) -> String {
    m.trim().lines().next().unwrap_or("").to_string()
}

/// Parse a scenario from TOML text (expanding builders, duplex links and defaults).
/// Errors carry the field path.
pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
    from_document(toml_document(text)?)
}

/// Parse a scenario from JSON text (what the Python binding sends for dicts).
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    from_document(json_document(text)?)
}

/// [`from_json`], refusing before expansion a builder whose elements alone exceed `limit`
/// ([`memory::check_builders`]); the built scenario is checked again by [`build_limited`].
pub fn from_json_limited(
    text: &str,
    limit: memory::MemoryLimit,
) -> Result<Scenario, ScenarioError> {
    let doc = json_document(text)?;
    memory::check_builders(&doc, limit)?;
    from_document(doc)
}

/// The plain scenario a TOML scenario expands to (builders, duplex links and defaults
/// replaced by what they generate; keys sorted), after checking that it is valid.
pub fn expand_toml(text: &str) -> Result<serde_json::Value, ScenarioError> {
    expand_checked(toml_document(text)?)
}

/// [`expand_toml`] for JSON text.
pub fn expand_json(text: &str) -> Result<serde_json::Value, ScenarioError> {
    expand_checked(json_document(text)?)
}

fn expand_checked(doc: serde_json::Value) -> Result<serde_json::Value, ScenarioError> {
    let expand::Expanded { doc, origins } = expand::expand(doc)?;
    let mut sc = deserialize(doc.clone(), &origins)?;
    sc.origins = origins;
    build(sc, None)?;
    Ok(doc)
}

fn from_document(doc: serde_json::Value) -> Result<Scenario, ScenarioError> {
    let expand::Expanded { doc, origins } = expand::expand(doc)?;
    let mut sc = deserialize(doc, &origins)?;
    sc.origins = origins;
    Ok(sc)
}

fn deserialize(
    doc: serde_json::Value,
    origins: &expand::Origins,
) -> Result<Scenario, ScenarioError> {
    serde_path_to_error::deserialize(doc)
        .map_err(path_error)
        .map_err(|e| origins.locate(e))
}

/// TOML text as a JSON value. TOML's non-finite floats (`inf`, `nan`) have no JSON form and
/// are an error naming the field; dates and times become their text.
fn toml_document(text: &str) -> Result<serde_json::Value, ScenarioError> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| ScenarioError::new("", toml_message(&e)))?;
    toml_to_json(toml::Value::Table(table), "")
}

fn toml_to_json(v: toml::Value, path: &str) -> Result<serde_json::Value, ScenarioError> {
    use serde_json::Value as J;
    Ok(match v {
        toml::Value::String(s) => J::String(s),
        toml::Value::Integer(i) => J::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f)
            .map(J::Number)
            .ok_or_else(|| ScenarioError::new(path, format!("'{f}' is not a finite number")))?,
        toml::Value::Boolean(b) => J::Bool(b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(
            a.into_iter()
                .enumerate()
                .map(|(i, x)| toml_to_json(x, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(t) => J::Object(
            t.into_iter()
                .map(|(k, x)| {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    toml_to_json(x, &p).map(|x| (k, x))
                })
                .collect::<Result<_, _>>()?,
        ),
    })
}

fn json_document(text: &str) -> Result<serde_json::Value, ScenarioError> {
    serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        ScenarioError::new("", format!("JSON syntax error: {msg}"))
    })
}

fn toml_message(e: &toml::de::Error) -> String {
    let m = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => format!("TOML syntax error at byte {}: {m}", span.start),
        None => format!("TOML syntax error: {m}"),
    }
}

pub(crate) fn path_error<E: fmt::Display>(e: serde_path_to_error::Error<E>) -> ScenarioError {
    let path = e.path().to_string();
    let msg = e.inner().to_string();
    // Drop serde's trailing position hints; the path says where.
    let msg = msg
        .split(" at line ")
        .next()
        .unwrap_or(&msg)
        .trim()
        .to_string();
    let msg = suggest::unknown_field(&path, &msg);
    located(path, msg)
}

/// The JSON Schema of scenario files, for editors.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    let mut schema = serde_json::to_value(&schema).expect("schema serialises");
    expand::patch_schema(&mut schema);
    serde_json::to_string_pretty(&schema).expect("schema serialises")
}

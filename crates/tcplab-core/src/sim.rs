//! The simulation: owns every component in arenas addressed by typed ids, and runs the
//! event loop. Events are dispatched with one `match`; components never hold references to
//! each other.

use crate::app::{App, Begin};
use crate::cc::{CaState, CongestionControl};
use crate::event::{Event, EventQueue, FlowId, LinkId, NodeId};
use crate::net::{Link, Node, Packet, PacketKind};
use crate::stats::columns::{
    Column, CwndEventColumns, CwndEventRow, CwndTrace, CwndTraceRow, IntervalColumns, IntervalRow,
    PacketEventColumns, QueueTraceColumns, QueueTraceRow,
};
use crate::stats::events::{merge_packet_events, EventKind, EventSet};
use crate::stats::FlowCounters;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::time::{Rate, SimDuration, SimTime};
use crate::udp::{UdpReceiver, UdpSender};

/// A flow's two transport ends.
#[allow(clippy::large_enum_variant)] // one per flow, never moved on the hot path
pub enum Transport {
    Tcp {
        sender: TcpSender,
        receiver: TcpReceiver,
    },
    Udp {
        sender: UdpSender,
        receiver: UdpReceiver,
    },
}

/// One flow (a TCP connection or a UDP flow) with its application.
pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub transport: Transport,
    pub app: App,
    /// The application is running (between its start and stop, or while its schedule has
    /// it active).
    pub active: bool,
    /// The flow's schedule (index into `Sim::schedules`), if it is in one.
    pub schedule: Option<u32>,
    /// Time of the live `AppTick` event of an active source, if one is pending (an
    /// `AppTick` at another time is stale and ignored).
    tick_at: Option<SimTime>,
    pub counters: FlowCounters,
    /// One-way delay and jitter of the data packets that reached the destination, over
    /// the steady-state window (receiver half).
    pub delay: crate::stats::DelayStats,
    /// Link whose rate is the efficiency denominator.
    pub eff_link: LinkId,
    pub completed_at: Option<SimTime>,
    /// First time the send window reached the receiver window (the maximum window).
    pub max_window_at: Option<SimTime>,
    /// Retransmissions and timeouts counted before the steady-state window began.
    pub retransmits_before_steady: u64,
    pub timeouts_before_steady: u64,
    /// TCP: the out-of-order ranges the receiver held when the steady-state window began
    /// (data that arrived before it; goodput leaves out the part delivered in it).
    pub steady_held: Vec<(u64, u64)>,
    /// Time of the earliest live `FlowTimer` (sender) and `RxTimer` (receiver) event, if
    /// one is pending.
    timer_event: Option<SimTime>,
    rx_timer_event: Option<SimTime>,
    /// Time of the live `PaceTimer` event of a paced flow, if one is pending.
    pace_event: Option<SimTime>,
    /// The flow's sender paces (`pacing` other than "off").
    paced: bool,
    /// Since when the application has been active (while `active`), and the active time
    /// accumulated in the current interval before that (the intervals' `active` column).
    active_since: SimTime,
    interval_active: SimDuration,
    /// A round of a finite transfer is open (offered, not yet acknowledged to its last
    /// byte): the ack path then checks for its end.
    round_open: bool,
    /// A workload flow: no interval rows, trace samples or summary entry (`fct.parquet`
    /// has its rounds).
    pub quiet: bool,
    /// Finite transfers: the rounds for `fct.parquet` and what their ideal time needs.
    pub fct: Option<Box<FctState>>,
}

/// What `fct.parquet` needs of a finite transfer: its rounds and its path's ideal.
#[derive(Clone, Debug)]
pub struct FctState {
    /// The label of the `workload` column.
    pub label: &'static str,
    /// Propagation delay out and back on the flow's paths (plus the same again with a SYN).
    pub base: SimDuration,
    /// The slowest rate on the forward path.
    pub rate_bps: u64,
    pub mss: u32,
    pub header: u32,
    pub rounds: Vec<Round>,
}

/// One round of a transfer: its bytes, when they were offered and when the last one was
/// acknowledged, with the sender's retransmission and timeout counts at both times.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    pub start: SimTime,
    pub bytes: u64,
    pub end: Option<SimTime>,
    pub retx: (u64, u64),
    pub timeouts: (u64, u64),
}

impl FctState {
    /// The round's ideal completion time: its wire bytes at the slowest link, plus `base`.
    pub fn ideal(&self, bytes: u64) -> SimDuration {
        let wire = bytes + self.header as u64 * bytes.div_ceil(self.mss as u64).max(1);
        let ser = (wire as u128 * 8 * crate::time::PS_PER_S as u128)
            .div_ceil(self.rate_bps.max(1) as u128);
        self.base + SimDuration(ser.min(u64::MAX as u128) as u64)
    }
}

/// Close a flow's open round at `end` (None: stopped before its end), with the sender's
/// retransmission and timeout counts now. A free function, so that the ack path can call it
/// while it holds the sender.
#[cold]
#[inline(never)]
fn close_round(
    fct: &mut Option<Box<FctState>>,
    open: &mut bool,
    end: Option<SimTime>,
    rx: u64,
    to: u64,
) {
    if !*open {
        return;
    }
    *open = false;
    if let Some(r) = fct.as_mut().and_then(|f| f.rounds.last_mut()) {
        r.end = end;
        r.retx.1 = rx;
        r.timeouts.1 = to;
    }
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        src: NodeId,
        dst: NodeId,
        transport: Transport,
        app: App,
        eff_link: LinkId,
    ) -> Self {
        let paced = match &transport {
            Transport::Tcp { sender, .. } => sender.is_paced(),
            Transport::Udp { .. } => false,
        };
        Flow {
            name,
            src,
            dst,
            transport,
            app,
            active: false,
            active_since: SimTime::ZERO,
            interval_active: SimDuration::ZERO,
            schedule: None,
            tick_at: None,
            counters: FlowCounters::default(),
            delay: crate::stats::DelayStats::new(),
            eff_link,
            completed_at: None,
            max_window_at: None,
            retransmits_before_steady: 0,
            timeouts_before_steady: 0,
            steady_held: Vec::new(),
            timer_event: None,
            rx_timer_event: None,
            pace_event: None,
            paced,
            round_open: false,
            quiet: false,
            fct: None,
        }
    }

    /// Close the open round (`end`: None when the application stopped it first).
    fn close_round(&mut self, end: Option<SimTime>) {
        let (rx, to) = match &self.transport {
            Transport::Tcp { sender, .. } => (sender.stats.retransmits, sender.stats.timeouts),
            Transport::Udp { .. } => (0, 0),
        };
        close_round(&mut self.fct, &mut self.round_open, end, rx, to);
    }

    /// A round of `bytes` starts now.
    fn open_round(&mut self, now: SimTime, bytes: u64) {
        let (rx, to) = match &self.transport {
            Transport::Tcp { sender, .. } => (sender.stats.retransmits, sender.stats.timeouts),
            Transport::Udp { .. } => return,
        };
        self.close_round(None);
        let Some(f) = self.fct.as_mut() else { return };
        f.rounds.push(Round {
            start: now,
            bytes,
            end: None,
            retx: (rx, rx),
            timeouts: (to, to),
        });
        self.round_open = true;
    }
    /// Parallel runs: the receiver's pending-timer bookkeeping from `far` (the destination
    /// partition's copy of this flow).
    pub(crate) fn take_rx_timer(&mut self, far: &Flow) {
        self.rx_timer_event = far.rx_timer_event;
    }

    /// The sender's and the receiver's timer deadlines (each its own event: the two ends
    /// may live in different partitions, `crate::par`).
    #[inline(always)]
    fn deadlines(&self) -> (Option<SimTime>, Option<SimTime>) {
        match &self.transport {
            Transport::Tcp { sender, receiver } => (sender.rto_deadline, receiver.deadline()),
            Transport::Udp { .. } => (None, None),
        }
    }
    /// The TCP sender and receiver, if this is a TCP flow.
    pub fn tcp(&self) -> Option<(&TcpSender, &TcpReceiver)> {
        match &self.transport {
            Transport::Tcp { sender, receiver } => Some((sender, receiver)),
            Transport::Udp { .. } => None,
        }
    }
    /// The UDP sender and receiver, if this is a UDP flow.
    pub fn udp(&self) -> Option<(&UdpSender, &UdpReceiver)> {
        match &self.transport {
            Transport::Udp { sender, receiver } => Some((sender, receiver)),
            Transport::Tcp { .. } => None,
        }
    }
    /// The TCP send window in bytes (0 for UDP).
    pub fn window(&self) -> u64 {
        self.tcp().map_or(0, |(s, _)| s.window())
    }
}

/// A flow schedule at run time: its flows in joining order, the `(time, count)` steps it
/// asks for, and the active count the simulation actually went through (`log`, one entry
/// per change, starting with `(0, 0)`).
#[derive(Clone, Debug)]
pub struct ScheduleRun {
    pub name: String,
    pub flows: Vec<FlowId>,
    pub steps: Vec<(SimTime, u32)>,
    pub active: u32,
    pub log: Vec<(SimTime, u32)>,
}

/// Statistics settings.
#[derive(Clone, Debug)]
pub struct MetricsConfig {
    pub interval: SimDuration,
    pub steady_start: SimTime,
    pub trace: Option<SimDuration>,
    /// Event traces to record (`metrics.events`).
    pub events: EventSet,
}

pub struct Sim {
    pub now: SimTime,
    pub end: SimTime,
    pub events: EventQueue,
    pub nodes: Vec<Node>,
    /// Per-flow ECMP tables by node (`routing.ecmp = "flow"`; empty otherwise).
    pub flow_ecmp: Vec<Option<Box<crate::net::routing::FlowEcmp>>>,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    pub schedules: Vec<ScheduleRun>,
    /// Node agents (`[agents]`, Snoop), indexed by `Node::agent`.
    pub agents: Vec<crate::net::snoop::AnyAgent>,
    pub metrics: MetricsConfig,
    pub intervals: IntervalColumns,
    pub cwnd_trace: CwndTrace,
    pub queue_trace: QueueTraceColumns,
    /// Every echo of the `echo = true` UDP flows, flows in order (gathered from their
    /// senders at the end of the run).
    pub probes: crate::stats::columns::ProbeColumns,
    /// Every round of every finite transfer (`fct.parquet`), gathered from the flows at the
    /// end of the run.
    pub fct: crate::stats::columns::FctColumns,
    /// `metrics.events = ["cwnd"]`: every cwnd/ssthresh change.
    pub cwnd_events: CwndEventColumns,
    /// `metrics.events` drop / loss / mark: filled from the links' logs when the run ends.
    pub packet_events: PacketEventColumns,
    pub events_processed: u64,
    /// Whether cwnd events are recorded, and each flow's last recorded (cwnd, ssthresh).
    cwnd_events_on: bool,
    last_cc: Vec<(u64, u64)>,
    /// Per flow: for each of its algorithm's trace names, the cwnd trace's `cc_` column.
    cc_trace_cols: Vec<Vec<usize>>,
    cc_scratch: Vec<f64>,
    /// Per flow at the steady-state start: data packets sent, delivered, and held by this
    /// partition's links (the loss ratio's window; a parallel run merges the partitions').
    pub(crate) steady_data0: Vec<[u64; 3]>,
    /// Flows owed backpressure credit for a segment their own host queue dropped.
    refunds: Vec<FlowId>,
    last_interval: SimTime,
    started: bool,
    finished: bool,
    /// The invariant auditor ([`crate::audit`]): check the whole state every this many
    /// events; 0 = off. `audit_next`: the event count of the next check (u64::MAX when
    /// off); `audit_last_now`: the time of the last one.
    audit_every: u64,
    audit_next: u64,
    audit_last_now: SimTime,
    /// The auditor counts drops and losses per flow (switched on before the run started),
    /// so it checks each flow's segment accounting.
    audit_flows: bool,
    /// Parallel runs (`crate::par`): the partition this copy of the simulation runs, and
    /// every node's partition. `None`: the whole network.
    pub(crate) part: Option<(u16, std::sync::Arc<Vec<u16>>)>,
    /// Events that every partition processes (interval ends, trace samples, the
    /// steady-state start): counted once when partitions' event counts are added up.
    pub(crate) global_events: u64,
}

/// What a sender's or receiver's `out` touches: the network half of [`Sim`], borrowed
/// apart from the flows so a flow can send while it is being updated.
struct Net<'a> {
    nodes: &'a [Node],
    links: &'a mut [Link],
    events: &'a mut EventQueue,
    refunds: &'a mut Vec<FlowId>,
    now: SimTime,
}

impl Net<'_> {
    /// Hand `pkt` to the first-hop link from `node` towards its destination.
    ///
    /// A data segment that its own host's backpressured queue drops (or that is lost before
    /// that queue) still frees its place in it: its flow is pushed on `refunds` so the
    /// sender gets the credit back.
    /// (CHOKe may also drop a queued segment, always of the arrival's flow.)
    /// Always inlined: it is called from every transport path and, as a call, copies the
    /// packet once more (measured: +26 M instructions in bench b 5 s).
    #[inline(always)]
    fn send(&mut self, node: NodeId, pkt: Packet) {
        let now = self.now;
        match self.nodes[node.index()].route(pkt.dst) {
            Some(l) => {
                let link = &mut self.links[l.index()];
                if link.backpressure.is_some() && pkt.is_data() && pkt.src == node {
                    // Losses counted during the offer are the arrival's, lost before the
                    // queue (a backpressured link transmits nothing during an offer).
                    let before = link.drops.data_packets + link.stats.lost;
                    link.offer(l, now, pkt, self.events);
                    // One refund per data segment dropped: the arrival, and with CHOKe's
                    // `drop_both` a queued segment of the same flow.
                    for _ in before..link.drops.data_packets + link.stats.lost {
                        self.refunds.push(pkt.flow);
                    }
                } else {
                    link.offer(l, now, pkt, self.events);
                }
            }
            None => unreachable!(
                "validated scenario has a route from {} to {}",
                node, pkt.dst
            ),
        }
    }
}

impl Net<'_> {
    /// [`Net::send`], and whether the first-hop queue kept the packet (node agents: Snoop
    /// caches only what its wireless queue accepted).
    fn send_kept(&mut self, node: NodeId, pkt: Packet) -> bool {
        let Some(l) = self.nodes[node.index()].route(pkt.dst) else {
            unreachable!(
                "validated scenario has a route from {} to {}",
                node, pkt.dst
            )
        };
        let before = self.links[l.index()].drops.packets;
        self.send(node, pkt);
        self.links[l.index()].drops.packets == before
    }
}

impl Sim {
    pub fn new(
        end: SimTime,
        nodes: Vec<Node>,
        mut links: Vec<Link>,
        flows: Vec<Flow>,
        metrics: MetricsConfig,
    ) -> Self {
        for (i, l) in links.iter_mut().enumerate() {
            l.prepare(end);
            l.enable_events(LinkId::from_index(i), metrics.events);
        }
        let cwnd_events_on = metrics.events.contains(EventKind::Cwnd);
        Sim {
            now: SimTime::ZERO,
            end,
            events: EventQueue::new(),
            nodes,
            flow_ecmp: Vec::new(),
            links,
            flows,
            schedules: Vec::new(),
            agents: Vec::new(),
            metrics,
            intervals: IntervalColumns::default(),
            cwnd_trace: CwndTrace::default(),
            queue_trace: QueueTraceColumns::default(),
            probes: Default::default(),
            fct: Default::default(),
            cwnd_events: CwndEventColumns::default(),
            packet_events: PacketEventColumns::default(),
            events_processed: 0,
            cwnd_events_on,
            last_cc: Vec::new(),
            cc_trace_cols: Vec::new(),
            cc_scratch: Vec::new(),
            steady_data0: Vec::new(),
            refunds: Vec::new(),
            last_interval: SimTime::ZERO,
            started: false,
            finished: false,
            audit_every: 0,
            audit_next: u64::MAX,
            audit_last_now: SimTime::ZERO,
            audit_flows: false,
            part: None,
            global_events: 0,
        }
    }

    /// Switch the invariant auditor ([`crate::audit`]) on: the whole state and the
    /// monotony of time every `every` events (at least 1) and at the end of the run.
    /// Switched on before the run starts, the links also count drops and losses per flow
    /// and the auditor checks every flow's segment accounting
    /// ([`crate::audit::check_accounting`]).
    pub fn enable_audit(&mut self, every: u64) {
        self.audit_every = every.max(1);
        self.audit_next = self.events_processed.saturating_add(self.audit_every);
        if !self.started && !self.audit_flows {
            self.audit_flows = true;
            let n = self.flows.len();
            for l in &mut self.links {
                l.drops.by_flow = vec![crate::queue::FlowLosses::default(); n];
            }
        }
    }

    /// Whether the auditor is on.
    pub fn audited(&self) -> bool {
        self.audit_every != 0
    }

    /// Check every invariant of [`crate::audit`] now (panics on a violation).
    pub fn audit(&mut self) {
        let now = self.now;
        for l in &mut self.links {
            l.settle(now);
            crate::audit::check_link(l, now);
        }
        for f in &self.flows {
            match &f.transport {
                Transport::Tcp { sender, receiver } => {
                    crate::audit::check_tcp(&f.name, sender, receiver, &f.counters)
                }
                Transport::Udp { sender, receiver } => {
                    crate::audit::check_udp(&f.name, sender, receiver)
                }
            }
        }
        if self.audit_flows {
            self.audit_accounting();
        }
    }

    /// Per flow, `[sent, delivered, held]` data packets (segments or datagrams) so far:
    /// sent with a Snoop agent's local retransmissions, delivered to the destination, held
    /// by this simulation's links (queued, in transmission, propagating). Links settled by
    /// the caller; one walk over the packets in the network.
    fn data_counts(&self) -> Vec<[u64; 3]> {
        let held = self.held_by_flow();
        (0..self.flows.len())
            .map(|i| {
                let [(sent, delivered), _] = self.flow_ends(i);
                [sent, delivered, held[i][0]]
            })
            .collect()
    }

    /// Per flow, (data packets sent, of which the network dropped or lost) over the
    /// steady-state window: sent less delivered less held, at the end less the same at the
    /// window's start ([`Sim::data_counts`] then and now; the whole run without a
    /// steady-state start). Exact by the segment accounting the auditor checks
    /// ([`crate::audit::check_accounting`]). Links settled by the caller.
    pub fn steady_data_losses(&self) -> Vec<(u64, u64)> {
        let gone = |[s, d, h]: [u64; 3]| s.saturating_sub(d + h);
        self.data_counts()
            .into_iter()
            .enumerate()
            .map(|(i, now)| {
                let then = self.steady_data0.get(i).copied().unwrap_or_default();
                (
                    now[0].saturating_sub(then[0]),
                    gone(now).saturating_sub(gone(then)),
                )
            })
            .collect()
    }

    /// Per flow, `[data, ack]` packets the links hold (queued, in transmission,
    /// propagating). Links settled by the caller.
    fn held_by_flow(&self) -> Vec<[u64; 2]> {
        let mut held = vec![[0u64; 2]; self.flows.len()];
        for l in &self.links {
            l.held_by_flow(&mut held);
        }
        held
    }

    /// Flow `i`'s two ends, `[data, ack]` each as (sent, delivered): data sent counts a
    /// Snoop agent's local retransmissions too.
    fn flow_ends(&self, i: usize) -> [(u64, u64); 2] {
        let local: u64 = self.agent_accounting(i).0;
        match &self.flows[i].transport {
            Transport::Tcp { sender, receiver } => [
                (
                    sender.stats.segments_sent + local,
                    receiver.stats.data_packets,
                ),
                (receiver.stats.acks_sent, sender.stats.acks_received),
            ],
            Transport::Udp { sender, receiver } => [
                (sender.packets_sent + local, receiver.packets_delivered),
                (receiver.echoes_sent, sender.echoes_received),
            ],
        }
    }

    /// Flow `i`'s (packets the node agents sent locally, acks they absorbed).
    fn agent_accounting(&self, i: usize) -> (u64, u64) {
        self.agents.iter().fold((0, 0), |(l, k), a| {
            let crate::net::snoop::AnyAgent::Snoop(s) = a;
            let (dl, dk) = s.flow_accounting(FlowId::from_index(i));
            (l + dl, k + dk)
        })
    }

    /// Each flow's segment accounting ([`crate::audit::check_accounting`]), data segments
    /// and acks apart. Links settled by the caller.
    fn audit_accounting(&self) {
        use crate::audit::{check_accounting, Accounting};
        let n = self.flows.len();
        let held = self.held_by_flow();
        let mut losses = vec![crate::queue::FlowLosses::default(); n];
        for l in &self.links {
            for (t, x) in losses.iter_mut().zip(&l.drops.by_flow) {
                for k in 0..2 {
                    t.dropped[k] += x.dropped[k];
                    t.lost[k] += x.lost[k];
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let absorbed = self.agent_accounting(i).1;
            // [data, ack]: (sent, delivered)
            let ends = self.flow_ends(i);
            for (k, kind) in ["data segments", "acks"].into_iter().enumerate() {
                check_accounting(
                    &f.name,
                    kind,
                    &Accounting {
                        sent: ends[k].0,
                        delivered: ends[k].1,
                        dropped: losses[i].dropped[k],
                        lost: losses[i].lost[k],
                        held: held[i][k],
                        absorbed: if k == 1 { absorbed } else { 0 },
                    },
                );
            }
        }
    }

    /// The network (for sending) and the flows, borrowed apart.
    #[inline]
    fn split(&mut self) -> (Net<'_>, &mut [Flow]) {
        let Sim {
            nodes,
            links,
            events,
            flows,
            refunds,
            now,
            ..
        } = self;
        (
            Net {
                nodes,
                links,
                events,
                refunds,
                now: *now,
            },
            flows,
        )
    }

    /// Whether this copy runs node `n` (always, unless it is one partition of a parallel
    /// run).
    #[inline]
    pub(crate) fn mine(&self, n: NodeId) -> bool {
        match &self.part {
            None => true,
            Some((me, parts)) => parts[n.index()] == *me,
        }
    }

    fn start(&mut self) {
        self.started = true;
        // Playback readers (`playback_rwnd_cap`): the first read, in the receiver's copy
        // (a parallel run's other copies read nothing: their reader stays off).
        for i in 0..self.flows.len() {
            let mine = self.mine(self.flows[i].dst);
            let fl = &mut self.flows[i];
            if let Transport::Tcp { receiver, .. } = &mut fl.transport {
                if !mine {
                    receiver.read_at = None;
                } else if let Some(t) = receiver.read_at {
                    fl.rx_timer_event = Some(t);
                    self.events
                        .schedule(t, Event::RxTimer(FlowId::from_index(i)));
                }
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if f.schedule.is_some() || !self.mine(f.src) {
                continue;
            }
            self.events
                .schedule(f.app.start(), Event::AppStart(FlowId::from_index(i)));
            if let Some(stop) = f.app.stop() {
                self.events
                    .schedule(stop, Event::AppStop(FlowId::from_index(i)));
            }
        }
        // Schedules: the flows joining or leaving at each step.
        for s in &self.schedules {
            let mut n = 0usize;
            for &(t, m) in &s.steps {
                let m = m as usize;
                for &f in &s.flows[n.min(m)..n.max(m)] {
                    if !self.mine(self.flows[f.index()].src) {
                        continue;
                    }
                    let ev = if m > n {
                        Event::AppStart(f)
                    } else {
                        Event::AppStop(f)
                    };
                    self.events.schedule(t, ev);
                }
                n = m;
            }
        }
        self.events
            .schedule(SimTime::ZERO + self.metrics.interval, Event::Interval);
        if self.metrics.steady_start > SimTime::ZERO {
            self.events
                .schedule(self.metrics.steady_start, Event::SteadyStart);
        }
        if self.metrics.trace.is_some() {
            self.setup_cc_trace();
            self.events.schedule(SimTime::ZERO, Event::Trace);
        }
        for i in 0..self.links.len() {
            if self.mine(self.links[i].from) {
                self.links[i].start_states(LinkId::from_index(i), &mut self.events);
            }
        }
        if self.cwnd_events_on {
            self.last_cc = vec![(u64::MAX, u64::MAX); self.flows.len()];
            for f in 0..self.flows.len() {
                self.note_cwnd(FlowId::from_index(f));
            }
        }
    }

    /// The cwnd trace's `cc_` columns: every name the flows' algorithms export, in
    /// first-seen order, and per flow where each of its values goes.
    fn setup_cc_trace(&mut self) {
        let tr = &mut self.cwnd_trace;
        for f in &self.flows {
            // UDP flows have no algorithm and no trace rows.
            let names: &[&'static str] = match f.tcp() {
                Some((sender, _)) => sender.cc.trace_names(),
                None => &[],
            };
            let cols = names
                .iter()
                .map(|n| match tr.cc_names.iter().position(|m| m == n) {
                    Some(k) => k,
                    None => {
                        tr.cc_names.push(n);
                        tr.cc_values.push(Vec::new());
                        tr.cc_names.len() - 1
                    }
                })
                .collect();
            self.cc_trace_cols.push(cols);
        }
    }

    /// Record flow `f`'s cwnd and ssthresh if either changed since its last row.
    #[cold]
    fn note_cwnd(&mut self, f: FlowId) {
        let Some((sender, _)) = self.flows[f.index()].tcp() else {
            return; // UDP: no window
        };
        let cur = (sender.window(), sender.cc.ssthresh().min(u64::MAX >> 1));
        let last = &mut self.last_cc[f.index()];
        if *last != cur {
            *last = cur;
            self.cwnd_events.push(CwndEventRow {
                t: self.now.as_secs_f64(),
                flow: f,
                cwnd_bytes: cur.0,
                ssthresh_bytes: cur.1,
                state: match sender.state() {
                    CaState::Open => "open",
                    CaState::Recovery => "recovery",
                    CaState::Loss => "loss",
                },
            });
        }
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Fraction of simulated time done, in [0, 1].
    pub fn progress(&self) -> f64 {
        if self.end.0 == 0 {
            1.0
        } else {
            (self.now.0 as f64 / self.end.0 as f64).min(1.0)
        }
    }

    /// Run the whole scenario.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Parallel runs: process every event strictly before `stop` (a window's end), without
    /// settling the links or finishing the run.
    pub(crate) fn run_before(&mut self, stop: SimTime) {
        if !self.started {
            self.start();
        }
        if stop > SimTime::ZERO {
            self.process(SimTime(stop.0 - 1));
        }
    }

    /// Parallel runs: the time of the next pending event.
    pub(crate) fn next_event_time(&mut self) -> Option<SimTime> {
        if !self.started {
            self.start();
        }
        self.events.peek_time()
    }

    /// Parallel runs: the end of [`Sim::run_until`] after the partitions processed every
    /// event up to `limit`.
    pub(crate) fn settle_until(&mut self, limit: SimTime) {
        self.now = self.now.max(limit);
        for l in &mut self.links {
            l.settle(self.now);
        }
        if limit >= self.end && !self.finished {
            self.finish();
        }
    }

    /// Process every event up to and including `t` (capped at the end of the run).
    pub fn run_until(&mut self, t: SimTime) {
        if !self.started {
            self.start();
        }
        let limit = t.min(self.end);
        self.process(limit);
        self.now = self.now.max(limit);
        for l in &mut self.links {
            l.settle(self.now);
        }
        if limit >= self.end && !self.finished {
            if self.audit_every != 0 {
                self.audit_due();
            }
            self.finish();
        }
    }

    /// The event loop: every event up to and including `limit` (at most the end).
    #[inline(never)]
    fn process(&mut self, limit: SimTime) {
        let limit = limit.min(self.end);
        while let Some(at) = self.events.peek_time() {
            if at > limit {
                break;
            }
            let (at, ev) = self.events.pop().unwrap();
            debug_assert!(at >= self.now, "time went backwards");
            self.now = at;
            self.events_processed += 1;
            self.dispatch(ev);
            while let Some(f) = self.refunds.pop() {
                self.ipq_departed(f);
            }
            // The auditor: `audit_next` is u64::MAX when it is off (one compare per event).
            if self.events_processed >= self.audit_next {
                self.audit_due();
            }
        }
    }

    /// The auditor's periodic check: time has not gone backwards since the last one, and
    /// every invariant of [`crate::audit`] holds.
    #[cold]
    #[inline(never)]
    fn audit_due(&mut self) {
        if self.now < self.audit_last_now {
            panic!(
                "tcplab audit: time went backwards: {} ps after {} ps (an engine bug)",
                self.now.0, self.audit_last_now.0
            );
        }
        self.audit_last_now = self.now;
        self.audit_next = self.events_processed.saturating_add(self.audit_every);
        self.audit();
    }

    /// Always inlined into the event loop (its one caller): the compiler's own choice
    /// changed with code elsewhere in the crate, and out of line it cost bench b 50 M
    /// instructions (+5-13 % wall; docs/performance.md, "Two changes off bench b's path").
    /// Where it was inlined anyway the attribute changes nothing (477.63 M both ways).
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::LinkTxDone(l) => {
                let link = &mut self.links[l.index()];
                if link.backpressure.is_none() {
                    link.tx_done(l, now, &mut self.events);
                } else {
                    // Backpressure: the sender refills the queue before the link picks
                    // its next packet, so the new segment competes at the tail at once.
                    let p = link.finish_tx(l, now, &mut self.events);
                    if p.is_data() && p.src == link.from {
                        self.ipq_departed(p.flow);
                    }
                    self.links[l.index()].start_next(l, now, &mut self.events);
                }
            }
            Event::LinkArrival(l) => {
                let link = &mut self.links[l.index()];
                let to = link.to;
                let p = link.arrive(l, &mut self.events);
                self.receive(to, p);
            }
            Event::FlowTimer(f) => self.flow_timer(f),
            Event::RxTimer(f) => self.rx_timer(f),
            Event::PaceTimer(f) => self.pace_timer(f),
            Event::AppStart(f) => self.app_start(f),
            Event::AppStop(f) => self.app_stop(f),
            Event::AppTick(f) => self.app_tick(f),
            Event::QueueWake(l) => self.links[l.index()].wake(l, now, &mut self.events),
            Event::LinkState(l) => self.links[l.index()].state_change(l, now, &mut self.events),
            Event::NodeTimer(n) => self.agent_timer(n),
            // Each counts itself in `global_events`.
            Event::Interval => self.close_interval(),
            Event::Trace => self.trace_sample(),
            Event::SteadyStart => self.steady_start(),
        }
    }

    /// The steady-state window begins: snapshot the counters it is measured from.
    #[inline(never)]
    fn steady_start(&mut self) {
        self.global_events += 1;
        let now = self.now;
        for l in &mut self.links {
            l.settle(now);
        }
        self.steady_data0 = self.data_counts();
        for f in &mut self.flows {
            f.counters.steady_goodput0 = f.counters.goodput_bytes;
            f.counters.steady_wire0 = f.counters.wire_bytes;
            f.delay.reset();
            if let Transport::Udp { sender, .. } = &mut f.transport {
                sender.echo_rtt.reset();
            }
            if let Transport::Tcp { sender, receiver } = &mut f.transport {
                f.retransmits_before_steady = sender.stats.retransmits;
                f.timeouts_before_steady = sender.stats.timeouts;
                sender.rtt_dist.reset();
                f.steady_held.clear();
                f.steady_held.extend(receiver.held());
            }
        }
        for l in &mut self.links {
            l.settle(now);
            l.reset_steady_max();
            l.stats.steady_busy0 = l.busy_time(now).0;
            l.stats.steady_offered0 = l.stats.offered;
            l.stats.steady_drops0 = l.drops.packets;
            l.stats.steady_marks0 = l.drops.marks;
            l.stats.steady_area0 = l.queue_area_at(now);
            l.stats.steady_queued0 = l.queued();
        }
    }

    /// A packet reached `node`.
    #[inline]
    fn receive(&mut self, node: NodeId, p: Packet) {
        let now = self.now;
        if p.dst != node {
            if !self.flow_ecmp.is_empty() {
                return self.forward_by_flow(node, p);
            }
            match self.nodes[node.index()].agent {
                None => self.split().0.send(node, p),
                Some(a) => self.agent_forward(node, a, p),
            }
            return;
        }
        let f = p.flow;
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        match (&mut fl.transport, p.kind) {
            (Transport::Tcp { receiver, .. }, PacketKind::Data) => {
                let o = if p.len == 0 {
                    receiver.on_syn(now, &p, &mut |a| net.send(node, a))
                } else {
                    receiver.on_segment(now, &p, &mut |a| net.send(node, a))
                };
                fl.counters.add(o.delivered, o.unique_wire);
                fl.delay.add(now.0.saturating_sub(p.ts.0));
            }
            (Transport::Tcp { sender, .. }, PacketKind::Ack) => {
                sender.on_ack(now, &p, &mut |d| net.send(node, d));
                if (fl.round_open || fl.completed_at.is_none()) && sender.is_complete() {
                    // Every byte offered so far is acknowledged: the first completion, and
                    // the end of the open round.
                    fl.completed_at.get_or_insert(now);
                    let (rx, to) = (sender.stats.retransmits, sender.stats.timeouts);
                    close_round(&mut fl.fct, &mut fl.round_open, Some(now), rx, to);
                }
                if fl.max_window_at.is_none() && sender.window() >= sender.max_window() {
                    fl.max_window_at = Some(now);
                }
            }
            (Transport::Udp { sender, .. }, PacketKind::Ack) => {
                sender.on_echo(now, &p);
                return;
            }
            (Transport::Udp { receiver, .. }, PacketKind::Data) => {
                let n = receiver.on_datagram(&p);
                fl.counters.add(n, p.size as u64);
                fl.delay.add(now.0.saturating_sub(p.ts.0));
                if receiver.echo {
                    net.send(node, receiver.echo_of(now, &p));
                }
                return;
            }
        }
        self.sync_timer(f);
    }

    /// `routing.ecmp = "flow"`: a packet passing through `node` goes on the next hop its
    /// flow hashes to (only forwarding nodes choose by flow, as switches hash five-tuples;
    /// a packet's first hop from its own host follows the host's table). A node with an
    /// agent forwards by its table. Out of line: the other routing modes pay one test of
    /// `flow_ecmp`'s length on the forwarding path.
    #[cold]
    #[inline(never)]
    fn forward_by_flow(&mut self, node: NodeId, p: Packet) {
        if let Some(a) = self.nodes[node.index()].agent {
            return self.agent_forward(node, a, p);
        }
        let l = crate::net::route_flow(&self.nodes, &self.flow_ecmp, node, p.dst, p.flow)
            .expect("validated scenario has a route");
        let now = self.now;
        let link = &mut self.links[l.index()];
        // A forwarded packet never meets its own host's backpressure (`Net::send`).
        link.offer(l, now, p, &mut self.events);
    }

    /// A packet passing through a node with an agent (Snoop): the agent forwards it, may
    /// hold it back (a suppressed dupack) or send more (local retransmissions).
    #[cold]
    #[inline(never)]
    fn agent_forward(&mut self, node: NodeId, a: u32, p: Packet) {
        let now = self.now;
        let (mut net, agents) = self.split_agents();
        let next = net.nodes[node.index()]
            .route(p.dst)
            .expect("validated scenario has a route");
        let crate::net::snoop::AnyAgent::Snoop(s) = &mut agents[a as usize];
        if let Some(t) = s.on_forward(now, p, next, &mut |q| net.send_kept(node, q)) {
            net.events.schedule(t, Event::NodeTimer(node));
        }
    }

    /// A node agent's timer.
    #[cold]
    #[inline(never)]
    fn agent_timer(&mut self, node: NodeId) {
        let Some(a) = self.nodes[node.index()].agent else {
            return;
        };
        let now = self.now;
        let (mut net, agents) = self.split_agents();
        let crate::net::snoop::AnyAgent::Snoop(s) = &mut agents[a as usize];
        if let Some(t) = s.on_timer(now, &mut |q| net.send_kept(node, q)) {
            net.events.schedule(t, Event::NodeTimer(node));
        }
    }

    /// The network (for sending) and the node agents, borrowed apart (as [`Sim::split`]).
    fn split_agents(&mut self) -> (Net<'_>, &mut [crate::net::snoop::AnyAgent]) {
        let Sim {
            nodes,
            links,
            events,
            refunds,
            now,
            agents,
            ..
        } = self;
        (
            Net {
                nodes,
                links,
                events,
                refunds,
                now: *now,
            },
            agents,
        )
    }

    /// One of `f`'s data segments left its host's backpressured queue.
    fn ipq_departed(&mut self, f: FlowId) {
        let now = self.now;
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        let src = fl.src;
        let Transport::Tcp { sender, .. } = &mut fl.transport else {
            return; // a datagram: nothing waits for its departure
        };
        sender.ipq_departed(now, &mut |d| net.send(src, d));
        if fl.max_window_at.is_none() && sender.window() >= sender.max_window() {
            fl.max_window_at = Some(now);
        }
        self.sync_timer(f);
    }

    /// Make sure a `FlowTimer` (`RxTimer`) event is pending at or before the sender's
    /// (receiver's) earliest deadline.
    /// Re-arming a later deadline costs nothing: the pending event reschedules itself.
    /// Called after everything that touches a flow, so it is also where cwnd events are
    /// noted.
    #[inline(always)]
    fn sync_timer(&mut self, f: FlowId) {
        if self.cwnd_events_on {
            self.note_cwnd(f);
        }
        let fl = &mut self.flows[f.index()];
        let (tx, rx) = fl.deadlines();
        if let Some(d) = tx {
            if fl.timer_event.is_none_or(|t| d < t) {
                fl.timer_event = Some(d);
                self.events.schedule(d, Event::FlowTimer(f));
            }
        }
        if let Some(d) = rx {
            if fl.rx_timer_event.is_none_or(|t| d < t) {
                fl.rx_timer_event = Some(d);
                self.events.schedule(d, Event::RxTimer(f));
            }
        }
        if fl.paced {
            self.sync_pace(f);
        }
    }

    /// A paced flow: make sure a `PaceTimer` event is pending at or before its release time
    /// when a segment waits for it.
    #[inline(never)]
    fn sync_pace(&mut self, f: FlowId) {
        let fl = &mut self.flows[f.index()];
        if let Transport::Tcp { sender, .. } = &fl.transport {
            if let Some(d) = sender.pace_deadline {
                if fl.pace_event.is_none_or(|t| d < t) {
                    fl.pace_event = Some(d);
                    self.events.schedule(d, Event::PaceTimer(f));
                }
            }
        }
    }

    /// A paced flow's release time: send what is due.
    fn pace_timer(&mut self, f: FlowId) {
        let now = self.now;
        {
            let fl = &mut self.flows[f.index()];
            if fl.pace_event != Some(now) {
                return; // superseded by an earlier event
            }
            fl.pace_event = None;
        }
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        let src = fl.src;
        if let Transport::Tcp { sender, .. } = &mut fl.transport {
            if sender.pace_deadline.is_some_and(|d| d <= now) {
                sender.on_pace_timer(now, &mut |d| net.send(src, d));
            }
        }
        self.sync_timer(f);
    }

    /// The sender's timer (retransmission, probe, SYN).
    fn flow_timer(&mut self, f: FlowId) {
        let now = self.now;
        {
            let fl = &mut self.flows[f.index()];
            if fl.timer_event != Some(now) {
                return; // superseded by an earlier event
            }
            fl.timer_event = None;
        }
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        let src = fl.src;
        if let Transport::Tcp { sender, .. } = &mut fl.transport {
            if sender.rto_deadline.is_some_and(|d| d <= now) {
                sender.on_timeout(now, &mut |d| net.send(src, d));
            }
        }
        self.sync_timer(f);
    }

    /// The receiver's timer (delayed ack, playback read).
    fn rx_timer(&mut self, f: FlowId) {
        let now = self.now;
        {
            let fl = &mut self.flows[f.index()];
            if fl.rx_timer_event != Some(now) {
                return; // superseded by an earlier event
            }
            fl.rx_timer_event = None;
        }
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        let dst = fl.dst;
        if let Transport::Tcp { receiver, .. } = &mut fl.transport {
            if receiver.deadline().is_some_and(|d| d <= now) {
                receiver.on_timer(now, &mut |a| net.send(dst, a));
            }
        }
        self.sync_timer(f);
    }

    /// The application of `f` starts (or its schedule makes it join again).
    #[inline(never)]
    fn app_start(&mut self, f: FlowId) {
        let (now, end) = (self.now, self.end);
        self.count_active(f, true);
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        if !fl.active {
            fl.active_since = now;
        }
        fl.active = true;
        let src = fl.src;
        match fl.app.begin(now) {
            Begin::Offer(bytes) => {
                if bytes != u64::MAX && fl.fct.is_some() {
                    fl.open_round(now, bytes);
                }
                if let Transport::Tcp { sender, .. } = &mut fl.transport {
                    // A transfer's bytes end its stream (a FIN with `fin`); a greedy
                    // source's never do.
                    sender.app_write_last(now, bytes, &mut |p| net.send(src, p));
                }
            }
            Begin::Tick(t) if t < end => {
                fl.tick_at = Some(t);
                net.events.schedule(t, Event::AppTick(f));
            }
            Begin::Tick(_) => {}
        }
        self.sync_timer(f);
    }

    /// The application of `f` stops: a passive source withdraws its unsent data, an
    /// active source writes no more (what it already wrote is still sent).
    #[inline(never)]
    fn app_stop(&mut self, f: FlowId) {
        self.count_active(f, false);
        let now = self.now;
        let fl = &mut self.flows[f.index()];
        if fl.active {
            fl.interval_active = fl.interval_active + now.since(fl.active_since);
        }
        fl.active = false;
        fl.tick_at = None;
        fl.close_round(None);
        if !fl.app.is_active_source() {
            if let Transport::Tcp { sender, .. } = &mut fl.transport {
                sender.stop_app();
            }
        }
    }

    /// An active source's tick: write one packet's worth, schedule the next tick.
    /// Writes happen in [start, end of run): no tick is scheduled at or after the end.
    fn app_tick(&mut self, f: FlowId) {
        let (now, end) = (self.now, self.end);
        let (mut net, flows) = self.split();
        let fl = &mut flows[f.index()];
        if fl.tick_at != Some(now) {
            return; // stale: the source stopped (and maybe restarted) since
        }
        let (bytes, next) = fl.app.tick(now);
        if next < end {
            fl.tick_at = Some(next);
            net.events.schedule(next, Event::AppTick(f));
        } else {
            fl.tick_at = None;
        }
        let src = fl.src;
        match &mut fl.transport {
            Transport::Udp { sender, .. } => sender.send(now, bytes, &mut |p| net.send(src, p)),
            Transport::Tcp { sender, .. } => {
                sender.app_write(now, bytes as u64, &mut |p| net.send(src, p));
            }
        }
        self.sync_timer(f);
    }

    /// Keep the active count of `f`'s schedule (if any) and log its changes.
    fn count_active(&mut self, f: FlowId, up: bool) {
        let now = self.now;
        let fl = &self.flows[f.index()];
        let Some(s) = fl.schedule else { return };
        if fl.active == up {
            return;
        }
        let s = &mut self.schedules[s as usize];
        s.active = if up { s.active + 1 } else { s.active - 1 };
        match s.log.last_mut() {
            Some(last) if last.0 == now => last.1 = s.active,
            _ => s.log.push((now, s.active)),
        }
    }

    #[inline(never)]
    fn close_interval(&mut self) {
        self.global_events += 1;
        let now = self.now;
        self.push_interval_rows(self.last_interval, now);
        self.last_interval = now;
        let next = now + self.metrics.interval;
        if next <= self.end {
            self.events.schedule(next, Event::Interval);
        }
    }

    fn push_interval_rows(&mut self, t0: SimTime, t1: SimTime) {
        let dt = t1.since(t0).as_secs_f64();
        if dt <= 0.0 {
            return;
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            if f.quiet {
                f.counters.interval_goodput = 0;
                f.counters.interval_wire = 0;
                f.interval_active = SimDuration::ZERO;
                if f.active {
                    f.active_since = t1;
                }
                continue;
            }
            let rate: Rate = self.links[f.eff_link.index()].rate;
            let thr = f.counters.interval_wire as f64 * 8.0 / dt;
            let mut on = f.interval_active;
            if f.active {
                on = on + t1.since(f.active_since.max(t0));
                f.active_since = t1;
            }
            f.interval_active = SimDuration::ZERO;
            self.intervals.push(IntervalRow {
                flow: FlowId::from_index(i),
                t_start: t0.as_secs_f64(),
                t_end: t1.as_secs_f64(),
                goodput_bps: f.counters.interval_goodput as f64 * 8.0 / dt,
                throughput_bps: thr,
                efficiency: thr / rate.bps() as f64,
                cwnd_bytes: f.window(),
                srtt_s: f
                    .tcp()
                    .and_then(|(s, _)| s.rtt.srtt())
                    .map_or(f64::NAN, |d| d.as_secs_f64()),
                active: on.as_secs_f64() / dt,
            });
            f.counters.interval_goodput = 0;
            f.counters.interval_wire = 0;
        }
    }

    #[inline(never)]
    fn trace_sample(&mut self) {
        self.global_events += 1;
        let t = self.now.as_secs_f64();
        let tr = &mut self.cwnd_trace;
        for (i, f) in self.flows.iter().enumerate() {
            let Some((sender, _)) = f.tcp() else { continue };
            if f.quiet {
                continue;
            }
            tr.base.push(CwndTraceRow {
                flow: FlowId::from_index(i),
                t,
                cwnd_bytes: sender.window(),
                ssthresh_bytes: sender.cc.ssthresh().min(u64::MAX >> 1),
                in_flight_bytes: sender.snd_max() - sender.snd_una(),
                pacing_rate_bps: sender.pacing_rate().map_or(f64::NAN, |r| r as f64 * 8.0),
            });
            // Trace hook: NaN in every cc_ column, then this flow's own values.
            if !tr.cc_names.is_empty() {
                let cols = &self.cc_trace_cols[i];
                self.cc_scratch.clear();
                self.cc_scratch.resize(cols.len(), f64::NAN);
                sender.cc.trace_values(&mut self.cc_scratch);
                for c in &mut tr.cc_values {
                    c.push(f64::NAN);
                }
                for (&k, &v) in cols.iter().zip(&self.cc_scratch) {
                    *tr.cc_values[k].last_mut().unwrap() = v;
                }
            }
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            l.settle(self.now);
            let (packets, bytes) = l.occupancy();
            self.queue_trace.push(QueueTraceRow {
                link: LinkId::from_index(i),
                t,
                packets,
                bytes,
            });
        }
        if let Some(period) = self.metrics.trace {
            let next = self.now + period;
            if next <= self.end {
                self.events.schedule(next, Event::Trace);
            }
        }
    }

    fn finish(&mut self) {
        self.finished = true;
        self.now = self.end;
        if self.last_interval < self.end {
            self.push_interval_rows(self.last_interval, self.end);
            self.last_interval = self.end;
        }
        for l in &mut self.links {
            if let Some(c) = &mut l.capture {
                c.finish();
            }
        }
        // A partition of a parallel run leaves its links' logs to the merge.
        if self.part.is_none() {
            self.packet_events = merge_packet_events(
                self.links
                    .iter_mut()
                    .filter_map(|l| l.drops.events.as_deref_mut()),
            );
            self.gather_probes();
            self.gather_fct();
        }
    }

    /// The FCT table from the flows' rounds, flows in order: the same for any thread
    /// count, since a flow's sender (which keeps its rounds) lives in one partition.
    pub(crate) fn gather_fct(&mut self) {
        use crate::stats::columns::FctRow;
        self.fct = Default::default();
        for (i, f) in self.flows.iter().enumerate() {
            let Some(st) = &f.fct else { continue };
            for (k, r) in st.rounds.iter().enumerate() {
                let ideal = st.ideal(r.bytes).as_secs_f64();
                let (end, fct) = match r.end {
                    Some(e) => (e.as_secs_f64(), e.since(r.start).as_secs_f64()),
                    None => (f64::NAN, f64::NAN),
                };
                // A round still open at the end counts what it did until then.
                let (rx, to) = if f.round_open && k + 1 == st.rounds.len() {
                    match f.tcp() {
                        Some((s, _)) => (s.stats.retransmits, s.stats.timeouts),
                        None => (r.retx.1, r.timeouts.1),
                    }
                } else {
                    (r.retx.1, r.timeouts.1)
                };
                self.fct.push(FctRow {
                    flow: FlowId::from_index(i),
                    workload: st.label,
                    from: f.src,
                    to: f.dst,
                    bytes: r.bytes,
                    start_s: r.start.as_secs_f64(),
                    end_s: end,
                    fct_s: fct,
                    ideal_fct_s: ideal,
                    slowdown: fct / ideal,
                    retransmits: rx - r.retx.0,
                    timeouts: to - r.timeouts.0,
                    completed: r.end.is_some() as u32,
                });
            }
        }
    }

    /// The probe table from the echoing flows' senders, flows in order (each one's rows in
    /// time order): the same for any thread count, since a flow's sender lives in one
    /// partition.
    pub(crate) fn gather_probes(&mut self) {
        for f in &mut self.flows {
            if let Transport::Udp { sender, .. } = &mut f.transport {
                self.probes.append(&mut sender.probes);
            }
        }
    }

    /// Every result table with its columns, for the front ends (names from the registry
    /// in [`crate::stats::columns`], plus the cwnd trace's `cc_` columns). Flow and link
    /// columns hold ids: resolve them with [`Sim::flows`] and [`Sim::links`].
    pub fn tables(&self) -> [(&'static str, Vec<Column<'_>>); 7] {
        use crate::stats::columns::{CwndTraceColumns, FctColumns, ProbeColumns};
        [
            (IntervalColumns::TABLE, self.intervals.columns()),
            (CwndTraceColumns::TABLE, self.cwnd_trace.columns()),
            (QueueTraceColumns::TABLE, self.queue_trace.columns()),
            (CwndEventColumns::TABLE, self.cwnd_events.columns()),
            (PacketEventColumns::TABLE, self.packet_events.columns()),
            (ProbeColumns::TABLE, self.probes.columns()),
            (FctColumns::TABLE, self.fct.columns()),
        ]
    }
}

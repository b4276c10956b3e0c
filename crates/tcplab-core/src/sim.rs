//! The simulation: owns every component in arenas addressed by typed ids, and runs the
//! event loop. Events are dispatched with one `match`; components never hold references to
//! each other.

use crate::app::App;
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

/// One TCP connection with its application.
pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub app: App,
    pub counters: FlowCounters,
    /// Link whose rate is the efficiency denominator.
    pub eff_link: LinkId,
    pub completed_at: Option<SimTime>,
    /// First time the send window reached the receiver window (the maximum window).
    pub max_window_at: Option<SimTime>,
    /// Retransmissions and timeouts counted before the steady-state window began.
    pub retransmits_before_steady: u64,
    pub timeouts_before_steady: u64,
    /// Time of the earliest live `FlowTimer` event, if one is pending.
    timer_event: Option<SimTime>,
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        src: NodeId,
        dst: NodeId,
        sender: TcpSender,
        receiver: TcpReceiver,
        app: App,
        eff_link: LinkId,
    ) -> Self {
        Flow {
            name,
            src,
            dst,
            sender,
            receiver,
            app,
            counters: FlowCounters::default(),
            eff_link,
            completed_at: None,
            max_window_at: None,
            retransmits_before_steady: 0,
            timeouts_before_steady: 0,
            timer_event: None,
        }
    }
    fn next_deadline(&self) -> Option<SimTime> {
        match (self.sender.rto_deadline, self.receiver.delack_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
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
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    pub metrics: MetricsConfig,
    pub intervals: IntervalColumns,
    pub cwnd_trace: CwndTrace,
    pub queue_trace: QueueTraceColumns,
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
    /// Flows owed backpressure credit for a segment their own host queue dropped.
    refunds: Vec<FlowId>,
    last_interval: SimTime,
    started: bool,
    finished: bool,
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
    /// A data segment that its own host's backpressured queue drops still frees its place
    /// in that queue: its flow is pushed on `refunds` so the sender gets the credit back.
    /// (The end-host disciplines only ever drop the arriving packet.)
    #[inline]
    fn send(&mut self, node: NodeId, pkt: Packet) {
        let now = self.now;
        match self.nodes[node as usize].routes[pkt.dst as usize] {
            Some(l) => {
                let link = &mut self.links[l as usize];
                if link.backpressure.is_some() && pkt.is_data() && pkt.src == node {
                    let before = link.drops.data_packets;
                    link.offer(l, now, pkt, self.events);
                    if link.drops.data_packets != before {
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
            l.enable_events(i as LinkId, metrics.events);
        }
        let cwnd_events_on = metrics.events.contains(EventKind::Cwnd);
        Sim {
            now: SimTime::ZERO,
            end,
            events: EventQueue::new(),
            nodes,
            links,
            flows,
            metrics,
            intervals: IntervalColumns::default(),
            cwnd_trace: CwndTrace::default(),
            queue_trace: QueueTraceColumns::default(),
            cwnd_events: CwndEventColumns::default(),
            packet_events: PacketEventColumns::default(),
            events_processed: 0,
            cwnd_events_on,
            last_cc: Vec::new(),
            cc_trace_cols: Vec::new(),
            cc_scratch: Vec::new(),
            refunds: Vec::new(),
            last_interval: SimTime::ZERO,
            started: false,
            finished: false,
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

    fn start(&mut self) {
        self.started = true;
        for (i, f) in self.flows.iter().enumerate() {
            self.events
                .schedule(f.app.start(), Event::AppStart(i as FlowId));
            if let Some(stop) = f.app.stop() {
                self.events.schedule(stop, Event::AppStop(i as FlowId));
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
        if self.cwnd_events_on {
            self.last_cc = vec![(u64::MAX, u64::MAX); self.flows.len()];
            for f in 0..self.flows.len() {
                self.note_cwnd(f as FlowId);
            }
        }
    }

    /// The cwnd trace's `cc_` columns: every name the flows' algorithms export, in
    /// first-seen order, and per flow where each of its values goes.
    fn setup_cc_trace(&mut self) {
        let tr = &mut self.cwnd_trace;
        for f in &self.flows {
            let cols = f
                .sender
                .cc
                .trace_names()
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
    fn note_cwnd(&mut self, f: FlowId) {
        let fl = &self.flows[f as usize];
        let cur = (
            fl.sender.window(),
            fl.sender.cc.ssthresh().min(u64::MAX >> 1),
        );
        let last = &mut self.last_cc[f as usize];
        if *last != cur {
            *last = cur;
            self.cwnd_events.push(CwndEventRow {
                t: self.now.as_secs_f64(),
                flow: f,
                cwnd_bytes: cur.0,
                ssthresh_bytes: cur.1,
                state: match fl.sender.state() {
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

    /// Process every event up to and including `t` (capped at the end of the run).
    pub fn run_until(&mut self, t: SimTime) {
        if !self.started {
            self.start();
        }
        let limit = t.min(self.end);
        while let Some(at) = self.events.peek_time() {
            if at > limit {
                break;
            }
            let (at, ev) = self.events.pop().unwrap();
            self.now = at;
            self.events_processed += 1;
            self.dispatch(ev);
            while let Some(f) = self.refunds.pop() {
                self.ipq_departed(f);
            }
        }
        self.now = self.now.max(limit);
        for l in &mut self.links {
            l.settle(self.now);
        }
        if limit >= self.end && !self.finished {
            self.finish();
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::LinkTxDone(l) => {
                let link = &mut self.links[l as usize];
                if link.backpressure.is_none() {
                    link.tx_done(l, now, &mut self.events);
                } else {
                    // Backpressure: the sender refills the queue before the link picks
                    // its next packet, so the new segment competes at the tail at once.
                    let p = link.finish_tx(l, now, &mut self.events);
                    if p.is_data() && p.src == link.from {
                        self.ipq_departed(p.flow);
                    }
                    self.links[l as usize].start_next(l, now, &mut self.events);
                }
            }
            Event::LinkArrival(l) => {
                let link = &mut self.links[l as usize];
                let to = link.to;
                let p = link.arrive(l, &mut self.events);
                self.receive(to, p);
            }
            Event::FlowTimer(f) => self.flow_timer(f),
            Event::AppStart(f) => {
                let (mut net, flows) = self.split();
                let fl = &mut flows[f as usize];
                let src = fl.src;
                let offered = fl.app.offered();
                fl.sender
                    .set_app_limit(now, offered, &mut |p| net.send(src, p));
                self.sync_timer(f);
            }
            Event::AppStop(f) => self.flows[f as usize].sender.stop_app(),
            // Scheduled by the platform parts that arrive next (queue timers, active
            // sources, error-model state changes).
            Event::QueueWake(_) | Event::AppTick(_) | Event::LinkState(_) => {
                unreachable!("nothing schedules {ev:?} yet")
            }
            Event::Interval => self.close_interval(),
            Event::Trace => self.trace_sample(),
            Event::SteadyStart => {
                for f in &mut self.flows {
                    f.counters.steady_goodput0 = f.counters.goodput_bytes;
                    f.counters.steady_wire0 = f.counters.wire_bytes;
                    f.retransmits_before_steady = f.sender.stats.retransmits;
                    f.timeouts_before_steady = f.sender.stats.timeouts;
                }
                for l in &mut self.links {
                    l.settle(now);
                    l.reset_steady_max();
                }
            }
        }
    }

    /// A packet reached `node`.
    #[inline]
    fn receive(&mut self, node: NodeId, p: Packet) {
        let now = self.now;
        if p.dst != node {
            self.split().0.send(node, p);
            return;
        }
        let f = p.flow;
        let (mut net, flows) = self.split();
        let fl = &mut flows[f as usize];
        match p.kind {
            PacketKind::Data => {
                let o = fl.receiver.on_data(now, &p, &mut |a| net.send(node, a));
                fl.counters.add(o.delivered, o.unique_wire);
            }
            PacketKind::Ack => {
                fl.sender.on_ack(now, &p, &mut |d| net.send(node, d));
                if fl.completed_at.is_none() && fl.sender.is_complete() {
                    fl.completed_at = Some(now);
                }
                if fl.max_window_at.is_none() && fl.sender.window() >= fl.sender.max_window() {
                    fl.max_window_at = Some(now);
                }
            }
        }
        self.sync_timer(f);
    }

    /// One of `f`'s data segments left its host's backpressured queue.
    fn ipq_departed(&mut self, f: FlowId) {
        let now = self.now;
        let (mut net, flows) = self.split();
        let fl = &mut flows[f as usize];
        let src = fl.src;
        fl.sender.ipq_departed(now, &mut |d| net.send(src, d));
        if fl.max_window_at.is_none() && fl.sender.window() >= fl.sender.max_window() {
            fl.max_window_at = Some(now);
        }
        self.sync_timer(f);
    }

    /// Make sure a `FlowTimer` event is pending at or before the flow's earliest deadline.
    /// Re-arming a later deadline costs nothing: the pending event reschedules itself.
    /// Called after everything that touches a flow, so it is also where cwnd events are
    /// noted.
    #[inline]
    fn sync_timer(&mut self, f: FlowId) {
        if self.cwnd_events_on {
            self.note_cwnd(f);
        }
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.next_deadline() {
            if fl.timer_event.is_none_or(|t| d < t) {
                fl.timer_event = Some(d);
                self.events.schedule(d, Event::FlowTimer(f));
            }
        }
    }

    fn flow_timer(&mut self, f: FlowId) {
        let now = self.now;
        {
            let fl = &mut self.flows[f as usize];
            if fl.timer_event != Some(now) {
                return; // superseded by an earlier event
            }
            fl.timer_event = None;
        }
        let (mut net, flows) = self.split();
        let fl = &mut flows[f as usize];
        if fl.receiver.delack_deadline.is_some_and(|d| d <= now) {
            let node = fl.dst;
            fl.receiver.on_delack_timer(now, &mut |a| net.send(node, a));
        }
        if fl.sender.rto_deadline.is_some_and(|d| d <= now) {
            let node = fl.src;
            fl.sender.on_timeout(now, &mut |d| net.send(node, d));
        }
        self.sync_timer(f);
    }

    fn close_interval(&mut self) {
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
            let rate: Rate = self.links[f.eff_link as usize].rate;
            let thr = f.counters.interval_wire as f64 * 8.0 / dt;
            self.intervals.push(IntervalRow {
                flow: i as FlowId,
                t_start: t0.as_secs_f64(),
                t_end: t1.as_secs_f64(),
                goodput_bps: f.counters.interval_goodput as f64 * 8.0 / dt,
                throughput_bps: thr,
                efficiency: thr / rate.bps() as f64,
                cwnd_bytes: f.sender.window(),
                srtt_s: f.sender.rtt.srtt().map_or(f64::NAN, |d| d.as_secs_f64()),
            });
            f.counters.interval_goodput = 0;
            f.counters.interval_wire = 0;
        }
    }

    fn trace_sample(&mut self) {
        let t = self.now.as_secs_f64();
        let tr = &mut self.cwnd_trace;
        for (i, f) in self.flows.iter().enumerate() {
            tr.base.push(CwndTraceRow {
                flow: i as FlowId,
                t,
                cwnd_bytes: f.sender.window(),
                ssthresh_bytes: f.sender.cc.ssthresh().min(u64::MAX >> 1),
                in_flight_bytes: f.sender.snd_max() - f.sender.snd_una(),
            });
            // Trace hook: NaN in every cc_ column, then this flow's own values.
            if !tr.cc_names.is_empty() {
                let cols = &self.cc_trace_cols[i];
                self.cc_scratch.clear();
                self.cc_scratch.resize(cols.len(), f64::NAN);
                f.sender.cc.trace_values(&mut self.cc_scratch);
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
                link: i as LinkId,
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
        self.packet_events = merge_packet_events(
            self.links
                .iter_mut()
                .filter_map(|l| l.drops.events.as_deref_mut()),
        );
    }

    /// Every result table with its columns, for the front ends (names from the registry
    /// in [`crate::stats::columns`], plus the cwnd trace's `cc_` columns). Flow and link
    /// columns hold ids: resolve them with [`Sim::flows`] and [`Sim::links`].
    pub fn tables(&self) -> [(&'static str, Vec<Column<'_>>); 5] {
        use crate::stats::columns::CwndTraceColumns;
        [
            (IntervalColumns::TABLE, self.intervals.columns()),
            (CwndTraceColumns::TABLE, self.cwnd_trace.columns()),
            (QueueTraceColumns::TABLE, self.queue_trace.columns()),
            (CwndEventColumns::TABLE, self.cwnd_events.columns()),
            (PacketEventColumns::TABLE, self.packet_events.columns()),
        ]
    }

    /// Packets held anywhere in the network for flow-agnostic conservation checks.
    pub fn packets_in_network(&self) -> u64 {
        self.links.iter().map(|l| l.in_system()).sum()
    }
}

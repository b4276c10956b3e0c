//! The simulation: owns every component in arenas addressed by typed ids, and runs the
//! event loop. Events are dispatched with one `match`; components never hold references to
//! each other.

use crate::app::App;
use crate::cc::CongestionControl;
use crate::event::{Event, EventQueue, FlowId, LinkId, NodeId};
use crate::net::{Link, Node, Packet, PacketKind};
use crate::stats::{FlowCounters, IntervalColumns, TraceColumns};
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
    pub traces: TraceColumns,
    pub events_processed: u64,
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
        for l in &mut links {
            l.prepare(end);
        }
        Sim {
            now: SimTime::ZERO,
            end,
            events: EventQueue::new(),
            nodes,
            links,
            flows,
            metrics,
            intervals: IntervalColumns::default(),
            traces: TraceColumns::default(),
            events_processed: 0,
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
            self.events.schedule(SimTime::ZERO, Event::Trace);
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            l.start_states(i as LinkId, &mut self.events);
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
            Event::LinkState(l) => self.links[l as usize].state_change(l, now, &mut self.events),
            // Scheduled by the platform parts that arrive next (queue timers, active
            // sources).
            Event::QueueWake(_) | Event::AppTick(_) => {
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
    #[inline]
    fn sync_timer(&mut self, f: FlowId) {
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
        for f in &mut self.flows {
            let rate: Rate = self.links[f.eff_link as usize].rate;
            let thr = f.counters.interval_wire as f64 * 8.0 / dt;
            let c = &mut self.intervals;
            c.flow.push(f.name.clone());
            c.t_start.push(t0.as_secs_f64());
            c.t_end.push(t1.as_secs_f64());
            c.goodput_bps
                .push(f.counters.interval_goodput as f64 * 8.0 / dt);
            c.throughput_bps.push(thr);
            c.efficiency.push(thr / rate.bps() as f64);
            c.cwnd_bytes.push(f.sender.window());
            c.srtt_s
                .push(f.sender.rtt.srtt().map_or(f64::NAN, |d| d.as_secs_f64()));
            f.counters.interval_goodput = 0;
            f.counters.interval_wire = 0;
        }
    }

    fn trace_sample(&mut self) {
        let t = self.now.as_secs_f64();
        let tr = &mut self.traces;
        for f in &self.flows {
            tr.cwnd_flow.push(f.name.clone());
            tr.cwnd_t.push(t);
            tr.cwnd_bytes.push(f.sender.window());
            tr.ssthresh_bytes
                .push(f.sender.cc.ssthresh().min(u64::MAX >> 1));
            tr.in_flight_bytes
                .push(f.sender.snd_max() - f.sender.snd_una());
        }
        for l in &mut self.links {
            l.settle(self.now);
            let (p, b) = l.occupancy();
            tr.queue_link.push(l.name.clone());
            tr.queue_t.push(t);
            tr.queue_packets.push(p);
            tr.queue_bytes.push(b);
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
    }

    /// Packets held anywhere in the network for flow-agnostic conservation checks.
    pub fn packets_in_network(&self) -> u64 {
        self.links.iter().map(|l| l.in_system()).sum()
    }
}

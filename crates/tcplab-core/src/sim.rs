//! The simulation: owns every component in arenas addressed by typed ids, and runs the
//! event loop. Events are dispatched with one `match`; components never hold references to
//! each other.

use crate::app::{App, Begin};
use crate::cc::CongestionControl;
use crate::event::{Event, EventQueue, FlowId, LinkId, NodeId};
use crate::net::{Link, Node, Packet, PacketKind};
use crate::stats::{FlowCounters, IntervalColumns, TraceColumns};
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
        transport: Transport,
        app: App,
        eff_link: LinkId,
    ) -> Self {
        Flow {
            name,
            src,
            dst,
            transport,
            app,
            active: false,
            schedule: None,
            tick_at: None,
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
        match &self.transport {
            Transport::Tcp { sender, receiver } => {
                match (sender.rto_deadline, receiver.delack_deadline) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            }
            Transport::Udp { .. } => None,
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
}

pub struct Sim {
    pub now: SimTime,
    pub end: SimTime,
    pub events: EventQueue,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub flows: Vec<Flow>,
    pub schedules: Vec<ScheduleRun>,
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
            schedules: Vec::new(),
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
            if f.schedule.is_some() {
                continue;
            }
            self.events
                .schedule(f.app.start(), Event::AppStart(i as FlowId));
            if let Some(stop) = f.app.stop() {
                self.events.schedule(stop, Event::AppStop(i as FlowId));
            }
        }
        // Schedules: the flows joining or leaving at each step.
        for s in &self.schedules {
            let mut n = 0usize;
            for &(t, m) in &s.steps {
                let m = m as usize;
                for &f in &s.flows[n.min(m)..n.max(m)] {
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
            Event::AppStart(f) => self.app_start(f),
            Event::AppStop(f) => self.app_stop(f),
            Event::AppTick(f) => self.app_tick(f),
            Event::QueueWake(l) => self.links[l as usize].wake(l, now, &mut self.events),
            Event::LinkState(l) => self.links[l as usize].state_change(l, now, &mut self.events),
            Event::Interval => self.close_interval(),
            Event::Trace => self.trace_sample(),
            Event::SteadyStart => {
                for f in &mut self.flows {
                    f.counters.steady_goodput0 = f.counters.goodput_bytes;
                    f.counters.steady_wire0 = f.counters.wire_bytes;
                    if let Transport::Tcp { sender, .. } = &f.transport {
                        f.retransmits_before_steady = sender.stats.retransmits;
                        f.timeouts_before_steady = sender.stats.timeouts;
                    }
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
        match (&mut fl.transport, p.kind) {
            (Transport::Tcp { receiver, .. }, PacketKind::Data) => {
                let o = receiver.on_data(now, &p, &mut |a| net.send(node, a));
                fl.counters.add(o.delivered, o.unique_wire);
            }
            (Transport::Tcp { sender, .. }, PacketKind::Ack) => {
                sender.on_ack(now, &p, &mut |d| net.send(node, d));
                if fl.completed_at.is_none() && sender.is_complete() {
                    fl.completed_at = Some(now);
                }
                if fl.max_window_at.is_none() && sender.window() >= sender.max_window() {
                    fl.max_window_at = Some(now);
                }
            }
            (Transport::Udp { receiver, .. }, _) => {
                let n = receiver.on_datagram(&p);
                fl.counters.add(n, p.size as u64);
                return;
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
        let Transport::Tcp { sender, .. } = &mut fl.transport else {
            return; // a datagram: nothing waits for its departure
        };
        sender.ipq_departed(now, &mut |d| net.send(src, d));
        if fl.max_window_at.is_none() && sender.window() >= sender.max_window() {
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
        let (src, dst) = (fl.src, fl.dst);
        if let Transport::Tcp { sender, receiver } = &mut fl.transport {
            if receiver.delack_deadline.is_some_and(|d| d <= now) {
                receiver.on_delack_timer(now, &mut |a| net.send(dst, a));
            }
            if sender.rto_deadline.is_some_and(|d| d <= now) {
                sender.on_timeout(now, &mut |d| net.send(src, d));
            }
        }
        self.sync_timer(f);
    }

    /// The application of `f` starts (or its schedule makes it join again).
    fn app_start(&mut self, f: FlowId) {
        let (now, end) = (self.now, self.end);
        self.count_active(f, true);
        let (mut net, flows) = self.split();
        let fl = &mut flows[f as usize];
        fl.active = true;
        let src = fl.src;
        match fl.app.begin(now) {
            Begin::Offer(bytes) => {
                if let Transport::Tcp { sender, .. } = &mut fl.transport {
                    let limit = sender.app_limit().saturating_add(bytes);
                    sender.set_app_limit(now, limit, &mut |p| net.send(src, p));
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
    fn app_stop(&mut self, f: FlowId) {
        self.count_active(f, false);
        let fl = &mut self.flows[f as usize];
        fl.active = false;
        fl.tick_at = None;
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
        let fl = &mut flows[f as usize];
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
                let limit = sender.app_limit().saturating_add(bytes as u64);
                sender.set_app_limit(now, limit, &mut |p| net.send(src, p));
            }
        }
        self.sync_timer(f);
    }

    /// Keep the active count of `f`'s schedule (if any) and log its changes.
    fn count_active(&mut self, f: FlowId, up: bool) {
        let now = self.now;
        let fl = &self.flows[f as usize];
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
            c.cwnd_bytes.push(f.window());
            c.srtt_s.push(
                f.tcp()
                    .and_then(|(s, _)| s.rtt.srtt())
                    .map_or(f64::NAN, |d| d.as_secs_f64()),
            );
            f.counters.interval_goodput = 0;
            f.counters.interval_wire = 0;
        }
    }

    fn trace_sample(&mut self) {
        let t = self.now.as_secs_f64();
        let tr = &mut self.traces;
        for f in &self.flows {
            let Some((sender, _)) = f.tcp() else { continue };
            tr.cwnd_flow.push(f.name.clone());
            tr.cwnd_t.push(t);
            tr.cwnd_bytes.push(sender.window());
            tr.ssthresh_bytes
                .push(sender.cc.ssthresh().min(u64::MAX >> 1));
            tr.in_flight_bytes.push(sender.snd_max() - sender.snd_una());
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

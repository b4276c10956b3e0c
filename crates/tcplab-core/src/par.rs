//! One simulation on several threads, bit-identical to one thread (issue 30; the design
//! is docs/scaling.md).
//!
//! **Conservative, window-synchronous** (Nicol's YAWNS): the nodes are split into
//! partitions, one per thread; every interaction between partitions is a packet on a link
//! direction whose ends lie in two partitions, and it arrives no earlier than the end of its
//! transmission plus the link's propagation delay. With the lookahead `L` = the smallest
//! delay of such a *crossing* link, every partition can process the window `[w, w + L)` on
//! its own: nothing another partition does in that window can reach it before `w + L`. At
//! the window's end the partitions hand over the packets that crossed (barrier), agree on
//! the next window's start (the earliest pending event anywhere: empty stretches are
//! skipped) and go on.
//!
//! **Each partition is a whole [`Sim`]**, built from the same scenario, that runs only what
//! its nodes own: a link direction belongs to the partition of its sending node (queue,
//! transmitter, wire losses, pcap), its far end's arrivals to the partition of its receiving
//! node; a flow's sender half (application, sender, its timers) to the partition of its
//! source host, its receiver half (receiver, delayed-ack timer, goodput counters) to the
//! partition of its destination host. The other components stay untouched in that copy.
//! At the end [`Parallel::into_merged`] takes every component from its owner into one
//! [`Sim`], so summaries, interval tables and traces are built exactly as for a sequential
//! run. A crossing link's sending copy uses its propagation pipe as the outbox (no arrival
//! event there, [`crate::net::Link`]'s `crossing`); at the barrier each receiving partition
//! takes the packets from its mailbox into its own copy's pipe and schedules the arrival.
//!
//! **Determinism**: events are keyed by (time, kind, id) ([`crate::event`]), a key that
//! does not depend on which queue holds the event, and random streams are per component,
//! so each partition processes its events in exactly the order one queue would: results do
//! not depend on the number of threads. Events every partition processes (interval ends,
//! trace samples, the steady-state start) update each partition's own components only, and
//! are counted once in the event total.
//!
//! Not supported with more than one partition (refused by [`check_supported`] with one
//! line): flow schedules (their active-count log spans partitions), `metrics.events` with
//! `"cwnd"` (rows would need the sequential interleaving), and the invariant auditor (it
//! checks conservation across the whole network mid-run).

use crate::event::LinkId;
use crate::net::Packet;
use crate::sim::{Sim, Transport};
use crate::time::{SimDuration, SimTime};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A packet that crossed to another partition: its link, arrival time and contents.
type Crossing = (LinkId, SimTime, Packet);

/// The smallest lookahead a parallel run accepts: below it the windows hold too few events
/// to pay for two barriers each (docs/scaling.md: about 1 µs of simulated time per window
/// already cuts the work per window five-fold on the fat-tree against 5 µs).
pub const MIN_LOOKAHEAD: SimDuration = SimDuration(1_000_000); // 1 µs in ps

/// What a parallel run cannot do yet; `None` if `sim` can be split.
pub fn check_supported(sim: &Sim) -> Option<String> {
    if !sim.schedules.is_empty() {
        return Some("flow schedules ([[schedules]]) run on one thread only".into());
    }
    if sim
        .metrics
        .events
        .contains(crate::stats::events::EventKind::Cwnd)
    {
        return Some("metrics.events with \"cwnd\" runs on one thread only".into());
    }
    if sim.audited() {
        return Some("the invariant auditor runs on one thread only".into());
    }
    None
}

/// The crossing links of a partitioning and its lookahead (the smallest delay among them);
/// `None` when no link crosses (one partition, or partitions that never talk).
pub fn lookahead(sim: &Sim, node_part: &[u16]) -> Option<SimDuration> {
    sim.links
        .iter()
        .filter(|l| node_part[l.from.index()] != node_part[l.to.index()])
        .map(|l| l.delay)
        .min()
}

/// A simulation split into partitions that run on their own threads.
pub struct Parallel {
    parts: Vec<Sim>,
    node_part: Arc<Vec<u16>>,
    lookahead: SimDuration,
    /// Per partition: its crossing links (sending copies) and each one's receiving
    /// partition.
    out_links: Vec<Vec<(LinkId, u16)>>,
    /// Windows run so far (for the statistics in docs/scaling.md).
    pub windows: u64,
    /// Per partition: wall nanoseconds spent processing events, handing packets over, and
    /// waiting at the barriers (`tcplab-bench threads`).
    pub busy_ns: Vec<u64>,
    pub exchange_ns: Vec<u64>,
    pub wait_ns: Vec<u64>,
}

impl Parallel {
    /// Split: `parts[i]` becomes partition `i` (every copy built from the same scenario and
    /// seed, none started), `node_part[n]` is node `n`'s partition. Refuses a lookahead
    /// below [`MIN_LOOKAHEAD`] and what [`check_supported`] refuses, as (field, reason):
    /// the field is `threads`, or the short link's `links.NAME.delay`.
    pub fn new(mut parts: Vec<Sim>, node_part: Vec<u16>) -> Result<Self, (String, String)> {
        let n = parts.len();
        assert!(n >= 1 && n <= u16::MAX as usize);
        if let Some(why) = check_supported(&parts[0]) {
            return Err(("threads".into(), why));
        }
        assert!(node_part.iter().all(|&p| (p as usize) < n));
        let lookahead = match lookahead(&parts[0], &node_part) {
            Some(l) if l < MIN_LOOKAHEAD => {
                let short: Vec<&str> = parts[0]
                    .links
                    .iter()
                    .filter(|k| {
                        node_part[k.from.index()] != node_part[k.to.index()]
                            && k.delay < MIN_LOOKAHEAD
                    })
                    .map(|k| k.name.as_str())
                    .collect();
                let more = match short.len() {
                    1 => String::new(),
                    2 => " (as does 1 more link)".to_string(),
                    n => format!(" (as do {} more links)", n - 1),
                };
                return Err((
                    format!("links.{}.delay", short[0]),
                    format!(
                        "{} µs joins two partitions of a parallel run{more}; it needs at least \
                         {} µs (the lookahead) on every link between partitions (give the link \
                         a delay, or run on one thread)",
                        l.0 as f64 / 1e6,
                        MIN_LOOKAHEAD.0 as f64 / 1e6
                    ),
                ));
            }
            Some(l) => l,
            None => parts[0].end.since(SimTime::ZERO) + SimDuration(1),
        };
        let node_part = Arc::new(node_part);
        let mut out_links = vec![Vec::new(); n];
        for (i, sim) in parts.iter_mut().enumerate() {
            sim.part = Some((i as u16, node_part.clone()));
            for (l, link) in sim.links.iter_mut().enumerate() {
                let (s, d) = (node_part[link.from.index()], node_part[link.to.index()]);
                link.crossing = s != d;
                if s != d && s as usize == i {
                    out_links[i].push((LinkId::from_index(l), d));
                }
            }
        }
        Ok(Parallel {
            parts,
            node_part,
            lookahead,
            out_links,
            windows: 0,
            busy_ns: vec![0; n],
            exchange_ns: vec![0; n],
            wait_ns: vec![0; n],
        })
    }

    /// Events each partition processed so far.
    pub fn events_per_partition(&self) -> Vec<u64> {
        self.parts.iter().map(|p| p.events_processed).collect()
    }

    pub fn threads(&self) -> usize {
        self.parts.len()
    }

    pub fn lookahead(&self) -> SimDuration {
        self.lookahead
    }

    /// Simulated time reached.
    pub fn now(&self) -> SimTime {
        self.parts[0].now
    }

    pub fn end(&self) -> SimTime {
        self.parts[0].end
    }

    pub fn is_finished(&self) -> bool {
        self.parts[0].is_finished()
    }

    /// Process every event up to and including `t` (capped at the end), as
    /// [`Sim::run_until`] does.
    pub fn run_until(&mut self, t: SimTime) {
        let limit = t.min(self.end());
        let n = self.parts.len();
        let mail: Vec<Vec<Mutex<Vec<Crossing>>>> = (0..n)
            .map(|_| (0..n).map(|_| Mutex::new(Vec::new())).collect())
            .collect();
        // The next window's start, agreed through two slots used alternately.
        let next = [AtomicU64::new(u64::MAX), AtomicU64::new(u64::MAX)];
        let barrier = SpinBarrier::new(n);
        let windows = AtomicU64::new(0);
        let la = self.lookahead;
        // The first window starts at the earliest pending event.
        let start = self
            .parts
            .iter_mut()
            .filter_map(|p| p.next_event_time())
            .min();
        let Some(start) = start.filter(|&s| s <= limit) else {
            for p in &mut self.parts {
                p.settle_until(limit);
            }
            return;
        };
        let timing: Vec<Mutex<[u64; 3]>> = (0..n).map(|_| Mutex::new([0; 3])).collect();
        std::thread::scope(|scope| {
            for (me, (sim, outs)) in self.parts.iter_mut().zip(&self.out_links).enumerate() {
                let (mail, next, barrier, windows) = (&mail, &next, &barrier, &windows);
                let timing = &timing[me];
                scope.spawn(move || {
                    let (mut busy, mut exch, mut wait) = (0u64, 0u64, 0u64);
                    let mut clock = std::time::Instant::now();
                    let mut lap = |acc: &mut u64| {
                        let t = std::time::Instant::now();
                        *acc += t.duration_since(clock).as_nanos() as u64;
                        clock = t;
                    };
                    let mut w = start;
                    let mut parity = 0;
                    let mut outbox: Vec<Vec<Crossing>> = vec![Vec::new(); n];
                    loop {
                        let stop = SimTime(w.0.saturating_add(la.0).min(limit.0 + 1));
                        sim.run_before(stop);
                        lap(&mut busy);
                        // Hand over what crossed.
                        for &(l, d) in outs {
                            let pipe = &mut sim.links[l.index()].pipe;
                            while let Some((at, p)) = pipe.pop_front() {
                                outbox[d as usize].push((l, at, p));
                            }
                        }
                        for (d, o) in outbox.iter_mut().enumerate() {
                            if !o.is_empty() {
                                std::mem::swap(&mut *mail[d][me].lock().unwrap(), o);
                            }
                        }
                        lap(&mut exch);
                        barrier.wait();
                        lap(&mut wait);
                        for slot in &mail[me] {
                            let mut v = slot.lock().unwrap();
                            take_crossings(sim, &mut v);
                        }
                        let t = sim.events.peek_time().map_or(u64::MAX, |t| t.0);
                        next[parity].fetch_min(t, Ordering::AcqRel);
                        lap(&mut exch);
                        barrier.wait();
                        lap(&mut wait);
                        let g = next[parity].load(Ordering::Acquire);
                        if me == 0 {
                            next[1 - parity].store(u64::MAX, Ordering::Release);
                            windows.fetch_add(1, Ordering::Relaxed);
                        }
                        parity = 1 - parity;
                        if g > limit.0 {
                            break;
                        }
                        w = SimTime(g);
                    }
                    *timing.lock().unwrap() = [busy, exch, wait];
                });
            }
        });
        self.windows += windows.load(Ordering::Relaxed);
        for (i, t) in timing.iter().enumerate() {
            let [b, e, w] = *t.lock().unwrap();
            self.busy_ns[i] += b;
            self.exchange_ns[i] += e;
            self.wait_ns[i] += w;
        }
        for p in &mut self.parts {
            p.settle_until(limit);
        }
    }

    #[allow(clippy::needless_range_loop)] // one index into every partition's tables
    /// One [`Sim`] holding every component as its owner left it: what a sequential run of
    /// the same scenario would hold at the same time (bit for bit, at the end of the run).
    pub fn into_merged(self) -> Sim {
        let node_part = self.node_part;
        let mut parts = self.parts;
        let np = parts.len();
        // Links: the sending side from the sender's partition; arrivals (the pipe still in
        // flight, the delivered count) from the receiver's.
        let mut links: Vec<Vec<Option<crate::net::Link>>> = parts
            .iter_mut()
            .map(|p| std::mem::take(&mut p.links).into_iter().map(Some).collect())
            .collect();
        let nl = links[0].len();
        let mut merged_links = Vec::with_capacity(nl);
        for l in 0..nl {
            let (from, to) = {
                let x = links[0][l].as_ref().unwrap();
                (x.from, x.to)
            };
            let (s, d) = (
                node_part[from.index()] as usize,
                node_part[to.index()] as usize,
            );
            let mut link = links[s][l].take().unwrap();
            if d != s {
                let far = links[d][l].as_mut().unwrap();
                link.stats.delivered = far.stats.delivered;
                std::mem::swap(&mut link.pipe, &mut far.pipe);
                link.crossing = false;
            }
            merged_links.push(link);
        }
        // Flows: the sender half from the source's partition, the receiver half from the
        // destination's.
        let mut flows: Vec<Vec<Option<crate::sim::Flow>>> = parts
            .iter_mut()
            .map(|p| std::mem::take(&mut p.flows).into_iter().map(Some).collect())
            .collect();
        let nf = flows[0].len();
        let mut merged_flows = Vec::with_capacity(nf);
        for f in 0..nf {
            let (src, dst) = {
                let x = flows[0][f].as_ref().unwrap();
                (x.src, x.dst)
            };
            let (s, d) = (
                node_part[src.index()] as usize,
                node_part[dst.index()] as usize,
            );
            let mut flow = flows[s][f].take().unwrap();
            if d != s {
                let far = flows[d][f].as_mut().unwrap();
                flow.take_receiver_half(far);
            }
            merged_flows.push(flow);
        }
        // Tables: intervals and traces have one row per flow (link) and sample in every
        // partition, in the same order; each column comes from the half that owns it.
        let src_part: Vec<usize> = merged_flows
            .iter()
            .map(|f| node_part[f.src.index()] as usize)
            .collect();
        let dst_part: Vec<usize> = merged_flows
            .iter()
            .map(|f| node_part[f.dst.index()] as usize)
            .collect();
        let link_part: Vec<usize> = merged_links
            .iter()
            .map(|l| node_part[l.from.index()] as usize)
            .collect();
        let mut intervals = parts[0].intervals.clone();
        for r in 0..intervals.len() {
            let f = intervals.flow[r].index();
            let (s, d) = (src_part[f], dst_part[f]);
            let (ps, pd) = (&parts[s].intervals, &parts[d].intervals);
            intervals.cwnd_bytes[r] = ps.cwnd_bytes[r];
            intervals.srtt_s[r] = ps.srtt_s[r];
            intervals.active[r] = ps.active[r];
            intervals.goodput_bps[r] = pd.goodput_bps[r];
            intervals.throughput_bps[r] = pd.throughput_bps[r];
            intervals.efficiency[r] = pd.efficiency[r];
        }
        let mut cwnd_trace = std::mem::take(&mut parts[0].cwnd_trace);
        for r in 0..cwnd_trace.base.len() {
            let s = src_part[cwnd_trace.base.flow[r].index()];
            if s == 0 {
                continue;
            }
            let o = &parts[s].cwnd_trace;
            let b = &mut cwnd_trace.base;
            b.cwnd_bytes[r] = o.base.cwnd_bytes[r];
            b.ssthresh_bytes[r] = o.base.ssthresh_bytes[r];
            b.in_flight_bytes[r] = o.base.in_flight_bytes[r];
            b.pacing_rate_bps[r] = o.base.pacing_rate_bps[r];
            for (c, oc) in cwnd_trace.cc_values.iter_mut().zip(&o.cc_values) {
                c[r] = oc[r];
            }
        }
        let mut queue_trace = std::mem::take(&mut parts[0].queue_trace);
        for r in 0..queue_trace.len() {
            let s = link_part[queue_trace.link[r].index()];
            if s != 0 {
                queue_trace.packets[r] = parts[s].queue_trace.packets[r];
                queue_trace.bytes[r] = parts[s].queue_trace.bytes[r];
            }
        }
        // Node agents from their node's partition.
        let mut agents: Vec<_> = std::mem::take(&mut parts[0].agents)
            .into_iter()
            .map(Some)
            .collect();
        let node_agents: Vec<(usize, Option<u32>)> = parts[0]
            .nodes
            .iter()
            .enumerate()
            .map(|(n, node)| (n, node.agent))
            .collect();
        for (n, agent) in node_agents {
            if let Some(a) = agent {
                let p = node_part[n] as usize;
                if p != 0 {
                    agents[a as usize] = Some(std::mem::replace(
                        &mut parts[p].agents[a as usize],
                        agents[a as usize].take().unwrap(),
                    ));
                }
            }
        }
        let events: u64 = parts.iter().map(|p| p.events_processed).sum::<u64>()
            - (np as u64 - 1) * parts[0].global_events;
        // The steady-state start's data counts: sent from the source's partition, delivered
        // from the destination's, held summed over every partition's links.
        let steady_data0: Vec<[u64; 3]> = if parts[0].steady_data0.is_empty() {
            Vec::new()
        } else {
            (0..nf)
                .map(|f| {
                    let (s, d) = (src_part[f], dst_part[f]);
                    let held = parts.iter().map(|p| p.steady_data0[f][2]).sum();
                    [
                        parts[s].steady_data0[f][0],
                        parts[d].steady_data0[f][1],
                        held,
                    ]
                })
                .collect()
        };
        let mut base = parts.swap_remove(0);
        base.steady_data0 = steady_data0;
        base.links = merged_links;
        base.flows = merged_flows;
        base.agents = agents.into_iter().map(Option::unwrap).collect();
        base.intervals = intervals;
        base.cwnd_trace = cwnd_trace;
        base.queue_trace = queue_trace;
        base.gather_probes();
        base.gather_fct();
        base.events_processed = events;
        base.part = None;
        base.packet_events = crate::stats::events::merge_packet_events(
            base.links
                .iter_mut()
                .filter_map(|l| l.drops.events.as_deref_mut()),
        );
        base
    }
}

/// A partition's mailbox slot: the packets into this partition's copies of their links.
fn take_crossings(sim: &mut Sim, v: &mut Vec<Crossing>) {
    let mut i = 0;
    while i < v.len() {
        let l = v[i].0;
        let mut j = i;
        while j < v.len() && v[j].0 == l {
            j += 1;
        }
        let (links, events) = (&mut sim.links, &mut sim.events);
        links[l.index()].receive_crossing(l, v[i..j].iter().map(|&(_, at, p)| (at, p)), events);
        i = j;
    }
    v.clear();
}

/// A barrier for threads that each have a core: spin briefly, then yield (so that more
/// threads than idle cores still make progress).
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == gen {
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

impl crate::sim::Flow {
    /// Parallel runs: take the receiver half (receiver, its timer, the goodput counters, the
    /// one-way delays and what the receiver held at the steady-state start) from `far`, the destination
    /// partition's copy of this flow.
    fn take_receiver_half(&mut self, far: &mut crate::sim::Flow) {
        match (&mut self.transport, &mut far.transport) {
            (Transport::Tcp { receiver, .. }, Transport::Tcp { receiver: r, .. }) => {
                std::mem::swap(receiver, r)
            }
            (Transport::Udp { receiver, .. }, Transport::Udp { receiver: r, .. }) => {
                std::mem::swap(receiver, r)
            }
            _ => unreachable!("copies of one flow have one transport"),
        }
        self.counters = far.counters;
        std::mem::swap(&mut self.delay, &mut far.delay);
        std::mem::swap(&mut self.steady_held, &mut far.steady_held);
        self.take_rx_timer(far);
    }
}

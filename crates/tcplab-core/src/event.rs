//! The event queue: a binary min-heap keyed by (time, event).
//!
//! Events with equal times run in an order that depends only on the events themselves and
//! the instant, never on when or by whom they were scheduled: first the statistics
//! boundaries (steady-state start, interval ends, trace samples), then outages and
//! application starts/stops, each in the order of [`Kind`] and then by id; then every
//! packet event and timer (arrivals, transmission ends, queue wakes, flow, pacing,
//! application and node timers) in a **pseudo-random order drawn afresh at every instant**
//! from a hash of (time, event). So a run split over partitions (each with its own queue,
//! `crate::par`) processes simultaneous events in the same order as one queue does,
//! whatever the number of threads, and no link, flow or kind of event wins every tie: a
//! fixed order (by kind, then id) was tried first and biased seed 003's dumbbell, whose
//! access links deliver at the very instant the bottleneck frees a slot (arrivals before
//! departures meant a queue one packet shorter at each tie, and the lowest link id won every
//! simultaneous arrival: 12 of its 68 claim verdicts changed; docs/reproductions.md). Two
//! entries with equal keys are the same event at the same time (a timer armed twice): either
//! may pop first with the same result, so no scheduling sequence number is needed. Until
//! 2026-11-27 ties ran in scheduling order (FIFO, a global sequence number, as ns-2's
//! scheduler does); that order cannot be reproduced by partitions that schedule
//! independently (issue 30).
//! Events are a small `Copy` enum dispatched with a
//! `match` in [`crate::sim::Sim::run`]; there is no boxing and no dynamic dispatch.
//! Timers are cancelled lazily: the owner keeps its deadline and ignores stale firings.
//!
//! Layout: each entry orders by the 128-bit key `time << 64 | class << 62 | scramble << 26 |
//! kind << 21 | id` (`scramble`: 36 bits of the hash, zero for the first two classes), so
//! ordering is one integer comparison, and equal keys are interchangeable, so the pop order
//! does not
//! depend on the heap's shape: any correct priority queue gives the same run. Entries are 16
//! bytes (time, then the encoded event), so a node's two
//! children share a cache line. The heap is binary: a 4-ary one is half as deep but compares
//! three times per level, and with the few tens of entries a dumbbell keeps pending (one per
//! busy link direction) the binary heap executes fewer instructions (bench b 5 s: 478.6 M
//! → 471.1 M; docs/performance.md, "Speed II"). Removal moves
//! the hole down to a leaf choosing the least child, then sifts an entry up (Floyd's trick,
//! as `std`'s `BinaryHeap::pop` does), and a popped root is refilled by the next `schedule`
//! when there is one. Flow timers wait in a second heap with only the earliest one
//! represented in the main heap (see [`EventQueue`]). See docs/performance.md.

use crate::time::SimTime;

pub use crate::ids::{FlowId, LinkId, NodeId};

/// Everything that can happen in a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The link direction finished serialising the packet it was sending.
    LinkTxDone(LinkId),
    /// The head of the link's propagation pipe reaches the far end.
    LinkArrival(LinkId),
    /// A flow's sender timer (retransmission, probe, SYN) may be due.
    FlowTimer(FlowId),
    /// A flow's receiver timer (delayed ack) may be due.
    RxTimer(FlowId),
    /// A flow's application starts sending.
    AppStart(FlowId),
    /// A flow's application stops offering new data.
    AppStop(FlowId),
    /// End of a statistics interval.
    Interval,
    /// Periodic trace sample (cwnd, queue lengths), when traces are on.
    Trace,
    /// Start of the steady-state window used by the run summary.
    SteadyStart,
    /// A queue discipline's own timer (see `queue::QueueCx::wake_at`) may be due.
    QueueWake(LinkId),
    /// A flow's application has something to do (an active source's next packet or
    /// on/off transition).
    AppTick(FlowId),
    /// A link direction's error model changes state (an outage begins or ends).
    LinkState(LinkId),
    /// A node agent's timer (Snoop's local retransmission) may be due.
    NodeTimer(NodeId),
    /// A paced flow's next segment may leave (its release time).
    PaceTimer(FlowId),
}

/// The kind of an event: its tag in the packed heap entry. Adding an [`Event`] variant
/// means adding a kind here and to [`KINDS`]; the compile-time checks below and the
/// round-trip test catch a kind that does not fit or a table out of order.
///
/// The order of the variants is the order of simultaneous events (the code is the key's
/// high bits). Events scheduled long in advance come first, as they mostly did under the
/// old FIFO order: the steady-state snapshot, interval ends and trace samples see the
/// state before anything else at their instant, outages and application starts/stops
/// apply before packets move. Then packets: arrivals before transmission ends (under FIFO
/// an arrival was scheduled one propagation delay ahead, a transmission end one
/// serialisation time ahead, so arrivals mostly came first), queue wakes. Then timers:
/// the receiver's delayed ack before the sender's retransmission timer (the order the
/// single flow timer used), pacing, application ticks, node agents.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    SteadyStart,
    Interval,
    Trace,
    LinkState,
    AppStart,
    AppStop,
    LinkArrival,
    LinkTxDone,
    QueueWake,
    RxTimer,
    FlowTimer,
    PaceTimer,
    AppTick,
    NodeTimer,
}

/// Every kind, indexed by its code.
const KINDS: [Kind; 14] = [
    Kind::SteadyStart,
    Kind::Interval,
    Kind::Trace,
    Kind::LinkState,
    Kind::AppStart,
    Kind::AppStop,
    Kind::LinkArrival,
    Kind::LinkTxDone,
    Kind::QueueWake,
    Kind::RxTimer,
    Kind::FlowTimer,
    Kind::PaceTimer,
    Kind::AppTick,
    Kind::NodeTimer,
];

/// Bits of an entry's tie-breaker word that hold the event: a `KIND_BITS`-bit kind and a
/// 21-bit id.
const KIND_BITS: u32 = 5;
const ID_BITS: u32 = 21;
const KIND_MASK: u64 = (1 << KIND_BITS) - 1;
/// Largest link or flow id an event can carry (checked when a scenario is built).
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;
/// Bits of the encoded event (kind and id) at the bottom of an entry's tie word.
const EV_BITS: u32 = KIND_BITS + ID_BITS;
const EV_MASK: u64 = (1 << EV_BITS) - 1;
/// Bits of the per-instant scramble, between the class (top two bits) and the event.
const SCRAMBLE_BITS: u32 = 62 - EV_BITS;
/// The kind codes of `Event::RxTimer` and `Event::FlowTimer`, adjacent (the event queue
/// keeps flow timers apart).
const KIND_RX_TIMER: u64 = Kind::RxTimer as u64;
const KIND_FLOW_TIMER: u64 = Kind::FlowTimer as u64;
const _: () = assert!(KIND_FLOW_TIMER == KIND_RX_TIMER + 1);

// Compile-time checks: every kind fits in its bits, and `KINDS[code]` is the kind `code`.
const _: () = {
    assert!(
        KINDS.len() <= 1 << KIND_BITS,
        "event kinds overflow KIND_BITS"
    );
    let mut i = 0;
    while i < KINDS.len() {
        assert!(KINDS[i] as usize == i, "KINDS is out of order");
        i += 1;
    }
};

/// The class of a kind code: statistics boundaries (0) and outages and application
/// starts/stops (1) keep the order of [`Kind`]; everything else (2) is scrambled per instant.
#[inline(always)]
fn class(kind: u64) -> u64 {
    const LAST_STATS: u64 = Kind::Trace as u64;
    const LAST_FIXED: u64 = Kind::AppStop as u64;
    (kind > LAST_STATS) as u64 + (kind > LAST_FIXED) as u64
}

/// The tie word of the encoded event `code` at `time`: class, the instant's scramble, the
/// event.
#[inline(always)]
fn tie_of(time: u64, code: u64) -> u64 {
    let c = class(code >> ID_BITS);
    if c < 2 {
        return c << 62 | code;
    }
    // A multiplicative hash of (time, event), its high bits: equal events at one instant
    // get equal words; different ones an order that changes from instant to instant (bench
    // b under callgrind: 463.25 M instructions with the fixed order, 475.52 M with this,
    // 483.16 M with splitmix64's full finaliser, 476.25 M with one multiplication).
    let x = (time ^ code.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    2 << 62 | (x >> (64 - SCRAMBLE_BITS)) << EV_BITS | code
}

impl Event {
    #[inline]
    fn encode(self) -> u64 {
        let (kind, id) = match self {
            Event::LinkTxDone(l) => (Kind::LinkTxDone, l.0),
            Event::LinkArrival(l) => (Kind::LinkArrival, l.0),
            Event::FlowTimer(f) => (Kind::FlowTimer, f.0),
            Event::RxTimer(f) => (Kind::RxTimer, f.0),
            Event::AppStart(f) => (Kind::AppStart, f.0),
            Event::AppStop(f) => (Kind::AppStop, f.0),
            Event::Interval => (Kind::Interval, 0),
            Event::Trace => (Kind::Trace, 0),
            Event::SteadyStart => (Kind::SteadyStart, 0),
            Event::QueueWake(l) => (Kind::QueueWake, l.0),
            Event::AppTick(f) => (Kind::AppTick, f.0),
            Event::LinkState(l) => (Kind::LinkState, l.0),
            Event::NodeTimer(n) => (Kind::NodeTimer, n.0),
            Event::PaceTimer(f) => (Kind::PaceTimer, f.0),
        };
        debug_assert!(id <= MAX_EVENT_ID);
        (kind as u64) << ID_BITS | id as u64
    }
    /// The inverse of `encode`: one arm per [`Kind`] (the `K_*` constants are the kinds'
    /// codes); a code no `encode` produced is a bug and panics instead of turning into some
    /// other event.
    #[inline]
    fn decode(code: u64) -> Event {
        const K_LINK_TX_DONE: u64 = Kind::LinkTxDone as u64;
        const K_LINK_ARRIVAL: u64 = Kind::LinkArrival as u64;
        const K_APP_START: u64 = Kind::AppStart as u64;
        const K_APP_STOP: u64 = Kind::AppStop as u64;
        const K_INTERVAL: u64 = Kind::Interval as u64;
        const K_TRACE: u64 = Kind::Trace as u64;
        const K_STEADY_START: u64 = Kind::SteadyStart as u64;
        const K_QUEUE_WAKE: u64 = Kind::QueueWake as u64;
        const K_APP_TICK: u64 = Kind::AppTick as u64;
        const K_LINK_STATE: u64 = Kind::LinkState as u64;
        const K_NODE_TIMER: u64 = Kind::NodeTimer as u64;
        const K_PACE_TIMER: u64 = Kind::PaceTimer as u64;
        let id = (code & MAX_EVENT_ID as u64) as u32;
        match (code >> ID_BITS) & KIND_MASK {
            K_LINK_TX_DONE => Event::LinkTxDone(LinkId(id)),
            K_LINK_ARRIVAL => Event::LinkArrival(LinkId(id)),
            KIND_FLOW_TIMER => Event::FlowTimer(FlowId(id)),
            KIND_RX_TIMER => Event::RxTimer(FlowId(id)),
            K_APP_START => Event::AppStart(FlowId(id)),
            K_APP_STOP => Event::AppStop(FlowId(id)),
            K_INTERVAL => Event::Interval,
            K_TRACE => Event::Trace,
            K_STEADY_START => Event::SteadyStart,
            K_QUEUE_WAKE => Event::QueueWake(LinkId(id)),
            K_APP_TICK => Event::AppTick(FlowId(id)),
            K_LINK_STATE => Event::LinkState(LinkId(id)),
            K_NODE_TIMER => Event::NodeTimer(NodeId(id)),
            K_PACE_TIMER => Event::PaceTimer(FlowId(id)),
            k => unreachable!("event kind {k} was never encoded"),
        }
    }
}

/// 16 bytes, so a node's children share one 64-byte cache line.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    /// `class << 62 | scramble << EV_BITS | kind << ID_BITS | id` (see the module's notes).
    tie: u64,
}

impl Entry {
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.tie as u128
    }
    #[inline]
    fn unpack(self) -> (SimTime, Event) {
        (SimTime(self.time), Event::decode(self.tie & EV_MASK))
    }
}

/// Children per node (the code is written for any arity; 2 measured best, see the module
/// comment).
const ARITY: usize = 2;

/// A min-heap of entries with the "hold" optimisation: `pop` leaves the returned
/// entry at the root as a hole; an event handler almost always schedules something, and the
/// first `push` after a `pop` drops the new entry into the hole and sifts it down once,
/// instead of a full removal (sift down and up) followed by an insertion (sift up).
#[derive(Default)]
struct Heap {
    heap: Vec<Entry>,
    /// `heap[0]` was already returned by `pop`.
    hole: bool,
}

impl Heap {
    #[inline]
    fn push(&mut self, e: Entry) {
        if self.hole {
            self.hole = false;
            self.sift_down_from_root(e);
            return;
        }
        let i = self.heap.len();
        self.heap.push(e);
        self.sift_up(i, e);
    }

    /// Put `e` at the free slot `i` or above: move parents down until its place is found.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Entry) {
        let h = &mut self.heap[..];
        let key = e.key();
        while i > 0 {
            let p = (i - 1) / ARITY;
            if h[p].key() <= key {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = e;
    }

    /// Place `e` at the root's position (the root is free): move the hole down to a leaf
    /// along the least children, then sift `e` up from there (Floyd's trick: new entries
    /// are usually later than most, so they belong near the leaves).
    #[inline]
    #[allow(clippy::needless_range_loop)] // child indices are the heap's arithmetic
    fn sift_down_from_root(&mut self, e: Entry) {
        let h = &mut self.heap[..];
        let n = h.len();
        let mut i = 0;
        loop {
            let c = ARITY * i + 1;
            if c + ARITY <= n {
                let kids = &h[c..c + ARITY];
                let mut m = 0;
                let mut mk = kids[0].key();
                for j in 1..ARITY {
                    let k = kids[j].key();
                    if k < mk {
                        m = j;
                        mk = k;
                    }
                }
                h[i] = h[c + m];
                i = c + m;
            } else {
                if c < n {
                    let mut m = c;
                    for j in c + 1..n {
                        if h[j].key() < h[m].key() {
                            m = j;
                        }
                    }
                    h[i] = h[m];
                    i = m;
                }
                break;
            }
        }
        self.sift_up(i, e);
    }

    /// Remove a hole left by `pop` that no `push` filled.
    #[inline]
    fn fill_hole(&mut self) {
        if self.hole {
            self.hole = false;
            let last = self.heap.pop().expect("a hole is a heap entry");
            if !self.heap.is_empty() {
                self.sift_down_from_root(last);
            }
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        self.fill_hole();
        let top = *self.heap.first()?;
        self.hole = true;
        Some(top)
    }

    #[inline]
    fn peek(&mut self) -> Option<Entry> {
        self.fill_hole();
        self.heap.first().copied()
    }
}

/// Pending events ordered by time, ties broken by the event (see the module's notes).
///
/// Flow timers live in a heap of their own: every flow keeps an RTO pending almost all the
/// time but few ever fire, and out of the main heap they do not deepen it (scenario b: 25
/// pending events on average, 16 of them timers). The main heap holds a *proxy* of the
/// earliest timer, an entry with the timer's own key, so the merged pop order is exactly
/// the order of one heap holding everything. A proxy whose timer is no longer the earliest
/// (an earlier one arrived, or it already ran) is dropped when it reaches the top.
#[derive(Default)]
pub struct EventQueue {
    main: Heap,
    timers: Heap,
    /// Real pending events (proxies not counted).
    len: usize,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn is_timer(e: &Entry) -> bool {
        ((e.tie >> ID_BITS) & KIND_MASK).wrapping_sub(KIND_RX_TIMER) <= 1
    }

    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        let e = Entry {
            time: time.0,
            tie: tie_of(time.0, ev.encode()),
        };
        self.len += 1;
        if let Event::FlowTimer(_) | Event::RxTimer(_) = ev {
            let earliest = self.timers.peek().is_none_or(|t| e.key() < t.key());
            self.timers.push(e);
            if earliest {
                self.main.push(e); // proxy
            }
        } else {
            self.main.push(e);
        }
    }

    #[inline]
    fn pop_entry(&mut self) -> Option<Entry> {
        loop {
            let e = self.main.pop()?;
            if !Self::is_timer(&e) {
                return Some(e);
            }
            if self.timers.peek().is_some_and(|t| t.key() == e.key()) {
                self.timers.pop();
                if let Some(next) = self.timers.peek() {
                    self.main.push(next);
                }
                return Some(e);
            }
            // A stale proxy: drop it and look again.
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let e = self.pop_entry()?;
        self.len -= 1;
        Some(e.unpack())
    }

    #[inline(always)]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        loop {
            let e = self.main.peek()?;
            if !Self::is_timer(&e) || self.timers.peek().is_some_and(|t| t.key() == e.key()) {
                return Some(SimTime(e.time));
            }
            self.main.pop(); // a stale proxy
        }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry's full key, as the queue orders it.
    fn key(t: u64, ev: Event) -> u128 {
        (t as u128) << 64 | tie_of(t, ev.encode()) as u128
    }

    #[test]
    fn ties_scramble_per_instant_after_statistics_and_starts() {
        // At every instant: the interval end, then the application start, then the rest in
        // the order of their keys; which of two simultaneous arrivals goes first changes
        // from instant to instant (no link wins every tie).
        let mut first = 0;
        for t in 0..2000u64 {
            let mut q = EventQueue::new();
            let evs = [
                Event::FlowTimer(FlowId(4)),
                Event::LinkTxDone(LinkId(9)),
                Event::LinkArrival(LinkId(1)),
                Event::RxTimer(FlowId(7)),
                Event::LinkArrival(LinkId(2)),
                Event::AppStart(FlowId(3)),
                Event::Interval,
            ];
            for ev in evs {
                q.schedule(SimTime(t), ev);
            }
            let got: Vec<Event> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
            assert_eq!(got[0], Event::Interval);
            assert_eq!(got[1], Event::AppStart(FlowId(3)));
            let mut rest: Vec<Event> = evs[..5].to_vec();
            rest.sort_by_key(|&e| key(t, e));
            assert_eq!(got[2..], rest[..]);
            let a = got.iter().position(|&e| e == Event::LinkArrival(LinkId(1)));
            let b = got.iter().position(|&e| e == Event::LinkArrival(LinkId(2)));
            first += (a < b) as u32;
        }
        assert!(
            (900..1100).contains(&first),
            "link 1 first at {first} of 2000 instants"
        );
    }

    #[test]
    fn statistics_then_starts_pop_in_kind_then_id_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::AppStop(FlowId(4)));
        q.schedule(SimTime(3), Event::FlowTimer(FlowId(2)));
        q.schedule(SimTime(5), Event::AppStart(FlowId(9)));
        q.schedule(SimTime(5), Event::AppStart(FlowId(1)));
        q.schedule(SimTime(5), Event::LinkState(LinkId(7)));
        q.schedule(SimTime(5), Event::Trace);
        q.schedule(SimTime(5), Event::Interval);
        q.schedule(SimTime(5), Event::SteadyStart);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::FlowTimer(FlowId(2))),
                (SimTime(5), Event::SteadyStart),
                (SimTime(5), Event::Interval),
                (SimTime(5), Event::Trace),
                (SimTime(5), Event::LinkState(LinkId(7))),
                (SimTime(5), Event::AppStart(FlowId(1))),
                (SimTime(5), Event::AppStart(FlowId(9))),
                (SimTime(5), Event::AppStop(FlowId(4))),
            ]
        );
    }

    /// The reference order: sort by the key; equal keys are equal events.
    fn reference(mut v: Vec<(u64, Event)>) -> Vec<(SimTime, Event)> {
        v.sort_by_key(|&(t, ev)| key(t, ev));
        v.into_iter().map(|(t, ev)| (SimTime(t), ev)).collect()
    }

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    #[test]
    fn matches_a_sort_on_many_ties_and_sizes() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for n in [1usize, 2, 3, 4, 5, 6, 7, 16, 17, 63, 64, 65, 1000] {
            for spread in [1u64, 3, 50, 1 << 40] {
                let ops: Vec<(u64, u32)> = (0..n)
                    .map(|i| (xorshift(&mut seed) % spread, i as u32))
                    .collect();
                let mut q = EventQueue::new();
                for &(t, id) in &ops {
                    q.schedule(SimTime(t), Event::LinkTxDone(LinkId(id)));
                }
                assert_eq!(q.len(), n);
                assert_eq!(
                    q.peek_time(),
                    Some(SimTime(ops.iter().map(|o| o.0).min().unwrap()))
                );
                let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
                let want = ops
                    .iter()
                    .map(|&(t, id)| (t, Event::LinkTxDone(LinkId(id))))
                    .collect();
                assert_eq!(got, reference(want), "n={n} spread={spread}");
                assert!(q.is_empty() && q.pop().is_none() && q.peek_time().is_none());
            }
        }
    }

    #[test]
    fn interleaved_schedule_and_pop_like_a_simulation() {
        // Hold model: pop the earliest, schedule 0-2 events at or after it; compare with a
        // reference that keeps (time, id) pairs in a sorted vector.
        let mut seed = 42u64;
        let mut q = EventQueue::new();
        let mut r: Vec<(u128, u64, u32)> = Vec::new();
        let push = |q: &mut EventQueue, r: &mut Vec<(u128, u64, u32)>, t: u64, id: u32| {
            q.schedule(SimTime(t), Event::LinkArrival(LinkId(id)));
            r.push((key(t, Event::LinkArrival(LinkId(id))), t, id));
        };
        for i in 0..200 {
            push(&mut q, &mut r, xorshift(&mut seed) % 1000, i);
        }
        for step in 0..20_000u32 {
            r.sort();
            let (_, t, id) = r.remove(0);
            assert_eq!(
                q.pop(),
                Some((SimTime(t), Event::LinkArrival(LinkId(id)))),
                "step {step}"
            );
            assert_eq!(q.len(), r.len());
            for _ in 0..(xorshift(&mut seed) % 3) {
                let dt = match xorshift(&mut seed) % 4 {
                    0 => 0,
                    1 => xorshift(&mut seed) % 4,
                    _ => xorshift(&mut seed) % 5000,
                };
                push(&mut q, &mut r, t + dt, step);
            }
            if r.is_empty() {
                break;
            }
        }
    }

    /// An example event of every kind; exhaustive over `Kind`, so a new kind does not
    /// compile until it has one (and then must round-trip below).
    fn sample(k: Kind, id: u32) -> Event {
        match k {
            Kind::LinkTxDone => Event::LinkTxDone(LinkId(id)),
            Kind::LinkArrival => Event::LinkArrival(LinkId(id)),
            Kind::FlowTimer => Event::FlowTimer(FlowId(id)),
            Kind::RxTimer => Event::RxTimer(FlowId(id)),
            Kind::AppStart => Event::AppStart(FlowId(id)),
            Kind::AppStop => Event::AppStop(FlowId(id)),
            Kind::Interval => Event::Interval,
            Kind::Trace => Event::Trace,
            Kind::SteadyStart => Event::SteadyStart,
            Kind::QueueWake => Event::QueueWake(LinkId(id)),
            Kind::AppTick => Event::AppTick(FlowId(id)),
            Kind::LinkState => Event::LinkState(LinkId(id)),
            Kind::NodeTimer => Event::NodeTimer(NodeId(id)),
            Kind::PaceTimer => Event::PaceTimer(FlowId(id)),
        }
    }

    #[test]
    fn events_round_trip_through_the_packed_entry() {
        for (code, &k) in KINDS.iter().enumerate() {
            for id in [0, 1, 12345, MAX_EVENT_ID] {
                let ev = sample(k, id);
                assert_eq!(ev.encode() >> ID_BITS, code as u64, "{ev:?}");
                assert_eq!(Event::decode(ev.encode()), ev);
            }
        }
    }

    #[test]
    #[should_panic(expected = "never encoded")]
    fn an_unknown_kind_code_panics_instead_of_aliasing() {
        Event::decode((KINDS.len() as u64) << ID_BITS);
    }

    #[test]
    fn a_timer_armed_twice_at_one_instant_runs_twice_and_is_counted() {
        // Equal keys: the proxy scheme must hand out both copies and count them.
        let mut q = EventQueue::new();
        q.schedule(SimTime(9), Event::FlowTimer(FlowId(1)));
        q.schedule(SimTime(4), Event::RxTimer(FlowId(1)));
        q.schedule(SimTime(9), Event::FlowTimer(FlowId(1)));
        assert_eq!(q.len(), 3);
        assert_eq!(q.pop(), Some((SimTime(4), Event::RxTimer(FlowId(1)))));
        q.schedule(SimTime(9), Event::FlowTimer(FlowId(1)));
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(rest, vec![(SimTime(9), Event::FlowTimer(FlowId(1))); 3]);
        assert!(q.is_empty());
    }

    #[test]
    fn timers_and_other_events_merge_in_exact_order() {
        // Hold model with a mix of timers (own heap + proxies) and link events, many ties;
        // the reference keeps every (time, event) in one sorted vector.
        let mut seed = 7u64;
        let mut q = EventQueue::new();
        let mut r: Vec<(u64, Event)> = Vec::new();
        let push = |q: &mut EventQueue, r: &mut Vec<(u64, Event)>, t: u64, ev: Event| {
            q.schedule(SimTime(t), ev);
            r.push((t, ev));
        };
        // Few ids, so equal keys (the same timer armed twice at one instant) are common.
        let pick = |x: u64, id: u32| match x % 4 {
            0 => Event::FlowTimer(FlowId(id % 7)),
            1 => Event::RxTimer(FlowId(id % 5)),
            _ => Event::LinkArrival(LinkId(id)),
        };
        for i in 0..100 {
            let x = xorshift(&mut seed);
            push(&mut q, &mut r, x % 50, pick(x >> 7, i));
        }
        for step in 0..30_000u32 {
            r.sort_by_key(|&(t, ev)| key(t, ev));
            let (t, ev) = r.remove(0);
            assert_eq!(q.peek_time(), Some(SimTime(t)), "step {step}");
            assert_eq!(q.pop(), Some((SimTime(t), ev)), "step {step}");
            assert_eq!(q.len(), r.len());
            for _ in 0..(xorshift(&mut seed) % 3) {
                let x = xorshift(&mut seed);
                let dt = match x % 5 {
                    0 => 0,
                    1 => x % 3,
                    2 => 1000 + x % 7, // far-future timers
                    _ => x % 60,
                };
                push(&mut q, &mut r, t + dt, pick(x >> 9, step));
            }
            if r.is_empty() {
                break;
            }
        }
        assert!(r.is_empty() || q.len() == r.len());
    }
}

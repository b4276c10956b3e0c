//! The event queue: a binary min-heap keyed by (time, insertion sequence).
//!
//! Events with equal times run in the order they were scheduled (FIFO), which makes
//! simultaneous events deterministic. Events are a small `Copy` enum dispatched with a
//! `match` in [`crate::sim::Sim::run`]; there is no boxing and no dynamic dispatch.
//! Timers are cancelled lazily: the owner keeps its deadline and ignores stale firings.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

pub type LinkId = u32;
pub type FlowId = u32;
pub type NodeId = u32;

/// Everything that can happen in a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The link direction finished serialising the packet it was sending.
    LinkTxDone(LinkId),
    /// The head of the link's propagation pipe reaches the far end.
    LinkArrival(LinkId),
    /// A flow's timer (retransmission or delayed ack) may be due.
    FlowTimer(FlowId),
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
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed so that `BinaryHeap` (a max-heap) pops the earliest (time, seq).
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then(o.seq.cmp(&self.seq))
    }
}

/// Pending events ordered by time, ties broken first-in-first-out.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn schedule(&mut self, time: SimTime, ev: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, ev });
    }
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|e| (e.time, e.ev))
    }
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(5), Event::FlowTimer(1));
        q.schedule(SimTime(3), Event::FlowTimer(2));
        q.schedule(SimTime(5), Event::FlowTimer(3));
        q.schedule(SimTime(5), Event::FlowTimer(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::FlowTimer(2)),
                (SimTime(5), Event::FlowTimer(1)),
                (SimTime(5), Event::FlowTimer(3)),
                (SimTime(5), Event::FlowTimer(4)),
            ]
        );
    }
}

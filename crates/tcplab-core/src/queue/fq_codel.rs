//! FQ-CoDel: flow queueing with deficit round robin, CoDel on every flow queue.
//!
//! Reference: T. Høiland-Jørgensen, P. McKenney, D. Täht, J. Gettys, E. Dumazet, "The Flow
//! Queue CoDel Packet Scheduler and Active Queue Management Algorithm", RFC 8290 (2018),
//! §4 (enqueue, dequeue, new and old flows), §5 (parameters); CoDel itself: `queue/codel.rs`.
//!
//! - classification (§4.1.1): bucket = `hash(flow, direction, perturbation) mod flows`, a
//!   deterministic 64-bit mix of the flow id, whether the packet is an ack (the reverse
//!   direction of a connection is another 5-tuple) and a perturbation drawn from the queue's
//!   own random stream (so from the scenario seed) at the first arrival
//! - enqueue (§4.1): timestamp the packet, append it to its bucket; a bucket that is in
//!   neither list joins the tail of the **new** list with `deficit = quantum`; then, while
//!   the total exceeds `limit` packets or `memory_limit` bytes, drop from the head of the
//!   bucket with the most bytes (the "fattest" flow; §4.1.2), up to `drop_batch` packets
//!   but no more than half of that bucket's bytes (at least one packet)
//! - dequeue (§4.2): take the first bucket of the new list, else of the old list; if its
//!   `deficit ≤ 0`: `deficit += quantum`, move it to the tail of the old list, repeat;
//!   otherwise ask its CoDel for a packet: none (empty after CoDel's drops) → a new-list
//!   bucket moves to the tail of the old list (§4.2: prevents starvation by a flow that
//!   keeps reappearing as new), an old-list bucket leaves the lists; a packet →
//!   `deficit −= size`, send it
//! - each bucket's CoDel runs on its own sojourn times and its own queued bytes (the MTU
//!   test, RFC 8289's `bytes()`, uses the bucket's backlog)
//! - `ecn = true` (default, as RFC 8290 §5.1 and Linux `fq_codel`): CoDel marks ECN-capable
//!   packets; overflow drops are always drops
//!
//! Storage (no allocation per packet in steady state): a packet arena `Vec<Slot>` that
//! grows to the largest backlog and recycles slots through a free list; each bucket is an
//! intrusive singly linked FIFO over the arena (head, tail), so enqueue and dequeue are
//! O(1). Finding the fattest bucket on overflow scans all buckets (O(flows), on overflow
//! only, as Linux does). The new and old lists are `VecDeque`s of bucket indices,
//! preallocated to `flows`.

use super::codel::{CodelParams, CodelQueue, CodelState};
use super::{Backlog, DropReason, QueueCx, QueueDisc};
use crate::config::units::{DurationValue, SizeValue};
use crate::config::ScenarioError;
use crate::packet::Packet;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

fn default_flows() -> u32 {
    1024
}
fn default_limit() -> u32 {
    10240
}
fn default_memory() -> SizeValue {
    SizeValue(32 << 20)
}
fn default_batch() -> u32 {
    64
}
fn yes() -> bool {
    true
}

/// `queue = { type = "fq_codel", flows = 1024, quantum = 1500, limit = 10240, … }`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// Number of flow buckets (default 1024).
    #[serde(default = "default_flows")]
    pub flows: u32,
    /// DRR quantum, bytes a bucket may send per round (default: `mtu`, one full packet).
    #[serde(default)]
    pub quantum: Option<u32>,
    /// Total packets held over all buckets (default 10240).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Total bytes held over all buckets (default "32MiB").
    #[serde(default = "default_memory")]
    pub memory_limit: SizeValue,
    /// Overflow drops at most this many packets from the fattest bucket at once, and at
    /// most half its bytes (default 64; 1 = one packet per overflowing arrival).
    #[serde(default = "default_batch")]
    pub drop_batch: u32,
    /// CoDel's target per bucket (default "5ms").
    #[serde(default = "super::codel::default_target")]
    pub target: DurationValue,
    /// CoDel's interval (default "100ms").
    #[serde(default = "super::codel::default_interval")]
    pub interval: DurationValue,
    /// Mark ECN-capable packets instead of dropping them (default true).
    #[serde(default = "yes")]
    pub ecn: bool,
    /// Largest packet, bytes (CoDel's MAXPACKET and the default quantum; default 1500).
    #[serde(default = "super::codel::default_mtu")]
    pub mtu: u32,
}

impl FqCodelSpec {
    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<FqCodel, ScenarioError> {
        let err = |k: &str, m: String| Err(ScenarioError::new(format!("{field}.{k}"), m));
        let codel = CodelParams::build(field, self.target, self.interval, self.ecn, self.mtu)?;
        if !(1..=65536).contains(&self.flows) {
            return err("flows", format!("must be in 1..=65536, got {}", self.flows));
        }
        let quantum = self.quantum.unwrap_or(self.mtu);
        if quantum == 0 {
            return err("quantum", "must be positive".into());
        }
        if self.limit == 0 {
            return err("limit", "must be positive".into());
        }
        if self.memory_limit.0 == 0 {
            return err("memory_limit", "must be positive".into());
        }
        if self.drop_batch == 0 {
            return err("drop_batch", "must be at least 1".into());
        }
        Ok(FqCodel::new(
            self.flows,
            quantum,
            self.limit,
            self.memory_limit.0,
            self.drop_batch,
            codel,
        ))
    }
}

const NIL: u32 = u32::MAX;

/// One stored packet in the arena; `next` links it into its bucket or the free list.
#[derive(Clone, Copy)]
struct Slot {
    pkt: Packet,
    t_in: SimTime,
    next: u32,
}

/// Which list a bucket is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum On {
    None,
    New,
    Old,
}

#[derive(Clone, Copy)]
struct Bucket {
    head: u32,
    tail: u32,
    backlog: Backlog,
    deficit: i64,
    on: On,
    codel: CodelState,
}

/// The packet arena and its free list.
struct Arena {
    slots: Vec<Slot>,
    free: u32,
}

impl Arena {
    #[inline]
    fn alloc(&mut self, pkt: Packet, t_in: SimTime) -> u32 {
        if self.free != NIL {
            let i = self.free;
            let s = &mut self.slots[i as usize];
            self.free = s.next;
            *s = Slot {
                pkt,
                t_in,
                next: NIL,
            };
            i
        } else {
            self.slots.push(Slot {
                pkt,
                t_in,
                next: NIL,
            });
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    fn release(&mut self, i: u32) {
        self.slots[i as usize].next = self.free;
        self.free = i;
    }
}

/// A bucket's FIFO seen as CoDel's storage (borrows the arena and the totals).
struct BucketQueue<'a> {
    b: &'a mut Bucket,
    arena: &'a mut Arena,
    total: &'a mut Backlog,
}

impl CodelQueue for BucketQueue<'_> {
    #[inline]
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        pop_head(self.b, self.arena, self.total)
    }
    #[inline]
    fn bytes(&self) -> u64 {
        self.b.backlog.bytes
    }
}

#[inline]
fn pop_head(b: &mut Bucket, arena: &mut Arena, total: &mut Backlog) -> Option<(Packet, SimTime)> {
    if b.head == NIL {
        return None;
    }
    let i = b.head;
    let s = arena.slots[i as usize];
    b.head = s.next;
    if b.head == NIL {
        b.tail = NIL;
    }
    arena.release(i);
    b.backlog.remove(&s.pkt);
    total.remove(&s.pkt);
    Some((s.pkt, s.t_in))
}

pub struct FqCodel {
    buckets: Vec<Bucket>,
    arena: Arena,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: i64,
    limit: u32,
    memory_limit: u64,
    drop_batch: u32,
    codel: CodelParams,
    total: Backlog,
    /// Hash perturbation, drawn from the queue's stream at the first arrival.
    perturbation: Option<u64>,
    /// Buckets that became active (joined the new list) and overflow drop events.
    pub new_flow_count: u64,
    pub overflow_events: u64,
}

/// A 64-bit mix (splitmix64's finaliser).
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(
        flows: u32,
        quantum: u32,
        limit: u32,
        memory_limit: u64,
        drop_batch: u32,
        codel: CodelParams,
    ) -> Self {
        let empty = Bucket {
            head: NIL,
            tail: NIL,
            backlog: Backlog::default(),
            deficit: 0,
            on: On::None,
            codel: CodelState::default(),
        };
        FqCodel {
            buckets: vec![empty; flows as usize],
            arena: Arena {
                slots: Vec::new(),
                free: NIL,
            },
            new_flows: VecDeque::with_capacity(flows as usize),
            old_flows: VecDeque::with_capacity(flows as usize),
            quantum: quantum as i64,
            limit,
            memory_limit,
            drop_batch,
            codel,
            total: Backlog::default(),
            perturbation: None,
            new_flow_count: 0,
            overflow_events: 0,
        }
    }
    pub fn codel(&self) -> &CodelParams {
        &self.codel
    }
    /// The bucket of `pkt` (given the perturbation).
    #[inline]
    pub fn bucket_of(&self, pkt: &Packet, perturbation: u64) -> usize {
        let key = ((pkt.flow.0 as u64) << 1) | (!pkt.is_data() as u64);
        ((mix(key ^ perturbation) as u128 * self.buckets.len() as u128) >> 64) as usize
    }
    /// Packets stored in bucket `i` (tests).
    pub fn bucket_backlog(&self, i: usize) -> Backlog {
        self.buckets[i].backlog
    }

    /// Overflow: drop from the head of the bucket with the most bytes.
    fn drop_from_fattest(&mut self, cx: &mut QueueCx) {
        self.overflow_events += 1;
        let mut fat = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            if b.backlog.bytes > self.buckets[fat].backlog.bytes {
                fat = i;
            }
        }
        let b = &mut self.buckets[fat];
        let threshold = b.backlog.bytes / 2;
        let mut dropped_bytes = 0u64;
        let mut n = 0;
        while n < self.drop_batch {
            let Some((p, _)) = pop_head(b, &mut self.arena, &mut self.total) else {
                break;
            };
            dropped_bytes += p.size as u64;
            n += 1;
            cx.drop(p, DropReason::Overflow);
            if dropped_bytes >= threshold {
                break;
            }
        }
    }
}

impl QueueDisc for FqCodel {
    fn audit(&self, _waiting: Backlog) -> Result<(), String> {
        let t = self.total;
        if t.packets > self.limit || t.bytes > self.memory_limit {
            return Err(format!(
                "holds {} packets / {} B, beyond limit {} / memory_limit {} B",
                t.packets, t.bytes, self.limit, self.memory_limit
            ));
        }
        let mut sum = Backlog::default();
        for (i, b) in self.buckets.iter().enumerate() {
            sum.packets += b.backlog.packets;
            sum.bytes += b.backlog.bytes;
            if b.deficit > self.quantum {
                return Err(format!(
                    "bucket {i}: deficit {} > quantum {}",
                    b.deficit, self.quantum
                ));
            }
            if b.backlog.packets > 0 && b.on == On::None {
                return Err(format!(
                    "bucket {i} holds {} packets but is on neither list",
                    b.backlog.packets
                ));
            }
        }
        if sum != t {
            return Err(format!(
                "buckets hold {} packets / {} B, the total says {} / {}",
                sum.packets, sum.bytes, t.packets, t.bytes
            ));
        }
        Ok(())
    }
    fn name(&self) -> &'static str {
        "fq_codel"
    }
    // Out of line: keeps the link's inlined enqueue/dequeue dispatch (and the fast
    // path's code beside it) as small as before this discipline existed.
    #[inline(never)]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        let pert = match self.perturbation {
            Some(p) => p,
            None => {
                let p = cx.rng.next_u64();
                self.perturbation = Some(p);
                p
            }
        };
        let i = self.bucket_of(&pkt, pert);
        let slot = self.arena.alloc(pkt, cx.now);
        let b = &mut self.buckets[i];
        if b.tail == NIL {
            b.head = slot;
        } else {
            self.arena.slots[b.tail as usize].next = slot;
        }
        b.tail = slot;
        b.backlog.add(&pkt);
        self.total.add(&pkt);
        if b.on == On::None {
            b.on = On::New;
            b.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
            self.new_flow_count += 1;
        }
        while self.total.packets > self.limit || self.total.bytes > self.memory_limit {
            self.drop_from_fattest(cx);
        }
    }
    #[inline(never)]
    fn dequeue(&mut self, cx: &mut QueueCx) -> Option<Packet> {
        loop {
            let from_new = !self.new_flows.is_empty();
            let &i = if from_new {
                self.new_flows.front()?
            } else {
                self.old_flows.front()?
            };
            let b = &mut self.buckets[i as usize];
            if b.deficit <= 0 {
                b.deficit += self.quantum;
                b.on = On::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i);
                continue;
            }
            let mut st = b.codel;
            let got = st.dequeue(
                &self.codel,
                &mut BucketQueue {
                    b,
                    arena: &mut self.arena,
                    total: &mut self.total,
                },
                cx,
            );
            let b = &mut self.buckets[i as usize];
            b.codel = st;
            match got {
                Some(p) => {
                    b.deficit -= p.size as i64;
                    return Some(p);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        b.on = On::Old;
                        self.old_flows.push_back(i);
                    } else {
                        self.old_flows.pop_front();
                        b.on = On::None;
                    }
                }
            }
        }
    }
    fn backlog(&self) -> Backlog {
        self.total
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        for b in &self.buckets {
            let mut i = b.head;
            while i != NIL {
                let s = &self.arena.slots[i as usize];
                f(&s.pkt);
                i = s.next;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};
    use crate::time::{SimDuration, PS_PER_MS};

    pub(super) fn fq(flows: u32, limit: u32, batch: u32) -> FqCodel {
        FqCodelSpec {
            flows,
            quantum: None,
            limit,
            memory_limit: default_memory(),
            drop_batch: batch,
            target: super::super::codel::default_target(),
            interval: super::super::codel::default_interval(),
            ecn: true,
            mtu: 1500,
        }
        .build("q")
        .unwrap()
    }

    pub(super) fn pkt(flow: u32, size: u32) -> Packet {
        Packet::test(FlowId(flow), PacketKind::Data, size)
    }

    #[test]
    fn drr_shares_bytes_equally_between_backlogged_flows() {
        // Flow 0 sends 1500-B packets, flow 1 500-B ones, both always backlogged: each gets
        // one quantum (1500 B) per round, so flow 1 sends 3 packets per packet of flow 0.
        let mut q = fq(1024, 10_000, 64);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for _ in 0..300 {
            q.enqueue(pkt(0, 1500), &mut cx);
            q.enqueue(pkt(1, 500), &mut cx);
        }
        let pert = q.perturbation.unwrap();
        assert_ne!(
            q.bucket_of(&pkt(0, 1), pert),
            q.bucket_of(&pkt(1, 1), pert),
            "two flows, 1024 buckets"
        );
        let mut bytes = [0u64; 2];
        for _ in 0..200 {
            let p = q.dequeue(&mut cx).unwrap();
            bytes[p.flow.0 as usize] += p.size as u64;
        }
        let r = bytes[1] as f64 / bytes[0] as f64;
        assert!((r - 1.0).abs() < 0.02, "byte ratio {r}: {bytes:?}");
        assert_eq!(log.packets, 0);
    }

    #[test]
    fn a_sparse_flow_goes_first() {
        let mut q = fq(1024, 10_000, 64);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for _ in 0..100 {
            q.enqueue(pkt(0, 1500), &mut cx);
        }
        // The bulk flow has used its first quantum and sits on the old list.
        q.dequeue(&mut cx);
        q.dequeue(&mut cx);
        q.enqueue(pkt(7, 100), &mut cx);
        assert_eq!(
            q.dequeue(&mut cx).unwrap().flow,
            FlowId(7),
            "new list first"
        );
    }

    #[test]
    fn overflow_drops_from_the_fattest_flow() {
        let mut q = fq(1024, 100, 1);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for _ in 0..90 {
            q.enqueue(pkt(0, 1000), &mut cx);
        }
        for _ in 0..30 {
            q.enqueue(pkt(1, 1000), &mut cx);
        }
        // 120 arrivals into 100 places: the 20 drops all hit flow 0 (the fattest).
        let pert = q.perturbation.unwrap();
        assert_eq!(cx.drops.overflow, 20);
        assert_eq!(q.bucket_backlog(q.bucket_of(&pkt(0, 1), pert)).packets, 70);
        assert_eq!(q.bucket_backlog(q.bucket_of(&pkt(1, 1), pert)).packets, 30);
        assert_eq!(q.backlog().packets, 100);
        // Batch drop: up to half the fat flow's bytes at once.
        let mut q = fq(1024, 100, 64);
        for _ in 0..101 {
            q.enqueue(pkt(0, 1000), &mut cx);
        }
        assert_eq!(
            q.backlog().packets,
            50,
            "101 − 51 (half of 101 kB, in whole packets)"
        );
    }

    #[test]
    fn arena_reuses_slots_in_steady_state() {
        let mut q = fq(16, 10_000, 64);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        for k in 0..10_000u64 {
            let mut cx = QueueCx::new(SimTime(k * PS_PER_MS / 10), &mut rng, &mut log);
            q.enqueue(pkt((k % 5) as u32, 1000), &mut cx);
            if k % 2 == 1 {
                q.dequeue(&mut cx);
                q.dequeue(&mut cx);
            }
        }
        assert_eq!(q.backlog().packets, 0);
        assert!(q.arena.slots.len() <= 2, "{}", q.arena.slots.len());
        let _ = SimDuration::ZERO;
    }

    #[test]
    fn the_hash_depends_on_the_perturbation_only_through_the_seed() {
        let q = fq(1024, 100, 64);
        let a: Vec<usize> = (0..50).map(|f| q.bucket_of(&pkt(f, 1), 1)).collect();
        let b: Vec<usize> = (0..50).map(|f| q.bucket_of(&pkt(f, 1), 1)).collect();
        let c: Vec<usize> = (0..50).map(|f| q.bucket_of(&pkt(f, 1), 2)).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // 50 flows in 1024 buckets: a few collisions at most (birthday: ≈ 1.2 expected).
        let mut s = a.clone();
        s.sort();
        s.dedup();
        assert!(s.len() >= 46, "{}", s.len());
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let d = || FqCodelSpec {
            flows: 1024,
            quantum: None,
            limit: 10240,
            memory_limit: default_memory(),
            drop_batch: 64,
            target: super::super::codel::default_target(),
            interval: super::super::codel::default_interval(),
            ecn: true,
            mtu: 1500,
        };
        let bad = |s: FqCodelSpec| s.build("links.l.queue").err().unwrap().field;
        assert_eq!(bad(FqCodelSpec { flows: 0, ..d() }), "links.l.queue.flows");
        assert_eq!(
            bad(FqCodelSpec {
                quantum: Some(0),
                ..d()
            }),
            "links.l.queue.quantum"
        );
        assert_eq!(bad(FqCodelSpec { limit: 0, ..d() }), "links.l.queue.limit");
        assert_eq!(
            bad(FqCodelSpec {
                drop_batch: 0,
                ..d()
            }),
            "links.l.queue.drop_batch"
        );
        assert!(d().build("links.l.queue").is_ok());
    }
}

#[cfg(test)]
mod audit_tests {
    use super::*;

    #[test]
    fn the_auditor_checks_buckets_against_the_total() {
        let mut q = tests::fq(16, 100, 64);
        let mut rng = crate::rng::SimRng::derive(0, crate::rng::Stream::Queue, 0);
        let mut log = super::super::DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for f in 0..4 {
            q.enqueue(tests::pkt(f, 1000), &mut cx);
        }
        let w = q.backlog();
        assert!(q.audit(w).is_ok());
        q.total.bytes += 1;
        assert!(q.audit(w).unwrap_err().contains("the total says"));
        q.total.bytes -= 1;
        let i = q
            .buckets
            .iter()
            .position(|b| b.backlog.packets > 0)
            .unwrap();
        q.buckets[i].deficit = q.quantum + 1;
        assert!(q.audit(w).unwrap_err().contains("deficit"));
        q.buckets[i].deficit = q.quantum;
        q.buckets[i].on = On::None;
        assert!(q.audit(w).unwrap_err().contains("neither list"));
    }
}

//! DropTail FIFO: arrivals that do not fit are discarded. Optionally a marking threshold K
//! (`mark_threshold`): an ECN-capable arrival that finds K or more packets waiting gets CE
//! (step marking as DCTCP's switches do, RFC 8257 §3.1), others pass unmarked.

use super::{Backlog, DropReason, QueueCx, QueueDisc};
use crate::config::ScenarioError;
use crate::packet::flags;
use crate::packet::Packet;
use crate::queue::LimitSpec;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = { type = "droptail", … }`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {
    /// "100" or 100 (packets), "64KiB" (bytes), or "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
    /// ECN step marking: an ECN-capable arrival that finds at least this many packets
    /// waiting gets CE (DCTCP's K); absent = never mark.
    #[serde(default)]
    pub mark_threshold: Option<u32>,
}

impl Default for DropTailSpec {
    fn default() -> Self {
        DropTailSpec {
            limit: crate::queue::default_limit(),
            mark_threshold: None,
        }
    }
}

impl DropTailSpec {
    /// The keys profile `p` sets in a drop-tail queue's table (a link direction that names
    /// no queue gets one). Under `ns2`: ns-2.35's default `limit_ 50` (tcl/lib/ns-default.tcl,
    /// `Queue set limit_ 50`), which queue/drop-tail.cc `DropTail::enque` reads as 50
    /// packets counting the one in transmission (`length + 1 >= limit_` drops): 49 waiting.
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match p {
            crate::config::profile::Profile::Ns2 => vec![("limit", serde_json::Value::from(49))],
            _ => Vec::new(),
        }
    }

    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<DropTail, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        Ok(DropTail::new(limit).with_mark_threshold(self.mark_threshold))
    }
}

/// Capacity of a queue (packets waiting, not counting the one being transmitted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

impl Limit {
    /// Whether `p` fits in a queue holding `backlog`.
    #[inline]
    pub fn fits(&self, backlog: &Backlog, p: &Packet) -> bool {
        match *self {
            Limit::Packets(n) => backlog.packets < n,
            Limit::Bytes(b) => backlog.bytes + p.size as u64 <= b,
            Limit::Unlimited => true,
        }
    }
    /// Whether a queue holding `backlog` is within the limit (the invariant auditor's
    /// occupancy check, `QueueDisc::audit`): what [`Limit::fits`] admits never exceeds it.
    pub fn holds(&self, backlog: &Backlog) -> bool {
        match *self {
            Limit::Packets(n) => backlog.packets <= n,
            Limit::Bytes(b) => backlog.bytes <= b,
            Limit::Unlimited => true,
        }
    }
}

pub struct DropTail {
    q: VecDeque<Packet>,
    limit: Limit,
    /// Mark ECT arrivals that find at least this many packets waiting.
    mark_threshold: Option<u32>,
    backlog: Backlog,
}

impl DropTail {
    /// Storage grows with the largest backlog seen (amortised doubling), so a big limit on a
    /// queue that never fills costs nothing, and a run that has reached its largest backlog
    /// allocates no more.
    pub fn new(limit: Limit) -> Self {
        DropTail {
            q: VecDeque::new(),
            limit,
            mark_threshold: None,
            backlog: Backlog::default(),
        }
    }
    /// With step marking at `k` waiting packets.
    pub fn with_mark_threshold(mut self, k: Option<u32>) -> Self {
        self.mark_threshold = k;
        self
    }
    pub fn limit(&self) -> Limit {
        self.limit
    }
    /// The limit, when it is all there is to admission (no step marking).
    pub fn plain_limit(&self) -> Option<Limit> {
        self.mark_threshold.is_none().then_some(self.limit)
    }
}

impl QueueDisc for DropTail {
    fn name(&self) -> &'static str {
        "droptail"
    }
    #[inline]
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCx) {
        let waiting = self.backlog;
        if self.admit(&mut pkt, waiting, cx) {
            self.backlog.add(&pkt);
            self.q.push_back(pkt);
        }
    }
    fn admission_only(&self) -> bool {
        true
    }
    #[inline]
    fn admit(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        if !self.limit.fits(&waiting, pkt) {
            cx.drop(*pkt, DropReason::Overflow);
            return false;
        }
        if let Some(k) = self.mark_threshold {
            if waiting.packets >= k && pkt.has(flags::ECT) {
                cx.mark(pkt, DropReason::Forced);
            }
        }
        true
    }
    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.backlog.remove(&p);
        Some(p)
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().for_each(f)
    }
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        super::audit_limit(&self.limit, waiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;
    use crate::queue::DropLog;
    use crate::rng::{SimRng, Stream};
    use crate::time::SimTime;

    #[test]
    fn fifo_order_and_packet_limit() {
        let mut q = DropTail::new(Limit::Packets(2));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for i in 0..3 {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 100);
            p.seq = i;
            q.enqueue(p, &mut cx);
        }
        assert_eq!(
            q.backlog(),
            Backlog {
                packets: 2,
                bytes: 200
            }
        );
        assert_eq!(q.dequeue(&mut cx).unwrap().seq, 0);
        assert_eq!(q.dequeue(&mut cx).unwrap().seq, 1);
        assert!(q.dequeue(&mut cx).is_none());
        assert_eq!(log.overflow, 1);
    }

    #[test]
    fn byte_limit_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(150));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Data, 100), &mut cx);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, 40), &mut cx);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, 40), &mut cx);
        assert_eq!(q.backlog().packets, 2);
        assert_eq!(log.packets, 1);
    }

    #[test]
    fn step_marking_marks_ect_arrivals_above_k() {
        let mut q = DropTail::new(Limit::Packets(10)).with_mark_threshold(Some(2));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for i in 0..5 {
            let mut p = Packet::test(FlowId(0), PacketKind::Data, 100);
            p.seq = i;
            if i != 3 {
                p.flags |= flags::ECT;
            }
            q.enqueue(p, &mut cx);
        }
        let ce: Vec<bool> = (0..5)
            .map(|_| q.dequeue(&mut cx).unwrap().has(flags::CE))
            .collect();
        // Arrivals 0 and 1 find 0 and 1 waiting; 2 and 4 find >= 2 and are ECT; 3 is not.
        assert_eq!(ce, vec![false, false, true, false, true]);
        assert_eq!((log.marks, log.packets), (2, 0));
    }
}

#[cfg(test)]
mod audit_tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::PacketKind;

    #[test]
    fn the_auditor_sees_an_overfull_queue() {
        let mut q = DropTail::new(Limit::Packets(2));
        let b = |n: u32| Backlog {
            packets: n,
            bytes: n as u64 * 100,
        };
        assert!(q.audit(b(2)).is_ok());
        // On the fast path the link passes its own FIFO's occupancy.
        let e = q.audit(b(3)).unwrap_err();
        assert!(e.contains("3 packets") && e.contains("Packets(2)"), "{e}");
        // On the scheduled path the queue's storage: bypass admission to overfill it.
        for _ in 0..3 {
            let p = Packet::test(FlowId(0), PacketKind::Data, 100);
            q.backlog.add(&p);
            q.q.push_back(p);
        }
        assert!(q.audit(q.backlog()).is_err());
        assert!(Limit::Bytes(300).holds(&b(3)) && !Limit::Bytes(299).holds(&b(3)));
        assert!(Limit::Unlimited.holds(&b(u32::MAX)));
    }
}

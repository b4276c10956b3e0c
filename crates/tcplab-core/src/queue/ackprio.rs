//! Ack priority at an end host (seed 000, Kalampoukas, Varma & Ramakrishnan 1997, §4).
//!
//! Pure acks (segments without payload) and data wait in two FIFOs. When the link becomes
//! free the oldest ack is sent if any ack waits, otherwise the oldest data segment:
//! strict, **non-preemptive** priority (the segment in transmission is never interrupted;
//! that is the link's job, which only asks for the next packet once it is idle).
//! The capacity limit is shared by both queues. Closed forms: eqs. 4.1–4.5 in
//! `analysis::kalampoukas97`.

use super::{Backlog, DataAckQueues, Limit, QueueCx, QueueDisc};
use crate::config::ScenarioError;
use crate::packet::Packet;
use crate::queue::LimitSpec;
use schemars::JsonSchema;
use serde::Deserialize;

/// `queue = { type = "ackprio", … }`: pure acks first, non-preemptive; one shared limit.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AckPrioSpec {
    /// Shared capacity: packets, bytes or "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
}

impl AckPrioSpec {
    pub fn build(&self, field: &str) -> Result<AckPriority, ScenarioError> {
        Ok(AckPriority::new(
            self.limit.to_limit(&format!("{field}.limit"))?,
        ))
    }
}

pub struct AckPriority {
    q: DataAckQueues,
}

impl AckPriority {
    pub fn new(limit: Limit) -> Self {
        AckPriority {
            q: DataAckQueues::new(limit),
        }
    }
}

impl QueueDisc for AckPriority {
    fn audit(&self, _waiting: Backlog) -> Result<(), String> {
        self.q.audit()
    }
    fn name(&self) -> &'static str {
        "ackprio"
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        self.q.enqueue(pkt, cx);
    }
    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let ack = !self.q.acks.is_empty();
        self.q.pop(ack)
    }
    fn backlog(&self) -> Backlog {
        self.q.backlog
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.for_each_packet(f)
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
    fn acks_first_then_data_each_in_fifo_order() {
        let mut q = AckPriority::new(Limit::Unlimited);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for (seq, kind) in [
            PacketKind::Data,
            PacketKind::Ack,
            PacketKind::Data,
            PacketKind::Ack,
        ]
        .into_iter()
        .enumerate()
        {
            let mut p = Packet::test(
                FlowId(0),
                kind,
                if kind == PacketKind::Data { 1500 } else { 40 },
            );
            p.seq = seq as u64;
            q.enqueue(p, &mut cx);
        }
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(&mut cx).map(|p| p.seq)).collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
        assert_eq!(q.backlog(), Backlog::default());
    }

    #[test]
    fn shared_limit_drops_either_kind() {
        let mut q = AckPriority::new(Limit::Packets(2));
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1500), &mut cx);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, 40), &mut cx);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, 40), &mut cx);
        assert_eq!(q.backlog().packets, 2);
        assert_eq!((log.packets, log.data_packets), (1, 0));
    }
}

//! Connection-level bandwidth allocation between data and acks at an end host (seed 000,
//! Kalampoukas, Varma & Ramakrishnan 1997, §6 and Figure 6.1).
//!
//! Data and pure acks wait in two FIFOs. Each time the link becomes free a byte-counter
//! scheduler picks one of them so that, while both are backlogged, data gets a fraction
//! `f` of the link's bytes. Figure 6.1 prints the `f = 1/2` case; a general `f` weighs every
//! ack byte by `w = f/(1 − f)` ("to guarantee 80% … the ack counter must be multiplied by a
//! factor of four"). Between two data packets about `γ = (1 − f)·β/f` acks are sent (6.1).
//!
//! To keep the accounting exact for any `f` (the paper blames its small 50 % discrepancy on
//! rounding), both counters are integers scaled by the common denominator: a data byte adds
//! `(1 − f)·S` and an ack byte adds `f·S` with `S = 10⁶`, which compares exactly like
//! `data_bytes` against `w · ack_bytes`:
//!
//! ```text
//! only data waiting:  ack_cnt = 0; data_cnt = size(d)·(1−f)S; send d
//! only acks waiting:  data_cnt = 0; ack_cnt = size(a)·fS;     send a
//! both waiting:
//!   if ack_cnt >= data_cnt: send d; data_cnt += size(d)·(1−f)S
//!                           if data_cnt > ack_cnt: data_cnt −= ack_cnt; ack_cnt = 0
//!   else:                   send a; ack_cnt += size(a)·fS
//!                           if ack_cnt > data_cnt: ack_cnt −= data_cnt; data_cnt = 0
//! ```
//!
//! The capacity limit is shared by both queues. Closed forms: eqs. 6.1–6.5 in
//! `analysis::kalampoukas97`.

use super::{Backlog, DataAckQueues, Limit, QueueCx, QueueDisc};
use crate::config::ScenarioError;
use crate::queue::LimitSpec;
use schemars::JsonSchema;
use serde::Deserialize;

fn default_data_fraction() -> f64 {
    0.5
}

/// `queue = { type = "bwalloc", … }`: separate data and ack queues and a byte-counter
/// scheduler that guarantees data the fraction `data_fraction` (f) of the link while both
/// queues are backlogged (seed 000 §6, Fig. 6.1).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BwallocSpec {
    /// Shared capacity: packets, bytes or "unlimited"; default 1000 packets.
    #[serde(default = "crate::queue::default_limit")]
    pub limit: LimitSpec,
    /// f in (0, 1); the paper's default is 0.5.
    #[serde(default = "default_data_fraction")]
    pub data_fraction: f64,
}

impl BwallocSpec {
    pub fn build(&self, field: &str) -> Result<BandwidthAllocation, ScenarioError> {
        let limit = self.limit.to_limit(&format!("{field}.limit"))?;
        let f = self.data_fraction;
        if !(f > 0.0 && f < 1.0) {
            return Err(ScenarioError::new(
                format!("{field}.data_fraction"),
                format!("must be strictly between 0 and 1, got {f}"),
            ));
        }
        Ok(BandwidthAllocation::new(limit, f))
    }
}
use crate::packet::Packet;

/// Resolution of `f`: counters move in units of 1/SCALE byte.
const SCALE: u64 = 1_000_000;

pub struct BandwidthAllocation {
    q: DataAckQueues,
    /// Weight of one data byte, `(1 − f)·SCALE`, and of one ack byte, `f·SCALE`.
    data_weight: u64,
    ack_weight: u64,
    data_cnt: u64,
    ack_cnt: u64,
}

impl BandwidthAllocation {
    /// `data_fraction` is `f`, strictly between 0 and 1 (validated by the scenario layer).
    pub fn new(limit: Limit, data_fraction: f64) -> Self {
        assert!(
            data_fraction > 0.0 && data_fraction < 1.0,
            "data fraction must be in (0, 1)"
        );
        let ack_weight = ((data_fraction * SCALE as f64).round() as u64).clamp(1, SCALE - 1);
        BandwidthAllocation {
            q: DataAckQueues::new(limit),
            data_weight: SCALE - ack_weight,
            ack_weight,
            data_cnt: 0,
            ack_cnt: 0,
        }
    }

    /// The data fraction `f` as configured (after rounding to 1e-6).
    pub fn data_fraction(&self) -> f64 {
        self.ack_weight as f64 / SCALE as f64
    }
}

impl QueueDisc for BandwidthAllocation {
    fn audit(&self, _waiting: Backlog) -> Result<(), String> {
        self.q.audit()
    }
    fn name(&self) -> &'static str {
        "bwalloc"
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCx) {
        self.q.enqueue(pkt, cx);
    }
    #[inline]
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        let (data, acks) = (!self.q.data.is_empty(), !self.q.acks.is_empty());
        // Which queue to serve, and the counter update of Fig 6.1 for that choice.
        let send_ack = match (data, acks) {
            (false, false) => return None,
            (true, false) => {
                self.ack_cnt = 0;
                self.data_cnt = 0;
                false
            }
            (false, true) => {
                self.data_cnt = 0;
                self.ack_cnt = 0;
                true
            }
            (true, true) => self.ack_cnt < self.data_cnt,
        };
        let p = self.q.pop(send_ack).unwrap();
        if send_ack {
            self.ack_cnt += p.size as u64 * self.ack_weight;
            if self.ack_cnt > self.data_cnt {
                self.ack_cnt -= self.data_cnt;
                self.data_cnt = 0;
            }
        } else {
            self.data_cnt += p.size as u64 * self.data_weight;
            if self.data_cnt > self.ack_cnt {
                self.data_cnt -= self.ack_cnt;
                self.ack_cnt = 0;
            }
        }
        Some(p)
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

    /// Keep both queues backlogged and return the data share of the bytes sent.
    fn data_share(f: f64, data_size: u32, ack_size: u32, sends: usize) -> f64 {
        let mut q = BandwidthAllocation::new(Limit::Unlimited, f);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        let (mut data_bytes, mut all) = (0u64, 0u64);
        for _ in 0..sends {
            while q.q.data.len() < 2 {
                q.enqueue(
                    Packet::test(FlowId(0), PacketKind::Data, data_size),
                    &mut cx,
                );
            }
            while q.q.acks.len() < 2 {
                q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, ack_size), &mut cx);
            }
            let p = q.dequeue(&mut cx).unwrap();
            all += p.size as u64;
            if p.is_data() {
                data_bytes += p.size as u64;
            }
        }
        data_bytes as f64 / all as f64
    }

    #[test]
    fn figure_6_1_halves_the_link_when_both_queues_are_backlogged() {
        // 256-B data vs 28-B acks: not a multiple, the counters still balance exactly.
        let s = data_share(0.5, 256, 28, 100_000);
        assert!((s - 0.5).abs() < 1e-3, "share {s}");
    }

    #[test]
    fn any_fraction_is_met_whatever_the_sizes() {
        for &f in &[0.1, 0.18, 0.5, 0.8, 0.95] {
            for &(d, a) in &[(1500, 28), (256, 28), (512, 40), (40, 1500), (1500, 9)] {
                let s = data_share(f, d, a, 200_000);
                // One packet of slack over the run at most.
                assert!((s - f).abs() < 0.01, "f={f} data={d} ack={a}: share {s}");
            }
        }
    }

    #[test]
    fn lone_queue_is_served_and_resets_counters() {
        let mut q = BandwidthAllocation::new(Limit::Unlimited, 0.5);
        let mut rng = SimRng::derive(0, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
        for _ in 0..3 {
            q.enqueue(Packet::test(FlowId(0), PacketKind::Ack, 40), &mut cx);
        }
        for _ in 0..3 {
            assert!(!q.dequeue(&mut cx).unwrap().is_data());
        }
        assert!(q.dequeue(&mut cx).is_none());
        assert_eq!(q.data_cnt, 0);
        q.enqueue(Packet::test(FlowId(0), PacketKind::Data, 1000), &mut cx);
        assert!(q.dequeue(&mut cx).unwrap().is_data());
        assert_eq!(q.ack_cnt, 0);
    }
}

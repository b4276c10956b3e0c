//! CHOKe (CHOose and Keep for responsive flows, CHOose and Kill for unresponsive flows) over
//! RED, and seed 002's CHOKe/RED-I.
//!
//! References: R. Pan, B. Prabhakar, K. Psounis, "CHOKe, A Stateless Active Queue Management
//! Scheme for Approximating Fair Bandwidth Allocation", IEEE Infocom 2000 (PPP00), §II and
//! its flow chart; seed 002 (Kamra, Misra, Towsley) §2: "a CHOKe [PPP00] like mechanism. At
//! periodic intervals, an incoming packet is matched with a random packet in the buffer, a
//! match is successful if the two packets belong to the same flow. The packet is dropped on
//! a successful match" and "CHOKE (for the drops) and RED with Instantaneous queue (for the
//! ECN marks)" (seed 002).
//!
//! Per arrival `p` (q = packets waiting, not counting the one in transmission):
//! 1. RED's average: `avg ← (1 − w_q)·avg + w_q·q` (RED-I: `avg = q`), see `queue/red.rs`.
//! 2. A CHOKe check happens if q > 0, `avg ≥ min_th` (`check_from = "min_th"`, PPP00) or
//!    always (`"nonempty"`), the check is due (`check = "arrival"`: every such arrival,
//!    PPP00; `"periodic"`: the first such arrival in each interval `[k·T, (k+1)·T)`,
//!    `T = period`, seed 002), and a draw with probability `check_prob` succeeds.
//! 3. Check: `v` = a packet drawn uniformly from the q waiting ones. If `flow(v) =
//!    flow(p)`: drop `p` (reason `choke`) and, with `drop_both`, `v` too (reason `choke`,
//!    PPP00: "drop both matched packets"; seed 002 drops the arrival only). Done.
//! 4. Otherwise RED decides as usual: full buffer → drop (`overflow`); `avg < min_th` →
//!    admit; ramp `p_b` (count spacing optional) → mark/drop (`early`); `avg ≥ max_th` (gentle:
//!    `2·max_th`) → mark/drop (`forced`). Marks are CE on ECT packets (RFC 3168); with
//!    `mark_to_drop = p_bern` a mark is replaced by a drop with probability `p_bern`.
//!
//! A CHOKe match always drops (never marks): CHOKe is the loss feedback, RED the marks.
//! With one flow holding a share `s` of the queue, a check matches with probability `s`.
//!
//! Storage: a `VecDeque` of slots; an evicted packet leaves a hole (`None`), skipped at
//! dequeue and redrawn if the random pick lands on it, and the deque is compacted when the
//! holes outnumber the packets (amortised O(1) per eviction, no shifting of 4000 packets).
//!
//! Which path: the FIFO fast path computes every packet's departure and far-end arrival
//! when it is admitted and hands it to the pipe at once, so removing a queued packet would
//! mean moving every later packet's departure earlier (and redoing their wire-loss draws
//! and captures). With `drop_both` CHOKe therefore runs like the dequeue-time disciplines:
//! two events per packet per hop (transmission end and arrival) instead of one. Without it
//! (seed 002's variant) a check drops only the arrival, so CHOKe decides at admission and
//! takes the fast path ([`QueueDisc::admit`]); the link names the waiting packets' flows
//! ([`QueueCx::waiting_flow`]) and the draw is the one [`Choke::pick`] makes, so both paths
//! give the same drops, marks and departures (tested in `net/link.rs`).

use super::{Backlog, DropReason, QueueCx, QueueDisc, Red};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::packet::Packet;
use crate::time::{Rate, SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// When CHOKe compares an arrival with a queued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckSpec {
    /// Every eligible arrival (PPP00).
    Arrival,
    /// The first eligible arrival in each interval of length `period` (seed 002).
    Periodic,
}

/// Which arrivals are eligible for a CHOKe check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckFrom {
    /// RED's average queue at or above `min_th` (PPP00).
    MinTh,
    /// Any arrival that finds a packet waiting (our reading of seed 002).
    Nonempty,
}

fn default_period() -> DurationValue {
    DurationValue(SimDuration::from_secs(1))
}
fn one() -> f64 {
    1.0
}
fn default_true() -> bool {
    true
}
fn check_arrival() -> CheckSpec {
    CheckSpec::Arrival
}
fn check_periodic() -> CheckSpec {
    CheckSpec::Periodic
}
fn from_min_th() -> CheckFrom {
    CheckFrom::MinTh
}
fn from_nonempty() -> CheckFrom {
    CheckFrom::Nonempty
}

/// `queue = { type = "choke", … }`: CHOKe as PPP00 defines it, over RED on the averaged
/// queue (every RED key applies, with RED's defaults).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChokeSpec {
    /// Physical buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited".
    #[serde(default = "crate::queue::default_limit")]
    pub limit: crate::queue::LimitSpec,
    /// Lower threshold on the average queue, in packets (CHOKe checks start here).
    pub min_th: f64,
    /// Upper threshold on the average queue, in packets.
    pub max_th: f64,
    /// RED's signal probability at `max_th` (default 0.1).
    #[serde(default = "super::red::default_max_p")]
    pub max_p: f64,
    /// RED's EWMA weight in (0, 1], or "auto" = 1 − exp(−1/C); default 0.002.
    #[serde(default = "super::red::default_weight")]
    pub w_q: super::red::WeightSpec,
    /// RED's gentle ramp from `max_p` to 1 between `max_th` and `2·max_th`.
    #[serde(default)]
    pub gentle: bool,
    /// RED's count-based spacing; default true.
    #[serde(default = "default_true")]
    pub count_spacing: bool,
    /// RED marks ECN-capable packets instead of dropping them; default true.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Drop even ECN-capable packets in RED's forced region.
    #[serde(default)]
    pub forced_drop: bool,
    /// Probability that a RED mark is replaced by a drop (seed 002's Bernoulli AQM losses).
    #[serde(default)]
    pub mark_to_drop: f64,
    /// Packet size (bytes) for the idle-time decay and "auto" w_q; default 1000.
    #[serde(default = "super::red::default_mean_packet")]
    pub mean_packet_size: u32,
    /// "arrival" (default, PPP00: every eligible arrival) or "periodic" (one check per
    /// `period`, seed 002).
    #[serde(default = "check_arrival")]
    pub check: CheckSpec,
    /// Interval of the periodic checks; default 1 s.
    #[serde(default = "default_period")]
    pub period: DurationValue,
    /// Probability that a due check is made; default 1.
    #[serde(default = "one")]
    pub check_prob: f64,
    /// Which arrivals may be checked: "min_th" (default, PPP00: average ≥ min_th) or
    /// "nonempty" (any arrival that finds a packet waiting).
    #[serde(default = "from_min_th")]
    pub check_from: CheckFrom,
    /// On a match drop the queued packet as well as the arrival; default true (PPP00).
    #[serde(default = "default_true")]
    pub drop_both: bool,
}

/// `queue = { type = "choke_red_i", … }`: seed 002's CHOKe/RED-I: RED-I's marking ramp on
/// the instantaneous queue, CHOKe drops at periodic intervals, the arrival only.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChokeRedISpec {
    /// Physical buffer: packets (100 or "100p"), bytes ("64KiB") or "unlimited".
    #[serde(default = "crate::queue::default_limit")]
    pub limit: crate::queue::LimitSpec,
    /// Lower threshold on the queue, in packets.
    pub min_th: f64,
    /// Upper threshold on the queue, in packets.
    pub max_th: f64,
    /// Mark probability at `max_th` (default 1).
    #[serde(default = "super::red::default_max_p_i")]
    pub max_p: f64,
    /// Ramp from `max_p` to 1 between `max_th` and `2·max_th`.
    #[serde(default)]
    pub gentle: bool,
    /// Count-based spacing of marks; default false.
    #[serde(default)]
    pub count_spacing: bool,
    /// Mark ECN-capable packets instead of dropping them; default true.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// Drop even ECN-capable packets in the forced region.
    #[serde(default)]
    pub forced_drop: bool,
    /// Probability that a mark is replaced by a drop.
    #[serde(default)]
    pub mark_to_drop: f64,
    /// "periodic" (default, seed 002) or "arrival" (every eligible arrival, PPP00).
    #[serde(default = "check_periodic")]
    pub check: CheckSpec,
    /// Interval of the periodic checks; default 1 s (seed 002 gives none).
    #[serde(default = "default_period")]
    pub period: DurationValue,
    /// Probability that a due check is made; default 1.
    #[serde(default = "one")]
    pub check_prob: f64,
    /// "nonempty" (default: any arrival that finds a packet waiting) or "min_th".
    #[serde(default = "from_nonempty")]
    pub check_from: CheckFrom,
    /// On a match drop the queued packet too; default false (seed 002: "The packet is
    /// dropped"; PPP00 drops both).
    #[serde(default)]
    pub drop_both: bool,
}

/// CHOKe's own settings after validation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChokeConfig {
    /// `None`: every eligible arrival; `Some(T)`: the first in each interval of length T.
    pub period: Option<SimDuration>,
    pub check_prob: f64,
    pub check_from: CheckFrom,
    pub drop_both: bool,
    /// Reported as "choke_red_i".
    pub instantaneous: bool,
}

impl ChokeConfig {
    fn build(
        field: &str,
        check: CheckSpec,
        period: DurationValue,
        check_prob: f64,
        check_from: CheckFrom,
        drop_both: bool,
        instantaneous: bool,
    ) -> Result<Self, ScenarioError> {
        if !(check_prob > 0.0 && check_prob <= 1.0) {
            return Err(ScenarioError::new(
                format!("{field}.check_prob"),
                format!("must be in (0, 1], got {check_prob}"),
            ));
        }
        let period = match check {
            CheckSpec::Arrival => None,
            CheckSpec::Periodic => {
                if period.0 == SimDuration::ZERO {
                    return Err(ScenarioError::new(
                        format!("{field}.period"),
                        "must be positive",
                    ));
                }
                Some(period.0)
            }
        };
        Ok(ChokeConfig {
            period,
            check_prob,
            check_from,
            drop_both,
            instantaneous,
        })
    }
}

impl ChokeSpec {
    /// Validate (`field` = `links.NAME.queue`) for a link of rate `rate` and propagation
    /// delay `delay_s` seconds.
    pub fn build(&self, field: &str, rate: Rate, delay_s: f64) -> Result<Choke, ScenarioError> {
        let red = super::red::RedSpec {
            limit: self.limit,
            min_th: self.min_th.into(),
            max_th: self.max_th.into(),
            target_delay: super::red::default_target_delay(),
            max_p: self.max_p,
            w_q: self.w_q,
            gentle: self.gentle,
            count_spacing: self.count_spacing,
            ecn: self.ecn,
            forced_drop: self.forced_drop,
            mark_to_drop: self.mark_to_drop,
            mean_packet_size: self.mean_packet_size,
            min_waiting: 0,
            restart_count: false,
            wait_spacing: false,
            queue_in_bytes: false,
            byte_drop: false,
            mark_p: 1.0,
        }
        .build(field, rate, delay_s)?;
        let cfg = ChokeConfig::build(
            field,
            self.check,
            self.period,
            self.check_prob,
            self.check_from,
            self.drop_both,
            false,
        )?;
        Ok(Choke::new(red, cfg))
    }
}

impl ChokeRedISpec {
    /// Validate (`field` = `links.NAME.queue`).
    pub fn build(&self, field: &str) -> Result<Choke, ScenarioError> {
        let red = super::red::RedISpec {
            limit: self.limit,
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            gentle: self.gentle,
            count_spacing: self.count_spacing,
            ecn: self.ecn,
            forced_drop: self.forced_drop,
            mark_to_drop: self.mark_to_drop,
        }
        .build(field)?;
        let cfg = ChokeConfig::build(
            field,
            self.check,
            self.period,
            self.check_prob,
            self.check_from,
            self.drop_both,
            true,
        )?;
        Ok(Choke::new(red, cfg))
    }
}

pub struct Choke {
    /// RED's state and decisions (its own storage stays empty).
    red: Red,
    cfg: ChokeConfig,
    /// Waiting packets in arrival order; `None` = evicted by a match (a hole).
    q: VecDeque<Option<Packet>>,
    /// Holes in `q`.
    holes: u32,
    /// Packets waiting (holes not counted).
    backlog: Backlog,
    /// Periodic checks: none before this time.
    next_check: SimTime,
    /// CHOKe comparisons made and matches found (summary `choke_checks`, `choke_matches`).
    pub checks: u64,
    pub matches: u64,
}

impl Choke {
    pub fn new(red: Red, cfg: ChokeConfig) -> Self {
        Choke {
            red,
            cfg,
            q: VecDeque::new(),
            holes: 0,
            backlog: Backlog::default(),
            next_check: SimTime::ZERO,
            checks: 0,
            matches: 0,
        }
    }
    /// RED's configuration underneath.
    pub fn red(&self) -> &Red {
        &self.red
    }
    pub fn config(&self) -> &ChokeConfig {
        &self.cfg
    }

    /// Data segments waiting (tests of the link's accounting).
    #[cfg(test)]
    pub(crate) fn data_waiting(&self) -> u64 {
        self.q.iter().flatten().filter(|p| p.is_data()).count() as u64
    }

    /// Whether an arrival at `now` finding `q` packets waiting gets a CHOKe check (draws
    /// `check_prob` only for eligible, due arrivals).
    #[inline]
    fn check_due(&mut self, q: u32, cx: &mut QueueCx) -> bool {
        if q == 0 {
            return false;
        }
        if self.cfg.check_from == CheckFrom::MinTh && self.red.avg() < self.red.config().min_th {
            return false;
        }
        if let Some(t) = self.cfg.period {
            if cx.now < self.next_check {
                return false;
            }
            // One check per interval [k·T, (k+1)·T): the next interval starts after now.
            let k = cx.now.0 / t.0 + 1;
            self.next_check = SimTime(k.saturating_mul(t.0));
        }
        self.cfg.check_prob >= 1.0 || cx.rng.bernoulli(self.cfg.check_prob)
    }

    /// A uniformly random waiting packet's slot index (holes are redrawn).
    #[inline]
    fn pick(&mut self, cx: &mut QueueCx) -> usize {
        loop {
            let i = cx.rng.below(self.q.len() as u64) as usize;
            if self.q[i].is_some() {
                return i;
            }
        }
    }

    /// Remove slot `i`'s packet (a match): count it as a `choke` drop and leave a hole.
    fn evict(&mut self, i: usize, cx: &mut QueueCx) {
        let v = self.q[i].take().expect("evicting a hole");
        self.backlog.remove(&v);
        self.holes += 1;
        cx.drop(v, DropReason::Choke);
        while let Some(None) = self.q.back() {
            self.q.pop_back();
            self.holes -= 1;
        }
        if self.holes > self.backlog.packets && self.holes > 64 {
            self.q.retain(|s| s.is_some());
            self.holes = 0;
        }
    }
}

impl QueueDisc for Choke {
    fn audit(&self, waiting: Backlog) -> Result<(), String> {
        super::audit_limit(&self.red.config().limit, waiting)?;
        self.red.audit_state()?;
        if self.q.len() as u64 != self.backlog.packets as u64 + self.holes as u64 {
            return Err(format!(
                "CHOKe's queue has {} slots != {} packets + {} holes",
                self.q.len(),
                self.backlog.packets,
                self.holes
            ));
        }
        Ok(())
    }
    fn name(&self) -> &'static str {
        if self.cfg.instantaneous {
            "choke_red_i"
        } else {
            "choke"
        }
    }
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCx) {
        let waiting = self.backlog;
        self.red.update_avg(waiting.packets as f64, cx);
        if self.check_due(waiting.packets, cx) {
            self.checks += 1;
            let i = self.pick(cx);
            let v = self.q[i].as_ref().expect("picked a packet");
            if v.flow == pkt.flow {
                self.matches += 1;
                cx.drop(pkt, DropReason::Choke);
                if self.cfg.drop_both {
                    self.evict(i, cx);
                }
                return;
            }
        }
        if self.red.decide(&mut pkt, waiting, cx) {
            self.backlog.add(&pkt);
            self.q.push_back(Some(pkt));
        }
    }
    fn dequeue(&mut self, _cx: &mut QueueCx) -> Option<Packet> {
        loop {
            match self.q.pop_front()? {
                Some(p) => {
                    self.backlog.remove(&p);
                    return Some(p);
                }
                None => self.holes -= 1,
            }
        }
    }
    fn backlog(&self) -> Backlog {
        self.backlog
    }
    /// Without `drop_both` a check drops only the arrival: CHOKe then decides at admission
    /// and runs on the link's fast path (one event per packet instead of two).
    fn admission_only(&self) -> bool {
        !self.cfg.drop_both
    }
    /// Steps 1-4 above with the link holding the packets: the compared packet is the
    /// `i`-th waiting one, `i` drawn exactly as [`Choke::pick`] draws it from a queue
    /// without holes, so both paths make the same draws and decisions.
    fn admit(&mut self, pkt: &mut Packet, waiting: Backlog, cx: &mut QueueCx) -> bool {
        debug_assert!(!self.cfg.drop_both);
        self.red.update_avg(waiting.packets as f64, cx);
        if self.check_due(waiting.packets, cx) {
            self.checks += 1;
            let i = cx.rng.below(waiting.packets as u64) as u32;
            let flow = cx
                .waiting_flow(i)
                .expect("a link's fast path names the waiting packets' flows");
            if flow == pkt.flow {
                self.matches += 1;
                cx.drop(*pkt, DropReason::Choke);
                return false;
            }
        }
        self.red.decide(pkt, waiting, cx)
    }
    fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        self.q.iter().flatten().for_each(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::{flags, PacketKind};
    use crate::queue::red::RedConfig;
    use crate::queue::{DropLog, Limit};
    use crate::rng::{SimRng, Stream};

    fn red_i(min_th: f64, max_th: f64) -> Red {
        Red::new(RedConfig {
            limit: Limit::Packets(100_000),
            min_th,
            max_th,
            max_p: 1.0,
            w_q: 1.0,
            gentle: false,
            count_spacing: false,
            ecn: true,
            forced_drop: false,
            mark_to_drop: 0.0,
            mean_packet_size: 1000,
            instantaneous: true,
        })
    }

    fn arrival_cfg(drop_both: bool) -> ChokeConfig {
        ChokeConfig {
            period: None,
            check_prob: 1.0,
            check_from: CheckFrom::MinTh,
            drop_both,
            instantaneous: true,
        }
    }

    fn pkt(flow: usize, seq: u64) -> Packet {
        let mut p = Packet::test(FlowId::from_index(flow), PacketKind::Data, 1000);
        p.seq = seq;
        p.flags |= flags::ECT;
        p
    }

    /// Fill `c` with `n` packets, every `period`-th one of flow 0 (the rest flows 1, 2, …).
    fn fill(c: &mut Choke, n: u64, share_den: u64, rng: &mut SimRng, log: &mut DropLog) {
        for i in 0..n {
            let flow = if i % share_den == 0 {
                0
            } else {
                1 + i as usize
            };
            let mut cx = QueueCx::new(SimTime::ZERO, rng, log);
            c.enqueue(pkt(flow, i), &mut cx);
        }
    }

    #[test]
    fn match_probability_is_the_flows_share_of_the_queue() {
        // The queue holds 1000 packets, every 4th of flow 0 and each other one of a flow of
        // its own; thresholds far above, so RED never signals. An arrival of flow 0
        // matches with probability s = 1/4 (drop_both = false keeps the queue as it is; an
        // admitted arrival is taken off the tail again).
        let mut c = Choke::new(red_i(0.0, 1e9), arrival_cfg(false));
        c.cfg.check_from = CheckFrom::Nonempty;
        for i in 0..1000u64 {
            let p = pkt(if i % 4 == 0 { 0 } else { 1 + i as usize }, i);
            c.backlog.add(&p);
            c.q.push_back(Some(p));
        }
        let s = 0.25;
        let mut rng = SimRng::derive(5, Stream::Queue, 0);
        let mut log = DropLog::default();
        let n = 40_000;
        for i in 0..n {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            c.enqueue(pkt(0, 10_000 + i), &mut cx);
            if c.q.len() > 1000 {
                let p = c.q.pop_back().unwrap().unwrap();
                c.backlog.remove(&p);
            }
        }
        assert_eq!(c.checks, n);
        let got = c.matches as f64 / n as f64;
        let sd = (s * (1.0 - s) / n as f64).sqrt();
        assert!((got - s).abs() < 4.0 * sd, "match rate {got}, share {s}");
        assert_eq!(log.by_reason[DropReason::Choke.index()], c.matches);
        // Arrivals of flows with nothing queued never match.
        let m = c.matches;
        for i in 0..1000 {
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            c.enqueue(pkt(100_000 + i, 0), &mut cx);
        }
        assert_eq!(c.matches, m);
    }

    #[test]
    fn drop_both_removes_the_matched_queued_packet_and_keeps_the_accounting() {
        // Two flows alternate into a queue that RED never signals on; every check compares.
        let mut c = Choke::new(red_i(0.0, 1e9), arrival_cfg(true));
        c.cfg.check_from = CheckFrom::Nonempty;
        let mut rng = SimRng::derive(9, Stream::Queue, 0);
        let mut log = DropLog::default();
        let mut offered = 0u64;
        let mut served = Vec::new();
        for round in 0..2000u64 {
            for f in 0..2 {
                let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
                c.enqueue(pkt(f, round * 2 + f as u64), &mut cx);
                offered += 1;
            }
            // Serve one packet per round: the queue grows, half the checks match.
            let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
            if let Some(p) = c.dequeue(&mut cx) {
                served.push(p.seq);
            }
        }
        let choke = log.by_reason[DropReason::Choke.index()];
        assert_eq!(choke, 2 * c.matches, "each match drops two packets");
        assert!(c.matches > 500, "{}", c.matches);
        let live = c.q.iter().flatten().count() as u64;
        assert_eq!(live, c.backlog().packets as u64);
        assert_eq!(c.q.len() as u64, live + c.holes as u64);
        assert_eq!(offered, served.len() as u64 + live + choke);
        assert_eq!(
            c.backlog().bytes,
            c.q.iter().flatten().map(|p| p.size as u64).sum::<u64>()
        );
        // FIFO order among the survivors.
        assert!(served.windows(2).all(|w| w[0] < w[1]));
        while c
            .dequeue(&mut QueueCx::new(SimTime::ZERO, &mut rng, &mut log))
            .is_some()
        {}
        assert_eq!(
            (c.backlog(), c.holes, c.q.len()),
            (Backlog::default(), 0, 0)
        );
    }

    #[test]
    fn without_a_match_red_i_decides() {
        // 200 packets of distinct flows waiting, RED-I ramp 100 … 300 (p_b = 0.5 at 200):
        // arrivals of fresh flows never match and are marked with probability p_b; with
        // mark_to_drop = 0.2 a fifth of those marks become drops instead.
        for m2d in [0.0, 0.2] {
            let mut red = red_i(100.0, 300.0);
            let mut rc = *red.config();
            rc.mark_to_drop = m2d;
            red = Red::new(rc);
            let mut c = Choke::new(red, arrival_cfg(true));
            for i in 0..200u64 {
                let p = pkt(1_000_000 + i as usize, i);
                c.backlog.add(&p);
                c.q.push_back(Some(p));
            }
            let mut rng = SimRng::derive(2, Stream::Queue, 0);
            let mut log = DropLog::default();
            let n = 20_000u64;
            let mut signalled = 0;
            for i in 0..n {
                let mut cx = QueueCx::new(SimTime::ZERO, &mut rng, &mut log);
                let before = (cx.drops.packets, cx.drops.marks);
                c.enqueue(pkt(i as usize, i), &mut cx);
                if (cx.drops.packets, cx.drops.marks) != before {
                    signalled += 1;
                }
                if c.q.len() > 200 {
                    let p = c.q.pop_back().unwrap().unwrap();
                    c.backlog.remove(&p);
                }
            }
            assert_eq!(c.matches, 0);
            let (p_b, frac) = (0.5, signalled as f64 / n as f64);
            let sd = (p_b * (1.0 - p_b) / n as f64).sqrt();
            assert!((frac - p_b).abs() < 4.0 * sd, "signalled {frac}");
            let m2d_drops = log.by_reason[DropReason::MarkToDrop.index()] as f64;
            assert_eq!(log.marks + m2d_drops as u64, signalled);
            let want = m2d * signalled as f64;
            let sd = (signalled as f64 * m2d * (1.0 - m2d)).sqrt();
            assert!(
                (m2d_drops - want).abs() <= 4.0 * sd,
                "{m2d_drops} vs {want}"
            );
        }
    }

    #[test]
    fn no_checks_below_min_th() {
        // RED-I with min_th 10: a single flow below 10 packets is never checked; above it
        // each arrival is checked (and, being the only flow, always matches).
        let mut c = Choke::new(red_i(10.0, 1e9), arrival_cfg(false));
        let mut rng = SimRng::derive(1, Stream::Queue, 0);
        let mut log = DropLog::default();
        fill(&mut c, 10, 1, &mut rng, &mut log);
        assert_eq!((c.checks, c.backlog().packets), (0, 10));
        fill(&mut c, 100, 1, &mut rng, &mut log);
        assert_eq!((c.checks, c.matches), (100, 100));
        assert_eq!(log.by_reason[DropReason::Choke.index()], 100);
        assert_eq!(c.backlog().packets, 10);
    }

    #[test]
    fn periodic_checks_once_per_interval() {
        let mut cfg = arrival_cfg(false);
        cfg.period = Some(SimDuration::from_ms(100));
        cfg.check_from = CheckFrom::Nonempty;
        let mut c = Choke::new(red_i(0.0, 1e9), cfg);
        let mut rng = SimRng::derive(1, Stream::Queue, 0);
        let mut log = DropLog::default();
        // One flow, an arrival every ms for 1 s: the first arrival finds the queue empty,
        // then one check (always a match) in each of the ten 100-ms intervals.
        for i in 0..1000u64 {
            let now = SimTime::ZERO + SimDuration::from_ms(i);
            let mut cx = QueueCx::new(now, &mut rng, &mut log);
            c.enqueue(pkt(0, i), &mut cx);
        }
        assert_eq!((c.checks, c.matches), (10, 10));
        assert_eq!(c.backlog().packets, 990);
    }

    #[test]
    fn choke_red_i_defaults_follow_seed_002() {
        let spec: ChokeRedISpec =
            serde_json::from_str(r#"{"min_th": 400, "max_th": 1200}"#).unwrap();
        let c = spec.build("links.bn.queue").unwrap();
        assert_eq!(c.name(), "choke_red_i");
        assert_eq!(c.config().period, Some(SimDuration::from_secs(1)));
        assert!(!c.config().drop_both);
        assert_eq!(c.config().check_from, CheckFrom::Nonempty);
        assert_eq!(c.red().config().w_q, 1.0);
        assert_eq!(c.red().config().max_p, 1.0);
        let spec: ChokeSpec = serde_json::from_str(r#"{"min_th": 5, "max_th": 15}"#).unwrap();
        let c = spec.build("q", Rate(1_000_000), 0.0).unwrap();
        assert_eq!((c.name(), c.config().period), ("choke", None));
        assert!(c.config().drop_both);
        assert_eq!(c.config().check_from, CheckFrom::MinTh);
        let bad: ChokeRedISpec =
            serde_json::from_str(r#"{"min_th": 400, "max_th": 1200, "check_prob": 0}"#).unwrap();
        let e = bad.build("links.bn.queue").err().unwrap();
        assert_eq!(e.field, "links.bn.queue.check_prob");
        let bad: ChokeRedISpec =
            serde_json::from_str(r#"{"min_th": 400, "max_th": 1200, "period": "0s"}"#).unwrap();
        assert_eq!(
            bad.build("links.bn.queue").err().unwrap().field,
            "links.bn.queue.period"
        );
    }
}

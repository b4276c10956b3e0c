//! Snoop: a TCP-aware agent on the base station between a wired and a wireless link.
//!
//! Reference: H. Balakrishnan, S. Seshan, E. Amir, R. H. Katz, "Improving TCP/IP
//! Performance over Wireless Networks", MobiCom 1995; seed 004's Snoop slides
//! Timer and cache values after ns-2's Snoop code (facts only).
//!
//! Rules (per TCP connection whose data leaves the base station on the `wireless` link):
//! - **data** from the fixed host heading out on the wireless link: forwarded; a segment
//!   beyond the highest one cached is also cached (a bounded ring of `cache` segments,
//!   allocated once per connection when its first segment passes; a full cache forwards
//!   without caching). Retransmissions from the fixed host and segments filling a gap are
//!   forwarded only. Choice: a segment that the base station's own wireless queue drops is
//!   not cached (`repair_queue_drops = false`): that loss is congestion at the base
//!   station, left to the sender as a loss before the base station is. With
//!   `repair_queue_drops = true` it is cached and repaired locally like a wireless loss;
//!   the sender then never sees the base station's congestion (measured: a NewReno
//!   connection over a clean 2 Mb/s hop with a 22-packet queue falls from 1.92 to 0.51
//!   Mb/s, its window growing into ever more local repairs).
//! - **new ack** from the mobile host (cumulative ack beyond the last one): the segments it
//!   covers leave the cache; a segment never retransmitted locally gives an RTT sample of the
//!   base station–mobile loop (`srtt`, `rttvar` as RFC 6298); the dupack count resets; the
//!   ack is forwarded.
//! - **duplicate ack**: if the first missing segment (`seq = ack`) is cached, a dupack
//!   whose echoed timestamp is later than that segment's (it was triggered by a segment the
//!   sender sent after the missing one) is counted; on the `rtx_thresh`-th the segment is
//!   retransmitted locally (once per loss; `rtx_thresh = 1`: the first dupack, Balakrishnan
//!   et al.), and that dupack and every later one for the same ack are suppressed (not
//!   forwarded), so the fixed host never fast-retransmits for a wireless loss the base
//!   station repairs; dupacks before the threshold are forwarded. Choice (ours): a dupack
//!   echoing an earlier or equal timestamp was triggered by a duplicate of an older segment
//!   (a local timer retransmission that was not needed), not by a loss of the head; it is
//!   forwarded and not counted. Without this test one unneeded retransmission feeds itself:
//!   its dupack triggers the next local retransmission of the (not lost) head, whose copy
//!   triggers the next dupack (measured on a clean 2 Mb/s hop: 1510 local retransmissions
//!   in 100 s). If the segment is not cached (lost on the wired side, dropped by the base
//!   station's queue, or the cache was full), the dupack is forwarded.
//! - **local timer**: while segments are cached, `max(srtt + 4·rttvar, min_timeout)` after
//!   the last new ack or local retransmission (`initial_timeout` before the first RTT
//!   sample); on expiry the first cached segment is retransmitted locally and the timeout
//!   doubles (up to 64×) until a new ack arrives.
//! - acks older than the last one are forwarded unchanged.
//!
//! Cost: a node without an agent pays one `Option` test per forwarded packet (`sim.rs`);
//! with one, O(1) per packet (the cache is in sequence order: appends, pops from the front,
//! a head lookup); the timer scans the connections only when it fires.

use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use crate::event::{FlowId, LinkId};
use crate::packet::{Packet, PacketKind};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

fn default_cache() -> u32 {
    100
}
fn default_rtx_thresh() -> u32 {
    1
}
fn default_min_timeout() -> DurationValue {
    DurationValue(SimDuration::from_ms(100))
}
fn default_initial_timeout() -> DurationValue {
    DurationValue(SimDuration::from_secs(1))
}

/// The largest `cache` accepted (segments per connection). A connection's ring is
/// allocated for at most [`RING_PREALLOC`] segments when its first segment passes and grows
/// (once, to the largest occupancy) beyond that: a `cache` of 2^32 − 1 once allocated 400 GB
/// up front (found by the `run_bounded` fuzz target, docs/reliability.md).
pub const MAX_CACHE: u32 = 1_000_000;
const RING_PREALLOC: usize = 1024;

/// `[agents.NAME] type = "snoop"`: a Snoop agent on the base station `node`.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnoopSpec {
    /// The base station (a node that forwards between the wired and the wireless side).
    pub node: String,
    /// The wireless link direction leaving `node` towards the mobile hosts.
    pub wireless: String,
    /// Segments cached per connection (default 100, ns-2's SNOOP_MAXWIND); 1 to 10^6.
    #[serde(default = "default_cache")]
    pub cache: u32,
    /// Duplicate acks that trigger a local retransmission (default 1: the first,
    /// Balakrishnan et al.; ns-2's snoop.cc waits for the second); ≥ 1.
    #[serde(default = "default_rtx_thresh")]
    pub rtx_thresh: u32,
    /// Lower bound of the local retransmission timeout (default "100ms", ns-2's snoopTick).
    #[serde(default = "default_min_timeout")]
    #[schemars(with = "String")]
    pub min_timeout: DurationValue,
    /// Local retransmission timeout before the first RTT sample (default "1s").
    #[serde(default = "default_initial_timeout")]
    #[schemars(with = "String")]
    pub initial_timeout: DurationValue,
    /// Also cache (and repair locally) segments that the base station's own wireless
    /// queue drops (default false: those are congestion, left to the sender).
    #[serde(default)]
    pub repair_queue_drops: bool,
}

impl SnoopSpec {
    /// Validate (`field` = `agents.NAME`); `wireless` is the resolved link id.
    pub fn build(
        &self,
        field: &str,
        wireless: LinkId,
        flows: usize,
    ) -> Result<Snoop, ScenarioError> {
        if self.cache == 0 {
            return Err(ScenarioError::new(
                format!("{field}.cache"),
                "must be at least 1 segment",
            ));
        }
        if self.cache > MAX_CACHE {
            return Err(ScenarioError::new(
                format!("{field}.cache"),
                format!(
                    "{} segments is more than {MAX_CACHE} (each cached segment holds its packet)",
                    self.cache
                ),
            ));
        }
        if self.rtx_thresh == 0 {
            return Err(ScenarioError::new(
                format!("{field}.rtx_thresh"),
                "must be at least 1 duplicate ack",
            ));
        }
        for (name, v) in [
            ("min_timeout", self.min_timeout),
            ("initial_timeout", self.initial_timeout),
        ] {
            if v.0 == SimDuration::ZERO {
                return Err(ScenarioError::new(
                    format!("{field}.{name}"),
                    "must be greater than zero",
                ));
            }
            // The local timer fires every timeout (×64 at most) while segments are cached.
            if let Some(m) = crate::time::timer_period_too_short(v.0) {
                return Err(ScenarioError::new(format!("{field}.{name}"), m));
            }
        }
        Ok(Snoop {
            wireless,
            cache: self.cache as usize,
            rtx_thresh: self.rtx_thresh,
            min_timeout: self.min_timeout.0,
            initial_timeout: self.initial_timeout.0,
            repair_queue_drops: self.repair_queue_drops,
            conns: (0..flows).map(|_| None).collect(),
            pending: None,
            stats: SnoopStats::default(),
        })
    }
}

/// Counters reported in summary.json (`agents`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    /// Data segments cached.
    pub cached: u64,
    /// Data segments forwarded without caching (cache full, or out of order).
    pub not_cached: u64,
    /// Local retransmissions triggered by duplicate acks.
    pub local_retransmits: u64,
    /// Local retransmissions by the timer.
    pub timer_retransmits: u64,
    /// Duplicate acks not forwarded to the fixed host.
    pub suppressed_dupacks: u64,
}

struct Cached {
    pkt: Packet,
    /// When it was last sent towards the mobile host (RTT samples).
    sent: SimTime,
    /// Sent again by the agent.
    local: bool,
}

/// One connection's state.
struct Conn {
    /// Segments in sequence order, at most `cache`.
    ring: VecDeque<Cached>,
    /// End of the highest segment seen (cached or not).
    high: u64,
    last_ack: u64,
    dupacks: u32,
    /// The hole `last_ack` has been retransmitted locally.
    repaired: bool,
    srtt: Option<f64>,
    rttvar: f64,
    backoff: u32,
    deadline: Option<SimTime>,
    /// Data segments the agent sent itself (local retransmissions) and acks it did not
    /// forward, for the auditor's per-flow segment accounting ([`Snoop::flow_accounting`]).
    local_sent: u64,
    suppressed: u64,
}

/// A Snoop agent (see the module documentation).
pub struct Snoop {
    wireless: LinkId,
    cache: usize,
    rtx_thresh: u32,
    min_timeout: SimDuration,
    initial_timeout: SimDuration,
    repair_queue_drops: bool,
    /// Per flow index: allocated when the flow's first segment leaves on `wireless`.
    conns: Vec<Option<Box<Conn>>>,
    /// The time of the `NodeTimer` event that is scheduled (the earliest asked for).
    pending: Option<SimTime>,
    pub stats: SnoopStats,
}

impl Snoop {
    pub fn wireless(&self) -> LinkId {
        self.wireless
    }

    /// `max(srtt + 4·rttvar, min_timeout)` (before a sample `initial_timeout`) × backoff.
    fn timeout(min_timeout: SimDuration, initial: SimDuration, c: &Conn) -> SimDuration {
        let base = match c.srtt {
            Some(s) => SimDuration::from_secs_f64(s + 4.0 * c.rttvar).max(min_timeout),
            None => initial,
        };
        base.saturating_mul(c.backoff as u64)
    }

    /// A packet passing through the base station. `next` = the link it leaves on. Packets
    /// to send (forwarded, or retransmitted locally) go to `out`, which says whether the
    /// outgoing queue kept the packet; returns a timer deadline to schedule (a `NodeTimer`
    /// event), if one is needed earlier than the pending one.
    pub fn on_forward(
        &mut self,
        now: SimTime,
        pkt: Packet,
        next: LinkId,
        out: &mut impl FnMut(Packet) -> bool,
    ) -> Option<SimTime> {
        let f = pkt.flow.index();
        match pkt.kind {
            PacketKind::Data if next == self.wireless && !pkt.has(crate::packet::flags::UDP) => {
                let kept = out(pkt);
                self.on_data(now, f, pkt, kept || self.repair_queue_drops);
            }
            PacketKind::Ack if self.conns.get(f).is_some_and(|c| c.is_some()) => {
                if self.on_ack(now, f, &pkt, out) {
                    out(pkt);
                } else {
                    self.stats.suppressed_dupacks += 1;
                    if let Some(c) = self.conns[f].as_deref_mut() {
                        c.suppressed += 1;
                    }
                }
            }
            _ => {
                out(pkt);
            }
        }
        self.want_timer(f)
    }

    fn on_data(&mut self, now: SimTime, f: usize, pkt: Packet, cache: bool) {
        let cap = self.cache;
        let conn = self.conns[f].get_or_insert_with(|| {
            Box::new(Conn {
                ring: VecDeque::with_capacity(cap.min(RING_PREALLOC)),
                high: pkt.seq,
                last_ack: pkt.seq,
                dupacks: 0,
                repaired: false,
                srtt: None,
                rttvar: 0.0,
                backoff: 1,
                deadline: None,
                local_sent: 0,
                suppressed: 0,
            })
        });
        let end = pkt.seq + pkt.len as u64;
        if cache && pkt.seq >= conn.high && end > conn.last_ack && conn.ring.len() < cap {
            conn.ring.push_back(Cached {
                pkt,
                sent: now,
                local: false,
            });
            self.stats.cached += 1;
        } else {
            self.stats.not_cached += 1;
        }
        conn.high = conn.high.max(end);
        if conn.deadline.is_none() && !conn.ring.is_empty() {
            conn.deadline = Some(now + Self::timeout(self.min_timeout, self.initial_timeout, conn));
        }
    }

    /// Returns whether the ack is forwarded.
    fn on_ack(
        &mut self,
        now: SimTime,
        f: usize,
        pkt: &Packet,
        out: &mut impl FnMut(Packet) -> bool,
    ) -> bool {
        let (rtx_thresh, min_t, init_t) = (self.rtx_thresh, self.min_timeout, self.initial_timeout);
        let c = self.conns[f].as_deref_mut().unwrap();
        if pkt.ack > c.last_ack {
            let mut sample = None;
            while let Some(h) = c.ring.front() {
                if h.pkt.seq + h.pkt.len as u64 > pkt.ack {
                    break;
                }
                let h = c.ring.pop_front().unwrap();
                sample = (!h.local).then(|| now.since(h.sent).as_secs_f64());
            }
            if let Some(r) = sample {
                // RFC 6298 (α = 1/8, β = 1/4).
                match c.srtt {
                    None => {
                        c.srtt = Some(r);
                        c.rttvar = r / 2.0;
                    }
                    Some(s) => {
                        c.rttvar = 0.75 * c.rttvar + 0.25 * (s - r).abs();
                        c.srtt = Some(0.875 * s + 0.125 * r);
                    }
                }
            }
            c.last_ack = pkt.ack;
            c.dupacks = 0;
            c.repaired = false;
            c.backoff = 1;
            c.deadline = None;
            if !c.ring.is_empty() {
                c.deadline = Some(now + Self::timeout(min_t, init_t, c));
            }
            return true;
        }
        if pkt.ack < c.last_ack {
            return true;
        }
        let Some(head_ts) = c
            .ring
            .front()
            .filter(|h| h.pkt.seq == c.last_ack)
            .map(|h| h.pkt.ts)
        else {
            return true; // not cached: the sender's business
        };
        if c.repaired {
            return false;
        }
        if pkt.ts <= head_ts {
            // Triggered by a segment the sender sent no later than the missing one: a
            // duplicate of an older segment (e.g. after a local timer retransmission), not
            // a sign that the head was lost.
            return true;
        }
        c.dupacks += 1;
        if c.dupacks < rtx_thresh {
            return true;
        }
        c.repaired = true;
        let h = c.ring.front_mut().unwrap();
        h.local = true;
        h.sent = now;
        out(h.pkt);
        c.local_sent += 1;
        self.stats.local_retransmits += 1;
        c.deadline = Some(now + Self::timeout(min_t, init_t, c));
        false
    }

    /// The connection's deadline, if a `NodeTimer` must be scheduled for it.
    fn want_timer(&mut self, f: usize) -> Option<SimTime> {
        let d = self.conns.get(f)?.as_ref()?.deadline?;
        if self.pending.is_none_or(|p| d < p) {
            self.pending = Some(d);
            return Some(d);
        }
        None
    }

    /// A `NodeTimer` event at `now`: retransmit the first cached segment of every
    /// connection whose deadline has passed. Returns the next event to schedule.
    pub fn on_timer(
        &mut self,
        now: SimTime,
        out: &mut impl FnMut(Packet) -> bool,
    ) -> Option<SimTime> {
        if self.pending != Some(now) {
            return None; // superseded by an earlier one, which rescheduled
        }
        self.pending = None;
        let (min_t, init_t) = (self.min_timeout, self.initial_timeout);
        let mut next: Option<SimTime> = None;
        for c in self.conns.iter_mut().flatten() {
            let Some(d) = c.deadline else { continue };
            if d <= now {
                c.deadline = None;
                if let Some(h) = c.ring.front_mut() {
                    h.local = true;
                    h.sent = now;
                    out(h.pkt);
                    c.local_sent += 1;
                    self.stats.timer_retransmits += 1;
                    c.backoff = (c.backoff * 2).min(64);
                    c.deadline = Some(now + Self::timeout(min_t, init_t, c));
                }
            }
            if let Some(d) = c.deadline {
                next = Some(next.map_or(d, |n: SimTime| n.min(d)));
            }
        }
        self.pending = next;
        next
    }

    /// Flow `f`'s data segments this agent sent itself (local retransmissions) and its
    /// acks the agent kept back (suppressed dupacks): the auditor's segment accounting.
    pub fn flow_accounting(&self, f: FlowId) -> (u64, u64) {
        match self.conns.get(f.index()).and_then(|c| c.as_deref()) {
            Some(c) => (c.local_sent, c.suppressed),
            None => (0, 0),
        }
    }

    /// Segments cached now, over all connections (tests).
    pub fn cached_now(&self) -> usize {
        self.conns.iter().flatten().map(|c| c.ring.len()).sum()
    }
    /// Whether flow `f` has state here (tests).
    pub fn tracks(&self, f: FlowId) -> bool {
        self.conns.get(f.index()).is_some_and(|c| c.is_some())
    }
}

/// Per-node agents, dispatched by `match` (`sim.rs`): none by default.
pub enum AnyAgent {
    Snoop(Box<Snoop>),
}

crate::tagged_enum! {
    /// `[agents.NAME]`: a TCP-aware agent on a node, chosen by `type`.
    pub enum AgentSpec, tag "type" {
        /// Snoop (Balakrishnan et al. 1995): local recovery of wireless losses at the base
        /// station.
        "snoop" => Snoop(SnoopSpec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};

    const W: LinkId = LinkId(1);
    const UP: LinkId = LinkId(0);

    fn snoop() -> Snoop {
        let spec: SnoopSpec = toml::from_str("node = \"bs\"\nwireless = \"w\"\ncache = 4").unwrap();
        spec.build("agents.s", W, 1).unwrap()
    }
    fn data(seq: u64) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Data, 1040);
        p.seq = seq;
        p.ts = SimTime(seq + 1); // the sender sends in sequence order
        p.len = 1000;
        p.src = NodeId(0);
        p.dst = NodeId(2);
        p
    }
    fn ack(a: u64) -> Packet {
        let mut p = Packet::test(FlowId(0), PacketKind::Ack, 40);
        p.ack = a;
        p
    }
    /// A duplicate ack for `a` triggered by the segment `by` (its echoed timestamp).
    fn dup(a: u64, by: u64) -> Packet {
        let mut p = ack(a);
        p.ts = SimTime(by + 1);
        p
    }
    fn t(ms: u64) -> SimTime {
        SimTime(ms * crate::time::PS_PER_MS)
    }
    fn fwd(s: &mut Snoop, now: SimTime, p: Packet, next: LinkId) -> (Vec<Packet>, Option<SimTime>) {
        let mut v = Vec::new();
        let d = s.on_forward(now, p, next, &mut |q| {
            v.push(q);
            true
        });
        (v, d)
    }

    #[test]
    fn caches_repairs_on_the_first_dupack_and_suppresses_dupacks() {
        let mut s = snoop();
        for k in 0..4 {
            let (v, _) = fwd(&mut s, t(k), data(k * 1000), W);
            assert_eq!(v.len(), 1);
        }
        // The cache holds 4: a fifth is forwarded uncached.
        fwd(&mut s, t(5), data(4000), W);
        assert_eq!((s.cached_now(), s.stats.not_cached), (4, 1));
        // Segment 0 acked (RTT sample 20 ms): it leaves the cache, the ack goes on.
        let (v, _) = fwd(&mut s, t(20), ack(1000), UP);
        assert_eq!(v.len(), 1);
        assert_eq!(s.cached_now(), 3);
        // Segment 1000 lost on the wireless link: the first dupack triggers a local
        // retransmission and is suppressed, and so are the next ones.
        // A dupack echoing the head's own (or an older) timestamp is a duplicate's, not a
        // loss signal: forwarded, nothing retransmitted.
        let (v, _) = fwd(&mut s, t(21), dup(1000, 0), UP);
        assert!(v.len() == 1 && !v[0].is_data());
        let (v, _) = fwd(&mut s, t(22), dup(1000, 2000), UP);
        assert_eq!(v.len(), 1);
        assert!(v[0].is_data() && v[0].seq == 1000);
        let (v, _) = fwd(&mut s, t(23), dup(1000, 3000), UP);
        assert!(v.is_empty());
        assert_eq!(
            (s.stats.local_retransmits, s.stats.suppressed_dupacks),
            (1, 2)
        );
        // The repair arrives: the new ack passes and cleans the cache up to 4000.
        let (v, _) = fwd(&mut s, t(40), ack(4000), UP);
        assert_eq!(v.len(), 1);
        assert_eq!(s.cached_now(), 0);
    }

    #[test]
    fn dupacks_for_segments_it_does_not_hold_pass_and_threshold_two_waits() {
        let spec: SnoopSpec =
            toml::from_str("node = \"bs\"\nwireless = \"w\"\nrtx_thresh = 2").unwrap();
        let mut s = spec.build("agents.s", W, 1).unwrap();
        fwd(&mut s, t(0), data(0), W);
        fwd(&mut s, t(1), data(2000), W); // 1000 was lost upstream: never cached
        fwd(&mut s, t(2), data(1000), W); // the sender's retransmission fills the gap
        assert_eq!(s.stats.not_cached, 1);
        fwd(&mut s, t(10), ack(1000), UP);
        let (v, _) = fwd(&mut s, t(11), ack(1000), UP);
        assert_eq!(v.len(), 1, "not cached: the dupack passes");
        assert!(!v[0].is_data());
        assert_eq!(s.stats.local_retransmits, 0);
        // Data in the other direction passes untouched (and is not cached).
        let (v, _) = fwd(&mut s, t(12), data(9000), UP);
        assert_eq!(v.len(), 1);
        assert_eq!(s.stats.cached + s.stats.not_cached, 3);
    }

    #[test]
    fn segments_its_own_queue_drops_are_not_cached_unless_asked() {
        let mut s = snoop();
        s.on_forward(t(0), data(0), W, &mut |_| false);
        assert_eq!((s.stats.cached, s.stats.not_cached), (0, 1));
        s.repair_queue_drops = true;
        s.on_forward(t(1), data(1000), W, &mut |_| false);
        assert_eq!(s.stats.cached, 1);
    }

    #[test]
    fn the_local_timer_retransmits_and_backs_off() {
        let mut s = snoop();
        let (_, d) = fwd(&mut s, t(0), data(0), W);
        assert_eq!(d, Some(t(1000)), "initial timeout 1 s");
        let mut v = Vec::new();
        assert_eq!(
            s.on_timer(t(999), &mut |q| {
                v.push(q);
                true
            }),
            None,
            "not the pending time"
        );
        let next = s.on_timer(t(1000), &mut |q| {
            v.push(q);
            true
        });
        assert_eq!(v.len(), 1);
        assert_eq!(s.stats.timer_retransmits, 1);
        assert_eq!(next, Some(t(3000)), "doubled");
        // A new ack stops it (nothing left cached).
        fwd(&mut s, t(1100), ack(1000), UP);
        assert_eq!(
            s.on_timer(t(3000), &mut |q| {
                v.push(q);
                true
            }),
            None
        );
        assert_eq!(v.len(), 1);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let spec: SnoopSpec = toml::from_str("node = \"bs\"\nwireless = \"w\"\ncache = 0").unwrap();
        assert_eq!(
            spec.build("agents.s", W, 1).err().unwrap().field,
            "agents.s.cache"
        );
        let spec: SnoopSpec =
            toml::from_str("node = \"bs\"\nwireless = \"w\"\nrtx_thresh = 0").unwrap();
        assert_eq!(
            spec.build("agents.s", W, 1).err().unwrap().field,
            "agents.s.rtx_thresh"
        );
    }

    #[test]
    fn a_huge_cache_is_refused_and_a_large_one_is_not_preallocated() {
        // Fuzz regression fuzz/regressions/run_bounded/snoop_cache_u32_max: `cache =
        // 4294967295` allocated the whole ring (400 GB) at the first segment and aborted.
        let spec: SnoopSpec =
            toml::from_str("node = \"bs\"\nwireless = \"w\"\ncache = 4294967295").unwrap();
        let e = spec.build("agents.s", W, 1).err().unwrap();
        assert_eq!(e.field, "agents.s.cache");
        assert!(e.reason.contains("more than 1000000"), "{}", e.reason);
        let spec: SnoopSpec =
            toml::from_str("node = \"bs\"\nwireless = \"w\"\ncache = 1000000").unwrap();
        let mut s = spec.build("agents.s", W, 1).unwrap();
        s.on_forward(t(0), data(0), W, &mut |_| true);
        let c = s.conns[0].as_ref().unwrap();
        assert_eq!(c.ring.len(), 1);
        assert!(c.ring.capacity() < 4096, "{}", c.ring.capacity());
    }

    #[test]
    fn picosecond_timeouts_are_refused() {
        // A 1-ps initial timeout retransmitted every 64 ps until the first ack: a 10-s
        // run did not finish in 30 s. 1 µs is the shortest accepted.
        for k in ["min_timeout", "initial_timeout"] {
            let spec: SnoopSpec =
                toml::from_str(&format!("node = \"bs\"\nwireless = \"w\"\n{k} = \"1ps\"")).unwrap();
            let e = spec.build("agents.s", W, 1).err().unwrap();
            assert_eq!(e.field, format!("agents.s.{k}"));
            assert!(e.reason.contains("shorter than 1us"), "{}", e.reason);
            let spec: SnoopSpec =
                toml::from_str(&format!("node = \"bs\"\nwireless = \"w\"\n{k} = \"1us\"")).unwrap();
            assert!(spec.build("agents.s", W, 1).is_ok());
        }
    }
}

//! Error models of a link direction: which transmitted packets the wire loses.
//!
//! Where the model acts is its `placement` ([`Placement`]):
//!
//! * `after_link` (the default): the model is asked exactly once per transmitted packet, in
//!   transmission order, by [`ErrorModel::lost`] with the packet's transmission start and
//!   end (the link's FIFO fast path knows both at enqueue, the scheduled path when the
//!   transmission ends; both call the same helper, `Link::wire_lost`). A lost packet still
//!   uses the link for its whole transmission time and is discarded at the receiving end
//!   (it never enters the pipe). ns-2's `$ns link-lossmodel` (ns-link.tcl, `SimpleLink
//!   instproc insert-linkloss`: the module after the link) and ns-3's receive error model
//!   (`PointToPointNetDevice::Receive`) place it so.
//! * `before_queue`: the model is asked once per packet offered to the link, in arrival
//!   order, at its arrival (start = end = the arrival time); a lost packet takes neither a
//!   place in the queue nor link time. ns-2's `$ns lossmodel` (ns-lib.tcl, `Simulator
//!   instproc lossmodel` calling ns-link.tcl's `SimpleLink instproc errormodule`, which adds
//!   the module at the head of the link, before the queue) places it so; `profile = "ns2"`
//!   chooses it ([`ErrorSpec::profile_keys`]). Not for `outage` (a channel that is down
//!   loses what is transmitted meanwhile).
//!
//! Variants (closed enum, static dispatch; each declares and validates its parameters in its
//! own file):
//!
//! * `none`: nothing is lost.
//! * [`bernoulli`]: each packet independently with probability `p` (`loss = p` is the
//!   shorthand). Draws from the link's `Stream::LinkLoss` stream, one draw per packet.
//! * [`gilbert_elliott`]: a two-state (good/bad) Markov chain stepped once per packet,
//!   with a loss probability per state (`Stream::LinkError`, link index).
//! * [`list`]: the listed packet numbers (1-based, counted over the packets this direction
//!   transmits, or is offered with `before_queue`); for tests.
//! * [`outage`]: a shared schedule of down periods; a packet whose transmission overlaps a
//!   down period is lost (see that module for the whole rule).
//! * [`poisson_time`]: loss events as a Poisson process in time (mean spacing
//!   `mean_interval`), each losing the next packet (seed 002's "one loss approximately every
//!   10 seconds" whatever the load).

pub mod bernoulli;
pub mod gilbert_elliott;
pub mod list;
pub mod outage;
pub mod poisson_time;

pub use bernoulli::{Bernoulli, BernoulliSpec};
pub use gilbert_elliott::{GilbertElliott, GilbertElliottSpec};
pub use list::{DropList, ListSpec};
pub use outage::{Outage, OutageRefSpec, Schedule};
pub use poisson_time::{PoissonTime, PoissonTimeSpec};

use crate::config::ScenarioError;
use crate::rng::SimRng;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

crate::tagged_enum! {
    /// Error model of a link direction, chosen by `model` (parameters in `net/error/`).
    pub enum ErrorSpec, tag "model" {
        /// No errors.
        "none" => None(crate::net::error::NoneSpec),
        /// Independent losses with probability `p`.
        "bernoulli" => Bernoulli(crate::net::error::BernoulliSpec),
        /// Two-state Markov losses.
        "gilbert_elliott" => GilbertElliott(crate::net::error::GilbertElliottSpec),
        /// Drop exactly the listed packet numbers.
        "list" => List(crate::net::error::ListSpec),
        /// Lose what is sent during a named outage schedule's down periods.
        "outage" => Outage(crate::net::error::OutageRefSpec),
        /// Loss events as a Poisson process in time, each losing the next packet.
        "poisson_time" => PoissonTime(crate::net::error::PoissonTimeSpec),
    }
}

crate::tagged_enum! {
    /// A named outage schedule (`[outages.NAME]`), chosen by `type`.
    pub enum OutageScheduleSpec, tag "type" {
        /// Down periods every `period`.
        "periodic" => Periodic(crate::net::error::outage::PeriodicSpec),
        /// Explicit down intervals.
        "list" => List(crate::net::error::outage::IntervalsSpec),
    }
}

/// The error model of one link direction.
#[derive(Clone, Debug)]
pub enum ErrorModel {
    None,
    Bernoulli(Bernoulli),
    /// Boxed (like `Outage`) so the enum, and so every `Link`, stays the size of the
    /// Bernoulli variant.
    GilbertElliott(Box<GilbertElliott>),
    List(DropList),
    Outage(Box<Outage>),
    /// Boxed: its state is a word larger than Bernoulli's.
    PoissonTime(Box<PoissonTime>),
    /// `placement = "before_queue"`: the inner model is asked on arrival, by
    /// [`ErrorModel::lost_on_arrival`]; [`ErrorModel::lost`] (after transmission) says no.
    BeforeQueue(Box<ErrorModel>),
}

/// Where a link direction's error model acts (`links.NAME.error.placement`).
#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Asked once per transmitted packet; a lost packet used the link (the default).
    #[default]
    AfterLink,
    /// Asked once per arriving packet, before the queue; a lost packet takes no buffer
    /// space and no link time (ns-2's `$ns lossmodel`).
    BeforeQueue,
}

impl Placement {
    pub fn name(self) -> &'static str {
        match self {
            Placement::AfterLink => "after_link",
            Placement::BeforeQueue => "before_queue",
        }
    }
}

impl ErrorModel {
    /// Today's `loss = p`: Bernoulli on the link's loss stream, or none when `p` is 0 (no
    /// draws at all, as before error models existed).
    pub fn from_loss(p: f64, rng: SimRng) -> Self {
        if p > 0.0 {
            ErrorModel::Bernoulli(Bernoulli::new(p, rng))
        } else {
            ErrorModel::None
        }
    }

    /// Is the packet transmitted over `[start, done)` lost? Called exactly once per
    /// transmitted packet, in transmission order (so `start` never decreases).
    #[inline(always)]
    pub fn lost(&mut self, start: SimTime, done: SimTime) -> bool {
        match self {
            ErrorModel::None => false,
            ErrorModel::Bernoulli(m) => m.lost(),
            ErrorModel::GilbertElliott(m) => m.lost(),
            ErrorModel::List(m) => m.lost(),
            ErrorModel::Outage(m) => m.lost(start, done),
            ErrorModel::PoissonTime(m) => m.lost(start),
            ErrorModel::BeforeQueue(_) => false,
        }
    }

    /// Whether the model acts before the queue (`placement = "before_queue"`).
    #[inline(always)]
    pub fn before_queue(&self) -> bool {
        matches!(self, ErrorModel::BeforeQueue(_))
    }

    /// `before_queue`: is the packet arriving at `now` lost? Called exactly once per packet
    /// offered to the link, in arrival order.
    #[inline]
    pub fn lost_on_arrival(&mut self, now: SimTime) -> bool {
        match self {
            ErrorModel::BeforeQueue(m) => m.lost(now, now),
            _ => false,
        }
    }

    /// Note when the run ends: transmissions that start later never happen in it (only the
    /// outage model, whose answer costs one step per period up to the start, uses it).
    pub fn set_horizon(&mut self, end: SimTime) {
        match self {
            ErrorModel::Outage(o) => o.set_horizon(end),
            ErrorModel::BeforeQueue(m) => m.set_horizon(end),
            _ => {}
        }
    }

    /// Whether the model draws random numbers (so that the seed can change its losses).
    pub fn is_random(&self) -> bool {
        match self {
            ErrorModel::None | ErrorModel::List(_) => false,
            ErrorModel::Bernoulli(_)
            | ErrorModel::GilbertElliott(_)
            | ErrorModel::PoissonTime(_) => true,
            ErrorModel::Outage(o) => o.is_random(),
            ErrorModel::BeforeQueue(m) => m.is_random(),
        }
    }

    /// The model's name in scenarios and summaries.
    pub fn name(&self) -> &'static str {
        match self {
            ErrorModel::None => "none",
            ErrorModel::Bernoulli(_) => "bernoulli",
            ErrorModel::GilbertElliott(_) => "gilbert_elliott",
            ErrorModel::List(_) => "list",
            ErrorModel::Outage(_) => "outage",
            ErrorModel::PoissonTime(_) => "poisson_time",
            ErrorModel::BeforeQueue(m) => m.name(),
        }
    }

    /// The outage state, for the `LinkState` events and the summary.
    pub fn outage(&mut self) -> Option<&mut Outage> {
        match self {
            ErrorModel::Outage(o) => Some(o),
            _ => None,
        }
    }

    /// Number of outages begun and time spent down up to `now` (zero for the other models).
    pub fn down(&self, now: SimTime) -> (u64, crate::time::SimDuration) {
        match self {
            ErrorModel::Outage(o) => (o.outages, o.down_time(now)),
            _ => (0, crate::time::SimDuration::ZERO),
        }
    }
}

/// `{ model = "none" }`: the wire loses nothing (the default).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoneSpec {}

/// What building an error model needs besides its own parameters.
pub struct ErrorCx<'a> {
    pub seed: u64,
    /// Link direction index (stream index).
    pub link: u64,
    /// The named outage schedules (`[outages.NAME]`), built.
    pub schedules: &'a BTreeMap<String, Schedule>,
}

impl ErrorSpec {
    /// Validate and build (`field` = `links.NAME.error`).
    pub fn build(&self, field: &str, cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        let m = match self {
            ErrorSpec::None(_) => ErrorModel::None,
            ErrorSpec::Bernoulli(s) => s.build(field, cx)?,
            ErrorSpec::GilbertElliott(s) => s.build(field, cx)?,
            ErrorSpec::List(s) => s.build(field, cx)?,
            ErrorSpec::Outage(s) => {
                if s.placement == Placement::BeforeQueue {
                    return Err(ScenarioError::new(
                        format!("{field}.placement"),
                        "an outage acts on what is transmitted while the channel is down, so \
                         it has no \"before_queue\" placement (use a per-packet model, or \
                         leave out placement)",
                    ));
                }
                s.build(field, cx)?
            }
            ErrorSpec::PoissonTime(s) => s.build(field, cx)?,
        };
        Ok(match (self.placement(), m) {
            (_, ErrorModel::None) => ErrorModel::None,
            (Placement::BeforeQueue, m) => ErrorModel::BeforeQueue(Box::new(m)),
            (Placement::AfterLink, m) => m,
        })
    }

    /// Where the model acts (`none` has no placement: after the link).
    pub fn placement(&self) -> Placement {
        match self {
            ErrorSpec::None(_) => Placement::AfterLink,
            ErrorSpec::Bernoulli(s) => s.placement,
            ErrorSpec::GilbertElliott(s) => s.placement,
            ErrorSpec::List(s) => s.placement,
            ErrorSpec::Outage(s) => s.placement,
            ErrorSpec::PoissonTime(s) => s.placement,
        }
    }

    /// The keys profile `p` sets in this error model's table (expansion writes them where
    /// the table does not set them). Under `ns2`: `placement = "before_queue"`, where ns-2's
    /// `$ns lossmodel` puts an error module (ns-lib.tcl `Simulator instproc lossmodel` →
    /// ns-link.tcl `SimpleLink instproc errormodule`: "insert an error module BEFORE the
    /// queue", `add-to-head`), for every per-packet model. `none` and `outage` have nothing
    /// to set; the other profiles keep the default, `after_link` (ns-3's receive error
    /// model, tcplab's own).
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match (p, self) {
            (_, ErrorSpec::None(_) | ErrorSpec::Outage(_)) => Vec::new(),
            (crate::config::profile::Profile::Ns2, _) => {
                vec![("placement", serde_json::Value::from("before_queue"))]
            }
            _ => Vec::new(),
        }
    }
}

/// `x` in `[lo, hi]` (or `[lo, hi)` when `open_hi`), else an error naming `field`.
pub(crate) fn check_prob(field: String, x: f64, open_hi: bool) -> Result<(), ScenarioError> {
    let ok = x >= 0.0 && if open_hi { x < 1.0 } else { x <= 1.0 };
    if ok {
        Ok(())
    } else {
        let range = if open_hi { "[0, 1)" } else { "[0, 1]" };
        Err(ScenarioError::new(
            field,
            format!("must be a probability in {range}, got {x}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::outage::IntervalsSpec;
    use super::*;
    use crate::config::units::DurationValue;
    use crate::event::{Event, EventQueue};
    use crate::ids::{FlowId, LinkId, NodeId};
    use crate::net::Link;
    use crate::packet::{Packet, PacketKind};
    use crate::queue::{AnyQueue, DropTail, Limit};
    use crate::rng::Stream;
    use crate::time::{Rate, SimDuration};

    const MS: u64 = 1_000_000_000;

    /// What a run of [`drive`] saw: far-end arrivals (time, packet index, tx start) and the
    /// state transitions (time, down?).
    struct Run {
        arrivals: Vec<(u64, u64, u64)>,
        states: Vec<(u64, bool)>,
        link: Link,
    }

    /// Offer `arrivals` (time ps, size) to an 8 Mb/s (1 byte per µs) link with 10 ms delay and
    /// the given error model, processing every event (LinkState included); the run ends
    /// (no state events from then on) at [`end`] of the arrivals.
    fn drive(arrivals: &[(u64, u32)], limit: Limit, model: ErrorModel, scheduled: bool) -> Run {
        let mut l = Link::new(
            "l".into(),
            NodeId(0),
            NodeId(1),
            Rate(8_000_000),
            SimDuration::from_ms(10),
            AnyQueue::DropTail(DropTail::new(limit)),
            0.0,
            SimRng::derive(1, Stream::Queue, 0),
            SimRng::derive(1, Stream::LinkLoss, 0),
        );
        l.error = model;
        l.prepare(end(arrivals));
        if scheduled {
            l.force_scheduled();
        }
        let mut ev = EventQueue::new();
        l.start_states(LinkId(0), &mut ev);
        let (mut arr, mut states) = (Vec::new(), Vec::new());
        let mut next = 0;
        loop {
            let te = ev.peek_time();
            let ta = arrivals.get(next).map(|a| SimTime(a.0));
            let offer = match (te, ta) {
                (None, None) => break,
                (Some(te), Some(ta)) => ta < te,
                (None, Some(_)) => true,
                (Some(_), None) => false,
            };
            if offer {
                let (t, size) = arrivals[next];
                let mut p = Packet::test(FlowId(0), PacketKind::Data, size);
                p.seq = next as u64;
                l.offer(LinkId(0), SimTime(t), p, &mut ev);
                next += 1;
                continue;
            }
            let (at, e) = ev.pop().unwrap();
            match e {
                Event::LinkTxDone(id) => l.tx_done(id, at, &mut ev),
                Event::LinkArrival(id) => {
                    let p = l.arrive(id, &mut ev);
                    arr.push((at.0, p.seq, p.tx_start.0));
                }
                Event::LinkState(id) => {
                    l.state_change(id, at, &mut ev);
                    states.push((at.0, l.error.outage().unwrap().is_down()));
                }
                _ => unreachable!(),
            }
        }
        l.settle(SimTime::MAX);
        Run {
            arrivals: arr,
            states,
            link: l,
        }
    }

    /// One second after the last arrival (every packet has arrived by then in these tests).
    fn end(arrivals: &[(u64, u32)]) -> SimTime {
        SimTime(arrivals.last().map_or(0, |a| a.0) + 1000 * MS)
    }

    fn intervals(iv: &[(u64, u64)]) -> Schedule {
        IntervalsSpec {
            intervals: iv
                .iter()
                .map(|&(d, u)| [DurationValue(SimDuration(d)), DurationValue(SimDuration(u))])
                .collect(),
        }
        .build("outages.t")
        .unwrap()
    }

    fn outage(s: &Schedule) -> ErrorModel {
        ErrorModel::Outage(Box::new(Outage::new(s.clone())))
    }

    fn random_arrivals(seed: u64, n: usize) -> Vec<(u64, u32)> {
        let mut rng = SimRng::derive(seed, Stream::App, 0);
        let mut t = 0u64;
        (0..n)
            .map(|_| {
                // Bursts (queueing) and idle gaps; 1000 B take 1 ms, 40 B 40 µs.
                let gap = if rng.bernoulli(0.1) { 30 * MS } else { MS };
                t += rng.below(gap) + 1;
                (t, if rng.bernoulli(0.3) { 40 } else { 1000 })
            })
            .collect()
    }

    /// A periodic exponential schedule like P3's handoffs, scaled to this test's link.
    fn handoffs() -> Schedule {
        super::outage::PeriodicSpec {
            period: DurationValue(SimDuration(50 * MS)),
            start: None,
            duration: None,
            mean: Some(DurationValue(SimDuration(10 * MS))),
            cap: None,
            period_from: Default::default(),
        }
        .build("outages.h", 5, 0)
        .unwrap()
    }

    #[test]
    fn outage_loses_exactly_the_transmissions_overlapping_a_down_period() {
        let arrivals = random_arrivals(3, 4000);
        let sched = handoffs();
        let periods = sched.periods_until(end(&arrivals));
        // Reference transmissions of an unlimited FIFO at 1 byte/µs, computed here.
        let mut free = 0u64;
        let mut want = Vec::new();
        let mut n_lost = 0;
        for (i, &(t, size)) in arrivals.iter().enumerate() {
            let start = t.max(free);
            let done = start + size as u64 * 1_000_000;
            free = done;
            let lost = periods.iter().any(|&(d, u)| start < u.0 && done > d.0);
            if lost {
                n_lost += 1;
            } else {
                want.push((done + 10 * MS, i as u64, start));
            }
        }
        assert!(n_lost > 100 && want.len() > 1000, "lost {n_lost}");
        for scheduled in [false, true] {
            let r = drive(&arrivals, Limit::Unlimited, outage(&sched), scheduled);
            assert_eq!(r.arrivals, want, "scheduled: {scheduled}");
            assert_eq!(r.link.stats.lost, n_lost);
            assert_eq!(r.link.stats.tx_packets, arrivals.len() as u64);
            // One down and one up event per outage, until the end of the run.
            let mut expect_states = Vec::new();
            for &(d, u) in &periods {
                expect_states.push((d.0, true));
                if u < end(&arrivals) {
                    expect_states.push((u.0, false));
                }
            }
            assert_eq!(r.states, expect_states);
            let o = r.link.error.down(end(&arrivals));
            assert_eq!(o.0, periods.len() as u64);
            let down: u64 = periods
                .iter()
                .map(|&(d, u)| u.min(end(&arrivals)).since(d).0)
                .sum();
            assert_eq!(o.1, SimDuration(down));
        }
    }

    #[test]
    fn outage_delivers_in_flight_packets_and_sends_queued_ones() {
        // Ten 1000-byte packets offered at t = 0: transmissions [k, k+1) ms. Down [5, 7.5) ms.
        let arrivals: Vec<(u64, u32)> = (0..10).map(|_| (0, 1000)).collect();
        let sched = intervals(&[(5 * MS, 7 * MS + MS / 2)]);
        for scheduled in [false, true] {
            let r = drive(&arrivals, Limit::Unlimited, outage(&sched), scheduled);
            let got: Vec<u64> = r.arrivals.iter().map(|a| a.1).collect();
            // 0-4 finished by 5 ms (4 exactly at 5 ms) and were propagating: delivered.
            // 5, 6 and 7 (7 ends at 8 ms, after the outage) are lost; the queued 8 and 9
            // wait their turn and go through after the outage.
            assert_eq!(got, vec![0, 1, 2, 3, 4, 8, 9], "scheduled: {scheduled}");
            // Arrivals of the packets in flight at the outage start are not delayed.
            assert_eq!(r.arrivals[4].0, 5 * MS + 10 * MS);
            assert_eq!(r.arrivals[5], (9 * MS + 10 * MS, 8, 8 * MS));
            // The transmitter kept sending through the outage.
            assert_eq!(r.link.stats.tx_packets, 10);
            assert_eq!(r.link.stats.busy_ps, 10 * MS);
            assert_eq!(r.link.stats.lost, 3);
            assert_eq!(r.states, vec![(5 * MS, true), (7 * MS + MS / 2, false)]);
            assert_eq!(
                r.link.error.down(SimTime::MAX),
                (1, SimDuration(5 * MS / 2))
            );
        }
    }

    #[test]
    fn list_model_drops_exactly_the_listed_transmissions() {
        let arrivals = random_arrivals(9, 3000);
        let listed = vec![1, 2, 17, 500, 2999, 3000, 5000];
        for scheduled in [false, true] {
            let r = drive(
                &arrivals,
                Limit::Unlimited,
                ErrorModel::List(DropList::new(listed.clone())),
                scheduled,
            );
            let got: Vec<u64> = r.arrivals.iter().map(|a| a.1 + 1).collect();
            let want: Vec<u64> = (1..=3000).filter(|n| !listed.contains(n)).collect();
            assert_eq!(got, want);
            assert_eq!(r.link.stats.lost, 6);
        }
        // Numbers count transmitted packets: queue drops are skipped. Twelve packets at
        // once into a 4-packet queue: packets 0-4 are transmitted (1 on the wire, 4 wait).
        let burst: Vec<(u64, u32)> = (0..12).map(|_| (0, 1000)).collect();
        let r = drive(
            &burst,
            Limit::Packets(4),
            ErrorModel::List(DropList::new(vec![2, 5])),
            false,
        );
        let got: Vec<u64> = r.arrivals.iter().map(|a| a.1).collect();
        assert_eq!(got, vec![0, 2, 3]);
        assert_eq!(r.link.drops.packets, 7);
    }

    #[test]
    fn both_paths_lose_the_same_packets_under_every_model() {
        let arrivals = random_arrivals(4, 3000);
        let models = || {
            vec![
                ErrorModel::from_loss(0.05, SimRng::derive(1, Stream::LinkLoss, 0)),
                ErrorModel::GilbertElliott(Box::new(GilbertElliott::new(
                    0.02,
                    0.3,
                    0.01,
                    0.8,
                    SimRng::derive(1, Stream::LinkError, 0),
                ))),
                outage(&handoffs()),
            ]
        };
        for (fast, sched) in models().into_iter().zip(models()) {
            let name = fast.name();
            let a = drive(&arrivals, Limit::Packets(20), fast, false);
            let b = drive(&arrivals, Limit::Packets(20), sched, true);
            assert_eq!(a.arrivals, b.arrivals, "{name}");
            assert_eq!(a.link.stats.lost, b.link.stats.lost, "{name}");
            assert!(a.link.stats.lost > 20, "{name}: {}", a.link.stats.lost);
            assert_eq!(a.states, b.states, "{name}");
        }
    }

    #[test]
    fn the_model_is_no_larger_than_the_bernoulli_variant_needs() {
        // p (8) + stream (32) + tag: `Link` grows by one word over `loss` + `loss_rng`.
        assert!(std::mem::size_of::<ErrorModel>() <= 48);
    }

    #[test]
    fn bernoulli_spec_uses_the_loss_stream_like_loss_shorthand() {
        let schedules = BTreeMap::new();
        let cx = ErrorCx {
            seed: 7,
            link: 3,
            schedules: &schedules,
        };
        let mut a = BernoulliSpec {
            p: 0.3,
            placement: Placement::AfterLink,
        }
        .build("links.x.error", &cx)
        .unwrap();
        let mut b = ErrorModel::from_loss(0.3, SimRng::derive(7, Stream::LinkLoss, 3));
        let t = SimTime::ZERO;
        let xa: Vec<bool> = (0..1000).map(|_| a.lost(t, t)).collect();
        let xb: Vec<bool> = (0..1000).map(|_| b.lost(t, t)).collect();
        assert_eq!(xa, xb);
        assert!(xa.iter().any(|&x| x));
        assert!(matches!(
            BernoulliSpec {
                p: 0.0,
                placement: Placement::AfterLink
            }
            .build("f", &cx)
            .unwrap(),
            ErrorModel::None
        ));
        let e = BernoulliSpec {
            p: 1.0,
            placement: Placement::AfterLink,
        }
        .build("links.x.error", &cx)
        .unwrap_err();
        assert_eq!(e.field, "links.x.error.p");
    }

    fn before(m: ErrorModel) -> ErrorModel {
        ErrorModel::BeforeQueue(Box::new(m))
    }

    #[test]
    fn before_queue_loses_arrivals_which_take_no_link_time_or_buffer() {
        // Three 1000-byte packets (1 ms each) arriving together; the second is listed.
        let arrivals = [(0, 1000), (0, 1000), (0, 1000)];
        for scheduled in [false, true] {
            let after = drive(
                &arrivals,
                Limit::Packets(10),
                ErrorModel::List(DropList::new(vec![2])),
                scheduled,
            );
            let pre = drive(
                &arrivals,
                Limit::Packets(10),
                before(ErrorModel::List(DropList::new(vec![2]))),
                scheduled,
            );
            // After the link, the lost packet used the line: the third starts at 2 ms.
            assert_eq!(
                after
                    .arrivals
                    .iter()
                    .map(|a| (a.1, a.2))
                    .collect::<Vec<_>>(),
                [(0, 0), (2, 2 * MS)]
            );
            // Before the queue it did not: the third starts at 1 ms.
            assert_eq!(
                pre.arrivals.iter().map(|a| (a.1, a.2)).collect::<Vec<_>>(),
                [(0, 0), (2, MS)]
            );
            for r in [&after, &pre] {
                assert_eq!((r.link.stats.offered, r.link.stats.lost), (3, 1));
            }
            assert_eq!(pre.link.stats.tx_packets, 2, "scheduled {scheduled}");
            assert_eq!(after.link.stats.tx_packets, 3, "scheduled {scheduled}");
        }
        // A buffer of one waiting packet: a loss before the queue frees the place, so
        // no arrival overflows; after the link the third arrival finds it taken.
        for scheduled in [false, true] {
            let pre = drive(
                &arrivals,
                Limit::Packets(1),
                before(ErrorModel::List(DropList::new(vec![2]))),
                scheduled,
            );
            assert_eq!(pre.link.drops.packets, 0);
            let after = drive(
                &arrivals,
                Limit::Packets(1),
                ErrorModel::List(DropList::new(vec![2])),
                scheduled,
            );
            assert_eq!(after.link.drops.packets, 1);
        }
    }

    #[test]
    fn before_queue_counts_arrivals_and_is_asked_once_per_arrival() {
        // Random traffic with queue overflows: the list numbers count offered packets
        // (overflowing ones included), on both paths alike.
        let arrivals = random_arrivals(5, 400);
        let listed: Vec<u64> = (1..=400).filter(|n| n % 7 == 3).collect();
        let a = drive(
            &arrivals,
            Limit::Packets(3),
            before(ErrorModel::List(DropList::new(listed.clone()))),
            false,
        );
        let b = drive(
            &arrivals,
            Limit::Packets(3),
            before(ErrorModel::List(DropList::new(listed.clone()))),
            true,
        );
        assert_eq!(a.arrivals, b.arrivals);
        assert_eq!(a.link.stats.lost, listed.len() as u64);
        assert!(a.link.drops.packets > 0, "the case needs overflows");
        let lost: Vec<u64> = (0..400)
            .filter(|i| !a.arrivals.iter().any(|x| x.1 == *i))
            .collect();
        for n in &listed {
            assert!(lost.contains(&(n - 1)), "listed arrival {n} was delivered");
        }
        // The audit's balance holds: offered = dropped + delivered + lost.
        let s = &a.link.stats;
        assert_eq!(
            s.offered,
            a.link.drops.packets + a.arrivals.len() as u64 + s.lost
        );
    }

    #[test]
    fn placement_builds_and_outage_refuses_before_queue() {
        let mut schedules = BTreeMap::new();
        schedules.insert("o".to_string(), intervals(&[(MS, 2 * MS)]));
        let cx = ErrorCx {
            seed: 7,
            link: 3,
            schedules: &schedules,
        };
        let parse = |v: serde_json::Value| serde_json::from_value::<ErrorSpec>(v).unwrap();
        let m =
            parse(serde_json::json!({"model": "bernoulli", "p": 0.1, "placement": "before_queue"}))
                .build("links.x.error", &cx)
                .unwrap();
        assert!(m.before_queue() && m.is_random());
        assert_eq!(m.name(), "bernoulli");
        let m =
            parse(serde_json::json!({"model": "bernoulli", "p": 0.0, "placement": "before_queue"}))
                .build("links.x.error", &cx)
                .unwrap();
        assert!(matches!(m, ErrorModel::None));
        let e = parse(
            serde_json::json!({"model": "outage", "schedule": "o", "placement": "before_queue"}),
        )
        .build("links.x.error", &cx)
        .unwrap_err();
        assert_eq!(e.field, "links.x.error.placement");
        assert!(serde_json::from_value::<ErrorSpec>(serde_json::json!(
            {"model": "list", "packets": [1], "placement": "before"}
        ))
        .is_err());
        // The ns2 profile places every per-packet model before the queue, and nothing else.
        use crate::config::profile::Profile;
        for v in [
            serde_json::json!({"model": "bernoulli", "p": 0.1}),
            serde_json::json!({"model": "gilbert_elliott", "p_gb": 0.1, "p_bg": 0.5}),
            serde_json::json!({"model": "list", "packets": [1]}),
            serde_json::json!({"model": "poisson_time", "mean_interval": "1s"}),
        ] {
            let spec = parse(v);
            assert_eq!(
                spec.profile_keys(Profile::Ns2),
                [("placement", serde_json::json!("before_queue"))]
            );
            for p in Profile::ALL {
                if p != Profile::Ns2 {
                    assert!(spec.profile_keys(p).is_empty());
                }
            }
        }
        for v in [
            serde_json::json!({"model": "none"}),
            serde_json::json!({"model": "outage", "schedule": "o"}),
        ] {
            assert!(parse(v).profile_keys(Profile::Ns2).is_empty());
        }
    }
}

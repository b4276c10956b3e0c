//! Event traces on request (`metrics.events`): every cwnd/ssthresh change of a flow and
//! every queue drop, wire loss or ECN mark, recorded into the column tables of
//! [`super::columns`] (`cwnd_events`, `packet_events`).
//!
//! Cost: when a kind is off, its call site is one predictable branch (`Option::is_some` on
//! the link's log, or a `bool` in the simulation); when on, one push per column into
//! vectors that grow by amortised doubling. Nothing is allocated per event besides that.

use super::columns::{PacketEventColumns, PacketEventRow};
use crate::event::LinkId;
use crate::packet::Packet;
use crate::time::SimTime;

/// The kinds `metrics.events` may list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Each change of a flow's cwnd or ssthresh (`cwnd_events`).
    Cwnd,
    /// Each packet a queue drops (`packet_events`, `event = "drop"`).
    Drop,
    /// Each packet the wire loses (`links.*.loss`; `event = "loss"`, `reason = "wire"`).
    Loss,
    /// Each packet a queue marks ECN CE (`event = "mark"`; fed by the marking queues).
    Mark,
}

impl EventKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [EventKind; 4] = [
        EventKind::Cwnd,
        EventKind::Drop,
        EventKind::Loss,
        EventKind::Mark,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EventKind::Cwnd => "cwnd",
            EventKind::Drop => "drop",
            EventKind::Loss => "loss",
            EventKind::Mark => "mark",
        }
    }

    pub fn from_name(s: &str) -> Option<EventKind> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    #[inline]
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of [`EventKind`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventSet(u8);

impl EventSet {
    #[inline]
    pub fn contains(self, k: EventKind) -> bool {
        self.0 & k.bit() != 0
    }
    pub fn insert(&mut self, k: EventKind) {
        self.0 |= k.bit();
    }
    /// Whether any per-packet kind (drop, loss, mark) is on.
    pub fn any_packet(self) -> bool {
        [EventKind::Drop, EventKind::Loss, EventKind::Mark]
            .into_iter()
            .any(|k| self.contains(k))
    }
}

/// One link direction's packet events (owned by its [`crate::queue::DropLog`]).
#[derive(Clone, Debug)]
pub struct PacketEventLog {
    link: LinkId,
    kinds: EventSet,
    pub rows: PacketEventColumns,
}

impl PacketEventLog {
    pub fn new(link: LinkId, kinds: EventSet) -> Self {
        PacketEventLog {
            link,
            kinds,
            rows: PacketEventColumns::default(),
        }
    }

    /// Record `pkt` under `kind` (`Drop`, `Loss` or `Mark`) if that kind is on.
    #[inline]
    pub fn push(
        &mut self,
        kind: EventKind,
        at: SimTime,
        pkt: &Packet,
        reason: &'static str,
        phase: &'static str,
    ) {
        if self.kinds.contains(kind) {
            self.rows.push(PacketEventRow {
                t: at.as_secs_f64(),
                event: kind.name(),
                link: self.link,
                flow: pkt.flow,
                kind: if pkt.is_data() { "data" } else { "ack" },
                reason,
                phase,
            });
        }
    }
}

/// Merge the links' logs into one table in time order (ties: link order, then record
/// order), emptying them.
pub fn merge_packet_events<'a>(
    logs: impl Iterator<Item = &'a mut PacketEventLog>,
) -> PacketEventColumns {
    let mut all = PacketEventColumns::default();
    for l in logs {
        all.append(&mut l.rows);
    }
    let mut idx: Vec<usize> = (0..all.len()).collect();
    // Stable: equal times keep link and record order.
    idx.sort_by(|&a, &b| all.t[a].total_cmp(&all.t[b]));
    all.gather(&idx)
}

//! The registry of result columns: every interval, trace and event column is declared
//! exactly once here (name, type, unit, one-line doc), together with its column-oriented
//! storage. The simulation pushes typed rows into the generated tables; the Python binding
//! exports every table generically from [`Column`]s (so it names no column itself); Python
//! takes the names and types from [`registry`] (via `tcplab._core.columns()`) and
//! `docs/outputs.md` lists the same names in the same order.
//!
//! Flow and link columns are stored as ids (`u32`, no string per row) and exported as
//! names. Label columns (`&'static str`) hold names of fixed sets (event kinds, reasons,
//! states). A table may also carry dynamic `f64` columns after its registered ones (the
//! congestion-control trace hook's `cc_<name>` columns of the cwnd trace).

use std::borrow::Cow;

/// The type of a column as the Python side sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    F64,
    U64,
    U32,
    /// A string: a flow or link name, or a label.
    Str,
}

impl ColType {
    /// Name used by the binding and Python (`"f64"`, `"u64"`, `"u32"`, `"str"`).
    pub fn name(self) -> &'static str {
        match self {
            ColType::F64 => "f64",
            ColType::U64 => "u64",
            ColType::U32 => "u32",
            ColType::Str => "str",
        }
    }
}

/// One registered column.
#[derive(Clone, Copy, Debug)]
pub struct ColumnDef {
    pub name: &'static str,
    pub ty: ColType,
    /// Unit (`""` when dimensionless or a name).
    pub unit: &'static str,
    pub doc: &'static str,
}

/// The values of one column, borrowed from its table.
#[derive(Clone, Copy, Debug)]
pub enum ColRef<'a> {
    F64(&'a [f64]),
    U64(&'a [u64]),
    U32(&'a [u32]),
    /// Labels from a fixed set.
    Label(&'a [&'static str]),
    /// Flow ids, exported as flow names.
    Flow(&'a [crate::ids::FlowId]),
    /// Link ids, exported as link names.
    Link(&'a [crate::ids::LinkId]),
    /// Node ids, exported as node names.
    Node(&'a [crate::ids::NodeId]),
}

/// One exported column: its name (registered, or dynamic) and values.
#[derive(Clone, Debug)]
pub struct Column<'a> {
    pub name: Cow<'static, str>,
    pub data: ColRef<'a>,
}

// Storage and export per column kind.
macro_rules! elem {
    (f64) => { f64 };
    (u64) => { u64 };
    (u32) => { u32 };
    (label) => { &'static str };
    (flow) => { crate::ids::FlowId };
    (link) => { crate::ids::LinkId };
    (node) => { crate::ids::NodeId };
}
macro_rules! coltype {
    (f64) => {
        ColType::F64
    };
    (u64) => {
        ColType::U64
    };
    (u32) => {
        ColType::U32
    };
    (label) => {
        ColType::Str
    };
    (flow) => {
        ColType::Str
    };
    (link) => {
        ColType::Str
    };
    (node) => {
        ColType::Str
    };
}
macro_rules! colref {
    (f64, $v:expr) => {
        ColRef::F64($v)
    };
    (u64, $v:expr) => {
        ColRef::U64($v)
    };
    (u32, $v:expr) => {
        ColRef::U32($v)
    };
    (label, $v:expr) => {
        ColRef::Label($v)
    };
    (flow, $v:expr) => {
        ColRef::Flow($v)
    };
    (link, $v:expr) => {
        ColRef::Link($v)
    };
    (node, $v:expr) => {
        ColRef::Node($v)
    };
}

/// Declare a table: its storage struct (one `Vec` per column), its row struct, and its
/// registered columns.
macro_rules! table {
    (
        $(#[$m:meta])* $name:ident, $row:ident, $table:literal {
            $( $field:ident : $kind:ident, $unit:literal, $doc:literal; )*
        }
    ) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default)]
        pub struct $name { $( pub $field: Vec<elem!($kind)>, )* }

        #[doc = concat!("One row of `", $table, "`.")]
        #[derive(Clone, Copy, Debug)]
        pub struct $row { $( pub $field: elem!($kind), )* }

        impl $name {
            /// Table name (the binding's key; the Parquet file is named after it).
            pub const TABLE: &'static str = $table;
            /// The registered columns, in order.
            pub const COLUMNS: &'static [ColumnDef] = &[
                $( ColumnDef { name: stringify!($field), ty: coltype!($kind), unit: $unit, doc: $doc }, )*
            ];
            #[inline]
            pub fn push(&mut self, r: $row) {
                $( self.$field.push(r.$field); )*
            }
            pub fn len(&self) -> usize {
                first_len!(self, $($field)*)
            }
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            /// The registered columns with their values.
            pub fn columns(&self) -> Vec<Column<'_>> {
                vec![$( Column { name: Cow::Borrowed(stringify!($field)), data: colref!($kind, &self.$field) }, )*]
            }
            /// Append `other`'s rows.
            pub fn append(&mut self, other: &mut Self) {
                $( self.$field.append(&mut other.$field); )*
            }
            /// The rows at `idx`, in that order.
            pub fn gather(&self, idx: &[usize]) -> Self {
                $name { $( $field: idx.iter().map(|&i| self.$field[i]).collect(), )* }
            }
        }
    };
}
macro_rules! first_len {
    ($s:ident, $f:ident $($rest:ident)*) => {
        $s.$f.len()
    };
}

table! {
    /// Per-flow interval series (`intervals.parquet`): one row per flow and interval.
    IntervalColumns, IntervalRow, "intervals" {
        flow: flow, "", "flow name";
        t_start: f64, "s", "start of the interval";
        t_end: f64, "s", "end of the interval (the last one may be shorter)";
        goodput_bps: f64, "bit/s", "in-order payload bytes delivered to the application × 8 / interval";
        throughput_bps: f64, "bit/s", "unique data wire bytes (headers included) delivered × 8 / interval";
        efficiency: f64, "", "throughput_bps / rate of the flow's efficiency link";
        cwnd_bytes: u64, "B", "congestion window at the end of the interval";
        srtt_s: f64, "s", "smoothed RTT at the end of the interval (NaN before the first sample)";
        active: f64, "", "fraction of the interval the flow's application was running (1 = the whole interval; flow schedules, start and stop)";
    }
}

table! {
    /// Sampled congestion state per flow (`cwnd_trace.parquet`, `metrics.trace`).
    CwndTraceColumns, CwndTraceRow, "cwnd_trace" {
        flow: flow, "", "flow name";
        t: f64, "s", "sample time";
        cwnd_bytes: u64, "B", "send window (the transport's, during fast recovery)";
        ssthresh_bytes: u64, "B", "slow-start threshold (2^63 - 1 while unset)";
        in_flight_bytes: u64, "B", "bytes sent and not yet cumulatively acknowledged";
        pacing_rate_bps: f64, "b/s", "pacing rate in wire bits per second (NaN when the flow is not paced)";
    }
}

table! {
    /// Sampled queue occupancy per link direction (`queue_trace.parquet`, `metrics.trace`).
    QueueTraceColumns, QueueTraceRow, "queue_trace" {
        link: link, "", "link direction name";
        t: f64, "s", "sample time";
        packets: u32, "packets", "packets queued, counting the one being transmitted";
        bytes: u64, "B", "bytes queued, counting the one being transmitted";
    }
}

table! {
    /// Every change of a flow's cwnd or ssthresh (`metrics.events` with `"cwnd"`).
    CwndEventColumns, CwndEventRow, "cwnd_events" {
        t: f64, "s", "time of the change";
        flow: flow, "", "flow name";
        cwnd_bytes: u64, "B", "send window after the change";
        ssthresh_bytes: u64, "B", "slow-start threshold after the change (2^63 - 1 while unset)";
        state: label, "", "transport state: open, recovery or loss";
    }
}

table! {
    /// Every queue drop, wire loss or ECN mark (`metrics.events` with `"drop"`, `"loss"`,
    /// `"mark"`), in time order.
    PacketEventColumns, PacketEventRow, "packet_events" {
        t: f64, "s", "time of the event (a wire loss: the end of the packet's transmission)";
        event: label, "", "drop (queue), loss (wire) or mark (ECN)";
        link: link, "", "link direction whose queue or wire it happened on";
        flow: flow, "", "flow the packet belongs to";
        kind: label, "", "data or ack";
        reason: label, "", "why: the queue's drop or mark reason (overflow, early, forced, mark_to_drop, choke), or wire for a loss";
        phase: label, "", "enqueue (decided as the packet arrived), dequeue (as the link took its next packet) or wire (a loss)";
    }
}

table! {
    /// Every echo an `echo = true` UDP flow got back (`probes.parquet`): its round trip and
    /// its one-way delay out, one row per echoed datagram, flows in scenario order and each
    /// flow's rows in time order.
    ProbeColumns, ProbeRow, "probes" {
        flow: flow, "", "flow name";
        t: f64, "s", "when the echo reached the source";
        seq: u64, "", "the datagram's number (0, 1, ...: a gap is a datagram or echo lost)";
        rtt_s: f64, "s", "round trip: the echo's arrival less the datagram's send time";
        forward_s: f64, "s", "one-way delay out: the datagram's arrival at the destination less its send time";
    }
}

table! {
    /// One row per round of every finite transfer (`fct.parquet`): a `transfer` flow's one
    /// round, each arrival of a workload, each time a flow schedule makes a transfer flow
    /// join. Flows in order (scenario flows by name, then workload flows by workload,
    /// source host and arrival index), each flow's rounds in time order.
    FctColumns, FctRow, "fct" {
        flow: flow, "", "flow name (a workload's: NAME/HOST/INDEX)";
        workload: label, "", "the workload that generated the flow, or its flows.NAME.group, or empty";
        from: node, "", "source host";
        to: node, "", "destination host";
        bytes: u64, "B", "payload bytes of the round";
        start_s: f64, "s", "when the round's bytes were offered (the flow's arrival)";
        end_s: f64, "s", "when the sender got the acknowledgement of the round's last byte (NaN if it never did)";
        fct_s: f64, "s", "flow completion time: end_s - start_s (NaN if not completed)";
        ideal_fct_s: f64, "s", "the same flow alone on its path: wire bytes (payload plus a header per segment) at the path's slowest link rate, plus the path's base round trip (propagation out and back), plus one more round trip when the flow opens with a SYN";
        slowdown: f64, "", "fct_s / ideal_fct_s (at least 1; NaN if not completed)";
        retransmits: u64, "segments", "segments retransmitted during the round";
        timeouts: u64, "", "retransmission timeouts during the round";
        completed: u32, "", "1 if the round's last byte was acknowledged before the run ended, else 0";
    }
}

/// A `&'static str` for a label column made from a name of the scenario (a workload or a
/// group): each distinct name is stored once for the life of the process.
pub fn intern(name: &str) -> &'static str {
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<std::collections::BTreeSet<&'static str>>> = OnceLock::new();
    let mut set = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

/// Every registered table with its columns, in export order.
pub fn registry() -> [(&'static str, &'static [ColumnDef]); 7] {
    [
        (IntervalColumns::TABLE, IntervalColumns::COLUMNS),
        (CwndTraceColumns::TABLE, CwndTraceColumns::COLUMNS),
        (QueueTraceColumns::TABLE, QueueTraceColumns::COLUMNS),
        (CwndEventColumns::TABLE, CwndEventColumns::COLUMNS),
        (PacketEventColumns::TABLE, PacketEventColumns::COLUMNS),
        (ProbeColumns::TABLE, ProbeColumns::COLUMNS),
        (FctColumns::TABLE, FctColumns::COLUMNS),
    ]
}

/// The cwnd trace: the registered columns plus one `f64` column per value the flows'
/// congestion-control algorithms export through the trace hook
/// ([`crate::cc::CongestionControl::trace_names`]), named `cc_<name>`, NaN for flows whose
/// algorithm does not export that name.
#[derive(Clone, Debug, Default)]
pub struct CwndTrace {
    pub base: CwndTraceColumns,
    /// Exported names, in first-seen flow order.
    pub cc_names: Vec<&'static str>,
    /// One column per name.
    pub cc_values: Vec<Vec<f64>>,
}

impl CwndTrace {
    /// Prefix of the hook's column names.
    pub const CC_PREFIX: &'static str = "cc_";

    pub fn columns(&self) -> Vec<Column<'_>> {
        let mut v = self.base.columns();
        for (n, c) in self.cc_names.iter().zip(&self.cc_values) {
            v.push(Column {
                name: Cow::Owned(format!("{}{n}", Self::CC_PREFIX)),
                data: ColRef::F64(c),
            });
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_names_are_unique_per_table_and_match_storage() {
        for (table, cols) in registry() {
            let mut names: Vec<&str> = cols.iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), cols.len(), "{table}: duplicate column");
        }
        let t = QueueTraceColumns::default();
        let exported: Vec<String> = t.columns().iter().map(|c| c.name.to_string()).collect();
        let registered: Vec<&str> = QueueTraceColumns::COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(exported, registered);
        assert_eq!(
            registered,
            ["link", "t", "packets", "bytes"],
            "public names and order"
        );
    }

    #[test]
    fn gather_and_append_keep_rows_together() {
        let mut a = PacketEventColumns::default();
        for (i, t) in [3.0, 1.0, 2.0].into_iter().enumerate() {
            a.push(PacketEventRow {
                t,
                event: "drop",
                link: crate::ids::LinkId(i as u32),
                flow: crate::ids::FlowId(7),
                kind: "data",
                reason: "overflow",
                phase: "enqueue",
            });
        }
        let g = a.gather(&[1, 2, 0]);
        assert_eq!(g.t, [1.0, 2.0, 3.0]);
        assert_eq!(g.link.iter().map(|l| l.0).collect::<Vec<_>>(), [1, 2, 0]);
        let mut b = g.clone();
        let mut c = g;
        b.append(&mut c);
        assert_eq!(b.len(), 6);
        assert!(c.is_empty());
    }
}

//! The invariant auditor: consistency checks any test, fuzz run or user can switch on
//! ([`crate::sim::Sim::enable_audit`], `tcplab.run(..., audit=True)`, `tcplab run --audit`).
//!
//! Off by default and then nearly free: the event loop compares the event count with the
//! next check's (one compare per event; measured on bench b: 472.3 M → see
//! docs/performance.md). When on, every `every` events (and at the end of the run) the
//! whole state is checked, and time must not have gone backwards since the last check
//! (debug builds also assert it at every event):
//!
//! | invariant | where |
//! |---|---|
//! | simulated time never decreases | every check (every event in debug builds) |
//! | per link: offered = dropped + delivered + lost on the wire + held (queued, in transmission, propagating) | [`check_link`] |
//! | per link: transmitted ≤ offered; busy time ≤ elapsed time | [`check_link`] |
//! | per link: the queue's backlog (packets, bytes) = the packets it holds | [`check_link`] |
//! | per link: what waits is within the discipline's limit; its controller state is finite and in range (RED's average, PIE's probabilities and burst allowance, XCP's sums and coefficients, FQ-CoDel's per-bucket backlogs and deficits, CHOKe's holes) | [`check_link`] via [`QueueDisc::audit`] |
//! | per TCP flow: snd_una ≤ snd_nxt ≤ snd_max ≤ the application's data | [`check_tcp`] |
//! | per TCP flow: snd_una ≤ rcv_nxt ≤ snd_max (the receiver never acknowledges unsent data) | [`check_tcp`] |
//! | per TCP flow: bytes handed to the application = rcv_nxt (in order, none twice) | [`check_tcp`] |
//! | per TCP flow: cwnd > 0, ssthresh > 0, RTO > 0; retransmissions ≤ segments sent; duplicates ≤ segments received | [`check_tcp`] |
//! | per TCP flow: the algorithm's exported values (trace columns) not infinite; rates, windows, RTTs not negative | [`check_cc_values`] |
//! | per flow, data segments and acks apart: sent = delivered + dropped + lost on a wire + in flight (held by links) + absorbed by agents | [`check_accounting`] (auditor switched on before the run starts) |
//! | per UDP flow: delivered ≤ sent (packets and bytes) | [`check_udp`] |
//! | summary.json: no number became null (a NaN or infinity), except the keys documented as nullable | [`check_summary`] |
//!
//! A violation is an engine bug: the auditor panics with the rule, the component and the
//! numbers (the fuzz targets report it as a crash).

use serde_json::Value;

use crate::cc::CongestionControl;
use crate::net::Link;
use crate::queue::QueueDisc;
use crate::stats::FlowCounters;
use crate::tcp::receiver::TcpReceiver;
use crate::tcp::sender::TcpSender;
use crate::time::SimTime;
use crate::udp::{UdpReceiver, UdpSender};

/// How often the auditor checks the whole state (events between checks).
pub const DEFAULT_EVERY: u64 = 1024;

fn fail(what: &str, detail: String) -> ! {
    panic!("tcplab audit: {what}: {detail} (an engine bug: please report it with the scenario and seed)")
}

/// Link conservation and bounds.
pub fn check_link(l: &Link, now: SimTime) {
    let s = &l.stats;
    let held = l.in_system();
    let out = l.drops.packets + s.delivered + s.lost + held;
    if s.offered != out {
        fail(
            &format!("link '{}'", l.name),
            format!(
                "offered {} != dropped {} + delivered {} + lost {} + held {}",
                s.offered, l.drops.packets, s.delivered, s.lost, held
            ),
        );
    }
    if s.tx_packets > s.offered {
        fail(
            &format!("link '{}'", l.name),
            format!("transmitted {} > offered {}", s.tx_packets, s.offered),
        );
    }
    // The discipline's backlog is what it holds (its counters against its storage).
    let (mut n, mut bytes) = (0u64, 0u64);
    l.queue.for_each_packet(&mut |p| {
        n += 1;
        bytes += p.size as u64;
    });
    let b = l.queue.backlog();
    if (n, bytes) != (b.packets as u64, b.bytes) {
        fail(
            &format!("link '{}'", l.name),
            format!(
                "queue backlog says {} packets / {} B, the queue holds {n} / {bytes}",
                b.packets, b.bytes
            ),
        );
    }
    // The discipline's own state: occupancy within its limit, AQM state finite and in
    // range (RED's average, PIE's probability, XCP's sums, FQ-CoDel's buckets).
    if let Err(e) = l.queue.audit(l.waiting()) {
        fail(&format!("link '{}' ({})", l.name, l.queue.name()), e);
    }
    if s.busy_ps > now.0 {
        fail(
            &format!("link '{}'", l.name),
            format!("busy {} ps > elapsed {} ps", s.busy_ps, now.0),
        );
    }
}

/// Sequence-space order, receiver consistency and in-order delivery of one TCP flow.
pub fn check_tcp(name: &str, s: &TcpSender, r: &TcpReceiver, c: &FlowCounters) {
    let (una, nxt, max) = (s.snd_una(), s.snd_nxt(), s.snd_max());
    let what = format!("flow '{name}'");
    if !(una <= nxt && nxt <= max) {
        fail(
            &what,
            format!("snd_una {una} <= snd_nxt {nxt} <= snd_max {max} does not hold"),
        );
    }
    if max > s.app_limit() {
        fail(
            &what,
            format!(
                "snd_max {max} beyond the application's data {}",
                s.app_limit()
            ),
        );
    }
    let rcv = r.rcv_nxt();
    if !(una <= rcv && rcv <= max) {
        fail(
            &what,
            format!("snd_una {una} <= rcv_nxt {rcv} <= snd_max {max} does not hold"),
        );
    }
    if c.goodput_bytes != rcv {
        fail(
            &what,
            format!(
                "bytes handed to the application {} != rcv_nxt {rcv}",
                c.goodput_bytes
            ),
        );
    }
    if s.cc.cwnd() == 0 {
        fail(&what, "cwnd is 0".to_string());
    }
    if s.cc.ssthresh() == 0 {
        fail(&what, "ssthresh is 0".to_string());
    }
    if s.rtt.rto().0 == 0 {
        fail(&what, "the retransmission timeout is 0".to_string());
    }
    let (st, rs) = (&s.stats, &r.stats);
    if st.retransmits > st.segments_sent {
        fail(
            &what,
            format!(
                "retransmissions {} > segments sent {}",
                st.retransmits, st.segments_sent
            ),
        );
    }
    if rs.duplicate_packets > rs.data_packets {
        fail(
            &what,
            format!(
                "duplicate segments {} > segments received {}",
                rs.duplicate_packets, rs.data_packets
            ),
        );
    }
    check_cc_values(&what, &s.cc);
}

/// The algorithm's exported values (its trace columns, [`CongestionControl::trace_values`]):
/// none infinite; rates (`*_bps`), windows (`*_segments`) and round-trip times (`*rtt*`)
/// not negative (`NaN` is the documented "not known yet", e.g. a base RTT before the first
/// sample). Other values may be negative by design (XCP's feedback, CUBIC's `k_s` when the
/// epoch starts above `W_max`).
pub fn check_cc_values(what: &str, cc: &crate::cc::AnyCc) {
    let names = cc.trace_names();
    if names.is_empty() {
        return;
    }
    let mut v = vec![0.0; names.len()];
    cc.trace_values(&mut v);
    for (n, x) in names.iter().zip(&v) {
        let signed = !(n.ends_with("_bps") || n.ends_with("_segments") || n.contains("rtt"));
        if x.is_infinite() || (!signed && *x < 0.0) {
            fail(
                what,
                format!(
                    "{} value '{n}' = {x} (must be finite{})",
                    cc.name(),
                    if signed { "" } else { " and not negative" }
                ),
            );
        }
    }
}

/// One flow's packets of one kind (data segments or acks) since the run started: every
/// packet sent was delivered, dropped by a queue, lost on a wire, held by a link (queued,
/// in transmission, propagating) or kept back by a node agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    /// Sent by the flow's end point (TCP: originals and retransmissions) and by node
    /// agents on its behalf (Snoop's local retransmissions).
    pub sent: u64,
    /// Arrived at the other end point (duplicates included).
    pub delivered: u64,
    /// Dropped by any queue on the way (at enqueue or dequeue).
    pub dropped: u64,
    /// Lost on any wire (error models, outages).
    pub lost: u64,
    /// Held by the links now.
    pub held: u64,
    /// Absorbed by a node agent (Snoop's suppressed dupacks).
    pub absorbed: u64,
}

/// Segment accounting: sent = delivered + dropped + lost + held + absorbed.
pub fn check_accounting(name: &str, kind: &str, a: &Accounting) {
    if a.sent != a.delivered + a.dropped + a.lost + a.held + a.absorbed {
        fail(
            &format!("flow '{name}'"),
            format!(
                "{kind} sent {} != delivered {} + dropped {} + lost {} + in flight {} + absorbed by agents {}",
                a.sent, a.delivered, a.dropped, a.lost, a.held, a.absorbed
            ),
        );
    }
}

/// Delivered never exceeds sent for a UDP flow.
pub fn check_udp(name: &str, s: &UdpSender, r: &UdpReceiver) {
    if r.packets_delivered > s.packets_sent || r.bytes_delivered > s.bytes_sent {
        fail(
            &format!("flow '{name}'"),
            format!(
                "delivered {} packets / {} B > sent {} / {}",
                r.packets_delivered, r.bytes_delivered, s.packets_sent, s.bytes_sent
            ),
        );
    }
}

/// Summary keys that are `null` by design (documented in docs/outputs.md).
const NULLABLE: &[&str] = &[
    // no sample yet (a flow that never got an ack, or none in the steady window)
    "srtt_s",
    "min_rtt_s",
    "mean_rtt_s",
    "p99_rtt_s",
    // no arrival (fewer than two for the jitter) in the steady window
    "mean_delay_s",
    "p50_delay_s",
    "p99_delay_s",
    "mean_jitter_s",
    // no packet joined a link's queue in the steady window
    "steady_mean_queue_delay_s",
    // events that may not happen
    "completed_at_s",
    "max_window_reached_s",
    // Jain's index over no flows
    "jain",
    // no pcap file asked for
    "pcap",
    // no paper analysis for this scenario
    "analysis",
    // a scenario without a name
    "scenario",
    // a greedy source's writes never end (send_buffer_bytes)
    "send_buffer_waiting_bytes",
    // FCT quantiles of a size bucket (or workload) without a completed round, the share of
    // one without rounds, and the open last bucket's upper edge
    "slowdown_p50",
    "slowdown_p95",
    "slowdown_p99",
    "slowdown_mean",
    "fct_p50_s",
    "fct_p99_s",
    "fct_mean_s",
    "completed_share",
    "bytes_max",
];

/// Every number of the summary is finite: serde_json writes a NaN or an infinity as `null`,
/// so a `null` under a key that is not nullable by design is a non-finite number.
pub fn check_summary(v: &Value) {
    fn walk(v: &Value, path: &mut String) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let n = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(k);
                    if x.is_null() && !NULLABLE.contains(&k.as_str()) {
                        fail(
                            "summary",
                            format!("'{path}' is null (a NaN or infinite number?)"),
                        );
                    }
                    // A paper comparison's rows leave out what the paper does not state.
                    if k != "analysis" {
                        walk(x, path);
                    }
                    path.truncate(n);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let n = path.len();
                    path.push_str(&format!("[{i}]"));
                    if x.is_null() {
                        fail(
                            "summary",
                            format!("'{path}' is null (a NaN or infinite number?)"),
                        );
                    }
                    walk(x, path);
                    path.truncate(n);
                }
            }
            Value::Number(n) if n.as_f64().is_some_and(|f| !f.is_finite()) => {
                fail("summary", format!("'{path}' is not finite"));
            }
            _ => {}
        }
    }
    walk(v, &mut String::new());
}

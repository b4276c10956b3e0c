//! Flow profiles: `profile = "linux" | "ns3" | "rfc" | "ns2"` on a flow (or in `[defaults.flows]`)
//! fills in the flow keys below; keys the flow (or `[defaults.flows]`) sets itself win.
//! Expansion (`tcplab expand`) writes the keys out and drops `profile`. The tables are
//! documented field by field, with sources, in docs/tcp.md ("Profiles").
//!
//! - `"linux"`: a current Linux sender and receiver (6.x defaults: CUBIC, SACK, RACK-TLP,
//!   PRR, F-RTO, D-SACK undo, IW10, delayed acks, 200 ms minimum RTO, timestamps).
//! - `"ns3"`: ns-3's `TcpSocket`/`TcpSocketBase`/`TcpL4Protocol` attribute defaults
//!   (read from ns-3.40's sources; see docs/tcp.md for what was not verified for 3.44).
//! - `"rfc"`: standards-track NewReno: RFC 5681 (IW 3 for SMSS 1460, delayed acks), RFC 6582
//!   (the Impatient timer of §3.2 step 5), RFC 6298 (1 s initial and minimum RTO).
//! - `"ns2"`: ns-2.35's one-way TCP agents and sinks as `tcl/lib/ns-default.tcl` sets them
//!   (Agent/TCP, Agent/TCP/Newreno, Agent/TCPSink), each key's source in docs/tcp.md. The
//!   algorithm is not set (Reno, Newreno, Vegas, ... are ns-2 agents of their own: set `cc`)
//!   nor is `max_window` (ns-2's `window_` of 20 packets is a script's choice). A flow whose
//!   `cc` is Vegas gets `loss_detection = "vegas"` (ns-2's `VegasTcpAgent`) in place of
//!   `limited_transmit` and `recovery_burst`, and `cc.restart_window = 2` (`v_slowstart_`);
//!   a Westwood+ flow (`estimator = "plus"`) gets `cc.plus_rules = "ns2"` (Agent/TCP/Linux's
//!   window rules, cc/westwood.rs); an `onoff` app gets `semantics = "ns2"` (ns-2's
//!   Application/Traffic/Exponential, app/onoff.rs). `ece_increase = false` (ns-2's
//!   `old_ecn_ 0`) goes only to flows whose `cc` is reno, newreno (or unset), gaimd or
//!   highspeed. A gaimd flow gets `cc.ns2_compat = true` and `cc.ns2_window = true`, a
//!   highspeed flow `cc.ns2_compat = true` (ns-2's `TcpAgent::slowdown()`, [`ns2_cc_keys`]).

use serde_json::{json, Value};

/// The profiles' names, for error messages.
pub const NAMES: [&str; 4] = ["linux", "ns3", "rfc", "ns2"];

/// Keys that need `sack = true`: a flow that sets `sack = false` over a profile does not
/// get them.
pub const NEEDS_SACK: [&str; 5] = ["recovery", "prr", "loss_detection", "tlp", "dsack_undo"];

/// Keys of Reno/NewReno recovery: a flow that sets `sack = true` over a profile without
/// SACK (`ns2`: ns-2's Sack1 agent) does not get them.
pub const NEEDS_NO_SACK: [&str; 3] = ["bugfix", "limited_transmit", "recovery_burst"];

/// Keys of the `ns2` profile that a Vegas flow does not get: with `cc = "vegas"` the
/// profile sets `loss_detection = "vegas"` instead (ns-2's Vegas agent).
pub const NOT_WITH_VEGAS: [&str; 2] = ["limited_transmit", "recovery_burst"];

/// Keys of the `ns2` profile that only a flow whose algorithm grows through ns-2's
/// `TcpAgent::opencwnd` gets (reno, newreno, gaimd, highspeed: [`names_opencwnd`]); the others
/// refuse them (ns-2's Vegas and Linux agents have rules of their own).
pub const OPENCWND_ONLY: [&str; 1] = ["ece_increase"];

/// Whether a flow's `cc` value (none: the default, newreno) names reno, newreno, gaimd or
/// highspeed.
pub fn names_opencwnd(cc: Option<&Value>) -> bool {
    let name = match cc {
        None => return true,
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Object(o)) => match o.get("algorithm").and_then(Value::as_str) {
            Some(a) => a,
            None => return false,
        },
        _ => return false,
    };
    matches!(name, "reno" | "newreno" | "gaimd" | "highspeed")
}

/// Whether a flow's `cc` value is Westwood+ (a table with `algorithm = "westwood"` and
/// `estimator = "plus"`; the name alone is TCPW-BE).
pub fn names_westwood_plus(cc: Option<&Value>) -> bool {
    matches!(cc, Some(Value::Object(o))
        if o.get("algorithm").and_then(Value::as_str) == Some("westwood")
            && o.get("estimator").and_then(Value::as_str) == Some("plus"))
}

/// The algorithm a flow's `cc` value names (`None`: unset, or a table without `algorithm`).
pub fn cc_algorithm(cc: Option<&Value>) -> Option<&str> {
    match cc {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Object(o)) => o.get("algorithm").and_then(Value::as_str),
        _ => None,
    }
}

/// The `cc` keys the `ns2` profile sets on an algorithm: ns-2's `TcpAgent::slowdown()`
/// rules (tcp/tcp.cc), which every ns-2 agent built on it runs and no OTcl setting removes:
/// the halving rules (`ns2_compat`) on TCP(α, β) and HighSpeed, and the window arithmetic
/// (`ns2_window`) on TCP(α, β).
pub fn ns2_cc_keys(algorithm: &str) -> &'static [&'static str] {
    match algorithm {
        "gaimd" => &["ns2_compat", "ns2_window"],
        "highspeed" => &["ns2_compat"],
        _ => &[],
    }
}

/// Whether a flow's `cc` value names Vegas (`"vegas"` or a table with that algorithm).
pub fn names_vegas(cc: Option<&Value>) -> bool {
    match cc {
        Some(Value::String(s)) => s == "vegas",
        Some(Value::Object(o)) => o.get("algorithm").and_then(Value::as_str) == Some("vegas"),
        _ => false,
    }
}

/// The flow keys a profile sets, in documentation order.
pub fn keys(name: &str) -> Option<Vec<(&'static str, Value)>> {
    Some(match name {
        "linux" => vec![
            ("cc", json!("cubic")),
            ("mss", json!(1448)),
            ("header", json!(52)),
            ("ack_size", json!(52)),
            ("max_window", json!("4MiB")),
            ("init_cwnd", json!(10)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("200ms")),
            ("rto_max", json!("120s")),
            ("delayed_ack", json!("40ms")),
            ("quickack", json!(16)),
            ("ack_counting", json!("segments")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(true)),
            ("recovery", json!("rfc6675")),
            ("prr", json!("ssrb")),
            ("loss_detection", json!("rack")),
            ("tlp", json!(true)),
            ("frto", json!(true)),
            ("dsack_undo", json!(true)),
            ("recovery_exit", json!("ssthresh")),
            ("ecn", json!(false)),
        ],
        "ns3" => vec![
            ("cc", json!("cubic")),
            ("mss", json!(536)),
            ("header", json!(52)),
            ("ack_size", json!(52)),
            ("max_window", json!(131072)),
            ("init_cwnd", json!(10)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("1s")),
            ("rto_max", json!("60s")),
            ("delayed_ack", json!("200ms")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(true)),
            ("recovery", json!("rfc6675")),
            ("prr", json!("ssrb")),
            ("loss_detection", json!("dupack")),
            ("frto", json!(false)),
            ("dsack_undo", json!(false)),
            ("partial_ack_timer", json!("first")),
            ("recovery_exit", json!("ssthresh")),
            ("ecn", json!(false)),
        ],
        "rfc" => vec![
            ("cc", json!("newreno")),
            ("mss", json!(1460)),
            ("header", json!(40)),
            ("ack_size", json!(40)),
            ("init_cwnd", json!(3)),
            ("rto_initial", json!("1s")),
            ("rto_min", json!("1s")),
            ("rto_max", json!("60s")),
            ("delayed_ack", json!("200ms")),
            ("dupack_threshold", json!(3)),
            ("sack", json!(false)),
            ("recovery", json!("newreno")),
            ("partial_ack_timer", json!("first")),
            ("recovery_exit", json!("ssthresh")),
            ("frto", json!(false)),
            ("ecn", json!(false)),
        ],
        "ns2" => vec![
            ("mss", json!(1000)),
            ("header", json!(40)),
            ("ack_size", json!(40)),
            ("init_cwnd", json!(2)),
            ("rto_initial", json!("3s")),
            ("rto_min", json!("200ms")),
            ("rto_max", json!("60s")),
            ("rto_tick", json!("10ms")),
            ("syn", json!(true)),
            ("dupack_threshold", json!(3)),
            ("sack", json!(false)),
            ("bugfix", json!(true)),
            ("ssthresh_basis", json!("window")),
            ("rto_restart_on_fast_retransmit", json!(true)),
            ("partial_ack_timer", json!("first")),
            ("recovery_exit", json!("ssthresh")),
            ("limited_transmit", json!(true)),
            ("recovery_burst", json!(2)),
            ("ecn", json!(false)),
            ("ece_increase", json!(false)),
        ],
        _ => return None,
    })
}

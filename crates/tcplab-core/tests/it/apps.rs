//! Transports and sources: UDP flows, CBR and on/off sources (over UDP and app-limited
//! TCP), flow schedules.

use crate::common::{build, f, named, run, summary, two_host, u};
use serde_json::Value;

fn flow<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(s, "flows", name)
}

/// A 10 Mb/s, 10 ms link each way; `flows` and `extra` appended.
fn lan(flows: &str, duration: &str, extra: &str) -> String {
    two_host(
        "10Mbps",
        "10Mbps",
        "10ms",
        "10ms",
        "{ type = \"droptail\", limit = 100 }",
        0.0,
        flows,
        duration,
        extra,
    )
}

#[test]
fn cbr_over_udp_delivers_its_rate_exactly() {
    let toml = lan(
        r#"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "1Mbps", packet_size = 1000, start = "1s", stop = "9s" }
"#,
        "10s",
        "",
    );
    let b = run(&toml);
    let s = tcplab_core::report::summary(&b, 0.0);
    let fl = flow(&s, "u");
    assert_eq!(fl["transport"], "udp");
    // One datagram every 8 ms in [1 s, 9 s): 1000, all delivered (last at 9.011 s).
    assert_eq!(u(&fl["packets_sent"]), 1000);
    assert_eq!(u(&fl["packets_delivered"]), 1000);
    assert_eq!(u(&fl["bytes_delivered"]), 1_000_000);
    assert_eq!(f(&fl["loss_fraction"]), 0.0);
    assert!((f(&fl["goodput_bps"]) - 800_000.0).abs() < 1e-6);
    // Every full interval inside the active period carries exactly 125 datagrams.
    let iv = &b.sim.intervals;
    let mut seen = 0;
    for k in 0..iv.flow.len() {
        if iv.t_start[k] >= 2.0 && iv.t_end[k] <= 9.0 {
            assert!(
                (iv.goodput_bps[k] - 1e6).abs() < 1e-6,
                "{}",
                iv.goodput_bps[k]
            );
            assert!((iv.throughput_bps[k] - 125.0 * 1028.0 * 8.0).abs() < 1e-6);
            assert_eq!(iv.cwnd_bytes[k], 0);
            seen += 1;
        }
    }
    assert_eq!(seen, 7);
    // No acks: nothing ever crossed the reverse link.
    assert_eq!(u(&s["links"][1]["tx_packets"]), 0);
}

#[test]
fn udp_overload_of_a_droptail_link() {
    // 2 Mb/s of 1000-B payloads (+28 B headers) into a 1 Mb/s link.
    let toml = two_host(
        "1Mbps",
        "1Mbps",
        "5ms",
        "5ms",
        "{ type = \"droptail\", limit = 20 }",
        0.0,
        r#"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "2Mbps", packet_size = 1000 }
"#,
        "200s",
        "[metrics]\nsteady_start = \"20s\"",
    );
    let s = summary(&toml);
    let fl = flow(&s, "u");
    let lambda = 2e6 / 8000.0; // datagrams/s offered
    let cap = 1e6 / (1028.0 * 8.0); // datagrams/s the link carries
    let loss = f(&fl["loss_fraction"]);
    assert!((loss - (1.0 - cap / lambda)).abs() < 1e-3, "loss {loss}");
    assert!((f(&fl["throughput_bps"]) / 1e6 - 1.0).abs() < 1e-3);
    assert!((f(&fl["goodput_bps"]) / (1e6 * 1000.0 / 1028.0) - 1.0).abs() < 1e-3);
    assert!(f(&s["links"][0]["utilization"]) > 0.999);
    let sent = u(&fl["packets_sent"]);
    assert_eq!(sent, 200 * 250);
    // Lost + delivered = every datagram up to the last arrival; the rest were sent during
    // the last packet's sojourn (at most 21 queued packets' service plus 5 ms).
    let lost = u(&fl["packets_lost"]);
    let delivered = u(&fl["packets_delivered"]);
    let unaccounted = sent - (lost + delivered);
    let sojourn = 21.0 / cap + 0.005;
    assert!(
        unaccounted as f64 <= sojourn * lambda + 1.0,
        "{unaccounted}"
    );
    assert!(unaccounted > 0);
}

#[test]
fn app_limited_tcp_carries_a_cbr_below_capacity() {
    // T-CBR-PLAYBACK: 1 Mb/s over TCP, 1000-B writes every 8 ms.
    let toml = lan(
        r#"
[flows.t]
from = "a"
to = "b"
app = { type = "cbr", rate = "1Mbps", packet_size = 1000 }
"#,
        "60s",
        "[metrics]\nsteady_start = \"5s\"",
    );
    let s = summary(&toml);
    let fl = flow(&s, "t");
    assert!(fl.get("transport").is_none(), "TCP records keep their keys");
    let g = f(&fl["goodput_bps"]);
    assert!((g / 1e6 - 1.0).abs() < 0.005, "goodput {g}");
    assert_eq!(u(&fl["retransmits"]), 0);
    // Each 1000-B write leaves as its own segment (the window is never the limit).
    assert_eq!(u(&fl["segments_sent"]), 7500);
}

fn onoff_toml(seed: u64, duration: &str) -> String {
    format!("seed = {seed}\n")
        + &lan(
            r#"
[flows.v]
from = "a"
to = "b"
transport = "udp"
app = { type = "onoff", rate = "10Mbps", packet_size = 1000, on = "10ms", off = "30ms" }
"#,
            duration,
            "",
        )
}

#[test]
fn onoff_long_run_mean_rate() {
    // Exponential on 10 ms / off 30 ms at a 10 Mb/s peak: 2.5 Mb/s in the long run
    // (50 000 cycles; the standard deviation of the on fraction is about 0.5 %).
    let s = summary(&onoff_toml(1, "2000s"));
    let fl = flow(&s, "v");
    let rate = u(&fl["packets_sent"]) as f64 * 8000.0 / 2000.0;
    assert!((rate / 2.5e6 - 1.0).abs() < 0.02, "mean rate {rate}");
    assert_eq!(f(&fl["loss_fraction"]), 0.0);
}

#[test]
fn onoff_is_deterministic_per_seed() {
    let a = summary(&onoff_toml(3, "20s"));
    let b = summary(&onoff_toml(3, "20s"));
    let c = summary(&onoff_toml(4, "20s"));
    let strip = |mut v: Value| {
        v["run"]["wall_seconds"] = Value::Null;
        v.to_string()
    };
    assert_eq!(strip(a.clone()), strip(b));
    assert_ne!(flow(&a, "v")["packets_sent"], flow(&c, "v")["packets_sent"]);
}

fn scheduled(transport: &str, app: &str) -> String {
    let mut flows = String::new();
    for i in 0..4 {
        flows += &format!(
            "[flows.f{i}]\nfrom = \"a\"\nto = \"b\"\ntransport = \"{transport}\"\napp = {app}\n"
        );
    }
    lan(
        &flows,
        "10s",
        r#"
[schedules.g]
flows = ["f0", "f1", "f2", "f3"]
active = [["0s", 1], ["2s", 3], ["4s", 4], ["6s", 2], ["8s", 0], ["9s", 1]]
"#,
    )
}

#[test]
fn schedule_changes_the_active_flow_count() {
    let s = summary(&scheduled(
        "udp",
        "{ type = \"cbr\", rate = \"1Mbps\", packet_size = 1000 }",
    ));
    let sch = &s["schedules"]["g"];
    assert_eq!(sch["requested"], sch["active"]);
    let want: Value =
        serde_json::from_str("[[0.0, 1], [2.0, 3], [4.0, 4], [6.0, 2], [8.0, 0], [9.0, 1]]")
            .unwrap();
    assert_eq!(sch["active"], want);
    // Highest-index flows leave first; f0 rejoins at 9 s. 125 datagrams per active second.
    let sent = |n: &str| u(&flow(&s, n)["packets_sent"]);
    assert_eq!(sent("f0"), 1000 + 125);
    assert_eq!(sent("f1"), 750);
    assert_eq!(sent("f2"), 500);
    assert_eq!(sent("f3"), 250);
}

#[test]
fn scheduled_tcp_flows_stop_and_rejoin() {
    let b = run(&scheduled("tcp", "{ type = \"bulk\" }"));
    let iv = &b.sim.intervals;
    let good = |name: &str, t0: f64| -> f64 {
        (0..iv.flow.len())
            .find(|&k| b.sim.flows[iv.flow[k].index()].name == name && iv.t_start[k] == t0)
            .map(|k| iv.goodput_bps[k])
            .unwrap()
    };
    // f3 runs in [4 s, 6 s) only; f0 stops at 8 s and rejoins at 9 s. A stopped flow
    // still delivers what it sent (retransmissions included), then falls silent.
    for t in [0.0, 1.0, 2.0, 3.0] {
        assert_eq!(good("f3", t), 0.0);
    }
    assert!(good("f3", 4.0) > 0.0 && good("f3", 5.0) > 0.0);
    assert!(good("f0", 7.0) > 0.0);
    for n in ["f1", "f2", "f3"] {
        assert_eq!(good(n, 9.0), 0.0, "{n}");
    }
    assert!(good("f0", 9.0) > 0.0);
    // The TCP sender of a flow that left offers no new data: f3's last byte was written
    // before 6 s, so its sequence space stops growing.
    let (s3, _) = b.sim.flows[3].tcp().unwrap();
    assert_eq!(s3.app_limit(), s3.snd_max());
    // The intervals' `active` column follows the schedule (1-s intervals): f3 in [4, 6),
    // f0 out in [8, 9) only, f1 in [2, 8).
    let active = |name: &str, t0: f64| -> f64 {
        (0..iv.flow.len())
            .find(|&k| b.sim.flows[iv.flow[k].index()].name == name && iv.t_start[k] == t0)
            .map(|k| iv.active[k])
            .unwrap()
    };
    let row = |n: &str| (0..10).map(|t| active(n, t as f64)).collect::<Vec<_>>();
    assert_eq!(row("f3"), [0., 0., 0., 0., 1., 1., 0., 0., 0., 0.]);
    assert_eq!(row("f0"), [1., 1., 1., 1., 1., 1., 1., 1., 0., 1.]);
    assert_eq!(row("f1"), [0., 0., 1., 1., 1., 1., 1., 1., 0., 0.]);
}

#[test]
fn udp_flows_need_no_return_path() {
    // One-way network: a UDP flow builds, a TCP flow does not.
    let one_way = |transport: &str| {
        format!(
            r#"
duration = "1s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "1Mbps"
[flows.f]
from = "a"
to = "b"
transport = "{transport}"
app = {{ type = "cbr", rate = "100kbps" }}
"#
        )
    };
    build(&one_way("udp"));
    let e = tcplab_core::load_toml(&one_way("tcp"), None).err().unwrap();
    assert_eq!(e.field, "flows.f");
}

#[test]
fn start_jitter_delays_starts_per_seed_and_makes_the_run_stochastic() {
    let flows = "[flows.f]\nfrom = \"a\"\nto = \"b\"\nstart_jitter = \"1s\"\napp = { type = \"bulk\", start = \"2s\" }\n\
                 [flows.g]\nfrom = \"a\"\nto = \"b\"\nstart_jitter = \"1s\"\n";
    let toml = lan(flows, "5s", "");
    let starts = |seed: u64| -> Vec<f64> {
        let b = tcplab_core::load_toml(&toml, Some(seed)).unwrap();
        b.sim
            .flows
            .iter()
            .map(|f| f.app.start().as_secs_f64())
            .collect()
    };
    let (s1, s1b, s2) = (starts(1), starts(1), starts(2));
    assert_eq!(s1, s1b, "same seed, same starts");
    assert_ne!(s1, s2, "other seed, other starts");
    assert!(
        (2.0..3.0).contains(&s1[0]) && (0.0..1.0).contains(&s1[1]),
        "{s1:?}"
    );
    // The flows draw from their own streams: different offsets.
    assert_ne!(s1[0] - 2.0, s1[1]);
    let s = summary(&toml);
    assert_eq!(s["run"]["stochastic"], true);
    let plain = summary(&lan("[flows.g]\nfrom = \"a\"\nto = \"b\"\n", "5s", ""));
    assert_eq!(plain["run"]["stochastic"], false);
    // A jitter that can reach the stop is refused, naming the field.
    let bad = lan(
        "[flows.f]\nfrom = \"a\"\nto = \"b\"\nstart_jitter = \"2s\"\napp = { type = \"bulk\", start = \"1s\", stop = \"1.5s\" }\n",
        "5s",
        "",
    );
    let e = tcplab_core::load_toml(&bad, Some(3))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("flows.f.start_jitter"), "{e}");
}

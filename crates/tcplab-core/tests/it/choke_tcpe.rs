//! Seed 002's mechanisms end to end: TCP/E over RED-I with ECN, CHOKe against an
//! unresponsive UDP flow, and their bad-input errors.

use crate::common::{f, named, run, two_host, u};
use serde_json::Value;
use tcplab_core::stats::columns::ColRef;

fn link<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(s, "links", name)
}

fn flow<'a>(s: &'a Value, name: &str) -> &'a Value {
    named(s, "flows", name)
}

/// One flow with `cc` a → b over 10 Mb/s, 40 ms RTT, the RED-I queue seed 002 uses
/// (thresholds scaled to this path: BDP 34 packets of 1460 B).
fn one_flow(cc: &str, extra_flow: &str, trace: bool) -> tcplab_core::scenario::Built {
    let metrics = if trace {
        "[metrics]\nsteady_start = \"10s\"\ntrace = \"100ms\""
    } else {
        "[metrics]\nsteady_start = \"10s\""
    };
    run(&two_host(
        "10Mbps",
        "10Mbps",
        "20ms",
        "20ms",
        "{ type = \"red_i\", min_th = 20, max_th = 60, limit = 300 }",
        0.0,
        &format!(
            r#"
[flows.f]
from = "a"
to = "b"
cc = "{cc}"
mss = 1460
ecn = true
{extra_flow}
"#
        ),
        "60s",
        metrics,
    ))
}

#[test]
fn tcpe_over_red_i_fills_the_link_without_a_drop() {
    let b = one_flow("tcpe", "", true);
    let s = tcplab_core::report::summary(&b, 0.0);
    let (l, fl) = (link(&s, "ab"), flow(&s, "f"));
    assert_eq!(u(&l["drops"]), 0, "{l}");
    assert_eq!(u(&fl["retransmits"]), 0);
    assert!(u(&l["marks"]) > 1000, "rate matching runs on marks: {l}");
    // One ECE per mark (the default echo for tcpe), and no RFC 3168 halving.
    // (marks still travelling when the run ends: at most the buffer plus a BDP of 35)
    let (ece, ce, marks) = (u(&fl["ece_acks"]), u(&fl["ce_marks"]), u(&l["marks"]));
    assert!(ece <= ce && ce - ece <= 35, "{ece} ECE acks for {ce} marks");
    assert!(
        ce <= marks && marks - ce <= 335,
        "{marks} marks, {ce} received"
    );
    assert_eq!(u(&fl["ecn_reductions"]), 0);
    let eff = f(&fl["efficiency"]);
    assert!(eff >= 0.99, "steady-state link share {eff}");
    // The trace hook: mode and freeze flags, both seen in both states.
    let tr = &b.sim.cwnd_trace;
    assert_eq!(tr.cc_names, ["slow_start", "frozen"]);
    let cols = tr.columns();
    let col = |name: &str| -> Vec<f64> {
        let c = cols.iter().find(|c| c.name == name).unwrap();
        let ColRef::F64(v) = c.data else {
            panic!("f64")
        };
        v.to_vec()
    };
    let (ss, frozen) = (col("cc_slow_start"), col("cc_frozen"));
    assert!(ss.iter().all(|&x| x == 0.0 || x == 1.0));
    assert!(ss.contains(&1.0) && ss.contains(&0.0), "both modes");
    assert!(frozen.contains(&1.0) && frozen.contains(&0.0));
}

#[test]
fn tcpe_keeps_the_link_fuller_than_standard_ecn_tcp_at_high_bdp() {
    // 100 Mb/s, 200 ms RTT (BDP ≈ 1700 packets), a RED-I ramp far below the BDP: NewReno
    // with RFC 3168 halves per window of marks and cannot refill the pipe; TCP/E freezes.
    let scenario = |cc: &str| {
        let toml = two_host(
            "100Mbps",
            "100Mbps",
            "100ms",
            "100ms",
            "{ type = \"red_i\", min_th = 50, max_th = 150, limit = 2000 }",
            0.0,
            &format!(
                "[flows.f]\nfrom = \"a\"\nto = \"b\"\ncc = \"{cc}\"\nmss = 1460\necn = true\n"
            ),
            "120s",
            "[metrics]\nsteady_start = \"30s\"",
        );
        tcplab_core::report::summary(&run(&toml), 0.0)
    };
    let (e, r) = (scenario("tcpe"), scenario("newreno"));
    let (ee, er) = (
        f(&flow(&e, "f")["efficiency"]),
        f(&flow(&r, "f")["efficiency"]),
    );
    assert!(ee >= 0.98, "tcpe {ee}");
    assert!(er < 0.9, "newreno with ECN halvings {er}");
    assert_eq!(u(&link(&e, "ab")["drops"]), 0);
}

/// 32 NewReno flows `t0` … `t31` and a UDP CBR flow `u` offering 20 Mb/s (twice the link,
/// PPP00's ratio) share a 10 Mb/s link a → b (40 ms RTT) whose queue is `queue`; returns
/// the TCP flows' and the UDP flow's shares of the link and the summary.
fn tcp_vs_udp(queue: &str) -> (f64, f64, Value) {
    let mut flows = String::new();
    for i in 0..32 {
        flows += &format!("[flows.t{i}]\nfrom = \"a\"\nto = \"b\"\ncc = \"newreno\"\nmss = 960\n");
    }
    flows += r#"
[flows.u]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "19.44Mbps", packet_size = 972 }
"#;
    let toml = two_host(
        "10Mbps",
        "10Mbps",
        "20ms",
        "20ms",
        queue,
        0.0,
        &flows,
        "60s",
        "[metrics]\nsteady_start = \"20s\"",
    );
    let s = tcplab_core::report::summary(&run(&toml), 0.0);
    let tcp: f64 = (0..32)
        .map(|i| f(&flow(&s, &format!("t{i}"))["efficiency"]))
        .sum();
    let udp = f(&flow(&s, "u")["efficiency"]);
    (tcp, udp, s)
}

#[test]
fn choke_takes_bandwidth_back_from_an_unresponsive_udp_flow() {
    // Drop-tail and RED let the UDP flow take nearly the whole link; CHOKe (PPP00: a check
    // on every arrival above min_th, both packets dropped on a match) hits the flow that
    // holds most of the queue, so UDP falls far below its offer and the TCP flows get most
    // of the link back.
    let (t_dt, u_dt, _) = tcp_vs_udp("{ type = \"droptail\", limit = 300 }");
    let (t_red, u_red, _) =
        tcp_vs_udp("{ type = \"red\", min_th = 50, max_th = 150, limit = 300 }");
    let (t_ch, u_ch, s) =
        tcp_vs_udp("{ type = \"choke\", min_th = 50, max_th = 150, limit = 300 }");
    assert!(
        u_dt > 0.9 && u_red > 0.9,
        "UDP: drop-tail {u_dt}, RED {u_red}"
    );
    assert!(
        t_dt < 0.1 && t_red < 0.1,
        "TCP: drop-tail {t_dt}, RED {t_red}"
    );
    assert!(u_ch < 0.35, "CHOKe leaves UDP {u_ch}");
    assert!(t_ch > 0.6, "CHOKe gives TCP {t_ch}");
    let l = link(&s, "ab");
    assert_eq!(l["queue"], "choke");
    let (checks, matches) = (u(&l["choke_checks"]), u(&l["choke_matches"]));
    assert!(matches > 1000 && checks > matches, "{checks} {matches}");
    assert_eq!(u(&l["drops_choke"]), 2 * matches, "pairs");
    assert_eq!(
        u(&l["drops"]),
        u(&l["drops_choke"])
            + u(&l["drops_early"])
            + u(&l["drops_forced"])
            + u(&l["drops_overflow"])
    );
    // CHOKe draws random queued packets: seeds can differ.
    assert_eq!(s["run"]["stochastic"], true);
}

#[test]
fn tcpe_and_choke_errors_name_the_leaf_field() {
    let base_cc = |cc: &str, flow_extra: &str, queue: &str| {
        two_host(
            "10Mbps",
            "10Mbps",
            "20ms",
            "20ms",
            queue,
            0.0,
            &format!("[flows.f]\nfrom = \"a\"\nto = \"b\"\ncc = {cc}\n{flow_extra}"),
            "1s",
            "",
        )
    };
    let base = |flow_extra: &str, queue: &str| base_cc("\"tcpe\"", flow_extra, queue);
    let red_i = "{ type = \"red_i\", min_th = 20, max_th = 60 }";
    let cases: &[(String, &str, &str)] = &[
        (base("", red_i), "flows.f.ecn", "needs ecn = true"),
        (
            base("ecn = true\necn_echo = \"rfc3168\"", red_i),
            "flows.f.ecn_echo",
            "per_mark",
        ),
        (
            base_cc(
                "{ algorithm = \"tcpe\", rtt_basis = \"min\" }",
                "ecn = true",
                red_i,
            ),
            "flows.f.cc.rtt_basis",
            "unknown variant",
        ),
        (
            base(
                "ecn = true",
                "{ type = \"choke_red_i\", min_th = 20, max_th = 60, period = \"0s\" }",
            ),
            "links.ab.queue.period",
            "positive",
        ),
        (
            base(
                "ecn = true",
                "{ type = \"choke_red_i\", min_th = 20, max_th = 60, check = \"often\" }",
            ),
            "links.ab.queue.check",
            "unknown variant",
        ),
        (
            base(
                "ecn = true",
                "{ type = \"choke\", min_th = 20, max_th = 60, check_prob = 1.5 }",
            ),
            "links.ab.queue.check_prob",
            "(0, 1]",
        ),
        (
            base(
                "ecn = true",
                "{ type = \"choke\", min_th = 20, max_th = 10 }",
            ),
            "links.ab.queue.max_th",
            "greater than min_th",
        ),
    ];
    for (toml, field, words) in cases {
        let e = tcplab_core::load_toml(toml, None)
            .err()
            .unwrap_or_else(|| panic!("accepted: {toml}"));
        assert_eq!(&e.field, field, "{e}");
        assert!(e.reason.contains(words), "{field}: {}", e.reason);
        assert!(!e.to_string().contains('\n'));
    }
    // tcpe with ecn and no ecn_echo: per_mark by default.
    let ok = base("ecn = true", red_i);
    let b = tcplab_core::load_toml(&ok, None).unwrap();
    assert_eq!(
        b.flow_meta[0].tcp.ecn.echo,
        tcplab_core::tcp::EcnEcho::PerMark
    );
}

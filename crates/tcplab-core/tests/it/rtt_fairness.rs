//! FAST's equilibrium with different round-trip times (seed 001 issue cross-check; FAST
//! TCP, Jin, Wei, Low 2004): every flow keeps α of its own packets in the bottleneck
//! queue, so in equilibrium flow i sends x_i = α/q_delay with one common queueing delay,
//! whatever its propagation delay: equal rates (proportional fairness with equal α).
//! Reno's rate falls with its RTT instead (x ∝ 1/(RTT·√p)).
//!
//! Dumbbell: three senders with access delays 1, 15 and 40 ms (propagation RTTs 24, 52 and
//! 102 ms) into a 16 Mb/s, 10 ms bottleneck; 1000-B payloads (1040 B on the wire: 0.52 ms
//! per packet at 16 Mb/s).

use crate::common::{f, named, run, summary};
use tcplab_core::event::LinkId;

fn dumbbell(cc: &str, buffer: u32) -> String {
    let mut s = String::from(
        "duration = \"120s\"\n[nodes]\nr1 = \"router\"\nr2 = \"router\"\nd = \"host\"\n",
    );
    for i in 1..=3 {
        s += &format!("s{i} = \"host\"\n");
    }
    let link = |n: &str, a: &str, b: &str, rate: &str, delay: &str, q: u32| {
        format!(
            "[links.{n}]\nfrom = \"{a}\"\nto = \"{b}\"\nrate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {{ type = \"droptail\", limit = {q} }}\n"
        )
    };
    for (i, d) in [(1, "1ms"), (2, "15ms"), (3, "40ms")] {
        s += &link(
            &format!("s{i}r1"),
            &format!("s{i}"),
            "r1",
            "100Mbps",
            d,
            1000,
        );
        s += &link(
            &format!("r1s{i}"),
            "r1",
            &format!("s{i}"),
            "100Mbps",
            d,
            1000,
        );
    }
    s += &link("bn", "r1", "r2", "16Mbps", "10ms", buffer);
    s += &link("bnr", "r2", "r1", "16Mbps", "10ms", 1000);
    s += &link("r2d", "r2", "d", "100Mbps", "1ms", 1000);
    s += &link("dr2", "d", "r2", "100Mbps", "1ms", 1000);
    for i in 1..=3 {
        s += &format!(
            "[flows.f{i}]\nfrom = \"s{i}\"\nto = \"d\"\ncc = {cc}\nmss = 1000\nefficiency_link = \"bn\"\n"
        );
    }
    s += "[metrics]\nsteady_start = \"60s\"\ntrace = \"10ms\"\n";
    s
}

fn rates(s: &serde_json::Value) -> Vec<f64> {
    (1..=3)
        .map(|i| f(&named(s, "flows", &format!("f{i}"))["throughput_bps"]))
        .collect()
}

fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn fast_gives_equal_rates_whatever_the_rtt() {
    let b = run(&dumbbell(
        "{ algorithm = \"fast\", alpha = 50, gamma = 0.5 }",
        1000,
    ));
    let s = tcplab_core::report::summary(&b, 0.0);
    let x = rates(&s);
    let bn = named(&s, "links", "bn");
    assert_eq!(crate::common::u(&bn["drops"]), 0, "{bn}");
    let total: f64 = x.iter().sum();
    assert!(total > 0.99 * 16e6, "link not full: {x:?}");
    let (lo, hi) = (
        x.iter().cloned().fold(f64::MAX, f64::min),
        x.iter().cloned().fold(0.0, f64::max),
    );
    eprintln!("FAST rates {x:?}, queue below");
    assert!(hi / lo < 1.05, "rates {x:?}: max/min {:.3}", hi / lo);
    assert!(jain(&x) > 0.999, "Jain {}", jain(&x));
    // Three flows with α = 50 each: about 150 packets waiting (sampled queue after the
    // warm-up, without the packet in service).
    let qt = &b.sim.queue_trace;
    let id = LinkId::from_index(b.sim.links.iter().position(|l| l.name == "bn").unwrap());
    let v: Vec<f64> = (0..qt.t.len())
        .filter(|&k| qt.link[k] == id && qt.t[k] >= 60.0)
        .map(|k| (qt.packets[k] as f64 - 1.0).max(0.0))
        .collect();
    let q = v.iter().sum::<f64>() / v.len() as f64;
    eprintln!("FAST mean queue {q:.1} packets");
    assert!((140.0..=160.0).contains(&q), "mean queue {q}");
    // Each flow's mean RTT in the steady state is its propagation round trip plus the queue's
    // delay, q packets of 1040 B at 16 Mb/s (0.52 ms each); its p99 is not far above (a
    // standing queue, no oscillation).
    for i in 1..=3 {
        let fl = named(&s, "flows", &format!("f{i}"));
        let (mean, p99, min) = (
            f(&fl["mean_rtt_s"]),
            f(&fl["p99_rtt_s"]),
            f(&fl["min_rtt_s"]),
        );
        let queueing = q * 1040.0 * 8.0 / 16e6;
        assert!(
            ((mean - min) / queueing - 1.0).abs() < 0.1,
            "f{i}: mean {mean} min {min} queueing {queueing}"
        );
        assert!(
            p99 >= mean && p99 < 1.2 * mean,
            "f{i}: p99 {p99} mean {mean}"
        );
    }
}

#[test]
fn newreno_rates_depend_on_the_rtt() {
    // A 100-packet buffer (about one BDP of the shortest path): the queueing delay does not
    // swamp the propagation differences. Slow start capped at 20 segments (without it the
    // start-up overshoot leaves one flow in a long NewReno recovery, which is not the point
    // here). Measured: 2.98, 11.56, 1.46 Mb/s (Jain 0.59): the longest RTT gets least, but
    // the middle flow, not the shortest, gets most: drop-tail phase effects (Floyd and
    // Jacobson 1992) on top of the 1/RTT bias; FAST above shows none of either.
    let x = rates(&summary(
        &dumbbell("\"newreno\"", 100)
            .replace("mss = 1000\n", "mss = 1000\ninit_ssthresh = 20000\n"),
    ));
    eprintln!("NewReno rates {x:?}, Jain {:.3}", jain(&x));
    assert!(
        x[2] < x[0] && x[2] < x[1],
        "rates {x:?}: the longest RTT not last?"
    );
    assert!(x[0] / x[2] > 1.5, "rates {x:?}: no RTT bias?");
    assert!(jain(&x) < 0.95, "Jain {}", jain(&x));
}

#[test]
fn fairness_and_steady_link_metrics_in_the_summary() {
    // FAST flows in group "fast"; the summary's Jain index and steady-state utilisation.
    let toml = dumbbell("{ algorithm = \"fast\", alpha = 50, gamma = 0.5 }", 1000).replace(
        "efficiency_link = \"bn\"\n",
        "efficiency_link = \"bn\"\ngroup = \"fast\"\n",
    );
    let s = summary(&toml);
    let x = rates(&s);
    let j = f(&s["fairness"]["jain"]);
    let goodputs: Vec<f64> = (1..=3)
        .map(|i| f(&named(&s, "flows", &format!("f{i}"))["goodput_bps"]))
        .collect();
    assert!(
        (j - jain(&goodputs)).abs() < 1e-12 && j > 0.999,
        "{j} {x:?}"
    );
    let g = &s["fairness"]["groups"]["fast"];
    assert_eq!(g["flows"], 3);
    assert_eq!(f(&g["jain"]), j);
    assert_eq!(named(&s, "flows", "f2")["group"], "fast");
    let bn = named(&s, "links", "bn");
    // Full after the warm-up; the whole-run figure includes slow start.
    assert!(f(&bn["steady_utilization"]) > 0.999, "{bn}");
    assert!(f(&bn["utilization"]) < f(&bn["steady_utilization"]));
    assert_eq!(f(&bn["steady_drop_rate"]), 0.0);
    // Without groups there is no `group` key and `groups` is empty.
    let plain = summary(&dumbbell("\"newreno\"", 100));
    assert!(named(&plain, "flows", "f1").get("group").is_none());
    assert!(plain["fairness"]["groups"].as_object().unwrap().is_empty());
    assert!(f(&named(&plain, "links", "bn")["steady_drop_rate"]) > 0.0);
}

/// The warnings for results a user likely did not mean.
mod likely_not_meant {
    use crate::common::summary;

    fn warnings(s: &serde_json::Value) -> Vec<String> {
        s["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .collect()
    }

    const TWO_HOST: &str = r#"
duration = "40s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
ERROR
[links.ba]
from = "b"
to = "a"
rate = "10Mbps"
delay = "10ms"
[flows.f]
from = "a"
to = "b"
[metrics]
interval = "1s"
"#;

    #[test]
    fn a_flow_that_delivers_nothing_for_several_intervals_is_flagged() {
        // Both directions down for 10 s: the flow backs off (timeouts) and delivers nothing.
        let outage = "error = { model = \"outage\", schedule = \"o\" }";
        let toml = TWO_HOST.replace("ERROR", outage)
            + "[outages.o]\ntype = \"list\"\nintervals = [[\"10s\", \"20s\"]]\n";
        let w = warnings(&summary(&toml));
        assert!(
            w.iter()
                .any(|x| x.starts_with("flow 'f' delivered nothing for")
                    && x.contains("consecutive intervals (1")),
            "{w:?}"
        );
        // The same path without the outage: no such warning.
        let w = warnings(&summary(&TWO_HOST.replace("ERROR", "")));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_bottleneck_fed_by_links_of_its_own_rate_is_flagged() {
        // Seed 003's dumbbell: access links at exactly the bottleneck's rate tie at its queue.
        let toml = |access: &str| {
            format!(
                r#"
duration = "20s"
[dumbbell]
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 30 }}
access = {{ rate = "{access}", delay = "5ms" }}
flows = [{{ count = 4, cc = "newreno" }}]
"#
            )
        };
        let s = summary(&toml("10Mbps"));
        let w = warnings(&s);
        let tie: Vec<&String> = w
            .iter()
            .filter(|x| x.contains("exactly its rate"))
            .collect();
        assert_eq!(tie.len(), 1, "{w:?}");
        let bn = s["links"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| {
                tie[0].starts_with(&format!("links.{}: dropped ", l["name"].as_str().unwrap()))
            })
            .expect("the warning names a link");
        assert_eq!(bn["rate_bps"], 10_000_000.0, "the bottleneck, {bn}");
        assert!(tie[0].contains("fed by 4 links"), "{}", tie[0]);
        // Faster access links: no ties, no warning (the same drops at the bottleneck).
        let s = summary(&toml("100Mbps"));
        assert!(
            !warnings(&s).iter().any(|x| x.contains("exactly its rate")),
            "{:?}",
            warnings(&s)
        );
    }

    #[test]
    fn a_host_queue_that_overflows_before_a_slower_link_is_flagged() {
        // A 2 Mb/s UDP source behind a 1 Mb/s host link with a 20-packet queue, then a
        // 500 kb/s link: the host queue overflows although it is not the bottleneck.
        let toml = r#"
duration = "30s"
[nodes]
a = "host"
r = "router"
b = "host"
[links.ar]
from = "a"
to = "r"
rate = "1Mbps"
delay = "1ms"
queue = { type = "droptail", limit = 20 }
[links.ra]
from = "r"
to = "a"
rate = "100Mbps"
delay = "1ms"
[links.rb]
from = "r"
to = "b"
rate = "500kbps"
delay = "10ms"
queue = { type = "droptail", limit = 1000 }
[links.br]
from = "b"
to = "r"
rate = "100Mbps"
delay = "10ms"
[flows.f]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "2Mbps" }
"#;
        let s = summary(toml);
        let w = warnings(&s);
        assert!(
            w.iter()
                .any(|x| x.starts_with("links.ar: the queue of host 'a' dropped")),
            "{w:?}"
        );
    }

    #[test]
    fn a_window_far_above_the_path_is_flagged() {
        // A 1 Mb/s CBR writer over TCP on a clean 10 Mb/s path: never loss-limited, its
        // window grows with every ack (no congestion-window validation), far above the
        // 25-kB bandwidth-delay product.
        let toml = TWO_HOST.replace("ERROR", "").replace(
            "[flows.f]\nfrom = \"a\"\nto = \"b\"\n",
            "[flows.f]\nfrom = \"a\"\nto = \"b\"\napp = { type = \"cbr\", rate = \"1Mbps\" }\n",
        );
        let w = warnings(&summary(&toml));
        assert!(
            w.iter()
                .any(|x| x.starts_with("flow 'f': its window reached")
                    && x.contains("application-limited")),
            "{w:?}"
        );
    }

    #[test]
    fn a_window_that_only_fills_its_own_host_queue_is_flagged() {
        // Issue 17's dumbbell (docs/scenarios.md): NewReno's window inflates to ~1.7 MB in a
        // long recovery behind a 100 Mb/s access link whose queue (limit 1000 packets) holds
        // the excess; path BDP 55 kB + bottleneck buffer 155 kB. The sender's own host
        // queue is not room the path offers, so the window is flagged.
        let toml = r#"
duration = "30s"
[dumbbell]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = "1bdp" }
access = { rate = "100Mbps", delay = "1ms" }
rtt = ["44ms", "44ms", "84ms", "124ms"]
flows = ["newreno", "reno", "vegas", { cc = "highspeed", name = "hs" }]
"#;
        let w = warnings(&summary(toml));
        assert!(
            w.iter()
                .any(|x| x.starts_with("flow 'f1': its window reached")),
            "{w:?}"
        );
        // Vegas keeps its window near the BDP.
        assert!(
            !w.iter().any(|x| x.starts_with("flow 'f3': its window")),
            "{w:?}"
        );
    }

    #[test]
    fn outage_periods_are_in_the_summary() {
        let outage = "error = { model = \"outage\", schedule = \"o\" }";
        let toml = TWO_HOST.replace("ERROR", outage)
            + "[outages.o]\ntype = \"list\"\nintervals = [[\"10s\", \"20s\"], [\"35s\", \"50s\"]]\n";
        let s = summary(&toml);
        // The second period is cut at the end of the run (40 s).
        assert_eq!(
            s["outages"]["o"]["periods"],
            serde_json::json!([[10.0, 20.0], [35.0, 40.0]])
        );
        assert_eq!(s["outages"]["o"]["truncated"], false);
        // Exponential handoffs: the periods add up to the link's own down time.
        let toml = TWO_HOST.replace("ERROR", outage)
            + "[outages.o]\ntype = \"periodic\"\nperiod = \"5s\"\nmean = \"1s\"\n";
        let s = summary(&toml);
        let down: f64 = s["outages"]["o"]["periods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[1].as_f64().unwrap() - p[0].as_f64().unwrap())
            .sum();
        let ab = s["links"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == "ab")
            .unwrap();
        assert!(
            (down - ab["down_s"].as_f64().unwrap()).abs() < 1e-9,
            "{down} {ab}"
        );
        // No [outages]: no key.
        assert!(summary(&TWO_HOST.replace("ERROR", ""))
            .get("outages")
            .is_none());
    }
}

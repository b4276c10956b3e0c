//! Error models in whole runs: shared outage schedules (counts in the summary), the list
//! model, and bad input naming its field.

use crate::common::run;
use tcplab_core::rng::{SimRng, Stream};

/// A wireless dumbbell: server s → router r → two wireless hosts w1, w2 (both directions of
/// both wireless links share the `handoff` schedule), plus a Gilbert-Elliott link and a
/// Bernoulli one. `extra` is appended.
fn dumbbell(duration: &str, extra: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 3
[nodes]
s = "host"
r = "router"
w1 = "host"
w2 = "host"
[outages.handoff]
type = "periodic"
period = "5s"
mean = "1s"
[links.sr]
from = "s"
to = "r"
rate = "100Mbps"
delay = "10ms"
error = {{ model = "gilbert_elliott", p_gb = 0.001, p_bg = 0.5 }}
[links.rs]
from = "r"
to = "s"
rate = "100Mbps"
delay = "10ms"
loss = 0.001
[links.rw1]
from = "r"
to = "w1"
rate = "10Mbps"
delay = "1ms"
error = {{ model = "outage", schedule = "handoff" }}
[links.w1r]
from = "w1"
to = "r"
rate = "10Mbps"
delay = "1ms"
error = {{ model = "outage", schedule = "handoff" }}
[links.rw2]
from = "r"
to = "w2"
rate = "10Mbps"
delay = "1ms"
error = {{ model = "outage", schedule = "handoff" }}
[links.w2r]
from = "w2"
to = "r"
rate = "10Mbps"
delay = "1ms"
error = {{ model = "outage", schedule = "handoff" }}
[flows.f1]
from = "s"
to = "w1"
[flows.f2]
from = "s"
to = "w2"
{extra}
"#
    )
}

const PS: f64 = 1e12;

/// P3's handoff schedule computed here from its stream (`Outage`, index 0: the first and
/// only schedule): outage k starts at 5(k+1) s and lasts min(Exp(1 s), 5 s), at least 1 ps.
fn handoffs(seed: u64, end_ps: u64) -> Vec<(u64, u64)> {
    let mut rng = SimRng::derive(seed, Stream::Outage, 0);
    let mut v = Vec::new();
    let mut k = 1u64;
    while 5 * k * 1_000_000_000_000 < end_ps {
        let d = 5 * k * 1_000_000_000_000;
        let len = (PS * -(1.0 - rng.next_f64()).ln()).round();
        let len = (len.min(5.0 * PS) as u64).max(1);
        v.push((d, d + len));
        k += 1;
    }
    v
}

#[test]
fn shared_handoff_schedule_counts_match_in_the_summary() {
    let b = run(&dumbbell("32s", ""));
    let s = tcplab_core::report::summary(&b, 0.0);
    let end = 32_000_000_000_000u64;
    let want = handoffs(3, end);
    assert_eq!(want.len(), 6);
    let down: u64 = want.iter().map(|&(d, u)| u.min(end) - d).sum();
    let links = s["links"].as_array().unwrap();
    let by = |n: &str| links.iter().find(|l| l["name"] == n).unwrap();
    for name in ["rw1", "w1r", "rw2", "w2r"] {
        let l = by(name);
        assert_eq!(l["error_model"], "outage", "{name}");
        assert_eq!(l["outages"], 6, "{name}");
        let got = l["down_s"].as_f64().unwrap();
        assert!(
            (got - down as f64 / PS).abs() < 1e-9,
            "{name}: down_s {got} vs {}",
            down as f64 / PS
        );
    }
    // The data directions lose packets in every handoff; the flows see it.
    for name in ["rw1", "rw2"] {
        assert!(by(name)["lost"].as_u64().unwrap() >= 6, "{name}");
    }
    for f in s["flows"].as_array().unwrap() {
        assert!(f["timeouts"].as_u64().unwrap() > 0, "{f}");
    }
    // Other models add the name but no outages; Bernoulli (and none) add nothing.
    assert_eq!(by("sr")["error_model"], "gilbert_elliott");
    assert_eq!(by("sr")["outages"], 0);
    assert!(by("rs").get("error_model").is_none());
    assert!(by("rs").get("outages").is_none());
}

#[test]
fn an_outage_in_progress_at_the_end_counts_up_to_the_end() {
    // End halfway through the first handoff (starts at 5 s): it is still going at the
    // end, and down_s counts up to the end.
    let first = handoffs(3, 6_000_000_000_000)[0];
    let half_ms = (first.1 - first.0) / 2 / 1_000_000_000;
    assert!(half_ms > 0);
    let end = first.0 + half_ms * 1_000_000_000;
    let b = run(&dumbbell(&format!("{}ms", end / 1_000_000_000), ""));
    let s = tcplab_core::report::summary(&b, 0.0);
    let want = handoffs(3, end);
    assert_eq!(want.len(), 1);
    let down = want[0].1.min(end) - want[0].0;
    let l = s["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "rw1")
        .unwrap();
    assert!(want[0].1 > end);
    assert_eq!(l["outages"], 1);
    assert!((l["down_s"].as_f64().unwrap() - down as f64 / PS).abs() < 1e-9);
}

#[test]
fn list_model_in_a_scenario_loses_exactly_those_packets() {
    let sc = r#"
duration = "5s"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "1Mbps"
delay = "5ms"
error = { model = "list", packets = [3, 4, 40] }
[links.ba]
from = "b"
to = "a"
rate = "1Mbps"
delay = "5ms"
[flows.f]
from = "a"
to = "b"
app = { type = "transfer", bytes = 100000 }
"#;
    let b = run(sc);
    let s = tcplab_core::report::summary(&b, 0.0);
    let l = &s["links"].as_array().unwrap()[0];
    assert_eq!(l["name"], "ab");
    assert_eq!(l["lost"], 3);
    assert_eq!(l["error_model"], "list");
    let f = &s["flows"].as_array().unwrap()[0];
    assert!(f["retransmits"].as_u64().unwrap() >= 3, "{f}");
    assert!(f["completed_at_s"].as_f64().is_some(), "{f}");
}

#[test]
fn loss_shorthand_and_bernoulli_model_give_the_same_run() {
    let a = crate::common::two_host(
        "1Mbps",
        "1Mbps",
        "5ms",
        "5ms",
        "{ type = \"droptail\" }",
        0.02,
        "[flows.f]\nfrom = \"a\"\nto = \"b\"",
        "20s",
        "",
    );
    let b = a.replace("loss = 0.02", "error = { model = \"bernoulli\", p = 0.02 }");
    assert_ne!(a, b);
    let (ra, rb) = (run(&a), run(&b));
    let (sa, sb) = (
        tcplab_core::report::summary(&ra, 0.0),
        tcplab_core::report::summary(&rb, 0.0),
    );
    assert!(sa["links"][0]["lost"].as_u64().unwrap() > 10);
    assert_eq!(sa["links"], sb["links"]);
    assert_eq!(sa["flows"], sb["flows"]);
}

fn err(toml: &str) -> (String, String) {
    match tcplab_core::load_toml(toml, None) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
            (e.field, msg)
        }
    }
}

#[test]
fn bad_error_models_name_their_field() {
    let good = dumbbell("10s", "");
    assert!(tcplab_core::load_toml(&good, None).is_ok());
    let gel = "error = { model = \"gilbert_elliott\", p_gb = 0.001, p_bg = 0.5 }";
    let w1 = "[links.rw1]\nfrom = \"r\"\nto = \"w1\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\nerror = { model = \"outage\", schedule = \"handoff\" }";
    let w1_with = |e: &str| {
        format!("[links.rw1]\nfrom = \"r\"\nto = \"w1\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n{e}")
    };
    let per = "period = \"5s\"\nmean = \"1s\"";
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            gel,
            format!("{gel}\nloss = 0.1"),
            "links.sr.error",
            "not both",
        ),
        (
            gel,
            "error = { model = \"gilbert\", p = 0.1 }".into(),
            "links.sr.error.model",
            "unknown model 'gilbert' (known: none, bernoulli, gilbert_elliott, list, outage, poisson_time)",
        ),
        (
            gel,
            "error = { model = \"poisson_time\", mean_interval = \"0s\" }".into(),
            "links.sr.error.mean_interval",
            "at least 1us",
        ),
        (
            gel,
            "error = { model = \"poisson_time\" }".into(),
            "links.sr.error",
            "mean_interval",
        ),
        (
            gel,
            "error = { model = \"gilbert_elliott\", p_gb = 1.5, p_bg = 0.5 }".into(),
            "links.sr.error.p_gb",
            "[0, 1]",
        ),
        (
            gel,
            "error = { model = \"gilbert_elliott\", p_gb = 0.1, p_bg = 0 }".into(),
            "links.sr.error.p_bg",
            "positive",
        ),
        (
            gel,
            "error = { model = \"gilbert_elliott\", p_gb = 0.1, p_bg = 0.5, loss_bad = -1 }".into(),
            "links.sr.error.loss_bad",
            "[0, 1]",
        ),
        (
            gel,
            "error = { model = \"bernoulli\", p = 1 }".into(),
            "links.sr.error.p",
            "[0, 1)",
        ),
        (
            gel,
            "error = { model = \"list\", packets = [3, 3] }".into(),
            "links.sr.error.packets[1]",
            "increasing",
        ),
        (
            gel,
            "error = { model = \"list\", packets = [0] }".into(),
            "links.sr.error.packets[0]",
            "start at 1",
        ),
        (
            w1,
            w1_with("error = { model = \"outage\", schedule = \"handof\" }"),
            "links.rw1.error.schedule",
            "unknown outage schedule 'handof' (known: handoff)",
        ),
        (
            per,
            "period = \"0s\"\nmean = \"1s\"".into(),
            "outages.handoff.period",
            "positive",
        ),
        (per, "period = \"5s\"".into(), "outages.handoff", "`mean`"),
        (
            per,
            "period = \"5s\"\nmean = \"1s\"\nduration = \"1s\"".into(),
            "outages.handoff",
            "not both",
        ),
        (
            per,
            format!("{per}\ncap = \"6s\""),
            "outages.handoff.cap",
            "period",
        ),
        (
            per,
            format!("{per}\ncap = \"0s\""),
            "outages.handoff.cap",
            "positive",
        ),
        (
            per,
            "period = \"5s\"\nduration = \"6s\"".into(),
            "outages.handoff.duration",
            "overlap",
        ),
        (
            "type = \"periodic\"\nperiod = \"5s\"\nmean = \"1s\"",
            "type = \"list\"\nintervals = [[\"2s\", \"3s\"], [\"2.5s\", \"4s\"]]".into(),
            "outages.handoff.intervals[1]",
            "overlap",
        ),
        (
            "type = \"periodic\"\nperiod = \"5s\"\nmean = \"1s\"",
            "type = \"list\"\nintervals = [[\"3s\", \"3s\"]]".into(),
            "outages.handoff.intervals[0]",
            "end after it starts",
        ),
        (
            "type = \"periodic\"",
            "type = \"sometimes\"".into(),
            "outages.handoff.type",
            "unknown type 'sometimes' (known: periodic, list)",
        ),
    ];
    for (from, to, field, words) in cases {
        assert!(good.contains(from), "test bug: {from}");
        let (f, msg) = err(&good.replacen(from, &to, 1));
        assert_eq!(&f, field, "{msg}");
        assert!(msg.contains(words), "'{msg}' does not say '{words}'");
    }
}

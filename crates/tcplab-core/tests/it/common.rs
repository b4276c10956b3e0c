use tcplab_core::scenario::Built;

/// Two hosts `a`, `b` joined by one link each way.
#[allow(clippy::too_many_arguments)]
pub fn two_host(
    rate_ab: &str,
    rate_ba: &str,
    delay_ab: &str,
    delay_ba: &str,
    queue: &str,
    loss: f64,
    flows: &str,
    duration: &str,
    extra: &str,
) -> String {
    format!(
        r#"
duration = "{duration}"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "{rate_ab}"
delay = "{delay_ab}"
queue = {queue}
loss = {loss}
[links.ba]
from = "b"
to = "a"
rate = "{rate_ba}"
delay = "{delay_ba}"
queue = {queue}
loss = {loss}
{flows}
{extra}
"#
    )
}

/// Two greedy Reno flows in opposite directions: `i` from `a` to `b`, `j` back, with
/// windows in bytes and the given minimum RTO.
pub fn opposite_flows(
    mss_i: u32,
    mss_j: u32,
    ack: u32,
    win_i: u64,
    win_j: u64,
    rto_min: &str,
) -> String {
    let flow = |name: &str, from: &str, to: &str, mss: u32, win: u64| {
        format!(
            r#"
[flows.{name}]
from = "{from}"
to = "{to}"
cc = "reno"
mss = {mss}
ack_size = {ack}
max_window = {win}
rto_min = "{rto_min}"
rto_initial = "3s"
"#
        )
    };
    flow("i", "a", "b", mss_i, win_i) + &flow("j", "b", "a", mss_j, win_j)
}

/// `toml` under tcplab's `classic` profile where it names none at its top: these tests pin
/// the mechanisms as the papers set them up (NewReno, no SACK, IW 1, no delayed acks), not
/// the modern default (`linux`), which tests of their own check (tests/it/modern.rs).
pub fn classic(toml: &str) -> String {
    let top = toml
        .lines()
        .take_while(|l| !l.trim_start().starts_with('['));
    if top.clone().any(|l| l.trim_start().starts_with("profile")) {
        toml.to_string()
    } else {
        format!("profile = \"classic\"\n{toml}")
    }
}

pub fn build(toml: &str) -> Built {
    match tcplab_core::load_toml(&classic(toml), None) {
        Ok(b) => b,
        Err(e) => panic!("scenario error: {e}\n{toml}"),
    }
}

pub fn run(toml: &str) -> Built {
    let mut b = build(toml);
    b.sim.run();
    b
}

/// Run `toml` and return its summary.json value.
pub fn summary(toml: &str) -> serde_json::Value {
    tcplab_core::report::summary(&run(toml), 0.0)
}

/// The entry named `name` in the summary's `flows` or `links` list.
pub fn named<'a>(s: &'a serde_json::Value, list: &str, name: &str) -> &'a serde_json::Value {
    s[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .unwrap_or_else(|| panic!("no {list} entry named {name}"))
}

/// A summary number that must be an unsigned integer.
pub fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// A summary number.
pub fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

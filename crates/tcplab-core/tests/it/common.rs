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

pub fn build(toml: &str) -> Built {
    match tcplab_core::load_toml(toml, None) {
        Ok(b) => b,
        Err(e) => panic!("scenario error: {e}\n{toml}"),
    }
}

pub fn run(toml: &str) -> Built {
    let mut b = build(toml);
    b.sim.run();
    b
}

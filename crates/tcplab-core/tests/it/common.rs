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

//! Packet conservation on every link direction: offered = delivered + dropped + lost + held.

use super::common::build;

fn dumbbell(loss: f64, buffer: u32, seed: u64) -> String {
    let mut s = format!(
        r#"
duration = "20s"
seed = {seed}
[nodes]
s1 = "host"
s2 = "host"
s3 = "host"
r1 = "router"
r2 = "router"
d1 = "host"
d2 = "host"
d3 = "host"
[links.bottleneck]
from = "r1"
to = "r2"
rate = "10Mbps"
delay = "10ms"
queue = {{ type = "droptail", limit = {buffer} }}
loss = {loss}
[links.bottleneck_rev]
from = "r2"
to = "r1"
rate = "10Mbps"
delay = "10ms"
loss = {loss}
"#
    );
    for i in 1..=3 {
        s += &format!(
            r#"
[links.s{i}_r1]
from = "s{i}"
to = "r1"
rate = "100Mbps"
delay = "1ms"
[links.r1_s{i}]
from = "r1"
to = "s{i}"
rate = "100Mbps"
delay = "1ms"
[links.r2_d{i}]
from = "r2"
to = "d{i}"
rate = "100Mbps"
delay = "{i}ms"
[links.d{i}_r2]
from = "d{i}"
to = "r2"
rate = "100Mbps"
delay = "{i}ms"
[flows.f{i}]
from = "s{i}"
to = "d{i}"
cc = "newreno"
app = {{ type = "bulk", start = "{i}00ms" }}
"#
        );
    }
    s
}

#[test]
fn conservation_holds_with_drops_and_losses() {
    for (loss, buffer) in [(0.0, 10), (0.02, 20), (0.0, 1000)] {
        for seed in 1..=3 {
            let mut b = build(&dumbbell(loss, buffer, seed));
            // Check mid-run (packets in flight) and at the end.
            for t in [3.3, 20.0] {
                b.sim.run_until(
                    tcplab_core::time::SimTime::ZERO
                        + tcplab_core::time::SimDuration::from_secs_f64(t),
                );
                let mut any_drop = 0;
                for l in &b.sim.links {
                    let held = l.in_system();
                    assert_eq!(
                        l.stats.offered,
                        l.stats.delivered + l.drops.packets + l.stats.lost + held,
                        "link {} at {t}s: offered {} delivered {} dropped {} lost {} held {held}",
                        l.name,
                        l.stats.offered,
                        l.stats.delivered,
                        l.drops.packets,
                        l.stats.lost
                    );
                    any_drop += l.drops.packets + l.stats.lost;
                }
                if t == 20.0 && (loss > 0.0 || buffer == 10) {
                    assert!(any_drop > 0, "scenario meant to drop packets did not");
                }
            }
        }
    }
}

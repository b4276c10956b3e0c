//! `tcplab-bench [FLOWS RATE SECONDS]`: a dumbbell with N NewReno flows over one bottleneck
//! (access links 10x the bottleneck, 40 ms RTT, 1500-byte packets, buffer 1 BDP). Prints
//! wall time, events/s and bottleneck packets per wall second. No thresholds: this measures.

use std::time::Instant;
use tcplab_core::time::Rate;

fn dumbbell(n: usize, rate: &str, seconds: f64) -> String {
    let r = tcplab_core::scenario::units::parse_rate(rate).expect("rate like 100Mbps");
    let access = Rate(r.0 * 10);
    // 40 ms RTT: bottleneck 18 ms + two 1 ms access hops each way.
    let bdp_pkts = ((r.0 as f64 * 0.040) / (1500.0 * 8.0)).ceil().max(10.0) as u64;
    let mut nodes = String::new();
    for i in 0..n {
        nodes += &format!("s{i} = \"host\"\nd{i} = \"host\"\n");
    }
    let mut s = format!(
        "duration = \"{seconds}s\"\n[nodes]\nr1 = \"router\"\nr2 = \"router\"\n{nodes}\
         [links.bottleneck]\nfrom = \"r1\"\nto = \"r2\"\nrate = \"{}bps\"\ndelay = \"18ms\"\nqueue = {{ type = \"droptail\", limit = {bdp_pkts} }}\n\
         [links.bottleneck_rev]\nfrom = \"r2\"\nto = \"r1\"\nrate = \"{}bps\"\ndelay = \"18ms\"\n",
        r.0, r.0
    );
    for i in 0..n {
        s += &format!(
            "[links.s{i}_r1]\nfrom = \"s{i}\"\nto = \"r1\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\nqueue = {{ type = \"droptail\", limit = 100000 }}\n\
             [links.r1_s{i}]\nfrom = \"r1\"\nto = \"s{i}\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\n\
             [links.r2_d{i}]\nfrom = \"r2\"\nto = \"d{i}\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\n\
             [links.d{i}_r2]\nfrom = \"d{i}\"\nto = \"r2\"\nrate = \"{a}bps\"\ndelay = \"1ms\"\nqueue = {{ type = \"droptail\", limit = 100000 }}\n\
             [flows.f{i}]\nfrom = \"s{i}\"\nto = \"d{i}\"\ncc = \"newreno\"\nmss = 1460\ninit_cwnd = 10\napp = {{ type = \"bulk\", start = \"{st}ms\" }}\n",
            a = access.0,
            st = i * 7 % 100
        );
    }
    s
}

fn run(n: usize, rate: &str, seconds: f64) {
    let text = dumbbell(n, rate, seconds);
    let mut b =
        tcplab_core::load_toml(&text, None).unwrap_or_else(|e| panic!("bench scenario: {e}"));
    let t0 = Instant::now();
    b.sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let bott = b.sim.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let pkts = bott.stats.tx_packets;
    let delivered: u64 = b.sim.links.iter().map(|l| l.stats.delivered).sum();
    let util = bott.busy_time(b.sim.end).as_secs_f64() / seconds;
    println!(
        "{n:>4} flows {rate:>8} {seconds:>6.1} s sim | wall {wall:>7.3} s | {:>6.2} M events/s | {:>6.3} M bottleneck pkts/s | {:>6.2} M hop deliveries/s | util {:.3} | wall/sim {:.3}",
        b.sim.events_processed as f64 / wall / 1e6,
        pkts as f64 / wall / 1e6,
        delivered as f64 / wall / 1e6,
        util,
        wall / seconds
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 3 {
        let n = args[0].parse().expect("FLOWS must be an integer");
        let secs = args[2].parse().expect("SECONDS must be a number");
        run(n, &args[1], secs);
        return;
    }
    println!("tcplab-bench: dumbbell, NewReno, 40 ms RTT, 1500 B packets, buffer 1 BDP");
    run(1, "100Mbps", 20.0);
    run(16, "1Gbps", 5.0);
    run(8, "2.5Gbps", 2.0);
    run(64, "10Gbps", 0.5);
}

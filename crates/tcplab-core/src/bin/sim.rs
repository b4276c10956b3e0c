//! Minimal Rust-only runner: `tcplab-sim SCENARIO.toml [SEED]` prints summary.json.
//! Relative `links.*.pcap` paths are written relative to the current directory.
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: tcplab-sim SCENARIO.toml [SEED]");
        std::process::exit(2);
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    let seed = args
        .get(2)
        .map(|s| s.parse::<u64>().expect("SEED must be an integer"));
    let mut b = match tcplab_core::load_toml(&text, seed) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(2);
        }
    };
    if let Err(e) = b.open_pcaps(None, false) {
        eprintln!("{}: {e}", args[1]);
        std::process::exit(2);
    }
    let t = Instant::now();
    b.sim.run();
    let s = tcplab_core::report::summary(&b, t.elapsed().as_secs_f64());
    if std::env::var_os("TCPLAB_INTERVALS").is_some() {
        let c = &b.sim.intervals;
        for k in 0..c.flow.len() {
            eprintln!(
                "{:>8.1} {:>6} eff={:.4} cwnd={}",
                c.t_end[k], c.flow[k], c.efficiency[k], c.cwnd_bytes[k]
            );
        }
    }
    println!("{}", serde_json::to_string_pretty(&s).unwrap());
}

//! The two optional end-host buffers: a finite send buffer (`send_buffer_bytes`) and a
//! playback buffer whose free space is the receive window (`playback_rwnd_cap`).

use crate::common::{f, named, run, two_host, u};
use tcplab_core::scenario::Built;
use tcplab_core::sim::Transport;

/// `a → b` at `rate` with `delay` each way (acks at 10 Mb/s), a 1000-segment drop-tail
/// queue, `flows` and `extra` appended.
fn path(rate: &str, delay: &str, flows: &str, duration: &str, extra: &str) -> String {
    two_host(
        rate,
        "10Mbps",
        delay,
        delay,
        "{ type = \"droptail\", limit = 1000 }",
        0.0,
        flows,
        duration,
        extra,
    )
}

/// Flow `name` from `a` to `b` with 1000-B segments and the settings `keys` (lines).
fn flow(name: &str, keys: &str) -> String {
    format!("\n[flows.{name}]\nfrom = \"a\"\nto = \"b\"\nmss = 1000\n{keys}\n")
}

/// Flow `name`'s row of the run's summary.
fn flow_summary(b: &Built, name: &str) -> serde_json::Value {
    named(&tcplab_core::report::summary(b, 0.0), "flows", name).clone()
}

#[test]
fn a_send_buffer_caps_a_bulk_flow_at_buffer_per_round_trip() {
    // 10 Mb/s, 50 ms each way: the base RTT is 100 ms + 1040·8/10e6 s (data) + 40·8/10e6 s
    // (ack) = 100.864 ms. A 5000-B buffer keeps 5 segments in flight: 5000 B per RTT =
    // 396.6 kb/s of goodput (a 10-segment window, by max_window, would double it).
    let text = path(
        "10Mbps",
        "50ms",
        &flow("f", "cc = \"reno\"\nsend_buffer_bytes = 5000"),
        "12s",
        "[metrics]\nsteady_start = \"2s\"",
    );
    let fl = flow_summary(&run(&text), "f");
    let want = 5000.0 * 8.0 / 0.100_864;
    let got = f(&fl["goodput_bps"]);
    assert!((got / want - 1.0).abs() < 0.002, "{got} vs {want}");
    assert_eq!(fl["send_buffer_waiting_bytes"], serde_json::Value::Null);
    // The same with max_window = 5000 instead: the two caps are the same thing for bulk.
    let text2 = text.replace("send_buffer_bytes = 5000", "max_window = 5000");
    let g2 = f(&flow_summary(&run(&text2), "f")["goodput_bps"]);
    assert_eq!(got, g2);
}

#[test]
fn a_blocked_cbr_writer_falls_behind_and_keeps_its_bytes() {
    // 1 Mb/s of 1000-B writes (one every 8 ms) into a 400 kb/s link with a 4000-B send
    // buffer: by 10 s the source wrote 1250 · 1000 B; the buffer holds exactly
    // min(written, acked + 4000) and the rest waits with the application.
    let keys = r#"send_buffer_bytes = 4000
app = { type = "cbr", rate = "1Mbps", packet_size = 1000 }"#;
    let text = path(
        "400kbps",
        "10ms",
        &flow("c", keys),
        "10s",
        "[metrics]\ntrace = \"5ms\"",
    );
    let b = run(&text);
    let (sender, receiver) = b.sim.flows[0].tcp().unwrap();
    assert_eq!(sender.written(), 1_250_000);
    assert_eq!(sender.app_limit(), sender.snd_una() + 4000);
    let fl = flow_summary(&b, "c");
    assert_eq!(
        u(&fl["send_buffer_waiting_bytes"]),
        1_250_000 - sender.snd_una() - 4000
    );
    // Never more than the buffer in flight.
    let flight = &b.sim.cwnd_trace.base.in_flight_bytes;
    assert!(flight.iter().all(|&x| x <= 4000));
    assert_eq!(flight.iter().max(), Some(&4000));
    // The link (1040-B segments, 20.8 ms each) idles only in slow start: segment 0 arrives
    // at 30.8 ms, its ack at 40.832 ms sends 1 and 2, whose acks come back before the link
    // drains; from then on a 4-segment flight (83.2 ms of transmission) outlasts the RTT
    // (40.864 ms), so the link stays busy. Segment k ≥ 1 arrives at 50.832 + 20.8·k ms:
    // 479 segments by 10 s.
    assert_eq!(receiver.rcv_nxt(), 479_000);
    // Without the buffer the writer never blocks: everything written is accepted.
    let text2 = text.replace("send_buffer_bytes = 4000\n", "");
    let b2 = run(&text2);
    let (s2, r2) = b2.sim.flows[0].tcp().unwrap();
    assert_eq!((s2.written(), s2.app_limit()), (1_250_000, 1_250_000));
    assert_eq!(
        r2.rcv_nxt(),
        479_000,
        "the link is the bottleneck either way"
    );
}

#[test]
fn a_slow_reader_limits_a_bulk_flow_to_its_read_rate() {
    // Buffer 100,000 B, 50,000 B read every second, over a 10 Mb/s, 5-ms path: the sender
    // fills the buffer, then each read's window update lets exactly 50,000 B more through
    // (50 segments, 42 ms at 10 Mb/s). Reads at 1 s … 10 s (the last at the run's end, too
    // late to let more in): in-order bytes = 100,000 + 9 · 50,000, and every whole interval
    // from 1 s on carries 400 kb/s.
    let playback = r#"playback_rwnd_cap = { buffer = 100000, read = 50000, interval = "1s" }"#;
    let b = run(&path("10Mbps", "5ms", &flow("p", playback), "10s", ""));
    let fl = flow_summary(&b, "p");
    assert_eq!(u(&fl["bytes_delivered"]), 550_000);
    assert_eq!(u(&fl["playback_reads"]), 10);
    assert_eq!(u(&fl["playback_read_bytes"]), 500_000);
    assert_eq!(u(&fl["playback_held_bytes"]), 50_000);
    assert_eq!(u(&fl["window_updates"]), 10);
    assert!(
        u(&fl["window_probes"]) > 0,
        "the buffer sat full between reads"
    );
    assert_eq!(u(&fl["retransmits"]), 0);
    assert_eq!(u(&fl["timeouts"]), 0);
    let iv = &b.sim.intervals;
    for k in 0..iv.flow.len() {
        if iv.t_start[k] >= 1.0 {
            assert_eq!(
                iv.goodput_bps[k], 400_000.0,
                "interval at {}",
                iv.t_start[k]
            );
        }
    }
    // The probes carry no data: the receiver never held more than its buffer.
    let Transport::Tcp { receiver, .. } = &b.sim.flows[0].transport else {
        unreachable!()
    };
    assert!(receiver.playback_held() <= 100_000);
}

#[test]
fn cbr_with_both_buffers_delivers_its_rate_when_nothing_limits_it() {
    // 1 Mb/s writer, 125,000-B playback buffer read every second, 125,000-B send buffer,
    // over 10 Mb/s: 125,000 B per second reach the receiver and are all read.
    let keys = r#"send_buffer_bytes = 125000
playback_rwnd_cap = { buffer = 125000, read = 125000 }
app = { type = "cbr", rate = "1Mbps", packet_size = 1000 }"#;
    let b = run(&path("10Mbps", "5ms", &flow("c", keys), "10s", ""));
    let fl = flow_summary(&b, "c");
    assert_eq!(u(&fl["send_buffer_waiting_bytes"]), 0);
    assert_eq!(u(&fl["window_probes"]), 0);
    // Writes at 0, 8 ms, …, each delivered 5.832 ms later: the 125 writes of [k, k+1) s
    // are all in before the read at k+1 s, so the reads at 1 … 10 s take 125,000 each:
    // all 1,250,000 bytes written.
    assert_eq!(u(&fl["playback_reads"]), 10);
    assert_eq!(u(&fl["playback_read_bytes"]), 1_250_000);
}

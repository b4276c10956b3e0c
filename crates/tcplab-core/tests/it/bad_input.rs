//! Bad scenarios give one-line errors naming the field, never a panic.

const GOOD: &str = r#"
duration = "10s"
[nodes]
a = "host"
b = "host"
[links.up]
from = "a"
to = "b"
rate = "100kbps"
[links.down]
from = "b"
to = "a"
rate = "5Mbps"
[flows.f]
from = "a"
to = "b"
cc = "newreno"
"#;

fn err(toml: &str) -> (String, String) {
    match tcplab_core::load_toml(&crate::common::classic(toml), None) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
            (e.field, msg)
        }
    }
}

#[test]
fn good_scenario_builds() {
    assert!(tcplab_core::load_toml(GOOD, None).is_ok());
}

#[test]
fn each_mistake_names_its_field() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (replace, with, expected field, expected words)
        // Fuzz regressions (run_bounded): a zero ssthresh, a zero retransmission timeout.
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\ninit_ssthresh = 0",
            "flows.f.init_ssthresh",
            "less than one segment",
        ),
        // An initial window of 10^9 one-byte segments (fuzz regression
        // run_bounded/rack_mss1_init_cwnd_u32_max); 2^31 segments of 1,460 bytes are capped
        // by max_window at 735,439 and build (tests/test_extremes.py).
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nmss = 1\ninit_cwnd = 4294967295",
            "flows.f.init_cwnd",
            "is more than 1000000",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nrto_initial = \"0s\"\nrto_min = \"0s\"",
            "flows.f.rto_initial",
            "must be positive",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nsack = true\nloss_detection = \"rack\"\nrto_restart_on_retransmit = true",
            "flows.f.rto_restart_on_retransmit",
            "RACK-TLP",
        ),
        // Vegas' loss detection is its own recovery, without SACK or NewReno's extras.
        (
            "cc = \"newreno\"",
            "cc = \"vegas\"\nsack = true\nloss_detection = \"vegas\"",
            "flows.f.loss_detection",
            "needs sack = false",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"vegas\"\nloss_detection = \"vegas\"\nlimited_transmit = true",
            "flows.f.limited_transmit",
            "does not apply with loss_detection = \"vegas\"",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nmss = 1\nheader = 4294967295",
            "flows.f.header",
            "packet sizes are at most",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nrto_max = \"0s\"\nrto_min = \"0s\"",
            "flows.f.rto_max",
            "must be positive",
        ),
        (
            "rate = \"100kbps\"",
            "rat = \"100kbps\"",
            "links.up.rat",
            "unknown field `rat`",
        ),
        (
            "rate = \"100kbps\"",
            "rate = \"-5Mbps\"",
            "links.up.rate",
            "negative",
        ),
        (
            "rate = \"100kbps\"",
            "rate = \"100\"",
            "links.up.rate",
            "no unit",
        ),
        (
            "rate = \"100kbps\"",
            "rate = 100",
            "links.up.rate",
            "no unit",
        ),
        (
            "from = \"b\"\nto = \"a\"\nrate",
            "from = \"b\"\nto = \"zz\"\nrate",
            "links.down.to",
            "unknown node 'zz'",
        ),
        (
            "from = \"a\"\nto = \"b\"\nrate",
            "from = \"a\"\nto = \"a\"\nrate",
            "links.up",
            "to itself",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"vegaz\"",
            "flows.f.cc.algorithm",
            "unknown algorithm 'vegaz'",
        ),
        (
            "cc = \"newreno\"",
            "cc = { algorithm = \"newreno\", alpha = 2.0 }",
            "flows.f.cc.alpha",
            "not a parameter",
        ),
        (
            "duration = \"10s\"",
            "duration = \"0s\"",
            "duration",
            "must be positive",
        ),
        (
            "duration = \"10s\"",
            "duration = \"10 parsecs\"",
            "duration",
            "unknown time unit",
        ),
        (
            "[flows.f]\nfrom = \"a\"",
            "[flows.f]\nfrom = \"nowhere\"",
            "flows.f.from",
            "unknown node 'nowhere'",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nmss = 0",
            "flows.f.mss",
            "positive",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nmax_window = \"-3KiB\"",
            "flows.f.max_window",
            "negative",
        ),
        // A send buffer or a playback buffer below one segment, a UDP flow, bad reads.
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nsend_buffer_bytes = 1000",
            "flows.f.send_buffer_bytes",
            "1000 bytes is less than one segment (mss = 1460)",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nsend_buffer_bytes = \"-3KiB\"",
            "flows.f.send_buffer_bytes",
            "negative",
        ),
        (
            "cc = \"newreno\"",
            "transport = \"udp\"\napp = { type = \"cbr\", rate = \"1Mbps\" }\nsend_buffer_bytes = 10000",
            "flows.f.send_buffer_bytes",
            "applies to TCP only",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nplayback_rwnd_cap = { buffer = 1000 }",
            "flows.f.playback_rwnd_cap.buffer",
            "1000 bytes is less than one segment (mss = 1460)",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nplayback_rwnd_cap = { buffer = 2000000000 }",
            "flows.f.playback_rwnd_cap.buffer",
            "more than the largest window RFC 7323 can advertise (1073725440 bytes)",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nplayback_rwnd_cap = { buffer = 125000, read = 0 }",
            "flows.f.playback_rwnd_cap.read",
            "must be positive",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nplayback_rwnd_cap = { buffer = 125000, interval = \"0s\" }",
            "flows.f.playback_rwnd_cap.interval",
            "must be positive",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nplayback_rwnd_cap = { buffer = 125000, size = 5 }",
            "flows.f.playback_rwnd_cap.size",
            "unknown field `size`; known: buffer, read, interval",
        ),
        (
            "cc = \"newreno\"",
            "transport = \"udp\"\napp = { type = \"cbr\", rate = \"1Mbps\" }\nplayback_rwnd_cap = { buffer = 125000 }",
            "flows.f.playback_rwnd_cap",
            "applies to TCP only",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\nsack = true\nloss_detection = \"rack\"\nplayback_rwnd_cap = { buffer = 125000 }",
            "flows.f.playback_rwnd_cap",
            "does not apply with loss_detection = \"rack\"",
        ),
        (
            "cc = \"newreno\"",
            "cc = \"newreno\"\napp = { type = \"ftp\" }",
            "flows.f.app.type",
            "unknown type 'ftp' (known: bulk, transfer, cbr, onoff, poisson, train)",
        ),
        (
            "rate = \"5Mbps\"",
            "rate = \"5Mbps\"\nloss = 1.5",
            "links.down.loss",
            "[0, 1)",
        ),
    ];
    for (from, to, field, words) in cases {
        assert!(GOOD.contains(from), "test bug: {from}");
        let (f, msg) = err(&GOOD.replacen(from, to, 1));
        assert_eq!(&f, field, "{msg}");
        assert!(msg.contains(words), "'{msg}' does not say '{words}'");
    }
}

#[test]
fn end_host_scheme_mistakes_name_their_field() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "rate = \"100kbps\"\n",
            "rate = \"100kbps\"\nqueue = { type = \"bwalloc\", data_fraction = 1.5 }\n",
            "links.up.queue.data_fraction",
        ),
        (
            "rate = \"100kbps\"\n",
            "rate = \"100kbps\"\nqueue = { type = \"bwalloc\", data_fraction = 0 }\n",
            "links.up.queue.data_fraction",
        ),
        (
            "rate = \"100kbps\"\n",
            "rate = \"100kbps\"\nqueue = { type = \"ackprio\", limit = 0 }\n",
            "links.up.queue.limit",
        ),
        (
            "rate = \"100kbps\"\n",
            "rate = \"100kbps\"\nbackpressure = 0\n",
            "links.up.backpressure",
        ),
        (
            "rate = \"100kbps\"\n",
            "rate = \"100kbps\"\nqueue = { type = \"fq\" }\n",
            "links.up.queue",
        ),
    ];
    for (from, to, field) in cases {
        let (f, msg) = err(&GOOD.replacen(from, to, 1));
        assert!(f.starts_with(field), "{field}: got field '{f}': {msg}");
    }
    // Backpressure only where a host sends.
    let routed = GOOD.replace("b = \"host\"", "b = \"host\"\nr = \"router\"").replace(
        "[links.up]\nfrom = \"a\"",
        "[links.rb]\nfrom = \"r\"\nto = \"b\"\nrate = \"1Mbps\"\nbackpressure = 1\n[links.up]\nfrom = \"a\"",
    );
    let (f, msg) = err(&routed);
    assert_eq!(f, "links.rb.backpressure", "{msg}");
    assert!(msg.contains("router"), "{msg}");
}

#[test]
fn missing_duration_and_syntax_errors() {
    let (f, msg) = err(&GOOD.replace("duration = \"10s\"", ""));
    assert!(msg.contains("duration"), "{f}: {msg}");
    let (_, msg) = err("duration = \"10s\"\n[nodes\n");
    assert!(msg.contains("TOML"), "{msg}");
}

#[test]
fn a_router_cannot_end_a_flow_and_paths_must_exist() {
    let s = GOOD.replace("b = \"host\"", "b = \"router\"");
    assert_eq!(err(&s).0, "flows.f.to");
    let s = GOOD.replace(
        "[links.down]\nfrom = \"b\"\nto = \"a\"\nrate = \"5Mbps\"\n",
        "",
    );
    let (f, msg) = err(&s);
    assert_eq!(f, "flows.f");
    assert!(msg.contains("acks"), "{msg}");
}

#[test]
fn transport_app_and_schedule_mistakes_name_their_field() {
    let app = |a: &str| GOOD.replace("cc = \"newreno\"", &format!("cc = \"newreno\"\n{a}"));
    let two = GOOD.to_string() + "[flows.g]\nfrom = \"a\"\nto = \"b\"\n";
    let sched = |s: &str| format!("{two}[schedules.s]\n{s}\n");
    let cases: Vec<(String, &str, &str)> = vec![
        (app("transport = \"sctp\""), "flows.f.transport", "unknown variant `sctp`"),
        // Issue 17: an `app` table without its `type` (`--set flows.f.app.start=1s`) is
        // named at the leaf.
        (app("app = { start = \"1s\" }"), "flows.f.app.type", "missing (one of: bulk"),
        (
            app("transport = \"udp\""),
            "flows.f.app.type",
            "'bulk' needs transport = \"tcp\"",
        ),
        (
            app("transport = \"udp\"\napp = { type = \"transfer\", bytes = 1000 }"),
            "flows.f.app.type",
            "'transfer' needs transport",
        ),
        (
            app("app = { type = \"cbr\", rate = \"1Mbps\", packet_size = 0 }"),
            "flows.f.app.packet_size",
            "positive",
        ),
        (
            app("transport = \"udp\"\napp = { type = \"cbr\", rate = \"1Mbps\", packet_size = 70000 }"),
            "flows.f.app.packet_size",
            "UDP datagram",
        ),
        (
            app("app = { type = \"cbr\", rate = \"1Mbps\", start = \"2s\", stop = \"1s\" }"),
            "flows.f.app.stop",
            "after start",
        ),
        (
            app("app = { type = \"onoff\", rate = \"1Mbps\", on = \"0s\", off = \"1s\" }"),
            "flows.f.app.on",
            "positive",
        ),
        (
            app("app = { type = \"onoff\", rate = \"1Mbps\", on = \"1s\", off = \"1s\", distribution = \"pareto\" }"),
            "flows.f.app",
            "unknown variant `pareto`",
        ),
        (
            sched("flows = [\"f\", \"h\"]\nactive = [[\"0s\", 1]]"),
            "schedules.s.flows[1]",
            "unknown flow 'h'",
        ),
        (
            sched("flows = [\"f\", \"f\"]\nactive = [[\"0s\", 1]]"),
            "schedules.s.flows[1]",
            "listed twice",
        ),
        (
            sched("flows = [\"f\", \"g\"]\nactive = [[\"0s\", 1], [\"2s\", 3]]"),
            "schedules.s.active[1]",
            "3 active flows but the schedule lists 2",
        ),
        (
            sched("flows = [\"f\", \"g\"]\nactive = [[\"2s\", 1], [\"1s\", 2]]"),
            "schedules.s.active[1]",
            "increase",
        ),
        (
            sched("flows = [\"f\", \"g\"]\nactive = [[\"0s\", 1], [\"10s\", 2]]"),
            "schedules.s.active[1]",
            "end of the run",
        ),
        (
            sched("flows = [\"f\"]\nactive = []"),
            "schedules.s.active",
            "at least one",
        ),
        (
            sched("flows = [\"f\"]\nactive = [[\"0s\", 1]]\n[schedules.t]\nflows = [\"g\", \"f\"]\nactive = [[\"0s\", 1]]"),
            "schedules.t.flows[1]",
            "already in schedule 's'",
        ),
        (
            sched("flows = [\"g\"]\nactive = [[\"0s\", 1]]")
                .replace("to = \"b\"\n[schedules", "to = \"b\"\napp = { type = \"bulk\", stop = \"5s\" }\n[schedules"),
            "flows.g.app.stop",
            "decides when it starts and stops",
        ),
    ];
    for (toml, field, words) in cases {
        let (f, msg) = err(&toml);
        assert!(f.starts_with(field), "{field}: got field '{f}': {msg}");
        assert!(msg.contains(words), "'{msg}' does not say '{words}'");
    }
}

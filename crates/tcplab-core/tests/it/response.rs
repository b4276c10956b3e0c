//! Response functions of HighSpeed and Scalable TCP: mean window under Bernoulli loss.

/// One bulk flow a→b over a 10 Gb/s, 2 ms round-trip path that never queues, with
/// Bernoulli loss `p` on the data direction only; the cwnd trace every 10 ms.
fn scenario(cc: &str, p: f64, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[nodes]
a = "host"
b = "host"
[links.ab]
from = "a"
to = "b"
rate = "10Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 100000 }}
loss = {p}
[links.ba]
from = "b"
to = "a"
rate = "10Gbps"
delay = "1ms"
queue = {{ type = "droptail", limit = 100000 }}
[flows.f]
from = "a"
to = "b"
cc = {cc}
mss = 1000
[metrics]
trace = "10ms"
"#
    )
}

/// Time-averaged window (segments) from the cwnd trace after `skip` seconds, and the
/// number of packets lost. The window is the algorithm's own (`cc_cwnd_segments`), not
/// `cwnd_bytes`, which during fast recovery is the transport's inflated recovery window.
fn mean_window(cc: &str, p: f64, duration: &str, skip: f64, seed: u64) -> (f64, usize) {
    let mut b = tcplab_core::load_toml(&scenario(cc, p, duration), Some(seed)).unwrap();
    b.sim.run();
    let tr = &b.sim.cwnd_trace;
    let rows: Vec<usize> = (0..tr.base.t.len())
        .filter(|&k| tr.base.t[k] >= skip)
        .collect();
    assert_eq!(tr.cc_names[0], "cwnd_segments");
    let seg = &tr.cc_values[0];
    let m = rows.iter().map(|&k| seg[k]).sum::<f64>() / rows.len() as f64;
    let lost: u64 = tcplab_core::report::summary(&b, 0.0)["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["lost"].as_u64().unwrap())
        .sum();
    (m, lost as usize)
}

/// RFC 3649 §5: HighSpeed TCP's response function `w = 0.12/p^0.835`.
fn hstcp_w(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

/// p = 1e-4: w = 262.6 segments (a = 3.4, b = 0.40: past Low_Window = 38, where Reno would
/// average 1.22/√p ≈ 122). 80 s, about 1050 loss events.
///
/// Tolerance ±10 %: the RFC's formula is the average of a deterministic sawtooth (a loss
/// every 1/p packets); Bernoulli losses raise the mean by less than they do for Reno
/// (1.31/1.22 = +7 % at b = 0.5, less at b = 0.4), and with ~1000 loss events the
/// statistical error is about 1.5 % (seeds 1-5 measured +0.4 … +3.9 %).
#[test]
fn highspeed_mean_window_follows_rfc3649_response_function() {
    let p = 1e-4;
    let (w, lost) = mean_window(r#""highspeed""#, p, "80s", 5.0, 1);
    assert!(lost > 800, "{lost}");
    let want = hstcp_w(p);
    eprintln!("highspeed p {p}: mean w {w:.1}, formula {want:.1}");
    assert!((w / want - 1.0).abs() < 0.10, "mean w {w:.1} vs {want:.1}");
    assert!(w > 1.8 * 1.22 / p.sqrt(), "well above Reno: {w:.1}");
}

/// p = 1e-5: w = 1795 segments (a ≈ 11, b ≈ 0.30), the high-window region. 15 s give only
/// ~130 loss events, and each loss removes only 30 % of the window, so the window's memory
/// spans several cycles: the statistical error is ~8 % (seeds 1-5 measured −6 … +13 %);
/// tolerance ±25 %. Against p = 1e-4 the window must grow by 10^0.835 = 6.8 (Reno: 3.2).
#[test]
fn highspeed_response_function_slope_at_large_windows() {
    let p = 1e-5;
    let (w, _) = mean_window(r#""highspeed""#, p, "15s", 5.0, 1);
    let want = hstcp_w(p);
    eprintln!("highspeed p {p}: mean w {w:.1}, formula {want:.1}");
    assert!((w / want - 1.0).abs() < 0.25, "mean w {w:.1} vs {want:.1}");
    let ratio = w / hstcp_w(1e-4);
    assert!(ratio > 5.0 && ratio < 8.7, "{ratio}");
}

/// Scalable TCP: per packet the window gains a and each loss (probability p) removes b·w,
/// so in equilibrium a = p·b·w: the packet-averaged window is a/(b·p) = 80 at p = 1e-3.
/// The trace averages over time, which weights each packet by its 1/w share of a round
/// trip: E_t[w] = 1/E_pkt[1/w] ≈ E_pkt[w]/(1 + CV²), and the jump process has
/// CV² = (b/2)/(1 − b/2) = 0.067, so the expected trace mean is 75.0. With ~2200 loss
/// events (relaxation every 1/(p·b) = 8000 packets, 340 independent stretches) the
/// statistical error is ~2 % (seeds 1-5: 70.1 … 76.7); tolerance ±10 % around 75.0.
#[test]
fn scalable_mean_window_is_a_over_b_p() {
    let (a, b, p) = (0.01, 0.125, 1e-3);
    let (w, lost) = mean_window(r#""scalable""#, p, "60s", 5.0, 1);
    assert!(lost > 1500, "{lost}");
    let cv2 = (b / 2.0) / (1.0 - b / 2.0);
    let want = a / (b * p) / (1.0 + cv2);
    eprintln!("scalable p {p}: mean w {w:.1}, expected {want:.1}");
    assert!((w / want - 1.0).abs() < 0.10, "mean w {w:.1} vs {want:.1}");
    // Not Reno (1.22/√p ≈ 39) and not HSTCP's table a(80) ≈ 1.5 with b ≈ 0.47.
    assert!(w > 60.0, "{w}");
}

/// examples/highspeed_scalable.toml loads, and its trace carries HSTCP's a(w), b(w)
/// (NaN for the other flows) once the window is past Low_Window.
#[test]
fn example_exports_hstcp_a_and_b() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/highspeed_scalable.toml"
    );
    let toml = std::fs::read_to_string(path).unwrap();
    assert!(toml.contains("duration = \"30s\""));
    let mut b = tcplab_core::load_toml(
        &toml.replace("duration = \"30s\"", "duration = \"2s\""),
        None,
    )
    .unwrap();
    b.sim.run();
    let tr = &b.sim.cwnd_trace;
    assert_eq!(
        tr.cc_names,
        ["cwnd_segments", "hstcp_a_segments", "hstcp_b"]
    );
    let (a, bb) = (&tr.cc_values[1], &tr.cc_values[2]);
    let mut past_low = 0;
    for k in 0..a.len() {
        match tr.base.flow[k].0 {
            0 => {
                let w = tr.cc_values[0][k];
                assert!(bb[k] > 0.09 && bb[k] <= 0.5, "row {k}: b {}", bb[k]);
                if w >= 39.0 {
                    past_low += 1;
                    assert!(
                        a[k] > 1.0 && bb[k] < 0.5,
                        "row {k}: w {w} a {} b {}",
                        a[k],
                        bb[k]
                    );
                } else {
                    assert_eq!((a[k], bb[k]), (1.0, 0.5));
                }
            }
            _ => assert!(a[k].is_nan() && bb[k].is_nan(), "row {k}"),
        }
    }
    assert!(past_low > 10, "{past_low}");
}

/// Parameter errors through the scenario parser name `flows.f.cc.<param>`.
#[test]
fn bad_parameters_name_the_dotted_path() {
    for (cc, field) in [
        (
            r#"{ algorithm = "highspeed", high_decrease = 0.7 }"#,
            "flows.f.cc.high_decrease",
        ),
        (
            r#"{ algorithm = "highspeed", aimd = "table", low_window = 30 }"#,
            "flows.f.cc.aimd",
        ),
        (
            r#"{ algorithm = "highspeed", aimd = "table_up", high_decrease = 0.2 }"#,
            "flows.f.cc.aimd",
        ),
        (
            r#"{ algorithm = "highspeed", b_floor = "lowest" }"#,
            "flows.f.cc.b_floor",
        ),
        (
            r#"{ algorithm = "highspeed", b_floor = 0.2 }"#,
            "flows.f.cc.b_floor",
        ),
        (
            r#"{ algorithm = "highspeed", b_floor = 0 }"#,
            "flows.f.cc.b_floor",
        ),
        (
            r#"{ algorithm = "highspeed", aimd = "table_up", b_floor = "a_peak" }"#,
            "flows.f.cc.b_floor",
        ),
        (r#"{ algorithm = "scalable", b = 1.5 }"#, "flows.f.cc.b"),
        (
            r#"{ algorithm = "scalable", legacy_window = 0 }"#,
            "flows.f.cc.legacy_window",
        ),
    ] {
        let e = tcplab_core::load_toml(&scenario(cc, 0.0, "1s"), None)
            .err()
            .unwrap_or_else(|| panic!("{cc} must fail"));
        assert_eq!(e.field, field, "{cc}: {}", e.reason);
    }
}

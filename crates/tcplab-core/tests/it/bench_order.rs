//! `tcplab-bench run`'s per-flow lists are in flow index order (f0, f1, ..., f15), the
//! order bench/ns3_compare.py pairs with ns-3's flows, not the simulator's name order
//! (f0, f1, f10, ..., f15, f2, ...). Before this was fixed, the ns-3 cross-check compared
//! b's flows 2-15 with the wrong ns-3 flows (docs/performance.md, "Cross-check table").

use std::process::Command;

/// Scenario b (16 flows; flow i starts at i·7 mod 100 ms) for 0.12 s, the whole run as the
/// window: every flow is still in slow start, so a flow that started earlier has delivered
/// at least as much and has a window at least as large as one that started later.
#[test]
fn per_flow_lists_follow_flow_index() {
    let out = Command::new(env!("CARGO_BIN_EXE_tcplab-bench"))
        .args([
            "run", "b", "0.12", "--warmup", "0", "--sample", "true", "--trace", "0.01",
        ])
        .output()
        .expect("run tcplab-bench");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<String> = v["flow_names"]
        .as_array()
        .expect("flow_names")
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, (0..16).map(|i| format!("f{i}")).collect::<Vec<_>>());
    let start_ms = |i: usize| i * 7 % 100;
    let goodput: Vec<f64> = v["per_flow_goodput_bps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let trace = v["cwnd_trace"].as_array().unwrap();
    let last_cwnd = |i: usize| {
        let t = trace[i].as_array().unwrap();
        t[t.len() - 1][0].as_u64().unwrap()
    };
    assert_eq!(goodput.len(), 16);
    assert_eq!(trace.len(), 16);
    assert_eq!(v["per_flow_retransmits"].as_array().unwrap().len(), 16);
    assert_eq!(
        v["per_flow_mean_cwnd_segments"].as_array().unwrap().len(),
        16
    );
    for i in 0..16 {
        for j in 0..16 {
            if start_ms(i) < start_ms(j) {
                assert!(
                    goodput[i] >= goodput[j],
                    "flow {i} (start {} ms) delivered {} b/s, flow {j} (start {} ms) {}",
                    start_ms(i),
                    goodput[i],
                    start_ms(j),
                    goodput[j]
                );
                assert!(last_cwnd(i) >= last_cwnd(j), "cwnd of flow {i} < flow {j}");
            }
        }
    }
    // Not vacuous: the first starter has delivered more than the last (start 98 ms).
    assert!(goodput[0] > goodput[14]);
}

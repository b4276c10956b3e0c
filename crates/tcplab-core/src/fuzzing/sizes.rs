//! The `sizes_bounded` fuzz target (issue 32): scenarios whose counts are drawn from the
//! edges of their types (0, 1, 2^16, 10^7, 2^32, 2^53, ...) and whose pcap keys are drawn
//! from path forms that must be refused (absolute, `..` that escapes, roots); built with a
//! 8-MB memory limit and never run. Property: a refusal is one line naming a field; an
//! accepted scenario names only pcap paths that stay inside the output directory; nothing
//! panics, and nothing allocates what the estimate did not allow (libFuzzer's RSS limit
//! catches an allocation the ceilings let through).

use super::{check_error, Bytes};
use serde_json::{json, Value};

/// Memory limit for the build (the estimate refuses above it, naming the largest part).
/// Small, so an accepted scenario builds in well under libFuzzer's timeout: a 65,535-pair
/// dumbbell with as many flows fits 64 MB and takes 8 s to validate (docs/reliability.md).
const LIMIT: u64 = 8 << 20;

/// Counts at the edges of their types.
const COUNTS: [u64; 16] = [
    0,
    1,
    2,
    3,
    8,
    100,
    1_000,
    65_535,
    65_536,
    1_000_000,
    10_000_000,
    4_294_967_295,
    4_294_967_296,
    9_007_199_254_740_993,
    9_223_372_036_854_775_807,
    18_446_744_073_709_551_615,
];

/// Path forms for a pcap key: inside the output directory or not.
const PATHS: [&str; 16] = [
    "a.pcap",
    "sub/b.pcap",
    "/abs.pcap",
    "../up.pcap",
    "a/../../b.pcap",
    "a/./b.pcap",
    "",
    ".",
    "..",
    "//x.pcap",
    "a/..",
    "sub/../c.pcap",
    "C:/x.pcap",
    "~/x.pcap",
    "a\u{0}b.pcap",
    "./../x.pcap",
];

impl Bytes<'_> {
    fn count(&mut self) -> u64 {
        COUNTS[(self.u8() & 15) as usize]
    }
    fn path(&mut self) -> &'static str {
        PATHS[(self.u8() & 15) as usize]
    }
}

/// The scenario (JSON) the input stands for: one of four skeletons with its counts and
/// paths from the input.
pub fn sizes_scenario(data: &[u8]) -> Value {
    let mut b = Bytes(data);
    let duration = "1s";
    match b.u8() % 4 {
        0 => json!({
            "duration": duration,
            "dumbbell": {
                "pairs": b.count(),
                "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": b.count()},
                "access": {"rate": "100Mbps", "delay": "1ms"},
                "flows": [{"count": b.count(), "cc": "newreno"}],
            },
        }),
        1 => json!({
            "duration": duration,
            "parking_lot": {
                "hops": b.count(),
                "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"},
                "flows": [{"count": b.count()}],
                "cross": [{"count": b.count()}],
            },
        }),
        2 => {
            let k = b.count();
            let traffic = ["none", "permutation", "all_to_all"][(b.u8() % 3) as usize];
            json!({
                "duration": duration,
                "fat_tree": {
                    "k": k,
                    "link": {"rate": "10Gbps", "delay": "5us"},
                    "traffic": traffic,
                },
            })
        }
        _ => {
            let packets: Vec<u64> = (1..=b.count().min(4)).collect();
            let n_list = b.count();
            let mut list: Vec<Value> = packets.iter().map(|p| json!(p)).collect();
            if n_list > 4 {
                // A long list is written as its length only: the ceiling must refuse it
                // before anything is built (the JSON text itself stays small here).
                list.push(json!(n_list));
            }
            let limit = b.count();
            let (pcap_ab, pcap_ba) = (b.path(), b.path());
            let max_window = b.count();
            json!({
                "duration": duration,
                "nodes": {"a": "host", "b": "host"},
                "links": {
                    "ab": {"from": "a", "to": "b", "rate": "10Mbps", "delay": "1ms",
                           "queue": {"type": "droptail", "limit": limit},
                           "error": {"model": "list", "packets": list},
                           "pcap": pcap_ab},
                    "ba": {"from": "b", "to": "a", "rate": "10Mbps", "delay": "1ms", "pcap": pcap_ba},
                },
                "flows": {"f": {"from": "a", "to": "b", "cc": "newreno", "max_window": max_window}},
            })
        }
    }
}

/// Build [`sizes_scenario`] under an 8-MB limit (never run it): a refusal is one line
/// naming a field; an accepted scenario's pcap paths are relative, without `..`.
pub fn check_sizes_bounded(data: &[u8]) {
    let text = sizes_scenario(data).to_string();
    let seed = data.last().copied().unwrap_or(0) as u64;
    match crate::load_json_limited(&text, Some(seed), Some(LIMIT)) {
        Ok(built) => {
            for (_, p) in built.pcap_specs() {
                let path = std::path::Path::new(p);
                assert!(
                    !path.is_absolute()
                        && !path.has_root()
                        && !path
                            .components()
                            .any(|c| c == std::path::Component::ParentDir),
                    "accepted a pcap path that leaves the output directory: {p:?}\n{text}"
                );
            }
        }
        Err(e) => {
            check_error(&e, true);
            assert!(
                !e.reason.contains('\n') && !e.field.contains('\n'),
                "a refusal of more than one line: {e:?}\n{text}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every count and every path form reaches the builder; the forms that leave the
    /// directory (or hold a NUL) are refused naming the pcap key, plain relative ones
    /// (`C:/x.pcap` and `~/x.pcap` are relative directories on Linux) accepted.
    #[test]
    fn paths_and_counts_reach_the_checks() {
        for i in 0..16u8 {
            // explicit skeleton (3), then: packets 1, list length 1, limit 100, pcap ab = i,
            // pcap ba = "~/x.pcap", max_window 10^7
            let data = [3u8, 1, 1, 5, i, 13, 10];
            check_sizes_bounded(&data);
            let text = sizes_scenario(&data).to_string();
            let r = crate::load_json_limited(&text, Some(1), Some(LIMIT));
            let bad = matches!(i, 2 | 3 | 4 | 8 | 9 | 10 | 14 | 15);
            if bad {
                let e = r
                    .err()
                    .unwrap_or_else(|| panic!("{:?} accepted", PATHS[i as usize]));
                assert!(e.field.contains("links.ab.pcap"), "{e:?}");
            } else if matches!(i, 0 | 1 | 5 | 12) {
                assert!(r.is_ok(), "{:?} refused: {:?}", PATHS[i as usize], r.err());
            }
        }
        for topo in 0..4u8 {
            for c in 0..16u8 {
                check_sizes_bounded(&[topo, c, c, c, c, c, 0]);
            }
        }
    }
}

//! `cargo +nightly fuzz run scenario_json`: see tcplab_core::fuzzing::check_scenario_json for the property.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_scenario_json(data));

//! `cargo +nightly fuzz run scenario_toml`: see tcplab_core::fuzzing::check_scenario_toml for the property.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_scenario_toml(data));

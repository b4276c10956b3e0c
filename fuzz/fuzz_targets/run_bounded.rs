//! `cargo +nightly fuzz run run_bounded`: see tcplab_core::fuzzing::check_run_bounded for the property.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_run_bounded(data));

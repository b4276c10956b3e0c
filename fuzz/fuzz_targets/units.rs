//! `cargo +nightly fuzz run units`: see tcplab_core::fuzzing::check_units for the property.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_units(data));

//! Quantities written with units in scenario files: `"100kbps"`, `"10ms"`, `"64KiB"`.
//!
//! Rates are decimal (`5Mbps` = 5,000,000 b/s), as in the papers. Sizes accept decimal
//! (`kB`, `MB`) and binary (`KiB`, `MiB`) prefixes, and plain integers mean bytes.
//! Durations accept `ps`, `ns`, `us`, `ms`, `s`, `min`; a bare `0` means zero. Numbers may
//! use scientific notation (`"1e6s"`, `"2.5e-3s"`, `"1E9bps"`); a value whose base unit
//! (picoseconds, bits per second, bytes) does not fit in 64 bits is an error, never a wrap.

use crate::time::{Rate, SimDuration, PS_PER_S};
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// Split `"1.5e3ms"` into (1500.0, "ms"). An `e`/`E` belongs to the number only when an
/// exponent (digits, optionally signed) follows it, so no unit is eaten.
fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let b = s.as_bytes();
    let mut end = b
        .iter()
        .position(|&c| !(c.is_ascii_digit() || c == b'.' || c == b'-' || c == b'+'))
        .unwrap_or(b.len());
    if end > 0 && end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let digits = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            end = j + digits;
        }
    }
    let (num, unit) = s.split_at(end);
    if num.is_empty() {
        return Err(format!("'{s}' does not start with a number"));
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{num}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{s}' is not finite"));
    }
    if v < 0.0 {
        return Err(format!("'{s}' is negative"));
    }
    Ok((v, unit.trim()))
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s)?;
    let mult = match unit.to_ascii_lowercase().as_str() {
        "bps" | "b/s" | "bit/s" => 1.0,
        "kbps" | "kb/s" | "kbit/s" => 1e3,
        "mbps" | "mb/s" | "mbit/s" => 1e6,
        "gbps" | "gb/s" | "gbit/s" => 1e9,
        "tbps" | "tb/s" | "tbit/s" => 1e12,
        "" => {
            return Err(format!(
                "'{s}' has no unit; write e.g. '100kbps', '5Mbps' or '2.4Gbps'"
            ))
        }
        other => {
            return Err(format!(
                "unknown rate unit '{other}' (use bps, kbps, Mbps, Gbps)"
            ))
        }
    };
    let bps = (v * mult).round();
    if bps < 1.0 {
        return Err(format!("'{s}' must be at least 1 bps"));
    }
    if bps >= u64::MAX as f64 {
        return Err(format!("'{s}' is too large"));
    }
    Ok(Rate(bps as u64))
}

/// A bandwidth-delay multiple ("1.5bdp") where only packets or bytes are accepted: the
/// line that says where BDP sizes are taken. None for anything else.
pub fn bdp_elsewhere(s: &str) -> Option<String> {
    let t = s.trim();
    if !(t.ends_with("bdp") || t.ends_with("BDP")) {
        return None;
    }
    Some(format!(
        "'{s}': BDP sizes are accepted only as a topology builder's `buffer` \
         (dumbbell.bottleneck.buffer, parking_lot.link.buffer, fat_tree.link.buffer), which \
         knows the round trip; a queue's `limit` takes packets (100) or bytes (\"150KB\")"
    ))
}

pub fn parse_duration(s: &str) -> Result<SimDuration, String> {
    let (v, unit) = split_number(s)?;
    let ps_per = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => PS_PER_S as f64,
        "min" => 60.0 * PS_PER_S as f64,
        "" if v == 0.0 => 0.0,
        "" => return Err(format!("'{s}' has no unit; write e.g. '10ms' or '300s'")),
        other => {
            return Err(format!(
                "unknown time unit '{other}' (use ns, us, ms, s, min)"
            ))
        }
    };
    let ps = (v * ps_per).round();
    // Durations are capped below 2^63 ps so that a signed duration fits in i64. Compare
    // with 2^63 exactly: `u64::MAX as f64 / 2.0` *is* 2^63, so `>` let 2^63 itself through
    // (found by the `units` fuzz target: "9223372036854775807ps" rounds to 2^63 as f64).
    if ps >= (1u64 << 63) as f64 {
        return Err(format!(
            "'{s}' is too long: durations must be below 2^63 ps (9223372s, about 106 days)"
        ));
    }
    Ok(SimDuration(ps as u64))
}

pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let mult: f64 = match unit {
        "" | "B" | "bytes" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(format!(
                "unknown size unit '{other}' (use B, kB, KiB, MB, MiB, GB, GiB)"
            ))
        }
    };
    let bytes = (v * mult).round();
    if bytes >= u64::MAX as f64 {
        return Err(format!("'{s}' is too large"));
    }
    Ok(bytes as u64)
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $what:literal, $pattern:literal, $allow_int:expr) => {
        #[doc = concat!("A ", $what, " written with its unit.")]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} string such as {}", $what, $pattern)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        if v < 0 {
                            return Err(E::custom(format!("'{v}' is negative")));
                        }
                        self.visit_u64(v as u64)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        if $allow_int || v == 0 {
                            $parse(&v.to_string()).map($name).map_err(E::custom)
                        } else {
                            Err(E::custom(format!("'{v}' has no unit; write it as a string such as {}", $pattern)))
                        }
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        if v < 0.0 {
                            return Err(E::custom(format!("'{v}' is negative")));
                        }
                        if $allow_int {
                            // A plain number is allowed, but this one was read as a float
                            // (TOML reads 1e12 and 5.0 as floats, never as integers).
                            return Err(E::custom(format!(
                                "'{v}' is a floating-point number (TOML reads 1e12 or 5.0 as one); \
                                 write an integer, or a string such as {}",
                                $pattern
                            )));
                        }
                        Err(E::custom(format!("'{v}' has no unit; write it as a string such as {}", $pattern)))
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                if $allow_int {
                    schemars::json_schema!({
                        "description": concat!("A ", $what, ", e.g. ", $pattern),
                        "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]
                    })
                } else {
                    schemars::json_schema!({
                        "description": concat!("A ", $what, ", e.g. ", $pattern),
                        "type": "string"
                    })
                }
            }
        }
    };
}

unit_type!(
    RateValue,
    Rate,
    parse_rate,
    "rate",
    "\"100kbps\" or \"5Mbps\"",
    false
);
unit_type!(
    DurationValue,
    SimDuration,
    parse_duration,
    "duration",
    "\"10ms\" or \"300s\"",
    false
);
unit_type!(
    SizeValue,
    u64,
    parse_size,
    "size in bytes",
    "\"64KiB\" or 65535",
    true
);

/// An optional duration a scenario can also switch off by name: a duration, or `"off"`
/// (none, the same as leaving the key out). Lets a key a profile sets be turned off over
/// the profile (`delayed_ack = "off"` under `profile = "linux"`). For
/// `#[serde(default, deserialize_with = "crate::config::units::duration_or_off")]`.
pub fn duration_or_off<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DurationValue>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    if v.as_str() == Some("off") {
        return Ok(None);
    }
    DurationValue::deserialize(v)
        .map(Some)
        .map_err(|e| de::Error::custom(format!("{e}, or \"off\"")))
}

/// A signed duration in picoseconds: `"-3.7s"`, `"+5ms"`, `"250us"` or `0` (a clock offset).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignedDurationValue(pub i64);

/// Parse a duration with an optional sign: `"-3.7s"` is −3.7 s in picoseconds.
pub fn parse_signed_duration(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if rest.starts_with(['-', '+']) {
        return Err(format!("'{s}' has two signs"));
    }
    let d = parse_duration(rest).map_err(|e| e.replace(&format!("'{rest}'"), &format!("'{s}'")))?;
    // parse_duration caps at u64::MAX / 2, which fits in i64.
    let ps = d.0 as i64;
    Ok(if neg { -ps } else { ps })
}

impl<'de> Deserialize<'de> for SignedDurationValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SignedDurationValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a signed duration string such as \"-3.7s\" or \"5ms\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                parse_signed_duration(s)
                    .map(SignedDurationValue)
                    .map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                if v == 0 {
                    return Ok(SignedDurationValue(0));
                }
                Err(E::custom(format!(
                    "'{v}' has no unit; write it as a string such as \"-3.7s\""
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                self.visit_i64(v.min(i64::MAX as u64) as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                if v == 0.0 {
                    return Ok(SignedDurationValue(0));
                }
                Err(E::custom(format!(
                    "'{v}' has no unit; write it as a string such as \"-3.7s\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for SignedDurationValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SignedDurationValue".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A signed duration, e.g. \"-3.7s\" or \"5ms\" (0 allowed bare)",
            "anyOf": [{"type": "string"}, {"type": "integer", "const": 0}]
        })
    }
}

/// A link direction's rate: a rate string (`"16Mbps"`), or the normalized asymmetry factor
/// `k` of Lakshman, Madhow and Suter (1997), which seed 001 (§III) uses to set its backward
/// bottleneck: `{ asym_k = 4, forward = "16Mbps", data_size = 1000, ack_size = 40 }` means
/// C_b = forward · ack_size / (k · data_size) (here 160 kb/s), the rate at which the reverse
/// direction carries one ack per data packet in 1/k of the time the forward link needs for
/// that packet. Sizes are on-the-wire bytes; the result is rounded to whole bits per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkRate(pub Rate);

/// The table form of [`LinkRate`].
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AsymRate {
    /// Normalized asymmetry factor k (> 0).
    pub asym_k: f64,
    /// Rate of the forward (data) direction, e.g. "16Mbps".
    pub forward: RateValue,
    /// Data packet size on the wire, in bytes.
    pub data_size: SizeValue,
    /// Ack size on the wire, in bytes.
    pub ack_size: SizeValue,
}

impl AsymRate {
    pub fn rate(&self) -> Result<Rate, String> {
        if !(self.asym_k.is_finite() && self.asym_k > 0.0) {
            return Err(format!(
                "asym_k must be a positive number, got {}",
                self.asym_k
            ));
        }
        if self.data_size.0 == 0 || self.ack_size.0 == 0 {
            return Err("data_size and ack_size must be at least 1 byte".into());
        }
        let bps = self.forward.0 .0 as f64 * self.ack_size.0 as f64
            / (self.asym_k * self.data_size.0 as f64);
        let r = bps.round();
        if r < 1.0 {
            return Err(format!("gives {bps:.3} b/s, below 1 b/s"));
        }
        Ok(Rate(r as u64))
    }
}

impl<'de> Deserialize<'de> for LinkRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LinkRate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a rate string such as \"5Mbps\", or a table {{ asym_k, forward, data_size, ack_size }}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<LinkRate, E> {
                parse_rate(s).map(LinkRate).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LinkRate, E> {
                RateValue::deserialize(de::value::I64Deserializer::<E>::new(v))
                    .map(|r| LinkRate(r.0))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LinkRate, E> {
                RateValue::deserialize(de::value::U64Deserializer::<E>::new(v))
                    .map(|r| LinkRate(r.0))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LinkRate, E> {
                RateValue::deserialize(de::value::F64Deserializer::<E>::new(v))
                    .map(|r| LinkRate(r.0))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<LinkRate, A::Error> {
                let spec = AsymRate::deserialize(de::value::MapAccessDeserializer::new(map))?;
                spec.rate().map(LinkRate).map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for LinkRate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LinkRate".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let table = g.subschema_for::<AsymRate>();
        schemars::json_schema!({
            "description": "A rate string such as \"5Mbps\", or { asym_k, forward, data_size, ack_size } (C = forward*ack_size/(asym_k*data_size))",
            "anyOf": [{"type": "string"}, table]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asym_k_rates() {
        let r = |t: &str| -> Result<Rate, String> {
            let v: toml::Value = toml::from_str(&format!("rate = {t}")).unwrap();
            LinkRate::deserialize(v["rate"].clone())
                .map(|l| l.0)
                .map_err(|e| e.to_string())
        };
        // Seed 001's example: k = 4, 16 Mb/s, 1000-B data, 40-B acks -> 160 kb/s.
        let t = |k: f64| {
            format!("{{ asym_k = {k}, forward = \"16Mbps\", data_size = 1000, ack_size = 40 }}")
        };
        assert_eq!(r(&t(4.0)), Ok(Rate(160_000)));
        assert_eq!(r(&t(2.0)), Ok(Rate(320_000)));
        assert_eq!(r(&t(32.0)), Ok(Rate(20_000)));
        assert_eq!(r("\"5Mbps\""), Ok(Rate(5_000_000)));
        assert!(r(&t(0.0))
            .unwrap_err()
            .contains("asym_k must be a positive"));
        assert!(r("{ asym_k = 4, forward = \"16Mbps\", data_size = 1000 }")
            .unwrap_err()
            .contains("ack_size"));
        assert!(
            r("{ asym_k = 4, forward = \"16Mbps\", data_size = 1000, ack_size = 40, x = 1 }")
                .unwrap_err()
                .contains("unknown field")
        );
        assert!(r("100").unwrap_err().contains("no unit"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100kbps"), Ok(Rate(100_000)));
        assert_eq!(parse_rate("5Mbps"), Ok(Rate(5_000_000)));
        assert_eq!(parse_rate("2.4Gbps"), Ok(Rate(2_400_000_000)));
        assert_eq!(parse_rate("5 Mb/s"), Ok(Rate(5_000_000)));
        assert!(parse_rate("100").unwrap_err().contains("no unit"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("negative"));
        assert!(parse_rate("5furlongs")
            .unwrap_err()
            .contains("unknown rate unit"));
        assert!(parse_rate("0bps").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(SimDuration::from_ms(10)));
        assert_eq!(parse_duration("1.5s"), Ok(SimDuration::from_ms(1500)));
        assert_eq!(parse_duration("0"), Ok(SimDuration::ZERO));
        assert!(parse_duration("10").is_err());
    }

    #[test]
    fn signed_durations() {
        assert_eq!(parse_signed_duration("-3.7s"), Ok(-3_700_000_000_000));
        assert_eq!(parse_signed_duration("+5ms"), Ok(5_000_000_000));
        assert_eq!(parse_signed_duration(" 250us"), Ok(250_000_000));
        assert_eq!(parse_signed_duration("0"), Ok(0));
        assert!(parse_signed_duration("--1s")
            .unwrap_err()
            .contains("two signs"));
        let e = parse_signed_duration("-3.7 parsecs").unwrap_err();
        assert!(e.contains("unknown time unit"), "{e}");
        assert!(parse_signed_duration("-5")
            .unwrap_err()
            .contains("'-5' has no unit"));
        // 2^63 - 1 ps reads as 2^63 in f64: an error, not i64::MIN (fuzz regression
        // fuzz/regressions/units/duration_2pow63).
        assert!(parse_signed_duration("-9223372036854775807ps")
            .unwrap_err()
            .contains("too long"));
        assert!(parse_duration("9223372036854775807ps")
            .unwrap_err()
            .contains("too long"));
        assert_eq!(
            parse_duration("9223372036854774784ps"),
            Ok(SimDuration(9_223_372_036_854_774_784))
        );
        assert!(parse_signed_duration("-1e8s")
            .unwrap_err()
            .contains("too long"));
    }

    #[test]
    fn scientific_notation_and_overflow() {
        assert_eq!(
            parse_duration("1e6s"),
            Ok(SimDuration::from_secs(1_000_000))
        );
        assert_eq!(parse_duration("2.5e-3s"), Ok(SimDuration::from_us(2500)));
        assert_eq!(parse_duration("1E+2ms"), Ok(SimDuration::from_ms(100)));
        assert_eq!(parse_rate("2.4e9bps"), Ok(Rate(2_400_000_000)));
        assert_eq!(parse_size("1e3"), Ok(1000));
        // An "e" without digits is not an exponent: the unit is reported as it is.
        assert!(parse_duration("5es")
            .unwrap_err()
            .contains("unknown time unit 'es'"));
        // 2^64 ps is about 213 days: longer durations are an error, not a wrap.
        assert!(parse_duration("1e8s").unwrap_err().contains("too long"));
        // The error says the limit (issue 31).
        assert_eq!(
            parse_duration("1000000000s").unwrap_err(),
            "'1000000000s' is too long: durations must be below 2^63 ps (9223372s, about 106 days)"
        );
        assert!(parse_duration("1e400s").unwrap_err().contains("not"));
        assert!(parse_size("1e30B").unwrap_err().contains("too large"));
        assert!(parse_rate("1e30bps").unwrap_err().contains("too large"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("65535"), Ok(65535));
        assert_eq!(parse_size("64kB"), Ok(64000));
        assert!(parse_size("-1B").is_err());
    }
}

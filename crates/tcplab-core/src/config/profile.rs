//! Profiles: named presets that say how a component behaves "like X" (a current Linux
//! stack, ns-3's defaults, the RFCs, ns-2.35, tcplab's classic defaults). A scenario names
//! one with `profile = "NAME"` on a flow, on a flow's application, inside a queue table, in
//! `[defaults.flows]` or `[defaults.links]`, or once at the top of the file. A flow that
//! names none anywhere gets [`Profile::DEFAULT`] (`linux`).
//!
//! The enum is all this module holds: what a profile means for a component is decided in
//! that component's own module, by a hook on its typed spec (`CcSpec::profile_keys` in
//! cc/, `AppSpec::profile_keys` in app/, `QueueSpec::profile_keys` in queue/, the flow's in
//! scenario/profiles.rs). Expansion (scenario/expand) resolves which profile applies to
//! each component and writes the keys its hook returns where the component does not set
//! them; docs/scenarios.md ("Profiles") gives the precedence.

use super::ScenarioError;
use serde_json::Value;

/// A named preset (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// A current Linux sender and receiver (6.x defaults).
    Linux,
    /// ns-3's attribute defaults (`TcpSocket`, `TcpSocketBase`, `TcpL4Protocol`).
    Ns3,
    /// Standards-track NewReno: RFC 5681, RFC 6582, RFC 6298.
    Rfc,
    /// ns-2.35's agents, sinks, queues and traffic sources as `tcl/lib/ns-default.tcl` and
    /// their C++ code set them.
    Ns2,
    /// tcplab's own defaults before modern ones (the papers' setting: NewReno without SACK,
    /// an initial window of 1, every segment acked at once); the paper scenarios name it.
    Classic,
}

impl Profile {
    /// Every profile, in documentation order.
    pub const ALL: [Profile; 5] = [
        Profile::Linux,
        Profile::Ns3,
        Profile::Rfc,
        Profile::Ns2,
        Profile::Classic,
    ];

    /// The profile of a flow that names none, anywhere: a current Linux stack.
    pub const DEFAULT: Profile = Profile::Linux;

    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Linux => "linux",
            Profile::Ns3 => "ns3",
            Profile::Rfc => "rfc",
            Profile::Ns2 => "ns2",
            Profile::Classic => "classic",
        }
    }

    /// The profile called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The names, comma-separated, for messages.
    pub fn names() -> String {
        Profile::ALL.map(Profile::name).join(", ")
    }

    /// The profile a scenario value names; `field` is where the value came from.
    pub fn from_value(v: &Value, field: &str) -> Result<Profile, ScenarioError> {
        let Some(name) = v.as_str() else {
            return Err(ScenarioError::new(
                field,
                format!("expected a profile name ({}), got {v}", Profile::names()),
            ));
        };
        Profile::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Profile::ALL.map(Profile::name).to_vec();
            let hint = super::suggest::closest(name, &known)
                .map(|k| format!("did you mean '{k}'? "))
                .unwrap_or_default();
            ScenarioError::new(
                field,
                format!(
                    "unknown profile '{name}' ({hint}known: {}; docs/scenarios.md, \"Profiles\")",
                    Profile::names()
                ),
            )
        })
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl schemars::JsonSchema for Profile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Profile".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::Schema::try_from(serde_json::json!({
            "type": "string",
            "enum": Profile::ALL.map(Profile::name),
            "description": "a profile: linux (the default), ns3, rfc, ns2 or classic (docs/scenarios.md, \"Profiles\")",
        }))
        .expect("an object schema")
    }
}

impl<'de> serde::Deserialize<'de> for Profile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <Value as serde::Deserialize>::deserialize(d)?;
        Profile::from_value(&v, "").map_err(|e| serde::de::Error::custom(e.reason))
    }
}

/// `compat = "ns2"` in a component's table: that component follows another simulator's
/// rules where they differ from the paper or RFC it implements, as one rule set (the
/// component's file lists the rules and their sources). The `ns2` profile sets it where a
/// component has such rules: `gaimd` and `highspeed` (`TcpAgent::slowdown()`), Westwood+
/// (Agent/TCP/Linux), `onoff` (Application/Traffic/Exponential).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Compat {
    /// ns-2.35.
    Ns2,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_say_the_known() {
        assert!(!Profile::ALL.is_empty());
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Some(p));
        }
        let e = Profile::from_value(&Value::from("ns-2"), "flows.f.profile").unwrap_err();
        assert_eq!(e.field, "flows.f.profile");
        assert!(e.reason.contains("did you mean 'ns2'"), "{e}");
        assert!(e.reason.contains("linux, ns3, rfc, ns2, classic"), "{e}");
        let e = Profile::from_value(&Value::from(3), "profile").unwrap_err();
        assert!(e.reason.contains("expected a profile name"), "{e}");
    }
}

//! The ground floor that the components (cc/, queue/, app/, net/) and the scenario layer
//! that builds them both stand on: the error type every bad input becomes, the unit
//! parsers ("10Mbps", "20ms", "64KiB"), the tagged-enum deserializer that each component's
//! parameters plug into, and the "did you mean" helper. Nothing here imports a component or
//! `scenario/`, so the layers depend one way: `scenario/` -> components -> `config/`.

pub mod profile;
pub mod suggest;
pub mod tagged;
pub mod units;

use std::fmt;

/// A scenario error: the dotted path of the offending field and why it is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub field: String,
    pub reason: String,
}

impl ScenarioError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}
impl std::error::Error for ScenarioError {}

pub(crate) fn known_names(names: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = names.collect();
    if v.is_empty() {
        "none defined".into()
    } else {
        format!("known: {}", v.join(", "))
    }
}

/// Split a message that carries a sub-path (see [`tagged`]) into (sub-path, message).
pub(crate) fn split_subpath(msg: &str) -> Option<(String, String)> {
    let rest = msg.strip_prefix(tagged::SUBPATH)?;
    let (sub, m) = rest.split_once(tagged::SUBPATH)?;
    Some((sub.to_string(), m.to_string()))
}

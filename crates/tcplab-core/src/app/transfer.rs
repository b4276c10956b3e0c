//! `transfer`: a finite transfer over TCP.

use super::{App, AppCx};
use crate::config::units::{DurationValue, SizeValue};
use crate::config::ScenarioError;
use schemars::JsonSchema;
use serde::Deserialize;

/// A finite transfer of `bytes`, offered at once at `start`. TCP only.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TransferSpec {
    /// Bytes to send, e.g. "1MiB" or 100000.
    pub bytes: SizeValue,
    /// When the transfer starts (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
}

impl TransferSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        cx.need_tcp("transfer")?;
        if self.bytes.0 == 0 {
            return Err(cx.err("bytes", "must be positive"));
        }
        let (start, _) = cx.window(self.start, None)?;
        Ok(App::Transfer {
            start,
            bytes: self.bytes.0,
        })
    }
}

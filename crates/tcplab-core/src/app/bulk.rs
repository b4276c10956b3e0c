//! `bulk`: a greedy (FTP-like) source over TCP.

use super::{App, AppCx};
use crate::config::units::DurationValue;
use crate::config::ScenarioError;
use schemars::JsonSchema;
use serde::Deserialize;

/// Greedy sender from `start` until `stop` (default: the whole run). TCP only.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// When the application starts offering data (default "0s").
    #[serde(default)]
    pub start: Option<DurationValue>,
    /// When it stops offering new data (what was sent is still delivered). Default: never.
    #[serde(default)]
    pub stop: Option<DurationValue>,
}

impl BulkSpec {
    pub fn build(&self, cx: &AppCx) -> Result<App, ScenarioError> {
        cx.need_tcp("bulk")?;
        let (start, stop) = cx.window(self.start, self.stop)?;
        Ok(App::Bulk { start, stop })
    }
}

//! Creating the pcap files a scenario asks for (`links.NAME.pcap`).

use super::Built;
use crate::scenario::ScenarioError;
use crate::stats::pcap::PcapWriter;
use std::path::{Path, PathBuf};

impl Built {
    /// The pcap files the scenario asks for: (link id, path as written).
    pub fn pcap_specs(&self) -> Vec<(usize, &str)> {
        self.scenario
            .links
            .values()
            .enumerate()
            .filter_map(|(i, l)| l.pcap.as_deref().map(|p| (i, p)))
            .collect()
    }

    /// Create the pcap files of `links.*.pcap` (truncating existing ones) and attach their
    /// writers to the links. Paths are taken relative to `dir` (the current directory when
    /// `None`) and must stay inside it: validation refuses absolute paths and `..`, and
    /// here a path whose directory (after symbolic links) lies outside `dir`, or that is
    /// itself a symbolic link, is refused. No directory is created. With `log`, every capture also keeps
    /// the packets it records in memory (see [`crate::stats::pcap::PcapWriter::log`]).
    ///
    /// Building a scenario never touches files; the front ends call this before running.
    pub fn open_pcaps(&mut self, dir: Option<&Path>, log: bool) -> Result<(), ScenarioError> {
        let rwnd: Vec<u64> = self.flow_meta.iter().map(|m| m.tcp.max_window).collect();
        let specs: Vec<(usize, String, String)> = self
            .pcap_specs()
            .into_iter()
            .map(|(i, p)| (i, self.sim.links[i].name.clone(), p.to_string()))
            .collect();
        let resolved: Vec<(usize, String, PathBuf)> = specs
            .into_iter()
            .map(|(i, name, p)| {
                let path = match dir {
                    Some(d) if Path::new(&p).is_relative() => d.join(&p),
                    _ => PathBuf::from(&p),
                };
                (i, name, path)
            })
            .collect();
        // Check every path before creating any file, so a bad one leaves nothing behind.
        let base = dir.unwrap_or(Path::new("."));
        for (_, name, path) in &resolved {
            let field = format!("links.{name}.pcap");
            confine(base, path, &field)?;
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            if !parent.is_dir() {
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "cannot create '{}': directory '{}' does not exist",
                        path.display(),
                        parent.display()
                    ),
                ));
            }
            if path.is_dir() {
                return Err(ScenarioError::new(
                    field,
                    format!("cannot create '{}': it is a directory", path.display()),
                ));
            }
        }
        for (i, name, path) in resolved {
            let mut w = match PcapWriter::create(&path, &rwnd) {
                Ok(w) => w,
                Err(e) => {
                    // Dropping the writers opened so far removes their temporary files.
                    for l in &mut self.sim.links {
                        l.capture = None;
                    }
                    return Err(ScenarioError::new(
                        format!("links.{name}.pcap"),
                        format!("cannot create '{}': {e}", path.display()),
                    ));
                }
            };
            if log {
                w.enable_log();
            }
            self.sim.links[i].capture = Some(Box::new(w));
        }
        Ok(())
    }
}

/// `path` (= `base` joined with a relative pcap path) must stay inside `base` once symbolic
/// links are followed: its directory's canonical form starts with `base`'s, and the file is
/// not itself a symbolic link. A directory that does not exist is left to the caller's
/// "does not exist" message.
fn confine(base: &Path, path: &Path, field: &str) -> Result<(), ScenarioError> {
    if path.is_absolute() && !path.starts_with(base) {
        // Validation refuses absolute paths; a Built made without it still gets the rule.
        return Err(ScenarioError::new(
            field,
            format!(
                "'{}' is outside the run's output directory '{}'",
                path.display(),
                base.display()
            ),
        ));
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(ScenarioError::new(
            field,
            format!(
                "'{}' is a symbolic link; a scenario writes only plain files inside the run's \
                 output directory",
                path.display()
            ),
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (Ok(b), Ok(p)) = (base.canonicalize(), parent.canonicalize()) else {
        return Ok(());
    };
    if !p.starts_with(&b) {
        return Err(ScenarioError::new(
            field,
            format!(
                "'{}' leads outside the run's output directory '{}' (through a symbolic \
                 link to '{}')",
                path.display(),
                base.display(),
                p.display()
            ),
        ));
    }
    Ok(())
}

//! The layers depend one way (issue 31 §6): `scenario/` builds the components, the components
//! (cc/, queue/, app/, net/, tcp/, stats/ and the engine files) never name the scenario layer
//! or anything above it, and `config/` (errors, units, tagged enums) names no component.
//! Read from the source, comments left out, so a `use` added anywhere shows here.

use std::path::{Path, PathBuf};

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// `file:line: text` for each code line (comments stripped) of `parts` naming one of `above`.
fn offenders(parts: &[&str], above: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for p in parts {
        rust_files(&src.join(p), &mut files);
    }
    assert!(!files.is_empty(), "no sources under {parts:?}");
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for m in above {
                let needles = [
                    format!("crate::{m}::"),
                    format!("crate::{m};"),
                    format!("crate::{m}}}"),
                ];
                if needles.iter().any(|n| code.contains(n.as_str())) {
                    found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn components_never_name_the_scenario_layer_or_above() {
    let components = [
        "app", "cc", "net", "queue", "tcp", "stats", "event.rs", "time.rs", "udp.rs", "rng.rs",
        "ids.rs", "config",
    ];
    let above = [
        "scenario", "report", "analysis", "fuzzing", "sim", "par", "audit",
    ];
    let bad = offenders(&components, &above);
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn config_names_no_component() {
    let components = ["app", "cc", "net", "queue", "tcp", "stats", "udp"];
    let bad = offenders(&["config"], &components);
    assert!(
        bad.is_empty(),
        "config/ depends on components:\n{}",
        bad.join("\n")
    );
}

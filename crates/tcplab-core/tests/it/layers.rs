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

// ---------------------------------------------------------------------------------------
// No import cycle among the core's modules (issue 43 §4). A module is a top-level file or
// folder of src/ (cc/, tcp/, net/, queue/, packet.rs, ...); module a depends on module b
// when code in a names b by a `crate::b` path, a `crate::{b::..}` group or a `super::`
// path that resolves into b. Comments, string literals and `#[cfg(test)]` modules are left
// out (a unit test may reach across layers). The dependency graph must have no cycle.
// ---------------------------------------------------------------------------------------

/// `text` without comments and with string and char literals emptied.
fn strip_code(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == b'r' && (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"')) {
            // Raw string r"..." / r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                if b[j] == b'\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j + close.len();
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            out.push_str("' '");
            i += 3;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            let mut j = i + 2;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// `code` without the `#[cfg(test)]`-gated items (brace-matched).
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(k) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..k]);
        let after = &rest[k..];
        let Some(open) = after.find(['{', ';']) else {
            rest = "";
            break;
        };
        if after.as_bytes()[open] == b';' {
            rest = &after[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = after.len();
        for (j, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                '\n' => {}
                _ => {}
            }
        }
        // Keep the line count, so reported lines stay right.
        out.extend(after[..end].chars().filter(|&c| c == '\n'));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules that `code` (of the module at `path`, e.g. `["tcp", "sender"]`)
/// names, each with the line it is named on.
fn named_modules(path: &[String], code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut k = 0;
        while k < line.len() {
            let rest = &line[k..];
            let boundary = k == 0
                || !line[..k]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
            if boundary && rest.starts_with("crate::") {
                let after = &rest["crate::".len()..];
                if let Some(group) = after.strip_prefix('{') {
                    let mut depth = 0;
                    let mut item_start = true;
                    for (j, ch) in group.char_indices() {
                        match ch {
                            '{' => depth += 1,
                            '}' if depth == 0 => break,
                            '}' => depth -= 1,
                            ',' if depth == 0 => item_start = true,
                            c if item_start && (c.is_ascii_alphabetic() || c == '_') => {
                                found.push((ident_at(&group[j..]).to_string(), n + 1));
                                item_start = false;
                            }
                            _ => {}
                        }
                    }
                } else {
                    found.push((ident_at(after).to_string(), n + 1));
                }
                k += "crate::".len();
                continue;
            }
            if boundary && rest.starts_with("super::") {
                let mut ups = 0;
                let mut r = rest;
                while let Some(t) = r.strip_prefix("super::") {
                    ups += 1;
                    r = t;
                }
                if ups <= path.len() {
                    let base = &path[..path.len() - ups];
                    let top = match base.first() {
                        Some(t) => t.clone(),
                        None => ident_at(r).to_string(),
                    };
                    found.push((top, n + 1));
                }
                k += "super::".len() * ups;
                continue;
            }
            k += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    found
}

/// Module path of a source file relative to src/: `tcp/sender/undo.rs` → [tcp, sender,
/// undo], `tcp/mod.rs` → [tcp], `lib.rs` → [].
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

type Evidence = std::collections::BTreeMap<(String, String), Vec<String>>;

/// The dependency edges between top-level modules of `files` (relative path, text), with
/// `file:line` evidence for each. Names that are not modules (root functions, macros) are
/// left out.
fn module_graph(files: &[(PathBuf, String)]) -> Evidence {
    let modules: std::collections::BTreeSet<String> = files
        .iter()
        .filter_map(|(rel, _)| module_path(rel).first().cloned())
        .collect();
    let mut edges = Evidence::new();
    for (rel, text) in files {
        let path = module_path(rel);
        let Some(me) = path.first() else { continue };
        let code = without_test_modules(&strip_code(text));
        for (other, line) in named_modules(&path, &code) {
            if &other != me && modules.contains(&other) {
                edges
                    .entry((me.clone(), other))
                    .or_default()
                    .push(format!("{}:{line}", rel.display()));
            }
        }
    }
    edges
}

/// Every cycle-carrying strongly connected component (more than one module), each as its
/// modules and the edges among them with evidence.
fn cycles(edges: &Evidence) -> Vec<String> {
    let nodes: std::collections::BTreeSet<&String> =
        edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for (a, b) in edges.keys() {
                if a == &n && seen.insert(b.clone()) {
                    stack.push(b.clone());
                }
            }
        }
        seen
    };
    let reachable: std::collections::BTreeMap<&String, _> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) {
            continue;
        }
        let scc: Vec<&String> = nodes
            .iter()
            .copied()
            .filter(|m| m == n || (reachable[n].contains(*m) && reachable[m].contains(*n)))
            .collect();
        for m in &scc {
            done.insert((*m).clone());
        }
        if scc.len() > 1 {
            let mut text = format!(
                "cycle among {}:",
                scc.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for ((a, b), ev) in edges {
                if scc.contains(&a) && scc.contains(&b) {
                    text.push_str(&format!(
                        "\n  {a} -> {b}: {}",
                        ev.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
            out.push(text);
        }
    }
    out
}

fn core_sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")))
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f.strip_prefix(&src).unwrap().to_path_buf(), text)
        })
        .collect()
}

#[test]
fn no_import_cycle_among_the_core_modules() {
    let files = core_sources();
    assert!(files.len() > 50, "only {} sources found", files.len());
    let edges = module_graph(&files);
    // The graph is real: the transport uses congestion control and its interface types.
    assert!(edges.contains_key(&("tcp".into(), "cc".into())));
    assert!(edges.contains_key(&("cc".into(), "cc_api".into())));
    assert!(edges.contains_key(&("queue".into(), "packet".into())));
    let bad = cycles(&edges);
    assert!(bad.is_empty(), "import cycles:\n{}", bad.join("\n"));
}

fn fake(files: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect()
}

#[test]
fn the_cycle_check_finds_a_deliberate_cycle() {
    // a/ names b by `crate::`, b names a back through `super::` from b/inner.rs.
    let files = fake(&[
        ("a/mod.rs", "use crate::b::Thing;\n"),
        ("a/x.rs", "pub struct X;\n"),
        ("b/mod.rs", "pub mod inner;\n"),
        ("b/inner.rs", "use super::super::a::x::X;\n"),
        ("c.rs", "use crate::{a::X, b};\n"),
    ]);
    let edges = module_graph(&files);
    let bad = cycles(&edges);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("cycle among a, b:"), "{}", bad[0]);
    assert!(bad[0].contains("b -> a: b/inner.rs:1"), "{}", bad[0]);
    assert!(edges.contains_key(&("c".into(), "a".into())));
    assert!(edges.contains_key(&("c".into(), "b".into())));

    // Comments, strings and test modules do not count; one-way use is fine.
    let files = fake(&[
        ("a/mod.rs", "use crate::b::Thing; // crate::c\n"),
        (
            "b.rs",
            "/// see crate::a::X\nconst S: &str = \"crate::a::X\";\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
        ),
        ("c.rs", "pub fn f() {}\n"),
    ]);
    let edges = module_graph(&files);
    assert!(cycles(&edges).is_empty(), "{:?}", cycles(&edges));
    assert_eq!(edges.len(), 1, "{edges:?}");
}

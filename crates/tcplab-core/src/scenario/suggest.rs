//! Unknown keys: the close known key ("did you mean"), and the keys the expansion adds to
//! those a table's struct declares (builders, `[defaults]`, duplex links, profiles), so an
//! "unknown field" line lists everything that is accepted where the key was written.

use crate::config::suggest::closest;

/// Keys a table accepts that expansion consumes before its struct sees it, by the table's
/// path (the unknown key's path without its last part).
fn expansion_keys(parent: &str) -> &'static [&'static str] {
    let depth = parent.split('.').count();
    if parent.is_empty() {
        &["dumbbell", "parking_lot", "fat_tree", "defaults"]
    } else if parent.starts_with("links.") && depth == 2 {
        &["duplex", "reverse_rate", "reverse"]
    } else if parent.starts_with("flows.") && depth == 2 {
        &["profile"]
    } else {
        &[]
    }
}

/// serde's `unknown field `X`, expected one of `a`, `b`` (or `expected `a``) at `path`, said
/// as one line that suggests the close key, lists every key accepted there (the expansion's
/// too) and, for `buffer` on a link, says where a link's buffer goes. Other messages are
/// returned unchanged.
pub fn unknown_field(path: &str, msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("unknown field `") else {
        return msg.to_string();
    };
    let Some((field, tail)) = rest.split_once('`') else {
        return msg.to_string();
    };
    let list = if let Some(l) = tail.strip_prefix(", expected one of ") {
        l
    } else if let Some(l) = tail.strip_prefix(", expected ") {
        l
    } else {
        return msg.to_string();
    };
    let mut known: Vec<&str> = list
        .split(", ")
        .map(|k| k.trim_matches('`'))
        .filter(|k| !k.is_empty())
        .collect();
    let parent = path.rsplit_once('.').map_or("", |(p, _)| p);
    known.extend(expansion_keys(parent));
    let hint = if field == "buffer" && parent.starts_with("links.") {
        " (a link's buffer is its queue's `limit`: queue = { limit = 100 } for packets or \
         { limit = \"150KB\" } for bytes; `buffer`, also in BDPs, is a builder key: \
         dumbbell.bottleneck, parking_lot.link, fat_tree.link)"
            .to_string()
    } else {
        match closest(field, &known) {
            Some(k) => format!(" (did you mean `{k}`?)"),
            None => String::new(),
        }
    };
    format!("unknown field `{field}`{hint}; known: {}", known.join(", "))
}

//! Unknown keys: the close known key ("did you mean"), and the keys the expansion adds to
//! those a table's struct declares (builders, `[defaults]`, duplex links, profiles), so an
//! "unknown field" line lists everything that is accepted where the key was written.

/// Levenshtein distance between two short keys (bytes; keys are ASCII).
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The known key closest to `word` when it is close enough to be a typo: at most 1 edit for
/// keys up to 4 characters, 2 up to 8, 3 beyond; a key that `word` starts or ends with (or
/// that starts with it) also counts. Ties go to the first in `known`.
pub fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let w = word.to_ascii_lowercase();
    let limit = match w.len() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &'a str)> = None;
    for &k in known {
        let d = distance(&w, &k.to_ascii_lowercase());
        let near =
            d <= limit || (k.len() >= 4 && (w.starts_with(k) || k.starts_with(&w) && w.len() >= 3));
        if near && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_keys() {
        let k = [
            "from", "to", "rate", "delay", "queue", "dumbbell", "defaults",
        ];
        assert_eq!(closest("rat", &k), Some("rate"));
        assert_eq!(closest("dumbell", &k), Some("dumbbell"));
        assert_eq!(closest("dealy", &k), Some("delay"));
        assert_eq!(closest("zzz", &k), None);
        assert_eq!(closest("default", &k), Some("defaults"));
    }
}

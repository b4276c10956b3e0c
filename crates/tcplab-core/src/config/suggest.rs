//! The close known key to a misspelt one ("did you mean"), for every error message that
//! lists the keys accepted where an unknown one was written.

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

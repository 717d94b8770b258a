//! Small helpers for the words the tab shows: counts with their nouns in
//! the right number, "none" for nothing, a sentence's capital.

/// `n` with its noun, singular or plural: `1 hit`, `3 hits`.
pub(crate) fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` of `n`, or "none" when there are none.
pub(crate) fn none_or(n: u64, text: impl FnOnce(u64) -> String) -> String {
    if n == 0 { "none".to_owned() } else { text(n) }
}

/// `text` with its first letter in capitals.
pub(crate) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_none_and_capitals() {
        assert_eq!(counted(1, "hit", "hits"), "1 hit");
        assert_eq!(counted(0, "hit", "hits"), "0 hits");
        assert_eq!(counted(2, "person", "people"), "2 people");
        assert_eq!(none_or(0, |n| n.to_string()), "none");
        assert_eq!(none_or(3, |n| format!("{n} lost")), "3 lost");
        assert_eq!(capitalised("none refused"), "None refused");
        assert_eq!(capitalised(""), "");
    }
}

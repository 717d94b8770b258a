//! Short ASCII text of a fixed most length, kept inline: a hit's token and
//! network are made on every counted request, and kept this way they cost
//! no allocation there (nor a free on the writer's thread).

/// At most `N` bytes of ASCII text, kept inline. Unused bytes are zero, so
/// the derived order is the text's own order (no text here holds a NUL).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ShortText<const N: usize> {
    bytes: [u8; N],
    len: u8,
}

impl<const N: usize> ShortText<N> {
    /// Empty text.
    pub(crate) const fn new() -> Self {
        Self {
            bytes: [0; N],
            len: 0,
        }
    }

    /// `text`, if it is ASCII without NUL and fits.
    pub(crate) fn from_text(text: &str) -> Option<Self> {
        let mut short = Self::new();
        std::fmt::Write::write_str(&mut short, text).ok()?;
        Some(short)
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII is ever written, so this cannot fail.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl<const N: usize> std::fmt::Write for ShortText<N> {
    /// Appends `text`; refuses (and leaves the text as it was) what is not
    /// ASCII, holds a NUL or does not fit.
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let start = usize::from(self.len);
        let end = start + text.len();
        if end > N || end > usize::from(u8::MAX) || !text.bytes().all(|b| b.is_ascii() && b != 0) {
            return Err(std::fmt::Error);
        }
        self.bytes[start..end].copy_from_slice(text.as_bytes());
        self.len = end as u8;
        Ok(())
    }
}

impl<const N: usize> std::fmt::Debug for ShortText<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn text_that_fits_is_kept_and_the_rest_refused() {
        let mut text = ShortText::<8>::new();
        assert!(write!(text, "{}.{}", 12, 345).is_ok());
        assert_eq!(text.as_str(), "12.345");
        assert!(text.write_str("xyz").is_err());
        assert_eq!(text.as_str(), "12.345");
        assert!(ShortText::<8>::from_text("é").is_none());
        assert!(ShortText::<8>::from_text("a\0").is_none());
        assert_eq!(
            ShortText::<8>::from_text("").map(|t| t.as_str().len()),
            Some(0)
        );
    }

    #[test]
    fn the_order_is_the_texts_order() {
        let mut words = ["1.2.30.x", "1.2.3.x", "1.2.3", "1.10.0.x", "x"];
        let mut short: Vec<_> = words
            .iter()
            .map(|w| ShortText::<16>::from_text(w).expect("fits"))
            .collect();
        words.sort_unstable();
        short.sort();
        let short: Vec<_> = short.iter().map(ShortText::as_str).collect();
        assert_eq!(short, words);
    }
}

//! The path a hit keeps: as requested, minus query and fragment, made safe.
//!
//! `@` is written `%40` so an address pasted into a URL cannot travel;
//! control characters and bytes that are not UTF-8 are percent-encoded (and
//! so are spaces, which a valid request never has); a path longer than
//! [`MAX_PATH_BYTES`] is cut and ends in [`CUT_MARK`].
//!
//! Some paths are not kept as asked, because a client chooses them freely
//! and a flood of new ones would be a flood of rows: a request the site
//! answered "not found" (404, 410) is kept as [`NOT_FOUND`], any other
//! answer about the request itself (400, 405, 414, …) as [`BAD_REQUEST`]
//! ([`answered_path`]); the writer keeps at most so many paths a store and
//! hour, the rest under [`OTHER_PATHS`]. None of them starts with `/`, so
//! none can be a path a request asked for.

use std::fmt::Write as _;

/// The longest path a hit keeps, in bytes, the cut mark included.
pub const MAX_PATH_BYTES: usize = 256;

/// What a cut path ends with.
pub const CUT_MARK: &str = "…";

/// The path kept for requests the site answered "not found" (404, 410).
pub const NOT_FOUND: &str = "(not found)";

/// The path kept for requests the site answered with another error about
/// the request itself (4xx other than 401, 403, 407 and 429, which are
/// about the asker, not about the path).
pub const BAD_REQUEST: &str = "(bad request)";

/// The path kept for the requests of an hour beyond its kept paths.
pub const OTHER_PATHS: &str = "(other paths)";

/// What a path is kept as once the site has answered with `status`: one
/// of the folds above, or `None` (kept as asked).
pub fn answered_path(status: Option<u16>) -> Option<&'static str> {
    match status? {
        404 | 410 => Some(NOT_FOUND),
        401 | 403 | 407 | 429 => None,
        400..=499 => Some(BAD_REQUEST),
        _ => None,
    }
}

/// The path of a request target (`/a/b?q=1#f`, or the absolute form
/// `http://host/a/b?q=1` a proxy may send), cleaned for keeping.
pub fn clean_path(target: &[u8]) -> String {
    let path = without_scheme_and_host(target);
    let end = path
        .iter()
        .position(|&byte| byte == b'?' || byte == b'#')
        .unwrap_or(path.len());
    cut(encode(&path[..end]))
}

/// The raw query string of a request target (between `?` and `#`), if any.
pub fn query_of(target: &[u8]) -> Option<&[u8]> {
    let start = target
        .iter()
        .position(|&byte| byte == b'?' || byte == b'#')?;
    if target[start] != b'?' {
        return None;
    }
    let rest = &target[start + 1..];
    let end = rest
        .iter()
        .position(|&byte| byte == b'#')
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The extension of a path's last segment, lowercased (`/a/b.CSS` → `css`).
pub fn extension(path: &str) -> Option<String> {
    let last = path.rsplit('/').next()?;
    let (stem, ext) = last.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

fn without_scheme_and_host(target: &[u8]) -> &[u8] {
    let lower_starts = |prefix: &[u8]| {
        target.len() >= prefix.len() && target[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    let after_scheme = if lower_starts(b"http://") {
        &target[7..]
    } else if lower_starts(b"https://") {
        &target[8..]
    } else {
        return target;
    };
    match after_scheme
        .iter()
        .position(|&byte| matches!(byte, b'/' | b'?' | b'#'))
    {
        Some(start) => &after_scheme[start..],
        None => b"/",
    }
}

fn encode(raw: &[u8]) -> String {
    // Nearly every path is visible ASCII without `@`: kept as it is.
    if raw
        .iter()
        .all(|&byte| byte.is_ascii_graphic() && byte != b'@')
    {
        // ASCII is UTF-8: this copies the bytes once and replaces nothing.
        return String::from_utf8_lossy(raw).into_owned();
    }
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '@' || c == ' ' || c.is_control() {
                let mut buffer = [0u8; 4];
                for byte in c.encode_utf8(&mut buffer).bytes() {
                    let _ = write!(out, "%{byte:02X}");
                }
            } else {
                out.push(c);
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

fn cut(mut path: String) -> String {
    if path.len() <= MAX_PATH_BYTES {
        return path;
    }
    let mut end = MAX_PATH_BYTES - CUT_MARK.len();
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    // Never leave half of a `%XX` escape at the end.
    let bytes = path.as_bytes();
    if end >= 1 && bytes[end - 1] == b'%' {
        end -= 1;
    } else if end >= 2 && bytes[end - 2] == b'%' {
        end -= 2;
    }
    path.truncate(end);
    path.push_str(CUT_MARK);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_and_fragment_never_stay() {
        assert_eq!(
            clean_path(b"/resume?ref=linkedin&email=a@b.c#top"),
            "/resume"
        );
        assert_eq!(clean_path(b"/a#frag?not-a-query"), "/a");
        assert_eq!(clean_path(b"/"), "/");
        assert_eq!(clean_path(b"?only=query"), "");
    }

    #[test]
    fn absolute_targets_keep_only_the_path() {
        assert_eq!(clean_path(b"http://example.com/a/b?x=1"), "/a/b");
        assert_eq!(clean_path(b"HTTPS://user@example.com:8443/a"), "/a");
        assert_eq!(clean_path(b"http://example.com"), "/");
        assert_eq!(clean_path(b"http://example.com?x=1"), "");
    }

    #[test]
    fn at_signs_controls_spaces_and_bad_bytes_are_encoded() {
        assert_eq!(clean_path(b"/u/jane@example.com"), "/u/jane%40example.com");
        assert_eq!(clean_path(b"/a\tb\x7f"), "/a%09b%7F");
        assert_eq!(clean_path(b"/a b"), "/a%20b");
        assert_eq!(clean_path(b"/caf\xc3\xa9"), "/café");
        assert_eq!(clean_path(b"/bad\xff\xfe"), "/bad%FF%FE");
        assert_eq!(clean_path("/\u{85}".as_bytes()), "/%C2%85");
    }

    #[test]
    fn long_paths_are_cut_and_marked() {
        let long = format!("/{}", "a".repeat(1000));
        let cleaned = clean_path(long.as_bytes());
        assert!(cleaned.len() <= MAX_PATH_BYTES);
        assert!(cleaned.ends_with(CUT_MARK));

        let escapes = "/".to_owned() + &"\u{1}".repeat(400);
        let cleaned = clean_path(escapes.as_bytes());
        assert!(cleaned.len() <= MAX_PATH_BYTES);
        let body = cleaned.trim_end_matches(CUT_MARK);
        assert!(body.ends_with("%01"), "no half escape: {body}");

        let accents = "/".to_owned() + &"é".repeat(400);
        assert!(clean_path(accents.as_bytes()).len() <= MAX_PATH_BYTES);
    }

    #[test]
    fn extensions_and_queries() {
        assert_eq!(extension("/pkg/app.CSS").as_deref(), Some("css"));
        assert_eq!(extension("/resume.pdf").as_deref(), Some("pdf"));
        assert_eq!(extension("/.env"), None);
        assert_eq!(extension("/a.b/c"), None);
        assert_eq!(query_of(b"/a?x=1#f"), Some(&b"x=1"[..]));
        assert_eq!(query_of(b"/a#f?x=1"), None);
        assert_eq!(query_of(b"/a"), None);
    }
}

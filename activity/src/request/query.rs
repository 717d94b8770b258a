//! A query string's parameters, read as a browser's form would write them:
//! a name matched as decoded (ASCII case aside), a value percent-decoded
//! with `+` as a space. Only what the tag and the campaign ask for is read.

use percent_encoding::percent_decode;

/// The decoded value of the first parameter of `query` named `wanted`
/// (the name as decoded, ASCII case aside); `""` for a name without `=`.
pub fn query_value(query: &[u8], wanted: &str) -> Option<String> {
    query.split(|&byte| byte == b'&').find_map(|pair| {
        let (name, value) = match pair.iter().position(|&byte| byte == b'=') {
            Some(at) => (&pair[..at], &pair[at + 1..]),
            None => (pair, &b""[..]),
        };
        name_is(name, wanted).then(|| decode(value))
    })
}

/// Whether a query parameter's raw name is `wanted` (ASCII case aside), as
/// decoded; a plain ASCII name is compared as it is, without decoding.
fn name_is(raw: &[u8], wanted: &str) -> bool {
    if raw.is_ascii() && !raw.iter().any(|&byte| matches!(byte, b'%' | b'+')) {
        raw.eq_ignore_ascii_case(wanted.as_bytes())
    } else {
        decode(raw).eq_ignore_ascii_case(wanted)
    }
}

/// Form-style decoding: `+` is a space, `%XX` a byte; bad UTF-8 is replaced.
fn decode(raw: &[u8]) -> String {
    let spaced: Vec<u8> = raw
        .iter()
        .map(|&byte| if byte == b'+' { b' ' } else { byte })
        .collect();
    percent_decode(&spaced).decode_utf8_lossy().into_owned()
}

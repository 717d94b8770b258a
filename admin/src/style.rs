//! The tab's own stylesheet (`admin/style/tab.css`, in the crate): every
//! rule scoped to the tab's root, its colours set there, light and dark.
//! The tab links it; the tab's layer serves it beside the tab, at
//! `{tab}/tab.css`, so the tab looks the same in any app that mounts it.

/// The stylesheet's text.
pub const CSS: &str = include_str!("../style/tab.css");

/// Where the stylesheet of the tab at `tab` is served.
pub fn href(tab: &str) -> String {
    format!("{}/tab.css", tab.trim_end_matches('/'))
}

/// The stylesheet as an answer: kept by a browser for a few minutes (it
/// changes only with the crate).
#[cfg(feature = "ssr")]
pub(crate) fn answer() -> axum::response::Response {
    use axum::response::IntoResponse as _;
    (
        [
            (http::header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (http::header::CACHE_CONTROL, "public, max-age=300"),
        ],
        CSS,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule is the tab's: each selector starts at its root, so a
    /// host page's elements are never styled by it.
    #[test]
    fn every_rule_is_scoped_to_the_tab() {
        let mut rules = 0;
        let without_comments: String = CSS
            .split("/*")
            .enumerate()
            .map(|(index, part)| {
                if index == 0 {
                    part
                } else {
                    part.split_once("*/").map_or("", |(_, rest)| rest)
                }
            })
            .collect();
        for block in without_comments.split('}') {
            let Some((selectors, _)) = block.rsplit_once('{') else {
                continue;
            };
            let selectors = selectors.rsplit('{').next().unwrap_or(selectors);
            let selectors = selectors.trim();
            if selectors.is_empty() || selectors.starts_with('@') {
                continue;
            }
            for selector in selectors.split(',') {
                let selector = selector.trim();
                let selector = selector.rsplit('{').next().unwrap_or(selector).trim();
                if selector.starts_with('@') || selector.is_empty() {
                    continue;
                }
                rules += 1;
                assert!(
                    selector.starts_with(".admin-tab"),
                    "a rule that is not the tab's: {selector:?}"
                );
            }
        }
        assert!(rules > 50, "{rules} selectors read");
        assert!(CSS.contains("prefers-color-scheme: dark"), "a dark scheme");
        assert_eq!(href("/stats/"), "/stats/tab.css");
    }
}

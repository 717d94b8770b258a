//! The Content-Security-Policy the tab's page is sent with: scripts only
//! from the site itself or carrying this response's nonce (the hydration
//! script and the resources Leptos inlines carry it), WebAssembly compiled
//! from the site's own bundle, nothing framed, no plugins, forms and
//! requests only to the site.

use leptos::prelude::use_context;

/// The policy for a response whose inline scripts carry `nonce`.
pub fn policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    )
}

/// Sends the policy with the page being rendered, and asks caches not to
/// keep the page (call it while rendering the tab on the server; it does
/// nothing elsewhere).
pub fn send() {
    let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) else {
        return;
    };
    if let Ok(value) = http::HeaderValue::from_str(&policy(&nonce.to_string())) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
    response.insert_header(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_lets_only_the_site_and_the_nonce_run_scripts() {
        let policy = policy("abc123");
        let script = policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .expect("a script-src");
        assert_eq!(
            script,
            "script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval'"
        );
        assert!(!script.contains("unsafe-inline") && !script.contains("'unsafe-eval'"));
        assert!(policy.contains("frame-ancestors 'none'") && policy.contains("object-src 'none'"));
    }
}

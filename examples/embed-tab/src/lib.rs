//! The example app's tab bundle: `scripts/build-embed-tab` builds it for
//! wasm32 and runs wasm-bindgen on it (docs/EMBEDDING.md's hydration steps); the
//! tab's page loads it and calls `hydrate()`. On native targets it
//! compiles to nothing.
#![forbid(unsafe_code)]

/// Called by the page's loader once the wasm module is instantiated.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    whocomes_admin::hydrate_tab();
}

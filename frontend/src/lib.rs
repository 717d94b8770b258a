//! The browser entry point: `hydrate()` takes over the HTML the server rendered.
//!
//! Everything the site does lives in the `app` crate; this crate only exists so
//! that the wasm build has a `cdylib` to hand to wasm-bindgen. On native
//! targets it compiles to nothing.
#![forbid(unsafe_code)]

/// Called by the generated JS loader once the wasm module is instantiated.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // `hydrate_lazy`: the Admin tab's route is lazy (its code is a wasm file of
    // its own), and hydration waits for that file where the page shows it.
    leptos::mount::hydrate_lazy(app::App);
}

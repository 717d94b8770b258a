//! The `/admin` route's view, and whether its code is split out of the
//! public pages' wasm.
//!
//! With `cargo leptos build --split`, the Admin tab (its charts, tables and
//! server calls) becomes a wasm file of its own: a public page downloads none
//! of it, `/admin` names it in its head so the browser fetches it beside the
//! main bundle, and a navigation to `/admin` inside the app fetches it then.
//! A split build links the wasm with `--emit-relocs`, which `build.rs` turns
//! into `cfg(wasm_split)`. Without it (a plain `cargo leptos watch`) the
//! route is an ordinary one and the site is one bundle, as before: a lazy
//! route in an unsplit bundle would import a module that does not exist,
//! and no page would hydrate.
//!
//! The server renders the lazy route in either case (the page's HTML is the
//! same), so that it can name the split file when there is one.

use leptos_router::ChooseView;

use crate::pages::AdminPage;

/// What the router shows at `/admin`: on the server, and in a split bundle.
#[cfg(any(not(target_arch = "wasm32"), wasm_split))]
pub fn view() -> impl ChooseView {
    leptos_router::Lazy::<lazy::AdminRoute>::new()
}

/// What the router shows at `/admin`: an unsplit browser bundle.
#[cfg(all(target_arch = "wasm32", not(wasm_split)))]
pub fn view() -> impl ChooseView {
    AdminPage
}

#[cfg(any(not(target_arch = "wasm32"), wasm_split))]
mod lazy {
    use leptos::prelude::*;
    use leptos_router::{LazyRoute, lazy_route};

    use super::AdminPage;

    /// The lazily loaded route: no data of its own (the tab loads its own).
    pub struct AdminRoute;

    #[lazy_route]
    impl LazyRoute for AdminRoute {
        fn data() -> Self {
            AdminRoute
        }

        fn view(_this: Self) -> AnyView {
            view! { <AdminPage /> }.into_any()
        }
    }
}

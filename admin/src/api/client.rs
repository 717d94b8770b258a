//! How the browser calls the tab's server functions: at `{tab}/api/{name}`,
//! beside the tab wherever the app mounts it, never in the app's own
//! `/api/`. Each function's registered path ([`INTERNAL`]`{name}`) is only
//! a name inside the server; [`TabClient`] is the browser's `fetch` client
//! with that name turned into the tab's address, and the server's
//! [`AdminLayer`](crate::server::AdminLayer) turns it back.

use std::sync::RwLock;

use leptos::server_fn::Bytes;
use leptos::server_fn::client::Client;
use leptos::server_fn::client::browser::BrowserClient;
use leptos::server_fn::error::FromServerFnError;
use leptos::server_fn::request::ClientReq;
use leptos::server_fn::request::browser::{BrowserFormData, BrowserRequest};
use leptos::server_fn::response::browser::BrowserResponse;

/// The prefix the tab's server functions are registered under: a name
/// inside the server, answered at no address (the layer refuses it).
pub const INTERNAL: &str = "/_whocomes/";

/// Where the tab is, as the browser last rendered it (its page's path).
static TAB: RwLock<String> = RwLock::new(String::new());

/// Tells the browser's calls where the tab is (its page's path).
pub fn set_tab(path: &str) {
    let path = path.trim_end_matches('/');
    if let Ok(mut tab) = TAB.write() {
        path.clone_into(&mut tab);
    }
}

/// The address a function's registered path is called at: `{tab}/api/{name}`.
pub fn address(tab: &str, registered: &str) -> String {
    let name = registered.strip_prefix(INTERNAL).unwrap_or(registered);
    format!("{}/api/{name}", tab.trim_end_matches('/'))
}

fn in_tab(registered: &str) -> String {
    let tab = TAB.read().map(|tab| tab.clone()).unwrap_or_default();
    address(if tab.is_empty() { "/admin" } else { &tab }, registered)
}

/// The browser's `fetch` client, calling the tab's functions beside it.
#[derive(Debug)]
pub struct TabClient;

/// A `fetch` request to the tab's address.
#[derive(Debug)]
pub struct TabRequest(BrowserRequest);

impl<E: FromServerFnError> ClientReq<E> for TabRequest {
    type FormData = BrowserFormData;

    fn try_new_req_query(
        path: &str,
        content_type: &str,
        accepts: &str,
        query: &str,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_query(&in_tab(path), content_type, accepts, query, method)
            .map(Self)
    }

    fn try_new_req_text(
        path: &str,
        content_type: &str,
        accepts: &str,
        body: String,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_text(&in_tab(path), content_type, accepts, body, method)
            .map(Self)
    }

    fn try_new_req_bytes(
        path: &str,
        content_type: &str,
        accepts: &str,
        body: Bytes,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_bytes(&in_tab(path), content_type, accepts, body, method)
            .map(Self)
    }

    fn try_new_req_form_data(
        path: &str,
        accepts: &str,
        content_type: &str,
        body: Self::FormData,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_form_data(&in_tab(path), accepts, content_type, body, method)
            .map(Self)
    }

    fn try_new_req_multipart(
        path: &str,
        accepts: &str,
        body: Self::FormData,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_multipart(&in_tab(path), accepts, body, method).map(Self)
    }

    fn try_new_req_streaming(
        path: &str,
        accepts: &str,
        content_type: &str,
        body: impl futures::Stream<Item = Bytes> + Send + 'static,
        method: http::Method,
    ) -> Result<Self, E> {
        BrowserRequest::try_new_req_streaming(&in_tab(path), accepts, content_type, body, method)
            .map(Self)
    }
}

impl<E, I, O> Client<E, I, O> for TabClient
where
    E: FromServerFnError,
    I: FromServerFnError,
    O: FromServerFnError,
{
    type Request = TabRequest;
    type Response = BrowserResponse;

    fn send(request: TabRequest) -> impl Future<Output = Result<BrowserResponse, E>> + Send {
        <BrowserClient as Client<E, I, O>>::send(request.0)
    }

    fn open_websocket(
        path: &str,
    ) -> impl Future<
        Output = Result<
            (
                impl futures::Stream<Item = Result<Bytes, Bytes>> + Send + 'static,
                impl futures::Sink<Bytes> + Send + 'static,
            ),
            E,
        >,
    > + Send {
        <BrowserClient as Client<E, I, O>>::open_websocket(path)
    }

    fn spawn(future: impl Future<Output = ()> + Send + 'static) {
        <BrowserClient as Client<E, I, O>>::spawn(future);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_is_called_beside_the_tab() {
        assert_eq!(
            address("/stats", "/_whocomes/overview"),
            "/stats/api/overview"
        );
        assert_eq!(
            address("/site/admin/", "/_whocomes/sign-in"),
            "/site/admin/api/sign-in"
        );
    }
}

//! The site: the router the binary serves, its connections and the headers,
//! files and limits of every answer.

mod api;
pub mod body_limit;
pub mod headers;
pub mod precompress;
pub mod revalidate;
pub mod routes;
pub mod startup;

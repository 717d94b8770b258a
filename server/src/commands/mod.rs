//! The commands besides serving: `explain`, `import` (and `follow`), `demo`,
//! `export`, `digest`, `annotate` and `api-key`.

pub mod annotate;
pub mod api_key;
pub mod demo;
pub mod digest;
pub mod explain;
pub mod export;
pub mod import;
pub mod import_keys;

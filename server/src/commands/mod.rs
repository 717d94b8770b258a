//! The commands besides serving: `explain`, `import` (and `follow`), `demo`
//! and `export`.

pub mod demo;
pub mod explain;
pub mod export;
pub mod import;
pub mod import_keys;

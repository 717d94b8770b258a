//! Tells the app whether this build splits its wasm: cargo-leptos's `--split`
//! links the browser bundle with `--emit-relocs`, which wasm-split needs, and
//! nothing else does. See `src/admin_route.rs` for what depends on it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wasm_split)");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags
        .split('\u{1f}')
        .any(|flag| flag.contains("--emit-relocs"))
    {
        println!("cargo::rustc-cfg=wasm_split");
    }
}

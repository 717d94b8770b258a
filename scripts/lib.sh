# Shared by the project's scripts: paths, pinned tool versions, and output helpers.
# Sourced, not run.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$CARGO_BIN:$PATH"

# cargo-leptos: 0.3.10 is the newest that builds on rustc 1.95 (0.3.11 needs 1.96).
CARGO_LEPTOS_VERSION="0.3.10"
# cargo-semver-checks (scripts/semver): 0.51.0 reads rustc 1.95's rustdoc JSON.
SEMVER_CHECKS_VERSION="0.51.0"
E2E_DIR="$ROOT/end2end"
# The stats API test's third-party Plausible client (scripts/bootstrap).
PLAUSIBLE_MCP_VERSION="0.1.2"
# The SMTP server the alerts test mails to (PyPI; a venv under target/tools).
AIOSMTPD_VERSION="1.4.6"

# The wasm-bindgen CLI must equal the library version in Cargo.lock exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# Leptos's `--cfg erase_components` is set in one place, .cargo/config.toml
# ([build] rustflags), which every cargo command here reads; cargo-leptos
# sets the same through RUSTFLAGS on its debug builds. A RUSTFLAGS of the
# caller's would replace that line (or be doubled by cargo-leptos), and
# build a server and a bundle that disagree (the page then never hydrates):
# it is said and left out.
if [ -n "${RUSTFLAGS:-}" ]; then
  printf '    RUSTFLAGS=%q is left out: the build flags are in .cargo/config.toml\n' "$RUSTFLAGS" >&2
  unset RUSTFLAGS
fi

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
fail() { printf '\033[31mxx  %s\033[0m\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    fail "need root to run: $* (no sudo found)"
  fi
}

# Seconds since the epoch, for step timings.
now() { date +%s; }

# Puts wasm-opt from the npm `binaryen` package on PATH (installed under
# target/tools on first use): cargo-leptos runs it on a release build, and
# would otherwise download it; Debian's binaryen makes wasm that does not hydrate.
use_npm_wasm_opt() {
  local tools="$ROOT/target/tools"
  if [ ! -x "$tools/node_modules/.bin/wasm-opt" ]; then
    say "Installing wasm-opt (npm binaryen) under target/tools"
    mkdir -p "$tools"
    (cd "$tools" && npm install --silent --no-save --prefix "$tools" binaryen@132 >/dev/null)
  fi
  export PATH="$tools/node_modules/.bin:$PATH"
}

# The cargo feature flags a library's `[package.metadata.docs.rs]` section
# names (`features = [...]` or `all-features = true`), one per line: how
# docs.rs builds it, and so how its docs and its API are checked here.
docs_rs_feature_flags() {
  local section features
  section=$(sed -n '/^\[package.metadata.docs.rs\]/,/^\[/p' "$1")
  if grep -q '^all-features = true' <<<"$section"; then
    echo --all-features
    return
  fi
  features=$(sed -n 's/^features = \[\(.*\)\]$/\1/p' <<<"$section" | tr -d '" ')
  [ -z "$features" ] || printf '%s\n' --features "$features"
}

# Puts cargo-semver-checks at its pinned version on PATH, installing it the
# first time (minutes of compiling): only scripts/semver uses it, and only
# when a library could have broken its API, so a run that has nothing to
# compare never builds it.
use_semver_checks() {
  if cargo semver-checks --version 2>/dev/null | grep -qw "$SEMVER_CHECKS_VERSION"; then
    return
  fi
  say "Installing cargo-semver-checks $SEMVER_CHECKS_VERSION (minutes, once)"
  cargo install cargo-semver-checks --locked --version "$SEMVER_CHECKS_VERSION" ||
    fail "cannot install cargo-semver-checks $SEMVER_CHECKS_VERSION"
}

//! For tests (this crate's and the server's): a fresh, empty database on the
//! test server named by `TEST_DATABASE_URL`, which `scripts/test` starts.
//! Behind the `testing` feature: test support, not production code.

use sqlx::Connection as _;

/// The variable that names the test server (a URL to any of its databases).
pub const TEST_DATABASE_URL: &str = "TEST_DATABASE_URL";

/// Whether this run is CI's (`CI=true`), where nothing may be skipped.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true"))
}

/// Creates a database with a random name on the test server and returns its
/// URL; `None` when `TEST_DATABASE_URL` is not set (the caller skips, and
/// says so). Panics if the server does not answer, and under CI
/// (`CI=true`) if it is not set: a test server that was promised and is
/// missing is a failure, not a skip.
pub async fn fresh_database() -> Option<String> {
    let Ok(admin_url) = std::env::var(TEST_DATABASE_URL) else {
        assert!(
            !under_ci(),
            "CI=true and TEST_DATABASE_URL is not set: the PostgreSQL tests must run (scripts/test starts a server)"
        );
        return None;
    };
    let mut suffix = [0u8; 6];
    if let Err(error) = getrandom::fill(&mut suffix) {
        panic!("no random bytes for a database name: {error}");
    }
    let name: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let name = format!("whocomes_test_{name}");
    let mut admin = match sqlx::PgConnection::connect(&admin_url).await {
        Ok(connection) => connection,
        Err(error) => panic!("the test PostgreSQL does not answer: {error}"),
    };
    if let Err(error) = sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await
    {
        panic!("cannot create a test database: {error}");
    }
    let base = admin_url
        .rsplit_once('/')
        .map_or(admin_url.as_str(), |(base, _)| base);
    Some(format!("{base}/{name}"))
}

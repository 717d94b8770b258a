//! Who may read the visitor table: the admin password (argon2, hashed at
//! start, never logged), the session cookie (signed, HttpOnly,
//! SameSite=Strict, Secure over TLS), and the limit on sign-in attempts per
//! client network.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHashString, SaltString};
use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use chrono::{DateTime, Utc};
use cookie::{Cookie, CookieJar, Key, SameSite};

/// The session cookie's name.
pub const COOKIE: &str = "whocomes_admin";
/// How long a session lasts.
pub const SESSION: Duration = Duration::from_secs(12 * 3_600);
/// Sign-in attempts a client network may make per [`ATTEMPT_WINDOW`].
pub const MAX_ATTEMPTS: u32 = 10;
/// The window sign-in attempts are counted in.
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(600);

/// The admin password, kept only as an argon2 hash. Its `Debug` shows nothing.
pub struct Password(PasswordHashString);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(redacted)")
    }
}

/// Why a password was refused at start.
#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    /// Nothing to sign in with.
    #[error("the admin password is empty")]
    Empty,
    /// No randomness for the salt.
    #[error("cannot make a salt for the admin password: {0}")]
    Random(String),
    /// argon2 refused (should not happen with its default parameters).
    #[error("cannot hash the admin password: {0}")]
    Hash(String),
}

impl Password {
    /// Hashes `password` with argon2id and a random salt. Surrounding
    /// whitespace (a password file's final newline) is not part of it.
    pub fn new(password: &str) -> Result<Self, PasswordError> {
        let password = password.trim();
        if password.is_empty() {
            return Err(PasswordError::Empty);
        }
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| PasswordError::Random(e.to_string()))?;
        let salt = SaltString::encode_b64(&salt).map_err(|e| PasswordError::Hash(e.to_string()))?;
        let hash = Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map_err(|e| PasswordError::Hash(e.to_string()))?;
        Ok(Self(hash.serialize()))
    }

    /// Whether `attempt` is the password (argon2's comparison is constant-time).
    pub fn matches(&self, attempt: &str) -> bool {
        Argon2::default()
            .verify_password(attempt.trim().as_bytes(), &self.0.password_hash())
            .is_ok()
    }
}

/// Signs and checks session cookies with a key made when the server starts
/// (so a restart signs everyone out).
pub struct Sessions {
    key: Key,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sessions(key redacted)")
    }
}

impl Sessions {
    /// A fresh signing key.
    pub fn new() -> Result<Self, PasswordError> {
        let mut bytes = [0u8; 64];
        getrandom::fill(&mut bytes).map_err(|e| PasswordError::Random(e.to_string()))?;
        Ok(Self {
            key: Key::from(&bytes),
        })
    }

    /// The `Set-Cookie` value that starts a session valid until `now + SESSION`.
    pub fn start(&self, now: DateTime<Utc>, secure: bool) -> String {
        let until = now.timestamp() + SESSION.as_secs() as i64;
        let mut jar = CookieJar::new();
        jar.signed_mut(&self.key)
            .add(Cookie::new(COOKIE, until.to_string()));
        let mut cookie = jar
            .delta()
            .next()
            .cloned()
            .unwrap_or_else(|| Cookie::new(COOKIE, ""));
        Self::flags(&mut cookie, secure);
        cookie.set_max_age(cookie::time::Duration::seconds(SESSION.as_secs() as i64));
        cookie.encoded().to_string()
    }

    /// The `Set-Cookie` value that ends a session.
    pub fn end(&self, secure: bool) -> String {
        let mut cookie = Cookie::new(COOKIE, "");
        Self::flags(&mut cookie, secure);
        cookie.set_max_age(cookie::time::Duration::ZERO);
        cookie.encoded().to_string()
    }

    fn flags(cookie: &mut Cookie<'static>, secure: bool) {
        cookie.set_path("/");
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Strict);
        cookie.set_secure(secure);
    }

    /// Whether the request's `Cookie` headers hold a valid, unexpired session.
    pub fn valid<'a>(
        &self,
        cookie_headers: impl Iterator<Item = &'a str>,
        now: DateTime<Utc>,
    ) -> bool {
        let mut jar = CookieJar::new();
        for header in cookie_headers {
            for cookie in Cookie::split_parse_encoded(header).flatten() {
                jar.add_original(cookie.into_owned());
            }
        }
        jar.signed(&self.key)
            .get(COOKIE)
            .and_then(|cookie| cookie.value().parse::<i64>().ok())
            .is_some_and(|until| until > now.timestamp())
    }
}

/// Counts sign-in attempts per client network.
#[derive(Debug, Default)]
pub struct Attempts(Mutex<HashMap<String, (Instant, u32)>>);

impl Attempts {
    /// Counts one attempt from `network`; `Err(wait)` if it is over the limit.
    pub fn allow(&self, network: &str, now: Instant) -> Result<(), Duration> {
        let mut seen = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.retain(|_, (since, _)| now.duration_since(*since) < ATTEMPT_WINDOW);
        let (since, count) = seen.entry(network.to_owned()).or_insert((now, 0));
        if *count >= MAX_ATTEMPTS {
            return Err(ATTEMPT_WINDOW.saturating_sub(now.duration_since(*since)));
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_matches_itself_only() {
        let password = Password::new("correct horse\n").expect("hashes");
        assert!(password.matches("correct horse"));
        assert!(!password.matches("correct horsf"));
        assert!(!password.matches(""));
        assert_eq!(format!("{password:?}"), "Password(redacted)");
        assert!(matches!(Password::new(" \n"), Err(PasswordError::Empty)));
    }

    #[test]
    fn a_session_cookie_is_signed_flagged_and_expires() {
        let sessions = Sessions::new().expect("a key");
        let now = Utc::now();
        let set = sessions.start(now, false);
        assert!(set.starts_with("whocomes_admin="), "{set}");
        for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
            assert!(set.contains(flag), "{flag} in {set}");
        }
        assert!(!set.contains("Secure"));
        assert!(sessions.start(now, true).contains("Secure"));
        let value = set.split(';').next().expect("name=value");
        assert!(sessions.valid(std::iter::once(value), now));
        assert!(sessions.valid(std::iter::once(format!("a=b; {value}").as_str()), now));
        assert!(!sessions.valid(std::iter::once(value), now + chrono::Duration::hours(13)));
        // Another key (another server, or a forged value) is refused.
        let other = Sessions::new().expect("a key");
        assert!(!other.valid(std::iter::once(value), now));
        let forged = format!("{COOKIE}=9999999999");
        assert!(!sessions.valid(std::iter::once(forged.as_str()), now));
        assert!(sessions.end(false).contains("Max-Age=0"));
    }

    #[test]
    fn attempts_are_limited_per_network_and_window() {
        let attempts = Attempts::default();
        let start = Instant::now();
        for _ in 0..MAX_ATTEMPTS {
            assert!(attempts.allow("203.0.113.x", start).is_ok());
        }
        assert!(
            attempts.allow("203.0.113.x", start).is_err(),
            "over the limit"
        );
        assert!(
            attempts.allow("198.51.100.x", start).is_ok(),
            "another network"
        );
        assert!(
            attempts
                .allow("203.0.113.x", start + ATTEMPT_WINDOW)
                .is_ok(),
            "a new window"
        );
    }
}

//! Who may read the visitor table: the admin password (argon2, hashed at
//! start, never logged), the sessions (a signed, HttpOnly, SameSite=Strict
//! cookie, Secure over TLS, naming a session the server keeps: signing out
//! ends it for every copy of the cookie), and the limits on sign-in
//! attempts: per client network, and a global budget of attempts being
//! checked, so that a flood from many networks waits its turn for one
//! argon2 check at a time instead of taking every core.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
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
/// The most client networks whose attempts are remembered; beyond it the
/// oldest are forgotten (the global budget still holds).
pub const MAX_NETWORKS: usize = 10_000;
/// The global budget: sign-in attempts being checked or waiting for their
/// turn, from all networks together. Beyond it an attempt is refused (429)
/// without running argon2.
pub const MAX_IN_PROGRESS: usize = 64;
/// How long an attempt waits for its turn before it is refused.
pub const MAX_WAIT: Duration = Duration::from_secs(10);
/// The most sessions kept at once (the oldest ends first).
pub const MAX_SESSIONS: usize = 1_000;

/// The admin password, kept only as an argon2 hash. Its `Debug` shows nothing.
#[derive(Clone)]
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

/// Starts, checks and ends sessions: a cookie signed with a key made when
/// the server starts (so a restart, as with a changed password, signs
/// everyone out), naming a session the server keeps until it expires or is
/// signed out.
pub struct Sessions {
    key: Key,
    /// Live sessions: id → the Unix second it ends.
    live: Mutex<SessionTable>,
}

#[derive(Default)]
struct SessionTable {
    ends: HashMap<String, i64>,
    /// Ids oldest first, to end the oldest when the table is full.
    order: VecDeque<String>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sessions(key redacted)")
    }
}

impl Sessions {
    /// A fresh signing key and no sessions.
    pub fn new() -> Result<Self, PasswordError> {
        let mut bytes = [0u8; 64];
        getrandom::fill(&mut bytes).map_err(|e| PasswordError::Random(e.to_string()))?;
        Ok(Self {
            key: Key::from(&bytes),
            live: Mutex::new(SessionTable::default()),
        })
    }

    fn table(&self) -> std::sync::MutexGuard<'_, SessionTable> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The `Set-Cookie` value that starts a session valid until `now + SESSION`.
    pub fn start(&self, now: DateTime<Utc>, secure: bool) -> Result<String, PasswordError> {
        let until = now.timestamp() + SESSION.as_secs() as i64;
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).map_err(|e| PasswordError::Random(e.to_string()))?;
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        {
            let mut table = self.table();
            let table = &mut *table;
            table.ends.retain(|_, ends| *ends > now.timestamp());
            table.order.retain(|id| table.ends.contains_key(id));
            while table.ends.len() >= MAX_SESSIONS {
                match table.order.pop_front() {
                    Some(oldest) => table.ends.remove(&oldest),
                    None => break,
                };
            }
            table.ends.insert(id.clone(), until);
            table.order.push_back(id.clone());
        }
        let mut jar = CookieJar::new();
        jar.signed_mut(&self.key)
            .add(Cookie::new(COOKIE, format!("{id}.{until}")));
        let mut cookie = jar
            .delta()
            .next()
            .cloned()
            .unwrap_or_else(|| Cookie::new(COOKIE, ""));
        Self::flags(&mut cookie, secure);
        cookie.set_max_age(cookie::time::Duration::seconds(SESSION.as_secs() as i64));
        Ok(cookie.encoded().to_string())
    }

    /// Ends the session the request's cookie names (every copy of it stops
    /// working), and returns the `Set-Cookie` value that clears it.
    pub fn end<'a>(&self, cookie_headers: impl Iterator<Item = &'a str>, secure: bool) -> String {
        if let Some((id, _)) = self.session_of(cookie_headers) {
            let mut table = self.table();
            table.ends.remove(&id);
            table.order.retain(|kept| *kept != id);
        }
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

    /// The session id and end a signed cookie names, if any.
    fn session_of<'a>(
        &self,
        cookie_headers: impl Iterator<Item = &'a str>,
    ) -> Option<(String, i64)> {
        let mut jar = CookieJar::new();
        for header in cookie_headers {
            for cookie in Cookie::split_parse_encoded(header).flatten() {
                jar.add_original(cookie.into_owned());
            }
        }
        let cookie = jar.signed(&self.key).get(COOKIE)?;
        let (id, until) = cookie.value().split_once('.')?;
        Some((id.to_owned(), until.parse().ok()?))
    }

    /// Whether the request's `Cookie` headers name a live, unexpired session.
    pub fn valid<'a>(
        &self,
        cookie_headers: impl Iterator<Item = &'a str>,
        now: DateTime<Utc>,
    ) -> bool {
        self.session_of(cookie_headers).is_some_and(|(id, until)| {
            until > now.timestamp() && self.table().ends.get(&id) == Some(&until)
        })
    }
}

/// Counts sign-in attempts per client network, remembering at most
/// [`MAX_NETWORKS`] networks (the oldest are forgotten first).
#[derive(Debug, Default)]
pub struct Attempts(Mutex<AttemptTable>);

#[derive(Debug, Default)]
struct AttemptTable {
    seen: HashMap<String, (Instant, u32)>,
    /// Networks in the order their windows began.
    order: VecDeque<(String, Instant)>,
}

impl Attempts {
    /// Counts one attempt from `network`; `Err(wait)` if it is over the limit.
    pub fn allow(&self, network: &str, now: Instant) -> Result<(), Duration> {
        let mut table = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let table = &mut *table;
        // Forget windows that have passed, and the oldest beyond the bound.
        while let Some((oldest, since)) = table.order.front() {
            let expired = now.duration_since(*since) >= ATTEMPT_WINDOW;
            if !expired && table.seen.len() < MAX_NETWORKS {
                break;
            }
            if table
                .seen
                .get(oldest)
                .is_some_and(|(kept, _)| kept == since)
            {
                table.seen.remove(oldest);
            }
            table.order.pop_front();
        }
        let (since, count) = table.seen.entry(network.to_owned()).or_insert_with(|| {
            table.order.push_back((network.to_owned(), now));
            (now, 0)
        });
        if *count >= MAX_ATTEMPTS {
            return Err(ATTEMPT_WINDOW.saturating_sub(now.duration_since(*since)));
        }
        *count += 1;
        Ok(())
    }

    /// How many networks are remembered.
    pub fn networks(&self) -> usize {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .seen
            .len()
    }
}

/// The global budget: at most [`MAX_IN_PROGRESS`] attempts admitted at
/// once, checked one at a time (first come, first checked).
#[derive(Debug)]
pub struct Checker {
    admitted: AtomicUsize,
    turn: std::sync::Arc<tokio::sync::Semaphore>,
}

impl Default for Checker {
    fn default() -> Self {
        Self {
            admitted: AtomicUsize::new(0),
            turn: std::sync::Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }
}

/// An admitted attempt; dropping it frees its place in the budget.
#[derive(Debug)]
pub struct Admitted<'a>(&'a Checker);

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.admitted.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Checker {
    /// A place in the budget, or `None` when it is spent.
    pub fn admit(&self) -> Option<Admitted<'_>> {
        let before = self.admitted.fetch_add(1, Ordering::AcqRel);
        let admitted = Admitted(self);
        (before < MAX_IN_PROGRESS).then_some(admitted)
    }

    /// Checks `attempt` against `password` on the blocking pool when its
    /// turn comes; `None` if the turn did not come within [`MAX_WAIT`].
    pub async fn check(
        &self,
        _admitted: &Admitted<'_>,
        password: &Password,
        attempt: &str,
    ) -> Option<bool> {
        let turn = tokio::time::timeout(MAX_WAIT, self.turn.clone().acquire_owned())
            .await
            .ok()?
            .ok()?;
        let password = password.clone();
        let attempt = attempt.to_owned();
        // The turn goes with the check: if the client goes away meanwhile,
        // the next check still waits until this one has finished.
        let matched = tokio::task::spawn_blocking(move || {
            let matched = password.matches(&attempt);
            drop(turn);
            matched
        })
        .await
        .unwrap_or(false);
        Some(matched)
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
        let set = sessions.start(now, false).expect("started");
        assert!(set.starts_with("whocomes_admin="), "{set}");
        for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
            assert!(set.contains(flag), "{flag} in {set}");
        }
        assert!(!set.contains("Secure"));
        assert!(
            sessions
                .start(now, true)
                .expect("started")
                .contains("Secure")
        );
        let value = set.split(';').next().expect("name=value");
        assert!(sessions.valid(std::iter::once(value), now));
        assert!(sessions.valid(std::iter::once(format!("a=b; {value}").as_str()), now));
        assert!(!sessions.valid(std::iter::once(value), now + chrono::Duration::hours(13)));
        // Another key (another server, or a forged value) is refused.
        let other = Sessions::new().expect("a key");
        assert!(!other.valid(std::iter::once(value), now));
        let forged = format!("{COOKIE}=9999999999");
        assert!(!sessions.valid(std::iter::once(forged.as_str()), now));
        // Signing out ends the session for every copy of the cookie.
        let ended = sessions.end(std::iter::once(value), false);
        assert!(ended.contains("Max-Age=0"));
        assert!(
            !sessions.valid(std::iter::once(value), now),
            "a copy is dead"
        );
        let other_session = sessions.start(now, false).expect("started");
        let other_value = other_session.split(';').next().expect("name=value");
        assert!(
            sessions.valid(std::iter::once(other_value), now),
            "others live on"
        );
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

    #[test]
    fn attempts_remember_a_bounded_number_of_networks() {
        let attempts = Attempts::default();
        let start = Instant::now();
        for n in 0..MAX_NETWORKS + 500 {
            assert!(attempts.allow(&format!("net-{n}"), start).is_ok());
        }
        assert!(attempts.networks() <= MAX_NETWORKS);
    }

    #[tokio::test]
    async fn the_global_budget_refuses_beyond_its_places() {
        let checker = Checker::default();
        let places: Vec<_> = (0..MAX_IN_PROGRESS).map(|_| checker.admit()).collect();
        assert!(places.iter().all(Option::is_some));
        assert!(checker.admit().is_none(), "the budget is spent");
        drop(places);
        let admitted = checker.admit().expect("places are free again");
        let password = Password::new("right").expect("hashes");
        assert_eq!(
            checker.check(&admitted, &password, "right").await,
            Some(true)
        );
        assert_eq!(
            checker.check(&admitted, &password, "wrong").await,
            Some(false)
        );
    }
}

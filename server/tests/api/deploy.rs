//! docs/DEPLOY.md's *tested* blocks, run for real: its systemd unit checked
//! by `systemd-analyze verify`, and its nginx configuration in front of the
//! binary (Debian's nginx on loopback ports, a self-signed certificate made
//! by `openssl`, clients on distinct loopback addresses through `curl
//! --interface`); and `compress-site`, which a release installed where the
//! server cannot write relies on. The binary is the one `WHOCOMES_BIN`
//! names (scripts/test gives the release's, which must then serve its own
//! compressed site), else this build's. Also its backup commands, run
//! against a filled store and read back from the copy. Without a tool
//! (nginx, openssl, curl, systemd-analyze, sqlite3, pg_dump) a test says so
//! and skips, except under CI (`CI=true`), where a missing tool is a failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use activity::store::ActivityStore as _;

use crate::signals::{binary, sigterm_and_wait, start_binary_logged};

const DEPLOY: &str = include_str!("../../../docs/DEPLOY.md");
const PASSWORD: &str = "a deploy test passphrase";
const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                       Chrome/131.0.0.0 Safari/537.36";

/// The fenced block after `<!-- tested: NAME -->` in docs/DEPLOY.md.
pub(crate) fn tested_block(name: &str) -> String {
    let marker = format!("<!-- tested: {name} -->");
    let after = DEPLOY
        .split_once(&marker)
        .unwrap_or_else(|| panic!("docs/DEPLOY.md has no {marker}"))
        .1;
    let fence = after.find("```").expect("a fenced block after the marker");
    let body = &after[fence..];
    let start = body.find('\n').expect("the fence's line ends") + 1;
    let end = body[start..].find("```").expect("the block is closed");
    body[start..start + end].to_owned()
}

/// `program` if this machine has it; `None` (and a line saying why) if it
/// does not and this is not CI; a failure under CI.
pub(crate) fn tool(program: &str) -> Option<PathBuf> {
    let found = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        .iter()
        .map(|folder| Path::new(folder).join(program))
        .find(|path| path.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{program} is missing under CI: scripts/bootstrap installs it"
        );
        eprintln!("SKIPPED: {program} is not installed (scripts/bootstrap installs it)");
    }
    found
}

/// `text` with `from` replaced by `to`; a failure if `from` is not there
/// (docs/DEPLOY.md changed in a way this test must follow).
pub(crate) fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "docs/DEPLOY.md's block has no {from:?}"
    );
    text.replace(from, to)
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// docs/DEPLOY.md's unit in block `block`, saved as `file` with this
/// build's binary in place of `/opt/whocomes/whocomes`, passes `systemd-analyze
/// verify` without a word of warning.
pub(crate) fn the_unit_verifies(block: &str, file: &str) {
    let Some(analyze) = tool("systemd-analyze") else {
        return;
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let unit = folder.path().join(file);
    let text = replaced(
        &tested_block(block),
        "ExecStart=/opt/whocomes/whocomes ",
        &format!("ExecStart={} ", binary().display()),
    );
    std::fs::write(&unit, text).expect("writes the unit");
    let output = Command::new(analyze)
        .arg("verify")
        .arg(&unit)
        .output()
        .expect("systemd-analyze runs");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "systemd-analyze verify: {said}");
    assert!(said.trim().is_empty(), "no warning either: {said}");
}

#[test]
fn the_systemd_unit_verifies() {
    the_unit_verifies("systemd", "whocomes.service");
}

/// nginx started from docs/DEPLOY.md's block, on two loopback ports, in
/// front of `upstream`; stopped when dropped.
struct Nginx {
    child: Child,
    https: u16,
    http: u16,
    _folder: tempfile::TempDir,
}

impl Nginx {
    fn start(nginx: &Path, openssl: &Path, upstream: &str) -> Self {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let dir = folder.path().to_owned();
        let dir = dir.as_path();
        let (cert, key) = self_signed(openssl, dir);
        let (https, http) = (free_port(), free_port());
        let mut site = tested_block("nginx");
        for (from, to) in [
            ("listen 443 ssl;", format!("listen 127.0.0.1:{https} ssl;")),
            ("listen 80;", format!("listen 127.0.0.1:{http};")),
            ("/etc/letsencrypt/live/example.org/fullchain.pem", cert),
            ("/etc/letsencrypt/live/example.org/privkey.pem", key),
            (
                "proxy_pass http://127.0.0.1:3000;",
                format!("proxy_pass {upstream};"),
            ),
        ] {
            site = replaced(&site, from, &to);
        }
        let child = run_nginx(nginx, dir, &format!(" access_log off;\n{site}"), https);
        Self {
            child,
            https,
            http,
            _folder: folder,
        }
    }
}

/// A self-signed certificate for example.org in `dir`: its and its key's paths.
pub(crate) fn self_signed(openssl: &Path, dir: &Path) -> (String, String) {
    let made = Command::new(openssl)
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=example.org", "-keyout"])
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("cert.pem"))
        .stderr(Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(made.success(), "a self-signed certificate");
    (
        dir.join("cert.pem").display().to_string(),
        dir.join("key.pem").display().to_string(),
    )
}

/// nginx in the foreground with its files in `dir` and `http` as its `http`
/// block's body, once it listens on `port`.
pub(crate) fn run_nginx(nginx: &Path, dir: &Path, http: &str, port: u16) -> Child {
    let d = dir.display();
    let config = format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{}}\nhttp {{\n client_body_temp_path {d}/body;\n \
         proxy_temp_path {d}/proxy;\n fastcgi_temp_path {d}/fastcgi;\n \
         uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n{http}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), config).expect("writes the configuration");
    let child = Command::new(nginx)
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nginx starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx listens within 10 s: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request through nginx by `curl`, from the loopback address `from`:
/// the status code, then the response's headers.
fn curl(from: &str, url: &str, extra: &[&str]) -> (u16, String) {
    let output = Command::new("curl")
        .args([
            "-sk",
            "--max-time",
            "10",
            "--interface",
            from,
            "-A",
            BROWSER,
        ])
        .args(["-D", "-", "-o", "/dev/null", "-w", "\n%{http_code}"])
        .args(extra)
        .arg(url)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let (headers, code) = text.rsplit_once('\n').expect("curl wrote the status");
    (
        code.trim()
            .parse()
            .unwrap_or_else(|_| panic!("a status from {url}: {text}")),
        headers.to_ascii_lowercase(),
    )
}

#[tokio::test]
async fn behind_nginx_each_client_is_its_own_visitor_and_the_cookie_is_secure() {
    let (Some(nginx), Some(openssl), Some(_)) = (tool("nginx"), tool("openssl"), tool("curl"))
    else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary folder");
    let (mut server, upstream, log) = start_binary_logged(
        data.path(),
        &[
            ("WHOCOMES_TRUSTED_PROXY", "127.0.0.1"),
            // The test's clients are on loopback (docs/DEPLOY.md says why).
            ("WHOCOMES_OWN_ADDRESS", "none"),
            ("WHOCOMES_ADMIN_PASSWORD", PASSWORD),
        ],
    );
    let proxy = Nginx::start(&nginx, &openssl, &upstream);
    let https = format!("https://127.0.0.1:{}", proxy.https);

    // Three clients, each its own number of page loads.
    for (client, loads) in [("127.0.0.2", 2), ("127.0.0.3", 1), ("127.0.0.4", 3)] {
        for _ in 0..loads {
            let (status, _) = curl(client, &format!("{https}/about"), &[]);
            assert_eq!(status, 200, "{client} through nginx");
        }
    }
    // A release serves its own site's files, compressed as a browser asks.
    if std::env::var_os("WHOCOMES_BIN").is_some() {
        let (status, headers) = curl(
            "127.0.0.2",
            &format!("{https}/pkg/whocomes.wasm"),
            &["-H", "Accept-Encoding: br"],
        );
        assert_eq!(status, 200, "{headers}");
        assert!(headers.contains("content-encoding: br"), "{headers}");
    }
    // A client that names another address is counted by its own.
    let spoofed = ["-H", "X-Forwarded-For: 203.0.113.9"];
    for _ in 0..4 {
        let (status, _) = curl("127.0.0.5", &format!("{https}/about"), &spoofed);
        assert_eq!(status, 200);
    }
    // Plain http is sent to https, and whocomes never sees it.
    let (status, headers) = curl(
        "127.0.0.2",
        &format!("http://127.0.0.1:{}/about", proxy.http),
        &[],
    );
    assert_eq!(status, 301, "{headers}");
    assert!(headers.contains("location: https://"), "{headers}");
    // Signing in over https through nginx: the cookie is Secure.
    let sign_in = ["-d", &format!("password={PASSWORD}")];
    let (status, headers) = curl("127.0.0.6", &format!("{https}/admin/api/sign-in"), &sign_in);
    assert_eq!(status, 200, "{headers}");
    let cookie = headers
        .lines()
        .find(|line| line.starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("a session cookie: {headers}"));
    assert!(cookie.contains("; secure"), "{cookie}");

    drop(proxy);
    sigterm_and_wait(&mut server);
    let (_, visitors) = crate::helpers::read_folder(data.path()).await;
    let mut loads: Vec<u64> = visitors
        .iter()
        .filter(|row| row.top_paths.iter().any(|path| path.path == "/about"))
        .inspect(|row| {
            assert_eq!(row.network.as_str(), "127.0.0.x", "by nginx's address");
            assert_eq!((row.bots, row.self_reads), (0, 0), "counted as a person");
        })
        .map(|row| row.requests)
        .collect();
    loads.sort_unstable();
    assert_eq!(
        loads,
        [1, 2, 3, 4],
        "four visitors, each counted once per load; log:\n{}",
        log.lock().map(|log| log.clone()).unwrap_or_default()
    );
    assert!(
        visitors
            .iter()
            .all(|row| !row.network.as_str().starts_with("203.0.113")),
        "the client's own X-Forwarded-For is not believed"
    );
}

#[test]
fn compress_site_makes_the_copies_a_read_only_install_needs() {
    let site = tempfile::tempdir().expect("a temporary folder");
    let pkg = site.path().join("pkg");
    std::fs::create_dir(&pkg).expect("makes pkg/");
    std::fs::write(
        pkg.join("whocomes.css"),
        "body { color: #123456; }\n".repeat(200),
    )
    .expect("writes a stylesheet");
    let run = || {
        Command::new(binary())
            .arg("compress-site")
            .arg(site.path())
            .output()
            .expect("the binary runs")
    };
    let first = run();
    assert!(first.status.success(), "{first:?}");
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(said.starts_with("1 files compressed"), "{said}");
    assert!(pkg.join("whocomes.css.br").is_file() && pkg.join("whocomes.css.gz").is_file());
    let again = String::from_utf8_lossy(&run().stdout).into_owned();
    assert!(again.contains("1 already current"), "{again}");

    let missing = Command::new(binary())
        .args(["compress-site", "/nonexistent/site"])
        .output()
        .expect("the binary runs");
    assert!(!missing.status.success());
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(
        error.contains("/nonexistent/site/pkg"),
        "names the folder: {error}"
    );
}

/// Runs docs/DEPLOY.md's block `name` in `sh`, with `replace` applied and
/// `env` set; panics with what it said if it fails.
fn run_block(name: &str, replace: &[(&str, &str)], env: &[(&str, &str)]) {
    let mut script = tested_block(name);
    for (from, to) in replace {
        script = replaced(&script, from, to);
    }
    let output = Command::new("sh")
        .args(["-euc", &script])
        .envs(env.iter().copied())
        .output()
        .expect("sh runs");
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The one file `folder` holds.
fn only_file(folder: &Path) -> PathBuf {
    let files: Vec<_> = std::fs::read_dir(folder)
        .expect("reads the folder")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    assert_eq!(files.len(), 1, "one backup: {files:?}");
    files[0].clone()
}

#[tokio::test]
async fn a_sqlite_backup_made_while_serving_keeps_every_count() {
    let Some(_) = tool("sqlite3") else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary folder");
    let backups = tempfile::tempdir().expect("a temporary folder");
    let live = data.path().join("activity.db");
    let store = activity_sqlite::SqliteStore::open(
        live.to_str().expect("UTF-8"),
        activity::StoreName::parse("sqlite").expect("a name"),
        activity::store::Retention::default(),
    )
    .await
    .expect("opens");
    let now = chrono::Utc::now();
    let written = activity::holdings::fill(&store, now).await;
    // The store stays open, its writes still in the write-ahead log.
    assert!(data.path().join("activity.db-wal").exists());
    let backups_path = backups.path().join("whocomes");
    run_block(
        "sqlite-backup",
        &[
            (
                "/var/backups/whocomes",
                backups_path.to_str().expect("UTF-8"),
            ),
            (
                "/var/lib/whocomes/activity.db",
                live.to_str().expect("UTF-8"),
            ),
        ],
        &[],
    );
    store.close().await;

    let copy = only_file(&backups_path);
    let restored = activity_sqlite::SqliteStore::open(
        copy.to_str().expect("UTF-8"),
        activity::StoreName::parse("sqlite").expect("a name"),
        activity::store::Retention::default(),
    )
    .await
    .expect("the copy opens");
    assert_eq!(activity::holdings::read(&restored, now).await, written);
    restored.close().await;
}

#[tokio::test]
async fn a_postgres_backup_restores_with_every_count() {
    let (Some(_), Some(_)) = (tool("pg_dump"), tool("pg_restore")) else {
        return;
    };
    let Some(url) = activity_postgres::testing::fresh_database().await else {
        eprintln!("SKIPPED: TEST_DATABASE_URL is not set");
        return;
    };
    let name = activity::StoreName::parse("postgres").expect("a name");
    let retention = activity::store::Retention::default();
    let store = activity_postgres::PostgresStore::open(&url, name.clone(), retention)
        .await
        .expect("connects");
    let now = chrono::Utc::now();
    let written = activity::holdings::fill(&store, now).await;
    let backups = tempfile::tempdir().expect("a temporary folder");
    run_block(
        "postgres-backup",
        &[(
            "/var/backups/whocomes",
            backups.path().to_str().expect("UTF-8"),
        )],
        &[("WHOCOMES_STORE_URL", &url)],
    );
    store.close().await;

    let backup = only_file(backups.path());
    let restored_url = activity_postgres::testing::fresh_database()
        .await
        .expect("a second database");
    run_block(
        "postgres-restore",
        &[],
        &[
            ("RESTORE_URL", &restored_url),
            ("BACKUP", backup.to_str().expect("UTF-8")),
        ],
    );
    let restored = activity_postgres::PostgresStore::open(&restored_url, name, retention)
        .await
        .expect("the copy opens");
    assert_eq!(activity::holdings::read(&restored, now).await, written);
    restored.close().await;
}

//! docs/DEPLOY.md's `whocomes` log format (section 7), run for real: Debian's
//! nginx serves a static site over HTTPS (a self-signed certificate) and
//! writes its access log in exactly the documented format; after each of
//! three real clients, `whocomes import` reads that log into a fresh store
//! (the format found by itself) and the client's visitor-day is judged as
//! the live server would: Chromium in a window is a person, `wget -p` and
//! curl wearing Chrome's agent are not (no client hints, no fetch metadata
//! to an HTTPS origin). The plain combined format cannot tell them apart.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use activity::evidence::Evidence;
use activity::verdict::VisitorKind;

use crate::deploy::{free_port, replaced, run_nginx, self_signed, tested_block};
use crate::real_clients::{
    CHROME_131, CHROMIUM_QUIET, one_kind, profile, spawned, stop_group, tools, verdicts_in,
    wait_or_kill, windowed,
};
use crate::signals::binary;

const LOG: &str = "/var/log/nginx/access.log";

/// The verdicts of the visitor-days in `log`, imported into a fresh store.
fn imported(log: &Path) -> Vec<(VisitorKind, Evidence)> {
    let data = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(binary())
        .args(["import", "--quiet"])
        .arg(log)
        .env("WHOCOMES_DATA_DIR", data.path())
        // The clients are on loopback: count them as visitors.
        .env("WHOCOMES_OWN_ADDRESS", "none")
        .output()
        .expect("the import runs");
    assert!(
        output.status.success(),
        "the import: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    verdicts_in(data.path())
}

#[test]
fn the_whocomes_log_format_tells_a_browser_from_tools_wearing_its_agent() {
    let Some(found) = tools(&["nginx", "openssl", "xvfb-run", "chromium", "wget", "curl"]) else {
        return;
    };
    let [nginx, openssl, xvfb, chromium, wget, curl] = &found[..] else {
        unreachable!("six tools");
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let dir = folder.path();
    let (cert, key) = self_signed(openssl, dir);
    let site = dir.join("site");
    std::fs::create_dir(&site).expect("the site's folder");
    std::fs::write(
        site.join("index.html"),
        "<!doctype html><html><head><title>A static site</title>\
         <link rel=\"stylesheet\" href=\"/site.css\"><link rel=\"icon\" href=\"data:,\">\
         </head><body><p>Read me.</p></body></html>",
    )
    .expect("the page");
    std::fs::write(site.join("site.css"), "p { color: #333; }").expect("the stylesheet");
    let log = dir.join("access.log");
    let format = replaced(&tested_block("nginx-log"), LOG, &log.display().to_string());
    let port = free_port();
    let http = format!(
        "types {{ text/html html; text/css css; }}\n{format}\n\
         server {{\n listen 127.0.0.1:{port} ssl;\n ssl_certificate {cert};\n \
         ssl_certificate_key {key};\n root {};\n}}",
        site.display()
    );
    let mut server = run_nginx(nginx, dir, &http, port);
    let page = format!("https://127.0.0.1:{port}/");

    // Chromium in a window, as a person opens it (the test's certificate
    // accepted), until nginx has logged its stylesheet.
    std::fs::write(&log, "").expect("an empty log");
    let browser_profile = profile();
    let data_dir = format!("--user-data-dir={}", browser_profile.path().display());
    let mut args = CHROMIUM_QUIET.to_vec();
    args.extend(["--ignore-certificate-errors", &data_dir]);
    let mut browser = spawned(&mut windowed(xvfb, chromium, &args, &page), "Chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    while !std::fs::read_to_string(&log).is_ok_and(|text| text.contains("/site.css")) {
        assert!(
            Instant::now() < deadline,
            "Chromium's stylesheet request was not logged within 90 s"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    stop_group(&mut browser);
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        logged.contains("\"https\"") && logged.contains("Chromium"),
        "the line carries the scheme and the hints: {logged}"
    );
    one_kind(
        "Chromium in a window, from the log",
        &imported(&log),
        VisitorKind::Person,
    );

    // The tools, each on a log of its own.
    let into = profile();
    let runs: [(&str, Command); 2] = [
        ("wget -p with Chrome 131's agent", {
            let mut command = Command::new(wget);
            command.args(["-q", "-p", "--no-check-certificate", "-U", CHROME_131, "-P"]);
            command.arg(into.path()).arg(&page);
            command
        }),
        ("curl with Chrome 131's agent", {
            let mut command = Command::new(curl);
            command.args(["-sk", "-o", "/dev/null", "-A", CHROME_131, &page]);
            command
        }),
    ];
    for (name, mut command) in runs {
        std::fs::write(&log, "").expect("an empty log");
        let mut child = spawned(&mut command, name);
        assert!(
            wait_or_kill(&mut child, Duration::from_secs(60)).is_some(),
            "{name} finishes"
        );
        one_kind(
            &format!("{name}, from the log"),
            &imported(&log),
            VisitorKind::Bot,
        );
    }
    let _ = server.kill();
    let _ = server.wait();
}

//! Real clients, no one here wrote, against the real binary (SPEC §3): each
//! one its own visitor on a fresh server of its own, on loopback (a
//! trustworthy origin: browsers send their client hints and fetch metadata
//! to it). A browser as a person runs it — Firefox ESR and Chromium, each
//! in a window on a virtual screen (Xvfb), no agent put on — is people;
//! the tools (curl, wget, python-requests, Node's fetch, headless
//! Chromium) are not, under their own agents or wearing a browser's.
//!
//! Each client runs until it is done (the tools) or until the server has
//! seen its page's files (the windowed browsers, at most
//! [`BROWSER_WAIT`]); the server then stops (writing everything), and the
//! visitor-day's verdict is read from its SQLite file.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use activity::evidence::Evidence;
use activity::rows::VisitorDay;
use activity::verdict::VisitorKind;

use crate::deploy::tool;
use crate::signals::{sigterm_and_wait, start_binary_logged};

/// Chrome 131's agent on Linux, as the disguised tools wear it.
pub(crate) const CHROME_131: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
/// How long a windowed browser may take to start and load the page (a cold
/// start on a slow machine takes seconds).
const BROWSER_WAIT: Duration = Duration::from_secs(90);
/// How long a tool may take to fetch a page.
const TOOL_WAIT: Duration = Duration::from_secs(60);

/// Chromium's flags that keep it off the closed network (it otherwise
/// tries Google's hosts at start); none of them changes what it sends.
pub(crate) const CHROMIUM_QUIET: [&str; 6] = [
    "--no-sandbox",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store=basic",
];

/// How a client is run.
enum Run {
    /// Runs to its end by itself.
    Tool(Command),
    /// Runs until the server has seen its page's files, then is stopped.
    Browser(Command),
}

/// A fresh server, `client` against it, and the verdicts of the visitor-days
/// it left (the server's own checks aside).
fn verdicts_of(name: &str, client: impl FnOnce(&str) -> Run) -> Vec<(VisitorKind, Evidence)> {
    let data = tempfile::tempdir().expect("a temporary folder");
    let (mut server, url, log) = start_binary_logged(
        data.path(),
        &[
            // The clients are on loopback: count them as visitors.
            ("WHOCOMES_OWN_ADDRESS", "none"),
            ("WHOCOMES_FLUSH_MS", "100"),
        ],
    );
    let page = format!("{url}/about");
    match client(&page) {
        Run::Tool(mut command) => {
            let mut child = spawned(&mut command, name);
            let status = wait_or_kill(&mut child, TOOL_WAIT);
            assert!(
                status.is_some(),
                "{name} did not finish within {TOOL_WAIT:?}"
            );
        }
        Run::Browser(mut command) => {
            let mut child = spawned(&mut command, name);
            let deadline = Instant::now() + BROWSER_WAIT;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            while !runtime.block_on(saw_files(data.path())) {
                assert!(
                    Instant::now() < deadline,
                    "{name}: no file of the page reached the server within {BROWSER_WAIT:?}; log:\n{}",
                    log.lock().map(|log| log.clone()).unwrap_or_default()
                );
                std::thread::sleep(Duration::from_millis(250));
            }
            // The page's own calls after its files.
            std::thread::sleep(Duration::from_secs(2));
            stop_group(&mut child);
        }
    }
    sigterm_and_wait(&mut server);
    verdicts_in(data.path())
}

/// The verdict and evidence of every visitor-day in the data folder `data`.
pub(crate) fn verdicts_in(data: &Path) -> Vec<(VisitorKind, Evidence)> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (_, visitors) = runtime.block_on(crate::helpers::read_folder(data));
    visitors
        .iter()
        .map(|day| (day.counts().verdict().kind, day.evidence))
        .collect()
}

/// Whether the server has written a visitor-day marked by a page's file.
async fn saw_files(data: &Path) -> bool {
    if !data.join("activity.db").exists() {
        return false;
    }
    let (_, visitors): (_, Vec<VisitorDay>) = crate::helpers::read_folder(data).await;
    visitors
        .iter()
        .any(|day| day.evidence.has(Evidence::FILES) && day.requests > 0)
}

pub(crate) fn spawned(command: &mut Command, name: &str) -> Child {
    use std::os::unix::process::CommandExt as _;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: stopping it stops what it started (Xvfb,
        // a browser's helpers).
        .process_group(0)
        .spawn()
        .unwrap_or_else(|error| panic!("{name} starts: {error}"))
}

pub(crate) fn wait_or_kill(child: &mut Child, most: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + most;
    loop {
        if let Some(status) = child.try_wait().expect("wait works") {
            return Some(status);
        }
        if Instant::now() > deadline {
            stop_group(child);
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Stops a client and everything it started.
pub(crate) fn stop_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    for signal in ["-TERM", "-KILL"] {
        let _ = Command::new("kill").args([signal, "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A windowed browser on a virtual screen of its own.
pub(crate) fn windowed(xvfb: &Path, browser: &Path, args: &[&str], page: &str) -> Command {
    let mut command = Command::new(xvfb);
    command
        .args(["-a", "-s", "-screen 0 1280x800x24"])
        .arg(browser)
        .args(args)
        .arg(page);
    command
}

pub(crate) fn one_kind(name: &str, verdicts: &[(VisitorKind, Evidence)], kind: VisitorKind) {
    println!("{name}: {verdicts:?}");
    assert!(!verdicts.is_empty(), "{name} left no visitor-day");
    assert!(
        verdicts.iter().all(|(found, _)| *found == kind),
        "{name} should be {kind:?}: {verdicts:?}"
    );
}

pub(crate) fn profile() -> tempfile::TempDir {
    tempfile::tempdir().expect("a profile folder")
}

/// The tools this test drives, or `None` (skipped, or a failure under CI).
pub(crate) fn tools(names: &[&str]) -> Option<Vec<PathBuf>> {
    names.iter().map(|name| tool(name)).collect()
}

#[test]
fn firefox_esr_in_a_window_is_people() {
    let Some(found) = tools(&["xvfb-run", "firefox-esr"]) else {
        return;
    };
    let folder = profile();
    // No welcome pages nor reports to the closed network.
    std::fs::write(
        folder.path().join("user.js"),
        "user_pref(\"browser.shell.checkDefaultBrowser\", false);\n\
         user_pref(\"datareporting.policy.dataSubmissionEnabled\", false);\n\
         user_pref(\"browser.aboutwelcome.enabled\", false);\n\
         user_pref(\"browser.startup.homepage_override.mstone\", \"ignore\");\n",
    )
    .expect("writes the profile's settings");
    let profile_path = folder.path().display().to_string();
    let verdicts = verdicts_of("Firefox ESR", |page| {
        Run::Browser(windowed(
            &found[0],
            &found[1],
            &["--no-remote", "--new-instance", "--profile", &profile_path],
            page,
        ))
    });
    one_kind("Firefox ESR", &verdicts, VisitorKind::Person);
}

#[test]
fn chromium_in_a_window_is_people() {
    let Some(found) = tools(&["xvfb-run", "chromium"]) else {
        return;
    };
    let folder = profile();
    let data_dir = format!("--user-data-dir={}", folder.path().display());
    let mut args = CHROMIUM_QUIET.to_vec();
    args.push(&data_dir);
    let verdicts = verdicts_of("Chromium in a window", |page| {
        Run::Browser(windowed(&found[0], &found[1], &args, page))
    });
    one_kind("Chromium in a window", &verdicts, VisitorKind::Person);
}

/// How a tool is made to fetch a page.
type ToolRun<'a> = Box<dyn Fn(&str) -> Command + 'a>;

/// Headless Chromium loads the page and its files, then prints it and ends.
fn headless(chromium: &Path, folder: &Path, agent: Option<&str>, page: &str) -> Command {
    let mut command = Command::new(chromium);
    command
        .args(["--headless", "--disable-gpu", "--dump-dom"])
        .args(CHROMIUM_QUIET)
        .arg(format!("--user-data-dir={}", folder.display()));
    if let Some(agent) = agent {
        command.arg(format!("--user-agent={agent}"));
    }
    command.arg(page);
    command
}

#[test]
fn headless_chromium_is_a_bot_under_its_own_agent_and_under_chromes() {
    let Some(found) = tools(&["chromium"]) else {
        return;
    };
    for (name, agent) in [
        ("headless Chromium", None),
        (
            "headless Chromium with Chrome 131's agent",
            Some(CHROME_131),
        ),
    ] {
        let folder = profile();
        let verdicts = verdicts_of(name, |page| {
            Run::Tool(headless(&found[0], folder.path(), agent, page))
        });
        one_kind(name, &verdicts, VisitorKind::Bot);
        if agent.is_some() {
            // It fetched the page's files: only its own hints gave it away.
            assert!(
                verdicts
                    .iter()
                    .all(|(_, evidence)| evidence.has(Evidence::CONTRADICTED)),
                "{name}: {verdicts:?}"
            );
        }
    }
}

#[test]
fn wget_and_curl_are_bots_under_their_own_agents_and_under_chromes() {
    let Some(found) = tools(&["wget", "curl"]) else {
        return;
    };
    let (wget, curl) = (&found[0], &found[1]);
    let folder = profile();
    let into = folder.path().display().to_string();
    let runs: [(&str, ToolRun<'_>); 4] = [
        (
            "wget -p",
            Box::new(|page: &str| {
                let mut command = Command::new(wget);
                command.args(["-q", "-p", "-P", &into, page]);
                command
            }),
        ),
        (
            "wget -p with Chrome 131's agent",
            Box::new(|page: &str| {
                let mut command = Command::new(wget);
                command.args(["-q", "-p", "-P", &into, "-U", CHROME_131, page]);
                command
            }),
        ),
        (
            "curl",
            Box::new(|page: &str| {
                let mut command = Command::new(curl);
                command.args(["-s", "-o", "/dev/null", page]);
                command
            }),
        ),
        (
            "curl with Chrome 131's agent",
            Box::new(|page: &str| {
                let mut command = Command::new(curl);
                command.args(["-s", "-o", "/dev/null", "-A", CHROME_131, page]);
                command
            }),
        ),
    ];
    for (name, command) in runs {
        let verdicts = verdicts_of(name, |page| Run::Tool(command(page)));
        one_kind(name, &verdicts, VisitorKind::Bot);
    }
}

#[test]
fn python_requests_and_nodes_fetch_are_bots() {
    let Some(found) = tools(&["node"]) else {
        return;
    };
    let python = std::env::var_os("PYTHON").map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let has_requests = Command::new(&python)
        .args(["-c", "import requests"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !has_requests {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3's requests is missing under CI: scripts/bootstrap installs it"
        );
        println!("SKIPPED: python3's requests is not installed (scripts/bootstrap installs it)");
        return;
    }
    let verdicts = verdicts_of("python-requests", |page| {
        let mut command = Command::new(&python);
        command.args([
            "-c",
            "import sys, requests; requests.get(sys.argv[1], timeout=30)",
            page,
        ]);
        Run::Tool(command)
    });
    one_kind("python-requests", &verdicts, VisitorKind::Bot);
    let verdicts = verdicts_of("Node's fetch", |page| {
        let mut command = Command::new(&found[0]);
        command.args([
            "-e",
            "fetch(process.argv[1]).then((answer) => answer.text())",
            page,
        ]);
        Run::Tool(command)
    });
    one_kind("Node's fetch", &verdicts, VisitorKind::Bot);
}

/// What cannot be told: curl sending the whole header set a Chrome sends
/// (agent, client hints that agree, fetch metadata, `Accept`) for the page
/// and for its stylesheet is a person by every sign whocomes reads. This
/// test holds the limit in place: if it ever fails, ACCURACY.md's "What is
/// not caught" must change with it.
#[test]
fn a_tool_copying_a_browsers_whole_header_set_is_not_told_apart() {
    let Some(found) = tools(&["curl"]) else {
        return;
    };
    let verdicts = verdicts_of("curl with Chrome 131's whole header set", |page| {
        let stylesheet = format!("{}/pkg/whocomes.css", page.trim_end_matches("/about"));
        let mut command = Command::new(&found[0]);
        let hints = [
            "-H",
            r#"sec-ch-ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
            "-H",
            "sec-ch-ua-mobile: ?0",
            "-H",
            r#"sec-ch-ua-platform: "Linux""#,
        ];
        command
            .args(["-s", "-o", "/dev/null", "-A", CHROME_131])
            .args(hints)
            .args([
                "-H",
                "accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                "-H",
                "sec-fetch-site: none",
                "-H",
                "sec-fetch-mode: navigate",
                "-H",
                "sec-fetch-dest: document",
                page,
                "--next",
                "-s",
                "-A",
                CHROME_131,
            ])
            .args(hints)
            .args([
                "-H",
                "sec-fetch-site: same-origin",
                "-H",
                "sec-fetch-mode: no-cors",
                "-H",
                "sec-fetch-dest: style",
                "-o",
                "/dev/null",
                &stylesheet,
            ]);
        Run::Tool(command)
    });
    one_kind(
        "curl with Chrome 131's whole header set",
        &verdicts,
        VisitorKind::Person,
    );
}

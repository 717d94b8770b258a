//! `whocomes explain` end to end: the real binary, JSON lines in and out.

use std::io::Write as _;
use std::process::{Command, Stdio};

/// Runs `whocomes explain ARGS` with `input` on stdin.
fn explain(args: &[&str], input: &str) -> (Vec<serde_json::Value>, String, bool) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .arg("explain")
        .args(args)
        .env_remove("WHOCOMES_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("input written");
    let output = child.wait_with_output().expect("the binary finishes");
    let lines = String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|line| serde_json::from_str(line).expect("every output line is JSON"))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (lines, stderr, output.status.success())
}

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

#[test]
fn explains_tokens_kinds_and_sources_with_the_given_key() {
    let input = [
        // Expected token from Python's hmac (see activity/tests/token_vectors.rs).
        format!(r#"{{"at":"2026-11-29T23:59:59.999Z","peer":"203.0.113.7:443","target":"/resume?ref=LinkedIn-Post&utm_medium=x","headers":{{"user-agent":"{BROWSER}","sec-fetch-dest":"document","referer":"https://www.linkedin.com/feed/"}}}}"#),
        // A spoofed X-Forwarded-For without trusted proxies is not believed.
        format!(r#"{{"at":"2026-11-29T08:00:00Z","peer":"203.0.113.7","target":"/wp-login.php","status":404,"headers":{{"user-agent":"{BROWSER}","x-forwarded-for":"198.51.100.99"}}}}"#),
        r#"{"at":"2026-11-29T08:00:00Z","peer":"203.0.113.7","method":"OPTIONS","target":"/api/inventory"}"#.to_owned(),
        "garbage".to_owned(),
    ]
    .join("\n");
    // The static scheme, for a token that does not depend on today's date.
    let (lines, stderr, success) = explain(
        &["--key", "whocomes-test-key", "--token-keys", "static"],
        &input,
    );
    assert!(!success, "a malformed line makes the run fail at the end");
    assert!(
        stderr.contains("1 of 4 lines could not be read"),
        "{stderr}"
    );
    assert_eq!(lines.len(), 4);

    let page = &lines[0];
    assert_eq!(page["counted"], true);
    assert_eq!(page["page_load"], true);
    assert_eq!(page["reason"], "person");
    assert_eq!(page["hit"]["visitor"], "427b10c93306f017ebfd47ee393e3944");
    assert_eq!(page["hit"]["path"], "/resume");
    assert_eq!(page["hit"]["source"], "tag:linkedin-post");
    assert_eq!(page["hit"]["store"], "sqlite");

    let probe = &lines[1];
    assert_eq!(
        probe["reason"],
        "bot: asked for /wp-login.php, which this site does not have (answered 404)"
    );
    assert_eq!(probe["hit"]["network"], "203.0.113.x");
    assert_eq!(probe["hit"]["source"], serde_json::Value::Null);
    // A browser's agent asking for a probe path: a scanner, and why.
    assert_eq!(probe["bot_class"], "scanner");
    assert!(
        probe["bot_class_why"]
            .as_str()
            .expect("a reason")
            .contains("/wp-login.php")
    );
    assert!(page.get("bot_class").is_none(), "a person has no bot class");

    assert_eq!(lines[2]["reason"], "not counted: CORS preflight (OPTIONS)");
    assert_eq!(lines[3]["line"], 4);
    assert!(
        lines[3]["error"]
            .as_str()
            .expect("an error")
            .contains("not valid JSON")
    );
}

#[test]
fn trusted_proxies_and_store_names_are_applied() {
    let input = format!(
        r#"{{"at":"2026-11-29T12:00:00Z","peer":"10.0.0.2","target":"/","headers":{{"user-agent":"{BROWSER}","x-forwarded-for":["6.6.6.6, 203.0.113.7","10.0.0.9"]}}}}"#
    );
    let args = [
        "--key",
        "whocomes-test-key",
        "--token-keys",
        "static",
        "--trusted-proxy",
        "10.0.0.0/8",
        "--store-name",
        "eu-1",
    ];
    let (lines, stderr, success) = explain(&args, &input);
    assert!(success, "{stderr}");
    let hit = &lines[0]["hit"];
    assert_eq!(hit["visitor"], "427b10c93306f017ebfd47ee393e3944");
    assert_eq!(hit["store"], "eu-1");

    let crawler = r#"{"peer":"4.151.71.177","target":"/","headers":{"user-agent":"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"}}"#;
    let (lines, _, _) = explain(&["--key", "k"], crawler);
    assert_eq!(lines[0]["bot_class"], "ai-crawler");
    assert_eq!(lines[0]["bot_class_why"], "its agent says \"gptbot\"");
}

#[test]
fn without_a_key_it_shows_no_token_and_says_why() {
    let input = r#"{"peer":"203.0.113.7","target":"/"}"#;
    let (lines, stderr, success) = explain(&[], input);
    assert!(success);
    assert!(stderr.contains("without their tokens"), "{stderr}");
    assert_eq!(lines[0]["reason"], "bot: no user agent");
    assert_eq!(lines[0]["hit"]["visitor"], serde_json::Value::Null);
    assert_eq!(lines[0]["hit"]["network"], "203.0.113.x");
    let note = lines[0]["visitor_note"].as_str().expect("a note");
    assert!(note.contains("--key"), "{note}");
}

/// Under day keys, a seed makes the token the live site made that day,
/// for yesterday and for a day long gone alike.
#[test]
fn with_a_seed_every_days_token_is_the_live_sites() {
    let seed = "explain-seed";
    let today = chrono::Utc::now().date_naive();
    let ip = Some("203.0.113.7".parse().expect("an address"));
    for back in [0, 1, 12, 200] {
        let day = today - chrono::Days::new(back);
        let input = format!(
            r#"{{"at":"{day}T12:00:00Z","peer":"203.0.113.7","target":"/","headers":{{"user-agent":"{BROWSER}"}}}}"#
        );
        let (lines, stderr, success) = explain(&["--key", seed], &input);
        assert!(success, "{stderr}");
        let live = activity::ratchet::DayKeys::seed(seed.as_bytes(), day).expect("a seed");
        let expected = activity::token::visitor_token(&live.key_for(day).expect("a key"), day, ip);
        assert_eq!(
            lines[0]["hit"]["visitor"],
            expected.to_string(),
            "{back} days back"
        );
        assert!(lines[0].get("visitor_note").is_none());
    }
}

/// `explain` names what each request shows of a browser or an impostor,
/// reading lines in order as the writer would: a page before its file waits
/// for evidence, a page after it passes, HTTP/1.0 and a form posted at once
/// are impostors' signs, a prefetch is not counted.
#[test]
fn explains_the_browser_evidence_line_by_line() {
    let line = |at: &str, peer: &str, method: &str, target: &str, extra: &str| {
        format!(
            r#"{{"at":"2026-11-29T10:00:{at}Z","peer":"{peer}","method":"{method}","target":"{target}"{extra},"headers":{{"user-agent":"{BROWSER}"}}}}"#
        )
    };
    let input = [
        line("00", "203.0.113.7", "GET", "/", ""),
        line("01", "203.0.113.7", "GET", "/pkg/whocomes.css", ""),
        line("02", "203.0.113.7", "GET", "/about", ""),
        line("03", "198.51.100.2", "GET", "/", r#","protocol":"HTTP/1.0""#),
        line("04", "198.51.100.3", "GET", "/join", ""),
        line("05", "198.51.100.3", "POST", "/join", ""),
        format!(
            r#"{{"at":"2026-11-29T10:00:06Z","peer":"198.51.100.4","target":"/","headers":{{"user-agent":"{BROWSER}","sec-purpose":"prefetch"}}}}"#
        ),
    ]
    .join("\n");
    let (lines, stderr, success) = explain(&["--key", "k"], &input);
    assert!(success, "{stderr}");
    let note = |n: usize| lines[n]["evidence_note"].as_str().unwrap_or("").to_owned();
    let evidence = |n: usize| lines[n]["evidence"].clone();
    assert!(
        note(0).contains("once it fetches one of the page's files"),
        "{}",
        note(0)
    );
    assert_eq!(lines[1]["counted"], false);
    assert_eq!(evidence(1), serde_json::json!(["fetched the page's files"]));
    assert!(
        note(2).starts_with("its visitor-day counts as people"),
        "{}",
        note(2)
    );
    assert_eq!(evidence(3), serde_json::json!(["HTTP/1.0"]));
    assert!(note(3).contains("impostor"), "{}", note(3));
    assert_eq!(evidence(5), serde_json::json!(["form posted at once"]));
    assert_eq!(lines[6]["counted"], false);
    assert!(
        lines[6]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("prefetch"),
        "{}",
        lines[6]
    );
}

#[test]
fn explains_the_country_an_address_is_counted_under() {
    let input = [
        // APNIC's 1.0.0.0/24: Australia in the country table.
        format!(r#"{{"at":"2026-11-29T08:00:00Z","peer":"1.0.0.7","target":"/about","headers":{{"user-agent":"{BROWSER}","sec-fetch-dest":"document"}}}}"#),
        // A documentation address: no country.
        format!(r#"{{"at":"2026-11-29T08:00:00Z","peer":"203.0.113.7","target":"/about","headers":{{"user-agent":"{BROWSER}","sec-fetch-dest":"document"}}}}"#),
    ]
    .join("\n");
    let (lines, stderr, success) = explain(&["--key", "whocomes-test-key"], &input);
    assert!(success, "{stderr}");
    assert_eq!(lines[0]["hit"]["country"], "AU");
    assert_eq!(lines[0]["hit"]["network"], "1.0.0.x");
    assert_eq!(lines[1]["hit"]["country"], serde_json::Value::Null);
    let printed = lines
        .iter()
        .map(serde_json::Value::to_string)
        .collect::<String>();
    assert!(
        !printed.contains("1.0.0.7"),
        "the address is not printed: {printed}"
    );
}

/// Chrome 131's agent on Linux.
const CHROME_131: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

#[test]
fn explains_how_a_request_contradicts_its_agent() {
    let hints = r#""sec-ch-ua":"\"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"","sec-ch-ua-mobile":"?0","sec-ch-ua-platform":"\"Linux\"""#;
    let input = [
        // wget wearing Chrome's agent over HTTPS: no hints, no fetch metadata.
        format!(
            r#"{{"peer":"203.0.113.7","target":"/","scheme":"https","headers":{{"user-agent":"{CHROME_131}","accept":"*/*"}}}}"#
        ),
        // The same over plain HTTP: nothing is inferred from what is missing.
        format!(
            r#"{{"peer":"203.0.113.8","target":"/","scheme":"http","headers":{{"user-agent":"{CHROME_131}","accept":"*/*"}}}}"#
        ),
        // Chromium 156's own hints under Chrome 131's agent, on any origin.
        format!(
            r#"{{"peer":"203.0.113.9","target":"/","headers":{{"user-agent":"{CHROME_131}","sec-ch-ua":"\"Chromium\";v=\"156\"","sec-fetch-dest":"document","accept":"text/html"}}}}"#
        ),
        // Chrome as it is: hints that agree, fetch metadata, HTML asked for.
        format!(
            r#"{{"peer":"203.0.113.10","target":"/","scheme":"https","headers":{{"user-agent":"{CHROME_131}",{hints},"sec-fetch-site":"none","sec-fetch-mode":"navigate","sec-fetch-dest":"document","accept":"text/html"}}}}"#
        ),
    ]
    .join("\n");
    let (lines, stderr, success) = explain(&[], &input);
    assert!(success, "{stderr}");
    let said = |line: &serde_json::Value| line["contradiction"].as_str().map(str::to_owned);
    assert_eq!(
        said(&lines[0]).as_deref(),
        Some("a Chromium recent enough to send client hints sent none to a trustworthy origin")
    );
    assert!(
        lines[0]["evidence"]
            .to_string()
            .contains("its request contradicts its agent"),
        "{}",
        lines[0]
    );
    assert_eq!(said(&lines[1]), None, "{}", lines[1]);
    assert_eq!(
        said(&lines[2]).as_deref(),
        Some("its client hints name another version than its agent")
    );
    assert_eq!(said(&lines[3]), None, "{}", lines[3]);
}

#[test]
fn reads_caddys_json_log_with_its_signs() {
    let entry = |ip: &str, headers: &str| {
        format!(
            r#"{{"level":"info","ts":1733400000.5,"msg":"handled request","request":{{"client_ip":"{ip}","proto":"HTTP/2.0","method":"GET","host":"example.org","uri":"/about","headers":{{{headers}}},"tls":{{"version":772}}}},"status":200,"size":1024}}"#
        )
    };
    let input = [
        entry(
            "203.0.113.7",
            &format!(r#""User-Agent":["{CHROME_131}"],"Accept":["*/*"]"#),
        ),
        entry(
            "203.0.113.8",
            &format!(
                r#""User-Agent":["{CHROME_131}"],"Accept":["text/html"],"Sec-Ch-Ua":["\"Chromium\";v=\"131\""],"Sec-Fetch-Dest":["document"],"Sec-Fetch-Mode":["navigate"]"#
            ),
        ),
        "not an entry".to_owned(),
    ]
    .join("\n");
    let (lines, stderr, success) = explain(&["--format", "caddy"], &input);
    assert!(!success, "the malformed line is said");
    assert!(stderr.contains("1 of 3 lines"), "{stderr}");
    assert_eq!(lines[0]["counted"], true);
    assert_eq!(
        lines[0]["contradiction"],
        "a Chromium recent enough to send client hints sent none to a trustworthy origin",
        "TLS in the entry: an HTTPS origin"
    );
    assert!(lines[1]["contradiction"].is_null(), "{}", lines[1]);
    assert!(
        !lines[2].to_string().contains("not an entry"),
        "the error never quotes the line: {}",
        lines[2]
    );
}

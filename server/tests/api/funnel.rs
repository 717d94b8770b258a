//! A site names its own funnel in one flag (or one variable): the card
//! counts its steps; a site that names none is told how; a bad step is
//! refused at start with the reason.

use std::process::Command;

use clap::Parser as _;
use reqwest::StatusCode;
use server::cli::Cli;

use crate::helpers::{TestApp, get_with as get, person_reads, refused_at_start, spawn_app_with};

async fn funnel_page(app: &TestApp) -> String {
    let answer = get(app, "/admin?range=7&funnel=on", None).await;
    assert_eq!(answer.status(), StatusCode::OK);
    answer.text().await.expect("a page")
}

#[tokio::test]
async fn a_site_names_its_steps_and_the_card_counts_them() {
    let app = spawn_app_with(&[
        "--trusted-proxy=127.0.0.1",
        "--funnel-step=start=/",
        "--funnel-step",
        "reading=/about,/inventory",
        "--funnel-step=hired=/resume",
    ])
    .await;
    person_reads(&app, "203.0.113.9", &["/", "/about"]).await;
    person_reads(&app, "203.0.113.10", &["/", "/inventory", "/resume"]).await;
    person_reads(&app, "203.0.113.11", &["/"]).await;

    let overview = app.current_overview("7").await;
    let steps: Vec<(String, u64)> = overview["funnel"]
        .as_array()
        .expect("the funnel's steps")
        .iter()
        .map(|step| {
            (
                step["name"].as_str().expect("a name").to_owned(),
                step["visitors"].as_u64().expect("a count"),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            ("start".to_owned(), 3),
            ("reading".to_owned(), 2),
            ("hired".to_owned(), 1)
        ],
        "each step by its paths, in the site's order"
    );
    let page = funnel_page(&app).await;
    assert!(page.contains(">hired<"), "the site's own step names");
    assert!(!page.contains(">landing<") && !page.contains("No funnel is set"));
}

#[tokio::test]
async fn a_site_without_a_funnel_is_told_how_to_name_one() {
    let app = spawn_app_with(&[]).await;
    let page = funnel_page(&app).await;
    assert!(page.contains("No funnel is set"), "the card says so");
    assert!(
        page.contains("--funnel-step landing=/"),
        "and how to set it"
    );
    assert!(
        !page.contains(">inventory<"),
        "the demo's steps are not anyone's default"
    );
}

#[tokio::test]
async fn the_demo_brings_its_own_steps() {
    let app = spawn_app_with(&["--demo"]).await;
    let page = funnel_page(&app).await;
    for step in ["landing", "inventory", "about", "resume"] {
        assert!(
            page.contains(&format!(">{step}<")),
            "the demo's step {step}"
        );
    }
}

#[test]
fn a_malformed_step_is_refused_by_the_flag_with_the_reason() {
    for (step, reason) in [
        ("pricing", "has no `=`"),
        ("pricing=pricing", "starts with /"),
        ("pricing=/pricing?plan=pro", "without query"),
        ("=/pricing", "name"),
    ] {
        let error = Cli::try_parse_from(["whocomes", "serve", "--funnel-step", step])
            .err()
            .unwrap_or_else(|| panic!("{step} is refused"))
            .to_string();
        assert!(error.contains("--funnel-step"), "names the flag: {error}");
        assert!(error.contains(reason), "says why: {error}");
    }
}

#[tokio::test]
async fn a_funnel_the_card_cannot_draw_is_refused_at_start() {
    let error = refused_at_start(&["--funnel-step=home=/", "--funnel-step=home=/about"]).await;
    assert!(
        error.contains(r#"two funnel steps are named "home""#),
        "{error}"
    );
    let many: Vec<String> = (0..9).map(|n| format!("--funnel-step=s{n}=/{n}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let error = refused_at_start(&many).await;
    assert!(error.contains("at most 8"), "{error}");
}

#[test]
fn the_variable_holds_steps_separated_by_semicolons() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let output = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .env("WHOCOMES_DATA_DIR", data.path())
        .env("WHOCOMES_ADDR", "127.0.0.1:0")
        .env(
            "WHOCOMES_FUNNEL",
            "landing=/; signup=/signup,/signup/done; landing=/again",
        )
        .output()
        .expect("the binary runs");
    assert!(!output.status.success(), "a repeated name stops the start");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(r#"two funnel steps are named "landing""#),
        "all three steps were read, the third refused: {stderr}"
    );
}

//! Properties that must hold for any input (proptest): a hit never carries
//! the address, the query or the user agent; a network never keeps more than
//! three octets or groups; no input panics the classification; the kinds add
//! up; merging stores does not depend on order.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use proptest::prelude::*;
use whocomes_activity::address::{ForwardedHeader, Network, TrustedProxies};
use whocomes_activity::report::{daily_kinds, merge_visitors};
use whocomes_activity::rows::{PathCount, VisitorDay};
use whocomes_activity::{Counter, RequestView, Rules, StoreName, VisitorKey, VisitorToken};

/// Compiled once: building the automata for every case would dominate the run.
static RULES: LazyLock<Rules> = LazyLock::new(Rules::default);

fn counter(proxies: TrustedProxies) -> Counter {
    Counter::new(
        RULES.clone(),
        VisitorKey::from_text("property-test-key").expect("a key"),
        proxies,
        StoreName::parse("test").expect("a store name"),
    )
}

fn any_ip() -> impl Strategy<Value = IpAddr> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|o| IpAddr::V4(Ipv4Addr::from(o))),
        any::<[u16; 8]>().prop_map(|s| IpAddr::V6(Ipv6Addr::from(s))),
        any::<[u8; 4]>().prop_map(|o| IpAddr::V6(Ipv4Addr::from(o).to_ipv6_mapped())),
    ]
}

/// Every way the address may be written somewhere in a request.
fn written_forms(ip: IpAddr) -> Vec<String> {
    let mut forms = vec![ip.to_string(), ip.to_string().to_uppercase()];
    if let IpAddr::V6(v6) = ip {
        let s = v6.segments();
        forms.push(format!(
            "{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}:{:04x}",
            s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
        ));
        if let Some(v4) = v6.to_ipv4_mapped() {
            forms.push(v4.to_string());
        }
    }
    forms
}

fn at() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_000_000_000).prop_map(|s| Utc.timestamp_opt(s, 0).single().expect("in range"))
}

proptest! {
    // Failures print their minimal case; no regression files in the tree.
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_hit_never_carries_the_address_the_query_or_the_agent(
        ip in any_ip(),
        port in any::<u16>(),
        // Under /x: never the Admin tab, the API or the build output, so
        // always a counted page.
        path in "/x[a-z/]{0,40}",
        query_marker in "[0-9]{6,12}",
        agent_marker in "[0-9]{6,12}",
        referrer in "[a-z]{1,12}",
        behind_proxy in any::<bool>(),
        referrer_is_the_address in any::<bool>(),
        with_tag in any::<bool>(),
        when in at(),
    ) {
        let tag = if with_tag { "&ref=zzTAG" } else { "" };
        let query = format!("q=zzQUERY{query_marker}{tag}&email=jane%40example.com");
        let target = format!("{path}?{query}#frag");
        let agent = format!("Mozilla/5.0 (X11; Linux x86_64) zzAGENT{agent_marker}");
        let referer = format!("https://{referrer}.example/some/path?secret=zzQUERY{query_marker}");
        let written = match ip {
            IpAddr::V4(v4) => format!("{v4}:{port}"),
            IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        };
        let referer = if referrer_is_the_address {
            format!("http://{written}/some/path?secret=zzQUERY{query_marker}")
        } else {
            referer
        };
        let forwarded = [written.as_str()];
        let (proxies, peer) = if behind_proxy {
            let proxy: IpAddr = "10.0.0.1".parse().expect("literal");
            let nets = vec!["10.0.0.0/8".parse().expect("literal")];
            (TrustedProxies::new(nets, ForwardedHeader::XForwardedFor), proxy)
        } else {
            (TrustedProxies::default(), ip)
        };
        let request = RequestView {
            method: "GET",
            target: target.as_bytes(),
            user_agent: Some(&agent),
            referer: Some(&referer),
            accept: Some("text/html"),
            x_forwarded_for: if behind_proxy { forwarded.to_vec() } else { Vec::new() },
            ..RequestView::default()
        };
        let decision = counter(proxies).count(&request, Some(peer), when);
        let hit = decision.hit.clone().expect("a page is counted");
        let kept = serde_json::to_string(&decision).expect("serialises");
        for form in written_forms(ip) {
            prop_assert!(!kept.contains(&form), "address {form} in {kept}");
        }
        prop_assert!(!kept.contains(&written));
        prop_assert!(!kept.contains("zzQUERY"), "query in {kept}");
        prop_assert!(!kept.contains("zzAGENT"), "agent in {kept}");
        prop_assert!(!kept.contains("example.com"), "query value in {kept}");
        prop_assert!(!kept.contains("/some/path"), "referrer path in {kept}");
        prop_assert_eq!(hit.network, Network::of(Some(ip)));
        prop_assert!(decision.page_load);
        prop_assert!(hit.source.is_some(), "a tag or a referrer is kept");
    }

    #[test]
    fn a_network_keeps_at_most_three_octets_or_groups(ip in any_ip()) {
        let network = Network::of(Some(ip));
        let text = network.as_str();
        prop_assert!(text.ends_with('x'));
        let parts: Vec<&str> = text.trim_end_matches('x').split(['.', ':']).filter(|p| !p.is_empty()).collect();
        prop_assert!(parts.len() <= 3, "{text}");
    }

    #[test]
    fn no_input_panics_the_classification(
        method in ".{0,12}",
        target in proptest::collection::vec(any::<u8>(), 0..700),
        agent in proptest::option::of(".{0,300}"),
        referer in proptest::option::of(".{0,200}"),
        accept in proptest::option::of(".{0,40}"),
        dest in proptest::option::of(".{0,20}"),
        host in proptest::option::of(".{0,60}"),
        forwarded in proptest::collection::vec(".{0,80}", 0..4),
        peer in proptest::option::of(any_ip()),
        when in at(),
    ) {
        let request = RequestView {
            method: &method,
            target: &target,
            user_agent: agent.as_deref(),
            referer: referer.as_deref(),
            accept: accept.as_deref(),
            sec_fetch_dest: dest.as_deref(),
            sec_fetch_mode: dest.as_deref(),
            status: None,
            host: host.as_deref(),
            x_forwarded_for: forwarded.iter().map(String::as_str).collect(),
            forwarded: forwarded.iter().map(String::as_str).collect(),
            protocol: method.get(..4),
            sec_purpose: dest.as_deref(),
            sec_fetch_site: dest.as_deref(),
            sec_ch_ua: referer.as_deref(),
            sec_ch_ua_mobile: dest.as_deref(),
            sec_ch_ua_platform: accept.as_deref(),
            x_forwarded_proto: dest.as_deref(),
            scheme: accept.as_deref(),
        };
        let nets = vec!["0.0.0.0/0".parse().expect("literal"), "::/0".parse().expect("literal")];
        for proxies in [
            TrustedProxies::default(),
            TrustedProxies::new(nets.clone(), ForwardedHeader::XForwardedFor),
            TrustedProxies::new(nets, ForwardedHeader::Forwarded),
        ] {
            let decision = counter(proxies).count(&request, peer, when);
            if let Some(hit) = decision.hit {
                prop_assert!(hit.path.len() <= whocomes_activity::path::MAX_PATH_BYTES);
                prop_assert!(!hit.path.contains('@'));
                prop_assert!(!hit.path.contains('?'));
                prop_assert!(!hit.path.chars().any(char::is_control));
            }
        }
    }

    #[test]
    fn the_kinds_add_up_and_merging_ignores_order(
        rows in proptest::collection::vec(visitor_day(), 0..60),
        seed in any::<u64>(),
    ) {
        let merged = merge_visitors(&rows);
        let days = daily_kinds(&merged);
        let total: u64 = days.values().map(|k| k.total()).sum();
        prop_assert_eq!(total as usize, merged.len());
        for (day, kinds) in &days {
            let on_day = merged.iter().filter(|v| v.day == *day).count() as u64;
            prop_assert_eq!(kinds.people + kinds.bots + kinds.self_reads, on_day);
        }

        let mut shuffled = rows.clone();
        // A deterministic shuffle from the seed.
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(merge_visitors(&shuffled), merged);
    }
}

fn visitor_day() -> impl Strategy<Value = VisitorDay> {
    (
        prop_oneof![Just("sqlite"), Just("postgres"), Just("demo")],
        0u32..3,
        0u8..6,
        (0u64..5, 0u64..5, 0u64..5),
        proptest::collection::vec(("/[a-c]{0,2}", 1u64..4), 0..3),
        (0u8..32, 0u16..1024),
    )
        .prop_map(
            |(store, day, visitor, (people, bots, own), paths, (evidence, classes))| {
                let day = NaiveDate::from_ymd_opt(2026, 11, 1 + day).expect("a day");
                let seen = Utc.from_utc_datetime(&day.and_hms_opt(12, 0, 0).expect("noon"));
                VisitorDay {
                    store: StoreName::parse(store).expect("a name"),
                    day,
                    visitor: serde_json::from_value::<VisitorToken>(serde_json::json!(format!(
                        "{visitor:032x}"
                    )))
                    .expect("a token"),
                    network: Network::of(None),
                    country: whocomes_activity::sample::country(u64::from(visitor)),
                    first_seen: seen,
                    last_seen: seen,
                    requests: people + bots + own,
                    bots,
                    self_reads: own,
                    evidence: whocomes_activity::evidence::Evidence(u16::from(evidence)),
                    bot_classes: whocomes_activity::bot_class::ClassSet(classes),
                    top_paths: paths
                        .into_iter()
                        .map(|(path, requests)| PathCount { path, requests })
                        .collect(),
                    sources: Vec::new(),
                    pages: Default::default(),
                    goals: Vec::new(),
                }
            },
        )
}

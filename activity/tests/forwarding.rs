//! Spoofing the client's address: a table of forwarding headers a client
//! might send (leftmost `X-Forwarded-For`, several headers, `Forwarded` with
//! quoted and obfuscated forms, IPv6 brackets, garbage, too many hops), with
//! and without trusted proxies, through `Counter::count` — the layer's own
//! decision. The counted address is never one the client chose unless a
//! trusted proxy vouched for it; an unreadable chain counts as no address.

use std::net::IpAddr;

use chrono::{TimeZone, Utc};
use whocomes_activity::address::{ForwardedHeader, Network, TrustedProxies};
use whocomes_activity::token::visitor_token;
use whocomes_activity::{Counter, RequestView, Rules, StoreName, VisitorKey};

fn counter(trusted: &[&str], header: ForwardedHeader) -> Counter {
    let nets = trusted.iter().map(|n| n.parse().expect("a CIDR")).collect();
    Counter::new(
        Rules::default(),
        VisitorKey::from_text("forwarding-test-key").expect("a key"),
        TrustedProxies::new(nets, header),
        StoreName::parse("test").expect("a name"),
    )
}

/// One attempt: the peer, the headers sent, and the client expected (`None`: unreadable).
struct Case {
    peer: &'static str,
    xff: &'static [&'static str],
    forwarded: &'static [&'static str],
    expected: Option<&'static str>,
}

const fn case(
    peer: &'static str,
    xff: &'static [&'static str],
    forwarded: &'static [&'static str],
    expected: Option<&'static str>,
) -> Case {
    Case {
        peer,
        xff,
        forwarded,
        expected,
    }
}

fn check(counter: &Counter, cases: &[Case]) {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
        .single()
        .expect("a time");
    for case in cases {
        let request = RequestView {
            method: "GET",
            target: b"/about",
            user_agent: Some("Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"),
            x_forwarded_for: case.xff.to_vec(),
            forwarded: case.forwarded.to_vec(),
            ..RequestView::default()
        };
        let peer: IpAddr = case.peer.parse().expect("a peer");
        let hit = counter
            .count(&request, Some(peer), at)
            .hit
            .expect("a page is counted");
        let expected: Option<IpAddr> = case.expected.map(|ip| ip.parse().expect("an address"));
        let label = format!(
            "peer {} xff {:?} forwarded {:?}",
            case.peer, case.xff, case.forwarded
        );
        assert_eq!(hit.network, Network::of(expected), "{label}");
        assert_eq!(
            hit.visitor,
            visitor_token(
                &VisitorKey::from_text("forwarding-test-key").expect("a key"),
                at.date_naive(),
                expected
            ),
            "{label}"
        );
    }
}

const PEER: &str = "198.51.100.7";

#[test]
fn without_trusted_proxies_no_header_is_believed() {
    let none = counter(&[], ForwardedHeader::XForwardedFor);
    check(
        &none,
        &[
            case(PEER, &["203.0.113.7"], &[], Some(PEER)),
            case(PEER, &["203.0.113.7", "192.0.2.1"], &[], Some(PEER)),
            case(PEER, &["[2001:db8::1]:443"], &[], Some(PEER)),
            case(PEER, &[], &["for=203.0.113.7"], Some(PEER)),
            case(PEER, &["garbage", "unknown"], &["for=_hidden"], Some(PEER)),
            case("::ffff:198.51.100.7", &["203.0.113.7"], &[], Some(PEER)),
        ],
    );
    let forwarded = counter(&[], ForwardedHeader::Forwarded);
    check(
        &forwarded,
        &[case(PEER, &[], &["for=203.0.113.7"], Some(PEER))],
    );
}

#[test]
fn behind_a_trusted_proxy_x_forwarded_for_is_read_from_the_right() {
    let proxy = "10.0.0.1";
    let trusted = counter(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
    let hops: &'static [&'static str] = &[
        "10.0.0.2, 10.0.0.3, 10.0.0.4, 10.0.0.5, 10.0.0.6, 10.0.0.7, 10.0.0.8, 10.0.0.9, 10.0.0.10, 10.0.0.11, 10.0.0.12, 10.0.0.13, 10.0.0.14, 10.0.0.15, 10.0.0.16, 10.0.0.17, 10.0.0.18, 10.0.0.19, 10.0.0.20, 10.0.0.21, 10.0.0.22, 10.0.0.23, 10.0.0.24, 10.0.0.25, 10.0.0.26, 10.0.0.27, 10.0.0.28, 10.0.0.29, 10.0.0.30, 10.0.0.31, 10.0.0.32, 10.0.0.33, 10.0.0.34",
    ];
    check(
        &trusted,
        &[
            // The client's own leftmost entry is never believed.
            case(proxy, &["6.6.6.6, 203.0.113.7"], &[], Some("203.0.113.7")),
            case(proxy, &["6.6.6.6", "203.0.113.7"], &[], Some("203.0.113.7")),
            case(
                proxy,
                &["6.6.6.6, 203.0.113.7, 10.0.0.9"],
                &[],
                Some("203.0.113.7"),
            ),
            // A client naming a trusted address gets the proxy's entry after it.
            case(proxy, &["10.0.0.99, 203.0.113.7"], &[], Some("203.0.113.7")),
            case(proxy, &["203.0.113.7:5555"], &[], Some("203.0.113.7")),
            case(proxy, &["[2001:db8::1]:443"], &[], Some("2001:db8::1")),
            case(proxy, &["::ffff:203.0.113.7"], &[], Some("203.0.113.7")),
            case(proxy, &["unknown, 203.0.113.7"], &[], Some("203.0.113.7")),
            // Garbage or an obfuscated name where the client should be: no address.
            case(proxy, &["203.0.113.7, unknown"], &[], None),
            case(proxy, &["203.0.113.7, not an address"], &[], None),
            case(proxy, &["203.0.113.7,\u{1}"], &[], None),
            // Too many hops: no address.
            case(proxy, hops, &[], None),
            // The other header is not the configured one: the proxy itself.
            case(proxy, &[], &["for=203.0.113.7"], Some(proxy)),
            // An untrusted peer's header is never read.
            case(PEER, &["203.0.113.7"], &[], Some(PEER)),
        ],
    );
}

#[test]
fn behind_a_trusted_proxy_forwarded_is_read_with_its_quoting() {
    let proxy = "10.0.0.1";
    let trusted = counter(&["10.0.0.0/8"], ForwardedHeader::Forwarded);
    check(
        &trusted,
        &[
            case(
                proxy,
                &[],
                &["for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https"],
                Some("2001:db8:cafe::17"),
            ),
            case(proxy, &[], &["For=\"203.0.113.7\""], Some("203.0.113.7")),
            case(
                proxy,
                &[],
                &["FOR=203.0.113.7;by=10.0.0.1"],
                Some("203.0.113.7"),
            ),
            case(
                proxy,
                &[],
                &["for=6.6.6.6", "for=203.0.113.7"],
                Some("203.0.113.7"),
            ),
            case(proxy, &[], &["for=\"_gazonk\""], None),
            case(proxy, &[], &["for=unknown"], None),
            case(proxy, &[], &["proto=https"], None),
            case(proxy, &[], &["for=\"[2001:db8::1\""], None),
            case(proxy, &["203.0.113.7"], &[], Some(proxy)),
        ],
    );
}

//! What the country lookup costs on the request path, and what the table
//! costs to hold: the shipped sorted-run table (one binary search) beside a
//! prefix trie (`prefix-trie`, longest-prefix match) holding the same runs
//! as CIDR prefixes, on the same random global addresses. Also the table's
//! decoding at start.
//!
//! `cargo bench -p whocomes-activity --bench countries` (results in
//! docs/BENCHMARKS.md, "Countries").

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use criterion::{Criterion, criterion_group, criterion_main};
use ipnet::{Ipv4Net, Ipv4Subnets, Ipv6Net, Ipv6Subnets};
use prefix_trie::PrefixMap;
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::countries::{CountryTable, built_in};
use whocomes_activity::country::Country;
use whocomes_activity::{Counter, RequestView, Rules, StoreName, VisitorKey};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Resident memory of this process, in bytes (Linux).
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// The same runs as prefix tries (a run of no country is left out).
struct Tries {
    v4: PrefixMap<Ipv4Net, Country>,
    v6: PrefixMap<Ipv6Net, Country>,
    prefixes: usize,
}

impl Tries {
    fn of(table: &CountryTable) -> Self {
        let mut tries = Tries {
            v4: PrefixMap::new(),
            v6: PrefixMap::new(),
            prefixes: 0,
        };
        let v4: Vec<_> = table.ipv4_runs().collect();
        for (at, (start, country)) in v4.iter().enumerate() {
            let end = v4.get(at + 1).map_or(Ipv4Addr::BROADCAST, |(next, _)| {
                Ipv4Addr::from(u32::from(*next) - 1)
            });
            if let Some(country) = country {
                for net in Ipv4Subnets::new(*start, end, 0) {
                    tries.v4.insert(net, *country);
                    tries.prefixes += 1;
                }
            }
        }
        let v6: Vec<_> = table.ipv6_runs().collect();
        for (at, (start, country)) in v6.iter().enumerate() {
            let end = v6
                .get(at + 1)
                .map_or(Ipv6Addr::from(u128::MAX), |(next, _)| {
                    Ipv6Addr::from(u128::from(*next) - 1)
                });
            if let Some(country) = country {
                for net in Ipv6Subnets::new(*start, end, 0) {
                    tries.v6.insert(net, *country);
                    tries.prefixes += 1;
                }
            }
        }
        tries
    }

    fn lookup(&self, address: IpAddr) -> Option<Country> {
        match address {
            IpAddr::V4(v4) => self
                .v4
                .get_lpm(&Ipv4Net::from(v4))
                .map(|(_, country)| *country),
            IpAddr::V6(v6) => self
                .v6
                .get_lpm(&Ipv6Net::from(v6))
                .map(|(_, country)| *country),
        }
    }
}

/// Random global addresses, two IPv4 to one IPv6 (2000::/4), the same
/// every run.
fn addresses(count: usize) -> Vec<IpAddr> {
    let mut state: u64 = 0x5eed_c0de_f00d_0001;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|n| {
            if n % 3 == 2 {
                let high = (0x2000u128 | (u128::from(next()) & 0x0fff)) << 112;
                IpAddr::V6(Ipv6Addr::from(
                    high | (u128::from(next()) << 48) | u128::from(next() & 0xffff),
                ))
            } else {
                let bits = next() as u32;
                IpAddr::V4(Ipv4Addr::from(bits % 0xdf00_0000 + 0x0100_0000))
            }
        })
        .collect()
}

fn countries(c: &mut Criterion) {
    let before = resident();
    let table = built_in();
    let with_table = resident();
    let tries = Tries::of(table);
    let with_tries = resident();
    let (v4, v6) = table.runs_held();
    eprintln!(
        "sorted runs: {v4} IPv4 + {v6} IPv6, {:.1} MB of runs ({:.1} MB resident after decoding); \
         prefix trie: {} prefixes, {:.1} MB resident more",
        table.memory_bytes() as f64 / 1e6,
        with_table.saturating_sub(before) as f64 / 1e6,
        tries.prefixes,
        with_tries.saturating_sub(with_table) as f64 / 1e6,
    );
    let sample = addresses(4096);
    let agree = sample
        .iter()
        .filter(|a| table.lookup(**a) == tries.lookup(**a))
        .count();
    assert_eq!(agree, sample.len(), "both answer alike");
    let known = sample
        .iter()
        .filter(|a| table.lookup(**a).is_some())
        .count();
    eprintln!("{known} of {} sample addresses in a country", sample.len());

    let mut group = c.benchmark_group("country lookup");
    let mut at = 0;
    group.bench_function("sorted runs", |b| {
        b.iter(|| {
            at = (at + 1) % sample.len();
            table.lookup(black_box(sample[at]))
        })
    });
    group.bench_function("prefix trie", |b| {
        b.iter(|| {
            at = (at + 1) % sample.len();
            tries.lookup(black_box(sample[at]))
        })
    });
    group.finish();

    // The whole decision of a page load, with the table and with an empty
    // one (no country looked up), from addresses of the sample in turn.
    static EMPTY: std::sync::LazyLock<CountryTable> = std::sync::LazyLock::new(CountryTable::empty);
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_bytes(vec![7; 32]).expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("sqlite").expect("a name"),
    );
    let without = counter.clone().with_countries(&EMPTY);
    let page = RequestView {
        method: "GET",
        target: b"/resume?ref=linkedin",
        user_agent: Some(CHROME),
        referer: Some("https://www.linkedin.com/feed/"),
        accept: Some("text/html,application/xhtml+xml"),
        sec_fetch_dest: Some("document"),
        host: Some("example.com"),
        protocol: Some("HTTP/1.1"),
        ..RequestView::default()
    };
    let moment = chrono::DateTime::from_timestamp(1_795_000_000, 0).expect("a time");
    let mut group = c.benchmark_group("page load decision");
    for (name, counter) in [("with countries", &counter), ("without", &without)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                at = (at + 1) % sample.len();
                counter.count(black_box(&page), Some(sample[at]), moment)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("country table");
    group.sample_size(10);
    group.bench_function("decode at start", |b| {
        b.iter(|| {
            CountryTable::decode(
                include_bytes!("../data/countries-ipv4.txt.gz"),
                include_bytes!("../data/countries-ipv6.txt.gz"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, countries);
criterion_main!(benches);

//! The offline address-to-country table: which country's block an address
//! is in, looked up on the request path before the address is cut.
//!
//! The table ships with the crate (`data/countries-ipv4.txt.gz`,
//! `data/countries-ipv6.txt.gz`, made by `scripts/refresh-countries` from
//! the `@ip-location-db/geo-whois-asn-country` package: provenance and
//! licence in `data/countries.PROVENANCE.md`). It is a list of runs, each
//! the start of a block and its country, sorted, without overlaps or gaps
//! (a block of no country is a run of `--`), so a lookup is one binary
//! search: the last run that starts at or before the address. IPv4 starts
//! are 4 bytes, IPv6 starts 16, a run's country one byte more (an index
//! into the table's few hundred codes): about 6.5 MB in all, decoded once
//! on first use. An index by an address's top 16 bits (where its bucket's
//! runs begin, 256 KB a family) narrows the search to a few runs: on a busy
//! server the table is out of the CPU's caches, and each step of a search
//! over the whole table is a miss (issue 35's profile).

use std::net::IpAddr;
use std::sync::LazyLock;

use crate::visitor::country::Country;

const IPV4: &[u8] = include_bytes!("../../data/countries-ipv4.txt.gz");
const IPV6: &[u8] = include_bytes!("../../data/countries-ipv6.txt.gz");

/// The table built into this crate, decoded on first use (about 0.2 s).
pub fn built_in() -> &'static CountryTable {
    static TABLE: LazyLock<CountryTable> = LazyLock::new(|| {
        // The files are part of the crate and checked by its tests: a table
        // that does not decode is a broken build, not a runtime condition.
        CountryTable::decode(IPV4, IPV6).unwrap_or_else(|error| {
            tracing::error!(%error, "the built-in country table does not decode; every country is unknown");
            CountryTable::empty()
        })
    });
    &TABLE
}

/// Runs of addresses and their countries, IPv4 and IPv6 apart.
#[derive(Clone)]
pub struct CountryTable {
    v4: Runs<u32>,
    v6: Runs<u128>,
    /// The codes the runs point into; index 0 is "no country".
    codes: Vec<Option<Country>>,
}

#[derive(Debug, Clone, Default)]
struct Runs<T> {
    starts: Vec<T>,
    codes: Vec<u8>,
    /// For each value of an address's top 16 bits, the first run that
    /// starts in that bucket or later; one more entry at the end (the
    /// number of runs). Empty until [`Runs::index`].
    buckets: Vec<u32>,
}

/// An address as a number whose top 16 bits name its bucket.
trait Start: Copy + Ord {
    /// The bucket the address is in.
    fn bucket(self) -> usize;
}

impl Start for u32 {
    fn bucket(self) -> usize {
        (self >> 16) as usize
    }
}

impl Start for u128 {
    fn bucket(self) -> usize {
        (self >> 112) as usize
    }
}

const BUCKETS: usize = 1 << 16;

impl<T: Start> Runs<T> {
    /// Makes the bucket index (after the runs are all in, sorted).
    fn index(&mut self) {
        let mut buckets = Vec::with_capacity(BUCKETS + 1);
        let mut run = 0;
        for bucket in 0..=BUCKETS {
            while run < self.starts.len() && self.starts[run].bucket() < bucket {
                run += 1;
            }
            buckets.push(u32::try_from(run).unwrap_or(u32::MAX));
        }
        self.buckets = buckets;
    }

    fn lookup(&self, address: T) -> u8 {
        // Runs before the bucket start before the address, runs after it
        // start after it: only the bucket's own runs need a search.
        let bucket = address.bucket();
        let (from, to) = match (self.buckets.get(bucket), self.buckets.get(bucket + 1)) {
            (Some(&from), Some(&to)) => (from as usize, to as usize),
            _ => (0, self.starts.len()),
        };
        let after = from + self.starts[from..to].partition_point(|&start| start <= address);
        after.checked_sub(1).map_or(0, |run| self.codes[run])
    }
}

/// Why a table file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// Not gzip, or cut short.
    #[error("the country table is not readable gzip: {0}")]
    Gzip(#[from] std::io::Error),
    /// A line that is not `GAP CC` (or, first, `runs N`).
    #[error("line {line} of the {family} country table is not `GAP CC` (the first: `runs N`)")]
    Line {
        /// `IPv4` or `IPv6`.
        family: &'static str,
        /// Its number, from 1.
        line: usize,
    },
    /// More codes than a byte indexes.
    #[error("the country table names more than 255 countries")]
    TooManyCodes,
}

impl std::fmt::Debug for CountryTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CountryTable")
            .field("runs", &self.runs_held())
            .field("countries", &(self.codes.len() - 1))
            .finish()
    }
}

impl CountryTable {
    /// A table of the given runs (each a start and its country, in any
    /// order; before the first start, no country): a site's own table, or
    /// the demo's made-up one.
    pub fn from_runs(
        ipv4: &[(std::net::Ipv4Addr, Option<Country>)],
        ipv6: &[(std::net::Ipv6Addr, Option<Country>)],
    ) -> Result<Self, TableError> {
        let mut table = Self::empty();
        let mut v4: Vec<_> = ipv4.iter().map(|(a, c)| (u32::from(*a), *c)).collect();
        let mut v6: Vec<_> = ipv6.iter().map(|(a, c)| (u128::from(*a), *c)).collect();
        v4.sort_by_key(|(start, _)| *start);
        v6.sort_by_key(|(start, _)| *start);
        for (start, country) in v4 {
            let code = table.code_of(country)?;
            table.v4.starts.push(start);
            table.v4.codes.push(code);
        }
        for (start, country) in v6 {
            let code = table.code_of(country)?;
            table.v6.starts.push(start);
            table.v6.codes.push(code);
        }
        table.v4.index();
        table.v6.index();
        Ok(table)
    }

    /// The index of `country` among the codes, added if new.
    fn code_of(&mut self, country: Option<Country>) -> Result<u8, TableError> {
        let index = match self.codes.iter().position(|known| *known == country) {
            Some(index) => index,
            None => {
                self.codes.push(country);
                self.codes.len() - 1
            }
        };
        u8::try_from(index).map_err(|_| TableError::TooManyCodes)
    }

    /// A table that knows no country.
    pub fn empty() -> Self {
        Self {
            v4: Runs::default(),
            v6: Runs::default(),
            codes: vec![None],
        }
    }

    /// Reads the two gzipped files in `scripts/refresh-countries`' format.
    pub fn decode(ipv4: &[u8], ipv6: &[u8]) -> Result<Self, TableError> {
        let mut table = Self::empty();
        table.v4 = table.runs(ipv4, "IPv4", |start| u32::try_from(start).ok())?;
        table.v6 = table.runs(ipv6, "IPv6", Some)?;
        Ok(table)
    }

    fn runs<T: Start>(
        &mut self,
        gz: &[u8],
        family: &'static str,
        narrow: impl Fn(u128) -> Option<T>,
    ) -> Result<Runs<T>, TableError> {
        // Line by line: the text is never held whole.
        let lines =
            std::io::BufRead::lines(std::io::BufReader::new(flate2::read::GzDecoder::new(gz)));
        let mut lines = lines.enumerate();
        // The first line says how many runs follow, so that each list is
        // made once at its size (no growing, no spare capacity).
        let count = match lines.next() {
            Some((_, line)) => line?
                .strip_prefix("runs ")
                .and_then(|count| count.parse::<usize>().ok())
                .ok_or(TableError::Line { family, line: 1 })?,
            None => 0,
        };
        let mut runs = Runs {
            starts: Vec::with_capacity(count.min(1 << 22)),
            codes: Vec::with_capacity(count.min(1 << 22)),
            buckets: Vec::new(),
        };
        let mut start: u128 = 0;
        for (at, line) in lines {
            let line = line?;
            let bad = || TableError::Line {
                family,
                line: at + 1,
            };
            let (gap, code) = line.split_once(' ').ok_or_else(bad)?;
            let gap = u128::from_str_radix(gap, 16).map_err(|_| bad())?;
            start = start.checked_add(gap).ok_or_else(bad)?;
            let country = match code {
                "--" => None,
                code => Some(Country::parse(code).ok_or_else(bad)?),
            };
            runs.starts.push(narrow(start).ok_or_else(bad)?);
            runs.codes.push(self.code_of(country)?);
        }
        runs.starts.shrink_to_fit();
        runs.codes.shrink_to_fit();
        runs.index();
        Ok(runs)
    }

    /// The country whose block `address` is in, if the table knows one.
    /// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) is looked up as
    /// IPv4.
    pub fn lookup(&self, address: IpAddr) -> Option<Country> {
        let index = match address.to_canonical() {
            IpAddr::V4(v4) => self.v4.lookup(u32::from(v4)),
            IpAddr::V6(v6) => self.v6.lookup(u128::from(v6)),
        };
        self.codes.get(usize::from(index)).copied().flatten()
    }

    /// The IPv4 runs: each start and its country, in order.
    pub fn ipv4_runs(&self) -> impl Iterator<Item = (std::net::Ipv4Addr, Option<Country>)> + '_ {
        let codes = &self.codes;
        self.v4
            .starts
            .iter()
            .zip(&self.v4.codes)
            .map(move |(start, code)| (std::net::Ipv4Addr::from(*start), codes[usize::from(*code)]))
    }

    /// The IPv6 runs: each start and its country, in order.
    pub fn ipv6_runs(&self) -> impl Iterator<Item = (std::net::Ipv6Addr, Option<Country>)> + '_ {
        let codes = &self.codes;
        self.v6
            .starts
            .iter()
            .zip(&self.v6.codes)
            .map(move |(start, code)| (std::net::Ipv6Addr::from(*start), codes[usize::from(*code)]))
    }

    /// How many runs it holds: IPv4, IPv6.
    pub fn runs_held(&self) -> (usize, usize) {
        (self.v4.starts.len(), self.v6.starts.len())
    }

    /// The bytes its runs take in memory.
    pub fn memory_bytes(&self) -> usize {
        self.v4.starts.capacity() * size_of::<u32>()
            + self.v4.codes.capacity()
            + self.v6.starts.capacity() * size_of::<u128>()
            + self.v6.codes.capacity()
            + (self.v4.buckets.capacity() + self.v6.buckets.capacity()) * size_of::<u32>()
            + self.codes.capacity() * size_of::<Option<Country>>()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn gz(text: &str) -> Vec<u8> {
        let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        out.write_all(text.as_bytes()).expect("written");
        out.finish().expect("finished")
    }

    fn at(table: &CountryTable, address: &str) -> Option<String> {
        table
            .lookup(address.parse().expect("an address"))
            .map(|country| country.to_string())
    }

    #[test]
    fn an_address_takes_the_run_it_falls_in() {
        // 0.0.0.0–0.255.255.255 none, 1.0.0.0–1.0.0.255 AU, 1.0.1.0– none.
        let table = CountryTable::decode(
            &gz("runs 3\n0 --\n1000000 AU\n100 --\n"),
            &gz("runs 3\n0 --\n20010db8000000000000000000000000 FR\n10000000000000000000000 --\n"),
        )
        .expect("decodes");
        assert_eq!(at(&table, "0.1.2.3"), None);
        assert_eq!(at(&table, "1.0.0.0").as_deref(), Some("AU"));
        assert_eq!(at(&table, "1.0.0.255").as_deref(), Some("AU"));
        assert_eq!(at(&table, "1.0.1.0"), None);
        assert_eq!(
            at(&table, "::ffff:1.0.0.7").as_deref(),
            Some("AU"),
            "mapped IPv4"
        );
        assert_eq!(at(&table, "2001:db8::1").as_deref(), Some("FR"));
        assert_eq!(at(&table, "2001:db7::1"), None);
        assert_eq!(table.runs_held(), (3, 3));
    }

    /// The search within a bucket answers as a search of the whole table
    /// would: at each run's start, just before it, and at bucket edges.
    #[test]
    fn the_bucket_index_answers_as_the_whole_table() {
        fn whole<T: Start>(runs: &Runs<T>, address: T) -> u8 {
            let after = runs.starts.partition_point(|&start| start <= address);
            after.checked_sub(1).map_or(0, |run| runs.codes[run])
        }
        let table = built_in();
        let mut checked = 0;
        for (at, &start) in table.v4.starts.iter().enumerate().step_by(7) {
            for address in [
                start.saturating_sub(1),
                start,
                start | 0xffff,
                start & !0xffff,
            ] {
                assert_eq!(
                    table.v4.lookup(address),
                    whole(&table.v4, address),
                    "run {at}"
                );
                checked += 1;
            }
        }
        for (at, &start) in table.v6.starts.iter().enumerate().step_by(7) {
            let edge = u128::MAX >> 16;
            for address in [start.saturating_sub(1), start, start | edge, start & !edge] {
                assert_eq!(
                    table.v6.lookup(address),
                    whole(&table.v6, address),
                    "run {at}"
                );
                checked += 1;
            }
        }
        for address in [0, u32::MAX] {
            assert_eq!(table.v4.lookup(address), whole(&table.v4, address));
        }
        assert!(checked > 100_000, "{checked} addresses checked");
    }

    #[test]
    fn a_table_of_ones_own_runs() {
        let fr = Country::parse("FR");
        let table = CountryTable::from_runs(
            &[
                ("10.0.1.0".parse().expect("an address"), None),
                ("10.0.0.0".parse().expect("an address"), fr),
            ],
            &[],
        )
        .expect("made");
        assert_eq!(at(&table, "10.0.0.9").as_deref(), Some("FR"));
        assert_eq!(at(&table, "10.0.1.9"), None);
        assert_eq!(at(&table, "9.9.9.9"), None, "before the first run");
        assert_eq!(at(&table, "2001:db8::1"), None);
        assert_eq!(
            format!("{table:?}"),
            "CountryTable { runs: (2, 0), countries: 1 }"
        );
    }

    #[test]
    fn a_bad_table_says_which_line() {
        let error = CountryTable::decode(&gz("runs 2\n0 --\nzz AU\n"), &gz("")).expect_err("bad");
        assert_eq!(
            error.to_string(),
            "line 3 of the IPv4 country table is not `GAP CC` (the first: `runs N`)"
        );
        let error =
            CountryTable::decode(&gz("runs 2\n0 --\n100000000 AU\n"), &gz("")).expect_err("bad");
        assert!(error.to_string().contains("line 3"), "beyond IPv4: {error}");
        let error = CountryTable::decode(&gz("0 --\n"), &gz("")).expect_err("bad");
        assert!(error.to_string().contains("line 1"), "no count: {error}");
        assert!(CountryTable::decode(b"not gzip", &gz("")).is_err());
    }

    #[test]
    fn the_built_in_table_knows_well_known_blocks() {
        let table = built_in();
        let (v4, v6) = table.runs_held();
        assert!(v4 > 100_000 && v6 > 100_000, "{v4} and {v6} runs");
        // Rows of the package's files (APNIC's 1.0.0.0/24 in Australia,
        // 2001:b08::/32 in Russia), and the documentation and loopback
        // blocks, which no country holds (the package puts 2001:db8::/32
        // in Japan; the refresh script takes it out).
        assert_eq!(at(table, "1.0.0.1").as_deref(), Some("AU"));
        assert_eq!(at(table, "2001:b08::1").as_deref(), Some("RU"));
        assert_eq!(at(table, "192.0.2.1"), None);
        assert_eq!(at(table, "2001:db8::1"), None);
        assert_eq!(at(table, "127.0.0.1"), None);
        assert!(
            table.memory_bytes() < 8 << 20,
            "{} bytes",
            table.memory_bytes()
        );
    }
}

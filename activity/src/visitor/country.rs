//! The country a visitor-day is counted under: an ISO 3166-1 two-letter
//! code, nothing finer (no region, city or network operator), or none when
//! the address is in no known country's block. [`crate::visitor::countries`] finds
//! it from the address before the address is cut (SPEC §2).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A two-letter country code, `A`–`Z` both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Country([u8; 2]);

/// The table's codes outside ISO 3166-1's current list, named here.
const NAMED_HERE: [(&str, &str); 3] = [
    ("XK", "Kosovo"),
    ("AN", "Netherlands Antilles"),
    ("EU", "European Union"),
];

impl Country {
    /// Reads a code: exactly two ASCII letters, upper case.
    pub fn parse(code: &str) -> Option<Self> {
        match code.as_bytes() {
            &[a, b] if a.is_ascii_uppercase() && b.is_ascii_uppercase() => Some(Self([a, b])),
            _ => None,
        }
    }

    /// The code, e.g. `FR`.
    pub fn as_str(&self) -> &str {
        // Two ASCII letters, checked when made.
        std::str::from_utf8(&self.0).unwrap_or("??")
    }

    /// The country's English name from ISO 3166-1 (`France`), if the list
    /// (or this file, for a few codes registries use outside it) has it.
    pub fn name(&self) -> Option<&'static str> {
        let code = self.as_str();
        if let Some((_, name)) = NAMED_HERE.iter().find(|(known, _)| *known == code) {
            return Some(name);
        }
        isocountry::CountryCode::for_alpha2(code)
            .ok()
            .map(|country| country.name())
    }
}

impl fmt::Display for Country {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Country {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Country {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::parse(&text).ok_or_else(|| {
            serde::de::Error::custom("a country is two upper-case letters (ISO 3166-1)")
        })
    }
}

/// The words for "no country known", wherever a country is written.
pub const UNKNOWN: &str = "unknown";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_two_upper_case_letters() {
        assert_eq!(
            Country::parse("FR").map(|c| c.to_string()),
            Some("FR".into())
        );
        for bad in ["fr", "F", "FRA", "F1", "", "ÉT"] {
            assert_eq!(Country::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_country_has_its_name() {
        let name = |code: &str| Country::parse(code).expect("a code").name();
        assert_eq!(name("FR"), Some("France"));
        assert_eq!(name("XK"), Some("Kosovo"));
        assert_eq!(name("JP"), Some("Japan"));
        assert_eq!(name("QQ"), None, "not a country");
    }

    #[test]
    fn it_travels_as_its_code() {
        let fr = Country::parse("FR").expect("a code");
        assert_eq!(serde_json::to_string(&fr).expect("json"), r#""FR""#);
        assert_eq!(serde_json::from_str::<Country>(r#""FR""#).ok(), Some(fr));
        assert!(serde_json::from_str::<Country>(r#""Paris""#).is_err());
    }
}

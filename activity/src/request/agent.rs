//! What a user agent claims to be, read as far as the consistency signs
//! need (`request::consistency`): a Chromium, a Firefox or a Safari, its
//! major version, the platform and phone it names, and whether it names
//! nothing else.
//!
//! An agent is a list of products (`Chrome/131.0.0.0`, a bare `Mobile`)
//! and comments in parentheses (the first one names the platform). An agent
//! with a product this file does not know (an in-app browser's, Electron's,
//! a WebView's `Version/4.0`) is not [`plain`](Claim::plain): its app may
//! change its requests, so it is never held to sending a header, only to
//! what it does send agreeing with its name.
//!
//! Read from the text alone, without allocating; nothing of it is kept.

/// The browser family an agent names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Chrome and every browser built on Chromium that names `Chrome/N`
    /// (Edge, Opera, Brave, Vivaldi, Samsung Internet, Yandex, WebView, …).
    Chromium,
    /// Firefox on a desktop or Android (not Firefox for iOS, a WebKit).
    Firefox,
    /// Safari on macOS, iOS or iPadOS.
    Safari,
}

/// The platform an agent (or a client hint) names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// Windows.
    Windows,
    /// macOS.
    MacOs,
    /// Linux (a desktop, or an Android asking for a desktop site).
    Linux,
    /// Android.
    Android,
    /// ChromeOS (`CrOS`, `Chrome OS`, `Chromium OS`).
    ChromeOs,
    /// iOS or iPadOS.
    Ios,
}

impl Platform {
    /// The platform a `Sec-CH-UA-Platform` value names (`"Windows"`), or
    /// `None` for `"Unknown"`, one we do not know, or a value that is not one.
    pub fn of_hint(value: &str) -> Option<Self> {
        match value.trim().trim_matches('"') {
            "Windows" => Some(Self::Windows),
            "macOS" => Some(Self::MacOs),
            "Linux" => Some(Self::Linux),
            "Android" => Some(Self::Android),
            "Chrome OS" | "Chromium OS" => Some(Self::ChromeOs),
            "iOS" => Some(Self::Ios),
            _ => None,
        }
    }

    /// Whether an agent naming `self` may send a hint naming `hint`: the
    /// same platform, or a desktop Linux agent from an Android or a
    /// ChromeOS (a phone or tablet asking for the desktop site sends a
    /// desktop agent and keeps its platform hint; Samsung DeX does too).
    pub fn agrees_with(self, hint: Self) -> bool {
        self == hint || (self == Self::Linux && matches!(hint, Self::Android | Self::ChromeOs))
    }

    /// The platform named in an agent's first comment.
    fn of_comment(comment: &str) -> Option<Self> {
        if comment.contains("Android") {
            Some(Self::Android)
        } else if comment.contains("Windows") {
            Some(Self::Windows)
        } else if comment.contains("CrOS") {
            Some(Self::ChromeOs)
        } else if comment.contains("iPhone") || comment.contains("iPad") {
            Some(Self::Ios)
        } else if comment.contains("Macintosh") || comment.contains("Mac OS X") {
            Some(Self::MacOs)
        } else if comment.contains("Linux") {
            Some(Self::Linux)
        } else {
            None
        }
    }
}

/// What an agent claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The family.
    pub family: Family,
    /// The major version (`Chrome/131` → 131; Safari's `Version/16.4` → 16).
    pub major: u32,
    /// The minor version (Safari's `16.4` → 4; 0 when there is none).
    pub minor: u32,
    /// It names no product but its family's own (and, for a Chromium,
    /// Edge's, Opera's or Samsung Internet's): a browser as its maker ships it.
    pub plain: bool,
    /// An Android WebView (`; wv)`): an app's page, whose app may set its
    /// agent and make its requests itself.
    pub webview: bool,
    /// It names Opera on Android (which sends no client hints).
    pub opera_android: bool,
    /// It carries the `Mobile` product (a phone's agent).
    pub mobile: bool,
    /// The platform its first comment names.
    pub platform: Option<Platform>,
}

/// The products a plain Chromium agent may name besides `Chrome`.
const CHROMIUM_PRODUCTS: [&str; 7] = [
    "Mozilla",
    "AppleWebKit",
    "Chrome",
    "Safari",
    "Mobile",
    "Edg",
    "OPR",
];
/// Samsung Internet names itself before `Chrome/`; plain too.
const SAMSUNG: &str = "SamsungBrowser";
/// The products a plain Firefox agent names.
const FIREFOX_PRODUCTS: [&str; 3] = ["Mozilla", "Gecko", "Firefox"];
/// The products a plain Safari agent names.
const SAFARI_PRODUCTS: [&str; 5] = ["Mozilla", "AppleWebKit", "Version", "Safari", "Mobile"];
/// Products that make a WebKit agent something other than Safari.
const NOT_SAFARI: [&str; 6] = ["Chrome", "Chromium", "CriOS", "FxiOS", "EdgiOS", "OPiOS"];

/// What `agent` claims, or `None` when it names no Chromium, Firefox or
/// Safari whose version can be read (such an agent is never held to a
/// header).
pub fn claim(agent: &str) -> Option<Claim> {
    let mut chrome = None;
    let (mut firefox, mut gecko, mut safari, mut version, mut webkit) =
        (None, false, false, None, false);
    let (mut mobile, mut opera, mut not_safari) = (false, false, false);
    let (mut chromium_plain, mut firefox_plain, mut safari_plain) = (true, true, true);
    let mut first_comment = None;
    for part in parts(agent) {
        let name = match part {
            Part::Comment(text) => {
                first_comment.get_or_insert(text);
                continue;
            }
            Part::Product(name, value) => {
                match name {
                    "Chrome" => chrome = chrome.or(value),
                    "Firefox" => firefox = firefox.or(value),
                    "Gecko" => gecko = true,
                    "Safari" => safari = true,
                    "Version" => version = version.or(value),
                    "AppleWebKit" => webkit = true,
                    "Mobile" => mobile = true,
                    "OPR" => opera = true,
                    _ => {}
                }
                not_safari |= NOT_SAFARI.contains(&name);
                name
            }
        };
        chromium_plain &= CHROMIUM_PRODUCTS.contains(&name) || name == SAMSUNG;
        firefox_plain &= FIREFOX_PRODUCTS.contains(&name);
        safari_plain &= SAFARI_PRODUCTS.contains(&name);
    }
    let comment = first_comment.unwrap_or_default();
    let platform = Platform::of_comment(comment);
    let webview = comment.ends_with("; wv") || comment.contains("; wv;");
    let (family, number, plain) = if let Some(number) = chrome {
        (Family::Chromium, number, chromium_plain && !webview)
    } else if let (Some(number), true) = (firefox, gecko) {
        (Family::Firefox, number, firefox_plain)
    } else if let (Some(number), true, true, false) = (version, safari, webkit, not_safari) {
        (Family::Safari, number, safari_plain)
    } else {
        return None;
    };
    let (major, minor) = version_of(number)?;
    Some(Claim {
        family,
        major,
        minor,
        plain,
        webview,
        opera_android: opera && platform == Some(Platform::Android),
        mobile,
        platform,
    })
}

/// `131.0.6778.85` → (131, 0); `16.4` → (16, 4); `17` → (17, 0).
pub fn version_of(text: &str) -> Option<(u32, u32)> {
    let mut numbers = text.split('.');
    let number = |part: Option<&str>| -> Option<u32> {
        let digits = part?;
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        digits.get(..end).filter(|d| !d.is_empty())?.parse().ok()
    };
    let major = number(numbers.next())?;
    Some((major, number(numbers.next()).unwrap_or(0)))
}

/// One part of an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part<'a> {
    /// `Name/version` (version `None` for a bare `Mobile`).
    Product(&'a str, Option<&'a str>),
    /// The text inside one pair of parentheses.
    Comment(&'a str),
}

/// The parts of an agent, left to right.
fn parts(agent: &str) -> impl Iterator<Item = Part<'_>> {
    let mut rest = agent;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if let Some(inner) = rest.strip_prefix('(') {
            let mut depth = 1usize;
            let end = inner.char_indices().find_map(|(at, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(at)
            });
            let end = end.unwrap_or(inner.len());
            let comment = &inner[..end];
            rest = inner.get(end + 1..).unwrap_or_default();
            return Some(Part::Comment(comment));
        }
        if rest.is_empty() {
            return None;
        }
        let end = rest.find([' ', '(']).unwrap_or(rest.len());
        let (token, after) = rest.split_at(end);
        rest = after;
        Some(match token.split_once('/') {
            Some((name, value)) => Part::Product(name, Some(value)),
            None => Part::Product(token, None),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromium_agents_name_their_version_platform_and_phone() {
        let chrome = claim(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        );
        assert_eq!(
            chrome,
            Some(Claim {
                family: Family::Chromium,
                major: 131,
                minor: 0,
                plain: true,
                webview: false,
                opera_android: false,
                mobile: false,
                platform: Some(Platform::Windows),
            })
        );
        let phone = claim(
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        );
        assert!(
            phone.is_some_and(|c| c.mobile && c.plain && c.platform == Some(Platform::Android))
        );
        let samsung = claim(
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
        );
        assert!(samsung.is_some_and(|c| c.plain && c.major == 125));
        let webview = claim(
            "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.81 Mobile Safari/537.36",
        );
        assert!(webview.is_some_and(|c| c.webview && !c.plain));
        let electron = claim(
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Electron/33.0.0 Safari/537.36",
        );
        assert!(electron.is_some_and(|c| !c.plain && c.family == Family::Chromium));
        let opera = claim(
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 OPR/85.0.0.0",
        );
        assert!(opera.is_some_and(|c| c.opera_android && c.plain));
    }

    #[test]
    fn firefox_and_safari_are_told_from_their_look_alikes() {
        let firefox =
            claim("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0");
        assert!(firefox.is_some_and(|c| c.family == Family::Firefox && c.major == 140 && c.plain));
        let pale_moon = claim(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:102.0) Gecko/20100101 Goanna/6.5 Firefox/102.0 PaleMoon/33.0",
        );
        assert!(pale_moon.is_some_and(|c| !c.plain));
        let safari = claim(
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.4 Safari/605.1.15",
        );
        assert!(safari.is_some_and(|c| c.family == Family::Safari
            && (c.major, c.minor) == (16, 4)
            && c.plain
            && c.platform == Some(Platform::MacOs)));
        let ios = claim(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
        );
        assert!(ios.is_some_and(|c| c.plain && c.platform == Some(Platform::Ios)));
        // Chrome and Firefox on iOS are WebKit under another name: neither
        // is a Safari, and neither names a version a rule could hold them to.
        assert_eq!(
            claim(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1"
            ),
            None
        );
        assert_eq!(
            claim(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/131.0 Mobile/15E148 Safari/605.1.15"
            ),
            None
        );
        // An in-app browser on iOS names no Version: nothing to hold it to.
        assert_eq!(
            claim(
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/470.0]"
            ),
            None
        );
        assert_eq!(claim("curl/8.5.0"), None);
        assert_eq!(claim(""), None);
        assert_eq!(claim("Mozilla/5.0 (unclosed"), None);
    }

    #[test]
    fn versions_and_hint_platforms_read() {
        assert_eq!(version_of("131.0.6778.85"), Some((131, 0)));
        assert_eq!(version_of("16.4"), Some((16, 4)));
        assert_eq!(version_of("x"), None);
        assert_eq!(Platform::of_hint("\"Chrome OS\""), Some(Platform::ChromeOs));
        assert_eq!(Platform::of_hint("\"Unknown\""), None);
        assert!(Platform::Linux.agrees_with(Platform::Android));
        assert!(!Platform::Windows.agrees_with(Platform::Linux));
    }
}

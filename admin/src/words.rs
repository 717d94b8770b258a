//! Small helpers for the words the tab shows: counts with their nouns in
//! the right number, "none" for nothing, a sentence's capital; and the
//! settings a sentence names, as its reader sets them ([`Setting`]).

use crate::model::Host;

/// A setting the tab tells its reader to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    /// Count this machine's visits as people.
    OwnReadsAsPeople,
    /// Trust the proxy on this machine.
    TrustedProxy,
    /// Name the funnel's steps.
    Funnel,
    /// Set an admin password.
    Password,
}

impl Setting {
    /// The setting as the reader writes it: the binary's flag, or the
    /// builder's call in an embedding app.
    pub(crate) fn as_set(self, host: Host) -> &'static str {
        match (self, host) {
            (Self::OwnReadsAsPeople, Host::Binary) => "--own-address none",
            (Self::OwnReadsAsPeople, Host::Embedded) => {
                ".rules(RulesConfig { loopback_is_self: false, ..RulesConfig::default() })"
            }
            (Self::TrustedProxy, Host::Binary) => "--trusted-proxy 127.0.0.1",
            (Self::TrustedProxy, Host::Embedded) => ".trusted_proxies([\"127.0.0.1/32\".parse()?])",
            (Self::Funnel, Host::Binary) => {
                "--funnel-step landing=/ --funnel-step pricing=/pricing --funnel-step signup=/signup,/signup/done"
            }
            (Self::Funnel, Host::Embedded) => {
                ".funnel([\"landing=/\".parse()?, \"pricing=/pricing\".parse()?, \"signup=/signup,/signup/done\".parse()?])"
            }
            (Self::Password, Host::Binary) => "--admin-password-file",
            (Self::Password, Host::Embedded) => ".admin_password(…)",
        }
    }

    /// How the reader is told to set it: "serve with", "build with".
    pub(crate) fn verb(host: Host) -> &'static str {
        match host {
            Host::Binary => "serve with",
            Host::Embedded => "set up whocomes with",
        }
    }
}

/// `n` with its noun, singular or plural: `1 hit`, `3 hits`.
pub(crate) fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` of `n`, or "none" when there are none.
pub(crate) fn none_or(n: u64, text: impl FnOnce(u64) -> String) -> String {
    if n == 0 { "none".to_owned() } else { text(n) }
}

/// `text` with its first letter in capitals.
pub(crate) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary's words name flags; an embedding app's never do.
    #[test]
    fn each_host_reads_its_own_settings() {
        for setting in [
            Setting::OwnReadsAsPeople,
            Setting::TrustedProxy,
            Setting::Funnel,
            Setting::Password,
        ] {
            assert!(
                setting.as_set(Host::Binary).starts_with("--"),
                "{setting:?}"
            );
            assert!(
                setting.as_set(Host::Embedded).starts_with('.'),
                "{setting:?}"
            );
        }
    }

    #[test]
    fn plurals_none_and_capitals() {
        assert_eq!(counted(1, "hit", "hits"), "1 hit");
        assert_eq!(counted(0, "hit", "hits"), "0 hits");
        assert_eq!(counted(2, "person", "people"), "2 people");
        assert_eq!(none_or(0, |n| n.to_string()), "none");
        assert_eq!(none_or(3, |n| format!("{n} lost")), "3 lost");
        assert_eq!(capitalised("none refused"), "None refused");
        assert_eq!(capitalised(""), "");
    }
}

//! Where a Cosmos DB store is: the `cosmos+https://ACCOUNT.documents.azure.com/?database=…&container=…`
//! URL read into its parts, and where its key comes from (the environment
//! or a file, never the URL). Neither the URL's key nor the key itself is
//! ever put in an error: errors name the part that is wrong.

use std::path::PathBuf;

use activity::store::StoreError;

/// The variable that holds the account key.
pub const KEY_VARIABLE: &str = "WHOCOMES_COSMOS_KEY";
/// The variable that names a file holding the account key.
pub const KEY_FILE_VARIABLE: &str = "WHOCOMES_COSMOS_KEY_FILE";

/// A Cosmos DB store's address, read from its URL.
#[derive(Clone, PartialEq, Eq)]
pub struct Location {
    /// `https://ACCOUNT.documents.azure.com/`, or `emulator` for the SDK's
    /// in-memory emulator (`cosmos+emulator://NAME/…`, tests only).
    pub endpoint: Endpoint,
    /// The database (created when missing).
    pub database: String,
    /// The container (created with its partition key when missing).
    pub container: String,
    /// The key file named in the URL (`key_file=PATH`), if any.
    pub key_file: Option<PathBuf>,
}

/// Which account a URL names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A real account's `https://…` address.
    Account(String),
    /// The SDK's in-memory emulator, one per name within a process.
    Emulator(String),
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Location({})", self.describe())
    }
}

impl Location {
    /// Whether `url` names a Cosmos DB store (`cosmos+https://` or `cosmos+emulator://`).
    pub fn is_cosmos(url: &str) -> bool {
        url.starts_with("cosmos+https://") || url.starts_with("cosmos+emulator://")
    }

    /// Reads a store URL.
    pub fn parse(url: &str) -> Result<Self, StoreError> {
        let invalid = |why: &str| StoreError::Unavailable(format!("the Cosmos DB URL {why}"));
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| invalid("must start with cosmos+https://"))?;
        let (host, query) = rest.split_once('?').unwrap_or((rest, ""));
        let host = host.trim_end_matches('/');
        if host.is_empty() || host.contains(['/', '@', ' ']) {
            return Err(invalid("needs an account host and nothing else before `?`"));
        }
        let endpoint = match scheme {
            "cosmos+https" => Endpoint::Account(format!("https://{host}/")),
            "cosmos+emulator" => Endpoint::Emulator(host.to_owned()),
            _ => return Err(invalid("must start with cosmos+https://")),
        };
        let (mut database, mut container, mut key_file) = (None, None, None);
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| invalid("has a value that is not UTF-8"))?
                .into_owned();
            match name {
                "database" => database = Some(value),
                "container" => container = Some(value),
                "key_file" => key_file = Some(PathBuf::from(value)),
                "key" | "accountkey" | "AccountKey" => {
                    return Err(invalid(&format!(
                        "must not hold the key: set {KEY_VARIABLE} or {KEY_FILE_VARIABLE}"
                    )));
                }
                _ => return Err(invalid(&format!("has an unknown setting `{name}`"))),
            }
        }
        let name_ok = |name: &str| {
            !name.is_empty()
                && name.len() <= 255
                && !name.contains(['/', '\\', '?', '#'])
                && !name.ends_with(' ')
        };
        let database = database
            .filter(|name| name_ok(name))
            .ok_or_else(|| invalid("needs database=NAME"))?;
        let container = container
            .filter(|name| name_ok(name))
            .ok_or_else(|| invalid("needs container=NAME"))?;
        Ok(Self {
            endpoint,
            database,
            container,
            key_file,
        })
    }

    /// Where it is, in words for the signed-in admin (no key, ever).
    pub fn describe(&self) -> String {
        let account = match &self.endpoint {
            Endpoint::Account(url) => url
                .trim_start_matches("https://")
                .trim_end_matches('/')
                .to_owned(),
            Endpoint::Emulator(name) => format!("the SDK's in-memory emulator `{name}`"),
        };
        format!(
            "{account}, database {}, container {}",
            self.database, self.container
        )
    }

    /// The account key: from the key file the URL names, else from
    /// `WHOCOMES_COSMOS_KEY_FILE`, else `WHOCOMES_COSMOS_KEY`.
    pub fn key(&self) -> Result<String, StoreError> {
        let file = self.key_file.clone().or_else(|| {
            std::env::var_os(KEY_FILE_VARIABLE)
                .filter(|path| !path.is_empty())
                .map(PathBuf::from)
        });
        let key = match file {
            Some(path) => std::fs::read_to_string(&path).map_err(|error| {
                StoreError::Unavailable(format!(
                    "cannot read the Cosmos DB key file {}: {}",
                    path.display(),
                    error.kind()
                ))
            })?,
            None => std::env::var(KEY_VARIABLE).unwrap_or_default(),
        };
        let key = key.trim().to_owned();
        if key.is_empty() {
            return Err(StoreError::Unavailable(format!(
                "no Cosmos DB key: set {KEY_VARIABLE}, {KEY_FILE_VARIABLE} or key_file= in the URL"
            )));
        }
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_account_url() {
        let location = Location::parse(
            "cosmos+https://shop.documents.azure.com/?database=site&container=activity",
        )
        .expect("a valid URL");
        assert_eq!(
            location.endpoint,
            Endpoint::Account("https://shop.documents.azure.com/".to_owned())
        );
        assert_eq!(
            (location.database.as_str(), location.container.as_str()),
            ("site", "activity")
        );
        assert_eq!(
            location.describe(),
            "shop.documents.azure.com, database site, container activity"
        );
    }

    #[test]
    fn refuses_a_key_in_the_url_without_repeating_it() {
        let error = Location::parse(
            "cosmos+https://shop.documents.azure.com/?database=a&container=b&key=SECRETKEY",
        )
        .expect_err("a key in the URL is refused");
        assert!(!error.to_string().contains("SECRETKEY"), "{error}");
        assert!(error.to_string().contains(KEY_VARIABLE), "{error}");
    }

    #[test]
    fn says_what_is_missing() {
        for (url, says) in [
            (
                "cosmos+https://a.documents.azure.com/?container=b",
                "database",
            ),
            (
                "cosmos+https://a.documents.azure.com/?database=b",
                "container",
            ),
            ("cosmos+https:///?database=a&container=b", "account host"),
            ("cosmos+ftp://a/?database=a&container=b", "cosmos+https"),
            ("cosmos+https://a/x?database=a&container=b", "account host"),
            (
                "cosmos+https://a/?database=a&container=b&colour=red",
                "colour",
            ),
            ("cosmos+https://a/?database=a/b&container=b", "database"),
        ] {
            let error = Location::parse(url).expect_err(url);
            assert!(error.to_string().contains(says), "{url}: {error}");
        }
    }
}

//! [`Checked::build`]: starting what [`Builder::check`](crate::Builder::check)
//! passed. Under the data folder's start lock (two servers started at once
//! on a fresh folder do not both make keys or run migrations), it leaves
//! this server's `serving-PID` mark, makes or loads the keys, and opens the
//! store; then the read stores, the writer (with a journal in the data
//! folder for a remote store), the tab and the monitors' address. Without its keys (a folder that cannot be written) the site
//! serves on, counting nothing, and says why once, in the log, on the tab
//! and at `/ready`.

use std::sync::Arc;

use activity::Counter;
use activity::store::{ActivityStore, NullStore};
use admin::server::{Admin, AdminConfig, ConnectionStats};

use crate::check::Checked;
use crate::site::Whocomes;
use crate::{BuildError, data_folder, keys, monitors};

/// The journal of what is held for a remote store while it fails: a file
/// of the data folder named after the store (`journal-NAME.json`). A
/// SQLite store is its own file beside it: none.
fn journal_of(
    url: &str,
    data_dir: &std::path::Path,
    name: &activity::StoreName,
    recorder: &activity::recording::RecorderConfig,
) -> Option<activity::recording::Journal> {
    let remote = !matches!(
        crate::stores::StoreKind::of(url),
        Some(crate::stores::StoreKind::Sqlite) | None
    );
    remote.then(|| {
        activity::recording::Journal::new(
            data_dir.join(format!("journal-{name}.json")),
            recorder.max_journal_bytes,
        )
    })
}

impl Checked {
    /// Makes or loads the keys, opens the stores (a store that cannot be
    /// reached now is tried again while the site serves), starts the
    /// writer and, if asked, the monitors' address (needs a Tokio runtime).
    pub async fn build(self) -> Result<Whocomes, BuildError> {
        let start_lock = data_folder::lock(&self.data_dir).await;
        let serving = match &start_lock {
            Ok(_) => data_folder::Serving::begin(&self.data_dir, self.recorder.flush_every),
            Err(reason) => {
                tracing::warn!(%reason, "the data folder cannot be written");
                None
            }
        };
        let site_keys = match keys::live_keys(self.key_scheme, self.seed, Some(&self.data_dir)) {
            Ok(Some(site)) => Ok(site),
            Ok(None) => Err("not counting: no keys were made".to_owned()),
            Err(error) => Err(format!("not counting: {error:#}")),
        };
        if let Err(reason) = &site_keys {
            tracing::error!("{reason}; the site is served all the same");
        }
        let name = self.store_name;
        let store: Arc<dyn ActivityStore> = match &site_keys {
            Err(reason) => Arc::new(NullStore::new(name.clone(), reason.clone())),
            Ok(_) => crate::stores::open(&self.store_url, name.clone(), self.retention).await,
        };
        let mut read_stores = Vec::with_capacity(self.read_stores.len());
        for (read_name, url) in self.read_stores {
            read_stores.push(crate::stores::open(&url, read_name, self.retention).await);
        }
        let availability = store.availability().await;
        tracing::info!(store = %store.name(), available = availability.available, "{}; {}", availability.reason, availability.retention);
        let (keys, kept) = match site_keys {
            Ok(site) => (Some(site.keys), site.kept),
            Err(_) => (None, None),
        };
        let counting = match keys {
            Some(keys) if self.counting => {
                let counter = Counter::with_keys(self.rules, keys, self.proxies, name.clone());
                let journal = journal_of(&self.store_url, &self.data_dir, &name, &self.recorder)
                    .filter(|_| start_lock.is_ok());
                Some(activity::recording::start_journaled(
                    counter,
                    store.clone(),
                    self.recorder,
                    journal,
                ))
            }
            Some(_) => {
                tracing::warn!("counting is off: nothing is counted");
                None
            }
            None => None,
        };
        drop(start_lock);
        let (layer, writer) = counting.unzip();
        let connections = Arc::new(ConnectionStats::default());
        if self.tab.password.is_none() {
            tracing::info!("no admin password: the visitor table stays closed");
        }
        let stores: Vec<_> = std::iter::once(store.clone())
            .chain(read_stores.iter().cloned())
            .collect();
        #[cfg(feature = "notify")]
        let notices = (!self.notify.channels.is_empty()).then(Default::default);
        #[cfg(not(feature = "notify"))]
        let notices = None;
        let admin = Admin::new(AdminConfig {
            stores,
            recorder: writer
                .as_ref()
                .map(activity::recording::WriterHandle::stats),
            connections: Some(connections.clone()),
            notices,
            day_keys: kept.as_ref().map(|kept| kept.keys.clone()),
            ..self.tab
        })?;
        tokio::spawn({
            let admin = admin.clone();
            async move { admin.warm_up().await }
        });
        #[cfg(feature = "notify")]
        let notifying = crate::notify::start(self.notify, admin.clone(), store.clone());
        #[cfg(not(feature = "notify"))]
        let notifying = None;
        let monitors = match self.metrics_addr {
            Some(addr) => monitors::listen(addr, &admin, &self.limits).await,
            None => None,
        };
        Ok(Whocomes {
            layer,
            writer,
            admin,
            store,
            read_stores,
            connections,
            limits: self.limits,
            monitors,
            turning: kept.map(keys::KeptDayKeys::keep_turning),
            notifying,
            serving,
        })
    }
}

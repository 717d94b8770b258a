//! The exports for an app's own code: what `whocomes export` writes and the
//! tab's download links serve, as a stream of bytes a page of rows at a
//! time — for a route of the app's (axum's `Body::from_stream`), a backup
//! job or a file. It holds a page or two however big the store.

use chrono::NaiveDate;
use futures::Stream;

pub use reading::{ExportError, ExportFormat, Rows};

use crate::Whocomes;

impl Whocomes {
    /// Every store's `rows` from `since` on (to `until`, both included,
    /// when given) as `format`, one chunk of bytes per page of rows: the
    /// CSV header or JSON's `[` comes with the first, the end with the
    /// last. A store that cannot be read ends the stream with the error
    /// (after the chunks already read). Dropping the stream stops the
    /// reading.
    ///
    /// ```no_run
    /// # async fn app(whocomes: whocomes::Whocomes) -> Result<(), Box<dyn std::error::Error>> {
    /// use futures::StreamExt as _;
    /// use whocomes::export::{ExportFormat, Rows};
    ///
    /// let since = chrono::Utc::now().date_naive() - chrono::Days::new(7);
    /// let mut export = Box::pin(whocomes.export(Rows::Hours, ExportFormat::Csv, since, None));
    /// while let Some(chunk) = export.next().await {
    ///     std::io::Write::write_all(&mut std::io::stdout(), &chunk?)?;
    /// }
    /// # Ok(()) }
    /// ```
    pub fn export(
        &self,
        rows: Rows,
        format: ExportFormat,
        since: NaiveDate,
        until: Option<NaiveDate>,
    ) -> impl Stream<Item = Result<Vec<u8>, ExportError>> + Send + 'static {
        let (chunks, received) = tokio::sync::mpsc::channel::<Vec<u8>>(2);
        let reading = self.admin.reading().clone();
        let writing = tokio::spawn(async move {
            reading
                .export_pages(rows, format, since, until, chunks)
                .await
        });
        futures::stream::unfold(
            (received, Some(writing)),
            |(mut received, writing)| async move {
                if let Some(chunk) = received.recv().await {
                    return Some((Ok(chunk), (received, writing)));
                }
                // Every chunk is out: the reading's end says whether all was.
                let ended = writing?.await.unwrap_or_else(|error| {
                    Err(ExportError::Io(std::io::Error::other(error.to_string())))
                });
                ended.err().map(|error| (Err(error), (received, None)))
            },
        )
    }
}

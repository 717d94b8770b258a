//! The page's own files, compressed once: at start, each stylesheet, script,
//! wasm bundle and SVG under the site's `pkg/` folder gets a `.br` (brotli)
//! and a `.gz` (gzip) beside it, unless one newer than the file is there
//! already. `ServeDir` then sends the smallest variant a browser accepts, so
//! no request pays for compressing. Runs on the blocking pool in the
//! background; until it is done (or if the folder cannot be written) the
//! files go out as they are, and the log says so.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// The kinds of files worth compressing (images and fonts already are).
const EXTENSIONS: [&str; 5] = ["css", "js", "wasm", "svg", "json"];

/// Above this size brotli's top quality costs seconds (a debug wasm bundle
/// is several MB): such files get a quicker quality.
const TOP_QUALITY_UP_TO: u64 = 4 << 20;

/// What one pass did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Compressed {
    /// Files given fresh `.br` and `.gz` copies.
    pub files: usize,
    /// Files whose copies were already current.
    pub current: usize,
    /// Their bytes as they are.
    pub raw_bytes: u64,
    /// The same as brotli.
    pub brotli_bytes: u64,
}

/// Compresses every file worth it under `folder` (not below it). A file
/// that cannot be read or written is an error naming it; what was done
/// before stays.
pub fn folder(folder: &Path) -> io::Result<Compressed> {
    let mut done = Compressed::default();
    let mut files: Vec<PathBuf> = fs::read_dir(folder)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| EXTENSIONS.contains(&e))
        })
        .collect();
    files.sort();
    for file in files {
        let source = fs::metadata(&file)?;
        let br = with_suffix(&file, "br");
        let gz = with_suffix(&file, "gz");
        if is_current(&br, &source) && is_current(&gz, &source) {
            done.current += 1;
            continue;
        }
        let bytes = fs::read(&file)?;
        let quality = if source.len() <= TOP_QUALITY_UP_TO {
            11
        } else {
            9
        };
        let brotli = compress_brotli(&bytes, quality)?;
        let gzip = compress_gzip(&bytes)?;
        let modified = source.modified()?;
        write_atomically(&br, &brotli, modified)?;
        write_atomically(&gz, &gzip, modified)?;
        done.files += 1;
        done.raw_bytes += source.len();
        done.brotli_bytes += brotli.len() as u64;
    }
    Ok(done)
}

/// Compresses the site's `pkg/` folder in the background, logging what it did.
pub fn in_background(pkg: PathBuf) {
    if !pkg.is_dir() {
        // A site root without a built bundle (tests, a bare checkout).
        tracing::warn!(
            folder = %pkg.display(),
            "no built site here: pages are served without their script and stylesheet \
             (build one with scripts/build-dev-site, scripts/release or cargo leptos build, or give --site-root)"
        );
        return;
    }
    tokio::task::spawn_blocking(move || match folder(&pkg) {
        Ok(done) if done.files > 0 => tracing::info!(
            files = done.files,
            raw_kib = done.raw_bytes / 1024,
            brotli_kib = done.brotli_bytes / 1024,
            "compressed the page's files once (brotli and gzip beside each)"
        ),
        Ok(_) => {}
        Err(error) => tracing::warn!(
            folder = %pkg.display(),
            %error,
            "cannot compress the page's files; they are sent as they are"
        ),
    });
}

fn with_suffix(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether `copy` exists and is at least as new as the file it was made from.
fn is_current(copy: &Path, source: &fs::Metadata) -> bool {
    match (
        fs::metadata(copy).and_then(|m| m.modified()),
        source.modified(),
    ) {
        (Ok(copy), Ok(source)) => copy >= source,
        _ => false,
    }
}

fn compress_brotli(bytes: &[u8], quality: u32) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() / 3);
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 1 << 16, quality, 22);
        writer.write_all(bytes)?;
        writer.flush()?;
    }
    Ok(out)
}

fn compress_gzip(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(bytes.len() / 3),
        flate2::Compression::best(),
    );
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that
/// a server starting at the same moment never serves half a file. The copy
/// takes the file's own time: every variant then has one `Last-Modified`,
/// and a browser's `If-Modified-Since` gets its 304 whichever it had.
fn write_atomically(path: &Path, bytes: &[u8], modified: std::time::SystemTime) -> io::Result<()> {
    let temporary = with_suffix(path, &format!("part-{}", std::process::id()));
    let written = fs::write(&temporary, bytes)
        .and_then(|()| fs::File::options().write(true).open(&temporary))
        .and_then(|file| file.set_modified(modified))
        .and_then(|()| fs::rename(&temporary, path));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;

    #[test]
    fn each_file_gets_brotli_and_gzip_copies_that_decode_to_it_once() {
        let folder = tempfile::tempdir().expect("a folder");
        let css = "body { color: #222; }\n".repeat(400);
        fs::write(folder.path().join("site.css"), &css).expect("written");
        fs::write(folder.path().join("photo.png"), [0x89, b'P', b'N', b'G']).expect("written");

        let first = super::folder(folder.path()).expect("compresses");
        assert_eq!((first.files, first.current), (1, 0));
        assert!(first.brotli_bytes * 10 < first.raw_bytes, "{first:?}");
        assert!(
            !folder.path().join("photo.png.br").exists(),
            "images are left alone"
        );

        let mut unbrotli = String::new();
        brotli::Decompressor::new(
            fs::File::open(folder.path().join("site.css.br")).expect("a .br"),
            4096,
        )
        .read_to_string(&mut unbrotli)
        .expect("decodes");
        assert_eq!(unbrotli, css);
        let mut ungzip = String::new();
        flate2::read::GzDecoder::new(
            fs::File::open(folder.path().join("site.css.gz")).expect("a .gz"),
        )
        .read_to_string(&mut ungzip)
        .expect("decodes");
        assert_eq!(ungzip, css);

        let time = |name: &str| {
            fs::metadata(folder.path().join(name))
                .and_then(|m| m.modified())
                .expect("a time")
        };
        assert_eq!(time("site.css.br"), time("site.css"));
        assert_eq!(time("site.css.gz"), time("site.css"));
        let again = super::folder(folder.path()).expect("looks again");
        assert_eq!(
            (again.files, again.current),
            (0, 1),
            "current copies are kept"
        );
    }
}

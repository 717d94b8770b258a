//! The digest's chart as a PNG: the tab's own SVG (`admin::chart`, the
//! same code that draws the tab's chart) drawn by resvg at twice its size
//! for sharp screens, with the machine's fonts. A mail carries it inline
//! (`cid:`), never as a link to fetch.

use base64::Engine as _;

/// The width the chart is drawn at, in CSS pixels (it fits a phone's mail
/// view when the client scales it, and a desktop's at its size).
pub const WIDTH: u32 = 600;

/// `svg` as PNG bytes, drawn at twice its size.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    let mut options = resvg::usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    // The chart asks for `sans-serif`: the first of these the machine has.
    let sans = [
        "DejaVu Sans",
        "Liberation Sans",
        "Noto Sans",
        "Arial",
        "Helvetica",
    ]
    .into_iter()
    .find(|family| {
        fonts
            .faces()
            .any(|face| face.families.iter().any(|(name, _)| name == family))
    });
    if let Some(family) = sans {
        fonts.set_sans_serif_family(family);
    }
    let tree = resvg::usvg::Tree::from_str(&admin::chart::as_image(svg), &options)
        .map_err(|error| format!("the chart could not be read: {error}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2)
        .ok_or("the chart has no size")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|error| format!("the chart could not be drawn: {error}"))
}

/// PNG bytes as the record keeps them.
pub fn to_text(png: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(png)
}

/// The PNG bytes of [`to_text`]'s text.
pub fn from_text(text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|error| format!("a kept chart is not base64: {error}"))
}

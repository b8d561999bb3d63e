//! A document's first page as a PNG picture (the workbench's label preview), drawn by
//! hayro, a PDF rasterizer in Rust, so that the workbench shows a label without a PDF viewer.

use hayro::{
    PixmapSettings, RenderCache, RenderSettings, hayro_interpret::InterpreterSettings,
    hayro_syntax::Pdf, render, vello_cpu::color::palette::css::WHITE,
};

use crate::error::{Error, Result};

/// Most pixels a preview has (a page is drawn smaller rather than bigger).
const MAX_PIXELS: f32 = 4_000_000.0;

/// The first page of `pdf`, `width` pixels wide (fewer for a page so large that it would pass
/// `MAX_PIXELS`), on white, as PNG.
pub fn png(pdf: Vec<u8>, width: u16) -> Result<Vec<u8>> {
    let document =
        Pdf::new(pdf).map_err(|e| Error::internal(format!("cannot read the PDF: {e:?}")))?;
    let page = document
        .pages()
        .first()
        .ok_or_else(|| Error::internal("the PDF has no page"))?;
    let (w, h) = page.render_dimensions();
    if !(w > 0.0 && h > 0.0) {
        return Err(Error::internal("the PDF's first page has no size"));
    }
    let mut scale = f32::from(width) / w;
    if w * h * scale * scale > MAX_PIXELS {
        scale = (MAX_PIXELS / (w * h)).sqrt();
    }
    let settings = PixmapSettings {
        x_scale: scale,
        y_scale: scale,
        bg_color: WHITE,
    };
    let pixmap = render(
        page,
        &RenderCache::new(),
        &InterpreterSettings::default(),
        &RenderSettings::default(),
        &settings,
    );
    pixmap
        .into_png()
        .map_err(|e| Error::internal(format!("cannot write the PNG: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carriers::label::{LabelSize, tests::input};

    #[test]
    fn a_label_is_drawn_as_a_png_of_the_width_asked_for() {
        let pdf = crate::carriers::label::render(&input(), LabelSize::Label100x150)
            .unwrap_or_else(|e| panic!("{e}"));
        let png = png(pdf, 400).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
        let height = u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
        assert_eq!(width, 400);
        assert_eq!(height, 600, "a 100 × 150 mm label keeps its shape");
        assert!(
            png.len() > 5_000,
            "the label's text and barcode are drawn: {} bytes",
            png.len()
        );
    }

    #[test]
    fn what_is_no_pdf_is_refused() {
        assert!(png(b"not a pdf".to_vec(), 400).is_err());
    }
}

//! A carrier's label that comes as a picture (UPS sends GIF) made into a one-page PDF of the
//! label's paper, 4 × 6 in (100 × 150 mm), so that it is stored, merged and printed like every
//! other PDF label. A picture wider than tall is turned a quarter so that it fills the page.

use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref};

use crate::error::{Error, Result};

/// The page: 4 × 6 in in points.
const WIDTH: f32 = 288.0;
const HEIGHT: f32 = 432.0;

/// The GIF `bytes` as a PDF label.
pub fn gif_to_pdf(bytes: &[u8]) -> Result<Vec<u8>> {
    let bad =
        |e: gif::DecodingError| Error::Internal(format!("the label picture is not a GIF: {e}"));
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(bytes).map_err(bad)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let frame = decoder
        .read_next_frame()
        .map_err(bad)?
        .ok_or_else(|| Error::Internal("the label GIF has no picture".into()))?;
    // The frame drawn on a white screen of the GIF's size (a frame may cover part of it).
    let mut rgb = vec![255u8; (width * height * 3) as usize];
    let (fw, fh) = (u32::from(frame.width), u32::from(frame.height));
    let (left, top) = (u32::from(frame.left), u32::from(frame.top));
    for y in 0..fh {
        for x in 0..fw {
            let (sx, sy) = (left + x, top + y);
            if sx >= width || sy >= height {
                continue;
            }
            let from = ((y * fw + x) * 4) as usize;
            let Some(px) = frame.buffer.get(from..from + 4) else {
                continue;
            };
            if px[3] == 0 {
                continue;
            }
            let to = ((sy * width + sx) * 3) as usize;
            rgb[to..to + 3].copy_from_slice(&px[..3]);
        }
    }
    Ok(pdf_of(&rgb, width, height))
}

fn pdf_of(rgb: &[u8], width: u32, height: u32) -> Vec<u8> {
    let (catalog, pages, page, contents, image) = (
        Ref::new(1),
        Ref::new(2),
        Ref::new(3),
        Ref::new(4),
        Ref::new(5),
    );
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(pages);
    pdf.pages(pages).kids([page]).count(1);
    let mut p = pdf.page(page);
    p.media_box(Rect::new(0.0, 0.0, WIDTH, HEIGHT))
        .parent(pages)
        .contents(contents);
    p.resources().x_objects().pair(Name(b"Label"), image);
    p.finish();
    let compressed = miniz_oxide::deflate::compress_to_vec_zlib(rgb, 6);
    let mut xobject = pdf.image_xobject(image, &compressed);
    xobject.filter(Filter::FlateDecode);
    xobject.width(i32::try_from(width).unwrap_or(i32::MAX));
    xobject.height(i32::try_from(height).unwrap_or(i32::MAX));
    xobject.color_space().device_rgb();
    xobject.bits_per_component(8);
    xobject.finish();
    let (w, h) = (width as f32, height as f32);
    let mut content = Content::new();
    content.save_state();
    if w > h {
        // A quarter turn: the picture's width runs up the page.
        let scale = (HEIGHT / w).min(WIDTH / h);
        let (along, across) = (w * scale, h * scale);
        let x0 = (WIDTH - across) / 2.0;
        let y0 = (HEIGHT - along) / 2.0;
        content.transform([0.0, along, -across, 0.0, x0 + across, y0]);
    } else {
        let scale = (WIDTH / w).min(HEIGHT / h);
        let (sw, sh) = (w * scale, h * scale);
        content.transform([sw, 0.0, 0.0, sh, (WIDTH - sw) / 2.0, (HEIGHT - sh) / 2.0]);
    }
    content.x_object(Name(b"Label"));
    content.restore_state();
    pdf.stream(contents, &content.finish());
    pdf.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GIF of `width` × `height` pixels, all black.
    fn gif(width: u16, height: u16) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut encoder = gif::Encoder::new(&mut out, width, height, &[0, 0, 0, 255, 255, 255])
                .unwrap_or_else(|e| panic!("{e}"));
            let frame = gif::Frame {
                width,
                height,
                buffer: std::borrow::Cow::Owned(vec![0; usize::from(width) * usize::from(height)]),
                ..gif::Frame::default()
            };
            encoder
                .write_frame(&frame)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        out
    }

    #[test]
    fn a_gif_label_becomes_one_4_by_6_page_whether_it_lies_or_stands() {
        for (w, h) in [(120, 80), (80, 120)] {
            let pdf = gif_to_pdf(&gif(w, h)).unwrap_or_else(|e| panic!("{e}"));
            assert!(pdf.starts_with(b"%PDF-"));
            let doc = lopdf::Document::load_mem(&pdf).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(doc.get_pages().len(), 1);
            let text = String::from_utf8_lossy(&pdf);
            assert!(text.contains("/MediaBox [0 0 288 432]"), "{text}");
        }
        assert!(gif_to_pdf(b"not a gif").is_err());
    }
}

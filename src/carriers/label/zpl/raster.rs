//! Text the printer's font cannot show, drawn here: DejaVu Sans (Bold) rasterized with
//! `ab_glyph` at the field's height in dots, with the font's advances and kerning, anti-aliased
//! coverage thresholded to one bit, and sent as a ZPL graphic field (`^GFA`, hex, uncompressed).

use std::sync::LazyLock;

use ab_glyph::{Font as _, FontRef, GlyphId, PxScale, ScaleFont, point};

use crate::carriers::label::font::{self, Font};

/// A pixel is black when its glyph covers at least this much of it.
const INK: f32 = 0.5;

static FACES: LazyLock<[Option<FontRef<'static>>; 2]> = LazyLock::new(|| {
    [Font::Regular, Font::Bold].map(|f| FontRef::try_from_slice(font::data(f)).ok())
});

fn face(font: Font) -> Option<&'static FontRef<'static>> {
    FACES[font.index()].as_ref()
}

/// Where each character's glyph goes on a line `height` dots tall: `(glyph, x)` with the
/// kerning applied, and the line's advance width.
fn layout(font: Font, height: u32, text: &[char]) -> (Vec<(GlyphId, f32)>, f32) {
    let Some(face) = face(font) else {
        return (Vec::new(), 0.0);
    };
    let scaled = face.as_scaled(PxScale::from(height as f32));
    let mut caret = 0.0;
    let mut previous: Option<GlyphId> = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for &c in text {
        let id = scaled.glyph_id(c);
        if let Some(previous) = previous {
            caret += scaled.kern(previous, id);
        }
        glyphs.push((id, caret));
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
    (glyphs, caret)
}

/// The advance width in dots of `text` set `height` dots tall, kerning included.
pub(super) fn width(font: Font, height: u32, text: &[char]) -> f32 {
    layout(font, height, text).1
}

/// A one-bit image, rows top to bottom, each `bytes_per_row` bytes with the leftmost pixel in
/// the high bit of the first byte; a set bit prints black.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Bitmap {
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

impl Bitmap {
    pub(super) fn new(width: u32, height: u32) -> Bitmap {
        let bytes = vec![0; (width.div_ceil(8) * height) as usize];
        Bitmap {
            width,
            height,
            bytes,
        }
    }

    pub(super) fn bytes_per_row(&self) -> u32 {
        self.width.div_ceil(8)
    }

    pub(super) fn set(&mut self, x: u32, y: u32) {
        if x < self.width && y < self.height {
            let at = (y * self.bytes_per_row() + x / 8) as usize;
            self.bytes[at] |= 0x80 >> (x % 8);
        }
    }

    #[cfg(test)]
    pub(super) fn get(&self, x: u32, y: u32) -> bool {
        let at = (y * self.bytes_per_row() + x / 8) as usize;
        self.bytes[at] & (0x80 >> (x % 8)) != 0
    }

    /// The bitmap as a ZPL graphic field: `^GFA,<total bytes>,<total bytes>,<bytes per row>,`
    /// then two hex digits per byte.
    pub(super) fn graphic_field(&self) -> String {
        use std::fmt::Write;
        let total = self.bytes.len();
        let mut out = String::with_capacity(24 + 2 * total);
        let _ = write!(out, "^GFA,{total},{total},{},", self.bytes_per_row());
        for byte in &self.bytes {
            let _ = write!(out, "{byte:02X}");
        }
        out
    }
}

/// `text` drawn `height` dots tall (the face's ascent to descent) and at most `max_width` dots
/// wide (glyphs past it are cut).
pub(super) fn rasterize(font: Font, height: u32, max_width: u32, text: &[char]) -> Bitmap {
    let (glyphs, advance) = layout(font, height, text);
    let width = (advance.ceil() as u32).clamp(1, max_width.max(1));
    let mut bitmap = Bitmap::new(width, height.max(1));
    let Some(face) = face(font) else {
        return bitmap;
    };
    let scaled = face.as_scaled(PxScale::from(height as f32));
    let baseline = scaled.ascent();
    for (id, x) in glyphs {
        let glyph = id.with_scale_and_position(scaled.scale(), point(x, baseline));
        let Some(outline) = scaled.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outline.px_bounds();
        let (left, top) = (bounds.min.x as i64, bounds.min.y as i64);
        outline.draw(|gx, gy, coverage| {
            let (px, py) = (left + i64::from(gx), top + i64::from(gy));
            if coverage >= INK && px >= 0 && py >= 0 {
                bitmap.set(px as u32, py as u32);
            }
        });
    }
    bitmap
}

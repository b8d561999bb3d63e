//! The label's fonts: DejaVu Sans and DejaVu Sans Bold (static/fonts, Bitstream Vera licence),
//! which cover Latin with Extended-A/B, Greek and Cyrillic. Each PDF embeds only the glyphs it
//! shows (a subset, compressed) as a CID font with a ToUnicode map, so a label stays small and a
//! text extractor reads back exactly what was printed.

use std::{
    borrow::Cow,
    collections::{BTreeMap, BTreeSet},
    sync::LazyLock,
};

use pdf_writer::{
    Filter, Finish, Name, Pdf, Rect, Ref, Str,
    types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap},
    writers::WMode,
};
use subsetter::GlyphRemapper;
use ttf_parser::{Face, GlyphId};

use crate::error::{Error, Result};

/// The two faces labels are drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Font {
    Regular,
    Bold,
}

impl Font {
    pub(super) fn resource(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"F1"),
            Font::Bold => Name(b"F2"),
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            Font::Regular => 0,
            Font::Bold => 1,
        }
    }
}

const SYSTEM_INFO: SystemInfo = SystemInfo {
    registry: Str(b"Adobe"),
    ordering: Str(b"Identity"),
    supplement: 0,
};

/// The font files, as compiled into the binary.
static DATA: LazyLock<[Cow<'static, [u8]>; 2]> = LazyLock::new(|| {
    let load = |path: &str| {
        crate::assets::Assets::get(path)
            .map(|file| file.data)
            .unwrap_or_default()
    };
    [
        load("fonts/DejaVuSans.ttf"),
        load("fonts/DejaVuSans-Bold.ttf"),
    ]
});

/// The font file of `font` (empty only if it were missing from the build).
pub(super) fn data(font: Font) -> &'static [u8] {
    let files: &'static [Cow<'static, [u8]>; 2] = &DATA;
    &files[slot(font)]
}

/// The parsed faces (None only if a font file were missing from the build).
static FACES: LazyLock<[Option<Face<'static>>; 2]> = LazyLock::new(|| {
    let [regular, bold] = &*DATA;
    [Face::parse(regular, 0).ok(), Face::parse(bold, 0).ok()]
});

/// The first character of `text` (in NFC) that would not print as itself on a label or
/// document: one the fonts lack, or a control character. Whitespace prints as a space, and a
/// combining accent left over after NFC is dropped, so neither counts.
pub fn unprintable(text: &str) -> Option<char> {
    use unicode_normalization::UnicodeNormalization;
    // Printable ASCII is in both fonts (`printable_ascii_needs_no_look_up` checks it), and is
    // most names and addresses: no normalization, no glyph look-ups.
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return None;
    }
    text.nfc().find(|&c| {
        !(c.is_whitespace()
            || ('\u{0300}'..='\u{036F}').contains(&c)
            || !c.is_control() && covers(Font::Regular, c) && covers(Font::Bold, c))
    })
}

fn slot(font: Font) -> usize {
    match font {
        Font::Regular => 0,
        Font::Bold => 1,
    }
}

fn face(font: Font) -> Option<&'static Face<'static>> {
    FACES[slot(font)].as_ref()
}

/// Whether the font has a glyph for `c`.
pub(super) fn covers(font: Font, c: char) -> bool {
    face(font).is_some_and(|f| f.glyph_index(c).is_some())
}

/// Advance width of `c` in 1/1000 em (0 for a character the font lacks).
pub(super) fn advance(font: Font, c: char) -> f32 {
    let Some(face) = face(font) else {
        return 600.0;
    };
    let glyph = face.glyph_index(c).unwrap_or(GlyphId(0));
    per_mille(face, f32::from(face.glyph_hor_advance(glyph).unwrap_or(0)))
}

fn per_mille(face: &Face, units: f32) -> f32 {
    units * 1000.0 / f32::from(face.units_per_em().max(1))
}

/// The glyphs one PDF uses of one font, renumbered for its subset (CID = new glyph id).
pub(super) struct Subset {
    font: Font,
    remapper: GlyphRemapper,
    cids: BTreeMap<char, u16>,
}

impl Subset {
    /// The subset for `chars` (every character the page shows in `font`).
    pub(super) fn new(font: Font, chars: &BTreeSet<char>) -> Result<Subset> {
        let face = face(font).ok_or_else(|| Error::Internal("the label font is missing".into()))?;
        let mut remapper = GlyphRemapper::new();
        let cids = chars
            .iter()
            .map(|&c| {
                let old = face.glyph_index(c).map_or(0, |g| g.0);
                (c, remapper.remap(old))
            })
            .collect();
        Ok(Subset {
            font,
            remapper,
            cids,
        })
    }

    /// `text` as Identity-H codes: two bytes (big-endian CID) per character.
    pub(super) fn encode(&self, text: &[char]) -> Vec<u8> {
        text.iter()
            .flat_map(|c| self.cids.get(c).copied().unwrap_or(0).to_be_bytes())
            .collect()
    }

    /// Writes the Type0 font at `id` and its parts (descendant font, descriptor, ToUnicode map,
    /// the compressed subset) at refs taken from `next`.
    pub(super) fn write(&self, pdf: &mut Pdf, id: Ref, next: &mut Ref) -> Result<()> {
        let face =
            face(self.font).ok_or_else(|| Error::Internal("the label font is missing".into()))?;
        let (cid_id, descriptor_id, cmap_id, file_id) =
            (next.bump(), next.bump(), next.bump(), next.bump());
        let name = format!("{}+{}", self.tag(), self.postscript_name());
        let name = Name(name.as_bytes());

        pdf.type0_font(id)
            .base_font(name)
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid_id)
            .to_unicode(cmap_id);

        let mut cid = pdf.cid_font(cid_id);
        cid.subtype(CidFontType::Type2)
            .base_font(name)
            .system_info(SYSTEM_INFO)
            .font_descriptor(descriptor_id)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        let widths: Vec<f32> = self
            .remapper
            .remapped_gids()
            .map(|g| {
                per_mille(
                    face,
                    f32::from(face.glyph_hor_advance(GlyphId(g)).unwrap_or(0)),
                )
            })
            .collect();
        cid.widths().consecutive(0, widths);
        cid.finish();

        let bbox = face.global_bounding_box();
        let cap = face
            .capital_height()
            .or_else(|| {
                face.glyph_index('H')
                    .and_then(|g| face.glyph_bounding_box(g))
                    .map(|r| r.y_max)
            })
            .unwrap_or(face.ascender());
        let unit = |v: i16| per_mille(face, f32::from(v));
        pdf.font_descriptor(descriptor_id)
            .name(name)
            .flags(FontFlags::SYMBOLIC)
            .bbox(Rect::new(
                unit(bbox.x_min),
                unit(bbox.y_min),
                unit(bbox.x_max),
                unit(bbox.y_max),
            ))
            .italic_angle(face.italic_angle())
            .ascent(unit(face.ascender()))
            .descent(unit(face.descender()))
            .cap_height(unit(cap))
            .stem_v(10.0 + 0.244 * (f32::from(face.weight().to_number()) - 50.0))
            .font_file2(file_id);

        let mut cmap = UnicodeCmap::new(Name(b"Shipbase-UTF16"), SYSTEM_INFO);
        let mut mapped = BTreeSet::new();
        for (&c, &cid) in &self.cids {
            if cid != 0 && mapped.insert(cid) {
                cmap.pair(cid, c);
            }
        }
        let cmap = cmap.finish();
        pdf.cmap(cmap_id, cmap.as_slice())
            .writing_mode(WMode::Horizontal);

        let data = &DATA[slot(self.font)];
        let subset = subsetter::subset(data, 0, &self.remapper)
            .map_err(|e| Error::Internal(format!("cannot subset the label font: {e:?}")))?;
        let compressed = zlib(&subset);
        pdf.stream(file_id, &compressed)
            .filter(Filter::FlateDecode)
            .pair(
                Name(b"Length1"),
                i32::try_from(subset.len()).unwrap_or(i32::MAX),
            );
        Ok(())
    }

    fn postscript_name(&self) -> &'static str {
        match self.font {
            Font::Regular => "DejaVuSans",
            Font::Bold => "DejaVuSans-Bold",
        }
    }

    /// The six capital letters that name a subset (PDF 32000 §9.6.4), from its glyphs.
    fn tag(&self) -> String {
        let mut h: u32 = 2_166_136_261;
        for g in self.remapper.remapped_gids() {
            h = (h ^ u32::from(g)).wrapping_mul(16_777_619);
        }
        (0..6)
            .map(|i| char::from(b'A' + u8::try_from((h >> (i * 5)) % 26).unwrap_or(0)))
            .collect()
    }
}

/// `data` zlib-compressed at level 1: the subsets are small, and a higher level costs several
/// times the time for a few percent of size. The compressor (some 300 KB of tables) is kept per
/// thread and reset, rather than allocated and zeroed for every subset.
fn zlib(data: &[u8]) -> Vec<u8> {
    use miniz_oxide::deflate::core::{
        CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
    };
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Box<CompressorOxide>> = std::cell::RefCell::new(
            Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(1, 1, 0)))
        );
    }
    COMPRESSOR.with(|cell| {
        let mut compressor = cell.borrow_mut();
        compressor.reset();
        let mut output = vec![0; (data.len() / 2).max(64)];
        let (mut input, mut written) = (data, 0);
        loop {
            let (status, read, wrote) = compress(
                &mut compressor,
                input,
                &mut output[written..],
                TDEFLFlush::Finish,
            );
            written += wrote;
            input = &input[read.min(input.len())..];
            match status {
                TDEFLStatus::Done => {
                    output.truncate(written);
                    return output;
                }
                TDEFLStatus::Okay if output.len() - written < 64 => {
                    output.resize(output.len() * 2, 0)
                }
                TDEFLStatus::Okay => {}
                // Only a bug in the compressor gets here; the one-shot function still works.
                _ => return miniz_oxide::deflate::compress_to_vec_zlib(data, 1),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_ascii_needs_no_look_up() {
        for c in ' '..='~' {
            assert!(covers(Font::Regular, c) && covers(Font::Bold, c), "{c:?}");
        }
        assert_eq!(unprintable("Jane Doe, Storgatan 1"), None);
        assert_eq!(unprintable("Jane\u{7}"), Some('\u{7}'));
        assert_eq!(unprintable("Ærø"), None);
        assert_eq!(unprintable("李"), Some('李'));
    }
}

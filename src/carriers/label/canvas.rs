//! Drawing on the page: millimetre coordinates, text in the embedded DejaVu fonts, fitting text.
//! A label is drawn twice: once to learn which characters each font shows (`Canvas::probe`),
//! then for real with those fonts' subsets (`Canvas::with`).

use std::collections::BTreeSet;

use pdf_writer::{Content, Str};
use unicode_normalization::UnicodeNormalization;

use super::{
    font::{Font, Subset},
    *,
};

/// 1 mm in PDF points.
pub(super) const PT_PER_MM: f32 = 72.0 / 25.4;

pub(super) fn pt(mm: f32) -> f32 {
    mm * PT_PER_MM
}

/// Width of `text` in millimetres.
pub(super) fn text_width(font: Font, size: f32, text: &[char]) -> f32 {
    let units: f32 = text.iter().map(|&c| font::advance(font, c)).sum();
    // 1/1000 em to points, points to millimetres.
    units / 1000.0 * size / PT_PER_MM
}

/// The page content stream, addressed in label millimetres.
pub(super) struct Canvas {
    pub(super) content: Content,
    size: LabelSize,
    /// The subsets text is encoded with; None while probing.
    subsets: Option<[Subset; 2]>,
    /// Every character shown, per font.
    used: [BTreeSet<char>; 2],
}

impl Canvas {
    /// A canvas that only records the characters drawn.
    pub(super) fn probe(size: LabelSize) -> Canvas {
        Canvas {
            content: Content::new(),
            size,
            subsets: None,
            used: Default::default(),
        }
    }

    /// A canvas that encodes text with `subsets` (made from a probe of the same drawing).
    pub(super) fn with(size: LabelSize, subsets: [Subset; 2]) -> Canvas {
        Canvas {
            subsets: Some(subsets),
            ..Canvas::probe(size)
        }
    }

    /// The characters shown in `font` so far.
    pub(super) fn used(&self, font: Font) -> &BTreeSet<char> {
        &self.used[font.index()]
    }

    /// The subsets, once drawn for real.
    pub(super) fn subsets(&self) -> Option<&[Subset; 2]> {
        self.subsets.as_ref()
    }

    /// Page coordinates (points, origin bottom-left) of a label position.
    pub(super) fn at(&self, x: f32, y: f32) -> (f32, f32) {
        let (ox, oy) = self.size.label_origin_mm();
        let (_, page_h) = self.size.page_mm();
        (pt(ox + x), pt(page_h - oy - y))
    }

    pub(super) fn show(&mut self, font: Font, size: f32, x: f32, y: f32, text: &[char]) {
        if text.is_empty() {
            return;
        }
        self.used[font.index()].extend(text.iter().copied());
        let codes = match &self.subsets {
            Some(subsets) => subsets[font.index()].encode(text),
            None => Vec::new(),
        };
        let (px, py) = self.at(x, y);
        self.content.begin_text();
        self.content.set_font(font.resource(), size);
        self.content.next_line(px, py);
        self.content.show(Str(&codes));
        self.content.end_text();
    }

    /// Left-aligned text at baseline `y`, fitted to `max_w` (see [`fit`]).
    pub(super) fn text(&mut self, style: Style, x: f32, y: f32, max_w: f32, text: &str) {
        let (size, chars) = fit(style, max_w, printable(style.font, text));
        self.show(style.font, size, x, y, &chars);
    }

    /// Text ending at `right`, fitted to the label's inner width; returns its width.
    pub(super) fn text_right(&mut self, style: Style, right: f32, y: f32, text: &str) -> f32 {
        let (size, chars) = fit(style, INNER_W, printable(style.font, text));
        let width = text_width(style.font, size, &chars);
        self.show(style.font, size, right - width, y, &chars);
        width
    }

    /// Text centred on `centre`, fitted to the label's inner width.
    pub(super) fn text_centered(&mut self, style: Style, centre: f32, y: f32, text: &str) {
        let (size, chars) = fit(style, INNER_W, printable(style.font, text));
        let width = text_width(style.font, size, &chars);
        self.show(style.font, size, centre - width / 2.0, y, &chars);
    }

    pub(super) fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, width_pt: f32) {
        let (ax, ay) = self.at(x1, y1);
        let (bx, by) = self.at(x2, y2);
        self.content.set_line_width(width_pt);
        self.content.move_to(ax, ay);
        self.content.line_to(bx, by);
        self.content.stroke();
    }

    /// A horizontal line across the label.
    pub(super) fn rule(&mut self, y: f32, width_pt: f32) {
        self.line(MARGIN, y, RIGHT, y, width_pt);
    }

    /// The dashed frame to cut the label out of an A4 sheet along.
    pub(super) fn cutting_frame(&mut self) {
        let (x, y) = self.at(0.0, LABEL_H);
        self.content.save_state();
        self.content.set_line_width(0.5);
        self.content.set_stroke_gray(0.4);
        self.content.set_dash_pattern([3.0, 3.0], 0.0);
        self.content.rect(x, y, pt(LABEL_W), pt(LABEL_H));
        self.content.stroke();
        self.content.restore_state();
    }

    /// Code 128 bars (a module pattern of 0 = space, 1 = bar), centred horizontally. Runs of
    /// bar modules become one filled rectangle each.
    pub(super) fn barcode(&mut self, modules: &[u8], top: f32, height: f32) {
        let count = modules.len() as f32;
        let module = (INNER_W / (count + 2.0 * QUIET_ZONE)).min(MAX_MODULE);
        if module < MIN_MODULE {
            tracing::warn!(
                module_mm = module,
                "tracking number too long for a reliably scannable barcode"
            );
        }
        let left = (LABEL_W - count * module) / 2.0;
        let mut start = 0;
        while start < modules.len() {
            if modules[start] == 0 {
                start += 1;
                continue;
            }
            let end = modules[start..]
                .iter()
                .position(|&m| m == 0)
                .map_or(modules.len(), |n| start + n);
            let (x, y) = self.at(left + start as f32 * module, top + height);
            self.content
                .rect(x, y, pt((end - start) as f32 * module), pt(height));
            start = end;
        }
        self.content.fill_nonzero();
    }
}

/// Shrinks `style.size` towards `style.min_size`, then drops characters for an ellipsis, until
/// `text` is at most `max_w` millimetres wide. Returns the size and the text to show.
pub(super) fn fit(style: Style, max_w: f32, mut text: Vec<char>) -> (f32, Vec<char>) {
    const ELLIPSIS: char = '…';
    let Style {
        font,
        size,
        min_size,
    } = style;
    let width = text_width(font, size, &text);
    if width <= max_w {
        return (size, text);
    }
    let shrunk = size * max_w / width;
    if shrunk >= min_size {
        return (shrunk, text);
    }
    let ellipsis = text_width(font, min_size, &[ELLIPSIS]);
    while !text.is_empty() && text_width(font, min_size, &text) + ellipsis > max_w {
        text.pop();
    }
    text.push(ELLIPSIS);
    (min_size, text)
}

/// `text` as the label prints it: in NFC first (so that a letter sent decomposed, as macOS
/// writes "Mu\u{308}ller", keeps its accent), then whitespace as a space; a combining accent
/// left without a letter to compose with is dropped (the label does no shaping), and a
/// character the font lacks becomes `?`.
pub(super) fn printable(font: Font, text: &str) -> Vec<char> {
    text.nfc()
        .filter(|c| !('\u{0300}'..='\u{036F}').contains(c))
        .map(|c| match c {
            c if c.is_whitespace() => ' ',
            c if c.is_control() => '?',
            c if font::covers(font, c) => c,
            _ => '?',
        })
        .collect()
}

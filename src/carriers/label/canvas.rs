//! Drawing on the page: millimetre coordinates, Helvetica text in WinAnsi, fitting text.

use pdf_writer::{Content, Name, Str};

use super::*;

/// 1 mm in PDF points.
pub(super) const PT_PER_MM: f32 = 72.0 / 25.4;

pub(super) fn pt(mm: f32) -> f32 {
    mm * PT_PER_MM
}

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

    pub(super) fn base_font(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"Helvetica"),
            Font::Bold => Name(b"Helvetica-Bold"),
        }
    }

    /// Advance width of a WinAnsi code in 1/1000 em.
    pub(super) fn advance(self, code: u8) -> u16 {
        let table = match self {
            Font::Regular => &HELVETICA_ASCII,
            Font::Bold => &HELVETICA_BOLD_ASCII,
        };
        match code {
            32..=126 => table[usize::from(code - 32)],
            // Outside ASCII an upper bound of the real widths, so fitted text never overflows.
            0x85 | 0x89 | 0x8C | 0x99 | 0xC6 => 1000,
            0xC0..=0xDE => 778,
            _ => 611,
        }
    }
}

/// Width of `text` in millimetres.
pub(super) fn text_width(font: Font, size: f32, text: &[u8]) -> f32 {
    let units: u32 = text.iter().map(|&b| u32::from(font.advance(b))).sum();
    // Font units to points, points to millimetres.
    units as f32 / 1000.0 * size / PT_PER_MM
}

/// The page content stream, addressed in label millimetres.
pub(super) struct Canvas {
    pub(super) content: Content,
    size: LabelSize,
}

impl Canvas {
    pub(super) fn new(size: LabelSize) -> Canvas {
        Canvas {
            content: Content::new(),
            size,
        }
    }

    /// Page coordinates (points, origin bottom-left) of a label position.
    pub(super) fn at(&self, x: f32, y: f32) -> (f32, f32) {
        let (ox, oy) = self.size.label_origin_mm();
        let (_, page_h) = self.size.page_mm();
        (pt(ox + x), pt(page_h - oy - y))
    }

    pub(super) fn show(&mut self, font: Font, size: f32, x: f32, y: f32, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        let (px, py) = self.at(x, y);
        self.content.begin_text();
        self.content.set_font(font.resource(), size);
        self.content.next_line(px, py);
        self.content.show(Str(text));
        self.content.end_text();
    }

    /// Left-aligned text at baseline `y`, fitted to `max_w` (see [`fit`]).
    pub(super) fn text(&mut self, style: Style, x: f32, y: f32, max_w: f32, text: &str) {
        let (size, bytes) = fit(style, max_w, win_ansi(text));
        self.show(style.font, size, x, y, &bytes);
    }

    /// Text ending at `right`, fitted to the label's inner width; returns its width.
    pub(super) fn text_right(&mut self, style: Style, right: f32, y: f32, text: &str) -> f32 {
        let (size, bytes) = fit(style, INNER_W, win_ansi(text));
        let width = text_width(style.font, size, &bytes);
        self.show(style.font, size, right - width, y, &bytes);
        width
    }

    /// Text centred on `centre`, fitted to the label's inner width.
    pub(super) fn text_centered(&mut self, style: Style, centre: f32, y: f32, text: &str) {
        let (size, bytes) = fit(style, INNER_W, win_ansi(text));
        let width = text_width(style.font, size, &bytes);
        self.show(style.font, size, centre - width / 2.0, y, &bytes);
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
pub(super) fn fit(style: Style, max_w: f32, mut text: Vec<u8>) -> (f32, Vec<u8>) {
    const ELLIPSIS: u8 = 0x85;
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

/// `text` split after the most words that fit on one line of `max_w`; `None` when it fits whole
/// or its first word alone is too wide.
pub(super) fn split_line(style: Style, max_w: f32, text: &str) -> Option<(&str, &str)> {
    let Style { font, size, .. } = style;
    let text = text.trim();
    let mut split = None;
    for (at, _) in text.match_indices(char::is_whitespace) {
        if text_width(font, size, &win_ansi(&text[..at])) > max_w {
            break;
        }
        split = Some(at);
    }
    let at = split?;
    if text_width(font, size, &win_ansi(text)) <= max_w {
        return None;
    }
    Some((text[..at].trim_end(), text[at..].trim_start()))
}

/// `text` in WinAnsiEncoding (PDF 1.7 Annex D): Latin-1 plus the Windows-1252 extras. Other
/// characters become `?`; whitespace becomes a space; combining accents are dropped (so a
/// decomposed "é" prints as "e").
pub(super) fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .filter(|c| !('\u{0300}'..='\u{036F}').contains(c))
        .map(|c| match c {
            ' '..='~' | '\u{A0}'..='\u{FF}' => u8::try_from(u32::from(c)).unwrap_or(b'?'),
            '€' => 0x80,
            '‚' => 0x82,
            'ƒ' => 0x83,
            '„' => 0x84,
            '…' => 0x85,
            '†' => 0x86,
            '‡' => 0x87,
            'ˆ' => 0x88,
            '‰' => 0x89,
            'Š' => 0x8A,
            '‹' => 0x8B,
            'Œ' => 0x8C,
            'Ž' => 0x8E,
            '\u{2018}' => 0x91,
            '\u{2019}' => 0x92,
            '\u{201C}' => 0x93,
            '\u{201D}' => 0x94,
            '•' => 0x95,
            '–' => 0x96,
            '—' => 0x97,
            '˜' => 0x98,
            '™' => 0x99,
            'š' => 0x9A,
            '›' => 0x9B,
            'œ' => 0x9C,
            'ž' => 0x9E,
            'Ÿ' => 0x9F,
            c if c.is_whitespace() => b' ',
            _ => b'?',
        })
        .collect()
}

/// Advance widths of ASCII 32..=126 in Helvetica (Adobe Core 14 AFM), 1/1000 em.
#[rustfmt::skip]
pub(super) const HELVETICA_ASCII: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,      // p..~
];

/// Advance widths of ASCII 32..=126 in Helvetica-Bold (Adobe Core 14 AFM), 1/1000 em.
#[rustfmt::skip]
pub(super) const HELVETICA_BOLD_ASCII: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0..?
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P.._
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // `..o
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,      // p..~
];

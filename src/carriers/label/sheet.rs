//! A4 documents of several pages (invoices, packing lists) in the label's fonts. The layout is
//! written first, as text runs and lines in millimetres from each page's top-left corner; the
//! PDF is made at the end, when the characters every page shows are known, so one subset of
//! each font serves the whole document.

use pdf_writer::{Content, Finish, Pdf, Rect, Ref, Str, TextStr};

use crate::error::Result;

use super::{
    canvas::{pt, text_width},
    font::{Font, Subset},
    printable,
};

pub const A4_W: f32 = 210.0;
pub const A4_H: f32 = 297.0;

/// Text style: bold or regular, at a size in points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Type {
    pub bold: bool,
    pub size: f32,
}

pub const fn regular(size: f32) -> Type {
    Type { bold: false, size }
}

pub const fn bold(size: f32) -> Type {
    Type { bold: true, size }
}

impl Type {
    fn font(self) -> Font {
        if self.bold { Font::Bold } else { Font::Regular }
    }
}

enum Mark {
    Text {
        font: Font,
        size: f32,
        x: f32,
        y: f32,
        text: Vec<char>,
    },
    Line {
        from: (f32, f32),
        to: (f32, f32),
        width_pt: f32,
    },
}

/// A document being laid out.
#[derive(Default)]
pub struct Sheet {
    pages: Vec<Vec<Mark>>,
}

impl Sheet {
    /// A document with one empty page.
    pub fn new() -> Sheet {
        Sheet {
            pages: vec![Vec::new()],
        }
    }

    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
    }

    fn mark(&mut self, mark: Mark) {
        if let Some(page) = self.pages.last_mut() {
            page.push(mark);
        }
    }

    /// Width of `text` in millimetres, as it would print.
    pub fn width(style: Type, text: &str) -> f32 {
        text_width(style.font(), style.size, &printable(style.font(), text))
    }

    /// `text` with its baseline at `y`, cut with an ellipsis to `max_w` millimetres.
    pub fn text(&mut self, style: Type, x: f32, y: f32, max_w: f32, text: &str) {
        let font = style.font();
        let mut chars = printable(font, text);
        if text_width(font, style.size, &chars) > max_w {
            let ellipsis = text_width(font, style.size, &['…']);
            while !chars.is_empty() && text_width(font, style.size, &chars) + ellipsis > max_w {
                chars.pop();
            }
            chars.push('…');
        }
        if !chars.is_empty() {
            self.mark(Mark::Text {
                font,
                size: style.size,
                x,
                y,
                text: chars,
            });
        }
    }

    /// `text` ending at `right` (cut to `max_w`).
    pub fn text_right(&mut self, style: Type, right: f32, y: f32, max_w: f32, text: &str) {
        let width = Sheet::width(style, text).min(max_w);
        self.text(style, right - width, y, max_w, text);
    }

    /// `text` broken into lines of at most `max_w` (see `wrap`); returns the number of lines.
    pub fn paragraph(
        &mut self,
        style: Type,
        x: f32,
        y: f32,
        max_w: f32,
        leading: f32,
        text: &str,
    ) -> usize {
        let lines = wrap(style, max_w, text);
        for (i, line) in lines.iter().enumerate() {
            self.text(style, x, y + leading * i as f32, max_w, line);
        }
        lines.len()
    }

    pub fn line(&mut self, from: (f32, f32), to: (f32, f32), width_pt: f32) {
        self.mark(Mark::Line { from, to, width_pt });
    }

    /// The PDF: A4 pages, "Page n of m" at the foot of each when there are several.
    pub fn finish(mut self, title: &str) -> Result<Vec<u8>> {
        let count = self.pages.len();
        if count > 1 {
            for (i, page) in self.pages.iter_mut().enumerate() {
                let text = format!("Page {} of {count}", i + 1);
                let style = regular(8.0);
                let w = Sheet::width(style, &text);
                page.push(Mark::Text {
                    font: Font::Regular,
                    size: style.size,
                    x: (A4_W - w) / 2.0,
                    y: A4_H - 8.0,
                    text: printable(Font::Regular, &text),
                });
            }
        }
        let mut used: [std::collections::BTreeSet<char>; 2] = Default::default();
        for mark in self.pages.iter().flatten() {
            if let Mark::Text { font, text, .. } = mark {
                used[usize::from(*font == Font::Bold)].extend(text.iter().copied());
            }
        }
        let subsets = [
            Subset::new(Font::Regular, &used[0])?,
            Subset::new(Font::Bold, &used[1])?,
        ];

        let catalog_id = Ref::new(1);
        let tree_id = Ref::new(2);
        let info_id = Ref::new(3);
        let font_ids = [Ref::new(4), Ref::new(5)];
        let mut next = Ref::new(6);
        let page_ids: Vec<(Ref, Ref)> = (0..count).map(|_| (next.bump(), next.bump())).collect();

        let mut pdf = Pdf::new();
        pdf.set_version(1, 4);
        pdf.catalog(catalog_id).pages(tree_id);
        pdf.pages(tree_id)
            .kids(page_ids.iter().map(|(page, _)| *page))
            .count(i32::try_from(count).unwrap_or(i32::MAX));
        for ((page_id, content_id), marks) in page_ids.iter().zip(&self.pages) {
            let mut page = pdf.page(*page_id);
            page.media_box(Rect::new(0.0, 0.0, pt(A4_W), pt(A4_H)));
            page.parent(tree_id);
            page.contents(*content_id);
            let mut resources = page.resources();
            let mut fonts = resources.fonts();
            fonts.pair(Font::Regular.resource(), font_ids[0]);
            fonts.pair(Font::Bold.resource(), font_ids[1]);
            fonts.finish();
            resources.finish();
            page.finish();
            let content = draw(marks, &subsets);
            pdf.stream(*content_id, &content.finish());
        }
        for (id, subset) in font_ids.into_iter().zip(&subsets) {
            subset.write(&mut pdf, id, &mut next)?;
        }
        let mut info = pdf.document_info(info_id);
        info.title(TextStr(title));
        info.producer(TextStr("Shipbase"));
        info.finish();
        Ok(pdf.finish())
    }
}

/// PDF coordinates (points from the bottom-left) of a position in page millimetres.
fn at(x: f32, y: f32) -> (f32, f32) {
    (pt(x), pt(A4_H - y))
}

fn draw(marks: &[Mark], subsets: &[Subset; 2]) -> Content {
    let mut content = Content::new();
    for mark in marks {
        match mark {
            Mark::Text {
                font,
                size,
                x,
                y,
                text,
            } => {
                let codes = subsets[usize::from(*font == Font::Bold)].encode(text);
                let (px, py) = at(*x, *y);
                content.begin_text();
                content.set_font(font.resource(), *size);
                content.next_line(px, py);
                content.show(Str(&codes));
                content.end_text();
            }
            Mark::Line { from, to, width_pt } => {
                let (ax, ay) = at(from.0, from.1);
                let (bx, by) = at(to.0, to.1);
                content.set_line_width(*width_pt);
                content.move_to(ax, ay);
                content.line_to(bx, by);
                content.stroke();
            }
        }
    }
    content
}

/// Lines of `text` that fit `max_w`, broken at spaces. A word wider than a line starts a line of
/// its own and is broken between characters, so that nothing is cut. No hyphen is added (in a
/// SKU or a tariff number it would read as part of it), and a break never falls just after one:
/// text extraction (pdftotext) drops a hyphen that ends a line and joins the lines around it.
pub fn wrap(style: Type, max_w: f32, text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if Sheet::width(style, &candidate) <= max_w {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        let mut pieces = break_word(style, max_w, word);
        line = pieces.pop().unwrap_or_default();
        lines.extend(pieces);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `word` in pieces that each fit `max_w` (at least one character each, however narrow the line).
fn break_word(style: Type, max_w: f32, word: &str) -> Vec<String> {
    let font = style.font();
    let fits = |chars: &[char]| text_width(font, style.size, chars) <= max_w;
    let mut pieces = Vec::new();
    let mut piece: Vec<char> = Vec::new();
    for c in printable(font, word) {
        piece.push(c);
        // Measured as `text` measures it, so that a piece is never cut when drawn.
        if piece.len() > 1 && !fits(&piece) {
            piece.pop();
            let mut next = vec![c];
            while piece.len() > 1 && piece.last().is_some_and(|&last| is_hyphen(last)) {
                let mut carried = vec![piece[piece.len() - 1]];
                carried.extend(&next);
                if !fits(&carried) {
                    break;
                }
                piece.pop();
                next = carried;
            }
            pieces.push(piece.drain(..).collect());
            piece = next;
        }
    }
    if !piece.is_empty() {
        pieces.push(piece.into_iter().collect());
    }
    pieces
}

fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{2010}' | '\u{AD}')
}

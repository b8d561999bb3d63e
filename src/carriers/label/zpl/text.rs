//! Text fields: fitted to a width (shrunk to a smallest size, then wrapped at spaces onto as many
//! lines as the field allows, then cut with "..."), and written either in the printer's font 0
//! (`^A0`, when every character is one it shows) or as a graphic field drawn with the embedded
//! font (`raster`).
//!
//! Widths are measured with the embedded fonts. Font 0 (CG Triumvirate Bold Condensed on a
//! Zebra) is narrower than DejaVu Sans Bold in every letter and digit, so font 0 text is measured
//! as DejaVu Sans Bold, except for the few symbols font 0 draws wider (`-`, `+`, `<` …), which
//! count as wide as they are tall: measured so, font 0 text never takes more room than planned.

use std::fmt::Write;

use super::raster;
use crate::carriers::label::{font::Font, printable};

/// A text style: the face for graphic fields, the height in dots, and the smallest height it
/// may shrink to before it wraps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Style {
    pub font: Font,
    pub height: u32,
    pub min_height: u32,
}

pub(super) const fn style(font: Font, height: u32, min_height: u32) -> Style {
    Style {
        font,
        height,
        min_height,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Center,
    Right,
}

/// A text set for printing: its lines at one height, in font 0 or drawn.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Fitted {
    pub font: Font,
    pub font0: bool,
    pub height: u32,
    pub lines: Vec<Vec<char>>,
    /// The widest line, in dots (for font 0 the width planned for, an upper bound).
    pub width: u32,
}

impl Fitted {
    /// Dots from one line's top to the next.
    pub(super) fn pitch(&self) -> u32 {
        self.height + self.height / 6
    }

    /// Dots the lines take, spacing below the last included.
    pub(super) fn block_height(&self) -> u32 {
        self.pitch() * self.lines.len() as u32
    }
}

/// Whether the printer's font 0 shows `c`: printable ASCII, except the backslash, which font 0
/// prints as `¢` (and which `^FB` takes as an escape).
pub(super) fn font0_shows(c: char) -> bool {
    matches!(c, ' '..='~') && c != '\\'
}

/// Width in dots of `text` at `height`, as planned (see the module doc for font 0).
fn measure(fitted_font0: bool, font: Font, height: u32, text: &[char]) -> f32 {
    if !fitted_font0 {
        return raster::width(font, height, text);
    }
    text.iter()
        .map(|&c| {
            let wide = match c {
                '-' | '+' | '<' | '=' | '>' | '~' | '@' | '%' => 1.0,
                '|' | '_' | '"' | '*' | 'J' => 0.5,
                '\'' => 0.3,
                _ => 0.0,
            };
            raster::width(Font::Bold, height, &[c]).max(wide * height as f32)
        })
        .sum()
}

/// `text` fitted into `max_width` dots on at most `max_lines` lines: one line at the style's
/// height if it fits, else one line shrunk towards `min_height`, else wrapped at spaces (a word
/// too wide for a line is broken) at `min_height`; the last line is cut with "..." if the rest
/// of the text does not fit it.
pub(super) fn fit(style: Style, max_width: u32, max_lines: usize, text: &str) -> Fitted {
    let chars = printable(style.font, text);
    let chars = trim(&chars).to_vec();
    let font0 = chars.iter().all(|&c| font0_shows(c));
    let max = max_width as f32;
    let width = |height: u32, t: &[char]| measure(font0, style.font, height, t);
    let mut height = style.height;
    while height > style.min_height && width(height, &chars) > max {
        height -= 1;
    }
    let lines = if width(height, &chars) <= max {
        vec![chars]
    } else {
        wrap(&chars, max_lines.max(1), &|t: &[char]| {
            width(height, t) <= max
        })
    };
    let widest = lines
        .iter()
        .map(|line| width(height, line).ceil() as u32)
        .max()
        .unwrap_or(0);
    Fitted {
        font: style.font,
        font0,
        height,
        lines,
        width: widest,
    }
}

fn trim(text: &[char]) -> &[char] {
    let start = text.iter().take_while(|&&c| c == ' ').count();
    let end = text.len()
        - text[start..]
            .iter()
            .rev()
            .take_while(|&&c| c == ' ')
            .count();
    &text[start..end]
}

/// Greedy wrapping at spaces into at most `max_lines` lines that `fits`.
fn wrap(text: &[char], max_lines: usize, fits: &dyn Fn(&[char]) -> bool) -> Vec<Vec<char>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if lines.len() + 1 == max_lines || fits(rest) {
            lines.push(cut(rest, fits));
            break;
        }
        let mut split = None;
        for (at, _) in rest.iter().enumerate().filter(|(_, c)| **c == ' ') {
            if !fits(trim(&rest[..at])) {
                break;
            }
            split = Some(at);
        }
        let at = split.unwrap_or_else(|| {
            // The first word alone is too wide: as many of its characters as fit.
            (1..rest.len())
                .take_while(|&n| fits(&rest[..n]))
                .last()
                .unwrap_or(1)
        });
        lines.push(trim(&rest[..at]).to_vec());
        rest = trim(&rest[at..]);
    }
    lines
}

/// `text`, or as much of it as fits followed by "...".
fn cut(text: &[char], fits: &dyn Fn(&[char]) -> bool) -> Vec<char> {
    if fits(text) {
        return text.to_vec();
    }
    let mut kept = text.to_vec();
    loop {
        kept.pop();
        let mut candidate = trim(&kept).to_vec();
        candidate.extend("...".chars());
        if kept.is_empty() || fits(&candidate) {
            return candidate;
        }
    }
}

/// Writes `fitted` with its first line's top-left at (`x`, `y`) in a field `width` dots wide,
/// aligned in it; returns the `y` below it.
pub(super) fn emit(
    out: &mut String,
    (x, y): (u32, u32),
    width: u32,
    align: Align,
    fitted: &Fitted,
) -> u32 {
    let h = fitted.height;
    let mut top = y;
    for line in &fitted.lines {
        if fitted.font0 {
            let block = match align {
                Align::Left => String::new(),
                Align::Center => format!("^FB{width},1,0,C"),
                Align::Right => format!("^FB{width},1,0,R"),
            };
            let _ = writeln!(
                out,
                "^FO{x},{top}^A0N,{h},{h}{block}^FH^FD{}^FS",
                escape(line)
            );
        } else {
            let bitmap = raster::rasterize(fitted.font, h, width, line);
            let left = match align {
                Align::Left => x,
                Align::Center => x + width.saturating_sub(bitmap.width) / 2,
                Align::Right => x + width.saturating_sub(bitmap.width),
            };
            let _ = writeln!(out, "^FO{left},{top}{}^FS", bitmap.graphic_field());
        }
        top += fitted.pitch();
    }
    top
}

/// Font 0 field data with `^`, `~` and the `^FH` escape character `_` written as hex escapes.
fn escape(text: &[char]) -> String {
    text.iter()
        .map(|&c| match c {
            '^' => "_5E".to_string(),
            '~' => "_7E".to_string(),
            '_' => "_5F".to_string(),
            c => c.to_string(),
        })
        .collect()
}

//! The documents' page frame and tables: a head that repeats on every page, and rows whose
//! wrapping cells (SKUs, descriptions, tariff numbers) print whole on as many lines as they need,
//! the row growing taller and continuing on the next page when it does not fit.

use crate::carriers::label::sheet::{A4_H, A4_W, Sheet, Type, bold, regular, wrap};

pub(super) const LEFT: f32 = 15.0;
pub(super) const RIGHT: f32 = A4_W - 15.0;
/// Below this, a table continues on a new page.
pub(super) const BOTTOM: f32 = A4_H - 22.0;
/// From a row's (first) baseline to the next row's.
pub(super) const ROW: f32 = 5.5;
pub(super) const CELL: Type = regular(8.5);
const HEAD: Type = bold(8.0);

/// Distance between the lines of one cell.
pub(super) const LEADING: f32 = 3.6;
/// Where the head of a continued table is drawn on a new page.
const HEAD_Y: f32 = 20.0;
/// The height rows have on a new page, below the head.
pub(super) const ROOM: f32 = BOTTOM - (HEAD_Y + 1.8 + ROW);

/// How a cell's text is fitted to its column.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Fit {
    /// One line, cut when too long.
    Left,
    /// One line ending at the column's right edge (numbers).
    Right,
    /// As many lines as the text needs; nothing is cut.
    Wrap,
}

/// A table column: heading, width, fit.
pub(super) struct Column(pub &'static str, pub f32, pub Fit);

/// Draws the head at `y`; returns the y of the first row.
pub(super) fn head(sheet: &mut Sheet, columns: &[Column], y: f32) -> f32 {
    let mut x = LEFT;
    for Column(name, width, fit) in columns {
        if *fit == Fit::Right {
            sheet.text_right(HEAD, x + width - 1.0, y, width - 1.0, name);
        } else {
            sheet.text(HEAD, x, y, width - 1.0, name);
        }
        x += width;
    }
    sheet.line((LEFT, y + 1.8), (RIGHT, y + 1.8), 0.6);
    y + 1.8 + ROW
}

/// The y of the next row, starting a new page (with the table's head) when the page is full.
pub(super) fn next_row(sheet: &mut Sheet, columns: &[Column], y: f32, needed: f32) -> f32 {
    if y + needed <= BOTTOM {
        return y;
    }
    sheet.new_page();
    head(sheet, columns, HEAD_Y)
}

impl Column {
    /// The lines `text` takes in this column.
    pub(super) fn lines(&self, text: &str) -> Vec<String> {
        let Column(_, width, fit) = self;
        match fit {
            Fit::Wrap => wrap(CELL, width - 1.0, text),
            Fit::Left | Fit::Right => vec![text.to_string()],
        }
    }
}

/// The lines of each cell of a row.
fn cell_lines(columns: &[Column], cells: &[String]) -> Vec<Vec<String>> {
    columns
        .iter()
        .zip(cells)
        .map(|(column, cell)| column.lines(cell))
        .collect()
}

/// The height a row of `cells` takes (from its first baseline to the next row's).
pub(super) fn height(columns: &[Column], cells: &[String]) -> f32 {
    let count = cell_lines(columns, cells)
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(1);
    ROW + LEADING * count.saturating_sub(1) as f32
}

/// Draws a row at `y` or, when it does not fit there, on a new page; a row taller than a whole
/// page starts at `y` and continues line by line on the next. Returns the y of the next row.
pub(super) fn row(sheet: &mut Sheet, columns: &[Column], y: f32, cells: &[String]) -> f32 {
    let lines = cell_lines(columns, cells);
    let count = lines.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let full = ROW + LEADING * (count - 1) as f32;
    let mut y = next_row(sheet, columns, y, if full <= ROOM { full } else { ROW });
    for i in 0..count {
        if i > 0 {
            y = next_row(sheet, columns, y + LEADING, ROW);
        }
        let mut x = LEFT;
        for (Column(_, width, fit), cell) in columns.iter().zip(&lines) {
            if let Some(text) = cell.get(i) {
                if *fit == Fit::Right {
                    sheet.text_right(CELL, x + width - 1.0, y, width - 1.0, text);
                } else {
                    sheet.text(CELL, x, y, width - 1.0, text);
                }
            }
            x += width;
        }
    }
    y + ROW
}

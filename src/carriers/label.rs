//! Shipping labels as PDF (DESIGN §7): one page with the sender, the receiver, the reference,
//! the weight, the carrier and product, "Parcel n of m", the date and a Code 128 barcode of the
//! tracking number.
//!
//! The label itself is always 100 × 150 mm. `100X150` is a page of exactly that size (thermal
//! label printers); `A4` puts the same label near the top-left corner of an A4 sheet inside a
//! dashed cutting frame. Text uses the standard PDF fonts Helvetica and Helvetica-Bold with
//! WinAnsi encoding, so nothing is embedded and the text stays extractable; characters outside
//! WinAnsi print as `?`. Content streams are left uncompressed: a label is a few kilobytes.

use barcoders::sym::code128::Code128;
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};

use crate::error::{Error, Result};

/// Paper the label is printed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelSize {
    /// An A4 sheet (210 × 297 mm) with the label at its top-left, to be cut out.
    A4,
    /// A 100 × 150 mm portrait label.
    Label100x150,
}

impl LabelSize {
    /// The size for its API name, `A4` or `100X150` (ASCII case-insensitive).
    pub fn parse(name: &str) -> Option<Self> {
        [LabelSize::A4, LabelSize::Label100x150]
            .into_iter()
            .find(|size| size.as_str().eq_ignore_ascii_case(name))
    }

    /// The API name: `A4` or `100X150`.
    pub fn as_str(&self) -> &'static str {
        match self {
            LabelSize::A4 => "A4",
            LabelSize::Label100x150 => "100X150",
        }
    }

    /// Page width and height in millimetres.
    fn page_mm(self) -> (f32, f32) {
        match self {
            LabelSize::A4 => (210.0, 297.0),
            LabelSize::Label100x150 => (LABEL_W, LABEL_H),
        }
    }

    /// Where the label's top-left corner is, in millimetres from the page's top-left corner.
    fn label_origin_mm(self) -> (f32, f32) {
        match self {
            // Clear of the unprintable margin of office printers, and leaves room to cut.
            LabelSize::A4 => (A4_OFFSET, A4_OFFSET),
            LabelSize::Label100x150 => (0.0, 0.0),
        }
    }
}

/// One party as printed on the label.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelAddress {
    pub name: String,
    pub attention: Option<String>,
    pub address1: String,
    pub address2: Option<String>,
    pub postal_code: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    pub phone: Option<String>,
}

/// Everything a label shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelInput {
    pub carrier_name: String,
    pub product: String,
    pub services: Vec<String>,
    /// Encoded as the barcode; printable ASCII only.
    pub tracking_number: String,
    pub reference: String,
    pub sender: LabelAddress,
    pub receiver: LabelAddress,
    pub weight_kg: f64,
    /// 1-based position of this parcel in the shipment ("Parcel 1 of 2").
    pub parcel_index: usize,
    pub parcel_count: usize,
    /// RFC 3339 timestamp; its date is printed. Any other text is printed as it is.
    pub created_at: String,
}

/// Renders one label as a single-page PDF.
///
/// Fails with a validation error on `trackingNumber` when the tracking number is empty or is not
/// printable ASCII, since Code 128 cannot encode it.
pub fn render(input: &LabelInput, size: LabelSize) -> Result<Vec<u8>> {
    let modules = barcode_modules(&input.tracking_number)?;

    let catalog_id = Ref::new(1);
    let page_tree_id = Ref::new(2);
    let page_id = Ref::new(3);
    let content_id = Ref::new(4);
    let regular_id = Ref::new(5);
    let bold_id = Ref::new(6);
    let info_id = Ref::new(7);

    let mut pdf = Pdf::new();
    // Nothing newer than PDF 1.4 is used; the oldest version widens printer support.
    pdf.set_version(1, 4);
    pdf.catalog(catalog_id).pages(page_tree_id);
    pdf.pages(page_tree_id).kids([page_id]).count(1);

    let (page_w, page_h) = size.page_mm();
    let mut page = pdf.page(page_id);
    page.media_box(Rect::new(0.0, 0.0, pt(page_w), pt(page_h)));
    page.parent(page_tree_id);
    page.contents(content_id);
    let mut resources = page.resources();
    let mut fonts = resources.fonts();
    fonts.pair(Font::Regular.resource(), regular_id);
    fonts.pair(Font::Bold.resource(), bold_id);
    fonts.finish();
    resources.finish();
    page.finish();

    for (id, font) in [(regular_id, Font::Regular), (bold_id, Font::Bold)] {
        pdf.type1_font(id)
            .base_font(font.base_font())
            .encoding_predefined(Name(b"WinAnsiEncoding"));
    }

    let title = format!("Shipping label {}", input.tracking_number);
    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&title));
    info.producer(TextStr("Shipbase"));
    info.finish();

    let mut canvas = Canvas::new(size);
    draw_label(&mut canvas, input, &modules);
    if size == LabelSize::A4 {
        canvas.cutting_frame();
    }
    pdf.stream(content_id, &canvas.content.finish());

    Ok(pdf.finish())
}

// ---------------------------------------------------------------------------------------------
// Layout. All positions are millimetres from the label's top-left corner; text positions are
// baselines.

const LABEL_W: f32 = 100.0;
const LABEL_H: f32 = 150.0;
const A4_OFFSET: f32 = 10.0;
/// Margin inside the label.
const MARGIN: f32 = 4.0;
const RIGHT: f32 = LABEL_W - MARGIN;
const INNER_W: f32 = LABEL_W - 2.0 * MARGIN;

/// Widest bar module; short tracking numbers need no wider bars.
const MAX_MODULE: f32 = 0.5;
/// Narrower modules than this are unlikely to scan from a 203 dpi thermal print.
const MIN_MODULE: f32 = 0.19;
/// Quiet zone on either side of the barcode, in modules (ISO/IEC 15417 asks for 10).
const QUIET_ZONE: f32 = 10.0;
const BARS_TOP: f32 = 113.0;
const BARS_HEIGHT: f32 = 24.0;

/// Font, size and the smallest size it may shrink to when the text is too wide.
#[derive(Clone, Copy, Debug)]
struct Style {
    font: Font,
    size: f32,
    min_size: f32,
}

const fn style(font: Font, size: f32, min_size: f32) -> Style {
    Style {
        font,
        size,
        min_size,
    }
}

const CAPTION: Style = style(Font::Bold, 6.5, 6.5);
const CARRIER: Style = style(Font::Bold, 13.0, 9.0);
const PRODUCT: Style = style(Font::Regular, 9.0, 7.0);
const PARCEL: Style = style(Font::Bold, 11.0, 8.0);
const DATE: Style = style(Font::Regular, 8.0, 6.0);
const SENDER_NAME: Style = style(Font::Bold, 8.0, 6.0);
const SENDER_LINE: Style = style(Font::Regular, 8.0, 6.0);
const SENDER_PHONE: Style = style(Font::Regular, 7.0, 6.0);
const RECEIVER_CAPTION: Style = style(Font::Bold, 7.0, 7.0);
const RECEIVER_NAME: Style = style(Font::Bold, 14.0, 9.0);
/// A receiver name that would have to shrink below this size takes two lines instead.
const RECEIVER_NAME_WRAP_BELOW: f32 = 11.0;
const RECEIVER_NAME_WRAPPED: Style = style(Font::Bold, 12.0, 9.0);
const RECEIVER_LINE: Style = style(Font::Regular, 11.0, 8.0);
const RECEIVER_CITY: Style = style(Font::Bold, 14.0, 9.0);
const RECEIVER_PHONE: Style = style(Font::Regular, 9.0, 7.0);
const VALUE: Style = style(Font::Bold, 10.0, 7.0);
const SERVICES: Style = style(Font::Regular, 8.0, 6.0);
const TRACKING: Style = style(Font::Bold, 11.0, 8.0);

fn draw_label(c: &mut Canvas, input: &LabelInput, modules: &[u8]) {
    // Header: carrier and product on the left, parcel count and date on the right.
    let parcel = format!("Parcel {} of {}", input.parcel_index, input.parcel_count);
    let parcel_w = c.text_right(PARCEL, RIGHT, 9.0, &parcel);
    c.text_right(DATE, RIGHT, 14.0, &display_date(&input.created_at));
    let header_w = INNER_W - parcel_w - 4.0;
    c.text(CARRIER, MARGIN, 9.0, header_w, &input.carrier_name);
    c.text(PRODUCT, MARGIN, 14.0, header_w, &input.product);
    c.rule(17.0, 0.8);

    // Sender.
    let sender = &input.sender;
    c.text(CAPTION, MARGIN, 20.5, INNER_W, "FROM");
    if let Some(phone) = non_empty(&sender.phone) {
        c.text_right(SENDER_PHONE, RIGHT, 20.5, &format!("Tel. {phone}"));
    }
    let mut lines = vec![(SENDER_NAME, sender.name.clone())];
    if let Some(attention) = non_empty(&sender.attention) {
        lines.push((SENDER_LINE, format!("Att. {attention}")));
    }
    lines.push((SENDER_LINE, sender.address1.clone()));
    if let Some(address2) = non_empty(&sender.address2) {
        lines.push((SENDER_LINE, address2.to_owned()));
    }
    let city = format!(
        "{} {}, {}",
        sender.postal_code, sender.city, sender.country_code
    );
    lines.push((SENDER_LINE, city));
    for (i, (style, text)) in lines.iter().enumerate() {
        c.text(*style, MARGIN, 24.0 + 3.4 * i as f32, INNER_W, text);
    }
    c.rule(43.0, 0.8);

    // Receiver, larger.
    let receiver = &input.receiver;
    c.text(RECEIVER_CAPTION, MARGIN, 47.0, INNER_W, "TO");
    if let Some(phone) = non_empty(&receiver.phone) {
        c.text_right(RECEIVER_PHONE, RIGHT, 47.0, &format!("Tel. {phone}"));
    }
    let mut y = 53.0;
    let name_w = text_width(
        RECEIVER_NAME.font,
        RECEIVER_NAME_WRAP_BELOW,
        &win_ansi(&receiver.name),
    );
    match split_line(RECEIVER_NAME_WRAPPED, INNER_W, &receiver.name) {
        Some((first, rest)) if name_w > INNER_W => {
            c.text(RECEIVER_NAME_WRAPPED, MARGIN, y, INNER_W, first);
            y += 5.0;
            c.text(RECEIVER_NAME_WRAPPED, MARGIN, y, INNER_W, rest);
        }
        // One line; a name without spaces shrinks further or is cut.
        _ => c.text(RECEIVER_NAME, MARGIN, y, INNER_W, &receiver.name),
    }
    if let Some(attention) = non_empty(&receiver.attention) {
        y += 4.8;
        c.text(
            RECEIVER_LINE,
            MARGIN,
            y,
            INNER_W,
            &format!("Att. {attention}"),
        );
    }
    y += 4.8;
    c.text(RECEIVER_LINE, MARGIN, y, INNER_W, &receiver.address1);
    if let Some(address2) = non_empty(&receiver.address2) {
        y += 4.8;
        c.text(RECEIVER_LINE, MARGIN, y, INNER_W, address2);
    }
    y += 6.2;
    let city = format!("{} {}", receiver.postal_code, receiver.city);
    c.text(RECEIVER_CITY, MARGIN, y, INNER_W, &city);
    y += 6.2;
    c.text(RECEIVER_CITY, MARGIN, y, INNER_W, &receiver.country_code);
    c.rule(87.0, 0.8);

    // Reference and weight side by side, then the services.
    let split = 66.0;
    c.text(CAPTION, MARGIN, 91.0, INNER_W, "REFERENCE");
    c.text(VALUE, MARGIN, 96.0, split - MARGIN - 3.0, &input.reference);
    c.text(CAPTION, split, 91.0, INNER_W, "WEIGHT");
    let weight = format!("{} kg", display_weight(input.weight_kg));
    c.text(VALUE, split, 96.0, RIGHT - split, &weight);
    c.line(split - 2.0, 87.0, split - 2.0, 98.5, 0.4);
    c.rule(98.5, 0.4);
    c.text(CAPTION, MARGIN, 102.0, INNER_W, "SERVICES");
    let services = if input.services.is_empty() {
        String::from("-")
    } else {
        input.services.join(", ")
    };
    c.text(SERVICES, MARGIN, 106.0, INNER_W, &services);
    c.rule(109.0, 0.8);

    // Barcode, centred, with the tracking number under it.
    c.barcode(modules, BARS_TOP, BARS_HEIGHT);
    c.text_centered(
        TRACKING,
        LABEL_W / 2.0,
        BARS_TOP + BARS_HEIGHT + 5.0,
        &input.tracking_number,
    );
}

fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// The date of an RFC 3339 timestamp (`2026-11-22`), else the text as it is.
fn display_date(created_at: &str) -> String {
    match time::OffsetDateTime::parse(created_at, &time::format_description::well_known::Rfc3339) {
        Ok(t) => {
            let date = t.date();
            format!(
                "{:04}-{:02}-{:02}",
                date.year(),
                u8::from(date.month()),
                date.day()
            )
        }
        Err(_) => created_at.to_owned(),
    }
}

/// Up to three decimals, without trailing zeros: `1.25`, `2`, `0.125`.
fn display_weight(kg: f64) -> String {
    let text = format!("{kg:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

// ---------------------------------------------------------------------------------------------
// Drawing.

/// 1 mm in PDF points.
const PT_PER_MM: f32 = 72.0 / 25.4;

fn pt(mm: f32) -> f32 {
    mm * PT_PER_MM
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Font {
    Regular,
    Bold,
}

impl Font {
    fn resource(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"F1"),
            Font::Bold => Name(b"F2"),
        }
    }

    fn base_font(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"Helvetica"),
            Font::Bold => Name(b"Helvetica-Bold"),
        }
    }

    /// Advance width of a WinAnsi code in 1/1000 em.
    fn advance(self, code: u8) -> u16 {
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
fn text_width(font: Font, size: f32, text: &[u8]) -> f32 {
    let units: u32 = text.iter().map(|&b| u32::from(font.advance(b))).sum();
    // Font units to points, points to millimetres.
    units as f32 / 1000.0 * size / PT_PER_MM
}

/// The page content stream, addressed in label millimetres.
struct Canvas {
    content: Content,
    size: LabelSize,
}

impl Canvas {
    fn new(size: LabelSize) -> Canvas {
        Canvas {
            content: Content::new(),
            size,
        }
    }

    /// Page coordinates (points, origin bottom-left) of a label position.
    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        let (ox, oy) = self.size.label_origin_mm();
        let (_, page_h) = self.size.page_mm();
        (pt(ox + x), pt(page_h - oy - y))
    }

    fn show(&mut self, font: Font, size: f32, x: f32, y: f32, text: &[u8]) {
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
    fn text(&mut self, style: Style, x: f32, y: f32, max_w: f32, text: &str) {
        let (size, bytes) = fit(style, max_w, win_ansi(text));
        self.show(style.font, size, x, y, &bytes);
    }

    /// Text ending at `right`, fitted to the label's inner width; returns its width.
    fn text_right(&mut self, style: Style, right: f32, y: f32, text: &str) -> f32 {
        let (size, bytes) = fit(style, INNER_W, win_ansi(text));
        let width = text_width(style.font, size, &bytes);
        self.show(style.font, size, right - width, y, &bytes);
        width
    }

    /// Text centred on `centre`, fitted to the label's inner width.
    fn text_centered(&mut self, style: Style, centre: f32, y: f32, text: &str) {
        let (size, bytes) = fit(style, INNER_W, win_ansi(text));
        let width = text_width(style.font, size, &bytes);
        self.show(style.font, size, centre - width / 2.0, y, &bytes);
    }

    fn line(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, width_pt: f32) {
        let (ax, ay) = self.at(x1, y1);
        let (bx, by) = self.at(x2, y2);
        self.content.set_line_width(width_pt);
        self.content.move_to(ax, ay);
        self.content.line_to(bx, by);
        self.content.stroke();
    }

    /// A horizontal line across the label.
    fn rule(&mut self, y: f32, width_pt: f32) {
        self.line(MARGIN, y, RIGHT, y, width_pt);
    }

    /// The dashed frame to cut the label out of an A4 sheet along.
    fn cutting_frame(&mut self) {
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
    fn barcode(&mut self, modules: &[u8], top: f32, height: f32) {
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
fn fit(style: Style, max_w: f32, mut text: Vec<u8>) -> (f32, Vec<u8>) {
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
fn split_line(style: Style, max_w: f32, text: &str) -> Option<(&str, &str)> {
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
fn win_ansi(text: &str) -> Vec<u8> {
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
const HELVETICA_ASCII: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,      // p..~
];

/// Advance widths of ASCII 32..=126 in Helvetica-Bold (Adobe Core 14 AFM), 1/1000 em.
#[rustfmt::skip]
const HELVETICA_BOLD_ASCII: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0..?
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P.._
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // `..o
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,      // p..~
];

// ---------------------------------------------------------------------------------------------
// Barcode.

/// The Code 128 module pattern (1 = bar, 0 = space, one entry per module) of `tracking`.
fn barcode_modules(tracking: &str) -> Result<Vec<u8>> {
    let invalid = |message: &str| Error::invalid("trackingNumber", message);
    if tracking.is_empty() {
        return Err(invalid("is required to print a label"));
    }
    if !tracking.chars().all(|c| matches!(c, ' '..='~')) {
        return Err(invalid(
            "must be printable ASCII to be encoded as a Code 128 barcode",
        ));
    }
    let barcode = Code128::new(code128_data(tracking))
        .map_err(|e| invalid(&format!("cannot be encoded as Code 128: {e}")))?;
    Ok(barcode.encode())
}

/// `tracking` in barcoders' Code 128 notation: each run of code set B starts with `Ɓ`, each run
/// of set C (digit pairs, half the width) with `Ć`. Set C is used where it makes the symbol
/// shorter: a digit run of 4 or more at either end (2 or more when all of it is digits), 6 or
/// more in the middle. `tracking` must be printable ASCII.
fn code128_data(tracking: &str) -> String {
    let chars: Vec<char> = tracking.chars().collect();
    let mut out = String::with_capacity(tracking.len() + 4);
    let mut set = None;
    let mut switch = |out: &mut String, to: char| {
        if set != Some(to) {
            out.push(to);
            set = Some(to);
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let at_start = i == 0;
        let at_end = i + run == chars.len();
        let worth_c = match (at_start, at_end) {
            (true, true) => run >= 2,
            (true, false) | (false, true) => run >= 4,
            (false, false) => run >= 6,
        };
        if worth_c {
            let mut digits = &chars[i..i + run];
            if run % 2 == 1 {
                // Set C takes digit pairs: the odd one out goes in set B first.
                switch(&mut out, 'Ɓ');
                out.push(digits[0]);
                digits = &digits[1..];
            }
            switch(&mut out, 'Ć');
            out.extend(digits);
            i += run;
        } else {
            switch(&mut out, 'Ɓ');
            let len = run.max(1);
            out.extend(&chars[i..i + len]);
            i += len;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use lopdf::{Document, Object, content::Content as Ops};

    use super::*;

    fn address(name: &str, city: &str, country: &str) -> LabelAddress {
        LabelAddress {
            name: name.to_owned(),
            attention: Some(String::from("Shipping desk")),
            address1: String::from("Main Street 1"),
            address2: Some(String::from("Building C")),
            postal_code: String::from("1000"),
            city: city.to_owned(),
            country_code: country.to_owned(),
            phone: Some(String::from("+45 12 34 56 78")),
        }
    }

    fn input() -> LabelInput {
        LabelInput {
            carrier_name: String::from("Sandbox Carrier"),
            product: String::from("Parcel Standard"),
            services: vec![String::from("Signature"), String::from("Insurance")],
            tracking_number: String::from("SB00340434161234567890"),
            reference: String::from("ORDER-4711"),
            sender: address("Shipbase Warehouse ApS", "Copenhagen", "DK"),
            receiver: address("Jane Receiver", "Aarhus", "DK"),
            weight_kg: 1.25,
            parcel_index: 1,
            parcel_count: 2,
            created_at: String::from("2026-11-22T10:15:30.123Z"),
        }
    }

    fn load(pdf: &[u8]) -> (Document, lopdf::ObjectId) {
        let doc = Document::load_mem(pdf).unwrap();
        let pages = doc.get_pages();
        assert_eq!(pages.len(), 1);
        let page = pages[&1];
        (doc, page)
    }

    fn number(object: &Object) -> f32 {
        match object {
            Object::Integer(i) => *i as f32,
            Object::Real(r) => *r,
            other => panic!("not a number: {other:?}"),
        }
    }

    fn operations(doc: &Document, page: lopdf::ObjectId) -> Vec<lopdf::content::Operation> {
        Ops::decode(&doc.get_page_content(page)).unwrap().operations
    }

    /// Filled rectangles (x, y, w, h in points), i.e. the barcode bars.
    fn filled_rects(doc: &Document, page: lopdf::ObjectId) -> Vec<[f32; 4]> {
        let mut pending = Vec::new();
        let mut filled = Vec::new();
        for op in operations(doc, page) {
            match op.operator.as_str() {
                "re" => {
                    let v: Vec<f32> = op.operands.iter().map(number).collect();
                    pending.push([v[0], v[1], v[2], v[3]]);
                }
                "f" | "F" | "f*" => filled.append(&mut pending),
                "S" | "s" | "n" | "B" | "b" | "B*" | "b*" => pending.clear(),
                _ => {}
            }
        }
        filled
    }

    /// Reads the drawn bars back into a module pattern.
    fn drawn_modules(rects: &[[f32; 4]]) -> (Vec<u8>, f32) {
        let x0 = rects.iter().map(|r| r[0]).fold(f32::INFINITY, f32::min);
        let module = rects.iter().map(|r| r[2]).fold(f32::INFINITY, f32::min);
        let mut modules = Vec::new();
        for r in rects {
            let start = ((r[0] - x0) / module).round() as usize;
            let len = (r[2] / module).round() as usize;
            assert!(
                ((r[2] / module) - len as f32).abs() < 0.01,
                "bar width is a whole number of modules"
            );
            if modules.len() < start + len {
                modules.resize(start + len, 0);
            }
            modules[start..start + len].fill(1);
        }
        (modules, module)
    }

    /// A Code 128 decoder for sets B and C, for checking what the bars say. The symbol table
    /// comes from the encoder's output for known values.
    fn decode_code128(modules: &[u8]) -> String {
        let symbol = |data: &str, at: usize| {
            Code128::new(data).unwrap().encode()[at * 11..at * 11 + 11].to_vec()
        };
        let mut table: HashMap<Vec<u8>, usize> = HashMap::new();
        for v in 0..100 {
            table.insert(symbol(&format!("Ć{v:02}"), 1), v);
        }
        table.insert(symbol("ĆƁA", 1), 100);
        table.insert(symbol("ƁA", 0), 104);
        table.insert(symbol("Ć00", 0), 105);

        let stop = [1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1];
        assert!(modules.ends_with(&stop), "stop pattern");
        let body = &modules[..modules.len() - stop.len()];
        assert_eq!(body.len() % 11, 0, "whole symbols");
        let values: Vec<usize> = body
            .chunks(11)
            .map(|s| *table.get(s).unwrap_or_else(|| panic!("symbol {s:?}")))
            .collect();
        let (&check, symbols) = values.split_last().unwrap();
        let sum: usize = symbols.iter().enumerate().map(|(i, v)| v * i.max(1)).sum();
        assert_eq!(sum % 103, check, "checksum");

        let mut set_c = match symbols[0] {
            104 => false,
            105 => true,
            other => panic!("start symbol {other}"),
        };
        let mut text = String::new();
        for &v in &symbols[1..] {
            match (set_c, v) {
                (false, 99) => set_c = true,
                (true, 100) => set_c = false,
                (false, 0..=94) => text.push(char::from(u8::try_from(v + 32).unwrap())),
                (true, 0..=99) => text.push_str(&format!("{v:02}")),
                other => panic!("unexpected symbol {other:?}"),
            }
        }
        text
    }

    #[test]
    fn sizes_parse_from_and_print_as_api_names() {
        assert_eq!(LabelSize::parse("A4"), Some(LabelSize::A4));
        assert_eq!(LabelSize::parse("100X150"), Some(LabelSize::Label100x150));
        assert_eq!(LabelSize::parse("100x150"), Some(LabelSize::Label100x150));
        assert_eq!(LabelSize::parse("A5"), None);
        assert_eq!(LabelSize::A4.as_str(), "A4");
        assert_eq!(LabelSize::Label100x150.as_str(), "100X150");
    }

    #[test]
    fn both_sizes_render_a_complete_pdf() {
        for size in [LabelSize::A4, LabelSize::Label100x150] {
            let pdf = render(&input(), size).unwrap();
            assert!(pdf.starts_with(b"%PDF-"), "{size:?}");
            assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"), "{size:?}");
        }
    }

    #[test]
    fn media_box_matches_the_size() {
        for (size, w, h) in [
            (LabelSize::A4, 595.276, 841.89),
            (LabelSize::Label100x150, 283.465, 425.197),
        ] {
            let (doc, page) = load(&render(&input(), size).unwrap());
            let media_box = doc
                .get_dictionary(page)
                .unwrap()
                .get(b"MediaBox")
                .unwrap()
                .as_array()
                .unwrap();
            let values: Vec<f32> = media_box.iter().map(number).collect();
            assert_eq!(values.len(), 4);
            assert!(
                values[0].abs() < 0.01 && values[1].abs() < 0.01,
                "{size:?}: {values:?}"
            );
            assert!(
                (values[2] - w).abs() < 0.01 && (values[3] - h).abs() < 0.01,
                "{size:?}: {values:?}"
            );
        }
    }

    #[test]
    fn label_text_is_extractable() {
        for size in [LabelSize::A4, LabelSize::Label100x150] {
            let (doc, _) = load(&render(&input(), size).unwrap());
            let text = doc.extract_text(&[1]).unwrap();
            for expected in [
                "SB00340434161234567890",
                "ORDER-4711",
                "Jane Receiver",
                "Shipbase Warehouse ApS",
                "Sandbox Carrier",
                "Parcel Standard",
                "Parcel 1 of 2",
                "1.25 kg",
                "2026-11-22",
                "FROM",
                "TO",
                "Signature, Insurance",
            ] {
                assert!(
                    text.contains(expected),
                    "{size:?}: {expected:?} missing from {text:?}"
                );
            }
        }
    }

    #[test]
    fn fonts_are_standard_helvetica_in_win_ansi() {
        let (doc, _) = load(&render(&input(), LabelSize::A4).unwrap());
        let mut fonts = Vec::new();
        for object in doc.objects.values() {
            if let Ok(dict) = object.as_dict()
                && dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"Font".as_slice())
            {
                assert_eq!(dict.get(b"Subtype").unwrap().as_name().unwrap(), b"Type1");
                assert_eq!(
                    dict.get(b"Encoding").unwrap().as_name().unwrap(),
                    b"WinAnsiEncoding"
                );
                assert!(
                    dict.get(b"FontFile").is_err() && dict.get(b"FontDescriptor").is_err(),
                    "nothing embedded"
                );
                fonts.push(
                    String::from_utf8(dict.get(b"BaseFont").unwrap().as_name().unwrap().to_vec())
                        .unwrap(),
                );
            }
        }
        fonts.sort();
        assert_eq!(fonts, ["Helvetica", "Helvetica-Bold"]);
    }

    #[test]
    fn barcode_bars_decode_to_the_tracking_number() {
        for tracking in [
            "SB00340434161234567890",
            "00340434161234567890",
            "JJD0001234",
            "1Z999AA10123456784",
            "abc-123/x",
        ] {
            let label = LabelInput {
                tracking_number: tracking.to_owned(),
                ..input()
            };
            for size in [LabelSize::A4, LabelSize::Label100x150] {
                let (doc, page) = load(&render(&label, size).unwrap());
                let rects = filled_rects(&doc, page);
                assert!(!rects.is_empty());
                let (drawn, module) = drawn_modules(&rects);
                let expected = Code128::new(code128_data(tracking)).unwrap().encode();
                assert_eq!(drawn, expected, "{tracking} {size:?}");
                assert_eq!(decode_code128(&drawn), tracking, "{size:?}");

                // Module width and quiet zones are printable, the bars all the same height.
                let module_mm = module / PT_PER_MM;
                assert!(
                    (MIN_MODULE..=MAX_MODULE + 1e-4).contains(&module_mm),
                    "{tracking}: {module_mm} mm"
                );
                let (ox, _) = size.label_origin_mm();
                let left_mm =
                    rects.iter().map(|r| r[0]).fold(f32::INFINITY, f32::min) / PT_PER_MM - ox;
                assert!(left_mm >= QUIET_ZONE * module_mm, "{tracking}: quiet zone");
                assert!(rects.iter().all(
                    |r| (r[3] - rects[0][3]).abs() < 0.01 && (r[1] - rects[0][1]).abs() < 0.01
                ));
                assert!((rects[0][3] / PT_PER_MM - BARS_HEIGHT).abs() < 0.01);
            }
        }
    }

    #[test]
    fn digit_runs_use_code_set_c() {
        assert_eq!(
            code128_data("00340434161234567890"),
            "Ć00340434161234567890"
        );
        assert_eq!(code128_data("12345"), "Ɓ1Ć2345");
        assert_eq!(code128_data("12"), "Ć12");
        assert_eq!(code128_data("1"), "Ɓ1");
        assert_eq!(code128_data("SB1234"), "ƁSBĆ1234");
        assert_eq!(code128_data("SB123"), "ƁSB123");
        assert_eq!(code128_data("A1234B"), "ƁA1234B");
        assert_eq!(code128_data("A123456B"), "ƁAĆ123456ƁB");
        assert_eq!(code128_data("A1234567B"), "ƁA1Ć234567ƁB");
        assert_eq!(code128_data("1234AB"), "Ć1234ƁAB");
    }

    #[test]
    fn a4_label_stays_in_the_top_left_100_by_150_area() {
        let (doc, page) = load(&render(&input(), LabelSize::A4).unwrap());
        let (left, top) = (pt(A4_OFFSET), pt(297.0 - A4_OFFSET));
        let (right, bottom) = (left + pt(LABEL_W), top - pt(LABEL_H));
        let inside = |x: f32, y: f32| {
            x >= left - 0.01 && x <= right + 0.01 && y >= bottom - 0.01 && y <= top + 0.01
        };
        let mut points = 0;
        for op in operations(&doc, page) {
            let v: Vec<f32> = op
                .operands
                .iter()
                .filter_map(|o| o.as_float().ok())
                .collect();
            match op.operator.as_str() {
                "Td" | "m" | "l" => {
                    assert!(inside(v[0], v[1]), "{} at {v:?}", op.operator);
                    points += 1;
                }
                "re" => {
                    assert!(
                        inside(v[0], v[1]) && inside(v[0] + v[2], v[1] + v[3]),
                        "re at {v:?}"
                    );
                    points += 1;
                }
                _ => {}
            }
        }
        assert!(points > 20);
    }

    #[test]
    fn non_ascii_names_render() {
        let mut label = input();
        label.receiver.name = String::from("Søren Ærø-Jensen");
        label.receiver.city = String::from("København Ø");
        label.sender.name = String::from("Café Noël Åse — “Test”");
        label.sender.city = String::from("Łódź 東京");
        label.reference = String::from("Bestellung für Zoë e\u{0301}");
        let text = {
            let (doc, _) = load(&render(&label, LabelSize::Label100x150).unwrap());
            doc.extract_text(&[1]).unwrap()
        };
        for expected in [
            "Søren Ærø-Jensen",
            "1000 København Ø",
            "Café Noël Åse — “Test”",
            "?ód? ??",
            "für Zoë e",
        ] {
            assert!(
                text.contains(expected),
                "{expected:?} missing from {text:?}"
            );
        }
    }

    #[test]
    fn win_ansi_matches_the_pdf_encoding() {
        let sample = "AZaz09 ~ é ø Å ß ÿ € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ";
        let encoded = win_ansi(sample);
        assert!(!encoded.contains(&b'?'));
        let decoded = Document::decode_text(
            &lopdf::Encoding::SimpleEncoding(b"WinAnsiEncoding"),
            &encoded,
        )
        .unwrap();
        assert_eq!(decoded, sample);
        assert_eq!(win_ansi("Ł東\t\u{1F4E6}"), b"?? ?");
    }

    #[test]
    fn long_text_is_shrunk_then_cut() {
        let long = "Incredibly Long Receiver Company Name International Holding GmbH & Co. KG";
        let (size, bytes) = fit(RECEIVER_NAME, INNER_W, win_ansi(long));
        assert_eq!(size, 9.0);
        assert_eq!(bytes.last(), Some(&0x85));
        assert!(text_width(Font::Bold, size, &bytes) <= INNER_W);
        let (size, bytes) = fit(RECEIVER_NAME, INNER_W, win_ansi("Jane Receiver"));
        assert_eq!((size, bytes), (14.0, win_ansi("Jane Receiver")));

        let mut label = input();
        label.receiver.name = long.to_owned();
        assert!(render(&label, LabelSize::A4).is_ok());
    }

    #[test]
    fn long_receiver_names_wrap_onto_two_lines() {
        let long = "Incredibly Long Receiver Company Name International Holding GmbH & Co. KG";
        let (first, rest) = split_line(RECEIVER_NAME_WRAPPED, INNER_W, long).unwrap();
        assert_eq!(format!("{first} {rest}"), long);
        assert!(text_width(Font::Bold, 12.0, &win_ansi(first)) <= INNER_W);
        assert_eq!(
            split_line(RECEIVER_NAME_WRAPPED, INNER_W, "Jane Receiver"),
            None
        );
        assert_eq!(
            split_line(RECEIVER_NAME_WRAPPED, INNER_W, &"W".repeat(60)),
            None
        );

        let mut label = input();
        label.receiver.name = long.to_owned();
        let (doc, _) = load(&render(&label, LabelSize::Label100x150).unwrap());
        let text = doc.extract_text(&[1]).unwrap();
        assert!(text.contains(first) && text.contains(rest), "{text:?}");
    }

    #[test]
    fn unencodable_tracking_numbers_are_rejected() {
        for tracking in ["", "SB-ø-1", "A\tB"] {
            let label = LabelInput {
                tracking_number: tracking.to_owned(),
                ..input()
            };
            match render(&label, LabelSize::A4) {
                Err(Error::Validation(errors)) => assert_eq!(errors[0].field, "trackingNumber"),
                other => panic!("{tracking:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn weight_and_date_formatting() {
        assert_eq!(display_weight(1.25), "1.25");
        assert_eq!(display_weight(2.0), "2");
        assert_eq!(display_weight(0.125), "0.125");
        assert_eq!(display_date("2026-11-22T23:15:30.123Z"), "2026-11-22");
        assert_eq!(display_date("22.11.2026"), "22.11.2026");
    }

    /// Writes sample labels for a visual check: `SHIPBASE_LABEL_DIR=/tmp/labels cargo test ...`.
    #[test]
    fn write_samples_when_asked() {
        let Ok(dir) = std::env::var("SHIPBASE_LABEL_DIR") else {
            return;
        };
        let mut label = input();
        label.receiver.name = String::from("Søren Ærø-Jensen");
        label.receiver.city = String::from("København Ø");
        for size in [LabelSize::A4, LabelSize::Label100x150] {
            let pdf = render(&label, size).unwrap();
            std::fs::write(format!("{dir}/label-{}.pdf", size.as_str()), pdf).unwrap();
        }
        // Worst case: long texts, characters outside WinAnsi, a long alphanumeric tracking number.
        label.carrier_name = String::from("Extremely Verbose International Parcel Carrier");
        label.receiver.name = String::from(
            "Incredibly Long Receiver Company Name International Holding GmbH & Co. KG",
        );
        label.receiver.attention = None;
        label.receiver.address2 = None;
        label.sender.city = String::from("Łódź 東京");
        label.tracking_number = String::from("JD014600006281230841AB-XY/77");
        label.parcel_index = 10;
        label.parcel_count = 12;
        let pdf = render(&label, LabelSize::Label100x150).unwrap();
        std::fs::write(format!("{dir}/label-long.pdf"), pdf).unwrap();
    }
}

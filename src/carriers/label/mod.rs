//! Shipping labels as PDF (DESIGN §7): one page with the sender, the receiver, the reference,
//! the weight, the carrier and product, "Parcel n of m", the date and a Code 128 barcode of the
//! tracking number.
//!
//! The label itself is always 100 × 150 mm. `100X150` is a page of exactly that size (thermal
//! label printers); `A4` puts the same label near the top-left corner of an A4 sheet inside a
//! dashed cutting frame. Text uses DejaVu Sans and DejaVu Sans Bold, embedded as subsets of the
//! glyphs the label shows (`font`), so every European script prints (Latin with Extended-A/B,
//! Greek, Cyrillic) and a text extractor reads back exactly what was sent. Content streams are
//! left uncompressed; the font subsets are compressed: a label is about 20–30 kilobytes.

use pdf_writer::{Finish, Pdf, Rect, Ref, TextStr};

use crate::error::Result;

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

impl LabelAddress {
    /// The party as lines: name, attention, street lines, then postal code and city (with the
    /// country on it when `with_country`).
    pub fn lines(&self, with_country: bool) -> Vec<String> {
        let mut lines = vec![self.name.clone()];
        if let Some(attention) = non_empty(&self.attention) {
            lines.push(format!("Att. {attention}"));
        }
        lines.push(self.address1.clone());
        if let Some(address2) = non_empty(&self.address2) {
            lines.push(address2.to_owned());
        }
        let city = format!("{} {}", self.postal_code, self.city);
        lines.push(if with_country {
            format!("{city}, {}", self.country_code)
        } else {
            city
        });
        lines
    }
}

/// The service point a parcel is delivered to: the carrier's id of it (`servicePointId`) and
/// its address (the `service_point` party), either of which may be missing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServicePoint {
    pub id: Option<String>,
    pub address: Option<LabelAddress>,
}

/// Everything a label shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelInput {
    pub carrier_name: String,
    pub product: String,
    pub services: Vec<String>,
    /// Encoded as the barcode; printable ASCII only. Empty when the parcel has no tracking
    /// number (a manual carrier's parcel the shop gave none for): the label then has no barcode
    /// and says so.
    pub tracking_number: String,
    /// Where the parcel is delivered instead of the receiver's door, if anywhere.
    pub service_point: Option<ServicePoint>,
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
/// Fails with a validation error on `trackingNumber` when the tracking number is not printable
/// ASCII, since Code 128 cannot encode it; an empty one prints no barcode and says so.
pub fn render(input: &LabelInput, size: LabelSize) -> Result<Vec<u8>> {
    let modules = if input.tracking_number.is_empty() {
        None
    } else {
        Some(barcode_modules(&input.tracking_number)?)
    };

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

    // Drawn once to learn the characters each font shows, then for real with their subsets.
    let mut probe = Canvas::probe(size);
    draw(&mut probe, input, modules.as_deref(), size);
    let subsets = [
        Subset::new(Font::Regular, probe.used(Font::Regular))?,
        Subset::new(Font::Bold, probe.used(Font::Bold))?,
    ];
    let mut canvas = Canvas::with(size, subsets);
    draw(&mut canvas, input, modules.as_deref(), size);
    let mut next = Ref::new(8);
    if let Some(subsets) = canvas.subsets() {
        for (id, subset) in [regular_id, bold_id].into_iter().zip(subsets) {
            subset.write(&mut pdf, id, &mut next)?;
        }
    }

    let title = format!("Shipping label {}", input.tracking_number);
    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&title));
    info.producer(TextStr("Shipbase"));
    info.finish();

    pdf.stream(content_id, &canvas.content.finish());

    Ok(pdf.finish())
}

/// The whole page: the label, and on A4 its cutting frame.
fn draw(canvas: &mut Canvas, input: &LabelInput, modules: Option<&[u8]>, size: LabelSize) {
    draw_label(canvas, input, modules);
    if size == LabelSize::A4 {
        canvas.cutting_frame();
    }
}

pub(crate) fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// The date of an RFC 3339 timestamp (`2026-11-22`), else the text as it is.
pub(crate) fn display_date(created_at: &str) -> String {
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
pub(crate) fn display_weight(kg: f64) -> String {
    let text = format!("{kg:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

mod barcode;
mod canvas;
mod font;
mod layout;
pub mod picture;
pub mod preview;
pub mod sheet;
pub mod test_page;
#[cfg(test)]
mod tests;
pub mod zpl;

use barcode::*;
use canvas::*;
pub use font::unprintable;
use font::{Font, Subset};
use layout::*;

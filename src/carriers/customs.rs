//! Customs and shop documents (DESIGN §17): the commercial invoice, the proforma invoice and the
//! packing list, as A4 PDFs made from the shipment's parties, its parcels' order lines and the
//! exporter (the organization) with its identifiers. Amounts are summed per currency; the
//! Incoterm is the shipment's `termOfTrade`. SKUs, descriptions and tariff numbers print whole,
//! wrapping in their cells.

use std::collections::BTreeMap;

use crate::{
    carriers::label::{
        LabelAddress, display_date, display_weight, non_empty,
        sheet::{Sheet, Type, bold, regular},
    },
    error::Result,
};

pub mod manifest;
mod table;

use table::{CELL, Column, Fit, LEFT, RIGHT, ROW};

pub const COMMERCIAL_INVOICE: &str = "commercial_invoice";
pub const PROFORMA_INVOICE: &str = "proforma_invoice";
pub const PACKING_LIST: &str = "packing_list";
/// The document types booking can make besides labels, in the order it makes them.
pub const TYPES: [&str; 3] = [COMMERCIAL_INVOICE, PROFORMA_INVOICE, PACKING_LIST];

/// One order line as the documents show it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// 1-based parcel the line is packed in.
    pub parcel: usize,
    pub sku: String,
    pub description: String,
    pub quantity: i64,
    pub unit_price: Option<f64>,
    pub currency: String,
    pub country_of_origin: String,
    pub tariff_number: String,
    pub location: String,
}

/// One parcel: its tracking number and gross weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParcelInfo {
    pub tracking_number: String,
    pub weight_kg: f64,
}

/// Everything the documents show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    /// The shipment's reference: the document's number.
    pub reference: String,
    /// RFC 3339; its date is printed.
    pub date: String,
    /// The exporter's name (the organization's company name); the sender's name when empty.
    pub exporter: String,
    /// Where the goods leave from: printed under the exporter's name, without its own name.
    pub sender: LabelAddress,
    pub receiver: LabelAddress,
    /// The exporter's identifiers as `(name, value)`, printed in this order, e.g.
    /// `("VAT", "DK11223344")`, `("EORI", "DK12345678")`.
    pub exporter_ids: Vec<(String, String)>,
    /// Incoterm, e.g. DAP.
    pub term_of_trade: String,
    pub carrier: String,
    pub product: String,
    pub parcels: Vec<ParcelInfo>,
    pub lines: Vec<Line>,
}

/// The amount of a line, when it has a unit price.
fn amount(line: &Line) -> Option<f64> {
    line.unit_price.map(|price| price * line.quantity as f64)
}

/// Sum of the lines' amounts per currency (lines without a price count nothing).
pub fn totals(lines: &[Line]) -> BTreeMap<String, f64> {
    let mut totals = BTreeMap::new();
    for line in lines {
        if let Some(amount) = amount(line) {
            *totals.entry(line.currency.clone()).or_insert(0.0) += amount;
        }
    }
    totals
}

fn money(value: f64) -> String {
    format!("{value:.2}")
}

const WIDTH: f32 = RIGHT - LEFT;

const TITLE: Type = bold(16.0);
const CAPTION: Type = bold(7.5);
const BODY: Type = regular(9.0);
const BODY_BOLD: Type = bold(9.0);

/// Renders one of `TYPES`.
pub fn render(kind: &str, input: &Input) -> Result<Vec<u8>> {
    let (title, heading) = match kind {
        COMMERCIAL_INVOICE => ("Commercial invoice", "COMMERCIAL INVOICE"),
        PROFORMA_INVOICE => ("Proforma invoice", "PROFORMA INVOICE"),
        _ => ("Packing list", "PACKING LIST"),
    };
    let mut sheet = Sheet::new();
    let y = header(&mut sheet, heading, input);
    if kind == PACKING_LIST {
        packing_table(&mut sheet, input, y);
    } else {
        invoice_table(&mut sheet, input, y, kind == PROFORMA_INVOICE);
    }
    sheet.finish(&format!("{title} {}", input.reference))
}

/// Title, number and date, the two parties and the shipment's facts; returns the y below them.
fn header(sheet: &mut Sheet, heading: &str, input: &Input) -> f32 {
    sheet.text(TITLE, LEFT, 22.0, WIDTH / 2.0, heading);
    sheet.text_right(
        BODY_BOLD,
        RIGHT,
        17.0,
        WIDTH / 2.0,
        &format!("No. {}", input.reference),
    );
    sheet.text_right(
        BODY,
        RIGHT,
        22.0,
        WIDTH / 2.0,
        &format!("Date {}", display_date(&input.date)),
    );
    sheet.line((LEFT, 26.0), (RIGHT, 26.0), 0.8);

    let half = WIDTH / 2.0 - 4.0;
    let mut sender = party_lines(&input.sender);
    let exporter = input.exporter.trim();
    if !exporter.is_empty() {
        sender[0] = exporter.to_string();
    }
    sender.extend(
        input
            .exporter_ids
            .iter()
            .map(|(name, value)| format!("{name}: {value}")),
    );
    let receiver = party_lines(&input.receiver);
    sheet.text(CAPTION, LEFT, 32.0, half, "EXPORTER / SENDER");
    sheet.text(
        CAPTION,
        LEFT + WIDTH / 2.0,
        32.0,
        half,
        "CONSIGNEE / RECEIVER",
    );
    // Each line of a party wraps in its half of the page rather than being cut.
    let mut party = |x: f32, lines: &[String]| {
        let mut y = 37.0;
        for (i, line) in lines.iter().enumerate() {
            let style = if i == 0 { BODY_BOLD } else { BODY };
            y += 4.3 * sheet.paragraph(style, x, y, half, 4.3, line) as f32;
        }
        y
    };
    let bottom = party(LEFT, &sender).max(party(LEFT + WIDTH / 2.0, &receiver));
    let mut y = bottom + 2.0;
    sheet.line((LEFT, y), (RIGHT, y), 0.5);
    y += 5.5;

    let weight: f64 = input.parcels.iter().map(|p| p.weight_kg).sum();
    let numbers: Vec<&str> = input
        .parcels
        .iter()
        .map(|p| p.tracking_number.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    let facts = [
        ("Incoterm", input.term_of_trade.clone()),
        (
            "Carrier",
            format!("{} ({})", input.carrier, input.product).replace(" ()", ""),
        ),
        ("Tracking", numbers.join(", ")),
        (
            "Parcels / gross weight",
            format!("{} / {} kg", input.parcels.len(), display_weight(weight)),
        ),
        (
            "Country of destination",
            input.receiver.country_code.clone(),
        ),
    ];
    for (label, value) in facts {
        sheet.text(CAPTION, LEFT, y, 48.0, &label.to_uppercase());
        let lines = sheet.paragraph(BODY, LEFT + 50.0, y, WIDTH - 50.0, 4.3, &value);
        y += 4.3 * lines as f32 + 1.2;
    }
    y + 3.0
}

/// A party's lines on a customs document: its address lines with the country, and its phone.
fn party_lines(p: &LabelAddress) -> Vec<String> {
    let mut lines = p.lines(true);
    if let Some(phone) = non_empty(&p.phone) {
        lines.push(format!("Tel. {phone}"));
    }
    lines
}

/// The invoices' columns (180 mm). A tariff number of 10 digits, or of 13 characters with dots
/// (`6117.10.00.00`), fits one line of its cell; a longer one wraps.
const INVOICE_COLUMNS: [Column; 8] = [
    Column("SKU", 25.0, Fit::Wrap),
    Column("Description", 44.0, Fit::Wrap),
    Column("Origin", 12.0, Fit::Left),
    Column("HS code", 24.0, Fit::Wrap),
    Column("Qty", 12.0, Fit::Right),
    Column("Unit price", 22.0, Fit::Right),
    Column("Amount", 26.0, Fit::Right),
    Column("Cur.", 15.0, Fit::Left),
];

/// The packing list's columns (180 mm).
const PACKING_COLUMNS: [Column; 4] = [
    Column("SKU", 32.0, Fit::Wrap),
    Column("Description", 78.0, Fit::Wrap),
    Column("Location", 40.0, Fit::Left),
    Column("Qty", 30.0, Fit::Right),
];

fn invoice_table(sheet: &mut Sheet, input: &Input, y: f32, proforma: bool) {
    let columns = INVOICE_COLUMNS;
    let mut y = table::head(sheet, &columns, y);
    for line in &input.lines {
        let cells = [
            line.sku.clone(),
            line.description.clone(),
            line.country_of_origin.clone(),
            line.tariff_number.clone(),
            line.quantity.to_string(),
            line.unit_price.map(money).unwrap_or_else(|| "—".into()),
            amount(line).map(money).unwrap_or_else(|| "—".into()),
            line.currency.clone(),
        ];
        y = table::row(sheet, &columns, y, &cells);
    }
    let totals = totals(&input.lines);
    y = table::next_row(
        sheet,
        &columns,
        y,
        4.0 + ROW * totals.len().max(1) as f32 + 30.0,
    );
    sheet.line((LEFT, y - 3.5), (RIGHT, y - 3.5), 0.6);
    let amount_right = RIGHT - 15.0 - 1.0;
    if totals.is_empty() {
        sheet.text_right(
            BODY_BOLD,
            amount_right,
            y + 1.0,
            80.0,
            "Total: no prices given",
        );
        y += ROW;
    }
    for (currency, total) in &totals {
        let label = if currency.is_empty() {
            "Total".to_string()
        } else {
            format!("Total {currency}")
        };
        sheet.text_right(BODY_BOLD, amount_right - 28.0, y + 1.0, 60.0, &label);
        sheet.text_right(BODY_BOLD, amount_right, y + 1.0, 26.0, &money(*total));
        sheet.text(BODY_BOLD, RIGHT - 15.0, y + 1.0, 15.0, currency);
        y += ROW;
    }
    y += 6.0;
    let note = if proforma {
        "Proforma invoice for customs purposes only: no payment is due. The values declared are the goods' value for customs."
    } else {
        "I declare that the information on this invoice is true and correct and that the contents of this shipment are as stated above."
    };
    let lines = sheet.paragraph(BODY, LEFT, y, WIDTH, 4.3, note);
    y += 4.3 * lines as f32 + 12.0;
    sheet.line((LEFT, y), (LEFT + 70.0, y), 0.5);
    sheet.text(CAPTION, LEFT, y + 4.0, 70.0, "SIGNATURE, NAME AND DATE");
}

fn packing_table(sheet: &mut Sheet, input: &Input, y: f32) {
    let columns = PACKING_COLUMNS;
    let cells = |line: &Line| {
        [
            line.sku.clone(),
            line.description.clone(),
            line.location.clone(),
            line.quantity.to_string(),
        ]
    };
    let mut y = table::head(sheet, &columns, y);
    for (i, parcel) in input.parcels.iter().enumerate() {
        let lines: Vec<&Line> = input.lines.iter().filter(|l| l.parcel == i + 1).collect();
        // The parcel's title stays with its first line (unless that line is taller than a page).
        let first = lines
            .first()
            .map_or(ROW, |line| table::height(&columns, &cells(line)));
        y = table::next_row(sheet, &columns, y, (ROW + first).min(table::ROOM));
        let title = format!(
            "Parcel {} of {} · {} · {} kg",
            i + 1,
            input.parcels.len(),
            if parcel.tracking_number.is_empty() {
                "no tracking number"
            } else {
                &parcel.tracking_number
            },
            display_weight(parcel.weight_kg)
        );
        sheet.text(BODY_BOLD, LEFT, y, WIDTH, &title);
        y += ROW;
        if lines.is_empty() {
            sheet.text(CELL, LEFT, y, WIDTH, "No order lines");
            y += ROW;
        }
        for line in lines {
            y = table::row(sheet, &columns, y, &cells(line));
        }
        y += 1.5;
    }
    let quantity: i64 = input.lines.iter().map(|l| l.quantity).sum();
    y = table::next_row(sheet, &columns, y, ROW * 2.0);
    sheet.line((LEFT, y - 3.5), (RIGHT, y - 3.5), 0.6);
    sheet.text_right(
        BODY_BOLD,
        RIGHT - 1.0,
        y + 1.0,
        WIDTH,
        &format!("Total quantity {quantity}"),
    );
}

#[cfg(test)]
mod tests;

//! The end-of-day manifest: an A4 list of what a carrier's driver takes, one row
//! per parcel with its shipment, receiver, tracking number and weight, the totals, and lines for
//! the driver's and the shop's signatures.

use crate::{
    carriers::label::{
        display_weight,
        sheet::{Sheet, Type, bold, regular},
    },
    error::Result,
};

use super::table::{self, Column, Fit, LEFT, RIGHT, ROW};

/// One parcel as the manifest lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub reference: String,
    /// Name, city and country.
    pub receiver: String,
    /// 1-based, of `parcels`.
    pub parcel: usize,
    pub parcels: usize,
    pub tracking_number: String,
    pub weight_kg: f64,
    /// Why the carrier's close left the shipment out, when it did.
    pub refused: Option<String>,
}

/// Everything the manifest shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ManifestSheet {
    pub id: String,
    /// `Name (slug)`.
    pub carrier: String,
    /// YYYY-MM-DD.
    pub date: String,
    pub organization: String,
    /// Where the driver collects (the senders' addresses, one line each).
    pub collected_from: Vec<String>,
    pub carrier_reference: Option<String>,
    /// Shipments closed (refused ones not counted).
    pub shipment_count: usize,
    pub rows: Vec<Row>,
}

impl ManifestSheet {
    /// The parcels closed (the rows the carrier did not refuse).
    fn closed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.refused.is_none())
    }

    /// How many parcels were closed.
    pub fn parcel_count(&self) -> usize {
        self.closed().count()
    }

    /// The closed parcels' weights added, in kilograms (to the gram).
    pub fn total_weight(&self) -> f64 {
        let kg: f64 = self.closed().map(|r| r.weight_kg).sum();
        (kg * 1000.0).round() / 1000.0
    }

    /// The line of totals under the table.
    pub fn totals(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "Total: {}, {}, {} kg",
            plural(self.shipment_count, "shipment", "shipments"),
            plural(self.parcel_count(), "parcel", "parcels"),
            display_weight(self.total_weight())
        )
    }
}

const WIDTH: f32 = RIGHT - LEFT;
const TITLE: Type = bold(16.0);
const CAPTION: Type = bold(8.0);
const BODY: Type = regular(9.0);

/// The manifest as an A4 PDF (as many pages as its rows need, the table's head on each).
pub fn pdf(sheet_data: &ManifestSheet) -> Result<Vec<u8>> {
    let mut sheet = Sheet::new();
    sheet.text(TITLE, LEFT, 22.0, WIDTH / 2.0, "MANIFEST");
    sheet.text_right(BODY, RIGHT, 17.0, WIDTH / 2.0, &sheet_data.id);
    sheet.text_right(BODY, RIGHT, 22.0, WIDTH / 2.0, &sheet_data.date);
    let mut facts = vec![
        ("Carrier", sheet_data.carrier.clone()),
        ("Date", sheet_data.date.clone()),
        ("Shipper", sheet_data.organization.clone()),
    ];
    for (i, place) in sheet_data.collected_from.iter().enumerate() {
        facts.push((if i == 0 { "Collected from" } else { "" }, place.clone()));
    }
    if let Some(reference) = &sheet_data.carrier_reference {
        facts.push(("Carrier's close", reference.clone()));
    }
    let mut y = 32.0;
    for (caption, value) in facts {
        sheet.text(CAPTION, LEFT, y, 32.0, caption);
        sheet.text(BODY, LEFT + 33.0, y, WIDTH - 33.0, &value);
        y += 5.0;
    }
    let columns = [
        Column("Reference", 34.0, Fit::Wrap),
        Column("Receiver", 52.0, Fit::Wrap),
        Column("Parcel", 14.0, Fit::Left),
        Column("Tracking number", 54.0, Fit::Wrap),
        Column("Weight kg", 26.0, Fit::Right),
    ];
    let mut y = table::head(&mut sheet, &columns, y + 4.0);
    for row in &sheet_data.rows {
        let receiver = match &row.refused {
            Some(why) => format!("{} (NOT CLOSED: {why})", row.receiver),
            None => row.receiver.clone(),
        };
        let cells = [
            row.reference.clone(),
            receiver,
            format!("{} / {}", row.parcel, row.parcels),
            row.tracking_number.clone(),
            display_weight(row.weight_kg),
        ];
        y = table::row(&mut sheet, &columns, y, &cells);
    }
    // Totals and the two signatures keep together, on a new page when they do not fit.
    let needed = ROW * 2.0 + 34.0;
    if y + needed > table::BOTTOM {
        sheet.new_page();
        y = 25.0;
    }
    sheet.line((LEFT, y - ROW + 1.8), (RIGHT, y - ROW + 1.8), 0.6);
    sheet.text(bold(10.0), LEFT, y + 1.0, WIDTH, &sheet_data.totals());
    let y = y + 22.0;
    for (x, caption) in [
        (LEFT, "Driver: name, signature, date and time"),
        (LEFT + WIDTH / 2.0 + 5.0, "Handed over by (shipper)"),
    ] {
        sheet.line((x, y), (x + WIDTH / 2.0 - 5.0, y), 0.6);
        sheet.text(regular(8.0), x, y + 4.0, WIDTH / 2.0 - 5.0, caption);
    }
    sheet.finish(&format!(
        "Manifest {} {}",
        sheet_data.carrier, sheet_data.date
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(parcels: usize) -> ManifestSheet {
        ManifestSheet {
            id: "mfst_01".into(),
            carrier: "Sandbox parcels (sandbox)".into(),
            date: "2031-03-04".into(),
            organization: "Nordlys Øst ApS".into(),
            collected_from: vec!["Lagervej 4, 8000 Aarhus C, DK".into()],
            carrier_reference: None,
            // ORD-1001 (the third and fourth parcels) is refused.
            shipment_count: parcels.div_ceil(2) - usize::from(parcels > 2),
            rows: (0..parcels)
                .map(|i| Row {
                    reference: format!("ORD-{}", 1000 + i / 2),
                    receiver: "Zoë Ångström, Malmö, SE".into(),
                    parcel: i % 2 + 1,
                    parcels: 2,
                    tracking_number: format!("SBX{:011}", i),
                    weight_kg: 1.25,
                    refused: (i / 2 == 1).then(|| "unknown shipment number".to_string()),
                })
                .collect(),
        }
    }

    fn text(pdf: &[u8]) -> (usize, String) {
        let doc = lopdf::Document::load_mem(pdf).unwrap_or_else(|e| panic!("{e}"));
        let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
        let text = doc.extract_text(&pages).unwrap_or_else(|e| panic!("{e}"));
        (pages.len(), text)
    }

    #[test]
    fn totals_count_shipments_parcels_and_weight() {
        // ORD-1001 was refused: not counted.
        assert_eq!(manifest(3).totals(), "Total: 1 shipment, 2 parcels, 2.5 kg");
        assert_eq!(manifest(4).totals(), "Total: 1 shipment, 2 parcels, 2.5 kg");
        assert_eq!(manifest(1).totals(), "Total: 1 shipment, 1 parcel, 1.25 kg");
    }

    #[test]
    fn the_pdf_lists_every_parcel_the_totals_and_the_signature_lines() {
        let data = manifest(3);
        let (pages, text) = text(&pdf(&data).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(pages, 1);
        for needle in [
            "MANIFEST",
            "Sandbox parcels (sandbox)",
            "2031-03-04",
            "Nordlys Øst ApS",
            "Lagervej 4, 8000 Aarhus C, DK",
            "SBX00000000000",
            "SBX00000000002",
            "ORD-1001",
            "Zoë Ångström, Malmö, SE",
            "Total: 1 shipment, 2 parcels, 2.5 kg",
            "Driver: name, signature, date and time",
            "Handed over by (shipper)",
        ] {
            assert!(text.contains(needle), "{needle} in {text}");
        }
        // The refusal wraps in the receiver's cell (its lines come out between the row's
        // other cells).
        let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("SE (NOT"), "{words}");
        assert!(
            words.contains("CLOSED: unknown shipment number)"),
            "{words}"
        );
    }

    #[test]
    fn a_long_day_runs_over_pages_and_keeps_its_totals() {
        let (pages, text) = text(&pdf(&manifest(120)).unwrap_or_else(|e| panic!("{e}")));
        assert!(pages >= 3, "{pages}");
        assert!(text.contains("SBX00000000119"), "{text}");
        assert!(
            text.contains("Total: 59 shipments, 118 parcels, 147.5 kg"),
            "{text}"
        );
        assert!(text.contains("Page 1 of"));
    }
}

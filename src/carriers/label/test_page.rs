//! A printer's test page: what it says, and as an A4 PDF (the documents' `Sheet`); the ZPL
//! version is `zpl::test_page`. It names the printer, where it is, what it takes, the
//! organization and when it was queued, and shows a line of European scripts, so that one sheet
//! tells whether the printer prints, and prints every character a label may hold.

use crate::error::Result;

use super::sheet::{A4_H, A4_W, Sheet, bold, regular};

/// The page's heading.
pub const TITLE: &str = "Shipbase test page";
/// What the page is for, under the heading.
pub const PURPOSE: &str = "If you can read this, the printer prints what Shipbase sends it.";
/// Letters of the scripts labels print: Latin with its accents, Greek, Cyrillic.
pub const SCRIPTS: &str = "Åå Ææ Øø Ää Öö Üü ß Čč Łł Őő Ññ Ελληνικά Кириллица";

/// Everything the test page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct TestPage {
    pub printer_name: String,
    /// `raw` or `ipp`.
    pub printer_kind: String,
    pub address: String,
    /// `pdf` or `zpl`.
    pub format: String,
    pub organization: String,
    /// RFC 3339; shown as `2026-11-26 10:15:30 UTC`.
    pub queued_at: String,
}

impl TestPage {
    /// The facts the page lists, each with its caption.
    pub fn facts(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Printer", self.printer_name.clone()),
            (
                "Address",
                format!("{} ({})", self.address, self.printer_kind),
            ),
            ("Format", self.format.to_uppercase()),
            ("Organization", self.organization.clone()),
            ("Queued at", display_time(&self.queued_at)),
            ("Characters", SCRIPTS.to_string()),
        ]
    }

    /// The print job's title (what an IPP printer shows in its queue).
    pub fn title(&self) -> String {
        format!("{TITLE}: {}", self.printer_name)
    }
}

/// `2026-11-26 10:15:30 UTC` for an RFC 3339 time; any other text as it is.
fn display_time(at: &str) -> String {
    use time::format_description::well_known::Rfc3339;
    match time::OffsetDateTime::parse(at, &Rfc3339) {
        Ok(t) => {
            let t = t.to_offset(time::UtcOffset::UTC);
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        }
        Err(_) => at.to_string(),
    }
}

/// The test page as a one-page A4 PDF, inside a frame 10 mm from the paper's edges (a printer
/// that cuts it off shows where its margins are).
pub fn pdf(page: &TestPage) -> Result<Vec<u8>> {
    const EDGE: f32 = 10.0;
    const X: f32 = 22.0;
    const CAPTION_W: f32 = 36.0;
    const LEADING: f32 = 6.0;
    let width = A4_W - 2.0 * X;
    let mut sheet = Sheet::new();
    let corners = [
        (EDGE, EDGE),
        (A4_W - EDGE, EDGE),
        (A4_W - EDGE, A4_H - EDGE),
        (EDGE, A4_H - EDGE),
    ];
    for (i, from) in corners.iter().enumerate() {
        sheet.line(*from, corners[(i + 1) % corners.len()], 1.0);
    }
    sheet.text(bold(24.0), X, 40.0, width, TITLE);
    let mut y = 52.0;
    y += LEADING * sheet.paragraph(regular(11.0), X, y, width, LEADING, PURPOSE) as f32;
    sheet.line((X, y), (A4_W - X, y), 0.75);
    y += 10.0;
    for (caption, value) in page.facts() {
        sheet.text(bold(11.0), X, y, CAPTION_W, caption);
        let lines = sheet.paragraph(
            regular(11.0),
            X + CAPTION_W + 4.0,
            y,
            width - CAPTION_W - 4.0,
            LEADING,
            &value,
        );
        y += LEADING * lines as f32 + 3.0;
    }
    sheet.finish(&page.title())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> TestPage {
        TestPage {
            printer_name: "Pakkebord Øst".into(),
            printer_kind: "raw".into(),
            address: "192.168.1.50:9100".into(),
            format: "pdf".into(),
            organization: "Ακμή Κυριλλικά Ltd".into(),
            queued_at: "2026-11-26T10:15:30.123Z".into(),
        }
    }

    #[test]
    fn the_facts_name_the_printer_its_address_format_organization_and_time() {
        let facts = page().facts();
        assert_eq!(
            facts[..5],
            [
                ("Printer", "Pakkebord Øst".to_string()),
                ("Address", "192.168.1.50:9100 (raw)".to_string()),
                ("Format", "PDF".to_string()),
                ("Organization", "Ακμή Κυριλλικά Ltd".to_string()),
                ("Queued at", "2026-11-26 10:15:30 UTC".to_string()),
            ]
        );
        assert_eq!(display_time("yesterday"), "yesterday");
    }

    #[test]
    fn the_pdf_is_one_a4_page_that_reads_back_every_fact() {
        let pdf = pdf(&page()).unwrap_or_else(|e| panic!("{e}"));
        let doc = lopdf::Document::load_mem(&pdf).unwrap_or_else(|e| panic!("{e}"));
        let pages = doc.get_pages();
        assert_eq!(pages.len(), 1);
        let text = doc.extract_text(&[1]).unwrap_or_else(|e| panic!("{e}"));
        for (_, value) in page().facts() {
            assert!(text.contains(&value), "{value} in {text}");
        }
        assert!(text.contains(TITLE), "{text}");
    }
}

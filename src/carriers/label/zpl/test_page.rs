//! A printer's test page in ZPL II, on the label's 100 × 150 mm at 203 dpi: a frame just inside
//! the label's edges, the heading, and each fact of `TestPage` under its caption, fitted as the
//! label's fields are (font 0 when it shows every character, else drawn with the embedded font).

use std::fmt::Write;

use super::{
    CAPTION, HEIGHT, INNER, MARGIN, WIDTH, left, rule,
    text::{Fitted, fit, style},
};
use crate::carriers::label::{
    font::Font,
    test_page::{PURPOSE, TITLE, TestPage},
};

const HEADING: super::text::Style = style(Font::Bold, 56, 40);
const PURPOSE_TEXT: super::text::Style = style(Font::Regular, 24, 20);
const VALUE: super::text::Style = style(Font::Regular, 34, 24);
/// Dots between the frame and the label's edge.
const FRAME: u32 = 12;

/// The test page as a ZPL program, `^XA` … `^XZ`.
pub fn render(page: &TestPage) -> String {
    let mut z = String::new();
    z.push_str("^XA\n^CI28\n");
    let _ = writeln!(z, "^PW{WIDTH}\n^LL{HEIGHT}");
    let _ = writeln!(
        z,
        "^FO{FRAME},{FRAME}^GB{},{},4^FS",
        WIDTH - 2 * FRAME,
        HEIGHT - 2 * FRAME
    );
    left(&mut z, 40, &fit(HEADING, INNER, 1, TITLE));
    let purpose = fit(PURPOSE_TEXT, INNER, 2, PURPOSE);
    left(&mut z, 112, &purpose);
    let mut y = 112 + purpose.block_height() + 8;
    rule(&mut z, y, 3);
    y += 20;
    for (caption, value) in page.facts() {
        left(&mut z, y, &fit(CAPTION, INNER, 1, &caption.to_uppercase()));
        y += 28;
        let value: Fitted = fit(VALUE, INNER, 2, &value);
        if y + value.block_height() > HEIGHT - MARGIN {
            break;
        }
        left(&mut z, y, &value);
        y += value.block_height() + 14;
    }
    z.push_str("^XZ\n");
    z
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(name: &str) -> TestPage {
        TestPage {
            printer_name: name.into(),
            printer_kind: "raw".into(),
            address: "192.168.1.50:9100".into(),
            format: "zpl".into(),
            organization: "Acme Shop".into(),
            queued_at: "2026-11-26T10:15:30.123Z".into(),
        }
    }

    #[test]
    fn a_program_at_the_label_size_with_every_fact() {
        let z = render(&page("Packing desk"));
        assert!(z.starts_with("^XA\n^CI28\n^PW800\n^LL1200\n"), "{z}");
        assert!(z.ends_with("^XZ\n"));
        for text in [
            "Shipbase test page",
            "Packing desk",
            "192.168.1.50:9100 (raw)",
            "ZPL",
            "Acme Shop",
            "2026-11-26 10:15:30 UTC",
        ] {
            assert!(z.contains(&format!("^FD{text}^FS")), "{text} in {z}");
        }
        // The scripts line is drawn: font 0 cannot show it.
        assert!(z.contains("^GFA,"), "{z}");
    }

    #[test]
    fn a_name_font_0_cannot_show_is_drawn_and_a_long_one_wraps() {
        let z = render(&page("Упаковка Ωmega Łódź"));
        assert!(!z.contains("^FDУпаковка"), "{z}");
        let long = "Packing desk by the loading bay door number twelve on the left";
        let z = render(&page(long));
        assert!(z.contains("^FDPacking desk by the"), "{z}");
        assert!(!z.contains(&format!("^FD{long}^FS")), "{z}");
    }
}

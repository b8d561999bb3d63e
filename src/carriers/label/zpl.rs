//! Labels in ZPL II for thermal printers (DESIGN §17): 100 × 150 mm at 203 dpi (8 dots/mm), the
//! same content as the PDF label: carrier and product, "Parcel n of m", the date, sender,
//! receiver, reference, weight, services, and a Code 128 barcode of the parcel's tracking number
//! (`^BC`, the printer draws it). Text is UTF-8 (`^CI28`) in the printer's scalable font, with
//! `^FH` hex escapes for the characters ZPL reserves.

use super::{LabelInput, display_date, display_weight, non_empty};
use unicode_normalization::UnicodeNormalization;

/// Dots per millimetre at 203 dpi.
const DOTS_PER_MM: u32 = 8;

/// The label as a ZPL II program, `^XA` … `^XZ`.
pub fn render(input: &LabelInput) -> String {
    let mut zpl = Zpl::default();
    zpl.line("^XA");
    zpl.line("^CI28");
    zpl.line(&format!("^PW{}", 100 * DOTS_PER_MM));
    zpl.line(&format!("^LL{}", 150 * DOTS_PER_MM));
    zpl.text(4, 4, 5, &input.carrier_name);
    zpl.text(4, 11, 3, &input.product);
    zpl.text(
        62,
        4,
        4,
        &format!("Parcel {} of {}", input.parcel_index, input.parcel_count),
    );
    zpl.text(62, 11, 3, &display_date(&input.created_at));
    zpl.rule(17);

    let sender = &input.sender;
    zpl.text(4, 19, 2, "FROM");
    let mut y = 23;
    for line in address_lines(sender) {
        zpl.text(4, y, 3, &line);
        y += 4;
    }
    zpl.rule(43);

    let receiver = &input.receiver;
    zpl.text(4, 45, 3, "TO");
    let mut y = 50;
    zpl.text(4, y, 6, &receiver.name);
    y += 8;
    for line in address_lines(receiver).into_iter().skip(1) {
        zpl.text(4, y, 5, &line);
        y += 6;
    }
    zpl.rule(92);

    zpl.text(4, 94, 2, "REFERENCE");
    zpl.text(4, 98, 4, &input.reference);
    zpl.text(66, 94, 2, "WEIGHT");
    zpl.text(
        66,
        98,
        4,
        &format!("{} kg", display_weight(input.weight_kg)),
    );
    zpl.text(4, 104, 2, "SERVICES");
    zpl.text(4, 108, 3, &input.services.join(", "));
    zpl.rule(113);

    // Code 128 with the interpretation line under it, centred on the label.
    zpl.line(&format!(
        "^FO{},{}^BY3^BCN,{},Y,N,N^FH^FD{}^FS",
        8 * DOTS_PER_MM,
        116 * DOTS_PER_MM,
        22 * DOTS_PER_MM,
        escape(&input.tracking_number)
    ));
    zpl.line("^XZ");
    zpl.0
}

fn address_lines(a: &super::LabelAddress) -> Vec<String> {
    let mut lines = vec![a.name.clone()];
    if let Some(attention) = non_empty(&a.attention) {
        lines.push(format!("Att. {attention}"));
    }
    lines.push(a.address1.clone());
    if let Some(address2) = non_empty(&a.address2) {
        lines.push(address2.to_owned());
    }
    lines.push(format!("{} {}, {}", a.postal_code, a.city, a.country_code));
    lines
}

#[derive(Default)]
struct Zpl(String);

impl Zpl {
    fn line(&mut self, text: &str) {
        self.0.push_str(text);
        self.0.push('\n');
    }

    /// A field of text at (`x`, `y`) millimetres, `height` millimetres tall.
    fn text(&mut self, x: u32, y: u32, height: u32, text: &str) {
        let dots = height * DOTS_PER_MM;
        self.line(&format!(
            "^FO{},{}^A0N,{dots},{dots}^FH^FD{}^FS",
            x * DOTS_PER_MM,
            y * DOTS_PER_MM,
            escape(text)
        ));
    }

    fn rule(&mut self, y: u32) {
        self.line(&format!(
            "^FO{},{}^GB{},2,2^FS",
            4 * DOTS_PER_MM,
            y * DOTS_PER_MM,
            92 * DOTS_PER_MM
        ));
    }
}

/// Field data in NFC with `^`, `~` and the `^FH` escape character `_` written as hex escapes,
/// and control characters dropped.
fn escape(text: &str) -> String {
    text.nfc()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '^' => "_5E".to_string(),
            '~' => "_7E".to_string(),
            '_' => "_5F".to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carriers::label::LabelAddress;

    fn address(name: &str, city: &str) -> LabelAddress {
        LabelAddress {
            name: name.into(),
            attention: None,
            address1: "ul. Świętokrzyska 12".into(),
            address2: None,
            postal_code: "00-916".into(),
            city: city.into(),
            country_code: "PL".into(),
            phone: None,
        }
    }

    #[test]
    fn a_label_is_one_program_with_the_parcels_barcode_and_the_addresses() {
        let input = LabelInput {
            carrier_name: "Sandbox".into(),
            product: "standard".into(),
            tracking_number: "SBX12345678901234".into(),
            reference: "ORDER^1_x~".into(),
            sender: address("Shipbase Warehouse", "Aarhus"),
            receiver: address("Łukasz Żółć", "Warszawa"),
            weight_kg: 1.5,
            parcel_index: 2,
            parcel_count: 3,
            created_at: "2026-11-23T10:00:00.000Z".into(),
            ..LabelInput::default()
        };
        let zpl = render(&input);
        assert!(
            zpl.starts_with("^XA\n^CI28\n") && zpl.ends_with("^XZ\n"),
            "{zpl}"
        );
        assert_eq!(zpl.matches("^XA").count(), 1);
        assert!(
            zpl.contains("^BCN,176,Y,N,N^FH^FDSBX12345678901234^FS"),
            "{zpl}"
        );
        for text in [
            "Łukasz Żółć",
            "ul. Świętokrzyska 12",
            "00-916 Warszawa, PL",
            "Parcel 2 of 3",
            "1.5 kg",
            "2026-11-23",
        ] {
            assert!(zpl.contains(text), "{text} missing from {zpl}");
        }
        // Reserved characters never end a field early.
        assert!(zpl.contains("^FDORDER_5E1_5Fx_7E^FS"), "{zpl}");
        // Every field is opened and closed.
        assert_eq!(zpl.matches("^FO").count(), zpl.matches("^FS").count());
    }
}

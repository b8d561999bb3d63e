//! Tests of label rendering: PDF structure, text, fonts, barcode, layout.

use std::collections::HashMap;

use lopdf::{Document, Object, content::Content as Ops};

use barcoders::sym::code128::Code128;

use super::*;
use crate::error::Error;

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

pub(super) fn input() -> LabelInput {
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
        service_point: None,
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
fn fonts_are_embedded_dejavu_subsets_with_a_unicode_map() {
    let (doc, _) = load(&render(&input(), LabelSize::A4).unwrap());
    let mut fonts = Vec::new();
    for object in doc.objects.values() {
        if let Ok(dict) = object.as_dict()
            && dict.get(b"Type").and_then(Object::as_name).ok() == Some(b"Font".as_slice())
            && dict.get(b"Subtype").unwrap().as_name().unwrap() == b"Type0"
        {
            assert_eq!(
                dict.get(b"Encoding").unwrap().as_name().unwrap(),
                b"Identity-H"
            );
            assert!(dict.get(b"ToUnicode").is_ok(), "extractable text");
            let base =
                String::from_utf8(dict.get(b"BaseFont").unwrap().as_name().unwrap().to_vec())
                    .unwrap();
            // A subset is named "ABCDEF+Font".
            let (tag, name) = base.split_once('+').unwrap();
            assert!(
                tag.len() == 6 && tag.chars().all(|c| c.is_ascii_uppercase()),
                "{base}"
            );
            fonts.push(name.to_owned());
        }
    }
    fonts.sort();
    assert_eq!(fonts, ["DejaVuSans", "DejaVuSans-Bold"]);
}

#[test]
fn every_european_script_prints_and_extracts_back() {
    let mut label = input();
    label.receiver.name = String::from("Łukasz Żółć");
    label.receiver.address1 = String::from("ul. Świętokrzyska 12");
    label.receiver.city = String::from("Θεσσαλονίκη");
    label.receiver.attention = Some(String::from("Дмитрий Ковалёв"));
    label.sender.city = String::from("Čačak Ğ ß œ Ŧ ǅ");
    for size in [LabelSize::A4, LabelSize::Label100x150] {
        let pdf = render(&label, size).unwrap();
        assert!(pdf.len() <= 60_000, "{size:?}: {} bytes", pdf.len());
        let (doc, _) = load(&pdf);
        let text = doc.extract_text(&[1]).unwrap();
        for expected in [
            "Łukasz Żółć",
            "ul. Świętokrzyska 12",
            "Θεσσαλονίκη",
            "Дмитрий Ковалёв",
            "Čačak Ğ ß œ Ŧ ǅ",
        ] {
            assert!(
                text.contains(expected),
                "{size:?}: {expected:?} missing from {text:?}"
            );
        }
        assert!(!text.contains('?'), "{text:?}");
    }
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
            let left_mm = rects.iter().map(|r| r[0]).fold(f32::INFINITY, f32::min) / PT_PER_MM - ox;
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
        // Polish prints; Japanese is in no embedded font.
        "Łódź ??",
        // A decomposed accent is composed (NFC), not lost.
        "für Zoë é",
    ] {
        assert!(
            text.contains(expected),
            "{expected:?} missing from {text:?}"
        );
    }
}

#[test]
fn characters_the_font_lacks_print_as_question_marks() {
    assert_eq!(
        printable(Font::Regular, "Ł東\t\u{1F4E6}é\u{0301}"),
        ['Ł', '?', ' ', '?', 'é']
    );
}

#[test]
fn long_text_is_shrunk_then_cut() {
    let long = "Incredibly Long Receiver Company Name International Holding GmbH & Co. KG";
    let (size, chars) = fit(RECEIVER_NAME, INNER_W, printable(Font::Bold, long));
    assert_eq!(size, 9.0);
    assert_eq!(chars.last(), Some(&'…'));
    assert!(text_width(Font::Bold, size, &chars) <= INNER_W);
    let (size, chars) = fit(
        RECEIVER_NAME,
        INNER_W,
        printable(Font::Bold, "Jane Receiver"),
    );
    assert_eq!(
        (size, chars),
        (14.0, printable(Font::Bold, "Jane Receiver"))
    );

    let mut label = input();
    label.receiver.name = long.to_owned();
    assert!(render(&label, LabelSize::A4).is_ok());
}

fn receiver_line(text: &str) -> Field {
    Field {
        text: text.to_owned(),
        style: RECEIVER_NAME,
        wrap_below: 11.0,
        wrapped: Style {
            font: Font::Bold,
            size: 12.0,
            min_size: 9.0,
        },
        gap: 0.0,
        wrapped_gap: 5.0,
    }
}

fn texts(lines: &[Line]) -> Vec<String> {
    lines.iter().map(|l| l.chars.iter().collect()).collect()
}

#[test]
fn long_lines_wrap_onto_two_lines_and_keep_their_end() {
    let long = "Incredibly Long Receiver Company Name International Holding GmbH & Co. KG";
    let lines = lines_of(&receiver_line(long), INNER_W);
    assert_eq!(lines.len(), 2);
    assert_eq!(texts(&lines).join(" "), long);
    assert!(
        lines
            .iter()
            .all(|l| text_width(Font::Bold, l.size, &l.chars) <= INNER_W)
    );
    assert_eq!((lines[0].size, lines[1].gap), (12.0, 5.0));

    // A line that fits stays whole and unshrunk.
    let short = lines_of(&receiver_line("Jane Receiver"), INNER_W);
    assert_eq!(
        (texts(&short), short[0].size),
        (vec!["Jane Receiver".to_owned()], 14.0)
    );

    // The house number at the end of a long street is never cut.
    let street = "Bahnhofstraße der Wiedervereinigung und Völkerverständigung 123a";
    let lines = lines_of(&receiver_line(street), INNER_W);
    assert_eq!(texts(&lines).join(" "), street);
    assert!(texts(&lines)[1].ends_with("123a"));

    // One word too long for a line breaks between characters.
    let word = "W".repeat(40);
    let lines = lines_of(&receiver_line(&word), INNER_W);
    assert_eq!(texts(&lines).concat(), word);

    let mut label = input();
    label.receiver.name = long.to_owned();
    label.receiver.address1 = street.to_owned();
    for size in [LabelSize::A4, LabelSize::Label100x150] {
        let (doc, _) = load(&render(&label, size).unwrap());
        let text = doc
            .extract_text(&[1])
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains(long) && text.contains(street), "{text:?}");
    }
}

#[test]
fn a_service_point_prints_its_id_name_and_address() {
    let mut label = input();
    label.service_point = Some(ServicePoint {
        id: Some(String::from("SP-4711")),
        address: Some(address("Kiosk Nørreport", "København K", "DK")),
    });
    let (doc, page) = load(&render(&label, LabelSize::Label100x150).unwrap());
    let text = doc.extract_text(&[1]).unwrap();
    for part in [
        "SERVICE POINT",
        "SP-4711 · Kiosk Nørreport",
        "Main Street 1",
        "1000 København K",
    ] {
        assert!(text.contains(part), "{part} missing from {text:?}");
    }
    // The barcode still encodes the parcel's number whole.
    let (drawn, _) = drawn_modules(&filled_rects(&doc, page));
    assert_eq!(decode_code128(&drawn), label.tracking_number);
}

#[test]
fn a_parcel_without_a_tracking_number_prints_no_barcode_and_says_so() {
    let label = LabelInput {
        tracking_number: String::new(),
        ..input()
    };
    let (doc, page) = load(&render(&label, LabelSize::A4).unwrap());
    assert!(filled_rects(&doc, page).is_empty());
    let text = doc.extract_text(&[1]).unwrap();
    assert!(text.contains("NO TRACKING NUMBER"), "{text:?}");
}

#[test]
fn unencodable_tracking_numbers_are_rejected() {
    for tracking in ["SB-ø-1", "A\tB"] {
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
    // Worst case: long texts, characters no font has, a long alphanumeric tracking number.
    label.carrier_name = String::from("Extremely Verbose International Parcel Carrier");
    label.receiver.name =
        String::from("Incredibly Long Receiver Company Name International Holding GmbH & Co. KG");
    label.receiver.attention = None;
    label.receiver.address2 = None;
    label.sender.city = String::from("Łódź 東京");
    label.tracking_number = String::from("JD014600006281230841AB-XY/77");
    label.parcel_index = 10;
    label.parcel_count = 12;
    let pdf = render(&label, LabelSize::Label100x150).unwrap();
    std::fs::write(format!("{dir}/label-long.pdf"), pdf).unwrap();
    // Every line of the receiver long, a service point, a 26-character number.
    label.receiver = address(
        "Εταιρεία Διεθνών Μεταφορών και Αποθήκευσης Α.Ε.",
        "Θεσσαλονίκη",
        "GR",
    );
    label.receiver.attention = Some(String::from(
        "Τμήμα παραλαβής εμπορευμάτων, ράμπα φόρτωσης 4",
    ));
    label.receiver.address1 =
        String::from("Λεωφόρος Βασιλίσσης Σοφίας και Μεγάλου Αλεξάνδρου 123α");
    label.receiver.address2 = Some(String::from("Βιομηχανική Περιοχή Σίνδου, Οικόπεδο 12Β"));
    label.service_point = Some(ServicePoint {
        id: Some(String::from("GR-ACS-55012")),
        address: Some(address("ACS Courier Καλαμαριά", "Καλαμαριά", "GR")),
    });
    label.tracking_number = String::from("JJD00012345678901234567890");
    let pdf = render(&label, LabelSize::Label100x150).unwrap();
    std::fs::write(format!("{dir}/label-crowded.pdf"), pdf).unwrap();
    label.tracking_number = String::new();
    label.service_point = None;
    let pdf = render(&label, LabelSize::A4).unwrap();
    std::fs::write(format!("{dir}/label-unnumbered.pdf"), pdf).unwrap();
}

use super::*;
use crate::carriers::label::sheet::wrap;

fn address(name: &str, city: &str, country: &str) -> LabelAddress {
    LabelAddress {
        name: name.into(),
        attention: None,
        address1: "Street 1".into(),
        address2: None,
        postal_code: "1000".into(),
        city: city.into(),
        country_code: country.into(),
        phone: Some("+45 12 34 56 78".into()),
    }
}

fn line(parcel: usize, sku: &str, quantity: i64, price: Option<f64>, currency: &str) -> Line {
    Line {
        parcel,
        sku: sku.into(),
        description: format!("Item {sku}"),
        quantity,
        unit_price: price,
        currency: currency.into(),
        country_of_origin: "DK".into(),
        tariff_number: "610910".into(),
        location: "A-1".into(),
    }
}

fn input() -> Input {
    Input {
        reference: "ORDER-77".into(),
        date: "2026-11-24T10:00:00Z".into(),
        exporter: "Shipbase Trading ApS".into(),
        sender: address("Main warehouse", "København", "DK"),
        receiver: address("Łukasz Żółć", "Warszawa", "PL"),
        exporter_ids: vec![
            ("VAT".into(), "DK11223344".into()),
            ("EORI".into(), "DK12345678".into()),
        ],
        term_of_trade: "DAP".into(),
        carrier: "Sandbox".into(),
        product: "standard".into(),
        parcels: vec![
            ParcelInfo {
                tracking_number: "SB1".into(),
                weight_kg: 1.5,
            },
            ParcelInfo {
                tracking_number: "SB1-2".into(),
                weight_kg: 0.25,
            },
        ],
        lines: vec![
            line(1, "TS-1", 2, Some(100.0), "DKK"),
            line(1, "MUG-7", 1, Some(60.0), "DKK"),
            line(2, "CAP-3", 3, Some(12.5), "EUR"),
            line(2, "GIFT", 1, None, "DKK"),
        ],
    }
}

fn text(pdf: &[u8]) -> (String, usize) {
    let doc = lopdf::Document::load_mem(pdf).unwrap();
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    (doc.extract_text(&pages).unwrap(), pages.len())
}

/// The text of each page.
fn page_texts(pdf: &[u8]) -> Vec<String> {
    let doc = lopdf::Document::load_mem(pdf).unwrap();
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    pages
        .iter()
        .map(|page| doc.extract_text(&[*page]).unwrap())
        .collect()
}

/// `text` without any whitespace: what a wrapped value reads as once its lines are joined.
fn joined(text: &str) -> String {
    text.split_whitespace().collect()
}

#[test]
fn totals_are_per_currency_and_skip_lines_without_a_price() {
    let totals = totals(&input().lines);
    assert_eq!(totals.len(), 2);
    assert!((totals["DKK"] - 260.0).abs() < 1e-9);
    assert!((totals["EUR"] - 37.5).abs() < 1e-9);
}

#[test]
fn the_commercial_invoice_shows_parties_lines_and_totals() {
    let (text, pages) = text(&render(COMMERCIAL_INVOICE, &input()).unwrap());
    assert_eq!(pages, 1);
    for needle in [
        "COMMERCIAL INVOICE",
        "No. ORDER-77",
        "Date 2026-11-24",
        "EORI: DK12345678",
        "Łukasz Żółć",
        "DAP",
        "SB1, SB1-2",
        "2 / 1.75 kg",
        "TS-1",
        "MUG-7",
        "610910",
        "200.00",
        "Total DKK",
        "260.00",
        "Total EUR",
        "37.50",
        "I declare",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text:?}");
    }
}

#[test]
fn the_proforma_says_what_it_is_for() {
    let (text, _) = text(&render(PROFORMA_INVOICE, &input()).unwrap());
    assert!(text.contains("PROFORMA INVOICE"), "{text}");
    assert!(text.contains("customs purposes only"), "{text}");
}

#[test]
fn the_packing_list_groups_lines_by_parcel() {
    let (text, _) = text(&render(PACKING_LIST, &input()).unwrap());
    let first = text.find("Parcel 1 of 2").expect("parcel 1");
    let second = text.find("Parcel 2 of 2").expect("parcel 2");
    let mug = text.find("MUG-7").expect("MUG-7");
    let cap = text.find("CAP-3").expect("CAP-3");
    assert!(first < mug && mug < second && second < cap, "{text}");
    assert!(text.contains("Total quantity 7"), "{text}");
    assert!(!text.contains("260.00"), "a packing list shows no prices");
}

#[test]
fn long_tables_continue_on_numbered_pages() {
    let mut long = input();
    long.lines = (0..120)
        .map(|i| line(1, &format!("SKU-{i}"), 1, Some(1.0), "DKK"))
        .collect();
    let (text, pages) = text(&render(COMMERCIAL_INVOICE, &long).unwrap());
    assert!(pages >= 3, "{pages} pages");
    assert!(text.contains(&format!("Page {pages} of {pages}")), "{text}");
    assert!(
        text.contains("SKU-119") && text.contains("120.00"),
        "{text}"
    );
}

/// Writes samples for a visual check: `SHIPBASE_LABEL_DIR=/tmp/labels cargo test customs`.
#[test]
fn write_samples_when_asked() {
    let Ok(dir) = std::env::var("SHIPBASE_LABEL_DIR") else {
        return;
    };
    let mut sample = input();
    sample.lines.insert(1, long_line(1));
    for kind in TYPES {
        std::fs::write(format!("{dir}/{kind}.pdf"), render(kind, &sample).unwrap()).unwrap();
    }
}

const HS: &str = "6117100000";
/// 40 characters, no spaces.
const SKU_40: &str = "SKU-0123456789-ABCDEFGHIJ-0123456789-XYZ";

/// A description of 150 characters: words, and an article number wider than its cell.
fn description_150() -> String {
    let text = "Hand-knitted merino wool scarf, charcoal grey with red stripes, 180 x 30 cm, article MERINO-SCARF-CHARCOAL-RED-180X30, made in Denmark of Danish wool.";
    assert_eq!(text.chars().count(), 150);
    text.to_string()
}

fn long_line(parcel: usize) -> Line {
    Line {
        sku: SKU_40.into(),
        description: description_150(),
        tariff_number: HS.into(),
        ..line(parcel, SKU_40, 2, Some(30.0), "DKK")
    }
}

/// Asserts that `value` prints whole in `column`: on more than one line when `wrapped`, each
/// line drawn as one run of `text` (lopdf reads runs in the order they are drawn).
fn assert_whole(text: &str, column: &Column, value: &str, wrapped: bool) {
    let lines = column.lines(value);
    assert_eq!(lines.len() > 1, wrapped, "{lines:?}");
    assert_eq!(
        lines.join(" ").split_whitespace().collect::<String>(),
        joined(value)
    );
    let mut rest = text;
    for line in &lines {
        let at = rest
            .find(&format!("{line}\n"))
            .unwrap_or_else(|| panic!("{line:?} of {value:?} missing from {text:?}"));
        rest = &rest[at + line.len()..];
    }
}

#[test]
fn wrap_breaks_a_word_wider_than_the_line_between_characters_never_after_a_hyphen() {
    assert_eq!(SKU_40.len(), 40);
    let style = CELL;
    assert_eq!(
        wrap(style, 24.0, SKU_40),
        ["SKU-01234567", "89-ABCDEFGHIJ", "-0123456789-X", "YZ"]
    );
    assert_eq!(
        wrap(style, 24.0, "SKU-01234567-89ABCDEFGHIJKL"),
        ["SKU-01234567", "-89ABCDEFGHIJ", "KL"],
        "broken before the hyphen, not after it"
    );
    let token = format!("Wool {}-{}", "A".repeat(21), "B".repeat(30));
    assert_eq!(
        wrap(style, 46.0, &token),
        [
            "Wool".to_string(),
            "A".repeat(21),
            format!("-{}", "B".repeat(21)),
            "B".repeat(9)
        ]
    );
    for line in wrap(style, 24.0, SKU_40) {
        assert!(Sheet::width(style, &line) <= 24.0, "{line}");
    }
    // However narrow the line, each piece holds a character.
    assert_eq!(wrap(style, 0.1, "a-b"), ["a", "-", "b"]);
}

#[test]
fn tariff_numbers_skus_and_descriptions_print_whole_on_every_document() {
    let mut long = input();
    long.lines.insert(0, long_line(1));
    for kind in TYPES {
        let (text, pages) = text(&render(kind, &long).unwrap());
        assert_eq!(pages, 1, "{kind}");
        let columns: &[Column] = if kind == PACKING_LIST {
            &PACKING_COLUMNS
        } else {
            &INVOICE_COLUMNS
        };
        assert_whole(&text, &columns[0], SKU_40, true);
        assert_whole(&text, &columns[1], &description_150(), true);
        if kind != PACKING_LIST {
            assert_whole(&text, &columns[3], HS, false);
            assert_eq!(columns[3].lines("6117.10.00.00"), ["6117.10.00.00"]);
        }
        assert!(!text.contains('…'), "{kind}: something was cut: {text:?}");
        // The row after the tall one follows it.
        let last = columns[1].lines(&description_150()).pop().unwrap();
        let tall = text.find(&last).unwrap();
        assert!(text[tall..].contains("\nTS-1\n"), "{kind}: {text:?}");
    }
}

#[test]
fn a_wrapped_row_grows_taller_and_the_next_row_starts_below_it() {
    let columns = &INVOICE_COLUMNS;
    let mut sheet = Sheet::new();
    let short = ["TS-1", "Tee", "DK", "610910", "2", "1.00", "2.00", "DKK"].map(String::from);
    assert_eq!(table::row(&mut sheet, columns, 100.0, &short), 100.0 + ROW);
    let mut tall = short.clone();
    tall[0] = SKU_40.into();
    tall[1] = description_150();
    let description_lines = columns[1].lines(&description_150()).len();
    assert_eq!(description_lines, 6);
    let next = table::row(&mut sheet, columns, 100.0, &tall);
    assert!(
        (next - (100.0 + ROW + 5.0 * table::LEADING)).abs() < 1e-3,
        "{next}"
    );
    assert!((table::height(columns, &tall) - (next - 100.0)).abs() < 1e-3);
}

#[test]
fn sixty_lines_some_wrapped_continue_on_a_second_page_with_the_head_and_add_up() {
    let mut long = input();
    long.lines = (0..60)
        .map(|i| {
            let mut line = line(1, &format!("SKU-{i}"), 1, Some(1.5), "DKK");
            if i == 0 || i == 26 {
                line.description = description_150();
                line.tariff_number = HS.into();
            }
            line
        })
        .collect();
    let pages = page_texts(&render(COMMERCIAL_INVOICE, &long).unwrap());
    assert_eq!(pages.len(), 2);
    for (i, page) in pages.iter().enumerate() {
        assert_eq!(page.matches("HS code").count(), 1, "page {i}: {page}");
        assert!(page.contains(&format!("Page {} of 2", i + 1)), "{page}");
    }
    // Line 26 would fit at the foot of the first page if it were not wrapped: it moves to the
    // second whole.
    assert!(pages[0].contains("\nSKU-25\n") && !pages[0].contains("\nSKU-26\n"));
    assert!(pages[1].starts_with("SKU\nDescription\n"), "{}", pages[1]);
    assert!(pages[1].contains("\nSKU-26\n") && pages[1].contains("of Danish wool.\n"));
    let all = pages.concat();
    for i in 0..60 {
        let sku = format!("\nSKU-{i}\n");
        assert_eq!(all.matches(&sku).count(), 1, "{sku:?} in {all}");
    }
    assert_eq!(all.matches("6117100000").count(), 2);
    assert!(pages[1].contains("Total DKK\n90.00\n"), "{}", pages[1]);
}

#[test]
fn a_row_taller_than_a_page_continues_on_the_next_with_the_head() {
    let mut long = input();
    let words: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    long.lines[0].description = words.join(" ");
    let pages = page_texts(&render(COMMERCIAL_INVOICE, &long).unwrap());
    assert_eq!(pages.len(), 2);
    // It starts below the head on the first page.
    assert!(pages[0].contains("\nTS-1\nw0 w1 "), "{}", pages[0]);
    assert!(pages[1].starts_with("SKU\nDescription\n"), "{}", pages[1]);
    let printed: Vec<&str> = pages
        .iter()
        .flat_map(|page| page.split_whitespace())
        .filter(|word| word.starts_with('w') && word[1..].parse::<u32>().is_ok())
        .collect();
    assert_eq!(printed, words);
    assert!(pages[1].contains("Total DKK\n260.00\n"), "{}", pages[1]);
}

#[test]
fn the_exporter_is_named_above_the_senders_address_with_its_identifiers() {
    let (printed, _) = text(&render(COMMERCIAL_INVOICE, &input()).unwrap());
    let at = |needle: &str| {
        printed
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing from {printed:?}"))
    };
    let order = [
        at("Shipbase Trading ApS"),
        at("Street 1"),
        at("1000 København, DK"),
        at("VAT: DK11223344"),
        at("EORI: DK12345678"),
    ];
    assert!(order.is_sorted(), "{order:?} in {printed:?}");
    assert!(!printed.contains("Main warehouse"), "{printed}");
    // Without an exporter the sender's name stands in.
    let mut unnamed = input();
    unnamed.exporter = " ".into();
    let (printed, _) = text(&render(COMMERCIAL_INVOICE, &unnamed).unwrap());
    assert!(printed.contains("Main warehouse"), "{printed}");
}

#[test]
fn long_party_lines_wrap_in_their_half_and_keep_their_house_number() {
    let mut input = input();
    input.receiver.name =
        String::from("Nordisk Import og Distribution af Uldvarer ApS, Afdeling Vest");
    input.receiver.address1 =
        String::from("Kong Christian den Niendes Allé ved Søndre Havnefront, Bygning 123a");
    let (text, _) = text(&render(COMMERCIAL_INVOICE, &input).unwrap());
    let all = joined(&text);
    for whole in [&input.receiver.name, &input.receiver.address1] {
        assert!(all.contains(&joined(whole)), "{whole} in {text}");
    }
}

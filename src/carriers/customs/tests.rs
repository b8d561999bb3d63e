use super::*;

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
        sender: address("Shipbase Warehouse ApS", "København", "DK"),
        receiver: address("Łukasz Żółć", "Warszawa", "PL"),
        sender_customs: vec![("EORI".into(), "DK12345678".into())],
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
    for kind in TYPES {
        std::fs::write(format!("{dir}/{kind}.pdf"), render(kind, &input()).unwrap()).unwrap();
    }
}

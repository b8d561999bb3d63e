//! Customs documents as customs read them (DESIGN §17, print quality): tariff numbers, SKUs and
//! descriptions whole however long, the organization as exporter with its VAT number and the
//! sender's EORI, IOSS only into the EU and VOEC only into Norway. Read back with pdftotext.
//!
//! pdftotext reads a table line by line across its cells, so a value wrapped in its cell next to
//! another wrapped cell comes out in pieces between the other cell's; a value is read whole from
//! the words (`pdftotext -bbox`) of its column, joined without spaces.

use serde_json::{Value, json};

use crate::fixtures::{
    Shop, id_of,
    printed::{Word, of_type, pdf_text, pdf_words},
    sender_address_body,
};

const HS: &str = "6117100000";
/// 40 characters, no spaces.
const SKU: &str = "MERINO-SCARF-CHARCOAL-RED-180X30-DK-2026";
/// 150 characters.
const DESCRIPTION: &str = "Hand-knitted merino wool scarf in charcoal grey with 2 red stripes, 180 x 30 cm, fringed ends, spun and knitted in Denmark from Danish wool (gift box)";

/// `text` without whitespace, so that a value wrapped over several lines reads whole.
fn joined(text: &str) -> String {
    text.split_whitespace().collect()
}

fn order_line(sku: &str, description: &str, tariff: &str) -> Value {
    json!({"sku": sku, "quantity": 2, "description": description, "unitPrice": 45.5,
           "currency": "EUR", "countryOfOrigin": "DK", "tarrifNumber": tariff})
}

/// A pending shipment to `country` from `address_id` with `lines` in one parcel.
async fn shipment_to(shop: &Shop, address_id: &str, country: &str, lines: Vec<Value>) -> String {
    let (postal_code, city) = match country {
        "DE" => ("10115", "Berlin"),
        "NO" => ("0150", "Oslo"),
        "US" => ("10001", "New York"),
        _ => ("2600", "Glostrup"),
    };
    let mut body = shop.body();
    body["senderAddressId"] = json!(address_id);
    body["parties"][0]["countryCode"] = json!(country);
    body["parties"][0]["postalCode"] = json!(postal_code);
    body["parties"][0]["city"] = json!(city);
    body["parcels"] = json!([{"weight": 1.0, "orderLines": lines}]);
    id_of(&shop.create(body).await)
}

/// Books `id` with a commercial invoice and returns the invoice.
async fn book_invoice(shop: &Shop, id: &str) -> Value {
    let booked = shop
        .post(id, "/book", json!({"documents": ["commercial_invoice"]}))
        .await
        .expect(200);
    let invoices = of_type(&booked, "commercial_invoice");
    assert_eq!(invoices.len(), 1, "{booked}");
    invoices[0].clone()
}

/// Books `id` with a commercial invoice and returns the invoice's text.
async fn invoice_text(shop: &Shop, id: &str) -> String {
    let invoice = book_invoice(shop, id).await;
    let dir = tempfile::tempdir().unwrap();
    pdf_text(&invoice, dir.path())
}

/// The words printed below `heading` in its column (up to where the heading `next` stands),
/// joined without spaces in reading order.
fn column(words: &[Word], heading: &str, next: &str) -> String {
    let find = |text: &str| {
        words
            .iter()
            .find(|w| w.text == text)
            .unwrap_or_else(|| panic!("no {text:?} in {words:?}"))
    };
    let (head, end) = (find(heading), find(next).x);
    let mut cells: Vec<&Word> = words
        .iter()
        .filter(|w| w.page == head.page && w.y > head.y + 1.0)
        .filter(|w| w.x > head.x - 0.5 && w.x < end - 0.5)
        .collect();
    cells.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    cells.iter().map(|w| w.text.as_str()).collect()
}

#[tokio::test]
async fn long_tariff_numbers_skus_and_descriptions_print_whole() {
    assert_eq!((HS.len(), SKU.len(), DESCRIPTION.len()), (10, 40, 150));
    let shop = Shop::new().await;
    let lines = vec![
        order_line(SKU, DESCRIPTION, HS),
        order_line("TS-1", "T-shirt", "610910"),
    ];
    let id = shipment_to(&shop, &id_of(&shop.address), "DE", lines).await;
    let invoice = book_invoice(&shop, &id).await;
    let dir = tempfile::tempdir().unwrap();
    let words = pdf_words(&invoice, dir.path());
    // Each value whole in its column, and the next row's cell right after it.
    for (heading, next, value, below) in [
        ("SKU", "Description", SKU, "TS-1"),
        ("Description", "Origin", DESCRIPTION, "T-shirt"),
        ("HS", "Qty", HS, "610910"),
    ] {
        let printed = column(&words, heading, next);
        let expected = format!("{}{below}", joined(value));
        assert!(
            printed.starts_with(&expected),
            "{expected:?} is not what the {heading} column starts with: {printed}"
        );
    }
    let text = pdf_text(&invoice, dir.path());
    assert!(!text.contains('…'), "something was cut: {text}");
    // A tariff number of 10 digits fits one line of its cell: pdftotext reads it as it is.
    assert!(text.lines().any(|l| l.trim() == HS), "{text}");
    assert!(
        text.contains("Total EUR") && text.contains("182.00 EUR"),
        "{text}"
    );
}

#[tokio::test]
async fn the_exporter_is_the_organization_with_its_vat_number_and_the_senders_eori() {
    let shop = Shop::new().await;
    let id = shipment_to(
        &shop,
        &id_of(&shop.address),
        "NO",
        vec![order_line("TS-1", "T-shirt", "610910")],
    )
    .await;
    // Without a company name the organization's name stands.
    let text = invoice_text(&shop, &id).await;
    assert!(text.contains("Test Org"), "{text}");
    assert!(!text.contains("VAT:"), "{text}");

    shop.app
        .put(
            &format!("/orgs/{}", shop.org.id),
            &shop.org.token,
            json!({"companyName": "Nordic Parcel ApS", "vatNumber": "DK11223344"}),
        )
        .await
        .expect(200);
    let id = shipment_to(
        &shop,
        &id_of(&shop.address),
        "NO",
        vec![order_line("TS-1", "T-shirt", "610910")],
    )
    .await;
    let text = invoice_text(&shop, &id).await;
    for needle in [
        "EXPORTER / SENDER",
        "Nordic Parcel ApS",
        "Att. Alice Sender",
        "Industrivej 1",
        "Building B",
        "2600 Glostrup, DK",
        "VAT: DK11223344",
        "EORI: DK12345678",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    // The sender address's own label is not the exporter.
    assert!(!text.contains("Main Warehouse"), "{text}");
    assert!(!text.contains("Test Org"), "{text}");
}

#[tokio::test]
async fn ioss_prints_only_into_the_eu_and_voec_only_into_norway() {
    let shop = Shop::new().await;
    let mut address = sender_address_body();
    address["customs"] =
        json!({"eori": "DK12345678", "ioss": "IM2080000001", "voec": "VOEC-1", "sprn": "S-77"});
    let address = shop
        .app
        .create_sender_address_with(&shop.org, address)
        .await;
    for (country, ioss, voec) in [
        ("DE", true, false),
        ("US", false, false),
        ("NO", false, true),
    ] {
        let lines = vec![order_line("TS-1", "T-shirt", "610910")];
        let id = shipment_to(&shop, &id_of(&address), country, lines).await;
        let text = invoice_text(&shop, &id).await;
        assert!(text.contains("EORI: DK12345678"), "{country}: {text}");
        assert!(text.contains("SPRN: S-77"), "{country}: {text}");
        assert_eq!(
            text.contains("IOSS: IM2080000001"),
            ioss,
            "{country}: {text}"
        );
        assert_eq!(text.contains("VOEC: VOEC-1"), voec, "{country}: {text}");
        assert!(!text.contains("IOSS") || ioss, "{country}: {text}");
        assert!(!text.contains("VOEC") || voec, "{country}: {text}");
    }
}

//! What a shop prints, checked with the tools a shop's computer would use: customs and shop
//! documents at booking (read back with pdftotext), and labels rendered to images whose
//! barcodes are scanned (pdftoppm, zbarimg) for every parcel (DESIGN §17).

use serde_json::{Value, json};

use crate::fixtures::{
    Shop, id_of,
    printed::{decoded, of_type, pdf_text, run_tool},
    with,
};

fn line(sku: &str, quantity: i64, price: f64, tariff: &str) -> Value {
    json!({"sku": sku, "quantity": quantity, "description": format!("Item {sku}"),
           "unitPrice": price, "currency": "DKK", "countryOfOrigin": "DK", "tarrifNumber": tariff})
}

/// A shipment to Norway with two parcels of order lines.
async fn export_shipment(shop: &Shop) -> String {
    let mut body = shop.body();
    body["parties"][0]["countryCode"] = json!("NO");
    body["parties"][0]["postalCode"] = json!("0150");
    body["parties"][0]["city"] = json!("Oslo");
    body["parcels"] = json!([
        {"weight": 2.0, "orderLines": [line("TS-1", 2, 100.0, "610910")]},
        {"weight": 0.5, "orderLines": [line("MUG-7", 1, 60.0, "732394")]}
    ]);
    id_of(&shop.create(body).await)
}

#[tokio::test]
async fn the_rules_flags_make_the_customs_documents_at_booking() {
    let shop = Shop::new().await;
    let mut rule = crate::fixtures::rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    rule["generateCommercialInvoice"] = json!(true);
    rule["generatePackingList"] = json!(true);
    let rule = shop.app.create_rule(&shop.org, rule).await;
    let id = export_shipment(&shop).await;
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    let booked = shop.app.book_shipment(&shop.org, &id).await;

    let types: Vec<&str> = booked["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["documentType"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        types,
        ["label", "label", "commercial_invoice", "packing_list"]
    );
    let dir = tempfile::tempdir().unwrap();
    let (invoice, packing) = (
        &of_type(&booked, "commercial_invoice")[0],
        &of_type(&booked, "packing_list")[0],
    );
    assert_eq!(
        (&invoice["format"], &invoice["size"]),
        (&json!("pdf"), &json!("A4"))
    );
    let text = pdf_text(invoice, dir.path());
    let numbers: Vec<&str> = booked["parcels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["trackingNumber"].as_str().unwrap_or_default())
        .collect();
    for needle in [
        "COMMERCIAL INVOICE",
        booked["reference"].as_str().unwrap(),
        "EORI: DK12345678",
        "VOEC: VOEC-1",
        "DAP",
        "TS-1",
        "MUG-7",
        "610910",
        "732394",
        "200.00",
        "Total DKK",
        "260.00",
        numbers[0],
        numbers[1],
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    let text = pdf_text(packing, dir.path());
    assert!(
        text.contains("PACKING LIST") && text.contains("Total quantity 3"),
        "{text}"
    );
    assert!(
        !text.contains("260.00"),
        "a packing list shows no prices: {text}"
    );
}

#[tokio::test]
async fn the_booking_body_names_documents_or_none_and_is_checked() {
    let shop = Shop::new().await;
    let mut rule = crate::fixtures::rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    rule["generateProformaInvoice"] = json!(true);
    let rule = shop.app.create_rule(&shop.org, rule).await;

    // The body wins over the rule, in either direction.
    let id = export_shipment(&shop).await;
    shop.post(
        &id,
        "/apply-shipping-rule",
        json!({"shippingRuleId": id_of(&rule)}),
    )
    .await
    .expect(200);
    let booked = shop
        .post(&id, "/book", json!({"documents": []}))
        .await
        .expect(200);
    assert_eq!(
        booked["documents"].as_array().unwrap().len(),
        2,
        "labels only"
    );

    let id = export_shipment(&shop).await;
    let booked = shop
        .post(
            &id,
            "/book",
            json!({"documents": ["packing_list", "proforma_invoice"]}),
        )
        .await
        .expect(200);
    assert_eq!(of_type(&booked, "proforma_invoice").len(), 1);
    assert_eq!(of_type(&booked, "packing_list").len(), 1);
    let dir = tempfile::tempdir().unwrap();
    let text = pdf_text(&of_type(&booked, "proforma_invoice")[0], dir.path());
    assert!(
        text.contains("PROFORMA INVOICE") && text.contains("260.00"),
        "{text}"
    );

    let id = export_shipment(&shop).await;
    for (body, field) in [
        (json!({"documents": ["label"]}), "documents[0]"),
        (
            json!({"documents": ["packing_list", "receipt"]}),
            "documents[1]",
        ),
        (json!({"documents": "packing_list"}), "documents"),
        (json!({"documentz": []}), "documentz"),
    ] {
        let problem = shop
            .post(&id, "/book", body)
            .await
            .problem(400, "validation_failed");
        assert_eq!(crate::helpers::error_fields(&problem), [field], "{problem}");
    }
    assert_eq!(shop.get(&id).await["status"], "pending");
}

#[tokio::test]
async fn an_invoice_without_order_lines_refuses_the_booking_and_stores_nothing() {
    let shop = Shop::new().await;
    let body = with(shop.body(), "parcels", json!([{"weight": 1.0}]));
    let id = id_of(&shop.create(body).await);
    let problem = shop
        .post(&id, "/book", json!({"documents": ["commercial_invoice"]}))
        .await
        .problem(409, "invalid_state");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("order lines"),
        "{problem}"
    );
    let shipment = shop.get(&id).await;
    assert_eq!(shipment["status"], "pending");
    assert_eq!(shipment["documents"], json!([]));
    // A packing list needs no lines.
    let booked = shop
        .post(&id, "/book", json!({"documents": ["packing_list"]}))
        .await
        .expect(200);
    assert_eq!(of_type(&booked, "packing_list").len(), 1);
}

#[tokio::test]
async fn every_parcels_label_scans_as_its_own_tracking_number() {
    let shop = Shop::new().await;
    for size in ["A4", "100X150"] {
        let carrier = shop
            .app
            .create_carrier_with(
                &shop.org,
                json!({"name": format!("Sandbox {size}"), "carrierSlug": "sandbox",
                       "config": {"labelSize": size}, "senderAddressId": id_of(&shop.address)}),
            )
            .await;
        let mut body = shop.body();
        body["carrierSettings"]["carrierId"] = carrier["id"].clone();
        body["parcels"] = json!([{"weight": 1.0}, {"weight": 2.0}, {"weight": 3.0}]);
        let id = id_of(&shop.create(body).await);
        let booked = shop.app.book_shipment(&shop.org, &id).await;
        let labels = of_type(&booked, "label");
        assert_eq!(labels.len(), 3);
        let dir = tempfile::tempdir().unwrap();
        for (n, label) in labels.iter().enumerate() {
            let pdf = dir.path().join(format!("label-{n}.pdf"));
            std::fs::write(&pdf, decoded(label)).unwrap();
            let prefix = dir.path().join(format!("label-{n}"));
            run_tool(
                "pdftoppm",
                &[
                    "-r",
                    "300",
                    "-png",
                    "-singlefile",
                    &pdf.to_string_lossy(),
                    &prefix.to_string_lossy(),
                ],
                "poppler-utils",
            );
            let png = format!("{}.png", prefix.to_string_lossy());
            let scanned = run_tool("zbarimg", &["--quiet", "--raw", &png], "zbar-tools");
            let expected = booked["parcels"][n]["trackingNumber"].as_str().unwrap();
            assert_eq!(scanned.trim(), expected, "{size} label {n}");
        }
    }
}

#[tokio::test]
async fn decomposed_text_prints_with_its_accents() {
    // As macOS and some shop systems send it: each accent a combining mark after its letter.
    let (name, street, city) = (
        "Mu\u{308}ller A\u{30a}ngstro\u{308}m",
        "Ro\u{308}ntgenstraße 5",
        "Zu\u{308}rich",
    );
    let shop = Shop::new().await;
    let mut body = shop.body();
    body["parties"][0]["name"] = json!(name);
    body["parties"][0]["address1"] = json!(street);
    body["parties"][0]["city"] = json!(city);
    body["parties"][0]["countryCode"] = json!("CH");
    let id = id_of(&shop.create(body).await);
    let booked = shop.app.book_shipment(&shop.org, &id).await;
    let dir = tempfile::tempdir().unwrap();
    let text = pdf_text(&of_type(&booked, "label")[0], dir.path());
    for composed in ["Müller Ångström", "Röntgenstraße 5", "Zürich"] {
        assert!(text.contains(composed), "{composed:?} missing from {text}");
    }
}

#[tokio::test]
async fn labels_in_polish_greek_and_cyrillic_extract_back_exactly() {
    let shop = Shop::new().await;
    let receivers = [
        (
            "Łukasz Żółć",
            "ul. Świętokrzyska 12",
            "Warszawa",
            "PL",
            "00-916",
        ),
        (
            "Γιώργος Παπαδόπουλος",
            "Οδός Ερμού 25",
            "Αθήνα",
            "GR",
            "105 63",
        ),
        ("Иван Петров", "ул. Витоша 15", "София", "BG", "1000"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, street, city, country, postcode) in receivers {
        let mut body = shop.body();
        body["parties"][0]["postalCode"] = json!(postcode);
        body["parties"][0]["name"] = json!(name);
        body["parties"][0]["address1"] = json!(street);
        body["parties"][0]["city"] = json!(city);
        body["parties"][0]["countryCode"] = json!(country);
        let id = id_of(&shop.create(body).await);
        let booked = shop.app.book_shipment(&shop.org, &id).await;
        let text = pdf_text(&of_type(&booked, "label")[0], dir.path());
        for value in [name, street, city] {
            assert!(text.contains(value), "{value:?} missing from {text}");
        }
    }
}

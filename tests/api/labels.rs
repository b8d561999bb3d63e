//! What a PDF label must never lose (DESIGN §17 "Print quality"): a long address line wraps
//! instead of losing its house number, a service point is printed, the manual carrier prints
//! the numbers the shop gave (and none it did not), and a receiver no label font can print is
//! refused when the shipment is written, never printed as `?`.

use serde_json::{Value, json};

use crate::{
    fixtures::{
        Shop, carrier_body, id_of,
        printed::{decoded, of_type, pdf_text, run_tool},
    },
    helpers::error_fields,
};

/// `text` with all whitespace removed: a wrapped line reads whole once its lines are joined.
fn joined(text: &str) -> String {
    text.split_whitespace().collect()
}

/// A shop's shipment with `body`, booked.
async fn book(shop: &Shop, body: Value) -> Value {
    let id = id_of(&shop.create(body).await);
    shop.app.book_shipment(&shop.org, &id).await
}

/// The barcode zbarimg reads from a PDF label rendered at 300 dpi ("" when it finds none).
fn scanned(label: &Value, dir: &std::path::Path, name: &str) -> String {
    let pdf = dir.join(format!("{name}.pdf"));
    std::fs::write(&pdf, decoded(label)).unwrap();
    let prefix = dir.join(name);
    let (pdf, prefix) = (pdf.to_string_lossy(), prefix.to_string_lossy());
    run_tool(
        "pdftoppm",
        &["-r", "300", "-png", "-singlefile", &pdf, &prefix],
        "poppler-utils",
    );
    let png = format!("{prefix}.png");
    let found = std::process::Command::new("zbarimg")
        .args(["--quiet", "--raw", &png])
        .output()
        .expect("zbarimg is needed (apt-get install zbar-tools)");
    String::from_utf8_lossy(&found.stdout).trim().to_string()
}

#[tokio::test]
async fn a_long_address_wraps_and_keeps_its_house_number() {
    let shop = Shop::new().await;
    let (name, street, extra) = (
        "Skandinavisk Designmøbler og Boligtekstiler ApS, Lager Nord",
        "Kongens Nytorv ved Det Kongelige Teaters Bagindgang og Charlottenborg 123a",
        "Tredje sal til venstre, indgang fra gården ved cykelkælderen",
    );
    let mut body = shop.body();
    body["parties"][0]["name"] = json!(name);
    body["parties"][0]["address1"] = json!(street);
    body["parties"][0]["address2"] = json!(extra);
    let booked = book(&shop, body).await;
    let dir = tempfile::tempdir().unwrap();
    let text = joined(&pdf_text(&of_type(&booked, "label")[0], dir.path()));
    for whole in [name, street, extra] {
        assert!(
            text.contains(&joined(whole)),
            "{whole:?} missing from {text}"
        );
    }
    assert!(!text.contains('…'), "nothing is cut: {text}");
}

#[tokio::test]
async fn a_shipment_to_a_service_point_prints_the_point_on_its_label() {
    let shop = Shop::new().await;
    let mut body = shop.body();
    body["servicePointId"] = json!("DK-PN-95741");
    body["parties"].as_array_mut().unwrap().push(json!({
        "type": "service_point", "name": "Netto Jægersborggade", "address1": "Jægersborggade 40",
        "postalCode": "2200", "city": "København N", "countryCode": "DK"
    }));
    let booked = book(&shop, body).await;
    let dir = tempfile::tempdir().unwrap();
    let label = &of_type(&booked, "label")[0];
    let text = pdf_text(label, dir.path());
    for part in [
        "SERVICE POINT",
        "DK-PN-95741 · Netto Jægersborggade",
        "Jægersborggade 40, 2200 København N",
    ] {
        assert!(text.contains(part), "{part:?} missing from {text}");
    }
    // The barcode still scans with the room the service point took from it.
    assert_eq!(
        scanned(label, dir.path(), "label"),
        booked["parcels"][0]["trackingNumber"].as_str().unwrap()
    );
}

/// A shop whose shipments go with the manual carrier.
async fn manual_body(shop: &Shop, parcels: usize, params: Value) -> Value {
    let mut carrier = carrier_body(&id_of(&shop.address));
    carrier["carrierSlug"] = json!("manual");
    carrier["name"] = json!("Own agreement");
    let carrier = shop.app.create_carrier_with(&shop.org, carrier).await;
    let mut body = shop.body();
    body["carrierSettings"]["carrierId"] = carrier["id"].clone();
    body["carrierSettings"]["additionalParameters"] = params;
    body["parcels"] = json!(
        (1..=parcels)
            .map(|n| json!({"weight": n as f64}))
            .collect::<Vec<_>>()
    );
    body
}

#[tokio::test]
async fn the_manual_carrier_prints_each_parcels_own_number_and_invents_none() {
    let shop = Shop::new().await;
    let dir = tempfile::tempdir().unwrap();

    // One number per parcel: each label scans as its own.
    let numbers = ["OWN-000111", "OWN-000222"];
    let body = manual_body(&shop, 2, json!({"trackingNumbers": numbers})).await;
    let booked = book(&shop, body).await;
    assert_eq!(booked["tracking"]["number"], "OWN-000111");
    for (n, label) in of_type(&booked, "label").iter().enumerate() {
        assert_eq!(booked["parcels"][n]["trackingNumber"], numbers[n]);
        assert_eq!(scanned(label, dir.path(), &format!("own-{n}")), numbers[n]);
    }

    // None given: no number is made up; the labels say there is none and have no barcode.
    let body = manual_body(&shop, 2, json!({})).await;
    let booked = book(&shop, body).await;
    assert_eq!(booked["status"], "processing");
    assert_eq!(booked["tracking"]["number"], Value::Null);
    for (n, label) in of_type(&booked, "label").iter().enumerate() {
        assert_eq!(booked["parcels"][n]["trackingNumber"], Value::Null);
        let text = pdf_text(label, dir.path());
        assert!(text.contains("NO TRACKING NUMBER"), "{text}");
        assert_eq!(scanned(label, dir.path(), &format!("none-{n}")), "");
    }

    // One number for two parcels, or a list of the wrong length: refused, nothing booked.
    for (params, field) in [
        (
            json!({"trackingNumber": "OWN-1"}),
            "carrierSettings.additionalParameters.trackingNumber",
        ),
        (
            json!({"trackingNumbers": ["OWN-1"]}),
            "carrierSettings.additionalParameters.trackingNumbers",
        ),
    ] {
        let body = manual_body(&shop, 2, params).await;
        let id = id_of(&shop.create(body).await);
        let problem = shop
            .post_empty(&id, "/book")
            .await
            .problem(400, "validation_failed");
        assert_eq!(error_fields(&problem), [field], "{problem}");
        assert_eq!(shop.get(&id).await["status"], "pending");
    }
}

#[tokio::test]
async fn a_receiver_no_label_font_can_print_is_refused_naming_the_field() {
    let shop = Shop::new().await;
    let mut body = shop.body();
    body["parties"][0]["name"] = json!("محمد الأحمد");
    body["parties"][0]["city"] = json!("北京");
    let problem = shop
        .app
        .post(
            &format!("/orgs/{}/shipments", shop.org.id),
            &shop.org.token,
            body,
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(
        error_fields(&problem),
        ["parties[0].name", "parties[0].city"],
        "{problem}"
    );
    assert!(
        problem.to_string().contains("U+0645"),
        "the character is named: {problem}"
    );

    // An edit that would bring such a character in is refused the same way, and changes nothing.
    let id = id_of(&shop.create(shop.body()).await);
    let problem = shop
        .app
        .send_raw(
            reqwest::Method::PATCH,
            &shop.path(&id, ""),
            Some(&shop.org.token),
            Some("application/merge-patch+json"),
            json!({"parties": [{"type": "receiver", "name": "Jane", "address1": "📦 Main Street 1",
                                "postalCode": "8000", "city": "Aarhus", "countryCode": "DK"}]})
            .to_string(),
        )
        .await
        .problem(400, "validation_failed");
    assert_eq!(error_fields(&problem), ["parties[0].address1"], "{problem}");
    let kept = shop.get(&id).await;
    let receiver = kept["parties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "receiver")
        .cloned()
        .unwrap();
    assert_eq!(receiver["address1"], "Main Street 1");

    // Every European script is welcome.
    let mut body = shop.body();
    body["parties"][0]["name"] = json!("Σωκράτης Ωραιόπουλος");
    body["parties"][0]["address1"] = json!("вул. Хрещатик 22");
    body["parties"][0]["city"] = json!("Łódź");
    shop.create(body).await;
}

//! The public tracking page (DESIGN §21): a booked shipment's `trackingUrl` opens a page with
//! the organization's branding, where the parcel stands and its timeline, the carrier and its
//! number, and of the receiver only the city and country, in the receiver's language; unknown
//! tokens are a 404 page of the same look; the page is cached for a minute.

use serde_json::{Value, json};

use crate::{
    fixtures::{id_of, shipment_body},
    helpers::{TestApp, TestOrg},
};

/// GET of a page path with an optional `Accept-Language`: status, headers and text.
async fn open(
    app: &TestApp,
    path: &str,
    language: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut req = app.client.get(app.url(path));
    if let Some(language) = language {
        req = req.header("accept-language", language);
    }
    let resp = req.send().await.expect("GET");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.text().await.unwrap_or_default())
}

/// A booked shipment to Stockholm; its tracking URL as a path of this server.
async fn booked(app: &TestApp, org: &TestOrg, language: Option<&str>) -> (Value, String) {
    let (address, carrier) = app.create_address_and_carrier(org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parties"][0]["city"] = json!("Stockholm");
    body["parties"][0]["postalCode"] = json!("11122");
    body["parties"][0]["countryCode"] = json!("SE");
    if let Some(language) = language {
        body["language"] = json!(language);
    }
    let shipment = app.create_shipment(org, body).await;
    let booked = app.book_shipment(org, &id_of(&shipment)).await;
    let url = booked["trackingUrl"]
        .as_str()
        .expect("trackingUrl")
        .to_string();
    let path = url
        .strip_prefix(&app.url(""))
        .unwrap_or_else(|| panic!("{url} is not on this server"))
        .to_string();
    (booked, path)
}

#[tokio::test]
async fn a_booked_shipment_has_a_page_that_shows_only_what_the_receiver_may_see() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let before = app
        .create_shipment(&org, {
            let (address, carrier) = app.create_address_and_carrier(&org).await;
            shipment_body(&id_of(&address), &id_of(&carrier))
        })
        .await;
    assert_eq!(before["trackingUrl"], Value::Null, "{before}");
    app.put(
        &format!("/orgs/{}/branding", org.id),
        &org.token,
        json!({"displayName": "Nordic Mugs", "color": "#0b5fff"}),
    )
    .await
    .expect(200);
    let (shipment, path) = booked(&app, &org, None).await;
    let token = path.strip_prefix("/t/").expect("/t/{token}");
    assert_eq!(token.len(), 22, "128 random bits, base64url: {token}");
    assert!(!token.contains(&id_of(&shipment)));

    // Swedish for a receiver in Sweden when the reader's browser names no language.
    let (status, headers, html) = open(&app, &path, None).await;
    assert_eq!(status, 200, "{html}");
    assert_eq!(
        crate::helpers::header(&headers, "cache-control"),
        "public, max-age=60"
    );
    assert_eq!(crate::helpers::header(&headers, "vary"), "Accept-Language");
    assert!(
        crate::helpers::header(&headers, "content-security-policy").contains("default-src 'none'")
    );
    assert!(html.contains(r#"<html lang="sv">"#), "{html}");
    assert!(html.contains("Ditt paket från Nordic Mugs"), "{html}");
    assert!(html.contains("Registrerat hos transportören"), "{html}");
    // The country by its name in the reader's language.
    assert!(html.contains("Stockholm, Sverige"), "{html}");
    let number = shipment["parcels"][0]["trackingNumber"]
        .as_str()
        .unwrap_or_default();
    assert!(!number.is_empty() && html.contains(number), "{html}");
    assert!(html.contains("Sandbox Carrier"));
    // Nothing else of the receiver: no name, street, postcode, e-mail or phone.
    for private in [
        "Jane Receiver",
        "Main Street 1",
        "11122",
        "jane@example.com",
        "+4512345678",
    ] {
        assert!(!html.contains(private), "{private} is on the page");
    }
    let (status, headers, css) = open(&app, &format!("{path}/brand.css"), None).await;
    assert_eq!(status, 200);
    assert_eq!(
        crate::helpers::header(&headers, "content-type"),
        "text/css; charset=utf-8"
    );
    assert!(
        css.contains("--brand: #0b5fff") && css.contains("--brand-text: #ffffff"),
        "{css}"
    );

    // The reader's language comes before the receiver's country; the shipment's own language
    // before both.
    let (_, _, html) = open(&app, &path, Some("fr-FR,de;q=0.9,en;q=0.5")).await;
    assert!(html.contains(r#"<html lang="de">"#), "{html}");
    let (_, german) = booked(&app, &org, Some("de")).await;
    let (_, _, html) = open(&app, &german, Some("da")).await;
    assert!(html.contains(r#"<html lang="de">"#) && html.contains("Ihr Paket von Nordic Mugs"));
    assert!(html.contains("Stockholm, Schweden"), "{html}");

    // Events make the timeline; the newest sets the status.
    let id = id_of(&shipment);
    for (status, description) in [
        ("in_transit", "Left the terminal"),
        ("out_for_delivery", "With the driver"),
    ] {
        app.post(
            &format!("/orgs/{}/shipments/{id}/tracking-events", org.id),
            &org.token,
            json!({"status": status, "description": description, "location": "Malmö"}),
        )
        .await
        .expect(200);
    }
    let (_, _, html) = open(&app, &path, Some("en")).await;
    assert!(
        html.contains("<h1 id=\"status\" class=\"\">Out for delivery</h1>"),
        "{html}"
    );
    assert!(
        html.contains("On its way: Left the terminal") && html.contains("Malmö"),
        "{html}"
    );
}

#[tokio::test]
async fn every_language_has_its_page_and_unknown_tokens_a_404_of_the_same_look() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    for (language, heading) in [
        ("en", "Your parcel from"),
        ("da", "Din pakke fra"),
        ("sv", "Ditt paket från"),
        ("nb", "Pakken din fra"),
        ("fi", "Pakettisi kaupasta"),
        ("de", "Ihr Paket von"),
    ] {
        let (_, path) = booked(&app, &org, Some(language)).await;
        let (status, _, html) = open(&app, &path, None).await;
        assert_eq!(status, 200);
        assert!(
            html.contains(&format!(r#"<html lang="{language}">"#)),
            "{language}"
        );
        assert!(html.contains(heading), "{language}: {html}");
    }
    for (token, language) in [
        ("AAAAAAAAAAAAAAAAAAAAAA", Some("da")),
        ("not-a-token", None),
        ("shp_1", Some("fi")),
    ] {
        let (status, headers, html) = open(&app, &format!("/t/{token}"), language).await;
        assert_eq!(status, 404, "{token}");
        assert_eq!(
            crate::helpers::header(&headers, "cache-control"),
            "public, max-age=60"
        );
        assert!(html.contains(r#"<body class="tracking">"#), "{html}");
        let expected = match language {
            Some("da") => "Sporingssiden findes ikke",
            Some("fi") => "Seurantasivua ei löytynyt",
            _ => "Tracking page not found",
        };
        assert!(html.contains(expected), "{html}");
    }
    let (status, _, _) = open(&app, "/t/AAAAAAAAAAAAAAAAAAAAAA/logo", None).await;
    assert_eq!(status, 404);
}

//! DHL Parcel Germany's tracking against a replay of DHL's Parcel DE Shipment Tracking API.
//! DHL publishes no machine-readable description of that API (its OpenAPI file is a placeholder
//! pointing to a WADL); the replay checks each request against DHL's own onboarding collection
//! (tests/fixtures/carriers/dhl_parcel_de/pp-parcel-tracking_onboarding_collection.json): the
//! path, the gateway's HTTP Basic with the app's key and secret, and an `xml` document with
//! exactly the attributes of the collection's `d-get-piece-detail` request. It answers in the
//! XML DHL documents; a tracking user or password other than the sandbox's gets DHL's code 5.

use std::{
    sync::OnceLock,
    time::{Duration, Instant},
};

use base64::{Engine, engine::general_purpose::STANDARD};
use poem::http::StatusCode;
use serde_json::{Value, json};

use super::{
    dhl_parcel_de::{API_KEY, config, dhl, shipment},
    replay::{Replay, Scenario, Seen},
    setup, wait_for_tracking,
};

const SECRET: &str = "dhl-api-SECRET-456";

/// What DHL's collection says of a `d-get-piece-detail` request.
struct Collection {
    path: String,
    /// The attributes of the request document, sorted.
    attributes: Vec<String>,
    user: String,
    password: String,
}

fn collection() -> &'static Collection {
    static COLLECTION: OnceLock<Collection> = OnceLock::new();
    COLLECTION.get_or_init(|| {
        let path = format!(
            "{}/tests/fixtures/carriers/dhl_parcel_de/pp-parcel-tracking_onboarding_collection.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let variable = |key: &str| {
            doc["variable"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["key"] == key)
                .and_then(|v| v["value"].as_str())
                .unwrap()
                .to_string()
        };
        let item = doc["item"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| {
                i["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("Tracking-d-get-piece-detail")
            })
            .unwrap();
        let url = &item["request"]["url"];
        let template = url["query"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["key"] == "xml")
            .and_then(|q| q["value"].as_str())
            .unwrap();
        let parsed = roxmltree::Document::parse(template).unwrap();
        let mut attributes: Vec<String> = parsed
            .root_element()
            .attributes()
            .map(|a| a.name().to_string())
            .collect();
        attributes.sort();
        let segments: Vec<&str> = url["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        Collection {
            path: format!("/{}", segments.join("/")),
            attributes,
            user: variable("user"),
            password: variable("pass"),
        }
    })
}

/// Whether `seen` is a tracking request (the replay's dispatch).
pub(super) fn is_tracking(seen: &Seen) -> bool {
    seen.path == collection().path
}

/// The tracking API as the replay plays it.
pub(super) fn tracking(
    seen: &Seen,
    scenario: Scenario,
    v: &mut Vec<String>,
) -> (StatusCode, Value) {
    let basic = format!("Basic {}", STANDARD.encode(format!("{API_KEY}:{SECRET}")));
    let authorization = seen
        .headers
        .get("authorization")
        .and_then(|h| h.to_str().ok());
    if seen.method != "GET" {
        v.push(format!("tracking is GET only, not {}", seen.method));
    }
    if authorization != Some(basic.as_str()) || scenario == Scenario::Unauthorized {
        return (
            StatusCode::UNAUTHORIZED,
            json!({"title": "Unauthorized", "status": 401, "detail": "Unauthorized for given resource."}),
        );
    }
    if scenario == Scenario::Down {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"title": "Internal Server Error", "status": 500}),
        );
    }
    let Some(xml) = seen.query("xml") else {
        v.push("the xml parameter is required".into());
        return (StatusCode::BAD_REQUEST, Value::Null);
    };
    let document = match roxmltree::Document::parse(xml) {
        Ok(document) => document,
        Err(e) => {
            v.push(format!("the xml parameter is not XML: {e}"));
            return (StatusCode::BAD_REQUEST, Value::Null);
        }
    };
    let data = document.root_element();
    let mut attributes: Vec<String> = data.attributes().map(|a| a.name().to_string()).collect();
    attributes.sort();
    let spec = collection();
    if data.tag_name().name() != "data" || attributes != spec.attributes {
        v.push(format!(
            "the request document is <{} {attributes:?}>, not <data {:?}>",
            data.tag_name().name(),
            spec.attributes
        ));
    }
    if data.attribute("request") != Some("d-get-piece-detail") {
        v.push("request must be d-get-piece-detail".into());
    }
    if !matches!(data.attribute("language-code"), Some("de" | "en")) {
        v.push("language-code must be de or en".into());
    }
    let pieces: Vec<&str> = data
        .attribute("piece-code")
        .unwrap_or("")
        .split(';')
        .collect();
    if pieces.is_empty()
        || pieces.len() > 20
        || pieces
            .iter()
            .any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        v.push(format!("piece-code {pieces:?} is not 1 to 20 piece codes"));
    }
    // DHL's answer to a wrong tracking user or password: code 5, over HTTP 200.
    if data.attribute("appname") != Some(spec.user.as_str())
        || data.attribute("password") != Some(spec.password.as_str())
        || scenario == Scenario::Reject
    {
        return xml_answer(
            r#"<data name="piece-shipment-list" code="5" error="Login failed" request-id="r-1"/>"#,
        );
    }
    if !pieces[0].starts_with("003404341610940420") {
        return xml_answer(
            r#"<data name="piece-shipment-list" code="100" error="No data found" request-id="r-2"/>"#,
        );
    }
    xml_answer(&delivered(pieces[0]))
}

fn xml_answer(body: &str) -> (StatusCode, Value) {
    (
        StatusCode::OK,
        Value::String(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{body}")),
    )
}

/// A parcel's way from the post office in Bonn to its receiver, as DHL reports it.
fn delivered(piece: &str) -> String {
    let events = [
        (
            "24.11.2026 18:40",
            "SHRCU",
            "ES",
            "The shipment has been posted by the sender at the retail outlet",
            "Bonn",
        ),
        (
            "25.11.2026 04:12",
            "LDTMV",
            "AA",
            "The shipment has been processed in the parcel center of origin",
            "Köln",
        ),
        (
            "26.11.2026 07:02",
            "ADVIS",
            "DD",
            "The recipient was informed of the delivery date",
            "",
        ),
        (
            "26.11.2026 09:31",
            "LDTMV",
            "PO",
            "The shipment has been loaded onto the delivery vehicle",
            "Bonn",
        ),
        (
            "26.11.2026 13:07",
            "DLVRD",
            "ZU",
            "The shipment has been successfully delivered",
            "Bonn",
        ),
    ];
    let list: String = events
        .iter()
        .map(|(at, ice, code, text, place)| {
            format!(
                r#"<data name="piece-event" event-timestamp="{at}" event-status="{text}" event-text="{text}" event-short-status="{text}" ice="{ice}" ric="NRQRD" event-location="{place}" event-country="Germany" standard-event-code="{code}" ruecksendung="false"/>"#
            )
        })
        .collect();
    format!(
        r#"<data name="piece-shipment-list" code="0" request-id="r-3"><data name="piece-shipment" error-status="0" piece-code="{piece}" searched-piece-code="{piece}" status-timestamp="26.11.2026 13:07" status="The shipment has been successfully delivered" short-status="Delivery successful" delivery-event-flag="1" ice="DLVRD" ric="NRQRD" standard-event-code="ZU" dest-country="DE" origin-country="DE" product-name="DHL PAKET (parcel)" ruecksendung="false"><data name="piece-event-list" piece-code="{piece}">{list}</data></data></data>"#
    )
}

fn tracking_requests(replay: &Replay) -> Vec<Seen> {
    replay.requests().into_iter().filter(is_tracking).collect()
}

/// Waits until `count` tracking requests reached the replay (the refresh asks once a second).
async fn wait_for_requests(replay: &Replay, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while tracking_requests(replay).len() < count {
        assert!(Instant::now() < deadline, "no tracking request came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn settings(secret: &str, password: &str) -> Value {
    let mut settings = config("pdf");
    settings["apiSecret"] = json!(secret);
    settings["trackingUser"] = json!(collection().user);
    settings["trackingPassword"] = json!(password);
    settings
}

#[tokio::test]
async fn dhls_tracking_events_map_to_shipbase_statuses_and_refusals_change_nothing() {
    let replay = Replay::start(dhl).await;
    let shop = setup(&format!(
        "[carriers]\ndhl_parcel_de_url = \"{}\"\ntracking_interval_seconds = 1\n",
        replay.url
    ))
    .await;

    // DHL refusing the tracking password (code 5), the gateway refusing the secret (401), and
    // DHL down (500): the shipments' tracking stays as it was, and each round asks again.
    let wrong_password = shop
        .carrier("dhl_parcel_de", settings(SECRET, "not-geheim"), "V01PAK")
        .await;
    let wrong_secret = shop
        .carrier(
            "dhl_parcel_de",
            settings("not-the-secret", &collection().password),
            "V01PAK",
        )
        .await;
    let mut refused = Vec::new();
    for carrier in [&wrong_password, &wrong_secret] {
        let (id, _) = shipment(&shop, carrier, "V01PAK", &[2.0]).await;
        shop.shop.app.book_shipment(&shop.shop.org, &id).await;
        refused.push(id);
    }
    for scenario in [Scenario::Ok, Scenario::Down] {
        replay.set(scenario);
        // Two rounds more: the first one that met `scenario` has been handled completely.
        let asked = tracking_requests(&replay).len();
        wait_for_requests(&replay, asked + 4).await;
        for id in &refused {
            let tracking = &shop.shop.get(id).await["tracking"];
            assert!(
                tracking["events"].as_array().is_none_or(|e| e.is_empty()),
                "{scenario:?}: {tracking}"
            );
        }
    }
    replay.set(Scenario::Ok);

    let carrier = shop
        .carrier(
            "dhl_parcel_de",
            settings(SECRET, &collection().password),
            "V01PAK",
        )
        .await;
    assert_eq!(
        (
            &carrier["config"]["apiSecret"],
            &carrier["config"]["trackingPassword"],
            &carrier["config"]["trackingUser"]
        ),
        (
            &json!("********"),
            &json!("********"),
            &json!(collection().user)
        )
    );
    let (id, _) = shipment(&shop, &carrier, "V01PAK", &[2.0]).await;
    shop.shop.app.book_shipment(&shop.shop.org, &id).await;
    let tracking = wait_for_tracking(&shop.shop, &id, "delivered").await;
    let statuses: Vec<&str> = tracking["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    // The data service's advice of the delivery date is no movement and is left out.
    assert_eq!(
        statuses,
        ["delivered", "out_for_delivery", "in_transit", "picked_up"]
    );
    // 13:07 in Bonn in November is 12:07 UTC.
    assert_eq!(
        tracking["events"][0]["occurredAt"],
        "2026-11-26T12:07:00.000Z"
    );
    assert_eq!(tracking["events"][0]["location"], "Bonn, Germany");
    assert_eq!(
        tracking["events"][0]["description"],
        "The shipment has been successfully delivered"
    );
    let request = tracking_requests(&replay).pop().unwrap();
    let document = roxmltree::Document::parse(request.query("xml").unwrap()).unwrap();
    assert_eq!(
        document.root_element().attribute("piece-code"),
        Some("00340434161094042001")
    );
    replay.assert_clean();
}

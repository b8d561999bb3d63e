//! A booking reaches the carrier exactly once (issue 21): a booking claims its shipment before
//! the carrier is called, so simultaneous books, edits, splits and cancellations are 409
//! `booking_in_progress` and call no carrier; an answer given after the carrier had the request
//! is kept for a retry with the same key; a carrier that did not answer in time leaves the
//! outcome unknown until the caller books again on purpose or cancels. Times sent to DHL are the
//! shipper's local time, and long names and addresses spill into the next address line.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use shipbase::model::time::Clock;

use super::{
    RealShop, dhl_express, postnord,
    replay::{Handler, Replay, Scenario, Seen},
};
use crate::{
    fixtures::{Shop, id_of, parcel_body},
    helpers::Reply,
};

const CARRIERS: [&str; 2] = ["postnord", "dhl_express"];

/// A shop whose carrier of type `slug` is played by a replay; `extra` goes into `[carriers]`.
pub(crate) struct Line {
    pub replay: Replay,
    pub shop: RealShop,
    pub carrier: Value,
}

/// The replay of `slug` and the line of config that points Shipbase at it.
pub(crate) async fn replay_of(slug: &str) -> (Replay, String, Value) {
    let (handler, prefix, key, config): (Handler, _, _, _) = match slug {
        "postnord" => (
            postnord::postnord,
            postnord::PREFIX,
            "postnord_url",
            postnord::config("pdf"),
        ),
        _ => (
            dhl_express::dhl,
            dhl_express::PREFIX,
            "dhl_express_url",
            dhl_express::config("pdf"),
        ),
    };
    let replay = Replay::start(handler).await;
    let setting = format!("{key} = \"{}{prefix}\"\n", replay.url);
    (replay, setting, config)
}

async fn line(slug: &str, timeout_seconds: u64) -> Line {
    let (replay, setting, config) = replay_of(slug).await;
    let shop = super::setup(&format!(
        "[carriers]\n{setting}timeout_seconds = {timeout_seconds}\n"
    ))
    .await;
    let carrier = shop.carrier(slug, config, "").await;
    Line {
        replay,
        shop,
        carrier,
    }
}

impl Line {
    /// A pending shipment with this carrier whose one parcel holds two order lines.
    async fn shipment(&self) -> (String, Value) {
        let mut body = self.shop.shop.body();
        body["carrierSettings"]["carrierId"] = self.carrier["id"].clone();
        body["carrierSettings"]["productId"] = json!(product(&self.carrier));
        body["parcels"] = json!([parcel_body(2.0, &[("SKU-A", 1), ("SKU-B", 1)])]);
        let created = self.shop.shop.create(body).await;
        (id_of(&created), created)
    }

    async fn book(&self, id: &str, key: Option<&str>, body: Value) -> Reply {
        book(&self.shop.shop, id, key, body).await
    }
}

fn product(carrier: &Value) -> &'static str {
    match carrier["carrierSlug"].as_str() {
        Some("dhl_express") => "U",
        _ => "18",
    }
}

/// POST .../book, with an `Idempotency-Key` when `key` is given.
pub(crate) async fn book(shop: &Shop, id: &str, key: Option<&str>, body: Value) -> Reply {
    let mut request = shop
        .app
        .client
        .post(shop.app.url(&shop.path(id, "/book")))
        .bearer_auth(&shop.org.token)
        .json(&body);
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    Reply::read(request.send().await.expect("request")).await
}

/// What the carrier was told identifies the request: PostNord's `messageId`, DHL's
/// `Message-Reference`.
fn reference(seen: &Seen) -> String {
    match seen.body["messageId"].as_str() {
        Some(id) => id.to_string(),
        None => seen
            .headers
            .get("message-reference")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string(),
    }
}

/// Waits (at most 15 s) until `n` requests have reached the replay, and checks no more did.
pub(crate) async fn wait_for_arrivals(replay: &Replay, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while replay.arrived() < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(replay.arrived(), n, "requests that reached the carrier");
}

/// Waits (at most 15 s) until the replay has answered `n` requests; returns them.
async fn answered(replay: &Replay, n: usize) -> Vec<Seen> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while replay.requests().len() < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = replay.requests();
    assert_eq!(seen.len(), n);
    seen
}

fn detail(problem: &Value) -> &str {
    problem["detail"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn five_books_at_once_reach_the_carrier_once_and_hold_off_edits_splits_and_cancels() {
    for slug in CARRIERS {
        let line = line(slug, 10).await;
        line.replay.set_delay(Duration::from_millis(1500));
        let (id, created) = line.shipment().await;
        let shop = &line.shop.shop;
        let tasks: Vec<_> = (0..5)
            .map(|_| {
                let (shop_app, path, token) = (
                    shop.app.client.clone(),
                    shop.app.url(&shop.path(&id, "/book")),
                    shop.org.token.clone(),
                );
                tokio::spawn(async move {
                    let reply = shop_app
                        .post(path)
                        .bearer_auth(token)
                        .json(&json!({}))
                        .send()
                        .await
                        .expect("send");
                    Reply::read(reply).await
                })
            })
            .collect();
        // While the carrier works on the one request that reached it, the shipment is held.
        wait_for_arrivals(&line.replay, 1).await;
        let patch = shop
            .app
            .patch(
                &shop.path(&id, ""),
                &shop.org.token,
                json!({"reference": "changed"}),
            )
            .await
            .problem(409, "booking_in_progress");
        assert!(detail(&patch).contains("bka_"), "{patch}");
        let line_id = created["parcels"][0]["orderLines"][1]["id"].clone();
        let parcel_id = id_of(&created["parcels"][0]);
        shop.post(
            &id,
            &format!("/parcels/{parcel_id}/split"),
            json!({"orderLineIds": [line_id]}),
        )
        .await
        .problem(409, "booking_in_progress");
        shop.post(&id, "/status", json!({"status": "cancelled"}))
            .await
            .problem(409, "booking_in_progress");
        shop.app
            .delete(&shop.path(&id, ""), &shop.org.token)
            .await
            .problem(409, "booking_in_progress");

        let mut booked = 0;
        for task in tasks {
            let reply = task.await.expect("task");
            if reply.status == 200 {
                booked += 1;
                assert_eq!(reply.body["status"], "processing");
            } else {
                reply.problem(409, "booking_in_progress");
            }
        }
        assert_eq!(booked, 1, "{slug}: one booking of five");
        wait_for_arrivals(&line.replay, 1).await;
        let shipment = shop.get(&id).await;
        assert_eq!(
            (&shipment["status"], &shipment["reference"]),
            (&json!("processing"), &created["reference"]),
            "{slug}"
        );
        let seen = answered(&line.replay, 1).await;
        assert!(reference(&seen[0]).starts_with("bka_"), "{slug}");
        line.replay.assert_clean();
    }
}

#[tokio::test]
async fn a_timed_out_booking_is_replayed_to_its_key_and_waits_until_booked_again_on_purpose() {
    for slug in CARRIERS {
        let line = line(slug, 1).await;
        line.replay.set_delay(Duration::from_millis(2500));
        let (id, _) = line.shipment().await;

        let first = line
            .book(&id, Some("book-1"), json!({}))
            .await
            .problem(504, "carrier_timeout");
        assert!(detail(&first).contains("unknown"), "{first}");
        // The same key gets the same answer, and the carrier is not asked again.
        let retry = line.book(&id, Some("book-1"), json!({})).await;
        assert_eq!(retry.header("idempotent-replayed"), "true");
        let again = retry.problem(504, "carrier_timeout");
        assert_eq!(again["detail"], first["detail"]);
        assert_ne!(again["requestId"], first["requestId"]);
        wait_for_arrivals(&line.replay, 1).await;

        // Without the key: the outcome is unknown, and the problem says what and when.
        let unknown = line
            .book(&id, None, json!({}))
            .await
            .problem(409, "booking_outcome_unknown");
        let text = detail(&unknown);
        assert!(
            text.contains("bka_")
                && text.contains("did not answer in time")
                && text.contains("book_again"),
            "{unknown}"
        );
        line.shop
            .shop
            .app
            .patch(
                &line.shop.shop.path(&id, ""),
                &line.shop.shop.org.token,
                json!({"reference": "changed"}),
            )
            .await
            .problem(409, "booking_outcome_unknown");
        line.book(&id, None, json!({"afterUnknownOutcome": "later"}))
            .await
            .problem(400, "validation_failed");
        wait_for_arrivals(&line.replay, 1).await;

        // Booking again on purpose asks the carrier a second time, with a new reference.
        line.replay.set_delay(Duration::ZERO);
        let booked = line
            .book(&id, None, json!({"afterUnknownOutcome": "book_again"}))
            .await
            .expect(200);
        assert_eq!(booked["status"], "processing");
        wait_for_arrivals(&line.replay, 2).await;
        let seen = answered(&line.replay, 2).await;
        let references: Vec<String> = seen.iter().map(reference).collect();
        assert!(
            references.iter().all(|r| r.starts_with("bka_")) && references[0] != references[1],
            "{slug}: {references:?}"
        );
        line.replay.assert_clean();
    }
}

#[tokio::test]
async fn an_outage_is_replayed_to_its_key_and_a_cancel_gives_up_an_unknown_booking() {
    let line = line("postnord", 1).await;
    let (id, _) = line.shipment().await;

    // A server error: the carrier booked nothing, and the answer is kept for the key.
    line.replay.set(Scenario::Down);
    line.book(&id, Some("down-1"), json!({}))
        .await
        .problem(502, "carrier_unavailable");
    let retry = line.book(&id, Some("down-1"), json!({})).await;
    assert_eq!(retry.header("idempotent-replayed"), "true");
    retry.problem(502, "carrier_unavailable");
    wait_for_arrivals(&line.replay, 1).await;

    // It holds nothing: a new booking may go, and this one times out.
    line.replay.set(Scenario::Ok);
    line.replay.set_delay(Duration::from_millis(2500));
    line.book(&id, None, json!({}))
        .await
        .problem(504, "carrier_timeout");
    wait_for_arrivals(&line.replay, 2).await;

    // Cancelling gives up the booking whose outcome is unknown; the carrier is not asked.
    let cancelled = line
        .shop
        .shop
        .post(&id, "/status", json!({"status": "cancelled"}))
        .await
        .expect(200);
    assert_eq!(cancelled["status"], "cancelled");
    line.book(&id, None, json!({}))
        .await
        .problem(409, "invalid_state");
    wait_for_arrivals(&line.replay, 2).await;
}

/// The planned shipping time DHL gets for a booking at `now` (UTC) from Glostrup, Denmark.
async fn planned_at(now: time::OffsetDateTime) -> String {
    let (replay, setting, config) = replay_of("dhl_express").await;
    let shop = RealShop {
        shop: Shop::with_clock(&format!("[carriers]\n{setting}"), Clock::Fixed(now)).await,
    };
    let carrier = shop.carrier("dhl_express", config, "U").await;
    let id = shop.shipment(&carrier, 1).await;
    shop.shop.post(&id, "/book", json!({})).await.expect(200);
    replay.assert_clean();
    replay.requests()[0].body["plannedShippingDateAndTime"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn dhl_gets_the_planned_time_in_copenhagens_offset_in_winter_and_summer() {
    assert_eq!(
        planned_at(time::macros::datetime!(2026-01-15 09:30:05 UTC)).await,
        "2026-01-15T10:30:05 GMT+01:00"
    );
    assert_eq!(
        planned_at(time::macros::datetime!(2026-07-15 22:30:00 UTC)).await,
        "2026-07-16T00:30:00 GMT+02:00"
    );
}

#[tokio::test]
async fn long_names_and_addresses_spill_into_the_next_address_line() {
    let name = "Nordisk Cykel- og Friluftsudstyr til Hele Familien ApS, Afdeling Østjylland";
    let street = "Kongens Nytorv 28, Baghuset, 3. sal til venstre, att. varemodtagelsen";
    for slug in CARRIERS {
        let line = line(slug, 10).await;
        let mut body = line.shop.shop.body();
        body["carrierSettings"]["carrierId"] = line.carrier["id"].clone();
        body["carrierSettings"]["productId"] = json!(product(&line.carrier));
        body["parties"][0]["name"] = json!(name);
        body["parties"][0]["address1"] = json!(street);
        body["parties"][0]["address2"] = json!("Port 4");
        let id = id_of(&line.shop.shop.create(body).await);
        line.book(&id, None, json!({})).await.expect(200);
        line.replay.assert_clean();
        let request = &line.replay.requests()[0].body;
        let (first, lines): (String, Vec<String>) = if slug == "postnord" {
            let party = &request["shipment"][0]["parties"]["consignee"]["party"];
            let streets = party["address"]["streets"].as_array().unwrap();
            (
                party["nameIdentification"]["name"].as_str().unwrap().into(),
                streets
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect(),
            )
        } else {
            let receiver = &request["customerDetails"]["receiverDetails"];
            (
                receiver["contactInformation"]["companyName"]
                    .as_str()
                    .unwrap()
                    .into(),
                (1..=3)
                    .filter_map(|i| {
                        receiver["postalAddress"][format!("addressLine{i}")]
                            .as_str()
                            .map(str::to_string)
                    })
                    .collect(),
            )
        };
        // Nothing is lost and no word is cut: the words read the same across the lines.
        let sent = std::iter::once(first.clone())
            .chain(lines.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        let expected = if slug == "postnord" {
            format!("{name} {street} Port 4")
        } else {
            // DHL's company name holds all 74 characters.
            assert_eq!(first, name);
            format!("{name} {street} Port 4")
        };
        assert_eq!(sent, expected, "{slug}: {first:?} {lines:?}");
        assert!(lines.len() >= 2, "{slug}: {lines:?}");
        if slug == "postnord" {
            assert!(first.chars().count() <= 60 && name.starts_with(&first));
        }
    }
}

#[tokio::test]
async fn papers_that_cannot_be_made_refuse_the_booking_before_the_carrier_is_asked() {
    let line = line("postnord", 10).await;
    let id = line.shop.shipment(&line.carrier, 1).await;
    let problem = line
        .book(
            &id,
            Some("papers-1"),
            json!({"documents": ["commercial_invoice"]}),
        )
        .await
        .problem(409, "invalid_state");
    assert!(detail(&problem).contains("order lines"), "{problem}");
    assert_eq!(line.replay.arrived(), 0);
    // Nothing held the shipment or the key: the corrected booking goes through with it.
    line.book(
        &id,
        Some("papers-1"),
        json!({"documents": ["packing_list"]}),
    )
    .await
    .expect(200);
    wait_for_arrivals(&line.replay, 1).await;
}

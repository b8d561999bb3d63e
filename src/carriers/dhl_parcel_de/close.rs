//! The end-of-day close ("Tagesabschluss") through DHL's Shipping API v2 (`POST /manifests`):
//! every parcel of the shipments closed by its number (DHL books each parcel as a shipment of
//! its own), at most 30 numbers a call, as the description allows. DHL answers a status per
//! shipment and no reference for the close; the shipments it refuses stay out of the manifest
//! with its words.

use serde_json::{Value, json};

use super::{NAME, SHIPPING, host, problem, request};
use crate::{
    carriers::{
        Env,
        http::{self, Answer},
        pickup::Closed,
    },
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ShipmentRecord},
};

/// How many shipment numbers one call takes (`ShipmentManifestingRequest.shipmentNumbers`).
const PER_CALL: usize = 30;

pub(super) async fn close(
    env: &Env,
    carrier: &CarrierRecord,
    shipments: &[ShipmentRecord],
) -> Result<Closed> {
    // Returns labels come from the Returns API and are not closed out.
    let numbers: Vec<&str> = shipments
        .iter()
        .filter(|s| s.kind != "inbound")
        .flat_map(|s| &s.body.parcels)
        .filter_map(|p| p.tracking_number.as_deref())
        .filter(|n| !n.is_empty())
        .collect();
    let url = format!("{}{SHIPPING}/manifests", host(env, carrier));
    let mut closed = Closed::default();
    for chunk in numbers.chunks(PER_CALL) {
        // The numbers alone: a billingNumber would close only that billing number's shipments,
        // and shipments of several products have several.
        let body = json!({"profile": request::PROFILE, "shipmentNumbers": chunk});
        let builder = request(env, carrier, reqwest::Method::POST, url.clone())?.json(&body);
        let answer = http::send(NAME, builder).await?;
        let json = answer.json();
        let items: Vec<&Value> = json["items"].as_array().into_iter().flatten().collect();
        // A 400 that lists shipments refused them; what it does not list as closed was not.
        let whole = answer.status.is_success();
        let listed_refusal = answer.status.as_u16() == 400 && !items.is_empty();
        if !whole && !listed_refusal {
            return Err(refusal(&answer, &json));
        }
        for number in chunk {
            let item = items
                .iter()
                .find(|i| i["shipmentNo"].as_str() == Some(*number));
            let refused = match item {
                Some(item) => !item_closed(item),
                None => !whole,
            };
            if refused {
                let why = match item {
                    Some(item) => words(item),
                    None => problem(&json),
                };
                closed.refused.push(((*number).to_string(), why));
            }
        }
    }
    Ok(closed)
}

/// Whether DHL closed the shipment of an item (its own status is a success).
fn item_closed(item: &Value) -> bool {
    let code = item["sstatus"]["statusCode"]
        .as_u64()
        .or(item["sstatus"]["status"].as_u64());
    code.is_some_and(|c| (200..300).contains(&c))
}

/// DHL's words on one shipment: its validation messages, else its status's detail or title.
fn words(item: &Value) -> String {
    let messages: Vec<&str> = item["validationMessages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["validationMessage"].as_str())
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect();
    if !messages.is_empty() {
        return messages.join("; ");
    }
    ["detail", "title"]
        .iter()
        .find_map(|key| {
            item["sstatus"][*key]
                .as_str()
                .map(str::trim)
                .filter(|t| !t.is_empty())
        })
        .unwrap_or("refused without a reason")
        .to_string()
}

fn refusal(answer: &Answer, body: &Value) -> Error {
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "{NAME} answered HTTP {status} to the end-of-day close ({}); try again",
            problem(body)
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "{NAME} refused the API key, user or password (HTTP {status})"
        ));
    }
    Error::CarrierRejected(format!(
        "{NAME} refused the end-of-day close (HTTP {status}): {}",
        problem(body)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shipment_is_closed_when_its_own_status_is_a_success() {
        let ok = json!({"shipmentNo": "1", "sstatus": {"title": "OK", "statusCode": 200}});
        let refused = json!({"shipmentNo": "2", "sstatus": {"title": "Bad Request", "statusCode": 400, "detail": "Unknown shipment."}});
        let validated = json!({"shipmentNo": "3", "sstatus": {"title": "Bad Request", "status": 400},
            "validationMessages": [{"validationMessage": "The shipment has been cancelled.", "validationState": "Error"}]});
        assert!(item_closed(&ok));
        assert!(!item_closed(&refused) && !item_closed(&validated));
        assert!(!item_closed(&json!({"shipmentNo": "4"})));
        assert_eq!(words(&refused), "Unknown shipment.");
        assert_eq!(words(&validated), "The shipment has been cancelled.");
        assert_eq!(
            words(&json!({"sstatus": {"title": "Bad Request", "statusCode": 400}})),
            "Bad Request"
        );
    }
}

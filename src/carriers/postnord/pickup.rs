//! Pickups through PostNord's Booking API (3.5.29.1, `POST /v3/pickups/ids`, "Book Pickup by item
//! ID"): PostNord's API books pickups only of parcels it already knows by their item ids, and only
//! domestic ones in Sweden, Denmark and Finland; the booking id it answers is the confirmation.
//! The API has no cancellation (nor a pickup without items, which its other operation books only
//! as a DPD collection abroad).

use serde_json::{Value, json};

use super::{NAME, base, refusal};
use crate::{
    carriers::{
        Env, http,
        pickup::{PickupBooking, PickupRequest},
        wire::required,
    },
    error::{Error, FieldError, Result},
    model::{carrier::CarrierRecord, timezone},
};

/// Where PostNord books pickups by item id.
pub(super) const COUNTRIES: [&str; 3] = ["SE", "DK", "FI"];

/// Books the collection of the pickup's parcels; PostNord's booking id is the confirmation.
pub(super) async fn book(
    env: &Env,
    carrier: &CarrierRecord,
    pickup: &PickupRequest<'_>,
) -> Result<PickupBooking> {
    let body = items(pickup)?;
    let api_key = required(carrier, NAME, "apiKey")?;
    let url = format!("{}/v3/pickups/ids", base(env, carrier));
    let request = env
        .http()?
        .post(&url)
        .query(&[("apikey", api_key.as_str()), ("locale", "en")])
        .json(&body);
    let answer = http::send(NAME, request).await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    confirmation(&answer.json())
}

/// One `pickupIdInfo` per parcel: its item id (the parcel's tracking number) and the window, as
/// local times of the pickup address with their offset.
fn items(pickup: &PickupRequest<'_>) -> Result<Value> {
    let country = pickup.address.fields.country_code.to_ascii_uppercase();
    let mut problems = Vec::new();
    if pickup.shipments.is_empty() {
        problems.push(FieldError {
            field: "shipmentIds".into(),
            message: format!(
                "{NAME} books pickups of booked parcels by their item ids: name the shipments to collect"
            ),
        });
    }
    let mut items = Vec::new();
    for (i, shipment) in pickup.shipments.iter().enumerate() {
        let abroad = shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == "receiver")
            .is_some_and(|r| !r.country_code.eq_ignore_ascii_case(&country));
        if abroad {
            problems.push(FieldError {
                field: format!("shipmentIds[{i}]"),
                message: format!(
                    "{NAME} books pickups of domestic parcels only (within {country}); shipment {} goes abroad",
                    shipment.id
                ),
            });
            continue;
        }
        for number in shipment
            .body
            .parcels
            .iter()
            .filter_map(|p| p.tracking_number.as_deref())
        {
            items.push(json!({
                "itemId": number,
                "earliestPickupDate": at(pickup, pickup.ready_from),
                "latestPickupDate": at(pickup, pickup.ready_until),
            }));
        }
    }
    if !problems.is_empty() {
        return Err(Error::Validation(problems));
    }
    Ok(Value::Array(items))
}

/// `date` at `time` (HH:MM) in the zone of the pickup address, as RFC 3339 with its offset.
fn at(pickup: &PickupRequest<'_>, time: &str) -> String {
    let address = &pickup.address.fields;
    let zone = timezone::zone_of(&address.country_code.to_ascii_uppercase(), &address.zipcode);
    let local = format!("{}T{time}:00", pickup.date);
    local
        .parse::<jiff::civil::DateTime>()
        .ok()
        .and_then(|dt| dt.in_tz(zone).ok())
        .map(|zoned| {
            zoned
                .timestamp()
                .display_with_offset(zoned.offset())
                .to_string()
        })
        .unwrap_or(local)
}

/// The booking id of PostNord's `bookingResponse`; a refusal when every item failed.
fn confirmation(answer: &Value) -> Result<PickupBooking> {
    let infos: Vec<&Value> = answer["idInformation"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let failed: Vec<String> = infos
        .iter()
        .filter(|i| i["status"] == "FAIL")
        .map(|i| {
            let ids: Vec<&str> = i["ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|id| id["value"].as_str())
                .collect();
            let why = i["errorResponse"]["message"]
                .as_str()
                .unwrap_or("no reason given");
            format!("{} ({why})", ids.join(", "))
        })
        .collect();
    if !infos.is_empty() && failed.len() == infos.len() {
        return Err(Error::CarrierRejected(format!(
            "{NAME} refused the pickup of {}",
            failed.join("; ")
        )));
    }
    match answer["bookingId"]
        .as_str()
        .map(str::trim)
        .filter(|id| !id.is_empty())
    {
        Some(id) => Ok(PickupBooking {
            confirmation_number: id.to_string(),
        }),
        None => Err(Error::CarrierUncertain(format!(
            "{NAME} answered the pickup without its booking id; whether it booked the pickup cannot be told"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_booking_id_confirms_and_all_failed_items_refuse() {
        let ok = json!({"bookingId": "3YSFH8NG0LNREZO38UIN68B3RRWL4X",
                        "idInformation": [{"status": "OK", "ids": [{"idType": "itemId", "value": "00370712345678901234"}]}]});
        assert_eq!(
            confirmation(&ok).ok(),
            Some(PickupBooking {
                confirmation_number: "3YSFH8NG0LNREZO38UIN68B3RRWL4X".into()
            })
        );
        let failed = json!({"bookingId": "X", "idInformation": [{"status": "FAIL",
            "ids": [{"idType": "itemId", "value": "00370712345678901234"}],
            "errorResponse": {"message": "Unknown item"}}]});
        assert!(matches!(
            confirmation(&failed),
            Err(Error::CarrierRejected(m)) if m.contains("00370712345678901234 (Unknown item)")
        ));
        assert!(matches!(
            confirmation(&json!({})),
            Err(Error::CarrierUncertain(_))
        ));
    }
}

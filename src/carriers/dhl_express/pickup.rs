//! MyDHL pickups (`POST /pickups` and `DELETE /pickups/{dispatchConfirmationNumber}`, from DHL's
//! MyDHL API description): a courier booked to the pickup's address on its day, from its ready
//! time (the address's local time) until it closes, with one shipment detail per shipment to
//! collect; DHL's dispatch confirmation number is what cancels it.

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use super::{NAME, answer, request::planned, setting};
use crate::{
    carriers::{
        Env,
        http::{self, Answer},
        pickup::{PickupBooking, PickupRequest},
        wire::{cut, round3, spill},
    },
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        country,
        pickup::{parse_date, parse_time},
        sender_address::SenderAddress,
        shipment::{Dimensions, ShipmentRecord},
        timezone,
    },
};

/// Why a pickup is cancelled: DHL asks for a reason in free text (no list of values).
const CANCEL_REASON: &str = "Pickup no longer needed";

/// Books the pickup; DHL's first dispatch confirmation number.
pub(super) async fn book(
    env: &Env,
    carrier: &CarrierRecord,
    pickup: &PickupRequest<'_>,
) -> Result<PickupBooking> {
    let body = pickup_request(pickup, carrier)?;
    // The pickup's id: what DHL logs the request under.
    let builder = super::request(
        env,
        carrier,
        reqwest::Method::POST,
        "/pickups",
        &message_reference(pickup.reference),
    )?
    .json(&body);
    let answer = http::send(NAME, builder).await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "book the pickup", "no pickup was booked"));
    }
    confirmation(&answer.json())
}

/// Cancels the pickup DHL confirmed as `number`, in the name of `contact`.
pub(super) async fn cancel(
    env: &Env,
    carrier: &CarrierRecord,
    number: &str,
    contact: &str,
) -> Result<()> {
    let path = format!("/pickups/{}", utf8_percent_encode(number, NON_ALPHANUMERIC));
    let requestor = match contact.trim() {
        "" => "Shipbase",
        name => name,
    };
    let builder = super::request(
        env,
        carrier,
        reqwest::Method::DELETE,
        &path,
        &message_reference(&format!("cancel-pickup-{number}")),
    )?
    .query(&[("requestorName", requestor), ("reason", CANCEL_REASON)]);
    let answer = http::send(NAME, builder).await?;
    if answer.status.is_success() || gone(&answer) {
        return Ok(());
    }
    Err(refusal(
        &answer,
        "cancel the pickup",
        "the pickup is still booked",
    ))
}

/// Whether DHL's refusal says there is nothing left to cancel: its 404 problem ("Requested
/// Pickup was not found"), or a 400 that says the pickup was cancelled already (DHL's 400
/// also covers completed pickups and wrong input, which stay refusals).
fn gone(answer: &Answer) -> bool {
    let body = answer.json();
    match answer.status.as_u16() {
        // DHL's own problem body, not a proxy's page for a wrong URL.
        404 => body.is_object(),
        400 => answer::problem(&body)
            .to_ascii_lowercase()
            .contains("already cancel"),
        _ => false,
    }
}

fn refusal(answer: &Answer, what: &str, nothing_done: &str) -> Error {
    let status = answer.status.as_u16();
    let reason = answer::problem(&answer.json());
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "DHL Express answered HTTP {status} ({reason}); {nothing_done}, try again"
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "DHL Express refused the username and password (HTTP {status})"
        ));
    }
    Error::CarrierRejected(format!(
        "DHL Express would not {what} (HTTP {status}): {reason}"
    ))
}

/// The first dispatch confirmation number of a 201 answer.
fn confirmation(answer: &Value) -> Result<PickupBooking> {
    answer["dispatchConfirmationNumbers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::trim)
        .find(|n| !n.is_empty())
        .map(|n| PickupBooking {
            confirmation_number: n.to_string(),
        })
        .ok_or_else(|| {
            Error::CarrierUncertain(
                "DHL Express answered without a dispatch confirmation number; whether it booked the pickup cannot be told"
                    .into(),
            )
        })
}

/// MyDHL's message reference (28 to 36 characters): `text` in the characters a header takes,
/// cut or padded to fit.
fn message_reference(text: &str) -> String {
    let mut reference: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(36)
        .collect();
    while reference.len() < 28 {
        reference.push('-');
    }
    reference
}

/// The MyDHL pickup request.
fn pickup_request(pickup: &PickupRequest<'_>, carrier: &CarrierRecord) -> Result<Value> {
    let address = &pickup.address.fields;
    let origin = address.country_code.to_ascii_uppercase();
    let mut details: Vec<Value> = pickup
        .shipments
        .iter()
        .map(|s| shipment_detail(s, &origin))
        .collect();
    if details.is_empty() {
        // Nothing named to collect: DHL still wants what the courier comes for, so one package
        // of the request's weight (its minimum) as Express Worldwide, DHL's general product.
        details.push(json!({
            "productCode": "P",
            "isCustomsDeclarable": false,
            "unitOfMeasurement": "metric",
            "packages": [package(pickup.total_weight_kg(), None)]
        }));
    }
    let mut request = json!({
        "plannedPickupDateAndTime": planned_at(pickup.date, pickup.ready_from, &origin, &address.zipcode)?,
        "closeTime": close_time(pickup.ready_until)?,
        "accounts": [{"typeCode": "shipper", "number": setting(carrier, "accountNumber")?}],
        "customerDetails": {"shipperDetails": shipper(pickup.address, &origin)?},
        "shipmentDetails": details
    });
    let mut instructions: Vec<String> = Vec::new();
    // Lines of 80 characters, at most 4, no two alike (DHL's limits).
    for line in spill(&[pickup.note.unwrap_or_default()], 80, 4) {
        if !line.is_empty() && !instructions.contains(&line) {
            instructions.push(line);
        }
    }
    if !instructions.is_empty() {
        request["specialInstructions"] = instructions
            .into_iter()
            .map(|value| json!({"value": value}))
            .collect::<Vec<_>>()
            .into();
    }
    Ok(request)
}

/// `date` at `ready` as the address's clock shows it, as MyDHL writes times
/// (`2031-03-04T09:30:00 GMT+01:00`).
fn planned_at(date: &str, ready: &str, country: &str, zipcode: &str) -> Result<String> {
    let (Some(day), Some(at)) = (parse_date(date), parse_time(ready)) else {
        return Err(Error::InvalidState(format!(
            "a DHL Express pickup needs a date as YYYY-MM-DD and a time as HH:MM, not {date} {ready}"
        )));
    };
    let zone = jiff::tz::TimeZone::get(timezone::zone_of(country, zipcode))
        .unwrap_or(jiff::tz::TimeZone::UTC);
    let local = day.to_datetime(at).to_zoned_datetime(zone).map_err(|e| {
        Error::InvalidState(format!(
            "{date} {ready} is not a time at the pickup address: {e}"
        ))
    })?;
    Ok(planned(&local))
}

/// `HH:MM`, as DHL's pattern wants it.
fn close_time(until: &str) -> Result<String> {
    let at = parse_time(until).ok_or_else(|| {
        Error::InvalidState(format!(
            "a DHL Express pickup needs its closing time as HH:MM, not {until}"
        ))
    })?;
    Ok(format!("{:02}:{:02}", at.hour(), at.minute()))
}

/// The pickup address as DHL's shipper: the address's name as the company, its attention
/// contact as the person.
fn shipper(address: &SenderAddress, country: &str) -> Result<Value> {
    let a = &address.fields;
    let phone = a.phone.trim();
    if phone.is_empty() {
        return Err(Error::InvalidState(format!(
            "DHL Express needs a phone number for the pickup address ({})",
            a.name
        )));
    }
    let mut postal = json!({
        "postalCode": cut(&a.zipcode, 12),
        "cityName": cut(&a.city, 45),
        "countryCode": country
    });
    let lines = spill(
        &[&a.address1, a.address2.as_deref().unwrap_or_default()],
        45,
        3,
    );
    for (i, line) in lines.into_iter().enumerate() {
        postal[format!("addressLine{}", i + 1)] = line.into();
    }
    let person = match a.att_contact.trim() {
        "" => a.name.as_str(),
        contact => contact,
    };
    let mut contact = json!({
        "phone": cut(phone, 70),
        "companyName": cut(&a.name, 100),
        "fullName": cut(person, 255)
    });
    if !a.email.trim().is_empty() {
        contact["email"] = cut(a.email.trim(), 70).into();
    }
    Ok(json!({"postalAddress": postal, "contactInformation": contact}))
}

/// One shipment to collect: its product, whether it crosses a customs border (as its booking
/// decided) and its parcels as packages.
fn shipment_detail(shipment: &ShipmentRecord, origin: &str) -> Value {
    let country_of = |kind: &str| {
        shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == kind)
            .map(|p| p.country_code.as_str())
    };
    let from = country_of("sender").unwrap_or(origin);
    let to = country_of("receiver").unwrap_or(from);
    let mut packages: Vec<Value> = shipment
        .body
        .parcels
        .iter()
        .map(|p| package(p.weight_kg(), p.dimensions))
        .collect();
    if packages.is_empty() {
        packages.push(package(0.0, None));
    }
    let product = cut(shipment.body.carrier_settings.product_id.trim(), 6);
    json!({
        "productCode": if product.is_empty() { "P".to_string() } else { product },
        "isCustomsDeclarable": country::crosses_customs_border(from, to),
        "unitOfMeasurement": "metric",
        "packages": packages
    })
}

/// A package of `kg` (at least 1 g) and its size in cm (DHL wants one: 1 × 1 × 1 when unknown,
/// as for rates).
fn package(kg: f64, dimensions: Option<Dimensions>) -> Value {
    let side = |cm: f64| round3(cm.max(1.0));
    json!({
        "weight": round3(kg.max(0.001)),
        "dimensions": {
            "length": dimensions.map_or(1.0, |d| side(d.length)),
            "width": dimensions.map_or(1.0, |d| side(d.width)),
            "height": dimensions.map_or(1.0, |d| side(d.height)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planned_time_is_the_addresss_clock_with_its_offset() {
        assert_eq!(
            planned_at("2031-03-04", "09:30", "DK", "2600").ok(),
            Some("2031-03-04T09:30:00 GMT+01:00".to_string())
        );
        assert_eq!(
            planned_at("2031-07-04", "09:30", "DK", "2600").ok(),
            Some("2031-07-04T09:30:00 GMT+02:00".to_string())
        );
        assert!(planned_at("2031-3-4", "09:30", "DK", "2600").is_err());
        assert_eq!(close_time("17:05").ok(), Some("17:05".to_string()));
    }

    #[test]
    fn message_references_are_28_to_36_characters() {
        let id = "pck_01JABCDEFGHJKMNPQRSTVWXYZ0";
        assert_eq!(message_reference(id), id);
        assert_eq!(
            message_reference("cancel-pickup-PRG2"),
            "cancel-pickup-PRG2----------"
        );
        assert_eq!(message_reference(&"x".repeat(50)).len(), 36);
    }

    #[test]
    fn the_first_dispatch_confirmation_number_confirms() {
        let answer = json!({"dispatchConfirmationNumbers": ["PRG221222000062", "PRG221222000063"]});
        assert_eq!(
            confirmation(&answer).ok(),
            Some(PickupBooking {
                confirmation_number: "PRG221222000062".into()
            })
        );
        assert!(matches!(
            confirmation(&json!({"dispatchConfirmationNumbers": []})),
            Err(Error::CarrierUncertain(_))
        ));
    }
}

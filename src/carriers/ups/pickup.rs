//! UPS Pickup (v2409, from UPS's Pickup.yaml): an on-call pickup booked with
//! `POST /api/pickupcreation/v2409/pickup`, paid by the account, one piece per service and
//! destination country of the parcels collected, its PRN the confirmation number; cancelled by
//! PRN with `DELETE /api/shipments/v2409/pickup/02`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{VERSION, auth::call, base, refusal, request::weight, setting};
use crate::{
    carriers::{
        Env, http,
        pickup::{PickupBooking, PickupRequest},
        wire::cut,
    },
    error::{Error, Result},
    model::{carrier::CarrierRecord, region},
};

/// `CancelBy`: the pickup named by its PRN (01 would cancel by account number).
const BY_PRN: &str = "02";
/// `ContainerCode` 01: packages (02 is UPS letters, 03 pallets for freight).
const PACKAGE: &str = "01";
/// UPS calls a pickup overweight when a package weighs more than 70 lb / 32 kg.
const OVERWEIGHT_KG: f64 = 32.0;

/// Books `pickup`: the PRN UPS answers is the confirmation number.
pub(super) async fn book(
    env: &Env,
    carrier: &CarrierRecord,
    pickup: &PickupRequest<'_>,
) -> Result<PickupBooking> {
    let account = setting(carrier, "accountNumber")?;
    let body = request(pickup, &account)?;
    let url = format!("{}/api/pickupcreation/{VERSION}/pickup", base(env, carrier));
    let answer = call(env, carrier, reqwest::Method::POST, &url, |request| {
        request.json(&body)
    })
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "the pickup"));
    }
    confirmation(&answer.json())
}

/// Cancels the pickup UPS confirmed as `prn`.
pub(super) async fn cancel(env: &Env, carrier: &CarrierRecord, prn: &str) -> Result<()> {
    let url = format!(
        "{}/api/shipments/{VERSION}/pickup/{BY_PRN}",
        base(env, carrier)
    );
    let answer = call(env, carrier, reqwest::Method::DELETE, &url, |request| {
        request.header("Prn", prn)
    })
    .await?;
    if !answer.status.is_success() {
        // Pickup.yaml lists no error codes; UPS's words are matched so that cancelling a pickup
        // UPS cancelled already is done, as the trait asks.
        let reason = super::answer::problem(&answer.json()).to_lowercase();
        if !http::is_unavailable(answer.status)
            && reason.contains("already")
            && reason.contains("cancel")
        {
            return Ok(());
        }
        return Err(refusal(&answer, "to cancel the pickup"));
    }
    let body = answer.json();
    let status = &body["PickupCancelResponse"]["Response"]["ResponseStatus"];
    if status["Code"] == "0" {
        return Err(Error::CarrierRejected(format!(
            "UPS did not cancel pickup {prn}: {}",
            status["Description"].as_str().unwrap_or("no reason given")
        )));
    }
    Ok(())
}

/// The `PICKUPCreationRequestWrapper` for `pickup`, paid by `account` (PaymentMethod 01).
pub(super) fn request(pickup: &PickupRequest<'_>, account: &str) -> Result<Value> {
    let a = &pickup.address.fields;
    let country = a.country_code.trim().to_ascii_uppercase();
    let overweight = pickup
        .shipments
        .iter()
        .flat_map(|s| &s.body.parcels)
        .any(|p| p.weight_kg() > OVERWEIGHT_KG);
    let mut body = json!({
        "Request": {"TransactionReference": {"CustomerContext": pickup.reference}},
        "RatePickupIndicator": "N",
        // The account's country is not configured: a UPS account picks up in its own country,
        // so the pickup address's country stands for it.
        "Shipper": {"Account": {"AccountNumber": account, "AccountCountryCode": country}},
        // Local date and times, yyyyMMdd and HHmm. (Pickup.yaml declares PickupDate 4..4
        // characters, which its own yyyyMMdd format contradicts; the format is what is sent.)
        "PickupDateInfo": {
            "CloseTime": digits(pickup.ready_until),
            "ReadyTime": digits(pickup.ready_from),
            "PickupDate": digits(pickup.date),
        },
        "PickupAddress": address(pickup),
        // Y: the address is given here rather than taken from the account's profile (a
        // Shipbase organization may pick up at any of its sender addresses).
        "AlternateAddressIndicator": "Y",
        "PickupPiece": pieces(pickup, &country)?,
        // One decimal, as Pickup.yaml's prose and example ("5.5") write it; its 6..6 length is
        // not what UPS's examples send.
        "TotalWeight": {"Weight": weight(pickup.total_weight_kg()), "UnitOfMeasurement": "KGS"},
        "OverweightIndicator": if overweight { "Y" } else { "N" },
        "PaymentMethod": "01",
        "ReferenceNumber": cut(pickup.reference, 35),
    });
    if let Some(note) = pickup.note.map(str::trim).filter(|n| !n.is_empty()) {
        body["SpecialInstruction"] = json!(cut(note, 57));
    }
    let email = a.email.trim();
    if (3..=50).contains(&email.chars().count()) && email.contains('@') {
        body["Notification"] = json!({"ConfirmationEmailAddress": email});
    }
    Ok(json!({"PickupCreationRequest": body}))
}

/// The sender address as a `PickupAddress`: one address line of 73 characters, company 27,
/// contact 22; the state where UPS requires one (US, CA).
fn address(pickup: &PickupRequest<'_>) -> Value {
    let a = &pickup.address.fields;
    let country = a.country_code.trim().to_ascii_uppercase();
    let streets: Vec<&str> = [Some(a.address1.as_str()), a.address2.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let phone = match digits(&a.phone) {
        number if number.is_empty() => a.phone.trim().to_string(),
        number => number,
    };
    let contact = match a.att_contact.trim() {
        "" => a.name.trim(),
        contact => contact,
    };
    let mut block = json!({
        "CompanyName": cut(a.name.trim(), 27),
        "ContactName": cut(contact, 22),
        // "Only one AddressLine is allowed."
        "AddressLine": [cut(&streets.join(", "), 73)],
        "City": cut(a.city.trim(), 50),
        "CountryCode": country,
        "ResidentialIndicator": "N",
        "Phone": {"Number": cut(&phone, 25)},
    });
    let postcode = postcode(&a.zipcode, &country);
    if !postcode.is_empty() {
        block["PostalCode"] = json!(postcode);
    }
    let state = region::of(&country, &a.zipcode)
        .map(str::to_string)
        .or_else(|| {
            let given = a.state.trim();
            (matches!(country.as_str(), "US" | "CA")
                && given.len() == 2
                && given.chars().all(|c| c.is_ascii_alphabetic()))
            .then(|| given.to_ascii_uppercase())
        });
    if let Some(state) = state {
        block["StateProvince"] = json!(state);
    }
    block
}

/// One `PickupPiece` per service and destination country among the shipments' parcels, in
/// that order. A pickup of no particular shipments is told one package of UPS's most widely
/// offered service (`default_service`) within the country.
fn pieces(pickup: &PickupRequest<'_>, country: &str) -> Result<Vec<Value>> {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for shipment in pickup.shipments {
        let destination = shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == "receiver")
            .map(|p| p.country_code.trim().to_ascii_uppercase())
            .filter(|c| c.len() == 2)
            .unwrap_or_else(|| country.to_string());
        let service = service_code(&shipment.body.carrier_settings.product_id);
        *counts.entry((service, destination)).or_default() += shipment.body.parcels.len().max(1);
    }
    if counts.is_empty() {
        counts.insert(
            (default_service(country).to_string(), country.to_string()),
            1,
        );
    }
    counts
        .into_iter()
        .map(|((service, destination), quantity)| {
            if quantity > 999 {
                return Err(Error::InvalidState(format!(
                    "UPS collects at most 999 packages of one service in a pickup; this one has \
                     {quantity} of service {service} to {destination}"
                )));
            }
            Ok(json!({
                "ServiceCode": service,
                "Quantity": quantity.to_string(),
                "DestinationCountryCode": destination,
                "ContainerCode": PACKAGE,
            }))
        })
        .collect()
}

/// UPS's pickup service code of a shipping service: its code zero-padded to three digits
/// ("11" → "011"), as in Pickup.yaml's examples ("001", "012"). The list itself is in UPS's
/// appendix, not in the description.
fn service_code(product: &str) -> String {
    format!("{:0>3}", cut(product.trim(), 3))
}

/// For a pickup of no particular shipments: UPS Ground within the US, UPS Standard elsewhere.
fn default_service(country: &str) -> &'static str {
    match country {
        "US" | "PR" => "003",
        _ => "011",
    }
}

/// The PRN of a 200 answer.
fn confirmation(answer: &Value) -> Result<PickupBooking> {
    let response = &answer["PickupCreationResponse"];
    let status = &response["Response"]["ResponseStatus"];
    if status["Code"] == "0" {
        return Err(Error::CarrierRejected(format!(
            "UPS refused the pickup: {}",
            status["Description"].as_str().unwrap_or("no reason given")
        )));
    }
    match response["PRN"]
        .as_str()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        Some(prn) => Ok(PickupBooking {
            confirmation_number: prn.to_string(),
        }),
        None => Err(Error::CarrierUncertain(
            "UPS answered the pickup without a pickup request number (PRN); whether it booked \
             it cannot be told"
                .into(),
        )),
    }
}

fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// A postcode in Pickup.yaml's 8 characters: without spaces and dashes, a US ZIP+4 as its ZIP.
fn postcode(text: &str, country: &str) -> String {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    if country == "US" && compact.chars().count() > 8 {
        return cut(&compact, 5);
    }
    cut(&compact, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_dates_and_postcodes_are_written_as_ups_takes_them() {
        assert_eq!(service_code("11"), "011");
        assert_eq!(service_code("65"), "065");
        assert_eq!(service_code("003"), "003");
        assert_eq!(digits("2031-03-04"), "20310304");
        assert_eq!(digits("09:30"), "0930");
        assert_eq!(postcode("78701-1234", "US"), "78701");
        assert_eq!(postcode("SW1A 1AA", "GB"), "SW1A1AA");
        assert_eq!(default_service("US"), "003");
        assert_eq!(default_service("DK"), "011");
    }

    #[test]
    fn the_prn_is_the_confirmation_and_its_absence_is_uncertain() {
        let answer = json!({"PickupCreationResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
            "PRN": "2929602E9CP", "RateStatus": {"Code": "04"}}});
        assert_eq!(
            confirmation(&answer).ok(),
            Some(PickupBooking {
                confirmation_number: "2929602E9CP".into()
            })
        );
        let without = json!({"PickupCreationResponse": {
            "Response": {"ResponseStatus": {"Code": "1", "Description": "Success"}},
            "RateStatus": {"Code": "04"}}});
        assert!(matches!(
            confirmation(&without),
            Err(Error::CarrierUncertain(_))
        ));
    }
}

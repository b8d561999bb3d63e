//! `ups`: UPS through its REST APIs, written from UPS's published OpenAPI descriptions
//! (UPS-API/api-documentation: OAuthClientCredentials, Shipping v2409, Rating v2409, Tracking
//! v1, Pickup v2409): OAuth client credentials with the token kept until it expires, shipments
//! with UPS's labels (one per package, GIF made into a PDF page, or ZPL), Print Return Labels for
//! returns, voiding a booking that has not left, rates, tracking by package, and on-call pickups.

mod address;
mod answer;
mod auth;
mod pickup;
mod rating;
mod request;

use auth::call;

use super::{
    AddressVerdict, Booking, BoxFuture, CarrierAdapter, CarrierEvent, CarrierInfo, Env, Offer,
    RateOffer, config_str,
    http::{self, Answer},
    pickup::{PickupBooking, PickupRequest},
    wire::{api_base, field, option, required},
};
use crate::{
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ShipmentRecord, timezone},
};

pub struct Ups;

/// UPS services: code and name.
const PRODUCTS: &[(&str, &str)] = &[
    ("11", "UPS Standard"),
    ("65", "UPS Worldwide Saver"),
    ("07", "UPS Worldwide Express"),
    ("54", "UPS Worldwide Express Plus"),
    ("08", "UPS Worldwide Expedited"),
    ("74", "UPS Express 12:00"),
    ("03", "UPS Ground"),
    ("12", "UPS 3 Day Select"),
    ("02", "UPS 2nd Day Air"),
    ("13", "UPS Next Day Air Saver"),
    ("01", "UPS Next Day Air"),
    ("14", "UPS Next Day Air Early"),
    ("70", "UPS Access Point Economy"),
];

const NAME: &str = "UPS";
/// UPS's Customer Integration Environment (its test system) and production.
const TEST: &str = "https://wwwcie.ups.com";
const PRODUCTION: &str = "https://onlinetools.ups.com";
/// The Shipping API version the adapter was written for.
const VERSION: &str = "v2409";
/// What UPS is told the requests come from (`transactionSrc`).
const SOURCE: &str = "shipbase";

impl CarrierAdapter for Ups {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: NAME,
            slug: "ups",
            group: "express",
            description: "UPS: domestic and worldwide parcels booked through UPS's APIs, with UPS's own labels (PDF or ZPL), return labels, voiding before pickup, driver pickups, and tracking.",
            fields: vec![
                field(
                    "Client ID",
                    "clientId",
                    "string",
                    "The client ID of your app at developer.ups.com",
                    true,
                    vec![],
                ),
                field(
                    "Client secret",
                    "clientSecret",
                    "password",
                    "The client secret of that app",
                    true,
                    vec![],
                ),
                field(
                    "Account number",
                    "accountNumber",
                    "string",
                    "Your 6-character UPS shipper number, billed for the shipments",
                    true,
                    vec![],
                ),
                field(
                    "Sandbox",
                    "sandbox",
                    "select",
                    "true: UPS's test system, CIE (the default); false: production",
                    false,
                    vec![option("Test", "true"), option("Production", "false")],
                ),
                field(
                    "Label format",
                    "labelFormat",
                    "select",
                    "PDF labels, or ZPL for thermal printers",
                    false,
                    vec![option("PDF", "pdf"), option("ZPL", "zpl")],
                ),
            ],
            products: PRODUCTS
                .iter()
                .map(|(id, name)| Offer { id, name })
                .collect(),
            services: [
                ("signature", "Signature required"),
                ("adult_signature", "Adult signature required"),
                ("saturday_delivery", "Saturday delivery"),
                ("carbon_neutral", "UPS carbon neutral"),
            ]
            .into_iter()
            .map(|(id, name)| Offer { id, name })
            .collect(),
        }
    }

    fn book<'a>(
        &'a self,
        env: &'a Env,
        shipment: &'a ShipmentRecord,
        carrier: &'a CarrierRecord,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Booking>> {
        Box::pin(book(env, shipment, carrier, reference))
    }

    fn calls_out(&self) -> bool {
        true
    }

    fn tracks(&self) -> bool {
        true
    }

    fn rates(&self) -> bool {
        true
    }

    fn checks_addresses(&self, country: &str) -> bool {
        address::COUNTRIES.contains(&country)
    }

    fn check_address<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        address: &'a crate::model::address_check::AddressCheckIn,
    ) -> BoxFuture<'a, Result<AddressVerdict>> {
        Box::pin(check_address(env, carrier, address))
    }

    fn rate<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        shipment: &'a ShipmentRecord,
    ) -> BoxFuture<'a, Result<Vec<RateOffer>>> {
        Box::pin(rate(env, carrier, shipment))
    }

    fn track<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        number: &'a str,
    ) -> BoxFuture<'a, Result<Vec<CarrierEvent>>> {
        Box::pin(track(env, carrier, number))
    }

    fn voids(&self) -> bool {
        true
    }

    fn void<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        shipment: &'a ShipmentRecord,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(void(env, carrier, shipment))
    }

    fn picks_up(&self, _country: &str) -> bool {
        true
    }

    fn book_pickup<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        request: &'a PickupRequest<'a>,
    ) -> BoxFuture<'a, Result<PickupBooking>> {
        Box::pin(pickup::book(env, carrier, request))
    }

    fn cancel_pickup<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        confirmation_number: &'a str,
        _contact: &'a str,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(pickup::cancel(env, carrier, confirmation_number))
    }
}

fn base(env: &Env, carrier: &CarrierRecord) -> String {
    api_base(&env.ups_url, carrier, TEST, PRODUCTION)
}

fn setting(carrier: &CarrierRecord, key: &str) -> Result<String> {
    required(carrier, NAME, key)
}

async fn book(
    env: &Env,
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    reference: &str,
) -> Result<Booking> {
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    let account = setting(carrier, "accountNumber")?;
    let today = shipper_today(env, shipment);
    let body = request::shipment_request(shipment, carrier, &account, reference, today)?;
    let url = format!("{}/api/shipments/{VERSION}/ship", base(env, carrier));
    let answer = call(env, carrier, reqwest::Method::POST, &url, |request| {
        request.json(&body)
    })
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "the shipment"));
    }
    answer::booking(&answer.json(), shipment.body.parcels.len().max(1), zpl)
}

/// The shipper's date (UPS's pickup date for time in transit, the invoice date).
fn shipper_today(env: &Env, shipment: &ShipmentRecord) -> jiff::civil::Date {
    let (country, postcode) = shipment
        .body
        .parties
        .iter()
        .find(|p| p.kind == "sender")
        .map(|p| (p.country_code.as_str(), p.postal_code.as_str()))
        .unwrap_or_default();
    timezone::local(env.clock.now(), timezone::zone_of(country, postcode)).date()
}

async fn rate(
    env: &Env,
    carrier: &CarrierRecord,
    shipment: &ShipmentRecord,
) -> Result<Vec<RateOffer>> {
    let account = setting(carrier, "accountNumber")?;
    let (body, option) = rating::rate_request(shipment, &account, shipper_today(env, shipment))?;
    let url = format!("{}/api/rating/{VERSION}/{option}", base(env, carrier));
    let answer = call(env, carrier, reqwest::Method::POST, &url, |request| {
        request.json(&body)
    })
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "to rate the shipment"));
    }
    Ok(rating::offers(&answer.json()))
}

async fn check_address(
    env: &Env,
    carrier: &CarrierRecord,
    address: &crate::model::address_check::AddressCheckIn,
) -> Result<AddressVerdict> {
    let body = address::request(address);
    let url = format!("{}/api/addressvalidation/v2/3", base(env, carrier));
    let answer = call(env, carrier, reqwest::Method::POST, &url, |request| {
        request
            .query(&[("maximumcandidatelistsize", "5")])
            .json(&body)
    })
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "to validate the address"));
    }
    Ok(address::verdict(&answer.json()))
}

fn refusal(answer: &Answer, what: &str) -> Error {
    let status = answer.status.as_u16();
    let reason = answer::problem(&answer.json());
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "UPS answered HTTP {status} ({reason}); nothing was booked, try again"
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "UPS refused the credentials (HTTP {status}): {reason}"
        ));
    }
    Error::CarrierRejected(format!("UPS refused {what} (HTTP {status}): {reason}"))
}

async fn void(env: &Env, carrier: &CarrierRecord, shipment: &ShipmentRecord) -> Result<()> {
    // The shipment is known by its first package's number.
    let Some(number) = shipment
        .body
        .tracking
        .as_ref()
        .and_then(|t| t.number.as_deref())
    else {
        return Ok(());
    };
    let url = format!(
        "{}/api/shipments/{VERSION}/void/cancel/{number}",
        base(env, carrier)
    );
    let answer = call(env, carrier, reqwest::Method::DELETE, &url, |request| {
        request
    })
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer, "to void the shipment"));
    }
    if !answer::voided(&answer.json()) {
        return Err(Error::CarrierRejected(
            "UPS did not void the shipment (it may have been picked up already)".into(),
        ));
    }
    Ok(())
}

async fn track(env: &Env, carrier: &CarrierRecord, number: &str) -> Result<Vec<CarrierEvent>> {
    let url = format!("{}/api/track/v1/details/{number}", base(env, carrier));
    let answer = call(env, carrier, reqwest::Method::GET, &url, |request| {
        request.query(&[
            ("locale", "en_US"),
            ("returnSignature", "false"),
            ("returnMilestones", "false"),
            ("returnPOD", "false"),
        ])
    })
    .await?;
    if answer.status.as_u16() == 404 {
        return Ok(Vec::new());
    }
    if !answer.status.is_success() {
        return Err(refusal(&answer, "the tracking request"));
    }
    Ok(answer::events(&answer.json(), number))
}

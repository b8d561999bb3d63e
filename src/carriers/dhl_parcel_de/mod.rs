//! `dhl_parcel_de`: DHL Parcel Germany (Post & Parcel Germany) through its Shipping API v2 and
//! Returns API, written from DHL's published OpenAPI descriptions: each parcel booked as a DHL
//! shipment with DHL's label (PDF or ZPL), returns labels from the Returns API, cancelling
//! before the day's closing (`DELETE /orders`), and the day's close itself (`close`). Every
//! call carries the API key (`dhl-api-key`) and the business customer's user and password (HTTP
//! Basic), as DHL asks. Tracking goes through DHL's Parcel DE Shipment Tracking API (`tracking`),
//! which has credentials of its own; pickups through its Parcel DE Pickup API (`pickup`), which
//! takes a token issued for the app's key and secret.

mod close;
mod pickup;
mod request;
mod tracking;

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::Value;

use super::{
    Booking, BoxFuture, CarrierAdapter, CarrierEvent, CarrierInfo, CarrierLabel, Env, Offer,
    config_str,
    http::{self, Answer},
    pickup::{Closed, PickupBooking, PickupRequest},
    wire::{field, option, required},
};
use crate::{
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ShipmentRecord, timezone},
};

pub struct DhlParcelDe;

const NAME: &str = "DHL Parcel Germany";
const SANDBOX: &str = "https://api-sandbox.dhl.com";
const PRODUCTION: &str = "https://api-eu.dhl.com";
const SHIPPING: &str = "/parcel/de/shipping/v2";
const RETURNS: &str = "/parcel/de/shipping/returns/v1";

impl CarrierAdapter for DhlParcelDe {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: NAME,
            slug: "dhl_parcel_de",
            group: "parcel",
            description: "DHL Parcel Germany (DHL Paket): parcels from Germany booked through DHL's Parcel DE Shipping API with DHL's own labels (PDF or ZPL), returns labels, cancelling before the day's closing, the end-of-day close, pickups through DHL's Parcel DE Pickup API, and tracking through DHL's Parcel DE Shipment Tracking API.",
            fields: vec![
                field(
                    "API key",
                    "apiKey",
                    "password",
                    "The API key of your app at developer.dhl.com",
                    true,
                    vec![],
                ),
                field(
                    "User",
                    "username",
                    "string",
                    "The business customer portal (GKP) user of the system connection",
                    true,
                    vec![],
                ),
                field(
                    "Password",
                    "password",
                    "password",
                    "That user's password",
                    true,
                    vec![],
                ),
                field(
                    "Customer number (EKP)",
                    "ekp",
                    "string",
                    "Your 10-digit DHL customer number; the billing number is made of it, the product's two digits and the participation",
                    true,
                    vec![],
                ),
                field(
                    "Participation",
                    "participation",
                    "string",
                    "The two characters that end your billing numbers (default 01)",
                    false,
                    vec![],
                ),
                field(
                    "Returns receiver",
                    "returnsReceiverId",
                    "string",
                    "The receiver ID of your returns address in the GKP (e.g. deu); needed for return labels",
                    false,
                    vec![],
                ),
                field(
                    "API secret",
                    "apiSecret",
                    "password",
                    "The secret of your app at developer.dhl.com; needed for tracking and pickups",
                    false,
                    vec![],
                ),
                field(
                    "Tracking user",
                    "trackingUser",
                    "string",
                    "The user DHL issues for the Parcel DE Shipment Tracking API (zt12345 in the sandbox); needed for tracking",
                    false,
                    vec![],
                ),
                field(
                    "Tracking password",
                    "trackingPassword",
                    "password",
                    "That tracking user's password; needed for tracking",
                    false,
                    vec![],
                ),
                field(
                    "Sandbox",
                    "sandbox",
                    "select",
                    "true: DHL's sandbox (the default); false: production",
                    false,
                    vec![option("Sandbox", "true"), option("Production", "false")],
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
            products: request::PRODUCTS
                .iter()
                .map(|(id, name, _)| Offer { id, name })
                .collect(),
            services: [
                ("named_person_only", "Named person only"),
                ("signed_for_by_recipient", "Signed for by recipient"),
                ("no_neighbour_delivery", "No neighbour delivery"),
                ("visual_check_of_age_16", "Visual check of age 16"),
                ("visual_check_of_age_18", "Visual check of age 18"),
                ("premium", "Premium (international)"),
                ("bulky_goods", "Bulky goods"),
                ("go_green_plus", "GoGreen Plus"),
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
        _reference: &'a str,
    ) -> BoxFuture<'a, Result<Booking>> {
        Box::pin(async move {
            if shipment.kind == "inbound" {
                book_return(env, shipment, carrier).await
            } else {
                book(env, shipment, carrier).await
            }
        })
    }

    fn calls_out(&self) -> bool {
        true
    }

    fn tracks(&self) -> bool {
        true
    }

    fn track<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        number: &'a str,
    ) -> BoxFuture<'a, Result<Vec<CarrierEvent>>> {
        Box::pin(tracking::track(env, carrier, number))
    }

    fn picks_up(&self, country: &str) -> bool {
        country == "DE"
    }

    fn book_pickup<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        wanted: &'a PickupRequest<'a>,
    ) -> BoxFuture<'a, Result<PickupBooking>> {
        Box::pin(pickup::book(env, carrier, wanted))
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

    fn closes_day(&self) -> bool {
        true
    }

    fn close_day<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        shipments: &'a [ShipmentRecord],
    ) -> BoxFuture<'a, Result<Closed>> {
        Box::pin(close::close(env, carrier, shipments))
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
}

fn host(env: &Env, carrier: &CarrierRecord) -> String {
    if !env.dhl_parcel_de_url.is_empty() {
        return env.dhl_parcel_de_url.clone();
    }
    let live = config_str(carrier, "sandbox").is_some_and(|v| v == "false");
    if live { PRODUCTION } else { SANDBOX }.to_string()
}

fn setting(carrier: &CarrierRecord, key: &str) -> Result<String> {
    required(carrier, NAME, key)
}

/// A request with DHL's API key and the customer's user and password.
fn request(
    env: &Env,
    carrier: &CarrierRecord,
    method: reqwest::Method,
    url: String,
) -> Result<reqwest::RequestBuilder> {
    Ok(env
        .http()?
        .request(method, url)
        .header("dhl-api-key", setting(carrier, "apiKey")?)
        .basic_auth(
            setting(carrier, "username")?,
            Some(setting(carrier, "password")?),
        )
        .header("Accept-Language", "en-US")
        .header(reqwest::header::ACCEPT, "application/json"))
}

/// The billing number of `product`: the customer number, the product's digits, the
/// participation.
fn billing_number(carrier: &CarrierRecord, product: &str) -> Result<String> {
    let ekp = setting(carrier, "ekp")?;
    if ekp.len() != 10 || !ekp.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::InvalidState(format!(
            "the {NAME} carrier's ekp must be the 10-digit customer number"
        )));
    }
    let digits = request::PRODUCTS
        .iter()
        .find(|(id, _, _)| *id == product)
        .map(|(_, _, digits)| *digits)
        .ok_or_else(|| Error::InvalidState(format!("{product} is not a {NAME} product")))?;
    let participation = config_str(carrier, "participation")
        .map(|p| p.into_owned())
        .unwrap_or_else(|| "01".into());
    Ok(format!("{ekp}{digits}{participation}"))
}

async fn book(env: &Env, shipment: &ShipmentRecord, carrier: &CarrierRecord) -> Result<Booking> {
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    let billing = billing_number(carrier, &shipment.body.carrier_settings.product_id)?;
    let sender = shipment.body.parties.iter().find(|p| p.kind == "sender");
    let today = timezone::local(
        env.clock.now(),
        timezone::zone_of(
            sender.map_or("DE", |p| p.country_code.as_str()),
            sender.map_or("", |p| p.postal_code.as_str()),
        ),
    )
    .date()
    .to_string();
    let body = request::order(shipment, &billing, &today)?;
    let url = format!("{}{SHIPPING}/orders", host(env, carrier));
    let builder = request(env, carrier, reqwest::Method::POST, url)?
        .query(&[
            ("docFormat", if zpl { "ZPL2" } else { "PDF" }),
            ("includeDocs", "include"),
        ])
        .json(&body);
    let answer = http::send(NAME, builder).await?;
    let json = answer.json();
    let items: Vec<&Value> = json["items"].as_array().into_iter().flatten().collect();
    let booked: Vec<&Value> = items
        .iter()
        .copied()
        .filter(|i| item_ok(i) && i["shipmentNo"].is_string())
        .collect();
    let parcels = shipment.body.parcels.len();
    if !answer.status.is_success() || booked.len() != parcels {
        // Nothing half-booked: what DHL did book of a partly refused order is cancelled again.
        let numbers: Vec<String> = booked
            .iter()
            .filter_map(|i| i["shipmentNo"].as_str().map(str::to_string))
            .collect();
        if !numbers.is_empty()
            && let Err(err) = cancel(env, carrier, &numbers).await
        {
            tracing::warn!(error = %err, "a partly refused DHL Parcel Germany order could not be cancelled");
        }
        return Err(refusal(&answer, &json));
    }
    let mut numbers = Vec::new();
    let mut labels = Vec::new();
    for item in booked {
        numbers.push(item["shipmentNo"].as_str().unwrap_or_default().to_string());
        labels.push(label(&item["label"], zpl)?);
    }
    Ok(Booking {
        tracking_url: numbers.first().map(|n| tracking_url(n)),
        tracking_numbers: numbers,
        labels,
    })
}

/// Whether an item of DHL's answer says it was done (its own status 200 or 201).
fn item_ok(item: &Value) -> bool {
    let code = item["sstatus"]["statusCode"]
        .as_u64()
        .or(item["sstatus"]["status"].as_u64());
    matches!(code, Some(200 | 201))
}

fn label(document: &Value, zpl: bool) -> Result<CarrierLabel> {
    let uncertain = |what: &str| {
        Error::CarrierUncertain(format!(
            "{NAME} answered {what}; whether it booked cannot be told"
        ))
    };
    let content = if zpl {
        document["zpl2"]
            .as_str()
            .map(|z| z.as_bytes().to_vec())
            .or_else(|| {
                document["b64"]
                    .as_str()
                    .and_then(|b| STANDARD.decode(b).ok())
            })
    } else {
        document["b64"]
            .as_str()
            .and_then(|b| STANDARD.decode(b).ok())
    }
    .filter(|c| !c.is_empty())
    .ok_or_else(|| uncertain("a parcel without its label"))?;
    Ok(CarrierLabel {
        format: if zpl { "zpl" } else { "pdf" },
        size: "100X150",
        content,
    })
}

fn tracking_url(number: &str) -> String {
    format!("https://www.dhl.de/de/privatkunden/dhl-sendungsverfolgung.html?piececode={number}")
}

/// DHL's reasons: the request's status detail and every item's validation messages.
fn problem(body: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for item in body["items"].as_array().into_iter().flatten() {
        for message in item["validationMessages"].as_array().into_iter().flatten() {
            let text = message["validationMessage"].as_str().unwrap_or_default();
            if text.is_empty() {
                continue;
            }
            parts.push(
                match message["property"].as_str().filter(|p| !p.is_empty()) {
                    Some(property) => format!("{property}: {text}"),
                    None => text.to_string(),
                },
            );
        }
    }
    if parts.is_empty() {
        let status = if body["status"].is_object() {
            &body["status"]
        } else {
            body
        };
        for key in ["detail", "title"] {
            if let Some(text) = status[key].as_str().filter(|t| !t.is_empty()) {
                parts.push(text.to_string());
                break;
            }
        }
    }
    if parts.is_empty() {
        "no reason given".into()
    } else {
        parts.join("; ")
    }
}

fn refusal(answer: &Answer, body: &Value) -> Error {
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "{NAME} answered HTTP {status} ({}); nothing was booked, try again",
            problem(body)
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "{NAME} refused the API key, user or password (HTTP {status})"
        ));
    }
    Error::CarrierRejected(format!(
        "{NAME} refused the shipment (HTTP {status}): {}",
        problem(body)
    ))
}

/// A return: one returns label per parcel from the Returns API.
async fn book_return(
    env: &Env,
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
) -> Result<Booking> {
    let receiver = config_str(carrier, "returnsReceiverId")
        .map(|r| r.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the {NAME} carrier has no returnsReceiverId; set it to book returns"
            ))
        })?;
    let mut numbers = Vec::new();
    let mut labels = Vec::new();
    for parcel in &shipment.body.parcels {
        let body = request::return_order(shipment, parcel, &receiver)?;
        let url = format!("{}{RETURNS}/orders", host(env, carrier));
        let builder = request(env, carrier, reqwest::Method::POST, url)?
            .query(&[("labelType", "SHIPMENT_LABEL")])
            .json(&body);
        let answer = http::send(NAME, builder).await?;
        let json = answer.json();
        if !answer.status.is_success() {
            return Err(refusal(&answer, &json));
        }
        let number = json["shipmentNo"]
            .as_str()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| {
                Error::CarrierUncertain(format!(
                    "{NAME} answered a return without its number; whether it booked cannot be told"
                ))
            })?;
        numbers.push(number.to_string());
        labels.push(label(&json["label"], false)?);
    }
    Ok(Booking {
        tracking_url: numbers.first().map(|n| tracking_url(n)),
        tracking_numbers: numbers,
        labels,
    })
}

/// Cancels DHL shipments (parcels) before the day's closing.
async fn cancel(env: &Env, carrier: &CarrierRecord, numbers: &[String]) -> Result<()> {
    let url = format!("{}{SHIPPING}/orders", host(env, carrier));
    let mut query: Vec<(&str, &str)> = vec![("profile", request::PROFILE)];
    query.extend(numbers.iter().map(|n| ("shipment", n.as_str())));
    let builder = request(env, carrier, reqwest::Method::DELETE, url)?.query(&query);
    let answer = http::send(NAME, builder).await?;
    let json = answer.json();
    if !answer.status.is_success() {
        return Err(refusal(&answer, &json));
    }
    let refused: Vec<String> = json["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| !item_ok(i))
        .filter_map(|i| i["shipmentNo"].as_str().map(str::to_string))
        .collect();
    if !refused.is_empty() {
        return Err(Error::CarrierRejected(format!(
            "{NAME} did not cancel {} (closed for the day already?): {}",
            refused.join(", "),
            problem(&json)
        )));
    }
    Ok(())
}

async fn void(env: &Env, carrier: &CarrierRecord, shipment: &ShipmentRecord) -> Result<()> {
    // Returns labels are only paid when used; DHL's Returns API has no cancel.
    if shipment.kind == "inbound" {
        return Ok(());
    }
    let numbers: Vec<String> = shipment
        .body
        .parcels
        .iter()
        .filter_map(|p| p.tracking_number.clone())
        .collect();
    if numbers.is_empty() {
        return Ok(());
    }
    cancel(env, carrier, &numbers).await
}

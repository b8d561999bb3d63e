//! `dhl_express`: DHL Express through the MyDHL API (3.1, OpenAPI 3), written from DHL's
//! published specification: shipments with DHL's labels (one per package, PDF or ZPL),
//! tracking by piece, rates and pickups. HTTP Basic authentication; the test and production
//! URLs differ by path.

mod answer;
mod customs;
mod pickup;
mod rates;
mod request;

use super::{
    Booking, BoxFuture, CarrierAdapter, CarrierEvent, CarrierInfo, Env, Offer, RateOffer,
    config_str,
    http::{self, Answer},
    pickup::{PickupBooking, PickupRequest},
    wire::{api_base, field, option, required},
};
use crate::{
    error::{Error, Result},
    model::{carrier::CarrierRecord, shipment::ShipmentRecord},
};

pub struct DhlExpress;

const NAME: &str = "DHL Express";
const TEST: &str = "https://express.api.dhl.com/mydhlapi/test";
const PRODUCTION: &str = "https://express.api.dhl.com/mydhlapi";
/// The interface version the adapter was written for (header `x-version`).
const VERSION: &str = "3.1.0";

impl CarrierAdapter for DhlExpress {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: NAME,
            slug: "dhl_express",
            group: "express",
            description: "DHL Express: time-definite international and domestic express, booked through the MyDHL API with DHL's own labels (PDF or ZPL) and tracking.",
            fields: vec![
                field(
                    "API username",
                    "username",
                    "string",
                    "The MyDHL API username (developer.dhl.com)",
                    true,
                    vec![],
                ),
                field(
                    "API password",
                    "password",
                    "password",
                    "The MyDHL API password",
                    true,
                    vec![],
                ),
                field(
                    "Account number",
                    "accountNumber",
                    "string",
                    "Your DHL Express shipper account number",
                    true,
                    vec![],
                ),
                field(
                    "Sandbox",
                    "sandbox",
                    "select",
                    "true: DHL's test environment (the default); false: production",
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
                field(
                    "Label template",
                    "labelTemplate",
                    "string",
                    "A DHL label template (default ECOM26_84_001, 4 × 6 in)",
                    false,
                    vec![],
                ),
            ],
            products: vec![
                Offer {
                    id: "P",
                    name: "Express Worldwide",
                },
                Offer {
                    id: "U",
                    name: "Express Worldwide (EU)",
                },
                Offer {
                    id: "D",
                    name: "Express Worldwide (documents)",
                },
                Offer {
                    id: "N",
                    name: "Express Domestic",
                },
                Offer {
                    id: "K",
                    name: "Express 9:00",
                },
                Offer {
                    id: "T",
                    name: "Express 12:00",
                },
                Offer {
                    id: "W",
                    name: "Economy Select",
                },
            ],
            services: vec![
                Offer {
                    id: "II",
                    name: "Shipment insurance",
                },
                Offer {
                    id: "DD",
                    name: "Duty and tax paid",
                },
                Offer {
                    id: "AA",
                    name: "Saturday delivery",
                },
                Offer {
                    id: "SF",
                    name: "Direct signature",
                },
                Offer {
                    id: "NN",
                    name: "Neutral delivery",
                },
                Offer {
                    id: "EE",
                    name: "GoGreen climate neutral",
                },
            ],
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

    fn picks_up(&self, _country: &str) -> bool {
        true
    }

    fn book_pickup<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        asked: &'a PickupRequest<'a>,
    ) -> BoxFuture<'a, Result<PickupBooking>> {
        Box::pin(pickup::book(env, carrier, asked))
    }

    fn cancel_pickup<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a CarrierRecord,
        confirmation_number: &'a str,
        contact: &'a str,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(pickup::cancel(env, carrier, confirmation_number, contact))
    }
}

fn base(env: &Env, carrier: &CarrierRecord) -> String {
    api_base(&env.dhl_express_url, carrier, TEST, PRODUCTION)
}

/// A setting DHL Express requires.
pub(super) fn setting(carrier: &CarrierRecord, key: &str) -> Result<String> {
    required(carrier, NAME, key)
}

fn request(
    env: &Env,
    carrier: &CarrierRecord,
    method: reqwest::Method,
    path: &str,
    reference: &str,
) -> Result<reqwest::RequestBuilder> {
    Ok(env
        .http()?
        .request(method, format!("{}{path}", base(env, carrier)))
        .basic_auth(
            setting(carrier, "username")?,
            Some(setting(carrier, "password")?),
        )
        .header("x-version", VERSION)
        .header("Message-Reference", reference)
        .header("Plugin-Name", "Shipbase")
        .header("Plugin-Version", env!("CARGO_PKG_VERSION")))
}

async fn book(
    env: &Env,
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    reference: &str,
) -> Result<Booking> {
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    let body = request::shipment_request(shipment, carrier, env.clock.now())?;
    // The booking attempt's reference: what DHL logs the request under.
    let builder =
        request(env, carrier, reqwest::Method::POST, "/shipments", reference)?.json(&body);
    let answer = http::send(NAME, builder).await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    answer::booking(&answer.json(), shipment.body.parcels.len().max(1), zpl)
}

async fn rate(
    env: &Env,
    carrier: &CarrierRecord,
    shipment: &ShipmentRecord,
) -> Result<Vec<RateOffer>> {
    let body = rates::rate_request(shipment, carrier, env.clock.now())?;
    let builder = request(
        env,
        carrier,
        reqwest::Method::POST,
        "/rates",
        // MyDHL's message reference: 28 to 36 characters.
        &format!("rates-{}", shipment.id),
    )?
    .json(&body);
    let answer = http::send(NAME, builder).await?;
    if !answer.status.is_success() {
        let status = answer.status.as_u16();
        let reason = answer::problem(&answer.json());
        return Err(if http::is_unavailable(answer.status) {
            Error::CarrierUnavailable(format!("DHL Express answered HTTP {status} ({reason})"))
        } else if matches!(status, 401 | 403) {
            Error::CarrierRejected(format!(
                "DHL Express refused the username and password (HTTP {status})"
            ))
        } else {
            Error::CarrierRejected(format!(
                "DHL Express could not rate the shipment (HTTP {status}): {reason}"
            ))
        });
    }
    Ok(rates::offers(&answer.json()))
}

fn refusal(answer: &Answer) -> Error {
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "DHL Express answered HTTP {status} ({}); nothing was booked, try again",
            answer::problem(&answer.json())
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "DHL Express refused the username and password (HTTP {status})"
        ));
    }
    Error::CarrierRejected(format!(
        "DHL Express refused the shipment (HTTP {status}): {}",
        answer::problem(&answer.json())
    ))
}

async fn track(env: &Env, carrier: &CarrierRecord, number: &str) -> Result<Vec<CarrierEvent>> {
    let builder = request(env, carrier, reqwest::Method::GET, "/tracking", number)?.query(&[
        ("pieceTrackingNumber", number),
        ("trackingView", "all-checkpoints"),
        ("levelOfDetail", "shipment"),
    ]);
    let answer = http::send(NAME, builder).await?;
    if answer.status.as_u16() == 404 {
        return Ok(Vec::new());
    }
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    Ok(answer::events(&answer.json()))
}

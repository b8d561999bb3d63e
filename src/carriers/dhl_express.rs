//! `dhl_express`: DHL Express through the MyDHL API (3.1, OpenAPI 3), written from DHL's
//! published specification: shipments with DHL's labels (one per package, PDF or ZPL) and
//! tracking by piece. HTTP Basic authentication; the test and production URLs differ by path.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

use super::{
    Booking, BoxFuture, CarrierAdapter, CarrierEvent, CarrierField, CarrierInfo, CarrierLabel, Env,
    FieldOption, Offer, config_str,
    http::{self, Answer},
};
use crate::{
    error::{Error, Result},
    model::{
        carrier::Carrier,
        shipment::{Party, Shipment},
        status::TrackingStatus,
    },
};

pub struct DhlExpress;

const NAME: &str = "DHL Express";
const TEST: &str = "https://express.api.dhl.com/mydhlapi/test";
const PRODUCTION: &str = "https://express.api.dhl.com/mydhlapi";
/// The interface version the adapter was written for (header `x-version`).
const VERSION: &str = "3.1.0";
const INCOTERMS: [&str; 16] = [
    "EXW", "FCA", "CPT", "CIP", "DPU", "DAP", "DDP", "FAS", "FOB", "CFR", "CIF", "DAF", "DAT",
    "DDU", "DEQ", "DES",
];
/// Countries between which goods move without a customs declaration (the EU's customs union).
const CUSTOMS_UNION: [&str; 27] = [
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
    "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
];

fn option(name: &'static str, value: &'static str) -> FieldOption {
    FieldOption {
        name,
        key: value,
        value,
    }
}

fn field(
    name: &'static str,
    key: &'static str,
    kind: &'static str,
    description: &'static str,
    required: bool,
    options: Vec<FieldOption>,
) -> CarrierField {
    CarrierField {
        name,
        key,
        kind,
        description,
        options,
        required,
    }
}

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
        shipment: &'a Shipment,
        carrier: &'a Carrier,
    ) -> BoxFuture<'a, Result<Booking>> {
        Box::pin(book(env, shipment, carrier))
    }

    fn tracks(&self) -> bool {
        true
    }

    fn track<'a>(
        &'a self,
        env: &'a Env,
        carrier: &'a Carrier,
        number: &'a str,
    ) -> BoxFuture<'a, Result<Vec<CarrierEvent>>> {
        Box::pin(track(env, carrier, number))
    }
}

fn base(env: &Env, carrier: &Carrier) -> String {
    if !env.dhl_express_url.is_empty() {
        return env.dhl_express_url.clone();
    }
    let test = config_str(carrier, "sandbox").is_none_or(|v| v != "false");
    if test { TEST } else { PRODUCTION }.to_string()
}

fn setting(carrier: &Carrier, key: &str) -> Result<String> {
    config_str(carrier, key)
        .map(|v| v.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the DHL Express carrier has no {key}; set it in the carrier's config"
            ))
        })
}

fn request(
    env: &Env,
    carrier: &Carrier,
    method: reqwest::Method,
    path: &str,
    shipment_id: &str,
) -> Result<reqwest::RequestBuilder> {
    Ok(env
        .http
        .request(method, format!("{}{path}", base(env, carrier)))
        .basic_auth(
            setting(carrier, "username")?,
            Some(setting(carrier, "password")?),
        )
        .header("x-version", VERSION)
        .header("Message-Reference", shipment_id)
        .header("Plugin-Name", "Shipbase")
        .header("Plugin-Version", env!("CARGO_PKG_VERSION")))
}

async fn book(env: &Env, shipment: &Shipment, carrier: &Carrier) -> Result<Booking> {
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    let body = shipment_request(shipment, carrier, ::time::OffsetDateTime::now_utc())?;
    let builder = request(
        env,
        carrier,
        reqwest::Method::POST,
        "/shipments",
        &shipment.id,
    )?
    .json(&body);
    let answer = http::send(NAME, builder).await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    booking(&answer.json(), shipment.body.parcels.len().max(1), zpl)
}

/// The MyDHL create-shipment request: parcels as packages numbered 1.., one label per package.
pub(super) fn shipment_request(
    shipment: &Shipment,
    carrier: &Carrier,
    now: ::time::OffsetDateTime,
) -> Result<Value> {
    let party = |kind: &str| shipment.body.parties.iter().find(|p| p.kind == kind);
    let (Some(sender), Some(receiver)) = (party("sender"), party("receiver")) else {
        return Err(Error::InvalidState(
            "a DHL Express booking needs a sender and a receiver".into(),
        ));
    };
    let declarable = sender.country_code != receiver.country_code
        && !(CUSTOMS_UNION.contains(&sender.country_code.as_str())
            && CUSTOMS_UNION.contains(&receiver.country_code.as_str()));
    if declarable {
        return Err(Error::InvalidState(format!(
            "DHL Express shipments from {} to {} need a customs declaration, which Shipbase does not send to DHL yet; ship within the EU customs union or domestically",
            sender.country_code, receiver.country_code
        )));
    }
    let packages: Vec<Value> = shipment
        .body
        .parcels
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut package = json!({"referenceNumber": i + 1, "weight": round3(p.weight_kg().max(0.001))});
            if let Some(d) = p.dimensions {
                package["dimensions"] = json!({"length": d.length.max(0.001), "width": d.width.max(0.001), "height": d.height.max(0.001)});
            }
            package
        })
        .collect();
    let settings = &shipment.body.carrier_settings;
    let description: String = shipment
        .body
        .parcels
        .iter()
        .flat_map(|p| p.order_lines.iter())
        .filter_map(|l| l.description.clone())
        .collect::<Vec<_>>()
        .join(", ");
    let description = cut(description.trim_start(), 70);
    let incoterm = if INCOTERMS.contains(&shipment.term_of_trade.as_str()) {
        shipment.term_of_trade.as_str()
    } else {
        "DAP"
    };
    let template = config_str(carrier, "labelTemplate")
        .map_or_else(|| "ECOM26_84_001".to_string(), |t| t.into_owned());
    Ok(json!({
        "plannedShippingDateAndTime": planned(now),
        "pickup": {"isRequested": false},
        "productCode": settings.product_id,
        "accounts": [{"typeCode": "shipper", "number": setting(carrier, "accountNumber")?}],
        "valueAddedServices": settings.services.iter().map(|s| json!({"serviceCode": s})).collect::<Vec<_>>(),
        "outputImageProperties": {
            "encodingFormat": if config_str(carrier, "labelFormat").as_deref() == Some("zpl") { "zpl" } else { "pdf" },
            "imageOptions": [{"typeCode": "label", "templateName": template}]
        },
        "customerReferences": [{"value": cut(&shipment.reference, 35), "typeCode": "CU"}],
        "customerDetails": {
            "shipperDetails": party_json(sender)?,
            "receiverDetails": party_json(receiver)?
        },
        "content": {
            "packages": packages,
            "isCustomsDeclarable": false,
            "description": if description.is_empty() { "Goods".to_string() } else { description },
            "incoterm": incoterm,
            "unitOfMeasurement": "metric"
        },
        "getAdditionalInformation": [{"typeCode": "linkLabelsByPieces", "isRequested": true}]
    }))
}

/// Today at the moment of booking, as MyDHL writes times: `YYYY-MM-DDTHH:MM:SS GMT+00:00`.
fn planned(now: ::time::OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02} GMT+00:00",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    )
}

fn party_json(p: &Party) -> Result<Value> {
    let phone = p
        .phone
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "DHL Express needs a phone number for the {} ({})",
                p.kind, p.name
            ))
        })?;
    let mut address = json!({
        "postalCode": cut(&p.postal_code, 12), "cityName": cut(&p.city, 45),
        "countryCode": p.country_code, "addressLine1": cut(&p.address1, 45)
    });
    if let Some(a2) = p.address2.as_deref().filter(|a| !a.is_empty()) {
        address["addressLine2"] = cut(a2, 45).into();
    }
    let mut contact = json!({
        "phone": cut(phone, 70),
        "companyName": cut(&p.name, 100),
        "fullName": cut(p.attention.as_deref().filter(|a| !a.is_empty()).unwrap_or(&p.name), 255)
    });
    if let Some(email) = p.email.as_deref().filter(|e| !e.is_empty()) {
        contact["email"] = cut(email, 70).into();
    }
    Ok(json!({"postalAddress": address, "contactInformation": contact}))
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn round3(kg: f64) -> f64 {
    (kg * 1000.0).round() / 1000.0
}

/// Tracking numbers (one per package) and labels from a 201 answer.
pub(super) fn booking(answer: &Value, parcels: usize, zpl: bool) -> Result<Booking> {
    let mut packages: Vec<&Value> = answer["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    packages.sort_by_key(|p| p["referenceNumber"].as_u64().unwrap_or(0));
    let numbers: Vec<String> = packages
        .iter()
        .filter_map(|p| p["trackingNumber"].as_str().map(str::to_string))
        .collect();
    if numbers.len() != parcels {
        return Err(Error::CarrierUnavailable(format!(
            "DHL Express answered {} package numbers for {parcels} parcels; nothing was stored",
            numbers.len()
        )));
    }
    let mut documents: Vec<&Value> = answer["documents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["typeCode"] == "label")
        .collect();
    documents.sort_by_key(|d| d["packageReferenceNumber"].as_u64().unwrap_or(0));
    let labels = documents
        .into_iter()
        .map(|d| {
            let content = STANDARD
                .decode(d["content"].as_str().unwrap_or_default())
                .map_err(|_| {
                    Error::CarrierUnavailable(
                        "DHL Express answered a label that is not base64; nothing was stored"
                            .into(),
                    )
                })?;
            Ok(CarrierLabel {
                format: if zpl { "zpl" } else { "pdf" },
                size: "100X150",
                content,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if labels.is_empty() {
        return Err(Error::CarrierUnavailable(
            "DHL Express answered without labels; nothing was stored".into(),
        ));
    }
    Ok(Booking {
        tracking_url: answer["trackingUrl"].as_str().map(str::to_string),
        tracking_numbers: numbers,
        labels,
    })
}

/// DHL's problem body: its detail and additional details (its status may be in `status` or
/// `code`).
fn problem(body: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for key in ["detail", "message", "title"] {
        if let Some(text) = body[key].as_str().filter(|t| !t.is_empty()) {
            parts.push(text.to_string());
            break;
        }
    }
    parts.extend(
        body["additionalDetails"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_str().map(str::to_string)),
    );
    if parts.is_empty() {
        "no reason given".into()
    } else {
        parts.join("; ")
    }
}

fn refusal(answer: &Answer) -> Error {
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "DHL Express answered HTTP {status} ({}); nothing was booked, try again",
            problem(&answer.json())
        ));
    }
    if matches!(status, 401 | 403) {
        return Error::CarrierRejected(format!(
            "DHL Express refused the username and password (HTTP {status})"
        ));
    }
    Error::CarrierRejected(format!(
        "DHL Express refused the shipment (HTTP {status}): {}",
        problem(&answer.json())
    ))
}

async fn track(env: &Env, carrier: &Carrier, number: &str) -> Result<Vec<CarrierEvent>> {
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
    Ok(events(&answer.json()))
}

/// The shipment's checkpoints, oldest first.
pub(super) fn events(answer: &Value) -> Vec<CarrierEvent> {
    let mut events: Vec<CarrierEvent> = answer["shipments"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["events"].as_array().into_iter().flatten())
        .filter_map(|e| {
            let (date, time) = (e["date"].as_str()?, e["time"].as_str()?);
            let offset = e["GMTOffset"]
                .as_str()
                .filter(|o| !o.is_empty())
                .unwrap_or("+00:00");
            Some(CarrierEvent {
                status: status_of(e["typeCode"].as_str().unwrap_or_default()),
                description: e["description"].as_str().map(str::to_string),
                location: e["serviceArea"][0]["description"]
                    .as_str()
                    .map(str::to_string),
                occurred_at: utc(&format!("{date}T{time}{offset}"))
                    .unwrap_or_else(|| format!("{date}T{time}Z")),
            })
        })
        .collect();
    events.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at));
    events.dedup();
    events
}

fn utc(text: &str) -> Option<String> {
    let at = ::time::OffsetDateTime::parse(text, &::time::format_description::well_known::Rfc3339)
        .ok()?;
    Some(crate::model::time::format(
        at.to_offset(::time::UtcOffset::UTC),
    ))
}

/// DHL's checkpoint codes as Shipbase's tracking statuses (DESIGN §7).
pub(super) fn status_of(code: &str) -> TrackingStatus {
    match code {
        "OK" | "PD" | "DD" => TrackingStatus::Delivered,
        "DUMMY_PU" | "SA" => TrackingStatus::Created,
        "PU" => TrackingStatus::PickedUp,
        "WC" => TrackingStatus::OutForDelivery,
        "CC" | "LX" => TrackingStatus::ReadyForPickup,
        "RT" => TrackingStatus::Returned,
        "BA" | "CA" | "CM" | "MD" | "ND" | "NH" | "OH" | "RD" | "SS" | "ST" | "TD" | "UD"
        | "CD" | "HP" | "MS" | "MC" | "IR" | "DM" | "DS" | "DP" => TrackingStatus::Exception,
        _ => TrackingStatus::InTransit,
    }
}

//! `postnord`: PostNord's Booking API (EDI instruction with labels in one call, PDF or ZPL) and
//! Track and Trace v7, written from PostNord's published specifications (Booking API 3.5 as
//! Swagger 2.0; Track and Trace v7 as OpenAPI 3). The API key goes in the `apikey` query
//! parameter; hosts are atapi2.postnord.com (sandbox) and api2.postnord.com (production).

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

pub struct PostNord;

const NAME: &str = "PostNord";
const SANDBOX: &str = "https://atapi2.postnord.com/rest/shipment";
const PRODUCTION: &str = "https://api2.postnord.com/rest/shipment";

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

impl CarrierAdapter for PostNord {
    fn info(&self) -> CarrierInfo {
        CarrierInfo {
            name: NAME,
            slug: "postnord",
            group: "nordic",
            description: "PostNord (Denmark, Sweden, Norway, Finland): parcels booked through PostNord's Booking API with PostNord's own labels (PDF or ZPL), tracked with Track and Trace.",
            fields: vec![
                field(
                    "API key",
                    "apiKey",
                    "password",
                    "Your PostNord API key (developer.postnord.com)",
                    true,
                    vec![],
                ),
                field(
                    "Customer number",
                    "customerNumber",
                    "string",
                    "Your PostNord customer number (the consignor's party id)",
                    true,
                    vec![],
                ),
                field(
                    "Country of your agreement",
                    "issuerCode",
                    "select",
                    "The PostNord company your agreement is with",
                    true,
                    vec![
                        option("PostNord Denmark", "Z11"),
                        option("PostNord Sweden", "Z12"),
                        option("PostNord Norway", "Z13"),
                        option("PostNord Finland", "Z14"),
                    ],
                ),
                field(
                    "Sandbox",
                    "sandbox",
                    "select",
                    "true: PostNord's test environment (the default); false: production",
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
                field(
                    "Paper size",
                    "paperSize",
                    "select",
                    "Paper of PDF labels (default A4)",
                    false,
                    vec![
                        option("A4", "A4"),
                        option("A5", "A5"),
                        option("A6", "A6"),
                        option("Label printer", "LABEL"),
                    ],
                ),
                field(
                    "Application id",
                    "applicationId",
                    "string",
                    "The application id PostNord gave your integration, if any",
                    false,
                    vec![],
                ),
            ],
            products: vec![
                Offer {
                    id: "17",
                    name: "MyPack Home",
                },
                Offer {
                    id: "18",
                    name: "PostNord Parcel",
                },
                Offer {
                    id: "19",
                    name: "MyPack Collect",
                },
                Offer {
                    id: "30",
                    name: "MyPack Home Small",
                },
            ],
            services: vec![
                Offer {
                    id: "A6",
                    name: "Delivery without proof of delivery",
                },
                Offer {
                    id: "D6",
                    name: "Delivery before 9",
                },
                Offer {
                    id: "D7",
                    name: "Delivery before 12",
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
    if !env.postnord_url.is_empty() {
        return env.postnord_url.clone();
    }
    let sandbox = config_str(carrier, "sandbox").is_none_or(|v| v != "false");
    if sandbox { SANDBOX } else { PRODUCTION }.to_string()
}

fn secret(carrier: &Carrier, key: &str) -> Result<String> {
    config_str(carrier, key)
        .map(|v| v.into_owned())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "the PostNord carrier has no {key}; set it in the carrier's config"
            ))
        })
}

async fn book(env: &Env, shipment: &Shipment, carrier: &Carrier) -> Result<Booking> {
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    let api_key = secret(carrier, "apiKey")?;
    let body = instruction(shipment, carrier)?;
    let url = format!(
        "{}/v3/edi/labels/{}",
        base(env, carrier),
        if zpl { "zpl" } else { "pdf" }
    );
    let paper =
        config_str(carrier, "paperSize").map_or_else(|| "A4".to_string(), |p| p.into_owned());
    let mut query = vec![("apikey", api_key.as_str()), ("locale", "en")];
    if !zpl {
        query.push(("paperSize", paper.as_str()));
    }
    let answer = http::send(NAME, env.http.post(&url).query(&query).json(&body)).await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    booking(
        &answer.json(),
        shipment.body.parcels.len().max(1),
        zpl,
        &paper,
    )
}

/// The EDI instruction for one shipment, its parcels as goods items of one item each; item ids
/// "0" ask PostNord to number the parcels.
pub(super) fn instruction(shipment: &Shipment, carrier: &Carrier) -> Result<Value> {
    let party = |kind: &str| shipment.body.parties.iter().find(|p| p.kind == kind);
    let (Some(sender), Some(receiver)) = (party("sender"), party("receiver")) else {
        return Err(Error::InvalidState(
            "a PostNord booking needs a sender and a receiver".into(),
        ));
    };
    let weights: Vec<f64> = shipment
        .body
        .parcels
        .iter()
        .map(|p| round3(p.weight_kg()))
        .collect();
    let items: Vec<Value> = weights
        .iter()
        .map(|w| {
            json!({"packageTypeCode": "PC", "items": [{
                "itemIdentification": {"itemId": "0"},
                "grossWeight": {"value": w, "unit": "KGM"}}]})
        })
        .collect();
    let mut application = json!({"name": "Shipbase", "version": env!("CARGO_PKG_VERSION")});
    if let Some(id) = config_str(carrier, "applicationId").and_then(|v| v.parse::<i64>().ok()) {
        application["applicationId"] = id.into();
    }
    let settings = &shipment.body.carrier_settings;
    Ok(json!({
        "messageDate": crate::model::time::format(::time::OffsetDateTime::now_utc()),
        "messageFunction": "Instruction",
        "messageId": shipment.id,
        "updateIndicator": "Original",
        "application": application,
        "shipment": [{
            "service": {"basicServiceCode": settings.product_id, "additionalServiceCode": settings.services},
            "numberOfPackages": {"value": items.len()},
            "totalGrossWeight": {"value": round3(weights.iter().sum()), "unit": "KGM"},
            "references": [{"referenceNo": cut(&shipment.reference, 35), "referenceType": "CU"}],
            "parties": {
                "consignor": {
                    "issuerCode": config_str(carrier, "issuerCode").unwrap_or_default(),
                    "partyIdentification": {
                        "partyId": config_str(carrier, "customerNumber").unwrap_or_default(),
                        "partyIdType": "160"
                    },
                    "party": party_json(sender, false)
                },
                "consignee": {"party": party_json(receiver, true)}
            },
            "goodsItem": items
        }]
    }))
}

fn party_json(p: &Party, consignee: bool) -> Value {
    let mut streets = vec![cut(&p.address1, 50)];
    if let Some(a2) = p.address2.as_deref().filter(|a| !a.is_empty()) {
        streets.push(cut(a2, 50));
    }
    let mut name = json!({"name": cut(&p.name, 60)});
    if let Some(att) = p.attention.as_deref().filter(|a| !a.is_empty()) {
        name["careOfName"] = cut(att, 60).into();
    }
    let mut contact = serde_json::Map::new();
    if let Some(email) = p.email.as_deref().filter(|e| !e.is_empty()) {
        contact.insert("emailAddress".into(), cut(email, 70).into());
    }
    if let Some(phone) = p.phone.as_deref().filter(|e| !e.is_empty()) {
        contact.insert("phoneNo".into(), cut(phone, 50).into());
        if consignee {
            // The number PostNord texts the receiver's notifications to.
            contact.insert("smsNo".into(), cut(phone, 50).into());
        }
    }
    json!({
        "nameIdentification": name,
        "address": {"streets": streets, "postalCode": p.postal_code, "city": cut(&p.city, 35), "countryCode": p.country_code},
        "contact": contact
    })
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn round3(kg: f64) -> f64 {
    (kg * 1000.0).round() / 1000.0
}

/// Tracking numbers and labels from a 200 answer (which may still report a failure).
pub(super) fn booking(answer: &Value, parcels: usize, zpl: bool, paper: &str) -> Result<Booking> {
    let booking = &answer["bookingResponse"];
    let info = booking["idInformation"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(failed) = info.iter().find(|i| i["status"] == "FAIL") {
        return Err(Error::CarrierRejected(format!(
            "PostNord refused the booking: {}",
            faults(&failed["errorResponse"])
        )));
    }
    let ids: Vec<&Value> = info
        .iter()
        .flat_map(|i| i["ids"].as_array().into_iter().flatten())
        .collect();
    let numbers: Vec<String> = ids
        .iter()
        .filter(|id| {
            id["idType"]
                .as_str()
                .is_some_and(|t| t.eq_ignore_ascii_case("itemId"))
        })
        .filter_map(|id| id["value"].as_str().map(str::to_string))
        .collect();
    if numbers.len() != parcels {
        return Err(Error::CarrierUnavailable(format!(
            "PostNord answered {} item ids for {parcels} parcels; nothing was stored",
            numbers.len()
        )));
    }
    let tracking_url = info
        .iter()
        .flat_map(|i| i["urls"].as_array().into_iter().flatten())
        .find(|u| u["type"] == "TRACKING")
        .and_then(|u| u["url"].as_str())
        .map(str::to_string);
    let mut labels = Vec::new();
    for printout in answer["labelPrintout"].as_array().into_iter().flatten() {
        if printout["itemIds"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|i| i["status"] == "FAIL")
        {
            return Err(Error::CarrierRejected(format!(
                "PostNord could not make a label: {}",
                faults(&printout["itemIds"][0]["errorResponse"])
            )));
        }
        let data = printout["printout"]["data"].as_str().unwrap_or_default();
        let content = STANDARD.decode(data).map_err(|_| {
            Error::CarrierUnavailable(
                "PostNord answered a label that is not base64; nothing was stored".into(),
            )
        })?;
        labels.push(CarrierLabel {
            format: if zpl { "zpl" } else { "pdf" },
            size: if zpl || paper.eq_ignore_ascii_case("LABEL") || paper.eq_ignore_ascii_case("A6")
            {
                "100X150"
            } else {
                "A4"
            },
            content,
        });
    }
    if labels.is_empty() {
        return Err(Error::CarrierUnavailable(
            "PostNord answered without labels; nothing was stored".into(),
        ));
    }
    Ok(Booking {
        tracking_numbers: numbers,
        tracking_url,
        labels,
    })
}

/// What PostNord's error body says: its message and every fault's explanation.
fn faults(error: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(message) = error["message"].as_str() {
        parts.push(message.to_string());
    }
    for fault in error["compositeFault"]["faults"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let code = fault["faultCode"].as_str().unwrap_or_default();
        let text = fault["explanationText"].as_str().unwrap_or_default();
        let params: Vec<String> = fault["paramValues"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                format!(
                    "{}={}",
                    p["param"].as_str().unwrap_or_default(),
                    p["value"].as_str().unwrap_or_default()
                )
            })
            .collect();
        let mut line = if code.is_empty() {
            text.to_string()
        } else {
            format!("{code} {text}")
        };
        if !params.is_empty() {
            line = format!("{line} ({})", params.join(", "));
        }
        parts.push(line);
    }
    if parts.is_empty() {
        "no reason given".into()
    } else {
        parts.join("; ")
    }
}

fn refusal(answer: &Answer) -> Error {
    let body = answer.json();
    let error = if body["errorResponse"].is_object() {
        &body["errorResponse"]
    } else {
        &body
    };
    let status = answer.status.as_u16();
    if http::is_unavailable(answer.status) {
        return Error::CarrierUnavailable(format!(
            "PostNord answered HTTP {status}; nothing was booked, try again"
        ));
    }
    let what = if matches!(status, 401 | 403) {
        "refused the API key"
    } else {
        "refused the booking"
    };
    Error::CarrierRejected(format!(
        "PostNord {what} (HTTP {status}): {}",
        faults(error)
    ))
}

async fn track(env: &Env, carrier: &Carrier, number: &str) -> Result<Vec<CarrierEvent>> {
    let api_key = secret(carrier, "apiKey")?;
    let url = format!(
        "{}/v7/trackandtrace/id/{}/public",
        base(env, carrier),
        urlencode(number)
    );
    let answer = http::send(
        NAME,
        env.http
            .get(&url)
            .query(&[("apikey", api_key.as_str()), ("locale", "en")]),
    )
    .await?;
    if !answer.status.is_success() {
        return Err(refusal(&answer));
    }
    Ok(events(&answer.json()))
}

fn urlencode(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// Every event of every item of the answer, oldest first.
pub(super) fn events(answer: &Value) -> Vec<CarrierEvent> {
    let mut events: Vec<CarrierEvent> = answer["TrackingInformationResponse"]["shipments"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["items"].as_array().into_iter().flatten())
        .flat_map(|i| i["events"].as_array().into_iter().flatten())
        .filter_map(|e| {
            let at = e["eventTime"].as_str()?;
            let occurred_at = crate::model::time::parse(at)
                .map_or_else(|| at.to_string(), crate::model::time::format);
            let location = &e["location"];
            let place = location["displayName"]
                .as_str()
                .or(location["name"].as_str())
                .or(location["city"].as_str());
            Some(CarrierEvent {
                status: status_of(e["status"].as_str().unwrap_or_default()),
                description: e["eventDescription"].as_str().map(str::to_string),
                location: place.map(|p| match location["countryCode"].as_str() {
                    Some(country) => format!("{p}, {country}"),
                    None => p.to_string(),
                }),
                occurred_at,
            })
        })
        .collect();
    events.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at));
    events.dedup();
    events
}

/// PostNord's item statuses as Shipbase's tracking statuses (DESIGN §7).
pub(super) fn status_of(status: &str) -> TrackingStatus {
    match status {
        "CREATED" | "INFORMED" => TrackingStatus::Created,
        "AVAILABLE_FOR_DELIVERY" => TrackingStatus::OutForDelivery,
        "AVAILABLE_FOR_DELIVERY_PAR_LOC" => TrackingStatus::ReadyForPickup,
        "DELIVERED" => TrackingStatus::Delivered,
        "RETURNED" => TrackingStatus::Returned,
        "DELAYED" | "EXPECTED_DELAY" | "DELIVERY_IMPOSSIBLE" | "DELIVERY_REFUSED" | "STOPPED" => {
            TrackingStatus::Exception
        }
        _ => TrackingStatus::InTransit,
    }
}

//! PostNord's answers: the booking's ids and labels, its faults, and tracking events.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::Value;

use crate::{
    carriers::{Booking, CarrierEvent, CarrierLabel},
    error::{Error, Result},
    model::status::TrackingStatus,
};

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
        return Err(Error::CarrierUncertain(format!(
            "PostNord answered {} item ids for {parcels} parcels; whether it booked cannot be told",
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
            Error::CarrierUncertain(
                "PostNord answered a label that is not base64; whether it booked cannot be told"
                    .into(),
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
        return Err(Error::CarrierUncertain(
            "PostNord answered without labels; whether it booked cannot be told".into(),
        ));
    }
    Ok(Booking {
        tracking_numbers: numbers,
        tracking_url,
        labels,
    })
}

/// What PostNord's error body says: its message and every fault's explanation.
pub(super) fn faults(error: &Value) -> String {
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

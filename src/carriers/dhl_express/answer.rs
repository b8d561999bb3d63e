//! MyDHL's answers: package numbers and labels, problems, and tracking checkpoints.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::Value;

use crate::{
    carriers::{Booking, CarrierEvent, CarrierLabel},
    error::{Error, Result},
    model::status::TrackingStatus,
};

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
        return Err(Error::CarrierUncertain(format!(
            "DHL Express answered {} package numbers for {parcels} parcels; whether it booked cannot be told",
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
                    Error::CarrierUncertain(
                        "DHL Express answered a label that is not base64; whether it booked cannot be told"
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
        return Err(Error::CarrierUncertain(
            "DHL Express answered without labels; whether it booked cannot be told".into(),
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
pub(super) fn problem(body: &Value) -> String {
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

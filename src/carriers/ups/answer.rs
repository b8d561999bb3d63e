//! UPS's answers: package numbers and label pictures, errors, void results and tracking
//! activity mapped to Shipbase's statuses.

use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::Value;

use crate::{
    carriers::{Booking, CarrierEvent, CarrierLabel, label::picture},
    error::{Error, Result},
    model::status::TrackingStatus,
};

/// UPS's public tracking page for a number.
pub(super) fn tracking_url(number: &str) -> String {
    format!("https://www.ups.com/track?tracknum={number}")
}

/// One element or an array of them (UPS answers a single object where older versions did).
fn many(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    }
}

/// Package numbers and labels (one per package, in order) from a 200 answer.
pub(super) fn booking(answer: &Value, parcels: usize, zpl: bool) -> Result<Booking> {
    let results = &answer["ShipmentResponse"]["ShipmentResults"];
    let packages = many(&results["PackageResults"]);
    let uncertain = |what: &str| {
        Error::CarrierUncertain(format!(
            "UPS answered {what}; whether it booked cannot be told"
        ))
    };
    let numbers: Vec<String> = packages
        .iter()
        .filter_map(|p| p["TrackingNumber"].as_str().map(str::to_string))
        .collect();
    if numbers.len() != parcels {
        return Err(uncertain(&format!(
            "{} package numbers for {parcels} parcels",
            numbers.len()
        )));
    }
    let labels = packages
        .iter()
        .map(|p| {
            let image = STANDARD
                .decode(
                    p["ShippingLabel"]["GraphicImage"]
                        .as_str()
                        .unwrap_or_default(),
                )
                .map_err(|_| uncertain("a label that is not base64"))?;
            if image.is_empty() {
                return Err(uncertain("a package without its label"));
            }
            let format = p["ShippingLabel"]["ImageFormat"]["Code"]
                .as_str()
                .unwrap_or(if zpl { "ZPL" } else { "GIF" });
            let (format, content) = match format {
                "ZPL" => ("zpl", image),
                "GIF" => (
                    "pdf",
                    picture::gif_to_pdf(&image)
                        .map_err(|_| uncertain("a label picture that is not a GIF"))?,
                ),
                other => {
                    return Err(uncertain(&format!(
                        "a label in {other}, which was not asked for"
                    )));
                }
            };
            Ok(CarrierLabel {
                format,
                size: "100X150",
                content,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Booking {
        tracking_url: numbers.first().map(|n| tracking_url(n)),
        tracking_numbers: numbers,
        labels,
    })
}

/// UPS's error body `{"response": {"errors": [{"code", "message"}]}}` as one line.
pub(super) fn problem(body: &Value) -> String {
    let parts: Vec<String> = many(&body["response"]["errors"])
        .iter()
        .filter_map(|e| {
            let message = e["message"].as_str().filter(|m| !m.is_empty())?;
            Some(match e["code"].as_str().filter(|c| !c.is_empty()) {
                Some(code) => format!("{message} (UPS error {code})"),
                None => message.to_string(),
            })
        })
        .collect();
    if parts.is_empty() {
        "no reason given".into()
    } else {
        parts.join("; ")
    }
}

/// Whether a void answer says the shipment is voided (or was already).
pub(super) fn voided(body: &Value) -> bool {
    body["VoidShipmentResponse"]["SummaryResult"]["Status"]["Code"] == "1"
}

/// The package's activity, oldest first.
pub(super) fn events(answer: &Value, number: &str) -> Vec<CarrierEvent> {
    let packages: Vec<&Value> = many(&answer["trackResponse"]["shipment"])
        .into_iter()
        .flat_map(|s| many(&s["package"]))
        .collect();
    let package = packages
        .iter()
        .find(|p| p["trackingNumber"] == number)
        .or(packages.first());
    let Some(package) = package else {
        return Vec::new();
    };
    let mut events: Vec<CarrierEvent> = many(&package["activity"])
        .into_iter()
        .filter_map(|a| {
            let at = when(
                a["gmtDate"].as_str().or(a["date"].as_str())?,
                a["gmtTime"].as_str().or(a["time"].as_str())?,
                a["gmtDate"].is_string(),
                a["gmtOffset"].as_str(),
            )?;
            let status = &a["status"];
            let address = &a["location"]["address"];
            let place: Vec<&str> = [address["city"].as_str(), address["countryCode"].as_str()]
                .into_iter()
                .flatten()
                .filter(|t| !t.is_empty())
                .collect();
            Some(CarrierEvent {
                status: status_of(
                    status["type"].as_str().unwrap_or_default(),
                    status["code"].as_str().unwrap_or_default(),
                    status["statusCode"].as_str().unwrap_or_default(),
                ),
                description: status["description"]
                    .as_str()
                    .map(|d| d.trim().to_string())
                    .filter(|d| !d.is_empty()),
                location: (!place.is_empty()).then(|| place.join(", ")),
                occurred_at: at,
            })
        })
        .collect();
    events.sort_by(|a, b| a.occurred_at.cmp(&b.occurred_at));
    events.dedup();
    events
}

/// An activity's time in UTC: its GMT date and time when given, else the local ones with
/// their offset (UTC when none).
fn when(date: &str, time: &str, gmt: bool, offset: Option<&str>) -> Option<String> {
    if date.len() != 8 || time.len() < 4 {
        return None;
    }
    let seconds = time.get(4..6).unwrap_or("00");
    let offset = if gmt {
        "+00:00"
    } else {
        offset.filter(|o| o.len() == 6).unwrap_or("+00:00")
    };
    let text = format!(
        "{}-{}-{}T{}:{}:{seconds}{offset}",
        &date[..4],
        &date[4..6],
        &date[6..8],
        &time[..2],
        &time[2..4]
    );
    let at = ::time::OffsetDateTime::parse(&text, &::time::format_description::well_known::Rfc3339)
        .ok()?;
    Some(crate::model::time::format(
        at.to_offset(::time::UtcOffset::UTC),
    ))
}

/// UPS's activity status (its type letter, code and status code) as Shipbase's.
pub(super) fn status_of(kind: &str, code: &str, status_code: &str) -> TrackingStatus {
    if (kind == "D" && code == "FS") || status_code == "011" || kind == "D" && code != "OT" {
        return TrackingStatus::Delivered;
    }
    if matches!(code, "OT" | "OD" | "RO") || status_code == "021" || kind == "O" {
        return TrackingStatus::OutForDelivery;
    }
    match kind {
        "X" => TrackingStatus::Exception,
        "RS" => TrackingStatus::Returned,
        "P" => TrackingStatus::PickedUp,
        "M" | "MV" => TrackingStatus::Created,
        _ => TrackingStatus::InTransit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn activity_maps_to_statuses_and_utc_times() {
        assert_eq!(status_of("D", "FS", "011"), TrackingStatus::Delivered);
        assert_eq!(status_of("I", "OT", "021"), TrackingStatus::OutForDelivery);
        assert_eq!(status_of("X", "U2", "007"), TrackingStatus::Exception);
        assert_eq!(status_of("M", "MP", "003"), TrackingStatus::Created);
        assert_eq!(status_of("I", "AR", "005"), TrackingStatus::InTransit);
        let answer = json!({"trackResponse": {"shipment": [{"package": [{
        "trackingNumber": "1Z",
        "activity": [
            {"date": "20261124", "time": "095004", "gmtOffset": "-05:00",
             "location": {"address": {"city": "CHARLOTTE", "countryCode": "US"}},
             "status": {"type": "D", "code": "FS", "description": "Delivered ", "statusCode": "011"}},
            {"date": "20261123", "time": "080000",
             "status": {"type": "I", "code": "OT", "description": "Out For Delivery Today", "statusCode": "021"}}
        ]}]}]}});
        let events = events(&answer, "1Z");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].status, TrackingStatus::OutForDelivery);
        assert_eq!(events[1].occurred_at, "2026-11-24T14:50:04.000Z");
        assert_eq!(events[1].location.as_deref(), Some("CHARLOTTE, US"));
        assert_eq!(events[1].description.as_deref(), Some("Delivered"));
    }

    #[test]
    fn errors_read_as_one_line() {
        let body = json!({"response": {"errors": [{"code": "120100", "message": "Missing or invalid shipper number"}]}});
        assert_eq!(
            problem(&body),
            "Missing or invalid shipper number (UPS error 120100)"
        );
        assert_eq!(problem(&Value::Null), "no reason given");
    }
}

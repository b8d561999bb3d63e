//! Pickups: a driver of a carrier coming to a sender address on a day, between two
//! times, to collect booked shipments; booked with the carrier's pickup API, and its
//! confirmation number kept.

use poem_openapi::Object;
use serde::Deserialize;

use crate::model::validate::Violations;

crate::string_enum! {
    /// Where a pickup stands.
    PickupStatus {
        /// Written before the carrier is asked; the carrier is being asked.
        Requesting = "requesting",
        /// The carrier confirmed it (`confirmationNumber`).
        Booked = "booked",
        /// The carrier may have booked it: it did not answer in time, or its answer could not
        /// be used. Call the carrier (the pickup's id was its reference), then cancel it here.
        Unknown = "unknown",
        /// Cancelled (with the carrier, when it was booked there).
        Cancelled = "cancelled",
    }
}

/// The body of a pickup request.
#[derive(Clone, Debug, PartialEq, Deserialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct PickupIn {
    /// The carrier that collects.
    pub carrier_id: String,
    /// The day, YYYY-MM-DD (today or later, at the sender address).
    pub date: String,
    /// HH:MM, local time: from when the parcels are ready.
    pub ready_from: String,
    /// HH:MM, local time: until when the driver can come (the place closes).
    pub ready_until: String,
    /// Where the driver comes.
    pub sender_address_id: String,
    /// Booked shipments of this carrier to collect (up to 100; none: the carrier is told one
    /// parcel).
    #[serde(default)]
    #[oai(default, validator(max_items = 100))]
    pub shipment_ids: Vec<String>,
    /// For the driver (at most 200 characters).
    pub note: Option<String>,
}

/// A pickup.
#[derive(Clone, Debug, PartialEq, Object)]
#[oai(rename_all = "camelCase")]
pub struct Pickup {
    pub id: String,
    pub carrier_id: String,
    pub status: PickupStatus,
    pub date: String,
    pub ready_from: String,
    pub ready_until: String,
    pub sender_address_id: String,
    pub shipment_ids: Vec<String>,
    pub note: Option<String>,
    /// The carrier's number for the pickup, once it confirmed it.
    pub confirmation_number: Option<String>,
    /// Why the outcome is unknown, when it is.
    pub error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    #[oai(skip)]
    pub org_id: String,
}

crate::page_of!(PickupPage, Pickup);

/// A date as `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<jiff::civil::Date> {
    if text.len() != 10 {
        return None;
    }
    text.parse().ok()
}

/// A time of day as `HH:MM`.
pub fn parse_time(text: &str) -> Option<jiff::civil::Time> {
    let (hours, minutes) = text.split_once(':')?;
    if hours.len() != 2 || minutes.len() != 2 {
        return None;
    }
    let (h, m) = (hours.parse::<i8>().ok()?, minutes.parse::<i8>().ok()?);
    jiff::civil::Time::new(h, m, 0, 0).ok()
}

impl PickupIn {
    /// Checks the fields on their own; `today` is the date at the sender address.
    pub fn validate(&self, today: Option<jiff::civil::Date>, errors: &mut Violations) {
        match parse_date(&self.date) {
            None => errors.add("date", "must be a date as YYYY-MM-DD"),
            Some(date) if today.is_some_and(|today| date < today) => errors.add(
                "date",
                format!(
                    "must be today or later (today is {} at the sender address)",
                    today.map(|d| d.to_string()).unwrap_or_default()
                ),
            ),
            Some(_) => {}
        }
        let from = parse_time(&self.ready_from);
        let until = parse_time(&self.ready_until);
        if from.is_none() {
            errors.add("readyFrom", "must be a time as HH:MM");
        }
        if until.is_none() {
            errors.add("readyUntil", "must be a time as HH:MM");
        }
        if let (Some(from), Some(until)) = (from, until)
            && until <= from
        {
            errors.add("readyUntil", "must be later than readyFrom");
        }
        if let Some(note) = &self.note {
            errors.length("note", note, 0, 200);
        }
        let mut seen = std::collections::HashSet::new();
        for (i, id) in self.shipment_ids.iter().enumerate() {
            if !seen.insert(id) {
                errors.add(format!("shipmentIds[{i}]"), "is named twice");
            }
        }
        if self.shipment_ids.len() > 100 {
            errors.add("shipmentIds", "at most 100 shipments");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> PickupIn {
        PickupIn {
            carrier_id: "car_1".into(),
            date: "2031-03-04".into(),
            ready_from: "09:00".into(),
            ready_until: "17:30".into(),
            sender_address_id: "adr_1".into(),
            shipment_ids: vec![],
            note: None,
        }
    }

    fn fields(body: &PickupIn, today: &str) -> Vec<String> {
        let mut errors = Violations::new();
        body.validate(today.parse().ok(), &mut errors);
        errors.into_vec().into_iter().map(|e| e.field).collect()
    }

    #[test]
    fn dates_and_times_are_checked() {
        assert!(fields(&body(), "2031-03-04").is_empty());
        let past = PickupIn {
            date: "2031-03-03".into(),
            ..body()
        };
        assert_eq!(fields(&past, "2031-03-04"), ["date"]);
        let odd = PickupIn {
            date: "2031-02-30".into(),
            ready_from: "9:00".into(),
            ready_until: "24:00".into(),
            ..body()
        };
        assert_eq!(
            fields(&odd, "2031-01-01"),
            ["date", "readyFrom", "readyUntil"]
        );
        let backwards = PickupIn {
            ready_from: "12:00".into(),
            ready_until: "12:00".into(),
            shipment_ids: vec!["shp_1".into(), "shp_1".into()],
            ..body()
        };
        assert_eq!(
            fields(&backwards, "2031-01-01"),
            ["readyUntil", "shipmentIds[1]"]
        );
    }
}

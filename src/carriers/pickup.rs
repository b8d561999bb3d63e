//! What the carriers are asked for a pickup (a driver collecting parcels at a sender address)
//! and for an end-of-day close, and what they answer.

use crate::model::{sender_address::SenderAddress, shipment::ShipmentRecord};

/// A pickup to book: where and when the driver comes, and what is collected.
#[derive(Clone, Debug)]
pub struct PickupRequest<'a> {
    /// The pickup's id: adapters send it wherever the carrier's API has a reference field.
    pub reference: &'a str,
    /// YYYY-MM-DD, the day of the pickup (local to the address).
    pub date: &'a str,
    /// HH:MM, local: from when the parcels are ready.
    pub ready_from: &'a str,
    /// HH:MM, local: until when the driver can come (the place closes).
    pub ready_until: &'a str,
    /// Where the driver comes.
    pub address: &'a SenderAddress,
    /// The booked shipments to collect (may be empty: the carrier is told one parcel).
    pub shipments: &'a [ShipmentRecord],
    /// For the driver.
    pub note: Option<&'a str>,
}

impl PickupRequest<'_> {
    /// The total weight of the parcels to collect, in kilograms (at least 0.1).
    pub fn total_weight_kg(&self) -> f64 {
        let kg: f64 = self
            .shipments
            .iter()
            .flat_map(|s| &s.body.parcels)
            .map(|p| p.weight_kg().max(0.0))
            .sum();
        ((kg * 1000.0).round() / 1000.0).max(0.1)
    }
}

/// What a carrier answers to a pickup booking.
#[derive(Clone, Debug, PartialEq)]
pub struct PickupBooking {
    /// The carrier's number for the pickup (UPS's PRN, DHL's dispatch confirmation number or
    /// order id): what cancelling it or calling the carrier about it takes.
    pub confirmation_number: String,
}

/// What a carrier answers to an end-of-day close of `shipments`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Closed {
    /// The carrier's reference for the close, when it gives one.
    pub reference: Option<String>,
    /// Shipments the carrier did not take into the close, with its words.
    pub refused: Vec<(String, String)>,
}

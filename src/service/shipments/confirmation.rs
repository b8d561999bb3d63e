//! What a booking is about to buy, in one sentence a person can confirm before an agent spends
//! the organization's money with a carrier (DESIGN §12, `agents.confirm_costly`).

use crate::{
    error::{Error, Result},
    model::shipment::ShipmentRecord,
    service::{Actor, Ctx, operations as ops},
    store,
};

/// The question to put to the person using an agent before `operation` (booking shipment
/// `shipment_id`, or booking its return) runs, or `None` when the organization lets agents book
/// without asking. A shipment that is not there is `NotFound` (the call then fails as it would).
pub async fn confirmation(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    operation: &'static ops::Operation,
    shipment_id: &str,
) -> Result<Option<String>> {
    actor.authorize(org_id, operation)?;
    let (org_id, id) = (org_id.to_string(), shipment_id.to_string());
    ctx.db.point(move |db| {
        let org = store::orgs::get(db, &org_id)?.ok_or(Error::NotFound)?;
        if !org.agents.confirm_costly {
            return Ok(None);
        }
        let shipment = super::require(db, &org_id, &id)?;
        let carrier =
            store::carriers::get(db, &org_id, &shipment.body.carrier_settings.carrier_id)?
                .map(|c| c.carrier.fields.name);
        Ok(Some(question(
            operation,
            &Booking::of(&shipment, carrier.as_deref()),
        )))
    })
}

/// What is about to be booked: the shipment's reference, its parcels, where it goes and with
/// which carrier.
struct Booking<'a> {
    reference: &'a str,
    parcels: usize,
    receiver: Option<String>,
    carrier: Option<&'a str>,
}

impl<'a> Booking<'a> {
    fn of(shipment: &'a ShipmentRecord, carrier: Option<&'a str>) -> Booking<'a> {
        let receiver = shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == "receiver")
            .map(|p| format!("{}, {} {}", p.name, p.city, p.country_code));
        Booking {
            reference: &shipment.reference,
            parcels: shipment.body.parcels.len(),
            receiver,
            carrier,
        }
    }
}

fn question(operation: &ops::Operation, booking: &Booking) -> String {
    let parcels = match booking.parcels {
        1 => "1 parcel".to_string(),
        n => format!("{n} parcels"),
    };
    if operation == &ops::CREATE_RETURN_SHIPMENT {
        return format!(
            "Book a return of shipment {} ({parcels}) with the carrier of its return rule? The carrier charges for the return label.",
            booking.reference
        );
    }
    let to = booking
        .receiver
        .as_ref()
        .map(|r| format!(" to {r}"))
        .unwrap_or_default();
    let with = booking
        .carrier
        .map(|c| format!(" with {c}"))
        .unwrap_or_default();
    format!(
        "Book shipment {} ({parcels}{to}){with}? The carrier charges for the labels.",
        booking.reference
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_the_shipment_and_the_carrier() {
        let mut booking = Booking {
            reference: "ORDER-7",
            parcels: 2,
            receiver: Some("Jane Doe, Stockholm SE".into()),
            carrier: Some("PostNord DK"),
        };
        assert_eq!(
            question(&ops::BOOK_SHIPMENT, &booking),
            "Book shipment ORDER-7 (2 parcels to Jane Doe, Stockholm SE) with PostNord DK? The carrier charges for the labels."
        );
        booking.parcels = 1;
        assert_eq!(
            question(&ops::CREATE_RETURN_SHIPMENT, &booking),
            "Book a return of shipment ORDER-7 (1 parcel) with the carrier of its return rule? The carrier charges for the return label."
        );
    }
}

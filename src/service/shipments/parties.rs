//! A shipment's sender and receiver as labels and papers print them.

use crate::{
    carriers::label::{LabelAddress, ServicePoint},
    error::{Error, Result},
    model::shipment::{Party, ShipmentRecord},
};

/// The shipment's sender and receiver as documents print them; `missing` is the error's text
/// when one is missing.
pub(super) fn printed_parties(
    shipment: &ShipmentRecord,
    missing: &str,
) -> Result<(LabelAddress, LabelAddress)> {
    let party = |kind: &str| {
        shipment
            .body
            .parties
            .iter()
            .find(|p| p.kind == kind)
            .map(address)
    };
    match (party("sender"), party("receiver")) {
        (Some(sender), Some(receiver)) => Ok((sender, receiver)),
        _ => Err(Error::InvalidState(missing.into())),
    }
}

/// The service point the shipment goes to: its `servicePointId` and `service_point` party, when
/// it has either.
pub(super) fn printed_service_point(shipment: &ShipmentRecord) -> Option<ServicePoint> {
    let id = shipment
        .body
        .service_point_id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    let address = shipment
        .body
        .parties
        .iter()
        .find(|p| p.kind == "service_point")
        .map(address);
    (id.is_some() || address.is_some()).then_some(ServicePoint { id, address })
}

fn address(p: &Party) -> LabelAddress {
    LabelAddress {
        name: p.name.clone(),
        attention: p.attention.clone(),
        address1: p.address1.clone(),
        address2: p.address2.clone(),
        postal_code: p.postal_code.clone(),
        city: p.city.clone(),
        country_code: p.country_code.clone(),
        phone: p.phone.clone(),
    }
}

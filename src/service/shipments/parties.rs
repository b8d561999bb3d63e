//! A shipment's sender and receiver as labels and papers print them.

use crate::{
    carriers::label::{LabelAddress, ServicePoint, unprintable},
    error::{Error, Result},
    model::{
        shipment::{Party, ShipmentRecord},
        validate::Violations,
    },
};

/// Adds to `errors` (naming each field) a party whose name or address has a character no label
/// font can print (DESIGN §17: never a `?` on a label): Latin, Greek and Cyrillic print;
/// Arabic, Chinese, emoji and control characters do not.
pub(crate) fn printable(parties: &[Party], errors: &mut Violations) {
    for (i, p) in parties.iter().enumerate() {
        let fields = [
            ("name", Some(&p.name)),
            ("attention", p.attention.as_ref()),
            ("address1", Some(&p.address1)),
            ("address2", p.address2.as_ref()),
            ("postalCode", Some(&p.postal_code)),
            ("city", Some(&p.city)),
            ("phone", p.phone.as_ref()),
        ];
        for (field, value) in fields {
            if let Some(c) = value.and_then(|v| unprintable(v)) {
                errors.add(
                    format!("parties[{i}].{field}"),
                    format!(
                        "has {c:?} (U+{:04X}), which labels cannot print: they print Latin, \
                         Greek and Cyrillic letters",
                        u32::from(c)
                    ),
                );
            }
        }
    }
}

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

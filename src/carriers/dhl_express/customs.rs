//! The export declaration a dutiable DHL Express shipment carries (MyDHL `content.exportDeclaration`):
//! one line item per order line with its unit price, quantity in pieces, country of origin,
//! HS code and a share of its parcel's weight; the declared value is the lines' total in their
//! one currency; the invoice is numbered with the shipment's reference.

use serde_json::{Value, json};

use crate::{
    carriers::wire::{cut, declared, one_currency, round3},
    error::{Error, Result},
    model::shipment::ShipmentRecord,
};

/// What the shipment's content declares: the export declaration, the declared value and its
/// currency. Refused (409) when an order line lacks what customs needs.
pub(super) fn declaration(
    shipment: &ShipmentRecord,
    today: ::time::Date,
) -> Result<(Value, f64, String)> {
    const DOCUMENT: &str = "a DHL Express customs declaration";
    let mut items = Vec::new();
    let mut all = Vec::new();
    let mut total = 0.0;
    for parcel in &shipment.body.parcels {
        let units: i64 = parcel.order_lines.iter().map(|l| l.quantity).sum();
        for declared in declared(&parcel.order_lines, DOCUMENT)? {
            let line = declared.line;
            total += declared.price * line.quantity as f64;
            // Order lines carry no weight: each gets its share of the parcel's, by units.
            let share = parcel.weight_kg() * line.quantity as f64 / units.max(1) as f64;
            let mut item = json!({
                "number": items.len() + 1,
                "description": cut(&declared.description, 512),
                "price": round3(declared.price),
                "quantity": {"value": line.quantity, "unitOfMeasurement": "PCS"},
                "manufacturerCountry": declared.origin,
                "weight": {"grossValue": round3(share.max(0.001))},
                "exportReasonType": "commercial_purpose_or_sale"
            });
            if let Some(code) = line
                .tarrif_number
                .as_deref()
                .filter(|c| (2..=18).contains(&c.len()))
            {
                item["commodityCodes"] = json!([{"typeCode": "outbound", "value": code}]);
            }
            items.push(item);
            all.push(declared);
        }
    }
    if items.is_empty() {
        return Err(Error::InvalidState(
            "a DHL Express customs declaration lists the parcels' order lines, and this shipment has none".into(),
        ));
    }
    if items.len() > 999 {
        return Err(Error::InvalidState(
            "a DHL Express customs declaration holds at most 999 order lines".into(),
        ));
    }
    let currency = one_currency(&all, DOCUMENT)?;
    let declaration = json!({
        "lineItems": items,
        "invoice": {"number": cut(&shipment.reference, 35), "date": today.to_string()},
        "exportReasonType": "commercial_purpose_or_sale",
        "shipmentType": "commercial"
    });
    Ok((declaration, round3(total), currency))
}

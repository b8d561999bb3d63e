//! The export declaration a dutiable DHL Express shipment carries (MyDHL `content.exportDeclaration`):
//! one line item per order line with its unit price, quantity in pieces, country of origin,
//! HS code and a share of its parcel's weight; the declared value is the lines' total in their
//! one currency; the invoice is numbered with the shipment's reference.

use serde_json::{Value, json};

use crate::{
    carriers::wire::{cut, round3},
    error::{Error, Result},
    model::shipment::ShipmentRecord,
};

/// What the shipment's content declares: the export declaration, the declared value and its
/// currency. Refused (409) when an order line lacks what customs needs.
pub(super) fn declaration(
    shipment: &ShipmentRecord,
    today: ::time::Date,
) -> Result<(Value, f64, String)> {
    let missing = |what: &str, sku: &str| {
        Error::InvalidState(format!(
            "a DHL Express customs declaration needs {what} on every order line; {sku} has none"
        ))
    };
    let mut items = Vec::new();
    let mut currencies: Vec<String> = Vec::new();
    let mut total = 0.0;
    for parcel in &shipment.body.parcels {
        let units: i64 = parcel.order_lines.iter().map(|l| l.quantity).sum();
        for line in &parcel.order_lines {
            let price = line
                .unit_price
                .ok_or_else(|| missing("a unitPrice", &line.sku))?;
            let currency = line
                .currency
                .clone()
                .filter(|c| c.len() == 3)
                .ok_or_else(|| missing("a currency", &line.sku))?;
            let origin = line
                .country_of_origin
                .clone()
                .filter(|c| c.len() == 2)
                .ok_or_else(|| missing("a countryOfOrigin", &line.sku))?;
            if !currencies.contains(&currency) {
                currencies.push(currency);
            }
            total += price * line.quantity as f64;
            // Order lines carry no weight: each gets its share of the parcel's, by units.
            let share = parcel.weight_kg() * line.quantity as f64 / units.max(1) as f64;
            let description = line.description.clone().filter(|d| !d.trim().is_empty());
            let mut item = json!({
                "number": items.len() + 1,
                "description": cut(description.as_deref().unwrap_or(&line.sku).trim(), 512),
                "price": round3(price),
                "quantity": {"value": line.quantity, "unitOfMeasurement": "PCS"},
                "manufacturerCountry": origin,
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
    let [currency] = currencies.as_slice() else {
        return Err(Error::InvalidState(format!(
            "a DHL Express customs declaration is in one currency; the order lines use {}",
            currencies.join(", ")
        )));
    };
    let declaration = json!({
        "lineItems": items,
        "invoice": {"number": cut(&shipment.reference, 35), "date": today.to_string()},
        "exportReasonType": "commercial_purpose_or_sale",
        "shipmentType": "commercial"
    });
    Ok((declaration, round3(total), currency.clone()))
}

//! The requests of DHL Parcel Germany's Shipping API v2 (`ShipmentOrderRequest`, one shipment
//! per parcel: DHL labels each parcel as a shipment of its own) and Returns API (`ReturnOrder`),
//! written from DHL's published descriptions: countries in ISO alpha-3, names and streets 50
//! characters, weights in kilograms, sizes in whole centimetres, customs data for goods that
//! leave the EU's customs union.

use serde_json::{Value, json};

use crate::{
    carriers::wire::{self, cut, declared, one_currency, round3},
    error::{Error, Result},
    model::{
        country,
        shipment::{Parcel, Party, ShipmentRecord},
    },
};

/// The profile every business customer account has.
pub(super) const PROFILE: &str = "STANDARD_GRUPPENPROFIL";

/// The products and the two digits of the billing number each is booked under.
pub(super) const PRODUCTS: [(&str, &str, &str); 6] = [
    ("V01PAK", "DHL Paket", "01"),
    ("V62KP", "DHL Kleinpaket", "62"),
    ("V62WP", "DHL Warenpost", "62"),
    ("V53WPAK", "DHL Paket International", "53"),
    ("V54EPAK", "DHL Europaket", "54"),
    ("V66WPI", "DHL Warenpost International", "66"),
];

/// A country's ISO alpha-3 code (DHL's `Country`).
pub(super) fn alpha3(code: &str) -> Result<&'static str> {
    isocountry::CountryCode::for_alpha2_caseless(code)
        .map(|c| c.alpha3())
        .map_err(|_| Error::InvalidState(format!("{code} is not a country DHL can ship to")))
}

/// What the parcels of `shipment` are booked as: one DHL shipment per parcel.
pub(super) fn order(shipment: &ShipmentRecord, billing: &str, today: &str) -> Result<Value> {
    let (sender, receiver) = wire::sender_and_receiver(
        shipment,
        "a DHL Parcel Germany booking needs a sender and a receiver",
    )?;
    let declarable = country::crosses_customs_border(&sender.country_code, &receiver.country_code);
    let product = shipment.body.carrier_settings.product_id.as_str();
    let services = services(&shipment.body.carrier_settings.services, declarable);
    let mut shipments = Vec::new();
    for parcel in &shipment.body.parcels {
        let mut one = json!({
            "product": product,
            "billingNumber": billing,
            "shipDate": today,
            "shipper": address(sender, false)?,
            "consignee": address(receiver, receiver.country_code != "DE")?,
            "details": details(parcel),
        });
        let reference = shipment.reference.trim();
        if (8..=35).contains(&reference.chars().count()) {
            one["refNo"] = json!(reference);
        }
        if services.as_object().is_some_and(|s| !s.is_empty()) {
            one["services"] = services.clone();
        }
        if declarable {
            one["customs"] = customs(shipment, parcel)?;
        }
        shipments.push(one);
    }
    if shipments.is_empty() || shipments.len() > 30 {
        return Err(Error::InvalidState(
            "a DHL Parcel Germany booking holds 1 to 30 parcels".into(),
        ));
    }
    Ok(json!({"profile": PROFILE, "shipments": shipments}))
}

/// A party as DHL's `ContactAddress` (the shipper's has no phone field).
fn address(party: &Party, phone: bool) -> Result<Value> {
    let mut block = json!({
        "name1": cut(party.name.trim(), 50),
        "addressStreet": cut(party.address1.trim(), 50),
        "postalCode": cut(party.postal_code.trim(), 10),
        "city": cut(party.city.trim(), 40),
        "country": alpha3(&party.country_code)?,
    });
    if let Some(attention) = party.attention.as_deref().filter(|a| !a.trim().is_empty()) {
        block["name2"] = json!(cut(attention.trim(), 50));
    }
    if let Some(more) = party.address2.as_deref().filter(|a| !a.trim().is_empty()) {
        block["name3"] = json!(cut(more.trim(), 50));
    }
    if let Some(email) = party
        .email
        .as_deref()
        .filter(|e| (3..=80).contains(&e.len()))
    {
        block["email"] = json!(email);
    }
    if phone && let Some(number) = party.phone.as_deref().filter(|p| !p.trim().is_empty()) {
        block["phone"] = json!(cut(number.trim(), 20));
    }
    Ok(block)
}

fn details(parcel: &Parcel) -> Value {
    let mut details =
        json!({"weight": {"uom": "kg", "value": round3(parcel.weight_kg().max(0.001))}});
    if let Some(d) = parcel.dimensions {
        let cm = |v: f64| v.ceil().max(1.0) as i64;
        details["dim"] = json!({"uom": "cm", "length": cm(d.length), "width": cm(d.width), "height": cm(d.height)});
    }
    details
}

/// The shipment's services as DHL's (`VAS`); parcels abroad come back when undeliverable.
fn services(services: &[String], abroad: bool) -> Value {
    let mut vas = json!({});
    for service in services {
        match service.as_str() {
            "named_person_only" => vas["namedPersonOnly"] = json!(true),
            "signed_for_by_recipient" => vas["signedForByRecipient"] = json!(true),
            "no_neighbour_delivery" => vas["noNeighbourDelivery"] = json!(true),
            "premium" => vas["premium"] = json!(true),
            "bulky_goods" => vas["bulkyGoods"] = json!(true),
            "go_green_plus" => vas["goGreenPlus"] = json!(true),
            "visual_check_of_age_16" => vas["visualCheckOfAge"] = json!("A16"),
            "visual_check_of_age_18" => vas["visualCheckOfAge"] = json!("A18"),
            _ => {}
        }
    }
    if abroad {
        vas["endorsement"] = json!("RETURN");
    }
    vas
}

/// The customs details of one parcel: its order lines with unit values and weights.
fn customs(shipment: &ShipmentRecord, parcel: &Parcel) -> Result<Value> {
    const DOCUMENT: &str = "DHL Parcel Germany's customs details";
    let units: i64 = parcel.order_lines.iter().map(|l| l.quantity.max(1)).sum();
    let lines = declared(&parcel.order_lines, DOCUMENT)?;
    let mut items = Vec::new();
    for declared in &lines {
        let line = declared.line;
        // Order lines carry no weight: each unit gets its share of the parcel's.
        let unit_kg = parcel.weight_kg() / units.max(1) as f64;
        let mut item = json!({
            "itemDescription": cut(&declared.description, 256),
            "packagedQuantity": line.quantity.max(1),
            "itemValue": {"currency": declared.currency, "value": (declared.price * 100.0).round() / 100.0},
            "itemWeight": {"uom": "kg", "value": round3(unit_kg.max(0.001))},
            "countryOfOrigin": alpha3(&declared.origin)?,
        });
        let hs: String = line
            .tarrif_number
            .as_deref()
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        if (6..=11).contains(&hs.len()) {
            item["hsCode"] = json!(hs);
        }
        items.push(item);
    }
    if items.is_empty() || items.len() > 99 {
        return Err(Error::InvalidState(
            "DHL Parcel Germany's customs details list each parcel's order lines (1 to 99)".into(),
        ));
    }
    let currency = one_currency(&lines, DOCUMENT)?;
    Ok(json!({
        "exportType": "COMMERCIAL_GOODS",
        "invoiceNo": cut(&shipment.reference, 35),
        "postalCharges": {"currency": currency, "value": 0},
        "items": items,
    }))
}

/// The return of one parcel (`ReturnOrder`): the customer sends it to the receiver DHL knows the
/// account's returns address by.
pub(super) fn return_order(
    shipment: &ShipmentRecord,
    parcel: &Parcel,
    receiver_id: &str,
) -> Result<Value> {
    let Some(customer) = shipment.body.parties.iter().find(|p| p.kind == "sender") else {
        return Err(Error::InvalidState(
            "a DHL Parcel Germany return needs the customer as its sender".into(),
        ));
    };
    let (street, house) = street_and_house(&customer.address1).ok_or_else(|| {
        Error::InvalidState(format!(
            "DHL Parcel Germany's returns need a house number in the customer's street ({:?})",
            customer.address1
        ))
    })?;
    let mut shipper = json!({
        "name1": cut(customer.name.trim(), 50),
        "addressStreet": cut(&street, 50),
        "addressHouse": cut(&house, 10),
        "postalCode": cut(customer.postal_code.trim(), 10),
        "city": cut(customer.city.trim(), 40),
    });
    if let Some(email) = customer
        .email
        .as_deref()
        .filter(|e| (3..=70).contains(&e.len()))
    {
        shipper["email"] = json!(email);
    }
    if let Some(phone) = customer.phone.as_deref().filter(|p| !p.trim().is_empty()) {
        shipper["phone"] = json!(cut(phone.trim(), 20));
    }
    Ok(json!({
        "receiverId": receiver_id,
        "customerReference": cut(&shipment.reference, 50),
        "shipmentReference": cut(&shipment.id, 50),
        "shipper": shipper,
        "itemWeight": {"uom": "kg", "value": round3(parcel.weight_kg().max(0.001))},
    }))
}

/// A street line split into the street and its house number (the last word that starts with a
/// digit, with what follows it: `Kurt-Schumacher-Str. 20 a` → `Kurt-Schumacher-Str.`, `20 a`).
pub(super) fn street_and_house(line: &str) -> Option<(String, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| w.starts_with(|c: char| c.is_ascii_digit()))?;
    if at == 0 {
        return None;
    }
    Some((words[..at].join(" "), words[at..].join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streets_split_from_their_house_numbers_and_countries_take_three_letters() {
        assert_eq!(
            street_and_house("Kurt-Schumacher-Str. 20 a"),
            Some(("Kurt-Schumacher-Str.".into(), "20 a".into()))
        );
        assert_eq!(
            street_and_house("Main Street 1"),
            Some(("Main Street".into(), "1".into()))
        );
        assert_eq!(street_and_house("Hauptstraße"), None);
        assert_eq!(street_and_house("12 High Street"), None);
        assert_eq!(alpha3("de").ok(), Some("DEU"));
        assert_eq!(alpha3("DK").ok(), Some("DNK"));
        assert!(alpha3("XX").is_err());
    }
}

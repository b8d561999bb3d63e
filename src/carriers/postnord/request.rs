//! The EDI instruction PostNord's Booking API takes.

use serde_json::{Value, json};

use crate::{
    carriers::{
        config_str,
        wire::{self, cut, name_and_streets, round3},
    },
    error::Result,
    model::{
        carrier::CarrierRecord,
        shipment::{Party, ShipmentRecord},
    },
};

/// The EDI instruction for one shipment, its parcels as goods items of one item each; item ids
/// "0" ask PostNord to number the parcels.
/// `reference` identifies the request (its `messageId`).
pub(super) fn instruction(
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    reference: &str,
    now: ::time::OffsetDateTime,
) -> Result<Value> {
    let (sender, receiver) =
        wire::sender_and_receiver(shipment, "a PostNord booking needs a sender and a receiver")?;
    let weights: Vec<f64> = shipment
        .body
        .parcels
        .iter()
        .map(|p| round3(p.weight_kg()))
        .collect();
    let items: Vec<Value> = weights
        .iter()
        .map(|w| {
            json!({"packageTypeCode": "PC", "items": [{
                "itemIdentification": {"itemId": "0"},
                "grossWeight": {"value": w, "unit": "KGM"}}]})
        })
        .collect();
    let mut application = json!({"name": "Shipbase", "version": env!("CARGO_PKG_VERSION")});
    if let Some(id) = config_str(carrier, "applicationId").and_then(|v| v.parse::<i64>().ok()) {
        application["applicationId"] = id.into();
    }
    let settings = &shipment.body.carrier_settings;
    Ok(json!({
        "messageDate": crate::model::time::format(now),
        "messageFunction": "Instruction",
        "messageId": reference,
        "updateIndicator": "Original",
        "application": application,
        "shipment": [{
            "service": {"basicServiceCode": settings.product_id, "additionalServiceCode": settings.services},
            "numberOfPackages": {"value": items.len()},
            "totalGrossWeight": {"value": round3(weights.iter().sum()), "unit": "KGM"},
            "references": [{"referenceNo": cut(&shipment.reference, 35), "referenceType": "CU"}],
            "parties": {
                "consignor": {
                    "issuerCode": config_str(carrier, "issuerCode").unwrap_or_default(),
                    "partyIdentification": {
                        "partyId": config_str(carrier, "customerNumber").unwrap_or_default(),
                        "partyIdType": "160"
                    },
                    "party": party_json(sender, false)
                },
                "consignee": {"party": party_json(receiver, true)}
            },
            "goodsItem": items
        }]
    }))
}

fn party_json(p: &Party, consignee: bool) -> Value {
    // Names of 60 characters, three street lines of 50 (what does not fit spills over).
    let (name, streets) = name_and_streets(
        &p.name,
        60,
        &[&p.address1, p.address2.as_deref().unwrap_or_default()],
        50,
        3,
    );
    let mut name = json!({"name": name});
    if let Some(att) = p.attention.as_deref().filter(|a| !a.is_empty()) {
        name["careOfName"] = cut(att, 60).into();
    }
    let mut contact = serde_json::Map::new();
    if let Some(email) = p.email.as_deref().filter(|e| !e.is_empty()) {
        contact.insert("emailAddress".into(), cut(email, 70).into());
    }
    if let Some(phone) = p.phone.as_deref().filter(|e| !e.is_empty()) {
        contact.insert("phoneNo".into(), cut(phone, 50).into());
        if consignee {
            // The number PostNord texts the receiver's notifications to.
            contact.insert("smsNo".into(), cut(phone, 50).into());
        }
    }
    json!({
        "nameIdentification": name,
        "address": {"streets": streets, "postalCode": p.postal_code, "city": cut(&p.city, 35), "countryCode": p.country_code},
        "contact": contact
    })
}

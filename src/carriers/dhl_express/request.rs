//! The create-shipment request of the MyDHL API.

use serde_json::{Value, json};

use super::setting;
use crate::{
    carriers::{
        config_str,
        wire::{self, cut, name_and_streets, round3},
    },
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        country,
        shipment::{Party, ShipmentRecord},
        timezone,
    },
};

const INCOTERMS: [&str; 16] = [
    "EXW", "FCA", "CPT", "CIP", "DPU", "DAP", "DDP", "FAS", "FOB", "CFR", "CIF", "DAF", "DAT",
    "DDU", "DEQ", "DES",
];

/// The MyDHL create-shipment request: parcels as packages numbered 1.., one label per package.
pub(super) fn shipment_request(
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    now: ::time::OffsetDateTime,
) -> Result<Value> {
    let (sender, receiver) = wire::sender_and_receiver(
        shipment,
        "a DHL Express booking needs a sender and a receiver",
    )?;
    let declarable = country::crosses_customs_border(&sender.country_code, &receiver.country_code);
    // Times as the origin's clock shows them (MyDHL: "the shipper's local time").
    let local = timezone::local(
        now,
        timezone::zone_of(&sender.country_code, &sender.postal_code),
    );
    let declared = if declarable {
        Some(super::customs::declaration(shipment, local_date(&local))?)
    } else {
        None
    };
    let packages: Vec<Value> = shipment
        .body
        .parcels
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut package = json!({"referenceNumber": i + 1, "weight": round3(p.weight_kg().max(0.001))});
            if let Some(d) = p.dimensions {
                package["dimensions"] = json!({"length": d.length.max(0.001), "width": d.width.max(0.001), "height": d.height.max(0.001)});
            }
            package
        })
        .collect();
    let settings = &shipment.body.carrier_settings;
    let description: String = shipment
        .body
        .parcels
        .iter()
        .flat_map(|p| p.order_lines.iter())
        .filter_map(|l| l.description.clone())
        .collect::<Vec<_>>()
        .join(", ");
    let description = cut(description.trim_start(), 70);
    let incoterm = if INCOTERMS.contains(&shipment.term_of_trade.as_str()) {
        shipment.term_of_trade.as_str()
    } else {
        "DAP"
    };
    let template = config_str(carrier, "labelTemplate")
        .map_or_else(|| "ECOM26_84_001".to_string(), |t| t.into_owned());
    let mut request = json!({
        "plannedShippingDateAndTime": planned(&local),
        "pickup": {"isRequested": false},
        "productCode": settings.product_id,
        "accounts": [{"typeCode": "shipper", "number": setting(carrier, "accountNumber")?}],
        "valueAddedServices": settings.services.iter().map(|s| json!({"serviceCode": s})).collect::<Vec<_>>(),
        "outputImageProperties": {
            "encodingFormat": if config_str(carrier, "labelFormat").as_deref() == Some("zpl") { "zpl" } else { "pdf" },
            "imageOptions": [{"typeCode": "label", "templateName": template}]
        },
        "customerReferences": [{"value": cut(&shipment.reference, 35), "typeCode": "CU"}],
        "customerDetails": {
            "shipperDetails": party_json(sender)?,
            "receiverDetails": party_json(receiver)?
        },
        "content": {
            "packages": packages,
            "isCustomsDeclarable": false,
            "description": if description.is_empty() { "Goods".to_string() } else { description },
            "incoterm": incoterm,
            "unitOfMeasurement": "metric"
        },
        "getAdditionalInformation": [{"typeCode": "linkLabelsByPieces", "isRequested": true}]
    });
    if let Some((declaration, value, currency)) = declared {
        let content = &mut request["content"];
        content["isCustomsDeclarable"] = true.into();
        content["declaredValue"] = value.into();
        content["declaredValueCurrency"] = currency.into();
        content["exportDeclaration"] = declaration;
    }
    Ok(request)
}

/// The moment of booking as MyDHL writes times, in the shipper's local time with its offset:
/// `YYYY-MM-DDTHH:MM:SS GMT+01:00`.
pub(super) fn planned(local: &jiff::ZonedDateTime) -> String {
    local.strftime("%Y-%m-%dT%H:%M:%S GMT%:z").to_string()
}

/// The local date as the customs papers write it.
fn local_date(local: &jiff::ZonedDateTime) -> ::time::Date {
    let date = local.date();
    ::time::Month::try_from(u8::try_from(date.month()).unwrap_or(1))
        .ok()
        .and_then(|month| {
            ::time::Date::from_calendar_date(
                i32::from(date.year()),
                month,
                u8::try_from(date.day()).unwrap_or(1),
            )
            .ok()
        })
        .unwrap_or(::time::Date::MIN)
}

fn party_json(p: &Party) -> Result<Value> {
    let phone = p
        .phone
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| {
            Error::InvalidState(format!(
                "DHL Express needs a phone number for the {} ({})",
                p.kind, p.name
            ))
        })?;
    // Company names of 100 characters, three address lines of 45 (what does not fit spills
    // over).
    let (company, lines) = name_and_streets(
        &p.name,
        100,
        &[&p.address1, p.address2.as_deref().unwrap_or_default()],
        45,
        3,
    );
    let mut address = json!({
        "postalCode": cut(&p.postal_code, 12), "cityName": cut(&p.city, 45),
        "countryCode": p.country_code
    });
    for (i, line) in lines.into_iter().enumerate() {
        address[format!("addressLine{}", i + 1)] = line.into();
    }
    let mut contact = json!({
        "phone": cut(phone, 70),
        "companyName": company,
        "fullName": cut(p.attention.as_deref().filter(|a| !a.is_empty()).unwrap_or(&p.name), 255)
    });
    if let Some(email) = p.email.as_deref().filter(|e| !e.is_empty()) {
        contact["email"] = cut(email, 70).into();
    }
    Ok(json!({"postalAddress": address, "contactInformation": contact}))
}

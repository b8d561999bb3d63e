//! The create-shipment request of the MyDHL API.

use serde_json::{Value, json};

use super::setting;
use crate::{
    carriers::{
        config_str,
        wire::{cut, round3},
    },
    error::{Error, Result},
    model::{
        carrier::Carrier,
        shipment::{Party, Shipment},
    },
};

const INCOTERMS: [&str; 16] = [
    "EXW", "FCA", "CPT", "CIP", "DPU", "DAP", "DDP", "FAS", "FOB", "CFR", "CIF", "DAF", "DAT",
    "DDU", "DEQ", "DES",
];
/// Countries between which goods move without a customs declaration (the EU's customs union).
const CUSTOMS_UNION: [&str; 27] = [
    "AT", "BE", "BG", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE", "IT",
    "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK",
];

/// The MyDHL create-shipment request: parcels as packages numbered 1.., one label per package.
pub(super) fn shipment_request(
    shipment: &Shipment,
    carrier: &Carrier,
    now: ::time::OffsetDateTime,
) -> Result<Value> {
    let party = |kind: &str| shipment.body.parties.iter().find(|p| p.kind == kind);
    let (Some(sender), Some(receiver)) = (party("sender"), party("receiver")) else {
        return Err(Error::InvalidState(
            "a DHL Express booking needs a sender and a receiver".into(),
        ));
    };
    let declarable = sender.country_code != receiver.country_code
        && !(CUSTOMS_UNION.contains(&sender.country_code.as_str())
            && CUSTOMS_UNION.contains(&receiver.country_code.as_str()));
    let declared = if declarable {
        Some(super::customs::declaration(shipment, now.date())?)
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
        "plannedShippingDateAndTime": planned(now),
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

/// Today at the moment of booking, as MyDHL writes times: `YYYY-MM-DDTHH:MM:SS GMT+00:00`.
fn planned(now: ::time::OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02} GMT+00:00",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    )
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
    let mut address = json!({
        "postalCode": cut(&p.postal_code, 12), "cityName": cut(&p.city, 45),
        "countryCode": p.country_code, "addressLine1": cut(&p.address1, 45)
    });
    if let Some(a2) = p.address2.as_deref().filter(|a| !a.is_empty()) {
        address["addressLine2"] = cut(a2, 45).into();
    }
    let mut contact = json!({
        "phone": cut(phone, 70),
        "companyName": cut(&p.name, 100),
        "fullName": cut(p.attention.as_deref().filter(|a| !a.is_empty()).unwrap_or(&p.name), 255)
    });
    if let Some(email) = p.email.as_deref().filter(|e| !e.is_empty()) {
        contact["email"] = cut(email, 70).into();
    }
    Ok(json!({"postalAddress": address, "contactInformation": contact}))
}

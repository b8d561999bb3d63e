//! The UPS Shipping API's `ShipmentRequest` (version v2409), written from UPS's published
//! description (Shipping.yaml): every number and code is a string, lists are arrays (packages,
//! charges, address lines, forms, products), names 35 characters, cities 30. A return
//! (an inbound shipment) is a Print Return Label (`ReturnService` 9) from the customer back to
//! the account holder; goods that cross a customs border carry the commercial invoice form.

use serde_json::{Value, json};

use crate::{
    carriers::{
        config_str,
        wire::{self, cut, declared, name_and_streets, one_currency},
    },
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        country, region,
        shipment::{Party, ShipmentRecord},
    },
};

/// UPS's Print Return Label service.
const PRINT_RETURN_LABEL: &str = "9";
/// Customer supplied package.
pub(super) const OWN_PACKAGING: &str = "02";

/// The request booking `shipment`; `account` is the UPS account (shipper number), `reference`
/// the booking attempt (echoed as the transaction reference), `today` the shipper's date.
pub(super) fn shipment_request(
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    account: &str,
    reference: &str,
    today: jiff::civil::Date,
) -> Result<Value> {
    let (sender, receiver) =
        wire::sender_and_receiver(shipment, "a UPS booking needs a sender and a receiver")?;
    let is_return = shipment.kind == "inbound";
    let international = sender.country_code != receiver.country_code;
    let declarable = country::crosses_customs_border(&sender.country_code, &receiver.country_code);
    if international {
        for (who, p) in [("sender", sender), ("receiver", receiver)] {
            if p.phone.as_deref().is_none_or(|n| digits(n).is_empty()) {
                return Err(Error::InvalidState(format!(
                    "UPS needs the {who}'s phone number for a shipment to another country"
                )));
            }
        }
    }
    // The account holder is the shipper: the sender of an outbound shipment, the receiver
    // (the shop) of a return.
    let holder = if is_return { receiver } else { sender };
    let mut shipper = address_block(holder, international);
    shipper["ShipperNumber"] = json!(account);
    let description = goods(shipment);
    let domestic_us = !international && matches!(sender.country_code.as_str(), "US" | "PR");
    let settings = &shipment.body.carrier_settings;
    let package_confirmation = (domestic_us && !is_return)
        .then(|| package_signature(&settings.services))
        .flatten();
    let mut packages = Vec::new();
    for parcel in &shipment.body.parcels {
        let kg = parcel.weight_kg().max(0.1);
        let mut package = json!({
            "Packaging": {"Code": OWN_PACKAGING},
            "PackageWeight": {"UnitOfMeasurement": {"Code": "KGS"}, "Weight": weight(kg)},
        });
        if let Some(d) = parcel.dimensions {
            package["Dimensions"] = json!({
                "UnitOfMeasurement": {"Code": "CM"},
                "Length": centimetres(d.length),
                "Width": centimetres(d.width),
                "Height": centimetres(d.height),
            });
        }
        if is_return {
            // A return's packages say what is in them.
            package["Description"] = json!(cut(&description, 35));
        }
        if domestic_us {
            package["ReferenceNumber"] = json!([{"Value": cut(&shipment.reference, 35)}]);
        }
        if let Some(kind) = package_confirmation {
            package["PackageServiceOptions"] = json!({"DeliveryConfirmation": {"DCISType": kind}});
        }
        packages.push(package);
    }
    if packages.is_empty() {
        return Err(Error::InvalidState(
            "a UPS booking needs at least one parcel".into(),
        ));
    }
    let mut body = json!({
        "Shipper": shipper,
        "ShipTo": address_block(receiver, international),
        "ShipFrom": address_block(sender, international),
        "PaymentInformation": {
            "ShipmentCharge": [{"Type": "01", "BillShipper": {"AccountNumber": account}}]
        },
        "Service": {"Code": cut(&settings.product_id, 2)},
        "Package": packages,
    });
    if !domestic_us {
        body["ReferenceNumber"] = json!([{"Value": cut(&shipment.reference, 35)}]);
    }
    if international || is_return {
        body["Description"] = json!(cut(&description, 50));
    }
    if is_return {
        body["ReturnService"] = json!({"Code": PRINT_RETURN_LABEL});
    }
    let mut options = services(&settings.services, domestic_us);
    if declarable && !is_return {
        options["InternationalForms"] = invoice(shipment, receiver, today)?;
    }
    if options.as_object().is_some_and(|o| !o.is_empty()) {
        body["ShipmentServiceOptions"] = options;
    }
    let zpl = config_str(carrier, "labelFormat").as_deref() == Some("zpl");
    Ok(json!({
        "ShipmentRequest": {
            "Request": {
                "RequestOption": "nonvalidate",
                "TransactionReference": {"CustomerContext": reference}
            },
            "Shipment": body,
            "LabelSpecification": {
                "LabelImageFormat": {"Code": if zpl { "ZPL" } else { "GIF" }},
                "LabelStockSize": {"Height": "6", "Width": "4"}
            }
        }
    }))
}

/// A party as UPS writes one: name, attention, phone and e-mail when known, address lines.
pub(super) fn address_block(party: &Party, international: bool) -> Value {
    let streets: Vec<&str> = [Some(party.address1.as_str()), party.address2.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let (name, lines) = name_and_streets(&party.name, 35, &streets, 35, 3);
    let mut block = json!({
        "Name": name,
        "Address": {
            "AddressLine": lines,
            "City": cut(&party.city, 30),
            "PostalCode": cut(&postcode(&party.postal_code), 9),
            "CountryCode": party.country_code,
        }
    });
    // Required in the United States and Canada, where the postcode tells it.
    if let Some(state) = region::of(&party.country_code, &party.postal_code) {
        block["Address"]["StateProvinceCode"] = json!(state);
    }
    let attention = party
        .attention
        .as_deref()
        .filter(|a| !a.trim().is_empty())
        .unwrap_or(&party.name);
    if international || party.attention.is_some() {
        block["AttentionName"] = json!(cut(attention.trim(), 35));
    }
    if let Some(phone) = party.phone.as_deref().map(digits).filter(|p| !p.is_empty()) {
        block["Phone"] = json!({"Number": cut(&phone, 15)});
    }
    if let Some(email) = party
        .email
        .as_deref()
        .filter(|e| (1..=50).contains(&e.len()))
    {
        block["EMailAddress"] = json!(email);
    }
    block
}

/// The shipment's services as UPS's options: `saturday_delivery`, `signature`,
/// `adult_signature`, `carbon_neutral`. Signatures are per package within the US
/// (`package_signature`), per shipment elsewhere (UPS's rule).
fn services(services: &[String], domestic_us: bool) -> Value {
    let mut options = json!({});
    for service in services {
        match service.as_str() {
            "saturday_delivery" => options["SaturdayDeliveryIndicator"] = json!(""),
            "carbon_neutral" => options["UPScarbonneutralIndicator"] = json!(""),
            "signature" if !domestic_us => {
                options["DeliveryConfirmation"] = json!({"DCISType": "1"})
            }
            "adult_signature" if !domestic_us => {
                options["DeliveryConfirmation"] = json!({"DCISType": "2"})
            }
            _ => {}
        }
    }
    options
}

/// A package's delivery confirmation within the US: 2 signature, 3 adult signature (the
/// package-level codes, which differ from the shipment-level ones).
fn package_signature(services: &[String]) -> Option<&'static str> {
    if services.iter().any(|s| s == "adult_signature") {
        Some("3")
    } else if services.iter().any(|s| s == "signature") {
        Some("2")
    } else {
        None
    }
}

/// The commercial invoice (form 01): one product per order line with its quantity, unit value,
/// origin and HS code; the invoice numbered with the shipment's reference.
fn invoice(shipment: &ShipmentRecord, receiver: &Party, today: jiff::civil::Date) -> Result<Value> {
    const DOCUMENT: &str = "a UPS commercial invoice";
    let lines = declared(
        shipment.body.parcels.iter().flat_map(|p| &p.order_lines),
        DOCUMENT,
    )?;
    let mut products = Vec::new();
    for declared in &lines {
        let line = declared.line;
        let mut product = json!({
            "Description": [cut(&declared.description, 35)],
            "Unit": {
                "Number": cut(&line.quantity.max(1).to_string(), 7),
                "Value": format!("{:.2}", declared.price),
                "UnitOfMeasurement": {"Code": "PCS"}
            },
            "PartNumber": cut(&line.sku, 35),
            "OriginCountryCode": declared.origin,
        });
        if let Some(code) = line
            .tarrif_number
            .as_deref()
            .map(digits)
            .filter(|c| (6..=15).contains(&c.len()))
        {
            product["CommodityCode"] = json!(code);
        }
        products.push(product);
    }
    if products.is_empty() {
        return Err(Error::InvalidState(
            "a UPS commercial invoice lists the parcels' order lines, and this shipment has none"
                .into(),
        ));
    }
    if products.len() > 50 {
        return Err(Error::InvalidState(
            "a UPS commercial invoice holds at most 50 order lines".into(),
        ));
    }
    let currency = one_currency(&lines, DOCUMENT)?;
    let mut sold_to = address_block(receiver, true);
    if sold_to.get("AttentionName").is_none() {
        sold_to["AttentionName"] = sold_to["Name"].clone();
    }
    Ok(json!({
        "FormType": ["01"],
        "InvoiceNumber": cut(&shipment.reference, 35),
        "InvoiceDate": format!("{:04}{:02}{:02}", today.year(), today.month(), today.day()),
        "ReasonForExport": "SALE",
        "CurrencyCode": currency,
        "TermsOfShipment": cut(&shipment.term_of_trade, 3),
        "Contacts": {"SoldTo": sold_to},
        "Product": products,
    }))
}

/// What the parcels hold, for the shipment's description: the order lines' descriptions, else
/// "Goods".
fn goods(shipment: &ShipmentRecord) -> String {
    let described: Vec<String> = shipment
        .body
        .parcels
        .iter()
        .flat_map(|p| &p.order_lines)
        .filter_map(|l| l.description.clone().or_else(|| Some(l.sku.clone())))
        .filter(|d| !d.trim().is_empty())
        .collect();
    if described.is_empty() {
        "Goods".into()
    } else {
        described.join(", ")
    }
}

/// Kilograms as UPS writes them: at most 5 characters, one decimal.
pub(super) fn weight(kg: f64) -> String {
    let text = format!("{:.1}", (kg * 10.0).ceil() / 10.0);
    if text.len() > 5 {
        format!("{:.0}", kg.ceil())
    } else {
        text
    }
}

/// Whole centimetres, rounded up, at most 3 digits.
pub(super) fn centimetres(cm: f64) -> String {
    (cm.ceil().clamp(1.0, 999.0) as i64).to_string()
}

fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// A postcode without spaces and dashes (UPS's 9 characters hold a US ZIP+4 that way).
fn postcode(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_and_sizes_are_short_strings() {
        assert_eq!(weight(1.5), "1.5");
        assert_eq!(weight(0.04), "0.1");
        assert_eq!(weight(1234.56), "1235");
        assert_eq!(centimetres(30.2), "31");
        assert_eq!(centimetres(0.0), "1");
        assert_eq!(postcode("SW1A 1AA"), "SW1A1AA");
        assert_eq!(digits("+45 12 34-56 78"), "4512345678");
    }
}

//! UPS Rating (`POST /api/rating/v2409/{Shop|Shoptimeintransit}`, from UPS's Rating.yaml):
//! every UPS service between the shipper and the receiver for the packages, priced with the
//! account's negotiated charges when UPS gives them (else its published ones), with the
//! estimated arrival when time in transit could be asked. Abroad UPS wants the goods' value for
//! time in transit, so without priced order lines in one currency only the prices are asked.

use serde_json::{Value, json};

use super::{
    PRODUCTS,
    request::{OWN_PACKAGING, address_block, centimetres, weight},
};
use crate::{
    carriers::{RateOffer, wire},
    error::{Error, Result},
    model::shipment::ShipmentRecord,
};

/// The rate request and the request option (the path's last segment) it goes with.
pub(super) fn rate_request(
    shipment: &ShipmentRecord,
    account: &str,
    today: jiff::civil::Date,
) -> Result<(Value, &'static str)> {
    let (sender, receiver) =
        wire::sender_and_receiver(shipment, "UPS rates need a sender and a receiver")?;
    let international = sender.country_code != receiver.country_code;
    let kilograms = json!({"Code": "KGS", "Description": "Kilograms"});
    let mut total_kg = 0.0;
    let mut packages = Vec::new();
    for parcel in &shipment.body.parcels {
        let kg = parcel.weight_kg().max(0.1);
        total_kg += kg;
        let mut package = json!({
            "PackagingType": {"Code": OWN_PACKAGING},
            "PackageWeight": {"UnitOfMeasurement": kilograms, "Weight": weight(kg)},
        });
        if let Some(d) = parcel.dimensions {
            package["Dimensions"] = json!({
                "UnitOfMeasurement": {"Code": "CM", "Description": "Centimetres"},
                "Length": centimetres(d.length),
                "Width": centimetres(d.width),
                "Height": centimetres(d.height),
            });
        }
        packages.push(package);
    }
    if packages.is_empty() {
        return Err(Error::InvalidState(
            "UPS rates need at least one parcel".into(),
        ));
    }
    let mut shipper = address_block(sender, international);
    shipper["ShipperNumber"] = json!(account);
    let mut body = json!({
        "Shipper": shipper,
        "ShipTo": address_block(receiver, international),
        "ShipFrom": address_block(sender, international),
        "PaymentDetails": {
            "ShipmentCharge": [{"Type": "01", "BillShipper": {"AccountNumber": account}}]
        },
        "ShipmentRatingOptions": {"NegotiatedRatesIndicator": "Y"},
        "Package": packages,
    });
    let value = goods_value(shipment);
    let option = if international && value.is_none() {
        "Shop"
    } else {
        body["ShipmentTotalWeight"] =
            json!({"UnitOfMeasurement": kilograms, "Weight": weight(total_kg)});
        body["DeliveryTimeInformation"] = json!({
            "PackageBillType": "03",
            "Pickup": {"Date": today.strftime("%Y%m%d").to_string()}
        });
        if let Some((amount, currency)) = value.filter(|_| international) {
            body["InvoiceLineTotal"] = json!({
                "CurrencyCode": currency,
                "MonetaryValue": format!("{:.0}", amount.ceil().clamp(1.0, 99_999_999.0)),
            });
        }
        "Shoptimeintransit"
    };
    Ok((
        json!({"RateRequest": {
            "Request": {"RequestOption": option, "TransactionReference": {"CustomerContext": shipment.reference}},
            "Shipment": body
        }}),
        option,
    ))
}

/// What the goods are worth, when every order line has a price in one currency.
fn goods_value(shipment: &ShipmentRecord) -> Option<(f64, String)> {
    let lines: Vec<_> = shipment
        .body
        .parcels
        .iter()
        .flat_map(|p| &p.order_lines)
        .collect();
    let currency = lines.first()?.currency.clone()?;
    let mut total = 0.0;
    for line in lines {
        if line.currency.as_deref() != Some(currency.as_str()) {
            return None;
        }
        total += line.unit_price? * line.quantity as f64;
    }
    (currency.len() == 3 && total > 0.0).then_some((total, currency))
}

/// The offers of a 200 answer: one per rated service.
pub(super) fn offers(answer: &Value) -> Vec<RateOffer> {
    let rated = match &answer["RateResponse"]["RatedShipment"] {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    rated
        .into_iter()
        .filter_map(|r| {
            let code = r["Service"]["Code"].as_str()?;
            let negotiated = &r["NegotiatedRateCharges"]["TotalCharge"];
            let charges = if negotiated["MonetaryValue"].is_string() {
                negotiated
            } else {
                &r["TotalCharges"]
            };
            let amount: f64 = charges["MonetaryValue"].as_str()?.trim().parse().ok()?;
            let arrival = &r["TimeInTransit"]["ServiceSummary"]["EstimatedArrival"];
            let estimated_delivery = arrival["Arrival"]["Date"]
                .as_str()
                .and_then(|d| jiff::civil::Date::strptime("%Y%m%d", d).ok())
                .map(|d| d.to_string());
            let transit_days = arrival["BusinessDaysInTransit"]
                .as_str()
                .or(r["GuaranteedDelivery"]["BusinessDaysInTransit"].as_str())
                .and_then(|d| d.trim().parse().ok());
            let name = PRODUCTS.iter().find(|(id, _)| *id == code).map_or_else(
                || format!("UPS service {code}"),
                |(_, name)| name.to_string(),
            );
            Some(RateOffer {
                product_id: code.to_string(),
                product_name: name,
                price: format!("{amount:.2}"),
                currency: charges["CurrencyCode"].as_str()?.to_string(),
                estimated_delivery,
                transit_days,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiated_charges_win_and_arrival_dates_become_iso_dates() {
        let answer = json!({"RateResponse": {"Response": {"ResponseStatus": {"Code": "1"}}, "RatedShipment": [
            {"Service": {"Code": "11"}, "TotalCharges": {"CurrencyCode": "EUR", "MonetaryValue": "20.50"},
             "NegotiatedRateCharges": {"TotalCharge": {"CurrencyCode": "EUR", "MonetaryValue": "15.1"}},
             "TimeInTransit": {"ServiceSummary": {"EstimatedArrival": {"Arrival": {"Date": "20261201"}, "BusinessDaysInTransit": "3"}}}},
            {"Service": {"Code": "99"}, "TotalCharges": {"CurrencyCode": "EUR", "MonetaryValue": "40"}},
            {"Service": {"Code": "07"}, "TotalCharges": {"CurrencyCode": "EUR"}}
        ]}});
        let offers = offers(&answer);
        assert_eq!(offers.len(), 2);
        assert_eq!(
            (
                offers[0].product_name.as_str(),
                offers[0].price.as_str(),
                offers[0].estimated_delivery.as_deref(),
                offers[0].transit_days
            ),
            ("UPS Standard", "15.10", Some("2026-12-01"), Some(3))
        );
        assert_eq!(
            (offers[1].product_name.as_str(), offers[1].price.as_str()),
            ("UPS service 99", "40.00")
        );
    }
}

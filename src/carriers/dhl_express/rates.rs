//! MyDHL rates (`POST /rates`, from DHL's MyDHL API description): every product DHL Express
//! offers between the shipper and the receiver for the packages, with its total price in the
//! billing currency and the delivery DHL expects.

use serde_json::{Value, json};

use super::{request::planned, setting};
use crate::{
    carriers::{
        RateOffer,
        wire::{self, cut, round3},
    },
    error::{Error, Result},
    model::{
        carrier::CarrierRecord,
        country,
        shipment::{Party, ShipmentRecord},
        timezone,
    },
};

/// The rate request for `shipment`, planned for now in the shipper's time.
pub(super) fn rate_request(
    shipment: &ShipmentRecord,
    carrier: &CarrierRecord,
    now: ::time::OffsetDateTime,
) -> Result<Value> {
    let (sender, receiver) =
        wire::sender_and_receiver(shipment, "DHL Express rates need a sender and a receiver")?;
    let local = timezone::local(
        now,
        timezone::zone_of(&sender.country_code, &sender.postal_code),
    );
    // DHL prices a package without dimensions as 1 × 1 × 1 cm: its weight decides.
    let packages: Vec<Value> = shipment
        .body
        .parcels
        .iter()
        .map(|p| {
            let d = p.dimensions;
            json!({
                "weight": round3(p.weight_kg().max(0.001)),
                "dimensions": {
                    "length": d.map_or(1.0, |d| d.length.max(1.0)),
                    "width": d.map_or(1.0, |d| d.width.max(1.0)),
                    "height": d.map_or(1.0, |d| d.height.max(1.0)),
                }
            })
        })
        .collect();
    if packages.is_empty() {
        return Err(Error::InvalidState(
            "DHL Express rates need at least one parcel".into(),
        ));
    }
    Ok(json!({
        "customerDetails": {
            "shipperDetails": address(sender),
            "receiverDetails": address(receiver)
        },
        "accounts": [{"typeCode": "shipper", "number": setting(carrier, "accountNumber")?}],
        "plannedShippingDateAndTime": planned(&local),
        "unitOfMeasurement": "metric",
        "isCustomsDeclarable": country::crosses_customs_border(&sender.country_code, &receiver.country_code),
        "packages": packages
    }))
}

fn address(p: &Party) -> Value {
    json!({
        "postalCode": cut(&p.postal_code, 12),
        "cityName": cut(&p.city, 45),
        "countryCode": p.country_code,
        "addressLine1": cut(&p.address1, 45)
    })
}

/// The offers of a 200 answer: each product with its price in the billing currency (`BILLC`,
/// else the first price that names its currency).
pub(super) fn offers(answer: &Value) -> Vec<RateOffer> {
    answer["products"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|product| {
            let prices: Vec<&Value> = product["totalPrice"]
                .as_array()?
                .iter()
                .filter(|p| p["priceCurrency"].as_str().is_some_and(|c| c.len() == 3))
                .collect();
            let price = prices
                .iter()
                .find(|p| p["currencyType"] == "BILLC")
                .or(prices.first())?;
            let capabilities = &product["deliveryCapabilities"];
            Some(RateOffer {
                product_id: product["productCode"].as_str()?.to_string(),
                product_name: product["productName"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                price: format!("{:.2}", price["price"].as_f64()?),
                currency: price["priceCurrency"].as_str()?.to_string(),
                estimated_delivery: capabilities["estimatedDeliveryDateAndTime"]
                    .as_str()
                    .and_then(|d| d.get(..10))
                    .filter(|d| jiff::civil::Date::strptime("%Y-%m-%d", d).is_ok())
                    .map(str::to_string),
                transit_days: capabilities["totalTransitDays"]
                    .as_u64()
                    .and_then(|d| u32::try_from(d).ok()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_billing_currency_price_is_the_offer() {
        let answer = json!({"products": [
            {"productName": "EXPRESS WORLDWIDE", "productCode": "P", "weight": {"provided": 2},
             "totalPrice": [{"currencyType": "BASEC", "priceCurrency": "EUR", "price": 182.84},
                            {"currencyType": "BILLC", "priceCurrency": "DKK", "price": 1157.9}],
             "deliveryCapabilities": {"estimatedDeliveryDateAndTime": "2026-11-30T23:59:00", "totalTransitDays": 2}},
            {"productName": "NO PRICE", "productCode": "X", "weight": {}, "totalPrice": [{"price": 1}]}
        ]});
        let offers = offers(&answer);
        assert_eq!(
            offers,
            [RateOffer {
                product_id: "P".into(),
                product_name: "EXPRESS WORLDWIDE".into(),
                price: "1157.90".into(),
                currency: "DKK".into(),
                estimated_delivery: Some("2026-11-30".into()),
                transit_days: Some(2),
            }]
        );
    }
}

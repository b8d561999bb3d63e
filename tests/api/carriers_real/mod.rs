//! Real carriers (issue 15): each adapter books, labels, refuses and tracks against a replay of
//! the carrier's API written from its published specification (`replay`).

mod addresses;
mod dhl_express;
mod dhl_express_pickup;
mod dhl_express_rates;
mod dhl_parcel_de;
mod dhl_parcel_de_pickup;
mod dhl_parcel_de_tracking;
pub(crate) mod exactly_once;
mod postnord;
mod postnord_pickup;
mod rates;
pub(crate) mod replay;
mod ups;
mod ups_pickup;
mod ups_rating;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::fixtures::{Shop, id_of};

/// A shop whose app has `extra_toml` (the carriers' URLs) in its config.
pub struct RealShop {
    pub shop: Shop,
}

pub async fn setup(extra_toml: &str) -> RealShop {
    RealShop {
        shop: Shop::with_config(extra_toml).await,
    }
}

impl RealShop {
    /// A carrier of type `slug` with `config`.
    pub async fn carrier(&self, slug: &str, config: Value, _product: &str) -> Value {
        self.shop
            .app
            .create_carrier_with(
                &self.shop.org,
                json!({"name": slug, "carrierSlug": slug, "config": config,
                       "senderAddressId": id_of(&self.shop.address)}),
            )
            .await
    }

    /// A pending shipment of `parcels` parcels with `carrier` and its first product.
    pub async fn shipment(&self, carrier: &Value, parcels: usize) -> String {
        let mut body = self.shop.body();
        body["carrierSettings"]["carrierId"] = carrier["id"].clone();
        let product = match carrier["carrierSlug"].as_str() {
            Some("dhl_express") => "U",
            Some("ups") => "11",
            Some("dhl_parcel_de") => "V01PAK",
            _ => "18",
        };
        body["carrierSettings"]["productId"] = json!(product);
        body["parcels"] = Value::Array(
            (0..parcels)
                .map(|i| json!({"weight": 1.0 + i as f64, "dimensions": {"length": 30, "width": 20, "height": 10}}))
                .collect(),
        );
        id_of(&self.shop.create(body).await)
    }
}

/// Polls the shipment until its tracking status is `status` (at most 15 s); returns its tracking.
pub async fn wait_for_tracking(shop: &Shop, id: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let tracking = shop.get(id).await["tracking"].clone();
        if tracking["status"] == status || Instant::now() > deadline {
            assert_eq!(tracking["status"], status, "{tracking}");
            return tracking;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn available_carriers_lists_each_real_carrier_with_its_fields() {
    let shop = setup("").await;
    let available = shop
        .shop
        .app
        .get(
            &format!("/orgs/{}/available-carriers", shop.shop.org.id),
            &shop.shop.org.token,
        )
        .await
        .expect(200);
    let find = |slug: &str| {
        available
            .as_array()
            .into_iter()
            .flatten()
            .chain(available["data"].as_array().into_iter().flatten())
            .find(|c| c["slug"] == slug)
            .cloned()
            .unwrap_or_else(|| panic!("{slug} missing from {available}"))
    };
    let keys = |carrier: &Value, list: &str| -> Vec<String> {
        carrier[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["key"].as_str().unwrap().to_string())
            .collect()
    };
    let postnord = find("postnord");
    assert_eq!(
        keys(&postnord, "requiredFields"),
        ["apiKey", "customerNumber", "issuerCode"]
    );
    assert_eq!(
        keys(&postnord, "optionalFields"),
        ["sandbox", "labelFormat", "paperSize", "applicationId"]
    );
    assert!(
        postnord["products"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "18")
    );
    let dhl = find("dhl_express");
    assert_eq!(
        keys(&dhl, "requiredFields"),
        ["username", "password", "accountNumber"]
    );
    assert_eq!(
        keys(&dhl, "optionalFields"),
        ["sandbox", "labelFormat", "labelTemplate"]
    );
    assert!(
        dhl["products"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "P")
    );
    // The secret fields say so.
    let kind = |carrier: &Value, key: &str| {
        carrier["requiredFields"]
            .as_array()
            .unwrap()
            .iter()
            .chain(carrier["optionalFields"].as_array().unwrap())
            .find(|f| f["key"] == key)
            .unwrap()["type"]
            .clone()
    };
    assert_eq!(
        (kind(&postnord, "apiKey"), kind(&dhl, "password")),
        (json!("password"), json!("password"))
    );
    let ups = find("ups");
    assert_eq!(
        keys(&ups, "requiredFields"),
        ["clientId", "clientSecret", "accountNumber"]
    );
    assert_eq!(keys(&ups, "optionalFields"), ["sandbox", "labelFormat"]);
    assert_eq!(kind(&ups, "clientSecret"), json!("password"));
    let parcel_de = find("dhl_parcel_de");
    assert_eq!(
        keys(&parcel_de, "requiredFields"),
        ["apiKey", "username", "password", "ekp"]
    );
    assert_eq!(
        keys(&parcel_de, "optionalFields"),
        [
            "participation",
            "returnsReceiverId",
            "apiSecret",
            "trackingUser",
            "trackingPassword",
            "sandbox",
            "labelFormat"
        ]
    );
    for secret in ["apiKey", "password", "apiSecret", "trackingPassword"] {
        assert_eq!(kind(&parcel_de, secret), json!("password"), "{secret}");
    }
    let products: Vec<&str> = parcel_de["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        products,
        ["V01PAK", "V62KP", "V62WP", "V53WPAK", "V54EPAK", "V66WPI"]
    );
    assert!(
        ups["products"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "11" && p["name"] == "UPS Standard")
    );
}

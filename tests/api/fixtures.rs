//! Valid request bodies for the core resources, typed helpers that create them (asserting 201),
//! and checks of identifier and timestamp formats (DESIGN §3).

use serde_json::{Value, json};

use crate::helpers::{TestApp, TestOrg, error_fields};

pub mod printed;

/// A valid sender address body (every field set, `address2` and `customs` included).
pub fn sender_address_body() -> Value {
    json!({
        "name": "Main Warehouse",
        "attContact": "Alice Sender",
        "address1": "Industrivej 1",
        "address2": "Building B",
        "zipcode": "2600",
        "city": "Glostrup",
        "phone": "+4570000000",
        "countryCode": "DK",
        "state": "Capital Region",
        "email": "warehouse@example.com",
        "customs": {"eori": "DK12345678", "voec": "VOEC-1"}
    })
}

/// A carrier body with the built-in `sandbox` carrier and an empty config.
pub fn carrier_body(sender_address_id: &str) -> Value {
    json!({
        "name": "Sandbox Carrier",
        "carrierSlug": "sandbox",
        "config": {},
        "senderAddressId": sender_address_id
    })
}

/// A shipping rule body with only the fields a rule needs.
pub fn rule_body(carrier_id: &str, sender_address_id: &str) -> Value {
    json!({
        "name": "Standard DK",
        "carrierId": carrier_id,
        "productId": "standard",
        "senderAddressId": sender_address_id
    })
}

/// A receiver party with every required field and a few optional ones.
pub fn receiver_party() -> Value {
    json!({
        "type": "receiver",
        "name": "Jane Receiver",
        "address1": "Main Street 1",
        "postalCode": "8000",
        "city": "Aarhus",
        "countryCode": "DK",
        "email": "jane@example.com",
        "phone": "+4512345678"
    })
}

/// A shipment body with one receiver party and one parcel holding one order line.
pub fn shipment_body(sender_address_id: &str, carrier_id: &str) -> Value {
    json!({
        "reference": "REF-1001",
        "senderAddressId": sender_address_id,
        "parties": [receiver_party()],
        "type": "outbound",
        "carrierSettings": {
            "carrierId": carrier_id,
            "productId": "standard",
            "services": ["signature"]
        },
        "parcels": [{
            "weight": 1.5,
            "orderLines": [{"sku": "SKU-1", "quantity": 2}]
        }]
    })
}

/// The id of a created resource.
#[track_caller]
pub fn id_of(resource: &Value) -> String {
    resource["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {resource}"))
        .to_string()
}

/// Asserts `value` is `<prefix>_` followed by a 26-character ULID.
#[track_caller]
pub fn assert_id(value: &Value, prefix: &str) {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("id {value} is not a string"));
    let ulid = text
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .unwrap_or_else(|| panic!("{text} does not start with {prefix}_"));
    assert_eq!(ulid.len(), 26, "{text}");
    assert!(ulid::Ulid::from_string(ulid).is_ok(), "{text}");
}

/// Asserts `value` is a timestamp of the form `2026-11-22T10:15:30.123Z`.
#[track_caller]
pub fn assert_timestamp(value: &Value) {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("timestamp {value} is not a string"));
    let pattern = "dddd-dd-ddTdd:dd:dd.dddZ";
    assert_eq!(text.len(), pattern.len(), "{text}");
    for (c, p) in text.chars().zip(pattern.chars()) {
        let ok = if p == 'd' { c.is_ascii_digit() } else { c == p };
        assert!(ok, "{text} is not of the form YYYY-MM-DDTHH:MM:SS.mmmZ");
    }
}

/// Asserts a 400 `validation_failed` whose `errors[].field` include `field`.
#[track_caller]
pub fn assert_invalid(reply: crate::helpers::Reply, field: &str) -> Value {
    let problem = reply.problem(400, "validation_failed");
    let fields = error_fields(&problem);
    assert!(
        fields.iter().any(|f| f == field),
        "expected an error on {field}, got {fields:?}: {problem}"
    );
    problem
}

/// Whether some `errors[].field` of a problem starts with `prefix`.
pub fn error_fields_start_with(problem: &Value, prefix: &str) -> bool {
    error_fields(problem).iter().any(|f| f.starts_with(prefix))
}

/// Removes `key` from a JSON object, panicking when it is not one.
pub fn without(mut body: Value, key: &str) -> Value {
    body.as_object_mut()
        .expect("the body is a JSON object")
        .remove(key);
    body
}

/// Sets `key` of a JSON object.
pub fn with(mut body: Value, key: &str, value: Value) -> Value {
    body[key] = value;
    body
}

/// The ids of a list page's items, in order.
pub fn page_ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data in {page}"))
        .iter()
        .map(id_of)
        .collect()
}

/// Asserts the `total` of the list at `path`.
pub async fn assert_list_total(app: &TestApp, path: &str, token: &str, total: u64) {
    let list = app.get(path, token).await.expect(200);
    assert_eq!(list["total"], total, "{list}");
}

impl TestApp {
    /// POST /orgs/{orgId}/sender-addresses with `body`, asserting 201.
    pub async fn create_sender_address_with(&self, org: &TestOrg, body: Value) -> Value {
        self.post(
            &format!("/orgs/{}/sender-addresses", org.id),
            &org.token,
            body,
        )
        .await
        .expect(201)
    }

    /// A sender address made from `sender_address_body()`.
    pub async fn create_sender_address(&self, org: &TestOrg) -> Value {
        self.create_sender_address_with(org, sender_address_body())
            .await
    }

    /// A `sandbox` carrier using the sender address `sender_address_id`.
    pub async fn create_carrier(&self, org: &TestOrg, sender_address_id: &str) -> Value {
        self.post(
            &format!("/orgs/{}/carriers", org.id),
            &org.token,
            carrier_body(sender_address_id),
        )
        .await
        .expect(201)
    }

    /// A sender address and a sandbox carrier using it: `(address, carrier)`.
    pub async fn create_address_and_carrier(&self, org: &TestOrg) -> (Value, Value) {
        let address = self.create_sender_address(org).await;
        let carrier = self.create_carrier(org, &id_of(&address)).await;
        (address, carrier)
    }

    /// POST /orgs/{orgId}/shipping-rules with `body`, asserting 201.
    pub async fn create_rule(&self, org: &TestOrg, body: Value) -> Value {
        self.post(
            &format!("/orgs/{}/shipping-rules", org.id),
            &org.token,
            body,
        )
        .await
        .expect(201)
    }

    /// POST /orgs/{orgId}/shipments with `body`, asserting 201.
    pub async fn create_shipment(&self, org: &TestOrg, body: Value) -> Value {
        self.post(&format!("/orgs/{}/shipments", org.id), &org.token, body)
            .await
            .expect(201)
    }
}

/// The eight shipment statuses (SPEC §3).
pub const SHIPMENT_STATUSES: [&str; 8] = [
    "draft",
    "pending",
    "processing",
    "dispatched",
    "partly_dispatched",
    "error",
    "cancelled",
    "on_hold",
];

/// A parcel body of `weight` kg holding one order line per `(sku, quantity)`.
pub fn parcel_body(weight: f64, lines: &[(&str, i64)]) -> Value {
    let lines: Vec<Value> = lines
        .iter()
        .map(|(sku, quantity)| json!({"sku": sku, "quantity": quantity}))
        .collect();
    json!({"weight": weight, "orderLines": lines})
}

/// The parcels of a shipment.
#[track_caller]
pub fn parcels_of(shipment: &Value) -> Vec<Value> {
    shipment["parcels"]
        .as_array()
        .unwrap_or_else(|| panic!("no parcels in {shipment}"))
        .clone()
}

/// The party of type `kind` of a shipment (exactly one must exist).
#[track_caller]
pub fn party(shipment: &Value, kind: &str) -> Value {
    let found: Vec<&Value> = shipment["parties"]
        .as_array()
        .unwrap_or_else(|| panic!("no parties in {shipment}"))
        .iter()
        .filter(|p| p["type"] == kind)
        .collect();
    assert_eq!(found.len(), 1, "one {kind} party in {shipment}");
    found[0].clone()
}

/// An app with an org that has a sender address and a sandbox carrier: where the shipment
/// operation tests start.
pub struct Shop {
    pub app: TestApp,
    pub org: TestOrg,
    pub address: Value,
    pub carrier: Value,
}

impl Shop {
    pub async fn new() -> Shop {
        Shop::with_config("").await
    }

    /// A shop on an app started with `extra_toml` added to the test config.
    pub async fn with_config(extra_toml: &str) -> Shop {
        Shop::on(TestApp::spawn_with(extra_toml).await).await
    }

    /// `with_config`, with "now" from `clock`.
    pub async fn with_clock(extra_toml: &str, clock: shipbase::model::time::Clock) -> Shop {
        Shop::on(TestApp::spawn_with_clock(extra_toml, clock).await).await
    }

    async fn on(app: TestApp) -> Shop {
        let org = app.create_org();
        let (address, carrier) = app.create_address_and_carrier(&org).await;
        Shop {
            app,
            org,
            address,
            carrier,
        }
    }

    /// `shipment_body()` for this org: one parcel of 1.5 kg with 2 × SKU-1, status pending.
    pub fn body(&self) -> Value {
        shipment_body(&id_of(&self.address), &id_of(&self.carrier))
    }

    /// A shipment body in `status` with the given parcels.
    pub fn body_with(&self, status: &str, parcels: Value) -> Value {
        with(
            with(self.body(), "status", json!(status)),
            "parcels",
            parcels,
        )
    }

    /// `/orgs/{orgId}/shipments/{id}` followed by `rest`.
    pub fn path(&self, id: &str, rest: &str) -> String {
        format!("/orgs/{}/shipments/{id}{rest}", self.org.id)
    }

    pub async fn create(&self, body: Value) -> Value {
        self.app.create_shipment(&self.org, body).await
    }

    pub async fn get(&self, id: &str) -> Value {
        self.app.get_shipment(&self.org, id).await
    }

    /// POST `/orgs/{orgId}/shipments/{id}{rest}` with the owner's token.
    pub async fn post(&self, id: &str, rest: &str, body: Value) -> crate::helpers::Reply {
        self.app
            .post(&self.path(id, rest), &self.org.token, body)
            .await
    }

    /// POST `/orgs/{orgId}/shipments/{id}{rest}` without a body (book, create-return).
    pub async fn post_empty(&self, id: &str, rest: &str) -> crate::helpers::Reply {
        self.app
            .call(
                reqwest::Method::POST,
                &self.path(id, rest),
                Some(&self.org.token),
                None,
            )
            .await
    }

    /// A shipment created pending, booked, then moved to `status` (processing stays as booked).
    pub async fn booked(&self, body: Value, status: &str) -> Value {
        let id = id_of(&self.create(body).await);
        let booked = self.app.book_shipment(&self.org, &id).await;
        if status == "processing" {
            return booked;
        }
        self.app.set_shipment_status(&self.org, &id, status).await
    }
}

impl TestApp {
    /// POST /orgs/{orgId}/carriers with `body`, asserting 201.
    pub async fn create_carrier_with(&self, org: &TestOrg, body: Value) -> Value {
        self.post(&format!("/orgs/{}/carriers", org.id), &org.token, body)
            .await
            .expect(201)
    }

    /// GET /orgs/{orgId}/shipments/{id}, asserting 200.
    pub async fn get_shipment(&self, org: &TestOrg, id: &str) -> Value {
        self.get(&format!("/orgs/{}/shipments/{id}", org.id), &org.token)
            .await
            .expect(200)
    }

    /// POST /orgs/{orgId}/shipments/{id}/book, asserting 200.
    pub async fn book_shipment(&self, org: &TestOrg, id: &str) -> Value {
        let path = format!("/orgs/{}/shipments/{id}/book", org.id);
        self.call(reqwest::Method::POST, &path, Some(&org.token), None)
            .await
            .expect(200)
    }

    /// POST /orgs/{orgId}/shipments/{id}/status, asserting 200.
    pub async fn set_shipment_status(&self, org: &TestOrg, id: &str, status: &str) -> Value {
        self.post(
            &format!("/orgs/{}/shipments/{id}/status", org.id),
            &org.token,
            json!({"status": status}),
        )
        .await
        .expect(200)
    }

    /// Every shipment of `org` in full form (the list holds at most 100).
    pub async fn all_shipments(&self, org: &TestOrg) -> Vec<Value> {
        let list = self
            .get(&format!("/orgs/{}/shipments?limit=100", org.id), &org.token)
            .await
            .expect(200);
        assert!(list["total"].as_u64().unwrap_or(0) <= 100, "{list}");
        let mut shipments = Vec::new();
        for id in page_ids(&list) {
            shipments.push(self.get_shipment(org, &id).await);
        }
        shipments
    }
}

/// An order channel body of `kind`; a `shopify` one carries a shop domain.
pub fn order_channel_body(kind: &str) -> Value {
    match kind {
        "shopify" => {
            json!({"name": "Web Shop", "type": "shopify", "shopDomain": "my-store.myshopify.com"})
        }
        _ => json!({"name": "Phone Orders", "type": kind}),
    }
}

/// A complete shipping address of an order (every field set).
pub fn shipping_address() -> Value {
    json!({
        "name": "Jane Customer",
        "address1": "Main Street 1",
        "address2": "2nd floor",
        "city": "Aarhus",
        "postalCode": "8000",
        "countryCode": "DK",
        "attention": "Reception",
        "company": "Customer ApS",
        "province": "Central Jutland",
        "provinceCode": "82",
        "country": "Denmark",
        "phone": "+4512345678",
        "email": "ship-to@example.com"
    })
}

/// A manual order body in `channel_id` numbered `number`, with every writable field but
/// `shippingRuleId`. Its lines: 2 mugs of 350 g and a teapot of 1.2 kg ship (1.9 kg in all); gift
/// wrapping of 5 kg does not (`requiresShipping` false).
pub fn order_body(channel_id: &str, number: &str) -> Value {
    json!({
        "orderChannelId": channel_id,
        "orderNumber": number,
        "externalId": format!("ext-{number}"),
        "orderLines": [
            {
                "name": "Blue Mug",
                "quantity": 2,
                "sku": "MUG-BLUE",
                "unitPrice": 49.5,
                "totalPrice": 99.0,
                "currency": "DKK",
                "weight": 350,
                "weightUnit": "g",
                "variantId": "var-1",
                "productId": "prod-1",
                "imageUrl": "https://img.example.com/mug.png",
                "hsCode": "691200",
                "countryOfOrigin": "DK",
                "provinceOfOrigin": "84",
                "barcode": "5701234567890",
                "requiresShipping": true,
                "taxable": true,
                "giftCard": false,
                "vendor": "Mugs ApS"
            },
            {"name": "Teapot", "quantity": 1, "sku": "POT-1", "unitPrice": 200.0, "weight": 1.2, "weightUnit": "kg"},
            {"name": "Gift wrapping", "quantity": 1, "sku": "WRAP", "unitPrice": 10.0, "weight": 5, "weightUnit": "kg", "requiresShipping": false}
        ],
        "customerName": "Jane Customer",
        "customerEmail": "jane.customer@example.com",
        "notes": "Ring twice",
        "currency": "DKK",
        "totalAmount": 309.0,
        "shippingAddress": shipping_address(),
        "externalData": {"source": "pos", "tags": ["vip"], "till": 3}
    })
}

/// A body for `POST .../orders/{id}/shipments` with the sandbox carrier.
pub fn order_shipment_body(sender_address_id: &str, carrier_id: &str) -> Value {
    json!({
        "senderAddressId": sender_address_id,
        "carrierId": carrier_id,
        "productId": "standard",
        "services": ["signature"]
    })
}

impl TestApp {
    /// POST /orgs/{orgId}/order-channels with `body`, asserting 201.
    pub async fn create_order_channel(&self, org: &TestOrg, body: Value) -> Value {
        self.post(
            &format!("/orgs/{}/order-channels", org.id),
            &org.token,
            body,
        )
        .await
        .expect(201)
    }

    /// POST /orgs/{orgId}/orders with `body`, asserting 201.
    pub async fn create_order(&self, org: &TestOrg, body: Value) -> Value {
        self.post(&format!("/orgs/{}/orders", org.id), &org.token, body)
            .await
            .expect(201)
    }

    /// GET /orgs/{orgId}/orders/{id}, asserting 200.
    pub async fn get_order(&self, org: &TestOrg, id: &str) -> Value {
        self.get(&format!("/orgs/{}/orders/{id}", org.id), &org.token)
            .await
            .expect(200)
    }

    /// POST /orgs/{orgId}/orders/{id}/shipments with `body`, asserting 201.
    pub async fn create_order_shipment(&self, org: &TestOrg, order_id: &str, body: Value) -> Value {
        self.post(
            &format!("/orgs/{}/orders/{order_id}/shipments", org.id),
            &org.token,
            body,
        )
        .await
        .expect(201)
    }
}

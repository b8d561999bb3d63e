//! Carrier adapters: what each carrier type needs to be configured with and which products and
//! services it offers. `registry()` lists exactly the adapters that exist.

use ring::rand::{SecureRandom, SystemRandom};
use std::collections::BTreeMap;

use serde_json::Value;

use crate::{
    error::{Error, Result},
    model::{
        carrier::{self as model, CarrierRecord},
        shipment::ShipmentRecord,
        validate::Violations,
    },
};

pub mod customs;
mod dhl_express;
mod dhl_parcel_de;
mod http;
pub mod label;
mod manual;
pub mod pdf_merge;
pub mod pickup;
mod postnord;
mod sandbox;
mod tokens;
mod ups;
mod wire;

/// One configuration field of a carrier type (SPEC §2 CarrierField).
#[derive(Clone, Debug)]
pub struct CarrierField {
    pub name: &'static str,
    pub key: &'static str,
    /// `string`, `password` or `select`.
    pub kind: &'static str,
    pub description: &'static str,
    pub options: Vec<CarrierFieldOption>,
    pub required: bool,
}

#[derive(Clone, Debug)]
pub struct CarrierFieldOption {
    pub name: &'static str,
    pub key: &'static str,
    pub value: &'static str,
}

/// A product or service a carrier offers.
#[derive(Clone, Debug)]
pub struct Offer {
    pub id: &'static str,
    pub name: &'static str,
}

/// What a carrier type is (SPEC §2 AvailableCarrier).
#[derive(Clone, Debug)]
pub struct CarrierInfo {
    pub name: &'static str,
    pub slug: &'static str,
    pub group: &'static str,
    pub description: &'static str,
    pub fields: Vec<CarrierField>,
    pub products: Vec<Offer>,
    pub services: Vec<Offer>,
}

impl From<&CarrierField> for model::CarrierField {
    fn from(f: &CarrierField) -> model::CarrierField {
        model::CarrierField {
            name: f.name.into(),
            key: f.key.into(),
            kind: f.kind.into(),
            description: f.description.into(),
            options: f
                .options
                .iter()
                .map(|o| model::CarrierFieldOption {
                    name: o.name.into(),
                    key: o.key.into(),
                    value: o.value.into(),
                })
                .collect(),
            required: f.required,
        }
    }
}

impl From<&Offer> for model::Offer {
    fn from(o: &Offer) -> model::Offer {
        model::Offer {
            id: o.id.into(),
            name: o.name.into(),
        }
    }
}

impl From<CarrierInfo> for model::AvailableCarrier {
    fn from(info: CarrierInfo) -> model::AvailableCarrier {
        let (required, optional): (Vec<_>, Vec<_>) = info.fields.iter().partition(|f| f.required);
        model::AvailableCarrier {
            name: info.name.into(),
            slug: info.slug.into(),
            group: info.group.into(),
            description: info.description.into(),
            logo: None,
            learn_more_url: None,
            required_fields: required.into_iter().map(Into::into).collect(),
            optional_fields: optional.into_iter().map(Into::into).collect(),
            products: info.products.iter().map(Into::into).collect(),
            services: info.services.iter().map(Into::into).collect(),
        }
    }
}

/// What a carrier answers to a booking.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Booking {
    /// One per parcel, in the shipment's order; the first is the shipment's. Empty for a
    /// parcel that has none (a manual carrier's parcel the shop gave no number for).
    pub tracking_numbers: Vec<String>,
    /// Where the shipment (its first parcel) is tracked.
    pub tracking_url: Option<String>,
    /// The carrier's own labels, one per parcel in order; empty when Shipbase renders them.
    pub labels: Vec<CarrierLabel>,
}

/// A label file made by the carrier.
#[derive(Clone, Debug, PartialEq)]
pub struct CarrierLabel {
    /// `pdf` or `zpl`.
    pub format: &'static str,
    /// `A4` or `100X150` (DESIGN §17), the nearest to the carrier's paper.
    pub size: &'static str,
    pub content: Vec<u8>,
}

/// A tracking event as a carrier reports it, mapped to Shipbase's statuses.
#[derive(Clone, Debug, PartialEq)]
pub struct CarrierEvent {
    pub status: crate::model::status::TrackingStatus,
    pub description: Option<String>,
    pub location: Option<String>,
    /// RFC 3339.
    pub occurred_at: String,
}

/// One product a carrier offers for a shipment, at its price.
#[derive(Clone, Debug, PartialEq)]
pub struct RateOffer {
    pub product_id: String,
    pub product_name: String,
    /// The amount as a decimal number with two decimals.
    pub price: String,
    pub currency: String,
    /// YYYY-MM-DD.
    pub estimated_delivery: Option<String>,
    pub transit_days: Option<u32>,
}

/// A carrier's verdict on an address: `valid`, `ambiguous` or `no_candidates`, and the
/// addresses it suggests.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressVerdict {
    pub result: &'static str,
    pub candidates: Vec<crate::model::address_check::AddressCandidate>,
}

/// A future an adapter returns (the trait stays object-safe).
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A carrier integration.
pub trait CarrierAdapter: Send + Sync {
    fn info(&self) -> CarrierInfo;

    /// Books `shipment` with the configured `carrier` (its config holds its credentials in
    /// clear): one tracking number per parcel, a link when the carrier has one, and the
    /// carrier's labels when it makes them (else Shipbase renders them). `reference` identifies
    /// this request (the booking attempt, at most 36 characters): adapters send it wherever the
    /// carrier's API has a reference or idempotency field for the request.
    fn book<'a>(
        &'a self,
        env: &'a Env,
        shipment: &'a ShipmentRecord,
        carrier: &'a CarrierRecord,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Booking>>;

    /// Whether booking sends the shipment to the carrier over the network, so that a failure
    /// after `book` may leave a booking at the carrier (the sandbox and manual carriers book in
    /// the process).
    fn calls_out(&self) -> bool {
        false
    }

    /// Whether the carrier reports tracking events (`track` is then asked on a schedule).
    fn tracks(&self) -> bool {
        false
    }

    /// The events of the shipment whose first parcel has `number`, oldest first.
    fn track<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _number: &'a str,
    ) -> BoxFuture<'a, Result<Vec<CarrierEvent>>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Whether the carrier prices shipments through an API (`rate` is then asked by rates).
    fn rates(&self) -> bool {
        false
    }

    /// The carrier's offers for `shipment` (parties and parcels; no product chosen yet), one
    /// per product it would carry it with.
    fn rate<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _shipment: &'a ShipmentRecord,
    ) -> BoxFuture<'a, Result<Vec<RateOffer>>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Whether the carrier validates street addresses in `country` (`check_address` is then
    /// asked by address checks).
    fn checks_addresses(&self, _country: &str) -> bool {
        false
    }

    /// The carrier's verdict on `address`.
    fn check_address<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _address: &'a crate::model::address_check::AddressCheckIn,
    ) -> BoxFuture<'a, Result<AddressVerdict>> {
        Box::pin(async {
            Err(crate::error::Error::InvalidState(
                "this carrier does not validate addresses".into(),
            ))
        })
    }

    /// Whether the carrier books pickups through its API (`book_pickup` and `cancel_pickup`
    /// are then asked), from an address in `country`.
    fn picks_up(&self, _country: &str) -> bool {
        false
    }

    /// Books a driver to collect parcels; the carrier's confirmation number.
    fn book_pickup<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _pickup: &'a pickup::PickupRequest<'a>,
    ) -> BoxFuture<'a, Result<pickup::PickupBooking>> {
        Box::pin(async {
            Err(Error::InvalidState(
                "this carrier books no pickups through its API".into(),
            ))
        })
    }

    /// Whether the carrier's API cancels the pickups it books (else a pickup is cancelled in
    /// Shipbase only, and the carrier is to be called).
    fn cancels_pickups(&self) -> bool {
        true
    }

    /// Cancels the pickup the carrier confirmed as `confirmation_number`; `contact` is who
    /// asks (carriers that want a name get it). Done when the carrier had cancelled it already.
    fn cancel_pickup<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _confirmation_number: &'a str,
        _contact: &'a str,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async { Ok(()) })
    }

    /// Whether the carrier has an end-of-day close call (`close_day` is then asked by a
    /// manifest before its PDF is made).
    fn closes_day(&self) -> bool {
        false
    }

    /// Closes the day for `shipments` (booked with this carrier, not closed before).
    fn close_day<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _shipments: &'a [ShipmentRecord],
    ) -> BoxFuture<'a, Result<pickup::Closed>> {
        Box::pin(async { Ok(pickup::Closed::default()) })
    }

    /// Whether the carrier takes a booking back before it leaves (`void` is then asked when a
    /// booked shipment is cancelled).
    fn voids(&self) -> bool {
        false
    }

    /// Takes back the booking of `shipment` (its tracking and parcel numbers say which); done
    /// when the carrier had taken it back already.
    fn void<'a>(
        &'a self,
        _env: &'a Env,
        _carrier: &'a CarrierRecord,
        _shipment: &'a ShipmentRecord,
    ) -> BoxFuture<'a, Result<()>> {
        Box::pin(async { Ok(()) })
    }
}

/// What adapters need from outside: an HTTP client (with the configured timeout; built on first
/// use, so that start-up and CLI commands never pay for it) and where each carrier's API is when
/// the configuration moves it.
#[derive(Clone, Debug)]
pub struct Env {
    client: std::sync::Arc<std::sync::OnceLock<reqwest::Client>>,
    timeout: std::time::Duration,
    pub postnord_url: String,
    pub dhl_express_url: String,
    pub ups_url: String,
    pub dhl_parcel_de_url: String,
    /// Access tokens of carriers that issue them (UPS), kept until they expire.
    pub tokens: tokens::Tokens,
    /// The time requests carry (the service's clock).
    pub clock: crate::model::time::Clock,
}

impl Env {
    pub fn new(config: &crate::config::Carriers, clock: crate::model::time::Clock) -> Env {
        Env {
            client: std::sync::Arc::default(),
            clock,
            timeout: std::time::Duration::from_secs(config.timeout_seconds),
            postnord_url: config.postnord_url.trim_end_matches('/').to_string(),
            dhl_express_url: config.dhl_express_url.trim_end_matches('/').to_string(),
            ups_url: config.ups_url.trim_end_matches('/').to_string(),
            dhl_parcel_de_url: config.dhl_parcel_de_url.trim_end_matches('/').to_string(),
            tokens: tokens::Tokens::default(),
        }
    }

    /// The client carriers are called with.
    pub fn http(&self) -> Result<&reqwest::Client> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let client = reqwest::Client::builder()
            .dns_resolver(crate::outbound::dns::Resolver::shared())
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(self.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("Shipbase/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Internal(format!("cannot build the carrier client: {e}")))?;
        Ok(self.client.get_or_init(|| client))
    }
}

/// The value shown for a secret field (kind `password`) that is set; sending it back unchanged
/// keeps the stored secret.
pub const SECRET_MASK: &str = "********";

/// A config value as a string (select fields may be given as JSON booleans).
pub(crate) fn config_str<'a>(
    carrier: &'a CarrierRecord,
    key: &str,
) -> Option<std::borrow::Cow<'a, str>> {
    match carrier.fields.config.get(key)? {
        Value::String(s) if !s.is_empty() => Some(std::borrow::Cow::Borrowed(s)),
        Value::Bool(b) => Some(std::borrow::Cow::Owned(b.to_string())),
        _ => None,
    }
}

/// `prefix` followed by `digits` random decimal digits.
pub(crate) fn random_number(prefix: &str, digits: usize) -> Result<String> {
    let mut bytes = vec![0u8; digits];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Error::Internal("no randomness available".into()))?;
    let digits: String = bytes.iter().map(|b| char::from(b'0' + b % 10)).collect();
    Ok(format!("{prefix}{digits}"))
}

/// Every adapter built into this binary.
pub fn registry() -> Vec<Box<dyn CarrierAdapter>> {
    vec![
        Box::new(sandbox::Sandbox),
        Box::new(manual::Manual),
        Box::new(postnord::PostNord),
        Box::new(dhl_express::DhlExpress),
        Box::new(ups::Ups),
        Box::new(dhl_parcel_de::DhlParcelDe),
    ]
}

/// The adapter for `slug`.
pub fn find(slug: &str) -> Option<Box<dyn CarrierAdapter>> {
    registry().into_iter().find(|a| a.info().slug == slug)
}

/// Writes each select field's value as its option writes it (`100x150` → `100X150`, `ZPL` →
/// `zpl`): options are matched ASCII case-insensitively, and the adapters read the
/// option's own spelling.
pub fn canonical_options(info: &CarrierInfo, config: &mut BTreeMap<String, Value>) {
    for field in info.fields.iter().filter(|f| f.kind == "select") {
        if let Some(Value::String(s)) = config.get_mut(field.key)
            && let Some(option) = field
                .options
                .iter()
                .find(|o| o.value.eq_ignore_ascii_case(s) || o.key.eq_ignore_ascii_case(s))
        {
            *s = option.value.to_string();
        }
    }
}

/// Checks a carrier's `config` against the adapter's fields: every key one of the fields (a
/// typo is refused with the closest key, not stored and ignored), every required key present
/// and non-empty, every known key a string (select fields: one of the options).
pub fn validate_config(
    info: &CarrierInfo,
    config: &BTreeMap<String, Value>,
    errors: &mut Violations,
) {
    for key in config.keys() {
        if info.fields.iter().any(|f| f.key == key) {
            continue;
        }
        let known = info.fields.iter().map(|f| f.key);
        let message = match crate::model::spelling::suggestion(key, known) {
            Some(close) => format!("unknown key; did you mean \"{close}\"?"),
            None if info.fields.is_empty() => {
                format!("unknown key; {} takes no settings", info.name)
            }
            None => {
                let keys: Vec<_> = info.fields.iter().map(|f| f.key).collect();
                format!("unknown key; {} takes {}", info.name, keys.join(", "))
            }
        };
        errors.add(format!("config.{key}"), message);
    }
    for field in &info.fields {
        let at = format!("config.{}", field.key);
        match config.get(field.key) {
            None | Some(Value::Null) if field.required => {
                errors.add(at, format!("is required by {}", info.name))
            }
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if field.required && s.is_empty() => {
                errors.add(at, "must not be empty")
            }
            Some(Value::String(s))
                if field.kind == "select" && !field.options.iter().any(|o| o.value == s) =>
            {
                let allowed: Vec<_> = field.options.iter().map(|o| o.value).collect();
                errors.add(at, format!("must be one of {}", allowed.join(", ")));
            }
            Some(Value::String(_)) => {}
            // A yes/no select may be given as a JSON boolean.
            Some(Value::Bool(b))
                if field.kind == "select"
                    && field.options.iter().any(|o| o.value == b.to_string()) => {}
            Some(_) => errors.add(at, "must be a string"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_unique_and_findable() {
        let slugs: Vec<_> = registry().iter().map(|a| a.info().slug).collect();
        assert_eq!(
            slugs,
            [
                "sandbox",
                "manual",
                "postnord",
                "dhl_express",
                "ups",
                "dhl_parcel_de"
            ]
        );
        assert!(find("sandbox").is_some());
        assert!(find("dhl").is_none());
    }

    #[test]
    fn sandbox_needs_no_configuration() {
        let mut errors = Violations::new();
        validate_config(
            &find("sandbox")
                .map(|a| a.info())
                .unwrap_or_else(|| panic!()),
            &BTreeMap::new(),
            &mut errors,
        );
        assert!(errors.finish().is_ok());
    }

    #[test]
    fn config_values_are_checked_against_the_fields() {
        let info = CarrierInfo {
            name: "Test",
            slug: "test",
            group: "test",
            description: "",
            fields: vec![
                CarrierField {
                    name: "Key",
                    key: "apiKey",
                    kind: "password",
                    description: "",
                    options: vec![],
                    required: true,
                },
                CarrierField {
                    name: "Mode",
                    key: "mode",
                    kind: "select",
                    description: "",
                    options: vec![CarrierFieldOption {
                        name: "Live",
                        key: "live",
                        value: "live",
                    }],
                    required: false,
                },
            ],
            products: vec![],
            services: vec![],
        };
        let mut errors = Violations::new();
        let config: BTreeMap<String, Value> =
            serde_json::from_str(r#"{"mode": "test", "extra": 1, "apiKye": "live"}"#)
                .unwrap_or_default();
        validate_config(&info, &config, &mut errors);
        match errors.finish() {
            Err(crate::error::Error::Validation(e)) => {
                let found: Vec<_> = e
                    .iter()
                    .map(|e| (e.field.as_str(), e.message.as_str()))
                    .collect();
                assert_eq!(
                    found,
                    [
                        ("config.apiKye", "unknown key; did you mean \"apiKey\"?"),
                        ("config.extra", "unknown key; Test takes apiKey, mode"),
                        ("config.apiKey", "is required by Test"),
                        ("config.mode", "must be one of live"),
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

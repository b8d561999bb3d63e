//! The REST API: one poem-openapi `OpenApi` per resource; handlers take the request apart, call
//! the service, and answer with the representation it returns. Summaries and scopes of the
//! documented operations come from the operations table (`openapi`).

use poem_openapi::Tags;

pub mod addresses;
pub mod api_tokens;
pub mod billing;
pub mod body;
pub mod branding;
pub mod carriers;
pub mod documents;
pub mod health;
pub mod idempotent;
pub mod manifests;
pub mod members;
pub mod notifications;
pub mod openapi;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod params;
pub mod pickups;
pub mod printers;
pub mod problem;
pub mod quotes;
pub mod rates;
pub mod raw;
pub mod returns_portal;
pub mod security;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
mod text_enums;
mod text_formats;
pub mod webhooks;

#[derive(Tags)]
pub enum ApiTags {
    /// Liveness and version.
    Health,
    /// Organizations (tenants) and their settings.
    Organizations,
    /// People of an organization, their roles, and the audit log of their changes.
    Members,
    /// Addresses shipments are sent from.
    SenderAddresses,
    /// Carriers and the carrier types this server offers.
    Carriers,
    /// Rules that choose carrier settings and quote prices.
    ShippingRules,
    /// Shipments, their parcels, labels and tracking.
    Shipments,
    /// Order channels, orders, and shipments for orders.
    Orders,
    /// API tokens of an organization.
    ApiTokens,
    /// Webhook endpoints, their secrets and delivery log.
    Webhooks,
    /// Network printers and their print jobs.
    Printers,
    /// Plan limits and usage.
    Billing,
}

/// Every API of the service, composed for `OpenApiService`.
pub fn all() -> impl poem_openapi::OpenApi {
    (
        health::HealthApi,
        (
            orgs::OrgsApi,
            branding::BrandingApi,
            members::MembersApi,
            notifications::NotificationsApi,
            returns_portal::ReturnsPortalApi,
        ),
        sender_addresses::SenderAddressesApi,
        carriers::CarriersApi,
        shipping_rules::ShippingRulesApi,
        shipments::ShipmentsApi,
        (
            shipments::ShipmentBookingApi,
            shipments::ShipmentStatusApi,
            shipments::ShipmentSplitApi,
            shipments::ShipmentReturnsApi,
            shipments::ShipmentTrackingApi,
        ),
        documents::DocumentsApi,
        (pickups::PickupsApi, manifests::ManifestsApi),
        (quotes::QuotesApi, rates::RatesApi, addresses::AddressesApi),
        order_channels::OrderChannelsApi,
        orders::OrdersApi,
        api_tokens::ApiTokensApi,
        webhooks::WebhooksApi,
        printers::PrintersApi,
        billing::BillingApi,
    )
}

/// 201 with the created resource.
#[derive(poem_openapi::ApiResponse)]
pub enum Created<T: poem_openapi::types::ToJSON> {
    /// Created.
    #[oai(status = 201)]
    Created(poem_openapi::payload::Json<T>),
}

impl<T: poem_openapi::types::ToJSON> Created<T> {
    pub fn new(value: impl Into<T>) -> Created<T> {
        Created::Created(poem_openapi::payload::Json(value.into()))
    }
}

/// 202 with what an action queued for a worker (a print job, a webhook delivery): it happens
/// after the answer.
#[derive(poem_openapi::ApiResponse)]
pub enum Accepted<T: poem_openapi::types::ToJSON> {
    /// Queued.
    #[oai(status = 202)]
    Accepted(poem_openapi::payload::Json<T>),
}

impl<T: poem_openapi::types::ToJSON> Accepted<T> {
    pub fn new(value: impl Into<T>) -> Accepted<T> {
        Accepted::Accepted(poem_openapi::payload::Json(value.into()))
    }
}

/// The `{"message": …}` body of DELETE answers.
#[derive(poem_openapi::Object)]
pub struct Message {
    pub message: String,
}

impl Message {
    pub fn new(message: impl Into<String>) -> poem_openapi::payload::Json<Message> {
        poem_openapi::payload::Json(Message {
            message: message.into(),
        })
    }
}

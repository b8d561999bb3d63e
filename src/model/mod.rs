//! Plain types and rules with no I/O: ids, time, scopes, organizations, validation, and the one
//! public representation of each resource (poem-openapi `Object`s, shared by REST, MCP, the CLI's
//! `--json` and webhook payloads; serde for the JSON columns and request bodies).

/// Address checks: postcode formats and a carrier's verdict.
pub mod address_check;
/// API tokens.
pub mod api_token;
/// Generated values of the models, for property tests.
#[cfg(test)]
pub mod arbitrary;
/// The audit log: who wrote what, when and from where.
pub mod audit;
/// Booking attempts: the claim a booking holds on its shipment, and its outcome.
pub mod booking;
/// An organization's branding: display name, color and logo (an SVG sanitized).
pub mod branding;
/// Carriers an organization configured.
pub mod carrier;
/// ISO 3166-1 country codes.
pub mod country;
/// Shipment documents (labels).
pub mod document;
/// Events written to the outbox.
pub mod event;
/// `<kind>_<ULID>` identifiers.
pub mod ids;
/// The languages customers are written to in.
pub mod locale;
/// Manifests: a carrier's end-of-day close.
pub mod manifest;
/// Members of an organization and their roles there.
pub mod member;
/// Networks as the configuration writes them (addresses and CIDR blocks).
pub mod net;
pub mod notification;
/// OAuth clients, agent connections and authorization codes.
pub mod oauth;
/// Orders.
pub mod order;
/// Order channels.
pub mod order_channel;
/// Organizations.
pub mod org;
/// Pages of a list and their envelope.
pub mod page;
/// A batch print request (documents of several shipments as one PDF).
pub mod pdf_merge;
/// Pickups: a carrier's driver collecting booked shipments.
pub mod pickup;
/// Postcode formats of the countries that have fixed ones.
pub mod postcode;
/// Network printers and print jobs.
pub mod printer;
/// Shipping quotes: the checkout's request and its rates.
pub mod quote;
/// Carrier rates: what the carriers would charge for a shipment.
pub mod rate;
/// The state or province a US or Canadian postcode names.
pub mod region;
pub mod returns_portal;
/// Roles in an organization and the scopes each caps a credential at.
pub mod role;
/// Scopes (`read:shipments`, `write:all`) and what they grant.
pub mod scope;
/// Sender addresses.
pub mod sender_address;
/// Shipments: parties, parcels, order lines, tracking.
pub mod shipment;
/// Shipping rules and their conditions.
pub mod shipping_rule;
/// Did-you-mean suggestions for names that are not known.
pub mod spelling;
/// Taking units out of a parcel: split and batch split math.
pub mod split;
/// Statuses of shipments, orders and tracking, and the shipment status machine.
pub mod status;
/// RFC 3339 timestamps with millisecond precision.
pub mod time;
/// The time zone of a place, for carriers that want local times.
pub mod timezone;
/// Plan counters.
pub mod usage;
/// Users.
pub mod user;
/// Field-level validation that collects every problem of a request.
pub mod validate;
/// Webhook endpoints and their delivery log.
pub mod webhook;
/// Answers written from stored JSON without a value tree.
pub mod wire;

/// An enum of fixed string values, the same in storage (serde), on the wire and in the OpenAPI
/// document (poem-openapi `Enum`), with `as_str`, `parse` and `ALL`.
#[macro_export]
macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, poem_openapi::Enum,
        )]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] #[oai(rename = $text)] $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            /// `a, b, c`: the values, for messages.
            pub fn names() -> String {
                [$($text),+].join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

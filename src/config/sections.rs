//! The sections of the configuration file, each with its built-in defaults.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Server {
    /// Address and port to listen on.
    pub listen: String,
    /// Public URL of this server (no trailing slash); empty means `http://<listen>`.
    pub base_url: String,
    /// Seconds in-flight requests get to finish after SIGINT/SIGTERM.
    pub shutdown_grace_seconds: u64,
    /// Browser origins, besides the base URL's, that may call `/mcp` (others get 403).
    pub allowed_origins: Vec<String>,
    /// Reverse proxies (addresses or CIDR blocks) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Storage {
    /// Directory holding shipbase.db (created when missing).
    pub data_dir: PathBuf,
    /// `postgres://user:pass@host:port/db`: PostgreSQL 13+ instead of the SQLite file in
    /// data_dir (DESIGN §18). Empty: SQLite.
    pub url: String,
    /// SQLite `synchronous`: "full" (the default: an acknowledged write is on disk) or "normal"
    /// (survives a process crash; the last commits may be lost on power loss).
    pub synchronous: String,
    /// Reader connections.
    pub read_connections: u32,
    /// Base64 of 32 bytes that encrypts secrets at rest; empty means the file secret.key in
    /// data_dir (made on first start).
    pub secret_key: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Log {
    /// trace, debug, info, warn or error (RUST_LOG overrides).
    pub level: String,
    /// "text" or "json".
    pub format: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest request body, counted while it streams (413 above it).
    pub max_body_bytes: u64,
    /// Sustained requests per second per credential; 0 turns rate limiting off.
    pub rate_per_second: u32,
    /// Requests a credential may burst above the sustained rate.
    pub burst: u32,
    /// Seconds a client has to send a request's headers (also how long an idle connection is
    /// kept open between requests).
    pub header_timeout_seconds: u64,
    /// Seconds a connection may carry no bytes while a request is under way (a body sent too
    /// slowly, an answer not read) before it is closed.
    pub idle_timeout_seconds: u64,
    /// Connections open at once, in all.
    pub max_connections: u32,
    /// Connections open at once from one client address.
    pub max_connections_per_ip: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Signup {
    /// When true anyone may call POST /orgs; otherwise only instance staff.
    pub open: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Webhooks {
    /// Allow webhook targets on loopback and private networks.
    pub allow_private_targets: bool,
    /// Multiplies the retry delays (tests use 0.001).
    pub retry_scale: f64,
    /// Deliveries in flight at once.
    pub max_concurrency: u32,
    /// Days after which delivered events and the delivery log are pruned.
    pub retention_days: u32,
}

/// E-mail to receivers. No `url`: no mail is sent, and messages are logged as
/// failed with the reason.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Smtp {
    /// `smtp://user:pass@host:port` (STARTTLS, required unless the server is on loopback or
    /// `allow_plain` is set) or `smtps://…` (TLS from the first byte); empty: no e-mail.
    pub url: String,
    /// The sender address, `noreply@shop.example` or `Shop <noreply@shop.example>`; the
    /// organization's name is shown as the sender's name.
    pub from: String,
    /// Accept a server that offers no STARTTLS on a non-loopback address (credentials and mail
    /// then cross the network in clear).
    pub allow_plain: bool,
    /// Multiplies the retry delays (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
    pub retry_scale: f64,
    /// How long one conversation with the server may take.
    pub timeout_seconds: u64,
    /// Messages sent at once.
    pub max_concurrency: u32,
}

impl Default for Smtp {
    fn default() -> Smtp {
        Smtp {
            url: String::new(),
            from: String::new(),
            allow_plain: false,
            retry_scale: 1.0,
            timeout_seconds: 30,
            max_concurrency: 4,
        }
    }
}

/// Network printers (DESIGN §17).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Printers {
    /// Allow printers on loopback addresses (tests; refused by default).
    pub allow_loopback: bool,
    /// Multiplies the retry delays of a print job (1 s, 5 s, 25 s).
    pub retry_scale: f64,
    /// How long a job waits for an IPP printer that answers busy before that counts as a
    /// failed attempt.
    pub busy_wait_seconds: u64,
    /// When not empty, printers must be on one of these networks (addresses or CIDR blocks).
    pub allowed_networks: Vec<String>,
}

impl Default for Printers {
    fn default() -> Printers {
        Printers {
            allow_loopback: false,
            retry_scale: 1.0,
            busy_wait_seconds: 120,
            allowed_networks: Vec::new(),
        }
    }
}

/// Real carriers' APIs (DESIGN §7; README "Carriers").
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Carriers {
    /// Base URL of PostNord's API instead of its sandbox or production host (tests, proxies).
    pub postnord_url: String,
    /// Base URL of DHL Express's MyDHL API instead of its test or production URL.
    pub dhl_express_url: String,
    /// Base URL of UPS's APIs (its `/security/…` and `/api/…` paths) instead of its CIE or
    /// production host.
    pub ups_url: String,
    /// Base URL of DHL Parcel Germany's APIs instead of its sandbox or production host.
    pub dhl_parcel_de_url: String,
    /// How long a carrier may take to answer one request.
    pub timeout_seconds: u64,
    /// How often the tracking of shipments in transit is fetched from their carriers (0: never).
    pub tracking_interval_seconds: u64,
    /// How long rates wait for the carriers asked in parallel; one that has not answered by
    /// then is reported as timed out.
    pub rates_timeout_ms: u64,
}

impl Default for Carriers {
    fn default() -> Carriers {
        Carriers {
            postnord_url: String::new(),
            dhl_express_url: String::new(),
            ups_url: String::new(),
            dhl_parcel_de_url: String::new(),
            timeout_seconds: 30,
            tracking_interval_seconds: 900,
            rates_timeout_ms: 2500,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OAuth {
    pub access_token_ttl_seconds: u64,
    pub refresh_token_ttl_days: u64,
    /// Dynamic client registrations per minute from one client address (429 above it).
    pub register_per_minute: u32,
    /// Registered clients that never completed a sign-in kept at most; the oldest go first.
    pub max_unused_clients: u32,
}

/// Sign-in throttling of the pages (DESIGN §19).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Login {
    /// Failed sign-ins per account per minute before further attempts get 429.
    pub failures_per_minute: u32,
    /// Failed sign-ins per client address per minute before further attempts get 429.
    pub failures_per_address_per_minute: u32,
}

impl Default for Login {
    fn default() -> Login {
        Login {
            failures_per_minute: 5,
            failures_per_address_per_minute: 20,
        }
    }
}

/// Limits of one plan; 0 means unlimited.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Plan {
    pub team_members: u64,
    pub carriers: u64,
    pub order_channels: u64,
    pub shipping_rules: u64,
    pub sender_addresses: u64,
    pub api_tokens: u64,
    /// Shipments included per calendar month (UTC).
    pub shipments: u64,
    /// Charge per shipment beyond `shipments` when the org enables overage.
    pub overage_price: f64,
    /// What the plan adds on top of its limits, each raising one limit by `quantity`.
    pub add_ons: Vec<AddOn>,
}

/// An add-on of a plan: `extra_team_member`, `extra_carrier`, `extra_order_channel`,
/// `extra_shipping_rule`, `extra_sender_address`, `extra_api_token` or `extra_shipments`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct AddOn {
    #[serde(rename = "type")]
    pub kind: String,
    pub quantity: u64,
    pub unit_price: f64,
}

impl Plan {
    /// What the plan allows of `limit`, add-ons included; 0 means unlimited.
    pub fn limit(&self, limit: crate::model::usage::Limit) -> u64 {
        use crate::model::usage::Limit;
        let base = match limit {
            Limit::TeamMembers => self.team_members,
            Limit::Carriers => self.carriers,
            Limit::OrderChannels => self.order_channels,
            Limit::ShippingRules => self.shipping_rules,
            Limit::SenderAddresses => self.sender_addresses,
            Limit::ApiTokens => self.api_tokens,
            Limit::Shipments => self.shipments,
        };
        if base == 0 {
            return 0;
        }
        let extra: u64 = self
            .add_ons
            .iter()
            .filter(|a| a.kind == limit.add_on())
            .map(|a| a.quantity)
            .sum();
        base + extra
    }
}

impl Default for Server {
    fn default() -> Server {
        Server {
            listen: "127.0.0.1:8080".into(),
            base_url: String::new(),
            shutdown_grace_seconds: 10,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
        }
    }
}

impl Default for Storage {
    fn default() -> Storage {
        Storage {
            data_dir: PathBuf::from("./data"),
            url: String::new(),
            synchronous: "full".into(),
            read_connections: 4,
            secret_key: String::new(),
        }
    }
}

impl Default for Log {
    fn default() -> Log {
        Log {
            level: "info".into(),
            format: "text".into(),
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 1024 * 1024,
            rate_per_second: 100,
            burst: 200,
            header_timeout_seconds: 10,
            idle_timeout_seconds: 60,
            max_connections: 4096,
            max_connections_per_ip: 256,
        }
    }
}

impl Default for Webhooks {
    fn default() -> Webhooks {
        Webhooks {
            allow_private_targets: false,
            retry_scale: 1.0,
            max_concurrency: 16,
            retention_days: 30,
        }
    }
}

impl Default for OAuth {
    fn default() -> OAuth {
        OAuth {
            access_token_ttl_seconds: 3600,
            refresh_token_ttl_days: 30,
            register_per_minute: 20,
            max_unused_clients: 1000,
        }
    }
}

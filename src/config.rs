//! Configuration: built-in defaults → TOML file → `SHIPBASE_<SECTION>__<KEY>` environment
//! variables → command-line flags, each overriding the one before. `validate` checks every key
//! without opening a port or a file.

use std::{collections::BTreeMap, net::SocketAddr, path::PathBuf};

use serde::{Deserialize, Serialize};

/// The documented example, compiled in: `shipbase config example` prints it.
pub const EXAMPLE: &str = include_str!("../config.example.toml");

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: Server,
    pub storage: Storage,
    pub log: Log,
    pub limits: Limits,
    pub signup: Signup,
    pub webhooks: Webhooks,
    pub printers: Printers,
    pub carriers: Carriers,
    pub oauth: OAuth,
    pub plans: BTreeMap<String, Plan>,
}

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
    pub max_body_bytes: u64,
    /// Sustained requests per second per credential; 0 turns rate limiting off.
    pub rate_per_second: u32,
    /// Requests a credential may burst above the sustained rate.
    pub burst: u32,
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

/// Network printers (DESIGN §17).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Printers {
    /// Allow printers on loopback addresses (tests; refused by default).
    pub allow_loopback: bool,
    /// Multiplies the retry delays of a print job (1 s, 5 s, 25 s).
    pub retry_scale: f64,
}

impl Default for Printers {
    fn default() -> Printers {
        Printers {
            allow_loopback: false,
            retry_scale: 1.0,
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
    /// How long a carrier may take to answer one request.
    pub timeout_seconds: u64,
    /// How often the tracking of shipments in transit is fetched from their carriers (0: never).
    pub tracking_interval_seconds: u64,
}

impl Default for Carriers {
    fn default() -> Carriers {
        Carriers {
            postnord_url: String::new(),
            dhl_express_url: String::new(),
            timeout_seconds: 30,
            tracking_interval_seconds: 900,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OAuth {
    pub access_token_ttl_seconds: u64,
    pub refresh_token_ttl_days: u64,
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

impl Default for Config {
    fn default() -> Config {
        Config {
            server: Server::default(),
            storage: Storage::default(),
            log: Log::default(),
            limits: Limits::default(),
            signup: Signup::default(),
            webhooks: Webhooks::default(),
            printers: Printers::default(),
            carriers: Carriers::default(),
            oauth: OAuth::default(),
            plans: BTreeMap::from([(String::from("default"), Plan::default())]),
        }
    }
}

impl Default for Server {
    fn default() -> Server {
        Server {
            listen: "127.0.0.1:8080".into(),
            base_url: String::new(),
            shutdown_grace_seconds: 10,
            allowed_origins: Vec::new(),
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
        }
    }
}

/// Flags that override the file and the environment.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub listen: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    pub base_url: Option<String>,
}

impl Config {
    /// Loads the configuration: defaults, then `file` (if any), then `env`, then `overrides`,
    /// and validates the result. Errors are one line, naming the file or key at fault.
    pub fn load(
        file: Option<&std::path::Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Config, String> {
        let mut tree = toml::Table::try_from(Config::default()).map_err(|e| e.to_string())?;
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read config file {}: {e}", path.display()))?;
            let table: toml::Table = toml::from_str(&text)
                .map_err(|e| format!("config file {}: {}", path.display(), one_line(&e)))?;
            merge(&mut tree, table);
        }
        for (key, value) in env {
            let Some(rest) = key.strip_prefix("SHIPBASE_") else {
                continue;
            };
            if !rest.contains("__") {
                continue; // SHIPBASE_CONFIG and friends are not keys
            }
            let path: Vec<String> = rest.split("__").map(str::to_lowercase).collect();
            set_path(&mut tree, &path, env_value(&value));
        }
        let source = file.map_or_else(
            || "configuration".to_string(),
            |p| format!("config {}", p.display()),
        );
        let mut config: Config = toml::Value::Table(tree)
            .try_into()
            .map_err(|e: toml::de::Error| format!("{source}: {}", one_line(&e)))?;
        if let Some(listen) = &overrides.listen {
            config.server.listen.clone_from(listen);
        }
        if let Some(dir) = &overrides.data_dir {
            config.storage.data_dir.clone_from(dir);
        }
        if let Some(url) = &overrides.database_url {
            config.storage.url.clone_from(url);
        }
        if let Some(url) = &overrides.base_url {
            config.server.base_url.clone_from(url);
        }
        config.validate()?;
        Ok(config)
    }

    /// Checks every value; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        self.server.listen.parse::<SocketAddr>().map_err(|_| {
            format!(
                "server.listen: {:?} is not an address like 127.0.0.1:8080",
                self.server.listen
            )
        })?;
        if !self.server.base_url.is_empty() {
            let url = &self.server.base_url;
            let rest = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"));
            if rest.is_none_or(|host| host.is_empty() || host.contains(char::is_whitespace)) {
                return Err(format!("server.base_url: {url:?} is not an http(s) URL"));
            }
        }
        for origin in &self.server.allowed_origins {
            let ok = url::Url::parse(origin).is_ok_and(|u| {
                matches!(u.scheme(), "http" | "https")
                    && u.host().is_some()
                    && u.path() == "/"
                    && !origin.ends_with('/')
            });
            if !ok {
                return Err(format!(
                    "server.allowed_origins: {origin:?} is not an origin like https://app.example.com"
                ));
            }
        }
        if self.storage.data_dir.as_os_str().is_empty() {
            return Err("storage.data_dir: must not be empty".into());
        }
        if !["off", "normal", "full"].contains(&self.storage.synchronous.as_str()) {
            return Err(format!(
                "storage.synchronous: {:?} is not off, normal or full",
                self.storage.synchronous
            ));
        }
        if !self.storage.url.is_empty()
            && !self.storage.url.starts_with("postgres://")
            && !self.storage.url.starts_with("postgresql://")
        {
            return Err("storage.url: must start with postgres:// (or be empty for SQLite)".into());
        }
        if self.storage.read_connections == 0 {
            return Err("storage.read_connections: must be at least 1".into());
        }
        if !["trace", "debug", "info", "warn", "error"].contains(&self.log.level.as_str()) {
            return Err(format!(
                "log.level: {:?} is not trace, debug, info, warn or error",
                self.log.level
            ));
        }
        if !["text", "json"].contains(&self.log.format.as_str()) {
            return Err(format!(
                "log.format: {:?} is not text or json",
                self.log.format
            ));
        }
        if self.limits.max_body_bytes == 0 {
            return Err("limits.max_body_bytes: must be at least 1".into());
        }
        if !(self.webhooks.retry_scale.is_finite() && self.webhooks.retry_scale > 0.0) {
            return Err("webhooks.retry_scale: must be a positive number".into());
        }
        if !(self.printers.retry_scale.is_finite() && self.printers.retry_scale >= 0.0) {
            return Err("printers.retry_scale: must be a number of at least 0".into());
        }
        if self.carriers.timeout_seconds == 0 {
            return Err("carriers.timeout_seconds: must be at least 1".into());
        }
        for (key, url) in [
            ("postnord_url", &self.carriers.postnord_url),
            ("dhl_express_url", &self.carriers.dhl_express_url),
        ] {
            if !url.is_empty() && url::Url::parse(url).is_err() {
                return Err(format!("carriers.{key}: {url:?} is not a URL"));
            }
        }
        if self.webhooks.max_concurrency == 0 {
            return Err("webhooks.max_concurrency: must be at least 1".into());
        }
        if self.webhooks.retention_days == 0 {
            return Err("webhooks.retention_days: must be at least 1".into());
        }
        if self.oauth.access_token_ttl_seconds == 0 || self.oauth.refresh_token_ttl_days == 0 {
            return Err("oauth: token lifetimes must be at least 1".into());
        }
        if !self.plans.contains_key("default") {
            return Err("plans.default: a plan named default is required".into());
        }
        for (name, plan) in &self.plans {
            if !(plan.overage_price.is_finite() && plan.overage_price >= 0.0) {
                return Err(format!(
                    "plans.{name}.overage_price: must be a number of at least 0"
                ));
            }
            let kinds: Vec<&str> = crate::model::usage::Limit::ALL
                .iter()
                .map(|l| l.add_on())
                .collect();
            for add_on in &plan.add_ons {
                if !kinds.contains(&add_on.kind.as_str()) {
                    return Err(format!(
                        "plans.{name}.add_ons: type {:?} is not one of {}",
                        add_on.kind,
                        kinds.join(", ")
                    ));
                }
                if !(add_on.unit_price.is_finite() && add_on.unit_price >= 0.0) {
                    return Err(format!(
                        "plans.{name}.add_ons: unit_price must be a number of at least 0"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The public URL without a trailing slash.
    pub fn base_url(&self) -> String {
        if self.server.base_url.is_empty() {
            format!("http://{}", self.server.listen)
        } else {
            self.server.base_url.trim_end_matches('/').to_string()
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.storage.data_dir.join("shipbase.db")
    }

    /// The PostgreSQL URL, when the installation runs on PostgreSQL.
    pub fn database_url(&self) -> Option<&str> {
        Some(self.storage.url.as_str()).filter(|u| !u.is_empty())
    }
}

fn one_line(err: &impl std::fmt::Display) -> String {
    err.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

fn set_path(tree: &mut toml::Table, path: &[String], value: toml::Value) {
    match path {
        [] => {}
        [last] => {
            tree.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            let entry = tree
                .entry(first.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if !entry.is_table() {
                *entry = toml::Value::Table(toml::Table::new());
            }
            if let toml::Value::Table(inner) = entry {
                set_path(inner, rest, value);
            }
        }
    }
}

/// An environment value is read as a TOML value when it is one (`true`, `42`, `0.5`),
/// otherwise as a string.
fn env_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .filter(|v| !v.is_table())
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_example_file_is_the_defaults() {
        let parsed: Config =
            toml::from_str(EXAMPLE).unwrap_or_else(|e| panic!("example does not parse: {e}"));
        assert_eq!(parsed, Config::default());
    }

    #[test]
    fn file_then_env_then_flags() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "[server]\nlisten = \"127.0.0.1:9000\"\n[signup]\nopen = true\n[plans.tiny]\ncarriers = 2\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let config = Config::load(
            Some(&file),
            env(&[
                ("SHIPBASE_LIMITS__BURST", "7"),
                ("SHIPBASE_SERVER__LISTEN", "127.0.0.1:9001"),
                ("SHIPBASE_CONFIG", "x"),
            ]),
            &Overrides {
                data_dir: Some("/tmp/x".into()),
                ..Overrides::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.server.listen, "127.0.0.1:9001");
        assert!(config.signup.open);
        assert_eq!(config.limits.burst, 7);
        assert_eq!(config.storage.data_dir, PathBuf::from("/tmp/x"));
        assert_eq!(config.plans["tiny"].carriers, 2);
        assert!(
            config.plans.contains_key("default"),
            "defaults survive a file that adds plans"
        );
        let flagged = Config::load(
            None,
            env(&[]),
            &Overrides {
                listen: Some("127.0.0.1:1".into()),
                ..Overrides::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(flagged.server.listen, "127.0.0.1:1");
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases = [
            ("SHIPBASE_SERVER__LISTEN", "nowhere", "server.listen"),
            (
                "SHIPBASE_STORAGE__SYNCHRONOUS",
                "sometimes",
                "storage.synchronous",
            ),
            (
                "SHIPBASE_LIMITS__MAX_BODY_BYTES",
                "0",
                "limits.max_body_bytes",
            ),
            ("SHIPBASE_LOG__LEVEL", "loud", "log.level"),
            ("SHIPBASE_SERVER__BASE_URL", "ftp://x", "server.base_url"),
        ];
        for (key, value, named) in cases {
            let err = Config::load(None, env(&[(key, value)]), &Overrides::default())
                .err()
                .unwrap_or_default();
            assert!(err.contains(named), "{key}={value}: {err}");
        }
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("c.toml");
        std::fs::write(&file, "[server]\nlisen = \"127.0.0.1:9000\"\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let err = Config::load(Some(&file), env(&[]), &Overrides::default())
            .err()
            .unwrap_or_default();
        assert!(err.contains("lisen"), "{err}");
        std::fs::write(&file, "[limits]\nburst = \"many\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(Config::load(Some(&file), env(&[]), &Overrides::default()).is_err());
        assert!(!err.contains('\n'));
    }

    #[test]
    fn base_url_defaults_to_the_listen_address_and_loses_its_slash() {
        let mut config = Config::default();
        assert_eq!(config.base_url(), "http://127.0.0.1:8080");
        config.server.base_url = "https://ship.example.com/".into();
        assert_eq!(config.base_url(), "https://ship.example.com");
    }
}

//! The operations of Shipbase, one module per resource. Every function takes an `Actor` and does
//! the organization and scope checks, validation and writes; REST, MCP and the CLI all call here.

use std::{ops::Deref, sync::Arc};

use crate::{
    config::Config,
    error::{Error, Result},
    model::{
        time::{self, Clock},
        validate::Violations,
    },
    outbound::sender::Sender,
    service::{
        access::{grant, rate_limit},
        input::{idempotency, strict},
    },
    store::{self, Db, PageQuery},
    vault::Vault,
};

pub mod access;
pub mod api_tokens;
pub mod audit;
pub mod billing;
pub mod carriers;
pub mod documents;
mod emit;
pub mod housekeeping;
pub mod input;
pub mod jobs;
pub mod members;
pub mod oauth;
pub mod operations;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod printers;
pub mod printing;
pub mod quotes;
pub mod seed;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
pub mod users;
pub mod webhooks;

pub use access::actor::Actor;

/// Everything an operation needs: the database, the configuration, the clock, the vault for
/// stored secrets and the webhook sender.
#[derive(Clone)]
pub struct Ctx(Arc<Inner>);

pub struct Inner {
    pub db: Db,
    pub config: Config,
    pub clock: Clock,
    pub rate: rate_limit::RateLimiter,
    /// Dynamic OAuth client registrations per client address.
    pub registrations: rate_limit::PerMinute,
    pub vault: Vault,
    pub sender: Sender,
    /// The access-token signing key, loaded on first use (`oauth::keys`).
    pub keys: tokio::sync::OnceCell<Arc<oauth::keys::Keys>>,
    /// Access tokens whose signature was checked.
    pub verified: oauth::access::Verified,
    /// OAuth clients' metadata documents, for as long as they may be kept.
    pub documents: oauth::documents::Cache,
    /// Wakes the print worker when booking queued jobs.
    pub printing: printing::Queue,
    /// The carrier adapters' HTTP client and API locations.
    pub carriers: crate::carriers::Env,
    /// Permits to run Argon2 (a few at once, so that a burst of sign-ins cannot take every
    /// thread of the blocking pool and all its memory).
    pub passwords: tokio::sync::Semaphore,
}

impl Deref for Ctx {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl Ctx {
    /// Creates the data directory when missing and opens (and migrates) the database.
    pub fn open(config: Config) -> Result<Ctx> {
        Ctx::open_with_clock(config, Clock::System)
    }

    /// `open`, with "now" from `clock` (tests set the time).
    pub fn open_with_clock(config: Config, clock: Clock) -> Result<Ctx> {
        let dir = &config.storage.data_dir;
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Internal(format!(
                "cannot create data directory {}: {e}",
                dir.display()
            ))
        })?;
        let db = Db::open(store::Options {
            path: &config.database_path(),
            url: config.database_url(),
            synchronous: &config.storage.synchronous,
            read_connections: config.storage.read_connections,
            plans: store::plans(&config.plans),
            before_commit: Arc::new(orders::settle_touched),
        })?;
        let rate = rate_limit::RateLimiter::new(config.limits.rate_per_second, config.limits.burst);
        let registrations = rate_limit::PerMinute::new(config.oauth.register_per_minute);
        let vault = Vault::open(&config.storage.secret_key, &config.storage.data_dir)?;
        let sender = Sender::new(config.webhooks.allow_private_targets)?;
        let carriers = crate::carriers::Env::new(&config.carriers, clock.clone());
        Ok(Ctx(Arc::new(Inner {
            db,
            config,
            clock,
            rate,
            registrations,
            vault,
            sender,
            keys: tokio::sync::OnceCell::new(),
            verified: oauth::access::Verified::default(),
            documents: oauth::documents::Cache::default(),
            printing: printing::Queue::default(),
            carriers,
            passwords: tokio::sync::Semaphore::new(password_permits()),
        })))
    }

    /// The current time as stored and shown.
    pub fn now(&self) -> String {
        time::format(self.clock.now())
    }

    /// The write that carries out an operation `grant` allows: runs `f` as one unit of work and
    /// records the audit entry in the same transaction.
    pub(crate) async fn write<T, F>(&self, grant: impl Into<grant::Grant>, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&store::Tx) -> Result<T> + Send + 'static,
    {
        let grant: grant::Grant = grant.into();
        let now = self.now();
        self.db
            .write(move |tx| {
                let value = f(tx)?;
                grant.record(tx, &now)?;
                Ok(value)
            })
            .await
    }

    /// The write that completes an operation: `write`, and, when the request holds an
    /// idempotency key, `f`'s answer (with the operation's status) stored in the same
    /// transaction.
    pub(crate) async fn commit<T, F>(&self, grant: impl Into<grant::Grant>, f: F) -> Result<T>
    where
        T: poem_openapi::types::ToJSON + Send + 'static,
        F: FnOnce(&store::Tx) -> Result<T> + Send + 'static,
    {
        let grant: grant::Grant = grant.into();
        let slot = idempotency::current();
        let vault = self.vault.clone();
        let status = grant.operation.status();
        self.write(grant, move |tx| {
            let value = f(tx)?;
            if let Some(slot) = &slot {
                let json = value.to_json().unwrap_or_default();
                idempotency::complete_in(tx, &vault, slot, status, &json)?;
            }
            Ok(value)
        })
        .await
    }
}

/// Argon2 checks at once: one per core, at least 1 and at most 4.
fn password_permits() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

/// A request body decoded at the edge (REST or MCP). A decoding error is held, not returned, so
/// that the operation reports it only after authentication, organization and scope checks:
/// a caller without rights learns 404/403, never details of the body.
pub struct Input<T>(Result<T>);

impl<T> Input<T> {
    pub fn new(decoded: Result<T>) -> Input<T> {
        Input(decoded)
    }

    pub fn ok(value: T) -> Input<T> {
        Input(Ok(value))
    }

    pub fn get(self) -> Result<T> {
        self.0
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Input<U> {
        Input(self.0.map(f))
    }
}

/// Decodes a JSON body (REST) or argument object (MCP) into `T`. Text that is not JSON is
/// `InvalidJson`; JSON of the wrong shape is `Validation` naming every field at fault
/// (DESIGN §5, §16).
pub fn decode_json<T>(bytes: &[u8]) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| Error::InvalidJson(e.to_string()))?;
    decode_value(value)
}

/// Decodes an already parsed JSON value into `T`; see `decode_json`. The value is checked
/// against `T`'s schema first (unknown, missing and mistyped fields, all at once).
pub fn decode_value<T>(value: serde_json::Value) -> Result<T>
where
    T: serde::de::DeserializeOwned + poem_openapi::types::Type + 'static,
{
    if !value.is_object() {
        return Err(Error::invalid("body", "must be a JSON object"));
    }
    let violations = strict::violations::<T>(&value);
    if !violations.is_empty() {
        return Err(Error::Validation(violations));
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let message = err.into_inner().to_string();
        let join = |name: &str| {
            if path == "." {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        match message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split_once('`'))
        {
            Some((name, _)) => Error::invalid(join(name), "is required"),
            None => Error::invalid(
                if path == "." {
                    "body".to_string()
                } else {
                    path
                },
                plain(&message),
            ),
        }
    })
}

/// serde's message for a value outside an enum, in the words of the rest of the API.
fn plain(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown variant `") else {
        return message.to_string();
    };
    let allowed = rest
        .split_once("expected ")
        .map(|(_, list)| list.trim_start_matches("one of ").replace(" or ", ", "))
        .unwrap_or_default()
        .replace('`', "");
    format!("must be one of {allowed}")
}

/// `page` and `limit` as the client sent them: parsed by the operation after its authorization
/// checks, so that a caller without rights learns 404/403, never details of the query.
#[derive(Clone, Debug, Default)]
pub struct PageParams {
    pub page: Option<String>,
    pub limit: Option<String>,
}

impl PageParams {
    /// Checks `page` ≥ 1 and `limit` in 1..=100 (DESIGN §6); defaults 1 and 20.
    pub fn parse(&self, errors: &mut Violations) -> PageQuery {
        let mut number =
            |field: &str, text: &Option<String>, default: u32, max: u32, message: &str| match text
                .as_deref()
                .map(str::trim)
            {
                None => default,
                Some(text) => match text.parse::<u32>() {
                    Ok(n) if (1..=max).contains(&n) => n,
                    _ => {
                        errors.add(field, message);
                        default
                    }
                },
            };
        let page = number(
            "page",
            &self.page,
            1,
            u32::MAX,
            "must be an integer of at least 1",
        );
        let limit = number(
            "limit",
            &self.limit,
            20,
            100,
            "must be an integer between 1 and 100",
        );
        PageQuery { page, limit }
    }
}

/// `PageParams::parse` for a list with no other parameters.
pub fn page_query(params: &PageParams) -> Result<PageQuery> {
    let mut errors = Violations::new();
    let page = params.parse(&mut errors);
    errors.finish()?;
    Ok(page)
}

/// An optional RFC 3339 query parameter, in the stored form.
pub fn instant_param(
    errors: &mut Violations,
    field: &str,
    value: Option<String>,
) -> Option<String> {
    let text = value?;
    match time::parse(&text) {
        Some(t) => Some(time::format(t)),
        None => {
            errors.add(
                field,
                "must be an RFC 3339 timestamp such as 2026-11-22T10:15:30Z",
            );
            None
        }
    }
}

/// An optional query parameter naming one value of `E` (`status=pending`).
pub fn enum_param<E: Copy>(
    errors: &mut Violations,
    field: &str,
    value: Option<String>,
    parse: fn(&str) -> Option<E>,
    names: fn() -> String,
) -> Option<E> {
    let text = value?;
    let parsed = parse(&text);
    if parsed.is_none() {
        errors.add(field, format!("must be one of {}", names()));
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        page: Option<&str>,
        limit: Option<&str>,
    ) -> std::result::Result<PageQuery, Vec<String>> {
        let params = PageParams {
            page: page.map(Into::into),
            limit: limit.map(Into::into),
        };
        page_query(&params).map_err(|e| match e {
            Error::Validation(errors) => errors
                .into_iter()
                .map(|e| format!("{}: {}", e.field, e.message))
                .collect(),
            other => vec![other.to_string()],
        })
    }

    #[test]
    fn a_value_outside_an_enum_reads_like_our_own_messages() {
        #[derive(Debug, serde::Deserialize, poem_openapi::Object)]
        #[allow(dead_code)]
        struct Body {
            status: crate::model::status::OrderStatus,
        }
        match decode_json::<Body>(br#"{"status": "lost"}"#) {
            Err(Error::Validation(errors)) => {
                assert_eq!(errors[0].field, "status");
                assert_eq!(
                    errors[0].message,
                    "must be one of pending, processing, partially_fulfilled, fulfilled, error, cancelled"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pages_default_to_one_and_twenty() {
        assert_eq!(parse(None, None), Ok(PageQuery { page: 1, limit: 20 }));
        assert_eq!(
            parse(Some("3"), Some("100")),
            Ok(PageQuery {
                page: 3,
                limit: 100
            })
        );
    }

    #[test]
    fn bad_pages_and_limits_are_named_in_plain_words() {
        for (page, limit, expected) in [
            (Some("0"), None, "page: must be an integer of at least 1"),
            (Some("abc"), None, "page: must be an integer of at least 1"),
            (
                None,
                Some("0"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("101"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("1.5"),
                "limit: must be an integer between 1 and 100",
            ),
            (
                None,
                Some("-1"),
                "limit: must be an integer between 1 and 100",
            ),
        ] {
            assert_eq!(parse(page, limit), Err(vec![expected.to_string()]));
        }
        assert_eq!(parse(Some("x"), Some("x")).map_err(|e| e.len()), Err(2));
    }
}

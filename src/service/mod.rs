//! The operations of Shipbase, one module per resource. Every function takes an `Actor` and does
//! the organization and scope checks, validation and writes; REST, MCP and the CLI all call here.

use std::{ops::Deref, sync::Arc};

use crate::{
    config::Config,
    error::{Error, Result},
    model::time::{self, Clock},
    store::{Db, PageQuery},
};

pub mod actor;
pub mod api_tokens;
pub mod auth;
pub mod carriers;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod quotes;
pub mod rate_limit;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
pub mod users;

pub use actor::Actor;

/// Everything an operation needs: the database, the configuration and the clock.
#[derive(Clone)]
pub struct Ctx(Arc<Inner>);

pub struct Inner {
    pub db: Db,
    pub config: Config,
    pub clock: Clock,
    pub rate: rate_limit::RateLimiter,
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
        let dir = &config.storage.data_dir;
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Internal(format!(
                "cannot create data directory {}: {e}",
                dir.display()
            ))
        })?;
        let db = Db::open(
            &config.database_path(),
            &config.storage.synchronous,
            config.storage.read_connections,
        )?;
        let rate = rate_limit::RateLimiter::new(config.limits.rate_per_second, config.limits.burst);
        Ok(Ctx(Arc::new(Inner {
            db,
            config,
            clock: Clock::System,
            rate,
        })))
    }

    /// The current time as stored and shown.
    pub fn now(&self) -> String {
        time::format(self.clock.now())
    }
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
/// `InvalidJson`; JSON of the wrong shape is `Validation` naming the field (DESIGN §16).
pub fn decode_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| Error::InvalidJson(e.to_string()))?;
    decode_value(value)
}

/// Decodes an already parsed JSON value into `T`; see `decode_json`.
pub fn decode_value<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    if !value.is_object() {
        return Err(Error::invalid("body", "must be a JSON object"));
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
                message,
            ),
        }
    })
}

/// Checks `page` ≥ 1 and `limit` in 1..=100 (DESIGN §6); defaults 1 and 20.
pub fn page_query(page: Option<i64>, limit: Option<i64>) -> Result<PageQuery> {
    let mut errors = crate::model::validate::Violations::new();
    let page = page.unwrap_or(1);
    let limit = limit.unwrap_or(20);
    if page < 1 || page > i64::from(u32::MAX) {
        errors.add("page", "must be an integer of at least 1");
    }
    if !(1..=100).contains(&limit) {
        errors.add("limit", "must be an integer from 1 to 100");
    }
    errors.finish()?;
    Ok(PageQuery {
        page: page as u32,
        limit: limit as u32,
    })
}

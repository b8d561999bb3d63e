//! The operations of Shipbase, one module per resource. Every function takes an `Actor` and does
//! the organization and scope checks, validation and writes; REST, MCP and the CLI all call here.
//! Beside the resources: `access` (who may do what), `input` (what a request brings) and `jobs`
//! (the loops beside the server). This root composes them: `Ctx`, the state every operation
//! works with (the database, configuration, clock, vault, limits, and the caches and queues of
//! OAuth, printing and carriers), and the writes that carry an operation out.

use std::{ops::Deref, sync::Arc};

use crate::{
    config::Config,
    error::{Error, Result},
    model::time::{self, Clock},
    outbound::sender::Sender,
    service::{
        access::{grant, rate_limit},
        input::idempotency,
    },
    store::{self, Db},
    vault::Vault,
};

pub mod access;
pub mod addresses;
pub mod api_tokens;
pub mod audit;
pub mod billing;
pub mod branding;
pub mod carriers;
pub mod documents;
mod emit;
pub mod housekeeping;
pub mod input;
pub mod jobs;
pub mod live;
pub mod lookup;
pub mod mail;
pub mod manifests;
pub mod members;
pub mod notifications;
pub mod oauth;
pub mod operations;
pub mod order_channels;
pub mod orders;
pub mod orgs;
pub mod pickups;
pub mod printers;
pub mod printing;
pub mod quotes;
pub mod returns_portal;
pub mod seed;
pub mod sender_addresses;
pub mod shipments;
pub mod shipping_rules;
pub mod tracking_page;
pub mod users;
pub mod webhooks;

pub use access::actor::Actor;
pub use input::{
    decode::{Input, decode_json, decode_value, input_json, input_value},
    params::{PageParams, enum_param, instant_param, page_query},
};

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
    /// API tokens read for authentication, while the credential generation stands.
    pub known_tokens: access::known_tokens::KnownTokens,
    /// Sender addresses new shipments were last built from.
    pub senders: shipments::Senders,
    /// OAuth clients' metadata documents, for as long as they may be kept.
    pub documents: oauth::documents::Cache,
    /// Wakes the print worker when booking queued jobs.
    pub printing: printing::Queue,
    /// The carrier adapters' HTTP client and API locations.
    pub carriers: crate::carriers::Env,
    /// The mail server receivers' e-mail goes through, when configured.
    pub mailer: mail::Mailer,
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
        let hello = url::Url::parse(&config.base_url())
            .ok()
            .and_then(|url| url.host_str().map(str::to_string))
            .unwrap_or_else(|| "localhost".into());
        let mailer = mail::Mailer::new(&config.smtp, &hello)?;
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
            known_tokens: access::known_tokens::KnownTokens::default(),
            senders: shipments::Senders::default(),
            documents: oauth::documents::Cache::default(),
            printing: printing::Queue::default(),
            carriers,
            mailer,
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
        self.commit_as(grant, f, |value: &T| value.to_json().unwrap_or_default())
            .await
    }

    /// `commit` of a value whose answer `answer` makes (for the idempotency record).
    pub(crate) async fn commit_as<T, F, A>(
        &self,
        grant: impl Into<grant::Grant>,
        f: F,
        answer: A,
    ) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&store::Tx) -> Result<T> + Send + 'static,
        A: FnOnce(&T) -> serde_json::Value + Send + 'static,
    {
        let end = self.completion(grant);
        self.db
            .write(move |tx| {
                let value = f(tx)?;
                end.complete(tx, || answer(&value))?;
                Ok(value)
            })
            .await
    }

    /// `commit_as` of work that may run again on the same state to the same effect, which the
    /// writer runs on its cheaper path (`Db::write_again`).
    pub(crate) async fn commit_again_as<T, F, A>(
        &self,
        grant: impl Into<grant::Grant>,
        f: F,
        answer: A,
    ) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&store::Tx) -> Result<T> + Send + 'static,
        A: Fn(&T) -> serde_json::Value + Send + 'static,
    {
        let end = self.completion(grant);
        self.db
            .write_again(move |tx| {
                let value = f(tx)?;
                end.complete(tx, || answer(&value))?;
                Ok(value)
            })
            .await
    }

    /// What every commit writes after its work, for `grant` and the request's idempotency key.
    fn completion(&self, grant: impl Into<grant::Grant>) -> Completion {
        let grant: grant::Grant = grant.into();
        let status = grant.operation.status();
        Completion {
            grant,
            now: self.now(),
            slot: idempotency::current(),
            vault: self.vault.clone(),
            status,
        }
    }
}

/// The end of a commit's unit of work: the answer stored for the request's idempotency key (when
/// it has one), then the audit entry.
struct Completion {
    grant: grant::Grant,
    now: String,
    slot: Option<std::sync::Arc<idempotency::Slot>>,
    vault: Vault,
    status: u16,
}

impl Completion {
    fn complete(&self, tx: &store::Tx, answer: impl FnOnce() -> serde_json::Value) -> Result<()> {
        if let Some(slot) = &self.slot {
            idempotency::complete_in(tx, &self.vault, slot, self.status, &answer())?;
        }
        self.grant.record(tx, &self.now)
    }
}

/// Argon2 checks at once: one per core, at least 1 and at most 4.
fn password_permits() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

//! Idempotency keys (DESIGN §15), for REST's `Idempotency-Key` header and MCP's `idempotencyKey`
//! argument alike. A request with a key first `begin`s: the key is reserved for its credential,
//! or the stored answer is replayed, or it is refused (409) because the same key came with
//! another request or is still running. The operation then runs with the reservation in scope;
//! its final write (`Ctx::commit`) stores the answer in the same transaction as the change, so a
//! change is never committed without the answer a retry will get. An operation that writes
//! nothing has its answer stored after it (`finish`); a failed one gives the key up (`release`)
//! unless it reached a carrier (`keep`): then its answer, an error too, is stored for the retry,
//! so that the carrier is never called twice for one key. Keys last 24 hours.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::digest;

use crate::{
    error::{Error, Result},
    model::time,
    service::{Actor, Ctx},
    store::{self, Tx},
    vault::Vault,
};

/// How long an answer is kept.
pub const KEEP_HOURS: i64 = 24;
/// A reservation older than this is taken to be abandoned (its process died).
const ABANDONED_AFTER_SECONDS: i64 = 300;

/// A reserved key, held while its request runs.
#[derive(Debug)]
pub struct Slot {
    credential: Vec<u8>,
    key: String,
    /// Whether the answer is stored.
    done: AtomicBool,
    /// Whether the request reached a carrier: its answer is kept even when it failed.
    keep: AtomicBool,
}

impl Slot {
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }

    /// Whether the answer must be stored whatever it is.
    pub fn must_keep(&self) -> bool {
        self.keep.load(Ordering::SeqCst)
    }
}

/// Marks the running request's answer as one to keep, errors included: it called a carrier,
/// and a retry with the same key must not call it again.
pub(crate) fn keep() {
    if let Some(slot) = current() {
        slot.keep.store(true, Ordering::SeqCst);
    }
}

/// What to do with a request that carries a key.
#[derive(Debug)]
pub enum Begin {
    /// Run it; the answer goes with the slot.
    Run(Arc<Slot>),
    /// Answer this again.
    Replay(Answer),
}

/// A stored answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
}

tokio::task_local! {
    static SLOT: Option<Arc<Slot>>;
}

/// Runs `f` with `slot` as the reservation its final write completes.
pub async fn scope<F: Future>(slot: Arc<Slot>, f: F) -> F::Output {
    SLOT.scope(Some(slot), f).await
}

/// The reservation of the running request, if it has one.
pub(crate) fn current() -> Option<Arc<Slot>> {
    SLOT.try_with(Clone::clone).ok().flatten()
}

/// Checks a key as DESIGN §15 bounds it: 1 to 255 characters.
pub fn check_key(key: &str) -> Result<()> {
    let len = key.chars().count();
    if (1..=255).contains(&len) {
        Ok(())
    } else {
        Err(Error::invalid(
            "Idempotency-Key",
            "must be 1 to 255 characters long",
        ))
    }
}

/// What identifies a request: the SHA-256 of its parts (method, path, body).
pub fn fingerprint(parts: &[&[u8]]) -> Vec<u8> {
    let mut context = digest::Context::new(&digest::SHA256);
    for part in parts {
        context.update(&(part.len() as u64).to_be_bytes());
        context.update(part);
    }
    context.finish().as_ref().to_vec()
}

/// Reserves `key` for the authenticated `actor`'s request with `fingerprint`, or says what to
/// answer instead.
pub async fn begin(ctx: &Ctx, actor: &Actor, key: &str, fingerprint: Vec<u8>) -> Result<Begin> {
    check_key(key)?;
    let credential = actor
        .credential_id()
        .ok_or_else(|| Error::internal("an idempotency key needs a credential"))?
        .as_bytes()
        .to_vec();
    let now = ctx.clock.now();
    let expired = time::format(now - ::time::Duration::hours(KEEP_HOURS));
    let abandoned = time::format(now - ::time::Duration::seconds(ABANDONED_AFTER_SECONDS));
    let (key, at, vault) = (key.to_string(), time::format(now), ctx.vault.clone());
    ctx.db
        .write(move |tx| {
            match store::idempotency::get(tx, &credential, &key)? {
                Some(record) if record.created_at >= expired => {
                    if record.fingerprint != fingerprint {
                        return Err(Error::IdempotencyKeyReused);
                    }
                    if !record.running {
                        return Ok(Begin::Replay(answer(&vault, record)?));
                    }
                    if record.created_at >= abandoned {
                        return Err(Error::IdempotencyKeyInUse);
                    }
                }
                _ => {}
            }
            store::idempotency::reserve(tx, &credential, &key, &fingerprint, &at)?;
            Ok(Begin::Run(Arc::new(Slot {
                credential,
                key,
                done: AtomicBool::new(false),
                keep: AtomicBool::new(false),
            })))
        })
        .await
}

/// Bodies are stored as base64 of their bytes, sealed.
fn seal_body(vault: &Vault, body: &[u8]) -> Result<String> {
    vault.seal(&STANDARD.encode(body))
}

fn answer(vault: &Vault, record: store::idempotency::Record) -> Result<Answer> {
    let body = match &record.body {
        Some(sealed) => STANDARD
            .decode(vault.open_sealed(sealed)?)
            .map_err(|_| Error::internal("a stored idempotent answer is not base64"))?,
        None => Vec::new(),
    };
    Ok(Answer {
        status: record.status.unwrap_or(200),
        content_type: record
            .content_type
            .unwrap_or_else(|| "application/json".into()),
        body,
    })
}

/// Stores the answer of the running request inside the unit of work of its change.
pub(crate) fn complete_in(
    tx: &Tx,
    vault: &Vault,
    slot: &Slot,
    status: u16,
    json: &serde_json::Value,
) -> Result<()> {
    let sealed = seal_body(vault, json.to_string().as_bytes())?;
    store::idempotency::complete(
        tx,
        &slot.credential,
        &slot.key,
        status,
        "application/json",
        &sealed,
    )?;
    slot.done.store(true, Ordering::SeqCst);
    Ok(())
}

/// Stores the answer of a request that wrote nothing itself (a quote, a test delivery).
pub async fn finish(ctx: &Ctx, slot: &Slot, answer: Answer) -> Result<()> {
    let sealed = seal_body(&ctx.vault, &answer.body)?;
    let (credential, key) = (slot.credential.clone(), slot.key.clone());
    ctx.db
        .write(move |tx| {
            store::idempotency::complete(
                tx,
                &credential,
                &key,
                answer.status,
                &answer.content_type,
                &sealed,
            )
        })
        .await?;
    slot.done.store(true, Ordering::SeqCst);
    Ok(())
}

/// Gives the key up: the request failed, and a retry may run it again.
pub async fn release(ctx: &Ctx, slot: &Slot) -> Result<()> {
    let (credential, key) = (slot.credential.clone(), slot.key.clone());
    ctx.db
        .write(move |tx| store::idempotency::release(tx, &credential, &key))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_1_to_255_characters() {
        assert!(check_key("k").is_ok());
        assert!(check_key(&"ø".repeat(255)).is_ok());
        assert!(check_key("").is_err());
        assert!(check_key(&"k".repeat(256)).is_err());
    }

    #[test]
    fn fingerprints_tell_parts_apart() {
        assert_ne!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"a", b"bc"]));
        assert_eq!(
            fingerprint(&[b"POST", b"{}"]),
            fingerprint(&[b"POST", b"{}"])
        );
    }
}

//! The audit log (DESIGN §19). `Actor::authorize` answers an `Authorized` for the operation it
//! let through; the write that carries the operation out turns it into a `Grant` (`on` the
//! resource) and takes it (`Ctx::write`, `Ctx::commit`), which records the entry in the same
//! transaction, so a change is never kept without its entry nor an entry without its change.
//! Reads drop their `Authorized`, which costs nothing, and leave no entry.

use crate::{
    error::Result,
    model::{
        audit::{ActorKind, AuditActor, AuditEntry, AuditPage},
        ids,
    },
    service::{
        Actor, Ctx, PageParams,
        actor::Principal,
        operations::{self as ops, Operation},
        page_query, request,
    },
    store::{self, Tx},
};

/// What `Actor::authorize` answers: leave to carry out `operation` in `org_id`, borrowed (a read
/// drops it, having allocated nothing).
#[derive(Clone, Copy, Debug)]
pub struct Authorized<'a> {
    actor: &'a Actor,
    org_id: &'a str,
    pub operation: &'static Operation,
}

impl<'a> Authorized<'a> {
    pub(crate) fn new(
        actor: &'a Actor,
        org_id: &'a str,
        operation: &'static Operation,
    ) -> Authorized<'a> {
        Authorized {
            actor,
            org_id,
            operation,
        }
    }

    /// The grant for a change of (or making) the resource `id`.
    pub fn on(self, id: impl Into<String>) -> Grant {
        Grant::from(self).on(id)
    }
}

impl From<Authorized<'_>> for Grant {
    fn from(authorized: Authorized<'_>) -> Grant {
        Grant::new(authorized.actor, authorized.org_id, authorized.operation)
    }
}

/// Leave to carry out one operation on one organization, and what its audit entry says.
#[derive(Clone, Debug)]
pub struct Grant {
    pub org_id: String,
    pub operation: &'static Operation,
    actor: AuditActor,
    address: Option<String>,
    resource: Option<String>,
}

impl Grant {
    pub(crate) fn new(actor: &Actor, org_id: &str, operation: &'static Operation) -> Grant {
        let (kind, id) = match &actor.principal {
            Principal::ApiToken { token_id, .. } => (ActorKind::ApiToken, Some(token_id.clone())),
            Principal::Connection { connection_id, .. } => {
                (ActorKind::AgentConnection, Some(connection_id.clone()))
            }
            Principal::User { user_id } => (ActorKind::User, Some(user_id.clone())),
            Principal::Admin | Principal::Anonymous => (ActorKind::Cli, None),
        };
        Grant {
            org_id: org_id.to_string(),
            operation,
            actor: AuditActor {
                kind,
                id,
                user_id: actor.user_id.clone(),
            },
            address: request::address().map(|ip| ip.to_string()),
            resource: None,
        }
    }

    /// The grant for a change of (or making) the resource `id`; without it, the entry names
    /// the organization.
    pub fn on(mut self, id: impl Into<String>) -> Grant {
        self.resource = Some(id.into());
        self
    }

    /// Records the entry in `tx` at `now`.
    pub(crate) fn record(&self, tx: &Tx, now: &str) -> Result<()> {
        store::audit::insert(
            tx,
            &AuditEntry {
                id: ids::new(ids::AUDIT_ENTRY),
                org_id: self.org_id.clone(),
                operation: self.operation.id.to_string(),
                resource_id: self.resource.clone().unwrap_or_else(|| self.org_id.clone()),
                actor: self.actor.clone(),
                client_address: self.address.clone(),
                created_at: now.to_string(),
            },
        )
    }
}

/// The organization's audit log, newest first.
pub async fn list(ctx: &Ctx, actor: &Actor, org_id: &str, page: PageParams) -> Result<AuditPage> {
    actor.authorize(org_id, &ops::LIST_AUDIT_LOG)?;
    let page = page_query(&page)?;
    let org_id = org_id.to_string();
    ctx.db
        .read(move |db| store::audit::list(db, &org_id, page))
        .await
        .map(Into::into)
}

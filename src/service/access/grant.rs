//! Leave to carry out one operation, and the audit log entry it makes (DESIGN §19).
//! `Actor::authorize` answers an `Authorized` for the operation it let through; the write that
//! carries the operation out turns it into a `Grant` (`on` the resource) and takes it
//! (`Ctx::write`, `Ctx::commit`), which records the entry in the same transaction, so a change is
//! never kept without its entry nor an entry without its change. Reads drop their `Authorized`,
//! which costs nothing, and leave no entry.

use crate::{
    error::Result,
    model::{
        audit::{AuditActor, AuditEntry},
        ids,
    },
    service::{access::request, operations::Operation},
    store::{self, Tx},
};

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
    pub(crate) fn new(actor: AuditActor, org_id: &str, operation: &'static Operation) -> Grant {
        Grant {
            org_id: org_id.to_string(),
            operation,
            actor,
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

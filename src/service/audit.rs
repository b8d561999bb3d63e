//! The audit log (DESIGN §19): what each write was, who made it, and from where; the entries
//! are written by the writes themselves (`grant`).

use crate::{
    error::Result,
    model::audit::AuditPage,
    service::{Actor, Ctx, PageParams, operations as ops, page_query},
    store,
};

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

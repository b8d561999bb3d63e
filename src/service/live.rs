//! Live lists (DESIGN §20): what a page polls to learn that something of its organization
//! changed (a shipment's status, a new order, a print job's outcome) and it should refresh.

use crate::{
    error::Result,
    service::{Actor, Ctx, operations as ops},
    store,
};

/// An opaque marker of the organization's latest change: it differs after any write.
pub async fn change_marker(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<String> {
    actor.authorize(org_id, &ops::LIST_SHIPMENTS)?;
    ctx.db.point(|db| store::orgs::change_marker(db, org_id))
}

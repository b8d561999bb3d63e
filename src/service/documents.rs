//! Batch printing: the documents of one type of several shipments as one PDF (DESIGN §17).

use crate::{
    carriers::pdf_merge,
    error::{Error, Result},
    model::{document, pdf_merge::DocumentMergeIn},
    service::{Actor, Ctx, Input, operations as ops, shipments},
    store,
};

/// POST /orgs/{orgId}/documents/merge: every PDF document of `documentType` of each shipment, in
/// the order the shipments are given (and, per shipment, the order they were made). A shipment
/// of another organization is 404; one without such a document 409.
pub async fn merge(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<DocumentMergeIn>,
) -> Result<Vec<u8>> {
    actor.authorize(org_id, &ops::MERGE_DOCUMENTS)?;
    let request = input.get()?;
    request.validate()?;
    let org_id = org_id.to_string();
    let files = ctx
        .db
        .read(move |db| {
            let mut files = Vec::new();
            for id in &request.shipment_ids {
                let shipment = shipments::require(db, &org_id, id)?;
                let before = files.len();
                files.extend(
                    store::documents::of_shipment(db, &org_id, &shipment.id)?
                        .into_iter()
                        .filter(|d| {
                            d.document_type == request.document_type && d.format == document::PDF
                        })
                        .map(|d| d.content.0),
                );
                if files.len() == before {
                    return Err(Error::InvalidState(format!(
                        "shipment {id} has no {} PDF; book it first",
                        request.document_type
                    )));
                }
            }
            Ok(files)
        })
        .await?;
    crate::blocking::run(move || {
        let refs: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        pdf_merge::merge(&refs)
    })
    .await
}

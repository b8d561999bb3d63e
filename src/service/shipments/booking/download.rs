//! A shipment's documents as files to download.

use crate::{
    error::{Error, Result},
    model::document::Document,
    service::{Actor, Ctx, operations as ops, shipments::require},
    store,
};

/// A document as a file to download, with the name to save it under.
pub struct Download {
    pub document: Document,
    /// `<reference>-<documentType>-<n>.<format>` (DESIGN §17): `n` counts the shipment's
    /// documents of that type from 1; characters other than ASCII letters, digits, `.`, `_` and
    /// `-` become `_`.
    pub filename: String,
}

/// A document of a shipment, for raw download.
pub async fn document(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    shipment_id: &str,
    id: &str,
) -> Result<Download> {
    actor.authorize(org_id, &ops::GET_SHIPMENT_DOCUMENT)?;
    ctx.db.point(|db| {
        let shipment = require(db, org_id, shipment_id)?;
        let document =
            store::documents::get(db, org_id, shipment_id, id)?.ok_or(Error::NotFound)?;
        let n = store::documents::ordinal(db, org_id, shipment_id, id)?.unwrap_or(1);
        let filename = filename(&shipment.reference, &document, n);
        Ok(Download { document, filename })
    })
}

/// A document of the organization by its id alone (an agent's resource link names no shipment).
pub async fn by_id(ctx: &Ctx, actor: &Actor, org_id: &str, id: &str) -> Result<Download> {
    actor.authorize(org_id, &ops::GET_SHIPMENT_DOCUMENT)?;
    let shipment_id = ctx
        .db
        .point(|db| store::documents::shipment_of(db, org_id, id))?
        .ok_or(Error::NotFound)?;
    document(ctx, actor, org_id, &shipment_id, id).await
}

/// How wide a document's preview is drawn, in pixels.
const PREVIEW_WIDTH: u16 = 600;

/// A PDF document's first page as a PNG picture (the workbench's label preview); 404 for a
/// document that is no PDF (a ZPL label is a printer's program, not a page).
pub async fn preview(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    shipment_id: &str,
    id: &str,
) -> Result<Vec<u8>> {
    let download = document(ctx, actor, org_id, shipment_id, id).await?;
    if download.document.format != crate::model::document::PDF {
        return Err(Error::NotFound);
    }
    let pdf = download.document.content.0;
    crate::blocking::run(move || crate::carriers::label::preview::png(pdf, PREVIEW_WIDTH)).await
}

fn filename(reference: &str, document: &Document, n: usize) -> String {
    let name = format!(
        "{reference}-{}-{n}.{}",
        document.document_type, document.format
    );
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        let document = Document {
            id: "doc_1".into(),
            org_id: "org_1".into(),
            shipment_id: "shp_1".into(),
            document_type: "label".into(),
            format: "pdf".into(),
            size: "A4".into(),
            content: crate::model::document::content(Vec::new()),
            created_at: String::new(),
            updated_at: String::new(),
        };
        assert_eq!(
            filename("Order #12/\"Łódź\"", &document, 2),
            "Order__12____d__-label-2.pdf"
        );
        assert_eq!(filename("REF-1001", &document, 1), "REF-1001-label-1.pdf");
    }
}

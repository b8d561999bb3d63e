//! Printing a booked shipment's documents on a printer of the organization, on request (the
//! workbench's "print", an agent, the API): one job per document, in parcel order, sent by the
//! worker after the commit like the jobs a rule queues.

use crate::{
    error::{Error, Result},
    model::{
        document::{self, Document},
        pdf_merge::DOCUMENT_TYPES,
        printer::{PrintIn, PrintJobs},
    },
    service::{Actor, Ctx, Input, operations as ops, printers},
    store,
};

pub async fn print_documents(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    shipment_id: &str,
    input: Input<PrintIn>,
) -> Result<PrintJobs> {
    let grant = actor
        .authorize(org_id, &ops::PRINT_SHIPMENT_DOCUMENTS)?
        .on(shipment_id);
    let request = input.get()?;
    let kind = request
        .document_type
        .unwrap_or_else(|| document::LABEL.to_string());
    if !DOCUMENT_TYPES.contains(&kind.as_str()) {
        return Err(Error::invalid(
            "documentType",
            format!("must be one of {}", DOCUMENT_TYPES.join(", ")),
        ));
    }
    let (org_id, shipment_id, now) = (org_id.to_string(), shipment_id.to_string(), ctx.now());
    let jobs = ctx
        .commit(grant, move |tx| {
            crate::service::shipments::require(tx, &org_id, &shipment_id)?;
            let printer = printers::require(tx, &org_id, &request.printer_id, "printerId")?;
            let documents: Vec<Document> =
                store::documents::of_shipment(tx, &org_id, &shipment_id)?
                    .into_iter()
                    .filter(|d| d.document_type == kind)
                    .collect();
            if documents.is_empty() {
                return Err(Error::InvalidState(format!(
                    "the shipment has no {kind} documents to print (labels are made when it is booked)"
                )));
            }
            if let Some(other) = documents.iter().find(|d| d.format != printer.fields.format) {
                return Err(Error::Conflict(format!(
                    "printer {} takes {}, but these documents are {}",
                    printer.fields.name, printer.fields.format, other.format
                )));
            }
            let mut print_jobs = Vec::with_capacity(documents.len());
            for (position, doc) in documents.iter().enumerate() {
                let position = u32::try_from(position).unwrap_or(u32::MAX);
                print_jobs.push(super::queue(
                    tx,
                    &org_id,
                    &printer.id,
                    &shipment_id,
                    &doc.id,
                    position,
                    &now,
                )?);
            }
            Ok(PrintJobs { print_jobs })
        })
        .await?;
    ctx.printing.queued();
    Ok(jobs)
}

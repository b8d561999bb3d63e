//! Booking a shipment, printing and downloading its documents.

use poem::web::Data;
use poem_openapi::{
    ApiResponse, OpenApi, ResponseContent,
    param::Path,
    payload::{Binary, Json},
};

use crate::{
    api::{
        ApiTags,
        body::{JsonBody, OptionalJsonBody},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::{
        printer::{PrintIn, PrintJobs},
        shipment::{BookIn, Shipment},
    },
    service::{
        Ctx, printing,
        shipments::{self},
    },
};

/// A document's file, in its format.
#[derive(ResponseContent)]
pub enum DocumentFile {
    #[oai(content_type = "application/pdf")]
    Pdf(Binary<Vec<u8>>),
    /// ZPL II, for thermal printers.
    #[oai(content_type = "application/zpl")]
    Zpl(Binary<Vec<u8>>),
}

#[derive(ApiResponse)]
pub enum DocumentDownload {
    /// The document as a file (PDF, or ZPL for a thermal printer), named
    /// `<reference>-<documentType>-<n>.<pdf|zpl>`.
    #[oai(status = 200)]
    File(DocumentFile, #[oai(header = "Content-Disposition")] String),
}

pub struct ShipmentBookingApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentBookingApi {
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/book",
        method = "post",
        operation_id = "book_shipment"
    )]
    async fn book(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: OptionalJsonBody<BookIn>,
    ) -> ApiResult<Json<Shipment>> {
        Ok(Json(
            shipments::book(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/print",
        method = "post",
        operation_id = "print_shipment_documents"
    )]
    async fn print(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<PrintIn>,
    ) -> ApiResult<Json<PrintJobs>> {
        Ok(Json(
            printing::print_documents(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/documents/:documentId",
        method = "get",
        operation_id = "get_shipment_document"
    )]
    async fn document(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "documentId")] document_id: Path<String>,
    ) -> ApiResult<DocumentDownload> {
        let download =
            shipments::document(&ctx, &auth.0, &org_id, &shipment_id, &document_id).await?;
        let disposition = format!("attachment; filename=\"{}\"", download.filename);
        let content = Binary(download.document.content.0);
        let file = if download.document.format == crate::model::document::ZPL {
            DocumentFile::Zpl(content)
        } else {
            DocumentFile::Pdf(content)
        };
        Ok(DocumentDownload::File(file, disposition))
    }
}

//! Operations on one shipment: book, status, apply a rule, split, batch split, return, tracking
//! events, and raw document download.

use poem::web::Data;
use poem_openapi::{
    ApiResponse, OpenApi, ResponseContent,
    param::Path,
    payload::{Binary, Json},
};

use crate::{
    api::{
        ApiTags, Created,
        body::{JsonBody, OptionalJsonBody},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::shipment::ShipmentView,
    service::{
        Ctx,
        shipments::{
            self, ApplyRule, BatchSplit, BookRequest, NewTrackingEvent, Split, SplitOne,
            SplitOutcome, StatusChange,
        },
    },
};

pub struct ShipmentOpsApi;

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

#[OpenApi(tag = "ApiTags::Shipments")]
impl ShipmentOpsApi {
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
        body: OptionalJsonBody<BookRequest>,
    ) -> ApiResult<Json<ShipmentView>> {
        Ok(Json(
            shipments::book(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    /// Any other move is 409.
    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/status",
        method = "post",
        operation_id = "set_shipment_status"
    )]
    async fn status(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<StatusChange>,
    ) -> ApiResult<Json<ShipmentView>> {
        Ok(Json(
            shipments::set_status(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/apply-shipping-rule",
        method = "post",
        operation_id = "apply_shipping_rule"
    )]
    async fn apply_rule(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<ApplyRule>,
    ) -> ApiResult<Json<ShipmentView>> {
        Ok(Json(
            shipments::apply_shipping_rule(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/parcels/:parcelId/split",
        method = "post",
        operation_id = "split_parcel"
    )]
    async fn split(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "parcelId")] parcel_id: Path<String>,
        body: JsonBody<Split>,
    ) -> ApiResult<Created<SplitOne>> {
        Ok(Created::new(
            shipments::split(&ctx, &auth.0, &org_id, &shipment_id, &parcel_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/parcels/:parcelId/batch-split",
        method = "post",
        operation_id = "batch_split_parcel"
    )]
    async fn batch_split(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        #[oai(name = "parcelId")] parcel_id: Path<String>,
        body: JsonBody<BatchSplit>,
    ) -> ApiResult<Created<SplitOutcome>> {
        Ok(Created::new(
            shipments::batch_split(&ctx, &auth.0, &org_id, &shipment_id, &parcel_id, body.0)
                .await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/create-return",
        method = "post",
        operation_id = "create_return_shipment"
    )]
    async fn create_return(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
    ) -> ApiResult<Created<ShipmentView>> {
        Ok(Created::new(
            shipments::create_return(&ctx, &auth.0, &org_id, &shipment_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipments/:shipmentId/tracking-events",
        method = "post",
        operation_id = "add_tracking_event"
    )]
    async fn tracking_event(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "shipmentId")] shipment_id: Path<String>,
        body: JsonBody<NewTrackingEvent>,
    ) -> ApiResult<Json<ShipmentView>> {
        Ok(Json(
            shipments::add_tracking_event(&ctx, &auth.0, &org_id, &shipment_id, body.0).await?,
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

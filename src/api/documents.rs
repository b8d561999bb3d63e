//! Batch printing: POST /orgs/{orgId}/documents/merge.

use poem::web::Data;
use poem_openapi::{ApiResponse, OpenApi, param::Path, payload::Binary};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::pdf_merge::DocumentMergeIn,
    service::{Ctx, documents},
};

pub struct DocumentsApi;

#[derive(ApiResponse)]
pub enum MergedPdf {
    /// One PDF with the documents, one per page, in the order of the shipments given.
    #[oai(status = 200, content_type = "application/pdf")]
    Pdf(
        Binary<Vec<u8>>,
        /// `inline; filename="documents-<date>.pdf"`: the name a browser saves it under.
        #[oai(header = "Content-Disposition")]
        String,
    ),
}

#[OpenApi(tag = "ApiTags::Shipments")]
impl DocumentsApi {
    /// A shipment of another organization is not found; one without such a PDF document is refused.
    #[oai(
        path = "/orgs/:orgId/documents/merge",
        method = "post",
        operation_id = "merge_documents"
    )]
    async fn merge(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<DocumentMergeIn>,
    ) -> ApiResult<MergedPdf> {
        let pdf = documents::merge(&ctx, &auth.0, &org_id, body.0).await?;
        let day = ctx.now().chars().take(10).collect::<String>();
        Ok(MergedPdf::Pdf(
            Binary(pdf),
            format!("inline; filename=\"documents-{day}.pdf\""),
        ))
    }
}

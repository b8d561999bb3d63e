//! End of day: /orgs/{orgId}/manifests.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        Accepted, ApiTags, Created,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::{
        manifest::{Manifest, ManifestIn, ManifestPage, ManifestPrintIn},
        printer::PrintJob,
    },
    service::{Ctx, manifests},
};

pub struct ManifestsApi;

#[OpenApi(tag = "ApiTags::Shipments")]
impl ManifestsApi {
    /// Shipments the carrier's close refuses are not closed (they are listed in `refused`
    /// and stay open for the next close); when it refuses all, nothing is written (422).
    #[oai(
        path = "/orgs/:orgId/manifests",
        method = "post",
        operation_id = "create_manifest"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ManifestIn>,
    ) -> ApiResult<Created<Manifest>> {
        Ok(Created::new(
            manifests::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/manifests",
        method = "get",
        operation_id = "list_manifests"
    )]
    async fn list(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        /// Page number, from 1.
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<ManifestPage>> {
        let page = params::page(page, limit);
        Ok(Json(manifests::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/manifests/:manifestId",
        method = "get",
        operation_id = "get_manifest"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "manifestId")] manifest_id: Path<String>,
    ) -> ApiResult<Json<Manifest>> {
        Ok(Json(
            manifests::get(&ctx, &auth.0, &org_id, &manifest_id).await?,
        ))
    }

    /// The print queue sends it after the answer: follow the job in the printer's jobs.
    #[oai(
        path = "/orgs/:orgId/manifests/:manifestId/print",
        method = "post",
        operation_id = "print_manifest"
    )]
    async fn print(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "manifestId")] manifest_id: Path<String>,
        body: JsonBody<ManifestPrintIn>,
    ) -> ApiResult<Accepted<PrintJob>> {
        Ok(Accepted::new(
            manifests::print(&ctx, &auth.0, &org_id, &manifest_id, body.0).await?,
        ))
    }
}

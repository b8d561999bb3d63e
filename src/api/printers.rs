//! Printers and their print jobs: /orgs/{orgId}/printers (DESIGN §17).

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        Accepted, ApiTags, Created, Message,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        security::BearerAuth,
    },
    model::printer::{PrintJob, PrintJobPage, Printer, PrinterIn, PrinterPage},
    service::{Ctx, printers, printing},
};

pub struct PrintersApi;

#[OpenApi(tag = "ApiTags::Printers")]
impl PrintersApi {
    #[oai(
        path = "/orgs/:orgId/printers",
        method = "post",
        operation_id = "create_printer"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<PrinterIn>,
    ) -> ApiResult<Created<Printer>> {
        Ok(Created::new(
            printers::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/printers",
        method = "get",
        operation_id = "list_printers"
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
    ) -> ApiResult<Json<PrinterPage>> {
        let page = params::page(page, limit);
        Ok(Json(printers::list(&ctx, &auth.0, &org_id, page).await?))
    }

    #[oai(
        path = "/orgs/:orgId/printers/:printerId",
        method = "get",
        operation_id = "get_printer"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "printerId")] printer_id: Path<String>,
    ) -> ApiResult<Json<Printer>> {
        Ok(Json(
            printers::get(&ctx, &auth.0, &org_id, &printer_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/printers/:printerId",
        method = "put",
        operation_id = "update_printer"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "printerId")] printer_id: Path<String>,
        body: JsonBody<PrinterIn>,
    ) -> ApiResult<Json<Printer>> {
        Ok(Json(
            printers::update(&ctx, &auth.0, &org_id, &printer_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/printers/:printerId",
        method = "delete",
        operation_id = "delete_printer"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "printerId")] printer_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        printers::delete(&ctx, &auth.0, &org_id, &printer_id).await?;
        Ok(Message::new("printer deleted"))
    }

    #[oai(
        path = "/orgs/:orgId/printers/:printerId/jobs",
        method = "get",
        operation_id = "list_print_jobs"
    )]
    async fn jobs(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "printerId")] printer_id: Path<String>,
        /// Page number, from 1.
        page: PageQuery,
        /// Items per page, 1 to 100 (default 20).
        limit: LimitQuery,
    ) -> ApiResult<Json<PrintJobPage>> {
        let page = params::page(page, limit);
        Ok(Json(
            printers::jobs(&ctx, &auth.0, &org_id, &printer_id, page).await?,
        ))
    }

    /// The test page is made now and printed by the print queue after the answer: follow the
    /// job in the printer's jobs.
    #[oai(
        path = "/orgs/:orgId/printers/:printerId/test-print",
        method = "post",
        operation_id = "print_test_page"
    )]
    async fn test_print(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "printerId")] printer_id: Path<String>,
    ) -> ApiResult<Accepted<PrintJob>> {
        Ok(Accepted::new(
            printing::print_test_page(&ctx, &auth.0, &org_id, &printer_id).await?,
        ))
    }
}

//! Shipping quotes: POST /orgs/{orgId}/shipping-quote (Shopify carrier-service conventions).

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{ApiTags, body::JsonBody, problem::ApiResult, security::BearerAuth},
    model::quote::{QuoteIn, QuoteOut},
    service::{
        Ctx,
        quotes::{self},
    },
};

pub struct QuotesApi;

#[OpenApi(tag = "ApiTags::ShippingRules")]
impl QuotesApi {
    #[oai(
        path = "/orgs/:orgId/shipping-quote",
        method = "post",
        operation_id = "quote_shipping_rates"
    )]
    async fn quote(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<QuoteIn>,
    ) -> ApiResult<Json<QuoteOut>> {
        Ok(Json(quotes::quote(&ctx, &auth.0, &org_id, body.0).await?))
    }
}

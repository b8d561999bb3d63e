//! Shipping rules: /orgs/{orgId}/shipping-rules.

use poem::web::Data;
use poem_openapi::{OpenApi, param::Path, payload::Json};

use crate::{
    api::{
        ApiTags, Created, Message,
        body::JsonBody,
        params::{self, LimitQuery, PageQuery},
        problem::ApiResult,
        raw::RawJson,
        security::{BearerAuth, BearerPending},
    },
    model::shipping_rule::{ShippingRule, ShippingRuleIn, ShippingRulePage},
    service::{Ctx, shipping_rules},
};

pub struct ShippingRulesApi;

#[OpenApi(tag = "ApiTags::ShippingRules")]
impl ShippingRulesApi {
    #[oai(
        path = "/orgs/:orgId/shipping-rules",
        method = "post",
        operation_id = "create_shipping_rule"
    )]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<ShippingRuleIn>,
    ) -> ApiResult<Created<ShippingRule>> {
        Ok(Created::new(
            shipping_rules::create(&ctx, &auth.0, &org_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipping-rules",
        method = "get",
        operation_id = "list_shipping_rules"
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
    ) -> ApiResult<RawJson<ShippingRulePage>> {
        let page = params::page(page, limit);
        Ok(RawJson::new(
            shipping_rules::list_json(&ctx, &auth.0, &org_id, page).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipping-rules/:ruleId",
        method = "get",
        operation_id = "get_shipping_rule"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerPending,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "ruleId")] rule_id: Path<String>,
    ) -> ApiResult<RawJson<ShippingRule>> {
        Ok(RawJson::new(
            shipping_rules::get_json(&ctx, &auth.0, &org_id, &rule_id).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipping-rules/:ruleId",
        method = "put",
        operation_id = "update_shipping_rule"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "ruleId")] rule_id: Path<String>,
        body: JsonBody<ShippingRuleIn>,
    ) -> ApiResult<Json<ShippingRule>> {
        Ok(Json(
            shipping_rules::update(&ctx, &auth.0, &org_id, &rule_id, body.0).await?,
        ))
    }

    #[oai(
        path = "/orgs/:orgId/shipping-rules/:ruleId",
        method = "delete",
        operation_id = "delete_shipping_rule"
    )]
    async fn delete(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "ruleId")] rule_id: Path<String>,
    ) -> ApiResult<Json<Message>> {
        shipping_rules::delete(&ctx, &auth.0, &org_id, &rule_id).await?;
        Ok(Message::new("shipping rule deleted"))
    }
}

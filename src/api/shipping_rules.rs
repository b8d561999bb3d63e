//! Shipping rules: /orgs/{orgId}/shipping-rules.

use poem::web::Data;
use poem_openapi::{
    Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde::Deserialize;

use crate::{
    api::{
        ApiTags, Created, Message, body::JsonBody, carriers::CarrierOut, problem::ApiResult,
        security::BearerAuth, sender_addresses::SenderAddressOut,
    },
    model::rule::{Condition, NameVal, RuleFields, RuleSettings, ShippingRule},
    page_of,
    service::{Ctx, shipping_rules},
    store::shipping_rules::RuleView,
};

pub struct ShippingRulesApi;

/// A `{name, val}` carrier parameter.
#[derive(Object, Deserialize, Clone)]
pub struct NameValDto {
    pub name: String,
    pub val: String,
}

/// When the rule offers a price: `weight` (kg) and `priceRange` (cents) use `min`/`max`;
/// `price` and `quantity` compare with `operator` (gt, gte, lt, lte, eq) against `value`;
/// `flatRate` always matches.
#[derive(Object, Deserialize, Clone)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ConditionDto {
    /// weight, priceRange, price, quantity or flatRate.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub operator: Option<String>,
    pub value: Option<f64>,
    /// Price of the rate in major units (49.0 is 49.00).
    pub shipping_price: f64,
    pub currency: String,
}

crate::same_fields!(ConditionDto => Condition { kind, min, max, operator, value, shipping_price, currency });

crate::same_fields!(Condition => ConditionDto { kind, min, max, operator, value, shipping_price, currency });

/// A shipping rule to create, or the full replacement of one.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ShippingRuleIn {
    #[oai(validator(min_length = 1))]
    pub name: String,
    pub description: Option<String>,
    pub carrier_id: String,
    pub product_id: String,
    #[oai(default)]
    #[serde(default)]
    pub services: Vec<String>,
    #[oai(default)]
    #[serde(default)]
    pub additional_parameters: Vec<NameValDto>,
    pub sender_address_id: String,
    /// ISO alpha-2 codes the rule ships to; empty means everywhere.
    #[oai(default)]
    #[serde(default)]
    pub receiving_countries: Vec<String>,
    #[oai(default)]
    #[serde(default)]
    pub email_notification: bool,
    #[oai(default)]
    #[serde(default)]
    pub phone_notification: bool,
    #[oai(default)]
    #[serde(default)]
    pub conditions: Vec<ConditionDto>,
    #[oai(default)]
    #[serde(default)]
    pub generate_proforma_invoice: bool,
    #[oai(default)]
    #[serde(default)]
    pub generate_commercial_invoice: bool,
    #[oai(default)]
    #[serde(default)]
    pub generate_packing_list: bool,
    #[oai(default)]
    #[serde(default)]
    pub auto_print_labels: bool,
    #[oai(default)]
    #[serde(default)]
    pub auto_print_documents: bool,
    pub label_printer_id: Option<String>,
    pub document_printer_id: Option<String>,
    /// Rule whose carrier settings return shipments use.
    pub return_shipping_rule_id: Option<String>,
    #[oai(default)]
    #[serde(default)]
    pub auto_create_return_shipment: bool,
}

impl From<ShippingRuleIn> for RuleFields {
    fn from(v: ShippingRuleIn) -> RuleFields {
        RuleFields {
            name: v.name,
            carrier_id: v.carrier_id,
            sender_address_id: v.sender_address_id,
            return_shipping_rule_id: v.return_shipping_rule_id,
            settings: RuleSettings {
                description: v.description,
                product_id: v.product_id,
                services: v.services,
                additional_parameters: v
                    .additional_parameters
                    .into_iter()
                    .map(|p| NameVal {
                        name: p.name,
                        val: p.val,
                    })
                    .collect(),
                receiving_countries: v.receiving_countries,
                email_notification: v.email_notification,
                phone_notification: v.phone_notification,
                conditions: v.conditions.into_iter().map(Into::into).collect(),
                generate_proforma_invoice: v.generate_proforma_invoice,
                generate_commercial_invoice: v.generate_commercial_invoice,
                generate_packing_list: v.generate_packing_list,
                auto_print_labels: v.auto_print_labels,
                auto_print_documents: v.auto_print_documents,
                label_printer_id: v.label_printer_id,
                document_printer_id: v.document_printer_id,
                auto_create_return_shipment: v.auto_create_return_shipment,
            },
        }
    }
}

/// `{id, name}` of a referenced object.
#[derive(Object)]
pub struct RefOut {
    pub id: String,
    pub name: String,
}

/// A shipping rule with what it refers to.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct ShippingRuleOut {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub carrier_id: String,
    pub product_id: String,
    pub services: Vec<String>,
    pub additional_parameters: Vec<NameValDto>,
    pub sender_address_id: String,
    pub receiving_countries: Vec<String>,
    pub email_notification: bool,
    pub phone_notification: bool,
    pub conditions: Vec<ConditionDto>,
    pub generate_proforma_invoice: bool,
    pub generate_commercial_invoice: bool,
    pub generate_packing_list: bool,
    pub auto_print_labels: bool,
    pub auto_print_documents: bool,
    pub label_printer_id: Option<String>,
    pub document_printer_id: Option<String>,
    pub return_shipping_rule_id: Option<String>,
    pub auto_create_return_shipment: bool,
    pub org_id: String,
    pub created_at: String,
    pub updated_at: String,
    /// The carrier, without its sender address.
    pub carrier: CarrierOut,
    pub sender_address: SenderAddressOut,
    pub label_printer: Option<RefOut>,
    pub document_printer: Option<RefOut>,
    pub return_shipping_rule: Option<RefOut>,
}

impl From<RuleView> for ShippingRuleOut {
    fn from(v: RuleView) -> ShippingRuleOut {
        let ShippingRule {
            id,
            org_id,
            fields,
            created_at,
            updated_at,
        } = v.rule;
        let s = fields.settings;
        ShippingRuleOut {
            id,
            name: fields.name,
            description: s.description,
            carrier_id: fields.carrier_id,
            product_id: s.product_id,
            services: s.services,
            additional_parameters: s
                .additional_parameters
                .into_iter()
                .map(|p| NameValDto {
                    name: p.name,
                    val: p.val,
                })
                .collect(),
            sender_address_id: fields.sender_address_id,
            receiving_countries: s.receiving_countries,
            email_notification: s.email_notification,
            phone_notification: s.phone_notification,
            conditions: s.conditions.into_iter().map(Into::into).collect(),
            generate_proforma_invoice: s.generate_proforma_invoice,
            generate_commercial_invoice: s.generate_commercial_invoice,
            generate_packing_list: s.generate_packing_list,
            auto_print_labels: s.auto_print_labels,
            auto_print_documents: s.auto_print_documents,
            label_printer_id: s.label_printer_id,
            document_printer_id: s.document_printer_id,
            return_shipping_rule_id: fields.return_shipping_rule_id,
            auto_create_return_shipment: s.auto_create_return_shipment,
            org_id,
            created_at,
            updated_at,
            carrier: v.carrier.into(),
            sender_address: v.sender_address.into(),
            label_printer: None,
            document_printer: None,
            return_shipping_rule: v.return_rule.map(|(id, name)| RefOut { id, name }),
        }
    }
}

page_of!(ShippingRulePage, ShippingRuleOut);

#[OpenApi(tag = "ApiTags::ShippingRules")]
impl ShippingRulesApi {
    /// Create a shipping rule. Scope: `write:shipping_rules`.
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
    ) -> ApiResult<Created<ShippingRuleOut>> {
        Ok(Created::new(
            shipping_rules::create(&ctx, &auth.0, &org_id, body.into_input()).await?,
        ))
    }

    /// List shipping rules, newest first, in their full form. Scope: `read:shipping_rules`.
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
        #[oai(validator(minimum(value = "1")))]
        page: Query<Option<i64>>,
        /// Items per page, 1 to 100 (default 20).
        #[oai(validator(minimum(value = "1"), maximum(value = "100")))]
        limit: Query<Option<i64>>,
    ) -> ApiResult<Json<ShippingRulePage>> {
        Ok(Json(
            shipping_rules::list(&ctx, &auth.0, &org_id, page.0, limit.0)
                .await?
                .into(),
        ))
    }

    /// Get a shipping rule. Scope: `read:shipping_rules`.
    #[oai(
        path = "/orgs/:orgId/shipping-rules/:ruleId",
        method = "get",
        operation_id = "get_shipping_rule"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        #[oai(name = "ruleId")] rule_id: Path<String>,
    ) -> ApiResult<Json<ShippingRuleOut>> {
        Ok(Json(
            shipping_rules::get(&ctx, &auth.0, &org_id, &rule_id)
                .await?
                .into(),
        ))
    }

    /// Replace a shipping rule. Scope: `write:shipping_rules`.
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
    ) -> ApiResult<Json<ShippingRuleOut>> {
        Ok(Json(
            shipping_rules::update(&ctx, &auth.0, &org_id, &rule_id, body.into_input())
                .await?
                .into(),
        ))
    }

    /// Delete a shipping rule; 409 while another rule uses it as its return rule.
    /// Scope: `write:shipping_rules`.
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

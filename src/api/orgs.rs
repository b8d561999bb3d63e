//! Organizations: POST /orgs, GET and PUT /orgs/{orgId}.

use poem::{Request, web::Data};
use poem_openapi::{
    ApiResponse, Object, OpenApi, param::Path, payload::Json, types::MaybeUndefined,
};
use serde::Deserialize;

use crate::{
    api::{
        ApiTags,
        body::{JsonBody, not_null},
        problem::ApiResult,
        security::{BearerAuth, optional_actor},
    },
    model::org::{Org, User},
    service::{
        Ctx,
        orgs::{self, CreatedOrg, NewOrg, OrgPatch},
    },
};

pub struct OrgsApi;

/// Creates an organization and its first user, who becomes the owner.
#[derive(Object, Deserialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct OrgIn {
    #[oai(validator(min_length = 1, max_length = 200))]
    pub name: String,
    /// Unique; lower-case letters, digits and dashes.
    #[oai(validator(min_length = 1, max_length = 100, pattern = "^[a-z0-9-]+$"))]
    pub slug: String,
    /// E-mail of the first user (the owner).
    pub creator_email: String,
    #[oai(validator(min_length = 1, max_length = 200))]
    pub creator_name: String,
    pub description: Option<String>,
}

impl From<OrgIn> for NewOrg {
    fn from(v: OrgIn) -> NewOrg {
        NewOrg {
            name: v.name,
            slug: v.slug,
            description: v.description,
            creator_email: v.creator_email,
            creator_name: v.creator_name,
            plan: None,
        }
    }
}

/// Fields to change; absent fields stay as they are, `null` clears a nullable field.
#[derive(Object, Deserialize, Default)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase", default)]
pub struct OrgPatchIn {
    #[oai(validator(min_length = 1, max_length = 200))]
    #[serde(deserialize_with = "not_null")]
    pub name: Option<String>,
    #[oai(validator(min_length = 1, max_length = 100, pattern = "^[a-z0-9-]+$"))]
    #[serde(deserialize_with = "not_null")]
    pub slug: Option<String>,
    pub description: MaybeUndefined<String>,
    /// One of DKK, EUR, USD, GBP, SEK, NOK.
    #[serde(deserialize_with = "not_null")]
    pub currency: Option<String>,
    pub vat_number: MaybeUndefined<String>,
    /// When true, shipments beyond the plan limit are allowed and charged as overage.
    #[serde(deserialize_with = "not_null")]
    pub overage_enabled: Option<bool>,
    pub billing_email: MaybeUndefined<String>,
    pub company_name: MaybeUndefined<String>,
    pub address_line1: MaybeUndefined<String>,
    pub address_line2: MaybeUndefined<String>,
    pub city: MaybeUndefined<String>,
    pub postal_code: MaybeUndefined<String>,
    /// ISO 3166-1 alpha-2.
    pub country: MaybeUndefined<String>,
}

impl From<OrgPatchIn> for OrgPatch {
    fn from(v: OrgPatchIn) -> OrgPatch {
        fn tri(value: MaybeUndefined<String>) -> Option<Option<String>> {
            match value {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(v) => Some(Some(v)),
            }
        }
        OrgPatch {
            name: v.name,
            slug: v.slug,
            description: tri(v.description),
            currency: v.currency,
            vat_number: tri(v.vat_number),
            overage_enabled: v.overage_enabled,
            billing_email: tri(v.billing_email),
            company_name: tri(v.company_name),
            address_line1: tri(v.address_line1),
            address_line2: tri(v.address_line2),
            city: tri(v.city),
            postal_code: tri(v.postal_code),
            country: tri(v.country),
        }
    }
}

/// An organization (tenant).
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct OrgOut {
    pub id: String,
    pub name: String,
    pub slug: String,
    pub description: Option<String>,
    /// Billing currency.
    pub currency: String,
    pub vat_number: Option<String>,
    pub billing_email: Option<String>,
    pub company_name: Option<String>,
    pub address_line1: Option<String>,
    pub address_line2: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    pub overage_enabled: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Org> for OrgOut {
    fn from(o: Org) -> OrgOut {
        OrgOut {
            id: o.id,
            name: o.name,
            slug: o.slug,
            description: o.description,
            currency: o.currency,
            vat_number: o.vat_number,
            billing_email: o.billing_email,
            company_name: o.company_name,
            address_line1: o.address_line1,
            address_line2: o.address_line2,
            city: o.city,
            postal_code: o.postal_code,
            country: o.country,
            overage_enabled: o.overage_enabled,
            created_at: o.created_at,
            updated_at: o.updated_at,
        }
    }
}

/// A user.
#[derive(Object)]
#[oai(rename_all = "camelCase")]
pub struct UserOut {
    pub id: String,
    pub email: String,
    pub name: String,
    pub language: String,
    /// Full rights inside this organization (its owner); never in others.
    pub super_admin: bool,
    pub email_verified: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<User> for UserOut {
    fn from(u: User) -> UserOut {
        UserOut {
            super_admin: u.is_owner(),
            id: u.id,
            email: u.email,
            name: u.name,
            language: u.language,
            email_verified: u.email_verified,
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}

/// The new organization and its owner.
#[derive(Object)]
pub struct OrgCreatedOut {
    pub org: OrgOut,
    pub user: UserOut,
}

impl From<CreatedOrg> for OrgCreatedOut {
    fn from(c: CreatedOrg) -> OrgCreatedOut {
        OrgCreatedOut {
            org: c.org.into(),
            user: c.user.into(),
        }
    }
}

#[derive(ApiResponse)]
pub enum OrgCreated {
    /// The organization was created.
    #[oai(status = 201)]
    Created(Json<OrgCreatedOut>),
}

#[OpenApi(tag = "ApiTags::Organizations")]
impl OrgsApi {
    /// Create an organization and its first user (its owner).
    ///
    /// Open to anyone while `signup.open` is true in the configuration; otherwise only to
    /// instance staff. Send a credential to be identified.
    #[oai(path = "/orgs", method = "post", operation_id = "create_organization")]
    async fn create(
        &self,
        ctx: Data<&Ctx>,
        req: &Request,
        body: JsonBody<OrgIn>,
    ) -> ApiResult<OrgCreated> {
        let actor = optional_actor(req).await?;
        let created = orgs::create(&ctx, &actor, body.into_input()).await?;
        Ok(OrgCreated::Created(Json(created.into())))
    }

    /// Get an organization. Scope: `read:orgs`.
    #[oai(
        path = "/orgs/:orgId",
        method = "get",
        operation_id = "get_organization"
    )]
    async fn get(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
    ) -> ApiResult<Json<OrgOut>> {
        Ok(Json(orgs::get(&ctx, &auth.0, &org_id).await?.into()))
    }

    /// Update an organization. Scope: `write:orgs`.
    #[oai(
        path = "/orgs/:orgId",
        method = "put",
        operation_id = "update_organization"
    )]
    async fn update(
        &self,
        ctx: Data<&Ctx>,
        auth: BearerAuth,
        #[oai(name = "orgId")] org_id: Path<String>,
        body: JsonBody<OrgPatchIn>,
    ) -> ApiResult<Json<OrgOut>> {
        Ok(Json(
            orgs::update(&ctx, &auth.0, &org_id, body.into_input())
                .await?
                .into(),
        ))
    }
}

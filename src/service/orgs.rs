//! Organizations: creation with their first user (the owner), reading and updating.

use crate::model::org::{ExistingUser, OrgCreated, OrgIn, OrgPatchIn};
use poem_openapi::types::MaybeUndefined;

use crate::{
    error::{Error, Result},
    model::{
        country, ids,
        org::{self, Organization},
        validate::{Violations, is_email},
    },
    service::{Actor, Ctx, Input, access::grant::Grant, operations as ops, users},
    store,
};

/// Creates an organization and makes the creator (found or created by e-mail) its owner.
/// Allowed to the administrator, instance staff, and anyone while `signup.open` is true.
pub async fn create(ctx: &Ctx, actor: &Actor, input: Input<OrgIn>) -> Result<OrgCreated> {
    if !(actor.is_admin() || actor.staff || ctx.config.signup.open) {
        return Err(match actor.principal {
            crate::service::access::actor::Principal::Anonymous => Error::Unauthenticated,
            _ => Error::InsufficientScope("staff".into()),
        });
    }
    let input = input.get()?;
    let mut errors = Violations::new();
    errors.length("name", &input.name, 1, 200);
    check_slug(&mut errors, &input.slug);
    if let Some(description) = &input.description {
        errors.length("description", description, 0, 2000);
    }
    errors.email("creatorEmail", &input.creator_email);
    errors.length("creatorName", &input.creator_name, 1, 200);
    let plan = input.plan.unwrap_or_else(|| "default".into());
    if !ctx.config.plans.contains_key(&plan) {
        errors.add(
            "plan",
            format!("no plan named {plan:?} in the configuration"),
        );
    }
    errors.finish()?;
    let now = ctx.now();
    let org = Organization {
        id: ids::new(ids::ORG),
        name: input.name,
        slug: input.slug,
        description: input.description,
        currency: org::DEFAULT_CURRENCY.into(),
        vat_number: None,
        billing_email: None,
        company_name: None,
        address_line1: None,
        address_line2: None,
        city: None,
        postal_code: None,
        country: None,
        overage_enabled: false,
        agents: Default::default(),
        plan,
        created_at: now.clone(),
        updated_at: now.clone(),
    };
    let (email, name) = (input.creator_email, input.creator_name);
    // Making someone the owner of an organization they did not ask for is for staff only, and
    // only when asked for by name (DESIGN §19).
    let may_attach = input.existing_user == Some(ExistingUser::Attach) && actor.staff;
    let grant = Grant::new(actor.audit_actor(), &org.id, &ops::CREATE_ORGANIZATION).on(&org.id);
    ctx.commit(grant, move |tx| {
        if store::orgs::slug_taken(tx, &org.slug, None)? {
            return Err(slug_conflict(&org.slug));
        }
        if !may_attach && store::users::by_email(tx, &email)?.is_some() {
            return Err(Error::UserExists(format!(
                "{email} belongs to an existing user; only instance staff can make them the owner, with \"existingUser\": \"attach\""
            )));
        }
        store::orgs::save(tx, &org)?;
        let user = users::find_or_create(tx, &email, &name, &now)?;
        store::orgs::add_member(tx, &org.id, &user.id, "owner", None, &now)?;
        let user = store::users::in_org(tx, &org.id, &user.id)?
            .ok_or_else(|| Error::internal("the new owner is not a member"))?;
        Ok(OrgCreated {
            org,
            user: user.into(),
        })
    })
    .await
}

pub async fn get(ctx: &Ctx, actor: &Actor, org_id: &str) -> Result<Organization> {
    actor.authorize(org_id, &ops::GET_ORGANIZATION)?;
    let org_id = org_id.to_string();
    ctx.db
        .point(|db| store::orgs::get(db, &org_id)?.ok_or(Error::NotFound))
}

pub async fn update(
    ctx: &Ctx,
    actor: &Actor,
    org_id: &str,
    input: Input<OrgPatchIn>,
) -> Result<Organization> {
    let grant = actor.authorize(org_id, &ops::UPDATE_ORGANIZATION)?;
    let patch = input.get()?;
    validate_patch(&patch)?;
    let (org_id, now) = (org_id.to_string(), ctx.now());
    ctx.write(grant, move |tx| {
        let mut org = store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)?;
        if let Some(slug) = &patch.slug
            && store::orgs::slug_taken(tx, slug, Some(&org_id))?
        {
            return Err(slug_conflict(slug));
        }
        apply(&mut org, patch);
        org.updated_at = now;
        store::orgs::save(tx, &org)?;
        Ok(org)
    })
    .await
}

fn validate_patch(patch: &OrgPatchIn) -> Result<()> {
    let mut errors = Violations::new();
    if let Some(name) = &patch.name {
        errors.length("name", name, 1, 200);
    }
    if let Some(slug) = &patch.slug {
        check_slug(&mut errors, slug);
    }
    if let Some(currency) = &patch.currency {
        errors.one_of("currency", currency, &org::CURRENCIES);
    }
    if let MaybeUndefined::Value(email) = &patch.billing_email
        && !is_email(email)
    {
        errors.add("billingEmail", "must be an e-mail address");
    }
    if let MaybeUndefined::Value(code) = &patch.country
        && !country::is_alpha2(code)
    {
        errors.add("country", "must be an ISO 3166-1 alpha-2 code such as DK");
    }
    let texts = [
        ("description", &patch.description, 2000),
        ("vatNumber", &patch.vat_number, 50),
        ("companyName", &patch.company_name, 200),
        ("addressLine1", &patch.address_line1, 200),
        ("addressLine2", &patch.address_line2, 200),
        ("city", &patch.city, 100),
        ("postalCode", &patch.postal_code, 20),
    ];
    for (field, value, max) in texts {
        if let MaybeUndefined::Value(text) = value {
            errors.length(field, text, 0, max);
        }
    }
    errors.finish()
}

fn apply(org: &mut Organization, patch: OrgPatchIn) {
    fn set<T>(field: &mut T, value: Option<T>) {
        if let Some(value) = value {
            *field = value;
        }
    }
    fn set_nullable(field: &mut Option<String>, value: MaybeUndefined<String>) {
        match value {
            MaybeUndefined::Undefined => {}
            MaybeUndefined::Null => *field = None,
            MaybeUndefined::Value(value) => *field = Some(value),
        }
    }
    set(&mut org.name, patch.name);
    set(&mut org.slug, patch.slug);
    set_nullable(&mut org.description, patch.description);
    set(&mut org.currency, patch.currency);
    set_nullable(&mut org.vat_number, patch.vat_number);
    set(&mut org.overage_enabled, patch.overage_enabled);
    if let Some(agents) = patch.agents {
        set(&mut org.agents.confirm_costly, agents.confirm_costly);
    }
    set_nullable(&mut org.billing_email, patch.billing_email);
    set_nullable(&mut org.company_name, patch.company_name);
    set_nullable(&mut org.address_line1, patch.address_line1);
    set_nullable(&mut org.address_line2, patch.address_line2);
    set_nullable(&mut org.city, patch.city);
    set_nullable(&mut org.postal_code, patch.postal_code);
    set_nullable(&mut org.country, patch.country);
}

fn check_slug(errors: &mut Violations, slug: &str) {
    if slug.is_empty() {
        errors.add("slug", "must not be empty");
    } else if !org::is_slug(slug) {
        errors.add("slug", "may contain only a-z, 0-9 and -");
    } else if slug.len() > 100 {
        errors.add("slug", "must be at most 100 characters long");
    }
}

fn slug_conflict(slug: &str) -> Error {
    Error::Conflict(format!("the slug {slug:?} is already taken"))
}

/// `shipbase org set-plan`: moves an organization to another plan of the configuration. Only
/// the administrator may; the new limits apply to the next write.
pub async fn set_plan(ctx: &Ctx, actor: &Actor, org_id: &str, plan: &str) -> Result<Organization> {
    if !actor.is_admin() {
        return Err(Error::InsufficientScope("admin".into()));
    }
    if !ctx.config.plans.contains_key(plan) {
        let known: Vec<&str> = ctx.config.plans.keys().map(String::as_str).collect();
        return Err(Error::invalid(
            "plan",
            format!(
                "no plan named {plan:?}; the configuration has {}",
                known.join(", ")
            ),
        ));
    }
    let (org_id, plan, now) = (org_id.to_string(), plan.to_string(), ctx.now());
    ctx.db
        .write(move |tx| {
            if !store::orgs::set_plan(tx, &org_id, &plan, &now)? {
                return Err(Error::NotFound);
            }
            store::orgs::get(tx, &org_id)?.ok_or(Error::NotFound)
        })
        .await
}

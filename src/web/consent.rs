//! `/oauth/authorize` as the user sees it (SPEC §5, DESIGN §12, §14): an invalid client or
//! redirect URI gets an error page (never a redirect); other bad requests go back to the client
//! with `error`; a valid one asks a signed-out user to sign in, then shows the consent page
//! "Authorize access", whose form sends Authorize or Deny back here.

use std::collections::BTreeMap;

use minijinja::{Value, context};
use poem::{Request, Response, handler, http::StatusCode, web::Data};
use serde::Serialize;

use crate::{
    model::scope::{Access, Resource, Scope},
    service::{
        Ctx,
        oauth::authorize::{self, Choice, Membership, Pending, Refusal},
    },
    web::{
        login::expired_form,
        page::{Visit, field, form_fields, see_other, to_value},
    },
};

#[handler]
pub async fn show(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let query = req.uri().query().unwrap_or_default();
    let params: BTreeMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let signed_in = visit.signed_in.is_some();
    let pending = match authorize::check(ctx, &params, signed_in).await {
        Ok(Ok(pending)) => pending,
        Ok(Err(Refusal::SignInFirst)) => return sign_in_first(query),
        Ok(Err(Refusal::Redirect(location))) => return see_other(&location),
        Ok(Err(Refusal::Page(why))) => {
            return visit.error(
                req,
                StatusCode::BAD_REQUEST,
                "This app cannot be authorized",
                &why,
            );
        }
        Err(err) => return visit.failed(req, err),
    };
    if !signed_in {
        return sign_in_first(query);
    }
    let chosen = Chosen {
        org_id: None,
        scopes: None,
    };
    page(&mut visit, req, StatusCode::OK, pending, chosen, None).await
}

/// To `/login`, and back to this request after signing in.
fn sign_in_first(query: &str) -> Response {
    let back = format!("/oauth/authorize?{query}");
    let login: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("next", &back)
        .finish();
    see_other(&format!("/login?{login}"))
}

#[handler]
pub async fn decide(req: &Request, Data(ctx): Data<&Ctx>, body: Vec<u8>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let fields = form_fields(&body);
    if !visit.csrf_ok(field(&fields, "csrf_token")) {
        return expired_form(&mut visit, req);
    }
    let Some((actor, _)) = visit.signed_in.clone() else {
        return visit.error(
            req,
            StatusCode::FORBIDDEN,
            "You are signed out",
            "Your session ended before you decided. Start again from your app.",
        );
    };
    let pending = match authorize::open(
        ctx,
        &actor,
        field(&fields, "request_id").unwrap_or_default(),
    ) {
        Ok(pending) => pending,
        Err(why) => {
            return visit.error(
                req,
                StatusCode::BAD_REQUEST,
                "This request has expired",
                &why,
            );
        }
    };
    let choice = Choice {
        allow: field(&fields, "decision") == Some("allow"),
        org_id: field(&fields, "org_id").unwrap_or_default().to_string(),
        scopes: fields
            .iter()
            .filter(|(k, _)| k == "scope")
            .map(|(_, v)| v.clone())
            .collect(),
    };
    let chosen = Chosen {
        org_id: Some(choice.org_id.clone()),
        scopes: Some(choice.scopes.clone()),
    };
    match authorize::decide(ctx, &actor, &pending, choice).await {
        Ok(Ok(location)) => see_other(&location),
        Ok(Err(problem)) => {
            page(
                &mut visit,
                req,
                StatusCode::BAD_REQUEST,
                pending,
                chosen,
                Some(problem),
            )
            .await
        }
        Err(err) => visit.failed(req, err),
    }
}

/// What the form shows as chosen: on first view everything offered (None), after a refused
/// post what the user sent.
struct Chosen {
    org_id: Option<String>,
    scopes: Option<Vec<String>>,
}

async fn page(
    visit: &mut Visit,
    req: &Request,
    status: StatusCode,
    pending: Pending,
    chosen: Chosen,
    error: Option<String>,
) -> Response {
    let Some((actor, _)) = visit.signed_in.clone() else {
        return see_other("/login");
    };
    let ctx = visit.ctx.clone();
    let orgs: Vec<Membership> = match authorize::organizations(&ctx, &actor).await {
        Ok(Ok(orgs)) => orgs,
        Ok(Err(why)) => {
            return visit.error(
                req,
                StatusCode::FORBIDDEN,
                "You cannot connect an AI agent",
                &why,
            );
        }
        Err(err) => return visit.failed(req, err),
    };
    let offered = authorize::offerable(&pending, &orgs);
    if offered.is_empty() {
        return visit.error(
            req,
            StatusCode::FORBIDDEN,
            "You cannot grant what this app asks for",
            &format!(
                "{} asks only for permissions your role does not hold. Ask an owner of the organization.",
                pending.client_name
            ),
        );
    }
    let checked = chosen.scopes.unwrap_or_else(|| offered.clone());
    let request_id = match authorize::seal(&ctx, &actor, pending.clone()) {
        Ok(sealed) => sealed,
        Err(err) => return visit.failed(req, err),
    };
    let orgs: Vec<Value> = orgs
        .iter()
        .map(|m| {
            to_value(OrgOption {
                org_id: &m.org_id,
                org_name: &m.org_name,
            })
        })
        .collect();
    visit.render(
        req,
        status,
        "consent.html",
        context! {
            redirect_host => pending.redirect_host(),
            document_host => pending.document_host,
            client_name => pending.client_name,
            request_id,
            orgs,
            chosen_org => chosen.org_id,
            groups => to_value(groups(&offered, &checked)),
            error,
        },
    )
}

#[derive(Serialize)]
struct OrgOption<'a> {
    org_id: &'a str,
    org_name: &'a str,
}

#[derive(Serialize)]
struct Group {
    label: &'static str,
    permissions: Vec<Permission>,
}

#[derive(Serialize)]
struct Permission {
    scope: String,
    label: &'static str,
    checked: bool,
}

/// The offered permissions grouped per resource, in the catalogue's order.
fn groups(offered: &[String], checked: &[String]) -> Vec<Group> {
    Resource::ALL
        .into_iter()
        .filter_map(|resource| {
            let permissions: Vec<Permission> = [Scope::read(resource), Scope::write(resource)]
                .into_iter()
                .map(|scope| scope.to_string())
                .filter(|scope| offered.contains(scope))
                .map(|scope| Permission {
                    checked: checked.contains(&scope),
                    label: match Scope::parse(&scope).map(|s| s.access) {
                        Some(Access::Write) => "Create and change",
                        _ => "View",
                    },
                    scope,
                })
                .collect();
            (!permissions.is_empty()).then_some(Group {
                label: resource.label(),
                permissions,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_are_grouped_per_resource_with_plain_labels() {
        let offered = vec![
            "read:shipments".to_string(),
            "write:shipments".into(),
            "read:orders".into(),
        ];
        let groups = groups(&offered, &["read:shipments".to_string()]);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].label, "Shipments and labels");
        assert_eq!(
            groups[0]
                .permissions
                .iter()
                .map(|p| (p.scope.as_str(), p.label, p.checked))
                .collect::<Vec<_>>(),
            [
                ("read:shipments", "View", true),
                ("write:shipments", "Create and change", false)
            ]
        );
        assert_eq!(groups[1].label, "Orders");
    }
}

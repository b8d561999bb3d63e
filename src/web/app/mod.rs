//! The workbench (DESIGN §20): the shop's own pages at `/app`, for the people who work in it.
//! Every page opens a `Desk`: the signed-in user acting in one organization with their role's
//! scopes (signed out: 303 to `/login?next=…`; not a member: 404), and calls the same service
//! operations as REST and MCP with that actor, so a role's limits (403, a page naming the role
//! needed) are the operations' own.

use std::collections::BTreeMap;

use minijinja::{Value, context};
use poem::{
    EndpointExt, Request, Response, Route, get, handler,
    http::StatusCode,
    middleware::CookieJarManager,
    web::{Data, Path},
};

use crate::{
    error::{Error, FieldError},
    model::{member::Membership, role::Role, scope::Scope},
    service::{Actor, Ctx, access::sessions, operations::Operation},
    web::{
        login::expired_form,
        page::{Visit, field, form_fields, see_other},
    },
};

mod branding;
mod carrier_prices;
mod end_of_day;
mod form_inputs;
mod notifications;
mod orders;
mod pickups;
mod returns_portal;
mod rule_form;
mod rules;
mod scan;
mod settings;
mod settings_extras;
mod settings_forms;
mod shipment_actions;
mod shipment_edit;
mod shipment_form;
mod shipment_parts;
mod shipments;

/// `routes` with the workbench's pages added.
pub fn routes(routes: Route) -> Route {
    let jar = CookieJarManager::new;
    routes
        .at("/app", get(organizations).with(jar()))
        .at("/app/:org", get(home).with(jar()))
        .at("/app/:org/changes", get(changes).with(jar()))
        .at("/app/:org/orders", get(orders::list).with(jar()))
        .at(
            "/app/:org/orders/:id",
            get(orders::show).post(orders::act).with(jar()),
        )
        .at(
            "/app/:org/shipments",
            get(shipments::list).post(shipments::bulk).with(jar()),
        )
        .at(
            "/app/:org/shipments/new",
            get(shipment_form::show)
                .post(shipment_form::submit)
                .with(jar()),
        )
        .at(
            "/app/:org/shipments/:id",
            get(shipments::show).post(shipment_actions::act).with(jar()),
        )
        .at(
            "/app/:org/shipments/:id/edit",
            get(shipment_edit::show)
                .post(shipment_edit::submit)
                .with(jar()),
        )
        .at(
            "/app/:org/shipments/:id/documents/:doc",
            get(shipments::document).with(jar()),
        )
        .at(
            "/app/:org/shipments/:id/documents/:doc/preview",
            get(shipments::preview).with(jar()),
        )
        .at(
            "/app/:org/pickups",
            get(pickups::show).post(pickups::submit).with(jar()),
        )
        .at(
            "/app/:org/end-of-day",
            get(end_of_day::show).post(end_of_day::submit).with(jar()),
        )
        .at(
            "/app/:org/end-of-day/:id/pdf",
            get(end_of_day::pdf).with(jar()),
        )
        .at(
            "/app/:org/scan",
            get(scan::show).post(scan::submit).with(jar()),
        )
        .at("/app/:org/settings", get(settings::index).with(jar()))
        .at(
            "/app/:org/settings/shipping-rules/new",
            get(rules::show_new).post(rules::submit_new).with(jar()),
        )
        .at(
            "/app/:org/settings/shipping-rules/:id",
            get(rules::show).post(rules::submit).with(jar()),
        )
        .at(
            "/app/:org/settings/branding",
            get(branding::show).post(branding::submit).with(jar()),
        )
        .at(
            "/app/:org/settings/returns-portal",
            get(returns_portal::show)
                .post(returns_portal::submit)
                .with(jar()),
        )
        .at(
            "/app/:org/settings/notifications",
            get(notifications::show)
                .post(notifications::submit)
                .with(jar()),
        )
        .at(
            "/app/:org/settings/branding/logo",
            get(branding::logo).with(jar()),
        )
        .at(
            "/app/:org/settings/:page",
            get(settings::show).post(settings_forms::submit).with(jar()),
        )
}

/// A signed-in member at work in one organization.
pub struct Desk {
    pub visit: Visit,
    pub actor: Actor,
    pub membership: Membership,
    pub org_id: String,
    /// The organization's latest change when a live page was made (its script compares it);
    /// None on the other pages.
    marker: Option<String>,
}

impl Desk {
    /// Opens `org_id` for the request's user, or the answer that replaces the page: 303 to sign
    /// in, or 404 for an organization they are not a member of.
    pub async fn open(req: &Request, ctx: &Ctx, org_id: &str) -> Result<Desk, Response> {
        let mut visit = Visit::of(req, ctx).await;
        let Some((_, user)) = visit.signed_in.clone() else {
            return Err(to_sign_in(req));
        };
        match sessions::in_org(ctx, &user, org_id).await {
            Ok(Some((actor, membership))) => Ok(Desk {
                visit,
                actor,
                membership,
                org_id: org_id.to_string(),
                marker: None,
            }),
            Ok(None) => Err(not_found(&mut visit, req)),
            Err(err) => Err(visit.failed(req, err)),
        }
    }

    /// Opens `org_id` for a posted form: the desk and the form's fields, or the answer that
    /// replaces the page (sign in, 404, or the expired-form page when its CSRF token is not
    /// this browser's).
    pub async fn open_form(
        req: &Request,
        ctx: &Ctx,
        org_id: &str,
        body: &[u8],
    ) -> Result<(Desk, Vec<(String, String)>), Response> {
        let mut desk = Desk::open(req, ctx, org_id).await?;
        let fields = form_fields(body);
        if !desk.visit.csrf_ok(field(&fields, "csrf_token")) {
            return Err(expired_form(&mut desk.visit, req));
        }
        Ok((desk, fields))
    }

    /// Makes the page live: it remembers the organization's latest change, which the page's
    /// script compares with `/app/{orgId}/changes`.
    pub async fn follow_changes(&mut self, ctx: &Ctx) {
        let marker = crate::service::live::change_marker(ctx, &self.actor, &self.org_id).await;
        self.marker = Some(marker.unwrap_or_default());
    }

    /// `/app/{orgId}/` followed by `rest`.
    pub fn path(&self, rest: &str) -> String {
        format!("/app/{}/{rest}", self.org_id)
    }

    /// The printer this browser prints on in this organization (Scan → "This station"), if one
    /// was chosen.
    pub fn station(&self, req: &Request) -> Option<String> {
        req.cookie()
            .get(&station_cookie(&self.org_id))
            .map(|c| c.value_str().to_string())
            .filter(|id| id.starts_with("prn_"))
    }

    /// Remembers `printer_id` as this browser's printer in this organization (a year).
    pub fn choose_station(&self, req: &Request, printer_id: &str) {
        let mut cookie = self.visit.cookie(&station_cookie(&self.org_id), printer_id);
        cookie.set_max_age(std::time::Duration::from_secs(365 * 86_400));
        req.cookie().add(cookie);
    }

    /// Sends the labels of shipment `id` to this station's printer: how many were queued, or
    /// None without a station printer.
    pub async fn print_labels(
        &self,
        req: &Request,
        ctx: &Ctx,
        id: &str,
    ) -> Option<crate::error::Result<usize>> {
        let printer_id = self.station(req)?;
        let request = crate::model::printer::PrintIn {
            printer_id,
            document_type: None,
        };
        let printed = crate::service::printing::print_documents(
            ctx,
            &self.actor,
            &self.org_id,
            id,
            crate::service::Input::ok(request),
        )
        .await;
        Some(printed.map(|jobs| jobs.print_jobs.len()))
    }

    /// `print_labels` for the page: a sentence saying how it went, or None without a station
    /// printer.
    pub async fn print_labels_said(&self, req: &Request, ctx: &Ctx, id: &str) -> Option<String> {
        Some(match self.print_labels(req, ctx, id).await? {
            Ok(n) => format!(
                "{n} label{} sent to this station's printer.",
                if n == 1 { "" } else { "s" }
            ),
            Err(err) => format!("The labels were not printed: {err}"),
        })
    }

    /// Whether the user's role allows `operation` (so the page offers it).
    pub fn may(&self, operation: &'static Operation) -> bool {
        self.actor.scopes.grants(operation.scope)
    }

    /// Renders one of the workbench's pages: `template` with `values`, the navigation and the
    /// organization.
    pub fn render(
        &mut self,
        req: &Request,
        template: &str,
        section: &str,
        values: Value,
    ) -> Response {
        let nav = context! {
            org_id => self.org_id.clone(),
            org_name => self.membership.org_name.clone(),
            role => self.membership.role.clone(),
            marker => self.marker.clone(),
            section,
        };
        let live = self.marker.is_some();
        self.visit.render(
            req,
            StatusCode::OK,
            template,
            context! { nav, live, ..values },
        )
    }

    /// The page for an operation's failure: 404 for what is not there, 403 naming the role a
    /// refused operation needs, the error page for the rest.
    pub fn refused(&mut self, req: &Request, err: Error) -> Response {
        match err {
            Error::NotFound => not_found(&mut self.visit, req),
            Error::InsufficientScope(scope) | Error::Forbidden(scope) => {
                let role = role_for(&scope);
                self.visit.error(
                    req,
                    StatusCode::FORBIDDEN,
                    "Not for your role",
                    &format!(
                        "This needs the {role} role (or a role above it) in {}; you are {} {}. \
                         Ask an owner of the organization if you need it.",
                        self.membership.org_name,
                        article(&self.membership.role),
                        self.membership.role
                    ),
                )
            }
            err => self.visit.failed(req, err),
        }
    }

    /// Checks the role allows `operation` before a page that needs it is shown.
    pub fn require(&mut self, req: &Request, operation: &'static Operation) -> Option<Response> {
        (!self.may(operation))
            .then(|| self.refused(req, Error::InsufficientScope(operation.scope.to_string())))
    }
}

/// The query of a list's filters that are set, each followed by `&`, for its paging links.
pub(super) fn keep(filters: &[(&str, Option<&str>)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in filters {
        if let Some(value) = value.filter(|v| !v.trim().is_empty()) {
            query.append_pair(name, value);
        }
    }
    let query = query.finish();
    if query.is_empty() {
        query
    } else {
        format!("{query}&")
    }
}

/// A form's values by name, trimmed, without its CSRF token.
pub(super) fn form_values(fields: &[(String, String)]) -> BTreeMap<String, String> {
    fields
        .iter()
        .filter(|(k, _)| k != "csrf_token")
        .map(|(k, v)| (k.clone(), v.trim().to_string()))
        .collect()
}

/// An operation's problems by the form input each belongs to (`input` maps a problem's field to
/// it); a problem with no input of its own goes under "" with its field named.
pub(super) fn problems_at(
    problems: Vec<FieldError>,
    input: impl Fn(&str) -> Option<String>,
) -> BTreeMap<String, String> {
    problems
        .into_iter()
        .map(|p| match input(&p.field) {
            Some(at) => (at, p.message),
            None => (String::new(), format!("{}: {}", p.field, p.message)),
        })
        .collect()
}

/// Whether an operation's failure is a refusal (not there, or not for the role) rather than a
/// problem the form can show.
pub(super) fn is_refusal(err: &Error) -> bool {
    matches!(
        err,
        Error::NotFound | Error::InsufficientScope(_) | Error::Forbidden(_)
    )
}

fn station_cookie(org_id: &str) -> String {
    format!("shipbase_station_{org_id}")
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The least role whose scopes include `scope` (a scope's text, e.g. `read:webhooks`); the
/// text itself when it is no scope (a forbidden operation's reason).
fn role_for(scope: &str) -> &'static str {
    let Some(scope) = Scope::parse(scope) else {
        return "owner";
    };
    [Role::Member, Role::Admin, Role::Owner]
        .into_iter()
        .find(|role| role.cap().grants(scope))
        .map_or("owner", Role::as_str)
}

fn not_found(visit: &mut Visit, req: &Request) -> Response {
    visit.error(
        req,
        StatusCode::NOT_FOUND,
        "Not found",
        "There is nothing here, or it belongs to an organization you are not a member of.",
    )
}

/// 303 to `/login` with the page asked for as `next`.
pub fn to_sign_in(req: &Request) -> Response {
    let path = req.uri().path_and_query().map_or("/app", |p| p.as_str());
    let next: String = url::form_urlencoded::byte_serialize(path.as_bytes()).collect();
    see_other(&format!("/login?next={next}"))
}

/// `/`: the product and a way in; signed in, straight to the workbench. Routed by the app
/// beside the API, which is nested at `/`.
#[handler]
pub async fn front_door(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    if visit.user().is_some() {
        return see_other("/app");
    }
    visit.render(req, StatusCode::OK, "front.html", context! {})
}

/// `/app`: the user's organizations; straight into the only one.
#[handler]
async fn organizations(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let Some((_, user)) = visit.signed_in.clone() else {
        return to_sign_in(req);
    };
    let memberships = match sessions::memberships(ctx, &user.id).await {
        Ok(list) => list,
        Err(err) => return visit.failed(req, err),
    };
    if let [only] = memberships.as_slice() {
        return see_other(&format!("/app/{}/orders", only.org_id));
    }
    visit.render(
        req,
        StatusCode::OK,
        "app/organizations.html",
        context! { memberships => crate::web::page::to_value(memberships_view(&memberships)) },
    )
}

fn memberships_view(memberships: &[Membership]) -> Vec<serde_json::Value> {
    memberships
        .iter()
        .map(|m| serde_json::json!({"id": m.org_id, "name": m.org_name, "role": m.role}))
        .collect()
}

/// `/app/{orgId}/changes`: `{"marker": …}`, the organization's latest change, which live lists
/// poll.
#[handler]
async fn changes(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    let mut desk = match Desk::open(req, ctx, &org).await {
        Ok(desk) => desk,
        Err(answer) => return answer,
    };
    match crate::service::live::change_marker(ctx, &desk.actor, &org).await {
        Ok(marker) => Response::builder()
            .content_type("application/json")
            .header("Cache-Control", "no-store")
            .body(serde_json::json!({ "marker": marker }).to_string()),
        Err(err) => desk.refused(req, err),
    }
}

/// `/app/{orgId}`: the order inbox is where the day starts.
#[handler]
async fn home(req: &Request, Data(ctx): Data<&Ctx>, Path(org): Path<String>) -> Response {
    match Desk::open(req, ctx, &org).await {
        Ok(desk) => see_other(&desk.path("orders")),
        Err(answer) => answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_least_role_that_may() {
        assert_eq!(role_for("read:webhooks"), "admin");
        assert_eq!(role_for("write:shipments"), "member");
        assert_eq!(role_for("write:billing"), "owner");
        assert_eq!(role_for("write:orgs"), "admin");
        assert_eq!(role_for("no scope at all"), "owner");
    }

    #[test]
    fn paging_links_keep_the_filters_that_are_set() {
        assert_eq!(
            keep(&[
                ("status", Some("pending")),
                ("q", None),
                ("from", Some("2026-11-26"))
            ]),
            "status=pending&from=2026-11-26&"
        );
        assert_eq!(keep(&[("q", Some("R&D 1"))]), "q=R%26D+1&");
        assert_eq!(keep(&[("q", Some(" "))]), "");
    }
}

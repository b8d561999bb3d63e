//! `/login` and `/logout` (DESIGN §14): sign in with e-mail and password, then back to `next`
//! (a local path only); sign out ends the session on the server.

use minijinja::context;
use poem::{
    Request, Response, handler,
    http::StatusCode,
    web::{Data, Query},
};
use serde::Deserialize;

use crate::{
    service::{Ctx, access::sessions},
    web::page::{Visit, field, form_fields, local_path, see_other},
};

/// Where a sign-in goes when it names nowhere.
const HOME: &str = "/settings/apps";

#[derive(Deserialize)]
pub struct Next {
    next: Option<String>,
}

#[handler]
pub async fn form(req: &Request, Data(ctx): Data<&Ctx>, Query(query): Query<Next>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let next = local_path(query.next.as_deref(), HOME).to_string();
    if visit.user().is_some() {
        return see_other(&next);
    }
    visit.render(
        req,
        StatusCode::OK,
        "login.html",
        context! { next, email => "", error => None::<String> },
    )
}

#[handler]
pub async fn submit(req: &Request, Data(ctx): Data<&Ctx>, body: Vec<u8>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    let fields = form_fields(&body);
    if !visit.csrf_ok(field(&fields, "csrf_token")) {
        return expired_form(&mut visit, req);
    }
    let next = local_path(field(&fields, "next"), HOME).to_string();
    let email = field(&fields, "email").unwrap_or_default().to_string();
    let password = field(&fields, "password").unwrap_or_default();
    let address = crate::service::access::request::address();
    let again = |visit: &mut Visit, status, error: String| {
        let (next, email) = (next.clone(), email.clone());
        visit.render(req, status, "login.html", context! { next, email, error })
    };
    match sessions::sign_in(ctx, &email, password, address).await {
        Ok(sessions::SignIn::Session { token, .. }) => {
            visit.set_session(req, &token);
            see_other(&next)
        }
        Ok(sessions::SignIn::Refused) => again(
            &mut visit,
            StatusCode::BAD_REQUEST,
            "The e-mail or the password is wrong.".into(),
        ),
        Ok(sessions::SignIn::Throttled { retry_after }) => {
            let mut response = again(
                &mut visit,
                StatusCode::TOO_MANY_REQUESTS,
                format!("Too many failed attempts. Try again in {retry_after} seconds."),
            );
            if let Ok(value) = retry_after.to_string().parse() {
                response.headers_mut().insert("Retry-After", value);
            }
            response
        }
        Err(err) => visit.failed(req, err),
    }
}

#[handler]
pub async fn confirm(req: &Request, Data(ctx): Data<&Ctx>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    if visit.user().is_none() {
        return see_other("/login");
    }
    visit.render(req, StatusCode::OK, "logout.html", context! {})
}

#[handler]
pub async fn logout(req: &Request, Data(ctx): Data<&Ctx>, body: Vec<u8>) -> Response {
    let mut visit = Visit::of(req, ctx).await;
    if !visit.csrf_ok(field(&form_fields(&body), "csrf_token")) {
        return expired_form(&mut visit, req);
    }
    if let Some(cookie) = req.cookie().get(crate::web::page::SESSION_COOKIE)
        && let Err(err) = sessions::sign_out(ctx, cookie.value_str()).await
    {
        tracing::error!(error = %err, "cannot end a session");
    }
    visit.clear_session(req);
    see_other("/login")
}

/// The answer to a form post without a valid CSRF token: 403, nothing changed.
pub fn expired_form(visit: &mut Visit, req: &Request) -> Response {
    visit.error(
        req,
        StatusCode::FORBIDDEN,
        "This form has expired",
        "The form was not sent from this browser's page, or it is too old. Go back, reload the page and try again.",
    )
}

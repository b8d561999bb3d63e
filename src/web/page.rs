//! What every page shares: templates rendered with auto-escaping, the security headers, the
//! session cookie, and CSRF tokens. A CSRF token is the vault's tag of a random per-browser
//! cookie (`shipbase_csrf`), so a form posted without the cookie and its token is refused; the
//! session cookie is HttpOnly and SameSite=Lax (and Secure when the base URL is https).

use std::sync::OnceLock;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use minijinja::{Environment, Value, context};
use poem::{
    Request, Response,
    http::{StatusCode, header},
    web::cookie::{Cookie, SameSite},
};

use crate::{
    model::user::UserRecord,
    service::{Actor, Ctx, access::sessions, oauth},
};

pub const SESSION_COOKIE: &str = "shipbase_session";
pub const CSRF_COOKIE: &str = "shipbase_csrf";
/// A one-time message for the next page (after a form's redirect).
const NOTICE_COOKIE: &str = "shipbase_notice";
const CSRF_PURPOSE: &str = "csrf";

/// Content-Security-Policy of every page: own styles and scripts only (no inline script), own
/// fetches only, never framed.
const CSP: &str = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/// A stored time (`2026-11-27T10:04:05.123Z`) to the minute, as pages show it
/// (`2026-11-27 10:04`).
pub(crate) fn to_minute(at: &str) -> String {
    at.get(..16).unwrap_or(at).replacen('T', " ", 1)
}

pub(crate) fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, source) in [
            ("base.html", include_str!("../../templates/base.html")),
            ("login.html", include_str!("../../templates/login.html")),
            ("logout.html", include_str!("../../templates/logout.html")),
            ("error.html", include_str!("../../templates/error.html")),
            ("consent.html", include_str!("../../templates/consent.html")),
            ("apps.html", include_str!("../../templates/apps.html")),
            ("front.html", include_str!("../../templates/front.html")),
            (
                "tracking.html",
                include_str!("../../templates/tracking.html"),
            ),
            (
                "customer/base.html",
                include_str!("../../templates/customer/base.html"),
            ),
            (
                "customer/unsubscribe.html",
                include_str!("../../templates/customer/unsubscribe.html"),
            ),
            (
                "customer/portal.html",
                include_str!("../../templates/customer/portal.html"),
            ),
            (
                "app/base.html",
                include_str!("../../templates/app/base.html"),
            ),
            (
                "app/pager.html",
                include_str!("../../templates/app/pager.html"),
            ),
            (
                "app/organizations.html",
                include_str!("../../templates/app/organizations.html"),
            ),
            (
                "app/rule.html",
                include_str!("../../templates/app/rule.html"),
            ),
            (
                "app/branding.html",
                include_str!("../../templates/app/branding.html"),
            ),
            (
                "app/notifications.html",
                include_str!("../../templates/app/notifications.html"),
            ),
            (
                "app/returns_portal.html",
                include_str!("../../templates/app/returns_portal.html"),
            ),
            (
                "app/orders.html",
                include_str!("../../templates/app/orders.html"),
            ),
            (
                "app/order.html",
                include_str!("../../templates/app/order.html"),
            ),
            (
                "app/shipments.html",
                include_str!("../../templates/app/shipments.html"),
            ),
            (
                "app/shipment.html",
                include_str!("../../templates/app/shipment.html"),
            ),
            (
                "app/shipment_new.html",
                include_str!("../../templates/app/shipment_new.html"),
            ),
            (
                "app/scan.html",
                include_str!("../../templates/app/scan.html"),
            ),
            (
                "app/pickups.html",
                include_str!("../../templates/app/pickups.html"),
            ),
            (
                "app/end_of_day.html",
                include_str!("../../templates/app/end_of_day.html"),
            ),
            (
                "app/settings.html",
                include_str!("../../templates/app/settings.html"),
            ),
            (
                "app/settings_page.html",
                include_str!("../../templates/app/settings_page.html"),
            ),
        ] {
            if let Err(err) = env.add_template(name, source) {
                tracing::error!(error = %err, template = name, "a page template does not parse");
            }
        }
        env
    })
}

/// The request as the pages see it: its signed-in user, and its CSRF cookie.
pub struct Visit {
    pub ctx: Ctx,
    pub signed_in: Option<(Actor, UserRecord)>,
    csrf_cookie: Option<String>,
    secure: bool,
}

impl Visit {
    pub async fn of(req: &Request, ctx: &Ctx) -> Visit {
        let ctx = ctx.clone();
        let jar = req.cookie();
        let signed_in = match jar.get(SESSION_COOKIE) {
            Some(cookie) => sessions::actor(&ctx, cookie.value_str())
                .await
                .unwrap_or_else(|err| {
                    tracing::error!(error = %err, "cannot read a session");
                    None
                }),
            None => None,
        };
        let csrf_cookie = jar
            .get(CSRF_COOKIE)
            .map(|c| c.value_str().to_string())
            .filter(|v| v.len() == 43);
        let secure = oauth::issuer(&ctx).starts_with("https://");
        Visit {
            ctx,
            signed_in,
            csrf_cookie,
            secure,
        }
    }

    pub fn user(&self) -> Option<&UserRecord> {
        self.signed_in.as_ref().map(|(_, user)| user)
    }

    /// The CSRF token for this browser's forms, setting its cookie when it has none.
    pub fn csrf_token(&mut self, req: &Request) -> String {
        let cookie = match &self.csrf_cookie {
            Some(value) => value.clone(),
            None => {
                let value = oauth::new_secret().unwrap_or_default();
                req.cookie().add(self.cookie(CSRF_COOKIE, &value));
                self.csrf_cookie = Some(value.clone());
                value
            }
        };
        URL_SAFE_NO_PAD.encode(self.ctx.vault.tag(CSRF_PURPOSE, cookie.as_bytes()))
    }

    /// Whether a posted `csrf_token` belongs to this browser's CSRF cookie.
    pub fn csrf_ok(&self, token: Option<&str>) -> bool {
        match (
            &self.csrf_cookie,
            token.and_then(|t| URL_SAFE_NO_PAD.decode(t).ok()),
        ) {
            (Some(cookie), Some(tag)) => {
                self.ctx
                    .vault
                    .check_tag(CSRF_PURPOSE, cookie.as_bytes(), &tag)
            }
            _ => false,
        }
    }

    /// A cookie of the pages: HttpOnly, SameSite=Lax, path /, Secure behind https.
    pub fn cookie(&self, name: &str, value: &str) -> Cookie {
        let mut cookie = Cookie::new_with_str(name, value);
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Lax);
        cookie.set_path("/");
        cookie.set_secure(self.secure);
        cookie
    }

    /// Leaves `message` for the next page this browser shows.
    pub fn leave_notice(&self, req: &Request, message: &str) {
        let mut cookie = self.cookie(NOTICE_COOKIE, &URL_SAFE_NO_PAD.encode(message));
        cookie.set_max_age(std::time::Duration::from_secs(60));
        req.cookie().add(cookie);
    }

    /// The message a form left for this page, once.
    pub fn take_notice(&self, req: &Request) -> Option<String> {
        let cookie = req.cookie().get(NOTICE_COOKIE)?;
        let mut removal = self.cookie(NOTICE_COOKIE, "");
        removal.make_removal();
        req.cookie().add(removal);
        URL_SAFE_NO_PAD
            .decode(cookie.value_str())
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
    }

    /// Starts the session of a sign-in.
    pub fn set_session(&self, req: &Request, token: &str) {
        let mut cookie = self.cookie(SESSION_COOKIE, token);
        cookie.set_max_age(std::time::Duration::from_secs(
            u64::try_from(sessions::SESSION_DAYS * 86_400).unwrap_or(0),
        ));
        req.cookie().add(cookie);
    }

    pub fn clear_session(&self, req: &Request) {
        let mut cookie = self.cookie(SESSION_COOKIE, "");
        cookie.make_removal();
        req.cookie().add(cookie);
    }

    /// Renders `template` with `values`, the signed-in user and a CSRF token.
    pub fn render(
        &mut self,
        req: &Request,
        status: StatusCode,
        template: &str,
        values: Value,
    ) -> Response {
        let csrf = self.csrf_token(req);
        let user = self
            .user()
            .map(|u| context! { name => u.name.clone(), email => u.email.clone() });
        let values = context! { user, csrf, ..values };
        let html = templates()
            .get_template(template)
            .and_then(|t| t.render(values))
            .unwrap_or_else(|err| {
                tracing::error!(error = %err, template, "cannot render a page");
                "<!doctype html><title>Error</title><p>This page cannot be shown.</p>".into()
            });
        html_response(status, html)
    }

    /// The page of a request that failed on the server's side (the cause goes to the log).
    pub fn failed(&mut self, req: &Request, err: crate::error::Error) -> Response {
        tracing::error!(error = %err, path = req.uri().path(), "a page failed");
        self.error(
            req,
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "The request could not be completed on our side. Try again in a moment.",
        )
    }

    /// An error page with a heading and a message.
    pub fn error(
        &mut self,
        req: &Request,
        status: StatusCode,
        heading: &str,
        message: &str,
    ) -> Response {
        self.render(req, status, "error.html", context! { heading, message })
    }
}

/// A serializable value for a template.
pub fn to_value<T: serde::Serialize>(value: T) -> Value {
    Value::from(minijinja::value::Serde(value))
}

/// An HTML answer with the pages' security headers; never cached.
pub fn html_response(status: StatusCode, html: String) -> Response {
    with_page_headers(Response::builder().status(status))
        .content_type("text/html; charset=utf-8")
        .body(html)
}

/// A 303 to `location` (after a form post, or to sign in).
pub fn see_other(location: &str) -> Response {
    with_page_headers(Response::builder().status(StatusCode::SEE_OTHER))
        .header(header::LOCATION, location)
        .finish()
}

fn with_page_headers(builder: poem::ResponseBuilder) -> poem::ResponseBuilder {
    builder
        .header(header::CACHE_CONTROL, "no-store")
        .header("Content-Security-Policy", CSP)
        .header(header::X_FRAME_OPTIONS, "DENY")
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
}

/// `next` when it is a path on this server, else `fallback`: never a URL that leaves the
/// site (`//host`, `/\host`, a scheme, control characters).
pub fn local_path<'a>(next: Option<&'a str>, fallback: &'a str) -> &'a str {
    next.filter(|n| {
        n.starts_with('/')
            && !n.starts_with("//")
            && !n.starts_with("/\\")
            && !n.chars().any(|c| c.is_control() || c == '\\')
    })
    .unwrap_or(fallback)
}

/// The fields of an `application/x-www-form-urlencoded` body, in order (names may repeat).
pub fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

/// The first value of `name` in `fields`.
pub fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_file_is_loaded_and_parses() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let mut files = Vec::new();
        for sub in ["", "app"] {
            for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                if name.ends_with(".html") {
                    files.push(if sub.is_empty() {
                        name
                    } else {
                        format!("{sub}/{name}")
                    });
                }
            }
        }
        for file in &files {
            assert!(
                templates().get_template(file).is_ok(),
                "{file} is not loaded, or does not parse"
            );
        }
    }

    #[test]
    fn next_is_followed_only_to_local_paths() {
        for local in ["/settings/apps", "/oauth/authorize?client_id=x&state=y"] {
            assert_eq!(local_path(Some(local), "/home"), local);
        }
        for offsite in [
            "https://evil.example/steal",
            "//evil.example/steal",
            "/\\evil.example/steal",
            "http://evil.example",
            "javascript:alert(1)",
            "/ok\\..\\",
            "/line\nbreak",
            "",
        ] {
            assert_eq!(local_path(Some(offsite), "/home"), "/home", "{offsite:?}");
        }
        assert_eq!(local_path(None, "/home"), "/home");
    }

    #[test]
    fn every_template_parses() {
        for name in [
            "login.html",
            "logout.html",
            "error.html",
            "consent.html",
            "apps.html",
            "front.html",
            "app/organizations.html",
            "app/orders.html",
            "app/order.html",
            "app/shipments.html",
            "app/shipment.html",
            "app/shipment_new.html",
            "app/scan.html",
            "app/settings.html",
            "app/settings_page.html",
        ] {
            assert!(templates().get_template(name).is_ok(), "{name}");
        }
    }
}

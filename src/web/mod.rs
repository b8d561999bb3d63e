//! The pages (the front door, the workbench at /app, sign-in, consent, Apps & integrations) and the OAuth 2.1 authorization server's
//! endpoints: plain poem handlers beside the REST API, outside its OpenAPI document. Pages are
//! rendered on the server from `templates/` and work without JavaScript.

use poem::{
    EndpointExt, Route, get,
    middleware::{CookieJarManager, Cors},
    post,
};

pub mod app;
pub mod apps;
pub mod assets;
pub mod consent;
pub mod login;
pub mod oauth;
pub mod page;
pub mod portal;
pub mod tracking;
pub mod unsubscribe;

/// `routes` with the pages and the OAuth endpoints added.
pub fn routes(routes: Route) -> Route {
    let open = || Cors::new().allow_credentials(false);
    app::routes(routes)
        .at("/static/*path", get(assets::serve).head(assets::serve))
        .at("/t/:token", get(tracking::show))
        .at("/t/:token/brand.css", get(tracking::brand_css))
        .at("/t/:token/logo", get(tracking::logo))
        .at(
            "/u/:token",
            get(unsubscribe::show).post(unsubscribe::confirm),
        )
        .at("/u/:token/brand.css", get(unsubscribe::brand_css))
        .at("/r/:slug", get(portal::show).post(portal::submit))
        .at("/r/:slug/brand.css", get(portal::brand_css))
        .at("/r/:slug/labels/:token", get(portal::label))
        .at(
            "/login",
            get(login::form)
                .post(login::submit)
                .with(CookieJarManager::new()),
        )
        .at(
            "/logout",
            get(login::confirm)
                .post(login::logout)
                .with(CookieJarManager::new()),
        )
        .at("/settings", get(apps::settings))
        .at(
            "/settings/apps",
            get(apps::show).with(CookieJarManager::new()),
        )
        .at(
            "/settings/apps/connections/:id/disconnect",
            post(apps::disconnect).with(CookieJarManager::new()),
        )
        .at(
            "/oauth/authorize",
            get(consent::show)
                .post(consent::decide)
                .with(CookieJarManager::new()),
        )
        .at("/oauth/token", post(oauth::token).with(open()))
        .at("/oauth/register", post(oauth::register).with(open()))
        .at("/oauth/revoke", post(oauth::revoke).with(open()))
        .at("/oauth/jwks", get(oauth::jwks).with(open()))
        .at(
            "/.well-known/oauth-authorization-server",
            get(oauth::server_metadata).with(open()),
        )
        .at(
            "/.well-known/oauth-protected-resource",
            get(oauth::resource_metadata).with(open()),
        )
        .at(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::mcp_resource_metadata).with(open()),
        )
}

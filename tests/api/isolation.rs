//! Walks every org-scoped operation of /openapi.json, so that a route added later without its
//! checks fails here: (a) no credential → 401, (b) another organization's token → 404,
//! (c) a token holding every scope except the one the route documents → 403.

use reqwest::Method;
use serde_json::{Value, json};
use shipbase::model::scope::Scope;

use crate::helpers::TestApp;

const UNKNOWN_ID: &str = "x_01ARZ3NDEKTSV4RRFFQ69G5FAV";

struct Route {
    method: Method,
    template: String,
    scope: Scope,
    has_body: bool,
}

fn org_routes(document: &Value) -> Vec<Route> {
    let mut routes = Vec::new();
    for (template, item) in document["paths"].as_object().into_iter().flatten() {
        if !template.starts_with("/orgs/{orgId}") {
            continue;
        }
        for (method, op) in item.as_object().into_iter().flatten() {
            let description = format!(
                "{} {}",
                op["summary"].as_str().unwrap_or(""),
                op["description"].as_str().unwrap_or("")
            );
            let scope = description
                .split("Scope: `")
                .nth(1)
                .and_then(|rest| rest.split('`').next())
                .and_then(Scope::parse)
                .unwrap_or_else(|| panic!("{method} {template} documents no scope"));
            routes.push(Route {
                method: method.to_uppercase().parse().expect("method"),
                template: template.clone(),
                scope,
                has_body: op.get("requestBody").is_some(),
            });
        }
    }
    routes
}

fn path_for(template: &str, org_id: &str) -> String {
    template
        .split('/')
        .map(|segment| match segment {
            "{orgId}" => org_id,
            s if s.starts_with('{') => UNKNOWN_ID,
            s => s,
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn every_org_route_checks_credential_organization_and_scope() {
    let app = TestApp::spawn().await;
    let victim = app.create_org();
    let attacker = app.create_org();
    let document = app
        .call(Method::GET, "/openapi.json", None, None)
        .await
        .expect(200);
    let routes = org_routes(&document);
    assert!(
        routes.len() >= 25,
        "only {} org routes documented",
        routes.len()
    );

    for route in &routes {
        let path = path_for(&route.template, &victim.id);
        let body = route.has_body.then(|| json!({}));
        let name = format!("{} {}", route.method, route.template);

        let anonymous = app
            .call(route.method.clone(), &path, None, body.clone())
            .await;
        assert_eq!(
            anonymous.status, 401,
            "{name} without a credential: {}",
            anonymous.text
        );
        anonymous.problem(401, "unauthenticated");

        let foreign = app
            .call(
                route.method.clone(),
                &path,
                Some(&attacker.token),
                body.clone(),
            )
            .await;
        assert_eq!(
            foreign.status, 404,
            "{name} with another org's token: {}",
            foreign.text
        );
        foreign.problem(404, "not_found");

        let others: Vec<String> = Scope::catalogue()
            .into_iter()
            .filter(|s| !s.grants(route.scope))
            .map(|s| s.to_string())
            .collect();
        let token = app
            .post(
                &format!("/orgs/{}/api-tokens", victim.id),
                &victim.token,
                json!({"name": "all but one", "scopes": others}),
            )
            .await
            .expect(201)["token"]
            .as_str()
            .expect("token")
            .to_string();
        let scoped = app
            .call(route.method.clone(), &path, Some(&token), body)
            .await;
        assert_eq!(
            scoped.status, 403,
            "{name} without {}: {}",
            route.scope, scoped.text
        );
        let header = scoped.header("www-authenticate");
        assert!(
            header.contains(&format!("scope=\"{}\"", route.scope)),
            "{name}: {header}"
        );
        scoped.problem(403, "insufficient_scope");
    }
}

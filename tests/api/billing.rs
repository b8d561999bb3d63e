//! Plans and usage (SPEC §2 Usage, row 4; DESIGN §10): each limit answers 402 at the limit and
//! succeeds below it, shipments past the included ones are refused or counted as overage, the
//! period is the calendar month in UTC, and concurrent creates cannot pass a limit together.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use shipbase::model::time::Clock;

use crate::{
    fixtures::{
        carrier_body, id_of, order_channel_body, rule_body, sender_address_body, shipment_body,
    },
    helpers::{TestApp, TestOrg},
};

const PLANS: &str = r#"
[plans.tiny]
team_members = 2
carriers = 2
order_channels = 2
shipping_rules = 2
sender_addresses = 2
api_tokens = 3
shipments = 3
overage_price = 1.5

[[plans.tiny.add_ons]]
type = "extra_carrier"
quantity = 1
unit_price = 10.0
"#;

async fn tiny() -> (TestApp, TestOrg) {
    let app = TestApp::spawn_with(PLANS).await;
    let org = app.create_org();
    set_plan(&app, &org, "tiny");
    (app, org)
}

fn set_plan(app: &TestApp, org: &TestOrg, plan: &str) {
    let out = app.cli(&["org", "set-plan", &org.id, plan]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn usage(app: &TestApp, org: &TestOrg) -> Value {
    app.get(&format!("/orgs/{}/billing/usage", org.id), &org.token)
        .await
        .expect(200)
}

async fn post(app: &TestApp, org: &TestOrg, rest: &str, body: Value) -> crate::helpers::Reply {
    app.post(&format!("/orgs/{}{rest}", org.id), &org.token, body)
        .await
}

#[tokio::test]
async fn a_new_org_on_an_unlimited_plan_reports_every_field() {
    let at = time::macros::datetime!(2026-11-23 10:15:30.123 UTC);
    let app = TestApp::spawn_with_clock("", Clock::Fixed(at)).await;
    let org = app.create_org();
    assert_eq!(
        usage(&app, &org).await,
        json!({
            "currentPeriod": {"start": "2026-11-01T00:00:00.000Z", "end": "2026-12-01T00:00:00.000Z"},
            "shipments": {"used": 0, "included": 0, "overage": 0, "overageCharges": 0.0},
            "limits": {
                "teamMembers": {"used": 1, "limit": 0},
                "carriers": {"used": 0, "limit": 0},
                "orderChannels": {"used": 0, "limit": 0},
                "shippingRules": {"used": 0, "limit": 0},
                "senderAddresses": {"used": 0, "limit": 0},
                "apiTokens": {"used": 1, "limit": 0}
            },
            "addOns": []
        })
    );
}

#[tokio::test]
async fn the_plan_sets_the_limits_and_add_ons_raise_them() {
    let (app, org) = tiny().await;
    let usage = usage(&app, &org).await;
    assert_eq!(usage["limits"]["carriers"], json!({"used": 0, "limit": 3}));
    assert_eq!(usage["limits"]["senderAddresses"]["limit"], 2);
    assert_eq!(usage["shipments"]["included"], 3);
    assert_eq!(
        usage["addOns"],
        json!([{"type": "extra_carrier", "quantity": 1, "unitPrice": 10.0, "totalPrice": 10.0}])
    );
}

#[tokio::test]
async fn each_resource_limit_is_402_at_the_limit_and_fine_below_it() {
    let (app, org) = tiny().await;
    let created = fill(&app, &org, "/sender-addresses", sender_address_body(), 2).await;
    let problem = post(&app, &org, "/sender-addresses", sender_address_body())
        .await
        .problem(402, "plan_limit_reached");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("sender addresses"),
        "{problem}"
    );
    let address_id = id_of(&created[0]);

    let carriers = fill(&app, &org, "/carriers", carrier_body(&address_id), 3).await;
    let rule = rule_body(&id_of(&carriers[0]), &address_id);
    fill(&app, &org, "/shipping-rules", rule, 2).await;
    fill(
        &app,
        &org,
        "/order-channels",
        order_channel_body("manual"),
        2,
    )
    .await;
    // The owner's token is the first of three.
    fill(
        &app,
        &org,
        "/api-tokens",
        json!({"name": "t", "scopes": ["read:all"]}),
        2,
    )
    .await;

    // The owner is the first of two team members.
    let add = |email: &str| {
        app.cli(&[
            "user", "add", "--org", &org.id, "--email", email, "--name", "Member",
        ])
    };
    assert!(add("one@example.com").status.success());
    let refused = add("two@example.com");
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("team members"));

    let limits = usage(&app, &org).await["limits"].clone();
    for (name, used) in [
        ("senderAddresses", 2),
        ("carriers", 3),
        ("shippingRules", 2),
        ("orderChannels", 2),
        ("apiTokens", 3),
        ("teamMembers", 2),
    ] {
        assert_eq!(limits[name]["used"], used, "{name}: {limits}");
    }
}

#[tokio::test]
async fn shipments_past_the_included_ones_need_overage_and_are_charged() {
    let (app, org) = tiny().await;
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    for _ in 0..3 {
        post(&app, &org, "/shipments", body.clone())
            .await
            .expect(201);
    }
    let problem = post(&app, &org, "/shipments", body.clone())
        .await
        .problem(402, "plan_limit_reached");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("shipments")
    );
    app.put(
        &format!("/orgs/{}", org.id),
        &org.token,
        json!({"overageEnabled": true}),
    )
    .await
    .expect(200);
    for _ in 0..2 {
        post(&app, &org, "/shipments", body.clone())
            .await
            .expect(201);
    }
    assert_eq!(
        usage(&app, &org).await["shipments"],
        json!({"used": 5, "included": 3, "overage": 2, "overageCharges": 3.0})
    );
    // Deleting a shipment does not give its count back: usage counts what was created.
    let list = app
        .get(&format!("/orgs/{}/shipments?limit=1", org.id), &org.token)
        .await
        .expect(200);
    app.delete(
        &format!("/orgs/{}/shipments/{}", org.id, id_of(&list["data"][0])),
        &org.token,
    )
    .await
    .expect(200);
    assert_eq!(usage(&app, &org).await["shipments"]["used"], 5);
}

#[tokio::test]
async fn the_period_is_the_calendar_month_in_utc() {
    let now = Arc::new(Mutex::new(
        time::macros::datetime!(2026-11-30 23:59:59.999 UTC),
    ));
    let app = TestApp::spawn_with_clock(PLANS, Clock::Set(now.clone())).await;
    let org = app.create_org();
    set_plan(&app, &org, "tiny");
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    for _ in 0..3 {
        post(&app, &org, "/shipments", body.clone())
            .await
            .expect(201);
    }
    post(&app, &org, "/shipments", body.clone())
        .await
        .problem(402, "plan_limit_reached");
    assert_eq!(
        usage(&app, &org).await["currentPeriod"]["start"],
        "2026-11-01T00:00:00.000Z"
    );

    *now.lock().unwrap_or_else(|p| p.into_inner()) =
        time::macros::datetime!(2026-12-01 00:00:00 UTC);
    let december = usage(&app, &org).await;
    assert_eq!(
        december["currentPeriod"],
        json!({"start": "2026-12-01T00:00:00.000Z", "end": "2027-01-01T00:00:00.000Z"})
    );
    assert_eq!(december["shipments"]["used"], 0);
    post(&app, &org, "/shipments", body).await.expect(201);
    assert_eq!(usage(&app, &org).await["shipments"]["used"], 1);
}

#[tokio::test]
async fn fifty_concurrent_creates_against_a_limit_of_three_admit_exactly_three() {
    let (app, org) = tiny().await;
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    let url = app.url(&format!("/orgs/{}/shipments", org.id));
    let statuses = burst(&app, &url, &org.token, body).await;
    assert_eq!(count(&statuses, 201), 3, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 47, "{statuses:?}");
    let list = app
        .get(&format!("/orgs/{}/shipments", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 3);
    assert_eq!(usage(&app, &org).await["shipments"]["used"], 3);

    // A resource limit the same way: one address exists, so one more fits.
    let url = app.url(&format!("/orgs/{}/sender-addresses", org.id));
    let statuses = burst(&app, &url, &org.token, sender_address_body()).await;
    assert_eq!(count(&statuses, 201), 1, "{statuses:?}");
    assert_eq!(count(&statuses, 402), 49, "{statuses:?}");
}

/// Creates `count` of a resource (201 each) and shows that one more is 402.
async fn fill(app: &TestApp, org: &TestOrg, path: &str, body: Value, count: usize) -> Vec<Value> {
    let mut created = Vec::new();
    for _ in 0..count {
        created.push(post(app, org, path, body.clone()).await.expect(201));
    }
    post(app, org, path, body)
        .await
        .problem(402, "plan_limit_reached");
    created
}

async fn burst(app: &TestApp, url: &str, token: &str, body: Value) -> Vec<u16> {
    let requests = (0..50).map(|_| {
        let request = app.client.post(url).bearer_auth(token).json(&body);
        tokio::spawn(async move {
            request
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0)
        })
    });
    let mut statuses = Vec::new();
    for handle in requests.collect::<Vec<_>>() {
        statuses.push(handle.await.unwrap_or(0));
    }
    statuses
}

fn count(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|s| **s == status).count()
}

#[tokio::test]
async fn set_plan_refuses_unknown_plans_and_organizations() {
    let (app, org) = tiny().await;
    let err = app.cli_fails(&["org", "set-plan", &org.id, "platinum"], 1);
    assert!(err.contains("platinum") && err.contains("tiny"), "{err}");
    let err = app.cli_fails(
        &["org", "set-plan", "org_01ARZ3NDEKTSV4RRFFQ69G5FAV", "tiny"],
        1,
    );
    assert!(err.contains("not found"), "{err}");
}

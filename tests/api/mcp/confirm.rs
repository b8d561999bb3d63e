//! A confirmation before an agent spends money (DESIGN §12): in 2026-07-28, a client that can
//! show forms gets `input_required` for a booking, and only the person's "yes", sent back with
//! the signed state, books; the organization can turn the question off.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use shipbase::model::time::Clock;

use super::{Answer, Mcp, tool_error, tool_ok};
use crate::{
    browser::connect,
    fixtures::{id_of, shipment_body},
    helpers::TestApp,
};

/// A form the person answered: `action`, and for `accept` the box.
fn answer(action: &str, confirm: Option<bool>) -> Value {
    match confirm {
        Some(confirm) => json!({"confirm": {"action": action, "content": {"confirm": confirm}}}),
        None => json!({"confirm": {"action": action}}),
    }
}

/// The booking call again, with the person's answer and the state it was given.
async fn retry(mcp: &mut Mcp<'_>, shipment: &str, responses: Value, state: &str) -> Answer {
    mcp.modern(
        "tools/call",
        json!({"name": "book_shipment", "arguments": {"shipmentId": shipment},
               "inputResponses": responses, "requestState": state}),
    )
    .await
}

#[tokio::test]
async fn a_booking_asks_the_person_first_and_books_only_on_yes() {
    let start = time::OffsetDateTime::now_utc();
    let clock = Arc::new(Mutex::new(start));
    let app = TestApp::spawn_with_clock("", Clock::Set(clock.clone())).await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let mut body = shipment_body(&id_of(&address), &id_of(&carrier));
    body["parcels"] = json!([{"weight": 1.5}, {"weight": 2.0}]);
    let shipments = format!("/orgs/{}/shipments", org.id);
    let first = app
        .post(&shipments, &org.token, body.clone())
        .await
        .expect(201);
    let second = app
        .post(&shipments, &org.token, body.clone())
        .await
        .expect(201);
    let (first, second) = (id_of(&first), id_of(&second));
    let status = |id: String| {
        let (app, org) = (&app, &org);
        async move {
            app.get(&format!("/orgs/{}/shipments/{id}", org.id), &org.token)
                .await
                .expect(200)["status"]
                .clone()
        }
    };

    let agent = connect(&app, &org, &["read:shipments", "write:shipments"]).await;
    let mut mcp = Mcp::new(&app, agent.access());
    mcp.capabilities = json!({"elicitation": {"form": {}}});

    // The first call asks, and books nothing.
    let asked = mcp
        .call("book_shipment", json!({"shipmentId": first}))
        .await;
    let result = asked.result().clone();
    assert_eq!(result["resultType"], "input_required", "{}", asked.text);
    let request = &result["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    let question = request["params"]["message"].as_str().unwrap_or_default();
    assert!(
        question.starts_with(&format!(
            "Book shipment {} (2 parcels to ",
            body["reference"].as_str().unwrap_or_default()
        )),
        "{question}"
    );
    assert!(
        question.ends_with("? The carrier charges for the labels."),
        "{question}"
    );
    assert_eq!(
        request["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    assert_eq!(
        request["params"]["requestedSchema"]["required"],
        json!(["confirm"])
    );
    let state = result["requestState"]
        .as_str()
        .expect("requestState")
        .to_string();
    assert_eq!(status(first.clone()).await, "pending");

    // "No", in any form, books nothing and says so.
    for no in [
        answer("decline", None),
        answer("cancel", None),
        answer("accept", Some(false)),
    ] {
        let declined = retry(&mut mcp, &first, no, &state).await;
        assert_eq!(tool_error(&declined), "not_confirmed");
        assert_eq!(declined.result()["resultType"], "complete");
    }
    assert_eq!(status(first.clone()).await, "pending");

    // The state is bound to its call: another shipment, a changed state, or no answer.
    let other = retry(&mut mcp, &second, answer("accept", Some(true)), &state).await;
    assert_eq!(other.code(), -32602, "{}", other.text);
    let forged = format!("{}x", &state[..state.len() - 1]);
    let changed = retry(&mut mcp, &first, answer("accept", Some(true)), &forged).await;
    assert_eq!(changed.code(), -32602, "{}", changed.text);
    assert_eq!(status(second.clone()).await, "pending");
    let unanswered = retry(&mut mcp, &first, json!({}), &state).await;
    assert_eq!(unanswered.result()["resultType"], "input_required");

    // After 15 minutes the question is asked again, even with a yes.
    *clock.lock().expect("clock") = start + time::Duration::minutes(16);
    let stale = retry(&mut mcp, &first, answer("accept", Some(true)), &state).await;
    assert_eq!(
        stale.result()["resultType"],
        "input_required",
        "{}",
        stale.text
    );
    let state = stale.result()["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    assert_eq!(status(first.clone()).await, "pending");

    // Yes books, once.
    let booked = retry(&mut mcp, &first, answer("accept", Some(true)), &state).await;
    let shipment = tool_ok(&booked);
    assert_eq!(shipment["status"], "processing");
    assert_eq!(booked.result()["resultType"], "complete");
    let again = retry(&mut mcp, &first, answer("accept", Some(true)), &state).await;
    assert_eq!(tool_error(&again), "invalid_state");

    // A client that cannot show a form is not asked; nor is anyone once the organization says so.
    let mut plain = Mcp::new(&app, agent.access());
    let third = app
        .post(&shipments, &org.token, body.clone())
        .await
        .expect(201);
    let booked = plain
        .call("book_shipment", json!({"shipmentId": id_of(&third)}))
        .await;
    assert_eq!(tool_ok(&booked)["status"], "processing");
    let org_path = format!("/orgs/{}", org.id);
    let changed = app
        .put(
            &org_path,
            &org.token,
            json!({"agents": {"confirmCostly": false}}),
        )
        .await
        .expect(200);
    assert_eq!(changed["agents"], json!({"confirmCostly": false}));
    let booked = mcp
        .call("book_shipment", json!({"shipmentId": second}))
        .await;
    assert_eq!(tool_ok(&booked)["status"], "processing");
    let unknown = app
        .put(
            &org_path,
            &org.token,
            json!({"agents": {"confirmCostley": true}}),
        )
        .await
        .problem(400, "validation_failed");
    assert!(
        unknown.to_string().contains("agents.confirmCostley"),
        "{unknown}"
    );
}

#[tokio::test]
async fn organizations_ask_by_default() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let got = app
        .get(&format!("/orgs/{}", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(got["agents"], json!({"confirmCostly": true}));
}

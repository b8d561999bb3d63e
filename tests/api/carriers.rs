//! Carriers: /orgs/{orgId}/carriers and /orgs/{orgId}/available-carriers (SPEC rows 6-8).

use serde_json::{Value, json};

use crate::{
    fixtures::{
        assert_id, assert_invalid, assert_list_total, assert_timestamp, carrier_body, id_of,
        page_ids, rule_body, sender_address_body, with, without,
    },
    helpers::{TestApp, error_pairs},
};

#[tokio::test]
async fn creating_a_sandbox_carrier_returns_201_with_its_sender_address() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let body = app
        .post(
            &format!("/orgs/{}/carriers", org.id),
            &org.token,
            carrier_body(&id_of(&address)),
        )
        .await
        .expect(201);
    assert_id(&body["id"], "car");
    assert_eq!(body["name"], "Sandbox Carrier");
    assert_eq!(body["carrierSlug"], "sandbox");
    assert_eq!(body["config"], json!({}));
    assert_eq!(body["senderAddressId"], address["id"]);
    assert_eq!(body["orgId"], org.id);
    assert_timestamp(&body["createdAt"]);
    assert_timestamp(&body["updatedAt"]);
    assert_eq!(body["senderAddress"], address);
}

#[tokio::test]
async fn carriers_are_listed_newest_first_each_with_its_sender_address() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let first = app.create_carrier(&org, &id_of(&address)).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let second = app.create_carrier(&org, &id_of(&address)).await;
    let list = app
        .get(&format!("/orgs/{}/carriers", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(list["total"], 2);
    assert_eq!(list["page"], 1);
    assert_eq!(list["limit"], 20);
    assert_eq!(list["totalPages"], 1);
    assert_eq!(page_ids(&list), [id_of(&second), id_of(&first)]);
    for item in list["data"].as_array().into_iter().flatten() {
        assert_eq!(item["senderAddress"], address, "{item}");
    }
}

#[tokio::test]
async fn an_empty_carrier_list_is_an_empty_envelope() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let list = app
        .get(&format!("/orgs/{}/carriers", org.id), &org.token)
        .await
        .expect(200);
    assert_eq!(
        list,
        json!({"data": [], "total": 0, "page": 1, "limit": 20, "totalPages": 0})
    );
}

#[tokio::test]
async fn getting_a_carrier_returns_what_was_created() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (_, carrier) = app.create_address_and_carrier(&org).await;
    let path = format!("/orgs/{}/carriers/{}", org.id, id_of(&carrier));
    let got = app.get(&path, &org.token).await.expect(200);
    assert_eq!(got, carrier);
}

#[tokio::test]
async fn getting_an_unknown_carrier_is_404() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    app.get(
        &format!("/orgs/{}/carriers/car_01ARZ3NDEKTSV4RRFFQ69G5FAV", org.id),
        &org.token,
    )
    .await
    .problem(404, "not_found");
}

#[tokio::test]
async fn putting_a_carrier_replaces_it_and_embeds_the_new_sender_address() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (_, carrier) = app.create_address_and_carrier(&org).await;
    let other_address = app
        .create_sender_address_with(&org, with(sender_address_body(), "name", json!("Other")))
        .await;
    let path = format!("/orgs/{}/carriers/{}", org.id, id_of(&carrier));
    let replacement = json!({
        "name": "Manual Carrier",
        "carrierSlug": "manual",
        "config": {},
        "senderAddressId": id_of(&other_address)
    });
    let updated = app.put(&path, &org.token, replacement).await.expect(200);
    assert_eq!(updated["id"], carrier["id"]);
    assert_eq!(updated["name"], "Manual Carrier");
    assert_eq!(updated["carrierSlug"], "manual");
    assert_eq!(updated["senderAddressId"], other_address["id"]);
    assert_eq!(updated["senderAddress"], other_address);
    assert_eq!(updated["createdAt"], carrier["createdAt"]);
    assert_timestamp(&updated["updatedAt"]);
    let got = app.get(&path, &org.token).await.expect(200);
    assert_eq!(got["name"], "Manual Carrier");
    assert_eq!(got["senderAddressId"], other_address["id"]);
}

#[tokio::test]
async fn a_sandbox_label_size_outside_its_options_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/carriers", org.id);
    let good = with(
        carrier_body(&id_of(&address)),
        "config",
        json!({"labelSize": "100X150"}),
    );
    let body = app.post(&path, &org.token, good).await.expect(201);
    assert_eq!(body["config"], json!({"labelSize": "100X150"}));
    // Options match in any case, and are stored as the option writes them (DESIGN §17):
    // `100x150` is how available-carriers lists the option's key.
    for given in ["100x150", "a4"] {
        let body = with(
            carrier_body(&id_of(&address)),
            "config",
            json!({"labelSize": given}),
        );
        let created = app.post(&path, &org.token, body).await.expect(201);
        assert_eq!(
            created["config"]["labelSize"],
            given.to_ascii_uppercase(),
            "{given}"
        );
    }
    let bad = with(
        carrier_body(&id_of(&address)),
        "config",
        json!({"labelSize": "A5"}),
    );
    assert_invalid(app.post(&path, &org.token, bad).await, "config.labelSize");
}

#[tokio::test]
async fn deleting_a_carrier_used_by_a_shipping_rule_is_409() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let rule = app
        .create_rule(&org, rule_body(&id_of(&carrier), &id_of(&address)))
        .await;
    let path = format!("/orgs/{}/carriers/{}", org.id, id_of(&carrier));
    app.delete(&path, &org.token).await.problem(409, "conflict");
    assert_eq!(app.get(&path, &org.token).await.expect(200), carrier);
    app.delete(
        &format!("/orgs/{}/shipping-rules/{}", org.id, id_of(&rule)),
        &org.token,
    )
    .await
    .expect(200);
    let body = app.delete(&path, &org.token).await.expect(200);
    assert!(body["message"].is_string(), "{body}");
    app.get(&path, &org.token).await.problem(404, "not_found");
}

#[tokio::test]
async fn a_carrier_with_an_unknown_slug_is_400_naming_carrier_slug() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/carriers", org.id);
    for slug in ["dhl-express-nonexistent", ""] {
        let body = with(carrier_body(&id_of(&address)), "carrierSlug", json!(slug));
        assert_invalid(app.post(&path, &org.token, body).await, "carrierSlug");
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn a_carrier_config_that_is_not_an_object_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/carriers", org.id);
    for config in [json!("labelSize=A4"), json!([]), json!(42), Value::Null] {
        let body = with(carrier_body(&id_of(&address)), "config", config.clone());
        let problem = app.post(&path, &org.token, body).await;
        assert_eq!(
            problem.status.as_u16(),
            400,
            "config {config}: {}",
            problem.text
        );
        assert_invalid(problem, "config");
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn a_carrier_without_a_required_field_is_400_naming_it() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/carriers", org.id);
    for field in ["name", "carrierSlug", "config", "senderAddressId"] {
        let body = without(carrier_body(&id_of(&address)), field);
        assert_invalid(app.post(&path, &org.token, body).await, field);
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn a_carrier_with_a_sender_address_of_another_org_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let foreign = app.create_sender_address(&other).await;
    let path = format!("/orgs/{}/carriers", org.id);
    for address_id in [id_of(&foreign), "adr_01ARZ3NDEKTSV4RRFFQ69G5FAV".into()] {
        let reply = app.post(&path, &org.token, carrier_body(&address_id)).await;
        assert_invalid(reply, "senderAddressId");
    }
    assert_list_total(&app, &path, &org.token, 0).await;
}

#[tokio::test]
async fn putting_a_carrier_with_a_sender_address_of_another_org_is_400() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let foreign = app.create_sender_address(&other).await;
    let (_, carrier) = app.create_address_and_carrier(&org).await;
    let path = format!("/orgs/{}/carriers/{}", org.id, id_of(&carrier));
    let reply = app
        .put(&path, &org.token, carrier_body(&id_of(&foreign)))
        .await;
    assert_invalid(reply, "senderAddressId");
    assert_eq!(app.get(&path, &org.token).await.expect(200), carrier);
}

#[tokio::test]
async fn another_orgs_token_cannot_read_change_or_delete_a_carrier() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let other = app.create_org();
    let (address, carrier) = app.create_address_and_carrier(&org).await;
    let id = id_of(&carrier);
    let replacement = with(carrier_body(&id_of(&address)), "name", json!("Hijacked"));
    for path in [
        format!("/orgs/{}/carriers/{id}", org.id),
        format!("/orgs/{}/carriers/{id}", other.id),
    ] {
        app.get(&path, &other.token).await.problem(404, "not_found");
        app.put(&path, &other.token, replacement.clone())
            .await
            .problem(404, "not_found");
        app.delete(&path, &other.token)
            .await
            .problem(404, "not_found");
    }
    let path = format!("/orgs/{}/carriers/{id}", org.id);
    assert_eq!(app.get(&path, &org.token).await.expect(200), carrier);
}

#[tokio::test]
async fn available_carriers_are_a_plain_array_of_every_adapter() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let body = app
        .get(&format!("/orgs/{}/available-carriers", org.id), &org.token)
        .await
        .expect(200);
    let carriers = body
        .as_array()
        .unwrap_or_else(|| panic!("not a plain array: {body}"));
    let mut slugs: Vec<&str> = carriers.iter().filter_map(|c| c["slug"].as_str()).collect();
    slugs.sort_unstable();
    assert_eq!(
        slugs,
        [
            "dhl_express",
            "dhl_parcel_de",
            "manual",
            "postnord",
            "sandbox",
            "ups"
        ]
    );
    for carrier in carriers {
        assert!(
            carrier["name"].as_str().is_some_and(|n| !n.is_empty()),
            "{carrier}"
        );
        for key in ["requiredFields", "optionalFields", "products", "services"] {
            assert!(carrier[key].is_array(), "{key} of {carrier}");
        }
        for field in carrier["optionalFields"].as_array().into_iter().flatten() {
            assert_eq!(field["required"], false, "{field}");
            assert!(field["key"].is_string() && field["type"].is_string());
        }
    }
    let sandbox = carriers
        .iter()
        .find(|c| c["slug"] == "sandbox")
        .unwrap_or_else(|| panic!("no sandbox"));
    assert_eq!(sandbox["requiredFields"], json!([]));
    assert!(
        sandbox["products"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{sandbox}"
    );
}

#[tokio::test]
async fn a_config_key_the_carrier_type_does_not_have_is_400_with_the_closest_key() {
    let app = TestApp::spawn().await;
    let org = app.create_org();
    let address = app.create_sender_address(&org).await;
    let path = format!("/orgs/{}/carriers", org.id);
    let body = with(
        carrier_body(&id_of(&address)),
        "config",
        json!({"lableSize": "100X150", "colour": "red", "labelFormat": "epl"}),
    );
    let problem = app.post(&path, &org.token, body).await;
    assert_eq!(problem.status.as_u16(), 400, "{}", problem.text);
    let errors = error_pairs(&problem.body);
    // Every problem of the config at once: both unknown keys and the known key's bad value.
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors.contains(&(
            "config.lableSize".into(),
            "unknown key; did you mean \"labelSize\"?".into()
        )),
        "{errors:?}"
    );
    let colour = errors
        .iter()
        .find(|(field, _)| field == "config.colour")
        .expect("colour named");
    assert!(
        colour.1.starts_with("unknown key; Sandbox takes ") && colour.1.contains("labelSize"),
        "{colour:?}"
    );
    assert!(
        errors
            .iter()
            .any(|(field, _)| field == "config.labelFormat"),
        "{errors:?}"
    );
    assert_list_total(&app, &path, &org.token, 0).await;

    // An update is held to the same rule, and the stored carrier keeps its config.
    let created = app
        .post(&path, &org.token, carrier_body(&id_of(&address)))
        .await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.text);
    let one = format!("{path}/{}", id_of(&created.body));
    let typo = app
        .put(
            &one,
            &org.token,
            with(
                carrier_body(&id_of(&address)),
                "config",
                json!({"lableSize": "A4"}),
            ),
        )
        .await;
    assert_eq!(typo.status.as_u16(), 400, "{}", typo.text);
    assert_eq!(
        typo.body["errors"][0]["field"], "config.lableSize",
        "{}",
        typo.text
    );
    let stored = app.get(&one, &org.token).await;
    assert_eq!(stored.body["config"], created.body["config"]);
}

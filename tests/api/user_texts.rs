//! What a user reads names no part of the contract the code is built from: the OpenAPI document
//! (its descriptions are what Swagger UI, SDK generators and agents show), every command's
//! `--help` and the example configuration, what the MCP endpoint tells an agent (its
//! instructions, every tool's description and input schema, its errors), every page a person
//! opens and the scripts and styles they load, and the problems the API answers speak of the
//! product, never of "SPEC", "DESIGN" or a section sign.

use reqwest::Method;
use serde_json::{Value, json};

use crate::{
    browser::{Browser, Request, connect, register},
    carriers_real::replay::{Replay, Scenario, Seen},
    fixtures::{Shop, id_of, order_body, order_channel_body, rule_body},
    helpers::TestApp,
    mcp::Mcp,
    printers::{LOOPBACK, create_printer, jobs_until, printers},
    workbench::{app_path, csrf, owner, person},
};

/// The contract references `text` holds, with a little context each. "SPEC" and "DESIGN" count
/// as words only (a licence's "SPECIAL" is no reference); the section sign counts anywhere.
fn references(text: &str) -> Vec<String> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut found = Vec::new();
    for needle in ["SPEC", "DESIGN", "§"] {
        for (at, _) in text.match_indices(needle) {
            let before = text[..at].chars().next_back();
            let after = text[at + needle.len()..].chars().next();
            if needle != "§" && (word(before) || word(after)) {
                continue;
            }
            let start = text[..at]
                .char_indices()
                .rev()
                .nth(40)
                .map_or(0, |(i, _)| i);
            let end = text[at..]
                .char_indices()
                .nth(40)
                .map_or(text.len(), |(i, _)| at + i);
            found.push(text[start..end].to_string());
        }
    }
    found
}

/// Texts read so far, each with where it was read; `check` asserts none names the contract.
#[derive(Default)]
struct Read(Vec<(String, String)>);

impl Read {
    fn add(&mut self, what: impl Into<String>, text: impl Into<String>) {
        self.0.push((what.into(), text.into()));
    }

    #[track_caller]
    fn check(&self, least: usize) {
        assert!(self.0.len() >= least, "only {} texts read", self.0.len());
        let found: Vec<(&str, Vec<String>)> = self
            .0
            .iter()
            .map(|(what, text)| (what.as_str(), references(text)))
            .filter(|(_, refs)| !refs.is_empty())
            .collect();
        assert!(found.is_empty(), "contract references: {found:#?}");
    }
}

#[test]
fn references_are_found_as_words_and_section_signs() {
    assert_eq!(references("see SPEC §4"), ["see SPEC §4", "see SPEC §4"]);
    assert_eq!(references("(DESIGN)"), ["(DESIGN)"]);
    assert_eq!(
        references("ANY SPECIAL DAMAGES, A DESIGNER, SPECS"),
        [""; 0]
    );
}

#[tokio::test]
async fn the_openapi_document_names_no_contract_sections() {
    let app = TestApp::spawn().await;
    let document = reqwest::get(app.url("/openapi.json"))
        .await
        .expect("openapi")
        .text()
        .await
        .expect("text");
    assert!(document.contains("\"paths\""), "{document}");
    assert_eq!(references(&document), Vec::<String>::new());
}

/// The commands `help` lists (the lines under "Commands:").
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn no_commands_help_names_contract_sections() {
    let app = TestApp::spawn().await;
    let help = |args: &[&str]| {
        let mut args = args.to_vec();
        args.push("--help");
        let out = app.cli(&args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let top = help(&[]);
    let mut read = vec![(String::from("shipbase"), top.clone())];
    let nouns = commands(&top);
    assert!(nouns.len() >= 5, "{top}");
    for noun in &nouns {
        let text = help(&[noun]);
        for verb in commands(&text) {
            read.push((format!("{noun} {verb}"), help(&[noun, &verb])));
        }
        read.push((noun.clone(), text));
    }
    // `config example` prints the documented configuration, comments and all.
    let example = app.cli(&["config", "example"]);
    assert!(example.status.success(), "{example:?}");
    read.push((
        "config example (its output)".into(),
        String::from_utf8_lossy(&example.stdout).to_string(),
    ));
    for (command, text) in read {
        assert_eq!(
            references(&text),
            Vec::<String>::new(),
            "shipbase {command} --help"
        );
    }
}

/// Every write scope: a connection with them all may call every tool.
fn every_write_scope() -> Vec<String> {
    shipbase::model::scope::Resource::ALL
        .iter()
        .map(|r| format!("write:{}", r.name()))
        .collect()
}

#[tokio::test]
async fn what_the_mcp_endpoint_tells_an_agent_names_no_contract_sections() {
    let shop = Shop::new().await;
    let app = &shop.app;
    let scopes = every_write_scope();
    let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let agent = connect(app, &shop.org, &scopes).await;
    let mut read = Read::default();

    // The modern revision: the server's description, every tool, the (empty) prompts and
    // resources, and the errors a model meets.
    let mut mcp = Mcp::new(app, agent.access());
    let tools = mcp.modern("tools/list", json!({})).await;
    let listed = tools.result()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        listed.len(),
        shipbase::service::operations::ALL.len() + shipbase::mcp::tasks::tasks().len(),
        "every tool: one per operation, and the task tools"
    );
    for tool in &listed {
        read.add(format!("tool {}", tool["name"]), tool.to_string());
    }
    for (method, params) in [
        ("server/discover", json!({})),
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("prompts/get", json!({"name": "ship"})),
        ("resources/read", json!({"uri": "shipbase://nothing"})),
        ("tools/list", json!({"cursor": "next"})),
        (
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        ),
        (
            "tools/call",
            json!({"name": "list_shipments", "arguments": []}),
        ),
        ("no/such/method", json!({})),
    ] {
        let answer = mcp.modern(method, params).await;
        read.add(format!("modern {method}"), answer.text);
    }
    // Tool calls that fail as the REST operations do.
    let address = id_of(&shop.address);
    for (name, arguments) in [
        ("create_shipment", json!({})),
        (
            "create_shipment",
            json!({"reference": 5, "senderAdress": address}),
        ),
        (
            "get_shipment",
            json!({"shipmentId": "shp_01J00000000000000000000000"}),
        ),
        ("list_shipments", json!({"limit": 1000})),
        ("book_shipment", json!({"shipmentId": "nothing"})),
        ("delete_sender_address", json!({"senderAddressId": address})),
        (
            "create_printer",
            json!({"name": "A", "kind": "raw", "address": "169.254.169.254:80", "format": "pdf"}),
        ),
    ] {
        let answer = mcp.call(name, arguments).await;
        read.add(format!("tools/call {name}"), answer.text);
    }
    // A token that may only read is refused the writes it calls anyway.
    let reader = app.create_token(&shop.org, "read:shipments");
    let answer = Mcp::new(app, &reader)
        .call("create_shipment", json!({}))
        .await;
    read.add("tools/call beyond the scopes", answer.text);

    // The legacy revisions: initialize (with the instructions), the tool list, errors.
    for version in ["2025-11-25", "2025-03-26"] {
        let mut legacy = Mcp::new(app, agent.access());
        let result = legacy.initialize(version).await;
        read.add(format!("{version} initialize"), result.to_string());
        let tools = legacy.legacy("tools/list", json!({})).await;
        read.add(format!("{version} tools/list"), tools.text);
        let answer = legacy.legacy("prompts/get", json!({"name": "ship"})).await;
        read.add(format!("{version} prompts/get"), answer.text);
    }
    let mut bare = Mcp::new(app, agent.access());
    bare.token = None;
    let unauthenticated = bare
        .raw(
            &[("accept", "application/json, text/event-stream")],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    read.add(
        "unauthenticated /mcp",
        format!(
            "{} {}",
            unauthenticated.header("www-authenticate"),
            unauthenticated.text
        ),
    );
    let no_meta = Mcp::new(app, agent.access())
        .raw(
            &[("accept", "application/json, text/event-stream")],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        )
        .await;
    read.add("a request without _meta or session", no_meta.text);
    let batch = Mcp::new(app, agent.access())
        .raw(
            &[("accept", "application/json, text/event-stream")],
            &json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
        )
        .await;
    read.add("a batch", batch.text);
    read.check(listed.len() + 20);
}

/// Fetches `path` in `browser` and keeps the page's HTML (whatever its status).
async fn page(browser: &mut Browser, read: &mut Read, path: &str) -> crate::browser::Page {
    let page = browser.get(path).await;
    assert!(page.status < 500, "{path}: {} {}", page.status, page.html);
    read.add(format!("GET {path} ({})", page.status), page.html.clone());
    page
}

/// Posts `fields` (with the form's `csrf_token`) and keeps the answer's HTML, or that of the
/// page it sends the browser to (with the notice left for it).
async fn post(browser: &mut Browser, read: &mut Read, path: &str, fields: &[(&str, &str)]) {
    let form = browser.get(path).await;
    let token = csrf(&form);
    let mut all = vec![("csrf_token", token.as_str())];
    all.extend_from_slice(fields);
    let answer = browser.post(path, &all).await;
    assert!(
        answer.status < 500,
        "{path}: {} {}",
        answer.status,
        answer.html
    );
    if answer.status == 303 {
        let location = answer.location();
        page(browser, read, &location).await;
    } else {
        read.add(
            format!("POST {path} {fields:?} ({})", answer.status),
            answer.html,
        );
    }
}

#[tokio::test]
async fn every_page_and_the_files_it_loads_name_no_contract_sections() {
    let shop = Shop::with_config("[webhooks]\nallow_private_targets = true\n").await;
    let app = &shop.app;
    let org = &shop.org;
    let mut read = Read::default();

    // Something on every page: a booked and a pending shipment, an order, a rule, a printer,
    // a webhook, an order channel, an API token, a second member.
    let booked = shop.booked(shop.body(), "processing").await;
    let pending = id_of(&shop.create(shop.body()).await);
    let channel = app
        .create_order_channel(org, order_channel_body("manual"))
        .await;
    let order = app
        .create_order(org, order_body(&id_of(&channel), "1001"))
        .await;
    let rule = app
        .create_rule(org, rule_body(&id_of(&shop.carrier), &id_of(&shop.address)))
        .await;
    create_printer(
        &shop,
        json!({"name": "Desk", "kind": "raw", "address": "10.0.0.5:9100", "format": "pdf"}),
    )
    .await;
    app.post(
        &format!("/orgs/{}/webhooks", org.id),
        &org.token,
        json!({"name": "Nobody listens", "url": "http://127.0.0.1:9/hook", "events": ["shipment.updated"]}),
    )
    .await
    .expect(201);
    app.create_api_token(org, json!({"name": "Shop", "scopes": ["read:shipments"]}))
        .await;

    // Signed out: the front door, sign-in (and a failed one). (/docs is Swagger UI, a third
    // party's script, showing the OpenAPI document read above.)
    let mut stranger = Browser::new(app);
    for path in ["/", "/login", "/logout", "/app", "/nothing-here"] {
        page(&mut stranger, &mut read, path).await;
    }
    let failed = stranger.sign_in(&org.email, "not-the-password", None).await;
    read.add("a failed sign-in", failed.html);

    // Signed in as the owner: every page of the workbench.
    let mut browser = owner(&shop).await;
    let mut paths: Vec<String> = ["/", "/app", "/settings", "/settings/apps", "/logout"]
        .iter()
        .map(|p| p.to_string())
        .collect();
    let booked_id = id_of(&booked);
    let order_id = id_of(&order);
    for rest in [
        "orders".to_string(),
        "orders?status=pending".into(),
        format!("orders/{order_id}"),
        "shipments".into(),
        "shipments?search=nobody&status=pending".into(),
        "shipments/new".into(),
        format!("shipments/{booked_id}"),
        format!("shipments/{pending}"),
        format!("shipments/{pending}/edit"),
        "shipments/shp_01J00000000000000000000000".into(),
        "scan".into(),
        "scan?code=NOTHING-1".into(),
        "settings".into(),
        "settings/sender-addresses".into(),
        "settings/carriers".into(),
        "settings/carriers?type=sandbox".into(),
        "settings/carriers?type=manual".into(),
        "settings/carriers?type=postnord".into(),
        "settings/carriers?type=dhl_express".into(),
        "settings/shipping-rules".into(),
        "settings/shipping-rules/new".into(),
        format!("settings/shipping-rules/{}", id_of(&rule)),
        "settings/printers".into(),
        "settings/webhooks".into(),
        "settings/order-channels".into(),
        "settings/api-tokens".into(),
        "settings/members".into(),
        "settings/usage".into(),
        "settings/audit".into(),
        "settings/branding".into(),
        "settings/nothing".into(),
    ] {
        paths.push(app_path(org, &rest));
    }
    for path in &paths {
        let page = page(&mut browser, &mut read, path).await;
        // Whatever the page loads from the server is read as well.
        for (at, _) in page.html.match_indices("/static/") {
            let rest = &page.html[at..];
            let end = rest.find(['"', '\'', ')', '?']).unwrap_or(rest.len());
            let asset = rest[..end].to_string();
            if !read
                .0
                .iter()
                .any(|(what, _)| what == &format!("GET {asset}"))
            {
                let text = browser.get(&asset).await;
                assert_eq!(text.status, 200, "{asset} (on {path})");
                read.add(format!("GET {asset}"), text.html);
            }
        }
    }
    // The live lists' own answer.
    page(&mut browser, &mut read, &app_path(org, "changes")).await;

    // Forms answered with their problems.
    post(
        &mut browser,
        &mut read,
        &app_path(org, "shipments/new"),
        &[],
    )
    .await;
    post(
        &mut browser,
        &mut read,
        &app_path(org, "settings/printers"),
        &[
            ("name", ""),
            ("kind", "raw"),
            ("address", "169.254.169.254:80"),
            ("format", "pdf"),
        ],
    )
    .await;
    post(
        &mut browser,
        &mut read,
        &app_path(org, "settings/sender-addresses"),
        &[("name", "Half")],
    )
    .await;
    post(
        &mut browser,
        &mut read,
        &app_path(org, "settings/shipping-rules/new"),
        &[
            ("name", ""),
            ("conditions[0].type", "weight"),
            ("conditions[0].min", "heavy"),
        ],
    )
    .await;
    post(
        &mut browser,
        &mut read,
        &app_path(org, "scan"),
        &[("code", "NOTHING-2")],
    )
    .await;
    for action in [
        vec![("action", "book")],
        vec![("action", "print")],
        vec![("action", "status"), ("status", "lost")],
        vec![("action", "apply_rule"), ("shippingRuleId", "rul_nothing")],
    ] {
        let path = app_path(org, &format!("shipments/{booked_id}"));
        post(&mut browser, &mut read, &path, &action).await;
    }

    // The consent page an agent's connection opens, and the error page of a bad request.
    let client_id = register(app, "Text Agent").await;
    page(
        &mut browser,
        &mut read,
        &Request::new(&client_id, Some("read:shipments write:all")).path(),
    )
    .await;
    page(
        &mut browser,
        &mut read,
        &Request::new("no-such-client", Some("read:shipments")).path(),
    )
    .await;
    let scopes = every_write_scope();
    let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
    let mut connected = connect(app, org, &scopes).await.browser;
    page(&mut connected, &mut read, "/settings/apps").await;

    // A member is refused what the role lacks with a page saying which role may.
    let mut member = person(&shop, "member").await;
    page(&mut member, &mut read, &app_path(org, "settings/members")).await;
    // Another organization is not there.
    page(
        &mut member,
        &mut read,
        "/app/org_01J00000000000000000000000/orders",
    )
    .await;

    // Every text file the app serves under /static, whether a page names it or not (the
    // fonts are no text).
    for file in shipbase::assets::Assets::iter() {
        let answer = reqwest::get(app.url(&format!("/static/{file}")))
            .await
            .expect("static");
        assert_eq!(answer.status(), 200, "{file}");
        let bytes = answer.bytes().await.expect("bytes");
        if let Ok(text) = std::str::from_utf8(&bytes) {
            read.add(format!("/static/{file}"), text);
        }
    }
    assert!(
        read.0.iter().any(|(what, _)| what == "/static/app.js"),
        "the pages' script is read"
    );
    read.check(paths.len() + 15);
}

/// A carrier that refuses every booking (`Reject`) or is down (`Down`), answering as PostNord's
/// Booking API does.
fn refusing(_: &Seen, scenario: Scenario, _: &mut Vec<String>) -> (poem::http::StatusCode, Value) {
    match scenario {
        Scenario::Down => (
            poem::http::StatusCode::SERVICE_UNAVAILABLE,
            json!({"message": "Service unavailable"}),
        ),
        _ => (
            poem::http::StatusCode::BAD_REQUEST,
            json!({"message": "Validation failed", "compositeFault": {"faults": [
                {"faultCode": "API-005", "explanationText": "Postal code is not valid for the country"}]}}),
        ),
    }
}

#[tokio::test]
async fn the_problems_the_api_answers_name_no_contract_sections() {
    let carrier = Replay::start(refusing).await;
    let shop = Shop::with_config(&format!(
        "{LOOPBACK}[carriers]\npostnord_url = \"{}/rest/shipment\"\n\n[signup]\nopen = true\n\n[plans.tiny]\nsender_addresses = 1\n",
        carrier.url
    ))
    .await;
    let app = &shop.app;
    let org = &shop.org;
    let base = format!("/orgs/{}", org.id);
    let mut read = Read::default();
    let mut keep = |what: &str, reply: crate::helpers::Reply| {
        // A failure the caller is told about; never an internal error, which says nothing.
        let status = reply.status.as_u16();
        assert!(status >= 400 && status != 500, "{what}: {}", reply.text);
        read.add(format!("{what} ({})", reply.status), reply.text);
    };
    let token = Some(org.token.as_str());

    // Bodies: unknown, missing, mistyped and broken fields; not JSON; not a JSON type.
    let shipments = format!("{base}/shipments");
    let mut body = shop.body();
    body["refrence"] = json!("typo");
    body["parcels"][0]["weight"] = json!("heavy");
    keep(
        "unknown and mistyped fields",
        app.post(&shipments, &org.token, body).await,
    );
    keep(
        "missing fields",
        app.post(&shipments, &org.token, json!({})).await,
    );
    let mut body = shop.body();
    body["parties"][0]["countryCode"] = json!("XX");
    body["carrierSettings"]["carrierId"] = json!("car_01J00000000000000000000000");
    keep("broken rules", app.post(&shipments, &org.token, body).await);
    keep(
        "not JSON",
        app.send_raw(
            Method::POST,
            &shipments,
            token,
            Some("application/json"),
            "{",
        )
        .await,
    );
    keep(
        "not a JSON media type",
        app.send_raw(Method::POST, &shipments, token, Some("text/plain"), "x")
            .await,
    );
    keep(
        "query parameters",
        app.get(
            &format!("{shipments}?limit=1000&page=0&status=lost"),
            &org.token,
        )
        .await,
    );

    // Credentials, scopes, existence, methods.
    keep(
        "no token",
        app.call(Method::GET, &shipments, None, None).await,
    );
    keep(
        "a wrong token",
        app.get(&shipments, "sb_live_not-a-token").await,
    );
    let reader = app.create_token(org, "read:shipments");
    keep(
        "insufficient scope",
        app.post(&shipments, &reader, shop.body()).await,
    );
    keep(
        "another organization",
        app.get("/orgs/org_01J00000000000000000000000/shipments", &org.token)
            .await,
    );
    keep(
        "an unknown shipment",
        app.get(
            &format!("{shipments}/shp_01J00000000000000000000000"),
            &org.token,
        )
        .await,
    );
    keep(
        "an unknown path",
        app.get("/no/such/path", &org.token).await,
    );
    keep(
        "a wrong method",
        app.call(Method::PUT, &shipments, token, Some(json!({})))
            .await,
    );

    // States and conflicts.
    let booked = shop.booked(shop.body(), "processing").await;
    let booked_id = id_of(&booked);
    keep("booking twice", shop.post_empty(&booked_id, "/book").await);
    keep(
        "editing a booked shipment",
        app.patch(
            &format!("{shipments}/{booked_id}"),
            &org.token,
            json!({"reference": "LATE"}),
        )
        .await,
    );
    keep(
        "an impossible status move",
        shop.post(&booked_id, "/status", json!({"status": "draft"}))
            .await,
    );
    keep(
        "deleting an address in use",
        app.delete(
            &format!("{base}/sender-addresses/{}", id_of(&shop.address)),
            &org.token,
        )
        .await,
    );
    let thermal = create_printer(
        &shop,
        json!({"name": "Thermal", "kind": "raw", "address": "10.0.0.2:9100", "format": "zpl"}),
    )
    .await;
    let mut rule = rule_body(&id_of(&shop.carrier), &id_of(&shop.address));
    rule["autoPrintLabels"] = json!(true);
    rule["labelPrinterId"] = thermal["id"].clone();
    keep(
        "a printer that cannot print the carrier's labels",
        app.post(&format!("{base}/shipping-rules"), &org.token, rule)
            .await,
    );
    keep(
        "a printer where none may be",
        app.post(
            &printers(&shop),
            &org.token,
            json!({"name": "Cloud", "kind": "raw", "address": "169.254.169.254:80", "format": "pdf"}),
        )
        .await,
    );
    let idempotent = |body: Value| {
        app.client
            .post(app.url(&shipments))
            .bearer_auth(&org.token)
            .header("idempotency-key", "texts-1")
            .json(&body)
    };
    idempotent(shop.body()).send().await.expect("first");
    let mut other = shop.body();
    other["reference"] = json!("OTHER");
    keep(
        "an idempotency key used for another request",
        crate::helpers::Reply::read(idempotent(other).send().await.expect("second")).await,
    );
    keep(
        "a sign-up with a taken slug",
        app.call(
            Method::POST,
            "/orgs",
            None,
            Some(json!({"name": "Again", "slug": org.slug, "creatorEmail": "again@example.com", "creatorName": "A"})),
        )
        .await,
    );

    // The plan's limit.
    let out = app.cli(&["org", "set-plan", &org.id, "tiny"]);
    assert!(out.status.success(), "{out:?}");
    keep(
        "a plan limit",
        app.post(
            &format!("{base}/sender-addresses"),
            &org.token,
            crate::fixtures::sender_address_body(),
        )
        .await,
    );

    // A carrier that refuses, then one that is down.
    let postnord = app
        .create_carrier_with(
            org,
            json!({"name": "PostNord", "carrierSlug": "postnord", "senderAddressId": id_of(&shop.address),
                   "config": {"apiKey": "0123456789abcdef0123456789abcdef", "customerNumber": "1234567890",
                              "issuerCode": "Z12", "sandbox": true, "labelFormat": "pdf"}}),
        )
        .await;
    keep(
        "a carrier config that is not the type's",
        app.post(
            &format!("{base}/carriers"),
            &org.token,
            json!({"name": "PostNord", "carrierSlug": "postnord", "senderAddressId": id_of(&shop.address),
                   "config": {"apiKey": 5, "issuerCode": "Z99"}}),
        )
        .await,
    );
    let mut body = shop.body();
    body["carrierSettings"]["carrierId"] = postnord["id"].clone();
    body["carrierSettings"]["productId"] = json!("18");
    let id = id_of(&shop.create(body).await);
    carrier.set(Scenario::Reject);
    keep("a carrier's refusal", shop.post_empty(&id, "/book").await);
    carrier.set(Scenario::Down);
    keep(
        "a carrier that is down",
        shop.post_empty(&id, "/book").await,
    );

    // A printer that does not answer: its job's reason.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("port").port()
    };
    let unplugged = create_printer(
        &shop,
        json!({"name": "Unplugged", "kind": "raw", "address": format!("127.0.0.1:{port}"), "format": "pdf"}),
    )
    .await;
    app.post(
        &format!("{}/{}/test-print", printers(&shop), id_of(&unplugged)),
        &org.token,
        json!({}),
    )
    .await
    .expect(202);
    let jobs = jobs_until(&shop, &id_of(&unplugged), |jobs| {
        jobs.iter().any(|j| j["status"] == "failed")
    })
    .await;
    assert!(
        jobs.iter().any(|j| j["error"].is_string()),
        "a failed job with its reason: {jobs:?}"
    );
    read.add("a failed print job", Value::Array(jobs).to_string());

    // What the carrier types tell a user about their fields.
    let available = app
        .get(&format!("{base}/available-carriers"), &org.token)
        .await
        .expect(200);
    read.add("available carriers", available.to_string());
    read.check(25);
}

//! The workbench (DESIGN §20): the shop's own pages at `/app`. Signed out every path sends the
//! browser to sign in; another organization's pages are 404; a role lacking a page's scope gets a
//! 403 page naming the least role that may (§19); the forms (new shipment, a shipment's and an
//! order's actions, scan, the settings add forms) call the same operations as REST, show each
//! problem next to its input, and refuse a post without its `csrf_token`.

use serde_json::{Value, json};

use crate::{
    browser::{Browser, Page},
    fixtures::{Shop, id_of, order_body, order_channel_body, party, shipment_body},
    helpers::TestOrg,
    roles::add_person,
};

/// The pages under `/app/{orgId}/settings/`.
const SETTINGS_PAGES: [&str; 11] = [
    "sender-addresses",
    "carriers",
    "shipping-rules",
    "printers",
    "webhooks",
    "order-channels",
    "api-tokens",
    "members",
    "usage",
    "audit",
    "branding",
];

/// Every page of an organization whose path is fixed (DESIGN §20), relative to `/app/{orgId}/`.
fn fixed_pages() -> Vec<String> {
    let mut pages: Vec<String> = ["orders", "shipments", "shipments/new", "scan", "settings"]
        .iter()
        .map(|p| p.to_string())
        .collect();
    pages.extend(SETTINGS_PAGES.iter().map(|p| format!("settings/{p}")));
    pages
}

pub(crate) fn app_path(org: &TestOrg, rest: &str) -> String {
    format!("/app/{}/{rest}", org.id)
}

/// The owner of `shop` signed in.
pub(crate) async fn owner(shop: &Shop) -> Browser {
    let password = shop.app.set_password(&shop.org.email);
    Browser::signed_in(&shop.app, &shop.org.email, &password).await
}

/// A person with `role` in the shop's organization, signed in.
pub(crate) async fn person(shop: &Shop, role: &str) -> Browser {
    let (email, _, password) = add_person(&shop.app, &shop.org, role);
    Browser::signed_in(&shop.app, &email, &password).await
}

/// Asserts a 200 HTML page with the strict page headers, rendered (not the fallback a template
/// error leaves).
#[track_caller]
pub(crate) fn assert_html_page(page: &Page, what: &str) {
    assert_eq!(page.status, 200, "{what}: {}", page.text());
    assert!(
        page.header("content-type").starts_with("text/html"),
        "{what}: {}",
        page.header("content-type")
    );
    let csp = page.header("content-security-policy");
    assert!(!csp.is_empty(), "{what}: no Content-Security-Policy");
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert!(!csp.contains("unsafe-eval"), "{what}: {csp}");
    assert!(
        !page.text().contains("This page cannot be shown"),
        "{what}: the template failed to render"
    );
}

/// Asserts the 403 page that names `role` as the least role that may.
#[track_caller]
pub(crate) fn assert_refused_for(page: &Page, role: &str, what: &str) {
    assert_eq!(page.status, 403, "{what}: {}", page.text());
    assert!(
        page.header("content-type").starts_with("text/html"),
        "{what}"
    );
    assert!(
        page.text().contains(&format!("needs the {role} role")),
        "{what}: {}",
        page.text()
    );
}

#[track_caller]
pub(crate) fn assert_not_found(page: &Page, what: &str) {
    assert_eq!(page.status, 404, "{what}: {}", page.text());
    assert!(
        page.header("content-type").starts_with("text/html"),
        "{what}"
    );
    assert!(page.text().contains("Not found"), "{what}: {}", page.text());
}

/// The form control (`<input>`, `<select>` or `<textarea>`) named `name` and what follows it.
pub(crate) fn control<'a>(page: &'a Page, name: &str) -> (&'a str, &'a str) {
    let html = page.html.as_str();
    let at = html
        .find(&format!("name=\"{name}\""))
        .unwrap_or_else(|| panic!("no control named {name} in {html}"));
    let start = html[..at].rfind('<').unwrap_or(0);
    let end = at + html[at..].find('>').unwrap_or(html.len() - at);
    let tag = &html[start..=end];
    let mut rest = &html[end + 1..];
    if tag.starts_with("<select") {
        rest = rest.split_once("</select>").map_or("", |(_, after)| after);
    } else if tag.starts_with("<textarea") {
        rest = rest
            .split_once("</textarea>")
            .map_or("", |(_, after)| after);
    }
    (tag, rest)
}

/// The problem shown next to the control named `name`: the `<p class="field-error">` right after
/// it (after its label closes), with `aria-invalid="true"` on the control and its
/// `aria-describedby` naming the message.
#[track_caller]
pub(crate) fn error_at(page: &Page, name: &str) -> String {
    let (tag, rest) = control(page, name);
    assert!(
        tag.contains("aria-invalid=\"true\""),
        "{name} is not marked invalid: {tag}"
    );
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("</label>").unwrap_or(rest).trim_start();
    assert!(
        rest.starts_with("<p class=\"field-error\""),
        "no field error after {name}: {}",
        &rest[..rest.len().min(200)]
    );
    let (open, after) = rest.split_once('>').unwrap_or_default();
    if let Some(described) = tag
        .split_once("aria-describedby=\"")
        .and_then(|(_, v)| v.split('"').next())
    {
        assert!(
            open.contains(&format!("id=\"{described}\"")),
            "{name} is described by {described}, the message is {open}"
        );
    }
    let message = after.split("</p>").next().unwrap_or_default().trim();
    assert!(!message.is_empty(), "an empty message after {name}");
    message.to_string()
}

#[track_caller]
pub(crate) fn assert_no_error_at(page: &Page, name: &str) {
    let (tag, rest) = control(page, name);
    assert!(
        !tag.contains("aria-invalid"),
        "{name} marked invalid: {tag}"
    );
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("</label>").unwrap_or(rest).trim_start();
    assert!(
        !rest.starts_with("<p class=\"field-error\""),
        "a field error after {name}"
    );
}

#[track_caller]
pub(crate) fn csrf(page: &Page) -> String {
    page.hidden("csrf_token")
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| panic!("no csrf_token in {}", page.html))
}

/// The `total` of a REST list of the shop's organization.
pub(crate) async fn total(shop: &Shop, resource: &str) -> u64 {
    let list = shop
        .app
        .get(
            &format!("/orgs/{}/{resource}", shop.org.id),
            &shop.org.token,
        )
        .await
        .expect(200);
    list["total"]
        .as_u64()
        .unwrap_or_else(|| panic!("no total in {list}"))
}

/// The id a `Location` of `/app/{orgId}/shipments/{id}` names.
#[track_caller]
pub(crate) fn shipment_in(location: &str, org: &TestOrg) -> String {
    let prefix = format!("/app/{}/shipments/", org.id);
    let id = location
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{location} is no shipment page of {}", org.id));
    assert!(id.starts_with("shp_") && !id.contains('/'), "{location}");
    id.to_string()
}

/// The shop's sandbox carrier's standard product as the forms name it.
pub(crate) fn product(shop: &Shop) -> String {
    format!("{}|standard", id_of(&shop.carrier))
}

#[tokio::test]
async fn signed_out_every_app_path_goes_to_sign_in_and_back() {
    let shop = Shop::new().await;
    let org = &shop.org.id;
    let mut browser = Browser::new(&shop.app);
    for (path, next) in [
        ("/app".to_string(), "%2Fapp".to_string()),
        (
            format!("/app/{org}/shipments"),
            format!("%2Fapp%2F{org}%2Fshipments"),
        ),
        (
            format!("/app/{org}/settings/members"),
            format!("%2Fapp%2F{org}%2Fsettings%2Fmembers"),
        ),
        (
            format!("/app/{org}/scan?code=X-1"),
            format!("%2Fapp%2F{org}%2Fscan%3Fcode%3DX-1"),
        ),
    ] {
        let page = browser.get(&path).await;
        assert_eq!(
            (page.status, page.location()),
            (303, format!("/login?next={next}")),
            "{path}"
        );
    }
    // A form posted signed out changes nothing and goes to sign in as well.
    let page = browser
        .post(
            &format!("/app/{org}/shipments/new"),
            &[("reference", "SIGNED-OUT")],
        )
        .await;
    assert_eq!(
        (page.status, page.location()),
        (303, format!("/login?next=%2Fapp%2F{org}%2Fshipments%2Fnew")),
    );
    assert_eq!(total(&shop, "shipments").await, 0);

    // Signing in from there comes back to the page asked for.
    let password = shop.app.set_password(&shop.org.email);
    let path = format!("/app/{org}/settings/members");
    let signed_in = browser
        .sign_in(&shop.org.email, &password, Some(&path))
        .await;
    assert_eq!(
        (signed_in.status, signed_in.location()),
        (303, path.clone())
    );
    assert_html_page(&browser.get(&path).await, &path);
}

#[tokio::test]
async fn every_fixed_page_opens_for_the_owner_with_a_strict_csp() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    for rest in fixed_pages() {
        let path = app_path(&shop.org, &rest);
        let page = browser.get(&path).await;
        assert_html_page(&page, &path);
        assert!(page.text().contains("Test Org"), "{path}: the org's name");
    }
    // The only organization is opened straight away; the organization's root is its inbox.
    let orders = app_path(&shop.org, "orders");
    for path in ["/app".to_string(), format!("/app/{}", shop.org.id)] {
        let page = browser.get(&path).await;
        assert_eq!(
            (page.status, page.location()),
            (303, orders.clone()),
            "{path}"
        );
    }
}

#[tokio::test]
async fn app_lists_the_organizations_of_someone_in_more_than_one() {
    let shop = Shop::new().await;
    let other = shop.app.create_org();
    shop.app.cli_json(&[
        "user",
        "add",
        "--org",
        &other.id,
        "--email",
        &shop.org.email,
        "--name",
        "Owner",
        "--role",
        "member",
        "--json",
    ]);
    let mut browser = owner(&shop).await;
    let page = browser.get("/app").await;
    assert_html_page(&page, "/app");
    for org in [&shop.org, &other] {
        let link = format!("href=\"/app/{}/orders\"", org.id);
        assert!(page.html.contains(&link), "{link} in {}", page.html);
    }
    assert!(page.text().contains("owner") && page.text().contains("member"));
}

/// Whether a member may open a page: None for 200, else the role the 403 page names. Each
/// settings page is listed through its operation: `list_webhooks` (read:webhooks),
/// `list_api_tokens` (read:api_tokens), `list_members` (write:orgs) and `get_billing_usage`
/// (read:billing) are beyond a member (src/model/role.rs) and within an admin's cap.
const ROLE_TABLE: [(&str, Option<&str>); 16] = [
    ("orders", None),
    ("shipments", None),
    ("shipments/new", None),
    ("scan", None),
    ("settings", None),
    ("settings/sender-addresses", None),
    ("settings/carriers", None),
    ("settings/shipping-rules", None),
    ("settings/printers", None),
    ("settings/webhooks", Some("admin")),
    ("settings/order-channels", None),
    ("settings/api-tokens", Some("admin")),
    ("settings/members", Some("admin")),
    ("settings/usage", Some("admin")),
    ("settings/audit", None),
    ("settings/branding", None),
];

#[tokio::test]
async fn each_role_opens_the_pages_its_scopes_allow_and_is_told_which_role_it_needs() {
    let shop = Shop::new().await;
    assert_eq!(ROLE_TABLE.len(), fixed_pages().len(), "every fixed page");
    let mut member = person(&shop, "member").await;
    let mut admin = person(&shop, "admin").await;
    for (rest, member_needs) in ROLE_TABLE {
        let path = app_path(&shop.org, rest);
        let page = member.get(&path).await;
        match member_needs {
            None => assert_html_page(&page, &format!("member {path}")),
            Some(role) => {
                assert_refused_for(&page, role, &format!("member {path}"));
                assert!(page.text().contains("you are a member"), "{}", page.text());
            }
        }
        assert_html_page(&admin.get(&path).await, &format!("admin {path}"));
    }

    // The settings index links only the pages the role may open.
    let index = member.get(&app_path(&shop.org, "settings")).await;
    for (rest, member_needs) in ROLE_TABLE {
        if let Some(page) = rest.strip_prefix("settings/") {
            let link = format!("href=\"{}\"", app_path(&shop.org, rest));
            assert_eq!(
                index.html.contains(&link),
                member_needs.is_none(),
                "{page} on the member's settings index"
            );
        }
    }
    assert!(index.text().contains("Webhooks (not for your role)"));

    // An action beyond the role is refused the same way and changes nothing.
    let form = member.get(&app_path(&shop.org, "settings/printers")).await;
    let refused = member
        .post(
            &app_path(&shop.org, "settings/printers"),
            &[
                ("csrf_token", &csrf(&form)),
                ("name", "Desk"),
                ("kind", "raw"),
                ("address", "10.0.0.5:9100"),
                ("format", "pdf"),
            ],
        )
        .await;
    assert_refused_for(&refused, "admin", "member adds a printer");
    assert_eq!(total(&shop, "printers").await, 0);
}

#[tokio::test]
async fn another_organizations_pages_and_things_are_404() {
    let shop = Shop::new().await;
    let theirs = shop.app.create_org();
    let (address, carrier) = shop.app.create_address_and_carrier(&theirs).await;
    let body = shipment_body(&id_of(&address), &id_of(&carrier));
    let their_shipment = id_of(&shop.app.create_shipment(&theirs, body).await);
    let mut browser = owner(&shop).await;

    let mut paths: Vec<String> = fixed_pages()
        .iter()
        .map(|rest| app_path(&theirs, rest))
        .collect();
    paths.push(format!("/app/{}", theirs.id));
    paths.push(app_path(&theirs, &format!("shipments/{their_shipment}")));
    // Their shipment under our organization's path is not there either.
    paths.push(app_path(&shop.org, &format!("shipments/{their_shipment}")));
    paths.push(app_path(&shop.org, "orders/ord_01J00000000000000000000000"));
    paths.push("/app/org_01J00000000000000000000000/orders".into());
    for path in &paths {
        assert_not_found(&browser.get(path).await, path);
    }

    // Nor can a form reach into it.
    let ours = browser.get(&app_path(&shop.org, "shipments/new")).await;
    let token = csrf(&ours);
    let page = browser
        .post(
            &app_path(&shop.org, &format!("shipments/{their_shipment}")),
            &[("csrf_token", &token), ("action", "cancel")],
        )
        .await;
    assert_not_found(&page, "cancel their shipment");
    let page = browser
        .post(
            &app_path(&theirs, &format!("shipments/{their_shipment}")),
            &[("csrf_token", &token), ("action", "cancel")],
        )
        .await;
    assert_not_found(&page, "cancel in their organization");
    let kept = shop.app.get_shipment(&theirs, &their_shipment).await;
    assert_eq!(kept["status"], "pending");
}

/// The new-shipment form's fields for a valid shipment of `shop`, with `csrf_token`.
pub(crate) fn new_shipment_fields(
    shop: &Shop,
    token: &str,
    reference: &str,
) -> Vec<(String, String)> {
    [
        ("csrf_token", token.to_string()),
        ("reference", reference.to_string()),
        ("senderAddressId", id_of(&shop.address)),
        ("product", product(shop)),
        ("parcels[0].weight", "2.5".to_string()),
        ("receiver.name", "Jane Receiver".to_string()),
        ("receiver.address1", "Main Street 1".to_string()),
        ("receiver.postalCode", "8000".to_string()),
        ("receiver.city", "Aarhus".to_string()),
        ("receiver.countryCode", "DK".to_string()),
        ("receiver.email", "jane@example.com".to_string()),
        ("receiver.phone", "+4512345678".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

pub(crate) fn set(fields: &mut [(String, String)], name: &str, value: &str) {
    for (k, v) in fields.iter_mut() {
        if k == name {
            *v = value.to_string();
        }
    }
}

pub(crate) fn borrowed(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

#[tokio::test]
async fn a_new_shipment_shows_its_problems_in_place_and_is_made_when_valid() {
    let shop = Shop::new().await;
    let mut browser = person(&shop, "member").await;
    let path = app_path(&shop.org, "shipments/new");
    let form = browser.get(&path).await;
    assert_html_page(&form, &path);
    assert_eq!(form.options("senderAddressId"), [id_of(&shop.address)]);
    assert!(
        form.options("product").contains(&product(&shop)),
        "{:?}",
        form.options("product")
    );
    let token = csrf(&form);

    // Problems: each next to its input, the rest kept as typed, nothing made.
    let mut fields = new_shipment_fields(&shop, &token, "WB-2001");
    set(&mut fields, "receiver.name", "");
    set(&mut fields, "parcels[0].weight", "0");
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_html_page(&page, "the form with problems");
    error_at(&page, "receiver.name");
    assert!(
        error_at(&page, "parcels[0].weight").contains("greater than 0"),
        "{}",
        page.text()
    );
    for fine in [
        "reference",
        "receiver.address1",
        "receiver.city",
        "receiver.postalCode",
    ] {
        assert_no_error_at(&page, fine);
    }
    assert_eq!(page.hidden("reference").as_deref(), Some("WB-2001"));
    assert_eq!(page.hidden("receiver.city").as_deref(), Some("Aarhus"));
    assert_eq!(page.hidden("parcels[0].weight").as_deref(), Some("0"));
    assert_eq!(total(&shop, "shipments").await, 0);
    // A weight that is no number is named as such. (With it, an empty receiver name is not
    // reported in the same answer: the operation stops at the mistyped field, see the report.)
    let mut fields = new_shipment_fields(&shop, &token, "WB-2001");
    set(&mut fields, "parcels[0].weight", "abc");
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_html_page(&page, "a weight that is no number");
    assert_eq!(error_at(&page, "parcels[0].weight"), "must be a number");
    assert_no_error_at(&page, "receiver.name");
    assert_eq!(page.hidden("parcels[0].weight").as_deref(), Some("abc"));
    assert_eq!(total(&shop, "shipments").await, 0);

    // Without its csrf_token: the expired-form answer, nothing made.
    let mut fields = new_shipment_fields(&shop, "", "WB-2002");
    fields.retain(|(k, _)| k != "csrf_token");
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_eq!(page.status, 403, "{}", page.text());
    assert!(
        page.text().contains("This form has expired"),
        "{}",
        page.text()
    );
    let page = browser
        .post(
            &path,
            &borrowed(&new_shipment_fields(&shop, "forged", "WB-2002")),
        )
        .await;
    assert_eq!(page.status, 403, "{}", page.text());
    assert_eq!(total(&shop, "shipments").await, 0);

    // Valid: made, and the browser goes to its page.
    let page = browser
        .post(
            &path,
            &borrowed(&new_shipment_fields(&shop, &token, "WB-2003")),
        )
        .await;
    assert_eq!(page.status, 303, "{}", page.text());
    let id = shipment_in(&page.location(), &shop.org);
    assert_eq!(total(&shop, "shipments").await, 1);
    let shipment = shop.get(&id).await;
    assert_eq!(shipment["reference"], "WB-2003");
    assert_eq!(shipment["type"], "outbound");
    assert_eq!(shipment["senderAddressId"], shop.address["id"]);
    assert_eq!(shipment["carrierSettings"]["carrierId"], shop.carrier["id"]);
    assert_eq!(shipment["carrierSettings"]["productId"], "standard");
    assert_eq!(shipment["parcels"][0]["weight"], json!(2.5));
    let receiver = party(&shipment, "receiver");
    for (key, value) in [
        ("name", "Jane Receiver"),
        ("address1", "Main Street 1"),
        ("postalCode", "8000"),
        ("city", "Aarhus"),
        ("countryCode", "DK"),
        ("email", "jane@example.com"),
        ("phone", "+4512345678"),
    ] {
        assert_eq!(receiver[key], value, "{key}: {receiver}");
    }
    let shown = browser.get(&page.location()).await;
    assert_html_page(&shown, "the new shipment");
    assert!(
        shown.text().contains("Shipment WB-2003"),
        "{}",
        shown.text()
    );
    assert!(shown.text().contains("Shipment made."), "{}", shown.text());
}

#[tokio::test]
async fn a_shipment_page_shows_it_and_books_it() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(shop.body()).await);
    let path = app_path(&shop.org, &format!("shipments/{id}"));
    let mut browser = person(&shop, "member").await;
    let page = browser.get(&path).await;
    assert_html_page(&page, &path);
    let text = page.text();
    for shown in ["REF-1001", "Jane Receiver", "Main Street 1", "8000 Aarhus"] {
        assert!(text.contains(shown), "{shown} in {text}");
    }
    assert!(page.inputs("action").iter().any(|(a, _)| a == "book"));

    // The list shows it too: its reference, status, product, sender and when it was made.
    let list = browser.get(&app_path(&shop.org, "shipments")).await;
    assert!(
        list.html.contains(&format!("href=\"{path}\"")),
        "{}",
        list.html
    );
    let made = shop.get(&id).await["createdAt"]
        .as_str()
        .map(|at| at[..16].replacen('T', " ", 1))
        .unwrap_or_default();
    let row = |product: &str, status: &str| {
        format!(
            "REF-1001 {status} {product} {} {made}",
            shop.address["name"].as_str().unwrap_or_default()
        )
    };
    let listed = |list: &crate::browser::Page| list.row_text(&format!("value=\"{id}\""));
    assert_eq!(listed(&list), row("standard", "pending"));
    // An edit's product is the list's at once.
    shop.app
        .send_raw(
            reqwest::Method::PATCH,
            &shop.path(&id, ""),
            Some(&shop.org.token),
            Some("application/merge-patch+json"),
            json!({"carrierSettings": {"productId": "express"}}).to_string(),
        )
        .await
        .expect(200);
    let list = browser.get(&app_path(&shop.org, "shipments")).await;
    assert_eq!(listed(&list), row("express", "pending"));

    // Without the csrf_token nothing is booked.
    let refused = browser.post(&path, &[("action", "book")]).await;
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert_eq!(shop.get(&id).await["status"], "pending");

    let booked = browser
        .post(&path, &[("csrf_token", &csrf(&page)), ("action", "book")])
        .await;
    assert_eq!((booked.status, booked.location()), (303, path.clone()));
    let shipment = shop.get(&id).await;
    assert_eq!(shipment["status"], "processing");
    let documents = shipment["documents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        documents.iter().any(|d| d["documentType"] == "label"),
        "{shipment}"
    );

    let after = browser.get(&path).await;
    assert_html_page(&after, "booked");
    assert!(after.text().contains("Booked"), "{}", after.text());
    assert!(!after.inputs("action").iter().any(|(a, _)| a == "book"));
    assert!(after.text().contains("Label"), "{}", after.text());
    let list = browser.get(&app_path(&shop.org, "shipments")).await;
    assert_eq!(listed(&list), row("express", "processing"));
}

#[tokio::test]
async fn an_order_page_makes_and_books_its_shipment() {
    let shop = Shop::new().await;
    let channel = shop
        .app
        .create_order_channel(&shop.org, order_channel_body("manual"))
        .await;
    let order = shop
        .app
        .create_order(&shop.org, order_body(&id_of(&channel), "7001"))
        .await;
    let order_id = id_of(&order);
    let path = app_path(&shop.org, &format!("orders/{order_id}"));
    let mut browser = person(&shop, "member").await;

    let inbox = browser.get(&app_path(&shop.org, "orders")).await;
    assert_html_page(&inbox, "orders");
    assert!(
        inbox.html.contains(&format!("href=\"{path}\"")),
        "{}",
        inbox.html
    );
    assert!(inbox.text().contains("7001") && inbox.text().contains("Jane Customer"));

    let page = browser.get(&path).await;
    assert_html_page(&page, &path);
    assert!(page.text().contains("Order 7001"), "{}", page.text());
    assert!(page.text().contains("No shipment yet."), "{}", page.text());
    assert_eq!(page.options("senderAddressId"), [id_of(&shop.address)]);
    // One choice per product of each carrier (`carrierId|productId`).
    assert!(
        page.options("carrier").contains(&product(&shop)),
        "{:?}",
        page.options("carrier")
    );

    let shipped = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "ship"),
                ("senderAddressId", &id_of(&shop.address)),
                ("carrier", &product(&shop)),
            ],
        )
        .await;
    assert_eq!(shipped.status, 303, "{}", shipped.text());
    let shipment_id = shipment_in(&shipped.location(), &shop.org);
    let order = shop.app.get_order(&shop.org, &order_id).await;
    let shipments = order["shipments"].as_array().cloned().unwrap_or_default();
    assert_eq!(shipments.len(), 1, "{order}");
    assert_eq!(shipments[0]["id"], json!(shipment_id));
    assert_eq!(shipments[0]["status"], "processing", "{order}");
    let shipment = shop.get(&shipment_id).await;
    assert_eq!(shipment["status"], "processing");
    assert_eq!(shipment["carrierSettings"]["carrierId"], shop.carrier["id"]);
    assert!(
        shipment["documents"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["documentType"] == "label")),
        "{shipment}"
    );
    let shown = browser.get(&shipped.location()).await;
    assert_html_page(&shown, "the order's shipment");
    assert!(
        shown.text().contains("Shipment made and booked"),
        "{}",
        shown.text()
    );
    // The order's page lists it.
    let page = browser.get(&path).await;
    assert!(
        page.html.contains(&format!("shipments/{shipment_id}\"")),
        "{}",
        page.html
    );
}

#[tokio::test]
async fn scan_opens_what_a_code_names_and_books_a_ready_shipment() {
    let shop = Shop::new().await;
    let shipment = id_of(&shop.create(shop.body()).await);
    let channel = shop
        .app
        .create_order_channel(&shop.org, order_channel_body("manual"))
        .await;
    let order = id_of(
        &shop
            .app
            .create_order(&shop.org, order_body(&id_of(&channel), "7002"))
            .await,
    );
    let mut browser = person(&shop, "member").await;
    let scan = app_path(&shop.org, "scan");
    let shipment_page = app_path(&shop.org, &format!("shipments/{shipment}"));

    for (code, location) in [
        ("REF-1001", shipment_page.clone()),
        ("7002", app_path(&shop.org, &format!("orders/{order}"))),
    ] {
        let page = browser.get(&format!("{scan}?code={code}")).await;
        assert_eq!((page.status, page.location()), (303, location), "{code}");
    }
    // Opening books nothing.
    assert_eq!(shop.get(&shipment).await["status"], "pending");
    let page = browser.get(&format!("{scan}?code=nothing")).await;
    assert_html_page(&page, "an unknown code");
    assert!(
        page.text().contains("Nothing has the code nothing"),
        "{}",
        page.text()
    );

    // Sent (the scanner's Enter): a ready shipment is booked and opened.
    let form = browser.get(&scan).await;
    assert_html_page(&form, &scan);
    let token = csrf(&form);
    let refused = browser.post(&scan, &[("code", "REF-1001")]).await;
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert_eq!(shop.get(&shipment).await["status"], "pending");
    let page = browser
        .post(&scan, &[("csrf_token", &token), ("code", "REF-1001")])
        .await;
    assert_eq!((page.status, page.location()), (303, shipment_page.clone()));
    assert_eq!(shop.get(&shipment).await["status"], "processing");
    let shown = browser.get(&shipment_page).await;
    assert!(
        shown.text().contains("REF-1001 is booked"),
        "{}",
        shown.text()
    );
    let page = browser
        .post(&scan, &[("csrf_token", &token), ("code", "nothing")])
        .await;
    assert_eq!((page.status, page.location()), (303, scan.clone()));
    let shown = browser.get(&scan).await;
    assert!(
        shown.text().contains("Nothing has the code nothing"),
        "{}",
        shown.text()
    );
}

#[tokio::test]
async fn settings_add_a_printer_or_show_the_problem_next_to_its_input() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/printers");
    let form = browser.get(&path).await;
    assert_html_page(&form, &path);
    let token = csrf(&form);

    let page = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("name", "Desk"),
                ("kind", "raw"),
                ("address", "10.0.0.1:0"),
                ("format", "pdf"),
            ],
        )
        .await;
    assert_html_page(&page, "a printer with a bad address");
    error_at(&page, "address");
    assert_no_error_at(&page, "name");
    assert_eq!(page.hidden("name").as_deref(), Some("Desk"));
    assert_eq!(total(&shop, "printers").await, 0);

    let page = browser
        .post(
            &path,
            &[
                ("name", "Desk"),
                ("kind", "raw"),
                ("address", "10.0.0.5:9100"),
                ("format", "pdf"),
            ],
        )
        .await;
    assert_eq!(page.status, 403, "{}", page.text());
    assert_eq!(total(&shop, "printers").await, 0);

    let page = browser
        .post(
            &path,
            &[
                ("csrf_token", &token),
                ("name", "Desk"),
                ("kind", "raw"),
                ("address", "10.0.0.5:9100"),
                ("format", "pdf"),
            ],
        )
        .await;
    assert_eq!((page.status, page.location()), (303, path.clone()));
    let printers = shop
        .app
        .get(&format!("/orgs/{}/printers", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    assert_eq!(printers["total"], 1, "{printers}");
    let printer: &Value = &printers["data"][0];
    assert_eq!(
        (
            &printer["name"],
            &printer["kind"],
            &printer["address"],
            &printer["format"]
        ),
        (
            &json!("Desk"),
            &json!("raw"),
            &json!("10.0.0.5:9100"),
            &json!("pdf")
        ),
    );
    let listed = browser.get(&path).await;
    assert!(listed.text().contains("Added."), "{}", listed.text());
    assert!(listed.text().contains("10.0.0.5:9100"), "{}", listed.text());
}

#[tokio::test]
async fn a_shipment_page_makes_a_return_and_cancels() {
    let shop = Shop::new().await;
    let dispatched = id_of(&shop.booked(shop.body(), "dispatched").await);
    let mut body = shop.body();
    body["reference"] = json!("REF-3003");
    let pending = id_of(&shop.create(body).await);
    let mut browser = person(&shop, "member").await;

    let path = app_path(&shop.org, &format!("shipments/{dispatched}"));
    let page = browser.get(&path).await;
    assert_html_page(&page, &path);
    let actions: Vec<String> = page.inputs("action").into_iter().map(|(a, _)| a).collect();
    assert!(actions.contains(&"return".to_string()), "{actions:?}");
    assert!(!actions.contains(&"book".to_string()), "{actions:?}");
    // A dispatched shipment cannot be cancelled any more: not offered.
    assert!(!actions.contains(&"cancel".to_string()), "{actions:?}");
    let made = browser
        .post(&path, &[("csrf_token", &csrf(&page)), ("action", "return")])
        .await;
    assert_eq!(made.status, 303, "{}", made.text());
    let ret = shipment_in(&made.location(), &shop.org);
    assert_ne!(ret, dispatched);
    let returned = shop.get(&ret).await;
    assert_eq!(returned["returnOf"], json!(dispatched), "{returned}");
    assert_eq!(returned["type"], "inbound");
    let shown = browser.get(&made.location()).await;
    assert_html_page(&shown, "the return");
    assert!(shown.text().contains("The return shipment is made."));
    assert!(!shown.inputs("action").iter().any(|(a, _)| a == "return"));

    let path = app_path(&shop.org, &format!("shipments/{pending}"));
    let page = browser.get(&path).await;
    let actions: Vec<String> = page.inputs("action").into_iter().map(|(a, _)| a).collect();
    assert!(
        actions.contains(&"book".to_string()) && actions.contains(&"cancel".to_string()),
        "a pending shipment: {actions:?}"
    );
    let cancelled = browser
        .post(&path, &[("csrf_token", &csrf(&page)), ("action", "cancel")])
        .await;
    assert_eq!(
        (cancelled.status, cancelled.location()),
        (303, path.clone())
    );
    assert_eq!(shop.get(&pending).await["status"], "cancelled");
    let shown = browser.get(&path).await;
    assert!(shown.text().contains("The shipment is cancelled."));
    let actions: Vec<String> = shown.inputs("action").into_iter().map(|(a, _)| a).collect();
    assert!(
        !actions.contains(&"book".to_string()) && !actions.contains(&"cancel".to_string()),
        "{actions:?}"
    );
    // Only what has left can be returned: a cancelled or a processing one offers no return.
    assert!(!actions.contains(&"return".to_string()), "{actions:?}");
    let processing = id_of(&shop.booked(shop.body(), "processing").await);
    let page = browser
        .get(&app_path(&shop.org, &format!("shipments/{processing}")))
        .await;
    let actions: Vec<String> = page.inputs("action").into_iter().map(|(a, _)| a).collect();
    assert!(!actions.contains(&"return".to_string()), "{actions:?}");
    assert!(actions.contains(&"cancel".to_string()), "{actions:?}");
}

#[tokio::test]
async fn the_shipments_list_filters_by_status_reference_and_day_and_escapes_what_it_shows() {
    let shop = Shop::new().await;
    let pending = shop.create(shop.body()).await;
    let mut body = shop.body();
    body["reference"] = json!("REF-2002");
    let booked = id_of(&shop.booked(body, "processing").await);
    let mut body = shop.body();
    body["reference"] = json!("<b>R&D</b>");
    let marked = id_of(&shop.create(body).await);
    let pending_id = id_of(&pending);
    let day = pending["createdAt"].as_str().unwrap_or_default()[..10].to_string();
    let mut browser = owner(&shop).await;
    let list = app_path(&shop.org, "shipments");
    let link = |id: &str| format!("href=\"{list}/{id}\"");

    for (query, shown) in [
        (String::new(), vec![&pending_id, &booked, &marked]),
        ("status=processing".into(), vec![&booked]),
        ("status=pending&q=REF-1001".into(), vec![&pending_id]),
        ("q=REF-2002".into(), vec![&booked]),
        (crate::browser::query(&[("q", "<b>R&D</b>")]), vec![&marked]),
        (
            format!("from={day}&to={day}"),
            vec![&pending_id, &booked, &marked],
        ),
        ("from=2000-01-01&to=2000-01-31".into(), vec![]),
    ] {
        let page = browser.get(&format!("{list}?{query}")).await;
        assert_html_page(&page, &query);
        for id in [&pending_id, &booked, &marked] {
            assert_eq!(
                page.html.contains(&link(id)),
                shown.contains(&id),
                "{query}: {id}"
            );
        }
        if shown.is_empty() {
            assert!(page.text().contains("No shipments here."), "{query}");
        }
        assert!(!page.html.contains("<b>R&D</b>"), "unescaped: {query}");
    }
    let page = browser.get(&format!("{list}/{marked}")).await;
    assert!(
        page.text().contains("Shipment <b>R&D</b>"),
        "{}",
        page.text()
    );
    assert!(!page.html.contains("<b>R&D</b>"), "unescaped");
}

#[tokio::test]
async fn the_change_marker_moves_with_every_change_live_lists_show() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "changes");
    let marker = |page: &Page| -> String {
        let body: serde_json::Value = serde_json::from_str(&page.html).expect("JSON");
        body["marker"].as_str().expect("a marker").to_string()
    };
    let first = browser.get(&path).await;
    assert_eq!(first.status, 200, "{}", first.html);
    let before = marker(&first);
    assert_eq!(marker(&browser.get(&path).await), before, "nothing changed");
    let id = id_of(&shop.create(shop.body()).await);
    let created = marker(&browser.get(&path).await);
    assert_ne!(created, before, "a new shipment");
    shop.app.book_shipment(&shop.org, &id).await;
    assert_ne!(marker(&browser.get(&path).await), created, "a booking");

    // The pages that follow changes load the script that polls it.
    let list = browser.get(&app_path(&shop.org, "shipments")).await;
    assert!(
        list.html
            .contains("<script src=\"/static/app.js\" defer></script>")
    );
    assert!(list.html.contains(&format!("data-changes=\"{path}\"")));

    // Signed out it is a sign-in; another organization's is not there.
    let signed_out = Browser::new(&shop.app).get(&path).await;
    assert_eq!(signed_out.status, 303);
    let other = shop.app.create_org();
    let theirs = browser.get(&app_path(&other, "changes")).await;
    assert_eq!(theirs.status, 404);
}

/// The text of the first `<code>` after `marker` in `html`.
fn code_after(html: &str, marker: &str) -> String {
    let from = html
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} not in {html}"));
    let rest = &html[from..];
    let start = rest.find("<code>").expect("a <code>") + "<code>".len();
    let end = rest[start..].find("</code>").expect("</code>");
    rest[start..start + end].to_string()
}

#[tokio::test]
async fn settings_make_tokens_members_webhooks_and_channels_and_show_secrets_once() {
    let shop = Shop::with_config("[webhooks]\nallow_private_targets = true\n").await;
    let mut browser = owner(&shop).await;

    // An API token: its value on the answering page only, and it works.
    let path = app_path(&shop.org, "settings/api-tokens");
    let form = browser.get(&path).await;
    let page = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&form)),
                ("name", "Packing script"),
                ("scopes", "read:shipments write:shipments"),
            ],
        )
        .await;
    assert_html_page(&page, "the token made");
    let token = code_after(&page.html, "The token (shown only now)");
    assert!(token.starts_with("shb_"), "{token}");
    shop.app
        .get(&format!("/orgs/{}/shipments", shop.org.id), &token)
        .await
        .expect(200);
    let listed = browser.get(&path).await;
    assert!(listed.text().contains("Packing script"));
    assert!(!listed.html.contains(&token), "never shown again");

    // A member.
    let path = app_path(&shop.org, "settings/members");
    let form = browser.get(&path).await;
    let added = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&form)),
                ("email", "new.packer@example.com"),
                ("name", "New Packer"),
                ("role", "member"),
            ],
        )
        .await;
    assert_eq!(added.status, 303, "{}", added.text());
    let listed = browser.get(&path).await;
    assert!(
        listed.text().contains("new.packer@example.com"),
        "{}",
        listed.text()
    );

    // The member's role changed, then the member removed.
    let listed = browser.get(&path).await;
    let members = shop
        .app
        .get(&format!("/orgs/{}/members", shop.org.id), &shop.org.token)
        .await
        .expect(200);
    let packer = members["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "new.packer@example.com")
        .cloned()
        .expect("the new member");
    let packer_id = id_of(&packer);
    let changed = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&listed)),
                ("action", "member_role"),
                ("id", &packer_id),
                ("role", "admin"),
            ],
        )
        .await;
    assert_eq!(changed.status, 303, "{}", changed.text());
    let shown = browser.get(&path).await;
    assert!(
        shown.text().contains("New Packer is now admin."),
        "{}",
        shown.text()
    );
    let removed = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&shown)),
                ("action", "member_remove"),
                ("id", &packer_id),
            ],
        )
        .await;
    assert_eq!(removed.status, 303, "{}", removed.text());
    assert!(
        !browser
            .get(&path)
            .await
            .text()
            .contains("new.packer@example.com")
    );

    // A webhook: its signing secret once.
    let path = app_path(&shop.org, "settings/webhooks");
    let form = browser.get(&path).await;
    let page = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&form)),
                ("name", "ERP"),
                ("url", "http://127.0.0.1:9/hooks/shipbase"),
                ("events", "shipment.created shipment.updated"),
            ],
        )
        .await;
    assert_html_page(&page, "the webhook made");
    let secret = code_after(&page.html, "The signing secret (shown only now)");
    assert!(secret.starts_with("whsec_"), "{secret}");
    // Its delivery log, with a test send (nothing listens there: not delivered, logged).
    let hooks = browser.get(&path).await;
    assert!(
        hooks
            .text()
            .contains("Deliveries to http://127.0.0.1:9/hooks/shipbase")
    );
    let hook_id = shop
        .app
        .get(&format!("/orgs/{}/webhooks", shop.org.id), &shop.org.token)
        .await
        .expect(200)["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let tested = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&hooks)),
                ("action", "test_webhook"),
                ("id", &hook_id),
            ],
        )
        .await;
    assert_eq!(tested.status, 303, "{}", tested.text());
    let log = browser.get(&path).await;
    assert!(
        log.text().contains("The test event was not delivered"),
        "{}",
        log.text()
    );
    let deliveries = shop
        .app
        .get(
            &format!("/orgs/{}/webhooks/{hook_id}/deliveries", shop.org.id),
            &shop.org.token,
        )
        .await
        .expect(200);
    assert_eq!(deliveries["total"], 1, "{deliveries}");
    let event = deliveries["data"][0]["eventType"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        log.text().contains(&event),
        "the log shows {event}: {}",
        log.text()
    );

    // A manual order channel: no secret to show, back to the list.
    let path = app_path(&shop.org, "settings/order-channels");
    let form = browser.get(&path).await;
    let added = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&form)),
                ("name", "Web shop"),
                ("type", "manual"),
            ],
        )
        .await;
    assert_eq!(added.status, 303, "{}", added.text());
    assert_eq!(total(&shop, "order-channels").await, 1);

    // A Shopify channel: its secret shown once, and the address Shopify sends orders to listed.
    let added = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&form)),
                ("name", "Shopify store"),
                ("type", "shopify"),
                ("shopDomain", "acme.myshopify.com"),
            ],
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.text());
    assert!(
        added
            .text()
            .contains("The Shopify webhook secret (shown only now)")
    );
    let channels = shop
        .app
        .get(
            &format!("/orgs/{}/order-channels", shop.org.id),
            &shop.org.token,
        )
        .await
        .expect(200);
    let url = channels["data"]
        .as_array()
        .and_then(|d| d.iter().find_map(|c| c["webhookUrl"].as_str()))
        .unwrap_or_else(|| panic!("no webhookUrl in {channels}"))
        .to_string();
    let list = browser.get(&path).await;
    assert!(list.text().contains(&url), "{}", list.text());
}

#[tokio::test]
async fn a_shipment_page_changes_the_status_and_applies_a_rule() {
    let shop = Shop::new().await;
    let rule = shop
        .app
        .create_rule(
            &shop.org,
            crate::fixtures::rule_body(&id_of(&shop.carrier), &id_of(&shop.address)),
        )
        .await;
    let pending = id_of(&shop.create(shop.body()).await);
    let processing = id_of(&shop.booked(shop.body(), "processing").await);
    let mut browser = person(&shop, "member").await;

    let path = app_path(&shop.org, &format!("shipments/{pending}"));
    let page = browser.get(&path).await;
    assert!(page.text().contains("Apply the rule"), "{}", page.text());
    let applied = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "apply_rule"),
                ("shippingRuleId", &id_of(&rule)),
            ],
        )
        .await;
    assert_eq!((applied.status, applied.location()), (303, path.clone()));
    assert_eq!(shop.get(&pending).await["shippingRule"]["id"], rule["id"]);

    let path = app_path(&shop.org, &format!("shipments/{processing}"));
    let page = browser.get(&path).await;
    assert!(!page.text().contains("Apply the rule"), "booked: no rules");
    let moved = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "status"),
                ("status", "dispatched"),
            ],
        )
        .await;
    assert_eq!(moved.status, 303, "{}", moved.text());
    assert_eq!(shop.get(&processing).await["status"], "dispatched");
    // A move the status machine refuses is shown on the page, and changes nothing.
    let page = browser.get(&path).await;
    let refused = browser
        .post(
            &path,
            &[
                ("csrf_token", &csrf(&page)),
                ("action", "status"),
                ("status", "pending"),
            ],
        )
        .await;
    assert_eq!(refused.status, 200);
    assert!(
        refused.html.contains("class=\"alert\""),
        "{}",
        refused.text()
    );
    assert_eq!(shop.get(&processing).await["status"], "dispatched");
}

#[tokio::test]
async fn a_shipment_is_edited_before_booking_with_its_problems_in_place() {
    let shop = Shop::new().await;
    let id = id_of(&shop.create(shop.body()).await);
    let mut browser = person(&shop, "member").await;
    let path = app_path(&shop.org, &format!("shipments/{id}/edit"));
    let form = browser.get(&path).await;
    assert_html_page(&form, &path);
    assert_eq!(form.hidden("receiver.city").as_deref(), Some("Aarhus"));
    assert_eq!(form.hidden("reference").as_deref(), Some("REF-1001"));

    let mut fields: Vec<(String, String)> = [
        "reference",
        "receiver.name",
        "receiver.address1",
        "receiver.postalCode",
        "receiver.countryCode",
        "receiver.email",
        "receiver.phone",
        "weight",
    ]
    .iter()
    .map(|name| (name.to_string(), form.hidden(name).unwrap_or_default()))
    .collect();
    fields.push(("csrf_token".into(), csrf(&form)));
    fields.push(("senderAddressId".into(), id_of(&shop.address)));
    fields.push(("product".into(), product(&shop)));
    fields.push(("receiver.city".into(), String::new()));
    let page = browser.post(&path, &borrowed(&fields)).await;
    assert_html_page(&page, "an edit with a problem");
    error_at(&page, "receiver.city");
    let kept = shop.get(&id).await;
    assert!(
        kept["parties"].to_string().contains("Aarhus"),
        "unchanged: {kept}"
    );

    set(&mut fields, "receiver.city", "Odense");
    set(&mut fields, "weight", "3.25");
    let saved = browser.post(&path, &borrowed(&fields)).await;
    assert_eq!(saved.status, 303, "{}", saved.text());
    let edited = shop.get(&id).await;
    assert!(edited["parties"].to_string().contains("Odense"), "{edited}");
    assert_eq!(edited["parcels"][0]["weight"], 3.25);
    assert_eq!(
        edited["parcels"][0]["orderLines"][0]["sku"], "SKU-1",
        "its lines kept"
    );

    // Once booked there is nothing to edit.
    shop.app.book_shipment(&shop.org, &id).await;
    let gone = browser.get(&path).await;
    assert_eq!(gone.status, 303);
}

#[tokio::test]
async fn the_carrier_form_asks_for_the_chosen_types_settings_and_keeps_secrets_unshown() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let path = app_path(&shop.org, "settings/carriers");
    let form = browser.get(&format!("{path}?type=postnord")).await;
    assert_html_page(&form, "the PostNord form");
    assert!(
        form.html.contains("name=\"config.customerNumber\""),
        "{}",
        form.text()
    );
    assert!(
        form.html
            .contains("type=\"password\" name=\"config.apiKey\""),
        "the key is a password input"
    );
    assert_eq!(form.hidden("carrierSlug").as_deref(), Some("postnord"));

    // Without the required customer number: the problem next to it, nothing made.
    let fields = [
        ("csrf_token", csrf(&form)),
        ("name", "PostNord DK".to_string()),
        ("senderAddressId", id_of(&shop.address)),
        ("carrierSlug", "postnord".to_string()),
        ("config.apiKey", "secret-key-123".to_string()),
        ("config.customerNumber", String::new()),
        ("config.issuerCode", "Z11".to_string()),
    ];
    let page = browser
        .post(
            &path,
            &fields
                .iter()
                .map(|(k, v)| (*k, v.as_str()))
                .collect::<Vec<_>>(),
        )
        .await;
    assert_html_page(&page, "a PostNord carrier without its customer number");
    error_at(&page, "config.customerNumber");
    assert!(
        !page.html.contains("secret-key-123"),
        "a secret is never shown back"
    );
    assert_eq!(total(&shop, "carriers").await, 1);

    let mut fields = fields.to_vec();
    fields[5].1 = "1234567".into();
    let made = browser
        .post(
            &path,
            &fields
                .iter()
                .map(|(k, v)| (*k, v.as_str()))
                .collect::<Vec<_>>(),
        )
        .await;
    assert_eq!(made.status, 303, "{}", made.text());
    assert_eq!(total(&shop, "carriers").await, 2);
    let listed = browser.get(&path).await;
    assert!(listed.text().contains("PostNord DK"));
    assert!(!listed.html.contains("secret-key-123"));
}

#[tokio::test]
async fn the_usage_page_shows_each_limit_by_its_name() {
    let shop = Shop::new().await;
    let mut browser = owner(&shop).await;
    let page = browser.get(&app_path(&shop.org, "settings/usage")).await;
    assert_html_page(&page, "usage");
    let text = page.text();
    for name in [
        "Shipments:",
        "Team members:",
        "Sender addresses:",
        "API tokens:",
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
    // The default plan has no limits: said so, with no bar that would read as full.
    assert!(text.contains("(unlimited"), "{text}");
    assert!(!page.html.contains("<progress max=\"0\""), "{}", page.html);
}

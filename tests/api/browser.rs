//! A minimal browser for the pages: no redirects followed, cookies kept by name, forms posted
//! as `application/x-www-form-urlencoded`; plus the OAuth client steps (register, PKCE,
//! authorize, token) the page and OAuth tests share.

use std::collections::BTreeMap;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use reqwest::{Method, header::HeaderMap};
use serde_json::{Value, json};

use crate::helpers::{TestApp, TestOrg};

pub const REDIRECT_URI: &str = "http://127.0.0.1:43110/callback";

pub struct Browser {
    base_url: String,
    client: reqwest::Client,
    pub cookies: BTreeMap<String, String>,
    /// Sent as `X-Forwarded-For`: the client address a trusted proxy would name.
    forwarded_for: Option<String>,
}

/// A page as it came back.
pub struct Page {
    pub status: u16,
    pub headers: HeaderMap,
    pub html: String,
}

impl Browser {
    pub fn new(app: &TestApp) -> Browser {
        Browser {
            base_url: app.base_url.clone(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            cookies: BTreeMap::new(),
            forwarded_for: None,
        }
    }

    /// A browser behind a reverse proxy at 127.0.0.1 (the app must trust it), from `address`.
    pub fn from_address(app: &TestApp, address: &str) -> Browser {
        Browser {
            forwarded_for: Some(address.to_string()),
            ..Browser::new(app)
        }
    }

    /// A browser signed in as `email`.
    pub async fn signed_in(app: &TestApp, email: &str, password: &str) -> Browser {
        let mut browser = Browser::new(app);
        let page = browser.sign_in(email, password, None).await;
        assert_eq!(page.status, 303, "{}", page.html);
        browser
    }

    pub async fn get(&mut self, path: &str) -> Page {
        self.send(Method::GET, path, None).await
    }

    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let form = (
            "application/x-www-form-urlencoded".to_string(),
            body.into_bytes(),
        );
        self.send(Method::POST, path, Some(form)).await
    }

    /// Posts a `multipart/form-data` form, as a browser sends one with a file input: `fields`,
    /// and `files` as (input name, file name, media type, bytes).
    pub async fn post_multipart(
        &mut self,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &str, &str, &[u8])],
    ) -> Page {
        let boundary = "----shipbase-test-boundary-7MA4YWxkTrZu0gW";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                    .as_bytes(),
            );
        }
        for (name, filename, media_type, bytes) in files {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {media_type}\r\n\r\n"
                )
                .as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={boundary}");
        self.send(Method::POST, path, Some((content_type, body)))
            .await
    }

    async fn send(&mut self, method: Method, path: &str, form: Option<(String, Vec<u8>)>) -> Page {
        let url = if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base_url)
        };
        let mut req = self.client.request(method, url);
        if let Some(address) = &self.forwarded_for {
            req = req.header("x-forwarded-for", address);
        }
        if !self.cookies.is_empty() {
            let cookie = self
                .cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            req = req.header("cookie", cookie);
        }
        if let Some((content_type, body)) = form {
            req = req.header("content-type", content_type).body(body);
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        for raw in headers.get_all("set-cookie") {
            let raw = raw.to_str().unwrap_or_default();
            let first = raw.split(';').next().unwrap_or_default();
            let (name, value) = first.split_once('=').unwrap_or((first, ""));
            let removal = raw.to_ascii_lowercase().contains("max-age=0") || value.is_empty();
            if removal {
                self.cookies.remove(name.trim());
            } else {
                self.cookies
                    .insert(name.trim().to_string(), value.to_string());
            }
        }
        let html = resp.text().await.unwrap_or_default();
        Page {
            status,
            headers,
            html,
        }
    }

    /// GET /login then post its form.
    pub async fn sign_in(&mut self, email: &str, password: &str, next: Option<&str>) -> Page {
        let path = match next {
            Some(next) => format!("/login?{}", query(&[("next", next)])),
            None => "/login".into(),
        };
        let form = self.get(&path).await;
        assert_eq!(form.status, 200, "{}", form.html);
        let csrf = form.hidden("csrf_token").expect("csrf_token");
        let next = form.hidden("next").unwrap_or_default();
        self.post(
            "/login",
            &[
                ("csrf_token", &csrf),
                ("next", &next),
                ("email", email),
                ("password", password),
            ],
        )
        .await
    }
}

impl Page {
    pub fn header(&self, name: &str) -> String {
        crate::helpers::header(&self.headers, name)
    }

    pub fn location(&self) -> String {
        self.header("location")
    }

    /// The query parameters of the `Location` this page redirects to.
    pub fn redirect_params(&self) -> BTreeMap<String, String> {
        let location = self.location();
        let query = location.split_once('?').map(|(_, q)| q).unwrap_or_default();
        url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect()
    }

    /// The value of the input named `name` (the first one).
    pub fn hidden(&self, name: &str) -> Option<String> {
        self.inputs(name).into_iter().next().map(|(value, _)| value)
    }

    /// Every input named `name`: its value and whether it is checked.
    pub fn inputs(&self, name: &str) -> Vec<(String, bool)> {
        let needle = format!("name=\"{name}\" value=\"");
        self.html
            .match_indices(&needle)
            .map(|(at, _)| {
                let rest = &self.html[at + needle.len()..];
                let value = rest.split('"').next().unwrap_or_default();
                let tag_end = rest.find('>').unwrap_or(rest.len());
                (unescape(value), rest[..tag_end].contains(" checked"))
            })
            .collect()
    }

    /// The `value`s of the options of the select named `name`.
    pub fn options(&self, name: &str) -> Vec<String> {
        let Some(start) = self.html.find(&format!("<select name=\"{name}\"")) else {
            return Vec::new();
        };
        let select = &self.html[start..];
        let select = &select[..select.find("</select>").unwrap_or(select.len())];
        select
            .match_indices("<option value=\"")
            .map(|(at, needle)| {
                unescape(
                    select[at + needle.len()..]
                        .split('"')
                        .next()
                        .unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The page's text without tags (roughly), for "contains" checks.
    pub fn text(&self) -> String {
        text_of(&self.html)
    }

    /// The text of the table row (`<tr>`) whose markup contains `marker`, as `text` reads it.
    #[track_caller]
    pub fn row_text(&self, marker: &str) -> String {
        let at = (self.html.find(marker)).unwrap_or_else(|| panic!("no {marker} in {}", self.html));
        let start = self.html[..at]
            .rfind("<tr")
            .unwrap_or_else(|| panic!("{marker} not in a row"));
        let end = at
            + self.html[at..]
                .find("</tr>")
                .unwrap_or_else(|| panic!("row not closed"));
        text_of(&self.html[start..end])
    }
}

fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    unescape(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&#x2f;", "/")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

pub fn query(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// RFC 7591 registration of a public client; asserts 201.
pub async fn register(app: &TestApp, name: &str) -> String {
    let reply = app
        .call(
            Method::POST,
            "/oauth/register",
            None,
            Some(json!({"client_name": name, "redirect_uris": [REDIRECT_URI], "token_endpoint_auth_method": "none"})),
        )
        .await;
    let client = reply.expect(201);
    client["client_id"].as_str().expect("client_id").to_string()
}

/// One authorization request with its PKCE pair.
pub struct Request {
    pub client_id: String,
    pub redirect_uri: String,
    pub verifier: String,
    pub params: Vec<(String, String)>,
}

impl Request {
    pub fn new(client_id: &str, scope: Option<&str>) -> Request {
        let verifier = URL_SAFE_NO_PAD.encode(ulid::Ulid::new().to_string().repeat(2));
        let challenge = URL_SAFE_NO_PAD.encode(ring::digest::digest(
            &ring::digest::SHA256,
            verifier.as_bytes(),
        ));
        let mut params = vec![
            ("response_type".to_string(), "code".to_string()),
            ("client_id".into(), client_id.into()),
            ("redirect_uri".into(), REDIRECT_URI.into()),
            ("code_challenge".into(), challenge),
            ("code_challenge_method".into(), "S256".into()),
            ("state".into(), "st-123".into()),
        ];
        if let Some(scope) = scope {
            params.push(("scope".into(), scope.into()));
        }
        Request {
            client_id: client_id.into(),
            redirect_uri: REDIRECT_URI.into(),
            verifier,
            params,
        }
    }

    /// Replaces (or adds, or with `None` removes) a parameter.
    pub fn set(mut self, name: &str, value: Option<&str>) -> Request {
        self.params.retain(|(k, _)| k != name);
        if let Some(value) = value {
            self.params.push((name.into(), value.into()));
            if name == "redirect_uri" {
                self.redirect_uri = value.into();
            }
        }
        self
    }

    pub fn path(&self) -> String {
        let pairs: Vec<(&str, &str)> = self
            .params
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        format!("/oauth/authorize?{}", query(&pairs))
    }
}

/// Posts the consent form of `page` with `decision`, `org_id` and `scopes`.
pub async fn consent(
    browser: &mut Browser,
    page: &Page,
    decision: &str,
    org_id: &str,
    scopes: &[&str],
) -> Page {
    let csrf = page.hidden("csrf_token").expect("csrf_token");
    let request_id = page.hidden("request_id").expect("request_id");
    let mut fields = vec![
        ("csrf_token", csrf.as_str()),
        ("request_id", request_id.as_str()),
        ("org_id", org_id),
        ("decision", decision),
    ];
    fields.extend(scopes.iter().map(|s| ("scope", *s)));
    browser.post("/oauth/authorize", &fields).await
}

/// Opens the consent page for `request` and allows `scopes` for `org_id`; returns the code.
pub async fn authorize(
    browser: &mut Browser,
    request: &Request,
    org_id: &str,
    scopes: &[&str],
) -> String {
    let page = browser.get(&request.path()).await;
    assert_eq!(page.status, 200, "{}", page.html);
    let answer = consent(browser, &page, "allow", org_id, scopes).await;
    assert_eq!(answer.status, 303, "{}", answer.html);
    answer.redirect_params()["code"].clone()
}

/// `POST /oauth/token` with a form.
pub async fn token(app: &TestApp, fields: &[(&str, &str)]) -> crate::helpers::Reply {
    app.send_raw(
        Method::POST,
        "/oauth/token",
        None,
        Some("application/x-www-form-urlencoded"),
        query(fields),
    )
    .await
}

/// Exchanges `code` of `request`; asserts 200 and returns the token response.
pub async fn exchange(app: &TestApp, request: &Request, code: &str) -> Value {
    token(
        app,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &request.redirect_uri),
            ("client_id", &request.client_id),
            ("code_verifier", &request.verifier),
        ],
    )
    .await
    .expect(200)
}

/// The refresh grant.
pub async fn refresh(app: &TestApp, client_id: &str, refresh_token: &str) -> crate::helpers::Reply {
    token(
        app,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", client_id),
        ],
    )
    .await
}

/// A whole connection: the owner of `org` signs in, registers a client, allows `scopes`.
pub struct Connected {
    pub browser: Browser,
    pub client_id: String,
    pub tokens: Value,
}

impl Connected {
    pub fn access(&self) -> &str {
        self.tokens["access_token"].as_str().expect("access_token")
    }

    pub fn refresh(&self) -> &str {
        self.tokens["refresh_token"]
            .as_str()
            .expect("refresh_token")
    }
}

pub async fn connect(app: &TestApp, org: &TestOrg, scopes: &[&str]) -> Connected {
    let password = app.set_password(&org.email);
    let mut browser = Browser::signed_in(app, &org.email, &password).await;
    let client_id = register(app, "Test Agent").await;
    let request = Request::new(&client_id, Some(&scopes.join(" ")));
    let code = authorize(&mut browser, &request, &org.id, scopes).await;
    let tokens = exchange(app, &request, &code).await;
    Connected {
        browser,
        client_id,
        tokens,
    }
}

//! Rate limiting (DESIGN §13): every authenticated answer says where the credential stands
//! (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`); past the burst, 429 with
//! `Retry-After` too.

use crate::helpers::TestApp;

#[tokio::test]
async fn authenticated_answers_carry_the_rate_limit_headers() {
    let app = TestApp::spawn_with("[limits]\nrate_per_second = 1\nburst = 2").await;
    let org = app.create_org();
    let path = format!("/orgs/{}", org.id);
    let first = app.get(&path, &org.token).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.header("ratelimit-limit"), "3");
    assert_eq!(first.header("ratelimit-remaining"), "2");
    let reset: u64 = first.header("ratelimit-reset").parse().expect("seconds");
    assert!((1..=3).contains(&reset), "{reset}");
    // Errors of an authenticated request carry them too.
    let missing = app
        .get(
            &format!("/orgs/{}/shipments/shp_01ARZ3NDEKTSV4RRFFQ69G5FAV", org.id),
            &org.token,
        )
        .await;
    assert_eq!(
        (
            missing.status.as_u16(),
            missing.header("ratelimit-remaining")
        ),
        (404, "1".into())
    );
    app.get(&path, &org.token).await.expect(200);
    let limited = app.get(&path, &org.token).await;
    limited.problem(429, "rate_limited");
    let limited = app.get(&path, &org.token).await;
    assert_eq!(limited.header("ratelimit-remaining"), "0");
    assert_eq!(limited.header("ratelimit-limit"), "3");
    let retry: u64 = limited.header("retry-after").parse().expect("seconds");
    assert!(retry >= 1);
    // Public answers have none.
    let health = app.call(reqwest::Method::GET, "/health", None, None).await;
    assert_eq!(health.header("ratelimit-limit"), "");
}

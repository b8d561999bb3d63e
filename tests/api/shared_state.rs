//! State that every process serving one database must share (DESIGN §18): two `Ctx`s opened on
//! the same data directory stand for two `shipbase serve` processes.

use shipbase::{
    config::Config,
    service::{
        Ctx,
        access::{
            login_throttle::{self, Attempt},
            mcp_sessions::{self as sessions, Session},
        },
    },
};

fn two_processes() -> (
    tempfile::TempDir,
    Ctx,
    Ctx,
    Option<crate::helpers::TestDatabase>,
) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.storage.data_dir = dir.path().to_path_buf();
    let database = crate::helpers::fresh_postgres_database();
    if let Some(db) = &database {
        config.storage.url.clone_from(&db.url);
    }
    let first = Ctx::open(config.clone()).unwrap();
    let second = Ctx::open(config).unwrap();
    (dir, first, second, database)
}

#[tokio::test]
async fn a_legacy_mcp_session_opened_by_one_process_goes_on_in_another() {
    let (_dir, first, second, _db) = two_processes();
    let session = Session {
        connection_id: "con_1".into(),
        user_id: "usr_1".into(),
        protocol_version: "2025-06-18".into(),
        initialized: false,
    };
    let id = sessions::open(&first, session.clone()).await.unwrap();
    assert_eq!(sessions::get(&second, &id).await.unwrap(), Some(session));
    sessions::mark_initialized(&second, &id).await.unwrap();
    assert!(
        sessions::get(&first, &id)
            .await
            .unwrap()
            .unwrap()
            .initialized
    );
    assert!(sessions::close(&first, &id).await.unwrap());
    assert_eq!(sessions::get(&second, &id).await.unwrap(), None);
}

#[tokio::test]
async fn sign_in_attempts_counted_by_one_process_throttle_in_another() {
    let (_dir, first, second, _db) = two_processes();
    let address = Some(std::net::IpAddr::from([192, 0, 2, 7]));
    let mut taken = Vec::new();
    for _ in 0..5 {
        match login_throttle::take(&first, "victim@example.com", address)
            .await
            .unwrap()
        {
            Attempt::Go(slots) => taken.push(slots),
            Attempt::Wait(wait) => panic!("refused after {} attempts ({wait} s)", taken.len()),
        }
    }
    let refused = login_throttle::take(&second, "victim@example.com", address)
        .await
        .unwrap();
    assert!(
        matches!(refused, Attempt::Wait(wait) if (1..=60).contains(&wait)),
        "{refused:?}"
    );
    login_throttle::give_back(&second, taken.pop().unwrap())
        .await
        .unwrap();
    assert!(matches!(
        login_throttle::take(&first, "victim@example.com", address)
            .await
            .unwrap(),
        Attempt::Go(_)
    ));
}

//! Migrations applied over rows an older version wrote: SQLite changes a column by making its
//! table anew, and the rows, indexes and constraints must come through.

use rusqlite::Connection;

fn texts(conn: &Connection, sql: &str) -> Vec<String> {
    conn.prepare(sql)
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn v19_keeps_document_jobs_and_takes_test_pages_that_carry_their_content() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut conn = Connection::open(dir.path().join("u.db")).unwrap_or_else(|e| panic!("{e}"));
    let ok = |r: rusqlite::Result<()>| r.unwrap_or_else(|e| panic!("{e}"));
    ok(conn.execute_batch("PRAGMA foreign_keys = ON;"));
    super::embedded::migrations::runner()
        .set_target(refinery::Target::Version(17))
        .run(&mut conn)
        .unwrap_or_else(|e| panic!("{e}"));
    ok(conn.execute_batch(
        "INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES ('org_a', 'A', 'a', 't', 't');
         INSERT INTO printers (id, org_id, name, kind, address, format, created_at, updated_at)
             VALUES ('prn_a', 'org_a', 'Desk', 'raw', '10.0.0.1:9100', 'pdf', 't', 't');
         INSERT INTO print_jobs (id, org_id, printer_id, document_id, shipment_id, status, attempts,
                                 error, next_attempt_at, created_at, updated_at, position, busy_since)
             VALUES ('pjb_1', 'org_a', 'prn_a', 'doc_1', 'shp_1', 'queued', 2, 'refused', 'n', 'c',
                     'u', 3, 'b');",
    ));
    let applied = super::migrate(&mut conn).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        applied,
        [
            "V18__branding",
            "V19__print_job_content",
            "V20__shipment_search",
            "V21__parcel_tracking_numbers",
            "V22__agent_confirmation",
            "V23__tracking_links",
            "V24__notification_settings",
            "V25__returns_portal",
            "V26__receiver_mail",
            "V27__pickups_and_manifests",
            "V28__shipment_representation",
            "V29__order_and_rule_representation",
            "V30__shipment_terms_by_key",
            "V31__shipment_product",
            "V32__credential_generation",
            "V33__shipment_counts_written_by_the_insert",
            "V34__representation_gaps"
        ]
    );
    // V22: an organization made before it asks agents to confirm costly calls.
    let confirm: i64 = conn
        .query_row(
            "SELECT agents_confirm_costly FROM orgs WHERE id = 'org_a'",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(confirm, 1);

    let kept: (String, String, String, i64, i64, String) = conn
        .query_row(
            "SELECT kind, document_id, shipment_id, attempts, position, busy_since
             FROM print_jobs WHERE id = 'pjb_1'",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        kept,
        (
            "document".into(),
            "doc_1".into(),
            "shp_1".into(),
            2,
            3,
            "b".into()
        )
    );
    assert_eq!(
        texts(
            &conn,
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'print_jobs'
             AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ),
        [
            "print_jobs_due",
            "print_jobs_org_updated",
            "print_jobs_printer",
            "print_jobs_queue"
        ]
    );
    let strict: i64 = conn
        .query_row(
            "SELECT strict FROM pragma_table_list WHERE name = 'print_jobs'",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(strict, 1);

    let insert = |id: &str, kind: &str, document: Option<&str>, content: Option<&[u8]>| {
        conn.execute(
            "INSERT INTO print_jobs (id, org_id, printer_id, kind, document_id, shipment_id,
                                     content, title, format, status, created_at, updated_at)
             VALUES (?1, 'org_a', 'prn_a', ?2, ?3, ?3, ?4, 'Test', 'pdf', 'queued', 't', 't')",
            rusqlite::params![id, kind, document, content],
        )
    };
    assert!(insert("pjb_2", "test_page", None, Some(b"%PDF-")).is_ok());
    assert!(
        insert("pjb_3", "test_page", None, None).is_err(),
        "no content"
    );
    assert!(
        insert("pjb_4", "test_page", Some("doc_1"), Some(b"%PDF-")).is_err(),
        "a document"
    );
    assert!(
        insert("pjb_5", "document", None, None).is_err(),
        "no document"
    );
    // V27: a manifest's job names its document and carries it, with no shipment.
    let manifest = |id: &str, content: Option<&[u8]>| {
        conn.execute(
            "INSERT INTO print_jobs (id, org_id, printer_id, kind, document_id, content, title,
                                     format, status, created_at, updated_at)
             VALUES (?1, 'org_a', 'prn_a', 'manifest', 'doc_9', ?2, 'Manifest', 'pdf', 'queued',
                     't', 't')",
            rusqlite::params![id, content],
        )
    };
    assert!(manifest("pjb_6", Some(b"%PDF-")).is_ok());
    assert!(manifest("pjb_7", None).is_err(), "no content");
    // Jobs still go with their printer.
    ok(conn.execute_batch("DELETE FROM printers WHERE id = 'prn_a'"));
    assert!(texts(&conn, "SELECT id FROM print_jobs").is_empty());
}

#[test]
fn v21_gives_parcels_booked_before_their_own_numbers_the_number_their_label_carries() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut conn = Connection::open(dir.path().join("u.db")).unwrap_or_else(|e| panic!("{e}"));
    let ok = |r: rusqlite::Result<()>| r.unwrap_or_else(|e| panic!("{e}"));
    ok(conn.execute_batch("PRAGMA foreign_keys = ON;"));
    super::embedded::migrations::runner()
        .set_target(refinery::Target::Version(20))
        .run(&mut conn)
        .unwrap_or_else(|e| panic!("{e}"));
    ok(conn.execute_batch(
        "INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES ('org_a', 'A', 'a', 't', 't');
         INSERT INTO sender_addresses (id, org_id, name, att_contact, address1, zipcode, city, phone,
                                       country_code, state, email, created_at, updated_at)
             VALUES ('adr_a', 'org_a', 'A', 'A', 'A 1', '1000', 'A', '1', 'DK', 'A', 'a@a', 't', 't');",
    ));
    let shipment = |id: &str, body: &str, labels: usize| {
        conn.execute(
            "INSERT INTO shipments (id, org_id, reference, sender_address_id, type, status,
                                    term_of_trade, body, created_at, updated_at)
             VALUES (?1, 'org_a', ?1, 'adr_a', 'outbound', 'processing', 'DAP', ?2, 'c', 'u')",
            [id, body],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for n in 0..labels {
            conn.execute(
                "INSERT INTO documents (id, org_id, shipment_id, document_type, format, size,
                                        content, created_at, updated_at)
                 VALUES (?1, 'org_a', ?2, 'label', 'pdf', 'A4', X'25504446', 'c', 'u')",
                [format!("doc_{id}_{n}"), id.to_string()],
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    };
    // Booked before per-parcel numbers: three parcels, one label each, the shipment's number.
    shipment(
        "old",
        r#"{"parties":[],"carrierSettings":{"carrierId":"car_a","productId":"standard"},
            "parcels":[{"id":"prc_1","weight":1.0,"weightUnit":"kg","orderLines":[]},
                       {"id":"prc_2","weight":2.5,"weightUnit":"kg","dimensions":null,"orderLines":[{"id":"oln_1","sku":"S","quantity":2}]},
                       {"id":"prc_3","weight":3.0,"weightUnit":"kg","orderLines":[]}],
            "servicePointId":null,"pickupDetails":null,
            "tracking":{"number":"SBX123","url":"https://t/SBX123","status":"created","events":[]}}"#,
        3,
    );
    // Booked since: each parcel has its own number (a manual carrier may leave some without).
    shipment(
        "new",
        r#"{"parcels":[{"id":"prc_4","weight":1.0,"trackingNumber":"N1"},{"id":"prc_5","weight":1.0}],
            "tracking":{"number":"N1","events":[]}}"#,
        2,
    );
    // Not booked: no number, no labels.
    shipment(
        "pending",
        r#"{"parcels":[{"id":"prc_6","weight":1.0}],"tracking":null}"#,
        0,
    );
    // A number but no label to carry it.
    shipment(
        "unlabelled",
        r#"{"parcels":[{"id":"prc_7","weight":1.0}],"tracking":{"number":"X1","events":[]}}"#,
        0,
    );
    let body_of = |conn: &Connection, id: &str| {
        conn.query_row("SELECT body FROM shipments WHERE id = ?1", [id], |r| {
            r.get::<_, String>(0)
        })
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let untouched: Vec<String> = ["new", "pending", "unlabelled"]
        .iter()
        .map(|id| body_of(&conn, id))
        .collect();

    let applied = super::migrate(&mut conn).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        applied,
        [
            "V21__parcel_tracking_numbers",
            "V22__agent_confirmation",
            "V23__tracking_links",
            "V24__notification_settings",
            "V25__returns_portal",
            "V26__receiver_mail",
            "V27__pickups_and_manifests",
            "V28__shipment_representation",
            "V29__order_and_rule_representation",
            "V30__shipment_terms_by_key",
            "V31__shipment_product",
            "V32__credential_generation",
            "V33__shipment_counts_written_by_the_insert",
            "V34__representation_gaps"
        ]
    );

    let body: serde_json::Value =
        serde_json::from_str(&body_of(&conn, "old")).unwrap_or_else(|e| panic!("{e}"));
    let parcels = body["parcels"].as_array().cloned().unwrap_or_default();
    let numbers: Vec<(&str, &str)> = parcels
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default(),
                p["trackingNumber"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        numbers,
        [
            ("prc_1", "SBX123"),
            ("prc_2", "SBX123"),
            ("prc_3", "SBX123")
        ]
    );
    // Everything else of the parcels and the shipment as it was.
    assert_eq!(parcels[1]["orderLines"][0]["sku"], "S");
    assert_eq!(parcels[1]["weight"], 2.5);
    assert_eq!(parcels[1]["dimensions"], serde_json::Value::Null);
    assert_eq!(body["tracking"]["url"], "https://t/SBX123");
    assert_eq!(body["carrierSettings"]["carrierId"], "car_a");
    let record: crate::model::shipment::ShipmentBody =
        serde_json::from_value(body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.parcels[2].tracking_number.as_deref(), Some("SBX123"));
    assert_eq!(
        texts(&conn, "SELECT updated_at FROM shipments WHERE id = 'old'"),
        ["u"]
    );
    let after: Vec<String> = ["new", "pending", "unlabelled"]
        .iter()
        .map(|id| body_of(&conn, id))
        .collect();
    assert_eq!(after, untouched);
}

#[test]
fn v30_keeps_the_search_terms_without_the_index_by_shipment_or_the_foreign_key() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut conn = Connection::open(dir.path().join("u.db")).unwrap_or_else(|e| panic!("{e}"));
    super::embedded::migrations::runner()
        .set_target(refinery::Target::Version(29))
        .run(&mut conn)
        .unwrap_or_else(|e| panic!("{e}"));
    // Terms as V20 to V29 stored them (the shipments they name do not matter here).
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF;
         INSERT INTO shipment_terms (org_id, term, shipment_id) VALUES
             ('org_a', 'olga', 'shp_1'), ('org_a', '2100', 'shp_1'), ('org_b', 'olga', 'shp_2');",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let applied = super::migrate(&mut conn).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        applied,
        [
            "V30__shipment_terms_by_key",
            "V31__shipment_product",
            "V32__credential_generation",
            "V33__shipment_counts_written_by_the_insert",
            "V34__representation_gaps"
        ]
    );
    assert_eq!(
        texts(
            &conn,
            "SELECT org_id || ' ' || term || ' ' || shipment_id FROM shipment_terms ORDER BY 1"
        ),
        ["org_a 2100 shp_1", "org_a olga shp_1", "org_b olga shp_2"]
    );
    let keys: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM pragma_foreign_key_list('shipment_terms')",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(keys, 0);
    assert!(
        texts(
            &conn,
            "SELECT name FROM pragma_index_list('shipment_terms')"
        )
        .iter()
        .all(|name| name.starts_with("sqlite_autoindex"))
    );
}

/// V32: what a token's authentication reads moves the credential generation, in the writing
/// transaction (foreign-key cascades included); recording a use or renaming does not.
#[test]
fn v32_moves_the_credential_generation_on_what_authentication_reads_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (conn, _) =
        super::open_migrated(&dir.path().join("g.db")).unwrap_or_else(|e| panic!("{e}"));
    let generation = || -> i64 {
        conn.query_row("SELECT value FROM credential_generation", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let run = |sql: &str| {
        conn.execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    };
    assert_eq!(generation(), 0);
    run("INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES ('org_a', 'A', 'a', 't', 't');
         INSERT INTO users (id, email, name, created_at, updated_at)
             VALUES ('usr_a', 'a@example.com', 'A', 't', 't'), ('usr_b', 'b@example.com', 'B', 't', 't');
         INSERT INTO api_tokens (id, org_id, name, token_hash, token_prefix, scopes, created_by, created_at)
             VALUES ('tok_a', 'org_a', 'T', x'01', 'shb_', 'read:orgs', 'usr_a', 't');
         INSERT INTO agent_connections (id, user_id, org_id, client_id, client_name, scopes, resource, created_at)
             VALUES ('con_a', 'usr_b', 'org_a', 'cli_a', 'Agent', 'read:orgs', 'r', 't');");
    assert_eq!(generation(), 0, "new rows change no credential read before");

    let moves = [
        "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES ('org_a', 'usr_a', 'owner', 't')",
        "UPDATE memberships SET role = 'member' WHERE user_id = 'usr_a'",
        "UPDATE users SET staff = 1 WHERE id = 'usr_a'",
        "UPDATE api_tokens SET scopes = 'read:orgs write:shipments' WHERE id = 'tok_a'",
        "UPDATE api_tokens SET expires_at = 'e' WHERE id = 'tok_a'",
        "DELETE FROM agent_connections WHERE id = 'con_a'",
        "DELETE FROM api_tokens WHERE id = 'tok_a'",
    ];
    for (n, sql) in moves.iter().enumerate() {
        run(sql);
        assert_eq!(generation(), n as i64 + 1, "{sql}");
    }
    let stays = [
        "INSERT INTO api_tokens (id, org_id, name, token_hash, token_prefix, scopes, created_by, created_at)
             VALUES ('tok_b', 'org_a', 'T', x'02', 'shb_', 'read:orgs', 'usr_a', 't')",
        "UPDATE api_tokens SET last_used_at = 'u' WHERE id = 'tok_b'",
        "UPDATE api_tokens SET name = 'Renamed' WHERE id = 'tok_b'",
        "UPDATE users SET name = 'Renamed', language = 'da' WHERE id = 'usr_a'",
    ];
    for sql in stays {
        run(sql);
        assert_eq!(generation(), moves.len() as i64, "{sql}");
    }
    // A membership removed by its organization's deletion (a cascade) moves it too.
    run("DELETE FROM api_tokens");
    assert_eq!(generation(), moves.len() as i64 + 1);
    run("DELETE FROM orgs WHERE id = 'org_a'");
    assert_eq!(generation(), moves.len() as i64 + 2);
}

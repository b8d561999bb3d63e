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
            "V20__shipment_search"
        ]
    );

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
    // Jobs still go with their printer.
    ok(conn.execute_batch("DELETE FROM printers WHERE id = 'prn_a'"));
    assert!(texts(&conn, "SELECT id FROM print_jobs").is_empty());
}

//! The raw SQLite ceiling for shipment creates: the same rows the service writes (the real
//! schema, migrations included, the ~1.1 KB body), one transaction per row, on one connection,
//! for `synchronous = full` and `normal`. benches/run.sh compares the HTTP creates with it.
//!
//!   cargo bench --bench sqlite_ceiling -- [seconds per mode, default 3]
//!
//! Prints one line per mode: `sqlite <mode> <rows/s>`.

use std::time::{Duration, Instant};

use rusqlite::{Connection, params};

const BODY: &str = r#"{"parties":[{"type":"sender","name":"Main","address1":"Industrivej 12","postalCode":"8000","city":"Aarhus","countryCode":"DK","email":"w@example.com","phone":"+4512345678","attention":"Mette"},{"type":"receiver","name":"Jane Doe","address1":"Storgatan 1","postalCode":"11122","city":"Stockholm","countryCode":"SE","email":"jane@example.com","phone":"+46701234567","attention":"Reception, 2nd floor"}],"carrierSettings":{"carrierId":"car_01","productId":"standard","services":["signature"],"additionalParameters":{"note":"fragile"}},"parcels":[{"id":"par_01","weight":2.5,"weightUnit":"kg","dimensions":{"length":30,"width":20,"height":10},"orderLines":[{"id":"oli_01","sku":"TS-1","quantity":2,"description":"T-shirt, organic cotton, size M","unitPrice":100.0,"currency":"DKK","countryOfOrigin":"DK","tarrifNumber":"610910"},{"id":"oli_02","sku":"MUG-7","quantity":1,"description":"Enamel mug, blue","unitPrice":60.0,"currency":"DKK","countryOfOrigin":"DK","tarrifNumber":"732394"},{"id":"oli_03","sku":"CAP-3","quantity":1,"description":"Baseball cap, black","unitPrice":80.0,"currency":"DKK","countryOfOrigin":"PT","tarrifNumber":"650500"}]}],"servicePointId":"SP-1234"}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    for mode in ["full", "normal"] {
        let dir = tempfile::tempdir()?;
        let rate = inserts_per_second(&dir.path().join("ceiling.db"), mode, seconds)?;
        println!("sqlite {mode} {rate:.0}");
    }
    Ok(())
}

fn inserts_per_second(
    path: &std::path::Path,
    mode: &str,
    seconds: u64,
) -> Result<f64, Box<dyn std::error::Error>> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = {mode};"
    ))?;
    shipbase::store::migrate(&mut conn)?;
    let now = "2026-11-23T10:00:00.000Z";
    conn.execute(
        "INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES ('org_1', 'Bench', 'bench', ?1, ?1)",
        [now],
    )?;
    conn.execute(
        "INSERT INTO sender_addresses (id, org_id, name, att_contact, address1, zipcode, city, phone,
             country_code, state, email, created_at, updated_at)
         VALUES ('adr_1', 'org_1', 'Main', 'Mette', 'Industrivej 12', '8000', 'Aarhus', '+4512345678',
             'DK', 'Midtjylland', 'w@example.com', ?1, ?1)",
        [now],
    )?;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut rows = 0u64;
    while Instant::now() < deadline {
        let tx = conn.transaction()?;
        tx.prepare_cached(
            "INSERT INTO shipments (id, org_id, reference, sender_address_id, type, status, term_of_trade,
                 body, created_at, updated_at)
             VALUES (?1, 'org_1', 'BENCH-1', 'adr_1', 'outbound', 'pending', 'DAP', ?2, ?3, ?3)",
        )?
        .execute(params![format!("shp_{}", ulid::Ulid::new()), BODY, now])?;
        tx.commit()?;
        rows += 1;
    }
    Ok(rows as f64 / started.elapsed().as_secs_f64())
}

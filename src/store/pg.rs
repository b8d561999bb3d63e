//! The PostgreSQL backend (DESIGN §18): a pool of connections for reads, and the writer's own
//! connection. Writes go through the same single writer as on SQLite (`writer.rs`: group
//! commit, a savepoint per job), whose transactions take one advisory lock, so that they run
//! one at a time across every process sharing the database, exactly as SQLite's single writer
//! runs them: no business rule needs a second, concurrency-safe version. Reads run in parallel
//! everywhere.

use std::{path::PathBuf, sync::Arc, time::Duration};

use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{
    error::{Error, Result},
    store::{
        Reader,
        sql::{Conn, PgConn},
        writer::WriteConn,
    },
};

mod embedded {
    refinery::embed_migrations!("migrations/postgres");
}

/// Where and how to connect: the parsed URL and the TLS connector for it.
#[derive(Clone)]
pub struct Target {
    config: postgres::Config,
    tls: MakeRustlsConnect,
    shown: String,
}

impl Target {
    /// Parses a `postgres://` URL. TLS follows its `sslmode` (`prefer` when absent: TLS when the
    /// server offers it; `require`; `disable`). A server certificate is checked against the
    /// system's roots, as for HTTPS, or against the CA file named by `sslrootcert` (libpq's
    /// parameter, for a private CA).
    pub fn parse(url: &str) -> Result<Target> {
        let shown = redacted(url);
        let (url, root_cert) = split_root_cert(url);
        let config = url
            .parse::<postgres::Config>()
            .map_err(|e| Error::Internal(format!("storage.url is not a PostgreSQL URL: {e}")))?;
        let tls = MakeRustlsConnect::new(tls_config(root_cert.as_deref()).map_err(|e| {
            Error::Internal(format!("storage.url: cannot set up TLS for {shown}: {e}"))
        })?);
        Ok(Target { config, tls, shown })
    }

    pub fn connect(&self) -> Result<postgres::Client> {
        self.config
            .connect(self.tls.clone())
            .map_err(|e| connect_error(&self.shown, &e))
    }
}

/// The URL without its `sslrootcert` parameter (which the client library does not know), and
/// that parameter.
fn split_root_cert(url: &str) -> (String, Option<PathBuf>) {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return (url.to_string(), None);
    };
    let mut root_cert = None;
    let kept: Vec<(String, String)> = parsed
        .query_pairs()
        .filter_map(|(k, v)| {
            if k == "sslrootcert" {
                root_cert = Some(PathBuf::from(v.as_ref()));
                None
            } else {
                Some((k.into_owned(), v.into_owned()))
            }
        })
        .collect();
    if root_cert.is_none() {
        return (url.to_string(), None);
    }
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    (parsed.to_string(), root_cert)
}

fn tls_config(
    root_cert: Option<&std::path::Path>,
) -> std::result::Result<rustls::ClientConfig, String> {
    use rustls_pki_types::{CertificateDer, pem::PemObject};
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let config = match root_cert {
        Some(path) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?
            {
                let cert = cert.map_err(|e| format!("sslrootcert {}: {e}", path.display()))?;
                roots.add(cert).map_err(|e| e.to_string())?;
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        None => builder
            .with_platform_verifier()
            .map_err(|e| e.to_string())?
            .with_no_client_auth(),
    };
    Ok(config)
}

/// Opens `PgConn`s for the pool.
pub struct Manager {
    target: Target,
}

impl r2d2::ManageConnection for Manager {
    type Connection = PgConn;
    type Error = postgres::Error;

    fn connect(&self) -> std::result::Result<PgConn, postgres::Error> {
        Ok(PgConn::new(
            self.target.config.connect(self.target.tls.clone())?,
        ))
    }

    fn is_valid(&self, conn: &mut PgConn) -> std::result::Result<(), postgres::Error> {
        conn.client().simple_query("").map(|_| ())
    }

    fn has_broken(&self, conn: &mut PgConn) -> bool {
        conn.is_closed()
    }
}

/// The pool of read connections.
pub struct Pg {
    pool: r2d2::Pool<Manager>,
}

/// Connects once and applies pending migrations; returns the versions applied.
pub fn migrate(url: &str) -> Result<Vec<String>> {
    migrate_client(&mut Target::parse(url)?.connect()?)
}

/// Applies pending migrations over `client`.
pub fn migrate_client(client: &mut postgres::Client) -> Result<Vec<String>> {
    crate::store::applied(embedded::migrations::runner().run(client))
}

/// The URL without its password, for messages.
pub fn redacted(url: &str) -> String {
    if let Ok(mut parsed) = url::Url::parse(url) {
        let _ = parsed.set_password(None);
        if parsed.query_pairs().any(|(k, _)| k == "password") {
            let kept: Vec<(String, String)> = parsed
                .query_pairs()
                .filter(|(k, _)| k != "password")
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            parsed.query_pairs_mut().clear().extend_pairs(kept);
        }
        return parsed.to_string();
    }
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((user, host)) => {
                let user = user.split(':').next().unwrap_or_default();
                format!("{scheme}://{user}@{host}")
            }
            None => url.to_string(),
        },
        None => "(not a URL)".to_string(),
    }
}

/// `shown` is the redacted URL. The causes are spelled out: a TLS failure (a certificate no
/// root vouches for) is the source of the client's "error performing TLS handshake".
fn connect_error(shown: &str, err: &(dyn std::error::Error + 'static)) -> Error {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        message = format!("{message}: {inner}");
        source = inner.source();
    }
    if message.contains("certificate") {
        message.push_str(
            " (a server whose certificate comes from a private CA needs that CA's file named in \
             the URL: ?sslrootcert=/path/to/ca.pem)",
        );
    }
    Error::Internal(format!(
        "cannot connect to PostgreSQL at {shown}: {message}"
    ))
}

impl Pg {
    /// Migrates the database, opens a pool of `connections` for reads, and the writer's
    /// connection.
    pub fn open(url: &str, connections: u32) -> Result<(Pg, WriteConn)> {
        let target = Target::parse(url)?;
        let writer_target = target.clone();
        let connect = move || writer_target.connect().map(PgConn::new);
        // The writer's connection migrates the database first.
        let conn = blocking(|| {
            let conn = connect()?;
            migrate_client(&mut conn.client())?;
            Ok(conn)
        })?;
        let pool = r2d2::Pool::builder()
            .max_size(connections.max(2))
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(30))
            .test_on_check_out(false)
            .build(Manager {
                target: target.clone(),
            })
            .map_err(|e| connect_error(&target.shown, &e))?;
        Ok((
            Pg { pool },
            WriteConn::Postgres {
                conn: Box::new(conn),
                connect: Box::new(connect),
            },
        ))
    }

    /// Runs `f` on a pooled connection, on this thread.
    pub fn read<T>(&self, f: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        let conn = self.pool.get()?;
        f(&Reader {
            conn: Conn::Pg(&conn),
        })
    }
}

/// Runs blocking PostgreSQL work from wherever a point read is asked for: on a multi-threaded
/// runtime's worker the worker hands its other tasks off first (`block_in_place`); on a
/// current-thread runtime (unit tests) on a scoped thread, since the client blocks on its own
/// runtime and that cannot happen inside another.
pub fn blocking<T: Send>(f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match tokio::runtime::Handle::try_current() {
        Err(_) => f(),
        Ok(handle) => match handle.runtime_flavor() {
            tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
            _ => std::thread::scope(|s| {
                s.spawn(f)
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_passwords() {
        assert_eq!(
            redacted("postgres://app:s3cret@db.example.com:5432/ship?sslmode=require"),
            "postgres://app@db.example.com:5432/ship?sslmode=require"
        );
        assert_eq!(
            redacted("postgres://app@db/ship?password=s3cret&sslmode=require"),
            "postgres://app@db/ship?sslmode=require"
        );
    }

    #[test]
    fn sslrootcert_is_taken_out_of_the_url() {
        let (url, ca) =
            split_root_cert("postgres://app@db/ship?sslrootcert=/etc/ca.pem&sslmode=require");
        assert_eq!(url, "postgres://app@db/ship?sslmode=require");
        assert_eq!(ca, Some(PathBuf::from("/etc/ca.pem")));
        let (url, ca) = split_root_cert("postgres://app@db/ship?sslrootcert=%2Fetc%2Fca.pem");
        assert_eq!(url, "postgres://app@db/ship");
        assert_eq!(ca, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(split_root_cert("postgres://db/ship").1, None);
    }
}

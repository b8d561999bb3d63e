//! The single writer: one thread owns the write connection and runs write jobs in batches, one
//! transaction per batch and a savepoint per job (group commit), on SQLite and on PostgreSQL
//! alike. On PostgreSQL the batch's transaction also takes one advisory lock, so that the
//! writers of several processes on one database take turns, as one writer would.
//!
//! A job is the writer's one path: it runs the caller's work on a `Tx`, then the
//! `before_commit` hook (order settlement), then writes what the `Tx` collected (events), all
//! inside its savepoint. A failing job rolls back only its own savepoint; every caller hears
//! back only after the batch has committed.

use std::{
    cell::RefCell,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, mpsc},
};

use crate::{
    error::{Error, Result},
    store::{
        BeforeCommit, Outbox, Plans, Tx,
        checkpoint::Checkpointer,
        sql::{Conn, PgConn},
    },
};

/// Jobs taken into one transaction at most.
const MAX_BATCH: usize = 128;

/// Runs a job on the connection (or, given none, fails it without running) and returns what
/// to tell its caller once the batch commits.
type Job = Box<dyn FnOnce(Option<&Unit>) -> Reply + Send>;
type Reply = Box<dyn FnOnce(std::result::Result<(), String>) + Send>;

#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Job>,
}

/// The connection the writer owns.
pub enum WriteConn {
    Sqlite(rusqlite::Connection),
    /// With how to connect again when the server closed the connection.
    Postgres {
        conn: Box<PgConn>,
        connect: Box<dyn Fn() -> Result<PgConn> + Send>,
    },
}

/// The advisory lock a PostgreSQL write transaction holds: "shipbase" in ASCII.
const WRITER_LOCK: i64 = 0x7368_6970_6261_7365;

impl WriteConn {
    fn conn(&self) -> Conn<'_> {
        match self {
            WriteConn::Sqlite(conn) => Conn::Lite(conn),
            WriteConn::Postgres { conn, .. } => Conn::Pg(conn),
        }
    }

    /// Starts a batch's transaction (on PostgreSQL, first connecting again when needed).
    fn begin(&mut self) -> Result<()> {
        match self {
            WriteConn::Sqlite(conn) => Ok(run_sql(Conn::Lite(conn), "BEGIN IMMEDIATE")?),
            WriteConn::Postgres { conn, connect } => {
                if conn.is_closed() {
                    **conn = connect()?;
                }
                let begin = format!("BEGIN; SELECT pg_advisory_xact_lock({WRITER_LOCK})");
                Ok(Conn::Pg(conn).execute_batch(&begin)?)
            }
        }
    }
}

/// What a job runs against: the connection, the plans and the hook; and whom to tell when a
/// batch queued webhook deliveries.
struct Unit {
    conn: WriteConn,
    plans: Plans,
    before_commit: BeforeCommit,
    outbox: Arc<Outbox>,
    /// Webhooks the batch queued deliveries for.
    queued: RefCell<Vec<String>>,
}

impl Writer {
    /// Starts the writer thread on `conn`. It ends when every `Writer` handle is dropped.
    pub fn start(
        conn: WriteConn,
        plans: Plans,
        before_commit: BeforeCommit,
        outbox: Arc<Outbox>,
    ) -> Result<Writer> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let unit = Unit {
            conn,
            plans,
            before_commit,
            outbox,
            queued: RefCell::default(),
        };
        std::thread::Builder::new()
            .name("shipbase-writer".into())
            .spawn(move || run(unit, queue))
            .map_err(|e| Error::Internal(format!("cannot start the writer thread: {e}")))?;
        Ok(Writer { jobs })
    }

    /// Runs `f` as one all-or-nothing unit and returns its value after the commit.
    pub async fn write<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Tx) -> Result<T> + Send + 'static,
    {
        let (done, answer) = tokio::sync::oneshot::channel::<Result<T>>();
        let job: Job = Box::new(move |unit: Option<&Unit>| {
            let outcome = match unit {
                Some(unit) => in_savepoint(unit, f),
                None => Err(Error::Internal(
                    "the write transaction could not start".into(),
                )),
            };
            Box::new(move |committed| {
                let result = match committed {
                    Ok(()) => outcome,
                    Err(message) if outcome.is_ok() => Err(Error::Internal(message)),
                    Err(_) => outcome,
                };
                let _ = done.send(result);
            })
        });
        self.jobs
            .send(job)
            .map_err(|_| Error::Internal("the writer thread has stopped".into()))?;
        answer
            .await
            .map_err(|_| Error::Internal("the writer thread dropped a job".into()))?
    }
}

fn in_savepoint<T>(unit: &Unit, f: impl FnOnce(&Tx) -> Result<T>) -> Result<T> {
    let conn = unit.conn.conn();
    run_sql(conn, "SAVEPOINT job")?;
    let work = || {
        let tx = Tx::new(conn, &unit.plans);
        let value = f(&tx)?;
        (unit.before_commit)(&tx)?;
        let queued = tx.flush()?;
        unit.queued.borrow_mut().extend(queued);
        Ok(value)
    };
    let outcome = catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|_| Err(Error::Internal("a write job panicked".into())));
    let outcome = outcome.and_then(|value| match run_sql(conn, "RELEASE job") {
        Ok(()) => Ok(value),
        Err(err) => Err(Error::from(err)),
    });
    if outcome.is_err() {
        run_sql(conn, "ROLLBACK TO job")?;
        run_sql(conn, "RELEASE job")?;
    }
    outcome
}

/// Runs a statement without parameters: on SQLite a cached one (a job is a few microseconds of
/// SQL, parsing these each time showed), on PostgreSQL a simple query (transaction control).
fn run_sql(conn: Conn, sql: &str) -> crate::store::sql::Result<()> {
    match conn {
        Conn::Lite(_) => conn.prepare_cached(sql)?.execute(()).map(|_| ()),
        Conn::Pg(_) => conn.execute_batch(sql),
    }
}

fn run(mut unit: Unit, queue: mpsc::Receiver<Job>) {
    let checkpointer = match &unit.conn {
        WriteConn::Sqlite(conn) => Checkpointer::start(conn),
        WriteConn::Postgres { .. } => None,
    };
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(err) = unit.conn.begin() {
            let message = format!("cannot start a write transaction: {err}");
            for job in batch {
                job(None)(Err(message.clone()));
            }
            continue;
        }
        let replies: Vec<Reply> = batch.into_iter().map(|job| job(Some(&unit))).collect();
        let conn = unit.conn.conn();
        let committed = run_sql(conn, "COMMIT").map_err(|err| {
            let _ = conn.execute_batch("ROLLBACK");
            tracing::error!(error = %err, "commit failed");
            format!("commit failed: {err}")
        });
        // A job whose savepoint failed to release may have added webhooks too: waking the
        // worker for nothing is harmless.
        let queued = unit.queued.take();
        if committed.is_ok() && !queued.is_empty() {
            unit.outbox.queued(queued);
        }
        for reply in replies {
            reply(committed.clone());
        }
        if let (Some(checkpointer), WriteConn::Sqlite(conn)) = (&checkpointer, &unit.conn) {
            checkpointer.after_commit(conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer() -> (Writer, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let conn =
            rusqlite::Connection::open(dir.path().join("w.db")).unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;
             CREATE TABLE t (v INTEGER UNIQUE);",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let hook: BeforeCommit = std::sync::Arc::new(|_| Ok(()));
        let writer = Writer::start(
            WriteConn::Sqlite(conn),
            Plans::default(),
            hook,
            Arc::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        (writer, dir)
    }

    async fn count(w: &Writer) -> i64 {
        w.write(|tx| {
            Ok(tx
                .conn
                .query_row("SELECT COUNT(*) FROM t", (), |r| r.get(0))?)
        })
        .await
        .unwrap_or(-1)
    }

    #[tokio::test]
    async fn a_woken_webhook_reaches_the_delivery_worker_only_when_its_job_commits() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let conn =
            rusqlite::Connection::open(dir.path().join("w.db")).unwrap_or_else(|e| panic!("{e}"));
        let outbox = Arc::new(Outbox::default());
        let hook: BeforeCommit = std::sync::Arc::new(|_| Ok(()));
        let w = Writer::start(
            WriteConn::Sqlite(conn),
            Plans::default(),
            hook,
            outbox.clone(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        w.write(|tx| {
            tx.wake_deliveries("whk_1");
            Ok(())
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        let failed: Result<()> = w
            .write(|tx| {
                tx.wake_deliveries("whk_2");
                Err(Error::InvalidState("rolled back".into()))
            })
            .await;
        assert!(failed.is_err());
        assert_eq!(
            outbox.take(),
            std::collections::HashSet::from(["whk_1".to_string()])
        );
    }

    #[tokio::test]
    async fn a_failing_job_rolls_back_alone_in_a_batch() {
        let (w, _dir) = writer();
        let mut handles = Vec::new();
        for v in 0..50 {
            let w = w.clone();
            handles.push(tokio::spawn(async move {
                w.write(move |tx| {
                    tx.conn.execute("INSERT INTO t (v) VALUES (?1)", [v])?;
                    // Every fifth job writes and then fails: its row must not survive.
                    if v % 5 == 0 {
                        Err(Error::Conflict("no".into()))
                    } else {
                        Ok(v)
                    }
                })
                .await
            }));
        }
        let mut ok = 0;
        for h in handles {
            if h.await.unwrap_or_else(|e| panic!("{e}")).is_ok() {
                ok += 1;
            }
        }
        assert_eq!(ok, 40);
        assert_eq!(count(&w).await, 40);
    }

    /// With the automatic checkpoint off, only the checkpoint thread and the writer's own
    /// checkpoint copy the log into the file; under writes that never pause, the log must
    /// still start over rather than grow with everything written.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn under_writes_that_never_pause_the_log_is_copied_and_starts_over() {
        let (w, dir) = writer();
        w.write(|tx| Ok(tx.conn.execute("CREATE TABLE b (x BLOB)", ())?))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        // 20,000 rows of 3,000 bytes: ~15,000 pages, several times the writer's own threshold.
        let mut jobs = tokio::task::JoinSet::new();
        for i in 0..20_000usize {
            let w = w.clone();
            jobs.spawn(async move {
                w.write(move |tx| {
                    Ok(tx
                        .conn
                        .execute("INSERT INTO b (x) VALUES (zeroblob(3000 + ?1 % 7))", [i])?)
                })
                .await
            });
            while jobs.len() >= 64 || (i == 19_999 && !jobs.is_empty()) {
                if let Some(done) = jobs.join_next().await {
                    done.unwrap_or_else(|e| panic!("{e}"))
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
        }
        let size = |name: &str| {
            std::fs::metadata(dir.path().join(name))
                .map(|m| m.len())
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        // The log started over several times (the checkpoint sequence number in its header
        // counts the times), and its file, as long as the longest the log grew, stayed far
        // below the ~60 MB written: at most twice the writer's threshold and a batch.
        let header = std::fs::read(dir.path().join("w.db-wal")).unwrap_or_else(|e| panic!("{e}"));
        let restarts = u32::from_be_bytes([header[12], header[13], header[14], header[15]]);
        assert!(restarts >= 2, "the log started over {restarts} times");
        assert!(
            size("w.db-wal") < 36 << 20,
            "the log grew to {} bytes",
            size("w.db-wal")
        );
        // Most of what was written was copied into the database file.
        assert!(
            size("w.db") > 40 << 20,
            "the file has {} bytes",
            size("w.db")
        );
    }

    #[tokio::test]
    async fn a_panicking_job_is_an_error_and_the_writer_goes_on() {
        let (w, _dir) = writer();
        let result: Result<()> = w
            .write(|tx| {
                tx.conn.execute("INSERT INTO t (v) VALUES (1)", ())?;
                panic!("boom")
            })
            .await;
        assert!(matches!(result, Err(Error::Internal(_))));
        w.write(|tx| Ok(tx.conn.execute("INSERT INTO t (v) VALUES (2)", ())?))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count(&w).await, 1);
    }
}

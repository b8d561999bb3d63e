//! The single writer: one thread owns the write connection and runs write jobs in batches, one
//! transaction per batch (group commit), on SQLite and on PostgreSQL alike. On PostgreSQL the
//! batch's transaction also takes one advisory lock, so that the writers of several processes on
//! one database take turns, as one writer would.
//!
//! A job is the writer's one path: it runs the caller's work on a `Tx`, then the
//! `before_commit` hook (order settlement), then writes what the `Tx` collected (events). A
//! failing job rolls back only its own work; every caller hears back only after the batch has
//! committed. A job runs in a savepoint of its own, except work that may run again (`Fn`, see
//! `write_again`) at the head of a batch: it runs bare, and when one such job fails, the
//! transaction is rolled back and begun again and they run again, each in its own savepoint. A
//! savepoint makes SQLite copy every page a job first touches into its sub-journal: a seventh of
//! a create's cost. (One savepoint around the whole run cost more: every statement that may
//! abort opens a savepoint of its own, and under an open one their sub-journal is never emptied.)

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

/// A caller's work on the writer's connection, and whom to tell its outcome.
trait Job: Send {
    /// Whether the work may run again (it is `Fn`), so that it can run bare.
    fn again(&self) -> bool;
    /// Runs the work: in a savepoint of its own when `own`, else bare (the batch undoes it).
    /// Returns whether it succeeded.
    fn run(&mut self, unit: &Unit, own: bool) -> bool;
    /// Tells the caller the outcome, given how the batch's commit went (a job that never ran
    /// failed: its transaction could not start).
    fn reply(self: Box<Self>, committed: std::result::Result<(), String>);
}

/// The work of a job and how it is called.
trait Work<T>: Send {
    const AGAIN: bool;
    fn call(&mut self, tx: &Tx) -> Result<T>;
}

/// Work that runs once.
struct Once<F>(Option<F>);

impl<T, F: FnOnce(&Tx) -> Result<T> + Send> Work<T> for Once<F> {
    const AGAIN: bool = false;
    fn call(&mut self, tx: &Tx) -> Result<T> {
        let f = self
            .0
            .take()
            .ok_or_else(|| Error::Internal("a write job ran twice".into()))?;
        f(tx)
    }
}

/// Work that may run again, on the same state, to the same effect.
struct Again<F>(F);

impl<T, F: Fn(&Tx) -> Result<T> + Send> Work<T> for Again<F> {
    const AGAIN: bool = true;
    fn call(&mut self, tx: &Tx) -> Result<T> {
        (self.0)(tx)
    }
}

struct Call<W, T> {
    work: W,
    outcome: Option<Result<T>>,
    done: tokio::sync::oneshot::Sender<Result<T>>,
}

impl<W: Work<T>, T: Send> Job for Call<W, T> {
    fn again(&self) -> bool {
        W::AGAIN
    }

    fn run(&mut self, unit: &Unit, own: bool) -> bool {
        let work = &mut self.work;
        let outcome = if own {
            in_savepoint(unit, |tx| work.call(tx))
        } else {
            unit_of_work(unit, |tx| work.call(tx))
        };
        let ok = outcome.is_ok();
        self.outcome = Some(outcome);
        ok
    }

    fn reply(self: Box<Self>, committed: std::result::Result<(), String>) {
        // The work goes first, so that what it shared with the caller is the caller's alone
        // when the caller hears back.
        let Call {
            work,
            outcome,
            done,
        } = *self;
        drop(work);
        let outcome = outcome.unwrap_or_else(|| {
            Err(Error::Internal(
                "the write transaction could not start".into(),
            ))
        });
        let result = match committed {
            Ok(()) => outcome,
            Err(message) if outcome.is_ok() => Err(Error::Internal(message)),
            Err(_) => outcome,
        };
        let _ = done.send(result);
    }
}

#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Box<dyn Job>>,
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
        let (jobs, queue) = mpsc::channel::<Box<dyn Job>>();
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
        self.queue(Once(Some(f))).await
    }

    /// `write` of work that may run again on the same state to the same effect, so that it
    /// can run bare at the head of a batch (the cheaper path for the hot creates).
    pub async fn write_again<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Tx) -> Result<T> + Send + 'static,
    {
        self.queue(Again(f)).await
    }

    async fn queue<W, T>(&self, work: W) -> Result<T>
    where
        W: Work<T> + 'static,
        T: Send + 'static,
    {
        let (done, answer) = tokio::sync::oneshot::channel::<Result<T>>();
        let job: Box<dyn Job> = Box::new(Call {
            work,
            outcome: None,
            done,
        });
        self.jobs
            .send(job)
            .map_err(|_| Error::Internal("the writer thread has stopped".into()))?;
        answer
            .await
            .map_err(|_| Error::Internal("the writer thread dropped a job".into()))?
    }
}

/// Runs `f` on a `Tx` of the unit's connection, then the hook, then writes what the `Tx`
/// collected; a panic is an error. Whoever calls it undoes its writes when it fails.
fn unit_of_work<T>(unit: &Unit, f: impl FnOnce(&Tx) -> Result<T>) -> Result<T> {
    let conn = unit.conn.conn();
    let work = || {
        let tx = Tx::new(conn, &unit.plans);
        let value = f(&tx)?;
        (unit.before_commit)(&tx)?;
        let queued = tx.flush()?;
        unit.queued.borrow_mut().extend(queued);
        Ok(value)
    };
    catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|_| Err(Error::Internal("a write job panicked".into())))
}

fn in_savepoint<T>(unit: &Unit, f: impl FnOnce(&Tx) -> Result<T>) -> Result<T> {
    let conn = unit.conn.conn();
    run_sql(conn, "SAVEPOINT job")?;
    let outcome = unit_of_work(unit, f).and_then(|value| match run_sql(conn, "RELEASE job") {
        Ok(()) => Ok(value),
        Err(err) => Err(Error::from(err)),
    });
    if outcome.is_err() {
        run_sql(conn, "ROLLBACK TO job")?;
        run_sql(conn, "RELEASE job")?;
    }
    outcome
}

/// Runs a batch's jobs in its open transaction. The leading run of jobs that may run again
/// runs bare, with the transaction as its only undo: when one of them fails, the transaction is
/// rolled back and begun again, and they run again, each in a savepoint of its own. Every other
/// job runs in a savepoint of its own. An error says the transaction could not begin again:
/// nothing of the batch is left to commit.
fn run_batch(unit: &mut Unit, jobs: &mut [Box<dyn Job>]) -> std::result::Result<(), String> {
    let bare = jobs.iter().take_while(|job| job.again()).count();
    // `any` stops at the first that fails.
    let failed = jobs[..bare].iter_mut().any(|job| !job.run(unit, false));
    let own_from = if failed {
        let _ = unit.conn.conn().execute_batch("ROLLBACK");
        unit.queued.borrow_mut().clear();
        unit.conn
            .begin()
            .map_err(|err| format!("cannot start a write transaction again: {err}"))?;
        0
    } else {
        bare
    };
    for job in &mut jobs[own_from..] {
        job.run(unit, true);
    }
    Ok(())
}

/// Runs a statement without parameters: on SQLite a cached one (a job is a few microseconds of
/// SQL, parsing these each time showed), on PostgreSQL a simple query (transaction control).
fn run_sql(conn: Conn, sql: &str) -> crate::store::sql::Result<()> {
    match conn {
        Conn::Lite(_) => conn.prepare_cached(sql)?.execute(()).map(|_| ()),
        Conn::Pg(_) => conn.execute_batch(sql),
    }
}

fn run(mut unit: Unit, queue: mpsc::Receiver<Box<dyn Job>>) {
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
                job.reply(Err(message.clone()));
            }
            continue;
        }
        let ran = run_batch(&mut unit, &mut batch);
        let conn = unit.conn.conn();
        let committed = ran.and_then(|()| {
            run_sql(conn, "COMMIT").map_err(|err| {
                let _ = conn.execute_batch("ROLLBACK");
                tracing::error!(error = %err, "commit failed");
                format!("commit failed: {err}")
            })
        });
        // A job whose savepoint failed to release may have added webhooks too: waking the
        // worker for nothing is harmless.
        let queued = unit.queued.take();
        if committed.is_ok() && !queued.is_empty() {
            unit.outbox.queued(queued);
        }
        for job in batch {
            job.reply(committed.clone());
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

    /// A writer on a database without tables, and the outbox it tells of queued deliveries.
    fn writer_with_outbox() -> (Writer, Arc<Outbox>, tempfile::TempDir) {
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
        (w, outbox, dir)
    }

    #[tokio::test]
    async fn a_woken_webhook_reaches_the_delivery_worker_only_when_its_job_commits() {
        let (w, outbox, _dir) = writer_with_outbox();
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

    /// A writer whose thread waits, inside a job of its own, until the returned sender is
    /// dropped; the jobs queued meanwhile make the next batch together.
    async fn held(w: &Writer) -> (std::sync::mpsc::Sender<()>, tokio::task::JoinHandle<()>) {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let w = w.clone();
        let hold = tokio::spawn(async move {
            w.write(move |_| {
                let _ = started.send(());
                let _ = wait.recv();
                Ok(())
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        });
        running.await.unwrap_or_else(|e| panic!("{e}"));
        (release, hold)
    }

    #[tokio::test]
    async fn jobs_that_may_run_again_run_bare_and_a_failing_one_is_undone_alone() {
        let (w, _dir) = writer();
        let (release, hold) = held(&w).await;
        // One batch: two that may run again and succeed, one that may run again and writes and
        // fails, one that runs once, then one more that may run again.
        let runs: Arc<[std::sync::atomic::AtomicUsize; 5]> = Arc::default();
        let mut handles = Vec::new();
        for v in 0..5i64 {
            let (w, runs) = (w.clone(), runs.clone());
            handles.push(tokio::spawn(async move {
                let work = move |tx: &Tx| {
                    runs[v as usize].fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    tx.conn.execute("INSERT INTO t (v) VALUES (?1)", [v])?;
                    if v == 2 {
                        return Err(Error::Conflict("no".into()));
                    }
                    Ok(v)
                };
                if v == 3 {
                    w.write(work).await
                } else {
                    w.write_again(work).await
                }
            }));
        }
        // Every job is queued before the writer is let go.
        tokio::task::yield_now().await;
        drop(release);
        hold.await.unwrap_or_else(|e| panic!("{e}"));
        let mut outcomes = Vec::new();
        for h in handles {
            outcomes.push(h.await.unwrap_or_else(|e| panic!("{e}")).ok());
        }
        assert_eq!(outcomes, [Some(0), Some(1), None, Some(3), Some(4)]);
        let rows: Vec<i64> = w
            .write(|tx| {
                let mut stmt = tx.conn.prepare_cached("SELECT v FROM t ORDER BY v")?;
                let rows = stmt.query_map((), |r| r.get(0))?;
                Ok(rows.collect::<crate::store::sql::Result<_>>()?)
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows, [0, 1, 3, 4]);
        // The first three ran bare until the third failed; then the transaction began again
        // and each ran again in its own savepoint, as did the rest, once each.
        let runs: Vec<usize> = runs
            .iter()
            .map(|n| n.load(std::sync::atomic::Ordering::SeqCst))
            .collect();
        assert_eq!(runs, [2, 2, 2, 1, 1]);
    }

    #[tokio::test]
    async fn jobs_run_again_wake_only_the_webhooks_of_jobs_that_commit() {
        let (w, outbox, _dir) = writer_with_outbox();
        let (release, hold) = held(&w).await;
        let mut handles = Vec::new();
        for (webhook, fails) in [("whk_1", false), ("whk_2", true)] {
            let w = w.clone();
            handles.push(tokio::spawn(async move {
                w.write_again(move |tx| {
                    tx.wake_deliveries(webhook);
                    if fails {
                        return Err(Error::InvalidState("rolled back".into()));
                    }
                    Ok(())
                })
                .await
            }));
        }
        tokio::task::yield_now().await;
        drop(release);
        hold.await.unwrap_or_else(|e| panic!("{e}"));
        let outcomes: Vec<bool> = futures_outcomes(handles).await;
        assert_eq!(outcomes, [true, false]);
        assert_eq!(
            outbox.take(),
            std::collections::HashSet::from(["whk_1".to_string()])
        );
    }

    async fn futures_outcomes(handles: Vec<tokio::task::JoinHandle<Result<()>>>) -> Vec<bool> {
        let mut outcomes = Vec::new();
        for h in handles {
            outcomes.push(h.await.unwrap_or_else(|e| panic!("{e}")).is_ok());
        }
        outcomes
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

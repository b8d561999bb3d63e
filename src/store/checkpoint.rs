//! Checkpoints off the writer's path (SQLite). SQLite's automatic checkpoint runs inside the
//! COMMIT that takes the write-ahead log past 1,000 pages: the batch whose commit it was, and
//! every job queued behind it, waited for ~4 MB to be copied into the database file and the file
//! to be synced (creates at half the peak rate from hey, in bursts: p99 26–27 ms, 21–24 ms with
//! this module; docs/decisions.md, issue 30's fifth part).
//!
//! The writer's connection turns the automatic checkpoint off and notes the log's length after
//! each commit (SQLite's WAL hook). Past `SOFT` pages it wakes this module's thread, which runs
//! a PASSIVE checkpoint on its own connection while the writer goes on committing. A PASSIVE
//! checkpoint copies only the frames the log held when it began, and the log starts over from
//! its beginning only when a write transaction begins with every frame copied; under a writer
//! that never pauses that moment may not come, so past `HARD` pages the writer checkpoints
//! itself, between two batches and after replying to the first, once the thread has copied all
//! but a few frames, and the next batch starts the log over. Past `2 × HARD` pages (a writer
//! faster than the thread's copies) the writer copies whatever is left, and when the thread is
//! in the middle of a copy (SQLite then answers the writer's checkpoint busy at once, even a
//! FULL one: the checkpoint lock never waits) it waits for the thread first, so the log stays
//! within `2 × HARD` pages and a batch.

use std::{
    cell::Cell,
    sync::{
        Arc, Condvar, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc::{self, SyncSender, TrySendError},
    },
    time::{Duration, Instant},
};

use rusqlite::Connection;

/// Log pages the thread is woken for: each time the log has grown by this many past what the
/// thread last copied (SQLite's own automatic threshold).
const SOFT: i32 = 1_000;
/// Log pages past which the writer starts the log over: it copies the rest itself once the
/// thread is idle and the rest is at most `REST` pages (or, past twice this, whatever the rest).
const HARD: i32 = 4_000;
const REST: i32 = 256;
/// How long the writer waits, past `2 × HARD`, for the thread's copy to end (the thread's own
/// busy timeout; a copy of ~8,000 pages takes well under a second).
const WAIT: Duration = Duration::from_secs(5);

thread_local! {
    /// The log's length after the last commit on this thread's write connection.
    static LOG_PAGES: Cell<i32> = const { Cell::new(0) };
}

fn note_log_pages(_: &rusqlite::hooks::Wal, pages: std::ffi::c_int) -> rusqlite::Result<()> {
    LOG_PAGES.set(pages);
    Ok(())
}

/// What the thread tells the writer.
#[derive(Default)]
struct Progress {
    /// The log's generation (see `Checkpointer::generation`) and the frames of it the thread's
    /// last checkpoint had copied into the file, packed as `generation << 32 | frames`.
    copied: AtomicU64,
    /// Whether a checkpoint is running (or about to) on the thread.
    busy: AtomicBool,
    /// Signalled when the thread turns `busy` off (taken around that store).
    idle: (Mutex<()>, Condvar),
}

impl Progress {
    fn set_idle(&self) {
        let (lock, idle) = &self.idle;
        let _held = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.busy.store(false, Ordering::Release);
        idle.notify_all();
    }

    /// Waits, at most `WAIT`, for the thread's checkpoint to end.
    fn wait_idle(&self) {
        let (lock, idle) = &self.idle;
        let deadline = Instant::now() + WAIT;
        let mut held = lock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while self.busy.load(Ordering::Acquire) {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return;
            };
            held = idle
                .wait_timeout(held, left)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }
}

fn pack(generation: u32, frames: i32) -> u64 {
    (u64::from(generation) << 32) | u64::from(frames.max(0).unsigned_abs())
}

/// The checkpoint thread's doorbell, kept by the writer thread. The thread ends when this is
/// dropped (with the writer).
pub struct Checkpointer {
    wake: SyncSender<u32>,
    progress: Arc<Progress>,
    /// How many times the log has started over: a count from a checkpoint of an earlier log
    /// says nothing of this one.
    generation: Cell<u32>,
    /// The log's length after the previous commit.
    last: Cell<i32>,
}

impl Checkpointer {
    /// Takes over checkpointing of `conn` (the writer's connection to a SQLite file, used on
    /// the calling thread from now on). None for a database without a file: it keeps SQLite's
    /// automatic checkpoint.
    pub fn start(conn: &Connection) -> Option<Checkpointer> {
        let path = conn.path().filter(|p| !p.is_empty())?.to_string();
        let own = Connection::open(&path).ok()?;
        own.execute_batch("PRAGMA busy_timeout = 5000;").ok()?;
        let (wake, bell) = mpsc::sync_channel::<u32>(1);
        let progress = Arc::new(Progress::default());
        let told = progress.clone();
        std::thread::Builder::new()
            .name("shipbase-checkpoint".into())
            .spawn(move || {
                while let Ok(generation) = bell.recv() {
                    match checkpoint(&own) {
                        Ok(Some(frames)) => {
                            told.copied.store(pack(generation, frames), Ordering::Release)
                        }
                        Ok(None) => {}
                        Err(err) => {
                            tracing::warn!(error = %err, "a checkpoint failed; the next one retries")
                        }
                    }
                    told.set_idle();
                }
            })
            .ok()?;
        // Setting a WAL hook replaces SQLite's automatic checkpoint, which is one.
        conn.wal_hook(Some(note_log_pages));
        LOG_PAGES.set(0);
        Some(Checkpointer {
            wake,
            progress,
            generation: Cell::new(0),
            last: Cell::new(0),
        })
    }

    /// After a batch's commit (and its replies): wakes the thread when the log has grown by
    /// `SOFT` pages past what it copied, or copies the short rest itself when the log is long.
    pub fn after_commit(&self, conn: &Connection) {
        let pages = LOG_PAGES.get();
        if pages < self.last.replace(pages) {
            self.generation.set(self.generation.get().wrapping_add(1));
        }
        let generation = self.generation.get();
        let told = self.progress.copied.load(Ordering::Acquire);
        let copied = if (told >> 32) as u32 == generation {
            i32::try_from(told & 0xffff_ffff).unwrap_or(0).min(pages)
        } else {
            0
        };
        let busy = self.progress.busy.load(Ordering::Acquire);
        // Past twice `HARD` (a writer faster than the thread's copies, or a thread that has
        // not had a core since it was woken), whatever is left and whatever the thread's
        // state: while it copies, SQLite answers busy at once, so the writer waits for it and
        // copies the rest (once; another process's checkpoint leaves it to the next commit).
        if pages >= 2 * HARD || (pages >= HARD && !busy && pages - copied <= REST) {
            let mut copy = checkpoint(conn);
            if pages >= 2 * HARD && matches!(copy, Ok(None)) {
                self.progress.wait_idle();
                copy = checkpoint(conn);
            }
            match copy {
                Ok(Some(frames)) => {
                    let told = pack(generation, frames);
                    self.progress.copied.store(told, Ordering::Release);
                }
                Ok(None) => {}
                Err(err) => tracing::warn!(error = %err, "the writer's checkpoint failed"),
            }
        } else if !busy && (pages - copied >= SOFT || (pages >= HARD && pages - copied > REST)) {
            self.progress.busy.store(true, Ordering::Release);
            if let Err(TrySendError::Disconnected(_)) = self.wake.try_send(generation) {
                self.progress.set_idle();
                tracing::warn!("the checkpoint thread has stopped");
            }
        }
    }
}

/// A PASSIVE checkpoint: copies what it can without waiting for anyone; the frames of the log
/// copied so far, or None when another checkpoint was running (SQLite answers busy at once,
/// not an error, and copied nothing).
fn checkpoint(conn: &Connection) -> rusqlite::Result<Option<i32>> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", (), |row| {
        let (busy, copied): (i32, i32) = (row.get(0)?, row.get(2)?);
        Ok((busy == 0).then_some(copied))
    })
}

//! The multi-core CPU engine: level-synchronous breadth-first search by a
//! team of threads over one lock-free [`StateTable`].
//!
//! Each breadth-first level is a list of states (table slot and vector, so
//! that expanding reads memory in order) cut into chunks; the
//! threads take chunks from a shared cursor (so a thread that finishes early
//! simply takes more), expand their states with the shared
//! [`SuccessorGenerator`], and collect the new states in private buffers that
//! become the next level's chunks. A barrier ends each level, which makes
//! termination detection exact (a level is finished when every thread has
//! passed the barrier, and the search ends when a finished level produced no
//! state to expand) and keeps every stored predecessor one level closer to
//! the initial state, so traces are shortest paths, as with the reference
//! engine. The table is sized once from the memory budget and never resizes;
//! when it fills up the search ends with [`Completion::TableFull`].
//!
//! Looking states up is bound by memory latency, so a thread generates all
//! successors of a state and prefetches their buckets before it looks the
//! first one up: the cache misses of one state's lookups overlap.

mod table;

pub use table::{Lookup, MAX_SLOTS, StateTable};

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::{
    Completion, Exploration, Finding, FindingKind, Progress, SearchOptions, Trace, action_between,
    is_fatal,
};
use crate::encode::{EncodedNetwork, SuccessorGenerator, hash_words};

/// How the multi-core engine runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParallelOptions {
    /// Worker threads; 0 means one per available core.
    pub threads: usize,
    /// Bytes for the state table; `None` means half the available memory,
    /// at most [`DEFAULT_TABLE_CAP`].
    pub memory_bytes: Option<u64>,
}

/// The largest table the engine allocates without `--memory` (room for
/// about 30 million states of three words). The table never resizes, and
/// hashing touches its pages in random order, so a table far larger than
/// the state space costs page faults without storing more: measured on a
/// 1.7 million state search, a 512 MiB table took 0.6 s longer than a
/// 64 MiB one. (Transparent huge pages would avoid most faults, but where
/// the kernel compacts memory for them a small search took 20 times
/// longer, so the table does not ask for them.)
pub const DEFAULT_TABLE_CAP: u64 = 512 << 20;
/// Table size when the available memory cannot be read.
const FALLBACK_TABLE_BYTES: u64 = 256 << 20;
/// Share of the slots that may be filled (in thousandths): linear probing
/// slows down sharply close to a full table.
const MAX_FILL_PER_MILLE: u64 = 900;
/// States a thread reserves from the shared budget at a time when no state
/// limit asks for an exact count.
const BUDGET_BATCH: u64 = 4096;
/// Bounds of the number of states in one chunk of a level.
const CHUNK_MIN: usize = 32;
const CHUNK_MAX: usize = 1024;
/// Chunks per thread a level is cut into, for load balance.
const CHUNKS_PER_THREAD: usize = 8;
/// Time between two progress reports.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(500);

/// Explores the state space of `net` breadth-first with `opts.threads`
/// threads. Counts and verdicts equal those of [`super::seq::explore`]: on
/// a complete search every count is the same; a search that stops at a
/// finding stops in the same breadth-first level (the finding may be
/// another one of that level).
pub fn explore(
    net: &EncodedNetwork,
    search: &SearchOptions,
    opts: &ParallelOptions,
) -> Exploration {
    let start = Instant::now();
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let table_bytes = opts.memory_bytes.unwrap_or_else(default_table_bytes);
    let table = StateTable::new(net.words(), table_bytes);
    let fill_limit = (table.capacity() * MAX_FILL_PER_MILLE / 1000).max(1);
    let budget = Budget {
        reserved: AtomicU64::new(1),
        limit: search.max_states.map_or(fill_limit, |m| m.min(fill_limit)),
        // Exact counts under a state limit; otherwise batches small enough
        // that no thread sits on a large share of a small table.
        batch: if search.max_states.is_some() {
            1
        } else {
            (fill_limit / (threads as u64 * BUDGET_BATCH)).clamp(1, BUDGET_BATCH)
        },
        state_limit_binds: search.max_states.is_some_and(|m| m <= fill_limit),
    };
    let Lookup::Inserted(root) =
        table.find_or_insert(&net.initial, hash_words(&net.initial), None, || true)
    else {
        unreachable!("an empty table has room for the initial state")
    };

    let shared = Shared {
        net,
        search,
        threads,
        table,
        budget,
        start,
        stop: AtomicBool::new(false),
        state_limit: AtomicBool::new(false),
        table_full: AtomicBool::new(false),
        first: Mutex::new(None),
        has_finding: AtomicBool::new(false),
        frontier: RwLock::new(Frontier {
            record: 1 + net.words(),
            buffers: Vec::new(),
            chunks: Vec::new(),
        }),
        cursor: AtomicUsize::new(0),
        produced: Mutex::new(Vec::new()),
        spare: Mutex::new(Vec::new()),
        barrier: Barrier::new(threads),
        depth: AtomicU32::new(0),
        level_stored: AtomicU64::new(0),
        finished: AtomicBool::new(false),
        peak_frontier: AtomicUsize::new(1),
        counters: (0..threads).map(|_| Counters::default()).collect(),
    };
    let mut totals = Stats {
        states: 1,
        ..Stats::default()
    };
    let initial_error = net.error_in(&net.initial);
    if let Some(e) = initial_error {
        // The initial state is an error state: it is not expanded.
        totals.errors = 1;
        shared.record(FindingKind::Error(e), root);
    } else {
        shared
            .frontier
            .write()
            .expect("no thread has run yet")
            .set(vec![[&[root], net.initial.as_slice()].concat()], threads);
    }
    if initial_error.is_none() {
        let per_thread: Vec<Stats> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|id| {
                    let shared = &shared;
                    scope.spawn(move || shared.work(id))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("worker threads do not panic"))
                .collect()
        });
        for stats in per_thread {
            totals.add(&stats);
        }
    }

    let first = shared.first.lock().expect("no panics while locked").clone();
    let stopped = first
        .as_ref()
        .is_some_and(|(kind, _)| !search.keep_going || is_fatal(net, kind));
    let first = first.map(|(kind, slot)| Finding {
        state: shared.vector(slot),
        trace: (!search.no_trace).then(|| shared.trace_to(slot)),
        kind,
    });
    let completion = if stopped {
        Completion::StoppedAtFinding
    } else if shared.state_limit.load(Ordering::Relaxed) {
        Completion::StateLimit
    } else if shared.table_full.load(Ordering::Relaxed) {
        Completion::TableFull
    } else {
        Completion::Complete
    };
    let peak_frontier = shared.peak_frontier.load(Ordering::Relaxed) as u64;
    Exploration {
        states: totals.states,
        transitions: totals.transitions,
        depth: shared.depth.load(Ordering::Relaxed),
        deadlocks: totals.deadlocks,
        errors: totals.errors,
        monitor_blocked: totals.monitor_blocked,
        first,
        completion,
        elapsed: start.elapsed(),
        memory_bytes: totals.states * shared.table.slot_bytes()
            + 4 * (1 + net.words() as u64) * peak_frontier,
        engine: format!("cpu ({threads} threads)"),
    }
}

/// Half of `MemAvailable` from `/proc/meminfo`, at most
/// [`DEFAULT_TABLE_CAP`]; [`FALLBACK_TABLE_BYTES`] where it cannot be read.
fn default_table_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| mem_available(&info))
        .map_or(FALLBACK_TABLE_BYTES, |available| {
            (available / 2).min(DEFAULT_TABLE_CAP)
        })
}

/// The `MemAvailable` line of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The shared allowance of new states: the state limit or the table's fill
/// limit, handed out to threads in batches so that they rarely touch the
/// shared counter.
struct Budget {
    /// States handed out so far (the initial state included).
    reserved: AtomicU64,
    /// States that may be stored in all.
    limit: u64,
    /// States reserved at a time.
    batch: u64,
    /// Whether `limit` is the user's state limit rather than the table's.
    state_limit_binds: bool,
}

impl Budget {
    /// Takes one state from the thread's reserve `local`, refilling it from
    /// the shared budget; false when the budget is spent. A granted state
    /// that the thread then finds stored by another thread is lost, so with
    /// several threads a state limit may end the search a few states early.
    #[inline]
    fn grant(&self, local: &mut u64) -> bool {
        if *local == 0 {
            let before = self.reserved.fetch_add(self.batch, Ordering::Relaxed);
            if before >= self.limit {
                return false;
            }
            *local = self.batch.min(self.limit - before);
        }
        *local -= 1;
        true
    }
}

/// One breadth-first level: the states to expand, cut into chunks.
struct Frontier {
    /// Words of a record: a state's slot, then its vector.
    record: usize,
    /// The records, in the buffers the threads filled.
    buffers: Vec<Vec<u32>>,
    /// `(buffer, first word, end word)` of every chunk.
    chunks: Vec<(usize, usize, usize)>,
}

impl Frontier {
    /// Replaces the level with `buffers`, cut into chunks for `threads`.
    fn set(&mut self, buffers: Vec<Vec<u32>>, threads: usize) {
        let total = buffers.iter().map(Vec::len).sum::<usize>() / self.record;
        let size = (total / (threads * CHUNKS_PER_THREAD)).clamp(CHUNK_MIN, CHUNK_MAX);
        let words = size * self.record;
        self.chunks.clear();
        for (b, buffer) in buffers.iter().enumerate() {
            for start in (0..buffer.len()).step_by(words) {
                self.chunks
                    .push((b, start, (start + words).min(buffer.len())));
            }
        }
        self.buffers = buffers;
    }

    /// Number of states in the level.
    fn len(&self) -> usize {
        self.buffers.iter().map(Vec::len).sum::<usize>() / self.record
    }
}

/// What one thread counted.
#[derive(Debug, Default, Clone, Copy)]
struct Stats {
    states: u64,
    transitions: u64,
    deadlocks: u64,
    errors: u64,
    monitor_blocked: u64,
}

impl Stats {
    fn add(&mut self, other: &Stats) {
        self.states += other.states;
        self.transitions += other.transitions;
        self.deadlocks += other.deadlocks;
        self.errors += other.errors;
        self.monitor_blocked += other.monitor_blocked;
    }
}

/// A thread's running totals, published for progress reports; one cache
/// line each so that threads do not slow each other down.
#[derive(Default)]
#[repr(align(64))]
struct Counters {
    states: AtomicU64,
    transitions: AtomicU64,
}

/// Everything the threads share.
struct Shared<'a> {
    net: &'a EncodedNetwork,
    search: &'a SearchOptions,
    threads: usize,
    table: StateTable,
    budget: Budget,
    start: Instant,
    /// Set to make every thread stop at its next state.
    stop: AtomicBool,
    /// The state limit was hit.
    state_limit: AtomicBool,
    /// The table was full.
    table_full: AtomicBool,
    /// The finding to report and its slot.
    first: Mutex<Option<(FindingKind, u32)>>,
    /// Whether `first` holds a finding.
    has_finding: AtomicBool,
    /// The level being expanded.
    frontier: RwLock<Frontier>,
    /// Next chunk of `frontier` to hand out.
    cursor: AtomicUsize,
    /// New states of the level being expanded, one buffer per thread.
    produced: Mutex<Vec<Vec<u32>>>,
    /// Emptied buffers of past levels, for reuse.
    spare: Mutex<Vec<Vec<u32>>>,
    /// Ends each level.
    barrier: Barrier,
    /// Breadth-first depth reached.
    depth: AtomicU32,
    /// States (error states included) stored during the current level.
    level_stored: AtomicU64,
    /// Set by the level leader when the search is over.
    finished: AtomicBool,
    /// Most slots held in two consecutive levels at once.
    peak_frontier: AtomicUsize,
    /// Per-thread progress counters.
    counters: Vec<Counters>,
}

impl Shared<'_> {
    /// Records a finding in `slot`. The first one is kept, unless a fatal
    /// one (see [`is_fatal`]) comes later, as in the reference engine; every
    /// thread stops unless the search keeps going and the finding is not
    /// fatal.
    fn record(&self, kind: FindingKind, slot: u32) {
        let fatal = is_fatal(self.net, &kind);
        if fatal || !self.search.keep_going {
            self.stop.store(true, Ordering::Relaxed);
        }
        // Fast path for the many deadlocks of a keep-going search.
        if !fatal && self.has_finding.load(Ordering::Relaxed) {
            return;
        }
        let mut first = self.first.lock().expect("no panics while locked");
        let replace = match &*first {
            None => true,
            Some((kept, _)) => fatal && !is_fatal(self.net, kept),
        };
        if replace {
            *first = Some((kind, slot));
            self.has_finding.store(true, Ordering::Relaxed);
        }
    }

    /// The vector stored in `slot`.
    fn vector(&self, slot: u32) -> Vec<u32> {
        let mut vector = vec![0; self.net.words()];
        self.table.read(slot, &mut vector);
        vector
    }

    /// The path from the initial state to `slot`, following predecessors;
    /// the actions are recomputed from consecutive vectors.
    fn trace_to(&self, slot: u32) -> Trace {
        let mut slots = vec![slot];
        let mut at = slot;
        while self.table.parent(at) != at {
            at = self.table.parent(at);
            slots.push(at);
        }
        slots.reverse();
        let states: Vec<Vec<u32>> = slots.iter().map(|&s| self.vector(s)).collect();
        let actions = states
            .windows(2)
            .map(|step| {
                action_between(self.net, &step[0], &step[1])
                    .expect("a stored state is a successor of its stored predecessor")
            })
            .collect();
        Trace { states, actions }
    }

    /// The body of worker thread `id`: expand chunks until the level is
    /// done, meet at the barrier, repeat until the search is over.
    fn work(&self, id: usize) -> Stats {
        let mut worker = Worker {
            shared: self,
            generator: SuccessorGenerator::new(self.net),
            next: Vec::new(),
            reserve: 0,
            successors: Vec::new(),
            found: Vec::new(),
            stats: Stats::default(),
        };
        let mut next_progress = PROGRESS_INTERVAL;
        loop {
            let stored_before = worker.stats.states;
            {
                let frontier = self.frontier.read().expect("the leader does not panic");
                while !self.stop.load(Ordering::Relaxed) {
                    let chunk = self.cursor.fetch_add(1, Ordering::Relaxed);
                    let Some(&(buffer, start, end)) = frontier.chunks.get(chunk) else {
                        break;
                    };
                    let records =
                        frontier.buffers[buffer][start..end].chunks_exact(frontier.record);
                    for record in records {
                        if self.stop.load(Ordering::Relaxed) {
                            break;
                        }
                        worker.expand(record[0], &record[1..]);
                    }
                    worker.publish_counters(id);
                    if id == 0 && self.start.elapsed() >= next_progress {
                        next_progress = self.start.elapsed() + PROGRESS_INTERVAL;
                        self.report_progress();
                    }
                }
            }
            self.level_stored
                .fetch_add(worker.stats.states - stored_before, Ordering::Relaxed);
            let fresh = self.spare.lock().expect("no panics while locked").pop();
            let produced = std::mem::replace(&mut worker.next, fresh.unwrap_or_default());
            self.produced
                .lock()
                .expect("no panics while locked")
                .push(produced);
            if self.barrier.wait().is_leader() {
                self.advance();
            }
            self.barrier.wait();
            if self.finished.load(Ordering::Relaxed) {
                return worker.stats;
            }
        }
    }

    /// Run by one thread between levels: makes the states produced by the
    /// level just finished the next level, or ends the search.
    fn advance(&self) {
        let produced = std::mem::take(&mut *self.produced.lock().expect("no panics while locked"));
        let mut frontier = self.frontier.write().expect("no panics while locked");
        let new_states = produced.iter().map(Vec::len).sum::<usize>() / frontier.record;
        self.peak_frontier
            .fetch_max(frontier.len() + new_states, Ordering::Relaxed);
        let mut spare = self.spare.lock().expect("no panics while locked");
        for mut old in frontier.buffers.drain(..) {
            old.clear();
            spare.push(old);
        }
        if self.stop.load(Ordering::Relaxed) {
            self.finished.store(true, Ordering::Relaxed);
            return;
        }
        // A level that stored only error states still counts as a level.
        if self.level_stored.swap(0, Ordering::Relaxed) > 0 {
            self.depth.fetch_add(1, Ordering::Relaxed);
        }
        if new_states == 0 {
            self.finished.store(true, Ordering::Relaxed);
            return;
        }
        frontier.set(
            produced.into_iter().filter(|b| !b.is_empty()).collect(),
            self.threads,
        );
        self.cursor.store(0, Ordering::Relaxed);
    }

    /// Calls the progress callback with the threads' published totals.
    fn report_progress(&self) {
        let Some(progress) = &self.search.progress else {
            return;
        };
        let (states, transitions) = self.counters.iter().fold((1, 0), |(s, t), c| {
            (
                s + c.states.load(Ordering::Relaxed),
                t + c.transitions.load(Ordering::Relaxed),
            )
        });
        progress(&Progress {
            states,
            transitions,
            depth: self.depth.load(Ordering::Relaxed),
            elapsed: self.start.elapsed(),
        });
    }
}

/// One thread's private state.
struct Worker<'s, 'a> {
    shared: &'s Shared<'a>,
    generator: SuccessorGenerator<'a>,
    /// Records of new states for the next level.
    next: Vec<u32>,
    /// States granted from the budget but not yet stored.
    reserve: u64,
    /// The successors of the state being expanded, one after the other.
    successors: Vec<u32>,
    /// Hash and error flag of each of `successors`.
    found: Vec<(u64, bool)>,
    stats: Stats,
}

impl Worker<'_, '_> {
    /// Expands `state`, stored in `slot`: stores its new successors, queues
    /// those that are not error states, and checks for deadlock and errors.
    /// All successors are generated (and their buckets prefetched) before
    /// the first lookup.
    #[inline]
    fn expand(&mut self, slot: u32, state: &[u32]) {
        let shared = self.shared;
        let table = &shared.table;
        let (successors, found) = (&mut self.successors, &mut self.found);
        successors.clear();
        found.clear();
        let expansion = self.generator.for_each(state, |successor| {
            let hash = hash_words(successor.state);
            table.prefetch(hash);
            successors.extend_from_slice(successor.state);
            found.push((hash, successor.error));
        });
        let mut out_of_budget = false;
        let mut table_full = false;
        for (successor, &(hash, error)) in successors.chunks_exact(state.len()).zip(found.iter()) {
            let lookup = table.find_or_insert(successor, hash, Some(slot), || {
                let granted = shared.budget.grant(&mut self.reserve);
                out_of_budget = !granted;
                granted
            });
            match lookup {
                Lookup::Found(_) => {}
                Lookup::Inserted(child) => {
                    self.stats.states += 1;
                    if error {
                        self.stats.errors += 1;
                        let error = shared
                            .net
                            .error_in(successor)
                            .expect("a successor flagged as error contains an error state");
                        shared.record(FindingKind::Error(error), child);
                    } else {
                        self.next.push(child);
                        self.next.extend_from_slice(successor);
                    }
                }
                Lookup::Refused => {
                    table_full = !out_of_budget;
                    break;
                }
            }
        }
        if out_of_budget || table_full {
            let state_limit = out_of_budget && shared.budget.state_limit_binds;
            if state_limit {
                shared.state_limit.store(true, Ordering::Relaxed);
            } else {
                shared.table_full.store(true, Ordering::Relaxed);
            }
            shared.stop.store(true, Ordering::Relaxed);
            return;
        }
        self.stats.transitions += expansion.successors;
        self.stats.monitor_blocked += expansion.monitor_blocked;
        if expansion.successors == 0 && shared.search.check_deadlock {
            self.stats.deadlocks += 1;
            shared.record(FindingKind::Deadlock, slot);
        }
    }

    /// Publishes this thread's totals for progress reports.
    fn publish_counters(&self, id: usize) {
        let counters = &self.shared.counters[id];
        counters.states.store(self.stats.states, Ordering::Relaxed);
        counters
            .transitions
            .store(self.stats.transitions, Ordering::Relaxed);
    }
}

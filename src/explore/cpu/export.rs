//! The state-space pass after a complete multi-core search: every stored
//! state is expanded again, in parallel chunks, and its transitions go to a
//! [`GraphSink`] in state order, so that the search itself runs at full
//! speed. States are numbered in increasing state id (0 is the initial
//! state), which is breadth-first order level by level but not within a
//! level.

use std::ops::Range;

use rayon::prelude::*;

use super::{StateId, StoredStates, TreeScratch};
use crate::encode::{EncodedNetwork, SuccessorGenerator};
use crate::error::Error;
use crate::explicit::{Edge, GraphSink};
use crate::explore::Exploration;
use crate::explore::livelock::StateVectors;

/// States the pass expands in one parallel task.
const CHUNK: StateId = 4096;
/// Tasks whose edges are held in memory before they go to the sink in order.
const CHUNKS_PER_ROUND: usize = 256;

/// Pushes every transition of the states in `stored` into `sink`, expanded
/// again on `threads` threads (0: all cores), and finishes it. Counts that
/// differ from the search's are an internal error.
pub(super) fn push_edges(
    net: &EncodedNetwork,
    stored: &StoredStates,
    exploration: &Exploration,
    threads: usize,
    sink: &mut dyn GraphSink,
) -> Result<(), Error> {
    let numbering = DenseNumbering::new(stored.published());
    if numbering.len() != exploration.states {
        return Err(Error::Internal(format!(
            "the store holds {} states but the search counted {}",
            numbering.len(),
            exploration.states
        )));
    }
    let chunks: Vec<Range<StateId>> = stored
        .published()
        .iter()
        .flat_map(|run| {
            let end = run.end;
            run.clone()
                .step_by(CHUNK as usize)
                .map(move |start| start..end.min(start + CHUNK))
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the export threads: {e}")))?;
    let mut transitions = 0;
    for round in chunks.chunks(CHUNKS_PER_ROUND) {
        let batches: Vec<Result<Vec<Edge>, Error>> = pool.install(|| {
            round
                .par_iter()
                .map_init(
                    || {
                        let words = stored.words();
                        let scratch = TreeScratch::new(words);
                        (SuccessorGenerator::new(net), vec![0; words], scratch)
                    },
                    |(generator, state, scratch), ids| {
                        let numbered = (stored, &numbering);
                        edges_of(net, numbered, generator, state, scratch, ids.clone())
                    },
                )
                .collect()
        });
        for batch in batches {
            let batch = batch?;
            transitions += batch.len() as u64;
            sink.edges(&batch)?;
        }
    }
    if transitions != exploration.transitions {
        return Err(Error::Internal(format!(
            "the export found {transitions} transitions but the search counted {}",
            exploration.transitions
        )));
    }
    sink.finish(exploration.states, transitions)?;
    Ok(())
}

/// The transitions of states `ids` of `stored`, numbered by `numbering`;
/// error states have none (the search does not expand them). `scratch` is
/// working memory for tree storage.
fn edges_of(
    net: &EncodedNetwork,
    (stored, numbering): (&StoredStates, &DenseNumbering),
    generator: &mut SuccessorGenerator<'_>,
    state: &mut [u32],
    scratch: &mut TreeScratch,
    ids: Range<StateId>,
) -> Result<Vec<Edge>, Error> {
    let mut edges = Vec::new();
    let mut unknown = false;
    for id in ids {
        stored.read(id, state);
        if net.error_in(state).is_some() {
            continue;
        }
        let source = numbering.of(id);
        generator.for_each(state, |successor| {
            match stored.id_of(successor.state, scratch) {
                Some(target) => edges.push((source, successor.action, numbering.of(target))),
                None => unknown = true,
            }
        });
        if unknown {
            return Err(Error::Internal(format!(
                "a successor of state {source} was not stored"
            )));
        }
    }
    Ok(edges)
}

/// The stored states of a search under the numbering of [`push_edges`]:
/// reads the vectors of numbered states from the store.
pub(super) struct NumberedStates {
    stored: StoredStates,
}

impl NumberedStates {
    /// The states of `stored`, numbered as [`push_edges`] numbers them.
    pub(super) fn new(stored: StoredStates) -> NumberedStates {
        NumberedStates { stored }
    }
}

impl StateVectors for NumberedStates {
    fn vectors(&self, states: &[u32]) -> Result<Vec<Vec<u32>>, Error> {
        let numbering = DenseNumbering::new(self.stored.published());
        states
            .iter()
            .map(|&number| {
                let id = numbering.id(u64::from(number)).ok_or_else(|| {
                    Error::Internal(format!("state {number} is not a stored state"))
                })?;
                let mut vector = vec![0; self.stored.words()];
                self.stored.read(id, &mut vector);
                Ok(vector)
            })
            .collect()
    }
}

/// Numbers the published state ids densely, in increasing order.
struct DenseNumbering<'a> {
    /// The runs of published ids, in increasing order.
    runs: &'a [Range<StateId>],
    /// Ids in the runs before each run.
    before: Vec<u64>,
}

impl<'a> DenseNumbering<'a> {
    fn new(runs: &'a [Range<StateId>]) -> DenseNumbering<'a> {
        let before = runs
            .iter()
            .scan(0, |count, run| {
                let at = *count;
                *count += run.end - run.start;
                Some(at)
            })
            .collect();
        DenseNumbering { runs, before }
    }

    /// Number of published ids.
    fn len(&self) -> u64 {
        self.runs
            .last()
            .zip(self.before.last())
            .map_or(0, |(run, before)| before + (run.end - run.start))
    }

    /// The published id numbered `number`, if there is one.
    fn id(&self, number: u64) -> Option<StateId> {
        if number >= self.len() {
            return None;
        }
        let run = self.before.partition_point(|&before| before <= number) - 1;
        Some(self.runs[run].start + (number - self.before[run]))
    }

    /// The number of published id `id`.
    fn of(&self, id: StateId) -> u64 {
        let run = self.runs.partition_point(|run| run.start <= id) - 1;
        self.before[run] + (id - self.runs[run].start)
    }
}

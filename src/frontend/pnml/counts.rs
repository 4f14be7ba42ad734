//! The place/transition reading of a net: every place is a process whose
//! local state is its token count, from 0 to the place's bound, and every
//! transition a rule whose participants move by their arc weights, one
//! local transition per token count (see the parent module).
//!
//! A place's bound is proven (a structural bound, [`super::bounds`]) or
//! checked (`--place-bound`, or [`DEFAULT_PLACE_BOUND`] for places that no
//! invariant bounds). Firing beyond a proven bound never happens, so it
//! needs no rule; firing beyond a checked bound is a separate rule with the
//! transition's action that leaves the marking as it is and moves the extra
//! [`BOUND_PROCESS`] into the error state of that place.

use std::ops::RangeInclusive;

use super::{LoadError, PetriNet, RuleSet, Source, bounds, transition_labels, unique_names};
use crate::model::{ErrorKind, ErrorState, Lts, Network, Process};

/// Bound of the places that no place invariant bounds, when the net is read
/// without `--place-bound`.
pub const DEFAULT_PLACE_BOUND: u32 = 255;

/// Largest bound a place is read with: `--place-bound` goes up to it, and
/// a structural bound above it counts as none.
pub const MAX_PLACE_BOUND: u32 = 1_000_000;

/// Most local states and local transitions the place/transition reading
/// spells out (2^24): a net that would need more is refused with a message
/// naming the place that needs most, before anything is allocated.
pub const MAX_LOCAL_TRANSITIONS: u64 = 1 << 24;

/// Name of the process that records a firing beyond a checked place bound.
pub const BOUND_PROCESS: &str = "place-bound";

/// Name of the initial, ordinary state of the [`BOUND_PROCESS`]; its other
/// states are `PLACE>BOUND`, one per place that some firing may overflow.
pub const WITHIN_STATE: &str = "within";

/// The bound a place is read with.
#[derive(Debug, Clone, Copy)]
struct Bound {
    /// Most tokens the place holds.
    tokens: u64,
    /// Whether a firing beyond it must be looked for (false: a structural
    /// bound proves it never happens).
    checked: bool,
}

/// The arcs of one transition to and from one place.
#[derive(Debug, Clone, Copy)]
struct PlaceArcs {
    place: usize,
    /// Weight of the arc from the place (0 without one).
    consumed: u64,
    /// Weight of the arc to the place (0 without one).
    produced: u64,
}

impl PlaceArcs {
    /// The token counts from which the transition fires without going
    /// beyond `bound`.
    fn moves(self, bound: u64) -> RangeInclusive<u64> {
        // From n, the place ends with n - consumed + produced <= bound.
        match (bound + self.consumed).checked_sub(self.produced) {
            Some(highest) => self.consumed..=highest.min(bound),
            // Even an empty place would end above the bound: no count.
            None => RangeInclusive::new(1, 0),
        }
    }

    /// The token counts from which the transition is enabled and would go
    /// beyond `bound`.
    fn overflows(self, bound: u64) -> RangeInclusive<u64> {
        let lowest = (bound + self.consumed + 1).saturating_sub(self.produced);
        self.consumed.max(lowest)..=bound
    }

    /// The token count after firing from `tokens`.
    fn after(self, tokens: u64) -> u64 {
        tokens - self.consumed + self.produced
    }
}

/// The arcs of transition `t` of `net`, one entry per place, sorted by
/// place.
fn place_arcs(net: &PetriNet, t: usize) -> Vec<PlaceArcs> {
    let transition = &net.transitions[t];
    let mut arcs: Vec<PlaceArcs> = transition
        .inputs
        .iter()
        .map(|arc| PlaceArcs {
            place: arc.place,
            consumed: arc.weight,
            produced: 0,
        })
        .chain(transition.outputs.iter().map(|arc| PlaceArcs {
            place: arc.place,
            consumed: 0,
            produced: arc.weight,
        }))
        .collect();
    arcs.sort_unstable_by_key(|a| a.place);
    arcs.dedup_by(|later, first| {
        let same = later.place == first.place;
        if same {
            first.consumed += later.consumed;
            first.produced += later.produced;
        }
        same
    });
    arcs
}

/// Number of values in `range`.
fn len(range: &RangeInclusive<u64>) -> u64 {
    (range.end() + 1).saturating_sub(*range.start())
}

impl Source<'_> {
    /// The place/transition reading of `net`, with `place_bound` as given
    /// by `--place-bound`, and the net's [`bounds::structural_bounds`] when
    /// they are already known.
    pub(super) fn build_counting_network(
        &self,
        net: &PetriNet,
        place_bound: Option<u32>,
        structural: Option<Vec<Option<u64>>>,
    ) -> Result<Network, LoadError> {
        self.require_arcs(net)?;
        let structural = structural.unwrap_or_else(|| bounds::structural_bounds(net));
        let bounds: Vec<Bound> = structural
            .iter()
            .map(|&proven| {
                let proven = proven.filter(|&b| b <= MAX_PLACE_BOUND as u64);
                match (proven, place_bound) {
                    (Some(tokens), Some(limit)) if tokens <= limit as u64 => Bound {
                        tokens,
                        checked: false,
                    },
                    (Some(tokens), None) => Bound {
                        tokens,
                        checked: false,
                    },
                    (_, limit) => Bound {
                        tokens: limit.unwrap_or(DEFAULT_PLACE_BOUND) as u64,
                        checked: true,
                    },
                }
            })
            .collect();
        let origin = match place_bound {
            Some(limit) => format!("--place-bound {limit}"),
            None => format!(
                "the default bound {DEFAULT_PLACE_BOUND} of places that no place invariant \
                 bounds"
            ),
        };
        let wanted: Vec<(&str, String)> = net
            .places
            .iter()
            .map(|p| (p.name.as_str(), p.id.to_string()))
            .collect();
        let names = unique_names(&wanted, &[BOUND_PROCESS]);
        for ((place, bound), name) in net.places.iter().zip(&bounds).zip(&names) {
            if place.tokens > bound.tokens {
                let remedy = if place.tokens <= MAX_PLACE_BOUND as u64 {
                    format!("pass --place-bound {} or more", place.tokens)
                } else {
                    format!("places are read with at most {MAX_PLACE_BOUND} tokens")
                };
                return Err(self.error(
                    place.marking.unwrap_or(place.node),
                    format!(
                        "place `{name}` starts with {} tokens, more than its bound {} \
                         ({origin}); {remedy}",
                        place.tokens, bound.tokens
                    ),
                ));
            }
        }
        let arcs: Vec<Vec<PlaceArcs>> = (0..net.transitions.len())
            .map(|t| place_arcs(net, t))
            .collect();
        self.check_size(net, &bounds, &arcs, &names)?;

        let processes = net
            .places
            .iter()
            .zip(&bounds)
            .zip(names)
            .map(|((place, bound), name)| Process {
                name,
                lts: Lts {
                    state_names: (0..=bound.tokens).map(|n| n.to_string()).collect(),
                    initial: place.tokens as u32,
                    ..Lts::default()
                },
                error_states: Vec::new(),
            })
            .collect();
        let mut builder = CountingBuilder {
            bounds: &bounds,
            set: RuleSet::new(processes),
            places: net.places.len(),
            overflow_state: vec![None; net.places.len()],
            origin,
        };
        for (arcs, action) in arcs.iter().zip(transition_labels(net)) {
            builder.add_transition(arcs, &action);
        }
        Ok(builder.set.finish())
    }

    /// Refuses a net whose reading would spell out more than
    /// [`MAX_LOCAL_TRANSITIONS`] local states and transitions, naming the
    /// place that needs most.
    fn check_size(
        &self,
        net: &PetriNet,
        bounds: &[Bound],
        arcs: &[Vec<PlaceArcs>],
        names: &[String],
    ) -> Result<(), LoadError> {
        let mut per_place: Vec<u64> = bounds.iter().map(|b| b.tokens + 1).collect();
        for transition in arcs {
            let overflow_rules = transition
                .iter()
                .filter(|a| bounds[a.place].checked && a.produced > a.consumed)
                .count() as u64;
            for a in transition {
                let bound = bounds[a.place];
                let mut count = len(&a.moves(bound.tokens));
                if bound.checked && a.produced > a.consumed {
                    count += len(&a.overflows(bound.tokens));
                }
                if a.consumed > 0 {
                    // Its self-loops in the overflow rules of other places.
                    count += len(&(a.consumed..=bound.tokens)) * overflow_rules;
                }
                per_place[a.place] += count;
            }
        }
        let total: u64 = per_place.iter().sum();
        if total <= MAX_LOCAL_TRANSITIONS {
            return Ok(());
        }
        let (largest, size) = per_place
            .iter()
            .enumerate()
            .max_by_key(|&(_, size)| *size)
            .map_or((0, 0), |(p, &size)| (p, size));
        Err(self.error(
            net.places[largest].node,
            format!(
                "reading this net with one local state per token count needs about {total} \
                 local states and transitions, more than {MAX_LOCAL_TRANSITIONS}; place `{}` \
                 (bound {}) alone needs {size}; pass a smaller --place-bound",
                names[largest], bounds[largest].tokens
            ),
        ))
    }
}

/// Builds the rules transition by transition.
struct CountingBuilder<'b> {
    bounds: &'b [Bound],
    /// One process per place, then the bound process once an overflow rule
    /// needs it.
    set: RuleSet,
    /// Number of places: the index of the bound process.
    places: usize,
    /// The error state of the bound process for each place, once some
    /// overflow rule needs it.
    overflow_state: Vec<Option<u32>>,
    /// Where the checked bounds come from, for the error messages.
    origin: String,
}

impl CountingBuilder<'_> {
    /// Adds the rule of a transition with these arcs and `action`, and one
    /// overflow rule per place with a checked bound that firing can exceed.
    fn add_transition(&mut self, arcs: &[PlaceArcs], action: &str) {
        let mut participants = Vec::with_capacity(arcs.len());
        for &a in arcs {
            let moves = a.moves(self.bounds[a.place].tokens);
            let moves = moves.map(|n| (n as u32, a.after(n) as u32));
            participants.push(self.set.add_moves(a.place, moves));
        }
        self.set.push_rule(participants, action);
        let enabled_somewhere = arcs
            .iter()
            .all(|a| a.consumed <= self.bounds[a.place].tokens);
        if !enabled_somewhere {
            return;
        }
        for &over in arcs {
            let bound = self.bounds[over.place];
            if !bound.checked || over.produced <= over.consumed {
                continue;
            }
            let mut participants = Vec::with_capacity(arcs.len() + 1);
            for &a in arcs {
                let sources = if a.place == over.place {
                    a.overflows(bound.tokens)
                } else if a.consumed > 0 {
                    a.consumed..=self.bounds[a.place].tokens
                } else {
                    continue;
                };
                let loops = sources.map(|n| (n as u32, n as u32));
                participants.push(self.set.add_moves(a.place, loops));
            }
            let error = self.overflow_state(over.place, bound.tokens);
            participants.push(self.set.add_moves(self.places, [(0, error)]));
            self.set.push_rule(participants, action);
        }
    }

    /// The error state of the bound process for `place` (whose bound is
    /// `bound`), adding it, and the process, on first use.
    fn overflow_state(&mut self, place: usize, bound: u64) -> u32 {
        if self.set.processes.len() == self.places {
            self.set.processes.push(Process {
                name: BOUND_PROCESS.to_string(),
                lts: Lts {
                    state_names: vec![WITHIN_STATE.to_string()],
                    ..Lts::default()
                },
                error_states: Vec::new(),
            });
        }
        if let Some(state) = self.overflow_state[place] {
            return state;
        }
        let name = self.set.processes[place].name.clone();
        let process = &mut self.set.processes[self.places];
        let state = process.lts.state_names.len() as u32;
        process.lts.state_names.push(format!("{name}>{bound}"));
        process.error_states.push(ErrorState {
            state,
            kind: ErrorKind::Model(format!(
                "the last transition of the trace puts more than {bound} tokens into place \
                 `{name}`, the bound it was read with ({}); pass a larger --place-bound to \
                 explore further",
                self.origin
            )),
        });
        self.overflow_state[place] = Some(state);
        state
    }
}

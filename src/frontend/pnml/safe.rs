//! The 1-safe reading of a net: units of mutually exclusive places, each a
//! process whose local state is the place holding the unit's token (see the
//! parent module).

use std::collections::HashMap;

use roxmltree::Node;

use super::{
    LoadError, NetNode, PetriNet, RuleSet, Source, Transition, child, transition_labels,
    unique_names,
};
use crate::model::{ErrorKind, ErrorState, Lts, Network, Process};

/// Name of the local state of a unit that holds no token.
pub const EMPTY_STATE: &str = "empty";

/// Name of the process that records a second token put into a unit.
pub const SAFETY_PROCESS: &str = "1-safety";

/// Name of the initial, ordinary state of the [`SAFETY_PROCESS`].
pub const SAFE_STATE: &str = "safe";

/// Name of the error state of the [`SAFETY_PROCESS`]: some transition put a
/// second token into a unit.
pub const UNSAFE_STATE: &str = "unsafe";

impl Source<'_> {
    /// The 1-safe reading of `net`: the units of its NUPN section, or one
    /// per place. `unproven`, for a net that only looks 1-safe, says why it
    /// is not read with proven place bounds instead; the 1-safety error
    /// repeats it.
    pub(super) fn build_safe_network(
        &self,
        net: &PetriNet,
        ids: &HashMap<&str, NetNode>,
        unproven: Option<&str>,
    ) -> Result<Network, LoadError> {
        let units = match net.nupn {
            Some(nupn) => self.read_units(nupn, net, ids)?,
            None => units_per_place(net),
        };
        self.build_network(net, &units, unproven)
    }

    /// Reads the units of a NUPN section; units without places of their own
    /// are dropped (they need no process). Subunit links are not needed: each
    /// unit is encoded on its own.
    fn read_units(
        &self,
        nupn: Node,
        net: &PetriNet,
        ids: &HashMap<&str, NetNode>,
    ) -> Result<Vec<Unit>, LoadError> {
        let structure = child(nupn, "structure")
            .ok_or_else(|| self.error(nupn, "NUPN section without <structure>"))?;
        let mut unit_of: Vec<Option<usize>> = vec![None; net.places.len()];
        // Units with places, with their position among the `<unit>`s.
        let mut units: Vec<(Unit, usize)> = Vec::new();
        for (position, node) in structure
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "unit")
            .enumerate()
        {
            let name = self.attribute(node, "id")?.to_string();
            let mut places = Vec::new();
            let listed = child(node, "places").and_then(|p| p.text()).unwrap_or("");
            for id in listed.split_whitespace() {
                let Some(&NetNode::Place(place)) = ids.get(id) else {
                    return Err(self.error(
                        node,
                        format!("unit `{name}` lists `{id}`, which is no place"),
                    ));
                };
                match unit_of[place] {
                    Some(other) if other == units.len() => {
                        return Err(
                            self.error(node, format!("unit `{name}` lists place `{id}` twice"))
                        );
                    }
                    Some(other) => {
                        return Err(self.error(
                            node,
                            format!(
                                "place `{id}` is in units `{}` and `{name}`",
                                units[other].0.name
                            ),
                        ));
                    }
                    None => {}
                }
                unit_of[place] = Some(units.len());
                places.push(place);
            }
            if !places.is_empty() {
                units.push((Unit { name, places }, position + 1));
            }
        }
        if let Some(orphan) = unit_of.iter().position(Option::is_none) {
            return Err(self.error(
                nupn,
                format!("place `{}` is in no NUPN unit", net.places[orphan].id),
            ));
        }
        let wanted: Vec<(&str, String)> = units
            .iter()
            .map(|(unit, position)| (unit.name.as_str(), position.to_string()))
            .collect();
        let names = unique_names(&wanted, &[SAFETY_PROCESS]);
        Ok(units
            .into_iter()
            .zip(names)
            .map(|((unit, _), name)| Unit { name, ..unit })
            .collect())
    }

    /// Builds the network: one process per unit, one rule per transition
    /// (plus its overflow rules, see [`NetworkBuilder::add_overflow_rules`]).
    fn build_network(
        &self,
        net: &PetriNet,
        units: &[Unit],
        unproven: Option<&str>,
    ) -> Result<Network, LoadError> {
        let mut builder = NetworkBuilder::new(net, units, unproven);
        for unit in units {
            let mut marked = unit.places.iter().filter(|&&p| net.places[p].tokens > 0);
            if let (Some(&first), Some(&second)) = (marked.next(), marked.next()) {
                return Err(self.error(
                    net.places[second].node,
                    format!(
                        "the initial marking puts two tokens into unit `{}` \
                         (places `{}` and `{}`)",
                        unit.name, net.places[first].name, net.places[second].name
                    ),
                ));
            }
        }
        self.require_arcs(net)?;
        for (t, action) in net.transitions.iter().zip(transition_labels(net)) {
            builder.add_transition(t, &action);
        }
        Ok(builder.set.finish())
    }
}

/// A set of mutually exclusive places: one process of the network.
struct Unit {
    /// Process name, unique among the units and never [`SAFETY_PROCESS`].
    name: String,
    /// Its own places, by index; never empty.
    places: Vec<usize>,
}

/// One unit per place, named after it, for nets without a NUPN section.
fn units_per_place(net: &PetriNet) -> Vec<Unit> {
    let wanted: Vec<(&str, String)> = net
        .places
        .iter()
        .map(|p| (p.name.as_str(), p.id.to_string()))
        .collect();
    unique_names(&wanted, &[SAFETY_PROCESS])
        .into_iter()
        .enumerate()
        .map(|(i, name)| Unit {
            name,
            places: vec![i],
        })
        .collect()
}

/// The places one net transition consumes from and produces into in one
/// unit, as local state numbers (1-based; 0 is empty).
struct UnitArcs {
    unit: usize,
    consumed: Vec<u32>,
    produced: Vec<u32>,
}

impl UnitArcs {
    /// The local states from which firing the transition would put a second
    /// token into the unit (given that it is enabled).
    fn overflow_sources(&self, own_places: u32) -> Vec<u32> {
        match (self.consumed.as_slice(), self.produced.len()) {
            ([], 1) => (1..=own_places).collect(),
            ([], _) => (0..=own_places).collect(),
            ([consumed], 2..) => vec![*consumed],
            _ => Vec::new(),
        }
    }
}

/// Builds processes and rules transition by transition.
///
/// A unit holds at most one token, so a local state is "empty" or one of its
/// places. A transition's main rule moves every unit it touches from the
/// consumed place (or empty) to the produced place (or empty). Firings that
/// would give a unit a second token are separate overflow rules with the same
/// action, which leave the marking as it is and move the extra two-state
/// [`SAFETY_PROCESS`] to its error state; it exists only when some transition
/// can overflow a unit. Keeping the error state out of the units keeps each
/// unit's field as narrow as its places allow, for one bit in all.
struct NetworkBuilder<'n, 'a, 'input> {
    net: &'n PetriNet<'a, 'input>,
    units: &'n [Unit],
    /// One process per unit, then the safety process once an overflow rule
    /// needs it.
    set: RuleSet,
    /// (unit, local state) of every place.
    slot: Vec<(usize, u32)>,
    /// Why no place bounds were proven, for the 1-safety error.
    unproven: Option<&'n str>,
}

impl<'n, 'a, 'input> NetworkBuilder<'n, 'a, 'input> {
    fn new(net: &'n PetriNet<'a, 'input>, units: &'n [Unit], unproven: Option<&'n str>) -> Self {
        let mut slot = vec![(0usize, 0u32); net.places.len()];
        let mut processes = Vec::with_capacity(units.len() + 1);
        for (u, unit) in units.iter().enumerate() {
            let mut state_names = Vec::with_capacity(unit.places.len() + 1);
            state_names.push(EMPTY_STATE.to_string());
            let mut initial = 0;
            for (i, &p) in unit.places.iter().enumerate() {
                let local = i as u32 + 1;
                slot[p] = (u, local);
                state_names.push(net.places[p].name.clone());
                if net.places[p].tokens > 0 {
                    initial = local;
                }
            }
            processes.push(Process {
                name: unit.name.clone(),
                lts: Lts {
                    state_names,
                    initial,
                    ..Lts::default()
                },
                error_states: Vec::new(),
            });
        }
        NetworkBuilder {
            net,
            units,
            set: RuleSet::new(processes),
            slot,
            unproven,
        }
    }

    /// Adds the rules of net transition `t`, whose action is `action`.
    fn add_transition(&mut self, t: &Transition, action: &str) {
        // An arc of weight 2 or more is taken as two arcs: consuming two
        // tokens from a unit never happens, producing two overflows it.
        let mut touched: Vec<(usize, u32, bool)> = Vec::new();
        for (arcs, is_output) in [(&t.inputs, false), (&t.outputs, true)] {
            for arc in arcs {
                let (unit, local) = self.slot[arc.place];
                let copies = arc.weight.min(2) as usize;
                touched.extend(std::iter::repeat_n((unit, local, is_output), copies));
            }
        }
        touched.sort_unstable();
        let groups: Vec<UnitArcs> = touched
            .chunk_by(|a, b| a.0 == b.0)
            .map(|group| UnitArcs {
                unit: group[0].0,
                consumed: group.iter().filter(|g| !g.2).map(|g| g.1).collect(),
                produced: group.iter().filter(|g| g.2).map(|g| g.1).collect(),
            })
            .collect();

        let mut participants = Vec::with_capacity(groups.len());
        for g in &groups {
            // Consuming two places of one unit never happens: no move.
            let moves: &[(u32, u32)] = match (g.consumed.as_slice(), g.produced.as_slice()) {
                ([from], []) => &[(*from, 0)],
                ([from], [to]) => &[(*from, *to)],
                ([], [to]) => &[(0, *to)],
                _ => &[],
            };
            participants.push(self.set.add_moves(g.unit, moves.iter().copied()));
        }
        self.set.push_rule(participants, action);
        self.add_overflow_rules(action, &groups);
    }

    /// Adds one rule per unit that firing the transition can overflow: it
    /// needs the transition enabled (every consuming unit in its consumed
    /// place) and the unit in an overflowing state, changes no unit and
    /// moves the safety process to its error state.
    fn add_overflow_rules(&mut self, action: &str, groups: &[UnitArcs]) {
        let risky: Vec<(usize, Vec<u32>)> = groups
            .iter()
            .map(|g| {
                let own = self.units[g.unit].places.len() as u32;
                (g.unit, g.overflow_sources(own))
            })
            .filter(|(_, sources)| !sources.is_empty())
            .collect();
        if risky.is_empty() || groups.iter().any(|g| g.consumed.len() > 1) {
            return;
        }
        for (unit, sources) in risky {
            let mut participants = Vec::new();
            let mut consumes_here = false;
            for g in groups {
                if let [consumed] = g.consumed.as_slice() {
                    consumes_here |= g.unit == unit;
                    let stay = [(*consumed, *consumed)];
                    participants.push(self.set.add_moves(g.unit, stay));
                }
            }
            if !consumes_here {
                let loops = sources.iter().map(|&s| (s, s));
                participants.push(self.set.add_moves(unit, loops));
            }
            let safety = self.safety_process();
            participants.push(self.set.add_moves(safety, [(0, 1)]));
            participants.sort();
            self.set.push_rule(participants, action);
        }
    }

    /// The index of the process that records an overflow, created on first
    /// use (after the units).
    fn safety_process(&mut self) -> usize {
        let index = self.units.len();
        if self.set.processes.len() == index {
            let message = if self.net.nupn.is_some() {
                "net is not 1-safe or violates its NUPN units: the last transition of the \
                 trace puts a second token into a place or unit"
            } else {
                "net is not 1-safe: the last transition of the trace puts a second token into \
                 a place"
            };
            self.set.processes.push(Process {
                name: SAFETY_PROCESS.to_string(),
                lts: Lts {
                    state_names: vec![SAFE_STATE.to_string(), UNSAFE_STATE.to_string()],
                    ..Lts::default()
                },
                error_states: vec![ErrorState {
                    state: 1,
                    kind: ErrorKind::Model(match self.unproven {
                        Some(why) => format!("{message}; {why}; {READ_AS_COUNTS}"),
                        None => format!("{message}; {READ_AS_COUNTS}"),
                    }),
                }],
            });
        }
        index
    }
}

/// What the 1-safety error adds: how to read the net as what it is.
const READ_AS_COUNTS: &str = "to read it as a place/transition net, pass --place-bound K \
                              (the most tokens any place may hold)";

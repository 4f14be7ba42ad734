//! 1-safe Petri nets in PNML (the place/transition nets of the Model Checking
//! Contest), read as networks of LTSs.
//!
//! The places are grouped into units: the units of the net's NUPN section
//! (`<toolspecific tool="nupn">`) when it has one, otherwise one unit per
//! place. A unit's own places are mutually exclusive, so each unit becomes one
//! process whose local states are [`EMPTY_STATE`] and the unit's places. (In a
//! hierarchical NUPN a unit may be empty while a subunit holds the token; every
//! unit is its own process, so that needs no special treatment.)
//!
//! Every net transition becomes one [`SyncRule`] over the units it consumes
//! from or produces into, whose result is the transition's name, so the
//! network's actions are exactly the net's transitions and its state space is
//! exactly the net's reachability graph. A firing that would put a second
//! token into a unit is a separate rule with the same action that moves the
//! extra [`SAFETY_PROCESS`] into an [`ErrorKind::Model`] error state: a net
//! that is not 1-safe (or breaks its NUPN units) is reported with a trace to
//! the marking where it happens, never explored as a different net.
//!
//! Names come from the net and are made unique where they must be
//! (`unique_names`; docs/FORMAT.md gives the rule): transition names (the
//! actions), place names (the local states of a unit, beside
//! [`EMPTY_STATE`]) and unit names (the processes, beside
//! [`SAFETY_PROCESS`]). The local labels of the processes
//! are the reader's own and never derived from the net's names: rule `N`
//! (its index in [`Network::rules`]) is the only user of the local label
//! `#N` ([`local_label`]), in every process that takes part in it, so rules
//! cannot be confused whatever the net's names are.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use roxmltree::{Document, Node};

use super::{LoadError, fresh_name, read_file};
use crate::model::{
    ErrorKind, ErrorState, Lts, LtsTransition, Network, Participant, Process, SyncRule,
    UnmatchedLabels,
};

/// Name of the local state of a unit that holds no token.
pub const EMPTY_STATE: &str = "empty";

/// Name of the initial, ordinary state of the [`SAFETY_PROCESS`].
pub const SAFE_STATE: &str = "safe";

/// Name of the error state of the [`SAFETY_PROCESS`]: some transition put a
/// second token into a unit.
pub const UNSAFE_STATE: &str = "unsafe";

/// Most attributes one XML element may have. PNML elements have a few;
/// the XML parser checks an element's attributes for duplicates in time
/// quadratic in their number, so documents with more are refused before
/// parsing.
pub const MAX_ATTRIBUTES: usize = 100;

/// The local label of rule number `rule` in every process that takes part
/// in it: `#` and the number.
pub fn local_label(rule: usize) -> String {
    format!("#{rule}")
}

/// Reads a PNML file as a network (see the module documentation).
pub fn load(path: &Path) -> Result<Network, LoadError> {
    let text = read_file(path)?;
    parse(&text, path)
}

/// Parses PNML `text`; `path` is only used in error messages.
pub fn parse(text: &str, path: &Path) -> Result<Network, LoadError> {
    let source = Source { text, path };
    source.check_attribute_counts()?;
    let doc = Document::parse(text).map_err(|e| xml_error(path, &e))?;
    let (net, ids) = source.read_net(&doc)?;
    let units = match net.nupn {
        Some(nupn) => source.read_units(nupn, &net, &ids)?,
        None => units_per_place(&net),
    };
    source.build_network(&net, &units)
}

/// Unique names for items that may share names. `wanted[i]` is item `i`'s
/// name and a key that tells it apart from the others (its PNML id, or its
/// position). A name that no other item wants and that is not `reserved`
/// is kept; the others become `NAME@KEY`, with `#2`, `#3`, ... appended
/// while that is taken, so that every result differs from every other
/// result and from `reserved`, whatever the names are.
fn unique_names(wanted: &[(&str, String)], reserved: &[&str]) -> Vec<String> {
    let mut uses: HashMap<&str, usize> = HashMap::with_capacity(wanted.len());
    for &(name, _) in wanted {
        *uses.entry(name).or_default() += 1;
    }
    let kept = |name: &str| uses[name] == 1 && !reserved.contains(&name);
    let mut taken: HashSet<String> = reserved.iter().map(|r| r.to_string()).collect();
    taken.extend(
        wanted
            .iter()
            .filter(|(name, _)| kept(name))
            .map(|(name, _)| name.to_string()),
    );
    wanted
        .iter()
        .map(|(name, key)| {
            if kept(name) {
                return name.to_string();
            }
            fresh_name(format!("{name}@{key}"), &mut taken)
        })
        .collect()
}

/// Maps a syntax error of the XML parser to a located [`LoadError`].
fn xml_error(path: &Path, error: &roxmltree::Error) -> LoadError {
    let pos = error.pos();
    let full = error.to_string();
    let message = full
        .strip_suffix(&format!(" at {pos}"))
        .unwrap_or(&full)
        .to_string();
    LoadError::At {
        path: path.to_path_buf(),
        line: pos.row as usize,
        column: pos.col as usize,
        message: format!("malformed XML: {message}"),
    }
}

/// A place of the net.
struct Place<'a, 'input> {
    /// PNML id, used by arcs and NUPN units.
    id: &'a str,
    /// Display name (the id when the place has no name), unique among the
    /// places and never [`EMPTY_STATE`].
    name: String,
    /// Whether the initial marking puts a token here.
    marked: bool,
    /// The `<place>` element, to locate errors.
    node: Node<'a, 'input>,
}

/// A transition of the net with its pre- and postset.
struct Transition<'a, 'input> {
    /// PNML id.
    id: &'a str,
    /// Name (the id when the transition has no name), before making it
    /// unique.
    name: String,
    /// The `<transition>` element, to locate errors.
    node: Node<'a, 'input>,
    /// Places consumed from, by index.
    inputs: Vec<usize>,
    /// Places produced into, by index.
    outputs: Vec<usize>,
}

/// The place/transition net as read from the document.
struct PetriNet<'a, 'input> {
    places: Vec<Place<'a, 'input>>,
    transitions: Vec<Transition<'a, 'input>>,
    /// The NUPN `<toolspecific>` element, if any.
    nupn: Option<Node<'a, 'input>>,
}

/// A set of mutually exclusive places: one process of the network.
struct Unit {
    /// Process name, unique among the units and never [`SAFETY_PROCESS`].
    name: String,
    /// Its own places, by index; never empty.
    places: Vec<usize>,
}

/// What an id of the document names.
#[derive(Clone, Copy)]
enum NetNode {
    Place(usize),
    Transition(usize),
}

/// The document being read, to locate errors.
struct Source<'t> {
    text: &'t str,
    path: &'t Path,
}

/// The element child of `node` named `name`, ignoring namespaces.
fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// The `<text>` element inside the child `name` of `node`, with its trimmed
/// content (PNML's way of writing names, markings and inscriptions).
fn text_of<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<(Node<'a, 'input>, &'a str)> {
    let text = child(child(node, name)?, "text")?;
    Some((text, text.text().unwrap_or("").trim()))
}

impl Source<'_> {
    /// Refuses a document with an element of more than [`MAX_ATTRIBUTES`]
    /// attributes, located at the element, in one pass over the text: in a
    /// start tag every `=` outside quoted values begins an attribute;
    /// comments, CDATA sections, processing instructions, declarations and
    /// end tags are skipped.
    fn check_attribute_counts(&self) -> Result<(), LoadError> {
        let text = self.text;
        let bytes = text.as_bytes();
        let skip_past = |from: usize, end: &str| {
            text[from..]
                .find(end)
                .map_or(text.len(), |e| from + e + end.len())
        };
        let mut at = 0;
        while let Some(found) = text[at..].find('<') {
            let open = at + found;
            let tag = &text[open..];
            at = if tag.starts_with("<!--") {
                skip_past(open + 4, "-->")
            } else if tag.starts_with("<![CDATA[") {
                skip_past(open + 9, "]]>")
            } else if tag.starts_with("<?") {
                skip_past(open + 2, "?>")
            } else if tag.starts_with("<!") || tag.starts_with("</") {
                open + 2
            } else {
                let mut attributes = 0;
                let mut quote = None;
                let mut end = open + 1;
                while end < bytes.len() {
                    match (quote, bytes[end]) {
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, c @ (b'"' | b'\'')) => quote = Some(c),
                        (None, b'>') => break,
                        (None, b'=') => attributes += 1,
                        _ => {}
                    }
                    if attributes > MAX_ATTRIBUTES {
                        let name_end = tag[1..]
                            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
                            .map_or(tag.len(), |e| e + 1);
                        return Err(LoadError::at(
                            self.path,
                            text,
                            open,
                            format!(
                                "element <{}> has more than {MAX_ATTRIBUTES} attributes",
                                &tag[1..name_end]
                            ),
                        ));
                    }
                    end += 1;
                }
                // Past the `>`, or the end of an unterminated tag.
                (end + 1).min(text.len())
            };
        }
        Ok(())
    }

    /// An error located at the start of `node`.
    fn error(&self, node: Node, message: impl Into<String>) -> LoadError {
        LoadError::at(self.path, self.text, node.range().start, message)
    }

    /// The attribute `name` of `node`, or an error naming what is missing.
    fn attribute<'a>(&self, node: Node<'a, '_>, name: &str) -> Result<&'a str, LoadError> {
        node.attribute(name).ok_or_else(|| {
            self.error(
                node,
                format!(
                    "<{}> without the `{name}` attribute",
                    node.tag_name().name()
                ),
            )
        })
    }

    /// Reads the single `<net>` of a `<pnml>` document, with what each of
    /// its place and transition ids names.
    fn read_net<'a, 'input>(
        &self,
        doc: &'a Document<'input>,
    ) -> Result<(PetriNet<'a, 'input>, HashMap<&'a str, NetNode>), LoadError> {
        let root = doc.root_element();
        if root.tag_name().name() != "pnml" {
            return Err(self.error(root, "expected a <pnml> document"));
        }
        let mut nets = root
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "net");
        let net_node = nets
            .next()
            .ok_or_else(|| self.error(root, "expected a <net> inside <pnml>"))?;
        if let Some(second) = nets.next() {
            return Err(self.error(second, "expected one <net>, found a second one"));
        }
        let net_type = net_node.attribute("type").unwrap_or("");
        if !net_type.ends_with("ptnet") {
            return Err(self.error(
                net_node,
                format!(
                    "net type `{net_type}` is not supported: expected a place/transition net \
                     (type ending in `ptnet`); colored nets are not supported"
                ),
            ));
        }
        let mut net = PetriNet {
            places: Vec::new(),
            transitions: Vec::new(),
            nupn: None,
        };
        let mut arcs = Vec::new();
        self.collect(net_node, &mut net, &mut arcs)?;
        let wanted: Vec<(&str, String)> = net
            .places
            .iter()
            .map(|p| (p.name.as_str(), p.id.to_string()))
            .collect();
        let names = unique_names(&wanted, &[EMPTY_STATE]);
        for (place, name) in net.places.iter_mut().zip(names) {
            place.name = name;
        }

        let mut ids: HashMap<&str, NetNode> = HashMap::new();
        let places = net.places.iter().enumerate();
        let transitions = net.transitions.iter().enumerate();
        let numbered = places
            .map(|(i, p)| (p.id, p.node, NetNode::Place(i)))
            .chain(transitions.map(|(i, t)| (t.id, t.node, NetNode::Transition(i))));
        for (id, node, numbered) in numbered {
            if ids.insert(id, numbered).is_some() {
                return Err(self.error(node, format!("id `{id}` is used twice")));
            }
        }
        let mut seen_arcs = HashSet::new();
        for arc in arcs {
            self.read_arc(arc, &ids, &mut net, &mut seen_arcs)?;
        }
        Ok((net, ids))
    }

    /// Gathers places, transitions, arcs and the NUPN section of `container`
    /// (the net), descending into nested pages in document order. Pages
    /// wait on an explicit stack, so that nesting depth costs no call stack.
    fn collect<'a, 'input>(
        &self,
        container: Node<'a, 'input>,
        net: &mut PetriNet<'a, 'input>,
        arcs: &mut Vec<Node<'a, 'input>>,
    ) -> Result<(), LoadError> {
        let mut pages = vec![container.children()];
        while let Some(children) = pages.last_mut() {
            let Some(node) = children.next() else {
                pages.pop();
                continue;
            };
            if !node.is_element() {
                continue;
            }
            match node.tag_name().name() {
                "page" => pages.push(node.children()),
                "place" => net.places.push(self.read_place(node)?),
                "transition" => {
                    let id = self.attribute(node, "id")?;
                    net.transitions.push(Transition {
                        id,
                        name: text_of(node, "name").map_or(id, |(_, n)| n).to_string(),
                        node,
                        inputs: Vec::new(),
                        outputs: Vec::new(),
                    });
                }
                "arc" => arcs.push(node),
                "toolspecific" if node.attribute("tool") == Some("nupn") => {
                    if net.nupn.is_some() {
                        return Err(self.error(node, "second NUPN section in one net"));
                    }
                    net.nupn = Some(node);
                }
                "declaration" => {
                    return Err(self.error(
                        node,
                        "colored nets (with <declaration>) are not supported: \
                         expected a place/transition net",
                    ));
                }
                name @ ("referencePlace" | "referenceTransition") => {
                    return Err(self.error(node, format!("<{name}> is not supported")));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads a `<place>`: id, name and a 0/1 initial marking.
    fn read_place<'a, 'input>(
        &self,
        node: Node<'a, 'input>,
    ) -> Result<Place<'a, 'input>, LoadError> {
        let id = self.attribute(node, "id")?;
        let name = text_of(node, "name").map_or(id, |(_, n)| n).to_string();
        if let Some(colored) = child(node, "hlinitialMarking") {
            return Err(self.error(
                colored,
                "colored nets (with <hlinitialMarking>) are not supported: \
                 expected a place/transition net",
            ));
        }
        let marked = match text_of(node, "initialMarking") {
            None => false,
            Some((text_node, text)) => match text.parse::<u64>() {
                Ok(0) => false,
                Ok(1) => true,
                Ok(tokens) => {
                    return Err(self.error(
                        text_node,
                        format!(
                            "place `{name}` starts with {tokens} tokens: only 1-safe nets \
                             (at most one token per place) are supported"
                        ),
                    ));
                }
                Err(_) => {
                    return Err(self.error(
                        text_node,
                        format!(
                            "expected a number of tokens as initial marking of place `{name}`, \
                             found `{text}`"
                        ),
                    ));
                }
            },
        };
        Ok(Place {
            id,
            name,
            marked,
            node,
        })
    }

    /// Reads an `<arc>` into the pre- or postset of its transition, rejecting
    /// everything but ordinary arcs of weight 1.
    fn read_arc<'a>(
        &self,
        arc: Node<'a, '_>,
        ids: &HashMap<&str, NetNode>,
        net: &mut PetriNet<'a, '_>,
        seen: &mut HashSet<(usize, usize, bool)>,
    ) -> Result<(), LoadError> {
        let arc_id = arc.attribute("id").unwrap_or("?");
        let arc_type = arc
            .attribute("type")
            .or_else(|| child(arc, "type").and_then(|t| t.attribute("value")))
            .unwrap_or("normal");
        if arc_type != "normal" {
            return Err(self.error(
                arc,
                format!(
                    "arc `{arc_id}` is a {arc_type} arc: only ordinary arcs of weight 1 are supported"
                ),
            ));
        }
        if let Some(colored) = child(arc, "hlinscription") {
            return Err(self.error(
                colored,
                "colored nets (with <hlinscription>) are not supported: \
                 expected a place/transition net",
            ));
        }
        if let Some((text_node, text)) = text_of(arc, "inscription")
            && text != "1"
        {
            return Err(self.error(
                text_node,
                format!("arc `{arc_id}` has weight `{text}`: only arcs of weight 1 are supported"),
            ));
        }
        let lookup = |end: &str| -> Result<NetNode, LoadError> {
            let id = self.attribute(arc, end)?;
            ids.get(id).copied().ok_or_else(|| {
                self.error(
                    arc,
                    format!("arc `{arc_id}` has {end} `{id}`, which is no place or transition"),
                )
            })
        };
        let (place, transition, is_output) = match (lookup("source")?, lookup("target")?) {
            (NetNode::Place(p), NetNode::Transition(t)) => (p, t, false),
            (NetNode::Transition(t), NetNode::Place(p)) => (p, t, true),
            _ => {
                return Err(self.error(
                    arc,
                    format!("arc `{arc_id}` must connect a place and a transition"),
                ));
            }
        };
        if !seen.insert((place, transition, is_output)) {
            let (from, to) = if is_output {
                (&net.transitions[transition].name, &net.places[place].name)
            } else {
                (&net.places[place].name, &net.transitions[transition].name)
            };
            return Err(self.error(
                arc,
                format!(
                    "second arc from `{from}` to `{to}` (arc `{arc_id}`): only arcs of weight 1 \
                     are supported"
                ),
            ));
        }
        let t = &mut net.transitions[transition];
        if is_output {
            t.outputs.push(place);
        } else {
            t.inputs.push(place);
        }
        Ok(())
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
    fn build_network(&self, net: &PetriNet, units: &[Unit]) -> Result<Network, LoadError> {
        let mut builder = NetworkBuilder::new(net, units);
        for unit in units {
            let mut marked = unit.places.iter().filter(|&&p| net.places[p].marked);
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
        for (t, action) in net.transitions.iter().zip(transition_labels(net)) {
            if t.inputs.is_empty() && t.outputs.is_empty() {
                return Err(self.error(
                    t.node,
                    format!(
                        "transition `{}` has no input and no output place; such transitions \
                         are not supported",
                        t.name
                    ),
                ));
            }
            builder.add_transition(t, &action);
        }
        Ok(builder.finish())
    }
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

/// The action of every transition: its name, made unique with its id
/// where names are shared (see [`unique_names`]).
fn transition_labels(net: &PetriNet) -> Vec<String> {
    let wanted: Vec<(&str, String)> = net
        .transitions
        .iter()
        .map(|t| (t.name.as_str(), t.id.to_string()))
        .collect();
    unique_names(&wanted, &[])
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

/// Name of the process that records a second token put into a unit.
pub const SAFETY_PROCESS: &str = "1-safety";

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
    /// One process per unit.
    processes: Vec<Process>,
    /// (unit, local state) of every place.
    slot: Vec<(usize, u32)>,
    rules: Vec<SyncRule>,
    /// The safety process, created on the first overflow rule.
    safety: Option<Process>,
}

impl<'n, 'a, 'input> NetworkBuilder<'n, 'a, 'input> {
    fn new(net: &'n PetriNet<'a, 'input>, units: &'n [Unit]) -> Self {
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
                if net.places[p].marked {
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
            processes,
            slot,
            rules: Vec::new(),
            safety: None,
        }
    }

    /// Adds the moves of the next rule (the one [`NetworkBuilder::push_rule`]
    /// adds next) to `process`, under that rule's local label, and returns
    /// the process as a participant of the rule.
    fn add_moves(&mut self, process: usize, moves: &[(u32, u32)]) -> Participant {
        let label = local_label(self.rules.len());
        let lts = match self.processes.get_mut(process) {
            Some(unit) => &mut unit.lts,
            None => &mut self.safety_process().lts,
        };
        let index = lts.labels.len() as u32;
        lts.labels.push(label.clone());
        lts.transitions
            .extend(moves.iter().map(|&(source, target)| LtsTransition {
                source,
                label: index,
                target,
            }));
        Participant { process, label }
    }

    /// Adds the rule whose participants [`NetworkBuilder::add_moves`] made.
    fn push_rule(&mut self, participants: Vec<Participant>, action: &str) {
        self.rules.push(SyncRule {
            participants,
            result: action.to_string(),
        });
    }

    /// Adds the rules of net transition `t`, whose action is `action`.
    fn add_transition(&mut self, t: &Transition, action: &str) {
        let mut touched: Vec<(usize, u32, bool)> = t
            .inputs
            .iter()
            .map(|&p| (self.slot[p].0, self.slot[p].1, false))
            .chain(
                t.outputs
                    .iter()
                    .map(|&p| (self.slot[p].0, self.slot[p].1, true)),
            )
            .collect();
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
            participants.push(self.add_moves(g.unit, moves));
        }
        self.push_rule(participants, action);
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
                    participants.push(self.add_moves(g.unit, &[(*consumed, *consumed)]));
                }
            }
            if !consumes_here {
                let loops: Vec<(u32, u32)> = sources.iter().map(|&s| (s, s)).collect();
                participants.push(self.add_moves(unit, &loops));
            }
            participants.push(self.add_moves(self.units.len(), &[(0, 1)]));
            participants.sort();
            self.push_rule(participants, action);
        }
    }

    /// The process that records an overflow, created on first use.
    fn safety_process(&mut self) -> &mut Process {
        let nupn = self.net.nupn.is_some();
        self.safety.get_or_insert_with(|| {
            let message = if nupn {
                "net is not 1-safe or violates its NUPN units: the last transition of the \
                 trace puts a second token into a place or unit"
            } else {
                "net is not 1-safe: the last transition of the trace puts a second token into \
                 a place"
            };
            Process {
                name: SAFETY_PROCESS.to_string(),
                lts: Lts {
                    state_names: vec![SAFE_STATE.to_string(), UNSAFE_STATE.to_string()],
                    ..Lts::default()
                },
                error_states: vec![ErrorState {
                    state: 1,
                    kind: ErrorKind::Model(message.to_string()),
                }],
            }
        })
    }

    fn finish(mut self) -> Network {
        self.processes.extend(self.safety);
        Network {
            processes: self.processes,
            rules: self.rules,
            unmatched: UnmatchedLabels::Independent,
            monitors: Vec::new(),
        }
    }
}

//! Petri nets in PNML (the place/transition nets of the Model Checking
//! Contest), read as networks of LTSs in one of two ways (docs/FORMAT.md
//! gives the rule that picks one).
//!
//! **1-safe reading** (module `safe`), for nets that are 1-safe by declaration
//! (a NUPN section with `safe="true"`) or look it (arcs of weight 1, at most
//! one token per place initially): the places are grouped into units, the
//! NUPN units or one per place, and a unit's local state is
//! [`EMPTY_STATE`] or the one place of it that holds the token. A firing
//! that would put a second token into a unit moves the extra
//! [`SAFETY_PROCESS`] into an [`crate::model::ErrorKind::Model`] error state.
//!
//! **Place/transition reading** (module `counts`), for every other net and for
//! any net read with a place bound ([`Options::place_bound`]) or asked to be
//! read so ([`Options::counting`]: the command line's second reading of a net
//! whose 1-safe reading reached a second token in a place): every place is
//! a process whose local state is its token count, from 0 to the place's
//! bound (module `bounds`); a firing that would exceed a bound that is not proven
//! moves the extra [`BOUND_PROCESS`] into an error state naming the place.
//!
//! Either way every net transition becomes a [`SyncRule`] over the
//! processes it touches, whose result is the transition's name, so the
//! network's actions are exactly the net's transitions and its state space
//! is exactly the net's reachability graph (until an error state).
//!
//! Names come from the net and are made unique where they must be
//! (`unique_names`; docs/FORMAT.md gives the rule): transition names (the
//! actions), place names and unit names (the processes, beside the error
//! process). The local labels of the processes are the reader's own and
//! never derived from the net's names: rule `N` (its index in
//! [`Network::rules`]) is the only user of the local label `#N`
//! ([`local_label`]), in every process that takes part in it, so rules
//! cannot be confused whatever the net's names are.

mod bounds;
mod counts;
mod safe;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use roxmltree::{Document, Node};

use super::{LoadError, fresh_name, read_file};
use crate::model::{LtsTransition, Network, Participant, Process, SyncRule, UnmatchedLabels};

pub use counts::{BOUND_PROCESS, DEFAULT_PLACE_BOUND, MAX_LOCAL_TRANSITIONS, MAX_PLACE_BOUND};
pub use safe::{EMPTY_STATE, SAFE_STATE, SAFETY_PROCESS, UNSAFE_STATE};

/// Most attributes one XML element may have. PNML elements have a few;
/// the XML parser checks an element's attributes for duplicates in time
/// quadratic in their number, so documents with more are refused before
/// parsing.
pub const MAX_ATTRIBUTES: usize = 100;

/// Largest arc weight and initial marking of a place that is read
/// (2^32 - 1); larger numbers are refused where they are written.
pub const MAX_TOKENS: u64 = u32::MAX as u64;

/// The local label of rule number `rule` in every process that takes part
/// in it: `#` and the number.
pub fn local_label(rule: usize) -> String {
    format!("#{rule}")
}

/// How a net is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Read the net as a place/transition net in which no place holds more
    /// than this many tokens: places with a smaller structural bound use
    /// that, the others this one, and a firing beyond it is a model error.
    /// `None`: the 1-safe reading where the net is 1-safe by declaration or
    /// looks it, otherwise structural bounds and [`DEFAULT_PLACE_BOUND`].
    pub place_bound: Option<u32>,
    /// Read the net as a place/transition net even where it declares or
    /// looks 1-safe: places keep the bounds their invariants prove, the
    /// others get `place_bound` or [`DEFAULT_PLACE_BOUND`]. For a net whose
    /// 1-safe reading put a second token into a place.
    pub counting: bool,
}

/// Reads a PNML file as a network with the default [`Options`].
pub fn load(path: &Path) -> Result<Network, LoadError> {
    let text = read_file(path)?;
    parse(&text, path)
}

/// Parses PNML `text` with the default [`Options`]; `path` is only used in
/// error messages.
pub fn parse(text: &str, path: &Path) -> Result<Network, LoadError> {
    parse_with(text, path, Options::default())
}

/// Parses PNML `text` as `options` say; `path` is only used in error
/// messages.
pub fn parse_with(text: &str, path: &Path, options: Options) -> Result<Network, LoadError> {
    let source = Source { text, path };
    source.check_attribute_counts()?;
    let doc = Document::parse(text).map_err(|e| xml_error(path, &e))?;
    let (net, ids) = source.read_net(&doc)?;
    if options.place_bound.is_some() || options.counting || !net.starts_safe() {
        return source.build_counting_network(&net, options.place_bound, None);
    }
    if net.declared_safe() {
        return source.build_safe_network(&net, &ids, None);
    }
    if !net.unit_weights() {
        return source.build_counting_network(&net, None, None);
    }
    // It looks 1-safe: read as such unless place invariants bound every
    // place and some of them above 1 token, a net that is then read with
    // those proven bounds and no checked one.
    let structural = bounds::structural_bounds(&net);
    if bounds::proves_bounded_not_safe(&structural) {
        source.build_counting_network(&net, None, Some(structural))
    } else {
        let unproven = bounds::unbounded_places(&net, &structural);
        source.build_safe_network(&net, &ids, unproven.as_deref())
    }
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
    /// Tokens of the initial marking, at most [`MAX_TOKENS`].
    tokens: u64,
    /// The `<place>` element, to locate errors.
    node: Node<'a, 'input>,
    /// The `<text>` of its initial marking, to locate errors about it.
    marking: Option<Node<'a, 'input>>,
}

/// An arc between a place and a transition, with its weight.
#[derive(Clone, Copy)]
struct Arc {
    /// The place, by index.
    place: usize,
    /// Tokens moved, at least 1 and at most [`MAX_TOKENS`].
    weight: u64,
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
    /// Arcs from the places it consumes from.
    inputs: Vec<Arc>,
    /// Arcs to the places it produces into.
    outputs: Vec<Arc>,
}

/// The place/transition net as read from the document.
struct PetriNet<'a, 'input> {
    places: Vec<Place<'a, 'input>>,
    transitions: Vec<Transition<'a, 'input>>,
    /// The NUPN `<toolspecific>` element, if any.
    nupn: Option<Node<'a, 'input>>,
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
        if net.places.is_empty() {
            // Nothing to explore: most likely the places are misspelt or
            // in another namespace, and a verdict on an empty net would
            // hide that.
            return Err(self.error(
                net_node,
                "the net has no <place>: a place/transition net needs at least one place",
            ));
        }
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

    /// Refuses a net with a transition that has no arc (which either
    /// reading would have to turn into a rule without participants).
    fn require_arcs(&self, net: &PetriNet) -> Result<(), LoadError> {
        match net
            .transitions
            .iter()
            .find(|t| t.inputs.is_empty() && t.outputs.is_empty())
        {
            Some(t) => Err(self.error(
                t.node,
                format!(
                    "transition `{}` has no input and no output place; such transitions are \
                     not supported",
                    t.name
                ),
            )),
            None => Ok(()),
        }
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

    /// Reads a `<place>`: id, name and initial marking.
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
        let (tokens, marking) = match text_of(node, "initialMarking") {
            None => (0, None),
            Some((text_node, text)) => {
                let tokens = self.count(text_node, text, 0, || {
                    format!("the initial marking of place `{name}`")
                })?;
                (tokens, Some(text_node))
            }
        };
        Ok(Place {
            id,
            name,
            tokens,
            node,
            marking,
        })
    }

    /// Reads `text` (found in `node`) as a number of tokens from `least` to
    /// [`MAX_TOKENS`]; `what` names it in errors.
    fn count(
        &self,
        node: Node,
        text: &str,
        least: u64,
        what: impl Fn() -> String,
    ) -> Result<u64, LoadError> {
        let kind = if least == 0 {
            "a whole number of tokens"
        } else {
            "a positive whole number"
        };
        let too_large = match text.parse::<u64>() {
            Ok(n) if (least..=MAX_TOKENS).contains(&n) => return Ok(n),
            Ok(n) => n > MAX_TOKENS,
            Err(e) => *e.kind() == std::num::IntErrorKind::PosOverflow,
        };
        let message = if too_large {
            format!(
                "{} is {text}, more than {MAX_TOKENS}, the most read",
                what()
            )
        } else {
            format!("{} is `{text}`: expected {kind}", what())
        };
        Err(self.error(node, message))
    }

    /// Reads an `<arc>` into the pre- or postset of its transition, with its
    /// weight, rejecting everything but ordinary arcs.
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
                    "arc `{arc_id}` is a {arc_type} arc: only ordinary arcs are supported \
                     (no inhibitor, reset or read arcs)"
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
        let weight = match text_of(arc, "inscription") {
            None => 1,
            Some((text_node, text)) => self.count(text_node, text, 1, || {
                format!("the weight of arc `{arc_id}`")
            })?,
        };
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
                    "second arc from `{from}` to `{to}` (arc `{arc_id}`): give one arc whose \
                     weight is their sum"
                ),
            ));
        }
        let t = &mut net.transitions[transition];
        let arc = Arc { place, weight };
        if is_output {
            t.outputs.push(arc);
        } else {
            t.inputs.push(arc);
        }
        Ok(())
    }
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

impl PetriNet<'_, '_> {
    /// Whether no place starts with more than one token.
    fn starts_safe(&self) -> bool {
        self.places.iter().all(|p| p.tokens <= 1)
    }

    /// Whether a NUPN section declares the net safe (`<structure
    /// safe="true">`).
    fn declared_safe(&self) -> bool {
        self.nupn
            .and_then(|nupn| child(nupn, "structure"))
            .and_then(|structure| structure.attribute("safe"))
            == Some("true")
    }

    /// Whether every arc has weight 1.
    fn unit_weights(&self) -> bool {
        self.transitions
            .iter()
            .all(|t| t.inputs.iter().chain(&t.outputs).all(|arc| arc.weight == 1))
    }
}

/// Processes and rules under construction: the net's processes, then, once
/// some rule needs it, the one process that records model errors.
struct RuleSet {
    processes: Vec<Process>,
    rules: Vec<SyncRule>,
}

impl RuleSet {
    fn new(processes: Vec<Process>) -> Self {
        RuleSet {
            processes,
            rules: Vec::new(),
        }
    }

    /// Adds the moves of the next rule (the one [`RuleSet::push_rule`] adds
    /// next) to `process`, under that rule's local label, and returns the
    /// process as a participant of the rule.
    fn add_moves(
        &mut self,
        process: usize,
        moves: impl IntoIterator<Item = (u32, u32)>,
    ) -> Participant {
        let label = local_label(self.rules.len());
        let lts = &mut self.processes[process].lts;
        let index = lts.labels.len() as u32;
        lts.labels.push(label.clone());
        lts.transitions
            .extend(moves.into_iter().map(|(source, target)| LtsTransition {
                source,
                label: index,
                target,
            }));
        Participant { process, label }
    }

    /// Adds the rule whose participants [`RuleSet::add_moves`] made.
    fn push_rule(&mut self, participants: Vec<Participant>, action: &str) {
        self.rules.push(SyncRule {
            participants,
            result: action.to_string(),
        });
    }

    fn finish(self) -> Network {
        Network {
            processes: self.processes,
            rules: self.rules,
            unmatched: UnmatchedLabels::Independent,
            monitors: Vec::new(),
        }
    }
}

//! The native `.net` format: a network of processes, its synchronisation
//! rules and its property monitors, written by hand. `docs/FORMAT.md` is
//! the reference; in short:
//!
//! ```text
//! process P { init idle; idle -work-> busy -done-> idle; }
//! process Q from "q.aut";
//! sync done : P, Q;                 // P and Q both do `done`
//! <work, _> -> start;               // CADP vector, one entry per process
//! unmatched independent;            // the default; or `blocked`
//! property safe { init ok; error bad; ok -"done|start"-> bad; }
//! ```
//!
//! Parsing is in two steps: nom parsers build a syntax tree that keeps the
//! position of every name, then a resolver (`Resolver`) checks names and builds the
//! [`Network`], so every error points at the text it is about.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use nom::bytes::complete::{tag, take_while1};
use nom::error::{ErrorKind as NomErrorKind, ParseError};
use nom::{IResult, Parser};

use super::{LoadError, aut, line_column, read_file};
use crate::model::{
    ErrorKind, ErrorState, Lts, LtsTransition, Monitor, MonitorTransition, Network, Participant,
    Process, SyncRule, UnmatchedLabels,
};

/// Reads and parses a `.net` file.
pub fn load(path: &Path) -> Result<Network, LoadError> {
    parse(&read_file(path)?, path)
}

/// Parses `.net` text. `path` names the file in error messages, and `.aut`
/// includes are resolved relative to its directory.
pub fn parse(text: &str, path: &Path) -> Result<Network, LoadError> {
    let items = located(items(text), text, path)?;
    Resolver { text, path }.network(items)
}

/// Renders a network as `.net` text that [`parse`] reads back to an
/// equivalent network (same processes, states, transitions, error states,
/// rules and monitors). Names that are not plain identifiers are quoted.
/// Process error states of kind [`ErrorKind::Property`] (which only a
/// network already joined with its monitor has) are not written.
pub fn write(network: &Network) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail, so the results of writeln! are ignored.
    let _ = writeln!(out, "// Written by warpcheck.");
    if network.unmatched == UnmatchedLabels::Blocked {
        let _ = writeln!(out, "unmatched blocked;");
    }
    for process in &network.processes {
        let lts = &process.lts;
        let _ = writeln!(out, "\nprocess {} {{", quote(&process.name));
        write_states(&mut out, &lts.state_names, lts.initial);
        for t in &lts.transitions {
            let _ = writeln!(
                out,
                "  {} -{}-> {};",
                quote(&lts.state_names[t.source as usize]),
                quote(&lts.labels[t.label as usize]),
                quote(&lts.state_names[t.target as usize])
            );
        }
        for error in &process.error_states {
            if let ErrorKind::Model(message) = &error.kind {
                let _ = writeln!(
                    out,
                    "  error {} {};",
                    quote(&lts.state_names[error.state as usize]),
                    quote_always(message)
                );
            }
        }
        out.push_str("}\n");
    }
    if !network.rules.is_empty() {
        out.push('\n');
    }
    for rule in &network.rules {
        write_rule(&mut out, network, rule);
    }
    for monitor in &network.monitors {
        let _ = writeln!(out, "\nproperty {} {{", quote(&monitor.name));
        write_states(&mut out, &monitor.state_names, monitor.initial);
        let errors: Vec<String> = monitor
            .error_states
            .iter()
            .map(|&s| quote(&monitor.state_names[s as usize]))
            .collect();
        let _ = writeln!(out, "  error {};", errors.join(", "));
        for t in &monitor.transitions {
            let _ = writeln!(
                out,
                "  {} -{}-> {};",
                quote(&monitor.state_names[t.source as usize]),
                quote_always(t.pattern_source()),
                quote(&monitor.state_names[t.target as usize])
            );
        }
        out.push_str("}\n");
    }
    out
}

fn write_states(out: &mut String, names: &[String], initial: u32) {
    let names: Vec<String> = names.iter().map(|n| quote(n)).collect();
    let _ = writeln!(out, "  states {};", names.join(", "));
    let _ = writeln!(out, "  init {};", names[initial as usize]);
}

/// A rule in the by-name form when all participants share a label, in the
/// vector form otherwise.
fn write_rule(out: &mut String, network: &Network, rule: &SyncRule) {
    let first = rule.participants.first().map_or("", |p| p.label.as_str());
    if rule.participants.iter().all(|p| p.label == first) {
        let names: Vec<String> = rule
            .participants
            .iter()
            .map(|p| quote(&network.processes[p.process].name))
            .collect();
        let _ = write!(out, "sync {} : {}", quote(first), names.join(", "));
        if rule.result != first {
            let _ = write!(out, " -> {}", quote(&rule.result));
        }
    } else {
        let mut entries = vec!["_".to_string(); network.processes.len()];
        for p in &rule.participants {
            entries[p.process] = quote(&p.label);
        }
        let _ = write!(out, "<{}> -> {}", entries.join(", "), quote(&rule.result));
    }
    out.push_str(";\n");
}

/// Words with a meaning at the start of a statement; as names they must be
/// quoted.
const KEYWORDS: [&str; 10] = [
    "process",
    "property",
    "sync",
    "unmatched",
    "states",
    "init",
    "error",
    "from",
    "independent",
    "blocked",
];

/// Characters of an unquoted name or label.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// `name` bare when it reads back as itself, quoted otherwise.
fn quote(name: &str) -> String {
    if !name.is_empty()
        && name != "_"
        && name.chars().all(is_name_char)
        && !KEYWORDS.contains(&name)
    {
        name.to_string()
    } else {
        quote_always(name)
    }
}

/// `text` as a quoted string, escaping `\`, `"` and line breaks, as
/// `.net` files write strings (traces quote names the same way).
pub fn quote_always(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------
// Syntax: nom parsers producing positioned items.
// ---------------------------------------------------------------------

/// A syntax error: the unparsed input where it happened and what was
/// expected there. Shared with the EXP reader.
#[derive(Debug)]
pub(super) struct Syntax<'a> {
    /// The input from the offending position on.
    pub(super) rest: &'a str,
    /// The message shown to the user.
    pub(super) message: String,
}

impl<'a> ParseError<&'a str> for Syntax<'a> {
    fn from_error_kind(input: &'a str, kind: NomErrorKind) -> Self {
        Syntax {
            rest: input,
            message: format!("unexpected input ({})", kind.description()),
        }
    }

    fn append(_: &'a str, _: NomErrorKind, other: Self) -> Self {
        other
    }
}

/// Result of the parsers of this module and of the EXP reader.
pub(super) type PResult<'a, T> = IResult<&'a str, T, Syntax<'a>>;

/// A failure (no backtracking) at `rest` with `message`.
pub(super) fn fail<'a, T>(rest: &'a str, message: impl Into<String>) -> PResult<'a, T> {
    Err(nom::Err::Failure(Syntax {
        rest,
        message: message.into(),
    }))
}

/// The value of a whole-file parse, or its syntax error located in `text`.
pub(super) fn located<T>(result: PResult<'_, T>, text: &str, path: &Path) -> Result<T, LoadError> {
    match result {
        Ok((_, value)) => Ok(value),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err(LoadError::at(path, text, offset(text, e.rest), e.message))
        }
        Err(nom::Err::Incomplete(_)) => Err(LoadError::at(
            path,
            text,
            text.len(),
            "unexpected end of file",
        )),
    }
}

/// Byte offset of `rest` in `text`, of which it is a suffix.
pub(super) fn offset(text: &str, rest: &str) -> usize {
    text.len() - rest.len()
}

/// A double-quoted string at the start of `input`: `\"`, `\\` and `\n` are
/// escapes, any other backslash stands for itself (so regular expressions
/// such as `"a\.b"` need no doubling). Strings end on the line they start.
fn quoted(input: &str) -> PResult<'_, String> {
    let (body, _) = tag("\"").parse(input)?;
    let mut value = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((&body[i + 1..], value)),
            '\n' => break,
            '\\' => match chars.clone().next() {
                Some((_, e @ ('"' | '\\'))) => {
                    value.push(e);
                    chars.next();
                }
                Some((_, 'n')) => {
                    value.push('\n');
                    chars.next();
                }
                _ => value.push('\\'),
            },
            c => value.push(c),
        }
    }
    fail(
        input,
        "unterminated string: expected `\"` before the end of the line",
    )
}

/// A name or label as written, and where it starts.
#[derive(Debug, Clone)]
pub(super) struct Name<'a> {
    /// The text, unquoted.
    pub(super) text: String,
    /// Where it starts in the input.
    pub(super) at: &'a str,
    /// Whether it was written as a quoted string.
    pub(super) quoted: bool,
}

/// Skips white space, `// line` and `/* block */` comments.
fn skip(mut input: &str) -> PResult<'_, ()> {
    loop {
        input = input.trim_start();
        if let Some(rest) = input.strip_prefix("//") {
            input = rest.find('\n').map_or("", |i| &rest[i..]);
        } else if let Some(rest) = input.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => input = &rest[end + 2..],
                None => return fail(input, "unterminated comment: expected `*/`"),
            }
        } else {
            return Ok((input, ()));
        }
    }
}

/// The symbol `symbol`, or a failure "expected `symbol` {context}".
fn expect<'a>(input: &'a str, symbol: &str, context: &str) -> PResult<'a, ()> {
    let (rest, _) = skip(input)?;
    match tag::<_, _, Syntax>(symbol).parse(rest) {
        Ok((after, _)) => Ok((after, ())),
        Err(_) => fail(rest, format!("expected `{symbol}` {context}")),
    }
}

/// After white space: the input past `symbol` when it comes next.
fn peek_symbol<'a>(input: &'a str, symbol: &str) -> PResult<'a, Option<&'a str>> {
    let (rest, _) = skip(input)?;
    Ok((rest, rest.strip_prefix(symbol)))
}

/// A bare or quoted name, or a failure saying `expected`.
fn name<'a>(input: &'a str, expected: &str) -> PResult<'a, Name<'a>> {
    let (at, _) = skip(input)?;
    name_at(at, expected, is_name_char)
}

/// At `at` (white space already skipped): a quoted string, or a run of
/// characters for which `bare` holds, cut before any `->` (which ends a
/// label); otherwise a failure saying `expected`. Shared by the text
/// formats, which differ only in their bare characters and comments.
pub(super) fn name_at<'a>(
    at: &'a str,
    expected: &str,
    bare: fn(char) -> bool,
) -> PResult<'a, Name<'a>> {
    if at.starts_with('"') {
        let (rest, text) = quoted(at)?;
        return Ok((
            rest,
            Name {
                text,
                at,
                quoted: true,
            },
        ));
    }
    let taken = match take_while1::<_, _, Syntax>(bare).parse(at) {
        Ok((_, taken)) => taken,
        Err(_) => return fail(at, expected.to_string()),
    };
    let text = taken.find("->").map_or(taken, |end| &taken[..end]);
    if text.is_empty() {
        return fail(at, expected.to_string());
    }
    Ok((
        &at[text.len()..],
        Name {
            text: text.to_string(),
            at,
            quoted: false,
        },
    ))
}

/// `NAME (, NAME)*`.
fn name_list<'a>(input: &'a str, expected: &str) -> PResult<'a, Vec<Name<'a>>> {
    let (mut input, first) = name(input, expected)?;
    let mut names = vec![first];
    while let (_, Some(rest)) = peek_symbol(input, ",")? {
        let (rest, next) = name(rest, expected)?;
        names.push(next);
        input = rest;
    }
    Ok((input, names))
}

/// What a body defines: a process or a property monitor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    Process,
    Property,
}

impl BodyKind {
    fn word(self) -> &'static str {
        match self {
            BodyKind::Process => "process",
            BodyKind::Property => "property",
        }
    }
}

/// `STATE -LABEL-> STATE` as written.
#[derive(Debug)]
struct TransitionItem<'a> {
    source: Name<'a>,
    label: Name<'a>,
    target: Name<'a>,
}

/// The statements between the braces of a process or property.
#[derive(Debug, Default)]
struct Body<'a> {
    /// The `states` list, when the body has one.
    states: Option<Vec<Name<'a>>>,
    init: Option<Name<'a>>,
    errors: Vec<Name<'a>>,
    /// Error states of a process, with the message reaching one reports.
    model_errors: Vec<(Name<'a>, String)>,
    transitions: Vec<TransitionItem<'a>>,
}

/// Where a process's LTS comes from.
#[derive(Debug)]
enum ProcessSource<'a> {
    Inline(Body<'a>),
    File(Name<'a>),
}

/// One top-level statement.
#[derive(Debug)]
enum Item<'a> {
    Process {
        name: Name<'a>,
        source: ProcessSource<'a>,
    },
    Property {
        name: Name<'a>,
        body: Body<'a>,
    },
    Sync {
        label: Name<'a>,
        processes: Vec<Name<'a>>,
        result: Option<Name<'a>>,
    },
    Vector {
        at: &'a str,
        entries: Vec<Option<Name<'a>>>,
        result: Option<Name<'a>>,
    },
    Unmatched(UnmatchedLabels),
}

/// The whole file as items.
fn items(text: &str) -> PResult<'_, Vec<Item<'_>>> {
    let mut input = text;
    let mut items = Vec::new();
    loop {
        let (at, _) = skip(input)?;
        if at.is_empty() {
            return Ok((at, items));
        }
        let (rest, item) = item(at)?;
        items.push(item);
        input = rest;
    }
}

const ITEM_EXPECTED: &str =
    "expected `process`, `property`, `sync`, `unmatched` or a vector `<...> -> LABEL`";

fn item(at: &str) -> PResult<'_, Item<'_>> {
    if let Some(rest) = at.strip_prefix('<') {
        return vector(at, rest);
    }
    let (rest, word) = name(at, ITEM_EXPECTED)?;
    if word.quoted {
        return fail(at, ITEM_EXPECTED);
    }
    match word.text.as_str() {
        "process" => process(rest),
        "property" => {
            let (rest, name) = name(rest, "expected a property name after `property`")?;
            let (rest, _) = expect(rest, "{", &format!("after `property {}`", name.text))?;
            let (rest, body) = body(rest, BodyKind::Property, &name.text)?;
            Ok((rest, Item::Property { name, body }))
        }
        "sync" => sync(rest),
        "unmatched" => {
            let (rest, mode) = name(
                rest,
                "expected `independent` or `blocked` after `unmatched`",
            )?;
            let unmatched = match mode.text.as_str() {
                "independent" if !mode.quoted => UnmatchedLabels::Independent,
                "blocked" if !mode.quoted => UnmatchedLabels::Blocked,
                _ => {
                    return fail(
                        mode.at,
                        "expected `independent` or `blocked` after `unmatched`",
                    );
                }
            };
            let (rest, _) = expect(rest, ";", &format!("after `unmatched {}`", mode.text))?;
            Ok((rest, Item::Unmatched(unmatched)))
        }
        _ => fail(at, ITEM_EXPECTED),
    }
}

fn process(input: &str) -> PResult<'_, Item<'_>> {
    let (rest, process_name) = name(input, "expected a process name after `process`")?;
    let expected = format!(
        "expected `{{` or `from \"FILE.aut\"` after `process {}`",
        process_name.text
    );
    let (at, _) = skip(rest)?;
    if let Some(rest) = at.strip_prefix('{') {
        let (rest, body) = body(rest, BodyKind::Process, &process_name.text)?;
        return Ok((
            rest,
            Item::Process {
                name: process_name,
                source: ProcessSource::Inline(body),
            },
        ));
    }
    let (rest, word) = name(at, &expected)?;
    if word.quoted || word.text != "from" {
        return fail(at, expected);
    }
    let (rest, file) = name(rest, "expected a file name after `from`")?;
    let (rest, _) = expect(rest, ";", &format!("after `from {}`", file.text))?;
    Ok((
        rest,
        Item::Process {
            name: process_name,
            source: ProcessSource::File(file),
        },
    ))
}

/// `sync LABEL : P, Q (-> RESULT)? ;` after `sync`.
fn sync(input: &str) -> PResult<'_, Item<'_>> {
    let (rest, label) = name(input, "expected a label after `sync`")?;
    let (rest, _) = expect(rest, ":", &format!("after `sync {}`", label.text))?;
    let (rest, processes) = name_list(rest, "expected a process name")?;
    let (rest, result) = optional_result(rest)?;
    let (rest, _) = expect(rest, ";", "after the processes of a `sync` rule")?;
    Ok((
        rest,
        Item::Sync {
            label,
            processes,
            result,
        },
    ))
}

/// `<ENTRY, ...> (-> RESULT)? ;`, `input` being just past the `<`.
fn vector<'a>(at: &'a str, input: &'a str) -> PResult<'a, Item<'a>> {
    let (rest, names) = name_list(input, "expected a label or `_` in a vector")?;
    let entries = names
        .into_iter()
        .map(|n| (n.quoted || n.text != "_").then_some(n))
        .collect();
    let (rest, _) = expect(rest, ">", "or `,` after a vector entry")?;
    let (rest, result) = optional_result(rest)?;
    let (rest, _) = expect(rest, ";", "after a vector")?;
    Ok((
        rest,
        Item::Vector {
            at,
            entries,
            result,
        },
    ))
}

/// `-> RESULT`, when present.
fn optional_result(input: &str) -> PResult<'_, Option<Name<'_>>> {
    match peek_symbol(input, "->")? {
        (_, Some(rest)) => {
            let (rest, result) = name(rest, "expected a result label after `->`")?;
            Ok((rest, Some(result)))
        }
        (rest, None) => Ok((rest, None)),
    }
}

/// The statements of a process or property up to and including `}`.
fn body<'a>(mut input: &'a str, kind: BodyKind, owner: &str) -> PResult<'a, Body<'a>> {
    let mut body = Body::default();
    let expected = match kind {
        BodyKind::Process => {
            "expected `states`, `init`, `error`, a transition `STATE -LABEL-> STATE` or `}`"
        }
        BodyKind::Property => {
            "expected `states`, `init`, `error`, a transition `STATE -\"REGEX\"-> STATE` or `}`"
        }
    };
    loop {
        let (at, _) = skip(input)?;
        if let Some(rest) = at.strip_prefix('}') {
            return Ok((rest, body));
        }
        if at.is_empty() {
            return fail(
                at,
                format!("expected `}}` to close {} `{owner}`", kind.word()),
            );
        }
        let (rest, first) = name(at, expected)?;
        let keyword = if first.quoted {
            ""
        } else {
            first.text.as_str()
        };
        input = match keyword {
            "states" => {
                if body.states.is_some() {
                    return fail(at, format!("`states` of `{owner}` is already declared"));
                }
                let (rest, list) = name_list(rest, "expected a state name")?;
                body.states = Some(list);
                expect(rest, ";", "after the `states` list")?.0
            }
            "init" => {
                if body.init.is_some() {
                    return fail(at, format!("the initial state of `{owner}` is already set"));
                }
                let (rest, state) = name(rest, "expected a state name after `init`")?;
                body.init = Some(state);
                expect(rest, ";", "after the initial state")?.0
            }
            "error" if kind == BodyKind::Process => {
                let (rest, state) = name(rest, "expected a state name after `error`")?;
                let (at, _) = skip(rest)?;
                if !at.starts_with('"') {
                    return fail(
                        at,
                        format!(
                            "expected a quoted message after `error {}` (in a process: `error STATE \"why\";`)",
                            state.text
                        ),
                    );
                }
                let (rest, message) = quoted(at)?;
                body.model_errors.push((state, message));
                expect(rest, ";", "after the error message")?.0
            }
            "error" => {
                let (rest, list) = name_list(rest, "expected a state name after `error`")?;
                body.errors.extend(list);
                expect(rest, ";", "after the error states")?.0
            }
            _ => transition_chain(rest, first, &mut body.transitions)?.0,
        };
    }
}

/// `-LABEL-> STATE` repeated after `source`, then `;`.
fn transition_chain<'a>(
    mut input: &'a str,
    mut source: Name<'a>,
    transitions: &mut Vec<TransitionItem<'a>>,
) -> PResult<'a, ()> {
    loop {
        let (rest, _) = expect(
            input,
            "-",
            &format!("and a label after state `{}`", source.text),
        )?;
        let (rest, label) = name(rest, "expected a label after `-`")?;
        let (rest, _) = expect(rest, "->", &format!("after label `{}`", label.text))?;
        let (rest, target) = name(rest, "expected a target state after `->`")?;
        transitions.push(TransitionItem {
            source,
            label,
            target: target.clone(),
        });
        let (at, _) = skip(rest)?;
        if let Some(rest) = at.strip_prefix(';') {
            return Ok((rest, ()));
        }
        if !at.starts_with('-') {
            return fail(at, format!("expected `;` after state `{}`", target.text));
        }
        source = target;
        input = at;
    }
}

// ---------------------------------------------------------------------
// Meaning: names resolved, network built.
// ---------------------------------------------------------------------

/// Turns items into a network, reporting errors at their place in `text`.
struct Resolver<'t> {
    text: &'t str,
    path: &'t Path,
}

impl Resolver<'_> {
    fn error(&self, at: &str, message: impl Into<String>) -> LoadError {
        LoadError::at(self.path, self.text, offset(self.text, at), message)
    }

    fn network<'a>(&self, items: Vec<Item<'a>>) -> Result<Network, LoadError> {
        let mut network = Network::default();
        // First definition of every process and property name.
        let mut defined: HashMap<String, &'a str> = HashMap::new();
        let mut define = |name: &Name<'a>| match defined.get(&name.text) {
            Some(first) => Err(self.error(
                name.at,
                format!(
                    "duplicate name `{}`: already defined at line {}",
                    name.text,
                    line_column(self.text, offset(self.text, first)).0
                ),
            )),
            None => {
                defined.insert(name.text.clone(), name.at);
                Ok(())
            }
        };
        let mut rules = Vec::new();
        for item in items {
            match item {
                Item::Process { name, source } => {
                    define(&name)?;
                    let (lts, error_states) = match source {
                        ProcessSource::Inline(body) => self.lts(&name, &body)?,
                        ProcessSource::File(file) => {
                            (include_aut(self.path, self.text, &file)?, Vec::new())
                        }
                    };
                    network.processes.push(Process {
                        name: name.text,
                        lts,
                        error_states,
                    });
                }
                Item::Property { name, body } => {
                    define(&name)?;
                    network.monitors.push(self.monitor(name, &body)?);
                }
                Item::Unmatched(mode) => network.unmatched = mode,
                rule => rules.push(rule),
            }
        }
        if network.processes.is_empty() {
            return Err(LoadError::invalid(
                self.path,
                "no process defined: a network needs at least one `process`",
            ));
        }
        let process_index: HashMap<&str, usize> = network
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.as_str(), i))
            .collect();
        for rule in rules {
            let rule = match rule {
                Item::Sync {
                    label,
                    processes,
                    result,
                } => self.sync_rule(&process_index, label, &processes, result)?,
                Item::Vector {
                    at,
                    entries,
                    result,
                } => self.vector_rule(network.processes.len(), at, entries, result)?,
                _ => continue,
            };
            network.rules.push(rule);
        }
        Ok(network)
    }

    fn sync_rule(
        &self,
        process_index: &HashMap<&str, usize>,
        label: Name,
        processes: &[Name],
        result: Option<Name>,
    ) -> Result<SyncRule, LoadError> {
        let mut participants: Vec<Participant> = Vec::with_capacity(processes.len());
        let mut listed = HashSet::with_capacity(processes.len());
        for name in processes {
            let &process = process_index
                .get(name.text.as_str())
                .ok_or_else(|| self.error(name.at, format!("unknown process `{}`", name.text)))?;
            if !listed.insert(process) {
                return Err(self.error(
                    name.at,
                    format!("process `{}` is listed twice in this rule", name.text),
                ));
            }
            participants.push(Participant {
                process,
                label: label.text.clone(),
            });
        }
        participants.sort();
        Ok(SyncRule {
            participants,
            result: result.map_or(label.text, |r| r.text),
        })
    }

    fn vector_rule(
        &self,
        process_count: usize,
        at: &str,
        entries: Vec<Option<Name>>,
        result: Option<Name>,
    ) -> Result<SyncRule, LoadError> {
        if entries.len() != process_count {
            return Err(self.error(
                at,
                format!(
                    "vector has {} entries but the network has {} processes (one entry per process, `_` for those not taking part)",
                    entries.len(),
                    process_count
                ),
            ));
        }
        let participants: Vec<Participant> = entries
            .into_iter()
            .enumerate()
            .filter_map(|(process, entry)| {
                entry.map(|label| Participant {
                    process,
                    label: label.text,
                })
            })
            .collect();
        let result =
            vector_result(&participants, result.map(|r| r.text)).map_err(|m| self.error(at, m))?;
        Ok(SyncRule {
            participants,
            result,
        })
    }

    /// The LTS of an inline process and its error states.
    fn lts(&self, owner: &Name, body: &Body) -> Result<(Lts, Vec<ErrorState>), LoadError> {
        let states = self.states(owner, body, BodyKind::Process)?;
        let mut lts = Lts {
            initial: states.initial,
            ..Lts::default()
        };
        let mut label_ids: HashMap<&str, u32> = HashMap::new();
        for t in &body.transitions {
            let label = *label_ids.entry(&t.label.text).or_insert_with(|| {
                lts.labels.push(t.label.text.clone());
                (lts.labels.len() - 1) as u32
            });
            lts.transitions.push(LtsTransition {
                source: states.number(self, owner, &t.source)?,
                label,
                target: states.number(self, owner, &t.target)?,
            });
        }
        let mut error_states = Vec::with_capacity(body.model_errors.len());
        for (state, message) in &body.model_errors {
            error_states.push(ErrorState {
                state: states.number(self, owner, state)?,
                kind: ErrorKind::Model(message.clone()),
            });
        }
        lts.state_names = states.names;
        Ok((lts, error_states))
    }

    fn monitor(&self, owner: Name, body: &Body) -> Result<Monitor, LoadError> {
        let states = self.states(&owner, body, BodyKind::Property)?;
        if body.errors.is_empty() {
            return Err(self.error(
                owner.at,
                format!(
                    "property `{}` has no error state: add `error STATE;`",
                    owner.text
                ),
            ));
        }
        let mut error_states = Vec::with_capacity(body.errors.len());
        for e in &body.errors {
            error_states.push(states.number(self, &owner, e)?);
        }
        error_states.sort_unstable();
        error_states.dedup();
        let mut transitions = Vec::with_capacity(body.transitions.len());
        for t in &body.transitions {
            let source = states.number(self, &owner, &t.source)?;
            let target = states.number(self, &owner, &t.target)?;
            let transition =
                MonitorTransition::new(source, &t.label.text, target).map_err(|e| {
                    self.error(
                        t.label.at,
                        format!(
                            "invalid regular expression `{}`: {}",
                            t.label.text,
                            regex_reason(&e)
                        ),
                    )
                })?;
            transitions.push(transition);
        }
        Ok(Monitor {
            name: owner.text,
            state_names: states.names,
            initial: states.initial,
            error_states,
            transitions,
        })
    }

    /// The states of a body: its `states` list when it has one, otherwise
    /// the initial state followed by the others in order of appearance.
    fn states(&self, owner: &Name, body: &Body, kind: BodyKind) -> Result<States, LoadError> {
        let Some(init) = &body.init else {
            return Err(self.error(
                owner.at,
                format!(
                    "{} `{}` has no initial state: add `init STATE;`",
                    kind.word(),
                    owner.text
                ),
            ));
        };
        let mut states = States {
            names: Vec::new(),
            numbers: HashMap::new(),
            declared: body.states.is_some(),
            initial: 0,
        };
        match &body.states {
            Some(list) => {
                for name in list {
                    if !states.add(&name.text) {
                        return Err(self.error(
                            name.at,
                            format!(
                                "state `{}` is declared twice in {} `{}`",
                                name.text,
                                kind.word(),
                                owner.text
                            ),
                        ));
                    }
                }
            }
            None => {
                states.add(&init.text);
                for t in &body.transitions {
                    states.add(&t.source.text);
                    states.add(&t.target.text);
                }
                for e in body
                    .errors
                    .iter()
                    .chain(body.model_errors.iter().map(|(e, _)| e))
                {
                    states.add(&e.text);
                }
            }
        }
        states.initial = states.number(self, owner, init)?;
        Ok(states)
    }
}

/// The states of one process or monitor, by name.
struct States {
    names: Vec<String>,
    numbers: HashMap<String, u32>,
    /// Whether a `states` list fixed them (then other names are errors).
    declared: bool,
    initial: u32,
}

impl States {
    /// Adds `name`; false when it already exists.
    fn add(&mut self, name: &str) -> bool {
        if self.numbers.contains_key(name) {
            return false;
        }
        self.numbers
            .insert(name.to_string(), self.names.len() as u32);
        self.names.push(name.to_string());
        true
    }

    fn number(&self, resolver: &Resolver, owner: &Name, state: &Name) -> Result<u32, LoadError> {
        self.numbers.get(&state.text).copied().ok_or_else(|| {
            let hint = if self.declared {
                "; it is not in the `states` list"
            } else {
                ""
            };
            resolver.error(
                state.at,
                format!("unknown state `{}` in `{}`{hint}", state.text, owner.text),
            )
        })
    }
}

/// The LTS of the `.aut` file that `file` names, relative to the directory
/// of `path`, the including file whose `text` locates errors. A file that
/// cannot be read is reported at `file`. Shared with the EXP reader.
pub(super) fn include_aut(path: &Path, text: &str, file: &Name) -> Result<Lts, LoadError> {
    let full = path.parent().unwrap_or(Path::new("")).join(&file.text);
    aut::load_lts(&full).map_err(|e| match e {
        LoadError::Io { source, .. } => LoadError::at(
            path,
            text,
            offset(text, file.at),
            format!("cannot read `{}`: {source}", full.display()),
        ),
        located => located,
    })
}

/// The last line of a regex error (the reason, without the caret drawing).
fn regex_reason(error: &regex::Error) -> String {
    let text = error.to_string();
    let last = text.lines().last().unwrap_or("").trim();
    last.strip_prefix("error: ").unwrap_or(last).to_string()
}

/// The result of a vector: `result` when written, otherwise the label all
/// participants share; or why the vector is wrong. Shared with the EXP
/// reader, whose vectors follow the same rule.
pub(super) fn vector_result(
    participants: &[Participant],
    result: Option<String>,
) -> Result<String, String> {
    let Some(first) = participants.first() else {
        return Err("vector has no participant: every entry is `_`".to_string());
    };
    if let Some(result) = result {
        return Ok(result);
    }
    if let Some(other) = participants.iter().find(|p| p.label != first.label) {
        return Err(format!(
            "vector labels differ (`{}` and `{}`): add `-> RESULT` to name the result",
            first.label, other.label
        ));
    }
    Ok(first.label.clone())
}

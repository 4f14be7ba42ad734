//! PRISM's explicit files: transitions (`.tra`), labels (`.lab`) and state
//! rewards (`.srew`), as PRISM's `-exportmodel` and Storm write them and
//! `-importmodel` reads them, plain or gzip-compressed.
//!
//! * `.tra`: a header `STATES TRANSITIONS` and lines `SOURCE TARGET VALUE`
//!   for a DTMC or CTMC; `STATES CHOICES TRANSITIONS` and lines
//!   `SOURCE CHOICE TARGET PROBABILITY` for an MDP, `CHOICE` numbering the
//!   choices of each state from 0. Lines may come in any order; they are
//!   grouped by source (and choice), each group in file order.
//! * `.lab`: a line of declarations `0="init" 1="deadlock" ...`, then lines
//!   `STATE: LABEL LABEL ...` naming declared label indices.
//! * `.srew`: a header `STATES ENTRIES` and lines `STATE VALUE`.
//!
//! A `.tra` file does not say whether it is a DTMC or a CTMC: see [`load`].
//! Lines are scanned as bytes, in parallel chunks for `.tra`, without an
//! allocation per line; values are parsed by `str::parse` (correctly
//! rounded).

use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use rayon::prelude::*;

use super::aut::{next_nonblank_line, split_at_lines};
use super::{LoadError, read_explicit};
use crate::explicit::{
    ExplicitModel, MAX_STATES, MarkovChain, Mdp, ModelType, PROBABILITY_TOLERANCE, ProbModel,
    StateLabels, StateRewards,
};

/// Reads a model from PRISM explicit files: the transitions of `tra`, the
/// labels of `lab` (by default the `.lab` or `.lab.gz` beside `tra`, when
/// there is one) and the state rewards of the `.srew` or `.srew.gz` beside
/// `tra`, when there is one.
///
/// The model is of the type `kind` when given (a DTMC must then have rows
/// summing to 1); otherwise an MDP when the header has three numbers, else
/// a DTMC when every non-empty row sums to 1 within
/// [`PROBABILITY_TOLERANCE`], else a CTMC. The initial state is the one
/// state labelled `init`, or state 0 without a label file.
pub fn load(
    tra: &Path,
    lab: Option<&Path>,
    kind: Option<ModelType>,
) -> Result<ProbModel, LoadError> {
    let mut model = parse_tra(&read_explicit(tra)?, tra, kind)?;
    let states = model.states();
    let lab = match lab {
        Some(lab) => Some(lab.to_path_buf()),
        None => sibling(tra, "lab"),
    };
    let labels = match &lab {
        Some(lab) => {
            let labels = parse_lab(&read_explicit(lab)?, lab, states)?;
            let initial = match labels.get("init") {
                Some([initial]) => *initial,
                Some(many) => {
                    return Err(LoadError::invalid(
                        lab,
                        format!(
                            "{} states are labelled \"init\"; exactly one initial state is needed",
                            many.len()
                        ),
                    ));
                }
                None => {
                    return Err(LoadError::invalid(
                        lab,
                        "no label \"init\" is declared; it names the initial state",
                    ));
                }
            };
            match &mut model {
                ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => chain.initial = initial,
                ExplicitModel::Mdp(mdp) => mdp.initial = initial,
            }
            labels
        }
        None => StateLabels::default(),
    };
    let rewards = match sibling(tra, "srew") {
        Some(srew) => vec![parse_srew(&read_explicit(&srew)?, &srew, states)?],
        None => Vec::new(),
    };
    Ok(ProbModel {
        model,
        labels,
        rewards,
    })
}

/// The file beside `tra` with the same name but the extension `extension`
/// (plain, or else with `.gz`), when it exists: `m.tra.gz` and `m.tra`
/// both have the sibling `m.lab`.
pub fn sibling(tra: &Path, extension: &str) -> Option<PathBuf> {
    let name = tra.file_name()?.to_str()?;
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let stem = name.strip_suffix(".tra").unwrap_or(name);
    [
        format!("{stem}.{extension}"),
        format!("{stem}.{extension}.gz"),
    ]
    .into_iter()
    .map(|name| tra.with_file_name(name))
    .find(|path| path.is_file())
}

/// Most fields on a line of a `.tra` or `.srew` file, plus one to see
/// extra text.
const MAX_FIELDS: usize = 5;

/// The blank-separated fields of `line` with their offsets: at most
/// [`MAX_FIELDS`], and how many there were up to that.
fn fields(line: &[u8]) -> ([(usize, &[u8]); MAX_FIELDS], usize) {
    let mut found: [(usize, &[u8]); MAX_FIELDS] = [(0, &[]); MAX_FIELDS];
    let mut count = 0;
    let mut at = 0;
    while count < MAX_FIELDS {
        while at < line.len() && line[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == line.len() {
            break;
        }
        let start = at;
        while at < line.len() && !line[at].is_ascii_whitespace() {
            at += 1;
        }
        found[count] = (start, &line[start..at]);
        count += 1;
    }
    (found, count)
}

/// A field as shown in messages.
fn shown(field: &[u8]) -> String {
    String::from_utf8_lossy(field).into_owned()
}

/// A decimal number of at most `max`, or the message saying why `field`
/// is not `what`.
fn number(field: &[u8], what: &str, max: u64) -> Result<u64, String> {
    let mut value = 0u64;
    for &byte in field {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return Err(format!("expected {what}, found `{}`", shown(field)));
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
    }
    if field.is_empty() {
        return Err(format!("expected {what}, found ``"));
    }
    // At most 19 significant digits cannot wrap around.
    let significant = field.iter().skip_while(|&&b| b == b'0').count();
    if significant > 19 || value > max {
        return Err(format!("number {} is too large", shown(field)));
    }
    Ok(value)
}

/// A floating-point number (as Rust, PRISM and Python write them), or the
/// message saying why `field` is not `what`.
fn float(field: &[u8], what: &str) -> Result<f64, String> {
    std::str::from_utf8(field)
        .ok()
        .and_then(|text| text.parse::<f64>().ok())
        .ok_or_else(|| format!("expected {what}, found `{}`", shown(field)))
}

/// The message for a state number at or beyond the count.
fn out_of_range(what: &str, number: u64, states: u64) -> String {
    format!(
        "{what} state {number} is out of range: the model has {states} states (0 to {})",
        states.saturating_sub(1)
    )
}

/// The header of a `.tra` file.
struct TraHeader {
    states: u32,
    /// Declared choices, for an MDP.
    choices: Option<u64>,
    transitions: u64,
    /// Offset of the choices field, for messages about it.
    choices_at: usize,
}

/// The transition lines of one chunk, as parallel arrays (`choices` is
/// empty for a chain).
#[derive(Default)]
struct TraChunk {
    sources: Vec<u32>,
    choices: Vec<u32>,
    targets: Vec<u32>,
    values: Vec<f64>,
}

/// The first fault in a chunk: its offset in the file, the message, and
/// how many transitions the chunk held before it.
struct ChunkError {
    offset: usize,
    message: String,
    before: u64,
}

const TRA_HEADER: &str =
    "expected the header `STATES TRANSITIONS` (DTMC, CTMC) or `STATES CHOICES TRANSITIONS` (MDP)";

/// Parses `.tra` bytes (see [`load`] for `kind`); `path` names the file in
/// errors, located at the line at fault. The initial state is 0.
pub fn parse_tra(
    bytes: &[u8],
    path: &Path,
    kind: Option<ModelType>,
) -> Result<ExplicitModel, LoadError> {
    let error = |offset: usize, message: String| LoadError::at_bytes(path, bytes, offset, message);
    let Some((header_at, header_end)) = next_nonblank_line(bytes, 0, bytes.len()) else {
        return Err(error(0, TRA_HEADER.into()));
    };
    let (found, count) = fields(&bytes[header_at..header_end]);
    if !(2..=3).contains(&count) {
        return Err(error(header_at, TRA_HEADER.into()));
    }
    let header_number = |i: usize, what: &str, max: u64| {
        let (at, field) = found[i];
        number(field, what, max).map_err(|m| error(header_at + at, m))
    };
    let states = header_number(0, "the number of states", MAX_STATES)? as u32;
    if states == 0 {
        return Err(error(
            header_at + found[0].0,
            "the header declares 0 states; a model has at least one".into(),
        ));
    }
    let mdp = count == 3;
    let header = TraHeader {
        states,
        choices: if mdp {
            Some(header_number(1, "the number of choices", u64::MAX)?)
        } else {
            None
        },
        transitions: header_number(count - 1, "the number of transitions", u64::MAX)?,
        choices_at: header_at + found[1].0,
    };
    // States without transitions take no bytes, but a header may not ask
    // for more of them than the file could plausibly mean: the arrays are
    // sized by the states, and a short file must not claim gigabytes.
    let describable = header.transitions.saturating_add(bytes.len() as u64);
    if u64::from(states) > describable {
        return Err(error(
            header_at + found[0].0,
            format!(
                "the header declares {states} states, more than a file of {} bytes with {} \
                 transitions can describe",
                bytes.len(),
                header.transitions
            ),
        ));
    }
    match (kind, mdp) {
        (Some(ModelType::Mdp), false) => {
            return Err(error(
                header_at,
                "an MDP needs the header `STATES CHOICES TRANSITIONS`".into(),
            ));
        }
        (Some(chain @ (ModelType::Dtmc | ModelType::Ctmc)), true) => {
            return Err(error(
                header_at,
                format!(
                    "a {} needs the header `STATES TRANSITIONS`; this one is an MDP's",
                    chain.name().to_uppercase()
                ),
            ));
        }
        _ => {}
    }

    let body = (header_end + 1).min(bytes.len());
    let pieces = split_at_lines(bytes, body);
    let chunks: Vec<Result<TraChunk, ChunkError>> = pieces
        .into_par_iter()
        .map(|(start, end)| parse_tra_chunk(bytes, start, end, states, mdp))
        .collect();
    let mut parsed = Vec::with_capacity(chunks.len());
    let mut seen = 0u64;
    let mut excess = false;
    for chunk in chunks {
        match chunk {
            Ok(chunk) => {
                seen += chunk.sources.len() as u64;
                parsed.push(chunk);
            }
            Err(fault) if seen + fault.before > header.transitions => {
                excess = true;
                break;
            }
            Err(fault) => return Err(error(fault.offset, fault.message)),
        }
    }
    if excess || seen > header.transitions {
        let at = nth_line(bytes, body, header.transitions).unwrap_or(bytes.len());
        return Err(error(
            at,
            format!(
                "more transitions than the {} the header declares",
                header.transitions
            ),
        ));
    }
    if seen < header.transitions {
        return Err(error(
            bytes.len(),
            format!(
                "the header declares {} transitions but the file has {seen}",
                header.transitions
            ),
        ));
    }
    let mut all = concatenate(parsed);
    sort_by_row(&mut all, mdp);
    let locate = |source: u32, choice: Option<u32>| {
        find_line(bytes, body, source, choice).unwrap_or(bytes.len())
    };
    if mdp {
        build_mdp(all, &header)
            .map(ExplicitModel::Mdp)
            .map_err(|fault| match fault {
                MdpFault::Line {
                    source,
                    choice,
                    message,
                } => error(locate(source, Some(choice)), message),
                MdpFault::Memory => {
                    error(header_at, format!("not enough memory for {states} states"))
                }
                MdpFault::Choices(found) => error(
                    header.choices_at,
                    format!(
                        "the header declares {} choices but the file has {found}",
                        header.choices.unwrap_or(0)
                    ),
                ),
            })
    } else {
        let chain = build_chain(all, states)
            .ok_or_else(|| error(header_at, format!("not enough memory for {states} states")))?;
        match (kind, chain.first_non_stochastic_row()) {
            (Some(ModelType::Ctmc), _) => Ok(ExplicitModel::Ctmc(chain)),
            (Some(_), Some((state, sum))) => Err(error(
                locate(state, None),
                format!(
                    "state {state}: probabilities sum to {sum}, not 1 (the rows of a DTMC sum to 1)"
                ),
            )),
            (None, Some(_)) => Ok(ExplicitModel::Ctmc(chain)),
            (_, None) => Ok(ExplicitModel::Dtmc(chain)),
        }
    }
}

/// Parses the transition lines of `bytes[start..end]`.
fn parse_tra_chunk(
    bytes: &[u8],
    start: usize,
    end: usize,
    states: u32,
    mdp: bool,
) -> Result<TraChunk, ChunkError> {
    let mut chunk = TraChunk::default();
    let mut from = start;
    let width = if mdp { 4 } else { 3 };
    let value_word = if mdp {
        "a probability"
    } else {
        "a probability or rate"
    };
    while let Some((line_at, line_end)) = next_nonblank_line(bytes, from, end) {
        from = line_end + 1;
        let fault = |at: usize, message: String, chunk: &TraChunk| ChunkError {
            offset: line_at + at,
            message,
            before: chunk.sources.len() as u64,
        };
        let line = &bytes[line_at..line_end];
        let (found, count) = fields(line);
        if count > width {
            return Err(fault(
                found[width].0,
                "unexpected text after the transition".into(),
                &chunk,
            ));
        }
        let field = |i: usize| {
            found
                .get(i)
                .filter(|_| i < count)
                .copied()
                .unwrap_or((line.len(), &[][..]))
        };
        let state = |i: usize, what: &str, chunk: &TraChunk| -> Result<u32, ChunkError> {
            let (at, text) = field(i);
            let expected = if what == "source" {
                "a source state number"
            } else {
                "a target state number"
            };
            let n = number(text, expected, u64::from(u32::MAX)).map_err(|m| fault(at, m, chunk))?;
            if n >= u64::from(states) {
                return Err(fault(at, out_of_range(what, n, states.into()), chunk));
            }
            Ok(n as u32)
        };
        let source = state(0, "source", &chunk)?;
        if mdp {
            let (at, text) = field(1);
            let choice = number(text, "a choice number", u64::from(u32::MAX))
                .map_err(|m| fault(at, m, &chunk))?;
            chunk.choices.push(choice as u32);
        }
        let target = state(width - 2, "target", &chunk)?;
        let (at, text) = field(width - 1);
        let value = float(text, value_word).map_err(|m| fault(at, m, &chunk))?;
        if !(value.is_finite() && value > 0.0) {
            let what = if mdp { "probability" } else { "value" };
            return Err(fault(
                at,
                format!("{what} {} is not a finite positive number", shown(text)),
                &chunk,
            ));
        }
        chunk.sources.push(source);
        chunk.targets.push(target);
        chunk.values.push(value);
    }
    Ok(chunk)
}

/// The start of the non-blank line after `skip` non-blank lines from
/// `from` on.
fn nth_line(bytes: &[u8], mut from: usize, skip: u64) -> Option<usize> {
    for _ in 0..skip {
        let (_, end) = next_nonblank_line(bytes, from, bytes.len())?;
        from = end + 1;
    }
    next_nonblank_line(bytes, from, bytes.len()).map(|(start, _)| start)
}

/// The first transition line from `from` on whose source is `source` (and
/// choice `choice`, for an MDP): where messages about a row or choice
/// point. A slow scan, for errors only.
fn find_line(bytes: &[u8], mut from: usize, source: u32, choice: Option<u32>) -> Option<usize> {
    while let Some((start, end)) = next_nonblank_line(bytes, from, bytes.len()) {
        let (found, count) = fields(&bytes[start..end]);
        let value = |i: usize| {
            (i < count)
                .then(|| number(found[i].1, "", u64::MAX).ok())
                .flatten()
        };
        if value(0) == Some(u64::from(source))
            && choice.is_none_or(|c| value(1) == Some(u64::from(c)))
        {
            return Some(start);
        }
        from = end + 1;
    }
    None
}

/// The chunks' transitions end to end.
fn concatenate(chunks: Vec<TraChunk>) -> TraChunk {
    let mut chunks = chunks.into_iter();
    let mut all = chunks.next().unwrap_or_default();
    for chunk in chunks {
        all.sources.extend_from_slice(&chunk.sources);
        all.choices.extend_from_slice(&chunk.choices);
        all.targets.extend_from_slice(&chunk.targets);
        all.values.extend_from_slice(&chunk.values);
    }
    all
}

/// Orders the transitions by source (and choice), keeping the file order
/// within each row; files already in that order (the usual case) are
/// left as they are.
fn sort_by_row(all: &mut TraChunk, mdp: bool) {
    let key = |i: usize| (all.sources[i], if mdp { all.choices[i] } else { 0 });
    let sorted = (1..all.sources.len()).all(|i| key(i - 1) <= key(i));
    if sorted {
        return;
    }
    let mut order: Vec<usize> = (0..all.sources.len()).collect();
    order.sort_by_key(|&i| key(i));
    let sources = order.iter().map(|&i| all.sources[i]).collect();
    let choices = if mdp {
        order.iter().map(|&i| all.choices[i]).collect()
    } else {
        Vec::new()
    };
    let targets = order.iter().map(|&i| all.targets[i]).collect();
    let values = order.iter().map(|&i| all.values[i]).collect();
    *all = TraChunk {
        sources,
        choices,
        targets,
        values,
    };
}

/// A chain from transitions sorted by source; `None` when its offsets
/// cannot be allocated.
fn build_chain(all: TraChunk, states: u32) -> Option<MarkovChain> {
    let mut offsets: Vec<u64> = Vec::new();
    offsets.try_reserve_exact(states as usize + 1).ok()?;
    offsets.resize(states as usize + 1, 0);
    for &source in &all.sources {
        offsets[source as usize + 1] += 1;
    }
    for state in 0..states as usize {
        offsets[state + 1] += offsets[state];
    }
    Some(MarkovChain {
        offsets,
        targets: all.targets,
        values: all.values,
        initial: 0,
    })
}

/// Why MDP transitions do not form an MDP.
enum MdpFault {
    /// A fault of one choice, reported at its first line.
    Line {
        source: u32,
        choice: u32,
        message: String,
    },
    /// The number of choices differs from the header's.
    Choices(u64),
    /// The offsets of the states cannot be allocated.
    Memory,
}

/// An MDP from transitions sorted by source and choice: choices numbered
/// densely from 0 in every state, as many as the header says, each
/// summing to 1.
fn build_mdp(all: TraChunk, header: &TraHeader) -> Result<Mdp, MdpFault> {
    let mut choice_offsets: Vec<u64> = Vec::new();
    choice_offsets
        .try_reserve_exact(header.states as usize + 1)
        .map_err(|_| MdpFault::Memory)?;
    choice_offsets.push(0);
    let mut branch_offsets = vec![0u64];
    let mut current: Option<(u32, u32)> = None;
    let mut sum = 0.0;
    let check_sum = |(source, choice): (u32, u32), sum: f64| {
        if (sum - 1.0).abs() > PROBABILITY_TOLERANCE {
            return Err(MdpFault::Line {
                source,
                choice,
                message: format!(
                    "state {source}, choice {choice}: probabilities sum to {sum}, not 1"
                ),
            });
        }
        Ok(())
    };
    for (i, (&source, &choice)) in all.sources.iter().zip(&all.choices).enumerate() {
        if current == Some((source, choice)) {
            sum += all.values[i];
            continue;
        }
        if let Some(previous) = current {
            check_sum(previous, sum)?;
            branch_offsets.push(i as u64);
        }
        let expected = match current {
            Some((previous, last)) if previous == source => last + 1,
            _ => 0,
        };
        if choice != expected {
            return Err(MdpFault::Line {
                source,
                choice,
                message: format!(
                    "state {source} has choice {choice} but no choice {expected}: the choices of a state are numbered from 0 without gaps"
                ),
            });
        }
        while choice_offsets.len() <= source as usize {
            choice_offsets.push(branch_offsets.len() as u64 - 1);
        }
        current = Some((source, choice));
        sum = all.values[i];
    }
    if let Some(last) = current {
        check_sum(last, sum)?;
        branch_offsets.push(all.sources.len() as u64);
    }
    let choices = branch_offsets.len() as u64 - 1;
    while choice_offsets.len() <= header.states as usize {
        choice_offsets.push(choices);
    }
    if Some(choices) != header.choices {
        return Err(MdpFault::Choices(choices));
    }
    Ok(Mdp {
        choice_offsets,
        branch_offsets,
        targets: all.targets,
        probabilities: all.values,
        choice_labels: None,
        initial: 0,
    })
}

const LAB_HEADER: &str =
    "expected label declarations `INDEX=\"NAME\"`, such as `0=\"init\" 1=\"deadlock\"`";

/// Parses `.lab` bytes for a model of `states` states; `path` names the
/// file in errors. Every declared label is in the result, in declaration
/// order, also those no state carries.
pub fn parse_lab(bytes: &[u8], path: &Path, states: u32) -> Result<StateLabels, LoadError> {
    let error = |offset: usize, message: String| LoadError::at_bytes(path, bytes, offset, message);
    let Some((header_at, header_end)) = next_nonblank_line(bytes, 0, bytes.len()) else {
        return Err(error(0, LAB_HEADER.into()));
    };
    let mut labels = StateLabels::default();
    let mut index_of: HashMap<u64, usize> = HashMap::new();
    let header = &bytes[header_at..header_end];
    let mut at = 0;
    loop {
        while at < header.len() && header[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == header.len() {
            break;
        }
        let start = at;
        let digits = header[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let equals = at + digits;
        if digits == 0 || header.get(equals) != Some(&b'=') || header.get(equals + 1) != Some(&b'"')
        {
            return Err(error(header_at + at, LAB_HEADER.into()));
        }
        let name_at = equals + 2;
        let Some(length) = memchr::memchr(b'"', &header[name_at..]) else {
            return Err(error(
                header_at + name_at,
                "expected `\"` to close the label name".into(),
            ));
        };
        let index = number(&header[start..equals], "a label index", u64::MAX)
            .map_err(|m| error(header_at + start, m))?;
        let name = std::str::from_utf8(&header[name_at..name_at + length]).map_err(|_| {
            error(
                header_at + name_at,
                "the label name is not valid UTF-8".into(),
            )
        })?;
        if index_of.insert(index, labels.names.len()).is_some() {
            return Err(error(
                header_at + start,
                format!("label index {index} is declared twice"),
            ));
        }
        if labels.get(name).is_some() {
            return Err(error(
                header_at + name_at,
                format!("label \"{name}\" is declared twice"),
            ));
        }
        labels.names.push(name.to_string());
        labels.states.push(Vec::new());
        at = name_at + length + 1;
    }
    let mut from = header_end + 1;
    while let Some((line_at, line_end)) =
        next_nonblank_line(bytes, from.min(bytes.len()), bytes.len())
    {
        from = line_end + 1;
        let line = &bytes[line_at..line_end];
        let state_at = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let Some(colon) = memchr::memchr(b':', line) else {
            return Err(error(
                line_at + state_at,
                "expected `STATE:` and label indices".into(),
            ));
        };
        let state_text = line[state_at..colon].trim_ascii_end();
        let state = number(state_text, "a state number", u64::MAX)
            .map_err(|m| error(line_at + state_at, m))?;
        if state >= u64::from(states) {
            return Err(error(
                line_at + state_at,
                out_of_range("labelled", state, states.into()),
            ));
        }
        let mut at = colon + 1;
        loop {
            while at < line.len() && line[at].is_ascii_whitespace() {
                at += 1;
            }
            if at == line.len() {
                break;
            }
            let start = at;
            while at < line.len() && !line[at].is_ascii_whitespace() {
                at += 1;
            }
            let index = number(&line[start..at], "a label index", u64::MAX)
                .map_err(|m| error(line_at + start, m))?;
            let Some(&label) = index_of.get(&index) else {
                return Err(error(
                    line_at + start,
                    format!("label index {index} is not declared"),
                ));
            };
            labels.states[label].push(state as u32);
        }
    }
    for states in &mut labels.states {
        states.sort_unstable();
        states.dedup();
    }
    Ok(labels)
}

/// Parses `.srew` bytes for a model of `states` states; `path` names the
/// file in errors. States not listed have reward 0.
pub fn parse_srew(bytes: &[u8], path: &Path, states: u32) -> Result<StateRewards, LoadError> {
    let error = |offset: usize, message: String| LoadError::at_bytes(path, bytes, offset, message);
    let expected = "expected the header `STATES ENTRIES`";
    let Some((header_at, header_end)) = next_nonblank_line(bytes, 0, bytes.len()) else {
        return Err(error(0, expected.into()));
    };
    let (found, count) = fields(&bytes[header_at..header_end]);
    if count != 2 {
        return Err(error(header_at, expected.into()));
    }
    let declared_states = number(found[0].1, "the number of states", u64::MAX)
        .map_err(|m| error(header_at + found[0].0, m))?;
    let entries = number(found[1].1, "the number of entries", u64::MAX)
        .map_err(|m| error(header_at + found[1].0, m))?;
    if declared_states != u64::from(states) {
        return Err(error(
            header_at + found[0].0,
            format!("the header declares {declared_states} states but the model has {states}"),
        ));
    }
    let mut values = vec![0.0; states as usize];
    let mut given = vec![false; states as usize];
    let mut seen = 0u64;
    let mut from = header_end + 1;
    while let Some((line_at, line_end)) =
        next_nonblank_line(bytes, from.min(bytes.len()), bytes.len())
    {
        from = line_end + 1;
        let (found, count) = fields(&bytes[line_at..line_end]);
        if count != 2 {
            let at = if count > 2 {
                found[2].0
            } else {
                line_end - line_at
            };
            return Err(error(line_at + at, "expected `STATE VALUE`".into()));
        }
        let state = number(found[0].1, "a state number", u64::MAX)
            .map_err(|m| error(line_at + found[0].0, m))?;
        if state >= u64::from(states) {
            return Err(error(
                line_at + found[0].0,
                out_of_range("rewarded", state, states.into()),
            ));
        }
        let value = float(found[1].1, "a reward").map_err(|m| error(line_at + found[1].0, m))?;
        if !value.is_finite() {
            return Err(error(
                line_at + found[1].0,
                format!("reward {} is not a finite number", shown(found[1].1)),
            ));
        }
        if std::mem::replace(&mut given[state as usize], true) {
            return Err(error(
                line_at + found[0].0,
                format!("state {state} has a reward already"),
            ));
        }
        values[state as usize] = value;
        seen += 1;
    }
    if seen != entries {
        return Err(error(
            bytes.len(),
            format!("the header declares {entries} entries but the file has {seen}"),
        ));
    }
    Ok(StateRewards { name: None, values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tra(text: &str, kind: Option<ModelType>) -> Result<ExplicitModel, String> {
        parse_tra(text.as_bytes(), Path::new("m.tra"), kind).map_err(|e| e.to_string())
    }

    #[test]
    fn chains_are_dtmcs_when_rows_sum_to_one() {
        let text = "3 4\n0 1 0.5\n0 2 0.5\n1 1 1\n2 0 1.0\n";
        let ExplicitModel::Dtmc(chain) = tra(text, None).unwrap() else {
            panic!("not a DTMC")
        };
        assert_eq!(chain.offsets, [0, 2, 3, 4]);
        assert_eq!(chain.targets, [1, 2, 1, 0]);
        assert_eq!(chain.values, [0.5, 0.5, 1.0, 1.0]);
        assert!(matches!(
            tra(text, Some(ModelType::Ctmc)).unwrap(),
            ExplicitModel::Ctmc(_)
        ));
        let rates = "2 2\n0 1 3.5\n1 0 2\n";
        assert!(matches!(tra(rates, None).unwrap(), ExplicitModel::Ctmc(_)));
        assert_eq!(
            tra("2 3\n0 1 3.5\n1 0 0.5\n1 1 0.5\n", Some(ModelType::Dtmc)).unwrap_err(),
            "m.tra:2:1: state 0: probabilities sum to 3.5, not 1 (the rows of a DTMC sum to 1)"
        );
    }

    #[test]
    fn unsorted_lines_are_grouped_by_row_in_file_order() {
        let text = "3 4\n2 0 1\n0 2 0.5\n1 1 1\n0 1 0.5\n";
        let ExplicitModel::Dtmc(chain) = tra(text, None).unwrap() else {
            panic!("not a DTMC")
        };
        assert_eq!(chain.offsets, [0, 2, 3, 4]);
        assert_eq!(chain.targets, [2, 1, 1, 0]);
    }

    #[test]
    fn mdps_number_choices_per_state() {
        let text = "3 3 4\n0 0 1 0.5\n0 0 2 0.5\n0 1 1 1\n2 0 2 1\n";
        let ExplicitModel::Mdp(mdp) = tra(text, None).unwrap() else {
            panic!("not an MDP")
        };
        assert_eq!(mdp.choice_offsets, [0, 2, 2, 3]);
        assert_eq!(mdp.branch_offsets, [0, 2, 3, 4]);
        assert_eq!(mdp.targets, [1, 2, 1, 2]);
        assert_eq!(mdp.validate(), Ok(()));
    }

    #[test]
    fn tra_errors_are_located() {
        let cases = [
            (
                "",
                "m.tra:1:1: expected the header `STATES TRANSITIONS` (DTMC, CTMC) or `STATES CHOICES TRANSITIONS` (MDP)",
            ),
            (
                "2 x\n",
                "m.tra:1:3: expected the number of transitions, found `x`",
            ),
            (
                "0 0\n",
                "m.tra:1:1: the header declares 0 states; a model has at least one",
            ),
            (
                "4294967295 0\n",
                "m.tra:1:1: the header declares 4294967295 states, more than a file of 13 bytes with 0 transitions can describe",
            ),
            (
                "2 1\n0 2 1\n",
                "m.tra:2:3: target state 2 is out of range: the model has 2 states (0 to 1)",
            ),
            (
                "2 1\n0 1 -0.5\n",
                "m.tra:2:5: value -0.5 is not a finite positive number",
            ),
            (
                "2 1\n0 1 0\n",
                "m.tra:2:5: value 0 is not a finite positive number",
            ),
            (
                "2 1\n0 1 NaN\n",
                "m.tra:2:5: value NaN is not a finite positive number",
            ),
            (
                "2 1\n0 1 abc\n",
                "m.tra:2:5: expected a probability or rate, found `abc`",
            ),
            (
                "2 1\n0 1\n",
                "m.tra:2:4: expected a probability or rate, found ``",
            ),
            (
                "2 1\n0 1 1 7\n",
                "m.tra:2:7: unexpected text after the transition",
            ),
            (
                "2 2\n0 1 1\n",
                "m.tra:3:1: the header declares 2 transitions but the file has 1",
            ),
            (
                "2 1\n0 1 1\n1 0 1\n",
                "m.tra:3:1: more transitions than the 1 the header declares",
            ),
            (
                "2 2 2\n0 0 1 1\n0 2 1 1\n",
                "m.tra:3:1: state 0 has choice 2 but no choice 1: the choices of a state are numbered from 0 without gaps",
            ),
            (
                "2 2 2\n0 0 1 0.5\n1 1 1 1\n",
                "m.tra:2:1: state 0, choice 0: probabilities sum to 0.5, not 1",
            ),
            (
                "2 3 2\n0 0 1 1\n1 0 1 1\n",
                "m.tra:1:3: the header declares 3 choices but the file has 2",
            ),
            (
                "2 1 1\n0 0 1 1\n",
                "m.tra:1:1: a DTMC needs the header `STATES TRANSITIONS`; this one is an MDP's",
            ),
        ];
        for (text, expected) in cases {
            let kind = text.starts_with("2 1 1").then_some(ModelType::Dtmc);
            assert_eq!(tra(text, kind).unwrap_err(), expected, "for {text:?}");
        }
        assert_eq!(
            tra("2 1\n0 1 1\n", Some(ModelType::Mdp)).unwrap_err(),
            "m.tra:1:1: an MDP needs the header `STATES CHOICES TRANSITIONS`"
        );
    }

    #[test]
    fn labels_are_read_and_checked() {
        let lab = |text: &str| {
            parse_lab(text.as_bytes(), Path::new("m.lab"), 4).map_err(|e| e.to_string())
        };
        let labels = lab("0=\"init\" 1=\"deadlock\" 3=\"goal\"\n0: 0\n3: 1 3\n2:3\n").unwrap();
        assert_eq!(labels.names, ["init", "deadlock", "goal"]);
        assert_eq!(labels.get("goal"), Some(&[2, 3][..]));
        assert_eq!(labels.get("deadlock"), Some(&[3][..]));
        let many =
            lab("0=\"a\" 1=\"b\" 2=\"c\" 3=\"d\" 4=\"e\" 5=\"f\"\n1: 0 1 2 3 4 5\n").unwrap();
        assert!(many.states.iter().all(|s| s == &[1]));
        let cases = [
            (
                "0=\"init\"\n0: 2\n",
                "m.lab:2:4: label index 2 is not declared",
            ),
            (
                "0=\"init\"\n4: 0\n",
                "m.lab:2:1: labelled state 4 is out of range: the model has 4 states (0 to 3)",
            ),
            (
                "0=init\n",
                "m.lab:1:1: expected label declarations `INDEX=\"NAME\"`, such as `0=\"init\" 1=\"deadlock\"`",
            ),
            (
                "0=\"a\" 0=\"b\"\n",
                "m.lab:1:7: label index 0 is declared twice",
            ),
            (
                "0=\"init\"\n1 0\n",
                "m.lab:2:1: expected `STATE:` and label indices",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(lab(text).unwrap_err(), expected, "for {text:?}");
        }
    }

    #[test]
    fn state_rewards_are_read_and_checked() {
        let srew = |text: &str| {
            parse_srew(text.as_bytes(), Path::new("m.srew"), 3).map_err(|e| e.to_string())
        };
        assert_eq!(srew("3 2\n0 1.5\n2 2\n").unwrap().values, [1.5, 0.0, 2.0]);
        let cases = [
            (
                "4 0\n",
                "m.srew:1:1: the header declares 4 states but the model has 3",
            ),
            (
                "3 1\n3 1\n",
                "m.srew:2:1: rewarded state 3 is out of range: the model has 3 states (0 to 2)",
            ),
            (
                "3 2\n0 1\n0 2\n",
                "m.srew:3:1: state 0 has a reward already",
            ),
            (
                "3 2\n0 1\n",
                "m.srew:3:1: the header declares 2 entries but the file has 1",
            ),
            (
                "3 1\n0 inf\n",
                "m.srew:2:3: reward inf is not a finite number",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(srew(text).unwrap_err(), expected, "for {text:?}");
        }
    }
}

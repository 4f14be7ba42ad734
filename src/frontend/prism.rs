//! PRISM's explicit files: transitions (`.tra`), labels (`.lab`), state
//! rewards (`.srew`) and transition rewards (`.trew`), as PRISM's
//! `-exportmodel` and Storm write them and `-importmodel` reads them, plain
//! or gzip-compressed.
//!
//! * `.tra`: a header `STATES TRANSITIONS` and lines `SOURCE TARGET VALUE`
//!   for a DTMC or CTMC; `STATES CHOICES TRANSITIONS` and lines
//!   `SOURCE CHOICE TARGET PROBABILITY` for an MDP, `CHOICE` numbering the
//!   choices of each state from 0. Lines may come in any order; they are
//!   grouped by source (and choice), each group in file order.
//! * `.lab`: a line of declarations `0="init" 1="deadlock" ...`, then lines
//!   `STATE: LABEL LABEL ...` naming declared label indices.
//! * `.srew`: a header `STATES ENTRIES` and lines `STATE VALUE`.
//! * `.trew`: a header `STATES ENTRIES` and lines `SOURCE TARGET VALUE` for
//!   a DTMC or CTMC; `STATES CHOICES ENTRIES` and lines
//!   `SOURCE CHOICE TARGET VALUE` for an MDP. Each line names a transition
//!   of the `.tra` file, which earns the value when it is taken. PRISM
//!   writes the same value on every branch of an MDP's choice (its action
//!   reward); values that differ are read too, each earned on its branch.
//!
//! Rewards files may start with `#` comment lines, as PRISM 4.9 writes
//! them; `# Reward structure "NAME"` names the structure.
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
    RewardStructure, StateLabels,
};

/// Reads a model from PRISM explicit files: the transitions of `tra`, the
/// labels of `lab` (by default the `.lab` or `.lab.gz` beside `tra`, when
/// there is one) and one reward structure from the `.srew` and `.trew`
/// (or `.gz`) files beside `tra`, when there are any.
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
    let mut rewards: Vec<RewardStructure> = Vec::new();
    if let Some(srew) = sibling(tra, "srew") {
        rewards.push(parse_srew(&read_explicit(&srew)?, &srew, states)?);
    }
    if let Some(trew) = sibling(tra, "trew") {
        let transition_rewards = parse_trew(&read_explicit(&trew)?, &trew, &model)?;
        match rewards.first_mut() {
            Some(structure) => {
                if let (Some(state_name), Some(transition_name)) =
                    (&structure.name, &transition_rewards.name)
                    && state_name != transition_name
                {
                    return Err(LoadError::invalid(
                        &trew,
                        format!(
                            "names the reward structure \"{transition_name}\", but the .srew \
                             beside it names \"{state_name}\""
                        ),
                    ));
                }
                structure.add(transition_rewards);
            }
            None => rewards.push(transition_rewards),
        }
    }
    Ok(ProbModel {
        model,
        labels,
        rewards,
    })
}

/// The file beside `tra` with the same name but the extension `extension`
/// (plain, or else with `.gz`; in lower case, or else in upper case), when
/// it exists: `m.tra.gz` and `m.tra` both have the sibling `m.lab`, and
/// `M.TRA` has `M.LAB` where there is no `M.lab`.
fn sibling(tra: &Path, extension: &str) -> Option<PathBuf> {
    fn without<'a>(name: &'a str, suffix: &str) -> &'a str {
        let cut = name.len().saturating_sub(suffix.len());
        match name.get(cut..) {
            Some(tail) if tail.eq_ignore_ascii_case(suffix) => &name[..cut],
            _ => name,
        }
    }
    let name = tra.file_name()?.to_str()?;
    let stem = without(without(name, ".gz"), ".tra");
    let upper = extension.to_ascii_uppercase();
    [extension, upper.as_str()]
        .into_iter()
        .flat_map(|extension| {
            [
                format!("{stem}.{extension}"),
                format!("{stem}.{extension}.gz"),
            ]
        })
        .map(|name| tra.with_file_name(name))
        .find(|path| path.is_file())
}

/// Most fields on a line of a `.tra`, `.srew` or `.trew` file, plus one
/// to see extra text.
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

/// A rewards file being read: its bytes, for located errors.
struct RewardsFile<'b> {
    bytes: &'b [u8],
    path: &'b Path,
}

impl<'b> RewardsFile<'b> {
    /// An error at byte `offset`.
    fn error(&self, offset: usize, message: String) -> LoadError {
        LoadError::at_bytes(self.path, self.bytes, offset, message)
    }

    /// Reads the file: leading `#` comment lines (the name of
    /// `# Reward structure "NAME"`), the header, whose numbers are
    /// `header` (each with the value it must have, if any) and whose last
    /// number counts the entry lines, then the entry lines, each of
    /// `shape`'s fields and handed to `entry` with the offsets of its
    /// fields in the file. Gives the structure's name, if any.
    fn read(
        &self,
        header: &[(&str, Option<u64>)],
        shape: &str,
        mut entry: impl FnMut(&[(usize, &'b [u8])]) -> Result<(), LoadError>,
    ) -> Result<Option<String>, LoadError> {
        let bytes = self.bytes;
        let mut name = None;
        let mut from = 0;
        let header_line = loop {
            let Some((line_at, line_end)) = next_nonblank_line(bytes, from, bytes.len()) else {
                break None;
            };
            let line = String::from_utf8_lossy(&bytes[line_at..line_end]);
            let Some(comment) = line.trim_start().strip_prefix('#') else {
                break Some((line_at, line_end));
            };
            if let Some(quoted) = comment.trim().strip_prefix("Reward structure") {
                let quoted = quoted.trim();
                name = quoted
                    .strip_prefix('"')
                    .and_then(|rest| rest.strip_suffix('"'))
                    .filter(|name| !name.is_empty())
                    .map(str::to_string);
            }
            from = line_end + 1;
        };
        let names: Vec<&str> = header.iter().map(|(name, _)| *name).collect();
        let expected_header = format!("expected the header `{}`", names.join(" "));
        let Some((header_at, header_end)) = header_line else {
            return Err(self.error(bytes.len(), expected_header));
        };
        let (found, count) = fields(&bytes[header_at..header_end]);
        if count != header.len() {
            return Err(self.error(header_at, expected_header));
        }
        let mut entries = 0;
        for (&(offset, field), &(what, required)) in found.iter().zip(header) {
            let what = format!("the number of {}", what.to_lowercase());
            let value = number(field, &what, u64::MAX)
                .map_err(|message| self.error(header_at + offset, message))?;
            if let Some(required) = required.filter(|&required| required != value) {
                return Err(self.error(
                    header_at + offset,
                    format!(
                        "the header declares {value} {} but the model has {required}",
                        what.trim_start_matches("the number of ")
                    ),
                ));
            }
            entries = value;
        }
        let width = shape.split_whitespace().count();
        let mut seen = 0u64;
        let mut from = header_end + 1;
        while let Some((line_at, line_end)) =
            next_nonblank_line(bytes, from.min(bytes.len()), bytes.len())
        {
            from = line_end + 1;
            let (mut found, count) = fields(&bytes[line_at..line_end]);
            if count != width {
                let at = if count > width {
                    found[width].0
                } else {
                    line_end - line_at
                };
                return Err(self.error(line_at + at, format!("expected `{shape}`")));
            }
            for field in &mut found[..width] {
                field.0 += line_at;
            }
            entry(&found[..width])?;
            seen += 1;
        }
        if seen != entries {
            return Err(self.error(
                bytes.len(),
                format!("the header declares {entries} entries but the file has {seen}"),
            ));
        }
        Ok(name)
    }

    /// The state number of `field` (at `offset`), below `states`; `what`
    /// says which state it is in messages.
    fn state(
        &self,
        (offset, field): (usize, &[u8]),
        what: &str,
        states: u32,
    ) -> Result<u32, LoadError> {
        let state = number(field, "a state number", u64::MAX)
            .map_err(|message| self.error(offset, message))?;
        if state >= u64::from(states) {
            return Err(self.error(offset, out_of_range(what, state, states.into())));
        }
        Ok(state as u32)
    }

    /// The finite reward of `field` (at `offset`).
    fn reward(&self, (offset, field): (usize, &[u8])) -> Result<f64, LoadError> {
        let value = float(field, "a reward").map_err(|message| self.error(offset, message))?;
        if !value.is_finite() {
            return Err(self.error(
                offset,
                format!("reward {} is not a finite number", shown(field)),
            ));
        }
        Ok(value)
    }
}

/// Parses `.srew` bytes for a model of `states` states; `path` names the
/// file in errors. States not listed have reward 0.
pub fn parse_srew(bytes: &[u8], path: &Path, states: u32) -> Result<RewardStructure, LoadError> {
    let file = RewardsFile { bytes, path };
    let mut values = vec![0.0; states as usize];
    let mut given = vec![false; states as usize];
    let header = [("STATES", Some(u64::from(states))), ("ENTRIES", None)];
    let name = file.read(&header, "STATE VALUE", |fields| {
        let state = file.state(fields[0], "rewarded", states)?;
        let value = file.reward(fields[1])?;
        if std::mem::replace(&mut given[state as usize], true) {
            return Err(file.error(fields[0].0, format!("state {state} has a reward already")));
        }
        values[state as usize] = value;
        Ok(())
    })?;
    Ok(RewardStructure::of_states(name, values))
}

/// Parses `.trew` bytes for `model` (see the module's documentation for
/// the format); `path` names the file in errors, which say the line and
/// column at fault, a transition that `model` lacks included. Transitions
/// not listed earn 0.
pub fn parse_trew(
    bytes: &[u8],
    path: &Path,
    model: &ExplicitModel,
) -> Result<RewardStructure, LoadError> {
    let file = RewardsFile { bytes, path };
    let states = model.states();
    let mut rewards = vec![0.0; model.transitions() as usize];
    let mut given = vec![false; rewards.len()];
    // The branch after the last one found: files list the transitions in
    // the order of the `.tra` file, so it is usually the next one.
    let mut next = 0usize;
    let mut record = |branches: std::ops::Range<usize>,
                      targets: &[u32],
                      target: (usize, u32),
                      what: &dyn Fn() -> String,
                      value: f64|
     -> Result<(), LoadError> {
        let found = if branches.contains(&next) && targets[next] == target.1 {
            Some(next)
        } else {
            branches.clone().find(|&branch| targets[branch] == target.1)
        };
        let Some(branch) = found else {
            return Err(file.error(
                target.0,
                format!("{} has no transition to state {}", what(), target.1),
            ));
        };
        if std::mem::replace(&mut given[branch], true) {
            return Err(file.error(
                target.0,
                format!(
                    "the transition of {} to state {} has a reward already",
                    what(),
                    target.1
                ),
            ));
        }
        rewards[branch] = value;
        next = branch + 1;
        Ok(())
    };
    let name = match model {
        ExplicitModel::Dtmc(chain) | ExplicitModel::Ctmc(chain) => {
            let header = [("STATES", Some(u64::from(states))), ("ENTRIES", None)];
            file.read(&header, "SOURCE TARGET VALUE", |fields| {
                let source = file.state(fields[0], "source", states)?;
                let target = file.state(fields[1], "target", states)?;
                let value = file.reward(fields[2])?;
                let row = chain.offsets[source as usize] as usize
                    ..chain.offsets[source as usize + 1] as usize;
                let what = || format!("state {source}");
                record(row, &chain.targets, (fields[1].0, target), &what, value)
            })?
        }
        ExplicitModel::Mdp(mdp) => {
            let header = [
                ("STATES", Some(u64::from(states))),
                ("CHOICES", Some(mdp.choices())),
                ("ENTRIES", None),
            ];
            file.read(&header, "SOURCE CHOICE TARGET VALUE", |fields| {
                let source = file.state(fields[0], "source", states)?;
                let local = number(fields[1].1, "a choice number", u64::MAX)
                    .map_err(|message| file.error(fields[1].0, message))?;
                let target = file.state(fields[2], "target", states)?;
                let value = file.reward(fields[3])?;
                let choices = mdp.choices_of(source);
                let choice = choices.start.saturating_add(local);
                if choice >= choices.end {
                    return Err(file.error(
                        fields[1].0,
                        format!(
                            "state {source} has no choice {local}: it has {}",
                            choices.end - choices.start
                        ),
                    ));
                }
                let branches = mdp.branch_offsets[choice as usize] as usize
                    ..mdp.branch_offsets[choice as usize + 1] as usize;
                let what = || format!("choice {local} of state {source}");
                record(branches, &mdp.targets, (fields[2].0, target), &what, value)
            })?
        }
    };
    Ok(RewardStructure::of_moves(
        name,
        states,
        model.mean_move_rewards(&rewards),
    ))
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
    fn transition_rewards_are_read_as_mean_rewards_of_moves_and_checked() {
        let chain = tra("3 4\n0 1 0.25\n0 2 0.75\n1 2 1\n2 2 1\n", None).unwrap();
        let mdp = tra("2 3 4\n0 0 1 1\n0 1 0 0.5\n0 1 1 0.5\n1 0 1 1\n", None).unwrap();
        let trew = |text: &str, model: &ExplicitModel| {
            parse_trew(text.as_bytes(), Path::new("m.trew"), model).map_err(|e| e.to_string())
        };
        let read = trew(
            "# Reward structure \"r\"\n# Transition rewards\n3 2\n0 2 4\n0 1 8\n",
            &chain,
        )
        .unwrap();
        assert_eq!(read.name.as_deref(), Some("r"));
        assert_eq!(read.states, [0.0; 3]);
        assert_eq!(read.moves, Some(vec![0.25 * 8.0 + 0.75 * 4.0, 0.0, 0.0]));
        let read = trew("2 3 2\n0 1 0 2\n0 1 1 6\n", &mdp).unwrap();
        assert_eq!(read.moves, Some(vec![0.0, 4.0, 0.0]));
        let cases = [
            (
                "3 1\n0 0 1\n",
                &chain,
                "m.trew:2:3: state 0 has no transition to state 0",
            ),
            (
                "3 2\n0 1 1\n0 1 2\n",
                &chain,
                "m.trew:3:3: the transition of state 0 to state 1 has a reward already",
            ),
            (
                "3 1\n0 1\n",
                &chain,
                "m.trew:2:4: expected `SOURCE TARGET VALUE`",
            ),
            (
                "3 1\n0 1 x\n",
                &chain,
                "m.trew:2:5: expected a reward, found `x`",
            ),
            (
                "3 1\n0 5 1\n",
                &chain,
                "m.trew:2:3: target state 5 is out of range: the model has 3 states (0 to 2)",
            ),
            (
                "3 1\n",
                &chain,
                "m.trew:2:1: the header declares 1 entries but the file has 0",
            ),
            (
                "3 4\n",
                &mdp,
                "m.trew:1:1: expected the header `STATES CHOICES ENTRIES`",
            ),
            (
                "2 2 0\n",
                &mdp,
                "m.trew:1:3: the header declares 2 choices but the model has 3",
            ),
            (
                "2 3 1\n1 1 1 1\n",
                &mdp,
                "m.trew:2:3: state 1 has no choice 1: it has 1",
            ),
            (
                "2 3 1\n0 0 0 1\n",
                &mdp,
                "m.trew:2:5: choice 0 of state 0 has no transition to state 0",
            ),
        ];
        for (text, model, expected) in cases {
            assert_eq!(trew(text, model).unwrap_err(), expected, "for {text:?}");
        }
    }

    #[test]
    fn state_rewards_are_read_and_checked() {
        let srew = |text: &str| {
            parse_srew(text.as_bytes(), Path::new("m.srew"), 3).map_err(|e| e.to_string())
        };
        assert_eq!(srew("3 2\n0 1.5\n2 2\n").unwrap().states, [1.5, 0.0, 2.0]);
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

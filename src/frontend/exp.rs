//! CADP EXP networks, the subset
//!
//! ```text
//! par using "a" * _ * "b" -> "c", "d" * "d" * _ in
//!     "p1.aut" || p2.aut || "p3.aut"
//! end par
//! ```
//!
//! Each process is an `.aut` file, relative to the `.exp` file. A vector has
//! one entry per process (`_`: not taking part); without `-> RESULT` all
//! participants must use the same label, which is the result. With CADP's
//! meaning, a label that no vector covers is blocked, except the internal
//! action (`i` or `tau`), which always fires alone unless a vector names it.
//! Comments are `(* ... *)`.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use super::net::{Name, PResult, fail, include_aut, located, name_at, offset, vector_result};
use super::{LoadError, aut, fresh_name, read_file};
use crate::model::{Network, Participant, Process, SyncRule, UnmatchedLabels};

/// Reads an `.exp` file and the `.aut` files it names.
pub fn load(path: &Path) -> Result<Network, LoadError> {
    parse(&read_file(path)?, path)
}

/// Parses EXP text; `path` names the file in errors and is the base of the
/// relative `.aut` file names.
pub fn parse(text: &str, path: &Path) -> Result<Network, LoadError> {
    let error = |at: &str, message: String| LoadError::at(path, text, offset(text, at), message);
    let par = located(par(text), text, path)?;

    let mut network = Network {
        unmatched: UnmatchedLabels::Blocked,
        ..Network::default()
    };
    let stems: Vec<String> = par
        .processes
        .iter()
        .map(|file| {
            Path::new(&file.text)
                .file_stem()
                .map_or_else(|| file.text.clone(), |s| s.to_string_lossy().into_owned())
        })
        .collect();
    // Every stem is the name of its first process; later processes with the
    // same stem get `#POSITION`, and `#2`, `#3`, ... after that while the
    // name is taken, so that process names never collide.
    let mut taken: HashSet<String> = stems.iter().cloned().collect();
    let mut first_use = HashSet::new();
    for (position, (file, stem)) in par.processes.iter().zip(stems).enumerate() {
        let lts = include_aut(path, text, file)?;
        let name = if first_use.insert(stem.clone()) {
            stem
        } else {
            fresh_name(format!("{stem}#{}", position + 1), &mut taken)
        };
        network.processes.push(Process {
            name,
            lts,
            error_states: Vec::new(),
        });
    }

    for vector in par.vectors {
        if vector.entries.len() != network.processes.len() {
            return Err(error(
                vector.at,
                format!(
                    "vector has {} entries but `par` has {} processes",
                    vector.entries.len(),
                    network.processes.len()
                ),
            ));
        }
        let participants: Vec<Participant> = vector
            .entries
            .into_iter()
            .enumerate()
            .filter_map(|(process, label)| label.map(|label| Participant { process, label }))
            .collect();
        let result =
            vector_result(&participants, vector.result).map_err(|m| error(vector.at, m))?;
        network.rules.push(SyncRule {
            participants,
            result,
        });
    }
    add_internal_rules(&mut network);
    Ok(network)
}

/// Lets each process's internal action fire alone when no vector names it.
fn add_internal_rules(network: &mut Network) {
    let synchronised = network.synchronising_labels();
    let lone: BTreeSet<usize> = network
        .processes
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            !synchronised[*i].contains(aut::INTERNAL_ACTION)
                && p.lts.used_labels().contains(aut::INTERNAL_ACTION)
        })
        .map(|(i, _)| i)
        .collect();
    for process in lone {
        network.rules.push(SyncRule {
            participants: vec![Participant {
                process,
                label: aut::INTERNAL_ACTION.to_string(),
            }],
            result: aut::INTERNAL_ACTION.to_string(),
        });
    }
}

/// One vector: entries (`None` for `_`), its result, and where it starts.
struct Vector<'a> {
    at: &'a str,
    entries: Vec<Option<String>>,
    result: Option<String>,
}

/// The parsed `par` expression.
struct Par<'a> {
    vectors: Vec<Vector<'a>>,
    processes: Vec<Name<'a>>,
}

/// Skips white space and `(* ... *)` comments.
fn skip(mut input: &str) -> PResult<'_, ()> {
    loop {
        input = input.trim_start();
        match input.strip_prefix("(*") {
            Some(rest) => match rest.find("*)") {
                Some(end) => input = &rest[end + 2..],
                None => return fail(input, "unterminated comment: expected `*)`"),
            },
            None => return Ok((input, ())),
        }
    }
}

/// Characters of an unquoted label or file name.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | '!' | '?')
}

/// A quoted or bare word (file name or label), or a failure saying `expected`.
fn word<'a>(input: &'a str, expected: &str) -> PResult<'a, Name<'a>> {
    let (at, _) = skip(input)?;
    name_at(at, expected, is_word_char)
}

/// The keyword `keyword`, or a failure "expected `keyword` {context}".
fn keyword<'a>(input: &'a str, keyword: &str, context: &str) -> PResult<'a, ()> {
    let (at, _) = skip(input)?;
    match word(at, "") {
        Ok((rest, w)) if !w.quoted && w.text == keyword => Ok((rest, ())),
        _ => fail(at, format!("expected `{keyword}` {context}")),
    }
}

/// After white space: the input past `symbol` when it comes next.
fn symbol<'a>(input: &'a str, symbol: &str) -> PResult<'a, Option<&'a str>> {
    let (at, _) = skip(input)?;
    Ok((at, at.strip_prefix(symbol)))
}

/// Words of the `par` syntax; as labels they must be quoted.
const KEYWORDS: [&str; 4] = ["par", "using", "in", "end"];

/// A label or file name: a quoted word, or a bare one that is not a
/// keyword.
fn label<'a>(input: &'a str, expected: &str) -> PResult<'a, Name<'a>> {
    let (rest, w) = word(input, expected)?;
    if !w.quoted && KEYWORDS.contains(&w.text.as_str()) {
        return fail(w.at, expected.to_string());
    }
    Ok((rest, w))
}

/// A vector entry: `None` for `_`, the label otherwise (`i` read as the
/// internal action).
fn entry(input: &str) -> PResult<'_, Option<String>> {
    let (rest, w) = label(input, "expected a label or `_` in a vector")?;
    Ok((
        rest,
        match w.text.as_str() {
            "_" if !w.quoted => None,
            "i" | "tau" => Some(aut::INTERNAL_ACTION.to_string()),
            _ => Some(w.text),
        },
    ))
}

/// `first`, read already, then every further `separator ITEM` that
/// follows, each ITEM read by `item`.
fn more<'a, T>(
    mut rest: &'a str,
    first: T,
    separator: &str,
    item: impl Fn(&'a str) -> PResult<'a, T>,
) -> PResult<'a, Vec<T>> {
    let mut items = vec![first];
    while let (_, Some(after)) = symbol(rest, separator)? {
        let (after, next) = item(after)?;
        items.push(next);
        rest = after;
    }
    Ok((rest, items))
}

/// `ENTRY (* ENTRY)* (-> RESULT)?`.
fn vector(input: &str) -> PResult<'_, Vector<'_>> {
    let (at, _) = skip(input)?;
    let (rest, first) = entry(at)?;
    let (rest, entries) = more(rest, first, "*", entry)?;
    let (rest, result) = match symbol(rest, "->")? {
        (_, Some(after)) => {
            let (after, w) = label(after, "expected a result label after `->`")?;
            (after, Some(w.text))
        }
        (rest, None) => (rest, None),
    };
    Ok((
        rest,
        Vector {
            at,
            entries,
            result,
        },
    ))
}

/// The whole file: `par using VECTORS in PROCESSES end par`.
fn par(text: &str) -> PResult<'_, Par<'_>> {
    let (rest, _) = keyword(text, "par", "at the start of the network")?;
    let (rest, _) = keyword(
        rest,
        "using",
        "after `par` (only `par using ... in ... end par` is supported)",
    )?;
    let (rest, first) = vector(rest)?;
    let (rest, vectors) = more(rest, first, ",", vector)?;
    let (rest, _) = keyword(rest, "in", "or `,` after a vector")?;
    let (rest, first) = label(rest, "expected an `.aut` file name after `in`")?;
    let (rest, processes) = more(rest, first, "||", |after| {
        label(after, "expected an `.aut` file name after `||`")
    })?;
    let (rest, _) = keyword(rest, "end", "or `||` after a process")?;
    let (rest, _) = keyword(rest, "par", "after `end`")?;
    let (rest, _) = skip(rest)?;
    if !rest.is_empty() {
        return fail(rest, "unexpected text after `end par`");
    }
    Ok((rest, Par { vectors, processes }))
}

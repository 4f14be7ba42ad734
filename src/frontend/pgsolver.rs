//! PGSolver parity games (`.pg`, plain or gzip-compressed) and their
//! solutions (`paritysol`), the format Oink and PGSolver read and write.
//!
//! * A game: a header `parity N;`, an optional `start K;` (read and
//!   ignored), then one line per vertex `ID PRIORITY OWNER SUCC,SUCC,...
//!   "NAME";` in any order of ids. `OWNER` is 0 (Even) or 1 (Odd); the
//!   name is optional and may be empty or hold blanks; names are checked
//!   but not kept (a game of 10^7 vertices would spend more on them than
//!   on its moves). `N` is the highest id; a header that gives the vertex
//!   count instead (ids `0..N-1` defined, `N` not) is read as that count,
//!   as Oink does. Duplicate successors are dropped; successor lists are
//!   kept sorted. A vertex without successors is refused: every play of a
//!   parity game is infinite.
//! * A solution: `paritysol N;`, then `ID WINNER [STRATEGY];` per vertex,
//!   winner 0 for Even and 1 for Odd, the strategy (the successor the
//!   winner picks) where the winner owns the vertex. [`read_solution`]
//!   also reads Oink's `ID WINNER` lines without header or `;`.
//!
//! Lines are scanned as bytes, in parallel chunks, with no allocation per
//! line.

use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::aut::{next_nonblank_line, split_at_lines};
use super::{LoadError, read_explicit};
use crate::explicit::game::NO_MOVE;
use crate::explicit::{Csr, MAX_STATES, ParityGame, Player};

const HEADER: &str = "expected the header `parity N;` (N: the highest vertex id)";
const VERTEX_LINE: &str =
    "expected a vertex line `ID PRIORITY OWNER SUCCESSOR,SUCCESSOR,... \"NAME\";`";

/// Reads the parity game of the PGSolver file `path` (plain or gzip).
pub fn load(path: &Path) -> Result<ParityGame, LoadError> {
    parse(&read_explicit(path)?, path)
}

/// A decimal number of at most 20 digits at the start of `bytes`: its
/// value and length, `None` without a digit or for more digits.
fn leading_number(bytes: &[u8]) -> Option<(u64, usize)> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut value = 0u64;
    for &digit in &bytes[..digits] {
        value = value
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    Some((value, digits))
}

/// The text of a token at the start of `bytes`, for messages.
fn token(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|b| b.is_ascii_whitespace() || matches!(b, b',' | b';'))
        .unwrap_or(bytes.len());
    let end = end.clamp(1.min(bytes.len()), 24.min(bytes.len()));
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// A fault in a line: its offset in the line and the message.
type LineFault = (usize, String);

/// A cursor over one line.
struct Cursor<'a> {
    line: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn skip_blanks(&mut self) {
        while self.at < self.line.len() && self.line[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.line.get(self.at).copied()
    }

    /// A number named `what` (for messages) of at most `max`, after
    /// blanks; `too_large` is the message for a larger one.
    fn number(
        &mut self,
        what: &str,
        max: u64,
        too_large: impl Fn(&str) -> String,
    ) -> Result<u64, LineFault> {
        self.skip_blanks();
        let rest = &self.line[self.at..];
        let found = || {
            if rest.is_empty() {
                "the end of the line".to_string()
            } else {
                format!("`{}`", token(rest))
            }
        };
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return Err((self.at, format!("expected {what}, found {}", found())));
        }
        match leading_number(rest) {
            Some((value, _)) if value <= max => {
                self.at += digits;
                Ok(value)
            }
            _ => Err((
                self.at,
                too_large(&String::from_utf8_lossy(&rest[..digits])),
            )),
        }
    }

    /// Requires a blank (or the end) after a field.
    fn blank_after(&self, what: &str) -> Result<(), LineFault> {
        match self.peek() {
            Some(b) if !b.is_ascii_whitespace() => Err((
                self.at,
                format!("unexpected `{}` after {what}", token(&self.line[self.at..])),
            )),
            _ => Ok(()),
        }
    }
}

/// What a vertex line gives besides its successors.
struct VertexLine {
    id: u32,
    priority: u32,
    owner: Player,
}

/// The message for an id beyond the header.
fn beyond_header(what: &str, value: &str, max_id: u64) -> String {
    format!("{what} {value} is beyond the header `parity {max_id};` (ids 0 to {max_id})")
}

/// Parses one vertex line whose ids are at most `max_id`, appending its
/// successors, sorted and without duplicates, to `targets`.
fn vertex_line(line: &[u8], max_id: u64, targets: &mut Vec<u32>) -> Result<VertexLine, LineFault> {
    let mut cursor = Cursor { line, at: 0 };
    let id = cursor
        .number("a vertex id", max_id, |v| {
            beyond_header("vertex id", v, max_id)
        })
        .map_err(|(at, message)| {
            if at == line.iter().take_while(|b| b.is_ascii_whitespace()).count()
                && message.starts_with("expected")
            {
                (at, VERTEX_LINE.to_string())
            } else {
                (at, message)
            }
        })? as u32;
    cursor.blank_after("the vertex id")?;
    let priority = cursor.number("a priority", u64::from(u32::MAX), |v| {
        format!(
            "priority {v} is too large: priorities are at most {}",
            u32::MAX
        )
    })? as u32;
    cursor.blank_after("the priority")?;
    cursor.skip_blanks();
    let owner_at = cursor.at;
    let owner = match cursor.number("an owner (0 for Even, 1 for Odd)", 1, |v| {
        format!("owner {v} is neither 0 (Even) nor 1 (Odd)")
    })? {
        0 => Player::Even,
        _ => Player::Odd,
    };
    if cursor
        .peek()
        .is_some_and(|b| !b.is_ascii_whitespace() && b != b';')
    {
        return Err((
            owner_at,
            format!(
                "owner `{}` is neither 0 (Even) nor 1 (Odd)",
                token(&line[owner_at..])
            ),
        ));
    }
    cursor.skip_blanks();
    let first = targets.len();
    if matches!(cursor.peek(), None | Some(b';' | b'"')) {
        return Err((
            cursor.at,
            format!(
                "vertex {id} has no successor: dead ends are not allowed, since every play of a \
                 parity game is infinite (give it a self-loop `{id}` to make it a sink)"
            ),
        ));
    }
    loop {
        let successor = cursor.number("a successor id", max_id, |v| {
            beyond_header("successor", v, max_id)
        })?;
        targets.push(successor as u32);
        cursor.skip_blanks();
        if cursor.peek() == Some(b',') {
            cursor.at += 1;
        } else {
            break;
        }
    }
    let successors = &mut targets[first..];
    successors.sort_unstable();
    let mut kept = 0;
    for i in 0..successors.len() {
        if i == 0 || successors[i] != successors[kept - 1] {
            successors[kept] = successors[i];
            kept += 1;
        }
    }
    targets.truncate(first + kept);
    if cursor.peek() == Some(b'"') {
        let name_at = cursor.at;
        match memchr::memchr(b'"', &line[name_at + 1..]) {
            Some(length) => cursor.at = name_at + length + 2,
            None => return Err((name_at, "expected `\"` to close the vertex name".into())),
        }
        cursor.skip_blanks();
    }
    if cursor.peek() != Some(b';') {
        let found = match cursor.peek() {
            None => "the end of the line".to_string(),
            Some(_) => format!("`{}`", token(&line[cursor.at..])),
        };
        return Err((
            cursor.at,
            format!("expected `,` and a successor, a name in quotes, or `;`, found {found}"),
        ));
    }
    cursor.at += 1;
    cursor.skip_blanks();
    if cursor.at < line.len() {
        return Err((cursor.at, "unexpected text after `;`".into()));
    }
    Ok(VertexLine {
        id,
        priority,
        owner,
    })
}

/// The vertex lines of one chunk, as parallel arrays.
#[derive(Default)]
struct Chunk {
    ids: Vec<u32>,
    priorities: Vec<u32>,
    owners: Vec<Player>,
    /// Successors per line (after removing duplicates).
    degrees: Vec<u32>,
    targets: Vec<u32>,
}

/// Parses the vertex lines of `bytes[start..end]`; a fault gives its
/// offset in the file and the message.
fn parse_chunk(
    bytes: &[u8],
    start: usize,
    end: usize,
    max_id: u64,
) -> Result<Chunk, (usize, String)> {
    let mut chunk = Chunk::default();
    let mut from = start;
    while let Some((line_at, line_end)) = next_nonblank_line(bytes, from, end) {
        from = line_end + 1;
        let before = chunk.targets.len();
        let line = vertex_line(&bytes[line_at..line_end], max_id, &mut chunk.targets)
            .map_err(|(at, message)| (line_at + at, message))?;
        chunk.ids.push(line.id);
        chunk.priorities.push(line.priority);
        chunk.owners.push(line.owner);
        chunk.degrees.push((chunk.targets.len() - before) as u32);
    }
    Ok(chunk)
}

/// The header: the number it gives and where that number is; the offset
/// where the vertex lines begin (after an optional `start K;`).
struct Header {
    max_id: u64,
    number_at: usize,
    body: usize,
}

/// Reads `parity N;` and an optional `start K;` line.
fn header(bytes: &[u8]) -> Result<Header, (usize, String)> {
    let Some((at, end)) = next_nonblank_line(bytes, 0, bytes.len()) else {
        return Err((0, HEADER.into()));
    };
    let line = &bytes[at..end];
    let number_at = line
        .strip_prefix(b"parity")
        .filter(|rest| rest.first().is_some_and(u8::is_ascii_whitespace))
        .map(|rest| 6 + rest.iter().take_while(|b| b.is_ascii_whitespace()).count())
        .ok_or((at, HEADER.to_string()))?;
    let (max_id, digits) =
        leading_number(&line[number_at..]).ok_or((at + number_at, HEADER.into()))?;
    if max_id >= MAX_STATES {
        return Err((
            at + number_at,
            format!("the header declares {max_id} as its highest id; ids are below {MAX_STATES}"),
        ));
    }
    let rest = line[number_at + digits..].trim_ascii();
    if rest != b";" {
        return Err((
            at + number_at + digits,
            "expected `;` to end the header".into(),
        ));
    }
    // A vertex line takes at least 8 bytes (`0 0 0 0;`): a header may not
    // ask for more vertices than the file can hold, since the arrays are
    // sized by it.
    if max_id > bytes.len() as u64 / 8 {
        return Err((
            at + number_at,
            format!(
                "the header declares {} vertices, more than a file of {} bytes can describe",
                max_id + 1,
                bytes.len()
            ),
        ));
    }
    let mut body = (end + 1).min(bytes.len());
    if let Some((start_at, start_end)) = next_nonblank_line(bytes, body, bytes.len()) {
        let line = &bytes[start_at..start_end];
        if line.starts_with(b"start") {
            let rest = line[5..].trim_ascii();
            let valid = rest
                .strip_suffix(b";")
                .map(|number| number.trim_ascii())
                .and_then(|number| leading_number(number).filter(|&(_, d)| d == number.len()));
            if valid.is_none() {
                return Err((start_at, "expected `start ID;`".into()));
            }
            body = (start_end + 1).min(bytes.len());
        }
    }
    Ok(Header {
        max_id,
        number_at: at + number_at,
        body,
    })
}

/// Parses a PGSolver game held in `bytes`; `path` names the file in
/// errors, which are located at the line at fault.
pub fn parse(bytes: &[u8], path: &Path) -> Result<ParityGame, LoadError> {
    let error =
        |(offset, message): (usize, String)| LoadError::at_bytes(path, bytes, offset, message);
    let header = header(bytes).map_err(error)?;
    let max_id = header.max_id;
    let chunks: Vec<Result<Chunk, (usize, String)>> = split_at_lines(bytes, header.body)
        .into_par_iter()
        .map(|(start, end)| parse_chunk(bytes, start, end, max_id))
        .collect();
    let chunks = chunks
        .into_iter()
        .collect::<Result<Vec<Chunk>, _>>()
        .map_err(error)?;

    let declared = max_id as usize + 1;
    let mut defined = vec![false; declared];
    let mut priorities = vec![0u32; declared];
    let mut owners = vec![Player::Even; declared];
    let mut degrees = vec![0u64; declared + 1];
    let mut count = 0usize;
    for chunk in &chunks {
        for (i, &id) in chunk.ids.iter().enumerate() {
            let slot = id as usize;
            if std::mem::replace(&mut defined[slot], true) {
                let at = nth_definition(bytes, header.body, id, 2).unwrap_or(bytes.len());
                return Err(error((at, format!("vertex {id} is defined twice"))));
            }
            priorities[slot] = chunk.priorities[i];
            owners[slot] = chunk.owners[i];
            degrees[slot + 1] = u64::from(chunk.degrees[i]);
            count += 1;
        }
    }
    // A header giving the vertex count: ids 0..N-1 defined, N not.
    let vertices = if count == declared - 1 && max_id > 0 && !defined[declared - 1] {
        declared - 1
    } else {
        declared
    };
    if let Some(missing) = defined[..vertices].iter().position(|&d| !d) {
        let absent = vertices - count.min(vertices);
        let others = match absent {
            0 | 1 => String::new(),
            2 => " (and 1 other id)".to_string(),
            n => format!(" (and {} other ids)", n - 1),
        };
        return Err(error((
            header.number_at,
            format!(
                "vertex {missing}{others} is never defined; the header `parity {max_id};` \
                 declares the ids 0 to {max_id}"
            ),
        )));
    }
    for v in 0..vertices {
        degrees[v + 1] += degrees[v];
    }
    degrees.truncate(vertices + 1);
    let mut offsets = degrees;
    let mut targets = vec![0u32; offsets[vertices] as usize];
    let mut cursor = offsets.clone();
    for chunk in &chunks {
        let mut from = 0usize;
        for (i, &id) in chunk.ids.iter().enumerate() {
            let degree = chunk.degrees[i] as usize;
            let slot = &mut cursor[id as usize];
            targets[*slot as usize..*slot as usize + degree]
                .copy_from_slice(&chunk.targets[from..from + degree]);
            *slot += degree as u64;
            from += degree;
        }
    }
    if vertices < declared
        && let Some(at) = successor_offset(bytes, header.body, (vertices) as u32)
    {
        return Err(error((
            at,
            format!(
                "successor {vertices} is never defined (the header `parity {max_id};` is read as \
                 the vertex count, ids 0 to {})",
                vertices - 1
            ),
        )));
    }
    priorities.truncate(vertices);
    owners.truncate(vertices);
    offsets.truncate(vertices + 1);
    Ok(ParityGame {
        priorities,
        owners,
        edges: Csr { offsets, targets },
        names: Vec::new(),
    })
}

/// The start of the `nth` line (from 1) that defines vertex `id`: where
/// the message about a duplicate points. A slow scan, for errors only.
fn nth_definition(bytes: &[u8], mut from: usize, id: u32, nth: usize) -> Option<usize> {
    let mut seen = 0;
    while let Some((start, end)) = next_nonblank_line(bytes, from, bytes.len()) {
        let line = bytes[start..end].trim_ascii_start();
        if leading_number(line).is_some_and(|(value, _)| value == u64::from(id)) {
            seen += 1;
            if seen == nth {
                return Some(start + (end - start - line.len()));
            }
        }
        from = end + 1;
    }
    None
}

/// The offset of the first successor `id` in the vertex lines from
/// `from` on. A slow scan, for errors only.
fn successor_offset(bytes: &[u8], mut from: usize, id: u32) -> Option<usize> {
    let mut successors = Vec::new();
    while let Some((start, end)) = next_nonblank_line(bytes, from, bytes.len()) {
        successors.clear();
        let line = &bytes[start..end];
        if vertex_line(line, u64::from(u32::MAX), &mut successors).is_ok()
            && successors.contains(&id)
        {
            let mut at = 0;
            // Past id, priority and owner, then the successor tokens.
            for _ in 0..3 {
                at += line[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
                at += line[at..]
                    .iter()
                    .take_while(|b| !b.is_ascii_whitespace())
                    .count();
            }
            while at < line.len() {
                let rest = &line[at..];
                if let Some((value, digits)) = leading_number(rest) {
                    if value == u64::from(id) {
                        return Some(start + at);
                    }
                    at += digits;
                } else {
                    at += 1;
                }
            }
        }
        from = end + 1;
    }
    None
}

/// Writes `game` in PGSolver's format, as [`parse`] reads it back:
/// `parity N;` (N the highest id), then `ID PRIORITY OWNER SUCC,...;` per
/// vertex (without names). For generated games (`examples/`) and tests.
pub fn write_game(out: &mut impl Write, game: &ParityGame) -> io::Result<()> {
    writeln!(out, "parity {};", game.vertices().saturating_sub(1))?;
    for v in 0..game.vertices() {
        let owner = game.owners[v as usize] as u8;
        write!(out, "{v} {} {owner} ", game.priorities[v as usize])?;
        for (i, w) in game.edges.successors(v).iter().enumerate() {
            write!(out, "{}{w}", if i == 0 { "" } else { "," })?;
        }
        writeln!(out, ";")?;
    }
    Ok(())
}

/// Writes a solution in PGSolver's format: `paritysol N;` (N the highest
/// id), then `ID WINNER STRATEGY;` for every vertex, the strategy only
/// where the winner owns the vertex (`strategy[v]` is not [`NO_MOVE`]).
pub fn write_solution(
    out: &mut impl Write,
    winners: &[Player],
    strategy: &[u32],
) -> io::Result<()> {
    writeln!(out, "paritysol {};", winners.len().saturating_sub(1))?;
    for (vertex, (&winner, &choice)) in winners.iter().zip(strategy).enumerate() {
        if choice == NO_MOVE {
            writeln!(out, "{vertex} {};", winner as u8)?;
        } else {
            writeln!(out, "{vertex} {} {choice};", winner as u8)?;
        }
    }
    Ok(())
}

/// A solution read back: the winner of every vertex and the strategy
/// ([`NO_MOVE`] where none is given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolutionFile {
    /// The winner of every vertex.
    pub winners: Vec<Player>,
    /// The successor the winner picks, or [`NO_MOVE`].
    pub strategy: Vec<u32>,
}

/// Reads a solution of a game of `vertices` vertices (plain or gzip):
/// `paritysol N;` and `ID WINNER [STRATEGY];` lines as
/// [`write_solution`] writes them, or Oink's `ID WINNER` lines. Every
/// vertex must be given once.
pub fn read_solution(path: &Path, vertices: u32) -> Result<SolutionFile, LoadError> {
    let bytes = read_explicit(path)?;
    let error = |offset: usize, message: String| LoadError::at_bytes(path, &bytes, offset, message);
    let mut winners = vec![None; vertices as usize];
    let mut strategy = vec![NO_MOVE; vertices as usize];
    let max_id = u64::from(vertices.saturating_sub(1));
    let mut from = 0;
    while let Some((start, end)) = next_nonblank_line(&bytes, from, bytes.len()) {
        from = end + 1;
        let line = &bytes[start..end];
        if line.trim_ascii_start().starts_with(b"paritysol") {
            continue;
        }
        let mut cursor = Cursor { line, at: 0 };
        let fault = |(at, message): LineFault| error(start + at, message);
        let id = cursor
            .number("a vertex id", max_id, |v| {
                format!("vertex {v} is not in the game")
            })
            .map_err(fault)? as usize;
        let winner = match cursor
            .number("a winner (0 or 1)", 1, |v| {
                format!("winner {v} is neither 0 nor 1")
            })
            .map_err(fault)?
        {
            0 => Player::Even,
            _ => Player::Odd,
        };
        cursor.skip_blanks();
        if cursor.peek().is_some_and(|b| b.is_ascii_digit()) {
            strategy[id] = cursor
                .number("a successor", max_id, |v| {
                    format!("successor {v} is not in the game")
                })
                .map_err(fault)? as u32;
        }
        cursor.skip_blanks();
        if cursor.peek() == Some(b';') {
            cursor.at += 1;
            cursor.skip_blanks();
        }
        if cursor.at < line.len() {
            return Err(error(
                start + cursor.at,
                "unexpected text after the solution line".into(),
            ));
        }
        if winners[id].replace(winner).is_some() {
            return Err(error(start, format!("vertex {id} is given twice")));
        }
    }
    let winners = winners
        .iter()
        .enumerate()
        .map(|(vertex, winner)| {
            winner.ok_or_else(|| error(bytes.len(), format!("vertex {vertex} has no winner")))
        })
        .collect::<Result<Vec<Player>, LoadError>>()?;
    Ok(SolutionFile { winners, strategy })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(text: &str) -> Result<ParityGame, String> {
        parse(text.as_bytes(), Path::new("g.pg")).map_err(|e| e.to_string())
    }

    #[test]
    fn games_are_read_in_any_order_with_names_and_start() {
        let text = "parity 2;\nstart 1;\n2 5 1 0,0,2 \"a; b\";\n0 0 0 2,1;\r\n\n1 3 1 1 \"\" ;\n";
        let game = game(text).unwrap();
        assert_eq!(game.priorities, [0, 3, 5]);
        assert_eq!(game.owners, [Player::Even, Player::Odd, Player::Odd]);
        assert_eq!(game.edges.offsets, [0, 2, 3, 5]);
        assert_eq!(game.edges.targets, [1, 2, 1, 0, 2]);
        assert_eq!(game.validate(), Ok(()));
    }

    #[test]
    fn a_header_may_give_the_vertex_count() {
        let counted = game("parity 2;\n0 1 0 1;\n1 2 1 0;\n").unwrap();
        assert_eq!(counted.vertices(), 2);
        assert_eq!(
            game("parity 2;\n0 1 0 1,2;\n1 2 1 0;\n").unwrap_err(),
            "g.pg:2:9: successor 2 is never defined (the header `parity 2;` is read as the vertex count, ids 0 to 1)"
        );
    }

    #[test]
    fn errors_are_located() {
        let cases = [
            (
                "",
                "g.pg:1:1: expected the header `parity N;` (N: the highest vertex id)",
            ),
            (
                "parity x;\n",
                "g.pg:1:8: expected the header `parity N;` (N: the highest vertex id)",
            ),
            ("parity 1\n", "g.pg:1:9: expected `;` to end the header"),
            (
                "parity 9;\n0 1 0 0;\n",
                "g.pg:1:8: the header declares 10 vertices, more than a file of 19 bytes can describe",
            ),
            (
                "parity 1;\nstart;\n0 1 0 1;\n1 1 0 0;\n",
                "g.pg:2:1: expected `start ID;`",
            ),
            (
                "parity 1;\n0 1 0 1;\nx\n",
                "g.pg:3:1: expected a vertex line `ID PRIORITY OWNER SUCCESSOR,SUCCESSOR,... \"NAME\";`",
            ),
            (
                "parity 1;\n0 1 0 1;\n0 2 1 0;\n",
                "g.pg:3:1: vertex 0 is defined twice",
            ),
            (
                "parity 1;\n0 1 0 7;\n1 1 0 0;\n",
                "g.pg:2:7: successor 7 is beyond the header `parity 1;` (ids 0 to 1)",
            ),
            (
                "parity 1;\n0 1 0 1;\n5 1 0 0;\n",
                "g.pg:3:1: vertex id 5 is beyond the header `parity 1;` (ids 0 to 1)",
            ),
            (
                "parity 3;\n0 1 0 1;\n1 1 0 0;\n",
                "g.pg:1:8: vertex 2 (and 1 other id) is never defined; the header `parity 3;` declares the ids 0 to 3",
            ),
            (
                "parity 1;\n0 4294967296 0 1;\n1 1 0 0;\n",
                "g.pg:2:3: priority 4294967296 is too large: priorities are at most 4294967295",
            ),
            (
                "parity 1;\n0 1 2 1;\n1 1 0 0;\n",
                "g.pg:2:5: owner 2 is neither 0 (Even) nor 1 (Odd)",
            ),
            (
                "parity 1;\n0 1 0x 1;\n1 1 0 0;\n",
                "g.pg:2:5: owner `0x` is neither 0 (Even) nor 1 (Odd)",
            ),
            (
                "parity 1;\n0 1 0 ;\n1 1 0 0;\n",
                "g.pg:2:7: vertex 0 has no successor: dead ends are not allowed, since every play of a parity game is infinite (give it a self-loop `0` to make it a sink)",
            ),
            (
                "parity 1;\n0 1 0 1 \"a;\n1 1 0 0;\n",
                "g.pg:2:9: expected `\"` to close the vertex name",
            ),
            (
                "parity 1;\n0 1 0 1\n1 1 0 0;\n",
                "g.pg:2:8: expected `,` and a successor, a name in quotes, or `;`, found the end of the line",
            ),
            (
                "parity 1;\n0 1 0 1,;\n1 1 0 0;\n",
                "g.pg:2:9: expected a successor id, found `;`",
            ),
            (
                "parity 1;\n0 1 0 1; 1 1 0 0;\n",
                "g.pg:2:10: unexpected text after `;`",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(game(text).unwrap_err(), expected, "for {text:?}");
        }
    }

    #[test]
    fn solutions_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sol");
        let winners = [Player::Odd, Player::Even, Player::Even];
        let strategy = [NO_MOVE, 2, NO_MOVE];
        let mut text = Vec::new();
        write_solution(&mut text, &winners, &strategy).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&text),
            "paritysol 2;\n0 1;\n1 0 2;\n2 0;\n"
        );
        std::fs::write(&path, &text).unwrap();
        let read = read_solution(&path, 3).unwrap();
        assert_eq!(read.winners, winners);
        assert_eq!(read.strategy, strategy);
        std::fs::write(&path, "0 1\n2 0\n").unwrap();
        assert_eq!(
            read_solution(&path, 3).unwrap_err().to_string(),
            format!("{}:3:1: vertex 1 has no winner", path.display())
        );
    }
}

//! The PRISM property language of `warpcheck prob`: numerical queries over
//! state formulas built from the model's labels.
//!
//! ```text
//! P=? [ F "goal" ]                     probability of eventually reaching goal
//! Pmax=? [ !"fail" U<=10 "done" ]      bounded until, maximised over schedulers
//! R{"steps"}min=? [ F "done" ]         expected reward accumulated until done
//! S=? [ "busy" ]                       long-run probability of busy states
//! R{"queue"}=? [ S ]                   long-run reward rate
//! ```
//!
//! [`parse`] reads one property into a [`Property`], [`parse_file`] one per
//! line. `F φ` is stored as `true U φ`, so engines see a single path
//! operator. Every error carries the 1-based character column it is about,
//! labels included, so that [`StateFormula::states`] can point at a label
//! the model lacks.

use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{char, digit0, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::error::{ErrorKind, ParseError};
use nom::{IResult, Parser};

use crate::explicit::StateLabels;

/// Most `!`, `&`, `|` and `(` one property may hold. The parser and the
/// evaluation recurse over the formula, so a bound on its depth keeps them
/// (and dropping the tree) within any thread's stack whatever the input;
/// real properties use a handful.
const MAX_OPERATORS: usize = 256;

/// A syntax error, or a state formula that does not fit the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct PropertyError {
    /// 1-based column, in characters, of what the error is about in the text
    /// given to [`parse`] (the line, for [`parse_file`]).
    pub column: usize,
    /// What is wrong, for the user.
    pub message: String,
}

/// A set of states described by labels and Boolean connectives.
#[derive(Debug, Clone, PartialEq)]
pub enum StateFormula {
    /// The states carrying the label `name`, written `"name"` at `column`
    /// (1-based, in characters, of the opening quote).
    Label {
        /// The label's name, without quotes.
        name: String,
        /// Where the label is written, for errors about it.
        column: usize,
    },
    /// Every state.
    True,
    /// No state.
    False,
    /// The states that do not satisfy the formula (`!φ`).
    Not(Box<StateFormula>),
    /// The states that satisfy both formulas (`φ & φ`).
    And(Box<StateFormula>, Box<StateFormula>),
    /// The states that satisfy either formula (`φ | φ`).
    Or(Box<StateFormula>, Box<StateFormula>),
}

/// Which scheduler of an MDP a query asks for: the one that minimises or the
/// one that maximises the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optimum {
    /// `Pmin`, `Rmin`.
    Min,
    /// `Pmax`, `Rmax`.
    Max,
}

/// The bound `k` of `F<=k` or `U<=k`: steps for DTMCs and MDPs, time for
/// CTMCs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The bound, non-negative and finite.
    pub value: f64,
    /// Whether it was written as an integer (digits only): step-bounded
    /// engines need one, and decide what to do with others.
    pub integral: bool,
}

/// What a path must do for `P` to count it.
#[derive(Debug, Clone, PartialEq)]
pub enum PathFormula {
    /// `left U right` (within `bound` steps or time units when given): the
    /// path reaches a `right` state and passes only `left` states before it.
    /// `F φ` is `true U φ`.
    Until {
        /// What every state before the `right` state satisfies.
        left: StateFormula,
        /// What the path reaches.
        right: StateFormula,
        /// The `<=k` of `U<=k` or `F<=k`, if any.
        bound: Option<Bound>,
    },
}

/// What a property asks to compute, for every state of the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    /// `P=? [ path ]`, `Pmin=? [ path ]`, `Pmax=? [ path ]`: the probability
    /// of the paths that satisfy `path`.
    Probability {
        /// For MDPs, which scheduler; `None` for `P=?`.
        optimum: Option<Optimum>,
        /// What the counted paths do.
        path: PathFormula,
    },
    /// `R{"structure"}=? [ F target ]` and its `min`/`max` forms: the
    /// expected reward accumulated until a `target` state is reached.
    Reward {
        /// The reward structure named in `R{"…"}`; `None` for the model's
        /// only (or first) one.
        structure: Option<String>,
        /// For MDPs, which scheduler; `None` for `R=?`.
        optimum: Option<Optimum>,
        /// The states where accumulation stops.
        target: StateFormula,
    },
    /// `S=? [ φ ]`: the long-run probability of being in a `φ` state.
    LongRunProbability(StateFormula),
    /// `R{"structure"}=? [ S ]`: the long-run average reward per time unit
    /// (or step).
    LongRunReward {
        /// The reward structure named in `R{"…"}`, if any.
        structure: Option<String>,
    },
}

/// One property: what was written, and what it asks.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// The property as written, without surrounding whitespace, for reports.
    pub text: String,
    /// What to compute.
    pub query: Query,
}

/// Parses one property, such as `Pmax=? [ F<=10 "goal" ]`.
pub fn parse(text: &str) -> Result<Property, PropertyError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(PropertyError {
            column: 1,
            message: "empty property".to_string(),
        });
    }
    let mut grammar = Grammar { text, operators: 0 };
    match grammar.property(text) {
        Ok((_, query)) => Ok(Property {
            text: trimmed.to_string(),
            query,
        }),
        Err(nom::Err::Error(syntax) | nom::Err::Failure(syntax)) => Err(PropertyError {
            column: column(text, syntax.rest),
            message: syntax.message,
        }),
        Err(nom::Err::Incomplete(_)) => Err(PropertyError {
            column: column(text, ""),
            message: "unexpected end of the property".to_string(),
        }),
    }
}

/// Parses a properties file: one property per line; blank lines and lines
/// starting with `//` are skipped. An error comes with its 1-based line.
pub fn parse_file(text: &str) -> Result<Vec<Property>, (usize, PropertyError)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with("//")
        })
        .map(|(index, line)| parse(line).map_err(|error| (index + 1, error)))
        .collect()
}

impl StateFormula {
    /// Which of the model's `states` states satisfy the formula, indexed by
    /// state. Fails, at the label's column, on a label that `labels` lacks
    /// or that holds a state number of `states` or more.
    pub fn states(&self, labels: &StateLabels, states: u32) -> Result<Vec<bool>, PropertyError> {
        let count = states as usize;
        Ok(match self {
            Self::Label { name, column } => {
                let error = |message| PropertyError {
                    column: *column,
                    message,
                };
                let members = labels
                    .get(name)
                    .ok_or_else(|| error(unknown_label(name, labels)))?;
                let mut set = vec![false; count];
                for &state in members {
                    let slot = set.get_mut(state as usize).ok_or_else(|| {
                        error(format!(
                            "label \"{name}\" holds state {state}, but the model has {states} states"
                        ))
                    })?;
                    *slot = true;
                }
                set
            }
            Self::True => vec![true; count],
            Self::False => vec![false; count],
            Self::Not(inner) => {
                let mut set = inner.states(labels, states)?;
                set.iter_mut().for_each(|member| *member = !*member);
                set
            }
            Self::And(left, right) => {
                let mut set = left.states(labels, states)?;
                let right = right.states(labels, states)?;
                set.iter_mut().zip(right).for_each(|(a, b)| *a &= b);
                set
            }
            Self::Or(left, right) => {
                let mut set = left.states(labels, states)?;
                let right = right.states(labels, states)?;
                set.iter_mut().zip(right).for_each(|(a, b)| *a |= b);
                set
            }
        })
    }
}

/// `unknown label "x" (the model has: "init", "deadlock")`.
fn unknown_label(name: &str, labels: &StateLabels) -> String {
    if labels.names.is_empty() {
        return format!("unknown label \"{name}\" (the model has no labels)");
    }
    let known: Vec<String> = labels.names.iter().map(|n| format!("\"{n}\"")).collect();
    format!(
        "unknown label \"{name}\" (the model has: {})",
        known.join(", ")
    )
}

/// 1-based character column of `rest`, a suffix of `text`.
fn column(text: &str, rest: &str) -> usize {
    text[..text.len() - rest.len()].chars().count() + 1
}

/// A syntax error: where (`rest`, the suffix of the text it is about) and
/// what.
#[derive(Debug)]
struct Syntax<'a> {
    rest: &'a str,
    message: String,
}

impl<'a> ParseError<&'a str> for Syntax<'a> {
    fn from_error_kind(rest: &'a str, kind: ErrorKind) -> Self {
        Syntax {
            rest,
            message: format!("unexpected input ({})", kind.description()),
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

/// Result of the parsers of this module.
type PResult<'a, T> = IResult<&'a str, T, Syntax<'a>>;

/// A failure (no backtracking) at `rest` with `message`.
fn fail<'a, T>(rest: &'a str, message: impl Into<String>) -> PResult<'a, T> {
    Err(nom::Err::Failure(Syntax {
        rest,
        message: message.into(),
    }))
}

/// `input` after its leading whitespace.
fn skip_space(input: &str) -> &str {
    input.trim_start()
}

/// What follows the token `expected` when the input starts with it, after
/// whitespace.
fn token<'a>(input: &'a str, expected: &str) -> Option<&'a str> {
    tag::<_, _, Syntax>(expected)
        .parse(skip_space(input))
        .ok()
        .map(|(rest, _)| rest)
}

/// The token `expected`, or a failure with `message` where it should be.
fn expect<'a>(input: &'a str, expected: &str, message: &str) -> PResult<'a, ()> {
    match token(input, expected) {
        Some(rest) => Ok((rest, ())),
        None => fail(skip_space(input), message),
    }
}

/// The word (letters, digits and `_`) the input starts with after
/// whitespace, with what follows it.
fn word(input: &str) -> Option<(&str, &str)> {
    take_while1::<_, _, Syntax>(|c: char| c.is_alphanumeric() || c == '_')
        .parse(skip_space(input))
        .ok()
}

/// What follows the word `expected` when the input starts with it, after
/// whitespace (`F` matches in `F "a"` and `F<=3`, not in `Fa`).
fn keyword<'a>(input: &'a str, expected: &str) -> Option<&'a str> {
    word(input)
        .filter(|(_, found)| *found == expected)
        .map(|(rest, _)| rest)
}

/// Whether `word` looks like a PRISM operator (`X`, `G`, `W`, `C`, …) rather
/// than a label someone forgot to quote.
fn is_operator_name(word: &str) -> bool {
    word.len() == 1 && word.as_bytes()[0].is_ascii_uppercase()
}

/// The optimum a `min` or `max` suffix names.
fn optimum(suffix: &str) -> Option<Optimum> {
    match suffix {
        "min" => Some(Optimum::Min),
        "max" => Some(Optimum::Max),
        _ => None,
    }
}

/// A non-empty double-quoted name at the start of `input`, `what` naming it
/// in errors; a backtracking error when `input` does not start with `"`.
fn quoted<'a>(input: &'a str, what: &str) -> PResult<'a, &'a str> {
    let (body, _) = char('"').parse(input)?;
    let (after, name) = take_till(|c| c == '"' || c == '\n').parse(body)?;
    let Some(rest) = after.strip_prefix('"') else {
        return fail(
            input,
            format!("unterminated {what}: expected a closing `\"`"),
        );
    };
    if name.is_empty() {
        return fail(input, format!("empty {what}"));
    }
    Ok((rest, name))
}

/// The `=?` and `[` after an operator written from `operator` up to `rest`.
fn open_query<'a>(operator: &'a str, rest: &'a str) -> PResult<'a, ()> {
    let written = operator[..operator.len() - rest.len()].trim_end();
    let (rest, ()) = expect(rest, "=?", &format!("expected `=?` after `{written}`"))?;
    expect(rest, "[", "expected `[`")
}

/// The optional `<=k` after `F` or `U`.
fn bound(input: &str) -> PResult<'_, Option<Bound>> {
    let Some(after) = token(input, "<=") else {
        let at = skip_space(input);
        if at.starts_with(['<', '>', '[']) {
            return fail(at, "only upper bounds `<=k` are supported");
        }
        return Ok((input, None));
    };
    let at = skip_space(after);
    let number = recognize((
        digit1::<_, Syntax>,
        opt((char('.'), digit0)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(at);
    let Ok((rest, written)) = number else {
        return fail(at, "a step bound must be a non-negative number");
    };
    match written.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok((
            rest,
            Some(Bound {
                value,
                integral: written.bytes().all(|b| b.is_ascii_digit()),
            }),
        )),
        _ => fail(at, format!("the bound `{written}` is too large")),
    }
}

/// The recursive-descent parser of one property.
struct Grammar<'a> {
    /// The whole text, for the columns of labels.
    text: &'a str,
    /// `!`, `&`, `|` and `(` seen so far, bounded by [`MAX_OPERATORS`].
    operators: usize,
}

impl<'a> Grammar<'a> {
    /// A whole property, up to the end of the text.
    fn property(&mut self, input: &'a str) -> PResult<'a, Query> {
        let start = skip_space(input);
        let Some((after_name, name)) = word(start) else {
            return fail(start, "expected an operator `P`, `R` or `S`");
        };
        let (rest, query) = match name {
            "P" | "Pmin" | "Pmax" => {
                let (rest, ()) = open_query(start, after_name)?;
                let (rest, path) = self.path(rest)?;
                let optimum = optimum(&name[1..]);
                (rest, Query::Probability { optimum, path })
            }
            "R" | "Rmin" | "Rmax" => self.reward(start, after_name, optimum(&name[1..]))?,
            "S" => {
                let (rest, ()) = open_query(start, after_name)?;
                let (rest, formula) = self.formula(rest)?;
                (rest, Query::LongRunProbability(formula))
            }
            _ => return fail(start, format!("unknown operator `{name}`")),
        };
        let (rest, ()) = expect(rest, "]", "expected `]`")?;
        let rest = skip_space(rest);
        if let Some(first) = rest.chars().next() {
            let unexpected = word(rest).map_or(&rest[..first.len_utf8()], |(_, found)| found);
            return fail(
                rest,
                format!("unexpected `{unexpected}` after the property"),
            );
        }
        Ok((rest, query))
    }

    /// A reward query after `R`, `Rmin` or `Rmax` (`operator` starts at that
    /// word): the optional `{"structure"}` and `min`/`max`, then `=? [ F φ ]`
    /// or `=? [ S ]`.
    fn reward(
        &mut self,
        operator: &'a str,
        after_name: &'a str,
        mut optimum_wanted: Option<Optimum>,
    ) -> PResult<'a, Query> {
        let mut structure = None;
        let mut rest = after_name;
        if optimum_wanted.is_none()
            && let Some(after_brace) = token(rest, "{")
        {
            let at = skip_space(after_brace);
            let (after_name, name) = match quoted(at, "reward structure name") {
                Err(nom::Err::Error(_)) => {
                    return fail(at, "expected a reward structure name in double quotes");
                }
                parsed => parsed?,
            };
            let (after_close, ()) = expect(after_name, "}", "expected `}`")?;
            structure = Some(name.to_string());
            rest = after_close;
            if let Some((after_suffix, suffix)) = word(rest)
                && let Some(found) = optimum(suffix)
            {
                optimum_wanted = Some(found);
                rest = after_suffix;
            }
        }
        let (rest, ()) = open_query(operator, rest)?;
        let at = skip_space(rest);
        if let Some(rest) = keyword(at, "S") {
            if optimum_wanted.is_some() {
                return fail(operator, "a long-run reward takes no `min` or `max`");
            }
            return Ok((rest, Query::LongRunReward { structure }));
        }
        if let Some(rest) = keyword(at, "F") {
            let after_f = skip_space(rest);
            if after_f.starts_with(['<', '>', '[']) {
                return fail(after_f, "a reward property takes no bound after `F`");
            }
            let (rest, target) = self.formula(rest)?;
            return Ok((
                rest,
                Query::Reward {
                    structure,
                    optimum: optimum_wanted,
                    target,
                },
            ));
        }
        match word(at) {
            Some((_, found)) if is_operator_name(found) => {
                fail(at, format!("unknown operator `{found}`"))
            }
            _ => fail(at, "expected `F` or `S` in a reward property"),
        }
    }

    /// `F φ`, `φ U φ`, either with an optional `<=k` after `F` or `U`.
    fn path(&mut self, input: &'a str) -> PResult<'a, PathFormula> {
        let (rest, left) = match keyword(input, "F") {
            Some(rest) => (rest, StateFormula::True),
            None => {
                let (rest, left) = self.formula(input)?;
                let at = skip_space(rest);
                match (keyword(at, "U"), word(at)) {
                    (Some(rest), _) => (rest, left),
                    (None, Some((_, found))) if is_operator_name(found) => {
                        return fail(at, format!("unknown operator `{found}`"));
                    }
                    (None, _) => return fail(at, "expected `U`"),
                }
            }
        };
        let (rest, bound) = bound(rest)?;
        let (rest, right) = self.formula(rest)?;
        Ok((rest, PathFormula::Until { left, right, bound }))
    }

    /// A state formula: disjunctions of [`Grammar::conjunction`]s, the
    /// loosest level.
    fn formula(&mut self, input: &'a str) -> PResult<'a, StateFormula> {
        let (mut rest, mut formula) = self.conjunction(input)?;
        while let Some(after) = token(rest, "|") {
            self.count_operator(skip_space(rest))?;
            let (after, right) = self.conjunction(after)?;
            formula = StateFormula::Or(Box::new(formula), Box::new(right));
            rest = after;
        }
        Ok((rest, formula))
    }

    /// Conjunctions of [`Grammar::negation`]s.
    fn conjunction(&mut self, input: &'a str) -> PResult<'a, StateFormula> {
        let (mut rest, mut formula) = self.negation(input)?;
        while let Some(after) = token(rest, "&") {
            self.count_operator(skip_space(rest))?;
            let (after, right) = self.negation(after)?;
            formula = StateFormula::And(Box::new(formula), Box::new(right));
            rest = after;
        }
        Ok((rest, formula))
    }

    /// `!φ` or an [`Grammar::atom`]: `!` binds tightest.
    fn negation(&mut self, input: &'a str) -> PResult<'a, StateFormula> {
        let Some(rest) = token(input, "!") else {
            return self.atom(input);
        };
        self.count_operator(skip_space(input))?;
        let (rest, inner) = self.negation(rest)?;
        Ok((rest, StateFormula::Not(Box::new(inner))))
    }

    /// A label, `true`, `false` or a parenthesised formula.
    fn atom(&mut self, input: &'a str) -> PResult<'a, StateFormula> {
        let at = skip_space(input);
        if at.starts_with('"') {
            let (rest, name) = quoted(at, "label")?;
            let name = name.to_string();
            let column = column(self.text, at);
            return Ok((rest, StateFormula::Label { name, column }));
        }
        if let Some(rest) = token(at, "(") {
            self.count_operator(at)?;
            let (rest, inner) = self.formula(rest)?;
            let (rest, ()) = expect(rest, ")", "expected `)`")?;
            return Ok((rest, inner));
        }
        match word(at) {
            Some((rest, "true")) => Ok((rest, StateFormula::True)),
            Some((rest, "false")) => Ok((rest, StateFormula::False)),
            Some((_, found)) if is_operator_name(found) => {
                fail(at, format!("unknown operator `{found}`"))
            }
            Some((_, found)) => fail(
                at,
                format!("labels are written in double quotes: `\"{found}\"`"),
            ),
            None => fail(at, "expected a state formula"),
        }
    }

    /// Counts the operator or parenthesis at `at`, failing there beyond
    /// [`MAX_OPERATORS`].
    fn count_operator(&mut self, at: &'a str) -> PResult<'a, ()> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return fail(
                at,
                format!("more than {MAX_OPERATORS} operators and parentheses in one property"),
            );
        }
        Ok((at, ()))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;

    fn label(name: &str, column: usize) -> StateFormula {
        StateFormula::Label {
            name: name.to_string(),
            column,
        }
    }

    fn not(inner: StateFormula) -> StateFormula {
        StateFormula::Not(Box::new(inner))
    }

    fn and(left: StateFormula, right: StateFormula) -> StateFormula {
        StateFormula::And(Box::new(left), Box::new(right))
    }

    fn or(left: StateFormula, right: StateFormula) -> StateFormula {
        StateFormula::Or(Box::new(left), Box::new(right))
    }

    fn eventually(right: StateFormula, bound: Option<Bound>) -> PathFormula {
        PathFormula::Until {
            left: StateFormula::True,
            right,
            bound,
        }
    }

    fn query(text: &str) -> Query {
        parse(text)
            .unwrap_or_else(|error| panic!("{text}: {error}"))
            .query
    }

    /// The formula of `S=? [ formula ]`.
    fn state_formula(formula: &str) -> StateFormula {
        match query(&format!("S=? [ {formula} ]")) {
            Query::LongRunProbability(formula) => formula,
            other => panic!("not a long-run probability: {other:?}"),
        }
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(property) => panic!("{text} parsed as {property:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn every_oracle_property_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/prob/oracles.tsv");
        let Ok(table) = std::fs::read_to_string(&path) else {
            crate::testing::skipped(format_args!("{} is not present", path.display()));
            return;
        };
        let mut parsed = 0;
        for line in table.lines().skip(1) {
            let text = line.split('\t').nth(5).expect("a property column");
            let property = parse(text).unwrap_or_else(|error| panic!("{text}: {error}"));
            assert_eq!(property.text, text);
            parsed += 1;
        }
        assert!(parsed > 30, "only {parsed} properties");
    }

    #[test]
    fn probability_queries() {
        assert_eq!(
            query(r#"P=? [ F "fail" ]"#),
            Query::Probability {
                optimum: None,
                path: eventually(label("fail", 9), None),
            }
        );
        assert_eq!(
            query(r#"P=? [ F<=400 "success" ]"#),
            Query::Probability {
                optimum: None,
                path: eventually(
                    label("success", 14),
                    Some(Bound {
                        value: 400.0,
                        integral: true
                    })
                ),
            }
        );
        assert_eq!(
            query(r#"P=?[F<=0.75"s2serve"]"#),
            Query::Probability {
                optimum: None,
                path: eventually(
                    label("s2serve", 12),
                    Some(Bound {
                        value: 0.75,
                        integral: false
                    })
                ),
            }
        );
        assert_eq!(
            query(r#"Pmax=? [ !"collision_max_backoff" U "all_delivered" ]"#),
            Query::Probability {
                optimum: Some(Optimum::Max),
                path: PathFormula::Until {
                    left: not(label("collision_max_backoff", 11)),
                    right: label("all_delivered", 37),
                    bound: None,
                },
            }
        );
        assert_eq!(
            query(r#"  Pmin=? [ true U<= 1e-3 false ]  "#),
            Query::Probability {
                optimum: Some(Optimum::Min),
                path: PathFormula::Until {
                    left: StateFormula::True,
                    right: StateFormula::False,
                    bound: Some(Bound {
                        value: 1e-3,
                        integral: false
                    }),
                },
            }
        );
    }

    #[test]
    fn reward_and_long_run_queries() {
        assert_eq!(
            query(r#"R{"steps"}min=? [ F "sent" ]"#),
            Query::Reward {
                structure: Some("steps".to_string()),
                optimum: Some(Optimum::Min),
                target: label("sent", 21),
            }
        );
        assert_eq!(
            query(r#"R { "up" } max =? [ F "down" ]"#),
            Query::Reward {
                structure: Some("up".to_string()),
                optimum: Some(Optimum::Max),
                target: label("down", 23),
            }
        );
        assert_eq!(
            query(r#"Rmax=? [ F "done" ]"#),
            Query::Reward {
                structure: None,
                optimum: Some(Optimum::Max),
                target: label("done", 12),
            }
        );
        assert_eq!(
            query(r#"R=? [ F "done" ]"#),
            Query::Reward {
                structure: None,
                optimum: None,
                target: label("done", 9),
            }
        );
        assert_eq!(
            query(r#"R{"customers"}=? [ S ]"#),
            Query::LongRunReward {
                structure: Some("customers".to_string())
            }
        );
        assert_eq!(query("R=?[S]"), Query::LongRunReward { structure: None });
        assert_eq!(
            query(r#"S=? [ "premium" ]"#),
            Query::LongRunProbability(label("premium", 7))
        );
    }

    #[test]
    fn text_is_kept_trimmed() {
        let property = parse("\t P=? [ F \"a\" ]  \n").unwrap();
        assert_eq!(property.text, "P=? [ F \"a\" ]");
        // Columns stay those of the text given.
        assert_eq!(
            property.query,
            Query::Probability {
                optimum: None,
                path: eventually(label("a", 11), None),
            }
        );
    }

    #[test]
    fn not_binds_tightest_then_and_then_or() {
        let (a, b, c) = (label("a", 8), label("b", 14), label("c", 20));
        assert_eq!(state_formula(r#"!"a" & "b" | "c""#), or(and(not(a), b), c));
        assert_eq!(
            state_formula(r#""a" | "b" & "c""#),
            or(label("a", 7), and(label("b", 13), label("c", 19)))
        );
        assert_eq!(
            state_formula(r#"!("a" | "b") & "c""#),
            and(not(or(label("a", 9), label("b", 15))), label("c", 22))
        );
        assert_eq!(state_formula(r#"!!true"#), not(not(StateFormula::True)));
    }

    #[test]
    fn binary_operators_associate_to_the_left() {
        assert_eq!(
            state_formula(r#""a" | "b" | "c""#),
            or(or(label("a", 7), label("b", 13)), label("c", 19))
        );
        assert_eq!(
            state_formula(r#""a" & "b" & "c""#),
            and(and(label("a", 7), label("b", 13)), label("c", 19))
        );
    }

    #[test]
    fn errors_name_the_problem_and_its_column() {
        let cases = [
            ("", "column 1: empty property"),
            ("  \t ", "column 1: empty property"),
            (r#"P>=0.5 [ F "a" ]"#, "column 2: expected `=?` after `P`"),
            (
                r#"R{"steps"}max [ F "a" ]"#,
                "column 15: expected `=?` after `R{\"steps\"}max`",
            ),
            (r#"Q=? [ F "a" ]"#, "column 1: unknown operator `Q`"),
            (r#"P=? [ X "a" ]"#, "column 7: unknown operator `X`"),
            (r#"P=? [ "a" W "b" ]"#, "column 11: unknown operator `W`"),
            (r#"R=? [ C<=5 ]"#, "column 7: unknown operator `C`"),
            (r#""a""#, "column 1: expected an operator `P`, `R` or `S`"),
            (r#"P=? F "a" ]"#, "column 5: expected `[`"),
            (r#"P=? [ F "a""#, "column 12: expected `]`"),
            (r#"P=? [ F "a" "b" ]"#, "column 13: expected `]`"),
            (r#"P=? [ F ]"#, "column 9: expected a state formula"),
            (r#"P=? [ "a" ]"#, "column 11: expected `U`"),
            (
                r#"P=? [ F "a" ] )"#,
                "column 15: unexpected `)` after the property",
            ),
            (
                r#"P=? [ F "a" ] extra"#,
                "column 15: unexpected `extra` after the property",
            ),
            (
                r#"P=? [ F<=-1 "a" ]"#,
                "column 10: a step bound must be a non-negative number",
            ),
            (
                r#"P=? [ F<= "a" ]"#,
                "column 11: a step bound must be a non-negative number",
            ),
            (
                r#"P=? [ F<=1e999 "a" ]"#,
                "column 10: the bound `1e999` is too large",
            ),
            (
                r#"P=? [ F>5 "a" ]"#,
                "column 8: only upper bounds `<=k` are supported",
            ),
            (r#"P=? [ F ("a" & "b" ]"#, "column 20: expected `)`"),
            (
                r#"P=? [ F "goal ]"#,
                "column 9: unterminated label: expected a closing `\"`",
            ),
            (r#"S=? [ "" ]"#, "column 7: empty label"),
            (
                r#"P=? [ F goal ]"#,
                "column 9: labels are written in double quotes: `\"goal\"`",
            ),
            (
                r#"R{steps}=? [ S ]"#,
                "column 3: expected a reward structure name in double quotes",
            ),
            (r#"R{"steps"=? [ S ]"#, "column 10: expected `}`"),
            (
                r#"Rmin=? [ S ]"#,
                "column 1: a long-run reward takes no `min` or `max`",
            ),
            (
                r#"R=? [ F<=5 "a" ]"#,
                "column 8: a reward property takes no bound after `F`",
            ),
            (
                r#"R=? [ "a" ]"#,
                "column 7: expected `F` or `S` in a reward property",
            ),
            // Columns count characters, not bytes.
            (r#"S=? [ "café" & ]"#, "column 16: expected a state formula"),
        ];
        for (text, expected) in cases {
            assert_eq!(error(text), expected, "for {text:?}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let expected =
            format!("more than {MAX_OPERATORS} operators and parentheses in one property");
        for formula in [
            "(".repeat(100_000),
            "!".repeat(100_000),
            vec!["true"; 100_000].join("&"),
        ] {
            let error = parse(&format!("S=? [ {formula} ]")).unwrap_err();
            assert_eq!(error.message, expected);
        }
        // Up to the limit is fine.
        let nested = format!("{}true{}", "(".repeat(128), ")".repeat(128));
        assert_eq!(
            state_formula(&format!("{}{nested}", "!".repeat(128))),
            (0..128).fold(StateFormula::True, |inner, _| not(inner))
        );
    }

    fn small_labels() -> StateLabels {
        let mut labels = StateLabels::default();
        labels.insert("init", vec![0]);
        labels.insert("goal", vec![1, 3]);
        labels.insert("bad", vec![2, 3]);
        labels
    }

    #[test]
    fn states_evaluate_the_connectives() {
        let labels = small_labels();
        let states = |formula: &str| state_formula(formula).states(&labels, 5).unwrap();
        assert_eq!(states("true"), [true; 5]);
        assert_eq!(states("false"), [false; 5]);
        assert_eq!(states(r#""goal""#), [false, true, false, true, false]);
        assert_eq!(states(r#"!"goal""#), [true, false, true, false, true]);
        assert_eq!(
            states(r#""goal" & "bad""#),
            [false, false, false, true, false]
        );
        assert_eq!(
            states(r#""goal" | "bad""#),
            [false, true, true, true, false]
        );
        assert_eq!(
            states(r#""init" | "goal" & !"bad""#),
            [true, true, false, false, false]
        );
    }

    #[test]
    fn states_report_unknown_labels_where_they_are_written() {
        let formula = state_formula(r#""goal" & !"gaol""#);
        assert_eq!(
            formula.states(&small_labels(), 5).unwrap_err().to_string(),
            r#"column 17: unknown label "gaol" (the model has: "init", "goal", "bad")"#
        );
        assert_eq!(
            formula
                .states(&StateLabels::default(), 5)
                .unwrap_err()
                .to_string(),
            r#"column 7: unknown label "goal" (the model has no labels)"#
        );
        assert_eq!(
            state_formula(r#""bad""#)
                .states(&small_labels(), 3)
                .unwrap_err()
                .to_string(),
            r#"column 7: label "bad" holds state 3, but the model has 3 states"#
        );
    }

    #[test]
    fn files_skip_blank_lines_and_comments_and_number_errors_by_line() {
        let text = "// reachability\nP=? [ F \"goal\" ]\n\n  // rewards\nR=? [ S ]\n";
        let properties = parse_file(text).unwrap();
        let texts: Vec<&str> = properties.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, [r#"P=? [ F "goal" ]"#, "R=? [ S ]"]);

        let (line, error) = parse_file("P=? [ F \"a\" ]\n\n  S=? [ ]\n").unwrap_err();
        assert_eq!(line, 3);
        assert_eq!(error.to_string(), "column 9: expected a state formula");
        assert_eq!(parse_file("\n// nothing\n").unwrap(), []);
    }

    /// Random state formulas over the labels of [`small_labels`] (and one it
    /// lacks, never generated here).
    fn formulas() -> impl Strategy<Value = StateFormula> {
        let leaf = prop_oneof![
            Just(StateFormula::True),
            Just(StateFormula::False),
            prop::sample::select(vec!["init", "goal", "bad"]).prop_map(|name| label(name, 0)),
        ];
        leaf.prop_recursive(5, 32, 2, |inner| {
            prop_oneof![
                inner.clone().prop_map(not),
                (inner.clone(), inner.clone()).prop_map(|(l, r)| and(l, r)),
                (inner.clone(), inner).prop_map(|(l, r)| or(l, r)),
            ]
        })
    }

    /// `formula` with the fewest parentheses the precedence allows, so that
    /// reading it back exercises precedence and associativity.
    fn write(formula: &StateFormula) -> String {
        fn level(formula: &StateFormula) -> u8 {
            match formula {
                StateFormula::Or(..) => 0,
                StateFormula::And(..) => 1,
                _ => 2,
            }
        }
        fn operand(formula: &StateFormula, least: u8) -> String {
            if level(formula) < least {
                format!("({})", write(formula))
            } else {
                write(formula)
            }
        }
        match formula {
            StateFormula::Label { name, .. } => format!("\"{name}\""),
            StateFormula::True => "true".to_string(),
            StateFormula::False => "false".to_string(),
            StateFormula::Not(inner) => format!("!{}", operand(inner, 2)),
            StateFormula::And(l, r) => format!("{} & {}", operand(l, 1), operand(r, 2)),
            StateFormula::Or(l, r) => format!("{} | {}", operand(l, 0), operand(r, 1)),
        }
    }

    /// Tokens of the grammar, and a few that are not, for random texts.
    const TOKENS: &[&str] = &[
        "P", "Pmin", "Pmax", "R", "Rmin", "Rmax", "S", "=?", "=", "?", "[", "]", "{", "}", "F",
        "U", "X", "<=", "<", ">", "3", "0.5", "1e-3", "-", "\"a\"", "\"", "true", "false", "!",
        "&", "|", "(", ")", "min", "max", " ", "\n", "é", "//",
    ];

    proptest! {
        #[test]
        fn written_formulas_read_back_to_the_same_states(formula in formulas()) {
            let labels = small_labels();
            let read = state_formula(&write(&formula));
            prop_assert_eq!(read.states(&labels, 5).unwrap(), formula.states(&labels, 5).unwrap());
        }

        #[test]
        fn arbitrary_text_never_panics(text in ".{0,40}") {
            let _ = parse(&text);
            let _ = parse_file(&text);
        }

        #[test]
        fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..24)) {
            let text = tokens.concat();
            if let Err(error) = parse(&text) {
                prop_assert!(error.column >= 1 && error.column <= text.chars().count() + 1);
            }
        }
    }
}

//! Helpers shared by the unit tests of the explicit structures.

use std::fmt::Display;

/// A way to break a valid value, and the message its validation must
/// then give.
pub(super) type Fault<T> = (fn(&mut T), &'static str);

/// Checks that `validate` accepts `valid`, then that it refuses each
/// [`Fault`] case, applied to a copy of `valid`, with exactly
/// that message.
pub(super) fn assert_faults<T: Clone, E: Display>(
    valid: &T,
    validate: impl Fn(&T) -> Result<(), E>,
    cases: &[Fault<T>],
) {
    if let Err(fault) = validate(valid) {
        panic!("the valid example is refused: {fault}");
    }
    for (case, &(change, expected)) in cases.iter().enumerate() {
        let mut broken = valid.clone();
        change(&mut broken);
        match validate(&broken) {
            Ok(()) => panic!("case {case} is accepted; expected: {expected}"),
            Err(fault) => assert_eq!(fault.to_string(), expected, "case {case}"),
        }
    }
}

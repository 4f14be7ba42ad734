//! The reference engine on the bundled examples: every reported trace is
//! replayed through the semantics, and findings agree with `--all` counts.

use warpcheck::encode::EncodedNetwork;
use warpcheck::explore::{Completion, FindingKind, SearchOptions, reference};
use warpcheck::testing;

#[test]
fn every_spec_trace_replays_and_matches_the_full_search() {
    let mut findings = 0;
    for (name, net) in testing::spec_checks() {
        let first = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                ..SearchOptions::default()
            },
        );
        let all = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                keep_going: true,
                ..SearchOptions::default()
            },
        );
        assert_eq!(all.completion, Completion::Complete, "{name}");
        match &first.first {
            Some(finding) => {
                findings += 1;
                testing::check_finding(&net, finding).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(first.completion, Completion::StoppedAtFinding);
                let trace = finding.trace.as_ref().unwrap();
                assert!(trace.actions.len() as u32 <= all.depth, "{name}");
                match finding.kind {
                    FindingKind::Deadlock => assert!(all.deadlocks > 0, "{name}"),
                    FindingKind::Error(_) => assert!(all.errors > 0, "{name}"),
                }
            }
            None => {
                assert_eq!((all.deadlocks, all.errors), (0, 0), "{name}");
                assert_eq!(
                    (first.states, first.transitions),
                    (all.states, all.transitions)
                );
            }
        }
    }
    assert!(
        findings >= 2,
        "the examples include a deadlock and a violation"
    );
}

#[test]
fn random_network_traces_are_shortest_and_replay() {
    for seed in 0..300 {
        let network = testing::random_network(seed);
        let net = EncodedNetwork::new(&network).unwrap();
        let result = reference::explore(
            &net,
            &SearchOptions {
                check_deadlock: true,
                ..SearchOptions::default()
            },
        );
        if let Some(finding) = &result.first {
            testing::check_finding(&net, finding).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            // Breadth-first: the finding is at most one level below the
            // last level fully expanded.
            let steps = finding.trace.as_ref().unwrap().actions.len() as u32;
            assert!(steps <= result.depth + 1, "seed {seed}");
        }
    }
}

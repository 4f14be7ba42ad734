//! Rendering of results: text and JSON reports, traces.

//! Loading and encoding cost time and memory linear in the number of
//! processes (issue 12: per-rule bit masks over all processes once made
//! `info` on a 200,000-place chain need over 8 GB, and a rule over many
//! processes took time quadratic in their number). Each family is loaded
//! and encoded at two sizes four times apart, each in a child process of
//! its own (this test binary, running [`scale_child`]), which reports its
//! peak memory and the processor time of the work: linear work grows
//! about 4 times, quadratic work 16 times. The bounds, 6 times for memory
//! (which includes the program's own) and 10 times for processor time,
//! leave room for a busy machine; processor time, unlike elapsed time,
//! does not grow when other tests share the cores.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;

use warpcheck::encode::EncodedNetwork;
use warpcheck::frontend::{exp, net, pnml};
use warpcheck::generate;
use warpcheck::model::Network;

/// The smaller size; the larger is four times this.
const SIZE: usize = 25_000;

/// The variable that makes [`scale_child`] measure `FAMILY SIZE`.
const SCALE_CHILD: &str = "WARPCHECK_TEST_SCALE_CHILD";

/// Processor time (user and system) of this process so far, in seconds,
/// from `/proc/self/stat` (in clock ticks of 1/100 s).
fn processor_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command name, which ends with the last `)`.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// Peak resident memory of this process in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The network of `family` at `size`, built from text made beforehand.
fn build(family: &str, size: usize) -> Box<dyn FnOnce() -> Network> {
    match family {
        "pnml" => {
            let text = pnml_cycle(size);
            Box::new(move || pnml::parse(&text, Path::new("cycle.pnml")).unwrap())
        }
        "philosophers" => {
            let text = generate::philosophers(size / 2).unwrap();
            Box::new(move || net::parse(&text, Path::new("phil.net")).unwrap())
        }
        "big-rule" => {
            let text = one_big_rule(size);
            Box::new(move || net::parse(&text, Path::new("big.net")).unwrap())
        }
        "exp" => {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("a.aut"), "des (0, 1, 2)\n(0, go, 1)\n").unwrap();
            let text = format!(
                "par using {} in {} end par",
                vec!["go"; size].join(" * "),
                vec!["a.aut"; size].join(" || ")
            );
            Box::new(move || exp::parse(&text, &dir.path().join("m.exp")).unwrap())
        }
        other => panic!("unknown family {other}"),
    }
}

/// Run by [`assert_linear`] in a child process: loads and encodes the
/// family and size named by [`SCALE_CHILD`] and prints `=> PEAK_KIB
/// SECONDS`.
#[test]
fn scale_child() {
    let Some(request) = std::env::var_os(SCALE_CHILD) else {
        return;
    };
    let request = request.into_string().unwrap();
    let (family, size) = request.split_once(' ').unwrap();
    let network = build(family, size.parse().unwrap());
    let start = processor_seconds();
    let encoded = EncodedNetwork::new(&network()).unwrap();
    let seconds = processor_seconds() - start;
    black_box(encoded);
    println!("\n=> {} {seconds}", peak_kib());
}

/// Peak memory (KiB) and processor seconds of `family` at `size`, measured
/// in a child process.
fn measure(family: &str, size: usize) -> (u64, f64) {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "scale::scale_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCALE_CHILD, format!("{family} {size}"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let result = stdout
        .lines()
        .find_map(|l| l.strip_prefix("=> "))
        .unwrap_or_else(|| panic!("no result from the child: {stdout}"));
    let (memory, seconds) = result.split_once(' ').unwrap();
    (memory.parse().unwrap(), seconds.parse().unwrap())
}

/// Checks that four times the size takes less than six times the memory
/// and ten times the processor time.
fn assert_linear(family: &str) {
    let (small_memory, small_seconds) = measure(family, SIZE);
    let (large_memory, large_seconds) = measure(family, 4 * SIZE);
    let report = format!(
        "{family}: {SIZE} in {small_seconds:.2} s and {small_memory} KiB, {} in \
         {large_seconds:.2} s and {large_memory} KiB",
        4 * SIZE
    );
    eprintln!("{report}");
    assert!(large_memory < 6 * small_memory, "{report}");
    // Clock ticks are 0.01 s: a floor keeps rounding out of the ratio.
    assert!(large_seconds < 10.0 * small_seconds.max(0.05), "{report}");
}

#[test]
fn pnml_cycle_loads_in_linear_time_and_memory() {
    assert_linear("pnml");
}

#[test]
fn philosophers_load_in_linear_time_and_memory() {
    assert_linear("philosophers");
}

#[test]
fn one_rule_over_every_process_loads_in_linear_time_and_memory() {
    assert_linear("big-rule");
}

#[test]
fn exp_of_many_copies_of_one_file_loads_in_linear_time_and_memory() {
    assert_linear("exp");
}

/// A 1-safe PNML cycle of `n` places, one transition per place moving the
/// token on (the shape of the 200,000-place chain of the report).
fn pnml_cycle(n: usize) -> String {
    let mut text = String::from(
        "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n\
         <net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"g\">\n",
    );
    text.push_str("<place id=\"p0\"><initialMarking><text>1</text></initialMarking></place>\n");
    for i in 1..n {
        let _ = writeln!(text, "<place id=\"p{i}\"/>");
    }
    for i in 0..n {
        let _ = writeln!(
            text,
            "<transition id=\"t{i}\"/><arc id=\"a{i}\" source=\"p{i}\" target=\"t{i}\"/>\
             <arc id=\"b{i}\" source=\"t{i}\" target=\"p{}\"/>",
            (i + 1) % n
        );
    }
    text.push_str("</page></net></pnml>\n");
    text
}

/// `n` processes that all take part in one rule.
fn one_big_rule(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(text, "process P{i} {{ init a; a -go-> b; }}");
    }
    let names: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
    let _ = writeln!(text, "sync go : {};", names.join(", "));
    text
}

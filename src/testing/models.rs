//! The models that ship with the repository: the examples in `specs/` and
//! the Model Checking Contest nets (`tests/data/mcc`, or a larger copy).

use std::path::{Path, PathBuf};

use crate::encode::EncodedNetwork;
use crate::frontend;

/// Every model in `specs/` (relative to the working directory, the
/// repository root under cargo and on the GPU machine), with each of its
/// properties (and none).
pub fn spec_checks() -> Vec<(String, EncodedNetwork)> {
    let mut checks = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(Path::new("specs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("net" | "exp")))
        .collect();
    paths.sort();
    for path in paths {
        let network = frontend::load(&path).unwrap();
        checks.push((
            path.display().to_string(),
            EncodedNetwork::new(&network).unwrap(),
        ));
        for monitor in &network.monitors {
            checks.push((
                format!("{} --property {}", path.display(), monitor.name),
                EncodedNetwork::new(&network.with_monitor(monitor)).unwrap(),
            ));
        }
    }
    assert!(checks.len() >= 6, "specs/ holds the examples");
    checks
}

/// The model folders (each holding a `model.pnml`, as in the MCC archive)
/// under `dir`, sorted; none when `dir` cannot be read.
pub fn mcc_models(dir: &Path) -> Vec<PathBuf> {
    let mut models: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    models.retain(|m| m.join("model.pnml").is_file());
    models.sort();
    models
}

/// The `model.pnml` of the model folder `model`, loaded and encoded;
/// panics with the folder's name when it cannot be.
pub fn load_mcc_model(model: &Path) -> EncodedNetwork {
    let network = frontend::pnml::load(&model.join("model.pnml"))
        .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
    EncodedNetwork::new(&network).unwrap()
}

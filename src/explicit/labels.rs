//! [`StateLabels`]: named sets of states (atomic propositions such as
//! `init`, `deadlock` or `goal`), what properties of probabilistic models
//! refer to.

/// Named sets of states: `states[i]` lists, in increasing order and once
/// each, the states that carry the label `names[i]`. Names are unique.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateLabels {
    /// Label names, in the order the file declares them.
    pub names: Vec<String>,
    /// The states of each label, sorted, without repeats.
    pub states: Vec<Vec<u32>>,
}

impl StateLabels {
    /// The states labelled `name`, or `None` when there is no such label.
    pub fn get(&self, name: &str) -> Option<&[u32]> {
        let index = self.names.iter().position(|n| n == name)?;
        Some(&self.states[index])
    }

    /// Adds a label with the states given (sorted and made unique here), or
    /// replaces the states of the label of that name.
    pub fn insert(&mut self, name: &str, mut states: Vec<u32>) {
        states.sort_unstable();
        states.dedup();
        match self.names.iter().position(|n| n == name) {
            Some(index) => self.states[index] = states,
            None => {
                self.names.push(name.to_string());
                self.states.push(states);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_sorts_and_replaces() {
        let mut labels = StateLabels::default();
        labels.insert("goal", vec![3, 1, 3]);
        labels.insert("init", vec![0]);
        assert_eq!(labels.get("goal"), Some(&[1, 3][..]));
        labels.insert("goal", vec![2]);
        assert_eq!(labels.get("goal"), Some(&[2][..]));
        assert_eq!(labels.names, ["goal", "init"]);
        assert_eq!(labels.get("none"), None);
    }
}

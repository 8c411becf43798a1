//! Argument validation against each tool's JSON Schema
//! ([`ParserBuilder::validate_arguments`](crate::ParserBuilder::validate_arguments)).

use crate::error::Error;
use crate::tool::Tool;

/// One compiled validator per tool, in the tool list's order.
pub(crate) struct Schemas {
    validators: Vec<jsonschema::Validator>,
}

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas")
            .field("tools", &self.validators.len())
            .finish()
    }
}

/// Most schema violations named in one diagnostic.
const MAX_REPORTED: usize = 3;

impl Schemas {
    /// Compiles every tool's schema. References are resolved inside the
    /// schema only: nothing is fetched.
    pub(crate) fn compile(tools: &[Tool]) -> Result<Schemas, Error> {
        let validators = tools
            .iter()
            .map(|tool| {
                jsonschema::validator_for(&tool.parameters).map_err(|e| {
                    Error::InvalidTools(format!(
                        "the parameters schema of {:?} is not a valid JSON Schema: {e}",
                        tool.name
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Schemas { validators })
    }

    /// What is wrong with `input` for tool `tool`, naming each path; `None`
    /// when it is valid.
    pub(crate) fn check(&self, tool: usize, name: &str, input: &str) -> Option<String> {
        let validator = self.validators.get(tool)?;
        let value: serde_json::Value = match serde_json::from_str(input) {
            Ok(value) => value,
            Err(e) => return Some(format!("the arguments of {name:?} are not JSON: {e}")),
        };
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .take(MAX_REPORTED + 1)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("at {path}: {e}")
            })
            .collect();
        if errors.is_empty() {
            return None;
        }
        let more = if errors.len() > MAX_REPORTED {
            "; …"
        } else {
            ""
        };
        let shown = &errors[..errors.len().min(MAX_REPORTED)];
        Some(format!(
            "the arguments of {name:?} do not match its schema: {}{more}",
            shown.join("; ")
        ))
    }
}

//! The registry as Markdown: the format and model tables the README, the
//! crate docs and `docs/formats.md` show are generated here (`toolsieve
//! formats --markdown`), and a test fails when a checked-in copy differs.

use super::{Format, Think};
use crate::error::Error;
use crate::limits::Limits;

/// `text` as a Markdown code span inside a table cell: a backtick run
/// longer than any inside it, and `|` escaped for the table.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{}{pad}{ticks}", text.replace('|', "\\|"))
}

fn needs_tools(format: Format) -> bool {
    matches!(
        format.automaton(None, &[], &Limits::default()),
        Err(Error::ToolsRequired(_))
    )
}

/// Every format: its name, the other names it is read by, what its models
/// write, and whether it needs a tool list.
pub(crate) fn formats_markdown() -> String {
    let mut out = String::from(
        "| `--format` | also accepted | what the model writes | needs tools |\n|---|---|---|---|\n",
    );
    for &format in Format::ALL {
        let spec = format.spec();
        let aliases: Vec<String> = spec.aliases.iter().map(|a| code(a)).collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            code(spec.name),
            aliases.join(", "),
            code(spec.summary),
            if needs_tools(format) { "yes" } else { "no" },
        ));
    }
    out
}

fn reasoning(think: Think) -> String {
    match think {
        Think::No => "—".into(),
        Think::Tags => "`<think>`".into(),
        Think::Open => "`<think>`, opened by the template".into(),
        Think::OpenUntilCalls => "`<think>`, opened by the template; calls end it".into(),
        Think::Tagged(start, end) => format!("{} … {}", code(start), code(end)),
        Think::TaggedOpen(start, end) => {
            format!("{} … {}, opened by the template", code(start), code(end))
        }
    }
}

/// Every model family: its format, how it reasons, and what its template's
/// thinking switch turns on.
pub(crate) fn families_markdown() -> String {
    let mut out =
        String::from("| family | format | reasoning | thinking switch on |\n|---|---|---|---|\n");
    for &format in Format::ALL {
        for family in format.spec().families {
            let switch = family.switch.map_or_else(|| "—".into(), reasoning);
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                family.name,
                code(format.name()),
                reasoning(family.think),
                switch,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_backticks_and_pipes() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("```json"), "```` ```json ````");
        assert_eq!(code("x `y` z"), "``x `y` z``");
    }
}

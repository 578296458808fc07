//! Slash commands over ACP: the list advertised to the client as an
//! `available_commands_update`, and prompts of the form `/name args` that
//! name one of them (run through [`ConversationHandle::command`]).

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ContentBlock, SessionUpdate,
    UnstructuredCommandInput,
};
use zut_control::{CommandEntry, ConversationHandle};

/// Built-ins not offered over ACP: `clear` would make the model forget a
/// thread the editor still shows (a new thread is the ACP way).
const HIDDEN: &[&str] = &["clear"];

/// The commands of this conversation, as ACP advertises them.
pub(crate) fn available(c: &dyn ConversationHandle) -> SessionUpdate {
    let list = offered(c)
        .into_iter()
        .map(|e| {
            let hint = e.hint.unwrap_or_else(|| {
                if e.source == "zut" {
                    String::new()
                } else {
                    "arguments".into()
                }
            });
            let cmd = AvailableCommand::new(e.name, e.description);
            if hint.is_empty() {
                cmd
            } else {
                cmd.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint),
                ))
            }
        })
        .collect();
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(list))
}

fn offered(c: &dyn ConversationHandle) -> Vec<CommandEntry> {
    let mut list = c.command_list();
    list.retain(|e| !(e.source == "zut" && HIDDEN.contains(&e.name.as_str())));
    list
}

/// `(name, args)` when the prompt is one text block `/name [args]` and
/// `name` is an offered command (built-ins and extension commands in any
/// case, skills as spelled). Anything else — `/etc/hosts?`, an unknown
/// name, a prompt with images — is an ordinary prompt.
pub(crate) fn parse(
    blocks: &[ContentBlock],
    c: &dyn ConversationHandle,
) -> Option<(String, String)> {
    let [ContentBlock::Text(t)] = blocks else {
        return None;
    };
    let (name, args) = split(&t.text)?;
    let known = offered(c).into_iter().any(|e| {
        if e.source == "skill" {
            e.name == name
        } else {
            e.name.eq_ignore_ascii_case(name)
        }
    });
    known.then(|| (name.to_string(), args.to_string()))
}

/// `/name rest` → `("name", "rest")` (leading blanks allowed, the rest
/// trimmed); `None` without a leading slash or a name.
fn split(text: &str) -> Option<(&str, &str)> {
    let body = text.trim_start().strip_prefix('/')?;
    let end = body.find(char::is_whitespace).unwrap_or(body.len());
    let (name, rest) = body.split_at(end);
    if name.is_empty() {
        return None;
    }
    Some((name, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_takes_the_name_and_trims_the_arguments() {
        assert_eq!(
            split("/compact keep the plan "),
            Some(("compact", "keep the plan"))
        );
        assert_eq!(split("  /skill:a/b\n do it"), Some(("skill:a/b", "do it")));
        assert_eq!(split("/reload-ext"), Some(("reload-ext", "")));
        assert_eq!(split("/ nothing"), None);
        assert_eq!(split("no slash"), None);
    }
}

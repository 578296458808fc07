//! The interactive mode's `/model` across providers, `/login` and
//! `/logout`, conversation side: the pickers' rows, switching to another
//! provider's model (its key, base URL and headers resolved as a run with
//! `--provider P --model M` would; the conversation is kept), and checking
//! and saving a typed key. Details: docs/tui.md, docs/config.md.

use std::path::Path;

use tokio::sync::mpsc;
use zut_tui::pickers::{Picker, PickerItem, PickerKind};
use zut_tui::{CommandOutcome, TuiEvent};

/// `/model`: every model of the providers with a key (and the one in use),
/// as `provider/id` with context window, prices and reasoning.
pub fn model_picker(ctrl: &zut_agent::Controller, home: &Path) -> Picker {
    let st = ctrl.state();
    let models = zut_config::ModelsFile::load(&zut_config::ModelsFile::path_in(home))
        .ok()
        .flatten();
    let mut rows = zut_models::table::available(home, models.as_ref(), &st.provider);
    if !rows
        .iter()
        .any(|r| r.provider == st.provider && r.id == st.model)
    {
        let mut current = zut_models::table::all(None, None)
            .into_iter()
            .find(|r| r.provider == st.provider && r.id == st.model)
            .unwrap_or(zut_models::table::ModelRow {
                provider: st.provider.clone(),
                id: st.model.clone(),
                context: 0,
                output: 0,
                reasoning: false,
                price: None,
                source: String::new(),
            });
        current.source = "in use".into();
        rows.insert(0, current);
    }
    picker_of(&rows, &st.provider, &st.model)
}

/// The `/model` picker over `rows`, `provider`/`model` marked current.
fn picker_of(rows: &[zut_models::table::ModelRow], provider: &str, model: &str) -> Picker {
    let items = rows
        .iter()
        .map(|r| {
            PickerItem::new(r.full_id(), r.full_id())
                .detail(r.detail())
                .current(r.provider == provider && r.id == model)
        })
        .collect();
    let mut p = Picker::new(PickerKind::Model, "model", items)
        .empty_text("no model: store a key with /login, or list models in models.json");
    p.hint = "↑/↓ pick · enter switch (the conversation is kept) · type to filter · esc".into();
    p
}

/// `/login`: every provider, with where its key comes from now.
pub fn login_picker(home: &Path) -> Picker {
    let rows = zut_models::keys::rows(home).unwrap_or_default();
    let items = rows
        .into_iter()
        .filter(|r| r.source != "not needed" && !r.source.starts_with("cloud"))
        .map(|r| PickerItem::new(r.provider.clone(), r.provider).detail(r.source))
        .collect();
    Picker::new(PickerKind::Login, "login", items)
}

/// `/logout`: the providers with a stored key or key command.
pub fn logout_picker(home: &Path) -> Result<Picker, String> {
    let stored = zut_providers::credentials::list(home).map_err(|e| e.to_string())?;
    let items = stored
        .into_iter()
        .map(|(provider, s)| {
            let what = match s {
                zut_providers::credentials::Stored::Key(_) => "key in auth.json".to_string(),
                zut_providers::credentials::Stored::Command(Ok(c)) => {
                    format!("api_key_command ({})", c.program)
                }
                zut_providers::credentials::Stored::Command(Err(_)) => {
                    "api_key_command (invalid)".to_string()
                }
            };
            PickerItem::new(provider.clone(), provider).detail(what)
        })
        .collect();
    Ok(Picker::new(PickerKind::Logout, "logout", items).empty_text("no key stored in auth.json"))
}

/// A key typed in the `/login` dialog (`provider\nkey`): checked with the
/// provider's model list, saved only if accepted. The outcome comes back
/// as a status line (never with the key).
pub async fn login_pick(
    ctrl: &zut_agent::Controller,
    home: &Path,
    value: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let (provider, key) = value.split_once('\n').unwrap_or((value, ""));
    // The provider in use keeps the base URL it was started with.
    let start = ctrl.start_config();
    let base = (zut_providers::preset(provider).map_or(provider, |p| p.id) == start.provider)
        .then_some(start.base_url.as_str());
    let outcome = match zut_models::keys::login(home, provider, key, base, true).await {
        Ok(message) => CommandOutcome::Status(format!("✓ {message}")),
        Err(e) => CommandOutcome::Error(e),
    };
    let _ = tx.send(TuiEvent::CommandDone {
        label: "/login".into(),
        outcome,
    });
}

/// `/logout <provider>`.
pub fn logout(home: &Path, args: &str) -> CommandOutcome {
    let provider = args.trim();
    if provider.is_empty() {
        return CommandOutcome::Error("/logout <provider>".into());
    }
    match zut_models::keys::logout(home, provider) {
        Ok(m) => CommandOutcome::Status(m),
        Err(e) => CommandOutcome::Error(e),
    }
}

/// `/model <provider>/<id>` for another provider (or the one in use, by
/// its full name): resolves and switches. `None` leaves `args` to the
/// controller's `/model <id>` (a model of the provider in use, including
/// ids with a `/` like OpenRouter's).
pub fn switch(
    ctrl: &zut_agent::Controller,
    home: &Path,
    args: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) -> Option<CommandOutcome> {
    let args = args.trim();
    if let Some(n) = args.strip_prefix("slot:") {
        return Some(match quick_slot(home, n) {
            Ok((target, reasoning)) => {
                let outcome = switch(ctrl, home, &target, tx)?;
                with_reasoning(ctrl, outcome, reasoning, tx)
            }
            Err(e) => CommandOutcome::Error(e),
        });
    }
    let target = zut_models::switch::target_config(
        home,
        &ctrl.start_config(),
        &ctrl.current_config(),
        args,
    )?;
    let result = target.and_then(|c| ctrl.switch_provider(c));
    Some(match result {
        Ok(label) => {
            let st = ctrl.state();
            let _ = tx.send(TuiEvent::Provider(st.provider));
            let _ = tx.send(TuiEvent::Settings {
                model: st.model,
                reasoning: st.reasoning,
            });
            CommandOutcome::Status(format!("model: {label} (the conversation is kept)"))
        }
        Err(e) => CommandOutcome::Error(e),
    })
}

/// After a quick-model switch: the slot's `reasoning`, when it has one
/// (the Go original's model profiles carry it), applied too.
fn with_reasoning(
    ctrl: &zut_agent::Controller,
    outcome: CommandOutcome,
    reasoning: Option<String>,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) -> CommandOutcome {
    let (CommandOutcome::Status(text), Some(level)) = (&outcome, reasoning) else {
        return outcome;
    };
    match ctrl.set_reasoning(&level) {
        Ok(_) => {
            let st = ctrl.state();
            let _ = tx.send(TuiEvent::Settings {
                model: st.model,
                reasoning: st.reasoning.clone(),
            });
            let shown = if st.reasoning.is_empty() {
                "off"
            } else {
                &st.reasoning
            };
            CommandOutcome::Status(format!("{text} · reasoning {shown}"))
        }
        Err(e) => CommandOutcome::Error(format!("{text}; the slot's reasoning: {e}")),
    }
}

/// `provider/model` of quick-model slot `n` (1 to 9) and its reasoning
/// level if it sets one: config.json's `quick_model_shortcuts`, an array
/// of `{"provider", "model", "reasoning"?}` (the Go original's; slot 1
/// first, `null` for an empty slot).
pub fn quick_slot(home: &Path, n: &str) -> Result<(String, Option<String>), String> {
    let path = zut_config::ConfigFile::path_in(home);
    let at = |what: String| format!("{}: quick_model_shortcuts: {what}", path.display());
    let slot: usize = n
        .parse()
        .ok()
        .filter(|n| (1..=9).contains(n))
        .ok_or_else(|| at(format!("no slot {n:?}")))?;
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let entry = value
        .get("quick_model_shortcuts")
        .and_then(|v| v.as_array())
        .and_then(|a| a.get(slot - 1))
        .filter(|v| !v.is_null());
    let Some(entry) = entry else {
        return Err(at(format!(
            "slot {slot} is empty (set it to {{\"provider\": \"…\", \"model\": \"…\"}})"
        )));
    };
    let field = |k: &str| {
        entry
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| at(format!("[{}].{k}: expected a string", slot - 1)))
    };
    let reasoning = match entry.get("reasoning") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(r)) if r.trim().is_empty() => None,
        Some(serde_json::Value::String(r)) => Some(r.trim().to_string()),
        Some(_) => return Err(at(format!("[{}].reasoning: expected a string", slot - 1))),
    };
    Ok((
        format!("{}/{}", field("provider")?, field("model")?),
        reasoning,
    ))
}

/// After a resume: the session's provider and model (see
/// [`zut_models::switch`]), the status bar told; a warning line when
/// they are not available.
pub fn restored(
    ctrl: &zut_agent::Controller,
    meta: &zut_session::Meta,
    home: &Path,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    match zut_models::switch::restore(ctrl, meta, home) {
        Ok(Some(label)) => {
            let st = ctrl.state();
            let _ = tx.send(TuiEvent::Provider(st.provider));
            let _ = tx.send(TuiEvent::Settings {
                model: st.model,
                reasoning: st.reasoning,
            });
            let _ = tx.send(TuiEvent::Info(format!("model: {label} (the session's)")));
        }
        Ok(None) => {}
        Err(w) => {
            let _ = tx.send(TuiEvent::Info(w));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn screen(p: &Picker) -> String {
        let theme = zut_tui::theme::Theme::new(zut_tui::theme::ColorDepth::None);
        zut_tui::pickers::plain(p, 90, 14, &theme)
    }

    #[test]
    fn quick_model_slots_come_from_config_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.json"),
            r#"{"quick_model_shortcuts": [{"provider": "openai", "model": "gpt-5-mini"}, null,
                {"provider": "anthropic"}, {"provider": "groq", "model": "m", "reasoning": "high"},
                {"provider": "groq", "model": "m", "reasoning": 3}]}"#,
        )
        .unwrap();
        assert_eq!(
            quick_slot(dir.path(), "1").unwrap(),
            ("openai/gpt-5-mini".to_string(), None)
        );
        assert_eq!(
            quick_slot(dir.path(), "4").unwrap(),
            ("groq/m".to_string(), Some("high".to_string()))
        );
        assert!(quick_slot(dir.path(), "5")
            .unwrap_err()
            .contains("[4].reasoning: expected a string"));
        assert!(quick_slot(dir.path(), "2")
            .unwrap_err()
            .contains("slot 2 is empty"));
        let e = quick_slot(dir.path(), "3").unwrap_err();
        assert!(
            e.contains("config.json: quick_model_shortcuts: [2].model"),
            "{e}"
        );
        assert!(quick_slot(dir.path(), "9")
            .unwrap_err()
            .contains("slot 9 is empty"));
        assert!(quick_slot(dir.path(), "0").is_err());
    }

    #[test]
    fn model_picker_lists_providers_with_context_price_and_reasoning() {
        // Catalog models of two providers with keys, and a models.json
        // model without a price.
        let mut rows: Vec<_> = zut_models::table::all(None, None)
            .into_iter()
            .filter(|r| {
                matches!(
                    (r.provider.as_str(), r.id.as_str()),
                    ("anthropic", "claude-sonnet-4-5")
                        | ("anthropic", "claude-haiku-4-5")
                        | ("openai", "gpt-5")
                        | ("openai", "gpt-4.1")
                )
            })
            .collect();
        rows.push(zut_models::table::ModelRow {
            provider: "my-company".into(),
            id: "company-llm".into(),
            context: 32_000,
            output: 0,
            reasoning: false,
            price: None,
            source: "models.json, openai".into(),
        });
        let mut p = picker_of(&rows, "anthropic", "claude-sonnet-4-5");
        insta::assert_snapshot!("model_picker", screen(&p));
        p.query = "openai".into();
        insta::assert_snapshot!("model_picker_filtered", screen(&p));
    }
}

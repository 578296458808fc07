//! `todo-panel`: a persistent todo list with an interactive panel.
//!
//! - `/todos` opens the panel (`/todos add <text>` adds first); keys:
//!   ↑/↓ move, x toggle, d delete, a add (type, enter), esc close;
//! - the `todos` tool lets the model list, add and complete items and
//!   returns the list as `details` state `{version, items}`;
//! - the list lives in `<data_dir>/todos.json`; a status item shows
//!   progress such as `2/4 done`.

mod panel;
mod store;

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Value};
use zut_ext_sdk::{Extension, Handle, Response, SdkError, ToolResult};

use panel::{Effect, View, PANEL_ID};
use store::Store;

const STATUS_KEY: &str = "todos";

#[derive(Default)]
struct App {
    store: Store,
    view: View,
}

type SharedApp = Arc<Mutex<App>>;

fn lock(app: &Mutex<App>) -> MutexGuard<'_, App> {
    app.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn main() -> Result<(), SdkError> {
    let mut ext = Extension::new("todo-panel", "1.0.0");
    let handle = ext.handle();
    let app = SharedApp::default();

    ext.on_hello({
        let (app, handle) = (app.clone(), handle.clone());
        move |_ext, host| {
            let mut app = lock(&app);
            match Store::open(&host.data_dir) {
                Ok(store) => app.store = store,
                Err(err) => handle.log(format_args!("starting with an empty list: {err}")),
            }
            if let Some(summary) = app.store.summary() {
                let _ = handle.set_status(STATUS_KEY, summary);
            }
        }
    });

    ext.command(
        "todos",
        "open the todo panel (/todos add <text> adds one)",
        {
            let app = app.clone();
            move |args, ctx| {
                let mut app = lock(&app);
                let (verb, text) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
                match verb {
                    "" => {}
                    "add" if !text.trim().is_empty() => {
                        app.store.add(text);
                        persist(ctx.handle(), &app.store);
                    }
                    "add" => return Response::error("usage: /todos add <text>"),
                    _ => {
                        return Response::error(format!(
                            "unknown argument {args:?}; try /todos or /todos add <text>"
                        ))
                    }
                }
                app.view.open = true;
                app.view.draft = None;
                Response::open_panel(app.view.render(&app.store))
            }
        },
    );

    handle.on_panel_key(PANEL_ID, {
        let (app, handle) = (app.clone(), handle.clone());
        move |key| {
            let mut guard = lock(&app);
            let App { store, view } = &mut *guard;
            match view.key(key, store) {
                Effect::Nothing => {}
                Effect::Redraw => redraw(&handle, view, store),
                Effect::Changed => {
                    persist(&handle, store);
                    redraw(&handle, view, store);
                }
            }
        }
    });
    handle.on_panel_close(PANEL_ID, {
        let app = app.clone();
        move || {
            let mut app = lock(&app);
            app.view.open = false;
            app.view.draft = None;
        }
    });

    ext.tool(
        "todos",
        "Manage the user's todo list. action=list shows it, action=add adds `text`, \
         action=complete marks item number `index` (1-based) done.",
        json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["list", "add", "complete"]},
                "text": {"type": "string", "description": "add: the todo text"},
                "index": {"type": "integer", "minimum": 1, "description": "complete: 1-based item number"}
            },
            "required": ["action"]
        }),
        move |args, ctx| {
            let mut guard = lock(&app);
            let App { store, view } = &mut *guard;
            let outcome = match args.get("action").and_then(Value::as_str) {
                Some("list") => Ok(String::new()),
                Some("add") => match args.get("text").and_then(Value::as_str).map(str::trim) {
                    Some(text) if !text.is_empty() => Ok(format!("Added #{}.", store.add(text))),
                    _ => Err("add needs a non-empty `text`".to_string()),
                },
                Some("complete") => match args.get("index").and_then(Value::as_u64) {
                    Some(n) if n >= 1 && store.complete((n - 1) as usize) => Ok(format!("Completed #{n}.")),
                    _ => Err(format!("complete needs an `index` between 1 and {}", store.state.items.len())),
                },
                _ => Err("`action` must be one of list, add, complete".to_string()),
            };
            let note = match outcome {
                Ok(note) => note,
                Err(err) => return ToolResult::error(err),
            };
            if !note.is_empty() {
                persist(ctx.handle(), store);
                if view.open {
                    redraw(ctx.handle(), view, store);
                }
            }
            let text = [note, store.listing()].join("\n").trim().to_string();
            let result = ToolResult::text(text);
            match serde_json::to_value(&store.state) {
                Ok(state) => result.with_details(state),
                Err(_) => result,
            }
        },
    );

    ext.run()
}

/// Saves the list and refreshes the status item.
fn persist(handle: &Handle, store: &Store) {
    if let Err(err) = store.save() {
        handle.log(format_args!("could not save todos: {err}"));
        let _ = handle.notify(
            zut_ext_sdk::Level::Error,
            format!("could not save todos: {err}"),
        );
    }
    publish_status(handle, store);
}

fn publish_status(handle: &Handle, store: &Store) {
    let _ = match store.summary() {
        Some(summary) => handle.set_status(STATUS_KEY, summary),
        None => handle.clear_status(STATUS_KEY),
    };
}

fn redraw(handle: &Handle, view: &View, store: &Store) {
    let _ = handle.render_panel(view.render(store));
}

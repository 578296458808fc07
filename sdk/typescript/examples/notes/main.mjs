// notes: a tool with state. Notes travel in tool_result.details, so they follow the session branch.
import { Extension, Response, ToolResult } from "../../bundle/zut-ext.js";

const ext = new Extension("notes-typescript", "1.0.0");
let notes = [];

ext.tool("note_add", "Keep a short note for later in this session.", {
  type: "object",
  properties: { text: { type: "string", description: "the note to keep" } },
  required: ["text"],
}, (args) => {
  const text = typeof args.text === "string" ? args.text.trim() : "";
  if (!text) return ToolResult.error("text is required");
  notes = [...notes, text];
  return ToolResult.text(`noted (${notes.length} notes)`).withDetails({ notes });
});

ext.tool("note_list", "List the notes kept in this session.", undefined,
  () => ToolResult.text(notes.length ? notes.join("\n") : "(no notes)"));

ext.command("notes", "show the notes of this session",
  () => Response.display(notes.length ? notes.join("\n") : "(no notes)"));

// Session events hand back the last details this extension returned on this branch.
const restore = (event) => {
  const state = event.state;
  notes = state && Array.isArray(state.notes) ? state.notes.map(String) : [];
};
for (const name of ["session_start", "session_opened", "session_switched", "session_forked", "session_compacted"]) {
  ext.onEvent(name, restore);
}

ext.main();

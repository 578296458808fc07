// guard: refuses dangerous bash commands before they run, and counts what it saw.
import { Extension, ToolCallDecision } from "../../bundle/zut-ext.js";

const ext = new Extension("guard-typescript", "1.0.0");
const DANGER = ["rm -rf", "mkfs", ":(){"];
const seen = { allowed: 0, blocked: 0 };

ext.interceptToolCall((tool, args) => {
  const command = args && typeof args.command === "string" ? args.command : "";
  const hit = tool === "bash" ? DANGER.find((d) => command.includes(d)) : undefined;
  seen[hit ? "blocked" : "allowed"] += 1;
  ext.setStatus("guard", `guard: ${seen.allowed} allowed, ${seen.blocked} blocked`);
  return hit ? ToolCallDecision.deny(`refused: matches danger pattern "${hit}"`) : ToolCallDecision.allow();
});

ext.main();

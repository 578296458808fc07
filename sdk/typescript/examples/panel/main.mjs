// panel: a keyboard-driven picker (/pick) and a tool that waits for the user's y/n in a panel.
import { Extension, Response, ToolResult, panel } from "../../bundle/zut-ext.js";

const ext = new Extension("panel-typescript", "1.0.0");
const ITEMS = ["red", "green", "blue"];
let cursor = 0;
const picker = () => panel("picker", "Pick a colour",
  ITEMS.map((item, i) => (i === cursor ? "▸ " : "  ") + item), "↑/↓ move · enter pick · esc close");

ext.command("pick", "pick a colour in a panel", () => Response.openPanel(picker()));

ext.onPanelKey("picker", (key) => {
  if (key.key === "up") cursor = Math.max(0, cursor - 1);
  else if (key.key === "down") cursor = Math.min(ITEMS.length - 1, cursor + 1);
  else if (key.key === "enter") {
    ext.closePanel("picker");
    ext.notify("success", `picked ${ITEMS[cursor]}`);
    return;
  }
  ext.renderPanel(picker());
});

ext.tool("confirm", "Ask the user to approve an action; returns approved or denied.", {
  type: "object", properties: { action: { type: "string" } }, required: ["action"],
}, (args, ctx) => new Promise((resolve) => {
  const id = `confirm-${ctx.requestId}`;
  const answer = (ok) => {
    ext.closePanel(id);
    resolve(ok ? ToolResult.text("approved") : ToolResult.error("denied"));
  };
  ext.onPanelKey(id, (key) => {
    if (key.key === "rune" && (key.text === "y" || key.text === "n")) answer(key.text === "y");
  });
  ext.onPanelClose(id, () => answer(false));
  ext.openPanel(panel(id, "Approve?", [`  ${args.action ?? "?"}`, "", "  y  approve", "  n  deny"], "y/n"));
}));

ext.main();

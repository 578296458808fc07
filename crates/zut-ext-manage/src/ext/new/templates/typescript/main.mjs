// @ts-check
// {{name}}: a zut extension (TypeScript SDK, vendored in ./zut-ext: one bundled ES module + type declarations).
import { Extension, Response, ToolResult } from "./zut-ext/index.js";

const ext = new Extension("{{name}}", "0.1.0");
let calls = 0;

ext.command("{{name}}", "say hello from {{name}}", (args) =>
  Response.prompt(`Say hello to ${args || "me"} in one short sentence.`));

ext.tool("{{tool}}", "Echo a text back (an example tool of {{name}}).", {
  type: "object",
  properties: { text: { type: "string", description: "what to echo" } },
  required: ["text"],
}, (args) => {
  if (typeof args.text !== "string") return ToolResult.error("text must be a string");
  calls += 1;
  return ToolResult.text(args.text).withDetails({ calls });
});

ext.main();

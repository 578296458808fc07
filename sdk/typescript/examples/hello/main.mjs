// hello: a command that prompts the model, and one that shows the project directory.
// In your own extension: import { Extension, Response } from "zut-ext";
import { Extension, Response } from "../../bundle/zut-ext.js";

const ext = new Extension("hello-typescript", "1.0.0");

ext.command("hello", "say hi (typescript)", (args) =>
  Response.prompt(`Greet ${args || "me"} very briefly in one sentence.`));

ext.onHello((ext, host) => {
  ext.command("where", "show the project directory", () => Response.display(host.cwd || "(unknown)"));
});

ext.main();

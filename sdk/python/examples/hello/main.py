"""hello: a command that prompts the model, and one that shows the project directory."""

import os
import sys

try:
    import zut_ext  # noqa: F401
except ImportError:  # running from the zut repository: use the SDK two directories up
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from zut_ext import Extension, HostInfo, Response  # noqa: E402

ext = Extension("hello-python", "1.0.0")


@ext.command("hello", "say hi (python)")
def hello(args: str) -> Response:
    who = args or "me"
    return Response.prompt(f"Greet {who} very briefly in one sentence.")


@ext.on_hello
def add_cwd_command(ext: Extension, host: HostInfo) -> None:
    @ext.command("where", "show the project directory")
    def where(args: str) -> Response:
        return Response.display(host.cwd or "(unknown)")


if __name__ == "__main__":
    ext.main()

"""The generated frame types must match schema/protocol.schema.json."""

import subprocess
import sys
import unittest

from .host import REPO


class GeneratedTypesTest(unittest.TestCase):
    def test_generated_files_match_the_schema(self) -> None:
        run = subprocess.run([sys.executable, str(REPO / "scripts" / "gen-sdk-types"), "--check"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_frame_type_lists(self) -> None:
        from zut_ext import frames

        self.assertIn("tool_result", frames.EXT_FRAME_TYPES)
        self.assertIn("panel_key", frames.HOST_FRAME_TYPES)
        self.assertEqual(frames.PROTOCOL_VERSION, 2)

    def test_runtime_version_is_the_generated_one(self) -> None:
        import zut_ext
        from zut_ext import extension, frames

        # The run loop keeps its own copy so that start-up does not import frames (and typing).
        self.assertEqual(extension.PROTOCOL_VERSION, frames.PROTOCOL_VERSION)
        self.assertEqual(zut_ext.PROTOCOL_VERSION, frames.PROTOCOL_VERSION)
        self.assertIs(zut_ext.PanelContent, frames.PanelContent)
        with self.assertRaises(AttributeError):
            getattr(zut_ext, "NoSuchName")

    def test_import_is_lean(self) -> None:
        # Start-up time: importing the SDK must not pull typing, asyncio or the generated frame types.
        code = ("import sys; import zut_ext; "
                "print(' '.join(m for m in ('typing', 'asyncio', 'zut_ext.frames', 'base64') if m in sys.modules))")
        run = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                             cwd=str(REPO / "sdk" / "python"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "")


if __name__ == "__main__":
    unittest.main()

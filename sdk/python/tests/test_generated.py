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


if __name__ == "__main__":
    unittest.main()
